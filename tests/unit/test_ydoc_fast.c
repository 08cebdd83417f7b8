/*
 * test_ydoc_fast.c - the YAML loader's one-pass path against its exact
 * two-pass path (indexer/text/ydoc.c): for every input, dbp_ydoc_parse,
 * dbp_ydoc_parse_arena (the one-pass tree in an arena, what the indexer
 * uses) and dbp_ydoc_parse_exact give the same tree (compared as compact
 * JSON, key order and number spellings included) or the same message.  Inputs: the
 * cases below (each feature that makes the one-pass path give up, each
 * duplicate-key regime, the depth bound), every file of fixtures/ (the bad-input
 * catalogue, the fixture prints, the fuzz corpora) and the upstream
 * example prints when present.  Each is also read with its root's
 * `tables` streamed (dbp_ydoc_parse_stream, what the indexer reads a
 * manifest with): the tree it returns with the entries it handed out put
 * back is the same document, and one it gave up on is the whole tree.
 * Also dbp_float_repr's cheap digits against bisection over many doubles.
 */
#define _XOPEN_SOURCE	700	/* realpath, nftw */

#include <sys/stat.h>

#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile/ix.h"

static int arenas;	/* trees freed by their arena */

/* "ERROR: " and d's message, malloc'd. */
static char *
errtext(const struct dbp_diag *d)
{
	char *out;

	assert_true(d->msg[0] != '\0');
	out = malloc(strlen(d->msg) + 8);
	assert_non_null(out);
	sprintf(out, "ERROR: %s", d->msg);
	return out;
}

/* What a loader gave: v's compact JSON, or "ERROR: " and d's message;
 * malloc'd.  v is freed as dbp_ydoc_parse_arena's contract says: by arena
 * a when it holds chunks, else by cJSON_Delete. */
static char *
outcome_of(cJSON *v, const struct dbp_diag *d, struct dbp_arena *a)
{
	char *out;

	if (v == NULL) {
		assert_true(a == NULL || a->chunks == NULL);
		return errtext(d);
	}
	out = dbp_json_dump(v, DBP_JSON_COMPACT);
	assert_non_null(out);
	if (a != NULL && a->chunks != NULL) {
		arenas++;
		dbp_arena_free(a);
	} else
		cJSON_Delete(v);
	return out;
}

/* The outcome of one loader. */
static char *
outcome(cJSON *(*load)(const char *, size_t, struct dbp_diag *),
    const char *buf, size_t len)
{
	struct dbp_diag d;
	cJSON *v;

	d.msg[0] = '\0';
	v = load(buf, len, &d);
	return outcome_of(v, &d, NULL);
}

/* The outcome of dbp_ydoc_parse_arena. */
static char *
outcome_arena(const char *buf, size_t len)
{
	struct dbp_arena a;
	struct dbp_diag d;
	cJSON *v;

	memset(&a, 0, sizeof(a));
	d.msg[0] = '\0';
	v = dbp_ydoc_parse_arena(buf, len, &a, &d);
	return outcome_of(v, &d, &a);
}

/* What a stream handed out: the entries, kept as copies. */
struct got {
	cJSON	*entries;	/* an object, cJSON's own */
	int	 begun;		/* begin() calls */
	int	 calls;		/* fn() calls */
	int	 give_up_at;	/* fn returns 1 on this call (1-based), or 0 */
	int	 stop_at;	/* fn returns -1 on this call, or 0 */
	char	*before;	/* begin's root, compact JSON */
};

static int
got_begin(void *arg, const cJSON *root)
{
	struct got *g = arg;
	struct dbp_buf b;

	assert_int_equal(g->calls, 0);
	g->begun++;
	dbp_buf_init(&b, 1 << 20);
	ix_json_compact(&b, root);
	free(g->before);
	g->before = dbp_buf_take(&b);
	return 0;
}

static int
got_entry(void *arg, const char *key, const cJSON *v)
{
	struct got *g = arg;
	cJSON *copy;

	assert_int_equal(g->begun, 1);
	assert_string_equal(key, v->string);
	g->calls++;
	if (g->calls == g->give_up_at)
		return 1;
	if (g->calls == g->stop_at)
		return -1;
	copy = cJSON_Duplicate(v, 1);
	assert_non_null(copy);
	cJSON_AddItemToObject(g->entries, key, copy);
	return 0;
}

/* A tree's compact JSON with its root's empty `tables` replaced by the
 * entries a stream handed out (NULL: as it is); malloc'd. */
static char *
spliced(const cJSON *v, const cJSON *entries)
{
	struct dbp_buf b;
	const cJSON *c;

	dbp_buf_init(&b, 1 << 26);
	if (entries == NULL || !cJSON_IsObject(v))
		ix_json_compact(&b, v);
	else {
		dbp_buf_addc(&b, '{');
		for (c = v->child; c != NULL; c = c->next) {
			ix_json_str(&b, c->string);
			dbp_buf_addc(&b, ':');
			if (strcmp(c->string, "tables") == 0) {
				assert_true(cJSON_IsObject(c));
				assert_null(c->child);
				ix_json_compact(&b, entries);
			} else
				ix_json_compact(&b, c);
			if (c->next != NULL)
				dbp_buf_addc(&b, ',');
		}
		dbp_buf_addc(&b, '}');
	}
	assert_false(b.failed);
	return dbp_buf_take(&b);
}

/* The outcome of dbp_ydoc_parse_stream on `tables`, as compact JSON
 * (ix_json_compact) or "ERROR: ..."; *streamed as it said. */
static char *
outcome_stream(const char *buf, size_t len, struct got *g, int *streamed)
{
	struct dbp_ystream s;
	struct dbp_arena a;
	struct dbp_diag d;
	cJSON *v;
	char *out;

	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	s.member = "tables";
	s.begin = got_begin;
	s.fn = got_entry;
	s.arg = g;
	g->entries = cJSON_CreateObject();
	assert_non_null(g->entries);
	d.msg[0] = '\0';
	v = dbp_ydoc_parse_stream(buf, len, &a, &s, &d);
	*streamed = s.streamed;
	if (v == NULL) {
		assert_true(s.streamed == 0);	/* fn never stops here */
		out = errtext(&d);
	} else {
		assert_true(s.streamed == 0 || s.streamed == 1);
		out = spliced(v, s.streamed == 1 ? g->entries : NULL);
		if (a.chunks != NULL)
			dbp_arena_free(&a);
		else
			cJSON_Delete(v);
	}
	cJSON_Delete(g->entries);
	g->entries = NULL;
	free(g->before);
	g->before = NULL;
	return out;
}

/* The exact path's outcome in ix_json_compact's spelling. */
static char *
outcome_exact_ix(const char *buf, size_t len)
{
	struct dbp_diag d;
	cJSON *v;
	char *out;

	d.msg[0] = '\0';
	if ((v = dbp_ydoc_parse_exact(buf, len, &d)) == NULL)
		return errtext(&d);
	out = spliced(v, NULL);
	cJSON_Delete(v);
	return out;
}

static int compared, differed, streams;

/* Count and say it when two outcomes of name differ. */
static void
agree(const char *name, const char *what, const char *got,
    const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	differed++;
	print_error("%s: %s and exact differ:\n%.300s\n--\n%.300s\n", name,
	    what, got, want);
}

/* Compare both paths on buf; name says where it came from. */
static void
same(const char *name, const char *buf, size_t len)
{
	char *fast, *exact, *arena, *stream;
	struct got g;
	int streamed;

	fast = outcome(dbp_ydoc_parse, buf, len);
	exact = outcome(dbp_ydoc_parse_exact, buf, len);
	arena = outcome_arena(buf, len);
	compared++;
	agree(name, "one pass", fast, exact);
	agree(name, "arena", arena, exact);
	free(fast);
	free(exact);
	free(arena);
	/* streamed, the same document */
	memset(&g, 0, sizeof(g));
	stream = outcome_stream(buf, len, &g, &streamed);
	exact = outcome_exact_ix(buf, len);
	streams += streamed == 1;
	agree(name, "streamed", stream, exact);
	free(stream);
	free(exact);
}

static void
same_s(const char *text)
{
	same(text, text, strlen(text));
}

static void
test_cases(void **state)
{
	static const char *const cases[] = {
		"", "# nothing\n", "---\n", "a: 1\n", "- 1\n- two\n",
		"a: {b: [1, 2.5, .inf, -.inf, .nan, 0x1f, 0o17, 017, 1_000]}\n",
		"k: yes\nl: No\nm: ~\nn: null\no: 2024-01-02\n"
		    "p: 2024-01-02 03:04:05.5 +01:00\nq: '1'\nr: \"x\\ty\"\n",
		"1: a\ntrue: b\nnull: c\n1.5: d\n2024-01-01: e\n.inf: f\n"
		    "~: g\n=: h\n0x10: i\n",
		"a: 1\na: 2\nb: 3\na: 4\n",
		"a: [1, 2]\nb: 1\na: {x: [3]}\nb: [4]\n1: x\n1: {y: z}\n",
		/* anchors, aliases, merges, tags: the exact path's */
		"a: &x 1\nb: *x\n", "a: &x [1, 2]\nb: *x\n",
		"base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n",
		"c:\n  <<: [{x: 1}, {x: 2, z: 3}]\n", "c:\n  <<: 1\n",
		"a: !!str 1\nb: !!int '7'\nc: !!float '1'\n",
		"a: !!binary aGk=\n", "a: !foo x\n", "a: ! 12\n", "! 12\n",
		"a: <<\n", "- <<\n", "a: =\n", "<<: {a: 1}\n",
		"? [1, 2]\n: x\n", "? {a: 1}\n: x\n",
		/* construction errors, and parse errors after them */
		"a: 0b102\n", "a: 2024-13-01\n", "a: 99999999999999999999\n",
		"a: 2024-13-01\nb: [\n", "a: *nope\n", "a: &x 1\nb: &x 2\n",
		"a: 1\n---\nb: 2\n", "a: [1, 2\n", "a:\n  - 1\n - 2\n",
		"\xEF\xBB\xBF" "a: 1\n", "a: \"\\0\"\n",
		"a: 1\nb: 2\n...\n", "--- 1\n...\n",
	};
	char buf[4096], *p;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		same_s(cases[i]);
	/* Mappings around the linear-search bound, with duplicates early
	 * and late, so both lookups replace in place. */
	for (k = 1; k <= 80; k++) {
		int j;

		p = buf;
		for (j = 0; j < k; j++)
			p += sprintf(p, "k%d: %d\n", j % (k / 2 + 1), j);
		for (j = 0; j < k; j += 7)
			p += sprintf(p, "k%d: late%d\n", j, j);
		same_s(buf);
	}
	/* Nesting at and past DBP_MAX_DEPTH. */
	for (k = DBP_MAX_DEPTH - 2; k <= DBP_MAX_DEPTH + 2; k++) {
		int j;

		p = buf;
		for (j = 0; j < k; j++)
			*p++ = '[';
		for (j = 0; j < k; j++)
			*p++ = ']';
		*p = '\0';
		same_s(buf);
	}
	assert_int_equal(differed, 0);
	assert_true(arenas > 0);	/* the arena path was taken */
}

/* A mapping of many members, some repeated: the hash table regime. */
static void
test_large_map(void **state)
{
	struct dbp_buf b;
	int j;

	(void)state;
	dbp_buf_init(&b, 1 << 24);
	for (j = 0; j < 5000; j++)
		dbp_buf_addf(&b, "key%d: %d\n", (j * 7919) % 3001, j);
	assert_false(b.failed);
	same("large map", b.ptr, b.len);
	dbp_buf_release(&b);
	assert_int_equal(differed, 0);
}

/* One streamed read: its outcome, whether it streamed, and what the
 * stream handed out (begin's root, the entries' keys in order). */
static void
stream_case(const char *text, int give_up_at, int stop_at, int want_streamed,
    const char *want, const char *want_before, const char *want_keys)
{
	struct dbp_ystream s;
	struct dbp_arena a;
	struct dbp_diag d;
	struct got g;
	struct dbp_buf keys;
	const cJSON *c;
	cJSON *v;
	char *out;

	memset(&g, 0, sizeof(g));
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	g.give_up_at = give_up_at;
	g.stop_at = stop_at;
	s.member = "tables";
	s.begin = got_begin;
	s.fn = got_entry;
	s.arg = &g;
	g.entries = cJSON_CreateObject();
	d.msg[0] = '\0';
	v = dbp_ydoc_parse_stream(text, strlen(text), &a, &s, &d);
	assert_int_equal(s.streamed, want_streamed);
	if (want == NULL) {	/* stopped, or an error */
		assert_null(v);
		assert_null(a.chunks);
		assert_true(d.msg[0] != '\0' || want_streamed == -1);
	} else {
		assert_non_null(v);
		out = spliced(v, want_streamed == 1 ? g.entries : NULL);
		assert_string_equal(out, want);
		free(out);
		if (a.chunks != NULL)
			dbp_arena_free(&a);
		else
			cJSON_Delete(v);
	}
	if (want_before != NULL) {
		assert_non_null(g.before);
		assert_string_equal(g.before, want_before);
	}
	dbp_buf_init(&keys, 4096);
	for (c = g.entries->child; c != NULL; c = c->next)
		dbp_buf_addf(&keys, "%s%s", c == g.entries->child ? "" : ",",
		    c->string);
	assert_string_equal(keys.ptr != NULL ? keys.ptr : "", want_keys);
	dbp_buf_release(&keys);
	cJSON_Delete(g.entries);
	free(g.before);
}

/* The streamed member: what is handed out, and each case that gives the
 * stream up (the whole tree then) or stops it. */
static void
test_stream(void **state)
{
	struct dbp_buf b;
	int j;

	(void)state;
	/* members before and after; entries of every kind of value */
	stream_case("a: 1\ntables:\n  x: {p: 1, q: [1, 2]}\n  y: 2\n"
	    "  z:\nb: 3\n", 0, 0, 1,
	    "{\"a\":1,\"tables\":{\"x\":{\"p\":1,\"q\":[1,2]},\"y\":2,"
	    "\"z\":null},\"b\":3}", "{\"a\":1}", "x,y,z");
	stream_case("tables: {}\n", 0, 0, 1, "{\"tables\":{}}", "{}", "");
	/* a key spelled otherwise is handed out as Python's str() */
	stream_case("tables: {1: a, true: b}\n", 0, 0, 1,
	    "{\"tables\":{\"1\":\"a\",\"True\":\"b\"}}", "{}", "1,True");
	/* a duplicate before `tables` is settled when it opens */
	stream_case("a: 1\na: 2\ntables: {x: 1}\n", 0, 0, 1,
	    "{\"a\":2,\"tables\":{\"x\":1}}", "{\"a\":2}", "x");
	/* not streamed: no such member, not a mapping, not at the root */
	stream_case("a: 1\n", 0, 0, 0, "{\"a\":1}", NULL, "");
	stream_case("tables: [1]\n", 0, 0, 0, "{\"tables\":[1]}", NULL, "");
	stream_case("x: {tables: {a: 1}}\n", 0, 0, 0,
	    "{\"x\":{\"tables\":{\"a\":1}}}", NULL, "");
	stream_case("- tables\n", 0, 0, 0, "[\"tables\"]", NULL, "");
	/* given up: fn says so; an anchor; `tables` again; another root
	 * key again once `tables` opened; an error after some entries */
	stream_case("tables: {x: 1, y: 2, x: 3}\n", 2, 0, 0,
	    "{\"tables\":{\"x\":3,\"y\":2}}", NULL, "x");
	stream_case("tables: {x: &a {p: 1}, y: *a}\n", 0, 0, 0,
	    "{\"tables\":{\"x\":{\"p\":1},\"y\":{\"p\":1}}}", NULL, "");
	stream_case("tables: {x: 1}\ntables: {y: 2}\n", 0, 0, 0,
	    "{\"tables\":{\"y\":2}}", NULL, "x");
	stream_case("tables: {x: 1}\ntables: 7\n", 0, 0, 0,
	    "{\"tables\":7}", NULL, "x");
	stream_case("a: 1\ntables: {x: 1}\na: 2\n", 0, 0, 0,
	    "{\"a\":2,\"tables\":{\"x\":1}}", NULL, "x");
	stream_case("tables: {x: 1}\nb: [\n", 0, 0, 0, NULL, NULL, "x");
	/* stopped: NULL, nothing kept */
	stream_case("tables: {x: 1, y: 2}\n", 0, 2, -1, NULL, NULL, "x");
	/* many entries through the one scratch arena */
	dbp_buf_init(&b, 1 << 24);
	dbp_buf_adds(&b, "h: 1\ntables:\n");
	for (j = 0; j < 20000; j++)
		dbp_buf_addf(&b, "  t%d: {path: p/%d, n: [%d, %d]}\n", j, j,
		    j, j * 2);
	dbp_buf_adds(&b, "tail: x\n");
	assert_false(b.failed);
	same("streamed map", b.ptr, b.len);
	dbp_buf_release(&b);
	assert_int_equal(differed, 0);
}

static int
file_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	struct dbp_diag d;
	size_t len;
	char *buf;

	(void)ftw;
	if (flag != FTW_F || sb->st_size > 4 * 1024 * 1024)
		return 0;
	if (dbp_read_file(path, DBP_MAX_FILE_BYTES, &buf, &len, NULL,
	    &d) == -1)
		return 0;
	same(path, buf, len);
	free(buf);
	return 0;
}

static void
walk(const char *rel, int required)
{
	const char *src = getenv("SRCDIR");
	char dir[DBP_MAX_PATH];
	struct stat sb;
	int before = compared;

	snprintf(dir, sizeof(dir), "%s/%s", src != NULL ? src : ".", rel);
	if (stat(dir, &sb) == -1) {
		if (required)
			fail_msg("no %s", dir);
		return;
	}
	assert_int_equal(nftw(dir, file_one, 16, FTW_PHYS), 0);
	assert_true(compared > before);
}

/* Every fixture file, YAML or not: the bad-input catalogue, the fixture
 * prints, the fuzz corpora of every target. */
static void
test_fixtures(void **state)
{
	(void)state;
	walk("fixtures", 1);
	assert_int_equal(differed, 0);
	assert_true(streams > 0);	/* manifests were streamed */
}

static void
test_examples(void **state)
{
	const char *src = getenv("SRCDIR");
	char dir[DBP_MAX_PATH];
	struct stat sb;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/../shared/upstream/docs/format/v1/"
	    "examples", src != NULL ? src : ".");
	if (stat(dir, &sb) == -1) {
		skip();
		return;
	}
	walk("../shared/upstream/docs/format/v1/examples", 1);
	assert_int_equal(differed, 0);
}

/* The cheap digits of dbp_float_repr against bisection: random bit
 * patterns (every exponent, subnormals included), and short decimals
 * as prints spell them. */
static void
test_float_digits(void **state)
{
	char a[DBP_FLOAT_REPR_MAX], b[DBP_FLOAT_REPR_MAX], t[64];
	uint64_t s = 0x9e3779b97f4a7c15ULL, bits;
	double x;
	int i, bad = 0;

	(void)state;
	for (i = 0; i < 60000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		if (i % 3 == 0) {
			bits = s;
			memcpy(&x, &bits, sizeof(x));
		} else if (i % 3 == 1) {
			snprintf(t, sizeof(t), "%.*f", (int)(s % 9),
			    (double)(s >> 20) / (double)(1 + (s & 0xfffff)));
			x = strtod(t, NULL);
		} else {
			snprintf(t, sizeof(t), "%de%d", (int)(s % 100000),
			    (int)(s >> 40) % 640 - 330);
			x = strtod(t, NULL);
		}
		dbp_float_repr(x, a);
		dbp_float_repr_slow(x, b);
		if (strcmp(a, b) != 0 && bad++ < 10)
			print_error("%.17g: %s, bisection %s\n", x, a, b);
	}
	assert_int_equal(bad, 0);
}

/* A float scalar's spelling, read from its YAML text when it can be,
 * against bisection on its value. */
static void
test_float_text(void **state)
{
	static const char *const fixed[] = {
		"0.1", "-0.1", "1.", ".5", "-.5e+3", "0.000001", "1.0e-05",
		"123456789012345.0", "1234567890123456.0", "0.30000000000000004",
		"1.7976931348623157e+308", "2.2250738585072014e-308",
		"4.9e-324", "1.0e+400", "1.0e-400", "00012.3400", "1_000.5",
		"190:20:30.15", "1.5E+3", "9.999999999999999e+22", "1e+16",
		"100000000000000000000.0", "0.0", "-0.0",
	};
	char a[DBP_FLOAT_REPR_MAX], t[96], y[128];
	struct dbp_diag d;
	uint64_t s = 0x2545f4914f6cdd1dULL;
	cJSON *v;
	size_t i;
	int bad = 0, n = 0;

	(void)state;
	for (i = 0; i < 40000 + sizeof(fixed) / sizeof(fixed[0]); i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		if (i < sizeof(fixed) / sizeof(fixed[0]))
			snprintf(t, sizeof(t), "%s", fixed[i]);
		else if (i % 2 == 0)
			snprintf(t, sizeof(t), "%s%llu.%0*llue%c%d",
			    s & 1 ? "-" : "", (unsigned long long)(s >> 45),
			    (int)(s >> 8 & 7), (unsigned long long)(s >> 30 &
			    0x3ffff), s & 2 ? '-' : '+', (int)(s >> 16 & 0x1ff));
		else
			snprintf(t, sizeof(t), "%.*f", (int)(s % 19),
			    (double)(s >> 11) / (double)(1 + (s & 0xffffff)));
		snprintf(y, sizeof(y), "%s\n", t);
		v = dbp_ydoc_parse(y, strlen(y), &d);
		assert_non_null(v);
		/* A YAML 1.1 float has a point; without one it is an int. */
		if (cJSON_IsNumber(v) && strchr(t, '.') != NULL &&
		    !isinf(v->valuedouble) && !isnan(v->valuedouble)) {
			n++;
			dbp_float_repr_slow(v->valuedouble, a);
			if (strcmp(dbp_num_text(v), a) != 0 && bad++ < 10)
				print_error("%s: %s, bisection %s\n", t,
				    dbp_num_text(v), a);
		}
		cJSON_Delete(v);
	}
	assert_true(n > 20000);
	assert_int_equal(bad, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_large_map),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_float_digits),
		cmocka_unit_test(test_float_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

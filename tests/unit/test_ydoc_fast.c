/*
 * test_ydoc_fast.c - the YAML loader's one-pass path against its exact
 * two-pass path (indexer/text/ydoc.c): for every input, dbp_ydoc_parse,
 * dbp_ydoc_parse_arena (the one-pass tree in an arena, what the indexer
 * uses) and dbp_ydoc_parse_exact give the same tree (compared as compact
 * JSON, key order and number spellings included) or the same message.  Inputs: the
 * cases below (each feature that makes the one-pass path give up, each
 * duplicate-key regime, the depth bound), every file of fixtures/ (the bad-input
 * catalogue, the fixture prints, the fuzz corpora) and the upstream
 * example prints when present.  Also dbp_float_repr's cheap digits
 * against bisection over many doubles.
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

/* What a loader gave: v's compact JSON, or "ERROR: " and d's message;
 * malloc'd.  v is freed as dbp_ydoc_parse_arena's contract says: by arena
 * a when it holds chunks, else by cJSON_Delete. */
static char *
outcome_of(cJSON *v, const struct dbp_diag *d, struct dbp_arena *a)
{
	char *out;

	if (v == NULL) {
		assert_true(a == NULL || a->chunks == NULL);
		assert_true(d->msg[0] != '\0');
		out = malloc(strlen(d->msg) + 8);
		assert_non_null(out);
		sprintf(out, "ERROR: %s", d->msg);
		return out;
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

static int compared, differed;

/* Compare both paths on buf; name says where it came from. */
static void
same(const char *name, const char *buf, size_t len)
{
	char *fast, *exact, *arena;

	fast = outcome(dbp_ydoc_parse, buf, len);
	exact = outcome(dbp_ydoc_parse_exact, buf, len);
	arena = outcome_arena(buf, len);
	compared++;
	if (strcmp(fast, exact) != 0) {
		differed++;
		print_error("%s: one pass and exact differ:\n%.300s\n--\n"
		    "%.300s\n", name, fast, exact);
	}
	if (strcmp(arena, exact) != 0) {
		differed++;
		print_error("%s: arena and exact differ:\n%.300s\n--\n"
		    "%.300s\n", name, arena, exact);
	}
	free(fast);
	free(exact);
	free(arena);
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
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_float_digits),
		cmocka_unit_test(test_float_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_ydoc.c - dbp_ydoc_parse against PyYAML safe_load (CSafeLoader)
 * semantics: the YAML 1.1 scalar resolver, number spellings, timestamps,
 * keys, merges, aliases and their bounds, and the parser's messages.
 *
 * The expected texts are what Python prints for
 * json.dumps(yaml.load(text, Loader=yaml.CSafeLoader), separators=(",",":"),
 * default=str) - written down as the specification, not computed here.
 */
#define _XOPEN_SOURCE	700	/* realpath, nftw */

#include <sys/stat.h>

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "dbprint.h"

/* Parse text, and give the compact JSON or "ERROR: <message>". */
static char *
load(const char *text, size_t len)
{
	struct dbp_diag d;
	cJSON *v;
	char *out;

	d.msg[0] = '\0';
	v = dbp_ydoc_parse(text, len, &d);
	if (v == NULL) {
		assert_true(d.msg[0] != '\0');
		out = malloc(strlen(d.msg) + 8);
		assert_non_null(out);
		sprintf(out, "ERROR: %s", d.msg);
		return out;
	}
	out = dbp_json_dump(v, DBP_JSON_COMPACT);
	assert_non_null(out);
	cJSON_Delete(v);
	return out;
}

/* Check that text loads to the JSON want (or "ERROR: ..."). */
#define YEQ(text, want) do {						\
	char *got_ = load((text), strlen(text));			\
	assert_string_equal(got_, (want));				\
	free(got_);							\
} while (0)

/* Check that text fails with a message containing part. */
#define YERR(text, part) do {						\
	char *got_ = load((text), strlen(text));			\
	if (strncmp(got_, "ERROR: ", 7) != 0 ||				\
	    strstr(got_, (part)) == NULL)				\
		fail_msg("%s: got %s, want an error with %s",		\
		    (text), got_, (part));				\
	free(got_);							\
} while (0)

static void
test_null(void **state)
{
	(void)state;
	YEQ("[~, null, Null, NULL, '', nUll, \"~\"]",
	    "[null,null,null,null,\"\",\"nUll\",\"~\"]");
	YEQ("a:\nb: ~\n", "{\"a\":null,\"b\":null}");
}

static void
test_bool(void **state)
{
	(void)state;
	YEQ("[yes, Yes, YES, true, True, TRUE, on, On, ON]",
	    "[true,true,true,true,true,true,true,true,true]");
	YEQ("[no, No, NO, false, False, FALSE, off, Off, OFF]",
	    "[false,false,false,false,false,false,false,false,false]");
	/* Not YAML 1.1 booleans for PyYAML. */
	YEQ("[y, n, Y, N, tRue, yES, 'yes']",
	    "[\"y\",\"n\",\"Y\",\"N\",\"tRue\",\"yES\",\"yes\"]");
}

static void
test_int(void **state)
{
	(void)state;
	YEQ("[0, -0, +12, 017, 0o17, 09, 0x1F, -0x1F, 0b1010, -0b1_1, 1_000]",
	    "[0,0,12,15,\"0o17\",\"09\",31,-31,10,-3,1000]");
	YEQ("[0_, 00, 0x_1F, 0xDEAD_beef]", "[0,0,31,3735928559]");
	/* Sexagesimal. */
	YEQ("[1:20, 12:30:00, -1:00:00, 1:60, 1_0:30]",
	    "[80,45000,-3600,\"1:60\",630]");
	/* Arbitrary length, kept exactly. */
	YEQ("[100000000000000000000, "
	    "123456789012345678901234567890123456789012345678901234567890]",
	    "[100000000000000000000,"
	    "123456789012345678901234567890123456789012345678901234567890]");
	YEQ("x: 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
	    "{\"x\":1461501637330902918203684832716283019655932542975}");
	YEQ("x: 0b1111111111111111111111111111111111111111111111111111111111"
	    "111111111111",
	    "{\"x\":1180591620717411303423}");
	/* What Python's int() refuses. */
	YEQ("x: 0b_", "ERROR: invalid literal for int() with base 2: ''\n"
	    "  in \"<unicode string>\", line 1, column 4");
	YERR("x: !!int 1.5", "invalid literal for int() with base 10: '1.5'");
}

static void
test_int_limit(void **state)
{
	char *text;
	size_t i;

	(void)state;
	/* 4300 digits pass, 4301 do not (Python's int/str limit). */
	text = malloc(8 + DBP_MAX_INT_DIGITS + 2);
	assert_non_null(text);
	strcpy(text, "x: ");
	for (i = 0; i < DBP_MAX_INT_DIGITS; i++)
		text[3 + i] = i == 0 ? '9' : '0';
	text[3 + i] = '\0';
	{
		char *got = load(text, strlen(text));

		assert_int_equal(strlen(got), strlen("{\"x\":}") +
		    DBP_MAX_INT_DIGITS);
		free(got);
	}
	strcat(text, "0");
	YERR(text, "Exceeds the limit (4300 digits)");
	free(text);
}

static void
test_float(void **state)
{
	(void)state;
	YEQ("[0.1, 1.0, 1., 100., .5, 0.00001, 0.0001, 1.5e+16, 1.0e+16, "
	    "10000000000000000.0, 9999999999999998.0, 6.02e+23, 1.e+5, "
	    "1.5E-3, 1_0.0_1, -0.0, 0.30000000000000004]",
	    "[0.1,1.0,1.0,100.0,0.5,1e-05,0.0001,1.5e+16,1e+16,1e+16,"
	    "9999999999999998.0,6.02e+23,100000.0,0.0015,10.01,-0.0,"
	    "0.30000000000000004]");
	YEQ("[.inf, -.inf, +.inf, .Inf, .INF, .nan, .NaN, .NAN]",
	    "[Infinity,-Infinity,Infinity,Infinity,Infinity,NaN,NaN,NaN]");
	/* Sexagesimal float. */
	YEQ("[190:20:30.15, 1:2:3.5]", "[685230.15,3723.5]");
	/* Not floats for the YAML 1.1 resolver: no dot, or no exponent
	 * sign, or a sign before a bare dot. */
	YEQ("[1e-05, 1e5, 1.0e5, 1e+5, +.5, -.5e-3, 1_e+5, ._, .nAn]",
	    "[\"1e-05\",\"1e5\",\"1.0e5\",\"1e+5\",\"+.5\",\"-.5e-3\","
	    "\"1_e+5\",\"._\",\".nAn\"]");
	YEQ("[.5e-3, 1.7976931348623157e+308, 5e-324, 2.2250738585072014e-308]",
	    "[0.0005,1.7976931348623157e+308,\"5e-324\","
	    "2.2250738585072014e-308]");
	YEQ("[!!float 1, !!float '1e5', !!float ' 1 ']",
	    "[1.0,100000.0,1.0]");
}

static void
test_number_nodes(void **state)
{
	struct dbp_diag d;
	cJSON *v, *n, *dup;

	(void)state;
	v = dbp_ydoc_parse("[0.1, 100000000000000000000, 7, .inf]", 37, &d);
	assert_non_null(v);
	n = cJSON_GetArrayItem(v, 0);
	assert_true(cJSON_IsNumber(n));
	assert_string_equal(dbp_num_text(n), "0.1");
	assert_true(n->valuedouble == 0.1);
	n = cJSON_GetArrayItem(v, 1);
	assert_string_equal(dbp_num_text(n), "100000000000000000000");
	assert_true(n->valuedouble == 1e20);
	n = cJSON_GetArrayItem(v, 2);
	assert_string_equal(dbp_num_text(n), "7");
	assert_int_equal(n->valueint, 7);
	n = cJSON_GetArrayItem(v, 3);
	assert_string_equal(dbp_num_text(n), "Infinity");
	/* cJSON_Duplicate copies a number's valuestring (cJSON 1.7.15). */
	dup = cJSON_Duplicate(v, 1);
	assert_non_null(dup);
	n = cJSON_GetArrayItem(dup, 1);
	assert_ptr_not_equal(n->valuestring,
	    cJSON_GetArrayItem(v, 1)->valuestring);
	assert_string_equal(dbp_num_text(n), "100000000000000000000");
	cJSON_Delete(dup);
	cJSON_Delete(v);
}

/* A canonical decimal of up to 18 digits takes its value without
 * strtod (ydoc_small_value): it must be strtod's, where the digits are
 * exact and where they round (past 2^53, halfway cases to even). */
static void
test_small_int_values(void **state)
{
	static const char *const ints[] = { "0", "-0", "+0", "7", "-7", "+3",
	    "9007199254740992", "9007199254740993", "9007199254740995",
	    "-9007199254740993", "18014398509481986", "18014398509481987",
	    "123456789012345678", "-123456789012345678",
	    "999999999999999999", "-999999999999999999",
	    "576460752303423489", "288230376151711745" };
	struct dbp_diag d;
	const char *t;
	cJSON *v, *n;
	size_t i;
	char yaml[64];

	(void)state;
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		snprintf(yaml, sizeof(yaml), "[%s]", ints[i]);
		v = dbp_ydoc_parse(yaml, strlen(yaml), &d);
		assert_non_null(v);
		n = cJSON_GetArrayItem(v, 0);
		assert_true(cJSON_IsNumber(n));
		t = ints[i][0] == '+' ? ints[i] + 1 : ints[i];
		if (strcmp(t, "-0") == 0)
			t = "0";
		assert_string_equal(dbp_num_text(n), t);
		if (n->valuedouble != strtod(ints[i], NULL))
			fail_msg("%s: %.17g, strtod %.17g", ints[i],
			    n->valuedouble, strtod(ints[i], NULL));
		/* "-0" is 0, as PyYAML reads it */
		assert_int_equal(signbit(n->valuedouble) != 0, t[0] == '-');
		cJSON_Delete(v);
	}
}

static void
test_num_text_fallback(void **state)
{
	cJSON *n;

	(void)state;
	n = cJSON_CreateNumber(7);
	assert_string_equal(dbp_num_text(n), "7");
	cJSON_SetNumberValue(n, 7.5);
	assert_string_equal(dbp_num_text(n), "7.5");
	cJSON_SetNumberValue(n, -3);
	assert_string_equal(dbp_num_text(n), "-3");
	cJSON_SetNumberValue(n, 9007199254740992.0);
	assert_string_equal(dbp_num_text(n), "9007199254740992");
	cJSON_SetNumberValue(n, 9007199254740994.0);
	assert_string_equal(dbp_num_text(n), "9007199254740994.0");
	cJSON_SetNumberValue(n, 1e20);
	assert_string_equal(dbp_num_text(n), "1e+20");
	cJSON_SetNumberValue(n, 0.00001);
	assert_string_equal(dbp_num_text(n), "1e-05");
	cJSON_Delete(n);
}

static void
test_float_repr(void **state)
{
	char b[DBP_FLOAT_REPR_MAX];

	(void)state;
	assert_string_equal(dbp_float_repr(0.1, b), "0.1");
	assert_string_equal(dbp_float_repr(1.0, b), "1.0");
	assert_string_equal(dbp_float_repr(0.075, b), "0.075");
	assert_string_equal(dbp_float_repr(1e-05, b), "1e-05");
	assert_string_equal(dbp_float_repr(0.0001, b), "0.0001");
	assert_string_equal(dbp_float_repr(1e16, b), "1e+16");
	assert_string_equal(dbp_float_repr(1e15, b), "1000000000000000.0");
	assert_string_equal(dbp_float_repr(123456789.125, b), "123456789.125");
	assert_string_equal(dbp_float_repr(5e-324, b), "5e-324");
	assert_string_equal(dbp_float_repr(1.7976931348623157e308, b),
	    "1.7976931348623157e+308");
	assert_string_equal(dbp_float_repr(-2.5, b), "-2.5");
	assert_string_equal(dbp_float_repr(-0.0, b), "-0.0");
	assert_string_equal(dbp_float_repr(0.0, b), "0.0");
	assert_string_equal(dbp_float_repr(1.0 / 3, b), "0.3333333333333333");
	assert_string_equal(dbp_float_repr(2.0 / 3, b), "0.6666666666666666");
	assert_string_equal(dbp_float_repr(1e23, b), "1e+23");
	/* Powers of two: the lopsided rounding interval. */
	assert_string_equal(dbp_float_repr(9007199254740992.0 * 1024, b),
	    "9.223372036854776e+18");
	assert_string_equal(dbp_float_repr(0x1p-1022, b),
	    "2.2250738585072014e-308");
	assert_string_equal(dbp_float_repr(__builtin_inf(), b), "inf");
	assert_string_equal(dbp_float_repr(-__builtin_inf(), b), "-inf");
	assert_string_equal(dbp_float_repr(__builtin_nan(""), b), "nan");
}

static void
test_timestamp(void **state)
{
	(void)state;
	YEQ("[2024-01-01, 2026-05-17 22:48:01+00:00, "
	    "2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10 Z, "
	    "2001-1-4 1:59:43, 2024-01-01T23:00:00.000001Z, "
	    "2001-12-14 21:59:43.1234567+5, 2001-12-14 21:59:43 -00:30, "
	    "2024-01-01 10:00:00., 2024-02-29]",
	    "[\"2024-01-01\",\"2026-05-17 22:48:01+00:00\","
	    "\"2001-12-14 21:59:43.100000-05:00\","
	    "\"2001-12-14 21:59:43.100000+00:00\",\"2001-01-04 01:59:43\","
	    "\"2024-01-01 23:00:00.000001+00:00\","
	    "\"2001-12-14 21:59:43.123456+05:00\","
	    "\"2001-12-14 21:59:43-00:30\",\"2024-01-01 10:00:00\","
	    "\"2024-02-29\"]");
	YEQ("x: 2024-01-01    10:00:00   Z",
	    "{\"x\":\"2024-01-01 10:00:00+00:00\"}");
	YEQ("x: \"2024-01-01\"", "{\"x\":\"2024-01-01\"}");
	/* The date alone needs two-digit month and day. */
	YEQ("x: 2024-1-1", "{\"x\":\"2024-1-1\"}");
	YEQ("x: !!timestamp 2024-1-1", "{\"x\":\"2024-01-01\"}");
	YERR("x: 2023-02-29", "day is out of range for month");
	YERR("x: 2024-13-01", "month must be in 1..12");
	YERR("x: 0000-01-01", "year 0 is out of range");
	YERR("x: 2024-01-01 24:00:00", "hour must be in 0..23");
	YERR("x: 2024-01-01 23:00:00 +24", "offset must be a timedelta");
}

static void
test_strings(void **state)
{
	(void)state;
	YEQ("['123', \"yes\", !!str 123, !!str, 'it''s', \"\\u00e9\"]",
	    "[\"123\",\"yes\",\"123\",\"\",\"it's\",\"\\u00e9\"]");
	/* libyaml gives "!" scalars to the implicit resolver, as the C
	 * loader of PyYAML does. */
	YEQ("[! 123, ! \"123\"]", "[123,123]");
	YEQ("a: |\n  line1\n  line2\nb: >-\n  folded\n  text\n",
	    "{\"a\":\"line1\\nline2\\n\",\"b\":\"folded text\"}");
	YEQ("s: \xc3\xa9\xf0\x9f\x98\x80", "{\"s\":\"\\u00e9\\ud83d\\ude00\"}");
	YEQ("--- >\n  x\n", "\"x\\n\"");
}

static void
test_explicit_tags(void **state)
{
	(void)state;
	YEQ("[!!int 0x10, !!int '12', !!int '0o17', !!bool yes, !!bool ON, "
	    "!!null '', !!null foo, !!float .NaN]",
	    "[16,12,15,true,true,null,null,NaN]");
	YERR("x: !!bool maybe", "'maybe'");
	YEQ("a: !foo 1", "ERROR: could not determine a constructor for the "
	    "tag '!foo'\n  in \"<unicode string>\", line 1, column 4");
	YERR("x: !custom [1]", "could not determine a constructor for the tag "
	    "'!custom'");
	YEQ("!!map foo", "ERROR: expected a mapping node, but found scalar\n"
	    "  in \"<unicode string>\", line 1, column 1");
	YEQ("!!str [1]", "ERROR: expected a scalar node, but found sequence\n"
	    "  in \"<unicode string>\", line 1, column 1");
	YERR("x: !!binary aGk=", "tag:yaml.org,2002:binary");
	YERR("x: !!set {a, b}", "tag:yaml.org,2002:set");
	YEQ("a: =", "ERROR: could not determine a constructor for the tag "
	    "'tag:yaml.org,2002:value'\n  in \"<unicode string>\", line 1, "
	    "column 4");
	YEQ("a: <<", "ERROR: could not determine a constructor for the tag "
	    "'tag:yaml.org,2002:merge'\n  in \"<unicode string>\", line 1, "
	    "column 4");
}

static void
test_keys(void **state)
{
	(void)state;
	/* Non-string keys become their Python str(). */
	YEQ("1: a\n1.5: b\nnull: c\ntrue: d\n2024-01-01: e\n.inf: f\n"
	    "0x10: g\n=: h\n'<<': i\n",
	    "{\"1\":\"a\",\"1.5\":\"b\",\"None\":\"c\",\"True\":\"d\","
	    "\"2024-01-01\":\"e\",\"inf\":\"f\",\"16\":\"g\",\"=\":\"h\","
	    "\"<<\":\"i\"}");
	YEQ("[1, 2]: 3", "ERROR: while constructing a mapping\n"
	    "found unhashable key\n  in \"<unicode string>\", line 1, "
	    "column 1");
	YEQ("? [1]\n", "ERROR: while constructing a mapping\n"
	    "  in \"<unicode string>\", line 1, column 1\n"
	    "found unhashable key\n  in \"<unicode string>\", line 1, "
	    "column 3");
}

static void
test_duplicate_keys(void **state)
{
	(void)state;
	/* A Python dict: the later value, in the first key's place. */
	YEQ("a: 1\nb: 2\na: 3\n", "{\"a\":3,\"b\":2}");
	YEQ("a: 1\na: 2\n", "{\"a\":2}");
	YEQ("x: 1\ny: 2\nz: 3\nz: 4\nx: 5\n", "{\"x\":5,\"y\":2,\"z\":4}");
	YEQ("{b: 1, a: 2, b: [3]}", "{\"b\":[3],\"a\":2}");
}

static void
test_merge(void **state)
{
	(void)state;
	YEQ("a: &m {x: 1, y: 2}\nb:\n  <<: *m\n  x: 3\n  z: 4\n",
	    "{\"a\":{\"x\":1,\"y\":2},\"b\":{\"x\":3,\"y\":2,\"z\":4}}");
	/* A list merges in reverse order; own keys come last. */
	YEQ("b:\n  x: 0\n  <<: [{x: 1, q: 1}, {x: 2, r: 2}]\n",
	    "{\"b\":{\"x\":0,\"r\":2,\"q\":1}}");
	YEQ("<<: 1\n", "ERROR: while constructing a mapping\n"
	    "  in \"<unicode string>\", line 1, column 1\n"
	    "expected a mapping or list of mappings for merging, but found "
	    "scalar\n  in \"<unicode string>\", line 1, column 5");
	YERR("<<: [{a: 1}, 2]\n", "expected a mapping for merging, but found "
	    "scalar");
}

static void
test_aliases(void **state)
{
	(void)state;
	YEQ("a: &a [1, 2]\nb: *a\nc: [*a, *a]\n",
	    "{\"a\":[1,2],\"b\":[1,2],\"c\":[[1,2],[1,2]]}");
	YEQ("- &a x\n- *a\n- &b [*a]\n- *b\n", "[\"x\",\"x\",[\"x\"],[\"x\"]]");
	YEQ("a: *x\n", "ERROR: found undefined alias\n"
	    "  in \"<unicode string>\", line 1, column 4");
	YEQ("a: &x 1\nb: &x 2\nc: *x\n",
	    "ERROR: found duplicate anchor; first occurrence\n"
	    "  in \"<unicode string>\", line 1, column 4\n"
	    "second occurrence\n  in \"<unicode string>\", line 2, column 4");
	YERR("a: &a [*a]\n", "recursive alias");
}

static void
test_alias_bomb(void **state)
{
	char text[2048];
	size_t k;
	int i, j;
	clock_t t0;

	(void)state;
	/* Billion laughs: 9^9 strings from 81 aliases. */
	k = (size_t)sprintf(text, "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,"
	    "lol]\n");
	for (i = 1; i < 9; i++) {
		k += (size_t)sprintf(text + k, "%c: &%c [", 'a' + i, 'a' + i);
		for (j = 0; j < 9; j++)
			k += (size_t)sprintf(text + k, "%s*%c", j ? "," : "",
			    'a' + i - 1);
		k += (size_t)sprintf(text + k, "]\n");
	}
	t0 = clock();
	YERR(text, "expands to more than 4194304 nodes");
	/* Refused before expanding: no time spent copying. */
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
}

static void
test_alias_bounds(void **state)
{
	struct dbp_buf b;
	int i;

	(void)state;
	/* More alias dereferences than DBP_MAX_ALIASES. */
	dbp_buf_init(&b, 1 << 20);
	dbp_buf_adds(&b, "a: &a 1\nb: [");
	for (i = 0; i <= DBP_MAX_ALIASES; i++)
		dbp_buf_adds(&b, i ? ",*a" : "*a");
	dbp_buf_adds(&b, "]\n");
	YERR(b.ptr, "more than 1024 aliases");
	dbp_buf_release(&b);
	/* Few aliases, but a large scalar copied many times. */
	dbp_buf_init(&b, 8 << 20);
	dbp_buf_adds(&b, "a: &a \"");
	for (i = 0; i < 1000000; i++)
		dbp_buf_addc(&b, 'x');
	dbp_buf_adds(&b, "\"\nb: [");
	for (i = 0; i < 200; i++)
		dbp_buf_adds(&b, i ? ",*a" : "*a");
	dbp_buf_adds(&b, "]\n");
	YERR(b.ptr, "bytes of text");
	dbp_buf_release(&b);
	/* Aliases nesting deeper than DBP_MAX_DEPTH. */
	dbp_buf_init(&b, 1 << 20);
	dbp_buf_adds(&b, "a0: &a0 [1]\n");
	for (i = 1; i < 70; i++)
		dbp_buf_addf(&b, "a%d: &a%d [*a%d]\n", i, i, i - 1);
	YERR(b.ptr, "nests deeper than 64 levels");
	dbp_buf_release(&b);
}

static void
test_scalar_size(void **state)
{
	size_t n = (size_t)DBP_MAX_SCALAR + 1;
	char *text, *got;

	(void)state;
	text = malloc(n + 8);
	assert_non_null(text);
	memcpy(text, "a: ", 3);
	memset(text + 3, 'x', n);
	text[3 + n] = '\0';
	got = load(text, 3 + n);
	free(text);
	if (strstr(got, "ERROR: found a scalar longer than 16777216 bytes") !=
	    got)
		fail_msg("%.200s", got);
	free(got);
}

static void
test_depth(void **state)
{
	char text[256];
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		text[i] = '[';
		text[100 + i] = ']';
	}
	text[200] = '\0';
	YEQ(text, "ERROR: the document nests deeper than 64 levels\n"
	    "  in \"<unicode string>\", line 1, column 65");
	/* Exactly DBP_MAX_DEPTH levels is fine. */
	for (i = 0; i < DBP_MAX_DEPTH; i++) {
		text[i] = '[';
		text[DBP_MAX_DEPTH + i] = ']';
	}
	text[2 * DBP_MAX_DEPTH] = '\0';
	{
		char *got = load(text, strlen(text));

		assert_string_equal(got, text);
		free(got);
	}
}

static void
test_bad_bytes(void **state)
{
	char *got;

	(void)state;
	YEQ("a: \xff\xfe\n", "ERROR: unacceptable character #x00ff: invalid "
	    "leading UTF-8 octet\n  in \"<unicode string>\", position 3");
	YERR("a: \xc3", "UTF-8");
	YERR("a: \xed\xa0\x80\n", "invalid Unicode character");
	got = load("a: 1\0\n", 6);
	assert_string_equal(got, "ERROR: unacceptable character #x0000: "
	    "control characters are not allowed\n"
	    "  in \"<unicode string>\", position 4");
	free(got);
	/* An escaped NUL cannot live in a cJSON string. */
	YERR("x: \"\\0\"\n", "NUL character");
	/* A UTF-8 byte order mark is allowed. */
	YEQ("\xef\xbb\xbf" "a: 1\n", "{\"a\":1}");
}

static void
test_documents(void **state)
{
	(void)state;
	YEQ("", "null");
	YEQ("# only a comment\n", "null");
	YEQ("---\n", "null");
	YEQ("--- 5\n...\n", "5");
	YEQ("a: 1\n---\nb: 2\n",
	    "ERROR: expected a single document in the stream\n"
	    "  in \"<unicode string>\", line 1, column 1\n"
	    "but found another document\n"
	    "  in \"<unicode string>\", line 2, column 1");
	/* The second document is refused before it is parsed. */
	YERR("x: 1\n---\n[\n", "expected a single document in the stream");
	YEQ("---\n---\n", "ERROR: expected a single document in the stream\n"
	    "but found another document\n"
	    "  in \"<unicode string>\", line 2, column 1");
	YEQ("{}", "{}");
	YEQ("[]", "[]");
	YEQ("- - - - x\n", "[[[[\"x\"]]]]");
}

static void
test_parse_errors(void **state)
{
	(void)state;
	YEQ("a: 1\n b: 2\n", "ERROR: mapping values are not allowed in this "
	    "context\n  in \"<unicode string>\", line 2, column 3");
	YEQ("a: [1, 2\n", "ERROR: while parsing a flow sequence\n"
	    "  in \"<unicode string>\", line 1, column 4\n"
	    "did not find expected ',' or ']'\n"
	    "  in \"<unicode string>\", line 2, column 1");
	YEQ("a: 'x\n", "ERROR: while scanning a quoted scalar\n"
	    "  in \"<unicode string>\", line 1, column 4\n"
	    "found unexpected end of stream\n"
	    "  in \"<unicode string>\", line 2, column 1");
	YERR("a:\n  - 1\n  - 2\n b: 3\n", "line 4");
	YERR("- a\nb: c\n", "while parsing a block collection");
}

/* Every YAML file of the upstream example prints, when they are here. */
static int examples_seen, examples_failed;

static int
example_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	struct dbp_diag d;
	size_t len, n = strlen(path);
	char *buf;
	cJSON *v;

	(void)sb;
	(void)ftw;
	if (flag != FTW_F || n < 5 || strcmp(path + n - 5, ".yaml") != 0)
		return 0;
	examples_seen++;
	if (dbp_read_file(path, DBP_MAX_FILE_BYTES, &buf, &len, NULL,
	    &d) == -1) {
		print_error("%s\n", d.msg);
		examples_failed++;
		return 0;
	}
	v = dbp_ydoc_parse(buf, len, &d);
	if (v == NULL) {
		print_error("%s: %s\n", path, d.msg);
		examples_failed++;
	}
	cJSON_Delete(v);
	free(buf);
	return 0;
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
	assert_int_equal(nftw(dir, example_one, 16, FTW_PHYS), 0);
	assert_true(examples_seen > 0);
	assert_int_equal(examples_failed, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_int_limit),
		cmocka_unit_test(test_float),
		cmocka_unit_test(test_number_nodes),
		cmocka_unit_test(test_small_int_values),
		cmocka_unit_test(test_num_text_fallback),
		cmocka_unit_test(test_float_repr),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_explicit_tags),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_alias_bomb),
		cmocka_unit_test(test_alias_bounds),
		cmocka_unit_test(test_scalar_size),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

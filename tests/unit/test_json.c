/*
 * test_json.c - dbp_json_dump, dbp_pyrepr, dbp_pyrepr_str, dbp_pystr,
 * dbp_json_width and dbp_utf8_chars against what Python prints; the
 * UTF-8 encoder and decoder the library shares.
 *
 * The expected texts are Python 3's json.dumps(v, indent=N) (ensure_ascii),
 * repr(v) and str(v) for the same values, written down as the
 * specification.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dbprint.h"

/* A tree from JSON text (cJSON's parser), numbers without spellings. */
static cJSON *
tree(const char *json)
{
	cJSON *v = cJSON_Parse(json);

	assert_non_null(v);
	return v;
}

/* A tree from YAML text: numbers carry their Python spellings. */
static cJSON *
ytree(const char *yaml)
{
	struct dbp_diag d;
	cJSON *v = dbp_ydoc_parse(yaml, strlen(yaml), &d);

	if (v == NULL)
		fail_msg("%s", d.msg);
	return v;
}

#define DUMP_EQ(v, indent, want) do {					\
	char *got_ = dbp_json_dump((v), (indent));			\
	assert_non_null(got_);						\
	assert_string_equal(got_, (want));				\
	free(got_);							\
} while (0)

#define REPR_EQ(v, want) do {						\
	char *got_ = dbp_pyrepr(v);					\
	assert_non_null(got_);						\
	assert_string_equal(got_, (want));				\
	free(got_);							\
} while (0)

#define SREPR_EQ(s, want) do {						\
	char *got_ = dbp_pyrepr_str(s);					\
	assert_non_null(got_);						\
	assert_string_equal(got_, (want));				\
	free(got_);							\
} while (0)

#define STR_EQ(v, want) do {						\
	char *got_ = dbp_pystr(v);					\
	assert_non_null(got_);						\
	assert_string_equal(got_, (want));				\
	free(got_);							\
} while (0)

static const char *const sample =
    "{\"name\":\"t\",\"cols\":[1,2.5,null,true,false,\"x\"],\"empty\":{},"
    "\"e2\":[],\"nested\":{\"a\":{\"b\":[{}]}}}";

static void
test_dump_indent(void **state)
{
	cJSON *v = tree(sample);

	(void)state;
	DUMP_EQ(v, 2, "{\n  \"name\": \"t\",\n  \"cols\": [\n    1,\n"
	    "    2.5,\n    null,\n    true,\n    false,\n    \"x\"\n  ],\n"
	    "  \"empty\": {},\n  \"e2\": [],\n  \"nested\": {\n    \"a\": {\n"
	    "      \"b\": [\n        {}\n      ]\n    }\n  }\n}");
	DUMP_EQ(v, 4, "{\n    \"name\": \"t\",\n    \"cols\": [\n        1,\n"
	    "        2.5,\n        null,\n        true,\n        false,\n"
	    "        \"x\"\n    ],\n    \"empty\": {},\n    \"e2\": [],\n"
	    "    \"nested\": {\n        \"a\": {\n            \"b\": [\n"
	    "                {}\n            ]\n        }\n    }\n}");
	cJSON_Delete(v);
	v = tree("[[]]");
	DUMP_EQ(v, 2, "[\n  []\n]");
	cJSON_Delete(v);
	v = tree("{\"k\":\"\\u00e9\"}");
	DUMP_EQ(v, 1, "{\n \"k\": \"\\u00e9\"\n}");
	cJSON_Delete(v);
}

static void
test_dump_one_line(void **state)
{
	cJSON *v = tree(sample);

	(void)state;
	DUMP_EQ(v, DBP_JSON_PYDEFAULT, "{\"name\": \"t\", \"cols\": [1, 2.5, "
	    "null, true, false, \"x\"], \"empty\": {}, \"e2\": [], "
	    "\"nested\": {\"a\": {\"b\": [{}]}}}");
	DUMP_EQ(v, DBP_JSON_COMPACT, "{\"name\":\"t\",\"cols\":[1,2.5,null,"
	    "true,false,\"x\"],\"empty\":{},\"e2\":[],\"nested\":{\"a\":"
	    "{\"b\":[{}]}}}");
	cJSON_Delete(v);
	/* Scalars at the top. */
	v = tree("null");
	DUMP_EQ(v, 2, "null");
	cJSON_Delete(v);
	v = tree("\"s\"");
	DUMP_EQ(v, 2, "\"s\"");
	cJSON_Delete(v);
	v = tree("{}");
	DUMP_EQ(v, 2, "{}");
	cJSON_Delete(v);
}

static void
test_dump_strings(void **state)
{
	cJSON *v;

	(void)state;
	/* ensure_ascii: every non-ASCII code point escaped, surrogate pairs
	 * above U+FFFF, the named escapes, other controls and DEL as \u. */
	v = cJSON_CreateString("\xc3\xa9\xf0\x9f\x98\x80\xe2\x80\xa8\x01\x7f"
	    "\"\\\n\r\t\b\f/");
	DUMP_EQ(v, 2, "\"\\u00e9\\ud83d\\ude00\\u2028\\u0001\\u007f\\\"\\\\"
	    "\\n\\r\\t\\b\\f/\"");
	cJSON_Delete(v);
	v = cJSON_CreateString("\x1f\xc2\x80");
	DUMP_EQ(v, 0, "\"\\u001f\\u0080\"");
	cJSON_Delete(v);
	/* Invalid UTF-8 never crashes: each bad byte is U+FFFD. */
	v = cJSON_CreateString("a\xff" "b\xc3" "c\xed\xa0\x80" "d\xe2\x82");
	DUMP_EQ(v, 0, "\"a\\ufffdb\\ufffdc\\ufffd\\ufffd\\ufffdd\\ufffd"
	    "\\ufffd\"");
	cJSON_Delete(v);
	/* Keys are escaped the same way. */
	v = tree("{\"\\u00e9\\n\":1}");
	DUMP_EQ(v, DBP_JSON_PYDEFAULT, "{\"\\u00e9\\n\": 1}");
	cJSON_Delete(v);
}

static void
test_dump_numbers(void **state)
{
	cJSON *v;

	(void)state;
	/* Spelled numbers from YAML keep their spelling. */
	v = ytree("[0.1, 1.0, 0.075, 0.00001, 100000000000000000000, "
	    "10000000000000000.0, .inf, -.inf, .nan, 0x1F, 1_000]");
	DUMP_EQ(v, DBP_JSON_PYDEFAULT, "[0.1, 1.0, 0.075, 1e-05, "
	    "100000000000000000000, 1e+16, Infinity, -Infinity, NaN, 31, "
	    "1000]");
	cJSON_Delete(v);
	/* Numbers built in C: integral within 2^53 as integers, else the
	 * float repr. */
	v = tree("[7, -3, 7.5, 1e20, 0.00001, 9007199254740992, 0]");
	DUMP_EQ(v, DBP_JSON_COMPACT, "[7,-3,7.5,1e+20,1e-05,9007199254740992,"
	    "0]");
	cJSON_Delete(v);
}

static void
test_pyrepr(void **state)
{
	cJSON *v;

	(void)state;
	v = ytree("{a: [1, b, null], c: {d: false}, e: .inf, f: 2.50, g: yes}");
	REPR_EQ(v, "{'a': [1, 'b', None], 'c': {'d': False}, 'e': inf, "
	    "'f': 2.5, 'g': True}");
	cJSON_Delete(v);
	v = tree("[\"it's\", \"both ' and \\\"\", \"\\\"\", []]");
	REPR_EQ(v, "[\"it's\", 'both \\' and \"', '\"', []]");
	cJSON_Delete(v);
	v = tree("{}");
	REPR_EQ(v, "{}");
	cJSON_Delete(v);
	v = ytree("[-0.00001, 2.0, 1e+16, 0.1]");
	REPR_EQ(v, "[-1e-05, 2.0, '1e+16', 0.1]");
	cJSON_Delete(v);
}

static void
test_pyrepr_str(void **state)
{
	(void)state;
	SREPR_EQ("abc", "'abc'");
	SREPR_EQ("", "''");
	SREPR_EQ("it's", "\"it's\"");
	SREPR_EQ("\"", "'\"'");
	SREPR_EQ("'\"", "'\\'\"'");
	SREPR_EQ("tab\t\n\r\\", "'tab\\t\\n\\r\\\\'");
	/* Controls, DEL and the C1 range as \x; non-printable BMP as \u,
	 * above it as \U; printable non-ASCII kept as it is. */
	SREPR_EQ("\x01\x1f\x7f\xc2\x80\xc2\x9f\xc2\xa0\xc2\xad",
	    "'\\x01\\x1f\\x7f\\x80\\x9f\\xa0\\xad'");
	SREPR_EQ("\xcd\xb8\xe2\x80\x8b\xe2\x80\xa8\xe3\x80\x80\xee\x80\x80",
	    "'\\u0378\\u200b\\u2028\\u3000\\ue000'");
	SREPR_EQ("\xf4\x8f\xbf\xbf\xf3\xa0\x80\x81",
	    "'\\U0010ffff\\U000e0001'");
	SREPR_EQ("\xf0\x9f\x98\x80\xc3\xa9\xe4\xb8\xad",
	    "'\xf0\x9f\x98\x80\xc3\xa9\xe4\xb8\xad'");
	/* Invalid UTF-8 reads as U+FFFD, which is printable. */
	SREPR_EQ("a\xff", "'a\xef\xbf\xbd'");
}

static void
test_pystr(void **state)
{
	cJSON *v;

	(void)state;
	v = ytree("[text, 7, 0.5, .inf, -.inf, .nan, true, false, null, [x], "
	    "{k: 1}, 100000000000000000000]");
	STR_EQ(cJSON_GetArrayItem(v, 0), "text");
	STR_EQ(cJSON_GetArrayItem(v, 1), "7");
	STR_EQ(cJSON_GetArrayItem(v, 2), "0.5");
	STR_EQ(cJSON_GetArrayItem(v, 3), "inf");
	STR_EQ(cJSON_GetArrayItem(v, 4), "-inf");
	STR_EQ(cJSON_GetArrayItem(v, 5), "nan");
	STR_EQ(cJSON_GetArrayItem(v, 6), "True");
	STR_EQ(cJSON_GetArrayItem(v, 7), "False");
	STR_EQ(cJSON_GetArrayItem(v, 8), "None");
	STR_EQ(cJSON_GetArrayItem(v, 9), "['x']");
	STR_EQ(cJSON_GetArrayItem(v, 10), "{'k': 1}");
	STR_EQ(cJSON_GetArrayItem(v, 11), "100000000000000000000");
	cJSON_Delete(v);
}

static void
test_widths(void **state)
{
	char *t;
	cJSON *v;

	(void)state;
	assert_int_equal(dbp_utf8_chars("", 0), 0);
	assert_int_equal(dbp_utf8_chars("abc", 3), 3);
	assert_int_equal(dbp_utf8_chars("a\xc3\xa9\xf0\x9f\x98\x80", 7), 3);
	/* Each byte outside valid UTF-8 counts one. */
	assert_int_equal(dbp_utf8_chars("\xff\xfe", 2), 2);
	assert_int_equal(dbp_utf8_chars("\xe2\x82", 2), 2);
	assert_int_equal(dbp_utf8_chars("\xc3\xa9", 1), 1);
	/* json.dumps(s) lengths. */
	assert_int_equal(dbp_json_width(""), 2);
	assert_int_equal(dbp_json_width("abc"), 5);
	assert_int_equal(dbp_json_width("\xc3\xa9"), 8);
	assert_int_equal(dbp_json_width("\xf0\x9f\x98\x80"), 14);
	assert_int_equal(dbp_json_width("\"\n\x01"), 12);
	/* And it agrees with the dump. */
	v = cJSON_CreateString("x\xc3\xa9\xf0\x9f\x98\x80\t\x02y");
	t = dbp_json_dump(v, 0);
	assert_int_equal(dbp_json_width(v->valuestring), strlen(t));
	assert_int_equal(dbp_utf8_chars(t, strlen(t)), strlen(t));
	free(t);
	cJSON_Delete(v);
}

/* dbp_utf8_encode and dbp_buf_put_utf8 at each length's bounds. */
static void
test_utf8_encode(void **state)
{
	static const struct {
		uint32_t	 cp;
		const char	*utf8;
	} t[] = {
		{ 0x0, "\0" }, { 0x7f, "\x7f" },
		{ 0x80, "\xc2\x80" }, { 0x7ff, "\xdf\xbf" },
		{ 0x800, "\xe0\xa0\x80" }, { 0xd800, "\xed\xa0\x80" },
		{ 0xfffd, "\xef\xbf\xbd" }, { 0xffff, "\xef\xbf\xbf" },
		{ 0x10000, "\xf0\x90\x80\x80" },
		{ 0x1f600, "\xf0\x9f\x98\x80" },
		{ 0x10ffff, "\xf4\x8f\xbf\xbf" },
	};
	struct dbp_buf b;
	char o[4];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = t[i].cp == 0 ? 1 : strlen(t[i].utf8);
		assert_int_equal(dbp_utf8_encode(t[i].cp, o), n);
		assert_memory_equal(o, t[i].utf8, n);
		dbp_buf_init(&b, 16);
		assert_int_equal(dbp_buf_put_utf8(&b, t[i].cp), 0);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.ptr, t[i].utf8, n);
		dbp_buf_release(&b);
	}
	/* Past the bound: -1, nothing added. */
	dbp_buf_init(&b, 3);
	assert_int_equal(dbp_buf_put_utf8(&b, 0x1f600), -1);
	assert_int_equal(b.len, 0);
	dbp_buf_release(&b);
}

/* dbp_utf8_decode: the sequences it takes, and each way one is refused. */
static void
test_utf8_decode(void **state)
{
	static const struct {
		const char	*in;
		size_t		 n;	/* bytes offered */
		size_t		 len;	/* 0: refused */
		uint32_t	 cp;
	} t[] = {
		{ "\0", 1, 1, 0 }, { "A", 1, 1, 'A' }, { "\x7f", 1, 1, 0x7f },
		{ "\xc2\x80", 2, 2, 0x80 }, { "\xdf\xbf", 2, 2, 0x7ff },
		{ "\xe0\xa0\x80", 3, 3, 0x800 },
		{ "\xed\x9f\xbf", 3, 3, 0xd7ff },
		{ "\xee\x80\x80", 3, 3, 0xe000 },
		{ "\xef\xbf\xbf", 3, 3, 0xffff },
		{ "\xf0\x90\x80\x80", 4, 4, 0x10000 },
		{ "\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff },
		/* More bytes than the sequence: only its own are read. */
		{ "\xc3\xa9z", 3, 2, 0xe9 },
		/* A stray continuation byte; leads that start nothing. */
		{ "\x80", 1, 0, 0 }, { "\xbf", 1, 0, 0 },
		{ "\xc0\x80", 2, 0, 0 }, { "\xc1\xbf", 2, 0, 0 },
		{ "\xf5\x80\x80\x80", 4, 0, 0 }, { "\xff", 1, 0, 0 },
		/* Overlong forms. */
		{ "\xe0\x9f\xbf", 3, 0, 0 }, { "\xf0\x8f\xbf\xbf", 4, 0, 0 },
		/* Surrogates, and past U+10FFFF. */
		{ "\xed\xa0\x80", 3, 0, 0 }, { "\xed\xbf\xbf", 3, 0, 0 },
		{ "\xf4\x90\x80\x80", 4, 0, 0 },
		/* Cut short by n, or by a byte that does not continue it. */
		{ "\xc3\xa9", 1, 0, 0 }, { "\xe2\x82\xac", 2, 0, 0 },
		{ "\xf0\x9f\x98\x80", 3, 0, 0 }, { "\xe2\x82z", 3, 0, 0 },
		{ "\xf0\x9f\x98\xc0", 4, 0, 0 },
	};
	size_t i;
	uint32_t cp;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cp = 0xdeadbeef;
		assert_int_equal(dbp_utf8_decode((const unsigned char *)t[i].in,
		    t[i].n, &cp), t[i].len);
		assert_int_equal(cp, t[i].len == 0 ? 0xdeadbeef : t[i].cp);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_indent),
		cmocka_unit_test(test_dump_one_line),
		cmocka_unit_test(test_dump_strings),
		cmocka_unit_test(test_dump_numbers),
		cmocka_unit_test(test_pyrepr),
		cmocka_unit_test(test_pyrepr_str),
		cmocka_unit_test(test_pystr),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_utf8_encode),
		cmocka_unit_test(test_utf8_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_answer.c - unit tests of the helpers behind list_tables,
 * search_columns and resolve_value (server/tools/textmatch.c, freshness.c):
 * the normalization key, casefold, word-boundary containment, trigram
 * Jaccard, Python float rounding and repr, ISO timestamps and the
 * freshness threshold and verdict.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/answer.h"

static void
test_fold(void **state)
{
	char *s;

	(void)state;
	s = tm_fold("  ACTIVE ");
	assert_string_equal(s, "active");
	free(s);
	s = tm_fold("Credit-Card");
	assert_string_equal(s, "credit-card");
	free(s);
	s = tm_fold("\tactive");	/* only ASCII spaces are trimmed */
	assert_string_equal(s, "\tactive");
	free(s);
	s = tm_fold("Stra\xc3\x9f" "e");	/* lower() keeps the sharp s */
	assert_string_equal(s, "stra\xc3\x9f" "e");
	free(s);
}

static void
test_casefold(void **state)
{
	char *s;

	(void)state;
	s = tm_casefold("Stra\xc3\x9f" "E");
	assert_string_equal(s, "strasse");
	free(s);
	s = tm_casefold("EMAIL \xc3\x89t\xc3\xa9");	/* É -> é */
	assert_string_equal(s, "email \xc3\xa9t\xc3\xa9");
	free(s);
	s = tm_casefold("\xef\xac\x81le");	/* U+FB01 ligature */
	assert_string_equal(s, "file");
	free(s);
	s = tm_casefold("bad \xff byte");
	assert_string_equal(s, "bad \xff byte");
	free(s);
}

static void
test_word_in(void **state)
{
	(void)state;
	assert_int_equal(tm_word_in("active", "the active ones"), 1);
	assert_int_equal(tm_word_in("active", "inactive members"), 0);
	assert_int_equal(tm_word_in("active", "active"), 1);
	assert_int_equal(tm_word_in("active", "active_flag"), 0);
	assert_int_equal(tm_word_in("refund", "a refund, then"), 1);
	/* a later occurrence on boundaries still counts */
	assert_int_equal(tm_word_in("on", "ion on"), 1);
	/* non-ASCII letters are word characters */
	assert_int_equal(tm_word_in("caf", "caf\xc3\xa9"), 0);
	assert_int_equal(tm_word_in("", "x"), 0);
}

static double
jac(const char *a, const char *b)
{
	struct tm_trigrams x, y;
	double j;

	assert_int_equal(tm_trigrams(a, &x), 0);
	assert_int_equal(tm_trigrams(b, &y), 0);
	j = tm_jaccard(&x, &y);
	tm_trigrams_free(&x);
	tm_trigrams_free(&y);
	return j;
}

static void
test_trigrams(void **state)
{
	struct tm_trigrams t;
	char txt[13];

	(void)state;
	/* research/upstream-mcp.md 3.3 worked examples */
	assert_true(fabs(jac("specie", "species") - 6.0 / 11.0) < 1e-12);
	assert_true(fabs(jac("rank-07", "rank-08") - 0.5) < 1e-12);
	assert_true(jac("abc", "abc") == 1.0);
	/* the empty string still has a trigram: three spaces */
	assert_int_equal(tm_trigrams("", &t), 0);
	assert_int_equal(t.n, 1);
	tm_trigram_text(t.v[0], txt);
	assert_string_equal(txt, "   ");
	tm_trigrams_free(&t);
	assert_int_equal(tm_trigrams("\xc3\xa9t\xc3\xa9", &t), 0);
	assert_int_equal(t.n, 5);	/* "  é", " ét", "été", "té ", "é  " */
	tm_trigrams_free(&t);
}

static void
test_pyfloat(void **state)
{
	char b[48];

	(void)state;
	tm_pyfloat(0.04, b, sizeof(b));
	assert_string_equal(b, "0.04");
	tm_pyfloat(10.0, b, sizeof(b));
	assert_string_equal(b, "10.0");
	tm_pyfloat(1e16, b, sizeof(b));
	assert_string_equal(b, "1e+16");
	tm_pyfloat(1e15, b, sizeof(b));
	assert_string_equal(b, "1000000000000000.0");
	tm_pyfloat(0.0001, b, sizeof(b));
	assert_string_equal(b, "0.0001");
	tm_pyfloat(0.00001, b, sizeof(b));
	assert_string_equal(b, "1e-05");
	tm_pyfloat(-2.5, b, sizeof(b));
	assert_string_equal(b, "-2.5");
	tm_pyfloat(0.1 + 0.2, b, sizeof(b));
	assert_string_equal(b, "0.30000000000000004");
	tm_pyfloat(tm_round(6.0 / 11.0, 4), b, sizeof(b));
	assert_string_equal(b, "0.5455");
	/* round half even on the exact binary value: 2.675 is below */
	tm_pyfloat(tm_round(2.675, 2), b, sizeof(b));
	assert_string_equal(b, "2.67");
	tm_pyfloat(tm_round(0.125, 2), b, sizeof(b));
	assert_string_equal(b, "0.12");
}

static void
test_iso(void **state)
{
	double t;

	(void)state;
	assert_int_equal(fresh_iso_parse("1970-01-02T00:00:00Z", &t), 0);
	assert_true(t == 86400.0);
	assert_int_equal(fresh_iso_parse("2026-03-09T14:27:36Z", &t), 0);
	assert_true(t == 1773066456.0);
	assert_int_equal(fresh_iso_parse("2026-03-09 16:27:36+02:00", &t), 0);
	assert_true(t == 1773066456.0);
	assert_int_equal(fresh_iso_parse("2026-03-09", &t), 0);
	assert_true(t == 1773014400.0);
	assert_int_equal(fresh_iso_parse("20260309T142736", &t), 0);
	assert_true(t == 1773066456.0);
	assert_int_equal(fresh_iso_parse("2026-03-09T14:27:36.5Z", &t), 0);
	assert_true(t == 1773066456.5);
	assert_int_equal(fresh_iso_parse("not a timestamp", &t), -1);
	assert_int_equal(fresh_iso_parse("2026-02-30", &t), -1);
	assert_int_equal(fresh_iso_parse("2026-03-09T25:00", &t), -1);
	assert_int_equal(fresh_iso_parse("2026-03-09T", &t), -1);
}

/* A connection with max_age_days 7 and rules parsed from JSON. */
static void
conn_init(struct dbp_conn *cn, const char *rules)
{
	memset(cn, 0, sizeof(*cn));
	cn->name = (char *)"prod";
	cn->max_age_days = 7;
	cn->rules = cJSON_Parse(rules);
	assert_non_null(cn->rules);
}

static void
test_threshold(void **state)
{
	struct dbp_conn cn;
	struct fresh_threshold th;

	(void)state;
	conn_init(&cn, "[{\"include\":[\"a.*\"],\"max_age_days\":3,"
	    "\"_label\":\"defaults rules[0]\"},"
	    "{\"include\":[\"a.big\"],\"min_rows\":10,\"max_age_days\":1,"
	    "\"_label\":\"connection 'prod' rules[0]\"},"
	    "{\"include\":[\"b.*\"],\"exclude\":[\"b.x\"],\"filter\":\"1=1\","
	    "\"_label\":\"connection 'prod' rules[1]\"},"
	    "{\"include\":[\"b.*\"],\"sample\":0.1,"
	    "\"_label\":\"connection 'prod' rules[2]\"}]");
	/* recorded values win */
	assert_int_equal(fresh_threshold(&cn, "a.t", "table", 1, "2", &th),
	    0);
	assert_false(th.refused);
	assert_int_equal(th.days, 2);
	assert_int_equal(fresh_threshold(&cn, "a.t", "table", 1, "3.0", &th),
	    0);
	assert_int_equal(th.days, 3);
	assert_int_equal(fresh_threshold(&cn, "a.t", "table", 1, "-1", &th),
	    0);
	assert_true(th.refused);
	assert_string_equal(th.error, "a.t: max_age_days is -1, which no "
	    "print can ever satisfy: every table re-extracts on every run and "
	    "check reports every one of them stale. Use 0 to ask for that "
	    "deliberately, or a positive number of days.");
	free(th.error);
	assert_int_equal(fresh_threshold(&cn, "a.t", "table", 1, "2.5", &th),
	    0);
	assert_string_equal(th.error, "a.t: max_age_days is 2.5, which is "
	    "not a whole number of days.");
	free(th.error);
	/* the cascade: rule 0 applies, the min_rows rule is skipped */
	assert_int_equal(fresh_threshold(&cn, "a.t", "table", 1, NULL, &th),
	    0);
	assert_int_equal(th.days, 3);
	assert_false(th.gated);
	assert_int_equal(fresh_threshold(&cn, "a.big", "table", 1, NULL, &th),
	    0);
	assert_int_equal(th.days, 3);
	assert_true(th.gated);
	/* a view, or no row count: not gated */
	assert_int_equal(fresh_threshold(&cn, "a.big", "view", 1, NULL, &th),
	    0);
	assert_false(th.gated);
	assert_int_equal(fresh_threshold(&cn, "a.big", "table", 0, NULL, &th),
	    0);
	assert_false(th.gated);
	/* a string is no number: the cascade decides */
	assert_int_equal(fresh_threshold(&cn, "z.t", NULL, 1, "\"5\"", &th),
	    0);
	assert_int_equal(th.days, 7);
	/* filter and sample from two rules */
	assert_int_equal(fresh_threshold(&cn, "b.t", "table", 1, NULL, &th),
	    0);
	assert_true(th.refused);
	assert_string_equal(th.error, "connection 'prod': table 'b.t' "
	    "resolves to both a filter (from connection 'prod' rules[1]) and a "
	    "sample (from connection 'prod' rules[2]). A table is narrowed by "
	    "a predicate or by a fraction, never both - drop one of the two "
	    "keys, or narrow the rule that sets it so it stops matching this "
	    "table.");
	free(th.error);
	assert_int_equal(fresh_threshold(&cn, "b.x", "table", 1, NULL, &th),
	    0);
	assert_false(th.refused);
	cJSON_Delete(cn.rules);
}

static void
test_verdict(void **state)
{
	struct fresh_threshold th;
	cJSON *o;
	char *s;
	double now = 1773066456.0 + 86400.0 * 10;

	(void)state;
	memset(&th, 0, sizeof(th));
	th.days = 7;
	o = cJSON_CreateObject();
	assert_int_equal(fresh_verdict(o, "\"2026-03-09T14:27:36Z\"", &th,
	    now), 0);
	s = dbp_json_dump(o, DBP_JSON_COMPACT);
	assert_string_equal(s, "{\"freshness\":\"stale\",\"age_days\":10.0,"
	    "\"max_age_days\":7}");
	free(s);
	cJSON_Delete(o);
	th.days = 11;
	o = cJSON_CreateObject();
	assert_int_equal(fresh_verdict(o, "\"2026-03-09T14:27:36Z\"", &th,
	    now - 3600), 0);
	s = dbp_json_dump(o, DBP_JSON_COMPACT);
	assert_string_equal(s, "{\"freshness\":\"live\",\"age_days\":9.96,"
	    "\"max_age_days\":11}");
	free(s);
	cJSON_Delete(o);
	o = cJSON_CreateObject();
	assert_int_equal(fresh_verdict(o, "\"not a timestamp\"", &th, now), 0);
	assert_int_equal(fresh_verdict(o, NULL, &th, now), 0);
	s = dbp_json_dump(o, DBP_JSON_COMPACT);
	assert_non_null(strstr(s, "\"freshness\":\"dormant\",\"age_days\":"
	    "null"));
	free(s);
	cJSON_Delete(o);
	th.refused = 1;
	th.error = (char *)"nope";
	o = cJSON_CreateObject();
	assert_int_equal(fresh_verdict(o, "\"2026-03-09T14:27:36Z\"", &th,
	    now), 0);
	s = dbp_json_dump(o, DBP_JSON_COMPACT);
	assert_string_equal(s, "{\"threshold_error\":\"nope\"}");
	free(s);
	cJSON_Delete(o);
	s = fresh_warning("prod", (const char *[]){ "a.b", "a.c" }, 2);
	assert_string_equal(s, "prod: no row count is available without a "
	    "database, so rules carrying `min_rows` did not apply to a.b, a.c. "
	    "Their thresholds come from the rules matching by name alone, or "
	    "from the connection.");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_casefold),
		cmocka_unit_test(test_word_in),
		cmocka_unit_test(test_trigrams),
		cmocka_unit_test(test_pyfloat),
		cmocka_unit_test(test_iso),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

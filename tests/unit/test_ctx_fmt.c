/*
 * test_ctx_fmt.c - how get_table_context spells what it prints
 * (server/context/ctx_fmt.c, spec 4.1): percentages that never round a partial
 * share onto 0% or 100%, numbers positionally, values as literals that
 * read back as themselves, Python float repr, rates rounded as null_rate
 * is, part keys of path-valued endpoints, and the legend's term order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "context/ctx.h"

static void
pct_eq(double s, const char *want)
{
	char out[64];

	ctx_pct(s, out, sizeof(out));
	assert_string_equal(out, want);
}

static void
test_pct(void **state)
{
	(void)state;
	pct_eq(0, "0%");
	pct_eq(1, "100%");
	pct_eq(0.4, "40%");
	pct_eq(0.125, "12.5%");
	pct_eq(0.5, "50%");
	pct_eq(0.004, "0.4%");
	/* one decimal, the binary value rounded as Python's format does */
	pct_eq(0.0025, "0.2%");
	pct_eq(2.0 / 3.0, "66.7%");
	/* strictly between 0 and 1: never 0% or 100% */
	pct_eq(0.0000004, "0.00004%");
	pct_eq(0.00001, "0.001%");
	pct_eq(0.99999, "99.999%");
	pct_eq(0.9999999, "99.99999%");
}

static void
pos_eq(const char *text, const char *want)
{
	struct dbp_buf b;
	char *got;

	dbp_buf_init(&b, 1024);
	assert_int_equal(ctx_num_pos(&b, text), 0);
	got = dbp_buf_take(&b);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void
test_num_pos(void **state)
{
	(void)state;
	pos_eq("12", "12");
	pos_eq("0.5", "0.5");
	pos_eq("1e-05", "0.00001");
	pos_eq("1.5e-05", "0.000015");
	pos_eq("-2.5e-07", "-0.00000025");
	pos_eq("1e+16", "10000000000000000");
	pos_eq("1.234e+17", "123400000000000000");
	pos_eq("2.5E3", "2500");
	pos_eq("Infinity", "Infinity");
	pos_eq("NaN", "NaN");
}

static cJSON *
ytree(const char *yaml)
{
	struct dbp_diag d;
	cJSON *v = dbp_ydoc_parse(yaml, strlen(yaml), &d);

	if (v == NULL)
		fail_msg("%s", d.msg);
	return v;
}

static void
lit_eq(const char *yaml, const char *want)
{
	struct dbp_buf b;
	cJSON *v = ytree(yaml);
	char *got;

	dbp_buf_init(&b, 4096);
	assert_int_equal(ctx_literal(&b, v), 0);
	got = dbp_buf_take(&b);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	cJSON_Delete(v);
}

static void
test_literal(void **state)
{
	(void)state;
	lit_eq("open", "'open'");
	lit_eq("\"it's\"", "'it''s'");
	lit_eq("'NULL'", "'NULL'");
	lit_eq("~", "NULL");
	lit_eq("true", "true");
	lit_eq("false", "false");
	lit_eq("42", "42");
	/* a float reads back as Python has it: 0.10 loads as 0.1 */
	lit_eq("0.10", "0.1");
	lit_eq("0.00001", "0.00001");
	lit_eq("'2099-12-31'", "'2099-12-31'");
	/* line breaks, controls and invisible characters: YAML escapes */
	lit_eq("\"a\\nb\"", "\"a\\nb\"");
	lit_eq("\"tab\\there\"", "\"tab\\there\"");
	lit_eq("\"q\\\"\\\\\\r\"", "\"q\\\"\\\\\\r\"");
	lit_eq("\"zero\\u200bwidth\"", "\"zero\\u200bwidth\"");
	lit_eq("\"nb\\u00a0sp\"", "\"nb\\_sp\"");
	lit_eq("\"bell\\a\"", "\"bell\\a\"");
	/* visible non-ASCII stays as it is */
	lit_eq("\"caf\\u00e9\"", "'caf\xc3\xa9'");
}

static void
float_eq(double x, const char *want)
{
	char out[64];

	ctx_pyfloat(x, out, sizeof(out));
	assert_string_equal(out, want);
}

static void
test_pyfloat(void **state)
{
	(void)state;
	float_eq(0.5, "0.5");
	float_eq(1, "1.0");
	float_eq(0.1, "0.1");
	float_eq(1e-05, "1e-05");
	float_eq(1.5e-05, "1.5e-05");
	float_eq(0.0001, "0.0001");
	float_eq(123456789.0, "123456789.0");
	float_eq(1e16, "1e+16");
	float_eq(0.968, "0.968");
	float_eq(2.0 / 3.0, "0.6666666666666666");
	float_eq(0, "0.0");
}

static void
test_round_rate(void **state)
{
	(void)state;
	assert_true(ctx_round_rate(0.0323999) == 0.0324);
	/* never onto 0 or 1 unless exactly so */
	assert_true(ctx_round_rate(0.0000001) == 0.000001);
	assert_true(ctx_round_rate(0.9999999) == 0.999999);
	assert_true(ctx_round_rate(0) == 0);
	assert_true(ctx_round_rate(1) == 1);
}

static void
key_eq(const char *json, const char *want)
{
	cJSON *p = cJSON_Parse(json);
	char *got;

	assert_non_null(p);
	got = ctx_part_key(p);
	if (want == NULL) {
		assert_null(got);
	} else {
		assert_non_null(got);
		assert_string_equal(got, want);
	}
	free(got);
	cJSON_Delete(p);
}

static void
test_part_key(void **state)
{
	(void)state;
	key_eq("[\"order_id\"]", ".order_id");
	key_eq("[\"a\", \"b_2\"]", ".a.b_2");
	key_eq("[\"gift-wrap\"]", "[\"gift-wrap\"]");
	key_eq("[\"2x\"]", "[\"2x\"]");
	key_eq("[\"q\\\"t\"]", "[\"q\\\"t\"]");
	key_eq("[]", NULL);
	key_eq("[1]", NULL);
}

static void
test_cols_collapse(void **state)
{
	struct dbp_buf b;
	cJSON *one = cJSON_Parse("[\"a\"]");
	cJSON *two = cJSON_Parse("[\"a\",\"b\"]");
	char *got;

	(void)state;
	dbp_buf_init(&b, 256);
	ctx_cols(&b, one);
	dbp_buf_adds(&b, " ");
	ctx_cols(&b, two);
	got = dbp_buf_take(&b);
	assert_string_equal(got, "a (a, b)");
	free(got);
	got = ctx_collapse("  two\n  lines\tand  gaps ");
	assert_string_equal(got, "two lines and gaps");
	free(got);
	assert_int_equal(ctx_chars("caf\xc3\xa9", 5), 4);
	assert_int_equal(ctx_prefix("\xc3\xa9\xc3\xa9x", 5, 1), 2);
	cJSON_Delete(one);
	cJSON_Delete(two);
}

static void
test_terms(void **state)
{
	struct ctx_terms *t = ctx_terms_new();
	struct dbp_buf b;
	unsigned char used[8] = { 0 };
	char *got;
	int p50, cat, nulls, unused, dist;

	(void)state;
	assert_non_null(t);
	p50 = ctx_term(t, "pct:p50");
	cat = ctx_term(t, "classification:categorical");
	nulls = ctx_term(t, "label:nulls");
	unused = ctx_term(t, "label:note");
	dist = ctx_term(t, "distribution:long_tail");
	assert_int_equal(ctx_term(t, "pct:p50"), p50);
	assert_int_equal(ctx_term(t, "bogus"), -1);
	assert_int_equal((int)ctx_terms_count(t), 5);
	used[p50] = used[cat] = used[nulls] = used[dist] = 1;
	(void)unused;
	dbp_buf_init(&b, 8192);
	assert_int_equal(ctx_terms_legend(t, used, &b), 0);
	got = dbp_buf_take(&b);
	assert_non_null(got);
	/* labels first, percentiles last; only the used terms */
	assert_non_null(strstr(got, "## Terms\n\n- Nulls: "));
	assert_non_null(strstr(got, "- categorical: "));
	assert_non_null(strstr(got, "search_columns `classification: "
	    "categorical`"));
	assert_non_null(strstr(got, "- long tail: "));
	assert_non_null(strstr(got, "`distribution: long_tail`"));
	assert_non_null(strstr(got, "- P50: "));
	assert_non_null(strstr(got, "`percentiles.p50`"));
	assert_null(strstr(got, "- note:"));
	assert_true(strstr(got, "- Nulls") < strstr(got, "- categorical"));
	assert_true(strstr(got, "- long tail") < strstr(got, "- P50"));
	free(got);
	ctx_terms_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pct),
		cmocka_unit_test(test_num_pos),
		cmocka_unit_test(test_literal),
		cmocka_unit_test(test_pyfloat),
		cmocka_unit_test(test_round_rate),
		cmocka_unit_test(test_part_key),
		cmocka_unit_test(test_cols_collapse),
		cmocka_unit_test(test_terms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

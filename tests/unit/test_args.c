/*
 * test_args.c - the tool table (server/call/tools.c) and argument validation
 * against each advertised inputSchema (server/call/args.c): the detail
 * sentences of spec 8.2, the order faults are reported in, case folding
 * of format and purpose, and Python spellings of request numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server.h"

/* Check json against tool's schema; the detail, or NULL when it passed.
 * *folded gets the checked arguments when non-NULL. */
static char *
check(const char *tool, const char *json, cJSON **folded)
{
	cJSON *a;
	char *detail = NULL;
	int ti;

	ti = tools_find(tool);
	assert_true(ti >= 0);
	a = cJSON_Parse(json);
	assert_non_null(a);
	args_spell_numbers(a, json, strlen(json));
	if (args_check((size_t)ti, a, &detail) == 0)
		assert_null(detail);
	else
		assert_non_null(detail);
	if (folded != NULL)
		*folded = a;
	else
		cJSON_Delete(a);
	return detail;
}

static void
expect(const char *tool, const char *json, const char *want)
{
	char *d = check(tool, json, NULL);

	if (want == NULL) {
		assert_null(d);
		return;
	}
	assert_non_null(d);
	assert_string_equal(d, want);
	free(d);
}

static void
test_table(void **state)
{
	static const char *const order[] = { "get_table_context",
	    "list_tables", "search_columns", "resolve_value", "get_manifest",
	    "get_diff", "get_reference" };
	const cJSON *s, *p, *props;
	size_t i, j, named;

	(void)state;
	assert_int_equal(srv_ntools, 7);
	for (i = 0; i < srv_ntools; i++) {
		assert_string_equal(srv_tools[i].name, order[i]);
		assert_true(strlen(srv_tools[i].title) > 0);
		assert_true(strlen(srv_tools[i].description) < 2048);
		s = tools_schema(i);
		assert_non_null(s);
		assert_string_equal(cJSON_GetObjectItem(s, "type")->valuestring,
		    "object");
		assert_true(cJSON_IsFalse(cJSON_GetObjectItem(s,
		    "additionalProperties")));
		props = cJSON_GetObjectItem(s, "properties");
		assert_non_null(cJSON_GetObjectItem(props, "cursor"));
		assert_int_equal(cJSON_GetObjectItem(props, "connection") !=
		    NULL, srv_tools[i].takes_connection);
		cJSON_ArrayForEach(p, props)
			assert_true(strlen(cJSON_GetObjectItem(p,
			    "description")->valuestring) > 0);
		/* A description names a sibling. */
		named = 0;
		for (j = 0; j < srv_ntools; j++)
			if (j != i && strstr(srv_tools[i].description,
			    order[j]) != NULL)
				named++;
		assert_true(named >= 1);
	}
	assert_int_equal(tools_find("nope"), -1);
}

static void
test_unknown_key(void **state)
{
	(void)state;
	expect("list_tables", "{\"schema\": \"x\"}", "list_tables takes no "
	    "argument 'schema'. Accepted: ['connection', 'cursor', 'detail', "
	    "'pattern'].");
	/* The first unknown key in sorted order; unknown beats required. */
	expect("get_table_context", "{\"zz\": 1, \"conn\": 1}",
	    "get_table_context takes no argument 'conn'. Accepted: "
	    "['connection', 'cursor', 'format', 'include_annotations', "
	    "'include_description', 'include_relationships', "
	    "'include_stats', 'purpose', 'table'].");
	expect("list_tables", "{\"limit\": 5}", "list_tables takes no "
	    "argument 'limit'. Accepted: ['connection', 'cursor', 'detail', "
	    "'pattern'].");
}

static void
test_required(void **state)
{
	(void)state;
	expect("get_table_context", "{}", "get_table_context requires "
	    "'table'.");
	expect("resolve_value", "{\"table\": \"t\"}", "resolve_value requires "
	    "'column'.");
	expect("get_reference", "{\"section\": \"1\"}", "get_reference "
	    "requires 'document'.");
	expect("list_tables", "{}", NULL);
}

static void
test_types(void **state)
{
	(void)state;
	expect("list_tables", "{\"pattern\": 7}",
	    "pattern 7 must be of type string.");
	expect("get_table_context", "{\"table\": \"t\", \"include_stats\": "
	    "\"false\"}", "include_stats 'false' must be of type boolean.");
	expect("list_tables", "{\"connection\": null}",
	    "connection None must be of type string.");
	expect("list_tables", "{\"detail\": 1}",
	    "detail 1 must be of type boolean.");
	expect("list_tables", "{\"detail\": 1.0}",
	    "detail 1.0 must be of type boolean.");
	expect("list_tables", "{\"detail\": 1e5}",
	    "detail 100000.0 must be of type boolean.");
	expect("list_tables", "{\"detail\": 1.5e-7}",
	    "detail 1.5e-07 must be of type boolean.");
	expect("list_tables", "{\"detail\": 12345678901234567890123}",
	    "detail 12345678901234567890123 must be of type boolean.");
	expect("list_tables", "{\"detail\": [\"a\", true, null]}",
	    "detail ['a', True, None] must be of type boolean.");
	expect("list_tables", "{\"detail\": {\"k\": 0.1}}",
	    "detail {'k': 0.1} must be of type boolean.");
	/* A non-string in an enum field is a type fault, never an enum one. */
	expect("get_table_context", "{\"table\": \"t\", \"format\": 7}",
	    "format 7 must be of type string.");
	expect("search_columns", "{\"candidate_key\": \"yes\"}",
	    "candidate_key 'yes' must be of type boolean.");
}

static void
test_min_length_and_enum(void **state)
{
	(void)state;
	expect("get_table_context", "{\"table\": \"\"}",
	    "table '' must be a non-empty string.");
	expect("list_tables", "{\"cursor\": \"\"}",
	    "cursor '' must be a non-empty string.");
	/* No minLength on the glob filters of search_columns. */
	expect("search_columns", "{\"sensitivity\": \"\"}", NULL);
	expect("get_table_context", "{\"table\": \"t\", \"format\": \"yml\"}",
	    "format 'yml' must be one of ['md', 'json', 'yaml'].");
	expect("get_reference", "{\"document\": \"readme\"}",
	    "document 'readme' must be one of ['assertions', 'guide', "
	    "'spec'].");
	expect("get_diff", "{\"kind\": \"column_renamed\"}",
	    "kind 'column_renamed' must be one of ['table_added', "
	    "'table_removed', 'table_type_changed', 'external_changed', "
	    "'column_added', 'column_removed', 'column_type_changed', "
	    "'column_nullable_changed', 'column_default_changed', "
	    "'column_physical_name_changed', 'column_collation_changed', "
	    "'statistic_changed', 'table_row_count_changed', "
	    "'grain_changed', 'physical_layout_changed', 'merging_changed', "
	    "'depends_on_changed', 'relationship_added', "
	    "'relationship_removed', 'relationship_modified', "
	    "'index_added', 'index_removed', 'index_modified', "
	    "'comment_changed'].");
	/* Properties are checked in name order. */
	expect("get_table_context", "{\"table\": \"\", \"format\": \"x\"}",
	    "format 'x' must be one of ['md', 'json', 'yaml'].");
	/* Repr of a string with a quote and a non-ASCII character. */
	expect("get_table_context", "{\"table\": \"t\", \"format\": "
	    "\"it's \\u00e9\"}",
	    "format \"it's \xc3\xa9\" must be one of ['md', 'json', 'yaml'].");
}

static void
test_fold(void **state)
{
	cJSON *a;

	(void)state;
	assert_null(check("get_table_context", "{\"table\": \"T\", "
	    "\"format\": \"MD\", \"purpose\": \"Query\"}", &a));
	assert_string_equal(cJSON_GetObjectItem(a, "format")->valuestring,
	    "md");
	assert_string_equal(cJSON_GetObjectItem(a, "purpose")->valuestring,
	    "query");
	/* Only format and purpose fold. */
	assert_string_equal(cJSON_GetObjectItem(a, "table")->valuestring, "T");
	cJSON_Delete(a);
	/* The folded value is the one shown. */
	expect("get_table_context", "{\"table\": \"t\", \"format\": \"YML\"}",
	    "format 'yml' must be one of ['md', 'json', 'yaml'].");
	/* document does not fold. */
	expect("get_reference", "{\"document\": \"SPEC\"}",
	    "document 'SPEC' must be one of ['assertions', 'guide', "
	    "'spec'].");
}

static void
test_not_object(void **state)
{
	cJSON *a;
	char *d = NULL;

	(void)state;
	a = cJSON_Parse("[1]");
	args_spell_numbers(a, "[1]", 3);
	assert_int_equal(args_check(0, a, &d), -1);
	assert_string_equal(d, "arguments [1] must be of type object.");
	free(d);
	cJSON_Delete(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_min_length_and_enum),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_not_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_resources.c - the pieces of the resources code that need no print:
 * page cutting by JSON-escaped width (server/resources/resources.c res_pages), URI
 * errors and the reference documents read through res_read, the
 * templates list, the index-document JSON reader (server/call/jdoc.c) and the
 * YAML emitter (indexer/text/yemit.c) read back by the YAML loader.
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

/* Concatenate the pages of text and check each is within bound. */
static void
pages_rejoin(const char *text, size_t len, size_t bound, size_t *npages)
{
	size_t *offs = NULL, n = 0, i, j, w;
	unsigned char c;

	assert_int_equal(res_pages(text, len, bound, &offs, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(offs[0], 0);
	assert_int_equal(offs[n], len);
	for (i = 0; i < n; i++) {
		assert_true(offs[i] <= offs[i + 1]);
		w = 0;
		for (j = offs[i]; j < offs[i + 1]; j++) {
			c = (unsigned char)text[j];
			if ((c & 0xc0) == 0x80)
				continue;
			if (c == '"' || c == '\\' || c == '\n' || c == '\t')
				w += 2;
			else
				w += 1;
		}
		assert_true(w <= bound);
		/* A page never ends inside a UTF-8 sequence. */
		if (offs[i + 1] < len)
			assert_true(((unsigned char)text[offs[i + 1]] &
			    0xc0) != 0x80);
		/* Only a page cut inside a long line ends without '\n'. */
	}
	*npages = n;
	free(offs);
}

static void
test_pages_small(void **state)
{
	size_t n;

	(void)state;
	pages_rejoin("", 0, 20000, &n);
	assert_int_equal(n, 1);
	pages_rejoin("a\nb\n", 4, 20000, &n);
	assert_int_equal(n, 1);
}

static void
test_pages_lines(void **state)
{
	char text[64];
	size_t *offs, n;

	(void)state;
	/* Each line "abc\n" is 5 units wide ('\n' escapes to 2). */
	strcpy(text, "abc\nabc\nabc\n");
	assert_int_equal(res_pages(text, strlen(text), 10, &offs, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(offs[1], 8);	/* two whole lines, then one */
	free(offs);
	/* Quotes count double: "\"\"\"\n" is 8 wide, fits 8, not 7. */
	strcpy(text, "\"\"\"\n\"\"\"\n");
	assert_int_equal(res_pages(text, strlen(text), 8, &offs, &n), 0);
	assert_int_equal(n, 2);
	free(offs);
	assert_int_equal(res_pages(text, strlen(text), 16, &offs, &n), 0);
	assert_int_equal(n, 1);
	free(offs);
}

static void
test_pages_long_line(void **state)
{
	char *text;
	size_t len = 45000, n, i;

	(void)state;
	/* One 45,000-character line of two-byte characters (é) and quotes:
	 * cut at character boundaries into 3 or more pages. */
	text = malloc(len * 2 + 2);
	assert_non_null(text);
	for (i = 0; i < len; i++) {
		if (i % 3 == 2) {
			text[2 * i] = 'x';
			text[2 * i + 1] = '"';
		} else {
			text[2 * i] = (char)0xc3;
			text[2 * i + 1] = (char)0xa9;
		}
	}
	text[2 * len] = '\n';
	text[2 * len + 1] = '\0';
	pages_rejoin(text, 2 * len + 1, 20000, &n);
	assert_true(n >= 3);
	free(text);
}

static void
test_pages_many_lines(void **state)
{
	struct dbp_buf b;
	size_t n, i;

	(void)state;
	dbp_buf_init(&b, 1 << 24);
	for (i = 0; i < 5000; i++)
		dbp_buf_addf(&b, "line %zu: \"quoted\" \\ text\n", i);
	pages_rejoin(b.ptr, b.len, 20000, &n);
	assert_true(n >= 7);
	dbp_buf_release(&b);
}

/* res_read on a server serving no connection. */
static int
read_err(const char *uri, char **detail)
{
	struct srv s;
	cJSON *res = NULL;
	int code = 0;

	memset(&s, 0, sizeof(s));
	*detail = NULL;
	assert_int_equal(res_read(&s, uri, &res, &code, detail), -1);
	assert_null(res);
	assert_non_null(*detail);
	return code;
}

static void
test_uri_malformed(void **state)
{
	static const char *const bad[] = {
		"foo", "http://x/manifest", "dbprint://", "dbprint:///",
		"dbprint:///reference/", "dbprint:///reference/guide",
		"dbprint:///reference/spec/x", "dbprint:///manifest",
		"dbprint://c", "dbprint://c/", "dbprint://c/nope",
		"dbprint://c/t/nope", "dbprint://c/manifest?offset=2",
		"dbprint://c/manifest?page=1&page=2",
		"dbprint://c/manifest?page",
		"dbprint:///reference/spec?page=1&x=",
		"dbprint:///reference/spec?page=1&",
		"dbprint:///reference/spec?&page=1",
		"dbprint:///reference/spec?page=1&&version=a",
		"dbprint://c/t/manifest", NULL
	};
	char *detail, want[256];
	size_t i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		assert_int_equal(read_err(bad[i], &detail), -32602);
		snprintf(want, sizeof(want),
		    "URI '%s' does not match the dbprint:// scheme.", bad[i]);
		assert_string_equal(detail, want);
		free(detail);
	}
}

static void
test_uri_connection(void **state)
{
	char *detail;

	(void)state;
	/* Well-formed, naming a connection nobody serves. */
	assert_int_equal(read_err("dbprint://reference/manifest", &detail),
	    -32602);
	assert_non_null(strstr(detail, "'reference'"));
	free(detail);
	assert_int_equal(read_err("dbprint://c/a/b/c/statistics?page=2",
	    &detail), -32602);
	assert_non_null(strstr(detail, "'c'"));
	free(detail);
}

static void
test_reference_read(void **state)
{
	struct srv s;
	cJSON *res = NULL, *item, *meta;
	char *detail = NULL, uri[128];
	const char *text, *version;
	int code = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(res_read(&s, "dbprint:///reference/spec", &res,
	    &code, &detail), 0);
	item = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "contents"), 0);
	assert_string_equal(cJSON_GetObjectItem(item, "uri")->valuestring,
	    "dbprint:///reference/spec");
	assert_string_equal(cJSON_GetObjectItem(item,
	    "mimeType")->valuestring, "text/markdown");
	text = cJSON_GetObjectItem(item, "text")->valuestring;
	assert_true(strlen(text) > 0);
	meta = cJSON_GetObjectItem(item, "_meta");
	assert_int_equal(cJSON_GetObjectItem(meta, "page")->valueint, 1);
	assert_true(cJSON_GetObjectItem(meta, "pages")->valueint >= 1);
	version = cJSON_GetObjectItem(meta, "version")->valuestring;
	assert_int_equal(strlen(version), 16);
	/* The same version reads page 1 again; another is stale. */
	snprintf(uri, sizeof(uri), "dbprint:///reference/spec?page=1&"
	    "version=%s", version);
	cJSON_Delete(res);
	res = NULL;
	assert_int_equal(res_read(&s, uri, &res, &code, &detail), 0);
	cJSON_Delete(res);
	res = NULL;
	/* An empty query is no query; a percent-encoded page is a page. */
	assert_int_equal(res_read(&s, "dbprint:///reference/spec?", &res,
	    &code, &detail), 0);
	cJSON_Delete(res);
	res = NULL;
	assert_int_equal(res_read(&s, "dbprint:///reference/spec?page=%31",
	    &res, &code, &detail), 0);
	cJSON_Delete(res);
	res = NULL;
	assert_int_equal(read_err("dbprint:///reference/spec?page=1&"
	    "version=0f1e", &detail), -32602);
	assert_string_equal(detail, "'dbprint:///reference/spec?page=1&"
	    "version=0f1e': the file changed on disk since that version was "
	    "read. Read page 1 again for its current version.");
	free(detail);
	/* Page numbers: not whole, zero, past the end. */
	assert_int_equal(read_err("dbprint:///reference/assertions?page=x",
	    &detail), -32602);
	assert_non_null(strstr(detail, "names no page of this resource: "
	    "pages run 1 to "));
	free(detail);
	assert_int_equal(read_err("dbprint:///reference/assertions?page=0",
	    &detail), -32602);
	free(detail);
	assert_int_equal(read_err("dbprint:///reference/assertions?page=99",
	    &detail), -32602);
	assert_non_null(strstr(detail, "'dbprint:///reference/assertions?"
	    "page=99' names no page"));
	free(detail);
}

static void
test_templates(void **state)
{
	struct srv s;
	cJSON *res = NULL, *list, *e;
	char *detail = NULL;
	const char *t;
	int code = 0, n = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(res_templates(&s, 1, &res, &code, &detail), 0);
	list = cJSON_GetObjectItem(res, "resourceTemplates");
	cJSON_ArrayForEach(e, list) {
		t = cJSON_GetObjectItem(e, "uriTemplate")->valuestring;
		assert_true(strlen(t) > 15);
		assert_string_equal(t + strlen(t) - 15, "{?page,version}");
		assert_non_null(cJSON_GetObjectItem(e, "name"));
		assert_non_null(cJSON_GetObjectItem(e, "title"));
		assert_non_null(cJSON_GetObjectItem(e, "description"));
		assert_non_null(cJSON_GetObjectItem(e, "mimeType"));
		n++;
	}
	/* One per URI pattern: reference, 4 connection, 6 table kinds. */
	assert_int_equal(n, 11);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 6),
	    "uriTemplate")->valuestring,
	    "dbprint://{connection}/{table}/statistics{?page,version}");
	cJSON_Delete(res);
}

static void
test_json_parse(void **state)
{
	static const char text[] = "{\"a\":[0.10,1e-05,Infinity,-Infinity,"
	    "NaN,12345678901234567890,true,null],\"b\\u00e9\":\"x\\ud83d\\ude00"
	    "\\n\",\"c\":{}}";
	cJSON *v, *a;
	char *back;

	(void)state;
	v = srv_json_parse(text, strlen(text));
	assert_non_null(v);
	a = cJSON_GetObjectItem(v, "a");
	assert_string_equal(dbp_num_text(cJSON_GetArrayItem(a, 0)), "0.10");
	assert_string_equal(dbp_num_text(cJSON_GetArrayItem(a, 1)), "1e-05");
	assert_string_equal(dbp_num_text(cJSON_GetArrayItem(a, 2)),
	    "Infinity");
	assert_string_equal(dbp_num_text(cJSON_GetArrayItem(a, 5)),
	    "12345678901234567890");
	assert_string_equal(cJSON_GetObjectItem(v, "b\xc3\xa9")->valuestring,
	    "x\xf0\x9f\x98\x80\n");
	back = dbp_json_dump(v, DBP_JSON_COMPACT);
	assert_non_null(back);
	assert_string_equal(back, text);
	free(back);
	cJSON_Delete(v);
	assert_null(srv_json_parse("{\"a\":1", 6));
	assert_null(srv_json_parse("[1,]", 4));
	assert_null(srv_json_parse("{} x", 4));
}

/* YAML written by dbp_yaml_dump reads back as the same tree. */
static void
test_yaml_roundtrip(void **state)
{
	static const char src[] =
	    "format_version: 1\n"
	    "table: s.a\n"
	    "words: ['yes', 'no', 'null', '~', '', '1', '1.5', '2024-01-01',\n"
	    "  '-x', '.inf', 'on', 'a: b', '# c', 'multi\n\n  line', '<<']\n"
	    "nums: [1, -2, 0.5, 1.0e-05, .inf, -.inf, 10000000000000000.0]\n"
	    "flags: [true, false, null]\n"
	    "empty_list: []\n"
	    "empty_map: {}\n"
	    "refers_to:\n"
	    "- column: [b_id]\n"
	    "  target_table: s.b\n"
	    "  note: \"caf\\u00e9\\ttab\"\n";
	struct dbp_diag d;
	cJSON *a, *b;
	char *y, *ja, *jb;

	(void)state;
	a = dbp_ydoc_parse(src, strlen(src), &d);
	assert_non_null(a);
	y = dbp_yaml_dump(a);
	assert_non_null(y);
	b = dbp_ydoc_parse(y, strlen(y), &d);
	assert_non_null(b);
	ja = dbp_json_dump(a, DBP_JSON_COMPACT);
	jb = dbp_json_dump(b, DBP_JSON_COMPACT);
	assert_string_equal(ja, jb);
	/* Block style, key order kept. */
	assert_true(strncmp(y, "format_version: 1\ntable: s.a\n", 29) == 0);
	assert_non_null(strstr(y, "empty_list: []\n"));
	assert_non_null(strstr(y, "empty_map: {}\n"));
	free(ja);
	free(jb);
	free(y);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_small),
		cmocka_unit_test(test_pages_lines),
		cmocka_unit_test(test_pages_long_line),
		cmocka_unit_test(test_pages_many_lines),
		cmocka_unit_test(test_uri_malformed),
		cmocka_unit_test(test_uri_connection),
		cmocka_unit_test(test_reference_read),
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_json_parse),
		cmocka_unit_test(test_yaml_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

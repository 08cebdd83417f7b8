/*
 * test_reject.c - rejected-edge withholding (server/call/reject.c) over an
 * in-memory index of a scratch print: the verdict lookup, a declaring
 * relationships.yaml, both sides of a relationships file, the diff and
 * its summary, and the files the caller is asked to pin.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "server.h"

struct fx {
	char		 dir[64];
	struct dbp_conn	 conf;
	struct srv_conn	 cn;
	char		 pinned[1024];
};

static void
put(const char *dir, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char manifest[] =
    "format_version: 1\n"
    "tables:\n"
    "  s.a:\n"
    "    path: s/a\n"
    "    artifacts: {ddl: ddl.sql, relationships: relationships.yaml,\n"
    "      relationships_annotations: relationships.annotations.yaml}\n"
    "  s.b:\n"
    "    path: s/b\n"
    "    artifacts: {ddl: ddl.sql, relationships: relationships.yaml}\n"
    "  s.c: nope\n";

static const char rel_a[] =
    "format_version: 1\ntable: s.a\nprofiled_at: '2026-11-30T06:00:00Z'\n"
    "refers_to:\n"
    "- {column: [b_id], target_table: s.b, target_column: [id],"
    " detection: inferred}\n"
    "- {column: [d_id], target_table: s.b, target_column: [id],"
    " detection: declared}\n"
    "referenced_by: []\n";

static const char annot_a[] =
    "format_version: 1\n"
    "refers_to:\n"
    "- {column: [b_id], target_table: s.b, target_column: [id],"
    " verdict: rejected}\n"
    "- {column: [d_id], target_table: s.b, target_column: [id],"
    " verdict: rejected}\n"
    "- {column: [e_id], target_table: s.b, target_column: [id],"
    " note: fine}\n";

static int
fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct dbp_diag d;

	assert_non_null(x);
	strcpy(x->dir, "/tmp/test_reject.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	put(x->dir, "manifest.yaml", manifest);
	put(x->dir, "s/a/ddl.sql", "CREATE TABLE a (b_id int);\n");
	put(x->dir, "s/b/ddl.sql", "CREATE TABLE b (id int);\n");
	put(x->dir, "s/a/relationships.yaml", rel_a);
	put(x->dir, "s/a/relationships.annotations.yaml", annot_a);
	put(x->dir, "s/b/relationships.yaml", "format_version: 1\n"
	    "table: s.b\nrefers_to: []\nreferenced_by: []\n");
	x->conf.name = (char *)"t";
	x->conf.print_root = x->dir;
	x->cn.conf = &x->conf;
	assert_int_equal(dbp_index_open(NULL, DBP_OPEN_MEMORY, &x->cn.db, &d),
	    0);
	assert_int_equal(dbp_index_update(x->cn.db, "t", x->dir, 1, NULL, &d),
	    0);
	*state = x;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *x = *state;
	char cmd[128];

	sqlite3_close(x->cn.db);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", x->dir);
	free(x);
	return 0;
}

/* The pin callback: record each path, space-separated. */
static int
fx_pin(void *ctx, const char *path)
{
	struct fx *x = ctx;

	strncat(x->pinned, path, sizeof(x->pinned) - strlen(x->pinned) - 2);
	strcat(x->pinned, " ");
	return 0;
}

static cJSON *
cols(const char *name)
{
	cJSON *a = cJSON_CreateArray();

	if (name != NULL)
		cJSON_AddItemToArray(a, cJSON_CreateString(name));
	return a;
}

static int
ask(struct rej *r, const char *from, const char *fc, const char *to,
    const char *tc)
{
	struct dbp_diag d;
	cJSON *a = cols(fc), *b = cols(tc);
	int rc;

	rc = rej_edge_rejected(r, from, a, to, b, &d);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return rc;
}

static void
test_verdicts(void **state)
{
	struct fx *x = *state;
	struct rej r;

	rej_init(&r, &x->cn, fx_pin, x);
	assert_int_equal(ask(&r, "s.a", "b_id", "s.b", "id"), 1);
	/* Declared in s.a's relationships.yaml: never withheld. */
	assert_int_equal(ask(&r, "s.a", "d_id", "s.b", "id"), 0);
	/* A note without a verdict, another target, another source. */
	assert_int_equal(ask(&r, "s.a", "e_id", "s.b", "id"), 0);
	assert_int_equal(ask(&r, "s.a", "b_id", "s.c", "id"), 0);
	assert_int_equal(ask(&r, "s.a", "b_id", "s.b", "key"), 0);
	assert_int_equal(ask(&r, "s.b", "b_id", "s.b", "id"), 0);
	assert_int_equal(ask(&r, "s.c", "b_id", "s.b", "id"), 0);
	assert_int_equal(ask(&r, "s.zz", "b_id", "s.b", "id"), 0);
	assert_int_equal(rej_edge_rejected(&r, NULL, NULL, "s.b", NULL, NULL),
	    0);
	/* The annotation file, and the relationships.yaml read to check a
	 * rejection against, were pinned once each. */
	assert_string_equal(x->pinned, "s/a/relationships.annotations.yaml "
	    "s/a/relationships.yaml ");
	rej_release(&r);
}

static void
test_relationships(void **state)
{
	static const char b_side[] =
	    "{\"table\":\"s.b\",\"refers_to\":[],\"referenced_by\":["
	    "{\"column\":[\"id\"],\"referencer_table\":\"s.a\","
	    "\"referencer_column\":[\"b_id\"],\"detection\":\"inferred\"},"
	    "{\"column\":[\"id\"],\"referencer_table\":\"s.a\","
	    "\"referencer_column\":[\"b_id\"],\"detection\":\"declared\"},"
	    "{\"column\":[\"id\"],\"referencer_table\":\"s.a\","
	    "\"referencer_column\":[\"e_id\"]}]}";
	struct fx *x = *state;
	struct dbp_diag d;
	struct rej r;
	cJSON *doc;
	size_t dropped;
	char *out;

	rej_init(&r, &x->cn, NULL, NULL);
	doc = srv_json_parse(b_side, strlen(b_side));
	assert_int_equal(rej_relationships(&r, "s.b", doc, &dropped, &d), 0);
	assert_int_equal(dropped, 1);
	out = dbp_json_dump(cJSON_GetObjectItem(doc, "referenced_by"),
	    DBP_JSON_COMPACT);
	assert_string_equal(out, "[{\"column\":[\"id\"],\"referencer_table\":"
	    "\"s.a\",\"referencer_column\":[\"b_id\"],\"detection\":"
	    "\"declared\"},{\"column\":[\"id\"],\"referencer_table\":\"s.a\","
	    "\"referencer_column\":[\"e_id\"]}]");
	free(out);
	cJSON_Delete(doc);
	rej_release(&r);
}

static void
test_diff(void **state)
{
	static const char diff[] =
	    "{\"summary\":{\"relationships_changed\":3,\"x\":1},\"changes\":["
	    "{\"kind\":\"relationship_added\",\"source_table\":\"s.a\","
	    "\"source_column\":[\"b_id\"],\"target_table\":\"s.b\","
	    "\"target_column\":[\"id\"]},"
	    "{\"kind\":\"relationship_removed\",\"source_table\":\"s.a\","
	    "\"source_column\":[\"b_id\"],\"target_table\":\"s.b\","
	    "\"target_column\":[\"id\"]},"
	    "{\"kind\":\"column_added\",\"table\":\"s.a\","
	    "\"source_column\":[\"b_id\"],\"target_table\":\"s.b\","
	    "\"target_column\":[\"id\"]},"
	    "{\"kind\":\"relationship_added\",\"source_table\":\"s.a\","
	    "\"source_column\":[\"d_id\"],\"target_table\":\"s.b\","
	    "\"target_column\":[\"id\"]},"
	    "7]}";
	static const char floaty[] =
	    "{\"summary\":{\"relationships_changed\":2.0},"
	    "\"changes\":[{\"kind\":\"relationship_added\",\"source_table\":"
	    "\"s.a\",\"source_column\":[\"b_id\"],\"target_table\":\"s.b\","
	    "\"target_column\":[\"id\"]}]}";
	struct fx *x = *state;
	struct dbp_diag d;
	struct rej r;
	cJSON *doc;
	size_t dropped;
	char *out;

	rej_init(&r, &x->cn, NULL, NULL);
	doc = srv_json_parse(diff, strlen(diff));
	assert_int_equal(rej_diff(&r, doc, &dropped, &d), 0);
	assert_int_equal(dropped, 2);
	out = dbp_json_dump(doc, DBP_JSON_COMPACT);
	/* Both events about the rejected edge go; the count follows; a
	 * non-relationship event and a non-mapping entry stay. */
	assert_string_equal(out, "{\"summary\":{\"relationships_changed\":1,"
	    "\"x\":1},\"changes\":[{\"kind\":\"column_added\",\"table\":"
	    "\"s.a\",\"source_column\":[\"b_id\"],\"target_table\":\"s.b\","
	    "\"target_column\":[\"id\"]},{\"kind\":\"relationship_added\","
	    "\"source_table\":\"s.a\",\"source_column\":[\"d_id\"],"
	    "\"target_table\":\"s.b\",\"target_column\":[\"id\"]},7]}");
	free(out);
	cJSON_Delete(doc);
	/* A count that is not an int is left as it is. */
	doc = srv_json_parse(floaty, strlen(floaty));
	assert_non_null(doc);
	assert_int_equal(rej_diff(&r, doc, &dropped, &d), 0);
	assert_int_equal(dropped, 1);
	assert_string_equal(dbp_num_text(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(doc, "summary"), "relationships_changed")),
	    "2.0");
	cJSON_Delete(doc);
	rej_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_verdicts, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(test_relationships, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(test_diff, fx_setup,
		    fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_config.c - dbp_project_load: discovery (walk up, exact --project),
 * the messages of research/upstream-mcp.md 1.2, print roots, max_age_days
 * and rules.
 */
#define _XOPEN_SOURCE	700	/* realpath, nftw */

#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dbprint.h"

static char	tmp[256];
static char	oldcwd[4096];

static void
put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int
setup(void **state)
{
	char raw[256];

	(void)state;
	snprintf(raw, sizeof(raw), "/tmp/dbp-cfg-XXXXXX");
	if (mkdtemp(raw) == NULL)
		return -1;
	/* Resolve /tmp symlinks so paths compare. */
	if (realpath(raw, tmp) == NULL)
		return -1;
	if (getcwd(oldcwd, sizeof(oldcwd)) == NULL)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	if (chdir(oldcwd) == -1)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

/* Load from --project tmp, expecting failure; return the message. */
static const char *
load_fail(void)
{
	static struct dbp_diag d;
	struct dbp_project p;

	assert_int_equal(dbp_project_load(tmp, &p, &d), -1);
	return d.msg;
}

static void
test_walk_up(void **state)
{
	struct dbp_project p;
	struct dbp_diag d;
	char sub[512], want[512];

	(void)state;
	put(".dbprint.yaml", "connections:\n  prod:\n    adapter: postgres\n");
	snprintf(sub, sizeof(sub), "%s/a", tmp);
	mkdir(sub, 0777);
	snprintf(sub, sizeof(sub), "%s/a/b", tmp);
	mkdir(sub, 0777);
	assert_int_equal(chdir(sub), 0);
	assert_int_equal(dbp_project_load(NULL, &p, &d), 0);
	snprintf(want, sizeof(want), "%s/.dbprint.yaml", tmp);
	assert_string_equal(p.config_path, want);
	assert_string_equal(p.root, tmp);
	assert_int_equal(p.nconns, 1);
	assert_string_equal(p.conns[0].name, "prod");
	snprintf(want, sizeof(want), "%s/prints/prod", tmp);
	assert_string_equal(p.conns[0].print_root, want);
	assert_int_equal(p.conns[0].max_age_days, 7);
	assert_int_equal(p.conns[0].autoflag, 0);
	dbp_project_release(&p);
}

static void
test_not_found(void **state)
{
	struct dbp_project p;
	struct dbp_diag d;
	char want[600];

	(void)state;
	assert_int_equal(chdir(tmp), 0);
	assert_int_equal(dbp_project_load(NULL, &p, &d), -1);
	snprintf(want, sizeof(want), "no .dbprint.yaml found in %s or any "
	    "parent directory. Run `dbprint init` in the project root to "
	    "create one.", tmp);
	/* A parent of /tmp may hold one on a developer machine. */
	if (strncmp(d.msg, "no .dbprint.yaml found", 22) == 0)
		assert_string_equal(d.msg, want);
	assert_int_equal(dbp_project_load(tmp, &p, &d), -1);
	snprintf(want, sizeof(want), "no .dbprint.yaml at %s/.dbprint.yaml. "
	    "--project names an exact location - the config file itself, or "
	    "the directory that directly contains it. No upward walk, no "
	    "downward scan.", tmp);
	assert_string_equal(d.msg, want);
}

static void
test_exact_file(void **state)
{
	struct dbp_project p;
	struct dbp_diag d;
	char loc[512];

	(void)state;
	put(".dbprint.yaml", "connections:\n  x:\n    output: out\n"
	    "    auto: yes\n");
	snprintf(loc, sizeof(loc), "%s/.dbprint.yaml", tmp);
	assert_int_equal(dbp_project_load(loc, &p, &d), 0);
	assert_int_equal(p.conns[0].autoflag, 1);
	snprintf(loc, sizeof(loc), "%s/out/x", tmp);
	assert_string_equal(p.conns[0].print_root, loc);
	dbp_project_release(&p);
}

static void
test_messages(void **state)
{
	char want[600];

	(void)state;
	put(".dbprint.yaml", "connections: [a\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: invalid YAML \xe2\x80\x94 ",
	    tmp);
	assert_true(strncmp(load_fail(), want, strlen(want)) == 0);

	put(".dbprint.yaml", "- a\n- b\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: top-level YAML must be "
	    "a mapping, got list.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "connections: 7\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: `connections` must be "
	    "a mapping, got int.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: at least one "
	    "connection must be defined.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "connections: {}\n");
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "connections:\n  x:\n    adapter: oracle\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: connection 'x': adapter "
	    "must be one of ('postgres', 'snowflake', 'mysql', 'duckdb', "
	    "'clickhouse', 'redshift', 'databricks', 'bigquery'), got "
	    "'oracle'.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "connections:\n  x:\n    max_age_days: soon\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: connection 'x': "
	    "max_age_days: expected integer, got 'soon'.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "connections:\n  x:\n    max_age_days: true\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: connection 'x': "
	    "max_age_days: expected integer, got True.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "defaults:\n  max_age_days: -2\nconnections:\n"
	    "  x: {max_age_days: 3}\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: defaults: max_age_days "
	    "is -2, which no print can ever satisfy: every table re-extracts "
	    "on every run and check reports every one of them stale. Use 0 to "
	    "ask for that deliberately, or a positive number of days.", tmp);
	assert_string_equal(load_fail(), want);

	put(".dbprint.yaml", "connections:\n  x:\n    max_age_days: -1\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: connection 'x': "
	    "max_age_days is -1, which no print", tmp);
	assert_true(strncmp(load_fail(), want, strlen(want)) == 0);

	put(".dbprint.yaml", "connections:\n  x:\n    rules:\n"
	    "    - include: [a]\n");
	snprintf(want, sizeof(want), "%s/.dbprint.yaml: connection 'x' "
	    "rules[0] sets nothing", tmp);
	assert_true(strncmp(load_fail(), want, strlen(want)) == 0);

	put(".dbprint.yaml", "connections:\n  ../x: {}\n");
	assert_non_null(strstr(load_fail(), "one path segment"));
}

static void
test_cascade(void **state)
{
	struct dbp_project p;
	struct dbp_diag d;
	const struct dbp_conn *c;
	const cJSON *r, *inc;
	char want[512];
	int n;

	(void)state;
	put(".dbprint.yaml",
	    "defaults:\n"
	    "  max_age_days: 3\n"
	    "  output: shared\n"
	    "  rules:\n"
	    "  - include: [\"Sales.*\"]\n"
	    "    max_age_days: 30\n"
	    "connections:\n"
	    "  a:\n"
	    "    max_age_days: 0\n"
	    "    rules:\n"
	    "    - sample: 0.5\n"
	    "      exclude: \"Big.*\"\n"
	    "  b:\n"
	    "    output: ''\n"
	    "  c:\n");
	assert_int_equal(dbp_project_load(tmp, &p, &d), 0);
	assert_int_equal(p.nconns, 3);
	assert_string_equal(p.conns[0].name, "a");
	assert_string_equal(p.conns[1].name, "b");
	assert_string_equal(p.conns[2].name, "c");
	c = dbp_project_conn(&p, "a");
	assert_non_null(c);
	assert_int_equal(c->max_age_days, 0);
	assert_int_equal(dbp_project_conn(&p, "b")->max_age_days, 3);
	assert_null(dbp_project_conn(&p, "zz"));
	/* An empty output falls through to defaults.output. */
	snprintf(want, sizeof(want), "%s/shared/b", tmp);
	assert_string_equal(dbp_project_conn(&p, "b")->print_root, want);
	/* Rules: defaults' first, labelled, patterns lower-cased. */
	n = cJSON_GetArraySize(c->rules);
	assert_int_equal(n, 2);
	r = cJSON_GetArrayItem(c->rules, 0);
	assert_string_equal(cJSON_GetObjectItem(r, "_label")->valuestring,
	    "defaults rules[0]");
	inc = cJSON_GetObjectItem(r, "include");
	assert_string_equal(cJSON_GetArrayItem(inc, 0)->valuestring, "sales.*");
	r = cJSON_GetArrayItem(c->rules, 1);
	assert_string_equal(cJSON_GetObjectItem(r, "_label")->valuestring,
	    "connection 'a' rules[0]");
	inc = cJSON_GetObjectItem(r, "include");
	assert_string_equal(cJSON_GetArrayItem(inc, 0)->valuestring, "*");
	inc = cJSON_GetObjectItem(r, "exclude");
	assert_string_equal(cJSON_GetArrayItem(inc, 0)->valuestring, "big.*");
	/* The defaults' rules reach every connection. */
	assert_int_equal(cJSON_GetArraySize(dbp_project_conn(&p, "c")->rules),
	    1);
	dbp_project_release(&p);
}

static void
test_index_path(void **state)
{
	struct dbp_project p;
	struct dbp_diag d;
	char want[512], *got;

	(void)state;
	put(".dbprint.yaml", "connections:\n  prod: {}\n");
	assert_int_equal(dbp_project_load(tmp, &p, &d), 0);
	got = dbp_index_path(&p, "prod");
	snprintf(want, sizeof(want), "%s/.dbprint/index/prod.sqlite", tmp);
	assert_string_equal(got, want);
	free(got);
	dbp_project_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exact_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cascade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_path, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * fuzz_index.c - fuzz target: the index compiler (indexer/compile/index.c, fill.c,
 * print.c, annot.c) per artifact kind.  A two-table print lives in a
 * scratch directory (tmpfs when /dev/shm exists); the input's first byte
 * picks one of its files and the rest replaces that file, then
 * dbp_index_update runs on one in-memory index kept across inputs
 * (incremental, as the server runs it) and dbp_index_refresh on the
 * file.  Every file is put back before the next input.  The index must
 * stay consistent: PRAGMA quick_check is "ok" after every run.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

struct fx_file {
	const char	*path;		/* relative to the print root */
	const char	*text;		/* the well-formed content */
};

static const struct fx_file fx_files[] = {
	{ "manifest.yaml",
	    "format_version: 1\n"
	    "generated_at: '2026-11-30T00:00:00Z'\n"
	    "connection: fz\n"
	    "adapter: duckdb\n"
	    "dbprint_version: 0.12.0\n"
	    "statistics_params: {}\n"
	    "selectors: {include: ['*'], exclude: []}\n"
	    "redaction_rules_configured: 0\n"
	    "default_collation: binary\n"
	    "manifest_annotations: manifest.annotations.yaml\n"
	    "tables:\n"
	    "  fz.s.t:\n"
	    "    type: table\n"
	    "    path: fz/s/t\n"
	    "    artifacts: {ddl: ddl.sql, statistics: statistics.yaml, "
	    "relationships: relationships.yaml, description: description.md, "
	    "statistics_annotations: statistics.annotations.yaml, "
	    "relationships_annotations: relationships.annotations.yaml}\n"
	    "    row_count: 3\n"
	    "    columns: 2\n"
	    "    profiled_at: '2026-11-30T00:00:00Z'\n"
	    "  fz.s.u:\n"
	    "    type: table\n"
	    "    path: fz/s/u\n"
	    "    artifacts: {ddl: ddl.sql, statistics: statistics.yaml}\n"
	    "    row_count: 2\n"
	    "    columns: 1\n"
	    "    profiled_at: '2026-11-30T00:00:00Z'\n" },
	{ "manifest.annotations.yaml",
	    "format_version: 1\nnotes: clean\n" },
	{ "diff.yaml",
	    "format_version: 1\n"
	    "generated_at: '2026-11-30T00:00:00Z'\n"
	    "connection: fz\n"
	    "summary: {tables_added: 0, tables_removed: 0, "
	    "tables_modified: 1, relationships_changed: 1}\n"
	    "events:\n"
	    "- {kind: relationship_added, table: fz.s.t, "
	    "columns: [u_id], target_table: fz.s.u, target_columns: [id]}\n" },
	{ "reading.md", "# Reading\n\nfz.s.t lists things.\n" },
	{ "fz/s/t/ddl.sql",
	    "CREATE TABLE t (c VARCHAR, u_id INTEGER);\n" },
	{ "fz/s/t/statistics.yaml",
	    "format_version: 1\n"
	    "table: fz.s.t\n"
	    "type: table\n"
	    "profiled_at: '2026-11-30T00:00:00Z'\n"
	    "row_count: 3\n"
	    "row_count_method: exact\n"
	    "grain: {keys: []}\n"
	    "columns:\n"
	    "  c: {sql_type: VARCHAR, nullable: false, null_count: 0, "
	    "null_rate: 0.0, classification: categorical, cardinality: 2, "
	    "cardinality_ratio: 0.666667, cardinality_method: exact, "
	    "values: [{value: a, count: 2}, {value: b, count: 1}], "
	    "values_coverage: 1.0}\n"
	    "  u_id: {sql_type: INTEGER, nullable: true, null_count: 1, "
	    "null_rate: 0.333333, classification: numeric, cardinality: 2, "
	    "min: 1, max: 2}\n" },
	{ "fz/s/t/relationships.yaml",
	    "format_version: 1\n"
	    "table: fz.s.t\n"
	    "profiled_at: '2026-11-30T00:00:00Z'\n"
	    "eligible_target: false\n"
	    "refers_to:\n"
	    "- column: [u_id]\n"
	    "  target_table: fz.s.u\n"
	    "  target_column: [id]\n"
	    "  detection: inferred\n"
	    "referenced_by: []\n" },
	{ "fz/s/t/description.md", "Things, one per row.\n" },
	{ "fz/s/t/statistics.annotations.yaml",
	    "format_version: 1\n"
	    "columns:\n"
	    "  c:\n"
	    "    note: the letter\n"
	    "    values:\n"
	    "    - {value: a, note: first}\n" },
	{ "fz/s/t/relationships.annotations.yaml",
	    "format_version: 1\n"
	    "refers_to:\n"
	    "- {column: [u_id], target_table: fz.s.u, target_column: [id], "
	    "verdict: rejected, note: not a key}\n" },
	{ "fz/s/u/ddl.sql", "CREATE TABLE u (id INTEGER);\n" },
	{ "fz/s/u/statistics.yaml",
	    "format_version: 1\n"
	    "table: fz.s.u\n"
	    "type: table\n"
	    "profiled_at: '2026-11-30T00:00:00Z'\n"
	    "row_count: 2\n"
	    "row_count_method: exact\n"
	    "grain: {keys: [{columns: [id], detection: declared}]}\n"
	    "columns:\n"
	    "  id: {sql_type: INTEGER, nullable: false, null_count: 0, "
	    "null_rate: 0.0, classification: numeric, cardinality: 2, "
	    "values: [{value: 1, count: 1}, {value: 2, count: 1}]}\n" },
};
#define FX_NFILES	(sizeof(fx_files) / sizeof(fx_files[0]))

static char fx_root[256];	/* the scratch print's root */
static sqlite3 *fx_db;
static int fx_dirty = -1;	/* the file the last input replaced */

/* Write data[0..n) to the print file i; abort when it cannot. */
static void
fx_write(size_t i, const void *data, size_t n)
{
	char path[DBP_MAX_PATH];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fx_root, fx_files[i].path);
	if ((f = fopen(path, "wb")) == NULL) {
		perror(path);
		abort();
	}
	if (n > 0 && fwrite(data, 1, n, f) != n) {
		perror(path);
		abort();
	}
	if (fclose(f) != 0) {
		perror(path);
		abort();
	}
}

/* Remove the scratch print at exit (a fuzz run ends with exit()). */
static void
fx_cleanup(void)
{
	char cmd[DBP_MAX_PATH + 16];

	if (fx_db != NULL)
		sqlite3_close(fx_db);
	fx_db = NULL;
	if (fx_root[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx_root);
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz_index: could not remove %s\n",
			    fx_root);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct dbp_diag d;
	char dir[DBP_MAX_PATH];
	size_t i;

	(void)argc;
	(void)argv;
	snprintf(fx_root, sizeof(fx_root), "%s/dbp-fuzz-index-XXXXXX",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(fx_root) == NULL) {
		perror(fx_root);
		abort();
	}
	atexit(fx_cleanup);
	snprintf(dir, sizeof(dir), "%s/fz", fx_root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/fz/s", fx_root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/fz/s/t", fx_root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/fz/s/u", fx_root);
	mkdir(dir, 0700);
	for (i = 0; i < FX_NFILES; i++)
		fx_write(i, fx_files[i].text, strlen(fx_files[i].text));
	d.msg[0] = '\0';
	if (dbp_index_open(NULL, DBP_OPEN_MEMORY, &fx_db, &d) != 0 ||
	    dbp_index_update(fx_db, "fz", fx_root, 1, NULL, &d) != 0) {
		fprintf(stderr, "fuzz_index: %s\n", d.msg);
		abort();
	}
	return 0;
}

/* PRAGMA quick_check must say "ok". */
static void
fx_check(void)
{
	sqlite3_stmt *st;
	const unsigned char *r;

	if (sqlite3_prepare_v2(fx_db, "PRAGMA quick_check", -1, &st,
	    NULL) != SQLITE_OK)
		abort();
	if (sqlite3_step(st) != SQLITE_ROW)
		abort();
	r = sqlite3_column_text(st, 0);
	if (r == NULL || strcmp((const char *)r, "ok") != 0) {
		fprintf(stderr, "fuzz_index: quick_check: %s\n",
		    r ? (const char *)r : "(null)");
		abort();
	}
	sqlite3_finalize(st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dbp_diag d;
	struct dbp_stats st;
	const char *paths[1];
	size_t i;
	int changed = 0;

	if (fx_db == NULL)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 1)
		return 0;
	if (fx_dirty >= 0)
		fx_write((size_t)fx_dirty, fx_files[fx_dirty].text,
		    strlen(fx_files[fx_dirty].text));
	i = data[0] % FX_NFILES;
	fx_write(i, data + 1, size - 1);
	fx_dirty = (int)i;
	memset(&st, 0, sizeof(st));
	d.msg[0] = '\0';
	if (dbp_index_update(fx_db, "fz", fx_root, 0, &st, &d) != 0) {
		fprintf(stderr, "fuzz_index: update failed: %s\n", d.msg);
		abort();
	}
	dbp_stats_release(&st);
	paths[0] = fx_files[i].path;
	if (dbp_index_refresh(fx_db, "fz", fx_root, paths, 1, &changed,
	    &d) != 0) {
		fprintf(stderr, "fuzz_index: refresh failed: %s\n", d.msg);
		abort();
	}
	fx_check();
	return 0;
}

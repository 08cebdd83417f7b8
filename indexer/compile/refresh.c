/*
 * refresh.c - the server's side of keeping the index current (spec 7.1):
 * bring the files a call reads up to date (dbp_index_refresh) and digest
 * their content for cursors and resource versions (dbp_files_digest),
 * and read back the statistics documents the index does not keep
 * (dbp_stats_read).
 * The work of re-indexing itself is index.c's (ix_update).
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "ix.h"
#include "platform.h"

static int
rf_prep(sqlite3 *db, const char *sql, sqlite3_stmt **s, struct dbp_diag *d)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK)
		return dbp_fail(d, "index: %s", sqlite3_errmsg(db));
	return 0;
}

int
dbp_index_refresh(sqlite3 *db, const char *connection, const char *print_root,
    const char *const *paths, size_t npaths, int *changed, struct dbp_diag *d)
{
	sqlite3_stmt *s;
	struct ix_map filter = { 0 };
	struct stat sb;
	char abs[DBP_MAX_PATH];
	const char *status, *fqn;
	size_t i;
	int whole = 0, any = 0, present, rc;

	*changed = 0;
	if (rf_prep(db, "SELECT dev, ino, size, mtime_ns, status, table_fqn, "
	    "kind FROM files WHERE path = ?1", &s, d) == -1)
		return -1;
	for (i = 0; i < npaths && !whole; i++) {
		snprintf(abs, sizeof(abs), "%s/%s", print_root, paths[i]);
		present = stat(abs, &sb) == 0 && S_ISREG(sb.st_mode);
		sqlite3_bind_text(s, 1, paths[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		if (rc != SQLITE_ROW) {
			sqlite3_reset(s);
			if (present)
				whole = 1;	/* a file the index never saw */
			continue;
		}
		status = (const char *)sqlite3_column_text(s, 4);
		fqn = (const char *)sqlite3_column_text(s, 5);
		if (strcmp(status, "outside_root") == 0) {
			sqlite3_reset(s);
			continue;
		}
		if (!present ? strcmp(status, "absent") != 0 :
		    (sqlite3_column_type(s, 0) == SQLITE_NULL ||
		    sqlite3_column_int64(s, 0) != (sqlite3_int64)sb.st_dev ||
		    sqlite3_column_int64(s, 1) != (sqlite3_int64)sb.st_ino ||
		    sqlite3_column_int64(s, 2) != (sqlite3_int64)sb.st_size ||
		    sqlite3_column_int64(s, 3) != dbp_mtime_ns(&sb))) {
			any = 1;
			if (fqn == NULL)
				whole = 1;	/* manifest or another connection file */
			else if (ix_map_put(&filter, fqn, &filter) == -1)
				whole = 1;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	if (!any && !whole) {
		ix_map_free(&filter);
		return 0;
	}
	rc = ix_update(db, connection, print_root, 0, whole ? NULL : &filter,
	    NULL, changed, d);
	ix_map_free(&filter);
	return rc;
}

static int
rf_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
dbp_files_digest(sqlite3 *db, const char *const *paths, size_t npaths,
    char out[17], struct dbp_diag *d)
{
	const char **sorted;
	sqlite3_stmt *s;
	XXH3_state_t *h;
	const unsigned char *hash;
	size_t i;

	if ((sorted = calloc(npaths + 1, sizeof(*sorted))) == NULL)
		return dbp_fail(d, "out of memory");
	for (i = 0; i < npaths; i++)
		sorted[i] = paths[i];
	qsort(sorted, npaths, sizeof(*sorted), rf_cmp);
	if (rf_prep(db, "SELECT coalesce(hash, status) FROM files WHERE "
	    "path = ?1", &s, d) == -1) {
		free(sorted);
		return -1;
	}
	if ((h = XXH3_createState()) == NULL) {
		sqlite3_finalize(s);
		free(sorted);
		return dbp_fail(d, "out of memory");
	}
	XXH3_64bits_reset(h);
	for (i = 0; i < npaths; i++) {
		if (i > 0 && strcmp(sorted[i], sorted[i - 1]) == 0)
			continue;
		sqlite3_bind_text(s, 1, sorted[i], -1, SQLITE_STATIC);
		hash = sqlite3_step(s) == SQLITE_ROW ?
		    sqlite3_column_text(s, 0) : NULL;
		XXH3_64bits_update(h, sorted[i], strlen(sorted[i]));
		XXH3_64bits_update(h, ":", 1);
		if (hash == NULL)
			hash = (const unsigned char *)"absent";
		XXH3_64bits_update(h, hash, strlen((const char *)hash));
		XXH3_64bits_update(h, "\n", 1);
		sqlite3_reset(s);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(h));
	XXH3_freeState(h);
	sqlite3_finalize(s);
	free(sorted);
	return 0;
}

/* Remove each column's (and part's) sketch from a statistics document
 * (a malloc'd tree): a sketch is the generator's own state, never shown. */
static void
rf_strip_sketch(cJSON *doc)
{
	cJSON *cols, *c, *parts, *p;

	cols = cJSON_GetObjectItemCaseSensitive(doc, "columns");
	cJSON_ArrayForEach(c, (cJSON_IsObject(cols) ? cols : NULL)) {
		if (!cJSON_IsObject(c))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(c, "sketch");
		parts = cJSON_GetObjectItemCaseSensitive(c, "parts");
		cJSON_ArrayForEach(p, (cJSON_IsObject(parts) ? parts : NULL))
			if (cJSON_IsObject(p))
				cJSON_DeleteItemFromObjectCaseSensitive(p,
				    "sketch");
	}
}

cJSON *
dbp_stats_read(const char *print_root, const char *rel, const char *hash,
    int *moved, struct dbp_diag *d)
{
	char abs[DBP_MAX_PATH], got[33], *buf = NULL;
	size_t len;
	cJSON *doc;

	*moved = 0;
	if (snprintf(abs, sizeof(abs), "%s/%s", print_root, rel) >=
	    (int)sizeof(abs)) {
		dbp_fail(d, "%s/%s: the path is too long", print_root, rel);
		return NULL;
	}
	if (dbp_read_file(abs, DBP_MAX_FILE_BYTES, &buf, &len, NULL, d) ==
	    -1) {
		*moved = errno == ENOENT;
		return NULL;
	}
	dbp_hash_hex(buf, len, got);
	if (hash == NULL || strcmp(got, hash) != 0) {
		free(buf);
		*moved = 1;
		dbp_fail(d, "'%s': the file changed on disk since it was "
		    "indexed; if it stays so, run dbprint-index --full", abs);
		return NULL;
	}
	doc = dbp_ydoc_parse(buf, len, d);
	free(buf);
	if (doc != NULL)
		rf_strip_sketch(doc);
	return doc;
}

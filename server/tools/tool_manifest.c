/*
 * tool_manifest.c - get_manifest (MCP spec 4.4): the parsed manifest.yaml
 * as JSON, from the index's parsed copy of the file.
 *
 * Every top-level key but tables rides the first page whole, in file
 * order, with failed_tables (filtered by pattern) last among them; then
 * the tables map - walkable entries only, filtered by pattern, in FQN
 * order - is paged, and total counts the entries pattern matched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* The manifest's own failure, as the tools report it (spec 8.2): absent,
 * unparseable or of the wrong shape.  0 when the document is usable, with
 * *doc set (cJSON_Delete it); else -1 with the call failed. */
static int
mf_doc(struct call *c, cJSON **doc)
{
	struct srv_file f;
	struct dbp_diag d;
	int rc;

	*doc = NULL;
	rc = srv_file_get(c->conn, "manifest.yaml", &f, &d);
	if (rc == -1)
		return call_fail(c, "%s", d.msg);
	if (rc == 1 || strcmp(f.status, "absent") == 0) {
		srv_file_release(&f);
		return call_fail(c, "manifest references manifest.yaml but "
		    "file is absent at %s/manifest.yaml. Re-run dbprint "
		    "generate.", c->conn->conf->print_root);
	}
	if (strcmp(f.status, "ok") != 0 || f.doc == NULL) {
		rc = call_fail(c, "%s", f.error != NULL ? f.error :
		    "manifest.yaml could not be read");
		srv_file_release(&f);
		return rc;
	}
	*doc = srv_json_parse(f.doc, strlen(f.doc));
	srv_file_release(&f);
	if (!cJSON_IsObject(*doc)) {
		cJSON_Delete(*doc);
		*doc = NULL;
		return call_fail(c, "%s/manifest.yaml: expected a mapping",
		    c->conn->conf->print_root);
	}
	return 0;
}

/* 1 when the entry fqn can be walked: the index says so when it knows
 * the table (st: SELECT walkable ... WHERE fqn = ?); otherwise the entry
 * must be a mapping whose path, if any, is a string. */
static int
mf_walkable(sqlite3_stmt *st, const char *fqn, const cJSON *entry)
{
	const cJSON *path;
	int w = -1;

	if (st != NULL) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, fqn, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW)
			w = sqlite3_column_int(st, 0);
	}
	if (w != -1)
		return w;
	if (!cJSON_IsObject(entry))
		return 0;
	path = cJSON_GetObjectItemCaseSensitive(entry, "path");
	return path == NULL || cJSON_IsString(path);
}

static int
mf_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a;
	const cJSON *y = *(const cJSON *const *)b;

	return strcmp(x->string, y->string);
}

/* The tables map as page_list pages it: the entries in FQN order as an
 * array, and their names beside it. */
struct mf_map {
	cJSON		*items;		/* entry values, FQN order */
	const char	**names;	/* borrowed from the document */
	size_t		 n;
};

/* Fill m with the walkable entries of tables matching pattern, sorted by
 * FQN.  0, or -1 on OOM. */
static int
mf_tables(struct call *c, const cJSON *tables, const char *pattern,
    struct mf_map *m)
{
	static const char sql[] = "SELECT walkable FROM tables WHERE fqn = ?";
	sqlite3_stmt *st = NULL;
	const cJSON **v = NULL;
	const cJSON *e;
	size_t n = 0, i;

	memset(m, 0, sizeof(*m));
	if ((m->items = cJSON_CreateArray()) == NULL)
		return -1;
	if (!cJSON_IsObject(tables))
		return 0;
	for (e = tables->child; e != NULL; e = e->next)
		n++;
	if (n == 0)
		return 0;
	if ((v = calloc(n, sizeof(*v))) == NULL ||
	    (m->names = calloc(n, sizeof(*m->names))) == NULL) {
		free(v);
		return -1;
	}
	if (sqlite3_prepare_v2(c->conn->db, sql, -1, &st, NULL) != SQLITE_OK)
		st = NULL;
	n = 0;
	for (e = tables->child; e != NULL; e = e->next) {
		if (pattern != NULL && !dbp_fnmatch(pattern, e->string))
			continue;
		if (!mf_walkable(st, e->string, e))
			continue;
		v[n++] = e;
	}
	sqlite3_finalize(st);
	qsort(v, n, sizeof(*v), mf_cmp);
	for (i = 0; i < n; i++) {
		m->names[i] = v[i]->string;
		cJSON_AddItemToArray(m->items, cJSON_Duplicate(v[i], 1));
	}
	m->n = n;
	free(v);
	return 0;
}

static void
mf_map_release(struct mf_map *m)
{
	cJSON_Delete(m->items);
	free(m->names);
	memset(m, 0, sizeof(*m));
}

/* page_list's after hook: turn the page's "tables" list back into the
 * map it came from, each entry (or its part, for an entry larger than a
 * page) under its FQN.  It runs while pages are measured too, so the
 * bound holds for the map form. */
static void
mf_as_map(void *ctx, cJSON *page, size_t first, size_t count)
{
	const struct mf_map *m = ctx;
	cJSON *arr, *obj, *it;
	size_t i = first;

	(void)count;
	arr = cJSON_GetObjectItemCaseSensitive(page, "tables");
	if (!cJSON_IsArray(arr) || (obj = cJSON_CreateObject()) == NULL)
		return;
	while ((it = arr->child) != NULL && i < m->n) {
		cJSON_DetachItemViaPointer(arr, it);
		srv_json_put(obj, m->names[i++], it);
	}
	cJSON_ReplaceItemInObjectCaseSensitive(page, "tables", obj);
}

/* failed_tables filtered by pattern: string entries that match (every
 * entry when there is no pattern).  A value that is not a list is kept
 * as it is when there is no pattern. */
static cJSON *
mf_failed(const cJSON *failed, const char *pattern)
{
	const cJSON *e;
	cJSON *out;

	if (!cJSON_IsArray(failed))
		return pattern == NULL ? cJSON_Duplicate(failed, 1) : NULL;
	if ((out = cJSON_CreateArray()) == NULL)
		return NULL;
	cJSON_ArrayForEach(e, failed) {
		if (pattern != NULL && (!cJSON_IsString(e) ||
		    !dbp_fnmatch(pattern, e->valuestring)))
			continue;
		cJSON_AddItemToArray(out, cJSON_Duplicate(e, 1));
	}
	return out;
}

int
tool_get_manifest(struct call *c)
{
	struct page_list l;
	const cJSON *pat, *e, *failed = NULL, *tables = NULL;
	const char *pattern = NULL;
	struct mf_map map;
	cJSON *doc = NULL, *head = NULL, *ft;
	size_t pos;
	int rc = -1;

	memset(&map, 0, sizeof(map));
	pat = cJSON_GetObjectItemCaseSensitive(c->args, "pattern");
	if (cJSON_IsString(pat))
		pattern = pat->valuestring;
	if (call_pin1(c, "manifest.yaml") == -1)
		return -1;
	if (mf_doc(c, &doc) == -1)
		return -1;
	if (call_position(c, &pos) == -1)
		goto out;
	if ((head = cJSON_CreateObject()) == NULL)
		goto oom;
	for (e = doc->child; e != NULL; e = e->next) {
		if (strcmp(e->string, "tables") == 0)
			tables = e;
		else if (strcmp(e->string, "failed_tables") == 0)
			failed = e;
		else
			srv_json_put(head, e->string,
			    cJSON_Duplicate(e, 1));
	}
	if (failed != NULL) {
		ft = mf_failed(failed, pattern);
		if (ft != NULL && cJSON_IsArray(ft) && ft->child == NULL)
			cJSON_Delete(ft);	/* empty: omitted */
		else if (ft != NULL)
			srv_json_put(head, "failed_tables", ft);
	}
	if (mf_tables(c, tables, pattern, &map) == -1)
		goto oom;
	memset(&l, 0, sizeof(l));
	l.head = head;
	l.key[0] = "tables";
	l.items[0] = map.items;
	l.empty_on_first[0] = 1;
	l.after = mf_as_map;
	l.ctx = &map;
	rc = page_list(c, &l, pos);
	goto out;
oom:
	rc = call_fail(c, "out of memory");
out:
	mf_map_release(&map);
	cJSON_Delete(head);
	cJSON_Delete(doc);
	return rc;
}

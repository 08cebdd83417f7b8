/*
 * tool_manifest.c - get_manifest (MCP spec 4.4): the parsed manifest.yaml
 * as JSON, from the index's parsed copy of the file.
 *
 * Every top-level key but tables rides the first page whole, in file
 * order, with failed_tables (filtered by pattern) last among them; then
 * the tables map - walkable entries only, filtered by pattern, in FQN
 * order - is paged, and total counts the entries pattern matched.
 *
 * A page costs what it shows, whatever the manifest's size (30 MB at
 * 100,000 tables): the header is the indexed document, whose tables
 * member the index writes as {} (schema 11), kept per index handle
 * while the index does not change; the entries are the tables rows' own
 * JSON, walked in FQN order over the pattern's literal prefix (a leading
 * glob walks every FQN).
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* The header's text is kept per index handle under this key. */
static const char mf_kept_key = 0;

/* The manifest's own failure, as the tools report it (spec 8.2): absent,
 * unparseable or of the wrong shape.  0 when the document is usable, with
 * *doc set to it without its tables member (cJSON_Delete it); else -1
 * with the call failed. */
static int
mf_doc(struct call *c, cJSON **doc)
{
	struct srv_file f;
	struct dbp_diag d;
	cJSON *whole, *t;
	char *status, *error;
	int rc;

	/* kept at this version of the index, the manifest was read then */
	if ((*doc = ans_kept_head(c, &mf_kept_key)) != NULL)
		return 0;
	if ((rc = ans_file_state(c->conn, "manifest.yaml", &status, &error)) ==
	    -1)
		return call_fail(c, "index read failed: %s",
		    sqlite3_errmsg(c->conn->db));
	if (rc == 1 || strcmp(status, "absent") == 0) {
		free(status);
		free(error);
		return call_fail(c, "manifest references manifest.yaml but "
		    "file is absent at %s/manifest.yaml. Re-run dbprint "
		    "generate.", c->conn->conf->print_root);
	}
	if (strcmp(status, "ok") != 0) {
		rc = call_fail(c, "%s", error != NULL ? error :
		    "manifest.yaml could not be read");
		free(status);
		free(error);
		return rc;
	}
	free(status);
	free(error);
	if ((rc = ans_head(c, &mf_kept_key, "manifest.yaml", "tables", doc)) !=
	    1)
		return rc;
	rc = srv_file_get(c->conn, "manifest.yaml", &f, &d);
	if (rc == -1)
		return call_fail(c, "%s", d.msg);
	if (rc == 1 || f.doc == NULL) {
		srv_file_release(&f);
		return call_fail(c, "manifest.yaml could not be read");
	}
	/* not the object the index writes: read it whole */
	whole = srv_json_parse(f.doc, strlen(f.doc));
	if (cJSON_IsObject(whole)) {
		t = cJSON_DetachItemFromObjectCaseSensitive(whole, "tables");
		cJSON_Delete(t);
		*doc = whole;
	} else
		cJSON_Delete(whole);
	srv_file_release(&f);
	if (*doc == NULL)
		return call_fail(c, "%s/manifest.yaml: expected a mapping",
		    c->conn->conf->print_root);
	return 0;
}

/*
 * The tables map, paged from the index: the walkable entries (the index
 * judged each when it wrote its tables row) matching the pattern, in FQN
 * order, each entry the row's own JSON (tables.entry, spelt as files.doc
 * spells the manifest).  item() steps one statement from the page's
 * first entry; after() turns the page's list back into the map it came
 * from, each entry under its FQN.
 */
struct mf_walk {
	struct call	*c;
	const char	*pattern;	/* NULL: every entry */
	char		*lo, *hi;	/* its literal prefix's FQN range
					 * (ans_prefix_range; hi NULL: open) */
	int		 exact;		/* the range is the answer */
	sqlite3_stmt	*st;
	size_t		 next;		/* the entry st's next match is */
	size_t		 base;		/* the first item asked */
	char		**names;	/* of items base, base + 1, ... */
	size_t		 nnames, cap;
	int		 failed;
};

static const char mf_sql_walk[] =
    "SELECT fqn, entry FROM tables WHERE walkable = 1 AND fqn >= ?1 "
    "AND fqn < ?2 ORDER BY fqn LIMIT -1 OFFSET ?3";
static const char mf_sql_walk_open[] =
    "SELECT fqn, entry FROM tables WHERE walkable = 1 AND fqn >= ?1 "
    "ORDER BY fqn LIMIT -1 OFFSET ?3";

/* A statement over the pattern's FQN range; NULL with c's error set. */
static sqlite3_stmt *
mf_range(struct mf_walk *m, const char *sql, const char *sql_open)
{
	sqlite3_stmt *st;

	st = srv_stmt(m->c->conn, m->hi != NULL ? sql : sql_open);
	if (st == NULL) {
		call_fail(m->c, "index read failed: %s",
		    sqlite3_errmsg(m->c->conn->db));
		return NULL;
	}
	sqlite3_bind_text(st, 1, m->lo, -1, SQLITE_STATIC);
	if (m->hi != NULL)
		sqlite3_bind_text(st, 2, m->hi, -1, SQLITE_STATIC);
	return st;
}

/* How many entries the map pages: *n.  0, or -1 with c's error set. */
static int
mf_count(struct mf_walk *m, size_t *n)
{
	sqlite3_stmt *st;
	const char *fqn;
	int rc;

	*n = 0;
	if (m->exact && m->hi == NULL && m->lo[0] == '\0')
		st = srv_stmt(m->c->conn, ans_sql_count_all);
	else if (m->exact)
		st = mf_range(m, ans_sql_count, ans_sql_count_open);
	else if ((st = mf_range(m, mf_sql_walk, mf_sql_walk_open)) != NULL)
		sqlite3_bind_int64(st, 3, 0);
	if (st == NULL)
		return call_fail(m->c, "index read failed: %s",
		    sqlite3_errmsg(m->c->conn->db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->exact) {
			*n = (size_t)sqlite3_column_int64(st, 0);
			continue;
		}
		fqn = (const char *)sqlite3_column_text(st, 0);
		if (fqn != NULL && dbp_fnmatch(m->pattern, fqn))
			(*n)++;
	}
	srv_stmt_done(m->c->conn, st);
	if (rc != SQLITE_DONE)
		return call_fail(m->c, "index read failed: %s",
		    sqlite3_errmsg(m->c->conn->db));
	return 0;
}

static cJSON *
mf_item(void *ctx, size_t i)
{
	struct mf_walk *m = ctx;
	const char *fqn, *entry;
	char **grown;

	if (m->st == NULL) {
		if ((m->st = mf_range(m, mf_sql_walk, mf_sql_walk_open)) ==
		    NULL)
			return NULL;
		/* in an exact range the i-th entry is the i-th row */
		sqlite3_bind_int64(m->st, 3, m->exact ? (sqlite3_int64)i : 0);
		m->next = m->exact ? i : 0;
		m->base = i;
	}
	if (ans_walk_to(m->c, m->st, m->pattern, m->exact, &m->next, i) != 0)
		return NULL;
	fqn = (const char *)sqlite3_column_text(m->st, 0);
	if (m->nnames == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		if ((grown = realloc(m->names, m->cap * sizeof(*grown))) ==
		    NULL)
			return NULL;
		m->names = grown;
	}
	if ((m->names[m->nnames] = strdup(fqn)) == NULL)
		return NULL;
	m->nnames++;
	entry = (const char *)sqlite3_column_text(m->st, 1);
	return entry != NULL ? srv_json_parse(entry,
	    (size_t)sqlite3_column_bytes(m->st, 1)) : cJSON_CreateNull();
}

/* page_window's after hook: turn the page's "tables" list back into the
 * map it came from, each entry (or its part, for an entry larger than a
 * page) under its FQN.  It runs while pages are measured too, so the
 * bound holds for the map form. */
static void
mf_as_map(void *ctx, cJSON *page, size_t first, size_t count)
{
	struct mf_walk *m = ctx;
	cJSON *arr, *obj, *it;
	size_t i;

	(void)count;
	arr = cJSON_GetObjectItemCaseSensitive(page, "tables");
	if (!cJSON_IsArray(arr) || (obj = cJSON_CreateObject()) == NULL)
		return;
	for (i = first; (it = arr->child) != NULL; i++) {
		if (i < m->base || i - m->base >= m->nnames) {
			m->failed = 1;	/* cannot happen: asked in order */
			break;
		}
		cJSON_DetachItemViaPointer(arr, it);
		srv_json_put(obj, m->names[i - m->base], it);
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
	struct page_src ps;
	struct mf_walk m;
	const cJSON *pat, *e, *failed = NULL;
	cJSON *doc = NULL, *head = NULL, *ft;
	size_t pos, total = 0, i;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	m.c = c;
	pat = cJSON_GetObjectItemCaseSensitive(c->args, "pattern");
	if (cJSON_IsString(pat))
		m.pattern = pat->valuestring;
	if (call_pin1(c, "manifest.yaml") == -1)
		return -1;
	if (mf_doc(c, &doc) == -1)
		return -1;
	if (call_position(c, &pos) == -1)
		goto out;
	if ((head = cJSON_CreateObject()) == NULL)
		goto oom;
	for (e = doc->child; e != NULL; e = e->next) {
		if (strcmp(e->string, "failed_tables") == 0)
			failed = e;
		else
			srv_json_put(head, e->string,
			    cJSON_Duplicate(e, 1));
	}
	if (failed != NULL) {
		ft = mf_failed(failed, m.pattern);
		if (ft != NULL && cJSON_IsArray(ft) && ft->child == NULL)
			cJSON_Delete(ft);	/* empty: omitted */
		else if (ft != NULL)
			srv_json_put(head, "failed_tables", ft);
	}
	if (ans_prefix_range(m.pattern != NULL ? m.pattern : "*", &m.lo,
	    &m.hi) == -1)
		goto oom;
	m.exact = m.pattern == NULL ||
	    strcmp(m.pattern + strlen(m.lo), "*") == 0;
	if (mf_count(&m, &total) == -1)
		goto out;
	memset(&ps, 0, sizeof(ps));
	ps.head = head;
	ps.key[0] = "tables";
	ps.empty_on_first[0] = 1;
	ps.count[0] = total;
	ps.item = mf_item;
	ps.after = mf_as_map;
	ps.ctx = &m;
	rc = page_window(c, &ps, pos);
	if (rc == 0 && m.failed)
		rc = call_fail(c, "out of memory");
	goto out;
oom:
	rc = call_fail(c, "out of memory");
out:
	srv_stmt_done(c->conn, m.st);
	for (i = 0; i < m.nnames; i++)
		free(m.names[i]);
	free(m.names);
	free(m.lo);
	free(m.hi);
	cJSON_Delete(head);
	cJSON_Delete(doc);
	return rc;
}

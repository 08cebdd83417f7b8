/*
 * tool_list_tables.c - list_tables (spec 4.2): the walkable manifest
 * entries whose FQN matches an fnmatch glob, in code point order, with
 * the manifest's failed_tables beside them on the first page; detail adds
 * each entry's projected fields and its freshness verdict.
 *
 * Answered from the index's tables and failed_tables rows; the reply
 * depends on manifest.yaml alone, so that is the one file pinned.  The
 * glob's literal prefix narrows the scan to a key range of the primary
 * key; dbp_fnmatch decides every match, so the result is exactly
 * Python's fnmatchcase over every walkable FQN.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "answer.h"

/* What the after() hook needs to name a page's size-gated tables. */
struct lt_ctx {
	const char	*connection;
	const char	**names;	/* per item: its FQN (borrowed) */
	unsigned char	*gated;		/* per item */
	size_t		 n;
	int		 failed;
};

/* The literal prefix of an fnmatch pattern (before any * ? or [), and
 * the least string above every string that starts with it (NULL when
 * there is none).  Both malloc'd. */
static int
lt_prefix_range(const char *pat, char **lo, char **hi)
{
	size_t n = strcspn(pat, "*?[");

	*hi = NULL;
	if ((*lo = strndup(pat, n)) == NULL)
		return -1;
	while (n > 0 && (unsigned char)pat[n - 1] == 0xff)
		n--;
	if (n == 0)
		return 0;
	if ((*hi = strndup(pat, n)) == NULL)
		return -1;
	(*hi)[n - 1] = (char)((unsigned char)(*hi)[n - 1] + 1);
	return 0;
}

/* A JSON spelling column (the -> operator's result) as a cJSON node;
 * SQL NULL (absent) gives NULL with *absent set. */
static cJSON *
lt_json_col(sqlite3_stmt *st, int i, int *absent)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	*absent = t == NULL;
	return t == NULL ? cJSON_CreateNull() : tm_json(t);
}

static void
lt_after(void *ctx, cJSON *page, size_t first, size_t count)
{
	struct lt_ctx *x = ctx;
	const char **names;
	cJSON *w;
	char *s;
	size_t i, n = 0;

	if ((names = calloc(count + 1, sizeof(*names))) == NULL) {
		x->failed = 1;
		return;
	}
	for (i = first; i < first + count && i < x->n; i++)
		if (x->gated[i])
			names[n++] = x->names[i];
	if (n > 0) {
		if ((s = fresh_warning(x->connection, names, n)) == NULL ||
		    (w = cJSON_AddArrayToObject(page, "warnings")) == NULL) {
			free(s);
			x->failed = 1;
		} else {
			cJSON_AddItemToArray(w, cJSON_CreateString(s));
			free(s);
		}
	}
	free(names);
}

/* A projected field: the typed column i when set, else the entry's own
 * value (the JSON spelling in column j, SQL NULL when the entry has no
 * such key, *absent then set). */
static cJSON *
lt_field(sqlite3_stmt *st, int i, int j, int *absent)
{
	*absent = 0;
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return tm_int_node(sqlite3_column_int64(st, i));
	case SQLITE_TEXT:
		return cJSON_CreateString((const char *)
		    sqlite3_column_text(st, i));
	default:
		return lt_json_col(st, j, absent);
	}
}

/* One detailed entry from a row of the detail query. */
static cJSON *
lt_detail(struct call *c, sqlite3_stmt *st, double now, int *gated)
{
	struct fresh_threshold th;
	const char *fqn = (const char *)sqlite3_column_text(st, 0);
	const char *type = (const char *)sqlite3_column_text(st, 1);
	cJSON *item, *v;
	int absent, has_rows, r = -1;

	*gated = 0;
	if ((item = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(item, "table", fqn);
	cJSON_AddItemToObject(item, "type", lt_field(st, 1, 6, &absent));
	v = lt_field(st, 2, 7, &absent);
	has_rows = !absent && v != NULL && !cJSON_IsNull(v);
	/* spec 4.2: row_count is absent where the entry has none (a plain
	 * view), as in the manifest itself */
	if (absent)
		cJSON_Delete(v);
	else
		cJSON_AddItemToObject(item, "row_count", v);
	cJSON_AddItemToObject(item, "columns", lt_field(st, 3, 8, &absent));
	cJSON_AddItemToObject(item, "profiled_at", lt_json_col(st, 4,
	    &absent));
	if (fresh_threshold(c->conn->conf, fqn, type, has_rows,
	    (const char *)sqlite3_column_text(st, 5), &th) == 0) {
		r = fresh_verdict(item, (const char *)sqlite3_column_text(st, 4),
		    &th, now);
		*gated = !th.refused && th.gated;
	}
	free(th.error);
	if (r == -1) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

/* failed_tables matching pat, sorted; NULL on error (c set). */
static cJSON *
lt_failed(struct call *c, const char *pat)
{
	static const char sql[] =
	    "SELECT fqn FROM failed_tables ORDER BY fqn, ord";
	sqlite3_stmt *st = NULL;
	cJSON *arr;
	const char *f;
	int rc;

	if ((arr = cJSON_CreateArray()) == NULL ||
	    sqlite3_prepare_v2(c->conn->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f = (const char *)sqlite3_column_text(st, 0);
		if (f != NULL && dbp_fnmatch(pat, f))
			cJSON_AddItemToArray(arr, cJSON_CreateString(f));
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return arr;
fail:
	call_fail(c, "index read failed: %s", sqlite3_errmsg(c->conn->db));
	sqlite3_finalize(st);
	cJSON_Delete(arr);
	return NULL;
}

int
tool_list_tables(struct call *c)
{
	static const char sql[] =
	    "SELECT fqn, type, row_count, columns, profiled_at, max_age_days, "
	    "CASE WHEN type IS NULL THEN entry -> '$.type' END, "
	    "CASE WHEN row_count IS NULL THEN entry -> '$.row_count' END, "
	    "CASE WHEN columns IS NULL THEN entry -> '$.columns' END "
	    "FROM tables WHERE walkable = 1 AND fqn >= ?1 "
	    "AND (?2 IS NULL OR fqn < ?2) ORDER BY fqn";
	static const char sql_bare[] =
	    "SELECT fqn FROM tables WHERE walkable = 1 AND fqn >= ?1 "
	    "AND (?2 IS NULL OR fqn < ?2) ORDER BY fqn";
	const cJSON *a;
	const char *pat = "*", *fqn;
	struct page_list pl;
	struct lt_ctx x;
	sqlite3_stmt *st = NULL;
	cJSON *items = NULL, *head = NULL, *failed = NULL, *item;
	unsigned char *gated = NULL;
	const char **names = NULL;
	size_t pos, n = 0, cap = 0;
	char *lo = NULL, *hi = NULL, nowbuf[32], *mst = NULL, *merr = NULL;
	int detail = 0, r = -1, rc, g;
	time_t now = time(NULL);
	struct tm tmv;

	a = cJSON_GetObjectItemCaseSensitive(c->args, "pattern");
	if (cJSON_IsString(a))
		pat = a->valuestring;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "detail");
	detail = cJSON_IsTrue(a);
	if (call_pin1(c, "manifest.yaml") == -1 ||
	    call_position(c, &pos) == -1)
		return -1;
	memset(&x, 0, sizeof(x));
	if ((items = cJSON_CreateArray()) == NULL ||
	    (head = cJSON_CreateObject()) == NULL)
		goto oom;
	rc = ans_file_state(c->conn, "manifest.yaml", &mst, &merr);
	if (rc == -1)
		goto dberr;
	if (rc == 0 && strcmp(mst, "ok") != 0 && strcmp(mst, "absent") != 0) {
		call_fail(c, "%s", merr != NULL ? merr :
		    "manifest.yaml could not be read");
		goto out;
	}
	if (rc == 0 && strcmp(mst, "absent") == 0)
		goto reply;	/* an absent manifest lists nothing (3.1) */
	if ((failed = lt_failed(c, pat)) == NULL)
		goto out;
	if (cJSON_GetArraySize(failed) > 0) {
		cJSON_AddItemToObject(head, "failed_tables", failed);
		failed = NULL;
	}
	if (detail) {
		gmtime_r(&now, &tmv);
		strftime(nowbuf, sizeof(nowbuf), "%Y-%m-%dT%H:%M:%SZ", &tmv);
		cJSON_AddStringToObject(head, "now", nowbuf);
	}
	if (lt_prefix_range(pat, &lo, &hi) == -1)
		goto oom;
	if (sqlite3_prepare_v2(c->conn->db, detail ? sql : sql_bare, -1, &st,
	    NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, lo, -1, SQLITE_STATIC);
	if (hi != NULL)
		sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fqn = (const char *)sqlite3_column_text(st, 0);
		if (fqn == NULL || !dbp_fnmatch(pat, fqn))
			continue;
		g = 0;
		if (detail)
			item = lt_detail(c, st, (double)now, &g);
		else
			item = cJSON_CreateString(fqn);
		if (item == NULL)
			goto oom;
		cJSON_AddItemToArray(items, item);
		if (n == cap) {
			unsigned char *ng;
			const char **nn;

			cap = cap == 0 ? 256 : cap * 2;
			if ((ng = realloc(gated, cap)) == NULL)
				goto oom;
			gated = ng;
			if ((nn = realloc(names, cap * sizeof(*nn))) == NULL)
				goto oom;
			names = nn;
		}
		/* the item's own copy of the FQN outlives the row */
		names[n] = detail ? cJSON_GetObjectItemCaseSensitive(item,
		    "table")->valuestring : item->valuestring;
		gated[n++] = (unsigned char)g;
	}
	if (rc != SQLITE_DONE)
		goto dberr;
reply:
	memset(&pl, 0, sizeof(pl));
	pl.head = head;
	pl.key[0] = "tables";
	pl.empty_on_first[0] = 1;
	pl.items[0] = items;
	if (detail) {
		x.connection = c->conn->conf->name;
		x.names = names;
		x.gated = gated;
		x.n = n;
		pl.after = lt_after;
		pl.ctx = &x;
	}
	r = page_list(c, &pl, pos);
	if (r == 0 && x.failed) {
		r = call_fail(c, "out of memory");
	}
	goto out;
oom:
	call_fail(c, "out of memory");
	goto out;
dberr:
	call_fail(c, "index read failed: %s", sqlite3_errmsg(c->conn->db));
out:
	sqlite3_finalize(st);
	cJSON_Delete(items);
	cJSON_Delete(head);
	cJSON_Delete(failed);
	free(gated);
	free(names);
	free(lo);
	free(hi);
	free(mst);
	free(merr);
	return r;
}

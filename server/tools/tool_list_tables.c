/*
 * tool_list_tables.c - list_tables (spec 4.2): the walkable manifest
 * entries whose FQN matches an fnmatch glob, in code point order, with
 * the manifest's failed_tables beside them on the first page; detail adds
 * each entry's projected fields and its freshness verdict.
 *
 * Answered from the index's tables and failed_tables rows; the reply
 * depends on manifest.yaml alone, so that is the one file pinned.  A page
 * is a window (page_window): total is counted in SQL and only the page's
 * own rows are read and projected.  The glob's literal prefix narrows
 * every scan to a key range of the tables_walkable index; when the glob
 * is that prefix and a final '*', the range is the answer, so COUNT and
 * OFFSET run in SQL alone; otherwise dbp_fnmatch decides each row of the
 * range, so the result is exactly Python's fnmatchcase over every
 * walkable FQN.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "answer.h"

/* The scans over walkable FQNs, with and without an upper bound (?2);
 * ?1 is the lower bound, and ?3 an OFFSET where the range is exact. */
static const char lt_sql_walk[] =
    "SELECT fqn FROM tables WHERE walkable = 1 AND fqn >= ?1 "
    "AND fqn < ?2 ORDER BY fqn LIMIT -1 OFFSET ?3";
static const char lt_sql_walk_open[] =
    "SELECT fqn FROM tables WHERE walkable = 1 AND fqn >= ?1 "
    "ORDER BY fqn LIMIT -1 OFFSET ?3";
/* The projected fields of one entry. */
static const char lt_sql_detail[] =
    "SELECT fqn, type, row_count, columns, profiled_at, max_age_days, "
    "CASE WHEN type IS NULL THEN entry -> '$.type' END, "
    "CASE WHEN row_count IS NULL THEN entry -> '$.row_count' END, "
    "CASE WHEN columns IS NULL THEN entry -> '$.columns' END "
    "FROM tables WHERE fqn = ?1";

/* One list_tables call: its pattern, scans and what after() needs. */
struct lt {
	struct call	*c;
	const char	*pat;
	int		 detail;
	int		 exact;		/* the key range is the match */
	char		*lo, *hi;	/* the key range; hi NULL: open */
	double		 now;
	sqlite3_stmt	*walk;		/* taken at the first item */
	sqlite3_stmt	*row;		/* detail: one entry */
	/* (both kept statements of the handle: srv_stmt) */
	size_t		 next;		/* the index walk yields next */
	/* Per item from base (detail): its FQN and gate, for lt_after. */
	size_t		 base;
	char		**names;
	unsigned char	*gated;
	size_t		 n, cap;
	int		 failed;
	struct lt_chunk	*chunks;	/* the bare items' FQNs */
	struct lt_nodes	*nodes;		/* the bare items' nodes */
};

/* Storage for the FQNs of bare items: a string node references its
 * copy here. */
#define LT_CHUNK	16384
struct lt_chunk {
	struct lt_chunk	*next;
	size_t		 used, size;
	char		 text[];
};

/* Storage for the bare items' string nodes, lent to the page engine
 * (page_src.borrowed): a page's items cost no allocation of their own. */
#define LT_NODES	256
struct lt_nodes {
	struct lt_nodes	*next;
	size_t		 used;
	cJSON		 node[LT_NODES];
};

/* A string node referencing s (which outlives it), from x's storage;
 * freed with the call's lt.  NULL on OOM. */
static cJSON *
lt_node(struct lt *x, const char *s)
{
	struct lt_nodes *nb = x->nodes;
	cJSON *n;

	if (nb == NULL || nb->used == LT_NODES) {
		if ((nb = malloc(sizeof(*nb))) == NULL)
			return NULL;
		nb->next = x->nodes;
		nb->used = 0;
		x->nodes = nb;
	}
	n = &nb->node[nb->used++];
	memset(n, 0, sizeof(*n));
	/* what cJSON_CreateStringReference makes */
	n->type = cJSON_String | cJSON_IsReference;
	n->valuestring = (char *)(uintptr_t)s;
	return n;
}

/* A copy of the n bytes of s (NUL added) in x's chunks; NULL on OOM. */
static char *
lt_keep(struct lt *x, const char *s, size_t n)
{
	struct lt_chunk *ch = x->chunks;
	size_t size;
	char *p;

	if (ch == NULL || ch->size - ch->used < n + 1) {
		size = n + 1 > LT_CHUNK ? n + 1 : LT_CHUNK;
		if ((ch = malloc(sizeof(*ch) + size)) == NULL)
			return NULL;
		ch->next = x->chunks;
		ch->used = 0;
		ch->size = size;
		x->chunks = ch;
	}
	p = ch->text + ch->used;
	memcpy(p, s, n);
	p[n] = '\0';
	ch->used += n + 1;
	return p;
}

/* Fail the call with the index's message; returns NULL for item(). */
static cJSON *
lt_dberr(struct lt *x)
{
	call_fail(x->c, "index read failed: %s",
	    sqlite3_errmsg(x->c->conn->db));
	return NULL;
}

/* Add v to o under key; v is freed when it cannot be added.  0 or -1. */
static int
lt_add(cJSON *o, const char *key, cJSON *v)
{
	if (v == NULL)
		return -1;
	if (!cJSON_AddItemToObject(o, key, v)) {
		cJSON_Delete(v);
		return -1;
	}
	return 0;
}

/* A JSON spelling column (the -> operator's result) as a cJSON node;
 * SQL NULL (absent) gives a JSON null with *absent set.  NULL on OOM. */
static cJSON *
lt_json_col(sqlite3_stmt *st, int i, int *absent)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	*absent = t == NULL;
	return t == NULL ? cJSON_CreateNull() : tm_json(t);
}

/* A projected field: the typed column i when set, else the entry's own
 * value (the JSON spelling in column j, SQL NULL when the entry has no
 * such key, *absent then set).  NULL on OOM. */
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

/* One detailed entry from the detail row in st; *gated set when its
 * threshold skipped a min_rows rule.  NULL on OOM. */
static cJSON *
lt_detail(struct lt *x, sqlite3_stmt *st, int *gated)
{
	struct fresh_threshold th;
	const char *fqn = (const char *)sqlite3_column_text(st, 0);
	const char *type = (const char *)sqlite3_column_text(st, 1);
	cJSON *item, *v;
	int absent, has_rows, r = -1;

	*gated = 0;
	if ((item = cJSON_CreateObject()) == NULL)
		return NULL;
	if (cJSON_AddStringToObject(item, "table", fqn) == NULL ||
	    lt_add(item, "type", lt_field(st, 1, 6, &absent)) != 0)
		goto fail;
	if ((v = lt_field(st, 2, 7, &absent)) == NULL)
		goto fail;
	has_rows = !absent && !cJSON_IsNull(v);
	/* spec 4.2: row_count is absent where the entry has none (a plain
	 * view), as in the manifest itself */
	if (absent)
		cJSON_Delete(v);
	else if (lt_add(item, "row_count", v) != 0)
		goto fail;
	if (lt_add(item, "columns", lt_field(st, 3, 8, &absent)) != 0 ||
	    lt_add(item, "profiled_at", lt_json_col(st, 4, &absent)) != 0)
		goto fail;
	memset(&th, 0, sizeof(th));
	if (fresh_threshold(x->c->conn->conf, fqn, type, has_rows,
	    (const char *)sqlite3_column_text(st, 5), &th) == 0) {
		r = fresh_verdict(item, (const char *)sqlite3_column_text(st,
		    4), &th, x->now);
		*gated = !th.refused && th.gated;
	}
	free(th.error);
	if (r == -1)
		goto fail;
	return item;
fail:
	cJSON_Delete(item);
	return NULL;
}

/* Remember item i's FQN and gate for lt_after.  0 or -1. */
static int
lt_note(struct lt *x, size_t i, const char *fqn, int gated)
{
	unsigned char *ng;
	char **nn;
	size_t cap;

	if (x->n == 0)
		x->base = i;
	if (x->n == x->cap) {
		cap = x->cap ? x->cap * 2 : 64;
		if ((ng = realloc(x->gated, cap)) == NULL)
			return -1;
		x->gated = ng;
		if ((nn = realloc(x->names, cap * sizeof(*nn))) == NULL)
			return -1;
		x->names = nn;
		x->cap = cap;
	}
	if ((x->names[x->n] = strdup(fqn)) == NULL)
		return -1;
	x->gated[x->n++] = (unsigned char)gated;
	return 0;
}

/* Prepare the walk so that its next row is the exact range's row i, or
 * the range's first row for a glob matched in C. */
static int
lt_walk(struct lt *x, size_t i)
{
	x->walk = srv_stmt(x->c->conn, x->hi != NULL ? lt_sql_walk :
	    lt_sql_walk_open);
	if (x->walk == NULL)
		return -1;
	sqlite3_bind_text(x->walk, 1, x->lo, -1, SQLITE_STATIC);
	if (x->hi != NULL)
		sqlite3_bind_text(x->walk, 2, x->hi, -1, SQLITE_STATIC);
	sqlite3_bind_int64(x->walk, 3, x->exact ? (sqlite3_int64)i : 0);
	x->next = x->exact ? i : 0;
	return 0;
}

/* page_window's item(): the i-th matching walkable entry. */
static cJSON *
lt_item(void *ctx, size_t i)
{
	struct lt *x = ctx;
	const char *fqn;
	cJSON *item;
	int gated = 0;

	if (x->walk == NULL && lt_walk(x, i) != 0)
		return lt_dberr(x);
	if (ans_walk_to(x->c, x->walk, x->pat, x->exact, &x->next, i) != 0)
		return NULL;
	fqn = (const char *)sqlite3_column_text(x->walk, 0);
	if (!x->detail) {
		/* the node outlives the row: it references a kept copy */
		fqn = lt_keep(x, fqn, strlen(fqn));
		return fqn != NULL ? lt_node(x, fqn) : NULL;
	}
	if (x->row == NULL &&
	    (x->row = srv_stmt(x->c->conn, lt_sql_detail)) == NULL)
		return lt_dberr(x);
	sqlite3_reset(x->row);
	sqlite3_bind_text(x->row, 1, fqn, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(x->row) != SQLITE_ROW)
		return lt_dberr(x);
	if ((item = lt_detail(x, x->row, &gated)) == NULL)
		return NULL;
	if (lt_note(x, i, fqn, gated) != 0) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

/* page_window's after(): the page's warnings naming its gated tables. */
static void
lt_after(void *ctx, cJSON *page, size_t first, size_t count)
{
	struct lt *x = ctx;
	const char **names;
	cJSON *w;
	char *s;
	size_t i, n = 0;

	if ((names = calloc(count + 1, sizeof(*names))) == NULL) {
		x->failed = 1;
		return;
	}
	for (i = first; i < first + count; i++)
		if (i >= x->base && i - x->base < x->n &&
		    x->gated[i - x->base])
			names[n++] = x->names[i - x->base];
	if (n > 0) {
		s = fresh_warning(x->c->conn->conf->name, names, n);
		if (s == NULL ||
		    (w = cJSON_AddArrayToObject(page, "warnings")) == NULL ||
		    !cJSON_AddItemToArray(w, cJSON_CreateString(s)))
			x->failed = 1;
		free(s);
	}
	free(names);
}

/* The number of walkable entries matching the pattern into *n. */
static int
lt_count(struct lt *x, size_t *n)
{
	sqlite3_stmt *st;
	const char *sql, *fqn;
	int rc;

	*n = 0;
	if (x->exact && x->hi == NULL && x->lo[0] == '\0')
		sql = ans_sql_count_all;
	else if (x->exact)
		sql = x->hi != NULL ? ans_sql_count : ans_sql_count_open;
	else
		sql = x->hi != NULL ? lt_sql_walk : lt_sql_walk_open;
	if ((st = srv_stmt(x->c->conn, sql)) == NULL)
		return -1;
	if (sql != ans_sql_count_all) {
		sqlite3_bind_text(st, 1, x->lo, -1, SQLITE_STATIC);
		if (x->hi != NULL)
			sqlite3_bind_text(st, 2, x->hi, -1, SQLITE_STATIC);
	}
	if (!x->exact)
		sqlite3_bind_int64(st, 3, 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (x->exact) {
			*n = (size_t)sqlite3_column_int64(st, 0);
			continue;
		}
		fqn = (const char *)sqlite3_column_text(st, 0);
		if (fqn != NULL && dbp_fnmatch(x->pat, fqn))
			(*n)++;
	}
	srv_stmt_done(x->c->conn, st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The state of manifest.yaml in the index (ans_file_state's reading,
 * with the handle's kept statement): 0 when it is read (or has no row),
 * 1 when it is absent (the reply lists nothing, spec 3.1), -1 with c's
 * error set when it could not be read or the index failed. */
static int
lt_manifest(struct call *c)
{
	static const char sql[] =
	    "SELECT status, error FROM files WHERE path = ?1";
	sqlite3_stmt *st;
	const char *status, *error;
	int rc, r;

	if ((st = srv_stmt(c->conn, sql)) == NULL)
		return call_fail(c, "index read failed: %s",
		    sqlite3_errmsg(c->conn->db));
	sqlite3_bind_text(st, 1, "manifest.yaml", -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		status = (const char *)sqlite3_column_text(st, 0);
		error = (const char *)sqlite3_column_text(st, 1);
		if (status == NULL || strcmp(status, "absent") == 0)
			r = 1;
		else if (strcmp(status, "ok") != 0)
			r = call_fail(c, "%s", error != NULL ? error :
			    "manifest.yaml could not be read");
		else
			r = 0;
	} else if (rc == SQLITE_DONE)
		r = 0;
	else
		r = call_fail(c, "index read failed: %s",
		    sqlite3_errmsg(c->conn->db));
	srv_stmt_done(c->conn, st);
	return r;
}

/* failed_tables matching pat, sorted; NULL on error (c set). */
static cJSON *
lt_failed(struct call *c, const char *pat)
{
	static const char sql[] =
	    "SELECT fqn FROM failed_tables ORDER BY fqn, ord";
	sqlite3_stmt *st;
	cJSON *arr;
	const char *f;
	int rc;

	if ((arr = cJSON_CreateArray()) == NULL) {
		call_fail(c, "out of memory");
		return NULL;
	}
	if ((st = srv_stmt(c->conn, sql)) == NULL)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f = (const char *)sqlite3_column_text(st, 0);
		if (f == NULL || !dbp_fnmatch(pat, f))
			continue;
		if (!cJSON_AddItemToArray(arr, cJSON_CreateString(f))) {
			srv_stmt_done(c->conn, st);
			cJSON_Delete(arr);
			call_fail(c, "out of memory");
			return NULL;
		}
	}
	if (rc != SQLITE_DONE)
		goto fail;
	srv_stmt_done(c->conn, st);
	return arr;
fail:
	call_fail(c, "index read failed: %s", sqlite3_errmsg(c->conn->db));
	srv_stmt_done(c->conn, st);
	cJSON_Delete(arr);
	return NULL;
}

int
tool_list_tables(struct call *c)
{
	const cJSON *a;
	struct page_src ps;
	struct lt x;
	cJSON *head = NULL, *failed = NULL;
	size_t pos, total = 0, i;
	char nowbuf[32];
	int r = -1, rc;
	time_t now = time(NULL);
	struct tm tmv;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.pat = "*";
	x.now = (double)now;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "pattern");
	if (cJSON_IsString(a))
		x.pat = a->valuestring;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "detail");
	x.detail = cJSON_IsTrue(a);
	if (call_pin1(c, "manifest.yaml") == -1 ||
	    call_position(c, &pos) == -1)
		return -1;
	if ((head = cJSON_CreateObject()) == NULL)
		goto oom;
	if ((rc = lt_manifest(c)) == -1)
		goto out;
	if (rc == 1)
		goto reply;	/* an absent manifest lists nothing (3.1) */
	if ((failed = lt_failed(c, x.pat)) == NULL)
		goto out;
	if (cJSON_GetArraySize(failed) > 0) {
		if (lt_add(head, "failed_tables", failed) != 0) {
			failed = NULL;
			goto oom;
		}
	} else
		cJSON_Delete(failed);
	failed = NULL;
	if (x.detail) {
		gmtime_r(&now, &tmv);
		strftime(nowbuf, sizeof(nowbuf), "%Y-%m-%dT%H:%M:%SZ", &tmv);
		if (cJSON_AddStringToObject(head, "now", nowbuf) == NULL)
			goto oom;
	}
	if (ans_prefix_range(x.pat, &x.lo, &x.hi) == -1)
		goto oom;
	x.exact = strcmp(x.pat + strlen(x.lo), "*") == 0;
	if (lt_count(&x, &total) != 0)
		goto dberr;
reply:
	memset(&ps, 0, sizeof(ps));
	ps.head = head;
	ps.key[0] = "tables";
	ps.empty_on_first[0] = 1;
	ps.count[0] = total;
	ps.item = lt_item;
	ps.ctx = &x;
	ps.borrowed = !x.detail;	/* bare items: lt_node's */
	if (x.detail)
		ps.after = lt_after;
	r = page_window(c, &ps, pos);
	if (r == 0 && x.failed)
		r = call_fail(c, "out of memory");
	goto out;
oom:
	call_fail(c, "out of memory");
	goto out;
dberr:
	call_fail(c, "index read failed: %s", sqlite3_errmsg(c->conn->db));
out:
	srv_stmt_done(c->conn, x.walk);
	srv_stmt_done(c->conn, x.row);
	while (x.chunks != NULL) {
		struct lt_chunk *next = x.chunks->next;

		free(x.chunks);
		x.chunks = next;
	}
	while (x.nodes != NULL) {
		struct lt_nodes *next = x.nodes->next;

		free(x.nodes);
		x.nodes = next;
	}
	for (i = 0; i < x.n; i++)
		free(x.names[i]);
	free(x.names);
	free(x.gated);
	cJSON_Delete(head);
	cJSON_Delete(failed);
	free(x.lo);
	free(x.hi);
	return r;
}

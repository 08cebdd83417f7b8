/*
 * tool_diff.c - get_diff (MCP spec 4.5): the parsed diff.yaml as JSON,
 * from the index.
 *
 * Relationship events about an edge a human rejected are withheld first
 * (reject.c), with summary.relationships_changed lowered to match; then
 * the table and kind filters (ANDed) narrow changes, which is paged in
 * file order with total.  Every other key rides the first page whole, in
 * file order.
 *
 * A page costs what it shows, whatever the diff's size: the header is
 * the document scanned past its changes member, kept per index handle
 * while the index does not change; the events are the changes rows
 * (numbered 0, 1, ... in file order), read from the page's first one.
 * Only relationship events can be withheld, so only they are read to
 * find which are; the page's first row is then the i-th kept event's
 * place among the filtered rows, found from the withheld ones' places.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* The header's text is kept per index handle under this key. */
static const char df_kept_key = 0;

/*
 * The statements, one per filter combination (none, kind, table, both),
 * bound by name: :kind, :tbl, :pos (the first filtered row a walk
 * returns) and :below (count the filtered rows before this ord).  With
 * no filter the i-th row is the row of ord i, and with kind alone the
 * row of kind_ord i: both are reached by key and counted by one lookup.
 * A table's events are few, so the table filters walk and count them.
 */
#define DF_TABLE	"(table_fqn = :tbl OR source_table = :tbl OR " \
			"target_table = :tbl)"

static const char df_sql_walk[4][160] = {
	"SELECT ord, entry FROM changes WHERE ord >= :pos ORDER BY ord",
	"SELECT ord, entry FROM changes WHERE kind = :kind AND kind_ord >= "
	    ":pos ORDER BY kind_ord",
	"SELECT ord, entry FROM changes WHERE " DF_TABLE " ORDER BY ord "
	    "LIMIT -1 OFFSET :pos",
	"SELECT ord, entry FROM changes WHERE kind = :kind AND " DF_TABLE
	    " ORDER BY ord LIMIT -1 OFFSET :pos",
};
static const char df_sql_count[4][160] = {
	"SELECT coalesce(max(ord) + 1, 0) FROM changes WHERE ord < :below",
	"SELECT coalesce(max(kind_ord) + 1, 0) FROM changes WHERE kind = "
	    ":kind",
	"SELECT count(*) FROM changes WHERE " DF_TABLE " AND ord < :below",
	"SELECT count(*) FROM changes WHERE kind = :kind AND " DF_TABLE
	    " AND ord < :below",
};
/* Every event reject.c may withhold ('`' follows '_'). */
static const char df_sql_related[] =
    "SELECT ord, kind, table_fqn, source_table, target_table, entry, "
    "kind_ord FROM changes WHERE kind >= 'relationship_' AND kind < 'relationship`' "
    "ORDER BY ord";

struct df_walk {
	struct call	*c;
	const char	*kind;		/* NULL: every kind */
	const char	*table;		/* NULL: every table */
	int		 which;		/* index of the statements above */
	sqlite3_int64	*held;		/* withheld ords the filters keep, */
	sqlite3_int64	*rank;		/* ascending, and their places among
					 * the filtered rows (both malloc'd,
					 * freed by tool_get_diff) */
	size_t		 nheld, cap;
	sqlite3_stmt	*st;		/* the page's walk */
	size_t		 next;		/* kept index of st's next row */
	size_t		 h;		/* first held at or past st's row */
};

/* reject.c's pin callback: refresh and record a consulted file. */
static int
df_pin(void *ctx, const char *path)
{
	return call_pin1(ctx, path);
}

/* Bind the named parameters the statement has. */
static void
df_bind(const struct df_walk *w, sqlite3_stmt *st, sqlite3_int64 pos,
    sqlite3_int64 below)
{
	int i;

	if ((i = sqlite3_bind_parameter_index(st, ":kind")) > 0)
		sqlite3_bind_text(st, i, w->kind, -1, SQLITE_STATIC);
	if ((i = sqlite3_bind_parameter_index(st, ":tbl")) > 0)
		sqlite3_bind_text(st, i, w->table, -1, SQLITE_STATIC);
	if ((i = sqlite3_bind_parameter_index(st, ":pos")) > 0)
		sqlite3_bind_int64(st, i, pos);
	if ((i = sqlite3_bind_parameter_index(st, ":below")) > 0)
		sqlite3_bind_int64(st, i, below);
}

static int
df_index_failed(struct call *c)
{
	return call_fail(c, "index read failed: %s",
	    sqlite3_errmsg(c->conn->db));
}

/* How many filtered rows lie below ord below: *n.  0, or -1 (c failed). */
static int
df_count(struct df_walk *w, sqlite3_int64 below, size_t *n)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = srv_stmt(w->c->conn, df_sql_count[w->which])) == NULL)
		return df_index_failed(w->c);
	df_bind(w, st, 0, below);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*n = (size_t)sqlite3_column_int64(st, 0);
	srv_stmt_done(w->c->conn, st);
	return rc == SQLITE_ROW ? 0 : df_index_failed(w->c);
}

/* 1 when the filters keep a row of these columns (the SQL's test). */
static int
df_keeps(const struct df_walk *w, const char *kind, const char *t,
    const char *src, const char *dst)
{
	if (w->kind != NULL && (kind == NULL || strcmp(kind, w->kind) != 0))
		return 0;
	if (w->table == NULL)
		return 1;
	return (t != NULL && strcmp(t, w->table) == 0) ||
	    (src != NULL && strcmp(src, w->table) == 0) ||
	    (dst != NULL && strcmp(dst, w->table) == 0);
}

/* Keep a withheld row's ord, and its place among the filtered rows when
 * it is known from the row itself (else -1: counted later). */
static int
df_hold(struct df_walk *w, sqlite3_int64 ord, sqlite3_int64 rank)
{
	sqlite3_int64 *g;
	size_t cap;

	if (w->nheld == w->cap) {
		cap = w->cap ? w->cap * 2 : 16;
		if ((g = realloc(w->held, cap * sizeof(*g))) == NULL)
			return -1;
		w->held = g;
		if ((g = realloc(w->rank, cap * sizeof(*g))) == NULL)
			return -1;
		w->rank = g;
		w->cap = cap;
	}
	w->held[w->nheld] = ord;
	w->rank[w->nheld++] = rank;
	return 0;
}

/*
 * Withhold (spec 4.5): read every relationship event, ask reject.c of
 * each (pinning the annotation files it consults), count the withheld in
 * *dropped and keep the ords of those the filters keep, with their
 * places among the filtered rows.  0, or -1 with c's error set.
 */
static int
df_withhold(struct df_walk *w, size_t *dropped)
{
	struct call *c = w->c;
	struct dbp_diag d;
	struct rej r;
	sqlite3_stmt *st;
	cJSON *e;
	const char *text;
	size_t i, n;
	int rc, held;

	*dropped = 0;
	if ((st = srv_stmt(c->conn, df_sql_related)) == NULL)
		return df_index_failed(c);
	rej_init(&r, c->conn, df_pin, c);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		text = (const char *)sqlite3_column_text(st, 5);
		e = text != NULL ? srv_json_parse(text,
		    (size_t)sqlite3_column_bytes(st, 5)) : NULL;
		if (e == NULL) {
			rc = -1;
			call_fail(c, "out of memory");
			break;
		}
		held = rej_event(&r, e, &d);
		cJSON_Delete(e);
		if (held == -1) {
			rc = -1;
			if (c->text == NULL)
				call_fail(c, "%s", d.msg);
			break;
		}
		if (held == 0)
			continue;
		(*dropped)++;
		if (df_keeps(w, (const char *)sqlite3_column_text(st, 1),
		    (const char *)sqlite3_column_text(st, 2),
		    (const char *)sqlite3_column_text(st, 3),
		    (const char *)sqlite3_column_text(st, 4)) &&
		    df_hold(w, sqlite3_column_int64(st, 0), w->which == 0 ?
		    sqlite3_column_int64(st, 0) : w->which == 1 ?
		    sqlite3_column_int64(st, 6) : -1) == -1) {
			rc = -1;
			call_fail(c, "out of memory");
			break;
		}
	}
	srv_stmt_done(c->conn, st);
	rej_release(&r);
	if (rc != SQLITE_DONE)
		return rc == -1 ? -1 : df_index_failed(c);
	/* under a table filter, a place is the filtered rows below it */
	for (i = 0; i < w->nheld; i++) {
		if (w->rank[i] >= 0)
			continue;
		if (df_count(w, w->held[i], &n) == -1)
			return -1;
		w->rank[i] = (sqlite3_int64)n;
	}
	return 0;
}

/* page_window's item(): the i-th kept event, parsed from its row. */
static cJSON *
df_item(void *ctx, size_t i)
{
	struct df_walk *w = ctx;
	sqlite3_int64 ord, r;
	const char *entry;
	int rc;

	if (w->st == NULL) {
		/* the i-th kept is the r-th filtered, r - (held below r) = i */
		r = (sqlite3_int64)i;
		for (w->h = 0; w->h < w->nheld && w->rank[w->h] <= r; w->h++)
			r++;
		if ((w->st = srv_stmt(w->c->conn, df_sql_walk[w->which])) ==
		    NULL) {
			df_index_failed(w->c);
			return NULL;
		}
		df_bind(w, w->st, r, 0);
		w->next = i;
	}
	for (;;) {
		if ((rc = sqlite3_step(w->st)) != SQLITE_ROW) {
			if (rc == SQLITE_DONE)
				call_fail(w->c, "index read failed: the diff "
				    "changed during the call");
			else
				df_index_failed(w->c);
			return NULL;
		}
		ord = sqlite3_column_int64(w->st, 0);
		if (w->h < w->nheld && w->held[w->h] == ord) {
			w->h++;
			continue;	/* withheld */
		}
		if (w->next++ == i)
			break;
	}
	entry = (const char *)sqlite3_column_text(w->st, 1);
	return entry != NULL ? srv_json_parse(entry,
	    (size_t)sqlite3_column_bytes(w->st, 1)) : cJSON_CreateNull();
}

/*
 * The diff's header: every top-level key but changes, in file order
 * (*head, cJSON_Delete it).  0, 1 when the document is not a mapping
 * (the answer is then the empty object), or -1 with the call failed
 * (spec 8.2: absent, unparseable).
 */
static int
df_head(struct call *c, cJSON **head)
{
	struct srv_file f;
	struct dbp_diag d;
	cJSON *whole;
	char *status, *error;
	int rc;

	if ((*head = ans_kept_head(c, &df_kept_key)) != NULL)
		return 0;
	if ((rc = ans_file_state(c->conn, "diff.yaml", &status, &error)) == -1)
		return df_index_failed(c);
	if (rc == 0 && strcmp(status, "absent") == 0)
		rc = 1;
	free(status);
	free(error);
	if (rc == 1)
		/* The spec's sentence, without upstream's backticks. */
		return call_fail(c, "no diff available at %s/diff.yaml. Run "
		    "dbprint diff or dbprint generate first.",
		    c->conn->conf->print_root);
	if ((rc = ans_head(c, &df_kept_key, "diff.yaml", "changes", head)) !=
	    1)
		return rc;
	/* no document, or not the object the index writes: read the row */
	if ((rc = srv_file_get(c->conn, "diff.yaml", &f, &d)) == -1)
		return call_fail(c, "%s", d.msg);
	if (rc == 1 || f.doc == NULL) {
		rc = call_fail(c, "%s", f.error != NULL ? f.error :
		    "diff.yaml could not be read");
		srv_file_release(&f);
		return rc;
	}
	rc = 0;
	whole = srv_json_parse(f.doc, strlen(f.doc));
	if (cJSON_IsObject(whole)) {
		while (cJSON_HasObjectItem(whole, "changes"))
			cJSON_DeleteItemFromObjectCaseSensitive(whole,
			    "changes");
		*head = whole;
	} else if (whole != NULL) {
		cJSON_Delete(whole);
		rc = 1;
	} else
		rc = call_fail(c, "diff.yaml: the index holds an unreadable "
		    "copy; run dbprint-index --full");
	srv_file_release(&f);
	return rc;
}

int
tool_get_diff(struct call *c)
{
	static const char *const pins[] = { "diff.yaml", "manifest.yaml" };
	struct page_src ps;
	struct df_walk w;
	const cJSON *a;
	cJSON *head = NULL, *empty;
	size_t pos, total = 0, dropped;
	int rc = -1;

	memset(&w, 0, sizeof(w));
	w.c = c;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "kind");
	if (cJSON_IsString(a))
		w.kind = a->valuestring;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "table");
	if (cJSON_IsString(a))
		w.table = a->valuestring;
	w.which = (w.kind != NULL) | (w.table != NULL) << 1;
	if (call_pin(c, pins, 2) == -1)
		return -1;
	if ((rc = df_head(c, &head)) == -1)
		return -1;
	if (rc == 1) {
		/* A diff that is not a mapping answers the empty object. */
		rc = -1;
		if (call_position(c, &pos) == -1)
			goto out;
		if ((empty = cJSON_CreateObject()) == NULL)
			goto oom;
		rc = call_reply_json(c, empty);
		cJSON_Delete(empty);
		goto out;
	}
	rc = -1;
	if (df_withhold(&w, &dropped) == -1)
		goto out;
	if (dropped > 0 && rej_summary(head, dropped) == -1)
		goto oom;
	if (call_position(c, &pos) == -1)
		goto out;
	if (df_count(&w, INT64_MAX, &total) == -1)
		goto out;
	total -= w.nheld;
	memset(&ps, 0, sizeof(ps));
	ps.head = head;
	ps.key[0] = "changes";
	ps.empty_on_first[0] = 1;
	ps.count[0] = total;
	ps.item = df_item;
	ps.ctx = &w;
	rc = page_window(c, &ps, pos);
	goto out;
oom:
	rc = call_fail(c, "out of memory");
out:
	srv_stmt_done(c->conn, w.st);
	free(w.held);
	free(w.rank);
	cJSON_Delete(head);
	return rc;
}

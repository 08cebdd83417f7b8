/*
 * answer.c - small index reads shared by list_tables, search_columns,
 * resolve_value, get_manifest and get_diff: a file's state, a glob's FQN
 * range, a paged document's header kept per index handle.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdlib.h>
#include <string.h>

#include "answer.h"

int
ans_file_state(struct srv_conn *cn, const char *path, char **status,
    char **error)
{
	static const char sql[] =
	    "SELECT status, error FROM files WHERE path = ?1";
	sqlite3_stmt *st = NULL;
	const char *s, *e;
	int rc;

	*status = NULL;
	*error = NULL;
	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s = (const char *)sqlite3_column_text(st, 0);
		e = (const char *)sqlite3_column_text(st, 1);
		*status = strdup(s != NULL ? s : "absent");
		if (e != NULL)
			*error = strdup(e);
		if (*status == NULL || (e != NULL && *error == NULL)) {
			free(*status);
			free(*error);
			*status = *error = NULL;
			rc = SQLITE_NOMEM;
		}
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	return rc == SQLITE_ROW ? 0 : -1;
}

const char ans_sql_count_all[] =
    "SELECT (SELECT count(*) FROM tables) - "
    "(SELECT count(*) FROM tables WHERE walkable < 1) - "
    "(SELECT count(*) FROM tables WHERE walkable > 1)";
const char ans_sql_count[] =
    "SELECT count(*) FROM tables WHERE walkable = 1 AND fqn >= ?1 "
    "AND fqn < ?2";
const char ans_sql_count_open[] =
    "SELECT count(*) FROM tables WHERE walkable = 1 AND fqn >= ?1";

int
ans_prefix_range(const char *pat, char **lo, char **hi)
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

int
ans_walk_to(struct call *c, sqlite3_stmt *st, const char *pat, int exact,
    size_t *next, size_t i)
{
	const char *fqn;
	int rc;

	for (;;) {
		if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
			if (rc == SQLITE_DONE)
				return call_fail(c, "index read failed: the "
				    "tables changed during the call");
			break;
		}
		if ((fqn = (const char *)sqlite3_column_text(st, 0)) == NULL)
			break;
		if (!exact && !dbp_fnmatch(pat, fqn))
			continue;
		if ((*next)++ == i)
			return 0;
	}
	return call_fail(c, "index read failed: %s",
	    sqlite3_errmsg(c->conn->db));
}

/* ------------------------------------------------------------------ */
/* A document's header: every top-level member but its paged list       */

/*
 * The scanner: fed the document's bytes in order, it follows the
 * top-level members alone (strings skipped whole, brackets counted) and
 * copies every member but skip's to out, joined by commas inside
 * braces.  A key holding an escape is never skip (the key is compared
 * as written, as a key of the index's compact JSON is).
 */
struct ans_hs {
	const char	*skip;
	size_t		 skiplen;
	struct dbp_buf	 out;
	int		 started, done, bad;
	int		 depth, in_str, esc;
	int		 member;	/* inside a top-level member */
	int		 in_key;	/* reading its key */
	int		 keymatch;	/* the key so far is skip's prefix */
	size_t		 klen;
	int		 skipping;	/* the member is skip's */
	int		 first;		/* no member copied yet */
	size_t		 mstart;	/* out's length where it began */
};

static void
ans_hs_byte(struct ans_hs *h, char ch)
{
	if (h->in_str) {
		if (!h->skipping)
			dbp_buf_addc(&h->out, ch);
		if (h->esc) {
			h->esc = 0;
			return;
		}
		if (ch == '\\') {
			h->esc = 1;
			h->keymatch = 0;
			return;
		}
		if (ch == '"') {
			h->in_str = 0;
			if (h->in_key) {
				h->in_key = 0;
				if (h->keymatch && h->klen == h->skiplen) {
					h->skipping = 1;
					h->out.len = h->mstart;
					if (h->out.ptr != NULL)
						h->out.ptr[h->out.len] = '\0';
				}
			}
			return;
		}
		if (h->in_key) {
			if (h->klen >= h->skiplen || h->skip[h->klen] != ch)
				h->keymatch = 0;
			h->klen++;
		}
		return;
	}
	if (!h->started) {
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
			return;
		h->started = h->depth = 1;
		if (ch != '{')
			h->bad = 1;
		dbp_buf_addc(&h->out, '{');
		return;
	}
	if (h->depth == 1 && !h->member) {
		/* between members */
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
		    ch == ',')
			return;
		if (ch == '}') {
			dbp_buf_addc(&h->out, '}');
			h->done = 1;
			return;
		}
		if (ch != '"') {
			h->bad = 1;
			return;
		}
		h->member = h->in_str = h->in_key = h->keymatch = 1;
		h->klen = 0;
		h->skipping = 0;
		h->mstart = h->out.len;
		if (!h->first)
			dbp_buf_addc(&h->out, ',');
		dbp_buf_addc(&h->out, '"');
		return;
	}
	if (h->depth == 1 && (ch == ',' || ch == '}')) {
		/* the member's end */
		if (!h->skipping)
			h->first = 0;
		h->member = h->skipping = 0;
		if (ch == '}') {
			dbp_buf_addc(&h->out, '}');
			h->done = 1;
		}
		return;
	}
	if (!h->skipping)
		dbp_buf_addc(&h->out, ch);
	if (ch == '"')
		h->in_str = 1;
	else if (ch == '{' || ch == '[')
		h->depth++;
	else if ((ch == '}' || ch == ']') && --h->depth < 1)
		h->bad = 1;
}

int
ans_head_read(struct srv_conn *cn, const char *path, const char *skip,
    char **head)
{
	static const char sql[] =
	    "SELECT rowid, typeof(doc) = 'text' FROM files WHERE path = ?1";
	struct ans_hs h;
	sqlite3_stmt *st;
	sqlite3_blob *b = NULL;
	sqlite3_int64 rowid = 0;
	char *buf = NULL;
	int n, off, total, i, rc, have = 0, r = -1;

	*head = NULL;
	if ((st = srv_stmt(cn, sql)) == NULL)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rowid = sqlite3_column_int64(st, 0);
		have = sqlite3_column_int(st, 1);
	}
	srv_stmt_done(cn, st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (!have)
		return 1;
	memset(&h, 0, sizeof(h));
	h.skip = skip;
	h.skiplen = strlen(skip);
	h.first = 1;
	dbp_buf_init(&h.out, DBP_MAX_DOC_JSON);
	if ((buf = malloc(ANS_DOC_CHUNK)) == NULL ||
	    sqlite3_blob_open(cn->db, "main", "files", "doc", rowid, 0, &b) !=
	    SQLITE_OK)
		goto out;
	total = sqlite3_blob_bytes(b);
	for (off = 0; off < total && !h.done && !h.bad; off += n) {
		n = total - off < ANS_DOC_CHUNK ? total - off : ANS_DOC_CHUNK;
		if (sqlite3_blob_read(b, buf, n, off) != SQLITE_OK)
			goto out;
		for (i = 0; i < n && !h.done && !h.bad; i++)
			ans_hs_byte(&h, buf[i]);
	}
	if (h.out.failed)
		goto out;	/* OOM: a header is never past the bound */
	r = 1;
	if (h.done && !h.bad) {
		*head = dbp_buf_take(&h.out);
		r = *head != NULL ? 0 : -1;
	}
out:
	if (b != NULL)
		sqlite3_blob_close(b);
	free(buf);
	dbp_buf_release(&h.out);
	return r;
}

/* A header's text kept per index handle (srv_keep_get) with the index
 * version it speaks for. */
struct ans_kept {
	sqlite3_int64	 dv, tc;
	char		*head;
};

static void
ans_kept_free(void *p)
{
	struct ans_kept *k = p;

	if (k != NULL)
		free(k->head);
	free(k);
}

cJSON *
ans_kept_head(struct call *c, const void *key)
{
	struct ans_kept *k;
	sqlite3_int64 dv, tc;

	if (srv_index_version(c->conn, &dv, &tc) == -1 ||
	    (k = srv_keep_get(c->conn, key)) == NULL ||
	    k->dv != dv || k->tc != tc)
		return NULL;
	return srv_json_parse(k->head, strlen(k->head));
}

void
ans_keep_head(struct call *c, const void *key, char *head)
{
	struct ans_kept *k;

	if ((k = calloc(1, sizeof(*k))) == NULL ||
	    srv_index_version(c->conn, &k->dv, &k->tc) == -1) {
		free(k);
		free(head);
		return;
	}
	k->head = head;
	(void)srv_keep_set(c->conn, key, k, ans_kept_free);
}

int
ans_head(struct call *c, const void *key, const char *path,
    const char *skip, cJSON **doc)
{
	char *text;
	int rc;

	if ((*doc = ans_kept_head(c, key)) != NULL)
		return 0;
	if ((rc = ans_head_read(c->conn, path, skip, &text)) == -1)
		return call_fail(c, "index read failed: %s",
		    sqlite3_errmsg(c->conn->db));
	if (rc == 1)
		return 1;
	*doc = srv_json_parse(text, strlen(text));
	if (cJSON_IsObject(*doc)) {
		ans_keep_head(c, key, text);
		return 0;
	}
	cJSON_Delete(*doc);
	*doc = NULL;
	free(text);
	return 1;
}

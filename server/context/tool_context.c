/*
 * tool_context.c - get_table_context (MCP spec 4.1): the context fragment
 * an agent reads before writing SQL against a table (purpose query) or
 * describing its data (purpose profile), as Markdown, json or yaml.
 *
 * The call reads only what it needs: the table's row of the index, its
 * parsed relationships and annotation files (files.doc), the human edges
 * other tables state about it (edges), the connection notes, and from
 * disk ddl.sql, description.md and statistics.yaml (parsed, checked
 * against files.hash: the index keeps no statistics document).  Every
 * file read is pinned first (call_pin) so it is fresh, and the cursor
 * covers it.
 *
 * A corrupt or missing artifact degrades only its own section: it is named
 * in _corrupted / _missing (Unreadable: / Missing: in Markdown) and the
 * rest renders.
 */
#define _POSIX_C_SOURCE	200809L

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

static const char *const tc_kinds[CTX_NKINDS] = {
	"ddl", "statistics", "relationships", "description",
	"statistics_annotations", "relationships_annotations"
};

static char *
tc_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t == NULL ? NULL : strdup((const char *)t);
}

static int
tc_flag(const cJSON *args, const char *key)
{
	return !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(args, key));
}

static void
tc_release(struct ctx *x)
{
	int k;

	free(x->type);
	free(x->adapter);
	for (k = 0; k < CTX_NKINDS; k++) {
		free(x->art[k].path);
		free(x->art[k].status);
		free(x->art[k].error);
	}
	free(x->ma_status);
	free(x->ma_error);
	free(x->ma_path);
	free(x->ddl);
	free(x->description);
	if (x->own_docs & (1 << CTX_STATS))
		cJSON_Delete(x->stats);
	if (x->own_docs & (1 << CTX_REL))
		cJSON_Delete(x->rel);
	cJSON_Delete(x->relv);
	if (x->own_docs & (1 << CTX_SANNOT))
		cJSON_Delete(x->sannot);
	if (x->own_docs & (1 << CTX_RANNOT))
		cJSON_Delete(x->rannot);
	cJSON_Delete(x->rannotv);
	cJSON_Delete(x->scope);
	cJSON_Delete(x->hold);
	free(x->conn_notes);
	free(x->edges);
}

/* The manifest must be readable for any table to be known (spec 8.2).
 * Its top-level adapter, when a string, is json_extract's over the
 * manifest's document, which holds no table entry (schema 11: its tables
 * member is {}), cached per manifest version all the same: a header may
 * still be large (a long failed_tables list).  The cache is shared by
 * the HTTP transport's worker threads, hence the lock. */
static int
tc_manifest(struct ctx *x)
{
	static char cached_hash[33];
	static sqlite3 *cached_db;
	static char *cached_adapter;
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	sqlite3_stmt *st = NULL;
	char *status = NULL, *error = NULL, *hash = NULL;
	int rc = -1, row;

	if (sqlite3_prepare_v2(x->db, "SELECT status, error, hash FROM files "
	    "WHERE path = 'manifest.yaml'", -1, &st, NULL) != SQLITE_OK)
		return call_fail(x->c, "index read failed: %s",
		    sqlite3_errmsg(x->db));
	row = sqlite3_step(st) == SQLITE_ROW;
	if (row) {
		status = tc_col(st, 0);
		error = tc_col(st, 1);
		hash = tc_col(st, 2);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!row || status == NULL || strcmp(status, "absent") == 0) {
		call_fail(x->c, "manifest references manifest.yaml but file "
		    "is absent at %s/manifest.yaml. Re-run dbprint generate.",
		    x->c->conn->conf->print_root);
		goto done;
	}
	if (strcmp(status, "ok") != 0) {
		call_fail(x->c, "%s", error != NULL ? error :
		    "manifest.yaml could not be read");
		goto done;
	}
	pthread_mutex_lock(&mu);
	if (hash != NULL && cached_db == x->db &&
	    strcmp(cached_hash, hash) == 0) {
		rc = 0;
		if (cached_adapter != NULL &&
		    (x->adapter = strdup(cached_adapter)) == NULL)
			rc = -1;
		pthread_mutex_unlock(&mu);
		if (rc == -1)
			goto oom;
		goto done;
	}
	pthread_mutex_unlock(&mu);
	if (sqlite3_prepare_v2(x->db, "SELECT json_extract(doc, '$.adapter') "
	    "FROM files WHERE path = 'manifest.yaml'", -1,
	    &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_TEXT &&
	    (x->adapter = tc_col(st, 0)) == NULL) {
		sqlite3_finalize(st);
		goto oom;
	}
	sqlite3_finalize(st);
	pthread_mutex_lock(&mu);
	free(cached_adapter);
	cached_adapter = x->adapter != NULL ? strdup(x->adapter) : NULL;
	cached_db = x->db;
	snprintf(cached_hash, sizeof(cached_hash), "%s",
	    hash != NULL ? hash : "");
	pthread_mutex_unlock(&mu);
	rc = 0;
	goto done;
oom:
	call_fail(x->c, "out of memory");
done:
	free(status);
	free(error);
	free(hash);
	return rc;
}

/* The table's manifest row; the unknown-table error when it has none. */
static int
tc_table(struct ctx *x)
{
	sqlite3_stmt *st = NULL;
	char *detail;
	int found = 0;

	if (sqlite3_prepare_v2(x->db, "SELECT type, row_count, columns, "
	    "EXISTS (SELECT 1 FROM failed_tables WHERE fqn = ?1) "
	    "FROM tables WHERE fqn = ?1 AND walkable = 1", -1, &st, NULL) !=
	    SQLITE_OK)
		return call_fail(x->c, "index read failed: %s",
		    sqlite3_errmsg(x->db));
	sqlite3_bind_text(st, 1, x->fqn, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		x->type = tc_col(st, 0);
		if ((x->has_rows = sqlite3_column_type(st, 1) ==
		    SQLITE_INTEGER))
			x->row_count = sqlite3_column_int64(st, 1);
		if ((x->has_cols = sqlite3_column_type(st, 2) ==
		    SQLITE_INTEGER))
			x->columns_count = sqlite3_column_int64(st, 2);
		x->unprofiled = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	if (found)
		return 0;
	detail = srv_err_unknown_table(x->c->conn, x->fqn);
	call_fail(x->c, "%s", detail != NULL ? detail : "table not found");
	free(detail);
	return -1;
}

static int
tc_kind(const char *k)
{
	int i;

	for (i = 0; i < CTX_NKINDS; i++)
		if (strcmp(tc_kinds[i], k) == 0)
			return i;
	return -1;
}

/* Which artifacts the manifest declares, and where; every path pinned. */
static int
tc_artifacts(struct ctx *x)
{
	sqlite3_stmt *st = NULL;
	const char *kind;
	int k;

	if (sqlite3_prepare_v2(x->db, "SELECT kind, path FROM artifacts "
	    "WHERE table_fqn = ?", -1, &st, NULL) != SQLITE_OK)
		return call_fail(x->c, "index read failed: %s",
		    sqlite3_errmsg(x->db));
	sqlite3_bind_text(st, 1, x->fqn, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		kind = (const char *)sqlite3_column_text(st, 0);
		if (kind == NULL || (k = tc_kind(kind)) < 0)
			continue;
		x->art[k].declared = 1;
		x->art[k].path = tc_col(st, 1);
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(x->db, "SELECT path, status, error FROM files "
	    "WHERE kind = 'manifest_annotations'", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		x->ma_path = tc_col(st, 0);
	}
	sqlite3_finalize(st);
	for (k = 0; k < CTX_NKINDS; k++)
		if (x->art[k].path != NULL &&
		    call_pin1(x->c, x->art[k].path) == -1)
			return -1;
	if (x->ma_path != NULL && call_pin1(x->c, x->ma_path) == -1)
		return -1;
	return 0;
}

/* The next number token of text[*at..len) outside strings. */
static int
tc_next_number(const char *text, size_t len, size_t *at, const char **p,
    size_t *n)
{
	size_t i = *at, j;
	char c;

	while (i < len) {
		c = text[i];
		if (c == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c == '-' || (c >= '0' && c <= '9')) {
			for (j = i + 1; j < len; j++) {
				c = text[j];
				if (!(c >= '0' && c <= '9') && c != '.' &&
				    c != 'e' && c != 'E' && c != '+' &&
				    c != '-')
					break;
			}
			*p = text + i;
			*n = j - i;
			*at = j;
			return 1;
		}
		i++;
	}
	*at = i;
	return 0;
}

/* Give every number of v (parsed from text) its token as spelling: the
 * index writes numbers as Python's json.dumps spells them. */
static int
tc_spell(cJSON *v, const char *text, size_t len, size_t *at)
{
	const char *p;
	cJSON *c;
	size_t n;

	if (cJSON_IsNumber(v)) {
		if (!tc_next_number(text, len, at, &p, &n))
			return -1;
		free(v->valuestring);
		if ((v->valuestring = strndup(p, n)) == NULL)
			return -1;
		return 0;
	}
	for (c = v->child; c != NULL; c = c->next)
		if (tc_spell(c, text, len, at) == -1)
			return -1;
	return 0;
}

/* A document of the index: cJSON's own parser (fast), numbers then given
 * their spellings; the index's parser when cJSON refuses the text
 * (Infinity, NaN).  NULL on bad JSON or OOM. */
static cJSON *
tc_parse(const char *text)
{
	size_t len = strlen(text), at = 0;
	cJSON *v;

	v = cJSON_ParseWithLength(text, len);
	if (v != NULL && tc_spell(v, text, len, &at) == 0)
		return v;
	cJSON_Delete(v);
	return srv_json_parse(text, len);
}

/*
 * Parsed documents are cached per index handle, keyed by path and content
 * hash, as upstream's parse cache is (research/upstream-mcp.md 6.1): a
 * hash names the bytes, so a hit is always the current content.  A cached
 * tree is shared read-only by the calls that borrow it.  Entries of one
 * index handle are only ever evicted by a call on that handle, never one a
 * call in flight still borrows (its serial), and each HTTP worker owns its
 * handle, so no tree is freed under a reader.
 */
struct tc_cached {
	sqlite3		*db;
	char		*path;
	char		 hash[33];
	cJSON		*doc;
	unsigned long	 used;		/* the serial of its last reader */
};
static struct tc_cached tc_cache[CTX_DOC_CACHE];
static pthread_mutex_t tc_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long tc_serial;

/* A new call serial. */
static unsigned long
tc_next_serial(void)
{
	unsigned long s;

	pthread_mutex_lock(&tc_cache_mu);
	s = ++tc_serial;
	pthread_mutex_unlock(&tc_cache_mu);
	return s;
}

/* The cached tree of (db, path, hash), borrowed, or NULL. */
static cJSON *
tc_cache_get(struct ctx *x, const char *path, const char *hash)
{
	cJSON *doc = NULL;
	size_t i;

	pthread_mutex_lock(&tc_cache_mu);
	for (i = 0; i < CTX_DOC_CACHE; i++) {
		if (tc_cache[i].db == x->db && tc_cache[i].path != NULL &&
		    strcmp(tc_cache[i].path, path) == 0 &&
		    strcmp(tc_cache[i].hash, hash) == 0) {
			tc_cache[i].used = x->serial;
			doc = tc_cache[i].doc;
			break;
		}
	}
	pthread_mutex_unlock(&tc_cache_mu);
	return doc;
}

/* Keep doc for (db, path, hash): 1 when the cache took it (the caller
 * now borrows it), 0 when no slot was free to take. */
static int
tc_cache_put(struct ctx *x, const char *path, const char *hash, cJSON *doc)
{
	struct tc_cached *v = NULL, *e;
	char *p;
	size_t i;

	if (hash == NULL || strlen(hash) >= sizeof(v->hash) ||
	    (p = strdup(path)) == NULL)
		return 0;
	pthread_mutex_lock(&tc_cache_mu);
	for (i = 0; i < CTX_DOC_CACHE; i++) {
		e = &tc_cache[i];
		if (e->doc == NULL) {
			v = e;
			break;
		}
		/* the least recently read of this handle's, not this call's */
		if (e->db == x->db && e->used != x->serial &&
		    (v == NULL || e->used < v->used))
			v = e;
	}
	if (v == NULL) {
		pthread_mutex_unlock(&tc_cache_mu);
		free(p);
		return 0;
	}
	free(v->path);
	cJSON_Delete(v->doc);
	v->db = x->db;
	v->path = p;
	snprintf(v->hash, sizeof(v->hash), "%s", hash);
	v->doc = doc;
	v->used = x->serial;
	pthread_mutex_unlock(&tc_cache_mu);
	return 1;
}

/*
 * The document of a file whose row is ok but holds none (a statistics
 * file: the index keeps its facts in rows), read from the file itself
 * and checked against the row's hash.  A file that changed since it was
 * indexed is pinned again, which re-indexes it, and read once more; a
 * second miss, or a read that fails, makes the file's status unreadable
 * with the reason.  A new tree, or NULL.
 */
static cJSON *
tc_read_stats(struct ctx *x, const char *path, char **hash, char **status,
    char **error)
{
	struct dbp_diag d;
	sqlite3_stmt *st = NULL;
	cJSON *v;
	int moved, attempt;

	for (attempt = 0; ; attempt++) {
		v = dbp_stats_read(x->c->conn->conf->print_root, path, *hash,
		    &moved, &d);
		if (v != NULL || !moved || attempt > 0)
			break;
		/* changed under the call: re-index it, take the new row */
		if (call_pin1(x->c, path) == -1 || sqlite3_prepare_v2(x->db,
		    "SELECT status, error, hash FROM files WHERE path = ?1",
		    -1, &st, NULL) != SQLITE_OK)
			break;
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			break;
		}
		free(*status);
		free(*error);
		free(*hash);
		*status = tc_col(st, 0);
		*error = tc_col(st, 1);
		*hash = tc_col(st, 2);
		sqlite3_finalize(st);
		if (*status == NULL || strcmp(*status, "ok") != 0)
			return NULL;	/* the row says what the file is now */
	}
	if (v == NULL) {
		free(*status);
		free(*error);
		*status = strdup("unreadable");
		*error = strdup(d.msg);
	}
	return v;
}

/* Status, error and parsed document of one file (after pinning); *owned
 * says whether the caller frees the tree or borrows it from the cache. */
static cJSON *
tc_file(struct ctx *x, const char *path, const char *kind, char **status,
    char **error, int *owned)
{
	sqlite3_stmt *st = NULL;
	const char *doc, *hash;
	cJSON *v = NULL;
	char *h;

	*owned = 1;
	*status = NULL;
	*error = NULL;
	/* an artifact whose path escapes the root is known by its kind */
	if (sqlite3_prepare_v2(x->db, path != NULL ?
	    "SELECT status, error, hash, doc FROM files WHERE path = ?1" :
	    "SELECT status, error, NULL, NULL FROM files WHERE table_fqn = ?2 "
	    "AND "
	    "kind = ?3", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (path != NULL)
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	else {
		sqlite3_bind_text(st, 2, x->fqn, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		*status = tc_col(st, 0);
		*error = tc_col(st, 1);
		hash = (const char *)sqlite3_column_text(st, 2);
		if (*status == NULL || strcmp(*status, "ok") != 0)
			;
		else if (hash != NULL &&
		    (v = tc_cache_get(x, path, hash)) != NULL)
			*owned = 0;
		else {
			/* column 2's text may move once column 3 is read */
			h = hash != NULL ? strdup(hash) : NULL;
			doc = (const char *)sqlite3_column_text(st, 3);
			if (doc != NULL)
				v = tc_parse(doc);
			else if (strcmp(kind, "statistics") == 0 && h != NULL) {
				sqlite3_finalize(st);
				st = NULL;
				v = tc_read_stats(x, path, &h, status, error);
			}
			if (v != NULL && h != NULL &&
			    tc_cache_put(x, path, h, v))
				*owned = 0;
			free(h);
		}
	} else if (path == NULL) {
		*status = strdup("outside_root");
		*error = strdup("the declared file leads outside the print "
		    "root (SPEC 2.5); not read");
	} else {
		*status = strdup("absent");
	}
	sqlite3_finalize(st);
	return v;
}

/* A text artifact read fresh from disk; absent when the file is gone. */
static char *
tc_text(struct ctx *x, int k)
{
	struct dbp_diag d;
	char full[DBP_MAX_PATH], *buf = NULL;
	size_t len;

	if (x->art[k].status == NULL || strcmp(x->art[k].status, "ok") != 0)
		return NULL;
	if (snprintf(full, sizeof(full), "%s/%s",
	    x->c->conn->conf->print_root, x->art[k].path) >= (int)sizeof(full))
		return NULL;
	if (dbp_read_file(full, DBP_MAX_FILE_BYTES, &buf, &len, NULL,
	    &d) == -1) {
		free(x->art[k].status);
		x->art[k].status = strdup(errno == ENOENT ? "absent" :
		    "unreadable");
		free(x->art[k].error);
		x->art[k].error = strdup(d.msg);
		return NULL;
	}
	return buf;
}

/* Scope detection (research 3.0): a top-level scope key, or any column's
 * integer rows_scanned echo. */
static int
tc_scope(struct ctx *x)
{
	cJSON *sc, *c, *rs;
	int has_key;

	if (!cJSON_IsObject(x->stats))
		return 0;
	rs = cJSON_GetObjectItemCaseSensitive(x->stats, "row_count");
	if (cJSON_IsNumber(rs)) {
		x->has_stats_rows = 1;
		x->stats_row_count = ctx_int(rs, 0);
	}
	sc = cJSON_GetObjectItemCaseSensitive(x->stats, "scope");
	has_key = cJSON_HasObjectItem(x->stats, "scope");
	if (cJSON_IsObject(sc)) {
		rs = cJSON_GetObjectItemCaseSensitive(sc, "rows_scanned");
		if (cJSON_IsNumber(rs)) {
			x->has_scanned = 1;
			x->rows_scanned = ctx_int(rs, 0);
		}
	}
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(x->stats,
	    "columns")) {
		rs = cJSON_GetObjectItemCaseSensitive(c, "rows_scanned");
		if (!cJSON_IsNumber(rs))
			continue;
		has_key = 1;
		if (!x->has_scanned) {
			x->has_scanned = 1;
			x->rows_scanned = ctx_int(rs, 0);
		}
		break;
	}
	if (!has_key)
		return 0;
	x->scoped = 1;
	x->scope = cJSON_IsObject(sc) ? cJSON_Duplicate(sc, 1) :
	    cJSON_CreateObject();
	return x->scope == NULL ? -1 : 0;
}

/* Pin the statistics annotations of every table a derived_from names,
 * so the cursor covers the notes inherited from them. */
static int
tc_pin_sources(struct ctx *x)
{
	sqlite3_stmt *st = NULL;
	cJSON *c, *df, *s, *cols;
	const char *name, *dot;
	char *t;
	int rc = 0, i;

	if (!x->inc_annot || x->purpose != CTX_QUERY)
		return 0;
	if (sqlite3_prepare_v2(x->db, "SELECT path FROM artifacts WHERE "
	    "table_fqn = ? AND kind = 'statistics_annotations'", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
	cJSON_ArrayForEach(c, cols) {
		for (i = 0; i < 2; i++) {
			df = cJSON_GetObjectItemCaseSensitive(i == 0 ?
			    ctx_col_annot(x, c->string) : c, "derived_from");
			if (df == NULL)
				continue;
			s = cJSON_IsArray(df) ? df->child : df;
			for (; s != NULL && rc == 0;
			    s = cJSON_IsArray(df) ? s->next : NULL) {
				name = cJSON_IsString(s) ? s->valuestring :
				    cJSON_IsString(cJSON_GetObjectItem(s,
				    "table")) ? cJSON_GetObjectItem(s,
				    "table")->valuestring : NULL;
				if (name == NULL)
					continue;
				t = cJSON_IsString(s) && (dot = strrchr(name,
				    '.')) != NULL ? strndup(name,
				    (size_t)(dot - name)) : strdup(name);
				if (t == NULL)
					break;
				sqlite3_reset(st);
				sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
				if (strcmp(t, x->fqn) != 0 &&
				    sqlite3_step(st) == SQLITE_ROW &&
				    sqlite3_column_text(st, 0) != NULL)
					rc = call_pin1(x->c, (const char *)
					    sqlite3_column_text(st, 0));
				free(t);
			}
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static int
tc_load(struct ctx *x)
{
	cJSON *ma;
	int owned;
	cJSON **docs[CTX_NKINDS] = { NULL, &x->stats, &x->rel, NULL,
	    &x->sannot, &x->rannot };
	int k;

	if (call_pin1(x->c, "manifest.yaml") == -1 || tc_manifest(x) == -1 ||
	    tc_table(x) == -1 || tc_artifacts(x) == -1)
		return -1;
	for (k = 0; k < CTX_NKINDS; k++) {
		cJSON *doc;

		if (!x->art[k].declared)
			continue;
		doc = tc_file(x, x->art[k].path, tc_kinds[k], &x->art[k].status,
		    &x->art[k].error, &owned);
		if (docs[k] != NULL) {
			*docs[k] = doc;
			if (owned)
				x->own_docs |= 1 << k;
		} else if (owned) {
			cJSON_Delete(doc);
		}
	}
	/* a document of the wrong shape reads as no document */
	if (x->stats != NULL && !cJSON_IsObject(x->stats)) {
		if (x->own_docs & (1 << CTX_STATS))
			cJSON_Delete(x->stats);
		x->own_docs &= ~(1 << CTX_STATS);
		x->stats = NULL;
	}
	x->ddl = tc_text(x, CTX_DDL);
	/* read even when not shown: it decides the Meanings cue */
	x->description = tc_text(x, CTX_DESC);
	if (x->ma_path != NULL) {
		ma = tc_file(x, x->ma_path, "manifest_annotations",
		    &x->ma_status, &x->ma_error, &owned);
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ma,
		    "notes"))) {
			const char *n = cJSON_GetObjectItemCaseSensitive(ma,
			    "notes")->valuestring;

			if (n[strspn(n, " \t\r\n")] != '\0')
				x->conn_notes = strdup(n);
		}
		if (owned)
			cJSON_Delete(ma);
	}
	if (tc_scope(x) == -1)
		return call_fail(x->c, "out of memory");
	if (!x->inc_rel) {
		/* nothing of the graph is shown; skip reading other files */
		return tc_pin_sources(x);
	}
	if (ctx_rel_build(x) == -1)
		return -1;
	return tc_pin_sources(x);
}

int
tool_get_table_context(struct call *c)
{
	struct ctx x;
	struct ctx_obj o;
	struct ctx_md m;
	const cJSON *v;
	size_t pos = 0;
	int rc = -1;

	memset(&x, 0, sizeof(x));
	x.serial = tc_next_serial();
	memset(&o, 0, sizeof(o));
	memset(&m, 0, sizeof(m));
	x.c = c;
	x.db = c->conn->db;
	v = cJSON_GetObjectItemCaseSensitive(c->args, "table");
	if (!cJSON_IsString(v))
		return call_fail(c, "get_table_context requires 'table'.");
	x.fqn = v->valuestring;
	v = cJSON_GetObjectItemCaseSensitive(c->args, "purpose");
	x.purpose = cJSON_IsString(v) && strcmp(v->valuestring, "query") == 0 ?
	    CTX_QUERY : CTX_PROFILE;
	v = cJSON_GetObjectItemCaseSensitive(c->args, "format");
	x.format = !cJSON_IsString(v) ? CTX_MD :
	    strcmp(v->valuestring, "json") == 0 ? CTX_JSON :
	    strcmp(v->valuestring, "yaml") == 0 ? CTX_YAML : CTX_MD;
	x.inc_stats = tc_flag(c->args, "include_stats");
	x.inc_rel = tc_flag(c->args, "include_relationships");
	x.inc_desc = tc_flag(c->args, "include_description");
	x.inc_annot = tc_flag(c->args, "include_annotations");
	if (tc_load(&x) == -1 || call_position(c, &pos) == -1)
		goto done;
	if (x.format == CTX_MD) {
		if (ctx_md_build(&x, &m) == -1)
			goto done;
		rc = ctx_page_md(c, &m, pos);
	} else {
		if (ctx_obj_build(&x, &o) == -1)
			goto done;
		rc = ctx_page_obj(c, &o, x.format == CTX_YAML, pos);
	}
done:
	ctx_md_release(&m);
	ctx_obj_release(&o);
	tc_release(&x);
	return rc;
}

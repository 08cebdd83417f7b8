/*
 * tool_search_columns.c - search_columns (spec 4.3): every column, and
 * every part of a column, that passes all of the call's predicates, in
 * (table, column) order, each with the match fields the spec lists.
 *
 * Cost follows what a call matches, not the size of the print:
 *   - a glob filter (classification, sql_type, sensitivity, looks_like,
 *     redacted) first finds the few distinct values of its field that
 *     the glob matches - one index seek per distinct value - and the
 *     columns are then read by equality on the field's index;
 *   - text narrows through the column_text trigram index when it is at
 *     least three characters long, as does the longest literal run of a
 *     name pattern; every match is then confirmed in C with Python's
 *     semantics (fnmatchcase, casefold substring).
 * The reply depends on manifest.yaml and every declared statistics and
 * statistics_annotations file, so those are the files pinned.
 */
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* The glob filters: argument name = columns field name. */
static const char *const sc_globs[] = {
	"classification", "sql_type", "sensitivity", "looks_like", "redacted"
};
#define SC_NGLOBS	(sizeof(sc_globs) / sizeof(sc_globs[0]))

/* Seek the least value of a field at or above / above ?1 (an index seek
 * each; the partial indexes apply since the comparison implies NOT
 * NULL). */
static const char *const sc_seek_ge[SC_NGLOBS] = {
	"SELECT min(classification) FROM columns WHERE classification >= ?1",
	"SELECT min(sql_type) FROM columns WHERE sql_type >= ?1",
	"SELECT min(sensitivity) FROM columns WHERE sensitivity >= ?1",
	"SELECT min(looks_like) FROM columns WHERE looks_like >= ?1",
	"SELECT min(redacted) FROM columns WHERE redacted >= ?1",
};
static const char *const sc_seek_gt[SC_NGLOBS] = {
	"SELECT min(classification) FROM columns WHERE classification > ?1",
	"SELECT min(sql_type) FROM columns WHERE sql_type > ?1",
	"SELECT min(sensitivity) FROM columns WHERE sensitivity > ?1",
	"SELECT min(looks_like) FROM columns WHERE looks_like > ?1",
	"SELECT min(redacted) FROM columns WHERE redacted > ?1",
};
/* The main query's condition per glob filter; ?N is a JSON array. */
static const char *const sc_in[SC_NGLOBS] = {
	" AND c.classification IN (SELECT value FROM json_each(?%d))",
	" AND c.sql_type IN (SELECT value FROM json_each(?%d))",
	" AND c.sensitivity IN (SELECT value FROM json_each(?%d))",
	" AND c.looks_like IN (SELECT value FROM json_each(?%d))",
	" AND c.redacted IN (SELECT value FROM json_each(?%d))",
};

enum {
	SC_ID, SC_TABLE, SC_NAME, SC_PART, SC_LABEL, SC_SQL_TYPE, SC_CLASS,
	SC_LOOKS, SC_SAMPLED, SC_MATCHED, SC_SENS, SC_REDACTED, SC_CK,
	SC_CKX, SC_NOTE, SC_OCC, SC_ROWS, SC_T_ROWS, SC_T_SCOPED, SC_T_SCOPE,
	SC_T_SCANNED, SC_T_STATS_ROWS
};

static const char sc_select[] =
    "SELECT c.id, c.table_fqn, c.name, c.part, c.label, c.sql_type, "
    "c.classification, c.looks_like, c.sampled, c.matched, c.sensitivity, "
    "c.redacted, c.candidate_key, c.candidate_key_exception, c.note, "
    "c.occurrences, c.rows_scanned, t.row_count, t.scoped, t.scope, "
    "t.rows_scanned, t.stats_row_count "
    "FROM columns c JOIN tables t ON t.fqn = c.table_fqn "
    "WHERE t.walkable = 1";

/* One matching per-value note, from the prescan of short needles. */
struct sc_vnote {
	char	*table;
	char	*name;
	char	*value;		/* JSON */
	char	*note;
};

struct sc {
	struct call	*c;
	const char	*pattern;	/* NULL: none */
	const char	*globv[SC_NGLOBS];	/* NULL: filter unset */
	char		*globin[SC_NGLOBS];	/* JSON arrays of values */
	int		 ck;		/* -1 unset, else 0/1 */
	char		*needle;	/* casefolded text, NULL: none */
	int		 fts;		/* the needle narrows through FTS */
	struct sc_vnote	*vn;		/* prescanned notes (no FTS) */
	size_t		 nvn;
	sqlite3_stmt	*vnst;		/* per-column value notes */
};

static int
sc_dberr(struct sc *s)
{
	return call_fail(s->c, "index read failed: %s",
	    sqlite3_errmsg(s->c->conn->db));
}

/* The distinct values of glob field i that the glob matches, as a JSON
 * array text into s->globin[i]; *none set when there are none. */
static int
sc_glob_values(struct sc *s, size_t i, int *none)
{
	sqlite3_stmt *ge = NULL, *gt = NULL, *st;
	cJSON *arr = NULL;
	const char *v;
	char *last = NULL;
	int rc, r = -1;

	if ((arr = cJSON_CreateArray()) == NULL)
		return call_fail(s->c, "out of memory");
	if (sqlite3_prepare_v2(s->c->conn->db, sc_seek_ge[i], -1, &ge,
	    NULL) != SQLITE_OK || sqlite3_prepare_v2(s->c->conn->db,
	    sc_seek_gt[i], -1, &gt, NULL) != SQLITE_OK) {
		sc_dberr(s);
		goto out;
	}
	st = ge;
	sqlite3_bind_text(ge, 1, "", -1, SQLITE_STATIC);
	for (;;) {
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW) {
			sc_dberr(s);
			goto out;
		}
		if ((v = (const char *)sqlite3_column_text(st, 0)) == NULL)
			break;
		if (dbp_fnmatch(s->globv[i], v))
			cJSON_AddItemToArray(arr, cJSON_CreateString(v));
		free(last);
		if ((last = strdup(v)) == NULL) {
			call_fail(s->c, "out of memory");
			goto out;
		}
		sqlite3_reset(st);
		st = gt;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, last, -1, SQLITE_STATIC);
	}
	*none = cJSON_GetArraySize(arr) == 0;
	if ((s->globin[i] = cJSON_PrintUnformatted(arr)) == NULL) {
		call_fail(s->c, "out of memory");
		goto out;
	}
	r = 0;
out:
	sqlite3_finalize(ge);
	sqlite3_finalize(gt);
	cJSON_Delete(arr);
	free(last);
	return r;
}

/* Append an FTS5 phrase for literal text (quotes doubled), optionally
 * limited to a column. */
static void
sc_fts_phrase(struct dbp_buf *b, const char *col, const char *lit,
    size_t n)
{
	size_t i;

	if (b->len > 0)
		dbp_buf_adds(b, " AND ");
	if (col != NULL)
		dbp_buf_addf(b, "%s : ", col);
	dbp_buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		if (lit[i] == '"')
			dbp_buf_addc(b, '"');
		dbp_buf_addc(b, lit[i]);
	}
	dbp_buf_addc(b, '"');
}

/* Characters (code points) in s[0..n). */
static size_t
sc_chars(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			k++;
	return k;
}

/* The longest run of literal characters in an fnmatch pattern (no * ?
 * [ ] inside): *at and its byte length. */
static size_t
sc_literal_run(const char *pat, const char **at)
{
	size_t best = 0, n;
	const char *p = pat;

	*at = pat;
	while (*p != '\0') {
		n = strcspn(p, "*?[]");
		if (sc_chars(p, n) > sc_chars(*at, best)) {
			*at = p;
			best = n;
		}
		p += n;
		if (*p != '\0')
			p++;
	}
	return best;
}

/* Prescan every per-value note for the needle (used when the needle is
 * too short for the trigram index). */
static int
sc_prescan(struct sc *s)
{
	static const char sql[] = "SELECT table_fqn, name, value, note "
	    "FROM value_notes ORDER BY table_fqn, name, ord";
	sqlite3_stmt *st = NULL;
	struct sc_vnote *nv, *e;
	size_t cap = 0;
	char *cf;
	int rc;

	if (sqlite3_prepare_v2(s->c->conn->db, sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return sc_dberr(s);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((cf = tm_casefold((const char *)sqlite3_column_text(st,
		    3))) == NULL)
			goto oom;
		if (strstr(cf, s->needle) == NULL) {
			free(cf);
			continue;
		}
		free(cf);
		if (s->nvn == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			if ((nv = realloc(s->vn, cap * sizeof(*nv))) == NULL)
				goto oom;
			s->vn = nv;
		}
		e = &s->vn[s->nvn++];
		e->table = strdup((const char *)sqlite3_column_text(st, 0));
		e->name = strdup((const char *)sqlite3_column_text(st, 1));
		e->value = strdup((const char *)sqlite3_column_text(st, 2));
		e->note = strdup((const char *)sqlite3_column_text(st, 3));
		if (e->table == NULL || e->name == NULL || e->value == NULL ||
		    e->note == NULL)
			goto oom;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sc_dberr(s);
	return 0;
oom:
	sqlite3_finalize(st);
	return call_fail(s->c, "out of memory");
}

/* Append {value, note} entries of column (table, name) whose note holds
 * the needle to arr.  0 or -1. */
static int
sc_value_notes(struct sc *s, const char *table, const char *name,
    cJSON *arr)
{
	static const char sql[] = "SELECT value, note FROM value_notes "
	    "WHERE table_fqn = ?1 AND name = ?2 ORDER BY ord";
	size_t lo, hi, mid;
	cJSON *o;
	char *cf;
	int rc, cmp;

	if (!s->fts) {
		/* first prescanned note of (table, name), by bisection */
		lo = 0;
		hi = s->nvn;
		while (lo < hi) {
			mid = (lo + hi) / 2;
			cmp = strcmp(s->vn[mid].table, table);
			if (cmp == 0)
				cmp = strcmp(s->vn[mid].name, name);
			if (cmp < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < s->nvn && strcmp(s->vn[lo].table, table) == 0 &&
		    strcmp(s->vn[lo].name, name) == 0; lo++) {
			if ((o = cJSON_CreateObject()) == NULL)
				return -1;
			cJSON_AddItemToObject(o, "value", tm_json(s->vn[lo].value));
			cJSON_AddStringToObject(o, "note", s->vn[lo].note);
			cJSON_AddItemToArray(arr, o);
		}
		return 0;
	}
	if (s->vnst == NULL && sqlite3_prepare_v2(s->c->conn->db, sql, -1,
	    &s->vnst, NULL) != SQLITE_OK)
		return -1;
	sqlite3_reset(s->vnst);
	sqlite3_bind_text(s->vnst, 1, table, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->vnst, 2, name, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(s->vnst)) == SQLITE_ROW) {
		const char *note = (const char *)sqlite3_column_text(s->vnst, 1);

		if ((cf = tm_casefold(note)) == NULL)
			return -1;
		if (strstr(cf, s->needle) != NULL) {
			if ((o = cJSON_CreateObject()) == NULL) {
				free(cf);
				return -1;
			}
			cJSON_AddItemToObject(o, "value", tm_json((const char *)
			    sqlite3_column_text(s->vnst, 0)));
			cJSON_AddStringToObject(o, "note", note);
			cJSON_AddItemToArray(arr, o);
		}
		free(cf);
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

/* 1 when casefold(t) holds the needle; t may be NULL. */
static int
sc_has(struct sc *s, const char *t, int *oom)
{
	char *cf;
	int hit;

	if (t == NULL)
		return 0;
	if ((cf = tm_casefold(t)) == NULL) {
		*oom = 1;
		return 0;
	}
	hit = strstr(cf, s->needle) != NULL;
	free(cf);
	return hit;
}

static int
sc_blank(const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' &&
		    *s != '\f' && *s != '\v')
			return 0;
	return 1;
}

static const char *
sc_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static cJSON *
sc_int(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return cJSON_CreateNull();
	return tm_int_node(sqlite3_column_int64(st, i));
}

/* The match object of the current row (upstream 3.2 step 4 key order);
 * vnotes (owned, may be NULL) is attached when non-empty. */
static cJSON *
sc_match(sqlite3_stmt *st, cJSON *vnotes)
{
	const char *part = sc_text(st, SC_PART), *v;
	cJSON *m, *rc;

	if ((m = cJSON_CreateObject()) == NULL) {
		cJSON_Delete(vnotes);
		return NULL;
	}
	cJSON_AddStringToObject(m, "table", sc_text(st, SC_TABLE));
	cJSON_AddStringToObject(m, "column", sc_text(st, SC_NAME));
	v = sc_text(st, SC_SQL_TYPE);
	cJSON_AddStringToObject(m, "sql_type", v != NULL ? v : "");
	v = sc_text(st, SC_CLASS);
	cJSON_AddStringToObject(m, "classification", v != NULL ? v : "");
	if (sqlite3_column_type(st, SC_T_ROWS) != SQLITE_NULL)
		cJSON_AddItemToObject(m, "row_count", sc_int(st, SC_T_ROWS));
	if (sqlite3_column_int(st, SC_T_SCOPED) == 1) {
		/* spec 4.3: a part of a table read in part carries the scope
		 * block too (upstream drops it for parts) */
		if (part[0] == '\0' &&
		    sqlite3_column_type(st, SC_ROWS) != SQLITE_NULL)
			cJSON_AddItemToObject(m, "rows_scanned", sc_int(st,
			    SC_ROWS));
		else if (sqlite3_column_type(st, SC_T_SCANNED) != SQLITE_NULL)
			cJSON_AddItemToObject(m, "rows_scanned", sc_int(st,
			    SC_T_SCANNED));
		v = sc_text(st, SC_T_SCOPE);
		cJSON_AddItemToObject(m, "scope", tm_json(v != NULL ? v :
		    "{}"));
		if (sqlite3_column_type(st, SC_T_STATS_ROWS) != SQLITE_NULL) {
			rc = sc_int(st, SC_T_STATS_ROWS);
			if (cJSON_HasObjectItem(m, "row_count"))
				cJSON_ReplaceItemInObjectCaseSensitive(m,
				    "row_count", rc);
			else
				cJSON_AddItemToObject(m, "row_count", rc);
		}
	}
	if ((v = sc_text(st, SC_LOOKS)) != NULL) {
		cJSON_AddStringToObject(m, "looks_like", v);
		if (sqlite3_column_type(st, SC_SAMPLED) != SQLITE_NULL)
			cJSON_AddItemToObject(m, "sampled", sc_int(st,
			    SC_SAMPLED));
		if (sqlite3_column_type(st, SC_MATCHED) != SQLITE_NULL)
			cJSON_AddItemToObject(m, "matched", sc_int(st,
			    SC_MATCHED));
	}
	if ((v = sc_text(st, SC_SENS)) != NULL)
		cJSON_AddStringToObject(m, "sensitivity", v);
	if ((v = sc_text(st, SC_REDACTED)) != NULL && v[0] != '\0')
		cJSON_AddStringToObject(m, "redacted", v);
	if (sqlite3_column_type(st, SC_CK) != SQLITE_NULL &&
	    sqlite3_column_int(st, SC_CK) != 0) {
		cJSON_AddTrueToObject(m, "candidate_key");
		if ((v = sc_text(st, SC_CKX)) != NULL)
			cJSON_AddItemToObject(m, "candidate_key_exception",
			    tm_json(v));
	}
	if (part[0] == '\0') {
		v = sc_text(st, SC_NOTE);
		if (!sc_blank(v))
			cJSON_AddStringToObject(m, "annotation", v);
		if (vnotes != NULL && cJSON_GetArraySize(vnotes) > 0) {
			cJSON_AddItemToObject(m, "value_notes", vnotes);
			vnotes = NULL;
		}
	} else {
		cJSON_AddStringToObject(m, "part", part);
		cJSON_AddItemToObject(m, "occurrences", sc_int(st, SC_OCC));
	}
	cJSON_Delete(vnotes);
	return m;
}

/* Pin manifest.yaml, then every declared statistics and annotations
 * file of every walkable table (upstream 3.2 step 2). */
static int
sc_pin(struct call *c)
{
	/* artifacts rows exist for walkable entries only (schema.sql) */
	static const char sql[] = "SELECT path FROM artifacts WHERE "
	    "kind IN ('statistics', 'statistics_annotations') AND "
	    "path IS NOT NULL";

	if (call_pin1(c, "manifest.yaml") == -1)
		return -1;
	return call_pin_query(c, sql);
}

/* FQNs of walkable tables matching sql (one text column), sorted. */
static cJSON *
sc_tables(struct call *c, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cJSON *arr;
	int rc;

	if ((arr = cJSON_CreateArray()) == NULL) {
		call_fail(c, "out of memory");
		return NULL;
	}
	if (sqlite3_prepare_v2(c->conn->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		cJSON_AddItemToArray(arr, cJSON_CreateString(
		    (const char *)sqlite3_column_text(st, 0)));
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

/* Run the main query and collect every match into items. */
static int
sc_collect(struct sc *s, cJSON *items)
{
	struct dbp_buf q, fts;
	sqlite3_stmt *st = NULL;
	const char *lit, *label;
	size_t i, nlit;
	int np = 0, rc, r = -1, oom = 0, hit;
	int bind_fts = 0, bind_ck = 0, bind_glob[SC_NGLOBS];
	cJSON *vn, *m;

	dbp_buf_init(&q, DBP_MAX_FRAME);
	dbp_buf_init(&fts, DBP_MAX_FRAME);
	dbp_buf_adds(&q, sc_select);
	if (s->fts)
		sc_fts_phrase(&fts, NULL, s->needle, strlen(s->needle));
	if (s->pattern != NULL) {
		nlit = sc_literal_run(s->pattern, &lit);
		if (sc_chars(lit, nlit) >= TM_FTS_MIN)
			sc_fts_phrase(&fts, "label", lit, nlit);
	}
	if (fts.len > 0) {
		bind_fts = ++np;
		dbp_buf_addf(&q, " AND c.id IN (SELECT rowid FROM column_text "
		    "WHERE column_text MATCH ?%d)", bind_fts);
	}
	for (i = 0; i < SC_NGLOBS; i++) {
		bind_glob[i] = 0;
		if (s->globin[i] == NULL)
			continue;
		bind_glob[i] = ++np;
		dbp_buf_addf(&q, sc_in[i], bind_glob[i]);
	}
	if (s->ck != -1) {
		bind_ck = ++np;
		/* a part never carries candidate_key (SPEC 2.2.3): the
		 * implied False of its ratio is not a known value */
		dbp_buf_addf(&q, " AND c.part = '' AND c.candidate_key = ?%d",
		    bind_ck);
	}
	/* spec 4.3: a catalog-only view never matches the four filters its
	 * marker forbids */
	if (s->ck != -1 || s->globv[2] != NULL || s->globv[3] != NULL ||
	    s->globv[4] != NULL)
		dbp_buf_adds(&q, " AND t.catalog_only IS NOT 1");
	dbp_buf_adds(&q, " ORDER BY c.table_fqn, c.name, c.part <> '', c.ord");
	if (q.failed || fts.failed) {
		call_fail(s->c, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(s->c->conn->db, q.ptr, -1, &st, NULL) !=
	    SQLITE_OK) {
		sc_dberr(s);
		goto out;
	}
	if (bind_fts)
		sqlite3_bind_text(st, bind_fts, fts.ptr, -1, SQLITE_STATIC);
	for (i = 0; i < SC_NGLOBS; i++)
		if (bind_glob[i])
			sqlite3_bind_text(st, bind_glob[i], s->globin[i], -1,
			    SQLITE_STATIC);
	if (bind_ck)
		sqlite3_bind_int(st, bind_ck, s->ck);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		label = sc_text(st, SC_LABEL);
		if (s->pattern != NULL && !dbp_fnmatch(s->pattern, label))
			continue;
		vn = NULL;
		if (s->needle != NULL) {
			if (sc_text(st, SC_PART)[0] != '\0')
				hit = sc_has(s, label, &oom);
			else {
				if ((vn = cJSON_CreateArray()) == NULL ||
				    sc_value_notes(s, sc_text(st, SC_TABLE),
				    sc_text(st, SC_NAME), vn) == -1) {
					cJSON_Delete(vn);
					sc_dberr(s);
					goto out;
				}
				hit = cJSON_GetArraySize(vn) > 0 ||
				    sc_has(s, sc_text(st, SC_NAME), &oom) ||
				    sc_has(s, sc_text(st, SC_NOTE), &oom);
			}
			if (oom) {
				cJSON_Delete(vn);
				call_fail(s->c, "out of memory");
				goto out;
			}
			if (!hit) {
				cJSON_Delete(vn);
				continue;
			}
		}
		if ((m = sc_match(st, vn)) == NULL) {
			call_fail(s->c, "out of memory");
			goto out;
		}
		cJSON_AddItemToArray(items, m);
	}
	if (rc != SQLITE_DONE) {
		sc_dberr(s);
		goto out;
	}
	r = 0;
out:
	sqlite3_finalize(st);
	dbp_buf_release(&q);
	dbp_buf_release(&fts);
	return r;
}

int
tool_search_columns(struct call *c)
{
	static const char sql_unreadable[] = "SELECT fqn FROM tables "
	    "WHERE walkable = 1 AND (stats_status IN ('parse_error', "
	    "'too_large', 'unreadable') OR annot_status IN ('parse_error', "
	    "'schema_error', 'too_large', 'unreadable')) ORDER BY fqn";
	static const char sql_switched[] = "SELECT fqn FROM tables "
	    "WHERE walkable = 1 AND disabled IS NOT NULL AND "
	    "json_valid(disabled) AND EXISTS (SELECT 1 FROM "
	    "json_each(tables.disabled) WHERE value = 'looks_like') "
	    "ORDER BY fqn";
	struct sc s;
	struct page_list pl;
	const cJSON *a;
	cJSON *items = NULL, *head = NULL, *arr;
	size_t pos, i;
	int r = -1, none = 0, rc;
	char *mst = NULL, *merr = NULL;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.ck = -1;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "pattern");
	if (cJSON_IsString(a))
		s.pattern = a->valuestring;
	for (i = 0; i < SC_NGLOBS; i++) {
		a = cJSON_GetObjectItemCaseSensitive(c->args, sc_globs[i]);
		if (cJSON_IsString(a))
			s.globv[i] = a->valuestring;
	}
	a = cJSON_GetObjectItemCaseSensitive(c->args, "candidate_key");
	if (cJSON_IsBool(a))
		s.ck = cJSON_IsTrue(a);
	a = cJSON_GetObjectItemCaseSensitive(c->args, "text");
	if (cJSON_IsString(a) && (s.needle = tm_casefold(a->valuestring)) ==
	    NULL)
		return call_fail(c, "out of memory");
	if (sc_pin(c) == -1 || call_position(c, &pos) == -1)
		goto out;
	/* an absent manifest matches nothing; an unreadable one fails */
	if ((rc = ans_file_state(c->conn, "manifest.yaml", &mst, &merr)) ==
	    -1) {
		sc_dberr(&s);
		goto out;
	}
	if (rc == 0 && strcmp(mst, "ok") != 0 && strcmp(mst, "absent") != 0) {
		call_fail(c, "%s", merr != NULL ? merr :
		    "manifest.yaml could not be read");
		goto out;
	}
	if ((items = cJSON_CreateArray()) == NULL ||
	    (head = cJSON_CreateObject()) == NULL) {
		call_fail(c, "out of memory");
		goto out;
	}
	if ((arr = sc_tables(c, sql_unreadable)) == NULL)
		goto out;
	if (cJSON_GetArraySize(arr) > 0)
		cJSON_AddItemToObject(head, "unreadable_tables", arr);
	else
		cJSON_Delete(arr);
	if (s.globv[3] != NULL) {
		if ((arr = sc_tables(c, sql_switched)) == NULL)
			goto out;
		if (cJSON_GetArraySize(arr) > 0)
			cJSON_AddItemToObject(head, "switched_off_tables", arr);
		else
			cJSON_Delete(arr);
	}
	for (i = 0; i < SC_NGLOBS && !none; i++)
		if (s.globv[i] != NULL && sc_glob_values(&s, i, &none) == -1)
			goto out;
	if (!none && s.needle != NULL) {
		s.fts = sc_chars(s.needle, strlen(s.needle)) >= TM_FTS_MIN;
		if (!s.fts && sc_prescan(&s) == -1)
			goto out;
	}
	if (!none && sc_collect(&s, items) == -1)
		goto out;
	memset(&pl, 0, sizeof(pl));
	pl.head = head;
	pl.key[0] = "matches";
	pl.empty_on_first[0] = 1;
	pl.items[0] = items;
	r = page_list(c, &pl, pos);
out:
	for (i = 0; i < SC_NGLOBS; i++)
		free(s.globin[i]);
	for (i = 0; i < s.nvn; i++) {
		free(s.vn[i].table);
		free(s.vn[i].name);
		free(s.vn[i].value);
		free(s.vn[i].note);
	}
	free(s.vn);
	sqlite3_finalize(s.vnst);
	free(s.needle);
	free(mst);
	free(merr);
	cJSON_Delete(items);
	cJSON_Delete(head);
	return r;
}

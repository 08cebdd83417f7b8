/*
 * tool_resolve_value.c - resolve_value (spec 4.7): how a phrase, code or
 * spelling is stored in one column's published values list.
 *
 * The match is the first that applies: stored (the text folds to listed
 * values: one index lookup on column_values(column_id, fold)); definition
 * (a value's note names the text on word boundaries, either way round:
 * only the column's few per-value notes are read); nearest (trigram
 * Jaccard above a floor: a long list is scored from the posting lists of
 * the text's own trigrams in value_trigrams, a short one whole); none;
 * or unavailable with its reason.  Every non-list key rides every page;
 * spellings or candidates are walked before domain.
 *
 * The reply depends on manifest.yaml and the table's declared statistics
 * and statistics_annotations files; those are pinned.
 */
#define _POSIX_C_SOURCE	200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "platform.h"

/* The column (or part) resolved against. */
struct rv_col {
	sqlite3_int64	 id;
	char		*classification;
	char		*coverage;	/* JSON spelling or NULL */
	char		*state;		/* values_state */
	long long	 listed;
	int		 complete;
	char		*redacted;
	char		*looks_like;
};

/* The table. */
struct rv_tab {
	int		 scoped;
	char		*scope;		/* JSON */
	int		 has_rows;
	long long	 stats_rows;
	int		 has_scanned;
	long long	 scanned;
	int		 catalog_only;
};

/* One candidate of the nearest match. */
struct rv_near {
	int		 ord;
	double		 score;
	char		*text;
};

struct rv {
	struct call	*c;
	const char	*table;
	const char	*column;
	const char	*part;		/* NULL: the column itself */
	const char	*text;
	struct rv_tab	 t;
	struct rv_col	 col;
	char		*fold;		/* fold(text) */
};

static int
rv_dberr(struct rv *r)
{
	return call_fail(r->c, "index read failed: %s",
	    sqlite3_errmsg(r->c->conn->db));
}

static char *
rv_dup(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return t == NULL ? NULL : strdup(t);
}

/* The columns of column_values a payload is read from; a query adds its
 * WHERE. */
#define RV_PAYLOAD_SQL	"SELECT ord, value, count, note, spelling_of, " \
	"text, fold FROM column_values"

/* The rows of SELECT sel whose fold is ?2 (and that pass "AND cond"), in
 * column ?1's list: its first DBP_FOLD_SCAN rows through the primary key,
 * the rest through the partial index column_values_by_fold. */
#define RV_BY_FOLD(sel, cond)	sel " WHERE column_id = ?1 AND fold = ?2 " \
	cond " AND ord < " DBP_FOLD_SCAN " UNION ALL " sel " INDEXED BY " \
	"column_values_by_fold WHERE column_id = ?1 AND fold = ?2 " cond \
	" AND ord >= " DBP_FOLD_SCAN

/* The payload {value, count, [note], [spelling_of]} of a row selected
 * by RV_PAYLOAD_SQL: (ord, value, count, note, spelling_of, text, fold). */
static cJSON *
rv_payload(sqlite3_stmt *st)
{
	cJSON *p;
	const char *v;

	if ((p = cJSON_CreateObject()) == NULL)
		return NULL;
	srv_json_put(p, "value", tm_json((const char *)
	    sqlite3_column_text(st, 1)));
	if (sqlite3_column_type(st, 2) == SQLITE_NULL)
		cJSON_AddNullToObject(p, "count");
	else
		srv_json_put(p, "count", tm_int_node(
		    sqlite3_column_int64(st, 2)));
	if ((v = (const char *)sqlite3_column_text(st, 3)) != NULL)
		cJSON_AddStringToObject(p, "note", v);
	if ((v = (const char *)sqlite3_column_text(st, 4)) != NULL &&
	    strcmp(v, "null") != 0)
		srv_json_put(p, "spelling_of", tm_json(v));
	return p;
}

/* The table's declared statistics (k = 0) and statistics_annotations
 * (k = 1) files, pinned in one refresh: path[k] gets the relative path
 * (malloc'd; NULL when undeclared or leading outside the root),
 * declared[k] whether the manifest declares it at all. */
static int
rv_artifacts(struct rv *r, char *path[2], int declared[2])
{
	static const char sql[] = "SELECT kind, path FROM artifacts WHERE "
	    "table_fqn = ?1 AND kind IN ('statistics', "
	    "'statistics_annotations')";
	sqlite3_stmt *st = NULL;
	const char *pins[2];
	size_t npins = 0;
	int rc, k;

	path[0] = path[1] = NULL;
	declared[0] = declared[1] = 0;
	if (sqlite3_prepare_v2(r->c->conn->db, sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return rv_dberr(r);
	sqlite3_bind_text(st, 1, r->table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		k = strcmp((const char *)sqlite3_column_text(st, 0),
		    "statistics") == 0 ? 0 : 1;
		declared[k] = 1;
		free(path[k]);
		path[k] = rv_dup(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rv_dberr(r);
	for (k = 0; k < 2; k++)
		if (path[k] != NULL)
			pins[npins++] = path[k];
	return call_pin(r->c, pins, npins);
}

/* Fail for a declared file whose path leads outside the print root: the
 * indexer's message for it (SPEC 2.5). */
static int
rv_escaped(struct rv *r, const char *kind, const char *file)
{
	static const char sql[] = "SELECT error FROM files WHERE "
	    "table_fqn = ?1 AND kind = ?2 AND error IS NOT NULL";
	sqlite3_stmt *st = NULL;
	char *msg = NULL;

	if (sqlite3_prepare_v2(r->c->conn->db, sql, -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, r->table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			msg = rv_dup(st, 0);
	}
	sqlite3_finalize(st);
	if (msg != NULL) {
		call_fail(r->c, "%s", msg);
		free(msg);
		return -1;
	}
	return call_fail(r->c, "%s of table '%s' leads outside the print "
	    "root (SPEC 2.5); not read", file, r->table);
}

/* Fail with the files row's message when the declared file at path is
 * not usable: absent or unparseable (statistics), unparseable or off its
 * schema (annotations, where absent is allowed).  0 when usable. */
static int
rv_file_ok(struct rv *r, const char *path, const char *kind,
    const char *file, int may_miss)
{
	char *st, *err;
	int rc, r2 = 0;

	if (path == NULL)
		return rv_escaped(r, kind, file);
	rc = ans_file_state(r->c->conn, path, &st, &err);
	if (rc == -1)
		return rv_dberr(r);
	if (rc == 1)
		return may_miss ? 0 : call_fail(r->c, "manifest references %s "
		    "but file is absent at %s. Re-run dbprint generate.", file,
		    path);
	/* a statistics.yaml that parses to no mapping reads as one listing
	 * no columns (upstream 3.3), so the column error names none */
	if (strcmp(st, "ok") == 0 || (may_miss && strcmp(st, "absent") == 0) ||
	    (!may_miss && strcmp(st, "shape_error") == 0))
		r2 = 0;
	else if (err != NULL)
		r2 = call_fail(r->c, "%s", err);
	else
		r2 = call_fail(r->c, "%s: %s could not be read (%s)", path, file,
		    st);
	free(st);
	free(err);
	return r2;
}

/* The table's facts; 1 when it is no walkable entry. */
static int
rv_table(struct rv *r)
{
	static const char sql[] = "SELECT scoped, scope, stats_row_count, "
	    "rows_scanned, catalog_only FROM tables WHERE fqn = ?1 AND "
	    "walkable = 1";
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(r->c->conn->db, sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return rv_dberr(r);
	sqlite3_bind_text(st, 1, r->table, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->t.scoped = sqlite3_column_int(st, 0) == 1;
		r->t.scope = rv_dup(st, 1);
		r->t.has_rows = sqlite3_column_type(st, 2) != SQLITE_NULL;
		r->t.stats_rows = sqlite3_column_int64(st, 2);
		r->t.has_scanned = sqlite3_column_type(st, 3) != SQLITE_NULL;
		r->t.scanned = sqlite3_column_int64(st, 3);
		r->t.catalog_only = sqlite3_column_int(st, 4) == 1;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	return rc == SQLITE_ROW ? 0 : rv_dberr(r);
}

/* "a, b, c" of the sorted first column of sql bound to (?1, ?2); NULL
 * when there are none.  *err set on failure. */
static char *
rv_names(struct rv *r, const char *sql, const char *a, const char *b,
    int *err)
{
	sqlite3_stmt *st = NULL;
	struct dbp_buf buf;
	int rc, n = 0;

	*err = 0;
	dbp_buf_init(&buf, DBP_MAX_FILE_BYTES);
	if (sqlite3_prepare_v2(r->c->conn->db, sql, -1, &st, NULL) !=
	    SQLITE_OK) {
		*err = 1;
		return NULL;
	}
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	if (b != NULL)
		sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		dbp_buf_addf(&buf, "%s%s", n++ > 0 ? ", " : "",
		    (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || buf.failed) {
		*err = 1;
		dbp_buf_release(&buf);
		return NULL;
	}
	if (n == 0) {
		dbp_buf_release(&buf);
		return NULL;
	}
	return dbp_buf_take(&buf);
}

/* Find the column (and part); fail with the spec's sentence when the
 * statistics do not carry it. */
static int
rv_column(struct rv *r)
{
	static const char sql[] = "SELECT id, classification, "
	    "values_coverage, values_state, listed, complete, redacted, "
	    "looks_like FROM columns WHERE table_fqn = ?1 AND name = ?2 AND "
	    "part = ?3 AND in_stats = 1";
	static const char sql_cols[] = "SELECT name FROM columns WHERE "
	    "table_fqn = ?1 AND part = '' AND in_stats = 1 ORDER BY name";
	static const char sql_parts[] = "SELECT part FROM columns WHERE "
	    "table_fqn = ?1 AND name = ?2 AND part <> '' AND in_stats = 1 "
	    "ORDER BY part";
	sqlite3_stmt *st = NULL;
	char *names, *qc, *qt, *qp;
	int rc, err, k;

	for (k = 0; k < (r->part != NULL ? 2 : 1); k++) {
		if (sqlite3_prepare_v2(r->c->conn->db, sql, -1, &st, NULL) !=
		    SQLITE_OK)
			return rv_dberr(r);
		sqlite3_bind_text(st, 1, r->table, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->column, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, k == 0 ? "" : r->part, -1,
		    SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			free(r->col.classification);
			free(r->col.coverage);
			free(r->col.state);
			free(r->col.redacted);
			free(r->col.looks_like);
			r->col.id = sqlite3_column_int64(st, 0);
			r->col.classification = rv_dup(st, 1);
			r->col.coverage = rv_dup(st, 2);
			r->col.state = rv_dup(st, 3);
			r->col.listed = sqlite3_column_int64(st, 4);
			r->col.complete = sqlite3_column_int(st, 5) == 1;
			r->col.redacted = rv_dup(st, 6);
			r->col.looks_like = rv_dup(st, 7);
		}
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW)
			continue;
		if (rc != SQLITE_DONE)
			return rv_dberr(r);
		qc = dbp_pyrepr_str(r->column);
		qt = dbp_pyrepr_str(r->table);
		if (k == 0) {
			names = rv_names(r, sql_cols, r->table, NULL, &err);
			if (err)
				rc = rv_dberr(r);
			else if (names == NULL)
				rc = call_fail(r->c, "column %s not found in "
				    "table %s. Columns: none - the table's "
				    "statistics list no columns.", qc, qt);
			else
				rc = call_fail(r->c, "column %s not found in "
				    "table %s. Columns: %s.", qc, qt, names);
		} else {
			qp = dbp_pyrepr_str(r->part);
			names = rv_names(r, sql_parts, r->table, r->column,
			    &err);
			if (err)
				rc = rv_dberr(r);
			else if (names == NULL)
				rc = call_fail(r->c, "part %s not found in "
				    "column %s of table %s. Parts: none - the "
				    "column lists no parts.", qp, qc, qt);
			else
				rc = call_fail(r->c, "part %s not found in "
				    "column %s of table %s. Parts: %s.", qp, qc,
				    qt, names);
			free(qp);
		}
		free(names);
		free(qc);
		free(qt);
		return -1;
	}
	return 0;
}

/* The unavailable reason (upstream 3.3 step 9), or NULL when the values
 * list can be matched.  malloc'd. */
static char *
rv_reason(struct rv *r, int *oom)
{
	static const char *const carried_not[] = { "json", "binary",
	    "unsupported", "spatial", "vector", "composite" };
	const char *st = r->col.state, *cls = r->col.classification;
	char *qc, *out = NULL;
	const char *cause;
	size_t i;

	*oom = 0;
	if ((qc = dbp_pyrepr_str(r->column)) == NULL) {
		*oom = 1;
		return NULL;
	}
	if (st != NULL && strcmp(st, "unmeasured") == 0) {
		if (dbp_asprintf(&out, "column %s values are unmeasured: "
		    "the read failed this run", qc) < 0)
			out = NULL;
	} else if (st == NULL || strcmp(st, "listed") != 0) {
		cause = "not emitted for this column";
		if (st != NULL && strcmp(st, "redacted") == 0)
			cause = "withheld by the redacted marker";
		else if (r->t.catalog_only)
			cause = "not measured for a catalog-only view";
		else if (cls != NULL && strcmp(cls, "text") == 0 &&
		    r->col.looks_like != NULL &&
		    strcmp(r->col.looks_like, "prose") == 0)
			cause = "not carried by prose";
		else
			for (i = 0; cls != NULL && i < sizeof(carried_not) /
			    sizeof(carried_not[0]); i++)
				if (strcmp(cls, carried_not[i]) == 0)
					cause = NULL;
		if (cause == NULL) {
			if (dbp_asprintf(&out, "column %s publishes no "
			    "values: not carried by %s", qc, cls) < 0)
				out = NULL;
		} else if (dbp_asprintf(&out,
		    "column %s publishes no values: %s", qc, cause) < 0)
			out = NULL;
	} else if (r->col.redacted != NULL && r->col.redacted[0] != '\0') {
		if (dbp_asprintf(&out, "column %s is redacted (%s), so its "
		    "values are withheld", qc, r->col.redacted) < 0)
			out = NULL;
	} else if (r->t.scoped && r->t.has_scanned && r->t.scanned == 0) {
		if ((out = strdup("the scan read no rows, so there is no value "
		    "list to match the phrase against")) == NULL)
			*oom = 1;
		free(qc);
		return out;
	} else {
		free(qc);
		return NULL;
	}
	free(qc);
	if (out == NULL)
		*oom = 1;
	return out;
}

/* Append the payloads of rows of a prepared statement to arr. */
static int
rv_rows(struct rv *r, sqlite3_stmt *st, cJSON *arr)
{
	cJSON *p;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((p = rv_payload(st)) == NULL)
			return call_fail(r->c, "out of memory");
		cJSON_AddItemToArray(arr, p);
	}
	return rc == SQLITE_DONE ? 0 : rv_dberr(r);
}

/* Prepare *os, when not yet done, as the row of one list position
 * selected as rv_payload reads it.  0, or -1 (the call failed). */
static int
rv_prep_ord(struct rv *r, sqlite3_stmt **os)
{
	static const char sql_ord[] = RV_PAYLOAD_SQL " WHERE column_id = ?1 "
	    "AND ord = ?2";

	if (*os == NULL && sqlite3_prepare_v2(r->c->conn->db, sql_ord, -1, os,
	    NULL) != SQLITE_OK)
		return rv_dberr(r);
	return 0;
}

/* Point os (from rv_prep_ord) at list position ord of the column. */
static void
rv_at_ord(struct rv *r, sqlite3_stmt *os, int ord)
{
	sqlite3_reset(os);
	sqlite3_bind_int64(os, 1, r->col.id);
	sqlite3_bind_int(os, 2, ord);
}

/* Append to arr the payloads of the rows sql selects for the column
 * (?1), ?2 bound to fold when it is not NULL. */
static int
rv_select(struct rv *r, const char *sql, const char *fold, cJSON *arr)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(r->c->conn->db, sql, -1, &st, NULL) !=
	    SQLITE_OK)
		return rv_dberr(r);
	sqlite3_bind_int64(st, 1, r->col.id);
	if (fold != NULL)
		sqlite3_bind_text(st, 2, fold, -1, SQLITE_STATIC);
	rc = rv_rows(r, st, arr);
	sqlite3_finalize(st);
	return rc;
}

static int
rv_stored(struct rv *r, cJSON *arr)
{
	static const char sql[] = RV_BY_FOLD(RV_PAYLOAD_SQL, "")
	    " ORDER BY ord";

	return rv_select(r, sql, r->fold, arr);
}

static int
rv_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* One per-value note: str(value), the note, and its file position. */
struct rv_vnote {
	char		*text;
	char		*note;
	size_t		 pos;
};

/* By value text, then file position. */
static int
rv_cmp_vnote(const void *a, const void *b)
{
	const struct rv_vnote *x = a, *y = b;
	int c;

	if ((c = strcmp(x->text, y->text)) != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Append to *ords (growing it) the list positions stmt q yields. */
static int
rv_add_ords(sqlite3_stmt *q, int **ords, size_t *no, size_t *capo)
{
	int rc, *a;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (*no == *capo) {
			*capo = *capo == 0 ? 16 : *capo * 2;
			if ((a = realloc(*ords, *capo * sizeof(*a))) == NULL)
				return -1;
			*ords = a;
		}
		(*ords)[(*no)++] = sqlite3_column_int(q, 0);
	}
	return rc == SQLITE_DONE ? 0 : -2;
}

/* Read the column's non-blank per-value notes, in file order, into *vnp. */
static int
rv_read_vnotes(struct rv *r, struct rv_vnote **vnp, size_t *nvp)
{
	static const char sql_notes[] = "SELECT text, note FROM value_notes "
	    "WHERE table_fqn = ?1 AND name = ?2 ORDER BY ord";
	sqlite3_stmt *ns = NULL;
	struct rv_vnote *vn = NULL, *t;
	size_t nv = 0, capv = 0;
	int rc, res = -1;

	if (sqlite3_prepare_v2(r->c->conn->db, sql_notes, -1, &ns, NULL) !=
	    SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(ns, 1, r->table, -1, SQLITE_STATIC);
	sqlite3_bind_text(ns, 2, r->column, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(ns)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(ns, 0);
		const char *n = (const char *)sqlite3_column_text(ns, 1);

		if (k == NULL || n == NULL || n[0] == '\0')
			continue;
		if (nv == capv) {
			capv = capv == 0 ? 16 : capv * 2;
			if ((t = realloc(vn, capv * sizeof(*t))) == NULL)
				goto oom;
			vn = t;
		}
		vn[nv].pos = nv;
		vn[nv].note = NULL;
		if ((vn[nv].text = strdup(k)) == NULL)
			goto oom;
		nv++;
		if ((vn[nv - 1].note = strdup(n)) == NULL)
			goto oom;
	}
	if (rc != SQLITE_DONE)
		goto dberr;
	res = 0;
	goto out;
dberr:
	rv_dberr(r);
	goto out;
oom:
	call_fail(r->c, "out of memory");
out:
	*vnp = vn;
	*nvp = nv;
	sqlite3_finalize(ns);
	return res;
}

/*
 * definition: the column's per-value notes (str(value) -> note, the last
 * of a repeated value winning, blanks dropped, as upstream builds its
 * dict) whose folded note names the phrase or is named by it; then the
 * listed entries of those values, in list order.  The list is read only
 * when a note matches.
 */
static int
rv_definition(struct rv *r, cJSON *arr)
{
	static const char sql_val[] = RV_BY_FOLD("SELECT ord FROM "
	    "column_values", "AND text = ?3");
	static const char sql_null[] = "SELECT ord FROM column_values WHERE "
	    "column_id = ?1 AND text IS NULL";
	sqlite3_stmt *vs = NULL, *zs = NULL, *os = NULL;
	struct rv_vnote *vn = NULL;
	char *nf, *kf;
	int *ords = NULL, rc, res = -1, hit;
	size_t nv = 0, no = 0, capo = 0, i;
	sqlite3 *db = r->c->conn->db;

	if (r->fold[0] == '\0')
		return 0;
	if (rv_read_vnotes(r, &vn, &nv) == -1)
		goto out;
	if (nv > 1)
		qsort(vn, nv, sizeof(*vn), rv_cmp_vnote);
	for (i = 0; i < nv; i++) {
		/* the last note of a value is its note */
		if (i + 1 < nv && strcmp(vn[i].text, vn[i + 1].text) == 0)
			continue;
		if ((nf = tm_fold(vn[i].note)) == NULL)
			goto oom;
		hit = nf[0] != '\0' && (tm_word_in(r->fold, nf) ||
		    tm_word_in(nf, r->fold));
		free(nf);
		if (!hit)
			continue;
		if (vs == NULL && (sqlite3_prepare_v2(db, sql_val, -1, &vs,
		    NULL) != SQLITE_OK || sqlite3_prepare_v2(db, sql_null, -1,
		    &zs, NULL) != SQLITE_OK))
			goto dberr;
		if ((kf = tm_fold(vn[i].text)) == NULL)
			goto oom;
		sqlite3_reset(vs);
		sqlite3_bind_int64(vs, 1, r->col.id);
		sqlite3_bind_text(vs, 2, kf, -1, SQLITE_STATIC);
		sqlite3_bind_text(vs, 3, vn[i].text, -1, SQLITE_STATIC);
		rc = rv_add_ords(vs, &ords, &no, &capo);
		free(kf);
		if (rc == 0 && strcmp(vn[i].text, "None") == 0) {
			sqlite3_reset(zs);
			sqlite3_bind_int64(zs, 1, r->col.id);
			rc = rv_add_ords(zs, &ords, &no, &capo);
		}
		if (rc == -1)
			goto oom;
		if (rc == -2)
			goto dberr;
	}
	if (no == 0) {
		res = 0;
		goto out;
	}
	if (no > 1)
		qsort(ords, no, sizeof(*ords), rv_cmp_int);
	if (rv_prep_ord(r, &os) == -1)
		goto out;
	for (i = 0; i < no; i++) {
		if (i > 0 && ords[i] == ords[i - 1])
			continue;
		rv_at_ord(r, os, ords[i]);
		if (rv_rows(r, os, arr) == -1)
			goto out;
	}
	res = 0;
	goto out;
dberr:
	rv_dberr(r);
	goto out;
oom:
	call_fail(r->c, "out of memory");
out:
	for (i = 0; i < nv; i++) {
		free(vn[i].text);
		free(vn[i].note);
	}
	free(vn);
	free(ords);
	sqlite3_finalize(vs);
	sqlite3_finalize(zs);
	sqlite3_finalize(os);
	return res;
}

static int
rv_near_cmp(const void *a, const void *b)
{
	const struct rv_near *x = a, *y = b;
	int c;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if ((c = strcmp(x->text, y->text)) != 0)
		return c;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Highest score first, then list order: the order before texts are read. */
static int
rv_near_cmp_score(const void *a, const void *b)
{
	const struct rv_near *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Keep entry (ord, text, fold) in the running top list when it scores
 * at or above the floor. */
static int
rv_near_consider(struct rv_near *top, size_t *ntop,
    const struct tm_trigrams *q, int ord, const char *text,
    const char *fold)
{
	struct tm_trigrams t;
	struct rv_near cand;
	double s;

	if (tm_trigrams(fold, &t) == -1)
		return -1;
	s = tm_jaccard(q, &t);
	tm_trigrams_free(&t);
	if (s < TM_NEAREST_FLOOR)
		return 0;
	cand.ord = ord;
	cand.score = s;
	cand.text = (char *)text;
	if (*ntop == TM_NEAREST_LIMIT &&
	    rv_near_cmp(&cand, &top[TM_NEAREST_LIMIT - 1]) >= 0)
		return 0;
	if ((cand.text = strdup(text)) == NULL)
		return -1;
	if (*ntop == TM_NEAREST_LIMIT) {
		free(top[TM_NEAREST_LIMIT - 1].text);
		(*ntop)--;
	}
	top[(*ntop)++] = cand;
	qsort(top, *ntop, sizeof(*top), rv_near_cmp);
	return 0;
}

/* One value met in the text's posting lists. */
struct rv_acc {
	uint32_t	 ord;
	uint32_t	 hits;		/* the text's trigrams it holds */
	uint32_t	 n;		/* its own distinct trigrams */
};

/* The posting lists of a long list's values (value_trigrams). */
struct rv_post {
	uint32_t	*slot;		/* per ord: index + 1 into acc, or 0 */
	uint32_t	 nord;		/* ords below this are valid */
	struct rv_acc	*acc;
	size_t		 nacc;
};

/* Read one unsigned LEB128 varint at *p (below end) into *v: 0, or -1
 * when it is cut short or longer than 32 bits. */
static int
rv_varint(const unsigned char **p, const unsigned char *end, uint32_t *v)
{
	uint32_t x = 0;
	int shift;

	for (shift = 0; shift < 35 && *p < end; shift += 7) {
		x |= (uint32_t)(**p & 0x7f) << shift;
		if ((*(*p)++ & 0x80) == 0) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* Count one posting list (the format is in schema.sql) into pp.  -1 on
 * a malformed list. */
static int
rv_post_add(struct rv_post *pp, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	uint32_t ord = 0, delta, n;
	struct rv_acc *a;
	int first = 1;

	while (p < end) {
		/* ords strictly ascending, each below nord */
		if (rv_varint(&p, end, &delta) == -1 ||
		    rv_varint(&p, end, &n) == -1 || (!first && delta == 0) ||
		    delta >= pp->nord - ord || n == 0)
			return -1;
		ord += delta;
		first = 0;
		if (pp->slot[ord] != 0) {
			pp->acc[pp->slot[ord] - 1].hits++;
			continue;
		}
		a = &pp->acc[pp->nacc];
		a->ord = ord;
		a->hits = 1;
		a->n = n;
		pp->slot[ord] = (uint32_t)++pp->nacc;
	}
	return 0;
}

/* Count into pp the posting list of each of the text's trigrams. */
static int
rv_post_read(struct rv *r, const struct tm_trigrams *q, struct rv_post *pp)
{
	static const char sql_post[] = "SELECT postings FROM value_trigrams "
	    "WHERE column_id = ?1 AND trigram = ?2";
	sqlite3_stmt *st = NULL;
	const unsigned char *blob;
	size_t i;
	char tri[13];
	int rc, res = -1;

	if (sqlite3_prepare_v2(r->c->conn->db, sql_post, -1, &st, NULL) !=
	    SQLITE_OK)
		goto dberr;
	for (i = 0; i < q->n; i++) {
		tm_trigram_text(q->v[i], tri);
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, r->col.id);
		sqlite3_bind_text(st, 2, tri, -1, SQLITE_STATIC);
		if ((rc = sqlite3_step(st)) == SQLITE_DONE)
			continue;
		if (rc != SQLITE_ROW)
			goto dberr;
		blob = sqlite3_column_blob(st, 0);
		if (blob != NULL && rv_post_add(pp, blob,
		    (size_t)sqlite3_column_bytes(st, 0)) == -1) {
			call_fail(r->c, "index read failed: a malformed "
			    "value_trigrams row for trigram '%s'", tri);
			goto out;
		}
	}
	res = 0;
	goto out;
dberr:
	rv_dberr(r);
out:
	sqlite3_finalize(st);
	return res;
}

/*
 * nearest over a long list: every value holding one of the text's
 * trigrams is met in their posting lists, which carry each value's own
 * trigram count, so its Jaccard |A & B| / (|A| + |B| - |A & B|) is exact
 * without reading the value.  Only the values at or above the fifth
 * score (ties included) have their texts read, to order them as the
 * short path does: score, then str(value), then list order.  *top gets
 * at most TM_NEAREST_LIMIT entries.
 */
static int
rv_nearest_long(struct rv *r, const struct tm_trigrams *q,
    sqlite3_int64 maxord, sqlite3_stmt **os, struct rv_near *top,
    size_t *ntop)
{
	struct rv_post pp;
	struct rv_near *cand = NULL;
	size_t i, nc = 0, m, k;
	int res = -1;

	memset(&pp, 0, sizeof(pp));
	if (maxord < 0 || maxord >= (sqlite3_int64)UINT32_MAX / 2)
		return 0;
	pp.nord = (uint32_t)maxord + 1;
	if ((pp.slot = calloc(pp.nord, sizeof(*pp.slot))) == NULL ||
	    (pp.acc = malloc(pp.nord * sizeof(*pp.acc))) == NULL)
		goto oom;
	if (rv_post_read(r, q, &pp) == -1)
		goto out;
	/* Exact scores; those below the floor are out. */
	if (pp.nacc > 0 && (cand = malloc(pp.nacc * sizeof(*cand))) == NULL)
		goto oom;
	for (i = 0; i < pp.nacc; i++) {
		struct rv_acc *a = &pp.acc[i];
		double s = (double)a->hits / (double)(q->n + a->n - a->hits);

		if (a->hits > a->n) {
			call_fail(r->c, "index read failed: a malformed "
			    "value_trigrams row (value %u holds more of the "
			    "text's trigrams than it has)", (unsigned)a->ord);
			goto out;
		}
		if (s < TM_NEAREST_FLOOR)
			continue;
		cand[nc].ord = (int)a->ord;
		cand[nc].score = s;
		cand[nc++].text = NULL;
	}
	if (nc == 0) {
		res = 0;
		goto out;
	}
	qsort(cand, nc, sizeof(*cand), rv_near_cmp_score);
	/* Everything scoring at least the fifth score may place. */
	m = nc < TM_NEAREST_LIMIT ? nc : TM_NEAREST_LIMIT;
	while (m < nc && cand[m].score == cand[m - 1].score)
		m++;
	if (rv_prep_ord(r, os) == -1)
		goto out;
	for (k = 0; k < m; k++) {
		const char *t;

		rv_at_ord(r, *os, cand[k].ord);
		if (sqlite3_step(*os) != SQLITE_ROW)
			goto dberr;
		t = (const char *)sqlite3_column_text(*os, 5);
		if ((cand[k].text = strdup(t != NULL ? t : "")) == NULL)
			goto oom;
	}
	qsort(cand, m, sizeof(*cand), rv_near_cmp);
	for (k = 0; k < m && k < TM_NEAREST_LIMIT; k++) {
		top[(*ntop)++] = cand[k];
		cand[k].text = NULL;
	}
	res = 0;
	goto out;
dberr:
	rv_dberr(r);
	goto out;
oom:
	call_fail(r->c, "out of memory");
out:
	for (k = 0; cand != NULL && k < nc; k++)
		free(cand[k].text);
	free(cand);
	free(pp.slot);
	free(pp.acc);
	return res;
}

/*
 * nearest: a long list (one with value_trigrams rows) is scored from the
 * text's posting lists (rv_nearest_long); a short one is scored whole.
 */
static int
rv_nearest(struct rv *r, cJSON *arr)
{
	static const char sql_has[] = "SELECT EXISTS (SELECT 1 FROM "
	    "value_trigrams WHERE column_id = ?1), (SELECT max(ord) FROM "
	    "column_values WHERE column_id = ?1)";
	static const char sql_all[] = "SELECT ord, text, fold FROM "
	    "column_values WHERE column_id = ?1 AND fold IS NOT NULL";
	struct rv_near top[TM_NEAREST_LIMIT];
	struct tm_trigrams q;
	sqlite3_stmt *st = NULL, *os = NULL;
	sqlite3_int64 maxord;
	size_t ntop = 0, i;
	int rc, res = -1, longlist;
	cJSON *p;

	memset(&q, 0, sizeof(q));
	if (tm_trigrams(r->fold, &q) == -1)
		goto oom;
	if (sqlite3_prepare_v2(r->c->conn->db, sql_has, -1, &st, NULL) !=
	    SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, r->col.id);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto dberr;
	longlist = sqlite3_column_int(st, 0) == 1;
	maxord = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	if (longlist) {
		if (rv_nearest_long(r, &q, maxord, &os, top, &ntop) == -1)
			goto out;
	} else {
		if (sqlite3_prepare_v2(r->c->conn->db, sql_all, -1, &st,
		    NULL) != SQLITE_OK)
			goto dberr;
		sqlite3_bind_int64(st, 1, r->col.id);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (rv_near_consider(top, &ntop, &q,
			    sqlite3_column_int(st, 0),
			    (const char *)sqlite3_column_text(st, 1),
			    (const char *)sqlite3_column_text(st, 2)) == -1)
				goto oom;
		if (rc != SQLITE_DONE)
			goto dberr;
	}
	if (ntop > 0 && rv_prep_ord(r, &os) == -1)
		goto out;
	for (i = 0; i < ntop; i++) {
		rv_at_ord(r, os, top[i].ord);
		if (sqlite3_step(os) != SQLITE_ROW)
			goto dberr;
		if ((p = rv_payload(os)) == NULL)
			goto oom;
		srv_json_put(p, "score", tm_float_node(
		    tm_round(top[i].score, 4)));
		cJSON_AddItemToArray(arr, p);
	}
	res = 0;
	goto out;
dberr:
	rv_dberr(r);
	goto out;
oom:
	call_fail(r->c, "out of memory");
out:
	for (i = 0; i < ntop; i++)
		free(top[i].text);
	tm_trigrams_free(&q);
	sqlite3_finalize(st);
	sqlite3_finalize(os);
	return res;
}

/* The whole list as payloads (domain). */
static int
rv_domain(struct rv *r, cJSON *arr)
{
	static const char sql[] = RV_PAYLOAD_SQL " WHERE column_id = ?1 "
	    "ORDER BY ord";

	return rv_select(r, sql, NULL, arr);
}

/* table, column, [part], text: the head of every reply. */
static cJSON *
rv_every(struct rv *r)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "table", r->table);
	cJSON_AddStringToObject(o, "column", r->column);
	if (r->part != NULL)
		cJSON_AddStringToObject(o, "part", r->part);
	cJSON_AddStringToObject(o, "text", r->text);
	return o;
}

/* coverage, exhaustive, listed, [scope, row_count], [sample_caveat]. */
static void
rv_base(struct rv *r, cJSON *o, int unavailable)
{
	char buf[160];

	srv_json_put(o, "coverage", tm_json(r->col.coverage));
	cJSON_AddBoolToObject(o, "exhaustive", r->col.complete &&
	    !r->t.scoped);
	srv_json_put(o, "listed", tm_int_node(r->col.listed));
	if (r->t.scoped) {
		srv_json_put(o, "scope", tm_json(r->t.scope != NULL ?
		    r->t.scope : "{}"));
		if (r->t.has_rows)
			srv_json_put(o, "row_count",
			    tm_int_node(r->t.stats_rows));
	}
	/* the caveat goes from an unavailable reply unless it is scoped */
	if (unavailable && !r->t.scoped)
		return;
	if (!r->col.complete) {
		snprintf(buf, sizeof(buf), "the print lists %lld of the "
		    "column's values; a spelling absent here is not evidence "
		    "that it is absent from the column", r->col.listed);
		cJSON_AddStringToObject(o, "sample_caveat", buf);
	} else if (r->t.scoped)
		cJSON_AddStringToObject(o, "sample_caveat", "the list is the "
		    "whole domain over the rows scanned, not over the table; a "
		    "spelling absent here is not evidence that it is absent "
		    "from the column");
}

/* Resolve against the found column and page the reply. */
static int
rv_answer(struct rv *r, size_t pos)
{
	struct page_list pl;
	cJSON *every = NULL, *found = NULL, *domain = NULL;
	const char *match = "none", *key = NULL;
	char *reason;
	int oom, res = -1;

	memset(&pl, 0, sizeof(pl));
	if ((every = rv_every(r)) == NULL)
		goto oom;
	if ((reason = rv_reason(r, &oom)) != NULL || oom) {
		if (oom)
			goto oom;
		cJSON_AddStringToObject(every, "match", "unavailable");
		cJSON_AddStringToObject(every, "reason", reason);
		free(reason);
		rv_base(r, every, 1);
		goto page;
	}
	rv_base(r, every, 0);
	if ((found = cJSON_CreateArray()) == NULL)
		goto oom;
	if (r->col.complete && r->col.listed <= TM_DOMAIN_LIMIT) {
		if ((domain = cJSON_CreateArray()) == NULL ||
		    rv_domain(r, domain) == -1)
			goto fail;
	}
	if (rv_stored(r, found) == -1)
		goto fail;
	if (cJSON_GetArraySize(found) > 0) {
		match = "stored";
		key = "spellings";
	} else {
		if (rv_definition(r, found) == -1)
			goto fail;
		if (cJSON_GetArraySize(found) > 0)
			match = "definition";
		else if (rv_nearest(r, found) == -1)
			goto fail;
		else if (cJSON_GetArraySize(found) > 0)
			match = "nearest";
		if (cJSON_GetArraySize(found) > 0)
			key = "candidates";
	}
	cJSON_AddStringToObject(every, "match", match);
page:
	pl.every = every;
	if (key != NULL) {
		pl.key[0] = key;
		pl.items[0] = found;
		if (domain != NULL) {
			pl.key[1] = "domain";
			pl.items[1] = domain;
			pl.empty_on_first[1] = 1;
		}
	} else if (domain != NULL) {
		pl.key[0] = "domain";
		pl.items[0] = domain;
		pl.empty_on_first[0] = 1;
	}
	res = page_list(r->c, &pl, pos);
	goto out;
oom:
	call_fail(r->c, "out of memory");
fail:
out:
	cJSON_Delete(every);
	cJSON_Delete(found);
	cJSON_Delete(domain);
	return res;
}

int
tool_resolve_value(struct call *c)
{
	struct rv r;
	const cJSON *a;
	char *path[2] = { NULL, NULL }, *det, *q, *mst, *merr;
	int declared[2], rc, res = -1;
	size_t pos;

	memset(&r, 0, sizeof(r));
	r.c = c;
	if ((a = cJSON_GetObjectItemCaseSensitive(c->args, "table")) != NULL)
		r.table = a->valuestring;
	if ((a = cJSON_GetObjectItemCaseSensitive(c->args, "column")) != NULL)
		r.column = a->valuestring;
	if ((a = cJSON_GetObjectItemCaseSensitive(c->args, "part")) != NULL &&
	    cJSON_IsString(a))
		r.part = a->valuestring;
	if ((a = cJSON_GetObjectItemCaseSensitive(c->args, "text")) != NULL)
		r.text = a->valuestring;
	if (r.table == NULL || r.column == NULL || r.text == NULL)
		return call_fail(c, "resolve_value requires 'table', 'column' "
		    "and 'text'.");
	if (call_pin1(c, "manifest.yaml") == -1)
		return -1;
	rc = ans_file_state(c->conn, "manifest.yaml", &mst, &merr);
	if (rc == -1)
		return rv_dberr(&r);
	if (rc == 0 && strcmp(mst, "ok") != 0 && merr != NULL) {
		call_fail(c, "%s", merr);
		free(mst);
		free(merr);
		return -1;
	}
	free(mst);
	free(merr);
	if ((rc = rv_table(&r)) != 0) {
		if (rc == 1) {
			det = srv_err_unknown_table(c->conn, r.table);
			call_fail(c, "%s", det != NULL ? det : "unknown table");
			free(det);
		}
		goto out;
	}
	if (rv_artifacts(&r, path, declared) == -1 ||
	    call_position(c, &pos) == -1)
		goto out;
	if (!declared[0]) {
		/* upstream 3.3 step 3 */
		struct page_list pl;
		cJSON *every = rv_every(&r);

		if (every == NULL || (q = dbp_pyrepr_str(r.table)) == NULL) {
			cJSON_Delete(every);
			call_fail(c, "out of memory");
			goto out;
		}
		cJSON_AddStringToObject(every, "match", "unavailable");
		det = NULL;
		if (dbp_asprintf(&det,
		    "table %s declares no statistics artifact", q) < 0)
			det = NULL;
		free(q);
		cJSON_AddStringToObject(every, "reason", det != NULL ? det :
		    "");
		free(det);
		cJSON_AddNullToObject(every, "coverage");
		cJSON_AddFalseToObject(every, "exhaustive");
		srv_json_put(every, "listed", tm_int_node(0));
		memset(&pl, 0, sizeof(pl));
		pl.every = every;
		res = page_list(c, &pl, pos);
		cJSON_Delete(every);
		goto out;
	}
	if (rv_file_ok(&r, path[0], "statistics", "statistics.yaml", 0) == -1)
		goto out;
	if (declared[1] && rv_file_ok(&r, path[1],
	    "statistics_annotations", "statistics.annotations.yaml", 1) == -1)
		goto out;
	if (rv_column(&r) == -1)
		goto out;
	if ((r.fold = tm_fold(r.text)) == NULL) {
		call_fail(c, "out of memory");
		goto out;
	}
	res = rv_answer(&r, pos);
out:
	free(path[0]);
	free(path[1]);
	free(r.fold);
	free(r.t.scope);
	free(r.col.classification);
	free(r.col.coverage);
	free(r.col.state);
	free(r.col.redacted);
	free(r.col.looks_like);
	return res;
}

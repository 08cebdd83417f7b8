/*
 * tool_search_columns.c - search_columns (spec 4.3): every column, and
 * every part of a column, that passes all of the call's predicates, in
 * (table, column) order, each with the match fields the spec lists.
 *
 * Cost follows what a call returns, not the size of the print: the
 * matches are counted without being built, and only the rows of the page
 * are read in full.
 *   - A glob filter (classification, sql_type, sensitivity, looks_like,
 *     redacted) first finds the few distinct values of its field that the
 *     glob matches - one index seek per distinct value - and becomes an
 *     IN list over the field's index.
 *   - text of three or more ASCII characters (no newline) goes through
 *     the positional trigram lists of column_grams (sc_text_set), which
 *     give the answer exactly for rows whose text is all ASCII; rows
 *     holding any other character (partial indexes find them) and the
 *     rows of tables changed since the lists were built are tested in C
 *     with Python's casefold.  Shorter text, or text holding a newline
 *     (the separator of the indexed value notes), is tested in C row by
 *     row.
 *   - A name pattern narrows through the same lists by its longest
 *     literal run; every candidate is confirmed with fnmatchcase.
 *   - The page's matches are read in (table, column) order from the
 *     page's first match, as the paging engine asks for them
 *     (page_window): by an ordered walk of the columns that stops once
 *     the page is full, or, when the matches are few, gathered through
 *     their index and sorted - whichever reads fewer rows.
 * The settled predicates and the match count (the plan) of the last few
 * argument sets are kept per index handle while the index does not
 * change (PRAGMA data_version and the handle's own changes), so the next
 * page of a search, or the same search again, costs its page alone;
 * counting is what grows with the print (116,729 index entries for
 * sensitivity "*" on a 100,000-table print).
 * Exclusions (tables not walkable; catalog-only views under the filters
 * their marker forbids) are applied by table name, through partial
 * indexes that hold only such tables.
 * The reply depends on manifest.yaml and every declared statistics and
 * statistics_annotations file, so those are the files pinned.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* Window plan: a page is taken to read this many matches, and a row
 * gathered through an index and sorted (a table row read, a sort) to
 * cost this many rows of an ordered walk (entries of the covering index
 * columns_walk). */
#define SC_PAGE_MATCHES	128
#define SC_GATHER_COST	8

/* The glob filters: argument name = columns field name; filter i binds
 * its JSON array of values to ?(i + 1). */
static const char *const sc_globs[] = {
	"classification", "sql_type", "sensitivity", "looks_like", "redacted"
};
#define SC_NGLOBS	(sizeof(sc_globs) / sizeof(sc_globs[0]))
#define SC_P_CK		6	/* ?6: candidate_key */
#define SC_P_IDS	7	/* ?7: JSON array of candidate ids */

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

/* Tables whose columns never match: not walkable, and (under the rule)
 * catalog-only views.  Each term is the WHERE of a partial index. */
#define SC_EXCL_WALK	"SELECT fqn FROM tables WHERE walkable < 1 AND " \
	"fqn IS NOT NULL UNION ALL SELECT fqn FROM tables WHERE " \
	"walkable > 1 AND fqn IS NOT NULL"
static const char sc_excl_walk[] = SC_EXCL_WALK;
static const char sc_excl_both[] = SC_EXCL_WALK " UNION ALL "
    "SELECT fqn FROM tables WHERE catalog_only = 1 AND fqn IS NOT NULL";

/* Rows whose label, note or a value note holds a byte outside ASCII (or
 * a NUL): the trigram index folds case per character there, which is
 * not casefold.  The terms are those of two partial indexes. */
static const char sc_sql_unsafe[] = "SELECT id FROM columns WHERE "
    "length(CAST(label AS BLOB)) > length(label) OR "
    "length(CAST(note AS BLOB)) > length(note) "
    "UNION SELECT c.id FROM value_notes v JOIN columns c ON "
    "c.table_fqn = v.table_fqn AND c.name = v.name AND c.part = '' "
    "WHERE length(CAST(v.note AS BLOB)) > length(v.note)";

/* The current columns of tables changed since the text index's lists
 * were built (grams.c): its lists do not speak for them. */
static const char sc_sql_dirty[] = "SELECT id FROM columns WHERE "
    "table_fqn IN (SELECT table_fqn FROM column_grams_dirty)";

/* The columns of every candidate statement. */
enum { SC_K_ID, SC_K_LABEL, SC_K_PART, SC_K_NAME, SC_K_NOTE };

/* The columns of a match row. */
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
    "WHERE t.walkable = 1 AND c.id = ?1";

/* How the text predicate is decided. */
enum sc_tmode {
	SC_TEXT_NONE,		/* no text argument */
	SC_TEXT_SET,		/* s->k holds exactly the rows it matches */
	SC_TEXT_SCAN		/* tested in C on every row */
};

/* A sorted set of column ids. */
struct sc_ids {
	sqlite3_int64	*v;
	size_t		 n;
	size_t		 cap;
};

/* A plan kept between calls: what sc_plan and sc_count settled for one
 * argument set (args minus cursor) at one index version. */
#define SC_PLANS	4
struct sc_plan {
	int		 set;		/* the slot holds a plan */
	char		 args[17];
	sqlite3_int64	 dv, tc;	/* the index version it was made at */
	unsigned long	 used;		/* when last used (sc_plans.tick) */
	int		 none;
	char		*globin[SC_NGLOBS];
	int		 sqlpreds;
	const char	*excl;
	enum sc_tmode	 tmode;
	struct sc_ids	 vn, k;
	int		 have_k, k_exact, drive_k;
	char		*kjson;
	size_t		 total, driven;
};

struct sc_plans {
	struct sc_plan	 p[SC_PLANS];
	unsigned long	 tick;
};

/* The key of the plans kept on a handle (srv_keep_get): its address. */
static const char sc_plans_key;

struct sc {
	struct call	*c;
	sqlite3		*db;
	const char	*pattern;	/* NULL: none */
	const char	*globv[SC_NGLOBS];	/* NULL: filter unset */
	char		*globin[SC_NGLOBS];	/* JSON arrays of values */
	int		 ck;		/* -1 unset, else 0/1 */
	int		 sqlpreds;	/* a glob or candidate_key is set */
	const char	*excl;		/* excluded tables' query, NULL: none */
	char		*needle;	/* casefolded text, NULL: none */
	enum sc_tmode	 tmode;
	struct sc_ids	 vn;		/* SC_TEXT_SCAN: a value note matches */
	struct sc_ids	 k;		/* candidates; rows outside never match */
	int		 have_k;
	int		 k_exact;	/* k alone decides text and pattern */
	char		*kjson;		/* k as a JSON array, made on demand */
	int		 drive_k;	/* statements start from k's rows */
	size_t		 total;		/* matches */
	size_t		 driven;	/* rows the count statement stepped */
	sqlite3_stmt	*win;		/* the window's walk */
	size_t		 next;		/* the match win yields next */
	sqlite3_stmt	*row;		/* a match row by id */
	sqlite3_stmt	*vnst;		/* value notes of a column */
	struct sc_plan	*pc;		/* globin, vn, k and kjson are this
					 * kept plan's, not the call's */
};

static int
sc_dberr(struct sc *s)
{
	return call_fail(s->c, "index read failed: %s", sqlite3_errmsg(s->db));
}

static int
sc_oom(struct sc *s)
{
	return call_fail(s->c, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Id sets                                                              */

static int
sc_ids_add(struct sc_ids *a, sqlite3_int64 id)
{
	sqlite3_int64 *nv;
	size_t ncap;

	if (a->n == a->cap) {
		ncap = a->cap == 0 ? 256 : a->cap * 2;
		if ((nv = realloc(a->v, ncap * sizeof(*nv))) == NULL)
			return -1;
		a->v = nv;
		a->cap = ncap;
	}
	a->v[a->n++] = id;
	return 0;
}

static int
sc_ids_cmp(const void *a, const void *b)
{
	sqlite3_int64 x = *(const sqlite3_int64 *)a;
	sqlite3_int64 y = *(const sqlite3_int64 *)b;

	return x < y ? -1 : x > y;
}

/* Sort the set and drop duplicates (rowid order needs no sort). */
static void
sc_ids_sort(struct sc_ids *a)
{
	size_t i, k;

	for (i = 1; i < a->n && a->v[i - 1] < a->v[i]; i++)
		;
	if (i < a->n)
		qsort(a->v, a->n, sizeof(*a->v), sc_ids_cmp);
	for (i = 0, k = 0; i < a->n; i++)
		if (k == 0 || a->v[k - 1] != a->v[i])
			a->v[k++] = a->v[i];
	a->n = k;
}

static int
sc_ids_has(const struct sc_ids *a, sqlite3_int64 id)
{
	size_t lo = 0, hi = a->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->n && a->v[lo] == id;
}

/* Keep in a (sorted) the ids that are (keep 1) or are not (keep 0) in b
 * (sorted). */
static void
sc_ids_filter(struct sc_ids *a, const struct sc_ids *b, int keep)
{
	size_t i, k;

	for (i = 0, k = 0; i < a->n; i++)
		if (sc_ids_has(b, a->v[i]) == keep)
			a->v[k++] = a->v[i];
	a->n = k;
}

static void
sc_ids_free(struct sc_ids *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* Append to a the first column of every row of sql (?1 bound to arg
 * unless NULL), then sort it.  0, or -1 with the call failed. */
static int
sc_ids_query(struct sc *s, const char *sql, const char *arg,
    struct sc_ids *a)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sc_dberr(s);
	if (arg != NULL)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sc_ids_add(a, sqlite3_column_int64(st, 0)) == -1) {
			sqlite3_finalize(st);
			return sc_oom(s);
		}
	if (rc != SQLITE_DONE) {
		sc_dberr(s);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	sc_ids_sort(a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Filters                                                              */

/* The distinct values of glob field i that the glob matches, as a JSON
 * array text into s->globin[i]; *none set when there are none. */
static int
sc_glob_values(struct sc *s, size_t i, int *none)
{
	sqlite3_stmt *ge = NULL, *gt = NULL, *st;
	cJSON *arr = NULL, *v;
	const char *t;
	char *last = NULL;
	int rc, r = -1;

	if ((arr = cJSON_CreateArray()) == NULL)
		return sc_oom(s);
	if (sqlite3_prepare_v2(s->db, sc_seek_ge[i], -1, &ge, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(s->db, sc_seek_gt[i], -1, &gt,
	    NULL) != SQLITE_OK) {
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
		if ((t = (const char *)sqlite3_column_text(st, 0)) == NULL)
			break;
		if (dbp_fnmatch(s->globv[i], t)) {
			if ((v = cJSON_CreateString(t)) == NULL) {
				sc_oom(s);
				goto out;
			}
			cJSON_AddItemToArray(arr, v);
		}
		free(last);
		if ((last = strdup(t)) == NULL) {
			sc_oom(s);
			goto out;
		}
		sqlite3_reset(st);
		st = gt;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, last, -1, SQLITE_STATIC);
	}
	*none = cJSON_GetArraySize(arr) == 0;
	if ((s->globin[i] = cJSON_PrintUnformatted(arr)) == NULL) {
		sc_oom(s);
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

/* Step the value notes of column (table, name) in file order: the
 * statement, reset and bound, or NULL with the call failed. */
static sqlite3_stmt *
sc_vnotes(struct sc *s, const char *table, const char *name)
{
	static const char sql[] = "SELECT value, note FROM value_notes "
	    "WHERE table_fqn = ?1 AND name = ?2 ORDER BY ord";

	if (s->vnst == NULL && (s->vnst = srv_stmt(s->c->conn, sql)) ==
	    NULL) {
		sc_dberr(s);
		return NULL;
	}
	sqlite3_reset(s->vnst);
	sqlite3_bind_text(s->vnst, 1, table, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->vnst, 2, name, -1, SQLITE_TRANSIENT);
	return s->vnst;
}

/* The text predicate of one row with Python's semantics, reading its
 * value notes: *hit.  0, or -1 with the call failed. */
static int
sc_text_row(struct sc *s, const char *table, const char *name,
    const char *part, const char *label, const char *note, int *hit)
{
	sqlite3_stmt *st;
	int oom = 0, rc;

	if (part[0] != '\0') {
		*hit = sc_has(s, label, &oom);
		return oom ? sc_oom(s) : 0;
	}
	*hit = sc_has(s, name, &oom) || sc_has(s, note, &oom);
	if (oom)
		return sc_oom(s);
	if (*hit)
		return 0;
	if ((st = sc_vnotes(s, table, name)) == NULL)
		return -1;
	rc = SQLITE_DONE;
	while (!*hit && !oom && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*hit = sc_has(s, (const char *)sqlite3_column_text(st, 1),
		    &oom);
	if (oom)
		rc = sc_oom(s);
	else if (!*hit && rc != SQLITE_DONE)
		rc = sc_dberr(s);
	else
		rc = 0;
	sqlite3_reset(st);
	return rc;
}

/*
 * SC_TEXT_SET: the rows the text matches, into k.  An ASCII needle of
 * three or more characters without a newline: the rows the positional
 * trigram lists of column_grams name (dbp_grams_find), minus the rows
 * holding non-ASCII text and the rows of tables changed since the lists
 * were built, plus those of them that match in C.  A needle that is not
 * ASCII cannot occur in ASCII text: only the non-ASCII rows are tested.
 */
static int
sc_text_set(struct sc *s, int ascii)
{
	static const char sql_row[] = "SELECT table_fqn, name, part, label, "
	    "note FROM columns WHERE id = ?1";
	struct dbp_diag d;
	struct sc_ids u;
	sqlite3_stmt *st = NULL;
	int64_t *ids = NULL;
	size_t i, nids = 0;
	int exact = 1, hit, rc, r = -1;

	memset(&u, 0, sizeof(u));
	if (ascii) {
		if (dbp_grams_find(s->db, s->needle, &ids, &nids, &exact,
		    &d) == -1) {
			call_fail(s->c, "%s", d.msg);
			goto out;
		}
		/* a needle too long to check whole: candidates, tested in C */
		for (i = 0; i < nids; i++)
			if (sc_ids_add(exact ? &s->k : &u,
			    (sqlite3_int64)ids[i]) == -1) {
				sc_oom(s);
				goto out;
			}
		if (sc_ids_query(s, sc_sql_dirty, NULL, &u) == -1)
			goto out;
	}
	if (sc_ids_query(s, sc_sql_unsafe, NULL, &u) == -1)
		goto out;
	if (u.n > 0) {
		sc_ids_filter(&s->k, &u, 0);
		if (sqlite3_prepare_v2(s->db, sql_row, -1, &st, NULL) !=
		    SQLITE_OK) {
			sc_dberr(s);
			goto out;
		}
	}
	for (i = 0; i < u.n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, u.v[i]);
		if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
			if (rc == SQLITE_DONE)
				continue;
			sc_dberr(s);
			goto out;
		}
		if (sc_text_row(s, (const char *)sqlite3_column_text(st, 0),
		    (const char *)sqlite3_column_text(st, 1),
		    (const char *)sqlite3_column_text(st, 2),
		    (const char *)sqlite3_column_text(st, 3),
		    (const char *)sqlite3_column_text(st, 4), &hit) == -1)
			goto out;
		if (hit && sc_ids_add(&s->k, u.v[i]) == -1) {
			sc_oom(s);
			goto out;
		}
	}
	sc_ids_sort(&s->k);
	r = 0;
out:
	sqlite3_finalize(st);
	sc_ids_free(&u);
	free(ids);
	return r;
}

/* SC_TEXT_SCAN: the columns with a matching value note, into s->vn. */
static int
sc_text_scan(struct sc *s)
{
	/* from the value notes (few), each to its column */
	static const char sql[] = "SELECT c.id, v.note FROM value_notes v "
	    "CROSS JOIN columns c ON c.table_fqn = v.table_fqn AND "
	    "c.name = v.name AND c.part = ''";
	sqlite3_stmt *st = NULL;
	int rc, oom = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sc_dberr(s);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!sc_has(s, (const char *)sqlite3_column_text(st, 1),
		    &oom)) {
			if (oom)
				break;
			continue;
		}
		if (sc_ids_add(&s->vn, sqlite3_column_int64(st, 0)) == -1) {
			oom = 1;
			break;
		}
	}
	sqlite3_finalize(st);
	if (oom)
		return sc_oom(s);
	if (rc != SQLITE_DONE)
		return call_fail(s->c, "index read failed");
	sc_ids_sort(&s->vn);
	return 0;
}

/* The pattern's candidates, intersected into k: the rows whose search
 * text (column_grams) holds its longest literal run, lower-cased, when
 * that is three characters or more, and the rows of tables changed since
 * the lists were built.  A label holding the run holds it lower-cased. */
static int
sc_pattern_set(struct sc *s)
{
	struct dbp_diag d;
	struct sc_ids p;
	const char *lit;
	int64_t *ids = NULL;
	size_t i, nlit, nids = 0;
	char *needle;
	int exact, r = -1;

	nlit = dbp_fnmatch_literal(s->pattern, &lit);
	if (nlit < TM_GRAMS_MIN)
		return 0;
	if ((needle = malloc(nlit + 1)) == NULL)
		return sc_oom(s);
	for (i = 0; i < nlit; i++)
		needle[i] = (char)(lit[i] >= 'A' && lit[i] <= 'Z' ?
		    lit[i] - 'A' + 'a' : lit[i]);
	needle[nlit] = '\0';
	memset(&p, 0, sizeof(p));
	if (dbp_grams_find(s->db, needle, &ids, &nids, &exact, &d) == -1) {
		call_fail(s->c, "%s", d.msg);
		goto out;
	}
	for (i = 0; i < nids; i++)
		if (sc_ids_add(&p, (sqlite3_int64)ids[i]) == -1) {
			sc_oom(s);
			goto out;
		}
	if (sc_ids_query(s, sc_sql_dirty, NULL, &p) == -1)
		goto out;
	sc_ids_sort(&p);
	if (s->have_k) {
		sc_ids_filter(&s->k, &p, 1);
	} else {
		s->k = p;
		s->have_k = 1;
		memset(&p, 0, sizeof(p));
	}
	r = 0;
out:
	sc_ids_free(&p);
	free(ids);
	free(needle);
	return r;
}

/* Does the current row of a candidate statement pass the predicates SQL
 * does not test?  *keep.  0, or -1 with the call failed. */
static int
sc_keep(struct sc *s, sqlite3_stmt *st, int *keep)
{
	sqlite3_int64 id = sqlite3_column_int64(st, SC_K_ID);
	const char *label, *part;
	int oom = 0;

	*keep = 0;
	if (s->have_k && !sc_ids_has(&s->k, id))
		return 0;
	label = (const char *)sqlite3_column_text(st, SC_K_LABEL);
	if (s->pattern != NULL && (label == NULL ||
	    !dbp_fnmatch(s->pattern, label)))
		return 0;
	if (s->tmode == SC_TEXT_SCAN) {
		part = (const char *)sqlite3_column_text(st, SC_K_PART);
		if (part != NULL && part[0] != '\0')
			*keep = sc_has(s, label, &oom);
		else
			*keep = sc_ids_has(&s->vn, id) || sc_has(s,
			    (const char *)sqlite3_column_text(st, SC_K_NAME),
			    &oom) || sc_has(s, (const char *)
			    sqlite3_column_text(st, SC_K_NOTE), &oom);
		return oom ? sc_oom(s) : 0;
	}
	*keep = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Statements                                                           */

#define SC_Q_SORT	0x1	/* in (table, column) order */
#define SC_Q_WALK	0x2	/* keep the filters off their indexes, so
				 * the order comes from walking the columns */
#define SC_Q_BY_K	0x4	/* start from k's rows */
#define SC_Q_EXCLUDED	0x8	/* only rows of excluded tables, ids only */
#define SC_Q_COUNT	0x10	/* count(*) of the rows */

/* k as a JSON array of integers: malloc'd, NULL with the call failed. */
static char *
sc_kjson(struct sc *s)
{
	struct dbp_buf b;
	size_t i;

	dbp_buf_init(&b, DBP_MAX_DOC_BYTES);
	dbp_buf_addc(&b, '[');
	for (i = 0; i < s->k.n; i++)
		dbp_buf_addf(&b, i > 0 ? ",%lld" : "%lld",
		    (long long)s->k.v[i]);
	dbp_buf_addc(&b, ']');
	if (b.failed) {
		dbp_buf_release(&b);
		sc_oom(s);
		return NULL;
	}
	return dbp_buf_take(&b);
}

/* Prepare a candidate statement (columns SC_K_*) with the call's SQL
 * predicates, its parameters bound.  0, or -1 with the call failed. */
static int
sc_prepare(struct sc *s, int flags, sqlite3_stmt **out)
{
	const char *plus = (flags & SC_Q_WALK) ? "+" : "";
	struct dbp_buf q;
	sqlite3_stmt *st = NULL;
	size_t i;

	*out = NULL;
	dbp_buf_init(&q, DBP_MAX_FRAME);
	if (flags & SC_Q_COUNT)
		dbp_buf_adds(&q, "SELECT count(*)");
	else if ((flags & SC_Q_EXCLUDED) || (s->pattern == NULL &&
	    s->tmode != SC_TEXT_SCAN))
		dbp_buf_adds(&q, "SELECT c.id, NULL, NULL, NULL, NULL");
	else
		dbp_buf_addf(&q, "SELECT c.id, c.name || c.part, c.part, "
		    "c.name, %s", s->tmode == SC_TEXT_SCAN ? "c.note" :
		    "NULL");
	if (flags & SC_Q_BY_K)
		dbp_buf_addf(&q, " FROM json_each(?%d) AS k CROSS JOIN "
		    "columns c ON c.id = k.value WHERE 1", SC_P_IDS);
	else
		dbp_buf_adds(&q, " FROM columns c WHERE 1");
	for (i = 0; i < SC_NGLOBS; i++)
		if (s->globin[i] != NULL)
			dbp_buf_addf(&q, " AND %sc.%s IN (SELECT value FROM "
			    "json_each(?%zu))", plus, sc_globs[i], i + 1);
	/* a part never carries candidate_key (SPEC 2.2.3): the implied
	 * False of its ratio is not a known value */
	if (s->ck != -1)
		dbp_buf_addf(&q, " AND c.part = '' AND %sc.candidate_key = "
		    "?%d", plus, SC_P_CK);
	if (flags & SC_Q_EXCLUDED)
		dbp_buf_addf(&q, " AND c.table_fqn IN (%s)", s->excl);
	else if (s->excl != NULL)
		dbp_buf_addf(&q, " AND c.table_fqn NOT IN (%s)", s->excl);
	if (flags & SC_Q_SORT)
		dbp_buf_adds(&q, " ORDER BY c.table_fqn, c.name, "
		    "c.part <> '', c.ord");
	if (q.failed) {
		dbp_buf_release(&q);
		return sc_oom(s);
	}
	if (sqlite3_prepare_v2(s->db, q.ptr, -1, &st, NULL) != SQLITE_OK) {
		dbp_buf_release(&q);
		return sc_dberr(s);
	}
	dbp_buf_release(&q);
	for (i = 0; i < SC_NGLOBS; i++)
		if (s->globin[i] != NULL)
			sqlite3_bind_text(st, (int)i + 1, s->globin[i], -1,
			    SQLITE_STATIC);
	if (s->ck != -1)
		sqlite3_bind_int(st, SC_P_CK, s->ck);
	if (flags & SC_Q_BY_K) {
		if (s->kjson == NULL && (s->kjson = sc_kjson(s)) == NULL) {
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_bind_text(st, SC_P_IDS, s->kjson, -1, SQLITE_STATIC);
	}
	*out = st;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counting and the window                                              */

/* Count the matches into s->total without building them. */
static int
sc_count(struct sc *s)
{
	sqlite3_stmt *st = NULL;
	struct sc_ids ex;
	int rc, keep;
	size_t i;

	s->total = 0;
	s->driven = 0;
	/* k is the answer but for the excluded tables' rows */
	if (s->have_k && s->k_exact && !s->sqlpreds) {
		s->total = s->driven = s->k.n;
		if (s->excl == NULL)
			return 0;
		memset(&ex, 0, sizeof(ex));
		if (sc_prepare(s, SC_Q_EXCLUDED, &st) == -1)
			return -1;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (sc_ids_add(&ex, sqlite3_column_int64(st, 0)) == -1) {
				sqlite3_finalize(st);
				sc_ids_free(&ex);
				return sc_oom(s);
			}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			sc_ids_free(&ex);
			return sc_dberr(s);
		}
		sc_ids_sort(&ex);
		for (i = 0; i < ex.n; i++)
			if (sc_ids_has(&s->k, ex.v[i]))
				s->total--;
		sc_ids_free(&ex);
		return 0;
	}
	/* only SQL's predicates: SQL counts */
	if (!s->have_k && s->pattern == NULL && s->tmode != SC_TEXT_SCAN) {
		if (sc_prepare(s, SC_Q_COUNT, &st) == -1)
			return -1;
		if ((rc = sqlite3_step(st)) == SQLITE_ROW)
			s->total = s->driven = (size_t)sqlite3_column_int64(st,
			    0);
		sqlite3_finalize(st);
		return rc == SQLITE_ROW ? 0 : sc_dberr(s);
	}
	if (sc_prepare(s, s->drive_k ? SC_Q_BY_K : 0, &st) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s->driven++;
		if (sc_keep(s, st, &keep) == -1) {
			sqlite3_finalize(st);
			return -1;
		}
		s->total += keep;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sc_dberr(s);
}

/* The highest column id: the size of the print, for the plan. */
static size_t
sc_rows(struct sc *s)
{
	static const char sql[] = "SELECT max(id) FROM columns";
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	if ((st = srv_stmt(s->c->conn, sql)) != NULL &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		n = (size_t)sqlite3_column_int64(st, 0);
	srv_stmt_done(s->c->conn, st);
	return n;
}

/* Step the window to its next match: 1 with *id, 0 at the end, -1 with
 * the call failed. */
static int
sc_window_next(struct sc *s, sqlite3_int64 *id)
{
	int rc, keep;

	while ((rc = sqlite3_step(s->win)) == SQLITE_ROW) {
		if (sc_keep(s, s->win, &keep) == -1)
			return -1;
		if (keep) {
			*id = sqlite3_column_int64(s->win, SC_K_ID);
			return 1;
		}
	}
	return rc == SQLITE_DONE ? 0 : sc_dberr(s);
}

/*
 * Open the window on the matches in (table, column) order, positioned
 * at match first.  An ordered walk reads about rows / total rows per
 * match; gathering reads every row the count statement stepped, then
 * sorts them.
 */
static int
sc_window_open(struct sc *s, size_t first)
{
	sqlite3_int64 id;
	size_t rows, walk, gather, i;
	int flags = SC_Q_SORT | SC_Q_WALK, rc;

	sqlite3_finalize(s->win);
	s->win = NULL;
	rows = sc_rows(s);
	walk = s->total == 0 ? rows : (first + SC_PAGE_MATCHES) *
	    (rows / s->total + 1);
	if (walk > rows)
		walk = rows;
	gather = s->driven * SC_GATHER_COST;
	if ((s->drive_k || s->sqlpreds) && gather < walk)
		flags = SC_Q_SORT | (s->drive_k ? SC_Q_BY_K : 0);
	if (sc_prepare(s, flags, &s->win) == -1)
		return -1;
	for (i = 0; i < first; i++) {
		if ((rc = sc_window_next(s, &id)) == -1)
			return -1;
		if (rc == 0)
			return call_out_of_range(s->c);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Match objects                                                        */

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
 * vnotes (owned, may be NULL) is attached when non-empty.  NULL on OOM. */
static cJSON *
sc_match(sqlite3_stmt *st, cJSON *vnotes)
{
	const char *part = sc_text(st, SC_PART), *v;
	cJSON *m, *rc;
	int e = 0;

	if ((m = cJSON_CreateObject()) == NULL) {
		cJSON_Delete(vnotes);
		return NULL;
	}
	e |= srv_json_put(m, "table", cJSON_CreateString(sc_text(st, SC_TABLE)));
	e |= srv_json_put(m, "column", cJSON_CreateString(sc_text(st, SC_NAME)));
	v = sc_text(st, SC_SQL_TYPE);
	e |= srv_json_put(m, "sql_type", cJSON_CreateString(v != NULL ? v : ""));
	v = sc_text(st, SC_CLASS);
	e |= srv_json_put(m, "classification", cJSON_CreateString(v != NULL ? v :
	    ""));
	if (sqlite3_column_type(st, SC_T_ROWS) != SQLITE_NULL)
		e |= srv_json_put(m, "row_count", sc_int(st, SC_T_ROWS));
	if (sqlite3_column_int(st, SC_T_SCOPED) == 1) {
		/* spec 4.3: a part of a table read in part carries the scope
		 * block too (upstream drops it for parts) */
		if (part[0] == '\0' &&
		    sqlite3_column_type(st, SC_ROWS) != SQLITE_NULL)
			e |= srv_json_put(m, "rows_scanned", sc_int(st, SC_ROWS));
		else if (sqlite3_column_type(st, SC_T_SCANNED) != SQLITE_NULL)
			e |= srv_json_put(m, "rows_scanned", sc_int(st,
			    SC_T_SCANNED));
		v = sc_text(st, SC_T_SCOPE);
		e |= srv_json_put(m, "scope", tm_json(v != NULL ? v : "{}"));
		if (sqlite3_column_type(st, SC_T_STATS_ROWS) != SQLITE_NULL) {
			/* in place of the manifest's row_count, if any */
			if ((rc = sc_int(st, SC_T_STATS_ROWS)) == NULL)
				e = -1;
			else if (!cJSON_HasObjectItem(m, "row_count"))
				e |= srv_json_put(m, "row_count", rc);
			else if (!cJSON_ReplaceItemInObjectCaseSensitive(m,
			    "row_count", rc)) {
				cJSON_Delete(rc);
				e = -1;
			}
		}
	}
	if ((v = sc_text(st, SC_LOOKS)) != NULL) {
		e |= srv_json_put(m, "looks_like", cJSON_CreateString(v));
		if (sqlite3_column_type(st, SC_SAMPLED) != SQLITE_NULL)
			e |= srv_json_put(m, "sampled", sc_int(st, SC_SAMPLED));
		if (sqlite3_column_type(st, SC_MATCHED) != SQLITE_NULL)
			e |= srv_json_put(m, "matched", sc_int(st, SC_MATCHED));
	}
	if ((v = sc_text(st, SC_SENS)) != NULL)
		e |= srv_json_put(m, "sensitivity", cJSON_CreateString(v));
	if ((v = sc_text(st, SC_REDACTED)) != NULL && v[0] != '\0')
		e |= srv_json_put(m, "redacted", cJSON_CreateString(v));
	if (sqlite3_column_type(st, SC_CK) != SQLITE_NULL &&
	    sqlite3_column_int(st, SC_CK) != 0) {
		e |= srv_json_put(m, "candidate_key", cJSON_CreateTrue());
		if ((v = sc_text(st, SC_CKX)) != NULL)
			e |= srv_json_put(m, "candidate_key_exception", tm_json(v));
	}
	if (part[0] == '\0') {
		v = sc_text(st, SC_NOTE);
		if (!sc_blank(v))
			e |= srv_json_put(m, "annotation", cJSON_CreateString(v));
		if (vnotes != NULL && cJSON_GetArraySize(vnotes) > 0) {
			e |= srv_json_put(m, "value_notes", vnotes);
			vnotes = NULL;
		}
	} else {
		e |= srv_json_put(m, "part", cJSON_CreateString(part));
		e |= srv_json_put(m, "occurrences", sc_int(st, SC_OCC));
	}
	cJSON_Delete(vnotes);
	if (e) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

/* The {value, note} entries of column (table, name) whose note holds
 * the needle: an array, or NULL with the call failed. */
static cJSON *
sc_value_notes(struct sc *s, const char *table, const char *name)
{
	sqlite3_stmt *st;
	const char *note;
	cJSON *arr, *o;
	int rc, oom = 0;

	if ((arr = cJSON_CreateArray()) == NULL) {
		sc_oom(s);
		return NULL;
	}
	if ((st = sc_vnotes(s, table, name)) == NULL) {
		cJSON_Delete(arr);
		return NULL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		note = (const char *)sqlite3_column_text(st, 1);
		if (!sc_has(s, note, &oom)) {
			if (oom)
				break;
			continue;
		}
		if ((o = cJSON_CreateObject()) == NULL) {
			oom = 1;
			break;
		}
		cJSON_AddItemToArray(arr, o);
		if (srv_json_put(o, "value", tm_json((const char *)
		    sqlite3_column_text(st, 0))) == -1 ||
		    srv_json_put(o, "note", cJSON_CreateString(note)) == -1) {
			oom = 1;
			break;
		}
	}
	sqlite3_reset(st);
	if (oom || rc != SQLITE_DONE) {
		cJSON_Delete(arr);
		if (oom)
			sc_oom(s);
		else
			sc_dberr(s);
		return NULL;
	}
	return arr;
}

/* The match object of column row id: NULL with the call failed. */
static cJSON *
sc_item(struct sc *s, sqlite3_int64 id)
{
	cJSON *vn = NULL, *m;
	int rc;

	if (s->row == NULL && (s->row = srv_stmt(s->c->conn, sc_select)) ==
	    NULL) {
		sc_dberr(s);
		return NULL;
	}
	sqlite3_reset(s->row);
	sqlite3_bind_int64(s->row, 1, id);
	if ((rc = sqlite3_step(s->row)) != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			call_fail(s->c, "index read failed: column %lld has "
			    "no table", (long long)id);
		else
			sc_dberr(s);
		return NULL;
	}
	if (s->needle != NULL && sc_text(s->row, SC_PART)[0] == '\0' &&
	    (vn = sc_value_notes(s, sc_text(s->row, SC_TABLE),
	    sc_text(s->row, SC_NAME))) == NULL)
		return NULL;
	if ((m = sc_match(s->row, vn)) == NULL)
		sc_oom(s);
	return m;
}

/* ------------------------------------------------------------------ */
/* The reply                                                            */

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

/* Add under key to head the FQNs (sorted) that sql returns, when any. */
static int
sc_head_tables(struct sc *s, cJSON *head, const char *key, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cJSON *arr, *v;
	int rc;

	if ((arr = cJSON_CreateArray()) == NULL)
		return sc_oom(s);
	if ((st = srv_stmt(s->c->conn, sql)) == NULL)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((v = cJSON_CreateString((const char *)
		    sqlite3_column_text(st, 0))) == NULL ||
		    !cJSON_AddItemToArray(arr, v)) {
			cJSON_Delete(v);
			srv_stmt_done(s->c->conn, st);
			cJSON_Delete(arr);
			return sc_oom(s);
		}
	if (rc != SQLITE_DONE)
		goto fail;
	srv_stmt_done(s->c->conn, st);
	if (cJSON_GetArraySize(arr) == 0) {
		cJSON_Delete(arr);
		return 0;
	}
	return srv_json_put(head, key, arr) == -1 ? sc_oom(s) : 0;
fail:
	sc_dberr(s);
	srv_stmt_done(s->c->conn, st);
	cJSON_Delete(arr);
	return -1;
}

/* The first page's keys: unreadable_tables, and switched_off_tables
 * under a looks_like filter.  The OR term and the NOT NULL term are the
 * WHERE of partial indexes. */
static int
sc_head(struct sc *s, cJSON *head)
{
	static const char sql_unreadable[] = "SELECT fqn FROM tables "
	    "WHERE +walkable = 1 AND (stats_status = 'parse_error' OR "
	    "stats_status = 'too_large' OR stats_status = 'unreadable' OR "
	    "annot_status = 'parse_error' OR annot_status = 'schema_error' "
	    "OR annot_status = 'too_large' OR annot_status = 'unreadable') "
	    "ORDER BY fqn";
	static const char sql_switched[] = "SELECT fqn FROM tables "
	    "WHERE +walkable = 1 AND disabled IS NOT NULL AND "
	    "json_valid(disabled) AND EXISTS (SELECT 1 FROM "
	    "json_each(tables.disabled) WHERE value = 'looks_like') "
	    "ORDER BY fqn";

	if (sc_head_tables(s, head, "unreadable_tables", sql_unreadable) == -1)
		return -1;
	if (s->globv[3] != NULL && sc_head_tables(s, head,
	    "switched_off_tables", sql_switched) == -1)
		return -1;
	return 0;
}

/* 1 when sql returns a row. */
static int
sc_any(struct sc *s, const char *sql, int *any)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((st = srv_stmt(s->c->conn, sql)) == NULL)
		return sc_dberr(s);
	rc = sqlite3_step(st);
	srv_stmt_done(s->c->conn, st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sc_dberr(s);
	*any = rc == SQLITE_ROW;
	return 0;
}

/* Settle the predicates: glob values, exclusions, the text mode and the
 * candidate set.  *none when nothing can match. */
static int
sc_plan(struct sc *s, int *none)
{
	const unsigned char *p;
	size_t i;
	int rule, any, ascii;

	*none = 0;
	for (i = 0; i < SC_NGLOBS && !*none; i++)
		if (s->globv[i] != NULL) {
			s->sqlpreds = 1;
			if (sc_glob_values(s, i, none) == -1)
				return -1;
		}
	if (*none)
		return 0;
	if (s->ck != -1)
		s->sqlpreds = 1;
	/* spec 4.3: a catalog-only view never matches the four filters its
	 * marker forbids */
	rule = s->ck != -1 || s->globv[2] != NULL || s->globv[3] != NULL ||
	    s->globv[4] != NULL;
	if (sc_any(s, "SELECT 1 FROM tables WHERE walkable < 1 OR "
	    "walkable > 1", &any) == -1)
		return -1;
	if (!any && rule && sc_any(s, "SELECT 1 FROM tables WHERE "
	    "catalog_only = 1 AND fqn IS NOT NULL", &any) == -1)
		return -1;
	if (any)
		s->excl = rule ? sc_excl_both : sc_excl_walk;
	if (s->needle != NULL) {
		ascii = 1;
		for (p = (const unsigned char *)s->needle; *p != '\0'; p++)
			if (*p >= 0x80)
				ascii = 0;
		if (!ascii || (sc_chars(s->needle, strlen(s->needle)) >=
		    TM_GRAMS_MIN && strchr(s->needle, '\n') == NULL)) {
			s->tmode = SC_TEXT_SET;
			if (sc_text_set(s, ascii) == -1)
				return -1;
			s->have_k = 1;
		} else {
			s->tmode = SC_TEXT_SCAN;
			if (sc_text_scan(s) == -1)
				return -1;
		}
	}
	if (s->pattern != NULL && sc_pattern_set(s) == -1)
		return -1;
	s->k_exact = s->tmode == SC_TEXT_SET && s->pattern == NULL;
	/* a statement starts from k's rows unless k is exact and an index
	 * of the filters gives fewer to test */
	s->drive_k = s->have_k && !(s->k_exact && s->sqlpreds);
	return 0;
}

/* page_src item(): match i as a new node, from the open window when it
 * is the one it yields next, else from a window opened at i.  NULL with
 * the call failed. */
static cJSON *
sc_src_item(void *ctx, size_t i)
{
	struct sc *s = ctx;
	sqlite3_int64 id;
	int rc;

	if (s->win == NULL || i != s->next) {
		if (sc_window_open(s, i) == -1)
			return NULL;
		s->next = i;
	}
	if ((rc = sc_window_next(s, &id)) != 1) {
		if (rc == 0)
			call_fail(s->c, "index read failed: %zu matches counted, "
			    "%zu read", s->total, i);
		return NULL;
	}
	s->next = i + 1;
	return sc_item(s, id);
}

/* ------------------------------------------------------------------ */
/* Kept plans                                                           */

static void
sc_plan_clear(struct sc_plan *p)
{
	size_t i;

	for (i = 0; i < SC_NGLOBS; i++)
		free(p->globin[i]);
	sc_ids_free(&p->vn);
	sc_ids_free(&p->k);
	free(p->kjson);
	memset(p, 0, sizeof(*p));
}

static void
sc_plans_free(void *v)
{
	struct sc_plans *ps = v;
	size_t i;

	if (ps == NULL)
		return;
	for (i = 0; i < SC_PLANS; i++)
		sc_plan_clear(&ps->p[i]);
	free(ps);
}

/* Point s at kept plan p: its fields are p's (borrowed) from here on. */
static void
sc_plan_use(struct sc *s, struct sc_plan *p, int *none)
{
	size_t i;

	for (i = 0; i < SC_NGLOBS; i++)
		s->globin[i] = p->globin[i];
	s->sqlpreds = p->sqlpreds;
	s->excl = p->excl;
	s->tmode = p->tmode;
	s->vn = p->vn;
	s->k = p->k;
	s->have_k = p->have_k;
	s->k_exact = p->k_exact;
	s->drive_k = p->drive_k;
	s->kjson = p->kjson;
	s->total = p->total;
	s->driven = p->driven;
	*none = p->none;
	s->pc = p;
}

/*
 * The plans of s's handle, and the one kept for s's arguments at version
 * (dv, tc) in *hit (NULL when none).  Plans of another version are
 * dropped.  NULL when there are none and none can be made (no memory).
 */
static struct sc_plans *
sc_plans_get(struct sc *s, sqlite3_int64 dv, sqlite3_int64 tc,
    struct sc_plan **hit)
{
	struct sc_plans *ps;
	struct sc_plan *p;
	size_t i;

	*hit = NULL;
	if ((ps = srv_keep_get(s->c->conn, &sc_plans_key)) == NULL) {
		if ((ps = calloc(1, sizeof(*ps))) == NULL ||
		    srv_keep_set(s->c->conn, &sc_plans_key, ps,
		    sc_plans_free) == -1)
			return NULL;
	}
	for (i = 0; i < SC_PLANS; i++) {
		p = &ps->p[i];
		if (!p->set)
			continue;
		if (p->dv != dv || p->tc != tc)
			sc_plan_clear(p);
		else if (strcmp(p->args, s->c->args_digest) == 0)
			*hit = p;
	}
	if (*hit != NULL)
		(*hit)->used = ++ps->tick;
	return ps;
}

/*
 * Keep the plan s settled (its fields move into a slot of ps, which s
 * then borrows), unless its id sets are larger than DBP_SC_PLAN_IDS;
 * the least recently used plans make room, so all of them together hold
 * at most that many ids.
 */
static void
sc_plan_keep(struct sc *s, struct sc_plans *ps, sqlite3_int64 dv,
    sqlite3_int64 tc, int none)
{
	struct sc_plan *p, *lru;
	size_t i, held, need = s->k.n + s->vn.n;

	if (ps == NULL || need > DBP_SC_PLAN_IDS)
		return;
	for (;;) {
		held = 0;
		lru = NULL;
		for (i = 0; i < SC_PLANS; i++) {
			p = &ps->p[i];
			if (!p->set) {
				if (lru == NULL || lru->set)
					lru = p;
				continue;
			}
			held += p->k.n + p->vn.n;
			if (lru == NULL || (lru->set && p->used < lru->used))
				lru = p;
		}
		if (!lru->set && held + need <= DBP_SC_PLAN_IDS)
			break;
		sc_plan_clear(lru);
	}
	p = lru;
	p->set = 1;
	memcpy(p->args, s->c->args_digest, sizeof(p->args));
	p->dv = dv;
	p->tc = tc;
	p->used = ++ps->tick;
	p->none = none;
	for (i = 0; i < SC_NGLOBS; i++)
		p->globin[i] = s->globin[i];
	p->sqlpreds = s->sqlpreds;
	p->excl = s->excl;
	p->tmode = s->tmode;
	p->vn = s->vn;
	p->k = s->k;
	p->have_k = s->have_k;
	p->k_exact = s->k_exact;
	p->drive_k = s->drive_k;
	p->kjson = s->kjson;
	p->total = s->total;
	p->driven = s->driven;
	s->pc = p;
}

int
tool_search_columns(struct call *c)
{
	struct sc s;
	struct page_src src;
	struct sc_plans *ps = NULL;
	struct sc_plan *hit = NULL;
	const cJSON *a;
	cJSON *head = NULL;
	sqlite3_int64 dv, tc;
	size_t pos, i;
	int r = -1, none = 0, rc, keep;
	char *mst = NULL, *merr = NULL;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.db = c->conn->db;
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
	if ((head = cJSON_CreateObject()) == NULL) {
		sc_oom(&s);
		goto out;
	}
	if (sc_head(&s, head) == -1)
		goto out;
	/* (after the pins: a re-index they made is a new version) */
	keep = srv_index_version(c->conn, &dv, &tc) == 0;
	if (keep)
		ps = sc_plans_get(&s, dv, tc, &hit);
	if (hit != NULL)
		sc_plan_use(&s, hit, &none);
	else {
		if (sc_plan(&s, &none) == -1)
			goto out;
		if (!none && sc_count(&s) == -1)
			goto out;
		if (keep)
			sc_plan_keep(&s, ps, dv, tc, none);
	}
	memset(&src, 0, sizeof(src));
	src.head = head;
	src.key[0] = "matches";
	src.count[0] = s.total;
	src.empty_on_first[0] = 1;
	src.item = sc_src_item;
	src.ctx = &s;
	r = page_window(c, &src, pos);
out:
	if (s.pc != NULL) {
		/* the kept plan's own; a k JSON made by this call joins it */
		if (s.pc->kjson == NULL)
			s.pc->kjson = s.kjson;
	} else {
		for (i = 0; i < SC_NGLOBS; i++)
			free(s.globin[i]);
		sc_ids_free(&s.k);
		sc_ids_free(&s.vn);
		free(s.kjson);
	}
	sqlite3_finalize(s.win);
	srv_stmt_done(c->conn, s.row);
	srv_stmt_done(c->conn, s.vnst);
	free(s.needle);
	free(mst);
	free(merr);
	cJSON_Delete(head);
	return r;
}

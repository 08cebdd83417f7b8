/*
 * fill.c - the rows one table's files yield: columns and their parts,
 * value lists with their normalization keys and trigrams, value notes,
 * relationship edges, and the statistics facts of the table's tables row.
 * Every statement is prepared once per run and reused for every row
 * (struct ix_writer).
 *
 * Fields are read as research/upstream-mcp.md 3.2/3.3 read them: through
 * the "absence layer" (a field the column's `unmeasured` list names is
 * unknown, NULL here), scope per scope_of (3.0), completeness per
 * list_is_complete (3.3).
 */
#define _POSIX_C_SOURCE	200809L

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ix.h"

enum {
	W_DEL_VALUES, W_DEL_TRIGRAMS, W_DEL_COLUMNS, W_DEL_VNOTES, W_DEL_EDGES,
	W_INS_COLUMN, W_INS_VALUE, W_INS_VALUE_TAIL, W_INS_VALUE_BATCH,
	W_INS_TRIGRAM, W_INS_VNOTE, W_INS_EDGE, W_UPD_TABLE, W_GRAMS_STALE,
	W_GRAMS_DIRTY, W_NSTMT
};

/* The INSERT of column_values rows, and the rows its statements take:
 * W_INS_VALUE's SQL repeats its row (ix_writer_open). */
#define W_VALUE_INS	"INSERT OR FAIL INTO column_values (column_id, ord, " \
	"value, text, fold, count, spelling_of, note) VALUES "
#define W_VALUE_ROW	"(?, ?, ?, ?, ?, ?, ?, ?)"
#define W_VALUE_PARAMS	8
static const int w_value_rows[] = { DBP_VALUE_BATCH, DBP_VALUE_BATCH_TAIL, 1 };
static const int w_value_stmt[] = { W_INS_VALUE_BATCH, W_INS_VALUE_TAIL,
	W_INS_VALUE };

static const char *const w_sql[W_NSTMT] = {
	[W_DEL_VALUES] = "DELETE FROM column_values WHERE column_id IN "
	    "(SELECT id FROM columns WHERE table_fqn = ?1)",
	[W_DEL_TRIGRAMS] = "DELETE FROM value_trigrams WHERE column_id IN "
	    "(SELECT id FROM columns WHERE table_fqn = ?1)",
	[W_DEL_COLUMNS] = "DELETE FROM columns WHERE table_fqn = ?1",
	[W_DEL_VNOTES] = "DELETE FROM value_notes WHERE table_fqn = ?1",
	[W_DEL_EDGES] = "DELETE FROM edges WHERE file_table = ?1",
	[W_INS_COLUMN] = "INSERT INTO columns (table_fqn, name, part, label, "
	    "ord, in_stats, sql_type, nullable, null_rate, classification, "
	    "cardinality, cardinality_method, values_coverage, values_state, "
	    "listed, freq_listed, complete, sensitivity, looks_like, sampled, "
	    "matched, candidate_key, candidate_key_exception, redacted, "
	    "derived_from, note, occurrences, rows_scanned, block) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
	    "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, "
	    "?29)",
	/* W_INS_VALUE, W_INS_VALUE_TAIL, W_INS_VALUE_BATCH: built by
	 * ix_writer_open from W_VALUE_INS and W_VALUE_ROW */
	[W_INS_TRIGRAM] = "INSERT INTO value_trigrams (column_id, trigram, "
	    "postings) VALUES (?1, ?2, ?3)",
	[W_INS_VNOTE] = "INSERT OR REPLACE INTO value_notes (table_fqn, name, "
	    "ord, value, text, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[W_INS_EDGE] = "INSERT INTO edges (source, file_table, direction, ord, "
	    "from_table, from_columns, to_table, to_columns, path, target_path, "
	    "detection, verdict, note, edge) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	    "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	[W_UPD_TABLE] = "UPDATE tables SET stats_status = ?2, "
	    "stats_row_count = ?3, scoped = ?4, scope = ?5, rows_scanned = ?6, "
	    "catalog_only = ?7, disabled = ?8, annot_status = ?9 WHERE fqn = ?1",
	/* the text index (grams.c): a table's columns in its lists go stale
	 * the first time it changes after they were built */
	[W_GRAMS_STALE] = "INSERT OR IGNORE INTO column_grams_stale (id) "
	    "SELECT id FROM columns WHERE table_fqn = ?1 AND NOT EXISTS "
	    "(SELECT 1 FROM column_grams_dirty WHERE table_fqn = ?1)",
	[W_GRAMS_DIRTY] = "INSERT OR IGNORE INTO column_grams_dirty "
	    "(table_fqn) VALUES (?1)",
};

/* A column_values row staged for a statement of many (f_vflush).  Its
 * texts are in the writer's vtext at these offsets (the buffer may move
 * as it grows); F_NONE binds NULL. */
enum { F_VALUE, F_TEXT, F_FOLD, F_SPELLING, F_NOTE, F_NTEXT };
#define F_NONE	((size_t)-1)
struct f_vrow {
	sqlite3_int64	 cid;
	int		 ord;
	int		 have_count;
	int64_t		 count;
	size_t		 off[F_NTEXT];
	size_t		 len[F_NTEXT];
};

/* One trigram of one value of a long list, gathered until the list's
 * posting lists are written (f_postings). */
struct f_tri {
	char		t[12];		/* UTF-8 bytes, NUL-padded */
	uint32_t	ord;		/* column_values.ord */
	uint32_t	n;		/* distinct trigrams of the value */
};

struct ix_writer {
	sqlite3		*db;
	sqlite3_stmt	*st[W_NSTMT];
	struct dbp_diag	*d;		/* of the current call */
	int		 failed;
	char		*fold;		/* scratch: its fold */
	size_t		 foldcap;
	struct f_tri	*tri;		/* scratch: a long list's trigrams */
	size_t		 ntri, tricap;
	struct f_tri	*tri2;		/* scratch: f_tri_sort's other half */
	size_t		 tri2cap;
	struct dbp_buf	 post;		/* scratch: one posting list */
	struct f_vrow	 vrow[DBP_VALUE_BATCH];	/* staged values rows */
	int		 nvrow;
	struct dbp_buf	 vtext;		/* their texts, NUL-terminated */
};

/* Prepare w->st[which] as the INSERT of rows column_values rows. */
static int
w_prep_values(struct ix_writer *w, int which, int rows, struct dbp_diag *d)
{
	struct dbp_buf sql;
	int i, rc;

	dbp_buf_init(&sql, sizeof(W_VALUE_INS) + (size_t)rows *
	    sizeof(W_VALUE_ROW));
	dbp_buf_adds(&sql, W_VALUE_INS);
	for (i = 0; i < rows; i++) {
		if (i > 0)
			dbp_buf_addc(&sql, ',');
		dbp_buf_adds(&sql, W_VALUE_ROW);
	}
	if (sql.failed) {
		dbp_buf_release(&sql);
		return dbp_fail(d, "out of memory");
	}
	rc = sqlite3_prepare_v3(w->db, sql.ptr, (int)sql.len,
	    SQLITE_PREPARE_PERSISTENT, &w->st[which], NULL);
	dbp_buf_release(&sql);
	if (rc != SQLITE_OK)
		return dbp_fail(d, "cannot prepare: %s", sqlite3_errmsg(w->db));
	return 0;
}

int
ix_writer_open(sqlite3 *db, struct ix_writer **wp, struct dbp_diag *d)
{
	struct ix_writer *w;
	int i;

	*wp = NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return dbp_fail(d, "out of memory");
	w->db = db;
	dbp_buf_init(&w->post, DBP_MAX_DOC_BYTES);
	dbp_buf_init(&w->vtext, DBP_VALUE_STAGE_MAX);
	for (i = 0; i < W_NSTMT; i++) {
		if (w_sql[i] == NULL)
			continue;
		if (sqlite3_prepare_v3(db, w_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL) != SQLITE_OK) {
			dbp_fail(d, "cannot prepare: %s", sqlite3_errmsg(db));
			ix_writer_close(w);
			return -1;
		}
	}
	for (i = 0; i < (int)(sizeof(w_value_rows) / sizeof(w_value_rows[0]));
	    i++)
		if (w_prep_values(w, w_value_stmt[i], w_value_rows[i], d) ==
		    -1) {
			ix_writer_close(w);
			return -1;
		}
	*wp = w;
	return 0;
}

void
ix_writer_close(struct ix_writer *w)
{
	int i;

	if (w == NULL)
		return;
	for (i = 0; i < W_NSTMT; i++)
		sqlite3_finalize(w->st[i]);
	dbp_buf_release(&w->post);
	dbp_buf_release(&w->vtext);
	free(w->fold);
	free(w->tri);
	free(w->tri2);
	free(w);
}

/* Run a bound statement to completion and reset it.  Its bindings are
 * cleared, so no use runs with a parameter an earlier one bound, unless
 * keep is set: only for a statement every use binds whole (the column,
 * values and trigram inserts), where clearing cost a full build 0.5% of
 * its instructions.  Their SQLITE_STATIC texts then dangle until the
 * next use binds over them; nothing reads them before. */
static int
w_run(struct ix_writer *w, int which, int keep)
{
	sqlite3_stmt *s = w->st[which];
	int rc;

	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (!keep)
		sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		w->failed = 1;
		return dbp_fail(w->d, "index write failed: %s",
		    sqlite3_errmsg(w->db));
	}
	return 0;
}

static int
w_step(struct ix_writer *w, int which)
{
	return w_run(w, which, 0);
}

/* Binding helpers: NULL text binds NULL; text is copied by SQLite only
 * when it may go away before the step (we always step before freeing). */
static void
b_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t == NULL)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
}

static void
b_int(sqlite3_stmt *s, int i, int have, int64_t v)
{
	if (have)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* Bind the JSON of v (compact) and remember it for freeing. */
static void
b_json(sqlite3_stmt *s, int i, const cJSON *v)
{
	char *j;

	if (v == NULL) {
		sqlite3_bind_null(s, i);
		return;
	}
	j = dbp_json_dump(v, DBP_JSON_COMPACT);
	if (j == NULL)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_text(s, i, j, -1, free);
}

int
ix_writer_forget(struct ix_writer *w, const char *fqn, long *ncols,
    struct dbp_diag *d)
{
	static const int order[] = { W_GRAMS_STALE, W_GRAMS_DIRTY,
	    W_DEL_VALUES, W_DEL_TRIGRAMS, W_DEL_COLUMNS, W_DEL_VNOTES,
	    W_DEL_EDGES };
	size_t i;

	w->d = d;
	*ncols = 0;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		b_text(w->st[order[i]], 1, fqn);
		if (w_step(w, order[i]) == -1)
			return -1;
		if (order[i] == W_DEL_COLUMNS)
			*ncols = (long)sqlite3_changes(w->db);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading a column block                                               */

static const cJSON *
f_get(const cJSON *o, const char *key)
{
	return dbp_jget(o, key);
}

/* 1 when the block's `unmeasured` list names field (or "inferred."+field
 * for the inferred fields). */
static int
f_unmeasured(const cJSON *blk, const char *field, int inferred)
{
	const cJSON *u = f_get(blk, "unmeasured"), *it;
	const char *s;

	cJSON_ArrayForEach(it, u) {
		if (!cJSON_IsString(it))
			continue;
		s = it->valuestring;
		if (strcmp(s, field) == 0)
			return 1;
		if (inferred && strncmp(s, "inferred.", 9) == 0 &&
		    strcmp(s + 9, field) == 0)
			return 1;
	}
	return 0;
}

static void
b_str_of(sqlite3_stmt *s, int i, const cJSON *v)
{
	b_text(s, i, cJSON_IsString(v) ? v->valuestring : NULL);
}

static void
b_int_of(sqlite3_stmt *s, int i, const cJSON *v)
{
	b_int(s, i, ix_is_int(v), ix_is_int(v) ? ix_int(v) : 0);
}

static void
b_num_of(sqlite3_stmt *s, int i, const cJSON *v)
{
	b_text(s, i, cJSON_IsNumber(v) ? dbp_num_text(v) : NULL);
}

static void
b_bool_of(sqlite3_stmt *s, int i, const cJSON *v)
{
	b_int(s, i, cJSON_IsBool(v), cJSON_IsTrue(v));
}

/* Append one {table, column} source to out, from a mapping or a
 * "table.column" string. */
static void
f_source(cJSON *out, const cJSON *v)
{
	const char *t, *c, *dot;
	cJSON *o;
	char *tab;

	if (cJSON_IsObject(v)) {
		t = ix_str(v, "table");
		c = ix_str(v, "column");
		if (t == NULL || c == NULL)
			return;
		if ((o = cJSON_CreateObject()) == NULL)
			return;
		cJSON_AddStringToObject(o, "table", t);
		cJSON_AddStringToObject(o, "column", c);
		cJSON_AddItemToArray(out, o);
		return;
	}
	if (!cJSON_IsString(v) || (dot = strrchr(v->valuestring, '.')) == NULL ||
	    dot == v->valuestring || dot[1] == '\0')
		return;
	if ((tab = strndup(v->valuestring, (size_t)(dot - v->valuestring))) ==
	    NULL)
		return;
	if ((o = cJSON_CreateObject()) != NULL) {
		cJSON_AddStringToObject(o, "table", tab);
		cJSON_AddStringToObject(o, "column", dot + 1);
		cJSON_AddItemToArray(out, o);
	}
	free(tab);
}

/* derived_from read tolerantly and normalised to [{table, column}...];
 * NULL when nothing usable. malloc'd JSON text. */
static char *
f_derived(const cJSON *v)
{
	cJSON *out, *it;
	char *j = NULL;

	if (v == NULL || cJSON_IsNull(v))
		return NULL;
	if ((out = cJSON_CreateArray()) == NULL)
		return NULL;
	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(it, v)
			f_source(out, it);
	} else
		f_source(out, v);
	if (out->child != NULL)
		j = dbp_json_dump(out, DBP_JSON_COMPACT);
	cJSON_Delete(out);
	return j;
}

/* Python str() of a value: scalars via dbp_pystr, containers as repr. */
static char *
f_pystr(const cJSON *v)
{
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		return dbp_pyrepr(v);
	return dbp_pystr(v);
}

/* ------------------------------------------------------------------ */
/* Notes of one annotation column: str(value) -> collapsed note         */

struct f_notes {
	struct ix_map	 map;		/* text -> collapsed note (malloc'd) */
};

static void
f_notes_free(struct f_notes *n)
{
	size_t i;

	for (i = 0; i < n->map.cap; i++)
		if (n->map.keys[i] != NULL)
			free(n->map.vals[i]);
	ix_map_free(&n->map);
}

/* Read the values[] notes of annotation column acol; insert value_notes
 * rows. */
static int
f_notes_load(struct ix_writer *w, const char *fqn, const char *name,
    const cJSON *acol, struct f_notes *n)
{
	sqlite3_stmt *s = w->st[W_INS_VNOTE];
	const cJSON *vals = f_get(acol, "values"), *it, *val;
	const char *note;
	char *text, *coll, *old;
	int ord = -1;

	memset(n, 0, sizeof(*n));
	cJSON_ArrayForEach(it, vals) {
		ord++;
		if ((note = ix_str(it, "note")) == NULL)
			continue;
		val = f_get(it, "value");
		if ((text = f_pystr(val)) == NULL)
			return -1;
		if ((coll = dbp_collapse(note)) == NULL) {
			free(text);
			return -1;
		}
		b_text(s, 1, fqn);
		b_text(s, 2, name);
		sqlite3_bind_int(s, 3, ord);
		if (val == NULL)
			b_text(s, 4, "null");
		else
			b_json(s, 4, val);
		b_text(s, 5, text);
		b_text(s, 6, coll);
		if (w_step(w, W_INS_VNOTE) == -1) {
			free(text);
			free(coll);
			return -1;
		}
		if (coll[0] != '\0') {
			old = ix_map_get(&n->map, text);
			if (ix_map_put(&n->map, text, coll) == -1) {
				free(coll);
				coll = NULL;
			} else
				free(old);
		} else
			free(coll);
		free(text);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Values and trigrams                                                  */

/* Empty b for reuse, keeping its memory. */
static void
f_buf_clear(struct dbp_buf *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->ptr != NULL)
		b->ptr[0] = '\0';
}

static int
f_tri_cmp(const void *a, const void *b)
{
	const struct f_tri *x = a, *y = b;
	int c;

	if ((c = memcmp(x->t, y->t, sizeof(x->t))) != 0)
		return c;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Above this many trigrams a value's are sorted by qsort (an insertion
 * sort is quadratic); from this many, a list's by radix (f_tri_sort). */
#define F_TRI_INSERTION	48
#define F_TRI_RADIX	1024

/* Gather the distinct trigrams of "  " + fold + "  " for value ord into
 * w->tri (a trigram longer than 12 bytes, never one of valid UTF-8, is
 * left out). */
static int
f_trigrams(struct ix_writer *w, int ord, const char *fold)
{
	const unsigned char *p;
	struct f_tri *t;
	size_t starts[4], nst = 0, i, len, first = w->ntri, n, k;

	f_buf_clear(&w->post);
	dbp_buf_adds(&w->post, "  ");
	dbp_buf_adds(&w->post, fold);
	dbp_buf_adds(&w->post, "  ");
	if (w->post.failed)
		return dbp_fail(w->d, "out of memory");
	/* Walk code points, keeping the start offsets of the last three. */
	p = (const unsigned char *)w->post.ptr;
	for (i = 0; i <= w->post.len; i++) {
		if (i < w->post.len && (p[i] & 0xc0) == 0x80)
			continue;
		starts[nst < 4 ? nst : 3] = i;
		if (nst < 4)
			nst++;
		if (nst < 4)
			continue;
		len = starts[3] - starts[0];
		if (len <= sizeof(t->t)) {
			if (w->ntri == w->tricap) {
				n = w->tricap == 0 ? 1024 : w->tricap * 2;
				if ((t = realloc(w->tri, n * sizeof(*t))) ==
				    NULL)
					return dbp_fail(w->d, "out of memory");
				w->tri = t;
				w->tricap = n;
			}
			t = &w->tri[w->ntri++];
			memset(t->t, 0, sizeof(t->t));
			memcpy(t->t, p + starts[0], len);
			t->ord = (uint32_t)ord;
		}
		starts[0] = starts[1];
		starts[1] = starts[2];
		starts[2] = starts[3];
		nst = 3;
	}
	/* This value's trigrams, once each, all knowing how many.  A short
	 * value's few are sorted in place: qsort's merge sort and its calls
	 * cost a full build 1% of its instructions. */
	n = w->ntri - first;
	if (n > F_TRI_INSERTION)
		qsort(w->tri + first, n, sizeof(*w->tri), f_tri_cmp);
	else
		for (i = first + 1; i < w->ntri; i++) {
			struct f_tri x = w->tri[i];

			for (k = i; k > first && memcmp(w->tri[k - 1].t, x.t,
			    sizeof(x.t)) > 0; k--)
				w->tri[k] = w->tri[k - 1];
			w->tri[k] = x;
		}
	for (i = first, k = first; i < w->ntri; i++)
		if (k == first || memcmp(w->tri[k - 1].t, w->tri[i].t,
		    sizeof(w->tri[i].t)) != 0)
			w->tri[k++] = w->tri[i];
	w->ntri = k;
	for (i = first; i < k; i++)
		w->tri[i].n = (uint32_t)(k - first);
	return 0;
}

/* Append v as an unsigned LEB128 varint. */
static void
f_varint(struct dbp_buf *b, uint32_t v)
{
	while (v >= 0x80) {
		dbp_buf_addc(b, (char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	dbp_buf_addc(b, (char)v);
}

size_t	ix_test_tri_radix = F_TRI_RADIX;

/*
 * Sort the gathered trigrams of a list by trigram and ord, as f_tri_cmp
 * orders them.  They were gathered in ord order, so a stable sort by the
 * trigram's bytes alone does it: a radix sort, one counting pass a byte
 * from the last, skipping a byte every entry shares (an ASCII trigram's
 * last nine are NUL).  A long list's trigrams are many (the one long
 * list of a generated 1,000-table print gathers 114,395), and qsort
 * took that build 1.4% of its instructions; a short list's, or when the
 * scratch cannot grow, go to qsort.
 */
static void
f_tri_sort(struct ix_writer *w)
{
	struct f_tri *src = w->tri, *dst, *t;
	size_t count[256], n = w->ntri, i, pos, k;
	int b, c;

	if (n > w->tri2cap && n >= ix_test_tri_radix) {
		free(w->tri2);
		w->tri2cap = 0;
		if ((w->tri2 = malloc(n * sizeof(*w->tri2))) != NULL)
			w->tri2cap = n;
	}
	if (n < ix_test_tri_radix || n > w->tri2cap) {
		if (n > 1)
			qsort(w->tri, n, sizeof(*w->tri), f_tri_cmp);
		return;
	}
	dst = w->tri2;
	for (b = (int)sizeof(src->t) - 1; b >= 0; b--) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(unsigned char)src[i].t[b]]++;
		if (count[(unsigned char)src[0].t[b]] == n)
			continue;
		for (pos = 0, c = 0; c < 256; c++) {
			k = count[c];
			count[c] = pos;
			pos += k;
		}
		for (i = 0; i < n; i++)
			dst[count[(unsigned char)src[i].t[b]]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != w->tri)
		memcpy(w->tri, src, n * sizeof(*src));
}

/* Write the gathered trigrams of column cid as one value_trigrams row
 * per trigram (the postings format is in schema.sql), and forget them. */
static int
f_postings(struct ix_writer *w, sqlite3_int64 cid)
{
	sqlite3_stmt *s = w->st[W_INS_TRIGRAM];
	size_t i, j;
	uint32_t prev;
	int rc = 0;

	f_tri_sort(w);
	for (i = 0; i < w->ntri && rc == 0; i = j) {
		f_buf_clear(&w->post);
		prev = 0;
		for (j = i; j < w->ntri && memcmp(w->tri[j].t, w->tri[i].t,
		    sizeof(w->tri[i].t)) == 0; j++) {
			f_varint(&w->post, w->tri[j].ord - prev);
			f_varint(&w->post, w->tri[j].n);
			prev = w->tri[j].ord;
		}
		if (w->post.failed) {
			rc = dbp_fail(w->d, "out of memory");
			break;
		}
		sqlite3_bind_int64(s, 1, cid);
		sqlite3_bind_text(s, 2, w->tri[i].t, (int)strnlen(w->tri[i].t,
		    sizeof(w->tri[i].t)), SQLITE_STATIC);
		sqlite3_bind_blob(s, 3, w->post.ptr, (int)w->post.len,
		    SQLITE_STATIC);
		rc = w_run(w, W_INS_TRIGRAM, 1);
	}
	w->ntri = 0;
	return rc;
}

/* Append t[0..n) and a NUL to the stage as text i of row r; t NULL:
 * NULL.  An out-of-memory is sticky in w->vtext (f_vflush reports it). */
static void
f_vput(struct ix_writer *w, struct f_vrow *r, int i, const char *t, size_t n)
{
	if (t == NULL) {
		r->off[i] = F_NONE;
		r->len[i] = 0;
		return;
	}
	r->off[i] = w->vtext.len;
	r->len[i] = n;
	dbp_buf_add(&w->vtext, t, n);
	dbp_buf_addc(&w->vtext, '\0');
}

/* Close text i of row r, which was appended to the stage from r->off[i]
 * on (ix_json_str, dbp_json_dump_into). */
static void
f_vend(struct ix_writer *w, struct f_vrow *r, int i)
{
	r->len[i] = w->vtext.len - r->off[i];
	dbp_buf_addc(&w->vtext, '\0');
}

/* Write the staged column_values rows, in statements of as many rows as
 * w_value_rows allows, and empty the stage (on failure too).  0, or -1
 * with w->d set. */
static int
f_vflush(struct ix_writer *w)
{
	static const int param[F_NTEXT] = { 3, 4, 5, 7, 8 };
	const struct f_vrow *r;
	sqlite3_stmt *s;
	int at = 0, k, n, j, i, base, rc = 0;

	if (w->vtext.failed)
		rc = dbp_fail(w->d, "out of memory");
	while (rc == 0 && at < w->nvrow) {
		for (k = 0; w_value_rows[k] > w->nvrow - at; k++)
			continue;	/* the last size is 1 */
		n = w_value_rows[k];
		s = w->st[w_value_stmt[k]];
		for (j = 0; j < n; j++) {
			r = &w->vrow[at + j];
			base = j * W_VALUE_PARAMS;
			sqlite3_bind_int64(s, base + 1, r->cid);
			sqlite3_bind_int(s, base + 2, r->ord);
			b_int(s, base + 6, r->have_count, r->count);
			for (i = 0; i < F_NTEXT; i++)
				if (r->off[i] == F_NONE)
					sqlite3_bind_null(s, base + param[i]);
				else
					sqlite3_bind_text(s, base + param[i],
					    w->vtext.ptr + r->off[i],
					    (int)r->len[i], SQLITE_STATIC);
		}
		rc = w_run(w, w_value_stmt[k], 1);
		at += n;
	}
	w->nvrow = 0;
	f_buf_clear(&w->vtext);
	return rc;
}

/* The members of a values[] entry f_values reads, in one pass over it
 * (each f_get a scan of its own cost a build 1% of its time). */
static void
f_entry_read(const cJSON *e, const cJSON **val, const cJSON **cnt,
    const cJSON **sp)
{
	const cJSON *c;

	*val = *cnt = *sp = NULL;
	for (c = e->child; c != NULL && c->string != NULL; c = c->next) {
		if (c->string[0] == 'v' && *val == NULL &&
		    strcmp(c->string, "value") == 0)
			*val = c;
		else if (c->string[0] == 'c' && *cnt == NULL &&
		    strcmp(c->string, "count") == 0)
			*cnt = c;
		else if (c->string[0] == 's' && *sp == NULL &&
		    strcmp(c->string, "spelling_of") == 0)
			*sp = c;
	}
}

/* Stage the rows of column cid's values list (written by f_vflush, at
 * the latest when ix_writer_table ends), and write its trigrams when the
 * list is long. */
static int
f_values(struct ix_writer *w, sqlite3_int64 cid, const cJSON *vals,
    const struct f_notes *notes)
{
	const cJSON *it, *val, *sp, *cnt;
	struct f_vrow *r;
	const char *text;
	char *owned;
	int ord = 0, n = 0, tri, rc = 0;
	size_t need;

	cJSON_ArrayForEach(it, vals)
		if (dbp_jis(it, cJSON_Object))
			n++;
	tri = n > IX_TRIGRAM_MIN_VALUES;
	w->ntri = 0;
	cJSON_ArrayForEach(it, vals) {
		if (!dbp_jis(it, cJSON_Object))
			continue;
		f_entry_read(it, &val, &cnt, &sp);
		text = NULL;
		owned = NULL;
		r = &w->vrow[w->nvrow++];
		r->cid = cid;
		r->ord = ord;
		/* value (JSON) and text (Python str), cheaply for scalars. */
		if (val == NULL || dbp_jis(val, cJSON_NULL))
			f_vput(w, r, F_VALUE, "null", 4);
		else if (dbp_jis(val, cJSON_String)) {
			r->off[F_VALUE] = w->vtext.len;
			ix_json_str(&w->vtext, val->valuestring);
			f_vend(w, r, F_VALUE);
			text = val->valuestring;
		} else if (dbp_jis(val, cJSON_Number)) {
			text = dbp_num_text(val);
			f_vput(w, r, F_VALUE, text, strlen(text));
			text = dbp_num_pystr(val);
		} else if (cJSON_IsBool(val)) {
			f_vput(w, r, F_VALUE, cJSON_IsTrue(val) ? "true" :
			    "false", cJSON_IsTrue(val) ? 4 : 5);
			text = cJSON_IsTrue(val) ? "True" : "False";
		} else {
			r->off[F_VALUE] = w->vtext.len;
			dbp_json_dump_into(&w->vtext, val, DBP_JSON_COMPACT, 0);
			f_vend(w, r, F_VALUE);
			if ((owned = f_pystr(val)) == NULL)
				return dbp_fail(w->d, "out of memory");
			text = owned;
		}
		f_vput(w, r, F_TEXT, text, text != NULL ? strlen(text) : 0);
		if (text != NULL) {
			need = strlen(text) * 2 + 1;
			if (need > w->foldcap) {
				free(w->fold);
				w->foldcap = need < 256 ? 256 : need;
				if ((w->fold = malloc(w->foldcap)) == NULL) {
					w->foldcap = 0;
					free(owned);
					return dbp_fail(w->d, "out of memory");
				}
			}
			dbp_fold_to(text, w->fold);
			f_vput(w, r, F_FOLD, w->fold, strlen(w->fold));
		} else
			f_vput(w, r, F_FOLD, NULL, 0);
		r->have_count = ix_is_int(cnt);
		r->count = r->have_count ? ix_int(cnt) : 0;
		if (sp != NULL && !dbp_jis(sp, cJSON_NULL)) {
			r->off[F_SPELLING] = w->vtext.len;
			dbp_json_dump_into(&w->vtext, sp, DBP_JSON_COMPACT, 0);
			f_vend(w, r, F_SPELLING);
		} else
			f_vput(w, r, F_SPELLING, NULL, 0);
		text = notes != NULL ? ix_map_get(&notes->map, text != NULL ?
		    text : "None") : NULL;
		f_vput(w, r, F_NOTE, text, text != NULL ? strlen(text) : 0);
		if (w->nvrow == DBP_VALUE_BATCH ||
		    w->vtext.len >= DBP_VALUE_STAGE_FLUSH)
			rc = f_vflush(w);
		if (rc == 0 && tri && r->off[F_FOLD] != F_NONE)
			rc = f_trigrams(w, ord, w->fold);
		free(owned);
		if (rc == -1)
			return -1;
		ord++;
	}
	return tri ? f_postings(w, cid) : 0;
}

/* ------------------------------------------------------------------ */
/* Columns                                                              */

struct f_col {
	const char	*fqn;
	const char	*name;
	const char	*part;		/* "" for the column */
	int		 ord;
	int		 in_stats;
	const cJSON	*blk;		/* the stats block, or NULL */
	const cJSON	*acol;		/* the annotation entry, or NULL */
	const struct f_notes *notes;
};

/* The members of a column block f_column reads, found in one pass. */
struct f_blk {
	const cJSON	*sql_type, *nullable, *null_rate, *classification;
	const cJSON	*cardinality, *cardinality_method, *cardinality_ratio;
	const cJSON	*values_coverage, *values, *redacted, *frequencies;
	const cJSON	*derived_from, *occurrences, *rows_scanned;
	const cJSON	*sensitivity, *looks_like, *sampled, *matched;
	const cJSON	*candidate_key, *candidate_key_exception;
	int		 un_values, un_coverage, un_redacted;
	int		 un_sensitivity, un_looks_like, un_candidate_key;
};

static void
f_blk_read(const cJSON *blk, struct f_blk *b)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} top[] = {
		{ "sql_type", offsetof(struct f_blk, sql_type) },
		{ "nullable", offsetof(struct f_blk, nullable) },
		{ "null_rate", offsetof(struct f_blk, null_rate) },
		{ "classification", offsetof(struct f_blk, classification) },
		{ "cardinality", offsetof(struct f_blk, cardinality) },
		{ "cardinality_method", offsetof(struct f_blk,
		    cardinality_method) },
		{ "cardinality_ratio", offsetof(struct f_blk,
		    cardinality_ratio) },
		{ "values_coverage", offsetof(struct f_blk, values_coverage) },
		{ "values", offsetof(struct f_blk, values) },
		{ "redacted", offsetof(struct f_blk, redacted) },
		{ "frequencies", offsetof(struct f_blk, frequencies) },
		{ "derived_from", offsetof(struct f_blk, derived_from) },
		{ "occurrences", offsetof(struct f_blk, occurrences) },
		{ "rows_scanned", offsetof(struct f_blk, rows_scanned) },
	}, inf[] = {
		{ "sensitivity", offsetof(struct f_blk, sensitivity) },
		{ "looks_like", offsetof(struct f_blk, looks_like) },
		{ "sampled", offsetof(struct f_blk, sampled) },
		{ "matched", offsetof(struct f_blk, matched) },
		{ "candidate_key", offsetof(struct f_blk, candidate_key) },
		{ "candidate_key_exception", offsetof(struct f_blk,
		    candidate_key_exception) },
	};
	const cJSON *it, *inferred = NULL, *unmeasured = NULL;
	size_t i;

	memset(b, 0, sizeof(*b));
	if (!cJSON_IsObject(blk))
		return;
	/* Later duplicates cannot occur: the parser keeps one per key. */
	cJSON_ArrayForEach(it, blk) {
		if (it->string[0] == 'i' &&
		    strcmp(it->string, "inferred") == 0) {
			inferred = it;
			continue;
		}
		if (it->string[0] == 'u' &&
		    strcmp(it->string, "unmeasured") == 0) {
			unmeasured = it;
			continue;
		}
		for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
			if (it->string[0] == top[i].name[0] &&
			    strcmp(it->string, top[i].name) == 0) {
				*(const cJSON **)(void *)((char *)b +
				    top[i].off) = it;
				break;
			}
	}
	cJSON_ArrayForEach(it, (cJSON_IsObject(inferred) ? inferred : NULL))
		for (i = 0; i < sizeof(inf) / sizeof(inf[0]); i++)
			if (it->string[0] == inf[i].name[0] &&
			    strcmp(it->string, inf[i].name) == 0) {
				*(const cJSON **)(void *)((char *)b +
				    inf[i].off) = it;
				break;
			}
	if (unmeasured == NULL)
		return;
	b->un_values = f_unmeasured(blk, "values", 0);
	b->un_coverage = f_unmeasured(blk, "values_coverage", 0);
	b->un_redacted = f_unmeasured(blk, "redacted", 0);
	b->un_sensitivity = f_unmeasured(blk, "sensitivity", 1);
	b->un_looks_like = f_unmeasured(blk, "looks_like", 1);
	b->un_candidate_key = f_unmeasured(blk, "candidate_key", 1);
}

/* list_is_complete of research 3.3, from a read block. */
static int
f_blk_complete(const struct f_blk *b, const cJSON *coverage)
{
	const cJSON *listed;
	const char *m;

	if (cJSON_IsNumber(coverage) && coverage->valuedouble == 1.0)
		return 1;
	m = cJSON_IsString(b->cardinality_method) ?
	    b->cardinality_method->valuestring : NULL;
	listed = f_get(b->frequencies, "listed");
	return cJSON_IsObject(b->frequencies) && m != NULL &&
	    strcmp(m, "exact") == 0 && ix_is_int(b->cardinality) &&
	    ix_is_int(listed) && ix_int(b->cardinality) == ix_int(listed);
}

static int
f_column(struct ix_writer *w, const struct f_col *c, long *ncols)
{
	sqlite3_stmt *s = w->st[W_INS_COLUMN];
	const cJSON *blk = c->blk, *v, *cov, *vals, *ll;
	const char *note = NULL, *red, *state;
	char *label = NULL, *derived = NULL;
	struct f_blk b;
	sqlite3_int64 cid;
	int listed = 0, have_listed = 0, ck_have = 0, ck = 0;
	size_t ln;

	f_blk_read(blk, &b);
	ln = strlen(c->name) + strlen(c->part) + 1;
	if ((label = malloc(ln)) == NULL)
		return dbp_fail(w->d, "out of memory");
	snprintf(label, ln, "%s%s", c->name, c->part);

	b_text(s, 1, c->fqn);
	b_text(s, 2, c->name);
	b_text(s, 3, c->part);
	b_text(s, 4, label);
	sqlite3_bind_int(s, 5, c->ord);
	sqlite3_bind_int(s, 6, c->in_stats);
	b_str_of(s, 7, b.sql_type);
	b_bool_of(s, 8, b.nullable);
	b_num_of(s, 9, b.null_rate);
	b_str_of(s, 10, b.classification);
	b_int_of(s, 11, b.cardinality);
	b_str_of(s, 12, b.cardinality_method);
	cov = b.un_coverage ? NULL : b.values_coverage;
	b_num_of(s, 13, cov);
	vals = b.un_values ? NULL : b.values;
	red = b.un_redacted || !cJSON_IsString(b.redacted) ? NULL :
	    b.redacted->valuestring;
	if (red != NULL && red[0] == '\0')
		red = NULL;
	if (cJSON_IsArray(vals)) {
		state = "listed";
		cJSON_ArrayForEach(v, vals)
			listed += cJSON_IsObject(v);
		have_listed = 1;
	} else if (b.un_values)
		state = "unmeasured";
	else if (red != NULL)
		state = "redacted";
	else
		state = "absent";
	b_text(s, 14, blk != NULL ? state : NULL);
	b_int(s, 15, have_listed, listed);
	b_int_of(s, 16, f_get(b.frequencies, "listed"));
	b_int(s, 17, blk != NULL, blk != NULL && f_blk_complete(&b, cov));
	b_str_of(s, 18, b.un_sensitivity ? NULL : b.sensitivity);
	ll = b.un_looks_like ? NULL : b.looks_like;
	b_str_of(s, 19, ll);
	b_int_of(s, 20, ll != NULL ? b.sampled : NULL);
	b_int_of(s, 21, ll != NULL ? b.matched : NULL);
	v = b.un_candidate_key ? NULL : b.candidate_key;
	if (cJSON_IsBool(v)) {
		ck_have = 1;
		ck = cJSON_IsTrue(v);
	} else if (v == NULL && !b.un_candidate_key &&
	    cJSON_IsNumber(b.cardinality_ratio)) {
		ck_have = 1;	/* omitted: implied False */
		ck = 0;
	}
	b_int(s, 22, ck_have, ck);
	v = b.candidate_key_exception;
	b_json(s, 23, v != NULL && !cJSON_IsNull(v) ? v : NULL);
	b_text(s, 24, red);
	/* An annotation's own derived_from replaces the parsed one. */
	if (c->part[0] == '\0') {
		v = f_get(c->acol, "derived_from");
		derived = f_derived(v != NULL ? v : b.derived_from);
		note = ix_str(c->acol, "note");
	} else
		derived = f_derived(b.derived_from);
	if (derived != NULL)
		sqlite3_bind_text(s, 25, derived, -1, free);
	else
		sqlite3_bind_null(s, 25);
	b_text(s, 26, note);
	b_int_of(s, 27, c->part[0] != '\0' ? b.occurrences : NULL);
	b_int_of(s, 28, b.rows_scanned);
	sqlite3_bind_null(s, 29);	/* block: read it from files.doc */
	if (w_run(w, W_INS_COLUMN, 1) == -1) {
		free(label);
		return -1;
	}
	cid = sqlite3_last_insert_rowid(w->db);
	(*ncols)++;

	free(label);
	if (cJSON_IsArray(vals) && f_values(w, cid, vals, c->notes) == -1)
		return -1;
	return 0;
}

/* A column and its parts. */
static int
f_column_all(struct ix_writer *w, struct f_col *c, long *ncols)
{
	const cJSON *parts, *p;
	struct f_col pc;
	int ord = 0;

	if (f_column(w, c, ncols) == -1)
		return -1;
	parts = f_get(c->blk, "parts");
	if (!cJSON_IsObject(parts))
		return 0;
	cJSON_ArrayForEach(p, parts) {
		if (!cJSON_IsObject(p))
			continue;
		pc = *c;
		pc.part = p->string;
		pc.blk = p;
		pc.ord = ord++;
		if (f_column(w, &pc, ncols) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Edges                                                                */

/* Bind a column list: an array as is, a lone string wrapped. */
static void
b_cols(sqlite3_stmt *s, int i, const cJSON *v)
{
	cJSON *arr;

	if (cJSON_IsArray(v)) {
		b_json(s, i, v);
		return;
	}
	arr = cJSON_CreateArray();
	if (arr != NULL && cJSON_IsString(v))
		cJSON_AddItemToArray(arr, cJSON_CreateString(v->valuestring));
	b_json(s, i, arr);
	cJSON_Delete(arr);
	if (arr == NULL)
		b_text(s, i, "[]");
}

static int
f_edges(struct ix_writer *w, const char *fqn, const cJSON *doc,
    const char *list, int annotated)
{
	sqlite3_stmt *s = w->st[W_INS_EDGE];
	const cJSON *e;
	const char *other, *verdict;
	int ord = -1, refers = strcmp(list, "refers_to") == 0;

	cJSON_ArrayForEach(e, f_get(doc, list)) {
		ord++;
		if (!cJSON_IsObject(e))
			continue;
		other = ix_str(e, refers ? "target_table" : "referencer_table");
		if (other == NULL)
			continue;
		b_text(s, 1, annotated ? "annotated" : "emitted");
		b_text(s, 2, fqn);
		b_text(s, 3, list);
		sqlite3_bind_int(s, 4, ord);
		if (refers) {
			b_text(s, 5, fqn);
			b_cols(s, 6, f_get(e, "column"));
			b_text(s, 7, other);
			b_cols(s, 8, f_get(e, "target_column"));
			b_json(s, 9, f_get(e, "path"));
			b_json(s, 10, f_get(e, "target_path"));
		} else {
			b_text(s, 5, other);
			b_cols(s, 6, f_get(e, "referencer_column"));
			b_text(s, 7, fqn);
			b_cols(s, 8, f_get(e, "column"));
			b_json(s, 9, f_get(e, "referencer_path"));
			b_json(s, 10, f_get(e, "path"));
		}
		if (annotated) {
			b_text(s, 11, "annotated");
			verdict = ix_str(e, "verdict");
			b_text(s, 12, verdict != NULL &&
			    strcmp(verdict, "rejected") == 0 ? "rejected" : NULL);
		} else {
			b_str_of(s, 11, f_get(e, "detection"));
			sqlite3_bind_null(s, 12);
		}
		b_str_of(s, 13, f_get(e, "note"));
		b_json(s, 14, e);
		if (w_step(w, W_INS_EDGE) == -1)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The table                                                            */

static int
f_table_row(struct ix_writer *w, const struct ix_tdocs *t)
{
	sqlite3_stmt *s = w->st[W_UPD_TABLE];
	const cJSON *st = t->stats, *scope, *cols, *c, *rs = NULL, *v;
	int scoped = 0;

	b_text(s, 1, t->fqn);
	b_text(s, 2, t->stats_status);
	if (st != NULL) {
		b_int_of(s, 3, f_get(st, "row_count"));
		scope = f_get(st, "scope");
		scoped = scope != NULL;
		cols = f_get(st, "columns");
		cJSON_ArrayForEach(c, (cJSON_IsObject(cols) ? cols : NULL)) {
			v = f_get(c, "rows_scanned");
			if (ix_is_int(v)) {
				scoped = 1;
				if (rs == NULL)
					rs = v;
			}
		}
		sqlite3_bind_int(s, 4, scoped);
		if (scoped && cJSON_IsObject(scope))
			b_json(s, 5, scope);
		else
			b_text(s, 5, scoped ? "{}" : NULL);
		v = f_get(scope, "rows_scanned");
		b_int_of(s, 6, scoped ? (ix_is_int(v) ? v : rs) : NULL);
		sqlite3_bind_int(s, 7, ix_truthy(f_get(st, "catalog_only")));
		v = f_get(st, "disabled");
		b_json(s, 8, v != NULL && !cJSON_IsNull(v) ? v : NULL);
	}
	b_text(s, 9, t->annot_status);
	return w_step(w, W_UPD_TABLE);
}

int
ix_writer_table(struct ix_writer *w, const struct ix_tdocs *t, long *ncols,
    struct dbp_diag *d)
{
	const cJSON *scols, *acols, *c, *acol;
	struct f_notes notes;
	struct f_col fc;
	int ord = 0, rc = 0, live_all;

	w->d = d;
	*ncols = 0;
	w->nvrow = 0;		/* what a failed call staged */
	f_buf_clear(&w->vtext);
	b_text(w->st[W_GRAMS_DIRTY], 1, t->fqn);
	if (w_step(w, W_GRAMS_DIRTY) == -1)
		return -1;
	if (f_table_row(w, t) == -1)
		return -1;
	scols = f_get(t->stats, "columns");
	if (!cJSON_IsObject(scols))
		scols = NULL;
	acols = f_get(t->sannot, "columns");
	if (!cJSON_IsObject(acols))
		acols = NULL;
	cJSON_ArrayForEach(c, scols) {
		if (!cJSON_IsObject(c))
			continue;
		acol = f_get(acols, c->string);
		if (!cJSON_IsObject(acol))
			acol = NULL;
		if (f_notes_load(w, t->fqn, c->string, acol, &notes) == -1) {
			f_notes_free(&notes);
			return w->failed ? -1 : dbp_fail(d, "out of memory");
		}
		fc = (struct f_col){ t->fqn, c->string, "", ord++, 1, c, acol,
		    &notes };
		rc = f_column_all(w, &fc, ncols);
		f_notes_free(&notes);
		if (rc == -1)
			return -1;
	}
	/* Annotation keys are live when the statistics list them, or when
	 * the statistics give no columns mapping at all (research 3.2). */
	live_all = scols == NULL;
	cJSON_ArrayForEach(acol, acols) {
		if (!cJSON_IsObject(acol))
			continue;
		c = f_get(scols, acol->string);
		if (cJSON_IsObject(c))
			continue;	/* done above */
		if (!live_all)
			continue;
		if (f_notes_load(w, t->fqn, acol->string, acol, &notes) == -1) {
			f_notes_free(&notes);
			return w->failed ? -1 : dbp_fail(d, "out of memory");
		}
		fc = (struct f_col){ t->fqn, acol->string, "", ord++, 0, NULL,
		    acol, &notes };
		rc = f_column(w, &fc, ncols);
		f_notes_free(&notes);
		if (rc == -1)
			return -1;
	}
	if (t->rels != NULL && (f_edges(w, t->fqn, t->rels, "refers_to", 0) ==
	    -1 || f_edges(w, t->fqn, t->rels, "referenced_by", 0) == -1))
		return -1;
	if (t->rannot != NULL &&
	    f_edges(w, t->fqn, t->rannot, "refers_to", 1) == -1)
		return -1;
	return f_vflush(w);
}

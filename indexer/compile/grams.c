/*
 * grams.c - the positional trigram index search_columns' `text` reads
 * (the column_grams tables of sql/schema.sql).
 *
 * A column's searchable text is its name, note and the notes of its
 * values (a part's: its label), lower-cased and joined by newlines.  For
 * every trigram of printable ASCII in it (no newline, no byte >= 0x80),
 * column_grams holds one posting list: the columns holding the trigram
 * and the byte offsets where it starts.  A substring of three or more
 * such characters then occurs at offset p exactly when the trigrams at
 * p, p + 3, p + 6, ... and at its last three characters all occur at
 * their offsets: an exact answer from a few lists, with no text read.
 * (Rows holding a character outside ASCII are matched in C by the server,
 * which folds case as Python's casefold does.)
 *
 * Postings of one list, in increasing column id: varint(id - previous
 * id), then the offsets, each varint(delta << 1 | more) where more says
 * another offset of the same column follows (the first delta is from 0).
 *
 * The lists are built whole (ix_grams_build) by a full run, or when the
 * tables changed since the last build hold more than DBP_GRAMS_DIRTY_MAX
 * columns: every column's text read once, in passes of
 * DBP_GRAMS_PASS_COLUMNS column ids whose lists are held in memory, each
 * pass but the last setting its lists aside in a scratch table that the
 * end joins to the last pass's (gr_join).  In between, a run that
 * rewrites or removes a table marks it in column_grams_dirty, and the ids
 * its columns had in the lists in column_grams_stale: readers drop stale
 * ids from what the lists say and test the dirty tables' columns
 * themselves.  A small change thus costs two inserts, not a rewrite of
 * lists shared by every table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "ix.h"

/* A byte that may stand in a trigram. */
#define GR_OK(c)	((c) >= 0x01 && (c) < 0x80 && (c) != '\n')
/* Lists are keyed by the three bytes; this many distinct keys exist. */
#define GR_KEYS		(1U << 21)

/* One list being built. */
struct gr_list {
	unsigned char	*p;
	size_t		 len, cap;
	int64_t		 last_id;	/* 0: empty */
	uint32_t	 last_pos;
	size_t		 last_off;	/* where the last offset starts */
};

struct gr_build {
	uint32_t	*slot;		/* key -> 1 + index in lists, 0 none */
	struct gr_list	*lists;
	uint32_t	*keys;		/* key of lists[i] */
	size_t		 n, cap;
	int		 oom;
};

static uint32_t
gr_key(const unsigned char *t)
{
	return (uint32_t)t[0] << 14 | (uint32_t)t[1] << 7 | t[2];
}

static unsigned char
gr_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* Make room in l for n more bytes; -1 on OOM. */
static int
gr_reserve(struct gr_list *l, size_t n)
{
	unsigned char *np;
	size_t ncap;

	if (l->cap - l->len >= n)
		return 0;
	ncap = l->cap == 0 ? 32 : l->cap;
	while (ncap - l->len < n)
		ncap *= 2;
	if ((np = realloc(l->p, ncap)) == NULL)
		return -1;
	l->p = np;
	l->cap = ncap;
	return 0;
}

/* Append varint v to l; -1 on OOM. */
static int
gr_put(struct gr_list *l, uint64_t v)
{
	if (gr_reserve(l, 10) == -1)
		return -1;
	while (v >= 0x80) {
		l->p[l->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	l->p[l->len++] = (unsigned char)v;
	return 0;
}

/* Read the varint at *p (before end) into *v, stepping *p past it: 0, or
 * -1 when it is cut short or longer than 64 bits. */
static int
gr_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	int sh = 0;

	while (*p < end && sh < 64) {
		x |= (uint64_t)(**p & 0x7f) << sh;
		if ((*(*p)++ & 0x80) == 0) {
			*v = x;
			return 0;
		}
		sh += 7;
	}
	return -1;
}

/* Record that column id holds trigram t at offset pos (offsets of one
 * column arrive in increasing order, columns in increasing id). */
static void
gr_add(struct gr_build *b, const unsigned char *t, int64_t id, uint32_t pos)
{
	struct gr_list *l, *nl;
	uint32_t key = gr_key(t), *nk;
	size_t ncap;

	if (b->slot[key] == 0) {
		if (b->n == b->cap) {
			ncap = b->cap == 0 ? 4096 : b->cap * 2;
			if ((nl = realloc(b->lists, ncap * sizeof(*nl))) ==
			    NULL) {
				b->oom = 1;
				return;
			}
			b->lists = nl;
			if ((nk = realloc(b->keys, ncap * sizeof(*nk))) ==
			    NULL) {
				b->oom = 1;
				return;
			}
			b->keys = nk;
			b->cap = ncap;
		}
		memset(&b->lists[b->n], 0, sizeof(b->lists[b->n]));
		b->keys[b->n] = key;
		b->slot[key] = (uint32_t)++b->n;
	}
	l = &b->lists[b->slot[key] - 1];
	if (l->last_id != id) {
		if (gr_put(l, (uint64_t)(id - l->last_id)) == -1) {
			b->oom = 1;
			return;
		}
		l->last_id = id;
		l->last_pos = 0;
	} else
		l->p[l->last_off] |= 1;		/* another offset follows */
	l->last_off = l->len;
	if (gr_put(l, (uint64_t)(pos - l->last_pos) << 1) == -1)
		b->oom = 1;
	l->last_pos = pos;
}

/* Add the trigrams of text s (lower-cased) starting at offset *pos, then
 * advance *pos past it and its newline. */
static void
gr_text(struct gr_build *b, int64_t id, const char *s, uint32_t *pos)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char t[3];
	size_t i, n;

	if (s == NULL)
		return;
	n = strlen(s);
	for (i = 0; i + 3 <= n; i++) {
		if (!GR_OK(p[i]) || !GR_OK(p[i + 1]) || !GR_OK(p[i + 2]))
			continue;
		t[0] = gr_lower(p[i]);
		t[1] = gr_lower(p[i + 1]);
		t[2] = gr_lower(p[i + 2]);
		gr_add(b, t, id, *pos + (uint32_t)i);
	}
	*pos += (uint32_t)n + 1;
}

/* Drop the lists of a pass (written), keeping the tables for the next. */
static void
gr_build_reset(struct gr_build *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->lists[i].p);
		b->slot[b->keys[i]] = 0;
	}
	b->n = 0;
}

static void
gr_build_free(struct gr_build *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->lists[i].p);
	free(b->lists);
	free(b->keys);
	free(b->slot);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ */
/* The columns' search texts                                            */

/*
 * The view column_search gives each column's text with a subquery on
 * value_notes per column: 3 million index probes at 100,000 tables,
 * three quarters of a scan (1.6 of 2.1 s) for the ~3% of columns that
 * have value notes.  ix_gtext reads the columns alone, in id order, and
 * asks value_notes only for a column a Bloom filter of the (table,
 * column) pairs holding notes may name: the texts are the view's, byte
 * for byte (test_grams test_texts).
 */
struct ix_gtext {
	sqlite3		*db;
	sqlite3_stmt	*cols;	/* id, table_fqn, name, part, label, note */
	sqlite3_stmt	*vn;	/* the notes of one (table_fqn, name) */
	unsigned char	*bloom;	/* DBP_GRAMS_BLOOM_BITS bits */
	struct dbp_buf	 text;
};

/* The Bloom filter's bits of (fqn, name): three, by double hashing. */
static void
gt_bits(const char *fqn, size_t flen, const char *name, size_t nlen,
    uint32_t bit[3])
{
	uint64_t h = XXH3_64bits_withSeed(name, nlen,
	    XXH3_64bits(fqn, flen));
	uint32_t a = (uint32_t)h, b = (uint32_t)(h >> 32) | 1;
	int i;

	for (i = 0; i < 3; i++)
		bit[i] = (a + (uint32_t)i * b) % DBP_GRAMS_BLOOM_BITS;
}

int
ix_gtext_open(sqlite3 *db, struct ix_gtext **gp, struct dbp_diag *d)
{
	static const char sql_cols[] = "SELECT id, table_fqn, name, part, "
	    "label, note FROM columns ORDER BY id";
	/* the view's own subquery, for the one column asked */
	static const char sql_vn[] = "SELECT group_concat(v.note, char(10)) "
	    "FROM value_notes v WHERE v.table_fqn = ?1 AND v.name = ?2";
	static const char sql_keys[] = "SELECT table_fqn, name FROM "
	    "value_notes";
	struct ix_gtext *g;
	sqlite3_stmt *k = NULL;
	uint32_t bit[3];
	int i, rc;

	*gp = NULL;
	if ((g = calloc(1, sizeof(*g))) == NULL ||
	    (g->bloom = calloc(DBP_GRAMS_BLOOM_BITS / 8, 1)) == NULL) {
		free(g);
		return dbp_fail(d, "out of memory");
	}
	g->db = db;
	dbp_buf_init(&g->text, DBP_GRAMS_TEXT_MAX);
	if (sqlite3_prepare_v2(db, sql_cols, -1, &g->cols, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, sql_vn, -1, &g->vn, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, sql_keys, -1, &k, NULL) !=
	    SQLITE_OK) {
		dbp_fail(d, "cannot prepare: %s", sqlite3_errmsg(db));
		goto fail;
	}
	while ((rc = sqlite3_step(k)) == SQLITE_ROW) {
		gt_bits((const char *)sqlite3_column_blob(k, 0),
		    (size_t)sqlite3_column_bytes(k, 0),
		    (const char *)sqlite3_column_blob(k, 1),
		    (size_t)sqlite3_column_bytes(k, 1), bit);
		for (i = 0; i < 3; i++)
			g->bloom[bit[i] / 8] |= (unsigned char)(1U <<
			    bit[i] % 8);
	}
	if (rc != SQLITE_DONE) {
		dbp_fail(d, "cannot read the value notes: %s",
		    sqlite3_errmsg(db));
		goto fail;
	}
	sqlite3_finalize(k);
	*gp = g;
	return 0;
fail:
	sqlite3_finalize(k);
	ix_gtext_close(g);
	return -1;
}

/* The value notes of the current column, "\n"-joined, or NULL. */
static const char *
gt_notes(struct ix_gtext *g, struct dbp_diag *d, int *err)
{
	const char *fqn = (const char *)sqlite3_column_blob(g->cols, 1);
	const char *name = (const char *)sqlite3_column_blob(g->cols, 2);
	size_t flen = (size_t)sqlite3_column_bytes(g->cols, 1);
	size_t nlen = (size_t)sqlite3_column_bytes(g->cols, 2);
	uint32_t bit[3];
	int i, rc;

	*err = 0;
	gt_bits(fqn, flen, name, nlen, bit);
	for (i = 0; i < 3; i++)
		if (!(g->bloom[bit[i] / 8] & 1U << bit[i] % 8))
			return NULL;	/* no note names this column */
	sqlite3_reset(g->vn);
	sqlite3_bind_text(g->vn, 1, fqn, (int)flen, SQLITE_STATIC);
	sqlite3_bind_text(g->vn, 2, name, (int)nlen, SQLITE_STATIC);
	if ((rc = sqlite3_step(g->vn)) != SQLITE_ROW) {
		*err = 1;
		dbp_fail(d, "cannot read the value notes: %s",
		    sqlite3_errmsg(g->db));
		return NULL;
	}
	return (const char *)sqlite3_column_text(g->vn, 0);
}

int
ix_gtext_next(struct ix_gtext *g, int64_t *id, const char **text,
    struct dbp_diag *d)
{
	const char *part, *note, *notes;
	int rc, err;

	if ((rc = sqlite3_step(g->cols)) == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return dbp_fail(d, "cannot read the columns: %s",
		    sqlite3_errmsg(g->db));
	*id = sqlite3_column_int64(g->cols, 0);
	g->text.len = 0;
	part = (const char *)sqlite3_column_text(g->cols, 3);
	if (part != NULL && *part != '\0') {
		/* a part: its label */
		dbp_buf_add(&g->text, sqlite3_column_blob(g->cols, 4),
		    (size_t)sqlite3_column_bytes(g->cols, 4));
	} else {
		/* name || coalesce(char(10) || note, '') ||
		 * coalesce(char(10) || notes, '') */
		dbp_buf_add(&g->text, sqlite3_column_blob(g->cols, 2),
		    (size_t)sqlite3_column_bytes(g->cols, 2));
		if ((note = (const char *)sqlite3_column_text(g->cols, 5)) !=
		    NULL) {
			dbp_buf_addc(&g->text, '\n');
			dbp_buf_add(&g->text, note,
			    (size_t)sqlite3_column_bytes(g->cols, 5));
		}
		notes = gt_notes(g, d, &err);
		if (err)
			return -1;
		if (notes != NULL) {
			dbp_buf_addc(&g->text, '\n');
			dbp_buf_add(&g->text, notes,
			    (size_t)sqlite3_column_bytes(g->vn, 0));
		}
	}
	if (g->text.failed)
		return dbp_fail(d, "column %lld: its search text is too long "
		    "or memory ran out", (long long)*id);
	*text = g->text.ptr;
	return 1;
}

void
ix_gtext_close(struct ix_gtext *g)
{
	if (g == NULL)
		return;
	sqlite3_finalize(g->cols);
	sqlite3_finalize(g->vn);
	dbp_buf_release(&g->text);
	free(g->bloom);
	free(g);
}

/* ------------------------------------------------------------------ */
/* Building                                                             */

/*
 * One pass holds the lists of DBP_GRAMS_PASS_COLUMNS column ids.  A pass
 * followed by another sets its lists aside in column_grams_seg, a
 * scratch table created and dropped within the build's transaction (a
 * committed index never holds it), and the end joins every gram's
 * segments to the last pass's list (gr_join).  Each segment starts from
 * id 0, as any list does, and says its last id, from which the next one
 * continues: the joined list is the one a single pass would build, byte
 * for byte.  Every column is read once and every list written twice at
 * most, whatever the print's size.
 */
struct gr_run {
	sqlite3		*db;
	struct ix_gtext	*g;
	struct gr_build	 b;
	sqlite3_stmt	*ins;		/* column_grams */
	sqlite3_stmt	*seg_ins, *seg_get, *seg_del, *seg_keys;
	int		 pending;	/* the column read is the next pass's */
	int64_t		 id;		/* its id */
	const char	*text;		/* its text (g's buffer) */
	struct gr_list	 out;		/* a joined list (p, len, cap) */
};

static const char *const gr_seg_sql[] = {
	"CREATE TABLE column_grams_seg (gram INTEGER NOT NULL, "
	    "seq INTEGER NOT NULL, last_id INTEGER NOT NULL, "
	    "postings BLOB NOT NULL, PRIMARY KEY (gram, seq))",
	"INSERT INTO column_grams_seg (gram, seq, last_id, postings) "
	    "VALUES (?1, ?2, ?3, ?4)",
	"SELECT last_id, postings FROM column_grams_seg WHERE gram = ?1 "
	    "ORDER BY seq",
	"DELETE FROM column_grams_seg WHERE gram = ?1",
	"SELECT DISTINCT gram FROM column_grams_seg ORDER BY gram",
};

/* Read the columns of ids below hi into r->b (the rest, for INT64_MAX).
 * 0, or -1 with d set. */
static int
gr_read(struct gr_run *r, int64_t hi, struct dbp_diag *d)
{
	uint32_t pos;
	int rc;

	for (;;) {
		if (!r->pending) {
			if ((rc = ix_gtext_next(r->g, &r->id, &r->text, d)) !=
			    1)
				return rc;	/* 0 at the end, or -1 */
			r->pending = 1;
		}
		if (r->id >= hi)
			return 0;	/* the next pass's first column */
		pos = 0;
		gr_text(&r->b, r->id, r->text, &pos);
		r->pending = 0;
		if (r->b.oom)
			return dbp_fail(d, "out of memory");
	}
}

/* The gram of key k, NUL-terminated, in gram[4]. */
static void
gr_gram(uint32_t k, char gram[4])
{
	gram[0] = (char)(k >> 14);
	gram[1] = (char)(k >> 7 & 0x7f);
	gram[2] = (char)(k & 0x7f);
	gram[3] = '\0';
}

/* Write list p (len bytes) as gram k's row of column_grams.  0, or -1
 * with d set. */
static int
gr_write(struct gr_run *r, uint32_t k, const unsigned char *p, size_t len,
    struct dbp_diag *d)
{
	char gram[4];

	gr_gram(k, gram);
	sqlite3_reset(r->ins);
	sqlite3_bind_text(r->ins, 1, gram, 3, SQLITE_STATIC);
	sqlite3_bind_blob(r->ins, 2, p, (int)len, SQLITE_STATIC);
	if (sqlite3_step(r->ins) != SQLITE_DONE)
		return dbp_fail(d, "cannot write the text index: %s",
		    sqlite3_errmsg(r->db));
	return 0;
}

/* Set this pass's lists aside as segment seq.  0, or -1 with d set. */
static int
gr_set_aside(struct gr_run *r, int seq, struct dbp_diag *d)
{
	size_t i;

	for (i = 0; i < r->b.n; i++) {
		sqlite3_reset(r->seg_ins);
		sqlite3_bind_int64(r->seg_ins, 1, r->b.keys[i]);
		sqlite3_bind_int(r->seg_ins, 2, seq);
		sqlite3_bind_int64(r->seg_ins, 3, r->b.lists[i].last_id);
		sqlite3_bind_blob(r->seg_ins, 4, r->b.lists[i].p,
		    (int)r->b.lists[i].len, SQLITE_STATIC);
		if (sqlite3_step(r->seg_ins) != SQLITE_DONE)
			return dbp_fail(d, "cannot write the text index: %s",
			    sqlite3_errmsg(r->db));
	}
	return 0;
}

/* Append list p (len bytes, from id 0) to out, its first id made
 * relative to prev, the last id of what out holds.  0, or -1 (OOM, or a
 * list that does not start with a column after prev). */
static int
gr_cat(struct gr_list *out, const unsigned char *p, size_t len,
    int64_t prev)
{
	const unsigned char *q = p;
	uint64_t v;
	size_t rest;

	if (gr_varint(&q, p + len, &v) == -1 || v <= (uint64_t)prev)
		return -1;
	rest = len - (size_t)(q - p);
	if (gr_put(out, v - (uint64_t)prev) == -1 ||
	    gr_reserve(out, rest) == -1)
		return -1;
	memcpy(out->p + out->len, q, rest);
	out->len += rest;
	return 0;
}

static int
gr_key_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Write every gram's list: its segments set aside, in pass order, then
 * the last pass's list (r->b), each continuing from the one before; a
 * gram's segments are deleted as it is written, so its list takes their
 * pages.  0, or -1 with d set. */
static int
gr_join(struct gr_run *r, struct dbp_diag *d)
{
	uint32_t *sk = NULL, *mk = NULL, *nk, k;
	size_t ns = 0, scap = 0, nm = r->b.n, i = 0, j = 0;
	struct gr_list *l;
	int64_t prev;
	int rc, ret = -1;

	/* the grams set aside, and those in memory, in key order */
	sqlite3_reset(r->seg_keys);
	while ((rc = sqlite3_step(r->seg_keys)) == SQLITE_ROW) {
		if (ns == scap) {
			scap = scap == 0 ? 4096 : scap * 2;
			if ((nk = realloc(sk, scap * sizeof(*sk))) == NULL) {
				dbp_fail(d, "out of memory");
				goto out;
			}
			sk = nk;
		}
		sk[ns++] = (uint32_t)sqlite3_column_int64(r->seg_keys, 0);
	}
	if (rc != SQLITE_DONE) {
		dbp_fail(d, "cannot read the text index: %s",
		    sqlite3_errmsg(r->db));
		goto out;
	}
	if (nm > 0 && (mk = malloc(nm * sizeof(*mk))) == NULL) {
		dbp_fail(d, "out of memory");
		goto out;
	}
	if (nm > 0)
		memcpy(mk, r->b.keys, nm * sizeof(*mk));
	qsort(mk, nm, sizeof(*mk), gr_key_cmp);
	while (i < ns || j < nm) {
		k = j == nm || (i < ns && sk[i] < mk[j]) ? sk[i] : mk[j];
		r->out.len = 0;
		prev = 0;
		if (i < ns && sk[i] == k) {
			sqlite3_reset(r->seg_get);
			sqlite3_bind_int64(r->seg_get, 1, k);
			while ((rc = sqlite3_step(r->seg_get)) == SQLITE_ROW) {
				if (gr_cat(&r->out, sqlite3_column_blob(
				    r->seg_get, 1), (size_t)sqlite3_column_bytes(
				    r->seg_get, 1), prev) == -1) {
					dbp_fail(d, "the text index's lists "
					    "cannot be joined (out of memory?)");
					goto out;
				}
				prev = sqlite3_column_int64(r->seg_get, 0);
			}
			sqlite3_reset(r->seg_get);
			sqlite3_reset(r->seg_del);
			sqlite3_bind_int64(r->seg_del, 1, k);
			if (rc != SQLITE_DONE ||
			    sqlite3_step(r->seg_del) != SQLITE_DONE) {
				dbp_fail(d, "cannot join the text index's "
				    "lists: %s", sqlite3_errmsg(r->db));
				goto out;
			}
			i++;
		}
		if (j < nm && mk[j] == k) {
			l = &r->b.lists[r->b.slot[k] - 1];
			if (gr_cat(&r->out, l->p, l->len, prev) == -1) {
				dbp_fail(d, "the text index's lists cannot be "
				    "joined (out of memory?)");
				goto out;
			}
			free(l->p);	/* joined: its memory goes */
			l->p = NULL;
			j++;
		}
		if (gr_write(r, k, r->out.p, r->out.len, d) == -1)
			goto out;
	}
	ret = 0;
out:
	free(sk);
	free(mk);
	return ret;
}

int
ix_grams_build(sqlite3 *db, struct dbp_diag *d)
{
	return ix_grams_build_per(db, DBP_GRAMS_PASS_COLUMNS, d);
}

int
ix_grams_build_per(sqlite3 *db, int64_t per_pass, struct dbp_diag *d)
{
	static const char sql_ins[] = "INSERT INTO column_grams (gram, "
	    "postings) VALUES (?1, ?2)";
	struct gr_run r;
	sqlite3_stmt *cnt = NULL;
	sqlite3_stmt **segst[4];
	int64_t npass = 1, pass;
	long long cache;
	size_t i;
	int ret = -1, own, seg = 0;

	memset(&r, 0, sizeof(r));
	r.db = db;
	/* Outside a transaction (the tests), the build makes its own: the
	 * scratch table must never be committed. */
	own = sqlite3_get_autocommit(db);
	if (own && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return dbp_fail(d, "cannot begin: %s", sqlite3_errmsg(db));
	if (sqlite3_exec(db, "DELETE FROM column_grams; "
	    "DELETE FROM column_grams_dirty; DELETE FROM column_grams_stale",
	    NULL, NULL, NULL) != SQLITE_OK) {
		dbp_fail(d, "cannot clear the text index: %s",
		    sqlite3_errmsg(db));
		if (own)
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	/* The lists take the page cache's memory while they are built
	 * (DBP_GRAMS_CACHE_KIB); the caller's cache size comes back after. */
	cache = ix_cache_cap(db, DBP_GRAMS_CACHE_KIB);
	if ((r.b.slot = calloc(GR_KEYS, sizeof(*r.b.slot))) == NULL) {
		dbp_fail(d, "out of memory");
		goto out;
	}
	/* every column with the text its search reads (the column_search
	 * view of sql/schema.sql), in id order */
	if (ix_gtext_open(db, &r.g, d) == -1)
		goto out;
	if (sqlite3_prepare_v2(db, sql_ins, -1, &r.ins, NULL) != SQLITE_OK) {
		dbp_fail(d, "cannot prepare: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (per_pass < 1)
		per_pass = 1;
	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM columns", -1, &cnt,
	    NULL) == SQLITE_OK && sqlite3_step(cnt) == SQLITE_ROW &&
	    sqlite3_column_int64(cnt, 0) > 0)
		npass = 1 + sqlite3_column_int64(cnt, 0) / per_pass;
	sqlite3_finalize(cnt);
	if (npass > 1) {
		segst[0] = &r.seg_ins;
		segst[1] = &r.seg_get;
		segst[2] = &r.seg_del;
		segst[3] = &r.seg_keys;
		if (sqlite3_exec(db, gr_seg_sql[0], NULL, NULL, NULL) !=
		    SQLITE_OK) {
			dbp_fail(d, "cannot create the text index's scratch "
			    "table: %s", sqlite3_errmsg(db));
			goto out;
		}
		seg = 1;
		for (i = 0; i < 4; i++)
			if (sqlite3_prepare_v2(db, gr_seg_sql[i + 1], -1,
			    segst[i], NULL) != SQLITE_OK) {
				dbp_fail(d, "cannot prepare: %s",
				    sqlite3_errmsg(db));
				goto out;
			}
	}
	/* Pass p reads the column ids below (p + 1) * per_pass, the last
	 * pass all the rest. */
	for (pass = 0; pass < npass - 1; pass++) {
		if (gr_read(&r, (pass + 1) * per_pass, d) == -1 ||
		    gr_set_aside(&r, (int)pass, d) == -1)
			goto out;
		gr_build_reset(&r.b);
	}
	if (gr_read(&r, INT64_MAX, d) == -1)
		goto out;
	if (npass > 1) {
		if (gr_join(&r, d) == -1)
			goto out;
	} else
		for (i = 0; i < r.b.n; i++)
			if (gr_write(&r, r.b.keys[i], r.b.lists[i].p,
			    r.b.lists[i].len, d) == -1)
				goto out;
	ret = 0;
out:
	ix_gtext_close(r.g);
	sqlite3_finalize(r.ins);
	sqlite3_finalize(r.seg_ins);
	sqlite3_finalize(r.seg_get);
	sqlite3_finalize(r.seg_del);
	sqlite3_finalize(r.seg_keys);
	if (seg && sqlite3_exec(db, "DROP TABLE column_grams_seg", NULL, NULL,
	    NULL) != SQLITE_OK && ret == 0)
		ret = dbp_fail(d, "cannot drop the text index's scratch "
		    "table: %s", sqlite3_errmsg(db));
	gr_build_free(&r.b);
	free(r.out.p);
	ix_cache_restore(db, cache);
	if (own && ret == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) !=
	    SQLITE_OK)
		ret = dbp_fail(d, "cannot commit the text index: %s",
		    sqlite3_errmsg(db));
	if (own && ret == -1)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

int
ix_grams_settle(sqlite3 *db, int full, struct dbp_diag *d)
{
	static const char sql[] = "SELECT count(*) FROM columns WHERE "
	    "table_fqn IN (SELECT table_fqn FROM column_grams_dirty)";
	sqlite3_stmt *st;
	sqlite3_int64 n = 0;

	if (full)
		return ix_grams_build(db, d);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return dbp_fail(d, "cannot prepare: %s", sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n > DBP_GRAMS_DIRTY_MAX ? ix_grams_build(db, d) : 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

/* A list being read. */
struct gr_cur {
	const unsigned char	*p, *end;
	int64_t			 id;		/* current column; 0 before */
	const unsigned char	*offs;		/* its offsets */
	int			 bad;
};

static int
gr_get(struct gr_cur *c, uint64_t *v)
{
	if (gr_varint(&c->p, c->end, v) == 0)
		return 0;
	c->bad = 1;
	return -1;
}

/* Step to the next column of the list: 1, or 0 at its end (or on a
 * malformed list, c->bad set). */
static int
gr_next(struct gr_cur *c)
{
	uint64_t v;

	if (c->id != 0) {		/* skip the current offsets */
		do {
			if (gr_get(c, &v) == -1)
				return 0;
		} while (v & 1);
	}
	if (c->p >= c->end)
		return 0;
	if (gr_get(c, &v) == -1 || v == 0)
		return c->bad = 1, 0;
	c->id += (int64_t)v;
	c->offs = c->p;
	return 1;
}

/* An offset cursor over the current column of a list. */
struct gr_off {
	struct gr_cur	k;
	uint64_t	pos;
	int		more;		/* offsets left after pos */
	int		valid;		/* pos is an offset */
};

static void
gr_off_start(struct gr_off *o, const struct gr_cur *c)
{
	uint64_t v;

	o->k = *c;
	o->k.p = c->offs;
	o->pos = 0;
	o->valid = gr_get(&o->k, &v) == 0;
	if (o->valid) {
		o->pos = v >> 1;
		o->more = (int)(v & 1);
	}
}

/* Advance o to its first offset >= want; 1 when it equals want. */
static int
gr_off_seek(struct gr_off *o, uint64_t want)
{
	uint64_t v;

	while (o->valid && o->pos < want) {
		if (!o->more || gr_get(&o->k, &v) == -1) {
			o->valid = 0;
			break;
		}
		o->pos += v >> 1;
		o->more = (int)(v & 1);
	}
	return o->valid && o->pos == want;
}

/* Does the current column of every list hold the needle: an offset p of
 * list 0 with p + at[j] in list j for every j?  Every list's offsets are
 * read once, in order. */
static int
gr_phrase(struct gr_cur *cur, const size_t *at, size_t n)
{
	struct gr_off o[DBP_GRAMS_MAX_LISTS];
	size_t j;

	for (j = 0; j < n; j++)
		gr_off_start(&o[j], &cur[j]);
	for (; o[0].valid; ) {
		for (j = 1; j < n; j++)
			if (!gr_off_seek(&o[j], o[0].pos + at[j]))
				break;
		if (j == n)
			return 1;
		if (!o[0].more)
			return 0;
		(void)gr_off_seek(&o[0], o[0].pos + 1);
	}
	return 0;
}

static int
gr_id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* 1 when id is in the sorted array s[0..n). */
static int
gr_in(const int64_t *s, size_t n, int64_t id)
{
	return n > 0 && bsearch(&id, s, n, sizeof(*s), gr_id_cmp) != NULL;
}

/*
 * The offsets of the needle's trigrams to look up: 0, 3, 6, ... and the
 * last three characters, which cover every character, so what they find
 * is exact.  A needle too long for that many lists is covered at its
 * start only; *exact is then 0 and what it finds a superset.  The count.
 */
static size_t
gr_positions(size_t n, size_t at[DBP_GRAMS_MAX_LISTS], int *exact)
{
	size_t j, nl = 0;

	for (j = 0; j + 3 <= n && nl < DBP_GRAMS_MAX_LISTS; j += 3)
		at[nl++] = j;
	if (at[nl - 1] != n - 3) {
		if (nl < DBP_GRAMS_MAX_LISTS)
			at[nl++] = n - 3;
		else
			*exact = 0;
	}
	return nl;
}

/*
 * The ids of column_grams_stale, in order, into *stale (malloc'd, caller
 * frees) and *nstale.  0, or -1 with d set.
 */
static int
gr_stale(sqlite3 *db, int64_t **stale, size_t *nstale, struct dbp_diag *d)
{
	static const char sql_stale[] = "SELECT id FROM column_grams_stale "
	    "ORDER BY id";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int64_t *np;
	int rc;

	*stale = NULL;
	*nstale = 0;
	if (sqlite3_prepare_v2(db, sql_stale, -1, &st, NULL) != SQLITE_OK)
		return dbp_fail(d, "index read failed: %s",
		    sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*nstale == cap) {
			cap = cap ? cap * 2 : 64;
			if ((np = realloc(*stale, cap * sizeof(*np))) ==
			    NULL) {
				sqlite3_finalize(st);
				return dbp_fail(d, "out of memory");
			}
			*stale = np;
		}
		(*stale)[(*nstale)++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE) {
		dbp_fail(d, "index read failed: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * Merge the nl posting lists: advance every list to the highest current
 * id until all agree, then test the offsets; each id whose trigrams sit
 * as in the needle and that is not stale is appended to *out (malloc'd,
 * caller frees), *nids of them.  0, or -1 on OOM.
 */
static int
gr_merge(struct gr_cur *cur, const size_t *at, size_t nl,
    const int64_t *stale, size_t nstale, int64_t **out, size_t *nids)
{
	size_t j, cap = 0;
	int64_t *np, hi;
	int done;

	for (j = 0; j < nl; j++)
		if (!gr_next(&cur[j]))
			return 0;
	for (;;) {
		hi = cur[0].id;
		for (j = 1; j < nl; j++)
			if (cur[j].id > hi)
				hi = cur[j].id;
		done = 0;
		for (j = 0; j < nl && !done; j++)
			while (cur[j].id < hi)
				if (!gr_next(&cur[j])) {
					done = 1;
					break;
				}
		if (done)
			break;
		for (j = 0; j < nl && cur[j].id == hi; j++)
			;
		if (j < nl)
			continue;	/* one went past hi: a new hi */
		if (gr_phrase(cur, at, nl) && !gr_in(stale, nstale, hi)) {
			if (*nids == cap) {
				cap = cap ? cap * 2 : 256;
				if ((np = realloc(*out, cap * sizeof(*np))) ==
				    NULL)
					return -1;
				*out = np;
			}
			(*out)[(*nids)++] = hi;
		}
		if (!gr_next(&cur[0]))
			break;
	}
	return 0;
}

int
dbp_grams_find(sqlite3 *db, const char *needle, int64_t **ids, size_t *nids,
    int *exact, struct dbp_diag *d)
{
	static const char sql_list[] = "SELECT postings FROM column_grams "
	    "WHERE gram = ?1";
	struct gr_cur cur[DBP_GRAMS_MAX_LISTS];
	unsigned char *copy[DBP_GRAMS_MAX_LISTS];
	size_t at[DBP_GRAMS_MAX_LISTS], n = strlen(needle), nl, j;
	size_t nstale = 0;
	int64_t *out = NULL, *stale = NULL;
	sqlite3_stmt *st = NULL;
	char t[3];
	const void *blob;
	int len, rc, r = -1;

	*ids = NULL;
	*nids = 0;
	*exact = 1;
	memset(copy, 0, sizeof(copy));
	if (n < 3)
		return dbp_fail(d, "a text index needle has three characters "
		    "or more");
	for (j = 0; j < n; j++)
		if (!GR_OK((unsigned char)needle[j]))
			return dbp_fail(d, "a text index needle is ASCII "
			    "without newlines");
	nl = gr_positions(n, at, exact);
	if (sqlite3_prepare_v2(db, sql_list, -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	for (j = 0; j < nl; j++) {
		t[0] = (char)gr_lower((unsigned char)needle[at[j]]);
		t[1] = (char)gr_lower((unsigned char)needle[at[j] + 1]);
		t[2] = (char)gr_lower((unsigned char)needle[at[j] + 2]);
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, t, 3, SQLITE_STATIC);
		if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
			r = 0;		/* a trigram no column holds */
			goto out;
		}
		if (rc != SQLITE_ROW)
			goto dberr;
		blob = sqlite3_column_blob(st, 0);
		len = sqlite3_column_bytes(st, 0);
		if ((copy[j] = malloc(len > 0 ? (size_t)len : 1)) == NULL)
			goto oom;
		if (len > 0)
			memcpy(copy[j], blob, (size_t)len);
		memset(&cur[j], 0, sizeof(cur[j]));
		cur[j].p = copy[j];
		cur[j].end = copy[j] + len;
	}
	if (gr_stale(db, &stale, &nstale, d) == -1)
		goto out;
	if (gr_merge(cur, at, nl, stale, nstale, &out, nids) == -1)
		goto oom;
	for (j = 0; j < nl; j++)
		if (cur[j].bad) {
			dbp_fail(d, "the text index is damaged: rebuild it "
			    "with dbprint-index --full");
			goto out;
		}
	*ids = out;
	out = NULL;
	r = 0;
	goto out;
oom:
	dbp_fail(d, "out of memory");
	goto out;
dberr:
	dbp_fail(d, "index read failed: %s", sqlite3_errmsg(db));
out:
	if (r == -1)
		*nids = 0;
	sqlite3_finalize(st);
	for (j = 0; j < DBP_GRAMS_MAX_LISTS; j++)
		free(copy[j]);
	free(out);
	free(stale);
	return r;
}

/*
 * ctx_page.c - cutting a context into pages (spec 4.1, 4.8).
 *
 * Markdown: the sections are blocks joined by "\n\n"; a page takes whole
 * blocks while they fit, and a block too large continues on the next page
 * at a line boundary (a line longer than a page at a character boundary).
 * The bound reserves room for the whole legend, so each page's own legend
 * - the terms of the lines it holds - always fits: after the header on the
 * first page, at the top of every later one.  Every page but the last ends
 * "\n<!-- next_cursor: C -->".  The position is the page number.
 *
 * json/yaml: the object is a run of units (ctx_obj.c); a page takes the
 * longest run that fits with a placeholder cursor, merging the units key
 * by key; a unit too large for any page is sent as {"part","parts","text"}
 * entries in its own place, one per page.  The position is the slot.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdlib.h>
#include <string.h>

#include "ctx.h"

/* ------------------------------------------------------------------ */
/* Markdown */

struct md_span {
	size_t	start, end;	/* byte offsets into the body */
};

struct md_doc {
	struct dbp_buf	 body;
	size_t		 hdr_end;	/* end of the header piece */
	struct md_span	*lines;		/* every line's span, in order */
	const struct ctx_line **lref;
	size_t		 nlines;
	struct md_span	*pages;
	size_t		 npages, cap;
};

static int
md_page_add(struct md_doc *d, size_t start, size_t end)
{
	if (end <= start)
		return 0;
	if (d->npages == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		void *p = realloc(d->pages, cap * sizeof(*d->pages));

		if (p == NULL)
			return -1;
		d->pages = p;
		d->cap = cap;
	}
	d->pages[d->npages].start = start;
	d->pages[d->npages].end = end;
	d->npages++;
	return 0;
}

/* Cut piece [ps, pe) at line boundaries into chunks of at most bound
 * characters; all but the last become pages, the last is returned in
 * *cs, *ce, *clen to start the next page. */
static int
md_line_pages(struct md_doc *d, size_t ps, size_t pe, size_t bound,
    size_t *cs, size_t *ce, size_t *clen)
{
	const char *t = d->body.ptr;
	size_t s = ps, e = ps, len = 0, p, nl, ll, cut;

	for (p = ps; p < pe; p = nl) {
		const char *q = memchr(t + p, '\n', pe - p);

		nl = q != NULL ? (size_t)(q - t) + 1 : pe;
		ll = ctx_chars(t + p, nl - p);
		if (len + ll <= bound) {
			e = nl;
			len += ll;
			continue;
		}
		if (e > s && md_page_add(d, s, e) == -1)
			return -1;
		s = e = p;
		len = 0;
		/* a line longer than a page: cut at character boundaries */
		while (ll > bound) {
			cut = ctx_prefix(t + p, nl - p, bound);
			if (md_page_add(d, p, p + cut) == -1)
				return -1;
			p += cut;
			ll = ctx_chars(t + p, nl - p);
		}
		s = p;
		e = nl;
		len = ll;
	}
	*cs = s;
	*ce = e;
	*clen = len;
	return 0;
}

static int
md_paginate(struct md_doc *d, const size_t *piece_end, size_t npieces,
    size_t bound)
{
	size_t cs = 0, ce = 0, clen = 0, ps = 0, plen, i;

	for (i = 0; i < npieces; i++) {
		plen = ctx_chars(d->body.ptr + ps, piece_end[i] - ps);
		if (clen + plen <= bound) {
			if (ce == cs)
				cs = ps;
			ce = piece_end[i];
			clen += plen;
		} else {
			if (ce > cs && md_page_add(d, cs, ce) == -1)
				return -1;
			if (md_line_pages(d, ps, piece_end[i], bound, &cs, &ce,
			    &clen) == -1)
				return -1;
		}
		ps = piece_end[i];
	}
	if (ce > cs && md_page_add(d, cs, ce) == -1)
		return -1;
	return 0;
}

/* The legend of the lines overlapping [start, end). */
static int
md_legend(struct ctx_md *m, struct md_doc *d, size_t start, size_t end,
    struct dbp_buf *out)
{
	unsigned char *used;
	size_t i, k, n = ctx_terms_count(m->terms);
	int rc;

	if ((used = calloc(n + 1, 1)) == NULL)
		return -1;
	for (i = 0; i < d->nlines; i++) {
		if (d->lines[i].end <= start && d->lines[i].start < start)
			continue;
		if (d->lines[i].start >= end)
			break;
		for (k = 0; k < d->lref[i]->nterms; k++)
			used[d->lref[i]->terms[k]] = 1;
	}
	rc = ctx_terms_legend(m->terms, used, out);
	free(used);
	return rc;
}

static void
md_doc_release(struct md_doc *d)
{
	dbp_buf_release(&d->body);
	free(d->lines);
	free(d->lref);
	free(d->pages);
}

/* Joins m's sections into d's body, one line a d line, and notes
 * where each section ends in piece_end; -1 when out of memory. */
static int
md_doc_fill(struct ctx_md *m, struct md_doc *d, size_t *piece_end)
{
	size_t i, j;

	dbp_buf_adds(&d->body, "");
	for (i = 0; i < m->n; i++) {
		for (j = 0; j < m->sects[i].n; j++) {
			d->lines[d->nlines].start = d->body.len;
			dbp_buf_adds(&d->body, m->sects[i].lines[j].text);
			d->lines[d->nlines].end = d->body.len;
			d->lref[d->nlines++] = &m->sects[i].lines[j];
			if (j + 1 < m->sects[i].n)
				dbp_buf_addc(&d->body, '\n');
		}
		if (i + 1 < m->n)
			dbp_buf_adds(&d->body, "\n\n");
		piece_end[i] = d->body.len;
		if (i == 0)
			d->hdr_end = d->body.len;
	}
	if (d->body.failed)
		return -1;
	return 0;
}

/* Writes page pos of d to out with its legend leg, which on the first
 * page follows the header. */
static void
md_page_text(struct md_doc *d, size_t pos, const struct dbp_buf *leg,
    struct dbp_buf *out)
{
	if (pos == 0 && leg->len > 0) {
		size_t he = d->hdr_end < d->pages[0].end ? d->hdr_end :
		    d->pages[0].end;

		dbp_buf_add(out, d->body.ptr, he);
		if (he == d->body.len)
			dbp_buf_adds(out, "\n\n");
		dbp_buf_add(out, leg->ptr, leg->len);
		if (he < d->pages[0].end) {
			dbp_buf_adds(out, "\n\n");
			dbp_buf_add(out, d->body.ptr + he,
			    d->pages[0].end - he);
		}
	} else {
		if (leg->len > 0) {
			dbp_buf_add(out, leg->ptr, leg->len);
			dbp_buf_adds(out, "\n\n");
		}
		dbp_buf_add(out, d->body.ptr + d->pages[pos].start,
		    d->pages[pos].end - d->pages[pos].start);
	}
}

int
ctx_page_md(struct call *c, struct ctx_md *m, size_t pos)
{
	struct md_doc d;
	struct dbp_buf leg, out;
	size_t *piece_end = NULL, i, nl = 0, bound, marker, legend_len;
	char *cur = NULL;
	int rc = -1;

	memset(&d, 0, sizeof(d));
	dbp_buf_init(&d.body, DBP_MAX_FILE_BYTES);
	dbp_buf_init(&leg, DBP_MAX_FILE_BYTES);
	dbp_buf_init(&out, DBP_MAX_FILE_BYTES);
	for (i = 0; i < m->n; i++)
		nl += m->sects[i].n;
	d.lines = calloc(nl + 1, sizeof(*d.lines));
	d.lref = calloc(nl + 1, sizeof(*d.lref));
	piece_end = calloc(m->n + 1, sizeof(*piece_end));
	if (d.lines == NULL || d.lref == NULL || piece_end == NULL)
		goto oom;
	if (md_doc_fill(m, &d, piece_end) == -1)
		goto oom;
	/* the whole legend, to reserve its room on every page */
	if (md_legend(m, &d, 0, d.body.len + 1, &leg) == -1)
		goto oom;
	legend_len = ctx_chars(leg.ptr ? leg.ptr : "", leg.len);
	marker = strlen("\n<!-- next_cursor:  -->") + SRV_CURSOR_LEN;
	if (DBP_PAGE_CHARS <= marker + legend_len + 2 + 100)
		bound = 100;
	else
		bound = DBP_PAGE_CHARS - marker - (legend_len +
		    (legend_len ? 2 : 0));
	if (ctx_chars(d.body.ptr, d.body.len) + legend_len +
	    (legend_len ? 2 : 0) <= DBP_PAGE_CHARS) {
		if (md_page_add(&d, 0, d.body.len) == -1)
			goto oom;
	} else if (md_paginate(&d, piece_end, m->n, bound) == -1)
		goto oom;
	if (d.npages == 0 && md_page_add(&d, 0, d.body.len) == -1)
		goto oom;
	if (d.npages == 0) {
		rc = 0;
		c->text = strdup("");
		goto done;
	}
	if (pos >= d.npages) {
		call_fail(c, "this cursor was not issued by get_table_context "
		    "with these arguments. Repeat the call that returned it "
		    "with the same arguments, or call again without "
		    "`cursor`.");
		goto done;
	}
	dbp_buf_release(&leg);
	dbp_buf_init(&leg, DBP_MAX_FILE_BYTES);
	if (md_legend(m, &d, d.pages[pos].start, d.pages[pos].end, &leg) == -1)
		goto oom;
	md_page_text(&d, pos, &leg, &out);
	if (pos + 1 < d.npages) {
		if ((cur = call_cursor(c, pos + 1)) == NULL) {
			call_fail(c, "could not issue a cursor");
			goto done;
		}
		dbp_buf_addf(&out, "\n<!-- next_cursor: %s -->", cur);
	}
	dbp_buf_adds(&out, "");
	if (out.failed)
		goto oom;
	free(c->text);
	c->text = dbp_buf_take(&out);
	rc = 0;
	goto done;
oom:
	call_fail(c, "out of memory");
done:
	free(cur);
	free(piece_end);
	dbp_buf_release(&leg);
	dbp_buf_release(&out);
	md_doc_release(&d);
	return rc;
}

/* ------------------------------------------------------------------ */
/* json / yaml */

struct obj_slot {
	size_t	unit;
	size_t	part;		/* 1-based; 0 for a whole unit */
	size_t	parts;
	size_t	off, len;	/* chunk of the unit's text */
};

struct obj_pager {
	struct ctx_obj	*o;
	int		 yaml;
	struct obj_slot	*slots;
	size_t		*est;		/* per slot: estimated characters */
	size_t		 n, cap;
	char		**texts;	/* per unit: its JSON when in parts */
	char		 placeholder[SRV_CURSOR_LEN + 1];
};

/* The object at path (creating it) under root. */
static cJSON *
pg_container(cJSON *root, const char *const *path, int depth)
{
	cJSON *cur = root, *next;
	int i;

	for (i = 0; i < depth; i++) {
		next = cJSON_GetObjectItemCaseSensitive(cur, path[i]);
		if (next == NULL) {
			next = cJSON_CreateObject();
			if (next == NULL)
				return NULL;
			if (srv_json_put(cur, path[i], next) == -1)
				return NULL;
		}
		if (!cJSON_IsObject(next))
			return NULL;
		cur = next;
	}
	return cur;
}

/* The page object of slots [s, s+k). */
static cJSON *
pg_build(struct obj_pager *p, size_t s, size_t k)
{
	cJSON *root, *box, *e, *part;
	size_t i;

	if ((root = cJSON_CreateObject()) == NULL)
		return NULL;
	for (i = s; i < s + k; i++) {
		const struct obj_slot *sl = &p->slots[i];
		const struct ctx_unit *u = &p->o->units[sl->unit];

		if (u->splice && sl->part == 0) {
			box = pg_container(root, u->path, u->depth);
			if (box == NULL)
				goto fail;
			cJSON_ArrayForEach(e, u->value)
				srv_json_put_ref(box, e->string, e);
			continue;
		}
		box = pg_container(root, u->path, u->depth - 1);
		if (box == NULL)
			goto fail;
		if (sl->part == 0) {
			srv_json_put_ref(box, u->path[u->depth - 1],
			    u->value);
			continue;
		}
		if ((part = cJSON_CreateObject()) == NULL)
			goto fail;
		cJSON_AddNumberToObject(part, "part", (double)sl->part);
		cJSON_AddNumberToObject(part, "parts", (double)sl->parts);
		{
			char *chunk = strndup(p->texts[sl->unit] + sl->off,
			    sl->len);

			cJSON_AddStringToObject(part, "text",
			    chunk != NULL ? chunk : "");
			free(chunk);
		}
		srv_json_put(box, u->path[u->depth - 1], part);
	}
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

/* The text of page object v with cursor cur (NULL for the last page). */
static char *
pg_text(struct obj_pager *p, cJSON *v, const char *cur)
{
	struct dbp_buf b;
	char *t;

	if (!p->yaml) {
		if (cur != NULL)
			cJSON_AddStringToObject(v, "next_cursor", cur);
		t = dbp_json_dump(v, 2);
		if (cur != NULL)
			cJSON_DeleteItemFromObjectCaseSensitive(v,
			    "next_cursor");
		return t;
	}
	if ((t = dbp_yaml_dump(v)) == NULL)
		return NULL;
	if (cur == NULL)
		return t;
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	dbp_buf_adds(&b, t);
	dbp_buf_addf(&b, "# next_cursor: %s\n", cur);
	free(t);
	return dbp_buf_take(&b);
}

/* Characters of the page [s, s+k) with the cursor placeholder when
 * cursor, or (size_t)-1 on OOM. */
static size_t
pg_measure(struct obj_pager *p, size_t s, size_t k, int cursor)
{
	cJSON *v;
	char *t;
	size_t n;

	if ((v = pg_build(p, s, k)) == NULL)
		return (size_t)-1;
	t = pg_text(p, v, cursor ? p->placeholder : NULL);
	cJSON_Delete(v);
	if (t == NULL)
		return (size_t)-1;
	n = ctx_chars(t, strlen(t));
	free(t);
	return n;
}

static int
pg_slot(struct obj_pager *p, size_t unit, size_t part, size_t parts,
    size_t off, size_t len)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		void *q = realloc(p->slots, cap * sizeof(*p->slots));
		void *e;

		if (q == NULL)
			return -1;
		p->slots = q;
		if ((e = realloc(p->est, cap * sizeof(*p->est))) == NULL)
			return -1;
		p->est = e;
		p->cap = cap;
	}
	p->slots[p->n].unit = unit;
	p->slots[p->n].part = part;
	p->slots[p->n].parts = parts;
	p->slots[p->n].off = off;
	p->slots[p->n].len = len;
	p->est[p->n] = 0;
	p->n++;
	return 0;
}

/* Escaped width of c inside a JSON string. */
static size_t
pg_esc(char c)
{
	if (c == '"' || c == '\\')
		return 2;
	if ((unsigned char)c < 0x20)
		return c == '\n' || c == '\t' || c == '\r' || c == '\b' ||
		    c == '\f' ? 2 : 6;
	return 1;
}

/* Escaped length of key as a JSON string (quotes included). */
static size_t
pg_key_len(const char *key)
{
	cJSON *s = cJSON_CreateString(key);
	char *t = s != NULL ? dbp_json_dump(s, 2) : NULL;
	size_t n = t != NULL ? strlen(t) : strlen(key) + 2;

	free(t);
	cJSON_Delete(s);
	return n;
}

/* Characters one "key": value member adds to an object at depth d (its
 * members indented 2*d), its separator included. */
static size_t
pg_member_est(const cJSON *v, size_t d, const char *key)
{
	char *t = dbp_json_dump(v, 2);
	size_t n, nl = 0, i;

	if (t == NULL)
		return DBP_PAGE_CHARS + 1;
	n = strlen(t);
	for (i = 0; i < n; i++)
		if (t[i] == '\n')
			nl++;
	free(t);
	return 2 * d + pg_key_len(key) + 2 + n + nl * 2 * d + 2;
}

/* Estimated characters of unit u on a page (containers aside). */
static size_t
pg_unit_est(struct obj_pager *p, size_t u)
{
	const struct ctx_unit *un = &p->o->units[u];
	const cJSON *e;
	size_t n = 0;

	if (!un->splice)
		return pg_member_est(un->value, (size_t)un->depth,
		    un->path[un->depth - 1]);
	cJSON_ArrayForEach(e, un->value)
		n += pg_member_est(e, (size_t)un->depth + 1, e->string);
	return n;
}

/* The container path of slot i: its keys, and how many. */
static int
pg_box(struct obj_pager *p, size_t i)
{
	const struct ctx_unit *un = &p->o->units[p->slots[i].unit];

	return un->splice && p->slots[i].part == 0 ? un->depth :
	    un->depth - 1;
}

/* Characters the containers slot i opens after slot prev (or none). */
static size_t
pg_open_est(struct obj_pager *p, size_t i, int has_prev, size_t prev)
{
	const struct ctx_unit *a = &p->o->units[p->slots[i].unit], *b;
	int n = pg_box(p, i), m, c = 0, j;
	size_t cost = 0;

	if (has_prev) {
		b = &p->o->units[p->slots[prev].unit];
		m = pg_box(p, prev);
		while (c < n && c < m && strcmp(a->path[c], b->path[c]) == 0)
			c++;
	}
	for (j = c; j < n; j++)
		cost += 4 * (size_t)(j + 1) + pg_key_len(a->path[j]) + 7;
	return cost;
}

/* The page's own characters: braces, and the cursor member. */
static size_t
pg_base(int cursor)
{
	return 3 + (cursor ? 2 + 13 + 2 + SRV_CURSOR_LEN + 2 + 2 : 0);
}

static int	pg_fits(struct obj_pager *p, size_t s, size_t k, int cursor);

/* Split unit u into parts sized to fit a page each. */
static int
pg_parts(struct obj_pager *p, size_t u)
{
	struct ctx_unit *un = &p->o->units[u];
	size_t len, off, avail, w, i, count, over, first = p->n;
	char *t;

	if ((t = dbp_json_dump(un->value, DBP_JSON_PYDEFAULT)) == NULL)
		return -1;
	p->texts[u] = t;
	len = strlen(t);
	/* overhead: the page with an empty part of large numbers */
	if (pg_slot(p, u, 999999, 999999, 0, 0) == -1)
		return -1;
	over = pg_measure(p, p->n - 1, 1, 1);
	p->n--;
	if (over == (size_t)-1)
		return -1;
	avail = DBP_PAGE_CHARS > over + 64 ? DBP_PAGE_CHARS - over : 64;
	for (off = 0; off < len; off += i) {
		for (i = 0, w = 0; off + i < len; i++) {
			size_t e = pg_esc(t[off + i]);

			if (w + e > avail)
				break;
			w += e;
		}
		if (i == 0)
			i = 1;
		if (pg_slot(p, u, 999999, 999999, off, i) == -1)
			return -1;
		/* yaml may quote a chunk differently: shrink until it fits */
		while (i > 1 && !pg_fits(p, p->n - 1, 1, 1)) {
			i -= i / 8 > 0 ? i / 8 : 1;
			p->slots[p->n - 1].len = i;
		}
	}
	count = p->n - first;
	for (i = first; i < p->n; i++) {
		p->slots[i].part = i - first + 1;
		p->slots[i].parts = count;
	}
	/* a part's estimate: its page as measured, less the page's own */
	for (i = first; i < p->n; i++) {
		size_t m = pg_measure(p, i, 1, 1), b = pg_base(1) +
		    pg_open_est(p, i, 0, 0);

		if (m == (size_t)-1)
			return -1;
		p->est[i] = m > b ? m - b : 0;
	}
	return 0;
}

/* 1 when the run holds two parts of one unit. */
static int
pg_split_twice(struct obj_pager *p, size_t s, size_t k)
{
	size_t i;

	for (i = s + 1; i < s + k; i++)
		if (p->slots[i].part > 1 &&
		    p->slots[i].unit == p->slots[i - 1].unit)
			return 1;
	return 0;
}

static int
pg_fits(struct obj_pager *p, size_t s, size_t k, int cursor)
{
	size_t n;

	if (pg_split_twice(p, s, k))
		return 0;
	n = pg_measure(p, s, k, cursor);
	return n != (size_t)-1 && n <= DBP_PAGE_CHARS;
}

/* The run of slots from pos a page takes, by the estimates: all the rest
 * when it fits without a cursor (*final set), else the longest run that
 * fits with one (at least one slot). */
static size_t
pg_run(struct obj_pager *p, size_t pos, int *final)
{
	size_t i, k = 0, total, cost;

	*final = 0;
	total = pg_base(0);
	for (i = pos; i < p->n; i++) {
		if (i > pos && pg_split_twice(p, i - 1, 2))
			break;
		total += pg_open_est(p, i, i > pos, i - 1) + p->est[i];
	}
	if (i == p->n && total <= DBP_PAGE_CHARS) {
		*final = 1;
		return p->n - pos;
	}
	/* yaml is most often shorter than its json: measure the rest */
	if (i == p->n && p->yaml && total <= 2 * DBP_PAGE_CHARS &&
	    pg_measure(p, pos, p->n - pos, 0) <= DBP_PAGE_CHARS) {
		*final = 1;
		return p->n - pos;
	}
	total = pg_base(1);
	for (i = pos; i < p->n; i++) {
		if (k > 0 && pg_split_twice(p, i - 1, 2))
			break;
		cost = pg_open_est(p, i, k > 0, i - 1) + p->est[i];
		if (k > 0 && total + cost > DBP_PAGE_CHARS)
			break;
		total += cost;
		k++;
	}
	return k;
}

int
ctx_page_obj(struct call *c, struct ctx_obj *o, int yaml, size_t pos)
{
	struct obj_pager p;
	cJSON *v = NULL;
	char *cur = NULL, *t = NULL;
	size_t u, k, i, n;
	int rc = -1, final;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.yaml = yaml;
	memset(p.placeholder, 'A', SRV_CURSOR_LEN);
	if ((p.texts = calloc(o->n + 1, sizeof(*p.texts))) == NULL)
		goto oom;
	/* one slot per unit; a unit too large for any page goes in parts */
	for (u = 0; u < o->n; u++) {
		if (pg_slot(&p, u, 0, 0, 0, 0) == -1)
			goto oom;
		p.est[p.n - 1] = pg_unit_est(&p, u);
		if (pg_base(1) + pg_open_est(&p, p.n - 1, 0, 0) +
		    p.est[p.n - 1] <= DBP_PAGE_CHARS)
			continue;
		p.n--;
		if (pg_parts(&p, u) == -1)
			goto oom;
	}
	if (pos >= p.n && !(pos == 0 && p.n == 0)) {
		call_fail(c, "this cursor was not issued by get_table_context "
		    "with these arguments. Repeat the call that returned it "
		    "with the same arguments, or call again without "
		    "`cursor`.");
		goto done;
	}
	k = pg_run(&p, pos, &final);
	/* the estimates guide; the page as sent decides */
	for (;;) {
		if ((v = pg_build(&p, pos, k)) == NULL)
			goto oom;
		if ((t = pg_text(&p, v, final ? NULL : p.placeholder)) == NULL)
			goto oom;
		n = ctx_chars(t, strlen(t));
		free(t);
		t = NULL;
		if (n <= DBP_PAGE_CHARS || k <= 1)
			break;
		cJSON_Delete(v);
		v = NULL;
		k--;
		final = 0;
	}
	if (!final && (cur = call_cursor(c, pos + k)) == NULL) {
		call_fail(c, "could not issue a cursor");
		goto done;
	}
	if ((t = pg_text(&p, v, cur)) == NULL)
		goto oom;
	free(c->text);
	c->text = t;
	rc = 0;
	goto done;
oom:
	call_fail(c, "out of memory");
done:
	cJSON_Delete(v);
	free(cur);
	if (p.texts != NULL)
		for (i = 0; i < o->n; i++)
			free(p.texts[i]);
	free(p.texts);
	free(p.slots);
	free(p.est);
	return rc;
}

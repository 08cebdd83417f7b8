/*
 * page.c - the paging engine of spec 4.8: every reply a client receives
 * is at most DBP_PAGE_CHARS characters, measured on the text it gets (a
 * JSON reply as dbp_json_dump prints it with a two-space indent and
 * ensure_ascii, a text reply as it stands); a longer reply is cut into
 * pages and nothing is dropped.
 *
 * A list reply is a sequence of units: each head key, then every item of
 * the list(s).  A unit too large for any page is replaced by parts
 * {"part","parts","text"} whose texts concatenate to its JSON.  A page
 * takes the longest run of units from its position that fits (an
 * exponential probe, then a binary search), measured with a placeholder
 * cursor of the one fixed cursor width.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define PAGE_PART_WIDTH	9999	/* placeholder part numbers for measuring */
#define PAGE_INDENT	2
#define PAGE_MARK_HEAD	"\n<!-- next_cursor: "
#define PAGE_MARK_TAIL	" -->"

enum page_kind { PAGE_HEAD, PAGE_ITEM };

struct page_unit {
	enum page_kind	 kind;
	int		 list;		/* PAGE_ITEM: 0 or 1 */
	const char	*key;		/* PAGE_HEAD: the key */
	cJSON		*value;		/* borrowed (whole unit) */
	size_t		 item;		/* PAGE_ITEM: index over both lists */
	size_t		 id;		/* distinct per original unit */
	int		 part, parts;	/* 0 when whole */
	char		*text;		/* the part's chunk, owned */
};

struct page_eng {
	const struct page_list	*l;
	const char		*cursor_key;	/* next_cursor / nextCursor */
	int			 always_lists;	/* protocol: list key always */
	struct page_unit	*u;
	size_t			 n;
	size_t			 total;
	char			 placeholder[SRV_CURSOR_LEN + 1];
};

static void
page_eng_free(struct page_eng *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->u[i].text);
	free(e->u);
	e->u = NULL;
	e->n = 0;
}

/* A part object {"part", "parts", "text"}; NULL on OOM. */
static cJSON *
page_part(int part, int parts, const char *text)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "part", part);
	cJSON_AddNumberToObject(o, "parts", parts);
	cJSON_AddStringToObject(o, "text", text);
	return o;
}

/* The value a unit shows on a page: a reference to it, or its part. */
static cJSON *
page_unit_value(const struct page_unit *u)
{
	if (u->parts > 0)
		return page_part(u->part, u->parts, u->text);
	if (cJSON_IsObject(u->value))
		return cJSON_CreateObjectReference(u->value->child);
	if (cJSON_IsArray(u->value))
		return cJSON_CreateArrayReference(u->value->child);
	return cJSON_Duplicate(u->value, 1);
}

/*
 * Render the page holding units [start, start + count); cursor is the
 * next_cursor value or NULL for a last page.  The caller frees the tree.
 */
static cJSON *
page_render(const struct page_eng *e, size_t start, size_t count,
    const char *cursor)
{
	const struct page_list *l = e->l;
	cJSON *page, *arr[2] = { NULL, NULL }, *v, *ev;
	size_t i, first = 0, nitems = 0, last_id = (size_t)-1;
	int li, have_first = 0;

	if ((page = cJSON_CreateObject()) == NULL)
		return NULL;
	for (i = start; i < start + count; i++)
		if (e->u[i].kind == PAGE_HEAD &&
		    (v = page_unit_value(&e->u[i])) != NULL)
			cJSON_AddItemToObject(page, e->u[i].key, v);
	if (l->every != NULL)
		cJSON_ArrayForEach(ev, l->every)
			cJSON_AddItemReferenceToObject(page, ev->string, ev);
	for (li = 0; li < 2; li++) {
		if (l->key[li] == NULL)
			continue;
		for (i = start; i < start + count; i++)
			if (e->u[i].kind == PAGE_ITEM && e->u[i].list == li)
				break;
		if (i == start + count && !e->always_lists &&
		    !(start == 0 && l->empty_on_first[li]))
			continue;
		arr[li] = cJSON_AddArrayToObject(page, l->key[li]);
	}
	for (i = start; i < start + count; i++) {
		if (e->u[i].kind != PAGE_ITEM || arr[e->u[i].list] == NULL)
			continue;
		if ((v = page_unit_value(&e->u[i])) != NULL)
			cJSON_AddItemToArray(arr[e->u[i].list], v);
		if (!have_first) {
			first = e->u[i].item;
			have_first = 1;
		}
		if (e->u[i].id != last_id) {
			nitems++;
			last_id = e->u[i].id;
		}
	}
	if (l->after != NULL)
		l->after(l->ctx, page, first, nitems);
	if (!l->no_total)
		cJSON_AddNumberToObject(page, "total", (double)e->total);
	if (cursor != NULL)
		cJSON_AddStringToObject(page, e->cursor_key, cursor);
	return page;
}

/* Length of the page's text, or (size_t)-1 on OOM. */
static size_t
page_measure(const struct page_eng *e, size_t start, size_t count,
    const char *cursor)
{
	cJSON *page;
	char *t;
	size_t n;

	if ((page = page_render(e, start, count, cursor)) == NULL)
		return (size_t)-1;
	t = dbp_json_dump(page, PAGE_INDENT);
	cJSON_Delete(page);
	if (t == NULL)
		return (size_t)-1;
	n = strlen(t);
	free(t);
	return n;
}

/* 1 when units [start, start + count) fit one page. */
static int
page_fits(const struct page_eng *e, size_t start, size_t count)
{
	size_t i, j;

	for (i = start; i < start + count; i++) {
		if (e->u[i].parts == 0)
			continue;
		for (j = i + 1; j < start + count; j++)
			if (e->u[j].id == e->u[i].id)
				return 0;
	}
	return page_measure(e, start, count, e->placeholder) <=
	    (size_t)DBP_PAGE_CHARS;
}

/* How many units from start the page takes (at least 1 when any left). */
static size_t
page_run(const struct page_eng *e, size_t start)
{
	size_t left = e->n - start, good = 0, bad, mid, c;

	if (left == 0)
		return 0;
	for (c = 1; ; c *= 2) {
		if (c > left)
			c = left;
		if (!page_fits(e, start, c)) {
			bad = c;
			break;
		}
		good = c;
		if (c == left)
			return good;
	}
	while (bad - good > 1) {
		mid = good + (bad - good) / 2;
		if (page_fits(e, start, mid))
			good = mid;
		else
			bad = mid;
	}
	return good > 0 ? good : 1;
}

/* Add one unit (growing the array); 0 or -1. */
static int
page_add(struct page_eng *e, const struct page_unit *u, size_t *cap)
{
	struct page_unit *nu;

	if (e->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((nu = realloc(e->u, *cap * sizeof(*nu))) == NULL)
			return -1;
		e->u = nu;
	}
	e->u[e->n++] = *u;
	return 0;
}

/* Width a character of dumped JSON takes once escaped again as a string
 * (the dump is ASCII: only '"' and '\\' grow). */
static size_t
page_width(char ch)
{
	return ch == '"' || ch == '\\' ? 2 : 1;
}

/*
 * An upper bound of the characters v takes in an indented, ensure_ascii
 * dump when nested depth levels deep, without serializing it: a string
 * byte never takes more than 6 ("\u00XX"), a number its spelling.  Stops
 * counting once past limit.
 */
static size_t
page_bound(const cJSON *v, size_t depth, size_t limit)
{
	const cJSON *c;
	size_t n, per;

	if (cJSON_IsString(v))
		return 2 + 6 * strlen(v->valuestring);
	if (cJSON_IsNumber(v))
		return v->valuestring != NULL ? strlen(v->valuestring) :
		    DBP_FLOAT_REPR_MAX;
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return 5;			/* true, false, null */
	n = 2 + 1 + PAGE_INDENT * depth;	/* brackets, newline, indent */
	per = PAGE_INDENT * (depth + 1) + 2;	/* indent, ",\n" */
	for (c = v->child; c != NULL && n <= limit; c = c->next) {
		n += per + page_bound(c, depth + 1, limit);
		if (c->string != NULL)
			n += 2 + 6 * strlen(c->string) + 2;	/* key, ": " */
	}
	return n;
}

/*
 * Append unit u, split into parts when it cannot fit any page alone.
 * Measuring every unit exactly would render a page per unit; a unit
 * whose size bound leaves room on an otherwise empty page is known to
 * fit.
 */
static int
page_add_unit(struct page_eng *e, struct page_unit *u, size_t *cap,
    size_t base)
{
	struct page_unit p;
	char *text;
	size_t len, over, room, i, w, nparts, k, cut;
	int rc = -1;

	/* A unit sits at most three levels deep in a page. */
	if (base + page_bound(u->value, 3, DBP_PAGE_CHARS) + 64 +
	    (u->key ? 6 * strlen(u->key) : 0) <= (size_t)DBP_PAGE_CHARS)
		return page_add(e, u, cap);
	/* Measure exactly: a page holding only this unit. */
	if (page_add(e, u, cap) != 0)
		return -1;
	len = page_measure(e, e->n - 1, 1, e->placeholder);
	if (len == (size_t)-1)
		return -1;
	if (len <= (size_t)DBP_PAGE_CHARS)
		return 0;
	e->n--;
	/* Parts: the overhead of a page holding one empty part. */
	p = *u;
	p.part = p.parts = PAGE_PART_WIDTH;
	p.text = (char *)"";
	if (page_add(e, &p, cap) != 0)
		return -1;
	over = page_measure(e, e->n - 1, 1, e->placeholder);
	e->n--;
	e->u[e->n].text = NULL;
	if (over == (size_t)-1 || over >= (size_t)DBP_PAGE_CHARS)
		return -1;
	room = (size_t)DBP_PAGE_CHARS - over;
	if ((text = dbp_json_dump(u->value, DBP_JSON_PYDEFAULT)) == NULL)
		return -1;
	len = strlen(text);
	/* Count the parts first, then emit them. */
	nparts = 0;
	for (i = 0; i < len; ) {
		for (w = 0, k = i; k < len && w + page_width(text[k]) <= room;
		    k++)
			w += page_width(text[k]);
		i = k > i ? k : i + 1;
		nparts++;
	}
	for (i = 0, k = 0; i < len; k++) {
		for (w = 0, cut = i; cut < len &&
		    w + page_width(text[cut]) <= room; cut++)
			w += page_width(text[cut]);
		if (cut == i)
			cut = i + 1;
		p = *u;
		p.part = (int)k + 1;
		p.parts = (int)nparts;
		if ((p.text = strndup(text + i, cut - i)) == NULL)
			goto out;
		if (page_add(e, &p, cap) != 0) {
			free(p.text);
			goto out;
		}
		i = cut;
	}
	rc = 0;
out:
	free(text);
	return rc;
}

/* Build e's units from l. */
static int
page_build(struct page_eng *e, const struct page_list *l)
{
	struct page_unit u;
	cJSON *h, *it;
	size_t cap = 0, id = 0, item = 0, base;
	int li;

	memset(e->placeholder, 'A', SRV_CURSOR_LEN);
	e->placeholder[SRV_CURSOR_LEN] = '\0';
	e->l = l;
	e->total = 0;
	for (li = 0; li < 2; li++)
		if (l->items[li] != NULL)
			e->total += (size_t)cJSON_GetArraySize(l->items[li]);
	base = page_measure(e, 0, 0, e->placeholder);
	if (base == (size_t)-1)
		return -1;
	if (l->head != NULL)
		cJSON_ArrayForEach(h, l->head) {
			memset(&u, 0, sizeof(u));
			u.kind = PAGE_HEAD;
			u.key = h->string;
			u.value = h;
			u.id = id++;
			if (page_add_unit(e, &u, &cap, base) != 0)
				return -1;
		}
	for (li = 0; li < 2; li++) {
		if (l->items[li] == NULL || l->key[li] == NULL)
			continue;
		cJSON_ArrayForEach(it, l->items[li]) {
			memset(&u, 0, sizeof(u));
			u.kind = PAGE_ITEM;
			u.list = li;
			u.value = it;
			u.item = item++;
			u.id = id++;
			if (page_add_unit(e, &u, &cap, base) != 0)
				return -1;
		}
	}
	return 0;
}

int
page_list(struct call *c, const struct page_list *l, size_t pos)
{
	struct page_eng e;
	cJSON *page = NULL;
	char *cur = NULL;
	size_t count;
	int rc = -1;

	memset(&e, 0, sizeof(e));
	e.cursor_key = "next_cursor";
	if (page_build(&e, l) != 0) {
		call_fail(c, "out of memory paging the reply");
		goto out;
	}
	if (pos > e.n || (c->cursor != NULL && pos == e.n)) {
		call_out_of_range(c);
		goto out;
	}
	count = page_run(&e, pos);
	if (pos + count < e.n && (cur = call_cursor(c, pos + count)) == NULL) {
		if (c->text == NULL)
			call_fail(c, "out of memory paging the reply");
		goto out;
	}
	if ((page = page_render(&e, pos, count, cur)) == NULL) {
		call_fail(c, "out of memory paging the reply");
		goto out;
	}
	free(c->text);
	if ((c->text = dbp_json_dump(page, PAGE_INDENT)) == NULL) {
		call_fail(c, "out of memory paging the reply");
		goto out;
	}
	c->is_error = 0;
	rc = 0;
out:
	cJSON_Delete(page);
	free(cur);
	page_eng_free(&e);
	return rc;
}

int
call_reply_json(struct call *c, const cJSON *v)
{
	char *t;

	if ((t = dbp_json_dump(v, PAGE_INDENT)) == NULL)
		return call_fail(c, "out of memory");
	free(c->text);
	c->text = t;
	c->is_error = 0;
	return 0;
}

int
page_proto(const char *scope, cJSON *items, const char *key,
    const char *cursor, const char *files, cJSON **result, char **detail)
{
	struct page_list l;
	struct page_eng e;
	char cur[SRV_CURSOR_LEN + 1];
	size_t pos = 0, count;
	int rc = -1;

	*result = NULL;
	*detail = NULL;
	memset(&l, 0, sizeof(l));
	l.key[0] = key;
	l.items[0] = items;
	l.no_total = 1;
	memset(&e, 0, sizeof(e));
	e.cursor_key = "nextCursor";
	e.always_lists = 1;
	if (call_proto_check(scope, files, cursor, &pos, detail) != 0)
		return -1;
	if (page_build(&e, &l) != 0) {
		*detail = strdup("out of memory paging the list");
		goto out;
	}
	if (pos > e.n || (cursor != NULL && pos >= e.n)) {
		*detail = call_proto_foreign(scope);
		goto out;
	}
	count = page_run(&e, pos);
	if (pos + count < e.n)
		call_proto_cursor(scope, files, pos + count, cur);
	*result = page_render(&e, pos, count, pos + count < e.n ? cur : NULL);
	if (*result == NULL) {
		*detail = strdup("out of memory paging the list");
		goto out;
	}
	/* The page holds references into items: make it self-standing. */
	{
		cJSON *own = cJSON_Duplicate(*result, 1);

		cJSON_Delete(*result);
		*result = own;
		if (own == NULL) {
			*detail = strdup("out of memory paging the list");
			goto out;
		}
	}
	rc = 0;
out:
	page_eng_free(&e);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Text documents                                                       */

/* Characters (code points) of p[0..n). */
static size_t
page_chars(const char *p, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)p[i] & 0xc0) != 0x80)
			c++;
	return c;
}

/* Bytes of the longest prefix of p[0..n) holding at most max characters,
 * ending on a character boundary (at least one character). */
static size_t
page_prefix(const char *p, size_t n, size_t max)
{
	size_t i = 0, c = 0;

	while (i < n) {
		size_t k = i + 1;

		while (k < n && ((unsigned char)p[k] & 0xc0) == 0x80)
			k++;
		if (c + 1 > max && c > 0)
			break;
		c++;
		i = k;
	}
	return i;
}

struct page_doc {
	char	**pages;
	size_t	  n, cap;
	struct dbp_buf cur;	/* the page being filled */
	size_t	  cur_chars;
};

static int
page_doc_close(struct page_doc *d)
{
	char **np;
	char *t;

	if (d->cur.failed)
		return -1;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		if ((np = realloc(d->pages, d->cap * sizeof(*np))) == NULL)
			return -1;
		d->pages = np;
	}
	t = d->cur.len > 0 ? dbp_buf_take(&d->cur) : strdup("");
	if (t == NULL)
		return -1;
	d->pages[d->n++] = t;
	d->cur_chars = 0;
	return 0;
}

/* Cut piece p[0..n) into line-boundary chunks of at most bound
 * characters: every chunk but the last becomes a page, the last starts
 * the current page. */
static int
page_doc_lines(struct page_doc *d, const char *p, size_t n, size_t bound)
{
	size_t i = 0, eol, ll, lc, take;

	while (i < n) {
		const char *nl = memchr(p + i, '\n', n - i);

		eol = nl != NULL ? (size_t)(nl - p) + 1 : n;
		ll = eol - i;
		lc = page_chars(p + i, ll);
		if (d->cur_chars + lc <= bound) {
			dbp_buf_add(&d->cur, p + i, ll);
			d->cur_chars += lc;
			i = eol;
			continue;
		}
		if (d->cur_chars > 0) {
			if (page_doc_close(d) != 0)
				return -1;
			continue;
		}
		/* A line longer than a page: cut at a character boundary. */
		take = page_prefix(p + i, ll, bound);
		dbp_buf_add(&d->cur, p + i, take);
		d->cur_chars = page_chars(p + i, take);
		i += take;
		if (page_doc_close(d) != 0)
			return -1;
	}
	return 0;
}

int
page_text(struct call *c, const char *const *blocks, size_t nblocks,
    size_t pos)
{
	struct page_doc d;
	struct dbp_buf out;
	size_t i, bound, n, pc;
	char *cur = NULL, *piece;
	int rc = -1;

	memset(&d, 0, sizeof(d));
	dbp_buf_init(&d.cur, DBP_MAX_FILE_BYTES);
	bound = (size_t)DBP_PAGE_CHARS - (strlen(PAGE_MARK_HEAD) +
	    SRV_CURSOR_LEN + strlen(PAGE_MARK_TAIL));
	for (i = 0; i < nblocks; i++) {
		n = strlen(blocks[i]);
		if (i + 1 < nblocks) {
			if ((piece = malloc(n + 3)) == NULL)
				goto oom;
			memcpy(piece, blocks[i], n);
			memcpy(piece + n, "\n\n", 3);
			n += 2;
		} else if ((piece = strdup(blocks[i])) == NULL)
			goto oom;
		pc = page_chars(piece, n);
		if (d.cur_chars + pc <= bound) {
			dbp_buf_add(&d.cur, piece, n);
			d.cur_chars += pc;
		} else {
			if (d.cur_chars > 0 && page_doc_close(&d) != 0) {
				free(piece);
				goto oom;
			}
			if (page_doc_lines(&d, piece, n, bound) != 0) {
				free(piece);
				goto oom;
			}
		}
		free(piece);
	}
	if (d.cur_chars > 0 || d.n == 0)
		if (page_doc_close(&d) != 0)
			goto oom;
	if (pos >= d.n || (c->cursor != NULL && pos == 0)) {
		call_out_of_range(c);
		goto out;
	}
	dbp_buf_init(&out, DBP_MAX_FILE_BYTES);
	dbp_buf_adds(&out, d.pages[pos]);
	if (pos + 1 < d.n) {
		if ((cur = call_cursor(c, pos + 1)) == NULL) {
			dbp_buf_release(&out);
			if (c->text == NULL)
				goto oom;
			goto out;
		}
		dbp_buf_adds(&out, PAGE_MARK_HEAD);
		dbp_buf_adds(&out, cur);
		dbp_buf_adds(&out, PAGE_MARK_TAIL);
	}
	if (out.failed) {
		dbp_buf_release(&out);
		goto oom;
	}
	free(c->text);
	c->text = out.len > 0 ? dbp_buf_take(&out) : strdup("");
	c->is_error = 0;
	rc = c->text != NULL ? 0 : call_fail(c, "out of memory");
	goto out;
oom:
	call_fail(c, "out of memory paging the reply");
out:
	for (i = 0; i < d.n; i++)
		free(d.pages[i]);
	free(d.pages);
	dbp_buf_release(&d.cur);
	free(cur);
	return rc;
}

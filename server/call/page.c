/*
 * page.c - the paging engine of spec 4.8: every reply a client receives
 * is at most DBP_PAGE_CHARS characters, measured on the text it gets (a
 * JSON reply as dbp_json_dump prints it with a two-space indent and
 * ensure_ascii, a text reply as it stands); a longer reply is cut into
 * pages and nothing is dropped.
 *
 * A list reply is a sequence of units: each head key, then every item of
 * the list(s).  A unit too large for any page alone is replaced by parts
 * {"part","parts","text"} whose texts concatenate to its JSON.  A page
 * takes the longest run of units from its position that fits, measured
 * with a placeholder cursor of the one fixed cursor width.
 *
 * The engine is windowed: it produces units from the page's position on,
 * one at a time (an item through the source's item() callback), sizing
 * each exactly without serializing the page - the indented dump's length
 * is a sum over members (page_len) - and stops at the first unit that
 * does not fit.  A page thus costs what it shows plus one unit, whatever
 * the length of the list.  The page is then rendered once; only when an
 * after() hook made it longer than its sum is the run searched again with
 * real renders.
 *
 * A position (the number a cursor carries) is unit * DBP_PAGE_MAX_PARTS
 * + k: the page starts at unit (head keys first, then the items of both
 * lists), at its part k + 1 when k > 0.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define PAGE_PART_WIDTH	9999	/* placeholder part numbers for measuring */
#define PAGE_INDENT	2
#define PAGE_MARK_HEAD	"\n<!-- next_cursor: "
#define PAGE_MARK_TAIL	" -->"
/* The positions a cursor can carry: call.c spells one in ten digits. */
#define PAGE_POS_LIMIT	10000000000ULL
/* Characters a member adds besides its key and value: newline, indent
 * of the top level, ": " and the separating comma. */
#define PAGE_MEMBER	6
/* The same for an item of a list (newline, its indent, comma), and a
 * non-empty list's brackets with the closing line's indent. */
#define PAGE_ITEM	6
#define PAGE_LIST	4
#define PAGE_EMPTY	2	/* "[]" or "{}" */
/* Bytes of item lines gathered before one copy into the page's text
 * (page_write_item); a longer line is written in pieces. */
#define PAGE_LINES	4096
/* Slots the window is first made for (it grows past them): a page of
 * short items (an FQN each) holds about a thousand. */
#define PAGE_WINDOW_START	1024

/* One unit of a page: a head key, an item, or one part of either. */
struct page_slot {
	int		 head;		/* 1: a head key, else an item */
	int		 list;		/* item: 0 or 1 */
	const char	*key;		/* head: the key (borrowed) */
	size_t		 unit;		/* head keys, then the items */
	size_t		 item;		/* item: index over both lists */
	int		 part, parts;	/* 0 when whole */
	cJSON		*value;		/* what the page shows */
	int		 own;		/* value is the engine's to delete (all
					 * but a borrowed source's items) */
	size_t		 cost;		/* characters it adds to a page */
};

struct page_eng {
	const struct page_src	*s;
	const char		*cursor_key;	/* next_cursor / nextCursor */
	int			 always_lists;	/* protocol: list key always */
	size_t			 nhead, nitems, nunits;
	size_t			 fixed;		/* every, total, cursor, braces */
	size_t			 cursor_w;	/* the cursor's share */
	size_t			 keyw[2];	/* the list keys' widths */
	struct page_slot	*w;		/* the window from the page start */
	size_t			 n, cap;
	/* What page_produce makes next. */
	size_t			 unit;
	const cJSON		*head_at;	/* head member of unit */
	size_t			 skip;		/* parts to skip (a cursor's k) */
	char			*split;		/* the JSON of the unit in parts */
	size_t			 split_len, split_off, room;
	int			 split_part, split_parts;
	struct page_slot	 split_proto;	/* the unit being split */
	int			 bad_pos;	/* the position names no part */
	char			 placeholder[SRV_CURSOR_LEN + 1];
};

/* ------------------------------------------------------------------ */
/* Measuring                                                            */

/*
 * The length of v in an indented (PAGE_INDENT), ensure_ascii dump when it
 * sits depth levels deep, exactly as dbp_json_dump writes it: a container
 * is its brackets and closing indent plus, per member, a newline, its
 * indent, the key and ": " in an object, the value and a comma.
 */
static size_t
page_len(const cJSON *v, size_t depth)
{
	const cJSON *c;
	size_t n, ind = PAGE_INDENT * depth;

	if ((v->type & 0xff) == cJSON_String)	/* cJSON_IsString, inline */
		return dbp_json_width(v->valuestring != NULL ? v->valuestring :
		    "");
	if (cJSON_IsNumber(v))
		return strlen(dbp_num_text(v));
	if (cJSON_IsTrue(v))
		return 4;
	if (cJSON_IsFalse(v))
		return 5;
	if (cJSON_IsRaw(v))
		return strlen(v->valuestring != NULL ? v->valuestring :
		    "null");
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return 4;			/* null */
	if (v->child == NULL)
		return PAGE_EMPTY;
	n = 2 + ind;
	for (c = v->child; c != NULL; c = c->next) {
		n += ind + PAGE_INDENT + 2 + page_len(c, depth + 1);
		if (cJSON_IsObject(v))
			n += dbp_json_width(c->string != NULL ? c->string :
			    "") + 2;
	}
	return n;
}

/* What slot s adds to a page: a head member, or an item of its list. */
static size_t
page_cost(const struct page_slot *s)
{
	if (s->head)
		return dbp_json_width(s->key) + page_len(s->value, 1) +
		    PAGE_MEMBER;
	return page_len(s->value, 2) + PAGE_ITEM;
}

/* Tallies of a run of slots, for page_estimate. */
struct page_tally {
	size_t	head;		/* head members' costs */
	size_t	n[2];		/* items per list */
	size_t	sum[2];		/* their costs */
};

static void
page_tally_add(struct page_tally *t, const struct page_slot *s)
{
	if (s->head)
		t->head += s->cost;
	else {
		t->n[s->list]++;
		t->sum[s->list] += s->cost;
	}
}

/* The length of a page holding the tallied slots, before any after()
 * hook: with a cursor, or without one when last (the run ends the
 * reply, so no cursor follows it). */
/* Does a page show list li: its key is set, and it has items on the page,
 * or lists always show (the protocol's), or it is the first page of a
 * list that shows empty there? */
static int
page_shows_list(const struct page_eng *e, int li, int nonempty,
    int first_page)
{
	return e->s->key[li] != NULL && (nonempty || e->always_lists ||
	    (first_page && e->s->empty_on_first[li]));
}

static size_t
page_estimate(const struct page_eng *e, const struct page_tally *t,
    int first_page, int last)
{
	size_t v = e->fixed + t->head - (last ? e->cursor_w : 0);
	int li;

	for (li = 0; li < 2; li++) {
		if (!page_shows_list(e, li, t->n[li] > 0, first_page))
			continue;
		v += e->keyw[li] + PAGE_MEMBER + (t->n[li] > 0 ?
		    PAGE_LIST + t->sum[li] : PAGE_EMPTY);
	}
	return v;
}

/* Delete s's value when the engine owns it; the slot holds none after. */
static void
page_drop(struct page_slot *s)
{
	if (s->own)
		cJSON_Delete(s->value);
	s->value = NULL;
}

/* ------------------------------------------------------------------ */
/* Rendering                                                            */

/* A node showing v without copying it (the page never outlives v). */
static cJSON *
page_ref(const cJSON *v)
{
	if (cJSON_IsObject(v))
		return cJSON_CreateObjectReference(v->child);
	if (cJSON_IsArray(v))
		return cJSON_CreateArrayReference(v->child);
	if (cJSON_IsString(v) && v->valuestring != NULL)
		return cJSON_CreateStringReference(v->valuestring);
	return cJSON_Duplicate(v, 1);
}

/* Add v under key (an object member with a key that outlives the page)
 * or to an array (key NULL); v is freed on failure.  0 or -1. */
static int
page_put(cJSON *to, const char *key, cJSON *v)
{
	cJSON_bool ok;

	if (v == NULL)
		return -1;
	ok = key != NULL ? cJSON_AddItemToObjectCS(to, key, v) :
	    cJSON_AddItemToArray(to, v);
	if (!ok) {
		cJSON_Delete(v);
		return -1;
	}
	return 0;
}

/*
 * Render the page holding slots w[0 .. count); cursor is the cursor value
 * or NULL for a last page.  The caller frees the tree; NULL on OOM.
 */
static cJSON *
page_render(const struct page_eng *e, const struct page_slot *w,
    size_t count, int first_page, const char *cursor)
{
	const struct page_src *s = e->s;
	cJSON *page, *arr[2] = { NULL, NULL };
	const cJSON *ev;
	size_t i, first = 0, nitems = 0, last_unit = (size_t)-1;
	char num[32];
	int li, have[2] = { 0, 0 };

	if ((page = cJSON_CreateObject()) == NULL)
		return NULL;
	for (i = 0; i < count; i++) {
		if (w[i].head) {
			if (page_put(page, w[i].key, page_ref(w[i].value)))
				goto fail;
		} else
			have[w[i].list] = 1;
	}
	if (s->every != NULL)
		cJSON_ArrayForEach(ev, s->every)
			if (page_put(page, ev->string, page_ref(ev)) != 0)
				goto fail;
	for (li = 0; li < 2; li++) {
		if (!page_shows_list(e, li, have[li], first_page))
			continue;
		if ((arr[li] = cJSON_CreateArray()) == NULL ||
		    page_put(page, s->key[li], arr[li]) != 0)
			goto fail;
	}
	for (i = 0; i < count; i++) {
		if (w[i].head)
			continue;
		if (arr[w[i].list] == NULL || page_put(arr[w[i].list], NULL,
		    page_ref(w[i].value)) != 0)
			goto fail;
		if (nitems == 0)
			first = w[i].item;
		if (w[i].unit != last_unit) {
			nitems++;
			last_unit = w[i].unit;
		}
	}
	if (s->after != NULL)
		s->after(s->ctx, page, first, nitems);
	if (!s->no_total) {
		snprintf(num, sizeof(num), "%zu", e->nitems);
		if (page_put(page, "total", cJSON_CreateRaw(num)) != 0)
			goto fail;
	}
	if (cursor != NULL &&
	    page_put(page, e->cursor_key, cJSON_CreateString(cursor)) != 0)
		goto fail;
	return page;
fail:
	cJSON_Delete(page);
	return NULL;
}

/* Append the member key: value to the page text being written. */
static void
page_member(struct dbp_buf *b, int *any, const char *key, const cJSON *v)
{
	cJSON k;

	memset(&k, 0, sizeof(k));
	k.type = cJSON_String;
	k.valuestring = (char *)key;
	dbp_buf_adds(b, *any ? ",\n  " : "\n  ");
	*any = 1;
	dbp_json_dump_into(b, &k, PAGE_INDENT, 1);
	dbp_buf_add(b, ": ", 2);
	if (v != NULL)
		dbp_json_dump_into(b, v, PAGE_INDENT, 1);
}

/* Item lines gathered before they go into the page's buffer at once. */
struct page_lines {
	char	buf[PAGE_LINES];
	size_t	n;
};

static void
page_lines_flush(struct dbp_buf *b, struct page_lines *l)
{
	if (l->n > 0)
		dbp_buf_add(b, l->buf, l->n);
	l->n = 0;
}

/*
 * Append item slot s to a page's list, after a comma when comma is set:
 * its line break and indent, then its JSON.  A string that needs no
 * escape (its cost says so: its width is its length and quotes) is
 * gathered in l and goes into b with its neighbours; any other item is
 * dumped into b after l is flushed.
 */
static void
page_write_item(struct dbp_buf *b, struct page_lines *l,
    const struct page_slot *s, int comma)
{
	static const char lead[] = ",\n    ";
	const char *lp = comma ? lead : lead + 1;
	const cJSON *v = s->value;
	size_t n, ln = comma ? sizeof(lead) - 1 : sizeof(lead) - 2;
	char *w;

	if ((v->type & 0xff) == cJSON_String && v->valuestring != NULL) {
		n = strlen(v->valuestring);
		if (s->cost == n + 2 + PAGE_ITEM &&
		    ln + n + 2 <= sizeof(l->buf)) {
			if (l->n + ln + n + 2 > sizeof(l->buf))
				page_lines_flush(b, l);
			w = l->buf + l->n;
			memcpy(w, lp, ln);
			w[ln] = '"';
			memcpy(w + ln + 1, v->valuestring, n);
			w[ln + 1 + n] = '"';
			l->n += ln + n + 2;
			return;
		}
	}
	page_lines_flush(b, l);
	dbp_buf_add(b, lp, ln);
	dbp_json_dump_into(b, v, PAGE_INDENT, 2);
}

/*
 * The text of the page holding w[0 .. count), written directly: what
 * dbp_json_dump makes of page_render's tree, without the tree.  Only for
 * a source without an after() hook.  malloc'd, NULL on OOM.
 */
static char *
page_write(const struct page_eng *e, const struct page_slot *w,
    size_t count, int first_page, const char *cursor)
{
	const struct page_src *s = e->s;
	struct page_lines lines;
	struct dbp_buf b;
	const cJSON *ev;
	cJSON cur;
	size_t i, n;
	char num[32];
	int li, any = 0, have[2] = { 0, 0 };

	dbp_buf_init(&b, DBP_MAX_DOC_JSON);
	dbp_buf_addc(&b, '{');
	for (i = 0; i < count; i++) {
		if (w[i].head)
			page_member(&b, &any, w[i].key, w[i].value);
		else
			have[w[i].list] = 1;
	}
	if (s->every != NULL)
		cJSON_ArrayForEach(ev, s->every)
			page_member(&b, &any, ev->string, ev);
	for (li = 0; li < 2; li++) {
		if (!page_shows_list(e, li, have[li], first_page))
			continue;
		page_member(&b, &any, s->key[li], NULL);
		if (!have[li]) {
			dbp_buf_add(&b, "[]", 2);
			continue;
		}
		dbp_buf_addc(&b, '[');
		lines.n = 0;
		for (i = 0, n = 0; i < count; i++) {
			if (w[i].head || w[i].list != li)
				continue;
			page_write_item(&b, &lines, &w[i], n++ > 0);
		}
		page_lines_flush(&b, &lines);
		dbp_buf_adds(&b, "\n  ]");
	}
	if (!s->no_total) {
		page_member(&b, &any, "total", NULL);
		snprintf(num, sizeof(num), "%zu", e->nitems);
		dbp_buf_adds(&b, num);
	}
	if (cursor != NULL) {
		memset(&cur, 0, sizeof(cur));
		cur.type = cJSON_String;
		cur.valuestring = (char *)cursor;
		page_member(&b, &any, e->cursor_key, &cur);
	}
	dbp_buf_adds(&b, any ? "\n}" : "}");
	return dbp_buf_take(&b);
}

/* The length of the rendered page (placeholder cursor), or (size_t)-1. */
static size_t
page_measure(const struct page_eng *e, const struct page_slot *w,
    size_t count, int first_page, int last)
{
	cJSON *page;
	char *t;
	size_t n;

	if ((page = page_render(e, w, count, first_page,
	    last ? NULL : e->placeholder)) ==
	    NULL)
		return (size_t)-1;
	t = dbp_json_dump(page, PAGE_INDENT);
	cJSON_Delete(page);
	if (t == NULL)
		return (size_t)-1;
	n = strlen(t);
	free(t);
	return n;
}

/* ------------------------------------------------------------------ */
/* Producing units                                                      */

static void
page_eng_free(struct page_eng *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		page_drop(&e->w[i]);
	free(e->w);
	free(e->split);
	e->w = NULL;
	e->split = NULL;
	e->n = e->cap = 0;
}

/* Append a slot (taking its value); 0, or -1 (the value freed). */
static int
page_append(struct page_eng *e, struct page_slot *s)
{
	struct page_slot *nw;
	size_t cap;

	if (e->n == e->cap) {
		/* at first, room for the units left, up to a page's worth */
		cap = e->nunits - s->unit + 1;
		if (cap > PAGE_WINDOW_START)
			cap = PAGE_WINDOW_START;
		if (e->cap > 0)
			cap = e->cap * 2;
		if ((nw = realloc(e->w, cap * sizeof(*nw))) == NULL) {
			page_drop(s);
			return -1;
		}
		e->w = nw;
		e->cap = cap;
	}
	e->w[e->n++] = *s;
	return 0;
}

/* A part object {"part", "parts", "text"}; NULL on OOM. */
static cJSON *
page_part(int part, int parts, const char *text, size_t len)
{
	cJSON *o;
	char *t;

	if ((t = strndup(text, len)) == NULL)
		return NULL;
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddNumberToObject(o, "part", part) == NULL ||
	    cJSON_AddNumberToObject(o, "parts", parts) == NULL ||
	    cJSON_AddStringToObject(o, "text", t) == NULL) {
		cJSON_Delete(o);
		free(t);
		return NULL;
	}
	free(t);
	return o;
}

/* Width a character of dumped JSON takes once escaped again as a string
 * (the dump is ASCII: only '"' and '\\' grow). */
static size_t
page_width(char ch)
{
	return ch == '"' || ch == '\\' ? 2 : 1;
}

/* The end of the part that starts at i: as many characters as fit room
 * (at least one). */
static size_t
page_cut(const char *text, size_t len, size_t i, size_t room)
{
	size_t w = 0, k;

	for (k = i; k < len && w + page_width(text[k]) <= room; k++)
		w += page_width(text[k]);
	return k > i ? k : i + 1;
}

/* 1 when no unit follows slot s: a page ending with it has no cursor. */
static int
page_is_last(const struct page_eng *e, const struct page_slot *s)
{
	return s->unit + 1 == e->nunits && (s->parts == 0 ||
	    s->part == s->parts);
}

/* 1 when slot s (whole) fits a page alone at its place (the last unit
 * without a cursor: a reply of exactly DBP_PAGE_CHARS is one page). */
static int
page_fits_alone(struct page_eng *e, const struct page_slot *s, int *err)
{
	struct page_tally t;
	size_t n;
	int first = s->unit == 0, last = page_is_last(e, s);

	memset(&t, 0, sizeof(t));
	page_tally_add(&t, s);
	if (page_estimate(e, &t, first, last) > (size_t)DBP_PAGE_CHARS)
		return 0;
	if (e->s->after == NULL)
		return 1;
	/* The hook may add keys: measure the page exactly. */
	if ((n = page_measure(e, s, 1, first, last)) == (size_t)-1) {
		*err = 1;
		return 0;
	}
	return n <= (size_t)DBP_PAGE_CHARS;
}

/* Append the next part of the unit being split. */
static int
page_next_part(struct page_eng *e)
{
	struct page_slot s = e->split_proto;
	size_t cut;

	cut = page_cut(e->split, e->split_len, e->split_off, e->room);
	s.part = ++e->split_part;
	s.parts = e->split_parts;
	s.value = page_part(s.part, s.parts, e->split + e->split_off,
	    cut - e->split_off);
	s.own = 1;
	if (s.value == NULL)
		return -1;
	s.cost = page_cost(&s);
	e->split_off = cut;
	if (e->split_off >= e->split_len) {
		free(e->split);
		e->split = NULL;
	}
	return page_append(e, &s);
}

/* Start cutting slot s (its value taken) into parts. */
static int
page_split(struct page_eng *e, struct page_slot *s)
{
	struct page_slot p = *s;
	size_t over, i;
	int nparts = 0;

	p.part = p.parts = PAGE_PART_WIDTH;
	if ((p.value = page_part(p.part, p.parts, "", 0)) == NULL)
		goto fail;
	over = page_measure(e, &p, 1, s->unit == 0, 0);
	cJSON_Delete(p.value);
	if (over == (size_t)-1 || over >= (size_t)DBP_PAGE_CHARS)
		goto fail;
	e->room = (size_t)DBP_PAGE_CHARS - over;
	if ((e->split = dbp_json_dump(s->value, DBP_JSON_PYDEFAULT)) == NULL)
		goto fail;
	e->split_len = strlen(e->split);
	for (i = 0; i < e->split_len; nparts++)
		i = page_cut(e->split, e->split_len, i, e->room);
	e->split_off = 0;
	e->split_part = 0;
	e->split_parts = nparts;
	e->split_proto = *s;
	e->split_proto.value = NULL;
	page_drop(s);
	/* A cursor's position past the first part: skip to it. */
	if (e->skip > 0) {
		if (e->skip >= (size_t)nparts) {
			e->bad_pos = 1;
			return -1;
		}
		while ((size_t)e->split_part < e->skip) {
			e->split_off = page_cut(e->split, e->split_len,
			    e->split_off, e->room);
			e->split_part++;
		}
		e->skip = 0;
	}
	return page_next_part(e);
fail:
	page_drop(s);
	return -1;
}

/* Append the next slot to the window: 1 appended, 0 none left, -1 failed
 * (e->bad_pos when the position names no part). */
static int
page_produce(struct page_eng *e)
{
	struct page_slot s;
	int err = 0;

	if (e->split != NULL)
		return page_next_part(e) == 0 ? 1 : -1;
	if (e->unit >= e->nunits)
		return 0;
	memset(&s, 0, sizeof(s));
	s.unit = e->unit;
	if (e->unit < e->nhead) {
		s.head = 1;
		s.key = e->head_at->string;
		s.value = page_ref(e->head_at);
		s.own = 1;
		e->head_at = e->head_at->next;
	} else {
		s.item = e->unit - e->nhead;
		s.list = s.item < e->s->count[0] ? 0 : 1;
		s.value = e->s->item(e->s->ctx, s.item);
		s.own = !e->s->borrowed;
	}
	if (s.value == NULL)
		return -1;
	e->unit++;
	s.cost = page_cost(&s);
	if (page_fits_alone(e, &s, &err)) {
		if (e->skip > 0) {
			page_drop(&s);
			e->bad_pos = 1;
			return -1;
		}
		return page_append(e, &s) == 0 ? 1 : -1;
	}
	if (err) {
		page_drop(&s);
		return -1;
	}
	return page_split(e, &s) == 0 ? 1 : -1;
}

/* ------------------------------------------------------------------ */
/* Cutting a page                                                       */

/* Set e up for the source s; 0 or -1 (OOM). */
static int
page_setup(struct page_eng *e, const struct page_src *s,
    const char *cursor_key, int always_lists)
{
	const cJSON *h;
	char num[32];
	int li;

	memset(e, 0, sizeof(*e));
	memset(e->placeholder, 'A', SRV_CURSOR_LEN);
	e->placeholder[SRV_CURSOR_LEN] = '\0';
	e->s = s;
	e->cursor_key = cursor_key;
	e->always_lists = always_lists;
	if (s->head != NULL)
		for (h = s->head->child; h != NULL; h = h->next)
			e->nhead++;
	for (li = 0; li < 2; li++) {
		if (s->key[li] != NULL)
			e->keyw[li] = dbp_json_width(s->key[li]);
		e->nitems += s->count[li];
	}
	e->nunits = e->nhead + e->nitems;
	/* braces, every key, total and the cursor */
	e->cursor_w = dbp_json_width(cursor_key) + SRV_CURSOR_LEN + 2 +
	    PAGE_MEMBER;
	e->fixed = PAGE_EMPTY + e->cursor_w;
	if (s->every != NULL)
		for (h = s->every->child; h != NULL; h = h->next)
			e->fixed += dbp_json_width(h->string) +
			    page_len(h, 1) + PAGE_MEMBER;
	if (!s->no_total) {
		snprintf(num, sizeof(num), "%zu", e->nitems);
		e->fixed += dbp_json_width("total") + strlen(num) +
		    PAGE_MEMBER;
	}
	return 0;
}

/* Position the producer at pos: 0, or -1 when pos names no unit. */
static int
page_seek(struct page_eng *e, size_t pos, int has_cursor)
{
	size_t unit = pos / DBP_PAGE_MAX_PARTS, k = pos % DBP_PAGE_MAX_PARTS;
	const cJSON *h;

	if (unit > e->nunits || (unit == e->nunits && (k > 0 || has_cursor)))
		return -1;
	e->unit = unit;
	e->skip = k;
	e->head_at = NULL;
	if (unit < e->nhead)
		for (h = e->s->head->child; h != NULL; h = h->next)
			if (unit-- == 0) {
				e->head_at = h;
				break;
			}
	return 0;
}

/* The position that resumes at slot s, or (size_t)-1 when it cannot be
 * spelled in a cursor. */
static size_t
page_pos(const struct page_slot *s)
{
	unsigned long long k = s->part > 1 ? (unsigned long long)s->part - 1
	    : 0, u = s->unit;

	if (k >= DBP_PAGE_MAX_PARTS ||
	    u >= (PAGE_POS_LIMIT - k) / DBP_PAGE_MAX_PARTS)
		return (size_t)-1;
	return (size_t)(u * DBP_PAGE_MAX_PARTS + k);
}

/*
 * Cut the page that starts at the producer's position: *count slots of
 * e->w, *more when units follow.  The run is the longest whose estimate
 * fits (at least one slot; never two parts of one unit).  0, or -1.
 */
static int
page_take(struct page_eng *e, int first_page, size_t *count, int *more)
{
	struct page_tally t, nt;
	size_t k = 0;
	int r;

	memset(&t, 0, sizeof(t));
	*more = 0;
	for (;;) {
		if (k == e->n) {
			if ((r = page_produce(e)) < 0)
				return -1;
			if (r == 0)
				break;
		}
		if (k > 0 && e->w[k].parts > 0 &&
		    e->w[k - 1].unit == e->w[k].unit) {
			*more = 1;
			break;
		}
		nt = t;
		page_tally_add(&nt, &e->w[k]);
		if (k > 0 && page_estimate(e, &nt, first_page,
		    page_is_last(e, &e->w[k])) > (size_t)DBP_PAGE_CHARS) {
			*more = 1;
			break;
		}
		t = nt;
		k++;
	}
	*count = k;
	return 0;
}

/* The longest run of e->w[0 .. count) that fits measured exactly (the
 * after() hook made the estimate short); at least 1. */
static size_t
page_search(const struct page_eng *e, size_t count, int first_page,
    int *err)
{
	size_t good = 1, bad = count, mid, n;

	while (bad - good > 1) {
		mid = good + (bad - good) / 2;
		n = page_measure(e, e->w, mid, first_page, 0);
		if (n == (size_t)-1) {
			*err = 1;
			return good;
		}
		if (n <= (size_t)DBP_PAGE_CHARS)
			good = mid;
		else
			bad = mid;
	}
	return good;
}

/* How a page's cursor is made: a tool call's, or a protocol list's. */
struct page_mint {
	struct call	*c;		/* a tool call, or NULL */
	const char	*scope;		/* protocol: the method */
	const char	*files;		/* protocol: the pinned digest */
};

/*
 * Cut and render the page at pos: *text the page's JSON text (malloc'd)
 * or, with as_tree, *tree the page (self-standing; caller frees).
 * Returns 0, -1 on failure, -2 when pos names no unit of this list.
 */
static int
page_run(const struct page_src *s, const struct page_mint *m,
    const char *cursor_key, int always_lists, size_t pos, int has_cursor,
    char **text, cJSON **tree)
{
	struct page_eng e;
	cJSON *page = NULL;
	char *cur = NULL, *t = NULL, pbuf[SRV_CURSOR_LEN + 1];
	size_t count, next;
	int first, more, err = 0, rc = -1, tries;

	*text = NULL;
	if (tree != NULL)
		*tree = NULL;
	if (page_setup(&e, s, cursor_key, always_lists) != 0)
		return -1;
	if (page_seek(&e, pos, has_cursor) != 0) {
		rc = -2;
		goto out;
	}
	first = pos == 0;
	if (page_take(&e, first, &count, &more) != 0) {
		rc = e.bad_pos ? -2 : -1;
		goto out;
	}
	for (tries = 0; tries < 2; tries++) {
		free(cur);
		cur = NULL;
		if (more) {
			if ((next = page_pos(&e.w[count])) == (size_t)-1)
				goto out;
			if (m->c != NULL) {
				if ((cur = call_cursor(m->c, next)) == NULL)
					goto out;
			} else {
				call_proto_cursor(m->scope, m->files, next,
				    pbuf);
				if ((cur = strdup(pbuf)) == NULL)
					goto out;
			}
		}
		cJSON_Delete(page);
		page = NULL;
		free(t);
		t = NULL;
		if (tree == NULL && s->after == NULL) {
			/* No hook to run: write the text straight. */
			if ((t = page_write(&e, e.w, count, first, cur)) ==
			    NULL)
				goto out;
		} else if ((page = page_render(&e, e.w, count, first, cur)) ==
		    NULL || (t = dbp_json_dump(page, PAGE_INDENT)) == NULL)
			goto out;
		if (strlen(t) <= (size_t)DBP_PAGE_CHARS || count <= 1)
			break;
		/* An after() hook added to the page: search exactly. */
		count = page_search(&e, count, first, &err);
		if (err)
			goto out;
		more = 1;
	}
	if (tree != NULL) {
		/* The page holds references into the window: copy it. */
		if ((*tree = cJSON_Duplicate(page, 1)) == NULL)
			goto out;
	} else {
		*text = t;
		t = NULL;
	}
	rc = 0;
out:
	cJSON_Delete(page);
	free(t);
	free(cur);
	page_eng_free(&e);
	return rc;
}

int
page_window(struct call *c, const struct page_src *s, size_t pos)
{
	struct page_mint m = { c, NULL, NULL };
	char *t;
	int rc;

	rc = page_run(s, &m, "next_cursor", 0, pos, c->cursor != NULL, &t,
	    NULL);
	if (rc == -2)
		return call_out_of_range(c);
	if (rc != 0) {
		if (!c->is_error)
			call_fail(c, "out of memory paging the reply");
		return -1;
	}
	free(c->text);
	c->text = t;
	c->is_error = 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lists given whole (page_list, page_proto)                            */

/* The arrays of a page_list as a window source: item i is a reference
 * to its node, found by stepping on from the last one asked (the engine
 * asks in order), and the list's own after() hook and context. */
struct page_arr {
	struct page_src	 src;
	cJSON		*items[2];
	size_t		 count[2];
	const cJSON	*at;		/* node of item at_i, or NULL */
	size_t		 at_i;
	void		(*after)(void *, cJSON *, size_t, size_t);
	void		*after_ctx;
};

static cJSON *
page_arr_item(void *ctx, size_t i)
{
	struct page_arr *a = ctx;
	size_t li = i < a->count[0] ? 0 : 1, k = li ? i - a->count[0] : i;

	/* The last node of list 0 has no next: list 1 starts afresh. */
	if (a->at != NULL && a->at_i + 1 == i && a->at->next != NULL)
		a->at = a->at->next;
	else {
		a->at = a->items[li]->child;
		while (a->at != NULL && k-- > 0)
			a->at = a->at->next;
	}
	a->at_i = i;
	return a->at != NULL ? page_ref(a->at) : NULL;
}

static void
page_arr_after(void *ctx, cJSON *page, size_t first, size_t count)
{
	struct page_arr *a = ctx;

	a->after(a->after_ctx, page, first, count);
}

/* Make a's source a window over the arrays of l (a must stay put while
 * the source is used). */
static void
page_arr_init(const struct page_list *l, struct page_arr *a)
{
	int li;

	memset(a, 0, sizeof(*a));
	a->src.head = l->head;
	a->src.every = l->every;
	for (li = 0; li < 2; li++) {
		a->src.key[li] = l->key[li];
		a->src.empty_on_first[li] = l->empty_on_first[li];
		if (l->items[li] != NULL && l->key[li] != NULL) {
			a->items[li] = l->items[li];
			a->count[li] = (size_t)cJSON_GetArraySize(
			    l->items[li]);
		}
		a->src.count[li] = a->count[li];
	}
	a->src.item = page_arr_item;
	a->after = l->after;
	a->after_ctx = l->ctx;
	a->src.after = l->after != NULL ? page_arr_after : NULL;
	a->src.ctx = a;
	a->src.no_total = l->no_total;
}

int
page_list(struct call *c, const struct page_list *l, size_t pos)
{
	struct page_arr a;

	page_arr_init(l, &a);
	return page_window(c, &a.src, pos);
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
	struct page_arr a;
	struct page_mint m = { NULL, scope, files };
	size_t pos = 0;
	char *t;
	int rc;

	*result = NULL;
	*detail = NULL;
	if (call_proto_check(scope, files, cursor, &pos, detail) != 0)
		return -1;
	memset(&l, 0, sizeof(l));
	l.key[0] = key;
	l.items[0] = items;
	l.no_total = 1;
	page_arr_init(&l, &a);
	rc = page_run(&a.src, &m, "nextCursor", 1, pos, cursor != NULL, &t,
	    result);
	if (rc == -2) {
		*detail = call_proto_foreign(scope);
		return -1;
	}
	if (rc != 0) {
		*detail = strdup("out of memory paging the list");
		return -1;
	}
	return 0;
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
	/* A text of at most DBP_PAGE_CHARS is one page, markerless; a
	 * longer one is cut with room for the marker on every page. */
	for (i = 0, n = 0; i < nblocks; i++)
		n += page_chars(blocks[i], strlen(blocks[i])) +
		    (i + 1 < nblocks ? 2 : 0);
	bound = (size_t)DBP_PAGE_CHARS;
	if (n > bound)
		bound -= strlen(PAGE_MARK_HEAD) + SRV_CURSOR_LEN +
		    strlen(PAGE_MARK_TAIL);
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

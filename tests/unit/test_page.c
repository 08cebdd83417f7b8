/*
 * test_page.c - the paging engine (server/call/page.c) and cursors
 * (server/call/call.c): the 20,000-character bound, header keys on the first
 * page, total on every page, parts for an oversize item, text pages cut
 * at line boundaries, every cursor fault, and windowed sources: items
 * produced on demand, pages as full as they can be, parts, the end; the
 * bound at exactly 20,000 and 20,001 characters, quotes counted in a JSON
 * reply and not in a text one.  The
 * calls here read no print (no connection), so their cursors pin no
 * file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server.h"

#define BOUND	DBP_PAGE_CHARS

/* A call of tool with args (a JSON object text, cursor included). */
static void
mkcall(struct call *c, cJSON **args, const char *tool, const char *json)
{
	const cJSON *cur;

	memset(c, 0, sizeof(*c));
	*args = cJSON_Parse(json);
	assert_non_null(*args);
	c->tool = tool;
	c->args = *args;
	cur = cJSON_GetObjectItemCaseSensitive(*args, "cursor");
	c->cursor = cJSON_IsString(cur) ? cur->valuestring : NULL;
	assert_int_equal(call_args_digest(*args, c->args_digest), 0);
}

/* Set args' cursor to text (replacing any). */
static void
setcursor(cJSON *args, const char *text)
{
	cJSON_DeleteItemFromObjectCaseSensitive(args, "cursor");
	cJSON_AddStringToObject(args, "cursor", text);
}

/* An array of n strings "item-<i>-xxxxxxxx...". */
static cJSON *
mkitems(size_t n, size_t width)
{
	cJSON *a = cJSON_CreateArray();
	char buf[256];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "item-%06zu-%.*s", i, (int)width,
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		cJSON_AddItemToArray(a, cJSON_CreateString(buf));
	}
	return a;
}

static void
test_one_page(void **state)
{
	struct page_list l;
	struct call c;
	cJSON *args, *items, *page;
	size_t pos;

	(void)state;
	mkcall(&c, &args, "list_tables", "{}");
	items = mkitems(3, 4);
	memset(&l, 0, sizeof(l));
	l.key[0] = "tables";
	l.items[0] = items;
	assert_int_equal(call_position(&c, &pos), 0);
	assert_int_equal(pos, 0);
	assert_int_equal(page_list(&c, &l, pos), 0);
	assert_false(c.is_error);
	assert_string_equal(c.text, "{\n  \"tables\": [\n"
	    "    \"item-000000-xxxx\",\n    \"item-000001-xxxx\",\n"
	    "    \"item-000002-xxxx\"\n  ],\n  \"total\": 3\n}");
	page = cJSON_Parse(c.text);
	assert_null(cJSON_GetObjectItem(page, "next_cursor"));
	cJSON_Delete(page);
	call_release(&c);
	cJSON_Delete(items);
	cJSON_Delete(args);
}

static void
test_empty_list(void **state)
{
	struct page_list l;
	struct call c;
	cJSON *args, *items;

	(void)state;
	mkcall(&c, &args, "list_tables", "{}");
	items = cJSON_CreateArray();
	memset(&l, 0, sizeof(l));
	l.key[0] = "tables";
	l.items[0] = items;
	l.empty_on_first[0] = 1;
	assert_int_equal(page_list(&c, &l, 0), 0);
	assert_string_equal(c.text, "{\n  \"tables\": [],\n  \"total\": 0\n}");
	call_release(&c);
	/* Without empty_on_first the key is left out. */
	l.empty_on_first[0] = 0;
	assert_int_equal(page_list(&c, &l, 0), 0);
	assert_string_equal(c.text, "{\n  \"total\": 0\n}");
	call_release(&c);
	cJSON_Delete(items);
	cJSON_Delete(args);
}

/*
 * Follow every cursor of a long list: every page within the bound, the
 * head keys on the first page only and first, total everywhere, each
 * item exactly once and in order.
 */
static void
test_walk(void **state)
{
	struct page_list l;
	struct call c;
	cJSON *args, *items, *head, *every, *page, *it, *nc;
	size_t pos, seen = 0, pages = 0;
	char want[64];

	(void)state;
	items = mkitems(5000, 40);
	head = cJSON_CreateObject();
	cJSON_AddStringToObject(head, "connection", "shop");
	cJSON_AddItemToObject(head, "failed_tables",
	    cJSON_CreateStringArray((const char *[]){ "a.b", "c.d" }, 2));
	every = cJSON_CreateObject();
	cJSON_AddStringToObject(every, "now", "2026-01-01T00:00:00Z");
	memset(&l, 0, sizeof(l));
	l.head = head;
	l.every = every;
	l.key[0] = "tables";
	l.items[0] = items;
	mkcall(&c, &args, "list_tables", "{\"pattern\": \"*\"}");
	for (;;) {
		assert_int_equal(call_position(&c, &pos), 0);
		assert_int_equal(page_list(&c, &l, pos), 0);
		assert_true(strlen(c.text) <= BOUND);
		page = cJSON_Parse(c.text);
		assert_non_null(page);
		if (pages == 0) {
			assert_string_equal(page->child->string, "connection");
			assert_non_null(cJSON_GetObjectItem(page,
			    "failed_tables"));
		} else {
			assert_null(cJSON_GetObjectItem(page, "connection"));
			assert_null(cJSON_GetObjectItem(page,
			    "failed_tables"));
		}
		assert_non_null(cJSON_GetObjectItem(page, "now"));
		assert_int_equal(cJSON_GetObjectItem(page, "total")->valueint,
		    5000);
		cJSON_ArrayForEach(it, cJSON_GetObjectItem(page, "tables")) {
			snprintf(want, sizeof(want), "item-%06zu-", seen);
			assert_memory_equal(it->valuestring, want,
			    strlen(want));
			seen++;
		}
		pages++;
		nc = cJSON_GetObjectItem(page, "next_cursor");
		if (nc == NULL) {
			cJSON_Delete(page);
			break;
		}
		assert_int_equal(strlen(nc->valuestring), SRV_CURSOR_LEN);
		/* A page that carries a cursor is nearly full. */
		assert_true(strlen(c.text) > BOUND - 200);
		setcursor(args, nc->valuestring);
		c.cursor = cJSON_GetObjectItem(args, "cursor")->valuestring;
		cJSON_Delete(page);
		call_release(&c);
	}
	assert_int_equal(seen, 5000);
	assert_true(pages > 10);
	call_release(&c);
	cJSON_Delete(args);
	cJSON_Delete(items);
	cJSON_Delete(head);
	cJSON_Delete(every);
}

/* An item larger than a page arrives as parts that rebuild it. */
static void
test_parts(void **state)
{
	struct page_list l;
	struct call c;
	struct dbp_buf b;
	cJSON *args, *items, *big, *page, *arr, *p, *nc, *back;
	char *s;
	size_t pos, i, nparts = 0, before = 0, after = 0;

	(void)state;
	items = cJSON_CreateArray();
	cJSON_AddItemToArray(items, cJSON_CreateString("before"));
	big = cJSON_CreateObject();
	s = malloc(BOUND * 3);
	for (i = 0; i < BOUND * 3 - 1; i++)
		s[i] = "ab\"\\\xc3\xa9z"[i % 7];	/* quotes, escapes, UTF-8 */
	s[BOUND * 3 - 1] = '\0';
	/* Keep the string valid UTF-8: drop a trailing lead byte. */
	if (((unsigned char)s[BOUND * 3 - 2] & 0xe0) == 0xc0)
		s[BOUND * 3 - 2] = 'z';
	cJSON_AddStringToObject(big, "text", s);
	free(s);
	cJSON_AddItemToArray(items, big);
	cJSON_AddItemToArray(items, cJSON_CreateString("after"));
	memset(&l, 0, sizeof(l));
	l.key[0] = "matches";
	l.items[0] = items;
	mkcall(&c, &args, "search_columns", "{}");
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	for (;;) {
		assert_int_equal(call_position(&c, &pos), 0);
		assert_int_equal(page_list(&c, &l, pos), 0);
		assert_true(strlen(c.text) <= BOUND);
		page = cJSON_Parse(c.text);
		arr = cJSON_GetObjectItem(page, "matches");
		cJSON_ArrayForEach(p, arr) {
			if (cJSON_IsString(p)) {
				if (strcmp(p->valuestring, "before") == 0)
					before++;
				else
					after++;
				continue;
			}
			nparts++;
			assert_int_equal(cJSON_GetObjectItem(p, "part")->valueint,
			    (int)nparts);
			assert_true(cJSON_GetObjectItem(p, "parts")->valueint >=
			    3);
			dbp_buf_adds(&b, cJSON_GetObjectItem(p, "text")->
			    valuestring);
		}
		assert_int_equal(cJSON_GetObjectItem(page, "total")->valueint,
		    3);
		nc = cJSON_GetObjectItem(page, "next_cursor");
		if (nc == NULL) {
			cJSON_Delete(page);
			break;
		}
		setcursor(args, nc->valuestring);
		c.cursor = cJSON_GetObjectItem(args, "cursor")->valuestring;
		cJSON_Delete(page);
		call_release(&c);
	}
	assert_int_equal(before, 1);
	assert_int_equal(after, 1);
	assert_true(nparts >= 3);
	back = cJSON_Parse(b.ptr);
	assert_non_null(back);
	assert_true(cJSON_Compare(back, big, 1));
	cJSON_Delete(back);
	dbp_buf_release(&b);
	call_release(&c);
	cJSON_Delete(args);
	cJSON_Delete(items);
}

/* A text document: pages at line boundaries, markers, exact rejoin. */
static void
test_text(void **state)
{
	struct call c;
	struct dbp_buf body, all;
	cJSON *args;
	const char *blocks[3];
	char *mark, *whole, cur[SRV_CURSOR_LEN + 1];
	size_t i, pos, pages = 0;

	(void)state;
	dbp_buf_init(&body, DBP_MAX_FILE_BYTES);
	for (i = 0; i < 3000; i++)
		dbp_buf_addf(&body, "line %zu of the body, caf\xc3\xa9\n", i);
	/* One line longer than a page, multibyte all along. */
	for (i = 0; i < BOUND + 10; i++)
		dbp_buf_adds(&body, "\xc3\xa9");
	dbp_buf_adds(&body, "\nlast line");
	blocks[0] = "# Title";
	blocks[1] = "## 1. One";
	blocks[2] = body.ptr;
	dbp_buf_init(&all, DBP_MAX_FILE_BYTES);
	mkcall(&c, &args, "get_reference", "{\"document\": \"spec\"}");
	for (;;) {
		assert_int_equal(call_position(&c, &pos), 0);
		assert_int_equal(page_text(&c, blocks, 3, pos), 0);
		pages++;
		/* Characters, not bytes, are bounded. */
		{
			size_t n = 0;
			const char *p;

			for (p = c.text; *p != '\0'; p++)
				if (((unsigned char)*p & 0xc0) != 0x80)
					n++;
			assert_true(n <= BOUND);
		}
		mark = strstr(c.text, "\n<!-- next_cursor: ");
		if (mark == NULL) {
			dbp_buf_adds(&all, c.text);
			break;
		}
		assert_int_equal(strlen(mark), strlen("\n<!-- next_cursor: ")
		    + SRV_CURSOR_LEN + strlen(" -->"));
		memcpy(cur, mark + strlen("\n<!-- next_cursor: "),
		    SRV_CURSOR_LEN);
		cur[SRV_CURSOR_LEN] = '\0';
		dbp_buf_add(&all, c.text, (size_t)(mark - c.text));
		setcursor(args, cur);
		c.cursor = cJSON_GetObjectItem(args, "cursor")->valuestring;
		call_release(&c);
	}
	assert_true(pages >= 4);
	whole = NULL;
	{
		struct dbp_buf w;

		dbp_buf_init(&w, DBP_MAX_FILE_BYTES);
		dbp_buf_adds(&w, "# Title\n\n## 1. One\n\n");
		dbp_buf_adds(&w, blocks[2]);
		whole = dbp_buf_take(&w);
	}
	assert_string_equal(all.ptr, whole);
	free(whole);
	free((char *)blocks[2]);
	dbp_buf_release(&all);
	call_release(&c);
	cJSON_Delete(args);
}

/* Cursor faults: not issued, other tool, other arguments, out of range. */
static void
test_cursor_faults(void **state)
{
	struct page_list l;
	struct call c, d;
	cJSON *args, *args2, *items, *page;
	char cur[SRV_CURSOR_LEN + 1], keep;
	size_t pos;

	(void)state;
	items = mkitems(3000, 40);
	memset(&l, 0, sizeof(l));
	l.key[0] = "tables";
	l.items[0] = items;
	mkcall(&c, &args, "list_tables", "{\"detail\": false}");
	assert_int_equal(page_list(&c, &l, 0), 0);
	page = cJSON_Parse(c.text);
	snprintf(cur, sizeof(cur), "%s",
	    cJSON_GetObjectItem(page, "next_cursor")->valuestring);
	cJSON_Delete(page);
	call_release(&c);

	/* Garbage, and a cursor with one character changed. */
	mkcall(&d, &args2, "list_tables", "{\"cursor\": \"x\"}");
	assert_int_equal(call_position(&d, &pos), -1);
	assert_string_equal(d.text, "cursor 'x' is not one this server "
	    "issued. Pass back a reply's `next_cursor` unchanged, or call "
	    "again without `cursor` for the first page.");
	call_release(&d);
	cJSON_Delete(args2);
	keep = cur[10];
	cur[10] = cur[10] == 'A' ? 'B' : 'A';
	mkcall(&d, &args2, "list_tables", "{\"detail\": false}");
	setcursor(args2, cur);
	d.cursor = cJSON_GetObjectItem(args2, "cursor")->valuestring;
	assert_int_equal(call_position(&d, &pos), -1);
	assert_non_null(strstr(d.text, "is not one this server issued"));
	call_release(&d);
	cJSON_Delete(args2);
	cur[10] = keep;

	/* The same cursor under another tool, other arguments. */
	mkcall(&d, &args2, "get_manifest", "{\"detail\": false}");
	setcursor(args2, cur);
	d.cursor = cJSON_GetObjectItem(args2, "cursor")->valuestring;
	assert_int_equal(call_position(&d, &pos), -1);
	assert_string_equal(d.text, "this cursor was not issued by "
	    "get_manifest with these arguments. Repeat the call that "
	    "returned it with the same arguments, or call again without "
	    "`cursor`.");
	call_release(&d);
	cJSON_Delete(args2);
	mkcall(&d, &args2, "list_tables", "{\"detail\": true}");
	setcursor(args2, cur);
	d.cursor = cJSON_GetObjectItem(args2, "cursor")->valuestring;
	assert_int_equal(call_position(&d, &pos), -1);
	assert_non_null(strstr(d.text, "not issued by list_tables"));
	call_release(&d);
	cJSON_Delete(args2);

	/* The right call takes it. */
	mkcall(&d, &args2, "list_tables", "{\"detail\": false}");
	setcursor(args2, cur);
	d.cursor = cJSON_GetObjectItem(args2, "cursor")->valuestring;
	assert_int_equal(call_position(&d, &pos), 0);
	assert_true(pos > 0);
	/* A list that shrank below the position: out of range. */
	cJSON_Delete(items);
	items = mkitems(2, 4);
	l.items[0] = items;
	assert_int_equal(page_list(&d, &l, pos), -1);
	assert_true(d.is_error);
	assert_non_null(strstr(d.text, "not issued by list_tables"));
	call_release(&d);
	cJSON_Delete(args2);
	cJSON_Delete(args);
	cJSON_Delete(items);
}

/* The argument digest ignores cursor and key order. */
static void
test_args_digest(void **state)
{
	char a[17], b[17], c[17];
	cJSON *x, *y, *z;

	(void)state;
	x = cJSON_Parse("{\"a\": 1, \"b\": \"x\"}");
	y = cJSON_Parse("{\"cursor\": \"q\", \"b\": \"x\", \"a\": 1}");
	z = cJSON_Parse("{\"a\": 2, \"b\": \"x\"}");
	assert_int_equal(call_args_digest(x, a), 0);
	assert_int_equal(call_args_digest(y, b), 0);
	assert_int_equal(call_args_digest(z, c), 0);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	cJSON_Delete(x);
	cJSON_Delete(y);
	cJSON_Delete(z);
}

/* Protocol paging: tools/list fits one page; any cursor is refused. */
static void
test_proto(void **state)
{
	cJSON *items, *res;
	char *detail, cur[SRV_CURSOR_LEN + 1];
	size_t n = 0;

	(void)state;
	items = mkitems(7, 40);
	assert_int_equal(page_proto("tools/list", items, "tools", NULL, NULL,
	    &res, &detail), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(res,
	    "tools")), 7);
	assert_null(cJSON_GetObjectItem(res, "nextCursor"));
	cJSON_Delete(res);
	assert_int_equal(page_proto("tools/list", items, "tools", "x", NULL,
	    &res, &detail), -1);
	assert_non_null(strstr(detail, "is not one this server issued"));
	free(detail);
	cJSON_Delete(items);

	/* A long resources list pages, pinned to the files digest. */
	items = mkitems(3000, 40);
	assert_int_equal(page_proto("resources/list", items, "resources",
	    NULL, "0123456789abcdef", &res, &detail), 0);
	n += (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(res,
	    "resources"));
	snprintf(cur, sizeof(cur), "%s",
	    cJSON_GetObjectItem(res, "nextCursor")->valuestring);
	cJSON_Delete(res);
	assert_int_equal(page_proto("resources/list", items, "resources",
	    cur, "fedcba9876543210", &res, &detail), -1);
	assert_string_equal(detail, "the print changed on disk since this "
	    "cursor was issued, so resources/list cannot resume where it "
	    "left off. Call again without `cursor` to start over.");
	free(detail);
	while (cur[0] != '\0') {
		assert_int_equal(page_proto("resources/list", items,
		    "resources", cur, "0123456789abcdef", &res, &detail), 0);
		n += (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(res,
		    "resources"));
		if (cJSON_GetObjectItem(res, "nextCursor") != NULL)
			snprintf(cur, sizeof(cur), "%s", cJSON_GetObjectItem(
			    res, "nextCursor")->valuestring);
		else
			cur[0] = '\0';
		cJSON_Delete(res);
	}
	assert_int_equal(n, 3000);
	cJSON_Delete(items);
}

/* ------------------------------------------------------------------ */
/* Windowed sources (page_window)                                       */

/* A source of n generated items: mixed shapes (strings with escapes and
 * non-ASCII, numbers, nested objects and lists, empty containers) so the
 * engine's exact sizing meets every kind of value; one item, big, is
 * larger than a page.  It records which items were asked for. */
struct wsrc {
	size_t	 n;
	size_t	 big;		/* index of the oversize item, or n */
	size_t	 asked, first, last;
	int	 order_ok;	/* every call was the previous + 1 */
};

static cJSON *
witem_make(size_t i, size_t big)
{
	cJSON *o, *l;
	char buf[128], *s;
	size_t k;

	snprintf(buf, sizeof(buf), "t%04zu", i);
	if (i == big) {
		o = cJSON_CreateObject();
		s = malloc(BOUND * 2 + 1);
		for (k = 0; k < BOUND * 2; k++)
			s[k] = "xy\"\\z\n"[k % 6];
		s[BOUND * 2] = '\0';
		cJSON_AddStringToObject(o, "big", s);
		free(s);
		return o;
	}
	switch (i % 5) {
	case 0:
		return cJSON_CreateString(buf);
	case 1:
		snprintf(buf, sizeof(buf), "caf\xc3\xa9 \"%zu\"\t\\", i);
		return cJSON_CreateString(buf);
	case 2:
		return cJSON_CreateNumber((double)i * 3);
	case 3:
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "table", buf);
		l = cJSON_AddArrayToObject(o, "cols");
		cJSON_AddItemToArray(l, cJSON_CreateString("a"));
		cJSON_AddItemToArray(l, cJSON_CreateObject());
		cJSON_AddItemToArray(l, cJSON_CreateArray());
		cJSON_AddBoolToObject(o, "ok", i % 2);
		cJSON_AddNullToObject(o, "none");
		return o;
	default:
		l = cJSON_CreateArray();
		cJSON_AddItemToArray(l, cJSON_CreateString(buf));
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "\xe2\x82\xac", 1.5);
		cJSON_AddItemToArray(l, o);
		return l;
	}
}

static cJSON *
witem(void *ctx, size_t i)
{
	struct wsrc *w = ctx;

	if (w->asked > 0 && i != w->last + 1)
		w->order_ok = 0;
	if (w->asked == 0)
		w->first = i;
	w->asked++;
	w->last = i;
	assert_true(i < w->n);
	return witem_make(i, w->big);
}

/* Length of page with item appended to its list key, as dumped. */
static size_t
with_next(const cJSON *page, const char *key, cJSON *item)
{
	cJSON *p = cJSON_Duplicate(page, 1), *arr;
	char *t;
	size_t n;

	arr = cJSON_GetObjectItem(p, key);
	if (arr == NULL) {
		arr = cJSON_CreateArray();
		cJSON_AddItemToObject(p, key, arr);
	}
	cJSON_AddItemToArray(arr, item);
	t = dbp_json_dump(p, 2);
	n = strlen(t);
	free(t);
	cJSON_Delete(p);
	return n;
}

/*
 * Walk a windowed list of n items: every page within the bound and as
 * full as it can be (the next item would not fit), the items exactly the
 * unpaged list in order, parts rebuilding the oversize item, and item()
 * asked in order from the page's first item for little more than the
 * page shows.  The same list given whole to page_list pages identically.
 */
static void
walk_window(size_t n, size_t big)
{
	struct page_src s;
	struct page_list l;
	struct wsrc w;
	struct call c, d;
	struct dbp_buf parts;
	cJSON *args, *args2, *head, *page, *it, *nc, *whole, *want, *back;
	size_t pos, seen = 0, pages = 0, i, shown;
	int in_parts = 0;

	head = cJSON_CreateObject();
	cJSON_AddStringToObject(head, "note", "first page only");
	whole = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(whole, witem_make(i, big));
	memset(&s, 0, sizeof(s));
	s.head = head;
	s.key[0] = "tables";
	s.count[0] = n;
	s.empty_on_first[0] = 1;
	s.item = witem;
	s.ctx = &w;
	memset(&l, 0, sizeof(l));
	l.head = head;
	l.key[0] = "tables";
	l.items[0] = whole;
	l.empty_on_first[0] = 1;
	dbp_buf_init(&parts, DBP_MAX_FILE_BYTES);
	mkcall(&c, &args, "list_tables", "{}");
	mkcall(&d, &args2, "list_tables", "{}");
	for (;;) {
		memset(&w, 0, sizeof(w));
		w.n = n;
		w.big = big;
		w.order_ok = 1;
		assert_int_equal(call_position(&c, &pos), 0);
		assert_int_equal(page_window(&c, &s, pos), 0);
		assert_false(c.is_error);
		/* The array form gives the very same page. */
		assert_int_equal(call_position(&d, &pos), 0);
		assert_int_equal(page_list(&d, &l, pos), 0);
		assert_string_equal(c.text, d.text);
		assert_true(strlen(c.text) <= BOUND);
		page = cJSON_Parse(c.text);
		assert_non_null(page);
		assert_int_equal(cJSON_GetObjectItem(page, "total")->valueint,
		    (int)n);
		if (pages == 0)
			assert_non_null(cJSON_GetObjectItem(page, "note"));
		else
			assert_null(cJSON_GetObjectItem(page, "note"));
		shown = 0;
		cJSON_ArrayForEach(it, cJSON_GetObjectItem(page, "tables")) {
			shown++;
			if (cJSON_IsObject(it) && cJSON_GetObjectItem(it,
			    "part") != NULL) {
				dbp_buf_adds(&parts, cJSON_GetObjectItem(it,
				    "text")->valuestring);
				in_parts = 1;
				if (cJSON_GetObjectItem(it, "part")->valueint ==
				    cJSON_GetObjectItem(it, "parts")->valueint) {
					back = cJSON_Parse(parts.ptr);
					want = cJSON_GetArrayItem(whole,
					    (int)seen);
					assert_true(cJSON_Compare(back, want,
					    1));
					cJSON_Delete(back);
					in_parts = 0;
					seen++;
				}
				continue;
			}
			assert_false(in_parts);
			want = cJSON_GetArrayItem(whole, (int)seen);
			assert_true(cJSON_Compare(it, want, 1));
			seen++;
		}
		if (w.asked > 0) {
			assert_true(w.order_ok);
			assert_true(w.asked <= shown + 2);
		}
		pages++;
		nc = cJSON_GetObjectItem(page, "next_cursor");
		if (nc == NULL) {
			cJSON_Delete(page);
			break;
		}
		/* As full as it can be: one more whole item would not fit
		 * (the item after a part is checked the same way). */
		if (!in_parts && seen < n && seen != big)
			assert_true(with_next(page, "tables",
			    witem_make(seen, big)) > BOUND);
		setcursor(args, nc->valuestring);
		c.cursor = cJSON_GetObjectItem(args, "cursor")->valuestring;
		setcursor(args2, nc->valuestring);
		d.cursor = cJSON_GetObjectItem(args2, "cursor")->valuestring;
		cJSON_Delete(page);
		call_release(&c);
		call_release(&d);
	}
	assert_int_equal(seen, n);
	call_release(&c);
	call_release(&d);
	cJSON_Delete(args);
	cJSON_Delete(args2);
	cJSON_Delete(head);
	cJSON_Delete(whole);
	dbp_buf_release(&parts);
}

static void
test_window_walk(void **state)
{
	(void)state;
	walk_window(700, 700);		/* no oversize item */
	walk_window(700, 333);		/* one in the middle */
	walk_window(3, 0);		/* the first item in parts */
	walk_window(1, 0);		/* nothing but parts */
	walk_window(0, 0);		/* empty */
}

/* A windowed page that ends the list exactly: no cursor, and a cursor
 * to the end (or past it) is refused as not issued here. */
static void
test_window_last(void **state)
{
	struct page_src s;
	struct wsrc w;
	struct call c;
	cJSON *args, *page;
	size_t pos;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&w, 0, sizeof(w));
	w.n = 40;
	w.big = 40;
	w.order_ok = 1;
	s.key[0] = "tables";
	s.count[0] = 40;
	s.item = witem;
	s.ctx = &w;
	mkcall(&c, &args, "list_tables", "{}");
	assert_int_equal(page_window(&c, &s, 0), 0);
	page = cJSON_Parse(c.text);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(page,
	    "tables")), 40);
	assert_null(cJSON_GetObjectItem(page, "next_cursor"));
	assert_int_equal(w.asked, 40);
	assert_true(w.order_ok);
	cJSON_Delete(page);
	call_release(&c);
	/* A cursor naming the end of this list was never issued for it. */
	{
		char *t = call_cursor(&c, 40 * DBP_PAGE_MAX_PARTS);

		setcursor(args, t);
		free(t);
	}
	c.cursor = cJSON_GetObjectItem(args, "cursor")->valuestring;
	assert_int_equal(call_position(&c, &pos), 0);
	assert_int_equal(page_window(&c, &s, pos), -1);
	assert_non_null(strstr(c.text, "not issued by list_tables"));
	call_release(&c);
	/* Nor a part of an item that is whole. */
	{
		char *t = call_cursor(&c, 5 * DBP_PAGE_MAX_PARTS + 1);

		setcursor(args, t);
		free(t);
	}
	c.cursor = cJSON_GetObjectItem(args, "cursor")->valuestring;
	assert_int_equal(call_position(&c, &pos), 0);
	w.asked = 0;
	assert_int_equal(page_window(&c, &s, pos), -1);
	assert_non_null(strstr(c.text, "not issued by list_tables"));
	call_release(&c);
	cJSON_Delete(args);
}

/* An item() failure fails the call with the tool's own detail. */
static cJSON *
witem_fail(void *ctx, size_t i)
{
	struct call *c = ctx;

	if (i < 3)
		return cJSON_CreateString("ok");
	call_fail(c, "index read failed: boom");
	return NULL;
}

static void
test_window_fail(void **state)
{
	struct page_src s;
	struct call c;
	cJSON *args;

	(void)state;
	mkcall(&c, &args, "list_tables", "{}");
	memset(&s, 0, sizeof(s));
	s.key[0] = "tables";
	s.count[0] = 10;
	s.item = witem_fail;
	s.ctx = &c;
	assert_int_equal(page_window(&c, &s, 0), -1);
	assert_true(c.is_error);
	assert_string_equal(c.text, "index read failed: boom");
	call_release(&c);
	cJSON_Delete(args);
}

/* The reply of list_tables over one item, the string s: c's text, set. */
static size_t
one_item_len(struct call *c, cJSON **args, const char *s)
{
	struct page_list l;
	cJSON *items = cJSON_CreateArray();
	size_t pos;

	cJSON_AddItemToArray(items, cJSON_CreateString(s));
	mkcall(c, args, "list_tables", "{}");
	memset(&l, 0, sizeof(l));
	l.key[0] = "tables";
	l.items[0] = items;
	assert_int_equal(call_position(c, &pos), 0);
	assert_int_equal(page_list(c, &l, pos), 0);
	assert_false(c->is_error);
	cJSON_Delete(items);
	return strlen(c->text);
}

/* 1 when c's reply carries a next_cursor. */
static int
has_cursor(const struct call *c)
{
	cJSON *page = cJSON_Parse(c->text);
	int r;

	assert_non_null(page);
	r = cJSON_GetObjectItem(page, "next_cursor") != NULL;
	cJSON_Delete(page);
	return r;
}

/*
 * Spec 4.8 at its boundary (issue 19, item 7): a dict reply is measured
 * serialized, so a string member counts its two quotes and its escapes.
 * A reply of exactly 20,000 characters is one page; one character more
 * pages it.  Built from the reply's length with an empty string (whose
 * quotes are in it), with plain characters and with quote-backslash
 * pairs (4 characters each as JSON).
 */
static void
test_list_boundary(void **state)
{
	struct call c;
	cJSON *args;
	size_t base, w, i, k;
	char *s;

	(void)state;
	base = one_item_len(&c, &args, "");
	call_release(&c);
	cJSON_Delete(args);
	assert_true(base > 2 && base < BOUND);
	w = BOUND - base;
	s = malloc(w + 2);
	assert_non_null(s);
	/* plain: base + w = BOUND exactly */
	memset(s, 'a', w);
	s[w] = '\0';
	assert_int_equal(one_item_len(&c, &args, s), BOUND);
	assert_false(has_cursor(&c));
	call_release(&c);
	cJSON_Delete(args);
	/* one more: the item no longer fits whole, so the reply pages */
	s[w] = 'a';
	s[w + 1] = '\0';
	assert_true(one_item_len(&c, &args, s) <= BOUND);
	assert_true(has_cursor(&c));
	call_release(&c);
	cJSON_Delete(args);
	/* "\ pairs, 4 characters each serialized, padded to BOUND */
	k = w / 4;
	for (i = 0; i < k; i++) {
		s[2 * i] = '"';
		s[2 * i + 1] = '\\';
	}
	for (i = 2 * k; i < 2 * k + w % 4; i++)
		s[i] = 'a';
	s[i] = '\0';
	assert_int_equal(one_item_len(&c, &args, s), BOUND);
	assert_false(has_cursor(&c));
	call_release(&c);
	cJSON_Delete(args);
	s[i] = 'a';
	s[i + 1] = '\0';
	assert_true(one_item_len(&c, &args, s) <= BOUND);
	assert_true(has_cursor(&c));
	call_release(&c);
	cJSON_Delete(args);
	free(s);
}

/* A bare text reply is measured as it stands (spec 4.8): no quotes, no
 * escapes.  20,000 characters (quotes and backslashes among them) are
 * one page; 20,001 are two. */
static void
test_text_boundary(void **state)
{
	struct call c;
	cJSON *args;
	const char *blocks[1];
	char *s;
	size_t pos, i;

	(void)state;
	s = malloc(BOUND + 2);
	assert_non_null(s);
	for (i = 0; i < BOUND; i++)
		s[i] = "a\"\\"[i % 3];
	s[BOUND] = '\0';
	blocks[0] = s;
	mkcall(&c, &args, "get_reference", "{\"document\": \"spec\"}");
	assert_int_equal(call_position(&c, &pos), 0);
	assert_int_equal(page_text(&c, blocks, 1, pos), 0);
	assert_string_equal(c.text, s);
	call_release(&c);
	cJSON_Delete(args);
	s[BOUND] = 'a';
	s[BOUND + 1] = '\0';
	mkcall(&c, &args, "get_reference", "{\"document\": \"spec\"}");
	assert_int_equal(call_position(&c, &pos), 0);
	assert_int_equal(page_text(&c, blocks, 1, pos), 0);
	assert_true(strlen(c.text) <= BOUND);
	assert_non_null(strstr(c.text, "\n<!-- next_cursor: "));
	call_release(&c);
	cJSON_Delete(args);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_page),
		cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_cursor_faults),
		cmocka_unit_test(test_args_digest),
		cmocka_unit_test(test_proto),
		cmocka_unit_test(test_window_walk),
		cmocka_unit_test(test_window_last),
		cmocka_unit_test(test_window_fail),
		cmocka_unit_test(test_list_boundary),
		cmocka_unit_test(test_text_boundary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

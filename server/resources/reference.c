/*
 * reference.c - the reference documents (spec, assertions, guide):
 * loading them, and slicing one by its Markdown headings as get_reference
 * answers (spec 4.6, research/upstream-mcp.md 3.7).
 *
 * Lines are split as Python's str.splitlines() splits them and whitespace
 * is what Python's str.isspace() calls whitespace, so a document sliced
 * here gives the slices the upstream server gives.
 */
#define _POSIX_C_SOURCE	200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "server.h"
#include "reference.h"
#include "refdocs.h"

/* The three documents: served name, and the upstream file name a
 * reference directory may hold instead of <name>.md. */
static const struct {
	const char	*name;
	const char	*alt;
} ref_files[] = {
	{ "spec",	"SPEC.md" },
	{ "assertions",	"ASSERTIONS.md" },
	{ "guide",	"reading_guide.md" },
};

/* Deeper than any heading: the starting "shallowest level seen". */
#define REF_LEVEL_NONE	7

/* The lead line before a section's list of its direct subsections. */
#define REF_SUBS_NUMBER	"\nSubsections, each read by its own number:\n\n"
#define REF_SUBS_TITLE	"\nSubsections, each read by its own heading:\n\n"

/*
 * Byte length of the Python whitespace character at p (before end), or
 * 0.  ASCII \t \n \v \f \r, space and \x1c-\x1f, and the Unicode spaces
 * U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
 * U+3000 in UTF-8.
 */
static size_t
ref_space(const char *p, const char *end)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t n = (size_t)(end - p);

	if (n == 0)
		return 0;
	if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r') ||
	    (u[0] >= 0x1c && u[0] <= 0x1f))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	if (u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3;
	if (u[0] == 0xe2 && u[1] == 0x80 &&
	    (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf) &&
	    u[2] >= 0x80)
		return 3;
	if (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3;
	if (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3;
	return 0;
}

/*
 * Byte length of the line break at p (before end), as str.splitlines()
 * recognises them, or 0: \n, \r\n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028,
 * U+2029.
 */
static size_t
ref_break(const char *p, const char *end)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t n = (size_t)(end - p);

	if (n == 0)
		return 0;
	if (u[0] == '\r')
		return n >= 2 && u[1] == '\n' ? 2 : 1;
	if (u[0] == '\n' || u[0] == '\v' || u[0] == '\f' ||
	    (u[0] >= 0x1c && u[0] <= 0x1e))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && u[1] == 0x85)
		return 2;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

/* Copy p[0..n) with Python whitespace removed from both ends: malloc'd,
 * NULL on OOM. */
static char *
ref_strip(const char *p, size_t n)
{
	const char *s = p, *end = p + n, *last;
	size_t k;

	while (s < end && (k = ref_space(s, end)) > 0)
		s += k;
	/* last: the end of the last non-space character. */
	last = s;
	for (p = s; p < end; ) {
		if ((k = ref_space(p, end)) > 0) {
			p += k;
			continue;
		}
		p++;
		last = p;
	}
	return strndup(s, (size_t)(last - s));
}

/* The section number of a title, as ^(\d+(?:\.\d+)*)\.?(?:\s|$) reads
 * it: malloc'd, or NULL (unnumbered, or OOM - *oom set). */
static char *
ref_number(const char *title, int *oom)
{
	const char *p = title, *end = title + strlen(title);
	size_t n;
	char *r;

	if (!(*p >= '0' && *p <= '9'))
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	while (p[0] == '.' && p[1] >= '0' && p[1] <= '9') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	n = (size_t)(p - title);
	if (*p == '.')
		p++;
	/* A shorter match can never succeed where the longest failed: what
	 * follows it is ".<digit>". */
	if (*p != '\0' && ref_space(p, end) == 0)
		return NULL;
	if ((r = strndup(title, n)) == NULL)
		*oom = 1;
	return r;
}

/* Append a line span, growing the array.  0 or -1 on OOM. */
static int
ref_add_line(struct ref_doc *doc, size_t *cap, const char *p, size_t n)
{
	struct ref_line *nl;
	size_t ncap;

	if (doc->nlines == *cap) {
		ncap = *cap ? *cap * 2 : 256;
		if ((nl = dbp_reallocarray(doc->lines, ncap,
		    sizeof(*nl))) == NULL)
			return -1;
		doc->lines = nl;
		*cap = ncap;
	}
	doc->lines[doc->nlines].p = p;
	doc->lines[doc->nlines].len = n;
	doc->nlines++;
	return 0;
}

/* If line is a heading, its level (1..6), with *title and *tlen the
 * span after the '#'s and the whitespace; else 0.  ^(#{1,6})\s+(\S.*)$ */
static int
ref_heading_line(const struct ref_line *l, const char **title, size_t *tlen)
{
	const char *p = l->p, *end = l->p + l->len;
	size_t k;
	int level = 0;

	while (p < end && *p == '#') {
		p++;
		level++;
	}
	if (level < 1 || level > 6)
		return 0;
	if ((k = ref_space(p, end)) == 0)
		return 0;
	while (p < end && (k = ref_space(p, end)) > 0)
		p += k;
	if (p == end)
		return 0;
	*title = p;
	*tlen = (size_t)(end - p);
	return level;
}

int
ref_parse(const char *text, size_t len, struct ref_doc *doc,
    struct dbp_diag *d)
{
	const char *p = text, *end = text + len, *ls, *t;
	struct ref_heading *h, *nh;
	size_t cap = 0, hcap = 0, i, j, k = 0, tlen;
	int fenced = 0, level, oom = 0;

	memset(doc, 0, sizeof(*doc));
	/* Lines: a break ends a line; text after the last break is a line;
	 * a final break adds no empty line. */
	while (p < end) {
		ls = p;
		while (p < end && (k = ref_break(p, end)) == 0)
			p++;
		if (ref_add_line(doc, &cap, ls, (size_t)(p - ls)) == -1)
			return dbp_fail(d, "out of memory");
		if (p < end)
			p += k;
	}
	for (i = 0; i < doc->nlines; i++) {
		if (doc->lines[i].len >= 3 &&
		    memcmp(doc->lines[i].p, "```", 3) == 0) {
			fenced = !fenced;
			continue;
		}
		if (fenced)
			continue;
		if ((level = ref_heading_line(&doc->lines[i], &t, &tlen)) == 0)
			continue;
		if (doc->nheads == hcap) {
			hcap = hcap ? hcap * 2 : 64;
			nh = dbp_reallocarray(doc->heads, hcap, sizeof(*nh));
			if (nh == NULL)
				return dbp_fail(d, "out of memory");
			doc->heads = nh;
		}
		h = &doc->heads[doc->nheads];
		memset(h, 0, sizeof(*h));
		h->level = level;
		h->line = i;
		doc->nheads++;
		if ((h->title = ref_strip(t, tlen)) == NULL)
			return dbp_fail(d, "out of memory");
		h->number = ref_number(h->title, &oom);
		if (oom)
			return dbp_fail(d, "out of memory");
	}
	for (i = 0; i < doc->nheads; i++) {
		doc->heads[i].end = doc->nlines;
		for (j = i + 1; j < doc->nheads; j++) {
			if (doc->heads[j].level <= doc->heads[i].level) {
				doc->heads[i].end = doc->heads[j].line;
				break;
			}
		}
	}
	return 0;
}

void
ref_doc_release(struct ref_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->nheads; i++) {
		free(doc->heads[i].title);
		free(doc->heads[i].number);
	}
	free(doc->heads);
	free(doc->lines);
	memset(doc, 0, sizeof(*doc));
}

char *
ref_toc(const struct ref_doc *doc)
{
	struct dbp_buf b;
	size_t i;
	int base = 2, lv;

	if (doc->nheads > 0) {
		base = doc->heads[0].level;
		for (i = 1; i < doc->nheads; i++)
			if (doc->heads[i].level < base)
				base = doc->heads[i].level;
	}
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	for (i = 0; i < doc->nheads; i++) {
		for (lv = base; lv < doc->heads[i].level; lv++)
			dbp_buf_adds(&b, "  ");
		dbp_buf_addf(&b, "- %s\n", doc->heads[i].title);
	}
	/* Python's "\n".join([]) + "\n" for a document with no heading. */
	if (doc->nheads == 0)
		dbp_buf_addc(&b, '\n');
	return dbp_buf_take(&b);
}

char *
ref_clean_section(const char *section)
{
	const char *p = section, *end = section + strlen(section), *q;
	size_t k;

	/* ^(?:\S+\s+)?§\s* : an optional word and whitespace, then the
	 * section sign (UTF-8 C2 A7), then optional whitespace. */
	q = p;
	if (!(end - q >= 2 && (unsigned char)q[0] == 0xc2 &&
	    (unsigned char)q[1] == 0xa7)) {
		while (q < end && ref_space(q, end) == 0)
			q++;
		if (q > p && (k = ref_space(q, end)) > 0) {
			while (q < end && (k = ref_space(q, end)) > 0)
				q += k;
		} else
			q = p;
	}
	if (end - q >= 2 && (unsigned char)q[0] == 0xc2 &&
	    (unsigned char)q[1] == 0xa7) {
		q += 2;
		while (q < end && (k = ref_space(q, end)) > 0)
			q += k;
		p = q;
	}
	return ref_strip(p, (size_t)(end - p));
}

/* The fold of a guide heading or argument: whitespace runs collapsed to
 * one space, ends trimmed, ASCII letters lower-cased.  malloc'd or NULL. */
static char *
ref_fold(const char *s)
{
	const char *p = s, *end = s + strlen(s);
	struct dbp_buf b;
	size_t k;
	int pend = 0;

	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	while (p < end) {
		if ((k = ref_space(p, end)) > 0) {
			p += k;
			pend = b.len > 0;
			continue;
		}
		if (pend)
			dbp_buf_addc(&b, ' ');
		pend = 0;
		dbp_buf_addc(&b, *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') :
		    *p);
		p++;
	}
	return dbp_buf_take(&b);
}

/* qsort comparator over char * by bytes, which for UTF-8 is code point
 * order, as Python's sorted() orders str. */
static int
ref_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The "not found" sentence: section 'x' not found in doc. Available:
 * [sorted list].  1 with *out set, or -1 (OOM). */
static int
ref_not_found(const struct ref_doc *doc, const char *docname,
    const char *section, int by_title, char **out, struct dbp_diag *d)
{
	const char **names = NULL;
	struct dbp_buf b;
	size_t i, n = 0;
	char *r;

	if (doc->nheads > 0 &&
	    (names = calloc(doc->nheads, sizeof(*names))) == NULL)
		return dbp_fail(d, "out of memory");
	for (i = 0; i < doc->nheads; i++) {
		if (by_title)
			names[n++] = doc->heads[i].title;
		else if (doc->heads[i].number != NULL)
			names[n++] = doc->heads[i].number;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), ref_strcmp);
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	if ((r = dbp_pyrepr_str(section)) == NULL)
		b.failed = 1;
	dbp_buf_addf(&b, "section %s not found in %s. Available: [",
	    r ? r : "", docname);
	free(r);
	for (i = 0; i < n; i++) {
		if ((r = dbp_pyrepr_str(names[i])) == NULL) {
			b.failed = 1;
			break;
		}
		dbp_buf_addf(&b, "%s%s", i ? ", " : "", r);
		free(r);
	}
	dbp_buf_addc(&b, ']');
	free(names);
	if ((*out = dbp_buf_take(&b)) == NULL)
		return dbp_fail(d, "out of memory");
	return 1;
}

int
ref_section(const struct ref_doc *doc, const char *docname,
    const char *section, int by_title, char **out, struct dbp_diag *d)
{
	const struct ref_heading *h = NULL, *c;
	char *want, *f;
	struct dbp_buf b;
	size_t i, j, stop, k, keep;
	int minlev, direct, nsubs = 0, match;

	*out = NULL;
	want = by_title ? ref_fold(section) : ref_clean_section(section);
	if (want == NULL)
		return dbp_fail(d, "out of memory");
	for (i = 0; i < doc->nheads && h == NULL; i++) {
		if (by_title) {
			if ((f = ref_fold(doc->heads[i].title)) == NULL) {
				free(want);
				return dbp_fail(d, "out of memory");
			}
			match = strcmp(f, want) == 0;
			free(f);
		} else
			match = doc->heads[i].number != NULL &&
			    strcmp(doc->heads[i].number, want) == 0;
		if (match)
			h = &doc->heads[i];
	}
	free(want);
	if (h == NULL)
		return ref_not_found(doc, docname, section, by_title, out, d);

	/* The body runs to the first direct subsection that will be listed
	 * (numbered ones for a numbered document, any for the guide). */
	i = (size_t)(h - doc->heads);
	stop = h->end;
	minlev = REF_LEVEL_NONE;
	for (j = i + 1; j < doc->nheads && doc->heads[j].line < h->end; j++) {
		c = &doc->heads[j];
		direct = c->level <= minlev;
		if (c->level < minlev)
			minlev = c->level;
		if (direct && (by_title || c->number != NULL)) {
			if (nsubs == 0)
				stop = c->line;
			nsubs++;
		}
	}
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	for (j = h->line; j < stop; j++) {
		if (j > h->line)
			dbp_buf_addc(&b, '\n');
		dbp_buf_add(&b, doc->lines[j].p, doc->lines[j].len);
	}
	/* Right-strip (Python whitespace), then one newline. */
	keep = 0;
	for (j = 0; j < b.len; ) {
		if ((k = ref_space(b.ptr + j, b.ptr + b.len)) > 0) {
			j += k;
			continue;
		}
		j++;
		keep = j;
	}
	if (!b.failed && b.ptr != NULL) {
		b.len = keep;
		b.ptr[keep] = '\0';
	}
	dbp_buf_addc(&b, '\n');
	if (nsubs > 0) {
		dbp_buf_adds(&b, by_title ? REF_SUBS_TITLE : REF_SUBS_NUMBER);
		minlev = REF_LEVEL_NONE;
		for (j = i + 1; j < doc->nheads &&
		    doc->heads[j].line < h->end; j++) {
			c = &doc->heads[j];
			direct = c->level <= minlev;
			if (c->level < minlev)
				minlev = c->level;
			if (direct && (by_title || c->number != NULL))
				dbp_buf_addf(&b, "- %s\n", c->title);
		}
	}
	if ((*out = dbp_buf_take(&b)) == NULL)
		return dbp_fail(d, "out of memory");
	return 0;
}

const char *
ref_document(struct srv *s, const char *name, size_t *len, char **owned,
    struct dbp_diag *d)
{
	const char *dir = s != NULL ? s->reference_dir : NULL;
	char path[DBP_MAX_PATH], *buf;
	size_t i, f;
	int n;

	*owned = NULL;
	*len = 0;
	for (i = 0; i < sizeof(ref_files) / sizeof(ref_files[0]); i++)
		if (strcmp(ref_files[i].name, name) == 0)
			break;
	if (i == sizeof(ref_files) / sizeof(ref_files[0])) {
		dbp_fail(d, "no reference document named '%s'", name);
		return NULL;
	}
	if (dir == NULL || *dir == '\0')
		dir = getenv(REF_DIR_ENV);
	if (dir != NULL && *dir != '\0') {
		for (f = 0; f < 2; f++) {
			if (f == 0)
				n = snprintf(path, sizeof(path), "%s/%s.md",
				    dir, name);
			else
				n = snprintf(path, sizeof(path), "%s/%s", dir,
				    ref_files[i].alt);
			if (n < 0 || (size_t)n >= sizeof(path)) {
				dbp_fail(d, "reference directory path too "
				    "long: %s", dir);
				return NULL;
			}
			if (dbp_read_file(path, DBP_MAX_FILE_BYTES, &buf, len,
			    NULL, d) == 0) {
				*owned = buf;
				return buf;
			}
			if (errno != ENOENT)
				return NULL;
		}
		dbp_fail(d, "no %s reference document available - the "
		    "reference directory %s holds neither %s.md nor %s.",
		    name, dir, name, ref_files[i].alt);
		return NULL;
	}
	for (f = 0; dbp_refdocs[f].name != NULL; f++) {
		if (strcmp(dbp_refdocs[f].name, name) == 0) {
			*len = dbp_refdocs[f].len;
			return dbp_refdocs[f].text;
		}
	}
	dbp_fail(d, "no %s reference document available - this build "
	    "carries none.", name);
	return NULL;
}

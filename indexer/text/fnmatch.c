/*
 * fnmatch.c - shell-style matching exactly as Python's fnmatch.fnmatchcase
 * does it: the pattern is compiled as fnmatch.translate() compiles it
 * (Python 3.12), then matched over code points without backtracking.
 *
 *   *        any run of characters, '.' and '/' and newlines included
 *   ?        one character (a code point, not a byte)
 *   [seq]    one character of seq; [!seq] one not in it; a-z ranges;
 *            ']' first (after an optional '!') is a literal; a '['
 *            without its ']' is a literal '['; a range whose ends are
 *            reversed is dropped the way translate() drops it
 *   \        an ordinary character: there is no escaping
 *
 * The whole name must match.  Bytes that are not valid UTF-8, in the
 * pattern or the name, each stand for one character of their own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dbprint.h"

enum fn_kind {
	FN_LIT,		/* one code point */
	FN_ANY,		/* ? */
	FN_SET,		/* [...] */
	FN_STAR		/* one or more '*' */
};

struct fn_tok {
	enum fn_kind	kind;
	uint32_t	cp;		/* FN_LIT */
	size_t		first;		/* FN_SET: its ranges */
	size_t		count;
	int		negate;
};

struct fn_range {
	uint32_t	lo;
	uint32_t	hi;
};

struct fn {
	struct fn_tok	*toks;
	size_t		 ntoks;
	struct fn_range	*ranges;
	size_t		 nranges;
	int		 never;		/* an empty set: no match */
	int		 oom;
};

/*
 * Decode s into code points (malloc'd, caller frees).  A byte that does
 * not start a sequence dbp_utf8_decode accepts becomes 0xdc00 + byte, a
 * surrogate, which valid UTF-8 never yields - so it equals only the same
 * bad byte.
 */
static uint32_t *
fn_decode(const char *s, size_t *np)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, k = 0, len;
	uint32_t *out;

	if ((out = malloc((n + 1) * sizeof(*out))) == NULL)
		return NULL;
	while (i < n) {
		if ((len = dbp_utf8_decode(p + i, n - i, &out[k])) == 0) {
			out[k] = 0xdc00 + p[i];
			len = 1;
		}
		k++;
		i += len;
	}
	*np = k;
	return out;
}

static void
fn_tok(struct fn *f, enum fn_kind kind, uint32_t cp)
{
	f->toks[f->ntoks].kind = kind;
	f->toks[f->ntoks].cp = cp;
	f->toks[f->ntoks].first = 0;
	f->toks[f->ntoks].count = 0;
	f->toks[f->ntoks].negate = 0;
	f->ntoks++;
}

/* A chunk of a set: n code points at cp. */
struct fn_chunk {
	uint32_t	*cp;
	size_t		 n;
};

/* Add the range lo..hi to the set being built. */
static void
fn_add(struct fn *f, uint32_t lo, uint32_t hi)
{
	f->ranges[f->nranges].lo = lo;
	f->ranges[f->nranges].hi = hi;
	f->nranges++;
}

/*
 * Split the set pat[i..j) (between '[' and ']') at its range hyphens as
 * translate() does, into ch[] over buf, and drop reversed ranges.  The
 * chunks lie end to end in buf, so a merge is done in place.  Returns
 * the number of chunks.
 */
static size_t
fn_chunks(const uint32_t *pat, size_t i, size_t j, struct fn_chunk *ch,
    uint32_t *buf)
{
	size_t nch = 0, k, m, a, start;
	uint32_t *bp = buf;
	int has_dash = 0;

	for (k = i; k < j; k++)
		has_dash |= pat[k] == '-';
	if (!has_dash) {
		memcpy(buf, pat + i, (j - i) * sizeof(*buf));
		ch[0].cp = buf;
		ch[0].n = j - i;
		return 1;
	}
	/* k = i+2 if pat[i] == '!' else i+1; then each '-' found is a range
	 * and the search goes on three characters later. */
	start = i;
	k = pat[i] == '!' ? i + 2 : i + 1;
	for (;;) {
		while (k < j && pat[k] != '-')
			k++;
		if (k >= j)
			break;
		ch[nch].cp = bp;
		ch[nch].n = k - start;
		memcpy(bp, pat + start, (k - start) * sizeof(*bp));
		bp += k - start;
		nch++;
		start = k + 1;
		k += 3;
	}
	if (start < j) {
		ch[nch].cp = bp;
		ch[nch].n = j - start;
		memcpy(bp, pat + start, (j - start) * sizeof(*bp));
		nch++;
	} else {
		/* chunks[-1] += '-' (the last chunk ends buf's content). */
		ch[nch - 1].cp[ch[nch - 1].n++] = '-';
	}
	/* Remove empty ranges: chunks[k-1][-1] > chunks[k][0] makes
	 * chunks[k-1] = chunks[k-1][:-1] + chunks[k][1:]. */
	for (k = nch - 1; k > 0; k--) {
		if (ch[k - 1].n == 0 || ch[k].n == 0 ||
		    ch[k - 1].cp[ch[k - 1].n - 1] <= ch[k].cp[0])
			continue;
		m = ch[k - 1].n - 1;
		memmove(ch[k - 1].cp + m, ch[k].cp + 1,
		    (ch[k].n - 1) * sizeof(*buf));
		ch[k - 1].n = m + ch[k].n - 1;
		for (a = k; a + 1 < nch; a++)
			ch[a] = ch[a + 1];
		nch--;
	}
	return nch;
}

/*
 * The set pat[i..j) as one token: the regular-expression class that
 * translate() writes for it, read as Python's re reads it - each chunk's
 * characters literal, a range from the last character of a chunk to the
 * first of the next.
 */
static void
fn_set(struct fn *f, const uint32_t *pat, size_t i, size_t j)
{
	struct fn_chunk *ch = NULL;
	uint32_t *buf = NULL, c, prev = 0;
	size_t nch, k, ci, total, tok;
	int negate = 0, first = 1, range = 0, last_lit = 0;

	if ((ch = calloc(j - i + 2, sizeof(*ch))) == NULL ||
	    (buf = malloc((j - i + 2) * sizeof(*buf))) == NULL) {
		f->oom = 1;
		goto out;
	}
	nch = fn_chunks(pat, i, j, ch, buf);
	total = nch - 1;		/* the range hyphens */
	for (k = 0; k < nch; k++)
		total += ch[k].n;
	if (total == 0) {
		f->never = 1;		/* "(?!)": an empty set */
		goto out;
	}
	if (total == 1 && ch[0].n == 1 && ch[0].cp[0] == '!') {
		fn_tok(f, FN_ANY, 0);	/* a negated empty set: any */
		goto out;
	}
	tok = f->ntoks;
	fn_tok(f, FN_SET, 0);
	f->toks[tok].first = f->nranges;
	for (ci = 0; ci < nch; ci++) {
		if (ci > 0) {
			if (first || !last_lit) {
				/* "[^-z]", or a hyphen after a range: a
				 * literal hyphen. */
				fn_add(f, '-', '-');
				first = 0;
				last_lit = 0;
			} else {
				range = 1;
			}
		}
		for (k = 0; k < ch[ci].n; k++) {
			c = ch[ci].cp[k];
			if (first && c == '!') {
				negate = 1;
				first = 0;
				continue;
			}
			first = 0;
			if (range) {
				range = 0;
				last_lit = 0;
				if (prev > c) {
					/* re.error "bad character range":
					 * Python raises; match nothing. */
					f->never = 1;
					goto out;
				}
				f->ranges[f->nranges - 1].hi = c;
				continue;
			}
			fn_add(f, c, c);
			prev = c;
			last_lit = 1;
		}
	}
	f->toks[tok].count = f->nranges - f->toks[tok].first;
	f->toks[tok].negate = negate;
out:
	free(ch);
	free(buf);
}

/* Compile pat as translate() does. */
static void
fn_compile(struct fn *f, const uint32_t *pat, size_t n)
{
	size_t i = 0, j;
	uint32_t c;

	while (i < n && !f->never && !f->oom) {
		c = pat[i++];
		if (c == '*') {
			if (f->ntoks == 0 ||
			    f->toks[f->ntoks - 1].kind != FN_STAR)
				fn_tok(f, FN_STAR, 0);
		} else if (c == '?') {
			fn_tok(f, FN_ANY, 0);
		} else if (c == '[') {
			j = i;
			if (j < n && pat[j] == '!')
				j++;
			if (j < n && pat[j] == ']')
				j++;
			while (j < n && pat[j] != ']')
				j++;
			if (j >= n) {
				fn_tok(f, FN_LIT, '[');
			} else {
				fn_set(f, pat, i, j);
				i = j + 1;
			}
		} else {
			fn_tok(f, FN_LIT, c);
		}
	}
}

static int
fn_one(const struct fn *f, const struct fn_tok *t, uint32_t c)
{
	size_t k;
	int in = 0;

	switch (t->kind) {
	case FN_LIT:
		return t->cp == c;
	case FN_ANY:
		return 1;
	case FN_SET:
		for (k = t->first; k < t->first + t->count && !in; k++)
			in = c >= f->ranges[k].lo && c <= f->ranges[k].hi;
		return in != t->negate;
	default:
		return 0;
	}
}

/* Glob match with the classic two pointers: on a mismatch, resume after
 * the last star one character further on.  O(len(pat) * len(name)). */
static int
fn_run(const struct fn *f, const uint32_t *s, size_t ns)
{
	size_t p = 0, i = 0, star_p = 0, star_i = 0;
	int have_star = 0;

	while (i < ns) {
		if (p < f->ntoks && f->toks[p].kind == FN_STAR) {
			have_star = 1;
			star_p = p++;
			star_i = i;
		} else if (p < f->ntoks && fn_one(f, &f->toks[p], s[i])) {
			p++;
			i++;
		} else if (have_star) {
			p = star_p + 1;
			i = ++star_i;
		} else {
			return 0;
		}
	}
	while (p < f->ntoks && f->toks[p].kind == FN_STAR)
		p++;
	return p == f->ntoks;
}

int
dbp_fnmatch(const char *pat, const char *name)
{
	uint32_t *p = NULL, *s = NULL;
	size_t np, ns;
	struct fn f;
	int rc = 0;

	memset(&f, 0, sizeof(f));
	if ((p = fn_decode(pat, &np)) == NULL ||
	    (s = fn_decode(name, &ns)) == NULL)
		goto out;
	/* One token per pattern character at most; the ranges of all sets
	 * together, two per character (a hyphen literal) at most. */
	if ((f.toks = calloc(np + 1, sizeof(*f.toks))) == NULL ||
	    (f.ranges = calloc(2 * np + 2, sizeof(*f.ranges))) == NULL)
		goto out;
	fn_compile(&f, p, np);
	if (f.never || f.oom)
		goto out;
	rc = fn_run(&f, s, ns);
out:
	free(f.toks);
	free(f.ranges);
	free(p);
	free(s);
	return rc;
}

size_t
dbp_fnmatch_literal(const char *pat, const char **at)
{
	const char *p = pat, *run = pat, *q;
	size_t best = 0;

	*at = pat;
	for (;;) {
		/* a byte that ends a run: the end, a wildcard, a set, or a
		 * character outside printable ASCII */
		if (*p == '\0' || *p == '*' || *p == '?' || *p == '[' ||
		    *p == '\n' || (unsigned char)*p >= 0x80) {
			if ((size_t)(p - run) > best) {
				*at = run;
				best = (size_t)(p - run);
			}
			if (*p == '\0')
				break;
			if (*p == '[') {
				/* a set as fn_compile reads it; a '[' without
				 * its ']' is a literal, ending the run here */
				q = p + 1;
				if (*q == '!')
					q++;
				if (*q == ']')
					q++;
				while (*q != '\0' && *q != ']')
					q++;
				if (*q == ']')
					p = q;
			}
			run = ++p;
			continue;
		}
		p++;
	}
	return best;
}

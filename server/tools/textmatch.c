/*
 * textmatch.c - text comparisons as the upstream Python server makes
 * them, for search_columns and resolve_value: the normalization key, case
 * folding, word-boundary containment, padded character trigrams with
 * their Jaccard similarity, and Python's float rounding and repr.
 *
 * Strings are UTF-8.  Invalid bytes are carried through as they are (one
 * byte, one "character"), so no input can make a comparison fail.
 */
#define _POSIX_C_SOURCE	200809L

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "answer.h"
#include "text/utf8loc.h"

/* Decode one UTF-8 sequence at p (n > 0 bytes left): its length, *cp the
 * code point; a byte that does not start a sequence dbp_utf8_decode
 * accepts decodes as itself (0x110000 + byte) with length 1. */
static size_t
tm_dec(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;

	if ((len = dbp_utf8_decode(p, n, cp)) == 0) {
		*cp = 0x110000 + p[0];	/* outside Unicode: a raw byte */
		len = 1;
	}
	return len;
}

/* Encode c at o (at least 4 bytes): the length written.  A raw byte
 * carried through (c >= 0x110000, as tm_dec gives it) is written as
 * itself. */
static size_t
tm_enc(uint32_t c, char *o)
{
	if (c >= 0x110000) {
		*(unsigned char *)o = (unsigned char)(c - 0x110000);
		return 1;
	}
	return dbp_utf8_encode(c, o);
}

char *
tm_fold(const char *s)
{
	return dbp_fold(s);
}

/* The folds of Unicode's CaseFolding.txt (status C and F) that differ
 * from simple lower-casing, for the scripts a column name or note is
 * written in.  Up to three code points each. */
static const struct {
	uint32_t	from;
	uint32_t	to[3];
} tm_folds[] = {
	{ 0x00b5, { 0x03bc } },
	{ 0x00df, { 's', 's' } },
	{ 0x0130, { 'i', 0x0307 } },
	{ 0x0149, { 0x02bc, 'n' } },
	{ 0x017f, { 's' } },
	{ 0x01f0, { 'j', 0x030c } },
	{ 0x0345, { 0x03b9 } },
	{ 0x0390, { 0x03b9, 0x0308, 0x0301 } },
	{ 0x03b0, { 0x03c5, 0x0308, 0x0301 } },
	{ 0x03c2, { 0x03c3 } },
	{ 0x03d0, { 0x03b2 } },
	{ 0x03d1, { 0x03b8 } },
	{ 0x03d5, { 0x03c6 } },
	{ 0x03d6, { 0x03c0 } },
	{ 0x03f0, { 0x03ba } },
	{ 0x03f1, { 0x03c1 } },
	{ 0x03f5, { 0x03b5 } },
	{ 0x0587, { 0x0565, 0x0582 } },
	{ 0x1e96, { 'h', 0x0331 } },
	{ 0x1e97, { 't', 0x0308 } },
	{ 0x1e98, { 'w', 0x030a } },
	{ 0x1e99, { 'y', 0x030a } },
	{ 0x1e9a, { 'a', 0x02be } },
	{ 0x1e9b, { 0x1e61 } },
	{ 0x1e9e, { 's', 's' } },
	{ 0x1fbe, { 0x03b9 } },
	{ 0xfb00, { 'f', 'f' } },
	{ 0xfb01, { 'f', 'i' } },
	{ 0xfb02, { 'f', 'l' } },
	{ 0xfb03, { 'f', 'f', 'i' } },
	{ 0xfb04, { 'f', 'f', 'l' } },
	{ 0xfb05, { 's', 't' } },
	{ 0xfb06, { 's', 't' } },
};

char *
tm_casefold(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), len, i, k;
	uint32_t c;
	char *out, *o;
	locale_t loc = dbp_utf8_locale();

	/* A fold yields at most three code points of at most three bytes
	 * each from a source of at least two bytes: 9/2 < 5. */
	if ((out = malloc(n * 5 + 1)) == NULL)
		return NULL;
	o = out;
	while (n > 0) {
		len = tm_dec(p, n, &c);
		p += len;
		n -= len;
		if (c < 0x80) {
			*o++ = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
			continue;
		}
		for (i = 0; i < sizeof(tm_folds) / sizeof(tm_folds[0]); i++)
			if (tm_folds[i].from == c)
				break;
		if (i < sizeof(tm_folds) / sizeof(tm_folds[0])) {
			for (k = 0; k < 3 && tm_folds[i].to[k] != 0; k++)
				o += tm_enc(tm_folds[i].to[k], o);
			continue;
		}
		if (c >= 0x13a0 && c <= 0x13f5)	/* Cherokee folds up */
			;
		else if (c >= 0x13f8 && c <= 0x13fd)
			c -= 8;
		else if (c >= 0xab70 && c <= 0xabbf)
			c = c - 0xab70 + 0x13a0;
		else if (c < 0x110000 && loc != (locale_t)0)
			c = (uint32_t)towlower_l((wint_t)c, loc);
		o += tm_enc(c, o);
	}
	*o = '\0';
	return out;
}

char *
tm_collapse(const char *s)
{
	return dbp_collapse(s);
}

/* Python's \w for one code point: alphanumeric or underscore. */
static int
tm_isword(uint32_t c)
{
	locale_t loc;

	if (c < 0x80)
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_';
	if (c >= 0x110000)
		return 0;
	if ((loc = dbp_utf8_locale()) == (locale_t)0)
		return 0;
	return iswalnum_l((wint_t)c, loc) != 0;
}

/* The code point ending right before byte offset off of s (off > 0). */
static uint32_t
tm_before(const char *s, size_t off)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t start = off - 1;
	uint32_t c;

	while (start > 0 && off - start < 4 && (u[start] & 0xc0) == 0x80)
		start--;
	if (tm_dec(u + start, off - start, &c) != off - start)
		return 0x110000 + u[off - 1];
	return c;
}

int
tm_word_in(const char *needle, const char *hay)
{
	size_t nl = strlen(needle), hl = strlen(hay), off;
	const char *at;
	uint32_t c;

	if (nl == 0)
		return 0;
	for (at = strstr(hay, needle); at != NULL;
	    at = strstr(at + 1, needle)) {
		off = (size_t)(at - hay);
		if (off > 0 && tm_isword(tm_before(hay, off)))
			continue;
		if (off + nl < hl) {
			tm_dec((const unsigned char *)hay + off + nl,
			    hl - off - nl, &c);
			if (tm_isword(c))
				continue;
		}
		return 1;
	}
	return 0;
}

static int
tm_cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
tm_trigrams(const char *s, struct tm_trigrams *t)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), ncp = 0, i, j;
	uint32_t *cp;

	t->v = NULL;
	t->n = 0;
	if ((cp = malloc((n + 4) * sizeof(*cp))) == NULL)
		return -1;
	cp[ncp++] = ' ';
	cp[ncp++] = ' ';
	while (n > 0) {
		size_t len = tm_dec(p, n, &cp[ncp]);

		/* raw bytes keep a distinct value inside 21 bits */
		if (cp[ncp] >= 0x110000)
			cp[ncp] = 0x1fff00 + (cp[ncp] - 0x110000);
		ncp++;
		p += len;
		n -= len;
	}
	cp[ncp++] = ' ';
	cp[ncp++] = ' ';
	if ((t->v = malloc((ncp - 2) * sizeof(*t->v))) == NULL) {
		free(cp);
		return -1;
	}
	for (i = 0; i + 2 < ncp; i++)
		t->v[i] = ((uint64_t)cp[i] << 42) | ((uint64_t)cp[i + 1] << 21) |
		    cp[i + 2];
	free(cp);
	qsort(t->v, i, sizeof(*t->v), tm_cmp64);
	for (j = 0, t->n = 0; j < i; j++)
		if (t->n == 0 || t->v[t->n - 1] != t->v[j])
			t->v[t->n++] = t->v[j];
	return 0;
}

void
tm_trigrams_free(struct tm_trigrams *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

double
tm_jaccard(const struct tm_trigrams *a, const struct tm_trigrams *b)
{
	size_t i = 0, j = 0, both = 0;

	if (a->n == 0 || b->n == 0)
		return 0.0;
	while (i < a->n && j < b->n) {
		if (a->v[i] == b->v[j]) {
			both++;
			i++;
			j++;
		} else if (a->v[i] < b->v[j])
			i++;
		else
			j++;
	}
	return (double)both / (double)(a->n + b->n - both);
}

void
tm_trigram_text(uint64_t v, char out[13])
{
	uint32_t c[3];
	size_t k, o = 0;

	c[0] = (uint32_t)(v >> 42) & 0x1fffff;
	c[1] = (uint32_t)(v >> 21) & 0x1fffff;
	c[2] = (uint32_t)v & 0x1fffff;
	for (k = 0; k < 3; k++) {
		if (c[k] >= 0x1fff00)
			c[k] = c[k] - 0x1fff00 + 0x110000;
		o += tm_enc(c[k], out + o);
	}
	out[o] = '\0';
}

double
tm_round(double x, int nd)
{
	char buf[512];

	if (!isfinite(x))
		return x;
	snprintf(buf, sizeof(buf), "%.*f", nd, x);
	return strtod(buf, NULL);
}

void
tm_pyfloat(double x, char *out, size_t size)
{
	char digits[40], *e, mant[40];
	int prec, exp10, decpt, nd, k;
	size_t o = 0;

	if (isnan(x)) {
		snprintf(out, size, "NaN");
		return;
	}
	if (isinf(x)) {
		snprintf(out, size, "%sInfinity", x < 0 ? "-" : "");
		return;
	}
	if (x == 0.0) {
		snprintf(out, size, "%s", signbit(x) ? "-0.0" : "0.0");
		return;
	}
	/* The shortest digits that read back as x. */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(digits, sizeof(digits), "%.*e", prec - 1, x);
		if (strtod(digits, NULL) == x)
			break;
	}
	e = strchr(digits, 'e');
	exp10 = atoi(e + 1);
	*e = '\0';
	/* mant: the significant digits without sign or point */
	nd = 0;
	for (k = 0; digits[k] != '\0'; k++)
		if (digits[k] >= '0' && digits[k] <= '9')
			mant[nd++] = digits[k];
	mant[nd] = '\0';
	while (nd > 1 && mant[nd - 1] == '0')
		mant[--nd] = '\0';
	decpt = exp10 + 1;
	if (x < 0 && o + 1 < size)
		out[o++] = '-';
	if (decpt > -4 && decpt <= 16) {
		if (decpt <= 0) {
			o += (size_t)snprintf(out + o, size - o, "0.");
			for (k = 0; k < -decpt; k++)
				o += (size_t)snprintf(out + o, size - o, "0");
			snprintf(out + o, size - o, "%s", mant);
		} else if (decpt >= nd) {
			o += (size_t)snprintf(out + o, size - o, "%s", mant);
			for (k = nd; k < decpt; k++)
				o += (size_t)snprintf(out + o, size - o, "0");
			snprintf(out + o, size - o, ".0");
		} else
			snprintf(out + o, size - o, "%.*s.%s", decpt, mant,
			    mant + decpt);
		return;
	}
	if (nd > 1)
		o += (size_t)snprintf(out + o, size - o, "%c.%s", mant[0],
		    mant + 1);
	else
		o += (size_t)snprintf(out + o, size - o, "%c", mant[0]);
	snprintf(out + o, size - o, "e%c%02d", exp10 < 0 ? '-' : '+',
	    exp10 < 0 ? -exp10 : exp10);
}

cJSON *
tm_float_node(double x)
{
	char buf[48];
	cJSON *n;

	tm_pyfloat(x, buf, sizeof(buf));
	if ((n = cJSON_CreateNumber(x)) == NULL)
		return NULL;
	if ((n->valuestring = strdup(buf)) == NULL) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

cJSON *
tm_int_node(long long v)
{
	char buf[32];
	cJSON *n;

	snprintf(buf, sizeof(buf), "%lld", v);
	if ((n = cJSON_CreateNumber((double)v)) == NULL)
		return NULL;
	if ((n->valuestring = strdup(buf)) == NULL) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

cJSON *
tm_json(const char *text)
{
	if (text == NULL)
		return cJSON_CreateNull();
	return srv_json_parse(text, strlen(text));
}

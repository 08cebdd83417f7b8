/*
 * ctx_fmt.c - how get_table_context spells what it prints (spec 4.1):
 * values as literals that read back as themselves, numbers positionally
 * as statistics.yaml writes them, and shares as percentages that never
 * round a partial share onto 0% or 100%.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

/* Most decimals a percentage is given while it still reads 0% or 100%:
 * past 17 significant digits a double has nothing more to say. */
#define CTX_PCT_MAX_DECIMALS	20
/* Decimal places of a rate (SPEC 2.2.6: rates are rounded to 6). */
#define CTX_RATE_PLACES		6

void
ctx_pct(double s, char *out, size_t size)
{
	char t[64];
	double p = s * 100.0;
	size_t n;
	int d;

	if (!isfinite(p)) {
		snprintf(out, size, "%s%%", isnan(p) ? "NaN" :
		    (p < 0 ? "-Infinity" : "Infinity"));
		return;
	}
	for (d = 1; d <= CTX_PCT_MAX_DECIMALS; d++) {
		snprintf(t, sizeof(t), "%.*f", d, p);
		n = strlen(t);
		while (n > 0 && t[n - 1] == '0')
			t[--n] = '\0';
		if (n > 0 && t[n - 1] == '.')
			t[--n] = '\0';
		if (strcmp(t, "-0") == 0)
			strcpy(t, "0");
		if (s > 0 && s < 1 && (strcmp(t, "0") == 0 ||
		    strcmp(t, "100") == 0))
			continue;
		break;
	}
	snprintf(out, size, "%s%%", t);
}

int
ctx_num_pos(struct dbp_buf *b, const char *text)
{
	const char *p = text, *e;
	char digits[512];
	size_t nd = 0, nint = 0, i;
	long exp, pos;
	int neg = 0;

	e = strpbrk(text, "eE");
	if (e == NULL || strchr(text, 'I') != NULL || strchr(text, 'N'))
		return dbp_buf_adds(b, text);
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	for (; p < e && nd < sizeof(digits) - 1; p++) {
		if (*p >= '0' && *p <= '9') {
			digits[nd++] = *p;
			nint++;
		} else if (*p == '.') {
			p++;
			break;
		} else {
			return dbp_buf_adds(b, text);
		}
	}
	for (; p < e && nd < sizeof(digits) - 1; p++) {
		if (*p < '0' || *p > '9')
			return dbp_buf_adds(b, text);
		digits[nd++] = *p;
	}
	digits[nd] = '\0';
	exp = strtol(e + 1, NULL, 10);
	if (exp > 400 || exp < -400 || nd == 0)
		return dbp_buf_adds(b, text);
	/* drop trailing zeros of the fraction part and leading zeros */
	while (nd > nint && digits[nd - 1] == '0')
		digits[--nd] = '\0';
	i = 0;
	while (i + 1 < nd && digits[i] == '0' && nint > 1) {
		i++;
		nint--;
	}
	pos = (long)nint + exp;
	if (neg)
		dbp_buf_addc(b, '-');
	if (pos <= 0) {
		dbp_buf_adds(b, "0.");
		for (; pos < 0; pos++)
			dbp_buf_addc(b, '0');
		return dbp_buf_add(b, digits + i, nd - i);
	}
	if ((size_t)pos >= nd - i) {
		dbp_buf_add(b, digits + i, nd - i);
		for (pos -= (long)(nd - i); pos > 0; pos--)
			dbp_buf_addc(b, '0');
		return b->failed ? -1 : 0;
	}
	dbp_buf_add(b, digits + i, (size_t)pos);
	dbp_buf_addc(b, '.');
	return dbp_buf_add(b, digits + i + pos, nd - i - (size_t)pos);
}

/* The code point at s (UTF-8), its length in *len; invalid bytes read
 * as themselves with length 1. */
static unsigned
ctx_cp(const unsigned char *s, size_t *len)
{
	if (s[0] < 0x80) {
		*len = 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0 && (s[1] & 0xc0) == 0x80) {
		*len = 2;
		return ((unsigned)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
	}
	if ((s[0] & 0xf0) == 0xe0 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80) {
		*len = 3;
		return ((unsigned)(s[0] & 0x0f) << 12) |
		    ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	}
	if ((s[0] & 0xf8) == 0xf0 && (s[1] & 0xc0) == 0x80 &&
	    (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80) {
		*len = 4;
		return ((unsigned)(s[0] & 0x07) << 18) |
		    ((unsigned)(s[1] & 0x3f) << 12) |
		    ((unsigned)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
	}
	*len = 1;
	return s[0];
}

/* 1 for a line break, a control character, or a character that prints
 * as nothing (format characters, odd spaces), which a reader could not
 * tell from its neighbours. */
static int
ctx_invisible(unsigned cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad)
		return 1;
	if ((cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 ||
	    cp == 0x2029 || (cp >= 0x202a && cp <= 0x202f) ||
	    (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff ||
	    cp == 0x180e || cp == 0x034f || cp == 0x061c ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x3000 ||
	    (cp >= 0x2000 && cp <= 0x200a) || cp == 0x205f ||
	    (cp >= 0xfff9 && cp <= 0xfffb))
		return 1;
	return 0;
}

/* s double-quoted with YAML's escapes, on one line. */
static int
ctx_yaml_quoted(struct dbp_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;
	unsigned cp;

	dbp_buf_addc(b, '"');
	while (*p != '\0') {
		cp = ctx_cp(p, &len);
		switch (cp) {
		case 0: dbp_buf_adds(b, "\\0"); break;
		case 0x07: dbp_buf_adds(b, "\\a"); break;
		case 0x08: dbp_buf_adds(b, "\\b"); break;
		case 0x09: dbp_buf_adds(b, "\\t"); break;
		case 0x0a: dbp_buf_adds(b, "\\n"); break;
		case 0x0b: dbp_buf_adds(b, "\\v"); break;
		case 0x0c: dbp_buf_adds(b, "\\f"); break;
		case 0x0d: dbp_buf_adds(b, "\\r"); break;
		case 0x1b: dbp_buf_adds(b, "\\e"); break;
		case '"': dbp_buf_adds(b, "\\\""); break;
		case '\\': dbp_buf_adds(b, "\\\\"); break;
		case 0x85: dbp_buf_adds(b, "\\N"); break;
		case 0xa0: dbp_buf_adds(b, "\\_"); break;
		case 0x2028: dbp_buf_adds(b, "\\L"); break;
		case 0x2029: dbp_buf_adds(b, "\\P"); break;
		default:
			if (len == 1 && *p >= 0x80)
				dbp_buf_addf(b, "\\x%02x", *p);
			else if (!ctx_invisible(cp))
				dbp_buf_add(b, p, len);
			else if (cp <= 0xff)
				dbp_buf_addf(b, "\\x%02x", cp);
			else
				dbp_buf_addf(b, "\\u%04x", cp);
		}
		p += len;
	}
	return dbp_buf_addc(b, '"');
}

int
ctx_literal(struct dbp_buf *b, const cJSON *v)
{
	const unsigned char *p;
	const char *s;
	size_t len;
	char *t;
	int rc;

	if (v == NULL || cJSON_IsNull(v))
		return dbp_buf_adds(b, "NULL");
	if (cJSON_IsTrue(v))
		return dbp_buf_adds(b, "true");
	if (cJSON_IsFalse(v))
		return dbp_buf_adds(b, "false");
	if (cJSON_IsNumber(v))
		return ctx_num_pos(b, dbp_num_text(v));
	if (!cJSON_IsString(v)) {
		if ((t = dbp_json_dump(v, DBP_JSON_PYDEFAULT)) == NULL)
			return -1;
		rc = dbp_buf_adds(b, t);
		free(t);
		return rc;
	}
	s = v->valuestring;
	for (p = (const unsigned char *)s; *p != '\0'; p += len)
		if (ctx_invisible(ctx_cp(p, &len)) ||
		    (len == 1 && *p >= 0x80))
			return ctx_yaml_quoted(b, s);
	dbp_buf_addc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			dbp_buf_addc(b, '\'');
		dbp_buf_addc(b, *s);
	}
	return dbp_buf_addc(b, '\'');
}

void
ctx_pyfloat(double x, char *out, size_t size)
{
	char t[64], mant[32];
	int p, exp, nd, i;
	char *e;

	if (isnan(x)) {
		snprintf(out, size, "NaN");
		return;
	}
	if (isinf(x)) {
		snprintf(out, size, x < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (x == 0) {
		snprintf(out, size, signbit(x) ? "-0.0" : "0.0");
		return;
	}
	for (p = 1; p <= 17; p++) {
		snprintf(t, sizeof(t), "%.*e", p - 1, x);
		if (strtod(t, NULL) == x)
			break;
	}
	/* t is [-]d[.ddd]e[+-]XX: collect the digits and the exponent */
	e = strchr(t, 'e');
	exp = atoi(e + 1);
	nd = 0;
	for (i = 0; t + i < e; i++)
		if (t[i] >= '0' && t[i] <= '9')
			mant[nd++] = t[i];
	mant[nd] = '\0';
	while (nd > 1 && mant[nd - 1] == '0')
		mant[--nd] = '\0';
	if (exp < -4 || exp >= 16) {
		if (nd == 1)
			snprintf(out, size, "%s%ce%c%02d", x < 0 ? "-" : "",
			    mant[0], exp < 0 ? '-' : '+', abs(exp));
		else
			snprintf(out, size, "%s%c.%se%c%02d",
			    x < 0 ? "-" : "", mant[0], mant + 1,
			    exp < 0 ? '-' : '+', abs(exp));
		return;
	}
	{
		struct dbp_buf b;
		char *r;

		dbp_buf_init(&b, 128);
		if (x < 0)
			dbp_buf_addc(&b, '-');
		if (exp < 0) {
			dbp_buf_adds(&b, "0.");
			for (i = -1; i > exp; i--)
				dbp_buf_addc(&b, '0');
			dbp_buf_adds(&b, mant);
		} else if (exp + 1 >= nd) {
			dbp_buf_adds(&b, mant);
			for (i = nd; i < exp + 1; i++)
				dbp_buf_addc(&b, '0');
			dbp_buf_adds(&b, ".0");
		} else {
			dbp_buf_add(&b, mant, (size_t)exp + 1);
			dbp_buf_addc(&b, '.');
			dbp_buf_adds(&b, mant + exp + 1);
		}
		r = dbp_buf_take(&b);
		snprintf(out, size, "%s", r != NULL ? r : "0.0");
		free(r);
	}
}

double
ctx_round_rate(double x)
{
	char t[64];
	double r;

	snprintf(t, sizeof(t), "%.*f", CTX_RATE_PLACES, x);
	r = strtod(t, NULL);
	if (r == 0 && x > 0)
		r = 1e-6;
	if (r == 1 && x < 1)
		r = 0.999999;
	return r;
}

char *
ctx_collapse(const char *s)
{
	struct dbp_buf b;
	int space = 0;

	dbp_buf_init(&b, DBP_MAX_SCALAR);
	dbp_buf_adds(&b, "");
	for (; *s != '\0'; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		    *s == '\f' || *s == '\v') {
			space = b.len > 0;
			continue;
		}
		if (space)
			dbp_buf_addc(&b, ' ');
		space = 0;
		dbp_buf_addc(&b, *s);
	}
	return dbp_buf_take(&b);
}

size_t
ctx_chars(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			k++;
	return k;
}

size_t
ctx_prefix(const char *s, size_t n, size_t max)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (k == max)
				return i;
			k++;
		}
	}
	return n;
}

int
ctx_cols(struct dbp_buf *b, const cJSON *cols)
{
	const cJSON *e;
	int n = cJSON_GetArraySize(cols), first = 1;

	if (cJSON_IsString(cols))
		return dbp_buf_adds(b, cols->valuestring);
	if (n != 1)
		dbp_buf_addc(b, '(');
	cJSON_ArrayForEach(e, cols) {
		if (!first)
			dbp_buf_adds(b, ", ");
		first = 0;
		if (cJSON_IsString(e))
			dbp_buf_adds(b, e->valuestring);
		else
			ctx_literal(b, e);
	}
	if (n != 1)
		dbp_buf_addc(b, ')');
	return b->failed ? -1 : 0;
}

long long
ctx_int(const cJSON *v, long long dflt)
{
	if (!cJSON_IsNumber(v))
		return dflt;
	return strtoll(dbp_num_text(v), NULL, 10);
}

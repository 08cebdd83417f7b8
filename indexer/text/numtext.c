/*
 * numtext.c - the text of a number as Python prints it: repr() of a float
 * (the shortest digits that read back as the same double, found from the
 * YAML spelling the number was read from when that spelling is already
 * shortest, else by trial and bisection) and the spelling of a cJSON
 * number node, which keeps the text it was read from.
 *
 * It sits below ydoc.c (which reads numbers), json.c and yemit.c (which
 * write them), so none of those needs another.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbprint.h"

/* The p significant digits of x nearest to it (cand, *n of them) and the
 * exponent of the first; 1 when they read back as x. */
static int
nt_digits_at(double x, int p, char cand[24], int *n, int *e)
{
	char tmp[40];
	const char *q;
	int k = 0;

	snprintf(tmp, sizeof(tmp), "%.*e", p - 1, x);
	for (q = tmp; *q != 'e'; q++)
		if (*q != '.')
			cand[k++] = *q;
	*n = k;
	*e = atoi(q + 1);
	return strtod(tmp, NULL) == x;
}

/*
 * Shortest digits of x > 0 (finite) that read back as x, and the decimal
 * point position: x = 0.d1d2... * 10^decpt - what Python's repr prints.
 * The nearest p-digit decimal reads back for every p from some p0 on, so
 * p0 is found by bisection.  Only below a power of two, where the
 * rounding interval is lopsided, can a p0-1 digit decimal read back: the
 * one above the nearest, which is checked last.
 */
static void
nt_shortest_bisect(double x, char digits[24], int *ndig, int *decpt)
{
	char cand[24], up[24], tmp[40];
	int lo = 1, hi = 17, mid, n, e, i, un, ue;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (nt_digits_at(x, mid, cand, &n, &e))
			hi = mid;
		else
			lo = mid + 1;
	}
	nt_digits_at(x, lo, cand, &n, &e);
	if (lo > 1) {
		nt_digits_at(x, lo - 1, up, &un, &ue);
		for (i = un - 1; i >= 0; i--) {
			if (up[i] != '9') {
				up[i]++;
				break;
			}
			up[i] = '0';
		}
		if (i < 0) {
			memmove(up + 1, up, (size_t)un);
			up[0] = '1';
			ue++;
		}
		if (un == 1)
			snprintf(tmp, sizeof(tmp), "%ce%d", up[0], ue);
		else
			snprintf(tmp, sizeof(tmp), "%c.%.*se%d", up[0], un - 1,
			    up + 1, ue);
		if (strtod(tmp, NULL) == x) {
			memcpy(cand, up, (size_t)un);
			n = un;
			e = ue;
		}
	}
	while (n > 1 && cand[n - 1] == '0')
		n--;
	memcpy(digits, cand, (size_t)n);
	digits[n] = '\0';
	*ndig = n;
	*decpt = e + 1;
}

/*
 * The same digits, cheaply for most x.  A decimal of at most DBL_DIG (15)
 * significant digits survives the trip to the nearest normal double and
 * back (C11 5.2.4.2.2), so when the shortest digits of x are 15 or fewer
 * they are exactly the 15-digit rounding of x with its trailing zeros
 * dropped; and when that rounding reads back as x, the shortest has 15 or
 * fewer.  Otherwise (16 or 17 digits, or a subnormal x) bisect.
 */
static void
nt_shortest(double x, char digits[24], int *ndig, int *decpt, int slow)
{
	char tmp[40];
	int n, k;

	if (slow || x < DBL_MIN) {
		nt_shortest_bisect(x, digits, ndig, decpt);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.*e", DBL_DIG - 1, x);
	if (strtod(tmp, NULL) != x) {
		nt_shortest_bisect(x, digits, ndig, decpt);
		return;
	}
	/* "d.dddddddddddddde[+-]xx" */
	digits[0] = tmp[0];
	for (n = 1, k = 2; tmp[k] != 'e'; k++)
		digits[n++] = tmp[k];
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*ndig = n;
	*decpt = atoi(tmp + k + 1) + 1;
}

/*
 * The significant digits of a decimal spelled text ([-+]?d*.d*, an
 * optional exponent), trailing zeros dropped, and its decimal point
 * position as nt_shortest gives them; -1 when text is spelled
 * otherwise or has more than DBL_DIG significant digits.  Those of a
 * float's YAML text are then its shortest digits, by the argument of
 * nt_shortest, when the float is normal.
 */
static int
nt_text_digits(const char *text, char digits[24], int *ndig, int *decpt)
{
	const char *p = text;
	int n = 0, dp = 0, point = 0, any = 0, e = 0, esign = 1, ne = 0;

	if (*p == '-' || *p == '+')
		p++;
	for (; *p != '\0' && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.' && !point) {
			point = 1;
			continue;
		}
		if (*p < '0' || *p > '9')
			return -1;
		any = 1;
		if (n == 0 && *p == '0') {
			dp -= point;
			continue;
		}
		if (n == 23)
			return -1;
		digits[n++] = *p;
		dp += !point;
	}
	if (!any)
		return -1;
	if (*p != '\0') {
		p++;
		if (*p == '-' || *p == '+')
			esign = *p++ == '-' ? -1 : 1;
		for (; *p >= '0' && *p <= '9' && ne < 6; p++, ne++)
			e = e * 10 + (*p - '0');
		if (ne == 0 || *p != '\0')
			return -1;
	}
	while (n > 0 && digits[n - 1] == '0')
		n--;
	if (n == 0 || n > DBL_DIG)
		return -1;
	digits[n] = '\0';
	*ndig = n;
	*decpt = dp + esign * e;
	return 0;
}

/* dbp_float_repr, its digits found by bisection alone when slow, or read
 * from text (the YAML spelling x was read from) when that can be. */
static char *
nt_float_repr(double x, char out[DBP_FLOAT_REPR_MAX], int slow,
    const char *text)
{
	char dig[24], *o = out;
	int n, decpt, i;

	if (isnan(x)) {
		strcpy(out, "nan");
		return out;
	}
	if (isinf(x)) {
		strcpy(out, x < 0 ? "-inf" : "inf");
		return out;
	}
	if (signbit(x))
		*o++ = '-';
	if (x == 0) {
		strcpy(o, "0.0");
		return out;
	}
	if (slow || text == NULL || fabs(x) < DBL_MIN ||
	    nt_text_digits(text, dig, &n, &decpt) == -1)
		nt_shortest(fabs(x), dig, &n, &decpt, slow);
	if (decpt > -4 && decpt <= 16) {
		if (decpt <= 0) {
			*o++ = '0';
			*o++ = '.';
			for (i = 0; i < -decpt; i++)
				*o++ = '0';
			memcpy(o, dig, (size_t)n);
			o += n;
		} else if (decpt < n) {
			memcpy(o, dig, (size_t)decpt);
			o += decpt;
			*o++ = '.';
			memcpy(o, dig + decpt, (size_t)(n - decpt));
			o += n - decpt;
		} else {
			memcpy(o, dig, (size_t)n);
			o += n;
			for (i = n; i < decpt; i++)
				*o++ = '0';
			*o++ = '.';
			*o++ = '0';
		}
		*o = '\0';
		return out;
	}
	*o++ = dig[0];
	if (n > 1) {
		*o++ = '.';
		memcpy(o, dig + 1, (size_t)(n - 1));
		o += n - 1;
	}
	snprintf(o, (size_t)(DBP_FLOAT_REPR_MAX - (o - out)), "e%c%02d",
	    decpt - 1 < 0 ? '-' : '+', abs(decpt - 1));
	return out;
}

char *
dbp_float_repr_text(double x, char out[DBP_FLOAT_REPR_MAX],
    const char *text)
{
	return nt_float_repr(x, out, 0, text);
}

char *
dbp_float_repr(double x, char out[DBP_FLOAT_REPR_MAX])
{
	return nt_float_repr(x, out, 0, NULL);
}

char *
dbp_float_repr_slow(double x, char out[DBP_FLOAT_REPR_MAX])
{
	return nt_float_repr(x, out, 1, NULL);
}

const char *
dbp_num_text(const cJSON *n)
{
	static _Thread_local char buf[DBP_FLOAT_REPR_MAX];
	double v;

	if (n == NULL)
		return "null";
	if (n->valuestring != NULL)
		return n->valuestring;
	v = n->valuedouble;
	if (v == 0) {
		strcpy(buf, "0");
	} else if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
		snprintf(buf, sizeof(buf), "%.0f", v);
	} else if (isnan(v)) {
		strcpy(buf, "NaN");
	} else if (isinf(v)) {
		strcpy(buf, v < 0 ? "-Infinity" : "Infinity");
	} else {
		dbp_float_repr(v, buf);
	}
	return buf;
}

const char *
dbp_num_pystr(const cJSON *v)
{
	const char *t = dbp_num_text(v);

	if (strcmp(t, "Infinity") == 0)
		return "inf";
	if (strcmp(t, "-Infinity") == 0)
		return "-inf";
	if (strcmp(t, "NaN") == 0)
		return "nan";
	return t;
}

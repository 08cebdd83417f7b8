/*
 * ydoc.c - YAML documents loaded as PyYAML's safe_load (libyaml's
 * CSafeLoader) loads them, into cJSON trees.
 *
 * A document without anchors, aliases, merge keys or explicit tags (every
 * print file dbprint writes) is built in one pass, events straight into
 * cJSON (ydoc_fast, below).  Any other document, and any document that
 * fails, is read again by the exact path, in two passes, as PyYAML has a
 * composer and a constructor:
 *
 *   compose    reads libyaml events into a graph of nodes.  An alias is a
 *              second pointer to its anchored node, not a copy, and every
 *              node knows, once complete, how many nodes and bytes it
 *              expands to and how deep it nests; so an alias bomb is
 *              refused before anything is expanded.  Parse errors,
 *              undefined or duplicate anchors and a second document are
 *              found here, before any construction error, as in PyYAML.
 *   construct  walks the graph into cJSON: each scalar's tag is resolved
 *              as PyYAML's YAML 1.1 resolver does and its value built as
 *              SafeConstructor builds it (merge keys included).
 *
 * Error messages follow PyYAML's for the C parser: the context, its
 * mark, the problem and its mark, one per line, a mark reading
 * '  in "<unicode string>", line L, column C' (1-based).
 *
 * cJSON notes: a number node carries its Python spelling in valuestring;
 * cJSON_Delete frees it, and cJSON_Duplicate (1.7.15) copies the
 * valuestring of any node that has one, numbers included.
 */
#define _POSIX_C_SOURCE	200809L

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xxhash.h>
#include <yaml.h>

#include "dbprint.h"

/* PyYAML's name for a text stream, and the YAML 1.1 tag prefix. */
#define YDOC_STREAM	"<unicode string>"
#define YDOC_TAG	"tag:yaml.org,2002:"

enum ykind {
	YK_SCALAR,
	YK_SEQ,
	YK_MAP
};

/* The tag of a node, resolved. */
enum ytag {
	YT_STR,
	YT_NULL,
	YT_BOOL,
	YT_INT,
	YT_FLOAT,
	YT_TIMESTAMP,
	YT_MERGE,	/* "<<" */
	YT_VALUE,	/* "=" */
	YT_SEQ,
	YT_MAP,
	YT_KNOWN,	/* binary, set, omap, pairs: PyYAML has them, we not */
	YT_OTHER	/* no constructor at all */
};

struct ynode {
	enum ykind	  kind;
	enum ytag	  tag;
	char		 *tagname;	/* an explicit tag, as written */
	char		 *value;	/* scalar text, NUL-terminated */
	size_t		  len;
	struct ynode	**items;	/* seq: items; map: key, value... */
	size_t		  n;
	size_t		  cap;
	yaml_mark_t	  start;
	unsigned long	  size;		/* nodes it expands to */
	unsigned long	  bytes;	/* scalar bytes it expands to */
	int		  height;	/* containers on its deepest path */
	int		  done;	/* complete: an alias may use it */
};

struct yanchor {
	char		*name;
	struct ynode	*node;
};

struct ydoc {
	yaml_parser_t	  parser;
	struct dbp_diag	 *d;
	struct ynode	**all;		/* every node, for freeing */
	size_t		  nall;
	size_t		  capall;
	struct yanchor	 *anchors;	/* open addressing, 2^n */
	size_t		  nanchors;
	size_t		  capanchors;
	struct ynode	 *stack[DBP_MAX_DEPTH];
	int		  depth;
	long		  naliases;
	struct dbp_arena	 *arena;	/* where the one-pass tree goes, or NULL:
					 * malloc (cJSON_Create*) */
};

/* A pair of a flattened mapping. */
struct ypair {
	const struct ynode	*key;
	const struct ynode	*value;
};

struct ypairs {
	struct ypair	*p;
	size_t		 n;
	size_t		 cap;
};

/* ------------------------------------------------------------------ */
/* Messages                                                             */

/* Append one mark line to b. */
static void
ydoc_mark(struct dbp_buf *b, const yaml_mark_t *m)
{
	dbp_buf_addf(b, "\n  in \"%s\", line %zu, column %zu", YDOC_STREAM,
	    m->line + 1, m->column + 1);
}

/*
 * Set d->msg as PyYAML's MarkedYAMLError prints: context, its mark unless
 * it equals the problem's, problem, its mark.  Any part may be NULL.
 * Returns -1.
 */
static int
ydoc_err(struct ydoc *y, const char *context, const yaml_mark_t *cm,
    const char *problem, const yaml_mark_t *pm)
{
	struct dbp_buf b;
	int first = 1;

	dbp_buf_init(&b, DBP_DIAG_MAX);
	if (context != NULL) {
		dbp_buf_adds(&b, context);
		first = 0;
	}
	if (cm != NULL && (problem == NULL || pm == NULL ||
	    cm->line != pm->line || cm->column != pm->column)) {
		ydoc_mark(&b, cm);
		first = 0;
	}
	if (problem != NULL) {
		if (!first)
			dbp_buf_addc(&b, '\n');
		dbp_buf_adds(&b, problem);
	}
	if (pm != NULL)
		ydoc_mark(&b, pm);
	if (b.ptr != NULL)
		dbp_fail(y->d, "%s", b.ptr);
	else
		dbp_fail(y->d, "YAML error (message too long)");
	dbp_buf_release(&b);
	return -1;
}

/* The libyaml parser's error, as PyYAML's CParser words it. */
static int
ydoc_parser_err(struct ydoc *y)
{
	yaml_parser_t *p = &y->parser;
	int v;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return dbp_fail(y->d, "out of memory");
	case YAML_READER_ERROR:
		v = p->problem_value;
		if (v < 0)
			return dbp_fail(y->d, "unacceptable character #x-%03x: "
			    "%s\n  in \"%s\", position %zu", -v, p->problem,
			    YDOC_STREAM, p->problem_offset);
		return dbp_fail(y->d, "unacceptable character #x%04x: %s\n"
		    "  in \"%s\", position %zu", v, p->problem, YDOC_STREAM,
		    p->problem_offset);
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
		return ydoc_err(y, p->context,
		    p->context != NULL ? &p->context_mark : NULL,
		    p->problem != NULL ? p->problem : "unknown error",
		    p->problem != NULL ? &p->problem_mark : NULL);
	default:
		return dbp_fail(y->d, "YAML error");
	}
}

/* ------------------------------------------------------------------ */
/* Numbers                                                              */
/* A zeroed node of type t in y's arena; without an arena, one from
 * cJSON_Create* (t then cJSON_NULL, cJSON_True, cJSON_False, cJSON_Array
 * or cJSON_Object).  NULL on OOM. */
static cJSON *
ydoc_jnode(struct ydoc *y, int t)
{
	cJSON *n;

	if (y->arena != NULL) {
		if ((n = dbp_arena_zalloc(y->arena, sizeof(*n))) != NULL)
			n->type = t;
		return n;
	}
	switch (t) {
	case cJSON_NULL:
		return cJSON_CreateNull();
	case cJSON_True:
		return cJSON_CreateTrue();
	case cJSON_False:
		return cJSON_CreateFalse();
	case cJSON_Array:
		return cJSON_CreateArray();
	default:
		return cJSON_CreateObject();
	}
}

/* A copy of s in y's arena, else malloc'd.  NULL on OOM. */
static char *
ydoc_strdup(struct ydoc *y, const char *s)
{
	return y->arena != NULL ? dbp_arena_strdup(y->arena, s) : strdup(s);
}

/* A string node holding a copy of s.  NULL on OOM. */
static cJSON *
ydoc_string(struct ydoc *y, const char *s)
{
	cJSON *n;

	if (y->arena == NULL)
		return cJSON_CreateString(s);
	if ((n = ydoc_jnode(y, cJSON_String)) != NULL &&
	    (n->valuestring = ydoc_strdup(y, s)) == NULL)
		n = NULL;
	return n;
}

/* A number node spelled text, of value v.  NULL on OOM. */
static cJSON *
ydoc_number(struct ydoc *y, double v, const char *text)
{
	cJSON *n;

	if (y->arena != NULL) {
		if ((n = ydoc_jnode(y, cJSON_Number)) == NULL)
			return NULL;
		/* valueint as cJSON_CreateNumber sets it (NaN: 0) */
		n->valueint = isnan(v) ? 0 : v >= INT_MAX ? INT_MAX :
		    v <= (double)INT_MIN ? INT_MIN : (int)v;
	} else if ((n = cJSON_CreateNumber(isnan(v) ? 0 : v)) == NULL)
		/* cJSON_CreateNumber(NaN) would cast NaN to int: undefined. */
		return NULL;
	n->valuedouble = v;
	if ((n->valuestring = ydoc_strdup(y, text)) == NULL) {
		if (y->arena == NULL)
			cJSON_Delete(n);
		return NULL;
	}
	return n;
}

/* The JSON spelling of a float read from text: Python repr, but
 * Infinity and NaN. */
static const char *
ydoc_float_json(double v, const char *text, char out[DBP_FLOAT_REPR_MAX])
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v < 0 ? "-Infinity" : "Infinity";
	return dbp_float_repr_text(v, out, text);
}

/*
 * Arbitrary-size non-negative integers, little-endian limbs of 10^9, as
 * far as DBP_MAX_INT_DIGITS decimal digits (Python's own limit on int/str
 * conversions).
 */
#define YBIG_BASE	1000000000u
#define YBIG_LIMBS	(DBP_MAX_INT_DIGITS / 9 + 2)

struct ybig {
	uint32_t	l[YBIG_LIMBS];
	int		n;
};

/* b = b * m + a; -1 when it outgrows the limit. */
static int
ybig_muladd(struct ybig *b, uint32_t m, uint32_t a)
{
	uint64_t carry = a, t;
	int i;

	for (i = 0; i < b->n; i++) {
		t = (uint64_t)b->l[i] * m + carry;
		b->l[i] = (uint32_t)(t % YBIG_BASE);
		carry = t / YBIG_BASE;
	}
	while (carry != 0) {
		if (b->n == YBIG_LIMBS)
			return -1;
		b->l[b->n++] = (uint32_t)(carry % YBIG_BASE);
		carry /= YBIG_BASE;
	}
	return 0;
}

/* b += a. */
static int
ybig_add(struct ybig *b, const struct ybig *a)
{
	uint64_t carry = 0, t;
	int i;

	for (i = 0; i < a->n || carry != 0; i++) {
		if (i == b->n) {
			if (b->n == YBIG_LIMBS)
				return -1;
			b->l[b->n++] = 0;
		}
		t = (uint64_t)b->l[i] + (i < a->n ? a->l[i] : 0) + carry;
		b->l[i] = (uint32_t)(t % YBIG_BASE);
		carry = t / YBIG_BASE;
	}
	return 0;
}

/* Decimal digits of b (no sign), with a '-' first when neg and b != 0. */
static int
ybig_text(const struct ybig *b, int neg, struct dbp_buf *out)
{
	int i;

	if (b->n == 0)
		return dbp_buf_adds(out, "0");
	if (neg)
		dbp_buf_addc(out, '-');
	dbp_buf_addf(out, "%u", b->l[b->n - 1]);
	for (i = b->n - 2; i >= 0; i--)
		dbp_buf_addf(out, "%09u", b->l[i]);
	if (out->failed || out->len > DBP_MAX_INT_DIGITS + 1)
		return -1;
	return 0;
}

static int
ydoc_digit(int c, int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'z')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'Z')
		v = c - 'A' + 10;
	else
		return -1;
	return v < base ? v : -1;
}

/* Python's int(s, base) for the strings PyYAML passes it (underscores
 * already gone); *why set on failure. */
static int
ydoc_pyint(const char *s, int base, struct ybig *b, const char **why)
{
	const char *p = s;
	size_t nd;
	int v;

	b->n = 0;
	/* int(x, 8) and int(x, 16) take their own prefix. */
	if (base == 8 && p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
		p += 2;
	if (*p == '\0') {
		*why = "invalid";
		return -1;
	}
	nd = strlen(p);
	if (base == 10 && nd > DBP_MAX_INT_DIGITS) {
		*why = "limit";
		return -1;
	}
	for (; *p != '\0'; p++) {
		v = ydoc_digit((unsigned char)*p, base);
		if (v < 0) {
			*why = "invalid";
			return -1;
		}
		if (ybig_muladd(b, (uint32_t)base, (uint32_t)v) == -1) {
			*why = "limit";
			return -1;
		}
	}
	/* Drop high zero limbs ("000" reads as zero). */
	while (b->n > 0 && b->l[b->n - 1] == 0)
		b->n--;
	return 0;
}

/* Set the diag for a failed int(s, base). */
static int
ydoc_int_fail(struct ydoc *y, const char *why, const char *s, int base,
    const yaml_mark_t *m)
{
	char *r, msg[512];

	if (strcmp(why, "limit") == 0) {
		snprintf(msg, sizeof(msg), "Exceeds the limit (%d digits) for "
		    "integer string conversion", DBP_MAX_INT_DIGITS);
		return ydoc_err(y, NULL, NULL, msg, m);
	}
	r = dbp_pyrepr_str(s);
	snprintf(msg, sizeof(msg), "invalid literal for int() with base %d: "
	    "%.400s", base, r != NULL ? r : "?");
	free(r);
	return ydoc_err(y, NULL, NULL, msg, m);
}

/*
 * SafeConstructor.construct_yaml_int: the decimal spelling of the integer
 * the text stands for, into out.
 */
static int
ydoc_int_text(struct ydoc *y, const struct ynode *n, struct dbp_buf *out)
{
	struct ybig *acc = NULL, *part = NULL;
	const char *why = "invalid", *bad;
	char *s = NULL, *v, *q, *colon;
	int neg = 0, rc = -1, base = 10;
	size_t i, k;

	if ((s = malloc(n->len + 1)) == NULL ||
	    (acc = malloc(sizeof(*acc))) == NULL ||
	    (part = malloc(sizeof(*part))) == NULL) {
		dbp_fail(y->d, "out of memory");
		goto out;
	}
	for (i = k = 0; i < n->len; i++)
		if (n->value[i] != '_')
			s[k++] = n->value[i];
	s[k] = '\0';
	v = s;
	if (v[0] == '-')
		neg = 1;
	if (v[0] == '-' || v[0] == '+')
		v++;
	bad = v;
	if (strcmp(v, "0") == 0) {
		acc->n = 0;
	} else if (strncmp(v, "0b", 2) == 0) {
		base = 2;
		bad = v + 2;
		if (ydoc_pyint(v + 2, 2, acc, &why) == -1)
			goto fail;
	} else if (strncmp(v, "0x", 2) == 0) {
		base = 16;
		bad = v + 2;
		if (ydoc_pyint(v + 2, 16, acc, &why) == -1)
			goto fail;
	} else if (v[0] == '0') {
		base = 8;
		if (ydoc_pyint(v, 8, acc, &why) == -1)
			goto fail;
	} else if (strchr(v, ':') != NULL) {
		/* Sexagesimal: ((p0 * 60 + p1) * 60 + p2)... */
		acc->n = 0;
		for (q = v;; q = colon + 1) {
			colon = strchr(q, ':');
			if (colon != NULL)
				*colon = '\0';
			bad = q;
			if (ydoc_pyint(q, 10, part, &why) == -1)
				goto fail;
			if (ybig_muladd(acc, 60, 0) == -1 ||
			    ybig_add(acc, part) == -1) {
				why = "limit";
				goto fail;
			}
			if (colon == NULL)
				break;
		}
	} else {
		if (ydoc_pyint(v, 10, acc, &why) == -1)
			goto fail;
	}
	if (ybig_text(acc, neg, out) == -1) {
		why = "limit";
		bad = v;
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	ydoc_int_fail(y, why, bad, base, &n->start);
out:
	free(s);
	free(acc);
	free(part);
	return rc;
}

/* A float's text up to this long is copied on the stack, not malloc'd. */
#define YDOC_FLOAT_SHORT	64

/* Python's float(s) of an ASCII string: whitespace around, a sign,
 * decimal digits, "inf"/"infinity"/"nan". */
static int
ydoc_pyfloat(const char *s, double *out)
{
	const char *b = s, *e = s + strlen(s), *p;
	char *end, *t, small[YDOC_FLOAT_SHORT];
	int ok;

	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	if (b == e)
		return -1;
	p = b;
	if (*p == '+' || *p == '-')
		p++;
	if ((e - p == 3 && strncasecmp(p, "inf", 3) == 0) ||
	    (e - p == 8 && strncasecmp(p, "infinity", 8) == 0)) {
		*out = *b == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	if (e - p == 3 && strncasecmp(p, "nan", 3) == 0) {
		*out = NAN;
		return 0;
	}
	/* Only what a decimal float may hold: strtod alone takes hex too. */
	for (ok = 0; p < e; p++) {
		if (isdigit((unsigned char)*p))
			ok = 1;
		else if (strchr(".eE+-", *p) == NULL)
			return -1;
	}
	if (!ok)
		return -1;
	/* A short one is copied to the stack: two mallocs a float cost a
	 * full build 0.5% of its instructions. */
	if ((size_t)(e - b) < sizeof(small)) {
		memcpy(small, b, (size_t)(e - b));
		small[e - b] = '\0';
		t = small;
	} else if ((t = strndup(b, (size_t)(e - b))) == NULL)
		return -1;
	errno = 0;
	*out = strtod(t, &end);
	ok = end != t && *end == '\0';
	if (t != small)
		free(t);
	return ok ? 0 : -1;
}

/* SafeConstructor.construct_yaml_float. */
static int
ydoc_float_value(struct ydoc *y, const struct ynode *n, double *out)
{
	char *s, *v, *q, *colon, *r, msg[512], small[YDOC_FLOAT_SHORT];
	double sign = 1, val, part, base;
	size_t i, k;
	int rc = -1;

	if (n->len < sizeof(small))
		s = small;
	else if ((s = malloc(n->len + 1)) == NULL)
		return dbp_fail(y->d, "out of memory");
	for (i = k = 0; i < n->len; i++)
		if (n->value[i] != '_')
			s[k++] = (char)tolower((unsigned char)n->value[i]);
	s[k] = '\0';
	v = s;
	if (v[0] == '-')
		sign = -1;
	if (v[0] == '-' || v[0] == '+')
		v++;
	if (strcmp(v, ".inf") == 0) {
		*out = sign * INFINITY;
	} else if (strcmp(v, ".nan") == 0) {
		*out = NAN;
	} else if (strchr(v, ':') != NULL) {
		/* Python sums the parts from the last: value += part * base. */
		int np = 1, j;
		double *parts;

		for (q = v; *q != '\0'; q++)
			np += *q == ':';
		if ((parts = calloc((size_t)np, sizeof(*parts))) == NULL) {
			dbp_fail(y->d, "out of memory");
			goto out;
		}
		for (j = 0, q = v;; q = colon + 1, j++) {
			colon = strchr(q, ':');
			if (colon != NULL)
				*colon = '\0';
			if (ydoc_pyfloat(q, &parts[j]) == -1) {
				v = q;
				free(parts);
				goto bad;
			}
			if (colon == NULL)
				break;
		}
		val = 0.0;
		base = 1;
		for (j = np - 1; j >= 0; j--) {
			part = parts[j];
			val += part * base;
			base *= 60;
		}
		free(parts);
		*out = sign * val;
	} else {
		if (ydoc_pyfloat(v, &val) == -1)
			goto bad;
		*out = sign * val;
	}
	rc = 0;
	goto out;
bad:
	r = dbp_pyrepr_str(v);
	snprintf(msg, sizeof(msg), "could not convert string to float: %.400s",
	    r != NULL ? r : "?");
	free(r);
	ydoc_err(y, NULL, NULL, msg, &n->start);
out:
	if (s != small)
		free(s);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The YAML 1.1 implicit resolver (PyYAML's resolver.py, re for re)     */

static int
ydoc_all(const char *s, const char *e, const char *set)
{
	if (s == e)
		return 0;
	for (; s < e; s++)
		if (strchr(set, *s) == NULL || *s == '\0')
			return 0;
	return 1;
}

#define YDEC	"0123456789"
#define YDEC_	"0123456789_"

/* Skip [0-9][0-9_]*; NULL when s does not start with a digit. */
static const char *
ydoc_digits_(const char *s, const char *e)
{
	if (s == e || !isdigit((unsigned char)*s))
		return NULL;
	for (s++; s < e && (isdigit((unsigned char)*s) || *s == '_'); s++)
		;
	return s;
}

/* (?::[0-5]?[0-9])+ ; returns the end of the run, or NULL. */
static const char *
ydoc_sexa(const char *s, const char *e)
{
	const char *q;
	int groups = 0;

	while (s < e && *s == ':') {
		q = s + 1;
		while (q < e && isdigit((unsigned char)*q))
			q++;
		/* [0-5]?[0-9] */
		if (q - s - 1 != 1 &&
		    !(q - s - 1 == 2 && s[1] >= '0' && s[1] <= '5'))
			return NULL;
		s = q;
		groups++;
	}
	return groups > 0 ? s : NULL;
}

/* (?:[eE][-+][0-9]+)? then the end. */
static int
ydoc_exp_end(const char *s, const char *e)
{
	if (s == e)
		return 1;
	if (*s != 'e' && *s != 'E')
		return 0;
	s++;
	if (s == e || (*s != '-' && *s != '+'))
		return 0;
	return ydoc_all(s + 1, e, YDEC);
}

static int
ydoc_is_float(const char *s, size_t len)
{
	const char *e = s + len, *p, *q;

	if (len == 4 && (!strcmp(s, ".nan") || !strcmp(s, ".NaN") ||
	    !strcmp(s, ".NAN")))
		return 1;
	p = s;
	if (p < e && (*p == '-' || *p == '+'))
		p++;
	if (e - p == 4 && (!strncmp(p, ".inf", 4) || !strncmp(p, ".Inf", 4) ||
	    !strncmp(p, ".INF", 4)))
		return 1;
	/* \.[0-9][0-9_]*(?:[eE][-+][0-9]+)? - no sign */
	if (s < e && s[0] == '.') {
		q = ydoc_digits_(s + 1, e);
		return q != NULL && ydoc_exp_end(q, e);
	}
	q = ydoc_digits_(p, e);
	if (q == NULL)
		return 0;
	/* [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)? */
	if (q < e && *q == '.') {
		for (q++; q < e && (isdigit((unsigned char)*q) || *q == '_');
		    q++)
			;
		return ydoc_exp_end(q, e);
	}
	/* [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* */
	q = ydoc_sexa(q, e);
	if (q == NULL || q == e || *q != '.')
		return 0;
	return q + 1 == e || ydoc_all(q + 1, e, YDEC_);
}

static int
ydoc_is_int(const char *s, size_t len)
{
	const char *e = s + len, *p = s, *q;

	if (p < e && (*p == '-' || *p == '+'))
		p++;
	if (p == e)
		return 0;
	if (e - p >= 2 && p[0] == '0' && p[1] == 'b')
		return ydoc_all(p + 2, e, "01_");
	if (e - p >= 2 && p[0] == '0' && p[1] == 'x')
		return ydoc_all(p + 2, e, "0123456789abcdefABCDEF_");
	if (p[0] == '0')
		return e - p == 1 || ydoc_all(p + 1, e, "01234567_");
	if (p[0] < '1' || p[0] > '9')
		return 0;
	q = ydoc_digits_(p, e);
	if (q == e)
		return 1;
	q = ydoc_sexa(q, e);
	return q == e;
}

/* A timestamp as construct_yaml_timestamp's regexp reads it. */
struct yts {
	int	year, month, day;
	int	has_time, hour, minute, second;
	long	micro;
	int	tz;		/* 0 none, 1 Z, 2 offset */
	int	tz_minutes;	/* signed */
	int	short_date;	/* month or day has one digit */
};

/* Read [0-9] x n exactly at *pp; -1 when not there. */
static int
ydoc_num(const char **pp, const char *e, int min, int max)
{
	const char *p = *pp;
	int v = 0, n = 0;

	while (p < e && n < max && isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		p++;
		n++;
	}
	if (n < min)
		return -1;
	*pp = p;
	return v;
}

static int
ydoc_ts_parse(const char *s, size_t len, struct yts *t)
{
	const char *e = s + len, *p = s, *f;
	int n, sign, th, tm;

	memset(t, 0, sizeof(*t));
	if ((t->year = ydoc_num(&p, e, 4, 4)) < 0 || p == e || *p++ != '-')
		return -1;
	f = p;
	if ((t->month = ydoc_num(&p, e, 1, 2)) < 0 || p == e || *p++ != '-')
		return -1;
	t->short_date = p - f != 3;
	f = p;
	if ((t->day = ydoc_num(&p, e, 1, 2)) < 0)
		return -1;
	t->short_date |= p - f != 2;
	if (p == e)
		return 0;
	if (*p == 'T' || *p == 't') {
		p++;
	} else if (*p == ' ' || *p == '\t') {
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
	} else {
		return -1;
	}
	t->has_time = 1;
	if ((t->hour = ydoc_num(&p, e, 1, 2)) < 0 || p == e || *p++ != ':')
		return -1;
	if ((t->minute = ydoc_num(&p, e, 2, 2)) < 0 || p == e ||
	    *p++ != ':')
		return -1;
	if ((t->second = ydoc_num(&p, e, 2, 2)) < 0)
		return -1;
	if (p < e && *p == '.') {
		/* fraction[:6], padded with zeros to six digits */
		for (p++, n = 0; p < e && isdigit((unsigned char)*p); p++) {
			if (n < 6) {
				t->micro = t->micro * 10 + (*p - '0');
				n++;
			}
		}
		for (; n < 6; n++)
			t->micro *= 10;
	}
	if (p == e)
		return 0;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p == e)
		return -1;
	if (*p == 'Z') {
		t->tz = 1;
		return p + 1 == e ? 0 : -1;
	}
	if (*p != '-' && *p != '+')
		return -1;
	sign = *p++ == '-' ? -1 : 1;
	if ((th = ydoc_num(&p, e, 1, 2)) < 0)
		return -1;
	tm = 0;
	if (p < e) {
		if (*p++ != ':' || (tm = ydoc_num(&p, e, 2, 2)) < 0 || p != e)
			return -1;
	}
	t->tz = 2;
	t->tz_minutes = sign * (th * 60 + tm);
	return 0;
}

static int
ydoc_is_timestamp(const char *s, size_t len)
{
	struct yts t;

	if (ydoc_ts_parse(s, len, &t) == -1)
		return 0;
	/* The date-only form wants two-digit month and day. */
	return t.has_time || !t.short_date;
}

/* The tag of a plain scalar, as Resolver.resolve finds it. */
static enum ytag
ydoc_resolve(const char *v, size_t len)
{
	/* Every null and bool spelling: 1 to 5 bytes long, each compared
	 * only with a scalar of its length and first byte (a strcmp or
	 * strchr call each cost a full build 1% of its instructions). */
	static const struct {
		char		 s[6];
		unsigned char	 len;
		unsigned char	 tag;
	} words[] = {
		{ "~", 1, YT_NULL }, { "null", 4, YT_NULL },
		{ "Null", 4, YT_NULL }, { "NULL", 4, YT_NULL },
		{ "yes", 3, YT_BOOL }, { "Yes", 3, YT_BOOL },
		{ "YES", 3, YT_BOOL }, { "no", 2, YT_BOOL },
		{ "No", 2, YT_BOOL }, { "NO", 2, YT_BOOL },
		{ "true", 4, YT_BOOL }, { "True", 4, YT_BOOL },
		{ "TRUE", 4, YT_BOOL }, { "false", 5, YT_BOOL },
		{ "False", 5, YT_BOOL }, { "FALSE", 5, YT_BOOL },
		{ "on", 2, YT_BOOL }, { "On", 2, YT_BOOL },
		{ "ON", 2, YT_BOOL }, { "off", 3, YT_BOOL },
		{ "Off", 3, YT_BOOL }, { "OFF", 3, YT_BOOL },
	};
	size_t i;
	int num;
	char c;

	if (len == 0)
		return YT_NULL;
	c = v[0];
	if (len <= 5 && (c == '~' || c == 'n' || c == 'N' || c == 'y' ||
	    c == 'Y' || c == 't' || c == 'T' || c == 'f' || c == 'F' ||
	    c == 'o' || c == 'O'))
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (words[i].len == len && words[i].s[0] == c &&
			    memcmp(v, words[i].s, len) == 0)
				return (enum ytag)words[i].tag;
	num = (c >= '0' && c <= '9') || c == '-' || c == '+';
	if ((num || c == '.') && ydoc_is_float(v, len))
		return YT_FLOAT;
	if (num && ydoc_is_int(v, len))
		return YT_INT;
	if (c >= '0' && c <= '9' && ydoc_is_timestamp(v, len))
		return YT_TIMESTAMP;
	if (len == 2 && v[0] == '<' && v[1] == '<')
		return YT_MERGE;
	if (len == 1 && c == '=')
		return YT_VALUE;
	return YT_STR;
}

/* An explicit tag's meaning. */
static enum ytag
ydoc_tag_named(const char *tag)
{
	static const struct {
		const char	*name;
		enum ytag	 tag;
	} tags[] = {
		{ "str", YT_STR }, { "null", YT_NULL }, { "bool", YT_BOOL },
		{ "int", YT_INT }, { "float", YT_FLOAT },
		{ "timestamp", YT_TIMESTAMP }, { "merge", YT_MERGE },
		{ "value", YT_VALUE }, { "seq", YT_SEQ }, { "map", YT_MAP },
		{ "binary", YT_KNOWN }, { "set", YT_KNOWN },
		{ "omap", YT_KNOWN }, { "pairs", YT_KNOWN },
	};
	size_t i, pl = strlen(YDOC_TAG);

	if (strncmp(tag, YDOC_TAG, pl) != 0)
		return YT_OTHER;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strcmp(tag + pl, tags[i].name) == 0)
			return tags[i].tag;
	return YT_OTHER;
}

/* ------------------------------------------------------------------ */
/* Compose: events -> node graph                                        */

static struct ynode *
ydoc_node(struct ydoc *y, enum ykind kind, const yaml_mark_t *start)
{
	struct ynode *n, **na;
	size_t nc;

	if (y->nall == y->capall) {
		nc = y->capall ? y->capall * 2 : 256;
		if ((na = realloc(y->all, nc * sizeof(*na))) == NULL)
			return NULL;
		y->all = na;
		y->capall = nc;
	}
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->kind = kind;
	n->start = *start;
	n->size = 1;
	n->height = kind == YK_SCALAR ? 0 : 1;
	y->all[y->nall++] = n;
	return n;
}

static void
ydoc_free_nodes(struct ydoc *y)
{
	size_t i;

	for (i = 0; i < y->nall; i++) {
		free(y->all[i]->tagname);
		free(y->all[i]->value);
		free(y->all[i]->items);
		free(y->all[i]);
	}
	free(y->all);
	for (i = 0; i < y->capanchors; i++)
		free(y->anchors[i].name);
	free(y->anchors);
}

static size_t
ydoc_anchor_slot(const struct ydoc *y, const char *name)
{
	size_t mask = y->capanchors - 1, i;

	i = (size_t)XXH3_64bits(name, strlen(name)) & mask;
	while (y->anchors[i].name != NULL && strcmp(y->anchors[i].name, name))
		i = (i + 1) & mask;
	return i;
}

static struct ynode *
ydoc_anchor_get(const struct ydoc *y, const char *name)
{
	if (y->capanchors == 0)
		return NULL;
	return y->anchors[ydoc_anchor_slot(y, name)].node;
}

/* Register anchor name for node (PyYAML: when the node starts). */
static int
ydoc_anchor_put(struct ydoc *y, const char *name, struct ynode *node,
    const yaml_mark_t *m)
{
	struct yanchor *old = y->anchors, *na;
	size_t oldcap = y->capanchors, i, nc, s;
	struct ynode *prev;

	prev = ydoc_anchor_get(y, name);
	if (prev != NULL)
		return ydoc_err(y, "found duplicate anchor; first occurrence",
		    &prev->start, "second occurrence", m);
	if ((y->nanchors + 1) * 2 > y->capanchors) {
		nc = oldcap ? oldcap * 2 : 16;
		if ((na = calloc(nc, sizeof(*na))) == NULL)
			return dbp_fail(y->d, "out of memory");
		y->anchors = na;
		y->capanchors = nc;
		for (i = 0; i < oldcap; i++) {
			if (old[i].name == NULL)
				continue;
			s = ydoc_anchor_slot(y, old[i].name);
			y->anchors[s] = old[i];
		}
		free(old);
	}
	s = ydoc_anchor_slot(y, name);
	if ((y->anchors[s].name = strdup(name)) == NULL)
		return dbp_fail(y->d, "out of memory");
	y->anchors[s].node = node;
	y->nanchors++;
	return 0;
}

static unsigned long
ydoc_sat_add(unsigned long a, unsigned long b)
{
	return a > (unsigned long)-1 - b ? (unsigned long)-1 : a + b;
}

/*
 * Hang a complete node under the open container (or make it the root),
 * keeping the bounds on expansion and depth.  m is where we are, for
 * messages.
 */
static int
ydoc_attach(struct ydoc *y, struct ynode *child, struct ynode **root,
    const yaml_mark_t *m)
{
	struct ynode *p, **ni;
	size_t nc;
	char msg[160];

	if (y->depth + child->height > DBP_MAX_DEPTH) {
		snprintf(msg, sizeof(msg), "the document nests deeper than %d "
		    "levels", DBP_MAX_DEPTH);
		return ydoc_err(y, NULL, NULL, msg, m);
	}
	if (y->depth == 0) {
		*root = child;
		return 0;
	}
	p = y->stack[y->depth - 1];
	if (p->n == p->cap) {
		nc = p->cap ? p->cap * 2 : 4;
		if ((ni = realloc(p->items, nc * sizeof(*ni))) == NULL)
			return dbp_fail(y->d, "out of memory");
		p->items = ni;
		p->cap = nc;
	}
	p->items[p->n++] = child;
	p->size = ydoc_sat_add(p->size, child->size);
	p->bytes = ydoc_sat_add(p->bytes, child->bytes);
	if (child->height + 1 > p->height)
		p->height = child->height + 1;
	if (p->size > (unsigned long)DBP_MAX_NODES) {
		snprintf(msg, sizeof(msg), "the document expands to more than "
		    "%ld nodes (too many aliases?)", (long)DBP_MAX_NODES);
		return ydoc_err(y, NULL, NULL, msg, m);
	}
	if (p->bytes > (unsigned long)DBP_MAX_DOC_BYTES) {
		snprintf(msg, sizeof(msg), "the document expands to more than "
		    "%ld bytes of text (too many aliases?)",
		    (long)DBP_MAX_DOC_BYTES);
		return ydoc_err(y, NULL, NULL, msg, m);
	}
	return 0;
}

/* The tag of a new node from its event's tag (NULL or "!" -> implicit). */
static int
ydoc_set_tag(struct ydoc *y, struct ynode *n, const char *tag,
    int plain_implicit)
{
	if (tag == NULL || strcmp(tag, "!") == 0) {
		if (n->kind == YK_SEQ)
			n->tag = YT_SEQ;
		else if (n->kind == YK_MAP)
			n->tag = YT_MAP;
		else if (plain_implicit)
			n->tag = ydoc_resolve(n->value, n->len);
		else
			n->tag = YT_STR;
		return 0;
	}
	n->tag = ydoc_tag_named(tag);
	if ((n->tagname = strdup(tag)) == NULL)
		return dbp_fail(y->d, "out of memory");
	return 0;
}

/* One node event.  Sets *root when the document's node is complete. */
static int
ydoc_event(struct ydoc *y, const yaml_event_t *ev, struct ynode **root)
{
	const yaml_mark_t *m = &ev->start_mark;
	const unsigned char *anchor = NULL, *tag = NULL;
	struct ynode *n;
	enum ykind kind;
	char msg[160];

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.length > (size_t)DBP_MAX_SCALAR) {
			snprintf(msg, sizeof(msg), "found a scalar longer than "
			    "%ld bytes", (long)DBP_MAX_SCALAR);
			return ydoc_err(y, NULL, NULL, msg, m);
		}
		if (memchr(ev->data.scalar.value, '\0',
		    ev->data.scalar.length) != NULL)
			return ydoc_err(y, NULL, NULL, "found a NUL character "
			    "in a scalar, which is not supported", m);
		if ((n = ydoc_node(y, YK_SCALAR, m)) == NULL)
			return dbp_fail(y->d, "out of memory");
		if ((n->value = malloc(ev->data.scalar.length + 1)) == NULL)
			return dbp_fail(y->d, "out of memory");
		memcpy(n->value, ev->data.scalar.value, ev->data.scalar.length);
		n->value[ev->data.scalar.length] = '\0';
		n->len = ev->data.scalar.length;
		n->bytes = n->len + 1;
		n->done = 1;
		anchor = ev->data.scalar.anchor;
		if (anchor != NULL &&
		    ydoc_anchor_put(y, (const char *)anchor, n, m) == -1)
			return -1;
		if (ydoc_set_tag(y, n, (const char *)ev->data.scalar.tag,
		    ev->data.scalar.plain_implicit) == -1)
			return -1;
		return ydoc_attach(y, n, root, m);
	case YAML_ALIAS_EVENT:
		n = ydoc_anchor_get(y, (const char *)ev->data.alias.anchor);
		if (n == NULL)
			return ydoc_err(y, NULL, NULL, "found undefined alias",
			    m);
		if (!n->done)
			return ydoc_err(y, NULL, NULL,
			    "found a recursive alias "
			    "(an alias inside its own anchor)", m);
		if (++y->naliases > DBP_MAX_ALIASES) {
			snprintf(msg, sizeof(msg), "the document has more than "
			    "%d aliases", DBP_MAX_ALIASES);
			return ydoc_err(y, NULL, NULL, msg, m);
		}
		return ydoc_attach(y, n, root, m);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (y->depth == DBP_MAX_DEPTH) {
			snprintf(msg, sizeof(msg), "the document nests deeper "
			    "than %d levels", DBP_MAX_DEPTH);
			return ydoc_err(y, NULL, NULL, msg, m);
		}
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			kind = YK_SEQ;
			anchor = ev->data.sequence_start.anchor;
			tag = ev->data.sequence_start.tag;
		} else {
			kind = YK_MAP;
			anchor = ev->data.mapping_start.anchor;
			tag = ev->data.mapping_start.tag;
		}
		if ((n = ydoc_node(y, kind, m)) == NULL)
			return dbp_fail(y->d, "out of memory");
		if (anchor != NULL &&
		    ydoc_anchor_put(y, (const char *)anchor, n, m) == -1)
			return -1;
		if (ydoc_set_tag(y, n, (const char *)tag, 0) == -1)
			return -1;
		y->stack[y->depth++] = n;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (y->depth == 0)
			return dbp_fail(y->d, "unbalanced YAML events");
		n = y->stack[--y->depth];
		n->done = 1;
		return ydoc_attach(y, n, root, m);
	default:
		return dbp_fail(y->d, "unexpected YAML event %d", ev->type);
	}
}

/* Next event into ev; -1 with the parser's message. */
static int
ydoc_next(struct ydoc *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->parser, ev))
		return ydoc_parser_err(y);
	return 0;
}

/* The one document of the stream as a node graph; *root NULL when the
 * stream has no document. */
static int
ydoc_compose(struct ydoc *y, struct ynode **root)
{
	yaml_event_t ev;
	int rc;

	*root = NULL;
	if (ydoc_next(y, &ev) == -1)			/* stream start */
		return -1;
	yaml_event_delete(&ev);
	if (ydoc_next(y, &ev) == -1)
		return -1;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return 0;
	}
	yaml_event_delete(&ev);			/* document start */
	while (*root == NULL) {
		if (ydoc_next(y, &ev) == -1)
			return -1;
		rc = ydoc_event(y, &ev, root);
		yaml_event_delete(&ev);
		if (rc == -1)
			return -1;
	}
	if (ydoc_next(y, &ev) == -1)			/* document end */
		return -1;
	yaml_event_delete(&ev);
	if (ydoc_next(y, &ev) == -1)
		return -1;
	if (ev.type != YAML_STREAM_END_EVENT) {
		ydoc_err(y, "expected a single document in the stream",
		    &(*root)->start, "but found another document",
		    &ev.start_mark);
		yaml_event_delete(&ev);
		return -1;
	}
	yaml_event_delete(&ev);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Construct: node graph -> cJSON                                       */

static const char *
ydoc_kind_name(enum ykind k)
{
	return k == YK_SCALAR ? "scalar" : k == YK_SEQ ? "sequence" :
	    "mapping";
}

/* "could not determine a constructor for the tag '...'" */
static int
ydoc_no_constructor(struct ydoc *y, const struct ynode *n)
{
	const char *tag;
	char *r, msg[512];

	switch (n->tag) {
	case YT_MERGE:
		tag = YDOC_TAG "merge";
		break;
	case YT_VALUE:
		tag = YDOC_TAG "value";
		break;
	default:
		tag = n->tagname != NULL ? n->tagname : "?";
		break;
	}
	r = dbp_pyrepr_str(tag);
	if (n->tag == YT_KNOWN)
		snprintf(msg, sizeof(msg), "the tag %.400s is not supported",
		    r != NULL ? r : "?");
	else
		snprintf(msg, sizeof(msg), "could not determine a constructor "
		    "for the tag %.400s", r != NULL ? r : "?");
	free(r);
	return ydoc_err(y, NULL, NULL, msg, &n->start);
}

/* Days in month m of year yr. */
static int
ydoc_mdays(int yr, int m)
{
	static const int days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	if (m == 2 && ((yr % 4 == 0 && yr % 100 != 0) || yr % 400 == 0))
		return 29;
	return days[m - 1];
}

/* construct_yaml_timestamp, spelled as Python's str() of the result. */
static int
ydoc_ts_text(struct ydoc *y, const struct ynode *n, char *out, size_t sz)
{
	struct yts t;
	const char *why = NULL;
	size_t k;
	int off;

	if (ydoc_ts_parse(n->value, n->len, &t) == -1)
		return ydoc_err(y, NULL, NULL, "not a timestamp", &n->start);
	if (t.year < 1)
		why = "year 0 is out of range";
	else if (t.month < 1 || t.month > 12)
		why = "month must be in 1..12";
	else if (t.day < 1 || t.day > ydoc_mdays(t.year, t.month))
		why = "day is out of range for month";
	else if (t.has_time && t.hour > 23)
		why = "hour must be in 0..23";
	else if (t.has_time && t.minute > 59)
		why = "minute must be in 0..59";
	else if (t.has_time && t.second > 59)
		why = "second must be in 0..59";
	else if (t.tz == 2 && abs(t.tz_minutes) >= 24 * 60)
		why = "offset must be a timedelta strictly between "
		    "-timedelta(hours=24) and timedelta(hours=24)";
	if (why != NULL)
		return ydoc_err(y, NULL, NULL, why, &n->start);
	k = (size_t)snprintf(out, sz, "%04d-%02d-%02d", t.year, t.month,
	    t.day);
	if (!t.has_time)
		return 0;
	k += (size_t)snprintf(out + k, sz - k, " %02d:%02d:%02d", t.hour,
	    t.minute, t.second);
	if (t.micro != 0)
		k += (size_t)snprintf(out + k, sz - k, ".%06ld", t.micro);
	if (t.tz != 0) {
		off = t.tz == 2 ? t.tz_minutes : 0;
		snprintf(out + k, sz - k, "%c%02d:%02d", off < 0 ? '-' : '+',
		    abs(off) / 60, abs(off) % 60);
	}
	return 0;
}

/* The spelling of an integer already in canonical decimal, the common
 * case ("12", "-7", "+3" -> "3", "-0" -> "0"), or NULL. */
static const char *
ydoc_small_decimal(const char *v)
{
	const char *d = v;
	size_t n;

	if (*d == '+' || *d == '-')
		d++;
	if (strcmp(d, "0") == 0)
		return d;
	n = strspn(d, YDEC);
	if (n == 0 || n > 18 || d[n] != '\0' || d[0] == '0')
		return NULL;
	return *v == '+' ? v + 1 : v;
}

/* The value of a spelling ydoc_small_decimal returned: what strtod
 * gives, without its cost (strtod was 2.5% of a build's parsing).  At
 * most 18 digits fit a uint64_t exactly, and converting it rounds once,
 * to nearest, as strtod rounds the decimal. */
static double
ydoc_small_value(const char *t)
{
	uint64_t u = 0;
	int neg = *t == '-';

	for (t += neg; *t >= '0' && *t <= '9'; t++)
		u = u * 10 + (uint64_t)(*t - '0');
	return neg ? -(double)u : (double)u;
}

/* A scalar node as cJSON (*out); -1 with the message. */
static int
ydoc_scalar(struct ydoc *y, const struct ynode *n, int as_key, cJSON **out)
{
	static const char *const truth[] = { "yes", "true", "on" };
	static const char *const lie[] = { "no", "false", "off" };
	char low[8], ts[64], fr[DBP_FLOAT_REPR_MAX], *r, msg[512];
	const char *t;
	struct dbp_buf b;
	double v = 0;
	size_t i;

	*out = NULL;
	switch (n->tag) {
	case YT_VALUE:
		/* flatten_mapping makes a "=" key a str; a value has no
		 * constructor. */
		if (!as_key)
			return ydoc_no_constructor(y, n);
		/* FALLTHROUGH */
	case YT_STR:
		*out = ydoc_string(y, n->value);
		break;
	case YT_NULL:
		*out = ydoc_jnode(y, cJSON_NULL);
		break;
	case YT_BOOL:
		low[0] = '\0';
		if (n->len < sizeof(low)) {
			for (i = 0; i <= n->len; i++)
				low[i] = (char)tolower(
				    (unsigned char)n->value[i]);
		}
		for (i = 0; i < 3 && *out == NULL; i++) {
			if (strcmp(low, truth[i]) == 0)
				*out = ydoc_jnode(y, cJSON_True);
			else if (strcmp(low, lie[i]) == 0)
				*out = ydoc_jnode(y, cJSON_False);
		}
		if (*out != NULL)
			break;
		r = dbp_pyrepr_str(n->value);
		snprintf(msg, sizeof(msg), "not a boolean: %.400s",
		    r != NULL ? r : "?");
		free(r);
		return ydoc_err(y, NULL, NULL, msg, &n->start);
	case YT_INT:
		if ((t = ydoc_small_decimal(n->value)) != NULL) {
			*out = ydoc_number(y, ydoc_small_value(t), t);
			break;
		}
		dbp_buf_init(&b, DBP_MAX_INT_DIGITS + 2);
		if (ydoc_int_text(y, n, &b) == -1) {
			dbp_buf_release(&b);
			return -1;
		}
		*out = ydoc_number(y, strtod(b.ptr, NULL), b.ptr);
		dbp_buf_release(&b);
		break;
	case YT_FLOAT:
		if (ydoc_float_value(y, n, &v) == -1)
			return -1;
		*out = ydoc_number(y, v, ydoc_float_json(v, n->value, fr));
		break;
	case YT_TIMESTAMP:
		if (ydoc_ts_text(y, n, ts, sizeof(ts)) == -1)
			return -1;
		*out = ydoc_string(y, ts);
		break;
	case YT_SEQ:
	case YT_MAP:
		snprintf(msg, sizeof(msg), "expected a %s node, but found "
		    "scalar", n->tag == YT_SEQ ? "sequence" : "mapping");
		return ydoc_err(y, NULL, NULL, msg, &n->start);
	default:
		return ydoc_no_constructor(y, n);
	}
	if (*out == NULL)
		return dbp_fail(y->d, "out of memory");
	return 0;
}

/* Python str() of a scalar key, malloc'd. */
static char *
ydoc_key_text(const cJSON *k)
{
	const char *t;

	if (cJSON_IsString(k))
		return strdup(k->valuestring);
	if (cJSON_IsNumber(k)) {
		t = dbp_num_text(k);
		if (strcmp(t, "Infinity") == 0)
			t = "inf";
		else if (strcmp(t, "-Infinity") == 0)
			t = "-inf";
		else if (strcmp(t, "NaN") == 0)
			t = "nan";
		return strdup(t);
	}
	if (cJSON_IsTrue(k))
		return strdup("True");
	if (cJSON_IsFalse(k))
		return strdup("False");
	return strdup("None");
}

static int
ydoc_pairs_add(struct ydoc *y, struct ypairs *ps, const struct ynode *k,
    const struct ynode *v)
{
	struct ypair *np;
	size_t nc;

	if (ps->n == ps->cap) {
		nc = ps->cap ? ps->cap * 2 : 8;
		if ((np = realloc(ps->p, nc * sizeof(*np))) == NULL)
			return dbp_fail(y->d, "out of memory");
		ps->p = np;
		ps->cap = nc;
	}
	ps->p[ps->n].key = k;
	ps->p[ps->n].value = v;
	ps->n++;
	return 0;
}

/*
 * SafeConstructor.flatten_mapping, without changing the graph: the pairs
 * of every merged mapping first (a list of them in reverse order), then
 * m's own pairs.  Recursion follows merge values, each lower than m.
 */
static int
ydoc_flatten(struct ydoc *y, const struct ynode *m, struct ypairs *ps)
{
	const struct ynode *k, *v, *s;
	size_t i, j;
	char msg[160];

	for (i = 0; i + 1 < m->n; i += 2) {
		k = m->items[i];
		v = m->items[i + 1];
		if (k->kind != YK_SCALAR || k->tag != YT_MERGE)
			continue;
		if (v->kind == YK_MAP) {
			if (ydoc_flatten(y, v, ps) == -1)
				return -1;
		} else if (v->kind == YK_SEQ) {
			for (j = 0; j < v->n; j++) {
				s = v->items[j];
				if (s->kind == YK_MAP)
					continue;
				snprintf(msg, sizeof(msg), "expected a mapping "
				    "for merging, but found %s",
				    ydoc_kind_name(s->kind));
				return ydoc_err(y,
				    "while constructing a mapping",
				    &m->start, msg, &s->start);
			}
			for (j = v->n; j > 0; j--)
				if (ydoc_flatten(y, v->items[j - 1], ps) == -1)
					return -1;
		} else {
			snprintf(msg, sizeof(msg), "expected a mapping or list "
			    "of mappings for merging, but found %s",
			    ydoc_kind_name(v->kind));
			return ydoc_err(y, "while constructing a mapping",
			    &m->start, msg, &v->start);
		}
	}
	for (i = 0; i + 1 < m->n; i += 2) {
		k = m->items[i];
		if (k->kind == YK_SCALAR && k->tag == YT_MERGE)
			continue;
		if (ydoc_pairs_add(y, ps, k, m->items[i + 1]) == -1)
			return -1;
	}
	return 0;
}

static int ydoc_build(struct ydoc *, const struct ynode *, cJSON **);

/* Key -> member table of one object under construction. */
struct ykeys {
	cJSON		**slot;
	size_t		  mask;
};

/* The member named key, or the empty slot where it goes. */
static cJSON **
ydoc_keys_find(struct ykeys *t, const char *key)
{
	size_t i;

	i = (size_t)XXH3_64bits(key, strlen(key)) & t->mask;
	while (t->slot[i] != NULL && strcmp(t->slot[i]->string, key) != 0)
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

static int
ydoc_build_map(struct ydoc *y, const struct ynode *m, cJSON *obj)
{
	struct ypairs ps = { NULL, 0, 0 };
	struct ykeys t = { NULL, 0 };
	cJSON *kv = NULL, *val = NULL, **slot;
	size_t i, cap;
	char *key = NULL;
	int rc = -1;

	if (ydoc_flatten(y, m, &ps) == -1)
		goto out;
	for (cap = 16; cap < ps.n * 2; cap *= 2)
		;
	if ((t.slot = calloc(cap, sizeof(*t.slot))) == NULL) {
		dbp_fail(y->d, "out of memory");
		goto out;
	}
	t.mask = cap - 1;
	for (i = 0; i < ps.n; i++) {
		if (ps.p[i].key->kind != YK_SCALAR) {
			ydoc_err(y, "while constructing a mapping", &m->start,
			    "found unhashable key", &ps.p[i].key->start);
			goto out;
		}
		if (ydoc_scalar(y, ps.p[i].key, 1, &kv) == -1)
			goto out;
		key = ydoc_key_text(kv);
		cJSON_Delete(kv);
		kv = NULL;
		if (key == NULL) {
			dbp_fail(y->d, "out of memory");
			goto out;
		}
		if (ydoc_build(y, ps.p[i].value, &val) == -1)
			goto out;
		slot = ydoc_keys_find(&t, key);
		val->string = key;
		key = NULL;
		if (*slot == NULL) {
			cJSON_AddItemToArray(obj, val);
		} else {
			/* A Python dict: the later value, the first place. */
			cJSON_ReplaceItemViaPointer(obj, *slot, val);
		}
		*slot = val;
		val = NULL;
	}
	rc = 0;
out:
	free(key);
	free(ps.p);
	free(t.slot);
	return rc;
}

/* The cJSON value of node n (*out, caller frees). */
static int
ydoc_build(struct ydoc *y, const struct ynode *n, cJSON **out)
{
	cJSON *c = NULL, *item;
	size_t i;
	char msg[160];

	*out = NULL;
	if (n->kind == YK_SCALAR)
		return ydoc_scalar(y, n, 0, out);
	if (n->tag != YT_SEQ && n->tag != YT_MAP) {
		if (n->tag == YT_KNOWN || n->tag == YT_OTHER)
			return ydoc_no_constructor(y, n);
		snprintf(msg, sizeof(msg), "expected a scalar node, but found "
		    "%s", ydoc_kind_name(n->kind));
		return ydoc_err(y, NULL, NULL, msg, &n->start);
	}
	if ((n->tag == YT_SEQ) != (n->kind == YK_SEQ)) {
		snprintf(msg, sizeof(msg), "expected a %s node, but found %s",
		    n->tag == YT_SEQ ? "sequence" : "mapping",
		    ydoc_kind_name(n->kind));
		return ydoc_err(y, NULL, NULL, msg, &n->start);
	}
	if (n->kind == YK_SEQ) {
		if ((c = cJSON_CreateArray()) == NULL)
			return dbp_fail(y->d, "out of memory");
		for (i = 0; i < n->n; i++) {
			if (ydoc_build(y, n->items[i], &item) == -1) {
				cJSON_Delete(c);
				return -1;
			}
			cJSON_AddItemToArray(c, item);
		}
	} else {
		if ((c = cJSON_CreateObject()) == NULL)
			return dbp_fail(y->d, "out of memory");
		if (ydoc_build_map(y, n, c) == -1) {
			cJSON_Delete(c);
			return -1;
		}
	}
	*out = c;
	return 0;
}

/* ------------------------------------------------------------------ */
/* One pass: events straight into cJSON                                 */

/*
 * Print files use no anchors, aliases, merge keys or explicit tags.  For
 * such a document the graph of the exact path is not needed: each event
 * goes straight into the cJSON tree, each scalar built by the constructor
 * the exact path uses (ydoc_scalar), a duplicate key replacing the
 * earlier value in place as ydoc_build_map does.  Anything else - an
 * anchor, an alias, a tag, a "<<" key, a key that is not a scalar, a
 * bound approached, any error at all - abandons the attempt (YF_BAIL) and
 * the exact path parses the document again: it alone words the errors,
 * in PyYAML's order.  A one-pass success is therefore always the tree the
 * exact path builds (tests/unit/test_ydoc_fast.c checks both agree).
 */
#define YF_BAIL		(-2)
/* A dbp_ystream callback stopped the parse with an error. */
#define YF_STOP		(-3)
/* Members of a mapping searched one by one for a duplicate key; a larger
 * mapping gets a hash table (struct ykeys). */
#define YF_LINEAR	16

struct yflevel {
	cJSON		*c;	/* the open container */
	char		*key;	/* a mapping's key awaiting its value */
	struct ykeys	 t;	/* slots, once c has more than YF_LINEAR */
	size_t		 n;	/* members of c */
	int		 streamed;	/* the dbp_ystream member: entries go
					 * to its fn, not into c */
};

struct yfast {
	struct dbp_arena	*arena;	/* the tree's, or NULL: malloc'd */
	struct ydoc		*y;
	struct dbp_ystream	*s;	/* or NULL */
	struct dbp_arena	 scratch;	/* a streamed entry's nodes */
	int			 opened;	/* s's member was opened */
	struct yflevel	 lv[DBP_MAX_DEPTH];
	int		 depth;
	unsigned long	 nodes;	/* as the exact path counts them */
	unsigned long	 bytes;
};

/* (Re)build level l's key table with room for twice its members. */
static int
ydoc_fast_rehash(struct yflevel *l)
{
	cJSON *c;
	size_t cap;

	for (cap = 64; cap < l->n * 4; cap *= 2)
		;
	free(l->t.slot);
	if ((l->t.slot = calloc(cap, sizeof(*l->t.slot))) == NULL)
		return -1;
	l->t.mask = cap - 1;
	for (c = l->c->child; c != NULL; c = c->next)
		*ydoc_keys_find(&l->t, c->string) = c;
	return 0;
}

/* What a dbp_ystream callback's 0, 1 or -1 means to the one-pass path. */
static int
ydoc_fast_said(int rc)
{
	return rc == 0 ? 0 : rc == 1 ? YF_BAIL : YF_STOP;
}

/* A complete entry v of the streamed member (level l) to its fn; its
 * nodes go with the scratch arena.  0, YF_BAIL or YF_STOP. */
static int
ydoc_fast_entry(struct yfast *f, struct yflevel *l, cJSON *v)
{
	int rc;

	v->string = l->key;
	l->key = NULL;
	rc = f->s->fn(f->s->arg, v->string, v);
	dbp_arena_reset(&f->scratch);
	f->y->arena = f->arena;
	return ydoc_fast_said(rc);
}

/* Hang the complete value v (owned) under the open container, or make it
 * the root.  0, YF_BAIL (v freed) or YF_STOP. */
static int
ydoc_fast_put(struct yfast *f, cJSON *v, cJSON **root)
{
	struct yflevel *l;
	cJSON *c, **slot = NULL;

	if (f->depth == 0) {
		*root = v;
		return 0;
	}
	l = &f->lv[f->depth - 1];
	if (dbp_jis(l->c, cJSON_Array)) {
		cJSON_AddItemToArray(l->c, v);
		return 0;
	}
	if (l->streamed)
		return ydoc_fast_entry(f, l, v);
	v->string = l->key;
	l->key = NULL;
	if (l->t.slot != NULL) {
		slot = ydoc_keys_find(&l->t, v->string);
		c = *slot;
	} else
		for (c = l->c->child; c != NULL; c = c->next)
			if (c->string[0] == v->string[0] &&
			    strcmp(c->string, v->string) == 0)
				break;
	if (c != NULL && f->opened && f->depth == 1)
		return YF_BAIL;	/* the root was streamed past that key */
	if (c != NULL) {
		/* A Python dict: the later value, the first place.  In an
		 * arena nothing is freed, so v's contents move into c's node
		 * (keeping its links); v's node stays behind unused. */
		if (f->arena != NULL) {
			v->next = c->next;
			v->prev = c->prev;
			*c = *v;
			return 0;
		}
		cJSON_ReplaceItemViaPointer(l->c, c, v);
		if (slot != NULL)
			*slot = v;
		return 0;
	}
	cJSON_AddItemToArray(l->c, v);
	l->n++;
	if (slot != NULL)
		*slot = v;
	if ((slot != NULL && l->n * 2 > l->t.mask + 1) ||
	    (slot == NULL && l->n > YF_LINEAR))
		return ydoc_fast_rehash(l) == -1 ? YF_BAIL : 0;
	return 0;
}

/* An entry of the streamed member starts with this event: build it in
 * the scratch arena (ydoc_fast_entry puts the tree's back). */
static void
ydoc_fast_scratch(struct ydoc *y, struct yfast *f)
{
	if (f->depth == 2 && f->lv[1].streamed)
		y->arena = &f->scratch;
}

/* A scalar event: the key of the open mapping, or a value to hang. */
static int
ydoc_fast_scalar(struct ydoc *y, struct yfast *f, const yaml_event_t *ev,
    cJSON **root)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	struct yflevel *l;
	struct ynode n;
	cJSON *v = NULL;

	if (ev->data.scalar.anchor != NULL ||
	    (tag != NULL && strcmp(tag, "!") != 0) ||
	    ev->data.scalar.length > (size_t)DBP_MAX_SCALAR)
		return YF_BAIL;
	memset(&n, 0, sizeof(n));
	n.kind = YK_SCALAR;
	n.value = (char *)ev->data.scalar.value;
	n.len = ev->data.scalar.length;
	n.start = ev->start_mark;
	if (memchr(n.value, '\0', n.len) != NULL)
		return YF_BAIL;
	if (++f->nodes > (unsigned long)DBP_MAX_NODES)
		return YF_BAIL;
	ydoc_fast_scratch(y, f);
	f->bytes += n.len + 1;
	if (f->bytes > (unsigned long)DBP_MAX_DOC_BYTES)
		return YF_BAIL;
	n.tag = ev->data.scalar.plain_implicit ? ydoc_resolve(n.value, n.len) :
	    YT_STR;
	l = f->depth > 0 ? &f->lv[f->depth - 1] : NULL;
	if (l != NULL && dbp_jis(l->c, cJSON_Object) && l->key == NULL) {
		/* A key: its Python str(). */
		if (n.tag == YT_STR || n.tag == YT_VALUE)
			l->key = ydoc_strdup(y, n.value);
		else if (n.tag == YT_MERGE || ydoc_scalar(y, &n, 1, &v) == -1)
			return YF_BAIL;
		else {
			l->key = ydoc_key_text(v);
			if (y->arena == NULL)
				cJSON_Delete(v);
			else if (l->key != NULL) {
				char *k = l->key;

				l->key = dbp_arena_strdup(y->arena, k);
				free(k);
			}
		}
		if (l->key == NULL)
			return YF_BAIL;
		/* The streamed member again: the later would replace it. */
		if (f->opened && f->depth == 1 &&
		    strcmp(l->key, f->s->member) == 0)
			return YF_BAIL;
		return 0;
	}
	if (n.tag == YT_MERGE || n.tag == YT_VALUE ||
	    ydoc_scalar(y, &n, 0, &v) == -1)
		return YF_BAIL;
	return ydoc_fast_put(f, v, root);
}

/* One node event. */
static int
ydoc_fast_event(struct ydoc *y, struct yfast *f, const yaml_event_t *ev,
    cJSON **root)
{
	const unsigned char *anchor, *tag;
	struct yflevel *l;
	cJSON *c;
	int rc;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return ydoc_fast_scalar(y, f, ev, root);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			anchor = ev->data.sequence_start.anchor;
			tag = ev->data.sequence_start.tag;
		} else {
			anchor = ev->data.mapping_start.anchor;
			tag = ev->data.mapping_start.tag;
		}
		if (anchor != NULL || (tag != NULL &&
		    strcmp((const char *)tag, "!") != 0) ||
		    f->depth >= DBP_MAX_DEPTH ||
		    ++f->nodes > (unsigned long)DBP_MAX_NODES)
			return YF_BAIL;
		/* A container as a key is unhashable: the exact path says. */
		l = f->depth > 0 ? &f->lv[f->depth - 1] : NULL;
		if (l != NULL && dbp_jis(l->c, cJSON_Object) && l->key == NULL)
			return YF_BAIL;
		ydoc_fast_scratch(y, f);
		c = ydoc_jnode(y, ev->type == YAML_SEQUENCE_START_EVENT ?
		    cJSON_Array : cJSON_Object);
		if (c == NULL)
			return YF_BAIL;
		l = &f->lv[f->depth++];
		memset(l, 0, sizeof(*l));
		l->c = c;
		if (f->s != NULL && f->depth == 2 && !f->opened &&
		    dbp_jis(c, cJSON_Object) &&
		    dbp_jis(f->lv[0].c, cJSON_Object) &&
		    strcmp(f->lv[0].key, f->s->member) == 0) {
			l->streamed = f->opened = 1;
			if (f->s->begin != NULL) {
				rc = f->s->begin(f->s->arg, f->lv[0].c);
				return ydoc_fast_said(rc);
			}
		}
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (f->depth == 0)
			return YF_BAIL;
		l = &f->lv[--f->depth];
		c = l->c;
		free(l->t.slot);
		if (f->arena == NULL)
			free(l->key);
		memset(l, 0, sizeof(*l));
		return ydoc_fast_put(f, c, root);
	default:
		return YF_BAIL;	/* an alias */
	}
}

/* The document in one pass into *out (caller frees), or YF_BAIL or
 * YF_STOP with nothing kept; s streams a member (dbp_ydoc_parse_stream),
 * or is NULL. */
static int
ydoc_fast(struct ydoc *y, struct dbp_ystream *s, cJSON **out)
{
	struct yfast *f;
	yaml_event_t ev;
	cJSON *root = NULL;
	int rc = YF_BAIL, erc, i, step = 0;

	*out = NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return YF_BAIL;
	f->arena = y->arena;
	f->y = y;
	f->s = y->arena != NULL ? s : NULL;
	/* stream start, document start or stream end, the node events,
	 * document end, stream end */
	for (;;) {
		if (!yaml_parser_parse(&y->parser, &ev))
			goto out;
		if (step == 0) {
			step = 1;
		} else if (step == 1) {
			if (ev.type == YAML_STREAM_END_EVENT) {
				yaml_event_delete(&ev);
				root = ydoc_jnode(y, cJSON_NULL);
				rc = root != NULL ? 0 : YF_BAIL;
				goto out;
			}
			step = 2;
		} else if (step == 2) {
			if ((erc = ydoc_fast_event(y, f, &ev, &root)) != 0) {
				if (erc == YF_STOP)
					rc = YF_STOP;
				yaml_event_delete(&ev);
				goto out;
			}
			if (root != NULL)
				step = 3;
		} else if (step == 3) {
			step = 4;
		} else {
			rc = ev.type == YAML_STREAM_END_EVENT ? 0 : YF_BAIL;
			yaml_event_delete(&ev);
			goto out;
		}
		yaml_event_delete(&ev);
	}
out:
	/* On a bail, an arena's tree goes with the arena (the caller's). */
	for (i = f->depth - 1; i >= 0; i--) {
		if (f->arena == NULL) {
			cJSON_Delete(f->lv[i].c);
			free(f->lv[i].key);
		}
		free(f->lv[i].t.slot);
	}
	dbp_arena_free(&f->scratch);
	y->arena = f->arena;
	if (rc == 0 && f->s != NULL)
		f->s->streamed = f->opened;
	free(f);
	if (rc == 0)
		*out = root;
	else if (y->arena == NULL)
		cJSON_Delete(root);
	return rc;
}

/* ------------------------------------------------------------------ */

/* Set up y's parser on buf[0..len) as PyYAML's CParser reads text. */
static int
ydoc_start(struct ydoc *y, const char *buf, size_t len)
{
	if (!yaml_parser_initialize(&y->parser))
		return dbp_fail(y->d, "out of memory");
	/* UTF-8, no guessing.  A leading byte-order mark is skipped, as
	 * PyYAML's reader does; with the encoding set, libyaml would read it
	 * as content. */
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	yaml_parser_set_input_string(&y->parser, (const unsigned char *)buf,
	    len);
	yaml_parser_set_encoding(&y->parser, YAML_UTF8_ENCODING);
	return 0;
}

/* dbp_ydoc_parse; the one-pass path first unless exact, into arena a
 * when given (see dbp_ydoc_parse_arena), streaming s's member when s is
 * given (dbp_ydoc_parse_stream). */
static cJSON *
ydoc_parse(const char *buf, size_t len, int exact, struct dbp_arena *a,
    struct dbp_ystream *s, struct dbp_diag *d)
{
	struct ydoc y;
	struct ynode *root = NULL;
	cJSON *out = NULL;
	int rc;

	memset(&y, 0, sizeof(y));
	y.d = d;
	if (len > (size_t)DBP_MAX_FILE_BYTES) {
		dbp_fail(d, "the document is over %ld bytes",
		    (long)DBP_MAX_FILE_BYTES);
		return NULL;
	}
	if (!exact) {
		if (ydoc_start(&y, buf, len) == -1)
			return NULL;
		y.arena = a;
		if ((rc = ydoc_fast(&y, s, &out)) == 0) {
			yaml_parser_delete(&y.parser);
			return out;
		}
		yaml_parser_delete(&y.parser);
		if (rc == YF_STOP) {
			dbp_arena_free(a);
			s->streamed = -1;
			return NULL;
		}
		/* The exact path builds its tree with malloc. */
		dbp_arena_free(a);
		y.arena = NULL;
	}
	if (ydoc_start(&y, buf, len) == -1)
		return NULL;
	if (ydoc_compose(&y, &root) == -1)
		goto out;
	if (root == NULL) {
		if ((out = cJSON_CreateNull()) == NULL)
			dbp_fail(d, "out of memory");
		goto out;
	}
	if (ydoc_build(&y, root, &out) == -1)
		out = NULL;
out:
	yaml_parser_delete(&y.parser);
	ydoc_free_nodes(&y);
	return out;
}

cJSON *
dbp_ydoc_parse(const char *buf, size_t len, struct dbp_diag *d)
{
	return ydoc_parse(buf, len, 0, NULL, NULL, d);
}

cJSON *
dbp_ydoc_parse_arena(const char *buf, size_t len, struct dbp_arena *a,
    struct dbp_diag *d)
{
	return ydoc_parse(buf, len, 0, a, NULL, d);
}

cJSON *
dbp_ydoc_parse_stream(const char *buf, size_t len, struct dbp_arena *a,
    struct dbp_ystream *s, struct dbp_diag *d)
{
	s->streamed = 0;
	return ydoc_parse(buf, len, 0, a, s, d);
}

cJSON *
dbp_ydoc_parse_exact(const char *buf, size_t len, struct dbp_diag *d)
{
	return ydoc_parse(buf, len, 1, NULL, NULL, d);
}

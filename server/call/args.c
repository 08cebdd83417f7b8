/*
 * args.c - a tools/call's arguments checked against the tool's own
 * advertised inputSchema before the tool body sees them (spec 8.2), with
 * the detail sentences the spec and the upstream server use.
 *
 * The schemas use a small part of JSON Schema: an object with
 * additionalProperties false, properties of type string or boolean, with
 * minLength and enum, and required.  The first fault in the order the
 * upstream validator reports them wins: faults about the whole object
 * (unknown key, then missing key), then per property in name order,
 * type before minLength and enum.  Values are shown as Python repr().
 */
#define _POSIX_C_SOURCE	200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* Longest number token whose spelling we keep. */
#define ARGS_NUM_MAX	64

static int
args_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted property names of schema as a Python list repr; malloc'd. */
static char *
args_accepted(const cJSON *props)
{
	const cJSON *p;
	const char **names;
	size_t n = 0, i = 0;
	char *out;

	cJSON_ArrayForEach(p, props)
		n++;
	if ((names = calloc(n + 1, sizeof(*names))) == NULL)
		return NULL;
	cJSON_ArrayForEach(p, props)
		names[i++] = p->string;
	qsort(names, n, sizeof(*names), args_cmp_str);
	out = srv_repr_list(names, n);
	free(names);
	return out;
}

/* Python repr of an enum list, in declared order; malloc'd. */
static char *
args_enum_repr(const cJSON *en)
{
	const cJSON *e;
	const char **names;
	size_t n = 0, i = 0;
	char *out;

	cJSON_ArrayForEach(e, en)
		n++;
	if ((names = calloc(n + 1, sizeof(*names))) == NULL)
		return NULL;
	cJSON_ArrayForEach(e, en)
		if (cJSON_IsString(e))
			names[i++] = e->valuestring;
	out = srv_repr_list(names, i);
	free(names);
	return out;
}

/* Set *detail to "<key> <repr> <tail>" and return -1. */
static int
args_fault(char **detail, const char *key, const cJSON *v, const char *tail)
{
	struct dbp_buf b;
	char *r;

	r = dbp_pyrepr(v);
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	dbp_buf_addf(&b, "%s %s %s", key, r != NULL ? r : "?", tail);
	free(r);
	*detail = dbp_buf_take(&b);
	return -1;
}

/* Lower-case an ASCII-folding string value in place. */
static void
args_fold(cJSON *args, const char *key)
{
	cJSON *v;
	char *p;

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return;
	for (p = v->valuestring; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
}

/* Number of code points of a UTF-8 string. */
static size_t
args_chars(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Check one property value against its schema. */
static int
args_prop(const char *key, const cJSON *v, const cJSON *ps, char **detail)
{
	const cJSON *type, *minlen, *en, *e;
	char tail[64];
	char *list;
	int ok;

	type = cJSON_GetObjectItemCaseSensitive(ps, "type");
	if (cJSON_IsString(type)) {
		if (strcmp(type->valuestring, "string") == 0)
			ok = cJSON_IsString(v);
		else if (strcmp(type->valuestring, "boolean") == 0)
			ok = cJSON_IsBool(v);
		else if (strcmp(type->valuestring, "object") == 0)
			ok = cJSON_IsObject(v);
		else
			ok = 1;
		if (!ok) {
			snprintf(tail, sizeof(tail), "must be of type %s.",
			    type->valuestring);
			return args_fault(detail, key, v, tail);
		}
	}
	minlen = cJSON_GetObjectItemCaseSensitive(ps, "minLength");
	if (cJSON_IsNumber(minlen) && cJSON_IsString(v) &&
	    args_chars(v->valuestring) < (size_t)minlen->valuedouble)
		return args_fault(detail, key, v, "must be a non-empty string.");
	en = cJSON_GetObjectItemCaseSensitive(ps, "enum");
	if (cJSON_IsArray(en)) {
		cJSON_ArrayForEach(e, en)
			if (cJSON_Compare(e, v, 1))
				return 0;
		list = args_enum_repr(en);
		{
			struct dbp_buf b;
			char *r = dbp_pyrepr(v);

			dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
			dbp_buf_addf(&b, "%s %s must be one of %s.", key,
			    r != NULL ? r : "?", list != NULL ? list : "[]");
			free(r);
			*detail = dbp_buf_take(&b);
		}
		free(list);
		return -1;
	}
	return 0;
}

int
args_check(size_t tool, cJSON *args, char **detail)
{
	const cJSON *schema, *props, *req, *r, *ps;
	const char *name = srv_tools[tool].name;
	const char **keys = NULL, *unknown = NULL;
	cJSON *a;
	char *acc;
	size_t n = 0, i;
	int rc = 0;

	*detail = NULL;
	schema = tools_schema(tool);
	props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	if (!cJSON_IsObject(args)) {
		return args_fault(detail, "arguments", args,
		    "must be of type object.");
	}
	args_fold(args, "format");
	args_fold(args, "purpose");

	/* The whole object: the first unknown key (sorted), then required. */
	cJSON_ArrayForEach(a, args)
		if (cJSON_GetObjectItemCaseSensitive(props, a->string) == NULL &&
		    (unknown == NULL || strcmp(a->string, unknown) < 0))
			unknown = a->string;
	if (unknown != NULL) {
		struct dbp_buf b;
		char *ur = dbp_pyrepr_str(unknown);

		acc = args_accepted(props);
		dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
		dbp_buf_addf(&b, "%s takes no argument %s. Accepted: %s.",
		    name, ur != NULL ? ur : "?", acc != NULL ? acc : "[]");
		free(ur);
		free(acc);
		*detail = dbp_buf_take(&b);
		return -1;
	}
	req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	cJSON_ArrayForEach(r, req) {
		if (!cJSON_IsString(r) || cJSON_GetObjectItemCaseSensitive(args,
		    r->valuestring) != NULL)
			continue;
		{
			struct dbp_buf b;
			char *rr = dbp_pyrepr_str(r->valuestring);

			dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
			dbp_buf_addf(&b, "%s requires %s.", name,
			    rr != NULL ? rr : "?");
			free(rr);
			*detail = dbp_buf_take(&b);
		}
		return -1;
	}

	/* Each argument, in name order. */
	cJSON_ArrayForEach(a, args)
		n++;
	if ((keys = calloc(n + 1, sizeof(*keys))) == NULL) {
		*detail = strdup("out of memory");
		return -1;
	}
	i = 0;
	cJSON_ArrayForEach(a, args)
		keys[i++] = a->string;
	qsort(keys, n, sizeof(*keys), args_cmp_str);
	for (i = 0; i < n && rc == 0; i++) {
		ps = cJSON_GetObjectItemCaseSensitive(props, keys[i]);
		rc = args_prop(keys[i], cJSON_GetObjectItemCaseSensitive(args,
		    keys[i]), ps, detail);
	}
	free(keys);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Python spellings of the numbers of a parsed request                  */

struct args_tokens {
	const char	*text;
	size_t		 len;
	size_t		 at;	/* scan position */
};

/* The next number token of the text outside strings: start and length
 * into *p and *n; 0 when there is none left. */
static int
args_next_number(struct args_tokens *t, const char **p, size_t *n)
{
	size_t i = t->at, j;

	while (i < t->len) {
		char c = t->text[i];

		if (c == '"') {
			for (i++; i < t->len && t->text[i] != '"'; i++)
				if (t->text[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c == '-' || isdigit((unsigned char)c)) {
			for (j = i + 1; j < t->len; j++) {
				c = t->text[j];
				if (!isdigit((unsigned char)c) && c != '.' &&
				    c != 'e' && c != 'E' && c != '+' &&
				    c != '-')
					break;
			}
			*p = t->text + i;
			*n = j - i;
			t->at = j;
			return 1;
		}
		i++;
	}
	t->at = i;
	return 0;
}

/* Walk v in document order giving every number its spelling. */
static void
args_walk(cJSON *v, struct args_tokens *t)
{
	cJSON *c;
	const char *p;
	char tok[ARGS_NUM_MAX + 1];
	char spell[ARGS_NUM_MAX + DBP_FLOAT_REPR_MAX];
	size_t n;

	if (v == NULL)
		return;
	if (cJSON_IsNumber(v)) {
		if (!args_next_number(t, &p, &n) || n > ARGS_NUM_MAX)
			return;
		memcpy(tok, p, n);
		tok[n] = '\0';
		if (strpbrk(tok, ".eE") != NULL)
			dbp_float_repr(strtod(tok, NULL), spell);
		else if (strcmp(tok, "-0") == 0)
			snprintf(spell, sizeof(spell), "0");
		else
			snprintf(spell, sizeof(spell), "%s", tok);
		free(v->valuestring);
		v->valuestring = strdup(spell);
		return;
	}
	for (c = v->child; c != NULL; c = c->next)
		args_walk(c, t);
}

/* Find node among the number nodes of v in document order, stepping t
 * over one number token per node: 1 with its token in *p, *n. */
static int
args_find(const cJSON *v, const cJSON *node, struct args_tokens *t,
    const char **p, size_t *n)
{
	const cJSON *c;

	if (v == NULL)
		return 0;
	if (cJSON_IsNumber(v)) {
		if (!args_next_number(t, p, n))
			return -1;	/* the text has no more numbers */
		return v == node;
	}
	for (c = v->child; c != NULL; c = c->next) {
		int r = args_find(c, node, t, p, n);

		if (r != 0)
			return r;
	}
	return 0;
}

int
args_number_token(const cJSON *root, const cJSON *node, const char *text,
    size_t len, const char **tok, size_t *n)
{
	struct args_tokens t;

	t.text = text;
	t.len = len;
	t.at = 0;
	return args_find(root, node, &t, tok, n) == 1 ? 0 : -1;
}

void
args_spell_numbers(cJSON *root, const char *text, size_t len)
{
	struct args_tokens t;

	/* root was parsed from exactly this text, and cJSON keeps members
	 * and elements in document order, so the number nodes met walking
	 * the tree are the number tokens met scanning the text. */
	t.text = text;
	t.len = len;
	t.at = 0;
	args_walk(root, &t);
}

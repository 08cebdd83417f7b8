/*
 * annot.c - checking the three human-authored annotation files (SPEC 2.7)
 * against our reading of their JSON schemas in spec/v1/: the types,
 * required members, format_version 1, the verdict enum, non-empty column
 * lists.  Unknown keys are tolerated (we read derived_from, which the
 * schemas do not name).  A mismatch is reported as "<address>: <message>"
 * with the address spelled columns.email.values[0] and the message worded
 * as Python's jsonschema words it ("'note' is a required property").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ix.h"

#define AN_ROOT		"(root)"

/* A path of keys and indices, as text. */
struct an_path {
	char	txt[1024];
};

/* Path steps are appended; an address too long for the buffer is cut
 * (it is only ever shown). */
static void
an_key(const struct an_path *in, const char *key, struct an_path *out)
{
	int n;

	if (in->txt[0] == '\0')
		n = snprintf(out->txt, sizeof(out->txt), "%s", key);
	else
		n = snprintf(out->txt, sizeof(out->txt), "%s.%s", in->txt, key);
	if (n < 0)
		out->txt[0] = '\0';
}

static void
an_idx(const struct an_path *in, int i, struct an_path *out)
{
	if (snprintf(out->txt, sizeof(out->txt), "%s[%d]", in->txt, i) < 0)
		out->txt[0] = '\0';
}

static int
an_fail(const struct an_path *at, struct dbp_diag *d, const char *fmt,
    const cJSON *v, const char *what)
{
	char *r = v != NULL ? dbp_pyrepr(v) : NULL;
	char msg[DBP_DIAG_MAX / 2];

	snprintf(msg, sizeof(msg), fmt, r ? r : what, what);
	free(r);
	return dbp_fail(d, "%s: %s", at->txt[0] ? at->txt : AN_ROOT, msg);
}

static int
an_type(const cJSON *v, const char *type, const struct an_path *at,
    struct dbp_diag *d)
{
	int ok;

	if (strcmp(type, "object") == 0)
		ok = cJSON_IsObject(v);
	else if (strcmp(type, "array") == 0)
		ok = cJSON_IsArray(v);
	else
		ok = cJSON_IsString(v);
	if (ok)
		return 0;
	return an_fail(at, d, "%s is not of type '%s'", v, type);
}

static int
an_required(const cJSON *o, const char *const *keys, const struct an_path *at,
    struct dbp_diag *d)
{
	char msg[256];

	for (; *keys != NULL; keys++) {
		if (cJSON_GetObjectItemCaseSensitive(o, *keys) != NULL)
			continue;
		snprintf(msg, sizeof(msg), "'%s' is a required property", *keys);
		return dbp_fail(d, "%s: %s", at->txt[0] ? at->txt : AN_ROOT,
		    msg);
	}
	return 0;
}

/* format_version: const 1 (a bool is not 1). */
static int
an_version(const cJSON *o, struct dbp_diag *d)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "format_version");
	struct an_path at = { "format_version" };

	if (v == NULL || (cJSON_IsNumber(v) && v->valuedouble == 1.0))
		return 0;
	return an_fail(&at, d, "1 was expected", v, "");
}

/* An optional member of a given type. */
static int
an_opt(const cJSON *o, const char *key, const char *type,
    const struct an_path *in, struct dbp_diag *d)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	struct an_path at;

	if (v == NULL)
		return 0;
	an_key(in, key, &at);
	return an_type(v, type, &at, d);
}

/* ColumnArray: a non-empty array of non-empty strings. */
static int
an_colarray(const cJSON *v, const struct an_path *at, int unique,
    struct dbp_diag *d)
{
	const cJSON *it, *jt;
	struct an_path ip;
	int i = 0;

	if (an_type(v, "array", at, d) == -1)
		return -1;
	if (v->child == NULL)
		return an_fail(at, d, "%s should be non-empty", v, "");
	cJSON_ArrayForEach(it, v) {
		an_idx(at, i++, &ip);
		if (an_type(it, "string", &ip, d) == -1)
			return -1;
		if (it->valuestring[0] == '\0')
			return an_fail(&ip, d, "%s should be non-empty", it, "");
	}
	if (unique)
		for (it = v->child; it != NULL; it = it->next)
			for (jt = it->next; jt != NULL; jt = jt->next)
				if (strcmp(it->valuestring, jt->valuestring) == 0)
					return an_fail(at, d, "%s has non-unique "
					    "elements", v, "");
	return 0;
}

static int
an_opt_colarray(const cJSON *o, const char *key, const struct an_path *in,
    struct dbp_diag *d)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	struct an_path at;

	if (v == NULL)
		return 0;
	an_key(in, key, &at);
	return an_colarray(v, &at, 0, d);
}

static int
an_stats(const cJSON *doc, struct dbp_diag *d)
{
	static const char *const req[] = { "format_version", "columns", NULL };
	static const char *const vreq[] = { "value", "note", NULL };
	static const char *const kreq[] = { "columns", NULL };
	struct an_path root = { "" }, cp, ep, vp, ip, gp, kp;
	const cJSON *cols, *col, *vals, *it, *grain, *keys;
	int i;

	if (an_required(doc, req, &root, d) == -1 || an_version(doc, d) == -1)
		return -1;
	cols = cJSON_GetObjectItemCaseSensitive(doc, "columns");
	an_key(&root, "columns", &cp);
	if (an_type(cols, "object", &cp, d) == -1)
		return -1;
	cJSON_ArrayForEach(col, cols) {
		an_key(&cp, col->string, &ep);
		if (an_type(col, "object", &ep, d) == -1 ||
		    an_opt(col, "note", "string", &ep, d) == -1 ||
		    an_opt(col, "claims", "object", &ep, d) == -1 ||
		    an_opt(col, "values", "array", &ep, d) == -1)
			return -1;
		vals = cJSON_GetObjectItemCaseSensitive(col, "values");
		an_key(&ep, "values", &vp);
		i = 0;
		cJSON_ArrayForEach(it, vals) {
			an_idx(&vp, i++, &ip);
			if (an_type(it, "object", &ip, d) == -1 ||
			    an_required(it, vreq, &ip, d) == -1 ||
			    an_opt(it, "note", "string", &ip, d) == -1)
				return -1;
		}
	}
	grain = cJSON_GetObjectItemCaseSensitive(doc, "grain");
	if (grain == NULL)
		return 0;
	an_key(&root, "grain", &gp);
	if (an_type(grain, "object", &gp, d) == -1 ||
	    an_opt(grain, "keys", "array", &gp, d) == -1)
		return -1;
	keys = cJSON_GetObjectItemCaseSensitive(grain, "keys");
	an_key(&gp, "keys", &kp);
	i = 0;
	cJSON_ArrayForEach(it, keys) {
		an_idx(&kp, i++, &ip);
		if (an_type(it, "object", &ip, d) == -1 ||
		    an_required(it, kreq, &ip, d) == -1 ||
		    an_opt(it, "note", "string", &ip, d) == -1)
			return -1;
		an_key(&ip, "columns", &vp);
		if (an_colarray(cJSON_GetObjectItemCaseSensitive(it, "columns"),
		    &vp, 1, d) == -1)
			return -1;
	}
	return 0;
}

static int
an_rels(const cJSON *doc, struct dbp_diag *d)
{
	static const char *const req[] = { "format_version", "refers_to", NULL };
	static const char *const ereq[] = { "column", "target_table",
	    "target_column", NULL };
	struct an_path root = { "" }, rp, ep, fp;
	const cJSON *refs, *e, *v;
	int i = 0;

	if (an_required(doc, req, &root, d) == -1 || an_version(doc, d) == -1)
		return -1;
	refs = cJSON_GetObjectItemCaseSensitive(doc, "refers_to");
	an_key(&root, "refers_to", &rp);
	if (an_type(refs, "array", &rp, d) == -1)
		return -1;
	cJSON_ArrayForEach(e, refs) {
		an_idx(&rp, i++, &ep);
		if (an_type(e, "object", &ep, d) == -1 ||
		    an_required(e, ereq, &ep, d) == -1)
			return -1;
		an_key(&ep, "column", &fp);
		if (an_colarray(cJSON_GetObjectItemCaseSensitive(e, "column"),
		    &fp, 0, d) == -1)
			return -1;
		if (an_opt_colarray(e, "path", &ep, d) == -1)
			return -1;
		v = cJSON_GetObjectItemCaseSensitive(e, "target_table");
		an_key(&ep, "target_table", &fp);
		if (an_type(v, "string", &fp, d) == -1)
			return -1;
		if (v->valuestring[0] == '\0')
			return an_fail(&fp, d, "%s should be non-empty", v, "");
		an_key(&ep, "target_column", &fp);
		if (an_colarray(cJSON_GetObjectItemCaseSensitive(e,
		    "target_column"), &fp, 0, d) == -1)
			return -1;
		if (an_opt_colarray(e, "target_path", &ep, d) == -1 ||
		    an_opt(e, "note", "string", &ep, d) == -1 ||
		    an_opt(e, "claims", "object", &ep, d) == -1)
			return -1;
		v = cJSON_GetObjectItemCaseSensitive(e, "verdict");
		if (v != NULL && !(cJSON_IsString(v) &&
		    strcmp(v->valuestring, "rejected") == 0)) {
			an_key(&ep, "verdict", &fp);
			return an_fail(&fp, d, "%s is not one of ['rejected']",
			    v, "");
		}
	}
	return 0;
}

static int
an_manifest(const cJSON *doc, struct dbp_diag *d)
{
	static const char *const req[] = { "format_version", NULL };
	struct an_path root = { "" };

	if (an_required(doc, req, &root, d) == -1 || an_version(doc, d) == -1 ||
	    an_opt(doc, "notes", "string", &root, d) == -1)
		return -1;
	return 0;
}

int
ix_annot_check(int kind, const cJSON *doc, struct dbp_diag *d)
{
	struct an_path root = { "" };

	if (an_type(doc, "object", &root, d) == -1)
		return -1;
	switch (kind) {
	case IX_STATS_ANNOT:
		return an_stats(doc, d);
	case IX_RELS_ANNOT:
		return an_rels(doc, d);
	case IX_MANIFEST_ANNOT:
		return an_manifest(doc, d);
	default:
		return 0;
	}
}

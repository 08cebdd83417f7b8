/*
 * ctx_values.c - what the query purpose's value table shows of each
 * column (spec 4.1), decided once and rendered by both the Markdown and
 * the json/yaml object:
 *
 *   - values_coverage 1.0: the whole list, "complete";
 *   - below 1.0: the five most frequent values (a spelling group counting
 *     as one), "sample", with the share they cover;
 *   - numeric or temporal (no values_coverage): the listed values holding
 *     at least 1% of the non-null rows and at least twice an even
 *     spread's share, at most five, "frequent values, not a domain";
 *   - anything else: no row.
 *
 * Also here: the annotation lookups, the Meanings cue's test and the
 * notes a column inherits through derived_from.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdlib.h>
#include <string.h>

#include "ctx.h"

/* The most values a sample or frequent-values row shows (spec 4.1). */
#define CTX_SHOWN_MAX		5
/* A frequent value holds at least this share of the non-null rows... */
#define CTX_FREQ_FLOOR		0.01
/* ...and at least this many times an even spread's share. */
#define CTX_FREQ_SPREAD		2.0

static const char *
val_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double
val_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int
ctx_nullable(const cJSON *block)
{
	return !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(block,
	    "nullable"));
}

double
ctx_nonnull(struct ctx *x, const cJSON *block, int part)
{
	double rows, nulls;

	if (part)
		rows = val_num(block, "occurrences", 0);
	else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(block,
	    "rows_scanned")))
		rows = val_num(block, "rows_scanned", 0);
	else if (x->has_scanned)
		rows = (double)x->rows_scanned;
	else if (x->has_stats_rows)
		rows = (double)x->stats_row_count;
	else
		rows = (double)x->row_count;
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(block,
	    "null_count")))
		nulls = val_num(block, "null_count", 0);
	else
		nulls = rows * val_num(block, "null_rate", 0);
	return rows - nulls > 0 ? rows - nulls : 0;
}

cJSON *
ctx_col_annot(struct ctx *x, const char *name)
{
	cJSON *cols;

	cols = cJSON_GetObjectItemCaseSensitive(x->sannot, "columns");
	if (!cJSON_IsObject(cols))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(cols, name);
}

const char *
ctx_value_note(const cJSON *a, const cJSON *v)
{
	const cJSON *vals, *e;

	vals = cJSON_GetObjectItemCaseSensitive(a, "values");
	cJSON_ArrayForEach(e, vals) {
		const cJSON *ev = cJSON_GetObjectItemCaseSensitive(e, "value");

		if (ev != NULL && v != NULL && cJSON_Compare(ev, v, 1) &&
		    ((cJSON_IsNumber(ev) && cJSON_IsNumber(v)) ||
		    ev->type == v->type))
			return val_str(e, "note");
	}
	return NULL;
}

/* 1 when annotation entry a carries a note or a value note. */
static int
val_annot_notes(const cJSON *a)
{
	const cJSON *e;

	if (val_str(a, "note") != NULL)
		return 1;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(a, "values"))
		if (val_str(e, "note") != NULL)
			return 1;
	return 0;
}

/* The derived_from sources of column name: the annotation's, else the
 * statistics column's.  Borrowed, or NULL. */
static const cJSON *
val_derived(struct ctx *x, const char *name)
{
	const cJSON *a, *v, *cols;

	a = ctx_col_annot(x, name);
	v = cJSON_GetObjectItemCaseSensitive(a, "derived_from");
	if (v != NULL && !cJSON_IsNull(v))
		return v;
	cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
	v = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cols, name), "derived_from");
	return v != NULL && !cJSON_IsNull(v) ? v : NULL;
}

/* Split one source ("table.column", or {table, column}) into a malloc'd
 * table and a borrowed column.  0, or -1 when it names nothing. */
static int
val_source(struct ctx *x, const cJSON *s, char **table, const char **col)
{
	const char *t, *dot;

	if (cJSON_IsObject(s)) {
		t = val_str(s, "table");
		*col = val_str(s, "column");
		if (*col == NULL)
			return -1;
		*table = strdup(t != NULL ? t : x->fqn);
		return *table == NULL ? -1 : 0;
	}
	if (!cJSON_IsString(s))
		return -1;
	dot = strrchr(s->valuestring, '.');
	if (dot == NULL) {
		*table = strdup(x->fqn);
		*col = s->valuestring;
	} else {
		*table = strndup(s->valuestring,
		    (size_t)(dot - s->valuestring));
		*col = dot + 1;
	}
	return *table == NULL ? -1 : 0;
}

/* The statistics annotations entry of column col of table t (pinned),
 * as a new tree, or NULL. */
static cJSON *
val_foreign_annot(struct ctx *x, const char *t, const char *col)
{
	static const char sql[] = "SELECT a.path, f.doc FROM artifacts a "
	    "JOIN files f ON f.path = a.path WHERE a.table_fqn = ? AND "
	    "a.kind = 'statistics_annotations' AND f.status = 'ok'";
	sqlite3_stmt *st = NULL;
	cJSON *doc = NULL, *e = NULL;
	const char *p, *j;

	if (strcmp(t, x->fqn) == 0) {
		e = ctx_col_annot(x, col);
		return e != NULL ? cJSON_Duplicate(e, 1) : NULL;
	}
	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		p = (const char *)sqlite3_column_text(st, 0);
		j = (const char *)sqlite3_column_text(st, 1);
		if (p != NULL)
			call_pin1(x->c, p);
		if (j != NULL)
			doc = srv_json_parse(j, strlen(j));
	}
	sqlite3_finalize(st);
	e = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(doc, "columns"), col);
	if (e != NULL)
		e = cJSON_DetachItemViaPointer(
		    cJSON_GetObjectItemCaseSensitive(doc, "columns"), e);
	cJSON_Delete(doc);
	return e;
}

cJSON *
ctx_inherited(struct ctx *x, const char *name)
{
	const cJSON *df, *s;
	cJSON *out = NULL, *a, *item, *vals, *ve, *v;
	const char *col, *note;
	char *t;

	if (!x->inc_annot || (df = val_derived(x, name)) == NULL)
		return NULL;
	if (!cJSON_IsArray(df)) {
		/* a single source */
		s = df;
		df = NULL;
	} else {
		s = df->child;
	}
	for (; s != NULL; s = df != NULL ? s->next : NULL) {
		if (val_source(x, s, &t, &col) == -1)
			continue;
		a = val_foreign_annot(x, t, col);
		if (a == NULL || !val_annot_notes(a)) {
			cJSON_Delete(a);
			free(t);
			continue;
		}
		item = cJSON_CreateObject();
		{
			struct dbp_buf b;
			char *src;

			dbp_buf_init(&b, DBP_MAX_SCALAR);
			dbp_buf_addf(&b, "%s.%s", t, col);
			src = dbp_buf_take(&b);
			cJSON_AddStringToObject(item, "source",
			    src != NULL ? src : "");
			free(src);
		}
		if ((note = val_str(a, "note")) != NULL)
			cJSON_AddStringToObject(item, "note", note);
		vals = NULL;
		cJSON_ArrayForEach(ve, cJSON_GetObjectItemCaseSensitive(a,
		    "values")) {
			note = val_str(ve, "note");
			v = cJSON_GetObjectItemCaseSensitive(ve, "value");
			if (note == NULL || v == NULL)
				continue;
			if (vals == NULL)
				vals = cJSON_AddArrayToObject(item, "values");
			{
				cJSON *o = cJSON_CreateObject();

				srv_json_put(o, "value",
				    cJSON_Duplicate(v, 1));
				cJSON_AddStringToObject(o, "note", note);
				cJSON_AddItemToArray(vals, o);
			}
		}
		if (out == NULL)
			out = cJSON_CreateArray();
		cJSON_AddItemToArray(out, item);
		cJSON_Delete(a);
		free(t);
		if (df == NULL)
			break;
	}
	return out;
}

int
ctx_documented(struct ctx *x)
{
	const cJSON *cols, *a, *c;
	cJSON *inh;

	if (x->description != NULL && x->description[0] != '\0')
		return 1;
	cols = cJSON_GetObjectItemCaseSensitive(x->sannot, "columns");
	cJSON_ArrayForEach(a, cols)
		if (val_annot_notes(a))
			return 1;
	if (x->purpose != CTX_QUERY)
		return 0;
	cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
	cJSON_ArrayForEach(c, cols) {
		if (c->string == NULL || val_derived(x, c->string) == NULL)
			continue;
		if ((inh = ctx_inherited(x, c->string)) != NULL) {
			cJSON_Delete(inh);
			return 1;
		}
	}
	return 0;
}

/* Entry e's spelling group key: its spelling_of, else its value. */
static const cJSON *
val_group(const cJSON *e)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "spelling_of");

	return s != NULL ? s : cJSON_GetObjectItemCaseSensitive(e, "value");
}

int
ctx_vrow(struct ctx *x, const char *label, const char *cname, int part,
    cJSON *block, struct ctx_vrow *r)
{
	cJSON *vals, *cov, *e, *a;
	const cJSON *groups[CTX_SHOWN_MAX];
	const char *cls;
	size_t ng = 0, i, n;
	double nonnull, shown = 0, card, share;
	int in;

	memset(r, 0, sizeof(*r));
	r->name = label;
	r->block = block;
	vals = cJSON_GetObjectItemCaseSensitive(block, "values");
	if (!cJSON_IsArray(vals))
		return 0;
	cov = cJSON_GetObjectItemCaseSensitive(block, "values_coverage");
	cls = val_str(block, "classification");
	r->redacted = val_str(block, "redacted") != NULL;
	nonnull = ctx_nonnull(x, block, part);
	n = (size_t)cJSON_GetArraySize(vals);
	if ((r->shown = calloc(n + 1, sizeof(*r->shown))) == NULL)
		return -1;
	if (cJSON_IsNumber(cov) && cov->valuedouble >= 1.0) {
		r->kind = CTX_V_COMPLETE;
		cJSON_ArrayForEach(e, vals) {
			r->shown[r->nshown++] = e;
			shown += val_num(e, "count", 0);
		}
	} else if (cJSON_IsNumber(cov)) {
		r->kind = CTX_V_SAMPLE;
		cJSON_ArrayForEach(e, vals) {
			in = 0;
			for (i = 0; i < ng; i++)
				if (!r->redacted &&
				    cJSON_Compare(groups[i], val_group(e), 1))
					in = 1;
			if (!in && ng == CTX_SHOWN_MAX)
				continue;
			if (!in)
				groups[ng++] = val_group(e);
			r->shown[r->nshown++] = e;
			shown += val_num(e, "count", 0);
		}
	} else if (cls != NULL && (strcmp(cls, "numeric") == 0 ||
	    strcmp(cls, "temporal") == 0)) {
		r->kind = CTX_V_FREQUENT;
		card = val_num(block, "cardinality", 0);
		cJSON_ArrayForEach(e, vals) {
			if (r->nshown == CTX_SHOWN_MAX || nonnull <= 0)
				break;
			share = val_num(e, "count", 0) / nonnull;
			if (share < CTX_FREQ_FLOOR || (card > 0 &&
			    share < CTX_FREQ_SPREAD / card))
				continue;
			r->shown[r->nshown++] = e;
			shown += val_num(e, "count", 0);
		}
		if (r->nshown == 0)
			r->kind = CTX_V_NONE;
	}
	r->shown_share = nonnull > 0 ? shown / nonnull : 0;
	if (r->kind == CTX_V_COMPLETE && !r->redacted && cls != NULL &&
	    (strcmp(cls, "categorical") == 0 || strcmp(cls, "text") == 0)) {
		a = ctx_col_annot(x, cname);
		r->undocumented = !val_annot_notes(a);
		if (r->undocumented && !part && x->purpose == CTX_QUERY) {
			cJSON *inh = ctx_inherited(x, cname);

			if (inh != NULL)
				r->undocumented = 0;
			cJSON_Delete(inh);
		}
	}
	return 0;
}

int
ctx_vstatement(struct ctx *x, const struct ctx_vrow *r, struct dbp_buf *b)
{
	char pct[64];
	size_t groups = 0, i;

	ctx_pct(r->shown_share, pct, sizeof(pct));
	switch (r->kind) {
	case CTX_V_COMPLETE:
		if (x->scoped)
			dbp_buf_adds(b, "complete over the rows scanned: the "
			    "whole domain of the rows read, not of the table");
		else
			dbp_buf_adds(b, "complete: the column's whole domain");
		if (r->undocumented)
			dbp_buf_adds(b, "; meanings: not documented here");
		break;
	case CTX_V_SAMPLE:
		for (i = 0; i < r->nshown; i++)
			if (cJSON_GetObjectItemCaseSensitive(r->shown[i],
			    "spelling_of") == NULL || r->redacted)
				groups++;
		if (groups == 1)
			dbp_buf_addf(b, "sample: the most frequent value "
			    "covers %s of the non-null rows%s", pct,
			    x->scoped ? " scanned" : "");
		else
			dbp_buf_addf(b, "sample: the %zu most frequent values "
			    "cover %s of the non-null rows%s", groups, pct,
			    x->scoped ? " scanned" : "");
		break;
	case CTX_V_FREQUENT:
		dbp_buf_addf(b, "frequent values, not a domain: %zu value%s "
		    "covering %s of the non-null rows%s", r->nshown,
		    r->nshown == 1 ? "" : "s", pct,
		    x->scoped ? " scanned" : "");
		break;
	default:
		break;
	}
	return b->failed ? -1 : 0;
}

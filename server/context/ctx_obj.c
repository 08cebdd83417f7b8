/*
 * ctx_obj.c - the json/yaml object of get_table_context (spec 4.1), built
 * as a sequence of paging units (spec 4.8): each identity key is one unit,
 * and the per-column maps (statistics.columns, annotations, values,
 * dictionary, inherited_notes) give one unit per column, so merging the
 * pages key by key yields the whole object.
 *
 * Identity, in order: table, type, columns_count, row_count (manifest),
 * _unprofiled, _missing, _corrupted, meanings_documented, then scope with
 * the statistics' row_count (which replaces the manifest's in place).
 *
 * profile: connection_notes, ddl, description, annotations,
 * grain_annotations, statistics (sketches already removed by the index),
 * relationships (rejected edges withheld, human edges added),
 * relationship_annotations (less the withheld verdicts).
 * query: ddl, connection_notes, values, joins, nulls, dictionary,
 * inherited_notes, description.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

static const char *const obj_kind_names[CTX_NKINDS] = {
	"ddl", "statistics", "relationships", "description",
	"statistics_annotations", "relationships_annotations"
};

/* Keep v alive in the object's hold; return it (NULL stays NULL). */
static cJSON *
obj_keep(struct ctx_obj *o, cJSON *v)
{
	if (v != NULL)
		cJSON_AddItemToArray(o->hold, v);
	return v;
}

/* A string kept alive by the hold. */
static const char *
obj_str(struct ctx_obj *o, const char *s)
{
	cJSON *v = obj_keep(o, cJSON_CreateString(s));

	return v != NULL ? v->valuestring : NULL;
}

static int
obj_unit(struct ctx_obj *o, const char *k1, const char *k2, const char *k3,
    cJSON *value, int splice)
{
	struct ctx_unit *u;

	if (value == NULL || k1 == NULL)
		return -1;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		void *p = realloc(o->units, cap * sizeof(*o->units));

		if (p == NULL)
			return -1;
		o->units = p;
		o->cap = cap;
	}
	u = &o->units[o->n++];
	memset(u, 0, sizeof(*u));
	u->path[0] = k1;
	u->path[1] = k2;
	u->path[2] = k3;
	u->depth = k3 != NULL ? 3 : k2 != NULL ? 2 : 1;
	u->value = value;
	u->splice = splice;
	return 0;
}

/* A number node spelled as Python's repr of x. */
static cJSON *
obj_float(double x)
{
	char t[64];
	cJSON *n = cJSON_CreateNumber(x);

	if (n == NULL)
		return NULL;
	ctx_pyfloat(x, t, sizeof(t));
	if ((n->valuestring = strdup(t)) == NULL) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

static cJSON *
obj_int(long long v)
{
	char t[32];
	cJSON *n = cJSON_CreateNumber((double)v);

	if (n == NULL)
		return NULL;
	snprintf(t, sizeof(t), "%lld", v);
	if ((n->valuestring = strdup(t)) == NULL) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

static cJSON *
obj_dup(const cJSON *v)
{
	return cJSON_Duplicate(v, 1);
}

/* The statistics block of column name, or NULL. */
static cJSON *
obj_stats_col(struct ctx *x, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(x->stats, "columns"), name);
}

static int
obj_identity(struct ctx *x, struct ctx_obj *o)
{
	cJSON *missing = NULL, *corrupt = NULL, *rc_unit = NULL;
	int k;

	if (obj_unit(o, "table", NULL, NULL,
	    obj_keep(o, cJSON_CreateString(x->fqn)), 0) == -1 ||
	    obj_unit(o, "type", NULL, NULL, obj_keep(o,
	    cJSON_CreateString(x->type != NULL ? x->type : "table")), 0) == -1)
		return -1;
	if (x->has_cols && obj_unit(o, "columns_count", NULL, NULL,
	    obj_keep(o, obj_int(x->columns_count)), 0) == -1)
		return -1;
	if (x->has_rows) {
		rc_unit = obj_keep(o, obj_int(x->row_count));
		if (obj_unit(o, "row_count", NULL, NULL, rc_unit, 0) == -1)
			return -1;
	}
	if (x->unprofiled && obj_unit(o, "_unprofiled", NULL, NULL,
	    obj_keep(o, cJSON_CreateTrue()), 0) == -1)
		return -1;
	for (k = 0; k < CTX_NKINDS; k++) {
		const char *s = x->art[k].status;

		if (!x->art[k].declared)
			continue;
		if (s == NULL || strcmp(s, "absent") == 0) {
			if (missing == NULL)
				missing = obj_keep(o, cJSON_CreateArray());
			cJSON_AddItemToArray(missing,
			    cJSON_CreateString(obj_kind_names[k]));
		} else if (strcmp(s, "ok") != 0) {
			if (corrupt == NULL)
				corrupt = obj_keep(o, cJSON_CreateObject());
			cJSON_AddStringToObject(corrupt, obj_kind_names[k],
			    x->art[k].error != NULL ? x->art[k].error : s);
		}
	}
	if (x->ma_status != NULL && strcmp(x->ma_status, "ok") != 0 &&
	    strcmp(x->ma_status, "absent") != 0) {
		if (corrupt == NULL)
			corrupt = obj_keep(o, cJSON_CreateObject());
		cJSON_AddStringToObject(corrupt, "manifest_annotations",
		    x->ma_error != NULL ? x->ma_error : x->ma_status);
	}
	if (missing != NULL &&
	    obj_unit(o, "_missing", NULL, NULL, missing, 0) == -1)
		return -1;
	if (corrupt != NULL &&
	    obj_unit(o, "_corrupted", NULL, NULL, corrupt, 0) == -1)
		return -1;
	if (!ctx_documented(x) && obj_unit(o, "meanings_documented", NULL,
	    NULL, obj_keep(o, cJSON_CreateFalse()), 0) == -1)
		return -1;
	if (x->scoped) {
		if (obj_unit(o, "scope", NULL, NULL, x->scope, 0) == -1)
			return -1;
		if (x->has_stats_rows) {
			cJSON *n = obj_keep(o, obj_int(x->stats_row_count));

			if (n == NULL)
				return -1;
			if (rc_unit != NULL) {
				size_t i;

				for (i = 0; i < o->n; i++)
					if (o->units[i].value == rc_unit)
						o->units[i].value = n;
			} else if (obj_unit(o, "row_count", NULL, NULL, n,
			    0) == -1)
				return -1;
		}
	}
	return 0;
}

/* Per-key units of object map under key (an empty map is one unit). */
static int
obj_map_units(struct ctx_obj *o, const char *key, cJSON *map)
{
	cJSON *e;

	if (map->child == NULL)
		return obj_unit(o, key, NULL, NULL, map, 0);
	cJSON_ArrayForEach(e, map)
		if (e->string != NULL &&
		    obj_unit(o, key, e->string, NULL, e, 0) == -1)
			return -1;
	return 0;
}

static int
obj_text_units(struct ctx *x, struct ctx_obj *o, const char *which)
{
	if (strcmp(which, "ddl") == 0 && x->ddl != NULL)
		return obj_unit(o, "ddl", NULL, NULL,
		    obj_keep(o, cJSON_CreateString(x->ddl)), 0);
	if (strcmp(which, "description") == 0 && x->inc_desc &&
	    x->description != NULL)
		return obj_unit(o, "description", NULL, NULL,
		    obj_keep(o, cJSON_CreateString(x->description)), 0);
	if (strcmp(which, "notes") == 0 && x->inc_annot &&
	    x->conn_notes != NULL)
		return obj_unit(o, "connection_notes", NULL, NULL,
		    obj_keep(o, cJSON_CreateString(x->conn_notes)), 0);
	return 0;
}

static int
obj_profile(struct ctx *x, struct ctx_obj *o)
{
	cJSON *cols, *head, *e, *g;

	if (obj_text_units(x, o, "notes") == -1 ||
	    obj_text_units(x, o, "ddl") == -1 ||
	    obj_text_units(x, o, "description") == -1)
		return -1;
	if (x->inc_annot && cJSON_IsObject(x->sannot)) {
		cols = cJSON_GetObjectItemCaseSensitive(x->sannot, "columns");
		if (cJSON_IsObject(cols) &&
		    obj_map_units(o, "annotations", cols) == -1)
			return -1;
		g = cJSON_GetObjectItemCaseSensitive(x->sannot, "grain");
		if (g != NULL && obj_unit(o, "grain_annotations", NULL, NULL,
		    g, 0) == -1)
			return -1;
	}
	if (x->inc_stats && cJSON_IsObject(x->stats)) {
		cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
		if (!cJSON_IsObject(cols) || cols->child == NULL) {
			if (obj_unit(o, "statistics", NULL, NULL, x->stats,
			    0) == -1)
				return -1;
		} else {
			head = obj_keep(o, cJSON_CreateObject());
			if (head == NULL)
				return -1;
			cJSON_ArrayForEach(e, x->stats)
				if (e != cols)
					srv_json_put_ref(head,
					    e->string, e);
			if (obj_unit(o, "statistics", NULL, NULL, head,
			    1) == -1)
				return -1;
			cJSON_ArrayForEach(e, cols)
				if (obj_unit(o, "statistics", "columns",
				    e->string, e, 0) == -1)
					return -1;
		}
	}
	if (x->inc_rel && x->relv != NULL) {
		if (obj_unit(o, "relationships", NULL, NULL, x->relv, 0) == -1)
			return -1;
		if (x->inc_annot && x->rannotv != NULL &&
		    obj_unit(o, "relationship_annotations", NULL, NULL,
		    x->rannotv, 0) == -1)
			return -1;
	}
	return 0;
}

/* The values block of one row. */
static cJSON *
obj_vblock(struct ctx *x, struct ctx_vrow *r, const char *cname, int part)
{
	struct dbp_buf b;
	cJSON *blk, *cov, *list, *e, *it, *v;
	const char *note;
	char *st;
	size_t i;

	if ((blk = cJSON_CreateObject()) == NULL)
		return NULL;
	cov = cJSON_GetObjectItemCaseSensitive(r->block, "values_coverage");
	if (r->kind != CTX_V_FREQUENT && cJSON_IsNumber(cov))
		srv_json_put(blk, "coverage", obj_dup(cov));
	dbp_buf_init(&b, DBP_MAX_SCALAR);
	ctx_vstatement(x, r, &b);
	st = dbp_buf_take(&b);
	cJSON_AddStringToObject(blk, "coverage_statement", st ? st : "");
	free(st);
	if (r->kind != CTX_V_COMPLETE)
		srv_json_put(blk, "shown_coverage",
		    obj_float(ctx_round_rate(r->shown_share)));
	if (r->redacted) {
		v = cJSON_GetObjectItemCaseSensitive(r->block, "redacted");
		srv_json_put(blk, "redacted", obj_dup(v));
		list = cJSON_AddArrayToObject(blk, "counts");
		for (i = 0; i < r->nshown; i++) {
			e = cJSON_GetObjectItemCaseSensitive(r->shown[i],
			    "count");
			cJSON_AddItemToArray(list, e != NULL ? obj_dup(e) :
			    cJSON_CreateNull());
		}
	} else {
		cJSON *a = part ? NULL : ctx_col_annot(x, cname);

		list = cJSON_AddArrayToObject(blk, "entries");
		for (i = 0; i < r->nshown; i++) {
			it = cJSON_CreateObject();
			v = cJSON_GetObjectItemCaseSensitive(r->shown[i],
			    "value");
			srv_json_put(it, "value", v != NULL ?
			    obj_dup(v) : cJSON_CreateNull());
			e = cJSON_GetObjectItemCaseSensitive(r->shown[i],
			    "count");
			if (e != NULL)
				srv_json_put(it, "count", obj_dup(e));
			e = cJSON_GetObjectItemCaseSensitive(r->shown[i],
			    "spelling_of");
			if (e != NULL)
				srv_json_put(it, "spelling_of",
				    obj_dup(e));
			if (x->inc_annot && a != NULL &&
			    (note = ctx_value_note(a, v)) != NULL)
				cJSON_AddStringToObject(it, "note", note);
			cJSON_AddItemToArray(list, it);
		}
	}
	if (r->undocumented)
		cJSON_AddFalseToObject(blk, "meanings_documented");
	if (!part && ctx_nullable(r->block) &&
	    (v = cJSON_GetObjectItemCaseSensitive(r->block, "null_rate")) !=
	    NULL)
		srv_json_put(blk, "null_rate", obj_dup(v));
	return blk;
}

int
ctx_edge_nulls(struct ctx *x, const struct ctx_edge *g, double *rate,
    const cJSON **node)
{
	const cJSON *col, *parts, *p;
	char *key;
	double rows, occ, nulls;

	*node = NULL;
	if (g->incoming || cJSON_GetArraySize(g->cols) != 1 ||
	    !cJSON_IsString(cJSON_GetArrayItem(g->cols, 0)))
		return 0;
	col = obj_stats_col(x, cJSON_GetArrayItem(g->cols, 0)->valuestring);
	if (col == NULL)
		return 0;
	if (g->path == NULL || cJSON_GetArraySize(g->path) == 0) {
		if (!ctx_nullable(col))
			return 0;
		*node = cJSON_GetObjectItemCaseSensitive(col, "null_rate");
		if (!cJSON_IsNumber(*node)) {
			*node = NULL;
			return 0;
		}
		*rate = (*node)->valuedouble;
		return 1;
	}
	if ((key = ctx_part_key(g->path)) == NULL)
		return 0;
	parts = cJSON_GetObjectItemCaseSensitive(col, "parts");
	p = cJSON_GetObjectItemCaseSensitive(parts, key);
	free(key);
	if (!cJSON_IsObject(p))
		return 0;
	rows = ctx_nonnull(x, col, 0) + (double)ctx_int(
	    cJSON_GetObjectItemCaseSensitive(col, "null_count"), 0);
	occ = (double)ctx_int(cJSON_GetObjectItemCaseSensitive(p,
	    "occurrences"), 0);
	nulls = (double)ctx_int(cJSON_GetObjectItemCaseSensitive(p,
	    "null_count"), 0);
	if (rows <= 0)
		*rate = 0;
	else
		*rate = ctx_round_rate((rows - (occ - nulls)) / rows);
	return 2;
}

static cJSON *
obj_joins(struct ctx *x)
{
	cJSON *j, *out, *in, *e;
	const cJSON *node;
	size_t i;
	double rate;
	int k;

	if ((j = cJSON_CreateObject()) == NULL)
		return NULL;
	out = cJSON_AddArrayToObject(j, "refers_to");
	in = cJSON_AddArrayToObject(j, "referenced_by");
	for (i = 0; i < x->nedges; i++) {
		const struct ctx_edge *g = &x->edges[i];

		e = cJSON_CreateObject();
		if (g->cols != NULL)
			srv_json_put(e, "column", obj_dup(g->cols));
		if (!g->incoming) {
			if (g->path != NULL)
				srv_json_put(e, "path",
				    obj_dup(g->path));
			cJSON_AddStringToObject(e, "target_table", g->table);
			if (g->ocols != NULL)
				srv_json_put(e, "target_column",
				    obj_dup(g->ocols));
			if (g->tpath != NULL)
				srv_json_put(e, "target_path",
				    obj_dup(g->tpath));
		} else {
			cJSON_AddStringToObject(e, "referencer_table",
			    g->table);
			if (g->ocols != NULL)
				srv_json_put(e, "referencer_column",
				    obj_dup(g->ocols));
			if (g->path != NULL)
				srv_json_put(e, "referencer_path",
				    obj_dup(g->path));
			if (g->tpath != NULL)
				srv_json_put(e, "target_path",
				    obj_dup(g->tpath));
		}
		cJSON_AddStringToObject(e, "detection", g->detection);
		if (g->note != NULL)
			cJSON_AddStringToObject(e, "note", g->note);
		k = ctx_edge_nulls(x, g, &rate, &node);
		if (k == 1)
			srv_json_put(e, "null_rate", obj_dup(node));
		else if (k == 2)
			srv_json_put(e, "null_rate", obj_float(rate));
		cJSON_AddItemToArray(g->incoming ? in : out, e);
	}
	return j;
}

/* 1 when column name is the single plain column of a refers_to edge. */
static int
obj_on_edge(struct ctx *x, const char *name)
{
	size_t i;
	const cJSON *c;

	for (i = 0; i < x->nedges; i++) {
		const struct ctx_edge *g = &x->edges[i];

		if (g->incoming || cJSON_GetArraySize(g->cols) != 1 ||
		    (g->path != NULL && cJSON_GetArraySize(g->path) > 0))
			continue;
		c = cJSON_GetArrayItem(g->cols, 0);
		if (cJSON_IsString(c) && strcmp(c->valuestring, name) == 0)
			return 1;
	}
	return 0;
}

/* The values unit: the value block of each column and each column
 * part; the map it is made of, or NULL when out of memory. */
static cJSON *
obj_values(struct ctx *x, struct ctx_obj *o, cJSON *cols)
{
	cJSON *vals, *c, *p, *blk;
	struct ctx_vrow r;
	struct dbp_buf b;
	const char *label;
	char *lab;

	if ((vals = obj_keep(o, cJSON_CreateObject())) == NULL)
		return NULL;
	cJSON_ArrayForEach(c, cols) {
		if (c->string == NULL || !cJSON_IsObject(c))
			continue;
		if (ctx_vrow(x, c->string, c->string, 0, c, &r) == -1)
			return NULL;
		if (r.kind != CTX_V_NONE) {
			blk = obj_vblock(x, &r, c->string, 0);
			srv_json_put(vals, c->string, blk);
		}
		free(r.shown);
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(
		    c, "parts")) {
			if (p->string == NULL || !cJSON_IsObject(p))
				continue;
			if (ctx_vrow(x, p->string, c->string, 1, p,
			    &r) == -1)
				return NULL;
			if (r.kind != CTX_V_NONE) {
				dbp_buf_init(&b, DBP_MAX_SCALAR);
				dbp_buf_addf(&b, "%s%s", c->string,
				    p->string);
				lab = dbp_buf_take(&b);
				label = obj_str(o, lab ? lab : "");
				free(lab);
				blk = obj_vblock(x, &r, c->string, 1);
				srv_json_put(vals, label, blk);
			}
			free(r.shown);
		}
	}
	if (obj_map_units(o, "values", vals) == -1)
		return NULL;
	return vals;
}

/* The nulls unit: the null rate of each nullable column that neither
 * a value block nor a join already states. */
static int
obj_nulls(struct ctx *x, struct ctx_obj *o, cJSON *cols, cJSON *vals)
{
	cJSON *nulls, *c, *p;
	int has_row;

	if ((nulls = obj_keep(o, cJSON_CreateObject())) == NULL)
		return -1;
	cJSON_ArrayForEach(c, cols) {
		if (c->string == NULL || !ctx_nullable(c))
			continue;
		has_row = cJSON_GetObjectItemCaseSensitive(vals,
		    c->string) != NULL;
		if (has_row || (x->inc_rel && obj_on_edge(x,
		    c->string) && cJSON_IsNumber(
		    cJSON_GetObjectItemCaseSensitive(c, "null_rate"))))
			continue;
		p = cJSON_GetObjectItemCaseSensitive(c, "null_rate");
		if (p != NULL)
			srv_json_put(nulls, c->string,
			    obj_dup(p));
	}
	if (obj_unit(o, "nulls", NULL, NULL, nulls, 0) == -1)
		return -1;
	return 0;
}

static int
obj_query(struct ctx *x, struct ctx_obj *o)
{
	cJSON *cols, *c, *vals = NULL, *dict, *inh, *a;
	const char *note;

	if (obj_text_units(x, o, "ddl") == -1 ||
	    obj_text_units(x, o, "notes") == -1)
		return -1;
	cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
	if (cJSON_IsObject(x->stats) &&
	    (vals = obj_values(x, o, cols)) == NULL)
		return -1;
	if (x->inc_rel && x->relv != NULL) {
		if (obj_unit(o, "joins", NULL, NULL,
		    obj_keep(o, obj_joins(x)), 0) == -1)
			return -1;
	}
	if (cJSON_IsObject(x->stats) && obj_nulls(x, o, cols, vals) == -1)
		return -1;
	if (x->inc_annot && cJSON_IsObject(x->sannot)) {
		if ((dict = obj_keep(o, cJSON_CreateObject())) == NULL)
			return -1;
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(
		    x->sannot, "columns")) {
			note = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
			    a, "note")) ? cJSON_GetObjectItemCaseSensitive(a,
			    "note")->valuestring : NULL;
			if (a->string != NULL && note != NULL)
				cJSON_AddStringToObject(dict, a->string, note);
		}
		if (obj_map_units(o, "dictionary", dict) == -1)
			return -1;
	}
	if (x->inc_annot && cJSON_IsObject(x->stats)) {
		cJSON *all = obj_keep(o, cJSON_CreateObject());

		if (all == NULL)
			return -1;
		cJSON_ArrayForEach(c, cols) {
			if (c->string == NULL)
				continue;
			if ((inh = ctx_inherited(x, c->string)) != NULL)
				srv_json_put(all, c->string, inh);
		}
		if (all->child != NULL &&
		    obj_map_units(o, "inherited_notes", all) == -1)
			return -1;
	}
	return obj_text_units(x, o, "description");
}

int
ctx_obj_build(struct ctx *x, struct ctx_obj *o)
{
	int rc;

	memset(o, 0, sizeof(*o));
	if ((o->hold = cJSON_CreateArray()) == NULL)
		return call_fail(x->c, "out of memory");
	rc = obj_identity(x, o);
	if (rc == 0)
		rc = x->purpose == CTX_QUERY ? obj_query(x, o) :
		    obj_profile(x, o);
	if (rc == -1)
		return call_fail(x->c, "out of memory");
	return 0;
}

void
ctx_obj_release(struct ctx_obj *o)
{
	free(o->units);
	cJSON_Delete(o->hold);
	memset(o, 0, sizeof(*o));
}

/*
 * reject.c - withholding the relationship edges a human rejected.
 *
 * relationships.annotations.yaml, in the referencing (source) table's own
 * directory, may mark an edge of its refers_to list `verdict: rejected`
 * (format SPEC 2.7.2).  Every surface that hands the relationship graph to
 * an agent withholds such an edge (MCP spec 3.4, 4.1, 4.5): get_diff and
 * the diff resource drop the relationship events about it, the
 * relationships resource drops it from refers_to and referenced_by, and
 * get_table_context leaves it out of the Joins.  A verdict never withholds
 * an edge the source table's current relationships.yaml declares.
 *
 * The edge is addressed by (columns, target table, target columns), the
 * triplet refers_to carries; a missing list reads as the empty one.  The
 * verdicts of one source table are read once per call (from the index's
 * parsed copy of the files) and every file consulted is pinned through the
 * caller's callback, so a cursor or a resource version covers them.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* What one referencing table's files say. */
struct rej_src {
	char	*fqn;
	cJSON	*rejected;	/* annotation entries with verdict rejected */
	cJSON	*declared;	/* refers_to entries detection declared; lazy */
	int	 declared_read;
};

void
rej_init(struct rej *r, struct srv_conn *cn,
    int (*pin)(void *, const char *), void *pin_ctx)
{
	memset(r, 0, sizeof(*r));
	r->cn = cn;
	r->pin = pin;
	r->pin_ctx = pin_ctx;
}

void
rej_release(struct rej *r)
{
	size_t i;

	for (i = 0; i < r->nsrc; i++) {
		free(r->src[i].fqn);
		cJSON_Delete(r->src[i].rejected);
		cJSON_Delete(r->src[i].declared);
	}
	free(r->src);
	r->src = NULL;
	r->nsrc = 0;
}

/* Python's tuple(v or []) as the comparison sees it: two column lists are
 * equal when both are empty-ish, or both arrays with equal members, or
 * equal strings. */
static int
rej_empty(const cJSON *v)
{
	return v == NULL || cJSON_IsNull(v) || cJSON_IsFalse(v) ||
	    (cJSON_IsArray(v) && v->child == NULL) ||
	    (cJSON_IsString(v) && v->valuestring[0] == '\0') ||
	    (cJSON_IsNumber(v) && v->valuedouble == 0);
}

static int
rej_cols_eq(const cJSON *a, const cJSON *b)
{
	if (rej_empty(a) || rej_empty(b))
		return rej_empty(a) && rej_empty(b);
	return cJSON_Compare(a, b, 1);
}

/* Equality of two table names; both must be present strings. */
static int
rej_name_eq(const cJSON *a, const char *b)
{
	return cJSON_IsString(a) && b != NULL && strcmp(a->valuestring, b) == 0;
}

static int
rej_pin(struct rej *r, const char *path)
{
	if (r->pin == NULL)
		return 0;
	return r->pin(r->pin_ctx, path);
}

static int
rej_walkable(struct rej *r, const char *fqn)
{
	static const char sql[] =
	    "SELECT walkable FROM tables WHERE fqn = ?";
	sqlite3_stmt *st = NULL;
	int w = 0;

	if (sqlite3_prepare_v2(r->cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, fqn, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		w = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return w;
}

/* The refers_to entries of the file at path (a declared artifact of the
 * table) that keep(entry) accepts, as a new array; NULL when none. */
static cJSON *
rej_entries(struct rej *r, const char *path,
    int (*keep)(const cJSON *))
{
	cJSON *doc, *list, *e, *out = NULL;

	if ((doc = srv_file_doc(r->cn, path)) == NULL)
		return NULL;
	list = cJSON_GetObjectItemCaseSensitive(doc, "refers_to");
	if (!cJSON_IsArray(list))
		list = NULL;
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsObject(e) || !keep(e))
			continue;
		if (out == NULL && (out = cJSON_CreateArray()) == NULL)
			break;
		cJSON_AddItemToArray(out, cJSON_Duplicate(e, 1));
	}
	cJSON_Delete(doc);
	return out;
}

static int
rej_is_rejected(const cJSON *e)
{
	return rej_name_eq(cJSON_GetObjectItemCaseSensitive(e, "verdict"),
	    "rejected");
}

static int
rej_is_declared(const cJSON *e)
{
	const cJSON *det = cJSON_GetObjectItemCaseSensitive(e, "detection");

	/* An absent detection reads as inferred. */
	return rej_name_eq(det, "declared");
}

/* The cache entry of source table fqn, reading its annotation file on
 * first use.  NULL only on OOM or a pin failure (d set). */
static struct rej_src *
rej_source(struct rej *r, const char *fqn, struct dbp_diag *d)
{
	struct rej_src *s, *ns;
	char *path;
	size_t i;

	for (i = 0; i < r->nsrc; i++)
		if (strcmp(r->src[i].fqn, fqn) == 0)
			return &r->src[i];
	ns = realloc(r->src, (r->nsrc + 1) * sizeof(*ns));
	if (ns == NULL) {
		dbp_fail(d, "out of memory");
		return NULL;
	}
	r->src = ns;
	s = &r->src[r->nsrc];
	memset(s, 0, sizeof(*s));
	if ((s->fqn = strdup(fqn)) == NULL) {
		dbp_fail(d, "out of memory");
		return NULL;
	}
	r->nsrc++;
	if (!rej_walkable(r, fqn))
		return s;
	path = srv_artifact_path(r->cn, fqn, "relationships_annotations");
	if (path == NULL)
		return s;
	if (rej_pin(r, path) == -1) {
		free(path);
		dbp_fail(d, "cannot refresh the index");
		return NULL;
	}
	s->rejected = rej_entries(r, path, rej_is_rejected);
	free(path);
	return s;
}

/* Read the declared refers_to edges of s (once). */
static int
rej_declared(struct rej *r, struct rej_src *s, struct dbp_diag *d)
{
	char *path;

	if (s->declared_read)
		return 0;
	s->declared_read = 1;
	path = srv_artifact_path(r->cn, s->fqn, "relationships");
	if (path == NULL)
		return 0;
	if (rej_pin(r, path) == -1) {
		free(path);
		return dbp_fail(d, "cannot refresh the index");
	}
	s->declared = rej_entries(r, path, rej_is_declared);
	free(path);
	return 0;
}

/* 1 when list holds an entry addressing (cols, to_table, to_cols). */
static int
rej_listed(const cJSON *list, const cJSON *cols, const char *to_table,
    const cJSON *to_cols)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, list) {
		if (rej_cols_eq(cJSON_GetObjectItemCaseSensitive(e, "column"),
		    cols) &&
		    rej_name_eq(cJSON_GetObjectItemCaseSensitive(e,
		    "target_table"), to_table) &&
		    rej_cols_eq(cJSON_GetObjectItemCaseSensitive(e,
		    "target_column"), to_cols))
			return 1;
	}
	return 0;
}

int
rej_edge_rejected(struct rej *r, const char *from_table,
    const cJSON *from_cols, const char *to_table, const cJSON *to_cols,
    struct dbp_diag *d)
{
	struct rej_src *s;

	if (from_table == NULL || to_table == NULL)
		return 0;
	if ((s = rej_source(r, from_table, d)) == NULL)
		return -1;
	if (s->rejected == NULL ||
	    !rej_listed(s->rejected, from_cols, to_table, to_cols))
		return 0;
	if (rej_declared(r, s, d) == -1)
		return -1;
	if (s->declared != NULL &&
	    rej_listed(s->declared, from_cols, to_table, to_cols))
		return 0;
	return 1;
}

static const char *
rej_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
rej_summary(cJSON *doc, size_t n)
{
	cJSON *sum, *rc;
	char *end, spell[32];
	long long v;

	sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
	rc = cJSON_GetObjectItemCaseSensitive(sum, "relationships_changed");
	if (!cJSON_IsObject(sum) || !cJSON_IsNumber(rc))
		return 0;
	v = strtoll(dbp_num_text(rc), &end, 10);
	if (*end != '\0')
		return 0;	/* not an int: left as it is */
	v -= (long long)n;
	snprintf(spell, sizeof(spell), "%lld", v);
	free(rc->valuestring);
	if ((rc->valuestring = strdup(spell)) == NULL)
		return -1;
	cJSON_SetNumberValue(rc, (double)v);
	return 0;
}

int
rej_event(struct rej *r, const cJSON *e, struct dbp_diag *d)
{
	const char *kind;

	if (!cJSON_IsObject(e))
		return 0;
	kind = rej_str(e, "kind");
	if (kind == NULL || strncmp(kind, "relationship_", 13) != 0)
		return 0;
	return rej_edge_rejected(r, rej_str(e, "source_table"),
	    cJSON_GetObjectItemCaseSensitive(e, "source_column"),
	    rej_str(e, "target_table"),
	    cJSON_GetObjectItemCaseSensitive(e, "target_column"), d);
}

int
rej_diff(struct rej *r, cJSON *doc, size_t *dropped, struct dbp_diag *d)
{
	cJSON *changes, *e, *next;
	int rc;

	*dropped = 0;
	changes = cJSON_GetObjectItemCaseSensitive(doc, "changes");
	if (!cJSON_IsObject(doc) || !cJSON_IsArray(changes))
		return 0;
	for (e = changes->child; e != NULL; e = next) {
		next = e->next;
		if ((rc = rej_event(r, e, d)) == -1)
			return -1;
		if (rc == 1) {
			cJSON_Delete(cJSON_DetachItemViaPointer(changes, e));
			(*dropped)++;
		}
	}
	if (*dropped > 0 && rej_summary(doc, *dropped) == -1)
		return dbp_fail(d, "out of memory");
	return 0;
}

/* Drop the withheld entries of doc[key]; side names the list. */
static int
rej_list(struct rej *r, const char *fqn, cJSON *doc, int incoming,
    size_t *dropped, struct dbp_diag *d)
{
	cJSON *list, *e, *next;
	int rc;

	list = cJSON_GetObjectItemCaseSensitive(doc,
	    incoming ? "referenced_by" : "refers_to");
	if (!cJSON_IsArray(list))
		return 0;
	for (e = list->child; e != NULL; e = next) {
		next = e->next;
		/* A declared edge is never withheld, whatever the verdict. */
		if (!cJSON_IsObject(e) || rej_is_declared(e))
			continue;
		if (incoming)
			rc = rej_edge_rejected(r, rej_str(e,
			    "referencer_table"),
			    cJSON_GetObjectItemCaseSensitive(e,
			    "referencer_column"), fqn,
			    cJSON_GetObjectItemCaseSensitive(e, "column"), d);
		else
			rc = rej_edge_rejected(r, fqn,
			    cJSON_GetObjectItemCaseSensitive(e, "column"),
			    rej_str(e, "target_table"),
			    cJSON_GetObjectItemCaseSensitive(e,
			    "target_column"), d);
		if (rc == -1)
			return -1;
		if (rc == 1) {
			cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
			(*dropped)++;
		}
	}
	return 0;
}

int
rej_relationships(struct rej *r, const char *fqn, cJSON *doc,
    size_t *dropped, struct dbp_diag *d)
{
	*dropped = 0;
	if (!cJSON_IsObject(doc))
		return 0;
	if (rej_list(r, fqn, doc, 0, dropped, d) == -1 ||
	    rej_list(r, fqn, doc, 1, dropped, d) == -1)
		return -1;
	return 0;
}

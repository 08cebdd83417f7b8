/*
 * ctx_rel.c - the relationship graph as get_table_context shows it
 * (spec 4.1, format SPEC 2.7.2):
 *
 *   - an edge a human rejected in the REFERENCING table's
 *     relationships.annotations.yaml is withheld from both sides, unless
 *     the edge is declared (a verdict never contradicts the catalog);
 *   - an entry without a verdict that matches an emitted edge lends it its
 *     note; one that matches nothing is a human-added edge, listed on both
 *     tables it joins with detection "annotated";
 *   - relationship_annotations is the table's own annotation file less the
 *     verdict entries of the edges it withheld.
 *
 * The table's own files come from the caller; what other tables' files
 * say about this one comes from the index's edges table (source
 * 'annotated'), and each of those files is pinned for the cursor.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdlib.h>
#include <string.h>

#include "ctx.h"

/* Ranks of the Joins order: declared, inferred, measured, then edges a
 * human added. */
static int
rel_rank(const char *det)
{
	if (det == NULL || strcmp(det, "inferred") == 0)
		return 1;
	if (strcmp(det, "declared") == 0)
		return 0;
	if (strcmp(det, "measured") == 0)
		return 2;
	return 3;
}

static const char *
rel_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Two column lists (or paths) equal, a missing list reading as empty. */
static int
rel_list_eq(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (!cJSON_IsArray(a) && !cJSON_IsString(a))
		a = NULL;
	if (!cJSON_IsArray(b) && !cJSON_IsString(b))
		b = NULL;
	if (a == NULL || b == NULL)
		return cJSON_GetArraySize(a) == 0 &&
		    cJSON_GetArraySize(b) == 0 && !cJSON_IsString(a) &&
		    !cJSON_IsString(b);
	if (cJSON_IsString(a) || cJSON_IsString(b))
		return cJSON_IsString(a) && cJSON_IsString(b) &&
		    strcmp(a->valuestring, b->valuestring) == 0;
	for (x = a->child, y = b->child; x != NULL && y != NULL;
	    x = x->next, y = y->next)
		if (!cJSON_Compare(x, y, 1))
			return 0;
	return x == NULL && y == NULL;
}

static int
rel_streq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int
rel_is_rejected(const cJSON *e)
{
	return rel_streq(rel_str(e, "verdict"), "rejected");
}

static int
rel_is_declared(const cJSON *e)
{
	return rel_streq(rel_str(e, "detection"), "declared");
}

char *
ctx_part_key(const cJSON *path)
{
	struct dbp_buf b;
	const cJSON *k;
	const char *s;
	int plain;

	if (!cJSON_IsArray(path) || cJSON_GetArraySize(path) == 0)
		return NULL;
	dbp_buf_init(&b, DBP_MAX_SCALAR);
	cJSON_ArrayForEach(k, path) {
		if (!cJSON_IsString(k)) {
			dbp_buf_release(&b);
			return NULL;
		}
		s = k->valuestring;
		plain = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    *s == '_';
		for (; plain && *s != '\0'; s++)
			plain = (*s >= 'A' && *s <= 'Z') ||
			    (*s >= 'a' && *s <= 'z') || *s == '_' ||
			    (*s >= '0' && *s <= '9');
		if (plain) {
			dbp_buf_addc(&b, '.');
			dbp_buf_adds(&b, k->valuestring);
			continue;
		}
		/* RFC 8785: escape only '"', '\\' and U+0000-U+001F */
		dbp_buf_adds(&b, "[\"");
		for (s = k->valuestring; *s != '\0'; s++) {
			switch (*s) {
			case '"': dbp_buf_adds(&b, "\\\""); break;
			case '\\': dbp_buf_adds(&b, "\\\\"); break;
			case '\b': dbp_buf_adds(&b, "\\b"); break;
			case '\t': dbp_buf_adds(&b, "\\t"); break;
			case '\n': dbp_buf_adds(&b, "\\n"); break;
			case '\f': dbp_buf_adds(&b, "\\f"); break;
			case '\r': dbp_buf_adds(&b, "\\r"); break;
			default:
				if ((unsigned char)*s < 0x20)
					dbp_buf_addf(&b, "\\u%04x",
					    (unsigned char)*s);
				else
					dbp_buf_addc(&b, *s);
			}
		}
		dbp_buf_adds(&b, "\"]");
	}
	return dbp_buf_take(&b);
}

/* The relationships_annotations path of table fqn, or NULL. */
static char *
rel_annot_path(struct ctx *x, const char *fqn)
{
	static const char sql[] = "SELECT path FROM artifacts "
	    "WHERE table_fqn = ? AND kind = 'relationships_annotations'";
	sqlite3_stmt *st;
	char *p = NULL;

	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, fqn, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_text(st, 0) != NULL)
		p = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return p;
}

/* Pin the annotation file of every other table whose verdicts or
 * additions bear on this one: the referencers the file lists and every
 * table the index knows states an edge into this one. */
static int
rel_pin_others(struct ctx *x)
{
	static const char sql[] = "SELECT DISTINCT from_table FROM edges "
	    "WHERE source = 'annotated' AND to_table = ? AND from_table <> ?";
	cJSON *names, *e, *rb;
	sqlite3_stmt *st = NULL;
	const char *t;
	char *p;
	int rc = 0;

	if ((names = cJSON_CreateObject()) == NULL)
		return call_fail(x->c, "out of memory");
	rb = cJSON_GetObjectItemCaseSensitive(x->rel, "referenced_by");
	cJSON_ArrayForEach(e, rb) {
		t = rel_str(e, "referencer_table");
		if (t != NULL && strcmp(t, x->fqn) != 0 &&
		    !cJSON_HasObjectItem(names, t))
			cJSON_AddTrueToObject(names, t);
	}
	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, x->fqn, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, x->fqn, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			t = (const char *)sqlite3_column_text(st, 0);
			if (t != NULL && !cJSON_HasObjectItem(names, t))
				cJSON_AddTrueToObject(names, t);
		}
	}
	sqlite3_finalize(st);
	for (e = names->child; e != NULL && rc == 0; e = e->next) {
		if ((p = rel_annot_path(x, e->string)) == NULL)
			continue;
		rc = call_pin1(x->c, p);
		free(p);
	}
	cJSON_Delete(names);
	return rc;
}

/* The human entries other tables' files state about edges into this
 * table, as refers_to-shaped objects with "_from" naming the referencing
 * table.  A new array (caller deletes), NULL on OOM. */
static cJSON *
rel_foreign(struct ctx *x)
{
	static const char sql[] = "SELECT from_table, edge FROM edges "
	    "WHERE source = 'annotated' AND to_table = ? ORDER BY id";
	sqlite3_stmt *st = NULL;
	cJSON *out, *e;
	const char *t, *j;

	if ((out = cJSON_CreateArray()) == NULL)
		return NULL;
	if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK)
		return out;
	sqlite3_bind_text(st, 1, x->fqn, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		t = (const char *)sqlite3_column_text(st, 0);
		j = (const char *)sqlite3_column_text(st, 1);
		if (t == NULL || j == NULL)
			continue;
		e = srv_json_parse(j, strlen(j));
		if (!cJSON_IsObject(e)) {
			cJSON_Delete(e);
			continue;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(e, "_from");
		cJSON_AddStringToObject(e, "_from", t);
		cJSON_AddItemToArray(out, e);
	}
	sqlite3_finalize(st);
	return out;
}

/* The refers_to-side key of entry a equals emitted refers_to entry e. */
static int
rel_key_out(const cJSON *a, const cJSON *e, int paths)
{
	if (!rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "column"),
	    cJSON_GetObjectItemCaseSensitive(e, "column")) ||
	    !rel_streq(rel_str(a, "target_table"),
	    rel_str(e, "target_table")) ||
	    !rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "target_column"),
	    cJSON_GetObjectItemCaseSensitive(e, "target_column")))
		return 0;
	if (!paths)
		return 1;
	return rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "path"),
	    cJSON_GetObjectItemCaseSensitive(e, "path")) &&
	    rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "target_path"),
	    cJSON_GetObjectItemCaseSensitive(e, "target_path"));
}

/* Annotation entry a (refers_to-shaped, from table "from") addresses
 * emitted referenced_by entry e of this table. */
static int
rel_key_in(const cJSON *a, const char *from, const cJSON *e, int paths)
{
	if (!rel_streq(from, rel_str(e, "referencer_table")) ||
	    !rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "column"),
	    cJSON_GetObjectItemCaseSensitive(e, "referencer_column")) ||
	    !rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "target_column"),
	    cJSON_GetObjectItemCaseSensitive(e, "column")))
		return 0;
	if (!paths)
		return 1;
	return rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "path"),
	    cJSON_GetObjectItemCaseSensitive(e, "referencer_path")) &&
	    rel_list_eq(cJSON_GetObjectItemCaseSensitive(a, "target_path"),
	    cJSON_GetObjectItemCaseSensitive(e, "target_path"));
}

static void
rel_set_note(cJSON *e, const cJSON *a, int inc_annot)
{
	const char *note = rel_str(a, "note");
	char *n;

	if (!inc_annot || note == NULL)
		return;
	if ((n = ctx_collapse(note)) == NULL)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(e, "note");
	cJSON_AddStringToObject(e, "note", n);
	free(n);
}

static void
rel_copy(cJSON *to, const char *tokey, const cJSON *from, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);

	if (v != NULL)
		srv_json_put(to, tokey, cJSON_Duplicate(v, 1));
}

/* Apply this table's own annotation entries to relv's refers_to. */
static int
rel_own(struct ctx *x, cJSON *out, cJSON *withheld)
{
	cJSON *ann, *a, *e, *n, *next;
	int hit;

	ann = cJSON_GetObjectItemCaseSensitive(x->rannot, "refers_to");
	cJSON_ArrayForEach(a, ann) {
		if (!cJSON_IsObject(a))
			continue;
		if (rel_is_rejected(a)) {
			hit = 0;
			for (e = out->child; e != NULL; e = next) {
				next = e->next;
				if (!cJSON_IsObject(e) || rel_is_declared(e) ||
				    !rel_key_out(a, e, 0))
					continue;
				cJSON_Delete(
				    cJSON_DetachItemViaPointer(out, e));
				hit = 1;
			}
			if (hit)
				cJSON_AddItemToArray(withheld,
				    cJSON_CreateBool(1));
			else
				cJSON_AddItemToArray(withheld,
				    cJSON_CreateBool(0));
			continue;
		}
		cJSON_AddItemToArray(withheld, cJSON_CreateBool(0));
		hit = 0;
		cJSON_ArrayForEach(e, out) {
			if (cJSON_IsObject(e) && rel_key_out(a, e, 1)) {
				rel_set_note(e, a, x->inc_annot);
				hit = 1;
			}
		}
		if (hit || rel_str(a, "target_table") == NULL)
			continue;
		if ((n = cJSON_CreateObject()) == NULL)
			return -1;
		rel_copy(n, "column", a, "column");
		rel_copy(n, "path", a, "path");
		rel_copy(n, "target_table", a, "target_table");
		rel_copy(n, "target_column", a, "target_column");
		rel_copy(n, "target_path", a, "target_path");
		cJSON_AddStringToObject(n, "detection", "annotated");
		rel_set_note(n, a, x->inc_annot);
		cJSON_AddItemToArray(out, n);
	}
	return 0;
}

/* Apply every table's entries about edges into this one to relv's
 * referenced_by. */
static int
rel_incoming(struct ctx *x, cJSON *in, cJSON *foreign)
{
	cJSON *a, *e, *n, *next;
	const char *from;
	int hit;

	cJSON_ArrayForEach(a, foreign) {
		from = rel_str(a, "_from");
		if (rel_is_rejected(a)) {
			for (e = in->child; e != NULL; e = next) {
				next = e->next;
				if (cJSON_IsObject(e) && !rel_is_declared(e) &&
				    rel_key_in(a, from, e, 0))
					cJSON_Delete(
					    cJSON_DetachItemViaPointer(in, e));
			}
			continue;
		}
		hit = 0;
		cJSON_ArrayForEach(e, in) {
			if (cJSON_IsObject(e) && rel_key_in(a, from, e, 1)) {
				rel_set_note(e, a, x->inc_annot);
				hit = 1;
			}
		}
		if (hit)
			continue;
		if ((n = cJSON_CreateObject()) == NULL)
			return -1;
		rel_copy(n, "column", a, "target_column");
		cJSON_AddStringToObject(n, "referencer_table", from);
		rel_copy(n, "referencer_column", a, "column");
		rel_copy(n, "referencer_path", a, "path");
		rel_copy(n, "target_path", a, "target_path");
		cJSON_AddStringToObject(n, "detection", "annotated");
		rel_set_note(n, a, x->inc_annot);
		cJSON_AddItemToArray(in, n);
	}
	return 0;
}

/* The edges array of the context, in Joins order. */
static int
rel_edges(struct ctx *x)
{
	cJSON *list[2], *e;
	size_t n = 0, k;
	int dir;

	list[0] = cJSON_GetObjectItemCaseSensitive(x->relv, "refers_to");
	list[1] = cJSON_GetObjectItemCaseSensitive(x->relv, "referenced_by");
	for (dir = 0; dir < 2; dir++)
		n += (size_t)cJSON_GetArraySize(list[dir]);
	if (n == 0)
		return 0;
	if ((x->edges = calloc(n, sizeof(*x->edges))) == NULL)
		return -1;
	k = 0;
	for (dir = 0; dir < 2; dir++) {
		cJSON_ArrayForEach(e, list[dir]) {
			struct ctx_edge *g;

			if (!cJSON_IsObject(e))
				continue;
			g = &x->edges[k++];
			g->incoming = dir;
			g->entry = e;
			g->cols = cJSON_GetObjectItemCaseSensitive(e, "column");
			g->table = rel_str(e, dir ? "referencer_table" :
			    "target_table");
			if (g->table == NULL)
				g->table = "?";
			g->ocols = cJSON_GetObjectItemCaseSensitive(e,
			    dir ? "referencer_column" : "target_column");
			g->path = cJSON_GetObjectItemCaseSensitive(e,
			    dir ? "referencer_path" : "path");
			g->tpath = cJSON_GetObjectItemCaseSensitive(e,
			    "target_path");
			g->detection = rel_str(e, "detection");
			if (g->detection == NULL)
				g->detection = "inferred";
			g->note = rel_str(e, "note");
			g->rank = rel_rank(g->detection);
		}
	}
	x->nedges = k;
	/* insertion sort: stable, so file order holds within a rank */
	{
		size_t i, j;
		struct ctx_edge t;

		for (i = 1; i < k; i++) {
			t = x->edges[i];
			for (j = i; j > 0 && (x->edges[j - 1].incoming >
			    t.incoming || (x->edges[j - 1].incoming ==
			    t.incoming && x->edges[j - 1].rank > t.rank)); j--)
				x->edges[j] = x->edges[j - 1];
			x->edges[j] = t;
		}
	}
	return 0;
}

int
ctx_rel_build(struct ctx *x)
{
	cJSON *withheld = NULL, *foreign = NULL, *out, *in, *a, *next, *w;
	cJSON *ann;

	if (!cJSON_IsObject(x->rel))
		return 0;
	if (rel_pin_others(x) == -1)
		return -1;
	if ((x->relv = cJSON_Duplicate(x->rel, 1)) == NULL)
		goto oom;
	out = cJSON_GetObjectItemCaseSensitive(x->relv, "refers_to");
	if (out == NULL) {
		out = cJSON_AddArrayToObject(x->relv, "refers_to");
	}
	in = cJSON_GetObjectItemCaseSensitive(x->relv, "referenced_by");
	if (in == NULL)
		in = cJSON_AddArrayToObject(x->relv, "referenced_by");
	if (!cJSON_IsArray(out) || !cJSON_IsArray(in))
		goto edges;
	if ((withheld = cJSON_CreateArray()) == NULL ||
	    (foreign = rel_foreign(x)) == NULL)
		goto oom;
	if (cJSON_IsObject(x->rannot) && rel_own(x, out, withheld) == -1)
		goto oom;
	if (rel_incoming(x, in, foreign) == -1)
		goto oom;
	if (cJSON_IsObject(x->rannot)) {
		if ((x->rannotv = cJSON_Duplicate(x->rannot, 1)) == NULL)
			goto oom;
		ann = cJSON_GetObjectItemCaseSensitive(x->rannotv,
		    "refers_to");
		w = withheld->child;
		for (a = cJSON_IsArray(ann) ? ann->child : NULL; a != NULL;
		    a = next) {
			next = a->next;
			if (!cJSON_IsObject(a))
				continue;
			if (w != NULL && cJSON_IsTrue(w))
				cJSON_Delete(cJSON_DetachItemViaPointer(ann,
				    a));
			if (w != NULL)
				w = w->next;
		}
	}
edges:
	cJSON_Delete(withheld);
	cJSON_Delete(foreign);
	if (rel_edges(x) == -1)
		return call_fail(x->c, "out of memory");
	return 0;
oom:
	cJSON_Delete(withheld);
	cJSON_Delete(foreign);
	return call_fail(x->c, "out of memory");
}

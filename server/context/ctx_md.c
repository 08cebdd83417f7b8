/*
 * ctx_md.c - the Markdown of get_table_context (spec 4.1), as sections of
 * lines, each line carrying the terms it prints (for the per-page legend
 * ctx_page.c adds).
 *
 * Header (both purposes):
 *   # Table: <fqn>  (<N> rows, <M> columns)
 *   Type:, Unprofiled:, Adapter:, Missing:, Unreadable: (+ one "> kind:
 *   message" line per corrupt artifact), Scanned:, and under profile
 *   Catalog only:, Depends on:, Grain:; then the Meanings cue.
 * query:   ## DDL, ## Connection notes, ## Column values, ## Joins,
 *          ## Data dictionary
 * profile: ## Connection notes, ## DDL, ## Description, ## Annotations,
 *          ## Cardinality & key columns (or ## Columns (not queried) on a
 *          catalog-only object), ## Columns null on the same rows,
 *          ## Relationships, ## Column parts
 *
 * Our choices where the spec leaves the wording open: table cells escape
 * "|" as "\|" (the one character a Markdown table cannot hold); an entry
 * that is another spelling reads "'ACTIVE' (3, spelling of 'active')"; a
 * redacted list reads "redacted: mask; values: withheld (5), ...".
 */
#define _POSIX_C_SOURCE	200809L

#include <stdlib.h>
#include <string.h>

#include "ctx.h"

/* Most terms one line can carry (a Notes cell names a handful). */
#define MD_LINE_TERMS	64

struct mdw {
	struct ctx	*x;
	struct ctx_md	*m;
	struct ctx_sect	*s;
	struct dbp_buf	 b;
	int		 t[MD_LINE_TERMS];
	size_t		 nt;
	int		 oom;
};

static void
md_term(struct mdw *w, const char *key)
{
	int i = ctx_term(w->m->terms, key);
	size_t k;

	if (i < 0) {
		return;
	}
	for (k = 0; k < w->nt; k++)
		if (w->t[k] == i)
			return;
	if (w->nt < MD_LINE_TERMS)
		w->t[w->nt++] = i;
}

static void
md_term2(struct mdw *w, const char *cat, const char *word)
{
	struct dbp_buf b;
	char *k;

	dbp_buf_init(&b, DBP_MAX_SCALAR);
	dbp_buf_addf(&b, "%s:%s", cat, word);
	if ((k = dbp_buf_take(&b)) == NULL) {
		w->oom = 1;
		return;
	}
	md_term(w, k);
	free(k);
}

static void
md_sect(struct mdw *w)
{
	struct ctx_md *m = w->m;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		void *p = realloc(m->sects, cap * sizeof(*m->sects));

		if (p == NULL) {
			w->oom = 1;
			return;
		}
		m->sects = p;
		m->cap = cap;
	}
	memset(&m->sects[m->n], 0, sizeof(m->sects[m->n]));
	w->s = &m->sects[m->n++];
}

/* End the line being written and add it to the current section. */
static void
md_end(struct mdw *w)
{
	struct ctx_sect *s = w->s;
	struct ctx_line *l;

	dbp_buf_adds(&w->b, "");
	if (w->b.failed || s == NULL) {
		w->oom = 1;
		dbp_buf_release(&w->b);
		w->nt = 0;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		void *p = realloc(s->lines, cap * sizeof(*s->lines));

		if (p == NULL) {
			w->oom = 1;
			return;
		}
		s->lines = p;
		s->cap = cap;
	}
	l = &s->lines[s->n++];
	memset(l, 0, sizeof(*l));
	l->text = dbp_buf_take(&w->b);
	if (w->nt > 0) {
		if ((l->terms = malloc(w->nt * sizeof(int))) == NULL)
			w->oom = 1;
		else {
			memcpy(l->terms, w->t, w->nt * sizeof(int));
			l->nterms = w->nt;
		}
	}
	w->nt = 0;
	dbp_buf_init(&w->b, DBP_MAX_FILE_BYTES);
}

/* Open a section: its title line, then a blank line. */
static void
md_heading(struct mdw *w, const char *title)
{
	md_sect(w);
	dbp_buf_adds(&w->b, title);
	md_end(w);
	dbp_buf_adds(&w->b, "");
	md_end(w);
}

/* A table's header row head ("| A | B |") and its rule ("| --- | --- |"),
 * a cell of the rule for each "|" of head after the first. */
static void
md_thead(struct mdw *w, const char *head)
{
	const char *p;

	dbp_buf_adds(&w->b, head);
	md_end(w);
	for (p = strchr(head, '|'); (p = strchr(p + 1, '|')) != NULL; )
		dbp_buf_adds(&w->b, "| --- ");
	dbp_buf_adds(&w->b, "|");
	md_end(w);
}

/* Add s as lines (one per line of s; trailing newlines dropped). */
static void
md_text(struct mdw *w, const char *s)
{
	const char *nl;
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	while (n > 0) {
		nl = memchr(s, '\n', n);
		if (nl == NULL) {
			dbp_buf_add(&w->b, s, n);
			md_end(w);
			break;
		}
		dbp_buf_add(&w->b, s, (size_t)(nl - s));
		if (w->b.len > 0 && w->b.ptr[w->b.len - 1] == '\r')
			w->b.ptr[--w->b.len] = '\0';
		md_end(w);
		n -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
}

/* Append s collapsed to one line (notes, messages). */
static void
md_one(struct mdw *w, const char *s)
{
	char *c = ctx_collapse(s);

	if (c == NULL) {
		w->oom = 1;
		return;
	}
	dbp_buf_adds(&w->b, c);
	free(c);
}

/* Append a table cell's text, "|" escaped. */
static void
md_cell(struct mdw *w, const char *s)
{
	size_t n;

	while (*s != '\0') {
		n = strcspn(s, "|\n");
		dbp_buf_add(&w->b, s, n);
		s += n;
		if (*s == '|')
			dbp_buf_adds(&w->b, "\\|");
		else if (*s == '\n')
			dbp_buf_addc(&w->b, ' ');
		else
			break;
		s++;
	}
}

static const char *
md_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void
md_num(struct dbp_buf *b, const cJSON *v)
{
	if (cJSON_IsNumber(v))
		ctx_num_pos(b, dbp_num_text(v));
	else
		ctx_literal(b, v);
}

/* The null share of a column as the Markdown states it, or 0 when the
 * print measured none. */
static int
md_null_share(struct ctx *x, const cJSON *col, struct dbp_buf *b)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(col, "null_rate");
	const cJSON *nc = cJSON_GetObjectItemCaseSensitive(col, "null_count");
	char pct[64];

	if (!cJSON_IsNumber(r))
		return 0;
	if (r->valuedouble == 0 || (cJSON_IsNumber(nc) &&
	    nc->valuedouble == 0)) {
		dbp_buf_adds(b, x->scoped ? "none over the rows scanned" :
		    "none");
		return 1;
	}
	ctx_pct(r->valuedouble, pct, sizeof(pct));
	dbp_buf_adds(b, pct);
	return 1;
}

/* ------------------------------------------------------------------ */
/* Header */

/* Artifact k's name; md_kinds[CTX_NKINDS] is the manifest annotations
 * file, which has no kind of its own. */
static const char *const md_kinds[CTX_NKINDS + 1] = {
	"ddl", "statistics", "relationships", "description",
	"statistics_annotations", "relationships_annotations",
	"manifest_annotations"
};

/* The status of artifact k (CTX_NKINDS: the manifest annotations file)
 * when it is declared, on disk and failed to parse; NULL otherwise. */
static const char *
md_unreadable(const struct ctx *x, int k)
{
	const char *st = k < CTX_NKINDS ? x->art[k].status : x->ma_status;

	if ((k < CTX_NKINDS && !x->art[k].declared) || st == NULL ||
	    strcmp(st, "ok") == 0 || strcmp(st, "absent") == 0)
		return NULL;
	return st;
}

/* The Missing and Unreadable lines: declared artifacts absent from
 * disk, and those present that failed to parse. */
static void
md_artifacts(struct mdw *w)
{
	struct ctx *x = w->x;
	int k, n;

	for (n = 0, k = 0; k < CTX_NKINDS; k++) {
		if (!x->art[k].declared || (x->art[k].status != NULL &&
		    strcmp(x->art[k].status, "absent") != 0))
			continue;
		dbp_buf_addf(&w->b, "%s%s", n++ ? ", " : "Missing: ",
		    md_kinds[k]);
	}
	if (n > 0) {
		md_term(w, "label:missing");
		dbp_buf_adds(&w->b, " (declared but missing from disk)");
		md_end(w);
	}
	for (n = 0, k = 0; k <= CTX_NKINDS; k++) {
		if (md_unreadable(x, k) == NULL)
			continue;
		dbp_buf_addf(&w->b, "%s%s", n++ ? ", " : "Unreadable: ",
		    md_kinds[k]);
	}
	if (n > 0) {
		md_term(w, "label:unreadable");
		dbp_buf_adds(&w->b, " (present on disk, failed to parse)");
		md_end(w);
		for (k = 0; k <= CTX_NKINDS; k++) {
			const char *st = md_unreadable(x, k);
			const char *er = k < CTX_NKINDS ? x->art[k].error :
			    x->ma_error;

			if (st == NULL)
				continue;
			dbp_buf_addf(&w->b, "> %s: ", md_kinds[k]);
			md_one(w, er != NULL ? er : st);
			md_end(w);
		}
	}
}

/* The Scanned line: how much of the table the profile read, and
 * whether it was sampled or filtered. */
static void
md_scanned(struct mdw *w)
{
	struct ctx *x = w->x;
	const cJSON *sc, *v;
	char pct[64];

	md_term(w, "label:scanned");
	sc = x->scope;
	if (x->has_scanned)
		dbp_buf_addf(&w->b, "Scanned: %lld", x->rows_scanned);
	else
		dbp_buf_adds(&w->b, "Scanned: part");
	if (x->has_stats_rows) {
		dbp_buf_addf(&w->b, " of %lld rows",
		    x->stats_row_count);
		if (x->has_scanned && x->stats_row_count > 0) {
			ctx_pct((double)x->rows_scanned /
			    (double)x->stats_row_count, pct,
			    sizeof(pct));
			dbp_buf_addf(&w->b, " (%s)", pct);
		}
	} else {
		dbp_buf_adds(&w->b, " rows");
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(sc, "sample")) !=
	    NULL) {
		md_term(w, "label:sampled");
		dbp_buf_adds(&w->b, "; sampled");
	}
	if (md_str(sc, "filter") != NULL) {
		md_term(w, "label:filtered");
		dbp_buf_adds(&w->b, "; filtered by `");
		md_one(w, md_str(sc, "filter"));
		dbp_buf_adds(&w->b, "`");
	}
	md_end(w);
}

/* The profile's Catalog only, Depends on and Grain lines. */
static void
md_shape(struct mdw *w)
{
	struct ctx *x = w->x;
	const cJSON *v, *e;
	int first;

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x->stats,
	    "catalog_only"))) {
		md_term(w, "label:catalog_only");
		dbp_buf_adds(&w->b, "Catalog only: no query was issued "
		    "for this object; nothing below was measured");
		md_end(w);
	}
	v = cJSON_GetObjectItemCaseSensitive(x->stats, "depends_on");
	if (cJSON_IsArray(v)) {
		md_term(w, "label:depends_on");
		dbp_buf_adds(&w->b, "Depends on: ");
		first = 1;
		cJSON_ArrayForEach(e, v) {
			dbp_buf_adds(&w->b, first ? "" : ", ");
			first = 0;
			if (cJSON_IsString(e))
				dbp_buf_adds(&w->b, e->valuestring);
		}
		if (first)
			dbp_buf_adds(&w->b, "nothing");
		md_end(w);
	}
	v = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(x->stats, "grain"),
	    "keys");
	if (cJSON_GetArraySize(v) > 0) {
		md_term(w, "label:grain");
		dbp_buf_adds(&w->b, "Grain: ");
		first = 1;
		cJSON_ArrayForEach(e, v) {
			const char *det = md_str(e, "detection");

			dbp_buf_adds(&w->b, first ? "" : "; ");
			first = 0;
			ctx_cols(&w->b,
			    cJSON_GetObjectItemCaseSensitive(e,
			    "columns"));
			if (det != NULL) {
				md_term2(w, "detection", det);
				dbp_buf_addf(&w->b, " (%s)", det);
			}
		}
		md_end(w);
	}
}

/* The header: the title line and the lines about the print as a whole. */
static void
md_header(struct mdw *w)
{
	struct ctx *x = w->x;

	md_sect(w);
	dbp_buf_addf(&w->b, "# Table: %s  (", x->fqn);
	if (x->has_rows)
		dbp_buf_addf(&w->b, "%lld rows, ", x->row_count);
	dbp_buf_addf(&w->b, "%lld columns)", x->has_cols ? x->columns_count :
	    (long long)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
	    x->stats, "columns")));
	md_end(w);
	if (x->type != NULL && strcmp(x->type, "table") != 0) {
		md_term2(w, "type", x->type);
		dbp_buf_addf(&w->b, "Type: %s", x->type);
		md_end(w);
	}
	if (x->unprofiled) {
		md_term(w, "label:unprofiled");
		dbp_buf_addf(&w->b, "Unprofiled: the last generate run could "
		    "not profile '%s'; run dbprint generate to see the cause - "
		    "this print is an earlier run's", x->fqn);
		md_end(w);
	}
	if (x->adapter != NULL) {
		dbp_buf_addf(&w->b, "Adapter: %s", x->adapter);
		md_end(w);
	}
	md_artifacts(w);
	if (x->scoped)
		md_scanned(w);
	if (x->purpose == CTX_PROFILE && x->inc_stats && x->stats != NULL)
		md_shape(w);
	if (!ctx_documented(x)) {
		md_term(w, "label:meanings");
		dbp_buf_adds(&w->b, "Meanings: not documented here - read "
		    "codes, units and defaults from the code: the print states "
		    "which values the data holds, not what they mean.");
		md_end(w);
	}
}

/* ------------------------------------------------------------------ */
/* Shared sections */

static void
md_ddl(struct mdw *w)
{
	if (w->x->ddl == NULL)
		return;
	md_heading(w, "## DDL");
	dbp_buf_adds(&w->b, "```sql");
	md_end(w);
	md_text(w, w->x->ddl);
	dbp_buf_adds(&w->b, "```");
	md_end(w);
}

static void
md_conn_notes(struct mdw *w)
{
	if (!w->x->inc_annot || w->x->conn_notes == NULL)
		return;
	md_heading(w, "## Connection notes");
	md_text(w, w->x->conn_notes);
}

/* " (path a.b)" for a non-empty path (an array of keys). */
static void
md_path(struct mdw *w, const cJSON *path)
{
	const cJSON *node;

	if (cJSON_GetArraySize(path) == 0)
		return;
	md_term(w, "label:path");
	dbp_buf_adds(&w->b, " (path ");
	cJSON_ArrayForEach(node, path) {
		if (node != path->child)
			dbp_buf_addc(&w->b, '.');
		if (cJSON_IsString(node))
			dbp_buf_adds(&w->b, node->valuestring);
	}
	dbp_buf_addc(&w->b, ')');
}

/* One edge line (Joins, Relationships); designate: append the null
 * share of its single column. */
static void
md_edge(struct mdw *w, const struct ctx_edge *g, int nulls, int observed)
{
	struct ctx *x = w->x;
	const cJSON *node, *obs, *v;
	double rate;
	char pct[64];
	int k, any;

	dbp_buf_adds(&w->b, "- ");
	ctx_cols(&w->b, g->cols);
	md_path(w, g->incoming ? g->tpath : g->path);
	md_term(w, g->incoming ? "label:referenced" : "label:refers");
	dbp_buf_addf(&w->b, " %s %s.", g->incoming ? "<-" : "->", g->table);
	ctx_cols(&w->b, g->ocols);
	md_path(w, g->incoming ? g->path : g->tpath);
	md_term2(w, "detection", g->detection);
	dbp_buf_addf(&w->b, " (%s)", g->detection);
	k = ctx_edge_nulls(x, g, &rate, &node);
	if ((k == 1 && nulls) || k == 2) {
		md_term(w, "label:nulls");
		dbp_buf_adds(&w->b, "; nulls: ");
		if (rate == 0)
			dbp_buf_adds(&w->b, x->scoped ?
			    "none over the rows scanned" : "none");
		else {
			ctx_pct(rate, pct, sizeof(pct));
			dbp_buf_adds(&w->b, pct);
		}
	}
	obs = observed && g->entry != NULL ?
	    cJSON_GetObjectItemCaseSensitive(g->entry, "observed") : NULL;
	if (cJSON_IsObject(obs)) {
		any = 0;
		v = cJSON_GetObjectItemCaseSensitive(obs, "fanout_avg");
		if (cJSON_IsNumber(v)) {
			md_term(w, "label:fanout");
			dbp_buf_adds(&w->b, "; fan-out ");
			md_num(&w->b, v);
			dbp_buf_adds(&w->b, " avg");
			any = 1;
		}
		v = cJSON_GetObjectItemCaseSensitive(obs, "fanout_max");
		if (cJSON_IsNumber(v)) {
			md_term(w, "label:fanout");
			dbp_buf_adds(&w->b, any ? ", " : "; fan-out ");
			md_num(&w->b, v);
			dbp_buf_adds(&w->b, " max");
		}
		v = cJSON_GetObjectItemCaseSensitive(obs, "target_coverage");
		if (cJSON_IsNumber(v)) {
			md_term(w, "label:target_coverage");
			ctx_pct(v->valuedouble, pct, sizeof(pct));
			dbp_buf_addf(&w->b, "; target coverage %s", pct);
		}
	}
	if (g->note != NULL) {
		md_term(w, "label:note");
		dbp_buf_adds(&w->b, "; note: ");
		md_one(w, g->note);
	}
	md_end(w);
}

static void
md_none_found(struct mdw *w)
{
	md_term(w, "label:none_found");
	dbp_buf_adds(&w->b, "none found");
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(w->x->rel,
	    "eligible_target"))) {
		md_term(w, "label:not_target");
		dbp_buf_adds(&w->b, " (not a join target, no declared-unique "
		    "column)");
	}
	md_end(w);
}

/* ------------------------------------------------------------------ */
/* Query */

/* Names of columns with a value row, and of those whose null share a
 * Joins line states: an object used as a set. */
struct md_q {
	cJSON	*rows;
	cJSON	*on_join;
};

static void
md_entries(struct mdw *w, struct ctx_vrow *r, const cJSON *annot)
{
	struct dbp_buf cell;
	const cJSON *v, *sp;
	const char *note;
	char *t;
	size_t i;

	dbp_buf_init(&cell, DBP_MAX_FILE_BYTES);
	if (r->redacted) {
		md_term(w, "label:withheld");
		md_term2(w, "redacted", md_str(r->block, "redacted"));
		dbp_buf_addf(&cell, "redacted: %s; values: ",
		    md_str(r->block, "redacted"));
	}
	for (i = 0; i < r->nshown; i++) {
		if (i > 0)
			dbp_buf_adds(&cell, ", ");
		if (r->redacted) {
			dbp_buf_adds(&cell, "withheld (");
			md_num(&cell, cJSON_GetObjectItemCaseSensitive(
			    r->shown[i], "count"));
			dbp_buf_addc(&cell, ')');
			continue;
		}
		v = cJSON_GetObjectItemCaseSensitive(r->shown[i], "value");
		ctx_literal(&cell, v);
		dbp_buf_adds(&cell, " (");
		md_num(&cell, cJSON_GetObjectItemCaseSensitive(r->shown[i],
		    "count"));
		sp = cJSON_GetObjectItemCaseSensitive(r->shown[i],
		    "spelling_of");
		if (sp != NULL) {
			md_term(w, "label:spelling_of");
			dbp_buf_adds(&cell, ", spelling of ");
			ctx_literal(&cell, sp);
		}
		dbp_buf_addc(&cell, ')');
		if (w->x->inc_annot && annot != NULL &&
		    (note = ctx_value_note(annot, v)) != NULL) {
			char *c = ctx_collapse(note);

			dbp_buf_addf(&cell, " = %s", c != NULL ? c : "");
			free(c);
		}
	}
	if (r->nshown == 0 && !r->redacted)
		dbp_buf_adds(&cell, "none");
	if ((t = dbp_buf_take(&cell)) == NULL) {
		w->oom = 1;
		return;
	}
	md_cell(w, t);
	free(t);
}

static void
md_vrow_line(struct mdw *w, struct ctx_vrow *r, const char *cname, int part)
{
	struct dbp_buf st;
	char *t;

	md_term(w, "label:values");
	dbp_buf_adds(&w->b, "| ");
	md_cell(w, r->name);
	dbp_buf_adds(&w->b, " | ");
	md_entries(w, r, part ? NULL : ctx_col_annot(w->x, cname));
	dbp_buf_adds(&w->b, " | ");
	dbp_buf_init(&st, DBP_MAX_FILE_BYTES);
	ctx_vstatement(w->x, r, &st);
	if ((t = dbp_buf_take(&st)) == NULL) {
		w->oom = 1;
		return;
	}
	md_term(w, "label:coverage");
	md_term(w, r->kind == CTX_V_COMPLETE ? "label:complete" :
	    r->kind == CTX_V_SAMPLE ? "label:sample" : "label:frequent");
	if (r->kind == CTX_V_COMPLETE && w->x->scoped)
		md_term(w, "label:over_scanned");
	if (r->undocumented)
		md_term(w, "label:meanings_cell");
	md_cell(w, t);
	free(t);
	dbp_buf_adds(&w->b, " | ");
	if (!part && ctx_nullable(r->block)) {
		md_term(w, "label:nulls");
		if (md_null_share(w->x, r->block, &w->b) &&
		    w->x->scoped)
			md_term(w, "label:over_scanned");
	}
	dbp_buf_adds(&w->b, " |");
	md_end(w);
}

static void
md_values(struct mdw *w, struct md_q *q)
{
	struct ctx *x = w->x;
	struct ctx_vrow r;
	cJSON *cols, *c, *p;
	struct dbp_buf lab;
	char *l;
	int header = 0, nulls = 0;

	if (x->stats == NULL)
		return;
	md_heading(w, "## Column values");
	cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
	cJSON_ArrayForEach(c, cols) {
		if (c->string == NULL || !cJSON_IsObject(c))
			continue;
		if (ctx_vrow(x, c->string, c->string, 0, c, &r) == -1) {
			w->oom = 1;
			return;
		}
		if (r.kind != CTX_V_NONE) {
			if (!header) {
				md_term(w, "label:values");
				md_term(w, "label:coverage");
				md_term(w, "label:nulls");
				md_thead(w, "| Column | Values | Coverage | "
				    "Nulls |");
				header = 1;
			}
			md_vrow_line(w, &r, c->string, 0);
			cJSON_AddTrueToObject(q->rows, c->string);
		}
		free(r.shown);
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c,
		    "parts")) {
			if (p->string == NULL || !cJSON_IsObject(p))
				continue;
			dbp_buf_init(&lab, DBP_MAX_SCALAR);
			dbp_buf_addf(&lab, "%s%s", c->string, p->string);
			if ((l = dbp_buf_take(&lab)) == NULL ||
			    ctx_vrow(x, l, c->string, 1, p, &r) == -1) {
				free(l);
				w->oom = 1;
				return;
			}
			if (r.kind != CTX_V_NONE) {
				if (!header) {
					md_thead(w, "| Column | Values | "
					    "Coverage | Nulls |");
					header = 1;
				}
				md_vrow_line(w, &r, c->string, 1);
			}
			free(r.shown);
			free(l);
		}
	}
	/* the Nulls: line closes the section */
	cJSON_ArrayForEach(c, cols) {
		if (c->string == NULL || !ctx_nullable(c) ||
		    cJSON_HasObjectItem(q->rows, c->string) ||
		    cJSON_HasObjectItem(q->on_join, c->string) ||
		    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c,
		    "null_rate")))
			continue;
		if (nulls == 0) {
			if (header) {
				dbp_buf_adds(&w->b, "");
				md_end(w);
			}
			md_term(w, "label:nulls");
			dbp_buf_adds(&w->b, "Nulls: ");
		} else {
			dbp_buf_adds(&w->b, ", ");
		}
		nulls++;
		dbp_buf_addf(&w->b, "%s (", c->string);
		md_null_share(x, c, &w->b);
		if (x->scoped && cJSON_GetObjectItemCaseSensitive(c,
		    "null_rate")->valuedouble == 0)
			md_term(w, "label:over_scanned");
		dbp_buf_addc(&w->b, ')');
	}
	if (nulls > 0)
		md_end(w);
	else if (!header) {
		dbp_buf_adds(&w->b, "No column lists values a predicate can "
		    "be written from.");
		md_end(w);
	}
}

/* Which -> lines state their column's null share: the first plain
 * single-column line of a nullable column with no value row. */
static void
md_designate(struct ctx *x, struct md_q *q, unsigned char *nulls)
{
	const cJSON *col, *c;
	size_t i;

	for (i = 0; i < x->nedges; i++) {
		const struct ctx_edge *g = &x->edges[i];

		if (g->incoming || cJSON_GetArraySize(g->cols) != 1 ||
		    cJSON_GetArraySize(g->path) > 0)
			continue;
		c = cJSON_GetArrayItem(g->cols, 0);
		if (!cJSON_IsString(c) ||
		    cJSON_HasObjectItem(q->rows, c->valuestring) ||
		    cJSON_HasObjectItem(q->on_join, c->valuestring))
			continue;
		col = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(x->stats, "columns"),
		    c->valuestring);
		if (col == NULL || !ctx_nullable(col) ||
		    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(col,
		    "null_rate")))
			continue;
		nulls[i] = 1;
		cJSON_AddTrueToObject(q->on_join, c->valuestring);
	}
}

static void
md_joins(struct mdw *w, unsigned char *nulls)
{
	struct ctx *x = w->x;
	size_t i;

	if (!x->inc_rel || x->relv == NULL)
		return;
	md_heading(w, "## Joins");
	for (i = 0; i < x->nedges; i++)
		md_edge(w, &x->edges[i], nulls[i], 0);
	if (x->nedges == 0)
		md_none_found(w);
}

/* "; 'v' = note" for each value note of annotation entry a. */
static void
md_value_notes(struct mdw *w, const cJSON *vals)
{
	const cJSON *e;
	const char *note;

	cJSON_ArrayForEach(e, vals) {
		note = md_str(e, "note");
		if (note == NULL)
			continue;
		dbp_buf_adds(&w->b, "; ");
		ctx_literal(&w->b, cJSON_GetObjectItemCaseSensitive(e,
		    "value"));
		dbp_buf_adds(&w->b, " = ");
		md_one(w, note);
	}
}

static void
md_dictionary(struct mdw *w)
{
	struct ctx *x = w->x;
	cJSON *names, *c, *a, *inh, *e;
	const char *note;
	int any = 0;

	if (!x->inc_annot)
		return;
	if ((names = cJSON_CreateArray()) == NULL) {
		w->oom = 1;
		return;
	}
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(x->stats,
	    "columns"))
		if (c->string != NULL)
			cJSON_AddItemToArray(names,
			    cJSON_CreateString(c->string));
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(x->sannot,
	    "columns"))
		if (a->string != NULL && cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(x->stats, "columns"),
		    a->string) == NULL)
			cJSON_AddItemToArray(names,
			    cJSON_CreateString(a->string));
	cJSON_ArrayForEach(c, names) {
		const char *name = c->valuestring;
		const cJSON *vals;
		int has_vnote = 0;

		a = ctx_col_annot(x, name);
		note = md_str(a, "note");
		vals = cJSON_GetObjectItemCaseSensitive(a, "values");
		cJSON_ArrayForEach(e, vals)
			if (md_str(e, "note") != NULL)
				has_vnote = 1;
		inh = ctx_inherited(x, name);
		if (note == NULL && !has_vnote && inh == NULL)
			continue;
		if (!any) {
			md_heading(w, "## Data dictionary");
			any = 1;
		}
		if (note != NULL || has_vnote) {
			dbp_buf_addf(&w->b, "- %s: ", name);
			if (note != NULL)
				md_one(w, note);
			else
				dbp_buf_adds(&w->b, "(no note)");
			md_value_notes(w, vals);
			md_end(w);
		}
		cJSON_ArrayForEach(e, inh) {
			md_term(w, "label:from");
			dbp_buf_addf(&w->b, "- %s (from %s): ", name,
			    md_str(e, "source") ? md_str(e, "source") : "?");
			if (md_str(e, "note") != NULL)
				md_one(w, md_str(e, "note"));
			else
				dbp_buf_adds(&w->b, "(no note)");
			md_value_notes(w, cJSON_GetObjectItemCaseSensitive(e,
			    "values"));
			md_end(w);
		}
		cJSON_Delete(inh);
	}
	cJSON_Delete(names);
}

static void
md_query(struct mdw *w)
{
	struct md_q q;
	unsigned char *nulls;

	q.rows = cJSON_CreateObject();
	q.on_join = cJSON_CreateObject();
	nulls = calloc(w->x->nedges + 1, 1);
	if (q.rows == NULL || q.on_join == NULL || nulls == NULL) {
		w->oom = 1;
		goto done;
	}
	md_ddl(w);
	md_conn_notes(w);
	/* the value rows decide which null shares the Joins lines state,
	 * and those decide the Nulls: line: build values twice cheaply by
	 * first deciding the rows */
	{
		struct ctx_vrow r;
		cJSON *c;

		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(
		    w->x->stats, "columns")) {
			if (c->string == NULL || !cJSON_IsObject(c))
				continue;
			if (ctx_vrow(w->x, c->string, c->string, 0, c,
			    &r) == -1) {
				w->oom = 1;
				goto done;
			}
			if (r.kind != CTX_V_NONE)
				cJSON_AddTrueToObject(q.rows, c->string);
			free(r.shown);
		}
		if (w->x->inc_rel && w->x->relv != NULL)
			md_designate(w->x, &q, nulls);
		cJSON_Delete(q.rows);
		q.rows = cJSON_CreateObject();
	}
	md_values(w, &q);
	md_joins(w, nulls);
	md_dictionary(w);
done:
	cJSON_Delete(q.rows);
	cJSON_Delete(q.on_join);
	free(nulls);
}

/* ------------------------------------------------------------------ */
/* Profile */

static void
md_annotations(struct mdw *w)
{
	struct ctx *x = w->x;
	const cJSON *cols, *a, *cl, *e, *g;
	const char *note;
	int any = 0;
	char *t;

	if (!x->inc_annot || !cJSON_IsObject(x->sannot))
		return;
	cols = cJSON_GetObjectItemCaseSensitive(x->sannot, "columns");
	g = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(x->sannot, "grain"), "keys");
	if (cJSON_GetArraySize(cols) == 0 && cJSON_GetArraySize(g) == 0)
		return;
	cJSON_ArrayForEach(a, cols) {
		note = md_str(a, "note");
		cl = cJSON_GetObjectItemCaseSensitive(a, "claims");
		if (note == NULL && cJSON_GetArraySize(cl) == 0 &&
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a,
		    "values")) == 0)
			continue;
		if (!any) {
			md_heading(w, "## Annotations");
			any = 1;
		}
		dbp_buf_addf(&w->b, "- %s: ", a->string);
		if (note != NULL)
			md_one(w, note);
		else
			dbp_buf_adds(&w->b, "(no note)");
		cJSON_ArrayForEach(e, cl) {
			dbp_buf_addf(&w->b, "; claim %s ", e->string);
			if (cJSON_IsString(e))
				md_one(w, e->valuestring);
			else if ((t = dbp_json_dump(e, DBP_JSON_PYDEFAULT)) !=
			    NULL) {
				dbp_buf_adds(&w->b, t);
				free(t);
			}
		}
		md_value_notes(w, cJSON_GetObjectItemCaseSensitive(a,
		    "values"));
		md_end(w);
	}
	cJSON_ArrayForEach(e, g) {
		if (!any) {
			md_heading(w, "## Annotations");
			any = 1;
		}
		md_term(w, "label:grain");
		dbp_buf_adds(&w->b, "- grain ");
		ctx_cols(&w->b, cJSON_GetObjectItemCaseSensitive(e, "columns"));
		if ((note = md_str(e, "note")) != NULL) {
			dbp_buf_adds(&w->b, ": ");
			md_one(w, note);
		}
		md_end(w);
	}
}

/* The value summary of a profile Notes cell into cell. */
static void
md_profile_values(struct mdw *w, const cJSON *col, int part,
    struct dbp_buf *cell)
{
	struct ctx *x = w->x;
	const cJSON *vals, *cov, *e;
	double nonnull, c, sum = 0;
	char pct[64];
	size_t i = 0;
	int complete;

	vals = cJSON_GetObjectItemCaseSensitive(col, "values");
	if (!cJSON_IsArray(vals))
		return;
	cov = cJSON_GetObjectItemCaseSensitive(col, "values_coverage");
	complete = cJSON_IsNumber(cov) && cov->valuedouble >= 1.0;
	nonnull = ctx_nonnull(x, col, part);
	if (cell->len > 0)
		dbp_buf_adds(cell, "; ");
	if (md_str(col, "redacted") != NULL) {
		md_term(w, "label:withheld");
		md_term2(w, "redacted", md_str(col, "redacted"));
		dbp_buf_addf(cell, "redacted: %s; values: ",
		    md_str(col, "redacted"));
		cJSON_ArrayForEach(e, vals) {
			if (!complete && i == 5)
				break;
			dbp_buf_adds(cell, i++ ? ", withheld (" : "withheld (");
			md_num(cell, cJSON_GetObjectItemCaseSensitive(e,
			    "count"));
			dbp_buf_addc(cell, ')');
		}
		if (i == 0)
			dbp_buf_adds(cell, "none");
		return;
	}
	if (complete) {
		md_term(w, "label:complete");
		md_term(w, "label:values");
		if (x->scoped)
			md_term(w, "label:over_scanned");
		dbp_buf_addf(cell, "values (complete%s): ", x->scoped ?
		    " over the rows scanned" : "");
	} else {
		md_term(w, "label:top5");
		dbp_buf_adds(cell, "top 5: ");
	}
	cJSON_ArrayForEach(e, vals) {
		if (!complete && i == 5)
			break;
		if (i++ > 0)
			dbp_buf_adds(cell, ", ");
		ctx_literal(cell, cJSON_GetObjectItemCaseSensitive(e, "value"));
		c = (double)ctx_int(cJSON_GetObjectItemCaseSensitive(e,
		    "count"), 0);
		sum += c;
		ctx_pct(nonnull > 0 ? c / nonnull : 0, pct, sizeof(pct));
		dbp_buf_addf(cell, " (%s)", pct);
	}
	if (i == 0)
		dbp_buf_adds(cell, "none");
	if (!complete && i > 0) {
		ctx_pct(nonnull > 0 ? sum / nonnull : 0, pct, sizeof(pct));
		dbp_buf_addf(cell, " (together %s)", pct);
	}
}

static void
md_range(struct mdw *w, const cJSON *col, struct dbp_buf *cell,
    const char *key, const char *label, const char *term)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(col, key);
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(r, "min");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(r, "max");

	if (lo == NULL || hi == NULL)
		return;
	md_term(w, term);
	dbp_buf_addf(cell, "%s%s ", cell->len > 0 ? "; " : "", label);
	md_num(cell, lo);
	dbp_buf_adds(cell, " to ");
	md_num(cell, hi);
}

/* The looks like note: the pattern the values match, and how many of
 * the sampled values matched it. */
static void
md_looks_like(struct mdw *w, const cJSON *inf, struct dbp_buf *cell)
{
	const char *s;

	if ((s = md_str(inf, "looks_like")) != NULL) {
		md_term2(w, "looks_like", s);
		dbp_buf_addf(cell, "%slooks like %s", cell->len ? "; " : "", s);
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(inf,
		    "sampled"))) {
			dbp_buf_adds(cell, " (");
			md_num(cell, cJSON_GetObjectItemCaseSensitive(inf,
			    "matched"));
			dbp_buf_adds(cell, " of ");
			md_num(cell, cJSON_GetObjectItemCaseSensitive(inf,
			    "sampled"));
			dbp_buf_adds(cell, " sampled)");
		}
	}
}

/* The freshness note: the classification and the newest value's age. */
static void
md_freshness(struct mdw *w, const cJSON *col, struct dbp_buf *cell)
{
	struct ctx *x = w->x;
	const cJSON *v, *e;
	const char *s;

	v = cJSON_GetObjectItemCaseSensitive(col, "freshness");
	if ((s = md_str(v, "classification")) != NULL) {
		md_term2(w, "freshness", s);
		dbp_buf_addf(cell, "%sfreshness: %s", cell->len ? "; " : "", s);
		e = cJSON_GetObjectItemCaseSensitive(v, "max_age_days");
		if (cJSON_IsNumber(e)) {
			md_term(w, "label:newest");
			dbp_buf_adds(cell, ", newest value ");
			md_num(cell, e);
			dbp_buf_adds(cell, " days old");
		}
		if (x->scoped) {
			md_term(w, "label:over_scanned");
			dbp_buf_adds(cell, " over the rows scanned");
		}
	}
}

/* The percentile notes, P25 and the like, one a percentile. */
static void
md_percentiles(struct mdw *w, const cJSON *col, struct dbp_buf *cell)
{
	const cJSON *v, *e;

	v = cJSON_GetObjectItemCaseSensitive(col, "percentiles");
	cJSON_ArrayForEach(e, v) {
		if (e->string == NULL)
			continue;
		{
			struct dbp_buf k;
			char *key;

			dbp_buf_init(&k, 256);
			dbp_buf_addf(&k, "pct:%s", e->string);
			if ((key = dbp_buf_take(&k)) != NULL)
				md_term(w, key);
			free(key);
		}
		dbp_buf_addf(cell, "%sP%s ", cell->len ? "; " : "",
		    e->string[0] == 'p' ? e->string + 1 : e->string);
		md_num(cell, e);
	}
}

/* The Notes cell of one column. */
static char *
md_notes(struct mdw *w, const cJSON *col, int part)
{
	struct ctx *x = w->x;
	struct dbp_buf cell;
	const cJSON *inf, *v;
	const char *s;

	dbp_buf_init(&cell, DBP_MAX_FILE_BYTES);
	dbp_buf_adds(&cell, "");
	inf = cJSON_GetObjectItemCaseSensitive(col, "inferred");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(inf,
	    "candidate_key"))) {
		md_term(w, "label:candidate_key");
		dbp_buf_adds(&cell, "candidate key");
		if (x->scoped) {
			md_term(w, "label:over_scanned");
			dbp_buf_adds(&cell, " over the rows scanned");
		}
	}
	md_profile_values(w, col, part, &cell);
	md_looks_like(w, inf, &cell);
	if ((s = md_str(inf, "sensitivity")) != NULL) {
		md_term2(w, "sensitivity", s);
		dbp_buf_addf(&cell, "%ssensitivity: %s", cell.len ? "; " : "",
		    s);
	}
	if ((s = md_str(col, "redacted")) != NULL &&
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(col, "values"))) {
		md_term2(w, "redacted", s);
		dbp_buf_addf(&cell, "%sredacted: %s", cell.len ? "; " : "", s);
	}
	if ((s = md_str(col, "distribution")) != NULL) {
		char *sp = strdup(s), *q;

		md_term2(w, "distribution", s);
		for (q = sp; q != NULL && *q != '\0'; q++)
			if (*q == '_')
				*q = ' ';
		dbp_buf_addf(&cell, "%s%s", cell.len ? "; " : "",
		    sp != NULL ? sp : s);
		free(sp);
	}
	md_freshness(w, col, &cell);
	md_range(w, col, &cell, "range", "range", "label:range");
	md_percentiles(w, col, &cell);
	v = cJSON_GetObjectItemCaseSensitive(col, "mean");
	if (cJSON_IsNumber(v)) {
		md_term(w, "label:mean");
		dbp_buf_addf(&cell, "%smean ", cell.len ? "; " : "");
		md_num(&cell, v);
	}
	md_range(w, col, &cell, "length", "length", "label:length");
	v = cJSON_GetObjectItemCaseSensitive(col, "parts_found");
	if (cJSON_IsNumber(v)) {
		md_term(w, "label:parts");
		dbp_buf_addf(&cell, "%sparts: ", cell.len ? "; " : "");
		md_num(&cell, v);
		dbp_buf_adds(&cell, " found");
	}
	return dbp_buf_take(&cell);
}

/* The Type and Class cells of a column or part o's table row. */
static void
md_type_class(struct mdw *w, const cJSON *o)
{
	const char *s;

	dbp_buf_adds(&w->b, " | ");
	md_cell(w, md_str(o, "sql_type") ? md_str(o, "sql_type") : "");
	dbp_buf_adds(&w->b, " | ");
	if ((s = md_str(o, "classification")) != NULL) {
		md_term2(w, "classification", s);
		md_cell(w, s);
	}
}

/* The Notes cell of o (part: o is a column part), which ends its table
 * row.  0, or -1 on OOM (w->oom set, the row left unended). */
static int
md_notes_cell(struct mdw *w, const cJSON *o, int part)
{
	char *notes;

	dbp_buf_adds(&w->b, " | ");
	if ((notes = md_notes(w, o, part)) == NULL) {
		w->oom = 1;
		return -1;
	}
	md_cell(w, notes);
	free(notes);
	dbp_buf_adds(&w->b, " |");
	md_end(w);
	return 0;
}

static void
md_cardinality(struct mdw *w)
{
	struct ctx *x = w->x;
	const cJSON *cols, *c, *v;
	int catalog;

	if (!x->inc_stats || x->stats == NULL)
		return;
	cols = cJSON_GetObjectItemCaseSensitive(x->stats, "columns");
	catalog = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x->stats,
	    "catalog_only"));
	if (catalog) {
		md_term(w, "label:catalog_only");
		md_heading(w, "## Columns (not queried)");
		md_term(w, "label:sql_type");
		md_term(w, "label:class");
		md_thead(w, "| Column | Type | Class | Nullable |");
		cJSON_ArrayForEach(c, cols) {
			dbp_buf_adds(&w->b, "| ");
			md_cell(w, c->string != NULL ? c->string : "");
			md_type_class(w, c);
			dbp_buf_addf(&w->b, " | %s |", ctx_nullable(c) ?
			    "yes" : "no");
			md_end(w);
		}
		return;
	}
	md_heading(w, "## Cardinality & key columns");
	md_term(w, "label:sql_type");
	md_term(w, "label:class");
	md_term(w, "label:distinct");
	md_term(w, "label:nulls");
	md_term(w, "label:notes");
	md_thead(w, "| Column | Type | Class | Distinct | Nulls | Notes |");
	cJSON_ArrayForEach(c, cols) {
		if (!cJSON_IsObject(c))
			continue;
		dbp_buf_adds(&w->b, "| ");
		md_cell(w, c->string != NULL ? c->string : "");
		md_type_class(w, c);
		dbp_buf_adds(&w->b, " | ");
		v = cJSON_GetObjectItemCaseSensitive(c, "cardinality");
		if (v != NULL)
			md_num(&w->b, v);
		dbp_buf_adds(&w->b, " | ");
		if (ctx_nullable(c) && md_null_share(x, c, &w->b) &&
		    x->scoped)
			md_term(w, "label:over_scanned");
		if (md_notes_cell(w, c, 0) == -1)
			return;
	}
}

static void
md_null_patterns(struct mdw *w)
{
	struct ctx *x = w->x;
	const cJSON *np, *e, *cols;
	int any = 0;

	if (!x->inc_stats || x->stats == NULL)
		return;
	np = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(x->stats, "null_patterns"),
	    "patterns");
	cJSON_ArrayForEach(e, np) {
		cols = cJSON_GetObjectItemCaseSensitive(e, "columns");
		if (cJSON_GetArraySize(cols) < 2)
			continue;
		if (!any) {
			md_heading(w, "## Columns null on the same rows");
			any = 1;
		}
		md_term(w, "label:null_together");
		dbp_buf_adds(&w->b, "- ");
		ctx_cols(&w->b, cols);
		dbp_buf_adds(&w->b, ": ");
		md_num(&w->b, cJSON_GetObjectItemCaseSensitive(e, "count"));
		dbp_buf_adds(&w->b, " rows");
		md_end(w);
	}
}

static void
md_relationships(struct mdw *w)
{
	struct ctx *x = w->x;
	size_t i;

	if (!x->inc_rel || x->relv == NULL)
		return;
	md_heading(w, "## Relationships");
	for (i = 0; i < x->nedges; i++)
		md_edge(w, &x->edges[i], 0, 1);
	if (x->nedges == 0)
		md_none_found(w);
}

static void
md_parts(struct mdw *w)
{
	struct ctx *x = w->x;
	const cJSON *c, *p, *v;
	int any = 0;

	if (!x->inc_stats || x->stats == NULL)
		return;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(x->stats,
	    "columns")) {
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c,
		    "parts")) {
			if (!cJSON_IsObject(p) || p->string == NULL)
				continue;
			if (!any) {
				md_term(w, "label:parts");
				md_heading(w, "## Column parts");
				md_term(w, "label:sql_type");
				md_term(w, "label:class");
				md_term(w, "label:occurrences");
				md_term(w, "label:notes");
				md_thead(w, "| Part | Type | Class | "
				    "Occurrences | Notes |");
				any = 1;
			}
			dbp_buf_adds(&w->b, "| ");
			md_cell(w, c->string);
			md_cell(w, p->string);
			md_type_class(w, p);
			dbp_buf_adds(&w->b, " | ");
			v = cJSON_GetObjectItemCaseSensitive(p, "occurrences");
			if (v != NULL)
				md_num(&w->b, v);
			if (md_notes_cell(w, p, 1) == -1)
				return;
		}
	}
}

static void
md_profile(struct mdw *w)
{
	struct ctx *x = w->x;

	md_conn_notes(w);
	md_ddl(w);
	if (x->inc_desc && x->description != NULL &&
	    x->description[strspn(x->description, " \t\r\n")] != '\0') {
		md_heading(w, "## Description");
		md_text(w, x->description);
	}
	md_annotations(w);
	md_cardinality(w);
	md_null_patterns(w);
	md_relationships(w);
	md_parts(w);
}

int
ctx_md_build(struct ctx *x, struct ctx_md *m)
{
	struct mdw w;

	memset(m, 0, sizeof(*m));
	memset(&w, 0, sizeof(w));
	if ((m->terms = ctx_terms_new()) == NULL)
		return call_fail(x->c, "out of memory");
	w.x = x;
	w.m = m;
	dbp_buf_init(&w.b, DBP_MAX_FILE_BYTES);
	md_header(&w);
	if (x->purpose == CTX_QUERY)
		md_query(&w);
	else
		md_profile(&w);
	dbp_buf_release(&w.b);
	if (w.oom)
		return call_fail(x->c, "out of memory");
	return 0;
}

void
ctx_md_release(struct ctx_md *m)
{
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		for (j = 0; j < m->sects[i].n; j++) {
			free(m->sects[i].lines[j].text);
			free(m->sects[i].lines[j].terms);
		}
		free(m->sects[i].lines);
	}
	free(m->sects);
	ctx_terms_free(m->terms);
	memset(m, 0, sizeof(*m));
}

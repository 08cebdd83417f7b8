/*
 * ctx_terms.c - the ## Terms legend of get_table_context's Markdown
 * (spec 4.1): one "- <label>: <definition>" line for every label, flag
 * and enum word the reply prints and no other, each naming where the
 * json/yaml form carries it and the search_columns filter that takes it.
 *
 * A term is keyed "<category>:<word>".  Categories come in a fixed order
 * (labels, table types, classifications, ..., percentiles last); within a
 * category the known words keep this file's order and words this file
 * does not know (a newer format's enum value) follow in first-use order
 * with the category's generic definition.
 *
 * Our wording, not upstream's (its Markdown is not available to us).
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

struct term_cat {
	const char	*cat;
	const char	*field;		/* printf with the word, or NULL */
	const char	*filter;	/* printf with the word, or NULL */
	const char	*generic;	/* definition of an unknown word */
};

/* Category order is the legend's order. */
static const struct term_cat term_cats[] = {
	{ "label", NULL, NULL, "a label of this context" },
	{ "type", "type: %s", NULL, "the object's type as the print records "
	    "it" },
	{ "classification", "classification: %s", "classification: %s",
	    "the column's classification (format SPEC 3)" },
	{ "sensitivity", "inferred.sensitivity: %s", "sensitivity: %s",
	    "a category of data that must not leave the database, detected "
	    "in the values (SPEC 4.4)" },
	{ "looks_like", "inferred.looks_like: %s", "looks_like: %s",
	    "the shape the sampled values match (SPEC 4.1)" },
	{ "redacted", "redacted: %s", "redacted: %s",
	    "how the column's literals were withheld (SPEC 2.2.9)" },
	{ "distribution", "distribution: %s", NULL,
	    "the shape of the value counts (SPEC 2.2.5)" },
	{ "freshness", "freshness.classification: %s", NULL,
	    "how recent the newest value is" },
	{ "detection", "detection: %s", NULL,
	    "how the edge was found" },
	{ "pct", "percentiles.%s", NULL, "a percentile of the values" },
};
#define TERM_NCATS	(sizeof(term_cats) / sizeof(term_cats[0]))

struct term_def {
	const char	*key;
	const char	*label;		/* NULL: the word itself */
	const char	*def;
	const char	*field;		/* NULL: the category's */
	const char	*filter;	/* NULL: the category's */
};

/* Known terms, in legend order within their category. */
static const struct term_def term_defs[] = {
	{ "label:unprofiled", "Unprofiled", "the last generate run failed "
	    "on this table; what follows is an earlier run's print",
	    "_unprofiled", NULL },
	{ "label:missing", "Missing", "artifacts the manifest declares "
	    "whose file is absent from disk", "_missing", NULL },
	{ "label:unreadable", "Unreadable", "artifacts present on disk "
	    "that failed to parse; their sections are left out",
	    "_corrupted", NULL },
	{ "label:scanned", "Scanned", "the statistics were measured over "
	    "these rows only, not the whole table", "scope.rows_scanned",
	    NULL },
	{ "label:sampled", "sampled", "the rows scanned are a sample; a "
	    "row count may be scaled by row_count / rows_scanned",
	    "scope.sample", NULL },
	{ "label:filtered", "filtered by", "the rows scanned are those a "
	    "predicate chose; nothing rescales", "scope.filter", NULL },
	{ "label:over_scanned", "over the rows scanned", "the claim holds "
	    "for the rows read, not necessarily for the whole table",
	    "scope", NULL },
	{ "label:meanings", "Meanings", "not documented here: no "
	    "description and no column or value note says what values mean",
	    "meanings_documented: false", NULL },
	{ "label:catalog_only", "Catalog only", "no query was issued for "
	    "this object; only the catalog was read", "statistics.catalog_only",
	    NULL },
	{ "label:depends_on", "Depends on", "the objects this view's "
	    "definition reads", "statistics.depends_on", NULL },
	{ "label:grain", "Grain", "column sets that identify a row",
	    "statistics.grain.keys", NULL },
	{ "label:values", "Values", "the literals a predicate can be "
	    "written from, each with its row count", "values.<column>.entries",
	    NULL },
	{ "label:coverage", "Coverage", "how much of the column the listed "
	    "values are", "values.<column>.coverage_statement", NULL },
	{ "label:complete", "complete", "the list is every distinct "
	    "non-null value (values_coverage 1.0)", "values_coverage: 1.0",
	    NULL },
	{ "label:sample", "sample", "the most frequent values of a longer "
	    "list, with the share of non-null rows they cover",
	    "values.<column>.shown_coverage", NULL },
	{ "label:frequent", "frequent values, not a domain", "values of a "
	    "numeric or temporal column each holding at least 1% of the "
	    "non-null rows and twice an even spread's share",
	    "values.<column>.shown_coverage", NULL },
	{ "label:withheld", "withheld", "a redacted value: its count is "
	    "published, its literal is not", "values.<column>.counts", NULL },
	{ "label:spelling_of", "spelling of", "another stored spelling of "
	    "the listed value (trimmed, case-folded equal)", "spelling_of",
	    NULL },
	{ "label:meanings_cell", "meanings: not documented here", "no note "
	    "says what this complete list's values mean",
	    "values.<column>.meanings_documented: false", NULL },
	{ "label:nulls", "Nulls", "share of the rows read where the column "
	    "is NULL; none when no row is", "null_rate", NULL },
	{ "label:none_found", "none found", "no edge joins this table",
	    "joins", NULL },
	{ "label:not_target", "not a join target", "no declared-unique "
	    "column for another table to reference",
	    "relationships.eligible_target: false", NULL },
	{ "label:refers", "->", "this table's column references the other "
	    "table's", "refers_to", NULL },
	{ "label:referenced", "<-", "the other table's column references "
	    "this table's", "referenced_by", NULL },
	{ "label:path", "path", "a key inside a semi-structured column "
	    "that holds the join value", "path / target_path", NULL },
	{ "label:note", "note", "a human's note", "note", NULL },
	{ "label:from", "from", "a note inherited from the column this one "
	    "is derived from", "inherited_notes.<column>[].source", NULL },
	{ "label:sql_type", "Type", "the column's SQL type as the database "
	    "reports it", "sql_type", "sql_type: <type>" },
	{ "label:class", "Class", "the column's classification",
	    "classification", "classification: <class>" },
	{ "label:distinct", "Distinct", "distinct non-null values",
	    "cardinality", NULL },
	{ "label:notes", "Notes", "a summary of the column's statistics",
	    "statistics.columns.<column>", NULL },
	{ "label:candidate_key", "candidate key", "every non-null value is "
	    "distinct", "inferred.candidate_key: true",
	    "candidate_key: true" },
	{ "label:top5", "top 5", "the five most frequent values of a "
	    "list that is not the whole domain, with their shares", "values",
	    NULL },
	{ "label:newest", "newest value", "days between the newest value and "
	    "profiled_at", "freshness.max_age_days", NULL },
	{ "label:range", "range", "smallest and largest value", "range.min "
	    "/ range.max", NULL },
	{ "label:mean", "mean", "average of the values", "mean", NULL },
	{ "label:length", "length", "shortest and longest value, in "
	    "characters", "length.min / length.max", NULL },
	{ "label:parts", "parts", "values found inside the column "
	    "(array elements, members, keys)", "parts", NULL },
	{ "label:occurrences", "occurrences", "instances of a part in the "
	    "rows read", "parts.<path>.occurrences", NULL },
	{ "label:fanout", "fan-out", "rows on this side per matched row on "
	    "the other", "observed.fanout_avg / observed.fanout_max", NULL },
	{ "label:target_coverage", "target coverage", "share of the "
	    "referenced rows that some row references",
	    "observed.target_coverage", NULL },
	{ "label:null_together", "null together", "columns null on the "
	    "same rows, with the rows", "statistics.null_patterns", NULL },

	{ "type:table", NULL, "a base table", NULL, NULL },
	{ "type:view", NULL, "a view: a stored query over other objects",
	    NULL, NULL },
	{ "type:matview", NULL, "a materialized view: a stored query's "
	    "rows, refreshed from time to time", NULL, NULL },

	{ "classification:boolean", NULL, "true/false values", NULL, NULL },
	{ "classification:categorical", NULL, "few distinct values, a "
	    "closed set", NULL, NULL },
	{ "classification:foreign_key_candidate", NULL, "values that look "
	    "like keys of another table", NULL, NULL },
	{ "classification:numeric", NULL, "numbers measured as a "
	    "quantity", NULL, NULL },
	{ "classification:temporal", NULL, "dates and times", NULL, NULL },
	{ "classification:text", NULL, "free text", NULL, NULL },
	{ "classification:binary", NULL, "bytes", NULL, NULL },
	{ "classification:json", NULL, "JSON documents", NULL, NULL },
	{ "classification:composite", NULL, "arrays, records, maps", NULL,
	    NULL },
	{ "classification:spatial", NULL, "geometries and geographies",
	    NULL, NULL },
	{ "classification:vector", NULL, "embedding vectors", NULL, NULL },
	{ "classification:unsupported", NULL, "a type the profiler cannot "
	    "read", NULL, NULL },

	{ "redacted:mask", NULL, "every literal replaced by one "
	    "placeholder", NULL, NULL },
	{ "redacted:hash", NULL, "every literal replaced by a salted "
	    "digest", NULL, NULL },
	{ "redacted:drop", NULL, "no literal published; counts kept", NULL,
	    NULL },

	{ "distribution:uniform", NULL, "values about equally frequent",
	    NULL, NULL },
	{ "distribution:long_tail", "long tail", "a few frequent values, "
	    "many rare ones", NULL, NULL },
	{ "distribution:skewed", NULL, "some values much more frequent than "
	    "others", NULL, NULL },

	{ "freshness:live", NULL, "the newest value is recent", NULL, NULL },
	{ "freshness:stale", NULL, "the newest value is older than expected",
	    NULL, NULL },
	{ "freshness:dormant", NULL, "no recent value at all", NULL, NULL },

	{ "detection:declared", NULL, "a constraint in the catalog", NULL,
	    NULL },
	{ "detection:inferred", NULL, "guessed from column naming", NULL,
	    NULL },
	{ "detection:measured", NULL, "proposed from value containment",
	    NULL, NULL },
	{ "detection:annotated", NULL, "added by a human in "
	    "relationships.annotations.yaml", NULL, NULL },
};
#define TERM_NDEFS	(sizeof(term_defs) / sizeof(term_defs[0]))

struct term {
	char	*key;
	size_t	 cat;		/* index into term_cats */
	long	 order;		/* known position, or after all known */
};

struct ctx_terms {
	struct term	*v;
	size_t		 n, cap;
};

struct ctx_terms *
ctx_terms_new(void)
{
	return calloc(1, sizeof(struct ctx_terms));
}

void
ctx_terms_free(struct ctx_terms *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].key);
	free(t->v);
	free(t);
}

size_t
ctx_terms_count(const struct ctx_terms *t)
{
	return t != NULL ? t->n : 0;
}

static const struct term_def *
term_known(const char *key, long *order)
{
	size_t i;

	for (i = 0; i < TERM_NDEFS; i++) {
		if (strcmp(term_defs[i].key, key) == 0) {
			*order = (long)i;
			return &term_defs[i];
		}
	}
	return NULL;
}

int
ctx_term(struct ctx_terms *t, const char *key)
{
	const char *colon = strchr(key, ':');
	size_t i, cl;
	long order;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].key, key) == 0)
			return (int)i;
	if (colon == NULL)
		return -1;
	cl = (size_t)(colon - key);
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		void *p = realloc(t->v, cap * sizeof(*t->v));

		if (p == NULL)
			return -1;
		t->v = p;
		t->cap = cap;
	}
	for (i = 0; i < TERM_NCATS; i++)
		if (strlen(term_cats[i].cat) == cl &&
		    strncmp(term_cats[i].cat, key, cl) == 0)
			break;
	if (i == TERM_NCATS)
		return -1;
	t->v[t->n].cat = i;
	if (term_known(key, &order) == NULL)
		order = (long)(TERM_NDEFS + t->n);
	if (i == TERM_NCATS - 1)	/* percentiles: by their number */
		order = strtol(colon + 2, NULL, 10);
	if ((t->v[t->n].key = strdup(key)) == NULL)
		return -1;
	t->v[t->n].order = order;
	return (int)t->n++;
}

static int
term_cmp(const void *a, const void *b)
{
	const struct term *p = *(const struct term *const *)a;
	const struct term *q = *(const struct term *const *)b;

	if (p->cat != q->cat)
		return p->cat < q->cat ? -1 : 1;
	if (p->order != q->order)
		return p->order < q->order ? -1 : 1;
	return strcmp(p->key, q->key);
}

static int
term_line(struct dbp_buf *b, const struct term *t)
{
	const struct term_cat *c = &term_cats[t->cat];
	const struct term_def *d;
	const char *word = strchr(t->key, ':') + 1;
	const char *label, *def, *field, *filter;
	char up[64];
	long order;

	d = term_known(t->key, &order);
	label = d != NULL && d->label != NULL ? d->label : word;
	def = d != NULL ? d->def : c->generic;
	field = d != NULL && d->field != NULL ? d->field : NULL;
	filter = d != NULL && d->filter != NULL ? d->filter : NULL;
	if (strcmp(c->cat, "pct") == 0) {
		snprintf(up, sizeof(up), "P%s", word + 1);
		label = up;
		def = "the value below which this share of the values falls";
	}
	dbp_buf_addf(b, "- %s: %s (json/yaml `", label, def);
	if (field != NULL)
		dbp_buf_adds(b, field);
	else if (c->field != NULL)
		dbp_buf_addf(b, c->field, word);
	dbp_buf_addc(b, '`');
	if (filter != NULL)
		dbp_buf_addf(b, "; search_columns `%s`", filter);
	else if (c->filter != NULL) {
		dbp_buf_adds(b, "; search_columns `");
		dbp_buf_addf(b, c->filter, word);
		dbp_buf_addc(b, '`');
	}
	return dbp_buf_adds(b, ")");
}

int
ctx_terms_legend(struct ctx_terms *t, const unsigned char *used,
    struct dbp_buf *b)
{
	const struct term **sel;
	size_t i, n = 0;

	if (t == NULL || t->n == 0)
		return 0;
	if ((sel = calloc(t->n, sizeof(*sel))) == NULL)
		return -1;
	for (i = 0; i < t->n; i++)
		if (used[i])
			sel[n++] = &t->v[i];
	if (n > 0) {
		qsort(sel, n, sizeof(*sel), term_cmp);
		dbp_buf_adds(b, "## Terms\n");
		for (i = 0; i < n; i++) {
			dbp_buf_addc(b, '\n');
			term_line(b, sel[i]);
		}
	}
	free(sel);
	return b->failed ? -1 : 0;
}

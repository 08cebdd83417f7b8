/*
 * answer.h - helpers shared by the tools answered straight from the index
 * tables (list_tables, search_columns, resolve_value, get_manifest,
 * get_diff): text matching as Python spells it (textmatch.c), index reads
 * and a paged document's header (answer.c), and the per-table freshness
 * verdict of list_tables (freshness.c).
 */
#ifndef DBPRINT_ANSWER_H
#define DBPRINT_ANSWER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "server.h"

/* resolve_value's nearest match: similarity floor and most candidates
 * (research/upstream-mcp.md 3.3). */
#define TM_NEAREST_FLOOR	0.3
#define TM_NEAREST_LIMIT	5
/* The largest list resolve_value hands back whole as its domain. */
#define TM_DOMAIN_LIMIT		50
/* Shortest text (in characters) the trigram index can narrow. */
#define TM_GRAMS_MIN		3

/* ------------------------------------------------------------------ */
/* Text (textmatch.c)                                                   */

/* The normalization key of SPEC 2.2.4 exactly as the indexer computes
 * column_values.fold: ASCII spaces trimmed, then Python str.lower().
 * malloc'd (caller frees), NULL on OOM. */
char	*tm_fold(const char *s);

/* Python str.casefold() of s (full case folding of the common scripts:
 * simple lower-casing plus the multi-character folds such as U+00DF ->
 * "ss" and the Latin ligatures).  malloc'd (caller frees), NULL on OOM. */
char	*tm_casefold(const char *s);

/* Python " ".join(s.split()): whitespace runs to one space, ends
 * trimmed.  malloc'd (caller frees), NULL on OOM. */
char	*tm_collapse(const char *s);

/* 1 when needle occurs in hay with no word character (Unicode letter,
 * digit or underscore, as Python's re \w) right before or right after
 * it, else 0.  Both are compared as they are (fold them first). */
int	tm_word_in(const char *needle, const char *hay);

/* A set of character trigrams of a string padded with two spaces on
 * each side (research/upstream-mcp.md 3.3), sorted and unique. */
struct tm_trigrams {
	uint64_t	*v;		/* three 21-bit code points each */
	size_t		 n;
};
/* Build the set of s; 0, or -1 on OOM.  Free with tm_trigrams_free(). */
int	tm_trigrams(const char *s, struct tm_trigrams *t);
void	tm_trigrams_free(struct tm_trigrams *t);
/* Jaccard similarity |A & B| / |A | B| (0 when either is empty). */
double	tm_jaccard(const struct tm_trigrams *a, const struct tm_trigrams *b);
/* The UTF-8 text of trigram v into out[13]. */
void	tm_trigram_text(uint64_t v, char out[13]);

/* Python round(x, nd) (correctly rounded, ties to even on the exact
 * binary value). */
double	tm_round(double x, int nd);
/* Python repr() of a float into out (at least 32 bytes). */
void	tm_pyfloat(double x, char *out, size_t size);
/* A cJSON number whose spelling is Python's repr of x. NULL on OOM. */
cJSON	*tm_float_node(double x);
/* A cJSON number spelled as the integer v. NULL on OOM. */
cJSON	*tm_int_node(long long v);
/* Parse a JSON spelling from the index (numbers keep their text); NULL
 * text gives a JSON null.  NULL on OOM or bad JSON. */
cJSON	*tm_json(const char *text);

/* ------------------------------------------------------------------ */
/* Index reads (answer.c)                                               */

/* The files row of path (relative to the print root) without its
 * document: 0 with *status and *error (NULL when none) malloc'd, 1 when
 * there is no row, -1 on an index error.  The caller frees both. */
int	ans_file_state(struct srv_conn *cn, const char *path, char **status,
	    char **error);

/* The literal prefix of an fnmatch pattern (before any * ? or [) in *lo,
 * and in *hi the least string above every string that starts with it
 * (NULL when there is none), so fqn >= lo AND fqn < hi narrows a walk of
 * FQNs to the pattern's candidates.  Both malloc'd (the caller frees);
 * -1 on OOM. */
int	ans_prefix_range(const char *pat, char **lo, char **hi);

/* Step st, a walk whose column 0 is an FQN and whose next row is match
 * *next, to match i: the i-th FQN pat matches (every row when exact).
 * 0 with st on that row, or -1 with c's error set (the index's, or "the
 * tables changed during the call" when the walk ends first). */
int	ans_walk_to(struct call *c, sqlite3_stmt *st, const char *pat,
	    int exact, size_t *next, size_t i);

/* How many walkable tables rows there are (list_tables, get_manifest):
 * all of them, as all rows (counted from the b-tree alone) less the few
 * not walkable; in [?1, ?2); from ?1 on.  One statement each, kept by
 * srv_stmt under these addresses. */
extern const char ans_sql_count_all[];
extern const char ans_sql_count[];
extern const char ans_sql_count_open[];

/*
 * A paged document's header (get_manifest, get_diff): every top-level
 * member of path's files.doc but the one named skip - the list paged
 * from the index's own rows - in file order, as compact JSON text.  The
 * document is streamed through the blob API ANS_DOC_CHUNK bytes at a
 * time and only its top level followed, so a 100,000-table manifest's
 * 30 MB are neither held nor parsed.  0 with *head malloc'd (the caller
 * frees); 1 when the row has no document or its text is not an object
 * (the caller then reads the row itself); -1 on an index error or OOM.
 */
#define ANS_DOC_CHUNK	65536
int	ans_head_read(struct srv_conn *cn, const char *path, const char *skip,
	    char **head);

/* The header of path's document, parsed (cJSON_Delete *doc): the one
 * kept under key while the index has not changed, else ans_head_read's,
 * then kept.  0; 1 when the caller must read the row itself (as
 * ans_head_read); -1 with c's error set. */
int	ans_head(struct call *c, const void *key, const char *path,
	    const char *skip, cJSON **doc);

/* The header kept under key (the address of a static of the tool's) on
 * this index handle, parsed (cJSON_Delete it), while the index has not
 * changed since it was kept; else NULL.  ans_keep_head() keeps head
 * (taken: freed when it cannot be kept). */
cJSON	*ans_kept_head(struct call *c, const void *key);
void	 ans_keep_head(struct call *c, const void *key, char *head);

/* ------------------------------------------------------------------ */
/* Freshness (freshness.c) - spec 4.2                                   */

/* Python 3.11 datetime.fromisoformat() of s, a value without an offset
 * read as UTC: 0 with *t the seconds since the epoch, or -1. */
int	fresh_iso_parse(const char *s, double *t);

/* One table's threshold. */
struct fresh_threshold {
	int	 refused;	/* error holds the reason */
	char	*error;		/* malloc'd when refused */
	long	 days;		/* the threshold when not refused */
	int	 gated;		/* taken from the rules while a min_rows rule
				 * that selects the table was skipped */
};

/*
 * The threshold of table fqn of connection conf (spec 4.2): the entry's
 * recorded max_age_days (its JSON spelling, or NULL when absent) when
 * it is a number, refused when negative or not whole; else the rule
 * cascade without min_rows rules.  has_rows: the entry carries a
 * row_count; type: the entry's type or NULL.  0, or -1 on OOM.  Free
 * out->error.
 */
int	fresh_threshold(const struct dbp_conn *conf, const char *fqn,
	    const char *type, int has_rows, const char *recorded,
	    struct fresh_threshold *out);

/* Append to item the verdict of a table profiled at profiled (the
 * entry's profiled_at as its JSON spelling, or NULL) judged against th
 * at now: freshness, age_days, max_age_days; or threshold_error alone.
 * 0, or -1 on OOM. */
int	fresh_verdict(cJSON *item, const char *profiled,
	    const struct fresh_threshold *th, double now);

/* The warnings sentence naming gated tables names[0..n). malloc'd. */
char	*fresh_warning(const char *connection, const char *const *names,
	    size_t n);

#endif /* DBPRINT_ANSWER_H */

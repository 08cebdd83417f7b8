/*
 * ctx.h - internals of get_table_context (spec 4.1), shared by its files:
 *
 *   tool_context.c  the tool: arguments, reading the index and the disk,
 *                   choosing the format, paging
 *   ctx_rel.c       the relationship graph as the context shows it:
 *                   rejected edges withheld, human-added edges and notes
 *   ctx_obj.c       the json/yaml object of both purposes, as paging units
 *   ctx_md.c        the Markdown of both purposes, as lines with terms
 *   ctx_terms.c     the ## Terms legend
 *   ctx_fmt.c       spelling values, numbers and shares
 *   ctx_page.c      cutting either form into pages (spec 4.8)
 *
 * Nothing outside these files includes it.
 */
#ifndef DBPRINT_CTX_H
#define DBPRINT_CTX_H

#include <stddef.h>

#include "server.h"

/* Parsed documents kept across calls (tool_context.c): a table reads up
 * to five, so 64 keep a dozen recently read tables warm. */
#define CTX_DOC_CACHE	64

enum ctx_purpose { CTX_PROFILE, CTX_QUERY };
enum ctx_format { CTX_MD, CTX_JSON, CTX_YAML };

/* The declared artifact kinds of a table, in the order _missing and
 * _corrupted name them. */
enum ctx_kind {
	CTX_DDL, CTX_STATS, CTX_REL, CTX_DESC, CTX_SANNOT, CTX_RANNOT,
	CTX_NKINDS
};

/* One declared artifact: where it is and how it read. */
struct ctx_art {
	int	 declared;
	char	*path;		/* relative to the print root; NULL if none */
	char	*status;	/* files.status; NULL when unknown */
	char	*error;		/* files.error */
};

/* One edge as the context lists it (both directions). */
struct ctx_edge {
	int	 incoming;	/* 1: referenced_by (<-), 0: refers_to (->) */
	cJSON	*cols;		/* this table's side (array), borrowed */
	const char *table;	/* the other table */
	cJSON	*ocols;		/* the other side's columns, borrowed */
	cJSON	*path;		/* referencing side path (array) or NULL */
	cJSON	*tpath;		/* referenced side path or NULL */
	const char *detection;	/* declared, inferred, measured, annotated */
	const char *note;	/* a human's note, or NULL */
	cJSON	*entry;		/* the emitted entry (observed, ...) or NULL */
	int	 rank;		/* ordering: declared, inferred, measured,
				 * annotated */
};

/* Everything one call reads. */
struct ctx {
	struct call	*c;
	sqlite3		*db;
	const char	*fqn;
	enum ctx_purpose purpose;
	enum ctx_format	 format;
	int		 inc_stats, inc_rel, inc_desc, inc_annot;

	/* tables row */
	char		*type;		/* NULL reads as "table" */
	int		 has_rows;
	long long	 row_count;	/* manifest */
	int		 has_cols;
	long long	 columns_count;
	int		 unprofiled;	/* also in failed_tables */
	char		*adapter;	/* manifest adapter or NULL */

	struct ctx_art	 art[CTX_NKINDS];
	char		*ma_status;	/* manifest annotations file status */
	char		*ma_error;
	char		*ma_path;

	char		*ddl;		/* ddl.sql text, or NULL */
	char		*description;	/* description.md text, or NULL */
	cJSON		*stats;		/* statistics doc, or NULL */
	cJSON		*rel;		/* relationships doc as read, or NULL */
	cJSON		*relv;		/* relationships as shown (withheld,
					 * added, noted), or NULL */
	cJSON		*sannot;	/* statistics annotations doc or NULL */
	cJSON		*rannot;	/* relationships annotations doc */
	cJSON		*rannotv;	/* rannot less withheld verdicts */
	char		*conn_notes;	/* manifest.annotations notes or NULL */

	/* scope (spec 3.0 "Scope detection") */
	int		 scoped;
	cJSON		*scope;		/* the block, {} when echoes only */
	int		 has_scanned;
	long long	 rows_scanned;
	int		 has_stats_rows;
	long long	 stats_row_count;

	/* the edges the context lists, in Joins order */
	struct ctx_edge	*edges;
	size_t		 nedges;
	cJSON		*hold;		/* owns trees made for edges */
	unsigned	 own_docs;	/* bit 1 << kind: that doc is ours to
					 * free, else borrowed from the cache */
	unsigned long	 serial;	/* this call, for the document cache */
};

/* ------------------------------------------------------------------ */
/* ctx_rel.c */

/* Build c->relv, c->rannotv and c->edges from c->rel, c->rannot and the
 * human entries of other tables about this one (read from the index;
 * their files are pinned).  0, or -1 with the call failed. */
int	ctx_rel_build(struct ctx *x);

/* Path of a path-valued endpoint as its part key (".a.b", "[\"x\"]").
 * malloc'd, NULL on OOM or when path is not an array of strings. */
char	*ctx_part_key(const cJSON *path);

/* ------------------------------------------------------------------ */
/* ctx_fmt.c */

/* Share s (0..1) as a percentage: one decimal, trailing zeros dropped;
 * strictly between 0 and 1 it never reads 0% or 100%.  Into out. */
void	ctx_pct(double s, char *out, size_t size);
/* A number's text positionally (1e-05 -> 0.00001).  Into b. */
int	ctx_num_pos(struct dbp_buf *b, const char *text);
/* A value as a literal that reads back as itself (spec 4.1): strings
 * single-quoted SQL literals ('' doubled), or double-quoted with YAML
 * escapes when holding a line break, control or invisible character;
 * numbers positional; booleans and null bare. */
int	ctx_literal(struct dbp_buf *b, const cJSON *v);
/* Python repr of a float into out (>= 32 bytes). */
void	ctx_pyfloat(double x, char *out, size_t size);
/* x rounded to 6 places as null_rate is (SPEC 2.2.6): never onto 0 or 1
 * unless exactly so. */
double	ctx_round_rate(double x);
/* Python " ".join(s.split()); malloc'd, NULL on OOM. */
char	*ctx_collapse(const char *s);
/* Characters (code points) of UTF-8 s[0..n). */
size_t	ctx_chars(const char *s, size_t n);
/* Byte length of the longest prefix of s[0..n) holding at most max code
 * points. */
size_t	ctx_prefix(const char *s, size_t n, size_t max);
/* Column list as the Markdown writes it: "a" or "(a, b)". */
int	ctx_cols(struct dbp_buf *b, const cJSON *cols);
/* Integer value of a number node, or dflt. */
long long ctx_int(const cJSON *v, long long dflt);

/* ------------------------------------------------------------------ */
/* ctx_values.c: the query value table's choices, shared by md and json */

struct ctx_vrow {
	const char	*name;		/* column name or label */
	cJSON		*block;		/* its statistics block, borrowed */
	int		 kind;		/* CTX_V_* */
	cJSON		**shown;	/* the shown entries, borrowed */
	size_t		 nshown;
	double		 shown_share;	/* share of non-null rows shown */
	int		 redacted;
	int		 undocumented;	/* meanings not documented */
};
#define CTX_V_NONE	0	/* no row */
#define CTX_V_COMPLETE	1	/* coverage 1.0: the whole list */
#define CTX_V_SAMPLE	2	/* coverage < 1.0: top five */
#define CTX_V_FREQUENT	3	/* numeric/temporal: frequent values */

/* Decide the value row of one column (or part) block.  label is the
 * name printed; cname the column name the annotations key; part 1 for a
 * part.  Fills r (r->shown malloc'd, free with free()).  0 or -1. */
int	ctx_vrow(struct ctx *x, const char *label, const char *cname,
	    int part, cJSON *block, struct ctx_vrow *r);
/* The coverage statement of a row (md cell text and json field). */
int	ctx_vstatement(struct ctx *x, const struct ctx_vrow *r,
	    struct dbp_buf *b);
/* The non-null population of a block (rows_scanned or occurrences less
 * nulls). */
double	ctx_nonnull(struct ctx *x, const cJSON *block, int part);
/* The annotation entry of column name, or NULL. */
cJSON	*ctx_col_annot(struct ctx *x, const char *name);
/* The value note of value v in annotation entry a, or NULL. */
const char *ctx_value_note(const cJSON *a, const cJSON *v);
/* 1 when the table documents meanings (description, or any column or
 * value note; with inherited notes under query). */
int	ctx_documented(struct ctx *x);
/* 1 when the column is nullable by DDL (nullable not false). */
int	ctx_nullable(const cJSON *block);
/* Inherited notes of column name: a new array of {source, note, values}
 * or NULL when none.  Caller deletes. */
cJSON	*ctx_inherited(struct ctx *x, const char *name);

/* ------------------------------------------------------------------ */
/* ctx_obj.c */

/* One paging unit of the object: the value at path (1 to 3 keys).  A
 * splice unit adds the members of value into the object at path rather
 * than setting it. */
struct ctx_unit {
	const char	*path[3];
	int		 depth;
	cJSON		*value;		/* borrowed from ctx_obj.hold */
	int		 splice;
};

struct ctx_obj {
	struct ctx_unit	*units;
	size_t		 n, cap;
	cJSON		*hold;		/* owns every value and key */
};

/* Build the units of the object for x's purpose.  0, or -1 (OOM, with
 * the call failed). */
/* The null share a -> edge states: 1 with *node the column's own
 * null_rate (single plain column, nullable), 2 with *rate the derived share
 * of a path-valued endpoint whose part the print lists, else 0. */
int	ctx_edge_nulls(struct ctx *x, const struct ctx_edge *g, double *rate,
	    const cJSON **node);

int	ctx_obj_build(struct ctx *x, struct ctx_obj *o);
void	ctx_obj_release(struct ctx_obj *o);

/* ------------------------------------------------------------------ */
/* ctx_md.c */

/* One Markdown line and the terms it prints. */
struct ctx_line {
	char	*text;		/* no newline */
	int	*terms;		/* indices into the legend's term table */
	size_t	 nterms;
};

/* A section: its lines joined by "\n" make one block. */
struct ctx_sect {
	struct ctx_line	*lines;
	size_t		 n, cap;
};

struct ctx_md {
	struct ctx_sect	*sects;		/* sects[0] is the header */
	size_t		 n, cap;
	struct ctx_terms *terms;
};

int	ctx_md_build(struct ctx *x, struct ctx_md *m);
void	ctx_md_release(struct ctx_md *m);

/* ------------------------------------------------------------------ */
/* ctx_terms.c */

struct ctx_terms;

/* A new empty term table; NULL on OOM. */
struct ctx_terms *ctx_terms_new(void);
void	ctx_terms_free(struct ctx_terms *t);
/* The index of the term key (e.g. "label:coverage",
 * "classification:categorical"), added on first use; -1 on OOM. */
int	ctx_term(struct ctx_terms *t, const char *key);
/* Append the legend ("## Terms\n\n- ...", no trailing newline) of the
 * terms marked in used[0..count) to b; nothing when none is marked. */
int	ctx_terms_legend(struct ctx_terms *t, const unsigned char *used,
	    struct dbp_buf *b);
size_t	ctx_terms_count(const struct ctx_terms *t);

/* ------------------------------------------------------------------ */
/* ctx_page.c */

/* Page the Markdown at position pos and set c->text.  0 or -1. */
int	ctx_page_md(struct call *c, struct ctx_md *m, size_t pos);
/* Page the object (json or yaml) at pos and set c->text.  0 or -1. */
int	ctx_page_obj(struct call *c, struct ctx_obj *o, int yaml, size_t pos);

#endif /* DBPRINT_CTX_H */

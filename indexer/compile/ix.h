/*
 * ix.h - internals shared by the indexer's own files (config.c, ixutil.c,
 * print.c, annot.c, fill.c, index.c).  Nothing outside indexer/ includes
 * it; the public interface is dbprint.h.
 */
#ifndef DBPRINT_IX_H
#define DBPRINT_IX_H

#include <stddef.h>
#include <stdint.h>

#include <sys/stat.h>

#include "dbprint.h"

/* ------------------------------------------------------------------ */
/* Small helpers (ixutil.c)                                             */

/* Python's type(x).__name__ of a parsed YAML value: NoneType, bool, int,
 * float, str, list, dict.  NULL counts as NoneType. */
const char	*ix_pytype(const cJSON *v);

/* 1 when v is a number spelled as an integer (YAML int, not a bool). */
int	 ix_is_int(const cJSON *v);
/* The integer value of an ix_is_int() number, clamped to int64. */
int64_t	 ix_int(const cJSON *v);

/* The member key of object o when it is a string, else NULL. */
const char	*ix_str(const cJSON *o, const char *key);

/* Python truthiness of a parsed value (bool(x)). */
int	 ix_truthy(const cJSON *v);


/* Normalise a relative '/'-separated path lexically: drop "." and empty
 * steps, resolve "..".  Returns a malloc'd path (caller frees), "" for the
 * root itself, or NULL when it is absolute or climbs above the root
 * (*escapes set to 1) or on OOM (*escapes 0). */
char	*ix_relnorm(const char *p, int *escapes);

/* Append Python's json.dumps(s, ensure_ascii=True) of UTF-8 text s to b
 * (an invalid byte reads as U+FFFD, as json.c does); -1 when b failed. */
int	 ix_json_str(struct dbp_buf *b, const char *s);
/* Lower db's page cache to at most kib KiB for a phase that needs the
 * memory; returns what ix_cache_restore gives back (0: left alone). */
long long ix_cache_cap(sqlite3 *db, long long kib);
void	 ix_cache_restore(sqlite3 *db, long long was);
/* Append v as dbp_json_dump(v, DBP_JSON_COMPACT) spells it, without its
 * per-character overhead; -1 when b failed. */
int	 ix_json_compact(struct dbp_buf *b, const cJSON *v);

/* A string -> pointer hash map with string keys copied in. */
struct ix_map {
	char	**keys;
	void	**vals;
	size_t	  cap;		/* power of two, or 0 */
	size_t	  n;
	int	  borrowed;	/* set before use: keys are the caller's,
				 * neither copied nor freed */
};
/* Look up key; NULL when absent. */
void	*ix_map_get(const struct ix_map *m, const char *key);
/* Insert or replace; -1 on OOM. */
int	 ix_map_put(struct ix_map *m, const char *key, void *val);
/* Make room for n keys in an empty map at once, so that filling it does
 * not rehash as it grows; -1 on OOM. */
int	 ix_map_reserve(struct ix_map *m, size_t n);
/* A reservation beyond this is ignored (the map grows instead). */
#define IX_MAP_RESERVE_MAX	((size_t)1 << 24)
/* Free keys and tables (not the values). */
void	 ix_map_free(struct ix_map *m);

/* Called by dbp_index_update, when set, as tables are written: done of
 * total (index.c; main.c sets it for its progress bar). */
extern void	(*dbp_index_progress)(long done, long total);

/* ------------------------------------------------------------------ */
/* Kinds of print file (print.c)                                        */

enum ix_kind {
	IX_MANIFEST, IX_MANIFEST_ANNOT, IX_DIFF, IX_READING,
	IX_DDL, IX_STATS, IX_RELS, IX_DESC, IX_STATS_ANNOT, IX_RELS_ANNOT,
	IX_NKINDS
};
#define IX_FIRST_TABLE_KIND	IX_DDL

struct ix_kinddef {
	const char	*name;		/* files.kind / manifest artifacts key */
	const char	*file;		/* canonical file name */
	int		 yaml;		/* parsed as YAML */
};
extern const struct ix_kinddef ix_kinds[IX_NKINDS];
/* The kind named name among the table kinds, or -1. */
int	 ix_table_kind(const char *name);

/* ------------------------------------------------------------------ */
/* Path safety (print.c)                                                */

/* Remembers, per directory relative to the print root, whether it stays
 * inside the root once symlinks are followed, so a run lstat()s each
 * directory once. */
struct ix_safety {
	char		*root;		/* the print root as given */
	int		 rootfd;	/* open on it, or -1: lookups start here */
	char		*real;		/* realpath of the root, or NULL */
	struct ix_map	 dirs;		/* rel dir -> IX_SAFE_* (as pointer) */
};
#define IX_SAFE_IN	1	/* exists, inside */
#define IX_SAFE_OUT	2	/* resolves outside the root */
#define IX_SAFE_MISSING	3	/* does not exist (or not a directory) */

int	 ix_safety_init(struct ix_safety *s, const char *root);
void	 ix_safety_free(struct ix_safety *s);
/* Check the normalised relative directory rel ("" = root): IX_SAFE_*. */
int	 ix_safety_dir(struct ix_safety *s, const char *rel);

/* A file's identity: what a run compares to decide it is unchanged. */
struct ix_id {
	int64_t		 dev, ino, size;
	int64_t		 mtime;		/* st_mtim in nanoseconds */
};
void	 ix_id_of(const struct stat *st, struct ix_id *id);

/* Result of looking at one file on disk. */
struct ix_look {
	int		 state;		/* IX_LOOK_* */
	int		 err;		/* errno for IX_LOOK_ERROR */
	struct ix_id	 id;		/* of the target, when IX_LOOK_FILE */
};
#define IX_LOOK_FILE	1	/* a regular file inside the root */
#define IX_LOOK_ABSENT	2
#define IX_LOOK_OUTSIDE	3	/* a symlink leading outside the root */
#define IX_LOOK_ERROR	4	/* not a regular file, or stat failed */

/* lstat root/rel (rel normalised, its directory already checked); a
 * symlink is followed only when its target stays inside the root. */
void	 ix_look(struct ix_safety *s, const char *rel, struct ix_look *out);

/* ------------------------------------------------------------------ */
/* Annotation-file schemas (annot.c)                                    */

/* Validate a parsed annotation document of the given kind against our
 * reading of its JSON schema (unknown keys tolerated).  0 when it
 * matches; -1 with the message "<address>: <message>" in d. */
int	 ix_annot_check(int kind, const cJSON *doc, struct dbp_diag *d);

/* ------------------------------------------------------------------ */
/* Per-table rows (fill.c)                                              */

/* What the writer knows about one table's files once read and parsed. */
struct ix_tdocs {
	const char	*fqn;
	const cJSON	*stats;		/* NULL unless parsed and a mapping */
	const cJSON	*sannot;	/* NULL unless valid */
	const cJSON	*rels;
	const cJSON	*rannot;
	const char	*stats_status;	/* NULL when undeclared */
	const char	*annot_status;
};

/* The body of dbp_index_update and dbp_index_refresh (index.c): one
 * write transaction.  filter: only these tables (NULL: all); a changed
 * manifest widens it to all.  st, changed may be NULL. */
int	 ix_update(sqlite3 *db, const char *connection, const char *print_root,
	    int full, struct ix_map *filter, struct dbp_stats *st, int *changed,
	    struct dbp_diag *d);

/* The quick look of a run (probe.c): every files row against its file on
 * disk, on DBP_LOOK_THREADS threads.  paths[0..n) are the rows that do
 * not plainly match (their tables are for the plan to judge), at most max
 * of them: overflow is set when there were more.  files counts the rows
 * looked at.  0, or -1 with d set; ix_probe_free frees what it holds. */
struct ix_probe {
	char	**paths;	/* malloc'd, each malloc'd */
	size_t	  n;
	size_t	  files;
	int	  overflow;
};
int	 ix_probe(sqlite3 *db, int rootfd, size_t max, struct ix_probe *out,
	    struct dbp_diag *d);
void	 ix_probe_free(struct ix_probe *p);

/* Tests only: called with ix_test_after_plan_arg once a batch of tables
 * is planned, before its files are read (test_index changes files
 * there, as an editor might while a run goes on).  NULL in the
 * programs. */
extern void	(*ix_test_after_plan)(void *arg);
extern void	 *ix_test_after_plan_arg;
/* Tests only: a list gathering this many trigrams or more has them
 * sorted by radix, fewer by qsort (fill.c f_tri_sort; 1024 in the
 * programs). */
extern size_t	  ix_test_tri_radix;

struct ix_writer;	/* prepared statements of one run (fill.c) */

int	 ix_writer_open(sqlite3 *db, struct ix_writer **w, struct dbp_diag *d);
void	 ix_writer_close(struct ix_writer *w);
/* The text index (grams.c): build column_grams whole from the columns
 * and value notes in the index, emptying the dirty and stale marks; and,
 * at the end of a run, rebuild it when full or when the changed tables
 * hold more than DBP_GRAMS_DIRTY_MAX columns.  0, or -1 with d set. */
int	 ix_grams_build(sqlite3 *db, struct dbp_diag *d);
/* ix_grams_build in passes of per_pass column ids, not
 * DBP_GRAMS_PASS_COLUMNS (the tests' way to many passes). */
int	 ix_grams_build_per(sqlite3 *db, int64_t per_pass, struct dbp_diag *d);
int	 ix_grams_settle(sqlite3 *db, int full, struct dbp_diag *d);
/* The search text of every column, as the view column_search gives it,
 * in id order (what ix_grams_build reads; grams.c says how it is cheaper
 * than the view).  ix_gtext_open: 0 with *g (freed by ix_gtext_close), or
 * -1 with d set.  ix_gtext_next: 1 with *id and *text (NUL-terminated,
 * valid until the next call), 0 past the last column, -1 with d set. */
struct ix_gtext;
int	 ix_gtext_open(sqlite3 *db, struct ix_gtext **g, struct dbp_diag *d);
int	 ix_gtext_next(struct ix_gtext *g, int64_t *id, const char **text,
	    struct dbp_diag *d);
void	 ix_gtext_close(struct ix_gtext *g);

/* Delete every row derived from table fqn's files (not its files rows).
 * *ncols gets the columns removed. */
int	 ix_writer_forget(struct ix_writer *w, const char *fqn, long *ncols,
	    struct dbp_diag *d);
/* Insert the rows derived from one table's parsed files and update the
 * statistics columns of its tables row.  *ncols gets the columns added. */
int	 ix_writer_table(struct ix_writer *w, const struct ix_tdocs *t,
	    long *ncols, struct dbp_diag *d);
/* Value lists longer than this get trigrams (value_trigrams). */
#define IX_TRIGRAM_MIN_VALUES	DBP_TRIGRAM_MIN_VALUES

#endif /* DBPRINT_IX_H */

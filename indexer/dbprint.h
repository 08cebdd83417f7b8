/*
 * dbprint.h - the dbprint library: reading a print and keeping its SQLite
 * index.  dbprint-index is a small main() over it; dbprint-serve links it to
 * re-index changed files.  The dependency runs one way: server -> indexer.
 *
 * Conventions (see README.md, "Conventions"):
 *   - functions return 0 on success and -1 on failure, with the reason in a
 *     caller-owned struct dbp_diag;
 *   - every function that allocates says who frees, and with what;
 *   - documents are cJSON trees (see ydoc below for how YAML maps onto them).
 */
#ifndef DBPRINT_H
#define DBPRINT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "dbp_limits.h"

#define DBP_VERSION		"0.1.0"	/* the one place the version lives */
#define DBP_SCHEMA_VERSION	12	/* must equal SCHEMA_VERSION in schema.sql */

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */

#define DBP_DIAG_MAX	2048

/* A caller-owned error slot.  msg is always NUL-terminated. */
struct dbp_diag {
	char	msg[DBP_DIAG_MAX];
};

/* Set d->msg (printf-style, truncated to fit); always returns -1 so a
 * caller can write "return dbp_fail(d, ...)".  d may be NULL. */
int	dbp_fail(struct dbp_diag *d, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Log to stderr, prefixed with the program name.  Never stdout. */
void	dbp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line of a program's --help: the option as its man page spells it,
 * and what it does in a few words. */
struct dbp_opt_help {
	const char	*opt;
	const char	*what;
};

/* Print a program's usage to f, both programs the same way: the synopsis
 * (its man page's SYNOPSIS, wrapped), then, when opts is not NULL, one
 * line per option and a pointer to the man page `page` (e.g.
 * "dbprint-serve(1)"). */
void	dbp_usage(FILE *f, const char *synopsis,
	    const struct dbp_opt_help *opts, size_t nopts, const char *page);

/* Allocation that aborts on out-of-memory only in the command-line front
 * ends; the library itself checks every allocation and reports it. */

/* ------------------------------------------------------------------ */
/* Bounded growable buffer (curl dynbuf / git strbuf)                   */

struct dbp_buf {
	char	*ptr;		/* NUL-terminated once anything was added */
	size_t	 len;
	size_t	 cap;
	size_t	 max;		/* hard bound; adding past it fails */
	int	 failed;	/* sticky: an add failed (OOM or too large) */
};

/* Initialise an empty buffer that may grow to max bytes. */
void	dbp_buf_init(struct dbp_buf *b, size_t max);
/* Append; return 0, or -1 (and set failed) when the bound or memory ran
 * out.  After a failure every later add is a no-op returning -1. */
int	dbp_buf_add(struct dbp_buf *b, const void *p, size_t n);
int	dbp_buf_adds(struct dbp_buf *b, const char *s);
int	dbp_buf_addc(struct dbp_buf *b, char c);
int	dbp_buf_addf(struct dbp_buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Transfer the bytes to the caller, who frees them with free(); the
 * buffer is left empty and reusable.  Never returns NULL unless failed. */
char	*dbp_buf_take(struct dbp_buf *b);
/* Free the bytes; the buffer is left empty and reusable. */
void	dbp_buf_release(struct dbp_buf *b);

/* ------------------------------------------------------------------ */
/* UTF-8                                                                */

/* Write code point cp (at most U+10FFFF) as UTF-8 at o, which has room
 * for 4 bytes; returns the bytes written, 1 to 4.  Nothing is checked: a
 * surrogate is written as its three bytes, which is not valid UTF-8. */
size_t	dbp_utf8_encode(uint32_t cp, char *o);
/* Append cp to b as dbp_utf8_encode writes it; 0, or -1 as dbp_buf_add. */
int	dbp_buf_put_utf8(struct dbp_buf *b, uint32_t cp);
/*
 * Decode the UTF-8 sequence at p (n > 0 bytes left) into *cp and return
 * its length, 1 to 4; a byte below 0x80 is always itself, length 1.  0
 * when the bytes at p do not start a valid sequence, *cp left untouched:
 * a stray continuation byte, a lead byte that never starts one (0xc0,
 * 0xc1, 0xf5 to 0xff), a sequence cut short by n or by a byte that does
 * not continue it, an overlong form, a surrogate (U+D800 to U+DFFF) or a
 * code point past U+10FFFF.  What an invalid byte stands for is the
 * caller's to choose.
 */
size_t	dbp_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* ------------------------------------------------------------------ */
/* Files                                                                */

/* Read a whole file of at most max bytes.  On success *out is malloc'd
 * (caller frees), NUL-terminated, *len its length, and *st (if non-NULL)
 * the fstat of the descriptor read.  -1 with errno kept and d set. */
int	dbp_read_file(const char *path, size_t max, char **out, size_t *len,
	    struct stat *st, struct dbp_diag *d);

/* Read rel under the directory dirfd, a regular file an lstat just found
 * to be size bytes, in three system calls: an open that follows no
 * symlink and never blocks (a FIFO or device swapped in since cannot hang
 * the run), one read, a close.  0 with *out malloc'd (caller frees),
 * NUL-terminated and size bytes long; 1 when the file is not that file
 * any more (a symlink, not readable as a regular file, not size bytes):
 * the caller reads it the careful way (dbp_read_file); -1 on OOM. */
int	dbp_read_known(int dirfd, const char *rel, size_t size, char **out);

/* XXH3-128 of p[0..n) as 32 lowercase hex digits into out[33]. */
void	dbp_hash_hex(const void *p, size_t n, char out[33]);

/*
 * Work shared out on DBP_LOOK_THREADS threads: fn(arg, lo, hi) over
 * [0, n) in runs of step, each claimed by whichever thread comes first.
 * dbp_claims_begin starts the helper threads (none when n < min or one
 * does not start), so the caller can go on with other work while they
 * run; dbp_claims_end does what is left on the calling thread and joins
 * them; dbp_claims_stop leaves what is left undone and joins them (fn's
 * data may then be freed).  Allocates nothing; fn must touch only what
 * its range owns.
 */
struct dbp_claims {
	void		(*fn)(void *, size_t, size_t);
	void		 *arg;
	size_t		  n, step;
	atomic_size_t	  next;		/* the first index not claimed yet */
	pthread_t	  th[DBP_LOOK_THREADS];
	size_t		  nth;		/* helpers running */
};
void	dbp_claims_begin(struct dbp_claims *cl, size_t n, size_t step,
	    size_t min, void (*fn)(void *, size_t, size_t), void *arg);
void	dbp_claims_end(struct dbp_claims *cl);
void	dbp_claims_stop(struct dbp_claims *cl);

/* Sort the n strings of v by strcmp, in place.  Made for lists that come
 * nearly in order (a print's paths listed table by table): about n steps
 * then, and a few n more than qsort at worst.  Allocates nothing. */
void	dbp_sort_strs(char **v, size_t n);

/* ------------------------------------------------------------------ */
/* Normalizations the indexer stores and the server must match
 * (compile/ixutil.c)                                                   */

/* Python's " ".join(s.split()): whitespace runs collapsed to one space,
 * ends trimmed.  malloc'd, caller frees; NULL on OOM. */
char	*dbp_collapse(const char *s);

/* Strip ASCII spaces (U+0020 only) from both ends, then lower-case as
 * Python's str.lower() does (ASCII, Latin-1 and the other simple
 * one-to-one mappings; U+0130 becomes "i" + U+0307).  malloc'd, caller
 * frees; NULL on OOM.  Invalid UTF-8 bytes are kept as they are. */
char	*dbp_fold(const char *s);
/* The same into out, which has room for 2 * strlen(s) + 1 bytes; returns
 * out. */
char	*dbp_fold_to(const char *s, char *out);

/* ------------------------------------------------------------------ */
/* Arena (util.c)                                                       */

/*
 * An arena: many small allocations freed at once.  A parsed print file's
 * tree lives in one (dbp_ydoc_parse_arena), so freeing it is a few free()
 * calls instead of a walk over every node, and building it a pointer bump
 * per node.  Chunks double from DBP_ARENA_FIRST to DBP_ARENA_LAST bytes (a
 * larger request gets a chunk of its own).  A zeroed struct is an empty
 * arena; dbp_arena_free releases every chunk and leaves it empty.
 */
#define DBP_ARENA_ALIGN	16
#define DBP_ARENA_FIRST	(4 * 1024)
#define DBP_ARENA_LAST	(256 * 1024)

struct dbp_arena {
	struct dbp_chunk	*chunks;	/* newest first */
	char		*p, *end;	/* free space of the newest */
	size_t		 next_size;
};

/* n bytes aligned to DBP_ARENA_ALIGN, owned by the arena; NULL on OOM. */
void	*dbp_arena_alloc(struct dbp_arena *a, size_t n);
/* The same, zeroed. */
void	*dbp_arena_zalloc(struct dbp_arena *a, size_t n);
/* A copy of s in the arena; NULL on OOM. */
char	*dbp_arena_strdup(struct dbp_arena *a, const char *s);
/* Everything allocated so far is gone; the newest chunk is kept for what
 * comes next. */
void	 dbp_arena_reset(struct dbp_arena *a);
void	 dbp_arena_free(struct dbp_arena *a);

/* ------------------------------------------------------------------ */
/* YAML documents (ydoc.c)                                              */
/*
 * A YAML file is loaded as PyYAML's safe_load would load it, into a cJSON
 * tree:
 *   - mappings -> objects (key order kept; a duplicate key replaces the
 *     earlier value in place, as a Python dict does);
 *   - sequences -> arrays; null/~/empty -> null; true/false/yes/no/on/off
 *     -> booleans (YAML 1.1);
 *   - integers and floats -> cJSON numbers whose valuestring holds the
 *     spelling Python's json.dumps would print (123, 0.5, 1e-05,
 *     Infinity); valuedouble holds the value.  Always spell a number with
 *     dbp_num_text(), never with valuedouble;
 *   - unquoted timestamps -> strings spelled as Python's str() of the
 *     datetime/date ("2026-05-17 22:48:01+00:00", "2024-01-01");
 *   - every other scalar -> a string.
 * Mapping keys that are not strings are converted to their Python str()
 * (1 -> "1", true -> "True", null -> "None", .inf -> "inf").  Merge keys
 * ("<<") are applied as SafeConstructor does; anchors and aliases are
 * expanded (copied).  Explicit tags !!str !!int !!float !!bool !!null
 * !!timestamp !!seq !!map work; !!binary !!set !!omap !!pairs and unknown
 * tags are errors, as is a NUL character inside a scalar (cJSON strings
 * cannot hold one) and a recursive alias.  More than one document in the
 * stream is an error, as for safe_load.
 * Limits: DBP_MAX_FILE_BYTES, DBP_MAX_DEPTH, DBP_MAX_SCALAR,
 * DBP_MAX_ALIASES, DBP_MAX_NODES, DBP_MAX_DOC_BYTES, DBP_MAX_INT_DIGITS;
 * the expansion bounds are checked before anything is copied.
 */

/* Parse buf[0..len).  Returns a tree the caller frees with cJSON_Delete,
 * or NULL with d->msg holding the parser's message (no path prefix).  An
 * empty document gives a cJSON null.  Messages read as PyYAML's C loader
 * prints them, one part per line: "while parsing a block mapping\n  in
 * \"<unicode string>\", line 1, column 1\ndid not find expected key\n  in
 * \"<unicode string>\", line 2, column 3" (1-based); a caller wanting one
 * line may replace the newlines. */
cJSON	*dbp_ydoc_parse(const char *buf, size_t len, struct dbp_diag *d);

/*
 * cJSON's type tests and member lookup, inlined.  The library's own are
 * calls through the PLT, and a full build makes tens of millions of them:
 * at 10,000 tables they were ~6% of its time, its lookup's strcmp calls
 * half of that (issue 20).  Same answers as cJSON_IsObject & co. and
 * cJSON_GetObjectItemCaseSensitive: the first member named key, NULL
 * when o is not an object or has none.
 */
static inline int
dbp_jis(const cJSON *j, int type)
{
	return j != NULL && (j->type & 0xff) == type;
}

static inline const cJSON *
dbp_jget(const cJSON *o, const char *key)
{
	const cJSON *c;

	if (!dbp_jis(o, cJSON_Object))
		return NULL;
	for (c = o->child; c != NULL && c->string != NULL; c = c->next)
		if (c->string[0] == key[0] && strcmp(c->string, key) == 0)
			return c;
	return NULL;
}

/* The spelling of a number node: its valuestring when set; else an
 * integral value within 2^53 as an integer ("7"), any other as Python's
 * float repr in JSON ("0.5", "1e-05", "Infinity", "NaN").  The fallback
 * text lives in a thread-local buffer valid until the next call. */
const char *dbp_num_text(const cJSON *n);
/* Python's str() (== repr()) of a number node: dbp_num_text, but "inf",
 * "-inf" and "nan" for the non-finite. */
const char *dbp_num_pystr(const cJSON *n);

/* Python's repr() of a float into out: shortest round-trip digits, "1.0",
 * "1e-05", "1e+16", "inf", "-inf", "nan".  Returns out. */
#define DBP_FLOAT_REPR_MAX	32
char	*dbp_float_repr(double x, char out[DBP_FLOAT_REPR_MAX]);
/* The same, its digits read from text (the spelling x was parsed from)
 * when they are already the shortest; text may be NULL. */
char	*dbp_float_repr_text(double x, char out[DBP_FLOAT_REPR_MAX],
	    const char *text);
/* The same, its digits found by bisection alone (for the tests). */
char	*dbp_float_repr_slow(double x, char out[DBP_FLOAT_REPR_MAX]);

/* ------------------------------------------------------------------ */
/* YAML loading internals (ydoc.c): the indexer's arena
 * loader, and the exact path alone for the differential tests          */

/* dbp_ydoc_parse by its exact two-pass path alone (compose a node graph,
 * then construct), never the one-pass path it tries first.  Same
 * contract as dbp_ydoc_parse. */
cJSON	*dbp_ydoc_parse_exact(const char *buf, size_t len, struct dbp_diag *d);
/*
 * dbp_ydoc_parse with the tree's nodes and strings in arena a (empty on
 * entry) when the one-pass path reads the document; when the exact path
 * has to, the tree is malloc'd as dbp_ydoc_parse's and a stays empty.  So:
 * a tree with a->chunks set is freed by dbp_arena_free(a) alone and must
 * never reach cJSON_Delete or a cJSON call that frees or reallocates a
 * member (detach instead); one without is freed by cJSON_Delete.
 */
cJSON	*dbp_ydoc_parse_arena(const char *buf, size_t len, struct dbp_arena *a,
	    struct dbp_diag *d);

/*
 * One member of the root mapping read an entry at a time: the manifest's
 * `tables`, whose tree would be most of a large print's memory.
 *
 * dbp_ydoc_parse_stream is dbp_ydoc_parse_arena (a must be given), but
 * while the one-pass path reads the document, the root mapping's member
 * named s->member, when it is a mapping, is not kept: begin() is called
 * when it opens, with the root holding the members read before it; then
 * fn() with each of its entries as it is read, in order, the value in a
 * scratch arena that is reset once fn returns.  The tree returned holds
 * the member as an empty mapping, in its place, and s->streamed is 1.
 *
 * fn and begin return 0 to go on, 1 to give up streaming, -1 to stop
 * with an error (d set by them: NULL is returned, s->streamed -1).  Keys
 * are passed as written: a key seen twice is a Python dict's replacement,
 * which fn must treat as such or give up on.  Streaming is also given up
 * when the one-pass path is (an anchor, a tag, an error...), when the
 * root repeats a key after the member opened, or when it repeats the
 * member.  Given up, the document is parsed whole as dbp_ydoc_parse_arena
 * does, s->streamed is 0, and what begin and fn were given is void: the
 * caller undoes what it did with it.
 */
struct dbp_ystream {
	const char	*member;
	int		(*begin)(void *arg, const cJSON *root);
	int		(*fn)(void *arg, const char *key, const cJSON *value);
	void		*arg;
	int		 streamed;	/* out: 1, 0 or -1 (above) */
};
cJSON	*dbp_ydoc_parse_stream(const char *buf, size_t len,
	    struct dbp_arena *a, struct dbp_ystream *s, struct dbp_diag *d);

/* ------------------------------------------------------------------ */
/* JSON text (json.c)                                                   */

/* Serialize as Python's json.dumps(v, indent=indent, ensure_ascii=True)
 * would: indent > 0 as Python's indent=N; indent < 0 means one line with
 * ", " and ": " separators (Python's default); indent 0 means one line
 * with "," and ":" (Python's separators=(",", ":") - NOT Python's
 * indent=0, which breaks lines).  Numbers are spelled with dbp_num_text().
 * Invalid UTF-8 in a string is written as U+FFFD.  Returns malloc'd text
 * (caller frees) or NULL on OOM. */
char	*dbp_json_dump(const cJSON *v, int indent);
/* Append to b the dump of v as it reads nested level levels deep inside
 * an indented dump (its inner lines indented from there): a page writes
 * its items straight into its own text.  b->failed on OOM. */
void	dbp_json_dump_into(struct dbp_buf *b, const cJSON *v, int indent,
	    int level);
#define DBP_JSON_COMPACT	0	/* "," ":" - what the index stores */
#define DBP_JSON_PYDEFAULT	(-1)	/* ", " ": " */

/* v exactly as cJSON 1.7.15's cJSON_PrintUnformatted prints it (the
 * JSON-RPC frames): no spaces, strings with only '"', '\\' and bytes
 * below 0x20 escaped (every other byte raw), numbers from valuedouble
 * ("%1.15g", or "%1.17g" when that does not read back; null for NaN and
 * infinities), raw nodes verbatim.  Returns malloc'd text (caller frees;
 * the allocation has room for its NUL), or NULL on OOM or a tree
 * cJSON_PrintUnformatted would also refuse (a raw node without text, a
 * node of no type). */
char	*dbp_json_print(const cJSON *v);

/* The length of json.dumps(s) for the UTF-8 string s, quotes included:
 * its characters, which are also its bytes (the text is ASCII). */
size_t	dbp_json_width(const char *utf8);

/* Code points in s[0..n) as Python counts a str's len(): each byte that
 * is not part of valid UTF-8 counts as one. */
size_t	dbp_utf8_chars(const char *s, size_t n);

/* Python repr() of a JSON value: 'str', 7, 7.5, True, None, ['a'],
 * {'k': 1}.  malloc'd, caller frees. */
char	*dbp_pyrepr(const cJSON *v);
/* Python repr() of a string. malloc'd, caller frees. */
char	*dbp_pyrepr_str(const char *s);

/* Python str() of a scalar value as resolve_value compares it: strings as
 * they are, numbers as spelled, True/False, None.  malloc'd. */
char	*dbp_pystr(const cJSON *v);

/* ------------------------------------------------------------------ */
/* fnmatch (fnmatch.c) - Python fnmatch.fnmatchcase semantics           */

/* 1 when name matches pat as Python's fnmatchcase would, else 0:
 * case-sensitive, '*' crosses '.' and '/', [seq] and [!seq] with ranges,
 * ']' first in a set is literal, an unclosed '[' is literal, no escapes. */
int	dbp_fnmatch(const char *pat, const char *name);
/* The longest run of pat that every name it matches holds as it stands:
 * ASCII characters other than newline, outside wildcards and [sets] (a
 * '[' without its ']' ends a run).  *at and its byte length (0: none). */
size_t	dbp_fnmatch_literal(const char *pat, const char **at);

/* ------------------------------------------------------------------ */
/* Project configuration (config.c)                                     */

struct dbp_conn {
	char	*name;
	int	 autoflag;	/* auto: truthy */
	char	*print_root;	/* absolute: <output>/<name> */
	long	 max_age_days;	/* own, else defaults, else 7 */
	cJSON	*rules;		/* array of rule objects, defaults' first;
				 * borrowed from dbp_project.raw (each rule's
				 * include/exclude already lower-cased), with
				 * a "_label" string member added */
};

struct dbp_project {
	char		*config_path;	/* absolute path of .dbprint.yaml */
	char		*root;		/* its directory */
	cJSON		*raw;		/* the parsed file; owns every borrowed cJSON */
	struct dbp_conn	*conns;		/* declaration order */
	size_t		 nconns;
	char		*index_dir;	/* NULL: <root>/.dbprint/index; a print
					 * served from its repository: the
					 * cache entry's index/ (remote.h) */
};

/* Find and load .dbprint.yaml: from loc exactly when non-NULL (the file,
 * or the directory directly holding it), else walking up from the working
 * directory.  On failure d->msg holds the one-line message of
 * research/upstream-mcp.md section 1.2.  Release with
 * dbp_project_release(). */
int	dbp_project_load(const char *loc, struct dbp_project *p,
	    struct dbp_diag *d);
void	dbp_project_release(struct dbp_project *p);
/* The connection named name, or NULL. */
const struct dbp_conn *dbp_project_conn(const struct dbp_project *p,
	    const char *name);
/* Default index path <root>/.dbprint/index/<conn>.sqlite, or
 * <index_dir>/<conn>.sqlite when index_dir is set; malloc'd. */
char	*dbp_index_path(const struct dbp_project *p, const char *conn);

/* ------------------------------------------------------------------ */
/* The index (index.c)                                                  */

#define DBP_OPEN_READONLY	0x1	/* never write; fail if absent */
#define DBP_OPEN_MEMORY		0x2	/* build in memory (path ignored) */
#define DBP_OPEN_WAIT		0x4	/* wait DBP_INDEX_WAIT_MS, not
					 * DBP_BUSY_TIMEOUT_MS, for another
					 * run's lock (dbprint-index) */

struct dbp_error {
	char	*path;		/* relative to the print root */
	char	*message;
};

struct dbp_stats {
	long	files_total;
	long	files_parsed;	/* content changed (or new): parsed again */
	long	files_rehashed;	/* identity changed, hash did not */
	long	files_unchanged;/* identity unchanged: not read */
	long	tables;
	long	columns;
	struct dbp_error *errors;	/* every file with a problem, path order */
	size_t	nerrors;
};
void	dbp_stats_release(struct dbp_stats *st);

/* Open (creating the directory, the file, .dbprint/.gitignore and the
 * schema as needed) the index at path.  An index of another schema
 * version is emptied and re-created.  WAL mode; busy timeout set so two
 * writers serialize.  *db is closed by the caller with sqlite3_close().
 * When it fails, a file it created is removed again. */
int	dbp_index_open(const char *path, int flags, sqlite3 **db,
	    struct dbp_diag *d);
/* What dbp_index_open does first for a writable index: make the
 * directories above path, and a .gitignore of "*" in a .dbprint
 * directory.  dbprint-index calls it before its sandbox, which allows
 * writing beneath the index's directory only.  0, or -1 with d set. */
int	dbp_index_prepare(const char *path, struct dbp_diag *d);
/* Remove the -journal, -wal and -shm files of the index at path, and with
 * main_too the file itself: what a first run that failed created (so that
 * no empty index is left behind; dbp_index_open does it for its own
 * failures), or the logs of an index file deleted under its readers. */
void	dbp_index_remove(const char *path, int main_too);

/* Bring the index up to date with the print at print_root: stat every
 * file; identity unchanged -> skip; identity changed but hash not ->
 * identity updated; hash changed -> that table's rows rebuilt.  One
 * transaction: on failure nothing is written.  full: drop everything
 * first.  st may be NULL.  Returns 0 when the index was written (per-file
 * errors are in st->errors), -1 when the index itself could not be. */
int	dbp_index_update(sqlite3 *db, const char *connection,
	    const char *print_root, int full, struct dbp_stats *st,
	    struct dbp_diag *d);

/* Freshness for a server call: stat the given files (relative paths) and
 * re-index whatever changed, as dbp_index_update would (a changed or
 * newly present/absent manifest.yaml means a whole update).  *changed is
 * set to 1 when anything was re-indexed.  Cheap when nothing changed: one
 * stat and one indexed lookup per path. */
int	dbp_index_refresh(sqlite3 *db, const char *connection,
	    const char *print_root, const char *const *paths, size_t npaths,
	    int *changed, struct dbp_diag *d);

/* The parsed document of a statistics file, which the index keeps as
 * rows only (files.doc is NULL for it): the bytes of print_root/rel,
 * checked to be the version of hash (its files.hash), parsed as the
 * indexer parsed them, without the columns' and parts' sketches.  A new
 * tree (the caller cJSON_Deletes it); NULL with d set on failure, and
 * *moved set when the file is no longer that version (changed or gone
 * since it was indexed: refresh, then ask again). */
cJSON	*dbp_stats_read(const char *print_root, const char *rel,
	    const char *hash, int *moved, struct dbp_diag *d);

/* The columns whose search text (name, note, value notes; a part's label;
 * lower-cased) holds the printable-ASCII needle (three characters or more,
 * no newline) according to the positional trigram lists of column_grams,
 * less the stale ids of tables changed since the lists were built
 * (column_grams_dirty: their current columns are the caller's to test).
 * *ids is malloc'd (caller frees), sorted ascending.  *exact is 0 when
 * the needle was too long to check whole: the ids are then candidates the
 * caller must confirm.  0, or -1 with d set. */
int	dbp_grams_find(sqlite3 *db, const char *needle, int64_t **ids,
	    size_t *nids, int *exact, struct dbp_diag *d);

/* Digest (16 hex digits into out[17]) over the given relative paths'
 * current index hashes ("absent" for a file not present), in sorted path
 * order.  Used to pin cursors and resource versions to content. */
int	dbp_files_digest(sqlite3 *db, const char *const *paths, size_t npaths,
	    char out[17], struct dbp_diag *d);

/* ------------------------------------------------------------------ */
/* YAML text (yemit.c)                                                  */

/* Write v as block YAML (libyaml emitter, two-space indent, no line
 * wrapping) that a YAML 1.1 safe loader reads back as the same tree:
 * strings that would resolve to another type are quoted, numbers use
 * YAML spellings (.inf, 1.0e-05).  Returns malloc'd text (caller frees),
 * or NULL on OOM or a tree deeper than DBP_MAX_DEPTH. */
char	*dbp_yaml_dump(const cJSON *v);

/* The SQL of sql/schema.sql (generated into schema.c). */
extern const char dbp_schema_sql[];

#endif /* DBPRINT_H */

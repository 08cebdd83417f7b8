/*
 * index.c - keeping a connection's SQLite index current with its print.
 *
 * A run (dbp_index_update) is one write transaction:
 *   1. the connection files (manifest.yaml, manifest.annotations.yaml,
 *      diff.yaml, reading.md) are looked at; a manifest whose content
 *      changed is parsed and gives the list of tables, one entry at a
 *      time (each its table of the plan and its tables row, then gone:
 *      ox_stream_entry), otherwise the list comes from the index itself;
 *   2. every declared file of every table is lstat()ed (path safety per
 *      SPEC 2.5 on the way); a file whose identity (dev, ino, size,
 *      mtime_ns) is unchanged is not read.  With the manifest unchanged,
 *      a quick look at every files row first (probe.c, ox_quick) narrows
 *      the tables planned to those where a file may differ: none, on a
 *      run with nothing to do;
 *   3. the tables with a file whose identity changed are "jobs": their
 *      changed files are read and hashed (worker threads on a large run);
 *      equal hashes only update the identity, a changed hash (or a file
 *      appearing, vanishing, or a changed manifest entry) re-parses the
 *      whole table and replaces every row derived from it;
 *   4. meta is brought up to date: print_version (a sum over every
 *      file's path and hash) and the columns count move by what the run
 *      wrote, so a run that changes one table does not read every row
 *      (ox_tally); a full run counts them.
 * Steps 2 and 3 take the tables DBP_PLAN_BATCH at a time, in manifest
 * order, and a batch's files, their previous rows (read from the index
 * per table directory, in path order) and their documents are freed
 * before the next batch is looked at.  Memory thus holds a batch and the
 * plan (~250 bytes a table), not the print; a changed manifest adds its
 * text while it is read (~320 bytes a table), never its tree but when it
 * must be parsed whole (an anchor, a repeated table).
 * A run that fails rolls back: the previous index stays as it was.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "ix.h"
#include "platform.h"

void	(*dbp_index_progress)(long, long) = NULL;

/* What happened to one file this run. */
enum {
	O_UNCHANGED = 1,	/* identity (or absence) as before: not read */
	O_NEEDREAD,		/* identity changed: read and hash */
	O_REHASHED,		/* read, same hash: identity updated */
	O_CHANGED		/* content or presence changed */
};

/* The file of table kind k of table t (t->f allocated: ox_files). */
#define TF(t, k)	((t)->f[(k) - IX_FIRST_TABLE_KIND])
#define IX_NTABLE_FILES	(IX_NKINDS - IX_FIRST_TABLE_KIND)

/* A files row of the previous run. */
struct ox_old {
	int64_t	 dev, ino, size, mtime;
	int	 have_id;
	char	 hash[33];	/* "" when none */
	char	 status[16];	/* the longest is "outside_root" */
};

/* Chunks holding the previous run's rows and paths: one allocation per
 * OX_CHUNK bytes rather than three per file. */
#define OX_CHUNK	(256 * 1024)
struct ox_chunk {
	struct ox_chunk	*next;
	size_t		 used;
	char		 data[OX_CHUNK];
};

struct ox_file {
	int		 kind;
	int		 declared;	/* named by the manifest */
	char		*rel;		/* path relative to the root */
	char		*file;		/* declared file name */
	int		 outside;	/* leads outside the root */
	struct ix_look	 look;
	struct ox_old	*old;		/* the previous run's row */
	int		 old_done;	/* old looked up (ox_old_file) */
	int		 outcome;
	char		 hash[33];
	int		 have_hash;
	char		*buf;
	size_t		 len;
	cJSON		*doc;		/* parsed, when status is ok */
	struct dbp_arena	 arena;		/* doc's nodes, when the one-pass
					 * parser read it (ox_doc_free) */
	char		*docjson;
	const char	*status;
	char		*error;
	int		 examined;	/* status/error/doc computed */
	int		 prefetched;	/* look taken by ox_prefetch */
	int		 relooked;	/* looked at again after a failed read */
};

/* What the index held about a table, or what the manifest now says. */
struct ox_table {
	char		*fqn;
	int		 ord;
	int		 walkable;
	int		 followable;
	char		*dir;		/* as written, normalised when possible */
	const char	*files[IX_NKINDS];	/* declared names, table kinds:
					 * the usual name is ix_kinds'
					 * own, any other a copy
					 * (ox_name) */
	const cJSON	*entry;		/* borrowed from the manifest's tree
					 * (or, streamed, its entry's scratch
					 * arena) until its row is written */
	int		 row_followable;	/* what its tables row says */
	struct ox_file	*f;		/* IX_NTABLE_FILES, TF(); NULL until
					 * the table's batch (ox_files) */
	int		 nfiles;
	int		 isnew;		/* not in the index before */
	int		 sigchanged;	/* dir, followability or artifacts */
	int		 rebuild;
	int		 touched;	/* some identity changed */
	int		 done;		/* prepared (jobs) */
	int		 fromdb;	/* loaded from the index: old_* hold */
	int		 old_followable;
	int		 paths_done;	/* ox_plan_paths ran */
	int		 dir_outside;	/* its directory leads out */
};

struct ox_run {
	sqlite3		*db;
	const char	*conn;
	const char	*root;
	int		 full;
	struct ix_map	*filter;	/* table fqns to consider, or NULL */
	struct ix_safety safe;
	sqlite3_stmt	*old_one;	/* a file's previous row (ox_old_open) */
	sqlite3_stmt	*old_dir;	/* the rows under a directory */
	struct ox_chunk	*chunks;	/* holds a batch's struct ox_old */
	struct ix_map	 oldtab;	/* fqn -> struct ox_table * */
	struct ox_file	 cf[IX_FIRST_TABLE_KIND];	/* connection files */
	int		 manifest_parsed;
	struct ox_table	*tabs;
	size_t		 ntabs;
	/* A changed manifest's tables, streamed (ox_examine_manifest) */
	int		 stream;	/* stream them when it is parsed */
	int		 streamed;	/* they were: plan and rows are made */
	int		 stream_err;	/* a callback failed: the run fails */
	size_t		 tabcap;	/* room in tabs */
	struct ix_map	 now;		/* fqn -> its table's index + 1 */
	struct ox_w	*w;		/* the writer, for the tables rows */
	struct ox_table	**jobs;
	size_t		 njobs;
	/* meta kept by what the run writes (ox_tally): set from the
	 * previous run's meta on a run that is not full */
	int		 tally;		/* 0: ox_write_meta counts every row */
	uint64_t	 pv[2];		/* print_version, low and high halves */
	long long	 ncolumns;	/* meta columns */
	long long	 ntables;	/* meta tables */
	int		 changed;	/* anything written */
	struct dbp_stats *st;
	struct dbp_diag	*d;
	/* the job pool */
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* workers: the window opened, or stop */
	pthread_cond_t	 done_cv;	/* the writer: a job was prepared */
	size_t		 next;		/* next job a worker takes */
	size_t		 consumed;	/* jobs the writer finished */
	size_t		 released;	/* of those, jobs a worker freed */
	int		 idle;		/* workers waiting on cv */
	int		 writer_waits;	/* the writer waits on done_cv */
	int		 stop;
};

/* ------------------------------------------------------------------ */
/* SQL helpers                                                          */

static int
ox_exec(sqlite3 *db, const char *sql, struct dbp_diag *d)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		dbp_fail(d, "index: %s", err ? err : sqlite3_errmsg(db));
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

/*
 * Switch db to WAL.  That needs every other connection's lock gone, and
 * SQLite answers SQLITE_BUSY at once, without its busy handler, where
 * waiting could deadlock: another run holding the write lock while this
 * one reads the header to change the mode.  So the switch is retried
 * every DBP_WAL_RETRY_MS, for up to wait_ms.  0, or -1 with d set (d
 * may be NULL).
 */
static int
ox_wal(sqlite3 *db, int wait_ms, struct dbp_diag *d)
{
	struct timespec ts = { 0, DBP_WAL_RETRY_MS * 1000000L };
	int waited = 0, rc;

	for (;;) {
		rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL,
		    NULL);
		if (rc == SQLITE_OK)
			return 0;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) !=
		    SQLITE_LOCKED) || waited >= wait_ms)
			break;
		nanosleep(&ts, NULL);
		waited += DBP_WAL_RETRY_MS;
	}
	return d != NULL ? dbp_fail(d, "index: %s", sqlite3_errmsg(db)) : -1;
}

void	(*ix_test_after_plan)(void *);
void	 *ix_test_after_plan_arg;

static int
ox_prep(sqlite3 *db, const char *sql, sqlite3_stmt **s, struct dbp_diag *d)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK)
		return dbp_fail(d, "index: %s", sqlite3_errmsg(db));
	return 0;
}

static int
ox_done(sqlite3 *db, sqlite3_stmt *s, struct dbp_diag *d)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return dbp_fail(d, "index write failed: %s",
		    sqlite3_errmsg(db));
	return 0;
}

static char *
ox_col(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t != NULL ? strdup((const char *)t) : NULL;
}

/* ------------------------------------------------------------------ */
/* Opening                                                              */

static int
ox_mkdirs(const char *path)
{
	char buf[DBP_MAX_PATH], *p;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return -1;
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

/* When path lies in a ".dbprint" directory, make sure that directory
 * holds a .gitignore of "*". */
static void
ox_gitignore(const char *path)
{
	char buf[DBP_MAX_PATH];
	const char *m;
	FILE *f;

	m = strstr(path, "/.dbprint/");
	if (m == NULL)
		return;
	if ((size_t)snprintf(buf, sizeof(buf), "%.*s/.dbprint/.gitignore",
	    (int)(m - path), path) >= sizeof(buf))
		return;
	if (access(buf, F_OK) == 0)
		return;
	if ((f = fopen(buf, "wx")) == NULL)
		return;
	fputs("*\n", f);
	fclose(f);
}

static int
ox_user_version(sqlite3 *db, int *v)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) !=
	    SQLITE_OK)
		return -1;
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int
ox_has_tables(sqlite3 *db)
{
	sqlite3_stmt *s;
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1,
	    &s, NULL) != SQLITE_OK)
		return 1;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n > 0;
}

/* An index file built new in rollback-journal mode (dbp_index_open) goes
 * over to WAL once its first update committed, so that readers never wait
 * for a writer again.  A failure (a reader holding the file) leaves it in
 * rollback mode, still correct; the next open tries again. */
static void
ox_to_wal(sqlite3 *db)
{
	sqlite3_stmt *s;
	int delete = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL) !=
	    SQLITE_OK)
		return;
	if (sqlite3_step(s) == SQLITE_ROW)
		delete = sqlite3_stricmp((const char *)sqlite3_column_text(s, 0),
		    "delete") == 0;
	sqlite3_finalize(s);
	if (delete)
		(void)ox_wal(db, DBP_BUSY_TIMEOUT_MS, NULL);
}

/* Create the schema unless present at our version; another version (or a
 * foreign file) is reset and re-created. */
static int
ox_schema(sqlite3 *db, struct dbp_diag *d)
{
	char sql[64];
	int v, attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (ox_exec(db, "BEGIN IMMEDIATE", d) == -1)
			return -1;
		if (ox_user_version(db, &v) == -1) {
			ox_exec(db, "ROLLBACK", NULL);
			return dbp_fail(d, "index: %s", sqlite3_errmsg(db));
		}
		if (v == DBP_SCHEMA_VERSION)
			return ox_exec(db, "COMMIT", d);
		if (v == 0 && !ox_has_tables(db)) {
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			    DBP_SCHEMA_VERSION);
			if (ox_exec(db, dbp_schema_sql, d) == -1 ||
			    ox_exec(db, sql, d) == -1) {
				ox_exec(db, "ROLLBACK", NULL);
				return -1;
			}
			return ox_exec(db, "COMMIT", d);
		}
		/* Another schema version: empty the file and start over. */
		ox_exec(db, "ROLLBACK", NULL);
		sqlite3_db_config(db, SQLITE_DBCONFIG_RESET_DATABASE, 1, 0);
		v = ox_exec(db, "VACUUM", d);
		sqlite3_db_config(db, SQLITE_DBCONFIG_RESET_DATABASE, 0, 0);
		if (v == -1 || ox_exec(db, "PRAGMA journal_mode=WAL", d) == -1)
			return -1;
	}
	return dbp_fail(d, "index: cannot create the schema");
}

void
dbp_index_remove(const char *path, int main_too)
{
	static const char *const sfx[] = { "-journal", "-wal", "-shm" };
	char p[DBP_MAX_PATH];
	size_t i;
	int n;

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		n = snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		if (n > 0 && (size_t)n < sizeof(p))
			(void)unlink(p);
	}
	if (main_too)
		(void)unlink(path);
}

int
dbp_index_prepare(const char *path, struct dbp_diag *d)
{
	if (ox_mkdirs(path) == -1)
		return dbp_fail(d, "cannot create the directory of %s: %s",
		    path, strerror(errno));
	ox_gitignore(path);
	return 0;
}

int
dbp_index_open(const char *path, int flags, sqlite3 **db, struct dbp_diag *d)
{
	struct stat sb;
	int oflags, v, wait, fresh = 0, created = 0;
	char sql[64];

	*db = NULL;
	if (flags & DBP_OPEN_MEMORY) {
		path = ":memory:";
		oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	} else if (flags & DBP_OPEN_READONLY) {
		if (access(path, F_OK) == -1)
			return dbp_fail(d, "no index at %s; run dbprint-index "
			    "first", path);
		oflags = SQLITE_OPEN_READONLY;
	} else {
		if (dbp_index_prepare(path, d) == -1)
			return -1;
		oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
		fresh = stat(path, &sb) == -1 ? (created = errno == ENOENT) :
		    S_ISREG(sb.st_mode) && sb.st_size == 0;
	}
	if (sqlite3_open_v2(path, db, oflags | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		dbp_fail(d, "cannot open the index %s: %s", path,
		    *db ? sqlite3_errmsg(*db) : "out of memory");
		goto fail;
	}
	/* The schema check below takes the write lock too: a second
	 * dbprint-index waits here for a first run's whole build. */
	wait = flags & DBP_OPEN_WAIT ? DBP_INDEX_WAIT_MS : DBP_BUSY_TIMEOUT_MS;
	sqlite3_busy_timeout(*db, wait);
	if (flags & DBP_OPEN_READONLY) {
		if (ox_user_version(*db, &v) == -1) {
			dbp_fail(d, "cannot read the index %s: %s", path,
			    sqlite3_errmsg(*db));
			goto fail;
		}
		if (v != DBP_SCHEMA_VERSION) {
			dbp_fail(d, "the index %s is of schema version %d, not "
			    "%d; run dbprint-index to rebuild it", path, v,
			    DBP_SCHEMA_VERSION);
			goto fail;
		}
		return 0;
	}
	/* A new file is built in rollback-journal mode, which writes each
	 * page once (pages past the file's old end are not journaled) where
	 * WAL writes it twice, once to the log and once to the file; the
	 * first update's commit switches it to WAL (ox_to_wal). */
	if (!(flags & DBP_OPEN_MEMORY) && !fresh && ox_wal(*db, wait, d) == -1)
		goto fail;
	/* A new file's page size (an existing index keeps its own: set on a
	 * file in WAL mode, the pragma left readers locked out of the next
	 * run's commit). */
	snprintf(sql, sizeof(sql), "PRAGMA page_size = %d",
	    DBP_INDEX_PAGE_SIZE);
	if (fresh && ox_exec(*db, sql, d) == -1)
		goto fail;
	snprintf(sql, sizeof(sql), "PRAGMA busy_timeout = %d", wait);
	/* The page cache (DBP_INDEX_CACHE_PRAGMA says why its size). */
	if (ox_exec(*db, "PRAGMA synchronous=NORMAL", d) == -1 ||
	    ox_exec(*db, DBP_INDEX_CACHE_PRAGMA, d) == -1 ||
	    ox_exec(*db, sql, d) == -1 || ox_schema(*db, d) == -1)
		goto fail;
	return 0;
fail:
	sqlite3_close(*db);
	*db = NULL;
	if (created)
		dbp_index_remove(path, 1);	/* leave nothing behind */
	return -1;
}

/* ------------------------------------------------------------------ */
/* Loading what the index held                                          */

/* n bytes (aligned) from the run's chunks; NULL on OOM. */
static void *
ox_alloc(struct ox_run *r, size_t n)
{
	struct ox_chunk *c = r->chunks;
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > OX_CHUNK)
		return NULL;
	if (c == NULL || c->used + n > OX_CHUNK) {
		if ((c = malloc(sizeof(*c))) == NULL)
			return NULL;
		c->next = r->chunks;
		c->used = 0;
		r->chunks = c;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

static void
ox_chunks_free(struct ox_run *r)
{
	struct ox_chunk *c, *next;

	for (c = r->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	r->chunks = NULL;
}

/* t[0..n) (NULL: empty) into out[size], cut to fit: a bounded copy that
 * costs what it copies (50,000 rows a run). */
static void
ox_copy(char *out, size_t size, const unsigned char *t, int n)
{
	size_t k = t != NULL && n > 0 ? (size_t)n : 0;

	if (k >= size)
		k = size - 1;
	if (k > 0)
		memcpy(out, t, k);
	out[k] = '\0';
}

/* The previous run's row of a file from the current row of s, whose
 * columns from first on are dev, ino, size, mtime_ns, hash, status; in
 * the run's chunks (freed with the batch).  NULL on OOM. */
static struct ox_old *
ox_old_row(struct ox_run *r, sqlite3_stmt *s, int first)
{
	struct ox_old *o;

	if ((o = ox_alloc(r, sizeof(*o))) == NULL)
		return NULL;
	o->have_id = sqlite3_column_type(s, first) != SQLITE_NULL;
	o->dev = sqlite3_column_int64(s, first);
	o->ino = sqlite3_column_int64(s, first + 1);
	o->size = sqlite3_column_int64(s, first + 2);
	o->mtime = sqlite3_column_int64(s, first + 3);
	ox_copy(o->hash, sizeof(o->hash), sqlite3_column_text(s, first + 4),
	    sqlite3_column_bytes(s, first + 4));
	ox_copy(o->status, sizeof(o->status), sqlite3_column_text(s,
	    first + 5), sqlite3_column_bytes(s, first + 5));
	return o;
}

/* The statements that read the previous run's files rows, through the
 * covering index files_identity: one path, and the paths under one
 * directory. */
static int
ox_old_open(struct ox_run *r)
{
	if (ox_prep(r->db, "SELECT dev, ino, size, mtime_ns, hash, status "
	    "FROM files INDEXED BY files_identity WHERE path = ?1",
	    &r->old_one, r->d) == -1 ||
	    ox_prep(r->db, "SELECT path, dev, ino, size, mtime_ns, hash, "
	    "status FROM files INDEXED BY files_identity WHERE path >= ?1 AND "
	    "path < ?2", &r->old_dir, r->d) == -1)
		return -1;
	return 0;
}

/* f's row of the previous run, once (f->old, NULL when none).  A read
 * that fails leaves it NULL: the file is then read and hashed again. */
static void
ox_old_file(struct ox_run *r, struct ox_file *f)
{
	sqlite3_stmt *s = r->old_one;

	if (f->old_done)
		return;
	f->old_done = 1;
	f->old = NULL;
	if (s == NULL || f->rel == NULL)
		return;
	sqlite3_bind_text(s, 1, f->rel, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		f->old = ox_old_row(r, s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/*
 * The previous run's rows of table t's files: one range of the index
 * over its directory (the files sit there, in a print gen-print or
 * dbprint writes), then a lookup for each file elsewhere.  In path
 * order, so a run's reads walk the index rather than hold it: memory
 * holds one batch's rows, whatever the print's size.
 */
static void
ox_old_table(struct ox_run *r, struct ox_table *t)
{
	sqlite3_stmt *s = r->old_dir;
	struct ox_file *f;
	char lo[DBP_MAX_PATH], hi[DBP_MAX_PATH];
	const char *p;
	size_t n;
	int k;

	if (s == NULL || t->f == NULL || t->dir == NULL || t->dir[0] == '\0')
		return;
	n = strlen(t->dir);
	if (n + 2 > sizeof(lo))
		return;
	/* [dir "/", dir "0"): '0' follows '/' */
	snprintf(lo, sizeof(lo), "%s/", t->dir);
	snprintf(hi, sizeof(hi), "%s0", t->dir);
	sqlite3_bind_text(s, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, hi, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		p = (const char *)sqlite3_column_text(s, 0);
		for (k = IX_FIRST_TABLE_KIND; p != NULL && k < IX_NKINDS; k++) {
			f = &TF(t, k);
			if (f->old_done || f->rel == NULL ||
			    strcmp(f->rel, p) != 0)
				continue;
			f->old = ox_old_row(r, s, 1);
			f->old_done = f->old != NULL;
			break;
		}
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	/* the files the range did not hold are looked up by ox_classify */
}

/* Free f's document, however it was built. */
static void
ox_doc_free(struct ox_file *f)
{
	if (f->arena.chunks != NULL)
		dbp_arena_free(&f->arena);
	else
		cJSON_Delete(f->doc);
	f->doc = NULL;
}

/* A table's declared file name of kind k: the usual one is not copied
 * (saves five allocations a table of the plan), any other is.  NULL for
 * NULL or on OOM.  Freed by ox_name_free. */
static const char *
ox_name(int k, const char *name)
{
	if (name == NULL)
		return NULL;
	if (strcmp(name, ix_kinds[k].file) == 0)
		return ix_kinds[k].file;
	return strdup(name);
}

static void
ox_name_free(int k, const char *name)
{
	if (name != ix_kinds[k].file)
		free((char *)name);
}

/* Free t's files (ox_files) and everything they hold; t->f is NULL
 * after. */
static void
ox_files_free(struct ox_table *t)
{
	int k;

	if (t->f == NULL)
		return;
	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		free(TF(t, k).rel);
		free(TF(t, k).file);
		free(TF(t, k).buf);
		ox_doc_free(&TF(t, k));
		free(TF(t, k).docjson);
		free(TF(t, k).error);
	}
	free(t->f);
	t->f = NULL;
}

static void
ox_table_free(struct ox_table *t)
{
	int k;

	free(t->fqn);
	free(t->dir);
	for (k = 0; k < IX_NKINDS; k++)
		ox_name_free(k, t->files[k]);
	ox_files_free(t);
	memset(t, 0, sizeof(*t));
}

/* Give t its files (zeroed), once: a table's files exist only while its
 * batch is planned and written (DBP_PLAN_BATCH).  0, or -1 on OOM. */
static int
ox_files(struct ox_run *r, struct ox_table *t)
{
	if (t->f == NULL &&
	    (t->f = calloc(IX_NTABLE_FILES, sizeof(*t->f))) == NULL)
		return dbp_fail(r->d, "out of memory");
	return 0;
}

static void
ox_oldtab_free(struct ix_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (m->keys[i] == NULL)
			continue;
		ox_table_free(m->vals[i]);
		free(m->vals[i]);
	}
	ix_map_free(m);
}

/*
 * The plan of the tables in filter alone, when the manifest did not
 * change: a re-run the quick look narrowed to the tables whose files may
 * differ (ox_quick), or the tables dbp_index_refresh was asked for.
 * Each tables row and its artifacts are read by key, and r->tabs sorted
 * by ord.  Loading every table's plan to work on one cost a 100,000-table
 * re-run ~50 MB and a scan of 600,000 rows, and dbprint-serve as much
 * each time a call found a file changed.
 */
static int
ox_by_ord(const void *a, const void *b)
{
	const struct ox_table *x = a, *y = b;

	return (x->ord > y->ord) - (x->ord < y->ord);
}

/* A tables row's columns fqn, ord, walkable, followable, dir (0-4) into
 * t; its followable is the previous run's (old_followable) when old is
 * set.  0, or -1 on OOM. */
static int
ox_table_of_row(struct ox_table *t, sqlite3_stmt *s, int old)
{
	t->fqn = ox_col(s, 0);
	t->ord = sqlite3_column_int(s, 1);
	t->walkable = sqlite3_column_int(s, 2);
	if (old)
		t->old_followable = sqlite3_column_int(s, 3);
	else
		t->followable = sqlite3_column_int(s, 3);
	t->dir = ox_col(s, 4);
	return t->fqn == NULL ? -1 : 0;
}

/* An artifacts row's kind and file (columns c and c + 1) into t->files:
 * the first row of a kind stands.  0, or -1 on OOM. */
static int
ox_artifact_of_row(struct ox_table *t, sqlite3_stmt *s, int c)
{
	int k = ix_table_kind((const char *)sqlite3_column_text(s, c));

	if (k < 0 || t->files[k] != NULL)
		return 0;
	t->files[k] = ox_name(k, (const char *)sqlite3_column_text(s, c + 1));
	return t->files[k] == NULL ? -1 : 0;
}

static int
ox_load_plan_of(struct ox_run *r, const struct ix_map *filter)
{
	sqlite3_stmt *s = NULL, *a = NULL;
	struct ox_table *t;
	size_t i;
	int rc = SQLITE_DONE, oom;

	if (filter->n == 0)
		return 0;
	if ((r->tabs = calloc(filter->n, sizeof(*r->tabs))) == NULL)
		return dbp_fail(r->d, "out of memory");
	if (ox_prep(r->db, "SELECT fqn, ord, walkable, followable, dir FROM "
	    "tables WHERE fqn = ?1", &s, r->d) == -1 ||
	    ox_prep(r->db, "SELECT kind, file FROM artifacts WHERE "
	    "table_fqn = ?1", &a, r->d) == -1) {
		sqlite3_finalize(s);
		return -1;
	}
	for (i = 0; i < filter->cap && rc == SQLITE_DONE; i++) {
		if (filter->keys[i] == NULL)
			continue;
		sqlite3_bind_text(s, 1, filter->keys[i], -1, SQLITE_STATIC);
		if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			t = &r->tabs[r->ntabs++];
			t->fromdb = 1;
			oom = ox_table_of_row(t, s, 1) == -1;
			sqlite3_bind_text(a, 1, filter->keys[i], -1,
			    SQLITE_STATIC);
			while (!oom && (rc = sqlite3_step(a)) == SQLITE_ROW)
				oom = ox_artifact_of_row(t, a, 0) == -1;
			sqlite3_reset(a);
			if (oom)
				rc = SQLITE_NOMEM;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(a);
	if (rc != SQLITE_DONE)
		return dbp_fail(r->d, "index: cannot read the plan: %s",
		    rc == SQLITE_NOMEM ? "out of memory" :
		    sqlite3_errmsg(r->db));
	qsort(r->tabs, r->ntabs, sizeof(*r->tabs), ox_by_ord);
	return 0;
}

/* The plan when the manifest did not change: the tables and artifacts
 * rows, in ord order, straight into r->tabs. */
static int
ox_load_plan(struct ox_run *r)
{
	sqlite3_stmt *s = NULL;
	struct ox_table *t;
	struct ix_map byfqn = { 0 };
	const char *fqn;
	size_t n = 0, i = 0;
	int rc;

	if (ox_prep(r->db, "SELECT count(*) FROM tables", &s, r->d) == -1)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = (size_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (n == 0)
		return 0;
	if ((r->tabs = calloc(n, sizeof(*r->tabs))) == NULL)
		return dbp_fail(r->d, "out of memory");
	if (ox_prep(r->db, "SELECT fqn, ord, walkable, followable, dir FROM "
	    "tables ORDER BY ord", &s, r->d) == -1)
		return -1;
	while (r->ntabs < n && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		t = &r->tabs[r->ntabs++];
		t->fromdb = 1;
		if (ox_table_of_row(t, s, 1) == -1) {
			sqlite3_finalize(s);
			return dbp_fail(r->d, "out of memory");
		}
	}
	sqlite3_finalize(s);
	/* the artifacts in their own (fqn) order, each to its table by a
	 * map: a join ordered by ord would sort every row */
	byfqn.borrowed = 1;
	if (ix_map_reserve(&byfqn, r->ntabs) == -1)
		return dbp_fail(r->d, "out of memory");
	for (i = 0; i < r->ntabs; i++)
		if (ix_map_put(&byfqn, r->tabs[i].fqn, &r->tabs[i]) == -1) {
			ix_map_free(&byfqn);
			return dbp_fail(r->d, "out of memory");
		}
	if (ox_prep(r->db, "SELECT table_fqn, kind, file FROM artifacts", &s,
	    r->d) == -1) {
		ix_map_free(&byfqn);
		return -1;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		fqn = (const char *)sqlite3_column_text(s, 0);
		t = fqn != NULL ? ix_map_get(&byfqn, fqn) : NULL;
		if (t != NULL && ox_artifact_of_row(t, s, 1) == -1)
			break;
	}
	sqlite3_finalize(s);
	ix_map_free(&byfqn);
	if (rc != SQLITE_DONE)
		return dbp_fail(r->d, "index: cannot read artifacts: %s",
		    rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(r->db));
	return 0;
}

/* The tables and artifacts rows, as struct ox_table (files[] only), into
 * r->oldtab, to compare a changed manifest against. */
static int
ox_load_tables(struct ox_run *r)
{
	sqlite3_stmt *s = NULL;
	struct ox_table *t;
	int rc;

	if (ox_prep(r->db, "SELECT fqn, ord, walkable, followable, dir FROM "
	    "tables", &s, r->d) == -1)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((t = calloc(1, sizeof(*t))) == NULL)
			break;
		if (ox_table_of_row(t, s, 0) == -1 ||
		    ix_map_put(&r->oldtab, t->fqn, t) == -1) {
			ox_table_free(t);
			free(t);
			break;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return dbp_fail(r->d, "index: cannot read tables");
	if (ox_prep(r->db, "SELECT table_fqn, kind, file FROM artifacts", &s,
	    r->d) == -1)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		t = ix_map_get(&r->oldtab, (const char *)sqlite3_column_text(s,
		    0));
		if (t != NULL && ox_artifact_of_row(t, s, 1) == -1)
			break;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return dbp_fail(r->d, "index: cannot read artifacts: %s",
		    rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(r->db));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Looking at and reading files                                         */

static int
ox_same_id(const struct ox_old *o, const struct ix_id *id)
{
	return o != NULL && o->have_id && o->dev == id->dev &&
	    o->ino == id->ino && o->size == id->size && o->mtime == id->mtime;
}

/* Decide a file's outcome from its look and the previous run. */
static void
ox_classify(struct ox_run *r, struct ox_file *f)
{
	const char *was;

	ox_old_file(r, f);
	was = f->old != NULL ? f->old->status : NULL;
	if (f->outside) {
		f->look.state = IX_LOOK_OUTSIDE;
	} else if (!f->prefetched)
		ix_look(&r->safe, f->rel, &f->look);
	switch (f->look.state) {
	case IX_LOOK_FILE:
		if (!r->full && ox_same_id(f->old, &f->look.id) &&
		    strcmp(was, "absent") != 0 &&
		    strcmp(was, "outside_root") != 0 &&
		    strcmp(was, "unreadable") != 0)
			f->outcome = O_UNCHANGED;
		else if (f->look.id.size > DBP_MAX_FILE_BYTES)
			f->outcome = O_CHANGED;
		else
			f->outcome = O_NEEDREAD;
		break;
	case IX_LOOK_ABSENT:
		f->outcome = !r->full && was != NULL &&
		    strcmp(was, "absent") == 0 ? O_UNCHANGED : O_CHANGED;
		break;
	case IX_LOOK_OUTSIDE:
		f->outcome = !r->full && was != NULL &&
		    strcmp(was, "outside_root") == 0 ? O_UNCHANGED : O_CHANGED;
		break;
	default:
		f->outcome = O_CHANGED;
		break;
	}
}

static void
ox_abs(const struct ox_run *r, const char *rel, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", r->root, rel);
}

static void ox_examine(struct ox_run *, struct ox_file *);

/* Look at f again (once a run: a file that keeps changing is then
 * reported as the read found it): 1 when what is there is no longer what
 * f->look saw, which it now holds. */
static int
ox_relook(struct ox_run *r, struct ox_file *f)
{
	struct ix_look was = f->look;

	f->relooked = 1;
	ix_look(&r->safe, f->rel, &f->look);
	return f->look.state != was.state || (was.state == IX_LOOK_FILE &&
	    (f->look.id.dev != was.id.dev || f->look.id.ino != was.id.ino ||
	    f->look.id.size != was.id.size ||
	    f->look.id.mtime != was.id.mtime));
}

/* Read and hash a present file (no parse). 0, or -1 when unreadable or
 * no longer a regular file (the status and error are then set). */
static int
ox_read(struct ox_run *r, struct ox_file *f)
{
	char abs[DBP_MAX_PATH];
	struct dbp_diag d;
	struct stat st;

	if (f->buf != NULL || f->have_hash)
		return 0;
	/* A file the plain lstat found regular (ox_prefetch): read it in
	 * three system calls (open, read, close) where dbp_read_file takes
	 * four, its identity the lstat's (taken before the read, as
	 * dbp_read_file's is). */
	if (f->prefetched && f->look.state == IX_LOOK_FILE &&
	    r->safe.rootfd >= 0 && f->look.id.size >= 0 &&
	    f->look.id.size <= DBP_MAX_FILE_BYTES) {
		switch (dbp_read_known(r->safe.rootfd, f->rel,
		    (size_t)f->look.id.size, &f->buf)) {
		case 0:
			f->len = (size_t)f->look.id.size;
			dbp_hash_hex(f->buf, f->len, f->hash);
			f->have_hash = 1;
			return 0;
		case -1:
			f->status = "unreadable";
			f->error = strdup("out of memory");
			f->examined = 1;
			return -1;
		}
		/* Not the file looked at any more: look again, as the plan
		 * would have, and report what is there now unless it is
		 * still a regular file to read the careful way. */
		f->prefetched = 0;
		(void)ox_relook(r, f);
		if (f->look.state != IX_LOOK_FILE ||
		    f->look.id.size > DBP_MAX_FILE_BYTES) {
			f->examined = 0;
			ox_examine(r, f);
			return -1;
		}
	}
	ox_abs(r, f->rel, abs, sizeof(abs));
	if (dbp_read_file(abs, DBP_MAX_FILE_BYTES, &f->buf, &f->len, &st, &d) ==
	    -1) {
		/* Gone, or no longer a regular file, since it was looked at:
		 * look once more and report what is there now, as the plan
		 * would have (a file still as it was looked at is
		 * unreadable). */
		if (!f->relooked && ox_relook(r, f)) {
			f->examined = 0;
			ox_examine(r, f);
			return -1;
		}
		f->status = "unreadable";
		f->error = strdup(d.msg);
		f->examined = 1;
		return -1;
	}
	ix_id_of(&st, &f->look.id);	/* the identity of what was read */
	dbp_hash_hex(f->buf, f->len, f->hash);
	f->have_hash = 1;
	return 0;
}

static char *
ox_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
ox_msg(const char *fmt, ...)
{
	struct dbp_buf b;
	va_list ap;
	char small[DBP_DIAG_MAX];

	va_start(ap, fmt);
	vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	dbp_buf_init(&b, sizeof(small));
	dbp_buf_adds(&b, small);
	return dbp_buf_take(&b);
}

/* Compact JSON of a document (what files.doc holds); malloc'd, NULL on
 * OOM. */
static char *
ox_compact(const cJSON *doc)
{
	struct dbp_buf b;

	dbp_buf_init(&b, DBP_MAX_DOC_JSON);
	ix_json_compact(&b, doc);
	return dbp_buf_take(&b);
}

/*
 * The manifest's files.doc: its document with the `tables` member, a
 * mapping by then (ox_shape), written as {} in its place.  Each entry is
 * its table's row (tables.entry, in tables.ord order): stored whole as
 * well, the entries were 25 MB of a 100,000-table index, and that JSON
 * and SQLite's copy of it were the part of a build's memory that grew
 * with the print.  malloc'd; NULL on OOM.
 */
static char *
ox_compact_manifest(const cJSON *doc)
{
	struct dbp_buf b;
	const cJSON *c;

	if (!cJSON_IsObject(doc))
		return ox_compact(doc);
	dbp_buf_init(&b, DBP_MAX_DOC_JSON);
	dbp_buf_addc(&b, '{');
	for (c = doc->child; c != NULL; c = c->next) {
		if (c != doc->child)
			dbp_buf_addc(&b, ',');
		ix_json_str(&b, c->string);
		dbp_buf_addc(&b, ':');
		if (strcmp(c->string, "tables") == 0 && cJSON_IsObject(c))
			dbp_buf_add(&b, "{}", 2);
		else
			ix_json_compact(&b, c);
	}
	dbp_buf_addc(&b, '}');
	return dbp_buf_take(&b);
}

/* The shape rule of a parsed document; NULL when fine, else the reason
 * (static or in buf). */
static const char *
ox_shape(int kind, const cJSON *doc, char *buf, size_t n)
{
	const cJSON *t;

	if (kind != IX_MANIFEST && kind != IX_STATS && kind != IX_RELS)
		return NULL;
	if (cJSON_IsNull(doc))
		return "the file is empty";
	if (!cJSON_IsObject(doc)) {
		snprintf(buf, n, "expected a mapping, found %s", ix_pytype(doc));
		return buf;
	}
	if (kind != IX_MANIFEST)
		return NULL;
	t = cJSON_GetObjectItemCaseSensitive(doc, "tables");
	if (t == NULL || cJSON_IsObject(t))
		return NULL;
	snprintf(buf, n, "`tables` must be a mapping of table name to entry, "
	    "found %s", cJSON_IsNull(t) ? "nothing" : ix_pytype(t));
	return buf;
}

static cJSON *ox_stream_manifest(struct ox_run *, struct ox_file *,
    struct dbp_diag *);

/* Compute a file's status, error and document (reading it when needed).
 * Never touches the index, but for a manifest whose tables stream
 * (r->stream: ox_examine_manifest). */
static void
ox_examine(struct ox_run *r, struct ox_file *f)
{
	char abs[DBP_MAX_PATH], why[256];
	struct dbp_diag d;
	const char *reason;

	if (f->examined)
		return;
	f->examined = 1;
	ox_abs(r, f->rel, abs, sizeof(abs));
	switch (f->look.state) {
	case IX_LOOK_OUTSIDE:
		f->status = "outside_root";
		f->error = ox_msg("%s: leads outside the print root (SPEC "
		    "2.5); not read", abs);
		return;
	case IX_LOOK_ABSENT:
		f->status = "absent";
		if (f->declared)
			f->error = ox_msg("manifest references %s but file is "
			    "absent at %s. Re-run dbprint generate.", f->file,
			    abs);
		return;
	case IX_LOOK_FILE:
		break;
	default:
		f->status = "unreadable";
		f->error = ox_msg("%s: cannot read: %s", abs,
		    f->look.err == EISDIR ? "not a regular file" :
		    strerror(f->look.err));
		return;
	}
	if (f->look.id.size > DBP_MAX_FILE_BYTES) {
		f->status = "too_large";
		f->error = ox_msg("%s: the file is %lld bytes, over the %ld-byte "
		    "limit; not read", abs, (long long)f->look.id.size,
		    (long)DBP_MAX_FILE_BYTES);
		return;
	}
	f->examined = 0;
	if (ox_read(r, f) == -1)
		return;
	f->examined = 1;
	f->status = "ok";
	if (!ix_kinds[f->kind].yaml)
		return;
	if (f->kind == IX_MANIFEST && r->stream)
		f->doc = ox_stream_manifest(r, f, &d);
	else
		f->doc = dbp_ydoc_parse_arena(f->buf, f->len, &f->arena, &d);
	if (f->doc == NULL) {
		f->status = "parse_error";
		f->error = ox_msg("%s: YAML parse error: %s", abs, d.msg);
		return;
	}
	if ((reason = ox_shape(f->kind, f->doc, why, sizeof(why))) != NULL) {
		f->status = "shape_error";
		f->error = ox_msg("%s: %s", abs, reason);
	} else if ((f->kind == IX_STATS_ANNOT || f->kind == IX_RELS_ANNOT ||
	    f->kind == IX_MANIFEST_ANNOT) &&
	    ix_annot_check(f->kind, f->doc, &d) == -1) {
		f->status = "schema_error";
		f->error = ox_msg("%s: does not match its schema (SPEC 2.7): %s",
		    abs, d.msg);
	}
	free(f->buf);	/* the tree holds copies: the text is not needed */
	f->buf = NULL;
	/* A statistics file's document is not kept: the index holds its
	 * facts in rows, and dbprint-serve reads the file itself when a
	 * context shows it (dbp_stats_read, checked against files.hash).
	 * Kept, it was 40% of the index's bytes and of what a build wrote,
	 * and 4% of a 10,000-table build's CPU. */
	if (f->kind == IX_MANIFEST)
		f->docjson = ox_compact_manifest(f->doc);
	else if (f->kind != IX_STATS)
		f->docjson = ox_compact(f->doc);
	if (strcmp(f->status, "ok") != 0)
		ox_doc_free(f);
}

/* ------------------------------------------------------------------ */
/* The plan                                                             */

/* Set up table t's files from its dir and declared names; classify
 * them; decide sigchanged against the index. */
/*
 * A table's file paths, relative and normalised (phase one of planning,
 * before anything on disk is looked at, so the looks can be taken in
 * parallel: ox_prefetch).  A path leading out of the root marks its file
 * outside, and every file after it (as the lookups of ox_plan_table
 * would).
 */
static int
ox_plan_paths(struct ox_run *r, struct ox_table *t)
{
	struct ox_file *f;
	char *norm, *joined, *slash;
	int k, esc, outside = 0;
	size_t n;

	if (ox_files(r, t) == -1)
		return -1;
	if (t->paths_done || !t->walkable)
		return 0;
	t->paths_done = 1;
	if (t->dir == NULL)
		return dbp_fail(r->d, "out of memory");
	norm = ix_relnorm(t->dir, &esc);
	if (norm == NULL && !esc)
		return dbp_fail(r->d, "out of memory");
	if (norm == NULL)
		outside = 1;
	else {
		outside = ix_safety_dir(&r->safe, norm) == IX_SAFE_OUT;
		free(t->dir);
		t->dir = norm;
	}
	t->dir_outside = outside;
	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		if (t->files[k] == NULL)
			continue;
		f = &TF(t, k);
		f->kind = k;
		f->declared = 1;
		f->file = strdup(t->files[k]);
		n = strlen(t->dir) + strlen(t->files[k]) + 2;
		if (f->file == NULL || (joined = malloc(n)) == NULL)
			return dbp_fail(r->d, "out of memory");
		snprintf(joined, n, "%s%s%s", t->dir, t->dir[0] ? "/" : "",
		    t->files[k]);
		f->outside = outside;
		if (!outside) {
			norm = ix_relnorm(joined, &esc);
			if (norm == NULL && !esc) {
				free(joined);
				return dbp_fail(r->d, "out of memory");
			}
			if (norm == NULL)
				f->outside = 1;
			else {
				free(joined);
				joined = norm;
				slash = strrchr(joined, '/');
				if (slash != NULL) {
					*slash = '\0';
					if (ix_safety_dir(&r->safe, joined) ==
					    IX_SAFE_OUT)
						f->outside = 1;
					*slash = '/';
				}
			}
		}
		f->rel = joined;
		if (f->outside)
			outside = 1;
	}
	return 0;
}

/* The plain lstat of each file: a regular file or an absence is its
 * look; anything else (a symlink, an error) is left to ix_look. */
struct ox_pre {
	struct ox_run	 *r;
	struct ox_file	**files;
	size_t		  n, first, step;
};

static void *
ox_pre_run(void *arg)
{
	struct ox_pre *p = arg;
	struct ox_file *f;
	struct stat sb;
	size_t i;

	for (i = p->first; i < p->n; i += p->step) {
		f = p->files[i];
		if (fstatat(p->r->safe.rootfd, f->rel, &sb,
		    AT_SYMLINK_NOFOLLOW) == 0) {
			if (!S_ISREG(sb.st_mode))
				continue;
			ix_id_of(&sb, &f->look.id);
			f->look.state = IX_LOOK_FILE;
		} else if (errno == ENOENT || errno == ENOTDIR) {
			f->look.state = IX_LOOK_ABSENT;
			f->look.err = errno;
		} else
			continue;
		f->prefetched = 1;
	}
	return NULL;
}

/*
 * Phase one of planning for the tables [lo, hi) of the run that it
 * considers, then the lstat of all their files on DBP_LOOK_THREADS
 * threads (a run with nothing changed is mostly these 40,000 system
 * calls on a 10,000-table print).  0, or -1 on OOM.
 */
static int
ox_prefetch(struct ox_run *r, struct ix_map *filter, size_t lo, size_t hi)
{
	struct ox_file **files = NULL;
	struct ox_pre pre[DBP_LOOK_THREADS];
	pthread_t th[DBP_LOOK_THREADS];
	size_t i, n = 0, nth = 0;
	int k;

	for (i = lo; i < hi; i++) {
		if (filter != NULL && ix_map_get(filter, r->tabs[i].fqn) == NULL)
			continue;
		if (ox_plan_paths(r, &r->tabs[i]) == -1)
			return -1;
	}
	if (r->safe.rootfd < 0 || hi - lo < DBP_LOOK_MIN_TABLES)
		return 0;
	if ((files = calloc((hi - lo) * IX_NTABLE_FILES + 1,
	    sizeof(*files))) == NULL)
		return dbp_fail(r->d, "out of memory");
	for (i = lo; i < hi; i++)
		for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
			if (r->tabs[i].f != NULL &&
			    TF(&r->tabs[i], k).rel != NULL &&
			    !TF(&r->tabs[i], k).outside)
				files[n++] = &TF(&r->tabs[i], k);
	for (i = 0; i < DBP_LOOK_THREADS; i++) {
		pre[i].r = r;
		pre[i].files = files;
		pre[i].n = n;
		pre[i].first = i;
		pre[i].step = DBP_LOOK_THREADS;
	}
	for (i = 1; i < DBP_LOOK_THREADS; i++, nth++)
		if (pthread_create(&th[i - 1], NULL, ox_pre_run, &pre[i]) != 0)
			break;
	/* the main thread takes its share, and any a thread did not start
	 * for */
	ox_pre_run(&pre[0]);
	for (i = nth + 1; i < DBP_LOOK_THREADS; i++)
		ox_pre_run(&pre[i]);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	free(files);
	return 0;
}

/* Plan one table: its paths (ox_plan_paths, unless done), the look and
 * outcome of each file, and whether the table is rebuilt or touched. */
static int
ox_plan_table(struct ox_run *r, struct ox_table *t)
{
	struct ox_table *o;
	struct ox_file *f;
	char *joined;
	int k, outside;
	size_t n;

	if (ox_files(r, t) == -1)
		return -1;
	/* Loaded from the index, the table is its own previous state. */
	o = t->fromdb ? t : ix_map_get(&r->oldtab, t->fqn);
	t->isnew = o == NULL;
	if (!t->walkable) {
		t->followable = 0;
		t->sigchanged = o == NULL || o->walkable;
		t->rebuild = t->sigchanged || r->full;
		return 0;
	}
	if (ox_plan_paths(r, t) == -1)
		return -1;
	ox_old_table(r, t);
	outside = t->dir_outside;
	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		f = &TF(t, k);
		if (f->rel == NULL)
			continue;
		if (outside && !f->outside) {
			/* an earlier file is a symlink leading out: this
			 * one's path stays as joined, unnormalised */
			n = strlen(t->dir) + strlen(t->files[k]) + 2;
			if ((joined = malloc(n)) == NULL)
				return dbp_fail(r->d, "out of memory");
			snprintf(joined, n, "%s%s%s", t->dir,
			    t->dir[0] ? "/" : "", t->files[k]);
			free(f->rel);
			f->rel = joined;
			f->outside = 1;
			f->prefetched = 0;
			f->old_done = 0;
		}
		ox_classify(r, f);
		if (f->look.state == IX_LOOK_OUTSIDE)
			f->outside = 1;	/* a symlink leading out */
		if (f->outside)
			outside = 1;
		t->nfiles++;
	}
	/* Outside anywhere: the table is not followable and nothing of it
	 * is read. */
	t->followable = !outside;
	if (outside)
		for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
			if (TF(t, k).rel != NULL && !TF(t, k).outside) {
				TF(t, k).outside = 1;
				ox_classify(r, &TF(t, k));
			}
	if (o == NULL)
		t->sigchanged = 1;
	else if (t->fromdb)
		t->sigchanged = t->old_followable != t->followable;
	else {
		t->sigchanged = o->followable != t->followable ||
		    o->walkable != t->walkable ||
		    (o->dir == NULL) != (t->dir == NULL) ||
		    (o->dir != NULL && strcmp(o->dir, t->dir) != 0);
		for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
			if ((o->files[k] == NULL) != (t->files[k] == NULL) ||
			    (o->files[k] != NULL &&
			    strcmp(o->files[k], t->files[k]) != 0))
				t->sigchanged = 1;
	}
	t->rebuild = r->full || t->sigchanged;
	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		if (TF(t, k).rel == NULL)
			continue;
		if (TF(t, k).outcome == O_CHANGED)
			t->rebuild = 1;
		if (TF(t, k).outcome != O_UNCHANGED)
			t->touched = 1;
	}
	return 0;
}

/* Table t (zeroed) of the plan from its manifest entry e, named fqn,
 * the ord-th.  0, or -1 on OOM (t then holds what it got). */
static int
ox_plan_entry(struct ox_run *r, struct ox_table *t, int ord,
    const char *fqn, const cJSON *e)
{
	const cJSON *p, *arts, *a;
	int k;

	t->ord = ord;
	t->entry = e;
	if ((t->fqn = strdup(fqn)) == NULL)
		return dbp_fail(r->d, "out of memory");
	p = cJSON_GetObjectItemCaseSensitive(e, "path");
	t->walkable = cJSON_IsObject(e) && (p == NULL || cJSON_IsString(p));
	if (!t->walkable)
		return 0;
	if (cJSON_IsString(p) && p->valuestring[0] != '\0')
		t->dir = strdup(p->valuestring);
	else {
		t->dir = strdup(t->fqn);
		for (k = 0; t->dir != NULL && t->dir[k] != '\0'; k++)
			if (t->dir[k] == '.')
				t->dir[k] = '/';
	}
	if (t->dir == NULL)
		return dbp_fail(r->d, "out of memory");
	arts = cJSON_GetObjectItemCaseSensitive(e, "artifacts");
	cJSON_ArrayForEach(a, (cJSON_IsObject(arts) ? arts : NULL)) {
		k = ix_table_kind(a->string);
		if (k < 0 || !cJSON_IsString(a) || t->files[k] != NULL)
			continue;
		if ((t->files[k] = ox_name(k, a->valuestring)) == NULL)
			return dbp_fail(r->d, "out of memory");
	}
	return 0;
}

/* The plan from a parsed manifest's tree (one not streamed). */
static int
ox_plan_from_manifest(struct ox_run *r, cJSON *doc)
{
	cJSON *tabs, *e;
	size_t n;

	tabs = cJSON_GetObjectItemCaseSensitive(doc, "tables");
	if (!cJSON_IsObject(tabs))
		return 0;
	n = (size_t)cJSON_GetArraySize(tabs);
	if (n == 0)
		return 0;
	if ((r->tabs = calloc(n, sizeof(*r->tabs))) == NULL)
		return dbp_fail(r->d, "out of memory");
	cJSON_ArrayForEach(e, tabs) {
		r->ntabs++;
		if (ox_plan_entry(r, &r->tabs[r->ntabs - 1], (int)r->ntabs - 1,
		    e->string, e) == -1)
			return -1;
	}
	return 0;
}

/*
 * The quick look (probe.c) of a run whose manifest is unchanged: which
 * tables may have changed.  Returns -1 on error; 0 when none may (the run
 * has no table to plan: *others counts their files); 1 when the tables in
 * qf may (*others counts the files of the rest, which the plan skips); 2
 * when too many may to be worth a filter (plan them all).
 */
static int
ox_quick(struct ox_run *r, struct ix_map *qf, long *others)
{
	struct ix_probe pb;
	sqlite3_stmt *s = NULL;
	const char *fqn;
	long conn = 0, own = 0;
	size_t i;
	int rc = -1;

	*others = 0;
	if (ix_probe(r->db, r->safe.rootfd, DBP_PROBE_MAX_TABLES *
	    IX_NTABLE_FILES, &pb, r->d) == -1)
		return -1;
	if (pb.overflow) {
		ix_probe_free(&pb);
		return 2;
	}
	/* the candidates' tables; a connection file's row (no table) is
	 * ox_conn_files' to judge, and was */
	if (ox_prep(r->db, "SELECT table_fqn FROM files WHERE path = ?1", &s,
	    r->d) == -1)
		goto out;
	for (i = 0; i < pb.n; i++) {
		sqlite3_bind_text(s, 1, pb.paths[i], -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW &&
		    (fqn = (const char *)sqlite3_column_text(s, 0)) != NULL &&
		    ix_map_put(qf, fqn, qf) == -1) {
			dbp_fail(r->d, "out of memory");
			goto out;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (qf->n > DBP_PROBE_MAX_TABLES) {
		rc = 2;
		goto out;
	}
	/* the files the plan will not count: all but the candidates' */
	if (ox_prep(r->db, "SELECT count(*) FROM files WHERE table_fqn IS "
	    "NULL", &s, r->d) == -1)
		goto out;
	if (sqlite3_step(s) == SQLITE_ROW)
		conn = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	if (qf->n > 0) {
		if (ox_prep(r->db, "SELECT count(*) FROM files WHERE "
		    "table_fqn = ?1", &s, r->d) == -1)
			goto out;
		for (i = 0; i < qf->cap; i++) {
			if (qf->keys[i] == NULL)
				continue;
			sqlite3_bind_text(s, 1, qf->keys[i], -1,
			    SQLITE_STATIC);
			if (sqlite3_step(s) == SQLITE_ROW)
				own += sqlite3_column_int64(s, 0);
			sqlite3_reset(s);
		}
	}
	*others = (long)pb.files - conn - own;
	rc = qf->n > 0;
out:
	sqlite3_finalize(s);
	ix_probe_free(&pb);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Preparing a job (no index access; runs on worker threads)            */

static void
ox_prepare(struct ox_run *r, struct ox_table *t)
{
	struct ox_file *f;
	int k, changed = 0;

	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		f = &TF(t, k);
		if (f->rel == NULL || f->outcome != O_NEEDREAD)
			continue;
		if (ox_read(r, f) == -1) {
			f->outcome = O_CHANGED;
			changed = 1;
		} else if (f->old != NULL &&
		    strcmp(f->old->hash, f->hash) == 0 &&
		    strcmp(f->old->status, "absent") != 0) {
			f->outcome = O_REHASHED;
			free(f->buf);
			f->buf = NULL;
		} else {
			f->outcome = O_CHANGED;
			changed = 1;
		}
	}
	if (changed)
		t->rebuild = 1;
	if (!t->rebuild || !t->followable)
		return;
	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
		if (TF(t, k).rel != NULL) {
			TF(t, k).have_hash = TF(t, k).have_hash &&
			    TF(t, k).buf != NULL;
			ox_examine(r, &TF(t, k));
		}
}

static void ox_release_job(struct ox_table *);

/* A worker: frees what the writer is done with (the documents were
 * allocated on this side, and freeing them here keeps the writer's
 * thread for writing), and prepares the next job within the window.
 * With the window full it sleeps until the writer has freed half of it
 * (ox_run_jobs): on two CPUs each wake-up takes the writer's CPU, so one
 * per job would cost the writer thousands of preemptions. */
static void *
ox_worker(void *arg)
{
	struct ox_run *r = arg;
	size_t i;

	/* The writer is the run's critical path; on two CPUs three threads
	 * share them, and a worker yields its share to the writer (on Linux
	 * only: elsewhere a nice would be the whole process's). */
	dbp_thread_nice(DBP_WORKER_NICE);
	for (;;) {
		pthread_mutex_lock(&r->mu);
		for (;;) {
			if (r->released < r->consumed) {
				i = r->released++;
				pthread_mutex_unlock(&r->mu);
				ox_release_job(r->jobs[i]);
				pthread_mutex_lock(&r->mu);
				continue;
			}
			if (r->stop || r->next >= r->njobs) {
				pthread_mutex_unlock(&r->mu);
				return NULL;
			}
			if (r->next < r->consumed + DBP_INDEX_WINDOW)
				break;
			r->idle++;
			pthread_cond_wait(&r->cv, &r->mu);
			r->idle--;
		}
		i = r->next++;
		pthread_mutex_unlock(&r->mu);
		ox_prepare(r, r->jobs[i]);
		pthread_mutex_lock(&r->mu);
		r->jobs[i]->done = 1;
		if (r->writer_waits)
			pthread_cond_signal(&r->done_cv);
		pthread_mutex_unlock(&r->mu);
	}
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

enum {
	S_FILE, S_FILE_ID, S_FILES_DEL_TABLE, S_ART_INS, S_TAB_UPSERT,
	S_TAB_FOLLOW, S_TAB_DEL, S_ART_DEL_TABLE, S_FILE_WAS, S_FILES_OF_TABLE,
	S_NSTMT
};

static const char *const ox_sql[S_NSTMT] = {
	[S_FILE] = "INSERT OR REPLACE INTO files (path, kind, table_fqn, dev, "
	    "ino, size, mtime_ns, hash, status, error, doc) VALUES (?1, ?2, ?3, "
	    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[S_FILE_ID] = "UPDATE files SET dev = ?2, ino = ?3, size = ?4, "
	    "mtime_ns = ?5 WHERE path = ?1",
	[S_FILES_DEL_TABLE] = "DELETE FROM files WHERE table_fqn = ?1",
	[S_ART_INS] = "INSERT OR REPLACE INTO artifacts (table_fqn, kind, file, "
	    "path) VALUES (?1, ?2, ?3, ?4)",
	[S_TAB_UPSERT] = "INSERT INTO tables (fqn, ord, walkable, followable, "
	    "type, dir, row_count, columns, profiled_at, max_age_days, entry) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
	    "ON CONFLICT (fqn) DO UPDATE SET ord = excluded.ord, "
	    "walkable = excluded.walkable, followable = excluded.followable, "
	    "type = excluded.type, dir = excluded.dir, "
	    "row_count = excluded.row_count, columns = excluded.columns, "
	    "profiled_at = excluded.profiled_at, "
	    "max_age_days = excluded.max_age_days, entry = excluded.entry",
	[S_TAB_FOLLOW] = "UPDATE tables SET followable = ?2 WHERE fqn = ?1",
	[S_TAB_DEL] = "DELETE FROM tables WHERE fqn = ?1",
	[S_ART_DEL_TABLE] = "DELETE FROM artifacts WHERE table_fqn = ?1",
	/* what a files row held, for print_version (ox_tally) */
	[S_FILE_WAS] = "SELECT coalesce(hash, status) FROM files WHERE "
	    "path = ?1",
	[S_FILES_OF_TABLE] = "SELECT path, coalesce(hash, status) FROM files "
	    "WHERE table_fqn = ?1",
};

struct ox_w {
	sqlite3_stmt		*st[S_NSTMT];
	struct ix_writer	*rows;
};

static void
ox_w_close(struct ox_w *w)
{
	int i;

	for (i = 0; i < S_NSTMT; i++)
		sqlite3_finalize(w->st[i]);
	ix_writer_close(w->rows);
}

static int
ox_w_open(struct ox_run *r, struct ox_w *w)
{
	int i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < S_NSTMT; i++)
		if (sqlite3_prepare_v3(r->db, ox_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL) != SQLITE_OK)
			return dbp_fail(r->d, "index: %s",
			    sqlite3_errmsg(r->db));
	return ix_writer_open(r->db, &w->rows, r->d);
}

static void
ox_bind_id(sqlite3_stmt *s, int first, const struct ox_file *f)
{
	const struct ix_id *id = &f->look.id;

	sqlite3_bind_int64(s, first, id->dev);
	sqlite3_bind_int64(s, first + 1, id->ino);
	sqlite3_bind_int64(s, first + 2, id->size);
	sqlite3_bind_int64(s, first + 3, id->mtime);
}

/*
 * print_version is the sum, modulo 2^128, of XXH3-128 over each files
 * row's path, a tab, its hash (its status when it has none) and a
 * newline.  A sum moves by the rows a run writes: a run that is not full
 * takes the previous run's value from meta and adds or takes away the
 * share of each row it inserts, replaces or deletes (ox_tally_file,
 * ox_del_files), so re-indexing one table does not read the 600,000
 * files rows of a 100,000-table index (nor count its 3 million columns:
 * ncolumns moves by the columns a table's rows lose and gain).  A full
 * run sums every row (ox_write_meta).  A checksum that tells a print from
 * another, not a commitment against crafted files.
 */
/* A line ox_pv_fold hashes on the stack: a path, a tab, a 32-digit hash
 * or a status, a newline; a longer one is allocated. */
#define OX_PV_LINE	(DBP_MAX_PATH + 64)

static int
ox_pv_fold(uint64_t pv[2], const char *path, const char *v, int sign)
{
	char small[OX_PV_LINE], *b = small;
	size_t np = strlen(path), nv = strlen(v), n = np + nv + 2;
	XXH128_hash_t h;
	uint64_t borrow;

	if (n > sizeof(small) && (b = malloc(n)) == NULL)
		return -1;
	memcpy(b, path, np);
	b[np] = '\t';
	memcpy(b + np + 1, v, nv);
	b[n - 1] = '\n';
	h = XXH3_128bits(b, n);
	if (b != small)
		free(b);
	if (sign > 0) {
		pv[0] += h.low64;
		pv[1] += h.high64 + (pv[0] < h.low64);
	} else {
		borrow = pv[0] < h.low64;
		pv[0] -= h.low64;
		pv[1] -= h.high64 + borrow;
	}
	return 0;
}

/* Fold the rows (path, value) statement s yields into print_version,
 * adding them (sign 1) or taking them away (-1).  0, or -1. */
static int
ox_pv_fold_rows(struct ox_run *r, sqlite3_stmt *s, int sign)
{
	const char *path, *v;
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		path = (const char *)sqlite3_column_text(s, 0);
		v = (const char *)sqlite3_column_text(s, 1);
		if (path != NULL && v != NULL &&
		    ox_pv_fold(r->pv, path, v, sign) == -1)
			return dbp_fail(r->d, "out of memory");
	}
	if (rc != SQLITE_DONE)
		return dbp_fail(r->d, "index: %s", sqlite3_errmsg(r->db));
	return 0;
}

/* The previous run's meta, to keep up to date: r->tally is 1 when
 * print_version, tables and columns all read back. */
static void
ox_tally_open(struct ox_run *r)
{
	sqlite3_stmt *s;
	const char *v;
	char hi[17];

	r->tally = 0;
	if (ox_prep(r->db, "SELECT (SELECT value FROM meta WHERE key = "
	    "'print_version'), (SELECT value FROM meta WHERE key = 'tables'), "
	    "(SELECT value FROM meta WHERE key = 'columns')", &s, r->d) == -1)
		return;
	if (sqlite3_step(s) == SQLITE_ROW &&
	    (v = (const char *)sqlite3_column_text(s, 0)) != NULL &&
	    strlen(v) == 32 && strspn(v, "0123456789abcdef") == 32 &&
	    sqlite3_column_type(s, 1) != SQLITE_NULL &&
	    sqlite3_column_type(s, 2) != SQLITE_NULL) {
		memcpy(hi, v, 16);
		hi[16] = '\0';
		r->pv[1] = strtoull(hi, NULL, 16);
		r->pv[0] = strtoull(v + 16, NULL, 16);
		r->ntables = sqlite3_column_int64(s, 1);
		r->ncolumns = sqlite3_column_int64(s, 2);
		r->tally = 1;
	}
	sqlite3_finalize(s);
}

/* Take the share of path's files row, if it has one, out of
 * print_version (before the row is replaced).  0, or -1. */
static int
ox_tally_file(struct ox_run *r, struct ox_w *w, const char *path)
{
	sqlite3_stmt *s = w->st[S_FILE_WAS];
	int rc;

	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW &&
	    sqlite3_column_text(s, 0) != NULL &&
	    ox_pv_fold(r->pv, path, (const char *)sqlite3_column_text(s, 0),
	    -1) == -1)
		rc = SQLITE_NOMEM;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dbp_fail(r->d, "index: %s", rc == SQLITE_NOMEM ?
		    "out of memory" : sqlite3_errmsg(r->db));
	return 0;
}

/* Delete table fqn's files rows, their shares out of print_version. */
static int
ox_del_files(struct ox_run *r, struct ox_w *w, const char *fqn)
{
	sqlite3_stmt *s = w->st[S_FILES_OF_TABLE];
	int rc;

	if (r->tally) {
		sqlite3_bind_text(s, 1, fqn, -1, SQLITE_STATIC);
		rc = ox_pv_fold_rows(r, s, -1);
		sqlite3_reset(s);
		if (rc == -1)
			return -1;
	}
	sqlite3_bind_text(w->st[S_FILES_DEL_TABLE], 1, fqn, -1, SQLITE_STATIC);
	return ox_done(r->db, w->st[S_FILES_DEL_TABLE], r->d);
}

/* Write a file's whole row (after ox_examine). */
static int
ox_put_file(struct ox_run *r, struct ox_w *w, const struct ox_file *f,
    const char *fqn)
{
	sqlite3_stmt *s = w->st[S_FILE];
	int have_id = f->look.state == IX_LOOK_FILE;
	const char *status = f->status ? f->status : "unreadable";

	if (r->tally) {
		if (ox_tally_file(r, w, f->rel) == -1)
			return -1;
		if (ox_pv_fold(r->pv, f->rel, f->have_hash ? f->hash : status,
		    1) == -1)
			return dbp_fail(r->d, "out of memory");
	}

	sqlite3_bind_text(s, 1, f->rel, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, ix_kinds[f->kind].name, -1, SQLITE_STATIC);
	if (fqn != NULL)
		sqlite3_bind_text(s, 3, fqn, -1, SQLITE_STATIC);
	if (have_id)
		ox_bind_id(s, 4, f);
	if (f->have_hash)
		sqlite3_bind_text(s, 8, f->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, status, -1, SQLITE_STATIC);
	if (f->error != NULL)
		sqlite3_bind_text(s, 10, f->error, -1, SQLITE_STATIC);
	if (f->docjson != NULL)
		sqlite3_bind_text(s, 11, f->docjson, -1, SQLITE_STATIC);
	return ox_done(r->db, s, r->d);
}

static int
ox_put_id(struct ox_run *r, struct ox_w *w, const struct ox_file *f)
{
	sqlite3_stmt *s = w->st[S_FILE_ID];

	sqlite3_bind_text(s, 1, f->rel, -1, SQLITE_STATIC);
	ox_bind_id(s, 2, f);
	return ox_done(r->db, s, r->d);
}

static void
ox_count(struct ox_run *r, const struct ox_file *f)
{
	if (r->st == NULL)
		return;
	r->st->files_total++;
	if (f->outcome == O_UNCHANGED)
		r->st->files_unchanged++;
	else if (f->outcome == O_REHASHED)
		r->st->files_rehashed++;
	else
		r->st->files_parsed++;
}

/* Bind a manifest entry member: text for strings, JSON otherwise. */
static void
ox_bind_json(sqlite3_stmt *s, int i, const cJSON *v)
{
	char *j;

	if (v == NULL)
		return;
	if ((j = dbp_json_dump(v, DBP_JSON_COMPACT)) != NULL)
		sqlite3_bind_text(s, i, j, -1, free);
}

static void
ox_bind_intof(sqlite3_stmt *s, int i, const cJSON *v)
{
	if (ix_is_int(v))
		sqlite3_bind_int64(s, i, ix_int(v));
}

/* A table's row from its manifest entry, before its files are looked at:
 * followable is taken to be walkable until the plan says otherwise
 * (ox_write_follow), so the manifest's tree can go before the tables are
 * read. */
static int
ox_put_table_entry(struct ox_run *r, struct ox_w *w, struct ox_table *t)
{
	sqlite3_stmt *s = w->st[S_TAB_UPSERT];
	const cJSON *e = t->entry;

	t->row_followable = t->walkable;
	sqlite3_bind_text(s, 1, t->fqn, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, t->ord);
	sqlite3_bind_int(s, 3, t->walkable);
	sqlite3_bind_int(s, 4, t->row_followable);
	if (ix_str(e, "type") != NULL)
		sqlite3_bind_text(s, 5, ix_str(e, "type"), -1, SQLITE_STATIC);
	if (t->walkable && t->dir != NULL)
		sqlite3_bind_text(s, 6, t->dir, -1, SQLITE_STATIC);
	if (cJSON_IsObject(e)) {
		ox_bind_intof(s, 7, cJSON_GetObjectItemCaseSensitive(e,
		    "row_count"));
		ox_bind_intof(s, 8, cJSON_GetObjectItemCaseSensitive(e,
		    "columns"));
		ox_bind_json(s, 9, cJSON_GetObjectItemCaseSensitive(e,
		    "profiled_at"));
		ox_bind_json(s, 10, cJSON_GetObjectItemCaseSensitive(e,
		    "max_age_days"));
	}
	ox_bind_json(s, 11, e);
	t->entry = NULL;
	return ox_done(r->db, s, r->d);
}

/* A planned table's followable, when its row (ox_put_table_entry) said
 * otherwise. */
static int
ox_write_follow(struct ox_run *r, struct ox_w *w, struct ox_table *t)
{
	sqlite3_stmt *s = w->st[S_TAB_FOLLOW];

	if (t->followable == t->row_followable)
		return 0;
	sqlite3_bind_text(s, 1, t->fqn, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, t->followable);
	t->row_followable = t->followable;
	return ox_done(r->db, s, r->d);
}

static int
ox_put_artifacts(struct ox_run *r, struct ox_w *w, struct ox_table *t)
{
	sqlite3_stmt *s = w->st[S_ART_INS];
	int k;

	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		if (t->files[k] == NULL)
			continue;
		sqlite3_bind_text(s, 1, t->fqn, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, ix_kinds[k].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, t->files[k], -1, SQLITE_STATIC);
		if (!TF(t, k).outside && TF(t, k).rel != NULL)
			sqlite3_bind_text(s, 4, TF(t, k).rel, -1, SQLITE_STATIC);
		if (ox_done(r->db, s, r->d) == -1)
			return -1;
	}
	return 0;
}

static const char *
ox_kstatus(const struct ox_table *t, int k)
{
	if (t->files[k] == NULL)
		return "undeclared";
	return TF(t, k).status != NULL ? TF(t, k).status : "unreadable";
}

/* Write one table after its preparation. */
static int
ox_write_table(struct ox_run *r, struct ox_w *w, struct ox_table *t)
{
	struct ix_tdocs td;
	long ncols = 0;
	int k;

	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
		if (TF(t, k).rel != NULL)
			ox_count(r, &TF(t, k));
	if (!t->rebuild) {
		for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
			if (TF(t, k).outcome == O_REHASHED &&
			    ox_put_id(r, w, &TF(t, k)) == -1)
				return -1;
		if (t->touched)
			r->changed = 1;
		return 0;
	}
	r->changed = 1;
	if (!t->isnew) {
		if (ix_writer_forget(w->rows, t->fqn, &ncols, r->d) == -1 ||
		    ox_del_files(r, w, t->fqn) == -1)
			return -1;
		r->ncolumns -= ncols;
	}
	if (!r->manifest_parsed) {
		sqlite3_bind_text(w->st[S_TAB_FOLLOW], 1, t->fqn, -1,
		    SQLITE_STATIC);
		sqlite3_bind_int(w->st[S_TAB_FOLLOW], 2, t->followable);
		if (ox_done(r->db, w->st[S_TAB_FOLLOW], r->d) == -1)
			return -1;
		sqlite3_bind_text(w->st[S_ART_DEL_TABLE], 1, t->fqn, -1,
		    SQLITE_STATIC);
		if (ox_done(r->db, w->st[S_ART_DEL_TABLE], r->d) == -1 ||
		    ox_put_artifacts(r, w, t) == -1)
			return -1;
	}
	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		if (TF(t, k).rel == NULL)
			continue;
		ox_examine(r, &TF(t, k));
		if (ox_put_file(r, w, &TF(t, k), t->fqn) == -1)
			return -1;
	}
	if (!t->walkable)
		return 0;
	memset(&td, 0, sizeof(td));
	td.fqn = t->fqn;
	td.stats = TF(t, IX_STATS).doc;
	td.sannot = TF(t, IX_STATS_ANNOT).doc;
	td.rels = TF(t, IX_RELS).doc;
	td.rannot = TF(t, IX_RELS_ANNOT).doc;
	td.stats_status = ox_kstatus(t, IX_STATS);
	td.annot_status = ox_kstatus(t, IX_STATS_ANNOT);
	if (ix_writer_table(w->rows, &td, &ncols, r->d) == -1)
		return -1;
	r->ncolumns += ncols;
	return 0;
}

/* Free what a written table no longer needs. */
static void
ox_release_job(struct ox_table *t)
{
	int k;

	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++) {
		free(TF(t, k).buf);
		TF(t, k).buf = NULL;
		ox_doc_free(&TF(t, k));
		free(TF(t, k).docjson);
		TF(t, k).docjson = NULL;
	}
}

/* Run the jobs: workers prepare, this thread writes in order. */
static int
ox_run_jobs(struct ox_run *r, struct ox_w *w)
{
	pthread_t th[DBP_MAX_WORKERS];
	const char *path;
	long ncpu;
	size_t i;
	int nth = 0, k, rc = 0, fd = -1;

	r->next = r->consumed = r->released = 0;
	r->idle = r->writer_waits = r->stop = 0;
	path = sqlite3_db_filename(r->db, "main");
	if (r->njobs >= DBP_WRITEBACK_EVERY && path != NULL && path[0] != '\0')
		fd = open(path, O_RDONLY | O_CLOEXEC);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (r->njobs >= DBP_PARALLEL_MIN_JOBS && ncpu > 1) {
		nth = ncpu > DBP_MAX_WORKERS ? DBP_MAX_WORKERS : (int)ncpu;
		pthread_mutex_init(&r->mu, NULL);
		pthread_cond_init(&r->cv, NULL);
		pthread_cond_init(&r->done_cv, NULL);
		for (k = 0; k < nth; k++)
			if (pthread_create(&th[k], NULL, ox_worker, r) != 0)
				break;
		nth = k;
	}
	for (i = 0; i < r->njobs; i++) {
		if (nth == 0)
			ox_prepare(r, r->jobs[i]);
		else {
			/* Workers take jobs in order and never run further
			 * than the window past this one, so it comes. */
			pthread_mutex_lock(&r->mu);
			while (!r->jobs[i]->done) {
				r->writer_waits = 1;
				pthread_cond_wait(&r->done_cv, &r->mu);
			}
			r->writer_waits = 0;
			pthread_mutex_unlock(&r->mu);
		}
		if (rc == 0 && ox_write_table(r, w, r->jobs[i]) == -1)
			rc = -1;
		if (nth == 0)
			ox_release_job(r->jobs[i]);
		else {
			pthread_mutex_lock(&r->mu);
			r->consumed = i + 1;
			if (rc == -1)
				r->stop = 1;
			/* Idle workers wait for half the window (or the end). */
			if (r->idle > 0 && (r->stop || i + 1 == r->njobs ||
			    r->consumed + DBP_INDEX_WINDOW - r->next >=
			    DBP_INDEX_WINDOW / 2))
				pthread_cond_broadcast(&r->cv);
			pthread_mutex_unlock(&r->mu);
		}
		/* progress in tables, over the batches (ix_update) */
		if (dbp_index_progress != NULL && (i % 256 == 0 ||
		    i + 1 == r->njobs))
			dbp_index_progress((long)(r->jobs[i] - r->tabs) + 1,
			    (long)r->ntabs);
		/* Start the OS writing back the index file's dirty pages
		 * (Linux), so the commit's fdatasync finds little left: with
		 * memory to spare the kernel would hold a big build's pages
		 * dirty until then (0.5 s of a 10,000-table build). */
		if ((i + 1) % DBP_WRITEBACK_EVERY == 0)
			dbp_writeback_start(fd);
		if (rc == -1)	/* workers stopped too: wait for no more */
			break;
	}
	if (nth > 0) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		for (k = 0; k < nth; k++)
			pthread_join(th[k], NULL);
		/* What the workers, gone before the last writes, left. */
		for (i = r->released; i < r->consumed; i++)
			ox_release_job(r->jobs[i]);
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		pthread_cond_destroy(&r->done_cv);
	}
	if (fd != -1)
		close(fd);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Connection files                                                     */

static int
ox_conn_files(struct ox_run *r)
{
	struct ox_file *f;
	int k;

	for (k = 0; k < IX_FIRST_TABLE_KIND; k++) {
		f = &r->cf[k];
		f->kind = k;
		f->file = strdup(ix_kinds[k].file);
		f->rel = strdup(ix_kinds[k].file);
		if (f->file == NULL || f->rel == NULL)
			return dbp_fail(r->d, "out of memory");
		f->declared = k == IX_MANIFEST;
		ox_classify(r, f);
		if (f->outcome == O_NEEDREAD) {
			if (ox_read(r, f) == -1)
				f->outcome = O_CHANGED;
			else if (f->old != NULL &&
			    strcmp(f->old->hash, f->hash) == 0 &&
			    strcmp(f->old->status, "absent") != 0) {
				f->outcome = O_REHASHED;
				free(f->buf);
				f->buf = NULL;
			} else
				f->outcome = O_CHANGED;
		}
	}
	return 0;
}

/*
 * Rewrite the changes rows from diff.yaml's parsed document (NULL when it
 * did not parse, or is not a mapping: no rows).  Only mappings are
 * events; ord counts them alone, so the events are numbered 0, 1, ...
 * and get_diff reaches the i-th through the primary key.
 */
static int
ox_write_changes(struct ox_run *r, const cJSON *doc)
{
	sqlite3_stmt *s;
	struct dbp_buf b;
	struct ix_map kinds = { 0 };	/* kind -> its events so far, as an
					 * integer in the pointer */
	const cJSON *list, *e;
	const char *kind;
	sqlite3_int64 ord = 0;
	uintptr_t seen;
	int rc = -1;

	if (ox_exec(r->db, "DELETE FROM changes", r->d) == -1)
		return -1;
	list = cJSON_IsObject(doc) ?
	    cJSON_GetObjectItemCaseSensitive(doc, "changes") : NULL;
	if (!cJSON_IsArray(list) || list->child == NULL)
		return 0;
	if (ox_prep(r->db, "INSERT INTO changes (ord, kind, kind_ord, "
	    "table_fqn, source_table, target_table, entry) VALUES (?1, ?2, "
	    "?7, ?3, ?4, ?5, ?6)", &s, r->d) == -1)
		return -1;
	dbp_buf_init(&b, DBP_MAX_DOC_JSON);
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsObject(e))
			continue;	/* never an event */
		b.len = 0;
		if (ix_json_compact(&b, e) == -1 || b.failed) {
			dbp_fail(r->d, "out of memory");
			goto out;
		}
		sqlite3_bind_int64(s, 1, ord++);
		if ((kind = ix_str(e, "kind")) != NULL) {
			seen = (uintptr_t)ix_map_get(&kinds, kind);
			if (ix_map_put(&kinds, kind, (void *)(seen + 1)) ==
			    -1) {
				dbp_fail(r->d, "out of memory");
				goto out;
			}
			sqlite3_bind_int64(s, 7, (sqlite3_int64)seen);
		}
		sqlite3_bind_text(s, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, ix_str(e, "table"), -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(s, 4, ix_str(e, "source_table"), -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(s, 5, ix_str(e, "target_table"), -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(s, 6, b.ptr, (int)b.len, SQLITE_STATIC);
		if (ox_done(r->db, s, r->d) == -1)
			goto out;
	}
	rc = 0;
out:
	ix_map_free(&kinds);
	dbp_buf_release(&b);
	sqlite3_finalize(s);
	return rc;
}

static int
ox_write_conn_files(struct ox_run *r, struct ox_w *w)
{
	static const char del[] = "DELETE FROM connection_notes";
	sqlite3_stmt *s;
	struct ox_file *f;
	const cJSON *notes, *it;
	int k, ord = 0;

	for (k = 0; k < IX_FIRST_TABLE_KIND; k++) {
		f = &r->cf[k];
		ox_count(r, f);
		if (f->outcome == O_UNCHANGED)
			continue;
		r->changed = 1;
		if (f->outcome == O_REHASHED) {
			if (ox_put_id(r, w, f) == -1)
				return -1;
			continue;
		}
		ox_examine(r, f);
		if (ox_put_file(r, w, f, NULL) == -1)
			return -1;
		if (k == IX_DIFF && ox_write_changes(r, f->doc) == -1)
			return -1;
		if (k != IX_MANIFEST_ANNOT)
			continue;
		if (ox_exec(r->db, del, r->d) == -1)
			return -1;
		notes = f->doc != NULL ?
		    cJSON_GetObjectItemCaseSensitive(f->doc, "notes") : NULL;
		if (ox_prep(r->db, "INSERT INTO connection_notes (ord, note) "
		    "VALUES (?1, ?2)", &s, r->d) == -1)
			return -1;
		if (cJSON_IsString(notes) && notes->valuestring[0] != '\0') {
			sqlite3_bind_int(s, 1, ord++);
			sqlite3_bind_text(s, 2, notes->valuestring, -1,
			    SQLITE_STATIC);
			if (ox_done(r->db, s, r->d) == -1)
				goto fail;
		}
		cJSON_ArrayForEach(it, (cJSON_IsArray(notes) ? notes : NULL)) {
			if (!cJSON_IsString(it))
				continue;
			sqlite3_bind_int(s, 1, ord++);
			sqlite3_bind_text(s, 2, it->valuestring, -1,
			    SQLITE_STATIC);
			if (ox_done(r->db, s, r->d) == -1)
				goto fail;
		}
		sqlite3_finalize(s);
	}
	return 0;
fail:
	sqlite3_finalize(s);
	return -1;
}

/* Rewrite the manifest-derived rows: tables (manifest columns),
 * failed_tables; drop tables no longer listed and every artifacts row
 * (ox_write_entries writes them again, batch by batch, with each
 * table's followable once its files were looked at). */
static int
ox_write_manifest(struct ox_run *r, struct ox_w *w, const cJSON *doc)
{
	sqlite3_stmt *s;
	const cJSON *ft, *it;
	size_t i;
	long ncols;
	int ord = 0, rc = -1;

	/* A streamed manifest's tables have their rows, and the map. */
	if (!r->streamed) {
		r->now.borrowed = 1;
		if (ix_map_reserve(&r->now, r->ntabs) == -1)
			goto oom;
		for (i = 0; i < r->ntabs; i++)
			if (ix_map_put(&r->now, r->tabs[i].fqn,
			    (void *)(uintptr_t)(i + 1)) == -1)
				goto oom;
	}
	/* Tables gone from the manifest. */
	for (i = 0; i < r->oldtab.cap; i++) {
		if (r->oldtab.keys[i] == NULL ||
		    ix_map_get(&r->now, r->oldtab.keys[i]) != NULL)
			continue;
		if (ix_writer_forget(w->rows, r->oldtab.keys[i], &ncols,
		    r->d) == -1 || ox_del_files(r, w, r->oldtab.keys[i]) == -1)
			goto out;
		r->ncolumns -= ncols;
		sqlite3_bind_text(w->st[S_TAB_DEL], 1, r->oldtab.keys[i], -1,
		    SQLITE_STATIC);
		if (ox_done(r->db, w->st[S_TAB_DEL], r->d) == -1)
			goto out;
	}
	if (ox_exec(r->db, "DELETE FROM artifacts; DELETE FROM failed_tables",
	    r->d) == -1)
		goto out;
	for (i = 0; i < r->ntabs && !r->streamed; i++)
		if (ox_put_table_entry(r, w, &r->tabs[i]) == -1)
			goto out;
	ft = doc != NULL ? cJSON_GetObjectItemCaseSensitive(doc,
	    "failed_tables") : NULL;
	if (ox_prep(r->db, "INSERT INTO failed_tables (ord, fqn) VALUES "
	    "(?1, ?2)", &s, r->d) == -1)
		goto out;
	cJSON_ArrayForEach(it, (cJSON_IsArray(ft) ? ft : NULL)) {
		if (!cJSON_IsString(it))
			continue;
		sqlite3_bind_int(s, 1, ord++);
		sqlite3_bind_text(s, 2, it->valuestring, -1, SQLITE_STATIC);
		if (ox_done(r->db, s, r->d) == -1) {
			sqlite3_finalize(s);
			goto out;
		}
	}
	sqlite3_finalize(s);
	rc = 0;
	goto out;
oom:
	dbp_fail(r->d, "out of memory");
out:
	ix_map_free(&r->now);
	return rc;
}

/*
 * A changed manifest's tables, streamed (dbp_ydoc_parse_stream): each
 * entry, as it is read, becomes a table of the plan and its tables row;
 * then its tree goes.  On a
 * 100,000-table print the tree of the whole manifest was ~120 MB and
 * the largest part of a build's peak memory.  A manifest the one-pass
 * reader gives up on (an anchor, a repeated table, a YAML error) is
 * parsed whole afterwards, as before: what the entries read until then
 * made is undone first (ox_stream_undo).
 */

/* The plan's first room, in tables, when the manifest streams; it
 * doubles. */
#define OX_TABS_FIRST	1024

/* One entry of `tables`: a table of the plan and its row. */
static int
ox_stream_entry(void *arg, const char *fqn, const cJSON *e)
{
	struct ox_run *r = arg;
	struct ox_table *t, *grown;
	size_t cap;

	/* A table named twice: a Python dict keeps the later entry in the
	 * first one's place; the whole tree says so. */
	if (ix_map_get(&r->now, fqn) != NULL)
		return 1;
	if (r->ntabs == r->tabcap) {
		cap = r->tabcap == 0 ? OX_TABS_FIRST : r->tabcap * 2;
		if ((grown = realloc(r->tabs, cap * sizeof(*grown))) == NULL)
			return dbp_fail(r->d, "out of memory");
		memset(grown + r->tabcap, 0, (cap - r->tabcap) *
		    sizeof(*grown));
		r->tabs = grown;
		r->tabcap = cap;
	}
	t = &r->tabs[r->ntabs++];
	if (ox_plan_entry(r, t, (int)r->ntabs - 1, fqn, e) == -1)
		return -1;
	/* the key is t's own copy, which the tabs' growth does not move */
	if (ix_map_put(&r->now, t->fqn, (void *)(uintptr_t)r->ntabs) == -1)
		return dbp_fail(r->d, "out of memory");
	return ox_put_table_entry(r, r->w, t);
}

/* Streaming was given up: drop the tables the entries read made, and the
 * rows of those the index did not hold (the others' rows are written
 * again, or removed, from the tree).  0, or -1 when a row cannot be. */
static int
ox_stream_undo(struct ox_run *r)
{
	sqlite3_stmt *s = r->w->st[S_TAB_DEL];
	size_t i;
	int rc = 0;

	for (i = 0; i < r->ntabs; i++) {
		if (rc == 0 && ix_map_get(&r->oldtab, r->tabs[i].fqn) == NULL) {
			sqlite3_bind_text(s, 1, r->tabs[i].fqn, -1,
			    SQLITE_STATIC);
			rc = ox_done(r->db, s, r->d);
		}
		ox_table_free(&r->tabs[i]);
	}
	free(r->tabs);
	r->tabs = NULL;
	r->ntabs = r->tabcap = 0;
	ix_map_free(&r->now);
	return rc;
}

static cJSON *
ox_stream_manifest(struct ox_run *r, struct ox_file *f, struct dbp_diag *d)
{
	struct dbp_ystream ys;
	cJSON *doc;

	memset(&ys, 0, sizeof(ys));
	ys.member = "tables";
	ys.fn = ox_stream_entry;
	ys.arg = r;
	r->now.borrowed = 1;
	doc = dbp_ydoc_parse_stream(f->buf, f->len, &f->arena, &ys, d);
	r->streamed = ys.streamed == 1;
	if (ys.streamed == -1) {
		r->stream_err = 1;
		dbp_fail(d, "%s", r->d->msg);
	}
	if (ys.streamed != 1 && ox_stream_undo(r) == -1)
		r->stream_err = 1;
	return doc;
}

/* Examine the changed manifest, its tables streamed into the plan and
 * their rows (the writer and r->oldtab ready).  0, or -1 when the run
 * fails; a manifest that does not parse is not that, but its status. */
static int
ox_examine_manifest(struct ox_run *r, struct ox_w *w, struct ox_file *mf)
{
	r->w = w;
	r->stream = 1;
	ox_examine(r, mf);
	r->stream = 0;
	return r->stream_err ? -1 : 0;
}

/* The followable and artifacts of the planned tables [lo, hi), when the
 * manifest was parsed. */
static int
ox_write_entries(struct ox_run *r, struct ox_w *w, size_t lo, size_t hi)
{
	size_t i;

	for (i = lo; i < hi; i++)
		if (ox_write_follow(r, w, &r->tabs[i]) == -1 ||
		    ox_put_artifacts(r, w, &r->tabs[i]) == -1)
			return -1;
	return 0;
}

/* meta rows: print_version and the counts as the run kept them
 * (ox_tally), or counted over every row when it did not. */
static int
ox_write_meta(struct ox_run *r)
{
	sqlite3_stmt *s;
	char ver[33], when[32], sv[16];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	if (!r->tally) {
		r->pv[0] = r->pv[1] = 0;
		if (ox_prep(r->db, "SELECT path, coalesce(hash, status) FROM "
		    "files INDEXED BY files_identity", &s, r->d) == -1)
			return -1;
		rc = ox_pv_fold_rows(r, s, 1);
		sqlite3_finalize(s);
		if (rc == -1)
			return -1;
		r->ncolumns = -1;
	}
	/* tables rows change only with the manifest */
	if (!r->tally || r->manifest_parsed)
		r->ntables = -1;
	snprintf(ver, sizeof(ver), "%016llx%016llx",
	    (unsigned long long)r->pv[1], (unsigned long long)r->pv[0]);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(sv, sizeof(sv), "%d", DBP_SCHEMA_VERSION);
	if (ox_prep(r->db, "INSERT OR REPLACE INTO meta (key, value) VALUES "
	    "('schema_version', ?1), ('connection', ?2), ('print_root', ?3), "
	    "('print_version', ?4), ('indexed_at', ?5), ('tool_version', ?6), "
	    "('tables', coalesce(?7, (SELECT count(*) FROM tables))), "
	    "('columns', coalesce(?8, (SELECT count(*) FROM columns)))", &s,
	    r->d) == -1)
		return -1;
	sqlite3_bind_text(s, 1, sv, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, r->conn, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, r->root, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, ver, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, when, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, DBP_VERSION, -1, SQLITE_STATIC);
	if (r->ntables >= 0)
		sqlite3_bind_int64(s, 7, r->ntables);
	if (r->ncolumns >= 0)
		sqlite3_bind_int64(s, 8, r->ncolumns);
	rc = ox_done(r->db, s, r->d);
	sqlite3_finalize(s);
	return rc;
}

/* Connection and root unchanged?  A different root or name rebuilds. */
static int
ox_meta_matches(struct ox_run *r)
{
	sqlite3_stmt *s;
	int ok = 0;

	if (ox_prep(r->db, "SELECT (SELECT value FROM meta WHERE key = "
	    "'connection') = ?1 AND (SELECT value FROM meta WHERE key = "
	    "'print_root') = ?2", &s, r->d) == -1)
		return 0;
	sqlite3_bind_text(s, 1, r->conn, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, r->root, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		ok = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return ok;
}

static int
ox_wipe(struct ox_run *r)
{
	return ox_exec(r->db, "DELETE FROM meta; DELETE FROM files; "
	    "DELETE FROM tables; DELETE FROM failed_tables; "
	    "DELETE FROM artifacts; DELETE FROM columns; "
	    "DELETE FROM column_values; DELETE FROM value_trigrams; "
	    "DELETE FROM value_notes; DELETE FROM edges; "
	    "DELETE FROM connection_notes; DELETE FROM changes; "
	    "DELETE FROM column_grams; DELETE FROM column_grams_dirty; "
	    "DELETE FROM column_grams_stale", r->d);
}

static int
ox_collect(struct ox_run *r)
{
	struct dbp_stats *st = r->st;
	sqlite3_stmt *s;
	size_t cap = 0;
	struct dbp_error *ne;
	int rc;

	if (st == NULL)
		return 0;
	if (ox_prep(r->db, "SELECT (SELECT value FROM meta WHERE key = "
	    "'tables'), (SELECT value FROM meta WHERE key = 'columns')", &s,
	    r->d) == -1)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		st->tables = sqlite3_column_int64(s, 0);
		st->columns = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (ox_prep(r->db, "SELECT path, error FROM files INDEXED BY "
	    "files_with_error WHERE error IS NOT NULL ORDER BY path", &s,
	    r->d) == -1)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (st->nerrors == cap) {
			cap = cap ? cap * 2 : 16;
			ne = realloc(st->errors, cap * sizeof(*ne));
			if (ne == NULL)
				break;
			st->errors = ne;
		}
		st->errors[st->nerrors].path = ox_col(s, 0);
		st->errors[st->nerrors].message = ox_col(s, 1);
		st->nerrors++;
	}
	sqlite3_finalize(s);
	return 0;
}

static void
ox_run_free(struct ox_run *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->ntabs; i++)
		ox_table_free(&r->tabs[i]);
	free(r->tabs);
	free(r->jobs);
	for (k = 0; k < IX_FIRST_TABLE_KIND; k++) {
		free(r->cf[k].rel);
		free(r->cf[k].file);
		free(r->cf[k].buf);
		ox_doc_free(&r->cf[k]);
		free(r->cf[k].docjson);
		free(r->cf[k].error);
	}
	sqlite3_finalize(r->old_one);
	sqlite3_finalize(r->old_dir);
	ox_chunks_free(r);
	ox_oldtab_free(&r->oldtab);
	ix_map_free(&r->now);
	ix_safety_free(&r->safe);
}

/* Whether the manifest declares manifest.annotations.yaml: an absent
 * declared file is an error, an absent undeclared one is not. */
static void
ox_annot_declared(struct ox_run *r)
{
	struct ox_file *mf = &r->cf[IX_MANIFEST], *af = &r->cf[IX_MANIFEST_ANNOT];
	const cJSON *v;
	sqlite3_stmt *s;

	if (r->manifest_parsed) {
		v = mf->doc != NULL ? cJSON_GetObjectItemCaseSensitive(mf->doc,
		    "manifest_annotations") : NULL;
		af->declared = v != NULL && !cJSON_IsNull(v);
		/* The declaration may have changed: re-examine an absence. */
		if (af->look.state == IX_LOOK_ABSENT)
			af->outcome = O_CHANGED;
		return;
	}
	/* The declaration matters only to a file examined again, and parsing
	 * the stored manifest costs ~15 ms on 10,000 tables. */
	if (af->outcome == O_UNCHANGED)
		return;
	if (sqlite3_prepare_v2(r->db, "SELECT json_extract(doc, "
	    "'$.manifest_annotations') IS NOT NULL FROM files WHERE path = "
	    "'manifest.yaml'", -1, &s, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(s) == SQLITE_ROW)
		af->declared = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
}

int
ix_update(sqlite3 *db, const char *connection, const char *print_root,
    int full, struct ix_map *filter, struct dbp_stats *st, int *changed,
    struct dbp_diag *d)
{
	struct ox_run r;
	struct ox_w w;
	struct ox_file *mf;
	struct ix_map qf = { 0 };
	size_t i, lo, hi;
	long others = 0;
	long long cache = 0;
	int rc = -1, quick = 2;

	memset(&r, 0, sizeof(r));
	memset(&w, 0, sizeof(w));
	r.db = db;
	r.conn = connection;
	r.root = print_root;
	r.full = full;
	r.st = st;
	r.d = d;
	if (st != NULL)
		memset(st, 0, sizeof(*st));
	if (ix_safety_init(&r.safe, print_root) == -1)
		return dbp_fail(d, "out of memory");
	if (ox_exec(db, "BEGIN IMMEDIATE", d) == -1) {
		ix_safety_free(&r.safe);
		return -1;
	}
	if (!r.full && !ox_meta_matches(&r))
		r.full = 1;
	if (r.full && ox_wipe(&r) == -1)
		goto out;
	if (!r.full && ox_old_open(&r) == -1)
		goto out;
	if (!r.full)
		ox_tally_open(&r);
	if (ox_conn_files(&r) == -1)
		goto out;
	mf = &r.cf[IX_MANIFEST];
	if (ox_w_open(&r, &w) == -1)
		goto out;
	if (mf->outcome == O_CHANGED) {
		r.manifest_parsed = 1;
		/* A small page cache while the manifest's plan and JSON
		 * (and, when it is parsed whole, its tree) live (back
		 * below). */
		cache = ix_cache_cap(db, DBP_MANIFEST_CACHE_KIB);
		if (ox_load_tables(&r) == -1 ||
		    ox_examine_manifest(&r, &w, mf) == -1)
			goto out;
	}
	ox_annot_declared(&r);
	if (r.manifest_parsed) {
		if (!r.streamed && mf->doc != NULL &&
		    ox_plan_from_manifest(&r, mf->doc) == -1)
			goto out;
		filter = NULL;
	} else {
		/* Nothing planned can differ from the index but its files:
		 * look at them quickly, and plan only the tables whose files
		 * may have changed (none, on a run with nothing to do). */
		if (filter == NULL && !r.full && r.safe.rootfd >= 0) {
			quick = ox_quick(&r, &qf, &others);
			if (quick == -1)
				goto out;
			if (quick == 1)
				filter = &qf;
		}
		if (quick != 0 && (filter != NULL ?
		    ox_load_plan_of(&r, filter) : ox_load_plan(&r)) == -1)
			goto out;
	}
	r.filter = filter;
	if ((r.jobs = calloc(r.ntabs + 1, sizeof(*r.jobs))) == NULL) {
		dbp_fail(d, "out of memory");
		goto out;
	}
	if (r.manifest_parsed && ox_write_manifest(&r, &w, mf->doc) == -1)
		goto out;
	/* Everything the manifest's tree gives is written: free it (~120 MB
	 * on a 100,000-table print) before its JSON (~25 MB) is, and that
	 * before the tables are read; so too the other connection files,
	 * once written (a 100,000-event diff's tree is ~40 MB). */
	ox_doc_free(mf);
	if (ox_write_conn_files(&r, &w) == -1)
		goto out;
	for (i = 0; i < IX_FIRST_TABLE_KIND; i++) {
		ox_doc_free(&r.cf[i]);
		free(r.cf[i].docjson);
		r.cf[i].docjson = NULL;
		free(r.cf[i].buf);
		r.cf[i].buf = NULL;
	}
	if (r.manifest_parsed || r.cf[IX_DIFF].outcome == O_CHANGED)
		dbp_heap_trim();
	ix_cache_restore(db, cache);
	cache = 0;
	for (i = 0; i < IX_FIRST_TABLE_KIND; i++)
		r.cf[i].old = NULL;	/* in the chunks the batches free */
	/* The tables in batches: a table's files are planned, read, written
	 * and freed with its batch, so memory holds one batch of them. */
	for (lo = 0; lo < r.ntabs; lo = hi) {
		hi = r.ntabs - lo > DBP_PLAN_BATCH ? lo + DBP_PLAN_BATCH :
		    r.ntabs;
		if (ox_prefetch(&r, filter, lo, hi) == -1)
			goto out;
		r.njobs = 0;
		for (i = lo; i < hi; i++) {
			if (filter != NULL &&
			    ix_map_get(filter, r.tabs[i].fqn) == NULL)
				continue;
			if (ox_plan_table(&r, &r.tabs[i]) == -1)
				goto out;
			if (r.tabs[i].rebuild || r.tabs[i].touched)
				r.jobs[r.njobs++] = &r.tabs[i];
			else if (st != NULL)
				st->files_total += r.tabs[i].nfiles,
				    st->files_unchanged += r.tabs[i].nfiles;
		}
		if (r.manifest_parsed && ox_write_entries(&r, &w, lo, hi) == -1)
			goto out;
		if (ix_test_after_plan != NULL)
			ix_test_after_plan(ix_test_after_plan_arg);
		if (ox_run_jobs(&r, &w) == -1)
			goto out;
		for (i = lo; i < hi; i++)
			ox_files_free(&r.tabs[i]);
		ox_chunks_free(&r);	/* the batch's previous rows */
	}
	if (st != NULL && quick != 2)
		st->files_total += others, st->files_unchanged += others;
	/* The tables are written: their plan (~400 bytes a table, the
	 * array of them 180), the jobs' array and the directories looked
	 * at (~70 bytes a table) go before the text index is built. */
	for (i = 0; i < r.ntabs; i++)
		ox_table_free(&r.tabs[i]);
	free(r.tabs);
	r.tabs = NULL;
	r.ntabs = r.tabcap = 0;
	free(r.jobs);
	r.jobs = NULL;
	ix_map_free(&r.safe.dirs);
	dbp_heap_trim();
	if ((r.changed || r.full) && ix_grams_settle(db, r.full, d) == -1)
		goto out;
	if (r.changed && ox_write_meta(&r) == -1)
		goto out;
	if (ox_collect(&r) == -1)
		goto out;
	ox_w_close(&w);
	memset(&w, 0, sizeof(w));
	if (ox_exec(db, "COMMIT", d) == -1)
		goto out;
	ox_to_wal(db);
	if (changed != NULL)
		*changed = r.changed;
	rc = 0;
out:
	ox_w_close(&w);
	if (rc == -1) {
		ox_exec(db, "ROLLBACK", NULL);
		if (st != NULL)
			dbp_stats_release(st);
	}
	ix_cache_restore(db, cache);
	ox_run_free(&r);
	ix_map_free(&qf);
	return rc;
}

int
dbp_index_update(sqlite3 *db, const char *connection, const char *print_root,
    int full, struct dbp_stats *st, struct dbp_diag *d)
{
	return ix_update(db, connection, print_root, full, NULL, st, NULL, d);
}

void
dbp_stats_release(struct dbp_stats *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nerrors; i++) {
		free(st->errors[i].path);
		free(st->errors[i].message);
	}
	free(st->errors);
	st->errors = NULL;
	st->nerrors = 0;
}

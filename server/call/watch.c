/*
 * watch.c - cheap freshness for a call that reads thousands of print files
 * (search_columns reads every statistics and annotations file of its
 * connection: 20,000 on a 10,000-table print).
 *
 * Spec 7.1 wants every file a call reads checked against its identity on
 * disk (mtime, size, inode) at the call.  A stat costs microseconds, so
 * 20,000 of them cost far more than the call itself.  Instead each index
 * handle keeps, per pinned query, a "set": the paths the query returns,
 * the identity and hash the index holds for each, and inotify watches on
 * every directory on the way to them (the print root, each schema and
 * table directory).  A file stat'ed once while its directory was watched,
 * and found to match the index, stays verified until an event arrives in
 * its directory or in any directory above it.  A call then costs:
 *
 *   - one non-blocking read of the inotify queue (the kernel queues an
 *     event before the write, rename, unlink or touch that caused it
 *     returns, so a change finished before the call is always seen);
 *   - one stat of the print root (its path resolving to another
 *     directory, e.g. a renamed parent, is not an event of any watch);
 *   - PRAGMA data_version and the handle's own change count (another
 *     process or handle re-indexed: reload identities and hashes);
 *   - a stat of each file of a directory that had events.
 *
 * Where inotify cannot see every change, the files are stat'ed at every
 * call as before, only without the per-path SQL: a directory that is a
 * symlink, that cannot be watched (the watch limit, permissions), or that
 * lies on a network or FUSE filesystem (statfs f_type); a file that is a
 * symlink or has several hard links; everything after IN_Q_OVERFLOW (once)
 * and everything when inotify is unavailable or DBPRINT_NO_INOTIFY is set.
 * inotify is Linux's (platform.c, dbp_watch_*); macOS, the BSDs and a
 * portable build (make PORTABLE=1) have no watches: every call stats.
 * A file written through a shared mmap raises no inotify event: prints
 * are written with write(2) and rename(2), and README "Choices" says so.
 *
 * Where the transport has idle time (stdio, and --call, which never needs
 * a watch) the first pass over a set watches nothing: it stats the files
 * of every directory, as a blind directory's, and watch_idle() watches
 * them between requests, parents first, a bounded step at a time,
 * stat'ing each directory's files once its watch is in place.  The first
 * call after start so costs one stat per file and no inotify_add_watch
 * (100,000 of them on a 100,000-table print, plus the watches' teardown at
 * exit); a later call watches what the idle steps have not reached yet,
 * and once they have, calls stat nothing.
 *
 * A set lives as long as its index handle: it is registered against the
 * sqlite3 pointer and freed by the destructor of a no-op SQL function
 * created on the handle, so it goes when the handle is closed, whoever
 * closes it (HTTP workers open and close their own handles).
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "platform.h"
#include "server.h"

/* What the index holds for a file of the set. */
enum {
	WT_ROW_NONE,		/* no files row: the index never saw it */
	WT_ROW_OUTSIDE,		/* outside_root: never re-read */
	WT_ROW_ABSENT,		/* status absent */
	WT_ROW_ID,		/* present, with an identity */
	WT_ROW_NOID		/* any other status without an identity */
};

/* A directory's watch. */
enum {
	WT_D_NONE,		/* not tried yet, or its watch went away */
	WT_D_WATCHED,		/* watched: events tell its changes */
	WT_D_MISSING,		/* absent: its parent's watch sees it appear */
	WT_D_BLIND		/* cannot be watched: stat below it every call */
};

#define WT_NODIR	((size_t)-1)
/* Verify-and-refresh rounds of one call: the first finds what changed,
 * the next ones settle files the re-index could not (blind ones that
 * keep changing); then the call goes on with what the index holds. */
#define WT_ROUNDS	3

struct wt_file {
	char		*path;		/* relative to the root; in the arena */
	size_t		 dir;		/* index into dirs */
	int64_t		 dev, ino, size, mtime;	/* the index's identity */
	uint64_t	 part;		/* digest contribution */
	unsigned char	 row;		/* WT_ROW_* */
	unsigned char	 verified;	/* stat'ed under a watch, matched */
	unsigned char	 blind;		/* symlink or hard-linked: every call */
};

struct wt_dir {
	char		*rel;		/* "" for the root; malloc'd */
	size_t		 parent;	/* WT_NODIR for the root */
	int		 wd;		/* -1: none */
	int		 state;		/* WT_D_* */
	int		 dirty;		/* an event since its files were seen */
	int		 eff_blind;	/* it or a directory above is blind */
	int		 eff_pending;	/* it or one above waits for its watch
					 * (deferred): stat below it */
	size_t		 first, nfiles;	/* its files, in byfile[] */
};

struct wt_wd {
	int		 wd;
	size_t		 dir;
};

/* What a stat found of one file of the set (wt_see). */
struct wt_seen {
	int64_t		 dev, ino, size, mtime;
	unsigned char	 present;	/* a regular file (a symlink's target
					 * too) */
	unsigned char	 blind;		/* a symlink, or several links */
};

/*
 * The stats of a first pass that stats every file: started on
 * DBP_LOOK_THREADS - 1 helper threads as soon as the set's paths are
 * sorted (wt_look_start), so they run while the main thread reads the
 * rows and builds the directories, then finished on every thread
 * (wt_look).  A thread claims WT_LOOK_CHUNK files at a time (dbp_claims).  It reads
 * the paths and writes seen[] only: the rows are compared after the join.
 */
#define WT_LOOK_CHUNK	256

struct wt_look {
	int		 rootfd;
	const char	*root;
	const struct wt_file *files;	/* the set's, sorted: paths only */
	struct wt_seen	*seen;		/* one per file */
	struct dbp_claims cl;		/* the threads */
};

struct watch {
	sqlite3		*db;		/* the handle it belongs to */
	char		*root;		/* the print root it watches */
	int		 ifd;		/* inotify, or -1: stat everything */
	int		 rootfd;	/* open on the root, or -1 */
	dev_t		 root_dev;
	ino_t		 root_ino;
	int		 root_ok;	/* root_dev/ino hold */
	/* the set */
	char		*sql;		/* the query it caches; NULL: none */
	char		*arena;		/* every path, NUL-separated */
	struct wt_file	*files;		/* sorted by path */
	size_t		 nfiles;
	struct wt_dir	*dirs;		/* sorted by rel: parents first */
	size_t		 ndirs;
	size_t		*byfile;	/* file indexes grouped by dir */
	struct wt_wd	*wds;		/* sorted by wd */
	size_t		 nwds;
	int		 wds_stale;	/* rebuild wds before the next lookup */
	int		 pass;		/* a verification pass is needed */
	int		 all_dirty;	/* IN_Q_OVERFLOW or a reset */
	int		 nblind;	/* blind dirs and files: pass each call */
	size_t		 npending;	/* dirs waiting for watch_idle() */
	int		 first_pass;	/* no verification pass yet since the
					 * reset: it defers (wt_defer) */
	size_t		 idle_at;	/* the dir watch_idle() looks at next */
	int		 idle_left;	/* watch_idle() left a file or a dir
					 * for the next pass */
	sqlite3_int64	 dv, tc;	/* index version the set was loaded at */
	char		 digest[17];
	struct wt_look	*look;		/* a first pass's stats under way */
};

/* ------------------------------------------------------------------ */
/* The registry: one watch per sqlite3 handle                           */

static pthread_mutex_t	  wt_mu = PTHREAD_MUTEX_INITIALIZER;
/* Calls leave unwatched directories to watch_idle() (watch_defer()). */
static int		  wt_defer;
static struct watch	**wt_all;
static size_t		  wt_n, wt_cap;

static void wt_look_start(struct watch *);
static void wt_look_stop(struct watch *);

/* Leave w with no set (what it held is freed or moved elsewhere). */
static void
wt_set_none(struct watch *w)
{
	w->look = NULL;
	w->dirs = NULL;
	w->files = NULL;
	w->arena = NULL;
	w->byfile = NULL;
	w->wds = NULL;
	w->sql = NULL;
	w->ndirs = w->nfiles = w->nwds = 0;
}

static void
wt_set_free(struct watch *w)
{
	size_t i;

	wt_look_stop(w);	/* (its threads read the files' paths) */
	for (i = 0; i < w->ndirs; i++)
		free(w->dirs[i].rel);
	free(w->dirs);
	free(w->files);
	free(w->arena);
	free(w->byfile);
	free(w->wds);
	free(w->sql);
	wt_set_none(w);
}

/* The SQL function's destructor: the handle is closing. */
static void
wt_destroy(void *p)
{
	struct watch *w = p;
	size_t i;

	pthread_mutex_lock(&wt_mu);
	for (i = 0; i < wt_n; i++)
		if (wt_all[i] == w) {
			wt_all[i] = wt_all[--wt_n];
			break;
		}
	if (wt_n == 0) {
		free(wt_all);
		wt_all = NULL;
		wt_cap = 0;
	}
	pthread_mutex_unlock(&wt_mu);
	wt_set_free(w);
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->rootfd >= 0)
		close(w->rootfd);
	free(w->root);
	free(w);
}

static void
wt_sqlfn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_null(ctx);
}

/* Open inotify and the root (again); every directory is to be watched
 * anew and every file seen anew. */
static void
wt_reset(struct watch *w)
{
	struct stat sb;
	size_t i;
	const char *off = getenv("DBPRINT_NO_INOTIFY");

	wt_look_stop(w);	/* (its threads use the root's descriptor) */
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->rootfd >= 0)
		close(w->rootfd);
	w->ifd = -1;
	w->rootfd = open(w->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w->root_ok = w->rootfd >= 0 && fstat(w->rootfd, &sb) == 0;
	if (w->root_ok) {
		w->root_dev = sb.st_dev;
		w->root_ino = sb.st_ino;
	}
	if ((off == NULL || off[0] == '\0') && w->root_ok)
		w->ifd = dbp_watch_open(w->rootfd);
	for (i = 0; i < w->ndirs; i++) {
		w->dirs[i].wd = -1;
		w->dirs[i].state = WT_D_NONE;
	}
	for (i = 0; i < w->nfiles; i++)
		w->files[i].verified = 0;
	w->nwds = 0;
	w->npending = 0;
	w->idle_at = 0;
	w->first_pass = 1;
	w->all_dirty = 1;
	w->pass = 1;
}

/* The watch of db, created on first use.  NULL on OOM. */
static struct watch *
wt_get(sqlite3 *db, const char *root)
{
	struct watch *w = NULL, **na;
	size_t i;

	pthread_mutex_lock(&wt_mu);
	for (i = 0; i < wt_n; i++)
		if (wt_all[i]->db == db) {
			w = wt_all[i];
			break;
		}
	pthread_mutex_unlock(&wt_mu);
	if (w != NULL) {
		if (strcmp(w->root, root) == 0)
			return w;
		/* another root on the same handle: start over */
		wt_set_free(w);
		free(w->root);
		if ((w->root = strdup(root)) == NULL)
			return NULL;
		wt_reset(w);
		return w;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->db = db;
	w->ifd = w->rootfd = -1;
	if ((w->root = strdup(root)) == NULL) {
		free(w);
		return NULL;
	}
	pthread_mutex_lock(&wt_mu);
	if (wt_n == wt_cap) {
		na = realloc(wt_all, (wt_cap ? wt_cap * 2 : 8) * sizeof(*na));
		if (na == NULL) {
			pthread_mutex_unlock(&wt_mu);
			free(w->root);
			free(w);
			return NULL;
		}
		wt_all = na;
		wt_cap = wt_cap ? wt_cap * 2 : 8;
	}
	wt_all[wt_n++] = w;
	pthread_mutex_unlock(&wt_mu);
	/* from here on the handle owns w: wt_destroy runs at its close */
	if (sqlite3_create_function_v2(db, "dbprint_watch", 0, SQLITE_UTF8,
	    w, wt_sqlfn, NULL, NULL, wt_destroy) != SQLITE_OK)
		return NULL;	/* (the destructor ran: w is gone) */
	wt_reset(w);
	return w;
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

static int
wt_wd_cmp(const void *a, const void *b)
{
	const struct wt_wd *x = a, *y = b;

	return x->wd < y->wd ? -1 : x->wd > y->wd;
}

/* Rebuild the wd -> dir lookup from the dirs' watches. */
static int
wt_wds_build(struct watch *w)
{
	struct wt_wd *nw;
	size_t i, k;

	free(w->wds);
	w->wds = NULL;
	w->nwds = 0;
	if ((nw = malloc((w->ndirs + 1) * sizeof(*nw))) == NULL)
		return -1;
	for (i = 0; i < w->ndirs; i++)
		if (w->dirs[i].state == WT_D_WATCHED) {
			nw[w->nwds].wd = w->dirs[i].wd;
			nw[w->nwds].dir = i;
			w->nwds++;
		}
	qsort(nw, w->nwds, sizeof(*nw), wt_wd_cmp);
	/* One inode watched under two names (a bind mount): its events
	 * name one of them, so the others are stat'ed at every call. */
	for (i = 1, k = 1; i < w->nwds; i++) {
		if (nw[i].wd == nw[k - 1].wd) {
			w->dirs[nw[i].dir].state = WT_D_BLIND;
			w->dirs[nw[i].dir].wd = -1;
			w->nblind++;
			w->pass = 1;
			continue;
		}
		nw[k++] = nw[i];
	}
	if (w->nwds > 0)
		w->nwds = k;
	w->wds = nw;
	w->wds_stale = 0;
	return 0;
}

static int
wt_dir_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wt_dir *)elem)->rel);
}

/* The first dir whose rel is >= key. */
static size_t
wt_dir_lower(const struct watch *w, const char *key)
{
	size_t lo = 0, hi = w->ndirs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(w->dirs[mid].rel, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
wt_dirty(struct watch *w, size_t i)
{
	w->dirs[i].dirty = 1;
	w->pass = 1;
}

/* Mark rel and every directory below it dirty. */
static void
wt_dirty_tree(struct watch *w, const char *rel)
{
	struct wt_dir *d;
	size_t i, n = strlen(rel);

	if (w->ndirs == 0)
		return;
	d = bsearch(rel, w->dirs, w->ndirs, sizeof(*w->dirs), wt_dir_cmp);
	if (d != NULL)
		wt_dirty(w, (size_t)(d - w->dirs));
	if (n == 0) {
		for (i = 0; i < w->ndirs; i++)
			wt_dirty(w, i);
		return;
	}
	/* "rel/..." is one contiguous run of the sorted dirs */
	for (i = wt_dir_lower(w, rel); i < w->ndirs; i++) {
		if (strncmp(w->dirs[i].rel, rel, n) != 0)
			break;
		if (w->dirs[i].rel[n] == '/')
			wt_dirty(w, i);
	}
}

/* One event of dir i. */
static void
wt_event(struct watch *w, size_t i, const struct dbp_wev *ev)
{
	char child[DBP_MAX_PATH];
	struct wt_dir *d = &w->dirs[i];

	wt_dirty(w, i);
	if (ev->flags & DBP_WEV_SELF) {
		wt_dirty_tree(w, d->rel);
		if (ev->flags & DBP_WEV_GONE) {
			d->wd = -1;
			d->state = WT_D_NONE;
			w->wds_stale = 1;
		}
		return;
	}
	if (ev->name == NULL)
		return;
	if (d->rel[0] == '\0')
		snprintf(child, sizeof(child), "%s", ev->name);
	else if ((size_t)snprintf(child, sizeof(child), "%s/%s", d->rel,
	    ev->name) >= sizeof(child)) {
		w->all_dirty = 1;
		return;
	}
	wt_dirty_tree(w, child);
}

/* Drain the inotify queue into dirty marks. */
static void
wt_drain(struct watch *w)
{
	char buf[DBP_WATCH_READ] __attribute__((aligned(8)));
	struct dbp_wev ev;
	struct wt_wd key, *hit;
	long n;
	size_t off;

	if (w->ifd < 0)
		return;
	for (;;) {
		if ((n = dbp_watch_read(w->ifd, buf, sizeof(buf))) <= 0) {
			if (n < 0)
				w->all_dirty = w->pass = 1;
			return;
		}
		if (w->wds_stale && wt_wds_build(w) == -1) {
			w->all_dirty = w->pass = 1;
			continue;
		}
		off = 0;
		while (dbp_watch_next(buf, (size_t)n, &off, &ev)) {
			if (ev.flags & DBP_WEV_OVERFLOW) {
				w->all_dirty = w->pass = 1;
				continue;
			}
			key.wd = ev.wd;
			hit = w->nwds == 0 ? NULL : bsearch(&key, w->wds,
			    w->nwds, sizeof(key), wt_wd_cmp);
			if (hit == NULL || w->dirs[hit->dir].wd != ev.wd)
				continue;	/* a watch we dropped */
			wt_event(w, hit->dir, &ev);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Loading the set from the index                                       */

static int
wt_file_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct wt_file *)elem)->path);
}

/* The index's version as this handle sees it: other handles' commits
 * (data_version) and its own (total_changes). */
static int
wt_version(sqlite3 *db, sqlite3_int64 *dv, sqlite3_int64 *tc)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &s, NULL) !=
	    SQLITE_OK)
		return -1;
	rc = sqlite3_step(s);
	*dv = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	*tc = (sqlite3_int64)sqlite3_total_changes(db);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* The digest contribution of one file: its path and index hash (or
 * status, or "absent" without a row), as dbp_files_digest reads them. */
static uint64_t
wt_part(const char *path, const char *hash)
{
	char buf[DBP_MAX_PATH + 64];
	size_t n = strlen(path), k = strlen(hash);

	if (n + k + 1 > sizeof(buf))
		return XXH3_64bits(path, n) ^ XXH3_64bits(hash, k);
	memcpy(buf, path, n);
	buf[n] = ':';
	memcpy(buf + n + 1, hash, k);
	return XXH3_64bits(buf, n + 1 + k);
}


/* The directory length of path: up to its last '/', 0 for the root. */
static size_t
wt_dirlen(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? (size_t)(slash - path) : 0;
}

/* The index of the dir named by path[0..k), or WT_NODIR. */
static size_t
wt_dir_find(const struct watch *w, const char *path, size_t k)
{
	char key[DBP_MAX_PATH];
	struct wt_dir *d;

	if (k >= sizeof(key))
		return WT_NODIR;
	memcpy(key, path, k);
	key[k] = '\0';
	d = bsearch(key, w->dirs, w->ndirs, sizeof(*d), wt_dir_cmp);
	return d != NULL ? (size_t)(d - w->dirs) : WT_NODIR;
}

/* The directories of w's files: each file's and every one above it up
 * to the root, sorted; their watch state taken over from old's dirs of
 * the same name.  0, or -1 on OOM. */
static int
wt_load_dirs(struct watch *w, struct watch *old)
{
	char **all = NULL, **na;
	const char *path, *prev = NULL;
	size_t n = 0, cap = 0, i, k, prevk = 0, *fill = NULL, common, l;
	struct wt_dir *d, *od;
	int r = -1, have;

	for (i = 0; i < w->nfiles; i++) {
		path = w->files[i].path;
		k = wt_dirlen(path);
		if (prev != NULL && k == prevk && strncmp(prev, path, k) == 0)
			continue;
		/* The previous file's dir and every one above it are in:
		 * common is the length of the deepest of them above (or
		 * at) this dir. */
		have = prev != NULL;
		common = 0;
		if (have) {
			for (l = 0; l < k && l < prevk && prev[l] == path[l];
			    l++)
				if (path[l] == '/')
					common = l;
			if (l == k && (l == prevk || prev[l] == '/'))
				common = k;
			else if (l == prevk && path[l] == '/')
				common = prevk;
		}
		prev = path;
		prevk = k;
		for (;;) {		/* this dir, then each one above */
			if (have && k <= common)
				break;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				if ((na = realloc(all, cap * sizeof(*na))) ==
				    NULL)
					goto out;
				all = na;
			}
			if ((all[n] = strndup(path, k)) == NULL)
				goto out;
			n++;
			if (k == 0)
				break;
			do
				k--;
			while (k > 0 && path[k] != '/');
		}
	}
	if (n == 0)
		goto out;	/* (no files: the caller never asks) */
	dbp_sort_strs(all, n);	/* nearly in order */
	if ((w->dirs = calloc(n, sizeof(*w->dirs))) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if (w->ndirs > 0 &&
		    strcmp(all[i], w->dirs[w->ndirs - 1].rel) == 0)
			continue;
		d = &w->dirs[w->ndirs++];
		d->rel = all[i];
		all[i] = NULL;
		d->wd = -1;
		d->state = WT_D_NONE;
	}
	for (i = 0; i < w->ndirs; i++) {
		d = &w->dirs[i];
		d->parent = d->rel[0] == '\0' ? WT_NODIR :
		    wt_dir_find(w, d->rel, wt_dirlen(d->rel));
		if (old == NULL || old->ndirs == 0)
			continue;
		od = bsearch(d->rel, old->dirs, old->ndirs, sizeof(*od),
		    wt_dir_cmp);
		if (od == NULL)
			continue;
		d->wd = od->wd;
		d->state = od->state;
		d->dirty = od->dirty;
		od->wd = -1;	/* taken over: not removed with old */
	}
	if ((fill = calloc(w->ndirs, sizeof(*fill))) == NULL ||
	    (w->byfile = malloc(w->nfiles * sizeof(*w->byfile))) == NULL)
		goto out;
	for (i = 0; i < w->nfiles; i++) {
		/* most files share the previous one's dir */
		path = w->files[i].path;
		k = wt_dirlen(path);
		if (i > 0 && w->files[i - 1].dir != WT_NODIR &&
		    strlen(w->dirs[w->files[i - 1].dir].rel) == k &&
		    strncmp(w->dirs[w->files[i - 1].dir].rel, path, k) == 0)
			w->files[i].dir = w->files[i - 1].dir;
		else
			w->files[i].dir = wt_dir_find(w, path, k);
		if (w->files[i].dir == WT_NODIR)
			goto out;	/* cannot happen: every dir was added */
		w->dirs[w->files[i].dir].nfiles++;
	}
	for (i = 0, k = 0; i < w->ndirs; i++) {
		w->dirs[i].first = fill[i] = k;
		k += w->dirs[i].nfiles;
	}
	for (i = 0; i < w->nfiles; i++)
		w->byfile[fill[w->files[i].dir]++] = i;
	r = 0;
out:
	for (i = 0; i < n; i++)
		free(all[i]);
	free(all);
	free(fill);
	return r;
}

/* A files row (wt_sql_ident) into f, whose path it is: what the index
 * holds for it (status, identity and digest part). */
static void
wt_row(struct wt_file *f, sqlite3_stmt *st)
{
	const char *status = (const char *)sqlite3_column_text(st, 6);

	if (status == NULL)
		f->row = WT_ROW_NONE;
	else if (strcmp(status, "outside_root") == 0)
		f->row = WT_ROW_OUTSIDE;
	else if (strcmp(status, "absent") == 0)
		f->row = WT_ROW_ABSENT;
	else if (sqlite3_column_type(st, 1) == SQLITE_NULL)
		f->row = WT_ROW_NOID;
	else
		f->row = WT_ROW_ID;
	f->dev = sqlite3_column_int64(st, 1);
	f->ino = sqlite3_column_int64(st, 2);
	f->size = sqlite3_column_int64(st, 3);
	f->mtime = sqlite3_column_int64(st, 4);
	f->part = wt_part(f->path, status == NULL ? "absent" :
	    (const char *)sqlite3_column_text(st, 5));
}

/* The files rows from ?1 to ?2 in path order, read from the covering
 * index alone (the rows hold the documents). */
static const char wt_sql_ident[] = "SELECT path, dev, ino, size, "
    "mtime_ns, coalesce(hash, status), status FROM files INDEXED BY "
    "files_identity WHERE path >= ?1 AND path <= ?2 ORDER BY path";

/* Step the set's query st: each path into arena, NUL-terminated, one
 * after another; *n of them.  0, -1 on OOM, -2 when the read failed. */
static int
wt_read_paths(sqlite3_stmt *st, struct dbp_buf *arena, size_t *n)
{
	const char *p;
	int rc;

	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((p = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		dbp_buf_add(arena, p, strlen(p) + 1);
		if (arena->failed)
			return -1;
		(*n)++;
	}
	return rc == SQLITE_DONE ? 0 : -2;
}

/*
 * w->files from the n paths in w->arena: sorted, each once, with what the
 * index holds for each (a merge with one ordered walk of files_identity,
 * where a join would seek it once per path), the sum of their digest
 * parts into *sum.  0, -1 on OOM, -2 when the index read failed.
 */
static int
wt_read_rows(struct watch *w, size_t n, uint64_t *sum)
{
	sqlite3_stmt *st = NULL;
	const char *q, *p;
	char **pv;
	size_t i, k;
	int rc = SQLITE_DONE, c = 1;

	if (n == 0)
		return 0;
	if ((pv = malloc(n * sizeof(*pv))) == NULL)
		return -1;
	for (i = 0, p = w->arena; i < n; i++, p += strlen(p) + 1)
		pv[i] = (char *)(uintptr_t)p;
	dbp_sort_strs(pv, n);	/* nearly in order */
	for (i = 0, k = 0; i < n; i++)
		if (k == 0 || strcmp(pv[k - 1], pv[i]) != 0)
			pv[k++] = pv[i];
	if ((w->files = calloc(k, sizeof(*w->files))) == NULL) {
		free(pv);
		return -1;
	}
	w->nfiles = k;
	for (i = 0; i < k; i++) {
		w->files[i].path = pv[i];
		w->files[i].row = WT_ROW_NONE;
	}
	free(pv);
	/* a first pass stats them all: begin while the rows load */
	wt_look_start(w);
	if (sqlite3_prepare_v2(w->db, wt_sql_ident, -1, &st, NULL) !=
	    SQLITE_OK)
		return -2;
	sqlite3_bind_text(st, 1, w->files[0].path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, w->files[k - 1].path, -1, SQLITE_STATIC);
	i = 0;
	while (i < k && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((q = (const char *)sqlite3_column_text(st, 0)) == NULL)
			continue;
		while (i < k && (c = strcmp(w->files[i].path, q)) < 0)
			i++;
		if (i < k && c == 0)
			wt_row(&w->files[i++], st);
	}
	if (i < k && rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return -2;
	}
	sqlite3_finalize(st);
	for (i = 0; i < k; i++) {
		if (w->files[i].row == WT_ROW_NONE)	/* no files row */
			w->files[i].part = wt_part(w->files[i].path, "absent");
		*sum += w->files[i].part;
	}
	return 0;
}

/* Keep what old knew of w's paths: verified, blind. */
static void
wt_keep_marks(struct watch *w, const struct watch *old)
{
	struct wt_file *f, *of;
	size_t i;

	for (i = 0; i < w->nfiles; i++) {
		f = &w->files[i];
		of = old->nfiles > 0 ? bsearch(f->path, old->files,
		    old->nfiles, sizeof(*of), wt_file_cmp) : NULL;
		if (of != NULL) {
			f->verified = of->verified;
			f->blind = of->blind;
		}
	}
}

/* The set's digest from the sum of its files' parts: order-free, so one
 * file's change is local. */
static void
wt_digest(struct watch *w, uint64_t sum)
{
	char raw[40];

	snprintf(raw, sizeof(raw), "%016llx:%zu", (unsigned long long)sum,
	    w->nfiles);
	snprintf(w->digest, sizeof(w->digest), "%016llx",
	    (unsigned long long)XXH3_64bits(raw, strlen(raw)));
}

/* Move w's set into *old, leaving w with none (its watch descriptor,
 * root and registry entry stay). */
static void
wt_set_detach(struct watch *w, struct watch *old)
{
	*old = *w;
	wt_set_none(w);
}

/*
 * (Re)load the set of sql from the index: its paths with the identity,
 * status and hash the index holds for each, and their directories.  What
 * the previous set knew (watches, verified files, dirty directories) is
 * kept for the paths and directories they share; watches of directories
 * no longer in the set are removed.  0, or -1 with *detail malloc'd.
 */
static int
wt_load(struct watch *w, const char *sql, char **detail)
{
	struct watch old;
	struct dbp_buf arena;
	sqlite3_stmt *st = NULL;
	size_t i, n = 0;
	uint64_t sum = 0;
	int rc, r = -1;

	dbp_buf_init(&arena, DBP_MAX_FILE_BYTES * 4);
	wt_set_detach(w, &old);	/* the previous set, freed at the end */
	if ((w->sql = strdup(sql)) == NULL)
		goto oom;
	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	if ((rc = wt_read_paths(st, &arena, &n)) == -2)
		goto dberr;
	if (rc == -1 || (w->arena = dbp_buf_take(&arena)) == NULL)
		goto oom;
	if ((rc = wt_read_rows(w, n, &sum)) == -2)
		goto dberr;
	if (rc == -1)
		goto oom;
	wt_keep_marks(w, &old);
	if (w->nfiles > 0 && wt_load_dirs(w, &old) == -1)
		goto oom;
	wt_digest(w, sum);
	w->wds_stale = 1;
	w->pass = 1;
	r = 0;
	goto out;
dberr:
	*detail = NULL;
	if (dbp_asprintf(detail, "index read failed: %s",
	    sqlite3_errmsg(w->db)) < 0)
		*detail = NULL;
	goto fail;
oom:
	*detail = strdup("out of memory");
fail:
	/* keep nothing half-loaded: the next call loads afresh */
	wt_set_free(w);
out:
	sqlite3_finalize(st);
	dbp_buf_release(&arena);
	/* watches of directories the new set does not hold */
	for (i = 0; i < old.ndirs; i++)
		if (old.dirs[i].wd >= 0 && w->ifd >= 0)
			dbp_watch_rm(w->ifd, old.dirs[i].wd);
	wt_set_free(&old);
	if (r == -1)
		wt_reset(w);	/* drops every watch the new set took over */
	return r;
}

/* ------------------------------------------------------------------ */
/* Watching and verifying                                               */

/* Watch dir i (its parent is settled): WT_D_WATCHED, WT_D_MISSING (not
 * there: the parent's watch sees it appear) or WT_D_BLIND. */
static void
wt_watch_dir(struct watch *w, size_t i)
{
	struct wt_dir *d = &w->dirs[i];
	struct stat sb;
	const char *rel = d->rel[0] != '\0' ? d->rel : ".";
	char abs[DBP_MAX_PATH];
	int wd, state;

	wd = -1;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", w->root, rel) >=
	    sizeof(abs))
		state = WT_D_BLIND;
	else if (fstatat(w->rootfd, rel, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		state = errno == ENOENT || errno == ENOTDIR ? WT_D_MISSING :
		    WT_D_BLIND;
	else if (S_ISLNK(sb.st_mode))
		state = WT_D_BLIND;	/* its target's parents are not watched */
	else if (!S_ISDIR(sb.st_mode))
		state = WT_D_MISSING;	/* nothing below it exists */
	else if ((wd = dbp_watch_add(w->ifd, abs,
	    sb.st_dev != w->root_dev)) == -1)
		state = errno == ENOENT || errno == ENOTDIR ? WT_D_MISSING :
		    WT_D_BLIND;
	else
		state = WT_D_WATCHED;
	if (d->wd >= 0 && d->wd != wd)
		dbp_watch_rm(w->ifd, d->wd);
	d->wd = wd;
	d->state = state;
	w->wds_stale = 1;
}

/* Stat path (relative to the root) into *sn, as dbp_index_refresh looks
 * at it.  Writes nothing else: a first pass runs it on several threads
 * (wt_look). */
static void
wt_see(int rootfd, const char *root, const char *path, struct wt_seen *sn)
{
	struct stat sb;
	int rc;
	char abs[DBP_MAX_PATH];

	sn->blind = 0;
	if (rootfd >= 0)
		rc = fstatat(rootfd, path, &sb, AT_SYMLINK_NOFOLLOW);
	else if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", root, path) >=
	    sizeof(abs))
		rc = -1;
	else
		rc = lstat(abs, &sb);
	if (rc == 0 && S_ISLNK(sb.st_mode)) {
		/* a change of its target raises no event here */
		sn->blind = 1;
		rc = rootfd >= 0 ? fstatat(rootfd, path, &sb, 0) :
		    stat(abs, &sb);
	} else if (rc == 0 && S_ISREG(sb.st_mode) && sb.st_nlink > 1)
		sn->blind = 1;	/* written through a link elsewhere */
	sn->present = rc == 0 && S_ISREG(sb.st_mode);
	if (sn->present) {
		sn->dev = (int64_t)sb.st_dev;
		sn->ino = (int64_t)sb.st_ino;
		sn->size = (int64_t)sb.st_size;
		sn->mtime = dbp_mtime_ns(&sb);
	}
}

/* 1 when the index is out of date for f, which stat found as sn. */
static int
wt_judge(const struct wt_file *f, const struct wt_seen *sn)
{
	switch (f->row) {
	case WT_ROW_NONE:
		return sn->present;
	case WT_ROW_OUTSIDE:
		return 0;
	default:
		if (!sn->present)
			return f->row != WT_ROW_ABSENT;
		return f->row != WT_ROW_ID || f->dev != sn->dev ||
		    f->ino != sn->ino || f->size != sn->size ||
		    f->mtime != sn->mtime;
	}
}

/* Stat file f and compare it with the index, recording a blind file (a
 * symlink, several links) on f and w: 1 when the index is out of date
 * for it. */
static int
wt_stale(struct watch *w, struct wt_file *f)
{
	struct wt_seen sn;

	wt_see(w->rootfd, w->root, f->path, &sn);
	if (sn.blind) {
		f->blind = 1;
		w->nblind++;
	}
	return wt_judge(f, &sn);
}

/* A first pass that stats every file does it on DBP_LOOK_THREADS
 * threads: look[i] is WT_LOOK_DONE, with WT_LOOK_STALE and WT_LOOK_BLIND
 * as wt_judge and wt_see said. */
#define WT_LOOK_DONE	0x1
#define WT_LOOK_STALE	0x2
#define WT_LOOK_BLIND	0x4

/* Stat the files [from, to) of the look lk. */
static void
wt_look_run(void *lk, size_t from, size_t to)
{
	struct wt_look *l = lk;
	size_t i;

	for (i = from; i < to; i++)
		wt_see(l->rootfd, l->root, l->files[i].path, &l->seen[i]);
}

/* A first pass is coming that stats every file of w's set (loaded up to
 * its sorted paths): start stat'ing them on the helper threads, while
 * the rows and directories load.  Nothing started when the pass will
 * not share the files out (too few, no watches, no memory). */
static void
wt_look_start(struct watch *w)
{
	struct wt_look *lk;

	if (w->look != NULL || !wt_defer || !w->first_pass || w->ifd < 0 ||
	    w->rootfd < 0 || w->nfiles < DBP_WATCH_LOOK_MIN ||
	    (lk = calloc(1, sizeof(*lk))) == NULL)
		return;
	if ((lk->seen = malloc(w->nfiles * sizeof(*lk->seen))) == NULL) {
		free(lk);
		return;
	}
	lk->rootfd = w->rootfd;
	lk->root = w->root;
	lk->files = w->files;
	dbp_claims_begin(&lk->cl, w->nfiles, WT_LOOK_CHUNK, 0, wt_look_run,
	    lk);
	w->look = lk;
}

/* Join the look's threads (what they have not claimed yet is left) and
 * free it. */
static void
wt_look_stop(struct watch *w)
{
	struct wt_look *lk = w->look;

	if (lk == NULL)
		return;
	dbp_claims_stop(&lk->cl);
	free(lk->seen);
	free(lk);
	w->look = NULL;
}

/* The look array of w's files (malloc'd, the caller frees): the stats
 * wt_look_start began (or begins now), finished on this thread too, each
 * compared with its row.  NULL when there are too few files to share or
 * no memory: the pass stats them one by one. */
static unsigned char *
wt_look(struct watch *w)
{
	struct wt_look *lk;
	unsigned char *look;
	size_t i;

	wt_look_start(w);
	if ((lk = w->look) == NULL)
		return NULL;
	if ((look = malloc(w->nfiles)) == NULL) {
		wt_look_stop(w);
		return NULL;
	}
	dbp_claims_end(&lk->cl);
	for (i = 0; i < w->nfiles; i++)
		look[i] = (unsigned char)(WT_LOOK_DONE |
		    (wt_judge(&w->files[i], &lk->seen[i]) ? WT_LOOK_STALE : 0) |
		    (lk->seen[i].blind ? WT_LOOK_BLIND : 0));
	wt_look_stop(w);
	return look;
}

/* One verification pass: (re)watch dirty and unwatched directories top
 * down, then stat every file not known fresh.  The paths whose index
 * rows are out of date go to *stale (borrowed from the set).  0, or -1
 * on OOM. */
static int
wt_verify(struct watch *w, const char ***stale, size_t *nstale)
{
	struct wt_dir *d;
	struct wt_file *f;
	const char **sl = NULL, **ns;
	size_t i, j, n = 0, cap = 0;
	int blind = 0, all = w->all_dirty, rewatch, ppend, isstale, fb;
	int defer = wt_defer && w->first_pass;
	unsigned char *look = NULL;
	size_t k;

	w->all_dirty = 0;
	w->pass = 0;
	w->nblind = 0;
	w->npending = 0;
	/* a deferred first pass watches nothing, so it stats every file,
	 * and they are stat'ed first, on several threads */
	if (defer && w->ifd >= 0 && w->rootfd >= 0)
		look = wt_look(w);
	else
		wt_look_stop(w);
	for (i = 0; i < w->ndirs; i++) {
		d = &w->dirs[i];
		rewatch = all || d->dirty || d->state == WT_D_NONE ||
		    d->state == WT_D_BLIND;
		ppend = d->parent != WT_NODIR && w->dirs[d->parent].eff_pending;
		if (w->ifd < 0 || w->rootfd < 0) {
			d->state = WT_D_BLIND;
		} else if (d->parent != WT_NODIR &&
		    w->dirs[d->parent].eff_blind) {
			if (d->wd >= 0)
				dbp_watch_rm(w->ifd, d->wd);
			d->wd = -1;
			d->state = WT_D_BLIND;
			w->wds_stale = 1;
		} else if (ppend) {
			/* a watch below an unwatched directory proves
			 * nothing: watched again after it (watch_idle) */
			if (d->wd >= 0)
				dbp_watch_rm(w->ifd, d->wd);
			d->wd = -1;
			d->state = WT_D_NONE;
			w->wds_stale = 1;
		} else if (rewatch && !(defer && d->state == WT_D_NONE))
			wt_watch_dir(w, i);
		d->eff_blind = d->state == WT_D_BLIND;
		d->eff_pending = !d->eff_blind && d->state == WT_D_NONE;
		if (d->eff_blind)
			blind = 1;
		if (d->eff_pending)
			w->npending++;
		for (j = 0; j < d->nfiles; j++) {
			k = w->byfile[d->first + j];
			f = &w->files[k];
			if (!(rewatch || d->eff_blind || !f->verified ||
			    f->blind))
				continue;
			f->blind = 0;	/* wt_stale says again */
			if (look != NULL && (look[k] & WT_LOOK_DONE) &&
			    d->state == WT_D_NONE) {
				isstale = (look[k] & WT_LOOK_STALE) != 0;
				fb = (look[k] & WT_LOOK_BLIND) != 0;
				if (fb) {
					f->blind = 1;
					w->nblind++;
				}
			} else
				isstale = wt_stale(w, f);
			if (isstale) {
				if (n == cap) {
					cap = cap ? cap * 2 : 16;
					ns = realloc(sl, cap * sizeof(*ns));
					if (ns == NULL) {
						free(sl);
						free(look);
						w->all_dirty = w->pass = 1;
						return -1;
					}
					sl = ns;
				}
				sl[n++] = f->path;
			}
			/* stat'ed with no watch above it: again next call */
			f->verified = !d->eff_pending;
		}
		d->dirty = 0;
	}
	if (blind)
		w->nblind++;
	if (w->nblind > 0 || w->npending > 0)
		w->pass = 1;
	w->idle_at = 0;
	w->idle_left = 0;
	w->first_pass = 0;
	free(look);
	*stale = sl;
	*nstale = n;
	return 0;
}

int
watch_pin_query(struct srv_conn *cn, const char *sql, char digest[17],
    int *changed, char **detail)
{
	struct watch *w;
	struct dbp_diag d;
	struct stat sb;
	const char **stale = NULL;
	sqlite3_int64 dv, tc;
	size_t nstale = 0;
	int round, ch, rc;

	*changed = 0;
	*detail = NULL;
	digest[0] = '\0';
	if ((w = wt_get(cn->db, cn->conf->print_root)) == NULL) {
		*detail = strdup("out of memory");
		return -1;
	}
	wt_drain(w);
	/* the root's path may now lead to another directory */
	if (stat(w->root, &sb) == -1 ? w->root_ok : !w->root_ok ||
	    sb.st_dev != w->root_dev || sb.st_ino != w->root_ino)
		wt_reset(w);
	for (round = 0;; round++) {
		if (wt_version(cn->db, &dv, &tc) == -1) {
			if (dbp_asprintf(detail, "index read failed: %s",
			    sqlite3_errmsg(cn->db)) < 0)
				*detail = NULL;
			return -1;
		}
		if (w->sql == NULL || strcmp(w->sql, sql) != 0 ||
		    dv != w->dv || tc != w->tc) {
			if (wt_load(w, sql, detail) == -1)
				return -1;
			w->dv = dv;
			w->tc = tc;
		}
		if (w->nfiles == 0 || !w->pass || round == WT_ROUNDS)
			break;
		if (wt_verify(w, &stale, &nstale) == -1) {
			*detail = strdup("out of memory");
			return -1;
		}
		if (w->wds_stale && w->ifd >= 0 && wt_wds_build(w) == -1) {
			free(stale);
			*detail = strdup("out of memory");
			return -1;
		}
		if (nstale == 0)
			break;
		/* Re-index what changed.  The set is then reloaded (the
		 * files just verified stay verified) before the digest is
		 * read; a further pass only stats what is blind. */
		d.msg[0] = '\0';
		ch = 0;
		rc = srv_index_refresh(cn, stale, nstale, &ch, &d);
		free(stale);
		stale = NULL;
		if (rc != 0) {
			*detail = strdup(d.msg[0] != '\0' ? d.msg :
			    "the index could not be brought up to date");
			return -1;
		}
		if (ch)
			*changed = 1;
	}
	memcpy(digest, w->digest, 17);
	return 0;
}

void
watch_defer(int on)
{
	wt_defer = on;
}

/*
 * One idle step: watch up to budget directories a call left unwatched,
 * parents first, and stat each one's files under its new watch (a file
 * that matches the index is verified; one that does not waits for the
 * next call, which re-indexes it).  A directory below a blind one is left
 * to the next call, which makes it blind too.  1 when directories are
 * still waiting, 0 when none are.
 */
int
watch_idle(struct srv_conn *cn, size_t budget)
{
	struct watch *w = NULL;
	struct wt_dir *d;
	struct wt_file *f;
	size_t i, j, done = 0, k;
	int ps;

	pthread_mutex_lock(&wt_mu);
	for (i = 0; i < wt_n; i++)
		if (wt_all[i]->db == cn->db) {
			w = wt_all[i];
			break;
		}
	pthread_mutex_unlock(&wt_mu);
	if (w == NULL || w->npending == 0 || w->ifd < 0 || w->rootfd < 0)
		return 0;
	for (i = w->idle_at; i < w->ndirs && done < budget; i++) {
		d = &w->dirs[i];
		if (d->state != WT_D_NONE)
			continue;
		ps = d->parent == WT_NODIR ? WT_D_WATCHED :
		    w->dirs[d->parent].state;
		if (ps == WT_D_NONE || ps == WT_D_BLIND) {
			w->idle_left = 1;
			continue;
		}
		wt_watch_dir(w, i);
		done++;
		d->eff_pending = 0;
		if (d->state != WT_D_WATCHED) {
			w->idle_left = 1;
			continue;
		}
		for (j = 0; j < d->nfiles; j++) {
			k = w->byfile[d->first + j];
			f = &w->files[k];
			f->blind = 0;
			f->verified = !wt_stale(w, f) && !f->blind;
			if (!f->verified) {
				d->dirty = 1;
				w->idle_left = 1;
			}
		}
	}
	w->idle_at = i;
	w->pass = 1;
	if (i < w->ndirs)
		return 1;
	w->npending = 0;
	/* every directory watched and every file verified: the next call
	 * has nothing to pass over unless an event comes (wt_drain) */
	if (!w->idle_left && w->nblind == 0)
		w->pass = 0;
	return 0;
}

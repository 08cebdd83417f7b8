/*
 * probe.c - the quick look of a run that may have nothing to do.
 *
 * While the manifest's identity is unchanged, a run's tables and their
 * files are the ones the index already holds, so the run changes nothing
 * when every files row still describes its file.  ix_probe checks exactly
 * that, without the plan of each table (index.c), which costs about as
 * much again in user time as the system calls it makes:
 *
 *   - the rows are read through the covering index files_identity, in
 *     path order, DBP_PROBE_CHUNK at a time (memory holds two chunks,
 *     whatever the print's size);
 *   - a chunk is looked at on DBP_LOOK_THREADS threads, which claim
 *     PB_BLOCK rows at a time: every directory on the way to a file is
 *     lstat()ed once a block (it must be a directory, not a symlink: a
 *     symlink is the plan's to judge, SPEC 2.5), then each file.  The
 *     helper threads start on a chunk as soon as it is read, and the
 *     calling thread reads the next chunk before it joins them, so the
 *     index is read while the files are looked at;
 *   - a row whose status says the file was there (ok, parse_error,
 *     shape_error, schema_error, too_large) matches a regular file of the
 *     same device, inode, size and mtime; an absent row matches nothing
 *     there (ENOENT, ENOTDIR); any other row (outside_root, unreadable),
 *     a symlink and any error do not match.
 *
 * A path that does not match is only a candidate: the run then plans the
 * candidates' tables, which decide what really changed (a symlink leading
 * inside, say, is unchanged).  The probe never calls a change unchanged:
 * what it accepts is what the plan would accept, on the same system calls.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ix.h"
#include "platform.h"

enum {
	PB_PRESENT,		/* wants a regular file of this identity */
	PB_ABSENT,		/* wants nothing there */
	PB_ASK			/* only the plan can tell */
};

struct pb_row {
	size_t		 path;		/* offset in the chunk's arena */
	int64_t		 dev, ino, size, mtime;
	unsigned char	 want;		/* PB_* */
	unsigned char	 differs;	/* set by the look */
};

struct pb_chunk {
	struct pb_row	*rows;
	size_t		 n;
	struct dbp_buf	 arena;		/* the paths, NUL-terminated */
};

/* Rows a thread claims at a time (dbp_claims): each block looks at the
 * directories on the way to its first file again, three lstats in 512
 * rows. */
#define PB_BLOCK	512

/* What the threads looking at one chunk share. */
struct pb_look {
	int		 rootfd;
	struct pb_chunk	*c;
};

/* The length of path's directory part ("" has length 0). */
static size_t
pb_dirlen(const char *path)
{
	const char *s = strrchr(path, '/');

	return s == NULL ? 0 : (size_t)(s - path);
}

/* 1 when path is one a look may resolve beneath the root: relative, with
 * no "." or ".." step (rows of present files are stored normalised). */
static int
pb_plain(const char *path)
{
	const char *p = path;
	size_t n;

	if (*p == '/' || *p == '\0')
		return 0;
	while (*p != '\0') {
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

/*
 * Check the directory dir[0..n) and those on the way to it that the
 * previous directory prev[0..pn) of this slice did not already cover.
 * 0 when each is a directory or missing (its files then look absent, as
 * the plan finds them), -1 when one is a symlink or cannot be looked at.
 */
static int
pb_dirs(int rootfd, const char *dir, size_t n, const char *prev, size_t pn)
{
	char buf[DBP_MAX_PATH];
	struct stat sb;
	size_t common = 0, i;

	if (n >= sizeof(buf))
		return -1;
	/* the steps shared with prev were checked with it */
	for (i = 0; i < n && i < pn && dir[i] == prev[i]; i++)
		if (dir[i] == '/')
			common = i;
	if (i == pn && (i == n || dir[i] == '/'))
		common = i;
	memcpy(buf, dir, n);
	buf[n] = '\0';
	for (i = common + (common > 0); i <= n; i++) {
		if (i < n && buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (fstatat(rootfd, buf, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno == ENOENT || errno == ENOTDIR)
				return 0;	/* its files look absent */
			return -1;
		}
		if (S_ISLNK(sb.st_mode))
			return -1;
		if (!S_ISDIR(sb.st_mode))
			return 0;		/* ENOTDIR below it */
		if (i < n)
			buf[i] = '/';
	}
	return 0;
}

/* Look at the rows [lo, hi) of the chunk lk (a struct pb_look): set
 * differs where one does not match.  Runs on the probe's threads
 * (dbp_claims); touches only those rows. */
static void
pb_look_rows(void *lk, size_t lo, size_t hi)
{
	struct pb_chunk *c = ((struct pb_look *)lk)->c;
	int rootfd = ((struct pb_look *)lk)->rootfd;
	struct pb_row *r;
	struct stat sb;
	const char *path, *prev = "";
	size_t i, dn, pn = 0;
	int dirbad = 0, rc;

	for (i = lo; i < hi; i++) {
		r = &c->rows[i];
		path = c->arena.ptr + r->path;
		if (r->want == PB_ASK) {
			r->differs = 1;
			continue;
		}
		dn = pb_dirlen(path);
		if (dn != pn || memcmp(path, prev, dn) != 0) {
			dirbad = dn > 0 && pb_dirs(rootfd, path, dn, prev,
			    pn) == -1;
			prev = path;
			pn = dn;
		}
		if (dirbad) {
			r->differs = 1;
			continue;
		}
		rc = fstatat(rootfd, path, &sb, AT_SYMLINK_NOFOLLOW);
		if (r->want == PB_ABSENT)
			r->differs = !(rc == -1 && (errno == ENOENT ||
			    errno == ENOTDIR));
		else
			r->differs = rc == -1 || !S_ISREG(sb.st_mode) ||
			    (int64_t)sb.st_dev != r->dev ||
			    (int64_t)sb.st_ino != r->ino ||
			    (int64_t)sb.st_size != r->size ||
			    dbp_mtime_ns(&sb) != r->mtime;
	}
}

/* What a row of this status wants on disk. */
static int
pb_want(const char *status, int have_id)
{
	static const char *const present[] = { "ok", "parse_error",
	    "shape_error", "schema_error", "too_large" };
	size_t i;

	if (status == NULL)
		return PB_ASK;
	if (strcmp(status, "absent") == 0)
		return PB_ABSENT;
	for (i = 0; i < sizeof(present) / sizeof(present[0]); i++)
		if (strcmp(status, present[i]) == 0)
			return have_id ? PB_PRESENT : PB_ASK;
	return PB_ASK;	/* outside_root, unreadable, or one we do not know */
}

/* Read up to DBP_PROBE_CHUNK rows of s into c.  1 when the statement has
 * more, 0 when it is done, -1 on OOM or a read error (d set). */
static int
pb_fill(sqlite3 *db, sqlite3_stmt *s, struct pb_chunk *c, struct dbp_diag *d)
{
	struct pb_row *r;
	const char *path;
	int rc;

	c->n = 0;
	c->arena.len = 0;
	while (c->n < DBP_PROBE_CHUNK) {
		if ((rc = sqlite3_step(s)) == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW)
			return dbp_fail(d, "index: cannot read files: %s",
			    sqlite3_errmsg(db));
		path = (const char *)sqlite3_column_text(s, 0);
		r = &c->rows[c->n];
		r->path = c->arena.len;
		if (dbp_buf_add(&c->arena, path != NULL ? path : "",
		    (size_t)sqlite3_column_bytes(s, 0)) == -1 ||
		    dbp_buf_add(&c->arena, "", 1) == -1)
			return dbp_fail(d, "out of memory");
		r->dev = sqlite3_column_int64(s, 1);
		r->ino = sqlite3_column_int64(s, 2);
		r->size = sqlite3_column_int64(s, 3);
		r->mtime = sqlite3_column_int64(s, 4);
		r->want = (unsigned char)pb_want(
		    (const char *)sqlite3_column_text(s, 6),
		    sqlite3_column_type(s, 1) != SQLITE_NULL);
		if (path == NULL || !pb_plain(path))
			r->want = PB_ASK;
		r->differs = 0;
		c->n++;
	}
	return 1;
}

int
ix_probe(sqlite3 *db, int rootfd, size_t max, struct ix_probe *out,
    struct dbp_diag *d)
{
	struct pb_chunk c[2], *cc;
	struct pb_look lk;
	struct dbp_claims cl;
	sqlite3_stmt *s = NULL;
	char **grown, *p;
	size_t i, cap = 0;
	int k, cur = 0, more, looking = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	memset(c, 0, sizeof(c));
	for (k = 0; k < 2; k++) {
		dbp_buf_init(&c[k].arena, (size_t)DBP_PROBE_CHUNK *
		    (DBP_MAX_PATH + 1));
		if ((c[k].rows = calloc(DBP_PROBE_CHUNK, sizeof(*c[k].rows))) ==
		    NULL) {
			dbp_fail(d, "out of memory");
			goto out;
		}
	}
	if (sqlite3_prepare_v2(db, "SELECT path, dev, ino, size, mtime_ns, "
	    "hash, status FROM files INDEXED BY files_identity ORDER BY path",
	    -1, &s, NULL) != SQLITE_OK) {
		dbp_fail(d, "index: %s", sqlite3_errmsg(db));
		goto out;
	}
	if ((more = pb_fill(db, s, &c[cur], d)) == -1)
		goto out;
	for (;;) {
		cc = &c[cur];
		lk.rootfd = rootfd;
		lk.c = cc;
		dbp_claims_begin(&cl, cc->n, PB_BLOCK, DBP_PROBE_THREADS_MIN,
		    pb_look_rows, &lk);
		looking = 1;
		/* the next chunk is read while this one is looked at */
		c[!cur].n = 0;
		if (more && (more = pb_fill(db, s, &c[!cur], d)) == -1)
			goto out;
		dbp_claims_end(&cl);
		looking = 0;
		out->files += cc->n;
		for (i = 0; i < cc->n; i++) {
			if (!cc->rows[i].differs)
				continue;
			if (out->n == max) {
				out->overflow = 1;
				continue;
			}
			if (out->n == cap) {
				cap = cap ? cap * 2 : 64;
				grown = realloc(out->paths, cap *
				    sizeof(*out->paths));
				if (grown == NULL)
					goto oom;
				out->paths = grown;
			}
			if ((p = strdup(cc->arena.ptr + cc->rows[i].path)) ==
			    NULL)
				goto oom;
			out->paths[out->n++] = p;
		}
		if (out->overflow || c[!cur].n == 0)
			break;
		cur = !cur;
	}
	rc = 0;
	goto out;
oom:
	dbp_fail(d, "out of memory");
out:
	if (looking)
		dbp_claims_stop(&cl);	/* its threads read the chunk */
	sqlite3_finalize(s);
	for (k = 0; k < 2; k++) {
		free(c[k].rows);
		dbp_buf_release(&c[k].arena);
	}
	if (rc == -1)
		ix_probe_free(out);
	return rc;
}

void
ix_probe_free(struct ix_probe *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->paths[i]);
	free(p->paths);
	memset(p, 0, sizeof(*p));
}

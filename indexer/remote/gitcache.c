/*
 * gitcache.c - the per-user clone cache of prints served from their
 * repository: one entry per (remote, ref) under $XDG_CACHE_HOME/dbprint
 * (else ~/.cache/dbprint), named by the XXH3-128 of the two, holding the
 * clone (repo/, kept git-status-clean), the indexes of its print (index/,
 * outside the work tree) and the time of the last fetch (fetched).  A
 * first clone is made in a temporary sibling and renamed into place, so
 * a failure leaves nothing; a refresh fetches, then resets to what was
 * fetched, at most every dbp_remote_interval() seconds, never for a ref
 * naming a commit.
 */
#define _XOPEN_SOURCE	700	/* nftw */

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"

#define GC_DIR_MODE	0700
#define GC_LOCK_POLL_MS	100	/* between two tries of a held lock */
#define GC_FTW_FDS	16	/* descriptors nftw may hold open */
/* The lock byte of an entry: its key's last 7 hex digits (28 bits). */
#define GC_LOCK_SKIP	25
#define GC_LOCK_MASK	0xfffffffUL

/* A path joined from parts; malloc'd, or NULL. */
static char *
gc_path(const char *a, const char *b)
{
	struct dbp_buf buf;

	dbp_buf_init(&buf, DBP_MAX_PATH);
	dbp_buf_addf(&buf, "%s/%s", a, b);
	return dbp_buf_take(&buf);
}

/* mkdir -p with mode for every directory it creates. */
static int
gc_mkdirs(const char *path, struct dbp_diag *d)
{
	char buf[DBP_MAX_PATH], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return dbp_fail(d, "path too long: %s", path);
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if (*p == '/')
			*p = '\0';
		if (mkdir(buf, GC_DIR_MODE) == -1 && errno != EEXIST)
			return dbp_fail(d, "cannot create %s: %s", buf,
			    strerror(errno));
		if (p[0] == '\0' && strcmp(buf, path) == 0)
			break;
		*p = '/';
	}
	return 0;
}

static int
gc_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path) == -1 && errno != ENOENT ? -1 : 0;
}

/* rm -rf path; a path that is not there is no error. */
static void
gc_rmtree(const char *path)
{
	nftw(path, gc_rm_one, GC_FTW_FDS, FTW_DEPTH | FTW_PHYS);
}

static int
gc_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

long
dbp_remote_interval(void)
{
	const char *v = getenv("DBPRINT_GIT_REFRESH_S");
	char *end;
	long n;

	if (v == NULL || *v == '\0')
		return DBP_GIT_REFRESH_S;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < 0 || n > DBP_GIT_REFRESH_MAX_S)
		return DBP_GIT_REFRESH_S;
	return n;
}

long
dbp_remote_age(const struct dbp_remote *r)
{
	struct stat st;
	char *stamp;
	long age = -1;

	if (r->entry == NULL || (stamp = gc_path(r->entry, "fetched")) ==
	    NULL)
		return -1;
	if (stat(stamp, &st) == 0) {
		age = (long)(time(NULL) - st.st_mtime);
		if (age < 0)
			age = 0;	/* a clock set back */
	}
	free(stamp);
	return age;
}

/* Record that dir/fetched was fetched now. */
static void
gc_stamp(const char *entry)
{
	char *stamp = gc_path(entry, "fetched");
	int fd;

	if (stamp == NULL)
		return;
	if ((fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) != -1) {
		futimens(fd, NULL);
		close(fd);
	}
	free(stamp);
}

/* The full id of spec in repo into sha, or -1 when it names no commit. */
static int
gc_rev(const char *repo, const char *spec, char sha[41])
{
	const char *argv[] = { "git", "-C", repo, "rev-parse", "--verify",
	    "--quiet", spec, NULL };
	char out[128];
	struct dbp_diag d;
	size_t n;

	if (dbp_git_run(argv, -1, out, sizeof(out), &d) != 0)
		return -1;
	n = strspn(out, "0123456789abcdef");
	if (n != 40)
		return -1;
	memcpy(sha, out, 40);
	sha[40] = '\0';
	return 0;
}

/*
 * What ref names in the clone at repo, all local: the remote's default
 * branch (ref NULL), a branch, a tag, else a commit id (*pinned set).
 * 0 with sha filled, or -1 with d naming the ref.
 */
static int
gc_resolve(const char *repo, const struct dbp_remote *r, char sha[41],
    int *pinned, struct dbp_diag *d)
{
	char spec[DBP_GIT_MAX_ADDRESS + 64];
	const char *ref = r->addr.ref;

	*pinned = 0;
	if (ref == NULL) {
		if (gc_rev(repo, "refs/remotes/origin/HEAD^{commit}", sha) == 0)
			return 0;
		return dbp_fail(d, "%s has no default branch; name a ref: "
		    "%s#<ref>", r->addr.url, r->addr.url);
	}
	snprintf(spec, sizeof(spec), "refs/remotes/origin/%s^{commit}", ref);
	if (gc_rev(repo, spec, sha) == 0)
		return 0;
	snprintf(spec, sizeof(spec), "refs/tags/%s^{commit}", ref);
	if (gc_rev(repo, spec, sha) == 0)
		return 0;
	if (dbp_gitaddr_is_commit(ref)) {
		snprintf(spec, sizeof(spec), "%s^{commit}", ref);
		if (gc_rev(repo, spec, sha) == 0 &&
		    strncasecmp(sha, ref, strlen(ref)) == 0) {
			*pinned = 1;
			return 0;
		}
	}
	return dbp_fail(d, "unknown ref '%s' in %s: no branch, tag or commit "
	    "of that name", ref, r->addr.url);
}

/* Make the work tree of repo exactly commit sha. */
static int
gc_checkout(const char *repo, const char *sha, int abort_fd,
    struct dbp_diag *d)
{
	const char *reset[] = { "git", "-C", repo, "reset", "--hard",
	    "--quiet", sha, "--", NULL };
	const char *clean[] = { "git", "-C", repo, "clean", "-ffdq", NULL };

	if (dbp_git_run(reset, abort_fd, NULL, 0, d) != 0 ||
	    dbp_git_run(clean, abort_fd, NULL, 0, d) != 0)
		return -1;
	return 0;
}

/* Clone r's remote into dest and check its ref out. */
static int
gc_clone(struct dbp_remote *r, const char *dest, int abort_fd,
    struct dbp_diag *d)
{
	const char *argv[] = { "git", "clone", "--quiet", "--no-checkout",
	    "--", r->addr.url, dest, NULL };
	struct dbp_diag gd;
	char sha[41];

	if (dbp_git_run(argv, abort_fd, NULL, 0, &gd) != 0)
		return dbp_fail(d, "cannot clone %s: %s", r->addr.url,
		    gd.msg);
	if (gc_resolve(dest, r, sha, &r->pinned, d) != 0)
		return -1;
	return gc_checkout(dest, sha, abort_fd, d);
}

/* 1 when the clone at repo still reads as a repository with a commit. */
static int
gc_readable(const char *repo)
{
	char sha[41], *dotgit;
	int ok;

	/* Without its .git, git would find a repository above it. */
	if ((dotgit = gc_path(repo, ".git")) == NULL)
		return 0;
	ok = gc_exists(dotgit) && gc_rev(repo, "HEAD^{commit}", sha) == 0;
	free(dotgit);
	return ok;
}

/* A temporary sibling name of path: <path>.<what>.<pid>; malloc'd. */
static char *
gc_tmpname(const char *dir, const char *base, const char *what)
{
	struct dbp_buf b;

	dbp_buf_init(&b, DBP_MAX_PATH);
	dbp_buf_addf(&b, "%s/.%s.%s.%ld", dir, base, what, (long)getpid());
	return dbp_buf_take(&b);
}

/* The first clone: made in a sibling of the entry, renamed into place. */
static int
gc_first(struct dbp_remote *r, int abort_fd, struct dbp_diag *d)
{
	char *tmp, *repo = NULL, *idx = NULL;
	const char *key = strrchr(r->entry, '/') + 1;
	int rc = -1;

	if ((tmp = gc_tmpname(r->cache, key, "new")) == NULL)
		return dbp_fail(d, "out of memory");
	gc_rmtree(tmp);
	if ((repo = gc_path(tmp, "repo")) == NULL ||
	    (idx = gc_path(tmp, "index")) == NULL) {
		dbp_fail(d, "out of memory");
		goto out;
	}
	if (mkdir(tmp, GC_DIR_MODE) == -1) {
		dbp_fail(d, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (gc_clone(r, repo, abort_fd, d) != 0)
		goto out;
	if (mkdir(idx, GC_DIR_MODE) == -1) {
		dbp_fail(d, "cannot create %s: %s", idx, strerror(errno));
		goto out;
	}
	gc_stamp(tmp);
	if (rename(tmp, r->entry) == -1) {
		dbp_fail(d, "cannot create %s: %s", r->entry, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		gc_rmtree(tmp);
	free(tmp);
	free(repo);
	free(idx);
	return rc;
}

/* An entry whose clone no longer reads: clone it afresh beside it, then
 * swap the two; the index stays. */
static int
gc_afresh(struct dbp_remote *r, int abort_fd, struct dbp_diag *d)
{
	char *tmp, *old = NULL, *idx = NULL;
	int rc = -1;

	if ((tmp = gc_tmpname(r->entry, "repo", "new")) == NULL ||
	    (old = gc_tmpname(r->entry, "repo", "old")) == NULL ||
	    (idx = gc_path(r->entry, "index")) == NULL) {
		dbp_fail(d, "out of memory");
		goto out;
	}
	gc_rmtree(tmp);
	gc_rmtree(old);
	if (gc_clone(r, tmp, abort_fd, d) != 0)
		goto out;
	if ((gc_exists(r->repo) && rename(r->repo, old) == -1) ||
	    rename(tmp, r->repo) == -1) {
		dbp_fail(d, "cannot replace %s: %s", r->repo, strerror(errno));
		goto out;
	}
	if (gc_mkdirs(idx, d) != 0)
		goto out;
	gc_stamp(r->entry);
	rc = 0;
out:
	if (tmp != NULL)
		gc_rmtree(tmp);
	if (old != NULL)
		gc_rmtree(old);
	free(tmp);
	free(old);
	free(idx);
	return rc;
}

/* How old, in words, for the one degraded line. */
static void
gc_age_text(long s, char *out, size_t n)
{
	if (s < 0)
		snprintf(out, n, "at an unknown time");
	else if (s < 60)
		snprintf(out, n, "%ld s ago", s);
	else if (s < 3600)
		snprintf(out, n, "%ld min ago", s / 60);
	else if (s < 86400)
		snprintf(out, n, "%ld h %ld min ago", s / 3600, s / 60 % 60);
	else
		snprintf(out, n, "%ld d %ld h ago", s / 86400, s / 3600 % 24);
}

/* Fetch and reset a readable clone; the lock is held. */
static int
gc_fetch(struct dbp_remote *r, int abort_fd, struct dbp_diag *d)
{
	const char *argv[] = { "git", "-C", r->repo, "fetch", "--quiet",
	    "--prune", "--force", "--tags", "origin", NULL };
	char sha[41];
	int pinned;

	if (dbp_git_run(argv, abort_fd, NULL, 0, d) != 0 ||
	    gc_resolve(r->repo, r, sha, &pinned, d) != 0 ||
	    gc_checkout(r->repo, sha, abort_fd, d) != 0)
		return -1;
	gc_stamp(r->entry);
	return 0;
}

/*
 * Take the entry's lock, waiting for another process's clone or refresh
 * at most DBP_GIT_TIMEOUT_S, or until abort_fd is readable.  Every entry
 * locks one byte of <cache>/.lock, at an offset its key gives, so a
 * failed first clone leaves no lock file of its own behind.  The
 * descriptor, or -1 with d set.
 */
static int
gc_lock(const struct dbp_remote *r, int abort_fd, struct dbp_diag *d)
{
	struct flock fl;
	struct pollfd pf;
	char path[DBP_MAX_PATH];
	long tries = (long)DBP_GIT_TIMEOUT_S * 1000 / GC_LOCK_POLL_MS;
	int fd;

	snprintf(path, sizeof(path), "%s/.lock", r->cache);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1)
		return dbp_fail(d, "cannot open %s: %s", path, strerror(errno));
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)(strtoul(strrchr(r->entry, '/') + 1 +
	    GC_LOCK_SKIP, NULL, 16) & GC_LOCK_MASK);
	fl.l_len = 1;
	while (fcntl(fd, F_SETLK, &fl) == -1) {
		if ((errno != EACCES && errno != EAGAIN && errno != EINTR) ||
		    tries-- <= 0) {
			close(fd);
			return dbp_fail(d, "cannot lock %s: %s", path,
			    tries < 0 ? "another process holds it" :
			    strerror(errno));
		}
		pf.fd = abort_fd;
		pf.events = POLLIN;
		pf.revents = 0;
		if (poll(&pf, abort_fd >= 0 ? 1 : 0, GC_LOCK_POLL_MS) > 0) {
			close(fd);
			return dbp_fail(d, "git: stopped (the server exited)");
		}
	}
	return fd;
}

/*
 * Bring the entry up: first clone, fresh clone, or refresh when due
 * (refresh: 0 never, 1 when due, 2 now).  The lock is taken here.
 */
static int
gc_materialize(struct dbp_remote *r, int refresh, int abort_fd,
    struct dbp_diag *d)
{
	struct dbp_diag fd_;
	char sha[41], when[64];
	long age;
	int lk, rc = 0;

	if ((lk = gc_lock(r, abort_fd, d)) == -1)
		return -1;
	if (!gc_exists(r->entry))
		rc = gc_first(r, abort_fd, d);
	else if (!gc_readable(r->repo))
		rc = gc_afresh(r, abort_fd, d);
	else	/* a branch gone upstream is not pinned: the fetch says */
		(void)gc_resolve(r->repo, r, sha, &r->pinned, &fd_);
	if (rc != 0 || r->pinned || refresh == 0)
		goto out;
	age = dbp_remote_age(r);
	if (refresh == 1 && age >= 0 && age < dbp_remote_interval())
		goto out;
	if (gc_fetch(r, abort_fd, &fd_) == 0) {
		r->failing = 0;
		goto out;
	}
	if (!gc_readable(r->repo)) {
		rc = gc_afresh(r, abort_fd, d);
		goto out;
	}
	if (!r->failing) {
		gc_age_text(age, when, sizeof(when));
		dbp_warn("cannot refresh %s (%s); serving the copy fetched %s",
		    r->label, fd_.msg, when);
	}
	r->failing = 1;
out:
	close(lk);
	return rc;
}

int
dbp_remote_refresh(struct dbp_remote *r, int force, int abort_fd,
    struct dbp_diag *d)
{
	if (r->repo == NULL || r->pinned)
		return 0;
	return gc_materialize(r, force ? 2 : 1, abort_fd, d);
}

/* The cache directory, created 0700 when missing; malloc'd in *out. */
static int
gc_cache_dir(char **out, struct dbp_diag *d)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct dbp_buf b;

	dbp_buf_init(&b, DBP_MAX_PATH);
	/* The XDG base directory rules: a relative value is ignored. */
	if (x != NULL && x[0] == '/')
		dbp_buf_addf(&b, "%s/dbprint", x);
	else if (home != NULL && home[0] == '/')
		dbp_buf_addf(&b, "%s/.cache/dbprint", home);
	else
		return dbp_fail(d, "no cache directory for a git address: set "
		    "XDG_CACHE_HOME or HOME");
	if ((*out = dbp_buf_take(&b)) == NULL)
		return dbp_fail(d, "out of memory");
	return gc_mkdirs(*out, d);
}

/* A local repository path made absolute, so the key and the clone's
 * origin do not depend on the working directory; else a copy. */
static char *
gc_abs_url(const char *url)
{
	char cwd[DBP_MAX_PATH];
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');

	if (url[0] == '/' || strstr(url, "://") != NULL ||
	    (colon != NULL && (slash == NULL || colon < slash)) ||
	    getcwd(cwd, sizeof(cwd)) == NULL)
		return strdup(url);
	return gc_path(cwd, url);
}

/* Fill r's paths for its address. */
static int
gc_paths(struct dbp_remote *r, struct dbp_diag *d)
{
	struct dbp_buf b;
	char key[33], *abs;

	if ((abs = gc_abs_url(r->addr.url)) == NULL)
		return dbp_fail(d, "out of memory");
	free(r->addr.url);
	r->addr.url = abs;
	if (gc_cache_dir(&r->cache, d) != 0)
		return -1;
	dbp_buf_init(&b, DBP_GIT_MAX_ADDRESS * 2);
	dbp_buf_addf(&b, "%s\n%s", r->addr.url, r->addr.ref ? r->addr.ref :
	    "");
	if (b.failed) {
		dbp_buf_release(&b);
		return dbp_fail(d, "out of memory");
	}
	dbp_hash_hex(b.ptr, b.len, key);
	dbp_buf_release(&b);
	dbp_buf_addf(&b, "%s%s%s", r->addr.url, r->addr.ref ? "#" : "",
	    r->addr.ref ? r->addr.ref : "");
	r->label = dbp_buf_take(&b);
	r->entry = gc_path(r->cache, key);
	r->repo = r->entry ? gc_path(r->entry, "repo") : NULL;
	r->index_dir = r->entry ? gc_path(r->entry, "index") : NULL;
	if (r->repo != NULL)
		r->loc = r->addr.subpath[0] ? gc_path(r->repo,
		    r->addr.subpath) : strdup(r->repo);
	if (r->label == NULL || r->loc == NULL || r->index_dir == NULL)
		return dbp_fail(d, "out of memory");
	return 0;
}

int
dbp_project_open(const char *loc, int flags, struct dbp_project *p,
    struct dbp_remote *r, struct dbp_diag *d)
{
	const char *rel;
	size_t n;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(p, 0, sizeof(*p));
	/* What exists on disk is a local path, whatever it is spelled. */
	if (loc == NULL || gc_exists(loc))
		return dbp_project_load(loc, p, d);
	if ((rc = dbp_gitaddr_parse(loc, &r->addr, d)) <= 0)
		return rc < 0 ? -1 : dbp_project_load(loc, p, d);
	if (gc_paths(r, d) != 0 ||
	    gc_materialize(r, (flags & DBP_REMOTE_BACKGROUND) ? 0 : 1, -1,
	    d) != 0)
		return -1;
	if (dbp_project_load(r->loc, p, d) != 0)
		return -1;
	/* One index directory per project directory of the clone: two
	 * subpaths may declare connections of the same name. */
	n = strlen(r->repo);
	rel = strncmp(p->root, r->repo, n) == 0 && p->root[n] == '/' ?
	    p->root + n + 1 : "";
	if ((p->index_dir = rel[0] ? gc_path(r->index_dir, rel) :
	    strdup(r->index_dir)) == NULL) {
		dbp_project_release(p);
		return dbp_fail(d, "out of memory");
	}
	return 0;
}

void
dbp_remote_release(struct dbp_remote *r)
{
	dbp_gitaddr_release(&r->addr);
	free(r->label);
	free(r->cache);
	free(r->entry);
	free(r->repo);
	free(r->index_dir);
	free(r->loc);
	memset(r, 0, sizeof(*r));
}

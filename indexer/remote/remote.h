/*
 * remote.h - a print served from its repository: --project given a git
 * address.  The address grammar (gitaddr.c, pure), running the user's git
 * (gitrun.c), the per-user clone cache and its refresh (gitcache.c), and
 * the server's background refresher (refresher.c).  Shared by
 * dbprint-index and dbprint-serve.
 */
#ifndef DBPRINT_REMOTE_H
#define DBPRINT_REMOTE_H

#include <sys/types.h>

#include "dbprint.h"

/* ------------------------------------------------------------------ */
/* The address grammar (gitaddr.c)                                      */

struct dbp_gitaddr {
	char	*url;		/* what git clones */
	char	*ref;		/* NULL: the remote's default branch */
	char	*subpath;	/* "" for the repository root; relative, no
				 * "." or ".." segment, no leading or
				 * trailing '/' */
};

/*
 * Read loc as --project reads it, in upstream's order: the explicit
 * <git-url>#<ref>[:<subpath>], the GitHub, GitLab and Bitbucket web URLs
 * of a file or folder, their bare repository URLs, git@HOST:PATH.  1 with
 * *a filled (release with dbp_gitaddr_release) for a git address; 0 for
 * a local path (*a zeroed); -1 with d set for an address refused (a URL
 * or ref beginning with '-', an empty ref, a ".." subpath, a URL that is
 * no git address).  No filesystem, no network.
 */
int	dbp_gitaddr_parse(const char *loc, struct dbp_gitaddr *a,
	    struct dbp_diag *d);
void	dbp_gitaddr_release(struct dbp_gitaddr *a);
/* 1 when ref may name a branch, a tag or a commit (git check-ref-format's
 * rules, and never a leading '-'), else 0. */
int	dbp_gitaddr_ref_ok(const char *ref);
/* 1 when ref is spelled as a commit id: 4 to 40 hexadecimal digits. */
int	dbp_gitaddr_is_commit(const char *ref);

/* ------------------------------------------------------------------ */
/* Running git (gitrun.c)                                               */

/*
 * Run git with argv (argv[0] is "git", NULL-terminated): execvp, no
 * shell, stdin from /dev/null, GIT_TERMINAL_PROMPT=0, stdout and stderr
 * into a pipe of which the last DBP_GIT_OUTPUT_MAX bytes are kept in out
 * (may be NULL; a NUL-terminated string), killed after DBP_GIT_TIMEOUT_S
 * or as soon as abort_fd (-1: none) is readable or hung up.  0 when git
 * exited 0; -1 with d set (git's last line quoted), or the install hint
 * when git is not on PATH.
 */
int	dbp_git_run(const char *const argv[], int abort_fd, char *out,
	    size_t outsz, struct dbp_diag *d);

/* ------------------------------------------------------------------ */
/* The clone cache (gitcache.c)                                         */

struct dbp_remote {
	struct dbp_gitaddr addr;
	char	*label;		/* url#ref, for messages */
	char	*cache;		/* the cache directory */
	char	*entry;		/* <cache>/<key>: one (remote, ref) */
	char	*repo;		/* <entry>/repo: the clone */
	char	*index_dir;	/* <entry>/index: the indexes, outside it */
	char	*loc;		/* <repo>[/<subpath>], for dbp_project_load */
	int	 pinned;	/* the ref names a commit: never refreshed */
	int	 failing;	/* the last refresh failed: said once */
};

#define DBP_REMOTE_BACKGROUND	0x1	/* an existing clone is used as it
					 * is: the server's refresher
					 * refreshes it (refresher.c) */

/*
 * Load the project at loc as dbp_project_load does (NULL: the walk up).
 * When loc is a git address, the clone in the cache is made (first use),
 * made afresh (unreadable) or refreshed when due (unless
 * DBP_REMOTE_BACKGROUND), .dbprint.yaml is read from its subpath, and
 * p->index_dir is the entry's index/, or index/<dir> for a project in
 * the clone's <dir>.  r is filled for a git address and
 * zeroed for a local one; release it with dbp_remote_release either way.
 * 0, or -1 with d set.
 */
int	dbp_project_open(const char *loc, int flags, struct dbp_project *p,
	    struct dbp_remote *r, struct dbp_diag *d);
/*
 * Refresh r's clone when due (force: now): fetch, then reset to what was
 * fetched.  A pinned commit is never refreshed.  A failure over a
 * readable clone keeps it, logs one line saying how old its content is
 * (once, until a refresh succeeds again) and returns 0; an unreadable
 * clone is cloned afresh.  abort_fd as dbp_git_run.  0, or -1 with d set.
 */
int	dbp_remote_refresh(struct dbp_remote *r, int force, int abort_fd,
	    struct dbp_diag *d);
/* Seconds between two refreshes: DBPRINT_GIT_REFRESH_S, else
 * DBP_GIT_REFRESH_S. */
long	dbp_remote_interval(void);
/* Seconds since the clone was last fetched, or -1 when unknown. */
long	dbp_remote_age(const struct dbp_remote *r);
void	dbp_remote_release(struct dbp_remote *r);

/* ------------------------------------------------------------------ */
/* The background refresher (refresher.c)                               */

struct dbp_refresher {
	pid_t	pid;		/* 0: none running */
	int	fd;		/* the pipe's write end; its EOF stops it */
};

/*
 * Start r's refresher: a child process forked now (before the server
 * confines itself) that refreshes the clone every dbp_remote_interval()
 * seconds, writes nothing to stdout, and exits when the parent closes
 * the pipe or exits.  Nothing is started for a local project (r->repo
 * NULL) or a pinned commit.  0, or -1 with d set.
 */
int	dbp_refresher_start(struct dbp_remote *r, struct dbp_refresher *h,
	    struct dbp_diag *d);
/* Stop and reap the refresher (a no-op when none runs). */
void	dbp_refresher_stop(struct dbp_refresher *h);

#endif /* DBPRINT_REMOTE_H */

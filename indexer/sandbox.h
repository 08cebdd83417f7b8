/*
 * sandbox.h - the confinement both programs put themselves under once
 * they hold what they need (dbprint-serve(1), dbprint-index(1),
 * "SANDBOX"): PR_SET_NO_NEW_PRIVS, a Landlock ruleset (read beneath some
 * paths, read and write beneath others, no TCP bind or connect, abstract
 * unix sockets and signals scoped) and a seccomp allow-list of the system
 * calls the programs make, built with libseccomp.
 *
 * Linux only; elsewhere, and in a DBP_PORTABLE build, dbp_sandbox_apply
 * does nothing and says "no sandbox on this platform".  The ruleset is
 * applied to the calling thread and the threads and processes it starts
 * afterwards: apply it before starting any thread.
 *
 * Use: dbp_sandbox_init, one dbp_sandbox_allow per path, then
 * dbp_sandbox_apply, then dbp_sandbox_release (apply keeps nothing).
 */
#ifndef DBPRINT_SANDBOX_H
#define DBPRINT_SANDBOX_H

#include <stddef.h>

/* What a path is opened for (dbp_sandbox_allow). */
enum dbp_sandbox_access {
	DBP_SANDBOX_READ,	/* read files, list directories beneath */
	DBP_SANDBOX_WRITE	/* also create, write, truncate and remove
				 * files beneath (no directories, links,
				 * devices, sockets or fifos) */
};

/* dbp_sandbox_init's flags. */
#define DBP_SANDBOX_LISTENER	0x01	/* the process keeps a listening
					 * socket: it may accept and use
					 * connections (never create a
					 * socket) */

/* dbp_sandbox_apply's result: which protections took effect. */
#define DBP_SANDBOX_NNP		0x01	/* PR_SET_NO_NEW_PRIVS */
#define DBP_SANDBOX_FS		0x02	/* Landlock: files */
#define DBP_SANDBOX_NET		0x04	/* Landlock: no TCP bind/connect
					 * (ABI >= 4) */
#define DBP_SANDBOX_SCOPE	0x08	/* Landlock: abstract unix sockets
					 * and signals scoped (ABI >= 6) */
#define DBP_SANDBOX_SECCOMP	0x10	/* the seccomp allow-list */
/* The protections short of which both programs warn that the sandbox is
 * partial (the Landlock network and scope rules follow the kernel's ABI;
 * the line names them either way). */
#define DBP_SANDBOX_CORE	(DBP_SANDBOX_NNP | DBP_SANDBOX_FS | \
				 DBP_SANDBOX_SECCOMP)

struct dbp_sandbox_path {
	char			*path;		/* malloc'd */
	enum dbp_sandbox_access	 access;
};

/* What to allow.  Owned by the caller; dbp_sandbox_release frees the
 * paths it copied. */
struct dbp_sandbox {
	struct dbp_sandbox_path	*paths;		/* malloc'd */
	size_t			 npaths;
	int			 flags;		/* DBP_SANDBOX_LISTENER */
	long			 child;		/* the one child process the
						 * program may wait for (the
						 * git refresher), 0: none */
};

void	dbp_sandbox_init(struct dbp_sandbox *sb, int flags);
/* Allow access beneath path (a directory, or one file).  The path is
 * copied; a path that does not exist when the sandbox is applied is left
 * out (nothing beneath it can be opened afterwards).  0, or -1 out of
 * memory. */
int	dbp_sandbox_allow(struct dbp_sandbox *sb, const char *path,
	    enum dbp_sandbox_access access);
/* Allow write access beneath the directory holding the file path (an
 * index and its -wal, -shm and -journal files).  0 or -1 as above. */
int	dbp_sandbox_allow_dir_of(struct dbp_sandbox *sb, const char *path);
/* Allow write access beneath SQLITE_TMPDIR when it is set (SQLite's
 * temporary files: statement journals, large sorts).  0 or -1 as above. */
int	dbp_sandbox_allow_tmpdir(struct dbp_sandbox *sb);
void	dbp_sandbox_release(struct dbp_sandbox *sb);

/*
 * Point SQLite's temporary files at the directory of index_path, which the
 * sandbox lets the program write, by setting SQLITE_TMPDIR unless it is
 * set already (then dbp_sandbox_allow_tmpdir allows that directory).
 * SQLite reads the variable once, when it initializes: call this before
 * the first database is opened.  0, or -1 out of memory.
 */
int	dbp_sandbox_tmpdir(const char *index_path);

/*
 * Confine the calling process.  Returns the DBP_SANDBOX_* bits of the
 * protections that took effect (0 on a platform without them) and writes
 * the one line that says so into line[0..len) ("no_new_privs, landlock
 * ABI 7 (files, tcp, scope), seccomp", or what is off and why).  A
 * kernel without Landlock or seccomp, or with an older Landlock ABI,
 * leaves those bits out and carries on.
 */
int	dbp_sandbox_apply(const struct dbp_sandbox *sb, char *line,
	    size_t len);

/* 1 when this build has the sandbox (Linux, not DBP_PORTABLE, not the
 * valgrind build): where it does not, dbp_sandbox_apply confines nothing
 * (the valgrind build: no_new_privs only) and nobody is warned. */
int	dbp_sandbox_available(void);
/* The Landlock ABI the kernel offers, 0 for none (or no sandbox on this
 * platform). */
int	dbp_sandbox_landlock_abi(void);

/* 1 when DBPRINT_NO_SANDBOX is set to anything but "" or "0": the
 * environment's --no-sandbox, which both programs honour. */
int	dbp_sandbox_env_off(void);

#endif /* DBPRINT_SANDBOX_H */

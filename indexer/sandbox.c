/*
 * sandbox.c - the confinement of both programs (sandbox.h):
 * PR_SET_NO_NEW_PRIVS, then a Landlock ruleset through its system calls,
 * then a seccomp allow-list built with libseccomp.
 *
 * What a denied system call does, decided per class (the man pages'
 * SANDBOX sections say the same):
 *   - it kills the process (SIGSYS) when no part of either program, of
 *     libc, SQLite or libmicrohttpd makes it after start-up and it is a
 *     way out of the sandbox or into another process: execve, execveat,
 *     ptrace, process_vm_readv/writev, the mount family, chroot,
 *     pivot_root, unshare, setns, module loading, kexec, bpf,
 *     perf_event_open, the key ring, userfaultfd, io_uring,
 *     open_by_handle_at, iopl, reboot, swapon, setting the clock or the
 *     host name (sbx_kill below);
 *   - it fails with EPERM when it is not on the allow-list otherwise:
 *     socket and connect, fork, signals to other processes, an ioctl or
 *     prctl other than the listed ones, executable mappings.  A library
 *     that probes such a call (libc, SQLite) sees an ordinary error;
 *   - clone3 fails with ENOSYS, so that glibc falls back to clone, whose
 *     flags a filter can read (threads only).
 *
 * The sanitizer builds (__SANITIZE_ADDRESS__, or DBP_SANDBOX_SANITIZER)
 * widen it for the leak checker's exit-time work: read beneath /proc,
 * /usr and /lib, ptrace, clone without CLONE_THREAD, signals to any
 * process, any prctl, and execve fails with EPERM instead of killing.
 * The valgrind build (DBP_SANDBOX_VALGRIND) keeps only no_new_privs:
 * valgrind runs the program's system calls as its own, so a filter or a
 * ruleset would confine valgrind.  The sandbox itself is tested in the
 * normal build.

 */
#if defined(__linux__) && !defined(DBP_PORTABLE)
#define _GNU_SOURCE	/* O_PATH, syscall() */
#else
#define _POSIX_C_SOURCE	200809L
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox.h"

#if defined(__linux__) && !defined(DBP_PORTABLE)
#define SBX_LINUX	1
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/landlock.h>
#include <linux/sched.h>
#include <seccomp.h>
/* Argument n equal to v.  libseccomp's SCMP_An(SCMP_CMP_EQ, v) leaves
 * the comparison's second datum out, which clang's
 * -Wmissing-field-initializers (in -Wextra) reports. */
#define SBX_EQ(n, v)	((struct scmp_arg_cmp){ (n), SCMP_CMP_EQ, \
			    (scmp_datum_t)(v), 0 })
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(DBP_SANDBOX_SANITIZER)
#define SBX_SANITIZER	1
#endif

void
dbp_sandbox_init(struct dbp_sandbox *sb, int flags)
{
	memset(sb, 0, sizeof(*sb));
	sb->flags = flags;
}

int
dbp_sandbox_allow(struct dbp_sandbox *sb, const char *path,
    enum dbp_sandbox_access access)
{
	struct dbp_sandbox_path *np;
	char *copy;

	if ((copy = strdup(path)) == NULL)
		return -1;
	np = realloc(sb->paths, (sb->npaths + 1) * sizeof(*np));
	if (np == NULL) {
		free(copy);
		return -1;
	}
	sb->paths = np;
	np[sb->npaths].path = copy;
	np[sb->npaths].access = access;
	sb->npaths++;
	return 0;
}

/* The directory of path, malloc'd (the caller frees), or NULL out of
 * memory. */
static char *
sbx_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int
dbp_sandbox_allow_dir_of(struct dbp_sandbox *sb, const char *path)
{
	char *dir;
	int rc;

	if ((dir = sbx_dir_of(path)) == NULL)
		return -1;
	rc = dbp_sandbox_allow(sb, dir, DBP_SANDBOX_WRITE);
	free(dir);
	return rc;
}

int
dbp_sandbox_tmpdir(const char *index_path)
{
	const char *env = getenv("SQLITE_TMPDIR");
	char *dir;
	int rc;

	if (env != NULL && *env != '\0')
		return 0;
	if ((dir = sbx_dir_of(index_path)) == NULL)
		return -1;
	rc = setenv("SQLITE_TMPDIR", dir, 1);
	free(dir);
	return rc;
}

int
dbp_sandbox_allow_tmpdir(struct dbp_sandbox *sb)
{
	const char *env = getenv("SQLITE_TMPDIR");

	if (env == NULL || *env == '\0')
		return 0;
	return dbp_sandbox_allow(sb, env, DBP_SANDBOX_WRITE);
}

void
dbp_sandbox_release(struct dbp_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->npaths; i++)
		free(sb->paths[i].path);
	free(sb->paths);
	sb->paths = NULL;
	sb->npaths = 0;
}

/* 1 when the environment variable name is set to anything but "" or
 * "0". */
static int
sbx_env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

int
dbp_sandbox_env_off(void)
{
	return sbx_env("DBPRINT_NO_SANDBOX");
}

/* The line apply writes: appended to, never overrun. */
struct sbx_line {
	char	*p;
	size_t	 len, off;
};

static void
sbx_say(struct sbx_line *ln, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sbx_say(struct sbx_line *ln, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ln->len == 0 || ln->off >= ln->len - 1)
		return;
	if (ln->off > 0) {
		n = snprintf(ln->p + ln->off, ln->len - ln->off, ", ");
		ln->off += (size_t)n;
		if (ln->off >= ln->len)
			ln->off = ln->len - 1;
	}
	va_start(ap, fmt);
	n = vsnprintf(ln->p + ln->off, ln->len - ln->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		ln->off += (size_t)n;
	if (ln->off >= ln->len)
		ln->off = ln->len - 1;
}

#ifndef SBX_LINUX

int
dbp_sandbox_apply(const struct dbp_sandbox *sb, char *line, size_t len)
{
	struct sbx_line ln = { line, len, 0 };

	(void)sb;
	if (len > 0)
		line[0] = '\0';
	sbx_say(&ln, "no sandbox on this platform");
	return 0;
}

int
dbp_sandbox_landlock_abi(void)
{
	return 0;
}

int
dbp_sandbox_available(void)
{
	return 0;
}

#else /* SBX_LINUX */

int
dbp_sandbox_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	return abi > 0 ? (int)abi : 0;
}

int
dbp_sandbox_available(void)
{
#ifdef DBP_SANDBOX_VALGRIND
	return 0;	/* off by design: said at info level, not warned */
#else
	return 1;
#endif
}

/* ------------------------------------------------------------------ */
/* Landlock                                                             */

/* The access rights of later ABIs than the system's <linux/landlock.h>
 * may know (Debian 12's describes ABI 2).  Values from the kernel's
 * user-space API, which never changes them. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP		(1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)	/* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif

/* The ABI 1 file rights: execute, write, read, list, remove a directory
 * or file, make a character device, directory, file, socket, fifo,
 * block device, symlink. */
#define SBX_FS_ABI1	((1ULL << 13) - 1)
/* The rights that apply to a file (not a directory). */
#define SBX_FS_FILE	(LANDLOCK_ACCESS_FS_EXECUTE | \
	LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define SBX_FS_READ	(LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR)
#define SBX_FS_WRITE	(SBX_FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_TRUNCATE)

/* struct landlock_ruleset_attr as of ABI 6; an older kernel is given
 * only the fields it knows (sbx_attr_size). */
struct sbx_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;	/* ABI 4 */
	uint64_t	scoped;			/* ABI 6 */
};

static size_t
sbx_attr_size(long abi)
{
	if (abi >= 6)
		return sizeof(struct sbx_ruleset_attr);
	if (abi >= 4)
		return 2 * sizeof(uint64_t);
	return sizeof(uint64_t);
}

/* The paths every build reads besides the caller's: the file glibc reads
 * for sysconf(_SC_NPROCESSORS_ONLN) (the indexer's worker count). */
static const char *const sbx_sys_read[] = {
	"/sys/devices/system/cpu/online",
	/* SQLite's randomness and its localtime() */
	"/dev/urandom", "/etc/localtime",
#ifdef SBX_SANITIZER
	/* The leak checker's /proc/self/maps and task list; the symbolizer's
	 * shared objects. */
	"/proc", "/usr", "/lib", "/lib64",
#endif
};

/* Add the rule for path; 0, 1 when the path does not exist (left out),
 * or -1 with errno. */
static int
sbx_ll_rule(int rfd, const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	int fd, rc, e;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ?
		    1 : -1;
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = access & handled;
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= SBX_FS_FILE;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	e = errno;
	close(fd);
	errno = e;
	return rc == 0 ? 0 : -1;
}

/* The Landlock part: the DBP_SANDBOX_FS/NET/SCOPE bits that took
 * effect.  no_new_privs is already set. */
static int
sbx_landlock(const struct dbp_sandbox *sb, struct sbx_line *ln)
{
	struct sbx_ruleset_attr attr;
	const char *why;
	size_t i;
	long abi;
	int rfd, on = DBP_SANDBOX_FS;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0) {
		why = errno == ENOSYS ? "not in this kernel" :
		    errno == EOPNOTSUPP ? "disabled at boot" : strerror(errno);
		sbx_say(ln, "landlock off (%s)", why);
		return 0;
	}
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = SBX_FS_ABI1;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	/* Handled and never granted: no TCP bind or connect at all (a
	 * listening socket keeps accepting). */
	if (abi >= 4) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		    LANDLOCK_ACCESS_NET_CONNECT_TCP;
		on |= DBP_SANDBOX_NET;
	}
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		    LANDLOCK_SCOPE_SIGNAL;
		on |= DBP_SANDBOX_SCOPE;
	}
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    sbx_attr_size(abi), 0);
	if (rfd < 0) {
		sbx_say(ln, "landlock off (ruleset: %s)", strerror(errno));
		return 0;
	}
	for (i = 0; i < sb->npaths; i++)
		if (sbx_ll_rule(rfd, sb->paths[i].path,
		    sb->paths[i].access == DBP_SANDBOX_WRITE ? SBX_FS_WRITE :
		    SBX_FS_READ, attr.handled_access_fs) == -1)
			goto fail;
	for (i = 0; i < sizeof(sbx_sys_read) / sizeof(sbx_sys_read[0]); i++)
		if (sbx_ll_rule(rfd, sbx_sys_read[i], SBX_FS_READ,
		    attr.handled_access_fs) == -1)
			goto fail;
	if (syscall(SYS_landlock_restrict_self, rfd, 0) != 0) {
		sbx_say(ln, "landlock off (restrict: %s)", strerror(errno));
		close(rfd);
		return 0;
	}
	close(rfd);
	sbx_say(ln, "landlock ABI %ld (files%s%s)", abi,
	    on & DBP_SANDBOX_NET ? ", tcp" : "",
	    on & DBP_SANDBOX_SCOPE ? ", scope" : "");
	return on;
fail:
	sbx_say(ln, "landlock off (rule for %s: %s)", sb->paths[i].path,
	    strerror(errno));
	close(rfd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* seccomp                                                              */

/* Every system call the programs make once confined (found with
 * strace -f over the test suite), allowed with any arguments. */
static const char *const sbx_allow[] = {
	/* files: the print, the index and its -wal/-shm/-journal */
	"read", "write", "readv", "writev", "pread64", "pwrite64",
	"preadv", "pwritev", "lseek", "close", "open", "openat",
	"stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs",
	"access", "faccessat", "faccessat2", "readlink", "readlinkat",
	"getdents", "getdents64", "fcntl", "flock", "fsync", "fdatasync", "ftruncate",
	"sync_file_range",
	"unlink", "unlinkat", "fchown", "getcwd", "dup", "dup2", "dup3",
	/* mkdir: dbp_index_open makes the directories above an index; they
	 * exist (EEXIST), and Landlock refuses a new one */
	"mkdir", "mkdirat",
	/* memory (mmap and mprotect: sbx_special) */
	"munmap", "mremap", "madvise", "brk",
	/* threads, time, randomness */
	"futex", "set_robust_list", "get_robust_list", "rseq",
	"exit", "exit_group", "gettid", "getpid", "getppid",
	"sched_getaffinity", "sched_yield", "nanosleep", "clock_nanosleep",
	"clock_gettime", "clock_getres", "gettimeofday", "time",
	"getrandom", "restart_syscall",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"getuid", "geteuid", "getgid", "getegid", "uname", "getrlimit",
	/* waiting: stdin, inotify, the HTTP daemon's epoll and eventfd */
	"poll", "ppoll", "select", "pselect6", "epoll_create",
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"eventfd2", "pipe", "pipe2",
	"inotify_init1", "inotify_add_watch", "inotify_rm_watch",
};

/* With a listening socket (HTTP): its connections.  No socket, bind or
 * connect: those fail with EPERM. */
static const char *const sbx_listener[] = {
	"accept", "accept4", "shutdown", "setsockopt", "getsockopt",
	"getsockname", "getpeername", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "sendfile",
};

/* Killed on sight (see the header comment). */
static const char *const sbx_kill[] = {
#ifndef SBX_SANITIZER
	"execve", "execveat", "ptrace",
#endif
	"process_vm_readv", "process_vm_writev",
	"mount", "umount2", "move_mount", "open_tree", "fsopen", "fsconfig",
	"fsmount", "fspick", "mount_setattr", "pivot_root", "chroot",
	"unshare", "setns", "init_module", "finit_module", "delete_module",
	"kexec_load", "kexec_file_load", "bpf", "perf_event_open",
	"keyctl", "add_key", "request_key", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "kcmp",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "uselib", "vhangup",
};

#ifdef SBX_SANITIZER
/* The leak checker stops the world at exit from a tracer made with
 * clone (no CLONE_THREAD) that ptraces every thread. */
static const char *const sbx_sanitizer[] = {
	"ptrace", "wait4", "waitid", "clone", "kill", "tgkill", "tkill",
	"prctl", "sched_setaffinity",
};
#endif

/* The ioctl requests allowed: isatty(3) (TCGETS), and the non-blocking
 * and readable-bytes requests of the HTTP daemon. */
static const unsigned long sbx_ioctls[] = {
	0x5401,		/* TCGETS */
	0x541B,		/* FIONREAD */
	0x5421,		/* FIONBIO */
	0x5451,		/* FIOCLEX */
};

#ifndef SBX_SANITIZER
/* The prctl options allowed: thread names. */
static const int sbx_prctls[] = { PR_SET_NAME, PR_GET_NAME };
#endif

/* Add one rule per name of list with action act (names this system does
 * not have are skipped).  0 or -1. */
static int
sbx_rules(scmp_filter_ctx ctx, uint32_t act, const char *const *list,
    size_t n)
{
	size_t i;
	int nr;

	for (i = 0; i < n; i++) {
		nr = seccomp_syscall_resolve_name(list[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, act, nr, 0) != 0)
			return -1;
	}
	return 0;
}

/* The rules that look at arguments.  0 or -1. */
static int
sbx_special(const struct dbp_sandbox *sb, scmp_filter_ctx ctx)
{
	size_t i;
	int rc = 0;
#ifndef SBX_SANITIZER
	pid_t self = getpid();
#endif

	/* Memory, never executable (a compromised parser cannot make its
	 * bytes code): mmap and mprotect without PROT_EXEC. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
	    SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* Threads, never processes; clone3 hides its flags in memory. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0);
#ifndef SBX_SANITIZER
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	/* Signals to this process only (abort, pthread_kill). */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
	    SBX_EQ(0, self));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
	    SBX_EQ(0, self));
	for (i = 0; i < sizeof(sbx_prctls) / sizeof(sbx_prctls[0]); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl),
		    1, SBX_EQ(0, sbx_prctls[i]));
#endif
	/* The indexer's workers lower their own priority (who 0: the
	 * calling thread). */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getpriority), 1,
	    SBX_EQ(1, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setpriority), 1,
	    SBX_EQ(1, 0));
	/* Waiting for the one child forked before (the git refresher). */
	if (sb->child > 0)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(wait4), 1,
		    SBX_EQ(0, sb->child));
	/* Resource limits of this process only (pid 0). */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1,
	    SBX_EQ(0, 0));
	for (i = 0; i < sizeof(sbx_ioctls) / sizeof(sbx_ioctls[0]); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
		    SBX_EQ(1, sbx_ioctls[i]));
	return rc != 0 ? -1 : 0;
}

/* The seccomp part: DBP_SANDBOX_SECCOMP when it took effect. */
static int
sbx_seccomp(const struct dbp_sandbox *sb, struct sbx_line *ln)
{
	scmp_filter_ctx ctx;
	uint32_t kill;
	int rc;

	/* KILL_PROCESS needs API level 3 (libseccomp 2.4, Linux 4.14);
	 * before it, the thread that made the call is killed. */
	kill = seccomp_api_get() >= 3 ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_KILL;
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL) {
		sbx_say(ln, "seccomp off (out of memory)");
		return 0;
	}
	rc = sbx_rules(ctx, SCMP_ACT_ALLOW, sbx_allow,
	    sizeof(sbx_allow) / sizeof(sbx_allow[0]));
	if (rc == 0 && (sb->flags & DBP_SANDBOX_LISTENER))
		rc = sbx_rules(ctx, SCMP_ACT_ALLOW, sbx_listener,
		    sizeof(sbx_listener) / sizeof(sbx_listener[0]));
#ifdef SBX_SANITIZER
	if (rc == 0)
		rc = sbx_rules(ctx, SCMP_ACT_ALLOW, sbx_sanitizer,
		    sizeof(sbx_sanitizer) / sizeof(sbx_sanitizer[0]));
#endif
	if (rc == 0)
		rc = sbx_rules(ctx, kill, sbx_kill,
		    sizeof(sbx_kill) / sizeof(sbx_kill[0]));
	if (rc == 0)
		rc = sbx_special(sb, ctx);
	/* Every thread, should one exist already. */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (rc != 0) {
		sbx_say(ln, "seccomp off (the filter could not be built)");
		seccomp_release(ctx);
		return 0;
	}
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		sbx_say(ln, "seccomp off (%s)", strerror(-rc));
		return 0;
	}
	sbx_say(ln, "seccomp");
	return DBP_SANDBOX_SECCOMP;
}

int
dbp_sandbox_apply(const struct dbp_sandbox *sb, char *line, size_t len)
{
	struct sbx_line ln = { line, len, 0 };
	int on = 0;

	if (len > 0)
		line[0] = '\0';
	/* Landlock and an unprivileged seccomp filter both need it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		sbx_say(&ln, "no_new_privs off (%s), landlock off, seccomp off",
		    strerror(errno));
		return 0;
	}
	on |= DBP_SANDBOX_NNP;
	sbx_say(&ln, "no_new_privs");
#ifdef DBP_SANDBOX_VALGRIND
	if (sb != NULL) {
		sbx_say(&ln, "landlock off, seccomp off (valgrind build)");
		return on;
	}
#endif
	on |= sbx_landlock(sb, &ln);
	on |= sbx_seccomp(sb, &ln);
#ifdef SBX_SANITIZER
	sbx_say(&ln, "widened for the sanitizers");
#endif
	return on;
}

#endif /* SBX_LINUX */

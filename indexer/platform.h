/*
 * platform.h - every call that is not POSIX.1-2008 goes through here
 * (platform.c): Linux's own where it helps, a POSIX path everywhere
 * else.  `make PORTABLE=1` defines DBP_PORTABLE, which compiles the Linux
 * paths out, so the POSIX ones are what runs (and what `make check
 * PORTABLE=1` tests).  Other files ask for _POSIX_C_SOURCE 200809L at
 * most; only platform.c's Linux part asks for _GNU_SOURCE.
 */
#ifndef DBP_PLATFORM_H
#define DBP_PLATFORM_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct stat;

/* 1 when the Linux paths are compiled in, 0 in a portable build. */
int	dbp_platform_linux(void);

/* The program's name for messages ("dbprint-index"), set from argv[0] by
 * dbp_set_progname (the Linux path needs no setting). */
void	dbp_set_progname(const char *argv0);
const char *dbp_progname(void);

/* asprintf(3), vasprintf(3): *out malloc'd, freed by the caller; -1
 * (and *out undefined) on OOM. */
int	dbp_asprintf(char **out, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	dbp_vasprintf(char **out, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));

/* reallocarray(3): realloc for n * size bytes, NULL (p untouched) on
 * OOM or when the product overflows.  The caller frees. */
void	*dbp_reallocarray(void *p, size_t n, size_t size);

/* strcasestr(3), memmem(3): the first match, or NULL. */
char	*dbp_strcasestr(const char *hay, const char *needle);
void	*dbp_memmem(const void *hay, size_t hlen, const void *needle,
	    size_t nlen);

/* The modification time in nanoseconds since the epoch. */
int64_t	dbp_mtime_ns(const struct stat *sb);

/* Fill buf with n random bytes for identifiers (getrandom on Linux,
 * /dev/urandom elsewhere).  0, or -1 with errno. */
int	dbp_random_bytes(void *buf, size_t n);

/* Wait until fd is readable with the signal mask *mask in force for the
 * wait only (ppoll on Linux, pselect elsewhere): as poll(2) returns. */
int	dbp_wait_readable(int fd, const sigset_t *mask);

/* socket(2) with the close-on-exec flag set from the start
 * (SOCK_CLOEXEC) or right after (FD_CLOEXEC).  -1 with errno. */
int	dbp_socket_cloexec(int domain, int type, int protocol);

/* The bytes the kernel has received on TCP socket fd (TCP_INFO), into
 * *n: 0, or -1 where it does not say (every portable build). */
int	dbp_tcp_bytes_received(int fd, uint64_t *n);

/* Start writing back fd's dirty pages without waiting (sync_file_range);
 * elsewhere nothing: the commit's fsync does it all.  fd -1: nothing. */
void	dbp_writeback_start(int fd);

/* Give the pages of freed heap memory back to the system (glibc's
 * malloc_trim), so that a run's resident size falls after a big free;
 * elsewhere nothing. */
void	dbp_heap_trim(void);

/* Lower the calling thread's priority by nice steps (Linux's setpriority
 * of thread id 0); elsewhere nothing, since there it would lower the
 * whole process. */
void	dbp_thread_nice(int nice);

/*
 * Directory watches (inotify on Linux; none elsewhere: a caller stats
 * what it would have watched).  A watch set is a descriptor; a watch is
 * an id >= 0 within it.  Events are read in batches into a caller's
 * buffer of at least DBP_WATCH_READ bytes and walked with
 * dbp_watch_next.
 */
#define DBP_WEV_OVERFLOW 0x1	/* events were lost: everything is dirty */
#define DBP_WEV_SELF	 0x2	/* the directory itself went or moved */
#define DBP_WEV_GONE	 0x4	/* the watch is gone (its id is free) */

struct dbp_wev {
	int		 wd;		/* the watch; -1: DBP_WEV_OVERFLOW */
	unsigned	 flags;		/* DBP_WEV_*; 0: a change of name */
	const char	*name;		/* the entry that changed, or NULL */
};

/* A watch set for the tree open at rootfd, or -1: no watching here (a
 * portable build, no inotify, or a filesystem whose changes made
 * elsewhere raise no event: NFS, SMB, FUSE, 9P, ...). */
int	dbp_watch_open(int rootfd);
/* Watch directory path; other_fs: it lies on another device than the
 * root, so its filesystem is checked too.  The id, or -1 with errno
 * (ENOENT/ENOTDIR: not there; anything else: it cannot be watched). */
int	dbp_watch_add(int wfd, const char *path, int other_fs);
void	dbp_watch_rm(int wfd, int wd);
/* Read what is queued, without waiting: the bytes read into buf, 0 when
 * nothing is queued, -1 with errno on a read error. */
long	dbp_watch_read(int wfd, void *buf, size_t cap);
/* The event at *off of a batch of len bytes, into *ev, advancing *off:
 * 1, or 0 at the batch's end. */
int	dbp_watch_next(const void *buf, size_t len, size_t *off,
	    struct dbp_wev *ev);

#endif /* DBP_PLATFORM_H */

/*
 * platform.c - the calls POSIX.1-2008 lacks (platform.h): the Linux path
 * where the kernel offers something better, a POSIX path everywhere else.
 * DBP_PORTABLE (make PORTABLE=1) takes the POSIX path on Linux too.
 *
 *   call                 Linux                  POSIX path
 *   program name         program_invocation_    argv[0]'s last part
 *                        short_name
 *   (v)asprintf          glibc's                vsnprintf + malloc
 *   reallocarray         glibc's                overflow check + realloc
 *   strcasestr, memmem   glibc's                a plain scan
 *   random bytes         getrandom              /dev/urandom
 *   wait for input       ppoll                  pselect
 *   close-on-exec socket SOCK_CLOEXEC           fcntl FD_CLOEXEC
 *   TCP bytes received   TCP_INFO               none (caller copes)
 *   writeback hint       sync_file_range        none
 *   thread priority      setpriority(tid 0)     none
 *   heap given back      glibc's malloc_trim    none
 *   directory watches    inotify                none (caller stats)
 *
 * macOS and the BSDs take the POSIX path by design; kqueue's
 * EVFILT_VNODE is not used (dbprint-serve(1), PORTABILITY).
 */
#if defined(__linux__) && !defined(DBP_PORTABLE)
#define DBP_LINUX	1
#define _GNU_SOURCE	/* the Linux part: every call named above */
#else
#define DBP_LINUX	0
#define _POSIX_C_SOURCE	200809L
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE	/* struct stat's st_mtimespec */
#endif
#endif

#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#if DBP_LINUX
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/statfs.h>

#include <linux/tcp.h>
#include <netinet/in.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#endif

#include "platform.h"

int
dbp_platform_linux(void)
{
	return DBP_LINUX;
}

int64_t
dbp_mtime_ns(const struct stat *sb)
{
#if defined(__APPLE__)
	return (int64_t)sb->st_mtimespec.tv_sec * 1000000000 +
	    sb->st_mtimespec.tv_nsec;
#else
	return (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
#endif
}

#if DBP_LINUX
/* ------------------------------------------------------------------ */
/* Linux                                                                */

void
dbp_set_progname(const char *argv0)
{
	(void)argv0;	/* the C library has it already */
}

const char *
dbp_progname(void)
{
	return program_invocation_short_name;
}

int
dbp_vasprintf(char **out, const char *fmt, va_list ap)
{
	return vasprintf(out, fmt, ap);
}

void *
dbp_reallocarray(void *p, size_t n, size_t size)
{
	return reallocarray(p, n, size);
}

char *
dbp_strcasestr(const char *hay, const char *needle)
{
	return strcasestr(hay, needle);
}

void *
dbp_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
	return memmem(hay, hlen, needle, nlen);
}

int
dbp_random_bytes(void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = getrandom((char *)buf + got, n - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

int
dbp_wait_readable(int fd, const sigset_t *mask)
{
	struct pollfd pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	return ppoll(&pfd, 1, NULL, mask);
}

int
dbp_socket_cloexec(int domain, int type, int protocol)
{
	return socket(domain, type | SOCK_CLOEXEC, protocol);
}

int
dbp_tcp_bytes_received(int fd, uint64_t *n)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) +
	    sizeof(ti.tcpi_bytes_received))
		return -1;
	*n = ti.tcpi_bytes_received;
	return 0;
}

void
dbp_writeback_start(int fd)
{
	if (fd != -1)
		(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

void
dbp_heap_trim(void)
{
#ifdef __GLIBC__
	/* glibc keeps freed heap pages; this hands the whole free ones
	 * back (madvise), not only the top of the heap. */
	(void)malloc_trim(0);
#endif
}

void
dbp_thread_nice(int nice)
{
	/* Linux nices one thread: who = 0 is the calling thread. */
	(void)setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) +
	    nice);
}

#define WATCH_MASK	(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | \
			    IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | \
			    IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | \
			    IN_ONLYDIR | IN_DONT_FOLLOW)

/* Filesystems whose changes made elsewhere (another client, the host of
 * a VM or container) raise no inotify event here (statfs f_type). */
static int
watch_fs_blind(long type)
{
	static const unsigned long blind[] = {
		0x6969,		/* NFS */
		0x517b,		/* SMB */
		0xfe534d42,	/* SMB2 */
		0xff534d42,	/* CIFS */
		0x65735546,	/* FUSE (sshfs, virtiofs, gcsfuse, ...) */
		0x01021997,	/* 9P (WSL, QEMU shares) */
		0x00c36400,	/* Ceph */
		0x5346414f,	/* AFS */
		0x6b414653,	/* kAFS */
		0x73757245,	/* Coda */
		0x47504653,	/* GPFS */
		0x0bd00bd0,	/* Lustre */
		0x786f4256	/* vboxsf */
	};
	size_t i;

	for (i = 0; i < sizeof(blind) / sizeof(blind[0]); i++)
		if ((unsigned long)type == blind[i] ||
		    ((unsigned long)type & 0xffffffffUL) == blind[i])
			return 1;
	return 0;
}

int
dbp_watch_open(int rootfd)
{
	struct statfs sf;

	if (fstatfs(rootfd, &sf) != 0 || watch_fs_blind(sf.f_type))
		return -1;
	return inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

int
dbp_watch_add(int wfd, const char *path, int other_fs)
{
	struct statfs sf;

	if (other_fs && (statfs(path, &sf) == -1 ||
	    watch_fs_blind(sf.f_type))) {
		errno = EXDEV;
		return -1;
	}
	return inotify_add_watch(wfd, path, WATCH_MASK);
}

void
dbp_watch_rm(int wfd, int wd)
{
	inotify_rm_watch(wfd, wd);
}

long
dbp_watch_read(int wfd, void *buf, size_t cap)
{
	ssize_t n;

	do
		n = read(wfd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	return (long)n;
}

int
dbp_watch_next(const void *buf, size_t len, size_t *off, struct dbp_wev *ev)
{
	const struct inotify_event *ie;

	if (*off + sizeof(*ie) > len)
		return 0;
	ie = (const struct inotify_event *)((const char *)buf + *off);
	*off += sizeof(*ie) + ie->len;
	ev->wd = ie->wd;
	ev->flags = 0;
	if (ie->mask & IN_Q_OVERFLOW) {
		ev->wd = -1;
		ev->flags |= DBP_WEV_OVERFLOW;
	}
	if (ie->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT |
	    IN_IGNORED))
		ev->flags |= DBP_WEV_SELF;
	if (ie->mask & IN_IGNORED)
		ev->flags |= DBP_WEV_GONE;
	ev->name = ie->len > 0 ? ie->name : NULL;
	return 1;
}

#else
/* ------------------------------------------------------------------ */
/* POSIX                                                                */

static const char *progname = "dbprint";

void
dbp_set_progname(const char *argv0)
{
	const char *slash;

	if (argv0 == NULL || argv0[0] == '\0')
		return;
	slash = strrchr(argv0, '/');
	progname = slash != NULL && slash[1] != '\0' ? slash + 1 : argv0;
}

const char *
dbp_progname(void)
{
	return progname;
}

int
dbp_vasprintf(char **out, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || (*out = malloc((size_t)n + 1)) == NULL)
		return -1;
	if (vsnprintf(*out, (size_t)n + 1, fmt, ap) != n) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return n;
}

void *
dbp_reallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}

char *
dbp_strcasestr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (;; hay++) {
		if (strncasecmp(hay, needle, n) == 0)
			return (char *)hay;
		if (*hay == '\0')
			return NULL;
	}
}

void *
dbp_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
	const char *h = hay;
	size_t i;

	if (nlen == 0)
		return (void *)h;
	for (i = 0; nlen <= hlen && i <= hlen - nlen; i++)
		if (h[i] == *(const char *)needle &&
		    memcmp(h + i, needle, nlen) == 0)
			return (void *)(h + i);
	return NULL;
}

int
dbp_random_bytes(void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;
	int fd, e;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (got < n) {
		r = read(fd, (char *)buf + got, n - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			e = r < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	return 0;
}

int
dbp_wait_readable(int fd, const sigset_t *mask)
{
	fd_set rd;

	if (fd < 0 || fd >= FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	return pselect(fd + 1, &rd, NULL, NULL, NULL, mask);
}

int
dbp_socket_cloexec(int domain, int type, int protocol)
{
	int fd, fl, e;

	if ((fd = socket(domain, type, protocol)) == -1)
		return -1;
	if ((fl = fcntl(fd, F_GETFD)) == -1 ||
	    fcntl(fd, F_SETFD, fl | FD_CLOEXEC) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
dbp_tcp_bytes_received(int fd, uint64_t *n)
{
	(void)fd;
	(void)n;
	return -1;
}

void
dbp_writeback_start(int fd)
{
	(void)fd;
}

void
dbp_heap_trim(void)
{
}

void
dbp_thread_nice(int nice)
{
	(void)nice;
}

int
dbp_watch_open(int rootfd)
{
	(void)rootfd;
	errno = ENOSYS;
	return -1;
}

int
dbp_watch_add(int wfd, const char *path, int other_fs)
{
	(void)wfd;
	(void)path;
	(void)other_fs;
	errno = ENOSYS;
	return -1;
}

void
dbp_watch_rm(int wfd, int wd)
{
	(void)wfd;
	(void)wd;
}

long
dbp_watch_read(int wfd, void *buf, size_t cap)
{
	(void)wfd;
	(void)buf;
	(void)cap;
	return 0;
}

int
dbp_watch_next(const void *buf, size_t len, size_t *off, struct dbp_wev *ev)
{
	(void)buf;
	(void)len;
	(void)off;
	(void)ev;
	return 0;
}
#endif

int
dbp_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = dbp_vasprintf(out, fmt, ap);
	va_end(ap);
	return n;
}

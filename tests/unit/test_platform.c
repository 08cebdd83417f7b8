/*
 * test_platform.c - the platform layer (indexer/platform.c), each wrapper
 * checked through its interface.  Compiled in both builds: `make check`
 * tests the Linux paths, `make check PORTABLE=1` the POSIX ones; where
 * the two differ by design (the program name's source, TCP_INFO, thread
 * priority, directory watches) dbp_platform_linux() says which to expect.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dbprint.h"
#include "platform.h"

#define TP_LONG		10000	/* a formatted string past any stack buffer */
#define TP_RANDOM	64	/* random bytes drawn per call */

static const char *tp_argv0;

/* The last part of a path, as a program name is. */
static const char *
tp_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static void
test_progname(void **state)
{
	(void)state;
	dbp_set_progname(tp_argv0);
	assert_string_equal(dbp_progname(), tp_base(tp_argv0));
	if (dbp_platform_linux())
		return;	/* the C library's name: nothing to set */
	dbp_set_progname("/usr/local/bin/dbprint-x");
	assert_string_equal(dbp_progname(), "dbprint-x");
	dbp_set_progname("");
	assert_string_equal(dbp_progname(), "dbprint-x");
	dbp_set_progname(NULL);
	assert_string_equal(dbp_progname(), "dbprint-x");
	dbp_set_progname(tp_argv0);
}

static void
test_asprintf(void **state)
{
	char *s, *big;

	(void)state;
	assert_int_equal(dbp_asprintf(&s, "%s-%d", "x", 42), 4);
	assert_string_equal(s, "x-42");
	free(s);
	assert_int_equal(dbp_asprintf(&s, "%s", ""), 0);
	assert_string_equal(s, "");
	free(s);
	big = malloc(TP_LONG + 1);
	assert_non_null(big);
	memset(big, 'a', TP_LONG);
	big[TP_LONG] = '\0';
	assert_int_equal(dbp_asprintf(&s, "<%s>", big), TP_LONG + 2);
	assert_int_equal(s[0], '<');
	assert_int_equal(s[TP_LONG + 1], '>');
	assert_int_equal(s[TP_LONG + 2], '\0');
	assert_memory_equal(s + 1, big, TP_LONG);
	free(s);
	free(big);
}

static void
test_reallocarray(void **state)
{
	int *p, *q;

	(void)state;
	p = dbp_reallocarray(NULL, 4, sizeof(*p));
	assert_non_null(p);
	p[3] = 7;
	q = dbp_reallocarray(p, 1000, sizeof(*p));
	assert_non_null(q);
	assert_int_equal(q[3], 7);
	p = q;
	/* The overflow check is the portable path's own; on Linux it is the
	 * C library's, which a sanitizer build traps instead. */
	if (!dbp_platform_linux()) {
		errno = 0;
		q = dbp_reallocarray(p, SIZE_MAX / 2 + 1, 2);
		assert_null(q);
		assert_int_equal(errno, ENOMEM);
		assert_int_equal(p[3], 7);	/* untouched */
	}
	free(p);
}

static void
test_strcasestr(void **state)
{
	const char *hay = "Content-Type: x\r\ncontent-LENGTH: 12";

	(void)state;
	assert_ptr_equal(dbp_strcasestr(hay, "CONTENT-length"),
	    strstr(hay, "content-LENGTH"));
	assert_ptr_equal(dbp_strcasestr(hay, "content"), hay);
	assert_ptr_equal(dbp_strcasestr(hay, "12"), hay + strlen(hay) - 2);
	assert_null(dbp_strcasestr(hay, "content-lengthx"));
	assert_null(dbp_strcasestr("", "a"));
	assert_ptr_equal(dbp_strcasestr(hay, ""), hay);
}

static void
test_memmem(void **state)
{
	static const char hay[] = { 'a', '\0', 'b', 'c', '\0', 'b', 'c', 'd' };
	static const char bcd[] = { 'b', 'c', 'd' };
	static const char nul_b[] = { '\0', 'b' };

	(void)state;
	assert_ptr_equal(dbp_memmem(hay, sizeof(hay), bcd, sizeof(bcd)),
	    hay + 5);
	assert_ptr_equal(dbp_memmem(hay, sizeof(hay), nul_b, sizeof(nul_b)),
	    hay + 1);
	assert_null(dbp_memmem(hay, 7, bcd, sizeof(bcd)));	/* cut short */
	assert_null(dbp_memmem(bcd, 2, bcd, sizeof(bcd)));	/* longer */
	assert_ptr_equal(dbp_memmem(hay, sizeof(hay), bcd, 0), hay);
}

static void
test_mtime_ns(void **state)
{
	struct timespec ts[2];
	struct stat sb;
	char path[] = "/tmp/test_platform.XXXXXX";
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	ts[0].tv_sec = ts[1].tv_sec = 1234567890;
	ts[0].tv_nsec = ts[1].tv_nsec = 123456789;
	assert_int_equal(futimens(fd, ts), 0);
	assert_int_equal(fstat(fd, &sb), 0);
	assert_true(dbp_mtime_ns(&sb) == INT64_C(1234567890123456789));
	close(fd);
	unlink(path);
}

static void
test_random_bytes(void **state)
{
	unsigned char a[TP_RANDOM], b[TP_RANDOM], zero[TP_RANDOM];

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memset(zero, 0, sizeof(zero));
	assert_int_equal(dbp_random_bytes(a, sizeof(a)), 0);
	assert_int_equal(dbp_random_bytes(b, sizeof(b)), 0);
	/* 512 random bits are neither all zero nor drawn twice. */
	assert_memory_not_equal(a, zero, sizeof(a));
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(dbp_random_bytes(a, 0), 0);
}

static void
test_wait_readable(void **state)
{
	sigset_t mask;
	char c;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(sigprocmask(SIG_SETMASK, NULL, &mask), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(dbp_wait_readable(p[0], &mask), 1);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[1]);	/* end of file is readable too */
	assert_int_equal(dbp_wait_readable(p[0], &mask), 1);
	assert_int_equal(read(p[0], &c, 1), 0);
	close(p[0]);
}

static void
test_socket_cloexec(void **state)
{
	int fd, fl;

	(void)state;
	fd = dbp_socket_cloexec(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	fl = fcntl(fd, F_GETFD);
	assert_true(fl != -1 && (fl & FD_CLOEXEC));
	close(fd);
	errno = 0;
	assert_int_equal(dbp_socket_cloexec(-1, SOCK_STREAM, 0), -1);
	assert_int_not_equal(errno, 0);
}

/* A connected loopback TCP pair: *srv the accepted end, *cli the other. */
static void
tp_tcp_pair(int *srv, int *cli)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int l;

	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
	*cli = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*cli >= 0);
	assert_int_equal(connect(*cli, (struct sockaddr *)&a, sizeof(a)), 0);
	*srv = accept(l, NULL, NULL);
	assert_true(*srv >= 0);
	close(l);
}

static void
test_tcp_bytes_received(void **state)
{
	uint64_t n = 0;
	char buf[5];
	int srv, cli;

	(void)state;
	tp_tcp_pair(&srv, &cli);
	assert_int_equal(write(cli, "hello", 5), 5);
	assert_int_equal(read(srv, buf, sizeof(buf)), 5);
	if (dbp_platform_linux()) {
		assert_int_equal(dbp_tcp_bytes_received(srv, &n), 0);
		assert_true(n >= 5);
	} else {
		/* The portable build has no count: the caller copes. */
		assert_int_equal(dbp_tcp_bytes_received(srv, &n), -1);
	}
	close(srv);
	close(cli);
}

static void
test_writeback_start(void **state)
{
	char path[] = "/tmp/test_platform.XXXXXX";
	struct stat sb;
	int fd;

	(void)state;
	dbp_writeback_start(-1);	/* nothing */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data\n", 5), 5);
	dbp_writeback_start(fd);
	/* A hint only: the file is as written, the descriptor still open. */
	assert_int_equal(fstat(fd, &sb), 0);
	assert_int_equal(sb.st_size, 5);
	close(fd);
	unlink(path);
}

/* Giving freed heap pages back leaves every live block as it was. */
static void
test_heap_trim(void **state)
{
	enum { N = 4096, SZ = 1024 };
	unsigned char **p;
	size_t i, j;

	(void)state;
	p = calloc(N, sizeof(*p));
	assert_non_null(p);
	for (i = 0; i < N; i++) {
		p[i] = malloc(SZ);
		assert_non_null(p[i]);
		memset(p[i], (int)(i & 0xff), SZ);
	}
	for (i = 0; i < N; i += 2) {	/* holes all through the heap */
		free(p[i]);
		p[i] = NULL;
	}
	dbp_heap_trim();
	for (i = 1; i < N; i += 2)
		for (j = 0; j < SZ; j++)
			assert_int_equal(p[i][j], i & 0xff);
	for (i = 0; i < N; i += 2) {	/* and the heap serves again */
		p[i] = malloc(SZ);
		assert_non_null(p[i]);
		memset(p[i], 0x5a, SZ);
	}
	for (i = 0; i < N; i++)
		free(p[i]);
	free(p);
}

struct tp_nice {
	int	before, after;
};

static void *
tp_nice_thread(void *arg)
{
	struct tp_nice *t = arg;

	errno = 0;
	t->before = getpriority(PRIO_PROCESS, 0);
	dbp_thread_nice(1);
	t->after = getpriority(PRIO_PROCESS, 0);
	return NULL;
}

static void
test_thread_nice(void **state)
{
	struct tp_nice t;
	pthread_t th;
	int self;

	(void)state;
	self = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(pthread_create(&th, NULL, tp_nice_thread, &t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	if (dbp_platform_linux() && t.before < 19)
		assert_int_equal(t.after, t.before + 1);	/* that thread */
	else if (!dbp_platform_linux())
		assert_int_equal(t.after, t.before);	/* nothing elsewhere */
	/* Never the whole process: this thread is as it was. */
	assert_int_equal(getpriority(PRIO_PROCESS, 0), self);
}

static void
test_watch(void **state)
{
	char dir[] = "/tmp/test_platform.XXXXXX", path[64];
	struct dbp_wev ev;
	size_t off = 0;
	char *buf;
	long n;
	int rootfd, wfd, wd, fd, seen = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	rootfd = open(dir, O_RDONLY);
	assert_true(rootfd >= 0);
	buf = malloc(DBP_WATCH_READ);
	assert_non_null(buf);
	wfd = dbp_watch_open(rootfd);
	if (!dbp_platform_linux()) {
		/* No watching: the callers stat instead. */
		assert_int_equal(wfd, -1);
		assert_int_equal(dbp_watch_add(wfd, dir, 0), -1);
		assert_int_equal(dbp_watch_read(wfd, buf, DBP_WATCH_READ), 0);
		assert_int_equal(dbp_watch_next(buf, 0, &off, &ev), 0);
		dbp_watch_rm(wfd, 0);
		goto out;
	}
	if (wfd == -1) {
		free(buf);
		close(rootfd);
		rmdir(dir);
		skip();	/* a filesystem inotify cannot see (NFS, FUSE, ...) */
	}
	wd = dbp_watch_add(wfd, dir, 0);
	assert_true(wd >= 0);
	assert_int_equal(dbp_watch_read(wfd, buf, DBP_WATCH_READ), 0);
	snprintf(path, sizeof(path), "%s/f.yaml", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	n = dbp_watch_read(wfd, buf, DBP_WATCH_READ);
	assert_true(n > 0);
	while (dbp_watch_next(buf, (size_t)n, &off, &ev))
		if (ev.wd == wd && ev.name != NULL &&
		    strcmp(ev.name, "f.yaml") == 0 && ev.flags == 0)
			seen = 1;
	assert_true(seen);
	errno = 0;
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(dbp_watch_add(wfd, path, 0), -1);
	assert_int_equal(errno, ENOENT);
	dbp_watch_rm(wfd, wd);
	close(wfd);
	snprintf(path, sizeof(path), "%s/f.yaml", dir);
	unlink(path);
out:
	free(buf);
	close(rootfd);
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progname),
		cmocka_unit_test(test_asprintf),
		cmocka_unit_test(test_reallocarray),
		cmocka_unit_test(test_strcasestr),
		cmocka_unit_test(test_memmem),
		cmocka_unit_test(test_mtime_ns),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_wait_readable),
		cmocka_unit_test(test_socket_cloexec),
		cmocka_unit_test(test_tcp_bytes_received),
		cmocka_unit_test(test_writeback_start),
		cmocka_unit_test(test_heap_trim),
		cmocka_unit_test(test_thread_nice),
		cmocka_unit_test(test_watch),
	};

	(void)argc;
	tp_argv0 = argv[0];
	return cmocka_run_group_tests(tests, NULL, NULL);
}

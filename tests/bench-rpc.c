/*
 * bench-rpc.c - a load driver for dbprint-serve over stdio: how long from
 * the start of the process to its first initialize reply, the round trip
 * of ping requests one at a time, and the server's peak resident memory.
 *
 *	bench-rpc N SERVER [ARG...]
 *
 * Starts SERVER with ARGs (its stdin and stdout are pipes), sends
 * initialize and times the reply from just before fork(), then sends N
 * pings one at a time, each awaited before the next, and closes stdin.
 * Prints, one per line:
 *	start_to_initialize_ms <ms>
 *	ping_p50_us <us>
 *	ping_p99_us <us>
 *	max_rss_kb <kb>
 *	exit <status>
 * Exit 0 when the server answered everything and exited 0, else 1.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE	/* struct rusage's ru_maxrss */
#endif

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_LINE_MAX	(1024 * 1024)	/* longest reply line read */
#define BENCH_MAX_N	10000000L

static const char bench_init[] =
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
    "\"clientInfo\":{\"name\":\"bench-rpc\",\"version\":\"1\"}}}\n";
static const char bench_inited[] =
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

static char	bench_buf[BENCH_LINE_MAX];
static size_t	bench_len;

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
bench_write(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read until one whole line has arrived; drop it from the buffer. */
static int
bench_read_line(int fd)
{
	char *nl;
	ssize_t r;
	size_t n;

	for (;;) {
		nl = memchr(bench_buf, '\n', bench_len);
		if (nl != NULL) {
			n = (size_t)(nl - bench_buf) + 1;
			memmove(bench_buf, bench_buf + n, bench_len - n);
			bench_len -= n;
			return 0;
		}
		if (bench_len == sizeof(bench_buf))
			return -1;
		r = read(fd, bench_buf + bench_len,
		    sizeof(bench_buf) - bench_len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		bench_len += (size_t)r;
	}
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	double t0, t, *lat;
	char req[128];
	long n, i;
	int in[2], out[2], status, rc = 0;
	pid_t pid;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1 ||
	    n > BENCH_MAX_N) {
		fprintf(stderr, "usage: bench-rpc N SERVER [ARG...]\n");
		return 1;
	}
	if ((lat = calloc((size_t)n, sizeof(*lat))) == NULL ||
	    pipe(in) != 0 || pipe(out) != 0) {
		perror("bench-rpc");
		return 1;
	}
	t0 = bench_now();
	if ((pid = fork()) < 0) {
		perror("bench-rpc: fork");
		return 1;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[2], argv + 2);
		perror("bench-rpc: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (bench_write(in[1], bench_init, sizeof(bench_init) - 1) != 0 ||
	    bench_read_line(out[0]) != 0) {
		fprintf(stderr, "bench-rpc: no initialize reply\n");
		return 1;
	}
	printf("start_to_initialize_ms %.2f\n", (bench_now() - t0) * 1e3);
	if (bench_write(in[1], bench_inited, sizeof(bench_inited) - 1) != 0)
		return 1;
	for (i = 0; i < n; i++) {
		int len = snprintf(req, sizeof(req),
		    "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}\n",
		    i + 1);

		t = bench_now();
		if (bench_write(in[1], req, (size_t)len) != 0 ||
		    bench_read_line(out[0]) != 0) {
			fprintf(stderr, "bench-rpc: ping %ld unanswered\n", i);
			rc = 1;
			n = i;
			break;
		}
		lat[i] = (bench_now() - t) * 1e6;
	}
	close(in[1]);
	/* The only child: RUSAGE_CHILDREN's peak is the server's. */
	if (waitpid(pid, &status, 0) < 0 ||
	    getrusage(RUSAGE_CHILDREN, &ru) != 0) {
		perror("bench-rpc: wait");
		return 1;
	}
	if (n > 0) {
		qsort(lat, (size_t)n, sizeof(*lat), bench_cmp);
		printf("ping_p50_us %.1f\n", lat[n / 2]);
		printf("ping_p99_us %.1f\n", lat[(n * 99) / 100]);
	}
	printf("max_rss_kb %ld\n", ru.ru_maxrss);
	printf("exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	free(lat);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = 1;
	return rc;
}

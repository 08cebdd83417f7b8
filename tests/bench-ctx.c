/*
 * bench-ctx.c - time tools/call round trips over stdio against one warm
 * dbprint-serve, for the get_table_context figures of `make bench`.
 *
 *	bench-ctx N TOOL ARGS -- SERVER [ARG...]
 *
 * Starts SERVER with its stdin and stdout on pipes, sends initialize and
 * notifications/initialized, one untimed warm-up call, then N calls of
 * TOOL with ARGS (a JSON object), each awaited before the next.  Prints
 * one line:
 *	p50_us <us> p90_us <us> max_us <us> reply_bytes <n> error <0|1>
 * where error is 1 when the reply carried "isError":true, and cpu_us the
 * server's own CPU time per timed call (from /proc/PID/stat; a figure a
 * loaded machine does not inflate the way it inflates wall time).  Exit 0, or 1
 * on a usage or I/O error.  Standalone: C11 and POSIX only.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime, fdopen */

#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BC_LINE_MAX	(16L * 1024 * 1024)	/* longest reply line read */
#define BC_MAX_N	100000			/* most timed calls */

static char	*bc_buf;
static size_t	 bc_len;	/* bytes held in bc_buf */

static double
bc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
bc_write(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read one line into bc_buf (NUL-terminated, newline dropped); its
 * length, or -1 at EOF or when too long.  Bytes after the newline are
 * kept for the next call. */
static long
bc_line(int fd)
{
	static size_t start;
	char *nl;
	ssize_t r;
	long n;

	if (start > 0) {
		memmove(bc_buf, bc_buf + start, bc_len - start);
		bc_len -= start;
		start = 0;
	}
	for (;;) {
		nl = memchr(bc_buf, '\n', bc_len);
		if (nl != NULL) {
			*nl = '\0';
			n = nl - bc_buf;
			start = (size_t)n + 1;
			return n;
		}
		if (bc_len + 65536 > (size_t)BC_LINE_MAX)
			return -1;
		r = read(fd, bc_buf + bc_len, 65536);
		if (r <= 0)
			return -1;
		bc_len += (size_t)r;
	}
}

/* CPU time (user + system) of process pid so far, in microseconds, or
 * 0 when /proc does not say. */
static double
bc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	size_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* fields after the command name, which may hold spaces */
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	for (i = 0; i < 11 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

static int
bc_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,"
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"bench-ctx\",\"version\":\"1\"}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
	double *lat, t, cpu0 = 0, cpu1;
	char *req;
	long n, i, len = 0;
	int in[2], out[2], status, err = 0;
	size_t reqcap;
	pid_t pid;

	if (argc < 6 || strcmp(argv[4], "--") != 0 ||
	    (n = strtol(argv[1], NULL, 10)) < 1 || n > BC_MAX_N) {
		fprintf(stderr, "usage: bench-ctx N TOOL ARGS -- SERVER "
		    "[ARG...]\n");
		return 1;
	}
	reqcap = strlen(argv[2]) + strlen(argv[3]) + 128;
	lat = calloc((size_t)n + 1, sizeof(*lat));
	req = malloc(reqcap);
	bc_buf = malloc((size_t)BC_LINE_MAX);
	if (lat == NULL || req == NULL || bc_buf == NULL ||
	    pipe(in) != 0 || pipe(out) != 0) {
		perror("bench-ctx");
		return 1;
	}
	if ((pid = fork()) < 0) {
		perror("bench-ctx: fork");
		return 1;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[5], argv + 5);
		perror("bench-ctx: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (bc_write(in[1], init, sizeof(init) - 1) != 0 ||
	    bc_line(out[0]) < 0) {
		fprintf(stderr, "bench-ctx: no initialize reply\n");
		return 1;
	}
	for (i = -1; i < n; i++) {
		int k = snprintf(req, reqcap, "{\"jsonrpc\":\"2.0\",\"id\":%ld,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
		    "\"arguments\":%s}}\n", i + 2, argv[2], argv[3]);

		t = bc_now();
		if (bc_write(in[1], req, (size_t)k) != 0 ||
		    (len = bc_line(out[0])) < 0) {
			fprintf(stderr, "bench-ctx: call %ld unanswered\n", i);
			return 1;
		}
		if (i >= 0)
			lat[i] = bc_now() - t;
		else
			cpu0 = bc_cpu(pid);
		if (strstr(bc_buf, "\"isError\":true") != NULL)
			err = 1;
	}
	cpu1 = bc_cpu(pid);
	close(in[1]);
	waitpid(pid, &status, 0);
	qsort(lat, (size_t)n, sizeof(*lat), bc_cmp);
	printf("p50_us %.0f p90_us %.0f max_us %.0f cpu_us %.0f "
	    "reply_bytes %ld "
	    "error %d\n", lat[n / 2], lat[(n * 9) / 10], lat[n - 1],
	    (cpu1 - cpu0) / (double)n, len, err);
	free(lat);
	free(req);
	free(bc_buf);
	return 0;
}

/*
 * bench-tools.c - time tools/call round trips over stdio against one warm
 * dbprint-serve, for the list_tables / search_columns / resolve_value
 * section of `make bench`.
 *
 *	bench-tools REPEAT LABEL=TOOL=ARGS... -- SERVER [ARG...]
 *
 * Starts SERVER with its stdin and stdout on pipes, sends initialize and
 * notifications/initialized, then for each LABEL=TOOL=ARGS (ARGS a JSON
 * object) one untimed warm-up call and REPEAT timed calls, each awaited
 * before the next.  Prints one line per label:
 *
 *	LABEL p50 <us> us  p90 <us> us  cpu <us>/call  bytes <n>  error <0|1>
 *
 * cpu is the server's own CPU time (user + system, from /proc) per timed
 * call, which a loaded machine does not inflate the way it does the wall
 * clock; error is 1 when the last reply carried "isError":true.  Standalone (C11
 * and POSIX only), built by tests/bench.sh.  Exit 0, or 1 on a usage or
 * I/O error.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime, fdopen, strdup */

#include <sys/types.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BT_MAX_LINE	(64L * 1024 * 1024)	/* longest response line */
#define BT_PARAMS	"{\"name\":\"%s\",\"arguments\":%s}"

static FILE	*bt_to, *bt_from;
static char	*bt_line;
static long	 bt_id;

static double
bt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Send one request line and read its response line: its length, or -1. */
static long
bt_rpc(const char *method, const char *params)
{
	bt_id++;
	fprintf(bt_to, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\","
	    "\"params\":%s}\n", bt_id, method, params);
	fflush(bt_to);
	if (fgets(bt_line, (int)BT_MAX_LINE, bt_from) == NULL)
		return -1;
	return (long)strlen(bt_line);
}

/* The server's CPU time so far in microseconds (utime + stime of
 * /proc/PID/stat), or -1 when unreadable. */
static double
bt_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* fields 14 and 15, counted after the ")" closing field 2 */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 2,
	    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
	    &ut, &st) != 2)
		return -1;
	return (double)(ut + st) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

static int
bt_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int to[2], from[2], i, k, n, first, err, plen;
	char *spec, *tool, *args, *params;
	double *t, t0, c0, c1;
	long len = 0;
	pid_t pid;

	if (argc < 4 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: bench-tools REPEAT LABEL=TOOL=ARGS... "
		    "-- SERVER [ARG...]\n");
		return 1;
	}
	for (first = 2; first < argc && strcmp(argv[first], "--") != 0;
	    first++)
		;
	if (first >= argc - 1 || pipe(to) == -1 || pipe(from) == -1 ||
	    (pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execvp(argv[first + 1], argv + first + 1);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	bt_to = fdopen(to[1], "w");
	bt_from = fdopen(from[0], "r");
	bt_line = malloc(BT_MAX_LINE);
	t = calloc((size_t)n, sizeof(*t));
	if (bt_to == NULL || bt_from == NULL || bt_line == NULL || t == NULL)
		return 1;
	if (bt_rpc("initialize", "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"bench-tools\","
	    "\"version\":\"1\"}}") < 0)
		return 1;
	fprintf(bt_to, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}\n");
	fflush(bt_to);
	for (k = 2; k < first; k++) {
		if ((spec = strdup(argv[k])) == NULL)
			return 1;
		if ((tool = strchr(spec, '=')) == NULL ||
		    (args = strchr(tool + 1, '=')) == NULL) {
			fprintf(stderr, "bench-tools: bad spec %s\n", argv[k]);
			return 1;
		}
		*tool++ = '\0';
		*args++ = '\0';
		plen = snprintf(NULL, 0, BT_PARAMS, tool, args);
		if (plen < 0 || (params = malloc((size_t)plen + 1)) == NULL)
			return 1;
		snprintf(params, (size_t)plen + 1, BT_PARAMS, tool, args);
		if (bt_rpc("tools/call", params) < 0)	/* warm-up */
			return 1;
		c0 = bt_cpu(pid);
		for (i = 0; i < n; i++) {
			t0 = bt_now();
			if ((len = bt_rpc("tools/call", params)) < 0)
				return 1;
			t[i] = bt_now() - t0;
		}
		c1 = bt_cpu(pid);
		err = strstr(bt_line, "\"isError\":true") != NULL;
		qsort(t, (size_t)n, sizeof(*t), bt_cmp);
		printf("%-20s p50 %9.0f us  p90 %9.0f us  cpu %8.0f us/call  "
		    "bytes %6ld  error %d\n", spec, t[n / 2], t[(n * 9) / 10],
		    c0 < 0 || c1 < 0 ? -1.0 : (c1 - c0) / n, len, err);
		fflush(stdout);
		free(params);
		free(spec);
	}
	fclose(bt_to);
	fclose(bt_from);
	waitpid(pid, NULL, 0);
	free(t);
	free(bt_line);
	return 0;
}

/*
 * bench-tools.c - time tools/call round trips over stdio against one warm
 * dbprint-serve, for the list_tables / search_columns / resolve_value
 * section of `make bench`.
 *
 *	bench-tools REPEAT LABEL=TOOL=ARGS... -- SERVER [ARG...]
 *	bench-tools --evict <PATHS
 *
 * Starts SERVER with its stdin and stdout on pipes, sends initialize and
 * notifications/initialized, then for each LABEL=TOOL=ARGS (ARGS a JSON
 * object) one untimed warm-up call and REPEAT timed calls, each awaited
 * before the next.  Prints, after the first label's warm-up call (the
 * first answer of a tool after start):
 *
 *	LABEL first answer <us> us after start  cpu <us> us
 *
 * then, after a pause (a client's) that lasts until the server's idle
 * steps, which watch the print's directories, are done:
 *
 *	server idle steps done <us> us after it
 *
 * one line per label:
 *
 *	LABEL p50 <us> us  p90 <us> us  cpu <us>/call  bytes <n>  error <0|1>
 *
 * and last the server's peak resident set:
 *
 *	server peak rss <kb> KB
 *
 * cpu is the server's own CPU time (the nanoseconds each of its threads
 * ran, from /proc/PID/task/TID/schedstat; else user + system ticks of
 * /proc/PID/stat), which a loaded machine does not inflate the way it
 * does the wall clock; error is 1 when the last reply carried
 * "isError":true.  Standalone (C11 and POSIX only, reading Linux's /proc
 * when it is there), built by tests/bench-tools.sh.  Exit 0, or 1 on a
 * usage or I/O error.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime, fdopen, strdup */

#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BT_MAX_LINE	(64L * 1024 * 1024)	/* longest response line */
#define BT_PARAMS	"{\"name\":\"%s\",\"arguments\":%s}"
/* After each warm-up call: a pause while the server keeps running (its
 * CPU time grows by a 100th of the wall time or more), checked every
 * BT_SETTLE_US, at most BT_SETTLE_MAX times; BT_SETTLE_QUIET quiet checks
 * in a row end it. */
#define BT_SETTLE_US	100000
#define BT_SETTLE_MAX	100
#define BT_SETTLE_QUIET	3	/* quiet checks in a row that end it */

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

/* The server's CPU time so far in microseconds: the nanoseconds on CPU of
 * each of its threads (/proc/PID/task/TID/schedstat, field 1), else
 * utime + stime of /proc/PID/stat in clock ticks; -1 when unreadable. */
static double
bt_cpu(pid_t pid)
{
	char path[320], buf[1024], *p;
	unsigned long long ns, sum = 0;
	unsigned long ut, st;
	struct dirent *de;
	FILE *f;
	DIR *d;
	size_t n;
	int any = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path),
			    "/proc/%ld/task/%s/schedstat",
			    (long)pid, de->d_name);
			if ((f = fopen(path, "r")) == NULL)
				continue;
			if (fscanf(f, "%llu", &ns) == 1) {
				sum += ns;
				any = 1;
			}
			fclose(f);
		}
		closedir(d);
		if (any)
			return (double)sum / 1e3;
	}
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

/* The server's peak resident set (VmHWM of /proc/PID/status) in KB, or
 * -1 when unreadable. */
static long
bt_rss(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* --evict: drop the page cache of every file named on stdin, one path a
 * line (posix_fadvise DONTNEED; dirty pages are written first).  The
 * files' inodes and directory entries stay cached: a cold start of our
 * own files, not of the machine.  Exit 0, or 1 when a file could not be
 * opened. */
static int
bt_evict(void)
{
	char path[4096];
	size_t n;
	int fd, r = 0;

	while (fgets(path, sizeof(path), stdin) != NULL) {
		n = strlen(path);
		if (n > 0 && path[n - 1] == '\n')
			path[--n] = '\0';
		if (n == 0)
			continue;
		if ((fd = open(path, O_RDONLY)) == -1) {
			r = 1;
			continue;
		}
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	return r;
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
	int to[2], from[2], i, k, n, first, err, plen, quiet;
	char *spec, *tool, *args, *params;
	double *t, t0, c0, c1, start;
	struct timespec settle = { 0, BT_SETTLE_US * 1000L };
	long len = 0;
	pid_t pid;

	if (argc >= 2 && strcmp(argv[1], "--evict") == 0)
		return bt_evict();
	if (argc < 4 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: bench-tools REPEAT LABEL=TOOL=ARGS... "
		    "-- SERVER [ARG...]\n");
		return 1;
	}
	for (first = 2; first < argc && strcmp(argv[first], "--") != 0;
	    first++)
		;
	start = bt_now();
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
		if (k == 2) {
			c0 = bt_cpu(pid);
			printf("%-20s first answer %9.0f us after start  cpu "
			    "%8.0f us\n", spec, bt_now() - start, c0);
			fflush(stdout);
		}
		/* a client's pause: the server's idle steps watch the
		 * directories of what the warm-up read (the first call of a
		 * tool reading more files than those before it starts them
		 * again), until it runs no more (at most BT_SETTLE_MAX
		 * steps); so the loop below counts the calls' CPU alone */
		t0 = bt_now();
		for (i = 0, quiet = 0; i < BT_SETTLE_MAX &&
		    quiet < BT_SETTLE_QUIET; i++) {
			c0 = bt_cpu(pid);
			nanosleep(&settle, NULL);
			if (bt_cpu(pid) - c0 < BT_SETTLE_US / 100)
				quiet++;
			else
				quiet = 0;
		}
		if (k == 2)
			printf("%-20s idle steps done %9.0f us after it\n",
			    "server", bt_now() - t0 - BT_SETTLE_QUIET *
			    BT_SETTLE_US);
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
	printf("%-20s peak rss %ld KB\n", "server", bt_rss(pid));
	fclose(bt_to);
	fclose(bt_from);
	waitpid(pid, NULL, 0);
	free(t);
	free(bt_line);
	return 0;
}

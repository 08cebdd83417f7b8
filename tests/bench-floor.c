/*
 * bench-floor.c - the floor of a full build, for `make bench` (issue 20):
 * every YAML file of a print read and run through libyaml's event parser
 * on two threads, and nothing else (no tree, no index).
 *
 *	bench-floor DIR [THREADS]
 *
 * Walks DIR for files named *.yaml, deals them out to THREADS threads
 * (default 2) in turn, and prints one line:
 *
 *	files N bytes B wall W cpu C user U sys S
 *
 * wall the seconds from the first read to the last parse, C = U + S the
 * process's CPU seconds.  Exits 1 when a file cannot be read or parsed.
 */
#define _XOPEN_SOURCE	700

#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <yaml.h>

#define FLOOR_MAX_THREADS	16

static char	**paths;
static size_t	  npaths, cappaths;

struct floor_job {
	pthread_t	 th;
	size_t		 first, step;
	long long	 bytes;
	int		 failed;
};

/* nftw callback: keep the path of each regular file named *.yaml. */
static int
floor_collect(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	size_t n = strlen(path);
	char **np;

	(void)sb;
	(void)ftw;
	if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".yaml") != 0)
		return 0;
	if (npaths == cappaths) {
		cappaths = cappaths ? cappaths * 2 : 1024;
		if ((np = realloc(paths, cappaths * sizeof(*np))) == NULL)
			return -1;
		paths = np;
	}
	if ((paths[npaths] = strdup(path)) == NULL)
		return -1;
	npaths++;
	return 0;
}

/* Read path whole into *buf (grown as needed; the caller frees); its
 * length, or -1. */
static long
floor_read(const char *path, char **buf, size_t *cap)
{
	struct stat sb;
	size_t len = 0;
	ssize_t k;
	char *nb;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return -1;
	if (fstat(fd, &sb) == -1) {
		close(fd);
		return -1;
	}
	if ((size_t)sb.st_size + 1 > *cap) {
		if ((nb = realloc(*buf, (size_t)sb.st_size + 1)) == NULL) {
			close(fd);
			return -1;
		}
		*buf = nb;
		*cap = (size_t)sb.st_size + 1;
	}
	while (len < (size_t)sb.st_size &&
	    (k = read(fd, *buf + len, (size_t)sb.st_size - len)) > 0)
		len += (size_t)k;
	close(fd);
	return (long)len;
}

/* One thread: its share of the files, each parsed to its last event. */
static void *
floor_run(void *arg)
{
	struct floor_job *j = arg;
	yaml_parser_t p;
	yaml_event_t ev;
	char *buf = NULL;
	size_t cap = 0, i;
	long len;
	int end;

	for (i = j->first; i < npaths; i += j->step) {
		if ((len = floor_read(paths[i], &buf, &cap)) == -1) {
			j->failed = 1;
			break;
		}
		j->bytes += len;
		if (!yaml_parser_initialize(&p)) {
			j->failed = 1;
			break;
		}
		yaml_parser_set_input_string(&p, (unsigned char *)buf,
		    (size_t)len);
		for (end = 0; !end;) {
			if (!yaml_parser_parse(&p, &ev)) {
				j->failed = 1;
				break;
			}
			end = ev.type == YAML_STREAM_END_EVENT;
			yaml_event_delete(&ev);
		}
		yaml_parser_delete(&p);
		if (j->failed)
			break;
	}
	free(buf);
	return NULL;
}

static double
floor_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
floor_tv(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int
main(int argc, char **argv)
{
	struct floor_job jobs[FLOOR_MAX_THREADS];
	struct rusage ru;
	long long bytes = 0;
	double t0, wall, u, s;
	int i, nth = 2, failed = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench-floor DIR [THREADS]\n");
		return 2;
	}
	if (argc == 3)
		nth = atoi(argv[2]);
	if (nth < 1 || nth > FLOOR_MAX_THREADS) {
		fprintf(stderr, "bench-floor: THREADS: 1 to %d\n",
		    FLOOR_MAX_THREADS);
		return 2;
	}
	if (nftw(argv[1], floor_collect, 64, FTW_PHYS) != 0) {
		fprintf(stderr, "bench-floor: cannot walk %s\n", argv[1]);
		return 1;
	}
	t0 = floor_now();
	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < nth; i++) {
		jobs[i].first = (size_t)i;
		jobs[i].step = (size_t)nth;
		if (pthread_create(&jobs[i].th, NULL, floor_run, &jobs[i]) != 0) {
			fprintf(stderr, "bench-floor: cannot start a thread\n");
			return 1;
		}
	}
	for (i = 0; i < nth; i++) {
		pthread_join(jobs[i].th, NULL);
		bytes += jobs[i].bytes;
		failed |= jobs[i].failed;
	}
	wall = floor_now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	u = floor_tv(&ru.ru_utime);
	s = floor_tv(&ru.ru_stime);
	printf("files %zu bytes %lld wall %.3f cpu %.2f user %.2f sys %.2f\n",
	    npaths, bytes, wall, u + s, u, s);
	for (i = 0; (size_t)i < npaths; i++)
		free(paths[i]);
	free(paths);
	if (failed) {
		fprintf(stderr, "bench-floor: a file could not be read or "
		    "parsed\n");
		return 1;
	}
	return 0;
}

/*
 * replay.c - a main for a fuzz target without libFuzzer: every argument is
 * a file or a directory (its regular files, in name order) run once
 * through LLVMFuzzerTestOneInput.  Built with gcc and ASan+UBSan by
 * `make check` (tests/cli/t9100-fuzz-replay.sh), so a corpus stays a
 * regression suite on machines without clang.
 *
 *   replay-<target> CORPUS-DIR|FILE...
 *
 * Prints "replayed N inputs" and exits 0; a crash is the sanitizer's.
 * Before exiting it stops the target's threads (fuzz_replay_done(), when
 * the target has one) and frees the fixture server, so valgrind sees a
 * process that owns nothing at exit.
 */
#define _POSIX_C_SOURCE	200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Optional in a target; NULL when it defines none. */
int	LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void	fuzz_replay_done(void) __attribute__((weak));

/* Read path whole (malloc'd into *out, caller frees) and run it. */
static int
replay_file(const char *path)
{
	FILE *f;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	/* An exact-size copy so ASan sees reads past the input's end. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (exact == NULL)
			abort();
		memcpy(exact, buf, len);
		free(buf);
		if (getenv("REPLAY_VERBOSE") != NULL)
			fprintf(stderr, "replay: %s\n", path);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int
replay_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every regular file of dir in name order; the count into *n. */
static int
replay_dir(const char *dir, size_t *count)
{
	DIR *dp;
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	struct stat st;
	int rc = 0;

	if ((dp = opendir(dir)) == NULL) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(dp)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (names == NULL)
				abort();
		}
		if ((names[n++] = strdup(e->d_name)) == NULL)
			abort();
	}
	closedir(dp);
	if (n > 0)
		qsort(names, n, sizeof(*names), replay_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) != 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat st;
	size_t count = 0;
	int i, rc = 0;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count) != 0)
				rc = 1;
		} else if (replay_file(argv[i]) != 0)
			rc = 1;
		else
			count++;
	}
	if (fuzz_replay_done != NULL)
		fuzz_replay_done();
	fuzz_srv_release();
	printf("replayed %zu inputs\n", count);
	return rc;
}

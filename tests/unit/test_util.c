/*
 * test_util.c - dbp_sort_strs: the same order as qsort with strcmp, on
 * lists nearly in order (where it sorts by insertion), on lists it does
 * not suit (reversed, shuffled: qsort takes over), and on duplicates.
 * dbp_read_known: the bytes of the file an lstat saw, and 1 (never a
 * wait, never a symlink followed) for anything else found there.
 * dbp_buf_addc: its fast path keeps the buffer's bound and growth.
 * dbp_claims: every index run once, whoever claims it; a stop joins.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dbprint.h"

#define NPATHS	3000

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort v[0..n) both ways and compare. */
static void
check_sorts(char **v, size_t n)
{
	char **want = malloc((n + 1) * sizeof(*want));
	size_t i;

	assert_non_null(want);
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), cmp);
	dbp_sort_strs(v, n);
	for (i = 0; i < n; i++)
		assert_string_equal(want[i], v[i]);
	free(want);
}

/* The paths of a print's statistics and annotations files as the
 * server's set lists them: table by table, each table's two files in
 * kind order (statistics.yaml before statistics.annotations.yaml, so
 * every pair is out of order). */
static char **
paths(size_t n, char *buf, size_t bufsize)
{
	char **v = calloc(n + 1, sizeof(*v));
	size_t i, off = 0;
	int w;

	assert_non_null(v);
	for (i = 0; i < n; i++) {
		w = snprintf(buf + off, bufsize - off, "gen/s%03zu/t%05zu/%s",
		    i / 200, i / 2, i % 2 == 0 ? "statistics.yaml" :
		    "statistics.annotations.yaml");
		assert_true(w > 0 && (size_t)w < bufsize - off);
		v[i] = buf + off;
		off += (size_t)w + 1;
	}
	return v;
}

static void
test_nearly_sorted(void **state)
{
	static char buf[NPATHS * 64];
	char **v = paths(NPATHS, buf, sizeof(buf));

	(void)state;
	check_sorts(v, NPATHS);
	free(v);
}

static void
test_reversed(void **state)
{
	static char buf[NPATHS * 64];
	char **v = paths(NPATHS, buf, sizeof(buf)), *x;
	size_t i;

	(void)state;
	for (i = 0; i < NPATHS / 2; i++) {
		x = v[i];
		v[i] = v[NPATHS - 1 - i];
		v[NPATHS - 1 - i] = x;
	}
	check_sorts(v, NPATHS);
	free(v);
}

static void
test_shuffled(void **state)
{
	static char buf[NPATHS * 64];
	char **v = paths(NPATHS, buf, sizeof(buf)), *x;
	unsigned long seed = 12345;
	size_t i, j;

	(void)state;
	for (i = NPATHS - 1; i > 0; i--) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		j = (size_t)(seed >> 33) % (i + 1);
		x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
	check_sorts(v, NPATHS);
	free(v);
}

/* One string far out of place: moved by insertion, the rest in order. */
static void
test_one_far(void **state)
{
	static char buf[NPATHS * 64];
	char **v = paths(NPATHS, buf, sizeof(buf)), *x;

	(void)state;
	x = v[0];
	memmove(v, v + 1, (NPATHS - 1) * sizeof(*v));
	v[NPATHS - 1] = x;
	check_sorts(v, NPATHS);
	free(v);
}

static void
test_small_and_duplicates(void **state)
{
	char a[] = "b", b[] = "a", c[] = "b", d[] = "", e[] = "a/b";
	char *v[] = { a, b, c, d, e, b };

	(void)state;
	dbp_sort_strs(v, 0);
	dbp_sort_strs(v, 1);
	assert_ptr_equal(v[0], a);
	check_sorts(v, sizeof(v) / sizeof(v[0]));
	assert_string_equal(v[0], "");
	assert_string_equal(v[5], "b");
}

/* A scratch directory (malloc'd path) and a descriptor on it. */
static char *
scratch(int *fd)
{
	char tmpl[] = "/tmp/test_util.XXXXXX", *dir;

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(dir = strdup(tmpl));
	assert_true((*fd = open(dir, O_RDONLY | O_DIRECTORY)) >= 0);
	return dir;
}

static void
put(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void
test_read_known(void **state)
{
	static const char text[] = "columns:\n  id: {}\n";
	char *dir, *buf = NULL;
	size_t n = strlen(text);
	int dfd;

	(void)state;
	dir = scratch(&dfd);
	put(dfd, "s.yaml", text);
	put(dfd, "empty.yaml", "");
	assert_int_equal(mkdirat(dfd, "sub", 0755), 0);
	put(dfd, "sub/f.yaml", text);
	assert_int_equal(symlinkat("s.yaml", dfd, "link.yaml"), 0);
	assert_int_equal(mkfifoat(dfd, "fifo.yaml", 0644), 0);

	/* the file as seen: its bytes, NUL-terminated */
	assert_int_equal(dbp_read_known(dfd, "s.yaml", n, &buf), 0);
	assert_non_null(buf);
	assert_memory_equal(buf, text, n + 1);
	free(buf);
	assert_int_equal(dbp_read_known(dfd, "sub/f.yaml", n, &buf), 0);
	assert_string_equal(buf, text);
	free(buf);
	assert_int_equal(dbp_read_known(dfd, "empty.yaml", 0, &buf), 0);
	assert_string_equal(buf, "");
	free(buf);

	/* grown or shrunk since the lstat: not that file */
	assert_int_equal(dbp_read_known(dfd, "s.yaml", n - 1, &buf), 1);
	assert_null(buf);
	assert_int_equal(dbp_read_known(dfd, "s.yaml", n + 1, &buf), 1);
	assert_null(buf);
	/* a symlink is not followed, a FIFO opens without a writer and
	 * reads nothing, without waiting; a directory, or nothing there */
	assert_int_equal(dbp_read_known(dfd, "link.yaml", n, &buf), 1);
	assert_null(buf);
	assert_int_equal(dbp_read_known(dfd, "fifo.yaml", n, &buf), 1);
	assert_null(buf);
	assert_int_equal(dbp_read_known(dfd, "sub", 0, &buf), 1);
	assert_null(buf);
	assert_int_equal(dbp_read_known(dfd, "gone.yaml", n, &buf), 1);
	assert_null(buf);
	assert_int_equal(dbp_read_known(dfd, "s.yaml", SIZE_MAX, &buf), 1);
	assert_null(buf);

	/* the careful read refuses a FIFO at once, too, never waiting
	 * for a writer (alarm: a wait fails the test, not hangs it) */
	{
		struct dbp_diag d;
		char path[512];
		size_t len;

		snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
		alarm(30);
		assert_int_equal(dbp_read_file(path, 1024, &buf, &len, NULL,
		    &d), -1);
		alarm(0);
		assert_null(buf);
		assert_non_null(strstr(d.msg, "not a regular file"));
		snprintf(path, sizeof(path), "%s/s.yaml", dir);
		assert_int_equal(dbp_read_file(path, 1024, &buf, &len, NULL,
		    &d), 0);
		assert_int_equal(len, n);
		assert_string_equal(buf, text);
		free(buf);
	}

	unlinkat(dfd, "sub/f.yaml", 0);
	unlinkat(dfd, "sub", AT_REMOVEDIR);
	unlinkat(dfd, "s.yaml", 0);
	unlinkat(dfd, "empty.yaml", 0);
	unlinkat(dfd, "link.yaml", 0);
	unlinkat(dfd, "fifo.yaml", 0);
	close(dfd);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

static void
test_buf_addc(void **state)
{
	struct dbp_buf b;
	size_t i;

	(void)state;
	/* across several growths, NUL-terminated all the way */
	dbp_buf_init(&b, 1000);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(dbp_buf_addc(&b, (char)('a' + i % 26)), 0);
		assert_int_equal(b.len, i + 1);
		assert_int_equal(b.ptr[b.len], '\0');
		assert_true(b.len < b.cap);
	}
	assert_int_equal(b.ptr[999], (char)('a' + 999 % 26));
	/* the bound: the 1001st byte fails, and the failure sticks */
	assert_int_equal(dbp_buf_addc(&b, 'x'), -1);
	assert_int_equal(b.failed, 1);
	assert_int_equal(b.len, 1000);
	dbp_buf_release(&b);
	dbp_buf_init(&b, 8);
	assert_int_equal(dbp_buf_adds(&b, "abcdefg"), 0);
	assert_int_equal(dbp_buf_addc(&b, 'h'), 0);
	assert_int_equal(dbp_buf_addc(&b, 'i'), -1);
	assert_int_equal(dbp_buf_addc(&b, 'j'), -1);
	assert_string_equal(b.ptr, "abcdefgh");
	dbp_buf_release(&b);
}

#define CL_N	10007

static void
cl_count(void *arg, size_t lo, size_t hi)
{
	unsigned char *seen = arg;
	size_t i;

	assert_true(lo < hi && hi <= CL_N);
	for (i = lo; i < hi; i++)
		seen[i]++;
}

static void
test_claims(void **state)
{
	static unsigned char seen[CL_N];
	struct dbp_claims cl;
	size_t i, steps[] = { 1, 7, 512, CL_N, CL_N * 2 };
	size_t k, done;

	(void)state;
	for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		memset(seen, 0, sizeof(seen));
		dbp_claims_begin(&cl, CL_N, steps[k], 0, cl_count, seen);
		dbp_claims_end(&cl);
		assert_int_equal(cl.nth, 0);
		for (i = 0; i < CL_N; i++)
			assert_int_equal(seen[i], 1);
	}
	/* under min: no helper, the caller does it all */
	memset(seen, 0, sizeof(seen));
	dbp_claims_begin(&cl, CL_N, 64, CL_N + 1, cl_count, seen);
	assert_int_equal(cl.nth, 0);
	dbp_claims_end(&cl);
	for (i = 0; i < CL_N; i++)
		assert_int_equal(seen[i], 1);
	/* stopped: each index run at most once, and nothing after the join */
	memset(seen, 0, sizeof(seen));
	dbp_claims_begin(&cl, CL_N, 1, 0, cl_count, seen);
	dbp_claims_stop(&cl);
	assert_int_equal(cl.nth, 0);
	for (i = 0, done = 0; i < CL_N; i++) {
		assert_true(seen[i] <= 1);
		done += seen[i];
	}
	dbp_claims_end(&cl);	/* nothing is left to claim */
	for (i = 0, k = 0; i < CL_N; i++)
		k += seen[i];
	assert_int_equal(k, done);
	/* nothing to do */
	dbp_claims_begin(&cl, 0, 8, 0, cl_count, seen);
	dbp_claims_end(&cl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearly_sorted),
		cmocka_unit_test(test_reversed),
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_one_far),
		cmocka_unit_test(test_small_and_duplicates),
		cmocka_unit_test(test_read_known),
		cmocka_unit_test(test_buf_addc),
		cmocka_unit_test(test_claims),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

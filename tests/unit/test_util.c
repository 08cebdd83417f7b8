/*
 * test_util.c - dbp_sort_strs: the same order as qsort with strcmp, on
 * lists nearly in order (where it sorts by insertion), on lists it does
 * not suit (reversed, shuffled: qsort takes over), and on duplicates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearly_sorted),
		cmocka_unit_test(test_reversed),
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_one_far),
		cmocka_unit_test(test_small_and_duplicates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

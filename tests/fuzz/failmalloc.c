/*
 * failmalloc.c - allocation-failure injection for the torture tests
 * (tests/cli/t9300-failmalloc.sh), linked into a program with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,
 *   --wrap=strndup
 * so every allocation our code (and cJSON, through its hooks) makes comes
 * here.  With DBP_FAIL_ALLOC=N the N-th allocation and every later one
 * fails (as a process out of memory would see it); with DBP_FAIL_ALLOC=0 or
 * unset none fails.  DBP_FAIL_ALLOC_COUNT=1 prints "allocations: K" to
 * stderr at exit, the K a torture run iterates up to.  SQLite and libyaml
 * allocate on their own and are not failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void	*__real_malloc(size_t);
void	*__real_calloc(size_t, size_t);
void	*__real_realloc(void *, size_t);
char	*__real_strdup(const char *);
char	*__real_strndup(const char *, size_t);
void	*__wrap_malloc(size_t);
void	*__wrap_calloc(size_t, size_t);
void	*__wrap_realloc(void *, size_t);
char	*__wrap_strdup(const char *);
char	*__wrap_strndup(const char *, size_t);

static unsigned long fm_count;	/* allocations so far */
static unsigned long fm_fail_at;	/* 0: never */

/* 1 when this allocation is to fail. */
static int
fm_fail(void)
{
	fm_count++;
	return fm_fail_at != 0 && fm_count >= fm_fail_at;
}

void *
__wrap_malloc(size_t n)
{
	return fm_fail() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t a, size_t b)
{
	return fm_fail() ? NULL : __real_calloc(a, b);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return fm_fail() ? NULL : __real_realloc(p, n);
}

char *
__wrap_strdup(const char *s)
{
	return fm_fail() ? NULL : __real_strdup(s);
}

char *
__wrap_strndup(const char *s, size_t n)
{
	return fm_fail() ? NULL : __real_strndup(s, n);
}

static void
fm_report(void)
{
	fprintf(stderr, "allocations: %lu\n", fm_count);
}

/* Read the environment and route cJSON's allocations here too. */
__attribute__((constructor)) static void
fm_init(void)
{
	cJSON_Hooks h;
	const char *e;

	if ((e = getenv("DBP_FAIL_ALLOC")) != NULL)
		fm_fail_at = strtoul(e, NULL, 10);
	if ((e = getenv("DBP_FAIL_ALLOC_COUNT")) != NULL && *e == '1')
		atexit(fm_report);
	h.malloc_fn = __wrap_malloc;
	h.free_fn = free;
	cJSON_InitHooks(&h);
}

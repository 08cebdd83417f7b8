/*
 * test_fnmatch.c - dbp_fnmatch against Python's fnmatch.fnmatchcase.
 *
 * Each row is (pattern, name, what fnmatchcase(name, pattern) returns in
 * Python 3.11/3.12), written down as the specification: stars crossing
 * '.' and '/', '?' as one code point, sets with ranges and negation, the
 * literal ']' and '[' cases, no escaping, reversed ranges dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "dbprint.h"

static const struct {
	const char	*pat;
	const char	*name;
	int		 want;
} rows[] = {
	{ "*", "", 1 },
	{ "*", "anything.at/all", 1 },
	{ "*", "a\nb", 1 },
	{ "?", "\xc3\xa9" "", 1 },
	{ "?", "", 0 },
	{ "??", "\xc3\xa9" "", 0 },
	{ "a?c", "abc", 1 },
	{ "a?c", "a/c", 1 },
	{ "orders", "orders", 1 },
	{ "orders", "Orders", 0 },
	{ "ord*", "orders", 1 },
	{ "*ers", "orders", 1 },
	{ "o*d*s", "orders", 1 },
	{ "o*x*s", "orders", 0 },
	{ "public.*", "public.orders", 1 },
	{ "*.orders", "sales.orders", 1 },
	{ "*_log", "audit_log", 1 },
	{ "*_log", "audit_logs", 0 },
	{ "[abc]x", "bx", 1 },
	{ "[abc]x", "dx", 0 },
	{ "[!abc]x", "dx", 1 },
	{ "[!abc]x", "ax", 0 },
	{ "[a-c]", "b", 1 },
	{ "[a-c]", "d", 0 },
	{ "[!a-c]", "d", 1 },
	{ "[]]", "]", 1 },
	{ "[!]]", "a", 1 },
	{ "[!]]", "]", 0 },
	{ "[]a]", "a", 1 },
	{ "[", "[", 1 },
	{ "[a", "[a", 1 },
	{ "a[", "a[", 1 },
	{ "[!", "[!", 1 },
	{ "[]", "[]", 1 },
	{ "\\", "\\", 1 },
	{ "\\*", "\\x", 1 },
	{ "[\\]", "\\", 1 },
	{ "[z-a]", "m", 0 },
	{ "[z-a]", "z", 0 },
	{ "[!z-a]", "m", 1 },
	{ "[a-]", "-", 1 },
	{ "[-a]", "-", 1 },
	{ "[!-a]", "b", 1 },
	{ "[c-a!x]", "x", 0 },
	{ "[c-a!x]", "y", 1 },
	{ "[c-ab-z]", "b", 1 },
	{ "[c-ab-z]", "a", 0 },
	{ "[\xc3\xa9" "-\xc3\xab" "]", "\xc3\xaa" "", 1 },
	{ "[!\xc3\xa9" "]", "e", 1 },
	{ "*.[ch]", "x.c", 1 },
	{ "*.[ch]", "x.o", 0 },
	{ "[a-cx-z]", "y", 1 },
	{ "[a-cx-z]", "m", 0 },
	{ "a*b*c*d", "aXbXcXd", 1 },
	{ "a*b*c*d", "abcdx", 0 },
	{ "**", "x", 1 },
	{ "*?", "", 0 },
	{ "*?*", "a", 1 },
	{ "[^a]", "^", 1 },
	{ "[^a]", "b", 0 },
	{ "[&&]", "&", 1 },
	{ "[a-c-e]", "-", 1 },
	{ "[a-c-e]", "d", 0 },
	{ "[a-c-e]", "e", 1 },
	{ "", "", 1 },
	{ "", "a", 0 },
	{ "a", "", 0 },
	{ "*a", "a", 1 },
	{ "a*", "a", 1 },
	{ "*a*", "bab", 1 },
	{ "[!a]", "\xc3\xa9" "", 1 },
	{ "ord?rs", "ord\xc3\xa9" "rs", 1 },
};

static void
test_python_rows(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (dbp_fnmatch(rows[i].pat, rows[i].name) != rows[i].want)
			fail_msg("fnmatchcase(%s, %s) should be %d",
			    rows[i].name, rows[i].pat, rows[i].want);
	}
}

static void
test_case_sensitive(void **state)
{
	(void)state;
	assert_int_equal(dbp_fnmatch("ORDERS", "orders"), 0);
	assert_int_equal(dbp_fnmatch("[A-Z]*", "orders"), 0);
	assert_int_equal(dbp_fnmatch("[A-Z]*", "Orders"), 1);
}

static void
test_invalid_utf8(void **state)
{
	(void)state;
	/* A bad byte is one character, equal only to itself. */
	assert_int_equal(dbp_fnmatch("?", "\xff"), 1);
	assert_int_equal(dbp_fnmatch("??", "\xff"), 0);
	assert_int_equal(dbp_fnmatch("a\xff", "a\xff"), 1);
	assert_int_equal(dbp_fnmatch("a\xfe", "a\xff"), 0);
	assert_int_equal(dbp_fnmatch("[\xff]", "\xff"), 1);
	assert_int_equal(dbp_fnmatch("*", "\xc3"), 1);
	assert_int_equal(dbp_fnmatch("\xc3", "\xc3\xa9"), 0);
}

static void
test_hostile(void **state)
{
	char *pat, *name;
	size_t i, n = 4000;
	clock_t t0;

	(void)state;
	/* "*a*a*a...*b" against "aaaa...": exponential for a naive
	 * backtracker, quadratic at worst here. */
	pat = malloc(2 * n + 2);
	name = malloc(n + 1);
	assert_non_null(pat);
	assert_non_null(name);
	for (i = 0; i < n; i++) {
		pat[2 * i] = '*';
		pat[2 * i + 1] = 'a';
		name[i] = 'a';
	}
	pat[2 * n - 1] = 'b';
	pat[2 * n] = '\0';
	name[n] = '\0';
	t0 = clock();
	assert_int_equal(dbp_fnmatch(pat, name), 0);
	pat[2 * n - 1] = 'a';
	assert_int_equal(dbp_fnmatch(pat, name), 1);
	/* A long run of sets and stars: "[a]*[a]*...[a]*" matches, and
	 * fails with a 'b' for the last star. */
	for (i = 0; i + 3 < 2 * n; i += 4)
		memcpy(pat + i, "[a]*", 4);
	assert_int_equal(dbp_fnmatch(pat, name), 1);
	pat[2 * n - 1] = 'b';
	assert_int_equal(dbp_fnmatch(pat, name), 0);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
	free(pat);
	free(name);
}

/* The longest literal run: what every matching name holds as it stands. */
static void
test_literal(void **state)
{
	static const struct { const char *pat, *run; } lit[] = {
		{ "orders", "orders" },
		{ "*refund*", "refund" },
		{ "c0*_id", "_id" },
		{ "ab?cde*f", "cde" },
		/* a set is not literal, however long */
		{ "x[abcdef]yz", "yz" },
		{ "[!abcd]xy", "xy" },
		{ "[]abcd]q", "q" },
		/* an unclosed '[' is a literal '[' but ends the run */
		{ "ab[cdef", "cdef" },
		/* ']' alone is a literal */
		{ "a]bc*", "a]bc" },
		/* runs stop at newlines and non-ASCII bytes */
		{ "caf\xc3\xa9_name", "_name" },
		{ "abcd\nxy", "abcd" },
		{ "*?[a]", "" },
		{ "", "" },
	};
	const char *at;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		n = dbp_fnmatch_literal(lit[i].pat, &at);
		if (n != strlen(lit[i].run) ||
		    strncmp(at, lit[i].run, n) != 0)
			fail_msg("%s: got \"%.*s\", want \"%s\"",
			    lit[i].pat, (int)n, at, lit[i].run);
	}
}

/* Random patterns and names: whenever a name matches, it holds the
 * pattern's literal run. */
static void
test_literal_random(void **state)
{
	static const char alpha[] = "abAB*?[]!-\n";
	char pat[12], name[10], run[16];
	const char *at, *hit;
	unsigned seed = 12345;
	size_t i, n, np, nn;
	long matches = 0, tried;

	(void)state;
	for (tried = 0; tried < 400000; tried++) {
		seed = seed * 1103515245u + 12345u;
		np = 1 + (seed >> 16) % (sizeof(pat) - 1);
		for (i = 0; i < np; i++) {
			seed = seed * 1103515245u + 12345u;
			pat[i] = alpha[(seed >> 16) % (sizeof(alpha) - 1)];
		}
		pat[np] = '\0';
		seed = seed * 1103515245u + 12345u;
		nn = (seed >> 16) % sizeof(name);
		for (i = 0; i < nn; i++) {
			seed = seed * 1103515245u + 12345u;
			name[i] = alpha[(seed >> 16) % 4 + ((seed >> 20) % 3 ==
			    0 ? 6 : 0)];
		}
		name[nn] = '\0';
		if (!dbp_fnmatch(pat, name))
			continue;
		matches++;
		n = dbp_fnmatch_literal(pat, &at);
		memcpy(run, at, n);
		run[n] = '\0';
		hit = strstr(name, run);
		if (hit == NULL)
			fail_msg("\"%s\" matches \"%s\" but lacks \"%s\"",
			    name, pat, run);
	}
	/* the property was tested, not vacuously true */
	assert_true(matches > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python_rows),
		cmocka_unit_test(test_case_sensitive),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_literal),
		cmocka_unit_test(test_literal_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

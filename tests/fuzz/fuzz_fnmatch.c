/*
 * fuzz_fnmatch.c - fuzz target: dbp_fnmatch (Python fnmatchcase) with the
 * pattern and the name split from the input at its first NUL byte (no NUL:
 * the first half is the pattern).  Checks three invariants besides not
 * crashing: a pattern without metacharacters matches exactly itself, "*"
 * matches everything, and a name the pattern matches holds the pattern's
 * literal run (dbp_fnmatch_literal, which narrows search_columns).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	const char *lit;
	char *pat, *name, *run;
	size_t plen, nlit;
	int m;

	nul = memchr(data, '\0', size);
	if (nul != NULL) {
		plen = (size_t)(nul - data);
		pat = fuzz_strndup(data, plen);
		name = fuzz_strndup(nul + 1, size - plen - 1);
	} else {
		plen = size / 2;
		pat = fuzz_strndup(data, plen);
		name = fuzz_strndup(data + plen, size - plen);
	}
	m = dbp_fnmatch(pat, name);
	if (m != 0 && m != 1)
		abort();
	if (strpbrk(pat, "*?[") == NULL && m != (strcmp(pat, name) == 0))
		abort();
	if (dbp_fnmatch("*", name) != 1)
		abort();
	nlit = dbp_fnmatch_literal(pat, &lit);
	if (nlit > strlen(pat) || lit < pat || lit + nlit > pat + strlen(pat))
		abort();
	if (m == 1) {
		run = fuzz_strndup((const uint8_t *)lit, nlit);
		if (strstr(name, run) == NULL)
			abort();
		free(run);
	}
	(void)dbp_fnmatch(name, pat);
	free(pat);
	free(name);
	return 0;
}

/*
 * fuzz_fnmatch.c - fuzz target: dbp_fnmatch (Python fnmatchcase) with the
 * pattern and the name split from the input at its first NUL byte (no NUL:
 * the first half is the pattern).  Checks two invariants besides not
 * crashing: a pattern without metacharacters matches exactly itself, and
 * "*" matches everything.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	char *pat, *name;
	size_t plen;
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
	(void)dbp_fnmatch(name, pat);
	free(pat);
	free(name);
	return 0;
}

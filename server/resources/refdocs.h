/*
 * refdocs.h - the reference documents compiled into the binaries from
 * man/reference/<name>.md (spec.md, assertions.md, guide.md).
 */
#ifndef DBPRINT_REFDOCS_H
#define DBPRINT_REFDOCS_H

#include <stddef.h>

struct dbp_refdoc {
	const char	*name;	/* file name without .md: "spec", ... */
	const char	*text;	/* NUL-terminated Markdown */
	size_t		 len;
};

/* Terminated by an entry whose name is NULL. */
extern const struct dbp_refdoc dbp_refdocs[];

#endif /* DBPRINT_REFDOCS_H */

/*
 * reference.h - the reference documents get_reference and the
 * dbprint:///reference/ resources serve: loading them (compiled-in, or
 * from --reference-dir / $DBPRINT_REFERENCE_DIR), and slicing a Markdown
 * document by its headings (spec 4.6).
 *
 * The slicing is pure: it works on a text already in memory, so the unit
 * tests exercise it without a server.
 */
#ifndef DBPRINT_REFERENCE_H
#define DBPRINT_REFERENCE_H

#include <stddef.h>

#include "dbprint.h"

/* The environment variable that names a reference directory when
 * --reference-dir is not given. */
#define REF_DIR_ENV	"DBPRINT_REFERENCE_DIR"

/* One line of a document: a span of the text, without its terminator. */
struct ref_line {
	const char	*p;
	size_t		 len;
};

/* One Markdown heading outside a fenced block. */
struct ref_heading {
	int		 level;		/* 1..6, the number of '#' */
	size_t		 line;		/* index of the heading line */
	size_t		 end;		/* first line past its subtree */
	char		*title;		/* stripped, malloc'd */
	char		*number;	/* "2.2.4", or NULL when unnumbered */
};

/* A document split into lines (as Python's str.splitlines splits) and
 * its headings, in document order.  The lines borrow the text, which
 * must outlive the struct. */
struct ref_doc {
	struct ref_line		*lines;
	size_t			 nlines;
	struct ref_heading	*heads;
	size_t			 nheads;
};

/* Split text[0..len) into lines and find its headings: a line of 1 to 6
 * '#', whitespace, then a title; lines starting with ``` toggle a fence
 * inside which nothing is a heading.  A heading's subtree runs to the next
 * heading of the same or a shallower level.  0, or -1 with d set (out of
 * memory).  Release with ref_doc_release() in either case. */
int	ref_parse(const char *text, size_t len, struct ref_doc *doc,
	    struct dbp_diag *d);
void	ref_doc_release(struct ref_doc *doc);

/* The heading tree: one "- <title>" line per heading, indented two spaces
 * per level below the shallowest, each ending in a newline.  malloc'd
 * (caller frees), NULL on OOM. */
char	*ref_toc(const struct ref_doc *doc);

/* Remove a spec_ref citation prefix ("SPEC.md §", "§ ") and surrounding
 * whitespace from a section argument.  malloc'd, NULL on OOM. */
char	*ref_clean_section(const char *section);

/*
 * The slice for section of document (named docname in errors).  by_title
 * is 0 for spec/assertions (section is a number or a citation; the
 * numbered direct subsections are listed) and 1 for the guide (section is
 * a heading's text, case-insensitive with whitespace collapsed; every
 * direct subheading is listed).  0 with *out the malloc'd Markdown; 1 when
 * no heading matches, with *out the malloc'd error sentence naming the
 * available sections; -1 on OOM (d set).
 */
int	ref_section(const struct ref_doc *doc, const char *docname,
	    const char *section, int by_title, char **out, struct dbp_diag *d);

#endif /* DBPRINT_REFERENCE_H */

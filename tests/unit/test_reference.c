/*
 * test_reference.c - the heading parse, table of contents and section
 * lookup behind get_reference (server/resources/reference.c), and the loading of
 * the compiled-in and directory copies of the documents.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "server.h"
#include "resources/reference.h"

/* A small numbered document: fences, a skipped level, unnumbered
 * subheadings, a trailing-dot number, CRLF and form-feed line breaks. */
static const char numbered[] =
    "# Title\n"
    "\n"
    "Intro.\n"
    "\n"
    "## 1. One\n"
    "\n"
    "One's body.\n"
    "```\n"
    "## 9.9 not a heading inside a fence\n"
    "```\n"
    "### 1.1 First\n"
    "First body.\n"
    "#### Unnumbered child\n"
    "child body\n"
    "### 1.2 Second\r\n"
    "Second body.  \n"
    "\n"
    "## 2. Two\n"
    "#### 2.1 Deep\n"
    "deep\n"
    "## 10 Ten\f"
    "ten body\n"
    "####### seven hashes\n"
    "#nospace\n";

static void
parse(struct ref_doc *doc, const char *text)
{
	struct dbp_diag d;

	assert_int_equal(ref_parse(text, strlen(text), doc, &d), 0);
}

static void
test_headings(void **state)
{
	struct ref_doc doc;

	(void)state;
	parse(&doc, numbered);
	assert_int_equal(doc.nheads, 8);
	assert_string_equal(doc.heads[0].title, "Title");
	assert_null(doc.heads[0].number);
	assert_int_equal(doc.heads[1].level, 2);
	assert_string_equal(doc.heads[1].title, "1. One");
	assert_string_equal(doc.heads[1].number, "1");
	assert_string_equal(doc.heads[2].number, "1.1");
	assert_null(doc.heads[3].number);
	assert_string_equal(doc.heads[4].title, "1.2 Second");
	assert_string_equal(doc.heads[4].number, "1.2");
	assert_string_equal(doc.heads[6].number, "2.1");
	assert_string_equal(doc.heads[7].number, "10");
	/* The fenced "## 9.9" is not a heading; "\f" ended the "## 10"
	 * line; seven '#' and no space are not headings either. */
	assert_string_equal(doc.heads[7].title, "10 Ten");
	ref_doc_release(&doc);
}

static void
test_heading_rules(void **state)
{
	struct ref_doc doc;

	(void)state;
	parse(&doc, "#  \t Spaced title  \n## 2.2.4.x nope\n## 3.\n"
	    "## 4.5. Dotted\n##\n## \n");
	assert_int_equal(doc.nheads, 4);
	assert_string_equal(doc.heads[0].title, "Spaced title");
	assert_null(doc.heads[1].number);
	assert_string_equal(doc.heads[2].number, "3");
	assert_string_equal(doc.heads[3].number, "4.5");
	ref_doc_release(&doc);
}

static void
test_toc(void **state)
{
	struct ref_doc doc;
	char *toc;

	(void)state;
	parse(&doc, numbered);
	toc = ref_toc(&doc);
	assert_string_equal(toc,
	    "- Title\n"
	    "  - 1. One\n"
	    "    - 1.1 First\n"
	    "      - Unnumbered child\n"
	    "    - 1.2 Second\n"
	    "  - 2. Two\n"
	    "      - 2.1 Deep\n"
	    "  - 10 Ten\n");
	free(toc);
	ref_doc_release(&doc);

	parse(&doc, "no headings at all\n");
	toc = ref_toc(&doc);
	assert_string_equal(toc, "\n");
	free(toc);
	ref_doc_release(&doc);
}

static void
test_clean_section(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "2.2.4", "2.2.4" },
		{ "\xc2\xa7" "2.2.4", "2.2.4" },
		{ "\xc2\xa7 2.2.4", "2.2.4" },
		{ "SPEC.md \xc2\xa7" "2.2.4", "2.2.4" },
		{ "ASSERTIONS.md  \xc2\xa7  1.4 ", "1.4" },
		{ " 3 ", "3" },
		{ "a b \xc2\xa7" "1", "a b \xc2\xa7" "1" },
		{ "x\xc2\xa7 \xc2\xa7" "1", "1" },
	};
	size_t i;
	char *r;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = ref_clean_section(cases[i].in);
		assert_non_null(r);
		assert_string_equal(r, cases[i].want);
		free(r);
	}
}

static void
want_section(const struct ref_doc *doc, const char *docname,
    const char *section, int by_title, int rc, const char *want)
{
	struct dbp_diag d;
	char *out = NULL;

	assert_int_equal(ref_section(doc, docname, section, by_title, &out,
	    &d), rc);
	assert_non_null(out);
	assert_string_equal(out, want);
	free(out);
}

static void
test_section_by_number(void **state)
{
	struct ref_doc doc;

	(void)state;
	parse(&doc, numbered);
	/* Body up to the first numbered direct subsection, then the list. */
	want_section(&doc, "spec", "1", 0, 0,
	    "## 1. One\n"
	    "\n"
	    "One's body.\n"
	    "```\n"
	    "## 9.9 not a heading inside a fence\n"
	    "```\n"
	    "\n"
	    "Subsections, each read by its own number:\n"
	    "\n"
	    "- 1.1 First\n"
	    "- 1.2 Second\n");
	/* A leaf keeps its unnumbered subheadings in its own text. */
	want_section(&doc, "spec", "\xc2\xa7" "1.1", 0, 0,
	    "### 1.1 First\nFirst body.\n#### Unnumbered child\n"
	    "child body\n");
	/* Right-stripped, one newline. */
	want_section(&doc, "spec", "SPEC.md \xc2\xa7" "1.2", 0, 0,
	    "### 1.2 Second\nSecond body.\n");
	/* A skipped level is still a direct subsection. */
	want_section(&doc, "spec", "2", 0, 0,
	    "## 2. Two\n\nSubsections, each read by its own number:\n\n"
	    "- 2.1 Deep\n");
	want_section(&doc, "spec", "10", 0, 0, "## 10 Ten\nten body\n"
	    "####### seven hashes\n#nospace\n");
	ref_doc_release(&doc);
}

static void
test_section_not_found(void **state)
{
	struct ref_doc doc;

	(void)state;
	parse(&doc, numbered);
	/* Sorted as Python sorts strings: '10' before '2'. */
	want_section(&doc, "spec", "9.9", 0, 1,
	    "section '9.9' not found in spec. Available: "
	    "['1', '1.1', '1.2', '10', '2', '2.1']");
	/* A trailing dot does not match. */
	want_section(&doc, "assertions", "1.1.", 0, 1,
	    "section '1.1.' not found in assertions. Available: "
	    "['1', '1.1', '1.2', '10', '2', '2.1']");
	/* The argument is quoted as Python's repr quotes it. */
	want_section(&doc, "spec", "it's", 0, 1,
	    "section \"it's\" not found in spec. Available: "
	    "['1', '1.1', '1.2', '10', '2', '2.1']");
	ref_doc_release(&doc);

	parse(&doc, "# No numbers\n");
	want_section(&doc, "spec", "1", 0, 1,
	    "section '1' not found in spec. Available: []");
	ref_doc_release(&doc);
}

static const char guide[] =
    "# Reading a print\n"
    "\n"
    "Lead.\n"
    "\n"
    "## Every   reply\n"
    "\n"
    "About replies.\n"
    "\n"
    "### Paging\n"
    "paging text\n"
    "### Errors\n"
    "error text\n"
    "## Vocabulary\n"
    "words\n";

static void
test_guide(void **state)
{
	struct ref_doc doc;

	(void)state;
	parse(&doc, guide);
	want_section(&doc, "guide", "  every REPLY ", 1, 0,
	    "## Every   reply\n\nAbout replies.\n\n"
	    "Subsections, each read by its own heading:\n\n"
	    "- Paging\n- Errors\n");
	want_section(&doc, "guide", "VOCABULARY", 1, 0,
	    "## Vocabulary\nwords\n");
	want_section(&doc, "guide", "Reading a print", 1, 0,
	    "# Reading a print\n\nLead.\n\n"
	    "Subsections, each read by its own heading:\n\n"
	    "- Every   reply\n- Vocabulary\n");
	want_section(&doc, "guide", "No such heading", 1, 1,
	    "section 'No such heading' not found in guide. Available: "
	    "['Errors', 'Every   reply', 'Paging', 'Reading a print', "
	    "'Vocabulary']");
	ref_doc_release(&doc);
}

/* The compiled-in documents: present, and the sections the tools and the
 * findings cite resolve. */
static void
test_bundled(void **state)
{
	static const char *const cited[] = { "2.2.4", "2.2.8", "2.2.21",
	    "2.5", "2.7.1", "2.7.2", "7.4" };
	struct dbp_diag d;
	struct ref_doc doc;
	const char *text;
	char *owned, *out, *toc;
	size_t len, i;

	(void)state;
	unsetenv(REF_DIR_ENV);
	text = ref_document(NULL, "spec", &len, &owned, &d);
	assert_non_null(text);
	assert_null(owned);
	assert_int_equal(len, strlen(text));
	parse(&doc, text);
	for (i = 0; i < sizeof(cited) / sizeof(cited[0]); i++) {
		assert_int_equal(ref_section(&doc, "spec", cited[i], 0, &out,
		    &d), 0);
		free(out);
	}
	ref_doc_release(&doc);

	text = ref_document(NULL, "guide", &len, &owned, &d);
	assert_non_null(text);
	parse(&doc, text);
	toc = ref_toc(&doc);
	assert_true(strncmp(toc, "- Reading a dbprint print\n", 26) == 0);
	assert_non_null(strstr(toc, "\n  - Vocabulary\n"));
	assert_non_null(strstr(toc, "\n  - Fields that are easy to misread\n"));
	free(toc);
	assert_int_equal(ref_section(&doc, "guide", "vocabulary", 1, &out,
	    &d), 0);
	assert_true(strncmp(out, "## Vocabulary\n", 14) == 0);
	assert_null(strstr(out, "## Fields that are easy to misread"));
	free(out);
	ref_doc_release(&doc);

	text = ref_document(NULL, "assertions", &len, &owned, &d);
	assert_non_null(text);
	parse(&doc, text);
	assert_int_equal(ref_section(&doc, "assertions",
	    "ASSERTIONS.md \xc2\xa7" "1.4", 0, &out, &d), 0);
	assert_true(strncmp(out, "### 1.4 ", 8) == 0);
	free(out);
	ref_doc_release(&doc);

	assert_null(ref_document(NULL, "readme", &len, &owned, &d));
}

/* A reference directory serves its own copies, under either name. */
static void
test_directory(void **state)
{
	char dir[] = "/tmp/test_reference.XXXXXX", path[256];
	struct dbp_diag d;
	struct srv s;
	const char *text;
	char *owned;
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/SPEC.md", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("# Upstream\n## 1. Only\n", f);
	fclose(f);
	memset(&s, 0, sizeof(s));
	s.reference_dir = dir;
	text = ref_document(&s, "spec", &len, &owned, &d);
	assert_non_null(text);
	assert_non_null(owned);
	assert_string_equal(text, "# Upstream\n## 1. Only\n");
	free(owned);
	/* No guide in the directory: an error naming it, not the bundled
	 * copy. */
	assert_null(ref_document(&s, "guide", &len, &owned, &d));
	assert_non_null(strstr(d.msg, "reading_guide.md"));
	/* The environment variable stands in for the option. */
	s.reference_dir = NULL;
	setenv(REF_DIR_ENV, dir, 1);
	text = ref_document(&s, "spec", &len, &owned, &d);
	assert_non_null(text);
	assert_string_equal(text, "# Upstream\n## 1. Only\n");
	free(owned);
	unsetenv(REF_DIR_ENV);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headings),
		cmocka_unit_test(test_heading_rules),
		cmocka_unit_test(test_toc),
		cmocka_unit_test(test_clean_section),
		cmocka_unit_test(test_section_by_number),
		cmocka_unit_test(test_section_not_found),
		cmocka_unit_test(test_guide),
		cmocka_unit_test(test_bundled),
		cmocka_unit_test(test_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

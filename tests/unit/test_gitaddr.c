/*
 * test_gitaddr.c - dbp_gitaddr_parse, the git addresses --project reads:
 * each row is an address and what it must read as (a local path, a git
 * address with its remote, ref and subpath, or refused with a message
 * holding a given phrase), in upstream's order of forms; then the ref
 * rules and the commit-id spelling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote.h"

#define LOCAL	0
#define GIT	1
#define REFUSED	(-1)

static const struct {
	const char	*loc;
	int		 want;
	const char	*url;	/* GIT: the remote; REFUSED: a phrase of d */
	const char	*ref;	/* NULL: the default branch */
	const char	*sub;
} rows[] = {
	/* Local paths, exactly as before. */
	{ "/srv/project", LOCAL, NULL, NULL, NULL },
	{ "project", LOCAL, NULL, NULL, NULL },
	{ "~/work/.dbprint.yaml", LOCAL, NULL, NULL, NULL },
	{ "./a:b", LOCAL, NULL, NULL, NULL },
	{ "me@host:dir", LOCAL, NULL, NULL, NULL },
	{ "git@", LOCAL, NULL, NULL, NULL },
	{ "git@host:", LOCAL, NULL, NULL, NULL },
	{ "git@ho/st:x", LOCAL, NULL, NULL, NULL },
	{ "", LOCAL, NULL, NULL, NULL },

	/* The explicit form, any URL git reads. */
	{ "https://git.example.com/team/prints.git#main", GIT,
	    "https://git.example.com/team/prints.git", "main", "" },
	{ "file:///tmp/r.git#v1.2:warehouse/", GIT, "file:///tmp/r.git",
	    "v1.2", "warehouse" },
	{ "/tmp/r.git#feature/x:a//b/./c/", GIT, "/tmp/r.git", "feature/x",
	    "a/b/c" },
	{ "../r#0123abcd", GIT, "../r", "0123abcd", "" },
	{ "r#main:", GIT, "r", "main", "" },
	{ "r#main:/", GIT, "r", "main", "" },
	{ "r#main:.dbprint.yaml", GIT, "r", "main", ".dbprint.yaml" },
	{ "ssh://git@host:22/x.git#dev:p", GIT, "ssh://git@host:22/x.git",
	    "dev", "p" },
	{ "git@github.com:o/r.git#main:sub", GIT, "git@github.com:o/r.git",
	    "main", "sub" },
	{ "https://github.com/o/r#main:x", GIT, "https://github.com/o/r",
	    "main", "x" },
	{ "#main", REFUSED, "needs a URL", NULL, NULL },
	{ "r#", REFUSED, "needs a ref", NULL, NULL },
	{ "r#:sub", REFUSED, "needs a ref", NULL, NULL },
	{ "-u#main", REFUSED, "may not begin with '-'", NULL, NULL },
	{ "--upload-pack=touch /tmp/x#main", REFUSED,
	    "may not begin with '-'", NULL, NULL },
	{ "r#-main", REFUSED, "may not begin with '-'", NULL, NULL },
	{ "r#--output=/tmp/x", REFUSED, "may not begin with '-'", NULL,
	    NULL },
	{ "r#a..b", REFUSED, "cannot name", NULL, NULL },
	{ "r#a b", REFUSED, "cannot name", NULL, NULL },
	{ "r#main^{tree}", REFUSED, "cannot name", NULL, NULL },
	{ "r#x.lock", REFUSED, "cannot name", NULL, NULL },
	{ "r#main:../etc", REFUSED, "'..'", NULL, NULL },
	{ "r#main:a/../../b", REFUSED, "'..'", NULL, NULL },
	{ "r\n#main", REFUSED, "control", NULL, NULL },

	/* Forge web URLs of a file or a folder. */
	{ "https://github.com/acme/warehouse/blob/main/.dbprint.yaml", GIT,
	    "https://github.com/acme/warehouse.git", "main",
	    ".dbprint.yaml" },
	{ "https://github.com/acme/warehouse/tree/v2/analytics/prints/", GIT,
	    "https://github.com/acme/warehouse.git", "v2",
	    "analytics/prints" },
	{ "https://github.com/acme/warehouse/tree/main", GIT,
	    "https://github.com/acme/warehouse.git", "main", "" },
	{ "https://github.com/acme/warehouse/blob/main/a.yaml?plain=1", GIT,
	    "https://github.com/acme/warehouse.git", "main", "a.yaml" },
	{ "https://gitlab.com/grp/sub/repo/-/blob/dev/x/.dbprint.yaml", GIT,
	    "https://gitlab.com/grp/sub/repo.git", "dev", "x/.dbprint.yaml" },
	{ "https://gitlab.com/grp/repo/-/tree/main", GIT,
	    "https://gitlab.com/grp/repo.git", "main", "" },
	{ "https://bitbucket.org/team/repo/src/abc1234/data", GIT,
	    "https://bitbucket.org/team/repo.git", "abc1234", "data" },
	{ "https://github.com/acme/warehouse/blob/-x/a", REFUSED,
	    "may not begin with '-'", NULL, NULL },
	{ "https://github.com/acme/warehouse/blob/main/../../x", REFUSED,
	    "'..'", NULL, NULL },

	/* Bare remotes: the default branch, the repository root. */
	{ "https://github.com/acme/warehouse", GIT,
	    "https://github.com/acme/warehouse.git", NULL, "" },
	{ "https://github.com/acme/warehouse.git", GIT,
	    "https://github.com/acme/warehouse.git", NULL, "" },
	{ "https://github.com/acme/warehouse/", GIT,
	    "https://github.com/acme/warehouse.git", NULL, "" },
	{ "https://bitbucket.org/team/repo.git", GIT,
	    "https://bitbucket.org/team/repo.git", NULL, "" },
	{ "https://gitlab.com/grp/sub/deeper/repo", GIT,
	    "https://gitlab.com/grp/sub/deeper/repo.git", NULL, "" },
	{ "git@github.com:acme/warehouse.git", GIT,
	    "git@github.com:acme/warehouse.git", NULL, "" },
	{ "git@gitlab.example.org:grp/repo", GIT,
	    "git@gitlab.example.org:grp/repo", NULL, "" },

	/* URLs that are no address this program reads. */
	{ "https://github.com/acme", REFUSED, "not a git address", NULL,
	    NULL },
	{ "https://github.com/acme/warehouse/issues/4", REFUSED,
	    "not a git address", NULL, NULL },
	{ "https://gitlab.com/grp", REFUSED, "not a git address", NULL, NULL },
	{ "https://example.com/x.git", REFUSED, "not a git address", NULL,
	    NULL },
	{ "ssh://host/x.git", REFUSED, "not a git address", NULL, NULL },
	{ "https://", REFUSED, "not a git address", NULL, NULL },
};

static void
test_rows(void **state)
{
	struct dbp_gitaddr a;
	struct dbp_diag d;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		d.msg[0] = '\0';
		rc = dbp_gitaddr_parse(rows[i].loc, &a, &d);
		if (rc != rows[i].want)
			fail_msg("%s: got %d, want %d (%s)", rows[i].loc, rc,
			    rows[i].want, d.msg);
		if (rc == REFUSED && strstr(d.msg, rows[i].url) == NULL)
			fail_msg("%s: message '%s' lacks '%s'", rows[i].loc,
			    d.msg, rows[i].url);
		if (rc == LOCAL)
			assert_null(a.url);
		if (rc != GIT)
			continue;
		assert_string_equal(a.url, rows[i].url);
		if (rows[i].ref == NULL)
			assert_null(a.ref);
		else
			assert_string_equal(a.ref, rows[i].ref);
		assert_string_equal(a.subpath, rows[i].sub);
		dbp_gitaddr_release(&a);
	}
}

static void
test_refs(void **state)
{
	(void)state;
	assert_true(dbp_gitaddr_ref_ok("main"));
	assert_true(dbp_gitaddr_ref_ok("release/2026-12"));
	assert_true(dbp_gitaddr_ref_ok("v1.2.3"));
	assert_false(dbp_gitaddr_ref_ok(""));
	assert_false(dbp_gitaddr_ref_ok("-n"));
	assert_false(dbp_gitaddr_ref_ok("/main"));
	assert_false(dbp_gitaddr_ref_ok("main/"));
	assert_false(dbp_gitaddr_ref_ok("main."));
	assert_false(dbp_gitaddr_ref_ok(".hidden"));
	assert_false(dbp_gitaddr_ref_ok("a/.b"));
	assert_false(dbp_gitaddr_ref_ok("a//b"));
	assert_false(dbp_gitaddr_ref_ok("@"));
	assert_false(dbp_gitaddr_ref_ok("a@{1}"));
	assert_false(dbp_gitaddr_ref_ok("a~1"));
	assert_false(dbp_gitaddr_ref_ok("a?"));
	assert_false(dbp_gitaddr_ref_ok("a*"));
	assert_false(dbp_gitaddr_ref_ok("a[b"));
	assert_false(dbp_gitaddr_ref_ok("a\\b"));
	assert_false(dbp_gitaddr_ref_ok("a\tb"));
	assert_false(dbp_gitaddr_ref_ok("a\x7f"));
}

static void
test_commit(void **state)
{
	(void)state;
	assert_true(dbp_gitaddr_is_commit("abcd"));
	assert_true(dbp_gitaddr_is_commit("0123456789abcdef0123456789ABCDEF"
	    "01234567"));
	assert_false(dbp_gitaddr_is_commit("abc"));
	assert_false(dbp_gitaddr_is_commit("0123456789abcdef0123456789abcdef"
	    "012345678"));
	assert_false(dbp_gitaddr_is_commit("main"));
	assert_false(dbp_gitaddr_is_commit("abcg"));
	assert_false(dbp_gitaddr_is_commit(""));
}

/* An address over the longest read is a local path, never a crash. */
static void
test_long(void **state)
{
	struct dbp_gitaddr a;
	struct dbp_diag d;
	char *big;

	(void)state;
	big = malloc(DBP_GIT_MAX_ADDRESS + 16);
	assert_non_null(big);
	memset(big, 'a', DBP_GIT_MAX_ADDRESS + 8);
	memcpy(big, "r#", 2);
	big[DBP_GIT_MAX_ADDRESS + 8] = '\0';
	assert_int_equal(dbp_gitaddr_parse(big, &a, &d), LOCAL);
	memcpy(big, "https://github.com/", 19);
	big[DBP_GIT_MAX_ADDRESS - 1] = '\0';
	assert_int_equal(dbp_gitaddr_parse(big, &a, &d), REFUSED);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

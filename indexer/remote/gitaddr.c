/*
 * gitaddr.c - the git addresses --project accepts, read offline: the
 * explicit <git-url>#<ref>[:<subpath>], the forge web URLs of a file or
 * a folder (GitHub, GitLab, Bitbucket), their bare repository URLs, and
 * git@HOST:PATH.  Anything else is a local path.  Pure: no filesystem,
 * no network (dbprint-serve(1), "Serving a print from its repository").
 */
#define _POSIX_C_SOURCE	200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote.h"

/* The most path segments of a web URL read (GitLab nests groups). */
#define GA_MAX_SEGS	64

void
dbp_gitaddr_release(struct dbp_gitaddr *a)
{
	free(a->url);
	free(a->ref);
	free(a->subpath);
	memset(a, 0, sizeof(*a));
}

int
dbp_gitaddr_is_commit(const char *ref)
{
	size_t n = 0;

	for (; ref[n] != '\0'; n++)
		if (!isxdigit((unsigned char)ref[n]))
			return 0;
	return n >= 4 && n <= 40;
}

int
dbp_gitaddr_ref_ok(const char *ref)
{
	const char *p;
	size_t n = strlen(ref);

	if (n == 0 || ref[0] == '-' || ref[0] == '/' || ref[n - 1] == '/' ||
	    ref[n - 1] == '.' || strcmp(ref, "@") == 0 ||
	    strstr(ref, "..") != NULL || strstr(ref, "@{") != NULL ||
	    strstr(ref, "//") != NULL || strstr(ref, "/.") != NULL ||
	    ref[0] == '.' || (n >= 5 && strcmp(ref + n - 5, ".lock") == 0))
		return 0;
	for (p = ref; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f ||
		    strchr("~^:?*[\\", *p) != NULL)
			return 0;
	return 1;
}

/* 1 when s holds a byte below ' ' (a newline would forge a log line). */
static int
ga_has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return 1;
	return 0;
}

/*
 * The subpath in [p, p+n) made canonical: empty and "." segments
 * dropped, so "/a//b/" is "a/b".  malloc'd into *out, or -1 with d set
 * for a ".." segment (it would leave the clone) or no memory.
 */
static int
ga_subpath(const char *p, size_t n, char **out, struct dbp_diag *d)
{
	struct dbp_buf b;
	const char *end = p + n, *s;
	size_t len;

	dbp_buf_init(&b, DBP_GIT_MAX_ADDRESS);
	dbp_buf_adds(&b, "");
	while (p < end) {
		for (s = p; s < end && *s != '/'; s++)
			;
		len = (size_t)(s - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			dbp_buf_release(&b);
			return dbp_fail(d, "the subpath of a git address may not "
			    "leave the repository ('..')");
		}
		if (len > 0 && !(len == 1 && p[0] == '.')) {
			if (b.len > 0)
				dbp_buf_addc(&b, '/');
			dbp_buf_add(&b, p, len);
		}
		p = s + 1;
	}
	if ((*out = dbp_buf_take(&b)) == NULL)
		return dbp_fail(d, "out of memory");
	return 0;
}

/* Fill a from its parts (ref may be NULL); 1, or -1 with d set. */
static int
ga_fill(struct dbp_gitaddr *a, const char *url, size_t urllen,
    const char *ref, size_t reflen, const char *sub, size_t sublen,
    struct dbp_diag *d)
{
	a->url = strndup(url, urllen);
	a->ref = ref != NULL ? strndup(ref, reflen) : NULL;
	if (a->url == NULL || (ref != NULL && a->ref == NULL)) {
		dbp_gitaddr_release(a);
		return dbp_fail(d, "out of memory");
	}
	if (a->url[0] == '-') {
		dbp_gitaddr_release(a);
		return dbp_fail(d, "a git URL may not begin with '-'");
	}
	if (a->ref != NULL && a->ref[0] == '-') {
		dbp_gitaddr_release(a);
		return dbp_fail(d, "a git ref may not begin with '-'");
	}
	if (a->ref != NULL && !dbp_gitaddr_ref_ok(a->ref)) {
		dbp_fail(d, "'%.200s' cannot name a branch, a tag or a commit",
		    a->ref);
		dbp_gitaddr_release(a);
		return -1;
	}
	if (ga_subpath(sub, sublen, &a->subpath, d) == -1) {
		dbp_gitaddr_release(a);
		return -1;
	}
	return 1;
}

/* The explicit form: url#ref[:subpath], ref required. */
static int
ga_explicit(const char *loc, const char *hash, struct dbp_gitaddr *a,
    struct dbp_diag *d)
{
	const char *ref = hash + 1, *colon;
	size_t reflen;

	if (hash == loc)
		return dbp_fail(d, "a git address needs a URL before '#' "
		    "(<git-url>#<ref>[:<subpath>])");
	colon = strchr(ref, ':');
	reflen = colon != NULL ? (size_t)(colon - ref) : strlen(ref);
	if (reflen == 0)
		return dbp_fail(d, "a git address needs a ref after '#' "
		    "(<git-url>#<ref>[:<subpath>])");
	return ga_fill(a, loc, (size_t)(hash - loc), ref, reflen,
	    colon != NULL ? colon + 1 : "", colon != NULL ? strlen(colon + 1) :
	    0, d);
}

struct ga_seg {
	const char	*p;
	size_t		 n;
};

/* Split the path of a URL into its non-empty segments; their count, or
 * -1 when there are more than max. */
static int
ga_split(const char *p, struct ga_seg *seg, int max)
{
	const char *s;
	int n = 0;

	while (*p != '\0') {
		for (s = p; *s != '\0' && *s != '/'; s++)
			;
		if (s > p) {
			if (n == max)
				return -1;
			seg[n].p = p;
			seg[n++].n = (size_t)(s - p);
		}
		p = *s == '/' ? s + 1 : s;
	}
	return n;
}

static int
ga_is(const struct ga_seg *s, const char *w)
{
	return s->n == strlen(w) && strncmp(s->p, w, s->n) == 0;
}

/*
 * A forge URL: the repository is seg[0..nrepo), and when web is set the
 * ref is seg[nrepo + off] and the subpath what follows it.  The remote is
 * spelled https://HOST/<repo>.git whatever the URL said, so a web URL and
 * the bare one of a repository share their clone.
 */
static int
ga_forge(const char *host, struct ga_seg *seg, int nseg, int nrepo, int web,
    int off, struct dbp_gitaddr *a, struct dbp_diag *d)
{
	struct dbp_buf u;
	const char *sub = "", *ref = NULL;
	size_t last, reflen = 0, sublen = 0;
	int i, rc;

	dbp_buf_init(&u, DBP_GIT_MAX_ADDRESS);
	dbp_buf_addf(&u, "https://%s", host);
	for (i = 0; i < nrepo; i++) {
		last = seg[i].n;
		if (i == nrepo - 1 && last > 4 &&
		    strncmp(seg[i].p + last - 4, ".git", 4) == 0)
			last -= 4;
		dbp_buf_addc(&u, '/');
		dbp_buf_add(&u, seg[i].p, last);
	}
	dbp_buf_adds(&u, ".git");
	if (u.failed) {
		dbp_buf_release(&u);
		return dbp_fail(d, "out of memory");
	}
	if (web) {
		ref = seg[nrepo + off].p;
		reflen = seg[nrepo + off].n;
		if (nrepo + off + 1 < nseg) {
			sub = seg[nrepo + off + 1].p;
			sublen = (size_t)(seg[nseg - 1].p + seg[nseg - 1].n -
			    sub);
		}
	}
	rc = ga_fill(a, u.ptr, u.len, ref, reflen, sub, sublen, d);
	dbp_buf_release(&u);
	return rc;
}

/* An https:// URL: one of the forges' shapes, or refused. */
static int
ga_https(const char *loc, struct dbp_gitaddr *a, struct dbp_diag *d)
{
	struct ga_seg seg[GA_MAX_SEGS];
	char host[256], path[DBP_GIT_MAX_ADDRESS];
	const char *h = loc + strlen("https://"), *slash;
	size_t hn;
	int n, k, gh, bb;

	slash = strchr(h, '/');
	hn = slash != NULL ? (size_t)(slash - h) : strlen(h);
	if (hn == 0 || hn >= sizeof(host))
		goto refuse;
	memcpy(host, h, hn);
	host[hn] = '\0';
	/* The query and fragment of a web URL (?plain=1) are no path. */
	snprintf(path, sizeof(path), "%s", slash != NULL ? slash : "");
	path[strcspn(path, "?")] = '\0';
	if ((n = ga_split(path, seg, GA_MAX_SEGS)) < 0)
		goto refuse;
	gh = strcasecmp(host, "github.com") == 0;
	bb = strcasecmp(host, "bitbucket.org") == 0;
	if (gh || bb) {
		if (n == 2)
			return ga_forge(host, seg, n, 2, 0, 0, a, d);
		if (n >= 4 && ((gh && (ga_is(&seg[2], "blob") ||
		    ga_is(&seg[2], "tree"))) || (bb && ga_is(&seg[2], "src"))))
			return ga_forge(host, seg, n, 2, 1, 1, a, d);
		goto refuse;
	}
	if (strcasecmp(host, "gitlab.com") == 0) {
		for (k = 0; k < n && !ga_is(&seg[k], "-"); k++)
			;
		if (k == n && n >= 2)
			return ga_forge(host, seg, n, n, 0, 0, a, d);
		if (k >= 2 && k + 2 < n && (ga_is(&seg[k + 1], "blob") ||
		    ga_is(&seg[k + 1], "tree")))
			return ga_forge(host, seg, n, k, 1, 2, a, d);
	}
refuse:
	return dbp_fail(d, "%.300s is a URL but not a git address dbprint "
	    "reads; write <git-url>#<ref>[:<subpath>]", loc);
}

int
dbp_gitaddr_parse(const char *loc, struct dbp_gitaddr *a, struct dbp_diag *d)
{
	const char *hash, *colon, *p;

	memset(a, 0, sizeof(*a));
	if (strlen(loc) > DBP_GIT_MAX_ADDRESS)
		return 0;
	hash = strchr(loc, '#');
	if (hash != NULL) {
		if (ga_has_control(loc))
			return dbp_fail(d, "a git address may not hold control "
			    "characters");
		return ga_explicit(loc, hash, a, d);
	}
	if (strncasecmp(loc, "https://", 8) == 0) {
		if (ga_has_control(loc))
			return dbp_fail(d, "a git address may not hold control "
			    "characters");
		return ga_https(loc, a, d);
	}
	/* Any other scheme://: a URL git may understand, but without a ref. */
	for (p = loc; isalpha((unsigned char)*p) || *p == '+' || *p == '-' ||
	    *p == '.'; p++)
		;
	if (p > loc && strncmp(p, "://", 3) == 0)
		return dbp_fail(d, "%.300s is a URL but not a git address "
		    "dbprint reads; write <git-url>#<ref>[:<subpath>]", loc);
	if (strncmp(loc, "git@", 4) == 0 && (colon = strchr(loc + 4, ':')) !=
	    NULL && colon > loc + 4 && memchr(loc + 4, '/',
	    (size_t)(colon - loc - 4)) == NULL && colon[1] != '\0') {
		if (ga_has_control(loc))
			return dbp_fail(d, "a git address may not hold control "
			    "characters");
		return ga_fill(a, loc, strlen(loc), NULL, 0, "", 0, d);
	}
	return 0;
}

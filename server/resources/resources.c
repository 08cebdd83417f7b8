/*
 * resources.c - MCP resources (spec 3, 7.2, 8.1): the dbprint:// URI
 * scheme, resources/list, resources/templates/list and resources/read.
 *
 *   dbprint:///reference/<document>             server-global documents
 *   dbprint://<conn>/<manifest|diff|reading|manifest_annotations>
 *   dbprint://<conn>/<table>/<artifact kind>    table dotted or slashed
 *   ...?page=<n>&version=<v>                    one page of a long file
 *
 * A read serves the file as it is on disk at the call (the index is
 * refreshed first and the bytes read are checked against the hash it
 * holds), except that relationships and diff withhold what a human
 * rejected (reject.c), served then as YAML.  A text longer than a page,
 * measured as a JSON string, is cut at line boundaries; every read
 * carries _meta {page, pages, version}.  Every failure is a JSON-RPC
 * error with the code and sentence of spec 8.1.  No notification is ever
 * sent from here.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "server.h"

#define RES_INVALID	(-32602)	/* JSON-RPC InvalidParams */
#define RES_INTERNAL	(-32603)	/* JSON-RPC InternalError */

#define RES_SCHEME	"dbprint://"

/* Every resource kind, in listing order within its group. */
struct res_kind {
	const char	*name;		/* URI segment; artifacts.kind */
	const char	*file;		/* the file it serves, by default */
	const char	*mime;
	int		 table;		/* per-table 1, per-connection 0 */
	int		 optional;	/* listed only when the file exists */
	const char	*label;		/* name wording */
	const char	*title;		/* title wording */
	const char	*about;		/* description: what it holds, which
					 * tool interprets it */
};

static const struct res_kind res_kinds[] = {
	{ "manifest", "manifest.yaml", "application/yaml", 0, 0,
	  "manifest", "Manifest",
	  "The connection's manifest.yaml: every table the print holds, "
	  "with its artifacts, row count and profiling time. get_manifest "
	  "answers the same document as JSON, narrowed by pattern; "
	  "list_tables judges each table's freshness from it" },
	{ "diff", "diff.yaml", "application/yaml", 0, 0,
	  "diff", "Diff",
	  "The connection's diff.yaml: what the last run found changed "
	  "since the one before, minus relationship events about an edge "
	  "a human rejected. get_diff answers the same events, narrowed by "
	  "table or kind" },
	{ "reading", "reading.md", "text/markdown", 0, 0,
	  "reading guide", "Reading guide",
	  "The print's own reading.md: how its fields read, written by the "
	  "run that produced it. get_reference with document guide answers "
	  "our own guide, section by section" },
	{ "manifest_annotations", "manifest.annotations.yaml",
	  "application/yaml", 0, 1,
	  "connection notes", "Connection notes",
	  "manifest.annotations.yaml: notes a person wrote about the whole "
	  "connection. get_table_context carries them as its Connection "
	  "notes" },
	{ "ddl", "ddl.sql", "application/sql", 1, 0,
	  "ddl", "DDL",
	  "The table's ddl.sql as extracted from the catalog. "
	  "get_table_context returns it beside the table's joins and "
	  "values" },
	{ "statistics", "statistics.yaml", "application/yaml", 1, 0,
	  "statistics", "Statistics",
	  "The table's statistics.yaml as written, sketches included. "
	  "get_table_context interprets it (scope, redaction and unmeasured "
	  "fields applied); search_columns and resolve_value search it" },
	{ "relationships", "relationships.yaml", "application/yaml", 1, 0,
	  "relationships", "Relationships",
	  "The table's relationships.yaml, minus every edge a human "
	  "rejected. get_table_context lists the same edges as its Joins, "
	  "each with its detection" },
	{ "description", "description.md", "text/markdown", 1, 1,
	  "description", "Description",
	  "description.md, written by a person about the table. "
	  "get_table_context includes it" },
	{ "statistics_annotations", "statistics.annotations.yaml",
	  "application/yaml", 1, 1,
	  "statistics annotations", "Statistics annotations",
	  "statistics.annotations.yaml: a person's notes on columns and "
	  "values. get_table_context includes them; search_columns text "
	  "searches them" },
	{ "relationships_annotations", "relationships.annotations.yaml",
	  "application/yaml", 1, 1,
	  "relationships annotations", "Relationships annotations",
	  "relationships.annotations.yaml: a person's notes on the table's "
	  "edges, rejected ones included - the one place a rejected edge is "
	  "shown; get_table_context applies them to its Joins" },
};
#define RES_NKINDS	(sizeof(res_kinds) / sizeof(res_kinds[0]))

/* The server-global documents, in listing order. */
static const char *const res_refdocs[] = { "spec", "assertions" };
#define RES_NREFDOCS	(sizeof(res_refdocs) / sizeof(res_refdocs[0]))

/* A parsed resource URI. */
struct res_uri {
	const char		*uri;	/* as requested; borrowed */
	char			*conn;	/* NULL for a reference document */
	char			*fqn;	/* per-table kinds */
	const char		*doc;	/* reference document name */
	const struct res_kind	*kind;	/* NULL for a reference document */
	char			*page;	/* the raw page value, or NULL */
	char			*version;
};

/* What a read serves, whole. */
struct res_body {
	char		*text;		/* malloc'd */
	size_t		 len;
	char		 version[17];
	const char	*mime;
};

/* The files a read consulted, refreshed in the index and recorded. */
struct res_pins {
	struct srv_conn	*cn;
	char		**paths;
	size_t		 npaths;
};

/* ------------------------------------------------------------------ */
/* Errors                                                               */

static int
res_fail(int *code, char **detail, int c, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Set *code and *detail (malloc'd, formatted); return -1. */
static int
res_fail(int *code, char **detail, int c, const char *fmt, ...)
{
	va_list ap;

	*code = c;
	va_start(ap, fmt);
	if (dbp_vasprintf(detail, fmt, ap) == -1)
		*detail = NULL;
	va_end(ap);
	return -1;
}

/* The same, taking an already malloc'd sentence. */
static int
res_fail_take(int *code, char **detail, int c, char *msg)
{
	*code = c;
	*detail = msg;
	return -1;
}

/* 'text' as Python's repr() writes a string. */
static char *
res_repr(const char *s)
{
	char *r = dbp_pyrepr_str(s);

	return r != NULL ? r : strdup("''");
}

static int
res_malformed(const char *uri, int *code, char **detail)
{
	char *r = res_repr(uri);
	int rc;

	rc = res_fail(code, detail, RES_INVALID,
	    "URI %s does not match the dbprint:// scheme.", r);
	free(r);
	return rc;
}

/* ------------------------------------------------------------------ */
/* URIs                                                                 */

static void
res_uri_release(struct res_uri *u)
{
	free(u->conn);
	free(u->fqn);
	free(u->page);
	free(u->version);
	memset(u, 0, sizeof(*u));
}

static int
res_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decode s[0..n) ('+' is a space, as in a query); malloc'd. */
static char *
res_unquote(const char *s, size_t n)
{
	char *out, *o;
	size_t i;

	if ((out = malloc(n + 1)) == NULL)
		return NULL;
	o = out;
	for (i = 0; i < n; i++) {
		if (s[i] == '+')
			*o++ = ' ';
		else if (s[i] == '%' && i + 2 < n &&
		    res_hexval(s[i + 1]) >= 0 && res_hexval(s[i + 2]) >= 0) {
			*o++ = (char)(res_hexval(s[i + 1]) * 16 +
			    res_hexval(s[i + 2]));
			i += 2;
		} else
			*o++ = s[i];
	}
	*o = '\0';
	return out;
}

/* Parse the query q (after '?') as a strict form query: fields split at
 * '&', each holding '=', only page and version, each at most once.  An
 * empty query is none.  0 or -1 (malformed). */
static int
res_query(const char *q, struct res_uri *u)
{
	const char *f, *amp, *eq;
	char **slot;
	size_t n;

	if (*q == '\0')
		return 0;
	for (f = q; ; f = amp + 1) {
		amp = strchr(f, '&');
		if (amp == NULL)
			amp = f + strlen(f);
		n = (size_t)(amp - f);
		eq = memchr(f, '=', n);
		if (eq == NULL)
			return -1;	/* an empty field included */
		if ((size_t)(eq - f) == 4 && memcmp(f, "page", 4) == 0)
			slot = &u->page;
		else if ((size_t)(eq - f) == 7 && memcmp(f, "version", 7) == 0)
			slot = &u->version;
		else
			return -1;
		if (*slot != NULL)
			return -1;	/* repeated */
		if ((*slot = res_unquote(eq + 1, (size_t)(amp - eq - 1))) ==
		    NULL)
			return -1;
		if (*amp == '\0')
			return 0;
	}
}

static const struct res_kind *
res_kind_named(const char *name, size_t n, int table)
{
	size_t i;

	for (i = 0; i < RES_NKINDS; i++)
		if (res_kinds[i].table == table &&
		    strlen(res_kinds[i].name) == n &&
		    memcmp(res_kinds[i].name, name, n) == 0)
			return &res_kinds[i];
	return NULL;
}

/*
 * Parse uri into u.  The empty-authority reference form is tried first,
 * so it never reads as a zero-length connection name.  A table is its
 * dotted FQN or the same segments slash-delimited.  0, or -1 when the URI
 * is malformed.
 */
static int
res_uri_parse(const char *uri, struct res_uri *u)
{
	const char *rest, *q, *end, *seg, *last;
	struct dbp_buf b;
	size_t i, n;

	memset(u, 0, sizeof(*u));
	u->uri = uri;
	if (strncmp(uri, RES_SCHEME, strlen(RES_SCHEME)) != 0)
		return -1;
	rest = uri + strlen(RES_SCHEME);
	q = strchr(rest, '?');
	end = q != NULL ? q : rest + strlen(rest);
	if (q != NULL && res_query(q + 1, u) == -1)
		goto bad;
	if (rest[0] == '/') {
		for (i = 0; i < RES_NREFDOCS; i++) {
			n = strlen("/reference/") + strlen(res_refdocs[i]);
			if ((size_t)(end - rest) == n &&
			    strncmp(rest, "/reference/", 11) == 0 &&
			    memcmp(rest + 11, res_refdocs[i],
			    strlen(res_refdocs[i])) == 0) {
				u->doc = res_refdocs[i];
				return 0;
			}
		}
		goto bad;
	}
	seg = memchr(rest, '/', (size_t)(end - rest));
	if (seg == NULL || seg == rest)
		goto bad;
	if ((u->conn = strndup(rest, (size_t)(seg - rest))) == NULL)
		goto bad;
	seg++;
	/* The last segment names the kind; what lies between, the table. */
	last = end;
	while (last > seg && last[-1] != '/')
		last--;
	if (last == seg) {
		u->kind = res_kind_named(seg, (size_t)(end - seg), 0);
		return u->kind != NULL ? 0 : (res_uri_release(u), -1);
	}
	u->kind = res_kind_named(last, (size_t)(end - last), 1);
	if (u->kind == NULL)
		goto bad;
	dbp_buf_init(&b, DBP_MAX_PATH);
	for (q = seg; q < last - 1; q++)
		dbp_buf_addc(&b, *q == '/' ? '.' : *q);
	if ((u->fqn = dbp_buf_take(&b)) == NULL)
		goto bad;
	return 0;
bad:
	res_uri_release(u);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Pages                                                                */

/* Width of the UTF-8 sequence at p (n bytes) inside a JSON string that
 * keeps non-ASCII as it is: '"', '\\' and the short control escapes
 * count 2, other control characters 6 (\uXXXX), anything else 1. */
static size_t
res_cwidth(unsigned char c)
{
	if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' ||
	    c == '\b' || c == '\f')
		return 2;
	if (c < 0x20 || c == 0x7f)
		return c == 0x7f ? 1 : 6;
	return 1;
}

/* Length in bytes of the UTF-8 character starting at p (1 for a stray
 * byte), never past end. */
static size_t
res_clen(const char *p, const char *end)
{
	unsigned char c = (unsigned char)*p;
	size_t n = 1, i;

	if (c >= 0xf0)
		n = 4;
	else if (c >= 0xe0)
		n = 3;
	else if (c >= 0xc0)
		n = 2;
	if ((size_t)(end - p) < n)
		return 1;
	for (i = 1; i < n; i++)
		if (((unsigned char)p[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

/*
 * Cut text[0..len) into pages of at most bound escaped-width units: whole
 * lines while they fit, a line longer than a page at character
 * boundaries.  *offs receives npages + 1 byte offsets (malloc'd; caller
 * frees): page i is text[offs[i]..offs[i+1]).  An empty text is one empty
 * page.  0, or -1 on OOM.
 */
int
res_pages(const char *text, size_t len, size_t bound, size_t **offs,
    size_t *npages)
{
	const char *p = text, *end = text + len, *line, *eol;
	size_t *o = NULL, *no, n = 0, cap = 0, curw = 0, w, cw, cl;
	const char *cur = text;

#define RES_PUSH(off) do {						\
	if (n + 1 >= cap) {						\
		cap = cap ? cap * 2 : 16;				\
		if ((no = realloc(o, cap * sizeof(*o))) == NULL)	\
			goto oom;					\
		o = no;							\
	}								\
	o[n++] = (off);							\
} while (0)

	RES_PUSH(0);
	while (p < end) {
		line = p;
		eol = memchr(p, '\n', (size_t)(end - p));
		eol = eol != NULL ? eol + 1 : end;
		w = 0;
		for (p = line; p < eol; p += res_clen(p, eol))
			w += res_cwidth((unsigned char)*p);
		p = eol;
		if (curw + w <= bound) {
			curw += w;
			continue;
		}
		if (line > cur) {
			RES_PUSH((size_t)(line - text));
			cur = line;
		}
		curw = 0;
		/* A line wider than a page: cut at the widest prefix that
		 * fits, at least one character. */
		for (p = line; p < eol; p += cl) {
			cl = res_clen(p, eol);
			cw = res_cwidth((unsigned char)*p);
			if (curw + cw > bound && curw > 0) {
				RES_PUSH((size_t)(p - text));
				cur = p;
				curw = 0;
			}
			curw += cw;
		}
		p = eol;
	}
	RES_PUSH(len);
	if (n >= 3 && o[n - 2] == len)
		n--;	/* no empty trailing page */
	*offs = o;
	*npages = n - 1;
	return 0;
oom:
	free(o);
	return -1;
#undef RES_PUSH
}

/* ------------------------------------------------------------------ */
/* Reading what a URI names                                             */

/* Bring path up to date in the index (spec 7.1).  0 or -1 (logged). */
static int
res_refresh(struct res_pins *p, const char *path)
{
	const char *one[1];
	struct dbp_diag d;
	int changed;

	one[0] = path;
	if (srv_index_refresh(p->cn, one, 1, &changed, &d) == -1) {
		srv_log(SRV_LOG_ERROR, "refresh %s: %s", path, d.msg);
		return -1;
	}
	return 0;
}

/* reject.c's pin callback, and every file a read serves or consults:
 * refresh it in the index and record it for the version. */
static int
res_pin(void *ctx, const char *path)
{
	struct res_pins *p = ctx;
	char **np;
	size_t i;

	if (res_refresh(p, path) == -1)
		return -1;
	for (i = 0; i < p->npaths; i++)
		if (strcmp(p->paths[i], path) == 0)
			return 0;
	if ((np = realloc(p->paths, (p->npaths + 1) * sizeof(*np))) == NULL)
		return -1;
	p->paths = np;
	if ((p->paths[p->npaths] = strdup(path)) == NULL)
		return -1;
	p->npaths++;
	return 0;
}

static void
res_pins_release(struct res_pins *p)
{
	size_t i;

	for (i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	free(p->paths);
	p->paths = NULL;
	p->npaths = 0;
}

/* An absolute path under the connection's print root; malloc'd. */
static char *
res_abs(struct srv_conn *cn, const char *rel)
{
	char *p;

	if (dbp_asprintf(&p, "%s/%s", cn->conf->print_root, rel) == -1)
		return NULL;
	return p;
}

/* The manifest's state for a read: 0 when it parsed as a usable mapping,
 * else -1 with the -32603 error of spec 8.1 set. */
static int
res_manifest_ok(struct srv_conn *cn, int *code, char **detail)
{
	struct srv_file f;
	struct dbp_diag d;
	int rc;

	rc = srv_file_get(cn, "manifest.yaml", &f, &d);
	if (rc == -1)
		return res_fail(code, detail, RES_INTERNAL, "%s", d.msg);
	if (rc == 1 || strcmp(f.status, "absent") == 0) {
		srv_file_release(&f);
		return res_fail(code, detail, RES_INTERNAL,
		    "manifest references manifest.yaml but file is absent "
		    "at %s/manifest.yaml. Re-run dbprint generate.",
		    cn->conf->print_root);
	}
	if (strcmp(f.status, "ok") != 0) {
		rc = res_fail(code, detail, RES_INTERNAL, "%s",
		    f.error != NULL ? f.error : "manifest.yaml is unreadable");
		srv_file_release(&f);
		return rc;
	}
	srv_file_release(&f);
	return 0;
}

/* 1 when the manifest document has top-level key key. */
static int
res_manifest_has(struct srv_conn *cn, const char *key)
{
	cJSON *doc = srv_file_doc(cn, "manifest.yaml");
	int has;

	has = cJSON_GetObjectItemCaseSensitive(doc, key) != NULL;
	cJSON_Delete(doc);
	return has;
}

/* The table row of fqn: 0 when it is followable; else -1 with the
 * unknown-table or unprofiled error (spec 8.1). */
static int
res_table(struct srv_conn *cn, const char *fqn, int *code, char **detail)
{
	static const char sql[] =
	    "SELECT walkable FROM tables WHERE fqn = ?";
	sqlite3_stmt *st = NULL;
	char *msg;
	int w = 0;

	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return res_fail(code, detail, RES_INTERNAL,
		    "index read failed: %s", sqlite3_errmsg(cn->db));
	sqlite3_bind_text(st, 1, fqn, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		w = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (w)
		return 0;
	msg = srv_err_unknown_table(cn, fqn);
	if (msg == NULL)
		return res_fail(code, detail, RES_INTERNAL, "out of memory");
	return res_fail_take(code, detail, RES_INVALID, msg);
}

/* The declared artifact (kind) of fqn: 0 with *file and *path (malloc'd;
 * *path NULL when it leads outside the root), 1 when not declared. */
static int
res_artifact(struct srv_conn *cn, const char *fqn, const char *kind,
    char **file, char **path)
{
	static const char sql[] = "SELECT file, path FROM artifacts "
	    "WHERE table_fqn = ? AND kind = ?";
	sqlite3_stmt *st = NULL;
	const unsigned char *t;
	int rc = 1;

	*file = *path = NULL;
	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(st, 1, fqn, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		t = sqlite3_column_text(st, 0);
		*file = strdup(t != NULL ? (const char *)t : "");
		t = sqlite3_column_text(st, 1);
		*path = t != NULL ? strdup((const char *)t) : NULL;
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Read rel fresh from disk into b, checking its bytes are the version
 * the index holds (refreshing once if the file moved meanwhile).  The
 * absent and unreadable cases are the caller's. */
static int
res_read_file(struct res_pins *pins, const char *rel, struct res_body *b,
    int *code, char **detail)
{
	struct srv_file f;
	struct dbp_diag d;
	char hash[33], *abs;
	int attempt, same;

	if ((abs = res_abs(pins->cn, rel)) == NULL)
		return res_fail(code, detail, RES_INTERNAL, "out of memory");
	for (attempt = 0; attempt < 2; attempt++) {
		if (attempt > 0 && res_pin(pins, rel) == -1)
			break;
		if (dbp_read_file(abs, DBP_MAX_FILE_BYTES, &b->text, &b->len,
		    NULL, &d) == -1)
			break;
		dbp_hash_hex(b->text, b->len, hash);
		if (srv_file_get(pins->cn, rel, &f, &d) != 0)
			break;
		same = f.hash != NULL && strcmp(f.hash, hash) == 0;
		srv_file_release(&f);
		if (same) {
			free(abs);
			return 0;
		}
		free(b->text);
		b->text = NULL;
	}
	free(b->text);
	b->text = NULL;
	res_fail(code, detail, RES_INTERNAL, "'%s': the file changed on disk "
	    "since that version was read. Read page 1 again for its current "
	    "version.", abs);
	free(abs);
	return -1;
}

/*
 * The file rel of kind k, as a read serves it: the absent and parse
 * errors of spec 8.1 (absent_msg is the sentence for a missing file, a
 * printf format taking the absolute path), then the bytes.
 */
static int
res_file_body(struct res_pins *pins, const struct res_kind *k,
    const char *rel, const char *absent_fmt, const char *absent_file,
    struct res_body *b, int *code, char **detail)
{
	struct srv_file f;
	struct dbp_diag d;
	char *abs;
	int rc;

	if (res_pin(pins, rel) == -1)
		return res_fail(code, detail, RES_INTERNAL,
		    "the index of connection '%s' cannot be refreshed",
		    pins->cn->conf->name);
	rc = srv_file_get(pins->cn, rel, &f, &d);
	if (rc == -1)
		return res_fail(code, detail, RES_INTERNAL, "%s", d.msg);
	if (rc == 1 || strcmp(f.status, "absent") == 0) {
		srv_file_release(&f);
		if ((abs = res_abs(pins->cn, rel)) == NULL)
			return res_fail(code, detail, RES_INTERNAL,
			    "out of memory");
		if (absent_file != NULL)
			rc = res_fail(code, detail, RES_INTERNAL, absent_fmt,
			    absent_file, abs);
		else
			rc = res_fail(code, detail, RES_INTERNAL, absent_fmt,
			    abs);
		free(abs);
		return rc;
	}
	/* A YAML file that does not parse, one too large, one unreadable,
	 * one leading outside the root: the index holds the sentence.  A
	 * file that parses but breaks its schema is still served raw. */
	if (strcmp(f.status, "ok") != 0 &&
	    strcmp(f.status, "schema_error") != 0 &&
	    strcmp(f.status, "shape_error") != 0) {
		rc = res_fail(code, detail, RES_INTERNAL, "%s",
		    f.error != NULL ? f.error : f.status);
		srv_file_release(&f);
		return rc;
	}
	srv_file_release(&f);
	b->mime = k->mime;
	return res_read_file(pins, rel, b, code, detail);
}

/* Replace b's text with the YAML of doc when withholding dropped
 * something.  0 or -1. */
static int
res_withhold(struct res_body *b, const cJSON *doc, int *code,
    char **detail)
{
	char *y;

	if ((y = dbp_yaml_dump(doc)) == NULL)
		return res_fail(code, detail, RES_INTERNAL,
		    "cannot write the withheld document as YAML");
	free(b->text);
	b->text = y;
	b->len = strlen(y);
	return 0;
}

/* Parse b's YAML and withhold rejected edges (diff when fqn is NULL,
 * else table fqn's relationships); the consulted files join pins. */
static int
res_rejections(struct res_pins *pins, const char *fqn, struct res_body *b,
    int *code, char **detail)
{
	struct dbp_diag d;
	struct rej r;
	cJSON *doc;
	size_t dropped = 0;
	int rc;

	/* The manifest decides which tables are walkable. */
	if (res_pin(pins, "manifest.yaml") == -1)
		return res_fail(code, detail, RES_INTERNAL,
		    "the index cannot be refreshed");
	if ((doc = dbp_ydoc_parse(b->text, b->len, &d)) == NULL)
		return 0;	/* the index said it parses; serve the bytes */
	rej_init(&r, pins->cn, res_pin, pins);
	if (fqn == NULL)
		rc = rej_diff(&r, doc, &dropped, &d);
	else
		rc = rej_relationships(&r, fqn, doc, &dropped, &d);
	rej_release(&r);
	if (rc == -1)
		rc = res_fail(code, detail, RES_INTERNAL, "%s", d.msg);
	else if (dropped > 0)
		rc = res_withhold(b, doc, code, detail);
	cJSON_Delete(doc);
	return rc;
}

/* A connection-level resource. */
static int
res_conn_body(struct res_pins *pins, const struct res_uri *u,
    struct res_body *b, int *code, char **detail)
{
	const struct res_kind *k = u->kind;
	struct srv_file f;
	char *msg;
	int rc, exists;

	if (res_refresh(pins, "manifest.yaml") == -1)
		return res_fail(code, detail, RES_INTERNAL,
		    "the index cannot be refreshed");
	if (strcmp(k->name, "manifest") == 0) {
		if (res_manifest_ok(pins->cn, code, detail) == -1)
			return -1;
		return res_file_body(pins, k, k->file, "manifest references "
		    "manifest.yaml but file is absent at %s. Re-run dbprint "
		    "generate.", NULL, b, code, detail);
	}
	if (strcmp(k->name, "diff") == 0) {
		if (res_file_body(pins, k, k->file, "no diff available at "
		    "%s. Run dbprint diff or dbprint generate first.", NULL,
		    b, code, detail) == -1)
			return -1;
		return res_rejections(pins, NULL, b, code, detail);
	}
	if (strcmp(k->name, "reading") == 0)
		return res_file_body(pins, k, k->file, "no reading guide "
		    "available at %s. Run dbprint generate first.", NULL, b,
		    code, detail);
	/* manifest_annotations: optional unless the manifest names it. */
	if (res_refresh(pins, k->file) == -1)
		return res_fail(code, detail, RES_INTERNAL,
		    "the index cannot be refreshed");
	rc = srv_file_get(pins->cn, k->file, &f, NULL);
	exists = rc == 0 && strcmp(f.status, "absent") != 0;
	if (rc == 0)
		srv_file_release(&f);
	if (!exists && !res_manifest_has(pins->cn, "manifest_annotations")) {
		msg = res_repr(pins->cn->conf->name);
		rc = res_fail(code, detail, RES_INVALID, "%s is optional and "
		    "not authored for connection %s.", k->file, msg);
		free(msg);
		return rc;
	}
	return res_file_body(pins, k, k->file, "manifest references %s but "
	    "file is absent at %s. Re-run dbprint generate.", k->file, b,
	    code, detail);
}

/* A per-table resource: spec 8.1's checks in order - manifest, entry,
 * declared kind, file present, parses - then the bytes. */
static int
res_table_body(struct res_pins *pins, const struct res_uri *u,
    struct res_body *b, int *code, char **detail)
{
	const struct res_kind *k = u->kind;
	char *file = NULL, *path = NULL, *q;
	int rc;

	if (res_refresh(pins, "manifest.yaml") == -1)
		return res_fail(code, detail, RES_INTERNAL,
		    "the index cannot be refreshed");
	if (res_manifest_ok(pins->cn, code, detail) == -1 ||
	    res_table(pins->cn, u->fqn, code, detail) == -1)
		return -1;
	q = res_repr(u->fqn);
	if (res_artifact(pins->cn, u->fqn, k->name, &file, &path) == 1) {
		if (k->optional)
			rc = res_fail(code, detail, RES_INVALID, "%s is "
			    "optional and not authored for table %s.",
			    k->file, q);
		else
			rc = res_fail(code, detail, RES_INVALID, "%s is not "
			    "declared for table %s - check the object's type "
			    "before requesting it; the manifest does not "
			    "declare every kind for every object.", k->name,
			    q);
		goto out;
	}
	if (path == NULL) {
		rc = res_fail(code, detail, RES_INTERNAL, "manifest entry %s "
		    "declares %s at a path outside the connection root "
		    "(SPEC 2.5); it is not served.", q, file);
		goto out;
	}
	rc = res_file_body(pins, k, path, "manifest references %s but file "
	    "is absent at %s. Re-run dbprint generate.", file, b, code,
	    detail);
	if (rc == 0 && strcmp(k->name, "relationships") == 0)
		rc = res_rejections(pins, u->fqn, b, code, detail);
out:
	free(q);
	free(file);
	free(path);
	return rc;
}

/* The text of reference document name, as get_reference reads it
 * (--reference-dir's copy, the environment's, or the compiled-in one);
 * version is a digest of the text. */
static int
res_reference_body(struct srv *s, const char *name, struct res_body *b,
    int *code, char **detail)
{
	struct dbp_diag d;
	const char *t;
	char hash[33], *owned = NULL;
	size_t len;

	b->mime = "text/markdown";
	if ((t = ref_document(s, name, &len, &owned, &d)) == NULL)
		return res_fail(code, detail, RES_INTERNAL, "%s", d.msg);
	if (owned != NULL) {
		b->text = owned;
	} else if ((b->text = malloc(len + 1)) != NULL) {
		memcpy(b->text, t, len);
		b->text[len] = '\0';
	} else
		return res_fail(code, detail, RES_INTERNAL, "out of memory");
	b->len = len;
	dbp_hash_hex(b->text, b->len, hash);
	memcpy(b->version, hash, 16);
	b->version[16] = '\0';
	return 0;
}

/* Resolve u's connection: 0 with *cn, or -1 with the -32602 error. */
static int
res_conn(struct srv *s, const char *name, struct srv_conn **cn, int *code,
    char **detail)
{
	char *msg = NULL;

	if (srv_resolve_conn(s, name, cn, &msg) == 0)
		return 0;
	return res_fail_take(code, detail, RES_INVALID,
	    msg != NULL ? msg : strdup("unknown connection"));
}

/* Everything u names, whole, with its version. */
static int
res_body(struct srv *s, const struct res_uri *u, struct res_body *b,
    int *code, char **detail)
{
	struct res_pins pins;
	struct srv_conn *cn;
	struct dbp_diag d;
	int rc;

	memset(b, 0, sizeof(*b));
	if (u->doc != NULL)
		return res_reference_body(s, u->doc, b, code, detail);
	if (res_conn(s, u->conn, &cn, code, detail) == -1)
		return -1;
	memset(&pins, 0, sizeof(pins));
	pins.cn = cn;
	srv_read_begin(cn);	/* one state of the index, as a tool call */
	if (u->kind->table)
		rc = res_table_body(&pins, u, b, code, detail);
	else
		rc = res_conn_body(&pins, u, b, code, detail);
	if (rc == 0 && dbp_files_digest(cn->db,
	    (const char *const *)pins.paths, pins.npaths, b->version,
	    &d) == -1)
		rc = res_fail(code, detail, RES_INTERNAL, "%s", d.msg);
	srv_read_end(cn);
	res_pins_release(&pins);
	if (rc == -1) {
		free(b->text);
		b->text = NULL;
	}
	return rc;
}

/* 1 when s is a whole number in ASCII digits (no sign, no space). */
static int
res_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int
res_read(struct srv *s, const char *uri, cJSON **result, int *code,
    char **detail)
{
	struct res_uri u;
	struct res_body b;
	cJSON *res = NULL, *contents, *item, *meta;
	size_t *offs = NULL, npages = 0, page = 1;
	char *q, *text = NULL;
	int rc = -1;

	*result = NULL;
	*detail = NULL;
	if (uri == NULL || res_uri_parse(uri, &u) == -1)
		return res_malformed(uri != NULL ? uri : "", code, detail);
	memset(&b, 0, sizeof(b));
	if (res_body(s, &u, &b, code, detail) == -1)
		goto out;
	if (res_pages(b.text, b.len, DBP_PAGE_TEXT_CHARS, &offs, &npages) == -1) {
		res_fail(code, detail, RES_INTERNAL, "out of memory");
		goto out;
	}
	q = res_repr(uri);
	if (u.page != NULL) {
		page = 0;
		if (res_digits(u.page) && strlen(u.page) <= 9)
			page = strtoul(u.page, NULL, 10);
		if (page < 1 || page > npages) {
			res_fail(code, detail, RES_INVALID, "%s names no page "
			    "of this resource: pages run 1 to %zu.", q,
			    npages);
			free(q);
			goto out;
		}
	}
	if (page > 1 && u.version == NULL) {
		res_fail(code, detail, RES_INVALID, "%s asks for a page past "
		    "the first without `version`. Pass the `version` the "
		    "first page's `_meta` reported, as "
		    "`?page=<n>&version=<v>`.", q);
		free(q);
		goto out;
	}
	if (u.version != NULL && strcmp(u.version, b.version) != 0) {
		res_fail(code, detail, RES_INVALID, "%s: the file changed on "
		    "disk since that version was read. Read page 1 again for "
		    "its current version.", q);
		free(q);
		goto out;
	}
	free(q);
	text = strndup(b.text + offs[page - 1], offs[page] - offs[page - 1]);
	if (text == NULL || (res = cJSON_CreateObject()) == NULL ||
	    (contents = cJSON_AddArrayToObject(res, "contents")) == NULL ||
	    (item = cJSON_CreateObject()) == NULL) {
		res_fail(code, detail, RES_INTERNAL, "out of memory");
		goto out;
	}
	cJSON_AddItemToArray(contents, item);
	cJSON_AddStringToObject(item, "uri", uri);
	cJSON_AddStringToObject(item, "mimeType", b.mime);
	cJSON_AddStringToObject(item, "text", text);
	meta = cJSON_AddObjectToObject(item, "_meta");
	cJSON_AddNumberToObject(meta, "page", (double)page);
	cJSON_AddNumberToObject(meta, "pages", (double)npages);
	cJSON_AddStringToObject(meta, "version", b.version);
	*result = res;
	res = NULL;
	rc = 0;
out:
	cJSON_Delete(res);
	free(text);
	free(offs);
	free(b.text);
	res_uri_release(&u);
	return rc;
}

/* ------------------------------------------------------------------ */
/* resources/list and resources/templates/list                          */

static int
res_entry(cJSON *list, int titles, const char *uri, const char *name,
    const char *title, const char *description, const char *mime)
{
	cJSON *e;

	if ((e = cJSON_CreateObject()) == NULL)
		return -1;
	cJSON_AddItemToArray(list, e);
	if (cJSON_AddStringToObject(e, "uri", uri) == NULL ||
	    cJSON_AddStringToObject(e, "name", name) == NULL ||
	    (titles && cJSON_AddStringToObject(e, "title", title) == NULL) ||
	    cJSON_AddStringToObject(e, "description", description) == NULL ||
	    cJSON_AddStringToObject(e, "mimeType", mime) == NULL)
		return -1;
	return 0;
}

/* Add one resource of kind k (fqn NULL for a connection-level one). */
static int
res_entry_kind(cJSON *list, int titles, const char *conn, const char *fqn,
    const struct res_kind *k)
{
	char *uri = NULL, *name = NULL, *title = NULL, *desc = NULL;
	int rc = -1;

	if (fqn == NULL) {
		if (dbp_asprintf(&uri, RES_SCHEME "%s/%s", conn, k->name) == -1)
			uri = NULL;
		if (dbp_asprintf(&name, "%s %s", conn, k->label) == -1)
			name = NULL;
		if (dbp_asprintf(&title, "%s of connection %s", k->title,
		    conn) == -1)
			title = NULL;
		if (dbp_asprintf(&desc, "%s (connection %s).", k->about,
		    conn) == -1)
			desc = NULL;
	} else {
		if (dbp_asprintf(&uri, RES_SCHEME "%s/%s/%s", conn, fqn,
		    k->name) == -1)
			uri = NULL;
		if (dbp_asprintf(&name, "%s %s", fqn, k->label) == -1)
			name = NULL;
		if (dbp_asprintf(&title, "%s of %s", k->title, fqn) == -1)
			title = NULL;
		if (dbp_asprintf(&desc, "%s: %s.", fqn, k->about) == -1)
			desc = NULL;
	}
	if (uri != NULL && name != NULL && title != NULL && desc != NULL)
		rc = res_entry(list, titles, uri, name, title, desc, k->mime);
	free(uri);
	free(name);
	free(title);
	free(desc);
	return rc;
}

static int
res_conn_cmp(const void *a, const void *b)
{
	const struct srv_conn *x = *(struct srv_conn *const *)a;
	const struct srv_conn *y = *(struct srv_conn *const *)b;

	return strcmp(x->conf->name, y->conf->name);
}

/* 1 when the optional file rel exists now: a regular file (after
 * symlinks) that the index does not know to lead outside the root
 * (status, when the index has a row).  A stat, not a refresh: listing
 * stays cheap on a large print, and a read refreshes what it serves. */
static int
res_present(struct srv_conn *cn, const char *rel, const char *status)
{
	struct stat sb;
	char *abs;
	int present;

	if (rel == NULL || (status != NULL &&
	    strcmp(status, "outside_root") == 0))
		return 0;
	if ((abs = res_abs(cn, rel)) == NULL)
		return 0;
	present = stat(abs, &sb) == 0 && S_ISREG(sb.st_mode);
	free(abs);
	return present;
}

/* Bring cn's index up to date for a listing: the manifest decides which
 * tables and artifacts there are. */
static void
res_list_refresh(struct srv_conn *cn)
{
	static const char *const top[] = { "manifest.yaml" };
	struct dbp_diag d;
	int changed;

	if (srv_index_refresh(cn, top, 1, &changed, &d) == -1)
		srv_log(SRV_LOG_ERROR, "refresh %s: %s", cn->conf->name, d.msg);
}

/* Every per-table resource of cn, in FQN then kind order. */
static int
res_list_tables(cJSON *list, int titles, struct srv_conn *cn)
{
	static const char sql[] = "SELECT t.fqn, a.kind, a.path, f.status "
	    "FROM tables t JOIN artifacts a ON a.table_fqn = t.fqn "
	    "LEFT JOIN files f ON f.path = a.path WHERE t.followable = 1 "
	    "ORDER BY t.fqn";
	sqlite3_stmt *st = NULL;
	const struct res_kind *k;
	const char *fqn, *kind, *path;
	char *cur = NULL;
	int have[RES_NKINDS], rc = 0;
	size_t i;

	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	memset(have, 0, sizeof(have));
	for (;;) {
		int step = sqlite3_step(st);

		fqn = step == SQLITE_ROW ?
		    (const char *)sqlite3_column_text(st, 0) : NULL;
		if (cur != NULL && (fqn == NULL || strcmp(fqn, cur) != 0)) {
			for (i = 0; i < RES_NKINDS && rc == 0; i++)
				if (have[i])
					rc = res_entry_kind(list, titles,
					    cn->conf->name, cur, &res_kinds[i]);
			memset(have, 0, sizeof(have));
			free(cur);
			cur = NULL;
		}
		if (fqn == NULL || rc == -1)
			break;
		if (cur == NULL && (cur = strdup(fqn)) == NULL) {
			rc = -1;
			break;
		}
		kind = (const char *)sqlite3_column_text(st, 1);
		path = (const char *)sqlite3_column_text(st, 2);
		if (kind == NULL ||
		    (k = res_kind_named(kind, strlen(kind), 1)) == NULL)
			continue;
		if (!k->optional || res_present(cn, path,
		    (const char *)sqlite3_column_text(st, 3)))
			have[k - res_kinds] = 1;
	}
	free(cur);
	sqlite3_finalize(st);
	return rc;
}

/* The whole ordered resource list. */
static cJSON *
res_list_all(struct srv *s, int titles)
{
	struct srv_conn **conns = NULL;
	cJSON *list;
	char *uri = NULL, *name = NULL, *title = NULL, *desc = NULL;
	char *emsg = NULL;
	size_t i, j;
	int rc = 0, ecode;

	if ((list = cJSON_CreateArray()) == NULL)
		return NULL;
	for (i = 0; i < RES_NREFDOCS && rc == 0; i++) {
		rc = -1;
		if (dbp_asprintf(&uri, RES_SCHEME "/reference/%s",
		    res_refdocs[i]) >= 0 && dbp_asprintf(&name, "%s reference",
		    res_refdocs[i]) >= 0 && dbp_asprintf(&title,
		    "The %s reference document", res_refdocs[i]) >= 0 &&
		    dbp_asprintf(&desc, "The packaged %s reference document, whole. "
		    "get_reference with document %s answers one section of "
		    "it by number.", strcmp(res_refdocs[i], "spec") == 0 ?
		    "print format specification" : "assertion language",
		    res_refdocs[i]) >= 0)
			rc = res_entry(list, titles, uri, name, title, desc,
			    "text/markdown");
		free(uri);
		free(name);
		free(title);
		free(desc);
		uri = name = title = desc = NULL;
	}
	if (s->nserved > 0 &&
	    (conns = calloc(s->nserved, sizeof(*conns))) == NULL)
		rc = -1;
	for (i = 0; i < s->nserved && rc == 0; i++)
		conns[i] = &s->served[i];
	if (rc == 0 && s->nserved > 0)
		qsort(conns, s->nserved, sizeof(*conns), res_conn_cmp);
	for (i = 0; i < s->nserved && rc == 0; i++) {
		res_list_refresh(conns[i]);
		for (j = 0; j < RES_NKINDS && rc == 0; j++) {
			if (res_kinds[j].table)
				continue;
			if (res_kinds[j].optional &&
			    !res_present(conns[i], res_kinds[j].file, NULL))
				continue;
			rc = res_entry_kind(list, titles, conns[i]->conf->name,
			    NULL, &res_kinds[j]);
		}
		/* A manifest that cannot be read lists no table. */
		if (rc == 0 && res_manifest_ok(conns[i], &ecode, &emsg) == 0)
			rc = res_list_tables(list, titles, conns[i]);
		free(emsg);
		emsg = NULL;
	}
	free(conns);
	if (rc == -1) {
		cJSON_Delete(list);
		return NULL;
	}
	return list;
}

/* The digest a resources/list cursor pins: every served connection's
 * manifest.yaml, as the index holds it now. */
static int
res_list_digest(struct srv *s, char out[17])
{
	static const char *const man[] = { "manifest.yaml" };
	struct dbp_buf b;
	struct dbp_diag d;
	char one[17], hash[33];
	size_t i;

	dbp_buf_init(&b, DBP_MAX_FRAME);
	for (i = 0; i < s->nserved; i++) {
		if (dbp_files_digest(s->served[i].db, man, 1, one, &d) == -1)
			memcpy(one, "unreadable------", 17);
		dbp_buf_addf(&b, "%s:%s\n", s->served[i].conf->name, one);
	}
	if (b.failed) {
		dbp_buf_release(&b);
		return -1;
	}
	dbp_hash_hex(b.ptr != NULL ? b.ptr : "", b.len, hash);
	memcpy(out, hash, 16);
	out[16] = '\0';
	dbp_buf_release(&b);
	return 0;
}

int
res_list(struct srv *s, const char *cursor, int titles, cJSON **result,
    int *code, char **detail)
{
	cJSON *items;
	char digest[17];
	int rc;

	*result = NULL;
	*detail = NULL;
	if ((items = res_list_all(s, titles)) == NULL)
		return res_fail(code, detail, RES_INTERNAL,
		    "cannot list the resources: out of memory or index error");
	if (res_list_digest(s, digest) == -1) {
		cJSON_Delete(items);
		return res_fail(code, detail, RES_INTERNAL, "out of memory");
	}
	rc = page_proto("resources/list", items, "resources", cursor, digest,
	    result, detail);
	cJSON_Delete(items);
	if (rc == -1)
		*code = RES_INVALID;
	return rc;
}

int
res_templates(struct srv *s, int titles, cJSON **result, int *code,
    char **detail)
{
	cJSON *res, *list, *e;
	char *tpl = NULL, *name = NULL, *title = NULL, *desc = NULL;
	size_t i;
	int ok = 1;

	(void)s;
	*result = NULL;
	*detail = NULL;
	if ((res = cJSON_CreateObject()) == NULL ||
	    (list = cJSON_AddArrayToObject(res, "resourceTemplates")) == NULL)
		goto oom;
	if ((e = cJSON_CreateObject()) == NULL)
		goto oom;
	cJSON_AddItemToArray(list, e);
	cJSON_AddStringToObject(e, "uriTemplate",
	    RES_SCHEME "/reference/{document}{?page,version}");
	cJSON_AddStringToObject(e, "name", "reference document");
	if (titles)
		cJSON_AddStringToObject(e, "title", "A reference document");
	cJSON_AddStringToObject(e, "description", "A packaged reference "
	    "document, whole: document is spec or assertions. get_reference "
	    "answers one section of it by number.");
	cJSON_AddStringToObject(e, "mimeType", "text/markdown");
	for (i = 0; i < RES_NKINDS && ok; i++) {
		ok = 0;
		if (dbp_asprintf(&tpl, res_kinds[i].table ?
		    RES_SCHEME "{connection}/{table}/%s{?page,version}" :
		    RES_SCHEME "{connection}/%s{?page,version}",
		    res_kinds[i].name) >= 0 &&
		    dbp_asprintf(&name, "%s %s", res_kinds[i].table ? "table" :
		    "connection", res_kinds[i].name) >= 0 &&
		    dbp_asprintf(&title, "%s of a %s", res_kinds[i].title,
		    res_kinds[i].table ? "table" : "connection") >= 0 &&
		    dbp_asprintf(&desc, "%s.%s", res_kinds[i].about,
		    res_kinds[i].table ? " {table} is the dotted FQN, or the "
		    "same names slash-delimited." : "") >= 0 &&
		    (e = cJSON_CreateObject()) != NULL) {
			cJSON_AddItemToArray(list, e);
			cJSON_AddStringToObject(e, "uriTemplate", tpl);
			cJSON_AddStringToObject(e, "name", name);
			if (titles)
				cJSON_AddStringToObject(e, "title", title);
			cJSON_AddStringToObject(e, "description", desc);
			cJSON_AddStringToObject(e, "mimeType",
			    res_kinds[i].mime);
			ok = 1;
		}
		free(tpl);
		free(name);
		free(title);
		free(desc);
		tpl = name = title = desc = NULL;
	}
	if (!ok)
		goto oom;
	*result = res;
	return 0;
oom:
	cJSON_Delete(res);
	return res_fail(code, detail, RES_INTERNAL, "out of memory");
}

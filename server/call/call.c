/*
 * call.c - what every tools/call shares: connection resolution (spec
 * 5.2), the freshness pins (spec 7.1), cursors (spec 4.8) and the error
 * detail helpers of spec 8.2.
 *
 * A cursor is fixed-width and opaque: URL-safe base64 (no padding) of
 *   "dbp" <tool 16 hex> <args 16 hex> <files 16 hex> <pos 10 digits>
 *   <check 8 hex>
 * where tool is a digest of the tool (or protocol method) name, args the
 * digest of the arguments minus cursor, files the digest of the content
 * hashes of every print file the reply read, and check a digest of all
 * that, so a cursor that was not issued here is told from a foreign one.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "platform.h"
#include "server.h"

#define CALL_RAW_LEN	69	/* 3 + 16 + 16 + 16 + 10 + 8 */
#define CALL_POS_DIGITS	10
#define CALL_NO_FILES	"0000000000000000"
/* Pins appended before the first compaction (call_pin). */
#define CALL_PINS_BATCH	64

/* What the index holds of a file: its identity on disk (call_unchanged)
 * and its content hash (call_digest).  Kept per handle (srv_stmt). */
static const char call_sql_ident[] =
    "SELECT dev, ino, size, mtime_ns, status FROM files WHERE path = ?1";
static const char call_sql_hash[] =
    "SELECT coalesce(hash, status) FROM files WHERE path = ?1";

int srv_log_level = SRV_LOG_WARNING;

void
srv_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > srv_log_level)
		return;
	fprintf(stderr, "%s: ", dbp_progname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct srv_conn *
srv_conn_find(struct srv *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nserved; i++)
		if (strcmp(s->served[i].conf->name, name) == 0)
			return &s->served[i];
	return NULL;
}

static int
call_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *
srv_repr_list(const char *const *names, size_t n)
{
	struct dbp_buf b;
	char *r;
	size_t i;

	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	dbp_buf_addc(&b, '[');
	for (i = 0; i < n; i++) {
		if (i > 0)
			dbp_buf_adds(&b, ", ");
		r = dbp_pyrepr_str(names[i]);
		dbp_buf_adds(&b, r != NULL ? r : "?");
		free(r);
	}
	dbp_buf_addc(&b, ']');
	return dbp_buf_take(&b);
}

/* Sorted Python list repr of the served (served=1) or configured names. */
static char *
call_names(struct srv *s, int served)
{
	const char **names;
	size_t i, n;
	char *out;

	n = served ? s->nserved : s->project.nconns;
	if ((names = calloc(n + 1, sizeof(*names))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		names[i] = served ? s->served[i].conf->name :
		    s->project.conns[i].name;
	qsort(names, n, sizeof(*names), call_cmp_str);
	out = srv_repr_list(names, n);
	free(names);
	return out;
}

int
srv_resolve_conn(struct srv *s, const char *name, struct srv_conn **out,
    char **detail)
{
	struct dbp_buf b;
	char *list, *r;

	*out = NULL;
	*detail = NULL;
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	if (name == NULL) {
		if (s->deflt != NULL) {
			*out = s->deflt;
			return 0;
		}
		list = call_names(s, 1);
		dbp_buf_addf(&b, "no default connection; pass connection "
		    "explicitly. Configured: %s", list != NULL ? list : "[]");
		free(list);
		*detail = dbp_buf_take(&b);
		return -1;
	}
	if ((*out = srv_conn_find(s, name)) != NULL)
		return 0;
	r = dbp_pyrepr_str(name);
	if (dbp_project_conn(&s->project, name) != NULL) {
		list = call_names(s, 1);
		dbp_buf_addf(&b, "connection %s is configured but not served "
		    "by this instance. Served: %s. Restart the server naming "
		    "it to serve it.", r != NULL ? r : "?",
		    list != NULL ? list : "[]");
	} else {
		list = call_names(s, s->project.nconns == 0);
		dbp_buf_addf(&b, "connection %s not in .dbprint.yaml. "
		    "Configured: %s", r != NULL ? r : "?",
		    list != NULL ? list : "[]");
	}
	free(r);
	free(list);
	*detail = dbp_buf_take(&b);
	return -1;
}

char *
srv_err_unknown_table(struct srv_conn *cn, const char *table)
{
	struct dbp_buf b;
	sqlite3_stmt *st = NULL;
	char *tr, *cr;
	int failed = 0;

	if (cn->db != NULL && sqlite3_prepare_v2(cn->db,
	    "SELECT 1 FROM failed_tables WHERE fqn = ?1 AND NOT EXISTS "
	    "(SELECT 1 FROM tables WHERE fqn = ?1)", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		failed = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	tr = dbp_pyrepr_str(table);
	cr = dbp_pyrepr_str(cn->conf->name);
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	if (failed)
		dbp_buf_addf(&b, "the last generate run could not profile %s; "
		    "run dbprint generate to see the cause", tr ? tr : "?");
	else
		dbp_buf_addf(&b, "table %s not found in connection %s. Call "
		    "list_tables with connection %s for valid names.",
		    tr ? tr : "?", cr ? cr : "?", cr ? cr : "?");
	free(tr);
	free(cr);
	return dbp_buf_take(&b);
}

int
call_fail(struct call *c, const char *fmt, ...)
{
	va_list ap;
	char *t = NULL;
	int n;

	va_start(ap, fmt);
	n = dbp_vasprintf(&t, fmt, ap);
	va_end(ap);
	free(c->text);
	c->text = n < 0 ? NULL : t;
	c->is_error = 1;
	return -1;
}

void
call_release(struct call *c)
{
	size_t i;

	/* no statement of the call may keep a read transaction open */
	if (srv_stmt_sweep(c->conn) > 0)
		srv_log(SRV_LOG_DEBUG, "%s: a kept statement was not handed "
		    "back", c->tool != NULL ? c->tool : "call");
	for (i = 0; i < c->npins; i++)
		free(c->pins[i]);
	free(c->pins);
	free(c->text);
	c->pins = NULL;
	c->npins = c->pins_sorted = 0;
	c->text = NULL;
	c->set_digest[0] = '\0';
}

/* Sort the call's pins and drop duplicates. */
static void
call_pins_compact(struct call *c)
{
	size_t i, k = 0;

	qsort(c->pins, c->npins, sizeof(*c->pins), call_cmp_str);
	for (i = 0; i < c->npins; i++) {
		if (k > 0 && strcmp(c->pins[i], c->pins[k - 1]) == 0) {
			free(c->pins[i]);
			continue;
		}
		c->pins[k++] = c->pins[i];
	}
	c->npins = c->pins_sorted = k;
}

/*
 * 1 when every one of paths matches the identity the index holds for it,
 * compared exactly as dbp_index_refresh compares them (a file the index
 * never saw is a change when present; outside_root never is; an absent
 * file matches an absent row), with the handle's kept statement: the
 * refresh, which prepares its own, is then not needed.  0 when anything
 * may have changed or could not be checked.
 */
static int
call_unchanged(struct call *c, const char *const *paths, size_t n)
{
	const char *root = c->conn->conf->print_root, *status;
	sqlite3_stmt *st;
	struct stat sb;
	char abs[DBP_MAX_PATH];
	size_t i;
	int present, same = 1, rc, w;

	if ((st = srv_stmt(c->conn, call_sql_ident)) == NULL)
		return 0;
	for (i = 0; i < n && same; i++) {
		w = snprintf(abs, sizeof(abs), "%s/%s", root, paths[i]);
		if (w < 0 || (size_t)w >= sizeof(abs)) {
			same = 0;
			break;
		}
		present = stat(abs, &sb) == 0 && S_ISREG(sb.st_mode);
		sqlite3_bind_text(st, 1, paths[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW) {
			same = rc == SQLITE_DONE && !present;
		} else if ((status = (const char *)sqlite3_column_text(st,
		    4)) == NULL) {
			same = 0;
		} else if (strcmp(status, "outside_root") == 0) {
			same = 1;
		} else if (!present) {
			same = strcmp(status, "absent") == 0;
		} else {
			same = sqlite3_column_type(st, 0) != SQLITE_NULL &&
			    sqlite3_column_int64(st, 0) ==
			    (sqlite3_int64)sb.st_dev &&
			    sqlite3_column_int64(st, 1) ==
			    (sqlite3_int64)sb.st_ino &&
			    sqlite3_column_int64(st, 2) ==
			    (sqlite3_int64)sb.st_size &&
			    sqlite3_column_int64(st, 3) == dbp_mtime_ns(&sb);
		}
		sqlite3_reset(st);
	}
	srv_stmt_done(c->conn, st);
	return same;
}

void
srv_read_begin(struct srv_conn *cn)
{
	if (cn->db != NULL && sqlite3_get_autocommit(cn->db))
		sqlite3_exec(cn->db, "BEGIN", NULL, NULL, NULL);
}

void
srv_read_end(struct srv_conn *cn)
{
	if (cn->db != NULL && !sqlite3_get_autocommit(cn->db) &&
	    sqlite3_exec(cn->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(cn->db, "ROLLBACK", NULL, NULL, NULL);
}

int
srv_index_refresh(struct srv_conn *cn, const char *const *paths, size_t n,
    int *changed, struct dbp_diag *d)
{
	int reading = cn->db != NULL && !sqlite3_get_autocommit(cn->db), rc;

	if (reading)
		srv_read_end(cn);
	rc = dbp_index_refresh(cn->db, cn->conf->name, cn->conf->print_root,
	    paths, n, changed, d);
	if (reading)
		srv_read_begin(cn);
	return rc;
}

/*
 * The pins are appended as they come and made distinct in batches: once
 * they have doubled since the last compaction they are sorted and the
 * duplicates dropped, so n pins cost O(n log n) however often a tool
 * pins the same file (the digest skips duplicates anyway).
 */
int
call_pin(struct call *c, const char *const *paths, size_t n)
{
	struct dbp_diag d;
	char **np;
	size_t i;
	int changed = 0;

	if (c->conn == NULL || n == 0)
		return 0;
	d.msg[0] = '\0';
	if (!call_unchanged(c, paths, n) &&
	    srv_index_refresh(c->conn, paths, n, &changed, &d) != 0)
		return call_fail(c, "%s", d.msg[0] != '\0' ? d.msg :
		    "the index could not be brought up to date");
	if (changed)
		srv_log(SRV_LOG_INFO, "%s: re-indexed changed print files",
		    c->conn->conf->name);
	np = realloc(c->pins, (c->npins + n) * sizeof(*np));
	if (np == NULL)
		return call_fail(c, "out of memory");
	c->pins = np;
	for (i = 0; i < n; i++) {
		if ((c->pins[c->npins] = strdup(paths[i])) == NULL)
			return call_fail(c, "out of memory");
		c->npins++;
	}
	if (c->npins >= 2 * c->pins_sorted + CALL_PINS_BATCH)
		call_pins_compact(c);
	c->files_digest[0] = '\0';
	return 0;
}

int
call_pin1(struct call *c, const char *path)
{
	return call_pin(c, &path, 1);
}

/*
 * A query's paths are kept, checked and digested by watch.c, per index
 * handle: the call holds only their digest.
 */
int
call_pin_query(struct call *c, const char *sql)
{
	char *detail = NULL;
	int changed = 0;

	if (c->conn == NULL)
		return 0;
	if (watch_pin_query(c->conn, sql, c->set_digest, &changed,
	    &detail) == -1) {
		c->set_digest[0] = '\0';
		call_fail(c, "%s", detail != NULL ? detail : "out of memory");
		free(detail);
		return -1;
	}
	if (changed)
		srv_log(SRV_LOG_INFO, "%s: re-indexed changed print files",
		    c->conn->conf->name);
	c->files_digest[0] = '\0';
	return 0;
}

int
srv_idle(struct srv *s)
{
	static long step = -1;
	const char *e;
	char *end;
	size_t i;
	int more = 0;

	if (step < 0) {
		step = DBP_WATCH_STEP;
		if ((e = getenv("DBPRINT_WATCH_STEP")) != NULL && *e != '\0') {
			step = strtol(e, &end, 10);
			if (*end != '\0' || step < 0 || step > DBP_WATCH_STEP_MAX)
				step = DBP_WATCH_STEP;
		}
	}
	if (step == 0)
		return 0;
	for (i = 0; i < s->nserved; i++)
		if (s->served[i].db != NULL &&
		    watch_idle(&s->served[i], (size_t)step))
			more = 1;
	return more;
}

/*
 * The digest of the pinned files' content hashes into out[17], exactly
 * as dbp_files_digest spells it (XXH3-64 over "path:hash\n" of each
 * distinct path in sorted order, "absent" for a file with no row), read
 * with the handle's kept statement.  Sorts the pins.  0, or -1 with
 * sqlite's message in d.
 */
static int
call_digest(struct call *c, char out[17], struct dbp_diag *d)
{
	sqlite3_stmt *st;
	XXH3_state_t *h;
	const char *hash;
	size_t i;
	int rc;

	if (c->pins_sorted != c->npins)
		call_pins_compact(c);
	if ((st = srv_stmt(c->conn, call_sql_hash)) == NULL)
		return dbp_fail(d, "index: %s", sqlite3_errmsg(c->conn->db));
	if ((h = XXH3_createState()) == NULL) {
		srv_stmt_done(c->conn, st);
		return dbp_fail(d, "out of memory");
	}
	XXH3_64bits_reset(h);
	for (i = 0; i < c->npins; i++) {
		sqlite3_bind_text(st, 1, c->pins[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		hash = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st,
		    0) : NULL;
		XXH3_64bits_update(h, c->pins[i], strlen(c->pins[i]));
		XXH3_64bits_update(h, ":", 1);
		if (hash == NULL)
			hash = "absent";
		XXH3_64bits_update(h, hash, strlen(hash));
		XXH3_64bits_update(h, "\n", 1);
		sqlite3_reset(st);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(h));
	XXH3_freeState(h);
	srv_stmt_done(c->conn, st);
	return 0;
}

/* The digest of the pinned files' current content, into c->files_digest:
 * over the pins, and with call_pin_query's set digest when there is one. */
static int
call_files(struct call *c)
{
	struct dbp_diag d;
	char both[40], h[33];

	if (c->files_digest[0] != '\0')
		return 0;
	if (c->conn == NULL || (c->npins == 0 && c->set_digest[0] == '\0')) {
		memcpy(c->files_digest, CALL_NO_FILES, 17);
		return 0;
	}
	d.msg[0] = '\0';
	if (c->npins == 0)
		memcpy(c->files_digest, CALL_NO_FILES, 17);
	else if (call_digest(c, c->files_digest, &d) != 0) {
		c->files_digest[0] = '\0';
		return call_fail(c, "%s", d.msg);
	}
	if (c->set_digest[0] != '\0') {
		snprintf(both, sizeof(both), "%s+%s", c->files_digest,
		    c->set_digest);
		dbp_hash_hex(both, strlen(both), h);
		memcpy(c->files_digest, h, 16);
		c->files_digest[16] = '\0';
	}
	return 0;
}

/* 16 hex digits of XXH3-128 over s. */
static void
call_digest16(const char *s, size_t n, char out[17])
{
	char h[33];

	dbp_hash_hex(s, n, h);
	memcpy(out, h, 16);
	out[16] = '\0';
}

static const char call_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* URL-safe base64 of raw[0..CALL_RAW_LEN) (a multiple of 3): out must
 * hold SRV_CURSOR_LEN + 1. */
static void
call_b64enc(const unsigned char *raw, char *out)
{
	size_t i, o = 0;

	for (i = 0; i + 2 < CALL_RAW_LEN; i += 3) {
		unsigned long v = ((unsigned long)raw[i] << 16) |
		    ((unsigned long)raw[i + 1] << 8) | raw[i + 2];

		out[o++] = call_b64[(v >> 18) & 63];
		out[o++] = call_b64[(v >> 12) & 63];
		out[o++] = call_b64[(v >> 6) & 63];
		out[o++] = call_b64[v & 63];
	}
	out[o] = '\0';
}

/* Decode exactly SRV_CURSOR_LEN characters; 0, or -1 when malformed. */
static int
call_b64dec(const char *in, unsigned char *raw)
{
	size_t i, o = 0;
	const char *p;
	unsigned long v;
	int k;

	if (strlen(in) != SRV_CURSOR_LEN)
		return -1;
	for (i = 0; i < SRV_CURSOR_LEN; i += 4) {
		v = 0;
		for (k = 0; k < 4; k++) {
			if (in[i + k] == '\0' ||
			    (p = strchr(call_b64, in[i + k])) == NULL)
				return -1;
			v = (v << 6) | (unsigned long)(p - call_b64);
		}
		raw[o++] = (unsigned char)(v >> 16);
		raw[o++] = (unsigned char)(v >> 8);
		raw[o++] = (unsigned char)v;
	}
	return 0;
}

/* Build the cursor text of (scope, args, files, pos) into out. */
static void
call_encode(const char *scope_digest, const char *args, const char *files,
    size_t pos, char out[SRV_CURSOR_LEN + 1])
{
	char raw[CALL_RAW_LEN + 1], check[17];

	snprintf(raw, sizeof(raw), "dbp%.16s%.16s%.16s%0*zu", scope_digest,
	    args, files, CALL_POS_DIGITS, pos);
	call_digest16(raw, CALL_RAW_LEN - 8, check);
	memcpy(raw + CALL_RAW_LEN - 8, check, 8);
	call_b64enc((const unsigned char *)raw, out);
}

/* The parts of a decoded cursor. */
struct call_cur {
	char	scope[17];
	char	args[17];
	char	files[17];
	size_t	pos;
};

/* Decode a cursor; 0, or -1 when it is not one this server issued. */
static int
call_decode(const char *cursor, struct call_cur *cc)
{
	unsigned char raw[CALL_RAW_LEN + 1];
	char check[17];
	size_t i;

	if (call_b64dec(cursor, raw) != 0)
		return -1;
	raw[CALL_RAW_LEN] = '\0';
	if (memcmp(raw, "dbp", 3) != 0)
		return -1;
	call_digest16((const char *)raw, CALL_RAW_LEN - 8, check);
	if (memcmp(raw + CALL_RAW_LEN - 8, check, 8) != 0)
		return -1;
	memcpy(cc->scope, raw + 3, 16);
	memcpy(cc->args, raw + 19, 16);
	memcpy(cc->files, raw + 35, 16);
	cc->scope[16] = cc->args[16] = cc->files[16] = '\0';
	cc->pos = 0;
	for (i = 51; i < 51 + CALL_POS_DIGITS; i++) {
		if (raw[i] < '0' || raw[i] > '9')
			return -1;
		cc->pos = cc->pos * 10 + (size_t)(raw[i] - '0');
	}
	return 0;
}

char *
call_cursor(struct call *c, size_t pos)
{
	char scope[17], *out;

	if (call_files(c) != 0)
		return NULL;
	call_digest16(c->tool, strlen(c->tool), scope);
	if ((out = malloc(SRV_CURSOR_LEN + 1)) == NULL)
		return NULL;
	call_encode(scope, c->args_digest, c->files_digest, pos, out);
	return out;
}

/* The three cursor details of spec 8.2; scope is the tool or method. */
static char *
call_err_cursor(int kind, const char *scope, const char *cursor)
{
	struct dbp_buf b;
	char *r;

	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	switch (kind) {
	case 0:
		r = dbp_pyrepr_str(cursor);
		dbp_buf_addf(&b, "cursor %s is not one this server issued. "
		    "Pass back a reply's `next_cursor` unchanged, or call "
		    "again without `cursor` for the first page.",
		    r != NULL ? r : "?");
		free(r);
		break;
	case 1:
		dbp_buf_addf(&b, "this cursor was not issued by %s with these "
		    "arguments. Repeat the call that returned it with the same "
		    "arguments, or call again without `cursor`.", scope);
		break;
	default:
		dbp_buf_addf(&b, "the print changed on disk since this cursor "
		    "was issued, so %s cannot resume where it left off. Call "
		    "again without `cursor` to start over.", scope);
		break;
	}
	return dbp_buf_take(&b);
}

/* Check a cursor against (scope, args, files); 0 with *pos, or -1 with
 * *detail malloc'd. */
static int
call_check(const char *scope, const char *args, const char *files,
    const char *cursor, size_t *pos, char **detail)
{
	struct call_cur cc;
	char sd[17];

	*pos = 0;
	*detail = NULL;
	if (cursor == NULL)
		return 0;
	if (call_decode(cursor, &cc) != 0) {
		*detail = call_err_cursor(0, scope, cursor);
		return -1;
	}
	call_digest16(scope, strlen(scope), sd);
	if (strcmp(cc.scope, sd) != 0 || strcmp(cc.args, args) != 0) {
		*detail = call_err_cursor(1, scope, cursor);
		return -1;
	}
	if (strcmp(cc.files, files) != 0) {
		*detail = call_err_cursor(2, scope, cursor);
		return -1;
	}
	*pos = cc.pos;
	return 0;
}

int
call_position(struct call *c, size_t *pos)
{
	char *detail = NULL;

	*pos = 0;
	if (c->cursor == NULL)
		return 0;
	if (call_files(c) != 0)
		return -1;
	if (call_check(c->tool, c->args_digest, c->files_digest, c->cursor,
	    pos, &detail) != 0) {
		call_fail(c, "%s", detail != NULL ? detail : "bad cursor");
		free(detail);
		return -1;
	}
	return 0;
}

/* The "foreign" detail for a position out of range; used by page.c. */
int
call_out_of_range(struct call *c)
{
	char *d = call_err_cursor(1, c->tool, c->cursor);

	call_fail(c, "%s", d != NULL ? d : "bad cursor");
	free(d);
	return -1;
}

/* Cursor helpers for protocol-level paging (page.c). */
void
call_proto_cursor(const char *scope, const char *files, size_t pos,
    char out[SRV_CURSOR_LEN + 1])
{
	char sd[17];

	call_digest16(scope, strlen(scope), sd);
	call_encode(sd, CALL_NO_FILES, files != NULL ? files : CALL_NO_FILES,
	    pos, out);
}

int
call_proto_check(const char *scope, const char *files, const char *cursor,
    size_t *pos, char **detail)
{
	return call_check(scope, CALL_NO_FILES,
	    files != NULL ? files : CALL_NO_FILES, cursor, pos, detail);
}

char *
call_proto_foreign(const char *scope)
{
	return call_err_cursor(1, scope, NULL);
}

int
call_args_digest(const cJSON *args, char out[17])
{
	cJSON *copy, *a;
	const char **keys;
	size_t n = 0, i;
	char *text;

	if ((copy = cJSON_CreateObject()) == NULL)
		return -1;
	cJSON_ArrayForEach(a, args)
		n++;
	if ((keys = calloc(n + 1, sizeof(*keys))) == NULL) {
		cJSON_Delete(copy);
		return -1;
	}
	i = 0;
	cJSON_ArrayForEach(a, args)
		if (strcmp(a->string, "cursor") != 0)
			keys[i++] = a->string;
	n = i;
	qsort(keys, n, sizeof(*keys), call_cmp_str);
	for (i = 0; i < n; i++)
		if (srv_json_put_ref(copy, keys[i],
		    cJSON_GetObjectItemCaseSensitive(args, keys[i])) == -1) {
			/* a digest over part of the arguments would be wrong */
			free(keys);
			cJSON_Delete(copy);
			return -1;
		}
	free(keys);
	text = dbp_json_dump(copy, DBP_JSON_PYDEFAULT);
	cJSON_Delete(copy);
	if (text == NULL)
		return -1;
	call_digest16(text, strlen(text), out);
	free(text);
	return 0;
}

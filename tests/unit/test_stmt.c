/*
 * test_stmt.c - the per-handle statement cache (server/call/stmt.c): a kept
 * statement comes back reset and unbound, a nested ask gets a fresh one,
 * nothing handed back keeps a read transaction open (a write made by
 * another handle is seen by the next use), and closing finalizes all so
 * sqlite3_close succeeds.  A call's read (server/call/call.c) is one
 * snapshot, ended and opened again around a refresh.
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

#include <sys/stat.h>

#include <cmocka.h>

#include "server.h"

static const char sql_count[] = "SELECT count(*) FROM meta";
static const char sql_keys[] = "SELECT key FROM meta ORDER BY key";
static const char sql_get[] = "SELECT value FROM meta WHERE key = ?1";
static const char sql_mf_status[] = "SELECT status FROM files WHERE "
    "path = 'manifest.yaml'";

struct fx {
	char		 dir[64];
	char		 path[128];
	struct srv_conn	 a;		/* the cached handle */
	sqlite3		*b;		/* another process's writer */
};

static int
fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct dbp_diag d;

	assert_non_null(x);
	snprintf(x->dir, sizeof(x->dir), "/tmp/test_stmt.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->path, sizeof(x->path), "%s/i.sqlite", x->dir);
	assert_int_equal(dbp_index_open(x->path, 0, &x->a.db, &d), 0);
	assert_int_equal(dbp_index_open(x->path, 0, &x->b, &d), 0);
	*state = x;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *x = *state;
	char cmd[128];

	srv_stmt_close(&x->a);
	/* sqlite3_close refuses while any statement lives */
	assert_int_equal(sqlite3_close(x->a.db), SQLITE_OK);
	assert_int_equal(sqlite3_close(x->b), SQLITE_OK);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", x->dir);
	free(x);
	return 0;
}

static long
count(struct srv_conn *cn)
{
	sqlite3_stmt *st = srv_stmt(cn, sql_count);
	long n;

	assert_non_null(st);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = (long)sqlite3_column_int64(st, 0);
	srv_stmt_done(cn, st);
	return n;
}

static void
put(sqlite3 *db, const char *key)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "INSERT INTO meta(key, value) VALUES "
	    "('%s', 'v-%s')", key, key);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
}

static void
test_kept_and_nested(void **state)
{
	struct fx *x = *state;
	sqlite3_stmt *s1, *s2, *s3;

	put(x->b, "k1");
	put(x->b, "k2");
	/* kept: the same statement each time, reset and unbound */
	s1 = srv_stmt(&x->a, sql_get);
	assert_non_null(s1);
	sqlite3_bind_text(s1, 1, "k1", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s1), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s1, 0),
	    "v-k1");
	srv_stmt_done(&x->a, s1);
	assert_int_equal(sqlite3_stmt_busy(s1), 0);
	s2 = srv_stmt(&x->a, sql_get);
	assert_ptr_equal(s2, s1);
	/* unbound: ?1 is NULL, so no row */
	assert_int_equal(sqlite3_step(s2), SQLITE_DONE);
	/* nested: asked while lent, a fresh statement of its own */
	sqlite3_reset(s2);
	sqlite3_bind_text(s2, 1, "k2", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s2), SQLITE_ROW);
	s3 = srv_stmt(&x->a, sql_get);
	assert_non_null(s3);
	assert_ptr_not_equal(s3, s2);
	sqlite3_bind_text(s3, 1, "k1", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s3), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s3, 0),
	    "v-k1");
	/* the outer one is undisturbed */
	assert_string_equal((const char *)sqlite3_column_text(s2, 0),
	    "v-k2");
	srv_stmt_done(&x->a, s3);	/* finalized: not a kept one */
	srv_stmt_done(&x->a, s2);
	assert_ptr_equal(srv_stmt(&x->a, sql_get), s1);
	srv_stmt_done(&x->a, s1);
	srv_stmt_done(&x->a, NULL);
	assert_int_equal(srv_stmt_sweep(&x->a), 0);
}

static void
test_snapshot(void **state)
{
	struct fx *x = *state;
	sqlite3_stmt *st;

	put(x->b, "a");
	assert_int_equal(count(&x->a), 1);
	/* handed back: the next use sees another handle's write */
	put(x->b, "b");
	assert_int_equal(count(&x->a), 2);
	/* a statement left stepping holds its snapshot ... */
	st = srv_stmt(&x->a, sql_keys);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	put(x->b, "c");
	assert_int_equal(count(&x->a), 2);
	/* ... until the end of the call sweeps it */
	assert_int_equal(srv_stmt_sweep(&x->a), 1);
	assert_int_equal(sqlite3_stmt_busy(st), 0);
	assert_int_equal(count(&x->a), 3);
	/* swept, it is handed out again, reset */
	assert_ptr_equal(srv_stmt(&x->a, sql_keys), st);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "a");
	srv_stmt_done(&x->a, st);
	assert_int_equal(srv_stmt_sweep(&x->a), 0);
	assert_int_equal(srv_stmt_sweep(NULL), 0);
}

static void
test_bad_sql(void **state)
{
	struct fx *x = *state;
	static const char bad[] = "SELECT x FROM nowhere";
	struct srv_conn none;

	assert_null(srv_stmt(&x->a, bad));
	assert_non_null(strstr(sqlite3_errmsg(x->a.db), "nowhere"));
	memset(&none, 0, sizeof(none));
	assert_null(srv_stmt(&none, sql_count));
	srv_stmt_close(&none);
	/* a good one still works after the failure */
	assert_int_equal(count(&x->a), 0);
}

/* The status the index holds for manifest.yaml, in a static buffer. */
static const char *
mf_status(struct srv_conn *cn)
{
	static char buf[32];
	sqlite3_stmt *st = srv_stmt(cn, sql_mf_status);

	assert_non_null(st);
	buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, sizeof(buf), "%s",
		    (const char *)sqlite3_column_text(st, 0));
	srv_stmt_done(cn, st);
	return buf;
}

/* A call's reads are one snapshot until srv_read_end. */
static void
test_call_read(void **state)
{
	struct fx *x = *state;

	put(x->b, "a");
	srv_read_begin(&x->a);
	assert_int_equal(sqlite3_get_autocommit(x->a.db), 0);
	assert_int_equal(count(&x->a), 1);
	put(x->b, "b");
	assert_int_equal(count(&x->a), 1);
	srv_read_begin(&x->a);		/* does not nest */
	assert_int_equal(count(&x->a), 1);
	srv_read_end(&x->a);
	assert_int_equal(sqlite3_get_autocommit(x->a.db), 1);
	assert_int_equal(count(&x->a), 2);
	srv_read_end(&x->a);		/* none open: nothing to do */
	assert_int_equal(sqlite3_get_autocommit(x->a.db), 1);
}

/* A refresh inside a call's read writes (the read is ended for it, as a
 * write transaction cannot open inside it) and the read goes on after,
 * seeing what the refresh wrote. */
static void
test_call_refresh(void **state)
{
	struct fx *x = *state;
	struct dbp_conn conf;
	struct dbp_stats st;
	struct dbp_diag d;
	const char *one[] = { "manifest.yaml" };
	char root[128], mf[160];
	FILE *f;
	int changed = 0;

	snprintf(root, sizeof(root), "%s/p", x->dir);
	assert_int_equal(mkdir(root, 0755), 0);
	memset(&st, 0, sizeof(st));
	assert_int_equal(dbp_index_update(x->a.db, "c", root, 1, &st, &d), 0);
	dbp_stats_release(&st);
	memset(&conf, 0, sizeof(conf));
	conf.name = "c";
	conf.print_root = root;
	x->a.conf = &conf;
	srv_read_begin(&x->a);
	assert_string_equal(mf_status(&x->a), "absent");
	/* the manifest appears: a refresh has something to write */
	snprintf(mf, sizeof(mf), "%s/manifest.yaml", root);
	assert_non_null(f = fopen(mf, "w"));
	fputs("tables: {}\n", f);
	assert_int_equal(fclose(f), 0);
	/* inside the read, its write transaction cannot begin ... */
	d.msg[0] = '\0';
	assert_int_equal(dbp_index_refresh(x->a.db, "c", root, one, 1,
	    &changed, &d), -1);
	assert_non_null(strstr(d.msg, "transaction"));
	assert_string_equal(mf_status(&x->a), "absent");
	/* ... so srv_index_refresh ends the read for it and opens the
	 * next, which sees what it wrote */
	assert_int_equal(srv_index_refresh(&x->a, one, 1, &changed, &d), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(sqlite3_get_autocommit(x->a.db), 0);
	assert_string_equal(mf_status(&x->a), "ok");
	srv_read_end(&x->a);
	assert_int_equal(sqlite3_get_autocommit(x->a.db), 1);
	x->a.conf = NULL;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept_and_nested,
		    fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_sql, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(test_call_read, fx_setup,
		    fx_teardown),
		cmocka_unit_test_setup_teardown(test_call_refresh, fx_setup,
		    fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

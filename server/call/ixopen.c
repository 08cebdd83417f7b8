/*
 * ixopen.c - a served connection's index handle: opened and brought up to
 * date at start (srv_index_open), and opened again when its file is lost
 * under the running server (srv_index_recheck).
 *
 * An open SQLite handle keeps reading the inode it opened: a deleted index
 * file goes on answering from the deleted inode, its -wal and -shm files
 * beside a path that holds nothing, and a new process then finds no index
 * and a stale write-ahead log.  So before every call that reads an index
 * the path is stat'ed (one stat per served connection) and compared with
 * the device and inode the handle opened; when the file is gone or is
 * another one, the handle is closed and the index opened again at its path,
 * built there in the same call when it is missing, exactly as at start.
 *
 * A deleted index's -wal and -shm belong to the deleted inode: they are
 * removed before the new file is created, or the new file (in WAL mode
 * once built) would share the -shm that another handle still has mapped
 * for the old one.  SQLite neither checkpoints into nor deletes the log of
 * a file that has moved (its close tests that first), so a handle on the
 * old inode closing later removes nothing of the new file's.  One mutex
 * serializes the reopening of the HTTP workers' handles, so only the first
 * to see the file missing removes anything; the others find the new file
 * and only reopen.  Another process that holds the deleted inode open is
 * not seen; its own next call reopens in the same way.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

static pthread_mutex_t ixo_lock = PTHREAD_MUTEX_INITIALIZER;

/* The connection-level files: a change to any of them re-reads the whole
 * print, so checking them at open finds a regenerated print. */
static const char *const ixo_conn_files[] = {
	"manifest.yaml", "manifest.annotations.yaml", "diff.yaml", "reading.md"
};

/* 1 when the index was written for this connection and print root by an
 * indexer of this schema version (dbp_index_open empties any other). */
static int
ixo_current(sqlite3 *db, const struct dbp_conn *c)
{
	sqlite3_stmt *st = NULL;
	int ok = 0;

	if (sqlite3_prepare_v2(db, "SELECT (SELECT value FROM meta WHERE key "
	    "= 'connection') = ?1 AND (SELECT value FROM meta WHERE key = "
	    "'print_root') = ?2 AND (SELECT value FROM meta WHERE key = "
	    "'schema_version') = ?3", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, c->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->print_root, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, DBP_SCHEMA_VERSION);
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return ok;
}

/*
 * Bring an open index up to date.  An index of this connection, root and
 * schema is only checked against the connection-level files here (a
 * regenerated print rewrites its manifest, which re-reads everything);
 * every per-table file is checked by the call that reads it (spec 7.1),
 * so opening costs a few stats instead of one per print file.  Any other
 * index is built in full.
 */
static int
ixo_update(struct srv_conn *cn, struct dbp_diag *d)
{
	struct dbp_stats st;
	int rc, changed = 0;

	if (ixo_current(cn->db, cn->conf))
		return dbp_index_refresh(cn->db, cn->conf->name,
		    cn->conf->print_root, ixo_conn_files,
		    sizeof(ixo_conn_files) / sizeof(ixo_conn_files[0]),
		    &changed, d);
	memset(&st, 0, sizeof(st));
	rc = dbp_index_update(cn->db, cn->conf->name, cn->conf->print_root,
	    0, &st, d);
	dbp_stats_release(&st);
	return rc;
}

/* Close cn's handle and its kept statements. */
static void
ixo_close(struct srv_conn *cn)
{
	if (cn->db == NULL)
		return;
	srv_stmt_close(cn);
	sqlite3_close(cn->db);
	cn->db = NULL;
}

void
srv_index_ident(struct srv_conn *cn)
{
	struct stat sb;

	cn->ix_known = cn->index_path != NULL &&
	    stat(cn->index_path, &sb) == 0;
	if (cn->ix_known) {
		cn->ix_dev = sb.st_dev;
		cn->ix_ino = sb.st_ino;
	}
}

/* Open cn's index at path (cn->index_path) and bring it up to date; 0, or
 * -1 with the reason in d and no handle. */
static int
ixo_open_disk(struct srv_conn *cn, const char *path, struct dbp_diag *d)
{
	struct stat sb;
	int rc, created;

	created = stat(path, &sb) == -1 && errno == ENOENT;
	rc = dbp_index_open(path, 0, &cn->db, d);
	if (rc == 0 && (rc = ixo_update(cn, d)) != 0) {
		ixo_close(cn);
		if (created)
			dbp_index_remove(path, 1);	/* as dbprint-index */
	}
	return rc;
}

/* Build cn's index in memory; 0 or -1 with the reason in d. */
static int
ixo_open_memory(struct srv_conn *cn, struct dbp_diag *d)
{
	struct dbp_stats st;
	int rc;

	memset(&st, 0, sizeof(st));
	d->msg[0] = '\0';
	rc = dbp_index_open(NULL, DBP_OPEN_MEMORY, &cn->db, d);
	if (rc == 0)
		rc = dbp_index_update(cn->db, cn->conf->name,
		    cn->conf->print_root, 1, &st, d);
	dbp_stats_release(&st);
	if (rc != 0)
		ixo_close(cn);
	return rc;
}

int
srv_index_open(struct srv_conn *cn, const char *path)
{
	struct dbp_diag d;

	d.msg[0] = '\0';
	if ((cn->index_path = strdup(path)) == NULL)
		return -1;
	if (ixo_open_disk(cn, path, &d) == 0) {
		srv_index_ident(cn);
		srv_log(SRV_LOG_INFO, "serving %s from %s (index %s)",
		    cn->conf->name, cn->conf->print_root, path);
		return 0;
	}
	srv_log(SRV_LOG_WARNING, "%s: the index %s cannot be written (%s); "
	    "building it in memory for this run", cn->conf->name, path,
	    d.msg);
	free(cn->index_path);
	cn->index_path = NULL;
	cn->ix_known = 0;
	if (ixo_open_memory(cn, &d) != 0) {
		fprintf(stderr, "dbprint-serve: %s: %s\n", cn->conf->name,
		    d.msg);
		return -1;
	}
	return 0;
}

/* cn's index file gone or replaced: open it again (under ixo_lock). */
static int
ixo_reopen(struct srv_conn *cn, struct dbp_diag *d)
{
	struct stat sb;
	const char *what;
	int gone = 0;

	if (cn->ix_memory)
		return ixo_open_memory(cn, d);	/* its last one failed */
	if (stat(cn->index_path, &sb) == 0) {
		if (cn->db != NULL && cn->ix_known &&
		    sb.st_dev == cn->ix_dev && sb.st_ino == cn->ix_ino)
			return 0;	/* another worker's test was late */
		what = "was replaced; opening the new file";
	} else if ((gone = errno == ENOENT))
		what = "was deleted; rebuilding it";
	else
		what = "cannot be looked up; opening it again";
	srv_log(SRV_LOG_WARNING, "%s: the index %s %s", cn->conf->name,
	    cn->index_path, what);
	ixo_close(cn);
	if (gone)
		dbp_index_remove(cn->index_path, 0);
	if (ixo_open_disk(cn, cn->index_path, d) == 0) {
		srv_index_ident(cn);
		return 0;
	}
	srv_log(SRV_LOG_WARNING, "%s: the index %s cannot be written (%s); "
	    "building it in memory for this run", cn->conf->name,
	    cn->index_path, d->msg);
	/* In memory from now on: the path is no longer this handle's. */
	cn->ix_known = 0;
	cn->ix_memory = 1;
	return ixo_open_memory(cn, d);
}

int
srv_index_recheck(struct srv *s, struct dbp_diag *d)
{
	struct srv_conn *cn;
	struct stat sb;
	size_t i;
	int rc = 0;

	for (i = 0; i < s->nserved && rc == 0; i++) {
		cn = &s->served[i];
		if (cn->index_path == NULL ||
		    (cn->ix_memory && cn->db != NULL))
			continue;
		if (cn->db != NULL && stat(cn->index_path, &sb) == 0 &&
		    cn->ix_known && sb.st_dev == cn->ix_dev &&
		    sb.st_ino == cn->ix_ino)
			continue;
		d->msg[0] = '\0';
		pthread_mutex_lock(&ixo_lock);
		rc = ixo_reopen(cn, d);
		pthread_mutex_unlock(&ixo_lock);
	}
	return rc;
}

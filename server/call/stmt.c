/*
 * stmt.c - prepared statements kept per index handle.
 *
 * Preparing a statement costs tens of thousands of instructions, as much
 * as a small call's whole answer.  A hot path asks srv_stmt() for the
 * statement of one of its constant SQL texts instead: the first ask on a
 * handle prepares it, later ones find it by the text's address, reset
 * and unbound.  The caller hands it back with srv_stmt_done(), which
 * resets it, so no statement keeps a read transaction (and with it an
 * old WAL snapshot) open between calls.
 *
 * The same per-handle record keeps a few tools' data between calls
 * (srv_keep_get, srv_keep_set), freed with the statements.
 *
 * A statement is lent to one user at a time: asked again while lent (an
 * outer loop still stepping it calls something that needs the same
 * query), srv_stmt() prepares a fresh one, which srv_stmt_done()
 * finalizes.  Each srv_conn belongs to one thread (the HTTP workers have
 * their own), so the cache takes no lock.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* Most statements kept per handle; a query past them is prepared per
 * use, as without the cache.  The hot paths use a dozen. */
#define STMT_MAX	32

struct srv_stmt_slot {
	const char	*sql;		/* the key: the text's address */
	sqlite3_stmt	*st;
	int		 lent;		/* handed out, not yet done */
};

/* Tools' data kept per handle (srv_keep_set); search_columns keeps one. */
#define KEEP_MAX	4

struct srv_keep_slot {
	const void	*key;
	void		*data;
	void		(*free_fn)(void *);
};

struct srv_stmts {
	struct srv_stmt_slot	 slot[STMT_MAX];
	size_t			 n;
	struct srv_keep_slot	 keep[KEEP_MAX];
};

sqlite3_stmt *
srv_stmt(struct srv_conn *cn, const char *sql)
{
	struct srv_stmt_slot *sl;
	sqlite3_stmt *st = NULL;
	size_t i;

	if (cn->db == NULL)
		return NULL;
	if (cn->stmts == NULL &&
	    (cn->stmts = calloc(1, sizeof(*cn->stmts))) == NULL)
		goto fresh;
	for (i = 0; i < cn->stmts->n; i++) {
		sl = &cn->stmts->slot[i];
		if (sl->sql != sql)
			continue;
		if (sl->lent)
			goto fresh;	/* nested use: a statement of its own */
		sl->lent = 1;
		return sl->st;
	}
	if (cn->stmts->n == STMT_MAX)
		goto fresh;
	if (sqlite3_prepare_v3(cn->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	sl = &cn->stmts->slot[cn->stmts->n++];
	sl->sql = sql;
	sl->st = st;
	sl->lent = 1;
	return st;
fresh:
	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

void
srv_stmt_done(struct srv_conn *cn, sqlite3_stmt *st)
{
	size_t i;

	if (st == NULL)
		return;
	if (cn->stmts != NULL)
		for (i = 0; i < cn->stmts->n; i++)
			if (cn->stmts->slot[i].st == st) {
				sqlite3_reset(st);
				sqlite3_clear_bindings(st);
				cn->stmts->slot[i].lent = 0;
				return;
			}
	sqlite3_finalize(st);
}

size_t
srv_stmt_sweep(struct srv_conn *cn)
{
	struct srv_stmt_slot *sl;
	size_t i, n = 0;

	if (cn == NULL || cn->stmts == NULL)
		return 0;
	for (i = 0; i < cn->stmts->n; i++) {
		sl = &cn->stmts->slot[i];
		if (!sl->lent && !sqlite3_stmt_busy(sl->st))
			continue;
		sqlite3_reset(sl->st);
		sqlite3_clear_bindings(sl->st);
		sl->lent = 0;
		n++;
	}
	return n;
}

void
srv_stmt_close(struct srv_conn *cn)
{
	struct srv_keep_slot *k;
	size_t i;

	if (cn->stmts == NULL)
		return;
	for (i = 0; i < cn->stmts->n; i++)
		sqlite3_finalize(cn->stmts->slot[i].st);
	for (i = 0; i < KEEP_MAX; i++) {
		k = &cn->stmts->keep[i];
		if (k->key != NULL && k->free_fn != NULL)
			k->free_fn(k->data);
	}
	free(cn->stmts);
	cn->stmts = NULL;
}

void *
srv_keep_get(struct srv_conn *cn, const void *key)
{
	size_t i;

	if (cn->stmts == NULL)
		return NULL;
	for (i = 0; i < KEEP_MAX; i++)
		if (cn->stmts->keep[i].key == key)
			return cn->stmts->keep[i].data;
	return NULL;
}

int
srv_keep_set(struct srv_conn *cn, const void *key, void *data,
    void (*free_fn)(void *))
{
	struct srv_keep_slot *k, *freek = NULL;
	size_t i;

	if (cn->stmts == NULL &&
	    (cn->stmts = calloc(1, sizeof(*cn->stmts))) == NULL)
		goto fail;
	for (i = 0; i < KEEP_MAX; i++) {
		k = &cn->stmts->keep[i];
		if (k->key == key) {
			if (k->free_fn != NULL && k->data != data)
				k->free_fn(k->data);
			k->data = data;
			k->free_fn = free_fn;
			return 0;
		}
		if (k->key == NULL && freek == NULL)
			freek = k;
	}
	if (freek == NULL)
		goto fail;
	freek->key = key;
	freek->data = data;
	freek->free_fn = free_fn;
	return 0;
fail:
	if (free_fn != NULL)
		free_fn(data);
	return -1;
}

int
srv_index_version(struct srv_conn *cn, sqlite3_int64 *dv, sqlite3_int64 *tc)
{
	static const char sql[] = "PRAGMA data_version";
	sqlite3_stmt *st;
	int rc;

	*dv = *tc = -1;
	if ((st = srv_stmt(cn, sql)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*dv = sqlite3_column_int64(st, 0);
	srv_stmt_done(cn, st);
	*tc = (sqlite3_int64)sqlite3_total_changes(cn->db);
	return rc == SQLITE_ROW ? 0 : -1;
}

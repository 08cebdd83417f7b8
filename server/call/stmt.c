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

struct srv_stmts {
	struct srv_stmt_slot	 slot[STMT_MAX];
	size_t			 n;
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
	size_t i;

	if (cn->stmts == NULL)
		return;
	for (i = 0; i < cn->stmts->n; i++)
		sqlite3_finalize(cn->stmts->slot[i].st);
	free(cn->stmts);
	cn->stmts = NULL;
}

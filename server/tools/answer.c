/*
 * answer.c - small index reads shared by list_tables, search_columns,
 * resolve_value and get_manifest: a file's state, a glob's FQN range.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdlib.h>
#include <string.h>

#include "answer.h"

int
ans_file_state(struct srv_conn *cn, const char *path, char **status,
    char **error)
{
	static const char sql[] =
	    "SELECT status, error FROM files WHERE path = ?1";
	sqlite3_stmt *st = NULL;
	const char *s, *e;
	int rc;

	*status = NULL;
	*error = NULL;
	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s = (const char *)sqlite3_column_text(st, 0);
		e = (const char *)sqlite3_column_text(st, 1);
		*status = strdup(s != NULL ? s : "absent");
		if (e != NULL)
			*error = strdup(e);
		if (*status == NULL || (e != NULL && *error == NULL)) {
			free(*status);
			free(*error);
			*status = *error = NULL;
			rc = SQLITE_NOMEM;
		}
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	return rc == SQLITE_ROW ? 0 : -1;
}

const char ans_sql_count_all[] =
    "SELECT (SELECT count(*) FROM tables) - "
    "(SELECT count(*) FROM tables WHERE walkable < 1) - "
    "(SELECT count(*) FROM tables WHERE walkable > 1)";
const char ans_sql_count[] =
    "SELECT count(*) FROM tables WHERE walkable = 1 AND fqn >= ?1 "
    "AND fqn < ?2";
const char ans_sql_count_open[] =
    "SELECT count(*) FROM tables WHERE walkable = 1 AND fqn >= ?1";

int
ans_prefix_range(const char *pat, char **lo, char **hi)
{
	size_t n = strcspn(pat, "*?[");

	*hi = NULL;
	if ((*lo = strndup(pat, n)) == NULL)
		return -1;
	while (n > 0 && (unsigned char)pat[n - 1] == 0xff)
		n--;
	if (n == 0)
		return 0;
	if ((*hi = strndup(pat, n)) == NULL)
		return -1;
	(*hi)[n - 1] = (char)((unsigned char)(*hi)[n - 1] + 1);
	return 0;
}

int
ans_walk_to(struct call *c, sqlite3_stmt *st, const char *pat, int exact,
    size_t *next, size_t i)
{
	const char *fqn;
	int rc;

	for (;;) {
		if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
			if (rc == SQLITE_DONE)
				return call_fail(c, "index read failed: the "
				    "tables changed during the call");
			break;
		}
		if ((fqn = (const char *)sqlite3_column_text(st, 0)) == NULL)
			break;
		if (!exact && !dbp_fnmatch(pat, fqn))
			continue;
		if ((*next)++ == i)
			return 0;
	}
	return call_fail(c, "index read failed: %s",
	    sqlite3_errmsg(c->conn->db));
}

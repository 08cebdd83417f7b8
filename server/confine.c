/*
 * confine.c - dbprint-serve confines itself (server.h, srv_confine): what
 * the served connections need, handed to the sandbox of
 * indexer/sandbox.c.
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>

#include "sandbox.h"
#include "text/utf8loc.h"
#include "server.h"

/* Add what the served connections are allowed to sb.  0, or -1 out of
 * memory. */
static int
srv_confine_paths(const struct srv *s, struct dbp_sandbox *sb)
{
	const char *env;
	size_t i;

	for (i = 0; i < s->nserved; i++) {
		if (dbp_sandbox_allow(sb, s->served[i].conf->print_root,
		    DBP_SANDBOX_READ) != 0)
			return -1;
		/* SQLite makes its -wal, -shm and -journal files there. */
		if (s->served[i].index_path != NULL &&
		    dbp_sandbox_allow_dir_of(sb, s->served[i].index_path) != 0)
			return -1;
	}
	/* get_reference reads these at the call (reference.c). */
	if (s->reference_dir != NULL && dbp_sandbox_allow(sb,
	    s->reference_dir, DBP_SANDBOX_READ) != 0)
		return -1;
	if ((env = getenv("DBPRINT_REFERENCE_DIR")) != NULL && *env != '\0' &&
	    dbp_sandbox_allow(sb, env, DBP_SANDBOX_READ) != 0)
		return -1;
	return dbp_sandbox_allow_tmpdir(sb);
}

int
srv_confine(struct srv *s, int listener)
{
	struct dbp_sandbox sb;
	char line[DBP_SANDBOX_LINE];
	int on;

	if (s->no_sandbox || dbp_sandbox_env_off()) {
		srv_log(SRV_LOG_INFO, "sandbox off");
		return 0;
	}
	/* The folds' locale is read from /usr/lib/locale: now or never. */
	(void)dbp_utf8_locale();
	dbp_sandbox_init(&sb, listener ? DBP_SANDBOX_LISTENER : 0);
	sb.child = s->refresher;
	if (srv_confine_paths(s, &sb) != 0) {
		dbp_sandbox_release(&sb);
		srv_log(SRV_LOG_ERROR, "sandbox: out of memory");
		return -1;
	}
	on = dbp_sandbox_apply(&sb, line, sizeof(line));
	dbp_sandbox_release(&sb);
	srv_log((on & DBP_SANDBOX_CORE) == DBP_SANDBOX_CORE ||
	    !dbp_sandbox_available() ? SRV_LOG_INFO : SRV_LOG_WARNING,
	    "sandbox: %s", line);
	return on;
}

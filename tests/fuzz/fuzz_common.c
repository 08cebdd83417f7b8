/*
 * fuzz_common.c - the fixture server the protocol fuzz targets share (see
 * fuzz.h).  Built into every target, with replay.c or libFuzzer's main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES	"fixtures"
#endif

static struct srv fuzz_server;
static int fuzz_server_ready;

const char *
fuzz_fixtures(void)
{
	const char *e;

	e = getenv("DBP_FUZZ_FIXTURES");
	return e != NULL && *e != '\0' ? e : FUZZ_FIXTURES;
}

char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s;

	if ((s = malloc(size + 1)) == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Print why and abort: the fixture is part of the harness. */
static void
fuzz_die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, why);
	abort();
}

struct srv *
fuzz_srv(const char *project)
{
	struct srv *s = &fuzz_server;
	struct dbp_diag d;
	struct dbp_stats st;
	char path[DBP_MAX_PATH];
	size_t i;

	if (fuzz_server_ready)
		return s;
	memset(s, 0, sizeof(*s));
	d.msg[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", fuzz_fixtures(), project);
	if (dbp_project_load(path, &s->project, &d) != 0)
		fuzz_die(path, d.msg);
	if (s->project.nconns == 0)
		fuzz_die(path, "no connections");
	s->served = calloc(s->project.nconns, sizeof(*s->served));
	if (s->served == NULL)
		fuzz_die(path, "out of memory");
	for (i = 0; i < s->project.nconns; i++) {
		s->served[i].conf = &s->project.conns[i];
		if (dbp_index_open(NULL, DBP_OPEN_MEMORY, &s->served[i].db,
		    &d) != 0)
			fuzz_die(path, d.msg);
		memset(&st, 0, sizeof(st));
		if (dbp_index_update(s->served[i].db,
		    s->served[i].conf->name, s->served[i].conf->print_root,
		    1, &st, &d) != 0)
			fuzz_die(path, d.msg);
		dbp_stats_release(&st);
	}
	s->nserved = s->project.nconns;
	s->deflt = &s->served[0];
	fuzz_server_ready = 1;
	return s;
}

void
fuzz_srv_release(void)
{
	struct srv *s = &fuzz_server;
	size_t i;

	if (!fuzz_server_ready)
		return;
	for (i = 0; i < s->nserved; i++) {
		srv_stmt_close(&s->served[i]);
		if (sqlite3_close(s->served[i].db) != SQLITE_OK)
			fuzz_die(s->served[i].conf->name, "the index cannot "
			    "be closed (a statement left unfinalized)");
	}
	free(s->served);
	dbp_project_release(&s->project);
	memset(s, 0, sizeof(*s));
	fuzz_server_ready = 0;
}

/*
 * fuzz.h - what the fuzz targets of tests/fuzz/ share: the libFuzzer entry
 * points (each fuzz_<name>.c defines LLVMFuzzerTestOneInput; replay.c or
 * libFuzzer supplies main) and a server over a fixture project.
 */
#ifndef DBPRINT_FUZZ_H
#define DBPRINT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

/* The libFuzzer entry points.  Initialize is optional (weak in replay). */
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int	LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Optional in a target (weak in replay.c, never called by libFuzzer):
 * replay calls it after the last input, so a target stops and joins the
 * threads it started and the process exits with none running.
 */
void	fuzz_replay_done(void);

/*
 * The fixtures directory: $DBP_FUZZ_FIXTURES, else the FUZZ_FIXTURES path
 * compiled in by the Makefile.  Never NULL.
 */
const char *fuzz_fixtures(void);

/*
 * A server over fixtures/<project> with every connection served and an
 * in-memory index each, built once per process (the first call) and
 * kept until exit.  The first connection is the default.  Aborts when the
 * fixture cannot be loaded: a fuzz run without its fixture is useless.
 */
struct srv *fuzz_srv(const char *project);

/*
 * Close fuzz_srv()'s indexes and free its server, when one was built, so
 * a replay exits owning nothing (replay.c, after fuzz_replay_done(): no
 * thread may use the server any more).  libFuzzer never calls it.
 */
void	fuzz_srv_release(void);

/* A malloc'd NUL-terminated copy of data[0..size) (abort on OOM). */
char	*fuzz_strndup(const uint8_t *data, size_t size);

#endif /* DBPRINT_FUZZ_H */

/*
 * http.h - the pieces of dbprint-serve's HTTP transport shared between
 * http.c (the daemon, the hardening, Streamable HTTP at /mcp and the
 * upstream /sse + /messages/ endpoints) and http_sess.c (the session
 * table and the /sse streams).
 */
#ifndef DBPRINT_HTTP_H
#define DBPRINT_HTTP_H

#include <stddef.h>

#include <microhttpd.h>

#include "server.h"

struct hs_stream;

/* Characters of a session id: 128 random bits as lower-case hex. */
#define HTTP_SID_LEN	32

/* Set up and tear down the session table.  hs_init: 0 or -1 (OOM). */
int	hs_init(void);
void	hs_fini(void);

/* Make a session with state rs and, when stream is set (GET /sse), bind
 * that stream to it.  id gets the new id.  0, or -1 when no random bytes
 * could be had or memory ran out.  The least recently used session
 * without a stream is dropped when DBP_HTTP_MAX_SESSIONS are live. */
int	hs_create(const struct rpc_session *rs, struct hs_stream *stream,
	    char id[HTTP_SID_LEN + 1]);

/* Copy session id's state into *rs and mark it used: 1 found, 0 not. */
int	hs_get(const char *id, struct rpc_session *rs);

/* Store rs as session id's state (after an initialize within it). */
void	hs_put(const char *id, const struct rpc_session *rs);

/* End session id (DELETE): 1 when it existed, 0 when not.  An open
 * stream of it is ended too. */
int	hs_delete(const char *id);

/* 1 when session id is live and has an open /sse stream. */
int	hs_has_stream(const char *id);

/*
 * The /sse streams.  hs_stream_new makes one for connection c, its first
 * event already queued (caller passes it); the MHD response it returns
 * reads the queue, suspending the connection while it is empty, and is
 * the caller's to queue and destroy.  NULL on OOM.
 */
struct MHD_Response *hs_stream_new(struct MHD_Connection *c,
	    const char *first, struct hs_stream **out);

/* Queue one SSE event (the complete "event: ...\ndata: ...\n\n" text) on
 * session id's stream and wake it.  0, or -1 when the session has no
 * open stream or its queue is over DBP_HTTP_SSE_QUEUE. */
int	hs_stream_push(const char *id, const char *event, size_t len);

/* End every open stream (shutdown): each sends what it holds and ends. */
void	hs_stream_end_all(void);

#endif /* DBPRINT_HTTP_H */

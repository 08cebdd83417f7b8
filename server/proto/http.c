/*
 * http.c - dbprint-serve --transport http: MCP over HTTP on a loopback
 * address, on libmicrohttpd (spec 6.2, research/peers.md 5).
 *
 *   POST /mcp        Streamable HTTP: one JSON-RPC message per request,
 *                    answered as application/json (or as a one-event SSE
 *                    stream when the client accepts only that); a
 *                    notification or response gets 202.  Legacy clients
 *                    open a session with initialize (Mcp-Session-Id);
 *                    2026-07-28 clients are served statelessly, their
 *                    MCP-Protocol-Version, Mcp-Method and Mcp-Name headers
 *                    checked against the body (-32020).
 *   GET /mcp         405: no server-initiated stream is offered.
 *   DELETE /mcp      ends the session named by Mcp-Session-Id.
 *   GET /sse         the upstream HTTP+SSE transport: an SSE stream whose
 *                    first event, "endpoint", names /messages/?session_id=
 *   POST /messages/  a message of that session: 202, its reply an SSE
 *                    "message" event on the stream.
 *
 * Every request is checked before its body is read: Host must name the
 * loopback port (else 421), an Origin must be one of those as http://
 * (else 403), the bearer token when --token-file (or DBPRINT_TOKEN_FILE)
 * is set (else 401), the body at most DBP_HTTP_MAX_BODY (else 413, also
 * when it comes chunked).  No redirects, cookies or CORS headers exist.
 * A connection silent for DBP_HTTP_IDLE_TIMEOUT_S is closed, and so is
 * one whose request has not fully arrived DBP_HTTP_REQUEST_S after its
 * first byte (DBPRINT_HTTP_REQUEST_S; see "The request-time limit").
 * From DBP_HTTP_EVICT_PCT of the connection limit, each connection
 * accepted closes the oldest idle one (http_evict).
 *
 * Concurrency: a pool of worker threads (libmicrohttpd's internal epoll
 * threads); a request takes a worker context - a copy of struct srv with
 * its own SQLite handles on the same index files, sharing the read-only
 * project configuration - for the time of its rpc_handle().  Writes from
 * call_pin() re-indexing run in one transaction under SQLite's lock; in
 * WAL mode the other workers keep reading the last committed state.  An
 * index built in memory (one that could not be written) cannot be shared
 * between handles, so then the pool holds a single context and requests
 * are answered one at a time.
 *
 * SIGTERM/SIGINT (rpc_signals): the listening socket is closed, requests
 * arriving on open connections get 503, /sse streams are ended, the
 * requests in flight finish (at most DBP_HTTP_DRAIN_S), and http_serve
 * returns 0.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "platform.h"

#define HTTP_PARSE_ERROR	(-32700)
#define HTTP_INVALID_REQUEST	(-32600)
#define HTTP_METHOD_NOT_FOUND	(-32601)
#define HTTP_INVALID_PARAMS	(-32602)
#define HTTP_SESSION_NOT_FOUND	(-32001)
#define HTTP_HEADER_MISMATCH	(-32020)
#define HTTP_MISSING_CAPABILITY	(-32021)
#define HTTP_UNSUPPORTED_VERSION	(-32022)

#define HTTP_META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define HTTP_META_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define HTTP_B64_OPEN		"=?base64?"
#define HTTP_B64_CLOSE		"?="
#define HTTP_POLL_MS		100
#define HTTP_PROBE_MS		500	/* idle connections' byte counts */
#define HTTP_LISTEN_BACKLOG	128
#define HTTP_HOST_MAX		64

/* One request in progress (the handler's *req_cls). */
struct http_req {
	char	*body;
	size_t	 len, cap;
	int	 started;	/* the handler has seen the request */
	int	 too_big;
	int	 answered;	/* a response is queued */
};

/* Where a connection is in its current request (struct http_conn). */
enum http_phase { HTTP_IDLE, HTTP_RECEIVING, HTTP_SENDING };

/* One open connection, from accept to close (its socket context). */
struct http_conn {
	struct http_conn	*prev, *next;
	int			 fd;
	enum http_phase		 phase;
	int			 cut;		/* shut down by the watchdog */
	int			 requests;	/* requests begun on it */
	int			 counted;	/* seen is the kernel's count */
	uint64_t		 seen;		/* bytes in when idle began */
	int64_t			 since_ms;	/* when the phase began */
};

/* One worker context: a struct srv with its own index handles. */
struct http_worker {
	struct srv	 s;
	int		 busy;
	int		 owned;		/* s.served and its handles are ours */
};

static struct {
	int			 port;
	char			 hosts[3][HTTP_HOST_MAX];
	char			 origins[3][HTTP_HOST_MAX + 8];
	char			*token;
	size_t			 token_len;
	struct http_worker	*workers;
	size_t			 nworkers;
	pthread_mutex_t		 wmu;
	pthread_cond_t		 wcv;
	atomic_int		 inflight;
	atomic_int		 stopping;
	pthread_mutex_t		 cmu;		/* conns and their records */
	struct http_conn	*conns;		/* newest first */
	struct http_conn	*oldest;	/* the list's last */
	unsigned int		 nconns;	/* in the list */
	unsigned int		 evict_at;	/* nconns that evicts */
	unsigned long		 evicted;	/* since the last log */
	int64_t			 evict_log_ms;
	int64_t			 request_ms;	/* the request-time limit */
	int64_t			 probed_ms;	/* the last byte-count probe */
} g = {
	.wmu = PTHREAD_MUTEX_INITIALIZER,
	.wcv = PTHREAD_COND_INITIALIZER,
	.cmu = PTHREAD_MUTEX_INITIALIZER,
};

/* The revisions a legacy session may name in MCP-Protocol-Version. */
static const char *const http_legacy[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

/* The methods a 2026-07-28 request may call; anything else is 404. */
static const char *const http_modern_methods[] = {
	"server/discover", "tools/list", "tools/call", "resources/list",
	"resources/read", "resources/templates/list", "prompts/list"
};

static int
http_in(const char *v, const char *const *set, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		if (strcmp(v, set[i]) == 0)
			return 1;
	return 0;
}

#define HTTP_IN(v, set)	http_in((v), (set), sizeof(set) / sizeof(set[0]))

/* ------------------------------------------------------------------ */
/* Worker contexts                                                      */

/* Open worker w's own handles on the indexes of base.  0 or -1. */
static int
http_worker_open(struct http_worker *w, const struct srv *base)
{
	struct dbp_diag d;
	size_t i;

	w->s = *base;
	w->s.served = calloc(base->nserved, sizeof(*w->s.served));
	if (w->s.served == NULL)
		return -1;
	w->owned = 1;
	w->s.deflt = base->deflt != NULL ?
	    &w->s.served[base->deflt - base->served] : NULL;
	for (i = 0; i < base->nserved; i++) {
		w->s.served[i].conf = base->served[i].conf;
		w->s.served[i].index_path = base->served[i].index_path;
		d.msg[0] = '\0';
		if (dbp_index_open(base->served[i].index_path, 0,
		    &w->s.served[i].db, &d) != 0) {
			srv_log(SRV_LOG_ERROR, "%s", d.msg);
			return -1;
		}
		srv_index_ident(&w->s.served[i]);
		sqlite3_exec(w->s.served[i].db, DBP_HTTP_CACHE_PRAGMA, NULL,
		    NULL, NULL);
	}
	return 0;
}

static void
http_workers_close(void)
{
	size_t i, k;

	for (i = 0; i < g.nworkers; i++) {
		if (!g.workers[i].owned)
			continue;
		for (k = 0; k < g.workers[i].s.nserved; k++)
			if (g.workers[i].s.served[k].db != NULL) {
				srv_stmt_close(&g.workers[i].s.served[k]);
				sqlite3_close(g.workers[i].s.served[k].db);
			}
		free(g.workers[i].s.served);
	}
	free(g.workers);
	g.workers = NULL;
	g.nworkers = 0;
}

/* n worker contexts over s: the first is s itself.  0 or -1. */
static int
http_workers_open(struct srv *s, size_t n)
{
	size_t i;

	for (i = 0; i < s->nserved; i++)
		if (s->served[i].index_path == NULL) {
			srv_log(SRV_LOG_WARNING, "the index of %s is in memory: "
			    "HTTP requests are answered one at a time",
			    s->served[i].conf->name);
			n = 1;
		}
	if ((g.workers = calloc(n, sizeof(*g.workers))) == NULL)
		return -1;
	g.nworkers = n;
	g.workers[0].s = *s;
	for (i = 0; i < s->nserved; i++)
		sqlite3_exec(s->served[i].db, DBP_HTTP_CACHE_PRAGMA, NULL,
		    NULL, NULL);
	for (i = 1; i < n; i++)
		if (http_worker_open(&g.workers[i], s) != 0)
			return -1;
	return 0;
}

static struct http_worker *
http_worker_take(void)
{
	size_t i;

	pthread_mutex_lock(&g.wmu);
	for (;;) {
		for (i = 0; i < g.nworkers; i++)
			if (!g.workers[i].busy) {
				g.workers[i].busy = 1;
				pthread_mutex_unlock(&g.wmu);
				return &g.workers[i];
			}
		pthread_cond_wait(&g.wcv, &g.wmu);
	}
}

static void
http_worker_give(struct http_worker *w)
{
	pthread_mutex_lock(&g.wmu);
	w->busy = 0;
	pthread_cond_signal(&g.wcv);
	pthread_mutex_unlock(&g.wmu);
}

/* rpc_handle() on a worker context. */
static void
http_rpc(struct rpc_session *rs, const char *msg, size_t len, char **reply)
{
	struct http_worker *w = http_worker_take();

	rpc_handle(&w->s, rs, msg, len, reply);
	http_worker_give(w);
}

/* ------------------------------------------------------------------ */
/* The request-time limit                                               */

/*
 * libmicrohttpd's idle timeout starts again with every byte, so a client
 * that sends a byte every few seconds would hold its connection for
 * ever.  Each connection has a struct http_conn, its socket context from
 * accept (MHD_CONNECTION_NOTIFY_STARTED) to close (..._CLOSED), saying
 * whether it is idle between requests, receiving a request (since when),
 * or sending a response.  http_watchdog(), on http_serve's own thread,
 * shuts down the socket of a connection that has been receiving one
 * request for g.request_ms; the connection's worker thread then reads
 * the end of its socket and closes it as it would any dropped
 * connection.  No 408 is sent: libmicrohttpd queues responses only from
 * the request handler, which has not run yet while headers arrive.
 *
 * When a request starts: the URI log callback marks the connection
 * receiving once its request line is read; before that, the watchdog
 * sees the first bytes in the kernel's count of bytes received on the
 * socket (TCP_INFO, Linux only: platform.c) growing past the count
 * taken when the connection last went idle; it reads the counts every
 * HTTP_PROBE_MS (a system call per idle connection) and dates a start
 * to its previous reading, so a request may be timed up to that much
 * early, never late.  A request
 * stops receiving when the handler queues its response (a response
 * queued before the body has arrived makes libmicrohttpd read no more of
 * it); the connection is idle again when the response has been sent.
 * Where the kernel gives no count (a portable build, every system but
 * Linux), an idle connection is timed as if receiving, from the end of
 * its previous response.  A connection whose
 * socket still holds bytes the server has not read is late through no
 * fault of its client (its worker thread is busy with another request):
 * it is spared until they are read.
 *
 * Thread safety: the records are in one list under g.cmu.  A record
 * leaves the list in its connection's CLOSED notification, which
 * libmicrohttpd gives before it closes the descriptor, so the watchdog,
 * holding g.cmu, only ever touches descriptors that are still open.
 */

static int64_t
http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Idle connections under pressure (issue 19): a client that opens
 * connections and sends nothing would fill the connection limit, and a
 * new client would wait in the listen backlog until the idle timeout.
 * So from DBP_HTTP_EVICT_PCT of the limit, each connection accepted
 * closes one idle on the server, the oldest first: one that never sent
 * a byte (no request begun, and the kernel's count of bytes received is
 * 0 where there is one: TCP_INFO, Linux), else one kept alive between
 * requests with nothing unread.  A connection receiving a request or
 * sending a response is never chosen; those are bounded by the request
 * time limit.  Called with g.cmu held; fresh is the connection just
 * accepted.  The victim is shut down, not closed: its thread sees the
 * end of its socket and closes it as any dropped connection.
 */
static void
http_evict(const struct http_conn *fresh)
{
	struct http_conn *k, *victim = NULL, *idle = NULL;
	int64_t now;
	uint64_t n;
	int unread, silent = 0;

	for (k = g.oldest; k != NULL && victim == NULL; k = k->prev) {
		if (k == fresh || k->cut || k->phase != HTTP_IDLE)
			continue;
		if (ioctl(k->fd, FIONREAD, &unread) == 0 && unread > 0)
			continue;
		if (dbp_tcp_bytes_received(k->fd, &n) != 0)
			n = k->requests == 0 ? 0 : k->seen;
		if (k->requests == 0 && n == 0) {
			victim = k;
			silent = 1;
		} else if (idle == NULL && k->requests > 0 && n == k->seen)
			idle = k;
	}
	if (victim == NULL)
		victim = idle;
	if (victim == NULL)
		return;
	victim->cut = 1;
	shutdown(victim->fd, SHUT_RDWR);
	g.evicted++;
	now = http_now_ms();
	if (now - g.evict_log_ms >= 1000) {
		srv_log(SRV_LOG_INFO, "http: %u connections open: closed %lu "
		    "idle (the last %s)", g.nconns, g.evicted, silent ?
		    "one never sent a byte" : "one was kept alive between "
		    "requests");
		g.evicted = 0;
		g.evict_log_ms = now;
	}
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection's record is made when it is
 * accepted and freed when it closes.  Without memory for the record the
 * connection is shut down at once: it could not be timed. */
static void
http_notify_conn(void *cls, struct MHD_Connection *c, void **sctx,
    enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci;
	struct http_conn *k;

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		*sctx = NULL;
		ci = MHD_get_connection_info(c,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci == NULL)
			return;
		if ((k = calloc(1, sizeof(*k))) == NULL) {
			srv_log(SRV_LOG_WARNING, "http: out of memory for a "
			    "connection; closed");
			shutdown(ci->connect_fd, SHUT_RDWR);
			return;
		}
		k->fd = ci->connect_fd;
		k->phase = HTTP_IDLE;
		k->counted = 1;		/* no byte counted yet: seen = 0 */
		k->since_ms = http_now_ms();
		pthread_mutex_lock(&g.cmu);
		k->next = g.conns;
		if (g.conns != NULL)
			g.conns->prev = k;
		else
			g.oldest = k;
		g.conns = k;
		if (++g.nconns >= g.evict_at)
			http_evict(k);
		pthread_mutex_unlock(&g.cmu);
		*sctx = k;
		return;
	}
	if (code != MHD_CONNECTION_NOTIFY_CLOSED || (k = *sctx) == NULL)
		return;
	pthread_mutex_lock(&g.cmu);
	if (k->prev != NULL)
		k->prev->next = k->next;
	else
		g.conns = k->next;
	if (k->next != NULL)
		k->next->prev = k->prev;
	else
		g.oldest = k->prev;
	g.nconns--;
	pthread_mutex_unlock(&g.cmu);
	free(k);
	*sctx = NULL;
}

/* Connection c (on its own thread) enters phase p.  Receiving keeps the
 * start the watchdog may already have dated; going idle takes the
 * kernel's byte count. */
static void
http_conn_phase(struct MHD_Connection *c, enum http_phase p)
{
	const union MHD_ConnectionInfo *ci;
	struct http_conn *k;
	uint64_t n = 0;
	int counted = 0;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci == NULL || (k = ci->socket_context) == NULL)
		return;
	if (p == HTTP_IDLE)
		counted = dbp_tcp_bytes_received(k->fd, &n) == 0;
	pthread_mutex_lock(&g.cmu);
	if (p != HTTP_RECEIVING || k->phase != HTTP_RECEIVING) {
		if (p == HTTP_RECEIVING)
			k->requests++;
		k->phase = p;
		k->since_ms = http_now_ms();
		k->seen = n;
		k->counted = counted;
	}
	pthread_mutex_unlock(&g.cmu);
}

/* One pass over the connections (http_serve's thread, every
 * HTTP_POLL_MS): date the requests that have begun, shut down those
 * receiving for longer than the limit. */
static void
http_watchdog(void)
{
	struct http_conn *k;
	int64_t now = http_now_ms();
	int probe = now - g.probed_ms >= HTTP_PROBE_MS, unread;
	uint64_t n;

	pthread_mutex_lock(&g.cmu);
	for (k = g.conns; k != NULL; k = k->next) {
		if (k->cut || k->phase == HTTP_SENDING)
			continue;
		if (k->phase == HTTP_IDLE && k->counted) {
			if (!probe)
				continue;
			if (dbp_tcp_bytes_received(k->fd, &n) == 0) {
				if (n <= k->seen)
					continue;
				/* the first byte came after the last probe */
				k->phase = HTTP_RECEIVING;
				if (g.probed_ms > k->since_ms)
					k->since_ms = g.probed_ms;
			}
		}
		if (now - k->since_ms < g.request_ms)
			continue;
		if (ioctl(k->fd, FIONREAD, &unread) == 0 && unread > 0)
			continue;	/* the server is behind, not the client */
		k->cut = 1;
		shutdown(k->fd, SHUT_RDWR);
		srv_log(SRV_LOG_INFO, "http: a request still arriving after "
		    "%lld s; connection closed", (long long)(g.request_ms /
		    1000));
	}
	if (probe)
		g.probed_ms = now;
	pthread_mutex_unlock(&g.cmu);
}

/* The request-time limit: DBPRINT_HTTP_REQUEST_S when set, else
 * DBP_HTTP_REQUEST_S.  0, or -1 after saying why. */
static int
http_request_limit(void)
{
	const char *v = getenv("DBPRINT_HTTP_REQUEST_S");
	char *end;
	long n;

	g.request_ms = (int64_t)DBP_HTTP_REQUEST_S * 1000;
	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n < 1 ||
	    n > DBP_HTTP_REQUEST_MAX_S) {
		fprintf(stderr, "dbprint-serve: DBPRINT_HTTP_REQUEST_S must "
		    "be a whole number of seconds from 1 to %d; got '%s'\n",
		    DBP_HTTP_REQUEST_MAX_S, v);
		return -1;
	}
	g.request_ms = (int64_t)n * 1000;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Responses                                                            */

/* Queue a response of status with body (malloc'd, taken; may be NULL)
 * and content type ctype (NULL: none), plus up to two extra headers. */
static enum MHD_Result
http_send(struct MHD_Connection *c, unsigned int status, char *body,
    size_t len, const char *ctype, const char *h1, const char *v1,
    const char *h2, const char *v2)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	if (body == NULL)
		len = 0;
	r = MHD_create_response_from_buffer(len, body != NULL ? body : "",
	    body != NULL ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	if (ctype != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (h1 != NULL)
		MHD_add_response_header(r, h1, v1);
	if (h2 != NULL)
		MHD_add_response_header(r, h2, v2);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* A JSON-RPC error frame (id as given, or null) as the body of status. */
static enum MHD_Result
http_error(struct MHD_Connection *c, unsigned int status, const cJSON *id,
    int code, const char *msg, const char *h1, const char *v1)
{
	cJSON *o, *e;
	char *body;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	if (id != NULL)
		srv_json_put(o, "id", cJSON_Duplicate(id, 1));
	else
		cJSON_AddNullToObject(o, "id");
	e = cJSON_AddObjectToObject(o, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return http_send(c, status, body, body != NULL ? strlen(body) : 0,
	    "application/json", h1, v1, NULL, NULL);
}

/* The JSON-RPC error code of a reply frame to request id, or 0 when it
 * is a result.  The frame is rpc.c's: {"jsonrpc":"2.0","id":<id>,
 * "error":{"code":<n>,... */
static int
http_reply_code(const char *reply, const cJSON *id)
{
	static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
	static const char err[] = ",\"error\":{\"code\":";
	char *ids;
	size_t n;
	int code = 0;

	if (strncmp(reply, head, sizeof(head) - 1) != 0)
		return 0;
	reply += sizeof(head) - 1;
	ids = id != NULL ? cJSON_PrintUnformatted(id) : strdup("null");
	if (ids == NULL)
		return 0;
	n = strlen(ids);
	if (strncmp(reply, ids, n) == 0 &&
	    strncmp(reply + n, err, sizeof(err) - 1) == 0)
		code = atoi(reply + n + sizeof(err) - 1);
	free(ids);
	return code;
}

/* Send reply (malloc'd, taken) to a POST /mcp as JSON or as one SSE
 * message event. */
static enum MHD_Result
http_send_reply(struct MHD_Connection *c, unsigned int status, char *reply,
    int sse, const char *sid)
{
	char *ev;
	size_t n;
	int k;

	if (!sse)
		return http_send(c, status, reply, strlen(reply),
		    "application/json", sid ? "Mcp-Session-Id" : NULL, sid,
		    NULL, NULL);
	n = strlen(reply) + 32;
	if ((ev = malloc(n)) == NULL) {
		free(reply);
		return MHD_NO;
	}
	k = snprintf(ev, n, "event: message\ndata: %s\n\n", reply);
	free(reply);
	return http_send(c, status, ev, (size_t)k, "text/event-stream",
	    "Cache-Control", "no-cache", sid ? "Mcp-Session-Id" : NULL, sid);
}

/* ------------------------------------------------------------------ */
/* Hardening                                                            */

static const char *
http_header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* 1 when a equals b, in time that depends on the lengths only. */
static int
http_same(const char *a, size_t alen, const char *b, size_t blen)
{
	volatile unsigned char diff = alen != blen;
	size_t i;

	for (i = 0; i < alen; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)b[i % (blen + 1)];
	return diff == 0;
}

/* The checks every request passes before anything else is looked at;
 * MHD_YES with *done set when a refusal was queued. */
static enum MHD_Result
http_guard(struct MHD_Connection *c, int *done)
{
	const char *host, *origin, *auth;
	size_t i;

	*done = 1;
	host = http_header(c, MHD_HTTP_HEADER_HOST);
	for (i = 0; host != NULL && i < 3; i++)
		if (strcasecmp(host, g.hosts[i]) == 0)
			break;
	if (host == NULL || i == 3)
		return http_error(c, MHD_HTTP_MISDIRECTED_REQUEST, NULL,
		    HTTP_INVALID_REQUEST, "Misdirected Request: the Host "
		    "header must name this server's loopback address and port",
		    NULL, NULL);
	origin = http_header(c, MHD_HTTP_HEADER_ORIGIN);
	for (i = 0; origin != NULL && i < 3; i++)
		if (strcasecmp(origin, g.origins[i]) == 0)
			break;
	if (origin != NULL && i == 3)
		return http_error(c, MHD_HTTP_FORBIDDEN, NULL,
		    HTTP_INVALID_REQUEST, "Forbidden: this Origin may not use "
		    "this server", NULL, NULL);
	if (g.token != NULL) {
		auth = http_header(c, MHD_HTTP_HEADER_AUTHORIZATION);
		if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0 ||
		    !http_same(auth + 7, strlen(auth + 7), g.token,
		    g.token_len))
			return http_error(c, MHD_HTTP_UNAUTHORIZED, NULL,
			    HTTP_INVALID_REQUEST, "Unauthorized: a valid "
			    "bearer token is required",
			    MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	}
	if (atomic_load(&g.stopping))
		return http_send(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, 0, NULL,
		    MHD_HTTP_HEADER_CONNECTION, "close", NULL, NULL);
	*done = 0;
	return MHD_YES;
}

/* ------------------------------------------------------------------ */
/* Streamable HTTP: POST /mcp                                           */

/* A header value without the optional whitespace around it (RFC 9110
 * 5.5), malloc'd; NULL on OOM. */
static char *
http_trim(const char *v)
{
	size_t n;

	while (*v == ' ' || *v == '\t')
		v++;
	n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return strndup(v, n);
}

/* 1 when header value h, whitespace-trimmed, is want. */
static int
http_header_eq(const char *h, const char *want)
{
	char *v;
	int same;

	if (h == NULL || (v = http_trim(h)) == NULL)
		return 0;
	same = strcmp(v, want) == 0;
	free(v);
	return same;
}

/* Decode a (trimmed) header value that may be "=?base64?...?=" into a
 * malloc'd string (NULL when it does not decode). */
static char *
http_unb64(const char *v)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789+/";
	size_t n = strlen(v), ol = sizeof(HTTP_B64_OPEN) - 1;
	size_t cl = sizeof(HTTP_B64_CLOSE) - 1, i, o = 0;
	unsigned long acc = 0;
	int bits = 0;
	const char *p;
	char *out;

	if (n < ol + cl || strncasecmp(v, HTTP_B64_OPEN, ol) != 0 ||
	    strcmp(v + n - cl, HTTP_B64_CLOSE) != 0)
		return strdup(v);
	if ((out = malloc(n)) == NULL)
		return NULL;
	for (i = ol; i < n - cl; i++) {
		if (v[i] == '=')
			break;
		if ((p = strchr(al, v[i])) == NULL || v[i] == '\0') {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned long)(p - al);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = '\0';
	if (strlen(out) != o) {
		free(out);
		return NULL;
	}
	return out;
}

/* 1 when header h (maybe Base64-wrapped) spells want exactly. */
static int
http_header_is(const char *h, const char *want)
{
	char *t, *v;
	int same;

	if (h == NULL || want == NULL || (t = http_trim(h)) == NULL)
		return 0;
	v = http_unb64(t);
	free(t);
	if (v == NULL)
		return 0;
	same = strcmp(v, want) == 0;
	free(v);
	return same;
}

/* The 2026-07-28 header checks; 0, or -1 after queuing the error. */
static int
http_modern_headers(struct MHD_Connection *c, const cJSON *id,
    const char *method, const cJSON *params, const cJSON *mv,
    enum MHD_Result *res)
{
	const char *pv, *mh, *nh, *key = NULL;
	const cJSON *name;
	char m[160];

	pv = http_header(c, "MCP-Protocol-Version");
	if (!cJSON_IsString(mv) || !http_header_eq(pv, mv->valuestring)) {
		*res = http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_HEADER_MISMATCH, "Header mismatch: the "
		    "MCP-Protocol-Version header must equal params._meta's "
		    HTTP_META_VERSION, NULL, NULL);
		return -1;
	}
	mh = http_header(c, "Mcp-Method");
	if (!http_header_eq(mh, method)) {
		*res = http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_HEADER_MISMATCH, "Header mismatch: the Mcp-Method "
		    "header must equal the body's method", NULL, NULL);
		return -1;
	}
	if (strcmp(method, "tools/call") == 0 ||
	    strcmp(method, "prompts/get") == 0)
		key = "name";
	else if (strcmp(method, "resources/read") == 0)
		key = "uri";
	if (key == NULL)
		return 0;
	name = cJSON_GetObjectItemCaseSensitive(params, key);
	nh = http_header(c, "Mcp-Name");
	if (!cJSON_IsString(name) || !http_header_is(nh, name->valuestring)) {
		snprintf(m, sizeof(m), "Header mismatch: the Mcp-Name header "
		    "must equal params.%s", key);
		*res = http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_HEADER_MISMATCH, m, NULL, NULL);
		return -1;
	}
	return 0;
}

/* Which representation the client accepts: 0 JSON, 1 SSE only, -1
 * neither. */
static int
http_accept(struct MHD_Connection *c)
{
	const char *a = http_header(c, MHD_HTTP_HEADER_ACCEPT);

	if (a == NULL || dbp_strcasestr(a, "application/json") != NULL ||
	    strstr(a, "*/*") != NULL ||
	    dbp_strcasestr(a, "application/*") != NULL)
		return 0;
	if (dbp_strcasestr(a, "text/event-stream") != NULL)
		return 1;
	return -1;
}

/* 1 when the request's Content-Type is JSON. */
static int
http_json_type(struct MHD_Connection *c)
{
	const char *t = http_header(c, MHD_HTTP_HEADER_CONTENT_TYPE);

	return t != NULL && strncasecmp(t, "application/json", 16) == 0 &&
	    (t[16] == '\0' || t[16] == ';' || t[16] == ' ');
}

/* Parse the body as one JSON-RPC message object, by rpc_parse()'s rules
 * (the same as stdio's: UTF-8, JSON's own whitespace, one value, an id
 * that can be echoed); NULL after queuing the 400 (parse error, bad id,
 * batch, not an object). */
static cJSON *
http_parse(struct MHD_Connection *c, const struct http_req *q,
    enum MHD_Result *res)
{
	char why[RPC_WHY_MAX];
	cJSON *req;
	int code;

	req = rpc_parse(q->body != NULL ? q->body : "", q->len, &code, why,
	    sizeof(why));
	if (req == NULL) {
		*res = http_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		    code, why, NULL, NULL);
		return NULL;
	}
	if (cJSON_IsArray(req)) {
		cJSON_Delete(req);
		*res = http_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		    HTTP_INVALID_REQUEST, "Invalid Request: batches are not "
		    "supported; send one message per request", NULL, NULL);
		return NULL;
	}
	if (!cJSON_IsObject(req)) {
		cJSON_Delete(req);
		*res = http_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		    HTTP_INVALID_REQUEST, "Invalid Request: a message must be "
		    "a JSON object", NULL, NULL);
		return NULL;
	}
	return req;
}

/* HTTP status of a modern reply carrying JSON-RPC error code. */
static unsigned int
http_modern_status(int code)
{
	if (code == HTTP_METHOD_NOT_FOUND)
		return MHD_HTTP_NOT_FOUND;
	if (code == HTTP_UNSUPPORTED_VERSION || code == HTTP_HEADER_MISMATCH ||
	    code == HTTP_MISSING_CAPABILITY || code == HTTP_INVALID_REQUEST ||
	    code == HTTP_PARSE_ERROR)
		return MHD_HTTP_BAD_REQUEST;
	return MHD_HTTP_OK;
}

/* 202 Accepted, no body: a notification or a response was taken. */
static enum MHD_Result
http_accepted(struct MHD_Connection *c)
{
	return http_send(c, MHD_HTTP_ACCEPTED, NULL, 0, NULL, NULL, NULL,
	    NULL, NULL);
}

/* A POST /mcp message without a method: a response (we never send
 * requests), taken, or a broken message, answered as JSON-RPC says. */
static enum MHD_Result
http_post_nomethod(struct MHD_Connection *c, struct http_req *q,
    const cJSON *req, const cJSON *id, int sse)
{
	struct rpc_session rs;
	char *reply = NULL;

	if (id != NULL && (cJSON_GetObjectItemCaseSensitive(req,
	    "result") != NULL || cJSON_GetObjectItemCaseSensitive(req,
	    "error") != NULL))
		return http_accepted(c);
	memset(&rs, 0, sizeof(rs));
	http_rpc(&rs, q->body, q->len, &reply);
	if (reply == NULL)
		return http_accepted(c);
	return http_send_reply(c, MHD_HTTP_BAD_REQUEST, reply, sse, NULL);
}

/* A 2026-07-28 request: its _meta (mv the protocol version) and headers
 * checked, then answered without a session. */
static enum MHD_Result
http_post_modern(struct MHD_Connection *c, struct http_req *q,
    const cJSON *id, const char *m, const cJSON *params, const cJSON *meta,
    const cJSON *mv, int sse)
{
	struct rpc_session rs;
	const cJSON *caps;
	enum MHD_Result res = MHD_YES;
	char *reply = NULL;

	if (mv == NULL)
		return http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_INVALID_PARAMS, "Invalid params: a 2026-07-28 "
		    "request carries params._meta with "
		    HTTP_META_VERSION " and " HTTP_META_CAPS, NULL, NULL);
	if (http_modern_headers(c, id, m, params, mv, &res) != 0)
		return res;
	if (id == NULL)
		return http_accepted(c);
	caps = cJSON_GetObjectItemCaseSensitive(meta, HTTP_META_CAPS);
	if (cJSON_IsString(mv) &&
	    strcmp(mv->valuestring, SRV_PROTO_MODERN) == 0 &&
	    !cJSON_IsObject(caps))
		return http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_INVALID_PARAMS, "Invalid params: _meta must "
		    "carry " HTTP_META_CAPS " (an object) beside "
		    HTTP_META_VERSION, NULL, NULL);
	if (cJSON_IsString(mv) &&
	    strcmp(mv->valuestring, SRV_PROTO_MODERN) == 0 &&
	    !HTTP_IN(m, http_modern_methods))
		return http_error(c, MHD_HTTP_NOT_FOUND, id,
		    HTTP_METHOD_NOT_FOUND, "Method not found", NULL, NULL);
	memset(&rs, 0, sizeof(rs));
	http_rpc(&rs, q->body, q->len, &reply);
	if (reply == NULL)
		return http_accepted(c);
	return http_send_reply(c, http_modern_status(http_reply_code(reply,
	    id)), reply, sse, NULL);
}

/* A legacy request: initialize opens a session; the rest need one (sid,
 * the Mcp-Session-Id header; pv, the MCP-Protocol-Version header). */
static enum MHD_Result
http_post_legacy(struct MHD_Connection *c, struct http_req *q,
    const cJSON *id, const char *m, const char *sid, const char *pv, int sse)
{
	struct rpc_session rs;
	char nsid[HTTP_SID_LEN + 1], *reply = NULL;

	memset(&rs, 0, sizeof(rs));
	if (strcmp(m, "initialize") == 0 && id != NULL) {
		http_rpc(&rs, q->body, q->len, &reply);
		if (reply == NULL)
			return MHD_NO;
		if (http_reply_code(reply, id) != 0)
			return http_send_reply(c, MHD_HTTP_OK, reply, sse,
			    NULL);
		if (hs_create(&rs, NULL, nsid) != 0) {
			free(reply);
			return http_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id,
			    HTTP_INVALID_REQUEST, "Service Unavailable: no "
			    "session could be opened", NULL, NULL);
		}
		srv_log(SRV_LOG_INFO, "HTTP session opened (%s)", rs.version);
		return http_send_reply(c, MHD_HTTP_OK, reply, sse, nsid);
	}
	if (sid == NULL && strcmp(m, "server/discover") != 0)
		return http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_INVALID_REQUEST, "Bad Request: an Mcp-Session-Id "
		    "header is required (open a session with initialize, or "
		    "send 2026-07-28 requests with params._meta)", NULL, NULL);
	if (sid != NULL && !hs_get(sid, &rs))
		return http_error(c, MHD_HTTP_NOT_FOUND, id,
		    HTTP_SESSION_NOT_FOUND, "Session not found", NULL, NULL);
	if (pv != NULL && !HTTP_IN(pv, http_legacy) &&
	    strcmp(pv, SRV_PROTO_MODERN) != 0)
		return http_error(c, MHD_HTTP_BAD_REQUEST, id,
		    HTTP_INVALID_REQUEST, "Bad Request: unsupported "
		    "MCP-Protocol-Version header", NULL, NULL);
	if (id == NULL)
		return http_accepted(c);
	http_rpc(&rs, q->body, q->len, &reply);
	if (reply == NULL)
		return http_accepted(c);
	return http_send_reply(c, MHD_HTTP_OK, reply, sse, NULL);
}

static enum MHD_Result
http_post_mcp(struct MHD_Connection *c, struct http_req *q)
{
	const cJSON *id, *method, *params, *meta, *mv = NULL;
	const char *sid, *pv, *m;
	enum MHD_Result res = MHD_YES;
	cJSON *req;
	int sse, modern;

	if (!http_json_type(c))
		return http_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
		    HTTP_INVALID_REQUEST, "Unsupported Media Type: the body "
		    "must be application/json", NULL, NULL);
	if ((sse = http_accept(c)) < 0)
		return http_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL,
		    HTTP_INVALID_REQUEST, "Not Acceptable: the client must "
		    "accept application/json or text/event-stream", NULL, NULL);
	if ((req = http_parse(c, q, &res)) == NULL)
		return res;
	id = cJSON_GetObjectItemCaseSensitive(req, "id");
	method = cJSON_GetObjectItemCaseSensitive(req, "method");
	params = cJSON_GetObjectItemCaseSensitive(req, "params");
	m = cJSON_IsString(method) ? method->valuestring : NULL;
	meta = cJSON_IsObject(params) ?
	    cJSON_GetObjectItemCaseSensitive(params, "_meta") : NULL;
	if (cJSON_IsObject(meta))
		mv = cJSON_GetObjectItemCaseSensitive(meta, HTTP_META_VERSION);
	sid = http_header(c, "Mcp-Session-Id");
	pv = http_header(c, "MCP-Protocol-Version");
	modern = (mv != NULL && !(cJSON_IsString(mv) &&
	    HTTP_IN(mv->valuestring, http_legacy))) ||
	    (mv == NULL && sid == NULL && pv != NULL &&
	    strcmp(pv, SRV_PROTO_MODERN) == 0);
	if (m == NULL)
		res = http_post_nomethod(c, q, req, id, sse);
	else if (modern)
		res = http_post_modern(c, q, id, m, params, meta, mv, sse);
	else
		res = http_post_legacy(c, q, id, m, sid, pv, sse);
	cJSON_Delete(req);
	return res;
}

static enum MHD_Result
http_delete_mcp(struct MHD_Connection *c)
{
	const char *sid = http_header(c, "Mcp-Session-Id");

	if (sid == NULL)
		return http_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		    HTTP_INVALID_REQUEST, "Bad Request: DELETE needs the "
		    "Mcp-Session-Id header", NULL, NULL);
	if (!hs_delete(sid))
		return http_error(c, MHD_HTTP_NOT_FOUND, NULL,
		    HTTP_SESSION_NOT_FOUND, "Session not found", NULL, NULL);
	return http_send(c, MHD_HTTP_OK, NULL, 0, NULL, NULL, NULL, NULL,
	    NULL);
}

/* ------------------------------------------------------------------ */
/* The upstream HTTP+SSE transport: GET /sse, POST /messages/           */

static enum MHD_Result
http_get_sse(struct MHD_Connection *c)
{
	struct rpc_session rs;
	struct hs_stream *st;
	struct MHD_Response *r;
	char sid[HTTP_SID_LEN + 1], ev[96];
	enum MHD_Result rc;
	int n;

	if ((r = hs_stream_new(c, NULL, &st)) == NULL)
		return MHD_NO;
	memset(&rs, 0, sizeof(rs));
	if (hs_create(&rs, st, sid) != 0) {
		MHD_destroy_response(r);
		return http_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
		    HTTP_INVALID_REQUEST, "Service Unavailable: no session "
		    "could be opened", NULL, NULL);
	}
	n = snprintf(ev, sizeof(ev), "event: endpoint\ndata: "
	    "/messages/?session_id=%s\n\n", sid);
	hs_stream_push(sid, ev, (size_t)n);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "text/event-stream");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	srv_log(SRV_LOG_INFO, "SSE stream opened");
	return rc;
}

static enum MHD_Result
http_post_messages(struct MHD_Connection *c, struct http_req *q)
{
	struct rpc_session rs;
	const char *sid;
	const cJSON *id, *method;
	char *reply = NULL, *ev;
	enum MHD_Result res = MHD_YES;
	cJSON *req;
	size_t n;
	int k, init;

	sid = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
	    "session_id");
	if (sid == NULL)
		return http_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		    HTTP_INVALID_REQUEST, "Bad Request: session_id is required",
		    NULL, NULL);
	if (!hs_has_stream(sid) || !hs_get(sid, &rs))
		return http_error(c, MHD_HTTP_NOT_FOUND, NULL,
		    HTTP_SESSION_NOT_FOUND, "Could not find session", NULL,
		    NULL);
	if ((req = http_parse(c, q, &res)) == NULL)
		return res;
	id = cJSON_GetObjectItemCaseSensitive(req, "id");
	method = cJSON_GetObjectItemCaseSensitive(req, "method");
	init = cJSON_IsString(method) &&
	    strcmp(method->valuestring, "initialize") == 0;
	http_rpc(&rs, q->body, q->len, &reply);
	if (init && reply != NULL && http_reply_code(reply, id) == 0)
		hs_put(sid, &rs);
	/* id points into req: req lives until the last use of id */
	if (reply != NULL) {
		n = strlen(reply) + 32;
		ev = malloc(n);
		if (ev == NULL) {
			free(reply);
			cJSON_Delete(req);
			return MHD_NO;
		}
		k = snprintf(ev, n, "event: message\ndata: %s\n\n", reply);
		free(reply);
		if (hs_stream_push(sid, ev, (size_t)k) != 0) {
			free(ev);
			res = http_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id,
			    HTTP_INVALID_REQUEST, "Service Unavailable: the "
			    "session's stream is closed or full", NULL, NULL);
			cJSON_Delete(req);
			return res;
		}
		free(ev);
	}
	cJSON_Delete(req);
	n = strlen("Accepted");
	return http_send(c, MHD_HTTP_ACCEPTED, strdup("Accepted"), n,
	    "text/plain; charset=utf-8", NULL, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* The request handler                                                  */

static enum MHD_Result
http_too_large(struct MHD_Connection *c)
{
	char m[128];

	snprintf(m, sizeof(m), "Content Too Large: a message may take at "
	    "most %ld bytes", (long)DBP_HTTP_MAX_BODY);
	return http_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
	    HTTP_INVALID_REQUEST, m, NULL, NULL);
}

enum http_route { HTTP_R_NONE, HTTP_R_MCP, HTTP_R_SSE, HTTP_R_MESSAGES };

static enum http_route
http_route(const char *url)
{
	if (strcmp(url, "/mcp") == 0 || strcmp(url, "/mcp/") == 0)
		return HTTP_R_MCP;
	if (strcmp(url, "/sse") == 0)
		return HTTP_R_SSE;
	if (strcmp(url, "/messages/") == 0 || strcmp(url, "/messages") == 0)
		return HTTP_R_MESSAGES;
	return HTTP_R_NONE;
}

/* The request has arrived (or is refused before its body): a response
 * is queued next, and the request-time limit no longer runs. */
/* Content-Length headers seen so far (http_cl_each). */
struct http_cl {
	const char	*first;
	int		 differ;
};

static enum MHD_Result
http_cl_each(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	struct http_cl *cl = cls;

	(void)kind;
	if (key == NULL || strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		return MHD_YES;
	if (value == NULL)
		value = "";
	if (cl->first == NULL)
		cl->first = value;
	else if (strcmp(cl->first, value) != 0)
		cl->differ = 1;
	return MHD_YES;
}

/*
 * 1 when the request carries Content-Length headers that disagree: RFC
 * 9112 6.3 makes that an unrecoverable framing error (400, and the
 * connection closed, since where the body ends is unknown).  Headers
 * that repeat one value are taken as one.
 */
static int
http_cl_conflict(struct MHD_Connection *c)
{
	struct http_cl cl = { NULL, 0 };

	MHD_get_connection_values(c, MHD_HEADER_KIND, http_cl_each, &cl);
	return cl.differ;
}

static void
http_answering(struct MHD_Connection *c, struct http_req *q)
{
	q->answered = 1;
	http_conn_phase(c, HTTP_SENDING);
}

static enum MHD_Result
http_handler(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **req_cls)
{
	struct http_req *q = *req_cls;
	enum http_route route;
	const char *cl;
	char *nb;
	size_t ncap;
	int done;
	enum MHD_Result rc;

	(void)cls;
	(void)version;
	route = http_route(url);
	if (q == NULL)
		return MHD_NO;		/* out of memory at its start */
	if (!q->started) {
		q->started = 1;
		rc = http_guard(c, &done);
		if (done) {
			http_answering(c, q);
			return rc;
		}
		if (http_cl_conflict(c)) {
			http_answering(c, q);
			return http_error(c, MHD_HTTP_BAD_REQUEST, NULL,
			    HTTP_INVALID_REQUEST, "Bad Request: Content-Length "
			    "headers that differ", MHD_HTTP_HEADER_CONNECTION,
			    "close");
		}
		if (route == HTTP_R_NONE) {
			http_answering(c, q);
			return http_error(c, MHD_HTTP_NOT_FOUND, NULL,
			    HTTP_INVALID_REQUEST, "Not Found: the MCP endpoint "
			    "is /mcp", NULL, NULL);
		}
		if (strcmp(method, MHD_HTTP_METHOD_POST) == 0 &&
		    route != HTTP_R_SSE) {
			cl = http_header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
			if (cl != NULL && strtoull(cl, NULL, 10) >
			    (unsigned long long)DBP_HTTP_MAX_BODY) {
				http_answering(c, q);
				return http_too_large(c);
			}
			return MHD_YES;		/* the body comes next */
		}
		http_answering(c, q);
		if (route == HTTP_R_MCP &&
		    strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
			return http_delete_mcp(c);
		if (route == HTTP_R_SSE &&
		    strcmp(method, MHD_HTTP_METHOD_GET) == 0)
			return http_get_sse(c);
		return http_send(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, 0, NULL,
		    MHD_HTTP_HEADER_ALLOW, route == HTTP_R_MCP ?
		    "POST, DELETE" : route == HTTP_R_SSE ? "GET" : "POST",
		    NULL, NULL);
	}
	if (q->answered) {
		*upload_size = 0;	/* drain what follows a refusal */
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (!q->too_big && q->len + *upload_size >
		    (size_t)DBP_HTTP_MAX_BODY) {
			q->too_big = 1;
			free(q->body);
			q->body = NULL;
			q->len = q->cap = 0;
		}
		if (!q->too_big) {
			if (q->len + *upload_size + 1 > q->cap) {
				ncap = q->cap ? q->cap * 2 : 4096;
				while (ncap < q->len + *upload_size + 1)
					ncap *= 2;
				if ((nb = realloc(q->body, ncap)) == NULL)
					return MHD_NO;
				q->body = nb;
				q->cap = ncap;
			}
			memcpy(q->body + q->len, upload, *upload_size);
			q->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	http_answering(c, q);
	if (q->too_big)
		return http_too_large(c);
	if (route == HTTP_R_MESSAGES)
		return http_post_messages(c, q);
	return http_post_mcp(c, q);
}

/*
 * A request starts: libmicrohttpd's URI log callback runs once per
 * request as soon as its request line is read, before the handler, and
 * what it returns is the request's *req_cls; the completion callback
 * runs once for each such request, answered or aborted.  Between the two
 * the request counts as in flight (what shutdown waits for), and its
 * connection is receiving until the handler answers, idle again once
 * the response is sent (the request-time limit).
 */
static void *
http_uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)uri;
	http_conn_phase(c, HTTP_RECEIVING);
	atomic_fetch_add(&g.inflight, 1);
	return calloc(1, sizeof(struct http_req));
}

static void
http_completed(void *cls, struct MHD_Connection *c, void **req_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct http_req *q = *req_cls;

	(void)cls;
	(void)toe;
	http_conn_phase(c, HTTP_IDLE);
	if (q != NULL) {
		free(q->body);
		free(q);
	}
	*req_cls = NULL;
	atomic_fetch_sub(&g.inflight, 1);
}

/* libmicrohttpd's own errors (malformed requests, limits) to the log. */
static void
http_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char m[512];

	(void)cls;
	if (srv_log_level < SRV_LOG_DEBUG)
		return;
	vsnprintf(m, sizeof(m), fmt, ap);
	m[strcspn(m, "\n")] = '\0';
	srv_log(SRV_LOG_DEBUG, "http: %s", m);
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                       */

/* Read the bearer token of --token-file / DBPRINT_TOKEN_FILE.  0 (also
 * when none is configured) or -1 after saying why. */
static int
http_token(struct srv *s)
{
	const char *path = s->token_file;
	struct dbp_diag d;
	char *text = NULL;
	size_t len = 0;

	if (path == NULL || *path == '\0')
		path = getenv("DBPRINT_TOKEN_FILE");
	if (path == NULL || *path == '\0')
		return 0;
	d.msg[0] = '\0';
	if (dbp_read_file(path, DBP_HTTP_MAX_TOKEN, &text, &len, NULL,
	    &d) != 0) {
		fprintf(stderr, "dbprint-serve: the token file: %s\n",
		    d.msg);
		return -1;
	}
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
	    text[len - 1] == ' ' || text[len - 1] == '\t'))
		text[--len] = '\0';
	if (len == 0 || strlen(text) != len || strpbrk(text, " \t\r\n") !=
	    NULL) {
		fprintf(stderr, "dbprint-serve: the token file %s must hold "
		    "one token (no spaces) on one line\n", path);
		free(text);
		return -1;
	}
	g.token = text;
	g.token_len = len;
	return 0;
}

/* Make the listening socket on host:port (0: any free port).  The fd,
 * or -1 after saying why; *bound gets the port. */
static int
http_listen(const char *host, int port, int *bound)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	int fd, one = 1, v6 = strcmp(host, "::1") == 0;

	memset(&ss, 0, sizeof(ss));
	if (v6) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		a6->sin6_addr = in6addr_loopback;
		sl = sizeof(*a6);
	} else {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*a4);
	}
	fd = dbp_socket_cloexec(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) != 0 ||
	    listen(fd, HTTP_LISTEN_BACKLOG) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		fprintf(stderr, "dbprint-serve: cannot listen on "
		    "%s%s%s:%d: %s\n",
		    v6 ? "[" : "", v6 ? "::1" : "127.0.0.1", v6 ? "]" : "",
		    port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*bound = ntohs(v6 ? a6->sin6_port : a4->sin_port);
	return fd;
}

/* Connections allowed at once: the named cap, within the descriptors. */
static unsigned int
http_conn_limit(void)
{
	struct rlimit rl;
	unsigned long n = DBP_HTTP_MAX_CONNECTIONS;
	const unsigned long reserve = 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < n + reserve) {
			rl.rlim_cur = rl.rlim_max < n + reserve ? rl.rlim_max :
			    n + reserve;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur < n + reserve)
			n = rl.rlim_cur > 2 * reserve ? rl.rlim_cur - reserve :
			    reserve;
	}
	return (unsigned int)n;
}

static size_t
http_nthreads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2)
		n = 2;
	if (n > DBP_HTTP_MAX_THREADS)
		n = DBP_HTTP_MAX_THREADS;
	return (size_t)n;
}

int
http_serve(struct srv *s, const char *host, int port)
{
	struct MHD_Daemon *daemon = NULL;
	struct timespec t0, now;
	size_t i, nthreads = http_nthreads();
	unsigned int limit;
	int fd, bound = 0, rc = -1;

	if (http_request_limit() != 0 || http_token(s) != 0)
		return -1;
	if ((fd = http_listen(host, port, &bound)) < 0)
		goto out;
	g.port = bound;
	snprintf(g.hosts[0], HTTP_HOST_MAX, "127.0.0.1:%d", bound);
	snprintf(g.hosts[1], HTTP_HOST_MAX, "localhost:%d", bound);
	snprintf(g.hosts[2], HTTP_HOST_MAX, "[::1]:%d", bound);
	for (i = 0; i < 3; i++)
		snprintf(g.origins[i], sizeof(g.origins[i]), "http://%s",
		    g.hosts[i]);
	if (hs_init() != 0 || http_workers_open(s, nthreads) != 0) {
		fprintf(stderr, "dbprint-serve: cannot prepare the HTTP "
		    "workers\n");
		close(fd);
		goto out;
	}
	limit = http_conn_limit();
	g.evict_at = (unsigned int)((unsigned long)limit *
	    DBP_HTTP_EVICT_PCT / 100);
	/* The sandbox, now that the socket is bound and the token read,
	 * and before the daemon starts its threads (which inherit it). */
	if (s->confine != NULL && s->confine(s, 1) < 0) {
		close(fd);
		goto out;
	}
	/* epoll (Linux) or poll: never select(), whose FD_SETSIZE (1024) a
	 * descriptor past the limit's would overrun. */
	daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
	    (dbp_platform_linux() ? MHD_USE_EPOLL : MHD_USE_POLL) |
	    MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME |
	    MHD_USE_ERROR_LOG | (strcmp(host, "::1") == 0 ? MHD_USE_IPv6 : 0),
	    0, NULL, NULL, http_handler, NULL,
	    MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, NULL,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)nthreads,
	    MHD_OPTION_CONNECTION_LIMIT, limit,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)DBP_HTTP_IDLE_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)DBP_HTTP_CONN_MEMORY,
	    MHD_OPTION_URI_LOG_CALLBACK, http_uri_log, NULL,
	    MHD_OPTION_NOTIFY_COMPLETED, http_completed, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, http_notify_conn, NULL,
	    MHD_OPTION_END);
	if (daemon == NULL) {
		fprintf(stderr, "dbprint-serve: the HTTP server could not "
		    "start on port %d\n", bound);
		close(fd);
		goto out;
	}
	fprintf(stderr, "%s: listening on http://%s%s%s:%d/mcp%s\n",
	    dbp_progname(), strcmp(host, "::1") == 0 ? "[" : "",
	    strcmp(host, "::1") == 0 ? "::1" : "127.0.0.1",
	    strcmp(host, "::1") == 0 ? "]" : "", bound,
	    g.token != NULL ? " (bearer token required)" : "");
	fflush(stderr);
	while (!rpc_stopping()) {
		poll(NULL, 0, HTTP_POLL_MS);
		http_watchdog();
	}

	/* Shutdown (spec 7.3): stop accepting, end the streams, let the
	 * requests in flight finish, then stop. */
	atomic_store(&g.stopping, 1);
	fd = MHD_quiesce_daemon(daemon);
	if (fd >= 0)
		close(fd);
	hs_stream_end_all();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&g.inflight) > 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= DBP_HTTP_DRAIN_S) {
			srv_log(SRV_LOG_WARNING, "stopping with %d requests "
			    "still in flight", atomic_load(&g.inflight));
			break;
		}
		poll(NULL, 0, 10);
		http_watchdog();
	}
	MHD_stop_daemon(daemon);
	srv_log(SRV_LOG_INFO, "HTTP server stopped");
	rc = 0;
out:
	http_workers_close();
	hs_fini();
	if (g.token != NULL) {
		memset(g.token, 0, g.token_len);
		free(g.token);
		g.token = NULL;
	}
	return rc;
}

/*
 * rpc.c - JSON-RPC 2.0 over newline-delimited stdio: framing, the
 * envelope checks, and the hand-off to the MCP methods in mcp.c.
 *
 * One message per line, UTF-8.  A trailing CR is stripped, blank lines
 * are skipped, a line longer than DBP_MAX_FRAME is discarded up to its
 * newline and answered with an error, an unparseable line is answered
 * with -32700, a batch (JSON array) with -32600, and a notification is
 * never answered.  Each reply is written with one write(2) and nothing
 * else ever reaches the output descriptor.
 */
#define _POSIX_C_SOURCE	200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "server.h"

#define RPC_PARSE_ERROR		(-32700)
#define RPC_INVALID_REQUEST	(-32600)
#define RPC_READ_CHUNK		65536

static volatile sig_atomic_t rpc_stop;

static void
rpc_on_signal(int sig)
{
	(void)sig;
	rpc_stop = 1;
}

void
rpc_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rpc_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;		/* no SA_RESTART: read() returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}

int
rpc_stopping(void)
{
	return rpc_stop != 0;
}

/* 1 when p[0..n) is well-formed UTF-8: sequences dbp_utf8_decode accepts
 * (no overlongs, no surrogates, nothing past U+10FFFF) end to end. */
static int
rpc_utf8_ok(const unsigned char *p, size_t n)
{
	size_t i = 0, len;
	uint32_t cp;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((len = dbp_utf8_decode(p + i, n - i, &cp)) == 0)
			return 0;
		i += len;
	}
	return 1;
}

/* The reply frame {"jsonrpc","id",result|error} as compact JSON, spelled
 * as cJSON_PrintUnformatted spells it (dbp_json_print).  id NULL means
 * JSON null.  Takes ownership of result and data.  malloc'd;
 * NULL on OOM. */
static char *
rpc_frame(const cJSON *id, cJSON *result, int code, const char *msg,
    cJSON *data)
{
	cJSON *o, *err;
	char *out;

	if ((o = cJSON_CreateObject()) == NULL)
		goto oom;
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	if (id != NULL)
		srv_json_put(o, "id", cJSON_Duplicate(id, 1));
	else
		cJSON_AddNullToObject(o, "id");
	if (result != NULL) {
		srv_json_put(o, "result", result);
		result = NULL;
	} else {
		err = cJSON_AddObjectToObject(o, "error");
		if (err != NULL) {
			cJSON_AddNumberToObject(err, "code", code);
			cJSON_AddStringToObject(err, "message", msg);
			if (data != NULL) {
				srv_json_put(err, "data", data);
				data = NULL;
			}
		}
	}
	out = dbp_json_print(o);
	cJSON_Delete(o);
	cJSON_Delete(data);
	return out;
oom:
	cJSON_Delete(result);
	cJSON_Delete(data);
	return NULL;
}

/* 1 when only JSON whitespace is left in p[0..n). */
static int
rpc_only_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return 0;
	return 1;
}

void
rpc_handle(struct srv *s, struct rpc_session *ss, const char *msg,
    size_t len, char **reply)
{
	cJSON *req, *id, *method, *params, *ver, *result = NULL, *data = NULL;
	struct timespec t0 = { 0, 0 }, t1;
	const char *end = NULL;
	char *emsg = NULL;
	int code = 0;

	*reply = NULL;
	if (!rpc_utf8_ok((const unsigned char *)msg, len)) {
		*reply = rpc_frame(NULL, NULL, RPC_PARSE_ERROR,
		    "Parse error: the message is not valid UTF-8", NULL);
		return;
	}
	req = cJSON_ParseWithLengthOpts(msg, len, &end, 0);
	if (req == NULL || end == NULL || !rpc_only_space(end, msg + len)) {
		cJSON_Delete(req);
		*reply = rpc_frame(NULL, NULL, RPC_PARSE_ERROR,
		    "Parse error: the message is not one JSON value", NULL);
		return;
	}
	args_spell_numbers(req, msg, len);
	if (cJSON_IsArray(req)) {
		*reply = rpc_frame(NULL, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: batches are not supported; send one "
		    "message per line", NULL);
		goto done;
	}
	if (!cJSON_IsObject(req)) {
		*reply = rpc_frame(NULL, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: a message must be a JSON object", NULL);
		goto done;
	}
	id = cJSON_GetObjectItemCaseSensitive(req, "id");
	method = cJSON_GetObjectItemCaseSensitive(req, "method");
	params = cJSON_GetObjectItemCaseSensitive(req, "params");
	ver = cJSON_GetObjectItemCaseSensitive(req, "jsonrpc");
	if (method == NULL && id != NULL &&
	    (cJSON_GetObjectItemCaseSensitive(req, "result") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(req, "error") != NULL))
		goto done;	/* a response: we never sent a request */
	if (id == NULL && cJSON_IsString(method))
		goto done;	/* a notification: never answered */
	if (id != NULL && !cJSON_IsString(id) && !cJSON_IsNumber(id)) {
		*reply = rpc_frame(NULL, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: id must be a string or a number", NULL);
		goto done;
	}
	if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0) {
		*reply = rpc_frame(id, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: jsonrpc must be \"2.0\"", NULL);
		goto done;
	}
	if (!cJSON_IsString(method)) {
		*reply = rpc_frame(id, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: method must be a string", NULL);
		goto done;
	}
	if (params != NULL && !cJSON_IsObject(params)) {
		*reply = rpc_frame(id, NULL, -32602,
		    "Invalid params: params must be an object", NULL);
		goto done;
	}
	if (srv_log_level >= SRV_LOG_DEBUG)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mcp_dispatch(s, ss, method->valuestring, params, &result, &code,
	    &emsg, &data) == 0)
		*reply = rpc_frame(id, result, 0, NULL, NULL);
	else
		*reply = rpc_frame(id, NULL, code,
		    emsg != NULL ? emsg : "Internal error", data);
	if (srv_log_level >= SRV_LOG_DEBUG) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		srv_log(SRV_LOG_DEBUG, "%s: %s in %ld us", method->valuestring,
		    emsg != NULL ? "error" : "answered",
		    (long)((t1.tv_sec - t0.tv_sec) * 1000000L +
		    (t1.tv_nsec - t0.tv_nsec) / 1000));
	}
	free(emsg);
done:
	cJSON_Delete(req);
}

/* Write all of p[0..n) to fd; 0, or -1 when the descriptor failed. */
static int
rpc_write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Send one frame followed by a newline, in one write. */
static int
rpc_send(int out, char *frame)
{
	size_t n;
	int rc;

	if (frame == NULL) {
		srv_log(SRV_LOG_ERROR, "out of memory building a reply");
		return 0;
	}
	n = strlen(frame);
	/* The frame's buffer has room for the NUL: reuse it for the
	 * newline. */
	frame[n] = '\n';
	rc = rpc_write_all(out, frame, n + 1);
	free(frame);
	return rc;
}

/* Handle one complete line p[0..n) (newline removed). */
static int
rpc_line(struct srv *s, struct rpc_session *ss, int out, char *p, size_t n)
{
	char *reply;
	size_t i;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			break;
	if (i == n)
		return 0;	/* blank line */
	rpc_handle(s, ss, p, n, &reply);
	if (reply == NULL)
		return 0;
	return rpc_send(out, reply);
}

/*
 * Let a SIGTERM/SIGINT that is pending in: the wait (ppoll or pselect,
 * dbp_wait_readable) returns at once when input is ready without
 * delivering a pending signal, so under a steady stream of requests it
 * would wait for ever.  Unblocking it runs the
 * handler; then it is blocked again.  1 when the server is stopping.
 */
static int
rpc_take_signal(const sigset_t *waitmask, const sigset_t *block)
{
	sigprocmask(SIG_SETMASK, waitmask, NULL);
	sigprocmask(SIG_BLOCK, block, NULL);
	return rpc_stopping();
}

int
rpc_serve_stdio(struct srv *s, int in, int out)
{
	struct rpc_session ss;
	sigset_t block, waitmask;
	char *buf, *nl, *start;
	size_t len = 0, cap, used;
	ssize_t r;
	int discarding = 0, rc = 0;

	memset(&ss, 0, sizeof(ss));
	cap = RPC_READ_CHUNK;
	if ((buf = malloc(cap)) == NULL)
		return -1;
	/*
	 * SIGTERM and SIGINT stay blocked except inside the wait, which
	 * unblocks them atomically while waiting: a signal arriving while a
	 * request is handled waits there, so none can slip in between the
	 * flag check and a blocking read.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	while (!rpc_stopping()) {
		if (len == cap) {
			/* No newline within the buffer: grow up to the bound,
			 * then drop the line and remember to answer it. */
			if (cap < (size_t)DBP_MAX_FRAME + 1) {
				char *nb;
				size_t ncap = cap * 2;

				if (ncap > (size_t)DBP_MAX_FRAME + 1)
					ncap = (size_t)DBP_MAX_FRAME + 1;
				if ((nb = realloc(buf, ncap)) == NULL) {
					rc = -1;
					break;
				}
				buf = nb;
				cap = ncap;
			} else {
				discarding = 1;
				len = 0;
			}
		}
		if (dbp_wait_readable(in, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			srv_log(SRV_LOG_ERROR, "waiting for stdin: %s",
			    strerror(errno));
			break;
		}
		r = read(in, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			srv_log(SRV_LOG_ERROR, "reading stdin: %s",
			    strerror(errno));
			break;
		}
		if (r == 0) {
			/* EOF: an unterminated last line is still a message. */
			if (len > 0 && !discarding)
				rc = rpc_line(s, &ss, out, buf, len);
			break;
		}
		len += (size_t)r;
		start = buf;
		used = 0;
		/* Once SIGTERM/SIGINT arrived, lines already read but not
		 * begun are not accepted. */
		while (!rpc_take_signal(&waitmask, &block) &&
		    (nl = memchr(start, '\n', len - used)) != NULL) {
			size_t n = (size_t)(nl - start);

			if (discarding) {
				char m[128];

				discarding = 0;
				snprintf(m, sizeof(m), "Invalid Request: the "
				    "line is longer than the %ld bytes a "
				    "message may take", (long)DBP_MAX_FRAME);
				if (rpc_send(out, rpc_frame(NULL, NULL,
				    RPC_INVALID_REQUEST, m, NULL)) != 0)
					rc = -1;
			} else if (rpc_line(s, &ss, out, start, n) != 0)
				rc = -1;
			if (rc != 0)
				goto out;
			used += n + 1;
			start = nl + 1;
		}
		if (used > 0) {
			memmove(buf, buf + used, len - used);
			len -= used;
		}
	}
out:
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	free(buf);
	return rc;
}

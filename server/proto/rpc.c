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
#include <poll.h>
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

/* The offset of the first control byte of p[0..n) that JSON text may not
 * hold raw (below 0x20, other than tab, LF and CR), or n.  cJSON skips
 * every byte up to 0x20 as whitespace, a NUL included. */
static size_t
rpc_control_at(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 && p[i] != '\t' &&
		    p[i] != '\n' && p[i] != '\r')
			break;
	return i;
}

/* 1 when p[0..n) is a number as JSON spells it (RFC 8259 6): cJSON also
 * takes "01" and "1.". */
static int
rpc_json_number(const char *p, size_t n)
{
	size_t i = 0, d;

	if (i < n && p[i] == '-')
		i++;
	if (i < n && p[i] == '0')
		i++;
	else {
		for (d = i; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && p[i] == '.') {
		for (d = ++i; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		for (d = i; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i == n;
}

/*
 * A numeric id is echoed as the request spells it: cJSON keeps a double,
 * which prints 1e999 as null and 12345678901234567890 rounded, and a
 * reply the client cannot match to its request is no reply.  The id's
 * node becomes a raw node holding its token.  0, or -1 with the reason
 * in why[0..whylen) (the id cannot be echoed).
 */
static int
rpc_keep_id(cJSON *req, const char *msg, size_t len, char *why,
    size_t whylen)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id"), *raw;
	const char *tok;
	char text[DBP_MAX_ID_NUMBER + 1];
	size_t n;

	if (!cJSON_IsNumber(id))
		return 0;
	if (args_number_token(req, id, msg, len, &tok, &n) != 0) {
		snprintf(why, whylen, "Invalid Request: the id's number "
		    "could not be read back");
		return -1;
	}
	if (n > DBP_MAX_ID_NUMBER) {
		snprintf(why, whylen, "Invalid Request: a numeric id may "
		    "take at most %d characters; this one takes %zu",
		    DBP_MAX_ID_NUMBER, n);
		return -1;
	}
	memcpy(text, tok, n);
	text[n] = '\0';
	if (!rpc_json_number(text, n)) {
		snprintf(why, whylen, "Invalid Request: id %s is not a "
		    "number as JSON spells it", text);
		return -1;
	}
	if ((raw = cJSON_CreateRaw(text)) == NULL ||
	    !cJSON_ReplaceItemInObjectCaseSensitive(req, "id", raw)) {
		cJSON_Delete(raw);
		snprintf(why, whylen, "Internal error: out of memory");
		return -1;
	}
	return 0;
}

cJSON *
rpc_parse(const char *msg, size_t len, int *code, char *why, size_t whylen)
{
	const char *end = NULL;
	cJSON *req;
	size_t at;

	*code = RPC_PARSE_ERROR;
	if (!rpc_utf8_ok((const unsigned char *)msg, len)) {
		snprintf(why, whylen, "Parse error: the message is not valid "
		    "UTF-8");
		return NULL;
	}
	if ((at = rpc_control_at(msg, len)) < len) {
		snprintf(why, whylen, "Parse error: byte 0x%02x at offset %zu "
		    "may not appear in JSON text (only space, tab, CR and LF "
		    "may stand between its tokens)", (unsigned char)msg[at],
		    at);
		return NULL;
	}
	req = cJSON_ParseWithLengthOpts(msg, len, &end, 0);
	if (req == NULL || end == NULL || !rpc_only_space(end, msg + len)) {
		cJSON_Delete(req);
		snprintf(why, whylen, "Parse error: the message is not one "
		    "JSON value");
		return NULL;
	}
	args_spell_numbers(req, msg, len);
	if (cJSON_IsObject(req) && rpc_keep_id(req, msg, len, why,
	    whylen) != 0) {
		cJSON_Delete(req);
		*code = RPC_INVALID_REQUEST;
		return NULL;
	}
	return req;
}

void
rpc_handle(struct srv *s, struct rpc_session *ss, const char *msg,
    size_t len, char **reply)
{
	cJSON *req, *id, *method, *params, *ver, *result = NULL, *data = NULL;
	struct timespec t0 = { 0, 0 }, t1;
	char *emsg = NULL, why[RPC_WHY_MAX];
	int code = 0;

	*reply = NULL;
	if ((req = rpc_parse(msg, len, &code, why, sizeof(why))) == NULL) {
		*reply = rpc_frame(NULL, NULL, code, why, NULL);
		return;
	}
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
	if (id != NULL && !cJSON_IsString(id) && !cJSON_IsRaw(id)) {
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

/* stdin as it is read: buf[0..len) holds what follows the last newline
 * handled; discarding, that the line under way passed DBP_MAX_FRAME. */
struct rpc_in {
	int	 fd;
	char	*buf;
	size_t	 len, cap;
	int	 discarding;
};

/* Make room to read into: no newline within the buffer grows it up to
 * the bound, then drops the line and remembers to answer it.  0, or -1
 * on OOM. */
static int
rpc_in_room(struct rpc_in *in)
{
	char *nb;
	size_t ncap;

	if (in->len < in->cap)
		return 0;
	if (in->cap >= (size_t)DBP_MAX_FRAME + 1) {
		in->discarding = 1;
		in->len = 0;
		return 0;
	}
	ncap = in->cap * 2;
	if (ncap > (size_t)DBP_MAX_FRAME + 1)
		ncap = (size_t)DBP_MAX_FRAME + 1;
	if ((nb = realloc(in->buf, ncap)) == NULL)
		return -1;
	in->buf = nb;
	in->cap = ncap;
	return 0;
}

/* Answer the line that passed DBP_MAX_FRAME. */
static int
rpc_too_long(int out)
{
	char m[128];

	snprintf(m, sizeof(m), "Invalid Request: the line is longer than "
	    "the %ld bytes a message may take", (long)DBP_MAX_FRAME);
	return rpc_send(out, rpc_frame(NULL, NULL, RPC_INVALID_REQUEST, m,
	    NULL));
}

/* Answer every complete line in the buffer and keep what follows the
 * last.  Every line read is answered, a signal notwithstanding: it was
 * in the pipe before the signal was taken.  0, or -1 when out failed. */
static int
rpc_in_lines(struct srv *s, struct rpc_session *ss, int out,
    struct rpc_in *in)
{
	char *start = in->buf, *nl;
	size_t used = 0, n;
	int rc = 0;

	while ((nl = memchr(start, '\n', in->len - used)) != NULL) {
		n = (size_t)(nl - start);
		if (in->discarding) {
			in->discarding = 0;
			rc = rpc_too_long(out);
		} else
			rc = rpc_line(s, ss, out, start, n);
		if (rc != 0)
			return -1;
		used += n + 1;
		start = nl + 1;
	}
	if (used > 0) {
		memmove(in->buf, in->buf + used, in->len - used);
		in->len -= used;
	}
	return 0;
}

/* At EOF an unterminated last line is still a message. */
static int
rpc_in_eof(struct srv *s, struct rpc_session *ss, int out, struct rpc_in *in)
{
	if (in->len > 0 && !in->discarding)
		return rpc_line(s, ss, out, in->buf, in->len);
	return 0;
}

/*
 * After SIGTERM/SIGINT: answer the frames already in the pipe (spec 7.3,
 * in-flight requests complete), then stop.  Bounded: what poll() shows
 * readable at once, at most DBP_STDIO_DRAIN bytes; a frame still
 * arriving is not waited for.  0, or -1 when out failed.
 */
static int
rpc_drain(struct srv *s, struct rpc_session *ss, int out, struct rpc_in *in)
{
	struct pollfd pfd;
	size_t got = 0;
	ssize_t r;

	pfd.fd = in->fd;
	pfd.events = POLLIN;
	while (got < (size_t)DBP_STDIO_DRAIN) {
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & (POLLIN | POLLHUP)))
			break;
		if (rpc_in_room(in) != 0)
			return -1;
		r = read(in->fd, in->buf + in->len, in->cap - in->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0)
			return rpc_in_eof(s, ss, out, in);
		in->len += (size_t)r;
		got += (size_t)r;
		if (rpc_in_lines(s, ss, out, in) != 0)
			return -1;
	}
	return 0;
}

int
rpc_serve_stdio(struct srv *s, int in_fd, int out)
{
	struct rpc_session ss;
	struct rpc_in in;
	sigset_t block, waitmask;
	ssize_t r;
	int rc = 0;

	memset(&ss, 0, sizeof(ss));
	memset(&in, 0, sizeof(in));
	in.fd = in_fd;
	in.cap = RPC_READ_CHUNK;
	if ((in.buf = malloc(in.cap)) == NULL)
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
	for (;;) {
		if (rpc_take_signal(&waitmask, &block)) {
			rc = rpc_drain(s, &ss, out, &in);
			break;
		}
		if (rpc_in_room(&in) != 0) {
			rc = -1;
			break;
		}
		if (dbp_wait_readable(in_fd, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			srv_log(SRV_LOG_ERROR, "waiting for stdin: %s",
			    strerror(errno));
			break;
		}
		r = read(in_fd, in.buf + in.len, in.cap - in.len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			srv_log(SRV_LOG_ERROR, "reading stdin: %s",
			    strerror(errno));
			break;
		}
		if (r == 0) {
			rc = rpc_in_eof(s, &ss, out, &in);
			break;
		}
		in.len += (size_t)r;
		if ((rc = rpc_in_lines(s, &ss, out, &in)) != 0)
			break;
	}
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	free(in.buf);
	return rc;
}

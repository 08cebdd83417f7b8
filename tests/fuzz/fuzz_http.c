/*
 * fuzz_http.c - fuzz target: the HTTP request path of dbprint-serve
 * (server/proto/http.c, http_sess.c on libmicrohttpd, and the rpc behind them)
 * over the fixtures/rich project indexed in memory.
 *
 * The daemon is started once per process by http_serve() on a thread, on
 * a free loopback port.  An input is up to FH_MAX_SEGS raw HTTP requests
 * separated by FH_SEP; each is written as it stands to a new TCP
 * connection and its response read (FH_READ_MS at most; FH_SHORT_MS when
 * the request is visibly incomplete, which the server waits out until its
 * idle timeout instead of answering).  Before sending,
 * a segment's "$PORT" becomes the daemon's port (so Host and Origin can
 * be right), "$SID" the last session id a response named (Mcp-Session-Id
 * or session_id=), and "$LEN" the length of what follows the segment's
 * first blank line (a Content-Length the mutations keep true).  A segment
 * starting "GET /sse" keeps its connection (the stream) open until the
 * input ends; every other one half-closes after writing, so the server
 * sees the request end.  A response, when there is one, must start with
 * an HTTP/1.x status line and must not be a 500.  After the last input
 * of a replay, fuzz_replay_done() stops the daemon as SIGTERM stops
 * dbprint-serve and joins its thread.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "platform.h"

/* POSIX.1-2008 has it; macOS has not (rpc_signals ignores SIGPIPE). */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL	0
#endif

#define FH_SEP		"#####\n"
#define FH_MAX_SEGS	6
#define FH_READ_MS	1000
#define FH_SHORT_MS	20
#define FH_SSE_MS	200
#define FH_START_MS	10000
#define FH_RESP_MAX	(1024 * 1024)
#define FH_SID_MAX	64

static int fh_port;
static int fh_started;
static pthread_t fh_thread;
static char fh_sid[FH_SID_MAX + 1] = "00000000000000000000000000000000";

static void *
fh_serve(void *arg)
{
	if (http_serve(arg, "127.0.0.1", fh_port) != 0)
		fprintf(stderr, "fuzz_http: http_serve failed\n");
	return NULL;
}

static long
fh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A new connection to the daemon, or -1. */
static int
fh_connect(void)
{
	struct sockaddr_in a;
	int fd, attempt;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)fh_port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* A signal (libFuzzer's own timers) may interrupt connect: then
	 * start over on a new socket. */
	for (attempt = 0; attempt < 8; attempt++) {
		if ((fd = dbp_socket_cloexec(AF_INET, SOCK_STREAM, 0)) < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
		if (errno != EINTR)
			return -1;
	}
	return -1;
}

/* Start the daemon on a free port and wait until it accepts. */
static void
fh_start(void)
{
	struct sockaddr_in a;
	socklen_t sl = sizeof(a);
	struct srv *s;
	long t0;
	int fd;

	unsetenv("DBPRINT_TOKEN_FILE");
	srv_log_level = SRV_LOG_ERROR;
	s = fuzz_srv("rich");
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &sl) != 0) {
		perror("fuzz_http: a free port");
		abort();
	}
	fh_port = ntohs(a.sin_port);
	close(fd);
	if (pthread_create(&fh_thread, NULL, fh_serve, s) != 0)
		abort();
	fh_started = 1;
	t0 = fh_now_ms();
	for (;;) {
		if ((fd = fh_connect()) >= 0) {
			close(fd);
			return;
		}
		if (fh_now_ms() - t0 > FH_START_MS) {
			fprintf(stderr, "fuzz_http: the daemon did not start\n");
			abort();
		}
		poll(NULL, 0, 10);
	}
}

/* Append n bytes to the malloc'd buffer *b (abort on OOM). */
static void
fh_add(char **b, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		while (*len + n + 1 > *cap)
			*cap = *cap ? *cap * 2 : 1024;
		if ((*b = realloc(*b, *cap)) == NULL)
			abort();
	}
	memcpy(*b + *len, p, n);
	*len += n;
	(*b)[*len] = '\0';
}

/* Where the body of a request starts (after its first blank line). */
static size_t
fh_body_at(const char *b, size_t len)
{
	const char *e = dbp_memmem(b, len, "\r\n\r\n", 4);

	if (e != NULL)
		return (size_t)(e - b) + 4;
	e = dbp_memmem(b, len, "\n\n", 2);
	return e != NULL ? (size_t)(e - b) + 2 : len;
}

/* 1 when request b (len bytes) is whole as far as a quick look tells:
 * its head ends, its body is as long as its Content-Length, a chunked
 * body has its last chunk.  0: the server would wait for more. */
static int
fh_complete(const char *b, size_t len)
{
	size_t body = fh_body_at(b, len);
	const char *h, *end = b + body;
	unsigned long long want;

	if (body == len && (len < 2 || memcmp(b + len - 2, "\n\n", 2) != 0) &&
	    (len < 4 || memcmp(b + len - 4, "\r\n\r\n", 4) != 0))
		return 0;
	for (h = b; h != NULL && h < end; h = memchr(h, '\n', (size_t)(end -
	    h))) {
		if (*h == '\n')
			h++;
		if ((size_t)(end - h) > 15 && strncasecmp(h, "Content-Length:",
		    15) == 0) {
			want = strtoull(h + 15, NULL, 10);
			if (len - body < want)
				return 0;
		}
		if ((size_t)(end - h) > 18 && strncasecmp(h,
		    "Transfer-Encoding:", 18) == 0 &&
		    dbp_memmem(b + body, len - body, "0\r\n\r\n", 5) == NULL)
			return 0;
	}
	return 1;
}

/* Segment seg[0..n) with $PORT, $SID and $LEN replaced: malloc'd, its
 * length into *outlen; caller frees. */
static char *
fh_expand(const uint8_t *seg, size_t n, size_t *outlen)
{
	char *a = NULL, *b = NULL, num[32];
	size_t alen = 0, acap = 0, blen = 0, bcap = 0, i, body;
	int nl;

	fh_add(&a, &alen, &acap, "", 0);
	for (i = 0; i < n; i++) {
		if (n - i >= 5 && memcmp(seg + i, "$PORT", 5) == 0) {
			nl = snprintf(num, sizeof(num), "%d", fh_port);
			fh_add(&a, &alen, &acap, num, (size_t)nl);
			i += 4;
		} else if (n - i >= 4 && memcmp(seg + i, "$SID", 4) == 0) {
			fh_add(&a, &alen, &acap, fh_sid, strlen(fh_sid));
			i += 3;
		} else
			fh_add(&a, &alen, &acap, (const char *)seg + i, 1);
	}
	body = fh_body_at(a, alen);
	fh_add(&b, &blen, &bcap, "", 0);
	for (i = 0; i < alen; i++) {
		if (i < body && alen - i >= 4 && memcmp(a + i, "$LEN", 4) == 0) {
			nl = snprintf(num, sizeof(num), "%zu", alen - body);
			fh_add(&b, &blen, &bcap, num, (size_t)nl);
			i += 3;
		} else
			fh_add(&b, &blen, &bcap, a + i, 1);
	}
	free(a);
	*outlen = blen;
	return b;
}

/* Write all of p to fd; stops quietly when the server stops reading. */
static void
fh_write(int fd, const char *p, size_t n)
{
	struct pollfd pf;
	ssize_t w;
	long t0 = fh_now_ms();

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			return;
		pf.fd = fd;
		pf.events = POLLOUT;
		if (fh_now_ms() - t0 > FH_READ_MS || poll(&pf, 1, 50) < 0)
			return;
	}
}

/* Remember the session id a response names, if any. */
static void
fh_take_sid(const char *r)
{
	const char *p;
	size_t n;

	p = dbp_strcasestr(r, "\nMcp-Session-Id:");
	if (p != NULL)
		p += strlen("\nMcp-Session-Id:");
	else if ((p = strstr(r, "session_id=")) != NULL)
		p += strlen("session_id=");
	if (p == NULL)
		return;
	p += strspn(p, " \t");
	n = strspn(p, "0123456789abcdefABCDEF");
	if (n == 0 || n > FH_SID_MAX)
		return;
	memcpy(fh_sid, p, n);
	fh_sid[n] = '\0';
}

/* Check the response r (NUL-terminated, len bytes). */
static void
fh_check(const char *r, size_t len)
{
	if (len == 0)
		return;
	if (len < 12 || (strncmp(r, "HTTP/1.1 ", 9) != 0 &&
	    strncmp(r, "HTTP/1.0 ", 9) != 0) || r[9] < '1' || r[9] > '5') {
		if (len < 12 && (strncmp(r, "HTTP/1.1 ", len < 9 ? len : 9) == 0))
			return;		/* cut short by the server closing */
		fprintf(stderr, "fuzz_http: not a status line: %.200s\n", r);
		abort();
	}
	if (strncmp(r + 9, "500", 3) == 0) {
		fprintf(stderr, "fuzz_http: a 500: %.400s\n", r);
		abort();
	}
}

/* 1 when the response r (len bytes) is whole: its head read and its body
 * as long as Content-Length says, or a chunked body's last chunk, or
 * (sse) the first event.  0 while more may come (until EOF). */
static int
fh_whole(const char *r, size_t len, int sse)
{
	const char *h, *v;
	size_t head;
	unsigned long long want;

	if ((h = strstr(r, "\r\n\r\n")) == NULL)
		return 0;
	head = (size_t)(h - r) + 4;
	if (sse)
		return strstr(r + head, "\n\n") != NULL;
	if ((v = dbp_strcasestr(r, "\nContent-Length:")) != NULL && v < h) {
		want = strtoull(v + strlen("\nContent-Length:"), NULL, 10);
		return len - head >= want;
	}
	if ((v = dbp_strcasestr(r, "\nTransfer-Encoding: chunked")) != NULL &&
	    v < h)
		return len >= 5 && memcmp(r + len - 5, "0\r\n\r\n", 5) == 0;
	return strncmp(r + 9, "1", 1) == 0 || strncmp(r + 9, "204", 3) == 0 ||
	    strncmp(r + 9, "304", 3) == 0;
}

/* Read fd's response until it is whole, EOF, or the time limit. */
static void
fh_read(int fd, int sse, int whole)
{
	struct pollfd pf;
	char *r = NULL;
	size_t len = 0, cap = 0;
	char buf[8192];
	ssize_t n;
	long t0 = fh_now_ms(), left;

	fh_add(&r, &len, &cap, "", 0);
	for (;;) {
		left = (sse ? FH_SSE_MS : whole ? FH_READ_MS : FH_SHORT_MS) -
		    (fh_now_ms() - t0);
		if (left <= 0)
			break;
		pf.fd = fd;
		pf.events = POLLIN;
		if (poll(&pf, 1, (int)left) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		if (len < FH_RESP_MAX)
			fh_add(&r, &len, &cap, buf, (size_t)n);
		if (fh_whole(r, len, sse))
			break;
	}
	fh_check(r, len);
	fh_take_sid(r);
	if (getenv("FUZZ_HTTP_VERBOSE") != NULL)
		fprintf(stderr, "<<< %s\n", r);
	free(r);
}

/*
 * Stop the daemon the way SIGTERM stops dbprint-serve (http_serve polls
 * rpc_stopping(), then quiesces, ends the streams, drains and stops
 * libmicrohttpd) and join its thread.  Replay only: libFuzzer keeps its
 * own SIGTERM handler.
 */
void
fuzz_replay_done(void)
{
	if (!fh_started)
		return;
	rpc_signals();
	raise(SIGTERM);
	if (pthread_join(fh_thread, NULL) != 0)
		abort();
	fh_started = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *e;
	int keep[FH_MAX_SEGS];
	size_t nkeep = 0, nseg = 0, n, i;
	char *req;
	int fd, sse, whole;

	if (!fh_started)
		fh_start();
	while (p < end && nseg < FH_MAX_SEGS) {
		e = dbp_memmem(p, (size_t)(end - p), FH_SEP, strlen(FH_SEP));
		if (e == NULL)
			e = end;
		nseg++;
		req = fh_expand(p, (size_t)(e - p), &n);
		p = e < end ? e + strlen(FH_SEP) : end;
		if (getenv("FUZZ_HTTP_VERBOSE") != NULL)
			fprintf(stderr, ">>> %s\n", req);
		if ((fd = fh_connect()) < 0) {
			perror("fuzz_http: connect");
			abort();
		}
		sse = strncmp(req, "GET /sse", 8) == 0;
		whole = fh_complete(req, n);
		fh_write(fd, req, n);
		free(req);
		if (!sse)
			shutdown(fd, SHUT_WR);
		fh_read(fd, sse, whole);
		if (sse)
			keep[nkeep++] = fd;
		else
			close(fd);
	}
	for (i = 0; i < nkeep; i++)
		close(keep[i]);
	return 0;
}

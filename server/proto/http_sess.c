/*
 * http_sess.c - the HTTP transport's sessions and /sse streams.
 *
 * A session is what a legacy client's initialize (Streamable HTTP) or
 * GET /sse (the upstream HTTP+SSE transport) starts: a random 128-bit id
 * and the protocol revision negotiated for it.  The table is a fixed
 * array of DBP_HTTP_MAX_SESSIONS slots under one mutex; a lookup is a
 * linear scan, which at that size costs less than the request's parse.
 *
 * An /sse stream is a libmicrohttpd response whose content reader hands
 * out the events queued for its session and, when none wait, suspends
 * its connection; hs_stream_push() queues an event and resumes it.  A
 * stream lives until its connection ends (the response's free callback),
 * which also ends its session.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "platform.h"

struct hs_stream {
	struct MHD_Connection	*conn;
	char			*buf;		/* queued event bytes */
	size_t			 len, off, cap;
	int			 suspended;
	int			 ended;		/* send what is queued, then end */
};

struct hs_sess {
	char			 id[HTTP_SID_LEN + 1];	/* "" when free */
	struct rpc_session	 rs;
	uint64_t		 used;
	struct hs_stream	*st;
};

static pthread_mutex_t	 hs_mu = PTHREAD_MUTEX_INITIALIZER;
static struct hs_sess	*hs_tab;
static uint64_t		 hs_clock;

int
hs_init(void)
{
	hs_tab = calloc(DBP_HTTP_MAX_SESSIONS, sizeof(*hs_tab));
	return hs_tab != NULL ? 0 : -1;
}

void
hs_fini(void)
{
	free(hs_tab);
	hs_tab = NULL;
}

/* The slot of session id, or NULL.  Lock held. */
static struct hs_sess *
hs_find(const char *id)
{
	size_t i;

	if (id == NULL || strlen(id) != HTTP_SID_LEN)
		return NULL;
	for (i = 0; i < DBP_HTTP_MAX_SESSIONS; i++)
		if (hs_tab[i].id[0] != '\0' &&
		    memcmp(hs_tab[i].id, id, HTTP_SID_LEN) == 0)
			return &hs_tab[i];
	return NULL;
}

/* Wake a suspended stream.  Lock held. */
static void
hs_wake(struct hs_stream *st)
{
	if (st->suspended) {
		st->suspended = 0;
		MHD_resume_connection(st->conn);
	}
}

int
hs_create(const struct rpc_session *rs, struct hs_stream *stream,
    char id[HTTP_SID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[HTTP_SID_LEN / 2];
	struct hs_sess *slot = NULL, *old = NULL;
	size_t i;

	if (dbp_random_bytes(raw, sizeof(raw)) == -1)
		return -1;
	for (i = 0; i < sizeof(raw); i++) {
		id[2 * i] = hex[raw[i] >> 4];
		id[2 * i + 1] = hex[raw[i] & 0xf];
	}
	id[HTTP_SID_LEN] = '\0';
	pthread_mutex_lock(&hs_mu);
	for (i = 0; i < DBP_HTTP_MAX_SESSIONS; i++) {
		if (hs_tab[i].id[0] == '\0') {
			slot = &hs_tab[i];
			break;
		}
		if (hs_tab[i].st == NULL &&
		    (old == NULL || hs_tab[i].used < old->used))
			old = &hs_tab[i];
	}
	if (slot == NULL)
		slot = old;
	if (slot != NULL) {
		memcpy(slot->id, id, HTTP_SID_LEN + 1);
		slot->rs = *rs;
		slot->used = ++hs_clock;
		slot->st = stream;
	}
	pthread_mutex_unlock(&hs_mu);
	return slot != NULL ? 0 : -1;
}

int
hs_get(const char *id, struct rpc_session *rs)
{
	struct hs_sess *s;

	pthread_mutex_lock(&hs_mu);
	s = hs_find(id);
	if (s != NULL) {
		*rs = s->rs;
		s->used = ++hs_clock;
	}
	pthread_mutex_unlock(&hs_mu);
	return s != NULL;
}

void
hs_put(const char *id, const struct rpc_session *rs)
{
	struct hs_sess *s;

	pthread_mutex_lock(&hs_mu);
	s = hs_find(id);
	if (s != NULL)
		s->rs = *rs;
	pthread_mutex_unlock(&hs_mu);
}

int
hs_delete(const char *id)
{
	struct hs_sess *s;

	pthread_mutex_lock(&hs_mu);
	s = hs_find(id);
	if (s != NULL) {
		if (s->st != NULL) {
			s->st->ended = 1;
			hs_wake(s->st);
		}
		memset(s, 0, sizeof(*s));
	}
	pthread_mutex_unlock(&hs_mu);
	return s != NULL;
}

int
hs_has_stream(const char *id)
{
	struct hs_sess *s;
	int has;

	pthread_mutex_lock(&hs_mu);
	s = hs_find(id);
	has = s != NULL && s->st != NULL && !s->st->ended;
	pthread_mutex_unlock(&hs_mu);
	return has;
}

/* The content reader of an /sse response. */
static ssize_t
hs_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct hs_stream *st = cls;
	size_t n;

	(void)pos;
	pthread_mutex_lock(&hs_mu);
	if (st->off < st->len) {
		n = st->len - st->off;
		if (n > max)
			n = max;
		memcpy(buf, st->buf + st->off, n);
		st->off += n;
		if (st->off == st->len)
			st->off = st->len = 0;
		pthread_mutex_unlock(&hs_mu);
		return (ssize_t)n;
	}
	if (st->ended) {
		pthread_mutex_unlock(&hs_mu);
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	st->suspended = 1;
	MHD_suspend_connection(st->conn);
	pthread_mutex_unlock(&hs_mu);
	return 0;
}

/* The response is gone (its connection ended): end the session the
 * stream belonged to and free the stream. */
static void
hs_gone(void *cls)
{
	struct hs_stream *st = cls;
	size_t i;

	pthread_mutex_lock(&hs_mu);
	for (i = 0; hs_tab != NULL && i < DBP_HTTP_MAX_SESSIONS; i++)
		if (hs_tab[i].st == st)
			memset(&hs_tab[i], 0, sizeof(hs_tab[i]));
	pthread_mutex_unlock(&hs_mu);
	free(st->buf);
	free(st);
}

struct MHD_Response *
hs_stream_new(struct MHD_Connection *c, const char *first,
    struct hs_stream **out)
{
	struct hs_stream *st;
	struct MHD_Response *r;
	size_t n = first != NULL ? strlen(first) : 0;

	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return NULL;
	st->conn = c;
	if (n > 0) {
		if ((st->buf = malloc(n)) == NULL) {
			free(st);
			return NULL;
		}
		memcpy(st->buf, first, n);
		st->len = st->cap = n;
	}
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, hs_read,
	    st, hs_gone);
	if (r == NULL) {
		free(st->buf);
		free(st);
		return NULL;
	}
	*out = st;
	return r;
}

int
hs_stream_push(const char *id, const char *event, size_t len)
{
	struct hs_sess *s;
	struct hs_stream *st;
	size_t ncap;
	char *nb;
	int rc = -1;

	pthread_mutex_lock(&hs_mu);
	s = hs_find(id);
	if (s == NULL || (st = s->st) == NULL || st->ended)
		goto out;
	if (st->len + len > (size_t)DBP_HTTP_SSE_QUEUE)
		goto out;
	if (st->len + len > st->cap) {
		ncap = st->cap * 2 > st->len + len ? st->cap * 2 :
		    st->len + len;
		if ((nb = realloc(st->buf, ncap)) == NULL)
			goto out;
		st->buf = nb;
		st->cap = ncap;
	}
	memcpy(st->buf + st->len, event, len);
	st->len += len;
	hs_wake(st);
	rc = 0;
out:
	pthread_mutex_unlock(&hs_mu);
	return rc;
}

void
hs_stream_end_all(void)
{
	size_t i;

	pthread_mutex_lock(&hs_mu);
	for (i = 0; hs_tab != NULL && i < DBP_HTTP_MAX_SESSIONS; i++)
		if (hs_tab[i].st != NULL) {
			hs_tab[i].st->ended = 1;
			hs_wake(hs_tab[i].st);
		}
	pthread_mutex_unlock(&hs_mu);
}

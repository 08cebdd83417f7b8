/*
 * util.c - diagnostics, the bounded buffer, whole-file reads and hashing:
 * the small pieces every other file of the library and the server uses.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "dbprint.h"
#include "platform.h"

int
dbp_fail(struct dbp_diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void
dbp_warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", dbp_progname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
dbp_usage(FILE *f, const char *synopsis, const struct dbp_opt_help *opts,
    size_t nopts, const char *page)
{
	size_t i;

	fputs(synopsis, f);
	if (opts == NULL)
		return;
	fputs("\noptions:\n", f);
	for (i = 0; i < nopts; i++)
		fprintf(f, "  %-*s %s\n", DBP_HELP_OPT_WIDTH, opts[i].opt,
		    opts[i].what);
	fprintf(f, "\nSee %s for the details.\n", page);
}

void
dbp_buf_init(struct dbp_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

int
dbp_buf_add(struct dbp_buf *b, const void *p, size_t n)
{
	size_t need, ncap;
	char *np;

	if (b->failed)
		return -1;
	/* Catch size_t overflow and the bound in one test. */
	if (n > b->max || b->len > b->max - n) {
		b->failed = 1;
		return -1;
	}
	need = b->len + n + 1;
	if (need > b->cap) {
		ncap = b->cap ? b->cap : 64;
		while (ncap < need)
			ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
		if ((np = realloc(b->ptr, ncap)) == NULL) {
			b->failed = 1;
			return -1;
		}
		b->ptr = np;
		b->cap = ncap;
	}
	if (n > 0)
		memcpy(b->ptr + b->len, p, n);
	b->len += n;
	b->ptr[b->len] = '\0';
	return 0;
}

int
dbp_buf_adds(struct dbp_buf *b, const char *s)
{
	return dbp_buf_add(b, s, strlen(s));
}

int
dbp_buf_addc(struct dbp_buf *b, char c)
{
	/* the JSON writers add a character at a time: room and bound
	 * known, no call */
	if (!b->failed && b->len < b->max && b->len + 1 < b->cap) {
		b->ptr[b->len++] = c;
		b->ptr[b->len] = '\0';
		return 0;
	}
	return dbp_buf_add(b, &c, 1);
}

int
dbp_buf_addf(struct dbp_buf *b, const char *fmt, ...)
{
	char small[256], *big;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return -1;
	}
	if ((size_t)n < sizeof(small))
		return dbp_buf_add(b, small, (size_t)n);
	if ((big = malloc((size_t)n + 1)) == NULL) {
		b->failed = 1;
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = dbp_buf_add(b, big, (size_t)n);
	free(big);
	return rc;
}

char *
dbp_buf_take(struct dbp_buf *b)
{
	char *p;

	if (b->failed) {
		dbp_buf_release(b);
		return NULL;
	}
	if (b->ptr == NULL && dbp_buf_add(b, "", 0) == -1)
		return NULL;
	p = b->ptr;
	b->ptr = NULL;
	b->len = b->cap = 0;
	return p;
}

void
dbp_buf_release(struct dbp_buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}

size_t
dbp_utf8_encode(uint32_t cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int
dbp_buf_put_utf8(struct dbp_buf *b, uint32_t cp)
{
	char u[4];

	return dbp_buf_add(b, u, dbp_utf8_encode(cp, u));
}

size_t
dbp_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		c = p[0] & 0x1f;
		min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		c = p[0] & 0x0f;
		min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		c = p[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int
dbp_read_file(const char *path, size_t max, char **out, size_t *len,
    struct stat *st, struct dbp_diag *d)
{
	struct stat sb;
	char *p = NULL;
	size_t have = 0;
	ssize_t n;
	int fd, saved;

	*out = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO put there after the caller looked opens
	 * without waiting for a writer, and is refused below; it changes
	 * nothing for a regular file. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		return dbp_fail(d, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) == -1)
		goto fail;
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return dbp_fail(d, "%s: not a regular file", path);
	}
	if ((size_t)sb.st_size > max) {
		close(fd);
		errno = EFBIG;
		return dbp_fail(d, "%s: file is %lld bytes, over the %zu-byte limit",
		    path, (long long)sb.st_size, max);
	}
	if ((p = malloc((size_t)sb.st_size + 1)) == NULL)
		goto fail;
	/* Read what fstat promised; a file that grew meanwhile is cut there,
	 * and the identity recorded is the one taken before the read. */
	while (have < (size_t)sb.st_size) {
		n = read(fd, p + have, (size_t)sb.st_size - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	p[have] = '\0';
	close(fd);
	*out = p;
	*len = have;
	if (st != NULL)
		*st = sb;
	return 0;
fail:
	saved = errno;
	free(p);
	close(fd);
	errno = saved;
	return dbp_fail(d, "cannot read %s: %s", path, strerror(saved));
}

int
dbp_read_known(int dirfd, const char *rel, size_t size, char **out)
{
	char *p;
	ssize_t n;
	int fd;

	*out = NULL;
	if (size == SIZE_MAX)
		return 1;
	if ((fd = openat(dirfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1)
		return 1;
	if ((p = malloc(size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	/* One byte more than expected: a file that grew reads long, and
	 * one that shrank short; either way it is not the file looked at. */
	do
		n = read(fd, p, size + 1);
	while (n == -1 && errno == EINTR);
	close(fd);
	if (n < 0 || (size_t)n != size) {
		free(p);
		return 1;
	}
	p[size] = '\0';
	*out = p;
	return 0;
}

/* Claim and run steps until none is left (a helper's body too). */
static void *
u_claims_run(void *p)
{
	struct dbp_claims *cl = p;
	size_t lo;

	for (;;) {
		lo = atomic_fetch_add(&cl->next, cl->step);
		if (lo >= cl->n)
			return NULL;
		cl->fn(cl->arg, lo, cl->n - lo < cl->step ? cl->n :
		    lo + cl->step);
	}
}

void
dbp_claims_begin(struct dbp_claims *cl, size_t n, size_t step, size_t min,
    void (*fn)(void *, size_t, size_t), void *arg)
{
	size_t i;

	cl->fn = fn;
	cl->arg = arg;
	cl->n = n;
	cl->step = step > 0 ? step : 1;
	cl->nth = 0;
	atomic_init(&cl->next, 0);
	if (n < min)
		return;
	for (i = 1; i < DBP_LOOK_THREADS; i++, cl->nth++)
		if (pthread_create(&cl->th[cl->nth], NULL, u_claims_run,
		    cl) != 0)
			break;
}

static void
u_claims_join(struct dbp_claims *cl)
{
	size_t i;

	for (i = 0; i < cl->nth; i++)
		pthread_join(cl->th[i], NULL);
	cl->nth = 0;
}

void
dbp_claims_end(struct dbp_claims *cl)
{
	u_claims_run(cl);
	u_claims_join(cl);
}

void
dbp_claims_stop(struct dbp_claims *cl)
{
	atomic_store(&cl->next, cl->n);
	u_claims_join(cl);
}

static int
u_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * An insertion sort, which finishes in about n steps on lists that come
 * nearly in order (the paths of a print's files listed by table, each
 * table's few files in the order of their kinds: qsort spends n log n
 * string compares on them, ~60 ms of dbprint-serve's first call on a
 * 100,000-table print).  Past DBP_SORT_MOVES moves a string it hands the
 * list to qsort, so an order it does not suit costs a few n more.
 */
void
dbp_sort_strs(char **v, size_t n)
{
	size_t i, j, moves = 0;
	char *x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && strcmp(v[j - 1], x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
		moves += i - j;
		if (moves > n * DBP_SORT_MOVES) {
			qsort(v, n, sizeof(*v), u_strcmp);
			return;
		}
	}
}

void
dbp_hash_hex(const void *p, size_t n, char out[33])
{
	XXH128_hash_t h = XXH3_128bits(p, n);

	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64,
	    (unsigned long long)h.low64);
}

/* ------------------------------------------------------------------ */
/* Arena                                                                */

struct dbp_chunk {
	struct dbp_chunk	*next;
};

/* The header rounded to the arena's alignment. */
#define DBP_CHUNK_HDR	((sizeof(struct dbp_chunk) + DBP_ARENA_ALIGN - 1) & \
			    ~(size_t)(DBP_ARENA_ALIGN - 1))

void *
dbp_arena_alloc(struct dbp_arena *a, size_t n)
{
	struct dbp_chunk *c;
	size_t want, size;
	char *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - DBP_ARENA_ALIGN)
		return NULL;
	n = (n + DBP_ARENA_ALIGN - 1) & ~(size_t)(DBP_ARENA_ALIGN - 1);
	if (a->p == NULL || (size_t)(a->end - a->p) < n) {
		/* A new chunk, twice the last, at least n. */
		size = a->next_size == 0 ? DBP_ARENA_FIRST : a->next_size;
		if (n > size)
			size = n;
		if (size > SIZE_MAX - DBP_CHUNK_HDR)
			return NULL;
		want = DBP_CHUNK_HDR + size;
		if ((c = malloc(want)) == NULL)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->p = (char *)c + DBP_CHUNK_HDR;
		a->end = a->p + size;
		if (a->next_size < DBP_ARENA_LAST)
			a->next_size = size * 2 < DBP_ARENA_LAST ?
			    size * 2 : DBP_ARENA_LAST;
	}
	p = a->p;
	a->p += n;
	return p;
}

void *
dbp_arena_zalloc(struct dbp_arena *a, size_t n)
{
	void *p = dbp_arena_alloc(a, n);

	if (p != NULL)
		memset(p, 0, n);
	return p;
}

char *
dbp_arena_strdup(struct dbp_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = dbp_arena_alloc(a, n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

void
dbp_arena_reset(struct dbp_arena *a)
{
	struct dbp_chunk *c, *next;

	if (a == NULL || a->chunks == NULL)
		return;
	for (c = a->chunks->next; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->chunks->next = NULL;
	a->p = (char *)a->chunks + DBP_CHUNK_HDR;
}

void
dbp_arena_free(struct dbp_arena *a)
{
	struct dbp_chunk *c, *next;

	if (a == NULL)
		return;
	for (c = a->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}

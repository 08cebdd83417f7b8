/*
 * bench-http.c - a load driver for dbprint-serve --transport http, on
 * plain sockets (libc only), for `make bench`.
 *
 *   bench-http load PORT CLIENTS SECONDS BODYFILE [HEADER...]
 *	CLIENTS threads, each on its own keep-alive connection, POST
 *	BODYFILE to /mcp back to back for SECONDS; prints
 *	"requests N errors E rps R p50_ms A p99_ms B max_ms C".  An error is
 *	a failed connection, a status other than 200, or a body without
 *	"isError":false.
 *   bench-http idle PORT CONNS BODYFILE PID [HEADER...]
 *	open CONNS connections, send one request on each and read its
 *	answer, then leave them open and idle; prints the server's
 *	(PID's) resident memory before and with them open:
 *	"conns N ok K rss_before_kb A rss_idle_kb B".
 *
 * HEADER arguments are extra request header lines ("Name: value").
 * BH_EXPECT, when set, replaces "isError":false as the text a good
 * answer's body must hold.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime, getaddrinfo */

#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define BH_MAX_REQ	65536
#define BH_BUF		(1024 * 1024)
#define BH_MAX_CLIENTS	1024
#define BH_MAX_SAMPLES	(4 * 1024 * 1024)

static char	 bh_req[BH_MAX_REQ];
static size_t	 bh_reqlen;
static int	 bh_port;
static double	 bh_until;
static const char *bh_expect = "\"isError\":false";

struct bh_client {
	pthread_t	 th;
	double		*lat;		/* ms, per request */
	size_t		 n, cap;
	long		 errors;
};

static double
bh_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
bh_connect(void)
{
	struct sockaddr_in a;
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)bh_port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The first place needle occurs in hay, ignoring ASCII case, or NULL
 * (strcasestr is not POSIX). */
static const char *
bh_find_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay != '\0'; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

/* Send the request and read one response; 0 when it is a 200 whose body
 * says "isError":false, 1 for another answer, -1 when the connection
 * failed. */
static int
bh_roundtrip(int fd, char *buf)
{
	size_t len = 0, off = 0, need;
	ssize_t r;
	char *hend;
	const char *cl;
	long clen;

	while (off < bh_reqlen) {
		r = write(fd, bh_req + off, bh_reqlen - off);
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	for (;;) {
		r = read(fd, buf + len, BH_BUF - 1 - len);
		if (r <= 0)
			return -1;
		len += (size_t)r;
		buf[len] = '\0';
		if ((hend = strstr(buf, "\r\n\r\n")) != NULL)
			break;
		if (len >= BH_BUF - 1)
			return -1;
	}
	cl = bh_find_nocase(buf, "\r\nContent-Length:");
	if (cl == NULL || cl > hend)
		return -1;
	clen = strtol(cl + 17, NULL, 10);
	need = (size_t)(hend - buf) + 4 + (size_t)clen;
	if (need >= BH_BUF)
		return -1;
	while (len < need) {
		r = read(fd, buf + len, need - len);
		if (r <= 0)
			return -1;
		len += (size_t)r;
	}
	buf[len] = '\0';
	if (strncmp(buf, "HTTP/1.1 200", 12) != 0)
		return 1;
	return strstr(hend, bh_expect) != NULL ? 0 : 1;
}

static void *
bh_run(void *arg)
{
	struct bh_client *c = arg;
	char *buf = malloc(BH_BUF);
	double t0;
	int fd = -1, rc;

	if (buf == NULL)
		return NULL;
	while (bh_now() < bh_until) {
		if (fd < 0 && (fd = bh_connect()) < 0) {
			c->errors++;
			continue;
		}
		t0 = bh_now();
		rc = bh_roundtrip(fd, buf);
		if (rc != 0) {
			c->errors++;
			close(fd);
			fd = -1;
			continue;
		}
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 4096;
			if (c->cap > BH_MAX_SAMPLES)
				break;
			c->lat = realloc(c->lat, c->cap * sizeof(*c->lat));
			if (c->lat == NULL)
				break;
		}
		c->lat[c->n++] = (bh_now() - t0) * 1000;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int
bh_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Build the request from the body file and the extra headers. */
static int
bh_build(const char *bodyfile, char **hdrs, int nh)
{
	char body[BH_MAX_REQ / 2];
	size_t blen;
	FILE *f;
	int i, n;

	if ((f = fopen(bodyfile, "r")) == NULL) {
		perror(bodyfile);
		return -1;
	}
	blen = fread(body, 1, sizeof(body), f);
	fclose(f);
	n = snprintf(bh_req, sizeof(bh_req), "POST /mcp HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
	    "Accept: application/json, text/event-stream\r\n"
	    "Content-Length: %zu\r\n", bh_port, blen);
	for (i = 0; i < nh; i++)
		n += snprintf(bh_req + n, sizeof(bh_req) - (size_t)n,
		    "%s\r\n", hdrs[i]);
	n += snprintf(bh_req + n, sizeof(bh_req) - (size_t)n, "\r\n");
	if ((size_t)n + blen >= sizeof(bh_req))
		return -1;
	memcpy(bh_req + n, body, blen);
	bh_reqlen = (size_t)n + blen;
	return 0;
}

static long
bh_rss_kb(const char *pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

static int
bh_load(int clients, double secs)
{
	struct bh_client *c;
	double *all, t0, el;
	size_t total = 0, k = 0, i;
	long errors = 0;
	int j;

	if ((c = calloc((size_t)clients, sizeof(*c))) == NULL)
		return 1;
	t0 = bh_now();
	bh_until = t0 + secs;
	for (j = 0; j < clients; j++)
		pthread_create(&c[j].th, NULL, bh_run, &c[j]);
	for (j = 0; j < clients; j++) {
		pthread_join(c[j].th, NULL);
		total += c[j].n;
		errors += c[j].errors;
	}
	el = bh_now() - t0;
	all = malloc((total + 1) * sizeof(*all));
	for (j = 0; all != NULL && j < clients; j++)
		for (i = 0; i < c[j].n; i++)
			all[k++] = c[j].lat[i];
	if (all == NULL || total == 0) {
		printf("requests 0 errors %ld rps 0 p50_ms 0 p99_ms 0 "
		    "max_ms 0\n", errors);
		return 1;
	}
	qsort(all, total, sizeof(*all), bh_cmp);
	printf("requests %zu errors %ld rps %.0f p50_ms %.2f p99_ms %.2f "
	    "max_ms %.2f\n", total, errors, total / el, all[total / 2],
	    all[(size_t)(total * 0.99)], all[total - 1]);
	for (j = 0; j < clients; j++)
		free(c[j].lat);
	free(c);
	free(all);
	return 0;
}

static int
bh_idle(int conns, const char *pid)
{
	char *buf = malloc(BH_BUF);
	int *fds, i, ok = 0;
	long before, with;

	fds = calloc((size_t)conns, sizeof(*fds));
	if (buf == NULL || fds == NULL)
		return 1;
	before = bh_rss_kb(pid);
	for (i = 0; i < conns; i++) {
		fds[i] = bh_connect();
		if (fds[i] >= 0 && bh_roundtrip(fds[i], buf) == 0)
			ok++;
	}
	sleep(1);
	with = bh_rss_kb(pid);
	printf("conns %d ok %d rss_before_kb %ld rss_idle_kb %ld\n", conns,
	    ok, before, with);
	for (i = 0; i < conns; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(buf);
	return ok == conns ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (getenv("BH_EXPECT") != NULL)
		bh_expect = getenv("BH_EXPECT");
	if (argc >= 6 && strcmp(argv[1], "load") == 0) {
		bh_port = atoi(argv[2]);
		if (bh_build(argv[5], argv + 6, argc - 6) != 0)
			return 2;
		return bh_load(atoi(argv[3]) > BH_MAX_CLIENTS ?
		    BH_MAX_CLIENTS : atoi(argv[3]), atof(argv[4]));
	}
	if (argc >= 6 && strcmp(argv[1], "idle") == 0) {
		bh_port = atoi(argv[2]);
		if (bh_build(argv[4], argv + 6, argc - 6) != 0)
			return 2;
		return bh_idle(atoi(argv[3]), argv[5]);
	}
	fprintf(stderr, "usage: bench-http load PORT CLIENTS SECONDS BODYFILE "
	    "[HEADER...]\n       bench-http idle PORT CONNS BODYFILE PID "
	    "[HEADER...]\n");
	return 2;
}

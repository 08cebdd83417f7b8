/*
 * idle-conns.c - hold many idle TCP connections open to a loopback port,
 * for the HTTP idle-connection test (t8150).  libc only.
 *
 *   idle-conns PORT N
 *	open N connections to 127.0.0.1:PORT that never send a byte; print
 *	"open K" (how many connected within IC_CONNECT_S) on stdout once
 *	they are tried, then wait until standard input ends, then print
 *	"closed C" (how many the server had closed meanwhile), close them
 *	all and exit 0.  Exit 1 on a usage or resource error.
 *
 * The descriptor limit is raised to its hard limit first.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/resource.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IC_MAX		20000	/* connections at most */
#define IC_CONNECT_S	10	/* time for all of them to connect */
/* Connections are opened IC_BATCH at a time (under the server's listen
 * backlog, 128), IC_PAUSE_MS apart, so that the server accepts them all:
 * a burst overflows the backlog, and the kernel then completes
 * handshakes (syncookies) the server never sees, which would leave the
 * server short of the pressure the test is about. */
#define IC_BATCH	64
#define IC_PAUSE_MS	50

static int
ic_connect(const struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
	    (connect(fd, (const struct sockaddr *)a, sizeof(*a)) != 0 &&
	    errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 1 when fd's connection is established (or was: then closed). */
static int
ic_connected(int fd)
{
	int err = 0;
	socklen_t len = sizeof(err);

	return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
	    err == 0;
}

int
main(int argc, char **argv)
{
	static struct pollfd pf[IC_MAX];
	struct sockaddr_in a;
	struct rlimit rl;
	struct timespec pause = { 0, IC_PAUSE_MS * 1000000L };
	time_t t0;
	char c, buf[64];
	long n;
	int i, port, pending, open_n = 0, closed = 0;

	if (argc != 3 || (port = atoi(argv[1])) <= 0 || port > 65535 ||
	    (n = strtol(argv[2], NULL, 10)) <= 0 || n > IC_MAX) {
		fprintf(stderr, "usage: idle-conns PORT N (N <= %d)\n",
		    IC_MAX);
		return 1;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < n; i++) {
		if ((pf[i].fd = ic_connect(&a)) < 0) {
			fprintf(stderr, "idle-conns: connection %d: %s\n", i,
			    strerror(errno));
			return 1;
		}
		pf[i].events = POLLOUT;
		if ((i + 1) % IC_BATCH == 0)
			nanosleep(&pause, NULL);
	}
	/* Wait for the handshakes: a connection is writable once it is
	 * established (in the server's backlog or accepted). */
	t0 = time(NULL);
	do {
		pending = 0;
		for (i = 0; i < n; i++)
			if (pf[i].events == POLLOUT)
				pending++;
		if (pending == 0)
			break;
		if (poll(pf, (nfds_t)n, 100) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++)
			if (pf[i].events == POLLOUT && pf[i].revents != 0)
				pf[i].events = POLLIN;
	} while (time(NULL) - t0 < IC_CONNECT_S);
	for (i = 0; i < n; i++)
		if (pf[i].events == POLLIN && ic_connected(pf[i].fd))
			open_n++;
	printf("open %d\n", open_n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (i = 0; i < n; i++) {
		if (pf[i].events == POLLIN &&
		    recv(pf[i].fd, buf, sizeof(buf), MSG_DONTWAIT) == 0)
			closed++;
		close(pf[i].fd);
	}
	printf("closed %d\n", closed);
	return 0;
}

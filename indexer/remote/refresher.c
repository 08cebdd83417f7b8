/*
 * refresher.c - the background refresher of a print served from its
 * repository: a child process, forked before the server confines itself,
 * that runs git on a timer while the server answers from the files it
 * leaves (the freshness machinery sees them; a call never waits on the
 * network).  It writes nothing to stdout, and it exits when the server
 * does: the server holds the write end of a pipe whose hang-up the child
 * watches (and, on Linux, the parent's death signals it as well).
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/types.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "remote.h"

/*
 * Linux only: the child gets SIGTERM when its parent dies, even if the
 * pipe's end leaked into another process.  Elsewhere the pipe alone
 * stops it.
 */
static void
rf_parent_death(pid_t parent)
{
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
	if (getppid() != parent)
		_exit(0);
}

/* The child's loop; never returns. */
static void
rf_child(struct dbp_remote *r, int fd, pid_t parent)
{
	struct pollfd pf;
	struct dbp_diag d;
	long wait, age;
	int nul, n;

	rf_parent_death(parent);
	signal(SIGINT, SIG_IGN);	/* a terminal's ^C is the server's */
	if ((nul = open("/dev/null", O_RDWR)) != -1) {
		dup2(nul, STDIN_FILENO);
		dup2(nul, STDOUT_FILENO);	/* never the protocol stream */
		if (nul > STDERR_FILENO)
			close(nul);
	}
	for (;;) {
		age = dbp_remote_age(r);
		wait = dbp_remote_interval() - (age < 0 ? 0 : age);
		if (wait < DBP_GIT_REFRESH_MIN_WAIT_S)
			wait = DBP_GIT_REFRESH_MIN_WAIT_S;
		pf.fd = fd;
		pf.events = POLLIN;
		pf.revents = 0;
		n = poll(&pf, 1, (int)(wait * 1000));
		if (n > 0 || (n == -1 && errno != EINTR))
			break;	/* the parent closed the pipe or exited */
		if (n == -1)
			continue;
		if (dbp_remote_refresh(r, 0, fd, &d) != 0)
			dbp_warn("%s: %s", r->label, d.msg);
	}
	/* _exit: the parent's stdio buffers and exit handlers are its own. */
	_exit(0);
}

int
dbp_refresher_start(struct dbp_remote *r, struct dbp_refresher *h,
    struct dbp_diag *d)
{
	pid_t parent = getpid();
	int p[2], fl;

	h->pid = 0;
	h->fd = -1;
	if (r->repo == NULL || r->pinned)
		return 0;
	if (pipe(p) == -1)
		return dbp_fail(d, "cannot start the refresher: %s",
		    strerror(errno));
	/* Neither end reaches git or any other child. */
	if ((fl = fcntl(p[1], F_GETFD)) != -1)
		fcntl(p[1], F_SETFD, fl | FD_CLOEXEC);
	if ((fl = fcntl(p[0], F_GETFD)) != -1)
		fcntl(p[0], F_SETFD, fl | FD_CLOEXEC);
	fflush(stdout);
	fflush(stderr);
	if ((h->pid = fork()) == -1) {
		h->pid = 0;
		close(p[0]);
		close(p[1]);
		return dbp_fail(d, "cannot start the refresher: %s",
		    strerror(errno));
	}
	if (h->pid == 0) {
		close(p[1]);
		rf_child(r, p[0], parent);
	}
	close(p[0]);
	h->fd = p[1];
	return 0;
}

void
dbp_refresher_stop(struct dbp_refresher *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	if (h->pid > 0)
		while (waitpid(h->pid, NULL, 0) == -1 && errno == EINTR)
			;
	h->pid = 0;
}

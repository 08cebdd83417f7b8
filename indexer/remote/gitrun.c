/*
 * gitrun.c - running the user's git: fork and execvp with an argv (no
 * shell), stdin from /dev/null, no terminal prompt, its output caught in
 * a pipe (never the protocol stream), a time limit, and one clear error
 * when git is not installed.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"

#define GR_POLL_MS	1000	/* the longest wait before checking the clock */

static int
gr_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	return fl == -1 ? -1 : fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

/* The child: never returns.  errfd reports a failed exec's errno. */
static void
gr_child(const char *const argv[], int outfd, int errfd)
{
	int nul, e;

	if ((nul = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(nul, STDIN_FILENO) == -1 ||
	    dup2(outfd, STDOUT_FILENO) == -1 ||
	    dup2(outfd, STDERR_FILENO) == -1 ||
	    setenv("GIT_TERMINAL_PROMPT", "0", 1) == -1)
		goto fail;
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	execvp("git", (char *const *)argv);
fail:
	e = errno;
	(void)!write(errfd, &e, sizeof(e));
	_exit(127);
}

/* Keep the last outsz - 1 bytes of git's output in out. */
static void
gr_keep(char *out, size_t outsz, size_t *len, const char *p, size_t n)
{
	size_t room, drop;

	if (out == NULL || outsz == 0)
		return;
	room = outsz - 1;
	if (n >= room) {
		memcpy(out, p + n - room, room);
		*len = room;
	} else {
		if (*len + n > room) {
			drop = *len + n - room;
			memmove(out, out + drop, *len - drop);
			*len -= drop;
		}
		memcpy(out + *len, p, n);
		*len += n;
	}
	out[*len] = '\0';
}

/* The line of git's output to quote, trimmed, into line: its last
 * "fatal:" or "error:" line, else its last non-empty one. */
static void
gr_last_line(const char *out, char *line, size_t sz)
{
	const char *s, *e, *best_s = NULL, *best_e = NULL, *p;

	line[0] = '\0';
	if (out == NULL)
		return;
	for (p = out; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		s = p;
		e = s + strcspn(s, "\r\n");
		while (e > s && e[-1] == ' ')
			e--;
		if (e == s) {
			e = s + strcspn(s, "\r\n");
			continue;
		}
		if (best_s == NULL || strncmp(s, "fatal:", 6) == 0 ||
		    strncmp(s, "error:", 6) == 0 ||
		    (strncmp(best_s, "fatal:", 6) != 0 &&
		    strncmp(best_s, "error:", 6) != 0)) {
			best_s = s;
			best_e = e;
		}
		e = s + strcspn(s, "\r\n");
	}
	if (best_s != NULL)
		snprintf(line, sz, "%.*s", (int)(best_e - best_s), best_s);
}

static long
gr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec;
}

int
dbp_git_run(const char *const argv[], int abort_fd, char *out, size_t outsz,
    struct dbp_diag *d)
{
	struct pollfd pf[2];
	char buf[DBP_GIT_OUTPUT_MAX], own[DBP_GIT_OUTPUT_MAX], line[512];
	int op[2], ep[2], e, st, open_out = 1, killed = 0, aborted = 0;
	long deadline;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (out == NULL) {
		out = own;
		outsz = sizeof(own);
	}
	out[0] = '\0';
	if (pipe(op) == -1)
		return dbp_fail(d, "cannot run git: %s", strerror(errno));
	if (pipe(ep) == -1) {
		close(op[0]);
		close(op[1]);
		return dbp_fail(d, "cannot run git: %s", strerror(errno));
	}
	gr_cloexec(op[0]);
	gr_cloexec(ep[0]);
	gr_cloexec(ep[1]);
	fflush(stderr);
	if ((pid = fork()) == -1) {
		e = errno;
		close(op[0]);
		close(op[1]);
		close(ep[0]);
		close(ep[1]);
		return dbp_fail(d, "cannot run git: %s", strerror(e));
	}
	if (pid == 0) {
		close(op[0]);
		close(ep[0]);
		gr_child(argv, op[1], ep[1]);
	}
	close(op[1]);
	close(ep[1]);
	/* The exec closes ep; a failed one writes its errno first. */
	do
		n = read(ep[0], &e, sizeof(e));
	while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n == (ssize_t)sizeof(e)) {
		close(op[0]);
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			;
		if (e == ENOENT)
			return dbp_fail(d, "git is not installed (not found on "
			    "PATH), and a git address needs it. Install it: "
			    "apt-get install git (Debian, Ubuntu), brew "
			    "install git (macOS), pkg install git (FreeBSD).");
		return dbp_fail(d, "cannot run git: %s", strerror(e));
	}
	deadline = gr_now() + DBP_GIT_TIMEOUT_S;
	while (open_out && !killed) {
		pf[0].fd = op[0];
		pf[0].events = POLLIN;
		pf[1].fd = abort_fd;
		pf[1].events = POLLIN;
		pf[0].revents = pf[1].revents = 0;
		if (poll(pf, abort_fd >= 0 ? 2 : 1, GR_POLL_MS) == -1 &&
		    errno != EINTR)
			break;
		if (abort_fd >= 0 && pf[1].revents != 0) {
			aborted = 1;
			break;
		}
		if (pf[0].revents != 0) {
			n = read(op[0], buf, sizeof(buf));
			if (n > 0)
				gr_keep(out, outsz, &len, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				open_out = 0;
		}
		if (gr_now() >= deadline)
			killed = 1;
	}
	close(op[0]);
	if (killed || aborted || open_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (aborted)
		return dbp_fail(d, "git: stopped (the server exited)");
	if (killed)
		return dbp_fail(d, "git: killed after %d s", DBP_GIT_TIMEOUT_S);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	gr_last_line(out, line, sizeof(line));
	if (line[0] == '\0')
		snprintf(line, sizeof(line), "exit status %d",
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return dbp_fail(d, "%s", line);
}

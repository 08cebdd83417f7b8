/*
 * test_sandbox.c - the server's sandbox (server/confine.c over
 * indexer/sandbox.c), applied in a forked child to a temporary project:
 * what it may open, write, execute and create.
 *
 * Each case forks; the child confines itself as dbprint-serve does
 * (dbp_sandbox_tmpdir, then srv_confine) and tries one thing, and its
 * exit status says what happened.  A protection the kernel lacks (an old
 * Landlock, no seccomp) skips the cases that need it, saying so; a build
 * without the sandbox (DBP_PORTABLE, not Linux) checks that nothing is
 * confined.  The sanitizer builds widen the sandbox (sandbox.c): there
 * execve fails with EPERM where the normal build kills the process.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dbprint.h"
#include "sandbox.h"
#include "text/utf8loc.h"
#include "server.h"

/* The child's exit statuses. */
#define T_OK		0	/* it went as the case expects */
#define T_SKIP		77	/* the protection it needs is not on */
#define T_SETUP		78	/* the sandbox could not be applied */
#define T_WRONG		1	/* it went otherwise */

#if defined(__linux__) && !defined(DBP_PORTABLE)
#define T_HAVE_SANDBOX	1
#else
#define T_HAVE_SANDBOX	0
#endif

/* The temporary project: root/prints/c holds a print file and a symlink
 * to /etc/passwd; root/.dbprint is the index directory. */
static char t_root[PATH_MAX];
static char t_print[PATH_MAX];
static char t_index[PATH_MAX];

static void
t_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < len);
}

static int
t_setup(void **state)
{
	char p[PATH_MAX];
	FILE *f;

	(void)state;
	t_path(t_root, sizeof(t_root), "%s/dbp-sbx-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(t_root));
	t_path(p, sizeof(p), "%s/prints", t_root);
	assert_int_equal(mkdir(p, 0755), 0);
	t_path(t_print, sizeof(t_print), "%s/prints/c", t_root);
	assert_int_equal(mkdir(t_print, 0755), 0);
	t_path(p, sizeof(p), "%s/manifest.yaml", t_print);
	assert_non_null(f = fopen(p, "w"));
	fputs("version: 1\n", f);
	assert_int_equal(fclose(f), 0);
	t_path(p, sizeof(p), "%s/planted", t_print);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	t_path(p, sizeof(p), "%s/.dbprint", t_root);
	assert_int_equal(mkdir(p, 0755), 0);
	t_path(t_index, sizeof(t_index), "%s/.dbprint/c.sqlite", t_root);
	return 0;
}

static int
t_teardown(void **state)
{
	const char *const rm[] = {
		"prints/c/manifest.yaml", "prints/c/planted",
		"prints/c/written", "prints/c", "prints",
		".dbprint/written", ".dbprint",
	};
	char p[PATH_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rm) / sizeof(rm[0]); i++) {
		t_path(p, sizeof(p), "%s/%s", t_root, rm[i]);
		(void)remove(p);
	}
	return rmdir(t_root);
}

/* What a case does once confined: T_OK, T_SKIP or T_WRONG.  on holds the
 * DBP_SANDBOX_* bits that took effect. */
typedef int (*t_case)(int on);

/* Confine a forked child as the server does and run fn there; the
 * child's wait status. */
static int
t_confined(t_case fn, int listener)
{
	struct dbp_conn conf;
	struct srv_conn cn;
	struct srv s;
	pid_t pid;
	int st, on;

	fflush(NULL);
	assert_int_not_equal(pid = fork(), -1);
	if (pid == 0) {
		memset(&conf, 0, sizeof(conf));
		memset(&cn, 0, sizeof(cn));
		memset(&s, 0, sizeof(s));
		conf.print_root = t_print;
		cn.conf = &conf;
		cn.index_path = t_index;
		s.served = &cn;
		s.nserved = 1;
		if (dbp_sandbox_tmpdir(t_index) != 0 ||
		    (on = srv_confine(&s, listener)) < 0)
			_exit(T_SETUP);
		_exit(fn(on));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/* Run fn confined and check that it went as expected. */
static void
t_expect(t_case fn, int listener, const char *what)
{
	int st = t_confined(fn, listener);

	if (WIFEXITED(st) && WEXITSTATUS(st) == T_SKIP) {
		skip();	/* the kernel lacks what this case needs */
		return;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != T_OK)
		fail_msg("%s: the child's status is %#x", what, st);
}

/* dir/name into buf[PATH_MAX] (in the child: no cmocka there); 0, or -1
 * when it does not fit. */
static int
t_join(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);

	return n > 0 && n < PATH_MAX ? 0 : -1;
}

/* 1 when the file opens for reading. */
static int
t_opens(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

static int
c_print_file(int on)
{
	char p[PATH_MAX];

	(void)on;
	if (t_join(p, t_print, "manifest.yaml") != 0)
		return T_WRONG;
	return t_opens(p) ? T_OK : T_WRONG;
}

static int
c_passwd(int on)
{
	if (!(on & DBP_SANDBOX_FS))
		return T_SKIP;
	if (open("/etc/passwd", O_RDONLY | O_CLOEXEC) != -1)
		return T_WRONG;
	return errno == EACCES ? T_OK : T_WRONG;
}

static int
c_symlink_out(int on)
{
	char p[PATH_MAX];

	if (!(on & DBP_SANDBOX_FS))
		return T_SKIP;
	if (t_join(p, t_print, "planted") != 0)
		return T_WRONG;
	return t_opens(p) ? T_WRONG : T_OK;
}

/* 1 when a new file can be made and written at path. */
static int
t_writes(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok;

	if (fd == -1)
		return 0;
	ok = write(fd, "x\n", 2) == 2;
	close(fd);
	return ok;
}

static int
c_write_print(int on)
{
	char p[PATH_MAX];

	if (!(on & DBP_SANDBOX_FS))
		return T_SKIP;
	if (t_join(p, t_print, "written") != 0)
		return T_WRONG;
	return t_writes(p) ? T_WRONG : T_OK;
}

static int
c_write_index_dir(int on)
{
	char p[PATH_MAX];

	(void)on;
	if (t_join(p, t_root, ".dbprint/written") != 0)
		return T_WRONG;
	return t_writes(p) ? T_OK : T_WRONG;
}

static int
c_execve(int on)
{
	char *const argv[] = { "true", NULL };
	char *const envp[] = { NULL };

	if (!(on & DBP_SANDBOX_SECCOMP))
		return T_SKIP;
	/* The normal build kills the process here (SIGSYS); the sanitizer
	 * builds return EPERM. */
	(void)execve("/bin/true", argv, envp);
	return errno == EPERM ? T_OK : T_WRONG;
}

static int
c_socket(int on)
{
	int fd;

	if (!(on & DBP_SANDBOX_SECCOMP))
		return T_SKIP;
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) != -1) {
		close(fd);
		return T_WRONG;
	}
	return errno == EPERM ? T_OK : T_WRONG;
}

/* The bits themselves, above the other statuses. */
#define T_BITS		0x80

static int
c_bits(int on)
{
	return T_BITS | (on & 0x1f);
}

/* 1 when the file path holds the text needle (a kernel's feature list). */
static int
t_file_has(const char *path, const char *needle)
{
	char buf[4096];
	size_t n;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* The folds still know more than Latin-1: their locale was loaded before
 * the sandbox closed /usr/lib/locale. */
static int
c_fold(int on)
{
	char *f;
	int ok;

	(void)on;
	if ((f = dbp_fold("\xc3\x80\xce\xa9\xd0\x96")) == NULL)	/* ÀΩЖ */
		return T_WRONG;
	ok = strcmp(f, "\xc3\xa0\xcf\x89\xd0\xb6") == 0;	/* àωж */
	free(f);
	return ok ? T_OK : T_WRONG;
}

/* Without the sandbox compiled in, nothing is confined. */
static int
c_nothing(int on)
{
	return on == 0 && t_opens("/etc/passwd") ? T_OK : T_WRONG;
}

/* What the kernel offers is what is on: a sandbox that silently fell off
 * would otherwise only skip the cases below. */
static void
test_protections_on(void **state)
{
	int st, on;

	(void)state;
	if (!T_HAVE_SANDBOX)
		skip();
	st = t_confined(c_bits, 0);
	assert_true(WIFEXITED(st) && (WEXITSTATUS(st) & T_BITS));
	on = WEXITSTATUS(st) & ~T_BITS;
	assert_true(on & DBP_SANDBOX_NNP);
	if (dbp_sandbox_landlock_abi() > 0)
		assert_true(on & DBP_SANDBOX_FS);
	if (dbp_sandbox_landlock_abi() >= 4)
		assert_true(on & DBP_SANDBOX_NET);
	if (t_file_has("/proc/self/status", "Seccomp:"))
		assert_true(on & DBP_SANDBOX_SECCOMP);
}

static void
test_print_file_opens(void **state)
{
	(void)state;
	t_expect(c_print_file, 0, "a print file");
}

static void
test_passwd_refused(void **state)
{
	(void)state;
	if (!T_HAVE_SANDBOX) {
		t_expect(c_nothing, 0, "no sandbox");
		return;
	}
	t_expect(c_passwd, 0, "/etc/passwd");
}

static void
test_symlink_out_refused(void **state)
{
	(void)state;
	if (!T_HAVE_SANDBOX)
		skip();
	t_expect(c_symlink_out, 0, "a symlink out of the print");
}

static void
test_print_not_written(void **state)
{
	(void)state;
	if (!T_HAVE_SANDBOX)
		skip();
	t_expect(c_write_print, 0, "a write beneath the print root");
}

static void
test_index_dir_written(void **state)
{
	(void)state;
	t_expect(c_write_index_dir, 0, "a write beneath the index directory");
}

static void
test_fold_after(void **state)
{
	int st;

	(void)state;
	/* Nothing in this process has loaded the locale yet (the child must
	 * find it unloaded, as the server does at start). */
	st = t_confined(c_fold, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == T_OK)
		return;
	if (dbp_utf8_locale() == (locale_t)0)
		skip();	/* no C.UTF-8 here: Latin-1 folds only, sandbox or not */
	fail_msg("a fold beyond Latin-1: the child's status is %#x", st);
}

static void
test_execve_refused(void **state)
{
	int st;

	(void)state;
	if (!T_HAVE_SANDBOX)
		skip();
	st = t_confined(c_execve, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == T_SKIP)
		skip();
	/* Killed by the filter, or refused (sanitizer builds). */
	if (WIFSIGNALED(st))
		assert_int_equal(WTERMSIG(st), SIGSYS);
	else
		assert_int_equal(WEXITSTATUS(st), T_OK);
}

static void
test_socket_refused(void **state)
{
	(void)state;
	if (!T_HAVE_SANDBOX)
		skip();
	t_expect(c_socket, 0, "a new socket in stdio mode");
	/* A listener (HTTP) uses its bound socket, and makes none either. */
	t_expect(c_socket, 1, "a new socket in HTTP mode");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protections_on),
		cmocka_unit_test(test_print_file_opens),
		cmocka_unit_test(test_passwd_refused),
		cmocka_unit_test(test_symlink_out_refused),
		cmocka_unit_test(test_print_not_written),
		cmocka_unit_test(test_index_dir_written),
		cmocka_unit_test(test_fold_after),
		cmocka_unit_test(test_execve_refused),
		cmocka_unit_test(test_socket_refused),
	};

	/* The suite may run with the sandbox turned off for everything. */
	unsetenv("DBPRINT_NO_SANDBOX");
	return cmocka_run_group_tests(tests, t_setup, t_teardown);
}

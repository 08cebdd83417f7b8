/*
 * main.c - dbprint-index: compile each configured connection's print
 * into its SQLite index (see dbprint-index(1)).
 *
 * Exit status: 0 when every index was written (per-file errors included),
 * 1 for a usage or configuration error, 2 when an index could not be
 * written, 3 with --strict when every index was written and a print file
 * had an error.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compile/ix.h"
#include "platform.h"
#include "remote/remote.h"
#include "sandbox.h"
#include "text/utf8loc.h"

#define EXIT_USAGE	1
#define EXIT_WRITE	2
#define EXIT_STRICT	3	/* --strict: a print file had an error */

static struct timespec	 m_start;
static int		 m_bar_shown;

/* The SYNOPSIS of dbprint-index(1). */
static const char m_synopsis[] =
    "usage: dbprint-index [--project LOC] [--index PATH] [--full] [--json]\n"
    "                     [--quiet] [--strict] [--no-sandbox] "
    "[CONNECTION ...]\n";

/* --help: one line per option, in the order of dbprint-index(1). */
static const struct dbp_opt_help m_help[] = {
	{ "CONNECTION ...",	"index these connections only" },
	{ "--full",		"rebuild from scratch: read every file" },
	{ "--index PATH",	"write the one connection's index to PATH" },
	{ "--json",		"print the counts and errors as JSON" },
	{ "--project LOC",	"the .dbprint.yaml, or the directory holding it" },
	{ "--quiet",		"print nothing on stderr but fatal errors" },
	{ "--strict",		"exit 3 when a file of the print has an error" },
	{ "--no-sandbox",	"do not confine the run (debugging)" },
	{ "-h, --help",		"print this help and exit" },
	{ "-V, --version",	"print the version and exit" },
};

/* Print the synopsis (status != 0, on stderr) or the help (on stdout)
 * and exit with status. */
static void
usage(int status)
{
	if (status != 0)
		dbp_usage(stderr, m_synopsis, NULL, 0, NULL);
	else
		dbp_usage(stdout, m_synopsis, m_help,
		    sizeof(m_help) / sizeof(m_help[0]), "dbprint-index(1)");
	exit(status);
}

static long
m_elapsed_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - m_start.tv_sec) * 1000 +
	    (now.tv_nsec - m_start.tv_nsec) / 1000000;
}

/* A progress bar on stderr, once the run has taken a while. */
static void
m_progress(long done, long total)
{
	char bar[41];
	int i, n;

	if (total <= 0 || (!m_bar_shown && m_elapsed_ms() <
	    DBP_PROGRESS_AFTER_MS))
		return;
	m_bar_shown = 1;
	n = (int)(done * 40 / total);
	for (i = 0; i < 40; i++)
		bar[i] = i < n ? '#' : ' ';
	bar[40] = '\0';
	fprintf(stderr, "\r[%s] %ld/%ld tables", bar, done, total);
	fflush(stderr);
}

static void
m_progress_end(void)
{
	if (m_bar_shown)
		fprintf(stderr, "\r\033[K");
	m_bar_shown = 0;
}

/* Python repr of the sorted connection names: ['a', 'b']. */
static char *
m_known(const struct dbp_project *p)
{
	cJSON *arr;
	char *s;
	size_t i, j;
	const char **names;

	if ((names = calloc(p->nconns + 1, sizeof(*names))) == NULL)
		return NULL;
	for (i = 0; i < p->nconns; i++) {
		names[i] = p->conns[i].name;
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	}
	arr = cJSON_CreateArray();
	for (i = 0; arr != NULL && i < p->nconns; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
	s = arr != NULL ? dbp_pyrepr(arr) : NULL;
	cJSON_Delete(arr);
	free(names);
	return s;
}

static cJSON *
m_json(const char *conn, const char *index, const struct dbp_stats *st)
{
	cJSON *o, *errs, *e;
	size_t i;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "connection", conn);
	cJSON_AddStringToObject(o, "index", index);
	cJSON_AddNumberToObject(o, "files_total", (double)st->files_total);
	cJSON_AddNumberToObject(o, "files_parsed", (double)st->files_parsed);
	cJSON_AddNumberToObject(o, "files_rehashed",
	    (double)st->files_rehashed);
	cJSON_AddNumberToObject(o, "files_unchanged",
	    (double)st->files_unchanged);
	cJSON_AddNumberToObject(o, "tables", (double)st->tables);
	cJSON_AddNumberToObject(o, "columns", (double)st->columns);
	errs = cJSON_AddArrayToObject(o, "errors");
	for (i = 0; errs != NULL && i < st->nerrors; i++) {
		if ((e = cJSON_CreateObject()) == NULL)
			break;
		cJSON_AddStringToObject(e, "path", st->errors[i].path);
		cJSON_AddStringToObject(e, "message", st->errors[i].message);
		cJSON_AddItemToArray(errs, e);
	}
	return o;
}

/* Index one connection; 0, EXIT_WRITE, or with strict EXIT_STRICT when a
 * print file had an error. */
static int
m_index(const struct dbp_conn *c, const char *path, int full, int quiet,
    int strict, cJSON *out)
{
	struct dbp_stats st;
	struct dbp_diag d;
	struct stat sb;
	sqlite3 *db;
	size_t i;
	int rc, created;

	memset(&st, 0, sizeof(st));
	created = stat(path, &sb) == -1 && errno == ENOENT;
	if (dbp_index_open(path, DBP_OPEN_WAIT, &db, &d) == -1) {
		dbp_warn("%s%s", d.msg, created ? "; no index was left "
		    "behind" : "");
		return EXIT_WRITE;
	}
	clock_gettime(CLOCK_MONOTONIC, &m_start);
	rc = dbp_index_update(db, c->name, c->print_root, full, &st, &d);
	m_progress_end();
	if (sqlite3_close(db) != SQLITE_OK && rc == 0) {
		snprintf(d.msg, sizeof(d.msg), "cannot close %s", path);
		rc = -1;
	}
	if (rc == -1) {
		/* A first run that failed leaves no index: an empty or
		 * schema-only file would only look like one. */
		if (created)
			dbp_index_remove(path, 1);
		dbp_warn("%s: %s%s", c->name, d.msg, created ? "; no index "
		    "was left behind" : "; the index is as it was");
		dbp_stats_release(&st);
		return EXIT_WRITE;
	}
	if (!quiet) {
		for (i = 0; i < st.nerrors; i++)
			dbp_warn("%s", st.errors[i].message);
		fprintf(stderr, "%s: %ld files (%ld parsed, %ld rehashed, %ld "
		    "unchanged), %ld tables, %ld columns, %zu error%s -> %s\n",
		    c->name, st.files_total, st.files_parsed, st.files_rehashed,
		    st.files_unchanged, st.tables, st.columns, st.nerrors,
		    st.nerrors == 1 ? "" : "s", path);
	}
	if (out != NULL)
		cJSON_AddItemToArray(out, m_json(c->name, path, &st));
	rc = strict && st.nerrors > 0 ? EXIT_STRICT : 0;
	dbp_stats_release(&st);
	return rc;
}

/* What the command line asked for (m_options). */
struct m_opts {
	const char	 *project, *index;
	char		**names;	/* the CONNECTION words */
	int		  nnames;
	int		  full, json, quiet, strict, no_sandbox;
};

/* Parse the command line into o; exits after --version or a usage
 * error. */
static void
m_options(int argc, char *argv[], struct m_opts *o)
{
	static const struct option opts[] = {
		{ "full",	no_argument,		NULL, 'f' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "index",	required_argument,	NULL, 'i' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "no-sandbox",	no_argument,		NULL, 'S' },
		{ "project",	required_argument,	NULL, 'p' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "strict",	no_argument,		NULL, 's' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL,		0,			NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "fhi:jp:qsV", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o->full = 1;
			break;
		case 'i':
			o->index = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'p':
			o->project = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'S':
			o->no_sandbox = 1;
			break;
		case 's':
			o->strict = 1;
			break;
		case 'V':
			printf("dbprint-index %s\n", DBP_VERSION);
			exit(0);
		case 'h':
			usage(0);
			break;
		default:
			usage(EXIT_USAGE);
		}
	}
	o->names = argv + optind;
	o->nnames = argc - optind;
}

/*
 * The connections to index, in order: those named, else every configured
 * one.  A calloc'd array of *n entries the caller frees, or NULL with
 * *rc set after printing why.
 */
static const struct dbp_conn **
m_select(const struct dbp_project *proj, const struct m_opts *o, size_t *n,
    int *rc)
{
	const struct dbp_conn **todo;
	char *known, *txt;
	size_t i;

	*n = o->nnames > 0 ? (size_t)o->nnames : proj->nconns;
	if ((todo = calloc(*n + 1, sizeof(*todo))) == NULL) {
		dbp_warn("out of memory");
		*rc = EXIT_WRITE;
		return NULL;
	}
	for (i = 0; i < *n; i++) {
		todo[i] = o->nnames > 0 ? dbp_project_conn(proj, o->names[i]) :
		    &proj->conns[i];
		if (todo[i] != NULL)
			continue;
		known = m_known(proj);
		txt = dbp_pyrepr_str(o->names[i]);
		dbp_warn("unknown connection %s. Known: %s.",
		    txt ? txt : o->names[i], known ? known : "[]");
		free(known);
		free(txt);
		free(todo);
		*rc = EXIT_USAGE;
		return NULL;
	}
	/* --index names one file: it needs exactly one connection. */
	if (o->index != NULL && *n != 1) {
		dbp_warn("--index names one index file, but %zu connections "
		    "would be indexed; name the one connection it is for", *n);
		free(todo);
		*rc = EXIT_USAGE;
		return NULL;
	}
	return todo;
}

/*
 * Confine the run (dbprint-index(1), SANDBOX): read beneath each print
 * root, read and write beneath the directory of each index (paths[i],
 * NULL for one that cannot be written), which dbp_index_prepare has
 * made.  The configuration is read already.  0, or EXIT_WRITE after
 * saying why.
 */
static int
m_confine(const struct m_opts *o, const struct dbp_conn *const *todo,
    char *const *paths, size_t n)
{
	struct dbp_sandbox sb;
	char line[DBP_SANDBOX_LINE];
	size_t i;
	int rc = 0, on;

	if (o->no_sandbox || dbp_sandbox_env_off())
		return 0;
	/* The folds' locale is read from /usr/lib/locale: now or never. */
	(void)dbp_utf8_locale();
	dbp_sandbox_init(&sb, 0);
	/* SQLite's temporary files beneath the first index's directory
	 * (no database is open yet). */
	for (i = 0; i < n && paths[i] == NULL; i++)
		continue;
	if (i < n && dbp_sandbox_tmpdir(paths[i]) == -1)
		rc = -1;
	for (i = 0; i < n && rc == 0; i++)
		if (paths[i] != NULL && (dbp_sandbox_allow(&sb,
		    todo[i]->print_root, DBP_SANDBOX_READ) == -1 ||
		    dbp_sandbox_allow_dir_of(&sb, paths[i]) == -1))
			rc = -1;
	if (rc == 0)
		rc = dbp_sandbox_allow_tmpdir(&sb);
	if (rc == -1) {
		dbp_sandbox_release(&sb);
		dbp_warn("out of memory");
		return EXIT_WRITE;
	}
	on = dbp_sandbox_apply(&sb, line, sizeof(line));
	dbp_sandbox_release(&sb);
	/* Said only when the kernel lacks a part (or no sandbox here). */
	if (!o->quiet && dbp_sandbox_available() &&
	    (on & DBP_SANDBOX_CORE) != DBP_SANDBOX_CORE)
		dbp_warn("sandbox: %s", line);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct m_opts o;
	struct dbp_project proj;
	struct dbp_remote remote;
	struct dbp_diag d;
	const struct dbp_conn **todo;
	cJSON *out = NULL;
	char **paths = NULL, *txt;
	size_t i, n = 0;
	int rc = 0, r;

	dbp_set_progname(argv[0]);
	/* No allocation statistics: each SQLite malloc and free took a
	 * global mutex for them. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	memset(&o, 0, sizeof(o));
	m_options(argc, argv, &o);
	/* A git address is cloned, or refreshed when due, first. */
	if (dbp_project_open(o.project, 0, &proj, &remote, &d) == -1) {
		dbp_warn("%s", d.msg);
		dbp_remote_release(&remote);
		return EXIT_USAGE;
	}
	if ((todo = m_select(&proj, &o, &n, &rc)) == NULL)
		goto out;
	if ((paths = calloc(n + 1, sizeof(*paths))) == NULL) {
		dbp_warn("out of memory");
		rc = EXIT_WRITE;
		goto out;
	}
	for (i = 0; i < n; i++) {
		paths[i] = o.index != NULL ? strdup(o.index) :
		    dbp_index_path(&proj, todo[i]->name);
		if (paths[i] == NULL) {
			dbp_warn("out of memory");
			rc = EXIT_WRITE;
			goto out;
		}
		/* Its directory, before the sandbox: an index that cannot
		 * be made is that connection's failure only. */
		if (dbp_index_prepare(paths[i], &d) == -1) {
			dbp_warn("%s", d.msg);
			free(paths[i]);
			paths[i] = NULL;
			rc = EXIT_WRITE;
		}
	}
	if ((r = m_confine(&o, todo, paths, n)) != 0) {
		rc = r;
		goto out;
	}
	if (o.json && (out = cJSON_CreateArray()) == NULL) {
		rc = EXIT_WRITE;
		goto out;
	}
	if (isatty(STDERR_FILENO) && !o.quiet)
		dbp_index_progress = m_progress;
	for (i = 0; i < n; i++) {
		if (paths[i] == NULL)
			continue;
		r = m_index(todo[i], paths[i], o.full, o.quiet, o.strict, out);
		if (r != 0 && rc != EXIT_WRITE)
			rc = r;	/* a write failure outranks --strict */
	}
	if (out != NULL) {
		txt = dbp_json_dump(cJSON_GetArraySize(out) == 1 && n == 1 ?
		    out->child : out, 2);
		if (txt != NULL) {
			puts(txt);
			free(txt);
		}
	}
out:
	cJSON_Delete(out);
	for (i = 0; paths != NULL && i < n; i++)
		free(paths[i]);
	free(paths);
	free(todo);
	dbp_project_release(&proj);
	dbp_remote_release(&remote);
	return rc;
}

/*
 * main.c - dbprint-serve: the MCP server over the print's index.
 *
 *   dbprint-serve [CONNECTION] [--project LOC] [--index PATH]
 *       [--transport stdio|http] [--host H] [--port N] [--token-file F]
 *       [--log-level L] [--reference-dir DIR] [--call TOOL [JSON]]
 *       [--read-only]
 *
 * Startup follows research/upstream-mcp.md 1.1: --no-read-only is refused,
 * the transport options are checked, the project configuration is loaded
 * (a git address cloned or refreshed first; "error: <msg>", exit 1),
 * the served connections are resolved (the bare message, exit 1), each
 * served connection's index is opened and brought up to date, the
 * process confines itself (srv_confine, confine.c), and then the server answers on
 * stdio until EOF, SIGTERM or SIGINT (exit 0), or runs the one --call and
 * exits.
 */
#define _POSIX_C_SOURCE	200809L

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "platform.h"
#include "sandbox.h"
#include "server.h"
#include "remote/remote.h"

#define MAIN_EXIT_USAGE	2
#define MAIN_PORT_MAX	65535

/* The SYNOPSIS of dbprint-serve(1). */
static const char main_synopsis[] =
    "usage: dbprint-serve [CONNECTION] [--project LOC] [--index PATH]\n"
    "                     [--transport stdio|http] [--host H] [--port N]\n"
    "                     [--token-file F] [--log-level L] "
    "[--reference-dir DIR]\n"
    "                     [--call TOOL [JSON]] [--read-only] "
    "[--no-sandbox]\n";

/* --help: one line per option, in the order of dbprint-serve(1). */
static const struct dbp_opt_help main_help[] = {
	{ "CONNECTION",		"serve this connection only" },
	{ "--project LOC",	"the .dbprint.yaml, or the directory holding it" },
	{ "--index PATH",	"the index file, when one connection is served" },
	{ "--transport stdio|http", "the transport (default stdio)" },
	{ "--host H",		"HTTP: the loopback address (127.0.0.1)" },
	{ "--port N",		"HTTP: the port, required; 0 takes a free one" },
	{ "--token-file F",	"HTTP: require the bearer token F holds" },
	{ "--log-level L",	"error, warning (the default), info or debug" },
	{ "--reference-dir DIR", "serve get_reference's documents from DIR" },
	{ "--call TOOL [JSON]",	"run one tools/call, print its text, exit" },
	{ "--read-only",	"accepted: the server only ever reads" },
	{ "--no-sandbox",	"do not confine the server (debugging)" },
	{ "-h, --help",		"print this help and exit" },
	{ "-V, --version",	"print the version and exit" },
};

/* The synopsis on stderr (a usage error), or the help on stdout. */
static void
main_usage(FILE *f)
{
	if (f == stdout)
		dbp_usage(f, main_synopsis, main_help,
		    sizeof(main_help) / sizeof(main_help[0]),
		    "dbprint-serve(1)");
	else
		dbp_usage(f, main_synopsis, NULL, 0, NULL);
}

static int
main_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted Python list repr of every configured connection; malloc'd. */
static char *
main_configured(const struct dbp_project *p)
{
	const char **names;
	size_t i;
	char *out;

	if ((names = calloc(p->nconns + 1, sizeof(*names))) == NULL)
		return NULL;
	for (i = 0; i < p->nconns; i++)
		names[i] = p->conns[i].name;
	qsort(names, p->nconns, sizeof(*names), main_cmp);
	out = srv_repr_list(names, p->nconns);
	free(names);
	return out;
}

/*
 * The served set and default of spec 5.1 (upstream-mcp.md 1.3).  0, or
 * -1 after printing the bare message.
 */
static int
main_resolve(struct srv *s, const char *name)
{
	const struct dbp_conn *c;
	char *list, *r;
	size_t i, nauto = 0;

	if (s->project.nconns == 0) {
		fprintf(stderr, ".dbprint.yaml defines no connections. Add at "
		    "least one under `connections:`.\n");
		return -1;
	}
	if ((s->served = calloc(s->project.nconns, sizeof(*s->served))) ==
	    NULL) {
		fprintf(stderr, "dbprint-serve: out of memory\n");
		return -1;
	}
	if (name != NULL) {
		if ((c = dbp_project_conn(&s->project, name)) == NULL) {
			list = main_configured(&s->project);
			r = dbp_pyrepr_str(name);
			fprintf(stderr, "unknown connection %s. Known: %s.\n",
			    r ? r : name, list ? list : "[]");
			free(r);
			free(list);
			return -1;
		}
		s->served[0].conf = c;
		s->nserved = 1;
		s->deflt = &s->served[0];
		return 0;
	}
	for (i = 0; i < s->project.nconns; i++)
		if (s->project.conns[i].autoflag)
			s->served[nauto++].conf = &s->project.conns[i];
	if (nauto > 0) {
		s->nserved = nauto;
		s->deflt = nauto == 1 ? &s->served[0] : NULL;
		return 0;
	}
	if (s->project.nconns == 1) {
		s->served[0].conf = &s->project.conns[0];
		s->nserved = 1;
		s->deflt = &s->served[0];
		return 0;
	}
	list = main_configured(&s->project);
	fprintf(stderr, "no CONNECTION supplied and multiple connections "
	    "defined: %s. Pass one as the positional argument, or mark one or "
	    "more with `auto: true`.\n", list ? list : "[]");
	free(list);
	return -1;
}

static void
main_release(struct srv *s)
{
	size_t i;

	for (i = 0; i < s->nserved; i++) {
		if (s->served[i].db != NULL) {
			srv_stmt_close(&s->served[i]);
			sqlite3_close(s->served[i].db);
		}
		free(s->served[i].index_path);
	}
	free(s->served);
	dbp_project_release(&s->project);
}

/* Parse --log-level; -1 when unknown. */
static int
main_level(const char *v)
{
	static const char *const names[] = { "error", "warning", "info",
	    "debug" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(v, names[i]) == 0)
			return (int)i;
	if (strcasecmp(v, "warn") == 0)
		return SRV_LOG_WARNING;
	if (strcasecmp(v, "critical") == 0)
		return SRV_LOG_ERROR;
	return -1;
}

/* 1 when host is one of the loopback names the server may bind. */
static int
main_loopback(const char *h)
{
	return strcmp(h, "127.0.0.1") == 0 || strcmp(h, "::1") == 0 ||
	    strcmp(h, "localhost") == 0;
}

/* Run one tools/call and print its text; the exit status. */
static int
main_call(struct srv *s, const char *tool, const char *json)
{
	cJSON *args = NULL;
	char *text = NULL;
	int is_error = 0;

	if (json != NULL) {
		args = cJSON_Parse(json);
		if (args == NULL) {
			fprintf(stderr, "dbprint-serve: --call: the arguments "
			    "are not JSON: %s\n", json);
			return 1;
		}
		args_spell_numbers(args, json, strlen(json));
	}
	watch_defer(1);		/* one call: a watch would never be read */
	mcp_tools_call(s, tool, args, &text, &is_error);
	cJSON_Delete(args);
	if (text == NULL) {
		fprintf(stderr, "dbprint-serve: out of memory\n");
		return 1;
	}
	if (is_error)
		fprintf(stderr, "%s\n", text);
	else
		printf("%s\n", text);
	free(text);
	if (fflush(stdout) != 0)
		return 1;
	return is_error ? 1 : 0;
}

/* What the command line asked for (main_options). */
struct main_opts {
	const char	*project, *index, *host, *conn, *call, *call_json;
	const char	*port_s;
	long		 port;
	int		 http, no_sandbox;
	int		 read_only;	/* 0 after a last --no-read-only */
};

/*
 * The words after the options (CONNECTION, and with --call the JSON
 * arguments) and the --port number.  0, or 1 + MAIN_EXIT_USAGE after
 * printing why.
 */
static int
main_operands(int argc, char **argv, struct main_opts *o)
{
	char *end;

	/* CONNECTION, and with --call the JSON arguments (the
	 * word that opens with '{', else the second word). */
	for (; optind < argc; optind++) {
		if (o->call != NULL && o->call_json == NULL &&
		    (argv[optind][0] == '{' || o->conn != NULL)) {
			o->call_json = argv[optind];
			continue;
		}
		if (o->conn != NULL) {
			fprintf(stderr, "dbprint-serve: unexpected argument "
			    "'%s'\n", argv[optind]);
			main_usage(stderr);
			return 1 + MAIN_EXIT_USAGE;
		}
		o->conn = argv[optind];
	}
	if (o->port_s != NULL) {
		errno = 0;
		o->port = strtol(o->port_s, &end, 10);
		/* 0 asks the system for a free port (HTTP prints it). */
		if (errno != 0 || *end != '\0' || end == o->port_s ||
		    o->port < 0 || o->port > MAIN_PORT_MAX) {
			fprintf(stderr, "dbprint-serve: --port must be a "
			    "number from 0 to %d, got '%s'\n", MAIN_PORT_MAX,
			    o->port_s);
			return 1 + MAIN_EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * Parse the command line into o and s (reference and token files, the
 * log level).  0 to go on, else 1 + the exit status (a usage error, or 0
 * after --help and --version).
 */
static int
main_options(int argc, char **argv, struct main_opts *o, struct srv *s)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'P' },
		{ "index", required_argument, NULL, 'i' },
		{ "transport", required_argument, NULL, 't' },
		{ "host", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'p' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "reference-dir", required_argument, NULL, 'r' },
		{ "call", required_argument, NULL, 'c' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "no-sandbox", no_argument, NULL, 'S' },
		{ "read-only", no_argument, NULL, 'R' },
		{ "no-read-only", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, lvl;

	while ((ch = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'P':
			o->project = optarg;
			break;
		case 'i':
			o->index = optarg;
			break;
		case 't':
			if (strcasecmp(optarg, "stdio") == 0)
				o->http = 0;
			else if (strcasecmp(optarg, "http") == 0)
				o->http = 1;
			else {
				fprintf(stderr, "dbprint-serve: --transport "
				    "must be stdio or http, got '%s'\n",
				    optarg);
				main_usage(stderr);
				return 1 + MAIN_EXIT_USAGE;
			}
			break;
		case 'H':
			o->host = optarg;
			break;
		case 'p':
			o->port_s = optarg;
			break;
		case 'l':
			if ((lvl = main_level(optarg)) < 0) {
				fprintf(stderr, "dbprint-serve: --log-level "
				    "must be error, warning, info or debug, "
				    "got '%s'\n", optarg);
				return 1 + MAIN_EXIT_USAGE;
			}
			srv_log_level = lvl;
			break;
		case 'r':
			s->reference_dir = optarg;
			break;
		case 'c':
			o->call = optarg;
			break;
		case 'T':
			s->token_file = optarg;
			break;
		case 'S':
			o->no_sandbox = 1;
			break;
		case 'R':
			o->read_only = 1;
			break;
		case 'W':
			o->read_only = 0;
			break;
		case 'h':
			main_usage(stdout);
			return 1;
		case 'V':
			printf("dbprint-serve %s\n", DBP_VERSION);
			return 1;
		default:
			main_usage(stderr);
			return 1 + MAIN_EXIT_USAGE;
		}
	}
	return main_operands(argc, argv, o);
}

/* The transport's own checks (upstream-mcp.md 1.1 step 3): 0, or -1
 * after printing the message. */
static int
main_check_transport(const struct main_opts *o)
{
	char *hr;

	if (!o->http || o->call != NULL)
		return 0;
	if (o->port_s == NULL) {
		fprintf(stderr, "--port is required when --transport http.\n");
		return -1;
	}
	if (!main_loopback(o->host)) {
		hr = dbp_pyrepr_str(o->host);
		fprintf(stderr, "--host must be loopback (['127.0.0.1', "
		    "'::1', 'localhost']); got %s.\n", hr ? hr : o->host);
		free(hr);
		return -1;
	}
	if (http_serve == NULL) {
		fprintf(stderr, "dbprint-serve: --transport http is not "
		    "available in this build yet; use --transport stdio\n");
		return -1;
	}
	return 0;
}

/*
 * Load the project (a git address: its clone made or, for --call,
 * refreshed when due; a server refreshes it in the background), resolve
 * the served set and open every served index (upstream-mcp.md 1.1 steps
 * 4 and 5).  0, or -1 after printing the message; the caller releases s
 * and r either way.
 */
static int
main_start(struct srv *s, const struct main_opts *o, struct dbp_remote *r)
{
	struct dbp_diag d;
	const char *path;
	char *ipath;
	size_t i;

	d.msg[0] = '\0';
	if (dbp_project_open(o->project, o->call != NULL ? 0 :
	    DBP_REMOTE_BACKGROUND, &s->project, r, &d) != 0) {
		fprintf(stderr, "error: %s\n", d.msg);
		return -1;
	}
	if (main_resolve(s, o->conn) != 0)
		return -1;
	if (o->index != NULL && s->nserved > 1) {
		fprintf(stderr, "dbprint-serve: --index names one index file, "
		    "but %zu connections are served; name one CONNECTION\n",
		    s->nserved);
		return -1;
	}
	for (i = 0; i < s->nserved; i++) {
		ipath = NULL;
		if ((path = o->index) == NULL)
			path = ipath = dbp_index_path(&s->project,
			    s->served[i].conf->name);
		/* SQLite's temporary files beneath an index directory,
		 * which the sandbox lets it write: set before the first
		 * open, when SQLite reads it. */
		if (path != NULL && i == 0 && !o->no_sandbox &&
		    !dbp_sandbox_env_off() && dbp_sandbox_tmpdir(path) != 0)
			path = NULL;
		if (path == NULL)
			fprintf(stderr, "dbprint-serve: out of memory\n");
		if (path == NULL || srv_index_open(&s->served[i], path) != 0) {
			free(ipath);
			return -1;
		}
		free(ipath);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct main_opts o;
	struct dbp_remote remote;
	struct dbp_refresher refresher;
	struct dbp_diag d;
	struct srv s;
	int rc;

	dbp_set_progname(argv[0]);
	memset(&s, 0, sizeof(s));
	memset(&o, 0, sizeof(o));
	memset(&remote, 0, sizeof(remote));
	memset(&refresher, 0, sizeof(refresher));
	refresher.fd = -1;
	o.host = "127.0.0.1";
	/* No allocation statistics: each SQLite malloc and free took a
	 * global mutex for them. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	o.read_only = 1;
	if ((rc = main_options(argc, argv, &o, &s)) != 0)
		return rc - 1;
	/* upstream-mcp.md 1.1 step 1: the server only ever reads. */
	if (!o.read_only) {
		fprintf(stderr, "Only --read-only is supported.\n");
		return 1;
	}
	if (main_check_transport(&o) != 0)
		return 1;
	if (main_start(&s, &o, &remote) != 0) {
		main_release(&s);
		dbp_remote_release(&remote);
		return 1;
	}
	/* A print served from its repository: git runs in a child forked
	 * now, on its timer; this process only reads the files it leaves. */
	if (o.call == NULL && dbp_refresher_start(&remote, &refresher,
	    &d) != 0)
		srv_log(SRV_LOG_WARNING, "%s; the clone is not refreshed",
		    d.msg);
	/* Then the sandbox: from here on this process never runs git nor
	 * touches the network.  HTTP confines itself in http_serve once its
	 * socket is bound; stdio and --call here. */
	s.no_sandbox = o.no_sandbox;
	s.refresher = refresher.pid;
	s.confine = srv_confine;
	if (!o.http || o.call != NULL) {
		if (srv_confine(&s, 0) < 0) {
			dbp_refresher_stop(&refresher);
			main_release(&s);
			dbp_remote_release(&remote);
			return 1;
		}
	}
	if (o.call != NULL)
		rc = main_call(&s, o.call, o.call_json);
	else {
		rpc_signals();
		if (o.http)
			rc = http_serve(&s, o.host, (int)o.port) == 0 ? 0 : 1;
		else
			rc = rpc_serve_stdio(&s, STDIN_FILENO,
			    STDOUT_FILENO) == 0 ? 0 : 1;
		fflush(stderr);
	}
	dbp_refresher_stop(&refresher);
	main_release(&s);
	dbp_remote_release(&remote);
	return rc;
}

/*
 * server.h - dbprint-serve's interface between the protocol machine
 * (rpc.c, mcp.c, call.c, page.c) and the tools and resources that answer
 * over the index.
 *
 * A tools/call runs as: look up the tool -> fold format/purpose -> validate
 * the arguments against the advertised inputSchema -> resolve the
 * connection -> the tool body.  The body:
 *   1. calls call_pin() with every print file it reads (relative paths);
 *      call_pin() re-indexes any that changed on disk (spec 7.1) and
 *      records them for the cursor;
 *   2. calls call_position() to decode and check its cursor (foreign,
 *      stale, malformed errors come from there);
 *   3. answers from the index with bound parameters only;
 *   4. hands its reply to page_list() / page_text() / call_reply_json(),
 *      which cut the page, add next_cursor and set c->text.
 * Any fault: return call_fail(c, "detail ..."), which becomes an isError
 * result (spec 8.2).  A tool never writes to stdout.
 */
#ifndef DBPRINT_SERVER_H
#define DBPRINT_SERVER_H

#include <sys/types.h>

#include <stddef.h>

#include "dbprint.h"

/* One served connection. */
struct srv_conn {
	const struct dbp_conn	*conf;		/* borrowed from srv.project */
	char			*index_path;	/* NULL when in memory */
	sqlite3			*db;		/* owned; read and refresh */
	struct srv_stmts	*stmts;		/* srv_stmt()'s statements on
						 * db; NULL until asked */
	dev_t			 ix_dev;	/* the file db opened at */
	ino_t			 ix_ino;	/* index_path (ix_known) */
	int			 ix_known;
	int			 ix_memory;	/* rebuilt in memory */
};

/*
 * Prepared statements kept per index handle (stmt.c).  sql is a constant
 * text (a static array: the cache knows it by its address; one statement,
 * no user text in it).  srv_stmt() returns it reset and unbound, ready to
 * bind and step, prepared on the first ask only; NULL when it cannot be
 * prepared (sqlite3_errmsg(cn->db) says why).  Hand it back with
 * srv_stmt_done() as soon as its rows are read, and always before the
 * call ends: a statement left stepping holds a read transaction, pinning
 * the WAL snapshot, and a later call would not see a re-index.  Asked
 * again while handed out (nested use), it returns a fresh statement that
 * srv_stmt_done() finalizes.
 */
sqlite3_stmt *srv_stmt(struct srv_conn *cn, const char *sql);
/* Hand st back (reset, bindings cleared; finalized when it is not a
 * kept one).  st may be NULL. */
void	srv_stmt_done(struct srv_conn *cn, sqlite3_stmt *st);
/* Reset every kept statement still handed out or stepping (the end of a
 * call); returns how many were (a missing srv_stmt_done).  cn may be
 * NULL. */
size_t	srv_stmt_sweep(struct srv_conn *cn);
/* Finalize cn's kept statements and free its kept data (srv_keep_set):
 * call it before sqlite3_close(cn->db), which fails while any statement
 * lives. */
void	srv_stmt_close(struct srv_conn *cn);

/*
 * A tool's data kept per index handle between calls (stmt.c), under key
 * (the address of a static of the tool's): srv_keep_get() returns it, or
 * NULL; srv_keep_set() replaces it (the previous one freed with its
 * free_fn), taking data, which srv_stmt_close() frees with free_fn.  0,
 * or -1 when no slot is left (data freed then).  The tool checks that
 * what it kept still speaks for the index (srv_index_version).
 */
void	*srv_keep_get(struct srv_conn *cn, const void *key);
int	srv_keep_set(struct srv_conn *cn, const void *key, void *data,
	    void (*free_fn)(void *));
/* The index's version as cn's handle sees it: other handles' commits
 * (PRAGMA data_version) and its own (sqlite3_total_changes).  0 or -1. */
int	srv_index_version(struct srv_conn *cn, sqlite3_int64 *dv,
	    sqlite3_int64 *tc);

struct srv {
	struct dbp_project	 project;
	struct srv_conn		*served;	/* in declaration order */
	size_t			 nserved;
	struct srv_conn		*deflt;		/* NULL: no default connection */
	const char		*reference_dir;	/* --reference-dir, or NULL */
	const char		*token_file;	/* --token-file (HTTP), or NULL */
	/* Confine the process (srv_confine; NULL: never): called once
	 * everything the server opens at start is open, by http_serve once
	 * its socket is bound and before its daemon's threads start
	 * (listener 1).  -1 to stop. */
	int			(*confine)(struct srv *s, int listener);
	int			 no_sandbox;	/* --no-sandbox */
	long			 refresher;	/* the git refresher child's
						 * pid (waited for at the
						 * end), 0: none */
};

/*
 * confine.c: the sandbox of dbprint-serve(1), SANDBOX.  Read beneath every
 * served print root and the reference directories, read and write beneath
 * the directory of every index file and SQLITE_TMPDIR, nothing else; a
 * listener (HTTP) keeps using its bound socket and creates none.  Does
 * nothing under s->no_sandbox or DBPRINT_NO_SANDBOX.  One line at start
 * says what is on: info when everything is (or the build has no
 * sandbox), a warning when the kernel lacks a part.  Apply before
 * starting any thread.  The DBP_SANDBOX_* bits of what took effect
 * (sandbox.h; 0 when off), or -1 out of memory.
 */
int	srv_confine(struct srv *s, int listener);

/* ixopen.c: open the index at path (strdup'ed into cn->index_path, freed
 * by the owner of the srv) and bring it up to date; where it cannot be
 * written, build it in memory (index_path NULL) and say so.  0, or -1
 * after the reason went to stderr. */
int	srv_index_open(struct srv_conn *cn, const char *path);
/* Record the device and inode index_path names now, as the file cn->db
 * opened (a handle opened by dbp_index_open itself). */
void	srv_index_ident(struct srv_conn *cn);
/* Before a call reads the indexes of s: any whose file was deleted or
 * replaced since its handle opened it is opened again at its path, built
 * there when missing (in memory when it cannot be written).  0, or -1
 * with the reason in d. */
int	srv_index_recheck(struct srv *s, struct dbp_diag *d);

/* A tool call reads cn's index in one transaction: one snapshot for all
 * its queries, and one lock of the WAL's index where each statement took
 * its own (call.c).  srv_read_end ends it (nothing to do when none is
 * open). */
void	srv_read_begin(struct srv_conn *cn);
void	srv_read_end(struct srv_conn *cn);
/* dbp_index_refresh of paths on cn's handle and print root, outside the
 * call's read: it is ended first and opened again after, so the reads
 * that follow see what the refresh wrote. */
int	srv_index_refresh(struct srv_conn *cn, const char *const *paths,
	    size_t n, int *changed, struct dbp_diag *d);

/* The served connection named name, or NULL. */
struct srv_conn *srv_conn_find(struct srv *s, const char *name);

/* One tools/call in flight.  Everything it allocates it owns; call_release
 * frees it. */
struct call {
	struct srv		*srv;
	const char		*tool;		/* the tool's name */
	cJSON			*args;		/* validated and folded; borrowed */
	struct srv_conn		*conn;		/* resolved; NULL for get_reference */
	const char		*cursor;	/* args' cursor or NULL; borrowed */
	char			 args_digest[17];	/* over args minus cursor */
	char			**pins;		/* relative paths read, owned */
	size_t			 npins;
	char			*text;		/* the reply text, owned */
	int			 is_error;	/* text is an error detail */
	char			 files_digest[17];	/* of pins; "" until computed */
	char			 set_digest[17];	/* of call_pin_query's
							 * paths; "" if none */
	size_t			 pins_sorted;	/* pins[0..pins_sorted) sorted,
						 * distinct */
};

/* Free what the call owns (pins, text); the call struct itself is the
 * caller's. */
void	call_release(struct call *c);

/* Record that the call reads these print files (relative to the print
 * root) and bring each up to date in the index first.  -1 with the
 * detail set (call_fail) when the index cannot be refreshed. */
int	call_pin(struct call *c, const char *const *paths, size_t n);
int	call_pin1(struct call *c, const char *path);

/* Pin every path the constant query sql returns (one text column, no
 * parameters, never user text): a call that reads every statistics file
 * of the connection (search_columns).  Same contract as call_pin(), built
 * for tens of thousands of paths; the paths must be distinct. */
int	call_pin_query(struct call *c, const char *sql);

/* watch.c: bring every path the constant query sql returns up to date in
 * cn's index (spec 7.1) and give the digest of their content in
 * digest[17].  Kept per index handle between calls, with inotify watches
 * on their directories, so a call where nothing changed stats nothing
 * but the print root.  *changed is 1 when something was re-indexed.  0,
 * or -1 with *detail malloc'd (caller frees). */
int	watch_pin_query(struct srv_conn *cn, const char *sql, char digest[17],
	    int *changed, char **detail);

/* watch.c: with on set, a call leaves directories not watched yet to
 * watch_idle() and stats their files itself (stdio and --call; the HTTP
 * transport, which has no idle hook, watches in the call).  Set before
 * any call. */
void	watch_defer(int on);
/* One idle step of cn's set: watch up to budget of the directories calls
 * left unwatched.  1 when some are still waiting, else 0. */
int	watch_idle(struct srv_conn *cn, size_t budget);
/* The idle work of every served connection, one bounded step (call.c):
 * 1 when more remains.  DBPRINT_WATCH_STEP sets the directories of a
 * step (0: none, calls keep stat'ing them). */
int	srv_idle(struct srv *s);

/* Decode the call's cursor and check it belongs to this tool, these
 * arguments and the current content of every pinned file.  *pos is 0 when
 * there is no cursor.  Call it after every call_pin().  -1 with the spec's
 * detail (not issued / foreign / print changed) set on c. */
int	call_position(struct call *c, size_t *pos);

/* Set c->text to the formatted detail, mark the call an error, return -1. */
int	call_fail(struct call *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* The connection-level errors of spec 8.2, shared by tools and resources:
 * they return the malloc'd detail (caller frees). */
char	*srv_err_unknown_table(struct srv_conn *cn, const char *table);

/* ------------------------------------------------------------------ */
/* Paging (page.c) - spec 4.8                                          */

/*
 * A list reply: keys of head (first page only, in order), then keys of
 * every (every page), then the list(s), then total, then next_cursor.
 * Items too large for a page are sent as {"part","parts","text"} entries.
 * lists[1], when set, is walked after lists[0] (resolve_value's domain
 * after its spellings/candidates); total counts both.
 * after(), when set, may add keys to a page after the lists and before
 * total, knowing which items [first, first+count) the page holds (list
 * index space over both lists).
 */
struct page_list {
	cJSON		*head;		/* object or NULL; borrowed */
	cJSON		*every;		/* object or NULL; borrowed */
	const char	*key[2];	/* list key names; key[1] may be NULL */
	cJSON		*items[2];	/* arrays; borrowed */
	int		 empty_on_first[2];	/* emit an empty list on page 1 */
	void		(*after)(void *ctx, cJSON *page, size_t first,
			    size_t count);
	void		*ctx;
	int		 no_total;	/* omit total (a list-less reply) */
};

/* Cut the page at the call's position (call_position() first) and set
 * c->text to its JSON (two-space indent, ensure_ascii).  0 or -1.  The
 * arrays are read through page_window(), so only the items the page
 * shows are measured. */
int	page_list(struct call *c, const struct page_list *l, size_t pos);

/*
 * A windowed list reply: the same reply as page_list's, whose items are
 * produced on demand, so a page costs what it shows and not what the
 * list holds.  The tool states how many items each list has (total is
 * their sum) and item() produces them:
 *
 *   item(ctx, i) returns item i as a new cJSON node that the engine owns
 *   (and cJSON_Deletes; unless borrowed is set, below), or NULL on
 *   failure - after call_fail() on the call for the tool's own detail,
 *   else the engine reports "out of
 *   memory paging the reply".  i runs over both lists (list 0's count[0]
 *   items, then list 1's) and is asked in order: consecutive values,
 *   starting at the first item the page shows (0 when it starts among
 *   the head keys), each at most once per page_window() call, ending
 *   one or a few items past the page's last (the engine must see an item
 *   to know it does not fit).  A tool answering from SQL steps one
 *   statement from OFFSET i (or a key range) as item() is called.
 *
 * A node may reference memory of the tool's (cJSON_Create*Reference) as
 * long as it lives until page_window() returns.  after(), when set, runs
 * on each rendered page as page_list's does, with first and count in the
 * same index space as item(); it may add keys, never remove items.
 *
 * The cursor's position is the engine's own (a unit and part), so a tool
 * passes call_position()'s pos through unchanged; a position past the
 * list is the "not issued ... with these arguments" error.
 */
struct page_src {
	cJSON		*head;		/* object or NULL; borrowed */
	cJSON		*every;		/* object or NULL; borrowed */
	const char	*key[2];	/* list key names; key[1] may be NULL */
	size_t		 count[2];	/* items of each list (0 if no key) */
	int		 empty_on_first[2];	/* emit an empty list on page 1 */
	cJSON		*(*item)(void *ctx, size_t i);
	void		(*after)(void *ctx, cJSON *page, size_t first,
			    size_t count);
	void		*ctx;		/* passed to item() and after() */
	int		 no_total;	/* omit total (a list-less reply) */
	int		 borrowed;	/* item()'s nodes are the tool's, alive
					 * until page_window() returns: the
					 * engine never deletes them (a tool
					 * may then make them without malloc) */
};

/* Cut the page of s at pos (call_position() first) and set c->text to
 * its JSON (two-space indent, ensure_ascii).  0, or -1 with c's error
 * set. */
int	page_window(struct call *c, const struct page_src *s, size_t pos);

/* A text reply (Markdown, get_reference): cut at line boundaries into
 * pages of at most DBP_PAGE_CHARS characters, every page but the last
 * ending with "\n<!-- next_cursor: <cursor> -->".  blocks are joined
 * with "\n\n" and a page takes whole blocks while they fit. */
int	page_text(struct call *c, const char *const *blocks, size_t nblocks,
	    size_t pos);

/* ------------------------------------------------------------------ */
/* Tools (one file each; tools.c holds the table and inputSchemas)      */

int	tool_get_table_context(struct call *c);
int	tool_list_tables(struct call *c);
int	tool_search_columns(struct call *c);
int	tool_resolve_value(struct call *c);
int	tool_get_manifest(struct call *c);
int	tool_get_diff(struct call *c);
int	tool_get_reference(struct call *c);

/* ------------------------------------------------------------------ */
/* The protocol machine's shared pieces (rpc.c, mcp.c, call.c, page.c) */

/* The one modern (stateless, 2026-07-28) revision served, and the legacy
 * revisions initialize negotiates, newest first. */
#define SRV_PROTO_MODERN	"2026-07-28"
#define SRV_PROTO_LEGACY_NEWEST	"2025-11-25"

/* Length of every cursor a reply issues (fixed, so a page can be
 * measured with a placeholder before its cursor is known). */
#define SRV_CURSOR_LEN		92

/* Log levels of --log-level; messages above the level are dropped. */
enum srv_level { SRV_LOG_ERROR, SRV_LOG_WARNING, SRV_LOG_INFO, SRV_LOG_DEBUG };
extern int srv_log_level;
/* Log to stderr at level (never stdout). */
void	srv_log(int level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Resolve a connection per spec 5.2: name NULL means "omitted".  0 with
 * *out set, or -1 with *detail the malloc'd spec 8.2 sentence (caller
 * frees): unserved, unconfigured, or no default. */
int	srv_resolve_conn(struct srv *s, const char *name,
	    struct srv_conn **out, char **detail);

/* Python list repr of a string array, e.g. ['a', 'b']: malloc'd. */
char	*srv_repr_list(const char *const *names, size_t n);

/* A one-object reply with no list to page: c->text is v dumped with a
 * two-space indent (ensure_ascii).  0, or -1 on OOM (call_fail). */
int	call_reply_json(struct call *c, const cJSON *v);

/* The cursor that resumes this call at pos: SRV_CURSOR_LEN characters,
 * binding the tool, the arguments and the pinned files' current digest.
 * malloc'd (caller frees), NULL on failure. */
char	*call_cursor(struct call *c, size_t pos);

/* Cursor internals shared by call.c and page.c. */
/* Fail the call with the "not issued by <tool> with these arguments"
 * detail (a position out of range); returns -1. */
int	call_out_of_range(struct call *c);
/* Digest (16 hex) of the arguments minus cursor, keys sorted, as Python's
 * json.dumps(sort_keys=True) spells them.  0 or -1 (OOM). */
int	call_args_digest(const cJSON *args, char out[17]);
/* Protocol-level cursors: make one, check one (0 with *pos, or -1 with
 * *detail malloc'd), and the out-of-range detail (malloc'd). */
void	call_proto_cursor(const char *scope, const char *files, size_t pos,
	    char out[SRV_CURSOR_LEN + 1]);
int	call_proto_check(const char *scope, const char *files,
	    const char *cursor, size_t *pos, char **detail);
char	*call_proto_foreign(const char *scope);

/* Protocol-level paging (spec 3.3) for tools/list and resources/list:
 * scope is the method name; items the whole ordered list (borrowed);
 * key the result's list key ("tools", "resources"); cursor the request's
 * cursor or NULL; files the digest the cursor pins (NULL for none).
 * 0 with *result = {key: [...], "nextCursor"?} (caller frees), or -1 with
 * *detail (malloc'd, an InvalidParams -32602 sentence). */
int	page_proto(const char *scope, cJSON *items, const char *key,
	    const char *cursor, const char *files, cJSON **result,
	    char **detail);

/* ------------------------------------------------------------------ */
/* Resources (resources.c) - called by the dispatcher in mcp.c          */
/*
 * Each returns 0 with *result the whole MCP result object (caller frees;
 * the dispatcher adds the 2026-07-28 decorations), or -1 with *code the
 * JSON-RPC error code (-32602, -32603) and *detail the malloc'd message.
 * titles is 1 when the session's protocol revision carries title fields
 * (2025-06-18 and later).
 */
int	res_list(struct srv *s, const char *cursor, int titles,
	    cJSON **result, int *code, char **detail);
int	res_templates(struct srv *s, int titles, cJSON **result, int *code,
	    char **detail);
int	res_read(struct srv *s, const char *uri, cJSON **result, int *code,
	    char **detail);

/* Cut text[0..len) into resource pages (spec 3.4) of at most bound units
 * of JSON-escaped width (non-ASCII counts 1): whole lines while they
 * fit, a longer line at character boundaries.  *offs gets npages + 1
 * byte offsets (malloc'd, caller frees); page i is text[offs[i] ..
 * offs[i+1]).  An empty text is one empty page.  0, or -1 on OOM. */
int	res_pages(const char *text, size_t len, size_t bound, size_t **offs,
	    size_t *npages);

/* ------------------------------------------------------------------ */
/* Transports                                                           */

/* One JSON-RPC session's state (a stdio process, or an HTTP session). */
struct rpc_session {
	char	version[16];	/* legacy revision negotiated by initialize,
				 * "" before one */
};

/* Handle one JSON-RPC message text (no newline).  *reply is the malloc'd
 * compact response frame without newline (caller frees), or NULL when
 * nothing is to be sent (a notification or a response). */
void	rpc_handle(struct srv *s, struct rpc_session *ss, const char *msg,
	    size_t len, char **reply);

/* Parse one JSON-RPC message text as both transports read it: UTF-8,
 * no raw control byte but tab, LF and CR, one JSON value and nothing
 * after it but whitespace; numbers spelled (args_spell_numbers), and a
 * numeric "id" of an object turned into a raw node of its own spelling,
 * so replies echo it as sent.  The tree (caller frees), or NULL with
 * *code (-32700, or -32600 for an id that cannot be echoed) and the
 * message in why[0..whylen), at least RPC_WHY_MAX bytes. */
#define RPC_WHY_MAX	256
cJSON	*rpc_parse(const char *msg, size_t len, int *code, char *why,
	    size_t whylen);

/* Serve newline-delimited JSON-RPC on the in/out descriptors until EOF,
 * SIGTERM or SIGINT (after answering the frames already readable on in);
 * 0 on a clean end, -1 when out failed. */
int	rpc_serve_stdio(struct srv *s, int in, int out);

/* Install the SIGTERM/SIGINT handlers (no SA_RESTART) that make a blocked
 * read return and the serve loops end after the request in flight. */
void	rpc_signals(void);
/* Non-zero once SIGTERM or SIGINT arrived. */
int	rpc_stopping(void);

/* Streamable HTTP on a loopback host (http.c).  Weak: absent until the
 * HTTP transport is linked in, in which case --transport http refuses. */
int	http_serve(struct srv *s, const char *host, int port)
	    __attribute__((weak));

/* Answer one request (mcp.c): 0 with *result set (caller frees), or -1
 * with *code, *msg (malloc'd) and *data (NULL or caller frees). */
int	mcp_dispatch(struct srv *s, struct rpc_session *ss, const char *method,
	    const cJSON *params, cJSON **result, int *code, char **msg,
	    cJSON **data);

/* Run one tools/call (the protocol's and --call's one code path): *text is
 * the malloc'd result text (caller frees), *is_error whether it is an
 * error detail. */
void	mcp_tools_call(struct srv *s, const char *name, const cJSON *args,
	    char **text, int *is_error);

/* The tool table (tools.c), in spec order. */
struct tool_def {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*schema;	/* the inputSchema as JSON text */
	int		(*body)(struct call *c);
	int		 takes_connection;
};
extern const struct tool_def srv_tools[];
extern const size_t srv_ntools;
/* The parsed inputSchema of tool i (parsed once; never freed). */
const cJSON *tools_schema(size_t i);
/* The index of the tool named name, or -1. */
int	tools_find(const char *name);

/* Fold format/purpose to lower case and check args against tool i's
 * inputSchema (spec 8.2).  0, or -1 with *detail malloc'd. */
int	args_check(size_t tool, cJSON *args, char **detail);

/* Give every number node of root, the tree parsed from exactly
 * text[0..len), its Python spelling in valuestring (ints as written,
 * floats as repr), so dbp_pyrepr and dbp_num_text print what Python
 * would. */
void	args_spell_numbers(cJSON *root, const char *text, size_t len);
/* The number token of node, one of the number nodes of root (parsed from
 * exactly text[0..len)), as the text spells it: 0 with *tok (into text)
 * and *n set, or -1 when node is not found. */
int	args_number_token(const cJSON *root, const cJSON *node,
	    const char *text, size_t len, const char **tok, size_t *n);

/* ------------------------------------------------------------------ */
/* Parsed documents from the index (jdoc.c)                             */

/* One files row.  Strings malloc'd (NULL when the column is NULL);
 * release with srv_file_release(). */
struct srv_file {
	char	*kind;
	char	*status;	/* ok, absent, parse_error, ... */
	char	*error;		/* the exact message the tools report */
	char	*hash;
	char	*doc;		/* the parsed YAML as compact JSON */
};

/* Read the files row of path (relative to the print root): 0 found, 1 no
 * such row, -1 with d set on an index error. */
int	srv_file_get(struct srv_conn *cn, const char *path, struct srv_file *f,
	    struct dbp_diag *d);
void	srv_file_release(struct srv_file *f);
/* The parsed document of path (files.doc), numbers keeping their Python
 * spelling in valuestring; NULL when there is none.  cJSON_Delete it. */
cJSON	*srv_file_doc(struct srv_conn *cn, const char *path);
/* Parse JSON as Python's json.dumps writes it (Infinity and NaN
 * included), each number's text kept in valuestring.  NULL when it does
 * not parse.  cJSON_Delete it. */
cJSON	*srv_json_parse(const char *text, size_t len);
/* Add item to obj under key (to an array when key is NULL), taking it:
 * when the add fails (the key's copy ran out of memory, item is NULL)
 * item is deleted, where cJSON_AddItemToObject would leak it.  0 or -1. */
int	srv_json_put(cJSON *obj, const char *key, cJSON *item);
/* Add a reference to item (not taken; it must outlive obj) under key, or
 * to an array when key is NULL, leaking nothing when memory runs out (as
 * cJSON_AddItemReferenceToObject does).  0 or -1. */
int	srv_json_put_ref(cJSON *obj, const char *key, const cJSON *item);
/* The relative path of table fqn's declared artifact kind, or NULL (none
 * declared, or it escapes the root).  malloc'd. */
char	*srv_artifact_path(struct srv_conn *cn, const char *fqn,
	    const char *kind);

/* ------------------------------------------------------------------ */
/* Rejected-edge withholding (reject.c) - spec 3.4, 4.1, 4.5            */

/* Per call: the verdicts read so far, and how each consulted file is
 * pinned (refreshed in the index and recorded) by the caller. */
struct rej {
	struct srv_conn	*cn;
	int		(*pin)(void *ctx, const char *path);	/* 0 or -1 */
	void		*pin_ctx;
	struct rej_src	*src;		/* one per referencing table asked */
	size_t		 nsrc;
};

/* Start a context; pin may be NULL (the files are taken as they are in
 * the index).  rej_release() frees what it cached. */
void	rej_init(struct rej *r, struct srv_conn *cn,
	    int (*pin)(void *, const char *), void *pin_ctx);
void	rej_release(struct rej *r);

/* 1 when the edge from_table(from_cols) -> to_table(to_cols) is one a
 * human rejected in from_table's relationships.annotations.yaml and that
 * table's current relationships.yaml does not declare; 0 when not; -1
 * with d set when a file could not be pinned.  A missing column list
 * reads as the empty one. */
int	rej_edge_rejected(struct rej *r, const char *from_table,
	    const cJSON *from_cols, const char *to_table, const cJSON *to_cols,
	    struct dbp_diag *d);

/* 1 when diff event e (any node) is withheld: a relationship_* event
 * about a rejected edge (rej_edge_rejected of its source_table,
 * source_column, target_table, target_column); 0 when not; -1 (d set). */
int	rej_event(struct rej *r, const cJSON *e, struct dbp_diag *d);

/* Lower doc's summary.relationships_changed by n when it is an integer
 * (its spelling too).  0, or -1 on OOM. */
int	rej_summary(cJSON *doc, size_t n);

/* Withhold from a parsed diff.yaml (in place) every relationship_* event
 * about a rejected edge, lowering summary.relationships_changed (when an
 * int) by *dropped.  0 or -1 (d set). */
int	rej_diff(struct rej *r, cJSON *doc, size_t *dropped,
	    struct dbp_diag *d);

/* Withhold from table fqn's parsed relationships.yaml (in place) the
 * rejected edges of refers_to and of referenced_by (where the
 * referencer's own annotation file decides); declared entries are kept.
 * *dropped counts what was removed.  0 or -1 (d set). */
int	rej_relationships(struct rej *r, const char *fqn, cJSON *doc,
	    size_t *dropped, struct dbp_diag *d);

/* ------------------------------------------------------------------ */
/* Reference documents (reference.c) - spec 3.2, 4.6                    */

/* The text of reference document name ("spec", "assertions", "guide"):
 * read from s->reference_dir (else $DBPRINT_REFERENCE_DIR) as <name>.md
 * or the upstream file name (SPEC.md, ASSERTIONS.md, reading_guide.md),
 * else the copy compiled in from man/reference/.  Returns the text
 * (NUL-terminated, *len bytes); *owned is the malloc'd buffer to free
 * afterwards (NULL for the compiled-in copy).  NULL with d set when no
 * copy can be read.  s may be NULL (compiled-in or environment only). */
const char *ref_document(struct srv *s, const char *name, size_t *len,
	    char **owned, struct dbp_diag *d);

#endif /* DBPRINT_SERVER_H */

/*
 * dbp_limits.h - every named bound of dbprint-index and dbprint-serve.
 *
 * A limit lives here, once, with the reason for its value.  Code never
 * writes a bare number where one of these applies.
 */
#ifndef DBPRINT_DBP_LIMITS_H
#define DBPRINT_DBP_LIMITS_H

/* Largest print file read, in bytes.  The biggest statistics.yaml seen in
 * real prints is a few MB (sketch payloads); 64 MiB leaves ample room and
 * still stops a runaway file from exhausting memory. */
#define DBP_MAX_FILE_BYTES	(64L * 1024 * 1024)

/* Deepest YAML/JSON nesting accepted.  Print files nest about 8 deep. */
#define DBP_MAX_DEPTH		64

/* Most aliases one YAML document may dereference, and most nodes an
 * expansion may produce: together they stop "billion laughs". */
#define DBP_MAX_ALIASES		1024
#define DBP_MAX_NODES		(4L * 1024 * 1024)

/* Most bytes of scalar text one YAML document may expand to through its
 * aliases: the file itself is at most DBP_MAX_FILE_BYTES, so only alias
 * expansion reaches this. */
#define DBP_MAX_DOC_BYTES	(128L * 1024 * 1024)

/* Most decimal digits of a YAML integer: Python's own default limit on
 * int <-> str conversions (sys.get_int_max_str_digits()). */
#define DBP_MAX_INT_DIGITS	4300

/* Longest path we build. */
#define DBP_MAX_PATH		4096

/* Largest scalar (one string value) in a YAML file. */
#define DBP_MAX_SCALAR		(16L * 1024 * 1024)

/* The reply bound of the MCP spec (section 4.8), in characters of the text
 * a client receives. */
#define DBP_PAGE_CHARS		20000

/* A resource page's text, in escaped characters: spec 3.4 measures the
 * text serialized as a JSON string, and that string's two quotes count
 * (a file of 19,999 escaped characters is 20,001 as a string: 2 pages). */
#define DBP_PAGE_TEXT_CHARS	(DBP_PAGE_CHARS - 2)

/* Most parts one unit of a list reply (an item, or a head key) is cut
 * into: a cursor spells its position as unit * DBP_PAGE_MAX_PARTS + part
 * in ten digits, so a list holds up to ten million items and an item up
 * to about 19 MB of JSON text; a reply past either fails (page.c). */
#define DBP_PAGE_MAX_PARTS	1000

/* Longest JSON-RPC line read from stdin (a frame).  Requests are small;
 * 4 MiB is generous and bounds memory per frame. */
#define DBP_MAX_FRAME		(4L * 1024 * 1024)

/* Longest number a JSON-RPC id may be spelled with: a numeric id is
 * echoed in its own spelling (rpc.c), and request ids are counters. */
#define DBP_MAX_ID_NUMBER	64

/* Most bytes of stdin read after SIGTERM/SIGINT: the frames already in
 * the pipe when the signal came are answered (spec 7.3), and a pipe
 * holds at most 1 MiB unless raised (/proc/sys/fs/pipe-max-size). */
#define DBP_STDIO_DRAIN		(1L * 1024 * 1024)

/* Most connections one .dbprint.yaml may declare. */
#define DBP_MAX_CONNECTIONS	256

/* dbprint-index.  How long a run waits for another run's write lock on
 * the same index before giving up: two runs serialize, and a full build
 * of a large print takes seconds. */
#define DBP_BUSY_TIMEOUT_MS	60000
/* dbprint-index (the command, a batch job) waits longer: a second run
 * started during a full build of a large print on a busy machine waits
 * for it to commit rather than failing with "database is locked". */
#define DBP_INDEX_WAIT_MS	900000
/* Milliseconds between two tries of an index's switch to WAL, which
 * SQLite refuses at once (no busy handler) while another run writes. */
#define DBP_WAL_RETRY_MS	20

/* Value lists with more entries than this get value_trigrams rows for
 * resolve_value's nearest match; shorter ones are scored directly, which
 * is cheaper than the index they would need. */
#define DBP_TRIGRAM_MIN_VALUES	200

/* search_columns' text index (grams.c): the columns of tables changed
 * since its lists were built that the server tests itself on every text
 * search, before a run rebuilds the lists; and the most lists one needle
 * reads (a longer needle is narrowed by its first DBP_GRAMS_MAX_LISTS * 3
 * characters and its candidates tested in C). */
#define DBP_GRAMS_DIRTY_MAX	1000
#define DBP_GRAMS_MAX_LISTS	16

/* Worker threads that read and parse tables while the main thread writes,
 * the fewest table jobs worth starting them for, and how many prepared
 * tables may wait for the writer (bounds memory). */
#define DBP_MAX_WORKERS		4
#define DBP_PARALLEL_MIN_JOBS	64
#define DBP_INDEX_WINDOW	64
/* How much nicer than the writer a worker thread runs (Linux): 0.5 s
 * off a 10,000-table full build on two CPUs. */
#define DBP_WORKER_NICE		5

/* Threads that lstat a run's files before it plans (the machine has two
 * cores; the calls are the whole cost of a run with nothing changed),
 * and the fewest tables worth starting them for. */
#define DBP_LOOK_THREADS	2
#define DBP_LOOK_MIN_TABLES	256
/* Moves per string dbp_sort_strs (util.c) makes before qsort takes
 * over. */
#define DBP_SORT_MOVES		4

/* The quick look of a run whose manifest is unchanged (probe.c): files
 * rows read and looked at at once (~80 bytes each; t1060's 4200-table
 * print takes two such chunks), the fewest rows worth starting its
 * threads for, and the most tables with a candidate change it hands to
 * the plan (beyond them the run plans every table). */
#define DBP_PROBE_CHUNK		8192
#define DBP_PROBE_THREADS_MIN	1024
#define DBP_PROBE_MAX_TABLES	DBP_PLAN_BATCH

/* column_values rows one INSERT writes (fill.c f_vflush): a statement
 * of many rows costs SQLite's per-statement work (begin, halt, reset,
 * bindings) once for all of them; a table's last rows go in statements
 * of DBP_VALUE_BATCH_TAIL rows, then of one.  Staged rows' texts are
 * flushed once they pass DBP_VALUE_STAGE_FLUSH bytes, and may never pass
 * DBP_VALUE_STAGE_MAX (one value's texts are bounded by its document). */
#define DBP_VALUE_BATCH		32
#define DBP_VALUE_BATCH_TAIL	8
#define DBP_VALUE_STAGE_FLUSH	(1024 * 1024)
#define DBP_VALUE_STAGE_MAX	(16 * (size_t)DBP_MAX_DOC_BYTES)

/* Tables a run plans, reads and writes at once (index.c): their files'
 * state (~1.3 KB a table) lives only while their batch does, so a run's
 * memory does not grow with the print's tables. */
#define DBP_PLAN_BATCH		4096

/* The page cache of a writing connection (SQLite cache_size, negative:
 * KiB).  A build appends to its B-trees, whose hot pages are their right
 * edges: 16 MiB holds them, and the rest spills to the OS during the run,
 * whose writeback then overlaps the build instead of the commit's fsync
 * waiting for all of it (256 MiB made that wait 0.7-0.8 s of a
 * 10,000-table full build).  Against 64 MiB, a 10,000-table full build
 * ran the same instructions (103.23 against 103.28 billion, callgrind)
 * and system calls (15,418 pwrite against 15,340), in half the memory
 * (53 MB against 110 MB); at 100,000 tables 8% more pwrite and 19% more
 * pread (12,200 and 10,600 calls more), peak RSS 107 MB against 148 MB
 * in interleaved runs of the same speed. */
#define DBP_INDEX_CACHE_PRAGMA	"PRAGMA cache_size = -16384"
/* The most page cache (KiB) while a changed manifest's text, JSON and
 * plan are held (index.c, ix_cache_cap): the tables rows written then
 * spill to the file rather than add up to 48 MiB more to the phase's
 * memory (238 MB at 100,000 tables with the 64 MiB cache, when the
 * manifest was held as a tree; 120 MB now).  This cap and the next
 * equal the writer's own cache since it fell to 16 MiB: they bound
 * their phases should that grow again. */
#define DBP_MANIFEST_CACHE_KIB	16384
/* The page cache while the text index is built whole (grams.c): its
 * lists, ~100 MB on a 100,000-table print, take the memory the cache
 * gives back, so the build's peak stays under 256 MB at that size. */
#define DBP_GRAMS_CACHE_KIB	16384
/* The Bloom filter of the (table, column) pairs with value notes that
 * the text index's build reads (grams.c, ix_gtext): 1 MiB, under 1% of
 * the columns asked for notes in vain up to ~500,000 such pairs.  And
 * the longest search text of one column: its name, note and value notes,
 * each from one file of at most DBP_MAX_FILE_BYTES. */
#define DBP_GRAMS_BLOOM_BITS	(8U * 1024 * 1024)
#define DBP_GRAMS_TEXT_MAX	(3 * (size_t)DBP_MAX_FILE_BYTES)
/* Column ids per pass of a whole build of the text index (grams.c):
 * each pass reads its share of the columns and holds the lists of their
 * trigrams (~31 MB a million columns of a generated print), so their
 * memory stays bounded at any size; a pass followed by another sets its
 * lists aside in a scratch table, and the end joins them to the last
 * pass's.  A print of fewer columns (66,000 tables of 30) builds them in
 * one pass.  Until 2026-12-07 a pass read every column and kept its
 * share of the trigrams, so a print read its columns as many times as it
 * had passes: the 100,000-table full build now takes 39.8-39.9 s where
 * it took 41.7-46.3 s, in interleaved runs. */
#ifndef DBP_GRAMS_PASS_COLUMNS
#define DBP_GRAMS_PASS_COLUMNS	2000000
#endif

/* The page size of a new index (SQLite's default is 4096).  A statistics
 * file's document (files.doc, ~20 KB) spans two pages instead of six, and
 * the B-trees are shallower: a 10,000-table full build takes a tenth less
 * CPU and a second less wall time, at the same file size. */
#define DBP_INDEX_PAGE_SIZE	16384

/* Tables written between two requests that the OS start writing the
 * index file back (ox_writeback); a run of fewer tables makes none. */
#define DBP_WRITEBACK_EVERY	512

/* A values list's first rows, which a lookup by fold scans through the
 * primary key; the rows after them are in the partial index
 * column_values_by_fold (sql/schema.sql: WHERE ord >= this, the same
 * literal, or the index is not used).  A string: it is SQL text. */
#define DBP_FOLD_SCAN		"32"

/* Longest JSON text of one parsed file (files.doc): every character of a
 * 64 MiB file escaped as \uXXXX stays below it. */
#define DBP_MAX_DOC_JSON	(16 * DBP_MAX_FILE_BYTES)

/* A run shows a progress bar (terminal only) once it has taken this long. */
#define DBP_PROGRESS_AFTER_MS	1000


/* dbprint-serve --transport http (server/http*.c).
 * Largest request body: one JSON-RPC message, as on stdio. */
#define DBP_HTTP_MAX_BODY	DBP_MAX_FRAME
/* Per-connection memory for the request line and headers (libmicrohttpd's
 * pool); a request whose headers do not fit is refused by the library. */
#define DBP_HTTP_CONN_MEMORY	(16 * 1024)
/* Seconds a connection may stay silent (slow or idle clients) before it
 * is closed; an open /sse stream waiting for a message is not counted. */
#define DBP_HTTP_IDLE_TIMEOUT_S	30
/* Seconds a client may take to deliver one whole request (request line,
 * headers and body), counted from its first byte: a client trickling a
 * byte at a time is never idle long enough for the timeout above, so
 * this one closes it.  Sending a response (an /sse stream) is not
 * counted.  DBPRINT_HTTP_REQUEST_S may set 1 to DBP_HTTP_REQUEST_MAX_S. */
#define DBP_HTTP_REQUEST_S	30
#define DBP_HTTP_REQUEST_MAX_S	3600
/* Open connections at once, across all clients (also capped by the
 * descriptor limit); more wait in the listen backlog. */
#define DBP_HTTP_MAX_CONNECTIONS	1000
/* Percent of that limit from which each connection accepted closes the
 * oldest one idle on the server: one that never sent a byte first, else
 * one kept alive between requests.  Idle connections held open then
 * never keep a new client waiting (libmicrohttpd splits the limit among
 * its threads: below 100 % some thread always has room to accept). */
#define DBP_HTTP_EVICT_PCT	75
/* Most worker threads (each with its own index handles); the default is
 * one per CPU, at least two. */
#define DBP_HTTP_MAX_THREADS	8
/* Most live sessions (Mcp-Session-Id and /sse); the least recently used
 * one without an open stream is dropped for a new one. */
#define DBP_HTTP_MAX_SESSIONS	1024
/* Most bytes of replies waiting on one /sse stream for a slow reader. */
#define DBP_HTTP_SSE_QUEUE	(16L * 1024 * 1024)
/* Longest bearer token read from --token-file. */
#define DBP_HTTP_MAX_TOKEN	4096
/* How long SIGTERM waits for requests in flight before it stops anyway. */
#define DBP_HTTP_DRAIN_S	30
/* The page cache of each worker's read connection (KiB, negative): the
 * hot pages of a list or a table, not the whole index, so memory stays
 * bounded with several workers. */
#define DBP_HTTP_CACHE_PRAGMA	"PRAGMA cache_size = -2048"

/* The page cache of dbprint-serve's own read connection over stdio (KiB,
 * negative), set once the index is up to date: the pages one call reads,
 * not the whole index (the OS keeps the file's pages), so the server's
 * resident memory stays bounded on a 100,000-table print. */
#define DBP_SERVE_CACHE_PRAGMA	"PRAGMA cache_size = -8192"

/* Column ids the plans search_columns keeps between calls hold in all
 * (8 bytes each): a search matching more is counted again at every page. */
#define DBP_SC_PLAN_IDS		(1024L * 1024)

/* dbprint-serve freshness (server/call/watch.c).  Bytes read from the inotify
 * queue at once: room for 256 events with a 255-byte name each, so one
 * read usually drains what a dbprint generate run queued. */
#define DBP_WATCH_READ		(256 * (16 + 256))
/* Directories one idle step watches (watch_idle: an inotify_add_watch and
 * a stat of each of its files, ~5 us), so a request arriving meanwhile
 * waits ~2 ms at most; DBPRINT_WATCH_STEP sets it (0 to 100000). */
#define DBP_WATCH_STEP		512
#define DBP_WATCH_STEP_MAX	100000
/* The fewest files a first pass stats on DBP_LOOK_THREADS threads. */
#define DBP_WATCH_LOOK_MIN	1024

/* A print served from its repository (indexer/remote/).  Seconds one git
 * command may run before it is killed (upstream's limit); seconds between
 * two refreshes of a clone, which DBPRINT_GIT_REFRESH_S may set from 0 to
 * DBP_GIT_REFRESH_MAX_S (tests and operations); the fewest seconds the
 * background refresher sleeps between two attempts, whatever the knob;
 * bytes of git's own output kept to quote in an error; the longest
 * address --project accepts. */
#define DBP_GIT_TIMEOUT_S	120
#define DBP_GIT_REFRESH_S	900
#define DBP_GIT_REFRESH_MAX_S	(7 * 24 * 3600)
#define DBP_GIT_REFRESH_MIN_WAIT_S	1
#define DBP_GIT_OUTPUT_MAX	4096
#define DBP_GIT_MAX_ADDRESS	2048

/* --help (dbp_usage): the width of the option column, room for
 * "--transport stdio|http" with a line's description within 80 columns. */
#define DBP_HELP_OPT_WIDTH	22

/* The sandbox's one log line (indexer/sandbox.c): what is on, what is
 * off and why. */
#define DBP_SANDBOX_LINE	256

#endif /* DBPRINT_DBP_LIMITS_H */

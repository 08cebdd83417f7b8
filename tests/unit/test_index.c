/*
 * test_index.c - the indexer library: every artifact kind lands in its
 * tables; every bad-input case becomes its status and exact message; the
 * incremental rules (unchanged / rehashed / re-parsed, removal), refresh,
 * digests, schema-version rebuild; a file that changes between the plan's
 * look and the read; and the fold, collapse and path helpers.  Each test
 * builds a small print of its own under /tmp.
 */
#define _XOPEN_SOURCE	700	/* realpath, nftw */

#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>
#include <xxhash.h>

#include "dbprint.h"
#include "compile/ix.h"
#include "platform.h"

static char		tmp[256];	/* scratch, realpath'd */
static char		root[512];	/* the print root: tmp/p */
static sqlite3		*db;
static struct dbp_stats	st;

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static void
mkparents(const char *path)
{
	char buf[1024], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0777);
		*p = '/';
	}
}

/* Write text to root/rel. */
static void
put(const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkparents(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
rm(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
}

/* Move a file's mtime by secs without touching its bytes. */
static void
touch(const char *rel, int secs)
{
	char path[1024];
	struct stat sb;
	struct timespec ts[2];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(stat(path, &sb), 0);
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = (time_t)(dbp_mtime_ns(&sb) / 1000000000) + secs;
	ts[1].tv_nsec = (long)(dbp_mtime_ns(&sb) % 1000000000);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static const char *q(const char *fmt, ...);
static long qi(const char *fmt, ...);

/*
 * meta as a run keeps it equals meta counted afresh: print_version is
 * the sum, modulo 2^128, of XXH3-128 over each files row's path, a tab,
 * its hash (else its status) and a newline; tables and columns are the
 * row counts.  A run that is not full moves them by what it writes
 * (index.c, ox_tally), so each run of this file checks them here.
 */
static void
meta_is_recount(void)
{
	sqlite3_stmt *s;
	XXH128_hash_t h;
	uint64_t lo = 0, hi = 0;
	char buf[2048], want[33];
	int n;

	if (qi("SELECT count(*) FROM meta") == 0)
		return;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT path, coalesce(hash, "
	    "status) FROM files", -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		n = snprintf(buf, sizeof(buf), "%s\t%s\n",
		    (const char *)sqlite3_column_text(s, 0),
		    (const char *)sqlite3_column_text(s, 1));
		assert_true(n > 0 && (size_t)n < sizeof(buf));
		h = XXH3_128bits(buf, (size_t)n);
		lo += h.low64;
		hi += h.high64 + (lo < h.low64);
	}
	sqlite3_finalize(s);
	snprintf(want, sizeof(want), "%016llx%016llx", (unsigned long long)hi,
	    (unsigned long long)lo);
	assert_string_equal(q("SELECT value FROM meta WHERE key = "
	    "'print_version'"), want);
	assert_int_equal(qi("SELECT value FROM meta WHERE key = 'tables'"),
	    qi("SELECT count(*) FROM tables"));
	assert_int_equal(qi("SELECT value FROM meta WHERE key = 'columns'"),
	    qi("SELECT count(*) FROM columns"));
}

static void
run_full(int full)
{
	struct dbp_diag d;

	dbp_stats_release(&st);
	memset(&st, 0, sizeof(st));
	if (dbp_index_update(db, "c", root, full, &st, &d) != 0)
		fail_msg("update failed: %s", d.msg);
	meta_is_recount();
}

static void
run(void)
{
	run_full(0);
}

/* The first column of the first row as text ("<null>" for NULL,
 * "<none>" for no row). */
static const char *
q(const char *fmt, ...)
{
	static char out[8192];
	char sql[2048];
	sqlite3_stmt *s;
	va_list ap;
	const unsigned char *t;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) != SQLITE_ROW)
		snprintf(out, sizeof(out), "<none>");
	else if ((t = sqlite3_column_text(s, 0)) == NULL)
		snprintf(out, sizeof(out), "<null>");
	else
		snprintf(out, sizeof(out), "%s", t);
	sqlite3_finalize(s);
	return out;
}

static long
qi(const char *fmt, ...)
{
	char sql[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	return strtol(q("%s", sql), NULL, 10);
}

/* The error recorded for a file, with the print root replaced by R. */
static const char *
err_of(const char *rel)
{
	static char out[4096];
	const char *e = q("SELECT error FROM files WHERE path = '%s'", rel);
	const char *at = strstr(e, root);

	if (at == NULL)
		snprintf(out, sizeof(out), "%s", e);
	else
		snprintf(out, sizeof(out), "%.*sR%s", (int)(at - e), e,
		    at + strlen(root));
	return out;
}

static int
setup(void **state)
{
	char raw[256];
	struct dbp_diag d;

	(void)state;
	snprintf(raw, sizeof(raw), "/tmp/dbp-ix-XXXXXX");
	if (mkdtemp(raw) == NULL || realpath(raw, tmp) == NULL)
		return -1;
	snprintf(root, sizeof(root), "%s/p", tmp);
	mkdir(root, 0777);
	memset(&st, 0, sizeof(st));
	return dbp_index_open(NULL, DBP_OPEN_MEMORY, &db, &d);
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	sqlite3_close(db);
	db = NULL;
	dbp_stats_release(&st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

/* ------------------------------------------------------------------ */
/* A print with every artifact kind                                     */

static const char manifest[] =
    "format_version: 1\n"
    "connection: c\n"
    "manifest_annotations: manifest.annotations.yaml\n"
    "failed_tables: [s.gone, 7, s.t2]\n"
    "tables:\n"
    "  s.t1:\n"
    "    type: table\n"
    "    path: s/t1\n"
    "    artifacts:\n"
    "      ddl: ddl.sql\n"
    "      statistics: statistics.yaml\n"
    "      relationships: relationships.yaml\n"
    "      description: description.md\n"
    "      statistics_annotations: statistics.annotations.yaml\n"
    "      relationships_annotations: relationships.annotations.yaml\n"
    "    row_count: 100\n"
    "    columns: 3\n"
    "    profiled_at: '2026-01-01T00:00:00Z'\n"
    "    max_age_days: 1\n"
    "  s.t2:\n"
    "    type: view\n"
    "    artifacts: {statistics: statistics.yaml}\n"
    "  s.str: just a string\n";

static const char stats1[] =
    "format_version: 1\n"
    "table: s.t1\n"
    "row_count: 100\n"
    "disabled: [looks_like]\n"
    "columns:\n"
    "  status:\n"
    "    sql_type: VARCHAR\n"
    "    nullable: true\n"
    "    null_rate: 0.10\n"
    "    classification: categorical\n"
    "    cardinality: 3\n"
    "    cardinality_ratio: 0.03\n"
    "    cardinality_method: exact\n"
    "    inferred: {sensitivity: contact, looks_like: email, sampled: 10,"
    " matched: 9, candidate_key: false}\n"
    "    values:\n"
    "    - {value: Open, count: 50}\n"
    "    - {value: ' open ', count: 10, spelling_of: Open}\n"
    "    - {value: \"Stra\xc3\x9f" "e\", count: 5}\n"
    "    - {value: 12, count: 3}\n"
    "    - {value: null, count: 2}\n"
    "    - not a mapping\n"
    "    values_coverage: 1.0\n"
    "    sketch: {method: kmv, values: SKETCHDATA}\n"
    "    redacted: mask\n"
    "  amount:\n"
    "    sql_type: NUMERIC\n"
    "    classification: numeric\n"
    "    cardinality: 2\n"
    "    cardinality_method: exact\n"
    "    frequencies: {listed: 2}\n"
    "    values: [{value: 1.5, count: 1}, {value: 2, count: 1}]\n"
    "    unmeasured: [inferred.sensitivity]\n"
    "    inferred: {sensitivity: financial_account}\n"
    "    derived_from: s.t9.z\n"
    "  doc:\n"
    "    sql_type: JSON\n"
    "    classification: json\n"
    "    derived_from: s.t2.x\n"
    "    parts:\n"
    "      .kind:\n"
    "        classification: categorical\n"
    "        occurrences: 40\n"
    "        values: [{value: a, count: 40}]\n"
    "        sketch: {method: kmv, values: PARTSKETCH}\n"
    "      \"[keys]\":\n"
    "        classification: categorical\n"
    "        occurrences: 80\n";

static const char sannot1[] =
    "format_version: 1\n"
    "columns:\n"
    "  status:\n"
    "    note: Order   status.\n"
    "    values:\n"
    "    - {value: Open, note: \"  still   open \"}\n"
    "    - {value: 12, note: twelve}\n"
    "  ghost:\n"
    "    note: a stale key\n"
    "  amount:\n"
    "    derived_from: {table: s.t2, column: y}\n";

static const char rels1[] =
    "format_version: 1\n"
    "refers_to:\n"
    "- column: [status]\n"
    "  target_table: s.t2\n"
    "  target_column: [x]\n"
    "  detection: inferred\n"
    "referenced_by:\n"
    "- column: amount\n"
    "  referencer_table: s.t3\n"
    "  referencer_column: [amt]\n"
    "  detection: declared\n";

static const char rannot1[] =
    "format_version: 1\n"
    "refers_to:\n"
    "- column: [status]\n"
    "  target_table: s.t2\n"
    "  target_column: [x]\n"
    "  verdict: rejected\n"
    "- column: [doc]\n"
    "  path: [kind]\n"
    "  target_table: s.t2\n"
    "  target_column: [x]\n"
    "  note: added by hand\n";

static const char stats2[] =
    "format_version: 1\n"
    "table: s.t2\n"
    "type: view\n"
    "catalog_only: true\n"
    "scope: {rows_scanned: 5, sample: 0.1}\n"
    "columns:\n"
    "  x: {classification: text, rows_scanned: 5}\n";

static void
base_print(void)
{
	put("manifest.yaml", manifest);
	put("manifest.annotations.yaml", "format_version: 1\nnotes: Hello\n");
	put("diff.yaml", "format_version: 1\nchanges: []\n");
	put("reading.md", "# Reading\n");
	put("s/t1/ddl.sql", "CREATE TABLE t1 (status text);\n");
	put("s/t1/description.md", "The first table.\n");
	put("s/t1/statistics.yaml", stats1);
	put("s/t1/statistics.annotations.yaml", sannot1);
	put("s/t1/relationships.yaml", rels1);
	put("s/t1/relationships.annotations.yaml", rannot1);
	put("s/t2/statistics.yaml", stats2);
}

/* ------------------------------------------------------------------ */
/* Artifact kinds                                                       */

static void
test_manifest_rows(void **state)
{
	(void)state;
	base_print();
	run();
	assert_int_equal(st.nerrors, 0);
	assert_int_equal(st.tables, 3);
	/* 4 connection files + 6 of s.t1 + 1 of s.t2 */
	assert_int_equal(st.files_total, 11);
	assert_int_equal(st.files_parsed, 11);
	assert_string_equal(q("SELECT group_concat(fqn || ':' || walkable || "
	    "followable, ' ') FROM (SELECT * FROM tables ORDER BY ord)"),
	    "s.t1:11 s.t2:11 s.str:00");
	assert_string_equal(q("SELECT type || '|' || dir || '|' || row_count "
	    "|| '|' || columns || '|' || profiled_at || '|' || max_age_days "
	    "FROM tables WHERE fqn = 's.t1'"),
	    "table|s/t1|100|3|\"2026-01-01T00:00:00Z\"|1");
	assert_string_equal(q("SELECT dir FROM tables WHERE fqn = 's.t2'"),
	    "s/t2");
	assert_string_equal(q("SELECT entry FROM tables WHERE fqn = 's.str'"),
	    "\"just a string\"");
	assert_string_equal(q("SELECT group_concat(fqn, ',') FROM (SELECT fqn "
	    "FROM failed_tables ORDER BY ord)"), "s.gone,s.t2");
	assert_int_equal(qi("SELECT count(*) FROM artifacts WHERE table_fqn = "
	    "'s.t1'"), 6);
	assert_string_equal(q("SELECT path FROM artifacts WHERE table_fqn = "
	    "'s.t1' AND kind = 'statistics_annotations'"),
	    "s/t1/statistics.annotations.yaml");
	assert_string_equal(q("SELECT note FROM connection_notes"), "Hello");
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'reading.md'"), "ok");
	assert_string_equal(q("SELECT doc FROM files WHERE path = 'diff.yaml'"),
	    "{\"format_version\":1,\"changes\":[]}");
	assert_string_equal(q("SELECT kind || '|' || table_fqn FROM files "
	    "WHERE path = 's/t1/description.md'"), "description|s.t1");
	assert_int_equal(strlen(q("SELECT value FROM meta WHERE key = "
	    "'print_version'")), 32);
	assert_string_equal(q("SELECT value FROM meta WHERE key = "
	    "'connection'"), "c");
	assert_string_equal(q("SELECT value FROM meta WHERE key = "
	    "'print_root'"), root);
}

static void
test_statistics_rows(void **state)
{
	(void)state;
	base_print();
	run();
	assert_string_equal(q("SELECT stats_status || '|' || stats_row_count "
	    "|| '|' || scoped || '|' || catalog_only || '|' || disabled || "
	    "'|' || annot_status FROM tables WHERE fqn = 's.t1'"),
	    "ok|100|0|0|[\"looks_like\"]|ok");
	assert_string_equal(q("SELECT scoped || '|' || scope || '|' || "
	    "rows_scanned || '|' || catalog_only || '|' || annot_status FROM "
	    "tables WHERE fqn = 's.t2'"),
	    "1|{\"rows_scanned\":5,\"sample\":0.1}|5|1|undeclared");
	/* status: every field. */
	assert_string_equal(q("SELECT sql_type || '|' || nullable || '|' || "
	    "null_rate || '|' || classification || '|' || cardinality || '|' "
	    "|| cardinality_method || '|' || values_coverage || '|' || "
	    "values_state || '|' || listed || '|' || complete || '|' || "
	    "sensitivity || '|' || looks_like || '|' || sampled || '|' || "
	    "matched || '|' || candidate_key || '|' || redacted || '|' || note "
	    "|| '|' || label || '|' || ord FROM columns WHERE table_fqn = 's.t1'"
	    " AND name = 'status' AND part = ''"),
	    "VARCHAR|1|0.1|categorical|3|exact|1.0|listed|5|1|contact|email|"
	    "10|9|0|mask|Order   status.|status|0");
	/* amount: unmeasured sensitivity, frequencies complete, no ratio. */
	assert_string_equal(q("SELECT coalesce(sensitivity, 'NULL') || '|' || "
	    "complete || '|' || coalesce(candidate_key, 'NULL') || '|' || "
	    "freq_listed || '|' || derived_from FROM columns WHERE name = "
	    "'amount'"), "NULL|1|NULL|2|[{\"table\":\"s.t2\",\"column\":\"y\"}]");
	/* doc: the parsed derived_from ("table.column"), then its parts. */
	assert_string_equal(q("SELECT derived_from FROM columns WHERE name = "
	    "'doc' AND part = ''"), "[{\"table\":\"s.t2\",\"column\":\"x\"}]");
	assert_string_equal(q("SELECT group_concat(label || ':' || occurrences "
	    "|| ':' || ord, ' ') FROM (SELECT * FROM columns WHERE name = "
	    "'doc' AND part != '' ORDER BY ord)"), "doc.kind:40:0 doc[keys]:80:1");
	assert_string_equal(q("SELECT v.value FROM column_values v JOIN columns "
	    "c ON c.id = v.column_id WHERE c.label = 'doc.kind'"), "\"a\"");
	/* The stale annotation key is not a column: statistics list them. */
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE name = "
	    "'ghost'"), 0);
	/* The scope echo. */
	assert_string_equal(q("SELECT rows_scanned FROM columns WHERE "
	    "table_fqn = 's.t2'"), "5");
	/* Sketches are gone from the stored document and blocks. */
	assert_int_equal(qi("SELECT count(*) FROM files WHERE instr(doc, "
	    "'SKETCH') > 0"), 0);
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE instr(block, "
	    "'SKETCH') > 0"), 0);
	assert_true(qi("SELECT instr(doc, 'SKETCHDATA') FROM files WHERE path "
	    "= 's/t1/statistics.yaml'") == 0);
	assert_int_equal(st.columns, 6);	/* 3 + 2 parts + t2.x */
}

static void
test_values_rows(void **state)
{
	const char *col = "(SELECT id FROM columns WHERE table_fqn = 's.t1' "
	    "AND name = 'status' AND part = '')";

	(void)state;
	base_print();
	run();
	assert_string_equal(q("SELECT group_concat(value || '~' || "
	    "coalesce(text, 'NULL') || '~' || coalesce(fold, 'NULL') || '~' || "
	    "count, ' | ') FROM (SELECT * FROM column_values WHERE column_id = "
	    "%s ORDER BY ord)", col),
	    "\"Open\"~Open~open~50 | \" open \"~ open ~open~10 | "
	    "\"Stra\\u00dfe\"~Stra\xc3\x9f" "e~stra\xc3\x9f" "e~5 | "
	    "12~12~12~3 | null~NULL~NULL~2");
	assert_string_equal(q("SELECT spelling_of FROM column_values WHERE "
	    "column_id = %s AND ord = 1", col), "\"Open\"");
	assert_string_equal(q("SELECT note FROM column_values WHERE column_id "
	    "= %s AND ord = 0", col), "still open");
	assert_string_equal(q("SELECT note FROM column_values WHERE column_id "
	    "= %s AND ord = 3", col), "twelve");
	assert_string_equal(q("SELECT group_concat(ord || ':' || value || ':' "
	    "|| text || ':' || note, ' | ') FROM (SELECT * FROM value_notes "
	    "WHERE name = 'status' ORDER BY ord)"),
	    "0:\"Open\":Open:still open | 1:12:12:twelve");
	/* Short lists get no trigrams. */
	assert_int_equal(qi("SELECT count(*) FROM value_trigrams"), 0);
	/* The search text (column_search): name, note, value notes; a
	 * part's label. */
	assert_string_equal(q("SELECT label FROM column_search WHERE text "
	    "LIKE '%%twelve%%'"), "status");
	assert_string_equal(q("SELECT label FROM column_search WHERE text "
	    "LIKE '%%kin%%'"), "doc.kind");
	assert_string_equal(q("SELECT text FROM column_search WHERE id = %s",
	    col), "status\nOrder   status.\nstill open\ntwelve");
}

/* The indexer spells value JSON itself (fast path): it must equal
 * dbp_json_dump's spelling for every kind of string. */
static void
test_value_json(void **state)
{
	static const char *const odd[] = {
		"quote \" back \\ slash", "tab\there\nnew\rline",
		"bell \x01 del \x7f", "caf\xc3\xa9 \xe2\x82\xac",
		"astral \xf0\x9f\x98\x80", "bad \xff byte \xc3", "",
	};
	cJSON *c;
	char *want;
	size_t i;

	(void)state;
	put("manifest.yaml", "tables:\n  s.v:\n    artifacts: {statistics: "
	    "statistics.yaml}\n");
	put("s/v/statistics.yaml", "columns:\n  a:\n    values:\n"
	    "    - value: \"quote \\\" back \\\\ slash\"\n"
	    "    - value: \"tab\\there\\nnew\\rline\"\n"
	    "    - value: \"bell \\x01 del \\x7f\"\n"
	    "    - value: \"caf\xc3\xa9 \xe2\x82\xac\"\n"
	    "    - value: \"astral \xf0\x9f\x98\x80\"\n"
	    "    - value: \"\"\n");
	run();
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		if (i == 5)
			continue;	/* not valid YAML input */
		c = cJSON_CreateString(odd[i]);
		want = dbp_json_dump(c, DBP_JSON_COMPACT);
		assert_string_equal(q("SELECT value FROM column_values WHERE "
		    "ord = %zu", i > 5 ? i - 1 : i), want);
		free(want);
		cJSON_Delete(c);
	}
}

/* ix_json_compact spells a whole document as dbp_json_dump does. */
static void
test_compact_json(void **state)
{
	struct dbp_diag d;
	struct dbp_buf b;
	const char *docs[] = { stats1, sannot1, rels1, manifest,
	    "a: [1, 1.0, 1e-05, .inf, -.inf, .nan, true, null, '', {}, []]\n"
	    "\"k\\u00e9y\\n\": \"v\\t\\u2028\\U0001F600\"\n" };
	cJSON *v;
	char *want;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		v = dbp_ydoc_parse(docs[i], strlen(docs[i]), &d);
		assert_non_null(v);
		want = dbp_json_dump(v, DBP_JSON_COMPACT);
		dbp_buf_init(&b, 1 << 24);
		assert_int_equal(ix_json_compact(&b, v), 0);
		assert_string_equal(b.ptr, want);
		dbp_buf_release(&b);
		free(want);
		cJSON_Delete(v);
	}
}

static void
test_trigrams(void **state)
{
	char buf[16384], *p = buf;
	int i;

	(void)state;
	put("manifest.yaml", "tables:\n  s.big:\n    artifacts: {statistics: "
	    "statistics.yaml}\n");
	p += sprintf(p, "columns:\n  code:\n    values:\n");
	for (i = 0; i <= DBP_TRIGRAM_MIN_VALUES; i++)
		p += sprintf(p, "    - {value: v%04d, count: 1}\n", i);
	p += sprintf(p, "    - {value: abc, count: 1}\n");
	put("s/big/statistics.yaml", buf);
	run();
	assert_int_equal(qi("SELECT count(*) FROM column_values"),
	    DBP_TRIGRAM_MIN_VALUES + 2);
	/* abc alone holds its trigrams: postings of one entry, varint
	 * ord (201: C9 01), then its five distinct trigrams. */
	assert_int_equal(DBP_TRIGRAM_MIN_VALUES + 1, 201);
	assert_string_equal(q("SELECT group_concat(trigram, '|') FROM (SELECT "
	    "trigram FROM value_trigrams WHERE postings = X'C90105' ORDER BY "
	    "trigram)"), "  a| ab|abc|bc |c  ");
	/* Every vNNNN holds "  v": ord 0 (v0000: 6 distinct trigrams, 000
	 * twice), then ord 0 + 1 (v0001: 7), ... */
	assert_string_equal(q("SELECT substr(hex(postings), 1, 8) FROM "
	    "value_trigrams WHERE trigram = '  v'"), "00060107");
	assert_int_equal(qi("SELECT length(postings) FROM value_trigrams "
	    "WHERE trigram = '  v'"), (DBP_TRIGRAM_MIN_VALUES + 1) * 2);
}

/* XXH3-128 of every value_trigrams row in key order, as hex. */
static const char *
trigrams_digest(void)
{
	static char out[33];
	sqlite3_stmt *s;
	XXH3_state_t *x = XXH3_createState();
	XXH128_hash_t h;
	int n;

	assert_non_null(x);
	XXH3_128bits_reset(x);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT trigram, postings "
	    "FROM value_trigrams ORDER BY column_id, trigram", -1, &s, NULL),
	    SQLITE_OK);
	for (n = 0; sqlite3_step(s) == SQLITE_ROW; n++) {
		XXH3_128bits_update(x, sqlite3_column_text(s, 0),
		    (size_t)sqlite3_column_bytes(s, 0) + 1);
		XXH3_128bits_update(x, sqlite3_column_blob(s, 1),
		    (size_t)sqlite3_column_bytes(s, 1));
	}
	sqlite3_finalize(s);
	h = XXH3_128bits_digest(x);
	XXH3_freeState(x);
	assert_true(n > 0);
	snprintf(out, sizeof(out), "%016llx%016llx",
	    (unsigned long long)h.high64, (unsigned long long)h.low64);
	return out;
}

/* A long list's trigrams sorted by radix (f_tri_sort) make the rows
 * qsort makes, with trigrams of one to four bytes a character. */
static void
test_trigrams_radix(void **state)
{
	static const char *const shapes[] = { "v%03d", "caf\u00e9%03d",
	    "\u00fc%03d\u03a9", "\U0001F600x%03d", "%03d \u4e2d\u6587" };
	char buf[65536], *p = buf, digest[33];
	size_t was = ix_test_tri_radix;
	int i;

	(void)state;
	put("manifest.yaml", "tables:\n  s.big:\n    artifacts: {statistics: "
	    "statistics.yaml}\n");
	p += sprintf(p, "columns:\n  code:\n    values:\n");
	for (i = 0; i < 600; i++) {
		p += sprintf(p, "    - {value: \"");
		p += sprintf(p, shapes[i % 5], i);
		p += sprintf(p, "\", count: 1}\n");
	}
	put("s/big/statistics.yaml", buf);
	ix_test_tri_radix = 1;
	run_full(1);
	assert_int_equal(qi("SELECT count(*) FROM column_values"), 600);
	assert_true(qi("SELECT count(*) FROM value_trigrams WHERE "
	    "length(CAST(trigram AS BLOB)) > 6") > 0);
	snprintf(digest, sizeof(digest), "%s", trigrams_digest());
	ix_test_tri_radix = (size_t)-1;
	run_full(1);
	ix_test_tri_radix = was;
	assert_string_equal(trigrams_digest(), digest);
}

static void
test_edges_rows(void **state)
{
	(void)state;
	base_print();
	run();
	assert_int_equal(qi("SELECT count(*) FROM edges"), 4);
	assert_string_equal(q("SELECT group_concat(x, ' ; ') FROM (SELECT "
	    "source || ',' || direction || ',' || from_table || ',' || "
	    "from_columns || ',' || to_table || ',' || to_columns || ',' || "
	    "coalesce(path, '-') || ',' || coalesce(detection, '-') || ',' || "
	    "coalesce(verdict, '-') || ',' || coalesce(note, '-') AS x FROM "
	    "edges ORDER BY source DESC, direction DESC, ord)"),
	    "emitted,refers_to,s.t1,[\"status\"],s.t2,[\"x\"],-,inferred,-,- ; "
	    "emitted,referenced_by,s.t3,[\"amt\"],s.t1,[\"amount\"],-,declared,"
	    "-,- ; "
	    "annotated,refers_to,s.t1,[\"status\"],s.t2,[\"x\"],-,annotated,"
	    "rejected,- ; "
	    "annotated,refers_to,s.t1,[\"doc\"],s.t2,[\"x\"],[\"kind\"],"
	    "annotated,-,added by hand");
}

/* ------------------------------------------------------------------ */
/* Bad input                                                            */

static void
test_parse_and_shape(void **state)
{
	(void)state;
	base_print();
	put("s/t1/statistics.yaml", "columns: [a\n");
	put("s/t2/statistics.yaml", "- a\n- b\n");
	run();
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'s/t1/statistics.yaml'"), "parse_error");
	assert_true(strncmp(err_of("s/t1/statistics.yaml"),
	    "R/s/t1/statistics.yaml: YAML parse error: ", 41) == 0);
	assert_string_equal(q("SELECT doc FROM files WHERE path = "
	    "'s/t1/statistics.yaml'"), "<null>");
	/* Unreadable statistics: every annotation key is live, in_stats 0. */
	assert_string_equal(q("SELECT group_concat(name || ':' || in_stats, ' ')"
	    " FROM (SELECT * FROM columns WHERE table_fqn = 's.t1' ORDER BY "
	    "ord)"), "status:0 ghost:0 amount:0");
	assert_string_equal(q("SELECT stats_status FROM tables WHERE fqn = "
	    "'s.t1'"), "parse_error");
	assert_string_equal(err_of("s/t2/statistics.yaml"),
	    "R/s/t2/statistics.yaml: expected a mapping, found list");
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'s/t2/statistics.yaml'"), "shape_error");
	/* Errors come back in path order, with relative paths. */
	assert_int_equal(st.nerrors, 2);
	assert_string_equal(st.errors[0].path, "s/t1/statistics.yaml");
	assert_string_equal(st.errors[1].path, "s/t2/statistics.yaml");
	assert_int_equal(qi("SELECT count(*) FROM errors"), 2);

	put("s/t2/statistics.yaml", "");
	run();
	assert_string_equal(err_of("s/t2/statistics.yaml"),
	    "R/s/t2/statistics.yaml: the file is empty");
	put("s/t1/relationships.yaml", "7\n");
	run();
	assert_string_equal(err_of("s/t1/relationships.yaml"),
	    "R/s/t1/relationships.yaml: expected a mapping, found int");
}

static void
test_manifest_shapes(void **state)
{
	(void)state;
	base_print();
	run();
	assert_int_equal(st.tables, 3);
	put("manifest.yaml", "- a\n");
	run();
	assert_string_equal(err_of("manifest.yaml"),
	    "R/manifest.yaml: expected a mapping, found list");
	assert_int_equal(st.tables, 0);
	assert_int_equal(qi("SELECT count(*) FROM columns"), 0);
	assert_int_equal(qi("SELECT count(*) FROM files WHERE table_fqn IS NOT "
	    "NULL"), 0);
	put("manifest.yaml", "tables:\n");
	run();
	assert_string_equal(err_of("manifest.yaml"),
	    "R/manifest.yaml: `tables` must be a mapping of table name to "
	    "entry, found nothing");
	put("manifest.yaml", "tables: [a]\n");
	run();
	assert_string_equal(err_of("manifest.yaml"),
	    "R/manifest.yaml: `tables` must be a mapping of table name to "
	    "entry, found list");
	put("manifest.yaml", "");
	run();
	assert_string_equal(err_of("manifest.yaml"),
	    "R/manifest.yaml: the file is empty");
	put("manifest.yaml", "tables: {a: [\n");
	run();
	assert_true(strncmp(err_of("manifest.yaml"),
	    "R/manifest.yaml: YAML parse error: ", 35) == 0);
	/* No tables key at all is an empty print, not an error. */
	put("manifest.yaml", "format_version: 1\n");
	run();
	assert_string_equal(q("SELECT status || coalesce(error, '') FROM files "
	    "WHERE path = 'manifest.yaml'"), "ok");
	rm("manifest.yaml");
	run();
	assert_string_equal(err_of("manifest.yaml"),
	    "manifest references manifest.yaml but file is absent at "
	    "R/manifest.yaml. Re-run dbprint generate.");
	/* Fixed again: everything comes back. */
	base_print();
	run();
	assert_int_equal(st.tables, 3);
	assert_int_equal(st.nerrors, 0);
}

/* The manifest's files.doc is its whole document (as the exact parse
 * reads it, spelled by ix_json_compact) but for its tables member, {} in
 * its place, however its tables were read; and each entry of that
 * member is its tables row's entry. */
static void
doc_is_whole(const char *text)
{
	struct dbp_diag d;
	struct dbp_buf b;
	cJSON *v, *e;

	v = dbp_ydoc_parse_exact(text, strlen(text), &d);
	assert_non_null(v);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(v, "tables")) {
		dbp_buf_init(&b, 1 << 20);
		ix_json_compact(&b, e);
		assert_false(b.failed);
		assert_string_equal(q("SELECT entry FROM tables WHERE fqn = "
		    "'%s'", e->string), b.ptr);
		dbp_buf_release(&b);
	}
	assert_true(cJSON_ReplaceItemInObjectCaseSensitive(v, "tables",
	    cJSON_CreateObject()));
	dbp_buf_init(&b, 1 << 20);
	ix_json_compact(&b, v);
	assert_false(b.failed);
	assert_string_equal(q("SELECT doc FROM files WHERE path = "
	    "'manifest.yaml'"), b.ptr);
	dbp_buf_release(&b);
	cJSON_Delete(v);
}

#define TABLES_IN_ORDER	"SELECT group_concat(fqn, ' ') FROM (SELECT fqn " \
	    "FROM tables ORDER BY ord)"

/* A changed manifest's tables are read one entry at a time (each its
 * plan and row, then gone); one the one-pass reader gives up on is read
 * whole, after what its entries made is undone. */
static void
test_manifest_streamed(void **state)
{
	static const char after[] =
	    "tables:\n"
	    "  s.t1: {path: s/t1, artifacts: {statistics: statistics.yaml}}\n"
	    "  s.t2: {artifacts: {statistics: statistics.yaml}}\n"
	    "failed_tables: [s.t2]\n"
	    "format_version: 1\n";
	static const char twice[] =
	    "tables:\n"
	    "  s.t2: {artifacts: {statistics: statistics.yaml}}\n"
	    "  s.t1: {type: view}\n"
	    "  s.t2: {type: table, path: s/t1, artifacts: "
	    "{statistics: statistics.yaml}}\n";
	static const char anchored[] =
	    "tables:\n"
	    "  s.new: {path: s/t2, artifacts: {statistics: statistics.yaml}}\n"
	    "  s.t1: &e {artifacts: {statistics: statistics.yaml}}\n"
	    "  s.t2: *e\n";
	static const char broken[] =
	    "tables:\n"
	    "  s.new: {path: s/t2}\n"
	    "  s.t1: {}\n"
	    "  s.t3: [\n";
	long ncols;

	(void)state;
	base_print();
	run();
	doc_is_whole(manifest);
	ncols = qi("SELECT count(*) FROM columns WHERE table_fqn = 's.t1'");
	assert_true(ncols > 0);
	/* members after `tables` */
	put("manifest.yaml", after);
	run();
	assert_int_equal(st.nerrors, 0);
	doc_is_whole(after);
	assert_string_equal(q(TABLES_IN_ORDER), "s.t1 s.t2");
	assert_string_equal(q("SELECT group_concat(fqn) FROM failed_tables"),
	    "s.t2");
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE table_fqn = "
	    "'s.t1'"), ncols);
	/* a table named twice: the later entry in the first one's place */
	put("manifest.yaml", twice);
	run();
	doc_is_whole(twice);
	assert_string_equal(q(TABLES_IN_ORDER), "s.t2 s.t1");
	assert_string_equal(q("SELECT type || '|' || dir FROM tables WHERE "
	    "fqn = 's.t2'"), "table|s/t1");
	assert_string_equal(q("SELECT type FROM tables WHERE fqn = 's.t1'"),
	    "view");
	/* an anchor after an entry was read: the tree decides */
	put("manifest.yaml", anchored);
	run();
	doc_is_whole(anchored);
	assert_string_equal(q(TABLES_IN_ORDER), "s.new s.t1 s.t2");
	assert_string_equal(q("SELECT group_concat(dir, ' ') FROM (SELECT dir "
	    "FROM tables ORDER BY ord)"), "s/t2 s/t1 s/t2");
	assert_int_equal(qi("SELECT count(*) FROM artifacts"), 3);
	/* an error after two entries were read: no table stays, neither
	 * the one new nor the ones the index held */
	put("manifest.yaml", broken);
	run();
	assert_true(strncmp(err_of("manifest.yaml"),
	    "R/manifest.yaml: YAML parse error: ", 35) == 0);
	assert_int_equal(qi("SELECT count(*) FROM tables"), 0);
	assert_int_equal(qi("SELECT count(*) FROM artifacts"), 0);
	assert_int_equal(qi("SELECT count(*) FROM files WHERE table_fqn IS NOT "
	    "NULL"), 0);
	/* mended: all back */
	base_print();
	run();
	assert_int_equal(st.nerrors, 0);
	assert_int_equal(st.tables, 3);
	doc_is_whole(manifest);
	assert_string_equal(q(TABLES_IN_ORDER), "s.t1 s.t2 s.str");
}

static void
test_schema_errors(void **state)
{
	static const struct {
		const char	*file;
		const char	*text;
		const char	*want;	/* after "...(SPEC 2.7): " */
	} cases[] = {
		{ "s/t1/statistics.annotations.yaml",
		  "format_version: 1\ncolumns:\n  a:\n    values:\n"
		  "    - {value: 1}\n",
		  "columns.a.values[0]: 'note' is a required property" },
		{ "s/t1/statistics.annotations.yaml",
		  "format_version: 1\ncolumns:\n  a: {note: 7}\n",
		  "columns.a.note: 7 is not of type 'string'" },
		{ "s/t1/statistics.annotations.yaml",
		  "format_version: 2\ncolumns: {}\n",
		  "format_version: 1 was expected" },
		{ "s/t1/statistics.annotations.yaml",
		  "format_version: 1\n",
		  "(root): 'columns' is a required property" },
		{ "s/t1/statistics.annotations.yaml",
		  "format_version: 1\ncolumns: {a: x}\n",
		  "columns.a: 'x' is not of type 'object'" },
		{ "s/t1/statistics.annotations.yaml",
		  "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n"
		  "  - {columns: []}\n",
		  "grain.keys[0].columns: [] should be non-empty" },
		{ "s/t1/relationships.annotations.yaml",
		  "format_version: 1\nrefers_to:\n- {column: [a], "
		  "target_table: t, target_column: [b], verdict: accepted}\n",
		  "refers_to[0].verdict: 'accepted' is not one of ['rejected']" },
		{ "s/t1/relationships.annotations.yaml",
		  "format_version: 1\nrefers_to:\n- {column: [a], "
		  "target_column: [b]}\n",
		  "refers_to[0]: 'target_table' is a required property" },
		{ "s/t1/relationships.annotations.yaml",
		  "format_version: 1\nrefers_to:\n- {column: a, "
		  "target_table: t, target_column: [b]}\n",
		  "refers_to[0].column: 'a' is not of type 'array'" },
		{ "s/t1/relationships.annotations.yaml",
		  "format_version: 1\nrefers_to:\n- {column: [''], "
		  "target_table: t, target_column: [b]}\n",
		  "refers_to[0].column[0]: '' should be non-empty" },
		{ "s/t1/relationships.annotations.yaml",
		  "format_version: 1\n",
		  "(root): 'refers_to' is a required property" },
		{ "manifest.annotations.yaml",
		  "format_version: 1\nnotes: [a]\n",
		  "notes: ['a'] is not of type 'string'" },
		{ "manifest.annotations.yaml",
		  "[1]\n",
		  "(root): [1] is not of type 'object'" },
	};
	char want[1024];
	size_t i;

	(void)state;
	base_print();
	run();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put(cases[i].file, cases[i].text);
		run();
		snprintf(want, sizeof(want), "R/%s: does not match its schema "
		    "(SPEC 2.7): %s", cases[i].file, cases[i].want);
		assert_string_equal(err_of(cases[i].file), want);
		assert_string_equal(q("SELECT status FROM files WHERE path = "
		    "'%s'", cases[i].file), "schema_error");
		base_print();
	}
	/* Unknown keys (derived_from, our own) are tolerated. */
	run();
	assert_int_equal(st.nerrors, 0);
	/* A broken annotation file keeps the statistics columns. */
	put("s/t1/statistics.annotations.yaml", "format_version: 1\n");
	run();
	assert_string_equal(q("SELECT annot_status FROM tables WHERE fqn = "
	    "'s.t1'"), "schema_error");
	assert_string_equal(q("SELECT count(*) || ':' || count(note) FROM "
	    "columns WHERE table_fqn = 's.t1' AND part = ''"), "3:0");
	/* A broken connection annotation file gives no notes. */
	put("manifest.annotations.yaml", "notes: x\n");
	run();
	assert_int_equal(qi("SELECT count(*) FROM connection_notes"), 0);
}

static void
test_absent(void **state)
{
	(void)state;
	base_print();
	rm("s/t1/statistics.yaml");
	rm("s/t1/description.md");
	rm("diff.yaml");
	rm("reading.md");
	rm("manifest.annotations.yaml");
	run();
	assert_string_equal(err_of("s/t1/statistics.yaml"),
	    "manifest references statistics.yaml but file is absent at "
	    "R/s/t1/statistics.yaml. Re-run dbprint generate.");
	assert_string_equal(err_of("s/t1/description.md"),
	    "manifest references description.md but file is absent at "
	    "R/s/t1/description.md. Re-run dbprint generate.");
	assert_string_equal(err_of("manifest.annotations.yaml"),
	    "manifest references manifest.annotations.yaml but file is absent "
	    "at R/manifest.annotations.yaml. Re-run dbprint generate.");
	/* diff.yaml and reading.md are never declared: absent, no error. */
	assert_string_equal(q("SELECT status || coalesce(error, '-') FROM "
	    "files WHERE path = 'diff.yaml'"), "absent-");
	assert_int_equal(st.nerrors, 3);
	assert_string_equal(q("SELECT stats_status FROM tables WHERE fqn = "
	    "'s.t1'"), "absent");
	/* The manifest unchanged: the absence stands on a re-run, and the
	 * declaration is read again from the index when the file comes
	 * back and when it goes again. */
	run();
	assert_int_equal(st.nerrors, 3);
	put("manifest.annotations.yaml", "format_version: 1\nnotes: Back\n");
	run();
	assert_string_equal(q("SELECT status || coalesce(error, '-') FROM "
	    "files WHERE path = 'manifest.annotations.yaml'"), "ok-");
	assert_int_equal(qi("SELECT count(*) FROM connection_notes"), 1);
	rm("manifest.annotations.yaml");
	run();
	assert_string_equal(err_of("manifest.annotations.yaml"),
	    "manifest references manifest.annotations.yaml but file is absent "
	    "at R/manifest.annotations.yaml. Re-run dbprint generate.");
	/* Undeclared: no error once the manifest stops naming it. */
	put("manifest.yaml", manifest + strlen("format_version: 1\n"
	    "connection: c\nmanifest_annotations: manifest.annotations.yaml\n"));
	run();
	assert_string_equal(q("SELECT coalesce(error, '-') FROM files WHERE "
	    "path = 'manifest.annotations.yaml'"), "-");
}

static void
test_outside_root(void **state)
{
	char out[600], link[700];

	(void)state;
	base_print();
	snprintf(out, sizeof(out), "%s/outside", tmp);
	mkdir(out, 0777);
	snprintf(out, sizeof(out), "%s/outside/statistics.yaml", tmp);
	{
		FILE *f = fopen(out, "w");
		assert_non_null(f);
		fputs("columns:\n  secret: {values: [{value: SECRET}]}\n", f);
		fclose(f);
	}
	/* A file symlinked outside, a directory symlinked outside, a ".."
	 * path, an absolute path, a declared file climbing out, and a
	 * symlink that stays inside (allowed). */
	put("manifest.yaml",
	    "tables:\n"
	    "  s.flink: {artifacts: {statistics: statistics.yaml}}\n"
	    "  s.dlink: {artifacts: {statistics: statistics.yaml}}\n"
	    "  s.dots: {path: ../outside, artifacts: {statistics: "
	    "statistics.yaml}}\n"
	    "  s.abs: {path: /etc, artifacts: {statistics: statistics.yaml}}\n"
	    "  s.climb: {artifacts: {statistics: ../../../outside/"
	    "statistics.yaml, ddl: ddl.sql}}\n"
	    "  s.inlink: {artifacts: {statistics: statistics.yaml}}\n"
	    "  s.t2: {artifacts: {statistics: statistics.yaml}}\n");
	snprintf(link, sizeof(link), "%s/s/flink", root);
	mkparents(link);
	mkdir(link, 0777);
	snprintf(link, sizeof(link), "%s/s/flink/statistics.yaml", root);
	assert_int_equal(symlink("../../../outside/statistics.yaml", link), 0);
	snprintf(link, sizeof(link), "%s/s/dlink", root);
	assert_int_equal(symlink("../../outside", link), 0);
	put("s/climb/ddl.sql", "CREATE TABLE x ();\n");
	snprintf(link, sizeof(link), "%s/s/inlink", root);
	assert_int_equal(symlink("t2", link), 0);
	run();
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE name = "
	    "'secret'"), 0);
	assert_int_equal(qi("SELECT count(*) FROM files WHERE instr(doc, "
	    "'SECRET') > 0"), 0);
	assert_string_equal(q("SELECT group_concat(fqn || ':' || followable, "
	    "' ') FROM (SELECT * FROM tables ORDER BY ord)"),
	    "s.flink:0 s.dlink:0 s.dots:0 s.abs:0 s.climb:0 s.inlink:1 s.t2:1");
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'s/flink/statistics.yaml'"), "outside_root");
	assert_string_equal(err_of("s/flink/statistics.yaml"),
	    "R/s/flink/statistics.yaml: leads outside the print root (SPEC "
	    "2.5); not read");
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'s/dlink/statistics.yaml'"), "outside_root");
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'../outside/statistics.yaml'"), "outside_root");
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'/etc/statistics.yaml'"), "outside_root");
	/* Nothing of a table with one escaping file is read. */
	assert_string_equal(q("SELECT group_concat(status, ',') FROM files "
	    "WHERE table_fqn = 's.climb'"), "outside_root,outside_root");
	assert_string_equal(q("SELECT coalesce(path, 'NULL') FROM artifacts "
	    "WHERE table_fqn = 's.climb' AND kind = 'statistics'"), "NULL");
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE table_fqn = "
	    "'s.inlink'"), 1);
	/* A second run leaves them as they are. */
	run();
	assert_int_equal(st.files_parsed, 0);
	assert_int_equal(qi("SELECT count(*) FROM errors WHERE status = "
	    "'outside_root'"), 6);
}

static void
test_too_large(void **state)
{
	char path[700];
	int fd;

	(void)state;
	base_print();
	snprintf(path, sizeof(path), "%s/s/t2/statistics.yaml", root);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, DBP_MAX_FILE_BYTES + 1), 0);	/* sparse */
	close(fd);
	run();
	assert_string_equal(q("SELECT status FROM files WHERE path = "
	    "'s/t2/statistics.yaml'"), "too_large");
	assert_non_null(strstr(err_of("s/t2/statistics.yaml"), "over the"));
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE table_fqn = "
	    "'s.t2'"), 0);
	assert_int_equal(st.tables, 3);
}

/* ------------------------------------------------------------------ */
/* A file that changes between the plan's look and the read             */

#define CL_TABLES	(DBP_LOOK_MIN_TABLES + 20)	/* looked at ahead */
#define CL_SMALL	24				/* not */

/* Table i's statistics, with its column named col. */
static void
cl_stats(int i, const char *col, const char *extra)
{
	char rel[64], text[512];

	snprintf(rel, sizeof(rel), "s/t%03d/statistics.yaml", i);
	snprintf(text, sizeof(text), "format_version: 1\ntable: s.t%03d\n"
	    "columns:\n  %s: {sql_type: INTEGER, rows_scanned: 5}\n%s", i,
	    col, extra);
	put(rel, text);
}

/* What an editor does while the run plans: tables 5 to 9 change after
 * their files were looked at, before they are read. */
static void
cl_change(void *arg)
{
	char path[1024], to[1024];
	int fd;

	(*(int *)arg)++;
	/* t005 grows in place, t006 shrinks in place (same inode) */
	snprintf(path, sizeof(path), "%s/s/t005/statistics.yaml", root);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "  grown: {sql_type: TEXT}\n", 26), 26);
	close(fd);
	snprintf(path, sizeof(path), "%s/s/t006/statistics.yaml", root);
	assert_int_equal(truncate(path, 30), 0);
	/* t007 becomes a directory, t008 a FIFO (reading it must not wait
	 * for a writer), t009 a symlink to t020's file */
	snprintf(path, sizeof(path), "%s/s/t007/statistics.yaml", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0777), 0);
	snprintf(path, sizeof(path), "%s/s/t008/statistics.yaml", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0666), 0);
	snprintf(path, sizeof(path), "%s/s/t009/statistics.yaml", root);
	snprintf(to, sizeof(to), "../t020/statistics.yaml");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(to, path), 0);
}

/* The rows of the tables the editor touched and of one it did not, as
 * text (malloc'd; the caller frees it). */
static char *
cl_rows(void)
{
	static const char *const sql[] = {
		"SELECT path, status, hash, size, ino, mtime_ns, error FROM "
		"files WHERE table_fqn IN ('s.t005', 's.t006', 's.t007', "
		"'s.t008', 's.t009', 's.t020') ORDER BY path",
		"SELECT table_fqn, name, sql_type FROM columns WHERE "
		"table_fqn IN ('s.t005', 's.t006', 's.t007', 's.t008', "
		"'s.t009', 's.t020') ORDER BY table_fqn, name",
		"SELECT fqn, stats_status FROM tables WHERE fqn IN ('s.t005', "
		"'s.t006', 's.t007', 's.t008', 's.t009', 's.t020') ORDER BY "
		"fqn",
	};
	struct dbp_buf b;
	sqlite3_stmt *s;
	const char *v;
	size_t i;
	int c;

	dbp_buf_init(&b, 1L << 20);
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		assert_int_equal(sqlite3_prepare_v2(db, sql[i], -1, &s, NULL),
		    SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			for (c = 0; c < sqlite3_column_count(s); c++) {
				v = (const char *)sqlite3_column_text(s, c);
				dbp_buf_adds(&b, v != NULL ? v : "<null>");
				dbp_buf_addc(&b, '|');
			}
			dbp_buf_addc(&b, '\n');
		}
		sqlite3_finalize(s);
	}
	assert_false(b.failed);
	return dbp_buf_take(&b);
}

/*
 * Files of a print of ntables tables changed between the plan's look and
 * the read (grown, shrunk, now a directory, a FIFO, a symlink) are read
 * or reported as a run that starts after the change finds them, row for
 * row; a FIFO does not hang the run (alarm: a wait fails the test).
 */
static void
cl_case(int ntables)
{
	char head[256], *mf, *during, *after;
	struct dbp_buf b;
	int i, calls = 0;

	dbp_buf_init(&b, 1L << 20);
	dbp_buf_adds(&b, "format_version: 1\nconnection: c\ntables:\n");
	for (i = 0; i < ntables; i++) {
		snprintf(head, sizeof(head), "  s.t%03d:\n    type: table\n"
		    "    path: s/t%03d\n    artifacts: {statistics: "
		    "statistics.yaml}\n", i, i);
		dbp_buf_adds(&b, head);
		cl_stats(i, "id", "");
	}
	assert_false(b.failed);
	mf = dbp_buf_take(&b);
	put("manifest.yaml", mf);
	free(mf);
	ix_test_after_plan = cl_change;
	ix_test_after_plan_arg = &calls;
	alarm(60);
	run_full(1);
	alarm(0);
	ix_test_after_plan = NULL;
	assert_int_equal(calls, 1);
	during = cl_rows();
	/* what was there after the change: read (t005, t009) or reported
	 * (t006 cut mid-line, t007, t008) */
	assert_non_null(strstr(during, "s.t005|grown|TEXT|"));
	assert_non_null(strstr(during, "s/t007/statistics.yaml|unreadable|"));
	assert_non_null(strstr(during, "s/t008/statistics.yaml|unreadable|"));
	assert_null(strstr(during, "s.t007|id|"));
	assert_null(strstr(during, "s.t008|id|"));
	/* a run that starts after the change says the same, row for row */
	run_full(1);
	after = cl_rows();
	assert_string_equal(during, after);
	free(during);
	free(after);
}

/* A batch large enough to be lstat'ed ahead (DBP_LOOK_MIN_TABLES): a
 * file found regular is read in three calls (dbp_read_known), and one
 * that changed is looked at again. */
static void
test_changed_after_look(void **state)
{
	(void)state;
	cl_case(CL_TABLES);
}

/* A smaller one, looked at by the plan itself: each file read the
 * careful way (dbp_read_file), a FIFO refused without waiting. */
static void
test_changed_after_plan(void **state)
{
	(void)state;
	cl_case(CL_SMALL);
}

/* ------------------------------------------------------------------ */
/* Incremental behaviour                                                */

static void
test_incremental(void **state)
{
	char ver[64];

	(void)state;
	base_print();
	run();
	assert_int_equal(st.files_parsed, st.files_total);
	snprintf(ver, sizeof(ver), "%s", q("SELECT value FROM meta WHERE key = "
	    "'print_version'"));
	/* Nothing changed: nothing read. */
	run();
	assert_int_equal(st.files_total, 11);
	assert_int_equal(st.files_unchanged, 11);
	assert_int_equal(st.files_parsed, 0);
	assert_int_equal(st.files_rehashed, 0);
	assert_int_equal(st.columns, 6);
	/* Touched: identity changed, hash not. */
	touch("s/t1/statistics.yaml", 5);
	touch("manifest.yaml", 5);
	run();
	assert_int_equal(st.files_rehashed, 2);
	assert_int_equal(st.files_parsed, 0);
	assert_int_equal(st.files_unchanged, 9);
	assert_string_equal(q("SELECT value FROM meta WHERE key = "
	    "'print_version'"), ver);
	run();
	assert_int_equal(st.files_unchanged, 11);
	/* Edited: that table re-parsed, its rows replaced. */
	put("s/t2/statistics.yaml", "scope: {rows_scanned: 1}\ncolumns:\n"
	    "  y: {classification: text}\n  z: {}\n");
	run();
	assert_int_equal(st.files_parsed, 1);
	assert_int_equal(st.files_unchanged, 10);
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE table_fqn = "
	    "'s.t2'"), 2);
	assert_string_equal(q("SELECT catalog_only || rows_scanned FROM tables "
	    "WHERE fqn = 's.t2'"), "01");
	assert_true(strcmp(q("SELECT value FROM meta WHERE key = "
	    "'print_version'"), ver) != 0);
	/* Other tables' rows are untouched. */
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE table_fqn = "
	    "'s.t1'"), 5);
	assert_int_equal(qi("SELECT count(*) FROM edges"), 4);
	/* An annotation edit re-derives its table. */
	put("s/t1/statistics.annotations.yaml", "format_version: 1\n"
	    "columns:\n  amount: {note: money}\n");
	run();
	assert_int_equal(st.files_parsed, 1);
	assert_string_equal(q("SELECT note FROM columns WHERE name = 'amount'"),
	    "money");
	assert_int_equal(qi("SELECT count(*) FROM value_notes"), 0);
	assert_int_equal(qi("SELECT count(*) FROM column_values WHERE note IS "
	    "NOT NULL"), 0);
	/* A table removed from the manifest disappears, and its files. */
	put("manifest.yaml", "tables:\n  s.t2:\n    artifacts: {statistics: "
	    "statistics.yaml}\n");
	run();
	assert_int_equal(st.tables, 1);
	assert_int_equal(qi("SELECT count(*) FROM files WHERE table_fqn = "
	    "'s.t1'"), 0);
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE table_fqn = "
	    "'s.t1'"), 0);
	assert_int_equal(qi("SELECT count(*) FROM edges"), 0);
	assert_int_equal(qi("SELECT count(*) FROM value_trigrams"), 0);
	assert_int_equal(qi("SELECT count(*) FROM column_search"), 2);
	assert_int_equal(qi("SELECT count(*) FROM failed_tables"), 0);
	/* The s.t2 rows survived the manifest change without a re-parse. */
	assert_int_equal(st.files_parsed, 1);	/* the manifest */
	/* A declared file removed from the entry leaves the index. */
	put("manifest.yaml", "tables:\n  s.t2: {}\n");
	run();
	assert_int_equal(qi("SELECT count(*) FROM files WHERE table_fqn = "
	    "'s.t2'"), 0);
	assert_int_equal(qi("SELECT count(*) FROM columns"), 0);
	/* --full re-reads everything. */
	run_full(1);
	assert_int_equal(st.files_parsed, st.files_total);
}

static void
test_refresh_and_digest(void **state)
{
	struct dbp_diag d;
	const char *paths[] = { "s/t2/statistics.yaml", "manifest.yaml",
	    "nope.yaml" };
	char d1[17], d2[17], d3[17];
	int changed = -1;

	(void)state;
	base_print();
	run();
	assert_int_equal(dbp_files_digest(db, paths, 3, d1, &d), 0);
	assert_int_equal(strlen(d1), 16);
	assert_int_equal(dbp_index_refresh(db, "c", root, paths, 2, &changed,
	    &d), 0);
	assert_int_equal(changed, 0);
	/* Order and repeats do not matter. */
	{
		const char *rev[] = { "nope.yaml", "manifest.yaml",
		    "s/t2/statistics.yaml", "manifest.yaml" };
		assert_int_equal(dbp_files_digest(db, rev, 4, d2, &d), 0);
		assert_string_equal(d1, d2);
	}
	put("s/t2/statistics.yaml", "columns: {fresh: {}}\n");
	assert_int_equal(dbp_index_refresh(db, "c", root, paths, 2, &changed,
	    &d), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(qi("SELECT count(*) FROM columns WHERE name = "
	    "'fresh'"), 1);
	meta_is_recount();
	assert_int_equal(dbp_files_digest(db, paths, 3, d3, &d), 0);
	assert_true(strcmp(d1, d3) != 0);
	/* A touch alone re-reads but changes no digest. */
	touch("s/t2/statistics.yaml", 7);
	assert_int_equal(dbp_index_refresh(db, "c", root, paths, 1, &changed,
	    &d), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(dbp_files_digest(db, paths, 3, d2, &d), 0);
	assert_string_equal(d2, d3);
	/* A new manifest: a whole update. */
	put("manifest.yaml", "tables: {}\n");
	assert_int_equal(dbp_index_refresh(db, "c", root, paths + 1, 1,
	    &changed, &d), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(qi("SELECT count(*) FROM tables"), 0);
	meta_is_recount();
}

static void
test_schema_version(void **state)
{
	struct dbp_diag d;
	char path[700];
	sqlite3 *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/x/.dbprint/index/c.sqlite", tmp);
	assert_int_equal(dbp_index_open(path, 0, &f, &d), 0);
	assert_int_equal(sqlite3_exec(f, "PRAGMA user_version = 99; CREATE "
	    "TABLE junk (a)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(f);
	assert_int_equal(dbp_index_open(path, DBP_OPEN_READONLY, &f, &d), -1);
	assert_non_null(strstr(d.msg, "schema version 99"));
	assert_int_equal(dbp_index_open(path, 0, &f, &d), 0);
	sqlite3_close(db);
	db = f;
	assert_int_equal(qi("PRAGMA user_version"), DBP_SCHEMA_VERSION);
	assert_int_equal(qi("SELECT count(*) FROM sqlite_master WHERE name = "
	    "'junk'"), 0);
	assert_string_equal(q("PRAGMA journal_mode"), "wal");
	/* .dbprint/.gitignore holds "*". */
	snprintf(path, sizeof(path), "%s/x/.dbprint/.gitignore", tmp);
	{
		char buf[16] = { 0 };
		FILE *g = fopen(path, "r");
		assert_non_null(g);
		assert_non_null(fgets(buf, sizeof(buf), g));
		fclose(g);
		assert_string_equal(buf, "*\n");
	}
	base_print();
	run();
	assert_int_equal(st.tables, 3);
	snprintf(path, sizeof(path), "%s/nothing/here.sqlite", tmp);
	assert_int_equal(dbp_index_open(path, DBP_OPEN_READONLY, &f, &d), -1);
}

/* ------------------------------------------------------------------ */
/* Helpers of ixutil.c                                                  */

static void
check_fold(const char *in, const char *want)
{
	char *got = dbp_fold(in);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void
test_fold(void **state)
{
	char *s;
	int esc;

	(void)state;
	check_fold("  ACTIVE ", "active");
	check_fold("Credit-Card", "credit-card");
	check_fold("\tactive", "\tactive");
	check_fold("Stra\xc3\x9f" "e", "stra\xc3\x9f" "e");
	check_fold("\xc3\x89" "COLE \xc3\x9c" "BER", "\xc3\xa9" "cole \xc3\xbc"
	    "ber");
	check_fold("\xce\x91\xce\x92", "\xce\xb1\xce\xb2");	/* Greek */
	check_fold("\xc4\xb0", "i\xcc\x87");	/* U+0130 -> i + U+0307 */
	check_fold("bad \xff byte", "bad \xff byte");
	check_fold("   ", "");
	s = dbp_collapse("  a \t b\n\nc  ");
	assert_string_equal(s, "a b c");
	free(s);
	s = ix_relnorm("a/./b//c/../d", &esc);
	assert_string_equal(s, "a/b/d");
	free(s);
	assert_null(ix_relnorm("a/../../b", &esc));
	assert_int_equal(esc, 1);
	assert_null(ix_relnorm("/etc", &esc));
	assert_int_equal(esc, 1);
	s = ix_relnorm("a/..", &esc);
	assert_string_equal(s, "");
	free(s);
}

/* A run that parses a manifest holds the page cache to
 * DBP_MANIFEST_CACHE_KIB while the manifest's tree lives, then gives the
 * connection back the size it had: a larger one (dbprint-index's) as it
 * was, a smaller one (dbprint-serve's) never raised. */
static void
test_manifest_cache(void **state)
{
	char sql[64];

	(void)state;
	base_print();
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %d",
	    -4 * DBP_MANIFEST_CACHE_KIB);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	run();
	assert_int_equal(st.tables, 3);
	assert_int_equal(qi("PRAGMA cache_size"), -4 * DBP_MANIFEST_CACHE_KIB);
	/* A full build parses it again; a cache smaller than the cap. */
	assert_int_equal(sqlite3_exec(db, "PRAGMA cache_size = -2048", NULL,
	    NULL, NULL), SQLITE_OK);
	run_full(1);
	assert_int_equal(st.files_parsed, 11);
	assert_int_equal(qi("PRAGMA cache_size"), -2048);
	/* Given in pages, it is left alone too. */
	assert_int_equal(sqlite3_exec(db, "PRAGMA cache_size = 100000", NULL,
	    NULL, NULL), SQLITE_OK);
	run_full(1);
	assert_int_equal(qi("PRAGMA cache_size"), 100000);
	assert_int_equal(st.files_parsed, 11);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_manifest_rows, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_statistics_rows, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_values_rows, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_value_json, setup,
		    teardown),
		cmocka_unit_test(test_compact_json),
		cmocka_unit_test_setup_teardown(test_trigrams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigrams_radix, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_edges_rows, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_parse_and_shape, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_manifest_streamed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_manifest_shapes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_schema_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_root, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_too_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_after_look, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_changed_after_plan, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_incremental, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_refresh_and_digest, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_schema_version, setup,
		    teardown),
		cmocka_unit_test(test_fold),
		cmocka_unit_test_setup_teardown(test_manifest_cache, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

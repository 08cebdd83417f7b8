/*
 * test_grams.c - the positional trigram index of search_columns' text
 * (indexer/compile/grams.c): what dbp_grams_find says equals a plain lower-cased
 * substring test over every column's search text, for random texts and
 * needles (offsets and id gaps past one varint byte, repeats, needles at
 * and across field ends, needles too long to check whole); stale ids are
 * dropped; settling rebuilds only past DBP_GRAMS_DIRTY_MAX; a build in
 * many passes writes the lists one pass writes; the texts the build reads
 * are the column_search view's, byte for byte; a damaged list is an
 * error, never a crash.
 */
#define _POSIX_C_SOURCE	200809L

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dbprint.h"
#include "compile/ix.h"

#define TG_COLS		300	/* columns of the random index */
#define TG_PROBES	400	/* random needles checked */

static sqlite3	*db;

/* The search text of each column as the lists see it (NULL: none). */
static struct tg_col {
	int64_t	 id;
	char	*name, *note, *part, *vnotes;	/* vnotes "\n"-joined */
} cols[TG_COLS];

static unsigned long tg_seed = 12345;

static unsigned
tg_rand(void)
{
	tg_seed = tg_seed * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)(tg_seed >> 33);
}

/* Random text of n characters from a small alphabet (so needles repeat),
 * with upper case, spaces, a tab and the odd byte outside ASCII. */
static char *
tg_text(size_t n)
{
	static const char abc[] = "abcAB rR\t-_.";
	char *s = malloc(n + 1);
	size_t i;

	assert_non_null(s);
	for (i = 0; i < n; i++)
		s[i] = (tg_rand() % 97 == 0) ? (char)0xc3 :
		    abc[tg_rand() % (sizeof(abc) - 1)];
	s[n] = '\0';
	/* a stray 0xc3 alone is not UTF-8: make it a whole "é" or drop it */
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] == 0xc3) {
			if (i + 1 < n)
				s[++i] = (char)0xa9;
			else
				s[i] = 'a';
		}
	return s;
}

static void
exec(const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
}

/* Insert column i with a gap of ids before it. */
static void
tg_insert(int i, int64_t id)
{
	sqlite3_stmt *st;
	char *p;

	cols[i].id = id;
	p = tg_text(tg_rand() % 12);
	cols[i].name = malloc(strlen(p) + 16);
	assert_non_null(cols[i].name);
	sprintf(cols[i].name, "c%d_%s", i, p);	/* names unique */
	free(p);
	cols[i].note = tg_rand() % 4 == 0 ? NULL : tg_text(tg_rand() % 300);
	cols[i].part = NULL;
	if (i % 10 == 9) {		/* a part: its label alone counts */
		cols[i].part = strdup(".x");
		assert_non_null(cols[i].part);
	}
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO columns (id, "
	    "table_fqn, name, part, label, ord, in_stats, note) VALUES "
	    "(?1, 't', ?2, ?3, ?2 || ?3, ?1, 1, ?4)", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, cols[i].name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, cols[i].part != NULL ? cols[i].part : "", -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(st, 4, cols[i].note, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	cols[i].vnotes = NULL;
	if (cols[i].part != NULL || tg_rand() % 3 != 0)
		return;
	/* two value notes, "\n"-joined in the lists' text */
	p = tg_text(20 + tg_rand() % 40);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO value_notes "
	    "(table_fqn, name, ord, value, text, note) VALUES ('t', ?1, ?2, "
	    "'1', '1', ?3)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, cols[i].name, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, 1);
	sqlite3_bind_text(st, 3, p, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_reset(st);
	cols[i].vnotes = malloc(2 * strlen(p) + 2);
	assert_non_null(cols[i].vnotes);
	sprintf(cols[i].vnotes, "%s\n", p);
	free(p);
	p = tg_text(5 + tg_rand() % 20);
	sqlite3_bind_int(st, 2, 2);
	sqlite3_bind_text(st, 3, p, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	cols[i].vnotes = realloc(cols[i].vnotes, strlen(cols[i].vnotes) +
	    strlen(p) + 1);
	assert_non_null(cols[i].vnotes);
	strcat(cols[i].vnotes, p);
	free(p);
}

/* 1 when lower(t) holds lower(needle) (t may be NULL). */
static int
tg_has(const char *t, const char *needle)
{
	char *a, *b;
	size_t i;
	int hit;

	if (t == NULL)
		return 0;
	a = strdup(t);
	b = strdup(needle);
	assert_non_null(a);
	assert_non_null(b);
	for (i = 0; a[i] != '\0'; i++)
		a[i] = (char)tolower((unsigned char)a[i]);
	for (i = 0; b[i] != '\0'; i++)
		b[i] = (char)tolower((unsigned char)b[i]);
	hit = strstr(a, b) != NULL;
	free(a);
	free(b);
	return hit;
}

/* Does column i's search text hold the needle (never across fields)? */
static int
tg_match(int i, const char *needle)
{
	char *label;
	int hit;

	if (cols[i].part != NULL) {
		label = malloc(strlen(cols[i].name) + strlen(cols[i].part) + 1);
		assert_non_null(label);
		sprintf(label, "%s%s", cols[i].name, cols[i].part);
		hit = tg_has(label, needle);
		free(label);
		return hit;
	}
	if (tg_has(cols[i].name, needle) || tg_has(cols[i].note, needle))
		return 1;
	/* each value note on its own: the needle holds no newline */
	if (cols[i].vnotes != NULL) {
		char *v = strdup(cols[i].vnotes), *tok, *save = NULL;

		assert_non_null(v);
		for (tok = strtok_r(v, "\n", &save); tok != NULL;
		    tok = strtok_r(NULL, "\n", &save))
			if (tg_has(tok, needle)) {
				free(v);
				return 1;
			}
		free(v);
	}
	return 0;
}

/* A needle: mostly a piece of some column's text, else random. */
static char *
tg_needle(void)
{
	const char *src;
	char *n;
	size_t len, at, i;
	int c = (int)(tg_rand() % TG_COLS);

	src = tg_rand() % 2 ? cols[c].note : cols[c].name;
	len = 3 + tg_rand() % (tg_rand() % 8 == 0 ? 70 : 12);
	if (src == NULL || strlen(src) < len || tg_rand() % 5 == 0)
		n = tg_text(len);
	else {
		at = tg_rand() % (strlen(src) - len + 1);
		n = strndup(src + at, len);
	}
	assert_non_null(n);
	for (i = 0; n[i] != '\0'; i++)
		if ((unsigned char)n[i] >= 0x80 || n[i] == '\n')
			n[i] = 'a';
	if (tg_rand() % 3 == 0)
		n[0] = (char)toupper((unsigned char)n[0]);
	return n;
}

static int
setup(void **state)
{
	struct dbp_diag d;
	int64_t id = 1;
	int i;

	(void)state;
	if (dbp_index_open(NULL, DBP_OPEN_MEMORY, &db, &d) != 0)
		return -1;
	exec("BEGIN");
	for (i = 0; i < TG_COLS; i++) {
		tg_insert(i, id);
		id += 1 + (i % 37 == 0 ? 1000 + tg_rand() % 100000 : 0);
	}
	exec("COMMIT");
	if (ix_grams_build(db, &d) != 0)
		fail_msg("%s", d.msg);
	return 0;
}

static int
teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < TG_COLS; i++) {
		free(cols[i].name);
		free(cols[i].note);
		free(cols[i].part);
		free(cols[i].vnotes);
	}
	sqlite3_close(db);
	db = NULL;
	return 0;
}

/* Every probe: the lists' answer is the brute-force answer (exact), or
 * holds it (a needle too long to check whole). */
static void
test_find_equals_scan(void **state)
{
	struct dbp_diag d;
	int64_t *ids;
	size_t n, k, hits, longs = 0, pieces = 0;
	char *needle;
	int p, i, exact, want;

	(void)state;
	for (p = 0; p < TG_PROBES; p++) {
		needle = tg_needle();
		assert_int_equal(dbp_grams_find(db, needle, &ids, &n, &exact,
		    &d), 0);
		if (strlen(needle) > 3 * DBP_GRAMS_MAX_LISTS)
			longs++;
		hits = 0;
		for (i = 0, k = 0; i < TG_COLS; i++) {
			want = tg_match(i, needle);
			while (k < n && ids[k] < cols[i].id) {
				/* a candidate that does not match */
				assert_int_equal(exact, 0);
				k++;
			}
			if (want) {
				hits++;
				if (k >= n || ids[k] != cols[i].id)
					fail_msg("needle \"%s\": column %d "
					    "(id %lld) missed", needle, i,
					    (long long)cols[i].id);
			} else if (k < n && ids[k] == cols[i].id &&
			    exact)
				fail_msg("needle \"%s\": column %d (id %lld) "
				    "found but does not match", needle, i,
				    (long long)cols[i].id);
			if (k < n && ids[k] == cols[i].id)
				k++;
		}
		assert_int_equal(k, n);
		assert_int_equal(exact, strlen(needle) <= 3 *
		    DBP_GRAMS_MAX_LISTS);
		if (hits > 0)
			pieces++;
		free(ids);
		free(needle);
	}
	/* the probes did exercise matches and long needles */
	assert_true(pieces > TG_PROBES / 4);
	assert_true(longs > 0);
}

/* A needle never matches across two fields, nor across a value note. */
static void
test_no_match_across_fields(void **state)
{
	struct dbp_diag d;
	int64_t *ids;
	size_t n, i;
	int exact;

	(void)state;
	exec("INSERT INTO columns (id, table_fqn, name, part, label, ord, "
	    "in_stats, note) VALUES (9000001, 't', 'zzq', '', 'zzq', 1, 1, "
	    "'qxx')");
	assert_int_equal(ix_grams_build(db, &d), 0);
	assert_int_equal(dbp_grams_find(db, "zzqqxx", &ids, &n, &exact, &d),
	    0);
	for (i = 0; i < n; i++)
		assert_int_not_equal(ids[i], 9000001);
	free(ids);
	assert_int_equal(dbp_grams_find(db, "ZZQ", &ids, &n, &exact, &d), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 9000001);
	free(ids);
}

/* Stale ids are dropped from what the lists say. */
static void
test_stale_dropped(void **state)
{
	struct dbp_diag d;
	int64_t *ids;
	size_t n;
	int exact;

	(void)state;
	exec("INSERT INTO columns (id, table_fqn, name, part, label, ord, "
	    "in_stats, note) VALUES (9000002, 'u', 'wwwvvv', '', 'wwwvvv', "
	    "1, 1, NULL)");
	assert_int_equal(ix_grams_build(db, &d), 0);
	assert_int_equal(dbp_grams_find(db, "wwwv", &ids, &n, &exact, &d), 0);
	assert_int_equal(n, 1);
	free(ids);
	exec("INSERT INTO column_grams_stale (id) VALUES (9000002)");
	assert_int_equal(dbp_grams_find(db, "wwwv", &ids, &n, &exact, &d), 0);
	assert_int_equal(n, 0);
	free(ids);
}

/* The dirty tables and stale ids marked. */
static int
tg_marks(void)
{
	sqlite3_stmt *st;
	int n;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM "
	    "column_grams_dirty) + (SELECT count(*) FROM column_grams_stale)",
	    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Settling rebuilds when full or past DBP_GRAMS_DIRTY_MAX columns. */
static void
test_settle(void **state)
{
	struct dbp_diag d;
	char sql[256];
	int i;

	(void)state;
	exec("INSERT INTO column_grams_dirty (table_fqn) VALUES ('t')");
	exec("INSERT INTO column_grams_stale (id) VALUES (1)");
	assert_int_equal(ix_grams_settle(db, 0, &d), 0);
	/* 300 columns of 't' are dirty: under the limit, kept */
	assert_int_equal(TG_COLS < DBP_GRAMS_DIRTY_MAX, 1);
	assert_int_equal(tg_marks(), 2);
	exec("BEGIN");
	for (i = 0; i <= DBP_GRAMS_DIRTY_MAX; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO columns (id, table_fqn, "
		    "name, part, label, ord, in_stats) VALUES (%d, 't', "
		    "'n%d', '', 'n%d', 1, 1)", 20000000 + i, i, i);
		exec(sql);
	}
	exec("COMMIT");
	/* past the limit: built again, the marks cleared */
	assert_int_equal(ix_grams_settle(db, 0, &d), 0);
	assert_int_equal(tg_marks(), 0);
	/* a full run always builds */
	exec("INSERT INTO column_grams_dirty (table_fqn) VALUES ('u')");
	assert_int_equal(ix_grams_settle(db, 1, &d), 0);
	assert_int_equal(tg_marks(), 0);
}

/* Every list, in gram order, as text (malloc'd). */
static char *
tg_lists(void)
{
	sqlite3_stmt *st;
	char *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(gram || "
	    "':' || hex(postings), ',') FROM (SELECT gram, postings FROM "
	    "column_grams ORDER BY gram)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	if (sqlite3_column_text(st, 0) != NULL)
		s = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_non_null(s);
	return s;
}

/* The tables named like the scratch table of a build in passes. */
static int64_t
tg_scratch(void)
{
	sqlite3_stmt *st;
	int64_t n;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM "
	    "sqlite_schema WHERE name LIKE 'column_grams_seg%'", -1, &st,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Built in 2, 7 and 50 passes (each its share of the column ids, the
 * lists joined at the end), on its own and in the caller's transaction,
 * the lists are the one pass's, byte for byte, and no scratch table is
 * left. */
static void
test_passes(void **state)
{
	static const int npass[] = { 2, 7, 50 };
	struct dbp_diag d;
	sqlite3_stmt *st;
	int64_t max;
	char *one, *many;
	size_t i;

	(void)state;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT max(id), "
	    "(SELECT count(*) FROM column_grams) FROM columns", -1, &st,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	max = sqlite3_column_int64(st, 0);
	assert_true(sqlite3_column_int64(st, 1) > 1000);
	sqlite3_finalize(st);
	assert_true(max < DBP_GRAMS_PASS_COLUMNS);	/* setup: one pass */
	one = tg_lists();
	for (i = 0; i < 2 * sizeof(npass) / sizeof(npass[0]); i++) {
		if (i % 2 == 1)
			exec("BEGIN");
		assert_int_equal(ix_grams_build_per(db, max / (npass[i / 2] -
		    1), &d), 0);
		assert_int_equal(tg_scratch(), 0);
		if (i % 2 == 1)
			exec("COMMIT");
		many = tg_lists();
		assert_string_equal(many, one);
		free(many);
	}
	assert_int_equal(tg_scratch(), 0);
	free(one);
}

/* Every column's text as ix_gtext reads it (columns alone, value notes
 * only where its Bloom filter says) is the column_search view's, in the
 * same order: on the random columns and on the edges added here (an
 * empty note, a name shared by two tables of which one has notes, a part
 * of a column with notes, a name and a note with a NUL, notes under a
 * table with no such column, more notes than the filter's bits would
 * keep apart). */
static void
test_texts(void **state)
{
	static const char *edges[] = {
		/* id, table, name, part, note */
		"t2", "e_empty", "", "",
		"t2", "c1_", "", NULL,		/* a name "t" has notes for */
		"t3", "shared", "", "mine",
		"t4", "shared", "", NULL,
		"t3", "shared", ".p", NULL,	/* a part: its label */
		"t3", "", "", NULL,		/* an empty name */
	};
	struct dbp_diag d;
	struct ix_gtext *g;
	sqlite3_stmt *st, *vs;
	const char *text, *want;
	int64_t id;
	size_t i, n = 0, withnotes = 0;
	char name[32];
	int rc;

	(void)state;
	exec("BEGIN");
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO columns (id, "
	    "table_fqn, name, part, label, ord, in_stats, note) VALUES "
	    "((SELECT max(id) + 1 FROM columns), ?1, ?2, ?3, ?2 || ?3, 1, 1, "
	    "?4)", -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i += 4) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, edges[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, edges[i + 1], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, edges[i + 2], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, edges[i + 3], -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	}
	/* a name and a note with a NUL inside */
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, "t3", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, "nu\0l", 4, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, "no\0te", 6, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO value_notes "
	    "(table_fqn, name, ord, value, text, note) VALUES (?1, ?2, ?3, "
	    "'1', '1', ?4)", -1, &vs, NULL), SQLITE_OK);
	for (i = 0; i < 3; i++) {		/* t3.shared: three notes */
		sqlite3_reset(vs);
		sqlite3_bind_text(vs, 1, "t3", -1, SQLITE_STATIC);
		sqlite3_bind_text(vs, 2, "shared", -1, SQLITE_STATIC);
		sqlite3_bind_int(vs, 3, (int)(3 - i));	/* out of order */
		sqlite3_bind_text(vs, 4, i == 1 ? "" : "n\tote", -1,
		    SQLITE_STATIC);
		assert_int_equal(sqlite3_step(vs), SQLITE_DONE);
	}
	/* 40,000 notes of columns no table has, so the filter's bits are
	 * mostly set and columns without notes are asked too */
	for (i = 0; i < 40000; i++) {
		snprintf(name, sizeof(name), "ghost%zu", i);
		sqlite3_reset(vs);
		sqlite3_bind_text(vs, 1, i % 2 ? "t2" : "t9", -1,
		    SQLITE_STATIC);
		sqlite3_bind_text(vs, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(vs, 3, 1);
		sqlite3_bind_text(vs, 4, "ghost", -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(vs), SQLITE_DONE);
	}
	sqlite3_finalize(vs);
	exec("COMMIT");

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, text, (SELECT "
	    "count(*) FROM value_notes v WHERE v.table_fqn = c.table_fqn AND "
	    "v.name = c.name AND c.part = '') FROM column_search c ORDER BY "
	    "id", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(ix_gtext_open(db, &g, &d), 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		assert_int_equal(ix_gtext_next(g, &id, &text, &d), 1);
		assert_int_equal(id, sqlite3_column_int64(st, 0));
		want = (const char *)sqlite3_column_text(st, 1);
		if (want == NULL || strcmp(text, want) != 0)
			fail_msg("column %lld: \"%s\", the view \"%s\"",
			    (long long)id, text, want ? want : "(null)");
		if (sqlite3_column_int(st, 2) > 0)
			withnotes++;
		n++;
	}
	assert_int_equal(rc, SQLITE_DONE);
	assert_int_equal(ix_gtext_next(g, &id, &text, &d), 0);
	ix_gtext_close(g);
	sqlite3_finalize(st);
	assert_int_equal(n, TG_COLS + 7);
	assert_true(withnotes > 10);	/* random ones and t3.shared */
}

/* A damaged list is reported, never read past its end. */
static void
test_damaged(void **state)
{
	struct dbp_diag d;
	int64_t *ids;
	size_t n;
	int exact;

	(void)state;
	exec("DELETE FROM column_grams WHERE gram = 'qqq'");
	exec("INSERT INTO column_grams (gram, postings) VALUES ('qqq', "
	    "x'05ff')");
	assert_int_equal(dbp_grams_find(db, "qqq", &ids, &n, &exact, &d),
	    -1);
	assert_non_null(strstr(d.msg, "damaged"));
	assert_null(ids);
	exec("UPDATE column_grams SET postings = x'0000' WHERE gram = 'qqq'");
	assert_int_equal(dbp_grams_find(db, "qqq", &ids, &n, &exact, &d),
	    -1);
	assert_int_equal(dbp_grams_find(db, "ab\ncd", &ids, &n, &exact, &d),
	    -1);
	assert_int_equal(dbp_grams_find(db, "ab", &ids, &n, &exact, &d), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_find_equals_scan, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_match_across_fields,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_dropped, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_settle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_texts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

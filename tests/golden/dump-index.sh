#!/bin/sh
# dump-index.sh INDEX [ROOT] - a deterministic text dump of a dbprint
# index, for the golden tests (tests/cli/t1010-index-golden.sh).
#
# Every table of sql/schema.sql, ordered by its natural key; what varies
# from machine to machine is left out (dev, ino, mtime_ns, row ids, the
# time of the run, the absolute print root - replaced by <root>).  Long
# texts are cut to 160 characters and whole documents are summarised by
# their length, so a golden file stays readable in a diff.
set -u
db=$1
root=${2:-}
# Replace every occurrence of the print root by <root>.
unroot() {
	if [ -n "$root" ]; then
		awk -v r="$root" '{ while ((i = index($0, r)) > 0)
		    $0 = substr($0, 1, i - 1) "<root>" substr($0, i + length(r));
		    print }'
	else
		cat
	fi
}
queries() {
	cat <<'SQL'
.nullvalue NULL
.separator " | "
SELECT '## meta';
SELECT key, value FROM meta
 WHERE key NOT IN ('indexed_at', 'print_root', 'tool_version') ORDER BY key;
SELECT '## files (path | kind | table | size | hash | status | doc length | error)';
SELECT path, kind, table_fqn, size, hash, status, length(doc), error
  FROM files ORDER BY path;
SELECT '## tables';
SELECT fqn, ord, walkable, followable, type, dir, row_count, columns,
       profiled_at, max_age_days, length(entry), stats_status,
       stats_row_count, scoped, scope, rows_scanned, catalog_only, disabled,
       annot_status
  FROM tables ORDER BY fqn;
SELECT '## failed_tables';
SELECT ord, fqn FROM failed_tables ORDER BY ord;
SELECT '## artifacts';
SELECT table_fqn, kind, file, path FROM artifacts ORDER BY table_fqn, kind;
SELECT '## columns';
SELECT table_fqn, label, name, part, ord, in_stats, sql_type, nullable,
       null_rate, classification, cardinality, cardinality_method,
       values_coverage, values_state, listed, freq_listed, complete,
       sensitivity, looks_like, sampled, matched, candidate_key,
       candidate_key_exception, redacted, derived_from, substr(note, 1, 160),
       occurrences, rows_scanned, length(block)
  FROM columns ORDER BY table_fqn, name, part;
SELECT '## column_values';
SELECT c.table_fqn, c.label, v.ord, substr(v.value, 1, 160),
       substr(v.text, 1, 160), substr(v.fold, 1, 160), v.count,
       v.spelling_of, v.note
  FROM column_values v JOIN columns c ON c.id = v.column_id
 ORDER BY c.table_fqn, c.name, c.part, v.ord;
SELECT '## value_trigrams (per column: trigrams, posting bytes)';
SELECT c.table_fqn, c.label, count(*), sum(length(t.postings))
  FROM value_trigrams t JOIN columns c ON c.id = t.column_id
 GROUP BY c.id ORDER BY c.table_fqn, c.name, c.part;
SELECT '## value_notes';
SELECT table_fqn, name, ord, value, text, note FROM value_notes
 ORDER BY table_fqn, name, ord;
SELECT '## edges';
SELECT file_table, source, direction, ord, from_table, from_columns,
       to_table, to_columns, path, target_path, detection, verdict,
       substr(note, 1, 160), length(edge)
  FROM edges ORDER BY file_table, source, direction, ord;
SELECT '## changes';
SELECT ord, kind, kind_ord, table_fqn, source_table, target_table,
       substr(entry, 1, 160)
  FROM changes ORDER BY ord;
SELECT '## connection_notes';
SELECT ord, substr(note, 1, 160) FROM connection_notes ORDER BY ord;
SELECT '## column_search';
SELECT table_fqn, label, replace(substr(text, 1, 240), char(10), ' // ')
  FROM column_search ORDER BY table_fqn, name, part;
SELECT '## column_grams (lists; dirty tables; stale ids)';
SELECT count(*) FROM column_grams;
SELECT table_fqn FROM column_grams_dirty ORDER BY table_fqn;
SELECT count(*) FROM column_grams_stale;
SELECT '## errors';
SELECT path, kind, table_fqn, status, error FROM errors ORDER BY path;
SQL
}
queries | sqlite3 -batch -noheader "$db" | unroot

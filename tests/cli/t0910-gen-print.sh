#!/bin/sh
# t0910-gen-print.sh - build/gen-print writes the synthetic print it
# promises: deterministic for a seed, the byte count it reports, every
# table's files, the 10,000-value column of table 0, and a print that
# dbprint-index reads with no error.
. "$(dirname "$0")/../lib.sh"


$VG "$GEN" >/dev/null 2>"$T/usage"
check_eq "no arguments: exit 1" 1 $?
check_contains "no arguments: usage line" "usage: gen-print DIR NTABLES NCOLS [SEED]" "$(cat "$T/usage")"
$VG "$GEN" "$T/x" 3 0 >/dev/null 2>&1
check_eq "zero columns refused: exit 1" 1 $?

out=$($VG "$GEN" "$T/a" 40 12 7)
check_eq "40 x 12: exit 0" 0 $?
$VG "$GEN" "$T/b" 40 12 7 >/dev/null
$VG "$GEN" "$T/c" 40 12 8 >/dev/null
check "same seed, same bytes" diff -r "$T/a" "$T/b"
if diff -r "$T/a" "$T/c" >/dev/null 2>&1; then fail "another seed, other bytes"; else
	ok "another seed, other bytes"; fi

bytes=$(find "$T/a" -type f -exec cat {} + | wc -c | tr -d ' ')
check_contains "reports the bytes it wrote" "$bytes bytes" "$out"
check_eq "one directory per table" 40 \
    "$(find "$T/a/prints/gen/gen" -mindepth 2 -maxdepth 2 -type d | wc -l | tr -d ' ')"
check_eq "every table has ddl, statistics and relationships" 120 \
    "$(find "$T/a/prints/gen/gen" \( -name ddl.sql -o -name statistics.yaml -o -name relationships.yaml \) | wc -l | tr -d ' ')"
check_eq "connection files" "diff.yaml manifest.annotations.yaml manifest.yaml reading.md" \
    "$(cd "$T/a/prints/gen" && ls *.yaml *.md | tr '\n' ' ' | sed 's/ $//')"

$VG "$INDEX" --project "$T/a" --json >"$T/a.json" 2>"$T/a.err"
check_eq "dbprint-index reads it: exit 0" 0 $?
check_eq "40 tables, 481 columns, no errors" "40 481 0" \
    "$(jq -r '"\(.tables) \(.columns) \(.errors|length)"' "$T/a.json")"
DB="$T/a/.dbprint/index/gen.sqlite"
check_eq "table 0 lists 10,000 code values, complete" "10000|1" \
    "$(sqlite3 -batch "$DB" "SELECT listed, complete FROM columns WHERE table_fqn = 'gen.s000.t00000' AND name = 'code'")"
check_eq "the code values are distinct" 10000 \
    "$(sqlite3 -batch "$DB" "SELECT count(DISTINCT v.text) FROM column_values v JOIN columns c ON c.id = v.column_id
    WHERE c.table_fqn = 'gen.s000.t00000' AND c.name = 'code'")"
check_eq "100 of them carry a note" 100 \
    "$(sqlite3 -batch "$DB" "SELECT count(*) FROM column_values v JOIN columns c ON c.id = v.column_id
    WHERE c.table_fqn = 'gen.s000.t00000' AND c.name = 'code' AND v.note IS NOT NULL")"
n=$(sqlite3 -batch "$DB" "SELECT count(*) FROM columns WHERE sensitivity IS NOT NULL")
if [ "$n" -gt 0 ]; then ok "some columns carry a sensitivity ($n)"; else fail "some columns carry a sensitivity"; fi
n=$(sqlite3 -batch "$DB" "SELECT count(*) FROM columns WHERE note IS NOT NULL")
if [ "$n" -gt 0 ]; then ok "some columns carry a note ($n)"; else fail "some columns carry a note"; fi
n=$(sqlite3 -batch "$DB" "SELECT count(*) FROM edges")
if [ "$n" -gt 0 ]; then ok "tables are joined by edges ($n rows)"; else fail "tables are joined by edges"; fi

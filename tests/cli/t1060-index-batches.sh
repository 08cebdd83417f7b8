#!/bin/sh
# t1060-index-batches.sh - a run takes the tables in batches of 4096
# (DBP_PLAN_BATCH): on a generated print of 4200 tables, the last table
# of the first batch and the first of the second are re-read alone when
# they change, and every run leaves the index a fresh full build of the
# same files would make (tests/golden/dump-index.sh, the text index's
# dirty marks aside), whether the manifest was re-parsed or not.
. "$SRCDIR/tests/lib.sh"

need_gen
"$GEN" "$T/g" 4200 2 >/dev/null
check_eq "generated print" 0 $?
I="$T/i.sqlite"
dump() { index_dump "$1" "$T/g/prints/gen"; }
# json FIELD - the figure FIELD of the last run's --json
json() { jq -r ".$1" "$T/run.json"; }
# count4096 - the count of the first listed value of table 4096's column
count4096() {
	sqlite3 "$I" "SELECT v.count FROM column_values v JOIN columns c
	    ON c.id = v.column_id WHERE c.table_fqn = 'gen.s040.t04096' AND
	    c.name <> 'id' AND v.count IS NOT NULL ORDER BY v.ord LIMIT 1"
}
# fresh NAME - a full build of the print as it is into a new index; its
# dump in $T/NAME.dump
fresh() {
	$VG "$INDEX" --quiet --project "$T/g" --index "$T/$1.sqlite"
	dump "$T/$1.sqlite" >"$T/$1.dump"
}
# edit FILE - change a value count, replacing the file by a rename
edit() {
	sed 's/count: \([0-9]*\)$/count: 1\1/' "$1" >"$1.new" &&
	    mv "$1.new" "$1"
}

$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "the first build exits 0" 0 $?
check_eq "4200 tables indexed" 4200 "$(json tables)"
check_eq "every file parsed" "$(json files_total)" "$(json files_parsed)"
check_eq "one row per table" 4200 \
    "$(sqlite3 "$I" 'SELECT count(*) FROM tables')"
check_eq "every table's statistics read" 4200 \
    "$(sqlite3 "$I" "SELECT count(*) FROM tables WHERE stats_status = 'ok'")"

$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "a re-run parses nothing" 0 "$(json files_parsed)"
check_eq "a re-run finds every file unchanged" "$(json files_total)" \
    "$(json files_unchanged)"

# Tables 4095 and 4096 sit on either side of the first batch's end.
c0=$(count4096)
for t in t00000 t04095 t04096; do
	edit "$(find "$T/g/prints/gen" -path "*/$t/statistics.yaml")"
done
$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "three tables edited: three files parsed" 3 "$(json files_parsed)"
dump "$I" >"$T/inc.dump"
fresh full1
check_file "the index after the edits is a full build's" "$T/full1.dump" \
    "$T/inc.dump"
check_eq "the edited count of table 4096 is indexed" "1$c0" "$(count4096)"

# A changed manifest is parsed again and every table planned from it,
# batch by batch; the tables' own files are not read again.
printf '# edited\n' >>"$T/g/prints/gen/manifest.yaml"
$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "a changed manifest: one file parsed" 1 "$(json files_parsed)"
dump "$I" >"$T/man.dump"
fresh full2
check_file "the index after the manifest change is a full build's" \
    "$T/full2.dump" "$T/man.dump"

# The quick look of an unchanged manifest's run (probe.c) reads the files
# rows in chunks of 8192 (this print has more) and hands the tables that
# may have changed to the plan; past 4096 of them the plan takes all.
check "the files rows span two of the quick look's chunks" \
    test "$(sqlite3 "$I" 'SELECT count(*) FROM files')" -gt 8192
last=$(find "$T/g/prints/gen" -path '*/t04199/ddl.sql')
touch -d '2001-01-01 00:00:01' "$last"
$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "the last table's touched file is hashed again" 1 \
    "$(json files_rehashed)"
check_eq "every other file is unchanged" "$(($(json files_total) - 1))" \
    "$(json files_unchanged)"
find "$T/g/prints/gen" -name ddl.sql -path '*/t0[0-3]*' \
    -exec touch -d '2001-01-01 00:00:02' {} +
$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "4000 tables touched: 4000 files hashed again" 4000 \
    "$(json files_rehashed)"
find "$T/g/prints/gen" -name ddl.sql -exec touch -d '2001-01-01 00:00:03' {} +
$VG "$INDEX" --quiet --json --project "$T/g" --index "$I" >"$T/run.json"
check_eq "4200 tables touched (past the filter): 4200 files hashed again" \
    4200 "$(json files_rehashed)"
check_eq "... and nothing parsed" 0 "$(json files_parsed)"
dump "$I" >"$T/touch.dump"
check_file "the index after the touches is a full build's" \
    "$T/full2.dump" "$T/touch.dump"

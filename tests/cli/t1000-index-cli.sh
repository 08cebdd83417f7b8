#!/bin/sh
# t1000-index-cli.sh - dbprint-index from the command line: usage and
# config errors (exit 1), an index that cannot be written (exit 2), the
# default index location and its .gitignore, --json, --quiet, --full, and
# the incremental counts (unchanged / rehashed / re-parsed).
. "$SRCDIR/tests/lib.sh"

USAGE='usage: dbprint-index [--project LOC] [--index PATH] [--full] [--json]
                     [--quiet] [--strict] [--no-sandbox] [CONNECTION ...]'

# --- usage and configuration errors ---------------------------------
$VG "$INDEX" --bogus >"$T/out" 2>"$T/err"
check_eq "unknown option exits 1" 1 $?
check_eq "unknown option prints the synopsis" "$USAGE" "$(tail -2 "$T/err")"
$VG "$INDEX" --help >"$T/out" 2>"$T/err"
check_eq "--help exits 0, nothing on stderr" "0 " "$? $(cat "$T/err")"
check_eq "--help opens with the synopsis" "$USAGE" "$(head -2 "$T/out")"
check_eq "--help ends with a pointer to the manual" \
    "See dbprint-index(1) for the details." "$(tail -1 "$T/out")"
miss=""
for o in $(sed -n '/^\.Sh OPTIONS\|^The options are/,/^\.El/p' \
    "$SRCDIR/man/dbprint-index.1" | sed -n 's/^\.It Fl -\([a-z]*\).*/\1/p'); do
	grep -q "^  --$o\b\|^  -., --$o\b" "$T/out" || miss="$miss --$o"
done
check_eq "--help has a line for every option of the manual" "" "$miss"
check_eq "-V and --version agree" "$($VG "$INDEX" --version)" \
    "$($VG "$INDEX" -V)"
check "the usage line is the man page SYNOPSIS" sh -c '
	m=$(sed -n "/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p" "$1" | tr "\n" " ")
	for o in project index full json quiet strict; do
		case "$m" in *"Fl -$o"*) ;; *) echo "missing --$o"; exit 1 ;; esac
	done
	case "$m" in *"Ar CONNECTION ..."*) ;; *) exit 1 ;; esac' sh \
    "$SRCDIR/man/dbprint-index.1"

mkdir "$T/empty"
(cd "$T/empty" && $VG "$INDEX" --project "$T/empty" >/dev/null 2>"$T/err")
check_eq "no config exits 1" 1 $?
check_contains "no config names the exact location" \
    "no .dbprint.yaml at $T/empty/.dbprint.yaml. --project names an exact location" \
    "$(cat "$T/err")"

printf 'connections: [a\n' >"$T/empty/.dbprint.yaml"
$VG "$INDEX" --project "$T/empty" >/dev/null 2>"$T/err"
check_eq "broken config exits 1" 1 $?
check_contains "broken config message" "$T/empty/.dbprint.yaml: invalid YAML" \
    "$(cat "$T/err")"

$VG "$INDEX" --project "$FIX/rich" --index "$T/x.sqlite" zz >/dev/null 2>"$T/err"
check_eq "unknown connection exits 1" 1 $?
check_contains "unknown connection lists the known ones" \
    "unknown connection 'zz'. Known: ['main', 'other']." "$(cat "$T/err")"

$VG "$INDEX" --project "$FIX/rich" --index "$T/x.sqlite" >/dev/null 2>"$T/err"
check_eq "--index with two connections exits 1" 1 $?
check_contains "--index with two connections says why" "names one index file" \
    "$(cat "$T/err")"

# --- an index that cannot be written -----------------------------------
: >"$T/afile"
$VG "$INDEX" --project "$FIX/demo" --index "$T/afile/sub/demo.sqlite" \
    >/dev/null 2>"$T/err"
check_eq "unwritable index exits 2" 2 $?
check_contains "unwritable index says where" "$T/afile/sub/demo.sqlite" \
    "$(cat "$T/err")"

# --- a copy of the demo project ----------------------------------------
cp -R "$FIX/demo" "$T/demo"
P="$T/demo/prints/demo"
(cd "$T/demo/prints" && $VG "$INDEX" --json >"$T/j1" 2>"$T/err")
check_eq "demo indexes with exit 0 (walking up from a subdirectory)" 0 $?
IDX="$T/demo/.dbprint/index/demo.sqlite"
check "default index location" test -f "$IDX"
check_eq ".dbprint/.gitignore holds *" "*" "$(cat "$T/demo/.dbprint/.gitignore")"
check "stdout is one JSON object" jq -e 'type == "object"' "$T/j1"
check_eq "--json keys in order" \
    'connection,index,files_total,files_parsed,files_rehashed,files_unchanged,tables,columns,errors' \
    "$(jq -r 'keys_unsorted | join(",")' "$T/j1")"
check_eq "--json connection and index" "demo $IDX" \
    "$(jq -r '.connection + " " + .index' "$T/j1")"
check_eq "first run parses every file" "$(jq .files_total "$T/j1")" \
    "$(jq .files_parsed "$T/j1")"
check_eq "demo: 5 tables, no errors" "5 0" "$(jq -r '"\(.tables) \(.errors | length)"' "$T/j1")"
check_eq "tables count matches the index" "$(jq .tables "$T/j1")" \
    "$(sqlite3 "$IDX" 'SELECT count(*) FROM tables')"
check_eq "columns count matches the index" "$(jq .columns "$T/j1")" \
    "$(sqlite3 "$IDX" 'SELECT count(*) FROM columns')"
check_contains "one-line summary on stderr" "demo: $(jq .files_total "$T/j1") files" \
    "$(cat "$T/err")"

$VG "$INDEX" --project "$T/demo" --json >"$T/j2" 2>/dev/null
check_eq "second run: everything unchanged" \
    "$(jq .files_total "$T/j2") 0 0" \
    "$(jq -r '"\(.files_unchanged) \(.files_parsed) \(.files_rehashed)"' "$T/j2")"

v1=$(sqlite3 "$IDX" "SELECT value FROM meta WHERE key = 'print_version'")
touch -d '2030-01-01 00:00:00' "$P/bookshop/store/book/statistics.yaml"
$VG "$INDEX" --project "$T/demo" --json >"$T/j3" 2>/dev/null
check_eq "touched file: rehashed, not parsed" "1 0" \
    "$(jq -r '"\(.files_rehashed) \(.files_parsed)"' "$T/j3")"
check_eq "touch keeps the print version" "$v1" \
    "$(sqlite3 "$IDX" "SELECT value FROM meta WHERE key = 'print_version'")"

sed 's/count: 3100/count: 3101/' "$P/bookshop/store/customer_order/statistics.yaml" \
    >"$T/s" && cat "$T/s" >"$P/bookshop/store/customer_order/statistics.yaml"
$VG "$INDEX" --project "$T/demo" --json >"$T/j4" 2>/dev/null
check_eq "edited file: re-parsed" "1 0" \
    "$(jq -r '"\(.files_parsed) \(.files_rehashed)"' "$T/j4")"
check_eq "edit reaches the rows" 1 "$(sqlite3 "$IDX" \
    "SELECT count(*) FROM column_values WHERE count = 3101")"
check "edit changes the print version" test "$v1" != \
    "$(sqlite3 "$IDX" "SELECT value FROM meta WHERE key = 'print_version'")"

rm "$P/bookshop/store/author/statistics.yaml"
$VG "$INDEX" --project "$T/demo" --json >"$T/j5" 2>"$T/err"
check_eq "a missing declared file is reported, exit 0" "0 1" \
    "$? $(jq '.errors | length' "$T/j5")"
check_eq "its error entry" \
    "bookshop/store/author/statistics.yaml|manifest references statistics.yaml but file is absent at $P/bookshop/store/author/statistics.yaml. Re-run dbprint generate." \
    "$(jq -r '.errors[0] | .path + "|" + .message' "$T/j5")"
check_contains "errors are printed on stderr too" "but file is absent" "$(cat "$T/err")"

$VG "$INDEX" --project "$T/demo" --quiet >"$T/out" 2>"$T/err"
check_eq "--quiet prints nothing" ":" "$(cat "$T/out"):$(cat "$T/err")"

$VG "$INDEX" --project "$T/demo" --full --json >"$T/j6" 2>/dev/null
check_eq "--full re-parses every file" "$(jq .files_total "$T/j6")" \
    "$(jq .files_parsed "$T/j6")"

$VG "$INDEX" --project "$T/demo" --index "$T/other.sqlite" demo --json \
    >"$T/j7" 2>/dev/null
check_eq "--index with one named connection" "$T/other.sqlite" \
    "$(jq -r .index "$T/j7")"

# --- several connections: an array ---------------------------------------
mkdir "$T/rich" && cp -R "$FIX/rich/." "$T/rich/"
$VG "$INDEX" --project "$T/rich" --json >"$T/j8" 2>/dev/null
check_eq "two connections: an array in config order" "main other" \
    "$(jq -r 'map(.connection) | join(" ")' "$T/j8")"
check_eq "main has no errors, other has its broken cases" "0 yes" \
    "$(jq -r '"\(.[0].errors | length) \(if (.[1].errors | length) > 0 then "yes" else "no" end)"' "$T/j8")"
$VG "$INDEX" --project "$T/rich" --json other >"$T/j9" 2>/dev/null
check_eq "one named connection of several: an object" object \
    "$(jq -r type "$T/j9")"

# --- --strict: a print file's error fails the run (exit 3) ----------------
cp -R "$FIX/demo" "$T/strict"
printf 'columns: [broken\n' \
    >"$T/strict/prints/demo/bookshop/store/book/statistics.yaml"
$VG "$INDEX" --quiet --project "$T/strict" --index "$T/strict.sqlite" 2>/dev/null
check_eq "a print file's error: exit 0 without --strict" 0 $?
$VG "$INDEX" --quiet --strict --project "$T/strict" --index "$T/strict.sqlite" \
    2>/dev/null
check_eq "a print file's error: exit 3 with --strict" 3 $?
$VG "$INDEX" --quiet --strict --project "$FIX/demo" --index "$T/strict2.sqlite"
check_eq "a clean print with --strict: exit 0" 0 $?

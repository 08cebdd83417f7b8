#!/bin/sh
# t1035-index-first-fail.sh - a first run that fails for want of space
# leaves no index behind (issue 19): the file it created, and its journal,
# are removed, whether the schema or the build ran out of room; a later
# run that fails leaves the previous index as it was.  A full disk is
# simulated with RLIMIT_FSIZE (ulimit -f, SIGXFSZ ignored: a write past
# the limit fails with EFBIG, as on a full disk with ENOSPC).  The server
# started in that state answers from an index built in memory.
. "$SRCDIR/tests/lib.sh"

need_gen
demo_copy
I=$T/ix/demo.sqlite

# limited BLOCKS CMD... - CMD with writes limited to BLOCKS 512-byte
# blocks (POSIX sh units).
limited() {
	_b=$1
	shift
	(trap '' XFSZ; ulimit -f "$_b" && exec "$@")
}
# leftovers PATH - the index files left at PATH (none: "").
leftovers() {
	for _f in "$1" "$1-journal" "$1-wal" "$1-shm"; do
		[ -e "$_f" ] && printf '%s ' "${_f##*/}"
	done
}

# --- the schema does not fit -----------------------------------------------
out=$(limited 64 $VG "$INDEX" --project "$P" --index "$I" 2>&1); rc=$?
check_eq "no room for the schema: exit 2 (the index cannot be written)" \
    2 "$rc"
check_contains "... saying so" "no index was left behind" "$out"
check_eq "... and no index file, journal or log is left" "" \
    "$(leftovers "$I")"

# The server in that state: the index cannot be written, so it is built in
# memory and the call answers; still nothing is left on disk.
out=$(limited 64 $VG "$SERVE" --project "$P" --index "$I" \
    --call list_tables '{}' 2>"$T/serve.err"); rc=$?
check_eq "the server with no room: the call answers (exit 0)" 0 "$rc"
check_eq "... from an index built in memory" 5 \
    "$(printf '%s' "$out" | jq -r .total)"
check_contains "... and says why" \
    "cannot be written (index: disk I/O error); building it in memory" \
    "$(cat "$T/serve.err")"
check_eq "... leaving no index file behind" "" "$(leftovers "$I")"

# --- the schema fits, the rows do not (a larger print) ------------------
"$GEN" "$T/g" 120 5 >/dev/null
G=$T/gi.sqlite
out=$(limited 2048 $VG "$INDEX" --project "$T/g" --index "$G" 2>&1); rc=$?
check_eq "no room for the rows: exit 2" 2 "$rc"
check_contains "... saying so" "gen: index:" "$out"
check_contains "... and that nothing is left" "no index was left behind" \
    "$out"
check_eq "... and no index file, journal or log is left" "" \
    "$(leftovers "$G")"

# --- with room, the next run builds it ------------------------------------
$VG "$INDEX" --quiet --project "$T/g" --index "$G"
check_eq "with room: the next run builds the index" 0 $?
v0=$(sqlite3 "$G" "SELECT value FROM meta WHERE key = 'print_version'")
check "... (a print version)" test -n "$v0"

# --- a later run that fails keeps the index as it was -----------------------
find "$T/g/prints" -name statistics.yaml |
    xargs sed -i 's/^row_count: .*/row_count: 99/'
# 32 KiB: less than the log of the re-indexed rows needs.
out=$(limited 64 $VG "$INDEX" --project "$T/g" --index "$G" 2>&1); rc=$?
check_eq "a later run without room: exit 2" 2 "$rc"
check_contains "... saying the index is as it was" \
    "the index is as it was" "$out"
check_eq "... which it is (integrity_check)" ok \
    "$(sqlite3 "$G" 'PRAGMA integrity_check' 2>&1)"
check_eq "... at its previous print version" "$v0" \
    "$(sqlite3 "$G" "SELECT value FROM meta WHERE key = 'print_version'")"

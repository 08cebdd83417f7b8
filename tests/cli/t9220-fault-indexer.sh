#!/bin/sh
# t9220-fault-indexer.sh - dbprint-index killed with SIGKILL at random
# points of a run, over and over: after every kill the previous index is
# whole (PRAGMA integrity_check) and answers a query with the previous
# print's counts; a final run completes.  Then the disk fills up while
# indexing (a 5 MiB tmpfs, root only; skipped when mount is refused):
# the run exits 2 and the previous index stays intact.
. "$(dirname "$0")/../lib.sh"

"$BUILD_ABS/gen-print" "$T/g" 200 8 >/dev/null || { fail "gen-print"; exit 0; }
I=$T/i.sqlite
q() { sqlite3 "$I" "$1"; }
counts() { q "SELECT (SELECT count(*) FROM tables) || ' ' || (SELECT count(*) FROM columns) || ' ' || (SELECT value FROM meta WHERE key = 'print_version')"; }
$VG "$INDEX" --quiet --project "$T/g" --index "$I"
check_eq "first build exits 0" 0 $?
prev=$(counts)

# Random delays from a seeded awk generator (reproducible per run).
seed=${T9220_SEED:-$$}
delays=$(awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 12; i++)
    printf "%.3f ", rand() * 1.5 }')
echo "# SIGKILL delays (seed $seed): $delays"
n=0
for d in $delays; do
	n=$((n + 1))
	# New bytes in a third of the statistics files: the run has work.
	find "$T/g/prints" -name statistics.yaml | awk -v n=$n 'NR % 3 == n % 3' |
	    while read -r f; do printf '# kill %s\n' "$n" >>"$f"; done
	$VG "$INDEX" --quiet --full --project "$T/g" --index "$I" 2>/dev/null &
	pid=$!
	sleep "$d"
	kill -9 $pid 2>/dev/null
	wait $pid
	rc=$?
	ic=$(q 'PRAGMA integrity_check')
	now=$(counts)
	if [ $rc -eq 137 ] && [ "$now" != "$prev" ]; then
		# Killed after its commit (a fast run, still exiting): the
		# index must then be the new one, whole and current - a
		# further run over a copy finds nothing to re-parse.
		check_eq "kill $n after ${d}s (after its commit): integrity_check" \
		    ok "$ic"
		rm -f "$T/c.sqlite"
		q ".backup '$T/c.sqlite'"
		$VG "$INDEX" --quiet --json --project "$T/g" \
		    --index "$T/c.sqlite" >"$T/c.json" 2>/dev/null
		check_eq "kill $n: the committed index is current (nothing re-parsed)" \
		    0 "$(sed -n 's/.*"files_parsed": *\([0-9]*\).*/\1/p' "$T/c.json")"
		prev=$now
	elif [ $rc -eq 137 ]; then
		check_eq "kill $n after ${d}s: integrity_check" ok "$ic"
		check_eq "kill $n: the previous index answers as before" \
		    "$prev" "$now"
	else
		# The run finished first: it must have succeeded.
		check_eq "run $n ended before the kill: exit 0" 0 $rc
		check_eq "run $n: integrity_check" ok "$ic"
		prev=$now
	fi
done
$VG "$INDEX" --quiet --project "$T/g" --index "$I"
check_eq "a run after the kills completes" 0 $?
check_eq "and its index is whole" ok "$(q 'PRAGMA integrity_check')"
check_eq "with every table" 200 "$(q 'SELECT count(*) FROM tables')"

# --- disk full ----------------------------------------------------------
D=$T/small
mkdir -p "$D"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=5m tmpfs "$D" 2>/dev/null; then
	skip "disk full: cannot mount a small tmpfs (needs root)"
	exit 0
fi
trap 'umount "$D" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
# A small print fits (its index and WAL, under 2 MB); a 600-table one
# (~10 MB) does not, whatever a schema change saves.
"$BUILD_ABS/gen-print" "$T/tiny" 3 3 >/dev/null
"$BUILD_ABS/gen-print" "$T/big" 600 8 >/dev/null || fail "gen-print 600"
$VG "$INDEX" --quiet --project "$T/tiny" --index "$D/i.sqlite"
check_eq "a small index fits the 5 MiB disk" 0 $?
I=$D/i.sqlite
small=$(counts)
$VG "$INDEX" --quiet --project "$T/big" --index "$D/i.sqlite" 2>"$T/full.err"
check_eq "disk full while indexing: exit 2" 2 $?
check_contains "and says why" "full" "$(cat "$T/full.err")"
check_eq "disk full: the previous index is whole" ok "$(q 'PRAGMA integrity_check')"
check_eq "disk full: the previous index answers as before" "$small" "$(counts)"
umount "$D"

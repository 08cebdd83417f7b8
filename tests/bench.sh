#!/bin/sh
# bench.sh - `make bench`: the speed and size figures of the issues.
#
# dbprint-index (issue 2): on a generated print of 10,000 tables x 30
# columns (build/gen-print), the full build, a re-run with nothing
# changed, a re-run after one table changed, the index size against the
# YAML size, and the YAML throughput.  Targets: full <= 10 s, no change
# <= 0.3 s, one change <= 0.5 s, index <= 2x the YAML.
#
#   BUILD        build tree (default build)
#   BENCH_DIR    where the print is generated and kept (default: a
#                temporary directory, removed at the end); an existing
#                print there of the same size is reused
#   BENCH_TABLES, BENCH_COLS   the print's size (default 10000 x 30)
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
B="$SRCDIR/$BUILD"
NT=${BENCH_TABLES:-10000}
NC=${BENCH_COLS:-30}
if [ -n "${BENCH_DIR:-}" ]; then
	W=$BENCH_DIR
	mkdir -p "$W"
else
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT INT TERM
fi

for p in dbprint-index gen-print; do
	[ -x "$B/$p" ] || { echo "bench: no $B/$p; run make" >&2; exit 1; }
done

now() { date +%s.%N; }
# secs START END -> "1.234"
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# verdict VALUE TARGET -> "ok" when VALUE <= TARGET
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "ok" : "MISSED" }'; }
# cpu CMD... - run it; CPU seconds (user+sys) into $CPU, wall into $WALL
cpu() {
	t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$W/.cpu" "$@"
		rc=$?
		CPU=$(awk '{ printf "%.2f", $1 + $2 }' "$W/.cpu")
	else
		"$@"
		rc=$?
		CPU="?"
	fi
	WALL=$(secs "$t0" "$(now)")
	return $rc
}

echo "== dbprint-index: $NT tables x $NC columns"
echo "   machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
P="$W/print-$NT-$NC"
if [ ! -f "$P/prints/gen/manifest.yaml" ]; then
	rm -rf "$P"
	t0=$(now)
	"$B/gen-print" "$P" "$NT" "$NC" >/dev/null || exit 1
	echo "   generated the print in $(secs "$t0" "$(now)") s"
fi
YAML=$(du -sb "$P/prints/gen" | cut -f1)
I="$W/index.sqlite"
rm -f "$I" "$I-wal" "$I-shm"

cpu "$B/dbprint-index" --quiet --project "$P" --index "$I" || {
	echo "bench: the full build failed" >&2; exit 1; }
FULL=$WALL FULL_CPU=$CPU
sqlite3 "$I" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null 2>&1
SIZE=$(stat -c %s "$I")

cpu "$B/dbprint-index" --quiet --project "$P" --index "$I"
NOCH=$WALL NOCH_CPU=$CPU

# One table changed: a value count of table 1's statistics edited.
S=$(find "$P/prints/gen" -path '*t00001/statistics.yaml' | head -1)
sed 's/count: \([0-9]*\)$/count: 1\1/' "$S" >"$W/.s" && cat "$W/.s" >"$S"
cpu "$B/dbprint-index" --quiet --json --project "$P" --index "$I" >"$W/.j"
ONE=$WALL ONE_CPU=$CPU
PARSED=$(sed -n 's/.*"files_parsed": *\([0-9]*\).*/\1/p' "$W/.j")

MBS=$(awk -v y="$YAML" -v t="$FULL" 'BEGIN { printf "%.1f", y / 1e6 / t }')
RATIO=$(awk -v s="$SIZE" -v y="$YAML" 'BEGIN { printf "%.2f", s / y }')
printf '   %-28s %10s %10s %8s  %s\n' figure wall cpu target verdict
printf '   %-28s %9ss %9ss %7ss  %s\n' "full build" "$FULL" "$FULL_CPU" 10 \
    "$(verdict "$FULL" 10)"
printf '   %-28s %9ss %9ss %7ss  %s\n' "re-run, nothing changed" "$NOCH" \
    "$NOCH_CPU" 0.3 "$(verdict "$NOCH" 0.3)"
printf '   %-28s %9ss %9ss %7ss  %s\n' "re-run, one table changed" "$ONE" \
    "$ONE_CPU" 0.5 "$(verdict "$ONE" 0.5)"
printf '   %-28s %10s %10s %7sx  %s\n' "index size / YAML size" "${RATIO}x" "" 2 \
    "$(verdict "$RATIO" 2)"
echo "   YAML $(awk -v y="$YAML" 'BEGIN { printf "%.1f", y / 1e6 }') MB," \
    "index $(awk -v s="$SIZE" 'BEGIN { printf "%.1f", s / 1e6 }') MB," \
    "throughput $MBS MB/s of YAML (full build);" \
    "files re-parsed after one edit: $PARSED"

# ---- list_tables, search_columns, resolve_value (issue 4) ------------
# tests/bench-tools.sh, over the print and index built above.
. "$SRCDIR/tests/bench-tools.sh"
bench_tools "$P" "$I" || echo "bench: the issue-4 tools section failed" >&2

# ---- get_table_context (issue 6) --------------------------------------
# tests/bench-ctx.sh, over the same print and index.
. "$SRCDIR/tests/bench-ctx.sh"
bench_context "$P" "$I" || echo "bench: the issue-6 context section failed" >&2

# ---- dbprint-serve over stdio (issue 3) -----------------------------------
# tests/bench-serve.sh, over the same print and index.
. "$SRCDIR/tests/bench-serve.sh"
bench_serve "$P" "$I" || echo "bench: the issue-3 serve section failed" >&2

# ---- dbprint-serve --transport http (issue 8) ------------------------------
# tests/bench-http.sh, over the same print and index.
. "$SRCDIR/tests/bench-http.sh"
bench_http "$P" "$I" || echo "bench: the issue-8 HTTP section failed" >&2

# ---- the sandbox's cost (issue 16) ------------------------------------------
# tests/bench-sandbox.sh, over the same print and index.
. "$SRCDIR/tests/bench-sandbox.sh"
bench_sandbox "$P" "$I" || echo "bench: the issue-16 sandbox section failed" >&2

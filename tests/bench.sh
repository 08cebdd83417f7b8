#!/bin/sh
# bench.sh - `make bench`: the speed and size figures of the issues.
#
# dbprint-index (issues 2 and 20): on generated prints of N tables x 30
# columns (build/gen-print), for N = 10,000 and, when BENCH_TABLES names
# a larger size (make bench BENCH_TABLES=100000), that size too, the
# figures side by side from one run:
#   floor       tests/bench-floor.c: every YAML file through libyaml's
#               event parser on two threads, nothing else
#   full build  wall, user and system CPU, peak RSS
#   no change   a re-run with nothing changed
#   one change  a re-run after one table's statistics changed
#   index size  against the YAML's
#   write floor the system time of writing a file of the index's size
#               (dd, 16 KB blocks): the machine's own cost of the index's
#               new page-cache pages, stated beside the build's; and of
#               writing the same bytes again over the same pages, which
#               tells the first touch of new memory from the copy
# Every file of the print is read before the floor, so the floor and the
# full build find all of it in the page cache.
# Every full build and the write floor start BENCH_SETTLE seconds
# (default 15) after the bench last freed a large file: a virtual
# machine whose balloon device reports free pages hands them back to the
# host a few seconds after they are freed, and memory touched again
# after that costs 3-6x the system time of memory touched at once; so
# every size's build meets the same state, the returned one.
# and one PASS or MISSED line per target:
#   full build at 10,000 <= 10 s, and <= 1.5x the floor's wall time
#   full build at N <= N / 10,000 x 1.05 x the 10,000 build (linear;
#               the 10,000 floor and build run again after N's, and the
#               ratio takes the mean of the two 10,000 builds: the
#               machine's speed drifts over a run this long)
#   system CPU <= 10% of user CPU, every full build
#   no change <= 0.3 s at 10,000, <= 0.5 s at N
#   one change <= 0.5 s at 10,000
#   peak RSS of every dbprint-index run <= 256 MB, at every size
#   index <= 2x the YAML
#
#   BUILD        build tree (default build)
#   BENCH_DIR    where prints are generated and kept (default: a
#                temporary directory, removed at the end); an existing
#                print there of the same size is reused
#   BENCH_PRINTS a directory of prints made by gen-print, named
#                print-N-COLS, used in place (not linked: a file of
#                several hard links is one dbprint-serve stats at every
#                call): the one file the bench edits is replaced by a
#                rename and its bytes put back the same way
#   BENCH_TABLES, BENCH_COLS   the larger size (default none) and the
#                columns per table (default 30)
#   BENCH_INDEX_ONLY   set: stop after the dbprint-index figures
#   BENCH_SETTLE the seconds between freeing a large file and the next
#                full build (default 15; 0 for none)
# The later sections (tools, context, serve, HTTP) run over the
# 10,000-table print and index ($P, $I); when a larger size ran, $PBIG
# and $IBIG name its print and index.
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
B="$SRCDIR/$BUILD"
NT=10000
NBIG=${BENCH_TABLES:-}
[ "$NBIG" = "$NT" ] && NBIG=""
NC=${BENCH_COLS:-30}
if [ -n "${BENCH_DIR:-}" ]; then
	W=$BENCH_DIR
	mkdir -p "$W"
else
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT INT TERM
fi

for p in dbprint-index gen-print bench-floor; do
	[ -x "$B/$p" ] || { echo "bench: no $B/$p; run make bench" >&2; exit 1; }
done

now() { date +%s.%N; }
# secs START END -> "1.234"
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# verdict VALUE TARGET -> "ok" when VALUE <= TARGET
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "ok" : "MISSED" }'; }
# timed NAME CMD... - run it; wall, user, sys seconds and peak RSS (KB)
# into NAME_wall, NAME_user, NAME_sys, NAME_rss
timed() {
	_n=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$W/.time" "$@"
	_rc=$?
	read -r _e _u _s _m <"$W/.time"
	eval "${_n}_wall=$_e ${_n}_user=$_u ${_n}_sys=$_s ${_n}_rss=$_m"
	return $_rc
}
# rm_big FILE... - remove them, and when one existed note the time (its
# pages are freed); settled - wait until BENCH_SETTLE seconds have
# passed since then (see the header)
SETTLE=${BENCH_SETTLE:-15}
FREED=0
rm_big() {
	for _rb in "$@"; do
		[ -e "$_rb" ] && FREED=$(date +%s)
	done
	rm -f "$@"
}
settled() {
	_left=$((FREED + SETTLE - $(date +%s)))
	[ "$_left" -gt 0 ] && sleep "$_left"
	return 0
}
# warm DIR - read every file under DIR once, so the page cache holds them
# all: the floor reads only the YAML, and a build also reads each
# table's ddl.sql and description.md (105,000 more files at 100,000
# tables, which the serve section's cold start evicts for the next run)
warm() {
	find "$1" -type f -exec cat {} + >/dev/null
}
# get NAME SIZE -> the figure NAME of size SIZE
get() { eval "echo \${${1}_$2:-?}"; }
# target DESCRIPTION VALUE OP LIMIT - one PASS/MISSED line (OP: le)
TARGETS=""
target() {
	_v=$(awk -v v="$2" -v t="$3" 'BEGIN { print (v != "?" && v + 0 <= t + 0) ? "PASS  " : "MISSED" }')
	TARGETS="$TARGETS$(printf '   %s %s (%s; target <= %s)' "$_v" "$1" "$2" "$3")
"
}

[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (Debian: time)" >&2; exit 1; }

# bench_index N - the dbprint-index figures of an N-table print, as
# shell variables suffixed _N
bench_index() {
	_nt=$1
	_p="$W/print-$_nt-$NC"
	_src="${BENCH_PRINTS:-}/print-$_nt-$NC"
	if [ -n "${BENCH_PRINTS:-}" ] && [ -f "$_src/prints/gen/manifest.yaml" ]; then
		# used in place: a copy of hard links would make every file
		# one the server must stat at every call (several links)
		_p=$_src
		echo "   using $_src in place"
	elif [ ! -f "$_p/prints/gen/manifest.yaml" ]; then
		rm -rf "$_p"
		_t0=$(now)
		"$B/gen-print" "$_p" "$_nt" "$NC" >/dev/null || return 1
		echo "   generated the $_nt-table print in $(secs "$_t0" "$(now)") s"
	fi
	eval "P_$_nt=\$_p"
	_i="$W/index-$_nt.sqlite"
	eval "I_$_nt=\$_i"
	rm_big "$_i" "$_i-wal" "$_i-shm" "$_i-journal"
	eval "yaml_$_nt=$(du -sb "$_p/prints/gen" | cut -f1)"

	# every file read first, so the floor and the build find the page
	# cache alike (the floor reads the YAML, the build every file)
	warm "$_p/prints"
	_f=$("$B/bench-floor" "$_p/prints/gen" 2) || return 1
	eval "$(echo "$_f" | awk -v n="$_nt" '{ printf "floor_wall_%s=%s floor_cpu_%s=%s", n, $6, n, $8 }')"

	settled
	timed full "$B/dbprint-index" --quiet --project "$_p" --index "$_i" || {
		echo "bench: the $_nt-table full build failed" >&2; return 1; }
	eval "full_wall_$_nt=$full_wall full_user_$_nt=$full_user full_sys_$_nt=$full_sys full_rss_$_nt=$full_rss"
	sqlite3 "$_i" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null 2>&1
	eval "size_$_nt=$(stat -c %s "$_i")"

	timed noch "$B/dbprint-index" --quiet --project "$_p" --index "$_i"
	eval "noch_wall_$_nt=$noch_wall noch_cpu_$_nt=$(awk -v u="$noch_user" -v s="$noch_sys" 'BEGIN { printf "%.2f", u + s }') noch_rss_$_nt=$noch_rss"

	# One table changed: a value count of table 1's statistics edited,
	# the file replaced by a rename; its bytes are put back after, and the
	# index brought up to date again for the later sections.
	_sf=$(find "$_p/prints/gen" -path '*t00001/statistics.yaml' | head -1)
	cp "$_sf" "$W/.orig-stats"
	sed 's/count: \([0-9]*\)$/count: 1\1/' "$_sf" >"$_sf.new" && mv "$_sf.new" "$_sf"
	timed one "$B/dbprint-index" --quiet --json --project "$_p" --index "$_i" >"$W/.j"
	# (not _s: timed sets it)
	cp "$W/.orig-stats" "$_sf.new" && mv "$_sf.new" "$_sf"
	"$B/dbprint-index" --quiet --project "$_p" --index "$_i" >/dev/null
	# The machine's own cost of putting that many new bytes in the page
	# cache: a file of the index's size written in 16 KB blocks (its
	# pages), nothing computed.  On a virtual machine whose memory the
	# host backs lazily this is most of a big build's system time.  Last,
	# as its pages push the print's out of the caches.
	# The same bytes written again over the same file's pages, now in
	# memory, tell the first touch of new memory from the copy itself.
	settled
	_nb=$(($(get size "$_nt") / 16384 + 1))
	timed wfloor dd if=/dev/zero of="$W/.wfloor" bs=16384 \
	    count="$_nb" 2>/dev/null
	timed wagain dd if=/dev/zero of="$W/.wfloor" bs=16384 \
	    count="$_nb" conv=notrunc 2>/dev/null
	rm_big "$W/.wfloor"
	eval "wfloor_sys_$_nt=$wfloor_sys wagain_sys_$_nt=$wagain_sys"
	eval "one_wall_$_nt=$one_wall one_cpu_$_nt=$(awk -v u="$one_user" -v s="$one_sys" 'BEGIN { printf "%.2f", u + s }') one_rss_$_nt=$one_rss"
	eval "parsed_$_nt=$(sed -n 's/.*"files_parsed": *\([0-9]*\).*/\1/p' "$W/.j")"
	return 0
}

SIZES=$NT
[ -n "$NBIG" ] && SIZES="$NT $NBIG"
echo "== dbprint-index: $(echo "$SIZES" | sed 's/ / and /') tables x $NC columns"
echo "   machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $SIZES; do
	bench_index "$n" || exit 1
done
# With a larger size, the smaller's floor and full build again, after
# it: the machine's speed drifts over a long run, and the ratio of the
# two builds takes the mean of the smaller's before and after.
if [ -n "$NBIG" ]; then
	warm "$P_10000/prints"
	_f=$("$B/bench-floor" "$P_10000/prints/gen" 2) || exit 1
	floor_wall2_10000=$(echo "$_f" | awk '{ print $6 }')
	_i2="$W/.index-again.sqlite"
	rm_big "$_i2" "$_i2-wal" "$_i2-shm" "$_i2-journal"
	settled
	timed again "$B/dbprint-index" --quiet --project "$P_10000" \
	    --index "$_i2" || { echo "bench: the second full build failed" >&2;
	    exit 1; }
	rm -f "$_i2" "$_i2-wal" "$_i2-shm" "$_i2-journal"
	full_wall2_10000=$again_wall full_user2_10000=$again_user
	full_wallm_10000=$(awk -v a="$full_wall_10000" -v b="$again_wall" \
	    'BEGIN { printf "%.2f", (a + b) / 2 }')
	eval "full_wallm_$NBIG=\$full_wall_$NBIG"
fi
P=$P_10000 I=$I_10000
if [ -n "$NBIG" ]; then
	PBIG=$(get P "$NBIG") IBIG=$(get I "$NBIG")
fi

# The table: one row per figure, one column per size.
row() {	# row LABEL UNIT NAME
	printf '   %-34s' "$1"
	for n in $SIZES; do
		printf ' %12s' "$(get "$3" "$n")$2"
	done
	echo
}
ratio() {	# ratio NAME A B -> A's figure over B's
	awk -v a="$(get "$1" "$2")" -v b="$(get "$1" "$3")" \
	    'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }'
}
for n in $SIZES; do
	eval "yamlmb_$n=$(awk -v y="$(get yaml "$n")" 'BEGIN { printf "%.0f", y / 1e6 }')"
	eval "sizemb_$n=$(awk -v y="$(get size "$n")" 'BEGIN { printf "%.0f", y / 1e6 }')"
	eval "ratio_$n=$(awk -v s="$(get size "$n")" -v y="$(get yaml "$n")" 'BEGIN { printf "%.2f", s / y }')"
	eval "mbs_$n=$(awk -v y="$(get yaml "$n")" -v t="$(get full_wall "$n")" 'BEGIN { printf "%.1f", y / 1e6 / t }')"
	eval "floorx_$n=$(awk -v a="$(get full_wall "$n")" -v b="$(get floor_wall "$n")" 'BEGIN { printf "%.2f", a / b }')"
	eval "sysr_$n=$(awk -v s="$(get full_sys "$n")" -v u="$(get full_user "$n")" 'BEGIN { printf "%.1f", 100 * s / u }')"
	eval "sysw_$n=$(awk -v s="$(get full_sys "$n")" -v w="$(get wfloor_sys "$n")" -v u="$(get full_user "$n")" 'BEGIN { d = s - w; if (d < 0) d = 0; printf "%.1f", 100 * d / u }')"
	for k in full noch one; do
		eval "${k}_mb_$n=$(awk -v m="$(get ${k}_rss "$n")" 'BEGIN { printf "%.0f", m / 1024 }')"
	done
	eval "rss_mb_$n=$(echo "$(get full_mb "$n") $(get noch_mb "$n") $(get one_mb "$n")" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i; print m }')"
done
printf '   %-34s' tables
for n in $SIZES; do printf ' %12s' "$n"; done
echo
row "YAML" " MB" yamlmb
row "floor: libyaml, 2 threads, wall" " s" floor_wall
row "floor: CPU" " s" floor_cpu
row "full build, wall" " s" full_wall
row "full build, user CPU" " s" full_user
row "full build, system CPU" " s" full_sys
row "full build, system / user" " %" sysr
row "writing the index's bytes alone, system" " s" wfloor_sys
row "  the same again over its pages" " s" wagain_sys
row "full build, (system - that) / user" " %" sysw
row "full build / floor, wall" "x" floorx
if [ -n "$NBIG" ]; then
	printf '   %-34s %12s\n' "again after $NBIG: floor, build" \
	    "$floor_wall2_10000 / $full_wall2_10000 s"
	printf '   %-34s %12s\n' "  full build / floor, wall" \
	    "$(awk -v a="$full_wall2_10000" -v b="$floor_wall2_10000" \
	    'BEGIN { printf "%.2fx", a / b }')"
	# The machine's own scaling, for the linearity target: the floor's
	# wall and the builds' user CPU at NBIG over their mean at NT.
	printf '   %-34s %12s\n' "$NBIG / $NT: floor wall, build user" \
	    "$(awk -v a="$(get floor_wall "$NBIG")" -v b="$floor_wall_10000" \
	    -v c="$floor_wall2_10000" -v u="$(get full_user "$NBIG")" \
	    -v v="$full_user_10000" -v w="$full_user2_10000" \
	    'BEGIN { printf "%.2fx / %.2fx", 2 * a / (b + c), 2 * u / (v + w) }')"
fi
row "full build, peak RSS" " MB" full_mb
row "full build, throughput" " MB/s" mbs
row "re-run, nothing changed, wall" " s" noch_wall
row "re-run, nothing changed, CPU" " s" noch_cpu
row "re-run, nothing changed, RSS" " MB" noch_mb
row "re-run, one table changed, wall" " s" one_wall
row "re-run, one table changed, CPU" " s" one_cpu
row "re-run, one table changed, RSS" " MB" one_mb
row "files re-parsed after one edit" "" parsed
row "index" " MB" sizemb
row "index / YAML" "x" ratio

target "full build at $NT, wall (s)" "$full_wall_10000" 10
target "full build at $NT / the floor's wall" "$floorx_10000" 1.5
target "re-run at $NT, nothing changed (s)" "$noch_wall_10000" 0.3
target "re-run at $NT, one table changed (s)" "$one_wall_10000" 0.5
for n in $SIZES; do
	target "system / user CPU, full build at $n (%)" "$(get sysr "$n")" 10
	target "peak RSS of dbprint-index at $n (MB)" "$(get rss_mb "$n")" 256
	target "index / YAML at $n" "$(get ratio "$n")" 2
done
if [ -n "$NBIG" ]; then
	target "full build at $NBIG / at $NT, its mean of two (linear: $(awk -v a="$NBIG" -v b="$NT" 'BEGIN { printf "%g", a / b }')x)" \
	    "$(ratio full_wallm "$NBIG" "$NT")" \
	    "$(awk -v a="$NBIG" -v b="$NT" 'BEGIN { printf "%.2f", a / b * 1.05 }')"
	target "re-run at $NBIG, nothing changed (s)" "$(get noch_wall "$NBIG")" 0.5
fi
printf '%s' "$TARGETS"
[ -n "${BENCH_INDEX_ONLY:-}" ] && exit 0

# ---- list_tables, search_columns, resolve_value (issue 4) ------------
# tests/bench-tools.sh, over the print and index built above.
. "$SRCDIR/tests/bench-tools.sh"
bench_tools "$P" "$I" "${PBIG:-}" "${IBIG:-}" || echo "bench: the issue-4 tools section failed" >&2

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

# bench-serve.sh - the dbprint-serve section of `make bench` (issue 3),
# sourced by tests/bench.sh, which calls bench_serve.  Needs BUILD (the
# build tree holding the programs) and SRCDIR.
#
# On the 10,000-table generated print, with its index up to date:
#   start to first initialize reply   target <= 20 ms
#   ping round trip over stdio, p50   target <= 50 us
#   resident memory                   target <= 30 MB
# plus the cost of a call that checks one file (list_tables) and of one
# that checks every statistics file (search_columns) for freshness.

bench_serve_ms() {	# bench_serve_ms COMMAND...: wall time in ms
	_t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	_t1=$(date +%s%N)
	echo $(( (_t1 - _t0) / 1000000 ))
}

bench_serve() {
	_b=$SRCDIR/$BUILD
	_w=${BENCH_DIR:-$(mktemp -d)}
	_p=$_w/serve10k
	echo "== dbprint-serve (issue 3)"
	[ -x "$_b/gen-print" ] || cc -O2 -o "$_b/gen-print" \
	    "$SRCDIR/fixtures/gen-print.c" || return 1
	cc -std=c11 -D_GNU_SOURCE -O2 -o "$_b/bench-rpc" \
	    "$SRCDIR/tests/bench-rpc.c" || return 1
	if [ ! -f "$_p/.dbprint.yaml" ]; then
		"$_b/gen-print" "$_p" 10000 8 >/dev/null || return 1
	fi
	# Build the index once; every run below finds it up to date.
	(cd "$_p" && "$_b/dbprint-serve" --call list_tables \
	    '{"pattern": "none"}' >/dev/null) || return 1
	_best_init=""; _best_p50=""; _rss=""
	for _i in 1 2 3 4 5; do
		_out=$(cd "$_p" && "$_b/bench-rpc" 20000 "$_b/dbprint-serve") ||
		    { echo "bench-rpc failed"; return 1; }
		_init=$(printf '%s\n' "$_out" | awk '$1 == "start_to_initialize_ms" { print $2 }')
		_p50=$(printf '%s\n' "$_out" | awk '$1 == "ping_p50_us" { print $2 }')
		_p99=$(printf '%s\n' "$_out" | awk '$1 == "ping_p99_us" { print $2 }')
		_r=$(printf '%s\n' "$_out" | awk '$1 == "max_rss_kb" { print $2 }')
		echo "   run $_i: initialize ${_init} ms, ping p50 ${_p50} us, p99 ${_p99} us, rss ${_r} KB"
		_best_init=$(echo "$_best_init $_init" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
		_best_p50=$(echo "$_best_p50 $_p50" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
		_rss=$(echo "$_rss $_r" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i; print m }')
	done
	echo "start to first initialize reply: $_best_init ms (best of 5; target <= 20)"
	echo "ping round trip p50:             $_best_p50 us (best of 5; target <= 50)"
	echo "peak resident memory:            $_rss KB (target <= 30720)"
	echo "list_tables detail (1 file checked):  $(cd "$_p" && bench_serve_ms \
	    "$_b/dbprint-serve" --call list_tables '{"detail": true}') ms, start included"
	echo "search_columns (10,000 stats checked): $(cd "$_p" && bench_serve_ms \
	    "$_b/dbprint-serve" --call search_columns '{"pattern": "id"}') ms, start included"
	awk -v i="$_best_init" -v p="$_best_p50" -v r="$_rss" 'BEGIN {
		bad = (i > 20) + (p > 50) + (r > 30720)
		print (bad ? "dbprint-serve: MISSED a target" : "dbprint-serve: every target met")
	}'
	[ -n "${BENCH_DIR:-}" ] || rm -rf "$_w"
}

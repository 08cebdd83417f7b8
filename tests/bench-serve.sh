# bench-serve.sh - the dbprint-serve section of `make bench` (issue 3),
# sourced by tests/bench.sh:  bench_serve PRINT INDEX
# PRINT is the generated project tests/bench.sh made (10,000 tables), INDEX
# its index; B (the build tree) and SRCDIR come from tests/bench.sh.
#
# With the index up to date:
#   start to first initialize reply   target <= 20 ms
#   ping round trip over stdio, p50   target <= 50 us
#   resident memory                   target <= 30 MB
# plus, for the freshness checks of spec 7.1, the cost of a call that
# checks one file (list_tables) and of one that checks every table's
# statistics files (search_columns), process start included.

bench_serve_ms() {	# bench_serve_ms COMMAND...: wall time in ms
	_t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	_t1=$(date +%s%N)
	echo $(( (_t1 - _t0) / 1000000 ))
}

bench_serve() {
	_p=$1 _i=$2
	_s="$B/dbprint-serve"
	echo "== dbprint-serve: stdio (issue 3)"
	cc -std=c11 -O2 -o "$B/bench-rpc" \
	    "$SRCDIR/tests/bench-rpc.c" || return 1
	# Bring the index up to date once; every run below finds it current.
	"$_s" --project "$_p" --index "$_i" --call list_tables \
	    '{"pattern": "none"}' >/dev/null || return 1
	_best_init="" _best_p50="" _rss="" _all_init=""
	for _n in 1 2 3 4 5; do
		_out=$("$B/bench-rpc" 20000 "$_s" --project "$_p" --index "$_i") ||
		    { echo "bench: bench-rpc failed" >&2; return 1; }
		_init=$(printf '%s\n' "$_out" | awk '$1 == "start_to_initialize_ms" { print $2 }')
		_p50=$(printf '%s\n' "$_out" | awk '$1 == "ping_p50_us" { print $2 }')
		_p99=$(printf '%s\n' "$_out" | awk '$1 == "ping_p99_us" { print $2 }')
		_r=$(printf '%s\n' "$_out" | awk '$1 == "max_rss_kb" { print $2 }')
		echo "   run $_n: initialize ${_init} ms, ping p50 ${_p50} us, p99 ${_p99} us, peak RSS ${_r} KB"
		_all_init="$_all_init $_init"
		_best_init=$(echo "$_best_init $_init" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
		_best_p50=$(echo "$_best_p50 $_p50" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }')
		_rss=$(echo "$_rss $_r" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i; print m }')
	done
	printf '   %-34s %10s %8s  %s\n' figure value target verdict
	printf '   %-34s %7s ms %5s ms  %s\n' "start to first initialize (best)" \
	    "$_best_init" 20 "$(verdict "$_best_init" 20)"
	printf '   %-34s %7s ms\n' "start to first initialize (median)" \
	    "$(echo $_all_init | tr ' ' '\n' | sort -n | sed -n 3p)"
	printf '   %-34s %7s us %5s us  %s\n' "ping round trip p50 (best)" \
	    "$_best_p50" 50 "$(verdict "$_best_p50" 50)"
	printf '   %-34s %7s KB %5s KB  %s\n' "peak resident memory (worst)" \
	    "$_rss" 30720 "$(verdict "$_rss" 30720)"
	echo "   list_tables, 1 file checked:        $(bench_serve_ms "$_s" \
	    --project "$_p" --index "$_i" --call list_tables '{"pattern": "none"}') ms, process start included"
	echo "   search_columns, every stats checked: $(bench_serve_ms "$_s" \
	    --project "$_p" --index "$_i" --call search_columns '{"pattern": "none"}') ms, process start included"
}

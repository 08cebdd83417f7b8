# bench-ctx.sh - the get_table_context section of `make bench` (issue 6),
# sourced by tests/bench.sh, which calls
#
#	bench_context PROJECT INDEX
#
# with the generated 10,000-table x 30-column project it already built and
# indexed.  Needs SRCDIR and BUILD.  BENCH_REPEAT sets the timed calls per
# figure (default 200).
#
# Over stdio against one warm server (tests/bench-ctx.c), for a 30-column
# table of that print: p50 and p90 wall time per call, and the server's
# own CPU time per call (what a loaded machine does not inflate).
#   get_table_context, default (md, profile)     target p50 <= 3 ms
#   and, for reference: md query, json profile, yaml query.

bench_context() {
	_cb=$SRCDIR/$BUILD
	_cp=$1 _ci=$2
	_ct=gen.s000.t00042
	echo "== get_table_context (issue 6): $_ct, 30 columns, of the generated print"
	cc -std=c11 -O2 -o "$_cb/bench-ctx" \
	    "$SRCDIR/tests/bench-ctx.c" || return 1
	printf '   %-28s %9s %9s %9s %8s  %s\n' figure p50 p90 cpu target verdict
	for _cv in "md profile (default)|{\"table\":\"$_ct\"}|3" \
	    "md query|{\"table\":\"$_ct\",\"purpose\":\"query\"}|-" \
	    "json profile|{\"table\":\"$_ct\",\"format\":\"json\"}|-" \
	    "yaml query|{\"table\":\"$_ct\",\"format\":\"yaml\",\"purpose\":\"query\"}|-"; do
		_cl=${_cv%%|*}
		_ca=${_cv#*|}
		_ctg=${_ca##*|}
		_ca=${_ca%|*}
		_cr=$("$_cb/bench-ctx" "${BENCH_REPEAT:-200}" get_table_context \
		    "$_ca" -- "$_cb/dbprint-serve" --project "$_cp" \
		    --index "$_ci") || { echo "bench: $_cl failed" >&2; return 1; }
		set -- $_cr
		# p50_us X p90_us Y max_us Z cpu_us C reply_bytes B error E
		_c50=$(awk -v u="$2" 'BEGIN { printf "%.2f", u / 1000 }')
		_c90=$(awk -v u="$4" 'BEGIN { printf "%.2f", u / 1000 }')
		_ccpu=$(awk -v u="$8" 'BEGIN { printf "%.2f", u / 1000 }')
		if [ "${12}" != 0 ]; then
			_cvd="ERROR (the call failed)"
		elif [ "$_ctg" = - ]; then
			_cvd=""
		else
			_cvd=$(awk -v v="$_c50" -v t="$_ctg" \
			    'BEGIN { print (v <= t) ? "ok" : "MISSED" }')
		fi
		_ctd=""
		[ "$_ctg" = - ] || _ctd="${_ctg}ms"
		printf '   %-28s %7sms %7sms %7sms %8s  %s\n' "$_cl" "$_c50" \
		    "$_c90" "$_ccpu" "$_ctd" "$_cvd"
	done
	echo "   (wall times include the pipe round trip; on a loaded machine" \
	    "compare the cpu column, load average $(cut -d' ' -f1-3 /proc/loadavg))"
}

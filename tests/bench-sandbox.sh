# bench-sandbox.sh - the sandbox section of `make bench` (issue 16),
# sourced by tests/bench.sh, which calls
#
#	bench_sandbox PROJECT INDEX
#
# with the generated 10,000 x 30 project it built and indexed.  Needs
# BUILD and SRCDIR, and the bench-tools program bench-tools.sh builds.
#
# The same four calls over stdio, with the sandbox on (the default) and
# off (DBPRINT_NO_SANDBOX=1), three rounds in turn so that a drift of the
# machine's speed falls on both; per call the least of the three p50s
# (a busy machine only ever adds time) and of the three server CPU
# figures, and the p50 ratio on/off.  Target: every ratio <= 1.10 (within
# noise).

bench_sandbox() {
	_b=$SRCDIR/$BUILD
	_p=$1 _db=$2
	echo "== the sandbox's cost (issue 16): p50 with it on and off"
	[ -x "$_b/bench-tools" ] || { echo "no $_b/bench-tools"; return 1; }
	_o=$(mktemp -d)
	for _r in 1 2 3; do
		for _m in on off; do
			if [ $_m = off ]; then _env=DBPRINT_NO_SANDBOX=1; else
				_env=DBPRINT_NO_SANDBOX=0; fi
			env $_env "$_b/bench-tools" "${BENCH_REPEAT:-50}" \
			    'list_tables=list_tables={}' \
			    'list_tables_detail=list_tables={"detail":true}' \
			    'search_text=search_columns={"text":"refund"}' \
			    'search_sensitivity=search_columns={"sensitivity":"*"}' \
			    -- "$_b/dbprint-serve" --project "$_p" --index "$_db" \
			    gen >>"$_o/$_m" || { rm -rf "$_o"; return 1; }
		done
	done
	# label on-median off-median, per call
	awk '
	FNR == 1 { m = FILENAME ~ /on$/ ? "on" : "off" }
	# bench-tools lines of the server itself (idle steps, peak RSS) are
	# not calls
	$1 == "server" { next }
	{
		k = m SUBSEP $1
		if (!(k in p) || $3 < p[k]) p[k] = $3
		if (!(k in c) || $9 < c[k]) c[k] = $9
		seen[$1] = 1
	}
	END {
		for (l in seen) {
			on = p["on", l]; off = p["off", l]
			r = off > 0 ? on / off : 1
			printf "   %-20s p50 on %6d us  off %6d us  ratio %.2f" \
			    "  cpu on %5d  off %5d us/call  %s\n", l, on, off, r,
			    c["on", l], c["off", l], r <= 1.10 ? "ok" : "MISSED"
		}
	}' "$_o/on" "$_o/off" | sort
	rm -rf "$_o"
}

# bench-http.sh - the HTTP transport section of `make bench` (issue 8),
# sourced by tests/bench.sh, which calls
#
#	bench_http PROJECT INDEX
#
# with the generated 10,000-table x 30-column project it already built
# and indexed.  Needs BUILD and SRCDIR.  BENCH_HTTP_SECS sets the load
# run's length (default 10 s).
#
# dbprint-serve --transport http on a free loopback port, driven by
# tests/bench-http.c (plain sockets, keep-alive):
#   32 concurrent clients, list_tables first page (2026-07-28 stateless)
#     throughput                       target >= 3,000 requests/s
#     p99 latency                      target <= 20 ms
#     errors                           target 0
#     server resident memory           target <= 50 MB
#   500 idle open connections          target <= 20 MB more
# plus the server CPU per list_tables request, and the transport's own
# ceiling: the same 32 clients on server/discover (no print file read).

# CPU seconds (user + system) process PID has used so far.
bench_http_cpu() {
	awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' \
	    "/proc/$1/stat"
}

bench_http() {
	_b=$SRCDIR/$BUILD
	_p=$1 _db=$2
	_w=$(mktemp -d)
	echo "== dbprint-serve --transport http (issue 8)"
	cc -std=c11 -O2 -o "$_b/bench-http" \
	    "$SRCDIR/tests/bench-http.c" -lpthread || return 1
	"$_b/dbprint-serve" --project "$_p" --index "$_db" gen \
	    --transport http --port 0 2>"$_w/err" &
	_pid=$!
	_i=0
	while [ $_i -lt 600 ] && ! grep -qs 'listening on' "$_w/err"; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_port=$(sed -n 's|.*listening on http://[^:]*:\([0-9]*\)/mcp.*|\1|p' \
	    "$_w/err")
	if [ -z "$_port" ]; then
		cat "$_w/err"
		kill "$_pid" 2>/dev/null
		return 1
	fi
	printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tables","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
	    >"$_w/body"
	set -- "MCP-Protocol-Version: 2026-07-28" "Mcp-Method: tools/call" \
	    "Mcp-Name: list_tables"
	# warm up, then measure
	"$_b/bench-http" load "$_port" 4 1 "$_w/body" "$@" >/dev/null
	_cpu0=$(bench_http_cpu "$_pid")
	_load=$("$_b/bench-http" load "$_port" 32 "${BENCH_HTTP_SECS:-10}" \
	    "$_w/body" "$@")
	_rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$_pid/status")
	_cpu1=$(bench_http_cpu "$_pid")
	printf '%s' '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
	    >"$_w/sd"
	_tl=$(BH_EXPECT='"supportedVersions"' "$_b/bench-http" load "$_port" \
	    32 "${BENCH_HTTP_SECS:-10}" "$_w/sd" \
	    "MCP-Protocol-Version: 2026-07-28" "Mcp-Method: server/discover")
	_cpu2=$(bench_http_cpu "$_pid")
	_idle=$("$_b/bench-http" idle "$_port" 500 "$_w/body" "$_pid" "$@")
	kill -TERM "$_pid"
	wait "$_pid"
	_rc=$?
	# "requests N errors E rps R p50_ms A p99_ms B max_ms C"
	set -- $_load
	_n=$2 _err=$4 _rps=$6 _p50=$8 _p99=${10} _max=${12}
	set -- $_idle
	_ok=$4 _before=$6 _with=$8
	_rssmb=$(awk -v k="$_rss" 'BEGIN { printf "%.1f", k / 1024 }')
	_more=$(awk -v a="$_before" -v b="$_with" \
	    'BEGIN { printf "%.1f", (b - a) / 1024 }')
	echo "   machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '   %-36s %12s %10s  %s\n' figure value target verdict
	printf '   %-36s %12s %10s  %s\n' "list_tables, 32 clients: requests/s" \
	    "$_rps" ">= 3000" \
	    "$(awk -v v="$_rps" 'BEGIN { print (v >= 3000) ? "ok" : "MISSED" }')"
	printf '   %-36s %10s ms %7s ms  %s\n' "p99 latency (p50 $_p50 ms)" \
	    "$_p99" 20 "$(verdict "$_p99" 20)"
	printf '   %-36s %12s %10s  %s\n' "errors (of $_n requests)" "$_err" 0 \
	    "$(verdict "$_err" 0)"
	printf '   %-36s %10s MB %7s MB  %s\n' "peak resident memory under load" \
	    "$_rssmb" 50 "$(verdict "$_rssmb" 50)"
	printf '   %-36s %10s MB %7s MB  %s\n' "500 idle connections ($_ok answered)" \
	    "+$_more" 20 "$(verdict "$_more" 20)"
	echo "   slowest request $_max ms; SIGTERM exit status $_rc"
	awk -v c="$_cpu1" -v d="$_cpu0" -v n="$_n" 'BEGIN {
	    printf "   server CPU per list_tables request: %.2f ms\n",
	    (c - d) * 1000 / n }'
	# The transport's own ceiling: the same 32 clients on
	# server/discover, which reads no print file and pages nothing.
	set -- $_tl
	echo "   transport ceiling (server/discover, 32 clients): $6" \
	    "requests/s, p50 $8 ms, p99 ${10} ms, $4 errors of $2;" \
	    "$(awk -v c="$_cpu2" -v d="$_cpu1" -v n="$2" 'BEGIN {
	    printf "%.3f", (c - d) * 1000 / n }') ms server CPU each"
	rm -rf "$_w"
}

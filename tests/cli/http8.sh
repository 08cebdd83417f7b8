# http8.sh - helpers shared by the t8* HTTP transport tests.  Source it
# after tests/lib.sh.  Skips the whole test (exit 0) when curl is absent.
#
#   demo_copy               (tests/lib.sh) copy fixtures/demo to $T/p
#   http_start [ARGS...]    start dbprint-serve --transport http --port 0
#                           on project $P (plus ARGS) in the background;
#                           sets $SPID, $PORT, $U (the /mcp URL), $B (the
#                           base URL); its stderr is $T/serve.err
#   http_stop               SIGTERM it, wait; its exit status in $src
#   req [CURL ARGS...]      one request: status in $code, headers in
#                           $T/hdr, body in $T/body (and $body)
#   post JSON [HEADERS...]  POST JSON to $U as a client would
#   hdr NAME                the value of response header NAME ("" if none)

if ! command -v curl >/dev/null 2>&1; then
	skip "curl is not installed"
	exit 0
fi

http_start() {
	: >"$T/serve.err"
	$VG "$SERVE" --project "$P" --transport http --port 0 "$@" \
	    2>"$T/serve.err" &
	SPID=$!
	_i=0
	while [ $_i -lt 600 ]; do
		grep -q 'listening on' "$T/serve.err" && break
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.05
		_i=$((_i + 1))
	done
	PORT=$(sed -n 's|.*listening on http://[^:]*:\([0-9]*\)/mcp.*|\1|p' \
	    "$T/serve.err" | head -1)
	B=http://127.0.0.1:$PORT
	U=$B/mcp
}

http_stop() {
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID"
	src=$?
}

req() {
	code=$(curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' \
	    --max-time 20 "$@")
	body=$(cat "$T/body")
}

post() {
	_j=$1
	shift
	req -X POST "$U" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' "$@" \
	    --data-binary "$_j"
}

hdr() {
	tr -d '\r' <"$T/hdr" | sed -n "s/^$1: *//Ip" | tail -1
}

# The 2026-07-28 request envelope's _meta.
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t8","version":"0"}}'
MV='MCP-Protocol-Version: 2026-07-28'
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t8","version":"0"}}}'

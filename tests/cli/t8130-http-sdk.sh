#!/bin/sh
# t8130-http-sdk.sh - end to end over HTTP with the official MCP TypeScript
# SDK client (@modelcontextprotocol/sdk, pinned by tests/e2e): the checks
# of t2120 (stdio) over StreamableHTTPClientTransport, and again over the
# upstream HTTP+SSE pair with SSEClientTransport; then SIGTERM, exit 0.
# Skips when node or tests/e2e/node_modules is absent (`npm ci` in
# tests/e2e installs it).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/http8.sh"

E2E=$SRCDIR/tests/e2e
if ! command -v node >/dev/null 2>&1; then
	skip "node is not installed"
	exit 0
fi
if [ ! -d "$E2E/node_modules/@modelcontextprotocol/sdk" ]; then
	skip "tests/e2e/node_modules absent (run npm ci in tests/e2e)"
	exit 0
fi

demo_copy
http_start
(cd "$E2E" && node sdk-http.mjs "$B") >"$T/sdk.out" 2>"$T/sdk.err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"PASS "*) ok "sdk: ${line#PASS }" ;;
	"FAIL "*) fail "sdk: ${line#FAIL }" "$(tail -20 "$T/sdk.err")" ;;
	esac
done <"$T/sdk.out"
check_eq "sdk: the client script ran every check and exited 0" "0 31" \
    "$rc $(grep -c '^PASS ' "$T/sdk.out")"
http_stop
check_eq "SIGTERM after the clients left: exit 0" 0 "$src"

#!/bin/sh
# t2120-serve-sdk.sh - end to end with the official MCP TypeScript SDK
# client (@modelcontextprotocol/sdk, pinned by tests/e2e/package-lock.json):
# connect over stdio, list tools, call tools, close, and the server exits
# 0.  Skips when node or tests/e2e/node_modules is absent (`npm ci` in
# tests/e2e installs it; .ci/run does).
. "$SRCDIR/tests/lib.sh"

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

# Under valgrind the server is started through a wrapper script.
CMD=$SERVE
if [ -n "$VG" ]; then
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$VG" "$SERVE" >"$T/serve.sh"
	chmod +x "$T/serve.sh"
	CMD=$T/serve.sh
fi
(cd "$E2E" && node sdk-stdio.mjs "$CMD" "$P") >"$T/sdk.out" 2>"$T/sdk.err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"PASS "*) ok "sdk: ${line#PASS }" ;;
	"FAIL "*) fail "sdk: ${line#FAIL }" "$(tail -20 "$T/sdk.err")" ;;
	esac
done <"$T/sdk.out"
check_eq "sdk: the client script ran every check and exited 0" "0 11" \
    "$rc $(grep -c '^PASS ' "$T/sdk.out")"

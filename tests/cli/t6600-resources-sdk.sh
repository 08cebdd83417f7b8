#!/bin/sh
# t6600-resources-sdk.sh - resources end to end with the official MCP
# TypeScript SDK client (tests/e2e/sdk-resources.mjs): list every page,
# templates, a long file read page by page and rebuilt, an error as a
# JSON-RPC error.  Skips when node or tests/e2e/node_modules is absent.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/print6.sh"

E2E=$SRCDIR/tests/e2e
if ! command -v node >/dev/null 2>&1; then
	skip "node is not installed"
	exit 0
fi
if [ ! -d "$E2E/node_modules/@modelcontextprotocol/sdk" ]; then
	skip "tests/e2e/node_modules absent (run npm ci in tests/e2e)"
	exit 0
fi

P=$T/rich
cp -R "$FIX/rich" "$P"
LONG=$P/prints/main/depot/stock/product_spec/description.md

CMD=$SERVE
if [ -n "$VG" ]; then
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$VG" "$SERVE" >"$T/serve.sh"
	chmod +x "$T/serve.sh"
	CMD=$T/serve.sh
fi
(cd "$E2E" && node sdk-resources.mjs "$CMD" "$P" \
    dbprint://main/depot.stock.product_spec/description "$LONG") \
    >"$T/sdk.out" 2>"$T/sdk.err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"PASS "*) ok "sdk: ${line#PASS }" ;;
	"FAIL "*) fail "sdk: ${line#FAIL }" "$(tail -20 "$T/sdk.err")" ;;
	esac
done <"$T/sdk.out"
check_eq "sdk: the client script ran every check and exited 0" "0 6" \
    "$rc $(grep -c '^PASS ' "$T/sdk.out")"

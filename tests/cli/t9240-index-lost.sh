#!/bin/sh
# t9240-index-lost.sh - the index file deleted under a running server
# while its -wal and -shm stay (issue 19): the next call notices the path
# no longer names the file its handle opened and rebuilds the index there
# in the same call (ixopen.c), over stdio and over HTTP with its worker
# handles; a file replaced under the server is opened anew.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/fuzz/serve.sh"

demo_copy
I=$P/.dbprint/index/demo.sqlite
BOOK=$P/prints/demo/bookshop/store/book
Q='{"table": "bookshop.store.book", "format": "json"}'

# --- stdio ---------------------------------------------------------------
srv_start --project "$P"
srv_call get_table_context "$Q"
check_eq "before: the call answers" false "$RE"
printf '%s' "$RT" >"$T/base"
check "before: the index and its -shm are on disk" \
    test -s "$I" -a -e "$I-shm" -a -e "$I-wal"

rm -f "$I"
check "the main file alone is gone (its -wal and -shm stay)" \
    test ! -e "$I" -a -e "$I-shm" -a -e "$I-wal"
srv_call get_table_context "$Q"
check_eq "after the deletion: a normal answer, not isError" false "$RE"
printf '%s' "$RT" >"$T/a1"
check_file "... the same answer as before" "$T/base" "$T/a1"
check "... and the index file exists again" test -s "$I"
check_eq "... whole (integrity_check)" ok \
    "$(sqlite3 "$I" 'PRAGMA integrity_check' 2>&1)"
check_contains "the server said what it did" \
    "was deleted; rebuilding it" "$(cat "$T/srv.err")"

# The rebuilt index is the one written to: a change is re-indexed into it.
sed -i 's/^row_count: .*/row_count: 424242/' "$BOOK/statistics.yaml"
srv_call get_table_context "$Q"
check_contains "a print change after the rebuild is answered" 424242 "$RT"
check_eq "... and written to the new file" 424242 \
    "$(sqlite3 "$I" "SELECT count(*) FROM files" >/dev/null &&
    sqlite3 "$I" "SELECT stats_row_count FROM tables WHERE fqn LIKE '%.book'")"

rm -f "$I"
srv_rpc '{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"dbprint://demo/bookshop.store.book/statistics"}}'
check_contains "resources/read after a second deletion answers" \
    424242 "$R"
check "... and rebuilt the file" test -s "$I"

# Replaced: another index written elsewhere and renamed over the path.
"$INDEX" --quiet --project "$P" --index "$T/other.sqlite"
sed -i 's/^row_count: .*/row_count: 515151/' "$BOOK/statistics.yaml"
mv "$T/other.sqlite" "$I"
srv_call get_table_context "$Q"
check_contains "an index replaced under the server: the new file serves" \
    515151 "$RT"
check_contains "... and the server said so" "was replaced" \
    "$(cat "$T/srv.err")"
srv_stop
check_eq "stdio: exit 0 at EOF" 0 "$SRV_RC"

# --- HTTP, several worker handles -----------------------------------------
# (http8.sh ends the test here when curl is absent.)
. "$SRCDIR/tests/cli/http8.sh"
http_start
HP=$SPID
trap 'kill "$HP" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t9240","version":"0"}}'
hcall() {
	curl -s --max-time 60 -X POST "$U" -H 'Content-Type: application/json' \
	    -H 'Accept: application/json, text/event-stream' \
	    -H 'MCP-Protocol-Version: 2026-07-28' \
	    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_table_context' \
	    --data-binary "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_table_context\",\"arguments\":$Q,$META}}"
}
hcall 1 | jq -r '.result.isError' >"$T/h0"
check_eq "HTTP: before, the call answers" false "$(cat "$T/h0")"
rm -f "$I"
# Concurrent calls land on several workers, each with its own handle.
pids=
for k in 2 3 4 5 6 7; do
	hcall $k >"$T/h$k" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
bad=0
for k in 2 3 4 5 6 7; do
	[ "$(jq -r '.result.isError' <"$T/h$k" 2>/dev/null)" = false ] &&
	    grep -q 515151 "$T/h$k" || bad=$((bad + 1))
done
check_eq "HTTP: six calls at once after the deletion all answer" 0 "$bad"
check "HTTP: the index file exists again" test -s "$I"
check_eq "HTTP: ... whole (integrity_check)" ok \
    "$(sqlite3 "$I" 'PRAGMA integrity_check' 2>&1)"
kill -TERM "$HP"
wait "$HP"
check_eq "HTTP: SIGTERM, exit 0" 0 "$?"
check_eq "no sanitizer report" 0 \
    "$(cat "$T/srv.err" "$T/serve.err" | grep -c 'ERROR: AddressSanitizer\|runtime error:')"

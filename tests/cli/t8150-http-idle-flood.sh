#!/bin/sh
# t8150-http-idle-flood.sh - 2,000 idle loopback connections that never
# send a byte do not stop dbprint-serve --transport http from serving a
# well-behaved client (issue 19): an initialize and a tools/call each
# answer within a second while they are held open, because the oldest
# silent connection is closed when the connection count reaches
# three quarters of the limit (dbprint-serve(1), HTTP).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/http8.sh"

IC="$BUILD_ABS/idle-conns"
if [ ! -x "$IC" ]; then
	skip "no $IC"
	exit 0
fi
N=2000
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt $((N + 64)) ]; then
	skip "the descriptor limit ($(ulimit -Hn)) is under $N"
	exit 0
fi

demo_copy
http_start --log-level info
check "the server listens" test -n "$PORT"
ICP=
# Whatever happens, the holder and the server end with the test.
trap 'exec 4>&-; [ -n "$ICP" ] && kill "$ICP" 2>/dev/null;
    kill "$SPID" 2>/dev/null; rm -rf "$T"' EXIT INT TERM

# The idle connections: held until idle.in is closed.
mkfifo "$T/idle.in"
"$IC" "$PORT" $N <"$T/idle.in" >"$T/idle.out" 2>"$T/idle.err" &
ICP=$!
exec 4>"$T/idle.in"
i=0
while [ $i -lt 300 ] && ! grep -q '^open' "$T/idle.out"; do
	kill -0 "$ICP" 2>/dev/null || break
	sleep 0.1; i=$((i + 1))
done
check_eq "$N idle connections are open" "open $N" \
    "$(grep '^open' "$T/idle.out")"

# The holder paces its connects so that the server accepts them all
# (idle-conns.c); wait until it has accepted enough to evict, so that the
# client below meets the pressure the test is about.
i=0
while [ $i -lt 150 ] && ! grep -q 'never sent a byte' "$T/serve.err"; do
	sleep 0.1; i=$((i + 1))
done

# A well-behaved client, each request on a new connection.
code=$(curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' --max-time 1 \
    -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' --data-binary "$INIT")
check_eq "initialize answers within a second" 200 "$code"
SID=$(hdr Mcp-Session-Id)
code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 1 \
    -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25' \
    --data-binary '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}')
check_eq "a tools/call answers within a second" "200 false 5" \
    "$code $(jq -r '"\(.result.isError) \(.result.content[0].text | fromjson | .total)"' <"$T/body")"
check_contains "the server said it closed silent connections" \
    "never sent a byte" "$(cat "$T/serve.err")"

exec 4>&-
wait "$ICP"
check_eq "the idle holder ended cleanly" 0 $?
closed=$(sed -n 's/^closed //p' "$T/idle.out")
check "... and the server had closed some of its connections ($closed)" \
    test "${closed:-0}" -gt 0

post "$INIT"
check_eq "the server still serves afterwards" 200 "$code"
http_stop
check_eq "SIGTERM: exit 0" 0 "$src"
check_eq "no sanitizer report" 0 \
    "$(grep -c 'ERROR: AddressSanitizer\|runtime error:' "$T/serve.err")"

#!/bin/sh
# t8100-http-hardening.sh - dbprint-serve --transport http over a real
# loopback socket: startup checks, then every rule answered before a body
# is parsed (spec 6.2): Host -> 421, Origin -> 403, body size -> 413 (with
# and without Content-Length), a JSON array -> 400 with a JSON-RPC error,
# JSON read by stdio's rules (a raw control byte -> -32700, ids echoed as
# spelled), unknown paths and methods, and no redirect, cookie or CORS
# header ever.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/http8.sh"

demo_copy

# --- startup ------------------------------------------------------------
out=$($VG "$SERVE" --project "$P" --transport http --host 10.0.0.1 --port 1 \
    </dev/null 2>&1); rc=$?
check_eq "a non-loopback --host is refused at startup" \
    "1 --host must be loopback (['127.0.0.1', '::1', 'localhost']); got '10.0.0.1'." \
    "$rc $out"

http_start
check "--port 0: a free port is chosen and printed on stderr" \
    test -n "$PORT"
case "$(cat "$T/serve.err")" in
*"listening on http://127.0.0.1:$PORT/mcp"*) ok "the listening line names the /mcp URL" ;;
*) fail "the listening line names the /mcp URL" "$(cat "$T/serve.err")" ;;
esac

out=$($VG "$SERVE" --project "$P" --transport http --port "$PORT" \
    </dev/null 2>&1); rc=$?
check_contains "a port in use: exit 1 with the reason" \
    "cannot listen on 127.0.0.1:$PORT: Address already in use" "$rc $out"
check_eq "a port in use: exit status 1" 1 "$rc"

# --- Host (DNS rebinding) -------------------------------------------------
post "$INIT"
check_eq "Host 127.0.0.1:PORT is served" 200 "$code"
post "$INIT" -H "Host: localhost:$PORT"
check_eq "Host localhost:PORT is served" 200 "$code"
post "$INIT" -H "Host: [::1]:$PORT"
check_eq "Host [::1]:PORT is served" 200 "$code"
post "$INIT" -H "Host: evil.example.com"
check_eq "Host evil.example.com -> 421" 421 "$code"
check_eq "the 421 body is a JSON-RPC error" -32600 \
    "$(printf '%s' "$body" | jq -r .error.code)"
post "$INIT" -H "Host: evil.example.com:$PORT"
check_eq "a foreign name on our port -> 421" 421 "$code"
post "$INIT" -H "Host: 127.0.0.1:1"
check_eq "loopback with another port -> 421" 421 "$code"
post "$INIT" -H "Host: 127.0.0.1"
check_eq "loopback without the port -> 421" 421 "$code"
req -X GET "$B/sse" -H "Host: attacker.test"
check_eq "the /sse endpoint checks Host too" 421 "$code"
raw=$(printf 'POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}' |
    timeout 5 curl -s --max-time 5 "telnet://127.0.0.1:$PORT" 2>/dev/null | head -1)
check_contains "HTTP/1.0 without any Host -> 421" " 421 " "$raw"

# --- Content-Length (RFC 9112 6.3) ---------------------------------------
# raw_cl CL1 CL2: the status line of an initialize sent with two
# Content-Length headers.
raw_cl() {
	printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
	    "$PORT" "$1" "$2" "$INIT" |
	    timeout 5 curl -s --max-time 5 "telnet://127.0.0.1:$PORT" \
	    2>/dev/null | head -1 | tr -d '\r'
}
n=$(printf '%s' "$INIT" | wc -c | tr -d ' ')
check_eq "two Content-Length headers that differ -> 400" \
    "HTTP/1.1 400 Bad Request" "$(raw_cl "$n" $((n - 1)))"
check_eq "two equal Content-Length headers are one -> 200" \
    "HTTP/1.1 200 OK" "$(raw_cl "$n" "$n")"
post "$INIT"
check_eq "the server answers after a refused Content-Length" 200 "$code"

# --- Origin ---------------------------------------------------------------
post "$INIT" -H "Origin: http://evil.example.com"
check_eq "a foreign Origin -> 403" 403 "$code"
post "$INIT" -H "Origin: null"
check_eq "Origin: null -> 403" 403 "$code"
post "$INIT" -H "Origin: https://127.0.0.1:$PORT"
check_eq "an https:// loopback Origin -> 403" 403 "$code"
post "$INIT" -H "Origin: http://localhost:$PORT"
check_eq "Origin http://localhost:PORT is served" 200 "$code"
post "$INIT" -H "Origin: http://127.0.0.1:$PORT"
check_eq "Origin http://127.0.0.1:PORT is served" 200 "$code"
post "$INIT" -H "Host: evil.example.com" -H "Origin: http://evil.example.com"
check_eq "Host is checked before Origin" 421 "$code"

# --- size, before the body is read -----------------------------------------
head -c 4194400 /dev/zero | tr '\0' ' ' >"$T/big.json"
req -X POST "$U" -H 'Content-Type: application/json' \
    --data-binary @"$T/big.json"
check_eq "a body over DBP_HTTP_MAX_BODY with Content-Length -> 413" \
    413 "$code"
check_contains "the 413 names the limit" "at most 4194304 bytes" "$body"
req -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Transfer-Encoding: chunked' --data-binary @"$T/big.json"
check_eq "the same body chunked (no Content-Length) -> 413" 413 "$code"
req -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Content-Length: 99999999999' --data-binary '{}'
check_eq "a declared length alone is enough for 413" 413 "$code"

big=$(head -c 20000 /dev/zero | tr '\0' a)
req -X POST "$U" -H 'Content-Type: application/json' -H "X-Big: $big" \
    --data-binary "$INIT"
check_eq "headers over DBP_HTTP_CONN_MEMORY -> 431" 431 "$code"

# --- the message ------------------------------------------------------------
post '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'
check_eq "a JSON array body -> 400" 400 "$code"
check_eq "... with a JSON-RPC Invalid Request error" "-32600 null" \
    "$(printf '%s' "$body" | jq -r '"\(.error.code) \(.id)"')"
post '{"jsonrpc":"2.0","id":1,'
check_eq "a body that is not JSON -> 400 with -32700" "400 -32700" \
    "$code $(printf '%s' "$body" | jq -r .error.code)"
post '"ping"'
check_eq "a JSON scalar -> 400 with -32600" "400 -32600" \
    "$code $(printf '%s' "$body" | jq -r .error.code)"
# JSON's whitespace is space, tab, CR and LF only: the same rule as stdio
# (rpc_parse), a raw NUL or another control byte between tokens -> -32700.
printf '{"jsonrpc":"2.0",\000"id":1,"method":"ping"}' >"$T/nul.json"
req -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    --data-binary @"$T/nul.json"
check_eq "a raw NUL between tokens -> 400 with -32700" "400 -32700" \
    "$code $(printf '%s' "$body" | jq -r .error.code)"
check_contains "... naming the byte and its offset" \
    "byte 0x00 at offset 17" "$body"
printf '{"jsonrpc":"2.0","id":1,\013"method":"ping"}' >"$T/vt.json"
req -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    --data-binary @"$T/vt.json"
check_eq "a raw vertical tab between tokens -> 400 with -32700" \
    "400 -32700" "$code $(printf '%s' "$body" | jq -r .error.code)"
printf '{"jsonrpc":"2.0",\t"id":1,\r\n"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t8","version":"0"}}}' \
    >"$T/ws.json"
req -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    --data-binary @"$T/ws.json"
check_eq "tab, CR and LF between tokens are whitespace -> 200" 200 "$code"
post "$(printf '%s' "$INIT" | sed 's/"id":1,/"id":1e999,/')"
check_contains "a numeric id is echoed as spelled, as on stdio" \
    '"id":1e999,' "$code $body"
post '{"jsonrpc":"2.0","id":01,"method":"ping"}'
check_eq "an id JSON does not spell -> 400 with -32600" "400 -32600" \
    "$code $(printf '%s' "$body" | jq -r .error.code)"
check_contains "... naming the id" "id 01 is not a number" "$body"
req -X POST "$U" -H 'Content-Type: text/plain' --data-binary "$INIT"
check_eq "a body that is not application/json -> 415" 415 "$code"
req -X POST "$U" -H 'Content-Type: application/json' -H 'Accept: text/html' \
    --data-binary "$INIT"
check_eq "an Accept of neither JSON nor SSE -> 406" 406 "$code"

# --- paths and methods --------------------------------------------------------
req "$B/"
check_eq "an unknown path -> 404" 404 "$code"
req "$B/mcp/../etc/passwd" --path-as-is
check_eq "a path outside /mcp -> 404" 404 "$code"
req -X GET "$U" -H 'Accept: text/event-stream'
check_eq "GET /mcp -> 405 (no server stream)" 405 "$code"
check_eq "... with Allow" "POST, DELETE" "$(hdr Allow)"
req -X PUT "$U" --data-binary '{}'
check_eq "PUT /mcp -> 405" 405 "$code"
req -X OPTIONS "$U" -H "Origin: http://localhost:$PORT" \
    -H 'Access-Control-Request-Method: POST'
check_eq "a CORS preflight gets no CORS grant" "405 " \
    "$code $(hdr Access-Control-Allow-Origin)"

# --- nothing a browser could use ---------------------------------------------
: >"$T/allhdr"
for args in "-X POST $U -H Content-Type:application/json --data-binary @$T/init" \
    "$B/sse-nothing" "-X GET $U" "-X DELETE $U"; do
	printf '%s' "$INIT" >"$T/init"
	# shellcheck disable=SC2086
	curl -s -o /dev/null -D - --max-time 5 $args >>"$T/allhdr" 2>/dev/null
done
check_eq "no response sets a cookie, a redirect or a CORS header" "" \
    "$(grep -iE '^(set-cookie|location|access-control-)' "$T/allhdr")"
check_contains "... (the headers were seen)" "HTTP/1.1 200" \
    "$(cat "$T/allhdr")"

http_stop
check_eq "SIGTERM: exit 0" 0 "$src"

# --- IPv6 loopback ----------------------------------------------------------
: >"$T/v6.err"
$VG "$SERVE" --project "$P" --transport http --host ::1 --port 0 \
    2>"$T/v6.err" &
V6=$!
i=0
while [ $i -lt 600 ] && kill -0 "$V6" 2>/dev/null &&
    ! grep -q 'listening on' "$T/v6.err"; do
	sleep 0.05; i=$((i + 1))
done
P6=$(sed -n 's|.*listening on http://\[::1\]:\([0-9]*\)/mcp.*|\1|p' \
    "$T/v6.err")
if [ -z "$P6" ]; then
	skip "no IPv6 loopback here: $(head -1 "$T/v6.err")"
else
	req -g -X POST "http://[::1]:$P6/mcp" \
	    -H 'Content-Type: application/json' --data-binary "$INIT"
	check_eq "--host ::1 listens on [::1] and serves Host [::1]:PORT" \
	    200 "$code"
	req -g -X POST "http://[::1]:$P6/mcp" -H "Host: 127.0.0.1:$PORT" \
	    -H 'Content-Type: application/json' --data-binary "$INIT"
	check_eq "... and refuses another port in Host" 421 "$code"
	kill -TERM "$V6"
fi
wait "$V6"

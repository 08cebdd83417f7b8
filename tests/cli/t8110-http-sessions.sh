#!/bin/sh
# t8110-http-sessions.sh - the protocol over HTTP: the legacy Streamable
# HTTP session (initialize -> Mcp-Session-Id, 400 without it, 404 for an
# unknown one, DELETE ends it), the 2026-07-28 stateless requests and
# their header checks (-32020), 404 for unknown methods, 400 for an
# unsupported version, the SSE answer form, and the upstream HTTP+SSE
# endpoints (GET /sse, POST /messages/?session_id=).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/http8.sh"

demo_copy
http_start
jq_body() { printf '%s' "$body" | jq -r "$1" 2>&1; }

# --- legacy session --------------------------------------------------------
post "$INIT"
SID=$(hdr Mcp-Session-Id)
check_eq "initialize: 200, the negotiated revision" "200 2025-11-25" \
    "$code $(jq_body .result.protocolVersion)"
check "initialize: Mcp-Session-Id is 128 random bits in hex" \
    sh -c 'printf "%s" "$1" | grep -qxE "[0-9a-f]{32}"' - "$SID"
check_eq "initialize: application/json" "application/json" \
    "$(hdr Content-Type)"
post "$INIT"
check "a second initialize opens another session" \
    test "$(hdr Mcp-Session-Id)" != "$SID" -a -n "$(hdr Mcp-Session-Id)"
post '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    -H "Mcp-Session-Id: $SID"
check_eq "notifications/initialized: 202, no body" "202 " "$code $body"
post '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
check_eq "tools/list in the session: 200, seven tools" "200 7" \
    "$code $(jq_body '.result.tools | length')"
post '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}' \
    -H "Mcp-Session-Id: $SID"
check_eq "a missing MCP-Protocol-Version is tolerated (legacy)" \
    "200 false 5" \
    "$code $(jq_body '.result.isError') $(jq_body '.result.content[0].text' | jq '.tables | length')"
post '{"jsonrpc":"2.0","id":4,"method":"ping"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2024-11-05'
check_eq "another legacy revision in the header is tolerated" 200 "$code"
post '{"jsonrpc":"2.0","id":4,"method":"ping"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 1999-01-01'
check_eq "an unsupported MCP-Protocol-Version -> 400" 400 "$code"
post '{"jsonrpc":"2.0","id":5,"method":"ping"}'
check_eq "no Mcp-Session-Id -> 400 with a JSON-RPC error" "400 5 -32600" \
    "$code $(jq_body .id) $(jq_body .error.code)"
post '{"jsonrpc":"2.0","id":6,"method":"ping"}' \
    -H 'Mcp-Session-Id: 0123456789abcdef0123456789abcdef'
check_eq "an unknown Mcp-Session-Id -> 404" 404 "$code"
post '{"jsonrpc":"2.0","id":7,"result":{}}' -H "Mcp-Session-Id: $SID"
check_eq "a JSON-RPC response from the client -> 202" 202 "$code"
post '{"jsonrpc":"2.0","id":8,"method":"no/such"}' -H "Mcp-Session-Id: $SID"
check_eq "an unknown method in a legacy session: -32601" "200 -32601" \
    "$code $(jq_body .error.code)"
req -X POST "$U" -H 'Content-Type: application/json' \
    -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $SID" \
    --data-binary '{"jsonrpc":"2.0","id":9,"method":"ping"}'
check_eq "Accept: text/event-stream only -> an SSE answer" \
    "200 text/event-stream" "$code $(hdr Content-Type)"
check_eq "... one message event carrying the response" \
    '{"jsonrpc":"2.0","id":9,"result":{}}' \
    "$(sed -n 's/^data: //p' "$T/body")"
check_contains "... named message" "event: message" "$body"
req -X DELETE "$U" -H "Mcp-Session-Id: $SID"
check_eq "DELETE ends the session" 200 "$code"
post '{"jsonrpc":"2.0","id":10,"method":"ping"}' -H "Mcp-Session-Id: $SID"
check_eq "the ended session -> 404" 404 "$code"
req -X DELETE "$U" -H "Mcp-Session-Id: $SID"
check_eq "DELETE of an ended session -> 404" 404 "$code"
req -X DELETE "$U"
check_eq "DELETE without a session id -> 400" 400 "$code"

# --- 2026-07-28, stateless ----------------------------------------------------
call='{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"list_tables","arguments":{},'"$META"'}}'
post "$call" -H "$MV" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: list_tables'
check_eq "stateless tools/call: 200, resultType complete, no session" \
    "200 complete false " \
    "$code $(jq_body .result.resultType) $(jq_body .result.isError) $(hdr Mcp-Session-Id)"
check_eq "... serverInfo in _meta" dbprint \
    "$(jq_body '.result._meta["io.modelcontextprotocol/serverInfo"].name')"
post "$call" -H "$MV" -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: =?base64?bGlzdF90YWJsZXM=?='
check_eq "Mcp-Name in the Base64 form is decoded" 200 "$code"
post "$call" -H "$MV" -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: =?base64?bGlzdF90YWJsZXN4?='
check_eq "a Base64 Mcp-Name that decodes to another name -> 400 -32020" \
    "400 -32020" "$code $(jq_body .error.code)"
post "$call" -H "$MV" -H 'Mcp-Method: tools/call'
check_eq "tools/call without Mcp-Name -> 400 -32020, the request id kept" \
    "400 -32020 c1" "$code $(jq_body .error.code) $(jq_body .id)"
post "$call" -H "$MV" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_diff'
check_eq "Mcp-Name not the body's tool -> 400 -32020" "400 -32020" \
    "$code $(jq_body .error.code)"
post "$call" -H "$MV" -H 'Mcp-Name: list_tables'
check_eq "no Mcp-Method -> 400 -32020" "400 -32020" \
    "$code $(jq_body .error.code)"
post "$call" -H "$MV" -H 'Mcp-Method: tools/list' -H 'Mcp-Name: list_tables'
check_eq "Mcp-Method not the body's method -> 400 -32020" "400 -32020" \
    "$code $(jq_body .error.code)"
post "$call" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: list_tables'
check_eq "no MCP-Protocol-Version header -> 400 -32020" "400 -32020" \
    "$code $(jq_body .error.code)"
post "$call" -H 'MCP-Protocol-Version: 2025-11-25' \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: list_tables'
check_eq "MCP-Protocol-Version not the _meta revision -> 400 -32020" \
    "400 -32020" "$code $(jq_body .error.code)"
read_res='{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"dbprint://demo/manifest",'"$META"'}}'
post "$read_res" -H "$MV" -H 'Mcp-Method: resources/read' \
    -H 'Mcp-Name: dbprint://demo/manifest'
check_eq "resources/read with Mcp-Name = uri: 200 with contents" "200 1" \
    "$code $(jq_body '.result.contents | length')"
post "$read_res" -H "$MV" -H 'Mcp-Method: resources/read' \
    -H 'Mcp-Name: dbprint://demo/diff'
check_eq "resources/read with another uri in Mcp-Name -> 400 -32020" \
    "400 -32020" "$code $(jq_body .error.code)"
for m in ping initialize logging/setLevel resources/subscribe no/such; do
	post '{"jsonrpc":"2.0","id":3,"method":"'"$m"'","params":{'"$META"'}}' \
	    -H "$MV" -H "Mcp-Method: $m"
	check_eq "2026-07-28 $m -> 404 -32601" "404 -32601 3" \
	    "$code $(jq_body .error.code) $(jq_body .id)"
done
post '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    -H 'MCP-Protocol-Version: 2099-01-01' -H 'Mcp-Method: tools/list'
check_eq "an unsupported revision -> 400 -32022 naming the supported" \
    "400 -32022 2026-07-28 2099-01-01" \
    "$code $(jq_body .error.code) $(jq_body '.error.data.supported[0]') $(jq_body .error.data.requested)"
post '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}' \
    -H "$MV" -H 'Mcp-Method: tools/list'
check_eq "_meta without clientCapabilities -> 400 -32602" "400 -32602" \
    "$code $(jq_body .error.code)"
post '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{}}' \
    -H "$MV" -H 'Mcp-Method: tools/list'
check_eq "the 2026-07-28 header with no _meta -> 400 -32602" "400 -32602" \
    "$code $(jq_body .error.code)"
post '{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{'"$META"'}}' \
    -H "$MV" -H 'Mcp-Method: server/discover'
check_eq "server/discover: the revisions, cache hints" \
    "200 2026-07-28 complete true" \
    "$code $(jq_body '.result.supportedVersions[0]') $(jq_body .result.resultType) $(jq_body '.result.ttlMs >= 0')"
post '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x",'"$META"'}}' \
    -H "$MV" -H 'Mcp-Method: notifications/cancelled'
check_eq "a 2026-07-28 notification -> 202" 202 "$code"
post '{"jsonrpc":"2.0","id":"l1","method":"tools/list","params":{'"$META"'}}' \
    -H "$MV" -H 'Mcp-Method: tools/list'
a=$(jq_body '[.result.tools[].name] | join(",")')
post '{"jsonrpc":"2.0","id":"l2","method":"tools/list","params":{'"$META"'}}' \
    -H "$MV" -H 'Mcp-Method: tools/list'
check_eq "two stateless tools/list (separate connections) agree" "$a" \
    "$(jq_body '[.result.tools[].name] | join(",")')"

# --- the upstream HTTP+SSE transport ------------------------------------------
curl -s -N --max-time 30 "$B/sse" >"$T/sse.out" 2>/dev/null &
CPID=$!
i=0
while [ $i -lt 100 ] && ! grep -q '^data: ' "$T/sse.out"; do
	sleep 0.05; i=$((i + 1))
done
EP=$(sed -n 's/^data: //p' "$T/sse.out" | head -1 | tr -d '\r')
check_eq "GET /sse: the first event is endpoint" "event: endpoint" \
    "$(head -1 "$T/sse.out" | tr -d '\r')"
check "... naming /messages/?session_id=<32 hex>" sh -c \
    'printf "%s" "$1" | grep -qxE "/messages/\?session_id=[0-9a-f]{32}"' \
    - "$EP"
req -X POST "$B$EP" -H 'Content-Type: application/json' \
    --data-binary "$INIT"
check_eq "POST /messages/: 202 Accepted" "202 Accepted" "$code $body"
req -X POST "$B$EP" -H 'Content-Type: application/json' --data-binary \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}'
check_eq "a tools/call there: 202" 202 "$code"
i=0
while [ $i -lt 100 ] && [ "$(grep -c '^event: message' "$T/sse.out")" -lt 2 ]
do
	sleep 0.05; i=$((i + 1))
done
sed -n 's/^data: //p' "$T/sse.out" | tail -n +2 >"$T/sse.msgs"
check_eq "the replies arrive on the stream as message events, in order" \
    "1 2" "$(jq -r .id "$T/sse.msgs" | tr '\n' ' ' | sed 's/ $//')"
check_eq "... the tools/call answer" 5 \
    "$(sed -n 2p "$T/sse.msgs" | jq -r '.result.content[0].text' | jq '.tables | length')"
req -X POST "$B/messages/?session_id=0123456789abcdef0123456789abcdef" \
    -H 'Content-Type: application/json' --data-binary "$INIT"
check_eq "POST /messages/ for an unknown session -> 404" 404 "$code"
req -X POST "$B/messages/" -H 'Content-Type: application/json' \
    --data-binary "$INIT"
check_eq "POST /messages/ without session_id -> 400" 400 "$code"
req -X POST "$B$EP" -H 'Content-Type: application/json' --data-binary '[1]'
check_eq "a batch on /messages/ -> 400" 400 "$code"

# Shutdown ends the open stream: the client sees its end, the server
# exits 0.
http_stop
check_eq "SIGTERM with an /sse stream open: exit 0" 0 "$src"
wait "$CPID"
check_eq "... and the stream was ended cleanly (curl exit 0)" 0 "$?"

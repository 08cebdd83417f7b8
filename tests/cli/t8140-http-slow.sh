#!/bin/sh
# t8140-http-slow.sh - the request-time limit of the HTTP transport
# (DBP_HTTP_REQUEST_S, set to 2 s here by DBPRINT_HTTP_REQUEST_S): a
# client trickling its request line, its headers or its body a byte at a
# time is never silent long enough for the idle timeout, and must be cut
# off once its request has taken the limit; meanwhile other clients are
# served, an /sse stream stays open past the limit, and a kept-alive
# connection idle between requests for longer than the limit is not cut.
#
# Times are checked with wide margins (closed "within limit + 5 s", open
# "for longer than the limit") so a loaded machine does not flake them.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/http8.sh"

demo_copy

# --- the environment override is bounded ------------------------------------
for v in 0 3601 2x -1; do
	out=$(DBPRINT_HTTP_REQUEST_S=$v timeout 20 $VG "$SERVE" \
	    --project "$P" --transport http --port 0 </dev/null 2>&1); rc=$?
	check_eq "DBPRINT_HTTP_REQUEST_S=$v is refused at startup" \
	    "1 dbprint-serve: DBPRINT_HTTP_REQUEST_S must be a whole number of seconds from 1 to 3600; got '$v'" \
	    "$rc $out"
done

LIMIT=2
export DBPRINT_HTTP_REQUEST_S=$LIMIT
http_start --log-level info
check "the server starts with DBPRINT_HTTP_REQUEST_S=$LIMIT" test -n "$PORT"
H="Host: 127.0.0.1:$PORT"
L=$(printf '%s' "$INIT" | wc -c | tr -d ' ')

# cuts - how many connections the watchdog has closed so far
cuts() {
	grep -c 'a request still arriving after 2 s; connection closed' \
	    "$T/serve.err"
}

# trickle NAME PREFIX BYTES - send PREFIX at once, then BYTES (both with
# printf %b escapes) every 0.3 s for up to 18 s, over one connection; what
# the server answers goes to $T/NAME.out.  Sets $took (whole seconds until
# the server closed the connection) and $crc (curl's exit status; 28
# means the connection was still open after 20 s).
trickle() {
	_t0=$(date +%s)
	{
		printf '%b' "$2"
		_i=0
		while [ $_i -lt 60 ]; do
			printf '%b' "$3" || break
			sleep 0.3
			_i=$((_i + 1))
		done
	} 2>/dev/null | curl -s --max-time 20 "telnet://127.0.0.1:$PORT" \
	    >"$T/$1.out" 2>/dev/null
	crc=$?
	took=$(($(date +%s) - _t0))
}

# --- (a) a request line that never ends -------------------------------------
c0=$(cuts)
trickle line "" "P"
check_eq "a request line trickled a byte at a time: the server closes it" \
    "0 1" "$crc $(($(cuts) - c0))"
check "... within the limit + 5 s (took ${took} s)" \
    test "$took" -le $((LIMIT + 5))
check "... and not before the limit (took ${took} s)" \
    test "$took" -ge $((LIMIT - 1))

# --- (a) headers that never end, while others are served --------------------
c0=$(cuts)
trickle hdr "POST /mcp HTTP/1.1\r\n$H\r\nContent-Type: application/json\r\n" \
    "X" &
TP=$!
sleep 0.5
post "$INIT"
check_eq "while a client trickles its headers, others are served" 200 "$code"
req -X GET "$B/sse" --max-time 1 -N
check_contains "... an /sse stream opens too" "event: endpoint" "$body"
wait "$TP"
check_eq "headers trickled a byte at a time: the connection is closed" \
    1 "$(($(cuts) - c0))"
check_eq "... with no response (dropped, not answered)" "" \
    "$(cat "$T/hdr.out")"

# --- (b) a body that never ends ---------------------------------------------
c0=$(cuts)
trickle body "POST /mcp HTTP/1.1\r\n$H\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{" " "
check_eq "a body trickled a byte at a time: the server closes it" \
    "0 1" "$crc $(($(cuts) - c0))"
check "... within the limit + 5 s (took ${took} s)" \
    test "$took" -le $((LIMIT + 5))
check_eq "... with no response" "" "$(cat "$T/body.out")"
c0=$(cuts)
trickle chunk "POST /mcp HTTP/1.1\r\n$H\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" "1\r\n \r\n"
check_eq "a chunked body trickled a chunk at a time: closed too" \
    "0 1" "$crc $(($(cuts) - c0))"

# --- (c) a response being sent is not limited -------------------------------
c0=$(cuts)
curl -s -N --max-time $((LIMIT + 5)) "$B/sse" >"$T/sse" 2>/dev/null &
CP=$!
i=0
while [ $i -lt 100 ] && ! grep -q 'session_id=' "$T/sse"; do
	sleep 0.05; i=$((i + 1))
done
sid=$(sed -n 's/.*session_id=\([0-9a-f]*\).*/\1/p' "$T/sse" | head -1)
sleep $((LIMIT + 1))
req -X POST "$B/messages/?session_id=$sid" \
    -H 'Content-Type: application/json' --data-binary "$INIT"
check_eq "an /sse stream open longer than the limit still takes messages" \
    202 "$code"
wait "$CP"
src_sse=$?
check_eq "... the stream stayed open until the client's own timeout" \
    "28 0" "$src_sse $(($(cuts) - c0))"
check_contains "... and carried the reply" '"id":1,"result"' \
    "$(cat "$T/sse")"

# --- (d) a kept-alive client over more than the limit -----------------------
# idle before its first request, and between requests, longer than the
# limit: idle connections are the idle timeout's (30 s), not this one's.
# A portable build has no TCP byte count (dbprint-serve(1)): there an idle
# connection is timed from its last response, and this case does not hold.
R="POST /mcp HTTP/1.1\r\n$H\r\nContent-Type: application/json\r\nContent-Length: $L\r\n"
if [ "${DBP_PORTABLE:-0}" = 1 ]; then
	skip "portable build: no TCP_INFO: idle kept-alive connections are timed"
	skip "portable build: ... so the kept-alive case is Linux's"
else
	c0=$(cuts)
	{
		sleep $((LIMIT + 1))
		printf "%b\r\n%s" "$R" "$INIT"
		sleep $((LIMIT + 1))
		printf "%b\r\n%s" "$R" "$INIT"
		sleep 0.5
		printf "%b\r\n%s" "$R" "$INIT"
		sleep 0.5
		printf "%bConnection: close\r\n\r\n%s" "$R" "$INIT"
		sleep 2
	} | curl -s --max-time 20 "telnet://127.0.0.1:$PORT" >"$T/keep.out" 2>/dev/null
	check_eq "a kept-alive client idle past the limit gets all four answers" \
	    "200 200 200 200" \
	    "$(grep -ao 'HTTP/1.1 [0-9]*' "$T/keep.out" | cut -d' ' -f2 | tr '\n' ' ' |
	    sed 's/ $//')"
	check_eq "... and none of its requests was cut" 0 "$(($(cuts) - c0))"
fi

# --- a second request on a kept-alive connection is timed from its own start 
c0=$(cuts)
{
	printf "%b\r\n%s" "$R" "$INIT"
	sleep $((LIMIT + 1))
	printf "%b" "$R"
	i=0
	while [ $i -lt 60 ]; do
		printf 'X' || break
		sleep 0.3
		i=$((i + 1))
	done
} 2>/dev/null | curl -s --max-time 20 "telnet://127.0.0.1:$PORT" \
    >"$T/ka.out" 2>/dev/null
kcrc=$?
check_eq "a second request trickled on a kept-alive connection is cut" \
    "0 1 1" "$kcrc $(($(cuts) - c0)) $(grep -ac 'HTTP/1.1 200' "$T/ka.out")"

post "$INIT"
check_eq "after all of it the server still serves" 200 "$code"
http_stop
check_eq "SIGTERM: exit 0" 0 "$src"

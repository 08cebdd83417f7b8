#!/bin/sh
# t9230-fault-stdio.sh - the stdio transport under stress: thousands of
# pipelined requests answered in order, one reply per request id; stdin
# closed in the middle of a frame (the partial frame answered as a parse
# error after the replies before it, exit 0); SIGTERM with requests in flight
# (the process ends promptly with only whole frames on stdout).
. "$(dirname "$0")/../lib.sh"

P=$FIX/demo
I=$T/i.sqlite
"$INDEX" --quiet --project "$P" --index "$I"

# --- thousands pipelined --------------------------------------------------
N=3000
awk -v n=$N 'BEGIN { for (i = 1; i <= n; i++) {
	m = i % 4
	if (m == 0) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i
	else if (m == 1) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"list_tables\",\"arguments\":{}}}\n", i
	else if (m == 2) printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"resources/read\",\"params\":{\"uri\":\"dbprint://demo/manifest\"}}\n", i
	else printf "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
} }' >"$T/many"
want=$(grep -c '"id"' "$T/many")
$VG "$SERVE" --project "$P" --index "$I" <"$T/many" >"$T/many.out" 2>"$T/many.err"
check_eq "$N pipelined frames: exit 0" 0 $?
check_eq "one reply per request" "$want" "$(wc -l <"$T/many.out")"
check_eq "replies in request order" "$(grep -o '"id":[0-9]*' "$T/many" | cut -d: -f2 | tr '\n' ' ')" \
    "$(jq -r '.id' "$T/many.out" | tr '\n' ' ')"
check_eq "no error replies" 0 "$(jq -r 'select(.error != null or .result.isError == true) | .id' "$T/many.out" | wc -l)"
check_eq "every list_tables reply the same" 1 \
    "$(jq -c 'select(.result.content != null) | .result.content' "$T/many.out" | sort -u | wc -l)"

# --- stdin closed mid-frame -----------------------------------------------
for cut in 1 17 40 75; do
	{ printf '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
	  printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}\n' | head -c $cut
	} | $VG "$SERVE" --project "$P" --index "$I" >"$T/cut.out" 2>"$T/cut.err"
	rc=$?
	check_eq "stdin closed after $cut bytes of a frame: exit 0" 0 $rc
	# The unterminated last line is still read as a message (rpc.c):
	# a cut one is answered with a parse error, id null.
	check_eq "stdin closed after $cut bytes: the ping answered, then a parse error" \
	    '1 null:-32700' "$(jq -r 'if .error then "\(.id):\(.error.code)" else .id end' "$T/cut.out" | tr '\n' ' ' | sed 's/ $//')"
done

# --- SIGTERM with requests in flight ---------------------------------------
awk 'BEGIN { for (i = 1; i <= 20000; i++)
	printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"search_columns\",\"arguments\":{\"pattern\":\"*\"}}}\n", i }' >"$T/flood"
mkfifo "$T/in"
$VG "$SERVE" --project "$P" --index "$I" <"$T/in" >"$T/term.out" 2>"$T/term.err" &
pid=$!
exec 3>"$T/in"
cat "$T/flood" >&3 &
feeder=$!
# Wait for the first replies, then stop it mid-stream.
i=0
while [ ! -s "$T/term.out" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null; then
	fail "SIGTERM mid-stream: the server ends within 30 s"
	kill -9 $pid
else
	ok "SIGTERM mid-stream: the server ends within 30 s"
fi
wait $pid
rc=$?
exec 3>&-
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
check_eq "SIGTERM: exit status 0 (a clean stop)" 0 $rc
got=$(wc -l <"$T/term.out")
check "SIGTERM: some replies were sent" test "$got" -gt 0
check "SIGTERM: not all 20000 (stopped mid-stream)" test "$got" -lt 20000
check_eq "SIGTERM: every line on stdout a whole JSON frame" "$got" \
    "$(jq -c '.id' "$T/term.out" 2>/dev/null | wc -l)"
check_eq "SIGTERM: no sanitizer report" 0 \
    "$(grep -c 'AddressSanitizer\|runtime error:' "$T/term.err")"

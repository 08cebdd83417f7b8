#!/bin/sh
# t2130-serve-stdio-edges.sh - issue 19 on stdio: a numeric id is echoed
# as the request spells it (1e999, 20 digits, 1.0), one cJSON takes but
# JSON does not ("01") is -32600; a raw NUL between tokens is -32700; a
# frame already in the pipe when SIGTERM/SIGINT arrives is answered.
. "$(dirname "$0")/../lib.sh"

P=$FIX/demo
I=$T/i.sqlite
"$INDEX" --quiet --project "$P" --index "$I"

ask() {	# ask FRAME-TEXT (printf format): the reply line
	printf "$1\n" | $VG "$SERVE" --project "$P" --index "$I" 2>/dev/null
}
check_eq "id 1e999 is echoed as spelled" \
    '{"jsonrpc":"2.0","id":1e999,"result":{}}' \
    "$(ask '{"jsonrpc":"2.0","id":1e999,"method":"ping"}')"
check_eq "a 20-digit id is echoed as spelled" \
    '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}' \
    "$(ask '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}')"
check_eq "id 1.0 is echoed as spelled" \
    '{"jsonrpc":"2.0","id":1.0,"result":{}}' \
    "$(ask '{"jsonrpc":"2.0","id":1.0,"method":"ping"}')"
check_eq "id 01 (not JSON) is -32600 naming it" \
    '-32600 Invalid Request: id 01 is not a number as JSON spells it' \
    "$(ask '{"jsonrpc":"2.0","id":01,"method":"ping"}' | jq -r '"\(.error.code) \(.error.message)"')"
check_eq "a raw NUL between tokens is -32700" -32700 \
    "$(ask '{"jsonrpc":"2.0",\0"id":3,"method":"ping"}' | jq -r .error.code)"
check_eq "a raw 0x01 between tokens is -32700" -32700 \
    "$(ask '{"jsonrpc":"2.0",\1"id":3,"method":"ping"}' | jq -r .error.code)"

# A frame written, then the signal at once: 20 tries, every one answered.
PING='{"jsonrpc":"2.0","id":7,"method":"ping"}'
bad=""
i=0
while [ $i -lt 20 ]; do
	sig=TERM; [ $((i % 2)) = 1 ] && sig=INT
	rm -f "$T/sin"; mkfifo "$T/sin"
	# The reply file exists before the server opens it: its shell opens
	# the fifo first, and blocks there until the writer below is open.
	: >"$T/sig.out"
	$VG "$SERVE" --project "$P" --index "$I" <"$T/sin" >"$T/sig.out" 2>/dev/null &
	pid=$!
	exec 3>"$T/sin"
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' >&3
	n=0
	while [ "$(wc -l <"$T/sig.out")" -lt 1 ] && [ $n -lt 200 ]; do
		sleep 0.05; n=$((n + 1))
	done
	printf '%s\n' "$PING" >&3
	kill -$sig $pid
	n=0
	while kill -0 $pid 2>/dev/null && [ $n -lt 200 ]; do
		sleep 0.05; n=$((n + 1))
	done
	kill -0 $pid 2>/dev/null && kill -KILL $pid
	wait $pid
	exec 3>&-
	grep -q '"id":7' "$T/sig.out" || bad="$bad $i:$sig"
	i=$((i + 1))
done
check_eq "a frame in the pipe before SIGTERM/SIGINT, 20 tries: all answered" "" "$bad"

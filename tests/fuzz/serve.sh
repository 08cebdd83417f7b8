# serve.sh - a dbprint-serve coprocess for the fault-injection tests
# (t92*): start it on a FIFO, send one request at a time, read its reply.
# Source after tests/lib.sh.
#
#   srv_start ARGS...   start $SERVE ARGS on $T/srv.in -> $T/srv.out
#   srv_call TOOL JSON  one tools/call; sets R (the frame), RT (the text),
#                       RE (isError: true/false, or "rpc" for an error frame)
#   srv_rpc FRAME       send a raw frame; sets R to the reply line
#   srv_stop            close stdin and wait; SRV_RC is its exit status
_sid=0
srv_start() {
	rm -f "$T/srv.in"
	mkfifo "$T/srv.in"
	: >"$T/srv.out"
	$VG "$SERVE" "$@" <"$T/srv.in" >"$T/srv.out" 2>>"$T/srv.err" &
	SRV_PID=$!
	exec 3>"$T/srv.in"
	_lines=0
}
srv_rpc() {
	printf '%s\n' "$1" >&3
	_lines=$((_lines + 1))
	_i=0
	while [ "$(wc -l <"$T/srv.out")" -lt $_lines ]; do
		if ! kill -0 "$SRV_PID" 2>/dev/null; then
			R="(server died)"
			return 1
		fi
		_i=$((_i + 1))
		[ $_i -gt 1800 ] && { R="(timeout)"; return 1; }
		sleep 0.1
	done
	R=$(sed -n "${_lines}p" "$T/srv.out")
}
srv_call() {
	_sid=$((_sid + 1))
	srv_rpc "{\"jsonrpc\":\"2.0\",\"id\":$_sid,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2}}" || { RT=$R; RE=died; return 1; }
	if printf '%s' "$R" | jq -e '.error' >/dev/null 2>&1; then
		RE=rpc
		RT=$(printf '%s' "$R" | jq -r '.error.message')
	else
		RE=$(printf '%s' "$R" | jq -r '.result.isError // false')
		RT=$(printf '%s' "$R" | jq -r '.result.content[0].text')
	fi
}
srv_stop() {
	exec 3>&-
	wait "$SRV_PID"
	SRV_RC=$?
}

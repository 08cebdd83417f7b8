#!/bin/sh
# t9400-sandbox.sh - both programs under their sandbox as users run them:
# the plain build (PLAIN_ABS, no sanitizer widening it).  The golden
# get_table_context pages answer unchanged through --call; a stdio
# session and an HTTP session answer, see a changed file re-indexed (WAL
# files beside the index) and show NoNewPrivs and Seccomp in
# /proc/PID/status; the sandbox's own unit test passes there; and
# --no-sandbox and DBPRINT_NO_SANDBOX turn it off.  In a portable build
# there is no sandbox, and the info line says so.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/ctx7.sh"
. "$SRCDIR/tests/cli/http8.sh"

if [ -z "${PLAIN_ABS:-}" ] || [ ! -x "$PLAIN_ABS/dbprint-serve" ]; then
	skip "no plain build (make check builds it)"
	exit 0
fi
if [ "${VALGRIND:-0}" = 1 ]; then
	skip "the sandbox is tested without valgrind (it keeps no_new_privs only)"
	exit 0
fi
INDEX=$PLAIN_ABS/dbprint-index
SERVE=$PLAIN_ABS/dbprint-serve
VG=""

cp -R "$FIX/rich" "$T/rich"
R=$T/rich

# --- a portable build confines nothing, and says so at info level --------
if [ "$DBP_PORTABLE" = 1 ]; then
	"$SERVE" --project "$R" main --log-level info --call list_tables '{}' \
	    >"$T/out" 2>"$T/err"
	check_eq "portable: list_tables answers" 0 $?
	check_contains "portable: the info line says there is no sandbox" \
	    "sandbox: no sandbox on this platform" "$(cat "$T/err")"
	"$SERVE" --project "$R" main --call list_tables '{}' >/dev/null 2>"$T/err"
	check_eq "portable: nothing said at the default log level" "" \
	    "$(cat "$T/err")"
	skip "the Linux sandbox is compiled out of a portable build"
	exit 0
fi

# --- the sandbox's unit test, in the plain build --------------------------
if [ -x "$PLAIN_ABS/tests/test_sandbox" ]; then
	CMOCKA_MESSAGE_OUTPUT=TAP "$PLAIN_ABS/tests/test_sandbox" >"$T/unit" 2>&1
	urc=$?
	check_eq "test_sandbox passes in the plain build" "0 0" \
	    "$urc $(grep '^not ok' "$T/unit" | grep -vc '# SKIP')"
	check "test_sandbox ran its cases" grep -q '^ok ' "$T/unit"
else
	fail "test_sandbox is built in the plain tree" "$PLAIN_ABS/tests"
fi

# --- the indexer, confined ----------------------------------------------
"$INDEX" --project "$R" >"$T/out" 2>"$T/err"
check_eq "dbprint-index exits 0 confined" 0 $?
check "the indexes are written beneath .dbprint/index" \
    test -s "$R/.dbprint/index/main.sqlite" -a -s "$R/.dbprint/index/other.sqlite"
case $(cat "$T/err") in
*"sandbox:"*) check_contains "a partial sandbox is named" "off" "$(cat "$T/err")" ;;
*) ok "a full sandbox says nothing" ;;
esac

# --- the golden pages, through --call (confined there too) ---------------
G=$SRCDIR/tests/golden/context
for t in depot.sales.customer depot.sales.order_event depot.sales.orders; do
	for f in md json; do
		a="{\"table\":\"$t\",\"purpose\":\"profile\",\"format\":\"$f\"}"
		ctx_pages "$R" main "$a" "$f"
		[ "$npages" -ge 1 ] || continue
		ctx_got "$R"
		check_file "confined: $t profile $f is the golden" \
		    "$G/main/$t.profile.$f" "$T/got"
	done
done

# status_of PID FIELD - a field of /proc/PID/status
status_of() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null
}

# seccomp_check WHAT PID LOG - Seccomp 2 in its status, unless the
# kernel has no seccomp (the log line says so)
seccomp_check() {
	if grep -q 'seccomp off' "$3"; then
		skip "$1: this kernel has no seccomp filter ($(grep -o 'seccomp off.*' "$3"))"
	else
		check_eq "$1: Seccomp 2 (a filter)" 2 "$(status_of "$2" Seccomp)"
	fi
}

# --- a stdio session ------------------------------------------------------
S=$T/stats.yaml
stat_file=$(find "$R/prints/main" -path '*sales/customer/statistics.yaml')
mkfifo "$T/in"
"$SERVE" --project "$R" main --log-level info <"$T/in" >"$T/sout" \
    2>"$T/serr" &
SP=$!
exec 3>"$T/in"
send() { printf '%s\n' "$1" >&3; }
# wait_reply ID - until the reply with that id is on stdout (10 s)
wait_reply() {
	_w=0
	while [ $_w -lt 200 ]; do
		grep -q "\"id\":$1," "$T/sout" && return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t9400","version":"0"}}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
wait_reply 1
check_contains "stdio: the info line names every part" \
    "sandbox: no_new_privs, landlock" "$(cat "$T/serr")"
check_contains "stdio: ... and seccomp" "seccomp" "$(grep 'sandbox:' "$T/serr")"
check_eq "stdio: NoNewPrivs 1" 1 "$(status_of $SP NoNewPrivs)"
seccomp_check "stdio" "$SP" "$T/serr"
send '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_columns","arguments":{"text":"email"}}}'
wait_reply 2
check_contains "stdio: search_columns answers" '"isError":false' \
    "$(grep '"id":2,' "$T/sout")"
cp "$stat_file" "$S"
printf '# changed under the sandbox\n' >>"$stat_file"
send '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_table_context","arguments":{"table":"depot.sales.customer","format":"json"}}}'
wait_reply 3
check_contains "stdio: a changed file is re-indexed confined" \
    '"isError":false' "$(grep '"id":3,' "$T/sout")"
check_contains "stdio: ... and the server says it re-indexed" \
    "re-indexed" "$(cat "$T/serr")"
check "stdio: the WAL file is beside the index" \
    test -e "$R/.dbprint/index/main.sqlite-wal"
check_eq "stdio: no index error logged" "" \
    "$(grep -i 'unable to open\|index write failed' "$T/serr")"
exec 3>&-
wait $SP
check_eq "stdio: the session ends with exit 0" 0 $?
cp "$S" "$stat_file"

# --- an HTTP session ------------------------------------------------------
P=$R
http_start main --log-level info
check_contains "http: the info line names every part" \
    "sandbox: no_new_privs, landlock" "$(cat "$T/serve.err")"
check_eq "http: NoNewPrivs 1" 1 "$(status_of $SPID NoNewPrivs)"
seccomp_check "http" "$SPID" "$T/serve.err"
post "$INIT"
check_eq "http: initialize is 200" 200 "$code"
SID=$(hdr Mcp-Session-Id)
check "http: a session id is given" test -n "$SID"
post '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
post '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
check_contains "http: list_tables answers in the session" \
    '"isError":false' "$body"
printf '# changed under the sandbox\n' >>"$stat_file"
post '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_table_context","arguments":{"table":"depot.sales.customer","format":"json"}}}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
check_contains "http: a changed file is re-indexed confined" \
    '"isError":false' "$body"
check_contains "http: ... and the server says it re-indexed" \
    "re-indexed" "$(cat "$T/serve.err")"
http_stop
check_eq "http: SIGTERM ends it with exit 0" 0 "$src"
cp "$S" "$stat_file"

# --- turned off -------------------------------------------------------------
"$SERVE" --project "$R" main --no-sandbox --log-level info \
    --call list_tables '{}' >/dev/null 2>"$T/err"
check_contains "--no-sandbox: the info line says off" "sandbox off" \
    "$(cat "$T/err")"
DBPRINT_NO_SANDBOX=1 "$SERVE" --project "$R" main --log-level info \
    --call list_tables '{}' >/dev/null 2>"$T/err"
check_contains "DBPRINT_NO_SANDBOX=1: the info line says off" "sandbox off" \
    "$(cat "$T/err")"
DBPRINT_NO_SANDBOX=0 "$SERVE" --project "$R" main --log-level info \
    --call list_tables '{}' >/dev/null 2>"$T/err"
check_contains "DBPRINT_NO_SANDBOX=0 leaves it on" "sandbox: no_new_privs" \
    "$(cat "$T/err")"
"$INDEX" --project "$R" --no-sandbox main >/dev/null 2>&1
check_eq "dbprint-index --no-sandbox exits 0" 0 $?

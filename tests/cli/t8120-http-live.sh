#!/bin/sh
# t8120-http-live.sh - the HTTP transport under use: the optional bearer
# token (--token-file and DBPRINT_TOKEN_FILE: 401 with WWW-Authenticate,
# never logged), requests from several clients at once, requests while a
# print file is rewritten again and again (each answer whole and current),
# and SIGTERM with a request in flight (it is answered, new connections
# are refused, exit 0).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/http8.sh"

demo_copy
jq_body() { printf '%s' "$body" | jq -r "$1" 2>&1; }
LIST='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tables","arguments":{},'"$META"'}}'
LISTH="-H MCP-Protocol-Version:2026-07-28 -H Mcp-Method:tools/call -H Mcp-Name:list_tables"

# --- bearer token -------------------------------------------------------------
out=$($VG "$SERVE" --project "$P" --transport http --port 0 \
    --token-file "$T/none" </dev/null 2>&1); rc=$?
check_eq "an unreadable --token-file: exit 1" 1 "$rc"
check_contains "... saying so" "dbprint-serve: the token file" "$out"
printf '\n\n' >"$T/empty.tok"
out=$($VG "$SERVE" --project "$P" --transport http --port 0 \
    --token-file "$T/empty.tok" </dev/null 2>&1); rc=$?
check_eq "an empty token file: exit 1" 1 "$rc"

TOKEN=s3cr3t-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$TOKEN" >"$T/tok"
http_start --token-file "$T/tok"
check_contains "the listening line says a token is required" \
    "(bearer token required)" "$(cat "$T/serve.err")"
# shellcheck disable=SC2086
post "$LIST" $LISTH
check_eq "no Authorization -> 401" 401 "$code"
check_eq "... with WWW-Authenticate: Bearer" Bearer \
    "$(hdr WWW-Authenticate)"
# shellcheck disable=SC2086
post "$LIST" $LISTH -H "Authorization: Bearer ${TOKEN}x"
check_eq "a wrong token -> 401" 401 "$code"
# shellcheck disable=SC2086
post "$LIST" $LISTH -H "Authorization: Bearer $(printf '%s' "$TOKEN" | head -c 6)"
check_eq "a prefix of the token -> 401" 401 "$code"
# shellcheck disable=SC2086
post "$LIST" $LISTH -H "Authorization: Basic $TOKEN"
check_eq "another scheme -> 401" 401 "$code"
check_eq "the 401 does not echo the token" "" \
    "$(grep -F "$TOKEN" "$T/body" "$T/hdr")"
# shellcheck disable=SC2086
post "$LIST" $LISTH -H "Authorization: Bearer $TOKEN"
check_eq "the right token -> 200" "200 false" \
    "$code $(jq_body .result.isError)"
req -X GET "$B/sse" -H "Host: evil.example.com" \
    -H "Authorization: Bearer $TOKEN"
check_eq "Host is still checked first (421)" 421 "$code"
req --max-time 2 -X GET "$B/sse"
check_eq "/sse needs the token too" 401 "$code"
http_stop
check_eq "the token never reaches the log" "" \
    "$(grep -F "$TOKEN" "$T/serve.err")"
DBPRINT_TOKEN_FILE=$T/tok
export DBPRINT_TOKEN_FILE
http_start
unset DBPRINT_TOKEN_FILE
# shellcheck disable=SC2086
post "$LIST" $LISTH
check_eq "DBPRINT_TOKEN_FILE works the same: 401 without" 401 "$code"
# shellcheck disable=SC2086
post "$LIST" $LISTH -H "Authorization: Bearer $TOKEN"
check_eq "... 200 with" 200 "$code"
http_stop

# --- several clients at once ------------------------------------------------------
http_start
printf '%s' "$LIST" >"$T/list.json"
seq 1 64 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
    --max-time 20 -X POST "$U" -H 'Content-Type: application/json' \
    -H "$MV" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: list_tables' \
    --data-binary @"$T/list.json" >"$T/codes" 2>/dev/null
check_eq "64 requests from 8 clients at once: all 200" "64" \
    "$(grep -c '^200$' "$T/codes")"

http_stop

# --- an index that could only be built in memory: one context, serialized --------
http_start --index /dev/null/cannot/demo.sqlite
check_contains "an in-memory index: said on stderr" \
    "answered one at a time" "$(cat "$T/serve.err")"
seq 1 16 | xargs -P 4 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
    --max-time 20 -X POST "$U" -H 'Content-Type: application/json' \
    -H "$MV" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: list_tables' \
    --data-binary @"$T/list.json" >"$T/codes" 2>/dev/null
check_eq "... 16 requests from 4 clients still all 200" 16 \
    "$(grep -c '^200$' "$T/codes")"
http_stop
http_start

# --- a print file rewritten while requests run -------------------------------------
S=$P/prints/demo/bookshop/store/book/statistics.yaml
CTX='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_table_context","arguments":{"table":"bookshop.store.book","format":"json","include_relationships":false},'"$META"'}}'
printf '%s' "$CTX" >"$T/ctx.json"
# The writer rewrites the file (atomically, as generate does) at least
# 40 times and until the readers have 8 answers (slow builds), at most
# 999 times; it leaves the last row_count written in $T/last.
(
	i=1
	while [ $i -le 999 ]; do
		sed "s/^row_count: .*/row_count: $((5000 + i))/" "$S" >"$S.tmp"
		mv "$S.tmp" "$S"
		echo $((5000 + i)) >"$T/last"
		i=$((i + 1))
		sleep 0.02
		[ $i -gt 40 ] && [ "$(cat "$T"/rw.* 2>/dev/null |
		    grep -c '^200$')" -ge 8 ] && break
	done
) &
WPID=$!
: >"$T/rw"
rm -f "$T"/rw.*
RPIDS=""
for c in 1 2 3 4; do
	(
		while kill -0 "$WPID" 2>/dev/null; do
			curl -s --max-time 20 -X POST "$U" \
			    -H 'Content-Type: application/json' -H "$MV" \
			    -H 'Mcp-Method: tools/call' \
			    -H 'Mcp-Name: get_table_context' \
			    --data-binary @"$T/ctx.json" -w '\n%{http_code}\n'
		done >"$T/rw.$c"
	) &
	RPIDS="$RPIDS $!"
done
wait "$WPID"
for p in $RPIDS; do
	wait "$p"
done
cat "$T/rw.1" "$T/rw.2" "$T/rw.3" "$T/rw.4" >"$T/rw"
n=$(grep -c '^{' "$T/rw")
check "requests ran while the file was rewritten" test "$n" -ge 8
check_eq "every one answered 200" "$n" "$(grep -c '^200$' "$T/rw")"
grep '^{' "$T/rw" | jq -r '.result.isError, (.result.content[0].text |
    fromjson | .statistics.row_count // .row_count // "none")' \
    >"$T/rw.vals" 2>"$T/rw.jq"
check_eq "every answer is whole JSON and not an error" "" \
    "$(grep -v '^false$' "$T/rw.vals" | grep -vE '^(2400|5[0-9][0-9][0-9])$'; cat "$T/rw.jq")"
req -X POST "$U" -H 'Content-Type: application/json' -H "$MV" \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_table_context' \
    --data-binary @"$T/ctx.json"
check_eq "the next call after the last rewrite sees it" "$(cat "$T/last")" \
    "$(jq_body '.result.content[0].text | fromjson | .statistics.row_count // .row_count')"

# --- SIGTERM with a request in flight ------------------------------------------------
(
	printf '%s' '{"jsonrpc":"2.0","id":"slow","method":"tools/call",'
	sleep 2.5
	printf '%s' '"params":{"name":"list_tables","arguments":{},'"$META"'}}'
) | curl -s --max-time 20 -X POST "$U" -H 'Content-Type: application/json' \
    -H "$MV" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: list_tables' \
    -H 'Expect:' -T - -w '\n%{http_code}\n' >"$T/slow" 2>&1 &
CPID=$!
sleep 1
kill -TERM "$SPID"
sleep 0.3
curl -s -o /dev/null --max-time 5 -X POST "$U" -H 'Content-Type: application/json' \
    --data-binary "$INIT"
check_eq "after SIGTERM a new connection is refused" 7 "$?"
wait "$CPID"
check_eq "the request in flight is answered in full" "200 slow false" \
    "$(tail -1 "$T/slow") $(head -1 "$T/slow" | jq -r '.id, .result.isError' | tr '\n' ' ' | sed 's/ $//')"
wait "$SPID"
check_eq "... then the server exits 0" 0 "$?"

#!/bin/sh
# t2110-serve-cli.sh - dbprint-serve as a process: the startup checks and
# their exit-1 messages (upstream-mcp.md 1.1-1.3), --call, the in-memory
# index when the index cannot be written, an over-long line, pipelined
# requests, a print file rewritten between two calls, and shutdown on
# EOF, SIGTERM and SIGINT (exit 0).
. "$SRCDIR/tests/lib.sh"

demo_copy

PING='{"jsonrpc":"2.0","id":1,"method":"ping"}'

# --- startup -----------------------------------------------------------
mkdir -p "$T/empty"
out=$(cd "$T/empty" && $VG "$SERVE" </dev/null 2>&1); rc=$?
dir=$(cd "$T/empty" && pwd -P)
check_eq "no .dbprint.yaml: exit 1" 1 "$rc"
check_eq "no .dbprint.yaml: error: <message>" \
    "error: no .dbprint.yaml found in $dir or any parent directory. Run \`dbprint init\` in the project root to create one." \
    "$out"
out=$($VG "$SERVE" --project "$T/nowhere" </dev/null 2>&1); rc=$?
check_eq "--project without a config: exit 1" 1 "$rc"
check_contains "--project names an exact location" \
    "error: no .dbprint.yaml at $T/nowhere/.dbprint.yaml. --project names an exact location" \
    "$out"
out=$($VG "$SERVE" nope --project "$P" </dev/null 2>&1); rc=$?
check_eq "unknown CONNECTION: exit 1 with the bare message" \
    "1 unknown connection 'nope'. Known: ['demo']." "$rc $out"

mkdir -p "$T/multi"
cat >"$T/multi/.dbprint.yaml" <<'YAML'
connections:
  zeta:
    adapter: duckdb
  alpha:
    adapter: duckdb
YAML
out=$($VG "$SERVE" --project "$T/multi" </dev/null 2>&1); rc=$?
check_eq "several connections, none auto: exit 1 with the hint" \
    "1 no CONNECTION supplied and multiple connections defined: ['alpha', 'zeta']. Pass one as the positional argument, or mark one or more with \`auto: true\`." \
    "$rc $out"

out=$($VG "$SERVE" --project "$P" --transport http </dev/null 2>&1); rc=$?
check_eq "--transport http needs --port" \
    "1 --port is required when --transport http." "$rc $out"
out=$($VG "$SERVE" --project "$P" --transport HTTP --host 0.0.0.0 --port 8080 \
    </dev/null 2>&1); rc=$?
check_eq "--host must be loopback (transport is case-insensitive)" \
    "1 --host must be loopback (['127.0.0.1', '::1', 'localhost']); got '0.0.0.0'." \
    "$rc $out"
out=$($VG "$SERVE" --project "$P" --transport carrier-pigeon </dev/null 2>&1)
rc=$?
check_eq "an unknown transport is a usage error" 2 "$rc"
out=$($VG "$SERVE" --help 2>"$T/err"); rc=$?
check_eq "--help exits 0, nothing on stderr" "0 " "$rc $(cat "$T/err")"
check_contains "--help prints the usage" \
    "usage: dbprint-serve [CONNECTION] [--project LOC]" "$out"
check_eq "--help ends with a pointer to the manual" \
    "See dbprint-serve(1) for the details." "$(printf '%s\n' "$out" | tail -1)"
miss=""
for o in $(sed -n '/^\.Sh OPTIONS/,/^\.El/p' "$SRCDIR/man/dbprint-serve.1" |
    sed -n 's/^\.It Fl \\-\([a-z-]*\).*/\1/p'); do
	printf '%s\n' "$out" | grep -q "^  --$o \|^  -., --$o\$" ||
	    miss="$miss --$o"
done
check_eq "--help has a line for every option of the manual" "" "$miss"
check_eq "-V works as --version" "$($VG "$SERVE" --version)" "$($VG "$SERVE" -V)"
check_eq "--version names the program and DBP_VERSION" \
    "dbprint-serve $(sed -n 's/.*define DBP_VERSION[^"]*"\([^"]*\)".*/\1/p' \
    "$SRCDIR/indexer/dbprint.h")" "$($VG "$SERVE" -V)"

# --- --call --------------------------------------------------------------
out=$($VG "$SERVE" --project "$P" --call list_tables '{"pattern": "*"}' \
    2>"$T/err"); rc=$?
check_eq "--call: exit 0 on a result" 0 "$rc"
check_eq "--call: the result's text on stdout" true \
    "$(printf '%s' "$out" | jq '.total > 0 and (.tables | length) == .total')"
out=$($VG "$SERVE" demo --call get_table_context '{}' 2>"$T/err" \
    --project "$P"); rc=$?
check_eq "--call: exit 1 on an error result, nothing on stdout" "1 " \
    "$rc $out"
check_eq "--call: the error text on stderr" \
    "get_table_context requires 'table'." "$(cat "$T/err")"
out=$($VG "$SERVE" --project "$P" --call no_such_tool 2>&1); rc=$?
check_contains "--call: an unknown tool" "1 unknown tool 'no_such_tool'." \
    "$rc $out"
out=$($VG "$SERVE" --project "$P" --call list_tables '{not json' 2>&1); rc=$?
check_contains "--call: arguments that are not JSON" "1 " "$rc "
check_contains "--call: says the arguments are not JSON" "not JSON" "$out"

# --- the index -------------------------------------------------------------
check "the index is built at .dbprint/index/<connection>.sqlite" \
    test -s "$P/.dbprint/index/demo.sqlite"
out=$(printf '%s\n' "$PING" | $VG "$SERVE" --project "$P" \
    --index /dev/null/cannot/demo.sqlite 2>"$T/err"); rc=$?
check_eq "an index that cannot be written: served from memory" \
    '0 {"jsonrpc":"2.0","id":1,"result":{}}' "$rc $out"
check_eq "an index that cannot be written: said once on stderr" 1 \
    "$(grep -c 'in memory' "$T/err")"
out=$($VG "$SERVE" --project "$P" --index /dev/null/cannot/demo.sqlite \
    --call list_tables '{}' 2>/dev/null | jq .total)
check_eq "an in-memory index answers tools" \
    "$($VG "$SERVE" --project "$P" --call list_tables '{}' | jq .total)" \
    "$out"

# --- framing under load ------------------------------------------------------
i=0
: >"$T/many.in"
while [ $i -lt 500 ]; do
	printf '{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' $i >>"$T/many.in"
	i=$((i + 1))
done
$VG "$SERVE" --project "$P" <"$T/many.in" >"$T/many.out" 2>"$T/err"
check_eq "500 pipelined requests: 500 answers, in order" \
    "500 0 499" "$(wc -l <"$T/many.out" | tr -d ' ') $(head -1 "$T/many.out" |
    jq .id) $(tail -1 "$T/many.out" | jq .id)"

{
	printf '{"jsonrpc":"2.0","id":"long","method":"ping","params":{"x":"'
	head -c 4300000 /dev/zero | tr '\0' 'a'
	printf '"}}\n%s\n' "$PING"
} | $VG "$SERVE" --project "$P" >"$T/long.out" 2>"$T/err"
check_eq "an over-long line is answered with an error, and serving goes on" \
    '-32600 null
1' "$(jq -r '.error.code // .id' "$T/long.out" | head -1) $(jq -r .id \
    "$T/long.out" | head -1)
$(jq -r 'select(.result) | .id' "$T/long.out")"

out=$(printf '%s\n' "$PING" | $VG "$SERVE" --project "$P" --log-level debug \
    2>/dev/null)
check_eq "stdout carries frames only, even at --log-level debug" \
    '{"jsonrpc":"2.0","id":1,"result":{}}' "$out"

# --- freshness: a file rewritten between two calls ---------------------------
mkfifo "$T/fin"
# The server opens its output only once the fifo has a writer: create the
# file first so the wait loop below never reads a file not there yet.
: >"$T/fresh.out"
$VG "$SERVE" --project "$P" <"$T/fin" >"$T/fresh.out" 2>"$T/fresh.err" &
pid=$!
exec 3>"$T/fin"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}' >&3
n=0
while [ "$(wc -l <"$T/fresh.out")" -lt 1 ] && [ $n -lt 100 ]; do
	sleep 0.1; n=$((n + 1))
done
# Drop the first table from the manifest's tables map.
m=$P/prints/demo/manifest.yaml
first=$(printf '%s' "$(head -1 "$T/fresh.out")" |
    jq -r '.result.content[0].text | fromjson | .tables[0]')
awk -v fqn="$first" '
	/^tables:/ { intab = 1; print; next }
	intab && /^[^ ]/ { intab = 0 }
	intab && $0 ~ "^  " && $0 !~ "^   " { skip = (index($0, fqn ":") == 3) }
	!(intab && skip) { print }' "$m" >"$T/m.new"
sleep 0.05
cat "$T/m.new" >"$m"
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}' >&3
exec 3>&-
wait $pid
rc=$?
before=$(sed -n 1p "$T/fresh.out" | jq '.result.content[0].text | fromjson | .total')
after=$(sed -n 2p "$T/fresh.out" | jq '.result.content[0].text | fromjson | .total')
check_eq "a rewritten manifest is seen by the next call, no restart" \
    "$((before - 1))" "$after"
check_eq "the table dropped from the manifest is gone" "false" \
    "$(sed -n 2p "$T/fresh.out" | jq --arg t "$first" \
    '.result.content[0].text | fromjson | .tables | index($t) != null')"
check_eq "EOF on stdin: exit 0" 0 "$rc"

# --- shutdown on signals -----------------------------------------------------
# sig_once SIG: start a server on a fifo, send a ping, send SIG as soon as
# the reply is out; prints "<exit status> <reply>".  A server that does
# not end within 10 s is killed and reported as "hung".
sig_once() {
	rm -f "$T/sin" "$T/sig.out"
	mkfifo "$T/sin"
	: >"$T/sig.out"
	$VG "$SERVE" --project "$P" <"$T/sin" >"$T/sig.out" 2>"$T/sig.err" &
	_pid=$!
	exec 3>"$T/sin"
	printf '%s\n' "$PING" >&3
	_n=0
	while [ "$(wc -l <"$T/sig.out")" -lt 1 ] && [ $_n -lt 200 ]; do
		sleep 0.05; _n=$((_n + 1))
	done
	kill -"$1" $_pid
	_n=0
	while kill -0 $_pid 2>/dev/null && [ $_n -lt 200 ]; do
		sleep 0.05; _n=$((_n + 1))
	done
	if kill -0 $_pid 2>/dev/null; then
		kill -KILL $_pid
		wait $_pid
		exec 3>&-
		echo "hung"
		return
	fi
	wait $_pid
	_rc=$?
	exec 3>&-
	echo "$_rc $(cat "$T/sig.out")"
}
for sig in TERM INT; do
	check_eq "SIG$sig while idle: the request before it answered, exit 0" \
	    '0 {"jsonrpc":"2.0","id":1,"result":{}}' "$(sig_once $sig)"
done
bad=""
for i in 1 2 3 4 5 6 7 8; do
	r=$(sig_once TERM)
	[ "$r" = '0 {"jsonrpc":"2.0","id":1,"result":{}}' ] || bad="$bad [$i: $r]"
done
check_eq "SIGTERM right after a reply, 8 times: never missed" "" "$bad"

# --- drop-in flags of `dbprint serve` (upstream-mcp.md 1.1) -------------------
out=$($VG "$SERVE" --no-read-only --transport http </dev/null 2>&1); rc=$?
check_eq "--no-read-only: exit 1, before any other check" \
    "1 Only --read-only is supported." "$rc $out"
out=$($VG "$SERVE" --read-only --no-read-only </dev/null 2>&1); rc=$?
check_eq "the last of --read-only/--no-read-only wins" \
    "1 Only --read-only is supported." "$rc $out"
a=$($VG "$SERVE" --project "$P" --call list_tables 2>&1)
b=$($VG "$SERVE" --no-read-only --read-only --project "$P" --call list_tables 2>&1)
check_eq "--read-only is accepted and changes nothing" "$a" "$b"
check_eq "-V prints the version as --version does" \
    "$($VG "$SERVE" --version)" "$($VG "$SERVE" -V)"

# --- the manual --------------------------------------------------------------
usage=$($VG "$SERVE" --help 2>&1)
syn=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$SRCDIR/man/dbprint-serve.1" |
    sed -n 's/^\.Op Fl \\-\([a-z-]*\).*/--\1/p' | tr '\n' ' ')
miss=""
for o in $syn; do
	case "$usage" in *"[$o "*|*"[$o]"*) ;; *) miss="$miss $o" ;; esac
done
check_eq "usage() names every option of the manual's SYNOPSIS" "" "$miss"
check_eq "the manual's SYNOPSIS has the eleven options" 11 \
    "$(printf '%s' "$syn" | wc -w | tr -d ' ')"

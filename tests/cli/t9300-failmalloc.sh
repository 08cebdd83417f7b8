#!/bin/sh
# t9300-failmalloc.sh - allocation-failure torture (like curl's): both
# programs built with tests/fuzz/failmalloc.c, run over representative calls
# with DBP_FAIL_ALLOC=N failing the N-th allocation and every later one,
# for N = 1..$FM_HEAD and $FM_SPREAD points spread over the rest of the
# call's allocations.  Every run must exit with a status (an error or an
# answer), never die of a signal, never print an ASan or UBSan error.
# Memory leaked on the way out of an out-of-memory failure is checked with
# FM_LEAKS=1 (all eight calls pass it since every node is added through
# srv_json_put); it stays off by default because the points sampled move
# with the allocation count, which differs between libc builds.
#   FM_HEAD (default 25), FM_SPREAD (default 25): how many N per call.
. "$(dirname "$0")/../lib.sh"

FS=$BUILD_ABS/fuzz/failmalloc-serve
FI=$BUILD_ABS/fuzz/failmalloc-index
FM_HEAD=${FM_HEAD:-25}
FM_SPREAD=${FM_SPREAD:-25}
if [ ! -x "$FS" ] || [ ! -x "$FI" ]; then
	fail "failmalloc builds exist" "missing $FS or $FI"
	exit 0
fi
cp -r "$FIX/demo" "$T/p"
rm -rf "$T/p/.dbprint"
I=$T/i.sqlite
"$INDEX" --quiet --project "$T/p" --index "$I"

# torture NAME COMMAND... - the runs of one call; one TAP line.
torture() {
	name=$1
	shift
	k=$(DBP_FAIL_ALLOC_COUNT=1 "$@" 2>&1 >/dev/null |
	    sed -n 's/.*allocations: \([0-9]*\)$/\1/p' | tail -1)
	[ -n "$k" ] || k=2000
	ns=$(awk -v h="$FM_HEAD" -v s="$FM_SPREAD" -v k="$k" 'BEGIN {
		for (i = 1; i <= h && i <= k; i++) print i
		for (j = 1; j <= s; j++) { n = h + int((k - h) * j / s); if (n > h) print n }
	}' | sort -nu)
	if [ "${FM_LEAKS:-0}" = 1 ]; then leaks=1; else leaks=0; fi
	bad=""
	runs=0
	for n in $ns; do
		runs=$((runs + 1))
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$leaks" \
		    DBP_FAIL_ALLOC=$n "$@" >"$T/fm.out" 2>"$T/fm.err"
		rc=$?
		if [ $rc -ge 128 ] || grep -q 'AddressSanitizer\|runtime error:\|LeakSanitizer' "$T/fm.err"; then
			bad="$bad N=$n(rc $rc)"
			[ -s "$T/fm.first" ] || { echo "N=$n: $*"; head -30 "$T/fm.err"; } >"$T/fm.first"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$name: $runs allocation failures (of $k), no crash"
	else
		fail "$name: no crash under allocation failure" "failed at:$bad
$(cat "$T/fm.first")"
		rm -f "$T/fm.first"
	fi
}

torture "dbprint-index --full" "$FI" --quiet --full --project "$T/p" --index "$T/fi.sqlite"
torture "list_tables detail" "$FS" --project "$T/p" --index "$I" --call list_tables '{"detail": true}'
torture "get_table_context" "$FS" --project "$T/p" --index "$I" --call get_table_context '{"table": "bookshop.store.book", "purpose": "query"}'
torture "search_columns" "$FS" --project "$T/p" --index "$I" --call search_columns '{"text": "price"}'
torture "resolve_value" "$FS" --project "$T/p" --index "$I" --call resolve_value '{"table": "bookshop.store.book", "column": "genre", "text": "ya"}'
torture "get_diff" "$FS" --project "$T/p" --index "$I" --call get_diff '{}'
torture "get_reference" "$FS" --project "$T/p" --index "$I" --call get_reference '{"document": "spec", "section": "2"}'
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    '{"jsonrpc":"2.0","id":3,"method":"resources/list"}' \
    '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"dbprint://demo/bookshop.store.book/statistics"}}' >"$T/frames"
torture "stdio session" sh -c "exec \"$FS\" --project \"$T/p\" --index \"$I\" <\"$T/frames\""

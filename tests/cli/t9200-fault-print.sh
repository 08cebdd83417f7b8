#!/bin/sh
# t9200-fault-print.sh - a print file rewritten, truncated or deleted between
# two pages, while one dbprint-serve runs: the next page of a tool's cursor
# walk is the "print changed" error (spec 4.8), the next page of a
# resource read the "file changed on disk" error (spec 8.1); never a page
# of other data.  Uses a generated print of 300 tables (list_tables pages)
# and one statistics.yaml padded past a resource page.
. "$(dirname "$0")/../lib.sh"
. "$SRCDIR/tests/fuzz/serve.sh"

"$GEN" "$T/g" 300 4 >/dev/null || { fail "gen-print"; exit 0; }
P=$T/g/prints/gen
M=$P/manifest.yaml
STATS=$(find "$P" -name statistics.yaml | sort | head -1)
TBL=$(sed -n 's/^table: //p' "$STATS")
REL=${STATS#"$P"/}
# Past one 20,000-character resource page: comment lines at the end.
i=0
while [ $i -lt 600 ]; do
	echo "# padding line $i of a statistics file longer than one page"
	i=$((i + 1))
done >>"$STATS"
cp "$M" "$T/manifest.orig"
cp "$STATS" "$T/stats.orig"
"$INDEX" --quiet --project "$T/g" --index "$T/i.sqlite"
check_eq "the print indexes" 0 $?

srv_start --project "$T/g" --index "$T/i.sqlite"

# walk FAULT FILE ORIG - page 1 of list_tables, FAULT the file, page 2.
walk() {
	cp "$3" "$2"
	srv_call list_tables '{"detail": true}'
	cur=$(printf '%s' "$RT" | jq -r '.next_cursor // empty')
	if [ -z "$cur" ]; then
		fail "list_tables pages (page 1 has next_cursor)" "$RT"
		return
	fi
	case $1 in
	rewrite) sed -i 's/^generated_at: .*/generated_at: '"'"'2027-01-01T00:00:00Z'"'"'/' "$2" ;;
	append) echo "# touched" >>"$2" ;;
	truncate) : >"$2" ;;
	half) head -c $(($(wc -c <"$3") / 2)) "$3" >"$2" ;;
	delete) rm -f "$2" ;;
	same) touch -d '2020-01-01' "$2" ;;
	esac
	srv_call list_tables "{\"detail\": true, \"cursor\": \"$cur\"}"
}
for f in rewrite append truncate half delete; do
	walk $f "$M" "$T/manifest.orig"
	if [ "$RE" = true ]; then
		check_contains "manifest $f between pages: print changed" \
		    "print changed" "$RT"
	else
		fail "manifest $f between pages: an error, not a page" \
		    "$RE: $(printf '%s' "$RT" | head -c 300)"
	fi
done
# Same bytes, new mtime: not a change; the walk goes on.
walk same "$M" "$T/manifest.orig"
check_eq "manifest touched (same bytes): page 2 served" false "$RE"
check_contains "page 2 holds tables" '"table": "gen.' "$RT"
cp "$T/manifest.orig" "$M"

# A context walk (get_table_context json pages) and its statistics file.
ctxwalk() {
	cp "$T/stats.orig" "$STATS"
	srv_call get_table_context "{\"table\": \"$TBL\", \"format\": \"json\"}"
	cur=$(printf '%s' "$RT" | jq -r '.next_cursor // empty' 2>/dev/null)
	[ -n "$cur" ] || return 1
	case $1 in
	rewrite) sed -i 's/^row_count: .*/row_count: 424242/' "$STATS" ;;
	truncate) : >"$STATS" ;;
	delete) rm -f "$STATS" ;;
	esac
	srv_call get_table_context "{\"table\": \"$TBL\", \"format\": \"json\", \"cursor\": \"$cur\"}"
}
for f in rewrite truncate delete; do
	if ctxwalk $f; then
		check_eq "context statistics $f between pages: isError" true "$RE"
		check_contains "context statistics $f: print changed" \
		    "print changed" "$RT"
	else
		skip "the context of $TBL fits one page"
	fi
done
cp "$T/stats.orig" "$STATS"

# Resource pages: page 1 gives version; the file changes; page 2 refused.
URI="dbprint://gen/$TBL/statistics"
rread() {	# rread URI - resources/read; R is the reply frame
	_sid=$((_sid + 1))
	srv_rpc "{\"jsonrpc\":\"2.0\",\"id\":$_sid,\"method\":\"resources/read\",\"params\":{\"uri\":\"$1\"}}"
}
resfault() {
	cp "$T/stats.orig" "$STATS"
	rread "$URI"
	pages=$(printf '%s' "$R" | jq -r '.result._meta.pages // .result.contents[0]._meta.pages // empty')
	ver=$(printf '%s' "$R" | jq -r '.result._meta.version // .result.contents[0]._meta.version // empty')
	if [ -z "$ver" ] || [ "${pages:-1}" -lt 2 ]; then
		fail "statistics resource has 2+ pages and a version" \
		    "$(printf '%s' "$R" | head -c 400)"
		return 1
	fi
	case $1 in
	rewrite) sed -i 's/^row_count: .*/row_count: 424242/' "$STATS" ;;
	append) echo "# touched" >>"$STATS" ;;
	truncate) : >"$STATS" ;;
	delete) rm -f "$STATS" ;;
	esac
	rread "$URI?page=2&version=$ver"
}
for f in rewrite append truncate; do
	resfault $f || continue
	code=$(printf '%s' "$R" | jq -r '.error.code // empty')
	msg=$(printf '%s' "$R" | jq -r '.error.message // empty')
	check_eq "resource $f between pages: a JSON-RPC error" -32602 "$code"
	# A file cut below two pages may be refused for its page number
	# (spec 3.4 allows either -32602 sentence); never served.
	case $msg in
	*"changed on disk"*) ok "resource $f: file changed on disk" ;;
	*"names no page"*) [ $f = truncate ] && ok "resource $f: no such page now" ||
	    fail "resource $f: file changed on disk" "$msg" ;;
	*) fail "resource $f: file changed on disk" "$msg" ;;
	esac
done
if resfault delete; then
	code=$(printf '%s' "$R" | jq -r '.error.code // empty')
	check_eq "resource deleted between pages: an error, no page" \
	    "yes" "$([ -n "$code" ] && echo yes || echo "no: $R")"
fi
# The file restored: page 2 of the new version is served.
cp "$T/stats.orig" "$STATS"
rread "$URI"
ver=$(printf '%s' "$R" | jq -r '.result._meta.version // .result.contents[0]._meta.version // empty')
rread "$URI?page=2&version=$ver"
check_eq "restored file: page 2 of the new version served" 2 \
    "$(printf '%s' "$R" | jq -r '.result._meta.page // .result.contents[0]._meta.page // empty')"

srv_stop
check_eq "the server ends cleanly at EOF" 0 "$SRV_RC"

#!/bin/sh
# t6500-rich-resources.sh - resources and get_diff over the rich fixture
# (fixtures/README.md): golden resources/list of both connections (every
# page), the rejected order_line.carrier_id edge withheld from both its
# sides and from the diff, the declared ship_to edge whose rejection
# withholds nothing, paged reads of the big product_spec files, and the
# broken and hostile cases of connection other.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/print6.sh"

P=$T/rich
cp -R "$FIX/rich" "$P"
M=$P/prints/main
O=$P/prints/other
G=$SRCDIR/tests/golden

rpc() {		# rpc CONNECTION JSON-LINE
	printf '%s\n' "$2" | $VG "$SERVE" "$1" --project "$P" 2>>"$T/.stderr6"
}
list_all() {	# list_all CONNECTION: every URI and mimeType, all pages
	_cur=
	_pages=0
	while :; do
		_pages=$((_pages + 1))
		if [ -z "$_cur" ]; then
			_p='{}'
		else
			_p="{\"cursor\":\"$_cur\"}"
		fi
		rpc "$1" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\",\"params\":$_p}" >"$T/lp"
		jq -r '.result.resources[] | "\(.uri) \(.mimeType)"' "$T/lp"
		_cur=$(jq -r '.result.nextCursor // empty' "$T/lp")
		[ -n "$_cur" ] && [ $_pages -lt 50 ] || break
	done
	echo "pages: $_pages"
}
rread() {	# rread CONNECTION URI: the reply
	rpc "$1" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"$2\"}}"
}
rtext() {	# rtext CONNECTION URI FILE: the text of every page into FILE
	rread "$1" "$2" >"$T/rr"
	_pg=$(jq '.result.contents[0]._meta.pages' "$T/rr")
	_v=$(jq -r '.result.contents[0]._meta.version' "$T/rr")
	jq -j '.result.contents[0].text' "$T/rr" >"$3"
	_i=2
	while [ "$_i" -le "${_pg:-0}" ]; do
		rread "$1" "$2?page=$_i&version=$_v" |
		    jq -j '.result.contents[0].text' >>"$3"
		_i=$((_i + 1))
	done
	echo "${_pg:-0}"
}
rerr() {	# rerr CONNECTION URI: "<code> <message>"
	rread "$1" "$2" | jq -r '"\(.error.code) \(.error.message)"'
}

list_all main >"$T/main.list"
check_file "golden resources/list of main, every page" \
    "$G/t6500-main.list" "$T/main.list"
list_all other >"$T/other.list"
check_file "golden resources/list of other (broken cases)" \
    "$G/t6500-other.list" "$T/other.list"
check "main's list takes more than one page" \
    test "$(sed -n 's/^pages: //p' "$T/main.list")" -ge 2

# The rejected edge, from both sides, and in the diff.
rtext main dbprint://main/depot.sales.order_line/relationships "$T/ol" >/dev/null
check "order_line: the rejected carrier edge is withheld" \
    sh -c "! grep -q 'depot.stock.carrier' '$T/ol'"
check "order_line: the other edges stay" \
    sh -c "grep -q 'depot.stock.product' '$T/ol' && grep -q 'depot.sales.orders' '$T/ol'"
rtext main dbprint://main/depot.stock.carrier/relationships "$T/ca" >/dev/null
check "carrier: withheld from referenced_by too" \
    sh -c "! grep -q 'depot.sales.order_line' '$T/ca'"
rtext main dbprint://main/depot.sales.ship_to/relationships "$T/st" >/dev/null
check "ship_to: a rejection of a declared edge serves the file byte for byte" \
    cmp "$T/st" "$M/depot/sales/ship_to/relationships.yaml"
rtext main dbprint://main/depot.sales.order_line/relationships_annotations "$T/ra" >/dev/null
check "the annotation file itself is served whole" \
    cmp "$T/ra" "$M/depot/sales/order_line/relationships.annotations.yaml"
rtext main dbprint://main/diff "$T/diff" >/dev/null
check "diff resource: relationships_changed counts what is kept" \
    grep -q '^  relationships_changed: 4$' "$T/diff"
out=$(call6x() { $VG "$SERVE" --project "$P" --call get_diff '{}' 2>>"$T/.stderr6"; }; call6x)
check_eq "get_diff: 28 of the 29 events, summary says 4" "28 4" \
    "$(printf '%s' "$out" | jq -r '"\(.total) \(.summary.relationships_changed)"')"
check_eq "get_diff: no event names the rejected edge" 0 \
    "$(printf '%s' "$out" | jq '[.changes[] | select(.source_table == "depot.sales.order_line" and .target_table == "depot.stock.carrier")] | length')"

# Big files page and rejoin byte for byte.
n=$(rtext main dbprint://main/depot.stock.product_spec/description "$T/desc")
check "product_spec description (24 KB) takes 2 or more pages" test "$n" -ge 2
check "its pages rejoin byte for byte" \
    cmp "$T/desc" "$M/depot/stock/product_spec/description.md"
n=$(rtext main dbprint://main/depot/stock/product_spec/ddl "$T/ddl")
check "the 2,000-line ddl.sql, addressed slash-delimited, rejoins" \
    cmp "$T/ddl" "$M/depot/stock/product_spec/ddl.sql"
n=$(rtext main dbprint://main/depot.stock.product_spec/statistics "$T/ps")
check "product_spec statistics (long non-ASCII values) rejoins" \
    cmp "$T/ps" "$M/depot/stock/product_spec/statistics.yaml"

# Connection other: the broken and hostile cases.
check_eq "a table the last run could not profile" \
    "-32602 the last generate run could not profile 'depot.annex.flaky'; run dbprint generate to see the cause" \
    "$(rerr other dbprint://other/depot.annex.flaky/ddl)"
check_eq "an entry that is not a mapping is no table" \
    "-32602 table 'depot.annex.not_a_mapping' not found in connection 'other'. Call list_tables with connection 'other' for valid names." \
    "$(rerr other dbprint://other/depot.annex.not_a_mapping/ddl)"
check_contains "an unparseable statistics.yaml (-32603)" \
    "-32603 $O/depot/annex/bad_stats/statistics.yaml: YAML parse error: " \
    "$(rerr other dbprint://other/depot.annex.bad_stats/statistics)"
check_contains "an unparseable relationships.yaml (-32603)" \
    "-32603 $O/depot/annex/bad_relationships/relationships.yaml: YAML parse error: " \
    "$(rerr other dbprint://other/depot.annex.bad_relationships/relationships)"
rtext other dbprint://other/depot.annex.schema_violation/statistics_annotations "$T/sv" >/dev/null
check "an annotation file breaking its schema is still served raw" \
    cmp "$T/sv" "$O/depot/annex/schema_violation/statistics.annotations.yaml"
rtext other dbprint://other/depot.annex.list_stats/statistics "$T/ls" >/dev/null
check "a statistics.yaml of the wrong shape is served raw" \
    cmp "$T/ls" "$O/depot/annex/list_stats/statistics.yaml"
check_eq "a declared file missing from disk" \
    "-32603 manifest references statistics.yaml but file is absent at $O/depot/annex/missing_file/statistics.yaml. Re-run dbprint generate." \
    "$(rerr other dbprint://other/depot.annex.missing_file/statistics)"
check_eq "a view that declares no statistics" \
    "-32602 statistics is not declared for table 'depot.annex.ddl_only_view' - check the object's type before requesting it; the manifest does not declare every kind for every object." \
    "$(rerr other dbprint://other/depot.annex.ddl_only_view/statistics)"
check_eq "no diff for other" \
    "-32603 no diff available at $O/diff.yaml. Run dbprint diff or dbprint generate first." \
    "$(rerr other dbprint://other/diff)"
check_eq "no reading guide for other" \
    "-32603 no reading guide available at $O/reading.md. Run dbprint generate first." \
    "$(rerr other dbprint://other/reading)"
: >"$T/hostile"
for u in depot.annex.symlink_out/statistics depot.annex.dir_link/ddl \
    depot.annex.dir_link/statistics depot.annex.escape_path/ddl \
    depot/annex/symlink_out/statistics; do
	rread other "dbprint://other/$u" >>"$T/hostile"
done
check_eq "files leading outside the root are refused (-32603)" \
    "-32603 -32603 -32603 -32603 -32603" \
    "$(jq -r .error.code "$T/hostile" | tr '\n' ' ' | sed 's/ $//')"
check "nothing outside the root is ever served" \
    sh -c "! grep -q OUTSIDE-SECRET '$T/hostile'"
check_eq "main is not served by an instance started for other" \
    "-32602 connection 'main' is configured but not served by this instance. Served: ['other']. Restart the server naming it to serve it." \
    "$(rerr other dbprint://main/manifest)"
clean6

#!/bin/sh
# t4100-list-tables.sh - list_tables (spec 4.2) over the rich fixture:
# patterns, failed_tables, detail with the freshness verdict and its
# refusals, warnings, unwalkable entries, an absent and a corrupt
# manifest, and paging with cursors over a 700-table print, including a
# cursor followed after the manifest changed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/calls4.sh"

rich_copy

call4 list_tables '{}'
check_eq "all: exit 0" 0 "$rc"
check_eq "all: 15 walkable tables, code point order" \
    '["depot.sales.customer","depot.sales.customer_overview","depot.sales.order_event","depot.sales.order_line","depot.sales.order_summary","depot.sales.orders","depot.sales.ship_to","depot.sales.shipment","depot.stock.carrier","depot.stock.movement","depot.stock.product","depot.stock.product_spec","depot.stock.quarantine","depot.stock.recount","depot.stock.warehouse"]' \
    "$(jqo .tables)"
check_eq "all: total" 15 "$(jqo .total)"
check_eq "all: key order" '["failed_tables","tables","total"]' "$(jqo keys_unsorted)"
check_eq "all: failed_tables" '["depot.sales.legacy_invoice"]' \
    "$(jqo .failed_tables)"

call4 list_tables '{"pattern":"depot.stock.*"}'
check_eq "prefix glob: 7 tables" 7 "$(jqo .total)"
check_eq "prefix glob: failed_tables filtered away" null "$(jqo .failed_tables)"

call4 list_tables '{"pattern":"*.legacy*"}'
check_eq "only a failed table: empty tables list" '{"failed_tables":["depot.sales.legacy_invoice"],"tables":[],"total":0}' "$(jqo .)"

call4 list_tables '{"pattern":"depot.s[!t]*.c*"}'
check_eq "negated set" '["depot.sales.customer","depot.sales.customer_overview"]' "$(jqo .tables)"
call4 list_tables '{"pattern":"*[a-c]arrier"}'
check_eq "range set" '["depot.stock.carrier"]' "$(jqo .tables)"
call4 list_tables '{"pattern":"depot.sales.[x"}'
check_eq "unclosed [ is literal" '{"tables":[],"total":0}' "$(jqo .)"
call4 list_tables '{"pattern":"DEPOT.*"}'
check_eq "case-sensitive" 0 "$(jqo .total)"
call4 list_tables '{"pattern":"depot?sales?orders"}'
check_eq "? matches one character, dots included" '["depot.sales.orders"]' "$(jqo .tables)"

# detail: the projection and the verdict
call4 list_tables '{"detail":true}'
check_eq "detail: exit 0" 0 "$(printf %s "$rc")"
check_contains "detail: now is an ISO UTC stamp" '"now": "20' "$out"
check_eq "detail: customer projection" \
    '{"table":"depot.sales.customer","type":"table","row_count":2000,"columns":9,"profiled_at":"2026-11-30T04:00:00Z"}' \
    "$(jqo '.tables[] | select(.table=="depot.sales.customer") | {table,type,row_count,columns,profiled_at}')"
check_eq "detail: a catalog-only view has no row_count key" false \
    "$(jqo '.tables[] | select(.table=="depot.sales.customer_overview") | has("row_count")')"
check_eq "detail: rule cascade gives customer_overview 90 days" 90 \
    "$(jqo '.tables[] | select(.table=="depot.sales.customer_overview") | .max_age_days')"
check_eq "detail: the recorded max_age_days wins" 1 \
    "$(jqo '.tables[] | select(.table=="depot.sales.orders") | .max_age_days')"
check_eq "detail: movement falls back to the connection's 1" 1 \
    "$(jqo '.tables[] | select(.table=="depot.stock.movement") | .max_age_days')"
check_eq "detail: every verdict agrees with its age and threshold" 0 \
    "$(jqo '[.tables[] | select(.freshness) | select((.age_days >= .max_age_days) != (.freshness == "stale"))] | length')"
check_eq "detail: age_days has at most two decimals" 0 \
    "$(printf '%s\n' "$out" | grep '"age_days": ' | grep -cvE '"age_days": [0-9]+(\.[0-9]{1,2})?,?$')"
check_eq "detail: age_days spelled for every dated table" \
    "$(jqo '[.tables[] | select(.age_days != null)] | length')" \
    "$(printf '%s\n' "$out" | grep -c '"age_days": ')"
check_eq "detail: key order" \
    '["table","type","row_count","columns","profiled_at","freshness","age_days","max_age_days"]' \
    "$(jqo '.tables[] | select(.table=="depot.sales.orders") | keys_unsorted')"
check_eq "detail: warnings name the size-gated table" \
    '["main: no row count is available without a database, so rules carrying `min_rows` did not apply to depot.stock.movement. Their thresholds come from the rules matching by name alone, or from the connection."]' \
    "$(jqo .warnings)"
check_eq "detail: reply key order" '["failed_tables","now","tables","warnings","total"]' \
    "$(jqo keys_unsorted)"
call4 list_tables '{"detail":true,"pattern":"depot.sales.*"}'
check_eq "detail: no gated table on the page, no warnings" null "$(jqo .warnings)"

# the broken connection
call4 other list_tables '{"detail":true}'
check_eq "other: failed_tables sorted" '["depot.annex.flaky","depot.annex.negative_age"]' \
    "$(jqo .failed_tables)"
check_eq "other: unwalkable entries are skipped" '[]' \
    "$(jqo '[.tables[].table | select(. == "depot.annex.not_a_mapping" or . == "depot.annex.path_not_string")]')"
check_eq "other: negative max_age_days refused, nothing else" \
    '{"table":"depot.annex.negative_age","type":"table","row_count":30,"columns":2,"profiled_at":"2026-11-30T04:00:00Z","threshold_error":"depot.annex.negative_age: max_age_days is -1, which no print can ever satisfy: every table re-extracts on every run and check reports every one of them stale. Use 0 to ask for that deliberately, or a positive number of days."}' \
    "$(jqo '.tables[] | select(.table=="depot.annex.negative_age")')"
check_eq "other: fractional max_age_days refused" \
    '"depot.annex.fractional_age: max_age_days is 2.5, which is not a whole number of days."' \
    "$(jqo '.tables[] | select(.table=="depot.annex.fractional_age") | .threshold_error')"
check_eq "other: filter and sample together refused" \
    "\"connection 'other': table 'depot.annex.both_narrowed' resolves to both a filter (from connection 'other' rules[0]) and a sample (from connection 'other' rules[1]). A table is narrowed by a predicate or by a fraction, never both - drop one of the two keys, or narrow the rule that sets it so it stops matching this table.\"" \
    "$(jqo '.tables[] | select(.table=="depot.annex.both_narrowed") | .threshold_error')"
check_eq "other: an unparseable stamp is dormant" '["dormant",null,7]' \
    "$(jqo '.tables[] | select(.table=="depot.annex.bad_timestamp") | [.freshness,.age_days,.max_age_days]')"
check_eq "other: no profiled_at is dormant, projected as null" '[null,"dormant",null]' \
    "$(jqo '.tables[] | select(.table=="depot.annex.no_profiled_at") | [.profiled_at,.freshness,.age_days]')"
check_eq "other: the view declaring ddl only has no row_count" false \
    "$(jqo '.tables[] | select(.table=="depot.annex.ddl_only_view") | has("row_count")')"

# an absent manifest lists nothing; a corrupt one is the parse error
mv "$R/prints/other/manifest.yaml" "$T/manifest.other"
call4 other list_tables '{}'
check_eq "absent manifest: empty list" '{"tables":[],"total":0}' "$(jqo .)"
printf 'tables: [unclosed\n' >"$R/prints/other/manifest.yaml"
call4 other list_tables '{}'
check_eq "corrupt manifest: exit 1" 1 "$rc"
check_contains "corrupt manifest: YAML parse error" \
    "$R/prints/other/manifest.yaml: YAML parse error:" "$out"
mv "$T/manifest.other" "$R/prints/other/manifest.yaml"

# paging over 700 tables: a project of its own
B=$T/big
mkdir -p "$B/prints/big"
printf 'connections:\n  big:\n    adapter: duckdb\n' >"$B/.dbprint.yaml"
{
	printf 'format_version: 1\nconnection: big\nadapter: duckdb\n'
	printf "generated_at: '2026-11-30T04:00:00Z'\ntables:\n"
	i=700
	while [ $i -gt 0 ]; do
		n=$(printf '%04d' $i)
		printf '  s.t%s:\n    type: table\n    path: s/t%s\n' "$n" "$n"
		printf '    artifacts: {}\n    columns: 3\n    row_count: %d\n' $i
		printf "    profiled_at: '2026-11-30T04:00:00Z'\n    max_age_days: 2\n"
		i=$((i - 1))
	done
} >"$B/prints/big/manifest.yaml"
P=$B
pages4 list_tables '{"detail":true}' tables
check "paging: several pages" test "$npages" -gt 1
check "paging: every page within 20000 characters" test "$maxlen" -le 20000
check_eq "paging: total 700 on every page" "700 " "$totals"
seq -f 's.t%04g' 1 700 >"$T/want"
jq -r .table "$T/items" >"$T/got"
check_file "paging: each table once, in order" "$T/want" "$T/got"
pages4 list_tables '{}' tables
check_eq "paging bare: all 700" 700 "$(wc -l <"$T/items" | tr -d ' ')"

call4 list_tables '{"pattern":"s.t000*"}'
check_eq "pattern over 700: 9 tables, one page" '[9,null]' "$(jqo '[.total,.next_cursor]')"

# cursors: foreign, malformed, and stale after the manifest changed
call4 list_tables '{"detail":true}'
cur=$(jqo .next_cursor | tr -d '"')
call4 list_tables "$(with_cursor "$cur" '{"detail":true,"pattern":"*"}')"
check_eq "cursor under other arguments: exit 1" 1 "$rc"
check_contains "cursor under other arguments: foreign" \
    "this cursor was not issued by list_tables with these arguments." "$out"
call4 list_tables '{"cursor":"x"}'
check_contains "undecodable cursor" "cursor 'x' is not one this server issued." "$out"
call4 list_tables "$(with_cursor "$cur" '{"detail":true}')"
check_eq "cursor followed: exit 0" 0 "$rc"
printf '  s.extra:\n    type: table\n    path: s/extra\n    artifacts: {}\n' \
    >>"$B/prints/big/manifest.yaml"
call4 list_tables "$(with_cursor "$cur" '{"detail":true}')"
check_eq "cursor after the manifest changed: exit 1" 1 "$rc"
check_contains "cursor after the manifest changed: print changed" \
    "the print changed on disk since this cursor was issued, so list_tables cannot resume where it left off." "$out"
call4 list_tables '{}'
check_eq "the change is seen without a restart" 701 "$(jqo .total)"

#!/bin/sh
# t4200-search-columns.sh - search_columns (spec 4.3) over the rich
# fixture: every filter alone and combined, text through names, notes and
# value notes (long and short needles), parts, scoped tables, redacted
# columns, the catalog-only view, unreadable_tables, switched_off_tables,
# the match objects (golden), and paging with a cursor followed after a
# statistics file changed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/calls4.sh"

G=$SRCDIR/tests/golden/tools
rich_copy

# (table, column, part) triples of the matches, one compact array
trip() {
	jqo '[.matches[] | [.table, .column] + (if .part then [.part] else [] end)]'
}

call4 search_columns '{"sensitivity":"*"}'
check_eq "sensitivity *: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$T/sens.json"
check_file "sensitivity *: golden reply" "$G/search-sensitivity-any.json" "$T/sens.json"

call4 search_columns '{"sensitivity":"contact"}'
check_eq "sensitivity contact" \
    '[["depot.sales.customer","email"],["depot.sales.customer","phone"],["depot.sales.order_event","payload",".contact_email"]]' \
    "$(trip)"
call4 search_columns '{"sensitivity":"*name*"}'
check_eq "sensitivity glob" '[["depot.sales.customer","full_name"]]' "$(trip)"
call4 search_columns '{"redacted":"mask"}'
check_eq "redacted mask" \
    '[["depot.sales.customer","email"],["depot.sales.order_event","payload",".contact_email"]]' \
    "$(trip)"
call4 search_columns '{"redacted":"d*"}'
check_eq "redacted drop" \
    '[["depot.sales.customer","birth_date"],["depot.sales.customer","phone"]]' "$(trip)"
call4 search_columns '{"classification":"nope"}'
check_eq "a glob matching no value: empty list, no error" '{"matches":[],"total":0}' "$(jqo .)"
call4 search_columns '{"sql_type":"VARCHAR(2[0-9])"}'
check_eq "sql_type set glob" \
    '[["depot.sales.customer","phone"],["depot.sales.order_line","sku_code"],["depot.sales.orders","order_ref"],["depot.stock.product","category"],["depot.stock.product","sku"]]' \
    "$(trip)"
call4 search_columns '{"pattern":"created_at","classification":"categorical"}'
check_eq "pattern AND classification: none" 0 "$(jqo .total)"
call4 search_columns '{"pattern":"created_at","classification":"temporal"}'
check_eq "pattern AND classification: one" '[["depot.sales.customer","created_at"]]' "$(trip)"

# looks_like, sampled/matched, switched_off_tables
call4 search_columns '{"looks_like":"uuid"}'
check_eq "looks_like uuid carries sampled and matched" \
    '{"table":"depot.sales.customer","column":"customer_id","sql_type":"VARCHAR(36)","classification":"text","row_count":2000,"looks_like":"uuid","sampled":1000,"matched":1000,"candidate_key":true}' \
    "$(jqo '.matches[0]')"
check_eq "looks_like: switched_off_tables before matches" \
    '["switched_off_tables","matches","total"]' "$(jqo keys_unsorted)"
check_eq "looks_like: movement switched off, warehouse (timeline) not" \
    '["depot.stock.movement"]' "$(jqo .switched_off_tables)"
call4 search_columns '{"sensitivity":"*"}'
check_eq "no looks_like filter: no switched_off_tables" null "$(jqo .switched_off_tables)"

# candidate_key, and the catalog-only view
call4 search_columns '{"candidate_key":true,"pattern":"*email*"}'
check_eq "candidate_key true with its exception" \
    '[["depot.sales.customer","email","measured_duplicates"]]' \
    "$(jqo '[.matches[] | [.table,.column,.candidate_key_exception]]')"
call4 search_columns '{"candidate_key":false}'
check_eq "candidate_key false: never a catalog-only column" 0 \
    "$(jqo '[.matches[] | select(.table=="depot.sales.customer_overview")] | length')"
check_eq "candidate_key false: never a part" 0 \
    "$(jqo '[.matches[] | select(.part)] | length')"
check_contains "candidate_key false: segment (ratio known, no key)" \
    '["depot.sales.customer","segment"]' "$(trip)"
call4 search_columns '{"pattern":"*","sql_type":"*"}'
check_eq "catalog-only view: reached by pattern and sql_type" 5 \
    "$(jqo '[.matches[] | select(.table=="depot.sales.customer_overview")] | length')"
call4 search_columns '{"pattern":"*","sensitivity":"*"}'
check_eq "catalog-only view: never by sensitivity" 0 \
    "$(jqo '[.matches[] | select(.table=="depot.sales.customer_overview")] | length')"

# text: names, notes, value notes; case-insensitive; ANDed
call4 search_columns '{"text":"money returned"}'
check_eq "text through a value note carries value_notes" \
    '{"table":"depot.sales.orders","column":"status","value_notes":[{"value":"refunded","note":"Money returned after delivery; a credit note exists"}]}' \
    "$(jqo '.matches[0] | {table,column,value_notes}')"
call4 search_columns '{"text":"LIFECYCLE"}'
check_eq "text through the column note: no value_notes" \
    '[["depot.sales.orders","status",false]]' \
    "$(jqo '[.matches[] | [.table,.column,has("value_notes")]]')"
call4 search_columns '{"text":"lifecycle"}'
out_lower=$out
call4 search_columns '{"text":"LiFeCyClE"}'
check_eq "text is case-insensitive" "$out_lower" "$out"
call4 search_columns '{"text":"sku"}'
check_eq "text reads a part as column+path" \
    '[["depot.sales.order_event","lines","[*].sku"],["depot.sales.order_line","sku_code"],["depot.stock.product","sku"]]' \
    "$(trip)"
call4 search_columns '{"text":"sku","pattern":"sku*"}'
check_eq "text AND pattern" '[["depot.sales.order_line","sku_code"],["depot.stock.product","sku"]]' "$(trip)"
# A set is no literal: "[bep]*" narrows by nothing (it once narrowed by
# "bep"), and matches what "b*", "e*" and "p*" match together.
n=0
for c in b e p; do
	call4 search_columns "{\"pattern\":\"[$c]*\"}"
	n=$((n + $(jqo .total)))
done
call4 search_columns '{"pattern":"[bep]*"}'
check_eq "pattern with a set of three: the union of its letters" "$n" "$(jqo .total)"
check_eq "pattern with a set of three: some matches" 1 "$([ "$n" -gt 2 ] && echo 1)"
# a two-letter needle cannot use the trigram index: the scan path
call4 search_columns '{"text":"lL"}'
check_eq "short needle: every match holds it" 0 \
    "$(jqo '[.matches[] | select(((.column + (.part // "")) | ascii_downcase | contains("ll")) or ((.annotation // "") | ascii_downcase | contains("ll")) or ((.value_notes // []) | length > 0) | not)] | length')"
check_eq "short needle: a value-note match" '[{"value":48,"note":"Full pallet layer, priced per layer"}]' \
    "$(jqo '.matches[] | select(.column=="pack_size") | .value_notes')"
call4 search_columns '{"text":"pallet"}'
check_eq "value note on a number value" '[{"value":48,"note":"Full pallet layer, priced per layer"}]' \
    "$(jqo '.matches[0].value_notes')"
call4 search_columns '{"text":"zzzzzz"}'
check_eq "text matching nothing" '{"matches":[],"total":0}' "$(jqo .)"

# parts
call4 search_columns '{"pattern":"lines[[]*].*"}'
check_eq "pattern over parts with part and occurrences" \
    '[["lines","[*].sku",97200],["lines","[*].qty",97200]]' \
    "$(jqo '[.matches[] | [.column,.part,.occurrences]]')"
call4 search_columns '{"pattern":"payload*"}'
check_eq "a column then its parts in file order" \
    '["payload",null,"[keys]",".status",".order_id",".channel",".source",".contact_email","[\"gift-wrap\"]"]' \
    "$(jqo '[.matches[0].column] + [.matches[] | .part]')"

# scope
call4 search_columns '{"pattern":"movement_type"}'
check_eq "scoped table: rows_scanned, scope verbatim, row_count" \
    '{"row_count":1250000,"rows_scanned":12500,"scope":{"rows_scanned":12500,"sample":0.01}}' \
    "$(jqo '.matches[0] | {row_count,rows_scanned,scope}')"
call4 search_columns '{"pattern":"email"}'
check_eq "unscoped: no rows_scanned" false "$(jqo '.matches[0] | has("rows_scanned")')"

# the broken connection: unreadable_tables, annotation-only matches
call4 other search_columns '{"pattern":"label"}'
check_eq "unreadable_tables sorted" \
    '["depot.annex.bad_annotations","depot.annex.bad_stats","depot.annex.schema_violation"]' \
    "$(jqo .unreadable_tables)"
check_eq "corrupt statistics: matched through its annotation only" \
    '{"table":"depot.annex.bad_stats","column":"label","sql_type":"","classification":""}' \
    "$(jqo '.matches[] | select(.table=="depot.annex.bad_stats") | {table,column,sql_type,classification}')"
call4 other search_columns '{"pattern":"batch_id"}'
check_eq "corrupt statistics: its other columns are absent" 0 \
    "$(jqo '[.matches[] | select(.table=="depot.annex.bad_stats")] | length')"
call4 other search_columns '{"pattern":"label"}'
check_eq "corrupt annotations: columns kept, no annotation" '["label",false]' \
    "$(jqo '.matches[] | select(.table=="depot.annex.bad_annotations") | [.column, has("annotation")]')"
check_eq "outside the root: never read" 0 \
    "$(printf '%s' "$out" | grep -c 'OUTSIDE-SECRET')"

# paging: a print of 400 tables x 3 columns, cursor over a changed file
B=$T/big
mkdir -p "$B/prints/big"
printf 'connections:\n  big:\n    adapter: duckdb\n' >"$B/.dbprint.yaml"
{
	printf 'format_version: 1\nconnection: big\nadapter: duckdb\n'
	printf "generated_at: '2026-11-30T04:00:00Z'\ntables:\n"
} >"$B/prints/big/manifest.yaml"
i=1
while [ $i -le 400 ]; do
	n=$(printf '%03d' $i)
	d=$B/prints/big/s/t$n
	mkdir -p "$d"
	printf '  s.t%s:\n    type: table\n    path: s/t%s\n    artifacts:\n      statistics: statistics.yaml\n    columns: 3\n    row_count: 10\n' \
	    "$n" "$n" >>"$B/prints/big/manifest.yaml"
	{
		printf 'format_version: 1\ntable: s.t%s\ntype: table\n' "$n"
		printf "profiled_at: '2026-11-30T04:00:00Z'\nrow_count: 10\n"
		printf 'row_count_method: exact\ncolumns:\n'
		for c in a_id b_code c_note; do
			printf '  %s:\n    sql_type: VARCHAR\n    nullable: false\n' $c
			printf '    null_count: 0\n    null_rate: 0.0\n'
			printf '    classification: text\n'
			printf '    inferred:\n      sensitivity: contact\n'
		done
	} >"$d/statistics.yaml"
	i=$((i + 1))
done
P=$B
pages4 search_columns '{"sensitivity":"contact"}' matches
check "paging: several pages" test "$npages" -gt 1
check "paging: every page within 20000 characters" test "$maxlen" -le 20000
check_eq "paging: total 1200 on every page" "1200 " "$totals"
jq -r '.table + "." + .column' "$T/items" >"$T/got"
sort "$T/got" >"$T/want"
check_file "paging: each match once, in (table, column) order" "$T/want" "$T/got"
check_eq "paging: 1200 matches" 1200 "$(wc -l <"$T/got" | tr -d ' ')"
call4 search_columns '{"sensitivity":"contact"}'
cur=$(jqo .next_cursor | tr -d '"')
call4 search_columns "$(with_cursor "$cur" '{"sensitivity":"contact"}')"
check_eq "cursor followed: exit 0" 0 "$rc"
printf '  extra:\n    sql_type: INT\n    nullable: true\n    null_count: 0\n    null_rate: 0.0\n    classification: numeric\n' \
    >>"$B/prints/big/s/t399/statistics.yaml"
call4 search_columns "$(with_cursor "$cur" '{"sensitivity":"contact"}')"
check_eq "cursor after a statistics file changed: exit 1" 1 "$rc"
check_contains "cursor after a statistics file changed: print changed" \
    "the print changed on disk since this cursor was issued, so search_columns cannot resume where it left off." "$out"
call4 search_columns '{"pattern":"extra"}'
check_eq "the changed file is read without a restart" '[["s.t399","extra"]]' "$(trip)"

# an absent manifest matches nothing; a corrupt one is its parse error
P=$R
mv "$R/prints/other/manifest.yaml" "$T/manifest.other"
call4 other search_columns '{"pattern":"*"}'
check_eq "absent manifest: no matches" '{"matches":[],"total":0}' "$(jqo .)"
printf 'tables: [unclosed\n' >"$R/prints/other/manifest.yaml"
call4 other search_columns '{"pattern":"*"}'
check_eq "corrupt manifest: exit 1" 1 "$rc"
check_contains "corrupt manifest: YAML parse error" \
    "$R/prints/other/manifest.yaml: YAML parse error:" "$out"
mv "$T/manifest.other" "$R/prints/other/manifest.yaml"
call4 other search_columns '{"pattern":"label"}'
check_eq "restored manifest: matches again" 10 "$(jqo .total)"

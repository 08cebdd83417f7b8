#!/bin/sh
# t4300-resolve-value.sh - resolve_value (spec 4.7) over the rich and demo
# fixtures: each match kind (stored, definition, nearest, none, every
# unavailable reason), coverage / exhaustive / listed / sample_caveat /
# domain, parts, scoped tables, redacted columns, every error sentence,
# and paging of a domain of large values with every scalar on every page,
# including a cursor followed after the statistics file changed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/calls4.sh"

G=$SRCDIR/tests/golden/tools
rich_copy

rv() {	# rv [CONN] JSON
	if [ $# -ge 2 ]; then call4 "$1" resolve_value "$2"; else
		call4 resolve_value "$1"; fi
}

# stored: every spelling that folds to the text, golden whole reply
rv '{"table":"depot.sales.customer","column":"segment","text":"RETAIL"}'
check_eq "stored: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$T/stored.json"
check_file "stored: golden reply" "$G/resolve-stored.json" "$T/stored.json"
check_eq "stored: key order" \
    '["table","column","text","coverage","exhaustive","listed","match","spellings","domain","total"]' \
    "$(jqo keys_unsorted)"
rv '{"table":"depot.sales.customer","column":"segment","text":"  trade "}'
check_eq "stored: trimmed of spaces" '["Trade","trade"]' "$(jqo '[.spellings[].value]')"
rv '{"table":"depot.sales.orders","column":"pack_size","text":"12"}'
check_eq "stored: text 12 is the number 12; numeric complete list" \
    '{"match":"stored","coverage":null,"exhaustive":true,"listed":5,"spellings":[{"value":12,"count":9000}],"nd":5,"caveat":false}' \
    "$(jqo '{match,coverage,exhaustive,listed,spellings,nd:(.domain|length),caveat:has("sample_caveat")}')"

# definition, on word boundaries either way round
rv '{"table":"depot.sales.orders","column":"status","text":"Credit"}'
check_eq "definition: every value whose note names the text, list order" \
    '["definition",["on_hold","refunded"]]' "$(jqo '[.match,[.candidates[].value]]')"
rv '{"table":"depot.sales.orders","column":"status","text":"cred"}'
check_eq "definition: a word fragment is no definition" '"none"' "$(jqo .match)"
rv '{"table":"depot.sales.ship_to","column":"state_or_district","text":"the District of Columbia please"}'
check_eq "definition: the note inside the text" \
    '["definition",[{"value":"DC","count":60,"note":"District of Columbia"}]]' \
    "$(jqo '[.match,.candidates]')"

# nearest
rv '{"table":"depot.sales.orders","column":"status","text":"refundd"}'
check_eq "nearest: scored candidate" \
    '["nearest",[{"value":"refunded","count":700,"note":"Money returned after delivery; a credit note exists","score":0.5833}]]' \
    "$(jqo '[.match,.candidates]')"
rv '{"table":"depot.sales.orders","column":"total_amount","text":"12.5"}'
check_eq "nearest: at the floor, on a sampled list with its caveat" \
    '["nearest",[0.3],false,"the print lists 20 of the column'"'"'s values; a spelling absent here is not evidence that it is absent from the column",false]' \
    "$(jqo '[.match,[.candidates[].score],.exhaustive,.sample_caveat,has("domain")]')"
rv '{"table":"depot.sales.customer","column":"segment","text":"Retai"}'
check "nearest: at most five" test "$(jqo '.candidates | length')" -le 5
check_eq "nearest: scores descending, ties by value" true \
    "$(jqo '[.candidates[] | [-.score, .value]] | . == sort')"
check_eq "nearest: three spellings tie, broken by str(value)" '["RETAIL ","Retail","retail"]' \
    "$(jqo '[.candidates[].value]')"

# none, domain limits
rv '{"table":"depot.sales.orders","column":"status","text":"zzzzzzzzzz"}'
check_eq "none: no candidates key, the domain" '["none",false,6,6]' \
    "$(jqo '[.match,has("candidates"),(.domain|length),.total]')"
rv '{"table":"depot.sales.ship_to","column":"state_code","text":"zzzzzzzzzz"}'
check_eq "domain at exactly 50 entries" 50 "$(jqo '.domain | length')"
rv '{"table":"depot.sales.ship_to","column":"state_or_district","text":"zzzzzzzzzz"}'
check_eq "no domain at 51 entries" false "$(jqo 'has("domain")')"
rv '{"table":"depot.stock.quarantine","column":"reason","text":"water"}'
check_eq "empty exhaustive list: none with an empty domain" \
    '{"match":"none","exhaustive":true,"listed":0,"domain":[],"total":0}' \
    "$(jqo '{match,exhaustive,listed,domain,total}')"

# unavailable, each reason
rv '{"table":"depot.sales.orders","column":"promo_code","text":"x"}'
check_eq "unavailable: unmeasured" \
    '{"table":"depot.sales.orders","column":"promo_code","text":"x","match":"unavailable","reason":"column '"'"'promo_code'"'"' values are unmeasured: the read failed this run","coverage":null,"exhaustive":false,"listed":0,"total":0}' \
    "$(jqo .)"
rv '{"table":"depot.sales.orders","column":"notes","text":"x"}'
check_contains "unavailable: prose publishes no values" \
    "column 'notes' publishes no values: " "$(jqo .reason)"
rv '{"table":"depot.sales.customer","column":"email","text":"a@b.c"}'
check_eq "unavailable: redacted mask" \
    "\"column 'email' is redacted (mask), so its values are withheld\"" "$(jqo .reason)"
check_eq "unavailable: no caveat when unscoped" false "$(jqo 'has("sample_caveat")')"
rv '{"table":"depot.sales.customer","column":"phone","text":"555"}'
check_eq "unavailable: redacted drop" \
    "\"column 'phone' is redacted (drop), so its values are withheld\"" "$(jqo .reason)"
rv '{"table":"depot.stock.recount","column":"bin_label","text":"A1"}'
check_eq "unavailable: a scan of no rows, scoped keys kept" \
    '{"match":"unavailable","reason":"the scan read no rows, so there is no value list to match the phrase against","exhaustive":false,"row_count":8400,"rows_scanned":0,"domain":false,"caveat":true}' \
    "$(jqo '{match,reason,exhaustive,row_count,rows_scanned:.scope.rows_scanned,domain:has("domain"),caveat:has("sample_caveat")}')"
rv other '{"table":"depot.annex.ddl_only_view","column":"label","text":"new"}'
check_eq "unavailable: no statistics artifact" \
    '{"table":"depot.annex.ddl_only_view","column":"label","text":"new","match":"unavailable","reason":"table '"'"'depot.annex.ddl_only_view'"'"' declares no statistics artifact","coverage":null,"exhaustive":false,"listed":0,"total":0}' \
    "$(jqo .)"

# scoped table and parts
rv '{"table":"depot.stock.movement","column":"movement_type","text":"PICK"}'
check_eq "scoped: stored, never exhaustive, scope and row_count, caveat" \
    '{"match":"stored","exhaustive":false,"scope":{"rows_scanned":12500,"sample":0.01},"row_count":1250000,"sample_caveat":"the list is the whole domain over the rows scanned, not over the table; a spelling absent here is not evidence that it is absent from the column","nd":5}' \
    "$(jqo '{match,exhaustive,scope,row_count,sample_caveat,nd:(.domain|length)}')"
rv '{"table":"depot.sales.order_event","column":"payload","part":".status","text":"Ok"}'
check_eq "part: stored spellings of the part, part in the reply" \
    '{"part":".status","match":"stored","spellings":[{"value":"ok","count":80000},{"value":"OK","count":9000,"spelling_of":"ok"}]}' \
    "$(jqo '{part,match,spellings}')"
check_eq "part: key order" \
    '["table","column","part","text","coverage","exhaustive","listed","match","spellings","domain","total"]' \
    "$(jqo keys_unsorted)"
rv '{"table":"depot.sales.order_event","column":"payload","part":"[\"gift-wrap\"]","text":"true"}'
check_eq "part: booleans read as Python str" '[true]' "$(jqo '[.spellings[].value]')"

# errors
rv '{"table":"depot.sales.orders","column":"stat","text":"x"}'
check_eq "unknown column: exit 1" 1 "$rc"
check_eq "unknown column: names the columns" \
    "column 'stat' not found in table 'depot.sales.orders'. Columns: customer_id, notes, order_id, order_ref, pack_size, placed_at, promo_code, status, total_amount, warehouse_id." \
    "$out"
rv '{"table":"depot.sales.order_event","column":"payload","part":".nope","text":"x"}'
check_eq "unknown part: names the parts" \
    "part '.nope' not found in column 'payload' of table 'depot.sales.order_event'. Parts: .channel, .contact_email, .order_id, .source, .status, [\"gift-wrap\"], [keys]." \
    "$out"
rv '{"table":"depot.sales.orders","column":"status","part":".x","text":"x"}'
check_eq "a column without parts" \
    "part '.x' not found in column 'status' of table 'depot.sales.orders'. Parts: none - the column lists no parts." \
    "$out"
rv '{"table":"depot.sales.nope","column":"status","text":"x"}'
check_eq "unknown table" \
    "table 'depot.sales.nope' not found in connection 'main'. Call list_tables with connection 'main' for valid names." \
    "$out"
rv '{"table":"depot.sales.legacy_invoice","column":"status","text":"x"}'
check_eq "a table the last run could not profile" \
    "the last generate run could not profile 'depot.sales.legacy_invoice'; run dbprint generate to see the cause" \
    "$out"
O=$R/prints/other/depot/annex
rv other '{"table":"depot.annex.bad_stats","column":"label","text":"new"}'
check_eq "corrupt statistics: exit 1" 1 "$rc"
check_contains "corrupt statistics: the parse error, never not found" \
    "$O/bad_stats/statistics.yaml: YAML parse error:" "$out"
rv other '{"table":"depot.annex.missing_file","column":"label","text":"new"}'
check_eq "missing statistics" \
    "manifest references statistics.yaml but file is absent at $O/missing_file/statistics.yaml. Re-run dbprint generate." \
    "$out"
rv other '{"table":"depot.annex.bad_annotations","column":"label","text":"new"}'
check_contains "corrupt annotations fail the call" \
    "$O/bad_annotations/statistics.annotations.yaml: YAML parse error:" "$out"
rv other '{"table":"depot.annex.schema_violation","column":"label","text":"new"}'
check_eq "annotations off their schema" \
    "$O/schema_violation/statistics.annotations.yaml: does not match its schema (SPEC 2.7): columns.label.values[0]: 'note' is a required property" \
    "$out"
rv other '{"table":"depot.annex.list_stats","column":"label","text":"new"}'
check_eq "statistics that are no mapping list no columns" \
    "column 'label' not found in table 'depot.annex.list_stats'. Columns: none - the table's statistics list no columns." \
    "$out"
rv other '{"table":"depot.annex.symlink_out","column":"label","text":"OUTSIDE-SECRET"}'
check_contains "statistics outside the root are not read" "leads outside the print root" "$out"
rv other '{"table":"depot.annex.control","column":"label","text":"scrapped"}'
check_eq "control table: nearest scrap" '["nearest","scrap"]' "$(jqo '[.match,.candidates[0].value]')"

# paging: 43 values, 40 of them over 2,000 characters
rv '{"table":"depot.stock.product_spec","column":"spec_text","text":"zzzz"}'
cur=$(jqo .next_cursor | tr -d '"')
check "big domain: a next_cursor" test -n "$cur"
pages4 resolve_value '{"table":"depot.stock.product_spec","column":"spec_text","text":"zzzz"}' domain
check "big domain: several pages" test "$npages" -gt 2
check "big domain: every page within 20000 characters" test "$maxlen" -le 20000
check_eq "big domain: total 43 on every page" "43 " "$totals"
check_eq "big domain: 43 entries" 43 "$(wc -l <"$T/items" | tr -d ' ')"
a='{"table":"depot.stock.product_spec","column":"spec_text","text":"zzzz"}'
call4 resolve_value "$(with_cursor "$cur" "$a")"
check_eq "every scalar rides a later page" \
    '["table","column","text","coverage","exhaustive","listed","match"]' \
    "$(jqo '[keys_unsorted[] | select(. != "domain" and . != "total" and . != "next_cursor")]')"
printf '\n' >>"$R/prints/main/depot/stock/product_spec/statistics.yaml"
call4 resolve_value "$(with_cursor "$cur" "$a")"
check_eq "cursor after the statistics changed: exit 1" 1 "$rc"
check_contains "cursor after the statistics changed: print changed" \
    "the print changed on disk since this cursor was issued, so resolve_value cannot resume where it left off." "$out"
# spellings are walked before the domain: a stored match on the big list
rv '{"table":"depot.stock.product_spec","column":"spec_text","text":"superseded"}'
check_eq "stored on the big list: spellings first" '["spellings","domain"]' \
    "$(jqo '[keys_unsorted[] | select(. == "spellings" or . == "domain")]')"

# the demo print's documented answers
P=$T/demo
cp -R "$FIX/demo" "$P"
rv '{"table":"bookshop.store.customer_order","column":"status","text":"shipped"}'
check_eq "demo: shipped is stored three ways" \
    '["stored",[["Shipped",820],["shipped ",140],["SHIPPED",60]]]' \
    "$(jqo '[.match,[.spellings[] | [.value,.count]]]')"
rv '{"table":"bookshop.store.customer_order","column":"status","text":"refunded"}'
check_eq "demo: refunded is a definition of returned" '["definition",["returned"]]' \
    "$(jqo '[.match,[.candidates[].value]]')"

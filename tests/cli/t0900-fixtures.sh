#!/bin/sh
# t0900-fixtures.sh - the project's own fixture prints are what
# fixtures/README.md says they are: demo and rich/main index with no error,
# rich/other reports each of its broken tables, the big-value and exact-size
# cases hold, and the escape cases are symlinks and '..' as committed.
. "$(dirname "$0")/../lib.sh"

cp -R "$FIX/demo" "$FIX/rich" "$T/"
q() {	# q DB SQL - one sqlite3 query over an index
	sqlite3 -batch -noheader "$T/$1" "$2"
}

# demo: one connection, five tables, no errors.
$VG "$INDEX" --project "$T/demo" --json >"$T/demo.json" 2>"$T/demo.err"
check_eq "demo indexes (exit 0)" 0 $?
check_eq "demo: 5 tables, no errors" '5 0' \
    "$(jq -r '"\(.tables) \(.errors|length)"' "$T/demo.json")"
DB=demo/.dbprint/index/demo.sqlite
check_eq "demo: status spellings of Shipped" "SHIPPED|60
shipped |140" \
    "$(q $DB "SELECT v.text, v.count FROM column_values v JOIN columns c ON c.id = v.column_id
    WHERE c.table_fqn = 'bookshop.store.customer_order' AND c.name = 'status'
    AND v.spelling_of = '\"Shipped\"' ORDER BY v.text")"
check_eq "demo: sensitive columns" "bookshop.store.author.full_name
bookshop.store.customer.email
bookshop.store.customer.full_name" \
    "$(q $DB "SELECT table_fqn || '.' || name FROM columns WHERE sensitivity IS NOT NULL ORDER BY 1")"

# rich/main: every shape, all of it well formed.
$VG "$INDEX" --project "$T/rich" --json main other >"$T/rich.json" 2>"$T/rich.err"
check_eq "rich indexes (exit 0)" 0 $?
check_eq "rich/main: 15 tables, no errors" '15 0' \
    "$(jq -r '.[0] | "\(.tables) \(.errors|length)"' "$T/rich.json")"
M=rich/.dbprint/index/main.sqlite
check_eq "main: 50- and 51-entry complete lists" "state_code|50|1
state_or_district|51|1" \
    "$(q $M "SELECT name, listed, complete FROM columns WHERE table_fqn = 'depot.sales.ship_to'
    AND name LIKE 'state%' ORDER BY name")"
check_eq "main: 40 values over 2,000 characters in product_spec.spec_text" 40 \
    "$(q $M "SELECT count(*) FROM column_values v JOIN columns c ON c.id = v.column_id
    WHERE c.table_fqn = 'depot.stock.product_spec' AND c.name = 'spec_text' AND length(v.text) > 2000")"
check_eq "main: product_spec ddl.sql is 2,000 lines" 2000 \
    "$(wc -l <"$FIX/rich/prints/main/depot/stock/product_spec/ddl.sql" | tr -d ' ')"
check_eq "main: parts of order_event" '.channel .contact_email .order_id .source .status ["gift-wrap"] [*] [*].qty [*].sku [keys]' \
    "$(q $M "SELECT part FROM columns WHERE table_fqn = 'depot.sales.order_event' AND part <> ''
    ORDER BY part" | tr '\n' ' ' | sed 's/ $//')"
check_eq "main: scope blocks" 'depot.stock.movement|12500
depot.stock.recount|0' \
    "$(q $M "SELECT fqn, rows_scanned FROM tables WHERE scoped = 1 ORDER BY fqn")"
check_eq "main: catalog-only view" depot.sales.customer_overview \
    "$(q $M "SELECT fqn FROM tables WHERE catalog_only = 1")"
check_eq "main: disabled lists" 'depot.stock.movement|["looks_like"]
depot.stock.warehouse|["timeline"]' \
    "$(q $M "SELECT fqn, disabled FROM tables WHERE disabled IS NOT NULL ORDER BY fqn")"
check_eq "main: redacted columns" 'birth_date|drop
email|mask
full_name|hash
payload|mask
phone|drop' \
    "$(q $M "SELECT name, redacted FROM columns WHERE redacted IS NOT NULL ORDER BY name")"
check_contains "main: derived_from in an annotation" '"depot.sales.customer"' \
    "$(q $M "SELECT derived_from FROM columns WHERE table_fqn = 'depot.sales.customer_overview' AND name = 'segment'")"
check_contains "main: derived_from in statistics.yaml" '"depot.sales.orders"' \
    "$(q $M "SELECT derived_from FROM columns WHERE table_fqn = 'depot.sales.order_summary' AND name = 'status'")"

# rich/other: the broken cases are reported, each on its own file.
errs=$(jq -r '.[1].errors[].path' "$T/rich.json" | sort | tr '\n' ' ')
for p in depot/annex/bad_stats/statistics.yaml \
    depot/annex/bad_annotations/statistics.annotations.yaml \
    depot/annex/schema_violation/statistics.annotations.yaml \
    depot/annex/bad_relationships/relationships.yaml \
    depot/annex/bad_relationships/relationships.annotations.yaml \
    depot/annex/list_stats/statistics.yaml \
    depot/annex/missing_file/statistics.yaml \
    depot/annex/symlink_out/statistics.yaml; do
	check_contains "other: $p reported" "$p" "$errs"
done
case "$errs" in *control*) fail "other: the control table reports nothing" "$errs" ;;
*) ok "other: the control table reports nothing" ;; esac
check "other: statistics.yaml of symlink_out is a symlink" \
    test -L "$FIX/rich/prints/other/depot/annex/symlink_out/statistics.yaml"
check "other: dir_link is a symlink" test -L "$FIX/rich/prints/other/depot/annex/dir_link"
check "other: the outside file exists (so not reading it is a choice)" \
    test -f "$FIX/rich/prints/outside/statistics.yaml"
O=rich/.dbprint/index/other.sqlite
check_eq "other: nothing from outside the root was indexed" 0 \
    "$(q $O "SELECT count(*) FROM column_values WHERE text LIKE '%OUTSIDE-SECRET%'")"

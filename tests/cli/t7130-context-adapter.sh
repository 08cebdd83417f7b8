#!/bin/sh
# t7130-context-adapter.sh - get_table_context's "Adapter:" line is the
# manifest's top-level adapter when that is text, as
# json_extract(doc, '$.adapter') reads it from the indexed document
# (tool_context.c, tc_manifest), or absent.  Since schema 11 that
# document holds its tables member as {}, so the reading costs what the
# header holds.  The manifests below:
#   - adapter near the top (as dbprint writes it);
#   - adapter last, after the whole tables mapping, with quotes,
#     backslashes and non-ASCII in its value;
#   - a nested "adapter" key before the top-level one;
#   - adapter a number, adapter null, a mapping, no adapter at all;
#   - a top-level key holding an escape.
. "$(dirname "$0")/../lib.sh"

P=$T/p
M=$P/prints/main/manifest.yaml

# case NAME - index the edited copy, compare the Adapter: line
case_check() {
	"$INDEX" --quiet --project "$P" main >/dev/null 2>&1
	ix=$P/.dbprint/index/main.sqlite
	want=$(sqlite3 "$ix" "SELECT CASE WHEN typeof(json_extract(doc,
	    '\$.adapter')) = 'text' THEN 'Adapter: ' || json_extract(doc,
	    '\$.adapter') ELSE '' END FROM files WHERE path = 'manifest.yaml'")
	"$SERVE" --project "$P" main --call get_table_context \
	    '{"table": "depot.sales.orders"}' >"$T/out" 2>"$T/err"
	got=$(grep '^Adapter: ' "$T/out" | head -1)
	check_eq "$1: the context's adapter line" "$want" "$got"
	check_contains "$1: the context names its table" "depot.sales.orders" \
	    "$(cat "$T/out")"
}

fresh() {	# fresh - a new copy of fixtures/rich; drop its adapter line
	rm -rf "$P"
	cp -R "$FIX/rich" "$P"
	grep -v '^adapter:' "$M" >"$T/m" && cat "$T/m" >"$M"
}

fresh
printf 'adapter: snowflake\n' | cat - "$M" >"$T/m" && cat "$T/m" >"$M"
case_check "adapter first"
check_contains "adapter first: the value" "snowflake" "$got"

fresh
printf 'adapter: "duck\\"db \\\\ caf\\u00e9"\n' >>"$M"
case_check "adapter last, escaped"
check_contains "adapter last: the value decoded" 'duck"db \ caf' "$got"

fresh
printf 'aaa:\n  adapter: nested\nadapter: top\n' | cat - "$M" >"$T/m" &&
    cat "$T/m" >"$M"
case_check "a nested adapter key first"
check_eq "nested first: the top-level value" "Adapter: top" "$got"

fresh
printf 'adapter: 5\n' >>"$M"
case_check "adapter a number"
check_eq "a number: no adapter line" "" "$got"

fresh
printf 'adapter: null\n' >>"$M"
case_check "adapter null"

fresh
printf 'adapter:\n  name: x\n' >>"$M"
case_check "adapter a mapping"
check_eq "a mapping: its JSON, as json_extract gives it" \
    'Adapter: {"name":"x"}' "$got"

fresh
case_check "no adapter"
check_eq "no adapter: no line" "" "$got"

fresh
printf '\047k"y\047: 1\nadapter: after\n' >>"$M"
case_check "an escaped key before it"
check_eq "escaped key: json_extract's answer" "Adapter: after" "$got"

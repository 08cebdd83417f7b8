#!/bin/sh
# t6200-get-diff.sh - get_diff (spec 4.5): rejected-edge withholding
# before the filters (with and without a relationships.yaml declaring the
# edge), summary.relationships_changed, the table and kind filters ANDed,
# paging in file order with total, and the error sentences.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/print6.sh"

P=$T/p
ROOT=$P/prints/shop
mkprint6 "$P"

out=$(call6 "$P" get_diff '{}')
check_eq "the rejected edge's event is withheld" \
    "table_added column_added relationship_added:c_id table_row_count_changed" \
    "$(printf '%s' "$out" | jq -r '[.changes[] | .kind + (if .source_column then ":" + .source_column[0] else "" end)] | join(" ")')"
check_eq "summary.relationships_changed counts what is returned" 1 \
    "$(printf '%s' "$out" | jq .summary.relationships_changed)"
check_eq "summary keeps its other keys and place" \
    "format_version generated_at summary changes total" \
    "$(printf '%s' "$out" | jq -r 'keys_unsorted | join(" ")')"
check_eq "total counts the events returned" 4 "$(printf '%s' "$out" | jq .total)"

out=$(call6 "$P" get_diff '{"table":"s.b"}')
check_eq "table matches table, source_table and target_table" \
    "column_added relationship_added" \
    "$(printf '%s' "$out" | jq -r '[.changes[].kind] | join(" ")')"
check_eq "the table filter's total" 2 "$(printf '%s' "$out" | jq .total)"
out=$(call6 "$P" get_diff '{"table":"s.a"}')
check_eq "the source table matches too" "table_added relationship_added" \
    "$(printf '%s' "$out" | jq -r '[.changes[].kind] | join(" ")')"
out=$(call6 "$P" get_diff '{"kind":"relationship_added"}')
check_eq "kind keeps one event kind (withheld first)" 1 \
    "$(printf '%s' "$out" | jq .total)"
out=$(call6 "$P" get_diff '{"kind":"column_added","table":"s.a"}')
check_eq "the filters are ANDed" '0 []' \
    "$(printf '%s' "$out" | jq -r '"\(.total) \(.changes | tojson)"')"
out=$(callerr6 "$P" get_diff '{"kind":"colum_added"}')
check_contains "a kind outside the enum is refused naming the enum" \
    "column_added" "$out"

# The source table's relationships.yaml declares the edge: not withheld.
sed -i '0,/detection: inferred/s//detection: declared/' \
    "$ROOT/s/a/relationships.yaml"
out=$(call6 "$P" get_diff '{}')
check_eq "a declared edge is never withheld" \
    "2 5" "$(printf '%s' "$out" | jq -r '"\(.summary.relationships_changed) \(.total)"')"
sed -i 's/detection: declared/detection: inferred/' "$ROOT/s/a/relationships.yaml"
# No verdict any more: nothing is withheld.
sed -i 's/verdict: rejected/note: fine/' "$ROOT/s/a/relationships.annotations.yaml"
out=$(call6 "$P" get_diff '{}')
check_eq "without a rejection both events are served" 5 \
    "$(printf '%s' "$out" | jq .total)"
sed -i 's/  note: fine/  verdict: rejected/' "$ROOT/s/a/relationships.annotations.yaml"
out=$(call6 "$P" get_diff '{}')
check_eq "the verdict is read fresh" 4 "$(printf '%s' "$out" | jq .total)"

# Withheld events among many pages: 2000 entries, one in seven a rejected
# edge's event (b_id -> s.b.id), one in seven not a mapping.  Whatever
# the filters, the pages concatenate to the kept events in file order,
# and the index holds one changes row per event, numbered 0, 1, ...
awk 'BEGIN {
	print "format_version: 1"
	print "summary:\n  relationships_changed: 900"
	print "changes:"
	for (i = 0; i < 2000; i++) {
		m = i % 7
		if (m == 0 || m == 3)
			printf "- kind: relationship_added\n  source_table: s.a\n  source_column: [%s]\n  target_table: s.b\n  target_column: [id]\n  n: %d\n", m == 0 ? "b_id" : "c_id", i
		else if (m == 1)
			printf "- %d\n", i
		else if (m == 2)
			printf "- kind: column_added\n  table: s.a\n  column: c\n  n: %d\n  note: \"a longer text so that pages fill up quickly\"\n", i
		else
			printf "- kind: table_added\n  table: s.t%d\n  n: %d\n", m, i
	}
}' >"$ROOT/diff.yaml"
# expect KIND TABLE: the n of every event the filters keep ("" for none)
expect() {
	awk -v k="$1" -v t="$2" 'BEGIN {
		for (i = 0; i < 2000; i++) {
			m = i % 7
			if (m == 0 || m == 1)
				continue	# withheld, or not an event
			kind = m == 3 ? "relationship_added" : m == 2 ? "column_added" : "table_added"
			if (m == 3)
				names = " s.a s.b "
			else if (m == 2)
				names = " s.a "
			else
				names = " s.t" m " "
			if (k != "" && k != kind)
				continue
			if (t != "" && index(names, " " t " ") == 0)
				continue
			print i
		}
	}'
}
for f in ':' 'relationship_added:' ':s.a' ':s.b' 'relationship_added:s.b' \
    'column_added:s.b' 'table_added:s.t4' ':s.none'; do
	k=${f%%:*}
	t=${f#*:}
	args=$(jq -nc --arg k "$k" --arg t "$t" \
	    '{} + (if $k != "" then {kind: $k} else {} end) + (if $t != "" then {table: $t} else {} end)')
	rm -f "$T"/page.*
	n=$(follow6 "$P" get_diff "$args")
	expect "$k" "$t" >"$T/want"
	cat "$T"/page.* | jq -r '.changes[].n' >"$T/got"
	check_eq "$args: the pages ($n) hold the kept events in file order" \
	    "$(cat "$T/want")" "$(cat "$T/got")"
	check_eq "$args: total on every page is their number" \
	    "$(wc -l <"$T/want" | tr -d ' ')" \
	    "$(cat "$T"/page.* | jq -s -r 'map(.total) | unique | join(",")')"
done
check_eq "summary counts what is returned (286 withheld)" 614 \
    "$(jq .summary.relationships_changed "$T/page.1")"
IX=$P/.dbprint/index/shop.sqlite
check_eq "one changes row per event, numbered without a gap" \
    "1714|0|1713|1714" \
    "$(sqlite3 -batch "$IX" 'SELECT count(*), min(ord), max(ord), count(DISTINCT ord) FROM changes')"
check_eq "kind_ord numbers each kind's events without a gap" \
    "column_added|286|0|285;relationship_added|572|0|571;table_added|856|0|855" \
    "$(sqlite3 -batch "$IX" 'SELECT kind, count(*), min(kind_ord), max(kind_ord) FROM changes GROUP BY kind HAVING count(DISTINCT kind_ord) = count(*) ORDER BY kind' | tr '\n' ';' | sed 's/;$//')"
check_eq "a row carries the event's names and its JSON" \
    'relationship_added||s.a|s.b|{"kind":"relationship_added","source_table":"s.a","source_column":["b_id"],"target_table":"s.b","target_column":["id"],"n":0}' \
    "$(sqlite3 -batch "$IX" 'SELECT kind, table_fqn, source_table, target_table, entry FROM changes WHERE ord = 0')"
printf -- '- a\n' >"$ROOT/diff.yaml"
call6 "$P" get_diff '{}' >/dev/null
check_eq "a diff that is not a mapping leaves no row" 0 \
    "$(sqlite3 -batch "$IX" 'SELECT count(*) FROM changes')"

# A diff.yaml that is not a mapping answers the empty object.
cp "$ROOT/diff.yaml" "$T/diff.keep"
printf -- '- a\n- b\n' >"$ROOT/diff.yaml"
out=$(call6 "$P" get_diff '{}')
check_eq "a non-mapping diff answers {}" '{}' "$(printf '%s' "$out" | jq -c .)"
printf 'changes: [unclosed\n' >"$ROOT/diff.yaml"
out=$(callerr6 "$P" get_diff '{}')
check_contains "an unparseable diff names the file" \
    "$ROOT/diff.yaml: YAML parse error: " "$out"
rm "$ROOT/diff.yaml"
out=$(callerr6 "$P" get_diff '{}')
check_eq "no diff: the spec's sentence" \
    "no diff available at $ROOT/diff.yaml. Run dbprint diff or dbprint generate first." \
    "$out"

# Paging: 900 changes in file order, summary on page 1 only.
{
	printf 'format_version: 1\nsummary:\n  relationships_changed: 0\nchanges:\n'
	i=900
	while [ $i -gt 0 ]; do
		printf -- '- kind: column_added\n  table: s.t%04d\n  column: c\n' $i
		printf '  note: "a longer text so that pages fill up quickly"\n'
		i=$((i - 1))
	done
} >"$ROOT/diff.yaml"
n=$(follow6 "$P" get_diff '{}')
check "900 changes take several pages" test "$n" -ge 2
over=0
for f in "$T"/page.*; do
	[ "$(wc -m <"$f")" -le 20001 ] || over=$((over + 1))
done
check_eq "every page is at most 20,000 characters" 0 "$over"
check_eq "total 900 on every page" 900 \
    "$(cat "$T"/page.* | jq -s -r 'map(.total) | unique | join(",")')"
check_eq "summary on the first page only" 1 \
    "$(cat "$T"/page.* | jq -s 'map(select(has("summary"))) | length')"
i=1
: >"$T/tables"
while [ -f "$T/page.$i" ]; do
	jq -r '.changes[].table' "$T/page.$i" >>"$T/tables"
	i=$((i + 1))
done
check_eq "every change once" 900 "$(sort -u "$T/tables" | wc -l | tr -d ' ')"
check "in file order" sh -c "sort -r -c '$T/tables'"
c=$(jq -r .next_cursor "$T/page.1")
out=$(callerr6 "$P" get_diff "{\"cursor\":\"$c\",\"kind\":\"table_added\"}")
check_contains "a cursor under other arguments is refused" \
    "this cursor was not issued by get_diff with these arguments" "$out"
printf '\n' >>"$ROOT/s/a/relationships.annotations.yaml"
out=$(call6 "$P" get_diff "{\"cursor\":\"$c\"}")
check_eq "a consulted file unread here leaves the cursor valid" 900 \
    "$(printf '%s' "$out" | jq .total)"
printf '\n' >>"$ROOT/diff.yaml"
out=$(callerr6 "$P" get_diff "{\"cursor\":\"$c\"}")
check_contains "a cursor over a rewritten diff is refused" \
    "the print changed on disk since this cursor was issued, so get_diff cannot resume" "$out"
clean6

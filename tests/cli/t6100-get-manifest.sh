#!/bin/sh
# t6100-get-manifest.sh - get_manifest (spec 4.4): header keys in file
# order on page 1, failed_tables and the tables map filtered by pattern,
# walkable entries only in FQN order, total, paging with cursors, and the
# absent / unparseable / wrong-shape errors.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/print6.sh"

P=$T/p
ROOT=$P/prints/shop
mkprint6 "$P"

out=$(call6 "$P" get_manifest '{}')
check_eq "header keys in file order, then failed_tables, tables, total" \
    "format_version generated_at connection adapter dbprint_version failed_tables tables total" \
    "$(printf '%s' "$out" | jq -r 'keys_unsorted | join(" ")')"
check_eq "tables: walkable entries in FQN order" \
    "s.a s.b s.out s.v t.other" \
    "$(printf '%s' "$out" | jq -r '.tables | keys_unsorted | join(" ")')"
check_eq "total counts the tables" 5 "$(printf '%s' "$out" | jq .total)"
check_eq "failed_tables whole without pattern" '["s.gone","t.other"]' \
    "$(printf '%s' "$out" | jq -c .failed_tables)"
check_eq "an entry is served as parsed" \
    '{"type":"view","path":"s/v","artifacts":{"ddl":"ddl.sql","statistics":"statistics.yaml"},"columns":1}' \
    "$(printf '%s' "$out" | jq -c '.tables["s.v"]')"
check_eq "two-space indented JSON" '  "format_version": 1,' \
    "$(printf '%s\n' "$out" | sed -n 2p)"

out=$(call6 "$P" get_manifest '{"pattern":"s.*"}')
check_eq "pattern filters tables" "s.a s.b s.out s.v" \
    "$(printf '%s' "$out" | jq -r '.tables | keys_unsorted | join(" ")')"
check_eq "pattern filters failed_tables" '["s.gone"]' \
    "$(printf '%s' "$out" | jq -c .failed_tables)"
check_eq "total counts what pattern matched" 4 \
    "$(printf '%s' "$out" | jq .total)"
out=$(call6 "$P" get_manifest '{"pattern":"[!s].*"}')
check_eq "fnmatch sets" "t.other" \
    "$(printf '%s' "$out" | jq -r '.tables | keys_unsorted | join(" ")')"
out=$(call6 "$P" get_manifest '{"pattern":"zzz"}')
check_eq "nothing matched: empty tables, no failed_tables, total 0" \
    '{"tables":{},"total":0,"ft":null}' \
    "$(printf '%s' "$out" | jq -c '{tables, total, ft: .failed_tables}')"

# Errors.
out=$(callerr6 "$P" get_manifest '{"pattern":7}')
check_contains "a non-string pattern is refused" "must be of type string" "$out"
cp "$ROOT/manifest.yaml" "$T/manifest.keep"
printf 'tables: [unclosed\n' >"$ROOT/manifest.yaml"
out=$(callerr6 "$P" get_manifest '{}')
check_contains "an unparseable manifest names the file and the parser" \
    "$ROOT/manifest.yaml: YAML parse error: " "$out"
printf -- '- just\n- a list\n' >"$ROOT/manifest.yaml"
out=$(callerr6 "$P" get_manifest '{}')
check_contains "a manifest of the wrong shape: <path>: <reason>" \
    "$ROOT/manifest.yaml: " "$out"
rm "$ROOT/manifest.yaml"
out=$(callerr6 "$P" get_manifest '{}')
check_eq "an absent manifest" \
    "manifest references manifest.yaml but file is absent at $ROOT/manifest.yaml. Re-run dbprint generate." \
    "$out"

# Paging: 2,000 tables written in reverse order, long failed_tables.
{
	printf 'format_version: 1\ngenerated_at: "2026-11-30T06:00:00Z"\n'
	printf 'connection: shop\nfailed_tables:\n'
	i=0
	while [ $i -lt 1500 ]; do
		printf -- '- s.failed_%04d\n' $i
		i=$((i + 1))
	done
	printf 'tables:\n'
	i=2000
	while [ $i -gt 0 ]; do
		i=$((i - 1))
		printf '  s.t%04d:\n    type: table\n    path: s/t%04d\n' $i $i
		printf '    artifacts: {ddl: ddl.sql}\n    row_count: %d\n' $i
	done
} >"$ROOT/manifest.yaml"
n=$(follow6 "$P" get_manifest '{}')
check "the 2,000-table manifest takes several pages" test "$n" -ge 3
over=0
for f in "$T"/page.*; do
	[ "$(wc -m <"$f")" -le 20001 ] || over=$((over + 1))
done
check_eq "every page is at most 20,000 characters" 0 "$over"
check_eq "total on every page" "2000" \
    "$(cat "$T"/page.* | jq -s -r 'map(.total) | unique | join(",")')"
check_eq "the header rides the first page only" "1" \
    "$(cat "$T"/page.* | jq -s 'map(select(has("generated_at"))) | length')"
i=1
: >"$T/keys"
while [ -f "$T/page.$i" ]; do
	jq -r '.tables // {} | keys_unsorted[]' "$T/page.$i" >>"$T/keys"
	i=$((i + 1))
done
check_eq "following the cursors yields every table once" 2000 \
    "$(sort -u "$T/keys" | wc -l | tr -d ' ')"
check "in FQN order across pages" sh -c "sort -c '$T/keys'"
ft=$(cat "$T"/page.* | jq -s -r '[.[] | .failed_tables // empty |
    if type == "array" then .[] else empty end] | length')
parts=$(cat "$T"/page.* | jq -s -r '[.[] | .failed_tables // empty |
    if type == "object" then .text else empty end] | join("")')
if [ "$ft" = 1500 ]; then
	ok "failed_tables arrives whole"
elif [ -n "$parts" ] && [ "$(printf '%s' "$parts" | jq length)" = 1500 ]; then
	ok "failed_tables arrives in parts that join to the list"
else
	fail "failed_tables lost entries" "$ft / $(printf '%s' "$parts" | head -c 200)"
fi

# A cursor goes stale when the manifest is rewritten.
c=$(jq -r .next_cursor "$T/page.1")
printf '\n' >>"$ROOT/manifest.yaml"
out=$(callerr6 "$P" get_manifest "{\"cursor\":\"$c\"}")
check_contains "a cursor over a rewritten manifest is refused" \
    "the print changed on disk since this cursor was issued, so get_manifest cannot resume" "$out"
out=$(callerr6 "$P" get_manifest "{\"cursor\":\"$c\",\"pattern\":\"s.*\"}")
check_contains "a cursor under other arguments is refused" \
    "without \`cursor\`" "$out"
cp "$T/manifest.keep" "$ROOT/manifest.yaml"

# The header is read from the indexed document without parsing its tables
# (a scan skips them): a key after tables, whose strings hold quotes,
# braces and the word tables, keeps its place and its value.
cat >>"$ROOT/manifest.yaml" <<'YAML'
zz_after:
  note: 'a "tables": {"x": [1, 2]} ] } , \ end'
  list: [1, 2.50, "}"]
YAML
out=$(call6 "$P" get_manifest '{"pattern":"s.*"}')
check_eq "a key after tables rides page 1 in file order" \
    "format_version generated_at connection adapter dbprint_version zz_after failed_tables tables total" \
    "$(printf '%s' "$out" | jq -r 'keys_unsorted | join(" ")')"
check_eq "its value is served as parsed" \
    '{"note":"a \"tables\": {\"x\": [1, 2]} ] } , \\ end","list":[1,2.5,"}"]}' \
    "$(printf '%s' "$out" | jq -c .zz_after)"
check_eq "the tables after the scan are the pattern's" "s.a s.b s.out s.v" \
    "$(printf '%s' "$out" | jq -r '.tables | keys_unsorted | join(" ")')"
cp "$T/manifest.keep" "$ROOT/manifest.yaml"
clean6

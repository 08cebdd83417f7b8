#!/bin/sh
# t5610-reference-upstream.sh - every numbered heading of the upstream
# format spec and assertion spec resolves in our bundled documents, as a
# spec_ref citation ("§N", "ASSERTIONS.md §N"), to a heading of the same
# number and title - so a finding's citation always opens the section on
# its subject.  Needs ../shared (the upstream copies); skipped without it.
. "$(dirname "$0")/../lib.sh"
# The bundled documents, whatever the caller's environment names.
unset DBPRINT_REFERENCE_DIR

UP_SPEC=$SRCDIR/../shared/upstream/docs/format/v1/SPEC.md
UP_ASSERT=$SRCDIR/../shared/upstream/docs/ASSERTIONS.md
if [ ! -f "$UP_SPEC" ] || [ ! -f "$UP_ASSERT" ]; then
	skip "upstream SPEC.md / ASSERTIONS.md not present beside the repository"
	exit 0
fi

P=$T/proj
mkdir -p "$P/prints/ref"
cat >"$P/.dbprint.yaml" <<'YAML'
connections:
  ref:
    adapter: duckdb
YAML

# numbered FILE - "<number>\t<title>" for every numbered heading outside a
# fence, in document order.
numbered() {
	awk '/^```/ { f = !f; next } !f && /^#+[ \t]/' "$1" |
	    sed -E 's/^#+[ \t]+//; s/[ \t]+$//' |
	    sed -nE 's/^([0-9]+(\.[0-9]+)*)\.?([ \t]|$)/\1\t&/p' |
	    awk -F '\t' '{ print $1 "\t" $2 }'
}

# resolve DOC PREFIX FILE - ask get_reference, in one stdio session, for
# every numbered heading of FILE with the citation PREFIX<number>; print
# one line per number that does not open a heading of the same number and
# title.
resolve() {
	numbered "$3" >"$T/nums"
	{
		echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t5610","version":"1"}}}'
		echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		jq -nRc --arg d "$1" --arg p "$2" '[inputs | split("\t")[0]] |
		    to_entries[] | {jsonrpc: "2.0", id: (.key + 1),
		    method: "tools/call", params: {name: "get_reference",
		    arguments: {document: $d, section: ($p + .value)}}}' \
		    <"$T/nums"
	} >"$T/requests"
	$VG "$SERVE" --project "$P" <"$T/requests" >"$T/replies" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] || echo "server exit $rc: $(head -c 300 "$T/err")"
	# id, isError, first line of the text, in id order.
	jq -r 'select(.id != 0) | [.id, (.result.isError | tostring),
	    ((.result.content[0].text // (.error | tostring)) |
	    split("\n")[0])] | @tsv' "$T/replies" | sort -n -k1,1 >"$T/got"
	[ "$(grep -c '' "$T/got")" -eq "$(grep -c '' "$T/nums")" ] ||
	    echo "$(grep -c '' "$T/got") replies to $(grep -c '' "$T/nums") calls"
	paste "$T/nums" "$T/got" | awk -F '\t' '{
		got = $5; sub(/^#+[ \t]+/, "", got)
		if ($4 != "false" || got != $2)
			print $1 ": got \"" $5 "\", upstream \"" $2 "\""
	}'
}

n=$(numbered "$UP_SPEC" | wc -l)
[ "$n" -gt 100 ] && ok "upstream SPEC.md has $n numbered headings" ||
	fail "upstream SPEC.md has numbered headings" "$n"
miss=$(resolve spec "$(printf '\302\247')" "$UP_SPEC")
check_eq "every upstream SPEC.md number resolves as §N to the same heading" \
    "" "$miss"

n=$(numbered "$UP_ASSERT" | wc -l)
[ "$n" -gt 20 ] && ok "upstream ASSERTIONS.md has $n numbered headings" ||
	fail "upstream ASSERTIONS.md has numbered headings" "$n"
miss=$(resolve assertions "ASSERTIONS.md $(printf '\302\247')" "$UP_ASSERT")
check_eq "every upstream ASSERTIONS.md number resolves as 'ASSERTIONS.md §N'" \
    "" "$miss"

# And the other way: nothing numbered in ours that upstream lacks, but the
# disabled list the MCP spec cites as SPEC 2.2.21.
extra=$($VG "$SERVE" --project "$P" --call get_reference '{"document":"spec"}' |
    sed -nE 's/^ *- ([0-9]+(\.[0-9]+)*)\.?( .*)?$/\1/p' | sort >"$T/ours";
    numbered "$UP_SPEC" | cut -f1 | sort >"$T/theirs";
    comm -23 "$T/ours" "$T/theirs" | tr '\n' ' ')
check_eq "our spec numbers beyond upstream's: only 2.2.21" "2.2.21 " "$extra"

# An installed upstream copy served instead, by directory.
DBPRINT_REFERENCE_DIR=$(dirname "$UP_SPEC")
export DBPRINT_REFERENCE_DIR
$VG "$SERVE" --project "$P" --call get_reference '{"document":"spec"}' \
    >"$T/out" 2>"$T/err"
check_eq "DBPRINT_REFERENCE_DIR=upstream: contents exit 0" 0 "$?"
check_eq "DBPRINT_REFERENCE_DIR=upstream: its own title" \
    "- dbprint format specification — v1" "$(sed -n 1p "$T/out")"
$VG "$SERVE" --project "$P" --call get_reference \
    '{"document":"spec","section":"2.2.21"}' >"$T/out" 2>"$T/err"
check_eq "DBPRINT_REFERENCE_DIR=upstream: 2.2.21 fails as a tool error" 1 "$?"
check_contains "DBPRINT_REFERENCE_DIR=upstream: 2.2.21 is not there" \
    "section '2.2.21' not found in spec. Available: ['0', " \
    "$(cat "$T/out" "$T/err")"

#!/bin/sh
# t2100-serve-rpc.sh - dbprint-serve's protocol machine over stdio, by
# golden transcripts: each tests/golden/serve/NAME.in holds request lines,
# NAME.out the exact response lines.  Handshake in both protocol eras,
# version negotiation, framing faults, and every argument fault of spec
# 8.2 that is caught before a tool body runs.  UPDATE_GOLDEN=1 rewrites
# the .out files (review the diff before committing it).
. "$SRCDIR/tests/lib.sh"

G=$SRCDIR/tests/golden/serve

# A project of two connections: demo (auto, so served and the default)
# and staging (configured, never served); a second project marks both
# auto, so there is no default.
mkproj() {	# mkproj DIR AUTO_STAGING
	mkdir -p "$1/prints"
	cp -R "$FIX/demo/prints/demo" "$1/prints/demo"
	cp -R "$FIX/demo/prints/demo" "$1/prints/staging"
	cat >"$1/.dbprint.yaml" <<YAML
connections:
  demo:
    adapter: duckdb
    auto: true
  staging:
    adapter: duckdb
    auto: $2
YAML
}
mkproj "$T/one" false
mkproj "$T/two" true

run() {		# run NAME PROJECT [ARGS...]: transcript NAME through the server
	_name=$1; _proj=$2; shift 2
	$VG "$SERVE" --project "$_proj" "$@" <"$G/$_name.in" >"$T/$_name.out" \
	    2>"$T/$_name.err"
	echo $? >"$T/$_name.rc"
}

for t in handshake-legacy handshake-2024 handshake-versions modern framing \
    validation; do
	run "$t" "$T/one"
	check_eq "$t: exit status 0 at EOF" 0 "$(cat "$T/$t.rc")"
	check_file "$t: responses" "$G/$t.out" "$T/$t.out"
done
run nodefault "$T/two"
check_eq "nodefault: exit status 0 at EOF" 0 "$(cat "$T/nodefault.rc")"
check_file "nodefault: responses" "$G/nodefault.out" "$T/nodefault.out"

# Properties the goldens hold, stated so a regenerated golden cannot
# silently lose them.
out=$T/framing.out
check_eq "framing: one response per request, none for notifications, \
blank lines or responses" 19 "$(wc -l <"$out" | tr -d ' ')"
check_eq "framing: every line is one JSON object with exactly jsonrpc, id \
and result or error" "" \
    "$(jq -c 'select((keys - ["error","id","jsonrpc","result"]) != [] or
	(has("result") == has("error")) or (has("id") | not))' "$out")"
check_eq "framing: -32700 for unparseable lines, with id null" "3" \
    "$(jq -c 'select(.error.code == -32700 and .id == null)' "$out" | wc -l |
    tr -d ' ')"
check_eq "framing: a CRLF line and an unterminated last line are served" \
    '3 14' "$(jq -r 'select(.result != null and (.id == 3 or .id == 14)) |
    .id' "$out" | tr '\n' ' ' | sed 's/ $//')"
check_eq "framing: stderr stays empty" "" "$(cat "$T/framing.err")"

out=$T/handshake-legacy.out
check_eq "instructions stay under 2,048 characters" true \
    "$(jq -s '.[0].result.instructions | length < 2048' "$out")"
check_eq "instructions name every tool before the reading rules" true \
    "$(jq -s '.[0].result.instructions | split("Reading an answer")[0] as $r |
    ["get_table_context","list_tables","search_columns","resolve_value",
    "get_manifest","get_diff","get_reference"] |
    all(. as $t | $r | contains($t))' "$out")"
check_eq "tools/list: seven tools in spec order" \
    "get_table_context list_tables search_columns resolve_value get_manifest get_diff get_reference" \
    "$(jq -rs '.[2].result.tools | map(.name) | join(" ")' "$out")"
check_eq "tools/list: all four hints, explicit booleans, on every tool" true \
    "$(jq -s '.[2].result.tools | all(.annotations == {readOnlyHint: true,
    destructiveHint: false, idempotentHint: true, openWorldHint: false})' \
    "$out")"
check_eq "tools/list: every property described, additionalProperties false" \
    true "$(jq -s '.[2].result.tools | all(.inputSchema |
    .additionalProperties == false and
    (.properties | to_entries | all(.value.description | length > 0)))' \
    "$out")"
check_eq "tools/list: fits one page (no nextCursor), titles for 2025-06-18" \
    'null true' "$(jq -rs '.[2].result | [.nextCursor, (.tools | all(.title |
    length > 0))] | map(tostring) | join(" ")' "$out")"
check_eq "tools/list: no title for 2024-11-05" true \
    "$(jq -s '.[1].result.tools | all(has("title") | not)' \
    "$T/handshake-2024.out")"
check_eq "modern results carry resultType, serverInfo and cache hints" \
    '"complete" "dbprint" true' \
    "$(jq -s '.[1].result | [.resultType, ._meta["io.modelcontextprotocol/serverInfo"].name,
    (.ttlMs >= 0 and (.cacheScope | type) == "string")] | map(tojson) |
    join(" ")' -r "$T/modern.out")"

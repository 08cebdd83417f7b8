#!/bin/sh
# t6300-resources.sh - MCP resources (spec 3, 7.2, 8.1) over stdio:
# resources/list (order, conditional entries, fields), templates, a read
# of every kind (byte for byte, or with rejected edges withheld), and
# every resources/read error with its JSON-RPC code and sentence.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/print6.sh"

P=$T/p
ROOT=$P/prints/shop
mkprint6 "$P"

LIST='{"jsonrpc":"2.0","id":1,"method":"resources/list"}'
rpc6 "$P" "$LIST" >"$T/list.json"
jq -r '.result.resources[].uri' "$T/list.json" >"$T/uris"
cat >"$T/uris.want" <<'EOF'
dbprint:///reference/spec
dbprint:///reference/assertions
dbprint://shop/manifest
dbprint://shop/diff
dbprint://shop/reading
dbprint://shop/manifest_annotations
dbprint://shop/s.a/ddl
dbprint://shop/s.a/statistics
dbprint://shop/s.a/relationships
dbprint://shop/s.a/description
dbprint://shop/s.a/relationships_annotations
dbprint://shop/s.b/ddl
dbprint://shop/s.b/statistics
dbprint://shop/s.b/relationships
dbprint://shop/s.v/ddl
dbprint://shop/s.v/statistics
dbprint://shop/t.other/ddl
dbprint://shop/t.other/statistics
EOF
check_file "resources/list: order and conditional entries" "$T/uris.want" "$T/uris"
check_eq "every entry carries uri, name, description, mimeType" 0 \
    "$(jq '[.result.resources[] | select((.uri and .name and .description and .mimeType) | not)] | length' "$T/list.json")"
check_eq "one page: no nextCursor" null "$(jq .result.nextCursor "$T/list.json")"
check_eq "mimeTypes by kind" \
    "text/markdown application/yaml text/markdown application/sql application/yaml application/yaml text/markdown" \
    "$(jq -r '[.result.resources[] | select(.uri | test("/(spec|manifest|reading|s.a/ddl|s.a/statistics|s.a/relationships|s.a/description)$")) | .mimeType] | join(" ")' "$T/list.json")"
check_eq "each per-table description names the tool that interprets it" 0 \
    "$(jq '[.result.resources[] | select(.uri | test("shop/.+/")) | select(.description | test("get_table_context") | not)] | length' "$T/list.json")"
out=$(rpc6 "$P" '{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}')
check_eq "templates: one per URI pattern, in page form" \
    "dbprint:///reference/{document}{?page,version} dbprint://{connection}/manifest{?page,version} dbprint://{connection}/diff{?page,version} dbprint://{connection}/reading{?page,version} dbprint://{connection}/manifest_annotations{?page,version} dbprint://{connection}/{table}/ddl{?page,version} dbprint://{connection}/{table}/statistics{?page,version} dbprint://{connection}/{table}/relationships{?page,version} dbprint://{connection}/{table}/description{?page,version} dbprint://{connection}/{table}/statistics_annotations{?page,version} dbprint://{connection}/{table}/relationships_annotations{?page,version}" \
    "$(printf '%s' "$out" | jq -r '[.result.resourceTemplates[].uriTemplate] | join(" ")')"

# Reads served byte for byte.
text() {	# text URI FILE: the read's text into FILE (exactly)
	read6 "$P" "$1" | jq -j '.result.contents[0].text' >"$2"
}
for pair in manifest:manifest.yaml reading:reading.md \
    manifest_annotations:manifest.annotations.yaml s.a/ddl:s/a/ddl.sql \
    s.a/statistics:s/a/statistics.yaml s.a/description:s/a/description.md \
    s.a/relationships_annotations:s/a/relationships.annotations.yaml \
    s/a/ddl:s/a/ddl.sql t.other/ddl:t/other/ddl.sql; do
	uri=dbprint://shop/${pair%%:*}
	text "$uri" "$T/got"
	check "$uri is the file byte for byte" cmp "$T/got" "$ROOT/${pair#*:}"
done
out=$(read6 "$P" dbprint://shop/s.a/ddl)
check_eq "the read carries uri, mimeType and _meta {page, pages, version}" \
    "dbprint://shop/s.a/ddl application/sql 1 1 16" \
    "$(printf '%s' "$out" | jq -r '.result.contents[0] | "\(.uri) \(.mimeType) \(._meta.page) \(._meta.pages) \(._meta.version | length)"')"
out=$(read6 "$P" dbprint:///reference/spec)
check "the spec reference document reads" test \
    "$(printf '%s' "$out" | jq -r '.result.contents[0].text | length')" -gt 100
out=$(read6 "$P" dbprint:///reference/assertions)
check_eq "the assertions reference document is Markdown" text/markdown \
    "$(printf '%s' "$out" | jq -r '.result.contents[0].mimeType')"

# Rejected edges withheld from relationships (both sides) and diff.
text dbprint://shop/s.a/relationships "$T/rel.a"
check "s.a relationships: the rejected edge is withheld" \
    sh -c "! grep -q b_id '$T/rel.a' && grep -q c_id '$T/rel.a'"
check "s.a relationships: the rest is served as YAML" \
    grep -q '^table: s.a$' "$T/rel.a"
text dbprint://shop/s.b/relationships "$T/rel.b"
check "s.b relationships: withheld from referenced_by too" \
    sh -c "! grep -q b_id '$T/rel.b' && grep -q c_id '$T/rel.b'"
text dbprint://shop/diff "$T/diff"
check "diff: the event about the rejected edge is dropped" \
    sh -c "! grep -q b_id '$T/diff' && grep -q c_id '$T/diff'"
check "diff: relationships_changed counts the events kept" \
    grep -q '^  relationships_changed: 1$' "$T/diff"
v1=$(read6 "$P" dbprint://shop/s.b/relationships | jq -r '.result.contents[0]._meta.version')
printf '# edited\n' >>"$ROOT/s/a/relationships.annotations.yaml"
v2=$(read6 "$P" dbprint://shop/s.b/relationships | jq -r '.result.contents[0]._meta.version')
check "the version covers the annotation file that decided it" test "$v1" != "$v2"
sed -i 's/detection: inferred/detection: declared/' "$ROOT/s/a/relationships.yaml"
text dbprint://shop/s.a/relationships "$T/rel.a2"
check "an edge the relationships.yaml declares is served byte for byte" \
    cmp "$T/rel.a2" "$ROOT/s/a/relationships.yaml"
sed -i 's/detection: declared/detection: inferred/' "$ROOT/s/a/relationships.yaml"

# Every error of spec 8.1, with its code.
err() {		# err URI: "<code> <message>"
	read6 "$P" "$1" | jq -r '"\(.error.code) \(.error.message)"'
}
check_eq "optional file not authored" \
    "-32602 description.md is optional and not authored for table 's.b'." \
    "$(err dbprint://shop/s.b/description)"
check_eq "optional annotations not authored" \
    "-32602 statistics.annotations.yaml is optional and not authored for table 's.a'." \
    "$(err dbprint://shop/s.a/statistics_annotations)"
check_eq "declared optional file missing" \
    "-32603 manifest references description.md but file is absent at $ROOT/t/other/description.md. Re-run dbprint generate." \
    "$(err dbprint://shop/t.other/description)"
check_eq "unknown connection" \
    "-32602 connection 'nope' not in .dbprint.yaml. Configured: ['other', 'shop']" \
    "$(err dbprint://nope/manifest)"
check_eq "configured but not served" \
    "-32602 connection 'other' is configured but not served by this instance. Served: ['shop']. Restart the server naming it to serve it." \
    "$(err dbprint://other/manifest)"
check_eq "unknown table" \
    "-32602 table 's.zz' not found in connection 'shop'. Call list_tables with connection 'shop' for valid names." \
    "$(err dbprint://shop/s.zz/ddl)"
check_eq "a table entry that is not a mapping is unknown" \
    "-32602 table 's.bad' not found in connection 'shop'. Call list_tables with connection 'shop' for valid names." \
    "$(err dbprint://shop/s.bad/ddl)"
check_eq "a table the last run could not profile" \
    "-32602 the last generate run could not profile 's.gone'; run dbprint generate to see the cause" \
    "$(err dbprint://shop/s.gone/ddl)"
check_eq "a kind the manifest never declares" \
    "-32602 relationships is not declared for table 's.v' - check the object's type before requesting it; the manifest does not declare every kind for every object." \
    "$(err dbprint://shop/s.v/relationships)"
check_eq "a declared file missing from disk" \
    "-32603 manifest references statistics.yaml but file is absent at $ROOT/s/b/statistics.yaml. Re-run dbprint generate." \
    "$(err dbprint://shop/s.b/statistics)"
out=$(err dbprint://shop/s.v/statistics)
check_contains "a YAML parse error names the file (-32603)" \
    "-32603 $ROOT/s/v/statistics.yaml: YAML parse error: " "$out"
check_eq "a malformed URI" \
    "-32602 URI 'dbprint://shop/s.a/bogus' does not match the dbprint:// scheme." \
    "$(err dbprint://shop/s.a/bogus)"
check_eq "a query key other than page and version" \
    "-32602 URI 'dbprint://shop/manifest?offset=2' does not match the dbprint:// scheme." \
    "$(err 'dbprint://shop/manifest?offset=2')"
check_eq "a page outside the pages" \
    "-32602 'dbprint://shop/manifest?page=9' names no page of this resource: pages run 1 to 1." \
    "$(err 'dbprint://shop/manifest?page=9')"
for pg in 0 x -1 1.0; do
	check_contains "page=$pg is not a page" "pages run 1 to 1." \
	    "$(err "dbprint://shop/reading?page=$pg")"
done
check_eq "a version the file has moved past" \
    "-32602 'dbprint://shop/manifest?page=1&version=0f1e': the file changed on disk since that version was read. Read page 1 again for its current version." \
    "$(err 'dbprint://shop/manifest?page=1&version=0f1e')"
v=$(read6 "$P" dbprint://shop/manifest | jq -r '.result.contents[0]._meta.version')
check_eq "page 1 with its own version reads" 1 \
    "$(read6 "$P" "dbprint://shop/manifest?page=1&version=$v" | jq '.result.contents[0]._meta.page')"

# Connection files missing, and a manifest of the wrong shape.
rm "$ROOT/diff.yaml" "$ROOT/reading.md" "$ROOT/manifest.annotations.yaml"
check_eq "no diff" \
    "-32603 no diff available at $ROOT/diff.yaml. Run dbprint diff or dbprint generate first." \
    "$(err dbprint://shop/diff)"
check_eq "no reading guide" \
    "-32603 no reading guide available at $ROOT/reading.md. Run dbprint generate first." \
    "$(err dbprint://shop/reading)"
check_eq "connection notes not authored" \
    "-32602 manifest.annotations.yaml is optional and not authored for connection 'shop'." \
    "$(err dbprint://shop/manifest_annotations)"
rpc6 "$P" "$LIST" | jq -r '.result.resources[].uri' >"$T/uris2"
check_eq "diff and reading stay listed; connection notes go" \
    "dbprint://shop/manifest dbprint://shop/diff dbprint://shop/reading" \
    "$(grep '^dbprint://shop/[a-z_]*$' "$T/uris2" | tr '\n' ' ' | sed 's/ $//')"
printf -- '- a\n- b\n' >"$ROOT/manifest.yaml"
out=$(err dbprint://shop/manifest)
check_contains "a manifest of the wrong shape (-32603 <path>: <reason>)" \
    "-32603 $ROOT/manifest.yaml: " "$out"
out=$(err dbprint://shop/s.a/ddl)
check_contains "per-table reads name the manifest's error" \
    "-32603 $ROOT/manifest.yaml: " "$out"
rpc6 "$P" "$LIST" | jq -r '.result.resources[].uri' >"$T/uris3"
check_eq "an unreadable manifest keeps its resource and lists no table" \
    "dbprint:///reference/spec dbprint:///reference/assertions dbprint://shop/manifest dbprint://shop/diff dbprint://shop/reading" \
    "$(tr '\n' ' ' <"$T/uris3" | sed 's/ $//')"
rm "$ROOT/manifest.yaml"
check_eq "an absent manifest" \
    "-32603 manifest references manifest.yaml but file is absent at $ROOT/manifest.yaml. Re-run dbprint generate." \
    "$(err dbprint://shop/manifest)"
out=$(rpc6 "$P" '{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"dbprint://shop/manifest"}}' '{"jsonrpc":"2.0","id":8,"method":"ping"}')
check_eq "an error never ends the session" 8 \
    "$(printf '%s\n' "$out" | sed -n 2p | jq .id)"
check "no resource notification is ever sent" \
    sh -c "! grep -q notifications/resources '$T/list.json'"

# Two served connections: listed by name, each after the reference pair.
Q=$T/two
mkprint6 "$Q"
cat >"$Q/.dbprint.yaml" <<'EOF'
connections:
  zeta:
    output: prints
    auto: true
  shop:
    output: prints
    auto: true
EOF
mkdir -p "$Q/prints/zeta"
printf 'format_version: 1\ntables: {}\n' >"$Q/prints/zeta/manifest.yaml"
printf '%s\n' "$LIST" | $VG "$SERVE" --project "$Q" 2>>"$T/.stderr6" |
    jq -r '.result.resources[].uri' >"$T/uris.two"
check_eq "several connections: by name, connection files before tables" \
    "dbprint:///reference/spec dbprint:///reference/assertions dbprint://shop/manifest dbprint://shop/diff dbprint://shop/reading dbprint://shop/manifest_annotations dbprint://shop/s.a/ddl" \
    "$(head -7 "$T/uris.two" | tr '\n' ' ' | sed 's/ $//')"
check_eq "the second connection follows the first's tables" \
    "dbprint://zeta/manifest dbprint://zeta/diff dbprint://zeta/reading" \
    "$(tail -3 "$T/uris.two" | tr '\n' ' ' | sed 's/ $//')"
check_eq "the reference documents are listed once" 1 \
    "$(grep -c '^dbprint:///reference/spec$' "$T/uris.two")"
clean6

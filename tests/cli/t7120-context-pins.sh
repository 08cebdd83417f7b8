#!/bin/sh
# t7120-context-pins.sh - get_table_context behaviours the upstream tests
# pin (research/upstream-mcp.md 8.4), on a scoped print written here and,
# when ../shared is beside the repository, on the upstream production
# example (every table renders in all six purpose x format combinations;
# skipped cleanly without it):
#   - md names the table, carries CREATE TABLE and Adapter:;
#   - query has ## Column values and no Cardinality, profile the reverse;
#   - corrupt statistics: "Unreadable: statistics (present on disk, failed
#     to parse)" exactly once, _corrupted keys exactly {statistics};
#   - a deleted statistics file: _missing == ["statistics"];
#   - scoped: "Scanned: 2 of 5 rows (40%)", a complete list "over the rows
#     scanned", "candidate key over the rows scanned", an empty scan's
#     "values (complete over the rows scanned): none";
#   - a redacted row says "redacted: mask" and prints no NULL;
#   - over stdio, a paged json context is within 20,000 characters and
#     carries next_cursor.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ctx7.sh"

# ------------------------------------------------------------------
# A scoped print: public.curator, 5 rows, 2 scanned under a filter.
S=$T/scoped
mkdir -p "$S/prints/primary/shop/public/curator" "$S/prints/primary/shop/public/empty"
cat >"$S/.dbprint.yaml" <<'EOF'
connections:
  primary:
    adapter: postgres
    output: prints
EOF
cat >"$S/prints/primary/manifest.yaml" <<'EOF'
format_version: 1
generated_at: '2026-11-30T04:00:00Z'
connection: primary
adapter: postgres
dbprint_version: 0.12.0
tables:
  shop.public.curator:
    type: table
    path: shop/public/curator
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
      relationships: relationships.yaml
    columns: 2
    profiled_at: '2026-11-30T04:00:00Z'
    row_count: 5
  shop.public.empty:
    type: table
    path: shop/public/empty
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
    columns: 1
    profiled_at: '2026-11-30T04:00:00Z'
    row_count: 5
EOF
printf 'CREATE TABLE public.curator (\n    id integer NOT NULL,\n    email text,\n    state text\n);\n' \
    >"$S/prints/primary/shop/public/curator/ddl.sql"
cat >"$S/prints/primary/shop/public/curator/statistics.yaml" <<'EOF'
format_version: 1
table: shop.public.curator
type: table
profiled_at: '2026-11-30T04:00:00Z'
row_count: 5
row_count_method: exact
scope:
  rows_scanned: 2
  filter: id < 3
columns:
  id:
    sql_type: integer
    nullable: false
    null_count: 0
    null_rate: 0.0
    classification: categorical
    cardinality: 2
    cardinality_ratio: 1.0
    cardinality_method: exact
    rows_scanned: 2
    inferred:
      candidate_key: true
    values:
    - value: 1
      count: 1
    - value: 2
      count: 1
    values_coverage: 1.0
  email:
    sql_type: text
    nullable: true
    null_count: 0
    null_rate: 0.0
    classification: categorical
    cardinality: 2
    cardinality_ratio: 1.0
    cardinality_method: exact
    rows_scanned: 2
    redacted: mask
    values:
    - value: '[masked]'
      count: 1
    - value: '[masked]'
      count: 1
    values_coverage: 1.0
  state:
    sql_type: text
    nullable: true
    null_count: 0
    null_rate: 0.0
    classification: categorical
    cardinality: 2
    cardinality_ratio: 1.0
    cardinality_method: exact
    rows_scanned: 2
    values:
    - value: open
      count: 1
    - value: closed
      count: 1
    values_coverage: 1.0
EOF
cat >"$S/prints/primary/shop/public/curator/relationships.yaml" <<'EOF'
format_version: 1
table: shop.public.curator
profiled_at: '2026-11-30T04:00:00Z'
eligible_target: false
refers_to: []
referenced_by: []
EOF
printf 'CREATE TABLE public.empty (\n    code text\n);\n' >"$S/prints/primary/shop/public/empty/ddl.sql"
cat >"$S/prints/primary/shop/public/empty/statistics.yaml" <<'EOF'
format_version: 1
table: shop.public.empty
type: table
profiled_at: '2026-11-30T04:00:00Z'
row_count: 5
row_count_method: exact
scope:
  rows_scanned: 0
  filter: 1 = 0
columns:
  code:
    sql_type: text
    nullable: true
    null_count: 0
    null_rate: 0.0
    classification: categorical
    cardinality: 0
    cardinality_ratio: 0.0
    cardinality_method: exact
    rows_scanned: 0
    values: []
    values_coverage: 1.0
EOF
"$INDEX" --project "$S" --quiet >/dev/null 2>&1

ctx_call "$S" primary '{"table":"shop.public.curator"}'
check_contains "scoped: Scanned line" "Scanned: 2 of 5 rows (40%); filtered by \`id < 3\`" "$out"
check_contains "scoped: complete list over the rows scanned" \
    "values (complete over the rows scanned): 'open' (50%), 'closed' (50%)" "$out"
check_contains "scoped: candidate key over the rows scanned" \
    "candidate key over the rows scanned" "$out"
check_contains "scoped: nulls none over the rows scanned" \
    "none over the rows scanned" "$out"
row=$(printf '%s\n' "$out" | grep '^| email |')
check_contains "redacted row: redacted: mask" "redacted: mask" "$row"
check_eq "redacted row: no NULL, no literal" "" \
    "$(printf '%s' "$row" | grep -e NULL -e masked)"
ctx_call "$S" primary '{"table":"shop.public.curator","purpose":"query"}'
check_contains "scoped query: Scanned line in the header" "Scanned: 2 of 5 rows (40%)" "$out"
check_contains "scoped query: coverage over the rows scanned" \
    "| state | 'open' (1), 'closed' (1) | complete over the rows scanned" "$out"
check_contains "scoped query: a nullable column's share once, in its cell" \
    "| none over the rows scanned |" "$out"
check_contains "scoped query: none found, not a join target" \
    "none found (not a join target, no declared-unique column)" "$out"
ctx_call "$S" primary '{"table":"shop.public.curator","format":"json"}'
check_eq "scoped json: scope verbatim beside row_count" \
    '{"scope":{"rows_scanned":2,"filter":"id < 3"},"row_count":5}' \
    "$(printf '%s' "$out" | jq -c '{scope, row_count}')"
ctx_call "$S" primary '{"table":"shop.public.curator","format":"json","include_stats":false}'
check_eq "scoped json: include_stats false keeps scope, drops statistics" \
    '{"scope":{"rows_scanned":2,"filter":"id < 3"},"statistics":null}' \
    "$(printf '%s' "$out" | jq -c '{scope, statistics}')"
ctx_call "$S" primary '{"table":"shop.public.curator","format":"yaml","purpose":"query"}'
check_contains "scoped yaml: scope block" "scope:
  rows_scanned: 2
  filter: id < 3" "$out"
ctx_call "$S" primary '{"table":"shop.public.empty"}'
check_contains "empty scan: values none over the rows scanned" \
    "values (complete over the rows scanned): none" "$out"
check_contains "empty scan: Scanned 0 of 5" "Scanned: 0 of 5 rows (0%)" "$out"
ctx_call "$S" primary '{"table":"shop.public.curator","purpose":"nope"}'
check_contains "an unknown purpose is refused naming purpose" "purpose" "$out"
ctx_call "$S" primary '{"table":"shop.public.nope"}'
check_contains "an unknown table is refused" "not found in connection 'primary'" "$out"

# ------------------------------------------------------------------
# The upstream production example.
EX=$SHARED_EXAMPLES/production
if [ ! -d "$EX/prints/production" ]; then
	skip "no ../shared upstream example beside the repository"
	exit 0
fi
cp -R "$EX" "$T/prod"
P=$T/prod
"$INDEX" --project "$P" --quiet >/dev/null 2>&1
tables=$(sqlite3 "$P/.dbprint/index/production.sqlite" \
    "SELECT fqn FROM tables WHERE walkable = 1 ORDER BY fqn")
check_eq "example: 10 tables" 10 "$(printf '%s\n' $tables | wc -l)"
bad=""
for t in $tables; do
	for p in profile query; do
		for f in md json yaml; do
			ctx_call "$P" production "{\"table\":\"$t\",\"purpose\":\"$p\",\"format\":\"$f\"}"
			n=$(printf '%s' "$out" | wc -m)
			if [ "$rc" -ne 0 ] || [ "$n" -gt 20000 ] || [ "$n" -eq 0 ]; then
				bad="$bad $t/$p/$f(rc=$rc,len=$n)"
			fi
			if [ "$f" = json ] && ! printf '%s' "$out" | jq -e .table >/dev/null 2>&1; then
				bad="$bad $t/$p/json-unparsed"
			fi
		done
	done
done
check_eq "example: every table renders in all six combinations" "" "$bad"

A=arboretum.seedbank.accession
ctx_call "$P" production "{\"table\":\"$A\"}"
check_contains "example md: the FQN" "$A" "$out"
check_contains "example md: CREATE TABLE" "CREATE TABLE" "$out"
check_contains "example md: Adapter: postgres" "Adapter: postgres" "$out"
check_contains "example profile: Cardinality" "Cardinality" "$out"
check_eq "example profile: no Column values" "" "$(printf '%s' "$out" | grep '## Column values')"
ctx_call "$P" production "{\"table\":\"$A\",\"purpose\":\"query\"}"
check_contains "example query: ## Column values" "## Column values" "$out"
check_eq "example query: no Cardinality" "" "$(printf '%s' "$out" | grep Cardinality)"
check_contains "example query: a human-added path-valued edge" \
    "- traits (path reclassified_taxon_id) -> arboretum.seedbank.taxon.taxon_id (annotated); nulls: " "$out"
ctx_call "$P" production '{"table":"arboretum.seedbank.accession_summary","format":"json"}'
check_eq "example: the rejected edge is withheld from refers_to" "[]" \
    "$(printf '%s' "$out" | jq -c '[.relationships.refers_to[] | select(.target_table == "arboretum.seedbank.germination_trial")]')"
check_eq "example: its verdict entry is dropped from relationship_annotations" "[]" \
    "$(printf '%s' "$out" | jq -c '.relationship_annotations.refers_to')"
check_eq "example: a view that declares every kind has no _missing" null \
    "$(printf '%s' "$out" | jq -c '._missing')"
ctx_call "$P" production '{"table":"arboretum.seedbank.collector","purpose":"query"}'
row=$(printf '%s\n' "$out" | grep '^| email |')
check_contains "example: the redacted email row says redacted: mask" "redacted: mask" "$row"
check_eq "example: and prints no NULL" "" "$(printf '%s' "$row" | grep NULL)"

# over stdio: a json context that pages
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_table_context\",\"arguments\":{\"table\":\"$A\",\"format\":\"json\"}}}" |
    $VG "$SERVE" --project "$P" >"$T/rpc.out" 2>"$T/rpc.err"
text=$(jq -r '.result.content[0].text' "$T/rpc.out")
check "stdio: the json page is within 20000 characters" \
    test "$(printf '%s' "$text" | wc -m)" -le 20000
check "stdio: and carries next_cursor" \
    sh -c "printf '%s' '$(printf '%s' "$text" | jq -r .next_cursor)' | grep -q '^[A-Za-z0-9_-]\{20,\}\$'"

# corrupt statistics, then a deleted one
printf 'columns: [unclosed\n' >"$P/prints/production/arboretum/seedbank/taxon/statistics.yaml"
ctx_call "$P" production '{"table":"arboretum.seedbank.taxon"}'
check_eq "corrupt statistics: the Unreadable line exactly once" 1 \
    "$(printf '%s\n' "$out" | grep -c 'Unreadable: statistics (present on disk, failed to parse)')"
check_contains "corrupt statistics: the rest still renders" "## Relationships" "$out"
ctx_call "$P" production '{"table":"arboretum.seedbank.taxon","format":"json"}'
check_eq "corrupt statistics: _corrupted keys" '["statistics"]' \
    "$(printf '%s' "$out" | jq -c '._corrupted | keys')"
check_contains "corrupt statistics: the parse error" "YAML parse error" \
    "$(printf '%s' "$out" | jq -r '._corrupted.statistics')"
rm "$P/prints/production/arboretum/seedbank/vault/statistics.yaml"
ctx_call "$P" production '{"table":"arboretum.seedbank.vault","format":"json"}'
check_eq "deleted statistics: _missing" '["statistics"]' \
    "$(printf '%s' "$out" | jq -c '._missing')"
ctx_call "$P" production '{"table":"arboretum.seedbank.vault"}'
check_contains "deleted statistics: the Missing line" \
    "Missing: statistics (declared but missing from disk)" "$out"

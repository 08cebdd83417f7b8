# print6.sh - a small print for the t6* tests (get_manifest, get_diff and
# the resources), written into a scratch project.  Source it after
# tests/lib.sh, then call mkprint6 DIR.
#
#   connection shop (served) and other (configured, not served);
#   s.a  -> s.b twice (b_id, c_id), both inferred; s.a's
#        relationships.annotations.yaml rejects b_id -> s.b.id;
#   s.b  declares statistics.yaml, which is missing on disk;
#   s.v  a view: ddl and statistics only, statistics.yaml unparseable;
#   s.bad  an entry that is not a mapping; s.out  a path outside the root;
#   t.other  declares description and statistics_annotations, neither
#        authored; s.gone and t.other are in failed_tables.

# mkprint6 DIR: the project at DIR, print root DIR/prints/shop.
mkprint6() {
	_p=$1
	_r=$_p/prints/shop
	mkdir -p "$_r/s/a" "$_r/s/b" "$_r/s/v" "$_r/t/other" "$_p/prints/other"
	cat >"$_p/.dbprint.yaml" <<'EOF'
connections:
  shop:
    output: prints
  other:
    output: prints
EOF
	cat >"$_r/manifest.yaml" <<'EOF'
format_version: 1
generated_at: '2026-11-30T06:00:00Z'
connection: shop
adapter: duckdb
dbprint_version: 0.12.0
failed_tables:
- s.gone
- t.other
tables:
  t.other:
    type: table
    path: t/other
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
      description: description.md
      statistics_annotations: statistics.annotations.yaml
    row_count: 1
    columns: 1
  s.b:
    type: table
    path: s/b
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
      relationships: relationships.yaml
    row_count: 10
    columns: 1
  s.a:
    type: table
    path: s/a
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
      relationships: relationships.yaml
      description: description.md
      relationships_annotations: relationships.annotations.yaml
    row_count: 5
    columns: 3
  s.v:
    type: view
    path: s/v
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
    columns: 1
  s.bad: 7
  s.out:
    type: table
    path: ../../escape
    artifacts:
      ddl: ddl.sql
EOF
	printf 'format_version: 1\nnotes: Amounts are in cents.\n' \
	    >"$_r/manifest.annotations.yaml"
	printf '# Reading this print\n\nEvery "count" is exact.\n' \
	    >"$_r/reading.md"
	cat >"$_r/diff.yaml" <<'EOF'
format_version: 1
generated_at: '2026-11-30T06:00:00Z'
summary:
  tables_added: 1
  relationships_changed: 2
changes:
- kind: table_added
  table: s.a
- kind: column_added
  table: s.b
  column: x
- kind: relationship_added
  source_table: s.a
  source_column: [b_id]
  target_table: s.b
  target_column: [id]
- kind: relationship_added
  source_table: s.a
  source_column: [c_id]
  target_table: s.b
  target_column: [id]
- kind: table_row_count_changed
  table: t.other
  before: 1
  after: 2
EOF
	for _t in s/a s/b s/v t/other; do
		printf 'CREATE TABLE %s (id integer);\n' "$_t" >"$_r/$_t/ddl.sql"
	done
	cat >"$_r/s/a/statistics.yaml" <<'EOF'
format_version: 1
table: s.a
row_count: 5
columns:
  b_id:
    sql_type: integer
    nullable: true
    null_rate: 0.0
    classification: numeric
EOF
	cp "$_r/s/a/statistics.yaml" "$_r/t/other/statistics.yaml"
	printf 'format_version: 1\ncolumns: [unclosed\n' >"$_r/s/v/statistics.yaml"
	printf 'The "a" table.\n' >"$_r/s/a/description.md"
	cat >"$_r/s/a/relationships.yaml" <<'EOF'
format_version: 1
table: s.a
profiled_at: '2026-11-30T06:00:00Z'
refers_to:
- column: [b_id]
  target_table: s.b
  target_column: [id]
  detection: inferred
- column: [c_id]
  target_table: s.b
  target_column: [id]
  detection: inferred
referenced_by: []
EOF
	cat >"$_r/s/a/relationships.annotations.yaml" <<'EOF'
format_version: 1
refers_to:
- column: [b_id]
  target_table: s.b
  target_column: [id]
  verdict: rejected
  note: shares nothing but a name
EOF
	cat >"$_r/s/b/relationships.yaml" <<'EOF'
format_version: 1
table: s.b
profiled_at: '2026-11-30T06:00:00Z'
refers_to: []
referenced_by:
- column: [id]
  referencer_table: s.a
  referencer_column: [b_id]
  detection: inferred
- column: [id]
  referencer_table: s.a
  referencer_column: [c_id]
  detection: inferred
EOF
}

# rpc6 PROJECT JSON-LINE...: run the server over stdio on the lines, print
# its replies (one per line).
rpc6() {
	_proj=$1; shift
	printf '%s\n' "$@" | $VG "$SERVE" shop --project "$_proj" 2>>"$T/.stderr6"
}

# call6 PROJECT TOOL JSON: one tools/call through --call; prints the text.
call6() {
	$VG "$SERVE" shop --project "$1" --call "$2" "$3" 2>>"$T/.stderr6"
}

# read6 PROJECT URI: the resources/read reply (one JSON line).
read6() {
	rpc6 "$1" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"$2\"}}"
}

# callerr6 PROJECT TOOL JSON: the error detail of a failing call (stderr);
# the exit status must be 1.
callerr6() {
	if $VG "$SERVE" shop --project "$1" --call "$2" "$3" >/dev/null \
	    2>"$T/.callerr"; then
		echo "(the call succeeded)"
	else
		cat "$T/.callerr"
	fi
	cat "$T/.callerr" >>"$T/.stderr6"
}

# clean6: the check every t6* script ends with - no server run reported a
# sanitizer or valgrind error on stderr.
clean6() {
	if grep -qE 'Sanitizer|runtime error|== ?[0-9]+ ?==|definitely lost' \
	    "$T/.stderr6" 2>/dev/null; then
		fail "no server run reported a memory error" \
		    "$(grep -E -m 20 'Sanitizer|runtime error|==[0-9]+==' "$T/.stderr6")"
	else
		ok "no server run reported a memory error"
	fi
}

# follow6 PROJECT TOOL JSON KEY: every page of a paged call, following
# next_cursor; prints one page's text per file $T/page.N and the number
# of pages.
follow6() {
	_pg=0
	_args=$3
	while :; do
		_pg=$((_pg + 1))
		call6 "$1" "$2" "$_args" >"$T/page.$_pg" || break
		_c=$(jq -r '.next_cursor // empty' "$T/page.$_pg")
		[ -n "$_c" ] || break
		_args=$(printf '%s' "$3" | jq -c --arg c "$_c" '. + {cursor: $c}')
	done
	echo "$_pg"
}

#!/bin/sh
# t4210-search-columns-window.sh - search_columns reads a page at a time
# (counting its matches apart from reading them), so every page of a big
# search is checked against an answer computed independently from the
# index with sqlite3: over a generated print of 200 tables x 20 columns,
# the pages of each search, concatenated, are exactly the rows the plain
# SQL form of its predicates selects, in (table, column) order, with the
# same total on every page and the value notes the text reaches.  Then
# text matching on names and notes outside ASCII, where the trigram
# index's own case folding is not Python's casefold, against answers
# worked out by hand.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/calls4.sh"

G=$T/gen
"$BUILD_ABS/gen-print" "$G" 200 20 >/dev/null
$VG "$INDEX" --quiet --project "$G"
check_eq "generated print indexed" 0 $?
DB=$G/.dbprint/index/gen.sqlite
P=$G

# The oracle folds case with SQL's lower(), which is casefold on ASCII.
check_eq "the generated print is ASCII (the oracle's lower() is casefold)" \
    0 "$(sqlite3 "$DB" "SELECT (SELECT count(*) FROM columns WHERE
	label GLOB '*[^ -~]*' OR note GLOB '*[^ -~]*') +
	(SELECT count(*) FROM value_notes WHERE note GLOB '*[^ -~]*')")"

# A match the way the oracle prints it: table|column|part|value notes.
ROW="c.table_fqn || '|' || c.name || '|' || c.part || '|' || "
# Value notes holding text $1 (for a column row), as the oracle counts.
vn() {
	printf "(CASE WHEN c.part = '' THEN (SELECT count(*) FROM value_notes v
	    WHERE v.table_fqn = c.table_fqn AND v.name = c.name AND
	    instr(lower(v.note), '%s') > 0) ELSE 0 END)" "$1"
}
# The text predicate of spec 4.3 over ASCII text $1 (lower case).
txt() {
	printf "(CASE WHEN c.part <> '' THEN instr(lower(c.label), '%s') > 0
	    ELSE instr(lower(c.name), '%s') > 0 OR
	    instr(lower(coalesce(c.note, '')), '%s') > 0 OR %s > 0 END)" \
	    "$1" "$1" "$1" "$(vn "$1")"
}
# oracle NAME WHERE [VN] - the expected matches of a search into $T/NAME.want
oracle() {
	sqlite3 "$DB" "SELECT $ROW ${3:-0} FROM columns c
	    JOIN tables t ON t.fqn = c.table_fqn
	    WHERE t.walkable = 1 AND ($2)
	    ORDER BY c.table_fqn, c.name, c.part <> '', c.ord" >"$T/$1.want"
}
# paged NAME ARGS - every page of the search: the matches into $T/NAME.got
paged() {
	pages4 search_columns "$2" matches
	jq -r '[.table, .column, (.part // ""),
	    ((.value_notes // []) | length | tostring)] | join("|")' \
	    "$T/items" >"$T/$1.got"
	check "$1: every page within 20000 characters" test "$maxlen" -le 20000
	check_eq "$1: the same total on every page" \
	    "$(wc -l <"$T/$1.want" | tr -d ' ') " "$totals"
	check_file "$1: the pages are the oracle's rows, in order" \
	    "$T/$1.want" "$T/$1.got"
}

CATALOG="t.catalog_only IS NOT 1"
oracle sens "c.sensitivity IS NOT NULL AND $CATALOG"
check "sensitivity *: more than one page of matches" \
    test "$(wc -l <"$T/sens.want")" -gt 100
paged sens '{"sensitivity":"*"}'

oracle numeric "c.classification = 'numeric'"
paged numeric '{"classification":"numeric"}'

oracle refund "$(txt refund)" "$(vn refund)"
check "text refund: a value note among the matches" \
    grep -q '|[1-9][0-9]*$' "$T/refund.want"
paged refund '{"text":"reFUNd"}'

oracle refund_sens "$(txt refund) AND c.sensitivity IS NOT NULL AND $CATALOG" \
    "$(vn refund)"
paged refund_sens '{"text":"refund","sensitivity":"*"}'

oracle short_cat "$(txt re) AND c.classification = 'categorical'" "$(vn re)"
paged short_cat '{"text":"RE","classification":"categorical"}'

oracle amount "c.label GLOB 'amount_*'"
paged amount '{"pattern":"amount_*"}'

oracle short_pattern "c.label GLOB '*d_?'"
paged short_pattern '{"pattern":"*d_?"}'

oracle ck "c.part = '' AND c.candidate_key = 1 AND $CATALOG"
paged ck '{"candidate_key":true}'

oracle ck_code "c.part = '' AND c.candidate_key = 0 AND $CATALOG AND
    c.label GLOB '*code*' AND $(txt code)" "$(vn code)"
paged ck_code '{"candidate_key":false,"pattern":"*code*","text":"Code"}'

# Text outside ASCII: one table whose names, notes and value notes need
# Python's casefold (the trigram index folds one character at a time and
# never turns U+00DF into "ss" or U+FB01 into "fi").
U=$T/uni
mkdir -p "$U/prints/u/s/t"
printf 'connections:\n  u:\n    adapter: duckdb\n' >"$U/.dbprint.yaml"
cat >"$U/prints/u/manifest.yaml" <<'EOF'
format_version: 1
connection: u
adapter: duckdb
generated_at: '2026-11-30T04:00:00Z'
tables:
  s.t:
    type: table
    path: s/t
    artifacts:
      statistics: statistics.yaml
      statistics_annotations: statistics.annotations.yaml
    columns: 5
    row_count: 10
EOF
{
	printf 'format_version: 1\ntable: s.t\ntype: table\n'
	printf "profiled_at: '2026-11-30T04:00:00Z'\nrow_count: 10\n"
	printf 'row_count_method: exact\ncolumns:\n'
	for c in addr größe price class_code flags; do
		printf '  %s:\n    sql_type: VARCHAR\n    nullable: false\n' $c
		printf '    null_count: 0\n    null_rate: 0.0\n'
		printf '    classification: text\n'
	done
} >"$U/prints/u/s/t/statistics.yaml"
cat >"$U/prints/u/s/t/statistics.annotations.yaml" <<'EOF'
format_version: 1
columns:
  addr:
    note: Lieferung an die Straße
  price:
    note: Net of tax
    values:
      - value: F
        note: ﬁnal price, after every discount
      - value: P
        note: provisional
  class_code:
    note: first CLASS or second
  flags:
    values:
      - value: a
        note: alpha
      - value: b
        note: beta
EOF
P=$U
$VG "$INDEX" --quiet --project "$U"
check_eq "non-ASCII print indexed" 0 $?
cols() {
	jqo '[.matches[] | .column + (if .value_notes then
	    "+" + ([.value_notes[].value] | join(",")) else "" end)]'
}
call4 search_columns '{"text":"STRASSE"}'
check_eq "an ASCII needle reaches U+00DF through casefold" '["addr"]' "$(cols)"
call4 search_columns '{"text":"straße"}'
check_eq "a needle spelled with U+00DF folds to ss" '["addr"]' "$(cols)"
call4 search_columns '{"text":"GRÖSSE"}'
check_eq "a non-ASCII needle in a non-ASCII column name" '["größe"]' "$(cols)"
call4 search_columns '{"text":"ss"}'
check_eq "a short needle: ss in every spelling" '["addr","class_code","größe"]' \
    "$(cols)"
call4 search_columns '{"text":"final"}'
check_eq "the ligature U+FB01 in a value note folds to fi" '["price+F"]' \
    "$(cols)"
call4 search_columns '{"text":"FIRST class"}'
check_eq "ASCII text in an ASCII row" '["class_code"]' "$(cols)"
call4 search_columns '{"text":"alpha"}'
check_eq "a value note: only the note holding the text" '["flags+a"]' \
    "$(cols)"
call4 search_columns '{"text":"alpha\nbeta"}'
check_eq "a needle never spans two value notes" '[]' "$(cols)"
call4 search_columns '{"text":"pha"}'
check_eq "three characters inside a value note" '["flags+a"]' "$(cols)"

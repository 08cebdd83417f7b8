#!/bin/sh
# t1080-index-value-rows.sh - dbprint-index writes a table's value rows
# in statements of many rows (fill.c f_vflush: DBP_VALUE_BATCH, then
# DBP_VALUE_BATCH_TAIL, then one), staged across the table's columns, and
# flushed early once their texts pass DBP_VALUE_STAGE_FLUSH (1 MB).  Over
# a print written here, every row must come out as a row-at-a-time write
# would leave it: each list's ords 0..n-1 under its own column, every
# value's JSON, text, fold, count, spelling_of and note, whatever the
# statement it went in, the value's type, or a staged list running past
# a statement's end or the byte threshold.
. "$(dirname "$0")/../lib.sh"

P=$T/p
R=$P/prints/v
mkdir -p "$R/s/t" "$R/s/u"
cat >"$P/.dbprint.yaml" <<'EOF'
connections:
  v:
    output: prints
EOF
cat >"$R/manifest.yaml" <<'EOF'
format_version: 1
generated_at: '2026-11-30T06:00:00Z'
connection: v
adapter: duckdb
dbprint_version: 0.12.0
tables:
  s.t:
    type: table
    path: s/t
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
      statistics_annotations: statistics.annotations.yaml
    row_count: 100
    columns: 4
  s.u:
    type: table
    path: s/u
    artifacts:
      ddl: ddl.sql
      statistics: statistics.yaml
    row_count: 5
    columns: 1
EOF
for t in t u; do
	printf 'CREATE TABLE s.%s (x TEXT);\n' "$t" >"$R/s/$t/ddl.sql"
done

# s.t: "many" lists 45 strings (past one 32-row statement), "big" three
# values of 400,000 characters (each row's texts pass the 1 MB threshold
# alone), "mixed" one value of every type, "last" 3 rows (a tail).
big() { head -c 400000 /dev/zero | tr '\0' "$1"; }
{
	cat <<'EOF'
format_version: 1
table: s.t
type: table
row_count: 100
columns:
  many:
    sql_type: TEXT
    classification: categorical
    values:
EOF
	i=0
	while [ $i -lt 45 ]; do
		printf '    - value: V%03d\n      count: %d\n' $i $((1000 + i))
		i=$((i + 1))
	done
	cat <<'EOF'
  big:
    sql_type: TEXT
    values:
EOF
	for c in a b c; do
		printf '    - value: %s\n      count: 7\n' "$(big "$c")"
	done
	cat <<'EOF'
  mixed:
    sql_type: TEXT
    values:
    - value: 12
      count: 1
    - value: 2.5
    - value: true
    - value: null
      count: 3
    - value: {a: 1}
    - value: [1, 2]
    - value: ' Ünï '
      spelling_of: uni
      count: 2
  last:
    sql_type: TEXT
    values:
    - value: x
    - value: y
    - value: z
EOF
} >"$R/s/t/statistics.yaml"
cat >"$R/s/t/statistics.annotations.yaml" <<'EOF'
format_version: 1
columns:
  many:
    values:
    - value: V003
      note: the third
    - value: V040
      note: past the first statement
EOF
{
	printf 'format_version: 1\ntable: s.u\ntype: table\nrow_count: 5\n'
	printf 'columns:\n  x:\n    sql_type: TEXT\n    values:\n'
	for v in p q r s t; do
		printf '    - value: %s\n' "$v"
	done
} >"$R/s/u/statistics.yaml"

I=$T/i.sqlite
$VG "$INDEX" --quiet --project "$P" --index "$I"
check_eq "the print is indexed" 0 $?

# q SQL - one answer of the index
q() { sqlite3 "$I" "$1"; }
# rows TABLE COLUMN - how many value rows, and whether their ords are
# exactly 0..n-1
rows() {
	q "SELECT count(*) || ' ' || (max(v.ord) = count(*) - 1 AND
	    min(v.ord) = 0) FROM column_values v JOIN columns c ON
	    c.id = v.column_id WHERE c.table_fqn = '$1' AND c.name = '$2'"
}
# cell TABLE COLUMN ORD FIELD - one field of one value row
cell() {
	q "SELECT $4 FROM column_values v JOIN columns c ON c.id = v.column_id
	    WHERE c.table_fqn = '$1' AND c.name = '$2' AND v.ord = $3"
}

check_eq "many: 45 rows, ords 0..44" "45 1" "$(rows s.t many)"
check_eq "big: 3 rows, ords 0..2" "3 1" "$(rows s.t big)"
check_eq "mixed: 7 rows, ords 0..6" "7 1" "$(rows s.t mixed)"
check_eq "last: 3 rows, ords 0..2" "3 1" "$(rows s.t last)"
check_eq "s.u: 5 rows, ords 0..4" "5 1" "$(rows s.u x)"
check_eq "no other value rows" 63 "$(q 'SELECT count(*) FROM column_values')"

check_eq "many: row 0 (first statement)" '"V000"|V000|v000|1000' \
    "$(cell s.t many 0 "value || '|' || text || '|' || fold || '|' || count")"
check_eq "many: row 31 (the first statement's last)" '"V031"|V031|v031|1031' \
    "$(cell s.t many 31 "value || '|' || text || '|' || fold || '|' || count")"
check_eq "many: row 32 (the second statement's first)" \
    '"V032"|V032|v032|1032' \
    "$(cell s.t many 32 "value || '|' || text || '|' || fold || '|' || count")"
check_eq "many: row 44" '"V044"|V044|v044|1044' \
    "$(cell s.t many 44 "value || '|' || text || '|' || fold || '|' || count")"
check_eq "many: every count is 1000 + ord" 45 \
    "$(q "SELECT count(*) FROM column_values v JOIN columns c ON
	c.id = v.column_id WHERE c.name = 'many' AND v.count = 1000 + v.ord
	AND v.text = printf('V%03d', v.ord)")"
check_eq "many: the notes of V003 and V040, on their rows only" \
    "3|the third
40|past the first statement" \
    "$(q "SELECT v.ord || '|' || v.note FROM column_values v JOIN columns c
	ON c.id = v.column_id WHERE c.name = 'many' AND v.note IS NOT NULL
	ORDER BY v.ord")"

for c in a b c; do
	o=$(( $(printf '%d' "'$c") - 97 ))
	check_eq "big: row $o holds its 400,000 characters, whole" \
	    "400002|400000|400000|7|$c" \
	    "$(cell s.t big $o "length(value) || '|' || length(text) || '|' ||
		length(fold) || '|' || count || '|' || substr(text, 1, 1)")"
	check_eq "big: row $o is all '$c'" 1 \
	    "$(cell s.t big $o "replace(text, '$c', '') = '' AND
		value = '\"' || text || '\"' AND fold = text")"
done

# value|text|fold|count|spelling_of, NULL shown as "-"
F="coalesce(value, '-') || '|' || coalesce(text, '-') || '|' ||
    coalesce(fold, '-') || '|' || coalesce(count, '-') || '|' ||
    coalesce(spelling_of, '-')"
check_eq "mixed: an integer" '12|12|12|1|-' "$(cell s.t mixed 0 "$F")"
check_eq "mixed: a float" '2.5|2.5|2.5|-|-' "$(cell s.t mixed 1 "$F")"
check_eq "mixed: a boolean" 'true|True|true|-|-' "$(cell s.t mixed 2 "$F")"
check_eq "mixed: a null" 'null|-|-|3|-' "$(cell s.t mixed 3 "$F")"
check_eq "mixed: a mapping" '{"a":1}|{'"'"'a'"'"': 1}|{'"'"'a'"'"': 1}|-|-' \
    "$(cell s.t mixed 4 "$F")"
check_eq "mixed: a list" '[1,2]|[1, 2]|[1, 2]|-|-' "$(cell s.t mixed 5 "$F")"
check_eq "mixed: a string outside ASCII, with its spelling_of" \
    '" \u00dcn\u00ef "| Ünï |ünï|2|"uni"' "$(cell s.t mixed 6 "$F")"
check_eq "last: its three rows in order" "x y z" \
    "$(q "SELECT group_concat(text, ' ') FROM (SELECT v.text FROM
	column_values v JOIN columns c ON c.id = v.column_id WHERE
	c.name = 'last' ORDER BY v.ord)")"
check_eq "s.u: its rows under its own column" "p q r s t" \
    "$(q "SELECT group_concat(text, ' ') FROM (SELECT v.text FROM
	column_values v JOIN columns c ON c.id = v.column_id WHERE
	c.table_fqn = 's.u' ORDER BY v.ord)")"

# A re-index of s.t alone replaces its rows and leaves s.u's.
sed 's/V044/W044/' "$R/s/t/statistics.yaml" >"$T/s" &&
    mv "$T/s" "$R/s/t/statistics.yaml"
$VG "$INDEX" --quiet --project "$P" --index "$I"
check_eq "the edited print is indexed" 0 $?
check_eq "the edit is indexed" '"W044"|W044|w044|1044' \
    "$(cell s.t many 44 "value || '|' || text || '|' || fold || '|' || count")"
check_eq "the re-index leaves as many rows" 63 \
    "$(q 'SELECT count(*) FROM column_values')"
check_eq "s.u: untouched" "p q r s t" \
    "$(q "SELECT group_concat(text, ' ') FROM (SELECT v.text FROM
	column_values v JOIN columns c ON c.id = v.column_id WHERE
	c.table_fqn = 's.u' ORDER BY v.ord)")"

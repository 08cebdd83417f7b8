#!/bin/sh
# t0920-bad-inputs.sh - every hostile input of fixtures/bad, placed where its
# name says in a one-table print, is indexed without a crash and reported
# as its .expect says (fixtures/bad/README.md).  The run always exits 0:
# a bad file is a per-file error.  An expectation marked "uncertain" that
# the indexer does not meet is reported as a SKIP naming what it said.
. "$(dirname "$0")/../lib.sh"

BAD=$FIX/bad

mkproj() {	# mkproj DIR - a print with one table, bad.fix.t
	mkdir -p "$1/prints/bad/bad/fix/t"
	printf 'connections:\n  bad:\n    adapter: duckdb\n' >"$1/.dbprint.yaml"
	printf 'CREATE TABLE t (c VARCHAR);\n' >"$1/prints/bad/bad/fix/t/ddl.sql"
	cat >"$1/prints/bad/bad/fix/t/statistics.yaml" <<'EOY'
format_version: 1
table: bad.fix.t
type: table
profiled_at: '2026-11-30T00:00:00Z'
row_count: 3
row_count_method: exact
grain: {keys: []}
columns:
  c: {sql_type: VARCHAR, nullable: false, null_count: 0, null_rate: 0.0, classification: categorical, cardinality: 1, cardinality_ratio: 0.333333, cardinality_method: exact, values: [{value: a, count: 3}], values_coverage: 1.0, distribution: dominant_value}
EOY
	printf 'format_version: 1\ncolumns: {}\n' \
	    >"$1/prints/bad/bad/fix/t/statistics.annotations.yaml"
	printf 'format_version: 1\nrefers_to: []\n' \
	    >"$1/prints/bad/bad/fix/t/relationships.annotations.yaml"
	cat >"$1/prints/bad/manifest.yaml" <<'EOY'
format_version: 1
generated_at: '2026-11-30T00:00:00Z'
connection: bad
adapter: duckdb
dbprint_version: 0.12.0
statistics_params: {}
selectors: {include: ['*'], exclude: []}
redaction_rules_configured: 0
default_collation: binary
manifest_annotations: manifest.annotations.yaml
tables:
  bad.fix.t:
    type: table
    path: bad/fix/t
    artifacts: {ddl: ddl.sql, statistics: statistics.yaml, statistics_annotations: statistics.annotations.yaml, relationships_annotations: relationships.annotations.yaml}
    row_count: 3
    columns: 1
    profiled_at: '2026-11-30T00:00:00Z'
EOY
	printf 'format_version: 1\nnotes: clean\n' \
	    >"$1/prints/bad/manifest.annotations.yaml"
}

# Table-level cases share one print, a table each; connection-level cases
# (manifest-, mannot-) get a print of their own.
check_case() {	# check_case NAME EXPECTFILE RC MESSAGES
	n=$1
	if [ "$3" -ne 0 ]; then
		fail "$n: dbprint-index exits 0" "exit $3"
		return
	fi
	want=$(sed -n 1p "$2")
	unsure=$(grep -c '^# uncertain' "$2")
	case $want in
	ok)	if [ -z "$4" ]; then good=1; else good=0; fi ;;
	error:*) needle=${want#error: }
		case $4 in *"$needle"*) good=1 ;; *) good=0 ;; esac ;;
	*)	fail "$n: unreadable .expect"; return ;;
	esac
	if [ $good = 1 ]; then
		ok "$n: $want"
	elif [ "$unsure" -gt 0 ]; then
		skip "uncertain: $n expected '$want', indexer said: $(printf '%s' "${4:-no error}" | head -1 | cut -c1-160)"
	else
		fail "$n: $want" "got: ${4:-no error}"
	fi
}

table_cases() {	# table_cases DIR - every table-level case of DIR in one print
	P=$T/tables
	rm -rf "$P"
	mkproj "$P"
	for f in "$1"/*.yaml; do
		n=$(basename "$f" .yaml)
		case $n in any-*|stats-*|annot-*|relannot-*) ;; *) continue ;; esac
		t=$(printf '%s' "$n" | tr -- '-' '_')
		D=$P/prints/bad/bad/fix/$t
		cp -R "$P/prints/bad/bad/fix/t" "$D"
		case $n in
		any-*|stats-*)	cp "$f" "$D/statistics.yaml" ;;
		annot-*)	cp "$f" "$D/statistics.annotations.yaml" ;;
		relannot-*)	cp "$f" "$D/relationships.annotations.yaml" ;;
		esac
		printf '  bad.fix.%s:\n    type: table\n    path: bad/fix/%s\n    artifacts: {ddl: ddl.sql, statistics: statistics.yaml, statistics_annotations: statistics.annotations.yaml, relationships_annotations: relationships.annotations.yaml}\n    columns: 1\n' \
		    "$t" "$t" >>"$P/prints/bad/manifest.yaml"
	done
	$VG "$INDEX" --project "$P" --json >"$T/out.json" 2>"$T/err"
	rc=$?
	for f in "$1"/*.yaml; do
		n=$(basename "$f" .yaml)
		case $n in any-*|stats-*|annot-*|relannot-*) ;; *) continue ;; esac
		t=$(printf '%s' "$n" | tr -- '-' '_')
		msgs=$(jq -r '.errors[] | select(.path | startswith("bad/fix/'"$t"'/")) | .message' \
		    "$T/out.json" 2>/dev/null | sed "s|$P/prints/bad/||g")
		check_case "$n" "${f%.yaml}.expect" "$rc" "$msgs"
	done
}

print_case() {	# print_case FILE.yaml - a connection-level case, own print
	n=$(basename "$1" .yaml)
	P=$T/p/$n
	mkproj "$P"
	case $n in
	mannot-*)	cp "$1" "$P/prints/bad/manifest.annotations.yaml" ;;
	manifest-*)	cp "$1" "$P/prints/bad/manifest.yaml" ;;
	esac
	$VG "$INDEX" --project "$P" --json >"$T/out.json" 2>"$T/err"
	rc=$?
	msgs=$(jq -r '.errors[].message' "$T/out.json" 2>/dev/null | sed "s|$P/prints/bad/||g")
	check_case "$n" "${1%.yaml}.expect" "$rc" "$msgs"
}

table_cases "$BAD"
for f in "$BAD"/manifest-*.yaml "$BAD"/mannot-*.yaml; do
	print_case "$f"
done
other=$(ls "$BAD"/*.yaml | grep -cv '/\(any\|stats\|annot\|relannot\|manifest\|mannot\)-')
check_eq "every case has a known prefix" 0 "$other"

# The two big cases make check can afford (the rest: gen-big.sh --all).
sh "$BAD/gen-big.sh" "$T/big" >/dev/null 2>&1
check "gen-big.sh wrote the big cases" test -s "$T/big/any-huge-scalar.yaml"
table_cases "$T/big"

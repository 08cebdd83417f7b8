#!/bin/sh
# t1040-index-upstream.sh - the upstream example prints index cleanly:
# the production print with zero errors (issue 2), and the others too.
# Skipped when ../shared/upstream is not beside the repository.
. "$SRCDIR/tests/lib.sh"

if [ ! -d "$SHARED_EXAMPLES/production" ]; then
	skip "no upstream examples at $SHARED_EXAMPLES"
	exit 0
fi
for ex in production production-v0.4 vocabulary; do
	[ -f "$SHARED_EXAMPLES/$ex/.dbprint.yaml" ] || continue
	$VG "$INDEX" --quiet --json --project "$SHARED_EXAMPLES/$ex" \
	    --index "$T/$ex.sqlite" >"$T/$ex.json" 2>"$T/$ex.err"
	check_eq "$ex indexes with exit 0" 0 $?
	check_eq "$ex has zero errors" 0 "$(jq '.errors | length' "$T/$ex.json")"
	check "$ex has tables and columns" jq -e '.tables > 0 and .columns > 0' \
	    "$T/$ex.json"
done
I="$T/production.sqlite"
check_eq "production: the 10 example tables" 10 \
    "$(sqlite3 "$I" 'SELECT count(*) FROM tables WHERE walkable')"
check_eq "production: sensitivity columns (search_columns sensitivity '*')" \
    "deployed_at email full_name institution_email logger_ipv4 phone site_name street_address vernacular_name" \
    "$(sqlite3 "$I" "SELECT group_concat(name, ' ') FROM (SELECT name FROM columns WHERE sensitivity IS NOT NULL AND part = '' ORDER BY name)")"
check_eq "production: collector.email facts" \
    "text|character varying(320)|contact|mask|1" \
    "$(sqlite3 "$I" "SELECT classification || '|' || sql_type || '|' || sensitivity || '|' || redacted || '|' || candidate_key FROM columns WHERE table_fqn = 'arboretum.seedbank.collector' AND name = 'email'")"
check_eq "production: taxon.rank folds GENUS to a stored value" '"genus"' \
    "$(sqlite3 "$I" "SELECT v.value FROM column_values v JOIN columns c ON c.id = v.column_id WHERE c.table_fqn = 'arboretum.seedbank.taxon' AND c.name = 'rank' AND v.fold = 'genus'")"
check_eq "production: the medium value note" "control" \
    "$(sqlite3 "$I" "SELECT text FROM value_notes WHERE table_fqn = 'arboretum.seedbank.germination_trial' AND name = 'medium' AND note LIKE '%no-treatment%'")"

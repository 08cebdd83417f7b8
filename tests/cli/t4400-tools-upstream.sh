#!/bin/sh
# t4400-tools-upstream.sh - list_tables, search_columns and resolve_value
# against the upstream `production` example print, checking the answers
# upstream's own tests pin (research/upstream-mcp.md 8.1-8.3).  Skips when
# ../shared is not beside the repository.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/calls4.sh"

if [ ! -d "$SHARED_EXAMPLES/production/prints/production" ]; then
	skip "upstream example prints not present"
	exit 0
fi
cp -R "$SHARED_EXAMPLES/production" "$T/prod"
P=$T/prod

# column names of the matches, sorted and unique
names() {
	jqo '[.matches[].column] | unique'
}

call4 list_tables '{}'
check_eq "list_tables: the 10 tables" \
    '{"tables":["arboretum.fixture.shape_probe","arboretum.seedbank.accession","arboretum.seedbank.accession_summary","arboretum.seedbank.collector","arboretum.seedbank.germination_by_taxon_mv","arboretum.seedbank.germination_trial","arboretum.seedbank.specimen_image","arboretum.seedbank.storage_reading","arboretum.seedbank.taxon","arboretum.seedbank.vault"],"total":10}' \
    "$(jqo .)"
call4 list_tables '{"pattern":"other.*"}'
check_eq "list_tables: other.* is empty" '{"tables":[],"total":0}' "$(jqo .)"
call4 list_tables '{"detail":true,"pattern":"*.collector"}'
check_eq "list_tables detail: collector" \
    '{"table":"arboretum.seedbank.collector","type":"table","row_count":400,"columns":10,"profiled_at":"2026-03-09T14:27:36Z","max_age_days":1}' \
    "$(jqo '.tables[0] | {table,type,row_count,columns,profiled_at,max_age_days}')"
rm "$P/prints/production/arboretum/seedbank/collector/statistics.yaml"
call4 list_tables '{"detail":true,"pattern":"*.collector"}'
check_eq "list_tables detail reads the manifest only" 400 "$(jqo '.tables[0].row_count')"
cp "$SHARED_EXAMPLES/production/prints/production/arboretum/seedbank/collector/statistics.yaml" \
    "$P/prints/production/arboretum/seedbank/collector/statistics.yaml"

call4 search_columns '{"pattern":"email"}'
check_eq "search pattern email: the collector match" \
    '{"table":"arboretum.seedbank.collector","column":"email","sql_type":"character varying(320)","classification":"text","row_count":400,"looks_like":"email","sampled":400,"matched":400,"sensitivity":"contact","redacted":"mask","candidate_key":true}' \
    "$(jqo '.matches[] | select(.table=="arboretum.seedbank.collector")')"
check_eq "search pattern email: no unreadable_tables" false "$(jqo 'has("unreadable_tables")')"
call4 search_columns '{"sql_type":"uuid"}'
check_eq "search sql_type uuid" '["collector_id"]' "$(names)"
call4 search_columns '{"sensitivity":"contact"}'
check_eq "search sensitivity contact" '["email","institution_email","phone"]' "$(names)"
call4 search_columns '{"sensitivity":"*"}'
check_eq "search sensitivity *" \
    '["deployed_at","email","full_name","institution_email","logger_ipv4","phone","site_name","street_address","vernacular_name"]' \
    "$(names)"
call4 search_columns '{"redacted":"mask"}'
check_eq "search redacted mask" '["email","institution_email","logger_ipv4","phone"]' "$(names)"
call4 search_columns '{"looks_like":"uuid","pattern":"collector_id"}'
check_eq "search looks_like uuid: sampled and matched" '[400,400]' \
    "$(jqo '.matches[] | select(.table=="arboretum.seedbank.collector") | [.sampled,.matched]')"
call4 search_columns '{"candidate_key":true}'
check_eq "candidate_key true: collector.email in, institution out" '[1,0]' \
    "$(jqo '[([.matches[] | select(.table=="arboretum.seedbank.collector" and .column=="email")] | length), ([.matches[] | select(.column=="institution")] | length)]')"
call4 search_columns '{"candidate_key":false}'
check_eq "candidate_key false: postal_code in, payload_bytes out" '[1,0]' \
    "$(jqo '[([.matches[] | select(.table=="arboretum.seedbank.collector" and .column=="postal_code")] | length), ([.matches[] | select(.column=="payload_bytes")] | length)]')"
call4 search_columns '{"classification":"nope"}'
check_eq "classification nope" '{"matches":[],"total":0}' "$(jqo .)"
call4 search_columns '{"pattern":"hired_on","classification":"categorical"}'
check_eq "hired_on categorical: none" '[]' "$(names)"
call4 search_columns '{"pattern":"hired_on","classification":"temporal"}'
check_eq "hired_on temporal" '["hired_on"]' "$(names)"
call4 search_columns '{"text":"no-treatment"}'
check_eq "text no-treatment: medium through its value note" \
    '[["arboretum.seedbank.germination_trial","medium",["control"]]]' \
    "$(jqo '[.matches[] | [.table,.column,[.value_notes[].value]]]')"
call4 search_columns '{"text":"EMAIL"}'
check_eq "text EMAIL: no value_notes" '[["email",false],["institution_email",false]]' \
    "$(jqo '[.matches[] | [.column,has("value_notes")]]')"
call4 search_columns '{"text":"email","pattern":"institution_*"}'
check_eq "text email AND pattern" '["institution_email"]' "$(names)"
call4 search_columns '{"text":"No-Treatment"}'
check_eq "text is case-insensitive" '["medium"]' "$(names)"

call4 resolve_value '{"table":"arboretum.seedbank.taxon","column":"rank","text":"GENUS"}'
check_eq "resolve GENUS: stored genus" '["stored","genus"]' "$(jqo '[.match,.spellings[0].value]')"
check_eq "resolve rank: the domain" '[["species",288],["genus",8],["family",4]]' \
    "$(jqo '[.domain[] | [.value,.count]]')"
call4 resolve_value '{"table":"arboretum.seedbank.taxon","column":"rank","text":"specie"}'
check_eq "resolve specie: nearest species first" '["nearest","species"]' \
    "$(jqo '[.match,.candidates[0].value]')"
call4 resolve_value '{"table":"arboretum.seedbank.taxon","column":"rnk","text":"x"}'
check_contains "resolve unknown column names the columns" \
    "column 'rnk' not found in table 'arboretum.seedbank.taxon'. Columns: " "$out"

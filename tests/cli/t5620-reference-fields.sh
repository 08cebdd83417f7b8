#!/bin/sh
# t5620-reference-fields.sh - every field name the tools return (MCP spec
# section 4 return shapes) is explained in the served reading guide, and
# every vocabulary word the tools' inputSchemas enumerate is defined in its
# Vocabulary.  The guide is read through get_reference, section by section.
. "$(dirname "$0")/../lib.sh"
# The bundled documents, whatever the caller's environment names.
unset DBPRINT_REFERENCE_DIR

P=$T/proj
mkdir -p "$P/prints/ref"
cat >"$P/.dbprint.yaml" <<'YAML'
connections:
  ref:
    adapter: duckdb
YAML

call() {
	$VG "$SERVE" --project "$P" --call get_reference "$1"
	_rc=$?
	# Under valgrind, exit 99 is a memory error: never a pass.
	[ "$_rc" -ne 99 ] || fail "valgrind clean: get_reference $1"
	return $_rc
}

# The whole guide as served: every heading's own section.
if ! call '{"document":"guide"}' >"$T/toc" 2>"$T/err"; then
	fail "guide contents" "$(cat "$T/err")"
	exit 0
fi
n=0
: >"$T/guide"
sed 's/^ *- //' "$T/toc" | while IFS= read -r title; do
	[ -n "$title" ] || continue
	# The titles are plain text; quote them for JSON.
	q=$(printf '%s' "$title" | sed 's/\\/\\\\/g; s/"/\\"/g')
	call "{\"document\":\"guide\",\"section\":\"$q\"}" >>"$T/guide" ||
	    echo "section '$title' failed" >>"$T/guide.err"
done
n=$(grep -c . "$T/toc")
[ -s "$T/guide.err" ] && fail "every guide heading reads" "$(cat "$T/guide.err")" ||
	ok "every guide heading reads ($n headings)"

# Field names of the tools' replies (MCP-SERVER.md 4.1-4.8).
fields="
tables total failed_tables table type row_count columns profiled_at
freshness age_days max_age_days threshold_error warnings now next_cursor
matches column sql_type classification rows_scanned scope looks_like
sampled matched sensitivity redacted candidate_key candidate_key_exception
annotation value_notes value note part parts occurrences unreadable_tables
switched_off_tables text match spellings candidates domain count
spelling_of score coverage exhaustive listed sample_caveat reason
ddl description annotations statistics relationships
relationship_annotations connection_notes _corrupted _missing _unprofiled
meanings_documented columns_count grain_annotations values entries
coverage_statement shown_coverage null_rate counts joins refers_to
referenced_by detection path target_path referencer_path referencer_table
referencer_column nulls dictionary
inherited_notes source
format_version generated_at connection adapter dbprint_version
statistics_params profiling_params selectors redaction_rules_configured
default_collation manifest_annotations artifacts max_rows_scanned
baseline target summary relationships_changed changes kind source_table
source_column target_table target_column stat delta before after
"
missing=""
for f in $fields; do
	grep -qF "\`$f\`" "$T/guide" || missing="$missing $f"
done
check_eq "every reply field is explained in the guide" "" "$missing"

# The Vocabulary: every enumerated word, as a "- `word` — " definition.
vocab="
binary boolean categorical composite foreign_key_candidate json numeric
spatial temporal text unsupported vector
contact credential date_of_birth demographic employment financial_account
geolocation health national_id online_identifier personal_name
postal_address
drop hash mask
live stale dormant
stored definition nearest none unavailable
declared inferred measured annotated
dominant_value long_tail imbalanced uniform
"
looks="base64 bic card_number content_type country_code currency_code ean
email filename gif gzip hex iban imei ip isbn iso8601_date iso8601_datetime
iso8601_duration jpeg json jwt latlon mac_address numeric_string path pdf
phone png postal_code prose semver timezone url urn uuid vin zip"
call '{"document":"guide","section":"Vocabulary"}' >"$T/vocab" 2>"$T/err"
for h in Classification Sensitivity looks_like Redacted Freshness Match \
    Detection Distribution; do
	call "{\"document\":\"guide\",\"section\":\"$h\"}" >>"$T/vocab" 2>>"$T/err" ||
	    fail "Vocabulary subsection $h reads" "$(cat "$T/err")"
done
missing=""
for w in $vocab; do
	grep -qF -- "- \`$w\` — " "$T/vocab" || missing="$missing $w"
done
check_eq "every classification, sensitivity, redacted, freshness, match word is defined" \
    "" "$missing"
missing=""
for w in $looks; do
	grep -qF -- "- \`$w\` — " "$T/vocab" || missing="$missing $w"
done
check_eq "every looks_like pattern is defined" "" "$missing"
n=$(echo $looks | wc -w)
check_eq "the looks_like list is the 38 of the inputSchema" 38 "$n"

#!/bin/sh
# t5600-reference.sh - get_reference over dbprint-serve --call: the table
# of contents, a section by number, by a spec_ref citation in each of its
# spellings, a section listing its subsections, the guide by heading text,
# the error sentences, and paging of a long section.
. "$(dirname "$0")/../lib.sh"
# The bundled documents, whatever the caller's environment names.
unset DBPRINT_REFERENCE_DIR

# A project with one connection; get_reference reads no print, but the
# server resolves its connections before answering.
P=$T/proj
mkdir -p "$P/prints/ref"
cat >"$P/.dbprint.yaml" <<'YAML'
connections:
  ref:
    adapter: duckdb
YAML

# ref 'JSON arguments' - the reply text in $T/out, stderr in $T/err, the
# exit status in $rc; $out is the text.
ref() {
	$VG "$SERVE" --project "$P" --call get_reference "$1" \
	    >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out" "$T/err")
	# Under valgrind, exit 99 is a memory error: never a pass.
	[ "$rc" -ne 99 ] || fail "valgrind clean: get_reference $1" "$(cat "$T/err")"
}

first_line() {
	sed -n 1p "$T/out"
}

# Table of contents: the heading tree, no body text.
ref '{"document":"spec"}'
check_eq "spec contents: exit 0" 0 "$rc"
check_eq "spec contents: first line is the title" \
    "- The dbprint print format, version 1 — a reader's restatement" \
    "$(first_line)"
check_contains "spec contents: nested two spaces per level" \
    "
  - 2. Artifacts
    - 2.1 \`ddl.sql\`
      - 2.1.1 Per-adapter source SQL" "$out"
check_contains "spec contents: 2.2.21 disabled is listed" \
    "      - 2.2.21 \`disabled\` — measurements switched off" "$out"
case $out in
*"Every column carries exactly one"*) fail "spec contents: no body text" ;;
*) ok "spec contents: no body text" ;;
esac

# A section by its bare number: the heading and its own body.
ref '{"document":"spec","section":"2.2.8"}'
check_eq "spec 2.2.8: exit 0" 0 "$rc"
check_eq "spec 2.2.8: starts at its heading" \
    "#### 2.2.8 \`scope\` — statistics over part of a table" "$(first_line)"
check_contains "spec 2.2.8: carries its body" "rows_scanned" "$out"
case $out in
*"2.2.9"*) fail "spec 2.2.8: stops before 2.2.9" "$out" ;;
*) ok "spec 2.2.8: stops before 2.2.9" ;;
esac
bare=$(cat "$T/out")

# The same section through each citation spelling a finding uses.
ref '{"document":"spec","section":"\u00a72.2.8"}'
check_eq "spec §2.2.8 reads as 2.2.8" "$bare" "$(cat "$T/out")"
ref '{"document":"spec","section":"SPEC.md \u00a72.2.8"}'
check_eq "spec 'SPEC.md §2.2.8' reads as 2.2.8" "$bare" "$(cat "$T/out")"
ref '{"document":"spec","section":"\u00a7 2.2.8"}'
check_eq "spec '§ 2.2.8' reads as 2.2.8" "$bare" "$(cat "$T/out")"

# A section with subsections lists its direct ones, by number.
ref '{"document":"spec","section":"2.2"}'
check_eq "spec 2.2: starts at its heading" "### 2.2 \`statistics.yaml\`" \
    "$(first_line)"
check_contains "spec 2.2: lists its direct subsections" \
    "

Subsections, each read by its own number:

- 2.2.1 Top-level fields
- 2.2.2 Universal per-column fields" "$out"
check_contains "spec 2.2: the list reaches 2.2.21" \
    "- 2.2.21 \`disabled\` — measurements switched off" "$out"
case $out in
*"#### 2.2.1 "*) fail "spec 2.2: subsection bodies are not inlined" ;;
*) ok "spec 2.2: subsection bodies are not inlined" ;;
esac

# A section without numbered subsections keeps its unnumbered ones.
ref '{"document":"spec","section":"2.6.6"}'
check_contains "spec 2.6.6: unnumbered kind headings stay in its text" \
    "##### \`relationship_added\`" "$out"

# The assertions document, by a citation naming it.
ref '{"document":"assertions","section":"ASSERTIONS.md \u00a71.4"}'
check_eq "assertions 'ASSERTIONS.md §1.4'" \
    "### 1.4 Unknown FQNs and columns" "$(first_line)"

# Unknown sections: the spec's sentence, naming the numbers that exist.
ref '{"document":"spec","section":"9.9"}'
check_contains "spec 9.9: not found, listing what exists" \
    "section '9.9' not found in spec. Available: ['0', '0.1', '0.2', '0.3', '0.4', '1', '1.1', '1.2', '1.2.1', '1.3'," \
    "$out"
check_contains "spec 9.9: sorted as strings ('2.2.21' before '2.2.3')" \
    "'2.2.20', '2.2.21', '2.2.3'," "$out"
case $rc in 0) fail "spec 9.9: the call fails" "exit $rc" ;;
*) ok "spec 9.9: the call fails" ;; esac
ref '{"document":"spec","section":"2.2.4."}'
check_contains "spec: a trailing dot does not match" \
    "section '2.2.4.' not found in spec. Available: [" "$out"
ref '{"document":"assertions","section":"\u00a79"}'
check_contains "assertions §9: not found, the argument as given" \
    "section '§9' not found in assertions. Available: ['0', '0.1'," "$out"

# The guide: contents, then headings by text, any case and spacing.
ref '{"document":"guide"}'
check_eq "guide contents: the title first" "- Reading a dbprint print" \
    "$(first_line)"
check_contains "guide contents: Vocabulary nested once" "
  - Vocabulary
" "$out"
ref '{"document":"guide","section":"VOCABULARY"}'
check_eq "guide VOCABULARY: its heading" "## Vocabulary" "$(first_line)"
case $out in
*"## Fields that are easy to misread"*)
	fail "guide VOCABULARY: not the neighbouring section" ;;
*) ok "guide VOCABULARY: not the neighbouring section" ;;
esac
check_contains "guide Vocabulary: lists its subheadings by heading" \
    "Subsections, each read by its own heading:

- Classification
- Sensitivity" "$out"
ref '{"document":"guide","section":"  fields that are EASY   to misread "}'
check_eq "guide: case and whitespace folded" \
    "## Fields that are easy to misread" "$(first_line)"
ref '{"document":"guide","section":"looks_like"}'
check_contains "guide looks_like: the vocabulary words" "\`uuid\` — a UUID" \
    "$out"
ref '{"document":"guide","section":"No such heading"}'
check_contains "guide: unknown heading names the headings" \
    "section 'No such heading' not found in guide. Available: [" "$out"
check_contains "guide: the headings list holds 'Vocabulary'" "'Vocabulary'" \
    "$out"
check_contains "guide: the headings list holds the misread section" \
    "'Fields that are easy to misread'" "$out"

# The document enum does not fold case.
ref '{"document":"SPEC"}'
check_contains "document 'SPEC' refused" \
    "document 'SPEC' must be one of ['assertions', 'guide', 'spec']." "$out"
ref '{"document":"readme"}'
check_contains "document 'readme' refused" \
    "document 'readme' must be one of ['assertions', 'guide', 'spec']." "$out"

# Another copy of the documents: a directory of upstream-named files,
# named by the environment; a long section pages at line boundaries.
R=$T/refdir
mkdir -p "$R"
{
	echo "# Other"
	echo
	echo "## 1. One"
	echo
	i=0
	while [ $i -lt 3000 ]; do
		echo "line $i of a long leaf section"
		i=$((i + 1))
	done
	echo "## 2. Two"
	echo "two"
} >"$R/SPEC.md"
DBPRINT_REFERENCE_DIR=$R
export DBPRINT_REFERENCE_DIR
ref '{"document":"spec","section":"2"}'
check_eq "DBPRINT_REFERENCE_DIR: serves SPEC.md from it" "## 2. Two
two" "$(cat "$T/out")"
ref '{"document":"spec","section":"1"}'
cp "$T/out" "$T/page"
marker() {	# the cursor of the page in $T/page, or nothing
	sed -n 's/^<!-- next_cursor: \(.*\) -->$/\1/p' "$T/page"
}
[ -n "$(marker)" ] && ok "long section: first page carries next_cursor" ||
	fail "long section: first page carries next_cursor" "$(tail -c 300 "$T/page")"
: >"$T/joined"
pages=0 maxlen=0 err=""
while :; do
	pages=$((pages + 1))
	# A page's length, less any newline the command line adds.
	len=$(printf '%s' "$(cat "$T/page")" | wc -m)
	[ "$len" -gt "$maxlen" ] && maxlen=$len
	cursor=$(marker)
	if [ -z "$cursor" ]; then
		cat "$T/page" >>"$T/joined"
		break
	fi
	# The page is <chunk>"\n<!-- next_cursor: c -->": drop the marker
	# line, then the newline that preceded it (an empty last line, as
	# every chunk ends at a line boundary here).
	sed '$d' "$T/page" | sed '$d' >>"$T/joined"
	[ $pages -gt 20 ] && { err="more than 20 pages"; break; }
	ref "{\"document\":\"spec\",\"section\":\"1\",\"cursor\":\"$cursor\"}"
	[ "$rc" -eq 0 ] || { err="page $((pages + 1)): $out"; break; }
	cp "$T/out" "$T/page"
done
[ -z "$err" ] && ok "long section: cursors followed to the end" ||
	fail "long section: cursors followed to the end" "$err"
[ "$pages" -ge 2 ] && ok "long section: more than one page ($pages)" ||
	fail "long section: more than one page" "$pages"
[ "$maxlen" -le 20000 ] && ok "long section: every page within 20000 ($maxlen)" ||
	fail "long section: every page within 20000" "$maxlen"
{
	echo "## 1. One"
	echo
	i=0
	while [ $i -lt 3000 ]; do
		echo "line $i of a long leaf section"
		i=$((i + 1))
	done
} >"$T/want"
# Compared without trailing newlines: the command line may add one.
check_eq "long section: pages rejoin to the section" "$(cat "$T/want")" \
    "$(cat "$T/joined")"
unset DBPRINT_REFERENCE_DIR

# The --reference-dir option does the same as the variable.
if $VG "$SERVE" --project "$P" --reference-dir "$R" --call get_reference \
    '{"document":"spec","section":"2"}' >"$T/out" 2>"$T/err"; then
	check_eq "--reference-dir: serves SPEC.md from it" "## 2. Two
two" "$(cat "$T/out")"
else
	fail "--reference-dir: serves SPEC.md from it" "$(cat "$T/err")"
fi
# A directory lacking a document is an error naming it, not the bundled
# copy served in its place.
if $VG "$SERVE" --project "$P" --reference-dir "$R" --call get_reference \
    '{"document":"guide"}' >"$T/out" 2>"$T/err"; then
	fail "--reference-dir without a guide: the call fails" "$(cat "$T/out")"
else
	check_contains "--reference-dir without a guide: names the file" \
	    "reading_guide.md" "$(cat "$T/out" "$T/err")"
fi

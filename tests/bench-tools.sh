# bench-tools.sh - the list_tables / search_columns / resolve_value section
# of `make bench` (issue 4), sourced by tests/bench.sh, which calls
#
#	bench_tools [PROJECT INDEX]
#
# with the generated 10,000 x 30 project it already built and indexed
# (else one is generated here).  Needs BUILD (the build tree holding the
# programs) and SRCDIR; BENCH_DIR, when set, keeps a generated print
# between runs.  BENCH_REPEAT sets the calls per figure (default 50).
#
# Over stdio against one warm server, p50 of 50 calls each:
#   on the generated 10,000-table x 30-column print
#     list_tables first page                      target <= 1 ms
#     search_columns text (all 300,000 columns)   target <= 5 ms
#     search_columns sensitivity "*"              target <= 5 ms
#     resolve_value on the 10,000-value column,
#       each match kind                           target <= 2 ms
#   and the same calls on the 10-table example print (the upstream
#   production example when ../shared is present, else fixtures/rich).

bench_tools_run() {	# bench_tools_run PROJECT INDEX|- CONN SPEC...
	_pr=$1 _ix=$2 _cn=$3
	shift 3
	if [ "$_ix" = - ]; then
		set -- "$@" -- "$_b/dbprint-serve" --project "$_pr" "$_cn"
	else
		set -- "$@" -- "$_b/dbprint-serve" --project "$_pr" \
		    --index "$_ix" "$_cn"
	fi
	"$_b/bench-tools" "${BENCH_REPEAT:-50}" "$@"
}

bench_tools() {
	_b=$SRCDIR/$BUILD
	if [ -n "${BENCH_DIR:-}" ]; then
		_w=$BENCH_DIR _tmp=""
	else
		_w=$(mktemp -d)
		_tmp=$_w
	fi
	echo "== list_tables, search_columns, resolve_value (issue 4)"
	cc -std=c11 -O2 -o "$_b/bench-tools" \
	    "$SRCDIR/tests/bench-tools.c" || return 1
	if [ $# -ge 2 ]; then
		_p=$1 _db=$2
	else
		_p=$_w/tools10k
		_db=$_p/.dbprint/index/gen.sqlite
		[ -x "$_b/gen-print" ] || cc -O2 -o "$_b/gen-print" \
		    "$SRCDIR/fixtures/gen-print.c" || return 1
		if [ ! -f "$_p/.dbprint.yaml" ]; then
			"$_b/gen-print" "$_p" 10000 30 >/dev/null || return 1
		fi
	fi
	"$_b/dbprint-index" --project "$_p" --index "$_db" --quiet \
	    >/dev/null 2>&1 ||
	    { echo "indexing the generated print failed"; return 1; }
	# a value of the 10,000-value column, and a note phrase of it
	_v=$(sqlite3 "$_db" "SELECT v.text FROM column_values v JOIN columns c
	    ON c.id = v.column_id WHERE c.table_fqn = 'gen.s000.t00000' AND
	    c.name = 'code' AND c.part = '' AND v.ord = 5000")
	_n=$(sqlite3 "$_db" "SELECT note FROM value_notes WHERE
	    table_fqn = 'gen.s000.t00000' AND name = 'code' ORDER BY ord
	    LIMIT 1 OFFSET 1")
	_up=$(printf '%s' "$_v" | tr '[:lower:]' '[:upper:]')
	_near=$(printf '%s' "$_v" | sed 's/.$/q/')
	_phrase=$(printf '%s' "$_n" | sed 's/,.*//')
	_col='"table":"gen.s000.t00000","column":"code"'
	echo "-- generated print: 10,000 tables x 30 columns (code: '$_v')"
	bench_tools_run "$_p" "$_db" gen \
	    'list_tables=list_tables={}' \
	    'list_tables_detail=list_tables={"detail":true}' \
	    'search_text=search_columns={"text":"refund"}' \
	    'search_sensitivity=search_columns={"sensitivity":"*"}' \
	    "resolve_stored=resolve_value={$_col,\"text\":\"$_up\"}" \
	    "resolve_definition=resolve_value={$_col,\"text\":\"$_phrase\"}" \
	    "resolve_nearest=resolve_value={$_col,\"text\":\"$_near\"}" \
	    "resolve_none=resolve_value={$_col,\"text\":\"qqqqqqxx\"}" ||
	    return 1

	_s=$_w/tools-small
	rm -rf "$_s"
	if [ -d "$SRCDIR/../shared/upstream/docs/format/v1/examples/production" ]
	then
		cp -R "$SRCDIR/../shared/upstream/docs/format/v1/examples/production" \
		    "$_s"
		_sc=production
		_t='"table":"arboretum.seedbank.taxon","column":"rank"'
		echo "-- upstream production example: 10 tables"
	else
		cp -R "$SRCDIR/fixtures/rich" "$_s"
		_sc=main
		_t='"table":"depot.sales.orders","column":"status"'
		echo "-- fixtures/rich main: 15 tables"
	fi
	"$_b/dbprint-index" --project "$_s" --quiet "$_sc" >/dev/null 2>&1
	bench_tools_run "$_s" - "$_sc" \
	    'list_tables=list_tables={}' \
	    'list_tables_detail=list_tables={"detail":true}' \
	    'search_text=search_columns={"text":"refund"}' \
	    'search_sensitivity=search_columns={"sensitivity":"*"}' \
	    "resolve_stored=resolve_value={$_t,\"text\":\"GENUS\"}" \
	    "resolve_definition=resolve_value={$_t,\"text\":\"credit\"}" \
	    "resolve_nearest=resolve_value={$_t,\"text\":\"specie\"}" \
	    "resolve_none=resolve_value={$_t,\"text\":\"qqqqqqxx\"}"
	rm -rf "$_s"
	[ -z "$_tmp" ] || rm -rf "$_tmp"
}

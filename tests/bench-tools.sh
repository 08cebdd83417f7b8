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
#   production example when ../shared is present, else fixtures/rich);
# then bench_scale (below, issue 20): the server at 10,000 tables and at
# BENCH_TABLES, side by side.  Run alone, `sh tests/bench-tools.sh` runs
# bench_scale over BENCH_DIR/print-<BENCH_TABLES>-30 (BENCH_INDEX, default
# BENCH_DIR/index.sqlite).

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
	if [ $# -ge 4 ] && [ -n "$3" ]; then
		bench_scale "$3" "$4" "$_w" || return 1	# the larger print
	elif [ $# -ge 2 ]; then
		bench_scale "$1" "$2" "$_w" || return 1
	else
		bench_scale "$_p" "$_db" "$_w" || return 1
	fi
	[ -z "$_tmp" ] || rm -rf "$_tmp"
}

# ---- issue 20: the server at 10,000 and 100,000 tables ----------------
#
#	bench_scale PROJECT INDEX WORKDIR
#
# PROJECT is the generated print of BENCH_TABLES tables (default 10,000)
# and INDEX its index.  When BENCH_TABLES is not 10,000, a 10,000-table
# print is generated and indexed in WORKDIR/tools10k as well (kept there
# between runs), and every figure is given for both, side by side:
#   first answer of each tool after start, warm page cache (and cold:
#     the index and print files evicted from the page cache with
#     posix_fadvise, or the whole cache dropped when BENCH_DROP_CACHES=1
#     and /proc/sys/vm/drop_caches can be written)   target <= 0.5 s at
#     the larger print
#   warm p50 of each tool call                       target <= 1.5x the
#     10,000-table p50; the warm calls run in BENCH_ROUNDS rounds (3)
#     of BENCH_REPEAT calls (50), each size's server in turn, so a
#     change of the machine's speed during the run falls on both sizes
#     alike: a figure is the median of its rounds' p50s, the CPU their
#     mean.  (Fewer calls a round would not do: after a call that pins
#     another set of files, the server's idle steps watch its
#     directories for the next few dozen milliseconds, and the calls
#     meanwhile cost up to twice as much.)
#   server CPU per warm call (schedstat)             target <= 1 ms for
#     search_columns and list_tables {"detail": true} at 10,000
#   server peak resident memory                      target <= 64 MB

# bench_scale_run PROJECT INDEX OUT REPEAT SPEC... - one server, its lines
bench_scale_run() {
	_sp=$1 _si=$2 _so=$3 _sr=$4
	shift 4
	"$_b/bench-tools" "$_sr" "$@" -- "$_b/dbprint-serve" --project "$_sp" \
	    --index "$_si" gen >"$_so" 2>/dev/null
}

# bench_scale_evict PROJECT INDEX - make the next start a cold one
bench_scale_evict() {
	if [ "${BENCH_DROP_CACHES:-0}" = 1 ] && sync &&
	    (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
		_cold="the page cache dropped (drop_caches)"
		return 0
	fi
	{ find "$1/prints" -type f; ls "$2" "$2-wal" "$2-shm" 2>/dev/null; } |
	    "$_b/bench-tools" --evict
	_cold="the index and print files evicted (posix_fadvise; inodes stay cached)"
}

# bench_scale_fig FILE LABEL FIELD - a figure of a bench-tools line
bench_scale_fig() {
	awk -v l="$2" -v f="$3" '$1 == l && f == "first" && $2 == "first" {
		printf "%.0f", $4 / 1000; exit }
	    $1 == l && f == "fcpu" && $2 == "first" {
		printf "%.0f", $9 / 1000; exit }
	    $1 == l && $2 == "p50" && f == "p50" { print $3; exit }
	    $1 == l && $2 == "p50" && f == "cpu" { print $9; exit }
	    $1 == "server" && $2 == "peak" && f == "rss" {
		printf "%.1f", $4 / 1024; exit }' "$1"
}

bench_scale() {
	_bp=$1 _bi=$2 _bw=$3
	_nt=${BENCH_TABLES:-10000}
	_col='"table":"gen.s000.t00000","column":"code"'
	_specs_of() {	# _specs_of INDEX - the calls, with the index's values
		_v=$(sqlite3 "$1" "SELECT v.text FROM column_values v JOIN
		    columns c ON c.id = v.column_id WHERE c.table_fqn =
		    'gen.s000.t00000' AND c.name = 'code' AND c.part = '' AND
		    v.ord = 5000")
		_up=$(printf '%s' "$_v" | tr '[:lower:]' '[:upper:]')
		_near=$(printf '%s' "$_v" | sed 's/.$/q/')
		# (a search first: the pause after the first answer lets
		# the idle steps watch the directories it pinned)
		set -- \
		    'search_sensitivity=search_columns={"sensitivity":"*"}' \
		    'list_tables=list_tables={}' \
		    'list_tables_detail=list_tables={"detail":true}' \
		    'search_text=search_columns={"text":"refund"}' \
		    "resolve_stored=resolve_value={$_col,\"text\":\"$_up\"}" \
		    "resolve_nearest=resolve_value={$_col,\"text\":\"$_near\"}" \
		    "resolve_none=resolve_value={$_col,\"text\":\"qqqqqqxx\"}" \
		    'context=get_table_context={"table":"gen.s000.t00001"}' \
		    'manifest=get_manifest={}' \
		    'diff=get_diff={}'
		printf '%s\n' "$@"
	}
	# the sizes: 10,000, and BENCH_TABLES when it is another
	if [ "$_nt" = 10000 ]; then
		_sizes="10000" _p10=$_bp _i10=$_bi
	else
		_sizes="10000 $_nt"
		_p10=$_bw/tools10k
		_i10=$_p10/.dbprint/index/gen.sqlite
		[ -f "$_p10/.dbprint.yaml" ] ||
		    "$_b/gen-print" "$_p10" 10000 30 >/dev/null || return 1
		"$_b/dbprint-index" --project "$_p10" --index "$_i10" --quiet \
		    >/dev/null 2>&1 || return 1
	fi
	echo "== dbprint-serve at scale (issue 20): $(echo "$_sizes" |
	    sed 's/ / and /') tables x 30 columns"
	echo "   machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	# the tools whose first answer after start is timed
	_first="search_sensitivity list_tables resolve_stored context manifest
	    diff"
	for _n in $_sizes; do
		if [ "$_n" = 10000 ]; then
			_sp=$_p10 _si=$_i10
		else
			_sp=$_bp _si=$_bi
		fi
		_specs_of "$_si" >"$_bw/.specs-$_n"
		_o=$_bw/.scale-$_n
		# the first answers on a warm page cache: one search first,
		# unmeasured (the build and the other size's runs may have
		# pushed the index's pages out)
		bench_scale_run "$_sp" "$_si" /dev/null 1 \
		    "$(grep "^search_sensitivity=" "$_bw/.specs-$_n")" ||
		    return 1
		for _t in $_first; do
			bench_scale_run "$_sp" "$_si" "$_o.first-$_t" 1 \
			    "$(grep "^$_t=" "$_bw/.specs-$_n")" || return 1
		done
		# the cold start: the first answer of search_columns
		bench_scale_evict "$_sp" "$_si"
		bench_scale_run "$_sp" "$_si" "$_o.cold" 1 \
		    "$(grep '^search_sensitivity=' "$_bw/.specs-$_n")" ||
		    return 1
	done
	# the warm runs: every call REPEAT times a round, each size in
	# turn (bench-tools makes one untimed call of each label first, so
	# every timed call is a warm one)
	_rounds=${BENCH_ROUNDS:-3}
	_per=${BENCH_REPEAT:-50}
	_r=1
	while [ "$_r" -le "$_rounds" ]; do
		for _n in $_sizes; do
			if [ "$_n" = 10000 ]; then
				_sp=$_p10 _si=$_i10
			else
				_sp=$_bp _si=$_bi
			fi
			set --
			while read -r _l; do set -- "$@" "$_l"; done \
			    <"$_bw/.specs-$_n"
			bench_scale_run "$_sp" "$_si" "$_bw/.scale-$_n.r$_r" \
			    "$_per" "$@" || return 1
		done
		_r=$((_r + 1))
	done
	for _n in $_sizes; do
		bench_scale_merge "$_bw"/.scale-"$_n".r* >"$_bw/.scale-$_n"
	done
	set -- $_sizes
	_lo=$1 _hi=${2:-}
	_hdr() { printf '   %-34s %16s %16s  %-16s %s\n' "$@"; }
	_fa() {	# _fa FILE LABEL - "<wall> ms (<cpu> cpu)"
		_w=$(bench_scale_fig "$1" "$2" first)
		[ -z "$_w" ] || echo "$_w ms ($(bench_scale_fig "$1" "$2" fcpu) cpu)"
	}
	_hdr figure "10k" "$( [ -n "$_hi" ] && echo "$((_hi / 1000))k")" \
	    target verdict
	echo "     (first answers: wall from the server's start, and its CPU;"
	echo "     the wall target assumes an otherwise idle machine)"
	# first answers
	for _t in $_first; do
		_a=$(_fa "$_bw/.scale-$_lo.first-$_t" "$_t")
		_z=""
		[ -z "$_hi" ] || _z=$(_fa "$_bw/.scale-$_hi.first-$_t" "$_t")
		_top=$(bench_scale_fig "$_bw/.scale-${_hi:-$_lo}.first-$_t" \
		    "$_t" first)
		_hdr "first answer, $_t" "$_a" "$_z" "<= 500 ms" \
		    "$(bench_scale_verdict "$_top" 500)"
	done
	_a=$(_fa "$_bw/.scale-$_lo.cold" search_sensitivity)
	_z=""
	[ -z "$_hi" ] || _z=$(_fa "$_bw/.scale-$_hi.cold" search_sensitivity)
	_hdr "first answer, cold, search" "$_a" "$_z" "(stated)" ""
	echo "     (cold: $_cold)"
	# warm p50 and CPU per call, of every call of the warm run
	_warm="list_tables list_tables_detail search_text search_sensitivity
	    resolve_stored resolve_nearest resolve_none context manifest diff"
	for _t in $_warm; do
		_a=$(bench_scale_fig "$_bw/.scale-$_lo" "$_t" p50)
		_z=""
		[ -z "$_hi" ] || _z=$(bench_scale_fig "$_bw/.scale-$_hi" "$_t" p50)
		if [ -n "$_z" ]; then
			_lim=$(awk -v a="$_a" 'BEGIN { printf "%.0f", a * 1.5 }')
			_hdr "warm p50, $_t" "$_a us" "$_z us" \
			    "<= $_lim us" "$(bench_scale_verdict "$_z" "$_lim")"
		else
			_hdr "warm p50, $_t" "$_a us" "" "" ""
		fi
	done
	for _t in $_warm; do
		_a=$(bench_scale_fig "$_bw/.scale-$_lo" "$_t" cpu)
		_z=""
		[ -z "$_hi" ] || _z=$(bench_scale_fig "$_bw/.scale-$_hi" "$_t" cpu)
		case $_t in
		list_tables_detail|search_text|search_sensitivity)
			_hdr "server CPU/call, $_t" "$_a us" "${_z:+$_z us}" \
			    "<= 1000 us (10k)" "$(bench_scale_verdict "$_a" 1000)" ;;
		*)
			_hdr "server CPU/call, $_t" "$_a us" "${_z:+$_z us}" "" "" ;;
		esac
	done
	_a=$(bench_scale_fig "$_bw/.scale-$_lo" x rss)
	_z=""
	[ -z "$_hi" ] || _z=$(bench_scale_fig "$_bw/.scale-$_hi" x rss)
	_hdr "server peak RSS" "$_a MB" "${_z:+$_z MB}" "<= 64 MB" \
	    "$(bench_scale_verdict "${_z:-$_a}" 64)"
	[ -n "$_hi" ] || echo "   (BENCH_TABLES=100000 gives the 100,000-table column)"
	rm -f "$_bw"/.scale-* "$_bw"/.specs-*
}

# bench_scale_merge FILE... - the rounds' bench-tools lines as one run's:
# per label the median of the p50s and of the p90s, the mean CPU a call,
# the errors summed; the largest peak RSS
bench_scale_merge() {
	awk '
	function median(s,    a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$2 == "p50" {
		if (!($1 in p50)) order[++nl] = $1
		p50[$1] = p50[$1] " " $3; p90[$1] = p90[$1] " " $6
		cpu[$1] += $9; runs[$1]++; bytes[$1] = $12; err[$1] += $14
	}
	$1 == "server" && $2 == "peak" && $4 + 0 > rss { rss = $4 + 0 }
	END {
		for (i = 1; i <= nl; i++) {
			l = order[i]
			printf "%-20s p50 %9.0f us  p90 %9.0f us  cpu %8.0f us/call  bytes %6d  error %d\n",
			    l, median(p50[l]), median(p90[l]), cpu[l] / runs[l],
			    bytes[l], err[l]
		}
		printf "server               peak rss %d KB\n", rss
	}' "$@"
}

# bench_scale_verdict VALUE LIMIT -> PASS or MISSED (MISSED when empty)
bench_scale_verdict() {
	awk -v v="$1" -v t="$2" 'BEGIN {
		print (v != "" && v + 0 <= t + 0) ? "PASS" : "MISSED" }'
}

# Run alone (sh tests/bench-tools.sh): the issue-20 section over
# BENCH_DIR's print-<BENCH_TABLES>-30 and its index.sqlite, as
# tests/bench.sh leaves them.
if [ "$(basename "$0")" = bench-tools.sh ]; then
	SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
	BUILD=${BUILD:-build}
	_b=$SRCDIR/$BUILD
	: "${BENCH_DIR:?set BENCH_DIR to the directory tests/bench.sh used}"
	_nt=${BENCH_TABLES:-10000}
	cc -std=c11 -O2 -o "$_b/bench-tools" \
	    "$SRCDIR/tests/bench-tools.c" || exit 1
	bench_scale "$BENCH_DIR/print-$_nt-30" \
	    "${BENCH_INDEX:-$BENCH_DIR/index.sqlite}" "$BENCH_DIR"
fi

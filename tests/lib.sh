# lib.sh - helpers for the shell tests in tests/cli/.  Source it first.
#
# Each check prints one TAP line: "ok N - what" or "not ok N - what".
# The scratch directory $T is removed on exit.
set -u
: "${BUILD_ABS:?run through tests/run}"
: "${SRCDIR:?run through tests/run}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
_n=0
INDEX="$BUILD_ABS/dbprint-index"
SERVE="$BUILD_ABS/dbprint-serve"
if [ "${VALGRIND:-0}" = 1 ]; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
	# tests/run collects every process's report from $VGLOG, so one
	# whose exit status a test does not see still fails the test.
	if [ -n "${VGLOG:-}" ]; then VG="$VG --log-file=$VGLOG/vg.%p"; fi
else
	VG=""
fi
FIX="$SRCDIR/fixtures"
GEN="$BUILD_ABS/gen-print"
SHARED_EXAMPLES="$SRCDIR/../shared/upstream/docs/format/v1/examples"

ok() {		# ok "what" - a check that passed
	_n=$((_n + 1)); echo "ok $_n - $1"
}
fail() {	# fail "what" ["detail"]
	_n=$((_n + 1)); echo "not ok $_n - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/#   /' >&2
	return 0
}
check() {	# check "what" command... - passes when the command succeeds
	_what=$1; shift
	if "$@" >"$T/.out" 2>&1; then ok "$_what"; else fail "$_what" "$(cat "$T/.out")"; fi
}
check_eq() {	# check_eq "what" expected actual
	if [ "$2" = "$3" ]; then ok "$1"; else
		fail "$1" "expected: $2
actual:   $3"; fi
}
check_file() {	# check_file "what" expected-file actual-file (golden compare)
	if diff -u "$2" "$3" >"$T/.diff" 2>&1; then ok "$1"; else
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then cp "$3" "$2"; ok "$1 (golden updated)";
		else fail "$1" "$(head -60 "$T/.diff")"; fi
	fi
}
check_contains() {	# check_contains "what" needle haystack
	case "$3" in *"$2"*) ok "$1" ;; *) fail "$1" "missing: $2
in: $(printf '%s' "$3" | head -c 2000)" ;; esac
}
skip() {	# skip "why" - counted as passed, said in the line
	_n=$((_n + 1)); echo "ok $_n - # SKIP $1"
}
need_gen() {	# need_gen - skip the whole test (exit 0) without $GEN
	[ -x "$GEN" ] && return 0
	skip "no $GEN"
	exit 0
}
index_dump() {	# index_dump INDEX ROOT - tests/golden/dump-index.sh of it, but
	# for the text index's dirty marks (a run that rewrites a few tables
	# marks them dirty where a full build lists none)
	sh "$SRCDIR/tests/golden/dump-index.sh" "$1" "$2" |
	    awk '/^## / { skip = /^## column_grams/ } !skip'
}
demo_copy() {	# demo_copy - fixtures/demo copied to $T/p; sets $P
	P=$T/p
	mkdir -p "$P/prints"
	cp -R "$FIX/demo/prints/demo" "$P/prints/demo"
	cp "$FIX/demo/.dbprint.yaml" "$P/.dbprint.yaml"
}

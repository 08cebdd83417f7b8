#!/bin/sh
# t9100-fuzz-replay.sh - every committed fuzz corpus (fixtures/fuzz/<t>/, the
# seeds and every crash found so far) replayed through its target built
# with the suite's compiler and sanitizers ($BUILD/fuzz/replay-<t>,
# tests/fuzz/replay.c).  The YAML loader also gets every hostile input of
# fixtures/bad and every YAML file of the fixture prints.  A check passes
# when the replay ran every input and exited 0: a sanitizer report, an
# abort() of a target's own invariant, or a timeout fails it.
. "$(dirname "$0")/../lib.sh"

export DBP_FUZZ_FIXTURES="$FIX"
for t in ydoc index rpc uri cursor fnmatch http; do
	bin="$BUILD_ABS/fuzz/replay-$t"
	if [ ! -x "$bin" ]; then
		fail "replay-$t is built" "missing $bin"
		continue
	fi
	want=$(find "$FIX/fuzz/$t" -type f | wc -l)
	set -- "$FIX/fuzz/$t"
	if [ "$t" = ydoc ]; then
		find "$FIX/bad" "$FIX/demo/prints" "$FIX/rich/prints" \
		    -name '*.yaml' -type f | sort >"$T/ydoc.list"
		want=$((want + $(wc -l <"$T/ydoc.list")))
		# shellcheck disable=SC2046
		set -- "$@" $(cat "$T/ydoc.list")
	fi
	if timeout 900 $VG "$bin" "$@" >"$T/$t.out" 2>"$T/$t.err"; then
		got=$(sed -n 's/^replayed \([0-9]*\) inputs$/\1/p' "$T/$t.out")
		check_eq "fuzz corpus $t: all $want inputs replayed clean" \
		    "$want" "$got"
	else
		fail "fuzz corpus $t replays clean" "$(tail -40 "$T/$t.err")"
	fi
done

#!/bin/sh
# t1010-index-golden.sh - the index of each fixture print, dumped by
# tests/golden/dump-index.sh, equals its golden file in tests/golden/
# (index-<project>-<connection>.dump).  UPDATE_GOLDEN=1 rewrites them.
. "$SRCDIR/tests/lib.sh"

golden() {	# golden PROJECT CONNECTION
	name="index-$1-$2"
	$VG "$INDEX" --quiet --project "$FIX/$1" --index "$T/$name.sqlite" "$2"
	check_eq "$1/$2 indexes with exit 0" 0 $?
	sh "$SRCDIR/tests/golden/dump-index.sh" "$T/$name.sqlite" \
	    "$FIX/$1/prints/$2" >"$T/$name.dump"
	check "$1/$2 dump is not empty" test -s "$T/$name.dump"
	check_file "$1/$2 index equals tests/golden/$name.dump" \
	    "$SRCDIR/tests/golden/$name.dump" "$T/$name.dump"
	# A second, incremental run changes nothing in the dump.
	$VG "$INDEX" --quiet --project "$FIX/$1" --index "$T/$name.sqlite" "$2"
	sh "$SRCDIR/tests/golden/dump-index.sh" "$T/$name.sqlite" \
	    "$FIX/$1/prints/$2" >"$T/$name.again"
	check_file "$1/$2 re-run leaves the same index" "$T/$name.dump" \
	    "$T/$name.again"
}

golden demo demo
golden rich main
golden rich other

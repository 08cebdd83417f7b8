#!/bin/sh
# t7300-fresh-watch.sh - spec 7.1 for search_columns, which reads every
# statistics and annotations file of its connection, against one warm
# dbprint-serve: the files it pins are kept verified between calls by
# inotify watches (server/call/watch.c), so each change below must still be
# seen by the very next call.  Run twice: with inotify, and with
# DBPRINT_NO_INOTIFY=1 (every file stat'ed at every call).
#   - a statistics.yaml replaced by rename with the same size and mtime
#     (only the inode differs);
#   - a statistics.yaml edited in place (same size and inode);
#   - a statistics.yaml deleted, then restored;
#   - a new table added by a changed manifest;
#   - a table directory that is a symlink: its file edited through the
#     target (no event reaches a watch on the link's parent);
#   - the print root itself replaced by rename;
#   - a file changed between two pages of a cursor walk: "print changed";
#     touched with the same bytes: the walk goes on;
#   - a file edited and the print re-indexed by another process.
# The first call watches nothing (the stdio server's idle steps do, after
# it) and stats the print's 1,287 files on two threads; two more runs
# leave the watches to steps that never come
# (DBPRINT_WATCH_STEP=0) or come one directory at a time (=1).
. "$(dirname "$0")/../lib.sh"
. "$SRCDIR/tests/fuzz/serve.sh"


# total JSON - one search_columns call; TOT is its total (or the error).
# (Not in a $(...) subshell: the session's line count must advance.)
total() {
	srv_call search_columns "$1"
	if [ "$RE" = false ]; then
		TOT=$(printf '%s' "$RT" | jq -r '.total')
	else
		TOT="error $RE: $(printf '%s' "$RT" | head -c 300)"
	fi
}

# same_size_edit FILE FROM TO - FROM -> TO (same length) in FILE, written
# in place: size and inode as before, only the mtime moves
same_size_edit() {
	sed "s/$2/$3/" "$1" >"$T/.new"
	cat "$T/.new" >"$1"
}

run() {		# run LABEL - the whole sequence on a fresh print
	L=$1
	rm -rf "$T/g" "$T/i.sqlite" "$T/i.sqlite-wal" "$T/i.sqlite-shm" "$T/srv.err"
	"$GEN" "$T/g" 1000 4 >/dev/null || { fail "$L: gen-print"; return; }
	P=$T/g/prints/gen
	S0=$P/gen/s000/t00000/statistics.yaml
	S1=$P/gen/s000/t00001/statistics.yaml
	"$INDEX" --quiet --project "$T/g" --index "$T/i.sqlite"
	check_eq "$L: the print indexes" 0 $?
	srv_start --project "$T/g" --index "$T/i.sqlite"

	total '{"sql_type": "BIGINX"}'
	check_eq "$L: no BIGINX column yet" 0 "$TOT"
	# warm: a second call is served from the verified set
	total '{"sql_type": "BIGINX"}'
	check_eq "$L: still none on a warm call" 0 "$TOT"
	if [ "$L" = inotify ]; then
		# the first call watched nothing; idle steps watch every
		# directory of the set (root, gen, its schemas, 1,000 tables)
		want=$(find "$P" -mindepth 1 -type d | wc -l)
		want=$((want + 1))
		n=0 tries=0
		while [ "$tries" -lt 50 ]; do
			n=$(cat /proc/"$SRV_PID"/fdinfo/* 2>/dev/null |
			    grep -c '^inotify wd:')
			[ "$n" -ge "$want" ] && break
			sleep 0.1
			tries=$((tries + 1))
		done
		check_eq "$L: idle steps watched every directory" "$want" "$n"
	fi

	# 1. replaced by rename: same size, same mtime, new inode
	sed 's/sql_type: BIGINT/sql_type: BIGINX/' "$S0" >"$T/.s0"
	touch -r "$S0" "$T/.s0"
	cp -p "$T/.s0" "$P/gen/s000/t00000/.tmp"
	mv "$P/gen/s000/t00000/.tmp" "$S0"
	total '{"sql_type": "BIGINX"}'
	check_eq "$L: renamed over (same size and mtime): seen" 1 "$TOT"

	# 2. edited in place, same size: only the mtime moves
	same_size_edit "$S1" "sql_type: BIGINT" "sql_type: BIGINX"
	total '{"sql_type": "BIGINX"}'
	check_eq "$L: edited in place (same size): seen" 2 "$TOT"

	# 3. deleted: its table is unreadable, its column gone; restored
	cp -p "$S1" "$T/.s1"
	rm -f "$S1"
	total '{"sql_type": "BIGINX"}'
	check_eq "$L: deleted: its column is gone" 1 "$TOT"
	cp -p "$T/.s1" "$S1"
	total '{"sql_type": "BIGINX"}'
	check_eq "$L: restored: its column is back" 2 "$TOT"

	# 4. a new table, by a changed manifest
	mkdir -p "$P/gen/s999/tnew"
	sed -e 's/^table: .*/table: gen.s999.tnew/' \
	    -e 's/sql_type: BIGINT/sql_type: BIGINY/' \
	    "$P/gen/s000/t00002/statistics.yaml" >"$P/gen/s999/tnew/statistics.yaml"
	cat >>"$P/manifest.yaml" <<'EOF'
  gen.s999.tnew:
    type: table
    path: gen/s999/tnew
    artifacts:
      statistics: statistics.yaml
    row_count: 10
    columns: 4
    profiled_at: '2026-11-30T00:00:00Z'
EOF
	total '{"sql_type": "BIGINY"}'
	check_eq "$L: a table added by the manifest: its column found" 1 "$TOT"
	# and a change to the new table's file is seen too
	same_size_edit "$P/gen/s999/tnew/statistics.yaml" \
	    "sql_type: BIGINY" "sql_type: BIGINZ"
	total '{"sql_type": "BIGINZ"}'
	check_eq "$L: the new table's file edited: seen" 1 "$TOT"

	# 5. a symlinked table directory, edited through its target
	mv "$P/gen/s000/t00003" "$P/gen/real3"
	ln -s ../real3 "$P/gen/s000/t00003"
	total '{"sql_type": "BIGINW"}'
	check_eq "$L: symlinked table dir: unchanged content" 0 "$TOT"
	same_size_edit "$P/gen/real3/statistics.yaml" \
	    "sql_type: BIGINT" "sql_type: BIGINW"
	total '{"sql_type": "BIGINW"}'
	check_eq "$L: edited through the symlink's target: seen" \
	    "$(grep -c 'sql_type: BIGINW' "$P/gen/real3/statistics.yaml")" "$TOT"

	# 6. the print root replaced by rename (a whole new print moved in)
	cp -Rp "$P" "$T/g/prints/gen.new"
	same_size_edit "$T/g/prints/gen.new/gen/s000/t00004/statistics.yaml" \
	    "sql_type: BIGINT" "sql_type: BIGINV"
	mv "$P" "$T/g/prints/gen.old"
	mv "$T/g/prints/gen.new" "$P"
	total '{"sql_type": "BIGINV"}'
	check_eq "$L: the print root replaced by rename: seen" \
	    "$(grep -c 'sql_type: BIGINV' "$P/gen/s000/t00004/statistics.yaml")" "$TOT"
	rm -rf "$T/g/prints/gen.old"

	# 7. a cursor walk: page 1, a file changes, page 2 is refused
	srv_call search_columns '{"pattern": "*"}'
	cur=$(printf '%s' "$RT" | jq -r '.next_cursor // empty')
	if [ -z "$cur" ]; then
		fail "$L: search_columns pattern * pages" "$(printf '%s' "$RT" | head -c 300)"
	else
		S9=$(find "$P" -name statistics.yaml | sort | tail -1)
		echo "# changed between pages" >>"$S9"
		srv_call search_columns "{\"pattern\": \"*\", \"cursor\": \"$cur\"}"
		check_eq "$L: changed between pages: isError" true "$RE"
		check_contains "$L: changed between pages: print changed" \
		    "the print changed on disk since this cursor was issued, so search_columns cannot resume" "$RT"
		# same bytes, new mtime: the cursor stays good
		srv_call search_columns '{"pattern": "*"}'
		cur=$(printf '%s' "$RT" | jq -r '.next_cursor // empty')
		touch -d '2020-01-01' "$S9"
		srv_call search_columns "{\"pattern\": \"*\", \"cursor\": \"$cur\"}"
		check_eq "$L: touched between pages (same bytes): page 2" false "$RE"
		check_contains "$L: page 2 holds matches" '"table": "gen.' "$RT"
	fi

	# 8. the print edited and re-indexed by another process: the kept
	# plan of the same search is not reused
	total '{"sql_type": "BIGINU"}'
	check_eq "$L: no BIGINU column yet" 0 "$TOT"
	same_size_edit "$P/gen/s000/t00005/statistics.yaml" \
	    "sql_type: BIGINT" "sql_type: BIGINU"
	"$INDEX" --quiet --project "$T/g" --index "$T/i.sqlite"
	total '{"sql_type": "BIGINU"}'
	check_eq "$L: re-indexed by another process: seen" \
	    "$(grep -c 'sql_type: BIGINU' "$P/gen/s000/t00005/statistics.yaml")" "$TOT"

	srv_stop
	check_eq "$L: the server ends cleanly" 0 "$SRV_RC"
}

if [ "${DBP_PORTABLE:-0}" = 1 ]; then
	skip "portable build: no inotify"
else
	run inotify
	if [ -d /proc/sys/fs/inotify ]; then
		ok "inotify available: the first run used it"
	else
		skip "no inotify here: the first run stat'ed every file"
	fi
fi
export DBPRINT_NO_INOTIFY=1
run stat
unset DBPRINT_NO_INOTIFY
if [ "${DBP_PORTABLE:-0}" != 1 ]; then
	# watches left to idle steps that never come: every call stats
	DBPRINT_WATCH_STEP=0 run deferred
	# one directory a step: calls land with part of the print watched
	DBPRINT_WATCH_STEP=1 run step1
fi

#!/bin/sh
# t9210-fault-index.sh - the index file deleted, truncated, corrupted
# (bytes overwritten in the middle) or locked by another process while one
# dbprint-serve runs on it.  After each fault the same questions are asked
# again: every answer is either exactly the answer given before the fault
# or an error; the server never dies and never serves other data.  A print
# file is then changed so the server must write the index (refresh), which
# must also answer correctly or with an error.
. "$(dirname "$0")/../lib.sh"
. "$SRCDIR/tests/fuzz/serve.sh"

"$BUILD_ABS/gen-print" "$T/g" 120 5 >/dev/null || { fail "gen-print"; exit 0; }
P=$T/g/prints/gen
I=$T/i.sqlite
STATS=$(find "$P" -name statistics.yaml | sort | head -1)
TBL=$(sed -n 's/^table: //p' "$STATS")
"$INDEX" --quiet --project "$T/g" --index "$I"
check_eq "the print indexes" 0 $?

Q1='{"detail": false, "pattern": "gen.s000.*"}'
Q2="{\"table\": \"$TBL\", \"format\": \"json\"}"
Q3='{"pattern": "c00*", "classification": "*"}'
# ask TAG - the three questions; each answer must equal the baseline or be
# an error.  Counts errors in $errs.
ask() {
	for q in 1 2 3; do
		case $q in
		1) srv_call list_tables "$Q1" ;;
		2) srv_call get_table_context "$Q2" ;;
		3) srv_call search_columns "$Q3" ;;
		esac
		if [ "$RE" = died ]; then
			fail "$1: question $q: the server is alive" "$RT"
			continue
		fi
		printf '%s' "$RT" >"$T/a$q"
		if [ "$RE" = false ]; then
			check_file "$1: question $q: same answer as before" \
			    "$T/base$q" "$T/a$q"
		elif [ "${1#before}" != "$1" ]; then
			fail "$1: question $q answers" "$RT"
		else
			ok "$1: question $q: an error ($(printf '%s' "$RT" | head -c 60 | tr '\n' ' '))"
			errs=$((errs + 1))
		fi
	done
}

# base - answers from a fresh server on a good index.
srv_start --project "$T/g" --index "$I"
for q in 1 2 3; do
	case $q in
	1) srv_call list_tables "$Q1" ;;
	2) srv_call get_table_context "$Q2" ;;
	3) srv_call search_columns "$Q3" ;;
	esac
	printf '%s' "$RT" >"$T/base$q"
	check_eq "baseline question $q answers" false "$RE"
done
errs=0

# --- deleted: the open descriptor keeps the old inode readable ---------
rm -f "$I" "$I-wal" "$I-shm"
ask "index deleted"
srv_stop
check_eq "index deleted: exit 0 at EOF" 0 "$SRV_RC"

# --- a server started on a missing index rebuilds it --------------------
srv_start --project "$T/g" --index "$I"
ask "index missing at start (rebuilt)"
srv_stop
check "index rebuilt on disk" test -s "$I"

# --- truncated under a running server -----------------------------------
srv_start --project "$T/g" --index "$I"
ask "before truncation"
: >"$I"
ask "index truncated to 0 bytes"
head -c 8192 /dev/zero >"$I"
ask "index truncated to 8 KiB of zeros"
srv_stop
check_eq "after truncation: exit status not a crash" yes \
    "$([ "$SRV_RC" -lt 128 ] && echo yes || echo "no: $SRV_RC")"

# --- corrupted in the middle --------------------------------------------
rm -f "$I" "$I-wal" "$I-shm"
"$INDEX" --quiet --project "$T/g" --index "$I"
sqlite3 "$I" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
size=$(stat -c %s "$I")
for frac in 2 3 5; do
	srv_start --project "$T/g" --index "$I"
	ask "before corruption 1/$frac"
	off=$((size / frac))
	# 4 KiB of 0xA5 over the middle of the file.
	head -c 4096 /dev/zero | tr '\0' '\245' |
	    dd of="$I" bs=1 seek=$off conv=notrunc 2>/dev/null
	ask "index corrupted at 1/$frac"
	srv_stop
	check_eq "corrupted at 1/$frac: exit status not a crash" yes \
	    "$([ "$SRV_RC" -lt 128 ] && echo yes || echo "no: $SRV_RC")"
	rm -f "$I" "$I-wal" "$I-shm"
	"$INDEX" --quiet --project "$T/g" --index "$I"
	sqlite3 "$I" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
done
# A server started on a corrupt index: it answers, errs, or refuses to
# start with a message - never a crash.
head -c 4096 /dev/zero | tr '\0' '\245' |
    dd of="$I" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
srv_start --project "$T/g" --index "$I"
ask "server started on a corrupt index"
srv_stop
check_eq "started on a corrupt index: exit status not a crash" yes \
    "$([ "$SRV_RC" -lt 128 ] && echo yes || echo "no: $SRV_RC")"

# --- locked by another process ------------------------------------------
rm -f "$I" "$I-wal" "$I-shm"
"$INDEX" --quiet --project "$T/g" --index "$I"
srv_start --project "$T/g" --index "$I"
ask "before the lock"
# Another writer holds the write lock for 4 s: reads go on (WAL).
{ echo "BEGIN EXCLUSIVE;"; echo "INSERT INTO meta(key, value) VALUES ('t9210', 'x');"; sleep 4; echo "ROLLBACK;"; } |
    sqlite3 "$I" >/dev/null 2>&1 &
lk=$!
sleep 1
ask "index write-locked by another process"
# A changed print file makes the server refresh (write) under the lock: it
# waits for the lock (busy timeout), then answers the new content.
sed -i 's/^row_count: .*/row_count: 777777/' "$STATS"
srv_call get_table_context "$Q2"
if [ "$RE" = false ]; then
	check_contains "refresh under a lock: the new row count" 777777 "$RT"
else
	ok "refresh under a lock: an error ($(printf '%s' "$RT" | head -c 60))"
fi
wait $lk
# An exclusive locking-mode holder: even reads are blocked for 3 s.
{ echo "PRAGMA locking_mode=EXCLUSIVE;"; echo "BEGIN EXCLUSIVE;"; echo "SELECT count(*) FROM tables;"; sleep 3; echo "COMMIT;"; } |
    sqlite3 "$I" >/dev/null 2>&1 &
lk=$!
sleep 1
srv_call list_tables "$Q1"
if [ "$RE" = false ]; then
	printf '%s' "$RT" >"$T/a1"
	check_file "read under an exclusive lock: same answer" "$T/base1" "$T/a1"
else
	ok "read under an exclusive lock: an error"
fi
wait $lk
srv_stop
check_eq "after the locks: exit 0 at EOF" 0 "$SRV_RC"
check_eq "the server never crashed (no sanitizer report)" 0 \
    "$(grep -c 'ERROR: AddressSanitizer\|runtime error:' "$T/srv.err")"

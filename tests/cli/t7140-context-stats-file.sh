#!/bin/sh
# t7140-context-stats-file.sh - since schema 10 the index keeps no
# statistics document (files.doc is NULL for statistics.yaml: its facts
# are rows), so get_table_context reads the file itself, checked against
# files.hash:
#   - the index holds no statistics document, and still the others;
#   - a column's sketch in the file is never shown, in any format;
#   - an edit in place that keeps the file's size and modification time
#     (so no stat can tell it) is not served: the statistics read as
#     unreadable, the sentence says the file changed since it was indexed,
#     and nothing of the new bytes shows;
#   - once the file's identity moves, the next call re-indexes and shows
#     the new content, and the context equals a fresh index's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ctx7.sh"

demo_copy
BOOK=$P/prints/demo/bookshop/store/book
S=$BOOK/statistics.yaml
I=$P/.dbprint/index/demo.sqlite
Q='{"table":"bookshop.store.book"}'
OLD='2026-01-01 00:00:00.123456789'

# A sketch in book_id's block, as a generator leaves one.
awk '{ print } /^  book_id:$/ { print "    sketch:"; print "      kind: hll"; print "      registers: AAECAw==" }' \
    "$S" >"$T/s" && cat "$T/s" >"$S"
touch -d "$OLD" "$S"
$VG "$INDEX" --quiet --project "$P" 2>"$T/err"
check_eq "the print indexes" "" "$(cat "$T/err")"
check_eq "no statistics document is kept" \
    "0 $(sqlite3 "$I" "SELECT count(*) FROM files WHERE kind = 'statistics'")" \
    "$(sqlite3 "$I" "SELECT count(doc) || ' ' || count(*) FROM files WHERE kind = 'statistics'")"
check_eq "... and the other documents are" \
    "$(sqlite3 "$I" "SELECT count(*) FROM files WHERE kind = 'relationships' AND status = 'ok'")" \
    "$(sqlite3 "$I" "SELECT count(doc) FROM files WHERE kind = 'relationships'")"

for f in md json yaml; do
	ctx_call "$P" demo "{\"table\":\"bookshop.store.book\",\"format\":\"$f\",\"purpose\":\"profile\"}"
	check_eq "$f: the call succeeds" 0 "$rc"
	case $out in
	*registers*|*AAECAw*) fail "$f: the sketch is not shown" "$out" ;;
	*book_id*) ok "$f: the sketch is not shown" ;;
	*) fail "$f: the sketch is not shown (no book_id in it)" "$out" ;;
	esac
done
ctx_call "$P" demo '{"table":"bookshop.store.book","format":"json"}'
check_contains "json: the file's own blocks are read (null_count)" \
    '"null_count"' "$out"
ctx_call "$P" demo "$Q"
before=$out
check_contains "md: the shares are the file's (2,400 rows)" \
    "'fiction' (32.5%)" "$before"

# The same bytes but one digit: same size, same mtime, same inode.
python3 - "$S" <<'EOF' 2>/dev/null || {
import sys
p = sys.argv[1]
b = open(p, 'rb').read().replace(b'row_count: 2400', b'row_count: 7400', 1)
with open(p, 'r+b') as f:
    f.write(b)
EOF
	# no python3: the same edit with dd, in place
	off=$(grep -bo 'row_count: 2400' "$S" | head -1 | cut -d: -f1)
	printf 'row_count: 7400' | dd of="$S" bs=1 seek="$off" conv=notrunc 2>/dev/null
}
touch -d "$OLD" "$S"
check_contains "the file holds the edit" "row_count: 7400" "$(cat "$S")"
ctx_call "$P" demo "$Q"
check_eq "an edit no stat can tell: the call still answers" 0 "$rc"
check_contains "... the statistics read as unreadable" \
    "Unreadable: statistics" "$out"
check_contains "... and the sentence says why" \
    "the file changed on disk since it was indexed" "$out"
case $out in
*"'fiction' (10.5%)"*) fail "... nothing of the new bytes shows" "$out" ;;
*) ok "... nothing of the new bytes shows" ;;
esac

# Its identity moves: re-indexed, and the new content is served.
touch "$S"
ctx_call "$P" demo "$Q"
check_contains "a touched file is re-indexed and its content shown" \
    "'fiction' (10.5%)" "$out"
case $out in
*Unreadable*) fail "... and it is readable again" "$out" ;;
*) ok "... and it is readable again" ;;
esac
rm -rf "$P/.dbprint"
"$INDEX" --quiet --project "$P"
reindexed=$out
ctx_call "$P" demo "$Q"
check_eq "... equal to the context of a fresh index" "$reindexed" "$out"

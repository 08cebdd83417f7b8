#!/bin/sh
# t1070-index-probe.sh - a run whose manifest is unchanged first looks at
# every files row quickly (indexer/compile/probe.c) and plans only the
# tables whose files may have changed.  Each change below is one the
# quick look must hand to the plan (or must accept, when nothing
# changed); after each, the index is the one a fresh full build of the
# same files makes, and a second run finds nothing to do.
. "$SRCDIR/tests/lib.sh"

demo_copy
R="$P/prints/demo"
S="$R/bookshop/store"
I="$T/i.sqlite"
dump() { index_dump "$1" "$R"; }
json() { jq -r ".$1" "$T/run.json"; }
run() {
	$VG "$INDEX" --quiet --json --project "$P" --index "$I" >"$T/run.json"
}
# same WHAT - the index is a fresh full build's, and a re-run does nothing
same() {
	rm -f "$T/fresh.sqlite"
	$VG "$INDEX" --quiet --project "$P" --index "$T/fresh.sqlite"
	dump "$T/fresh.sqlite" >"$T/fresh.dump"
	dump "$I" >"$T/inc.dump"
	check_file "$1: the index is a full build's" "$T/fresh.dump" \
	    "$T/inc.dump"
	v=$(sqlite3 "$I" "SELECT value FROM meta WHERE key = 'indexed_at'")
	run
	check_eq "$1: a re-run exits 0" 0 $?
	check_eq "$1: a re-run parses nothing" 0 "$(json files_parsed)"
	check_eq "$1: a re-run hashes nothing" 0 "$(json files_rehashed)"
	check_eq "$1: a re-run counts every file unchanged" \
	    "$(json files_total)" "$(json files_unchanged)"
	check_eq "$1: a re-run writes nothing" "$v" \
	    "$(sqlite3 "$I" "SELECT value FROM meta WHERE key = 'indexed_at'")"
}

run
check_eq "the first build exits 0" 0 $?
total=$(json files_total)
sleep 1	# indexed_at has a second's precision
run
check_eq "a re-run counts the first build's files" "$total" \
    "$(json files_total)"
check_eq "a re-run finds each unchanged" "$total" "$(json files_unchanged)"
check_eq "a re-run parses nothing" 0 "$(json files_parsed)"

# A new mtime, the same bytes: hashed again, not parsed.
touch -d '2001-01-01 00:00:01' "$S/book/ddl.sql"
run
check_eq "a touched file is hashed again" 1 "$(json files_rehashed)"
check_eq "a touched file is not parsed" 0 "$(json files_parsed)"
check_eq "the other files are unchanged" "$((total - 1))" \
    "$(json files_unchanged)"
same "touched"

# Written in place (same inode, new size).
printf '\n-- edited\n' >>"$S/author/ddl.sql"
run
check_eq "a file edited in place is read again" 1 \
    "$(($(json files_parsed) + $(json files_rehashed)))"
same "edited in place"

# An annotations file edited in place, its size kept: the mtime tells.
f="$S/book/statistics.annotations.yaml"
sed 's/e/E/' "$f" >"$T/x" && cat "$T/x" >"$f"
touch -d '2002-02-02 00:00:02' "$f"
run
check_eq "a same-size edit is parsed" 1 "$(json files_parsed)"
same "same-size edit"

# A declared file removed, then put back.
mv "$S/customer/description.md" "$T/desc.md"
run
check_eq "a removed file: the run exits 0" 0 $?
check_eq "a removed file is absent in the index" absent \
    "$(sqlite3 "$I" "SELECT status FROM files WHERE path LIKE
	'%customer/description.md'")"
same "removed"
mv "$T/desc.md" "$S/customer/description.md"
run
check_eq "a file put back is ok again" ok \
    "$(sqlite3 "$I" "SELECT status FROM files WHERE path LIKE
	'%customer/description.md'")"
same "put back"

# A table's directory moved and replaced by a symlink that stays inside
# the root: the files are the same, the plan judges the link.
mv "$S/order_line" "$R/moved_order_line"
ln -s ../../moved_order_line "$S/order_line"
run
check_eq "a directory symlinked inside: the run exits 0" 0 $?
check_eq "its files stay ok" 0 "$(sqlite3 "$I" "SELECT count(*) FROM files
    WHERE path LIKE '%store/order_line/%' AND status <> 'ok'")"
same "symlinked inside"

# ... and by one leading outside the root: outside_root, every run.
rm "$S/order_line"
mv "$R/moved_order_line" "$T/order_line"
ln -s "$T/order_line" "$S/order_line"
run
check_eq "a directory symlinked outside: the run exits 0" 0 $?
check_eq "its files are outside_root" 3 "$(sqlite3 "$I" "SELECT count(*)
    FROM files WHERE path LIKE '%store/order_line/%' AND
    status = 'outside_root'")"
same "symlinked outside"
rm "$S/order_line"
mv "$T/order_line" "$S/order_line"
run
check_eq "the directory back: its files are ok" 0 "$(sqlite3 "$I" "SELECT
    count(*) FROM files WHERE path LIKE '%store/order_line/%' AND
    status <> 'ok'")"
same "directory back"

# A file replaced by a symlink to a copy inside the root.
cp "$S/book/relationships.yaml" "$R/book-rel.yaml"
rm "$S/book/relationships.yaml"
ln -s ../../../book-rel.yaml "$S/book/relationships.yaml"
run
check_eq "a file symlinked inside: the run exits 0" 0 $?
same "file symlinked inside"

# A file replaced by a directory: unreadable, and tried again each run
# (as the plan always did: it may become readable).
rm "$S/book/relationships.yaml"
mkdir "$S/book/relationships.yaml"
run
check_eq "a file replaced by a directory: the run exits 0" 0 $?
check_eq "it is unreadable" unreadable "$(sqlite3 "$I" "SELECT status FROM
    files WHERE path LIKE '%book/relationships.yaml'")"
run
check_eq "an unreadable file is tried again" 1 "$(json files_parsed)"
check_eq "the others are unchanged" "$((total - 1))" \
    "$(json files_unchanged)"
rmdir "$S/book/relationships.yaml"
cp "$R/book-rel.yaml" "$S/book/relationships.yaml"
run
same "file back"

# A table's directory replaced by a file: its files are absent.
mv "$S/author" "$T/author"
: >"$S/author"
run
check_eq "a directory replaced by a file: the run exits 0" 0 $?
check_eq "its files are absent" 3 "$(sqlite3 "$I" "SELECT count(*) FROM
    files WHERE path LIKE '%store/author/%' AND status = 'absent'")"
same "directory now a file"

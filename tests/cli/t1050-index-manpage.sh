#!/bin/sh
# t1050-index-manpage.sh - dbprint-index(5) documents every table, view
# and column of the schema the binary creates.
. "$SRCDIR/tests/lib.sh"

MAN="$SRCDIR/man/dbprint-index.5"
$VG "$INDEX" --quiet --project "$FIX/demo" --index "$T/d.sqlite"
check_eq "index built" 0 $?
missing=""
for t in $(sqlite3 "$T/d.sqlite" "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
	grep -q "^\.Ss $t\( \|$\)" "$MAN" || missing="$missing table:$t"
	for c in $(sqlite3 "$T/d.sqlite" "SELECT name FROM pragma_table_info('$t')"); do
		grep -q "$c" "$MAN" || missing="$missing $t.$c"
	done
done
check_eq "every table and column is documented" "" "$missing"
check_eq "the page states the schema version" 1 \
    "$(grep -c "holds its version ($(sqlite3 "$T/d.sqlite" 'PRAGMA user_version'))" "$MAN")"
check_eq "the meta table's schema_version matches the page" 1 \
    "$(grep -c "^the schema version, $(sqlite3 "$T/d.sqlite" "SELECT value FROM meta WHERE key = 'schema_version'")\.$" "$MAN")"

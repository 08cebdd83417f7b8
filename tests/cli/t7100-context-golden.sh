#!/bin/sh
# t7100-context-golden.sh - get_table_context (spec 4.1) over every table
# of fixtures/rich, both connections, in both purposes and all three
# formats, against tests/golden/context/<conn>/<table>.<purpose>.<format>.
# A golden holds every page, "=== page N ===" between them, cursors and
# the copy's path normalized (tests/cli/ctx7.sh).  The one table whose
# pages run to hundreds of kilobytes (depot.stock.product_spec) keeps its
# first page only here; t7110 checks its pages rebuild the whole.
# UPDATE_GOLDEN=1 rewrites the goldens (review the diff before committing).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ctx7.sh"

cp -R "$FIX/rich" "$T/rich"
G="$SRCDIR/tests/golden/context"
for conn in main other; do
	"$INDEX" --project "$T/rich" --quiet "$conn" >/dev/null 2>&1
	tables=$(sqlite3 "$T/rich/.dbprint/index/$conn.sqlite" \
	    "SELECT fqn FROM tables WHERE walkable = 1 ORDER BY fqn")
	[ -n "$tables" ] || fail "$conn: the index lists tables"
	mkdir -p "$G/$conn"
	for t in $tables; do
		for p in profile query; do
			for f in md json yaml; do
				a="{\"table\":\"$t\",\"purpose\":\"$p\",\"format\":\"$f\"}"
				ctx_pages "$T/rich" "$conn" "$a" "$f"
				if [ "$npages" -lt 1 ]; then
					fail "$conn $t $p $f: answers" "$out"
					continue
				fi
				if [ "$t" = depot.stock.product_spec ]; then
					ctx_got "$T/rich" 1
				else
					ctx_got "$T/rich"
				fi
				[ -f "$G/$conn/$t.$p.$f" ] || : >"$G/$conn/$t.$p.$f"
				check_file "$conn $t $p $f: golden ($npages pages, longest $maxlen)" \
				    "$G/$conn/$t.$p.$f" "$T/got"
				if [ "$maxlen" -gt 20000 ]; then
					fail "$conn $t $p $f: every page within 20000 characters" "$maxlen"
				fi
			done
		done
	done
done

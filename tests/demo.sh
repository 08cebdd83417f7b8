#!/bin/sh
# demo.sh - what `make demo` runs: index the bundled demo print (a small
# bookshop, fixtures/demo) and ask the server three questions an agent asks
# before it writes SQL.  Each answer is printed under a short heading.
#
#   BUILD   build tree holding the programs (default build)
set -e
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) B=$BUILD ;; *) B=$SRCDIR/$BUILD ;; esac
PROJECT=$SRCDIR/fixtures/demo

heading() {
	printf '\n==> %s\n' "$1"
}

heading "dbprint-index --project fixtures/demo"
"$B/dbprint-index" --project "$PROJECT"

heading "Which tables exist, how big, how fresh?  (list_tables, detail: true)"
"$B/dbprint-serve" --project "$PROJECT" --call list_tables '{"detail":true}'

heading "Which columns hold personal data?  (search_columns, sensitivity: \"*\")"
"$B/dbprint-serve" --project "$PROJECT" --call search_columns '{"sensitivity":"*"}'

heading "How is \"shipped\" spelled in customer_order.status?  (resolve_value)"
"$B/dbprint-serve" --project "$PROJECT" --call resolve_value \
    '{"table":"bookshop.store.customer_order","column":"status","text":"shipped"}'
echo

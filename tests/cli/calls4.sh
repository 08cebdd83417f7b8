# calls4.sh - helpers shared by the t4* tests (list_tables, search_columns,
# resolve_value).  Source it after tests/lib.sh.
#
#   rich_copy            copy fixtures/rich to $T/rich (tests never edit
#                        fixtures in place); sets $R to it
#   call4 [CONN] TOOL JSON
#                        run one tools/call through dbprint-serve --call
#                        against project $P (default $R): the reply text
#                        in $out (stdout, else stderr), the exit status in
#                        $rc
#   jqo FILTER           jq -c FILTER over $out
#   pages4 [CONN] TOOL JSON KEY
#                        follow next_cursor to the last page, appending
#                        every page's KEY list to $T/items (one compact
#                        item a line); $npages counts pages, $maxlen is
#                        the longest page, $totals the distinct totals

rich_copy() {
	cp -R "$FIX/rich" "$T/rich"
	R=$T/rich
	P=$R
}

call4() {
	if [ $# -ge 3 ]; then
		$VG "$SERVE" --project "$P" "$1" --call "$2" "$3" \
		    >"$T/out" 2>"$T/err"
	else
		$VG "$SERVE" --project "$P" --call "$1" "$2" \
		    >"$T/out" 2>"$T/err"
	fi
	rc=$?
	if [ -s "$T/out" ]; then
		out=$(cat "$T/out")
	else
		out=$(cat "$T/err")
	fi
	# Under valgrind, exit 99 is a memory error: never a pass.
	[ "$rc" -ne 99 ] || fail "valgrind clean: $*" "$(cat "$T/err")"
}

jqo() {
	printf '%s' "$out" | jq -c "$1" 2>/dev/null
}

# The JSON text of args with "cursor" set to $1.
with_cursor() {
	printf '%s' "$2" | jq -c --arg c "$1" '. + {cursor: $c}'
}

pages4() {
	if [ $# -ge 4 ]; then _c=$1; shift; else _c=""; fi
	_tool=$1 _args=$2 _key=$3
	: >"$T/items"
	npages=0 maxlen=0 totals=""
	_a=$_args
	while :; do
		if [ -n "$_c" ]; then call4 "$_c" "$_tool" "$_a"; else
			call4 "$_tool" "$_a"; fi
		[ "$rc" -eq 0 ] || { npages=-1; return; }
		npages=$((npages + 1))
		_len=$(printf '%s' "$out" | wc -m)
		[ "$_len" -gt "$maxlen" ] && maxlen=$_len
		totals="$totals $(jqo .total)"
		printf '%s' "$out" | jq -c ".${_key}[]?" >>"$T/items"
		_cur=$(jqo '.next_cursor // empty' | tr -d '"')
		[ -n "$_cur" ] || break
		_a=$(with_cursor "$_cur" "$_args")
		[ $npages -lt 200 ] || break
	done
	totals=$(printf '%s\n' $totals | sort -u | tr '\n' ' ')
}

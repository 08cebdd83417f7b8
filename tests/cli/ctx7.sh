# ctx7.sh - helpers shared by the t7* tests (get_table_context).  Source
# it after tests/lib.sh.
#
#   ctx_call PROJECT CONN JSON
#                      one get_table_context call through --call: the text
#                      in $out (stdout, else stderr), the exit status in $rc
#   ctx_pages PROJECT CONN JSON FORMAT
#                      follow the cursor to the last page (at most 200),
#                      each page in $T/pages/<n> as --call printed it (the
#                      text and one newline); $npages, $maxlen
#                      (characters), $cursors (the cursors seen, one a line)
#   ctx_norm ROOT      filter: cursors -> CURSOR, ROOT -> ROOT (so goldens
#                      do not depend on where the copy lives)
#   ctx_got ROOT [LAST]
#                      the pages ctx_pages kept, each through ctx_norm ROOT,
#                      joined as a golden holds them ("=== page N ==="
#                      before each when there are several) into $T/got;
#                      with LAST, the pages up to that one only

ctx_call() {
	$VG "$SERVE" --project "$1" "$2" --call get_table_context "$3" \
	    >"$T/out" 2>"$T/err"
	rc=$?
	if [ -s "$T/out" ]; then out=$(cat "$T/out"); else out=$(cat "$T/err"); fi
	[ "$rc" -ne 99 ] || fail "valgrind clean: $3" "$(cat "$T/err")"
}

ctx_cursor_of() {	# FORMAT < page
	case $1 in
	md) sed -n 's/^<!-- next_cursor: \(.*\) -->$/\1/p' ;;
	json) jq -r '.next_cursor // empty' ;;
	yaml) sed -n 's/^# next_cursor: //p' ;;
	esac
}

ctx_pages() {
	rm -rf "$T/pages"
	mkdir -p "$T/pages"
	npages=0 maxlen=0 cursors=""
	_a=$3
	while :; do
		ctx_call "$1" "$2" "$_a"
		if [ "$rc" -ne 0 ]; then
			fail "page $((npages + 1)) of $3 answers" "$out"
			npages=-1
			return
		fi
		npages=$((npages + 1))
		cp "$T/out" "$T/pages/$npages"
		_len=$(printf '%s' "$out" | wc -m)
		[ "$_len" -gt "$maxlen" ] && maxlen=$_len
		_cur=$(printf '%s' "$out" | ctx_cursor_of "$4")
		[ -n "$_cur" ] || break
		cursors="$cursors$_cur
"
		_a=$(printf '%s' "$3" | jq -c --arg c "$_cur" '. + {cursor: $c}')
		[ $npages -lt 200 ] || break
	done
}

ctx_norm() {
	sed -e 's/\(<!-- next_cursor: \).* -->$/\1CURSOR -->/' \
	    -e 's/^\(# next_cursor: \).*$/\1CURSOR/' \
	    -e 's/^\(  "next_cursor": \)".*"$/\1"CURSOR"/' \
	    -e "s|$1|ROOT|g"
}

ctx_got() {
	: >"$T/got"
	_i=1
	while [ $_i -le "$npages" ]; do
		[ "$npages" -gt 1 ] && echo "=== page $_i ===" >>"$T/got"
		ctx_norm "$1" <"$T/pages/$_i" >>"$T/got"
		[ $_i -eq "${2:-0}" ] && break
		_i=$((_i + 1))
	done
}

#!/bin/sh
# t6400-resource-pages.sh - paged resource reads (spec 3.4): a large file
# read page by page concatenates to the file byte for byte, a version goes
# stale when the file is rewritten between two pages, and resources/list
# pages with nextCursor pinned to the served manifests.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/cli/print6.sh"

P=$T/p
ROOT=$P/prints/shop
mkprint6 "$P"

# A reading.md of about 150 KB: quotes and backslashes (2 wide once
# escaped), tabs, UTF-8, one 45,000-character line.
{
	i=0
	while [ $i -lt 2500 ]; do
		printf 'line %d: "quoted" \\ back\tslash caf\303\251 \342\202\254\n' $i
		i=$((i + 1))
	done
	j=0
	while [ $j -lt 4500 ]; do
		printf 'abcdefghi\303\251'
		j=$((j + 1))
	done
	printf '\nlast line without newline'
} >"$ROOT/reading.md"

read6 "$P" dbprint://shop/reading >"$T/r1"
pages=$(jq '.result.contents[0]._meta.pages' "$T/r1")
v=$(jq -r '.result.contents[0]._meta.version' "$T/r1")
check "the large file takes several pages" test "$pages" -ge 5
jq -j '.result.contents[0].text' "$T/r1" >"$T/all"
big=0
i=2
while [ "$i" -le "$pages" ]; do
	read6 "$P" "dbprint://shop/reading?page=$i&version=$v" >"$T/r$i"
	jq -j '.result.contents[0].text' "$T/r$i" >>"$T/all"
	i=$((i + 1))
done
check "the pages concatenate to the file byte for byte" cmp "$T/all" "$ROOT/reading.md"
i=1
while [ "$i" -le "$pages" ]; do
	w=$(jq '.result.contents[0].text | tojson | length' "$T/r$i")
	# jq's tojson keeps non-ASCII as it is: the width with its two
	# quotes, which spec 3.4 counts.
	[ "$w" -le 20000 ] || big=$((big + 1))
	i=$((i + 1))
done
check_eq "every page is at most 20,000 characters as a JSON string, quotes counted" 0 "$big"
check_eq "_meta names each page" "2 $pages $v" \
    "$(jq -r '.result.contents[0]._meta | "\(.page) \(.pages) \(.version)"' "$T/r2")"

out=$(read6 "$P" "dbprint://shop/reading?page=2" | jq -r '"\(.error.code) \(.error.message)"')
check_eq "a page past the first without version" \
    "-32602 'dbprint://shop/reading?page=2' asks for a page past the first without \`version\`. Pass the \`version\` the first page's \`_meta\` reported, as \`?page=<n>&version=<v>\`." \
    "$out"

# Rewritten between two pages: the later read is refused.
printf 'one more line\n' >>"$ROOT/reading.md"
out=$(read6 "$P" "dbprint://shop/reading?page=2&version=$v" | jq -r '"\(.error.code) \(.error.message)"')
check_eq "a version the file moved past is refused" \
    "-32602 'dbprint://shop/reading?page=2&version=$v': the file changed on disk since that version was read. Read page 1 again for its current version." \
    "$out"
v2=$(read6 "$P" dbprint://shop/reading | jq -r '.result.contents[0]._meta.version')
check "page 1 again reports the new version" test "$v2" != "$v"
check_eq "and the new version reads page 2" 2 \
    "$(read6 "$P" "dbprint://shop/reading?page=2&version=$v2" | jq '.result.contents[0]._meta.page')"

# resources/list over 300 tables pages with nextCursor.
{
	printf 'format_version: 1\nconnection: shop\ntables:\n'
	i=0
	while [ $i -lt 300 ]; do
		printf '  s.t%03d:\n    type: table\n    path: s/t%03d\n' $i $i
		printf '    artifacts: {ddl: ddl.sql, statistics: statistics.yaml, relationships: relationships.yaml}\n'
		i=$((i + 1))
	done
} >"$ROOT/manifest.yaml"
: >"$T/uris"
n=0
cursor=
while :; do
	n=$((n + 1))
	if [ -z "$cursor" ]; then
		req='{"jsonrpc":"2.0","id":1,"method":"resources/list"}'
	else
		req="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\",\"params\":{\"cursor\":\"$cursor\"}}"
	fi
	rpc6 "$P" "$req" >"$T/l$n"
	jq -r '.result.resources[].uri' "$T/l$n" >>"$T/uris"
	cursor=$(jq -r '.result.nextCursor // empty' "$T/l$n")
	[ -n "$cursor" ] && [ $n -lt 100 ] || break
done
check "resources/list takes several pages" test "$n" -ge 3
check_eq "900 table URIs, no duplicates" 900 \
    "$(grep -c 'dbprint://shop/s\.t' "$T/uris")"
check_eq "no URI twice" "$(wc -l <"$T/uris")" "$(sort -u "$T/uris" | wc -l)"
big=0
for f in "$T"/l[0-9]*; do
	[ "$(jq --indent 2 .result "$f" | wc -m)" -le 20001 ] || big=$((big + 1))
done
check_eq "every list page is bounded" 0 "$big"
c=$(jq -r .result.nextCursor "$T/l1")
printf '\n' >>"$ROOT/manifest.yaml"
out=$(rpc6 "$P" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\",\"params\":{\"cursor\":\"$c\"}}" | jq -r '"\(.error.code) \(.error.message)"')
check_eq "a list cursor over a changed manifest is refused" \
    "-32602 the print changed on disk since this cursor was issued, so resources/list cannot resume where it left off. Call again without \`cursor\` to start over." \
    "$out"
out=$(rpc6 "$P" '{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":"x"}}' | jq -r '"\(.error.code) \(.error.message)"')
check_contains "a list cursor no reply issued is refused (-32602)" \
    "-32602 cursor 'x' is not one this server issued." "$out"
# Spec 3.4's threshold counts the JSON string's two quotes: a file whose
# escaped text is 19,998 characters (20,000 as a JSON string) is one page;
# 19,999 and 20,000 (20,001 and 20,002) are two.  The file is one line of
# "a" but for a final newline (escaped as \n, 2 wide).
for n in 19998 19999 20000; do
	head -c $((n - 2)) /dev/zero | tr '\0' a >"$ROOT/reading.md"
	printf '\n' >>"$ROOT/reading.md"
	got=$(read6 "$P" dbprint://shop/reading |
	    jq 'if .result then (.result.contents[0]._meta.pages // 1) else .error end')
	want=2
	[ "$n" = 19998 ] && want=1
	check_eq "an escaped text of $n characters is $want page(s)" "$want" "$got"
done
clean6


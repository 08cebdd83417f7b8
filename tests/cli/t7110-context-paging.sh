#!/bin/sh
# t7110-context-paging.sh - a context larger than a page is paged section
# by section (spec 4.1, 4.8), and nothing is dropped:
#   - md: every page within 20,000 characters, every page but the last
#     ending with the next_cursor line; with that line and each page's
#     legend removed the pages concatenate to the whole fragment, whose
#     DDL block is ddl.sql (2,000 lines) and whose Description section is
#     description.md, byte for byte; a page printing no term has no legend;
#   - json: the pages merged key by key, parts rebuilt, give the ddl and
#     description texts and every statistics column and value of the
#     index; yaml pages end with "# next_cursor: <cursor>";
#   - cursors: one followed after a pinned file changed is refused as
#     stale, one reused under other arguments is refused as foreign.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ctx7.sh"

cp -R "$FIX/rich" "$T/rich"
P=$T/rich
"$INDEX" --project "$P" --quiet main >/dev/null 2>&1
DIR=$P/prints/main/depot/stock/product_spec
TBL=depot.stock.product_spec

# The text of a page file: --call's newline dropped, the next_cursor line
# removed, and the first legend block (## Terms, a blank line, its "- "
# lines, the blank line after them) cut out.
md_strip() {
	jq -Rs 'rtrimstr("\n")
	    | sub("\n<!-- next_cursor: [^ ]+ -->$"; "")
	    | sub("## Terms\n\n(- [^\n]*\n)*- [^\n]*(\n\n|$)"; "")' "$1"
}

for p in profile query; do
	ctx_pages "$P" main "{\"table\":\"$TBL\",\"purpose\":\"$p\"}" md
	check "md $p: several pages ($npages)" test "$npages" -gt 2
	check "md $p: every page within 20000 characters ($maxlen)" \
	    test "$maxlen" -le 20000
	i=1 marks=0 legends=0 bare=0
	: >"$T/parts.json"
	while [ $i -le "$npages" ]; do
		tail -n 1 "$T/pages/$i" | grep -q '^<!-- next_cursor: [A-Za-z0-9_-]* -->$' &&
		    marks=$((marks + 1))
		if grep -q '^## Terms$' "$T/pages/$i"; then
			legends=$((legends + 1))
		else
			bare=$((bare + 1))
		fi
		md_strip "$T/pages/$i" >>"$T/parts.json"
		i=$((i + 1))
	done
	check_eq "md $p: every page but the last ends with the cursor line" \
	    $((npages - 1)) "$marks"
	check "md $p: the pages printing terms carry legends ($legends)" \
	    test "$legends" -gt 0
	check "md $p: a page printing no term (DDL lines) carries none ($bare)" \
	    test "$bare" -gt 0
	jq -s -j 'add' "$T/parts.json" >"$T/whole.md"
	check_eq "md $p: no legend left in the whole" 0 \
	    "$(grep -c '^## Terms$' "$T/whole.md")"
	check_eq "md $p: no cursor left in the whole" 0 \
	    "$(grep -c 'next_cursor' "$T/whole.md")"
	# the DDL block is ddl.sql
	awk '/^```sql$/{f=1;next} /^```$/{f=0} f' "$T/whole.md" >"$T/ddl.got"
	check_file "md $p: the DDL block is ddl.sql, 2000 lines" "$DIR/ddl.sql" "$T/ddl.got"
	for s in "## DDL" "## Joins" "## Column values" "## Relationships" \
	    "## Description" "## Cardinality & key columns"; do
		n=$(grep -c "^$s\$" "$T/whole.md")
		case "$p:$s" in
		query:"## Relationships"|query:"## Description"|query:"## Cardinality & key columns"|profile:"## Joins"|profile:"## Column values")
			check_eq "md $p: no $s section" 0 "$n" ;;
		*)
			check_eq "md $p: $s once" 1 "$n" ;;
		esac
	done
	if [ "$p" = profile ]; then
		# the Description section is description.md
		awk '/^## Description$/{f=1;getline;next} /^## Annotations$|^## Cardinality/{f=0} f' \
		    "$T/whole.md" >"$T/desc.got"
		sed -e '$a\' "$DIR/description.md" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$T/desc.want"
		# the section ends with the blank line that separates it
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$T/desc.got" >"$T/desc.got2"
		check_file "md profile: the Description section is description.md" \
		    "$T/desc.want" "$T/desc.got2"
	fi
	# the value table (query) / cardinality table (profile) lists every
	# spec_text value or column row once
	if [ "$p" = query ]; then
		check_eq "md query: one spec_text row" 1 \
		    "$(grep -c '^| spec_text |' "$T/whole.md")"
	fi
done

# json: merge key by key; a unit sent in parts is rebuilt from its texts
MERGE='def ispart: type == "object" and (keys == ["part", "parts", "text"]);
reduce .[] as $p ({acc: {}, parts: {}};
    ($p | del(.next_cursor)) as $q
    | [$q | paths(ispart)] as $pp
    | reduce $pp[] as $x (.; .parts[$x | tojson] += ($q | getpath($x).text))
    | .acc = (.acc * (reduce $pp[] as $x ($q; delpaths([$x])))))
| .acc as $a
| reduce (.parts | to_entries[]) as $e ($a; setpath($e.key | fromjson; $e.value | fromjson))'

for p in profile query; do
	for f in json yaml; do
		ctx_pages "$P" main "{\"table\":\"$TBL\",\"purpose\":\"$p\",\"format\":\"$f\"}" $f
		check "$f $p: several pages ($npages)" test "$npages" -gt 2
		check "$f $p: every page within 20000 characters ($maxlen)" \
		    test "$maxlen" -le 20000
	done
	ctx_pages "$P" main "{\"table\":\"$TBL\",\"purpose\":\"$p\",\"format\":\"yaml\"}" yaml
	n=0 i=1
	while [ $i -lt "$npages" ]; do
		sed '/^$/d' "$T/pages/$i" | tail -n 1 | grep -q '^# next_cursor: [A-Za-z0-9_-]*$' && n=$((n + 1))
		i=$((i + 1))
	done
	check_eq "yaml $p: every page but the last ends with # next_cursor" \
	    $((npages - 1)) "$n"
	check "yaml $p: the last page has no cursor" \
	    sh -c "! grep -q next_cursor '$T/pages/$npages'"

	ctx_pages "$P" main "{\"table\":\"$TBL\",\"purpose\":\"$p\",\"format\":\"json\"}" json
	i=1
	: >"$T/all.json"
	while [ $i -le "$npages" ]; do
		cat "$T/pages/$i" >>"$T/all.json"
		i=$((i + 1))
	done
	jq -s "$MERGE" "$T/all.json" >"$T/merged.json"
	check_eq "json $p: identity on the merged object" \
	    '"depot.stock.product_spec"' "$(jq -c .table "$T/merged.json")"
	check_eq "json $p: the identity rides the first page only" "true false" \
	    "$(jq -s -r '[(.[0] | has("table")), ([.[1:][] | has("table")] | any)] | map(tostring) | join(" ")' "$T/all.json")"
	jq -j .ddl "$T/merged.json" >"$T/ddl.got"
	check_file "json $p: ddl rebuilt from its parts is ddl.sql" "$DIR/ddl.sql" "$T/ddl.got"
	if [ "$p" = profile ]; then
		jq -j .description "$T/merged.json" >"$T/desc.got"
		check_file "json profile: description rebuilt is description.md" \
		    "$DIR/description.md" "$T/desc.got"
		cols=$(sqlite3 "$P/.dbprint/index/main.sqlite" "SELECT name FROM columns \
		    WHERE table_fqn = '$TBL' AND part = '' AND in_stats = 1 ORDER BY ord" | tr '\n' ' ')
		check_eq "json profile: every statistics column merged back" "$cols" \
		    "$(jq -r '.statistics.columns | keys_unsorted | join(" ")' "$T/merged.json") "
		sqlite3 "$P/.dbprint/index/main.sqlite" "SELECT v.value FROM column_values v \
		    JOIN columns c ON c.id = v.column_id WHERE c.table_fqn = '$TBL' AND \
		    c.name = 'spec_text' AND c.part = '' ORDER BY v.ord" | jq -c . >"$T/vals.want"
		jq -c '.statistics.columns.spec_text.values[].value' "$T/merged.json" >"$T/vals.got"
		check_file "json profile: spec_text's 43 values merged back whole" \
		    "$T/vals.want" "$T/vals.got"
	else
		check_eq "json query: spec_text's 43 entries merged back" 43 \
		    "$(jq '.values.spec_text.entries | length' "$T/merged.json")"
		check_eq "json query: joins kept" '"depot.stock.product"' \
		    "$(jq -c '.joins.refers_to[0].target_table' "$T/merged.json")"
	fi
done

# cursors: stale after a pinned file changed, foreign under other args
ctx_pages "$P" main "{\"table\":\"$TBL\",\"purpose\":\"query\"}" md
c2=$(printf '%s' "$cursors" | head -n 1)
ctx_call "$P" main "{\"table\":\"$TBL\",\"purpose\":\"profile\",\"cursor\":\"$c2\"}"
check_contains "a cursor under other arguments is refused" "not issued by get_table_context" "$out"
ctx_call "$P" main "{\"table\":\"$TBL\",\"purpose\":\"query\",\"cursor\":\"$c2\"}"
check_eq "the cursor resumes the same call" 0 "$rc"
sleep 1
printf '\n-- edited\n' >>"$DIR/ddl.sql"
ctx_call "$P" main "{\"table\":\"$TBL\",\"purpose\":\"query\",\"cursor\":\"$c2\"}"
check_contains "a cursor followed after ddl.sql changed is refused" "changed" "$out"

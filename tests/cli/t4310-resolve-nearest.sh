#!/bin/sh
# t4310-resolve-nearest.sh - resolve_value's nearest match over a long
# list, answered from value_trigrams' posting lists, equals the answer of
# scoring the whole list (the path a list without trigram rows takes):
# many random probes against the generated 10,000-value code column, one
# stdio session per index.  Then a list of 207 values where six tie for the
# fifth place: str(value) breaks the tie on both paths.  Then stored
# matches at every reach of the 10,000-value list.
. "$(dirname "$0")/../lib.sh"

need_gen
P=$T/g
"$GEN" "$P" 1 2 >/dev/null
S=$P/prints/gen/gen/s000/t00000/statistics.yaml

# A "tie" column: 200 fillers sharing no trigram with "wxyz", four values
# at 5/8 (one extra letter inside), six at 4/9 (one letter after) listed
# in reverse order of their text, and "wxyz" itself spelled as no value.
{
	printf '  tie:\n    sql_type: VARCHAR\n    nullable: false\n'
	printf '    classification: categorical\n    cardinality: 210\n'
	printf '    cardinality_method: exact\n    values:\n'
	for v in wxyzf wxyze wxyzd wxyzc wxyzb wxyza wxyzz wxyyz wxxyz wwxyz
	do
		printf '    - value: %s\n      count: 1\n' "$v"
	done
	i=0
	while [ $i -lt 200 ]; do
		printf '    - value: f%04d\n      count: 1\n' $i
		i=$((i + 1))
	done
	printf '    values_coverage: 1.0\n'
} >>"$S"

IX=$T/post.sqlite
BF=$T/whole.sqlite
"$INDEX" --project "$P" --index "$IX" --quiet >"$T/ix.err" 2>&1
check_eq "the generated print indexes" 0 $?
cp "$IX" "$BF"
sqlite3 "$BF" "DELETE FROM value_trigrams"
check "the long lists have posting lists" test "$(sqlite3 "$IX" \
    "SELECT count(DISTINCT column_id) FROM value_trigrams")" -eq 2
check_eq "the copy has none (whole lists scored)" 0 \
    "$(sqlite3 "$BF" "SELECT count(*) FROM value_trigrams")"

# Probes: each a random stored value changed one way (a letter replaced,
# dropped or added; cut at either end; capitalised with a letter replaced;
# one to four random characters; two values run together), plus edge cases.
sqlite3 "$IX" "SELECT v.text FROM column_values v JOIN columns c ON
    c.id = v.column_id WHERE c.name = 'code'" >"$T/vals"
awk -v seed=4310 -v n=160 '
BEGIN { srand(seed); al = "abcdefghijklmnopqrstuvwxyz-0123456789 " }
{ v[NR] = $0 }
function rc() { return substr(al, int(rand() * length(al)) + 1, 1) }
END {
	for (i = 0; i < n; i++) {
		s = v[int(rand() * NR) + 1]
		k = i % 8
		L = length(s)
		p = int(rand() * L) + 1
		if (k == 0) s = substr(s, 1, p - 1) rc() substr(s, p + 1)
		else if (k == 1) s = substr(s, 1, p - 1) substr(s, p + 1)
		else if (k == 2) s = substr(s, 1, p) rc() substr(s, p + 1)
		else if (k == 3) s = substr(s, 1, p)
		else if (k == 4) s = substr(s, p)
		else if (k == 5) s = toupper(substr(s, 1, 1)) substr(s, 2, L - 2) "q"
		else if (k == 6) {
			s = ""
			m = int(rand() * 4) + 1
			for (j = 0; j < m; j++)
				s = s rc()
		} else
			s = s v[int(rand() * NR) + 1]
		print s
	}
	print " "
	print "a"
	print "ba"
	print "bab"
	print "\303\237ar\303\251"
	print "BA-1"
	print "-1"
	print "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
}' "$T/vals" >"$T/probes"

session() {	# session INDEX OUT [VG] - one request per probe, one server
	awk 'BEGIN {
		print "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"," \
		    "\"params\":{\"protocolVersion\":\"2025-06-18\"," \
		    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\"," \
		    "\"version\":\"1\"}}}"
		print "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
	}
	{
		gsub(/\\/, "\\\\"); gsub(/"/, "\\\"")
		printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\"," \
		    "\"params\":{\"name\":\"resolve_value\",\"arguments\":" \
		    "{\"table\":\"gen.s000.t00000\",\"column\":\"code\"," \
		    "\"text\":\"%s\"}}}\n", NR, $0
	}' "$T/probes" | ${3:-} "$SERVE" --project "$P" --index "$1" gen \
	    >"$2" 2>"$2.err"
}
session "$IX" "$T/post.out" "$VG"
check_eq "posting lists: the session ends cleanly" 0 $?
session "$BF" "$T/whole.out"
check_eq "whole lists: the session ends cleanly" 0 $?
n=$(wc -l <"$T/probes" | tr -d ' ')
check_eq "every probe answered, none an error" "$n" \
    "$(jq -c 'select(.id > 0 and .result.isError == false)' "$T/post.out" |
    wc -l | tr -d ' ')"
jq -r 'select(.id > 0) | .result.content[0].text | fromjson | .match' \
    "$T/post.out" | sort | uniq -c >"$T/kinds"
nn=$(awk '$2 == "nearest" { print $1 }' "$T/kinds")
check "most probes are nearest matches ($nn of $n)" test "${nn:-0}" -ge 120
n5=$(jq -r 'select(.id > 0) | .result.content[0].text | fromjson |
    select(.match == "nearest") | .candidates | length' "$T/post.out" |
    grep -c '^5$')
check "many nearest matches hold five candidates ($n5)" test "$n5" -ge 60
check_file "posting lists answer exactly as scoring whole lists" \
    "$T/whole.out" "$T/post.out"

# Six values tie for the fifth place: the first of them by str(value).
want='["nearest",[["wwxyz",0.625],["wxxyz",0.625],["wxyyz",0.625],["wxyzz",0.625],["wxyza",0.4444]]]'
for ix in "$IX" "$BF"; do
	out=$($VG "$SERVE" --project "$P" --index "$ix" gen --call \
	    resolve_value '{"table":"gen.s000.t00000","column":"tie","text":"WXYZ"}' \
	    2>"$T/tie.err")
	check_eq "six tie at the fifth place: str(value) decides ($(basename "$ix"))" \
	    "$want" "$(printf '%s' "$out" |
	    jq -c '[.match, [.candidates[] | [.value, .score]]]')"
done
out=$($VG "$SERVE" --project "$P" --index "$IX" gen --call resolve_value \
    '{"table":"gen.s000.t00000","column":"tie","text":"wxyzb"}' 2>"$T/tie.err")
check_eq "a stored value of the long list is stored, not nearest" \
    '["stored",["wxyzb"]]' \
    "$(printf '%s' "$out" | jq -c '[.match, [.spellings[].value]]')"

# A damaged posting list is an error reply, never a crash or a wrong list.
BAD=$T/bad.sqlite
for blob in 80 0100 0101 FFFFFF7F01 00010001; do
	cp "$IX" "$BAD"
	sqlite3 "$BAD" "UPDATE value_trigrams SET postings = X'$blob'"
	out=$($VG "$SERVE" --project "$P" --index "$BAD" gen --call \
	    resolve_value '{"table":"gen.s000.t00000","column":"tie","text":"wxyz"}' \
	    2>&1)
	check_eq "postings X'$blob': exit 1" 1 $?
	check_contains "postings X'$blob': a malformed row is named" \
	    "index read failed: a malformed value_trigrams row" "$out"
done

# A stored match at every reach of a long list: its first 32 entries are
# scanned through the primary key, the rest found through the partial
# index column_values_by_fold (WHERE ord >= 32); each answer equals what
# the rows themselves say, read by SQLite with no index chosen by us.
for ord in 0 1 30 31 32 33 64 5000 9998 9999; do
	text=$(sqlite3 "$IX" "SELECT v.text FROM column_values v JOIN columns c
	    ON c.id = v.column_id WHERE c.table_fqn = 'gen.s000.t00000' AND
	    c.name = 'code' AND v.ord = $ord")
	want=$(sqlite3 "$IX" "SELECT json_group_array(json(value)) FROM
	    (SELECT v.value FROM column_values v NOT INDEXED JOIN columns c
	    ON c.id = v.column_id WHERE c.table_fqn = 'gen.s000.t00000' AND
	    c.name = 'code' AND v.fold = lower('$text') ORDER BY v.ord)")
	arg=$(jq -cn --arg t "  $(printf '%s' "$text" | tr 'a-z' 'A-Z')" \
	    '{table: "gen.s000.t00000", column: "code", text: $t}')
	out=$($VG "$SERVE" --project "$P" --index "$IX" gen --call \
	    resolve_value "$arg" 2>"$T/st.err")
	check_eq "entry $ord of 10,000, spelled upper-case with spaces: stored ($text)" \
	    "[\"stored\",$want]" \
	    "$(printf '%s' "$out" | jq -c '[.match, [.spellings[].value]]')"
done
check_eq "the partial index holds every entry past the 32nd, and no other" \
    "$(sqlite3 "$IX" "SELECT count(*) FROM column_values NOT INDEXED
    WHERE ord >= 32")" \
    "$(sqlite3 "$IX" "SELECT count(*) FROM column_values INDEXED BY
    column_values_by_fold WHERE column_id > 0 AND ord >= 32")"

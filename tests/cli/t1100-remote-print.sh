#!/bin/sh
# t1100-remote-print.sh - a print served straight from its repository:
# --project given a git address, offline, over bare repositories made
# here from fixtures/rich (the repository root) and fixtures/demo (a
# subpath).  A branch, a tag, a full and a short commit id, a subpath;
# the cache entry (0700, the index outside the clean clone); every tool
# answering as over the local print (the t7100 goldens, and the other
# tools' replies against the same calls over a local copy); a branch
# that moves, seen by dbprint-index and by a live dbprint-serve over
# stdio without restart; the refresh rule and its knob; the remote gone
# (old content, one line); an unreadable clone cloned afresh; an
# unknown ref, git absent from PATH, a URL or ref beginning with '-';
# --read-only and --no-read-only.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ctx7.sh"

export HOME="$T/home" XDG_CACHE_HOME="$T/cache"
mkdir -p "$HOME"
unset DBPRINT_GIT_REFRESH_S
CACHE=$XDG_CACHE_HOME/dbprint
gitq() { git -c user.email=t@example.com -c user.name=t -c init.defaultBranch=main "$@"; }

# The source repository: the rich project at its root, the demo project
# in nested/shop; a tag v1; a bare remote cloned from it.
mkdir "$T/src"
cp -R "$FIX/rich/." "$T/src/"
mkdir -p "$T/src/nested"
cp -R "$FIX/demo" "$T/src/nested/shop"
gitq -C "$T/src" init -q
gitq -C "$T/src" add -A
gitq -C "$T/src" commit -qm "the prints"
gitq -C "$T/src" tag v1
gitq -C "$T/src" branch side
C1=$(git -C "$T/src" rev-parse HEAD)
gitq clone -q --bare "$T/src" "$T/remote.git"
R=file://$T/remote.git

entries() { find "$CACHE" -mindepth 1 -maxdepth 1 ! -name .lock | wc -l | tr -d ' '; }
entry_of() {	# the entry whose clone answers; set by the last clone
	ls -td "$CACHE"/*/ | head -1 | sed 's|/$||'
}

# --- dbprint-index over a branch --------------------------------------------
out=$($VG "$INDEX" --project "$R#main" --quiet 2>&1); rc=$?
check_eq "dbprint-index --project <url>#main: exit 0" 0 "$rc"
check_eq "one cache entry per (remote, ref)" 1 "$(entries)"
E=$(entry_of)
check_eq "the cache directory is 0700" 700 "$(stat -c %a "$CACHE")"
check_eq "the entry is 0700" 700 "$(stat -c %a "$E")"
check "the indexes live in the entry's index/, one per connection" \
    test -f "$E/index/main.sqlite" -a -f "$E/index/other.sqlite"
check_eq "the clone is the branch's commit" "$C1" \
    "$(git -C "$E/repo" rev-parse HEAD)"
check_eq "the clone stays git-status-clean (no index inside it)" "" \
    "$(git -C "$E/repo" status --porcelain)"
check_eq "the index records the clone's print root" \
    "$E/repo/prints/main" \
    "$(sqlite3 "$E/index/main.sqlite" "SELECT value FROM meta WHERE key = 'print_root'")"

# --- every tool, over the remote print as over the local one ----------------
cp -R "$FIX/rich" "$T/rich"
"$INDEX" --project "$T/rich" --quiet >/dev/null 2>&1
G="$SRCDIR/tests/golden/context"
bad=0 n=0
for t in depot.sales.orders depot.sales.customer depot.stock.product \
    depot.stock.movement depot.sales.order_summary; do
	for p in profile query; do
		for f in md json; do
			ctx_pages "$R#main" main \
			    "{\"table\":\"$t\",\"purpose\":\"$p\",\"format\":\"$f\"}" "$f"
			ctx_got "$E/repo"
			n=$((n + 1))
			cmp -s "$G/main/$t.$p.$f" "$T/got" || { bad=$((bad + 1));
			    diff -u "$G/main/$t.$p.$f" "$T/got" | head -20 >&2; }
		done
	done
done
check_eq "get_table_context over the remote print: the $n t7100 goldens" 0 "$bad"

# The other tools: the same call over the remote and the local print.
same() {	# same CONN TOOL JSON
	$VG "$SERVE" --project "$R#main" "$1" --call "$2" "$3" 2>&1 |
	    sed "s|$E/repo|ROOT|g" >"$T/remote.txt"
	$VG "$SERVE" --project "$T/rich" "$1" --call "$2" "$3" 2>&1 |
	    sed "s|$T/rich|ROOT|g" >"$T/local.txt"
	if [ -s "$T/local.txt" ] && cmp -s "$T/local.txt" "$T/remote.txt"; then
		ok "$1 $2 $3: as over the local print"
	else
		fail "$1 $2 $3: as over the local print" \
		    "$(diff -u "$T/local.txt" "$T/remote.txt" | head -30)"
	fi
}
same main list_tables '{}'
same other list_tables '{"pattern":"depot.annex.*"}'
same main search_columns '{"sensitivity":"*"}'
same main search_columns '{"text":"money returned"}'
same main resolve_value '{"table":"depot.sales.orders","column":"status","text":"shipped"}'
same main get_manifest '{}'
same other get_manifest '{}'
same main get_diff '{}'
same main get_reference '{"document":"spec"}'
same other get_table_context '{"table":"depot.annex.bad_annotations"}'

# Resources, over the protocol.
RES='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{}}
{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"dbprint://main/manifest"}}
{"jsonrpc":"2.0","id":4,"method":"resources/templates/list","params":{}}'
printf '%s\n' "$RES" | $VG "$SERVE" --project "$R#main" 2>/dev/null |
    sed "s|$E/repo|ROOT|g" >"$T/remote.rpc"
printf '%s\n' "$RES" | $VG "$SERVE" --project "$T/rich" 2>/dev/null |
    sed "s|$T/rich|ROOT|g" >"$T/local.rpc"
check_eq "resources over stdio: the remote print answers as the local one" \
    "$(cat "$T/local.rpc")" "$(cat "$T/remote.rpc")"
check_eq "resources over stdio: four answers" 4 "$(wc -l <"$T/remote.rpc" | tr -d ' ')"

# --- a tag, a full and a short commit id, a subpath -------------------------
tables() {	# tables ADDRESS [CONN]: list_tables' total
	$VG "$SERVE" --project "$1" ${2:+"$2"} --call list_tables '{}' \
	    2>"$T/tables.err" | jq .total
}
total=$(tables "$T/rich")
check_eq "a tag" "$total" "$(tables "$R#v1")"
check_eq "a full commit id" "$total" "$(tables "$R#$C1")"
short=$(printf %s "$C1" | cut -c1-8)
check_eq "a short commit id" "$total" "$(tables "$R#$short")"
check_eq "a branch named as a local bare repository path" "$total" \
    "$(tables "$T/remote.git#side")"
demo_total=$($VG "$SERVE" --project "$FIX/demo" --index "$T/demo.sqlite" \
    --call list_tables '{}' 2>/dev/null | jq .total)
check_eq "a subpath: the demo project of nested/shop" "$demo_total" \
    "$(tables "$R#main:nested/shop/")"
check_eq "a subpath naming the file itself" "$demo_total" \
    "$(tables "$R#main:nested/shop/.dbprint.yaml")"
out=$($VG "$SERVE" --project "$R#main:nested" --call list_tables '{}' 2>&1); rc=$?
check_eq "a subpath without .dbprint.yaml: exit 1" 1 "$rc"
check_contains "a subpath without .dbprint.yaml: the local --project error" \
    "/repo/nested/.dbprint.yaml. --project names an exact location" "$out"
check_eq "each (remote, ref) has its own entry; a subpath shares it" 5 \
    "$(entries)"
check "a subpath's indexes: index/<its directory>/" \
    test -f "$E/index/nested/shop/demo.sqlite"

# --- the branch moves --------------------------------------------------------
# Drop the first table of the demo manifest, on the branch "main".
m=$T/src/nested/shop/prints/demo/manifest.yaml
first=$(sed -n '/^tables:/{n;p;q}' "$m" | sed 's/^  //; s/:$//')
awk -v fqn="$first" '
	/^tables:/ { intab = 1; print; next }
	intab && /^[^ ]/ { intab = 0 }
	intab && $0 ~ "^  " && $0 !~ "^   " { skip = (index($0, fqn ":") == 3) }
	!(intab && skip) { print }' "$m" >"$T/m.new"
cat "$T/m.new" >"$m"
move() { gitq -C "$T/src" commit -qam "$1" && gitq -C "$T/src" push -q "$T/remote.git" main; }
move "drop $first"
check_eq "within the 15 minutes: no refresh, the old content" \
    "$demo_total" "$(tables "$R#main:nested/shop")"
check_eq "DBPRINT_GIT_REFRESH_S=0: refreshed, the table is gone" \
    "$((demo_total - 1))" \
    "$(DBPRINT_GIT_REFRESH_S=0 tables "$R#main:nested/shop")"
check_eq "a refresh says nothing" "" "$(cat "$T/tables.err")"
check_eq "a pinned commit is never refreshed" "$demo_total" \
    "$(DBPRINT_GIT_REFRESH_S=0 tables "$R#$C1:nested/shop")"
check_eq "a refresh leaves the clone git-status-clean" "" \
    "$(git -C "$E/repo" status --porcelain)"

# dbprint-index: the branch moves again; the index follows.
echo "# a note" >>"$T/src/nested/shop/.dbprint.yaml"
gitq -C "$T/src" rm -q -r "nested/shop/prints/demo/$(printf %s "$first" | tr . /)"
move "remove $first's files"
out=$(DBPRINT_GIT_REFRESH_S=0 $VG "$INDEX" --project "$R#main:nested/shop" --json 2>"$T/err"); rc=$?
check_eq "dbprint-index refreshes the moved branch: exit 0" 0 "$rc"
check_eq "dbprint-index: the new print's tables" "$((demo_total - 1))" \
    "$(printf '%s' "$out" | jq .tables)"

# --- a live server sees the branch move, no restart ---------------------------
mkfifo "$T/fin"
: >"$T/live.out"
LIST='{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}'
DBPRINT_GIT_REFRESH_S=1 $VG "$SERVE" --project "$R#main" <"$T/fin" \
    >"$T/live.out" 2>"$T/live.err" &
pid=$!
exec 3>"$T/fin"
printf '%s\n' "$LIST" | sed 's/ID/1/' >&3
n=0
while [ "$(wc -l <"$T/live.out")" -lt 1 ] && [ $n -lt 300 ]; do
	sleep 0.1; n=$((n + 1))
done
kids=$(ps -o pid= --ppid "$pid" 2>/dev/null)
mr=$T/src/prints/main/manifest.yaml
rfirst=$(sed -n '/^tables:/{n;p;q}' "$mr" | sed 's/^  //; s/:$//')
awk -v fqn="$rfirst" '
	/^tables:/ { intab = 1; print; next }
	intab && /^[^ ]/ { intab = 0 }
	intab && $0 ~ "^  " && $0 !~ "^   " { skip = (index($0, fqn ":") == 3) }
	!(intab && skip) { print }' "$mr" >"$T/mr.new"
cat "$T/mr.new" >"$mr"
move "drop $rfirst"
# The refresher fetches within a second or two; ask until it shows.
before=$(sed -n 1p "$T/live.out" | jq '.result.content[0].text | fromjson | .total')
i=2 after=$before
while [ $i -lt 60 ] && [ "$after" = "$before" ]; do
	sleep 0.5
	printf '%s\n' "$LIST" | sed "s/ID/$i/" >&3
	n=0
	while [ "$(wc -l <"$T/live.out")" -lt $i ] && [ $n -lt 100 ]; do
		sleep 0.1; n=$((n + 1))
	done
	after=$(sed -n "${i}p" "$T/live.out" | jq '.result.content[0].text | fromjson | .total')
	i=$((i + 1))
done
exec 3>&-
wait $pid
rc=$?
check_eq "a live dbprint-serve sees the moved branch without restart" \
    "$((before - 1))" "$after"
check_eq "the live server: exit 0 at EOF" 0 "$rc"
check_eq "the live server: every answer on stdout is a frame" "" \
    "$(jq -c 'select(.jsonrpc != "2.0")' "$T/live.out")"
check_eq "the live server ran one refresher child" 1 \
    "$(printf '%s\n' $kids | grep -c .)"
left=""
for k in $kids; do kill -0 "$k" 2>/dev/null && left="$left $k"; done
check_eq "the live server: its refresher is gone with it" "" "$left"

# --- the remote gone: the old content, one line --------------------------------
mv "$T/remote.git" "$T/gone.git"
out=$(DBPRINT_GIT_REFRESH_S=0 $VG "$SERVE" --project "$R#main:nested/shop" \
    --call list_tables '{}' 2>"$T/err"); rc=$?
check_eq "remote gone: still answers (exit 0)" 0 "$rc"
check_eq "remote gone: the old content" "$((demo_total - 1))" \
    "$(printf '%s' "$out" | jq .total)"
check_eq "remote gone: exactly one line on stderr" 1 "$(wc -l <"$T/err" | tr -d ' ')"
check_contains "remote gone: the line names the address and the age" \
    "cannot refresh $R#main" "$(cat "$T/err")"
check_contains "remote gone: ... how old the copy is" "serving the copy fetched" \
    "$(cat "$T/err")"
out=$(DBPRINT_GIT_REFRESH_S=0 $VG "$INDEX" --project "$R#main:nested/shop" \
    --quiet 2>&1); rc=$?
check_eq "remote gone: dbprint-index still indexes the clone (exit 0)" 0 "$rc"
check_eq "remote gone: dbprint-index says it in one line" 1 \
    "$(printf '%s\n' "$out" | grep -c "cannot refresh")"
mv "$T/gone.git" "$T/remote.git"

# --- an unreadable clone is cloned afresh ------------------------------------
rm -rf "$E/repo/.git"
check_eq "an unreadable clone is cloned afresh" "$((total - 1))" \
    "$(tables "$R#main")"
check_eq "... and reads again" "$(git -C "$T/remote.git" rev-parse main)" \
    "$(git -C "$E/repo" rev-parse HEAD)"
check_eq "... leaving no temporary directory" "" \
    "$(find "$CACHE" -name '.*.new.*' -o -name '.*.old.*')"

# --- refusals ----------------------------------------------------------------
before=$(entries)
out=$($VG "$SERVE" --project "$R#no-such-branch" --call list_tables '{}' 2>&1); rc=$?
check_eq "an unknown ref: exit 1" 1 "$rc"
check_eq "an unknown ref: one error naming it" \
    "error: unknown ref 'no-such-branch' in $R: no branch, tag or commit of that name" "$out"
check_eq "an unknown ref leaves no cache entry" "$before" "$(entries)"
check_eq "... and no temporary directory" "" "$(find "$CACHE" -name '.*.new.*')"
out=$($VG "$INDEX" --project "$R#deadbeef" 2>&1); rc=$?
check_eq "an unknown commit id (dbprint-index): exit 1" 1 "$rc"
check_contains "an unknown commit id: named" "unknown ref 'deadbeef'" "$out"
out=$($VG "$SERVE" --project "file://$T/nothing.git#main" --call list_tables '{}' 2>&1); rc=$?
check_eq "a remote that is not there: exit 1" 1 "$rc"
check_contains "a remote that is not there: cannot clone, git's reason" \
    "error: cannot clone file://$T/nothing.git: fatal:" "$out"
check_eq "a failed first clone leaves no cache entry" "$before" "$(entries)"
out=$($VG "$SERVE" --project "-oProxyCommand=touch $T/pwned#main" --call list_tables '{}' 2>&1); rc=$?
check_eq "a URL beginning with '-': refused, exit 1" \
    "1 error: a git URL may not begin with '-'" "$rc $out"
out=$($VG "$INDEX" --project "$R#--upload-pack=touch $T/pwned" 2>&1); rc=$?
check_eq "a ref beginning with '-': refused, exit 1" \
    "1 dbprint-index: a git ref may not begin with '-'" "$rc $out"
check "nothing ran" test ! -e "$T/pwned"
out=$($VG "$SERVE" --project "https://github.com/acme" --call list_tables '{}' 2>&1); rc=$?
check_eq "a forge URL that names no repository: exit 1" 1 "$rc"
check_contains "... says which forms are read" "<git-url>#<ref>[:<subpath>]" "$out"

# git absent from PATH: a fresh cache, so a clone is needed.
mkdir "$T/nogit"
out=$(XDG_CACHE_HOME=$T/cache2 PATH=$T/nogit $VG "$SERVE" --project "$R#main" \
    --call list_tables '{}' 2>&1); rc=$?
check_eq "git absent: exit 1" 1 "$rc"
check_contains "git absent: one error saying how to install it" \
    "apt-get install git (Debian, Ubuntu), brew install git (macOS), pkg install git (FreeBSD)" "$out"
check_eq "git absent: one line" 1 "$(printf '%s\n' "$out" | wc -l | tr -d ' ')"
check_eq "git absent: no cache entry" 0 \
    "$(find "$T/cache2/dbprint" -mindepth 1 -maxdepth 1 ! -name .lock | wc -l | tr -d ' ')"

# --- --read-only and --no-read-only ---------------------------------------------
out=$($VG "$SERVE" --project "$T/rich" --read-only --call list_tables '{}' 2>&1); rc=$?
check_eq "--read-only is accepted (a no-op)" "0 $total" "$rc $(printf '%s' "$out" | jq .total)"
out=$($VG "$SERVE" --project "$T/rich" --no-read-only </dev/null 2>&1); rc=$?
check_eq "--no-read-only: exit 1, upstream's sentence" \
    "1 Only --read-only is supported." "$rc $out"
out=$($VG "$SERVE" --project "$T/nowhere" --transport http --no-read-only </dev/null 2>&1); rc=$?
check_eq "--no-read-only is checked first (before the transport and the project)" \
    "1 Only --read-only is supported." "$rc $out"
out=$($VG "$SERVE" --no-read-only --bogus </dev/null 2>&1); rc=$?
check_eq "an unknown option is still a usage error first (exit 2)" 2 "$rc"
check_contains "--help shows --read-only" "[--read-only]" "$($SERVE --help)"

#!/bin/sh
# t0950-version.sh - one version everywhere: DBP_VERSION in
# indexer/dbprint.h is what `make -s version` prints, what both programs'
# --version and the server's serverInfo.version say, what the man pages'
# .Os is stamped with (make man), the first entry of debian/changelog, and
# the name make dist gives the tarball.
. "$SRCDIR/tests/lib.sh"

V=$(sed -n 's/.*define DBP_VERSION[^"]*"\([^"]*\)".*/\1/p' \
    "$SRCDIR/indexer/dbprint.h")
case $V in
[0-9]*.[0-9]*) ok "DBP_VERSION is a version: $V" ;;
*) fail "DBP_VERSION is a version" "got '$V' from indexer/dbprint.h" ;;
esac

# The Makefile's own reading, from a clean environment (no parent make's
# flags or variables).
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SRCDIR" "$@"
}
check_eq "make -s version says DBP_VERSION" "$V" "$(mk version)"

check_eq "dbprint-index --version" "dbprint-index $V" \
    "$($VG "$INDEX" --version 2>&1)"
check_eq "dbprint-serve --version" "dbprint-serve $V" \
    "$($VG "$SERVE" --version 2>&1)"
check_eq "dbprint-index -V" "dbprint-index $V" "$($VG "$INDEX" -V 2>&1)"
check_eq "dbprint-serve -V" "dbprint-serve $V" "$($VG "$SERVE" -V 2>&1)"

# serverInfo from an initialize over stdio.
demo_copy
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t0950","version":"1"}}}' |
    $VG "$SERVE" --project "$P" >"$T/init.json" 2>"$T/init.err"
check_eq "initialize: serverInfo is dbprint $V" "dbprint $V" \
    "$(jq -r '.result.serverInfo | "\(.name) \(.version)"' "$T/init.json" 2>&1)"

# The man pages as built (and installed): .Os dbprint VERSION.
for m in dbprint-index.1 dbprint-serve.1 dbprint-index.5; do
	check_eq "$m: .Os names the version" ".Os dbprint $V" \
	    "$(grep '^\.Os' "$BUILD_ABS/man/$m" 2>&1)"
done

# debian/changelog's newest entry: "dbprint (VERSION) ...".
check_eq "debian/changelog's newest entry is DBP_VERSION" "$V" \
    "$(sed -n '1s/^dbprint (\([^)]*\)).*/\1/p' "$SRCDIR/debian/changelog")"

# The tarball make dist writes (a dry run: no git needed).
check_contains "make dist writes build/dbprint-$V.tar.gz" \
    "-o build/dbprint-$V.tar.gz HEAD" "$(mk -n dist 2>&1)"

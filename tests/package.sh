#!/bin/sh
# package.sh - what `make check-package` runs after `make deb`: the built
# .deb checked as a user gets it.  It is unpacked with dpkg -x into a
# scratch root (the machine is not touched), and the installed programs
# answer the demo print (fixtures/demo) from there.
#
#   sh tests/package.sh [DEB]   default build/dbprint_VERSION_ARCH.deb
#
# Prints one TAP line per check and exits non-zero when one failed.
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(sed -n 's/.*define DBP_VERSION[^"]*"\([^"]*\)".*/\1/p' \
    "$SRCDIR/indexer/dbprint.h")
DEB=${1:-$SRCDIR/build/dbprint_${VERSION}_$(dpkg --print-architecture).deb}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
n=0
bad=0

ok() {
	n=$((n + 1)); echo "ok $n - $1"
}
fail() {	# fail "what" "detail"
	n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"
	printf '%s\n' "$2" | head -40 | sed 's/^/#   /'
}
check() {	# check "what" command...
	what=$1; shift
	if "$@" >"$T/.out" 2>&1; then ok "$what"; else
		fail "$what" "$(cat "$T/.out")"; fi
}
check_eq() {	# check_eq "what" expected actual
	if [ "$2" = "$3" ]; then ok "$1"; else
		fail "$1" "expected: $2
actual:   $3"; fi
}

if [ ! -f "$DEB" ]; then
	echo "package: no $DEB (run make deb)" >&2
	exit 1
fi
DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")	# apt-get wants a path
ROOT=$T/root
BIN=$ROOT/usr/bin
MAN=$ROOT/usr/share/man

check "dpkg -x unpacks $(basename "$DEB")" dpkg -x "$DEB" "$ROOT"
check_eq "the package's version is DBP_VERSION" "$VERSION" \
    "$(dpkg-deb -f "$DEB" Version)"

# Lintian: no error (warnings are printed, and counted by the lead).
if command -v lintian >/dev/null; then
	lintian --fail-on error -I "$DEB" >"$T/lintian" 2>&1
	rc=$?
	grep -v 'running with root privileges' "$T/lintian" | sed 's/^/# /'
	if [ $rc -eq 0 ]; then ok "lintian reports no error"; else
		fail "lintian reports no error" "$(cat "$T/lintian")"; fi
else
	fail "lintian reports no error" \
	    "lintian is not installed (tests/deps.sh --package)"
fi

# Every library the programs link is on this machine, and apt would
# accept the package's Depends here.
for p in dbprint-index dbprint-serve; do
	if [ -x "$BIN/$p" ] && ldd "$BIN/$p" >"$T/ldd" 2>&1 &&
	    ! grep -q 'not found' "$T/ldd"; then
		ok "$p: every shared library resolves"
	else
		fail "$p: every shared library resolves" "$(cat "$T/ldd")"
	fi
	check_eq "$p --version is DBP_VERSION" "$p $VERSION" \
	    "$("$BIN/$p" --version 2>&1)"
done
if command -v apt-get >/dev/null; then
	check "apt-get install ./$(basename "$DEB") would succeed (simulated)" \
	    apt-get install -s -q "$DEB"
fi

# The demo print, answered by the installed programs.
cp -R "$SRCDIR/fixtures/demo" "$T/demo"
rm -rf "$T/demo/.dbprint/index"
check "installed dbprint-index --strict indexes the demo print" \
    "$BIN/dbprint-index" --strict --project "$T/demo"
want=$(for d in "$T"/demo/prints/demo/*/*/*/; do
	d=${d%/}; t=${d##*/}; d=${d%/*}; s=${d##*/}; d=${d%/*}
	echo "${d##*/}.$s.$t"
done | LC_ALL=C sort)
case $want in
'' | *'*'*)
	fail "the demo print has tables" "none under fixtures/demo/prints/demo" ;;
esac
if "$BIN/dbprint-serve" --project "$T/demo" --call list_tables \
    >"$T/tables.json" 2>"$T/err"; then
	got=$(sed -n 's/^ *"\([^"]*\.[^"]*\.[^"]*\)",\{0,1\}$/\1/p' \
	    "$T/tables.json" | LC_ALL=C sort)
	nt=$(printf '%s\n' "$want" | wc -l | tr -d ' ')
	check_eq "installed dbprint-serve --call list_tables: the demo's $nt tables" \
	    "$want" "$got"
else
	fail "installed dbprint-serve --call list_tables: the demo's tables" \
	    "$(cat "$T/err")"
fi

# The man pages: where man(1) looks, lint-clean, stamped with the version.
for m in man1/dbprint-index.1 man1/dbprint-serve.1 man5/dbprint-index.5; do
	f=$MAN/$m.gz
	if [ ! -f "$f" ]; then
		fail "$m is installed" "no $f"
		continue
	fi
	if command -v mandoc >/dev/null; then
		check "$m: mandoc -Tlint is clean" mandoc -Tlint -Wwarning "$f"
	else
		fail "$m: mandoc -Tlint is clean" "mandoc is not installed"
	fi
	check_eq "$m: .Os names the version" ".Os dbprint $VERSION" \
	    "$(gzip -dc "$f" | grep '^\.Os')"
done
check "the copyright file is installed" \
    test -s "$ROOT/usr/share/doc/dbprint/copyright"

echo "1..$n"
[ $bad -eq 0 ] || { echo "package: $bad of $n failed" >&2; exit 1; }
exit 0

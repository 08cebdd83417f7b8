#!/bin/sh
# deps.sh - make sure the Debian packages a target needs are here.
#
#   sh tests/deps.sh            what building needs (make, make install)
#   sh tests/deps.sh --test     ... and what the tests need (make check)
#   sh tests/deps.sh --package  ... and what make deb and make check-package
#                               need (debhelper, lintian, mandoc, git)
#   sh tests/deps.sh PKG ...    ... and these packages too (make fuzz: clang)
#
# As root it installs what is missing with apt-get; otherwise it prints
# the exact command to run and fails.  Where there is no dpkg (macOS, the
# BSDs) it checks nothing: the README lists each platform's packages.
BUILD_PKGS="gcc make pkg-config libsqlite3-dev libyaml-dev libcjson-dev
libxxhash-dev libmicrohttpd-dev libseccomp-dev"
TEST_PKGS="libcmocka-dev sqlite3 valgrind jq curl git"
PACKAGE_PKGS="debhelper dpkg-dev lintian mandoc git"
command -v dpkg-query >/dev/null 2>&1 || exit 0
PKGS=$BUILD_PKGS
while [ $# -gt 0 ]; do
	case $1 in
	--test) PKGS="$PKGS $TEST_PKGS" ;;
	--package) PKGS="$PKGS $PACKAGE_PKGS" ;;
	*) break ;;
	esac
	shift
done
PKGS="$PKGS $*"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 && apt-get install -y -qq $missing >&2 && exit 0
	echo "deps: apt-get failed" >&2
	exit 1
fi
echo "deps: missing packages; run as root:" >&2
echo "    apt-get update && apt-get install -y$missing" >&2
exit 1

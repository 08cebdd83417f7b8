#!/bin/sh
# deps.sh - make sure the Debian packages the build and tests need are here.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails.
PKGS="gcc make pkg-config libsqlite3-dev libyaml-dev libcjson-dev libxxhash-dev
libcmocka-dev libmicrohttpd-dev libseccomp-dev sqlite3 valgrind jq curl"
# Extra packages a target needs beyond the build (make fuzz: clang).
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

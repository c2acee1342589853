#!/bin/sh
# Install the Debian packages that fetching, building and testing need.
# As root, missing packages are installed with apt-get; otherwise the one
# command to run is printed and we stop.

. "$(dirname "$0")/config.sh"

# Build: what Debian's own git package links (zlib, libcurl, expat, PCRE2)
# plus upstream's default OpenSSL and Tcl use. Fetch: curl, xz, patch.
# Tests: perl (prove), python3.
PACKAGES="gcc make libc6-dev zlib1g-dev libcurl4-gnutls-dev libexpat1-dev
libpcre2-dev libssl-dev gettext tcl perl python3 curl xz-utils patch
ca-certificates apt"
# make bench: hyperfine times the commands; bench/evolve.sh compares with
# Mercurial's evolve extension.
test "$1" = bench && PACKAGES="$PACKAGES hyperfine mercurial mercurial-evolve"
# make install, check-help: the manual pages, built as Debian builds git's.
test "$1" = docs && PACKAGES="$PACKAGES asciidoctor xmlto docbook-xsl-ns"

if ! command -v dpkg-query >/dev/null 2>&1
then
	say "not a Debian system: make sure the equivalent of these is installed:"
	echo "  $PACKAGES" | tr '\n' ' '; echo
	exit 0
fi

missing=
for p in $PACKAGES
do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done

test -z "$missing" && exit 0

if test "$(id -u)" != 0
then
	printf 'error: missing packages; run this, then try again:\n' >&2
	printf '  sudo apt-get install -y%s\n' "$missing" >&2
	exit 1
fi

say "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "apt-get update failed"
apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	die "apt-get install failed:$missing"

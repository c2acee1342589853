#!/bin/sh
# Put the pristine upstream source in build/upstream, from (in order):
#   UPSTREAM_TARBALL=<file>   a release tarball, checked against the pin;
#   UPSTREAM_GIT=<git.git>    a clone of git.git, tag v$UPSTREAM_VERSION;
#   Debian's source package   the orig tarball only, checked against the pin.
# The machine's apt configuration is left alone: the deb-src index lives
# under build/apt.

. "$(dirname "$0")/config.sh"

dest=$build/upstream
stamp=$dest/.evolve-upstream
want="${UPSTREAM_TARBALL:+tarball $UPSTREAM_TARBALL}${UPSTREAM_GIT:+git $UPSTREAM_GIT}"
want=${want:-debian $UPSTREAM_ORIG}

if test -f "$stamp" && test "$(cat "$stamp")" = "$want"
then
	exit 0
fi

verify () {
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	test "$sum" = "$UPSTREAM_SHA256" && return 0
	echo "error: $1: sha256 $sum, expected $UPSTREAM_SHA256" >&2
	return 1
}

apt_opts () {
	echo "-o Dir::Etc::SourceList=/dev/null" \
	     "-o Dir::Etc::SourceParts=$build/apt/sources.list.d" \
	     "-o Dir::State::Lists=$build/apt/lists" \
	     "-o Dir::Cache=$build/apt/cache" \
	     "-o Debug::NoLocking=1"
}

# Ask the Debian source index which pool directory holds the orig tarball.
debian_orig_url () {
	mkdir -p "$build/apt/sources.list.d" "$build/apt/lists/partial" \
		"$build/apt/cache/archives/partial" || return 1
	cat >"$build/apt/sources.list.d/upstream.sources" <<-SRC
	Types: deb-src
	URIs: $DEBIAN_MIRROR
	Suites: $UPSTREAM_SUITES
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SRC
	apt-get $(apt_opts) update -q >"$build/apt/update.log" 2>&1 || {
		echo "error: apt-get update of the deb-src index failed" \
		     "(see $build/apt/update.log)" >&2
		return 1
	}
	apt-cache $(apt_opts) showsrc git 2>/dev/null |
	# A stanza lists its files before its Directory: decide at its end.
	awk -v f="$UPSTREAM_ORIG" -v m="$DEBIAN_MIRROR" '
		/^$/ { if (has && dir != "") { print m "/" dir "/" f; exit } has = 0; dir = "" }
		/^Directory:/ { dir = $2 }
		$NF == f { has = 1 }
		END { if (has && dir != "") print m "/" dir "/" f }' | head -n 1
}

fetch_debian () {
	tarball=$build/dl/$UPSTREAM_ORIG
	if test -f "$tarball" && verify "$tarball"
	then
		return 0
	fi
	mkdir -p "$build/dl" || return 1
	url=$(debian_orig_url)
	if test -z "$url"
	then
		echo "warning: no suite in '$UPSTREAM_SUITES' lists $UPSTREAM_ORIG;" \
		     "trying the pool directly" >&2
		url=$DEBIAN_MIRROR/pool/main/g/git/$UPSTREAM_ORIG
	fi
	say "downloading $url"
	if ! curl -fsSL --retry 3 -o "$tarball.part" "$url" ||
	   ! verify "$tarball.part"
	then
		rm -f "$tarball.part"
		cat >&2 <<-MSG
		error: could not get $UPSTREAM_ORIG (sha256 $UPSTREAM_SHA256)
		from $url.
		Download the git $UPSTREAM_VERSION release tarball yourself (Debian
		mirror or snapshot.debian.org, pool/main/g/git/) and run
		    make UPSTREAM_TARBALL=/path/to/it
		or point at a clone of git.git with the v$UPSTREAM_VERSION tag:
		    make UPSTREAM_GIT=/path/to/git.git
		MSG
		return 1
	fi
	mv "$tarball.part" "$tarball"
}

extract_tarball () {
	tar -C "$dest.tmp" --strip-components=1 -xJf "$1" ||
		die "cannot extract $1"
}

rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp" || exit 1

if test -n "$UPSTREAM_TARBALL"
then
	test -f "$UPSTREAM_TARBALL" || die "UPSTREAM_TARBALL: no such file: $UPSTREAM_TARBALL"
	verify "$UPSTREAM_TARBALL" ||
		die "UPSTREAM_TARBALL is not git $UPSTREAM_VERSION (set UPSTREAM_SHA256 to override the pin)"
	extract_tarball "$UPSTREAM_TARBALL"
elif test -n "$UPSTREAM_GIT"
then
	tag=v$UPSTREAM_VERSION
	git -C "$UPSTREAM_GIT" rev-parse -q --verify "refs/tags/$tag^{commit}" >/dev/null ||
		die "UPSTREAM_GIT: $UPSTREAM_GIT has no tag $tag (git fetch --tags?)"
	say "exporting $tag from $UPSTREAM_GIT"
	git -C "$UPSTREAM_GIT" archive --format=tar "$tag" | tar -C "$dest.tmp" -xf - ||
		die "cannot export $tag from $UPSTREAM_GIT"
	# Release tarballs carry the version; an archive of the tag does not.
	echo "$UPSTREAM_VERSION" >"$dest.tmp/version"
else
	fetch_debian || exit 1
	extract_tarball "$build/dl/$UPSTREAM_ORIG"
fi

test -f "$dest.tmp/Makefile" && test -f "$dest.tmp/git.c" ||
	die "the upstream source does not look like git"
echo "$want" >"$dest.tmp/.evolve-upstream"
mv "$dest.tmp" "$dest"

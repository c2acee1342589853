# Shared settings for the build scripts; sourced, not run.
# The one upstream this series is written against, pinned.

UPSTREAM_VERSION=2.55.0
UPSTREAM_ORIG=git_${UPSTREAM_VERSION}.orig.tar.xz
UPSTREAM_SHA256=${UPSTREAM_SHA256:-457fdb04dc8728e007d4688695e6912e6f680727920f2a40bf11eacc17505357}
# Debian suites whose source index carries the pinned version (sid first;
# testing once it has migrated there).
UPSTREAM_SUITES=${UPSTREAM_SUITES:-"sid testing"}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build

die () {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

say () {
	printf '==> %s\n' "$*" >&2
}

# Our files, as paths relative to the top: all but the project's own
# machinery (this list is the README's directory map).
overlay_files () {
	(cd "$top" && find . \
		\( -path ./.git -o -path ./build -o -path ./scripts \
		   -o -path ./patches -o -path ./.ci -o -path ./bench \
		   -o -path ./demo -o -path ./fuzz \) -prune \
		-o -type f ! -name README.md ! -name Makefile ! -name .gitignore \
		-print) | sed 's|^\./||' | sort
}

series_patches () {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/patches/series"
}

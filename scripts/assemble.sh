#!/bin/sh
# Assemble the patched tree in build/git from the pristine upstream in
# build/upstream, our patches (patches/series, in order) and our own files
# (everything in this repository outside the project's directories below).
#
# Files are copied only when their content changes, so that git's Makefile
# rebuilds only what an edit touches. The tree is staged first, in
# build/stage, so that a patch that no longer applies leaves build/git alone.

. "$(dirname "$0")/config.sh"

upstream=$build/upstream
tree=${1:-$build/git}
stage=$build/stage
touched=$tree/.evolve-touched

test -f "$upstream/.evolve-upstream" || die "no upstream source; run 'make fetch'"

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

# Upstream files a patch modifies (its "+++ b/<path>" lines).
patched_files () {
	series_patches | while read -r p
	do
		sed -n -e 's|^+++ b/\([^	]*\).*|\1|p' "$top/patches/$p"
	done | sort -u
}

# A tree assembled from another upstream source is started afresh.
if test -d "$tree" &&
   ! cmp -s "$upstream/.evolve-upstream" "$tree/.evolve-upstream"
then
	say "upstream source changed: removing $tree"
	rm -rf "$tree" || exit 1
fi

if ! test -d "$tree"
then
	say "copying upstream into $tree"
	cp -a "$upstream" "$tree.tmp" && mv "$tree.tmp" "$tree" || exit 1
	: >"$touched"
fi

rm -rf "$stage" && mkdir -p "$stage" || exit 1

patched=$(patched_files)
for f in $patched
do
	test -f "$upstream/$f" || continue
	mkdir -p "$stage/$(dirname "$f")" && cp -p "$upstream/$f" "$stage/$f" || exit 1
done

series_patches | while read -r p
do
	patch -s -p1 -N -d "$stage" --no-backup-if-mismatch -r - <"$top/patches/$p" ||
		die "patches/$p does not apply to upstream $UPSTREAM_VERSION"
done || exit 1

ours=$(overlay_files)
for f in $ours
do
	test -f "$upstream/$f" &&
		die "$f is an upstream file: change it with a patch, not a copy"
	mkdir -p "$stage/$(dirname "$f")" && cp -p "$top/$f" "$stage/$f" || exit 1
done

# Sync every path we touch now or touched last time (so that dropping a
# patch or a file restores upstream), copying only what differs.
{ printf '%s\n' $patched $ours; cat "$touched"; } | sed "/^$/d" | sort -u >"$stage.list"
while read -r f
do
	if test -f "$stage/$f"
	then
		src=$stage/$f
	elif test -f "$upstream/$f"
	then
		src=$upstream/$f
	else
		rm -f "$tree/$f"
		continue
	fi
	if ! cmp -s "$src" "$tree/$f"
	then
		mkdir -p "$tree/$(dirname "$f")" && cp "$src" "$tree/$f" || exit 1
		test -x "$src" && chmod +x "$tree/$f"
	fi
done <"$stage.list"
printf '%s\n' $patched $ours | sed '/^$/d' >"$touched"
rm -rf "$stage" "$stage.list"

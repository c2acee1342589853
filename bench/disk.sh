#!/bin/sh
# bench/disk.sh: what changes cost on disk beyond their objects.
#
# Makes the same history three times, with the unpatched git (vanilla),
# with the patched one (patched) and with the patched one logging every
# change in a reflog (core.logAllRefUpdates=always, which is what every
# change cost before changes stopped keeping reflogs): a line of <n>
# commits cherry-picked in one process, then rebased with
# --force-rebase, so that every change has two versions; then "git gc".
# Prints the disk used (du, in KiB: blocks, as the disk pays them) by
# objects, refs and reflogs, and what the changes add beyond their
# objects as a share of the objects (issue: at most 10 %).
#
# Usage: bench/disk.sh [<number of commits>...]   (default: 1000)
#        REF_FORMAT=reftable bench/disk.sh

bench=disk
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla

# kib <path>...: the disk blocks of the paths that exist, in KiB.
kib () {
	for path
	do
		test ! -e "$path" || du -sk "$path"
	done | awk '{ s += $1 } END { print s + 0 }'
}

# make_history <git command> <dir> <n>
make_history () {
	git=$1 dir=$2 n=$3
	$vanilla init -q -b main --ref-format="${REF_FORMAT:-files}" "$dir"
	(
		cd "$dir"
		i=0
		{
			printf 'commit refs/heads/main\nmark :1\n'
			printf 'committer C <c@example.com> 1700000000 +0000\n'
			printf 'data <<EOT\nbase\nEOT\nM 644 inline base\ndata <<EOT\nbase\nEOT\n\n'
			while test $i -lt "$n"
			do
				i=$((i + 1))
				printf 'commit refs/heads/line\n'
				printf 'committer C <c@example.com> %d +0000\n' $((1700000000 + i))
				printf 'data <<EOT\nwork item %d\nEOT\n' $i
				test $i != 1 || printf 'from :1\n'
				printf 'M 644 inline d%d/f%d\ndata <<EOT\n%d\nEOT\n\n' \
					$((i / 100)) $i $i
			done
		} | $vanilla fast-import --quiet
		$vanilla checkout -q main
		$git cherry-pick main..line >/dev/null
		$git rebase -q --force-rebase HEAD~"$n"
		$vanilla branch -D -q line
		$vanilla gc -q
	)
}

row () {
	objects=$(kib "$2/.git/objects")
	refs=$(kib "$2/.git/refs" "$2/.git/packed-refs" "$2/.git/reftable")
	logs=$(kib "$2/.git/logs")
	printf '%-8s %-10s %10s %10s %10s\n' "$3" "$1" "$objects" "$refs" "$logs"
}

printf '%-8s %-10s %10s %10s %10s\n' commits git objects/KiB refs/KiB logs/KiB
for n in ${*:-1000}
do
	make_history "$vanilla" "$work/v$n" "$n"
	make_history "$patched" "$work/p$n" "$n"
	make_history "$patched -c core.logAllRefUpdates=always" "$work/a$n" "$n"
	row vanilla "$work/v$n" "$n"
	row patched "$work/p$n" "$n"
	pobjects=$objects prefs=$refs plogs=$logs
	row reflogs "$work/a$n" "$n"
	aobjects=$objects arefs=$refs alogs=$logs
	row vanilla "$work/v$n" "$n" >/dev/null
	for which in patched reflogs
	do
		case $which in
		patched) o=$pobjects r=$prefs l=$plogs ;;
		reflogs) o=$aobjects r=$arefs l=$alogs ;;
		esac
		awk -v which="$which" -v o="$o" -v extra=$((r + l - refs - logs)) \
			'BEGIN { printf "  %s: changes add %d KiB beyond their objects, %.1f %% of the %d KiB of objects\n",
				 which, extra, 100 * extra / o, o }'
	done
done
echo "($(nproc) cores, $(uname -m), ${REF_FORMAT:-files} refs; reflogs = patched with core.logAllRefUpdates=always)"

#!/bin/sh
# bench/obslog.sh: `git log --obslog` of a change with 1,000 versions (made
# by 999 `git commit --amend`s of the patched git), against the unpatched
# `git log --oneline` of the same change ref, which walks the same
# metacommits and commits as history. Medians, ratio patched/vanilla.
#
# Usage: bench/obslog.sh [<number of versions>]   (default 1000; RUNS=32 ROUNDS=8)

bench=obslog
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine

n=${1:-1000}
repo=$work/repo
"$patched" init -q -b main "$repo"
(
	cd "$repo"
	echo 0 >file && "$patched" add file && "$patched" commit -q -m "the change"
	i=1
	while test $i -lt "$n"
	do
		echo $i >file
		"$patched" commit -q -a --amend --no-edit --date="@$((1700000000 + i)) +0000"
		i=$((i + 1))
	done
	"$patched" gc -q
)
change=$("$patched" -C "$repo" change list)
test "$("$patched" -C "$repo" log --obslog --oneline | wc -l)" = "$n" || {
	echo "git log --obslog does not show the $n versions" >&2
	exit 1
}

time_both "$vanilla -C $repo log --oneline refs/$change" \
	"$patched -C $repo log --obslog --oneline $change"
printf '%-44s %10s\n' command median/ms \
	"vanilla log --oneline refs/$change" "$v" \
	"patched log --obslog --oneline $change" "$p" \
	ratio "$(ratio "$v" "$p")"
# By default each version also says what it changed from the previous one.
time_both "$vanilla -C $repo log refs/$change" \
	"$patched -C $repo log --obslog $change"
printf '%-44s %10s\n' \
	"vanilla log refs/$change" "$v" \
	"patched log --obslog $change" "$p" \
	ratio "$(ratio "$v" "$p")"
echo "($n versions, $(runs_note))"

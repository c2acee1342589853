#!/bin/sh
# bench/list.sh: `git change list` with 10,000 changes (a tenth of them
# amended once), patched, against the unpatched `git for-each-ref` listing
# the same refs, side by side in one run; and `git change list -v` (state
# and subject of each change) against `for-each-ref` printing the object
# name and subject of each ref. Medians, ratio patched/vanilla.
#
# Usage: bench/list.sh [<number of changes>]   (default 10000; RUNS=32 ROUNDS=8)

bench=list
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine

n=${1:-10000}
repo=$work/repo
make_changes_repo "$n" "$repo"

# The patched list must list every change before it is timed.
test "$("$patched" -C "$repo" change list | wc -l)" = "$n" || {
	echo "git change list does not list the $n changes" >&2
	exit 1
}

printf '%-44s %10s\n' command median/ms
row () {
	time_both "$vanilla -C $repo $1" "$patched -C $repo $2"
	printf '%-44s %10s\n' "vanilla $1" "$v" "patched $2" "$p"
	printf '%-44s %10s\n' "ratio" "$(ratio "$v" "$p")"
}
row "for-each-ref refs/metas/" "change list"
row "for-each-ref --format='%(refname:lstrip=1) %(objectname:short) %(subject)' refs/metas/" \
	"change list -v"
echo "($n changes, $(runs_note))"

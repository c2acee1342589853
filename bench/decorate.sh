#!/bin/sh
# bench/decorate.sh: what changes cost the commands every user runs, in
# a repository with 10,000 changes (a tenth of them amended once):
# `git log -1 --decorate` (change names and obsolete commits are
# decorations) and `git merge-base` of two ordinary commits (which,
# without --changes, must cost what upstream's does), patched against the
# unpatched build on the same repository, side by side in one run, before
# and after `git gc` (which packs the metacommits). Medians, ratios.
#
# Usage: bench/decorate.sh [<number of changes>]   (default 10000; RUNS=32 ROUNDS=8)

bench=decorate
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine

n=${1:-10000}
repo=$work/repo
make_changes_repo "$n" "$repo"
a=$("$vanilla" -C "$repo" rev-parse side~5)
b=$("$vanilla" -C "$repo" rev-parse side~$((n / 3)))

printf '%-44s %10s\n' command median/ms
row () {
	time_both "$vanilla -C $repo $1" "$patched -C $repo $1"
	printf '%-44s %10s\n' "vanilla $1" "$v" "patched $1" "$p"
	printf '%-44s %10s\n' "ratio" "$(ratio "$v" "$p")"
}
row "log -1 --decorate --oneline side"
row "merge-base $a $b"
"$vanilla" -C "$repo" gc -q
echo "(after git gc)"
row "log -1 --decorate --oneline side"
echo "($n changes, $(runs_note))"

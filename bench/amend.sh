#!/bin/sh
# bench/amend.sh: `git commit --amend` and `git commit` with 0, 1,000 and
# 10,000 existing changes, patched (build/bin/git) against unpatched
# (build/vanilla/bin/git), side by side in one run, with hyperfine.
# Prints the median of each and the ratio patched/vanilla.
#
# The two builds take turns (lib.sh's time_both).
#
# Usage: bench/amend.sh [<number of changes>...]   (default: 0 1000 10000)

bench=amend
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine

printf '%-8s %-20s %10s %10s %7s\n' changes command vanilla/ms patched/ms ratio
for n in ${*:-0 1000 10000}
do
	make_changes_repo "$n" "$work/v$n"
	cp -a "$work/v$n" "$work/p$n"
	# Each amend gets a new message: amending to an identical commit
	# (same second, same message) would rewrite nothing and record nothing.
	for cmd in 'commit --amend -q --allow-empty -m "amend $RANDOM$RANDOM"' \
		   "commit -q --allow-empty -m next"
	do
		time_both "$vanilla -C $work/v$n $cmd" "$patched -C $work/p$n $cmd"
		printf '%-8s %-20s %10s %10s %7s\n' "$n" "$(echo "$cmd" | cut -d' ' -f1-2)" \
			"$v" "$p" "$(ratio "$v" "$p")"
	done
done
echo "($(runs_note))"

#!/bin/sh
# bench/amend.sh: `git commit --amend` and `git commit` with 0, 1,000 and
# 10,000 existing changes, patched (build/bin/git) against unpatched
# (build/vanilla/bin/git), side by side in one run, with hyperfine.
# Prints the median of each and the ratio patched/vanilla.
#
# The speed of a machine drifts within a minute by more than the 5% this
# measures: the two builds take turns, $ROUNDS rounds of $RUNS/$ROUNDS
# runs each (vanilla first in odd rounds, patched first in even ones),
# and the median is over all runs of a build.
#
# Usage: bench/amend.sh [<number of changes>...]   (default: 0 1000 10000)
#        ROUNDS=8 by default

bench=amend
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine
ROUNDS=${ROUNDS:-8}
test "$RUNS" -ge "$ROUNDS" || RUNS=$ROUNDS

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
		rm -f "$work"/*.json
		round=1
		while test $round -le "$ROUNDS"
		do
			order="vanilla patched"
			test $((round % 2)) = 1 || order="patched vanilla"
			for which in $order
			do
				eval bin=\$$which
				dir=$work/$(echo $which | cut -c1)$n
				RUNS=$((RUNS / ROUNDS)) time_into \
					"$work/$which.$round.json" "$bin -C $dir $cmd"
			done
			round=$((round + 1))
		done
		v=$(times_of "$work"/vanilla.*.json | median_of_times)
		p=$(times_of "$work"/patched.*.json | median_of_times)
		printf '%-8s %-20s %10s %10s %7s\n' "$n" "$(echo "$cmd" | cut -d' ' -f1-2)" \
			"$v" "$p" "$(ratio "$v" "$p")"
	done
done
echo "($(nproc) cores, $(uname -m), $((RUNS / ROUNDS * ROUNDS)) runs each in $ROUNDS alternating rounds, medians)"

#!/bin/sh
# bench/scale.sh: what "git evolve" costs when the repository holds many
# changes but little needs work, at several sizes, side by side in one run
# with hyperfine:
#
#   - `git evolve --dry-run` and `git evolve` (restored before each run)
#     with one stack of 5 whose bottom was amended: 4 commits to restack,
#     against vanilla `git replay` of the same 4 commits, the floor;
#   - `git evolve --dry-run main` and `git change prune --dry-run main`,
#     which ask for every change whether the upstream "main" has it,
#     against vanilla `git rev-list --count` of the changes' line.
#
# The other changes come from make_changes_repo (bench/lib.sh): a line of
# commits, each a change, a tenth of them amended once.
#
# Usage: bench/scale.sh [<number of changes>...]   (default 1000 10000;
#                                                  RUNS=10 ROUNDS=2)

RUNS=${RUNS:-10}
ROUNDS=${ROUNDS:-2}
bench=scale
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine

# A stack of 5 changes on the tip of "side", made and recorded by the
# patched git, whose bottom is then amended: 4 orphans to restack.
add_amended_stack () {
	(
		cd "$1"
		"$vanilla" checkout -q side
		"$vanilla" checkout -q -b stack
		for i in 1 2 3 4 5
		do
			echo "stack $i" >s$i &&
			"$patched" add s$i &&
			"$patched" commit -q -m "stack commit $i" || exit 1
		done
		"$patched" checkout -q --detach metas/stack-commit-1
		echo amended >s1
		"$patched" commit -q -a --amend --no-edit
		"$vanilla" checkout -q --detach stack
		"$vanilla" for-each-ref --format='update %(refname) %(objectname)' \
			refs/metas/ refs/heads/ >restore
		"$vanilla" rev-parse HEAD >orig-head
	)
}

printf '%-52s %10s %10s %8s\n' command vanilla/ms patched/ms ratio
for n in ${*:-1000 10000}
do
	repo=$work/repo-$n
	make_changes_repo "$n" "$repo"
	add_amended_stack "$repo"
	amended=$("$vanilla" -C "$repo" rev-parse HEAD@{1})
	old=$("$vanilla" -C "$repo" rev-parse stack~4)
	# Every run starts from the refs and HEAD before evolve.
	restore="$vanilla -C $repo update-ref --stdin <$repo/restore && $vanilla -C $repo checkout -q --detach \$(cat $repo/orig-head)"

	row () {
		time_both "$1" "$2"
		printf '%-52s %10s %10s %8s\n' "$3 ($n changes)" "$v" "$p" "$(ratio "$v" "$p")"
	}
	row "$vanilla -C $repo replay --onto $amended $old..stack" \
	    "$patched -C $repo evolve --dry-run" "evolve -n / replay of 4"
	rm -f "$work"/time-*.json
	for which in vanilla patched
	do
		case $which in
		vanilla) cmd="$vanilla -C $repo replay --onto $amended $old..stack" ;;
		patched) cmd="$patched -C $repo evolve -q" ;;
		esac
		hyperfine --shell=bash -w 1 -r "$RUNS" --prepare "$restore" \
			--export-json "$work/time-$which.json" "$cmd" >/dev/null 2>&1
	done
	v=$(times_of "$work/time-vanilla.json" | median_of_times)
	p=$(times_of "$work/time-patched.json" | median_of_times)
	printf '%-52s %10s %10s %8s\n' "evolve / replay of 4 ($n changes)" "$v" "$p" "$(ratio "$v" "$p")"
	sh -c "$restore"
	row "$vanilla -C $repo rev-list --count side" \
	    "$patched -C $repo evolve --dry-run main" "evolve -n main / rev-list"
	row "$vanilla -C $repo rev-list --count side" \
	    "$patched -C $repo change prune --dry-run main" "change prune -n main / rev-list"
done
echo "($(runs_note))"

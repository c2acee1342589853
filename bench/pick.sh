#!/bin/sh
# bench/pick.sh: "git cherry-pick" of 50 commits and "git am" of 50
# patches in a repository of 10,000 changes, patched (which records a
# change for each commit) against unpatched, with the change refs packed
# (as after gc) and loose (as between two gcs). Prints the median of
# each and the ratio patched/vanilla (issue 20: at most 1.05).
#
# Each run starts from the same commit; the changes the previous run of
# the patched git recorded are deleted first, untimed.
#
# Usage: bench/pick.sh [<number of changes>]   (default: 10000)

bench=pick
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine

n=${1:-10000}
make_changes_repo "$n" "$work/packed"
(
	cd "$work/packed"
	i=0
	{
		printf 'commit refs/heads/src\n'
		printf 'committer C <c@example.com> 1800000000 +0000\n'
		printf 'data <<EOT\npick item 0\nEOT\nfrom refs/heads/main\n'
		printf 'M 644 inline p/f0\ndata <<EOT\n0\nEOT\n\n'
		while test $i -lt 49
		do
			i=$((i + 1))
			printf 'commit refs/heads/src\n'
			printf 'committer C <c@example.com> %d +0000\n' $((1800000000 + i))
			printf 'data <<EOT\npick item %d\nEOT\n' $i
			printf 'M 644 inline p/f%d\ndata <<EOT\n%d\nEOT\n\n' $i $i
		done
	} | "$vanilla" fast-import --quiet
	"$vanilla" format-patch -q -o "$work/patches" main..src
	"$vanilla" checkout -q --detach main
)
cp -a "$work/packed" "$work/loose"
(
	# every change ref loose, as update-ref leaves them
	cd "$work/loose"
	"$vanilla" for-each-ref --format='%(refname)' refs/metas/ |
		sed 's|/[^/]*$||' | sort -u | (cd .git && xargs mkdir -p)
	"$vanilla" for-each-ref --format='%(objectname) %(refname)' refs/metas/ |
		awk '{ f = ".git/" $2; print $1 > f; close(f) }'
	grep -v ' refs/metas/' .git/packed-refs >packed-refs.new
	mv packed-refs.new .git/packed-refs
	test "$("$vanilla" for-each-ref refs/metas/ | wc -l)" -ge "$n"
)

printf '%-8s %-6s %-16s %10s %10s %7s\n' changes refs command vanilla/ms patched/ms ratio
for refs in packed loose
do
	cp -a "$work/$refs" "$work/v-$refs"
	cp -a "$work/$refs" "$work/p-$refs"
	for cmd in "cherry-pick main..src" "am -q $work/patches/*.patch"
	do
		time_both "$vanilla -C $work/v-$refs $cmd >/dev/null" \
			  "$patched -C $work/p-$refs $cmd >/dev/null" \
			  "$vanilla -C $work/v-$refs checkout -q -f --detach main" \
			  "$vanilla -C $work/p-$refs checkout -q -f --detach main &&
			   $vanilla -C $work/p-$refs for-each-ref --format='delete %(refname)' 'refs/metas/pick-item-*' |
			   $vanilla -C $work/p-$refs update-ref --stdin"
		printf '%-8s %-6s %-16s %10s %10s %7s\n' "$n" "$refs" \
			"$(echo "$cmd" | cut -d' ' -f1) of 50" "$v" "$p" "$(ratio "$v" "$p")"
	done
done
echo "($(runs_note))"

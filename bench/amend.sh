#!/bin/sh
# bench/amend.sh: `git commit --amend` and `git commit` with 0, 1,000 and
# 10,000 existing changes, patched (build/bin/git) against unpatched
# (build/vanilla/bin/git), side by side in one run, with hyperfine.
# Prints the median of each and the ratio patched/vanilla.
#
# Usage: bench/amend.sh [<number of changes>...]   (default: 0 1000 10000)

set -e
top=$(cd "$(dirname "$0")/.." && pwd)
patched=$top/build/bin/git
vanilla=$top/build/vanilla/bin/git
RUNS=${RUNS:-30}
test -x "$patched" || { echo "run make first" >&2; exit 1; }
test -x "$vanilla" || { echo "run make vanilla first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-amend.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$work

# A repository with <n> changes: <n> commits on a side line, each with a
# change; every tenth change has been amended once (points at a metacommit).
make_repo () {
	n=$1 dir=$2
	"$vanilla" init -q -b main "$dir"
	(
		cd "$dir"
		echo base >file && "$vanilla" add file && "$vanilla" commit -q -m base
		test "$n" -gt 0 || exit 0
		i=0
		{
			while test $i -lt "$n"
			do
				i=$((i + 1))
				printf 'commit refs/heads/side\nmark :%d\n' $i
				printf 'committer C <c@example.com> %d +0000\n' $((1700000000 + i))
				printf 'data <<EOT\nwork item %d\nEOT\n' $i
				printf 'M 644 inline f%d\ndata <<EOT\n%d\nEOT\n\n' $i $i
			done
			printf 'checkpoint\n'
		} | "$vanilla" fast-import --quiet --export-marks=marks
		empty=$("$vanilla" hash-object -t tree -w /dev/null)
		while read -r mark oid
		do
			i=${mark#:}
			if test $((i % 10)) = 0
			then
				printf 'tree %s\nparent %s\nparent %s\nauthor C <c@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000000 +0000\nparent-type c r\n\nchange update\n' \
					"$empty" "$oid" "$oid" >"meta$i"
				echo "$PWD/meta$i"
			fi
		done <marks >meta-paths
		"$vanilla" hash-object -t commit -w --literally --stdin-paths <meta-paths >meta-oids
		paste -d' ' meta-paths meta-oids | while read -r path oid
		do
			i=${path##*/meta}
			echo "create refs/metas/c$i $oid"
		done >updates
		while read -r mark oid
		do
			i=${mark#:}
			test $((i % 10)) = 0 || echo "create refs/metas/c$i $oid"
		done <marks >>updates
		"$vanilla" update-ref --stdin <updates
		"$vanilla" pack-refs --all
		rm -f meta* marks updates
	)
}

median () {
	# hyperfine --export-json: the median of the first command, in ms
	sed -n 's/.*"median": *\([0-9.e-]*\).*/\1/p' "$1" | head -n 1 |
		awk '{ printf "%.2f", $1 * 1000 }'
}

printf '%-8s %-20s %10s %10s %7s\n' changes command vanilla/ms patched/ms ratio
for n in ${*:-0 1000 10000}
do
	make_repo "$n" "$work/v$n"
	cp -a "$work/v$n" "$work/p$n"
	# Each amend gets a new message: amending to an identical commit
	# (same second, same message) would rewrite nothing and record nothing.
	for cmd in 'commit --amend -q --allow-empty -m "amend $RANDOM$RANDOM"' \
		   "commit -q --allow-empty -m next"
	do
		for which in vanilla patched
		do
			eval bin=\$$which
			dir=$work/$(echo $which | cut -c1)$n
			hyperfine --shell=bash -w 3 -r "$RUNS" --export-json "$work/$which.json" \
				"$bin -C $dir $cmd" >/dev/null 2>&1
		done
		v=$(median "$work/vanilla.json") p=$(median "$work/patched.json")
		printf '%-8s %-20s %10s %10s %7s\n' "$n" "$(echo "$cmd" | cut -d' ' -f1-2)" \
			"$v" "$p" "$(awk -v v="$v" -v p="$p" 'BEGIN { printf "%.3f", p / v }')"
	done
done
echo "($(nproc) cores, $(uname -m), $RUNS runs each, medians)"

# bench/lib.sh: what the benchmarks share; not a benchmark itself.
#
#   bench=<name>
#   . "$(dirname "$0")/lib.sh"
#
# sets $top, $patched (build/bin/git), $vanilla (build/vanilla/bin/git),
# $RUNS (default 32), $ROUNDS (default 8: see time_both) and a scratch
# directory $work, removed on exit, that is also $HOME; fixes the
# identities so that runs are comparable.

set -e
top=$(cd "$(dirname "$0")/.." && pwd)
patched=$top/build/bin/git
vanilla=$top/build/vanilla/bin/git
RUNS=${RUNS:-32}
ROUNDS=${ROUNDS:-8}
test "$RUNS" -ge "$ROUNDS" || RUNS=$ROUNDS

need_patched () {
	test -x "$patched" || { echo "run make first" >&2; exit 1; }
}

need_vanilla () {
	test -x "$vanilla" || { echo "run make vanilla first" >&2; exit 1; }
}

need_hyperfine () {
	command -v hyperfine >/dev/null || {
		echo "needs hyperfine (apt-get install hyperfine)" >&2
		exit 1
	}
}

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-$bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$work

# The times of hyperfine --export-json files, in seconds, one a line.
times_of () {
	awk '/"times": *\[/ { on = 1; next } on && /\]/ { on = 0 }
	     on { gsub(/[ ,]/, ""); print }' "$@"
}

# The median of numbers in seconds, one a line, in ms.
median_of_times () {
	sort -g | awk '{ t[NR] = $1 }
		END { m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%.2f", m * 1000 }'
}

ratio () {
	awk -v v="$1" -v p="$2" 'BEGIN { printf "%.3f", p / v }'
}

# time_both <vanilla command> <patched command> [<vanilla prepare>
# <patched prepare>]: time each $RUNS times with hyperfine and set $v and
# $p to their medians, in ms. A prepare command runs before each run of
# its command, untimed (hyperfine --prepare).
#
# The speed of this machine drifts within a minute by more than the few
# percent a benchmark is to tell: the two take turns, $ROUNDS rounds of
# $RUNS/$ROUNDS runs each (after 3 warm-ups), the vanilla one first in
# odd rounds and the patched one in even rounds, and a median is over all
# the runs of one command. Its own variables start with tb_.
time_both () {
	rm -f "$work"/time-vanilla.*.json "$work"/time-patched.*.json
	tb_round=1
	while test $tb_round -le "$ROUNDS"
	do
		tb_order="vanilla patched"
		test $((tb_round % 2)) = 1 || tb_order="patched vanilla"
		for tb_which in $tb_order
		do
			case $tb_which in
			vanilla) tb_cmd=$1 tb_prepare=${3:-true} ;;
			patched) tb_cmd=$2 tb_prepare=${4:-true} ;;
			esac
			hyperfine --shell=bash -w 3 -r $((RUNS / ROUNDS)) \
				--prepare "$tb_prepare" \
				--export-json "$work/time-$tb_which.$tb_round.json" \
				"$tb_cmd" >/dev/null 2>&1
		done
		tb_round=$((tb_round + 1))
	done
	v=$(times_of "$work"/time-vanilla.*.json | median_of_times)
	p=$(times_of "$work"/time-patched.*.json | median_of_times)
}

# What the figures are: machine, runs.
runs_note () {
	echo "$(nproc) cores, $(uname -m), $((RUNS / ROUNDS * ROUNDS)) runs each in $ROUNDS alternating rounds, medians"
}

# make_changes_repo <n> <dir>: a repository with <n> changes, made with the
# unpatched git only: <n> commits on a side line, each adding a file in
# directories of at most 100 entries (linear in <n>), each with a change under
# refs/metas/; every tenth change has been amended once (points at a
# metacommit). Refs are packed, as they would be after a while.
make_changes_repo () {
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
				# nested, so that no tree grows with <n>
				printf 'M 644 inline d%d/e%d/f%d\ndata <<EOT\n%d\nEOT\n\n' \
					$((i / 10000)) $((i / 100 % 100)) $i $i
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

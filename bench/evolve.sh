#!/bin/sh
# bench/evolve.sh: restack 100 descendants after amending the bottom of a
# 101-commit stack, on a tree of about 20,000 files, side by side in one
# run with hyperfine:
#
#   - patched  `git evolve` (build/bin/git), every change recorded;
#   - vanilla  `git replay --onto <amended> <old bottom>..stack`
#     (build/vanilla/bin/git, in memory, refs updated);
#   - vanilla  `git rebase --onto <amended> <old bottom> stack`;
#   - `hg evolve --all` (Debian's mercurial-evolve), if hg is installed.
#
# Prints the median of each and its ratio to `git replay`.
#
# Usage: bench/evolve.sh      (FILES=20000 STACK=101 RUNS=10 HG_RUNS=3
#                              REF_FORMAT=files|reftable HG=no)

RUNS=${RUNS:-10}
bench=evolve
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
need_hyperfine
FILES=${FILES:-20000}
STACK=${STACK:-101}
HG_RUNS=${HG_RUNS:-3}
REF_FORMAT=${REF_FORMAT:-files}
export HGUSER="A <a@example.com>" HGRCPATH=$work/hgrc
printf '[extensions]\nevolve =\n[ui]\nquiet = true\n' >"$HGRCPATH"

# The base tree: $FILES files in directories of 100.
make_tree () {
	mkdir -p "$1"
	(
		cd "$1"
		i=0
		while test $i -lt "$FILES"
		do
			d=d$((i / 100))
			test -d $d || mkdir $d
			echo "file $i" >$d/f$i
			i=$((i + 1))
		done
	)
}

echo "setting up: $FILES files, a stack of $STACK commits, $REF_FORMAT refs"
make_tree "$work/tree"

# git: the stack, recorded in changes by the patched git, then the bottom
# amended; save the refs to restore before each run.
git_repo=$work/git
"$patched" init -q -b main --ref-format="$REF_FORMAT" "$git_repo"
# Evolve and rebase start "maintenance run --auto" in the background when
# they are done: it would run into the next timed run.
"$patched" -C "$git_repo" config maintenance.auto false
cp -R "$work/tree/." "$git_repo"
(
	cd "$git_repo"
	git=$patched
	$git add . && $git commit -q -m base
	$git checkout -q -b stack
	i=1
	while test $i -le "$STACK"
	do
		echo "stack $i" >s$i && $git add s$i && $git commit -q -m "stack item $i"
		i=$((i + 1))
	done
	bottom=$($git rev-list --reverse main..stack | head -n 1)
	$git checkout -q --detach "$bottom"
	echo amended >>s1 && $git commit -q -a --amend --no-edit
	echo "$bottom" >"$work/bottom"
	$git rev-parse HEAD >"$work/amended"
	$git for-each-ref --format='update %(refname) %(objectname)' \
		refs/metas/ refs/heads/ >"$work/refs"
	$git gc -q
)
bottom=$(cat "$work/bottom")
amended=$(cat "$work/amended")
# Each run starts from the same refs and the same objects: what earlier
# runs wrote (loose objects, packs) is removed, so that no run pays for
# the objects its predecessors piled up.
# (Not by their mtime: freshening an object touches its whole pack.)
find "$git_repo/.git/objects" -type f | sort >"$work/objects"
restore="find $git_repo/.git/objects -type f | sort |
	comm -13 $work/objects - | xargs rm -f &&
	$vanilla -C $git_repo update-ref --stdin <$work/refs"

set -- \
	--command-name "git evolve (patched)" \
	"$patched -C $git_repo evolve -q" \
	--command-name "git replay (vanilla)" \
	"$vanilla -C $git_repo replay --onto $amended $bottom..stack" \
	--command-name "git rebase --onto (vanilla)" \
	"$vanilla -C $git_repo rebase -q --onto $amended $bottom stack"
# rebase checks out the stack: go back to the amended commit first, while
# the commits it checked out still exist.
prepare_git="$vanilla -C $git_repo checkout -q --detach $amended && $restore"

# Check that the patched evolve does the job before timing it.
sh -c "$prepare_git"
"$patched" -C "$git_repo" evolve -q
test "$("$vanilla" -C "$git_repo" rev-list --count "$amended..stack")" = $((STACK - 1)) || {
	echo "git evolve did not restack the stack" >&2
	exit 1
}

hyperfine --runs "$RUNS" --warmup 1 --export-json "$work/git.json" \
	--prepare "$prepare_git" "$@" >/dev/null

json_files=$work/git.json
if test "${HG:-yes}" != no && command -v hg >/dev/null &&
	hg help evolve >/dev/null 2>&1
then
	hg_repo=$work/hg-pristine
	hg init "$hg_repo"
	cp -R "$work/tree/." "$hg_repo"
	(
		cd "$hg_repo"
		hg add -q . && hg commit -m base
		i=1
		while test $i -le "$STACK"
		do
			echo "stack $i" >s$i && hg add s$i && hg commit -m "stack item $i"
			i=$((i + 1))
		done
		hg update -r 1
		echo amended >>s1 && hg amend
	)
	hyperfine --runs "$HG_RUNS" --export-json "$work/hg.json" \
		--prepare "rm -rf $work/hg && cp -R $hg_repo $work/hg" \
		--command-name "hg evolve --all" \
		"hg -R $work/hg evolve --all" >/dev/null
	json_files="$json_files $work/hg.json"
else
	echo "(hg with the evolve extension not found: apt-get install mercurial-evolve)"
fi

echo "$(nproc) cores, $(uname -m), $REF_FORMAT refs; median of $RUNS runs (hg: $HG_RUNS)"
python3 - $json_files <<'EOF'
import json, sys
results = []
for path in sys.argv[1:]:
    results += json.load(open(path))["results"]
base = next(r["median"] for r in results if r["command"].startswith("git replay"))
print("%-30s %10s %8s" % ("command", "median s", "/replay"))
for r in results:
    print("%-30s %10.3f %8.2f" % (r["command"], r["median"], r["median"] / base))
EOF

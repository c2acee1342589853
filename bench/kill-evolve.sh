#!/bin/sh
# bench/kill-evolve.sh: fault injection. Kill `git evolve` with SIGKILL at
# a random moment of a multi-change restack, TRIALS times (default 100),
# and check after each that the repository is consistent:
#
#   - `git fsck` is clean;
#   - the refs under refs/metas/ and refs/heads/ are either all as before
#     evolve or all as after a complete evolve (no half-moved set);
#   - every version of every change from before is still reachable;
#   - the stopped or interrupted evolve can be finished (`git evolve`, or
#     `git evolve --abort` then `git evolve` when it had stopped), and
#     then the refs are those of a complete evolve.
#
# Not part of `make test`: it is random and takes a while. Prints a summary
# and exits non-zero if any trial left an inconsistent repository.
#
# Usage: bench/kill-evolve.sh   (TRIALS=100 STACK=30 REF_FORMAT=files|reftable)

bench=kill-evolve
. "$(dirname "$0")/lib.sh"
need_patched
git=$patched
TRIALS=${TRIALS:-100}
STACK=${STACK:-30}
REF_FORMAT=${REF_FORMAT:-files}
export GIT_TEST_ENABLE_CHANGES=true
# Fixed dates: every run makes the same commits and metacommits.
export GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"

# A stack of $STACK changes on a branch, with its bottom amended.
pristine=$work/pristine
"$git" init -q -b main --ref-format="$REF_FORMAT" "$pristine"
# No repack in the background of a finished evolve while a trial checks.
"$git" -C "$pristine" config maintenance.auto false
(
	cd "$pristine"
	i=0
	while test $i -lt 200
	do
		echo "file $i" >f$i
		i=$((i + 1))
	done
	"$git" add . && "$git" commit -q -m base
	"$git" checkout -q -b stack
	i=1
	while test $i -le "$STACK"
	do
		echo "stack $i" >s$i && "$git" add s$i &&
		"$git" commit -q -m "stack item $i"
		i=$((i + 1))
	done
	"$git" checkout -q --detach "$("$git" rev-list --reverse main..stack | head -n 1)"
	echo amended >>s1 && "$git" commit -q -a --amend --no-edit
	"$git" gc -q
)

snapshot () {
	"$git" -C "$1" for-each-ref --format='%(objectname) %(refname)' \
		refs/metas/ refs/heads/
}

# Every head of every change before evolve, to check reachability.
snapshot "$pristine" >"$work/before"
cut -d' ' -f1 "$work/before" | sort -u >"$work/versions"

# The refs after a complete evolve.
cp -R "$pristine" "$work/reference"
"$git" -C "$work/reference" evolve -q
snapshot "$work/reference" >"$work/after"
cmp -s "$work/before" "$work/after" && { echo "evolve did nothing?" >&2; exit 1; }

# How long a whole evolve takes, to spread the kills over it.
start=$(date +%s%N)
cp -R "$pristine" "$work/timing"
"$git" -C "$work/timing" evolve -q
duration_us=$((($(date +%s%N) - start) / 1000))

failures=0 before_state=0 after_state=0 stopped=0
trial=1
while test $trial -le "$TRIALS"
do
	repo=$work/trial
	rm -rf "$repo"
	cp -R "$pristine" "$repo"
	delay_us=$(awk -v max="$duration_us" -v seed="$trial" \
		'BEGIN { srand(seed); printf "%d", rand() * max * 1.5 }')

	"$git" -C "$repo" evolve -q >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v us="$delay_us" 'BEGIN { printf "%.6f", us / 1000000 }')"
	kill -9 $pid 2>/dev/null || :
	wait $pid 2>/dev/null || :

	problem=
	# A lock left by the killed process is what any git command would
	# leave; remove it as the user would after reading git's message.
	find "$repo/.git" -name '*.lock' -exec rm -f {} + 2>/dev/null || :

	"$git" -C "$repo" fsck --no-progress >"$work/fsck" 2>&1 ||
		problem="fsck failed"
	snapshot "$repo" >"$work/now"
	if cmp -s "$work/now" "$work/before"
	then
		before_state=$((before_state + 1))
	elif cmp -s "$work/now" "$work/after"
	then
		after_state=$((after_state + 1))
	else
		problem="${problem:+$problem; }refs half moved"
	fi
	"$git" -C "$repo" rev-list --all --reflog >"$work/reachable" 2>/dev/null
	if test -n "$(sort -u "$work/reachable" | comm -13 - "$work/versions")"
	then
		problem="${problem:+$problem; }a version is unreachable"
	fi

	if test -d "$repo/.git/evolve"
	then
		stopped=$((stopped + 1))
		"$git" -C "$repo" evolve --abort >/dev/null 2>&1 ||
			problem="${problem:+$problem; }--abort failed"
	fi
	"$git" -C "$repo" evolve -q >/dev/null 2>&1 ||
		problem="${problem:+$problem; }evolve could not finish"
	snapshot "$repo" >"$work/now"
	cmp -s "$work/now" "$work/after" ||
		problem="${problem:+$problem; }refs differ after finishing"

	if test -n "$problem"
	then
		failures=$((failures + 1))
		echo "trial $trial (kill after ${delay_us} us): $problem"
	fi
	trial=$((trial + 1))
done

echo "$TRIALS trials, $REF_FORMAT refs, stack of $STACK, evolve takes ${duration_us} us:"
echo "  killed before any ref moved: $before_state, after all moved: $after_state," \
	"stopped state found: $stopped, inconsistent: $failures"
test $failures = 0

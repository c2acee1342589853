#!/bin/sh
# bench/suite.sh: the wall time of upstream's test suite run by the patched
# tree (build/git) and by the unpatched one (build/vanilla), one after the
# other in the same run, with the same prove options; ratio patched/vanilla.
# The patched tree's suite runs with changes recorded as upstream's tests
# would see them by default (off in tests: GIT_TEST_ENABLE_CHANGES).
#
# Usage: bench/suite.sh    (T='t0*.sh t1*.sh' to time some scripts only;
#                           JOBS=<n> prove jobs, default nproc)
#
# The whole suite takes about 12 minutes per tree on 2 cores.

bench=suite
. "$(dirname "$0")/lib.sh"
need_patched
need_vanilla
JOBS=${JOBS:-$(nproc)}

# run_suite <tree>: the wall time in seconds of its suite (or of $T).
run_suite () {
	start=$(date +%s.%N)
	if test -n "$T"
	then
		(cd "$1/t" && prove -j"$JOBS" $T) >"$work/out" 2>&1
	else
		make -C "$1/t" DEFAULT_TEST_TARGET=prove \
			GIT_PROVE_OPTS="-j$JOBS" GIT_TEST_OPTS= all >"$work/out" 2>&1
	fi || { tail -n 20 "$work/out"; echo "the suite failed in $1" >&2; exit 1; }
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}

# GIT_CONFIG_NOSYSTEM and HOME from lib.sh must not leak into the tests.
unset GIT_CONFIG_NOSYSTEM
v=$(run_suite "$top/build/vanilla")
p=$(run_suite "$top/build/git")
printf '%-10s %10s\n' tree wall/s vanilla "$v" patched "$p" ratio "$(ratio "$v" "$p")"
echo "(${T:-whole suite}; prove -j$JOBS, $(nproc) cores, $(uname -m))"

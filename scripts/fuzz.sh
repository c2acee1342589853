#!/bin/sh
# fuzz.sh <tree> <runs> <harness>...: run each libFuzzer harness
# <tree>/oss-fuzz/fuzz-<harness> for <runs> executions (split among
# FUZZ_JOBS processes, default 1), starting from the
# corpus kept in fuzz/corpus/<harness>/ (never written to: the inputs found
# on the way go to build/fuzz-corpus/<harness>/, crashes and leaks to
# build/fuzz-artifacts/<harness>/). Fails on the first harness that crashes,
# leaks, trips UBSan or does not run; a summary of each run is printed and
# its full output kept in build/fuzz-logs/<harness>.log.
#
# To add what a long run found to the corpus, minimized and kept small
# (a set of inputs that covers the same edges, hit counts aside):
#   build/fuzz/oss-fuzz/fuzz-<harness> -set_cover_merge=1 -use_counters=0 \
#       fuzz/corpus/<harness> build/fuzz-corpus/<harness>

. "$(dirname "$0")/config.sh"

tree=$(cd "$1" && pwd) || exit 1
runs=$2
shift 2
# FUZZ_JOBS=<n>: run <n> processes per harness, each doing runs/<n>.
njobs=${FUZZ_JOBS:-1}

# Leaks are errors (LeakSanitizer runs at exit and after each input that
# seemed to leak), and so is undefined behaviour.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

mkdir -p "$build/fuzz-logs" || exit 1
for h in "$@"
do
	bin=$tree/oss-fuzz/fuzz-$h
	seeds=$top/fuzz/corpus/$h
	found=$build/fuzz-corpus/$h
	artifacts=$build/fuzz-artifacts/$h
	log=$build/fuzz-logs/$h.log
	test -x "$bin" || die "no harness $bin"
	test -d "$seeds" || die "no corpus $seeds"
	mkdir -p "$found" "$artifacts" || exit 1

	say "fuzz-$h: $runs runs in $njobs job(s) from $(ls "$seeds" | wc -l) seeds (log: $log)"
	start=$(date +%s)
	# Each job does its share of the runs with a seed of its own; the
	# first corpus directory is the one libFuzzer adds to.
	pids=
	j=1
	while test $j -le $njobs
	do
		nice -n "${FUZZ_NICE:-10}" "$bin" -runs=$((runs / njobs)) -seed=$j \
			-dict="$top/fuzz/commit.dict" -artifact_prefix="$artifacts/" \
			-print_final_stats=1 "$found" "$seeds" >"$log.$j" 2>&1 &
		pids="$pids $!"
		j=$((j + 1))
	done
	status=0
	execs=0
	rate=0
	j=1
	for pid in $pids
	do
		wait $pid || status=$?
	done
	while test $j -le $njobs
	do
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.$j")
		r=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log.$j")
		test -n "$n" || status=1
		execs=$((execs + ${n:-0}))
		rate=$((rate + ${r:-0}))
		cat "$log.$j"
		rm -f "$log.$j"
		j=$((j + 1))
	done >"$log"
	secs=$(( $(date +%s) - start ))
	if test $status != 0
	then
		tail -n 40 "$log" >&2
		die "fuzz-$h failed (exit $status); reproduce with: $bin $artifacts/<file>"
	fi
	say "fuzz-$h: $execs executions in $secs s ($rate exec/s), no crash, no leak"
done

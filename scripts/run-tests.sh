#!/bin/sh
# run-tests.sh ours <tree>:     our test scripts (or $T) with each ref format
#                               (files, reftable) and hash (sha1, sha256),
#                               and our unit tests;
# run-tests.sh upstream <tree>: the whole upstream suite, as upstream runs it.

. "$(dirname "$0")/config.sh"

what=$1
tree=$(cd "${2:-$build/git}" && pwd) || exit 1
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Our shell tests are the t/tNNNN-*.sh files of this repository.
our_scripts () {
	(cd "$top/t" 2>/dev/null && ls t[0-9][0-9][0-9][0-9]-*.sh 2>/dev/null)
}

# Our unit tests: clar suites this series adds or extends.
OUR_CLAR_SUITES="oid_array change_name"

run_ours () {
	scripts=$(echo ${T:-$(our_scripts)})
	test -n "$scripts" || die "no test scripts to run"
	cd "$tree/t" || exit 1
	status=0
	# Upstream's lints of test scripts, which the whole suite runs too.
	make --no-print-directory -s test-lint T="$scripts" || status=1
	for mode in ${TEST_MODES:-files,sha1 reftable,sha1 files,sha256 reftable,sha256}
	do
		format=${mode%,*} hash=${mode#*,}
		say "$(basename "$tree"): $(echo $scripts) (refs: $format, hash: $hash)"
		GIT_TEST_DEFAULT_REF_FORMAT=$format GIT_TEST_DEFAULT_HASH=$hash \
		prove -j"$JOBS" --exec "${TEST_SHELL_PATH:-/bin/sh}" $scripts \
			:: ${GIT_TEST_OPTS:---verbose-log} || status=1
	done
	if test -z "$T"
	then
		for suite in $OUR_CLAR_SUITES
		do
			say "$(basename "$tree"): unit tests, suite $suite"
			./unit-tests/bin/unit-tests --run="$suite" || status=1
		done
	fi
	return $status
}

run_upstream () {
	say "the whole upstream test suite"
	start=$(date +%s)
	make -C "$tree/t" DEFAULT_TEST_TARGET=prove \
		GIT_PROVE_OPTS="-j$JOBS --timer" GIT_TEST_OPTS= all
	status=$?
	make -C "$tree/t" check-meson >/dev/null || status=1
	say "upstream suite: $(( $(date +%s) - start )) s, exit $status"
	return $status
}

case "$what" in
ours) run_ours ;;
upstream) run_upstream ;;
*) die "usage: run-tests.sh (ours|upstream) [<tree>]" ;;
esac

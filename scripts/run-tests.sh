#!/bin/sh
# run-tests.sh ours <tree>:     our test scripts (or $T) with each ref format
#                               (files, reftable) and hash (sha1, sha256),
#                               and our unit tests;
# run-tests.sh upstream <tree>: the whole upstream suite, as upstream runs it
#                               (without our scripts, which ours ran).

. "$(dirname "$0")/config.sh"

what=$1
test "$what" = --one ||
tree=$(cd "${2:-$build/git}" && pwd) || exit 1
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Our shell tests are the t/tNNNN-*.sh files of this repository.
our_scripts () {
	(cd "$top/t" 2>/dev/null && ls t[0-9][0-9][0-9][0-9]-*.sh 2>/dev/null)
}

# Our unit tests: clar suites this series adds or extends.
OUR_CLAR_SUITES="oid_array change_name"

# One prove runs every script in every mode side by side, so that the
# longest script of one mode does not leave the other cores idle while a
# mode waits for it. A mode's run of a script is the path
# modes/<format>,<hash>/<script> (a link to the script), which
# run-tests.sh --one runs in that mode with its own output directory
# (trash directory, test-results), apart from the other modes' runs.
# Bigger scripts, which take longer, go first.
run_ours () {
	scripts=$(echo ${T:-$(our_scripts)})
	test -n "$scripts" || die "no test scripts to run"
	cd "$tree/t" || exit 1
	start=$(date +%s)
	status=0
	# Upstream's lints of test scripts, which the whole suite runs too.
	make --no-print-directory -s test-lint T="$scripts" || status=1
	modes=${TEST_MODES:-files,sha1 reftable,sha1 files,sha256 reftable,sha256}
	rm -rf modes
	runs=
	for script in $(ls -S $scripts)
	do
		for mode in $modes
		do
			mkdir -p "modes/$mode" &&
			ln -s "../../$script" "modes/$mode/$script" || exit 1
			runs="$runs modes/$mode/$script"
		done
	done
	say "$(basename "$tree"): $(echo $scripts) (modes: $(echo $modes))"
	prove -j"$JOBS" --exec "${TEST_SHELL_PATH:-/bin/sh} $top/scripts/run-tests.sh --one" \
		$runs :: ${GIT_TEST_OPTS:---verbose-log} || status=1
	if test -z "$T"
	then
		for suite in $OUR_CLAR_SUITES
		do
			say "$(basename "$tree"): unit tests, suite $suite"
			./unit-tests/bin/unit-tests --run="$suite" || status=1
		done
	fi
	say "$(basename "$tree"): $(( $(date +%s) - start )) s, exit $status"
	return $status
}

# run-tests.sh --one modes/<format>,<hash>/<script> <options>: run from t/.
run_one () {
	run=$1
	shift
	mode=$(basename "$(dirname "$run")")
	GIT_TEST_DEFAULT_REF_FORMAT=${mode%,*} \
	GIT_TEST_DEFAULT_HASH=${mode#*,} \
	TEST_OUTPUT_DIRECTORY=$(pwd)/modes/$mode \
	exec "${TEST_SHELL_PATH:-/bin/sh}" "./$(basename "$run")" "$@"
}

run_upstream () {
	say "the whole upstream test suite"
	start=$(date +%s)
	# Our scripts have just run in every mode: leave them out here.
	ours=$(our_scripts)
	upstream=$(cd "$tree/t" && ls t[0-9][0-9][0-9][0-9]-*.sh |
		grep -v -x -F "$ours")
	make -C "$tree/t" DEFAULT_TEST_TARGET=prove \
		GIT_PROVE_OPTS="-j$JOBS --timer" GIT_TEST_OPTS= T="$(echo $upstream)" all
	status=$?
	make -C "$tree/t" check-meson >/dev/null || status=1
	say "upstream suite: $(( $(date +%s) - start )) s, exit $status"
	return $status
}

case "$what" in
--one) shift; run_one "$@" ;;
ours) run_ours ;;
upstream) run_upstream ;;
*) die "usage: run-tests.sh (ours|upstream) [<tree>]" ;;
esac

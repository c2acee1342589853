#!/bin/sh
# series-check.sh: check that the series written by series.sh (build/series)
# applies with "git am" onto the pristine upstream and bisects: in a fresh
# scratch repository (build/series-check), build every step and run the
# tests it adds or changes (t/tNNNN-*.sh, clar suites t/unit-tests/u-*.c).
#
# GIT_OPTS: the make options of the top Makefile; JOBS: make -j (2).
# SERIES_FROM=<n>: build and test from step <n> on (still applying all).

. "$(dirname "$0")/series-lib.sh"

series=$build/series
repo=$build/series-check
logs=$build/series-check-logs
JOBS=${JOBS:-2}
base=v$UPSTREAM_VERSION

ls "$series"/0000-cover-letter.patch >/dev/null 2>&1 ||
	die "no series in $series; run 'make series'"

series_ident
start=$(date +%s)
say "applying $series with git am onto a fresh $base in $repo"
init_upstream_repo "$repo"
rm -rf "$logs" && mkdir -p "$logs" || exit 1
ls "$series"/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-cover-letter\.patch$' >"$logs/mails"
(cd "$repo" && xargs git am -q --whitespace=warn <"$logs/mails") >"$logs/am.log" 2>&1 || {
	cat "$logs/am.log" >&2
	die "the series does not apply with git am onto $base (see $logs/am.log)"
}
if test -d "$build/series-repo" &&
   test "$(git -C "$repo" rev-parse HEAD^{tree})" != \
	"$(git -C "$build/series-repo" rev-parse HEAD^{tree} 2>/dev/null)"
then
	die "git am of $series gives another tree than build/series-repo"
fi

git -C "$repo" rev-list --reverse "$base..HEAD" >"$logs/commits"
total=$(wc -l <"$logs/commits")
say "applied $total patches ($(( $(date +%s) - start )) s); building each step"

k=0
while read -r c
do
	k=$((k + 1))
	test "$k" -lt "${SERIES_FROM:-1}" && continue
	subject=$(git -C "$repo" log -1 --format=%s "$c")
	name="step $k/$total ($subject)"
	t0=$(date +%s)
	git -C "$repo" checkout -q --detach "$c" || die "$name: cannot check out"
	log=$logs/$(printf %02d $k)
	if ! make -C "$repo" -j"$JOBS" $GIT_OPTS all >"$log-build.log" 2>&1
	then
		tail -30 "$log-build.log" >&2
		die "$name does not build (see $log-build.log)"
	fi
	# What the step adds or changes: test scripts and clar suites.
	git -C "$repo" diff --name-only --diff-filter=AM "$c^" "$c" >"$log-files"
	scripts=$(sed -n 's|^t/\(t[0-9][0-9][0-9][0-9]-[^/]*\.sh\)$|\1|p' "$log-files")
	suites=$(sed -n 's|^t/unit-tests/u-\([^/]*\)\.c$|\1|p' "$log-files" | tr - _)
	if test -n "$suites"
	then
		make -C "$repo" -j"$JOBS" $GIT_OPTS build-unit-tests >>"$log-build.log" 2>&1 ||
			die "$name: the unit tests do not build (see $log-build.log)"
	fi
	for s in $suites
	do
		(cd "$repo/t/unit-tests/bin" && ./unit-tests --run="$s") >"$log-unit-$s.log" 2>&1 || {
			tail -30 "$log-unit-$s.log" >&2
			die "$name: unit tests $s fail (see $log-unit-$s.log)"
		}
	done
	for s in $scripts
	do
		(cd "$repo/t" && ${TEST_SHELL_PATH:-sh} "./$s") >"$log-$s.log" 2>&1 || {
			grep -E '^(not ok|# failed)' "$log-$s.log" >&2
			die "$name: $s fails (see $log-$s.log)"
		}
	done
	tests=$(echo $scripts $suites)
	printf '  %2d/%d %4d s  %s%s\n' $k $total $(( $(date +%s) - t0 )) "$subject" \
		"${tests:+ [tests: $tests]}" >&2
done <"$logs/commits"
say "the series applies and each of its $total steps builds and passes its tests ($(( $(date +%s) - start )) s)"

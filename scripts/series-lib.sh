# Shared by series.sh and series-check.sh; sourced, not run.

. "$(dirname "$0")/config.sh"

# Keep the scratch repositories away from the user's and the system's
# configuration (format.*, hooks, signing), so that the output depends
# only on this repository. The identity is read first, from the config.
series_ident () {
	SERIES_NAME=$(git -C "$top" config user.name || echo "Evolve Port")
	SERIES_EMAIL=$(git -C "$top" config user.email || echo "evolve@example.com")
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
}

# Fixed dates, so that "make series" reproduces the same commits.
UPSTREAM_DATE="1767225600 +0000"	# the pristine v2.55.0 commit
series_date () {			# the date of step $1
	echo "$((1767225600 + 3600 * $1)) +0000"
}

# init_upstream_repo <dir>: a new repository at <dir> whose one commit,
# tagged v2.55.0, holds the pristine upstream source.
init_upstream_repo () {
	test -f "$build/upstream/.evolve-upstream" ||
		die "no upstream source; run 'make fetch'"
	rm -rf "$1" && mkdir -p "$1" &&
	cp -a "$build/upstream/." "$1/" && rm -f "$1/.evolve-upstream" &&
	git -C "$1" init -q --initial-branch=evolve &&
	git -C "$1" config core.autocrlf false &&
	git -C "$1" config core.hooksPath /dev/null &&
	git -C "$1" config user.name "$SERIES_NAME" &&
	git -C "$1" config user.email "$SERIES_EMAIL" &&
	git -C "$1" add -A -f &&
	GIT_AUTHOR_NAME="Git $UPSTREAM_VERSION" \
	GIT_AUTHOR_EMAIL="git@vger.kernel.org" \
	GIT_COMMITTER_NAME="Git $UPSTREAM_VERSION" \
	GIT_COMMITTER_EMAIL="git@vger.kernel.org" \
	GIT_AUTHOR_DATE="$UPSTREAM_DATE" GIT_COMMITTER_DATE="$UPSTREAM_DATE" \
	git -C "$1" commit -q -m "Git $UPSTREAM_VERSION" \
		-m "The pristine source of $UPSTREAM_VERSION ($UPSTREAM_ORIG)." &&
	git -C "$1" tag v$UPSTREAM_VERSION ||
		die "cannot create the upstream repository in $1"
}

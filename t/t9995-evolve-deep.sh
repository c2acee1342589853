#!/bin/sh

test_description='git evolve on stacks as deep as the repository makes them

A walk whose depth the repository decides must not recurse: these
stacks are made with fast-import and evolve runs with a small stack
(ulimit -s), so that a walk that recursed once per change or per
commit would crash.'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh

GIT_TEST_ENABLE_CHANGES=true
export GIT_TEST_ENABLE_CHANGES

# A line of $2 commits on the branch $1 from "base", each writing its
# number to the file "line" (one small tree each: fast-import stays fast),
# written by fast-import (which records nothing); their marks in "marks".
make_line () {
	n=$2 &&
	i=0 &&
	while test $i -lt $n
	do
		i=$((i + 1)) &&
		printf "commit refs/heads/%s\nmark :%d\n" "$1" $i &&
		printf "committer C <c@example.com> %d +0000\n" $((1700000000 + i)) &&
		printf "data <<EOT\nline commit %d\nEOT\n" $i &&
		if test $i = 1
		then
			printf "from %s\n" "$(git rev-parse base)"
		fi &&
		printf "M 644 inline line\ndata <<EOT\n%d\nEOT\n\n" $i ||
		return 1
	done >stream &&
	git fast-import --quiet --export-marks=marks <stream
}

# A change for each mark in "marks" whose number $1 accepts (a test
# expression of $i), named cN, in one update-ref.
make_changes () {
	while read mark oid
	do
		i=${mark#:} &&
		if eval "$1"
		then
			echo "create refs/metas/c$i $oid"
		fi || return 1
	done <marks >updates &&
	git update-ref --stdin <updates
}

# Amend the change c1 (checked out detached). The change was made by
# update-ref, which the content index does not know: record the amend
# in c1 by hand.
amend_bottom () {
	git checkout -q --detach metas/c1 &&
	echo amended >amended &&
	git add amended &&
	test_env GIT_TEST_ENABLE_CHANGES=false git commit -q --amend --no-edit &&
	git change update -g c1 -c HEAD -r HEAD@{1}
}

DEPTH=1000

test_expect_success 'setup' '
	test_commit base &&
	git change forget metas/base
'

test_expect_success ULIMIT_STACK_SIZE 'a line of changes deeper than the stack' '
	make_line deep $DEPTH &&
	make_changes true &&
	amend_bottom &&
	run_with_limited_stack git evolve --dry-run >out &&
	grep "^rebasing " out >rebasing &&
	test_line_count = $((DEPTH - 1)) rebasing &&
	test_grep "^rebasing metas/c2 onto metas/c1\$" out &&
	test_grep "^rebasing metas/c$DEPTH onto metas/c$((DEPTH - 1))\$" out &&
	test_grep "^moving branch deep to metas/c$DEPTH\$" out
'

test_expect_success ULIMIT_STACK_SIZE 'commits carried along deeper than the stack' '
	git checkout -q --detach base &&
	for ref in $(git for-each-ref --format="%(refname)" refs/metas/)
	do
		echo "delete $ref" || return 1
	done | git update-ref --stdin &&
	make_line carried $DEPTH &&
	make_changes "test \$i = 1 || test \$i = $DEPTH" &&
	amend_bottom &&
	run_with_limited_stack git evolve --dry-run >out &&
	grep "^rebasing " out >rebasing &&
	test_line_count = $((DEPTH - 1)) rebasing &&
	test_grep "^rebasing metas/c$DEPTH onto " out &&
	test_grep "^moving branch carried to metas/c$DEPTH\$" out
'

test_done

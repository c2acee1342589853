#!/bin/sh

test_description='git evolve restacks changes whose parent was rewritten'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh

GIT_TEST_ENABLE_CHANGES=true
export GIT_TEST_ENABLE_CHANGES

# Make a stack of commits c1..c4 on a new branch "stack" from "base".
make_stack () {
	git checkout -q -b stack base &&
	for i in 1 2 3 4
	do
		echo "line $i" >file$i &&
		git add file$i &&
		test_tick &&
		git commit -q -m "stack commit c$i" &&
		git tag c$i || return 1
	done
}

# Amend change "$1" (checked out detached), adding the file "$2".
amend_change () {
	git checkout -q --detach "metas/$1" &&
	echo "$2" >"$2" &&
	git add "$2" &&
	test_tick &&
	git commit -q --amend --no-edit
}

# "the file" (commit_the_file) amended twice from the same version, into
# two changes: "ours" edits line 1, "theirs" line 5 (and the subject).
# Sets $v0, $ours and $theirs.
amend_the_file_twice () {
	v0=$(git rev-parse HEAD) &&
	test_write_lines one 2 3 4 5 >file &&
	test_tick &&
	git commit -q -a --amend --no-edit &&
	ours=$(git rev-parse HEAD) &&
	git checkout -q --detach $v0 &&
	test_write_lines 1 2 3 4 five >file &&
	test_tick &&
	git commit -q -a --amend -m "the file, theirs" &&
	theirs=$(git rev-parse HEAD)
}

# In a new repository: "base", then "the file" with five lines on it.
commit_the_file () {
	test_commit base &&
	test_write_lines 1 2 3 4 5 >file &&
	git add file &&
	test_tick &&
	git commit -q -m "the file"
}

# In a new repository $1, on branch "main": "the file" (commit_the_file),
# "edit three" on it and "top" on that; then "the file" amended to
# conflict with "edit three", and evolve stopped on that conflict, with
# HEAD detached at the amended "the file". Sets $edit (the commit of
# "edit three") and $onto (the amended "the file").
stop_evolve_in () {
	git init -q -b main "$1" &&
	(
		cd "$1" &&
		commit_the_file &&
		test_write_lines 1 2 three 4 5 >file &&
		test_tick &&
		git commit -q -a -m "edit three" &&
		test_commit --no-tag top top.t &&
		git checkout -q --detach metas/file &&
		test_write_lines 1 2 THREE 4 5 >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git checkout -q main &&
		test_must_fail git evolve 2>err &&
		test_grep "could not rebase ${SQ}metas/edit-three${SQ} onto ${SQ}metas/file${SQ}" err
	) &&
	edit=$(git -C "$1" rev-parse metas/edit-three) &&
	onto=$(git -C "$1" rev-parse HEAD)
}

# What __git_ps1 prints, in bash (the prompt script is bash's).
git_ps1 () {
	bash -c '. "$1/contrib/completion/git-prompt.sh" && __git_ps1' - \
		"$GIT_BUILD_DIR"
}

test_lazy_prereq BASH '
	bash -c :
'

log_metas_transactions () {
	rm -f .git/transactions &&
	write_script .git/hooks/reference-transaction <<-\EOF
	if test "$1" = committed
	then
		grep -c "" >>"$(git rev-parse --git-common-dir)/transactions"
	fi
	exit 0
	EOF
}

test_expect_success 'setup' '
	test_commit base &&
	git branch -M main
'

test_expect_success 'nothing to evolve' '
	git evolve >actual &&
	echo "Nothing to evolve" >expect &&
	test_cmp expect actual
'

test_expect_success 'evolve rebases the descendants of an amended change' '
	make_stack &&
	amend_change stack-commit-c2 amended-c2 &&
	new_c2=$(git rev-parse HEAD) &&
	GIT_TRACE2_EVENT="$(pwd)/evolve.event" git evolve >actual &&
	# every change is loaded once, follow-up merges or not
	grep "\"region_enter\".*\"label\":\"load_changes\"" evolve.event >loads &&
	test_line_count = 1 loads &&
	cat >expect <<-\EOF &&
	rebasing metas/stack-commit-c3 onto metas/stack-commit-c2
	rebasing metas/stack-commit-c4 onto metas/stack-commit-c3
	moving branch stack to metas/stack-commit-c4
	EOF
	test_cmp expect actual &&
	test_cmp_rev metas/stack-commit-c3^ $new_c2 &&
	test_cmp_rev metas/stack-commit-c4^ metas/stack-commit-c3 &&
	test_cmp_rev metas/stack-commit-c4:file3 c3:file3 &&
	test_cmp_rev metas/stack-commit-c4:amended-c2 $new_c2:amended-c2 &&
	check_meta_commit metas/stack-commit-c3 "evolve: stack commit c3" \
		c $(git rev-parse metas/stack-commit-c3) r c3 &&
	check_meta_commit metas/stack-commit-c4 "evolve: stack commit c4" \
		c $(git rev-parse metas/stack-commit-c4) r c4 &&
	test_cmp_rev metas/stack-commit-c1 c1
'

test_expect_success 'a branch at a rewritten commit follows it' '
	test_cmp_rev stack metas/stack-commit-c4 &&
	git reflog -1 --format=%gs stack >actual &&
	echo evolve >expect &&
	test_cmp expect actual
'

test_expect_success 'evolve again has nothing to do' '
	git evolve >actual &&
	echo "Nothing to evolve" >expect &&
	test_cmp expect actual
'

test_expect_success '--progress shows a progress meter, --quiet does not' '
	amend_change stack-commit-c2 progress-c2 &&
	GIT_PROGRESS_DELAY=0 git evolve --dry-run --progress 2>err >out &&
	test_grep "Evolving changes: 100%" err &&
	GIT_PROGRESS_DELAY=0 git evolve --dry-run --quiet 2>err >out &&
	test_grep ! "Evolving changes" err &&
	git evolve -q
'

test_expect_success '--dry-run shows the plan and writes nothing' '
	amend_change stack-commit-c1 amended-c1 &&
	git for-each-ref >refs.before &&
	git evolve --dry-run >actual &&
	cat >expect <<-\EOF &&
	rebasing metas/stack-commit-c2 onto metas/stack-commit-c1
	rebasing metas/stack-commit-c3 onto metas/stack-commit-c2
	rebasing metas/stack-commit-c4 onto metas/stack-commit-c3
	moving branch stack to metas/stack-commit-c4
	EOF
	test_cmp expect actual &&
	git for-each-ref >refs.after &&
	test_cmp refs.before refs.after
'

test_expect_success 'all changes and branches move in one transaction' '
	log_metas_transactions &&
	test_when_finished "rm .git/hooks/reference-transaction" &&
	git evolve -q >actual &&
	test_must_be_empty actual &&
	# one transaction: three changes and the branch
	echo 4 >expect &&
	test_cmp expect .git/transactions &&
	test_cmp_rev stack metas/stack-commit-c4 &&
	git rev-list --count main..stack >actual &&
	echo 4 >expect &&
	test_cmp expect actual
'

test_expect_success 'HEAD on a branch that moves follows it, with local changes' '
	amend_change stack-commit-c3 amended-c3 &&
	git checkout -q stack &&
	echo local >>file4 &&
	echo staged >new-file &&
	git add new-file &&
	git stash list >stashes.before &&
	git evolve &&
	git symbolic-ref HEAD >actual &&
	echo refs/heads/stack >expect &&
	test_cmp expect actual &&
	test_cmp_rev HEAD metas/stack-commit-c4 &&
	test_grep local file4 &&
	test_grep staged new-file &&
	test_cmp_rev HEAD:amended-c3 metas/stack-commit-c3:amended-c3 &&
	git stash list >stashes.after &&
	test_cmp stashes.before stashes.after &&
	git reset -q --hard &&
	rm -f new-file
'

test_expect_success 'a detached HEAD at a rewritten commit follows it' '
	amend_change stack-commit-c3 again-c3 &&
	git checkout -q --detach metas/stack-commit-c4 &&
	git evolve &&
	test_must_fail git symbolic-ref -q HEAD &&
	test_cmp_rev HEAD metas/stack-commit-c4 &&
	test_cmp_rev HEAD^ metas/stack-commit-c3
'

test_expect_success 'a change that becomes empty is deleted' '
	git checkout -q --detach metas/stack-commit-c3 &&
	git show metas/stack-commit-c4:file4 >file4 &&
	git add file4 &&
	test_tick &&
	git commit -q --amend --no-edit &&
	git evolve >actual &&
	cat >expect <<-\EOF &&
	deleting metas/stack-commit-c4: it became empty on metas/stack-commit-c3
	moving branch stack to metas/stack-commit-c3
	EOF
	test_cmp expect actual &&
	test_must_fail git rev-parse --verify -q refs/metas/stack-commit-c4 &&
	test_cmp_rev stack metas/stack-commit-c3
'

test_expect_success 'an abandoned change is dropped from history' '
	test_commit --no-tag topping &&
	git cat-file commit "metas/stack-commit-c2^{metacommit}" >meta &&
	sed "s/^parent-type c r\$/parent-type a r/" meta >abandoned &&
	! test_cmp meta abandoned &&
	oid=$(git hash-object -t commit -w abandoned) &&
	old_c2=$(git rev-parse metas/stack-commit-c2) &&
	git update-ref refs/metas/stack-commit-c2 $oid &&
	git evolve >actual &&
	cat >expect <<-\EOF &&
	dropping abandoned metas/stack-commit-c2
	rebasing metas/stack-commit-c3 onto metas/stack-commit-c1
	rebasing metas/topping onto metas/stack-commit-c3
	moving branch stack to metas/stack-commit-c3
	EOF
	test_cmp expect actual &&
	test_cmp_rev metas/stack-commit-c3^ metas/stack-commit-c1 &&
	git rev-list metas/topping >list &&
	test_grep ! $old_c2 list &&
	test_path_is_missing file2
'

test_expect_success 'change abandon, then evolve drops the commit, HEAD included' '
	git init abandon &&
	(
		cd abandon &&
		for i in first second third
		do
			test_commit $i || return 1
		done &&
		git checkout -q --detach second &&
		git change abandon >out &&
		echo "Abandoned change metas/second" >expect &&
		test_cmp expect out &&
		check_meta_commit metas/second "change abandon" \
			a second r second &&
		git change list -v >out &&
		test_grep "metas/second .* (abandoned) second" out &&
		test_grep "metas/third .* (orphan) third" out &&
		git evolve >out &&
		cat >expect <<-\EOF &&
		dropping abandoned metas/second
		rebasing metas/third onto metas/first
		moving branch master to metas/third
		EOF
		test_cmp expect out &&
		test_cmp_rev metas/third^ first &&
		test_path_is_missing second.t &&
		test_cmp_rev HEAD first &&
		test_cmp_rev master metas/third &&
		test_must_fail git change abandon no-such 2>err &&
		test_grep "not a valid commit" err &&
		git checkout -q --detach master &&
		test_env GIT_TEST_ENABLE_CHANGES=false test_commit --no-tag untracked &&
		test_must_fail git change abandon 2>err &&
		echo "error: ${SQ}HEAD${SQ} is not the commit of a change" >expect &&
		test_cmp expect err
	)
'

test_expect_success 'change abandon moves HEAD and its branch to the parent at once' '
	git init abandon-head &&
	(
		cd abandon-head &&
		test_commit first &&
		test_commit second &&
		test_commit third &&
		echo local >>first.t &&
		git change abandon >out 2>err &&
		echo "Abandoned change metas/third" >expect &&
		test_cmp expect out &&
		test_grep "HEAD is now at $(git rev-parse --short second) second" err &&
		test_cmp_rev HEAD second &&
		test_cmp_rev master second &&
		git symbolic-ref HEAD >actual &&
		echo refs/heads/master >expect &&
		test_cmp expect actual &&
		test_path_is_missing third.t &&
		git diff --name-only >actual &&
		echo first.t >expect &&
		test_cmp expect actual &&
		git reflog -1 master >actual &&
		test_grep "change abandon" actual &&
		test_cmp_rev metas/third third &&

		git change abandon first >out 2>err &&
		echo "Abandoned change metas/first" >expect &&
		test_cmp expect out &&
		test_must_be_empty err &&
		test_cmp_rev HEAD second
	)
'

test_expect_success 'change abandon leaves HEAD at a root commit, or while a merge is in progress' '
	(
		cd abandon-head &&
		git checkout -q --detach first &&
		git change abandon 2>err &&
		test_grep "HEAD stays on the abandoned commit: it has no parent" err &&
		test_cmp_rev HEAD first &&
		git checkout -q --detach second &&
		git rev-parse first >.git/MERGE_HEAD &&
		test_when_finished "rm -f .git/MERGE_HEAD" &&
		git change abandon 2>err &&
		test_grep "another command is in progress" err &&
		test_cmp_rev HEAD second
	)
'

test_expect_success 'change restore brings an abandoned change back to life' '
	(
		cd abandon-head &&
		rm -f .git/MERGE_HEAD &&
		git checkout -q master &&
		git change restore third >out &&
		echo "Restored change metas/third" >expect &&
		test_cmp expect out &&
		check_meta_commit metas/third "change restore: third" \
			c third r "metas/third^{metacommit}^2" &&
		git change list -v >out &&
		test_grep ! "metas/third .*abandoned" out &&
		test_must_fail git change restore third 2>err &&
		test_grep "change .metas/third. is neither hidden nor abandoned" err
	)
'

test_expect_success 'a conflict stops evolve with the conflict in the work tree' '
	git checkout -q --detach metas/stack-commit-c1 &&
	echo conflicting >file3 &&
	git add file3 &&
	test_tick &&
	git commit -q --amend --no-edit &&
	git checkout -q stack &&
	echo local >>file1 &&
	echo untracked >untracked &&
	git for-each-ref >refs.before &&
	git rev-parse HEAD >head.before &&
	cp file1 file1.before &&
	git status --porcelain --untracked-files=no >status.before &&
	test_must_fail git evolve >out 2>err &&
	test_grep "could not rebase ${SQ}metas/stack-commit-c3${SQ} onto ${SQ}metas/stack-commit-c1${SQ}: conflict" err &&
	test_grep "^  file3\$" err &&
	test_grep "git evolve --continue" err &&
	git for-each-ref >refs.after &&
	test_cmp refs.before refs.after &&
	test_must_fail git symbolic-ref -q HEAD &&
	test_cmp_rev HEAD metas/stack-commit-c1 &&
	git ls-files -u file3 >unmerged &&
	test_line_count = 2 unmerged &&
	test_grep "^<<<<<<<" file3 &&
	test_path_is_dir .git/evolve
'

test_expect_success 'what evolve did is told before the conflict that stopped it' '
	git init told-before &&
	(
		cd told-before &&
		test_commit --no-tag bottom f1 one &&
		test_commit --no-tag middle f2 &&
		test_commit --no-tag top f1 two &&
		git checkout -q metas/bottom &&
		echo three >f1 &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		# stdout and stderr into one file, as through a pipe
		test_must_fail git evolve >out 2>&1 &&
		head -n 1 out >first &&
		echo "rebasing metas/middle onto metas/bottom" >expect &&
		test_cmp expect first &&
		test_grep "^error: could not rebase ${SQ}metas/top${SQ} onto ${SQ}metas/middle${SQ}" out &&
		git evolve --abort
	)
'

test_expect_success 'a stopped evolve must be resumed or aborted' '
	test_must_fail git evolve 2>err &&
	test_grep "an evolve is in progress" err &&
	test_must_fail git evolve --continue 2>err &&
	test_grep "resolve the conflicts" err
'

test_expect_success '--abort goes back to where evolve started' '
	git evolve --abort &&
	git symbolic-ref HEAD >actual &&
	echo refs/heads/stack >expect &&
	test_cmp expect actual &&
	git rev-parse HEAD >head.after &&
	test_cmp head.before head.after &&
	git for-each-ref >refs.after &&
	test_cmp refs.before refs.after &&
	test_cmp file1.before file1 &&
	git status --porcelain --untracked-files=no >status.after &&
	test_path_is_file untracked &&
	test_cmp status.before status.after &&
	test_path_is_missing .git/evolve
'

test_expect_success '--continue after the conflict is resolved' '
	old_meta=$(git rev-parse "metas/stack-commit-c3^{metacommit}") &&
	test_must_fail git evolve &&
	echo resolved >file3 &&
	git add file3 &&
	git evolve --continue >out &&
	test_grep "rebasing metas/topping onto metas/stack-commit-c3" out &&
	test_path_is_missing .git/evolve &&
	test_cmp_rev metas/stack-commit-c3^ metas/stack-commit-c1 &&
	echo resolved >expect &&
	git show metas/stack-commit-c3:file3 >actual &&
	test_cmp expect actual &&
	check_meta_commit metas/stack-commit-c3 "evolve: stack commit c3" \
		c $(git rev-parse metas/stack-commit-c3) \
		r $old_meta &&
	test_cmp_rev metas/topping^ metas/stack-commit-c3 &&
	git symbolic-ref HEAD >actual &&
	echo refs/heads/stack >expect &&
	test_cmp expect actual &&
	test_cmp_rev stack metas/stack-commit-c3 &&
	test_cmp file1.before file1 &&
	git evolve >actual &&
	echo "Nothing to evolve" >expect &&
	test_cmp expect actual
'

test_expect_success '--skip leaves the conflicting change where it is' '
	git checkout -- file1 &&
	git checkout -q --detach metas/stack-commit-c1 &&
	echo other >file3 &&
	git add file3 &&
	test_tick &&
	git commit -q --amend --no-edit &&
	git checkout -q stack &&
	c3=$(git rev-parse metas/stack-commit-c3) &&
	test_must_fail git evolve &&
	git evolve --skip &&
	test_path_is_missing .git/evolve &&
	test_cmp_rev metas/stack-commit-c3 $c3 &&
	git symbolic-ref HEAD >actual &&
	echo refs/heads/stack >expect &&
	test_cmp expect actual &&
	test_cmp_rev stack $c3 &&
	git status --porcelain --untracked-files=no >actual &&
	test_must_be_empty actual
'

test_expect_success '--continue, --skip and --abort need a stopped evolve' '
	test_must_fail git evolve --continue 2>err &&
	test_grep "no evolve in progress" err &&
	test_must_fail git evolve --skip 2>err &&
	test_grep "no evolve in progress" err &&
	test_must_fail git evolve --abort 2>err &&
	test_grep "no evolve in progress" err
'

test_expect_success 'gc keeps what a stopped evolve has rebased' '
	git init gc &&
	(
		cd gc &&
		test_commit first &&
		test_commit second &&
		test_commit third c.t c-from-third &&
		git checkout -q --detach first &&
		echo c-from-first >c.t &&
		git add c.t &&
		test_tick &&
		git commit -q --amend --no-edit &&
		test_must_fail git evolve &&
		head -n 1 .git/evolve/done >done &&
		new_b=$(cut -d" " -f1 done) &&
		test_cmp_rev $new_b^ metas/first &&
		git gc -q --prune=now &&
		git cat-file -e $new_b &&
		echo resolved >c.t &&
		git add c.t &&
		git evolve --continue &&
		test_cmp_rev metas/second $new_b &&
		test_cmp_rev metas/third^ metas/second
	)
'

# The pack (.git/objects/pack/*.pack) that holds the object "$1".
pack_holding () {
	for idx in .git/objects/pack/*.idx
	do
		if git show-index <"$idx" | grep -q " $1 "
		then
			echo "${idx%.idx}.pack"
			return 0
		fi
	done
	return 1
}

test_expect_success 'evolve writes its commits and metacommits as two packs' '
	git init packs &&
	(
		cd packs &&
		# Maintenance after evolve may repack what we count.
		git config maintenance.auto false &&
		test_commit base &&
		for i in $(test_seq 12)
		do
			test_commit item$i || return 1
		done &&
		git gc -q &&
		git checkout -q --detach item1 &&
		test_tick &&
		git commit -q --amend -m "item 1, amended" &&
		git count-objects -v >before &&
		git evolve &&
		git count-objects -v >after &&

		# No loose object more, two packs more.
		grep "^count:" before >expect &&
		grep "^count:" after >actual &&
		test_cmp expect actual &&
		echo "packs: $(($(sed -n "s/^packs: //p" before) + 2))" >expect &&
		grep "^packs:" after >actual &&
		test_cmp expect actual &&
		test_cmp_rev metas/item12~11 metas/item1 &&

		# Checking a metacommit reads its content from the other
		# pack: fsck must check every pack all the same.
		commits=$(pack_holding $(git rev-parse metas/item12^{commit})) &&
		metacommits=$(pack_holding $(git for-each-ref --format="%(objectname)" refs/metas/item12)) &&
		test "$commits" != "$metacommits" &&
		test-tool chmtime =-200 "$commits" &&
		test-tool chmtime =-100 "$metacommits" &&
		git fsck 2>err &&
		test_must_be_empty err
	)
'

test_expect_success 'evolve runs auto maintenance once it has rewritten' '
	git init maint &&
	(
		cd maint &&
		test_commit base &&
		test_commit one &&
		test_commit two &&
		git checkout -q --detach one &&
		test_tick &&
		git commit -q --amend -m "one, amended" &&

		GIT_TRACE2_EVENT="$(pwd)/dry-run.txt" git evolve --dry-run &&
		test_subcommand ! git maintenance run --auto --no-quiet --no-detach \
			<dry-run.txt &&
		GIT_TRACE2_EVENT="$(pwd)/evolve.txt" git evolve &&
		test_subcommand git maintenance run --auto --no-quiet --no-detach \
			<evolve.txt &&
		GIT_TRACE2_EVENT="$(pwd)/nothing.txt" git evolve -q &&
		test_subcommand ! git maintenance run --auto --quiet --no-detach \
			<nothing.txt
	)
'

test_expect_success 'a conflict after many picks finds them all on disk' '
	git init packs-conflict &&
	(
		cd packs-conflict &&
		# Maintenance after evolve may repack what we count.
		git config maintenance.auto false &&
		test_commit base &&
		for i in $(test_seq 10)
		do
			test_commit item$i || return 1
		done &&
		test_commit last base.t from-last &&
		git checkout -q --detach item1 &&
		echo from-item1 >base.t &&
		git add base.t &&
		test_tick &&
		git commit -q --amend --no-edit &&
		test_must_fail git evolve &&
		test_line_count = 9 .git/evolve/done &&
		git fsck 2>err &&
		test_must_be_empty err &&
		echo resolved >base.t &&
		git add base.t &&
		git evolve --continue &&
		test_cmp_rev metas/item10~9 metas/item1 &&
		test_cmp_rev metas/last^ metas/item10
	)
'

test_expect_success 'the example session of the design' '
	git init -q --bare upstream.git &&
	git clone -q upstream.git example 2>/dev/null &&
	(
		cd example &&
		git checkout -q -b master &&
		test_commit --no-tag "Initial commit" initial.txt &&
		echo merged >merged.txt && git add . &&
		git commit -q -m "Some change already merged upstream" &&
		git push -q origin HEAD:master &&

		# First create three dependent changes
		echo foo>bar.txt && git add . &&
		git commit -q -m "This is a test" &&
		echo foo2>bar2.txt && git add . &&
		git commit -q -m "This is also a test" &&
		echo foo3>bar3.txt && git add . &&
		git commit -q -m "More testing" &&
		git change list >actual &&
		cat >expect <<-\EOF &&
		metas/more-testing
		metas/also-test
		metas/test
		metas/some-change-already
		metas/initial-commit
		EOF
		test_cmp expect actual &&

		# Now modify the earliest change, using its stable name
		git reset -q --hard metas/test &&
		echo morefoo>>bar.txt && git add . && git commit -q --amend --no-edit &&

		# Use git-evolve to fix up any dependent changes
		git evolve >actual &&
		cat >expect <<-\EOF &&
		rebasing metas/also-test onto metas/test
		rebasing metas/more-testing onto metas/also-test
		EOF
		test_cmp expect actual &&

		# Now create an unrelated change
		git reset -q --hard origin/master &&
		echo newchange>unrelated.txt && git add . &&
		git commit -q -m "Unrelated change" &&

		# Upstream moves on, with a conflicting file
		git clone -q ../upstream.git ../other &&
		(
			cd ../other &&
			echo theirs >unrelated.txt &&
			git add . &&
			git commit -q -m "Upstream work" &&
			git push -q origin HEAD:master
		) &&

		# Fetch the latest code from origin/master and evolve onto it
		git fetch -q origin master &&
		test_must_fail git evolve origin/master >out 2>err &&
		test_grep "deleting metas/initial-commit: it is in origin/master" out &&
		test_grep "deleting metas/some-change-already: it is in origin/master" out &&
		test_grep "rebasing metas/test onto origin/master" out &&
		test_grep "rebasing metas/also-test onto metas/test" out &&
		test_grep "rebasing metas/more-testing onto metas/also-test" out &&
		test_grep "could not rebase ${SQ}metas/unrelated-change${SQ} onto ${SQ}origin/master${SQ}: conflict" err &&

		# Sort out the conflict
		echo newchange >unrelated.txt &&
		git add unrelated.txt &&
		git evolve --continue >out &&
		test_grep ! "rebasing metas/test" out &&
		test_must_fail git rev-parse -q --verify refs/metas/some-change-already &&
		test_cmp_rev metas/test^ origin/master &&
		test_cmp_rev metas/more-testing~2 metas/test &&
		test_cmp_rev metas/unrelated-change^ origin/master &&
		git symbolic-ref HEAD >actual &&
		echo refs/heads/master >expect &&
		test_cmp expect actual &&
		test_cmp_rev master metas/unrelated-change &&
		git evolve origin/master >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual &&

		# Share the full history of edits for the this_is_a_test
		# change with a review server
		git push -q origin metas/test:refs/for/master &&
		git -C ../upstream.git cat-file commit refs/for/master >meta &&
		test_grep "^parent-type c r" meta &&
		test_cmp_rev "metas/test^{metacommit}" \
			"$(git -C ../upstream.git rev-parse refs/for/master)" &&
		# A review server takes the pushed ref in (Gerrit makes a
		# review of it); without that, the next push would be refused
		# as a non-fast-forward.
		git -C ../upstream.git update-ref -d refs/for/master &&
		# Share the latest commit for "Unrelated change", without history
		git push -q origin HEAD:refs/for/master &&
		test_cmp_rev HEAD "$(git -C ../upstream.git rev-parse refs/for/master)" &&

		# A collaborator fetches the modifications to the change,
		# which updates refs/remotes/origin/metas/test
		git push -q origin metas/test &&
		git -C ../other change share >/dev/null &&
		git -C ../other fetch -q origin metas/test &&
		test_cmp_rev "metas/test^{metacommit}" \
			"$(git -C ../other rev-parse refs/remotes/origin/metas/test)" &&
		test_cmp_rev metas/test \
			"$(git -C ../other rev-parse origin/metas/test)"
	)
'

test_expect_success 'next and prev walk a stack of changes' '
	git init walk &&
	(
		cd walk &&
		for i in first second third
		do
			test_commit $i || return 1
		done &&
		git checkout -q metas/first &&
		git next 2>err &&
		test_grep "HEAD is now at $(git rev-parse --short second) second" err &&
		test_cmp_rev HEAD second &&
		git next &&
		test_cmp_rev HEAD third &&
		test_must_fail git next 2>err &&
		test_grep "no change is built on HEAD" err &&
		test_cmp_rev HEAD third &&
		git prev &&
		test_cmp_rev HEAD second &&
		test_must_fail git symbolic-ref -q HEAD &&
		git next -q 2>err &&
		test_must_be_empty err &&
		test_cmp_rev HEAD third &&
		git prev --quiet 2>err &&
		test_must_be_empty err &&
		test_cmp_rev HEAD second
	)
'

test_expect_success 'next and prev keep a staged change staged' '
	(
		cd walk &&
		echo staged >first.t &&
		git add first.t &&
		git prev &&
		test_cmp_rev HEAD first &&
		git diff --cached --name-only >actual &&
		echo first.t >expect &&
		test_cmp expect actual &&
		git next &&
		test_cmp_rev HEAD second &&
		git diff --cached --name-only >actual &&
		test_cmp expect actual &&
		git commit -q -m "with the staged change" &&
		git show --format= --name-only HEAD >actual &&
		test_cmp expect actual &&
		git reset -q --hard second
	)
'

test_expect_success 'prev goes to the newest version of the parent' '
	(
		cd walk &&
		git checkout -q metas/first &&
		test_tick &&
		git commit -q --amend -m "first amended" &&
		amended=$(git rev-parse HEAD) &&
		git checkout -q metas/second &&
		git prev &&
		test_cmp_rev HEAD $amended
	)
'

test_expect_success 'next goes to an orphan, or evolves it first with --evolve' '
	(
		cd walk &&
		git next &&
		test_cmp_rev HEAD second &&
		git prev &&
		git next --evolve >out &&
		test_grep "rebasing metas/second onto metas/first" out &&
		test_cmp_rev HEAD metas/second &&
		test_cmp_rev HEAD^ metas/first
	)
'

test_expect_success 'next lists the candidates instead of guessing' '
	(
		cd walk &&
		git checkout -q metas/first &&
		test_commit --no-tag sidestep &&
		git checkout -q metas/first &&
		test_must_fail git next 2>err &&
		test_grep "several changes are built on HEAD" err &&
		test_grep "^  metas/second\$" err &&
		test_grep "^  metas/sidestep\$" err &&
		test_grep "^hint: Check out the one you want" err &&
		test_cmp_rev HEAD metas/first &&
		test_must_fail git -c advice.nextAmbiguous=false next 2>err &&
		test_grep "several changes are built on HEAD" err &&
		test_grep ! "^hint:" err
	)
'

test_expect_success 'deleted changes are hidden, and restore brings them back' '
	git init restore &&
	(
		cd restore &&
		test_commit base &&
		test_commit landed &&
		git branch upstream &&
		git evolve upstream >out &&
		test_grep "deleting metas/landed: it is in upstream" out &&
		test_must_fail git rev-parse -q --verify refs/metas/landed &&
		test_cmp_rev hiddenmetas/landed landed &&
		git change restore landed >out &&
		echo "Restored change metas/landed" >expect &&
		test_cmp expect out &&
		test_cmp_rev metas/landed landed &&
		test_must_fail git rev-parse -q --verify refs/hiddenmetas/landed &&
		test_must_fail git change restore landed 2>err &&
		test_grep "change .metas/landed. is neither hidden nor abandoned" err &&
		test_must_fail git change restore no-such-change 2>err &&
		test_grep "no hidden or abandoned change .no-such-change." err &&
		git evolve -q upstream &&
		git change update -c landed -g landed &&
		test_must_fail git change restore hiddenmetas/landed 2>err &&
		test_grep "change .metas/landed. exists" err &&
		test_cmp_rev hiddenmetas/landed landed
	)
'

test_expect_success 'gc deletes the changes hidden longer than gc.hiddenChangesExpire' '
	git init expire &&
	(
		cd expire &&
		test_commit base &&
		commit_secret_and_amend_it_out &&
		git branch upstream &&
		git evolve -q upstream &&
		git rev-parse --verify -q refs/hiddenmetas/add-parser &&
		git reflog expire --expire=now --all &&

		# Hidden at test_tick time, in April 2005, until expired.
		git -c gc.hiddenChangesExpire=2005-04-01 gc -q --prune=now &&
		git -c gc.reflogExpireUnreachable=2005-04-01 gc -q --prune=now &&
		git -c gc.hiddenChangesExpire=never gc -q --prune=now &&
		git rev-parse --verify -q refs/hiddenmetas/add-parser &&
		git cat-file -e $blob &&
		git change restore add-parser &&
		git evolve -q upstream &&

		git -c gc.hiddenChangesExpire=2005-04-01 \
			-c gc.reflogExpireUnreachable=now gc -q --prune=now &&
		git rev-parse --verify -q refs/hiddenmetas/add-parser &&
		git reflog expire --expire=now --all &&
		mkdir .git/rebase-merge &&
		git -c gc.hiddenChangesExpire=now gc -q &&
		git rev-parse --verify -q refs/hiddenmetas/add-parser &&
		rmdir .git/rebase-merge &&
		git -c gc.hiddenChangesExpire=now gc -q --prune=now &&
		test_must_fail git rev-parse --verify -q refs/hiddenmetas/add-parser &&
		test_must_fail git cat-file -e $blob &&
		git change list --hidden >out &&
		test_must_be_empty out &&
		test_must_fail git change restore add-parser 2>err &&
		test_grep "no hidden or abandoned change" err
	)
'

test_expect_success 'gc keeps what it cannot date under refs/hiddenmetas/' '
	tree=$(git -C expire write-tree) &&
	git -C expire update-ref refs/hiddenmetas/not-a-change $tree &&
	git -C expire -c gc.hiddenChangesExpire=now gc -q 2>err &&
	test_grep "ignoring .refs/hiddenmetas/not-a-change." err &&
	echo $tree >expect &&
	git -C expire rev-parse refs/hiddenmetas/not-a-change >actual &&
	test_cmp expect actual
'

test_expect_success 'divergence stops evolve before anything moves' '
	git init diverge &&
	(
		cd diverge &&
		test_commit A &&
		test_commit B &&
		test_commit C &&
		git checkout -q --detach B &&
		test_tick &&
		git commit -q --amend -m "B one" &&
		git checkout -q --detach B &&
		test_tick &&
		git commit -q --amend -m "B two" &&
		git change list >changes &&
		test_line_count = 4 changes &&
		git for-each-ref >refs.before &&
		test_must_fail git evolve 2>err &&
		test_grep "^error: commit $(git rev-parse --short B) is replaced by both ${SQ}metas/b${SQ} and ${SQ}metas/b-2${SQ} (divergence)\$" err &&
		test_grep "^hint:   git checkout metas/b && git merge --amend metas/b-2\$" err &&
		test_must_fail git -c advice.evolveDivergence=false evolve 2>err &&
		test_grep "^error: commit .* (divergence)\$" err &&
		test_grep ! "^hint:" err &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after
	)
'

test_expect_success 'change copy keeps both versions of a divergent commit' '
	cp -R diverge diverge-copy &&
	(
		cd diverge-copy &&
		test_must_fail git evolve 2>err &&
		test_grep "^hint: one as a copy, with \"git change copy metas/b-2\".\$" err &&
		old_head=$(git rev-parse "metas/b-2^{metacommit}") &&
		two=$(git rev-parse metas/b-2) &&
		git change copy metas/b-2 >out &&
		test_grep "Change metas/b-2 is now a copy" out &&
		check_meta_commit metas/b-2 "change copy: B two" \
			c $two o $old_head &&
		git change list -v >list &&
		test_grep ! divergent list &&
		git evolve >out &&
		test_grep "^rebasing metas/c onto metas/b\$" out &&
		test_cmp_rev metas/b-2 $two &&
		git log --obslog metas/b-2 >obslog &&
		test_grep "change copy: B two" obslog &&

		test_must_fail git change copy metas/no-such 2>err &&
		test_grep "change .metas/no-such. not found" err &&
		test_commit --no-tag fresh &&
		test_must_fail git change copy metas/fresh 2>err &&
		test_grep "has no history to turn into a copy" err
	)
'

test_expect_success 'merge --amend resolves divergence as in the design' '
	git init merge-amend &&
	(
		cd merge-amend &&
		touch foo && git add . && git commit -q -m "foo" && git tag A &&
		touch bar && git add . && git commit -q -m "bar" && git tag B &&
		touch baz && git add . && git commit -q --amend -m "bar and baz" &&
		git tag C &&
		git checkout -q B &&
		touch bam && git add . && git commit -q --amend -m "bar and bam" &&
		git tag D &&
		test_cmp_rev metas/foo A &&
		test_cmp_rev metas/bar C &&
		test_cmp_rev metas/bar-2 D &&
		c_meta=$(git rev-parse "metas/bar^{metacommit}") &&
		d_meta=$(git rev-parse "metas/bar-2^{metacommit}") &&
		test_must_fail git evolve 2>err &&
		test_must_fail git evolve --dry-run 2>err &&

		git merge --amend metas/bar &&
		test_cmp_rev HEAD^ A &&
		test_must_fail git rev-parse --verify -q HEAD^2 &&
		git ls-tree --name-only HEAD >actual &&
		test_write_lines bam bar baz foo >expect &&
		test_cmp expect actual &&
		git log -1 --format=%s >actual &&
		echo "bar and bam" >expect &&
		test_cmp expect actual &&
		check_meta_commit metas/bar "merge --amend: bar and bam" \
			c HEAD r $d_meta r $c_meta &&
		test_cmp_rev "metas/bar^{metacommit}" "metas/bar-2^{metacommit}" &&
		# master, at the obsolete first amend, follows the merge
		git evolve >actual &&
		echo "moving branch master to metas/bar" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'merge-base --changes and merge --amend use the common earlier version' '
	git init meta-base &&
	(
		cd meta-base &&
		commit_the_file &&
		v0=$(git rev-parse HEAD) &&
		test_write_lines one 2 3 4 5 >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		v1=$(git rev-parse HEAD) &&
		git checkout -q --detach $v0 &&
		test_write_lines 1 2 3 4 five >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		v2=$(git rev-parse HEAD) &&
		echo $v0 >expect &&
		git merge-base --changes $v1 $v2 >actual &&
		test_cmp expect actual &&
		git merge-base --changes --all $v2 $v1 >actual &&
		test_cmp expect actual &&
		git merge-base --changes $v0 $v1 >actual &&
		test_cmp expect actual &&
		# not versions of one change: the commit graph decides
		git rev-parse base >expect &&
		git merge-base --changes base $v1 >actual &&
		test_cmp expect actual &&
		# without --changes the commit graph answers, as upstream
		git merge-base $v1 $v2 >actual &&
		test_cmp expect actual &&
		git merge-base --all $v0 $v1 >actual &&
		test_cmp expect actual &&
		test_must_fail git merge-base --changes --octopus $v1 $v2 2>err &&
		test_grep "options .--changes. and .--octopus. cannot be used together" err &&

		# versions only known from a fetch count too
		git clone -q --no-local . ../meta-base-clone &&
		git -C ../meta-base-clone fetch -q origin \
			"+refs/metas/*:refs/remotes/origin/metas/*" &&
		echo $v0 >expect &&
		git -C ../meta-base-clone merge-base --changes $v1 $v2 >actual &&
		test_cmp expect actual &&
		git rev-parse base >expect &&

		# the common parent would make the two add the whole file
		git merge --amend $v1 &&
		test_write_lines one 2 3 4 five >expect &&
		test_cmp expect file &&
		test_cmp_rev HEAD^ base
	)
'

test_expect_success 'evolve --auto-merge merges divergent versions, unless they conflict' '
	git init auto-merge &&
	(
		cd auto-merge &&
		commit_the_file &&
		v0=$(git rev-parse HEAD) &&
		test_commit --no-tag child &&
		git checkout -q --detach $v0 &&
		test_write_lines one 2 3 4 5 >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git checkout -q --detach $v0 &&
		test_write_lines 1 2 3 4 five >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		test_must_fail git evolve 2>err &&
		test_grep "divergence" err &&
		test_grep ! "auto-merge" err &&
		git for-each-ref >refs.before &&
		git evolve --auto-merge --dry-run >dry-run &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after &&
		git evolve --auto-merge >out &&
		test_cmp dry-run out &&
		test_grep "^merging the divergent versions of metas/" out &&
		test_grep "^rebasing metas/child onto metas/" out &&
		test_write_lines one 2 3 4 five >expect &&
		git show metas/child^:file >actual &&
		test_cmp expect actual &&
		test_cmp_rev metas/child~2 base &&
		git evolve >out &&
		test_grep "Nothing to evolve" out &&

		# two versions that conflict: it stops as without the option
		git checkout -q --detach metas/child^ &&
		test_write_lines ONE 2 3 4 five >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git checkout -q --detach HEAD@{2} &&
		test_write_lines uno 2 3 4 five >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git for-each-ref >refs.before &&
		test_must_fail git evolve --auto-merge 2>err &&
		test_grep "auto-merge could not merge them: they conflict" err &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after
	)
'

test_expect_success 'a follow-up merge of divergent versions resolves the divergence' '
	git init follow-up-merge &&
	(
		cd follow-up-merge &&
		commit_the_file &&
		amend_the_file_twice &&
		ours_meta=$(git rev-parse "metas/file^{metacommit}") &&
		theirs_meta=$(git rev-parse "metas/file-2^{metacommit}") &&
		test_cmp_rev metas/file-2 $theirs &&

		# The user merges the two versions in a change of its own
		# (both sides rewrote line 1..5 from one base: resolve by hand).
		git checkout -q --detach $ours &&
		test_must_fail git merge -q --no-edit $theirs >/dev/null &&
		test_write_lines one 2 3 4 five >file &&
		test_tick &&
		git commit -q -a -m "merge the two versions" &&
		merge=$(git rev-parse HEAD) &&
		test_commit --no-tag child &&

		git for-each-ref >refs.before &&
		test_must_fail git evolve --no-follow-up-merges 2>err &&
		test_grep "divergence" err &&
		# A dry run says what the run does after the squash too.
		git count-objects -v >objects.before &&
		git evolve --dry-run >dry-run &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after &&
		git count-objects -v >objects.after &&
		test_cmp objects.before objects.after &&

		git evolve >out &&
		test_cmp dry-run out &&
		test_grep "^squashing metas/merge-two-versions into the divergent versions of metas/file and metas/file-2\$" out &&
		test_grep "^rebasing metas/child onto metas/" out &&

		# The squashed merge: its tree, the parent of both versions,
		# the message of its first parent; it replaces all three.
		test_cmp_rev HEAD^^ base &&
		test_cmp_rev HEAD^^{tree} $merge^{tree} &&
		test_must_fail git rev-parse -q --verify HEAD^^2 &&
		echo "the file" >expect &&
		git log -1 --format=%s HEAD^ >actual &&
		test_cmp expect actual &&
		check_meta_commit metas/file \
			"evolve (follow-up merge): the file" \
			c HEAD^ r $ours_meta r $theirs_meta r $merge &&
		test_cmp_rev "metas/file-2^{metacommit}" "metas/file^{metacommit}" &&
		git evolve >out &&
		test_grep "Nothing to evolve" out
	)
'

test_expect_success 'merge --amend refuses a dirty tree, stops on conflicts, --abort puts all back' '
	(
		cd merge-amend &&
		git checkout -q --detach A &&
		echo one >foo && git commit -q -a -m "foo one" &&
		git checkout -q --detach A &&
		echo two >foo && git commit -q -a -m "foo two" &&
		echo dirty >>foo &&
		test_must_fail git merge --amend HEAD@{2} 2>err &&
		test_grep "commit or stash" err &&
		git checkout -q foo &&
		git for-each-ref >refs.before &&
		git rev-parse HEAD >head.before &&
		cp foo foo.before &&
		test_expect_code 1 git merge --amend HEAD@{2} >out 2>err &&
		test_grep "CONFLICT (content): Merge conflict in foo" out &&
		test_grep "Automatic merge failed; fix conflicts and then commit the result." out &&
		test_grep "hint: After resolving the conflicts, mark them with \"git add\" and run" err &&
		test_grep "^<<<<<<< HEAD\$" foo &&
		test_grep "^>>>>>>> HEAD@{2}\$" foo &&
		git ls-files -u foo >unmerged &&
		test_line_count = 3 unmerged &&
		git status >status &&
		test_grep "git merge --abort" status &&
		test_must_fail git merge --amend HEAD@{2} 2>err &&
		test_grep "You have not concluded your merge" err &&
		git merge --abort &&
		test_cmp foo.before foo &&
		git rev-parse HEAD >head.after &&
		test_cmp head.before head.after &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after &&
		rm foo.before refs.* head.* &&
		git status --porcelain --untracked-files=no >status &&
		test_must_be_empty status &&
		test_path_is_missing .git/MERGE_HEAD &&
		test_path_is_missing .git/MERGE_MODE &&
		test_path_is_missing .git/MERGE_MSG
	)
'

test_expect_success 'merge --amend concluded after a conflict replaces both versions' '
	(
		cd merge-amend &&
		git checkout -q --detach A &&
		echo one >foo && test_tick && git commit -q -a -m "foo one" &&
		one=$(git rev-parse HEAD) &&
		git checkout -q --detach A &&
		echo two >foo && git commit -q -a -m "foo two" &&
		two=$(git rev-parse HEAD) &&
		test_expect_code 1 git merge --amend $one >/dev/null 2>&1 &&
		echo "one and two" >foo &&
		git add foo &&
		test_tick &&
		git merge --continue &&
		test_path_is_missing .git/MERGE_HEAD &&
		test_path_is_missing .git/MERGE_MODE &&
		git rev-parse HEAD^@ >parents &&
		git rev-parse A >expect &&
		test_cmp expect parents &&
		git log -1 --format="%s%n%an <%ae> %ad" $two >expect &&
		git log -1 --format="%s%n%an <%ae> %ad" HEAD >actual &&
		test_cmp expect actual &&
		git reflog -1 --format=%gs HEAD >actual &&
		echo "commit (merge --amend): foo two" >expect &&
		test_cmp expect actual &&
		echo "one and two" >expect &&
		git show HEAD:foo >actual &&
		test_cmp expect actual &&
		git change list --porcelain >list &&
		grep " $(git rev-parse HEAD) current -\$" list >holders &&
		test_line_count = 2 holders &&
		cut -d " " -f 2 holders | sort -u >metacommits &&
		test_line_count = 1 metacommits &&
		check_meta_commit "$(cut -d " " -f 1 holders | head -n 1)" \
			"commit (merge --amend): foo two" c HEAD r $two r $one
	)
'

test_expect_success 'merge --amend after a conflict: ORIG_HEAD, rerere, orphans of either side' '
	(
		cd merge-amend &&
		test_config rerere.enabled true &&
		git checkout -q -b above-one A &&
		echo one >foo && git commit -q -a -m "foo one" &&
		one=$(git rev-parse HEAD) &&
		echo above >above && git add above && git commit -q -m "above one" &&
		git checkout -q --detach A &&
		echo two >foo && git commit -q -a -m "foo two" &&
		two=$(git rev-parse HEAD) &&
		test_expect_code 1 git merge --amend $one >out 2>&1 &&
		test_grep "Recorded preimage for .foo." out &&
		git rev-parse ORIG_HEAD >actual &&
		echo $two >expect &&
		test_cmp expect actual &&
		echo "one and two" >foo &&
		git add foo &&
		git merge --continue 2>err &&
		test_grep "^hint: 1 change is built on a commit you rewrote" err &&

		# the same conflict again is resolved as it was then
		git checkout -q --detach $two &&
		test_expect_code 1 git merge --amend $one >out 2>&1 &&
		test_grep "Resolved .foo. using previous resolution" out &&
		echo "one and two" >expect &&
		test_cmp expect foo &&
		git merge --abort
	)
'

test_expect_success 'amending an earlier version again says divergent, and so does status' '
	git init divergent-status &&
	(
		cd divergent-status &&
		test_commit base &&
		echo one >f && git add f && git commit -q -m "add f" &&
		first=$(git rev-parse HEAD) &&
		echo two >f && git commit -q -a --amend --no-edit 2>err &&
		test_grep ! "divergence" err &&
		git status >actual &&
		test_grep ! "divergent" actual &&
		git checkout -q --detach $first &&
		echo three >f && git commit -q -a --amend --no-edit 2>err &&
		test_grep "hint: metas/add-f-2 and metas/add-f were both amended from one version (divergence); merge them with" err &&
		test_grep "hint:   git checkout metas/add-f-2 && git merge --amend metas/add-f" err &&
		git status >actual &&
		test_grep "^2 changes are divergent: each was amended twice from one version.\$" actual &&
		test_grep "use \"git change list -v\" to see them" actual &&
		git -c advice.statusHints=false status >actual &&
		test_grep ! "git change list -v" actual &&

		# what the state file says is only a hint, checked against the refs
		echo "refs/metas/add-f-2 refs/heads/master" >>.git/evolve-divergent &&
		echo "garbage" >>.git/evolve-divergent &&
		echo "refs/metas/../x refs/metas/add-f" >>.git/evolve-divergent &&
		git status >actual &&
		test_grep "^2 changes are divergent" actual &&

		test_expect_code 1 git merge --amend metas/add-f >/dev/null &&
		echo "two and three" >f &&
		git add f &&
		git merge --continue &&
		git status >actual &&
		test_grep ! "divergent" actual &&
		git evolve &&
		test_path_is_missing .git/evolve-divergent
	)
'

test_expect_success 'rebasing an earlier version again says divergent, and so does status' '
	git init divergent-rebase &&
	(
		cd divergent-rebase &&
		test_commit base &&
		test_commit other &&
		git checkout -q -b topic base &&
		echo one >f && git add f && git commit -q -m "add f" &&
		first=$(git rev-parse HEAD) &&
		echo two >f && git commit -q -a --amend --no-edit &&
		git checkout -q --detach $first &&
		git rebase -q other 2>err &&
		test_grep "hint: metas/add-f-2 and metas/add-f were both amended from one version (divergence); merge them with" err &&
		git status >actual &&
		test_grep "^2 changes are divergent" actual
	)
'

test_expect_success 'a rebase that diverges for each change of a stack says it once' '
	git init divergent-stack &&
	(
		cd divergent-stack &&
		test_commit base &&
		test_commit one &&
		test_commit two &&
		test_commit three &&
		test_tick &&
		git rebase -q --force-rebase base &&
		git checkout -q --detach three &&
		test_tick &&
		git rebase -q --force-rebase base 2>err &&
		test_grep "hint: 3 changes you rewrote were also amended from the same versions elsewhere (divergence);" err &&
		test_grep "hint:   git checkout metas/one-2 && git merge --amend metas/one\$" err &&
		grep -c "divergence" err >count &&
		echo 1 >expect &&
		test_cmp expect count
	)
'

test_expect_success 'merge --amend of a version that HEAD already contains records it' '
	git init merge-contained &&
	(
		cd merge-contained &&
		test_commit base &&
		test_commit --no-tag "Add y" y &&
		echo a >a &&
		git add a &&
		git commit -q --amend --no-edit 2>/dev/null &&
		git checkout -q --detach HEAD@{1} &&
		echo a >a &&
		echo b >b &&
		git add a b &&
		git commit -q --amend --no-edit 2>/dev/null &&
		git change list -v >actual &&
		test_grep "metas/add-y .*(divergent)" actual &&
		other=$(git rev-parse "metas/add-y^{metacommit}") &&
		ours=$(git rev-parse "metas/add-y-2^{metacommit}") &&
		git merge --amend metas/add-y &&
		# the merge is HEAD itself: it replaces both versions
		check_meta_commit metas/add-y-2 "merge --amend: Add y" \
			c HEAD r $ours r $other &&
		git change list -v >actual &&
		test_grep ! divergent actual
	)
'

test_expect_success 'pull --evolve evolves the changes onto the fetched commit' '
	git init -q --bare pull-up.git &&
	git clone -q pull-up.git puller 2>/dev/null &&
	(
		cd puller &&
		git checkout -q -b master &&
		test_commit --no-tag shared &&
		git push -q origin HEAD:master &&
		git branch -q -u origin/master &&
		git branch keep &&
		test_commit --no-tag mine &&
		git clone -q ../pull-up.git ../pull-other &&
		(
			cd ../pull-other &&
			test_commit --no-tag theirs &&
			git push -q origin HEAD:master
		) &&
		git pull --evolve >out &&
		test_grep "deleting metas/shared: it is in FETCH_HEAD" out &&
		test_grep "rebasing metas/mine onto FETCH_HEAD" out &&
		test_cmp_rev master^ origin/master &&
		test_cmp_rev master metas/mine &&
		git symbolic-ref HEAD >actual &&
		echo refs/heads/master >expect &&
		test_cmp expect actual &&

		# a second branch, holding only what landed, stays
		test_cmp_rev keep origin/master~ &&
		git reflog show keep >reflog &&
		test_grep ! evolve reflog
	)
'

test_expect_success 'branch.<name>.rebase=evolve, shown by remote show' '
	(
		cd puller &&
		git config branch.master.rebase evolve &&
		(
			cd ../pull-other &&
			git pull -q --no-rebase &&
			test_commit --no-tag more &&
			git push -q origin HEAD:master
		) &&
		git pull >out &&
		test_grep "rebasing metas/mine onto FETCH_HEAD" out &&
		test_cmp_rev master^ origin/master &&
		git remote show origin >out &&
		test_grep "master evolves onto remote master" out &&
		test_must_fail git -c branch.master.rebase=evolution pull 2>err &&
		test_grep "invalid value for .branch.master.rebase." err
	)
'

test_expect_success 'an amend below other work says how many changes need evolving' '
	git init orphan-hint &&
	(
		cd orphan-hint &&
		test_commit base &&
		test_commit one &&
		test_commit two &&
		test_commit three &&
		git commit --amend -m "three, at the top" 2>err &&
		test_grep ! "hint:" err &&
		test_path_is_missing .git/evolve-orphaned &&
		git checkout -q --detach one &&
		git commit --amend -m "one, amended" 2>err &&
		test_grep "^hint: 2 changes are built on commits you rewrote; run \"git evolve\" to rebase them.$" err &&
		git status >out &&
		test_grep "^2 changes are built on commits that were rewritten.$" out &&
		test_grep "^  (use \"git evolve\" to rebase them)$" out &&
		git -c advice.statusHints=false status >out &&
		test_grep "^2 changes are built" out &&
		test_grep ! "use \"git evolve\"" out &&
		git status --porcelain --untracked-files=no >out &&
		test_must_be_empty out &&
		git -c advice.evolveOrphans=false commit --amend -m "one, again" 2>err &&
		test_grep ! "hint:" err &&
		git evolve &&
		git status >out &&
		test_grep ! "built on" out &&
		test_path_is_missing .git/evolve-orphaned
	)
'

test_expect_success 'counting orphans walks the stacks, not the old history' '
	git init orphan-walk &&
	(
		cd orphan-walk &&
		git checkout -q --orphan old &&
		for i in 1 2 3 4 5 6 7 8 9 10
		do
			GIT_COMMITTER_DATE="@$((1000000000 + i)) +0000" \
				git commit -q --allow-empty -m "old $i" || return 1
		done &&
		git checkout -q --orphan main &&
		test_commit base &&
		test_commit one &&
		test_commit two &&
		test_commit three &&

		# By date: HEAD, main and old; the stack down to "one";
		# "base", less than a day older. Not the old line.
		git checkout -q --detach one &&
		GIT_TRACE2_EVENT="$(pwd)/date.event" \
			git commit --amend -m "one, amended" 2>err &&
		test_grep "^hint: 2 changes are built on commits you rewrote" err &&
		grep "\"key\":\"orphans/reached\"" date.event >reached &&
		test_grep "\"value\":\"6\"" reached &&

		# By generation, with a commit-graph: not even "base". (Not
		# in "git commit", which has closed the graph to run
		# "git maintenance" by then.)
		git evolve >/dev/null &&
		git commit-graph write --reachable &&
		git checkout -q --detach main~ &&
		git commit --amend -m "two, amended" 2>err &&
		test_grep "^hint: 1 change is built on a commit you rewrote" err &&
		GIT_TRACE2_EVENT="$(pwd)/generation.event" git status >out &&
		test_grep "^1 change is built on a commit that was rewritten" out &&
		grep "\"key\":\"orphans/reached\"" generation.event >reached &&
		test_grep "\"value\":\"5\"" reached
	)
'

test_expect_success 'a rebase of the bottom of a stack says what it left to evolve' '
	git init orphan-rebase &&
	(
		cd orphan-rebase &&
		test_commit base &&
		test_commit one &&
		test_commit two &&
		test_commit three &&
		git checkout -q -b bottom two &&
		git rebase -f HEAD~2 2>err &&
		test_grep "^hint: 1 change is built on a commit you rewrote; run \"git evolve\" to rebase it.$" err &&
		git status >out &&
		test_grep "^1 change is built on a commit that was rewritten.$" out &&
		echo garbage >>.git/evolve-orphaned &&
		git status >out &&
		test_grep "^1 change is built" out
	)
'

test_expect_success 'change list is in stack order, scripts get names in order' '
	git init stack-order &&
	(
		cd stack-order &&
		test_commit base &&
		test_commit zeta-one &&
		test_commit zeta-two &&
		git checkout -q -b other base &&
		test_commit alpha-one &&
		git change update -g alias -c HEAD >/dev/null &&
		# the newest stack first, each from its top; aliases by name
		test_write_lines metas/alias metas/alpha-one metas/zeta-two \
			metas/zeta-one metas/base >expect &&
		git change list >actual &&
		test_cmp expect actual &&
		git change list -v >actual &&
		sed "s/^[* ] *\([^ ]*\) .*/\1/" actual >names &&
		test_cmp expect names &&
		test_write_lines metas/alias metas/alpha-one metas/base \
			metas/zeta-one metas/zeta-two >expect &&
		git change list --format="%(refname:short)" >actual &&
		test_cmp expect actual &&
		git change list --porcelain >actual &&
		sed "s,^refs/\([^ ]*\) .*,\1," actual >names &&
		test_cmp expect names
	)
'

test_expect_success 'every change above a rewritten commit is an orphan' '
	git init orphans &&
	(
		cd orphans &&
		test_commit base &&
		test_commit one &&
		test_commit two &&
		test_commit three &&
		git checkout -q --detach one &&
		test_tick &&
		git commit -q --amend -m "one, reworded" &&
		git change list -v >out &&
		test_grep "metas/one .* one, reworded" out &&
		test_grep "metas/two .* (orphan) two" out &&
		test_grep "metas/three .* (orphan) three" out &&
		test_grep "metas/base .* base" out &&
		test_grep ! "metas/base .*orphan" out
	)
'

test_expect_success 'change list -v and --porcelain show the states' '
	(
		cd diverge &&
		git change list --porcelain >actual &&
		cat >expect <<-EOF &&
		refs/metas/b $(git rev-parse "metas/b^{metacommit}") $(git rev-parse metas/b) divergent -
		refs/metas/b-2 $(git rev-parse "metas/b-2^{metacommit}") $(git rev-parse HEAD) current,divergent -
		refs/metas/c $(git rev-parse C) $(git rev-parse C) orphan -
		refs/metas/change $(git rev-parse A) $(git rev-parse A) - -
		EOF
		test_cmp expect actual &&
		git change list -v >actual &&
		cat >expect <<-EOF &&
		* metas/b-2    $(git rev-parse --short HEAD) (divergent) B two
		  metas/b      $(git rev-parse --short metas/b) (divergent) B one
		  metas/change $(git rev-parse --short A) A
		  metas/c      $(git rev-parse --short C) (orphan) C
		EOF
		test_cmp expect actual &&
		git change list >actual &&
		test_write_lines metas/b-2 metas/b metas/change metas/c >expect &&
		test_cmp expect actual &&
		test_must_fail git change list -v --porcelain 2>err &&
		test_grep "cannot be used together" err
	)
'

test_expect_success 'log --obslog lists the versions of a change' '
	git init obslog &&
	(
		cd obslog &&
		test_commit --no-tag "This is a test" bar.txt &&
		first=$(git rev-parse HEAD) &&
		echo morefoo >>bar.txt &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		second=$(git rev-parse HEAD) &&
		test_tick &&
		git commit -q --amend -m "This is a test, reworded" &&
		git log --obslog --oneline >actual &&
		cat >expect <<-EOF &&
		$(git rev-parse --short HEAD) commit (amend): This is a test, reworded
		$(git rev-parse --short $second) commit (amend): This is a test
		$(git rev-parse --short $first) This is a test
		EOF
		test_cmp expect actual &&
		git log --obslog --oneline metas/test >actual.named &&
		test_cmp expect actual.named &&

		# a branch or a commit: the change that holds it
		git branch topic &&
		git log --obslog --oneline topic >actual.branch &&
		test_cmp expect actual.branch &&
		git log --obslog --oneline $(git rev-parse HEAD) >actual.commit &&
		test_cmp expect actual.commit &&

		git checkout -q --detach HEAD^0 &&
		test_env GIT_TEST_ENABLE_CHANGES=false test_commit --no-tag unrelated &&
		test_must_fail git log --obslog 2>err &&
		test_grep "${SQ}HEAD${SQ} is not the commit of a change" err &&
		git branch unrelated &&
		test_must_fail git log --obslog unrelated 2>err &&
		test_grep "${SQ}unrelated${SQ} is not the commit of a change" err &&
		test_must_fail git log --obslog metas/no-such 2>err &&
		test_grep "change .metas/no-such. not found" err &&
		test_must_fail git log --obslog --all 2>err &&
		test_grep "takes only display options" err &&
		test_must_fail git log --obslog --reverse 2>err &&
		test_grep "takes only display options" err &&
		test_must_fail git log --obslog -- bar.txt 2>err &&
		test_grep "cannot be limited to paths" err &&
		test_must_fail git log --obslog --no-such-option 2>err &&
		test_grep "unrecognized argument: --no-such-option" err &&

		# a branch named like a change is the branch, as in any revision
		git branch -f test unrelated &&
		test_must_fail git log --obslog test 2>err &&
		test_grep "${SQ}test${SQ} is not the commit of a change" err &&
		git log --obslog --oneline metas/test >actual &&
		test_cmp expect actual &&
		git branch -D test &&
		git checkout -q --orphan unborn &&
		test_must_fail git log --obslog 2>err &&
		test_grep "HEAD does not point to a commit" err &&
		git checkout -q --detach unrelated
	)
'

test_expect_success 'log --obslog shows who made each version, when, and what it changed' '
	(
		cd obslog &&
		git checkout -q metas/test &&
		git log --obslog --oneline --no-abbrev-commit >versions &&
		v3=$(sed -n "1s/ .*//p" versions) &&
		v2=$(sed -n "2s/ .*//p" versions) &&
		v1=$(sed -n "3s/ .*//p" versions) &&
		git log --obslog --date=short >actual &&
		cat >expect <<-EOF &&
		$(git rev-parse --short HEAD) commit (amend): This is a test, reworded
		    Commit:     $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL>
		    CommitDate: 2005-04-07
		    Changed:    message

		$(git rev-parse --short $v2) commit (amend): This is a test
		    Commit:     $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL>
		    CommitDate: 2005-04-07
		    Changed:    content

		$(git rev-parse --short $v1) This is a test
		    Commit:     $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL>
		    CommitDate: 2005-04-07
		EOF
		test_cmp expect actual &&

		git log --obslog --format="%h %s" -n 2 >actual &&
		git log --no-walk=unsorted --format="%h %s" $v3 $v2 >expect &&
		test_cmp expect actual &&

		git log --obslog --oneline --stat >actual &&
		cat >expect <<-EOF &&
		$(git rev-parse --short HEAD) commit (amend): This is a test, reworded
		$(git rev-parse --short $v2) commit (amend): This is a test
		 bar.txt | 1 +
		 1 file changed, 1 insertion(+)
		$(git rev-parse --short $v1) This is a test
		EOF
		test_cmp expect actual &&

		git log --obslog --pretty=medium -n 1 >actual &&
		test_grep "^Author: " actual &&
		test_grep "^    This is a test, reworded" actual
	)
'

test_expect_success 'log --obslog -p shows the edits, not what a rebase brought' '
	git init obslog-patch &&
	(
		cd obslog-patch &&
		test_write_lines a b c >file &&
		git add file &&
		git commit -q -m base &&
		git tag base &&
		echo x >work &&
		git add work &&
		test_tick &&
		git commit -q -m "the work" &&
		first=$(git rev-parse --short HEAD) &&
		echo y >>work &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		second=$(git rev-parse --short HEAD) &&
		git checkout -q base &&
		test_write_lines A b c >file &&
		test_tick &&
		git commit -q -a -m upstream &&
		git tag up &&
		git checkout -q metas/work &&
		test_tick &&
		git rebase -q up &&
		git log --obslog -n 1 >actual &&
		test_grep "^    Changed: *parent\$" actual &&
		git log --obslog --oneline -p >actual &&
		sed -e "s/^index .*/index/" actual >actual.cleaned &&
		cat >expect <<-EOF &&
		$(git rev-parse --short HEAD) rebase: the work
		$second commit (amend): the work
		diff --git a/work b/work
		index
		--- a/work
		+++ b/work
		@@ -1 +1,2 @@
		 x
		+y
		$first the work
		EOF
		test_cmp expect actual.cleaned
	)
'

test_expect_success 'log --obslog -p shows the whole difference if the rebase conflicts' '
	(
		cd obslog-patch &&
		git checkout -q --detach base &&
		test_write_lines mine b c >file &&
		test_tick &&
		git commit -q -a -m edit &&
		test_must_fail git rebase -q up 2>/dev/null &&
		test_write_lines merged b c >file &&
		git add file &&
		test_tick &&
		GIT_EDITOR=true git rebase --continue &&
		git log --obslog -p metas/edit >actual &&
		test_grep "does not rebase cleanly" actual &&
		test_grep "^-mine" actual &&
		test_grep "^+merged" actual
	)
'

test_expect_success 'log --obslog follows both sides of a merge --amend' '
	(
		cd merge-amend &&
		git checkout -q metas/bar &&
		git log --obslog --oneline >actual &&
		test_grep "merge --amend: bar and bam" actual &&
		test_grep "commit (amend): bar and baz" actual &&
		test_grep "commit (amend): bar and bam" actual &&
		test_grep " bar\$" actual &&
		test_line_count = 4 actual
	)
'

test_expect_success 'log --obslog --graph draws which version replaced which' '
	(
		cd merge-amend &&
		git checkout -q metas/bar &&
		git log --obslog --oneline --graph >actual.raw &&
		sed -e "s/ *\$//" actual.raw >actual &&
		cat >expect <<-EOF &&
		*   $(git rev-parse --short HEAD) merge --amend: bar and bam
		|\\
		* | $(git rev-parse --short D) commit (amend): bar and bam
		| * $(git rev-parse --short C) commit (amend): bar and baz
		|/
		* $(git rev-parse --short B) bar
		EOF
		test_cmp expect actual &&

		git log --obslog --oneline --graph -p >actual.raw &&
		sed -e "s/ *\$//" actual.raw >actual &&
		cat >expect <<-EOF &&
		*   $(git rev-parse --short HEAD) merge --amend: bar and bam
		|\\
		| | diff --git a/baz b/baz
		| | new file mode 100644
		| | index 0000000..$(git rev-parse --short HEAD:baz)
		* | $(git rev-parse --short D) commit (amend): bar and bam
		| | diff --git a/bam b/bam
		| | new file mode 100644
		| | index 0000000..$(git rev-parse --short HEAD:bam)
		| * $(git rev-parse --short C) commit (amend): bar and baz
		|/
		|   diff --git a/baz b/baz
		|   new file mode 100644
		|   index 0000000..$(git rev-parse --short HEAD:baz)
		* $(git rev-parse --short B) bar
		EOF
		test_cmp expect actual &&

		git log --obslog --oneline --graph metas/foo >actual &&
		echo "* $(git rev-parse --short A) foo" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'a shallow clone says which changes hold commits beyond its boundary' '
	git init shallow-src &&
	(
		cd shallow-src &&
		test_commit one &&
		test_commit two &&
		test_commit three &&
		git checkout -q --detach two &&
		test_tick &&
		git commit -q --amend -m "two, reworded" &&
		git checkout -q master
	) &&
	git clone -q --depth 1 "file://$(pwd)/shallow-src" shallow &&
	(
		cd shallow &&
		git config --add remote.origin.fetch \
			"+refs/metas/*:refs/remotes/origin/metas/*" &&
		git fetch -q --depth 1 origin &&
		git fsck 2>err &&
		test_must_be_empty err &&
		git change list -r -v >out &&
		test_grep "origin/metas/two *[0-9a-f]* (beyond the shallow boundary)\$" out &&
		test_grep "origin/metas/three *[0-9a-f]* three\$" out &&
		git change list -r --porcelain >out &&
		test_grep "^refs/remotes/origin/metas/two .* missing -\$" out &&
		test_must_fail git checkout -q origin/metas/two 2>err &&
		test_grep "origin/metas/two. is beyond the shallow boundary" err &&
		test_cmp_rev HEAD origin/master &&
		git fetch -q --deepen=1 origin &&
		git checkout -q origin/metas/two 2>err &&
		test_must_be_empty err
	)
'

test_expect_success 'changes travel by push and fetch, fsck on both sides' '
	git init -q --bare share.git &&
	git -C share.git config receive.fsckObjects true &&
	(
		cd obslog &&
		git push ../share.git "refs/metas/*:refs/metas/*" &&
		git push ../share.git HEAD:refs/heads/main
	) &&
	git clone -q share.git share-clone &&
	(
		cd share-clone &&
		git config fetch.fsckObjects true &&
		git config --add remote.origin.fetch "+refs/metas/*:refs/remotes/origin/metas/*" &&
		git fetch -q origin &&
		test_cmp_rev "origin/metas/test^{metacommit}" \
			"$(git -C ../obslog rev-parse "metas/test^{metacommit}")" &&
		test_cmp_rev origin/metas/test "$(git -C ../obslog rev-parse metas/test)" &&
		git log --obslog origin/metas/test >actual &&
		git -C ../obslog log --obslog metas/test >expect &&
		test_cmp expect actual &&
		git fsck --strict
	)
'

test_expect_success 'change forget drops an alias, keeps the last name of a parent' '
	(
		cd merge-amend &&
		git change forget metas/bar-2 >out &&
		test_grep "Forgot change metas/bar-2 (was " out &&
		test_must_fail git rev-parse -q --verify refs/metas/bar-2 &&
		git checkout -q metas/bar &&
		test_commit stacked &&
		test_must_fail git change forget bar 2>err &&
		test_grep "change ${SQ}metas/bar${SQ} has changes built on it (${SQ}metas/stacked${SQ}...)" err &&
		git rev-parse --verify refs/metas/bar &&
		git change forget --force bar >out &&
		test_grep "Forgot change metas/bar (was " out &&
		test_must_fail git change forget no-such 2>err &&
		test_grep "change .no-such. not found" err
	)
'

# Serve changes with an unpatched git: the unpatched 2.55.0 built next to
# this one (make vanilla), and the machine's own git, when present.
VANILLA_GIT="$GIT_BUILD_DIR/../vanilla/bin/git"
SYSTEM_GIT=/usr/bin/git
test_lazy_prereq VANILLA_GIT 'test -x "$VANILLA_GIT"'
test_lazy_prereq SYSTEM_GIT 'test -x "$SYSTEM_GIT"'

serve_with_unpatched_git () {
	other=$1 dir=$2 &&
	"$other" init -q --bare $dir.git &&
	"$other" -C $dir.git config receive.fsckObjects true &&
	"$other" -C $dir.git config uploadpack.allowAnySHA1InWant true &&
	git -C obslog push -q --receive-pack="\"$other\" receive-pack" ../$dir.git \
		"refs/metas/*:refs/metas/*" HEAD:refs/heads/main &&
	"$other" -C $dir.git fsck --strict &&
	git clone -q --upload-pack="\"$other\" upload-pack" $dir.git $dir-clone &&
	(
		cd $dir-clone &&
		git config fetch.fsckObjects true &&
		git fetch -q --upload-pack="\"$other\" upload-pack" origin \
			"+refs/metas/*:refs/remotes/origin/metas/*" &&
		test_cmp_rev "origin/metas/test^{metacommit}" \
			"$(git -C ../obslog rev-parse "metas/test^{metacommit}")" &&
		git log --obslog origin/metas/test >actual &&
		git -C ../obslog log --obslog metas/test >expect &&
		test_cmp expect actual
	)
}

test_expect_success VANILLA_GIT 'unpatched 2.55.0 stores and serves changes, with fsckObjects' '
	serve_with_unpatched_git "$VANILLA_GIT" vanilla
'

test_expect_success SYSTEM_GIT 'the system git stores and serves changes, with fsckObjects' '
	# its own helpers (index-pack...), not those of the build under test
	write_script system-git <<-EOF &&
	unset GIT_EXEC_PATH
	exec "$SYSTEM_GIT" "\$@"
	EOF
	serve_with_unpatched_git "$PWD/system-git" system
'

test_expect_success 'change prune hides obsolete, abandoned and landed changes' '
	git init prune &&
	(
		cd prune &&
		test_commit base &&
		test_commit landed &&
		git branch upstream &&
		test_commit kept &&
		test_commit obs &&
		test_tick &&
		git commit -q --amend -m "obs amended" &&
		git update-ref refs/metas/stale obs &&
		test_commit parent &&
		test_commit child &&
		git change abandon parent &&
		git checkout -q --detach kept &&
		test_commit lone &&
		git change abandon &&
		git change list -v >out &&
		test_grep "metas/stale *$(git rev-parse --short obs) (obsolete) obs" out &&
		git change list >before &&
		git change prune -n upstream >actual &&
		cat >expect <<-EOF &&
		Would prune change metas/base ($(git rev-parse --short base)), which is in upstream
		Would prune change metas/landed ($(git rev-parse --short landed)), which is in upstream
		Would prune abandoned change metas/lone ($(git rev-parse --short "metas/lone^{metacommit}"))
		Would prune obsolete change metas/stale ($(git rev-parse --short obs))
		EOF
		test_cmp expect actual &&
		git change list >after &&
		test_cmp before after &&
		git change prune upstream >actual 2>err &&
		sed -e "s/Would prune/Pruned/" -e "s/ (\([0-9a-f]*\))/ (was \1)/" \
			expect >expect.pruned &&
		test_cmp expect.pruned actual &&
		test_grep "git change restore" err &&
		test_write_lines metas/child metas/parent metas/obs metas/kept >expect &&
		git change list >actual &&
		test_cmp expect actual &&
		test_write_lines hiddenmetas/lone hiddenmetas/stale \
			hiddenmetas/landed hiddenmetas/base >expect &&
		git change list --hidden "hiddenmetas/*" >actual &&
		test_cmp expect actual &&
		git change prune >actual &&
		test_must_be_empty actual &&
		git change restore stale &&
		test_cmp_rev metas/stale obs &&
		test_must_fail git change prune no-such-branch 2>err &&
		test_grep "${SQ}no-such-branch${SQ} is not a valid commit" err
	)
'

test_expect_success 'a cycle of changes is broken: one goes first' '
	git init cycle &&
	(
		cd cycle &&
		test_commit X &&
		test_commit --no-tag first a &&
		git tag A1 &&
		test_commit --no-tag second b &&
		git tag B1 &&
		# each change rebased onto the old version of the other
		test_env GIT_TEST_ENABLE_CHANGES=false \
			test_commit --no-tag "first again" a2 &&
		git change update -c HEAD -r A1 &&
		git checkout -q --detach A1 &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			test_commit --no-tag "second again" b2 &&
		git change update -c HEAD -r B1 &&
		git evolve >out &&
		cat >expect <<-\EOF &&
		rebasing metas/first onto metas/x
		rebasing metas/second onto metas/first
		moving branch master to metas/first
		EOF
		test_cmp expect out &&
		test_cmp_rev metas/first^ X &&
		test_cmp_rev metas/second^ metas/first &&
		git ls-tree -r --name-only metas/second >files &&
		test_write_lines X.t a2 b2 >expect &&
		test_cmp expect files
	)
'

test_expect_success 'a cycle tries another change first if the first conflicts' '
	git init cycle-order &&
	(
		cd cycle-order &&
		test_commit X &&
		test_commit --no-tag first fa 1 &&
		git tag A1 &&
		test_commit --no-tag second fb 1 &&
		git tag B1 &&
		# first again edits fb, which only exists above B1: it
		# cannot go first onto X, but it can follow second
		echo 2 >>fb &&
		test_tick &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			git commit -q -a -m "first again" &&
		git change update -c HEAD -r A1 &&
		git checkout -q --detach A1 &&
		echo 1 >fb &&
		git add fb &&
		test_tick &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			git commit -q -m "second again" &&
		git change update -c HEAD -r B1 &&
		git evolve >out &&
		cat >expect <<-\EOF &&
		rebasing metas/second onto metas/x
		rebasing metas/first onto metas/second
		moving branch master to metas/first
		EOF
		test_cmp expect out &&
		test_cmp_rev metas/second^ X &&
		test_cmp_rev metas/first^ metas/second &&
		test_write_lines 1 2 >expect &&
		git show metas/first:fb >actual &&
		test_cmp expect actual
	)
'

test_expect_success 'a merge commit in a stack is rebased with its edits' '
	git init merges &&
	(
		cd merges &&
		test_commit A &&
		test_write_lines 1 2 3 4 5 >file &&
		git add file &&
		test_tick &&
		git commit -q -m "the file" &&
		git checkout -q -b side A &&
		test_commit S &&
		git checkout -q - &&
		test_tick &&
		git merge -q --no-commit side &&
		# an edit of its own: the merge is not just its parents
		test_write_lines 1 2 3 4 5 merged >file &&
		git add file &&
		git commit -q -m "merge side" &&
		merge=$(git rev-parse HEAD) &&
		test_commit --no-tag child &&
		git checkout -q --detach $merge^ &&
		test_write_lines one 2 3 4 5 >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		amended=$(git rev-parse HEAD) &&

		git evolve >out &&
		test_grep "^rebasing metas/merge-side onto metas/file\$" out &&
		test_grep "^rebasing metas/child onto metas/merge-side\$" out &&
		test_cmp_rev metas/merge-side^1 $amended &&
		test_cmp_rev metas/merge-side^2 S &&
		test_write_lines one 2 3 4 5 merged >expect &&
		git show metas/merge-side:file >actual &&
		test_cmp expect actual &&
		git show metas/merge-side:S.t >actual &&
		echo S >expect &&
		test_cmp expect actual &&
		git log -1 --format=%s metas/merge-side >actual &&
		echo "merge side" >expect &&
		test_cmp expect actual &&
		test_cmp_rev metas/child^ metas/merge-side &&
		check_meta_commit metas/merge-side "evolve: merge side" \
			c metas/merge-side^0 r $merge &&
		git evolve >out &&
		test_grep "Nothing to evolve" out
	)
'

test_expect_success 'a merge commit that conflicts when rebased stops evolve' '
	(
		cd merges &&
		git checkout -q --detach metas/file &&
		test_write_lines one 2 3 4 5 new >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git for-each-ref >refs.before &&
		test_must_fail git evolve 2>err &&
		test_grep "could not rebase the merge commit ${SQ}metas/merge-side${SQ} onto ${SQ}metas/file${SQ}: conflict" err &&
		test_grep "^hint: Evolve cannot stop on a merge commit" err &&
		test_grep "git change update -c HEAD -r metas/merge-side" err &&
		test_grep "git change abandon metas/merge-side" err &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after &&
		test_path_is_missing .git/evolve &&

		# abandoned, the merge is dropped and its child goes onto
		# its first parent
		git change abandon metas/merge-side &&
		git evolve >out &&
		test_grep "^rebasing metas/child onto metas/file\$" out &&
		test_cmp_rev metas/child^ metas/file
	)
'

test_expect_success 'commits without a change in a stack are carried along' '
	git init carry &&
	(
		cd carry &&
		test_commit A &&
		test_commit --no-tag bottom a.t &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			test_commit --no-tag unrecorded x.t &&
		plain=$(git rev-parse HEAD) &&
		test_commit --no-tag top c.t &&
		git branch topic &&
		test_must_fail git rev-parse -q --verify metas/unrecorded &&

		# published, the commit stays where it is, and so does
		# what is built on it
		git update-ref refs/remotes/origin/main $plain &&
		git checkout -q --detach metas/bottom &&
		echo amended >a.t &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git evolve >out &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect out &&
		git change list -v >out &&
		test_grep ! "metas/top .*(orphan)" out &&

		git update-ref -d refs/remotes/origin/main &&
		# "change list -v" calls orphan what evolve moves
		git change list -v >out &&
		test_grep "metas/top .* (orphan) top" out &&
		git evolve --dry-run >out &&
		test_grep "^rebasing $(git rev-parse --short $plain) onto metas/bottom\$" out &&
		git evolve >out &&
		cat >expect <<-EOF &&
		rebasing $(git rev-parse --short $plain) onto metas/bottom
		rebasing metas/top onto $(git rev-parse --short metas/unrecorded)
		moving branch master to metas/top
		moving branch topic to metas/top
		EOF
		test_cmp expect out &&
		test_cmp_rev metas/top^ metas/unrecorded &&
		test_cmp_rev metas/unrecorded^ metas/bottom &&
		test_cmp_rev topic metas/top &&
		check_meta_commit metas/unrecorded "evolve: unrecorded" \
			c metas/unrecorded^0 r $plain &&
		git evolve >out &&
		test_grep "Nothing to evolve" out
	)
'

test_expect_success 'a carried commit that conflicts is resumed with --continue' '
	git init carry-conflict &&
	(
		cd carry-conflict &&
		test_commit A &&
		test_commit --no-tag bottom b.t b &&
		echo x >b.t &&
		test_tick &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			git commit -q -a -m unrecorded &&
		plain=$(git rev-parse HEAD) &&
		test_commit --no-tag top c.t &&
		git checkout -q --detach metas/bottom &&
		echo b2 >b.t &&
		test_tick &&
		git commit -q -a --amend --no-edit &&

		test_must_fail git evolve 2>err &&
		test_grep "could not rebase ${SQ}$(git rev-parse --short $plain)${SQ} onto ${SQ}metas/bottom${SQ}: conflict" err &&
		echo x >b.t &&
		git add b.t &&
		git evolve --continue >out &&
		test_grep "^rebasing metas/top onto " out &&
		test_cmp_rev metas/top^ metas/unrecorded &&
		test_cmp_rev metas/unrecorded^ metas/bottom &&
		echo x >expect &&
		git show metas/unrecorded:b.t >actual &&
		test_cmp expect actual &&
		git evolve >out &&
		test_grep "Nothing to evolve" out
	)
'

test_expect_success 'evolve <upstream> moves only the branches it rewrote' '
	git init keep-branch &&
	(
		cd keep-branch &&
		test_commit base &&
		git branch keep &&
		test_commit --no-tag mine &&
		git branch topic &&
		git checkout -q --detach base &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			test_commit --no-tag theirs t.t &&
		git update-ref refs/remotes/origin/main HEAD &&
		git checkout -q topic &&
		git evolve origin/main >out &&
		test_grep "rebasing metas/mine onto origin/main" out &&
		test_cmp_rev keep base &&
		test_cmp_rev topic^ origin/main &&
		git reflog show keep >reflog &&
		test_grep ! evolve reflog &&

		# on a branch holding nothing to rewrite, HEAD still follows
		# the upstream, as "git rebase <upstream>" does
		git checkout -q keep &&
		git evolve origin/main &&
		test_cmp_rev keep origin/main
	)
'

test_expect_success 'evolve leaves a branch checked out in another worktree' '
	git init wt-main &&
	(
		cd wt-main &&
		test_commit base &&
		test_commit --no-tag alpha a &&
		test_commit --no-tag beta b &&
		git branch other &&
		git worktree add -q ../wt-other other &&
		git checkout -q --detach metas/alpha &&
		echo amended >a &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		old=$(git rev-parse other) &&
		git evolve >out 2>err &&
		test_grep "rebasing metas/beta onto metas/alpha" out &&
		test_grep "not moving branch ${SQ}other${SQ}: it is checked out in .*wt-other" err &&
		test_grep "^hint: Run \"git evolve\" in that worktree" err &&
		test_grep "^hint: Disable this message with \"git config set advice.evolveOtherWorktree false\"" err &&
		test_cmp_rev other $old &&
		git -C ../wt-other status --porcelain >status &&
		test_must_be_empty status &&

		# evolve in that worktree moves it with its files
		git -C ../wt-other evolve &&
		test_cmp_rev other metas/beta &&
		git -C ../wt-other status --porcelain >status &&
		test_must_be_empty status &&
		echo amended >expect &&
		test_cmp expect ../wt-other/a
	)
'

test_expect_success '--continue says so when a resolution empties the change' '
	git init continue-empty &&
	(
		cd continue-empty &&
		commit_the_file &&
		test_write_lines 1 2 three 4 5 >file &&
		test_tick &&
		git commit -q -a -m "edit three" &&
		git checkout -q --detach metas/file &&
		test_write_lines 1 2 THREE 4 5 >file &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		test_must_fail git evolve &&
		git checkout --ours file &&
		git add file &&
		git evolve --continue >out &&
		test_grep "^deleting metas/edit-three: it became empty on metas/file\$" out &&
		test_must_fail git rev-parse -q --verify refs/metas/edit-three &&
		git rev-parse --verify refs/hiddenmetas/edit-three
	)
'

test_expect_success 'a carried commit that becomes empty is dropped, and said so' '
	git init carry-empty &&
	(
		cd carry-empty &&
		test_commit A &&
		test_commit --no-tag bottom a.t &&
		test_env GIT_TEST_ENABLE_CHANGES=false \
			test_commit --no-tag unrecorded b.t &&
		plain=$(git rev-parse --short HEAD) &&
		test_commit --no-tag top c.t &&
		git checkout -q --detach metas/bottom &&
		echo unrecorded >b.t &&
		git add b.t &&
		test_tick &&
		git commit -q --amend --no-edit &&
		git checkout -q --detach metas/top &&
		git evolve >out &&
		test_grep "^deleting $plain: it became empty on metas/bottom\$" out &&
		test_grep "^rebasing metas/top onto metas/bottom\$" out &&
		test_cmp_rev metas/top^ metas/bottom &&
		test_cmp_rev HEAD metas/top
	)
'

test_expect_success '--abort after a follow-up merge was squashed restores every change' '
	git init abort-follow-up &&
	(
		cd abort-follow-up &&
		commit_the_file &&
		amend_the_file_twice &&
		git checkout -q --detach $ours &&
		test_must_fail git merge -q --no-edit $theirs >/dev/null &&
		test_write_lines one 2 3 4 five >file &&
		test_tick &&
		git commit -q -a -m "merge the two versions" &&
		# built on our version, it conflicts with the merged one
		git checkout -q --detach $ours &&
		test_write_lines one 2 3 4 FIVE >file &&
		test_tick &&
		git commit -q -a -m "edit five" &&

		git for-each-ref >refs.before &&
		test_must_fail git evolve >out 2>err &&
		test_grep "^squashing metas/merge-two-versions" out &&
		test_grep "could not rebase ${SQ}metas/edit-five${SQ}" err &&
		git evolve --abort &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after
	)
'

test_expect_success 'status explains a stopped evolve, with its hints' '
	stop_evolve_in status-stopped &&
	(
		cd status-stopped &&
		short=$(git rev-parse --short HEAD) &&
		q_to_tab >expect <<-EOF &&
		evolve in progress; onto $short
		You are currently evolving changes; stopped while rebasing ${SQ}metas/edit-three${SQ} onto ${SQ}$short${SQ}.
		  (fix conflicts and then run "git evolve --continue")
		  (use "git evolve --skip" to leave this change where it is)
		  (use "git evolve --abort" to go back to where evolve started)

		Unmerged paths:
		  (use "git restore --staged <file>..." to unstage)
		  (use "git add <file>..." to mark resolution)
		Qboth modified:   file

		no changes added to commit (use "git add" and/or "git commit -a")
		EOF
		git status --untracked-files=no >actual &&
		test_cmp expect actual &&

		q_to_tab >expect <<-EOF &&
		evolve in progress; onto $short
		You are currently evolving changes; stopped while rebasing ${SQ}metas/edit-three${SQ} onto ${SQ}$short${SQ}.

		Unmerged paths:
		Qboth modified:   file

		no changes added to commit
		EOF
		git -c advice.statusHints=false status --untracked-files=no >actual &&
		test_cmp expect actual &&

		test_write_lines 1 2 THREE-three 4 5 >file &&
		git add file &&
		q_to_tab >expect <<-EOF &&
		evolve in progress; onto $short
		You are currently evolving changes; stopped while rebasing ${SQ}metas/edit-three${SQ} onto ${SQ}$short${SQ}.
		  (all conflicts fixed: run "git evolve --continue")

		Changes to be committed:
		  (use "git restore --staged <file>..." to unstage)
		Qmodified:   file

		Untracked files not listed (use -u option to show untracked files)
		EOF
		git status --untracked-files=no >actual &&
		test_cmp expect actual &&

		q_to_tab >expect <<-EOF &&
		evolve in progress; onto $short
		You are currently evolving changes; stopped while rebasing ${SQ}metas/edit-three${SQ} onto ${SQ}$short${SQ}.

		Changes to be committed:
		Qmodified:   file

		Untracked files not listed
		EOF
		git -c advice.statusHints=false status --untracked-files=no >actual &&
		test_cmp expect actual &&

		git evolve --abort &&
		git status --untracked-files=no >actual &&
		test_grep ! "currently evolving" actual &&
		test_grep ! "evolve in progress" actual &&
		test_grep "^2 changes are built on commits that were rewritten.$" actual
	)
'

test_expect_success 'status says less when the state of a stopped evolve is damaged' '
	stop_evolve_in status-damaged &&
	(
		cd status-damaged &&
		short=$(git rev-parse --short HEAD) &&
		echo garbage >.git/evolve/current &&
		git status --untracked-files=no >actual &&
		test_grep "^evolve in progress; onto $short\$" actual &&
		test_grep "^You are currently evolving changes\\.\$" actual &&
		test_grep "git evolve --continue" actual &&
		rm .git/evolve/onto &&
		git status --untracked-files=no >actual 2>err &&
		test_must_be_empty err &&
		test_grep "^HEAD detached " actual &&
		test_grep "^You are currently evolving changes\\.\$" actual
	)
'

test_expect_success BASH '__git_ps1 shows |EVOLVE while an evolve is stopped' '
	stop_evolve_in prompt-stopped &&
	(
		cd prompt-stopped &&
		printf " (main|EVOLVE)" >expect &&
		git_ps1 >actual &&
		test_cmp expect actual &&
		git evolve --abort &&
		printf " (main)" >expect &&
		git_ps1 >actual &&
		test_cmp expect actual &&

		# started on a detached HEAD: HEAD is described as usual
		git checkout -q --detach &&
		test_must_fail git evolve 2>err &&
		printf " ((%s...)|EVOLVE)" $(git rev-parse --short HEAD) >expect &&
		git_ps1 >actual &&
		test_cmp expect actual
	)
'

test_expect_success '--continue takes a resolution committed by hand' '
	stop_evolve_in continue-committed &&
	(
		cd continue-committed &&
		test_write_lines 1 2 THREE-three 4 5 >file &&
		git add file &&
		test_tick &&
		git commit -q -m "edit three, resolved" &&
		resolved=$(git rev-parse HEAD) &&
		git status --untracked-files=no >actual &&
		test_grep "(all conflicts fixed: run \"git evolve --continue\")" actual &&

		git evolve --continue >out &&
		cat >expect <<-\EOF &&
		rebasing metas/edit-three onto metas/file
		rebasing metas/top onto metas/edit-three
		moving branch main to metas/top
		EOF
		test_cmp expect out &&
		test_path_is_missing .git/evolve &&

		# one change holds the resolution: the one that conflicted
		git change list >actual &&
		cat >expect <<-\EOF &&
		metas/top
		metas/edit-three
		metas/file
		metas/base
		EOF
		test_cmp expect actual &&
		test_cmp_rev metas/edit-three $resolved &&
		check_meta_commit metas/edit-three "evolve: edit three, resolved" \
			c $resolved r $edit &&
		git log --obslog --oneline metas/edit-three >actual &&
		cat >expect <<-EOF &&
		$(git rev-parse --short $resolved) evolve: edit three, resolved
		$(git rev-parse --short $edit) edit three
		EOF
		test_cmp expect actual &&

		# its descendants were evolved onto it, and HEAD followed
		test_cmp_rev metas/top^ $resolved &&
		test_cmp_rev main metas/top &&
		git symbolic-ref HEAD >actual &&
		echo refs/heads/main >expect &&
		test_cmp expect actual &&
		git evolve >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual
	)
'

test_expect_success '--continue takes an amended resolution, not one with more staged' '
	stop_evolve_in continue-amended &&
	(
		cd continue-amended &&
		test_write_lines 1 2 THREE-three 4 5 >file &&
		git add file &&
		test_tick &&
		git commit -q -m "edit three, resolved" &&
		echo more >more.t &&
		git add more.t &&
		test_must_fail git evolve --continue 2>err &&
		test_grep "the index has changes that HEAD, the commit made on $(git rev-parse --short $onto), has not" err &&
		test_path_is_dir .git/evolve &&
		test_tick &&
		git commit -q --amend -m "edit three, resolved and amended" &&
		amended=$(git rev-parse HEAD) &&
		git evolve --continue &&
		git change list >actual &&
		cat >expect <<-\EOF &&
		metas/top
		metas/edit-three
		metas/file
		metas/base
		EOF
		test_cmp expect actual &&
		test_cmp_rev metas/edit-three $amended &&
		test_cmp_rev metas/edit-three:more.t $amended:more.t &&
		test_cmp_rev metas/top^ $amended
	)
'

test_expect_success '--dry-run prints exactly what evolve then does' '
	git init -q -b main dry-run-same &&
	(
		cd dry-run-same &&
		test_commit --no-tag base &&
		test_commit --no-tag alpha a.t &&
		test_commit --no-tag bravo b.t &&
		git branch at-b &&
		test_commit --no-tag charlie c.t &&
		test_commit --no-tag delta d.t &&
		git branch at-d &&
		test_commit --no-tag echo e.t &&
		git checkout -q -b topic &&
		# alpha takes in the edit of bravo, which becomes empty;
		# delta is abandoned, and echo goes onto charlie
		git checkout -q --detach metas/alpha &&
		git show metas/bravo:b.t >b.t &&
		git add b.t &&
		test_tick &&
		git commit -q --amend --no-edit &&
		git change abandon metas/delta >/dev/null &&
		git checkout -q main &&

		git for-each-ref >refs.before &&
		find .git/objects -type f | sort >objects.before &&
		git evolve -n >dry &&
		git for-each-ref >refs.after &&
		find .git/objects -type f | sort >objects.after &&
		test_cmp refs.before refs.after &&
		test_cmp objects.before objects.after &&
		git evolve >real &&
		test_cmp dry real &&
		cat >expect <<-\EOF &&
		deleting metas/bravo: it became empty on metas/alpha
		rebasing metas/charlie onto metas/alpha
		dropping abandoned metas/delta
		rebasing metas/echo onto metas/charlie
		moving branch at-b to metas/alpha
		moving branch at-d to metas/charlie
		moving branch main to metas/echo
		moving branch topic to metas/echo
		EOF
		test_cmp expect real &&
		test_cmp_rev at-b metas/alpha &&
		test_cmp_rev at-d metas/charlie &&
		test_cmp_rev main metas/echo &&
		test_cmp_rev topic metas/echo &&
		test_cmp_rev metas/echo^ metas/charlie &&
		test_cmp_rev metas/charlie^ metas/alpha &&
		# the hidden change is logged as hidden by evolve, not with
		# the message of a change that was rebased
		git reflog -1 --format=%gs refs/hiddenmetas/bravo >actual &&
		echo evolve >expect &&
		test_cmp expect actual &&

		# a conflict: the dry run says what the run stops on
		git checkout -q --detach metas/alpha &&
		echo conflicting >c.t &&
		git add c.t &&
		test_tick &&
		git commit -q --amend --no-edit &&
		git checkout -q main &&
		test_must_fail git evolve -n >dry 2>dry-err &&
		test_path_is_missing .git/evolve &&
		test_grep ! "^hint:" dry-err &&
		test_must_fail git evolve >real 2>real-err &&
		test_cmp dry real &&
		grep -v "^hint:" real-err >real-error &&
		test_cmp dry-err real-error &&
		test_grep "^error: could not rebase ${SQ}metas/charlie${SQ} onto ${SQ}metas/alpha${SQ}: conflict\$" dry-err &&
		git evolve --abort
	)
'

test_expect_success '--continue refuses anything else done to HEAD: an amend of where evolve stopped' '
	stop_evolve_in continue-refused &&
	(
		cd continue-refused &&
		git checkout -q --theirs file &&
		git add file &&
		test_tick &&
		git commit -q --amend -m "the file, amended during the stop" &&
		test_must_fail git evolve --continue 2>err &&
		test_grep "HEAD moved since evolve stopped at $(git rev-parse --short $onto), and is not one commit made on it" err &&
		test_path_is_dir .git/evolve &&
		test_must_fail git evolve --skip 2>err &&
		test_grep "HEAD moved since evolve stopped at $(git rev-parse --short $onto); check it out again" err &&
		# status says what to do instead of --continue
		git status >actual &&
		test_grep "^  (HEAD moved since evolve stopped: check out $(git rev-parse --short $onto) again to go on)\$" actual &&
		test_grep ! "evolve --continue" actual &&
		# the amend was recorded as usual
		test_cmp_rev metas/file HEAD &&
		git evolve --abort &&
		test_path_is_missing .git/evolve &&
		test_cmp_rev metas/edit-three $edit
	)
'

test_expect_success 'change list --graph draws the work in progress down to its upstream' '
	git init -b main graph-upstream &&
	(
		cd graph-upstream &&
		test_commit --no-tag "base one" base1 &&
		test_commit --no-tag "base two" base2
	) &&
	git clone -q graph-upstream graph &&
	(
		cd graph &&
		test_commit --no-tag "Add the parser" parser &&
		test_commit --no-tag "Add the lexer" lexer &&
		test_commit --no-tag "Add the printer" printer &&
		git checkout -q HEAD~2 &&
		echo more >>parser &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git change list --graph >actual.raw &&
		sed -e "s/ *\$//" actual.raw >actual &&
		cat >expect <<-EOF &&
		* $(git rev-parse --short HEAD) (HEAD, metas/add-parser) Add the parser
		| * $(git rev-parse --short main) (metas/add-printer, main) [orphan] Add the printer
		| * $(git rev-parse --short main~1) (metas/add-lexer) [orphan] Add the lexer
		| * $(git rev-parse --short main~2) (obsolete, 1 commit behind metas/add-parser) Add the parser
		|/
		o $(git rev-parse --short origin/main) (origin/main, origin/HEAD) base two
		EOF
		test_cmp expect actual &&

		# after evolve, one stack; the current branch gives the upstream
		git evolve -q &&
		git checkout -q main &&
		git change list --graph >actual &&
		cat >expect <<-EOF &&
		* $(git rev-parse --short main) (HEAD -> main, metas/add-printer) Add the printer
		* $(git rev-parse --short main~1) (metas/add-lexer) Add the lexer
		* $(git rev-parse --short main~2) (metas/add-parser) Add the parser
		o $(git rev-parse --short origin/main) (origin/main, origin/HEAD) base two
		EOF
		test_cmp expect actual &&

		# a branch pushed for review is work in progress, not upstream
		git checkout -q -b topic &&
		git push -q -u origin topic &&
		git change list --graph >actual &&
		sed -e 1d expect >stack &&
		{
			echo "* $(git rev-parse --short main) (HEAD -> topic, origin/topic, metas/add-printer, main) Add the printer" &&
			cat stack
		} >expect.topic &&
		test_cmp expect.topic actual &&
		git checkout -q --detach &&
		git change list --graph >actual &&
		{
			echo "* $(git rev-parse --short main) (HEAD, origin/topic, metas/add-printer, topic, main) Add the printer" &&
			cat stack
		} >expect.detached &&
		test_cmp expect.detached actual &&

		# a branch checked out from a remote one, with no change of
		# ours on it, is upstream: its commits are not drawn
		git -C ../graph-upstream branch release main &&
		git -C ../graph-upstream checkout -q release &&
		test_commit -C ../graph-upstream --no-tag "release fix" fix &&
		git fetch -q &&
		git checkout -q release &&
		git change list --graph >actual &&
		{
			echo "* $(git rev-parse --short main) (origin/topic, metas/add-printer, topic, main) Add the printer" &&
			cat stack
		} >expect.release &&
		test_cmp expect.release actual &&
		git checkout -q main &&

		# two names on one commit are drawn together; patterns limit the changes
		git change update -c main~1 -g alias &&
		git change list --graph --upstream=main~2 "*lexer" alias >actual &&
		cat >expect <<-EOF &&
		* $(git rev-parse --short main) (HEAD -> main, origin/topic, metas/add-printer, topic) Add the printer
		* $(git rev-parse --short main~1) (metas/alias, metas/add-lexer) Add the lexer
		o $(git rev-parse --short main~2) (metas/add-parser) Add the parser
		EOF
		test_cmp expect actual &&

		test_must_fail git change list --graph -v 2>err &&
		test_grep "cannot be used together" err &&
		test_must_fail git change list --upstream=main 2>err &&
		test_grep "requires .--graph." err &&
		test_must_fail git change list --graph --upstream=no-such 2>err &&
		test_grep "no-such. is not a valid commit" err
	)
'

test_expect_success 'evolve reads what change heads are from a cache' '
	git init heads-cache &&
	(
		cd heads-cache &&
		test_commit base &&
		make_stack &&
		amend_change stack-commit-c1 amended-c1 &&
		amend_change stack-commit-c3 amended-c3 &&
		git change abandon metas/stack-commit-c4 &&
		git checkout -q stack &&
		rm -f .git/metas-peeled &&

		# the first load reads every head and keeps what it learned
		GIT_TRACE2_EVENT="$(pwd)/cold.event" \
			git evolve --dry-run >expect 2>&1 &&
		test_path_is_file .git/metas-peeled &&
		test_trace2_data change-peel learned 5 <cold.event &&
		test_grep "stack-commit-c2" expect &&

		# the next ones read none, and say the same
		cp .git/metas-peeled cache.good &&
		GIT_TRACE2_EVENT="$(pwd)/warm.event" \
			git evolve --dry-run >actual 2>&1 &&
		test_trace2_data change-peel learned 0 <warm.event &&
		test_cmp expect actual &&
		test_cmp cache.good .git/metas-peeled &&
		git change list -v >list.warm &&
		GIT_TRACE2_EVENT="$(pwd)/list.event" git change list -v >list &&
		test_cmp list.warm list &&
		# the listing and the graph under it read the cache alike
		test_trace2_data change-peel learned 0 <list.event >reads &&
		test_line_count = 2 reads &&
		git change list --porcelain >porcelain &&
		rm .git/metas-peeled &&
		GIT_TRACE2_EVENT="$(pwd)/list-cold.event" \
			git change list --porcelain >porcelain.cold &&
		test_cmp porcelain.cold porcelain &&
		# cold, the listing reads the heads and the graph finds them
		test_trace2_data change-peel learned 5 <list-cold.event &&
		test_trace2_data change-peel learned 0 <list-cold.event &&
		cp cache.good .git/metas-peeled &&

		# a cache it cannot use is learned again
		for bad in truncated garbage empty
		do
			case $bad in
			truncated) test_copy_bytes 1200 <cache.good ;;
			garbage) sed "s/MPC3/MPC9/" cache.good ;;
			empty) ;;
			esac >.git/metas-peeled &&
			git evolve --dry-run >actual 2>&1 &&
			test_cmp expect actual &&
			git change list -v >list &&
			test_cmp list.warm list &&
			test_cmp cache.good .git/metas-peeled || return 1
		done &&

		# the cache is not used while objects may be replaced
		git replace c1 c2 &&
		GIT_TRACE2_EVENT="$(pwd)/replaced.event" \
			git evolve --dry-run >actual 2>&1 &&
		! grep "\"category\":\"change-peel\"" replaced.event &&
		git replace -d c1 &&

		# and a new version is learned on its own
		amend_change stack-commit-c2 amended-c2 &&
		GIT_TRACE2_EVENT="$(pwd)/amended.event" \
			git evolve --dry-run >actual 2>&1 &&
		test_trace2_data change-peel learned 1 <amended.event &&
		test_grep "stack-commit-c3" actual
	)
'

test_done

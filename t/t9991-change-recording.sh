#!/bin/sh

test_description='commands record their commits in changes'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh

. "$TEST_DIRECTORY"/lib-rebase.sh

# The test suite disables recording by default; let core.enableChanges decide.
sane_unset GIT_TEST_ENABLE_CHANGES

test_expect_success 'commit creates a change, without a reflog' '
	test_commit one &&
	test_cmp_rev metas/one one &&
	test_must_fail git reflog exists refs/metas/one &&
	test_path_is_missing .git/logs/refs/metas
'

test_expect_success 'commit prints nothing about the change' '
	echo two >two.t &&
	git add two.t &&
	git commit -m two >actual &&
	test_grep ! metas actual &&
	test_cmp_rev metas/two HEAD
'

test_expect_success 'commit --amend advances the change' '
	git commit --amend -m "two amended" &&
	check_meta_commit refs/metas/two "commit (amend): two amended" \
		c HEAD r HEAD@{1} &&
	git commit --amend -m "two again" &&
	check_meta_commit refs/metas/two "commit (amend): two again" \
		c HEAD r refs/metas/two@{1} &&
	git log -1 --format=%s metas/two@{2} >actual &&
	echo two >expect &&
	test_cmp expect actual
'

test_expect_success 'core.logAllRefUpdates=always logs each move of a change' '
	test_config core.logAllRefUpdates always &&
	git commit --amend -m "two logged" &&
	git commit --amend -m "two logged again" &&
	git reflog show --format=%gs refs/metas/two >actual &&
	cat >expect <<-\EOF &&
	commit (amend): two logged again
	commit (amend): two logged
	EOF
	test_cmp expect actual &&
	test_cmp_rev metas/two@{1} HEAD@{1}
'

test_expect_success 'amending a commit without a change creates one for it' '
	test_env GIT_TEST_ENABLE_CHANGES=false test_commit three &&
	test_must_fail git rev-parse --verify refs/metas/three &&
	git commit --amend -m "three amended" &&
	check_meta_commit refs/metas/three "commit (amend): three amended" \
		c HEAD r three
'

test_expect_success 'core.enableChanges=false records nothing' '
	git for-each-ref refs/metas/ >expect &&
	test_config core.enableChanges false &&
	test_commit four &&
	git commit --amend -m "four amended" &&
	git for-each-ref refs/metas/ >actual &&
	test_cmp expect actual
'

test_expect_success 'GIT_TEST_ENABLE_CHANGES overrides core.enableChanges' '
	git for-each-ref refs/metas/ >expect &&
	GIT_TEST_ENABLE_CHANGES=false git commit --amend -m "four again" &&
	git for-each-ref refs/metas/ >actual &&
	test_cmp expect actual &&
	test_config core.enableChanges false &&
	test_env GIT_TEST_ENABLE_CHANGES=true test_commit five &&
	test_cmp_rev metas/five five
'

test_expect_success 'the design example for commit' '
	git init design &&
	(
		cd design &&
		touch foo && git add . && git commit -m "foo" && git tag A &&
		touch bar && git add . && git commit -m "bar" && git tag B &&
		touch baz && git add . && git commit -m "baz" && git tag C &&
		test_cmp_rev metas/foo A &&
		test_cmp_rev metas/bar B &&
		test_cmp_rev metas/baz C &&
		git checkout B &&
		touch zoom && git add . && git commit --amend -m "baz and zoom" &&
		git tag D &&
		git for-each-ref --format="%(refname)" refs/metas/ >actual &&
		cat >expect <<-\EOF &&
		refs/metas/bar
		refs/metas/baz
		refs/metas/foo
		EOF
		test_cmp expect actual &&
		test_cmp_rev metas/foo A &&
		check_meta_commit metas/bar "commit (amend): baz and zoom" \
			c D r B &&
		test_cmp_rev metas/baz C
	)
'

test_expect_success 'a repeated subject takes the next free suffix' '
	git init wip &&
	(
		cd wip &&
		for i in 1 2 3 4 5 6 7 8 9 10
		do
			test_tick &&
			git commit --allow-empty -m wip || return 1
		done &&
		git for-each-ref --format="%(refname)" --sort=committerdate \
			refs/metas/ >actual &&
		{
			echo refs/metas/wip &&
			test_seq -f refs/metas/wip-%d 2 10
		} >expect &&
		test_cmp expect actual &&
		git update-ref -d refs/metas/wip-8 &&
		git commit --allow-empty -m wip &&
		test_cmp_rev metas/wip-8 HEAD &&
		git commit --allow-empty -m wip &&
		test_cmp_rev metas/wip-11 HEAD
	)
'

test_expect_success 'a ref in the way of the name takes the next suffix' '
	git init in-the-way &&
	(
		cd in-the-way &&
		test_commit base &&
		git update-ref refs/metas/blocked/by-me HEAD &&
		git commit --allow-empty -m blocked &&
		test_cmp_rev metas/blocked-2 HEAD &&
		git pack-refs --all &&
		git update-ref -d refs/metas/blocked-2 &&
		git commit --allow-empty -m blocked &&
		test_cmp_rev metas/blocked-2 HEAD &&
		git for-each-ref --format="%(refname)" refs/metas/ >actual &&
		cat >expect <<-\EOF &&
		refs/metas/base
		refs/metas/blocked-2
		refs/metas/blocked/by-me
		EOF
		test_cmp expect actual
	)
'

test_expect_success 'a ref in the way of a pick takes the next suffix' '
	git init pick-in-the-way &&
	(
		cd pick-in-the-way &&
		test_commit base &&
		git checkout -q -b side &&
		test_commit --no-tag blocked &&
		test_commit --no-tag "blocked packed" &&
		git checkout -q - &&
		git update-ref refs/metas/blocked-2/by-me HEAD &&
		git cherry-pick side~1 &&
		test_cmp_rev metas/blocked-3 HEAD &&
		git update-ref refs/metas/blocked-packed-2/by-me HEAD &&
		git pack-refs --all &&
		git cherry-pick side &&
		test_cmp_rev metas/blocked-packed-3 HEAD &&
		git for-each-ref --format="%(refname)" refs/metas/ >actual &&
		cat >expect <<-\EOF &&
		refs/metas/base
		refs/metas/blocked
		refs/metas/blocked-2/by-me
		refs/metas/blocked-3
		refs/metas/blocked-packed
		refs/metas/blocked-packed-2/by-me
		refs/metas/blocked-packed-3
		EOF
		test_cmp expect actual
	)
'

test_expect_success 'merge creates a change for a merge commit' '
	git checkout -b topic one &&
	test_commit side &&
	git checkout - &&
	git merge --no-edit topic &&
	git for-each-ref --format="%(refname)" --points-at HEAD refs/metas/ >actual &&
	echo refs/metas/merge-branch-topic >expect &&
	test_cmp expect actual
'

test_expect_success 'setup for rebase' '
	git checkout --orphan rebase &&
	git rm -rfq . &&
	for i in 1 2 3 4 5 6
	do
		test_commit r$i || return 1
	done &&
	git for-each-ref refs/metas/ >before &&
	# log how many changes each transaction touching any prepares
	write_script .git/hooks/reference-transaction <<-\EOF
	if test "$1" = prepared
	then
		n=$(grep -c " refs/metas/")
		test "$n" = 0 ||
		echo $n >>"$(git rev-parse --git-common-dir)/metas-transactions"
	fi
	exit 0
	EOF
'

test_expect_success 'rebase -i records its rewrites in one transaction' '
	rm -f .git/metas-transactions &&
	(
		set_fake_editor &&
		FAKE_COMMIT_MESSAGE="r2 reworded" &&
		FAKE_LINES="1 reword 2 3 fixup 4 drop 5 6" &&
		export FAKE_COMMIT_MESSAGE FAKE_LINES &&
		git rebase -i --root
	) &&
	git log --format=%s >actual &&
	cat >expect <<-\EOF &&
	r6
	r3
	r2 reworded
	r1
	EOF
	test_cmp expect actual &&

	# the fast-forwarded pick records nothing; the drop abandons
	test_cmp_rev metas/r1 r1 &&
	check_meta_commit refs/metas/r5 "rebase (drop): r5" a r5 r r5 &&
	check_meta_commit refs/metas/r2 "rebase: r2 reworded" c HEAD~2 r r2 &&
	check_meta_commit refs/metas/r3 "rebase: r3" c HEAD~1 r r3 r r4 &&
	test_cmp_rev metas/r4 metas/r3 &&
	check_meta_commit refs/metas/r6 "rebase: r6" c HEAD r r6 &&

	# all in one transaction, the only one touching refs/metas/
	echo 5 >expect &&
	test_cmp expect .git/metas-transactions
'

test_expect_success 'cherry-pick records the picked commit as origin' '
	git checkout -b pick r1 &&
	git cherry-pick r5 &&
	check_meta_commit refs/metas/r5-2 "cherry-pick: r5" c HEAD o r5 &&
	test_cmp_rev metas/r5 r5
'

test_expect_success 'rebase --abort leaves refs/metas/ as it was' '
	git checkout rebase &&
	git for-each-ref refs/metas/ >before &&
	(
		set_fake_editor &&
		FAKE_LINES="edit 1 2" &&
		export FAKE_LINES &&
		git rebase -i HEAD~2
	) &&
	git commit --amend -m "amended during the rebase" &&
	git cherry-pick r5 &&
	test_commit during-rebase &&
	git change update --change during --content HEAD &&
	git change update --change r2 --content HEAD --force &&
	git change delete r1 &&
	git rebase --abort &&
	git for-each-ref refs/metas/ >after &&
	test_cmp before after &&

	# while the same rebase, finished, does record
	(
		set_fake_editor &&
		FAKE_LINES="edit 1 2" &&
		export FAKE_LINES &&
		git rebase -i HEAD~2
	) &&
	git commit --amend -m "amended during the rebase" &&
	git rebase --continue &&
	check_meta_commit refs/metas/r3 "rebase: amended during the rebase" \
		c HEAD~1 r "refs/metas/r3@{1}"
'

test_expect_success 'an unusable identity in the environment does not stop a rebase' '
	git init bad-ident &&
	(
		cd bad-ident &&
		test_commit A &&
		test_commit B &&
		test_commit C &&
		# An author date that is fine for nothing: the rebase keeps the
		# original authors, and recording must not die on it either.
		GIT_AUTHOR_DATE=@123456 git rebase --onto A B &&
		test_path_is_missing .git/rebase-merge &&
		check_meta_commit refs/metas/c "rebase: C" c HEAD r C &&
		git cat-file commit "refs/metas/c^{metacommit}" >meta &&
		test_grep "^author $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL> $GIT_COMMITTER_DATE" meta
	)
'

test_expect_success POSIXPERM 'the content index honors core.sharedRepository' '
	test_when_finished "umask $(umask)" &&
	umask 002 &&
	git init --shared=0660 shared &&
	(
		cd shared &&
		test_commit A &&
		test_commit B &&
		ls .git/metas-index/* >buckets &&
		test_line_count -gt 0 buckets &&
		for f in $(cat buckets)
		do
			test_modebits "$f" >actual &&
			echo "-rw-rw----" >expect &&
			test_cmp expect actual || return 1
		done
	)
'

test_expect_success 'the versions changes keep do not trigger a commit-graph write' '
	git init graph &&
	(
		cd graph &&
		git config maintenance.auto false &&
		test_commit A &&
		git commit-graph write --reachable &&
		for i in 1 2 3
		do
			git commit --amend -m "A$i" || return 1
		done &&
		# HEAD is one commit past the graph; refs/metas/A, three
		# metacommits and two earlier versions of A.
		GIT_TRACE2_EVENT="$(pwd)/amended" git -c maintenance.commit-graph.auto=3 \
			maintenance run --auto --task=commit-graph &&
		test_subcommand ! git commit-graph write --split --reachable \
			--no-progress <amended &&

		test_commit B &&
		test_commit C &&
		GIT_TRACE2_EVENT="$(pwd)/committed" git -c maintenance.commit-graph.auto=3 \
			maintenance run --auto --task=commit-graph &&
		test_subcommand git commit-graph write --split --reachable \
			--no-progress <committed
	)
'

test_expect_success REFFILES 'commit --amend moves HEAD and its change together, or neither' '
	git init amend-atomic &&
	(
		cd amend-atomic &&
		test_commit base &&
		test_commit --no-tag work w &&
		before=$(git rev-parse HEAD) &&
		test_cmp_rev metas/work $before &&

		# the change cannot move: neither does HEAD
		>.git/refs/metas/work.lock &&
		echo more >w &&
		test_must_fail git commit -q -a --amend --no-edit 2>err &&
		test_grep "refs/metas/work" err &&
		test_cmp_rev HEAD $before &&
		test_cmp_rev metas/work $before &&

		rm .git/refs/metas/work.lock &&
		git commit -q -a --amend --no-edit &&
		check_meta_commit metas/work "commit (amend): work" \
			c HEAD r $before
	)
'

test_done

#!/bin/sh

test_description='merge --squash, revert, am, replay, history and --abort record in changes'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh
. "$TEST_DIRECTORY"/lib-rebase.sh

# The test suite disables recording by default; let core.enableChanges decide.
sane_unset GIT_TEST_ENABLE_CHANGES

# Log how many changes each transaction touching any prepares.
log_metas_transactions () {
	rm -f .git/metas-transactions &&
	write_script .git/hooks/reference-transaction <<-\EOF
	if test "$1" = prepared
	then
		n=$(grep -c " refs/metas/")
		test "$n" = 0 ||
		echo $n >>"$(git rev-parse --git-common-dir)/metas-transactions"
	fi
	exit 0
	EOF
}

test_expect_success 'setup' '
	test_commit base &&
	git checkout -b side &&
	test_commit s1 &&
	test_commit s2
'

test_expect_success 'merge --squash and commit copy every squashed commit' '
	git checkout -b squash base &&
	git merge --squash side &&
	test_path_is_file .git/SQUASH_COMMITS &&
	git commit -m squashed &&
	check_meta_commit refs/metas/squashed "commit: squashed" \
		c HEAD o s1 o s2 &&
	test_cmp_rev metas/s1 s1 &&
	test_cmp_rev metas/s2 s2 &&
	test_path_is_missing .git/SQUASH_COMMITS
'

test_expect_success 'reset forgets the commits of a squash merge' '
	git checkout -b squash-reset base &&
	git merge --squash side &&
	git reset --hard &&
	test_path_is_missing .git/SQUASH_COMMITS &&
	test_commit after-reset &&
	test_cmp_rev metas/after-reset HEAD
'

test_expect_success 'merge --squash records nothing when recording is off' '
	git checkout -b squash-off base &&
	test_config core.enableChanges false &&
	git merge --squash side &&
	test_path_is_missing .git/SQUASH_COMMITS &&
	git reset --hard
'

test_expect_success 'revert creates a change' '
	git checkout side &&
	git revert --no-edit s2 &&
	git for-each-ref --format="%(objectname)" refs/metas/ >actual &&
	git rev-parse HEAD >expect &&
	grep -f expect actual >found &&
	test_line_count = 1 found
'

test_expect_success 'setup patches' '
	git checkout -b am-src base &&
	test_commit a1 &&
	echo changed >base.t &&
	git commit -am conflict-me &&
	git tag conflict-me &&
	git checkout -b other base &&
	echo other >base.t &&
	git commit -am other &&
	git format-patch --stdout base..a1 >a1.mbox &&
	git format-patch --stdout base..conflict-me >two.mbox
'

test_expect_success 'am creates a change for each patch' '
	git checkout -b am base &&
	git am two.mbox &&
	test_cmp_rev metas/a1-2 HEAD~ &&
	test_cmp_rev metas/conflict-me HEAD
'

test_expect_success 'am --abort restores refs/metas/' '
	git checkout -b am-abort other &&
	git for-each-ref refs/metas/ >before &&
	test_must_fail git am two.mbox &&
	git for-each-ref refs/metas/ >during &&
	! test_cmp before during &&
	git am --abort &&
	git for-each-ref refs/metas/ >after &&
	test_cmp before after
'

test_expect_success 'rebase --apply records its rewrites in one transaction' '
	git checkout -b apply base &&
	test_commit p1 &&
	test_commit p2 &&
	test_when_finished "rm -f .git/hooks/reference-transaction" &&
	log_metas_transactions &&
	git rebase --apply other &&
	check_meta_commit refs/metas/p1 "rebase: p1" c HEAD~ r p1 &&
	check_meta_commit refs/metas/p2 "rebase: p2" c HEAD r p2 &&
	echo 2 >expect &&
	test_cmp expect .git/metas-transactions
'

test_expect_success 'rebase --apply --abort restores refs/metas/' '
	git checkout -b apply-abort a1 &&
	test_commit --no-tag "after a1" base.t after &&
	git for-each-ref refs/metas/ >before &&
	test_must_fail git rebase --apply other &&
	echo resolved >base.t &&
	git add base.t &&
	git commit --amend -m "amended during the rebase" &&
	git change delete p1 &&
	git rebase --abort &&
	git for-each-ref refs/metas/ >after &&
	test_cmp before after
'

test_expect_success 'cherry-pick --abort restores refs/metas/, kept from gc' '
	git checkout -b pick-abort other &&
	git for-each-ref refs/metas/ >before &&
	test_must_fail git cherry-pick a1 conflict-me &&
	check_meta_commit refs/metas/a1-3 "cherry-pick: a1" c HEAD o a1 &&
	git change delete squashed &&
	git gc --prune=now &&
	git cherry-pick --abort &&
	git for-each-ref refs/metas/ >after &&
	test_cmp before after &&
	git cat-file -e refs/metas/squashed
'

test_expect_success 'revert --abort restores refs/metas/' '
	git checkout -b revert-abort conflict-me &&
	echo more >base.t &&
	git commit -am more &&
	git for-each-ref refs/metas/ >before &&
	test_must_fail git revert --no-edit a1 conflict-me &&
	git for-each-ref refs/metas/ >during &&
	! test_cmp before during &&
	git revert --abort &&
	git for-each-ref refs/metas/ >after &&
	test_cmp before after
'

test_expect_success 'replay --ref-action=print records nothing' '
	git checkout -b topic base &&
	test_commit t1 &&
	test_commit t2 &&
	git for-each-ref refs/metas/ >before &&
	git replay --ref-action=print --onto other base..topic &&
	git for-each-ref refs/metas/ >after &&
	test_cmp before after
'

test_expect_success 'replay --advance copies the commits' '
	git branch advanced other &&
	git replay --advance advanced base..topic &&
	check_meta_commit refs/metas/t1-2 "replay: t1" c advanced~ o t1 &&
	check_meta_commit refs/metas/t2-2 "replay: t2" c advanced o t2
'

test_expect_success 'replay --onto records its rewrites in one transaction' '
	test_when_finished "rm -f .git/hooks/reference-transaction" &&
	log_metas_transactions &&
	git replay --onto other base..topic &&
	check_meta_commit refs/metas/t1 "replay: t1" c topic~ r t1 &&
	check_meta_commit refs/metas/t2 "replay: t2" c topic r t2 &&
	echo 2 >expect &&
	test_cmp expect .git/metas-transactions
'

test_expect_success 'history reword records the commit and its descendants' '
	git checkout -b hist base &&
	test_commit h1 &&
	test_commit h2 &&
	write_script fake-editor.sh <<-\EOF &&
	echo "h1 reworded" >"$1"
	EOF
	test_set_editor "$(pwd)/fake-editor.sh" &&
	git history reword h1 &&
	check_meta_commit refs/metas/h1 "reword: h1 reworded" c HEAD~ r h1 &&
	check_meta_commit refs/metas/h2 "reword: h2" c HEAD r h2
'

test_expect_success 'history split continues the change in one part' '
	git checkout -b split base &&
	touch bar foo &&
	git add bar foo &&
	git commit -m split-me &&
	git tag split-me &&
	write_script fake-editor.sh <<-\EOF &&
	head -n1 fake-input >"$1"
	sed 1d fake-input >fake-input.trimmed &&
	mv fake-input.trimmed fake-input
	EOF
	printf "%s\n" first second >fake-input &&
	test_set_editor "$(pwd)/fake-editor.sh" &&
	git history split HEAD <<-\EOF &&
	y
	n
	EOF
	check_meta_commit refs/metas/split-me "split: second" \
		c HEAD r split-me &&
	check_meta_commit refs/metas/first "split: first" c HEAD~ o split-me
'

test_expect_success 'clone, fetch and pull record nothing' '
	git clone --no-local . clone &&
	git -C clone for-each-ref refs/metas/ >actual &&
	test_must_be_empty actual &&
	git checkout -b imported base &&
	test_commit --no-tag imported &&
	git -C clone fetch origin &&
	git -C clone checkout -b imported origin/imported~ &&
	git -C clone pull --ff-only origin imported &&
	git -C clone for-each-ref refs/metas/ >actual &&
	test_must_be_empty actual
'

test_expect_success 'fast-import and filter-branch record nothing' '
	git init -b main import &&
	(
		cd import &&
		cat >input <<-INPUT_END &&
		commit refs/heads/main
		committer $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL> $GIT_COMMITTER_DATE
		data <<COMMIT
		imported
		COMMIT
		M 644 inline file
		data <<EOF
		content
		EOF

		INPUT_END
		git fast-import <input &&
		git for-each-ref refs/metas/ >actual &&
		test_must_be_empty actual &&
		git reset -q --hard &&
		FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch \
			--msg-filter "sed s/imported/filtered/" main &&
		git log -1 --format=%s main >actual &&
		echo filtered >expect &&
		test_cmp expect actual &&
		git for-each-ref refs/metas/ >actual &&
		test_must_be_empty actual
	)
'

# Amend five times in each of ../wt1..../wt8, all at once; log failures.
amend_in_eight_worktrees () {
	for i in 1 2 3 4 5 6 7 8
	do
		(
			cd ../wt$i &&
			for j in 1 2 3 4 5
			do
				echo $j >>f$i &&
				git commit -q -a --amend --no-edit ||
				echo "wt$i amend $j" >>../concurrent-failures
			done
		) &
	done
	wait
}

test_expect_success 'eight worktrees amending their changes at once lose nothing' '
	git init -q concurrent &&
	(
		cd concurrent &&
		# Keep a background "pack-refs --auto" out of the race, and
		# let reftable writers wait for each other longer than 100ms.
		git config maintenance.auto false &&
		git config reftable.lockTimeout 20000 &&
		test_commit base &&
		for i in 1 2 3 4 5 6 7 8
		do
			git worktree add -q ../wt$i -b b$i base &&
			echo 0 >../wt$i/f$i &&
			git -C ../wt$i add f$i &&
			git -C ../wt$i commit -q -m "work $i" || return 1
		done &&
		amend_in_eight_worktrees &&
		test_path_is_missing ../concurrent-failures &&
		for i in 1 2 3 4 5 6 7 8
		do
			test_cmp_rev metas/work-$i b$i &&
			# each of the 6 versions moved the change
			git rev-parse --verify -q "metas/work-$i@{5}" &&
			test_must_fail git rev-parse --verify -q "metas/work-$i@{6}" &&
			# 5 metacommits, the 6 versions of the commit, base
			git rev-list "metas/work-$i^{metacommit}" >history &&
			test_line_count = 12 history &&
			git reflog show --format=%H b$i >versions.raw &&
			sort -u versions.raw >versions &&
			sort -u history >reachable &&
			comm -23 versions reachable >lost &&
			test_must_be_empty lost || return 1
		done &&
		git fsck --no-progress
	)
'

test_expect_success 'rebase --abort restores what change copy, restore and rename moved' '
	git checkout -b stopped base &&
	test_commit st1 &&
	git commit --amend -m st1-amended &&
	test_commit st2 &&
	git update-ref refs/hiddenmetas/st-hidden st1 &&
	git for-each-ref refs/metas/ refs/hiddenmetas/ >before &&
	(
		set_fake_editor &&
		FAKE_LINES="edit 1 2" &&
		export FAKE_LINES &&
		git rebase -i HEAD~2
	) &&
	git change copy st1 &&
	git change restore st-hidden &&
	git change rename st2 st2-renamed &&
	git for-each-ref refs/metas/ refs/hiddenmetas/ >during &&
	! test_cmp before during &&
	git rebase --abort &&
	git for-each-ref refs/metas/ refs/hiddenmetas/ >after &&
	test_cmp before after
'

test_expect_success 'cherry-pick --abort restores what change copy and rename moved' '
	git checkout -b stopped-pick other &&
	git for-each-ref refs/metas/ refs/hiddenmetas/ >before &&
	test_must_fail git cherry-pick a1 conflict-me &&
	git change copy st1 &&
	git change rename a1-picked &&
	git for-each-ref refs/metas/ refs/hiddenmetas/ >during &&
	! test_cmp before during &&
	git cherry-pick --abort &&
	git for-each-ref refs/metas/ refs/hiddenmetas/ >after &&
	test_cmp before after
'

test_expect_success 'rebase -i abandons the commits it drops' '
	git init drops &&
	(
		cd drops &&
		test_commit base &&
		test_commit dr1 &&
		test_commit dr2 &&
		test_commit dr3 &&
		test_commit dr4 &&
		# dr2 dropped, dr3 deleted from the todo list
		(
			set_fake_editor &&
			FAKE_LINES="1 fixup 4 drop 2" &&
			export FAKE_LINES &&
			git rebase -i base
		) &&
		git log --format=%s >actual &&
		test_write_lines dr1 base >expect &&
		test_cmp expect actual &&
		check_meta_commit refs/metas/dr1 "rebase: dr1" c HEAD r dr1 r dr4 &&
		check_meta_commit refs/metas/dr2 "rebase (drop): dr2" \
			a dr2 r dr2 &&
		check_meta_commit refs/metas/dr3 "rebase (drop): dr3" \
			a dr3 r dr3 &&

		# evolve does not bring them back onto the new dr1
		git rev-parse HEAD >expect &&
		git evolve &&
		git rev-parse HEAD >actual &&
		test_cmp expect actual &&
		test_cmp_rev metas/dr2 dr2 &&
		test_cmp_rev metas/dr3 dr3
	)
'

test_expect_success 'rebase -i abandons what --edit-todo deletes at a stop' '
	(
		cd drops &&
		git checkout -b edit-todo base &&
		test_commit et1 &&
		test_commit et2 &&
		test_commit et3 &&
		(
			set_fake_editor &&
			FAKE_LINES="edit 1 2 3" &&
			export FAKE_LINES &&
			git rebase -i base
		) &&
		git commit --amend -m et1-amended &&
		(
			set_fake_editor &&
			FAKE_LINES="2" &&
			export FAKE_LINES &&
			git rebase --edit-todo
		) &&
		git rebase --continue &&
		git log --format=%s >actual &&
		test_write_lines et3 et1-amended base >expect &&
		test_cmp expect actual &&
		check_meta_commit refs/metas/et1 "rebase: et1-amended" \
			c HEAD~ r et1 &&
		check_meta_commit refs/metas/et2 "rebase (drop): et2" \
			a et2 r et2 &&
		check_meta_commit refs/metas/et3 "rebase: et3" c HEAD r et3
	)
'

test_expect_success 'rebase --abort after a drop abandons nothing' '
	(
		cd drops &&
		git checkout -b drop-abort base &&
		test_commit da1 &&
		test_commit da2 &&
		test_commit da3 &&
		git for-each-ref refs/metas/ >before &&
		(
			set_fake_editor &&
			FAKE_LINES="edit 1 drop 2 3" &&
			export FAKE_LINES &&
			git rebase -i base
		) &&
		git commit --amend -m da1-amended &&
		git rebase --abort &&
		git for-each-ref refs/metas/ >after &&
		test_cmp before after
	)
'

test_expect_success 'a commit the rebase empties is not abandoned' '
	(
		cd drops &&
		git checkout -b has-x base &&
		echo x >x &&
		echo y >y &&
		git add x y &&
		git commit -m "x and y" &&
		git checkout -b emptied base &&
		echo x >x &&
		git add x &&
		git commit -m "x only" &&
		git tag x-only &&
		test_commit after-x &&
		git rebase --empty=drop has-x &&
		git log --format=%s >actual &&
		test_write_lines after-x "x and y" base >expect &&
		test_cmp expect actual &&
		git cat-file commit $(raw_rev refs/metas/x-only) >meta &&
		test_grep ! "^parent-type a" meta
	)
'

test_done

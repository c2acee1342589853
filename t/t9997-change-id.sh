#!/bin/sh

test_description='the change-id header

While changes are recorded, commits carry the "change-id" header that
Jujutsu and GitButler write: a commit that continues a change keeps the id
of the commit it replaces, one that starts a change gets a new id.'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-rebase.sh
. "$TEST_DIRECTORY"/lib-changes.sh

GIT_TEST_ENABLE_CHANGES=true
GIT_TEST_CHANGE_ID_HEADER=true
export GIT_TEST_ENABLE_CHANGES GIT_TEST_CHANGE_ID_HEADER

# Print the change-id header of a commit (nothing without one).
change_id () {
	git cat-file commit "$1" >commit.raw &&
	sed -n -e "/^\$/q" -e "s/^change-id //p" commit.raw
}

# Check that the two commits carry the same id, and one.
test_same_id () {
	change_id "$1" >id1 &&
	change_id "$2" >id2 &&
	test_line_count = 1 id1 &&
	test_cmp id1 id2
}

# Check that both commits carry an id, and not the same one.
test_new_id () {
	change_id "$1" >id1 &&
	change_id "$2" >id2 &&
	test_line_count = 1 id1 &&
	test_line_count = 1 id2 &&
	! test_cmp id1 id2
}

test_expect_success 'a new commit gets an id in reverse hex after committer' '
	test_commit base &&
	change_id base >id &&
	grep -E "^[k-z]{32}\$" id &&
	sed -n "/^\$/q;p" commit.raw >header &&
	tail -n 1 header >last &&
	grep "^change-id " last &&
	sed -n "\$!{h;d};x;p" header | grep "^committer " &&
	test_commit second &&
	test_new_id base second
'

test_expect_success 'nothing is written when turned off' '
	(
		sane_unset GIT_TEST_CHANGE_ID_HEADER GIT_TEST_ENABLE_CHANGES &&
		git -c core.changeIdHeader=false commit --allow-empty -m off &&
		git -c core.enableChanges=false commit --allow-empty -m off2
	) &&
	change_id HEAD >actual &&
	test_must_be_empty actual &&
	change_id HEAD~ >actual &&
	test_must_be_empty actual &&
	GIT_TEST_CHANGE_ID_HEADER=false \
		git commit --allow-empty -m off3 &&
	change_id HEAD >actual &&
	test_must_be_empty actual &&
	(
		sane_unset GIT_TEST_CHANGE_ID_HEADER &&
		git commit --allow-empty -m on-by-default
	) &&
	change_id HEAD >actual &&
	test_line_count = 1 actual &&
	git reset -q --hard second
'

test_expect_success 'commit --amend keeps the id' '
	git commit --amend --allow-empty -m "second, amended" &&
	test_same_id second HEAD
'

test_expect_success 'amending a commit without an id gives it one' '
	GIT_TEST_CHANGE_ID_HEADER=false git commit --allow-empty -m plain &&
	git tag plain &&
	git commit --amend --allow-empty -m "plain, amended" &&
	change_id HEAD >actual &&
	test_line_count = 1 actual &&
	change_id plain >actual &&
	test_must_be_empty actual &&
	git reset -q --hard second
'

test_expect_success 'setup a topic' '
	git checkout -q -b topic base &&
	test_commit t1 &&
	test_commit t2 &&
	test_commit t3 &&
	git checkout -q -b other base &&
	test_commit o1
'

test_expect_success 'rebase keeps the ids, with both backends' '
	git checkout -q -B picked topic &&
	git rebase -q other &&
	test_same_id t1 HEAD~2 &&
	test_same_id t2 HEAD~ &&
	test_same_id t3 HEAD &&
	git checkout -q -B applied topic &&
	git rebase -q --apply other &&
	test_same_id t1 HEAD~2 &&
	test_same_id t3 HEAD
'

test_expect_success 'rebase -i: reword, edit and squash keep the ids' '
	git checkout -q -B todo topic &&
	(
		set_fake_editor &&
		FAKE_COMMIT_MESSAGE="t1 reworded" \
		FAKE_LINES="reword 1 edit 2 squash 3" git rebase -i other
	) &&
	git commit --amend --allow-empty -m "t2 edited" &&
	(
		set_fake_editor &&
		FAKE_COMMIT_MESSAGE="t2 and t3" git rebase --continue
	) &&
	test_same_id t1 HEAD~ &&
	test_same_id t2 HEAD
'

test_expect_success 'rebase keeps the id of a pick stopped on a conflict' '
	git checkout -q -B conflicting other &&
	echo conflict >t3.t &&
	git add t3.t &&
	git commit -q -m "t3 elsewhere" &&
	git checkout -q -B stopped topic &&
	test_must_fail git rebase -q conflicting &&
	echo resolved >t3.t &&
	git add t3.t &&
	GIT_EDITOR=: git rebase --continue &&
	test_same_id t3 HEAD
'

test_expect_success 'a second commit at a stopped pick is a new one' '
	git checkout -q -B stopped-twice topic &&
	test_must_fail git rebase -q conflicting &&
	echo resolved >t3.t &&
	git add t3.t &&
	git commit -q --no-edit &&
	test_same_id t3 HEAD &&
	git commit -q --allow-empty -m "more at the stop" &&
	test_new_id t3 HEAD &&
	git rebase --continue
'

test_expect_success 'cherry-pick and revert start changes' '
	git checkout -q -B picks other &&
	git cherry-pick t1 &&
	test_new_id t1 HEAD &&
	git revert --no-edit HEAD &&
	test_new_id t1 HEAD &&
	test_new_id HEAD~ HEAD &&
	git checkout -q -B conflict-pick conflicting &&
	test_must_fail git cherry-pick t3 &&
	echo resolved >t3.t &&
	git add t3.t &&
	GIT_EDITOR=: git cherry-pick --continue &&
	test_new_id t3 HEAD
'

test_expect_success 'merges and merge --squash start changes' '
	git checkout -q -B merged other &&
	git merge -q --no-edit topic &&
	test_new_id t3 HEAD &&
	test_new_id o1 HEAD &&
	git checkout -q -B squashed other &&
	git merge -q --squash topic &&
	git commit -q -m squashed &&
	test_new_id t3 HEAD
'

test_expect_success 'rebase -r keeps the id of a merge it recreates' '
	git checkout -q -B remerged merged &&
	git rebase -q -r --force-rebase base &&
	test_cmp_rev ! merged HEAD &&
	test_cmp_rev ! merged^2 HEAD^2 &&
	test_same_id merged HEAD &&
	test_same_id merged^2 HEAD^2 &&
	test_must_fail git rev-parse -q --verify REBASE_HEAD
'

test_expect_success 'replay --onto keeps the ids, --advance starts changes' '
	git replay --ref-action=print --onto other base..topic >out &&
	new=$(sed -n "s|^update refs/heads/topic \([^ ]*\) .*|\1|p" out) &&
	test_same_id t3 $new &&
	test_same_id t2 $new~ &&
	git branch advanced other &&
	git replay --ref-action=print --advance advanced base..topic >out &&
	new=$(sed -n "s|^update refs/heads/advanced \([^ ]*\) .*|\1|p" out) &&
	test_new_id t3 $new &&
	test_new_id t2 $new~
'

test_expect_success 'history reword keeps the id, split starts one' '
	git checkout -q -B hist base &&
	test_commit h1 &&
	test_commit h2 &&
	write_script fake-editor.sh <<-\EOF &&
	echo "reworded" >"$1"
	EOF
	test_set_editor "$(pwd)/fake-editor.sh" &&
	git history reword h1 &&
	test_same_id h1 HEAD~ &&
	test_same_id h2 HEAD &&
	git checkout -q -B split base &&
	touch bar foo &&
	git add bar foo &&
	git commit -q -m split-me &&
	git tag split-me &&
	git history split HEAD <<-\EOF &&
	y
	n
	EOF
	test_same_id split-me HEAD &&
	test_new_id split-me HEAD~
'

# Evolve works on every change of the repository: these tests start
# from repositories of their own, without the divergence made above.
test_expect_success 'evolve keeps the ids of what it moves' '
	git init -b main evolve &&
	(
		cd evolve &&
		test_commit s1 &&
		test_commit s2 &&
		test_commit s3 &&
		git checkout -q s1 &&
		git commit -q --amend --allow-empty -m "s1 amended" &&
		git checkout -q main &&
		git evolve >out &&
		test_same_id s1 HEAD~2 &&
		test_same_id s2 HEAD~ &&
		test_same_id s3 HEAD
	)
'

# A stack r1-r2-r3 whose r2 is amended to add r3.t as r3 does, so that
# evolving r3 conflicts.
setup_conflicting_stack () {
	git init -b main "$1" &&
	cd "$1" &&
	test_commit r1 &&
	test_commit r2 &&
	test_commit r3 &&
	git checkout -q r2 &&
	echo amended >r3.t &&
	git add r3.t &&
	git commit -q --amend -m "r2 with r3.t" &&
	git checkout -q main &&
	test_must_fail git evolve &&
	echo resolved >r3.t &&
	git add r3.t
}

test_expect_success 'evolve keeps the id of a pick resolved by --continue' '
	(
		setup_conflicting_stack continue &&
		git evolve --continue &&
		test_same_id r3 HEAD
	)
'

test_expect_success 'evolve keeps the id of a pick resolved by commit' '
	(
		setup_conflicting_stack commit &&
		git commit -q -m "r3 resolved" &&
		git evolve --continue &&
		test_same_id r3 HEAD
	)
'

test_expect_success 'merge --amend keeps the id of the version checked out' '
	git init -b main versions &&
	(
		cd versions &&
		test_commit v &&
		git commit -q --amend --allow-empty -m "v one way" &&
		git tag one &&
		git checkout -q v &&
		git commit -q --amend --allow-empty -m "v another way" &&
		git tag another &&
		git merge --amend one &&
		test_same_id another HEAD &&
		test_same_id v HEAD
	)
'

test_expect_success 'log --format=%(change-id) and change list --porcelain show it' '
	change_id second >expect &&
	git log -1 --format=%\(change-id\) second >actual &&
	test_cmp expect actual &&
	GIT_TEST_CHANGE_ID_HEADER=false git commit --allow-empty -m no-id &&
	git log -1 --format="[%(change-id)]" >actual &&
	echo "[]" >expect &&
	test_cmp expect actual &&
	git change list --porcelain metas/second >actual &&
	echo "refs/metas/second $(git rev-parse "metas/second^{metacommit}") $(git rev-parse metas/second) - $(change_id metas/second)" >expect &&
	test_cmp expect actual &&
	git change list --porcelain metas/no-id >actual &&
	test_grep " current -\$" actual
'

test_expect_success 'a malformed id is not shown' '
	git cat-file commit HEAD >good &&
	sed "/^committer /a\\
change-id not-an-id" good >bad &&
	bad=$(git hash-object -t commit -w bad) &&
	git log -1 --format="[%(change-id)]" $bad >actual &&
	echo "[]" >expect &&
	test_cmp expect actual
'

# In a new repository $1: a stack c1-c2 on "topic", and on "main" a
# commit made from c1 by someone else, edited, that carries c1's change
# id without being recorded as a version of it (as Jujutsu or another
# clone would make it).
setup_landed_as () {
	git init -q -b main "$1" &&
	cd "$1" &&
	test_commit base &&
	git checkout -q -b topic &&
	test_commit c1 &&
	test_commit c2 &&
	git checkout -q main &&
	test_commit other &&
	(
		GIT_TEST_ENABLE_CHANGES=false &&
		export GIT_TEST_ENABLE_CHANGES &&
		git cherry-pick c1 &&
		echo edited >c1.t &&
		git commit -q -a --amend -m "c1, edited" &&
		git cat-file commit HEAD >landed &&
		sed "/^committer /a\\
change-id $(change_id c1)" landed >landed.id &&
		git reset -q --hard $(git hash-object -t commit -w landed.id)
	) &&
	git checkout -q topic
}

test_expect_success 'evolve <upstream>: a commit there with the id is the change landed' '
	(
		setup_landed_as landed &&
		git evolve main >actual &&
		cat >expect <<-EOF &&
		deleting metas/base: it is in main
		deleting metas/c1: it is in main as $(git rev-parse --short main), which has its change id
		rebasing metas/c2 onto main
		deleting metas/other: it is in main
		moving branch topic to metas/c2
		EOF
		test_cmp expect actual &&
		test_cmp_rev HEAD~ main &&
		test_same_id c2 HEAD &&
		git rev-parse --verify refs/hiddenmetas/c1
	)
'

test_expect_success 'evolve <upstream>: landed by id below a change there; --abort restores it' '
	(
		setup_landed_as aborted &&
		git checkout -q main &&
		echo "main too" >c2.t &&
		git add c2.t &&
		git commit -q -m "c2.t on main" &&
		git checkout -q topic &&
		git for-each-ref refs/metas refs/heads >before &&
		git rev-parse HEAD >head.before &&
		test_must_fail git evolve main >actual 2>err &&
		test_grep "^deleting metas/c1: it is in main as" actual &&
		git evolve --abort &&
		git for-each-ref refs/metas refs/heads >after &&
		test_cmp before after &&
		git rev-parse HEAD >head.after &&
		test_cmp head.before head.after
	)
'

test_expect_success 'evolve <upstream>: not when two commits there have the id' '
	(
		setup_landed_as twice &&
		git checkout -q main &&
		(
			GIT_TEST_ENABLE_CHANGES=false &&
			export GIT_TEST_ENABLE_CHANGES &&
			git commit -q --allow-empty -m "c1, copied" &&
			git cat-file commit HEAD >copy &&
			sed "/^committer /a\\
change-id $(change_id c1)" copy >copy.id &&
			git reset -q --hard $(git hash-object -t commit -w copy.id)
		) &&
		git checkout -q topic &&
		test_must_fail git evolve main >actual 2>err &&
		test_grep ! "^deleting metas/c1" actual &&
		git evolve --abort
	)
'

test_expect_success 'evolve <upstream>: not when the change was amended since' '
	(
		setup_landed_as amended &&
		git checkout -q c1 &&
		echo more >more.t &&
		git add more.t &&
		git commit -q --amend -m "c1 and more" &&
		git checkout -q topic &&
		# rebased onto the edited commit, as without ids: it conflicts
		test_must_fail git evolve main >actual 2>err &&
		test_grep ! "^deleting metas/c1" actual &&
		test_grep "could not rebase .metas/c1. onto .main.: conflict" err &&
		git evolve --abort &&
		test_must_fail git rev-parse --verify -q refs/hiddenmetas/c1 &&
		git cat-file -e metas/c1:more.t
	)
'

# Alice records changes; Bob uses an unpatched git, which keeps the
# change-id header on "commit --amend" (as Jujutsu keeps it on all its
# rewrites) and records no change. They share branches through a server
# that runs an unpatched git.
bob () {
	"$SERVER_GIT" -C bob "$@"
}

# Bob amends his HEAD, changing <file>, with the unpatched git, which
# keeps the change id: bob_amends <file> <message>.
bob_amends () {
	echo "$2" >bob/"$1" &&
	bob commit -q -a --amend -m "$2"
}

test_expect_success 'setup: Alice shares a topic, Bob clones it without changes' '
	find_server_git &&
	"$SERVER_GIT" init -q --bare -b main idserver.git &&
	git init -q -b main alice &&
	(
		cd alice &&
		git remote add origin ../idserver.git &&
		git config remote.origin.uploadpack "\"$SERVER_GIT\" upload-pack" &&
		git config remote.origin.receivepack "\"$SERVER_GIT\" receive-pack" &&
		test_commit base &&
		git checkout -q -b topic &&
		test_commit c1 &&
		test_commit c2 &&
		git push -q origin main topic
	) &&
	"$SERVER_GIT" clone -q idserver.git bob &&
	bob checkout -q topic
'

test_expect_success 'a fetched earlier version of a change is not divergent' '
	(
		cd alice &&
		echo amended >c2.t &&
		git commit -q -a --amend -m "c2, amended"
	) &&
	bob push -q origin topic:refs/heads/old &&
	git -C alice fetch origin 2>err &&
	test_grep ! "divergence" err &&
	git -C alice status >out &&
	test_grep ! "divergent" out
'

test_expect_success 'a fetched commit with the id of a change diverges from it' '
	bob checkout -q -b fix topic~ &&
	echo "fixed by Bob" >bob/c1.t &&
	bob commit -q -a --amend -m "c1, fixed" &&
	bob push -q origin fix &&
	(cd alice && change_id c1) >id.alice &&
	(cd bob && change_id fix) >id.bob &&
	test_line_count = 1 id.alice &&
	test_cmp id.alice id.bob &&
	git -C alice fetch origin 2>err &&
	fixed=$(git -C alice rev-parse --short origin/fix) &&
	cat >expect <<-EOF &&
	hint: $fixed, fetched, has the change id of metas/c1 but neither replaces it nor is replaced by it (divergence).
	hint: If it landed upstream, "git evolve <upstream>" drops yours; otherwise merge them with
	hint:   git checkout metas/c1 && git merge --amend $fixed
	EOF
	grep "^hint: " err | grep -v "Disable this message" >actual &&
	test_cmp expect actual &&
	git -C alice status >out &&
	test_grep "1 change is divergent" out &&
	git -C alice change list -v >out &&
	test_grep "metas/c1 .*(divergent)" out &&
	cp -R alice merged &&
	(
		cd merged &&
		git checkout -q metas/c1 &&
		# both added c1.t
		test_must_fail git merge -q --amend $fixed >out &&
		echo "fixed by both" >c1.t &&
		git add c1.t &&
		git merge --continue &&
		git status >out &&
		test_grep ! "divergent" out &&
		git fetch origin 2>err &&
		test_grep ! "divergence" err
	)
'

test_expect_success 'pull --evolve: the version with the id that landed replaces the change' '
	bob push -q origin fix:main &&
	(
		cd alice &&
		git pull --evolve origin main >out 2>err &&
		landed=$(git rev-parse --short origin/main) &&
		test_grep "deleting metas/c1: it is in .* as $landed, which has its change id" out &&
		test_cmp_rev HEAD~ origin/main &&
		test_same_id c2 HEAD &&
		git status >out &&
		test_grep ! "divergent" out
	)
'

test_expect_success 'a commit fetched over the version of a change is newer, and evolve takes it' '
	(
		cd alice &&
		git checkout -q -b shared main &&
		test_commit c3 &&
		git push -q origin shared &&
		test_commit c4
	) &&
	bob fetch -q origin &&
	bob checkout -q -b shared origin/shared &&
	bob_amends c3.t "c3, by Bob" &&
	bob push -q -f origin shared &&
	# quiet, but noted all the same
	git -C alice fetch -q origin 2>err &&
	test_must_be_empty err &&
	git -C alice status >out &&
	test_grep "1 change is built on a commit that was rewritten" out &&

	# amended again: fetched over the version noted newer
	bob_amends c3.t "c3, by Bob again" &&
	bob push -q -f origin shared &&
	git -C alice fetch origin 2>err &&
	second=$(git -C alice rev-parse --short origin/shared) &&
	test_grep "hint: metas/c3 is behind $second, fetched into origin/shared with its change id" err &&
	test_grep "1 change is built on a version that was amended since" err &&
	test_grep ! "divergence" err &&
	# Two hints of one setting: how to turn them off is said once.
	grep "^hint: Disable this message" err >disable &&
	test_line_count = 1 disable &&
	(
		cd alice &&
		git status >out &&
		test_grep ! "divergent" out &&
		git change list -v >out &&
		test_grep "metas/c3.*behind" out &&
		git evolve >out &&
		test_grep "^taking $second, fetched with the change id of metas/c3, as its new version" out &&
		test_grep "^rebasing metas/c4 onto metas/c3" out &&
		test_cmp_rev metas/c3 origin/shared &&
		test_cmp_rev shared~ origin/shared &&
		test_same_id c3 metas/c3 &&
		git log --obslog --format=%s metas/c3 >obslog &&
		test_grep "c3, by Bob again" obslog &&
		test_grep "^c3$" obslog &&
		git push -q origin shared &&
		git fetch origin 2>err &&
		test_grep ! -e behind -e divergence err
	)
'

test_expect_success 'a change amended since the fetch does not take the newer commit' '
	bob fetch -q origin &&
	bob reset -q --hard origin/shared &&
	bob_amends c4.t "c4, by Bob" &&
	bob push -q -f origin shared &&
	(
		cd alice &&
		git fetch origin 2>err &&
		test_grep "hint: metas/c4 is behind" err &&
		echo "c4 by Alice" >c4.t &&
		git commit -q -a --amend -m "c4, by Alice" &&
		git evolve -n >out &&
		test_grep ! "^taking" out &&
		git change list -v >out &&
		test_grep ! "metas/c4.*behind" out &&
		# both were made from the version fetched before
		git status >out &&
		test_grep "1 change is divergent" out &&
		git change list -v >out &&
		test_grep "metas/c4 .*(divergent)" out &&
		test_must_fail git merge -q --amend origin/shared >out &&
		echo "c4 by both" >c4.t &&
		git add c4.t &&
		git merge --continue &&
		git status >out &&
		test_grep ! "divergent" out
	)
'

test_expect_success 'evolve records the newer commit by id before rebasing it' '
	(
		cd alice &&
		git checkout -q -b third main &&
		test_commit p5 &&
		test_commit c5 &&
		git push -q origin third &&
		test_commit c6 &&
		git checkout -q metas/p5 &&
		echo "p5, amended" >p5.t &&
		git commit -q -a --amend -m "p5, amended"
	) &&
	bob fetch -q origin &&
	bob checkout -q -b third origin/third &&
	bob_amends c5.t "c5, by Bob" &&
	bob push -q -f origin third &&
	(
		cd alice &&
		git fetch origin 2>err &&
		test_grep "hint: metas/c5 is behind" err &&
		git checkout -q metas/c6 &&
		git evolve >out &&
		test_grep "^rebasing metas/c5 onto metas/p5" out &&
		test_grep "^rebasing metas/c6 onto metas/c5" out &&
		test_cmp_rev metas/c5~ metas/p5 &&
		test_cmp_rev metas/c6~ metas/c5 &&
		test_cmp_rev HEAD metas/c6 &&
		test_same_id metas/c5 origin/third &&
		git log --obslog --format=%s metas/c5 >obslog &&
		test_line_count = 3 obslog &&
		test_grep "c5, by Bob" obslog &&
		test_grep "^c5$" obslog &&
		git status >out &&
		test_grep ! -e divergent -e "built on" out &&
		test_path_is_missing .git/evolve-newer
	)
'

test_expect_success 'a branch that merged both versions does not make one newer' '
	(
		cd alice &&
		git checkout -q -b fourth main &&
		test_commit c8 &&
		git push -q origin fourth
	) &&
	bob fetch -q origin &&
	bob checkout -q -b fix8 origin/fourth &&
	bob_amends c8.t "c8, by Bob" &&
	bob checkout -q -b fourth origin/fourth &&
	bob merge -q --no-ff -s ours -m "take both" fix8 &&
	bob push -q origin fourth &&
	(
		cd alice &&
		git fetch origin 2>err &&
		test_grep ! "is behind" err &&
		test_grep "has the change id of metas/c8 .*(divergence)" err &&
		test_path_is_missing .git/evolve-newer
	)
'

test_done

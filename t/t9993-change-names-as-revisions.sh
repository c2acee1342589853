#!/bin/sh

test_description='a change given by name stands for its content; metacommits are never checked out'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh

# Record changes as a user's git does; the names are checked by t9991.
GIT_TEST_ENABLE_CHANGES=true
export GIT_TEST_ENABLE_CHANGES

test_expect_success 'setup' '
	git checkout -b main &&
	test_commit base &&
	echo one >file &&
	git add file &&
	git commit -m "first version" &&
	git tag v1 &&
	echo two >file &&
	git commit -a --amend -m "first version" &&
	git tag v2 &&
	test_commit --no-tag other &&
	git for-each-ref --format="%(objectname) %(refname)" refs/metas/ >refs &&
	meta=$(sed -n "s| refs/metas/first-version\$||p" refs) &&
	check_meta_commit $meta "commit (amend): first version" c v2 r v1
'

test_expect_success 'a change name resolves to its content' '
	test_cmp_rev metas/first-version v2 &&
	test_cmp_rev metas/first-version~1 base &&
	test_cmp_rev metas/first-version^{tree} v2^{tree} &&
	echo two >expect &&
	git cat-file blob metas/first-version:file >actual &&
	test_cmp expect actual
'

test_expect_success 'a change@{n} resolves to earlier contents' '
	test_must_fail git reflog exists refs/metas/first-version &&
	test_cmp_rev metas/first-version@{0} v2 &&
	test_cmp_rev metas/first-version@{1} v1 &&
	test_must_fail git rev-parse metas/first-version@{2} 2>err &&
	test_grep ".metas/first-version. has only 2 versions" err &&
	test_must_fail git rev-parse --verify -q metas/first-version@{2} 2>err &&
	test_must_be_empty err
'

test_expect_success 'a change@{date} is the version it held then' '
	git init dated &&
	(
		cd dated &&
		test_commit --no-tag one &&
		test_tick &&
		git commit --amend -m two &&
		test_tick &&
		git commit --amend -m three &&
		test_cmp_rev "metas/one@{$test_tick}" HEAD &&
		test_cmp_rev "metas/one@{$(($test_tick - 1))}" HEAD@{1} &&
		test_cmp_rev "metas/one@{$(($test_tick - 61))}" HEAD@{2} &&
		git rev-parse "metas/one@{2000-01-01}" >actual 2>err &&
		git rev-parse HEAD@{2} >expect &&
		test_cmp expect actual &&
		test_grep "only goes back to its first version" err
	)
'

test_expect_success 'a change@{n} goes back further than its reflog' '
	git init short-reflog &&
	(
		cd short-reflog &&
		test_commit --no-tag one &&
		git commit --amend -m two &&
		git -c core.logAllRefUpdates=always commit --amend -m three &&
		git reflog exists refs/metas/one &&
		test_cmp_rev metas/one@{1} HEAD@{1} &&
		test_cmp_rev metas/one@{2} HEAD@{2} &&
		# given in full, it is a ref whose reflog answers
		meta=$(git rev-parse "metas/one^{metacommit}") &&
		test_cmp_rev refs/metas/one@{0} $meta &&
		test_must_fail git rev-parse --verify -q refs/metas/one@{2}
	)
'

test_expect_success 'a change@{n} follows a history that loops back' '
	git init looped &&
	(
		cd looped &&
		test_commit --no-tag one &&
		git commit --amend -m two &&
		git commit --amend -m three &&
		first=$(git rev-parse "refs/metas/one@{2}") &&
		git replace "$first" "refs/metas/one" &&
		test_must_fail git rev-parse metas/one@{5} 2>err &&
		test_grep "the history of .metas/one. cannot be read" err
	)
'

test_expect_success 'a change given by its full refname is the value of the ref' '
	meta=$(sed -n "s| refs/metas/first-version\$||p" refs) &&
	test_cmp_rev refs/metas/first-version $meta &&
	test_cmp_rev refs/metas/first-version@{0} $meta &&
	test_cmp_rev refs/metas/first-version@{1} v1 &&
	test_cmp_rev refs/metas/first-version~0 $meta &&
	git show-ref -s refs/metas/first-version >expect &&
	git rev-parse refs/metas/first-version >actual &&
	test_cmp expect actual &&

	# a script compare-and-swap: the old value is what the ref holds
	git update-ref refs/metas/swapped $meta &&
	git update-ref refs/metas/swapped v2 $(git rev-parse refs/metas/swapped) &&
	test_cmp_rev refs/metas/swapped v2 &&
	git update-ref -d refs/metas/swapped $(git rev-parse refs/metas/swapped) &&
	test_must_fail git rev-parse --verify -q refs/metas/swapped
'

test_expect_success ':/text and ^{/text} never name a metacommit' '
	# only the metacommit of the amend says "amend"
	git cat-file commit "metas/first-version^{metacommit}" >meta &&
	test_grep "amend" meta &&
	test_must_fail git rev-parse --verify -q ":/amend" &&
	test_must_fail git rev-parse --verify -q \
		"metas/first-version^{metacommit}^{/amend}" &&
	oid=$(git rev-parse "metas/first-version^{metacommit}^{/first version}") &&
	git cat-file commit $oid >found &&
	test_grep ! "^parent-type" found
'

test_expect_success ':/text does not find a version only a change keeps' '
	git init oneline &&
	(
		cd oneline &&
		test_commit base &&
		test_commit --no-tag "old subject" &&
		test_tick &&
		git commit -q --amend -m "new subject" &&
		git reflog expire --expire=now --all &&
		git rev-parse --verify -q "refs/metas/old-subject^{metacommit}" &&
		test_must_fail git rev-parse --verify -q ":/old subject" &&
		test_cmp_rev ":/new subject" HEAD
	)
'

test_expect_success '^{metacommit} names the metacommit' '
	meta=$(sed -n "s| refs/metas/first-version\$||p" refs) &&
	test_cmp_rev "metas/first-version^{metacommit}" $meta &&
	test_cmp_rev "refs/metas/first-version^{metacommit}" $meta &&
	test_cmp_rev "$meta^{metacommit}" $meta &&
	test_cmp_rev "metas/first-version^{metacommit}^1" v2 &&
	test_cmp_rev "metas/first-version^{metacommit}^{tree}" $EMPTY_TREE
'

test_expect_success '^{metacommit} fails for anything else' '
	test_must_fail git rev-parse --verify "v2^{metacommit}" 2>err &&
	test_grep "v2: not a metacommit" err &&
	test_must_fail git rev-parse --verify "HEAD@{1}^{metacommit}" &&
	test_must_fail git rev-parse --verify "metas/other^{metacommit}" &&
	test_must_fail git rev-parse --verify "v2^{tree}^{metacommit}" &&
	test_must_fail git rev-parse --verify "no-such-ref^{metacommit}" &&
	test_must_fail git rev-parse -q --verify "v2^{metacommit}" 2>err &&
	test_must_be_empty err
'

test_expect_success 'a change that points at a commit resolves to it' '
	test_cmp_rev metas/other HEAD &&
	git for-each-ref --format="%(objectname)" refs/metas/other >actual &&
	git rev-parse HEAD >expect &&
	test_cmp expect actual
'

test_expect_success 'ref listings and bundles show the metacommit' '
	meta=$(git rev-parse "metas/first-version^{metacommit}") &&
	echo "$meta refs/metas/first-version" >expect &&
	git show-ref refs/metas/first-version >actual &&
	test_cmp expect actual &&
	git bundle create all.bundle --all &&
	git bundle list-heads all.bundle >heads &&
	grep refs/metas/first-version heads >actual &&
	test_cmp expect actual
'

test_expect_success 'a bundle of a change named on the command line holds its content' '
	git bundle create first.bundle metas/first-version &&
	git bundle list-heads first.bundle >actual &&
	echo "$(git rev-parse v2) refs/metas/first-version" >expect &&
	test_cmp expect actual
'

test_expect_success 'remote and hidden changes resolve to their content' '
	meta=$(git rev-parse "metas/first-version^{metacommit}") &&
	git update-ref refs/remotes/origin/metas/first-version $meta &&
	git update-ref refs/hiddenmetas/first-version $meta &&
	test_cmp_rev origin/metas/first-version v2 &&
	test_cmp_rev hiddenmetas/first-version v2 &&
	test_cmp_rev "origin/metas/first-version^{metacommit}" $meta &&
	test_cmp_rev refs/remotes/origin/metas/first-version $meta &&
	test_cmp_rev refs/hiddenmetas/first-version $meta
'

test_expect_success 'other refs to a metacommit are not peeled' '
	meta=$(git rev-parse "metas/first-version^{metacommit}") &&
	git update-ref refs/heads/meta $meta &&
	git update-ref refs/remotes/origin/meta $meta &&
	test_when_finished "git update-ref -d refs/heads/meta" &&
	test_cmp_rev meta $meta &&
	test_cmp_rev origin/meta $meta
'

test_expect_success 'an abandoned change resolves to the abandoned commit' '
	git cat-file commit "metas/first-version^{metacommit}" >meta &&
	sed "s/^parent-type c r\$/parent-type a r/" meta >abandoned &&
	! test_cmp meta abandoned &&
	oid=$(git hash-object -t commit -w abandoned) &&
	git update-ref refs/metas/abandoned $oid &&
	test_cmp_rev metas/abandoned v2 &&
	test_cmp_rev "metas/abandoned^{metacommit}" $oid
'

test_expect_success 'a malformed metacommit is not peeled' '
	git cat-file commit "metas/first-version^{metacommit}" >meta &&
	sed "s/^parent-type c r\$/parent-type c/" meta >malformed &&
	oid=$(git hash-object --literally -t commit -w malformed) &&
	git update-ref refs/metas/malformed $oid &&
	test_cmp_rev metas/malformed $oid
'

test_expect_success 'checkout of a change detaches HEAD at its content' '
	git checkout metas/first-version &&
	test_cmp_rev HEAD v2 &&
	echo two >expect &&
	test_cmp expect file &&
	git status >actual &&
	test_grep "HEAD detached at metas/first-version" actual &&
	git switch --detach metas/other &&
	test_cmp_rev HEAD main
'

test_expect_success 'reset, log, show, diff and branch use the content' '
	git reset --hard metas/first-version &&
	test_cmp_rev HEAD v2 &&
	git log --format=%H metas/first-version >actual &&
	git log --format=%H v2 >expect &&
	test_cmp expect actual &&
	git show -s --format=%H metas/first-version >actual &&
	git rev-parse v2 >expect &&
	test_cmp expect actual &&
	git diff --stat metas/first-version@{1} metas/first-version >actual &&
	test_grep "file | 2 +-" actual &&
	git branch from-change metas/first-version &&
	test_cmp_rev from-change v2
'

test_expect_success 'cherry-pick and rebase --onto a change use its content' '
	git checkout -b topic base &&
	test_commit topic-file &&
	git rebase --onto metas/first-version base &&
	test_cmp_rev HEAD^ v2 &&
	git checkout -b picks base &&
	git cherry-pick metas/first-version &&
	test_cmp_rev HEAD^ base &&
	test_cmp_rev HEAD^{tree} v2^{tree}
'

test_expect_success 'checkout, switch, reset, branch, rebase, replay, merge, worktree add and evolve refuse a metacommit' '
	git checkout main &&
	git rev-parse HEAD >head.before &&
	git ls-files >files.before &&
	test_must_fail git checkout "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot check out .metas/first-version^{metacommit}.: it is a metacommit" err &&
	test_must_fail git checkout -b new "metas/first-version^{metacommit}" 2>err &&
	test_grep "it is a metacommit" err &&
	test_must_fail git switch --detach "metas/first-version^{metacommit}" 2>err &&
	test_grep "it is a metacommit" err &&
	test_must_fail git reset --hard "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot reset to .metas/first-version^{metacommit}.: it is a metacommit" err &&
	test_must_fail git reset --soft metas/malformed 2>err &&
	test_grep "it is a metacommit" err &&
	test_must_fail git branch new "metas/first-version^{metacommit}" 2>err &&
	test_grep "is a metacommit" err &&
	test_must_fail git rev-parse --verify new &&
	git for-each-ref >refs.before &&
	test_must_fail git rebase --onto "metas/first-version^{metacommit}" HEAD~ 2>err &&
	test_grep "cannot rebase onto .metas/first-version^{metacommit}.: it is a metacommit" err &&
	test_must_fail git rebase -i "metas/first-version^{metacommit}" 2>err &&
	test_grep "it is a metacommit" err &&
	test_must_fail git rebase main "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot rebase .metas/first-version^{metacommit}.: it is a metacommit" err &&
	test_must_fail git merge "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot merge .metas/first-version^{metacommit}.: it is a metacommit" err &&
	test_must_fail git merge --squash "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot merge .metas/first-version^{metacommit}.: it is a metacommit" err &&
	git fetch -q . refs/metas/first-version &&
	test_must_fail git merge FETCH_HEAD 2>err &&
	test_grep "cannot merge .$(git rev-parse "metas/first-version^{metacommit}").: it is a metacommit" err &&
	test_must_fail git merge refs/metas/first-version 2>err &&
	test_grep "cannot merge .refs/metas/first-version.: it is a metacommit" err &&
	test_path_is_missing .git/MERGE_HEAD &&
	test_must_fail git checkout refs/metas/first-version 2>err &&
	test_grep "cannot check out .refs/metas/first-version.: it is a metacommit" err &&
	test_must_fail git rebase --onto refs/metas/first-version HEAD~ 2>err &&
	test_grep "cannot rebase onto .refs/metas/first-version.: it is a metacommit" err &&
	test_must_fail git replay --onto refs/metas/first-version HEAD~..main 2>err &&
	test_grep "it is a metacommit" err &&
	test_must_fail git evolve "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot use ${SQ}metas/first-version^{metacommit}${SQ} as an upstream: it is a metacommit" err &&
	test_must_fail git change prune "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot use ${SQ}metas/first-version^{metacommit}${SQ} as an upstream: it is a metacommit" err &&
	test_must_fail git replay --onto "metas/first-version^{metacommit}" HEAD~..main 2>err &&
	test_grep "cannot use .metas/first-version^{metacommit}. for --onto: it is a metacommit" err &&
	test_must_fail git worktree add ../meta-worktree "metas/first-version^{metacommit}" 2>err &&
	test_grep "cannot check out .metas/first-version^{metacommit}.: it is a metacommit" err &&
	test_path_is_missing ../meta-worktree &&
	git worktree list >worktrees &&
	test_line_count = 1 worktrees &&
	git for-each-ref >refs.after &&
	test_cmp refs.before refs.after &&
	git rev-parse HEAD >head.after &&
	test_cmp head.before head.after &&
	git ls-files >files.after &&
	test_cmp files.before files.after &&
	git symbolic-ref HEAD >actual &&
	echo refs/heads/main >expect &&
	test_cmp expect actual
'

test_expect_success 'checkout of a branch at a metacommit is refused' '
	git update-ref refs/heads/meta-branch "metas/first-version^{metacommit}" &&
	test_must_fail git checkout meta-branch 2>err &&
	test_grep "cannot check out .meta-branch.: it is a metacommit" err &&
	test_must_fail git switch meta-branch 2>err &&
	test_grep "it is a metacommit" err &&
	git symbolic-ref HEAD >actual &&
	echo refs/heads/main >expect &&
	test_cmp expect actual
'

test_expect_success 'log --all shows the content of changes, not metacommits' '
	# Only changes are peeled; drop the other refs to metacommits.
	git update-ref -d refs/remotes/origin/meta &&
	git update-ref -d refs/heads/meta-branch &&
	git update-ref -d refs/metas/malformed &&
	git log --all --format=%s >actual &&
	test_grep ! "commit (amend)" actual &&
	git log --all --format=%H >all &&
	test_grep ! "$(git rev-parse "metas/first-version^{metacommit}")" all &&
	git log --metacommits --all --format=%s >actual &&
	test_grep "commit (amend): first version" actual &&
	git rev-list --all >all &&
	test_grep "$(git rev-parse "metas/first-version^{metacommit}")" all &&
	git log --metacommits --no-metacommits --all --format=%s >actual &&
	test_grep ! "commit (amend)" actual
'

test_expect_success 'log --decorate shows a change on the commit it holds' '
	git log --decorate --format="%H %D" -1 v2 >actual &&
	test_grep "metas/first-version" actual &&
	git log --decorate=full --format="%D" -1 v2 >actual &&
	test_grep "refs/metas/first-version" actual &&
	meta=$(git rev-parse "metas/first-version^{metacommit}") &&
	git log --metacommits --decorate --format="%H %D" --all >all &&
	test_grep ! "^$meta .*metas/first-version" all &&
	git -c color.decorate.change=blue log --decorate --color=always \
		--format="%C(auto)%d" -1 v2 >actual &&
	test_grep "$(printf "\\033\\[34mmetas/first-version")" actual
'

test_expect_success 'changes decorate their commit with a commit-graph too' '
	git init graph &&
	(
		cd graph &&
		test_commit --no-tag plain &&
		git commit -q --allow-empty -m "empty tree" &&
		git rm -q plain.t &&
		git commit -q -m "no files" &&
		test_tick &&
		git commit -q --amend -m "no files, amended" &&
		git commit-graph write --reachable &&
		test_path_is_file .git/objects/info/commit-graph &&
		# "no files" and its amended version have the empty tree, as
		# metacommits have, yet are plain commits
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			--all >actual &&
		cat >expect <<-\EOF &&
		no files, amended: metas/no-files
		empty tree: metas/empty-tree
		plain: metas/plain
		EOF
		test_cmp expect actual &&
		test_cmp_rev metas/no-files HEAD
	)
'

test_expect_success 'log --decorate keeps what change heads peel to in a cache' '
	git init peel-cache &&
	(
		cd peel-cache &&
		test_commit --no-tag first &&
		test_tick &&
		git commit -q --amend -m "first, amended" &&
		test_commit --no-tag second &&
		test_path_is_missing .git/metas-peeled &&
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			>actual 2>err &&
		cat >expect <<-\EOF &&
		second: metas/second
		first, amended: metas/first
		EOF
		test_cmp expect actual &&
		test_must_be_empty err &&
		test_path_is_file .git/metas-peeled &&
		cp .git/metas-peeled cache.before &&
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			>actual &&
		test_cmp expect actual &&
		# it knew every head: not written again
		test_cmp cache.before .git/metas-peeled &&
		test_tick &&
		git commit -q --amend -m "second, amended" &&
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			>actual &&
		cat >expect <<-\EOF &&
		second, amended: metas/second
		first, amended: metas/first
		EOF
		test_cmp expect actual &&
		! test_cmp cache.before .git/metas-peeled &&

		# a log that decorates some changes keeps the records of the
		# others; one that may not take locks writes nothing
		cp .git/metas-peeled cache.before &&
		test_tick &&
		git commit -q --amend -m "second, amended again" &&
		GIT_OPTIONAL_LOCKS=0 git log --decorate --format="%D" -1 >actual &&
		test_cmp cache.before .git/metas-peeled &&
		git log --decorate --decorate-refs=refs/metas/second \
			--format="%D" -1 >actual &&
		echo "metas/second" >expect &&
		test_cmp expect actual &&
		test "$(test_file_size .git/metas-peeled)" -gt \
		     "$(test_file_size cache.before)"
	)
'

test_expect_success 'log --decorate finds the changes of the commits it shows' '
	git init -b main deferred &&
	(
		cd deferred &&
		test_commit --no-tag base &&
		git tag -a -m annotated v2 &&
		git branch aaa &&
		git branch zzz &&
		git update-ref refs/metas/alias refs/metas/base &&
		git update-ref refs/remotes/origin/metas/base refs/metas/base &&
		git update-ref refs/remotes/origin/main HEAD &&
		git update-ref refs/bisect/good-1 HEAD &&
		git update-ref refs/zzz/other HEAD &&
		cat >expect.short <<-\EOF &&
		HEAD -> main, tag: v2, origin/metas/base, origin/main, metas/base, metas/alias, zzz, aaa
		EOF
		cat >expect.all <<-\EOF &&
		refs/zzz/other, tag: v2, origin/metas/base, origin/main, metas/base, metas/alias, zzz, main, aaa, refs/bisect/good-1
		EOF
		cat >expect.full <<-\EOF &&
		HEAD -> refs/heads/main, tag: refs/tags/v2, refs/remotes/origin/metas/base, refs/remotes/origin/main, refs/metas/base, refs/metas/alias, refs/heads/zzz, refs/heads/aaa
		EOF

		# with every head to read, the names come in the order of
		# the refs (the cache is not written: no optional locks) ...
		GIT_OPTIONAL_LOCKS=0 git log --decorate --format=%D >actual &&
		test_cmp expect.short actual &&
		GIT_OPTIONAL_LOCKS=0 git log --decorate --decorate-refs=refs/ \
			--format=%D >actual &&
		test_cmp expect.all actual &&
		test_path_is_missing .git/metas-peeled &&

		# ... and in the same order when the cache knows them, and
		# finds them as the commit is shown
		git log --decorate --format=%D >actual &&
		test_cmp expect.short actual &&
		GIT_TRACE2_EVENT="$(pwd)/warm.event" \
			git log --decorate --format=%D >actual &&
		test_cmp expect.short actual &&
		test_trace2_data change-peel deferred 3 <warm.event &&
		git log --decorate --decorate-refs=refs/ --format=%D >actual &&
		test_cmp expect.all actual &&
		git log --decorate=full --format=%D >actual &&
		test_cmp expect.full actual &&

		# without the cache (objects may be replaced), likewise
		tree=$(git rev-parse HEAD^{tree}) &&
		one=$(git commit-tree -m one $tree) &&
		two=$(git commit-tree -m two $tree) &&
		git replace $one $two &&
		GIT_TRACE2_EVENT="$(pwd)/replaced.event" \
			git log --decorate --format=%D -1 main >actual &&
		test_cmp expect.short actual &&
		! grep "\"deferred\"" replaced.event &&
		git replace -d $one &&

		# a new version is peeled at once, the others deferred
		test_tick &&
		git commit -q --amend -m "base, amended" &&
		git log --decorate --format=%D >actual &&
		echo "HEAD -> main, metas/base" >expect &&
		test_cmp expect actual &&
		GIT_TRACE2_EVENT="$(pwd)/amended.event" \
			git log --decorate --format=%D --all >actual &&
		test_trace2_data change-peel deferred 3 <amended.event &&
		cat >expect <<-\EOF &&
		HEAD -> main, metas/base
		tag: v2, origin/metas/base, origin/main, metas/alias, zzz, aaa
		EOF
		test_cmp expect actual
	)
'

test_expect_success 'a change left out of the decorations still holds its commit' '
	git init filtered &&
	(
		cd filtered &&
		test_commit --no-tag one &&
		old=$(git rev-parse HEAD) &&
		test_tick &&
		git commit -q --amend -m "one, amended" &&
		git update-ref refs/metas/alias $old &&
		echo >expect &&
		git log --decorate --decorate-refs-exclude=refs/metas/alias \
			--format=%D -1 $old >actual &&
		test_cmp expect actual &&
		git -c log.excludeDecoration=refs/metas/alias \
			log --decorate --format=%D -1 $old >actual &&
		test_cmp expect actual &&
		git log --decorate --format=%D -1 $old >actual &&
		echo "metas/alias" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'log --decorate ignores a peel cache it cannot use' '
	(
		cd peel-cache &&
		rm .git/metas-peeled &&
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			>expect &&
		cp .git/metas-peeled cache.good &&
		for bad in truncated garbage
		do
			case $bad in
			truncated) test_copy_bytes 100 <cache.good ;;
			garbage) sed "s/MPC3/MPC9/" cache.good ;;
			esac >.git/metas-peeled &&
			git log --decorate --decorate-refs=refs/metas/ \
				--format="%s: %D" >actual 2>err &&
			test_cmp expect actual &&
			test_must_be_empty err &&
			test_cmp cache.good .git/metas-peeled || return 1
		done &&
		# a reverse index that lies loses names, and nothing else
		size=$(test_file_size cache.good) &&
		test_copy_bytes $(($size - 4)) <cache.good >.git/metas-peeled &&
		printf "\377\377\377\377" >>.git/metas-peeled &&
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			>actual 2>err &&
		test_must_be_empty err &&
		test_line_count = 2 actual &&
		# a cache is not worth waiting for, nor an error
		rm .git/metas-peeled &&
		>.git/metas-peeled.lock &&
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			>actual 2>err &&
		test_cmp expect actual &&
		test_must_be_empty err &&
		test_path_is_missing .git/metas-peeled &&
		rm .git/metas-peeled.lock
	)
'

test_expect_success 'a metacommit is read whole while log walks it' '
	(
		cd graph &&
		# "no files" is decorated once log has walked the metacommit
		git log --decorate --decorate-refs=refs/metas/ --format="%s: %D" \
			--metacommits --all >actual 2>err &&
		cat >expect <<-\EOF &&
		no files, amended: metas/no-files
		commit (amend): no files, amended:$SP
		empty tree: metas/empty-tree
		plain: metas/plain
		no files: obsolete, 1 commit behind metas/no-files
		EOF
		sed "s/\$SP/ /" expect >expect.sp &&
		test_cmp expect.sp actual &&
		test_must_be_empty err
	)
'

test_expect_success 'log --decorate marks obsolete commits' '
	git init obsolete &&
	(
		cd obsolete &&
		test_commit --no-tag "the change" file one &&
		git tag v1 &&
		test_tick &&
		git commit -q --amend -m "the change, again" &&
		git tag v2 &&
		git log --decorate --format="%D" -1 v1 >actual &&
		echo "obsolete, 1 commit behind metas/change, tag: v1" >expect &&
		test_cmp expect actual &&
		git -c color.decorate.obsolete=blue log --decorate --color=always \
			--format="%C(auto)%d" -1 v1 >actual &&
		test_grep "$(printf "\033\[34mobsolete, 1 commit behind")" actual &&
		git log --decorate --decorate-refs=refs/tags/ --format="%D" -1 v1 >actual &&
		echo "tag: v1" >expect &&
		test_cmp expect actual &&
		test_tick &&
		git commit -q --amend -m "the change, once more" &&
		GIT_TRACE2_EVENT="$(pwd)/amended.event" \
			git log --decorate --format="%D" -1 v1 >actual &&
		echo "obsolete, 2 commits behind metas/change, tag: v1" >expect &&
		test_cmp expect actual &&
		# the change that held it tells, without reading every change
		test_region evolve load_some_changes amended.event &&
		test_region ! evolve load_changes amended.event &&
		git log --decorate --format="%D" -1 v2 >actual &&
		echo "obsolete, 1 commit behind metas/change, tag: v2" >expect &&
		test_cmp expect actual &&

		# the current version is not obsolete; renamed, the old ones
		# still are (the index knows them under the old name)
		git log --decorate --decorate-refs=refs/metas/ --format="%D" \
			-1 HEAD >actual &&
		echo "metas/change" >expect &&
		test_cmp expect actual &&
		git change rename change renamed &&
		GIT_TRACE2_EVENT="$(pwd)/renamed.event" \
			git log --decorate --format="%D" v2 >actual &&
		echo "obsolete, 1 commit behind metas/renamed, tag: v2" >expect &&
		test_cmp expect actual &&
		# the change that held it is gone: every change is read
		test_region evolve load_changes renamed.event
	)
'

test_expect_success 'log --decorate copes with a change that holds an annotated tag' '
	git init -b main change-holds-tag &&
	(
		cd change-holds-tag &&
		test_commit tagged &&
		git tag -a -m annotated annotated &&
		tag=$(git rev-parse annotated) &&
		# "git commit-tree" cannot write the parent-type header.
		cat >metacommit <<-EOF &&
		tree $EMPTY_TREE
		parent $tag
		author $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL> $GIT_COMMITTER_DATE
		committer $GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL> $GIT_COMMITTER_DATE
		parent-type c

		crafted
		EOF
		meta=$(git hash-object -t commit -w metacommit) &&
		git update-ref refs/metas/crafted $meta &&
		git log --decorate --format="%D" >actual 2>err &&
		test_must_be_empty err &&
		echo "HEAD -> main, tag: tagged, tag: annotated, metas/tagged" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'checkout of a change only a remote has makes no branch' '
	git init checkout-remote-change &&
	(
		cd checkout-remote-change &&
		test_commit base &&
		git remote add origin ../nowhere.git &&
		git update-ref refs/remotes/origin/metas/theirs HEAD &&
		test_must_fail git checkout metas/theirs 2>err &&
		test_grep "${SQ}metas/theirs${SQ} is a change of a remote, not a branch; check out ${SQ}origin/metas/theirs${SQ} to work on it" err &&
		test_must_fail git switch metas/theirs 2>err &&
		test_grep "is a change of a remote, not a branch" err &&
		test_must_fail git rev-parse --verify -q refs/heads/metas/theirs &&
		git checkout -q origin/metas/theirs &&
		test_cmp_rev HEAD base &&
		# a remote-tracking branch is guessed as before
		git update-ref refs/remotes/origin/topic base &&
		git checkout -q topic &&
		test_cmp_rev refs/heads/topic base
	)
'

test_expect_success 'a branch started from a change does not track it' '
	git init track-change &&
	(
		cd track-change &&
		test_commit base &&
		test_commit --no-tag theirs &&
		git remote add origin ../nowhere.git &&
		git config remote.origin.fetch "+refs/metas/*:refs/remotes/origin/metas/*" &&
		git update-ref refs/remotes/origin/metas/theirs HEAD &&
		git checkout -q -b topic origin/metas/theirs &&
		test_cmp_rev topic HEAD &&
		test_must_fail git config branch.topic.merge &&
		test_must_fail git config branch.topic.remote &&
		git -c branch.autoSetupMerge=true branch other origin/metas/theirs 2>err &&
		test_grep ! . err &&
		test_must_fail git config branch.other.merge &&
		git -c branch.autoSetupMerge=always branch mine metas/theirs &&
		test_must_fail git config branch.mine.merge &&
		test_must_fail git branch --track tracked origin/metas/theirs 2>err &&
		test_grep "starting point ${SQ}origin/metas/theirs${SQ} is not a branch" err &&
		test_must_fail git rev-parse --verify -q refs/heads/tracked &&
		test_must_fail git branch --set-upstream-to=origin/metas/theirs topic 2>err &&
		test_grep "starting point ${SQ}origin/metas/theirs${SQ} is not a branch" err &&
		test_must_fail git config branch.topic.merge
	)
'

test_expect_success 'replay --advance refuses to move a change' '
	git -C track-change for-each-ref >refs.before &&
	test_must_fail git -C track-change replay --advance metas/theirs base..topic 2>err &&
	test_grep "cannot use .metas/theirs. for --advance: it is a change, not a branch" err &&
	test_must_fail git -C track-change replay --advance refs/metas/base base..topic 2>err &&
	test_grep "it is a change, not a branch" err &&
	git -C track-change for-each-ref >refs.after &&
	test_cmp refs.before refs.after
'

test_done

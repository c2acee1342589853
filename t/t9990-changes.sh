#!/bin/sh

test_description='git change - low level meta-commit management'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh

. "$TEST_DIRECTORY"/lib-rebase.sh

# These tests record changes by hand with "git change update"; automatic
# recording (t9991) would get in the way, even when the suite forces it on.
GIT_TEST_ENABLE_CHANGES=false
export GIT_TEST_ENABLE_CHANGES

test_expect_success 'git version says the build has the series, the agent does not' '
	git version >actual &&
	git --version >actual-option &&
	test_cmp actual actual-option &&
	upstream=$(sed -n "s/^GIT_VERSION=//p" "$GIT_BUILD_DIR/GIT-VERSION-FILE") &&
	test -n "$upstream" &&
	echo "git version $upstream (evolve)" >expect &&
	test_cmp expect actual &&
	git version --build-options >build-options &&
	test_grep "^git version $upstream (evolve)\$" build-options &&
	test_grep "^feature: evolve\$" build-options &&
	test-tool serve-v2 --advertise-capabilities >out &&
	test-tool pkt-line unpack <out >caps &&
	test_grep -e "^agent=git/$upstream-" -e "^agent=git/$upstream\$" caps &&
	test_grep ! evolve caps
'

test_expect_success 'setup commits and meta-commits' '
	for c in one two three
	do
		test_commit $c &&
		git change update --content $c >actual 2>err &&
		echo "Created change metas/$c" >expect &&
		test_cmp expect actual &&
		test_must_be_empty err &&
		test_cmp_rev metas/$c $c || return 1
	done
'

test_expect_success 'no new change for a commit that has one' '
	git change update --content two >actual 2>err &&
	test_must_be_empty actual &&
	test_must_be_empty err &&
	git change list >actual &&
	test_line_count = 3 actual
'

test_expect_success 'update meta-commits after rebase' '
	(
		set_fake_editor &&
		FAKE_AMEND=edited &&
		FAKE_LINES="reword 1 pick 2 fixup 3" &&
		export FAKE_AMEND FAKE_LINES &&
		git rebase -i --root
	) &&

	# update meta-commits
	git change update --replace tags/one --content HEAD~1 >out 2>err &&
	echo "Updated change metas/one" >expect &&
	test_cmp expect out &&
	test_must_be_empty err &&
	git change update --replace tags/two --content HEAD@{2} &&
	oid=$(git rev-parse --verify "metas/two^{metacommit}") &&
	git change update --replace HEAD@{2} --replace tags/three \
		--content HEAD >out &&
	cat >expect <<-\EOF &&
	Updated change metas/three
	Updated change metas/two
	EOF
	sort out >actual &&
	test_cmp expect actual &&

	# check meta-commits
	check_meta_commit metas/one "change update" c HEAD~1 r tags/one &&
	check_meta_commit $oid "change update" c HEAD@{2} r tags/two &&
	# NB this checks that "git change update" uses the meta-commit ($oid)
	#    corresponding to the replaced commit (HEAD@{2} above) given on
	#    the command line.
	check_meta_commit metas/two "change update" \
		c HEAD r $oid r tags/three &&
	test_cmp_rev "metas/three^{metacommit}" "metas/two^{metacommit}"
'

test_expect_success 'metacommits are complete objects' '
	empty_tree=$(git rev-parse --git-path objects/$(test_oid_to_path $EMPTY_TREE)) &&
	test_path_is_file "$empty_tree" &&
	git fsck --strict >out 2>&1 &&
	test_grep ! "missing" out
'

test_expect_success 'override change name' '
	git change update --change another-one --content one >actual &&
	echo "Created change metas/another-one" >expect &&
	test_cmp expect actual &&
	test_cmp_rev metas/another-one one &&
	git change update --change another-one --content one >actual &&
	test_must_be_empty actual &&
	git change update -g metas/yet-another -c one &&
	test_cmp_rev metas/yet-another one &&
	git change update -g refs/metas/and-another -c one &&
	test_cmp_rev metas/and-another one &&
	git change delete yet-another and-another
'

test_expect_success 'update an existing named change' '
	test_commit four &&
	git change update -g another-one -c four -r one >actual &&
	echo "Updated change metas/another-one" >expect &&
	test_cmp expect actual &&
	check_meta_commit metas/another-one "change update" c four r one
'

test_expect_success 'invalid change name' '
	test_must_fail git change update -g "a..b" -c one 2>err &&
	test_grep "${SQ}a..b${SQ} is not a valid change name" err
'

test_expect_success 'non-fast forward meta-commit update refused' '
	old=$(git rev-parse metas/one) &&
	test_must_fail git change update --change one --content two \
		>out 2>err &&
	echo "error: non-fast-forward update to ${SQ}metas/one${SQ}" \
		>expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	test_cmp_rev metas/one $old
'

test_expect_success 'forced non-fast forward update succeeds' '
	git change update --change metas/one --content two --force \
		>out 2>err &&
	echo "Updated change metas/one" >expect &&
	test_cmp expect out &&
	test_must_be_empty err &&
	test_cmp_rev metas/one two
'

# "git change list" lists in stack order: as "git log --graph" shows the
# commits, newest first; here "one" holds the oldest.
test_expect_success 'list changes' '
	cat >expect <<-\EOF &&
	metas/another-one
	metas/three
	metas/two
	metas/one
	EOF
	git change list >actual &&
	test_cmp expect actual &&
	git change >actual &&
	test_cmp expect actual
'

test_expect_success 'list changes matching patterns' '
	cat >expect <<-\EOF &&
	metas/three
	metas/one
	EOF
	git change list one metas/thr* >actual &&
	test_cmp expect actual &&
	git change list "refs/metas/t*" >actual &&
	cat >expect <<-\EOF &&
	metas/three
	metas/two
	EOF
	test_cmp expect actual &&
	git change list nothing-matches >actual &&
	test_must_be_empty actual
'

test_expect_success 'list remote and hidden changes' '
	test_when_finished "git update-ref -d refs/remotes/origin/metas/one &&
		git update-ref -d refs/remotes/origin/not-a-change &&
		git update-ref -d refs/hiddenmetas/old" &&
	git update-ref refs/remotes/origin/metas/one one &&
	git update-ref refs/remotes/origin/not-a-change one &&
	git update-ref refs/hiddenmetas/old two &&
	echo origin/metas/one >expect &&
	git change list -r >actual &&
	test_cmp expect actual &&
	cat >expect <<-\EOF &&
	metas/another-one
	metas/three
	metas/two
	metas/one
	origin/metas/one
	EOF
	git change list -a >actual &&
	test_cmp expect actual &&
	cat >expect <<-\EOF &&
	hiddenmetas/old
	metas/one
	origin/metas/one
	EOF
	git change list -a --hidden one "o*" >actual &&
	test_cmp expect actual &&
	test_expect_code 128 git change list -r -a 2>err &&
	test_grep "cannot be used together" err
'

test_expect_success 'list changes with a format' '
	cat >expect <<-EOF &&
	refs/metas/one $(git rev-parse metas/one) $(git log -1 --format=%s metas/one)
	EOF
	git change list --format="%(refname) %(objectname) %(subject)" one >actual &&
	test_cmp expect actual &&
	test_expect_code 128 git change list --format="%(nosuchatom)" 2>err &&
	test_grep "unknown field name" err &&
	test_expect_code 128 git change list --porcelain --format=x 2>err &&
	test_grep "cannot be used together" err
'

test_expect_success 'record a cherry-pick' '
	git checkout --detach one &&
	git cherry-pick four &&
	git change update -o four >actual &&
	echo "Created change metas/four" >expect &&
	test_cmp expect actual &&
	# "four" is the content of metas/another-one: its head is the origin
	check_meta_commit metas/four "change update" c HEAD o metas/another-one
'

test_expect_success '--new creates a change even if one could be updated' '
	old=$(git rev-parse metas/four) &&
	git commit --amend -m "four amended" &&
	git change update -n -r HEAD@{1} >actual &&
	echo "Created change metas/four-amended" >expect &&
	test_cmp expect actual &&
	test_cmp_rev metas/four $old &&
	check_meta_commit metas/four-amended "change update" c HEAD r metas/four
'

test_expect_success '--new and --change are incompatible' '
	test_expect_code 128 git change update -n -g x 2>err &&
	test_grep "cannot be used together" err
'

test_expect_success 'a parent-type line in a message is not a metacommit' '
	git commit --allow-empty -m fake -m "parent-type c r" &&
	git change update >actual &&
	echo "Created change metas/fake" >expect &&
	test_cmp expect actual &&
	test_cmp_rev metas/fake HEAD &&
	git change update -g fake -r HEAD -c HEAD~1 >actual &&
	check_meta_commit metas/fake "change update" c HEAD~1 r HEAD
'

test_expect_success 'new change names are valid and unique' '
	git update-ref refs/metas/dir/x HEAD &&
	git commit --allow-empty -m dir &&
	git commit --allow-empty -m "  a/b  c:d " &&
	git commit --allow-empty --allow-empty-message -m "" &&
	git commit --allow-empty -m "one" &&
	git change update -c HEAD~3 &&
	git change update -c HEAD~2 &&
	git change update -c HEAD~1 &&
	git change update -c HEAD &&
	git change update -g change -c HEAD~3 --force &&
	git commit --allow-empty -m "" --allow-empty-message &&
	git change update >actual &&
	cat >expect <<-\EOF &&
	Created change metas/change-2
	EOF
	test_cmp expect actual &&
	test_cmp_rev metas/dir-2 HEAD~4 &&
	test_cmp_rev metas/b-c-d HEAD~3 &&
	test_cmp_rev metas/one-2 HEAD~1 &&
	test_cmp_rev metas/change-2 HEAD &&
	git update-ref -d refs/metas/dir/x
'

test_expect_success 'delete change' '
	one=$(git rev-parse --short metas/one) &&
	git change delete metas/one >actual &&
	echo "Deleted change metas/one (was $one)" >expect &&
	test_cmp expect actual &&
	test_must_fail git rev-parse --verify -q refs/metas/one &&
	git change delete refs/metas/two three &&
	git change list >actual &&
	test_grep ! -e "^metas/two\$" -e "^metas/three\$" actual
'

test_expect_success 'deleting an unknown change deletes nothing' '
	test_must_fail git change delete another-one no-such-change 2>err &&
	test_grep "change ${SQ}no-such-change${SQ} not found" err &&
	git rev-parse --verify refs/metas/another-one
'

test_expect_success 'delete needs a change' '
	test_expect_code 129 git change delete
'

test_expect_success 'unknown commit' '
	test_expect_code 128 git change update -c no-such-commit 2>err &&
	test_grep "${SQ}no-such-commit${SQ} is not a valid commit" err &&
	test_expect_code 128 git change update -r no-such-commit 2>err &&
	test_grep "${SQ}no-such-commit${SQ} is not a valid commit" err &&
	test_expect_code 128 git change update -c HEAD^{tree} 2>err &&
	test_grep "${SQ}HEAD^{tree}${SQ} is not a valid commit" err &&
	# one wording for a name that is no commit, whichever command
	test_expect_code 128 git change prune no-such-commit 2>err &&
	test_grep "${SQ}no-such-commit${SQ} is not a valid commit" err &&
	test_expect_code 128 git evolve no-such-commit 2>err &&
	test_grep "${SQ}no-such-commit${SQ} is not a valid commit" err &&
	test_expect_code 128 git merge --amend no-such-commit 2>err &&
	test_grep "${SQ}no-such-commit${SQ} is not a valid commit" err &&
	# a name of something else than a commit: one message, not two
	for cmd in "evolve" "change prune" "change list --graph --upstream" \
		"merge --amend"
	do
		test_expect_code 128 git $cmd HEAD^{tree} 2>err &&
		test_grep "${SQ}HEAD^{tree}${SQ} is not a valid commit" err &&
		test_line_count = 1 err || return 1
	done
'

test_expect_success 'each subcommand shows its own usage' '
	test_expect_code 129 git change forget -h >usage &&
	test_grep "git change forget" usage &&
	test_grep ! "git change prune" usage
'

test_expect_success 'unknown subcommand' '
	test_expect_code 129 git change frobnicate 2>err &&
	test_grep "unknown subcommand: .frobnicate" err
'

test_expect_success 'a metacommit cannot be the content of a change' '
	test_must_fail git change update -c "metas/fake^{metacommit}" 2>err &&
	test_grep "cannot be the content of a change" err
'

test_expect_success 'a blob under refs/metas/ is skipped' '
	blob=$(echo blob | git hash-object -w --stdin) &&
	git update-ref refs/metas/blob $blob &&
	test_when_finished "git update-ref -d refs/metas/blob" &&
	git change list >actual 2>err &&
	test_grep "ignoring ${SQ}refs/metas/blob${SQ}: it does not point to a commit" err &&
	test_grep ! blob actual &&
	test_grep "^metas/fake\$" actual &&
	git change update -c HEAD~2 -r HEAD~3 >actual 2>err &&
	test_grep "Updated change metas/b-c-d" actual
'

test_expect_success 'malformed metacommits are rejected' '
	for types in "c r" "x" "c x" "r" "c  " "c "
	do
		cat >malformed <<-EOF &&
		tree $EMPTY_TREE
		parent $(git rev-parse HEAD)
		author A U Thor <author@example.com> 1112354055 +0200
		committer C O Mitter <committer@example.com> 1112354055 +0200
		parent-type $types

		change update
		EOF
		bad=$(git hash-object --literally -t commit -w malformed) &&
		git update-ref refs/metas/malformed $bad &&
		git change list -v >actual 2>err &&
		test_grep "ignoring ${SQ}refs/metas/malformed${SQ}: metacommit $bad" err &&
		test_grep ! malformed actual &&
		# names alone come from the refs: it is listed, last
		git change list >actual 2>err &&
		test_grep "^metas/malformed\$" actual &&
		tail -n 1 actual >last &&
		echo metas/malformed >expect &&
		test_cmp expect last &&
		test_grep "ignoring ${SQ}refs/metas/malformed${SQ}: metacommit $bad" err &&
		test_must_fail git change update -c $bad 2>err &&
		test_grep "error: metacommit $bad has" err &&
		git fsck 2>err &&
		test_grep "warning in commit $bad: badMetacommit: metacommit:" err &&
		test_grep "warning: refs/metas/malformed: malformed metacommit $bad" err &&
		test_must_fail git -c fsck.badMetacommit=error fsck 2>err &&
		test_grep "error in commit $bad: badMetacommit" err || return 1
	done &&
	git update-ref -d refs/metas/malformed &&
	# they would make the next "fsck --strict" fail
	git prune --expire=now
'

test_expect_success 'fsck: the content of a metacommit is not a metacommit' '
	cat >meta <<-EOF &&
	tree $EMPTY_TREE
	parent $(git rev-parse HEAD)
	parent $(git rev-parse HEAD~1)
	author A U Thor <author@example.com> 1112354055 +0200
	committer C O Mitter <committer@example.com> 1112354055 +0200
	parent-type c r

	change update
	EOF
	meta=$(git hash-object -t commit -w meta) &&
	sed -e "/^parent /d" -e "s/^parent-type .*/parent-type c/" \
		-e "/^tree/a\\
parent $meta" meta >nested &&
	nested=$(git hash-object --literally -t commit -w nested) &&
	git update-ref refs/metas/nested $nested &&
	test_when_finished "git update-ref -d refs/metas/nested &&
		git prune --expire=now" &&
	git fsck 2>err &&
	test_grep "warning in commit $nested: badMetacommit: metacommit: its content $meta is a metacommit" err &&
	test_grep "refs/metas/nested: the content of metacommit $nested is a metacommit" err &&
	test_grep ! "warning in commit $meta" err
'

test_expect_success 'a commit with a tree is no metacommit, whatever its headers' '
	cat >crafted <<-EOF &&
	tree $(git rev-parse HEAD^{tree})
	parent $(git rev-parse HEAD~1)
	author A U Thor <author@example.com> 1112354055 +0200
	committer C O Mitter <committer@example.com> 1112354055 +0200
	parent-type c

	crafted
	EOF
	crafted=$(git hash-object --literally -t commit -w crafted) &&
	git update-ref refs/metas/crafted $crafted &&
	test_when_finished "git update-ref -d refs/metas/crafted &&
		git prune --expire=now" &&
	# every reader takes it for a plain commit that the change holds
	test_cmp_rev metas/crafted $crafted &&
	git log -1 --decorate-refs=refs/metas/crafted --format=%D \
		$crafted >actual &&
	echo metas/crafted >expect &&
	test_cmp expect actual &&
	git change list --porcelain >actual &&
	test_grep "^refs/metas/crafted $crafted $crafted " actual &&
	git fsck 2>err &&
	test_grep "warning in commit $crafted: badMetacommit: metacommit: its tree is not the empty tree" err
'

test_expect_success 'fsck finds nothing wrong with well-formed metacommits' '
	git init wellformed &&
	(
		cd wellformed &&
		test_commit one &&
		git change update &&
		git commit --amend -m "one again" &&
		git change update -c HEAD -r HEAD@{1} &&
		git cherry-pick --allow-empty-message --keep-redundant-commits HEAD &&
		git change update -o HEAD@{1} &&
		git fsck --strict 2>err &&
		test_grep ! badMetacommit err
	)
'

test_expect_success 'hostile subjects make valid names under refs/metas/' '
	git for-each-ref --format="%(refname) %(objectname)" >refs.before &&
	grep -v "^refs/metas/" refs.before >others.before &&
	long=$(printf "%01000d" 0) &&
	for subject in "../../heads/main" "refs/heads/evil" "HEAD" "x.lock" \
		"foo..bar" "@{upstream}" "a\\b" "$(printf "tab\there\001")" \
		"-rf /" ".hidden" "*?[" "~^:" "$long" "ünïcödé" "/" "." "@"
	do
		git commit -q --allow-empty -m "$subject" &&
		git change update >out 2>err &&
		test_grep "^Created change metas/" out &&
		name=$(sed -n "s/^Created change //p" out) &&
		git check-ref-format "refs/$name" &&
		test_cmp_rev "$name^{metacommit}" HEAD 2>/dev/null ||
		test_cmp_rev "refs/$name" HEAD || return 1
	done &&
	git for-each-ref --format="%(refname) %(objectname)" >refs.after &&
	grep -v "^refs/metas/" refs.after >others.after &&
	test_cmp others.before others.after
'

test_expect_success 'a hostile change-name hook cannot name a ref outside refs/metas/' '
	git for-each-ref --format="%(refname) %(objectname)" |
		grep -v "^refs/metas/" >others.before &&
	for script in "printf \"a\\nrefs/heads/evil\\n\"" \
		"printf \"../../HEAD\"" "printf \"/etc/passwd\"" \
		"printf \"a\\000b\"" "printf \"%05000d\" 0" \
		"printf \"\\n\\n\"" "dd if=/dev/zero bs=1000 count=100 2>/dev/null" \
		"printf \"refs/metas/../../heads/main\""
	do
		write_script .git/hooks/change-name <<-EOF &&
		$script
		EOF
		git commit -q --allow-empty -m "hooked" &&
		git change update >out 2>err &&
		name=$(sed -n "s/^Created change //p" out) &&
		test -n "$name" &&
		git check-ref-format "refs/$name" || return 1
	done &&
	rm .git/hooks/change-name &&
	git for-each-ref --format="%(refname) %(objectname)" |
		grep -v "^refs/metas/" >others.after &&
	test_cmp others.before others.after &&
	test_must_fail git rev-parse --verify -q refs/heads/evil
'

test_expect_success 'crafted metacommits fetched from a remote are skipped, not trusted' '
	git init crafted-server &&
	(
		cd crafted-server &&
		test_commit base &&
		test_commit second &&
		i=0 &&
		for types in "c r" "x" "r c" "c" "c  r"
		do
			i=$((i + 1)) &&
			cat >meta <<-EOF &&
			tree $EMPTY_TREE
			parent $(git rev-parse second)
			parent $(git rev-parse base)
			author A U Thor <author@example.com> 1112354055 +0200
			committer C O Mitter <committer@example.com> 1112354055 +0200
			parent-type $types

			crafted
			EOF
			oid=$(git hash-object --literally -t commit -w meta) &&
			git update-ref refs/metas/crafted-$i $oid ||
			return 1
		done &&
		printf "tree %s\nparent %s\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\nparent-type c\n\nnested\n" \
			$EMPTY_TREE $(git rev-parse "refs/metas/crafted-1^{metacommit}") >nested &&
		git update-ref refs/metas/nested \
			$(git hash-object --literally -t commit -w nested)
	) &&
	git init crafted-client &&
	(
		cd crafted-client &&
		git config fetch.fsckObjects true &&
		git fetch --no-tags ../crafted-server \
			"+refs/metas/*:refs/remotes/server/metas/*" 2>err &&
		test_grep "badMetacommit" err &&
		git for-each-ref --format="%(refname)" >refs &&
		test_grep ! -v "^refs/remotes/server/metas/" refs &&
		git change list -r >names &&
		test_line_count = 6 names &&
		git change list -r -v >out 2>err &&
		test_grep "ignoring .refs/remotes/server/metas/crafted-2." err &&
		test_grep "crafted-1" out &&
		git change list >local &&
		test_must_be_empty local &&
		git fsck 2>err &&
		test_grep "refs/remotes/server/metas/crafted-2: malformed metacommit" err &&
		test_grep "refs/remotes/server/metas/nested: the content of metacommit" err &&
		git evolve >out &&
		git log --all --oneline >log &&
		test_grep ! crafted log
	)
'

test_expect_success 'merge-base in a repository without changes' '
	git init no-changes &&
	(
		cd no-changes &&
		test_commit base &&
		test_commit left &&
		git checkout -q -b right base &&
		test_commit right &&
		git rev-parse base >expect &&
		git merge-base left right >actual &&
		test_cmp expect actual
	)
'

test_expect_success 'rename a change, keeping its reflog' '
	git init rename &&
	(
		cd rename &&
		git config core.logAllRefUpdates always &&
		test_commit one &&
		git change update >/dev/null &&
		test_commit two &&
		git change update -g second >/dev/null &&
		git commit --amend -m "two again" &&
		git change update -c HEAD -r HEAD@{1} -g second >/dev/null &&
		git reflog show --format=%H refs/metas/second >reflog.before &&
		git change rename second deuxieme >out &&
		echo "Renamed change metas/second to metas/deuxieme" >expect &&
		test_cmp expect out &&
		test_must_fail git rev-parse -q --verify refs/metas/second &&
		git reflog show --format="%H %gs" refs/metas/deuxieme >reflog.after &&
		head -n 1 reflog.after >renamed &&
		test_grep "change rename" renamed &&
		sed -e 1d -e "s/ .*//" reflog.after >reflog.kept &&
		test_cmp reflog.before reflog.kept &&
		git change rename dos >out &&
		echo "Renamed change metas/deuxieme to metas/dos" >expect &&
		test_cmp expect out &&
		test_must_fail git change rename metas/one dos 2>err &&
		test_grep "change .metas/dos. already exists" err &&
		test_must_fail git change rename no-such tres 2>err &&
		test_grep "change .no-such. not found" err &&
		test_must_fail git change rename one "bad..name" 2>err &&
		test_grep "not a valid change name" err &&
		test_commit three &&
		git change rename tres >out &&
		echo "Created change metas/tres" >expect &&
		test_cmp expect out &&
		test_cmp_rev metas/tres three &&
		git change update -g other >/dev/null &&
		test_must_fail git change rename cuatro 2>err &&
		test_grep "several changes hold HEAD" err &&
		test_grep "metas/other" err
	)
'

test_expect_success 'a renamed change without a reflog keeps its versions' '
	git init rename-versions &&
	(
		cd rename-versions &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit one &&
		git commit --amend -m "one again" &&
		test_must_fail git reflog exists refs/metas/one &&
		git change rename one uno >/dev/null &&
		test_must_fail git reflog exists refs/metas/uno &&
		test_cmp_rev metas/uno@{1} one &&
		test_cmp_rev metas/uno@{0} HEAD &&
		git change rename uno uno/dos >/dev/null &&
		test_cmp_rev metas/uno/dos HEAD &&
		git change rename uno/dos uno >/dev/null &&
		test_cmp_rev metas/uno@{1} one
	)
'

test_expect_success 'changes work with any ref backend' '
	git fsck --strict &&
	git for-each-ref refs/metas/ >refs &&
	git change list >actual &&
	test_line_count = $(wc -l <refs) actual
'

test_expect_success 'change names are words of the subject' '
	git commit --allow-empty -m "Teach the parser to skip comments" &&
	git change update >actual &&
	echo "Created change metas/teach-parser-skip" >expect &&
	test_cmp expect actual
'

test_expect_success 'the change-name hook names new changes' '
	test_hook change-name <<-\EOF &&
	echo "topic/$(git log -1 --format=%s "$1")"
	EOF
	git commit --allow-empty -m hooked &&
	git change update >actual &&
	echo "Created change metas/topic/hooked" >expect &&
	test_cmp expect actual &&
	git commit --allow-empty -m hooked &&
	git change update >actual &&
	echo "Created change metas/topic/hooked-2" >expect &&
	test_cmp expect actual
'

test_expect_success 'unusable names from the change-name hook are ignored' '
	for name in "../x" "metas/x" "refs/heads/x" "a b" "x.lock" "@{-1}"
	do
		test_hook --clobber change-name <<-EOF &&
		echo "$name"
		EOF
		git commit --allow-empty -m "fallback" &&
		git change update >actual 2>err &&
		test_grep "ignoring change name" err &&
		test_grep "^Created change metas/fallback" actual || return 1
	done &&
	test_grep ! "refs/heads/x" actual &&
	test_must_fail git rev-parse --verify -q refs/heads/x
'

test_expect_success 'a failing or silent change-name hook is not used' '
	test_hook --clobber change-name <<-\EOF &&
	echo ignored; exit 1
	EOF
	git commit --allow-empty -m "declined" &&
	git change update >actual 2>err &&
	echo "Created change metas/declined" >expect &&
	test_cmp expect actual &&
	test_hook --clobber change-name <<-\EOF &&
	true
	EOF
	git commit --allow-empty -m "silent" &&
	git change update >actual &&
	echo "Created change metas/silent" >expect &&
	test_cmp expect actual &&
	test_hook --remove change-name
'

test_expect_success 'log --obslog reports a cycle of versions instead of failing' '
	git init obslog-cycle &&
	(
		cd obslog-cycle &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit first &&
		test_tick &&
		git commit --amend -m second &&
		test_tick &&
		git commit --amend -m third &&
		# The first version now reads as the newest metacommit, which
		# replaces the second version, which replaces the first.
		git replace first "metas/first^{metacommit}" &&
		git log --obslog --oneline >out 2>err &&
		test_grep "replace each other in a cycle" err &&
		test_line_count = 3 out &&
		git log --obslog --graph >out 2>err &&
		test_grep "replace each other in a cycle" err &&
		test_grep "second" out
	)
'

test_expect_success 'rebase of many commits stores the empty tree of its metacommits' '
	git init -b main many-rewritten &&
	(
		cd many-rewritten &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit base &&
		git checkout -b topic &&
		test_commit_bulk 7 &&
		git checkout main &&
		test_commit other &&
		git checkout topic &&
		# the objects written are held and written as one pack
		git rebase main &&
		git fsck &&
		git replay --onto base main..topic >/dev/null &&
		git fsck
	)
'

test_expect_success 'a change-name hook name below an existing change falls back to the subject' '
	git init -b main hook-below &&
	(
		cd hook-below &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit base &&
		git update-ref refs/metas/a/b HEAD &&
		test_hook change-name <<-\EOF &&
		echo a/b/c
		EOF
		git commit --allow-empty -m "named by subject" 2>err &&
		test_grep "is below an existing change" err &&
		test_cmp_rev metas/named-subject HEAD &&
		test_must_fail git rev-parse --verify -q refs/metas/a/b/c
	)
'

test_expect_success 'refnames read back from state files must name changes' '
	git init -b main state-refnames &&
	(
		cd state-refnames &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit one &&
		test_commit two &&
		git branch keep &&
		keep=$(git rev-parse keep) &&

		# the content index: amending looks up the changes of HEAD
		head=$(git rev-parse HEAD) &&
		bucket=$(echo $head | cut -c1-2) &&
		echo "$head refs/heads/keep" >>.git/metas-index/$bucket &&
		git commit --amend --allow-empty -m amended 2>err &&
		test_grep "ignoring .refs/heads/keep.* not a change" err &&
		test_cmp_rev keep $keep &&

		# the changes saved for --abort
		test_must_fail git rebase -x false HEAD~1 &&
		echo "$(git rev-parse one) refs/heads/keep" \
			>>.git/rebase-merge/metas-before &&
		git rebase --abort 2>err &&
		test_grep "ignoring .refs/heads/keep.* not a change" err &&
		test_cmp_rev keep $keep
	)
'

test_expect_success 'a damaged state of a stopped evolve is an error, not a bug' '
	git init -b main damaged-evolve &&
	(
		cd damaged-evolve &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		echo 1 >f &&
		git add f &&
		git commit -m A &&
		echo 2 >f &&
		git commit -a -m B &&
		git checkout HEAD~1 &&
		echo 3 >f &&
		git commit -a --amend -m A2 &&
		git checkout main &&
		test_must_fail git evolve &&
		cp -R .git/evolve .git/evolve-saved &&

		echo HEAD >.git/evolve/head-name &&
		test_must_fail git evolve --abort 2>err &&
		test_grep "damaged (missing or invalid head-name)" err &&
		test_must_fail git evolve --continue 2>err &&
		test_grep "damaged (missing or invalid head-name)" err &&
		cp .git/evolve-saved/head-name .git/evolve/ &&

		echo $ZERO_OID >.git/evolve/orig-head &&
		test_must_fail git evolve --abort 2>err &&
		test_grep "damaged (missing or invalid orig-head)" err &&
		rm .git/evolve/orig-head &&
		test_must_fail git evolve --abort 2>err &&
		test_grep "damaged (missing or invalid orig-head)" err &&
		test_must_fail git evolve --continue 2>err &&
		test_grep "damaged (missing or invalid orig-head)" err &&

		cp .git/evolve-saved/orig-head .git/evolve/ &&
		git evolve --abort &&
		test_cmp_rev HEAD $(cat .git/evolve-saved/orig-head) &&
		git symbolic-ref HEAD
	)
'

test_expect_success 'change purge erases a secret from the history of changes' '
	git init purge &&
	(
		cd purge &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit base &&
		commit_secret_and_amend_it_out &&
		middle=$(git rev-parse HEAD) &&
		echo more >>parser.c &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		head=$(git rev-parse HEAD) &&
		test_commit --no-tag above &&
		meta=$(git for-each-ref --format="%(objectname)" refs/metas/add-parser) &&
		git update-ref refs/hiddenmetas/old-parser $meta &&
		git update-ref refs/remotes/origin/metas/add-parser $meta &&

		test_must_fail git change purge HEAD 2>err &&
		test_grep "use --force" err &&
		test_grep "^  metas/above $(git rev-parse HEAD)\$" err &&
		test_must_fail git change purge refs/metas/add-parser^{metacommit} 2>err &&
		test_grep "cannot purge ${SQ}refs/metas/add-parser^{metacommit}${SQ}: it is a metacommit" err &&

		git change purge $secret >out 2>err &&
		cat >expect <<-\EOF &&
		Rewrote change hiddenmetas/old-parser
		Rewrote change metas/add-parser
		EOF
		test_cmp expect out &&
		test_grep "remote-tracking change ${SQ}origin/metas/add-parser${SQ} still has a purged version" err &&
		test_cmp_rev hiddenmetas/old-parser metas/add-parser &&

		# The other versions stay: the head replaces the middle one,
		# which replaces nothing any more.
		meta=$(git for-each-ref --format="%(objectname)" refs/metas/add-parser) &&
		test_cmp_rev $meta^1 $head &&
		test_cmp_rev $meta^2 $middle &&
		test_must_fail git rev-parse -q --verify $meta^3 &&

		git update-ref -d refs/remotes/origin/metas/add-parser &&
		git change purge $secret >out 2>err &&
		test_must_be_empty out &&
		test_grep "is not a version of any change" err &&

		git reflog expire --expire=now --all &&
		git -c gc.hiddenChangesExpire=never gc -q --prune=now &&
		test_must_fail git cat-file -e $blob &&
		git cat-file -e $middle
	)
'

test_expect_success 'change purge --force erases the content of a change' '
	(
		cd purge &&
		git change purge --force HEAD >out &&
		echo "Deleted change metas/above: its content was purged" >expect &&
		test_cmp expect out &&
		test_must_fail git rev-parse -q --verify refs/metas/above &&
		git change purge --force metas/add-parser >out &&
		cat >expect <<-\EOF &&
		Rewrote change hiddenmetas/old-parser
		Rewrote change metas/add-parser
		EOF
		test_cmp expect out &&
		# Back to the middle version, a plain commit again.
		echo parse >expect &&
		git show metas/add-parser:parser.c >actual &&
		test_cmp expect actual &&
		git for-each-ref --format="%(objectname)" refs/metas/add-parser >actual &&
		git rev-parse metas/add-parser >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'change purge of several versions at once; not during a rebase' '
	git init purge-many &&
	(
		cd purge-many &&
		GIT_TEST_ENABLE_CHANGES=true &&
		export GIT_TEST_ENABLE_CHANGES &&
		test_commit base &&
		test_commit --no-tag v1 &&
		v1=$(git rev-parse HEAD) &&
		test_tick &&
		git commit -q --amend -m v2 &&
		v2=$(git rev-parse HEAD) &&
		test_tick &&
		git commit -q --amend -m v3 &&
		mkdir .git/rebase-merge &&
		test_must_fail git change purge $v1 2>err &&
		test_grep "finish or abort it before purging" err &&
		rmdir .git/rebase-merge &&
		git change purge $v1 $v2 >out 2>err &&
		echo "Rewrote change metas/v1" >expect &&
		test_cmp expect out &&
		test_must_be_empty err &&
		test_cmp_rev metas/v1 HEAD &&
		git for-each-ref --format="%(objectname)" refs/metas/v1 >actual &&
		git rev-parse HEAD >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'change purge: usage and bad input' '
	test_expect_code 129 git -C purge change purge 2>err &&
	test_grep "usage: git change purge" err &&
	test_must_fail git -C purge change purge no-such-commit 2>err &&
	test_grep "is not a valid commit" err
'

test_done

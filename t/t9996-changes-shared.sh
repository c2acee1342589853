#!/bin/sh

test_description='working together on changes shared through a server

Alice and Bob exchange versions of changes through a bare repository that
an unpatched git serves: what one amends, the other builds on, continues
and merges, and pushing never needs --force.'

. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-changes.sh

GIT_TEST_ENABLE_CHANGES=true
export GIT_TEST_ENABLE_CHANGES

# The server runs an unpatched git.
find_server_git

# Clone the server into "$1", fetching its changes next to its branches,
# and talking to the server through the unpatched git.
clone_as () {
	git clone -q -c remote.origin.uploadpack="\"$SERVER_GIT\" upload-pack" \
		-c remote.origin.receivepack="\"$SERVER_GIT\" receive-pack" \
		server.git "$1" &&
	git -C "$1" change share >/dev/null &&
	git -C "$1" config push.default nothing &&
	git -C "$1" fetch -q
}

# Replace the content of parser.c and amend HEAD with it.
amend_parser () {
	echo "$1" >parser.c &&
	test_tick &&
	git commit -q -a --amend --no-edit
}

test_expect_success 'change share fetches the changes of a remote' '
	git init share &&
	(
		cd share &&
		git remote add origin ../server.git &&
		git remote add other ../other.git &&
		git change share >actual &&
		cat >expect <<-EOF &&
		${SQ}origin${SQ} now fetches its changes into refs/remotes/origin/metas/.
		Push a change with "git push origin metas/<name>".
		EOF
		test_cmp expect actual &&
		git change share origin >actual &&
		test_grep "${SQ}origin${SQ} already fetches its changes" actual &&
		git change share other >/dev/null &&
		git config get --all remote.origin.fetch >actual &&
		cat >expect <<-\EOF &&
		+refs/heads/*:refs/remotes/origin/*
		+refs/metas/*:refs/remotes/origin/metas/*
		EOF
		test_cmp expect actual &&
		git config get --all remote.other.fetch >actual &&
		test_grep "^+refs/metas/\*:refs/remotes/other/metas/\*$" actual &&
		test_must_fail git change share nowhere 2>err &&
		test_grep "${SQ}nowhere${SQ} is not a remote" err &&
		test_expect_code 129 git change share origin other
	)
'

test_expect_success 'setup: Alice shares a change, Bob builds on it' '
	"$SERVER_GIT" init -q --bare -b main server.git &&
	"$SERVER_GIT" -C server.git config receive.fsckObjects true &&
	"$SERVER_GIT" -C server.git config receive.denyNonFastForwards true &&
	"$SERVER_GIT" init -q -b main seed &&
	test_commit -C seed base &&
	"$SERVER_GIT" -C seed push -q ../server.git main &&
	clone_as alice &&
	(
		cd alice &&
		git checkout -q -b parser &&
		echo "parse v1" >parser.c &&
		git add parser.c &&
		test_tick &&
		git commit -q -m "Add the parser" &&
		git push -q origin "refs/metas/*:refs/metas/*"
	) &&
	clone_as bob &&
	(
		cd bob &&
		git checkout -q --no-track -b topic origin/metas/add-parser &&
		test_commit --no-tag "Use the parser" use.c &&
		git change list -v >actual &&
		test_write_lines "* metas/use-parser $(git rev-parse --short HEAD) Use the parser" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'what is built on a version a collaborator amended restacks onto the new one' '
	(
		cd alice &&
		amend_parser "parse v2" &&
		git push -q origin "refs/metas/*:refs/metas/*"
	) &&
	(
		cd bob &&
		git fetch 2>err &&
		test_grep "hint: 1 change is built on a version that was amended since; run \"git evolve\" to rebase it." err &&
		git status >actual &&
		test_grep "1 change is built on a commit that was rewritten" actual &&
		git change list -v >actual &&
		test_grep "metas/use-parser .* (orphan) Use the parser" actual &&
		remote_before=$(git rev-parse "origin/metas/add-parser^{metacommit}") &&
		git evolve >actual &&
		cat >expect <<-\EOF &&
		rebasing metas/use-parser onto origin/metas/add-parser
		moving branch topic to metas/use-parser
		EOF
		test_cmp expect actual &&
		test_cmp_rev topic^ origin/metas/add-parser &&
		test_cmp_rev metas/use-parser topic &&
		# remote-tracking refs are never moved
		test_cmp_rev "origin/metas/add-parser^{metacommit}" $remote_before &&
		test_must_fail git show-ref --verify -q refs/metas/add-parser &&
		git evolve >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'amending the change of a collaborator continues it: the push fast-forwards' '
	(
		cd bob &&
		remote_head=$(git rev-parse "origin/metas/add-parser^{metacommit}") &&
		git checkout -q --detach origin/metas/add-parser &&
		amend_parser "parse v3" 2>err &&
		test_grep "1 change is built on" err &&
		check_meta_commit metas/add-parser "commit (amend): Add the parser" \
			c HEAD r $remote_head &&
		git push origin metas/add-parser 2>err &&
		test_grep "$(git rev-parse --short $remote_head)\.\." err &&
		git evolve >actual &&
		test_grep "rebasing metas/use-parser onto metas/add-parser" actual
	)
'

test_expect_success 'the author fast-forwards her change to the version she fetched' '
	(
		cd alice &&
		git fetch 2>err &&
		test_grep "hint: metas/add-parser is behind origin/metas/add-parser, which amends it" err &&
		echo lex >lexer.c &&
		git add lexer.c &&
		test_tick &&
		git commit -q -m "Add the lexer" &&
		before=$(git rev-parse "metas/add-parser^{metacommit}") &&
		git evolve -n >expect.dry &&
		test_cmp_rev "metas/add-parser^{metacommit}" $before &&
		git evolve >actual &&
		test_cmp expect.dry actual &&
		cat >expect <<-\EOF &&
		fast-forwarding metas/add-parser to origin/metas/add-parser
		rebasing metas/add-lexer onto metas/add-parser
		moving branch parser to metas/add-lexer
		EOF
		test_cmp expect actual &&
		test_cmp_rev "metas/add-parser^{metacommit}" \
			"origin/metas/add-parser^{metacommit}" &&
		test_cmp_rev parser^ origin/metas/add-parser &&
		git change list -v >actual &&
		test_grep ! "orphan\|obsolete\|divergent" actual &&
		git push origin "refs/metas/*:refs/metas/*"
	)
'

test_expect_success 'evolve --abort puts back a change that caught up and stopped' '
	(
		cd bob &&
		git fetch -q &&
		git checkout -q topic &&
		git evolve &&
		git checkout -q --detach metas/add-parser &&
		echo "conflicting lexer" >lexer.c &&
		git add lexer.c &&
		test_tick &&
		git commit -q --amend --no-edit 2>/dev/null &&
		git push -q origin metas/add-parser
	) &&
	(
		cd alice &&
		git fetch -q &&
		git change list >before &&
		git for-each-ref refs/metas refs/heads >refs.before &&
		test_must_fail git evolve >out 2>err &&
		test_grep "fast-forwarding metas/add-parser to origin/metas/add-parser" out &&
		test_grep "could not rebase .metas/add-lexer." err &&
		git evolve --abort &&
		git for-each-ref refs/metas refs/heads >refs.after &&
		test_cmp refs.before refs.after &&
		git change list >after &&
		test_cmp before after
	)
'

test_expect_success 'pull --evolve takes the version of a collaborator and restacks' '
	test_when_finished "rm -rf kim leo" &&
	clone_as kim &&
	(
		cd kim &&
		git checkout -q -b printer origin/main &&
		# a change of its own for the commit that is upstream
		git change update -c HEAD >/dev/null &&
		echo print >printer.c &&
		git add printer.c &&
		test_tick &&
		git commit -q -m "Add the printer" &&
		echo tree >tree.c &&
		git add tree.c &&
		test_tick &&
		git commit -q -m "Print the tree" &&
		git push -q origin metas/add-printer metas/print-tree
	) &&
	clone_as leo &&
	(
		cd leo &&
		git checkout -q --detach origin/metas/add-printer &&
		echo "print better" >printer.c &&
		test_tick &&
		git commit -q -a --amend --no-edit 2>/dev/null &&
		git push -q origin metas/add-printer
	) &&
	(
		cd kim &&
		git pull --evolve >out 2>err &&
		test_grep "^fast-forwarding metas/add-printer to origin/metas/add-printer$" out &&
		test_grep "^rebasing metas/print-tree onto metas/add-printer$" out &&
		test_grep ! "rebasing metas/add-printer" out &&
		test_cmp_rev "metas/add-printer^{metacommit}" \
			"origin/metas/add-printer^{metacommit}" &&
		test_cmp_rev printer^ origin/metas/add-printer &&
		echo "print better" >expect &&
		test_cmp expect printer.c
	)
'

test_expect_success 'pull --evolve drops the changes applied upstream as new commits' '
	test_when_finished "rm -rf mia ned patches" &&
	clone_as mia &&
	(
		cd mia &&
		git checkout -q -b stack origin/main &&
		for f in one two three four
		do
			echo $f >$f.c &&
			git add $f.c &&
			test_tick &&
			git commit -q -m "Add $f" || return 1
		done &&
		git format-patch -q -o ../patches -1 HEAD~3
	) &&
	clone_as ned &&
	(
		# the maintainer applies "one" with am, squashes "two"
		# and "three" into one commit, and adds work of his own
		cd ned &&
		test_commit --no-tag "maintainer work" work.c &&
		git am -q ../patches/*.patch &&
		git -C ../mia diff HEAD~3 HEAD~1 >squash.patch &&
		git apply --index squash.patch &&
		rm squash.patch &&
		test_tick &&
		git commit -q -m "Add two and three" &&
		git push -q origin HEAD:main
	) &&
	(
		cd mia &&
		git pull --evolve >out 2>err &&
		test_grep "^deleting metas/add-one: it became empty on FETCH_HEAD$" out &&
		test_grep "^deleting metas/add-two: it became empty on FETCH_HEAD$" out &&
		test_grep "^deleting metas/add-three: it became empty on FETCH_HEAD$" out &&
		test_grep "^rebasing metas/add-four onto FETCH_HEAD$" out &&
		test_cmp_rev stack^ origin/main &&
		git change list >actual &&
		test_grep ! "add-one\|add-two\|add-three" actual &&
		git change list --hidden "hiddenmetas/add-*" >actual &&
		test_line_count = 3 actual
	)
'

# In "$1", amend the version of add-parser fetched last, adding the
# file "$1.c" (and any further files named), detached.
amend_fetched_parser () {
	clone=$1 &&
	shift &&
	git -C $clone checkout -q --detach origin/metas/add-parser &&
	for f in $clone "$@"
	do
		echo $f >$clone/$f.c &&
		git -C $clone add $f.c || return 1
	done &&
	test_tick &&
	git -C $clone commit -q --amend --no-edit 2>/dev/null
}

# Whether the head of the change add-parser in "$1" replaces the version
# fetched last (pushing it is then a fast-forward).
continues_fetched_parser () {
	git -C $1 cat-file commit "metas/add-parser^{metacommit}" >meta &&
	test_grep "^parent $(git -C $1 rev-parse "origin/metas/add-parser^{metacommit}")" meta
}

test_expect_success 'versions amended on both sides are divergent; merge --amend joins them' '
	test_when_finished "rm -rf carol dave" &&
	clone_as carol &&
	clone_as dave &&
	amend_fetched_parser carol &&
	git -C carol push -q origin metas/add-parser &&
	amend_fetched_parser dave &&
	(
		cd dave &&
		git fetch 2>err &&
		test_grep "hint: metas/add-parser and origin/metas/add-parser were both amended from one version (divergence)" err &&
		test_grep "hint:   git checkout metas/add-parser && git merge --amend origin/metas/add-parser" err &&
		git fetch 2>err &&
		test_must_be_empty err &&
		git change list -v >actual &&
		test_grep "metas/add-parser .* (divergent) Add the parser" actual &&
		git status >actual &&
		test_grep "^1 change is divergent" actual &&
		test_grep "to see it and \"git evolve\" for how to join its versions)" actual &&
		test_must_fail git evolve 2>err &&
		test_grep "replaced by both .metas/add-parser. and .origin/metas/add-parser." err &&
		test_grep "git checkout metas/add-parser && git merge --amend origin/metas/add-parser" err &&
		test_must_fail git push -q origin metas/add-parser 2>/dev/null &&
		git merge --amend origin/metas/add-parser &&
		test_path_is_file carol.c &&
		test_path_is_file dave.c &&
		git status >actual &&
		test_grep ! "divergent" actual
	) &&
	continues_fetched_parser dave &&
	git -C dave push -q origin metas/add-parser &&
	(
		cd carol &&
		git fetch -q &&
		git evolve >actual &&
		test_grep "fast-forwarding metas/add-parser to origin/metas/add-parser" actual &&
		test_path_is_file dave.c &&
		git change list -v >actual &&
		test_grep ! "orphan\|obsolete\|divergent\|behind" actual
	)
'

test_expect_success 'evolve --auto-merge merges the version of a remote into ours' '
	test_when_finished "rm -rf erin frank" &&
	clone_as erin &&
	clone_as frank &&
	amend_fetched_parser erin &&
	git -C erin push -q origin metas/add-parser &&
	amend_fetched_parser frank &&
	(
		cd frank &&
		git fetch -q &&
		git evolve --auto-merge >actual &&
		test_grep "merging the divergent versions of metas/add-parser and origin/metas/add-parser" actual &&
		test_path_is_file erin.c &&
		test_path_is_file frank.c
	) &&
	continues_fetched_parser frank &&
	git -C frank push -q origin metas/add-parser
'

test_expect_success 'a local change behind its remote version is marked so' '
	test_when_finished "rm -rf gina hank" &&
	clone_as gina &&
	clone_as hank &&
	amend_fetched_parser hank &&
	git -C hank push -q origin metas/add-parser &&
	(
		cd gina &&
		git checkout -q --detach origin/metas/add-parser &&
		git change update -c HEAD &&
		git fetch -q &&
		git change list -v >actual &&
		test_grep "^\* metas/add-parser .* (behind) Add the parser" actual &&
		git change list --porcelain >actual &&
		test_grep "^refs/metas/add-parser .* current,behind -$" actual &&
		GIT_TRACE2_EVENT="$(pwd)/behind.event" \
			git log -1 --decorate=short --format=%d HEAD >actual &&
		test_grep "(obsolete, 1 commit behind origin/metas/add-parser, " actual &&
		test_region evolve load_some_changes behind.event &&
		test_region ! evolve load_changes behind.event &&
		git log -1 --decorate=full --format=%d HEAD >actual &&
		test_grep "(obsolete, 1 commit behind refs/remotes/origin/metas/add-parser, " actual &&
		git evolve >/dev/null &&
		git log -1 --decorate --format=%d HEAD >actual &&
		test_grep ! "obsolete" actual &&

		# Ahead of the remote, as after every amend not pushed yet:
		# nothing to say, and no reason to read every change.
		git commit -q --amend -m "Add the parser, ahead" &&
		GIT_TRACE2_EVENT="$(pwd)/ahead.event" \
			git log -1 --decorate --format=%d HEAD >actual &&
		test_grep ! "obsolete" actual &&
		test_region ! evolve load_changes ahead.event
	)
'

test_expect_success 'a version only fetched is decorated obsolete once it is replaced' '
	test_when_finished "rm -rf ivy jack" &&
	clone_as ivy &&
	clone_as jack &&
	(
		cd jack &&
		git checkout -q --detach origin/metas/add-parser &&
		test_commit --no-tag "Use the fetched parser" fetched.c &&
		git log -1 --decorate --format=%d HEAD^ >actual &&
		test_grep ! "obsolete" actual
	) &&
	amend_fetched_parser ivy &&
	git -C ivy push -q origin metas/add-parser &&
	(
		cd jack &&
		# Only the history fetched says that HEAD^ was replaced.
		git fetch -q &&
		test_must_fail git show-ref --verify -q refs/metas/add-parser &&
		GIT_TRACE2_EVENT="$(pwd)/fetched.event" \
			git log -1 --decorate --format=%d HEAD^ >actual &&
		test_grep "(obsolete, 1 commit behind origin/metas/add-parser)" actual &&
		test_region evolve load_some_changes fetched.event &&
		test_region ! evolve load_changes fetched.event &&
		git log -1 --decorate=full --format=%d HEAD^ >actual &&
		test_grep "(obsolete, 1 commit behind refs/remotes/origin/metas/add-parser)" actual &&

		# Replaced here, before anything is pushed: the local change
		# of the name continues the version fetched.
		git checkout -q --detach origin/metas/add-parser &&
		fetched=$(git rev-parse HEAD) &&
		test_tick &&
		git commit -q --amend -m "Add the parser, again" &&
		git log -1 --decorate --format=%d $fetched >actual &&
		test_grep "(obsolete, 1 commit behind metas/add-parser, origin/metas/add-parser)" actual
	)
'

test_expect_success 'merge --amend of a version that its HEAD already contains records it' '
	test_when_finished "rm -rf ivan judy" &&
	clone_as ivan &&
	clone_as judy &&
	amend_fetched_parser ivan &&
	git -C ivan push -q origin metas/add-parser &&
	amend_fetched_parser judy ivan &&
	(
		cd judy &&
		git fetch -q &&
		git merge --amend origin/metas/add-parser
	) &&
	continues_fetched_parser judy &&
	(
		cd judy &&
		git evolve >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual &&
		git push -q origin metas/add-parser
	)
'

# In "$1", amend the version of add-parser fetched last so that parser.c
# says "$2", detached.
rewrite_fetched_parser () {
	git -C $1 checkout -q --detach origin/metas/add-parser &&
	echo "$2" >$1/parser.c &&
	test_tick &&
	git -C $1 commit -q -a --amend --no-edit
}

test_expect_success 'conflicting versions: merge --amend stops, --abort, --continue, push' '
	test_when_finished "rm -rf kim leo" &&
	clone_as kim &&
	clone_as leo &&
	rewrite_fetched_parser kim "parse as kim does" &&
	git -C kim push -q origin metas/add-parser &&
	rewrite_fetched_parser leo "parse as leo does" &&
	(
		cd leo &&
		git fetch -q &&
		git checkout -q metas/add-parser &&
		git for-each-ref >refs.before &&
		git rev-parse HEAD >head.before &&
		cp parser.c parser.before &&
		test_expect_code 1 git merge --amend origin/metas/add-parser >out &&
		test_grep "CONFLICT (content): Merge conflict in parser.c" out &&
		test_grep "^>>>>>>> origin/metas/add-parser\$" parser.c &&
		git merge --abort &&
		test_cmp parser.before parser.c &&
		git rev-parse HEAD >head.after &&
		test_cmp head.before head.after &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after &&

		test_expect_code 1 git merge --amend origin/metas/add-parser >out &&
		echo "parse as kim and leo do" >parser.c &&
		git add parser.c &&
		git merge --continue &&
		git log -1 --format=%s >actual &&
		echo "Add the parser" >expect &&
		test_cmp expect actual &&
		git change list -v >actual &&
		test_grep ! "divergent" actual
	) &&
	continues_fetched_parser leo &&
	git -C leo push -q origin metas/add-parser &&
	(
		cd kim &&
		git fetch -q &&
		git evolve >actual &&
		test_grep "fast-forwarding metas/add-parser to origin/metas/add-parser" actual &&
		echo "parse as kim and leo do" >expect &&
		git show metas/add-parser:parser.c >actual &&
		test_cmp expect actual &&
		git change list -v >actual &&
		test_grep ! "orphan\|obsolete\|divergent\|behind" actual &&
		git evolve >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual
	)
'

# Two new clones: "$1" commits "$3" on add-parser (writing "$4" to the
# file "$5", parser.c included) and pushes its change; "$2" fetches it,
# commits "$6" on it, then amends add-parser below both. The change of
# "$1" is then an orphan that only "$2"'s evolve can restack.
build_on_collaborator () {
	clone_as $1 &&
	clone_as $2 &&
	git -C $1 checkout -q --detach origin/metas/add-parser &&
	test_commit -C $1 --no-tag "$3" "$5" "$4" &&
	git -C $1 push -q origin "refs/metas/*:refs/metas/*" &&
	(
		cd $2 &&
		git fetch -q &&
		git checkout -q --detach "$(git -C ../$1 rev-parse HEAD)" &&
		test_commit --no-tag "$6" "$2.c" &&
		git checkout -q --detach origin/metas/add-parser &&
		amend_parser "parse as $2 does"
	)
}

test_expect_success 'work on a collaborator'"'"'s change restacks with it when its base is amended here' '
	test_when_finished "rm -rf mia ned yan" &&
	build_on_collaborator mia ned "Test the parser" test test.c \
		"Document the parser" &&
	(
		cd ned &&
		remote_before=$(git rev-parse origin/metas/test-parser) &&
		git evolve --dry-run >dry-run &&
		git evolve >actual &&
		cat >expect <<-\EOF &&
		rebasing origin/metas/test-parser onto metas/add-parser
		rebasing metas/document-parser onto metas/test-parser
		EOF
		test_cmp expect actual &&
		test_cmp expect dry-run &&
		test_cmp_rev metas/test-parser^ metas/add-parser &&
		test_cmp_rev metas/document-parser^ metas/test-parser &&
		test_cmp_rev origin/metas/test-parser $remote_before &&
		git change list -v >actual &&
		test_grep ! "orphan" actual &&
		git evolve >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual &&
		# It continues the version fetched: the push fast-forwards.
		git push -q origin metas/add-parser metas/test-parser
	) &&

	# Only what local work needs: HEAD on a remote version is no reason.
	clone_as yan &&
	git -C yan checkout -q --detach origin/metas/test-parser &&
	(
		cd ned &&
		git checkout -q --detach metas/add-parser &&
		amend_parser "parse as ned does, again" &&
		git push -q origin metas/add-parser
	) &&
	(
		cd yan &&
		git fetch -q &&
		git rev-parse HEAD >head.before &&
		git evolve >actual &&
		echo "Nothing to evolve" >expect &&
		test_cmp expect actual &&
		git rev-parse HEAD >head.after &&
		test_cmp head.before head.after &&
		test_must_fail git show-ref --verify -q refs/metas/test-parser
	)
'

test_expect_success 'a conflict in a collaborator'"'"'s change stops evolve; --abort puts everything back' '
	test_when_finished "rm -rf oli pia" &&
	build_on_collaborator oli pia "Tune the parser" "parse faster" parser.c \
		"Time the parser" &&
	(
		cd pia &&
		git for-each-ref >refs.before &&
		git rev-parse HEAD >head.before &&
		test_expect_code 1 git evolve >out 2>err &&
		test_grep "could not rebase ${SQ}origin/metas/tune-parser${SQ} onto ${SQ}metas/add-parser${SQ}: conflict" err &&
		git evolve --abort &&
		git for-each-ref >refs.after &&
		test_cmp refs.before refs.after &&
		git rev-parse HEAD >head.after &&
		test_cmp head.before head.after &&

		test_expect_code 1 git evolve >out 2>err &&
		echo "parse faster, as pia does" >parser.c &&
		git add parser.c &&
		git evolve --continue >out &&
		test_grep "rebasing metas/time-parser onto metas/tune-parser" out &&
		test_cmp_rev metas/tune-parser^ metas/add-parser &&
		test_cmp_rev metas/time-parser^ metas/tune-parser &&
		git show metas/tune-parser:parser.c >actual &&
		echo "parse faster, as pia does" >expect &&
		test_cmp expect actual &&
		git push -q origin metas/add-parser metas/tune-parser
	)
'

# In "$1", fetch a version of the change "$2" that "$1"'s adds nothing
# to: the fetch says so, and evolve joins it and restacks "$3" on it,
# as a dry run says first without moving anything.
fetch_and_join () {
	git -C $1 fetch 2>err &&
	test_grep "hint: metas/$2 adds nothing to origin/metas/$2; run \"git evolve\" to take that version." err &&
	test_grep ! "divergence" err &&
	git -C $1 change list -v >list &&
	test_grep "^  metas/$2 .* (\(obsolete, \)\{0,1\}behind) " list &&
	test_grep ! "divergent" list &&
	cat >expect <<-EOF &&
	joining metas/$2 to origin/metas/$2, which has all of it
	rebasing metas/$3 onto metas/$2
	EOF
	git -C $1 for-each-ref >refs.before &&
	cp $1/.git/metas-peeled peeled.before &&
	git -C $1 evolve --dry-run >actual &&
	test_cmp expect actual &&
	git -C $1 for-each-ref >refs.after &&
	test_cmp refs.before refs.after &&
	# nor is what it learned of the versions it made up kept
	test_cmp_bin peeled.before $1/.git/metas-peeled &&
	git -C $1 evolve >actual &&
	test_cmp expect actual
}

test_expect_success 'the same version made on both sides is joined, not merged' '
	test_when_finished "rm -rf rio sam" &&
	build_on_collaborator rio sam "Check the parser" check check.c \
		"Show the parser" &&
	(
		cd sam &&
		git push -q origin metas/add-parser &&
		git evolve >actual &&
		test_grep "^rebasing origin/metas/check-parser onto metas/add-parser\$" actual
	) &&
	(
		# Rio rebases her change as Sam did, later, and shares it.
		cd rio &&
		git fetch -q &&
		test_tick &&
		git evolve >actual &&
		test_grep "^rebasing metas/check-parser onto origin/metas/add-parser\$" actual &&
		git push -q origin metas/check-parser
	) &&
	fetch_and_join sam check-parser show-parser &&
	(
		cd sam &&
		test_cmp_rev metas/check-parser origin/metas/check-parser &&
		test_cmp_rev metas/show-parser^ origin/metas/check-parser &&
		git change list -v >actual &&
		test_grep ! "divergent\|orphan" actual &&
		git push -q origin metas/show-parser
	) &&
	(
		# Rio amends it again before Sam shares the join: what Sam
		# joined is an earlier version of hers.
		cd rio &&
		git checkout -q --detach metas/check-parser &&
		echo "check more" >check.c &&
		test_tick &&
		git commit -q -a --amend --no-edit &&
		git push -q origin metas/check-parser
	) &&
	fetch_and_join sam check-parser show-parser &&
	(
		cd sam &&
		git show metas/show-parser^:check.c >actual &&
		echo "check more" >expect &&
		test_cmp expect actual &&
		git push -q origin metas/check-parser metas/show-parser
	)
'

test_lazy_prereq INSTALLED_GIT '
	test -x /usr/bin/git
'

# An older installed git may not read reftable or SHA-256 repositories.
test_expect_success INSTALLED_GIT,SHA1,REFFILES 'changes are shared through a server that the installed git serves' '
	test_when_finished "rm -rf installed.git tea uma" &&
	write_script installed-git <<-\EOF &&
	unset GIT_EXEC_PATH
	exec /usr/bin/git "$@"
	EOF
	./installed-git clone -q --mirror server.git installed.git &&
	for who in tea uma
	do
		git clone -q \
			-c remote.origin.uploadpack="\"$PWD/installed-git\" upload-pack" \
			-c remote.origin.receivepack="\"$PWD/installed-git\" receive-pack" \
			installed.git $who &&
		git -C $who change share >/dev/null &&
		git -C $who fetch -q || return 1
	done &&
	(
		cd uma &&
		git checkout -q --detach origin/metas/add-parser &&
		test_commit --no-tag "Print the parser" print.c
	) &&
	(
		cd tea &&
		git checkout -q --detach origin/metas/add-parser &&
		amend_parser "parse as tea does" &&
		git push -q origin metas/add-parser
	) &&
	(
		cd uma &&
		git fetch -q &&
		git evolve >actual &&
		test_grep "^rebasing metas/print-parser onto origin/metas/add-parser\$" actual &&
		git checkout -q --detach origin/metas/add-parser &&
		amend_parser "parse as uma does" &&
		git evolve >actual &&
		test_grep "^rebasing metas/print-parser onto metas/add-parser\$" actual &&
		git push -q origin metas/add-parser metas/print-parser
	) &&
	(
		cd tea &&
		git fetch -q &&
		git evolve >actual &&
		test_grep "^fast-forwarding metas/add-parser to origin/metas/add-parser\$" actual &&
		echo "parse as uma does" >expect &&
		git show metas/add-parser:parser.c >actual &&
		test_cmp expect actual
	)
'

test_expect_success 'a push of a change that the server has in another version says to evolve' '
	test_when_finished "rm -rf vic wes" &&
	clone_as vic &&
	clone_as wes &&
	amend_fetched_parser vic &&
	git -C vic push -q origin metas/add-parser &&
	amend_fetched_parser wes &&
	test_must_fail git -C wes push origin metas/add-parser 2>err &&
	test_grep "hint: Updates were rejected because the remote has a version of a change" err &&
	test_grep ! "git pull" err &&
	git -C wes fetch -q &&
	test_must_fail git -C wes push origin metas/add-parser 2>err &&
	test_grep "hint: \"git evolve\", which takes it or says how to merge it with yours," err &&
	test_must_fail git -C wes -c advice.pushUpdateRejected=false \
		push origin metas/add-parser 2>err &&
	test_grep ! "hint:" err
'

test_expect_success 'pull --evolve: a commit with the change id, made by another tool, lands it' '
	test_when_finished "rm -rf jo jj fix.id" &&
	clone_as jo &&
	(
		cd jo &&
		GIT_TEST_CHANGE_ID_HEADER=true &&
		export GIT_TEST_CHANGE_ID_HEADER &&
		git checkout -q -b stack origin/main &&
		echo fix >fix.c &&
		git add fix.c &&
		test_tick &&
		git commit -q -m "Fix the thing" &&
		test_commit --no-tag "Build on the fix" more.c &&
		git cat-file commit HEAD~ >commit &&
		sed -n "s/^change-id //p" commit >../fix.id &&
		test_line_count = 1 ../fix.id
	) &&
	# Jujutsu, say, lands the fix edited: the same change id, no metacommit
	"$SERVER_GIT" clone -q server.git jj &&
	(
		cd jj &&
		echo "fix, edited" >fix.c &&
		"$SERVER_GIT" add fix.c &&
		test_tick &&
		"$SERVER_GIT" commit -q -m "Fix the thing (edited)" &&
		"$SERVER_GIT" cat-file commit HEAD >commit &&
		sed "/^committer /a\\
change-id $(cat ../fix.id)" commit >with-id &&
		landed=$("$SERVER_GIT" hash-object -t commit -w with-id) &&
		"$SERVER_GIT" push -q origin $landed:refs/heads/main
	) &&
	(
		cd jo &&
		git pull --evolve >out 2>err &&
		test_grep "^deleting metas/fix-thing: it is in FETCH_HEAD as [0-9a-f]*, which has its change id\$" out &&
		test_grep "^rebasing metas/build-fix onto FETCH_HEAD\$" out &&
		test_cmp_rev stack^ origin/main &&
		echo "fix, edited" >expect &&
		git show stack:fix.c >actual &&
		test_cmp expect actual
	)
'

test_done

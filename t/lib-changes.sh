# Helpers for the tests of changes and metacommits (t999x).

# Print the object name of a revision without peeling a change to its
# content: in revisions, "metas/foo" stands for the commit the change holds
# and "metas/foo^{metacommit}" for its metacommit, if it has one.
raw_rev () {
	git rev-parse --verify -q "$1^{metacommit}" ||
	git rev-parse --verify "$1"
}

# Check that a metacommit has the given parents in the given order, the
# empty tree and the given message. Call with the name of the metacommit,
# its message and pairs of parent type and parent.
check_meta_commit () {
	name=$1 &&
	message=$2 &&
	shift 2 &&
	while test $# -gt 0
	do
		printf "%s %s\n" "$1" "$(raw_rev "$2")" &&
		shift 2 || return 1
	done >expect &&
	git cat-file commit "$name^{metacommit}" >metacommit &&
	# only look at the header, up to the first empty line
	sed -n -e "/^\$/q" -e "s/^parent //p" metacommit >parents &&
	sed -n -e "/^\$/q" -e "s/^parent-type //p" metacommit >types.raw &&
	test_line_count = 1 types.raw &&
	tr " " "\n" <types.raw >types &&
	paste -d " " types parents >actual &&
	test_cmp expect actual &&
	test_cmp_rev "$name^{metacommit}^{tree}" $EMPTY_TREE &&
	echo "$message" >expect &&
	sed -e "1,/^\$/d" metacommit >actual &&
	test_cmp expect actual
}

# Commit "Add the parser" with a file "secret", then amend the secret out
# (recording on): the change add-parser holds the amend, and its history
# the first version, whose object name goes to $secret and the secret's
# blob to $blob.
commit_secret_and_amend_it_out () {
	echo hunter2 >secret &&
	echo parse >parser.c &&
	git add secret parser.c &&
	test_tick &&
	git commit -q -m "Add the parser" &&
	secret=$(git rev-parse HEAD) &&
	blob=$(git rev-parse HEAD:secret) &&
	git rm -q secret &&
	test_tick &&
	git commit -q --amend --no-edit
}

# Set SERVER_GIT to an unpatched git, for a server: the 2.55.0 built next
# to this one (make vanilla), else the machine's own, with its own helpers;
# the git under test only when there is neither.
find_server_git () {
	VANILLA_GIT="$GIT_BUILD_DIR/../vanilla/bin/git"
	if test -x "$VANILLA_GIT"
	then
		SERVER_GIT=$VANILLA_GIT
	elif test -x /usr/bin/git
	then
		write_script server-git <<-\EOF
		unset GIT_EXEC_PATH
		exec /usr/bin/git "$@"
		EOF
		SERVER_GIT=$PWD/server-git
	else
		SERVER_GIT=git
	fi
}

# Helpers for the tests of changes and metacommits (t999x).

# Check that a metacommit has the given parents in the given order, the
# empty tree and the given message. Call with the name of the metacommit,
# its message and pairs of parent type and parent.
check_meta_commit () {
	name=$1 &&
	message=$2 &&
	shift 2 &&
	while test $# -gt 0
	do
		printf "%s %s\n" "$1" "$(git rev-parse --verify "$2")" &&
		shift 2 || return 1
	done >expect &&
	git cat-file commit "$name" >metacommit &&
	# only look at the header, up to the first empty line
	sed -n -e "/^\$/q" -e "s/^parent //p" metacommit >parents &&
	sed -n -e "/^\$/q" -e "s/^parent-type //p" metacommit >types.raw &&
	test_line_count = 1 types.raw &&
	tr " " "\n" <types.raw >types &&
	paste -d " " types parents >actual &&
	test_cmp expect actual &&
	test_cmp_rev "$name^{tree}" $EMPTY_TREE &&
	echo "$message" >expect &&
	sed -e "1,/^\$/d" metacommit >actual &&
	test_cmp expect actual
}

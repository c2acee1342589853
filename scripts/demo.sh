#!/bin/sh
# A short walkthrough of what the series does so far, run with the patched
# git given as $1 (make demo passes build/bin/git) in a scratch repository.

. "$(dirname "$0")/config.sh"

git=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
test -x "$git" || die "no git at $1; run make first"

work=$(mktemp -d "${TMPDIR:-/tmp}/evolve-demo.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$work

# Show each command, then run it; stop at the first failure.
run () {
	printf '\n$ %s\n' "$*"
	"$@" || die "demo step failed: $*"
}
git () {
	"$git" "$@"
}

run git --version
run git init -q -b main demo
cd demo || exit 1

echo "# Every commit starts a change (refs/metas/<name>), with no extra command"
for name in parser lexer printer
do
	echo "$name" >"$name.c"
	run git add "$name.c"
	run git commit -q -m "Add the $name"
done
run git change list

echo; echo "# Amend the bottom commit: its change moves to a metacommit"
run git checkout -q HEAD~2
old=$(git rev-parse HEAD)
echo "int parse(void);" >>parser.c
run git commit -q -a --amend --no-edit
run git change list
run git cat-file -p 'refs/metas/add-parser^{metacommit}'
run git reflog show refs/metas/add-parser

echo; echo "# Rebase the rest of the stack onto the amended commit: one transaction"
amended=$(git rev-parse HEAD)
run git rebase -q --onto "$amended" "$old" main
run git log --oneline --format='%h %s' main
run git cat-file -p 'refs/metas/add-printer^{metacommit}'

echo; echo "# Amend the bottom again; git evolve restacks everything built on it"
run git checkout -q metas/add-parser
echo "int parse_all(void);" >>parser.c
run git commit -q -a --amend --no-edit
run git evolve --dry-run
run git evolve
run git log --oneline --format='%h %s' main
run git show --stat --format=%s metas/add-printer

echo; echo "# Recording can be turned off"
run git -c core.enableChanges=false commit -q --allow-empty -m "Not recorded"
run git change list

echo; echo "# git change update records by hand; delete removes a change"
run git change update -g by-hand -c HEAD
run git change delete by-hand
run git change list
run git fsck --no-progress

echo; echo "Done: the demo ran with $git"

#!/bin/sh
# A walk through changeset evolution, run with the patched git given as $1
# (make demo passes build/bin/git) in a scratch directory. Every line
# starting with "$ " can be copied and pasted into a shell.

. "$(dirname "$0")/config.sh"

git=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
test -x "$git" || die "no git at $1; run make first"

work=$(mktemp -d "${TMPDIR:-/tmp}/evolve-demo.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$work
tick=1767261600	# 2026-01-01 10:00 UTC, one minute more for each command

git () {
	"$git" "$@"
}

# Print one argument as a shell would need it typed.
quote () {
	case $1 in
	'' | *[!A-Za-z0-9_./:=@%+,-]*)
		printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*)
		printf '%s' "$1" ;;
	esac
}

# Show a command, shell-quoted, then run it; stop at the first failure.
show () {
	printf '$'
	for arg
	do
		printf ' %s' "$(quote "$arg")"
	done
	printf '\n'
}
run () {
	show "$@"
	tick=$((tick + 60))
	export GIT_AUTHOR_DATE="$tick +0000" GIT_COMMITTER_DATE="$tick +0000"
	"$@" || die "demo step failed: $*"
}
# The same for a command that must fail (a conflict).
fails () {
	show "$@"
	! "$@" || die "demo step should have failed: $*"
}
# write FILE TEXT (echo TEXT >FILE), append FILE TEXT (>>FILE)
write () {
	printf '$ echo %s >%s\n' "$(quote "$2")" "$1"
	printf '%s\n' "$2" >"$1"
}
append () {
	printf '$ echo %s >>%s\n' "$(quote "$2")" "$1"
	printf '%s\n' "$2" >>"$1"
}
say () {
	printf '\n# %s\n' "$*"
}

run git --version

say "Alice makes three commits; each one starts a change, under refs/metas/"
run git init -q -b main alice
run cd alice
run git commit -q --allow-empty -m 'Start the project'
write parser.c 'int parse(void) { return 0; }'
run git add parser.c
run git commit -q -m 'Add the parser'
write lexer.c 'int lex(void) { return 0; }'
run git add lexer.c
run git commit -q -m 'Add the lexer'
write printer.c 'int print(void) { return 0; }'
write parser.c 'int parse(void) { return print(); }'
run git add printer.c parser.c
run git commit -q -m 'Add the printer'
run git change list

say "She goes back to the bottom commit and amends it"
run git prev
run git prev
write parser.h 'int parse(void);'
run git add parser.h
run git commit -q --amend --no-edit

say "The two commits above it are still built on the old version: orphans"
run git change list -v
run git change list --graph

say "git evolve rebases them onto the new version; main follows"
run git evolve
run git change list --graph

say "The history of a change: its versions, and what each one changed"
run git log --obslog
run git log --obslog --oneline -p

say "Amend again, this time conflicting with the printer commit"
write parser.c 'int parse(const char *s) { return 0; }'
run git commit -q -a --amend --no-edit
fails git evolve
run cat parser.c
write parser.c 'int parse(const char *s) { return print(); }'
run git add parser.c
run git evolve --continue
run git checkout -q main
run git log --oneline

say "Alice shares the stack with its history through a server"
run git init -q --bare -b main ../server.git
run git remote add origin ../server.git
run git change share origin
run git push -q origin main 'refs/metas/*:refs/metas/*'

say "Bob clones it, and fetches the changes next to the branches"
run cd ..
run git clone -q server.git bob
run cd bob
run git change share origin
run git fetch -q origin
run git change list -r
run git log --obslog --oneline origin/metas/add-parser

say "Bob fixes Alice's lexer: his amend continues her change, so his push is a fast-forward"
run git checkout -q origin/metas/add-lexer
append lexer.c 'int lex_all(void) { return 0; }'
run git commit -q -a --amend --no-edit
run git push origin metas/add-lexer

say "Alice fetches: her change is behind Bob's version; evolve takes it and restacks"
run cd ../alice
run git fetch origin
run git change list -v
run git evolve
run git log --obslog --oneline metas/add-lexer
run git log --graph --oneline --decorate main
run git push -q origin +main 'refs/metas/*:refs/metas/*'

say "Under the hood: a change is a ref to a metacommit, its versions its parents"
run git cat-file -p 'metas/add-lexer^{metacommit}'

printf '\n# Done: the demo ran with %s\n' "$git"

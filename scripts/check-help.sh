#!/bin/sh
# check-help.sh <destdir>: "git help" shows our manual pages from an
# installed build, rendered: no AsciiDoc markup left in them. <destdir>
# holds a "make install install-man" made with DESTDIR=<destdir>, as a
# distribution package is made; the installed git is run from there, and
# told where its pages are with MANPATH (they are installed under
# <destdir>, not where the binary expects them).

. "$(dirname "$0")/config.sh"

dest=$(cd "${1:?usage: check-help.sh <destdir>}" && pwd) || exit 1
git=$(find "$dest" -path '*/bin/git' -type f | head -n 1)
test -x "$git" || die "no installed git under $dest"
prefix=${git%/bin/git}
mandir=$prefix/share/man

status=0
for page in change evolve next prev
do
	test -f "$mandir/man1/git-$page.1" || {
		echo "not installed: $mandir/man1/git-$page.1" >&2
		status=1
		continue
	}
	out=$(env -i PATH="$PATH" HOME="$dest" GIT_CONFIG_NOSYSTEM=1 \
		GIT_EXEC_PATH="$prefix/libexec/git-core" MANPATH="$mandir" \
		MANPAGER=cat PAGER=cat MANWIDTH=80 LANG=C \
		"$git" help "$page" 2>&1)
	# AsciiDoc markup that rendering should have consumed: quotes,
	# links, list continuations, definition markers, attributes (not
	# the @{...} and ^{...} of revision syntax) and character entities.
	raw=$(printf '%s\n' "$out" |
		grep -n -e '`' -e 'linkgit:' -e '::$' -e '^ *+ *$' \
			-e '[^@^]{[a-z-]*}' -e '&#[0-9]*;' -e '_<[a-z]' -e '>_')
	if test -n "$raw"
	then
		printf '%s\n' "$raw" | head -n 5 >&2
		echo "git help $page shows markup that was not rendered" >&2
		status=1
	fi
	case "$out" in
	*"git-$page - "*)
		say "git help $page: $(printf '%s\n' "$out" | sed -n "s/^ *\(git-$page - .*\)/\1/p" | head -n 1)" ;;
	*)
		printf '%s\n' "$out" | head -n 5 >&2
		echo "git help $page does not show git-$page(1)" >&2
		status=1 ;;
	esac
done
exit $status

#!/bin/sh
# series.sh: the project as a mailable series. Commit the steps of
# patches/steps one by one onto the pristine upstream, in a scratch
# repository (build/series-repo), then write them with "git format-patch
# --cover-letter" to build/series. The cover letter is patches/cover-letter
# (its first paragraph is the subject).
#
# Every patch of patches/series and every file of ours must belong to
# exactly one step; a patch or a file added later without a step stops
# the script here.

. "$(dirname "$0")/series-lib.sh"

steps_file=$top/patches/steps
cover=$top/patches/cover-letter
repo=$build/series-repo
out=$build/series
work=$build/series-steps

series_ident

# Parse patches/steps into $work/NN/{subject,body,patches,files}.
rm -rf "$work" && mkdir -p "$work" || exit 1
awk -v work="$work" '
	function fail(msg) {
		printf "error: patches/steps:%d: %s\n", NR, msg >"/dev/stderr"
		bad = 1; exit 1
	}
	/^[[:space:]]*(#.*)?$/ { next }
	/^step / {
		n++; dir = sprintf("%s/%02d", work, n)
		system("mkdir -p " dir)
		sub(/^step +/, ""); print >(dir "/subject")
		printf "" >(dir "/body"); printf "" >(dir "/patches"); printf "" >(dir "/files")
		next
	}
	!n { fail("expected \"step <subject>\"") }
	/^\t/ {
		item = $0; sub(/^\t+/, "", item); sub(/[[:space:]]+$/, "", item)
		if (item ~ /[[:space:]]/) fail("one item per line: " item)
		if (item ~ /^[0-9][0-9][0-9][0-9]-.*\.patch$/) print item >>(dir "/patches")
		else print item >>(dir "/files")
		next
	}
	/^>( |$)/ { line = $0; sub(/^> ?/, "", line); print line >>(dir "/body"); next }
	{ fail("cannot parse: " $0) }
' "$steps_file" || exit 1

nsteps=$(ls "$work" | wc -l)
test "$nsteps" -gt 0 || die "patches/steps has no step"

# Every patch and every file in exactly one step, each known.
cat "$work"/*/patches | sort | uniq -d | sed 's/^/  /' >"$work/dups"
cat "$work"/*/files | sort | uniq -d | sed 's/^/  /' >>"$work/dups"
test -s "$work/dups" && die "in more than one step of patches/steps:
$(cat "$work/dups")"
series_patches | sort >"$work/all-patches"
overlay_files >"$work/all-files"
cat "$work"/*/patches | sort >"$work/step-patches"
cat "$work"/*/files | sort >"$work/step-files"
missing=$(comm -23 "$work/all-patches" "$work/step-patches"; comm -23 "$work/all-files" "$work/step-files")
test -n "$missing" && die "in no step of patches/steps (add each to a step):
$(echo "$missing" | sed 's/^/  /')"
unknown=$(comm -13 "$work/all-patches" "$work/step-patches"; comm -13 "$work/all-files" "$work/step-files")
test -n "$unknown" && die "patches/steps names what is neither in patches/series nor a file of ours:
$(echo "$unknown" | sed 's/^/  /')"

# The message of each step: its own, or that of its one patch.
for d in "$work"/[0-9]*
do
	n=${d##*/}; n=${n#0}
	if test -s "$d/body"
	then
		{ cat "$d/subject"; echo; cat "$d/body"; } >"$d/message"
		continue
	fi
	test "$(wc -l <"$d/patches")" = 1 ||
		die "step $n ($(cat "$d/subject")): a step of several patches needs a message (\"> \" lines)"
	p=$(cat "$d/patches")
	git mailinfo "$d/patch-msg" /dev/null <"$top/patches/$p" >"$d/patch-info" ||
		die "cannot read the message of patches/$p"
	subject=$(sed -n 's/^Subject: //p' "$d/patch-info")
	test "$subject" = "$(cat "$d/subject")" ||
		die "step $n: subject is not that of patches/$p:
  step:  $(cat "$d/subject")
  patch: $subject"
	{ echo "$subject"; echo; cat "$d/patch-msg"; } >"$d/message"
done

# Upstream files the patches touch, restored before each step applies
# its patches afresh.
series_patches | while read -r p
do
	sed -n -e 's|^+++ b/\([^	]*\).*|\1|p' "$top/patches/$p"
done | sort -u >"$work/touched"

say "committing $nsteps steps in $repo"
init_upstream_repo "$repo"
base=v$UPSTREAM_VERSION
k=0
for d in "$work"/[0-9]*
do
	k=$((k + 1))
	subject=$(cat "$d/subject")
	# Restore the touched files, then apply the patches of the steps so
	# far in the order of patches/series.
	(
		cd "$repo" &&
		git ls-tree -r --name-only "$base" | sort | comm -12 - "$work/touched" >"$work/restore" &&
		xargs -r git checkout -q "$base" -- <"$work/restore" &&
		comm -23 "$work/touched" "$work/restore" | xargs -r rm -f
	) || die "cannot restore upstream files in $repo"
	for e in "$work"/[0-9]*
	do
		test "${e##*/}" \> "${d##*/}" && break
		cat "$e/patches"
	done | sort -u >"$work/applied"
	series_patches | grep -Fx -f "$work/applied" | while read -r p
	do
		patch -p1 -N --no-backup-if-mismatch -r - -d "$repo" \
			<"$top/patches/$p" >"$work/patch.log" 2>&1 || {
			cat "$work/patch.log" >&2
			die "step $k ($subject): patches/$p does not apply"
		}
		grep -i 'with fuzz' "$work/patch.log" | sed "s|^|warning: step $k, $p: |" >&2
		:
	done || exit 1
	while read -r f
	do
		mkdir -p "$repo/$(dirname "$f")" && cp -p "$top/$f" "$repo/$f" || exit 1
	done <"$d/files"
	(
		cd "$repo" &&
		git add -A && { test ! -s "$d/files" || xargs git add -f -- <"$d/files"; } &&
		! git diff --cached --quiet ||
			die "step $k ($subject) changes nothing"
		date=$(series_date $k)
		GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" \
		git commit -q -s -F "$d/message"
	) || die "step $k ($subject): cannot commit"
	printf '  %2d %s\n' $k "$subject" >&2
done

# The cover letter: patches/cover-letter as the branch description.
git -C "$repo" config branch.evolve.description "$(cat "$cover")" || exit 1
rm -rf "$out"
GIT_COMMITTER_DATE="$(series_date $k)" \
git -C "$repo" format-patch -q --cover-letter --cover-from-description=subject \
	-o "$out" "$base.." >/dev/null ||
	die "git format-patch failed"
say "the series: $out ($(ls "$out" | wc -l) files: cover letter and $nsteps patches), from $repo"

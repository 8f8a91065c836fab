#!/bin/sh
# tests/rules.sh: docs/rules.md keeps up with the code. It fails when a
# rule id (RT-3, SEC-4 ...) cited in ircd/, acp/, store/, tests/ or bench/
# has no entry in docs/rules.md, or when a file that docs/rules.md names
# in backticks does not exist. It reads files only, never git, so that it
# runs in a dist tarball too. Prints TAP.
# Environment: SRCDIR (the source root; default: the parent of tests/).
set -u

srcdir=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
doc=$srcdir/docs/rules.md
families='AG|RT|TN|SS|CM|PM|HS|SC|AU|MN|LK|SEC'

if [ ! -f "$doc" ]; then
	echo "1..1"
	echo "not ok 1 - docs/rules.md exists under $srcdir"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rules.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# Every id cited, once, with the first place that cites it (in file name
# order, so the output does not depend on the file system): "RT-3 file:line".
# A word is taken whole (no \b, which not every grep has), then kept only
# if it is exactly a rule id: "UTF-8" and "SHA-256" are words, not rules.
# Build output and installed packages are not sources.
dirs=
for d in ircd acp store tests bench; do
	[ -d "$srcdir/$d" ] && dirs="$dirs $srcdir/$d"
done
# shellcheck disable=SC2086 # $dirs is a list of paths without spaces
grep -rnoIE --exclude-dir=node_modules --exclude-dir=.deps \
    --exclude-dir=.libs --exclude-dir=__pycache__ --exclude-dir=.git \
    --exclude='*.log' --exclude='*.trs' --exclude='*.o' --exclude='*.a' \
    '[A-Za-z0-9_]*[A-Z]+-[0-9]+[A-Za-z0-9_]*' $dirs 2>/dev/null |
    sort -t: -k1,1 -k2,2n |
    awk -v root="$srcdir/" -v re="^($families)-[0-9]+\$" '
	{
		# file:line:word; the file has no ":" in this tree.
		n = split($0, f, ":")
		word = f[n]
		if (word !~ re || seen[word]++)
			next
		file = f[1]
		if (index(file, root) == 1)
			file = substr(file, length(root) + 1)
		print word, file ":" f[2]
	}' | sort -t- -k1,1 -k2,2n >"$tmp/cited"

# The entries: "### RT-3" headings.
awk -v re="^($families)-[0-9]+\$" '$1 == "###" && $2 ~ re { print $2 }' \
    "$doc" | sort >"$tmp/entries"

# Paths named in backticks: a "/" in them, and a source-like ending. A code
# span may wrap a line, so the file is read as one line.
# shellcheck disable=SC2016 # the backticks are Markdown, not a command
tr '\n' ' ' <"$doc" | grep -o '`[^`]*`' | tr -d '`' |
    grep -E '^[^[:space:]]*/[^[:space:]]*\.(c|h|py|sh|mjs|md)$' |
    sort -u >"$tmp/paths"

ncited=$(($(wc -l <"$tmp/cited")))
npaths=$(($(wc -l <"$tmp/paths")))
echo "1..$((ncited + npaths + 2))"

n=0
fail=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	fail=1
}

# A grep that found nothing would make the checks below pass vacuously.
if [ "$ncited" -gt 0 ]; then
	ok "rule ids found in the sources ($ncited)"
else
	not_ok "no rule id found under$dirs: is SRCDIR right?"
fi

while read -r id where; do
	if grep -qx "$id" "$tmp/entries"; then
		ok "$id (cited in $where) has an entry in docs/rules.md"
	else
		not_ok "$id is cited in $where but has no entry (### $id) in docs/rules.md"
	fi
done <"$tmp/cited"

dups=$(uniq -d "$tmp/entries" | tr '\n' ' ' | sed 's/ $//')
if [ -z "$dups" ]; then
	ok "no rule has two entries in docs/rules.md"
else
	not_ok "rules with two entries in docs/rules.md: $dups"
fi

while read -r path; do
	if [ -e "$srcdir/$path" ]; then
		ok "docs/rules.md names $path, which exists"
	else
		not_ok "docs/rules.md names $path, which does not exist"
	fi
done <"$tmp/paths"

exit $fail

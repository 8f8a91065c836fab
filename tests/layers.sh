#!/bin/sh
# tests/layers.sh: the layers of docs/architecture.md hold.
#
#   ircd/*.c, *.h   the IRC core: includes nothing of ircd/bridge/, except
#                   main.c, the one place that wires core and bridge
#   ircd/bridge/    the agent bridge: builds on the core, acp/ and store/
#   ircd/link/      server links: build on the core; nothing of the bridge
#   acp/ store/     libraries: include nothing of ircd/
#
# The same is checked on the built libraries: libircd.a needs no symbol
# that only libbridge.a defines, and libacp.a and libstore.a need none of
# either. Run from the build directory (make check); SRCDIR is the source.
: "${SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
}
# check NAME OUTPUT: ok when OUTPUT is empty, else each line as a comment.
check() {
	if [ -z "$2" ]; then
		ok "$1"
	else
		not_ok "$1"
		printf '%s\n' "$2" | sed 's/^/# /'
	fi
}

echo "1..10"

# Every #include "..." of the files given, as "file:line: header".
includes() {
	grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" 2>/dev/null |
	    sed 's/^\([^:]*:[0-9]*\):.*"\([^"]*\)".*/\1: \2/'
}

core=$(ls "$SRCDIR"/ircd/*.c "$SRCDIR"/ircd/*.h | grep -v '/ircd/main\.c$')
check "the IRC core includes no bridge header (main.c aside)" \
    "$(includes $core | grep ': ircd/bridge/' | sed "s|^$SRCDIR/||")"
check "the IRC core includes no link header (main.c aside)" \
    "$(includes $core | grep ': ircd/link/' | sed "s|^$SRCDIR/||")"
check "ircd/link/ includes nothing of the bridge" \
    "$(includes "$SRCDIR"/ircd/link/*.[ch] | grep ': ircd/bridge/' |
    sed "s|^$SRCDIR/||")"
check "acp/ includes nothing of ircd/" \
    "$(includes "$SRCDIR"/acp/*.[ch] | grep ': ircd/' | sed "s|^$SRCDIR/||")"
check "store/ includes nothing of ircd/ or acp/" \
    "$(includes "$SRCDIR"/store/*.[ch] | grep -E ': (ircd|acp)/' |
    sed "s|^$SRCDIR/||")"

# defined LIB...: the external symbols the libraries define.
defined() {
	nm -g --defined-only "$@" 2>/dev/null |
	    awk 'NF == 3 && $2 ~ /[TDBRC]/ { print $3 }' | sort -u
}
# undefined LIB: the symbols it needs from elsewhere.
undefined() {
	nm -u "$1" 2>/dev/null | awk '{ print $NF }' | sort -u
}
# needs LIB FROM...: symbols LIB needs that only FROM define.
needs() {
	lib=$1
	shift
	for l in "$lib" "$@"; do
		if [ ! -f "$l" ]; then
			echo "$l is not built"
			return
		fi
	done
	defined "$@" >layers.from.$$
	defined "$lib" >layers.own.$$
	undefined "$lib" | comm -12 - layers.from.$$ | comm -23 - layers.own.$$
	rm -f layers.from.$$ layers.own.$$
}

check "libircd.a needs no symbol of libbridge.a" \
    "$(needs libircd.a libbridge.a)"
check "libircd.a needs no symbol of liblink.a" \
    "$(needs libircd.a liblink.a)"
check "libacp.a needs no symbol of libircd.a or libbridge.a" \
    "$(needs libacp.a libircd.a libbridge.a)"
check "libstore.a needs no symbol of libircd.a, libbridge.a or libacp.a" \
    "$(needs libstore.a libircd.a libbridge.a libacp.a)"
# acp/ is a library: its external names carry its prefixes, so none can
# clash with the bridge's (agent_*, turn_*, ...).
if [ -f libacp.a ]; then
	check "libacp.a defines only acp_* and jsonrpc_* names" \
	    "$(defined libacp.a | grep -Ev '^(acp_|jsonrpc_)')"
else
	not_ok "libacp.a defines only acp_* and jsonrpc_* names"
	echo "# libacp.a is not built"
fi
[ "$failed" -eq 0 ]

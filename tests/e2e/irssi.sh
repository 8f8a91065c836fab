#!/bin/sh
# End-to-end test with a real IRC client: irssi, driven through tmux, and a
# raw-socket client (bob) meet in #e2e on the built agentircd and talk.
# Prints TAP. Environment: AGENTIRCD (the daemon), SRCDIR (source root).
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u

if ! command -v irssi >/dev/null 2>&1 || ! command -v tmux >/dev/null 2>&1 ||
   ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP irssi/tmux missing"
	exit 0
fi

AGENTIRCD=${AGENTIRCD:-ircd/agentircd}
if [ ! -x "$AGENTIRCD" ]; then
	echo "Bail out! no daemon at $AGENTIRCD (set AGENTIRCD)"
	exit 1
fi
# Wait limits in seconds; sanitizer builds are slower, so be generous. The
# waits poll: they cost nothing when things go well.
LIMIT=${E2E_TIMEOUT:-30}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentircd-e2e.XXXXXX") || exit 1
# A private tmux server: its own socket directory and name, no user config.
TMUX_TMPDIR=$TMP
export TMUX_TMPDIR
unset TMUX
TSOCK="e2e$$"
IRCD_PID=
BOB_PID=
cleanup() {
	tmux -L "$TSOCK" kill-server >/dev/null 2>&1
	[ -n "$BOB_PID" ] && kill "$BOB_PID" 2>/dev/null
	[ -n "$IRCD_PID" ] && kill "$IRCD_PID" 2>/dev/null && wait "$IRCD_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# TAP output, polling, free_port, ircd_start, bob_start: see lib.sh.
. "$(dirname "$0")/lib.sh"
screen() { tmux -L "$TSOCK" capture-pane -p -t e2e 2>/dev/null; }
screen_has() { screen | grep -Eq -- "$1"; }
have() { [ -e "$TMP/bob.$1" ]; }
# type TEXT: type a line into irssi and press Enter.
type_line() {
	tmux -L "$TSOCK" send-keys -t e2e -l -- "$1" &&
	    tmux -L "$TSOCK" send-keys -t e2e Enter
}
# bail MESSAGE: stop here, showing what each participant saw.
bail() {
	echo "# --- irssi screen"; screen | sed 's/^/# /'
	echo "# --- bob"; diag "$TMP/bob.log"
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
	echo "Bail out! $1"
	exit 1
}

echo "1..11"

PORT=$(free_port)
cat >"$TMP/agentircd.conf" <<CONF
# agentircd end-to-end test
[server]
name = irc.test
network = TestNet

[listen]
address = 127.0.0.1:$PORT
CONF

ircd_start "the test config"

# bob (bob.py): a raw-socket client. It registers, joins #e2e, and marks each
# step with a file bob.STEP in $TMP, so this script can wait for it.
bob_start irssi
wait_for "$LIMIT" have joined || bail "bob did not register and join #e2e"
ok "a raw-socket client registers and joins #e2e"

# alice: the real irssi, in a 200x50 tmux window, with its own home.
cat >"$TMP/tmux.conf" <<'TMUXCONF'
set -g remain-on-exit on
set -g status off
TMUXCONF
mkdir -p "$TMP/irssi"
tmux -L "$TSOCK" -f "$TMP/tmux.conf" new-session -d -s e2e -x 200 -y 50 \
    env LANG=C.UTF-8 TERM=screen \
    irssi --home="$TMP/irssi" -n alice -c 127.0.0.1 -p "$PORT" ||
    bail "tmux cannot start irssi"
# bob asks ISON until alice is registered: then irssi can take commands.
wait_for "$LIMIT" have sees-alice || bail "irssi did not register as alice"
ok "irssi connects and registers as alice"

type_line "/join #e2e"
wait_for "$LIMIT" have alice-joined || bail "bob did not see alice join #e2e"
ok "irssi joins #e2e and bob sees the JOIN"

# irssi shows channel messages as "<bob> text", with room for a mode prefix.
if wait_for "$LIMIT" screen_has '<[ @%+]?bob> hello from bob'; then
	ok "irssi shows bob's message"
else
	not_ok "irssi shows bob's message"
	screen | sed 's/^/# /'
fi

type_line "hi bob from irssi"
if wait_for "$LIMIT" have got; then
	ok "bob receives alice's message"
else
	not_ok "bob receives alice's message"
fi
got=$(cat "$TMP/bob.got" 2>/dev/null)
echo "# bob got: $got"
case $got in
:alice!*" PRIVMSG #e2e :hi bob from irssi") ok "alice's PRIVMSG has the :alice! prefix" ;;
*) not_ok "alice's PRIVMSG has the :alice! prefix" ;;
esac

type_line "/quit e2e done"
if wait_for "$LIMIT" have alice-quit &&
   grep -q 'e2e done' "$TMP/bob.alice-quit"; then
	ok "bob sees irssi quit with its message"
else
	not_ok "bob sees irssi quit with its message"
fi

check "agentircd is still running" ircd_alive

# A clean stop: under the sanitizers, leaks and errors are reported now.
kill -TERM "$IRCD_PID" 2>/dev/null
wait_for "$LIMIT" eval '! ircd_alive'
wait "$IRCD_PID" 2>/dev/null
IRCD_PID=
if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$TMP/ircd.log"; then
	not_ok "agentircd stops on SIGTERM without a sanitizer report"
	tail -n 40 "$TMP/ircd.log" | sed 's/^/# /'
else
	ok "agentircd stops on SIGTERM without a sanitizer report"
fi

if [ "$failed" -ne 0 ]; then
	echo "# --- irssi screen"; screen | sed 's/^/# /'
	echo "# --- bob"; diag "$TMP/bob.log"
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
fi
exit 0

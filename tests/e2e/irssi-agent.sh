#!/bin/sh
# End-to-end test of an agent with a real IRC client: irssi, driven through
# tmux, joins #general on the built agentircd and talks to the demo agent
# (tests/agents/demo-agent.mjs): a greeting, a slash command answered over
# several lines, the reply to !help in #general's window (TN-11), a
# "!policy allow-all" refused past the config's ceiling (AU-1), a
# permission card showing the real input and the policy in force,
# answered with !allow (PM-1, AU-6), and WHOIS showing the agent as a bot
# with its state.
# Prints TAP. Environment: AGENTIRCD (the daemon), SRCDIR (source root).
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u

SRCDIR=${SRCDIR:-.}
for tool in irssi tmux node python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool missing"
		exit 0
	fi
done
if [ ! -d "$SRCDIR/tests/agents/node_modules" ]; then
	echo "1..0 # SKIP tests/agents/node_modules missing (npm ci in tests/agents)"
	exit 0
fi

AGENTIRCD=${AGENTIRCD:-ircd/agentircd}
if [ ! -x "$AGENTIRCD" ]; then
	echo "Bail out! no daemon at $AGENTIRCD (set AGENTIRCD)"
	exit 1
fi
# The agent's command and cwd must be absolute: the daemon runs elsewhere.
SRCDIR=$(cd "$SRCDIR" && pwd) || exit 1
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
AGENT_PID=
cleanup() {
	tmux -L "$TSOCK" kill-server >/dev/null 2>&1
	[ -n "$IRCD_PID" ] && kill "$IRCD_PID" 2>/dev/null && wait "$IRCD_PID" 2>/dev/null
	# Only if the daemon failed to reap its agent: that pid is ours to end.
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# TAP output, polling, free_port, ircd_start, bob_start: see lib.sh.
. "$(dirname "$0")/lib.sh"
screen() { tmux -L "$TSOCK" capture-pane -p -J -t e2e 2>/dev/null; }
screen_has() { screen | grep -Eq -- "$1"; }
log_has() { grep -Eq -- "$1" "$TMP/ircd.log"; }
agent_gone() { ! kill -0 "$AGENT_PID" 2>/dev/null; }
irssi_exited() {
	[ "$(tmux -L "$TSOCK" display-message -p -t e2e '#{pane_dead}' 2>/dev/null)" = 1 ]
}
# type TEXT: type a line into irssi and press Enter.
type_line() {
	tmux -L "$TSOCK" send-keys -t e2e -l -- "$1" &&
	    tmux -L "$TSOCK" send-keys -t e2e Enter
}
# The demo speaks in #general as "<demo> text", with room for a mode prefix.
DEMO='<[ @%+]?demo> '
# count_in_order: the screen shows demo's lines 1, 2 and 3, in that order.
count_in_order() {
	screen | awk -v re="${DEMO}[123]\$" '
	    $0 ~ re { sub(/.*> /, ""); seen = seen $0 }
	    END { exit !(seen ~ /123$/) }'
}
# whois_has PATTERN: irssi shows a complete WHOIS of demo matching PATTERN.
whois_has() {
	screen | awk '/-!- demo \[/ { block = ""; on = 1 }
	    on { block = block $0 "\n" }
	    on && /End of WHOIS/ { last = block; on = 0 }
	    END { printf "%s", last }' | grep -Eq -- "$1"
}
show() {
	echo "# --- irssi screen"; screen | sed 's/^/# /'
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
}
# bail MESSAGE: stop here, showing what irssi and the daemon saw.
bail() {
	show
	echo "Bail out! $1"
	exit 1
}

echo "1..17"

PORT=$(free_port)
# The agent keeps its sessions in $TMP, never in the home directory; its
# cwd is its own workspace beside the config (AU-10).
cat >"$TMP/agentircd.conf" <<CONF
# agentircd end-to-end test with the demo agent
[server]
name = irc.test
network = TestNet

[listen]
address = 127.0.0.1:$PORT

[channel #general]
topic = agent end-to-end test

[agent demo]
command = node "$SRCDIR/tests/agents/demo-agent.mjs"
env = DEMO_AGENT_STATE=$TMP/demo-state
channels = #general
description = agentircd demo agent (a script, not an AI)
CONF

ircd_start "the config with the demo agent"

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
# The 001 welcome in irssi's status window: registered, commands work.
wait_for "$LIMIT" screen_has 'Welcome to the TestNet IRC Network' ||
    bail "irssi did not register as alice"

# The agent is a member of #general from the start, process or not.
type_line "/join #general"
if wait_for "$LIMIT" screen_has 'alice .*has joined #general' &&
   type_line "/names #general" &&
   wait_for "$LIMIT" screen_has '\[[ @%+]demo\]'; then
	ok "irssi joins #general, where demo is a member"
else
	not_ok "irssi joins #general, where demo is a member"
fi

type_line "@demo hello"
if wait_for "$LIMIT" screen_has "${DEMO}Hello! I am the demo agent"; then
	ok "demo answers @demo hello with its greeting"
else
	not_ok "demo answers @demo hello with its greeting"
fi
if wait_for "$LIMIT" screen_has "${DEMO}Type !help to see my commands"; then
	ok "demo's greeting points to !help, not to the client's /help (issue 24)"
else
	not_ok "demo's greeting points to !help, not to the client's /help (issue 24)"
fi

if wait_for "$LIMIT" log_has 'demo: started, pid [0-9]+'; then
	ok "the daemon log shows the agent started"
	AGENT_PID=$(sed -n 's/.*demo: started, pid \([0-9][0-9]*\).*/\1/p' \
	    "$TMP/ircd.log" | tail -n 1)
else
	not_ok "the daemon log shows the agent started"
fi

# Not "//count 3": irssi runs that as its own command /count (a leading //
# only skips alias expansion) and sends nothing. /say sends the line as it
# is; the server passes "/count 3" raw to demo, which announced /count.
type_line "/say /count 3"
if wait_for "$LIMIT" count_in_order; then
	ok "demo answers /count 3 with 1, 2 and 3, in order"
else
	not_ok "demo answers /count 3 with 1, 2 and 3, in order"
fi

# TN-11: the server's replies to ! commands typed in #general are NOTICEs
# to #general, which irssi shows in that channel's window (window 2, the
# one on screen), not in its status window.
type_line "!help"
if wait_for "$LIMIT" screen_has "Server commands: !stop"; then
	ok "the reply to !help shows in #general's window"
else
	not_ok "the reply to !help shows in #general's window"
fi

# AU-1: nobody on IRC loosens past the config (demo's ceiling is ask); an
# unauthenticated person is no IRC operator, nor an admin. The refusal
# shows in #general's window too (TN-11).
type_line "!policy allow-all"
if wait_for "$LIMIT" screen_has "demo: the config's ceiling here is ask; allow-all would be looser"; then
	ok "!policy allow-all is refused past the config's ceiling"
else
	not_ok "!policy allow-all is refused past the config's ceiling"
fi

# PM-1, AU-6: the card says what the agent asks to do, its real input and the
# policy.
# irssi wraps it on its own, so its two halves are looked for apart.
card_shown() {
	screen_has "card [0-9]+: demo asks to write notes\\.txt — input: " &&
	    screen_has "notes\\.txt \\(0 bytes\\) — policy ask"
}
type_line "/say /touch notes.txt"
if wait_for "$LIMIT" card_shown; then
	ok "/touch shows a card with the real input and the policy in force"
else
	not_ok "/touch shows a card with the real input and the policy in force"
fi
type_line "!allow"
if wait_for "$LIMIT" screen_has "${DEMO}Allowed: I would have created .*notes\.txt"; then
	ok "!allow answers the card and demo goes on"
else
	not_ok "!allow answers the card and demo goes on"
fi

# The demo honours !always: the next /touch in this session asks nothing.
type_line "/say /touch first.txt"
if wait_for "$LIMIT" screen_has "card [0-9]+: demo asks to write first\\.txt" &&
   type_line "!always" &&
   wait_for "$LIMIT" screen_has "${DEMO}Allowed: I would have created .*first\.txt" &&
   type_line "/say /touch second.txt" &&
   wait_for "$LIMIT" screen_has "${DEMO}Allowed: I would have created .*second\.txt" &&
   ! screen_has "demo asks to write second\\.txt"; then
	ok "after !always the demo's next /touch is allowed without a card (issue 24)"
else
	not_ok "after !always the demo's next /touch is allowed without a card (issue 24)"
fi

# WHOIS: 335 marks a bot; 320 lines carry the agent's info and its state.
# irssi prints WHOIS replies in its status window, window 1.
type_line "/whois demo"
type_line "/window 1"
if wait_for "$LIMIT" whois_has 'is a bot on TestNet'; then
	ok "/whois demo shows it is a bot"
else
	not_ok "/whois demo shows it is a bot"
fi
if whois_has 'state: (idle|answering in #general)'; then
	ok "/whois demo shows the agent's state"
else
	not_ok "/whois demo shows the agent's state"
fi

type_line "/quit e2e done"
wait_for "$LIMIT" irssi_exited || echo "# irssi did not exit on /quit"
check "agentircd is still running" ircd_alive

# A clean stop: under the sanitizers, leaks and errors are reported now.
kill -TERM "$IRCD_PID" 2>/dev/null
wait_for "$LIMIT" eval '! ircd_alive'
if ircd_alive; then
	not_ok "agentircd stops on SIGTERM without a sanitizer report"
	echo "# still running $LIMIT s after SIGTERM"
	kill -KILL "$IRCD_PID" 2>/dev/null
elif log_has 'ERROR: (Address|Leak)Sanitizer|runtime error:'; then
	not_ok "agentircd stops on SIGTERM without a sanitizer report"
	tail -n 40 "$TMP/ircd.log" | sed 's/^/# /'
else
	ok "agentircd stops on SIGTERM without a sanitizer report"
fi
wait "$IRCD_PID" 2>/dev/null
IRCD_PID=

# The agent's process ends with the daemon: none is left behind.
if [ -n "$AGENT_PID" ] && wait_for "$LIMIT" agent_gone; then
	ok "the agent's process ends with the daemon"
	AGENT_PID=
else
	not_ok "the agent's process ends with the daemon"
fi

[ "$failed" -ne 0 ] && show
exit 0

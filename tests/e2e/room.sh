#!/bin/sh
# End-to-end test of agents in a room full of people (issue 24), with two
# real IRC clients: irssi (alice), driven through tmux, and WeeChat
# (carol), headless, driven through its FIFO pipe, both in #room on the
# built agentircd with two demo agents (tests/agents/demo-agent.mjs), demo
# and helper. What is checked is what each person sees on screen or in
# WeeChat's log of the buffer:
# - the reply to !help lands in the channel's window, in WeeChat (TN-11);
# - an answer to alice starts with her nick, which irssi highlights (TN-12);
# - a follow-up by alice goes to demo; carol's unaddressed question is for
#   the people and wakes no agent (RT-3);
# - three lines pasted in irssi are one prompt, one answer (TN-10);
# - while demo's permission card waits, helper answers carol (TN-1), and
#   !status says what demo waits for; then !allow lets demo go on;
# - demo's answer naming @helper wakes helper, whose answer threads to it
#   and answers alice, who started the chain (MN-1, MN-2).
# Prints TAP. Environment: AGENTIRCD (the daemon), SRCDIR (source root).
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u

SRCDIR=${SRCDIR:-.}
# TAP output, polling, free_port, ircd_start, WeeChat: see lib.sh.
. "$(dirname "$0")/lib.sh"
skip_unless_weechat
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
SRCDIR=$(cd "$SRCDIR" && pwd) || exit 1
LIMIT=${E2E_TIMEOUT:-30}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentircd-e2e.XXXXXX") || exit 1
TMUX_TMPDIR=$TMP
export TMUX_TMPDIR
unset TMUX
TSOCK="room$$"
IRCD_PID=
WC_PID=
WC=$TMP/weechat
FIFO=$TMP/weechat.fifo
LOGS=$TMP/weechat-logs
cleanup() {
	tmux -L "$TSOCK" kill-server >/dev/null 2>&1
	[ -n "$WC_PID" ] && kill "$WC_PID" 2>/dev/null && wait "$WC_PID" 2>/dev/null
	[ -n "$IRCD_PID" ] && kill "$IRCD_PID" 2>/dev/null && wait "$IRCD_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# irssi's screen (the window on show: #room's, once joined).
screen() { tmux -L "$TSOCK" capture-pane -p -J -t room -S -200 2>/dev/null; }
screen_has() { screen | grep -Eq -- "$1"; }
screen_count() { screen | grep -Ec -- "$1"; }
irssi_type() {
	tmux -L "$TSOCK" send-keys -t room -l -- "$1" &&
	    tmux -L "$TSOCK" send-keys -t room Enter
}
# WeeChat's log of #room: "time<TAB>nick<TAB>text", written at once.
room_log() { cat "$LOGS/irc.agentircd.#room.weechatlog" 2>/dev/null; }
room_has() { room_log | grep -Eq -- "$1"; }
room_count() { room_log | grep -Ec -- "$1"; }
carol_type() { printf 'irc.agentircd.#room *%s\n' "$1" | fifo_send; }
show() {
	echo "# --- irssi screen"; screen | tail -n 40 | sed 's/^/# /'
	echo "# --- weechat #room"; room_log | tail -n 40 | sed 's/^/# /'
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
}
bail() {
	show
	echo "Bail out! $1"
	exit 1
}

echo "1..15"

PORT=$(free_port)
cat >"$TMP/agentircd.conf" <<CONF
# agentircd end-to-end test: two people and two agents in one room
[server]
name = irc.test
network = TestNet
database = :memory:

[listen]
address = 127.0.0.1:$PORT

[agent demo]
command = node "$SRCDIR/tests/agents/demo-agent.mjs"
env = DEMO_AGENT_STATE=$TMP/demo-state
channels = #room
description = agentircd demo agent (a script, not an AI)

[agent helper]
command = node "$SRCDIR/tests/agents/demo-agent.mjs"
env = DEMO_AGENT_STATE=$TMP/helper-state
channels = #room
description = a second demo agent
CONF

ircd_start "the config with two demo agents"

# carol: WeeChat, headless (weechat_start in lib.sh), plain text on loopback.
weechat_start
{
	echo "core.weechat */server add agentircd 127.0.0.1/$PORT"
	echo "core.weechat */set irc.server.agentircd.nicks carol"
	echo "core.weechat */set irc.server.agentircd.autojoin \"#room\""
	echo "core.weechat */connect agentircd"
} | fifo_send || bail "weechat does not read its FIFO pipe"
wait_for "$LIMIT" room_has 'carol' || bail "weechat did not join #room"

# alice: irssi in a 200x50 tmux window.
printf 'set -g remain-on-exit on\nset -g status off\n' >"$TMP/tmux.conf"
# The user guide's irssi settings, so that a paste leaves irssi at once
# rather than a line every 2.2 s (they apply from the next connection).
mkdir -p "$TMP/irssi"
tmux -L "$TSOCK" -f "$TMP/tmux.conf" new-session -d -s room -x 200 -y 50 \
    env LANG=C.UTF-8 TERM=screen \
    irssi --home="$TMP/irssi" -n alice ||
    bail "tmux cannot start irssi"
wait_for "$LIMIT" screen_has 'Irssi v' || bail "irssi did not start"
irssi_type "/set cmds_max_at_once 10"
irssi_type "/set cmd_queue_speed 100msec"
irssi_type "/connect 127.0.0.1 $PORT"
wait_for "$LIMIT" screen_has 'Welcome to the TestNet IRC Network' ||
    bail "irssi did not register as alice"
irssi_type "/join #room"
wait_for "$LIMIT" screen_has 'alice .*has joined #room' || bail "irssi did not join #room"
wait_for "$LIMIT" room_has 'alice' || bail "weechat did not see alice join"
ok "alice (irssi) and carol (WeeChat) are in #room with demo and helper"

# TN-11: carol's !help is answered in #room's buffer, not the server's.
carol_type "!help"
if wait_for "$LIMIT" room_has 'Server commands: !stop'; then
	ok "WeeChat shows the reply to !help in #room's buffer"
else
	not_ok "WeeChat shows the reply to !help in #room's buffer"
fi

# TN-12: two people here, so demo's answer starts with alice's nick; irssi
# shows a highlighted line with it.
irssi_type "@demo hello"
if wait_for "$LIMIT" screen_has '<[ @%+]?demo> alice: Hello! I am the demo agent'; then
	ok "demo's answer to alice starts with her nick"
else
	not_ok "demo's answer to alice starts with her nick"
fi

# RT-3: alice's next line, naming nobody, follows up demo's answer.
irssi_type "what is this for?"
if wait_for "$LIMIT" screen_has '<[ @%+]?demo> alice: Good question'; then
	ok "alice's follow-up (no name) is answered by demo"
else
	not_ok "alice's follow-up (no name) is answered by demo"
fi

# RT-3: carol's question names no agent and follows up nothing of hers: it
# is for the people. Then alice asks demo by name: the next "Good question"
# answers her, and no agent ever answered carol.
carol_type "lunch at noon, anyone?"
wait_for "$LIMIT" screen_has 'carol> lunch at noon, anyone\?' ||
    echo "# irssi did not show carol's line"
irssi_type "@demo and now?"
if wait_for "$LIMIT" eval '[ "$(screen_count "<[ @%+]?demo> alice: Good question")" -ge 2 ]' &&
   [ "$(room_count "(demo|helper)	carol: ")" -eq 0 ] &&
   [ "$(room_count "demo	.*Good question")" -eq 2 ]; then
	ok "carol's unaddressed question wakes no agent"
else
	not_ok "carol's unaddressed question wakes no agent"
fi

# TN-10: three lines pasted at once into irssi are one prompt: demo answers
# once, to the last line of it. (irssi is set up as the user guide says, so
# that it sends a paste at once rather than a line every 2.2 s; the server
# would join lines that its own flood control holds back too.)
irssi_type "@demo first line of a paste" && irssi_type "second line" &&
    irssi_type "third line"
if wait_for "$LIMIT" screen_has '<[ @%+]?demo> alice: You said: +third line' &&
   sleep 1 && [ "$(screen_count "You said: ")" -eq 1 ]; then
	ok "a three-line paste in irssi is one prompt and one answer"
else
	not_ok "a three-line paste in irssi is one prompt and one answer"
fi

# TN-1: demo asks permission; while its card waits, helper answers carol.
irssi_type "/say /demo:touch notes.txt"
if wait_for "$LIMIT" screen_has 'card [0-9]+: demo asks to write notes\.txt'; then
	ok "demo's card waits for alice"
else
	not_ok "demo's card waits for alice"
fi
carol_type "@helper hello"
if wait_for "$LIMIT" room_has 'helper	carol: Hello! I am the demo agent'; then
	ok "helper answers carol while demo's card waits"
else
	not_ok "helper answers carol while demo's card waits"
fi
carol_type "!status"
if wait_for "$LIMIT" room_has 'demo: waiting for card [0-9]+ in #room'; then
	ok "!status says demo waits for its card"
else
	not_ok "!status says demo waits for its card"
fi
irssi_type "!allow"
if wait_for "$LIMIT" screen_has '<[ @%+]?demo> alice: Allowed: I would have created'; then
	ok "!allow lets demo go on"
else
	not_ok "!allow lets demo go on"
fi

# MN-1, MN-2: demo's answer names @helper, which wakes helper in #room; its
# answer is for alice, who started the chain. (The demo's /pass writes
# "Over to you, @helper: hello"; alice's own line names nobody but demo.)
irssi_type "/say /demo:pass helper hello"
if wait_for "$LIMIT" screen_has '<[ @%+]?demo> alice: Over to you, @helper: hello' &&
   wait_for "$LIMIT" screen_has '<[ @%+]?helper> alice: Hello! I am the demo agent' &&
   wait_for "$LIMIT" room_has 'helper	alice: Hello! I am the demo agent'; then
	ok "demo's answer naming @helper wakes helper, seen in irssi and WeeChat"
else
	not_ok "demo's answer naming @helper wakes helper, seen in irssi and WeeChat"
fi

irssi_type "/quit e2e done"
printf 'irc.server.agentircd */quit e2e done\n' | fifo_send
check "agentircd is still running" ircd_alive
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

[ "$failed" -ne 0 ] && show
exit 0

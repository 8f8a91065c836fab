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

# TAP output and polling: ok, not_ok, check, wait_for, diag, ircd_alive, port_open.
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

PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
cat >"$TMP/agentircd.conf" <<CONF
# agentircd end-to-end test
[server]
name = irc.test
network = TestNet

[listen]
address = 127.0.0.1:$PORT
CONF

if "$AGENTIRCD" -n -f "$TMP/agentircd.conf" >"$TMP/check.out" 2>&1; then
	ok "agentircd -n accepts the test config"
else
	not_ok "agentircd -n accepts the test config"
	diag "$TMP/check.out"
fi

"$AGENTIRCD" -f "$TMP/agentircd.conf" </dev/null >"$TMP/ircd.log" 2>&1 &
IRCD_PID=$!
wait_for "$LIMIT" port_open || bail "agentircd does not listen on 127.0.0.1:$PORT"
ok "agentircd listens on 127.0.0.1:$PORT"

# bob: a raw-socket client. It registers, joins #e2e, and marks each step
# with a file bob.STEP in $TMP, so this script can wait for it.
cat >"$TMP/bob.py" <<'PY'
import os, socket, sys, time

port, tmp, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
deadline = time.monotonic() + limit
log = open(os.path.join(tmp, "bob.log"), "w")


def mark(step, text=""):
    path = os.path.join(tmp, "bob." + step)
    with open(path + ".part", "w") as f:
        f.write(text)
    os.rename(path + ".part", path)  # atomic: never seen half-written


def send(line):
    log.write(">> " + line + "\n")
    log.flush()
    sock.sendall(line.encode() + b"\r\n")


def nick_of(prefix):
    return prefix.split("!", 1)[0].lower()


def parse(line):
    prefix = ""
    if line.startswith("@"):  # message tags: not needed here
        line = line.split(" ", 1)[1] if " " in line else ""
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    trailing = None
    if " :" in line:
        line, trailing = line.split(" :", 1)
    params = line.split()
    cmd = params.pop(0).upper() if params else ""
    if trailing is not None:
        params.append(trailing)
    return prefix, cmd, params


for attempt in range(50):
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("bob: cannot connect")
sock.settimeout(0.2)
send("NICK bob")
send("USER bob 0 * :Bob the raw client")
state = "register"
buf = b""
next_ison = 0.0
while time.monotonic() < deadline:
    if state == "ison" and time.monotonic() >= next_ison:
        send("ISON alice")
        next_ison = time.monotonic() + 0.2
    try:
        data = sock.recv(4096)
    except socket.timeout:
        continue
    if not data:
        log.write("-- connection closed\n")
        break
    buf += data
    while b"\n" in buf:
        raw, buf = buf.split(b"\n", 1)
        line = raw.rstrip(b"\r").decode("utf-8", "replace")
        log.write("<< " + line + "\n")
        log.flush()
        prefix, cmd, params = parse(line)
        if cmd == "PING":
            send("PONG :" + (params[-1] if params else ""))
        elif cmd == "001":
            send("JOIN #e2e")
        elif cmd == "366" and len(params) > 1 and params[1].lower() == "#e2e":
            mark("joined")
            state = "ison"
        elif cmd == "303" and state == "ison":
            if "alice" in (params[-1] if params else "").lower().split():
                mark("sees-alice")
                state = "wait-join"
        elif cmd == "JOIN" and nick_of(prefix) == "alice":
            mark("alice-joined", line)
            send("PRIVMSG #e2e :hello from bob")
            mark("sent")
        elif cmd == "PRIVMSG" and params and params[-1] == "hi bob from irssi":
            mark("got", line)
        elif cmd == "QUIT" and nick_of(prefix) == "alice":
            mark("alice-quit", line)
            send("QUIT :bye")
            state = "done"
        elif cmd == "ERROR":
            state = "done" if state == "done" else state
    if state == "done":
        break
log.write("-- bob ends in state " + state + "\n")
PY
python3 "$TMP/bob.py" "$PORT" "$TMP" $((LIMIT * 4)) </dev/null 2>>"$TMP/bob.log" &
BOB_PID=$!
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

#!/bin/sh
# End-to-end test over TLS with SASL PLAIN: irssi, driven through tmux, logs in
# to an account on a TLS listener of the built agentircd with exactly the
# commands of docs/user-guide.md ("TLS and SASL"), then meets a raw TLS socket
# client (bob) in #e2e. The certificate comes from agentircd --mkcert and the
# account's hash from agentircd --hash-password.
# Prints TAP. Environment: AGENTIRCD (the daemon), SRCDIR (source root).
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u

if ! command -v irssi >/dev/null 2>&1 || ! command -v tmux >/dev/null 2>&1 ||
   ! command -v python3 >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
	echo "1..0 # SKIP irssi/tmux/openssl missing"
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

echo "1..19"

# The certificate, as the user guide makes it.
if "$AGENTIRCD" --mkcert "$TMP/tls" >"$TMP/mkcert.out" 2>&1 &&
   [ -s "$TMP/tls/agentircd.crt" ] && [ -s "$TMP/tls/agentircd.key" ]; then
	ok "agentircd --mkcert writes agentircd.crt and agentircd.key"
else
	not_ok "agentircd --mkcert writes agentircd.crt and agentircd.key"
	diag "$TMP/mkcert.out"
	bail "no certificate"
fi
# The fingerprint it prints, AA:BB:..., is what irssi pins.
FP=$(sed -n 's/^SHA-256 fingerprint: *\([0-9A-Fa-f:]*\)$/\1/p' "$TMP/mkcert.out")
OPENSSL_FP=$(openssl x509 -noout -fingerprint -sha256 -in "$TMP/tls/agentircd.crt" |
    sed 's/^[^=]*=//')
if [ -n "$FP" ] && [ "$FP" = "$OPENSSL_FP" ]; then
	ok "the printed fingerprint is openssl's SHA-256 fingerprint"
else
	not_ok "the printed fingerprint is openssl's SHA-256 fingerprint"
	echo "# mkcert: $FP"
	echo "# openssl: $OPENSSL_FP"
	[ -n "$FP" ] || FP=$OPENSSL_FP
fi

# The account, with a password that has blanks (the guide shows how to quote).
PASSWORD='correct horse battery'
HASH=$(printf '%s\n' "$PASSWORD" | "$AGENTIRCD" --hash-password 2>"$TMP/hash.err")
case $HASH in
'$'*'$'*) ok "agentircd --hash-password prints a crypt hash" ;;
*) not_ok "agentircd --hash-password prints a crypt hash"; diag "$TMP/hash.err" ;;
esac

PORT=$(free_port)
cat >"$TMP/agentircd.conf" <<CONF
# agentircd end-to-end test: TLS and SASL
[server]
name = irc.test
network = TestNet
database = :memory:

[listen]
address = 127.0.0.1:$PORT
tls-cert = $TMP/tls/agentircd.crt
tls-key = $TMP/tls/agentircd.key

[account alice]
password = $HASH
CONF

ircd_start "the TLS listener and the account"

# bob (bob.py): a raw TLS client that trusts only the --mkcert certificate.
# It registers, joins #e2e, and marks each step with a file bob.STEP in $TMP,
# so this script can wait for it. When alice joins it asks WHOIS alice.
bob_start irssi "$TMP/tls/agentircd.crt"
wait_for "$LIMIT" have joined || bail "bob did not register over TLS and join #e2e"
ok "a raw TLS client registers and joins #e2e"

# alice: the real irssi, in a 200x50 tmux window, with its own home and no
# server: it gets one only from the user guide's commands, typed below.
cat >"$TMP/tmux.conf" <<'TMUXCONF'
set -g remain-on-exit on
set -g status off
TMUXCONF
mkdir -p "$TMP/irssi"
tmux -L "$TSOCK" -f "$TMP/tmux.conf" new-session -d -s e2e -x 200 -y 50 \
    env LANG=C.UTF-8 TERM=screen \
    irssi --home="$TMP/irssi" -n alice ||
    bail "tmux cannot start irssi"
wait_for "$LIMIT" screen_has 'Irssi v' || bail "irssi does not start"

# The user guide's irssi commands, with this test's port, fingerprint and
# channel. /save writes the test's own $TMP/irssi/config.
type_line "/network add -sasl_mechanism plain -sasl_username alice -sasl_password '$PASSWORD' agentircd"
type_line "/server add -network agentircd -tls -notls_verify -tls_pinned_cert $FP -auto 127.0.0.1 $PORT"
type_line "/channel add -auto #e2e agentircd"
type_line "/save"
type_line "/connect agentircd"

# bob asks ISON until alice is registered: then irssi can take commands.
wait_for "$LIMIT" have sees-alice || bail "irssi did not register as alice over TLS"
ok "irssi connects over TLS with the pinned certificate and registers as alice"

# 900 RPL_LOGGEDIN, then irssi's own text for 903 RPL_SASLSUCCESS.
if wait_for "$LIMIT" screen_has 'You are now logged in as alice' &&
   screen_has 'SASL authentication succeeded'; then
	ok "irssi shows 900 (logged in as alice) and SASL success (903)"
else
	not_ok "irssi shows 900 (logged in as alice) and SASL success (903)"
	screen | sed 's/^/# /'
fi

if grep -q 'logged in as alice from 127\.0\.0\.1' "$TMP/ircd.log"; then
	ok "the server log shows the login to account alice"
else
	not_ok "the server log shows the login to account alice"
fi

# The channel joined by itself: /channel add -auto.
wait_for "$LIMIT" have alice-joined || bail "bob did not see alice join #e2e"
ok "irssi joins #e2e on its own and bob sees the JOIN"
# An autojoined channel opens in its own window, behind the status window:
# go there (again, if irssi had not made the window yet).
in_e2e_window() {
	type_line "/window goto #e2e" &&
	    wait_for 2 screen_has 'alice .*has joined #e2e'
}
tries=0
until in_e2e_window; do
	tries=$((tries + 1))
	[ "$tries" -lt 5 ] || bail "irssi shows no window for #e2e"
done

wait_for "$LIMIT" have whois-end || bail "bob got no end of WHOIS alice"
case $(cat "$TMP/bob.whois-330" 2>/dev/null) in
*" 330 bob alice alice :"*) ok "WHOIS alice shows 330: logged in as alice" ;;
*) not_ok "WHOIS alice shows 330: logged in as alice" ;;
esac
if have whois-671; then
	ok "WHOIS alice shows 671: secure connection"
else
	not_ok "WHOIS alice shows 671: secure connection"
fi

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

# Secrets never appear in the log (SEC): neither the password nor its hash.
if grep -Fq -e "$PASSWORD" -e "$HASH" "$TMP/ircd.log"; then
	not_ok "the server log holds neither the password nor its hash"
else
	ok "the server log holds neither the password nor its hash"
fi

if [ "$failed" -ne 0 ]; then
	echo "# --- irssi screen"; screen | sed 's/^/# /'
	echo "# --- bob"; diag "$TMP/bob.log"
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
fi
exit 0

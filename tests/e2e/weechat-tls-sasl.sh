#!/bin/sh
# End-to-end test over TLS with SASL PLAIN: WeeChat (weechat-headless, driven
# through its FIFO pipe) logs in to an account on a TLS listener of the built
# agentircd with exactly the commands of docs/user-guide.md ("TLS and SASL"),
# then meets a raw TLS socket client (bob) in #e2e. The certificate comes from
# agentircd --mkcert and the account's hash from agentircd --hash-password.
# WeeChat's buffers are read from its logger's files.
# Prints TAP. Environment: AGENTIRCD (the daemon), SRCDIR (source root).
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u

# TAP output, polling, free_port, ircd_start, bob_start, WeeChat: lib.sh.
. "$(dirname "$0")/lib.sh"
skip_unless_weechat
if ! command -v python3 >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
	echo "1..0 # SKIP python3/openssl missing"
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
WC=$TMP/wc
FIFO=$WC/weechat_fifo
LOGS=$WC/logs
IRCD_PID=
BOB_PID=
WC_PID=
cleanup() {
	[ -n "$WC_PID" ] && kill "$WC_PID" 2>/dev/null && wait "$WC_PID" 2>/dev/null
	[ -n "$BOB_PID" ] && kill "$BOB_PID" 2>/dev/null
	[ -n "$IRCD_PID" ] && kill "$IRCD_PID" 2>/dev/null && wait "$IRCD_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# WeeChat's logger writes one file per buffer: the server's and #e2e's.
server_log() { cat "$LOGS/irc.server.agentircd.weechatlog" 2>/dev/null; }
channel_log() { cat "$LOGS/irc.agentircd.#e2e.weechatlog" 2>/dev/null; }
server_has() { server_log | grep -Eq -- "$1"; }
channel_has() { channel_log | grep -Eq -- "$1"; }
have() { [ -e "$TMP/bob.$1" ]; }
weechat_alive() { kill -0 "$WC_PID" 2>/dev/null; }
# type BUFFER TEXT: what a user types in WeeChat's BUFFER (core.weechat,
# irc.server.agentircd, irc.agentircd.#e2e), through the FIFO pipe.
type_line() {
	printf '%s *%s\n' "$1" "$2" | fifo_send
}
# bail MESSAGE: stop here, showing what each participant saw.
bail() {
	echo "# --- weechat server buffer"; server_log | sed 's/^/# /'
	echo "# --- weechat #e2e"; channel_log | sed 's/^/# /'
	echo "# --- weechat output"; tail -n 20 "$TMP/weechat.out" 2>/dev/null | sed 's/^/# /'
	echo "# --- bob"; diag "$TMP/bob.log"
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
	echo "Bail out! $1"
	exit 1
}

echo "1..20"

# The certificate, as the user guide makes it.
if "$AGENTIRCD" --mkcert "$TMP/tls" >"$TMP/mkcert.out" 2>&1 &&
   [ -s "$TMP/tls/agentircd.crt" ] && [ -s "$TMP/tls/agentircd.key" ]; then
	ok "agentircd --mkcert writes agentircd.crt and agentircd.key"
else
	not_ok "agentircd --mkcert writes agentircd.crt and agentircd.key"
	diag "$TMP/mkcert.out"
	bail "no certificate"
fi
# The fingerprint it prints, AA:BB:..., and the form WeeChat wants: lower
# case hex without colons, as the user guide converts it.
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
WC_FP=$(echo "$FP" | tr -d : | tr A-F a-f)

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
bob_start weechat "$TMP/tls/agentircd.crt"
wait_for "$LIMIT" have joined || bail "bob did not register over TLS and join #e2e"
ok "a raw TLS client registers and joins #e2e"

# alice: the real WeeChat, headless (weechat_start in lib.sh). The server
# comes from the user guide's commands.
weechat_start

# The user guide's WeeChat commands, with this test's port, fingerprint and
# channel, typed in WeeChat's core buffer.
{
	echo "core.weechat */server add agentircd 127.0.0.1/$PORT -ssl"
	echo "core.weechat */set irc.server.agentircd.ssl_fingerprint $WC_FP"
	echo "core.weechat */set irc.server.agentircd.nicks alice"
	echo "core.weechat */set irc.server.agentircd.sasl_mechanism plain"
	echo "core.weechat */set irc.server.agentircd.sasl_username alice"
	echo "core.weechat */set irc.server.agentircd.sasl_password \"$PASSWORD\""
	echo "core.weechat */set irc.server.agentircd.autojoin \"#e2e\""
	echo "core.weechat */connect agentircd"
} | fifo_send || bail "weechat does not read its FIFO pipe"

# bob asks ISON until alice is registered: then WeeChat can take commands.
wait_for "$LIMIT" have sees-alice || bail "weechat did not register as alice over TLS"
ok "weechat connects over TLS with the pinned certificate and registers as alice"

if server_has 'certificate fingerprint matches'; then
	ok "weechat checks the server certificate against the pinned fingerprint"
else
	not_ok "weechat checks the server certificate against the pinned fingerprint"
fi

# 900 RPL_LOGGEDIN and 903 RPL_SASLSUCCESS, in the server buffer.
if wait_for "$LIMIT" server_has 'You are now logged in as alice' &&
   wait_for "$LIMIT" server_has 'SASL authentication successful'; then
	ok "weechat shows 900 (logged in as alice) and 903 (SASL success)"
else
	not_ok "weechat shows 900 (logged in as alice) and 903 (SASL success)"
	server_log | sed 's/^/# /'
fi

if grep -q 'logged in as alice from 127\.0\.0\.1' "$TMP/ircd.log"; then
	ok "the server log shows the login to account alice"
else
	not_ok "the server log shows the login to account alice"
fi

# The channel joined by itself: autojoin.
wait_for "$LIMIT" have alice-joined || bail "bob did not see alice join #e2e"
ok "weechat joins #e2e on its own and bob sees the JOIN"

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

# WeeChat logs channel messages as "time<TAB>nick<TAB>text"; the nick may
# have a mode prefix.
if wait_for "$LIMIT" channel_has "	[@%+]?bob	hello from bob\$"; then
	ok "weechat shows bob's message"
else
	not_ok "weechat shows bob's message"
	channel_log | sed 's/^/# /'
fi

type_line "irc.agentircd.#e2e" "hi bob from weechat"
if wait_for "$LIMIT" have got; then
	ok "bob receives alice's message"
else
	not_ok "bob receives alice's message"
fi
got=$(cat "$TMP/bob.got" 2>/dev/null)
echo "# bob got: $got"
case $got in
:alice!*" PRIVMSG #e2e :hi bob from weechat") ok "alice's PRIVMSG has the :alice! prefix" ;;
*) not_ok "alice's PRIVMSG has the :alice! prefix" ;;
esac

type_line irc.server.agentircd "/quit e2e done"
if wait_for "$LIMIT" have alice-quit &&
   grep -q 'e2e done' "$TMP/bob.alice-quit"; then
	ok "bob sees weechat quit with its message"
else
	not_ok "bob sees weechat quit with its message"
fi
# /quit ends WeeChat itself.
if wait_for "$LIMIT" eval '! weechat_alive'; then
	wait "$WC_PID" 2>/dev/null
	WC_PID=
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
	echo "# --- weechat server buffer"; server_log | sed 's/^/# /'
	echo "# --- weechat #e2e"; channel_log | sed 's/^/# /'
	echo "# --- bob"; diag "$TMP/bob.log"
	echo "# --- agentircd stderr"; tail -n 30 "$TMP/ircd.log" | sed 's/^/# /'
fi
exit 0

# lib.sh: what the end-to-end scripts share: TAP output, polling, starting
# the daemon, bob and WeeChat. Sourced, not run. The script sets AGENTIRCD, LIMIT and
# TMP, defines bail, and writes $TMP/agentircd.conf listening on $PORT
# (free_port) before ircd_start; ircd_start sets IRCD_PID, bob_start BOB_PID.
# shellcheck shell=sh disable=SC2317 # functions called through check and wait_for

E2E_DIR=$(dirname "$0")
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # description command...
	d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# wait_for SECONDS command...: poll every 0.1 s until the command succeeds.
wait_for() {
	i=$(($1 * 10)); shift
	while [ "$i" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i - 1))
	done
	return 1
}
diag() { sed 's/^/# /' "$@" 2>/dev/null; }
ircd_alive() { kill -0 "$IRCD_PID" 2>/dev/null; }
port_open() {
	python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' \
	    "$PORT" 2>/dev/null
}
# free_port: print a TCP port of 127.0.0.1 that nobody listens on now.
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
# ircd_start WHAT: check $TMP/agentircd.conf with -n (one test: the daemon
# accepts WHAT), start the daemon on it and wait for its port (one test).
ircd_start() {
	if "$AGENTIRCD" -n -f "$TMP/agentircd.conf" >"$TMP/check.out" 2>&1; then
		ok "agentircd -n accepts $1"
	else
		not_ok "agentircd -n accepts $1"
		diag "$TMP/check.out"
	fi
	"$AGENTIRCD" -f "$TMP/agentircd.conf" </dev/null >"$TMP/ircd.log" 2>&1 &
	IRCD_PID=$!
	wait_for "$LIMIT" port_open ||
	    bail "agentircd does not listen on 127.0.0.1:$PORT"
	ok "agentircd listens on 127.0.0.1:$PORT"
}
# bob_start PEER [CAFILE]: start bob.py, the raw client, in the background;
# its steps appear as $TMP/bob.STEP files, its talk in $TMP/bob.log.
bob_start() {
	python3 "$E2E_DIR/bob.py" "$PORT" "$TMP" $((LIMIT * 4)) "$@" \
	    </dev/null 2>>"$TMP/bob.log" &
	# shellcheck disable=SC2034 # the script's cleanup kills it
	BOB_PID=$!
}

# WeeChat, headless, driven through its FIFO pipe; its buffers are read from
# its logger's files. The script sets WC (its home), FIFO, LOGS and TMP.
# skip_unless_weechat: TAP's skip-all when WeeChat or its FIFO plugin is
# missing (the plugin comes in weechat-plugins, not in weechat-core).
skip_unless_weechat() {
	if ! command -v weechat-headless >/dev/null 2>&1; then
		echo "1..0 # SKIP weechat missing"
		exit 0
	fi
	for f in /usr/lib/*/weechat/plugins/fifo.so \
	    /usr/lib/weechat/plugins/fifo.so \
	    /usr/local/lib/weechat/plugins/fifo.so; do
		[ -e "$f" ] && return 0
	done
	echo "1..0 # SKIP weechat fifo plugin missing (weechat-plugins)"
	exit 0
}
fifo_ready() { [ -p "$FIFO" ]; }
# fifo_send: copy stdin to WeeChat's FIFO pipe. Opening a FIFO blocks until
# someone reads it: if WeeChat is gone, give up after a while.
# shellcheck disable=SC2016 # $1 is expanded by the inner sh
fifo_send() {
	fifo_ready && timeout "$LIMIT" sh -c 'cat >"$1"' sh "$FIFO"
}
# weechat_start: start it with its own home and no server (the command line
# only sets up the test's plumbing: the FIFO pipe, logs written at once);
# sets WC_PID and waits for the pipe, or bails.
weechat_start() {
	mkdir -p "$WC"
	weechat-headless --dir "$WC" \
	    -r "/set fifo.file.path $FIFO" \
	    -r "/set fifo.file.enabled on" \
	    -r "/set logger.file.path $LOGS" \
	    -r "/set logger.file.flush_delay 0" \
	    </dev/null >"$TMP/weechat.out" 2>&1 &
	WC_PID=$!
	wait_for "$LIMIT" fifo_ready ||
	    bail "weechat-headless did not open its FIFO pipe"
}

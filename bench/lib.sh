# bench/lib.sh: what the make check scripts of bench/ share, sourced after
# their TAP plan. Sets LOADGEN (beside the daemon in the build tree unless
# given), a temporary directory $tmp removed at exit with the process $pid
# if one was started, and two helpers for loopback ports.
# shellcheck shell=sh

: "${AGENTIRCD:?AGENTIRCD must name the agentircd binary}"
LOADGEN=${LOADGEN:-$(dirname "$AGENTIRCD")/../bench/loadgen}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-check.XXXXXX") || exit 1
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# A free port: bind to 0 and let the kernel choose (a small race with
# whoever grabs it before the server does, acceptable in a test).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT: until something accepts on 127.0.0.1:PORT (up to 10 s),
# rather than sleeping blindly; fails when $pid has exited or time is up.
wait_port() {
	_i=0
	until python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1).close()" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -ge 100 ] && return 1
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
}

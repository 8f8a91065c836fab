# lib.sh: what the end-to-end scripts share: TAP output and polling.
# Sourced, not run. The script sets TMP, PORT and IRCD_PID before using
# port_open and ircd_alive.
# shellcheck shell=sh disable=SC2317 # functions called through check and wait_for

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

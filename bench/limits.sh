#!/bin/sh
# bench/limits.sh: the load generator's two hard rules (issue 4). It refuses
# any target outside 127.0.0.0/8 and ::1 before it connects anywhere, and it
# always stops by itself: against a server that accepts and never answers,
# --timeout ends the run with status 2 and the clients listed by state.
# No timing is asserted; the outer `timeout` only keeps a broken loadgen
# from hanging make check.
echo 1..4

# LOADGEN, $tmp, $pid and their cleanup, free_port, wait_port: see lib.sh.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
	[ -s "$tmp/out" ] && sed 's/^/# /' "$tmp/out"
}

# Non-loopback addresses, IPv4, IPv6 and IPv4 in IPv6, all from the ranges
# kept for documentation (RFC 5737, RFC 3849), so that a broken check would
# reach nobody: refused with exit status 64, naming the address. The check
# comes before any socket is opened (resolve() in main), so nothing was
# reported on stdout either.
refused=0
for host in 192.0.2.1 198.51.100.7 2001:db8::1 ::ffff:203.0.113.5; do
	timeout 30 "$LOADGEN" --host "$host" --port 6667 --clients 1 \
	    --timeout 5 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 64 ] || ! grep -q "refusing $host: not a loopback" "$tmp/err" ||
	    [ -s "$tmp/out" ]; then
		not_ok "non-loopback target $host refused (exit $rc)"
		refused=1
		break
	fi
done
[ $refused = 0 ] && ok "non-loopback targets refused (IPv4, IPv6, IPv4-mapped)"

# Loopback in all its forms passes the check: 127.0.0.2 (all of 127/8),
# ::1, and ::ffff:127.0.0.1. Nothing listens there on port 1, so the run
# fails to connect, but not with a refusal.
allowed=0
for host in 127.0.0.2 ::1 ::ffff:127.0.0.1; do
	timeout 30 "$LOADGEN" --host "$host" --port 1 --clients 1 \
	    --timeout 5 >"$tmp/out" 2>"$tmp/err"
	if grep -q "refusing" "$tmp/err"; then
		not_ok "loopback target $host accepted"
		allowed=1
		break
	fi
done
[ $allowed = 0 ] && ok "loopback targets accepted (127/8, ::1, IPv4-mapped)"

# A server that accepts and never says a word: a bare listening socket.
port=$(free_port)
python3 -c "
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port))
s.listen(64)
held = []
while True:
    c, _ = s.accept()
    held.append(c)    # never read, never written, never closed
" &
pid=$!
wait_port "$port"	# if not, the run below says why

timeout 60 "$LOADGEN" --port "$port" --clients 3 --channels 1 --senders 1 \
    --messages 5 --timeout 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q '^status=timeout$' "$tmp/out"; then
	ok "a silent server: the run stops by itself with status 2"
else
	not_ok "a silent server: the run stops by itself with status 2 (exit $rc)"
fi
# Where the clients got stuck is reported: all 3 waiting for 001.
if grep -q "timeout after 1.0 s; clients by state:" "$tmp/err" &&
    grep -q "registering 3" "$tmp/err"; then
	ok "the timeout lists the clients by state"
else
	not_ok "the timeout lists the clients by state"
fi

#!/bin/sh
# bench/smoke.sh: the load generator still works against the daemon we
# built. Tiny scale, no timing assertion: benchmarks are not tests.
# Run by make check, which sets AGENTIRCD; LOADGEN defaults to the one
# beside this script in the build tree.
echo 1..1

: "${AGENTIRCD:?AGENTIRCD must name the agentircd binary}"
LOADGEN=${LOADGEN:-$(dirname "$AGENTIRCD")/../bench/loadgen}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX") || exit 1
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

not_ok() {
	echo "not ok 1 - loadgen smoke run: $1"
	for f in "$tmp"/server.log "$tmp"/loadgen.err "$tmp"/loadgen.out; do
		[ -s "$f" ] && sed 's/^/# /' "$f"
	done
	exit 1
}

# A free port: bind to 0 and let the kernel choose (a small race with
# whoever grabs it before the daemon does, acceptable in a test).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	not_ok "no free port"

cat >"$tmp/bench.conf" <<EOC
[server]
name = bench.test
database = $tmp/bench.db
flood-control = no
sendq = 16m
[listen]
address = 127.0.0.1:$port
EOC

"$AGENTIRCD" -f "$tmp/bench.conf" >"$tmp/server.log" 2>&1 &
pid=$!

# Wait for the listener (up to 10 s) rather than sleeping blindly.
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; do
	i=$((i + 1))
	[ $i -ge 100 ] && not_ok "server did not listen on port $port"
	kill -0 "$pid" 2>/dev/null || not_ok "server exited"
	sleep 0.1
done

"$LOADGEN" --port "$port" --clients 10 --channels 1 --senders 2 \
    --messages 20 --window 4 --timeout 30 --server-pid "$pid" \
    >"$tmp/loadgen.out" 2>"$tmp/loadgen.err"
rc=$?
[ $rc -eq 0 ] || not_ok "loadgen exited $rc"
d=$(sed -n 's/^deliveries=//p' "$tmp/loadgen.out")
[ -n "$d" ] && [ "$d" -gt 0 ] || not_ok "no deliveries"
# With --server-pid it reads the server's CPU from /proc: run-compare
# needs these figures.
for k in server_cpu_ns_per_delivery server_busy_pct server_rss_per_client_b; do
	grep -Eq "^$k=[0-9]" "$tmp/loadgen.out" || not_ok "no $k"
done
echo "ok 1 - loadgen smoke run: $d deliveries"

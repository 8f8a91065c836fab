#!/bin/sh
# bench/smoke.sh: the load generator still works against the daemon we
# built. Tiny scale, no timing assertion: benchmarks are not tests.
# Run by make check, which sets AGENTIRCD; LOADGEN defaults to the one
# beside this script in the build tree. Three runs: plain, TLS with full
# handshakes, and TLS offering a session (run-compare's -resume scenarios).
# A fourth run checks bench/floor, the reference of the latency scenarios.
# The fifth runs across two linked agentircd servers (--port2, as
# bench/link-compare does), the sixth holds its clients (--hold).
echo 1..6

# LOADGEN, $tmp, $pid and their cleanup, free_port, wait_port: see lib.sh.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

n=1	# the test being run
not_ok() {
	echo "not ok $n - loadgen smoke run: $1"
	for f in "$tmp"/server.log "$tmp"/loadgen.err "$tmp"/loadgen.out; do
		[ -s "$f" ] && sed 's/^/# /' "$f"
	done
	exit 1
}

port=$(free_port) || not_ok "no free port"
tport=$(free_port) || not_ok "no free port"
while [ "$tport" = "$port" ]; do tport=$(free_port); done
"$AGENTIRCD" --mkcert "$tmp/cert" >"$tmp/mkcert.out" 2>&1 ||
	not_ok "agentircd --mkcert failed"

cat >"$tmp/bench.conf" <<EOC
[server]
name = bench.test
database = $tmp/bench.db
flood-control = no
sendq = 16m
[listen]
address = 127.0.0.1:$port
[listen]
address = 127.0.0.1:$tport
tls-cert = $tmp/cert/agentircd.crt
tls-key = $tmp/cert/agentircd.key
EOC

"$AGENTIRCD" -f "$tmp/bench.conf" >"$tmp/server.log" 2>&1 &
pid=$!

for p in $port $tport; do
	wait_port "$p" || not_ok "server did not listen on port $p"
done

# run NAME PORT [loadgen options]: 10 clients in one channel, 2 senders.
# Every message must reach every other member, and the figures that
# run-compare reads must be there (with --server-pid, from /proc).
run() {
	name=$1 p=$2
	shift 2
	"$LOADGEN" --port "$p" --clients 10 --channels 1 --senders 2 \
	    --messages 20 --window 4 --timeout 30 --server-pid "$pid" "$@" \
	    >"$tmp/loadgen.out" 2>"$tmp/loadgen.err"
	rc=$?
	[ $rc -eq 0 ] || not_ok "$name: loadgen exited $rc"
	d=$(sed -n 's/^deliveries=//p' "$tmp/loadgen.out")
	e=$(sed -n 's/^expected_deliveries=//p' "$tmp/loadgen.out")
	if [ -z "$d" ] || [ "$d" -le 0 ] || [ "$d" != "$e" ]; then
		not_ok "$name: $d deliveries of $e"
	fi
	for k in reg_per_s deliveries_per_s latency_p50_us latency_p99_us \
	    server_cpu_ns_per_delivery server_busy_pct server_rss_per_client_b; do
		grep -Eq "^$k=[0-9]" "$tmp/loadgen.out" || not_ok "$name: no $k"
	done
}

run plain "$port"
echo "ok $n - loadgen smoke run: $d deliveries"
n=2
run "TLS" "$tport" --tls
grep -Eq '^tls_handshakes_per_s=[0-9]' "$tmp/loadgen.out" ||
	not_ok "TLS: no tls_handshakes_per_s"
grep -q '^tls_resumed=0$' "$tmp/loadgen.out" ||
	not_ok "TLS: a handshake resumed without a session offered"
echo "ok $n - loadgen smoke run over TLS: $d deliveries"
n=3
# Every client offers the priming connection's session; agentircd's
# stateless TLS 1.3 ticket resumes them all.
run "TLS resume" "$tport" --tls-resume
grep -q '^tls_resumed=10$' "$tmp/loadgen.out" ||
	not_ok "TLS resume: $(grep '^tls_resumed=' "$tmp/loadgen.out") of 10 resumed"
echo "ok $n - loadgen smoke run over TLS, resuming: $d deliveries"
n=4
# bench/floor: every line reaches every member, one at a time as in the
# latency scenarios, and on SIGTERM it exits 0, having dropped no write.
FLOOR=${FLOOR:-$(dirname "$LOADGEN")/floor}
kill "$pid" && wait "$pid"
port=$(free_port) || not_ok "no free port"
"$FLOOR" "$port" >"$tmp/server.log" 2>&1 &
pid=$!
wait_port "$port" || not_ok "floor did not listen on port $port"
run "floor" "$port" --window 1
kill "$pid"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] || not_ok "floor: exited $rc"
echo "ok $n - loadgen smoke run against bench/floor: $d deliveries"
n=5
# Two agentircd servers linked on loopback, the second accepting: half of
# the clients on each, the senders on the first; every line crosses.
hash_a=$(echo pw-a | "$AGENTIRCD" --hash-password 2>/dev/null | tail -1)
hash_b=$(echo pw-b | "$AGENTIRCD" --hash-password 2>/dev/null | tail -1)
if [ -z "$hash_a" ] || [ -z "$hash_b" ]; then
	not_ok "link: --hash-password failed"
fi
port=$(free_port) || not_ok "no free port"
port2=$(free_port) || not_ok "no free port"
sport=$(free_port) || not_ok "no free port"
cat >"$tmp/b.conf" <<EOC
[server]
name = b.bench.test
sid = 2BB
database = $tmp/b.db
flood-control = no
[listen]
address = 127.0.0.1:$port2
[listen]
address = 127.0.0.1:$sport
links = yes
[link a.bench.test]
address = 127.0.0.1:1
send-password = pw-b
receive-password = $hash_a
tls = no
autoconnect = no
EOC
cat >"$tmp/a.conf" <<EOC
[server]
name = a.bench.test
sid = 1AA
database = $tmp/a.db
flood-control = no
[listen]
address = 127.0.0.1:$port
[link b.bench.test]
address = 127.0.0.1:$sport
send-password = pw-a
receive-password = $hash_b
tls = no
EOC
"$AGENTIRCD" -f "$tmp/b.conf" >"$tmp/b.log" 2>&1 &
pid2=$!
trap 'kill "$pid2" 2>/dev/null; cleanup' EXIT
pid=$pid2
wait_port "$sport" || not_ok "link: the second server did not listen"
"$AGENTIRCD" -f "$tmp/a.conf" >"$tmp/server.log" 2>&1 &
pid=$!
wait_port "$port" || not_ok "link: the first server did not listen"
i=0
until grep -q "burst received" "$tmp/b.log" &&
    grep -q "burst received" "$tmp/server.log"; do
	i=$((i + 1))
	[ $i -ge 100 ] && not_ok "link: no burst within 10 s"
	sleep 0.1
done
run "link" "$port" --port2 "$port2" --server-pid2 "$pid2"
for k in latency_remote_p50_us latency_local_p50_us server2_rss_end_kib; do
	grep -Eq "^$k=[0-9]" "$tmp/loadgen.out" || not_ok "link: no $k"
done
echo "ok $n - loadgen smoke run across a link: $d deliveries"
n=6
# --hold: the report comes out, the clients stay until SIGTERM, exit 0.
"$LOADGEN" --port "$port" --clients 4 --channels 0 --timeout 30 --hold \
    >"$tmp/loadgen.out" 2>"$tmp/loadgen.err" &
lg=$!
i=0
until grep -q '^elapsed_s=' "$tmp/loadgen.out"; do
	i=$((i + 1))
	[ $i -ge 100 ] && { kill "$lg"; not_ok "hold: no report within 10 s"; }
	sleep 0.1
done
kill -0 "$lg" 2>/dev/null || not_ok "hold: loadgen did not hold"
kill -TERM "$lg"
wait "$lg"
rc=$?
[ $rc -eq 0 ] || not_ok "hold: exited $rc after SIGTERM"
grep -q '^status=ok$' "$tmp/loadgen.out" || not_ok "hold: status not ok"
echo "ok $n - loadgen holds its clients until SIGTERM"

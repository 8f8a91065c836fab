#!/usr/bin/env python3
"""bob: the raw-socket IRC client of the end-to-end scripts.

    bob.py PORT TMP LIMIT PEER [CAFILE]

It registers as bob, joins #e2e, waits until alice (the real client) is
online and has joined, asks WHOIS alice, says hello, and leaves when alice
quits. Each step is marked with a file TMP/bob.STEP (written atomically,
holding the line that caused it) so the script can wait for it; everything
said and heard goes to TMP/bob.log. PEER names the client in alice's greeting
("hi bob from PEER"). With CAFILE, bob speaks TLS and trusts only that
certificate. It gives up after LIMIT seconds, so it always stops by itself.
"""
import os, socket, ssl, sys, time

port, tmp, limit, peer = (int(sys.argv[1]), sys.argv[2], float(sys.argv[3]),
                          sys.argv[4])
cafile = sys.argv[5] if len(sys.argv) > 5 else None
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


ctx = None
if cafile is not None:
    # The self-signed certificate names no host: trust it by itself, as a pin.
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.check_hostname = False
for attempt in range(50):
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        if ctx is not None:
            sock = ctx.wrap_socket(sock)
        break
    except OSError as e:
        log.write("-- connect: %s\n" % e)
        time.sleep(0.1)
else:
    sys.exit("bob: cannot connect")
if ctx is not None:
    log.write("-- TLS: %s %s\n" % (sock.version(), sock.cipher()[0]))
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
    except (socket.timeout, ssl.SSLWantReadError):
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
            send("WHOIS alice")
            send("PRIVMSG #e2e :hello from bob")
            mark("sent")
        elif cmd == "330" and len(params) > 1 and params[1].lower() == "alice":
            mark("whois-330", line)
        elif cmd == "671" and len(params) > 1 and params[1].lower() == "alice":
            mark("whois-671", line)
        elif cmd == "318":
            mark("whois-end", line)
        elif cmd == "PRIVMSG" and params and params[-1] == "hi bob from " + peer:
            mark("got", line)
        elif cmd == "QUIT" and nick_of(prefix) == "alice":
            mark("alice-quit", line)
            send("QUIT :bye")
            state = "done"
    if state == "done":
        break
log.write("-- bob ends in state " + state + "\n")

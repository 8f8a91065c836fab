#!/usr/bin/env python3
"""Limits and hostile input (SEC-4): flood control (and `flood-control = no`), Excess Flood,
SendQ, malformed and oversized lines (417), byte-at-a-time clients, a fuzz loop. The daemon
must live on."""

import os
import random
import re
import select
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Server, Shared, TestFailure, parse, run_tests  # noqa: E402

S = Shared()                                          # default limits
X = Shared(flood_exempt="127.0.0.1/32", sendq=65536)  # loopback exempt from flood control


def alive(s):
    c = Client(s, "probe%d" % random.randint(0, 10**6))
    c.send("PING :alive")
    c.expect("PONG .*alive")
    c.quit()


def usable(c):
    tok = "u%d" % random.randint(0, 10**6)
    c.send("PING :%s" % tok)
    c.expect("PONG .*%s" % tok)


# ---------------------------------------------------------------- flood control

def test_flood_throttled_in_order():
    """60 PRIVMSGs at once: the peer gets a burst quickly, the rest later, in order, none lost."""
    with Server(flood_burst=50) as s:
        a = Client(s, "flooder")
        b = Client(s, "floodee")
        n = 60
        t0 = time.time()
        a.send_raw(b"".join(b"PRIVMSG floodee :msg %d\r\n" % i for i in range(n)))
        got = []
        deadline = t0 + 2
        while time.time() < deadline:
            for l in b.drain(0.1):
                m = re.search(r"PRIVMSG floodee :msg (\d+)$", l)
                if m:
                    got.append(int(m.group(1)))
        assert got == list(range(len(got))), got
        assert 5 <= len(got) < n, "%d of %d arrived within 2 s: not throttled" % (len(got), n)
        # the rest arrive later, in order
        for i in range(len(got), n):
            b.expect(r"PRIVMSG floodee :msg %d$" % i, timeout=60)
        elapsed = time.time() - t0
        assert elapsed > 3, elapsed
        usable(a)


def test_flood_control_off():
    """Issue 4: `flood-control = no` (benchmarks only) lets a client that is not exempt send
    2000 lines at once; all arrive, in order, and it stays connected. At the throttled rate of
    the test above they would take many minutes, far past the wait here."""
    with Server(flood_burst=50, flood_control="no") as s:
        a = Client(s, "bencher")
        b = Client(s, "benchee")
        n = 2000
        a.send_raw(b"".join(b"PRIVMSG benchee :msg %d\r\n" % i for i in range(n)))
        got = []
        while len(got) < n:
            got.append(int(b.expect(r"PRIVMSG benchee :msg (\d+)$", timeout=60).group(1)))
        assert got == list(range(n)), got[:20]
        usable(a)


def test_excess_flood():
    """A client blasting far more than recvq bytes is dropped: ERROR :Excess Flood, and peers
    see QUIT :Excess Flood."""
    with Server(recvq=8192) as s:
        a = Client(s, "blaster")
        p = Client(s, "watcher")
        a.join("#flood")
        p.join("#flood")
        line = b"PRIVMSG #flood :" + b"x" * 300 + b"\r\n"
        blob = line * (200 * 1024 // len(line))

        def blast():
            try:
                a.send_raw(blob)
            except OSError:
                pass
        t = threading.Thread(target=blast, daemon=True)
        t.start()
        p.expect(r"^:blaster!\S+ QUIT :.*Excess Flood", timeout=20)
        t.join(10)
        # the ERROR line may be lost to a TCP reset; if anything arrived it says why
        a.closed(5)
        errs = [l for l in a.lines if l.startswith("ERROR")]
        assert not errs or re.search("Excess Flood", errs[-1]), errs
        assert a.eof
        alive(s)


def test_flood_exempt_not_throttled():
    s = X()
    a = Client(s, "exempt1")
    b = Client(s, "exempt2")
    t0 = time.time()
    a.send_raw(b"".join(b"PRIVMSG exempt2 :msg %d\r\n" % i for i in range(60)))
    for i in range(60):
        b.expect(r"PRIVMSG exempt2 :msg %d$" % i, timeout=3)
    assert time.time() - t0 < 4
    a.quit()
    b.quit()


# ---------------------------------------------------------------- SendQ

def test_sendq_exceeded():
    """A client that never reads while a peer floods it is dropped with SendQ exceeded."""
    s = X()
    victim = Client(s, "slowpoke", rcvbuf=4096)
    peer = Client(s, "onlooker")
    sender = Client(s, "bigmouth")
    victim.join("#sq")
    peer.join("#sq")
    peer.drain(0.2)
    payload = b"PRIVMSG slowpoke :" + b"y" * 400 + b"\r\n"
    chunk = payload * 100
    sock = sender.sock
    sock.setblocking(False)
    out = b""
    sent = 0
    deadline = time.time() + 60
    seen = False
    while not seen and time.time() < deadline and sent < 64 * 1024 * 1024:
        if not out:
            out = chunk
        r, w, _ = select.select([sock, peer.sock], [sock], [], 0.5)
        if sock in w:
            try:
                k = sock.send(out)
                out = out[k:]
                sent += k
            except BlockingIOError:
                pass
        if sock in r:
            try:
                sock.recv(1 << 20)   # 401s once the victim is gone
            except BlockingIOError:
                pass
        if peer.sock in r:
            peer._fill(0)
            for l in list(peer.pending):
                if re.search(r"^:slowpoke!\S+ QUIT :.*SendQ exceeded", l):
                    seen = True
            peer.pending.clear()
    assert seen, "no QUIT :SendQ exceeded after %d bytes; peer saw %r" % (sent, peer.lines[-5:])
    # the victim's socket, once drained, ends with ERROR :SendQ exceeded (or a reset)
    victim.closed(10)
    errs = [l for l in victim.lines if l.startswith("ERROR")]
    assert not errs or "SendQ exceeded" in errs[-1], errs
    sock.setblocking(True)
    alive(s)


# ---------------------------------------------------------------- malformed lines

def test_slow_reader_gets_everything_in_order():
    """A client that reads late, but within its SendQ, gets every line in order: what the
    kernel did not take waits in the server and leaves when the socket is writable."""
    with Server(flood_exempt="127.0.0.1/32", sendq="16m") as s:
        slow = Client(s, "sloth", rcvbuf=4096)
        sender = Client(s, "chatty")
        slow.join("#slow")
        sender.join("#slow")
        slow.drain(0.2)
        n = 24000
        pad = "z" * 300
        # ~8 MB to a client that reads nothing meanwhile: more than the kernel's
        # socket buffers hold (the send buffer grows to 4 MB), less than its SendQ.
        for i in range(0, n, 100):
            sender.sock.sendall("".join("PRIVMSG #slow :%d %s\r\n" % (j, pad)
                                        for j in range(i, i + 100)).encode())
        usable(sender)
        got = []
        deadline = time.time() + 30
        while len(got) < n and time.time() < deadline:
            slow._fill(0.5)
            for l in slow.pending:
                m = re.search(r" PRIVMSG #slow :(\d+) ", l)
                if m:
                    got.append(int(m.group(1)))
            slow.pending.clear()
        assert got == list(range(n)), "got %d lines, first wrong at %r" % (
            len(got), next((i for i, v in enumerate(got) if v != i), None))
        usable(slow)


def test_malformed_lines_ignored():
    s = S()
    c = Client(s, "malformed")
    for raw in (b"\r\n", b"\n", b"     \r\n", b":prefixonly\r\n", b":\r\n", b": \r\n",
                b"@\r\n", b"@a=b\r\n", b"@a=b :src\r\n", b"\t\r\n", b":x PRIVMSG\r\n",
                b"PRIVMSG malformed :\xff\xfe\xfd invalid utf-8\r\n",
                b"NICK \xc3\x28\r\n", b"JOIN #\xe2\x82\r\n",
                b"FOO " + b" ".join(b"p%d" % i for i in range(16)) + b"\r\n",
                b"PRIVMSG " + b" ".join(b"p%d" % i for i in range(20)) + b" :last\r\n",
                b"MODE malformed " + b"+i" * 100 + b"\r\n",
                b"PING " + b":" * 100 + b"\r\n"):
        c.send_raw(raw)
        usable(c)
    alive(s)


def test_nul_bytes():
    s = S()
    c = Client(s, "nulbytes")
    c.send_raw(b"PRIVMSG nulbytes :a\x00b\r\n")
    c.send_raw(b"\x00\x00\x00\r\n")
    c.send_raw(b"NI\x00CK x\r\n")
    try:
        c.send("PING :afternul")
        c.expect(r"PONG .*afternul|^ERROR", timeout=5)
    except (TestFailure, OSError):
        assert c.eof, "neither answered nor closed"
    alive(s)


def test_line_too_long_417():
    """A 600-byte line gets 417 ERR_INPUTTOOLONG and the connection stays usable."""
    s = S()
    c = Client(s, "longline")
    p = Client(s, "longpeer")
    c.send("PRIVMSG longpeer :" + "z" * 600)
    c.expect(r"^:irc\.test 417 longline :")
    usable(c)
    p.assert_nothing(0.3, "zzzz")
    c.send("PRIVMSG longpeer :short again")
    p.expect("short again")
    # exactly 512 bytes with CRLF is fine
    line = "PRIVMSG longpeer :"
    line += "w" * (510 - len(line))
    c.send(line)
    p.expect("PRIVMSG longpeer :w+$")
    c.quit()
    p.quit()


def test_tags_too_long_417():
    """A tag section over 4094 bytes of data gets 417; a client-tag section under it is accepted."""
    s = S()
    c = Client(s, "longtags")
    c.send("@+a=" + "t" * 9000 + " PRIVMSG longtags :tagged")
    c.expect(r"^:irc\.test 417 longtags :")
    usable(c)
    c.send("@+a=" + "t" * 4000 + " PRIVMSG longtags :tagged ok")
    c.expect("PRIVMSG longtags :tagged ok")
    c.quit()


def test_huge_line_without_newline():
    """100 KB without a newline: 417 or disconnect; the server lives on."""
    s = S()
    c = Client(s, "hugeline")
    try:
        c.send_raw(b"PRIVMSG hugeline :" + b"h" * (100 * 1024))
        c.send_raw(b"\r\n")
        c.expect(r" 417 hugeline |^ERROR", timeout=5)
    except (TestFailure, OSError):
        assert c.eof, "neither 417 nor a disconnect"
    if not c.eof:
        try:
            usable(c)
        except (TestFailure, OSError):
            assert c.eof
    alive(s)


def test_byte_at_a_time():
    """Registration, JOIN and PRIVMSG sent one byte at a time."""
    s = S()
    p = Client(s, "bytepeer")
    p.join("#bytes")
    c = Client(s)
    c.nick = "bytewise"
    for b in (b"NICK bytewise\r\nUSER bw 0 * :Byte Wise\r\n"
              b"JOIN #bytes\r\nPRIVMSG #bytes :one byte at a time\r\n"):
        c.sock.send(bytes([b]))
        time.sleep(0.002)
    c.expect(r" 001 bytewise ")
    p.expect(r"^:bytewise!\S+ PRIVMSG #bytes :one byte at a time$")
    # CR and LF split across sends, bare LF
    c.send_raw(b"PRIVMSG #bytes :split\r")
    time.sleep(0.05)
    c.send_raw(b"\nPRIVMSG #bytes :bare lf\n")
    p.expect("PRIVMSG #bytes :split$")
    p.expect("PRIVMSG #bytes :bare lf$")
    c.quit()
    p.quit()


# ---------------------------------------------------------------- fuzz

WORDS = ["NICK", "USER", "JOIN", "PART", "MODE", "TOPIC", "NAMES", "LIST", "INVITE", "KICK",
         "PRIVMSG", "NOTICE", "WHO", "WHOIS", "WHOWAS", "AWAY", "ISON", "USERHOST", "PING",
         "PONG", "PASS", "OPER", "KILL", "WALLOPS", "LUSERS", "MOTD", "VERSION", "TIME",
         "INFO", "HELP", "CAP", "TAGMSG", "FOO"]
ARGS = ["#f", "#f,#g", "0", "*", "fz1", "fz2", "fz1,fz2,fz3", "+o", "-o", "+b", "+k", "+l",
        "+ovb", "+lk", "-lk", ">1", "<5", "!*", "%tcuhnfar,42", ":", ":x", ":\x01ACTION",
        "-", "+", "+i", "+B", "+w", "999999999999999999999", "-1", "%", "@", "!", "&x",
        "#" + "c" * 300, "n" * 100, "*!*@*", "a!b@c", "\x01", "\x02\x03\x0f", "é", "\xff"]


def fuzz_line(rng):
    k = rng.random()
    if k < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 80))).replace(
            b"\n", b"").replace(b"\r", b"") + b"\r\n"
    words = [rng.choice(WORDS)] + [rng.choice(ARGS) for _ in range(rng.randrange(0, 6))]
    if rng.random() < 0.1:
        words.insert(0, ":" + rng.choice(ARGS))
    if rng.random() < 0.05:
        words.insert(0, "@" + rng.choice(["a=b", "+x=\\:\\s", "=;=", ";;", "a" * 50]))
    if rng.random() < 0.1:
        words[rng.randrange(len(words))] *= rng.randrange(2, 40)
    return " ".join(words).encode("utf-8", "surrogateescape") + b"\r\n"


def test_fuzz_2000_lines():
    """2000 random lines from 4 clients; the server still answers PING afterwards."""
    s = X()
    seed = int(os.environ.get("FUZZ_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    nicks = ["fz1", "fz2", "fz3", "fz4"]

    def connect(i):
        c = Client(s)
        c.nick = nicks[i]
        if i < 3:
            c.send("NICK %s" % nicks[i])
            c.send("USER f 0 * :fuzz")
        c.sock.setblocking(False)
        return c

    clients = [connect(i) for i in range(4)]
    sent = 0
    while sent < 2000:
        i = rng.randrange(4)
        c = clients[i]
        batch = b"".join(fuzz_line(rng) for _ in range(20))
        try:
            c.sock.sendall(batch)
        except (BlockingIOError, OSError):
            pass
        sent += 20
        for x in clients:
            try:
                while x.sock.recv(65536):
                    pass
            except (BlockingIOError, OSError):
                pass
        # replace a client the server dropped
        try:
            if c.sock.recv(1, socket.MSG_PEEK) == b"":
                c.close()
                clients[i] = connect(i)
        except (BlockingIOError, OSError):
            pass
    for c in clients:
        c.close()
    if not s.alive():
        raise TestFailure("server died during fuzz (FUZZ_SEED=%d)\n%s" % (seed, s.log_tail()))
    alive(s)


def test_still_alive():
    for sh in (S, X):
        if sh.server is not None:
            alive(sh())


if __name__ == "__main__":
    run_tests(globals())

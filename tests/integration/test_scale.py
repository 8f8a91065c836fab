#!/usr/bin/env python3
"""Scale: 10,000 clients connected and registered at once, in little memory each (issue 4); a
channel of 200 relays one message to 199 others; all quit. The daemon must hold it on this
2-core machine."""

import errno
import os
import re
import resource
import selectors
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Server, SkipTest, run_tests  # noqa: E402

N = int(os.environ.get("SCALE_CLIENTS", "10000"))
CHAN = 200
BATCH = 250


class Conn:
    __slots__ = ("sock", "nick", "buf", "out", "registered", "lines", "closed")

    def __init__(self, sock, nick):
        self.sock = sock
        self.nick = nick
        self.buf = b""
        self.out = b""
        self.registered = False
        self.lines = []
        self.closed = False


def raise_nofile(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need if hard == resource.RLIM_INFINITY else min(hard, max(soft, need))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Swarm:
    def __init__(self, server):
        self.server = server
        self.sel = selectors.DefaultSelector()
        self.conns = []

    def connect(self, nick):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex((self.server.host, self.server.port))
        if err not in (0, errno.EINPROGRESS):
            raise OSError(err, os.strerror(err))
        c = Conn(s, nick)
        c.out = ("NICK %s\r\nUSER u 0 * :scale\r\n" % nick).encode()
        self.conns.append(c)
        self.sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
        return c

    def queue(self, c, line):
        if c.closed:
            return
        c.out += line.encode() + b"\r\n"
        self.sel.modify(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)

    def pump(self, timeout, until, on_line):
        """Run the loop until until() is true or timeout; on_line(c, line) per line."""
        deadline = time.time() + timeout
        while not until():
            left = deadline - time.time()
            if left <= 0:
                return False
            for key, ev in self.sel.select(min(left, 0.5)):
                c = key.data
                if ev & selectors.EVENT_WRITE and c.out:
                    try:
                        k = c.sock.send(c.out)
                        c.out = c.out[k:]
                    except BlockingIOError:
                        pass
                    except OSError:
                        self.drop(c)
                        continue
                    if not c.out:
                        self.sel.modify(c.sock, selectors.EVENT_READ, c)
                if ev & selectors.EVENT_READ:
                    try:
                        data = c.sock.recv(65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        self.drop(c)
                        continue
                    c.buf += data
                    while b"\n" in c.buf:
                        raw, c.buf = c.buf.split(b"\n", 1)
                        line = raw.rstrip(b"\r").decode("utf-8", "replace")
                        if line.startswith("PING"):
                            self.queue(c, "PONG" + line[4:])
                        on_line(c, line)
        return True

    def drop(self, c):
        if not c.closed:
            c.closed = True
            try:
                self.sel.unregister(c.sock)
            except (KeyError, ValueError):
                pass
            c.sock.close()

    def close(self):
        for c in self.conns:
            self.drop(c)
        self.sel.close()


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1))


def sanitized(pid):
    """An AddressSanitizer build: its redzones and shadow memory make RSS no measure."""
    with open("/proc/%d/maps" % pid) as f:
        return "libasan" in f.read()


def test_10000_clients():
    have = raise_nofile(N + 500)
    if have < N + 100:
        raise SkipTest("RLIMIT_NOFILE %d < %d" % (have, N + 100))
    # the daemon inherits our raised limit
    with Server(max_clients=N + 100, max_per_ip=0, ping_interval=600,
                register_timeout=600) as s:
        sw = Swarm(s)
        rss0 = rss_kib(s.proc.pid)
        t0 = time.time()
        state = {"reg": 0, "errors": []}

        def on_line(c, line):
            if not c.registered and re.match(r"^:\S+ 001 ", line):
                c.registered = True
                state["reg"] += 1
            elif re.match(r"^:\S+ (4\d\d|5\d\d) ", line) or line.startswith("ERROR"):
                state["errors"].append((c.nick, line))

        try:
            for i in range(0, N, BATCH):
                for j in range(i, min(N, i + BATCH)):
                    sw.connect("sc%d" % j)
                target = min(N, i + BATCH)
                sw.pump(30, lambda: state["reg"] >= target or state["errors"], on_line)
                assert not state["errors"], state["errors"][:5]
                assert state["reg"] == target, "%d of %d registered after %.1fs" % (
                    state["reg"], target, time.time() - t0)
                assert s.alive()
            t_reg = time.time() - t0
            print("# %d clients registered in %.1fs" % (N, t_reg), flush=True)
            assert all(not c.closed for c in sw.conns)
            per_client = (rss_kib(s.proc.pid) - rss0) * 1024 // N
            print("# %d bytes of RSS per registered client" % per_client, flush=True)
            if N >= 5000 and not sanitized(s.proc.pid):   # few clients: noise, not memory
                # Issue 4: compact client state, about 950 bytes here. The target itself
                # (half of InspIRCd's 2.1 KiB) is measured side by side by bench/run-compare;
                # this bound leaves room for allocator and huge-page noise and still catches
                # a per-client buffer or bufferevent coming back.
                assert per_client <= 1536, "%d bytes of RSS per idle client" % per_client

            # a channel of CHAN members
            members = sw.conns[:CHAN]
            joined = set()

            def on_join(c, line):
                if re.match(r"^:\S+ 366 \S+ #scale ", line):
                    joined.add(c.nick)
            for c in members:
                sw.queue(c, "JOIN #scale")
            assert sw.pump(60, lambda: len(joined) == CHAN, on_join), \
                "%d of %d joined" % (len(joined), CHAN)

            got = set()

            def on_msg(c, line):
                if line.endswith(" PRIVMSG #scale :hello everyone"):
                    got.add(c.nick)
            sw.queue(members[0], "PRIVMSG #scale :hello everyone")
            sw.pump(30, lambda: len(got) >= CHAN - 1, on_msg)
            assert len(got) == CHAN - 1 and members[0].nick not in got, \
                "%d of %d got the message" % (len(got), CHAN - 1)

            # a fresh client still gets served quickly
            c = Client(s, "latecomer")
            c.send("LUSERS")
            c.expect(r" 251 latecomer ")
            m = c.expect_numeric(265)
            if len(m.params) > 2:
                assert int(m.params[1]) >= N + 1, m.raw
            print("# %s" % m.raw, flush=True)
            c.quit()

            # everybody quits
            for c in sw.conns:
                sw.queue(c, "QUIT :done")
            sw.pump(60, lambda: all(c.closed for c in sw.conns), lambda c, l: None)
            left = sum(1 for c in sw.conns if not c.closed)
            assert left == 0, "%d connections not closed after QUIT" % left
            print("# total %.1fs" % (time.time() - t0), flush=True)
        finally:
            sw.close()


if __name__ == "__main__":
    run_tests(globals())

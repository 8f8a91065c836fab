"""
ircharness.py: start the built agentircd on loopback with a temporary config and
drive it with raw socket clients; a tiny TAP runner for the test_*.py files.
Python 3 standard library only.
"""

import atexit
import collections
import os
import re
import select
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Under AddressSanitizer everything is ~3x slower: scale the waits that wait
# for something to happen (not the ones that wait for nothing to happen).
SLOW = float(os.environ.get("IRC_TIMEOUT_SCALE", "1"))


def daemon_path():
    path = os.environ.get("AGENTIRCD")
    if path:
        return path
    for cand in (os.path.join(REPO, "build", "ircd", "agentircd"),
                 os.path.join(REPO, "ircd", "agentircd")):
        if os.access(cand, os.X_OK):
            return cand
    return os.path.join(REPO, "build", "ircd", "agentircd")


def hash_password(pw):
    """pw as agentircd --hash-password hashes it, for a config's password keys."""
    r = subprocess.run([daemon_path(), "--hash-password"], input=(pw + "\n").encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    if r.returncode != 0:
        raise TestFailure("--hash-password: %r" % r.stderr)
    h = r.stdout.decode().strip().splitlines()[-1].strip()
    if not (h.startswith("$y$") or h.startswith("$6$")):
        raise TestFailure("--hash-password gave no yescrypt or SHA-512 hash: %r" % h)
    return h


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, timeout=10, host="127.0.0.1"):
    """The harness waits for the first (plain) listener only: wait for another one too
    (host: another loopback address, "::1")."""
    deadline = time.time() + timeout * SLOW
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


class TestFailure(AssertionError):
    pass


class ServerCrash(AssertionError):
    pass


# ---------------------------------------------------------------- parsing

Msg = collections.namedtuple("Msg", "tags source command params raw")


def _unescape_tag(v):
    out = []
    i = 0
    while i < len(v):
        c = v[i]
        if c == "\\" and i + 1 < len(v):
            n = v[i + 1]
            out.append({":": ";", "s": " ", "\\": "\\", "r": "\r",
                        "n": "\n"}.get(n, n))
            i += 2
            continue
        if c != "\\":
            out.append(c)
        i += 1
    return "".join(out)


def parse(line):
    """Parse one IRC line (without CRLF) into Msg(tags, source, command, params, raw)."""
    raw = line
    tags = {}
    source = None
    rest = line
    if rest.startswith("@"):
        t, _, rest = rest[1:].partition(" ")
        for item in t.split(";"):
            if not item:
                continue
            k, eq, v = item.partition("=")
            tags[k] = _unescape_tag(v) if eq else ""
        rest = rest.lstrip(" ")
    if rest.startswith(":"):
        source, _, rest = rest[1:].partition(" ")
        rest = rest.lstrip(" ")
    params = []
    command = ""
    if rest:
        if " :" in (" " + rest):
            head, _, trailing = (" " + rest).partition(" :")
            words = head.split()
            has_trailing = True
        else:
            words = rest.split()
            trailing = None
            has_trailing = False
        if words:
            command = words[0].upper()
            params = words[1:]
        if has_trailing:
            params.append(trailing)
    return Msg(tags, source, command, params, raw)


def nick_of(source):
    return (source or "").split("!", 1)[0]


# ---------------------------------------------------------------- server

class Server:
    """One agentircd process with its own temporary directory and config.

    Keyword arguments become [server] keys (underscores turn into dashes),
    e.g. Server(ping_interval=2, max_channels=3, flood_exempt="127.0.0.1/32").
    config_extra is appended verbatim (operator sections, ...).
    motd: text of the MOTD file, or None for no MOTD.
    """

    live = []   # every started, not yet stopped Server (checked by run_tests)

    def __init__(self, config_extra="", motd="Welcome to the test network.\nSecond line.",
                 start=True, **server_opts):
        self.dir = tempfile.mkdtemp(prefix="agentircd-test-")
        self.name = "irc.test"
        self.network = "TestNet"
        self.host = "127.0.0.1"
        self.port = free_port()
        self.conf = os.path.join(self.dir, "agentircd.conf")
        self.log = os.path.join(self.dir, "agentircd.log")
        self.proc = None
        self.expect_signal = None
        self.binary = daemon_path()
        opts = {
            "ping-interval": 60,
            "ping-timeout": 30,
            "register-timeout": 30,
            # TN-10's wait for the rest of a paste (700 ms) would slow every
            # exchange; the tests of TN-10 set it (paste_window=700).
            "paste-window": 0,
        }
        for k, v in server_opts.items():
            opts[k.replace("_", "-")] = v
        lines = ["# written by ircharness.py", "[server]",
                 "name = %s" % self.name, "network = %s" % self.network]
        if motd is not None:
            with open(os.path.join(self.dir, "motd.txt"), "w") as f:
                f.write(motd + "\n")
            lines.append("motd = motd.txt")
        for k, v in opts.items():
            if v is None:
                continue
            lines.append("%s = %s" % (k, v))
        lines += ["", "[listen]", "address = %s:%d" % (self.host, self.port), ""]
        self.config_text = "\n".join(lines) + "\n" + config_extra + "\n"
        if os.environ.get("IRCHARNESS_NGIRCD"):
            # Only to shake out the harness against a known-good server.
            self.binary = "/usr/sbin/ngircd"
            self.config_text = ("[Global]\nName = irc.test\nNetwork = TestNet\n"
                                "Ports = %d\nListen = 127.0.0.1\nPidFile = %s/pid\n"
                                "MotdFile = %s/motd.txt\n[Limits]\nPingTimeout = %s\n"
                                "MaxConnectionsIP = 0\n[Options]\nIdent = no\nPAM = no\n"
                                "DNS = no\n" % (self.port, self.dir, self.dir,
                                                opts["ping-timeout"]))
        with open(self.conf, "w") as f:
            f.write(self.config_text)
        if start:
            self.start()

    # -- process control

    def start(self, timeout=10):
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "abort_on_error=0:detect_leaks=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        self.logf = open(self.log, "ab")
        self.expect_signal = None
        argv = [self.binary, "-f", self.conf]
        if os.environ.get("IRCHARNESS_NGIRCD"):
            argv = [self.binary, "-n", "-f", self.conf]
        self.proc = subprocess.Popen(argv,
                                     stdin=subprocess.DEVNULL, stdout=self.logf,
                                     stderr=self.logf, cwd=self.dir, env=env,
                                     pass_fds=getattr(self, "pass_fds", ()))
        if self not in Server.live:
            Server.live.append(self)
        deadline = time.time() + timeout * SLOW
        while True:
            if self.proc.poll() is not None:
                raise ServerCrash("agentircd exited with %s during startup\n%s"
                                  % (self.proc.returncode, self.log_tail()))
            try:
                s = socket.create_connection((self.host, self.port), timeout=1)
                s.close()
                return self
            except OSError:
                pass
            if time.time() > deadline:
                self.proc.kill()
                self.proc.wait()
                raise ServerCrash("agentircd did not accept on %s:%d within %ss\n%s"
                                  % (self.host, self.port, timeout, self.log_tail()))
            time.sleep(0.05)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_text(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_tail(self, n=40):
        lines = self.log_text().splitlines()[-n:]
        return "daemon log tail (%s):\n" % self.log + "\n".join("  | " + l for l in lines)

    def sanitizer_errors(self):
        text = self.log_text()
        return [l for l in text.splitlines()
                if "AddressSanitizer" in l or "LeakSanitizer" in l
                or "runtime error:" in l]

    def check(self):
        """Raise ServerCrash if the daemon died (unexpectedly) or a sanitizer spoke."""
        if self.proc is not None and self.expect_signal is None and \
                self.proc.poll() is not None:
            raise ServerCrash("agentircd died (exit status %s)\n%s"
                              % (self.proc.returncode, self.log_tail()))
        errs = self.sanitizer_errors()
        if errs:
            raise ServerCrash("sanitizer report in daemon log:\n%s\n%s"
                              % ("\n".join(errs[:5]), self.log_tail(60)))

    def stop(self, timeout=15):
        """SIGTERM, wait, SIGKILL; raise ServerCrash if it crashed at any time."""
        if self.proc is None:
            return
        if self in Server.live:
            Server.live.remove(self)
        died_before = self.proc.poll() is not None and self.expect_signal is None
        if self.proc.poll() is None:
            self.expect_signal = signal.SIGTERM
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout * SLOW)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self.logf.close()
                raise ServerCrash("agentircd did not exit %ss after SIGTERM\n%s"
                                  % (timeout, self.log_tail()))
        self.logf.close()
        rc = self.proc.returncode
        proc, sig = self.proc, self.expect_signal
        self.proc = None
        errs = self.sanitizer_errors()
        if died_before:
            raise ServerCrash("agentircd died during the test (exit status %s)\n%s"
                              % (rc, self.log_tail()))
        if errs:
            raise ServerCrash("sanitizer report in daemon log:\n%s\n%s"
                              % ("\n".join(errs[:5]), self.log_tail(60)))
        if rc != 0 and not (sig is not None and rc == -sig):
            raise ServerCrash("agentircd exited with status %s after %s\n%s"
                              % (rc, signal.Signals(sig).name if sig else "nothing",
                                 self.log_tail()))
        if not os.environ.get("IRC_KEEP_TMP") and not getattr(self, "keep_dir", False):
            shutil.rmtree(self.dir, ignore_errors=True)

    def reap(self):
        """After a crash: make sure the process is gone; keep the directory."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def kill9(self):
        if self.proc is None or self.proc.poll() is not None:
            self.check()
            return
        self.expect_signal = signal.SIGKILL
        self.proc.kill()
        self.proc.wait()
        self.logf.close()
        self.proc = None
        if self in Server.live:
            Server.live.remove(self)

    def restart(self):
        # The directory holds the config and the log the next start() needs.
        keep, self.keep_dir = getattr(self, "keep_dir", False), True
        try:
            self.stop()
        finally:
            self.keep_dir = keep
        self.start()
        return self

    def __enter__(self):
        return self

    def __exit__(self, typ, val, tb):
        try:
            self.stop()
        except ServerCrash as crash:
            if val is not None:
                raise crash from val
            raise
        return False

    def client(self, nick=None, **kw):
        return Client(self, nick, **kw)


# ---------------------------------------------------------------- client

def readable(socks, timeout):
    """The sockets of socks that are readable within timeout (poll: no FD_SETSIZE limit)."""
    p = select.poll()
    byfd = {}
    for sk in socks:
        byfd[sk.fileno()] = sk
        p.register(sk, select.POLLIN)
    return [byfd[fd] for fd, _ in p.poll(max(0, timeout) * 1000)]


class PersistentServer(Server):
    """A server on the database file db whose directory survives stop(), so that
    stop() or kill9() then start() reuse the same config and database."""

    dirs = []

    def __init__(self, db, **kw):
        self.db = db
        kw.setdefault("database", db)
        Server.__init__(self, **kw)
        self.keep_dir = True
        PersistentServer.dirs.append(self.dir)


def pids_matching(pattern):
    """Pids of the processes whose command line matches pattern (pgrep -f)."""
    r = subprocess.run(["pgrep", "-f", pattern], stdout=subprocess.PIPE, text=True)
    return [int(p) for p in r.stdout.split()]


def remove_at_exit(tmp, token=None, before=None):
    """At exit, after run_tests has stopped every daemon: call before, kill the agent
    processes a daemon left behind (their command line holds token: this run's own
    only), then remove tmp and every PersistentServer's directory, unless
    IRC_KEEP_TMP is set."""
    def cleanup():
        if before is not None:
            before()
        for pid in pids_matching(token) if token else []:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if os.environ.get("IRC_KEEP_TMP"):
            return
        for d in PersistentServer.dirs + [tmp]:
            shutil.rmtree(d, ignore_errors=True)
    atexit.register(cleanup)


class Client:
    """A raw IRC connection. If nick is given, registers right away. port: another
    listener of server's (a TLS one, with tls) than its first."""

    def __init__(self, server, nick=None, tls=False, user=None, realname=None,
                 autopong=True, rcvbuf=None, maxseg=None, connect_timeout=5, port=None):
        self.server = server
        self.autopong = autopong
        self.nick = nick
        self.lines = []          # every line received, for diagnostics
        self.pending = collections.deque()   # received, not yet consumed by expect
        self.buf = b""
        self.eof = False
        self.last = None          # Msg of the last line expect() matched
        self.welcome = []
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if maxseg:
            # A small MSS, as over a real network: on loopback (MSS 64 KiB) the
            # server's socket would buffer megabytes for a reader that reads nothing.
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, maxseg)
        s.settimeout(connect_timeout * SLOW)
        s.connect((server.host, port or server.port))
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            s = ctx.wrap_socket(s, server_hostname=server.host)
        self.sock = s
        if nick:
            self.register(nick, user=user, realname=realname)

    # -- sending

    def send(self, line):
        if isinstance(line, str):
            line = line.encode("utf-8")
        self.send_raw(line + b"\r\n")

    def send_raw(self, data):
        self.sock.settimeout(10 * SLOW)
        self.sock.sendall(data)

    # -- receiving

    def _fill(self, timeout):
        """Read what arrives within timeout; False on timeout or EOF."""
        if self.eof:
            return False
        if not isinstance(self.sock, ssl.SSLSocket) or not self.sock.pending():
            if not readable([self.sock], timeout):
                return False
        try:
            self.sock.settimeout(0.5)
            data = self.sock.recv(65536)
        except (socket.timeout, ssl.SSLWantReadError):
            return False
        except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
            data = b""
        if not data:
            self.eof = True
            return False
        self.buf += data
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            # The echo agent's mark that its quoted @names name nobody (MN-1).
            line = line.replace("\u200b", "")
            self.lines.append(line)
            self.pending.append(line)
            if self.autopong:
                m = parse(line)
                if m.command == "PING":
                    try:
                        self.send("PONG :%s" % (m.params[-1] if m.params else ""))
                    except OSError:
                        pass
        return True

    def _next(self, deadline):
        while not self.pending:
            left = deadline - time.time()
            if left <= 0 or self.eof:
                return None
            self._fill(left)
        return self.pending.popleft()

    def _fail(self, what, timeout):
        last = self.lines[-20:]
        msg = "%s: %s not seen within %.1fs%s\nlast lines received by %s:\n%s" % (
            self.nick or "client", what, timeout,
            " (connection closed)" if self.eof else "",
            self.nick or "client", "\n".join("  < " + l for l in last))
        if not self.server.alive():
            msg += "\nSERVER IS DEAD\n" + self.server.log_tail()
        raise TestFailure(msg)

    def expect(self, regex, timeout=5):
        """Consume lines in order until one matches regex (re.search); return the match."""
        rx = re.compile(regex) if isinstance(regex, str) else regex
        deadline = time.time() + timeout * SLOW
        while True:
            line = self._next(deadline)
            if line is None:
                self._fail("/%s/" % rx.pattern, timeout)
            m = rx.search(line)
            if m:
                self.last = parse(line)
                return m

    def expect_msg(self, regex, timeout=5):
        """Like expect, returns the parsed Msg."""
        self.expect(regex, timeout)
        return self.last

    def expect_numeric(self, num, timeout=5, params=None):
        """Wait for numeric num (int or str, or a '|' alternation); return its Msg.
        params: optional regex matched against the parameters after <client>."""
        num = str(num)
        if isinstance(num, str) and num.isdigit() and len(num) < 3:
            num = num.zfill(3)
        rx = r"^(?:@\S+ +)?:\S+ +(?:%s)(?: |$)" % num
        if params is not None:
            rx += r"\S+ +" + params
        return self.expect_msg(rx, timeout)

    def collect_until(self, regex, timeout=5):
        """All lines up to and including the first one matching regex."""
        rx = re.compile(regex) if isinstance(regex, str) else regex
        deadline = time.time() + timeout * SLOW
        out = []
        while True:
            line = self._next(deadline)
            if line is None:
                self._fail("/%s/ (after %d lines)" % (rx.pattern, len(out)), timeout)
            out.append(line)
            if rx.search(line):
                self.last = parse(line)
                return out

    def drain(self, timeout=0.2):
        """Consume and return whatever arrives within timeout."""
        deadline = time.time() + timeout
        while time.time() < deadline and self._fill(deadline - time.time()):
            pass
        out = list(self.pending)
        self.pending.clear()
        return out

    def assert_nothing(self, timeout=0.5, regex=None):
        """No line (matching regex) arrives within timeout (pending ones count)."""
        rx = re.compile(regex) if isinstance(regex, str) and regex else regex
        deadline = time.time() + timeout
        while True:
            while self.pending:
                line = self.pending.popleft()
                if rx is None or rx.search(line):
                    if rx is None and parse(line).command in ("PING", "PONG") \
                            and self.autopong:
                        continue
                    raise TestFailure("%s: unexpected line: %r" % (self.nick, line))
            left = deadline - time.time()
            if left <= 0 or self.eof:
                return
            self._fill(left)

    def sync(self, token=None, timeout=5):
        """Round-trip a PING so everything the server sent before has arrived;
        returns the lines received before the PONG."""
        token = token or "sync%d" % int(time.time() * 1000)
        self.send("PING :%s" % token)
        return self.collect_until(r"PONG .*%s" % re.escape(token), timeout)[:-1]

    def closed(self, timeout=5):
        """Wait for EOF; return True if the server closed within timeout."""
        deadline = time.time() + timeout * SLOW
        while not self.eof and time.time() < deadline:
            self._fill(deadline - time.time())
        return self.eof

    def expect_closed(self, timeout=5):
        if not self.closed(timeout):
            self._fail("EOF", timeout)

    def register(self, nick, user=None, realname=None, password=None, timeout=10):
        """NICK/USER and wait for 001 .. end of MOTD; returns the lines."""
        self.nick = nick
        if password is not None:
            self.send("PASS :%s" % password)
        self.send("NICK %s" % nick)
        self.send("USER %s 0 * :%s" % (user or re.sub(r"[^a-z0-9]", "", nick.lower())[:9] or "u",
                                        realname or "Real " + nick))
        lines = self.collect_until(r"^(?:@\S+ )?:\S+ (?:001|43[1-6]|46[1-5]) ", timeout)
        if self.last.command != "001":
            raise TestFailure("registration of %s failed: %s" % (nick, self.last.raw))
        lines += self.collect_until(r"^(?:@\S+ )?:\S+ (?:376|422) ", timeout)
        self.welcome = lines
        return lines

    def join(self, channel, key=None):
        """JOIN and wait for the end of NAMES; returns the lines."""
        self.send("JOIN %s%s" % (channel, " " + key if key else ""))
        return self.collect_until(r" 366 \S+ %s " % re.escape(channel)
                                  + r"|^:\S+ (?:4\d\d) ", timeout=5)

    def quit(self, msg="bye"):
        try:
            self.send("QUIT :%s" % msg)
            self.closed(3)
        except OSError:
            pass
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    @property
    def source_rx(self):
        """Regex for ':nick!user@host' of this client."""
        return r":%s!\S+@\S+" % re.escape(self.nick)


# ---------------------------------------------------------------- TAP runner

class FakePeer:
    """A listening socket that plays a linked server (InspIRCd's spanning-tree
    protocol, LK) line by line, as a hostile one might: the test writes exactly
    what it sends. agentircd connects to it (a [link] to 127.0.0.1:sport)."""

    def __init__(self):
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(1)
        self.sport = self.ls.getsockname()[1]
        self.sock = None
        self.buf = b""

    def accept(self, timeout=10):
        self.ls.settimeout(timeout * SLOW)
        self.sock, _ = self.ls.accept()
        self.sock.settimeout(10 * SLOW)

    def send(self, line):
        self.sock.sendall((line if isinstance(line, bytes) else line.encode())
                          + b"\r\n")

    def expect(self, regex, timeout=10):
        deadline = time.time() + timeout * SLOW
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                line = line.rstrip(b"\r").decode("utf-8", "replace")
                if re.search(regex, line):
                    return line
            if time.time() > deadline:
                raise TestFailure("the fake peer never got %r" % regex)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise TestFailure("link closed before %r" % regex)
            self.buf += data

    def handshake(self, name="irc.fake.test", sid="9FK", recvpass="ai-pass",
                  capab=("CAPAB CAPABILITIES :CASEMAPPING=rfc1459",), accept=True):
        """Accept agentircd's connection (unless accepted already) and play the
        peer's part up to SERVER: CAPAB (the lines of capab), then SERVER as name
        with SID sid once agentircd's SERVER (with recvpass) is seen."""
        if accept:
            self.accept()
        self.expect(r"^CAPAB END$")
        for l in ("CAPAB START 1205",) + tuple(capab) + ("CAPAB END",):
            self.send(l)
        self.expect(r"^SERVER irc\.test %s 0 \w{3} :" % re.escape(recvpass))
        self.send("SERVER %s fake-pass 0 %s :a fake server" % (name, sid))

    def close(self):
        if self.sock is not None:
            self.sock.close()
        self.ls.close()

    def closed(self, timeout=10):
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return True
            if not data:
                return True
            self.buf += data
        return False


def run_tests(ns):
    """Run the test_* functions of a module namespace in file order; print TAP."""
    tests = [(v.__code__.co_firstlineno, k, v) for k, v in ns.items()
             if k.startswith("test_") and callable(v) and hasattr(v, "__code__")]
    tests.sort()
    only = os.environ.get("TEST_ONLY")
    total = len(tests) + 1
    print("1..%d" % total, flush=True)
    failed = 0
    n = 0
    crashed = []
    for _, name, fn in tests:
        n += 1
        if only and only not in name:
            print("ok %d - %s # SKIP TEST_ONLY" % (n, name), flush=True)
            continue
        t0 = time.time()
        try:
            fn()
            for s in list(Server.live):
                try:
                    s.check()
                except ServerCrash:
                    # report it once, here; a Shared server starts afresh
                    Server.live.remove(s)
                    crashed.append(s)
                    s.reap()
                    raise
            print("ok %d - %s (%.1fs)" % (n, name, time.time() - t0), flush=True)
        except SkipTest as e:
            print("ok %d - %s # SKIP %s" % (n, name, e), flush=True)
        except Exception:
            failed += 1
            print("not ok %d - %s (%.1fs)" % (n, name, time.time() - t0), flush=True)
            doc = (fn.__doc__ or "").strip()
            if doc:
                print("# " + doc.replace("\n", "\n# "))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
            sys.stdout.flush()
    # The shared servers must exit cleanly too.
    n += 1
    problems = []
    hook = ns.get("teardown_module")
    if hook:
        try:
            hook()
        except Exception:
            problems.append(traceback.format_exc())
    for s in list(Server.live):
        try:
            s.stop()
        except Exception:
            problems.append(traceback.format_exc())
    for s in crashed:
        problems.append("agentircd in %s crashed during the tests (see above)" % s.dir)
    if problems:
        failed += 1
        print("not ok %d - daemons exit cleanly" % n)
        for p in problems:
            for line in p.splitlines():
                print("# " + line)
    else:
        print("ok %d - daemons exit cleanly" % n)
    sys.stdout.flush()
    sys.exit(1 if failed else 0)


class SkipTest(Exception):
    pass


# ---------------------------------------------------------------- helpers

class Shared:
    """A lazily started server shared by the tests of one module."""

    def __init__(self, **kw):
        self.kw = kw
        self.server = None
        self.count = 0

    def __call__(self):
        if self.server is None or not self.server.alive() \
                or self.server not in Server.live:
            if self.server is not None and self.server in Server.live:
                self.server.check()   # raises: the crash shows in this test
            self.server = Server(**self.kw)
        return self.server

    def nick(self, base):
        """A nick unique within this shared server."""
        self.count += 1
        return "%s%d" % (base, self.count)

    def chan(self, base="#c"):
        self.count += 1
        return "%s%d" % (base, self.count)


def op_and_user(shared, base):
    """On the Shared server shared: a channel made by base+"o" (its operator), which
    base+"u" joins too. Returns (server, op, user, channel)."""
    s = shared()
    a = Client(s, shared.nick(base + "o"))
    b = Client(s, shared.nick(base + "u"))
    ch = shared.chan("#" + base)
    a.join(ch)
    b.join(ch)
    a.expect(r"JOIN :?%s" % ch)
    return s, a, b, ch


def set_mode(c, ch, modes, echo=None, echo_rx=None):
    """MODE ch modes, and its echo to c: the same change, or echo (the change as the
    server completes it), or one matching the regex echo_rx."""
    c.send("MODE %s %s" % (ch, modes))
    rx = echo_rx or re.escape(echo or modes).replace(r"\ ", " :?")
    return c.expect(r"^:%s!\S+ MODE %s %s$" % (re.escape(c.nick), re.escape(ch), rx))


def pump(clients, seconds):
    """Read all clients for a while (answering PINGs); lines stay pending for expect."""
    deadline = time.time() + seconds
    while True:
        left = deadline - time.time()
        socks = {c.sock: c for c in clients if not c.eof}
        if left <= 0 or not socks:
            return
        for sk in readable(list(socks), left):
            socks[sk]._fill(0)


def isupport(lines):
    """Merge the 005 tokens of registration lines into a dict."""
    out = {}
    for l in lines:
        m = parse(l)
        if m.command == "005":
            for tok in m.params[1:-1]:
                k, eq, v = tok.partition("=")
                out[k] = v if eq else None
    return out


def numerics(lines, num):
    return [parse(l) for l in lines if parse(l).command == str(num)]

#!/usr/bin/env python3
"""TLS listeners: --mkcert, handshakes with TLS 1.2 and 1.3, session resumption and TCP_NODELAY
on plain and TLS sockets (issue 4), TLS 1.1 refused, a client that never finishes the
handshake (others unaffected, dropped by the registration timeout), garbage on the TLS port,
200 concurrent TLS clients, WHOIS 671, abrupt TLS disconnects."""

import collections
import ctypes
import hashlib
import os
import re
import shutil
import signal
import socket
import ssl
import stat
import subprocess
import sys
import tempfile
import time
import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning)   # TLS 1.0/1.1 on purpose
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (SLOW, Client, Server, SkipTest, daemon_path, free_port,  # noqa: E402
                        parse, pump, readable, run_tests, wait_port)

TMP = tempfile.mkdtemp(prefix="agentircd-tls-")


def teardown_module():
    shutil.rmtree(TMP, ignore_errors=True)


class TLSClient(Client):
    """Client on a chosen port over TLS, with optional protocol bounds and cipher string,
    or a context of its own and a session to offer (resumption)."""

    def __init__(self, server, nick=None, port=None, minv=None, maxv=None, ciphers=None,
                 connect_timeout=5, ctx=None, session=None):
        self.server = server
        self.autopong = True
        self.nick = nick
        self.lines = []
        self.pending = collections.deque()
        self.buf = b""
        self.eof = False
        self.last = None
        self.welcome = []
        s = socket.create_connection((server.host, port or server.tls_port),
                                     timeout=connect_timeout * SLOW)
        if ctx is None:
            ctx = client_ctx()
        if ciphers:
            ctx.set_ciphers(ciphers)
        if minv:
            ctx.minimum_version = minv
        if maxv:
            ctx.maximum_version = maxv
        try:
            self.sock = ctx.wrap_socket(s, server_hostname="irc.test", session=session)
        except Exception:
            s.close()
            raise
        if nick:
            self.register(nick)


def client_ctx():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


_certs = {}


def mkcert():
    """agentircd --mkcert: cert and key paths and the printed SHA-256 fingerprint."""
    if not _certs:
        d = os.path.join(TMP, "mkcert")
        r = subprocess.run([daemon_path(), "--mkcert", d], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        assert r.returncode == 0, r.stderr
        out = r.stdout.decode()
        cert = re.search(r"tls-cert = (\S+)", out).group(1)
        key = re.search(r"tls-key = (\S+)", out).group(1)
        fp = re.search(r"fingerprint: ([0-9A-Fa-f:]+)", out).group(1)
        _certs.update(cert=cert, key=key, fp=fp.replace(":", "").lower(), out=out)
    return _certs


class TLSShared:
    """A lazily started server with a TLS listener on 127.0.0.1:tls_port."""

    def __init__(self, **kw):
        self.kw = kw
        self.srv = None

    def __call__(self):
        if self.srv is None or not self.srv.alive() or self.srv not in Server.live:
            if self.srv is not None and self.srv in Server.live:
                self.srv.check()
            c = mkcert()
            port = free_port()
            extra = "[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n" % (
                port, c["cert"], c["key"])
            self.srv = Server(config_extra=extra, **self.kw)
            self.srv.tls_port = port
            wait_port(port)
        return self.srv


S = TLSShared(flood_exempt="127.0.0.1/32")
QUICK = TLSShared(flood_exempt="127.0.0.1/32", register_timeout=2)
_n = [0]


def nick(base):
    _n[0] += 1
    return "%s%d" % (base, _n[0])


# ---------------------------------------------------------------- tests

def test_mkcert_fingerprint_matches():
    """--mkcert prints the SHA-256 fingerprint of the certificate the listener serves."""
    srv = S()
    c = TLSClient(srv)
    der = c.sock.getpeercert(binary_form=True)
    assert hashlib.sha256(der).hexdigest() == mkcert()["fp"], mkcert()["out"]
    c.close()


def test_mkcert_keeps_an_existing_certificate():
    """--mkcert into a directory that has its certificate already changes nothing and
    says why (clients may have pinned it), exit 73; the first run's files stay."""
    c = mkcert()
    d = os.path.dirname(c["cert"])
    before = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
    r = subprocess.run([daemon_path(), "--mkcert", d], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 73 or b"exists already" not in r.stderr or r.stdout:
        raise AssertionError("a second --mkcert: exit %d, %r, %r"
                             % (r.returncode, r.stdout, r.stderr))
    after = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
    assert after == before, "the certificate or key changed"


def test_l7_mkcert_symlink_and_mode():
    """SEC-5, L7: as the review did, --mkcert into a directory whose agentircd.key is a
    file of mode 0666, and into one whose agentircd.key is a symlink to another file:
    the key is 0600 and the certificate 0644 either way, the symlink is replaced by a
    file (its target untouched), and no temporary file is left."""
    d1 = os.path.join(TMP, "mk1")
    os.makedirs(d1)
    with open(os.path.join(d1, "agentircd.key"), "w") as f:
        f.write("old\n")
    os.chmod(os.path.join(d1, "agentircd.key"), 0o666)
    d2, d3 = os.path.join(TMP, "mk2"), os.path.join(TMP, "mk3")
    os.makedirs(d2)
    os.makedirs(d3)
    victim = os.path.join(d2, "victim.txt")
    with open(victim, "w") as f:
        f.write("precious\n")
    os.symlink(os.path.join("..", "mk2", "victim.txt"), os.path.join(d3, "agentircd.key"))
    for d in (d1, d3):
        r = subprocess.run([daemon_path(), "--mkcert", d], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        assert r.returncode == 0, r.stderr
        key = os.path.join(d, "agentircd.key")
        st = os.lstat(key)
        assert stat.S_ISREG(st.st_mode), "%s is not a plain file" % key
        assert stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
        with open(key) as f:
            assert "PRIVATE KEY" in f.read()
        crt = os.lstat(os.path.join(d, "agentircd.crt"))
        assert stat.S_IMODE(crt.st_mode) == 0o644, oct(crt.st_mode)
        assert sorted(os.listdir(d)) == ["agentircd.crt", "agentircd.key"], os.listdir(d)
    with open(victim) as f:
        assert f.read() == "precious\n", "the symlink's target was written"


def test_tls12_handshake():
    srv = S()
    c = TLSClient(srv, nick=nick("t12"), minv=ssl.TLSVersion.TLSv1_2,
                  maxv=ssl.TLSVersion.TLSv1_2)
    assert c.sock.version() == "TLSv1.2", c.sock.version()
    name = c.sock.cipher()[0]
    assert re.search(r"GCM|CHACHA20", name), "weak cipher negotiated: %s" % name
    c.send("PRIVMSG %s :over tls 1.2" % c.nick)
    c.expect(r"PRIVMSG %s :over tls 1.2" % c.nick)
    c.quit()


CBC = ("ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES256-SHA:"
       "ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA256")


def test_i1_tls12_cbc_refused():
    """SEC-7, I1: a TLS 1.2 client that offers only CBC suites (ECDHE-*-AES128-SHA and
    the like, which the review saw accepted) gets no handshake: TLS 1.2 is AEAD only."""
    srv = S()
    try:
        c = TLSClient(srv, minv=ssl.TLSVersion.TLSv1_2, maxv=ssl.TLSVersion.TLSv1_2,
                      ciphers=CBC)
    except (ssl.SSLError, OSError):
        return
    name = c.sock.cipher()[0]
    c.close()
    raise AssertionError("I1: a CBC-only TLS 1.2 client got %s" % name)


def test_i1_tls_ciphers_configurable():
    """SEC-7: [listen] tls-ciphers sets TLS 1.2's list: one that allows CBC takes such a
    client; -n refuses a list that names no cipher, saying which listener."""
    c = mkcert()
    port = free_port()
    extra = ("[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n"
             "tls-ciphers = ECDHE+AES\n" % (port, c["cert"], c["key"]))
    with Server(config_extra=extra) as srv:
        srv.tls_port = port
        wait_port(port)
        cl = TLSClient(srv, minv=ssl.TLSVersion.TLSv1_2, maxv=ssl.TLSVersion.TLSv1_2,
                       ciphers=CBC)
        assert "SHA" in cl.sock.cipher()[0], cl.sock.cipher()
        cl.close()
    bad = os.path.join(TMP, "badciphers.conf")
    with open(bad, "w") as f:
        f.write("[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n"
                "tls-ciphers = NO-SUCH-CIPHER\n" % (port, c["cert"], c["key"]))
    r = subprocess.run([daemon_path(), "-n", "-f", bad], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=20)
    err = r.stderr.decode()
    assert r.returncode == 78 and "badciphers.conf:1:" in err and \
        "names no cipher" in err, (r.returncode, err)


def test_tls13_handshake():
    srv = S()
    c = TLSClient(srv, nick=nick("t13"), minv=ssl.TLSVersion.TLSv1_3)
    assert c.sock.version() == "TLSv1.3", c.sock.version()
    c.send("PRIVMSG %s :over tls 1.3" % c.nick)
    c.expect(r"PRIVMSG %s :over tls 1.3" % c.nick)
    c.quit()


def test_session_resumption():
    """Issue 4: a returning client resumes its TLS session instead of a full handshake, with
    TLS 1.3 (a ticket, sent after the handshake) and TLS 1.2 (a ticket or the session id), and
    the resumed connection works like any other. One stateless TLS 1.3 ticket serves twice."""
    srv = S()
    for version in (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_2):
        ctx = client_ctx()
        ctx.minimum_version = ctx.maximum_version = version
        first = TLSClient(srv, nick=nick("res"), ctx=ctx)
        # 001 has been read, so a TLS 1.3 ticket sent after the handshake has been too.
        assert not first.sock.session_reused
        sess = first.sock.session
        assert sess is not None, "%s: no session" % version
        if version == ssl.TLSVersion.TLSv1_3:
            assert sess.has_ticket, "TLS 1.3: no session ticket from the server"
        proto = first.sock.version()
        first.quit()
        for _ in range(2):
            again = TLSClient(srv, nick=nick("res"), ctx=ctx, session=sess)
            assert again.sock.session_reused, "%s: the session was not resumed" % proto
            assert again.sock.version() == proto, again.sock.version()
            again.send("PRIVMSG %s :resumed" % again.nick)
            again.expect(r"PRIVMSG %s :resumed" % again.nick)
            again.quit()
            if version == ssl.TLSVersion.TLSv1_2:
                break
    assert srv.alive()


def daemon_socket(pid, port, peer_port):
    """A copy, in this process, of the daemon's socket on local port `port` connected to our
    `peer_port` (pidfd_getfd(2): the daemon is our child, so we may). None if the kernel or
    the rules of this machine do not allow it."""
    want = ":%04X" % port, ":%04X" % peer_port
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for row in f.readlines()[1:]:
                col = row.split()
                if col[1].endswith(want[0]) and col[2].endswith(want[1]):
                    inode = col[9]
    assert inode is not None, "no daemon socket from :%d to :%d" % (port, peer_port)
    fdnum = None
    for name in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, name)) == "socket:[%s]" % inode:
                fdnum = int(name)
        except OSError:
            pass
    assert fdnum is not None, "socket inode %s not among the daemon's descriptors" % inode
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        pidfd = os.pidfd_open(pid)
    except OSError as e:
        ctypes.set_errno(e.errno)
        return None
    try:
        fd = libc.syscall(438, pidfd, fdnum, 0)    # SYS_pidfd_getfd on x86_64 and arm64
    finally:
        os.close(pidfd)
    if fd < 0:
        return None
    return socket.socket(fileno=fd)


def test_tcp_nodelay():
    """Issue 4: every client socket, plain or TLS, has TCP_NODELAY, so a short line is never
    held back waiting for the ACK of the one before (Nagle): the daemon's own sockets, read
    back through pidfd_getfd."""
    srv = S()
    plain = Client(srv, nick("nd"))
    tls = TLSClient(srv, nick=nick("nd"))
    for c, port in ((plain, srv.port), (tls, srv.tls_port)):
        s = daemon_socket(srv.proc.pid, port, c.sock.getsockname()[1])
        if s is None:
            raise SkipTest("pidfd_getfd refused: %s" % os.strerror(ctypes.get_errno()))
        try:
            assert s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0, \
                "no TCP_NODELAY on the daemon's socket to :%d" % port
        finally:
            s.close()
    plain.quit()
    tls.quit()


def test_tls11_refused():
    srv = S()
    try:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    except (ValueError, ssl.SSLError) as e:
        raise SkipTest("this Python/OpenSSL cannot speak TLS 1.1: %s" % e)
    try:
        c = TLSClient(srv, minv=ssl.TLSVersion.TLSv1_1, maxv=ssl.TLSVersion.TLSv1_1,
                      ciphers="DEFAULT:@SECLEVEL=0")
    except ssl.SSLError as e:
        if "NO_PROTOCOLS_AVAILABLE" in str(e) or "no protocols available" in str(e):
            raise SkipTest("this OpenSSL cannot offer TLS 1.1: %s" % e)
        assert re.search(r"PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL|protocol version", str(e),
                         re.I), "unexpected handshake error: %s" % e
    except (ConnectionResetError, BrokenPipeError):
        pass
    else:
        version = c.sock.version()
        c.close()
        raise AssertionError("TLS 1.1 handshake accepted (%s)" % version)
    # TLS 1.0 too
    try:
        c = TLSClient(srv, minv=ssl.TLSVersion.TLSv1, maxv=ssl.TLSVersion.TLSv1,
                      ciphers="DEFAULT:@SECLEVEL=0")
    except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
        pass
    else:
        c.close()
        raise AssertionError("TLS 1.0 handshake accepted")
    assert srv.alive()
    TLSClient(srv, nick=nick("after11")).quit()


def test_stalled_handshake_does_not_block_and_is_dropped():
    """Clients stuck before or inside the handshake, or after it without registering, do not
    hold up others and are dropped by register-timeout = 2."""
    srv = QUICK()
    silent = socket.create_connection((srv.host, srv.tls_port))
    partial = socket.create_connection((srv.host, srv.tls_port))
    # a TLS record header promising 512 bytes of handshake, then only a few
    partial.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
    trickle = socket.create_connection((srv.host, srv.tls_port))
    trickle_hello = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(400)
    handshaken = TLSClient(srv)
    t0 = time.time()
    ok = TLSClient(srv, nick=nick("fine"))
    ok.send("PRIVMSG %s :still served" % ok.nick)
    ok.expect(r"PRIVMSG %s :still served" % ok.nick)
    assert time.time() - t0 < 3 * SLOW, "a stalled handshake slowed others down"
    plain = Client(srv, nick=nick("plainok"))
    deadline = time.time() + 15 * SLOW
    pending = {"silent": silent, "partial": partial, "trickle": trickle}
    sent = 0
    while pending and time.time() < deadline:
        if "trickle" in pending and sent < len(trickle_hello):
            # one byte every 0.1 s: activity must not extend the deadline
            try:
                trickle.send(trickle_hello[sent:sent + 1])
                sent += 1
            except OSError:
                pass
        for name, sk in list(pending.items()):
            if readable([sk], 0.1):
                try:
                    data = sk.recv(4096)
                except (ConnectionResetError, OSError):
                    data = b""
                if not data:
                    del pending[name]
                    sk.close()
    assert not pending, "not dropped within 15 s: %s" % sorted(pending)
    assert time.time() - t0 >= 1.0, "dropped before the registration timeout"
    assert handshaken.closed(10), "registered-never TLS client kept open"
    # the registered ones survive the timeout
    ok.sync()
    plain.sync()
    ok.quit()
    plain.quit()


def test_garbage_on_tls_port():
    """Plain text, HTTP, random bytes and a truncated hello on the TLS port: dropped, no crash."""
    srv = S()
    payloads = [b"NICK plaintext\r\nUSER a 0 * :b\r\n",
                b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                os.urandom(3000),
                b"\x16\x03\x03\x00\x05\x01\x00\x00\x01\x00",
                b"\x16\x03\x01\xff\xff" + os.urandom(200),
                b"\x80\x2e\x01\x00\x02\x00\x15\x00\x00\x00\x10" + os.urandom(37)]   # SSLv2
    socks = []
    for p in payloads:
        sk = socket.create_connection((srv.host, srv.tls_port))
        try:
            sk.sendall(p)
        except OSError:
            pass
        socks.append(sk)
    deadline = time.time() + 10 * SLOW
    for sk in socks:
        closed = False
        while time.time() < deadline:
            if readable([sk], 0.2):
                try:
                    data = sk.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    closed = True
                    break
                assert b"001" not in data and b"Welcome" not in data, data
        sk.close()
        assert closed, "garbage connection not closed"
    assert srv.alive()
    c = TLSClient(srv, nick=nick("aftergarbage"))
    c.quit()


def test_many_concurrent_tls_clients():
    """200 TLS clients register at once and each gets a message from another."""
    srv = S()
    n = int(os.environ.get("TLS_CLIENTS", "200"))
    clients = []
    t0 = time.time()
    for i in range(n):
        c = TLSClient(srv)
        c.nick = "m%03d_%d" % (i, _n[0])
        c.send("NICK %s" % c.nick)
        c.send("USER u%d 0 * :many" % i)
        clients.append(c)
    want = set(range(n))
    deadline = time.time() + 60 * SLOW
    while want and time.time() < deadline:
        pump([clients[i] for i in want], 0.5)
        for i in list(want):
            if any(re.search(r" (376|422) ", l) for l in clients[i].pending):
                want.discard(i)
    assert not want, "%d of %d TLS clients did not register in %.0fs; first: %r" % (
        len(want), n, time.time() - t0, clients[min(want)].lines[-5:])
    for c in clients:
        c.pending.clear()
    for i, c in enumerate(clients):
        c.send("PRIVMSG %s :ring %d" % (clients[(i + 1) % n].nick, i))
    got = set()
    deadline = time.time() + 60 * SLOW
    while len(got) < n and time.time() < deadline:
        pump([clients[i] for i in range(n) if i not in got], 0.5)
        for i in range(n):
            if i not in got and any("PRIVMSG %s :ring %d" % (clients[i].nick, (i - 1) % n)
                                    in l for l in clients[i].pending):
                got.add(i)
    assert len(got) == n, "%d of %d TLS clients got their message" % (len(got), n)
    for c in clients:
        try:
            c.send("QUIT :done")
        except OSError:
            pass
    pump(clients, 1)
    for c in clients:
        c.close()
    assert srv.alive()


def test_whois_671():
    srv = S()
    t = TLSClient(srv, nick=nick("secure"))
    p = Client(srv, nick=nick("clear"))
    p.send("WHOIS %s" % t.nick)
    lines = p.collect_until(r" 318 ")
    assert any(parse(l).command == "671" and parse(l).params[1] == t.nick for l in lines), lines
    t.send("WHOIS %s" % p.nick)
    lines = t.collect_until(r" 318 ")
    assert not any(parse(l).command == "671" for l in lines), lines
    t.quit()
    p.quit()


def test_abrupt_tls_disconnect_and_bursts():
    """A burst of lines in one TLS write arrives in order; a TLS client that vanishes without
    close_notify is seen to quit."""
    srv = S()
    t = TLSClient(srv, nick=nick("burst"))
    w = Client(srv, nick=nick("watch"))
    ch = "#tlsburst"
    t.join(ch)
    w.join(ch)
    t.sync()
    n = 100
    t.send_raw(b"".join(b"PRIVMSG %s :line %d\r\n" % (ch.encode(), i) for i in range(n)))
    for i in range(n):
        w.expect(r"PRIVMSG %s :line %d$" % (ch, i))
    # close the TCP socket under the TLS layer: no close_notify
    raw = socket.socket(fileno=os.dup(t.sock.fileno()))
    raw.shutdown(socket.SHUT_RDWR)
    raw.close()
    t.sock.close()
    w.expect(r"%s QUIT " % t.source_rx, timeout=10)
    assert srv.alive()
    w.quit()


def test_certificate_reload_under_load():
    """SIGHUP with a new certificate: new handshakes get it, connected TLS clients keep
    talking; a broken certificate on reload keeps the old one serving."""
    d = os.path.join(TMP, "reload")
    os.makedirs(d, exist_ok=True)
    cert, key = os.path.join(d, "c.pem"), os.path.join(d, "k.pem")
    shutil.copy(mkcert()["cert"], cert)
    shutil.copy(mkcert()["key"], key)
    port = free_port()
    srv = Server(config_extra="[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\n"
                 "tls-key = %s\n" % (port, cert, key), flood_exempt="127.0.0.1/32")
    srv.tls_port = port
    try:
        wait_port(port)
        old = [TLSClient(srv, nick=nick("load")) for _ in range(10)]
        for c in old:
            c.join("#load")
        fp_old = hashlib.sha256(old[0].sock.getpeercert(binary_form=True)).hexdigest()
        # a new certificate in place, then SIGHUP while the clients talk
        d2 = os.path.join(TMP, "mkcert2")
        r = subprocess.run([daemon_path(), "--mkcert", d2], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        assert r.returncode == 0, r.stderr
        new_cert = re.search(r"tls-cert = (\S+)", r.stdout.decode()).group(1)
        new_key = re.search(r"tls-key = (\S+)", r.stdout.decode()).group(1)
        shutil.copy(new_cert, cert)
        shutil.copy(new_key, key)
        for i, c in enumerate(old):
            c.send("PRIVMSG #load :before %d" % i)
        srv.proc.send_signal(signal.SIGHUP)
        for i, c in enumerate(old):
            c.send("PRIVMSG #load :after %d" % i)
        for i, c in enumerate(old):
            want = set(range(len(old))) - {i}
            while want:
                m = c.expect_msg(r"PRIVMSG #load :after \d+$", timeout=10)
                want.discard(int(m.params[-1].split()[-1]))
        deadline = time.time() + 10 * SLOW
        while True:
            fresh = TLSClient(srv)
            fp = hashlib.sha256(fresh.sock.getpeercert(binary_form=True)).hexdigest()
            fresh.close()
            if fp != fp_old or time.time() > deadline:
                break
            time.sleep(0.1)
        assert fp != fp_old, "new certificate not served after SIGHUP"
        # a broken certificate: the reload keeps the working one
        with open(cert, "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n")
        srv.proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        c = TLSClient(srv, nick=nick("afterbad"))
        fp2 = hashlib.sha256(c.sock.getpeercert(binary_form=True)).hexdigest()
        assert fp2 == fp, "certificate changed after a broken reload"
        c.quit()
        for c in old:
            c.sync()
            c.quit()
        assert srv.alive()
    finally:
        srv.stop()


if __name__ == "__main__":
    run_tests(globals())

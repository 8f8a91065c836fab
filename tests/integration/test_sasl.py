#!/usr/bin/env python3
"""Accounts: SASL PLAIN (success, failure, abort, chunking, 904 past the total, 905, 907, 908,
a 6000-byte password), SASL EXTERNAL by
TLS client certificate fingerprint, PASS account:password, the per-address delay after failed
logins, login required on a non-loopback listener (SEC-1) unless it is open, the config check
refusing a plain non-loopback listener, and no secret in the daemon's log (SEC-2)."""

import base64
import collections
import itertools
import os
import re
import select
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (SLOW, Client, Server, ServerCrash, daemon_path,  # noqa: E402
                        free_port, parse, run_tests, wait_port)

EX_CONFIG = 78
TMP = tempfile.mkdtemp(prefix="agentircd-sasl-")

PASSWORD = "Correct-Horse-9"
WRONG = "Wrong-Battery-7"
# dave's password makes "\0dave\0<pw>" exactly 300 bytes: 400 base64 characters.
LONG_PASSWORD = "L0ng" * 73 + "xy"
assert len("\0dave\0" + LONG_PASSWORD) == 300
# erin's is past crypt(3)'s 511 bytes, and near the most SASL takes (issue 27).
HUGE_PASSWORD = "".join(chr(33 + i % 90) for i in range(6000))


def teardown_module():
    shutil.rmtree(TMP, ignore_errors=True)


# ---------------------------------------------------------------- certificates, TLS client

def openssl(*args):
    r = subprocess.run(["openssl"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout.decode()


def make_cert(name, cn):
    cert = os.path.join(TMP, name + ".pem")
    key = os.path.join(TMP, name + ".key")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=" + cn)
    return cert, key


def fingerprint(cert):
    out = openssl("x509", "-noout", "-fingerprint", "-sha256", "-in", cert)
    return out.strip().split("=", 1)[1].replace(":", "").lower()


_ips = itertools.count(20)


def fresh_ip():
    """A loopback source address no earlier test used. Since SEC-6 all of 127.0.0.0/8 is one
    block with one failed-login count: a test that needs a clean count takes
    S.failing(); ::1 is another block."""
    n = next(_ips)
    return "127.0.%d.%d" % (n // 250, n % 250 + 2)


class TLSClient(Client):
    """Client with a chosen port, TLS with an optional client certificate, a source address."""

    def __init__(self, server, nick=None, port=None, tls=True, cert=None, key=None,
                 source=None, connect_timeout=5):
        self.server = server
        self.autopong = True
        self.nick = nick
        self.lines = []
        self.pending = collections.deque()
        self.buf = b""
        self.eof = False
        self.last = None
        self.welcome = []
        host = "::1" if source == "::1" else server.host
        s = socket.socket(socket.AF_INET6 if host == "::1" else socket.AF_INET,
                          socket.SOCK_STREAM)
        if source:
            s.bind((source, 0))
        s.settimeout(connect_timeout * SLOW)
        s.connect((host, port or server.port))
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            if cert:
                ctx.load_cert_chain(cert, key)
            s = ctx.wrap_socket(s, server_hostname="irc.test")
        self.sock = s
        if nick:
            self.register(nick)


# ---------------------------------------------------------------- the server

class Setup:
    """The server of these tests. SEC-6 counts failed logins per address block, and all
    of loopback is one: a test that fails logins takes S.failing(), a server of its own,
    and the next S() starts another, so that no test waits for another's failures."""

    def __init__(self):
        self.srv = None
        self.dirty = False
        self.logs = []      # the logs of the servers retired, for the secrets check

    def failing(self):
        self.dirty = True
        srv = self()
        self.dirty = True
        return srv

    def __call__(self):
        if self.srv is not None and self.srv.alive() and not self.dirty:
            return self.srv
        if self.srv is not None and self.srv.alive():
            self.logs.append(self.srv.log_text())
            self.srv.stop()
        self.dirty = False
        # A port free on 127.0.0.1 may be taken on 0.0.0.0: try others.
        for attempt in range(5):
            try:
                return self._start()
            except ServerCrash:
                log = self.srv.log_text()
                if self.srv in Server.live:
                    Server.live.remove(self.srv)
                if "Address already in use" not in log or attempt == 4:
                    raise

    def _start(self):
        if not hasattr(self, "server_cert"):
            self.server_cert, self.server_key = make_cert("server", "irc.test")
            self.bob_cert, self.bob_key = make_cert("bob", "bob")
            self.other_cert, self.other_key = make_cert("other", "mallory")
            self.bob_fp = fingerprint(self.bob_cert)
            self.h = hash_password(PASSWORD)
            self.hl = hash_password(LONG_PASSWORD)
            self.hx = hash_password(HUGE_PASSWORD)
        h, hl = self.h, self.hl
        self.tls_port = free_port()
        self.remote_port = free_port()
        self.open_port = free_port()
        self.v6_port = free_port()
        # bob's fingerprint as openssl prints it (colons, upper case) must work too
        bob_fp_conf = ":".join(self.bob_fp[i:i + 2] for i in range(0, 64, 2)).upper()
        extra = """
[listen]
address = 127.0.0.1:{tls}
tls-cert = {cert}
tls-key = {key}

[listen]
address = 0.0.0.0:{remote}
tls-cert = {cert}
tls-key = {key}

[listen]
address = 0.0.0.0:{open}
open = yes

[listen]
address = [::1]:{v6}

[account alice]
password = {h}

[account bob]
certfp = {fp}

[account dave]
password = {hl}

[account erin]
password = {hx}
""".format(hx=self.hx, tls=self.tls_port, remote=self.remote_port, open=self.open_port, v6=self.v6_port,
           cert=self.server_cert, key=self.server_key, h=h, hl=hl, fp=bob_fp_conf)
        # -d (debug logging) through a wrapper: the secrets check sees the most log
        wrapper = os.path.join(TMP, "agentircd-debug")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec "%s" -d "$@"\n' % daemon_path())
        os.chmod(wrapper, 0o755)
        self.srv = Server(config_extra=extra, flood_exempt="127.0.0.0/8", start=False)
        self.srv.binary = wrapper
        self.srv.start()
        for port in (self.tls_port, self.remote_port, self.open_port):
            wait_port(port)
        wait_port(self.v6_port, host="::1")
        return self.srv


from ircharness import hash_password  # noqa: E402


S = Setup()
_nicks = itertools.count(1)


def nick(base):
    return "%s%d" % (base, next(_nicks))


# ---------------------------------------------------------------- helpers

def b64(s):
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


def plain(user, pw, authzid=""):
    return b64("%s\0%s\0%s" % (authzid, user, pw))


def start_sasl(c, mech="PLAIN"):
    """CAP LS 302, REQ sasl, AUTHENTICATE mech; waits for 'AUTHENTICATE +'."""
    c.send("CAP LS 302")
    c.expect(r" CAP \* LS ")
    c.send("CAP REQ :sasl")
    c.expect(r" CAP \* ACK :sasl")
    c.send("AUTHENTICATE %s" % mech)
    c.expect(r"^(?:@\S+ )?(?::\S+ )?AUTHENTICATE \+$")


def fail_once(srv, user):
    """One wrong SASL PLAIN password for user, from a loopback address of its own."""
    c = TLSClient(srv, tls=False, source=fresh_ip())
    start_sasl(c)
    c.send("AUTHENTICATE " + plain(user, WRONG))
    c.expect_numeric(904)
    c.close()


def finish_registration(c, n):
    c.send("CAP END")
    return c.register(n)


def whois_account(observer, target):
    observer.send("WHOIS %s" % target)
    lines = observer.collect_until(r" 318 ")
    acct = [parse(l).params[2] for l in lines if parse(l).command == "330"]
    tls = any(parse(l).command == "671" for l in lines)
    return (acct[0] if acct else None), tls


def pong_delay(c):
    """Seconds a PING takes to be answered."""
    t0 = time.time()
    c.sync(timeout=40)
    return time.time() - t0


# ---------------------------------------------------------------- SASL PLAIN

def test_plain_success():
    srv = S()
    c = Client(srv)
    c.send("CAP LS 302")
    m = c.expect_msg(r" CAP \* LS ")
    assert re.search(r"(^| )sasl=PLAIN,EXTERNAL( |$)", m.params[-1]), m.raw
    c.send("CAP REQ :sasl")
    c.expect(r" CAP \* ACK :sasl")
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"^(?:@\S+ )?(?::\S+ )?AUTHENTICATE \+$")
    c.send("AUTHENTICATE " + plain("alice", PASSWORD))
    m = c.expect_numeric(900)
    assert m.params[2] == "alice", m.raw
    c.expect_numeric(903)
    n = nick("pl")
    finish_registration(c, n)
    assert whois_account(c, n) == ("alice", False)
    # 907 on a second attempt
    c.send("AUTHENTICATE PLAIN")
    c.expect_numeric(907)
    c.quit()


def test_sec6_hashing_stalls_nobody():
    """SEC-6: passwords are checked off the event loop. Eight logins' hashes (tens of
    milliseconds each, on purpose) are checked one after another, and meanwhile another
    client's PING is answered before the last of them is done (in the loop, it waited
    for them all). Lines a client pipelines after its AUTHENTICATE wait for the answer:
    CAP END and the registration run after 903, so the login holds."""
    srv = S()
    obs = Client(srv, nick("obs"))
    cs = []
    for _ in range(8):
        c = Client(srv)
        start_sasl(c)
        cs.append(c)
    for c in cs:
        c.sock.sendall(("AUTHENTICATE %s\r\n" % plain("alice", PASSWORD)).encode())
    obs.sock.sendall(b"PING :during\r\n")
    socks = {c.sock: c for c in cs}
    socks[obs.sock] = obs
    bufs = {sk: b"" for sk in socks}
    order, t0 = [], time.time()
    while len(order) < 9 and time.time() - t0 < 30 * SLOW:
        for sk in select.select(list(socks), [], [], 1)[0]:
            data = sk.recv(65536)
            if not data:
                raise AssertionError("a connection closed: %r" % bufs[sk])
            bufs[sk] += data
            for what, rx in (("pong", rb"PONG \S+ :during"), ("903", rb" 903 ")):
                if re.search(rx, bufs[sk]) and (what, sk) not in order:
                    order.append((what, sk))
    kinds = [w for w, _ in order]
    assert kinds.count("903") == 8 and "pong" in kinds, order
    assert kinds.index("pong") < len(kinds) - 1, \
        "SEC-6: a PING waited for every password check: %r" % kinds
    for c in cs + [obs]:
        c.close()

    # Pipelined: AUTHENTICATE, CAP END, NICK and USER in one write.
    c = Client(srv)
    start_sasl(c)
    n = nick("pipe")
    c.sock.sendall(("AUTHENTICATE %s\r\nCAP END\r\nNICK %s\r\nUSER u 0 * :r\r\n"
                    % (plain("alice", PASSWORD), n)).encode())
    c.expect_numeric(903)
    c.expect_numeric(1)
    c.nick = n
    assert whois_account(c, n) == ("alice", False)
    c.quit()


def test_plain_authzid_and_case():
    """authzid equal to authcid is fine; another authzid is refused."""
    srv = S.failing()
    c = TLSClient(srv, tls=False, source=fresh_ip())
    start_sasl(c)
    c.send("AUTHENTICATE " + plain("alice", PASSWORD, authzid="alice"))
    c.expect_numeric(903)
    c.close()
    # account names are case-insensitive; 900 names the account as configured
    c = TLSClient(srv, tls=False, source=fresh_ip())
    start_sasl(c)
    c.send("AUTHENTICATE " + plain("ALICE", PASSWORD))
    m = c.expect_numeric(900)
    assert m.params[2] == "alice", m.raw
    c.expect_numeric(903)
    c.close()
    c = TLSClient(srv, tls=False, source=fresh_ip())
    start_sasl(c)
    c.send("AUTHENTICATE " + plain("alice", PASSWORD, authzid="dave"))
    c.expect_numeric(904)
    c.close()


def test_plain_failure_then_success_with_delay():
    """A wrong password: 904, the next line waits ~2 s, the next failure longer; then the
    right one works. Another address block (::1, SEC-6) is not slowed down."""
    srv = S.failing()
    ip = fresh_ip()
    c = TLSClient(srv, tls=False, source=ip)
    start_sasl(c)
    c.send("AUTHENTICATE " + plain("alice", WRONG))
    c.expect_numeric(904)
    d1 = pong_delay(c)
    assert d1 >= 1.7, "no delay after a failed login (%.2fs)" % d1
    # SEC-6: another block (IPv6 loopback) is not slowed down.
    other = TLSClient(srv, tls=False, source="::1", port=S.v6_port)
    d = pong_delay(other)
    assert d < 1.5, "another address block delayed %.2fs" % d
    other.close()
    # a second failure from that address costs more (a new connection, same address)
    c2 = TLSClient(srv, tls=False, source=ip)
    start_sasl(c2)
    c2.send("AUTHENTICATE " + plain("nosuchuser", WRONG))
    c2.expect_numeric(904)
    d2 = pong_delay(c2)
    assert d2 >= 3.5 and d2 > d1 + 1, "delay not growing: %.2fs then %.2fs" % (d1, d2)
    c2.close()
    # retry on the first connection
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"AUTHENTICATE \+$")
    c.send("AUTHENTICATE " + plain("alice", PASSWORD))
    c.expect_numeric(900)
    c.expect_numeric(903)
    finish_registration(c, nick("retry"))
    c.quit()


def test_failed_login_delay_covers_new_connections():
    """The delay is per address: after a failure, a guess on a NEW connection from that
    address is not answered at once (else parallel connections make guessing fast)."""
    srv = S.failing()
    ip = fresh_ip()
    c = TLSClient(srv, tls=False, source=ip)
    start_sasl(c)
    c.send("AUTHENTICATE " + plain("alice", WRONG))
    c.expect_numeric(904)
    c.close()
    g = TLSClient(srv, tls=False, source=ip)
    g.send("CAP REQ :sasl")
    g.send("AUTHENTICATE PLAIN")
    g.send("AUTHENTICATE " + plain("alice", WRONG))
    t0 = time.time()
    g.expect_numeric(904, timeout=60)
    took = time.time() - t0
    g.close()
    assert took >= 1.5, ("a wrong guess on a new connection from an address that just "
                         "failed was answered in %.2fs" % took)


def test_m6_rotating_loopback_addresses():
    """SEC-6, M6: as the review did, guesses from ever new loopback addresses: after a
    failure from one 127.x address, a login from another one (the right password even)
    is held about 2 s, as all of 127.0.0.0/8 is one block."""
    srv = S.failing()
    fail_once(srv, "nosuchuser")
    g = TLSClient(srv, tls=False, source=fresh_ip())
    t0 = time.time()
    start_sasl(g)
    g.send("AUTHENTICATE " + plain("alice", PASSWORD))
    g.expect_numeric(903, timeout=30)
    took = time.time() - t0
    assert took >= 1.5, "M6: another loopback address logged in at once (%.2fs)" % took
    g.close()


def test_m6_account_slowed_from_any_block():
    """SEC-6, M6: failures against one account slow tries of it from anywhere: after a
    wrong password for alice from loopback, a try for alice from ::1 (another block, not
    slowed itself) is refused at once, unchecked, with a NOTICE that says to wait; a try
    of another name from ::1 is not; once the wait is over, alice logs in from ::1."""
    srv = S.failing()
    fail_once(srv, "alice")
    v = TLSClient(srv, tls=False, source="::1", port=S.v6_port)
    start_sasl(v)
    v.send("AUTHENTICATE " + plain("alice", PASSWORD))
    m = v.expect_msg(r" NOTICE \S+ :Too many failed logins; try again in \d+ s", 5)
    v.expect_numeric(904)
    # Another name from ::1 is tried (and fails) at once: only alice waits.
    t0 = time.time()
    d = TLSClient(srv, tls=False, source="::1", port=S.v6_port)
    start_sasl(d)
    d.send("AUTHENTICATE " + plain("nosuchuser", WRONG))
    lines = d.collect_until(r" 904 ")
    assert time.time() - t0 < 1.5 and not any("Too many" in l for l in lines), \
        "another name was slowed: %r" % lines
    d.close()
    wait = int(re.search(r"in (\d+) s", m.params[-1]).group(1))
    time.sleep(wait + 0.2)
    v.send("AUTHENTICATE PLAIN")
    v.expect(r"AUTHENTICATE \+$")
    v.send("AUTHENTICATE " + plain("alice", PASSWORD))
    v.expect_numeric(903, timeout=10)
    v.close()


def test_plain_malformed():
    """Bad base64, missing NULs or one NUL too many: 904, no crash. (Each on a server of
    its own: each is a failure, and the next try from loopback would wait for it, SEC-6.)"""
    # The last: the right password, then a NUL and more: no PLAIN message (RFC 4616).
    for payload in ("!!!notbase64", b64("alice" + PASSWORD), b64("\0alice"), "QQ=",
                    b64("\0alice\0%s\0junk" % PASSWORD)):
        srv = S.failing()
        c = TLSClient(srv, tls=False, source=fresh_ip())
        start_sasl(c)
        c.send("AUTHENTICATE " + payload)
        c.expect_numeric(904)
        c.close()
    assert srv.alive()


def test_plain_abort_906():
    srv = S()
    c = Client(srv)
    start_sasl(c)
    c.send("AUTHENTICATE *")
    c.expect_numeric(906)
    # a new exchange can start after the abort
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"AUTHENTICATE \+$")
    c.send("AUTHENTICATE " + plain("alice", PASSWORD))
    c.expect_numeric(903)
    c.close()


def test_registration_mid_sasl_906():
    """CAP END with NICK/USER during an exchange: 906, then registration."""
    srv = S()
    c = Client(srv)
    start_sasl(c)
    n = nick("mid")
    c.send("NICK %s" % n)
    c.send("USER u 0 * :r")
    c.send("CAP END")
    lines = c.collect_until(r" 001 ")
    assert any(parse(l).command == "906" for l in lines), lines
    c.expect_numeric(376)
    c.nick = n
    assert whois_account(c, n) == (None, False)
    c.quit()


def test_too_long_905():
    """IRCv3 sasl-3.1: an AUTHENTICATE line whose parameter is over 400 bytes is
    905 ERR_SASLTOOLONG, and ends the exchange."""
    srv = S()
    c = Client(srv)
    start_sasl(c)
    c.send("AUTHENTICATE " + "A" * 401)
    c.expect_numeric(905)
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"AUTHENTICATE \+$")
    c.send("AUTHENTICATE *")
    c.expect_numeric(906)
    c.close()


def test_too_much_in_all_904():
    """Issue 27, IRCv3 sasl-3.1: a response far beyond any password, in chunks of 400
    bytes each, is 904 ERR_SASLFAIL once it passes the limit (8192 bytes), not 905
    (which is for one line over 400 bytes); the exchange is over."""
    srv = S.failing()
    c = Client(srv)
    start_sasl(c)
    for _ in range(21):
        c.send("AUTHENTICATE " + "QUFB" * 100)
    lines = c.sync(timeout=40)
    nums = [parse(l).command for l in lines if parse(l).command.isdigit()]
    assert nums == ["904"], lines
    # over: PLAIN names a mechanism again, and is not taken for data
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"AUTHENTICATE \+$", timeout=10)
    c.send("AUTHENTICATE *")
    c.expect_numeric(906)
    c.close()


def test_chunked_400_bytes():
    """Exactly 400 bytes: more may follow, 'AUTHENTICATE +' ends it; 400 + rest works too."""
    srv = S()
    c = Client(srv)
    start_sasl(c)
    payload = plain("dave", LONG_PASSWORD)
    assert len(payload) == 400
    c.send("AUTHENTICATE " + payload)
    c.assert_nothing(0.3, r" 90\d ")
    c.send("AUTHENTICATE +")
    m = c.expect_numeric(900)
    assert m.params[2] == "dave", m.raw
    c.expect_numeric(903)
    c.close()
    c = Client(srv)
    start_sasl(c)
    payload = plain("dave", LONG_PASSWORD, authzid="dave")
    assert len(payload) > 400
    c.send("AUTHENTICATE " + payload[:400])
    c.send("AUTHENTICATE " + payload[400:])
    c.expect_numeric(903)
    c.close()


def test_long_password_6000_bytes():
    """Issue 27: a password of 6000 bytes (crypt(3) takes at most 511) hashes with
    --hash-password and logs in by SASL PLAIN in 400-byte chunks (IRCv3 sasl-3.1);
    the same with its last byte changed does not."""
    srv = S()
    c = Client(srv)
    start_sasl(c)
    payload = plain("erin", HUGE_PASSWORD)
    for i in range(0, len(payload), 400):
        c.send("AUTHENTICATE " + payload[i:i + 400])
    if len(payload) % 400 == 0:
        c.send("AUTHENTICATE +")
    m = c.expect_numeric(900)
    assert m.params[2] == "erin", m.raw
    c.expect_numeric(903)
    c.close()
    srv = S.failing()
    c = Client(srv)
    start_sasl(c)
    payload = plain("erin", HUGE_PASSWORD[:-1] + "#")
    for i in range(0, len(payload), 400):
        c.send("AUTHENTICATE " + payload[i:i + 400])
    if len(payload) % 400 == 0:
        c.send("AUTHENTICATE +")
    c.expect_numeric(904, timeout=10)
    c.close()


def test_unknown_mechanism_908():
    srv = S()
    c = Client(srv)
    c.send("CAP REQ :sasl")
    c.expect(r" ACK :sasl")
    c.send("AUTHENTICATE SCRAM-SHA-256")
    m = c.expect_numeric(908)
    assert m.params[1] == "PLAIN", m.raw      # no certificate: no EXTERNAL
    c.expect_numeric(904)
    # EXTERNAL without a client certificate is not available either
    c.send("AUTHENTICATE EXTERNAL")
    c.expect_numeric(908)
    c.expect_numeric(904)
    c.close()


# ---------------------------------------------------------------- SASL EXTERNAL

def test_external_success():
    srv = S()
    c = TLSClient(srv, port=S.tls_port, cert=S.bob_cert, key=S.bob_key)
    c.send("CAP LS 302")
    m = c.expect_msg(r" CAP \* LS ")
    assert "sasl=PLAIN,EXTERNAL" in m.params[-1], m.raw
    c.send("CAP REQ :sasl")
    c.expect(r" ACK :sasl")
    c.send("AUTHENTICATE FOO")
    m = c.expect_numeric(908)
    assert set(m.params[1].split(",")) == {"PLAIN", "EXTERNAL"}, m.raw
    c.expect_numeric(904)
    c.send("AUTHENTICATE EXTERNAL")
    c.expect(r"AUTHENTICATE \+$")
    c.send("AUTHENTICATE +")
    m = c.expect_numeric(900)
    assert m.params[2] == "bob", m.raw
    c.expect_numeric(903)
    n = nick("ext")
    finish_registration(c, n)
    assert whois_account(c, n) == ("bob", True)
    c.quit()
    # an authzid naming the account works too; another one does not
    c = TLSClient(srv, port=S.tls_port, cert=S.bob_cert, key=S.bob_key)
    start_sasl(c, "EXTERNAL")
    c.send("AUTHENTICATE " + b64("bob"))
    c.expect_numeric(903)
    c.close()
    c = TLSClient(srv, port=S.tls_port, cert=S.bob_cert, key=S.bob_key, source=fresh_ip())
    start_sasl(c, "EXTERNAL")
    c.send("AUTHENTICATE " + b64("alice"))
    c.expect_numeric(904)
    c.close()


def test_external_unknown_certificate_fails():
    srv = S.failing()
    c = TLSClient(srv, port=S.tls_port, cert=S.other_cert, key=S.other_key,
                  source=fresh_ip())
    start_sasl(c, "EXTERNAL")
    c.send("AUTHENTICATE +")
    c.expect_numeric(904)
    assert not any(" 900 " in l for l in c.lines), c.lines
    c.close()


def test_external_without_certificate_over_tls():
    srv = S.failing()
    c = TLSClient(srv, port=S.tls_port)
    c.send("CAP REQ :sasl")
    c.expect(r" ACK :sasl")
    c.send("AUTHENTICATE EXTERNAL")
    m = c.expect_numeric(908)
    assert m.params[1] == "PLAIN", m.raw
    c.expect_numeric(904)
    c.close()


# ---------------------------------------------------------------- PASS

def test_pass_success():
    srv = S()
    c = Client(srv)
    n = nick("pass")
    lines = c.register(n, password="alice:%s" % PASSWORD)
    m = [parse(l) for l in lines if parse(l).command == "900"]
    assert m and m[0].params[2] == "alice", lines
    assert whois_account(c, n) == ("alice", False)
    c.quit()


def test_pass_failure_464_disconnects():
    srv = S.failing()
    c = TLSClient(srv, tls=False, source=fresh_ip())
    c.send("PASS alice:%s" % WRONG)
    c.send("NICK %s" % nick("badpass"))
    c.send("USER u 0 * :r")
    lines = c.collect_until(r" 464 ")
    assert not any(" 001 " in l for l in lines), lines
    c.expect_closed(10)
    assert not any(" 001 " in l for l in c.lines), c.lines
    c.close()


def test_pass_without_colon_ignored_on_loopback():
    """A plain server password on a loopback listener is not an account login."""
    srv = S()
    c = Client(srv)
    n = nick("spw")
    c.register(n, password="serverpass")
    assert whois_account(c, n) == (None, False)
    c.quit()


# ---------------------------------------------------------------- SEC-1

def test_remote_listener_requires_login():
    """0.0.0.0 over TLS without login: FAIL * ACCOUNT_REQUIRED, ERROR, closed."""
    srv = S()
    c = TLSClient(srv, port=S.remote_port)
    c.send("NICK %s" % nick("anon"))
    c.send("USER u 0 * :r")
    m = c.expect_msg(r"^(?:@\S+ )?(?::\S+ )?FAIL ")
    assert m.params[:2] == ["*", "ACCOUNT_REQUIRED"], m.raw
    c.expect(r"^(?:@\S+ )?ERROR ")
    c.expect_closed()
    assert not any(" 001 " in l for l in c.lines), c.lines
    # a bare server password does not count as a login
    c = TLSClient(srv, port=S.remote_port, source=fresh_ip())
    c.send("PASS justapassword")
    c.send("NICK %s" % nick("anon"))
    c.send("USER u 0 * :r")
    c.expect_closed()
    assert not any(" 001 " in l for l in c.lines), c.lines


def test_remote_listener_with_sasl_plain():
    srv = S()
    c = TLSClient(srv, port=S.remote_port)
    start_sasl(c)
    c.send("AUTHENTICATE " + plain("alice", PASSWORD))
    c.expect_numeric(903)
    n = nick("rem")
    finish_registration(c, n)
    assert whois_account(c, n) == ("alice", True)
    c.quit()


def test_remote_listener_with_external_and_pass():
    srv = S()
    c = TLSClient(srv, port=S.remote_port, cert=S.bob_cert, key=S.bob_key)
    start_sasl(c, "EXTERNAL")
    c.send("AUTHENTICATE +")
    c.expect_numeric(903)
    finish_registration(c, nick("remx"))
    c.quit()
    c = TLSClient(srv, port=S.remote_port)
    n = nick("remp")
    c.register(n, password="alice:%s" % PASSWORD)
    assert whois_account(c, n) == ("alice", True)
    c.quit()


def test_remote_listener_mid_sasl_abort_refused():
    """Aborting SASL and ending CAP on a remote listener still needs a login."""
    srv = S()
    c = TLSClient(srv, port=S.remote_port)
    start_sasl(c)
    c.send("AUTHENTICATE *")
    c.expect_numeric(906)
    c.send("NICK %s" % nick("abort"))
    c.send("USER u 0 * :r")
    c.send("CAP END")
    c.expect(r"FAIL \* ACCOUNT_REQUIRED")
    c.expect_closed()


def test_open_listener_needs_no_login():
    srv = S()
    c = TLSClient(srv, port=S.open_port, tls=False)
    n = nick("open")
    c.register(n)
    assert whois_account(c, n) == (None, False)
    c.quit()


def test_config_check_refuses_plain_remote_listener():
    """-n: plain 0.0.0.0 without open = yes is refused (78); TLS or open = yes is fine."""
    S()
    base = "[server]\nname = irc.test\n\n[listen]\naddress = 0.0.0.0:%d\n" % free_port()
    cases = [
        (base, EX_CONFIG),
        (base + "open = yes\n", 0),
        (base + "tls-cert = %s\ntls-key = %s\n" % (S.server_cert, S.server_key), 0),
    ]
    for i, (text, want) in enumerate(cases):
        path = os.path.join(TMP, "check%d.conf" % i)
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([daemon_path(), "-n", "-f", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        assert r.returncode == want, (text, r.returncode, r.stderr)
        if want:
            assert b"0.0.0.0" in r.stderr, r.stderr


# ---------------------------------------------------------------- SEC-2 (keep last)

def test_secrets_never_logged():
    """No password, in clear or base64, appears in the daemon's log."""
    srv = S()
    # one more of each kind of login, so the log has something to say
    c = Client(srv)
    c.register(nick("logp"), password="alice:%s" % PASSWORD)
    c.quit()
    fail_once(srv, "alice")
    time.sleep(0.2)
    log = "\n".join(S.logs + [srv.log_text()])
    assert "logged in as alice" in log or "alice" in log, \
        "the log says nothing about logins: test would prove nothing\n" + log[-2000:]
    secrets = [PASSWORD, WRONG, LONG_PASSWORD, HUGE_PASSWORD[:40], plain("alice", PASSWORD),
               plain("alice", WRONG), plain("dave", LONG_PASSWORD),
               b64(PASSWORD), LONG_PASSWORD[:40]]
    for s in secrets:
        assert s not in log, "secret %r found in the log:\n%s" % (
            s, "\n".join(l for l in log.splitlines() if s in l))


if __name__ == "__main__":
    run_tests(globals())

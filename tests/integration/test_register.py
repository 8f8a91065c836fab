#!/usr/bin/env python3
"""Registration, welcome burst, nick rules, PING/PONG, timeouts, QUIT (RFC 2812 3.1, Modern IRC),
the server's password (PASS, issue 27)."""

import base64
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, Shared, TestFailure, hash_password,  # noqa: E402
                        isupport, numerics, parse, pump, run_tests)

S = Shared()


def test_welcome_001_to_004():
    """001 RPL_WELCOME .. 004 RPL_MYINFO with the right parameters."""
    s = S()
    c = Client(s)
    lines = c.register("alpha", user="alf", realname="Alpha Tester")
    m = [parse(l) for l in lines]
    byc = {x.command: x for x in m}
    for num in ("001", "002", "003", "004"):
        assert num in byc, "missing %s in %r" % (num, lines)
    assert re.match(r"^:irc\.test 001 alpha :Welcome to the TestNet IRC Network "
                    r"alpha!~?alf@\S+$", byc["001"].raw), byc["001"].raw
    assert byc["001"].source == "irc.test"
    assert byc["002"].params[0] == "alpha" and "irc.test" in byc["002"].params[-1]
    p = byc["004"].params
    assert p[0] == "alpha" and p[1] == "irc.test", p
    assert len(p) >= 5, p
    assert "i" in p[3] and "B" in p[3], "user modes in 004: %r" % p
    for ch in "CIbeiklmnostv":
        assert ch in p[4] + (p[5] if len(p) > 5 else ""), "channel mode %s in 004: %r" % (ch, p)
    order = [x.command for x in m]
    assert order.index("001") < order.index("002") < order.index("003") \
        < order.index("004") < order.index("005"), order
    c.quit()


def test_isupport_005():
    """005 RPL_ISUPPORT tokens a client needs."""
    s = S()
    c = Client(s, "beta")
    tok = isupport(c.welcome)
    for l in numerics(c.welcome, "005"):
        assert l.params[-1] in ("are supported by this server",
                                "are supported on this server"), l.raw
    assert tok.get("CASEMAPPING") == "rfc1459", tok
    assert "#" in (tok.get("CHANTYPES") or ""), tok
    assert tok.get("CHANMODES") == "Ibe,k,l,Cimnst", tok
    assert tok.get("PREFIX") == "(ov)@+", tok
    for k in ("NICKLEN", "CHANNELLEN", "TOPICLEN"):
        assert (tok.get(k) or "").isdigit() and int(tok[k]) > 8, (k, tok)
    assert "TARGMAX" in tok and "PRIVMSG:" in tok["TARGMAX"], tok
    for f in "MNU":
        assert f in (tok.get("ELIST") or ""), ("ELIST", tok)
    assert tok.get("BOT") == "B", tok
    assert tok.get("NETWORK") == "TestNet", tok
    c.quit()


def test_lusers_on_register():
    """LUSERS 251/255/265/266 in the welcome burst; 254 counts channels."""
    s = S()
    a = Client(s, "gamma")
    a.join("#lusers")
    b = Client(s, "delta")
    got = {parse(l).command: parse(l) for l in b.welcome}
    for num in ("251", "255", "265", "266"):
        assert num in got, "missing %s" % num
    if "254" in got:
        assert got["254"].params[1].isdigit() and int(got["254"].params[1]) >= 1
    b.send("LUSERS")
    lines = b.collect_until(r" 266 ")
    cmds = [parse(l).command for l in lines]
    assert "251" in cmds and "255" in cmds and "265" in cmds, cmds
    assert "254" in cmds, "254 RPL_LUSERCHANNELS with a channel formed: %r" % lines
    a.quit()
    b.quit()


def test_motd_375_372_376():
    s = S()
    c = Client(s, "eps")
    cmds = [parse(l).command for l in c.welcome]
    assert "375" in cmds and "372" in cmds and cmds[-1] == "376", cmds
    text = [parse(l).params[-1] for l in c.welcome if parse(l).command == "372"]
    assert any("Welcome to the test network." in t for t in text), text
    c.send("MOTD")
    c.expect_numeric(375)
    c.expect_numeric(372)
    c.expect_numeric(376)
    c.quit()


def test_no_motd_422():
    """ERR_NOMOTD 422 when no motd is configured."""
    with Server(motd=None) as s:
        c = Client(s, "zeta")
        assert parse(c.welcome[-1]).command == "422", c.welcome[-3:]
        c.send("MOTD")
        c.expect_numeric(422)


def test_nick_in_use_433():
    """433 ERR_NICKNAMEINUSE with * during registration, then nick after."""
    s = S()
    a = Client(s, "taken")
    b = Client(s)
    b.send("NICK taken")
    b.send("USER u 0 * :r")
    b.expect(r"^:irc\.test 433 \* taken :")
    b.register("taken2")
    b.send("NICK taken")
    b.expect(r"^:irc\.test 433 taken2 taken :")
    a.quit()
    b.quit()


def test_nick_casemapping_collision():
    """CASEMAPPING=rfc1459: Nick[a] and nick{A} are the same nick (433)."""
    s = S()
    a = Client(s, "Nick[a]")
    b = Client(s)
    b.send("NICK nick{A}")
    b.send("USER u 0 * :r")
    b.expect(r" 433 \* nick\{A\} ")
    b.send("NICK nick|b")
    b.expect(r" 001 nick\|b ")
    b.send("NICK NICK\\B")   # | folds to \: a case change of one's own nick is allowed
    b.expect(r"^:nick\|b!\S+ NICK :?NICK\\B$")
    a.send("NICK NICK{a}")
    a.expect(r"^:Nick\[a\]!\S+ NICK :?NICK\{a\}$")
    a.quit()
    b.quit()


def test_erroneous_nick_432():
    s = S()
    c = Client(s)
    for bad in ("9lives", "#chan", "a,b", "-dash"):
        c.send("NICK %s" % bad)
        c.expect(r"^:irc\.test 432 \* ")
    c.register("okay")
    c.send("NICK 1bad")
    c.expect(r"^:irc\.test 432 okay 1bad :")
    c.quit()


def test_no_nick_431():
    s = S()
    c = Client(s, "theta")
    c.send("NICK")
    c.expect(r"^:irc\.test 431 theta :")
    c.send("NICK :")
    c.expect(r"^:irc\.test 431 theta :")
    c.quit()


def test_not_registered_451():
    s = S()
    c = Client(s)
    for cmd in ("JOIN #x", "PRIVMSG foo :hi", "WHOIS foo", "MODE #x"):
        c.send(cmd)
        c.expect(r"^:irc\.test 451 \S+ :")
    c.register("iota")
    c.quit()


def test_m8_http_post_closed():
    """SEC-7, M8: the review's cross-protocol attack, one write of an HTTP POST whose
    body is IRC lines (as a web page's fetch() sends it): the connection is closed at
    its first line; it never registers and its PRIVMSG goes nowhere."""
    s = S()
    c = Client(s)
    c.send_raw(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n\r\n"
               b"NICK httpx\r\nUSER u 0 * :r\r\nPRIVMSG httpwatch :hello from a web page\r\n")
    m = c.expect_msg(r"^ERROR :", timeout=5)
    if "not a web server" not in m.params[-1]:
        raise TestFailure("the ERROR: %r" % m.raw)
    c.expect_closed(3)
    if any(re.search(r" 001 ", l) for l in c.lines):
        raise TestFailure("the HTTP client registered: %r" % c.lines)
    w = Client(s, "httpwatch")
    w.send("WHOIS httpx")
    w.expect(r" 401 httpwatch httpx ")
    w.assert_nothing(0.3, r"hello from a web page")
    w.quit()


def test_sec7_http_methods_closed():
    """SEC-7: a first line of GET, HEAD, PUT, OPTIONS or CONNECT closes the connection too,
    whatever the case of the word."""
    s = S()
    for line in ("GET / HTTP/1.1", "head / HTTP/1.0", "PUT /x HTTP/1.1",
                 "OPTIONS * HTTP/1.1", "CONNECT 127.0.0.1:6667 HTTP/1.1"):
        c = Client(s)
        c.send(line)
        c.expect(r"^ERROR :", timeout=5)
        c.expect_closed(3)


def test_sec7_unregistered_errors_closed():
    """SEC-7: four commands answered 451 before registering are borne (a client may send
    one too early); the fifth closes the connection."""
    s = S()
    c = Client(s)
    for i in range(4):
        c.send("FOO%d bar" % i)
        c.expect(r"^:irc\.test 451 \S+ :")
    c.send("WHOIS foo")
    c.expect(r"^ERROR :.*Too many commands before registration", timeout=5)
    c.expect_closed(3)


def test_user_twice_462():
    s = S()
    c = Client(s, "kappa")
    c.send("USER again 0 * :x")
    c.expect(r"^:irc\.test 462 kappa :")
    c.send("PASS foo")
    c.expect(r"^:irc\.test 462 kappa :")
    c.quit()


def test_need_more_params_461():
    s = S()
    c = Client(s)
    c.send("USER onlyone")
    c.expect(r"^:irc\.test 461 \* USER :")
    c.register("lambda")
    for cmd in ("JOIN", "PART", "KICK #x", "INVITE a", "TOPIC", "OPER a", "USERHOST"):
        c.send(cmd)
        c.expect(r"^:irc\.test 461 lambda %s :" % cmd.split()[0])
    c.quit()


def test_unknown_command_421():
    s = S()
    c = Client(s, "mu")
    c.send("FROBNICATE a b")
    c.expect(r"^:irc\.test 421 mu FROBNICATE :")
    c.send("frobnicate")
    c.expect(r"^:irc\.test 421 mu (?i:frobnicate) :")
    c.quit()


def test_nick_change_seen_by_peers():
    s = S()
    a = Client(s, "nu")
    b = Client(s, "xi")
    a.join("#nickchg")
    b.join("#nickchg")
    a.send("NICK nu2")
    a.expect(r"^:nu!\S+@\S+ NICK :?nu2$")
    b.expect(r"^:nu!\S+@\S+ NICK :?nu2$")
    a.nick = "nu2"
    b.send("WHOIS nu2")
    b.expect_numeric(311)
    b.send("PRIVMSG #nickchg :hi")
    a.expect(r"^:xi!\S+ PRIVMSG #nickchg :hi$")
    a.quit()
    b.quit()


def test_ping_pong_client_to_server():
    s = S()
    c = Client(s, "omicron")
    c.send("PING :abc123")
    c.expect(r"^:irc\.test PONG irc\.test :abc123$")
    c.send("PING")
    c.expect(r"^:irc\.test (?:461 omicron PING|409 omicron) :")
    c.send("PONG :unsolicited")   # ignored
    c.assert_nothing(0.3)
    c.quit()


def test_ping_timeout():
    """The server PINGs an idle client; one that answers stays, one that does not is
    dropped with ERROR :Closing Link ... Ping timeout, and peers see the QUIT."""
    with Server(ping_interval=1, ping_timeout=2) as s:
        good = Client(s, "pinger")
        bad = Client(s, "mute")
        good.join("#pt")
        bad.join("#pt")
        bad.autopong = False
        deadline = time.time() + 12
        while not bad.eof and time.time() < deadline:
            pump([good, bad], 0.2)   # good answers PINGs meanwhile
        bad.expect(r"^(?::irc\.test )?PING :?\S+", timeout=0)
        bad.expect(r"^ERROR :Closing Link.*Ping timeout", timeout=0)
        bad.expect_closed(0)
        good.expect(r"^:mute!\S+ QUIT :.*Ping timeout", timeout=3)
        # the answering client saw PINGs and is still fine
        assert any(parse(l).command == "PING" for l in good.lines), good.lines[-5:]
        good.send("PING :still")
        good.expect("PONG.*still")


def test_register_timeout():
    """A connection that does not complete registration is dropped."""
    with Server(register_timeout=2) as s:
        c = Client(s)
        c.send("NICK lazy")
        c.expect(r"^ERROR :", timeout=8)
        c.expect_closed(3)
        d = Client(s, "quick")   # the server is fine
        d.quit()


def test_quit_message():
    """QUIT :msg -> peers get :nick!user@host QUIT :Quit: msg; the quitter gets ERROR."""
    s = S()
    a = Client(s, "pi")
    b = Client(s, "rho", user="rhou")
    a.join("#quit")
    b.join("#quit")
    b.send("QUIT :see you")
    b.expect(r"^ERROR :")
    b.expect_closed(3)
    a.expect(r"^:rho!~?rhou@\S+ QUIT :Quit: see you$")
    c = Client(s, "sigma")
    c.join("#quit")
    c.send("QUIT")
    a.expect(r"^:sigma!\S+ QUIT :")
    a.quit()


def test_nick_reuse_after_quit():
    s = S()
    a = Client(s, "tau")
    a.quit()
    b = Client(s, "tau")
    b.quit()


def test_nicklen_boundary():
    """A nick of NICKLEN characters is accepted; one longer gets 432 (or is cut to NICKLEN)."""
    s = S()
    c = Client(s, "nl")
    n = int(isupport(c.welcome)["NICKLEN"])
    c.send("NICK " + "n" * n)
    c.expect(r"^:nl!\S+ NICK :?%s$" % ("n" * n))
    c.send("NICK " + "m" * (n + 1))
    m = c.expect_msg(r" 432 | NICK ")
    if m.command == "NICK":
        assert m.params[0] == "m" * n, m.raw
    c.quit()


# ---------------------------------------------------------------- the server's password

SERVER_PW = "Shared-Secret-42"
ALICE_PW = "Alice-Own-7"
_hashes = {}


def hashed(pw):
    if pw not in _hashes:
        _hashes[pw] = hash_password(pw)
    return _hashes[pw]


def pw_server():
    """A server of its own with [server] password and an account: each test that fails a
    password takes a new one, since failed logins slow all of loopback (SEC-6)."""
    return Server(password=hashed(SERVER_PW),
                  config_extra="[account alice]\npassword = %s\n" % hashed(ALICE_PW))


def refused(c, nick, password=None):
    """Registration with password (None: no PASS) ends in 464, ERROR and EOF; no 001."""
    if password is not None:
        c.send("PASS :%s" % password)
    c.send("NICK %s" % nick)
    c.send("USER u 0 * :r")
    lines = c.collect_until(r" 464 ")
    c.expect(r"^ERROR :")
    c.expect_closed(10)
    assert not any(parse(l).command == "001" for l in c.lines), c.lines
    return lines


def logged_in_as(lines):
    return [parse(l).params[2] for l in lines if parse(l).command == "900"]


def test_server_password_accepted():
    """Modern IRC, PASS message (RFC 2812 3.1.1): PASS with the server's password
    before NICK/USER registers; it logs in to no account."""
    with pw_server() as s:
        c = Client(s)
        lines = c.register("spw1", password=SERVER_PW)
        assert logged_in_as(lines) == [], lines
        c.quit()


def test_server_password_missing_464():
    """RFC 2812 3.1.1, Modern IRC ERR_PASSWDMISMATCH (464): without PASS, a server that
    has a password refuses the registration with 464 and an ERROR, and closes."""
    with pw_server() as s:
        refused(Client(s), "spw2")
        assert s.alive()


def test_server_password_wrong_464():
    """RFC 2812 3.1.1: a wrong server password is 464, ERROR, closed; the next
    connection with the right one still registers."""
    with pw_server() as s:
        refused(Client(s), "spw3", "Not-The-Password")
        c = Client(s)
        c.register("spw4", password=SERVER_PW, timeout=40)
        c.quit()


def sasl_plain(c, user, pw):
    c.send("CAP LS 302")
    c.send("CAP REQ :sasl")
    c.expect(r" CAP \* ACK :sasl")
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"AUTHENTICATE \+$")
    c.send("AUTHENTICATE " + base64.b64encode(
        ("\0%s\0%s" % (user, pw)).encode()).decode())
    c.expect_numeric(903)


def test_server_password_needed_after_sasl():
    """A SASL login does not stand for the server's password (as Ergo's default
    skip-server-password = false, and InspIRCd): without PASS, 464; with it, the
    client registers logged in."""
    with pw_server() as s:
        c = Client(s)
        sasl_plain(c, "alice", ALICE_PW)
        c.send("CAP END")
        refused(c, "spw5")
        c = Client(s)
        c.send("PASS :%s" % SERVER_PW)
        sasl_plain(c, "alice", ALICE_PW)
        c.send("CAP END")
        c.register("spw6")
        c.send("WHOIS spw6")
        lines = c.collect_until(r" 318 ")
        assert any(parse(l).command == "330" and parse(l).params[2] == "alice"
                   for l in lines), lines
        c.quit()


def test_pass_account_stands_for_server_password():
    """PASS account:password logs in, and is enough on a server with a password (as
    Ergo's login-via-pass-command): clients with one password field can connect."""
    with pw_server() as s:
        c = Client(s)
        lines = c.register("spw7", password="alice:%s" % ALICE_PW)
        assert logged_in_as(lines) == ["alice"], lines
        c.quit()


def test_pass_account_wrong_on_password_server():
    """PASS account:password with a wrong password is neither the server's password
    nor a login: 464, ERROR, closed."""
    with pw_server() as s:
        refused(Client(s), "spw8", "alice:Wrong-9")


def test_server_password_with_colon():
    """A server password with a colon in it is the server's password, not an account."""
    with Server(password=hashed("a:b:c")) as s:
        c = Client(s)
        lines = c.register("spw9", password="a:b:c")
        assert logged_in_as(lines) == [], lines
        c.quit()


def test_server_password_at_line_limit():
    """Issue 27: a password as long as a PASS line can carry (510 bytes before CRLF,
    RFC 2812 2.3) is hashed and accepted; one byte less is refused."""
    pw = "".join(chr(33 + i % 90) for i in range(504))
    assert len("PASS :" + pw) == 510
    with Server(password=hashed(pw)) as s:
        c = Client(s)
        c.register("spw13", password=pw)
        c.quit()
        refused(Client(s), "spw14", pw[:-1])


def test_server_password_reload():
    """SIGHUP applies a new [server] password to the connections that register after
    it; those already registered stay."""
    with Server() as s:
        old = Client(s, "spw10")
        with open(s.conf) as f:
            text = f.read()
        with open(s.conf, "w") as f:
            f.write(text.replace("[server]\n", "[server]\npassword = %s\n"
                                 % hashed(SERVER_PW), 1))
        os.kill(s.proc.pid, signal.SIGHUP)
        deadline = time.time() + 10
        while True:
            c = Client(s)
            c.send("NICK spw11")
            c.send("USER u 0 * :r")
            m = c.expect_msg(r" (001|464) ")
            c.close()
            if m.command == "464":
                break
            assert time.time() < deadline, "still no password asked 10 s after SIGHUP"
            time.sleep(0.1)
        c = Client(s)
        c.register("spw12", password=SERVER_PW)
        old.sync()
        c.quit()
        old.quit()


if __name__ == "__main__":
    run_tests(globals())

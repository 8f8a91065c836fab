#!/usr/bin/env python3
"""Issue 27: IRCv3 MONITOR (https://ircv3.net/specs/extensions/monitor) and
extended-monitor (https://ircv3.net/specs/extensions/extended-monitor), on the wire:
MONITOR + - C L S, RPL_MONONLINE 730, RPL_MONOFFLINE 731, RPL_MONLIST 732,
RPL_ENDOFMONLIST 733, ERR_MONLISTFULL 734 and ISUPPORT MONITOR=<max-monitor>, 100 unless
configured; notifications when
any user comes, goes or changes nick (people, agents, users of a linked server); with
extended-monitor, a watched user's AWAY, ACCOUNT and SETNAME without a shared channel,
once each."""

import base64
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, FakePeer, Server, Shared,  # noqa: E402
                        hash_password, isupport, run_tests)

LIMIT = 100
PASSWORD = "mon-Secret-pw"
_hash = []


def account_conf():
    if not _hash:
        _hash.append(hash_password(PASSWORD))
    return "[account alice]\npassword = %s\n" % _hash[0]


S = Shared(flood_exempt="127.0.0.1/32")


def cclient(srv, nick, caps=""):
    """A client that negotiates caps, then registers."""
    c = Client(srv)
    c.nick = nick
    if caps:
        c.send("CAP LS 302")
        c.send("CAP REQ :%s" % caps)
        c.expect(r" CAP \S+ ACK :%s" % re.escape(caps))
        c.send("CAP END")
    c.register(nick)
    return c


def mon(c, line):
    """Send a MONITOR line; the numerics it answered with, as (numeric, last param)."""
    c.send(line)
    out = []
    for l in c.sync():
        m = re.match(r"^:\S+ (\d{3}) \S+ (.*)$", l)
        if m:
            out.append((m.group(1), l.rsplit(" :", 1)[-1] if " :" in l else m.group(2)))
    return out


def items(replies, num):
    """The comma-separated items of every reply num, in order."""
    return [i for n, v in replies if n == num for i in v.split(",")]


# ---------------------------------------------------------------- MONITOR

def test_isupport_and_cap():
    """monitor: 'Support of this specification is indicated by the MONITOR token in
    RPL_ISUPPORT', with the limit as its value; extended-monitor is a cap."""
    srv = S()
    a = Client(srv, S.nick("mis"))
    tok = isupport(a.welcome)
    a.send("CAP LS 302")
    # CAP LS 302 may take several lines: "CAP nick LS * :..." until the last.
    caps = ""
    while True:
        line = a.expect(r" CAP \S+ LS ").string
        caps += " " + line.split(" :", 2)[-1]
        if not re.search(r" LS \* ", line):
            break
    a.quit()
    assert tok.get("MONITOR") == str(LIMIT), tok
    assert "extended-monitor" in caps.split(), caps


def test_add_reports_online_and_offline():
    """monitor, MONITOR +: online targets in RPL_MONONLINE as nick!user@host, offline
    ones in RPL_MONOFFLINE; "'target' MUST be a valid nick": one that is not gets 432
    and the others are still added."""
    srv = S()
    on = Client(srv, S.nick("mon"))
    a = Client(srv, S.nick("mwa"))
    off = S.nick("moff")
    r = mon(a, "MONITOR + %s,%s,,bad*nick" % (on.nick.upper(), off))
    assert items(r, "730") == ["%s!%s@127.0.0.1" % (on.nick, on.nick)], r
    assert items(r, "731") == [off], r
    assert ("432", "Erroneous nickname") in r, r
    r = mon(a, "MONITOR L")
    assert items(r, "732") == [on.nick.upper(), off] and r[-1][0] == "733", r
    for c in (on, a):
        c.quit()


def test_signon_signoff_and_nick_change():
    """monitor, 730 and 731: sent when 'a target has just become online' and when it
    'has just left the irc network'; a nick change is the old nick leaving and the new
    one coming online (a change of case only is the same nick)."""
    srv = S()
    a = Client(srv, S.nick("mwb"))
    b = Client(srv, S.nick("mwc"))
    x, y = S.nick("mtx"), S.nick("mty")
    mon(a, "MONITOR + %s" % x)
    mon(b, "MONITOR + %s,%s" % (x, y))
    t = Client(srv, x)
    for w in (a, b):
        w.expect(r"^:irc.test 730 %s :%s!\S+@127.0.0.1$" % (w.nick, x))
    t.send("NICK %s" % y)
    t.expect(r" NICK :?%s" % y)
    a.expect(r"^:irc.test 731 %s :%s$" % (a.nick, x))
    b.expect(r"^:irc.test 731 %s :%s$" % (b.nick, x))
    b.expect(r"^:irc.test 730 %s :%s!" % (b.nick, y))
    t.send("NICK %s" % y.upper())
    t.expect(r" NICK :?%s" % y.upper())
    assert not [l for l in a.sync() + b.sync() if re.search(r" 73[01] ", l)]
    t.quit()
    b.expect(r"^:irc.test 731 %s :%s$" % (b.nick, y.upper()))
    assert not [l for l in a.sync() if re.search(r" 73[01] ", l)], a.lines[-5:]
    for c in (a, b):
        c.quit()


def test_list_status_remove_clear():
    """monitor: L lists the targets (732, then 733), S gives each one's status, -
    removes and C clears with 'no output'; 'Targets already in the list MUST NOT be
    added again'."""
    srv = S()
    a = Client(srv, S.nick("mwd"))
    t = Client(srv, S.nick("mte"))
    x = S.nick("mtf")
    assert items(mon(a, "MONITOR + %s,%s" % (t.nick, x)), "730")
    mon(a, "MONITOR + %s" % x.upper())
    assert items(mon(a, "MONITOR L"), "732") == [t.nick, x]
    r = mon(a, "MONITOR S")
    assert items(r, "730")[0].startswith(t.nick + "!") and items(r, "731") == [x], r
    assert mon(a, "MONITOR - %s" % x.upper()) == []
    assert items(mon(a, "MONITOR l"), "732") == [t.nick]
    assert mon(a, "MONITOR C") == []
    r = mon(a, "MONITOR L")
    assert r == [("733", "End of MONITOR list")], r
    assert mon(a, "MONITOR S") == []
    t.quit()
    assert not [l for l in a.sync() if " 731 " in l]
    a.quit()


def test_bad_input_changes_nothing():
    """monitor: MONITOR without a modifier or targets is 461, an unknown modifier 400;
    the list stays as it was."""
    srv = S()
    a = Client(srv, S.nick("mwg"))
    x = S.nick("mth")
    mon(a, "MONITOR + %s" % x)
    assert mon(a, "MONITOR")[0][0] == "461"
    assert mon(a, "MONITOR +")[0][0] == "461"
    assert mon(a, "MONITOR - :")[0][0] == "461"
    r = mon(a, "MONITOR X %s" % x)
    assert r == [("400", "Unknown subcommand")], r
    assert items(mon(a, "MONITOR L"), "732") == [x]
    a.quit()


def test_list_full():
    """monitor, 734: ERR_MONLISTFULL '<limit> <targets> :Monitor list is full.', the
    targets 'as the client sent them, that cannot be added'; what fits is added, up to
    MONITOR=100."""
    srv = S()
    a = Client(srv, S.nick("mwh"))
    for i in range(0, LIMIT - 2, 20):
        mon(a, "MONITOR + " + ",".join("f%d" % j for j in range(i, min(i + 20, LIMIT - 2))))
    r = mon(a, "MONITOR + g1,g2,g3,g4")
    assert items(r, "731") == ["g1", "g2"], r
    full = [l for l in a.lines if " 734 " in l]
    assert full and full[-1].endswith(" 734 %s %d g3,g4 :Monitor list is full." % (a.nick, LIMIT)), full
    assert len(items(mon(a, "MONITOR L"), "732")) == LIMIT
    r = mon(a, "MONITOR + g1")
    assert items(r, "731") == ["g1"], r
    mon(a, "MONITOR - g1")
    assert items(mon(a, "MONITOR + g5"), "731") == ["g5"]
    a.quit()


def test_max_monitor_config_key():
    """monitor: the limit is the config's max-monitor, announced as MONITOR=<limit>;
    ERR_MONLISTFULL carries it."""
    srv = Server(flood_exempt="127.0.0.1/32", max_monitor=3)
    try:
        a = Client(srv, "watcher")
        assert isupport(a.welcome).get("MONITOR") == "3", a.welcome
        r = mon(a, "MONITOR + a1,a2,a3,a4")
        assert items(r, "731") == ["a1", "a2", "a3"], r
        assert [l for l in a.lines if l.endswith(" 734 watcher 3 a4 :Monitor list is full.")]
        # A refused list longer than a reply can hold is cut at a comma, never mid-nick.
        many = ["b%07d" % i for i in range(54)]
        a.send("MONITOR + " + ",".join(many))
        m = a.expect_msg(r" 734 ")
        got = m.params[2].split(",")
        assert len(m.raw) + 2 <= 512 and m.params[-1] == "Monitor list is full.", m.raw
        assert 40 < len(got) < 54 and got == many[:len(got)], m.raw
        a.quit()
    finally:
        srv.stop()


def test_long_lists_split_into_lines():
    """monitor: 'the length of the target list is limited only by the buffer size of
    512', so a long RPL_MONLIST or RPL_MONOFFLINE goes in several lines, none too long."""
    srv = S()
    a = Client(srv, S.nick("mwi"))
    names = ["n%s%02d" % ("x" * 25, i) for i in range(40)]
    for i in range(0, 40, 10):
        mon(a, "MONITOR + " + ",".join(names[i:i + 10]))
    a.send("MONITOR L")
    got = a.collect_until(r" 733 ")
    assert all(len(l) + 2 <= 512 for l in got), max(len(l) for l in got)
    assert items([(l.split()[1], l.rsplit(" :", 1)[1]) for l in got], "732") == names
    a.send("MONITOR S")
    a.send("PING :done")
    got = a.collect_until(r"PONG")
    assert len([l for l in got if " 731 " in l]) > 1 and \
        all(len(l) + 2 <= 512 for l in got)
    a.quit()


def test_watcher_leaves():
    """A watcher that quits is forgotten (its list freed): the others still hear of the
    target, and the server stays up."""
    srv = S()
    a = Client(srv, S.nick("mwj"))
    b = Client(srv, S.nick("mwk"))
    x = S.nick("mtl")
    mon(a, "MONITOR + %s,%s" % (x, ",".join("q%d" % i for i in range(50))))
    mon(b, "MONITOR + %s" % x)
    a.quit()
    t = Client(srv, x)
    b.expect(r" 730 %s :%s!" % (b.nick, x))
    t.quit()
    b.expect(r" 731 %s :%s$" % (b.nick, x))
    b.quit()


def test_agent_comes_and_goes():
    """monitor: agents are users like any other; a watcher sees one online (730 with
    nick!agent@server), offline when a reload removes it, online when it comes back."""
    extra = "[agent helper]\ncommand = /bin/true\nusers = *\ndescription = x\n\n"
    srv = Server(flood_exempt="127.0.0.1/32", config_extra=extra)
    try:
        a = Client(srv, "watcher")
        assert items(mon(a, "MONITOR + helper"), "730") == ["helper!agent@irc.test"]
        with open(srv.conf, "w") as f:
            f.write(srv.config_text.split("[agent ", 1)[0])
        os.kill(srv.proc.pid, signal.SIGHUP)
        a.expect(r"^:irc.test 731 watcher :helper$")
        with open(srv.conf, "w") as f:
            f.write(srv.config_text)
        os.kill(srv.proc.pid, signal.SIGHUP)
        a.expect(r"^:irc.test 730 watcher :helper!agent@irc.test$")
        a.quit()
    finally:
        srv.stop()


def test_remote_users_of_a_linked_server():
    """monitor: a user of a linked server is watched like a local one: its UID brings
    730, its NICK 731 and 730, its QUIT 731, a split 731 for whoever is left."""
    fake = FakePeer()
    srv = Server(config_extra="[link irc.fake.test]\naddress = 127.0.0.1:%d\n"
                 "send-password = ai-pass\nreceive-password = %s\ntls = no\n"
                 % (fake.sport, hash_password("fake-pass")),
                 flood_exempt="127.0.0.0/8")
    try:
        fake.handshake()
        fake.expect(r"^:\w{3} ENDBURST$")
        a = Client(srv, "watcher")
        mon(a, "MONITOR + mallory,mal2,oscar")
        fake.send(":9FK UID 9FKAAAAAA 1 mallory h.fake h.fake mal 127.0.0.1 1 +i :M")
        a.expect(r"^:irc.test 730 watcher :mallory!mal@h.fake$")
        fake.send(":9FKAAAAAA NICK mal2 2")
        a.expect(r"^:irc.test 731 watcher :mallory$")
        a.expect(r"^:irc.test 730 watcher :mal2!mal@h.fake$")
        fake.send(":9FKAAAAAA QUIT :gone")
        a.expect(r"^:irc.test 731 watcher :mal2$")
        fake.send(":9FK UID 9FKAAAAAB 1 oscar h.fake h.fake osc 127.0.0.1 1 +i :O")
        a.expect(r"^:irc.test 730 watcher :oscar!osc@h.fake$")
        fake.close()
        a.expect(r"^:irc.test 731 watcher :oscar$", timeout=15)
        a.quit()
    finally:
        srv.stop()


# ---------------------------------------------------------------- extended-monitor

X = Shared(flood_exempt="127.0.0.1/32")


def xserver():
    if "config_extra" not in X.kw:
        X.kw["config_extra"] = account_conf()
    return X()


def test_extended_monitor_away_setname_account():
    """extended-monitor: with it and the matching cap (away-notify, setname,
    account-notify) a watcher gets a monitored user's AWAY, SETNAME and ACCOUNT without
    a shared channel; without extended-monitor, or without the matching cap, it does
    not."""
    srv = xserver()
    full = cclient(srv, X.nick("xfull"),
                   "extended-monitor away-notify setname account-notify")
    noext = cclient(srv, X.nick("xnoext"), "away-notify setname account-notify")
    nocap = cclient(srv, X.nick("xnocap"), "extended-monitor")
    t = cclient(srv, X.nick("xt"), "sasl setname")
    for w in (full, noext, nocap):
        assert items(mon(w, "MONITOR + %s" % t.nick), "730")
    t.send("AWAY :lunch")
    t.expect_numeric(306)
    full.expect(r"^:%s!\S+ AWAY :lunch$" % t.nick)
    t.send("AWAY")
    t.expect_numeric(305)
    full.expect(r"^:%s!\S+ AWAY$" % t.nick)
    t.send("SETNAME :New Name")
    t.expect(r" SETNAME :New Name$")
    full.expect(r"^:%s!\S+ SETNAME :New Name$" % t.nick)
    t.send("AUTHENTICATE PLAIN")
    t.expect(r"AUTHENTICATE \+$")
    t.send("AUTHENTICATE " + base64.b64encode(
        ("\0alice\0%s" % PASSWORD).encode()).decode())
    t.expect_numeric(903)
    full.expect(r"^:%s!\S+ ACCOUNT alice$" % t.nick)
    for w in (noext, nocap):
        bad = [l for l in w.sync() if re.search(r" (AWAY|SETNAME|ACCOUNT) ", l)]
        assert not bad, (w.nick, bad)
    for c in (full, noext, nocap, t):
        c.quit()


def test_extended_monitor_once_with_a_shared_channel():
    """extended-monitor, issue 27: a watcher that also shares a channel with the user
    gets each notification once, not once per reason."""
    srv = xserver()
    w = cclient(srv, X.nick("xw"), "extended-monitor away-notify setname")
    t = cclient(srv, X.nick("xs"), "setname")
    ch = X.chan("#xm")
    w.join(ch)
    t.join(ch)
    mon(w, "MONITOR + %s" % t.nick)
    t.send("AWAY :back soon")
    t.expect_numeric(306)
    t.send("SETNAME :Other")
    t.expect(r" SETNAME :Other$")
    t.sync()
    got = [l for l in w.sync() if re.search(r" (AWAY|SETNAME) ", l)]
    assert len(got) == 2, got
    for c in (w, t):
        c.quit()


if __name__ == "__main__":
    run_tests(globals())

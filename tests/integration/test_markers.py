#!/usr/bin/env python3
"""Issue 27: IRCv3 draft/read-marker.

read-marker (extensions/read-marker.md): MARKREAD gets and sets the time of the last
message read in a target; it only moves forward (an older time is answered with the
stored one), a time to come is cut to now; every client of the same account with the cap
is told, nobody else; after JOIN the marker comes before 366 ("*" when none). An account's
markers are stored and survive a restart; a connection not logged in keeps its own in
memory (and a bounded number of them). Errors: FAIL MARKREAD NEED_MORE_PARAMS,
INVALID_PARAMS.

"""

import atexit
import base64
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (PersistentServer, Client, Shared, TestFailure,  # noqa: E402
                        hash_password, parse, run_tests)

TMP = tempfile.mkdtemp(prefix="agentircd-markers-")
PASSWORD = "Mark-Pass-42"
OPER_PASSWORD = "Oper-Pass-42"
RM = "draft/read-marker"
BASE = "batch server-time message-tags echo-message draft/chathistory"

_conf = None


def conf():
    """[account] alice, bob, carol and an [operator] (one hash each, computed once)."""
    global _conf
    if _conf is None:
        h = hash_password(PASSWORD)
        o = hash_password(OPER_PASSWORD)
        _conf = "".join("\n[account %s]\npassword = %s\n" % (n, h)
                        for n in ("alice", "bob", "carol"))
        _conf += "\n[operator root]\npassword = %s\nmask = *@*\n" % o
    return _conf


class PServer(PersistentServer):
    def __init__(self, name, **kw):
        kw.setdefault("flood_exempt", "127.0.0.0/8")
        kw.setdefault("config_extra", conf())
        PersistentServer.__init__(self, os.path.join(TMP, name + ".db"), **kw)


def _cleanup():
    if os.environ.get("IRC_KEEP_TMP"):
        return
    for d in PServer.dirs + [TMP]:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)

S = Shared(flood_exempt="127.0.0.0/8", config_extra="")


def shared():
    if not S.kw["config_extra"]:
        S.kw["config_extra"] = conf()
    return S()


def cclient(srv, nick, caps="", sasl=None):
    """Register nick after CAP REQ caps; sasl=account logs in with SASL PLAIN."""
    c = Client(srv)
    c.nick = nick
    req = (caps + (" sasl" if sasl else "")).strip()
    if req:
        c.send("CAP REQ :%s" % req)
        m = c.expect_msg(r"^(?:@\S+ )?:\S+ CAP \S+ (?:ACK|NAK) ")
        if m.params[1] != "ACK":
            raise TestFailure("CAP REQ :%s: %s" % (req, m.raw))
    if sasl:
        c.send("AUTHENTICATE PLAIN")
        c.expect(r"^(?:@\S+ )?(?::\S+ )?AUTHENTICATE \+$")
        c.send("AUTHENTICATE " + base64.b64encode(
            ("\0%s\0%s" % (sasl, PASSWORD)).encode()).decode())
        c.expect_numeric(903)
    if req:
        c.send("CAP END")
    c.register(nick)
    return c


def say(c, target, text):
    """PRIVMSG text to target; c has echo-message: return the echo's (msgid, time)."""
    c.send("PRIVMSG %s :%s" % (target, text))
    m = c.expect_msg(r"^@\S+ :%s!\S+ PRIVMSG %s :%s$|^(?:@\S+ )?:\S+ FAIL "
                     % (re.escape(c.nick), re.escape(target), re.escape(text)))
    if m.command == "FAIL":
        raise TestFailure("PRIVMSG %s refused: %s" % (target, m.raw))
    return m.tags["msgid"], m.tags["time"]


def markread(c, args):
    """Send MARKREAD args; return the MARKREAD or FAIL MARKREAD that answers it."""
    c.send("MARKREAD " + args)
    return c.expect_msg(r"^(?:@\S+ )?:\S+ (?:MARKREAD |FAIL MARKREAD )")


def history_ids(c, target):
    c.send("CHATHISTORY LATEST %s * 100" % target)
    lines = c.collect_until(r"BATCH -")
    return [parse(l).tags.get("msgid") for l in lines if " PRIVMSG " in l]


def ms_of(ts):
    t = time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")
    return int(time.mktime(t) - time.timezone) * 1000 + int(ts[20:23])


# ---------------------------------------------------------------- read-marker

def test_caps_offered():
    """read-marker.md "Implementation": the cap is offered under its draft/ name."""
    c = Client(shared())
    c.send("CAP LS 302")
    caps = []
    while True:
        m = c.expect_msg(r" CAP \S+ LS ")
        caps += [w.split("=")[0] for w in m.params[-1].split()]
        if not (len(m.params) == 4 and m.params[2] == "*"):
            break
    assert RM in caps, caps
    c.close()


def test_markread_join_before_endofnames():
    """read-marker.md "Command flows": after JOIN, MARKREAD for the channel comes
    before RPL_ENDOFNAMES, "*" when there is no marker; a client without the cap gets
    none."""
    srv = shared()
    chan = S.chan("#rm")
    a = cclient(srv, S.nick("rma"), RM, sasl="alice")
    lines = a.join(chan)
    kinds = [parse(l).command for l in lines]
    assert "MARKREAD" in kinds, lines
    assert kinds.index("MARKREAD") < kinds.index("366"), lines
    mr = parse(lines[kinds.index("MARKREAD")])
    assert mr.params == [chan, "*"], mr.raw
    n = cclient(srv, S.nick("rmn"), sasl="alice")
    lines = n.join(chan)
    assert not [l for l in lines if " MARKREAD " in l], lines
    a.quit()
    n.quit()


def test_markread_set_get_forward_only():
    """read-marker.md "MARKREAD client set command", "Read timestamp notes": a set is
    answered with the stored value; an older or equal time changes nothing and is
    answered with the newer stored one; a get returns it; a time to come is cut to
    now (the spec's implementation considerations: clamp between the stored time
    and now)."""
    srv = shared()
    chan = S.chan("#rmf")
    a = cclient(srv, S.nick("rmf"), RM + " " + BASE, sasl="bob")
    a.join(chan)
    _, t1 = say(a, chan, "first")
    time.sleep(0.01)
    _, t2 = say(a, chan, "second")
    m = markread(a, "%s timestamp=%s" % (chan, t2))
    assert m.params == [chan, "timestamp=" + t2], m.raw
    m = markread(a, "%s timestamp=%s" % (chan, t1))
    assert m.params == [chan, "timestamp=" + t2], "older time: %s" % m.raw
    m = markread(a, chan)
    assert m.params == [chan, "timestamp=" + t2], "get: %s" % m.raw
    before = int(time.time() * 1000)
    m = markread(a, "%s timestamp=2100-01-01T00:00:00.000Z" % chan)
    assert m.command == "MARKREAD" and m.params[1].startswith("timestamp="), m.raw
    got = ms_of(m.params[1][len("timestamp="):])
    assert before - 2000 <= got <= int(time.time() * 1000) + 1000, \
        "a time to come is cut to now: %s" % m.raw
    # a nick target: "*" until set
    m = markread(a, "somebodyelse")
    assert m.params == ["somebodyelse", "*"], m.raw
    a.quit()


def test_markread_reaches_the_accounts_clients_only():
    """read-marker.md "Command flows" and "Security Considerations": a change goes to
    every client of the user with the cap; not to one without it, nor to another
    user."""
    srv = shared()
    chan = S.chan("#rms")
    a1 = cclient(srv, S.nick("rs"), RM + " " + BASE, sasl="carol")
    a2 = cclient(srv, S.nick("rs"), RM, sasl="carol")
    a3 = cclient(srv, S.nick("rs"), "", sasl="carol")
    other = cclient(srv, S.nick("rs"), RM, sasl="alice")
    anon = cclient(srv, S.nick("rs"), RM)
    for c in (a1, a2, a3, other, anon):
        c.join(chan)
    _, t = say(a1, chan, "read me")
    for c in (a2, a3, other, anon):
        c.drain(0.3)
    m = markread(a1, "%s timestamp=%s" % (chan, t))
    assert m.params == [chan, "timestamp=" + t], m.raw
    m = a2.expect_msg(r" MARKREAD ")
    assert m.params == [chan, "timestamp=" + t], m.raw
    for c in (a3, other, anon):
        c.assert_nothing(0.5, r" MARKREAD ")
    # another client of the account joining later is told at its JOIN
    a4 = cclient(srv, S.nick("rs"), RM, sasl="carol")
    lines = a4.join(chan)
    got = [parse(l) for l in lines if " MARKREAD " in l]
    assert got and got[0].params == [chan, "timestamp=" + t], lines
    for c in (a1, a2, a3, a4, other, anon):
        c.quit()


def test_markread_errors():
    """read-marker.md "Errors and Warnings": missing parameters give NEED_MORE_PARAMS;
    a bad target or timestamp (also "*" in a set) INVALID_PARAMS; nothing is stored."""
    srv = shared()
    c = cclient(srv, S.nick("rme"), RM, sasl="alice")
    m = markread(c, "")
    assert m.command == "FAIL" and m.params[1] == "NEED_MORE_PARAMS", m.raw
    for args in ("#ok timestamp=yesterday", "#ok 2020-01-01T00:00:00.000Z", "#ok *",
                 "#ok msgid=abc", "bad,target timestamp=2020-01-01T00:00:00.000Z"):
        m = markread(c, args)
        assert m.command == "FAIL" and m.params[1] == "INVALID_PARAMS", (args, m.raw)
    m = markread(c, "#ok")
    assert m.params == ["#ok", "*"], "a refused set stores nothing: %s" % m.raw
    c.quit()


def test_markread_without_account_lives_in_memory():
    """The brief's rule for a person not logged in: the connection is the principal;
    its markers are its own (another connection does not see them) and bounded: past
    64 targets the least recently moved is forgotten."""
    srv = shared()
    a = cclient(srv, S.nick("rmm"), RM)
    b = cclient(srv, S.nick("rmm"), RM)
    ts = "2020-01-01T00:00:00.000Z"
    m = markread(a, "#mem0 timestamp=" + ts)
    assert m.params == ["#mem0", "timestamp=" + ts], m.raw
    assert markread(a, "#mem0").params == ["#mem0", "timestamp=" + ts]
    assert markread(b, "#mem0").params == ["#mem0", "*"], "another connection"
    for i in range(1, 65):
        a.send("MARKREAD #mem%d timestamp=%s" % (i, ts))
    for i in range(1, 65):
        a.expect(r" MARKREAD #mem%d " % i)
    assert markread(a, "#mem0").params == ["#mem0", "*"], "the oldest is forgotten"
    assert markread(a, "#mem64").params == ["#mem64", "timestamp=" + ts]
    a.quit()
    b.quit()


def test_markread_survives_restart():
    """An account's marker is stored (schema v7): after a restart its client gets it at
    JOIN and on a get, for a channel and for a nick."""
    p = PServer("restart-rm")
    a = cclient(p, "rmr1", RM + " " + BASE, sasl="alice")
    a.join("#keep")
    _, t = say(a, "#keep", "something to read")
    assert markread(a, "#keep timestamp=" + t).params == ["#keep", "timestamp=" + t]
    assert markread(a, "bob timestamp=" + t).params == ["bob", "timestamp=" + t]
    a.quit()
    p.restart()
    a = cclient(p, "rmr2", RM, sasl="alice")
    lines = a.join("#keep")
    got = [parse(l) for l in lines if " MARKREAD " in l]
    assert got and got[0].params == ["#keep", "timestamp=" + t], lines
    assert markread(a, "BOB").params == ["BOB", "timestamp=" + t]
    other = cclient(p, "rmr3", RM, sasl="bob")
    assert markread(other, "#keep").params == ["#keep", "*"], "bob's are his own"
    a.quit()
    other.quit()
    p.stop()


if __name__ == "__main__":
    run_tests(globals())

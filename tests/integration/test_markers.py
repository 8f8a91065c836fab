#!/usr/bin/env python3
"""Issue 27: IRCv3 draft/read-marker and draft/message-redaction.

read-marker (extensions/read-marker.md): MARKREAD gets and sets the time of the last
message read in a target; it only moves forward (an older time is answered with the
stored one), a time to come is cut to now; every client of the same account with the cap
is told, nobody else; after JOIN the marker comes before 366 ("*" when none). An account's
markers are stored and survive a restart; a connection not logged in keeps its own in
memory (and a bounded number of them). Errors: FAIL MARKREAD NEED_MORE_PARAMS,
INVALID_PARAMS.

message-redaction (extensions/message-redaction.md): REDACT <target> <msgid> [:reason]
deletes one's own message, any in a channel one operates, any at all for a server
operator; it goes to the readers with the cap only; CHATHISTORY no longer has the message,
nor does the database file (its WAL included) or the copy a kept mention held, nor an
agent's later transcript. Errors: FAIL REDACT INVALID_TARGET, REDACT_FORBIDDEN,
UNKNOWN_MSGID.
"""

import base64
import os
import re
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Server, Shared,  # noqa: E402
                        SkipTest, SLOW, TestFailure, hash_password, parse,
                        remove_at_exit, run_tests)
from agentharness import AGENTS_DIR, NODE, SDK, is_from, until_done  # noqa: E402

TMP = tempfile.mkdtemp(prefix="agentircd-markers-")
PASSWORD = "Mark-Pass-42"
OPER_PASSWORD = "Oper-Pass-42"
RM = "draft/read-marker"
RD = "draft/message-redaction"
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


remove_at_exit(TMP)

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
    """read-marker.md "Implementation", message-redaction.md "Capability": both caps
    are offered under their draft/ names."""
    c = Client(shared())
    c.send("CAP LS 302")
    caps = []
    while True:
        m = c.expect_msg(r" CAP \S+ LS ")
        caps += [w.split("=")[0] for w in m.params[-1].split()]
        if not (len(m.params) == 4 and m.params[2] == "*"):
            break
    assert RM in caps and RD in caps, caps
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


# ---------------------------------------------------------------- redaction

def redact_fail(c, args):
    c.send("REDACT " + args)
    return c.expect_msg(r"^(?:@\S+ )?:\S+ FAIL REDACT ")


def test_redact_own_message():
    """message-redaction.md "Command", "Chat history": one's own message is redacted;
    the REDACT (with its reason) reaches the channel's readers with the cap, sender
    included, and nobody else; CHATHISTORY no longer returns the message."""
    srv = shared()
    chan = S.chan("#rd")
    a = cclient(srv, S.nick("rda"), RD + " " + BASE)
    b = cclient(srv, S.nick("rdb"), RD + " " + BASE)
    n = cclient(srv, S.nick("rdn"), BASE)
    for c in (a, b, n):
        c.join(chan)
    keep, _ = say(a, chan, "keep this")
    gone, _ = say(a, chan, "oops, wrong window")
    b.drain(0.3)
    n.drain(0.3)
    assert gone in history_ids(b, chan)
    a.send("REDACT %s %s :wrong window" % (chan, gone))
    for c in (a, b):
        m = c.expect_msg(r" REDACT ")
        assert m.params == [chan, gone, "wrong window"], m.raw
        assert m.source.startswith(a.nick + "!"), m.raw
        assert "msgid" in m.tags, m.raw
    n.assert_nothing(0.5, r"REDACT|%s" % re.escape(gone))
    ids = history_ids(b, chan)
    assert gone not in ids and keep in ids, ids
    for c in (a, b, n):
        c.quit()


def test_redact_who_may():
    """message-redaction.md "Errors" and the brief: another member may not redact
    someone's message (REDACT_FORBIDDEN), a channel operator may, a server operator
    may anywhere; an unknown msgid, or one of another conversation, is UNKNOWN_MSGID;
    a channel one is not in is INVALID_TARGET; a refusal changes nothing."""
    srv = shared()
    chan, other = S.chan("#rdw"), S.chan("#rdo")
    op = cclient(srv, S.nick("rdop"), RD + " " + BASE)
    op.join(chan)                      # creates it: op
    u = cclient(srv, S.nick("rdu"), RD + " " + BASE)
    v = cclient(srv, S.nick("rdv"), RD + " " + BASE)
    u.join(chan)
    v.join(chan)
    v.join(other)
    m1, _ = say(u, chan, "u says one")
    m2, _ = say(u, chan, "u says two")
    mo, _ = say(v, other, "in the other channel")
    m = redact_fail(v, "%s %s" % (chan, m1))
    assert m.params[1:4] == ["REDACT_FORBIDDEN", chan, m1], m.raw
    assert m1 in history_ids(v, chan), "a refused REDACT deletes nothing"
    m = redact_fail(u, "%s %s" % (chan, mo))
    assert m.params[1:4] == ["UNKNOWN_MSGID", chan, mo], m.raw
    m = redact_fail(u, "%s nosuchmsgid" % chan)
    assert m.params[1:4] == ["UNKNOWN_MSGID", chan, "nosuchmsgid"], m.raw
    m = redact_fail(u, "%s %s" % (other, mo))
    assert m.params[1:3] == ["INVALID_TARGET", other], m.raw
    m = redact_fail(u, "%s %s" % ("#no-such-chan", mo))
    assert m.params[1:3] == ["INVALID_TARGET", "#no-such-chan"], m.raw
    op.send("REDACT %s %s" % (chan, m1))
    m = v.expect_msg(r" REDACT ")
    assert m.params == [chan, m1] and m.source.startswith(op.nick + "!"), m.raw
    # a server operator, not even in the channel
    s = cclient(srv, S.nick("rdoper"), RD + " " + BASE)
    s.send("OPER root %s" % OPER_PASSWORD)
    s.expect_numeric(381)
    s.send("REDACT %s %s :moderation" % (chan, m2))
    m = s.expect_msg(r" REDACT |FAIL ")
    assert m.command == "REDACT" and m.params == [chan, m2, "moderation"], m.raw
    m = u.expect_msg(r" REDACT %s %s " % (re.escape(chan), m2))
    ids = history_ids(u, chan)
    assert m1 not in ids and m2 not in ids, ids
    for c in (op, u, v, s):
        c.quit()


def test_redact_private():
    """message-redaction.md "Command" (a nickname target): in a private conversation
    the sender may redact its message and the other side (with the cap) is told; the
    other side may not redact it."""
    srv = shared()
    a = cclient(srv, S.nick("rpa"), RD + " " + BASE, sasl="alice")
    b = cclient(srv, S.nick("rpb"), RD + " " + BASE, sasl="bob")
    mid, _ = say(a, b.nick, "private words")
    b.expect(r" PRIVMSG %s :private words" % b.nick)
    m = redact_fail(b, "%s %s" % (a.nick, mid))
    assert m.params[1] == "REDACT_FORBIDDEN", m.raw
    a.send("REDACT %s %s" % (b.nick, mid))
    m = b.expect_msg(r" REDACT ")
    assert m.params == [b.nick, mid], m.raw
    a.expect(r" REDACT %s %s" % (b.nick, mid))
    assert mid not in history_ids(b, a.nick)
    a.quit()
    b.quit()


def _files(p):
    out = b""
    for suffix in ("", "-wal"):
        try:
            with open(p.db + suffix, "rb") as f:
                out += f.read()
        except FileNotFoundError:
            pass
    return out


def test_redact_leaves_nothing_in_the_database():
    """The brief: a pasted secret, redacted, is really gone: not in the database file nor
    its WAL, not in the copy a mention of an offline account keeps (RT-8), and not in
    CHATHISTORY after a restart."""
    p = PServer("redact-db")
    a = cclient(p, "paster", RD + " " + BASE, sasl="alice")
    a.join("#pub")
    secret = "SECRET-%s" % uuid.uuid4().hex
    keep, _ = say(a, "#pub", "@carol nothing secret here")
    time.sleep(0.01)
    mid, _ = say(a, "#pub", "@carol the password is %s" % secret)
    a.sync()
    assert secret.encode() in _files(p), "the secret must be on disk before the REDACT"
    a.send("REDACT #pub %s :pasted a secret" % mid)
    a.expect(r" REDACT #pub %s" % mid)
    deadline = time.time() + 10 * SLOW
    while secret.encode() in _files(p):
        if time.time() > deadline:
            raise TestFailure("the secret is still in the database files")
        time.sleep(0.1)
    a.quit()
    p.restart()
    c = cclient(p, "reader", BASE, sasl="alice")
    c.join("#pub")
    ids = history_ids(c, "#pub")
    assert mid not in ids and keep in ids, ids
    # carol's kept mention (told at login) is the harmless one only
    carol = cclient(p, "carol1", "", sasl="carol")
    lines = carol.welcome + carol.sync() + carol.drain(0.5)
    assert not [l for l in lines if secret in l or "more mention" in l], lines
    assert [l for l in lines if "nothing secret here" in l], \
        "the other mention must still be told (else this test proves nothing): %r" % lines
    c.quit()
    carol.quit()
    p.stop()


def test_redact_not_in_an_agents_transcript():
    """The brief: an agent's transcript is read from the stored history (SS-2), so a
    redacted message is not given to an agent in a later turn, while what was said
    around it is."""
    echo = os.path.join(AGENTS_DIR, "echo-agent.mjs")
    if NODE is None or not os.path.isdir(SDK) or not os.path.isfile(echo):
        raise SkipTest("node or tests/agents/node_modules missing")
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, config_extra=(
        "[agent echo]\ncommand = %s %s rdtest%d\nchannels = #rdag\n"
        "description = the echo agent\nusers = *\n" % (NODE, echo, os.getpid())))
    u = cclient(srv, "rdagu", RD + " " + BASE)
    lines = u.join("#rdag")
    assert [l for l in lines if re.search(r"[ :@+]echo\b", l) and " 353 " in l], lines
    # Two people: only what names the agent starts a turn (RT-1), the rest is transcript.
    v = cclient(srv, "rdagv", BASE)
    v.join("#rdag")
    secret = "SECRET-%s" % uuid.uuid4().hex
    say(u, "#rdag", "before the paste")
    mid, _ = say(u, "#rdag", "oops %s" % secret)
    u.send("REDACT #rdag %s" % mid)
    u.expect(r" REDACT #rdag %s" % mid)
    say(u, "#rdag", "after the paste")
    say(u, "#rdag", "@echo what did I say?")
    lines = until_done(u, "echo", "#rdag", 20)
    said = "\n".join(parse(l).params[-1] for l in lines
                     if parse(l).command == "PRIVMSG" and is_from(parse(l), "echo"))
    assert "before the paste" in said and "after the paste" in said, \
        "the transcript must hold the lines around it: %r" % said
    assert secret not in said, "the redacted line reached the agent: %r" % said
    v.quit()
    u.quit()
    srv.stop()


if __name__ == "__main__":
    run_tests(globals())

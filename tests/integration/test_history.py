#!/usr/bin/env python3
"""Issue 5, HS-1..HS-4: the SQLite store and chat history.

Messages (channel and private) survive a SIGTERM restart and a kill -9 with the same
msgids and times; channel topic, modes, key, limit and bans come back; every CHATHISTORY
subcommand with msgid and timestamp references, limits, BETWEEN both ways, AROUND, the
exclusive references of BEFORE/AFTER/LATEST; TARGETS; who may read private history; FAIL
codes on bad input; JOIN replay with and without batch/server-time, history-replay = 0 and
none for chathistory clients; history-max-rows pruning at start; a locked database makes the
sender get FAIL and nothing is relayed; a database in a missing directory stops the start."""

import base64
import collections
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Server, Shared,  # noqa: E402
                        SLOW, TestFailure, daemon_path, isupport, parse,
                        remove_at_exit, run_tests)

TMP = tempfile.mkdtemp(prefix="agentircd-history-")
PASSWORD = "Hist-Pass-42"
ALL_CAPS = "batch server-time message-tags echo-message"
CH_CAPS = "draft/chathistory " + ALL_CAPS
EPOCH0 = "timestamp=2000-01-01T00:00:00.000Z"
EPOCH1 = "timestamp=2100-01-01T00:00:00.000Z"


from ircharness import hash_password  # noqa: E402


_accounts = None


def accounts():
    """[account] sections for alice, bob and carol (one hash, computed once)."""
    global _accounts
    if _accounts is None:
        h = hash_password(PASSWORD)
        _accounts = "".join("\n[account %s]\npassword = %s\n" % (n, h)
                            for n in ("alice", "bob", "carol"))
    return _accounts


class PServer(PersistentServer):
    """A server whose database is in TMP and whose directory survives stop()."""

    def __init__(self, name, **kw):
        kw.setdefault("flood_exempt", "127.0.0.0/8")
        PersistentServer.__init__(self, os.path.join(TMP, name + ".db"), **kw)


remove_at_exit(TMP)

S = Shared(flood_exempt="127.0.0.0/8", config_extra="")   # accounts added lazily


def shared():
    if not S.kw["config_extra"]:
        S.kw["config_extra"] = accounts()
    return S()


# ---------------------------------------------------------------- helpers

def b64plain(user, pw):
    return base64.b64encode(("\0%s\0%s" % (user, pw)).encode()).decode()


def cclient(srv, nick, caps="", sasl=None, pass_login=None):
    """Register nick after CAP REQ caps; sasl=account logs in with SASL PLAIN,
    pass_login=account with PASS account:password."""
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
        c.send("AUTHENTICATE " + b64plain(sasl, PASSWORD))
        c.expect_numeric(903)
    if req:
        c.send("CAP END")
    c.register(nick, password=("%s:%s" % (pass_login, PASSWORD)) if pass_login else None)
    return c


Sent = collections.namedtuple("Sent", "msgid time text prefix")


def say(c, target, texts, cmd="PRIVMSG", gap=0.0):
    """Send texts to target; wait for every echo (c has echo-message, message-tags and
    server-time); return the Sent records in order."""
    out = []
    if gap:
        for t in texts:
            c.send("%s %s :%s" % (cmd, target, t))
            out += _echoes(c, cmd, target, [t])
            time.sleep(gap)
        return out
    c.send_raw(b"".join(("%s %s :%s\r\n" % (cmd, target, t)).encode() for t in texts))
    return _echoes(c, cmd, target, texts)


def _echoes(c, cmd, target, texts):
    out = []
    for t in texts:
        m = c.expect_msg(r"^@\S+ :%s!\S+ %s %s :%s$|^(?:@\S+ )?:\S+ FAIL "
                         % (re.escape(c.nick), cmd, re.escape(target), re.escape(t)), 10)
        if m.command == "FAIL":
            raise TestFailure("%s %s :%s refused: %s" % (cmd, target, t, m.raw))
        assert "msgid" in m.tags and "time" in m.tags, m.raw
        out.append(Sent(m.tags["msgid"], m.tags["time"], t, m.source))
    return out


BATCH_OR_FAIL = r"^(?:@\S+ )?:\S+ (?:BATCH \+\S+ chathistory |FAIL CHATHISTORY )"


def chathistory(c, args, timeout=5):
    """Send CHATHISTORY args; return the messages of the chathistory batch (Msg list).
    c must have batch; a FAIL raises TestFailure."""
    c.send("CHATHISTORY " + args)
    m = c.expect_msg(BATCH_OR_FAIL, timeout)
    if m.command == "FAIL":
        raise TestFailure("CHATHISTORY %s: %s" % (args, m.raw))
    ref = m.params[0][1:]
    target = args.split()[1]
    assert m.params[1] == "chathistory" and m.params[2] == target, m.raw
    lines = c.collect_until(r"^(?:@\S+ )?:\S+ BATCH -%s$" % re.escape(ref), timeout)
    msgs = [parse(l) for l in lines[:-1]]
    for x in msgs:
        assert x.tags.get("batch") == ref, "line outside the batch: %r" % x.raw
        assert x.command in ("PRIVMSG", "NOTICE"), x.raw
        assert "msgid" in x.tags and "time" in x.tags, x.raw
    return msgs


def ids(msgs):
    return [m.tags["msgid"] if hasattr(m, "tags") else m.msgid for m in msgs]


def same(got, want, what=""):
    """got (Msg list) carries exactly want (Sent list): msgid, time and text, in order."""
    g = [(m.tags["msgid"], m.tags["time"], m.params[-1]) for m in got]
    w = [(s.msgid, s.time, s.text) for s in want]
    if g != w:
        raise TestFailure("%s: history differs\n got: %s\nwant: %s"
                          % (what, [x[2] for x in g], [x[2] for x in w]))


def ch_fail(c, args, codes=("INVALID_PARAMS",), alt_numeric=None):
    """CHATHISTORY args must answer FAIL CHATHISTORY <one of codes>, and no batch."""
    c.send("CHATHISTORY " + args)
    rx = BATCH_OR_FAIL
    if alt_numeric:
        rx += r"|^(?:@\S+ )?:\S+ %s " % alt_numeric
    m = c.expect_msg(rx)
    if m.command == "BATCH":
        raise TestFailure("CHATHISTORY %s: a batch instead of FAIL: %s" % (args, m.raw))
    if m.command == "FAIL":
        assert m.params[1] in codes, "CHATHISTORY %s: %s (want %s)" % (args, m.raw, codes)
    # nothing else follows (no batch after the FAIL)
    rest = c.sync()
    assert not [l for l in rest if " BATCH " in l or " PRIVMSG " in l], rest
    return m


def joined(c, chan, key=None):
    """JOIN; return (lines up to 366, lines after 366 up to a PING round trip)."""
    lines = c.join(chan, key)
    assert parse(lines[-1]).command == "366", lines[-1]
    return lines, c.sync()


def ts_of(t):
    return "timestamp=" + t


# ---------------------------------------------------------------- basics

def test_isupport_and_cap():
    """ISUPPORT CHATHISTORY=100, MSGREFTYPES=timestamp,msgid; cap draft/chathistory."""
    srv = shared()
    c = Client(srv)
    c.send("CAP LS 302")
    caps = []
    while True:
        m = c.expect_msg(r" CAP \S+ LS ")
        caps += [w.split("=")[0] for w in m.params[-1].split()]
        if not (len(m.params) == 4 and m.params[2] == "*"):
            break
    assert "draft/chathistory" in caps, caps
    c.send("CAP END")
    isup = isupport(c.register(S.nick("isup")))
    assert isup.get("CHATHISTORY") == "100", isup
    assert isup.get("MSGREFTYPES") == "timestamp,msgid", isup
    c.quit()


# ---------------------------------------------------------------- CHATHISTORY

class Hist:
    """One channel with 30 messages (a few ms apart) on the shared server."""
    ready = None


def hist():
    if Hist.ready is None or not Hist.ready[0].server.alive():
        srv = shared()
        a = cclient(srv, S.nick("ha"), CH_CAPS)
        chan = S.chan("#hist")
        a.join(chan)
        sent = say(a, chan, ["line %02d" % i for i in range(30)], gap=0.003)
        Hist.ready = (a, chan, sent)
    return Hist.ready


def exp_before(L, ref, lim):
    if ref.startswith("msgid="):
        i = ids(L).index(ref[6:])
        return L[:i][-lim:]
    t = ref[10:]
    return [m for m in L if m.time < t][-lim:]


def exp_after(L, ref, lim):
    if ref.startswith("msgid="):
        i = ids(L).index(ref[6:])
        return L[i + 1:][:lim]
    t = ref[10:]
    return [m for m in L if m.time > t][:lim]


def exp_latest(L, ref, lim):
    if ref == "*":
        return L[-lim:]
    if ref.startswith("msgid="):
        i = ids(L).index(ref[6:])
        return L[i + 1:][-lim:]
    t = ref[10:]
    return [m for m in L if m.time > t][-lim:]


def _pos(L, ref):
    """(lower-exclusive index of things strictly after, upper-exclusive before)."""
    if ref.startswith("msgid="):
        i = ids(L).index(ref[6:])
        return i, i
    t = ref[10:]
    below = len([m for m in L if m.time < t])      # L[:below] are before
    above = len([m for m in L if m.time <= t]) - 1  # L[above+1:] are after
    return below, above


def exp_between(L, r1, r2, lim):
    b1, a1 = _pos(L, r1)
    b2, a2 = _pos(L, r2)
    if b1 <= b2:
        return L[a1 + 1:b2][:lim]
    return L[a2 + 1:b1][-lim:]


def test_latest_before_after_msgid():
    """LATEST *, LATEST/BEFORE/AFTER msgid=: the reference itself is excluded; limits."""
    a, chan, L = hist()
    same(chathistory(a, "LATEST %s * 100" % chan), L, "LATEST *")
    same(chathistory(a, "LATEST %s * 5" % chan), L[-5:], "LATEST * 5")
    same(chathistory(a, "latest %s * 1" % chan), L[-1:], "lower-case subcommand")
    for k, lim in ((10, 5), (10, 100), (0, 3), (29, 3), (25, 2)):
        r = "msgid=" + L[k].msgid
        same(chathistory(a, "BEFORE %s %s %d" % (chan, r, lim)), exp_before(L, r, lim),
             "BEFORE %d %d" % (k, lim))
        same(chathistory(a, "AFTER %s %s %d" % (chan, r, lim)), exp_after(L, r, lim),
             "AFTER %d %d" % (k, lim))
        same(chathistory(a, "LATEST %s %s %d" % (chan, r, lim)), exp_latest(L, r, lim),
             "LATEST %d %d" % (k, lim))
    # explicit exclusivity
    r = "msgid=" + L[10].msgid
    assert L[10].msgid not in ids(chathistory(a, "BEFORE %s %s 100" % (chan, r)))
    assert L[10].msgid not in ids(chathistory(a, "AFTER %s %s 100" % (chan, r)))
    assert L[10].msgid not in ids(chathistory(a, "LATEST %s %s 100" % (chan, r)))
    assert chathistory(a, "BEFORE %s msgid=%s 10" % (chan, L[0].msgid)) == []
    assert chathistory(a, "AFTER %s msgid=%s 10" % (chan, L[-1].msgid)) == []
    assert chathistory(a, "LATEST %s msgid=%s 10" % (chan, L[-1].msgid)) == []


def test_timestamp_refs():
    """BEFORE/AFTER/LATEST/BETWEEN with timestamp=: a message at exactly that time is excluded."""
    a, chan, L = hist()
    for k in (0, 7, 15, 29):
        r = ts_of(L[k].time)
        for lim in (4, 100):
            got = chathistory(a, "BEFORE %s %s %d" % (chan, r, lim))
            same(got, exp_before(L, r, lim), "BEFORE ts %d" % k)
            assert L[k].msgid not in ids(got)
            got = chathistory(a, "AFTER %s %s %d" % (chan, r, lim))
            same(got, exp_after(L, r, lim), "AFTER ts %d" % k)
            assert L[k].msgid not in ids(got)
            got = chathistory(a, "LATEST %s %s %d" % (chan, r, lim))
            same(got, exp_latest(L, r, lim), "LATEST ts %d" % k)
    same(chathistory(a, "AFTER %s %s 100" % (chan, EPOCH0)), L, "AFTER 2000")
    same(chathistory(a, "BEFORE %s %s 3" % (chan, EPOCH1)), L[-3:], "BEFORE 2100")
    assert chathistory(a, "BEFORE %s %s 10" % (chan, EPOCH0)) == []
    assert chathistory(a, "AFTER %s %s 10" % (chan, EPOCH1)) == []
    assert chathistory(a, "LATEST %s %s 10" % (chan, EPOCH1)) == []


def test_between_both_orders():
    """BETWEEN: bounds excluded; forwards keeps the oldest, backwards the newest; ascending."""
    a, chan, L = hist()
    lo, hi = "msgid=" + L[3].msgid, "msgid=" + L[20].msgid
    same(chathistory(a, "BETWEEN %s %s %s 100" % (chan, lo, hi)), L[4:20], "BETWEEN fwd")
    same(chathistory(a, "BETWEEN %s %s %s 100" % (chan, hi, lo)), L[4:20], "BETWEEN back")
    same(chathistory(a, "BETWEEN %s %s %s 5" % (chan, lo, hi)), L[4:9], "BETWEEN fwd 5")
    same(chathistory(a, "BETWEEN %s %s %s 5" % (chan, hi, lo)), L[15:20], "BETWEEN back 5")
    assert chathistory(a, "BETWEEN %s %s msgid=%s 10" % (chan, lo, L[4].msgid)) == []
    for r1, r2 in ((ts_of(L[2].time), ts_of(L[25].time)),
                   (ts_of(L[25].time), ts_of(L[2].time)),
                   ("msgid=" + L[2].msgid, ts_of(L[25].time)),
                   (EPOCH0, EPOCH1), (EPOCH1, EPOCH0)):
        for lim in (3, 100):
            same(chathistory(a, "BETWEEN %s %s %s %d" % (chan, r1, r2, lim)),
                 exp_between(L, r1, r2, lim), "BETWEEN %s %s %d" % (r1, r2, lim))


def test_around():
    """AROUND msgid: a contiguous slice of limit messages containing the reference, about
    half on each side; limit 1 is the message itself; AROUND timestamp likewise."""
    a, chan, L = hist()
    all_ids = ids(L)
    for k, lim in ((15, 10), (15, 11), (15, 1), (15, 2), (1, 10), (28, 10), (15, 100)):
        got = ids(chathistory(a, "AROUND %s msgid=%s %d" % (chan, L[k].msgid, lim)))
        assert L[k].msgid in got, ("AROUND must include the reference", k, lim)
        i = all_ids.index(got[0])
        assert all_ids[i:i + len(got)] == got, ("AROUND not contiguous/ordered", k, lim)
        assert len(got) <= lim, (k, lim, len(got))
        if k - lim // 2 >= 0 and k + lim // 2 < len(L):
            assert len(got) == lim, (k, lim, len(got))
        elif k - lim // 2 < 0:
            assert got[0] == L[0].msgid, ("AROUND near the start skips the oldest", k, lim)
        else:
            assert got[-1] == L[-1].msgid, ("AROUND near the end skips the newest", k, lim)
        if lim == 1:
            assert got == [L[k].msgid]
        before = got.index(L[k].msgid)
        if k - lim // 2 >= 0 and k + lim // 2 < len(L):
            assert abs(before - (len(got) - 1 - before)) <= 1, \
                ("AROUND is lopsided", k, lim, before, len(got))
    got = ids(chathistory(a, "AROUND %s %s 10" % (chan, ts_of(L[15].time))))
    assert len(got) == 10, got
    i = all_ids.index(got[0])
    assert all_ids[i:i + 10] == got
    assert L[15].time >= L[i].time and L[15].time <= L[i + 9].time


def test_tags_and_batch_shape():
    """Replies are one chathistory batch with the original msgid, time, prefix and text;
    a NOTICE comes back as a NOTICE; TAGMSG is not stored."""
    srv = shared()
    a = cclient(srv, S.nick("tg"), CH_CAPS)
    chan = S.chan("#tags")
    a.join(chan)
    s1 = say(a, chan, ["a privmsg"])
    s2 = say(a, chan, ["a notice"], cmd="NOTICE")
    a.send("@+typing=active TAGMSG %s" % chan)
    s3 = say(a, chan, ["\x01ACTION waves\x01"])
    got = chathistory(a, "LATEST %s * 10" % chan)
    same(got, s1 + s2 + s3, "privmsg/notice/action")
    assert [m.command for m in got] == ["PRIVMSG", "NOTICE", "PRIVMSG"], got
    assert got[0].source == s1[0].prefix, (got[0].source, s1[0].prefix)
    a.quit()


def test_limits():
    """limit 0 and limit > 100 give 100 (ISUPPORT CHATHISTORY=100); limit n gives n."""
    srv = shared()
    a = cclient(srv, S.nick("lim"), CH_CAPS)
    chan = S.chan("#big")
    a.join(chan)
    L = say(a, chan, ["big %03d" % i for i in range(120)])
    same(chathistory(a, "LATEST %s * 0" % chan), L[-100:], "limit 0")
    same(chathistory(a, "LATEST %s * 101" % chan), L[-100:], "limit 101")
    same(chathistory(a, "LATEST %s * 99999" % chan), L[-100:], "limit 99999")
    same(chathistory(a, "LATEST %s * 100" % chan), L[-100:], "limit 100")
    same(chathistory(a, "AFTER %s %s 0" % (chan, EPOCH0)), L[:100], "AFTER limit 0")
    same(chathistory(a, "BEFORE %s msgid=%s 0" % (chan, L[-100].msgid)), L[:20], "page 2")
    a.quit()


def test_fail_codes():
    """Unknown subcommand, missing parameters, bad references, bad limits, channels one
    is not in (existing or not), TARGETS with a msgid: FAIL CHATHISTORY and no batch."""
    a, chan, L = hist()
    srv = a.server
    c = cclient(srv, S.nick("out"), CH_CAPS)
    P = ("INVALID_PARAMS",)
    PR = ("INVALID_PARAMS", "INVALID_MSGREFTYPE")
    m = ch_fail(c, "FOO %s * 10" % chan, P)
    assert m.params[2].upper() == "FOO", m.raw
    ch_fail(c, "LATEST %s" % chan, P, alt_numeric="461")
    ch_fail(c, "LATEST %s *" % chan, P, alt_numeric="461")
    ch_fail(c, "BETWEEN %s msgid=%s 10" % (chan, L[0].msgid), P, alt_numeric="461")
    # bad references (checked as the channel's member, so only the input is wrong)
    for bad in ("BEFORE %s * 10", "AFTER %s * 10", "AROUND %s * 10",
                "BEFORE %s foo 10", "BEFORE %s msgid= 10", "BEFORE %s timestamp= 10",
                "AFTER %s timestamp=yesterday 10", "AFTER %s timestamp=2026-13-45T99:00:00.000Z 10",
                "LATEST %s timestamp=2026-01-01 10", "LATEST %s bogus=1 10",
                "BETWEEN %s * " + EPOCH1 + " 10", "BETWEEN %s " + EPOCH0 + " * 10"):
        m = ch_fail(a, bad % chan, PR)
    for lim in ("-1", "abc", "10x", "1.5"):
        m = ch_fail(a, "LATEST %s * %s" % (chan, lim), P)
        assert m.params[2] == "LATEST", m.raw
    # not a member: the channel exists (a's) or not; the reply reveals nothing, and
    # names the subcommand and target it refused (draft/chathistory "Errors")
    for sub in ("LATEST %s * 10", "BEFORE %s " + EPOCH1 + " 10", "AROUND %s msgid=" + L[3].msgid + " 10",
                "BETWEEN %s " + EPOCH0 + " " + EPOCH1 + " 10"):
        for target in (chan, "#never-made-here"):
            m = ch_fail(c, sub % target, ("INVALID_TARGET",))
            assert m.params[2:4] == [sub.split()[0], target], m.raw
    ch_fail(c, "TARGETS msgid=%s %s 10" % (L[0].msgid, EPOCH1), P)
    ch_fail(c, "TARGETS %s * 10" % EPOCH0, P)
    ch_fail(c, "TARGETS %s %s -2" % (EPOCH0, EPOCH1), P)
    # a msgid of another conversation reveals nothing: empty batch or FAIL
    other = S.chan("#other")
    c.join(other)
    c.send("CHATHISTORY AROUND %s msgid=%s 10" % (other, L[5].msgid))
    m = c.expect_msg(BATCH_OR_FAIL)
    if m.command == "BATCH":
        lines = c.collect_until(r" BATCH -%s$" % re.escape(m.params[0][1:]))
        assert len(lines) == 1, lines
    a.sync()
    assert a.server.alive()
    c.quit()


def test_without_batch_cap():
    """A chathistory client without batch still gets the lines (with their tags), no BATCH."""
    a, chan, L = hist()
    c = cclient(a.server, S.nick("nb"), "draft/chathistory server-time message-tags")
    c.join(chan)
    c.send("CHATHISTORY LATEST %s * 3" % chan)
    lines = c.sync()
    got = [parse(l) for l in lines if " PRIVMSG " in l]
    assert not [l for l in lines if " BATCH " in l], lines
    same(got, L[-3:], "without batch")
    c.quit()


# ---------------------------------------------------------------- TARGETS and private

def _targets(c, args):
    """CHATHISTORY TARGETS args: [(name, time)] from the draft/chathistory-targets batch."""
    c.send("CHATHISTORY TARGETS " + args)
    m = c.expect_msg(r"^(?:@\S+ )?:\S+ (?:BATCH \+\S+ draft/chathistory-targets|FAIL )")
    if m.command == "FAIL":
        raise TestFailure(m.raw)
    ref = m.params[0][1:]
    lines = c.collect_until(r" BATCH -%s$" % re.escape(ref))[:-1]
    out = []
    for l in lines:
        p = parse(l)
        assert p.tags.get("batch") == ref and p.command == "CHATHISTORY" and \
            p.params[0] == "TARGETS", l
        # draft/chathistory "TARGETS": the time bare, as in the spec's examples
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", p.params[2]), l
        out.append((p.params[1], p.params[2]))
    return out


def test_targets():
    """TARGETS lists the caller's channels and private conversations with the time of their
    latest message, oldest first; limit; reversed bounds keep the newest; a time window;
    others' conversations and channels one left are not listed."""
    srv = shared()
    a = cclient(srv, S.nick("tga"), CH_CAPS)
    b = cclient(srv, S.nick("tgb"), CH_CAPS)
    x = cclient(srv, S.nick("tgx"), CH_CAPS)
    c1, c2, c3 = S.chan("#tg"), S.chan("#tg"), S.chan("#tg")
    for ch in (c1, c2):
        a.join(ch)
    x.join(c3)
    start = say(a, c1, ["t1"])[0].time
    time.sleep(0.005)
    last1 = say(a, c1, ["t1b"])[-1].time
    time.sleep(0.005)
    dm_a = say(a, b.nick, ["dm from a"])[-1].time
    time.sleep(0.005)
    last2 = say(a, c2, ["t2"])[-1].time
    time.sleep(0.005)
    say(x, c3, ["not a's"])
    say(x, b.nick, ["x to b"])
    all_ = "%s %s" % (EPOCH0, EPOCH1)
    got = _targets(a, all_ + " 10")
    assert got == [(c1, last1), (b.nick, dm_a), (c2, last2)], got
    assert _targets(a, all_ + " 2") == got[:2]
    assert _targets(a, "%s %s 2" % (EPOCH1, EPOCH0)) == got[1:]
    assert _targets(a, "timestamp=%s timestamp=%s 10" % (start, dm_a)) == got[:2]
    assert [n for n, _ in _targets(a, "%s timestamp=%s 10" % (EPOCH0, start))] in ([], [c1])
    assert _targets(x, all_ + " 10")[0][0] == c3
    a.send("PART %s" % c2)
    a.expect(r" PART %s" % re.escape(c2))
    assert [n for n, _ in _targets(a, all_ + " 10")] == [c1, b.nick]
    for c in (a, b, x):
        c.quit()


def test_targets_names_private_by_peer():
    """A private conversation in TARGETS is named by the other side's nick, also when the
    other side sent the last message (then the stored target is the caller's own nick)."""
    srv = shared()
    a = cclient(srv, S.nick("tna"), CH_CAPS)
    b = cclient(srv, S.nick("tnb"), CH_CAPS)
    x = cclient(srv, S.nick("tnx"), CH_CAPS)
    say(a, b.nick, ["a to b"])
    time.sleep(0.005)
    t_x = say(x, b.nick, ["x to b"])[-1].time
    got = _targets(b, "%s %s 10" % (EPOCH0, EPOCH1))
    assert [n for n, _ in got] == [a.nick, x.nick], \
        "b received the last message of both conversations: %r" % (got,)
    time.sleep(0.005)
    t_b = say(b, a.nick, ["b answers"])[-1].time
    got = _targets(a, "%s %s 10" % (EPOCH0, EPOCH1))
    assert got == [(b.nick, t_b)], got
    got = _targets(b, "%s %s 10" % (EPOCH0, EPOCH1))
    assert got == [(x.nick, t_x), (a.nick, t_b)], got
    for c in (a, b, x):
        c.quit()


def test_private_unauthenticated():
    """Without accounts: both sides read their conversation, own lines included; a third
    user cannot; a new connection with the same nick cannot read the old conversation."""
    srv = shared()
    a = cclient(srv, S.nick("pa"), CH_CAPS)
    b = cclient(srv, S.nick("pb"), CH_CAPS)
    c = cclient(srv, S.nick("pc"), CH_CAPS)
    L = say(a, b.nick, ["hi b"]) + say(b, a.nick, ["hi a"]) + say(a, b.nick, ["bye"])
    same(chathistory(a, "LATEST %s * 10" % b.nick), L, "a reads a<->b")
    same(chathistory(b, "LATEST %s * 10" % a.nick), L, "b reads a<->b")
    same(chathistory(b, "AFTER %s msgid=%s 10" % (a.nick, L[0].msgid)), L[1:], "AFTER")
    # a third user: nothing about a<->b, by either nick, by msgid either
    assert chathistory(c, "LATEST %s * 10" % b.nick) == []
    assert chathistory(c, "LATEST %s * 10" % a.nick) == []
    c.send("CHATHISTORY AROUND %s msgid=%s 10" % (a.nick, L[1].msgid))
    m = c.expect_msg(BATCH_OR_FAIL)
    if m.command == "BATCH":
        assert len(c.collect_until(r" BATCH -")) == 1
    # a nick never talked to (online or not): empty
    assert chathistory(a, "LATEST %s * 10" % c.nick) == []
    assert chathistory(a, "LATEST nobodyhere * 10") == []
    # a leaves; someone else takes the nick: neither side's old lines are shown to it
    an = a.nick
    a.quit()
    time.sleep(0.05)
    imp = cclient(srv, an, CH_CAPS)
    assert chathistory(imp, "LATEST %s * 10" % b.nick) == [], \
        "a new connection with the same nick read the old private history"
    imp.send("CHATHISTORY TARGETS %s %s 10" % (EPOCH0, EPOCH1))
    lines = imp.collect_until(r" BATCH -")
    assert not [l for l in lines if " CHATHISTORY TARGETS " in l], lines
    # and b asking by that nick now reaches the new connection's (empty) conversation
    got = chathistory(b, "LATEST %s * 10" % an)
    assert ids(got) in ([], ids(L)), got
    for x in (b, c, imp):
        x.quit()


def test_private_accounts():
    """A logged-in user reads its private history by account from a new connection (peer
    online or gone, peer with or without an account); others cannot."""
    srv = shared()
    al = cclient(srv, S.nick("al"), CH_CAPS, sasl="alice")
    bo = cclient(srv, S.nick("bo"), CH_CAPS, pass_login="bob")
    gu = cclient(srv, S.nick("gu"), CH_CAPS)                      # a guest, no account
    L = say(al, bo.nick, ["alice to bob 1"]) + say(bo, al.nick, ["bob to alice"]) + \
        say(al, bo.nick, ["alice to bob 2"])
    G = say(gu, al.nick, ["guest to alice"]) + say(al, gu.nick, ["alice to guest"])
    al.quit()
    al2 = cclient(srv, S.nick("al"), CH_CAPS, pass_login="alice")   # other nick, same account
    same(chathistory(al2, "LATEST %s * 10" % bo.nick), L, "alice, bob online")
    same(chathistory(al2, "LATEST %s * 10" % gu.nick), G, "alice, guest online")
    # a third user (a different account) reads nothing
    ca = cclient(srv, S.nick("ca"), CH_CAPS, sasl="carol")
    assert chathistory(ca, "LATEST %s * 10" % bo.nick) == []
    assert chathistory(ca, "LATEST %s * 10" % al2.nick) == []
    bn, gn = bo.nick, gu.nick
    bo.quit()
    gu.quit()
    time.sleep(0.05)
    same(chathistory(al2, "LATEST %s * 10" % bn, ), L, "alice, bob offline")
    same(chathistory(al2, "LATEST %s * 10" % gn), G, "alice, guest offline")
    # bob on a new connection with a new nick reads it by alice's current nick
    bo2 = cclient(srv, S.nick("bo"), CH_CAPS, sasl="bob")
    same(chathistory(bo2, "LATEST %s * 10" % al2.nick), L, "bob, alice online by new nick")
    # the guest's nick taken by an unauthenticated stranger: nothing
    st = cclient(srv, gn, CH_CAPS)
    assert chathistory(st, "LATEST %s * 10" % al2.nick) == []
    # the stranger takes bob's old nick: still nothing of bob's
    st2 = cclient(srv, bn, CH_CAPS)
    assert chathistory(st2, "LATEST %s * 10" % al2.nick) == []
    for x in (al2, ca, bo2, st, st2):
        x.quit()


# ---------------------------------------------------------------- JOIN replay

def _replay_setup():
    srv = shared()
    s = cclient(srv, S.nick("rs"), ALL_CAPS)
    chan = S.chan("#replay")
    s.join(chan)
    L = say(s, chan, ["replay %02d" % i for i in range(60)])
    return srv, s, chan, L


def _privmsgs(lines):
    return [parse(l) for l in lines if parse(l).command == "PRIVMSG"]


def test_join_replay_variants():
    """The last 50 lines after NAMES: a chathistory batch with time tags (batch +
    server-time), plain lines with time tags (server-time only), a batch with
    '[HH:MM:SS] ' prefixes (batch only), plain prefixed lines (no caps); nothing for a
    client with draft/chathistory."""
    srv, s, chan, L = _replay_setup()
    want = L[-50:]

    c = cclient(srv, S.nick("rbt"), "batch server-time message-tags")
    _, after = joined(c, chan)
    assert parse(after[0]).command == "BATCH" and parse(after[0]).params[0].startswith("+"), after[:2]
    b = parse(after[0])
    assert b.params[1:] == ["chathistory", chan], after[0]
    ref = b.params[0][1:]
    assert parse(after[-1]).command == "BATCH" and parse(after[-1]).params == ["-" + ref], after[-1]
    got = _privmsgs(after)
    assert len(got) == len(after) - 2, after
    assert all(m.tags.get("batch") == ref for m in got)
    same(got, want, "batch+server-time replay")
    c.quit()

    c = cclient(srv, S.nick("rt"), "server-time")
    _, after = joined(c, chan)
    assert not [l for l in after if " BATCH " in l], after[:3]
    got = _privmsgs(after)
    assert [m.params[-1] for m in got] == [x.text for x in want], after[:3]
    assert [m.tags.get("time") for m in got] == [x.time for x in want]
    c.quit()

    def prefixed(x):
        return "[%s] %s" % (x.time[11:19], x.text)

    c = cclient(srv, S.nick("rb"), "batch")
    _, after = joined(c, chan)
    assert parse(after[0]).command == "BATCH", after[:2]
    got = _privmsgs(after)
    assert [m.params[-1] for m in got] == [prefixed(x) for x in want], \
        [m.params[-1] for m in got][:3]
    assert all("time" not in m.tags for m in got), got[0].raw
    c.quit()

    c = cclient(srv, S.nick("rn"))
    _, after = joined(c, chan)
    assert after and all(not l.startswith("@") for l in after), after[:3]
    got = _privmsgs(after)
    assert len(got) == len(after), after
    assert [m.params[-1] for m in got] == [prefixed(x) for x in want], \
        [m.params[-1] for m in got][:3]
    assert all(m.source == want[0].prefix for m in got)
    c.quit()

    c = cclient(srv, S.nick("rc"), CH_CAPS)
    _, after = joined(c, chan)
    assert not _privmsgs(after) and not [l for l in after if " BATCH " in l], after
    c.quit()
    s.quit()


def test_join_replay_none_for_a_channel_created_empty():
    """HS-3: "a channel created empty get[s] no replay": the first JOIN of a new channel,
    and a second person's JOIN while nothing has been said, bring no chathistory batch
    (not even an empty one), whatever the caps; once something is said, a newcomer's
    JOIN brings it."""
    srv = shared()
    chan = S.chan("#fresh")
    caps = ("batch server-time message-tags", "batch", "server-time", "")
    first = cclient(srv, S.nick("fr"), caps[0])
    _, after = joined(first, chan)
    assert not [l for l in after if " BATCH " in l or " PRIVMSG " in l], after
    for cp in caps:
        c = cclient(srv, S.nick("fr"), cp)
        _, after = joined(c, chan)
        assert not [l for l in after if " BATCH " in l or " PRIVMSG " in l], (cp, after)
        c.quit()
    first.send("PRIVMSG %s :now there is history" % chan)
    first.sync()
    c = cclient(srv, S.nick("fr"), caps[0])
    _, after = joined(c, chan)
    assert [l for l in after if " BATCH +" in l], after
    assert [l for l in after if "now there is history" in l], after
    c.quit()
    first.quit()


def test_join_replay_config():
    """history-replay = 3 replays 3 lines; history-replay = 0 none; history-max-rows
    prunes at start."""
    p = PServer("replay3", history_replay=3, history_max_rows=5)
    s = cclient(p, "sender", ALL_CAPS)
    s.join("#r3")
    L = say(s, "#r3", ["r3 %d" % i for i in range(10)])
    c = cclient(p, "joiner", "batch server-time message-tags")
    _, after = joined(c, "#r3")
    same(_privmsgs(after), L[-3:], "history-replay = 3")
    p.restart()
    h = cclient(p, "reader", CH_CAPS)
    h.join("#r3")
    same(chathistory(h, "LATEST #r3 * 0"), L[-5:], "history-max-rows = 5 after restart")
    h.quit()
    p.stop()

    z = PServer("replay0", history_replay=0)
    s = cclient(z, "sender", ALL_CAPS)
    s.join("#r0")
    say(s, "#r0", ["r0 %d" % i for i in range(5)])
    for caps in ("", "batch server-time"):
        c = cclient(z, "j%d" % len(caps), caps)
        _, after = joined(c, "#r0")
        assert not _privmsgs(after) and not [l for l in after if " BATCH " in l], after
        c.quit()
    z.stop()


def test_history_days_prunes_at_start():
    """history-days = 1: at the next start, messages older than a day are deleted,
    newer ones kept."""
    p = PServer("days", history_days=1)
    s = cclient(p, "sender", ALL_CAPS)
    s.join("#d")
    L = say(s, "#d", ["recent 1", "recent 2"])
    s.close()
    p.stop()
    db = sqlite3.connect(p.db, isolation_level=None)
    old_ms = int((time.time() - 3 * 86400) * 1000)
    db.execute("INSERT INTO messages (msgid, time, conv, target, kind, prefix, nick, "
               "account, text, tags) VALUES ('old-1', ?, '#d', '#d', 'PRIVMSG', "
               "'sender!s@127.0.0.1', 'sender', NULL, 'three days old', NULL)", (old_ms,))
    assert db.execute("SELECT count(*) FROM messages WHERE conv = '#d'").fetchone()[0] == 3
    db.close()
    p.start()
    h = cclient(p, "reader", CH_CAPS)
    h.join("#d")
    same(chathistory(h, "LATEST #d * 10"), L, "history-days = 1")
    h.quit()
    p.stop()


# ---------------------------------------------------------------- restart

def test_restart_keeps_history_and_channel():
    """SIGTERM restart: channel and private history come back with the same msgids and
    times (CHATHISTORY and JOIN replay); topic, modes, key, limit and bans are restored;
    AU-7: the op's account gets op back and reads the +s/+k channel's past, a newcomer
    gets neither; new msgids do not clash."""
    p = PServer("restart", config_extra=accounts())
    op = cclient(p, "oper1", ALL_CAPS, sasl="alice")
    op.join("#keep")
    chan_msgs = say(op, "#keep", ["keep %d" % i for i in range(5)])
    chan_msgs += say(op, "#keep", ["keep notice"], cmd="NOTICE")
    op.send("TOPIC #keep :the kept topic")
    op.expect(r" TOPIC #keep :the kept topic")
    op.send("MODE #keep +smk-t sekrit")
    op.expect(r" MODE #keep ")
    op.send("MODE #keep +l 42")
    op.expect(r" MODE #keep \+l 42")
    op.send("MODE #keep +b *!*@banned.example")
    op.expect(r" MODE #keep \+b \*!\*@banned\.example")
    op.send("MODE #keep")
    before = op.expect_msg(r" 324 ")
    al = cclient(p, "alice1", ALL_CAPS, sasl="alice")
    bo = cclient(p, "bob1", ALL_CAPS, pass_login="bob")
    dms = say(al, "bob1", ["private 1"]) + say(bo, "alice1", ["private 2"]) + \
        say(al, "bob1", ["private 3"])
    al.join("#plain")
    plain = say(al, "#plain", ["only history here"])
    for c in (op, al, bo):
        c.close()

    p.restart()
    assert "database %s" % p.db in p.log_text(), p.log_tail()

    x = cclient(p, "first", CH_CAPS)
    x.send("LIST")
    listed = [parse(l).params[1] for l in x.collect_until(r" 323 ") if parse(l).command == "322"]
    assert "#plain" in listed, "a channel with history must reappear after a restart: %r" % listed
    x.send("JOIN #keep")
    m = x.expect_msg(r" (?:475|JOIN) ")
    assert m.command == "475", "the key was not restored: %s" % m.raw
    lines = x.join("#keep", "sekrit")
    assert parse(lines[-1]).command == "366", lines
    topic = [parse(l) for l in lines if parse(l).command == "332"]
    assert topic and topic[0].params[-1] == "the kept topic", lines
    who = [parse(l) for l in lines if parse(l).command == "333"]
    assert who and who[0].params[2].split("!")[0] == "oper1", lines
    names = [parse(l) for l in lines if parse(l).command == "353"]
    assert names and names[0].params[-1].split() == ["first"], \
        "AU-7: a restored channel gives op to nobody it does not remember: %r" % lines
    x.send("MODE #keep")
    m324 = x.expect_msg(r" 324 ")
    assert set(m324.params[2]) == set(before.params[2]) == set("+smkln"), (m324.raw, before.raw)
    assert "sekrit" in m324.params[3:] and "42" in m324.params[3:], m324.raw
    x.send("MODE #keep b")
    bl = x.collect_until(r" 368 ")
    assert [parse(l).params[2] for l in bl if parse(l).command == "367"] == \
        ["*!*@banned.example"], bl
    assert chathistory(x, "LATEST #keep * 100") == [], \
        "AU-7: a newcomer to a +s/+k channel reads none of what was said before"

    y = cclient(p, "second", "batch server-time message-tags")
    _, after = joined(y, "#keep", "sekrit")
    got = [parse(l) for l in after if parse(l).command in ("PRIVMSG", "NOTICE")]
    assert got == [], "AU-7: nor is it replayed to one: %r" % after

    o2 = cclient(p, "oper2", CH_CAPS, sasl="alice")
    lines = o2.join("#keep", "sekrit")
    names = [parse(l) for l in lines if parse(l).command == "353"]
    assert names and "@oper2" in names[0].params[-1].split(), \
        "AU-7: the op's account gets op back after a restart: %r" % lines
    same(chathistory(o2, "LATEST #keep * 100"), chan_msgs, "channel after restart")
    assert [m.command for m in chathistory(o2, "LATEST #keep * 2")] == ["PRIVMSG", "NOTICE"]
    o3 = cclient(p, "oper3", "batch server-time message-tags", sasl="alice")
    _, after = joined(o3, "#keep", "sekrit")
    got = [parse(l) for l in after if parse(l).command in ("PRIVMSG", "NOTICE")]
    same(got, chan_msgs, "JOIN replay after restart, to the member's account")

    al = cclient(p, "alice2", CH_CAPS, sasl="alice")
    same(chathistory(al, "LATEST bob1 * 10"), dms, "private history after restart")
    bo = cclient(p, "bob2", CH_CAPS, pass_login="bob")
    same(chathistory(bo, "LATEST alice2 * 10"), dms, "private history, peer online")
    # new messages after the restart: stored, relayed, msgids not reused
    _, after = joined(al, "#plain")
    assert [parse(l).params[-1] for l in after if " PRIVMSG " in l] == [], \
        "no replay for a chathistory client"
    same(chathistory(al, "LATEST #plain * 10"), plain, "#plain after restart")
    new = say(o2, "#keep", ["after restart"])
    assert new[0].msgid not in ids(chan_msgs) + ids(dms)
    same(chathistory(x, "LATEST #keep * 100"), new, "the newcomer reads its own time")
    same(chathistory(o2, "LATEST #keep * 100"), chan_msgs + new, "old + new")
    for c in (x, y, o2, o3, al, bo):
        c.quit()
    p.stop()


# ---------------------------------------------------------------- AU-7

def nick_prefix(lines, nick):
    """The prefix (@, + or "") of nick in the NAMES of JOIN's lines."""
    for l in lines:
        m = parse(l)
        if m.command == "353":
            for n in m.params[-1].split():
                if n.lstrip("@+").lower() == nick.lower():
                    return n[:len(n) - len(n.lstrip("@+"))]
    raise AssertionError("%s not in NAMES: %r" % (nick, lines))


def test_h2_emptied_secret_channel_keeps_its_authority():
    """H2 as the review did it: alice (logged in) makes #secretroom2 +sk, says the launch
    code and parts. mallory without the key gets 475; with it, no op, no replay, an empty
    CHATHISTORY; a ban set before the channel emptied still holds. alice's account comes
    back to op and to the whole history (AU-7). I6: this is what a restart keeps too
    (test_restart_keeps_history_and_channel), so it no longer depends on one."""
    srv = shared()
    al = cclient(srv, "alice9", CH_CAPS, sasl="alice")
    al.join("#secretroom2")
    al.send("MODE #secretroom2 +sk hunter2")
    al.expect(r" MODE #secretroom2 \+sk hunter2")
    al.send("MODE #secretroom2 +b banned7!*@*")
    al.expect(r" MODE #secretroom2 \+b banned7!\*@\*")
    code = say(al, "#secretroom2", ["the launch code is 0000"])
    al.send("PART #secretroom2")
    al.expect(r" PART #secretroom2")

    m6 = cclient(srv, "mallory6", "batch server-time")
    m6.send("JOIN #secretroom2")
    m = m6.expect_msg(r" (?:475|JOIN) ")
    assert m.command == "475", "AU-7: the key must outlive the channel's members: %s" % m.raw
    lines, after = joined(m6, "#secretroom2", "hunter2")
    assert nick_prefix(lines, "mallory6") == "", \
        "AU-7: nobody gets op by finding a channel empty: %r" % lines
    assert not [l for l in lines + after if "launch code" in l], \
        "AU-7: the JOIN replay gave a newcomer what was said before: %r" % (lines + after)
    m5 = cclient(srv, "mallory5", CH_CAPS)
    m5.join("#secretroom2", "hunter2")
    assert chathistory(m5, "LATEST #secretroom2 * 50") == [], \
        "AU-7: CHATHISTORY gave a newcomer what was said before"
    m6.send("MODE #secretroom2 -k hunter2")
    m6.expect_numeric(482)
    b7 = cclient(srv, "banned7")
    b7.send("JOIN #secretroom2 hunter2")
    b7.expect_numeric(474)

    back = cclient(srv, "alice10", CH_CAPS, sasl="alice")
    lines = back.join("#secretroom2", "hunter2")
    assert nick_prefix(lines, "alice10") == "@", \
        "AU-7: the op's account gets op back: %r" % lines
    same(chathistory(back, "LATEST #secretroom2 * 50"), code, "the op's own history")
    for c in (m6, m5, b7, back, al):
        c.quit()


def test_au7_returning_member_reads_only_their_time():
    """AU-7, HS-3: bob (logged in) leaves a +s channel, alice talks, bob comes back: his
    CHATHISTORY and his JOIN replay have what was said while he was in, not what was said
    while he was away; in a channel that is not closed he reads everything."""
    srv = shared()
    al = cclient(srv, "alice11", CH_CAPS, sasl="alice")
    bo = cclient(srv, "bob11", CH_CAPS, sasl="bob")
    for ch in ("#closed11", "#open11"):
        al.join(ch)
        bo.join(ch)
    al.send("MODE #closed11 +s")
    al.expect(r" MODE #closed11 \+s")
    before = {ch: say(al, ch, ["while both were in"]) for ch in ("#closed11", "#open11")}
    for ch in ("#closed11", "#open11"):
        bo.send("PART " + ch)
        bo.expect(r" PART " + ch)
    away = {ch: say(al, ch, ["while bob was away"]) for ch in ("#closed11", "#open11")}
    for ch in ("#closed11", "#open11"):
        bo.join(ch)
    back = {ch: say(al, ch, ["bob is back"]) for ch in ("#closed11", "#open11")}
    same(chathistory(bo, "LATEST #closed11 * 50"), before["#closed11"] + back["#closed11"],
         "a returning member of a +s channel")
    same(chathistory(bo, "LATEST #open11 * 50"),
         before["#open11"] + away["#open11"] + back["#open11"], "an open channel")
    b2 = cclient(srv, "bob12", "batch server-time message-tags", sasl="bob")
    _, after = joined(b2, "#closed11")
    got = [parse(l) for l in after if parse(l).command == "PRIVMSG"]
    same(got, before["#closed11"] + back["#closed11"], "the JOIN replay of bob's account")
    for c in (al, bo, b2):
        c.quit()


def test_hs3_replay_of_what_was_missed():
    """HS-3 (revised): carol (logged in, without draft/chathistory) leaves #hs3 and comes
    back: her JOIN replay is what was said while she was away, not the last 50 lines;
    nothing at all when nothing was said (no empty batch); after a disconnection, what
    was said since; more than history-replay missed: the newest history-replay of it. A
    second connection of hers while she is in, and anyone who never was here, get the
    last lines; a bot (+B) gets none."""
    p = PServer("hs3", history_replay=4, config_extra=accounts())
    try:
        al = cclient(p, "alice30", ALL_CAPS, sasl="alice")
        al.join("#hs3")
        first = say(al, "#hs3", ["before %d" % i for i in range(6)])
        caps = "batch server-time message-tags"
        ca = cclient(p, "carol30", caps, sasl="carol")
        _, after = joined(ca, "#hs3")
        same(_privmsgs(after), first[-4:], "carol's first JOIN: the last history-replay")
        ca.send("PART #hs3")
        ca.expect(r" PART #hs3")
        away = say(al, "#hs3", ["while carol was away 1", "while carol was away 2"])
        _, after = joined(ca, "#hs3")
        same(_privmsgs(after), away, "back after a PART: what she missed")
        ca.send("PART #hs3")
        ca.expect(r" PART #hs3")
        _, after = joined(ca, "#hs3")
        if _privmsgs(after) or [l for l in after if " BATCH " in l]:
            raise TestFailure("HS-3: nothing was said, yet a replay: %r" % after)
        ca.quit()
        time.sleep(0.1)
        gone = say(al, "#hs3", ["while carol was offline %d" % i for i in range(6)])
        ca = cclient(p, "carol31", caps, sasl="carol")
        _, after = joined(ca, "#hs3")
        same(_privmsgs(after), gone[-4:], "back on a new connection: the newest 4 missed")
        c2 = cclient(p, "carol32", caps, sasl="carol")
        _, after = joined(c2, "#hs3")
        same(_privmsgs(after), gone[-4:], "a second connection while she is in")
        new = cclient(p, "newbie30", caps)
        _, after = joined(new, "#hs3")
        same(_privmsgs(after), gone[-4:], "someone new: the last lines")
        bot = cclient(p, "bot30", caps)
        bot.send("MODE bot30 +B")
        bot.expect(r" MODE bot30 :?\+B")
        _, after = joined(bot, "#hs3")
        if _privmsgs(after) or [l for l in after if " BATCH " in l]:
            raise TestFailure("HS-3: a bot got a replay: %r" % after)
        for c in (al, ca, c2, new, bot):
            c.quit()
    finally:
        p.stop()


def test_au7_ops_remembered_by_principal():
    """AU-7: an account made op (creator or +o) gets op back on every later JOIN, from any
    connection, until -o; a nick alone gets nothing; a connection without an account gets
    op back on that connection only."""
    srv = shared()
    al = cclient(srv, "alice13", CH_CAPS, sasl="alice")
    bo = cclient(srv, "bob13", CH_CAPS, sasl="bob")
    anon = cclient(srv, "anon13", CH_CAPS)
    al.join("#ops13")
    say(al, "#ops13", ["history keeps the channel"])
    for c in (bo, anon):
        c.join("#ops13")
    al.send("MODE #ops13 +oo bob13 anon13")
    al.expect(r" MODE #ops13 \+oo bob13 anon13")
    for c in (al, bo, anon):
        c.send("PART #ops13")
        c.expect(r" PART #ops13")
    assert nick_prefix(anon.join("#ops13"), "anon13") == "@", \
        "the same connection gets its op back"
    anon.send("PART #ops13")
    anon.expect(r" PART #ops13")
    other = cclient(srv, "anon14", CH_CAPS)
    assert nick_prefix(other.join("#ops13"), "anon14") == "", "another connection does not"
    b2 = cclient(srv, "bob14", CH_CAPS, sasl="bob")
    assert nick_prefix(b2.join("#ops13"), "bob14") == "@", "bob's account does, anywhere"
    b2.send("MODE #ops13 -o bob14")
    b2.expect(r" MODE #ops13 -o bob14")
    b2.send("PART #ops13")
    b2.expect(r" PART #ops13")
    assert nick_prefix(b2.join("#ops13"), "bob14") == "", "-o forgets the account"
    al.quit()
    fake = cclient(srv, "alice13", CH_CAPS)
    assert nick_prefix(fake.join("#ops13"), "alice13") == "", "a nick is not an account"
    for c in (bo, anon, other, b2, fake):
        c.quit()


def test_au7_drop_starts_a_new_life():
    """AU-7: DROP by the channel's op account, with nobody else in, ends it: topic, key,
    bans and operators go, its history is set aside in the database (not deleted) and the
    next to join makes a new channel, as op, with nothing to read. Someone else gets 482;
    with another person in, FAIL CHANNEL_NOT_EMPTY; a configured channel, CANNOT_DROP; an
    unknown one, 403."""
    op = "\n[operator root15]\npassword = %s\nmask = *@127.0.0.1\n" % hash_password(PASSWORD)
    p = PServer("drop", config_extra=accounts() + op + "\n[channel #conf]\n")
    al = cclient(p, "alice15", CH_CAPS, sasl="alice")
    al.join("#drop15")
    al.send("TOPIC #drop15 :old topic")
    al.expect(r" TOPIC #drop15 :old topic")
    al.send("MODE #drop15 +k oldkey")
    al.expect(r" MODE #drop15 \+k oldkey")
    old = say(al, "#drop15", ["said in the old life"])
    bo = cclient(p, "bob15", CH_CAPS, sasl="bob")
    bo.join("#drop15", "oldkey")
    al.send("DROP #drop15")
    m = al.expect_msg(r" FAIL ")
    assert m.params[:3] == ["DROP", "CHANNEL_NOT_EMPTY", "#drop15"], m.raw
    bo.send("PART #drop15")
    bo.expect(r" PART #drop15")
    al.send("PART #drop15")
    al.expect(r" PART #drop15")
    bo.send("DROP #drop15")
    bo.expect_numeric(482)
    al.send("DROP #conf")
    m = al.expect_msg(r" (?:FAIL|482) ")
    assert m.command == "482", "nobody is #conf's op: %s" % m.raw
    al.send("DROP #nowhere")
    al.expect_numeric(403)
    # alice is not in #drop15 any more: her account is its operator all the same.
    al.send("DROP #drop15")
    al.expect(r" NOTICE alice15 :#drop15 dropped")
    lines = bo.join("#drop15")
    assert parse(lines[-1]).command == "366", "the key went with it: %r" % lines
    assert nick_prefix(lines, "bob15") == "@", "the next to join makes a new channel"
    assert not [l for l in lines if parse(l).command == "332"], "the topic went with it"
    assert chathistory(bo, "LATEST #drop15 * 50") == [], "the new life starts empty"
    db = sqlite3.connect(p.db)
    kept = db.execute("SELECT conv FROM messages WHERE msgid = ?", (old[0].msgid,)).fetchall()
    db.close()
    assert kept and kept[0][0].startswith("~#drop15@"), "set aside, not deleted: %r" % kept
    # A channel whose op was only a connection has no operator once it quits:
    # a server operator may drop it, but not one in the config.
    anon = cclient(p, "anon15", CH_CAPS)
    anon.join("#orphan15")
    say(anon, "#orphan15", ["nobody will run this"])
    anon.quit()
    oper = cclient(p, "root15", CH_CAPS)
    oper.send("DROP #orphan15")
    oper.expect_numeric(482)
    oper.send("OPER root15 " + PASSWORD)
    oper.expect_numeric(381)
    oper.send("DROP #orphan15")
    oper.expect(r" NOTICE root15 :#orphan15 dropped")
    oper.send("DROP #conf")
    m = oper.expect_msg(r" FAIL ")
    assert m.params[:3] == ["DROP", "CANNOT_DROP", "#conf"], m.raw
    for c in (al, bo, oper):
        c.quit()
    p.stop()


def test_au7_expired_channel_starts_empty():
    """AU-7: channel-expire-days = 1. A channel whose last member left (the stored time
    moved two days back while the server is down) ends at the next start: its key and
    topic are gone, the next to join makes it anew as op and reads nothing, and its
    history is set aside in the database; one that emptied just now, and one somebody
    was in when the server stopped, stay as they were."""
    p = PServer("expire", config_extra=accounts(), channel_expire_days=1)
    al = cclient(p, "alice16", CH_CAPS, sasl="alice")
    for ch in ("#old16", "#new16", "#full16"):
        al.join(ch)
        al.send("TOPIC %s :topic of %s" % (ch, ch))
        al.expect(r" TOPIC %s " % ch)
    al.send("MODE #old16 +k oldkey")
    al.expect(r" MODE #old16 \+k oldkey")
    old = say(al, "#old16", ["said long ago"])
    for ch in ("#old16", "#new16"):
        al.send("PART " + ch)
        al.expect(r" PART " + ch)
    p.stop()                    # alice still in #full16
    al.close()
    db = sqlite3.connect(p.db)
    rows = dict(db.execute("SELECT conv, time FROM channel_emptied").fetchall())
    assert "#old16" in rows and "#new16" in rows and "#full16" not in rows, rows
    db.execute("UPDATE channel_emptied SET time = time - 2 * 86400 WHERE conv = '#old16'")
    db.commit()
    db.close()
    p.start()
    assert "channel #old16 expired" in p.log_text(), p.log_tail()
    bo = cclient(p, "bob16", CH_CAPS, sasl="bob")
    lines = bo.join("#old16")
    assert parse(lines[-1]).command == "366", "the key went with it: %r" % lines
    assert nick_prefix(lines, "bob16") == "@", "made anew by its next joiner: %r" % lines
    assert not [l for l in lines if parse(l).command == "332"], "the topic went with it"
    assert chathistory(bo, "LATEST #old16 * 50") == [], "its new life starts empty"
    for ch in ("#new16", "#full16"):
        lines = bo.join(ch)
        topic = [parse(l) for l in lines if parse(l).command == "332"]
        assert topic and topic[0].params[-1] == "topic of " + ch, \
            "%s must stay: %r" % (ch, lines)
    db = sqlite3.connect(p.db)
    kept = db.execute("SELECT conv FROM messages WHERE msgid = ?", (old[0].msgid,)).fetchall()
    db.close()
    assert kept and kept[0][0].startswith("~#old16@"), "set aside, not deleted: %r" % kept
    bo.quit()
    p.stop()


def test_kill9_loses_nothing_acknowledged():
    """kill -9 right after N echoed channel messages and N private messages the peer
    received: after a restart all are there, in order, with the same msgids and times."""
    p = PServer("kill9", config_extra=accounts())
    s = cclient(p, "flooder", ALL_CAPS, sasl="alice")
    r = cclient(p, "peer", "server-time message-tags", sasl="bob")
    s.join("#k9")
    r.join("#k9")
    N = 150
    chan_msgs = say(s, "#k9", ["k9 %03d" % i for i in range(N)])
    # private: counted at the receiving peer
    s.send_raw(b"".join(("PRIVMSG peer :dm %03d\r\n" % i).encode() for i in range(40)))
    dms = []
    for i in range(40):
        m = r.expect_msg(r" PRIVMSG peer :dm %03d$" % i, 10)
        dms.append(Sent(m.tags["msgid"], m.tags["time"], m.params[-1], m.source))
    p.kill9()
    p.start()
    c = cclient(p, "checker", CH_CAPS)
    c.join("#k9")
    got = chathistory(c, "LATEST #k9 * 100")
    got = chathistory(c, "BEFORE #k9 msgid=%s 100" % got[0].tags["msgid"]) + got
    same(got, chan_msgs, "channel after kill -9")
    a2 = cclient(p, "alice9", CH_CAPS, pass_login="alice")
    same(chathistory(a2, "LATEST peer * 100"), dms, "private after kill -9")
    c.quit()
    a2.quit()
    p.stop()


# ---------------------------------------------------------------- broken database

def test_locked_database_fails_loudly():
    """While another process holds the database's write lock, a PRIVMSG is refused with
    FAIL PRIVMSG MESSAGE_ERROR, not relayed and not stored; the daemon logs it and keeps
    running; once the lock is gone messages flow again."""
    p = PServer("locked")
    s = cclient(p, "sender", ALL_CAPS)
    r = cclient(p, "peer", ALL_CAPS)
    s.join("#lk")
    r.join("#lk")
    ok1 = say(s, "#lk", ["before the lock"])
    r.expect(r" PRIVMSG #lk :before the lock")
    db = sqlite3.connect(p.db, timeout=1, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        s.send("PRIVMSG #lk :doomed")
        m = s.expect_msg(r" FAIL | PRIVMSG #lk :doomed", 20)
        assert m.command == "FAIL" and m.params[:3] == ["PRIVMSG", "MESSAGE_ERROR", "#lk"], \
            m.raw
        r.assert_nothing(0.3, r"doomed")
    finally:
        db.execute("ROLLBACK")
        db.close()
    assert p.alive(), p.log_tail()
    log = p.log_text()
    assert re.search(r"(?i)store.*(lock|busy)", log), p.log_tail()
    ok2 = say(s, "#lk", ["after the lock"])
    r.expect(r" PRIVMSG #lk :after the lock")
    r.assert_nothing(0.2, r"doomed")
    h = cclient(p, "reader", CH_CAPS)
    h.join("#lk")
    same(chathistory(h, "LATEST #lk * 10"), ok1 + ok2, "nothing stored for the refused line")
    for c in (s, r, h):
        c.quit()
    p.stop()


def test_database_in_missing_directory_refuses_start():
    """[server] database in a directory that does not exist: the daemon exits non-zero
    with a log line naming the database, and listens on nothing."""
    bad = os.path.join(TMP, "no-such-dir", "sub", "x.db")
    srv = Server(start=False, database=bad)
    try:
        proc = subprocess.run([srv.binary, "-f", srv.conf], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=srv.dir, timeout=20 * SLOW)
    except subprocess.TimeoutExpired:
        raise TestFailure("the daemon kept running with database = %s" % bad)
    out = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode != 0, out
    assert bad in out or "no-such-dir" in out, out
    assert re.search(r"(?i)database|store", out), out
    assert not os.path.exists(os.path.dirname(bad))
    shutil.rmtree(srv.dir, ignore_errors=True)


if __name__ == "__main__":
    run_tests(globals())

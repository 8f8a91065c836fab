#!/usr/bin/env python3
"""IRCv3: CAP LS 302/LIST/REQ/END and cap-notify, message-tags (client tags, TAGMSG, 417,
CLIENTTAGDENY), server-time, msgid, echo-message, labeled-response, multi-prefix,
userhost-in-names, extended-join, away-notify, account-tag, account-notify, invite-notify,
setname and bot mode, all checked on the wire with raw socket clients."""

import base64
import datetime
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, Shared, TestFailure, daemon_path, isupport,  # noqa: E402
                        parse, run_tests)

ALL_CAPS = ("account-notify account-tag away-notify batch cap-notify chghost echo-message "
            "extended-join invite-notify labeled-response message-tags multi-prefix sasl "
            "server-time setname userhost-in-names").split()
TIME_RX = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
PASSWORD = "v3-Secret-pw"


from ircharness import hash_password  # noqa: E402


_hash = []


def account_conf():
    if not _hash:
        _hash.append(hash_password(PASSWORD))
    return "[account alice]\npassword = %s\n" % _hash[0]


class LazyShared(Shared):
    """A Shared server whose config_extra is computed on first start."""

    def __init__(self, extra, **kw):
        Shared.__init__(self, **kw)
        self.extra = extra

    def __call__(self):
        if "config_extra" not in self.kw:
            self.kw["config_extra"] = self.extra()
        return Shared.__call__(self)


# The main server has an account (so sasl is offered); the other has none and a
# CLIENTTAGDENY list.
S = LazyShared(account_conf, flood_exempt="127.0.0.1/32")
BARE = Shared(flood_exempt="127.0.0.1/32", client_tag_deny="*,-typing")


# ---------------------------------------------------------------- helpers

def cap_ls(c, version="302", send=True):
    """Send CAP LS [version]; return (lines, {cap: value-or-None})."""
    if send:
        c.send("CAP LS %s" % version if version else "CAP LS")
    lines = []
    caps = {}
    while True:
        m = c.expect_msg(r"^(?:@\S+ )?:\S+ CAP \S+ LS ")
        lines.append(m)
        more = len(m.params) == 4 and m.params[2] == "*"
        for w in m.params[-1].split():
            k, eq, v = w.partition("=")
            caps[k] = v if eq else None
        if not more:
            return lines, caps


def cap_list(c):
    c.send("CAP LIST")
    caps = []
    while True:
        m = c.expect_msg(r"^(?:@\S+ )?:\S+ CAP \S+ LIST ")
        caps += m.params[-1].split()
        if not (len(m.params) == 4 and m.params[2] == "*"):
            return set(caps)


def cap_req(c, caps, ok=True):
    c.send("CAP REQ :%s" % caps)
    m = c.expect_msg(r"^(?:@\S+ )?:\S+ CAP \S+ (?:ACK|NAK) ")
    want = "ACK" if ok else "NAK"
    if m.params[1] != want:
        raise TestFailure("CAP REQ :%s: expected %s, got %r" % (caps, want, m.raw))
    assert m.params[-1].strip() == caps.strip(), (caps, m.raw)
    return m


def plain_b64(user, pw, authzid=""):
    return base64.b64encode(("%s\0%s\0%s" % (authzid, user, pw)).encode()).decode()


def cclient(srv, nick, caps="", login=False, version="302", **kw):
    """A client that negotiates caps (and optionally logs in with SASL) then registers."""
    user = kw.pop("user", None)
    realname = kw.pop("realname", None)
    c = Client(srv, **kw)
    c.nick = nick
    cap_ls(c, version)
    if login:
        caps = (caps + " sasl").strip()
    if caps:
        cap_req(c, caps)
    if login:
        c.send("AUTHENTICATE PLAIN")
        c.expect(r"^(?:@\S+ )?(?::\S+ )?AUTHENTICATE \+$")
        c.send("AUTHENTICATE " + plain_b64("alice", PASSWORD))
        c.expect_numeric(903)
    c.send("CAP END")
    c.register(nick, user=user, realname=realname)
    return c


def tagged(c, regex, timeout=5):
    """expect() a line; return its Msg (tags parsed)."""
    return c.expect_msg(regex, timeout)


def no_tags(line):
    assert not line.startswith("@"), "tags sent to a client without caps: %r" % line


def join_all(chan, *clients):
    for c in clients:
        c.join(chan)
    for c in clients:
        c.sync()


def check_time(value):
    assert value is not None and TIME_RX.match(value), "bad time tag %r" % value
    t = datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((now - t).total_seconds()) < 120, "time tag %s far from now %s" % (value, now)


# ---------------------------------------------------------------- negotiation

def test_cap_ls_302_with_values():
    """CAP LS 302 lists every cap with sasl=PLAIN,EXTERNAL; registration waits for CAP END."""
    srv = S()
    c = Client(srv)
    c.send("CAP LS 302")
    c.send("NICK lsnick")
    c.send("USER u 0 * :r")
    lines, caps = cap_ls(c, send=False)
    for name in ALL_CAPS:
        assert name in caps, "%s not in CAP LS: %r" % (name, [m.raw for m in lines])
    assert caps["sasl"] == "PLAIN,EXTERNAL", caps
    for m in lines:
        assert m.params[0] in ("*", "lsnick"), m.raw
        assert len(m.raw.encode()) + 2 <= 512, m.raw
    # with CAP LS sent, NICK/USER do not register before CAP END
    c.assert_nothing(0.5, r" 001 ")
    c.send("CAP END")
    c.expect_numeric(1)
    c.expect_numeric("376|422")
    # CAP END again after registration is ignored; CAP still works
    c.send("CAP END")
    lines, caps = cap_ls(c)
    assert lines[-1].params[0] == "lsnick", lines[-1].raw
    c.sync()
    c.quit()


def test_cap_ls_without_version_has_no_values():
    """A bare CAP LS: no values, no '*' continuation lines."""
    srv = S()
    c = Client(srv)
    lines, caps = cap_ls(c, version=None)
    assert "sasl" in caps and caps["sasl"] is None, [m.raw for m in lines]
    for m in lines:
        assert "=" not in m.params[-1], m.raw
        assert len(m.params) == 3, "continuation '*' for a pre-302 client: %r" % m.raw
    # pre-302 clients have no implicit cap-notify
    assert "cap-notify" not in cap_list(c)
    c.send("CAP END")
    c.register("lsbare")
    c.quit()


def test_cap_ls_multiline_302():
    """A 302 LS reply split over lines marks all but the last with '*', lines stay short."""
    srv = S()
    c = Client(srv)
    lines, caps = cap_ls(c)
    for m in lines[:-1]:
        assert m.params[2] == "*", m.raw
    assert len(lines[-1].params) == 3, lines[-1].raw
    for m in lines:
        assert len(m.raw.encode()) <= 510, m.raw
    c.close()


def test_cap_without_accounts_has_no_sasl():
    """sasl is offered only when the config has [account] sections, and NAKed otherwise."""
    srv = BARE()
    c = Client(srv)
    _, caps = cap_ls(c)
    assert "sasl" not in caps, caps
    for name in ALL_CAPS:
        if name != "sasl":
            assert name in caps, (name, caps)
    cap_req(c, "sasl", ok=False)
    cap_req(c, "multi-prefix sasl", ok=False)
    assert "multi-prefix" not in cap_list(c)
    c.close()


def test_cap_req_all_or_nothing():
    """REQ is applied whole or not at all; unknown caps NAK; LIST shows the result."""
    srv = S()
    c = Client(srv)
    cap_ls(c)
    assert cap_list(c) == {"cap-notify"}
    cap_req(c, "multi-prefix no-such-cap", ok=False)
    assert "multi-prefix" not in cap_list(c)
    cap_req(c, "MULTI-PREFIX", ok=False)        # names are case-sensitive
    cap_req(c, "multi-prefix server-time")
    assert cap_list(c) == {"cap-notify", "multi-prefix", "server-time"}
    cap_req(c, "multi-prefix")                   # already enabled: still ACK
    cap_req(c, "-server-time -no-such-cap", ok=False)
    assert "server-time" in cap_list(c)
    cap_req(c, "-server-time -userhost-in-names")   # disabling a disabled cap is fine
    assert cap_list(c) == {"cap-notify", "multi-prefix"}
    # labeled-response needs batch
    cap_req(c, "labeled-response", ok=False)
    cap_req(c, "batch labeled-response")
    cap_req(c, "-batch", ok=False)
    assert {"batch", "labeled-response"} <= cap_list(c)
    cap_req(c, "-labeled-response -batch")
    assert cap_list(c) == {"cap-notify", "multi-prefix"}
    # unknown subcommand: 410
    c.send("CAP FROB")
    c.expect(r"^(?:@\S+ )?:\S+ 410 \* FROB ")
    c.send("CAP END")
    c.register("reqnick")
    # REQ after registration works and names the nick
    m = cap_req(c, "away-notify")
    assert m.params[0] == "reqnick", m.raw
    c.quit()


def test_cap_list_empty():
    """CAP LIST with nothing enabled sends an empty parameter."""
    srv = S()
    c = Client(srv)
    c.send("CAP LIST")
    m = c.expect_msg(r" CAP \S+ LIST ")
    assert m.params[-1] == "" and m.raw.endswith(" :"), m.raw
    c.send("CAP END")
    c.register("emptylist")
    c.quit()


def test_cap_notify_implicit_for_302():
    """302 clients have cap-notify and cannot remove it; older clients may REQ and drop it."""
    srv = S()
    c = Client(srv)
    cap_ls(c)
    assert "cap-notify" in cap_list(c)
    cap_req(c, "-cap-notify", ok=False)
    cap_req(c, "multi-prefix -cap-notify", ok=False)
    assert cap_list(c) == {"cap-notify"}
    c.close()
    old = Client(srv)
    cap_ls(old, version=None)
    cap_req(old, "cap-notify")
    assert "cap-notify" in cap_list(old)
    cap_req(old, "-cap-notify")
    assert "cap-notify" not in cap_list(old)
    old.close()


def test_cap_new_del_on_rehash():
    """Accounts removed/added by SIGHUP: CAP DEL/NEW sasl to cap-notify clients only, with the
    value only for 302 clients; a deleted cap is disabled."""
    srv = Server(config_extra=account_conf(), flood_exempt="127.0.0.1/32")
    try:
        v302 = cclient(srv, "capnew302")
        notify = cclient(srv, "capnotify", "cap-notify sasl", version=None)
        old = cclient(srv, "capold", "multi-prefix", version=None)
        assert "sasl" in cap_list(notify)
        with open(srv.conf, "w") as f:
            f.write(srv.config_text.replace(account_conf(), ""))
        srv.proc.send_signal(signal.SIGHUP)
        m = v302.expect_msg(r" CAP capnew302 DEL ")
        assert m.params[-1].split() == ["sasl"], m.raw
        m = notify.expect_msg(r" CAP capnotify DEL ")
        assert m.params[-1].split() == ["sasl"], m.raw
        assert "sasl" not in cap_list(notify)
        _, caps = cap_ls(v302)
        assert "sasl" not in caps, caps
        cap_req(v302, "sasl", ok=False)
        with open(srv.conf, "w") as f:
            f.write(srv.config_text)
        srv.proc.send_signal(signal.SIGHUP)
        m = v302.expect_msg(r" CAP capnew302 NEW ")
        assert m.params[-1].split() == ["sasl=PLAIN,EXTERNAL"], m.raw
        m = notify.expect_msg(r" CAP capnotify NEW ")
        assert m.params[-1].split() == ["sasl"], m.raw
        assert not any(" CAP " in l for l in old.sync()), old.lines[-5:]
        for c in (v302, notify, old):
            c.quit()
    finally:
        srv.stop()


def test_blind_req_suspends_registration():
    """A blind CAP REQ (no LS) also holds registration until CAP END."""
    srv = S()
    c = Client(srv)
    c.send("CAP REQ :multi-prefix")
    c.send("NICK blind")
    c.send("USER u 0 * :r")
    c.expect(r" CAP \* ACK :multi-prefix")
    c.assert_nothing(0.5, r" 001 ")
    c.send("CAP END")
    c.expect_numeric(1)
    c.quit()


# ---------------------------------------------------------------- message-tags

def test_client_tags_relayed_only_to_message_tags_clients():
    srv = S()
    a = cclient(srv, S.nick("mta"), "message-tags")
    b = cclient(srv, S.nick("mtb"), "message-tags")
    plain = cclient(srv, S.nick("mtc"))
    ch = S.chan("#mt")
    join_all(ch, a, b, plain)
    a.send("@+example.com/foo=a\\:b\\sc;unprefixed=1;+reply=xyz PRIVMSG %s :hello tags" % ch)
    m = tagged(b, r"PRIVMSG %s :hello tags" % ch)
    assert m.tags.get("+example.com/foo") == "a;b c", m.raw
    assert m.tags.get("+reply") == "xyz", m.raw
    assert "unprefixed" not in m.tags, "unprefixed client tag relayed: %r" % m.raw
    assert m.tags.get("msgid"), "no msgid on PRIVMSG: %r" % m.raw
    line = plain.expect(r"PRIVMSG %s :hello tags" % ch).string
    no_tags(line)
    # NOTICE and private messages too
    a.send("@+x=1 NOTICE %s :note" % b.nick)
    m = tagged(b, r"NOTICE %s :note" % b.nick)
    assert m.tags.get("+x") == "1", m.raw
    a.send("@+x=2 PRIVMSG %s :private" % plain.nick)
    no_tags(plain.expect(r"PRIVMSG %s :private" % plain.nick).string)
    # a client without message-tags cannot send client tags
    plain.send("@+y=1 PRIVMSG %s :from plain" % ch)
    m = tagged(b, r"PRIVMSG %s :from plain" % ch)
    assert "+y" not in m.tags, m.raw
    for c in (a, b, plain):
        c.quit()


def test_tagmsg_typing():
    """TAGMSG with +typing goes to message-tags clients only, in channels and privately."""
    srv = S()
    a = cclient(srv, S.nick("tya"), "message-tags")
    b = cclient(srv, S.nick("tyb"), "message-tags")
    plain = cclient(srv, S.nick("tyc"))
    ch = S.chan("#ty")
    join_all(ch, a, b, plain)
    a.send("@+typing=active TAGMSG %s" % ch)
    m = tagged(b, r" TAGMSG %s$" % ch)
    assert m.tags.get("+typing") == "active", m.raw
    assert nick_ok(m, a), m.raw
    a.send("@+typing=done TAGMSG %s" % b.nick)
    m = tagged(b, r" TAGMSG %s$" % b.nick)
    assert m.tags.get("+typing") == "done", m.raw
    a.send("@+typing=paused TAGMSG %s" % plain.nick)
    a.sync()
    lines = plain.sync()
    assert not any("TAGMSG" in l for l in lines), "TAGMSG sent to a client without " \
        "message-tags: %r" % lines
    for c in (a, b, plain):
        c.quit()


def test_every_client_tag_counts_417():
    """Issue 27, IRCv3 message-tags "Size limit": a client's tag data (without the '@'
    and the space) is at most 4094 bytes, tags with the client-only prefix or without;
    past it, 417 ERR_INPUTTOOLONG and nothing of the line is done. Here the '+' tag is
    small and the rest is tags the server drops: 4094 bytes relay, 4095 do not."""
    srv = S()
    a = cclient(srv, S.nick("alla"), "message-tags")
    b = cclient(srv, S.nick("allb"), "message-tags")
    head = "+c=1;x-pad="
    fits = head + "p" * (4094 - len(head))
    a.send("@%s PRIVMSG %s :fits" % (fits, b.nick))
    m = tagged(b, r"PRIVMSG %s :fits" % b.nick)
    assert m.tags.get("+c") == "1" and "x-pad" not in m.tags, m.raw
    over = head + "p" * (4095 - len(head))
    a.send("@%s PRIVMSG %s :over" % (over, b.nick))
    a.expect_numeric(417)
    # any command: the line is refused whole, so this PING has no PONG
    a.send("@x-pad=%s PING :notdone" % ("p" * 4090))
    a.expect_numeric(417)
    lines = a.sync()
    assert not any("notdone" in l for l in lines), lines
    lines = b.sync()
    assert not any(":over" in l for l in lines), lines
    for c in (a, b):
        c.quit()


def nick_ok(m, c):
    return (m.source or "").split("!")[0] == c.nick


def test_client_tag_size_limit_417():
    """Client tags over 4094 bytes get 417 and are not relayed; 4094 bytes are fine."""
    srv = S()
    a = cclient(srv, S.nick("biga"), "message-tags")
    b = cclient(srv, S.nick("bigb"), "message-tags")
    # "+big=" + value: exactly 4094 bytes of tag data
    ok_tag = "+big=" + "v" * (4094 - 5)
    a.send("@%s PRIVMSG %s :fits" % (ok_tag, b.nick))
    m = tagged(b, r"PRIVMSG %s :fits" % b.nick)
    assert m.tags.get("+big") == "v" * (4094 - 5), "4094-byte tag not relayed intact"
    too_big = "+big=" + "v" * (4095 - 5)
    a.send("@%s PRIVMSG %s :too big" % (too_big, b.nick))
    a.expect_numeric(417)
    a.send("@+a=%s;+b=%s TAGMSG %s" % ("x" * 2100, "y" * 2100, b.nick))
    a.expect_numeric(417)
    a.sync()
    lines = b.sync()
    assert not any("too big" in l or "TAGMSG" in l for l in lines), lines
    assert srv.alive()
    for c in (a, b):
        c.quit()


def test_client_cannot_spoof_server_tags():
    """msgid/time/account/bot/batch/label sent by a client are replaced or dropped, never
    relayed; malformed tags do not hurt the server."""
    srv = S()
    a = cclient(srv, S.nick("spa"), "message-tags")
    b = cclient(srv, S.nick("spb"), "message-tags server-time account-tag batch")
    a.send("@msgid=fake;time=2000-01-01T00:00:00.000Z;account=evil;bot;batch=zz;label=l "
           "PRIVMSG %s :spoof" % b.nick)
    m = tagged(b, r"PRIVMSG %s :spoof" % b.nick)
    assert m.tags.get("msgid") not in (None, "fake"), m.raw
    assert m.tags.get("time") != "2000-01-01T00:00:00.000Z", m.raw
    for k in ("account", "bot", "batch", "label"):
        assert k not in m.tags, "client-supplied %s relayed: %r" % (k, m.raw)
    for junk in ("@", "@;;; PRIVMSG %s :j1" % b.nick, "@= PRIVMSG %s :j2" % b.nick,
                 "@+a=\\ PRIVMSG %s :j3" % b.nick, "@" + "+a;" * 1300 + " PING :j4",
                 "@+typing TAGMSG", "@label PING :j5"):
        a.send(junk)
    a.sync()
    b.sync()
    assert srv.alive()
    a.quit()
    b.quit()


def test_clienttagdeny():
    """CLIENTTAGDENY=*,-typing: +typing relayed, other client tags dropped."""
    srv = BARE()
    a = cclient(srv, BARE.nick("dena"), "message-tags")
    assert isupport(a.welcome).get("CLIENTTAGDENY") == "*,-typing", isupport(a.welcome)
    b = cclient(srv, BARE.nick("denb"), "message-tags")
    a.send("@+typing=active;+foo=bar TAGMSG %s" % b.nick)
    m = tagged(b, r" TAGMSG %s$" % b.nick)
    assert m.tags.get("+typing") == "active", m.raw
    assert "+foo" not in m.tags, m.raw
    a.send("@+foo=bar PRIVMSG %s :x" % b.nick)
    m = tagged(b, r" PRIVMSG %s :x" % b.nick)
    assert "+foo" not in m.tags, m.raw
    a.quit()
    b.quit()


# ---------------------------------------------------------------- server-time, msgid, echo

def test_server_time_format():
    srv = S()
    a = cclient(srv, S.nick("sta"))
    b = cclient(srv, S.nick("stb"), "server-time")
    plain = cclient(srv, S.nick("stc"))
    ch = S.chan("#st")
    join_all(ch, a, b, plain)
    a.send("PRIVMSG %s :what time" % ch)
    m = tagged(b, r"PRIVMSG %s :what time" % ch)
    check_time(m.tags.get("time"))
    no_tags(plain.expect(r"PRIVMSG %s :what time" % ch).string)
    # numerics and other events carry it too
    b.send("WHOIS %s" % a.nick)
    check_time(tagged(b, r" 311 ").tags.get("time"))
    a.send("PART %s" % ch)
    check_time(tagged(b, r" PART %s" % ch).tags.get("time"))
    for c in (a, b, plain):
        c.quit()


def test_msgid_shared_by_recipients_and_echo():
    srv = S()
    caps = "message-tags server-time echo-message"
    a = cclient(srv, S.nick("ida"), caps)
    b = cclient(srv, S.nick("idb"), caps)
    c = cclient(srv, S.nick("idc"), "message-tags")
    ch = S.chan("#id")
    join_all(ch, a, b, c)
    ids = set()
    for cmd in ("PRIVMSG", "NOTICE"):
        a.send("%s %s :%s one" % (cmd, ch, cmd))
        ea = tagged(a, r"%s %s :%s one" % (cmd, ch, cmd))
        eb = tagged(b, r"%s %s :%s one" % (cmd, ch, cmd))
        ec = tagged(c, r"%s %s :%s one" % (cmd, ch, cmd))
        assert nick_ok(ea, a), ea.raw
        mid = ea.tags.get("msgid")
        assert mid and " " not in mid and not mid.startswith(":"), ea.raw
        assert eb.tags.get("msgid") == mid == ec.tags.get("msgid"), (ea.raw, eb.raw, ec.raw)
        assert ea.tags.get("time") == eb.tags.get("time"), (ea.raw, eb.raw)
        check_time(ea.tags.get("time"))
        ids.add(mid)
    a.send("@+typing=active TAGMSG %s" % ch)
    ea = tagged(a, r" TAGMSG %s$" % ch)
    eb = tagged(b, r" TAGMSG %s$" % ch)
    assert ea.tags.get("msgid") and ea.tags["msgid"] == eb.tags.get("msgid"), (ea.raw, eb.raw)
    assert ea.tags.get("+typing") == "active", ea.raw
    ids.add(ea.tags["msgid"])
    # private message: the echo and the recipient share the id as well
    a.send("PRIVMSG %s :direct" % b.nick)
    ea = tagged(a, r"PRIVMSG %s :direct" % b.nick)
    eb = tagged(b, r"PRIVMSG %s :direct" % b.nick)
    assert ea.tags.get("msgid") == eb.tags.get("msgid"), (ea.raw, eb.raw)
    ids.add(ea.tags["msgid"])
    assert len(ids) == 4, "msgids repeat: %r" % ids
    for x in (a, b, c):
        x.quit()


def test_echo_message():
    """echo-message without tags: plain echo; no TAGMSG echo without message-tags."""
    srv = S()
    a = cclient(srv, S.nick("eca"), "echo-message")
    b = cclient(srv, S.nick("ecb"))
    a.send("PRIVMSG %s :echo me" % b.nick)
    line = a.expect(r"PRIVMSG %s :echo me" % b.nick).string
    no_tags(line)
    assert re.match(a.source_rx + " ", line), line
    b.expect(r"PRIVMSG %s :echo me" % b.nick)
    a.send("NOTICE %s :echo notice" % b.nick)
    a.expect(r"NOTICE %s :echo notice" % b.nick)
    # without echo-message, nothing comes back
    b.send("PRIVMSG %s :no echo" % a.nick)
    a.expect(r"PRIVMSG %s :no echo" % a.nick)
    lines = b.sync()
    assert not any("no echo" in l for l in lines), lines
    # after -echo-message it stops
    cap_req(a, "-echo-message")
    a.send("PRIVMSG %s :after" % b.nick)
    b.expect(r"PRIVMSG %s :after" % b.nick)
    assert not any("after" in l for l in a.sync()), a.lines[-5:]
    a.quit()
    b.quit()


# ---------------------------------------------------------------- labeled-response

def test_labeled_response_single_line():
    srv = S()
    a = cclient(srv, S.nick("lra"), "batch labeled-response")
    a.send("@label=one PING :tok")
    m = tagged(a, r" PONG ")
    assert m.tags.get("label") == "one", m.raw
    a.send("@label=two AWAY")
    m = tagged(a, r" 305 ")
    assert m.tags.get("label") == "two", m.raw
    a.send("@label=three MODE %s" % a.nick)
    m = tagged(a, r" 221 ")
    assert m.tags.get("label") == "three", m.raw
    assert not any("BATCH" in l for l in a.lines), a.lines
    a.quit()


def test_labeled_response_batch():
    srv = S()
    a = cclient(srv, S.nick("lrb"), "batch labeled-response server-time")
    a.send("@label=whois-1 WHOIS %s" % a.nick)
    lines = a.collect_until(r"^(?:@\S+ )?:\S+ BATCH -")
    msgs = [parse(l) for l in lines]
    start = msgs[0]
    assert start.command == "BATCH" and start.params[0].startswith("+"), lines
    assert start.params[1] == "labeled-response", start.raw
    assert start.tags.get("label") == "whois-1", start.raw
    ref = start.params[0][1:]
    assert re.match(r"^[A-Za-z0-9-]+$", ref), ref
    body = msgs[1:-1]
    assert [m.command for m in body][0] == "311" and body[-1].command == "318", lines
    for m in body:
        assert m.tags.get("batch") == ref, "member without batch=%s: %r" % (ref, m.raw)
        assert "label" not in m.tags, "label on a batch member: %r" % m.raw
    assert msgs[-1].params == ["-" + ref], msgs[-1].raw
    # two batches get different references
    a.send("@label=whois-2 WHOIS %s" % a.nick)
    lines2 = a.collect_until(r"^(?:@\S+ )?:\S+ BATCH -")
    assert parse(lines2[0]).params[0] != start.params[0], (lines[0], lines2[0])
    a.quit()


def test_labeled_response_ack():
    srv = S()
    a = cclient(srv, S.nick("lrc"), "batch labeled-response")
    b = cclient(srv, S.nick("lrd"))
    a.send("@label=ackme PRIVMSG %s :quietly" % b.nick)
    m = tagged(a, r" ACK$")
    assert m.tags.get("label") == "ackme" and m.source == srv.name, m.raw
    b.expect(r"PRIVMSG %s :quietly" % b.nick)
    no_tags(b.last.raw)
    a.quit()
    b.quit()


def test_labeled_response_message_to_self():
    """echo-message + a message to oneself: one PRIVMSG, labelled (the echo)."""
    srv = S()
    a = cclient(srv, S.nick("lrs"), "batch labeled-response echo-message message-tags")
    a.send("@label=self PRIVMSG %s :me me" % a.nick)
    lines = a.sync()
    pm = [parse(l) for l in lines if " PRIVMSG " in l]
    assert len(pm) == 1, lines
    assert pm[0].tags.get("label") == "self", lines
    # echo of a message to someone else carries the label
    b = cclient(srv, S.nick("lrt"))
    a.send("@label=other PRIVMSG %s :to b" % b.nick)
    m = tagged(a, r"PRIVMSG %s :to b" % b.nick)
    assert m.tags.get("label") == "other" and m.tags.get("msgid"), m.raw
    assert not any("label=" in l for l in a.sync()), a.lines[-3:]
    b.quit()
    a.quit()


def ml_send(c, ref, target, lines, label=None):
    """A draft/multiline batch of lines to target, its opening labeled if label."""
    c.send("%sBATCH +%s draft/multiline %s" % ("@label=%s " % label if label else "", ref,
                                               target))
    for text in lines:
        c.send("@batch=%s PRIVMSG %s :%s" % (ref, target, text))
    c.send("BATCH -%s" % ref)


def test_labeled_multiline_echo():
    """Issue 27, draft/multiline "Labeled response with echo-message": the label goes
    only on the opening BATCH line of the echoed batch, the batch is the whole reply
    (no ACK, no labeled-response batch around it), and nobody else sees it."""
    srv = S()
    caps = "batch labeled-response echo-message message-tags draft/multiline"
    a = cclient(srv, S.nick("lma"), caps)
    b = cclient(srv, S.nick("lmb"), "batch message-tags draft/multiline")
    ml_send(a, "r1", b.nick, ["one", "two"], label="ml1")
    lines = a.sync()
    msgs = [parse(l) for l in lines]
    assert [m.command for m in msgs] == ["BATCH", "PRIVMSG", "PRIVMSG", "BATCH"], lines
    assert msgs[0].params[1:] == ["draft/multiline", b.nick], lines
    assert msgs[0].tags.get("label") == "ml1", lines
    assert not any("label" in m.tags for m in msgs[1:]), lines
    assert not any(" ACK" in l or "labeled-response" in l for l in lines), lines
    got = b.collect_until(r" BATCH -")
    assert not any("label=" in l for l in got), got
    assert [parse(l).params[-1] for l in got if " PRIVMSG " in l] == ["one", "two"], got
    a.quit()
    b.quit()


def test_labeled_multiline_ack_and_errors():
    """Issue 27, labeled-response: without echo-message a labeled multiline batch is
    acknowledged once, when it closes, by a labeled ACK (not when it opens); an error
    at its end (401) carries the label, as does a FAIL that ends it early."""
    srv = S()
    a = cclient(srv, S.nick("lmc"), "batch labeled-response message-tags draft/multiline")
    b = cclient(srv, S.nick("lmd"), "batch message-tags draft/multiline")
    a.send("@label=ml2 BATCH +r2 draft/multiline %s" % b.nick)
    a.send("@batch=r2 PRIVMSG %s :one" % b.nick)
    assert not any(" ACK" in l for l in a.sync()), a.lines[-3:]
    a.send("@batch=r2 PRIVMSG %s :two" % b.nick)
    a.send("BATCH -r2")
    lines = a.sync()
    acks = [parse(l) for l in lines if parse(l).command == "ACK"]
    assert len(acks) == 1 and acks[0].tags.get("label") == "ml2", lines
    b.expect(r"PRIVMSG %s :two" % b.nick)
    ml_send(a, "r3", "nobody-here", ["x"], label="ml3")
    m = tagged(a, r" 401 ")
    assert m.tags.get("label") == "ml3", m.raw
    assert not any(" ACK" in l for l in a.sync()), a.lines[-3:]
    a.send("@label=ml4 BATCH +r4 draft/multiline %s" % b.nick)
    a.send("@batch=r4 PRIVMSG %s :one" % b.nick)
    a.send("@batch=r4 PRIVMSG someone-else :two")
    m = tagged(a, r"FAIL BATCH MULTILINE_INVALID_TARGET")
    assert m.tags.get("label") == "ml4", m.raw
    assert not any(" ACK" in l for l in a.sync()), a.lines[-3:]
    a.quit()
    b.quit()


def test_label_ignored_without_cap():
    srv = S()
    a = cclient(srv, S.nick("lrn"), "message-tags")
    a.send("@label=nope PING :x")
    line = a.expect(r" PONG ").string
    assert "label=" not in line, line
    a.send("@label=nope2 WHOIS %s" % a.nick)
    lines = a.collect_until(r" 318 ")
    assert not any("label=" in l or " BATCH " in l for l in lines), lines
    a.quit()


# ---------------------------------------------------------------- channel caps

def test_multi_prefix():
    srv = S()
    op = cclient(srv, S.nick("mpo"), "multi-prefix")
    old = cclient(srv, S.nick("mpp"))
    ch = S.chan("#mp")
    join_all(ch, op, old)
    op.send("MODE %s +v %s" % (ch, op.nick))
    op.expect(r" MODE %s \+v %s" % (ch, op.nick))
    old.expect(r" MODE %s \+v %s" % (ch, op.nick))
    op.send("NAMES %s" % ch)
    m = op.expect_msg(r" 353 ")
    assert "@+" + op.nick in m.params[-1].split(), m.raw
    op.expect_numeric(366)
    old.send("NAMES %s" % ch)
    m = old.expect_msg(r" 353 ")
    assert "@" + op.nick in m.params[-1].split(), m.raw
    old.expect_numeric(366)
    op.send("WHO %s" % ch)
    m = op.expect_msg(r" 352 \S+ %s \S+ \S+ \S+ %s " % (re.escape(ch), op.nick))
    assert m.params[6].endswith("@+"), "WHO flags %r" % m.params[6]
    op.expect_numeric(315)
    old.send("WHO %s" % ch)
    m = old.expect_msg(r" 352 \S+ %s \S+ \S+ \S+ %s " % (re.escape(ch), op.nick))
    assert m.params[6][-1] == "@" and "+" not in m.params[6], "WHO flags %r" % m.params[6]
    old.expect_numeric(315)
    op.send("WHOIS %s" % op.nick)
    m = op.expect_msg(r" 319 ")
    assert "@+" + ch in m.params[-1].split(), m.raw
    op.expect_numeric(318)
    op.quit()
    old.quit()


def test_userhost_in_names():
    srv = S()
    a = cclient(srv, S.nick("uhn"), "userhost-in-names multi-prefix")
    b = cclient(srv, S.nick("uho"))
    ch = S.chan("#uh")
    join_all(ch, a, b)
    a.send("NAMES %s" % ch)
    names = a.expect_msg(r" 353 ").params[-1].split()
    assert "@%s!uhn" % a.nick in [n.split("@127")[0] for n in names] or any(
        re.match(r"^@%s!\S+@\S+$" % a.nick, n) for n in names), names
    assert any(re.match(r"^%s!\S+@\S+$" % b.nick, n) for n in names), names
    b.send("NAMES %s" % ch)
    names = b.expect_msg(r" 353 ").params[-1].split()
    assert "!" not in " ".join(names), names
    a.quit()
    b.quit()


def test_extended_join():
    srv = S()
    watcher = cclient(srv, S.nick("exw"), "extended-join")
    plain = cclient(srv, S.nick("exp"))
    ch = S.chan("#ex")
    join_all(ch, watcher, plain)
    anon = cclient(srv, S.nick("exa"), realname="Anon Ymous")
    anon.join(ch)
    m = watcher.expect_msg(r"%s JOIN " % anon.source_rx)
    assert m.params == [ch, "*", "Anon Ymous"], m.raw
    m = plain.expect_msg(r"%s JOIN " % anon.source_rx)
    assert m.params == [ch], m.raw
    acct = cclient(srv, S.nick("exl"), login=True, realname="Logged In")
    acct.join(ch)
    m = watcher.expect_msg(r"%s JOIN " % acct.source_rx)
    assert m.params == [ch, "alice", "Logged In"], m.raw
    # the joiner's own JOIN echo is extended too, if it has the cap
    w2 = cclient(srv, S.nick("exs"), "extended-join")
    lines = w2.join(ch)
    m = parse([l for l in lines if " JOIN " in l][0])
    assert m.params == [ch, "*", "Real " + w2.nick], m.raw
    for c in (watcher, plain, anon, acct, w2):
        c.quit()


def test_away_notify():
    srv = S()
    watcher = cclient(srv, S.nick("awn"), "away-notify")
    plain = cclient(srv, S.nick("awp"))
    mover = cclient(srv, S.nick("awm"), "away-notify")
    ch = S.chan("#aw")
    join_all(ch, watcher, plain, mover)
    mover.send("AWAY :gone fishing")
    mover.expect_numeric(306)
    m = watcher.expect_msg(r"%s AWAY" % mover.source_rx)
    assert m.params == ["gone fishing"], m.raw
    mover.send("AWAY :still gone")
    m = watcher.expect_msg(r"%s AWAY" % mover.source_rx)
    assert m.params == ["still gone"], m.raw
    mover.send("AWAY")
    mover.expect_numeric(305)
    m = watcher.expect_msg(r"%s AWAY" % mover.source_rx)
    assert m.params == [], m.raw
    # never about oneself, never to clients without the cap
    assert not any(" AWAY" in l for l in mover.sync()), mover.lines[-8:]
    assert not any(" AWAY" in l for l in plain.sync()), plain.lines[-8:]
    # an away user joining: JOIN then AWAY
    mover.send("AWAY :away again")
    mover.expect_numeric(306)
    watcher.expect(r"%s AWAY :away again" % mover.source_rx)
    ch2 = S.chan("#aw")
    watcher.join(ch2)
    plain.join(ch2)
    mover.join(ch2)
    lines = watcher.collect_until(r"%s AWAY" % mover.source_rx)
    assert any(re.search(r"%s JOIN %s" % (mover.source_rx, re.escape(ch2)), l)
               for l in lines), lines
    assert watcher.last.params == ["away again"], watcher.last.raw
    assert not any(" AWAY" in l for l in plain.sync()), plain.lines[-8:]
    for c in (watcher, plain, mover):
        c.quit()


def test_account_tag_and_account_notify():
    srv = S()
    watcher = cclient(srv, S.nick("acw"), "account-notify account-tag")
    tagsonly = cclient(srv, S.nick("act"), "message-tags")
    plain = cclient(srv, S.nick("acp"))
    user = cclient(srv, S.nick("acu"), "sasl")
    ch = S.chan("#ac")
    join_all(ch, watcher, tagsonly, plain, user)
    user.send("PRIVMSG %s :before login" % ch)
    m = watcher.expect_msg(r"PRIVMSG %s :before login" % ch)
    assert "account" not in m.tags, m.raw
    # log in after registration
    user.send("AUTHENTICATE PLAIN")
    user.expect(r"AUTHENTICATE \+")
    user.send("AUTHENTICATE " + plain_b64("alice", PASSWORD))
    user.expect_numeric(900)
    user.expect_numeric(903)
    m = watcher.expect_msg(r"%s ACCOUNT " % user.source_rx)
    assert m.params == ["alice"], m.raw
    assert not any(" ACCOUNT " in l for l in plain.sync()), plain.lines[-5:]
    user.send("PRIVMSG %s :after login" % ch)
    m = watcher.expect_msg(r"PRIVMSG %s :after login" % ch)
    assert m.tags.get("account") == "alice", m.raw
    tagsonly.expect_msg(r"PRIVMSG %s :after login" % ch)
    no_tags(plain.expect(r"PRIVMSG %s :after login" % ch).string)
    # other commands from the user carry it too
    user.send("PART %s :bye" % ch)
    m = watcher.expect_msg(r"%s PART %s" % (user.source_rx, re.escape(ch)))
    assert m.tags.get("account") == "alice", m.raw
    # WHOIS: 330
    plain.send("WHOIS %s" % user.nick)
    m = plain.expect_msg(r" 330 ")
    assert m.params[1:3] == [user.nick, "alice"], m.raw
    for c in (watcher, tagsonly, plain, user):
        c.quit()


def test_invite_notify():
    srv = S()
    op = cclient(srv, S.nick("ino"))
    member = cclient(srv, S.nick("inm"), "invite-notify")
    plain = cclient(srv, S.nick("inp"))
    guest = cclient(srv, S.nick("ing"), "invite-notify")
    ch = S.chan("#in")
    join_all(ch, op, member, plain)
    op.send("MODE %s +o %s" % (ch, member.nick))
    member.expect(r" MODE %s \+o %s" % (re.escape(ch), member.nick))
    op.send("INVITE %s %s" % (guest.nick, ch))
    op.expect_numeric(341)
    m = member.expect_msg(r"%s INVITE " % op.source_rx)
    assert m.params == [guest.nick, ch], m.raw
    m = guest.expect_msg(r"%s INVITE " % op.source_rx)
    assert m.params == [guest.nick, ch], m.raw
    assert not any(" INVITE " in l for l in plain.sync()), plain.lines[-5:]
    for c in (op, member, plain, guest):
        c.quit()


def test_setname():
    srv = S()
    a = cclient(srv, S.nick("sna"), "setname", realname="Old Name")
    b = cclient(srv, S.nick("snb"), "setname")
    plain = cclient(srv, S.nick("snp"))
    assert "NAMELEN" in isupport(a.welcome), "setname needs ISUPPORT NAMELEN"
    ch = S.chan("#sn")
    join_all(ch, a, b, plain)
    a.send("SETNAME :Brand New Name")
    m = a.expect_msg(r"%s SETNAME " % a.source_rx)
    assert m.params == ["Brand New Name"], m.raw
    m = b.expect_msg(r"%s SETNAME " % a.source_rx)
    assert m.params == ["Brand New Name"], m.raw
    assert not any("SETNAME" in l for l in plain.sync()), plain.lines[-5:]
    plain.send("WHOIS %s" % a.nick)
    m = plain.expect_msg(r" 311 ")
    assert m.params[-1] == "Brand New Name", m.raw
    # NAMELEN characters are fine, one more is not
    namelen = int(isupport(a.welcome)["NAMELEN"])
    a.send("SETNAME :" + "n" * namelen)
    m = a.expect_msg(r"%s SETNAME " % a.source_rx)
    assert m.params == ["n" * namelen], m.raw
    a.send("SETNAME :" + "x" * (namelen + 1))
    a.expect(r"^(?:@\S+ )?:\S+ FAIL SETNAME INVALID_REALNAME ")
    b.expect(r"SETNAME :n+$")
    assert not any("xxxx" in l for l in b.sync()), b.lines[-3:]
    # invalid: too long, empty
    a.send("SETNAME :" + "x" * 300)
    m = a.expect_msg(r"^(?:@\S+ )?:\S+ FAIL SETNAME INVALID_REALNAME ")
    a.send("SETNAME :")
    a.expect(r"^(?:@\S+ )?:\S+ FAIL SETNAME INVALID_REALNAME ")
    # without the cap it works, silently
    plain.send("SETNAME :Plain Changed")
    assert not any("SETNAME" in l for l in plain.sync()), plain.lines[-5:]
    m = b.expect_msg(r"%s SETNAME " % plain.source_rx)
    assert m.params == ["Plain Changed"], m.raw
    for c in (a, b, plain):
        c.quit()


def test_bot_mode():
    srv = S()
    bot = cclient(srv, S.nick("bot"), "echo-message")
    assert isupport(bot.welcome).get("BOT") == "B", isupport(bot.welcome)
    tags = cclient(srv, S.nick("btt"), "message-tags")
    plain = cclient(srv, S.nick("btp"))
    ch = S.chan("#bt")
    join_all(ch, bot, tags, plain)
    bot.send("MODE %s +B" % bot.nick)
    bot.expect(r" MODE %s :?\+B" % bot.nick)
    plain.send("WHOIS %s" % bot.nick)
    lines = plain.collect_until(r" 318 ")
    assert any(parse(l).command == "335" and parse(l).params[1] == bot.nick
               for l in lines), "no 335 RPL_WHOISBOT: %r" % lines
    plain.send("WHO %s" % ch)
    m = plain.expect_msg(r" 352 \S+ %s \S+ \S+ \S+ %s " % (re.escape(ch), bot.nick))
    assert "B" in m.params[6], "WHO flags %r" % m.params[6]
    plain.expect_numeric(315)
    bot.send("PRIVMSG %s :beep boop" % ch)
    m = tags.expect_msg(r"PRIVMSG %s :beep boop" % ch)
    assert "bot" in m.tags, "no bot tag: %r" % m.raw
    no_tags(plain.expect(r"PRIVMSG %s :beep boop" % ch).string)
    no_tags(bot.expect(r"PRIVMSG %s :beep boop" % ch).string)
    # a non-bot has no 335 and no bot tag
    plain.send("PRIVMSG %s :human" % ch)
    m = tags.expect_msg(r"PRIVMSG %s :human" % ch)
    assert "bot" not in m.tags, m.raw
    tags.send("WHOIS %s" % plain.nick)
    assert not any(" 335 " in l for l in tags.collect_until(r" 318 "))
    bot.send("TOPIC %s :set by a bot" % ch)
    m = tags.expect_msg(r" TOPIC %s :set by a bot" % ch)
    assert "bot" in m.tags, "no bot tag on TOPIC: %r" % m.raw
    # -B removes it
    bot.send("MODE %s -B" % bot.nick)
    bot.expect(r" MODE %s :?-B" % bot.nick)
    bot.send("PRIVMSG %s :plain again" % ch)
    m = tags.expect_msg(r"PRIVMSG %s :plain again" % ch)
    assert "bot" not in m.tags, m.raw
    for c in (bot, tags, plain):
        c.quit()


def test_relayed_events_carry_tags():
    """JOIN/TOPIC/MODE/NICK/KICK/PART/QUIT relays carry time, msgid and account."""
    srv = S()
    o = cclient(srv, S.nick("evo"), "message-tags server-time account-tag")
    x = cclient(srv, S.nick("evx"), login=True)
    v = cclient(srv, S.nick("evv"))
    ch = S.chan("#ev")
    x.join(ch)          # x creates the channel: op
    o.join(ch)
    v.join(ch)
    x.sync()
    events = []
    x.send("TOPIC %s :a topic" % ch)
    events.append(tagged(o, r"%s TOPIC %s :a topic" % (x.source_rx, re.escape(ch))))
    x.send("MODE %s +v %s" % (ch, v.nick))
    events.append(tagged(o, r"%s MODE %s \+v %s" % (x.source_rx, re.escape(ch), v.nick)))
    x.send("KICK %s %s :out" % (ch, v.nick))
    events.append(tagged(o, r"%s KICK %s %s" % (x.source_rx, re.escape(ch), v.nick)))
    old_rx = x.source_rx
    x.send("NICK %sn" % x.nick)
    events.append(tagged(o, r"%s NICK " % old_rx))
    x.nick += "n"
    x.send("PART %s :later" % ch)
    events.append(tagged(o, r"%s PART %s" % (x.source_rx, re.escape(ch))))
    x.join(ch)
    events.append(tagged(o, r"%s JOIN %s" % (x.source_rx, re.escape(ch))))
    x.send("QUIT :leaving")
    events.append(tagged(o, r"%s QUIT " % x.source_rx))
    for m in events:
        check_time(m.tags.get("time"))
        assert m.tags.get("msgid"), "no msgid on %r" % m.raw
        assert m.tags.get("account") == "alice", "no account tag on %r" % m.raw
    assert len(set(m.tags["msgid"] for m in events)) == len(events), [m.raw for m in events]
    o.quit()
    v.quit()


def test_msgid_unique_across_restart():
    """msgids are not a counter that starts again when the daemon restarts."""
    ids = []
    for _ in range(2):
        srv = Server(flood_exempt="127.0.0.1/32")
        try:
            a = cclient(srv, "rsa", "message-tags echo-message")
            a.send("PRIVMSG rsa :first")
            ids.append(tagged(a, r"PRIVMSG rsa :first").tags.get("msgid"))
            a.quit()
        finally:
            srv.stop()
    assert ids[0] and ids[0] != ids[1], "same msgid after a restart: %r" % ids


def test_labeled_response_on_dispatch_errors():
    """Replies from the command dispatcher (421 unknown command, 461 missing parameters)
    carry the label too."""
    srv = S()
    a = cclient(srv, S.nick("lre"), "batch labeled-response")
    a.send("@label=unk FROBNICATE x")
    m = tagged(a, r" 421 ")
    a.send("@label=few JOIN")
    m2 = tagged(a, r" 461 ")
    a.quit()
    assert m.tags.get("label") == "unk", "421 without the label: %r" % m.raw
    assert m2.tags.get("label") == "few", "461 without the label: %r" % m2.raw


# ---------------------------------------------------------------- issue 27

def test_message_to_self_once():
    """echo-message ('the server MUST send the message back to the client'), issue 27:
    a PRIVMSG, NOTICE or TAGMSG to one's own nick arrives once; with echo-message it is
    the echo and carries the label, without it the delivery, as Ergo does."""
    srv = S()
    for caps, label in (("batch labeled-response echo-message message-tags", "s1"),
                        ("message-tags", None)):
        a = cclient(srv, S.nick("self"), caps)
        for cmd in ("PRIVMSG", "NOTICE", "TAGMSG"):
            text = "" if cmd == "TAGMSG" else " :hi me"
            a.send("@label=s1;+typing=active %s %s%s" % (cmd, a.nick, text))
            got = [parse(l) for l in a.sync() if " %s " % cmd in l]
            assert len(got) == 1, (caps, cmd, [m.raw for m in got])
            assert got[0].tags.get("label") == label, got[0].raw
            assert got[0].tags.get("+typing") == "active", got[0].raw
        a.quit()


def test_multiline_to_self_once():
    """draft/multiline with echo-message, issue 27: a batch to one's own nick arrives
    once (the echo, with the label), not as an echo and a delivery; without
    echo-message, once as the delivery."""
    srv = S()
    for caps in ("batch labeled-response draft/multiline echo-message",
                 "batch draft/multiline"):
        a = cclient(srv, S.nick("mlself"), caps)
        a.send("@label=ml BATCH +m1 draft/multiline %s" % a.nick)
        a.send("@batch=m1 PRIVMSG %s :one" % a.nick)
        a.send("@batch=m1 PRIVMSG %s :two" % a.nick)
        a.send("BATCH -m1")
        lines = a.sync()
        opens = [l for l in lines if re.search(r" BATCH \+\S+ draft/multiline ", l)]
        texts = [parse(l).params[-1] for l in lines if " PRIVMSG " in l]
        assert len(opens) == 1 and texts == ["one", "two"], (caps, lines)
        a.quit()


def test_invite_carries_account_tag():
    """account-tag ('the account tag ... on any message a user sends'), issue 27: an
    INVITE from a logged-in user carries account= to the invited client that asked for
    account-tag, and to an operator told by invite-notify; a client without the cap gets
    it bare."""
    srv = S()
    op = cclient(srv, S.nick("iat"), login=True)
    guest = cclient(srv, S.nick("iag"), "account-tag")
    plain = cclient(srv, S.nick("iap"))
    watcher = cclient(srv, S.nick("iaw"), "account-tag invite-notify")
    ch = S.chan("#ia")
    join_all(ch, op, watcher)
    op.send("MODE %s +o %s" % (ch, watcher.nick))
    watcher.expect(r" MODE %s \+o " % re.escape(ch))
    op.send("INVITE %s %s" % (guest.nick, ch))
    op.expect_numeric(341)
    m = guest.expect_msg(r"%s INVITE %s " % (op.source_rx, guest.nick))
    assert m.tags.get("account") == "alice", m.raw
    m = watcher.expect_msg(r"%s INVITE %s " % (op.source_rx, guest.nick))
    assert m.tags.get("account") == "alice", m.raw
    op.send("INVITE %s %s" % (plain.nick, ch))
    plain.expect(r"%s INVITE %s " % (op.source_rx, plain.nick))
    no_tags(plain.last.raw)
    for c in (op, guest, plain, watcher):
        c.quit()


if __name__ == "__main__":
    run_tests(globals())

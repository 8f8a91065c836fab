#!/usr/bin/env python3
"""Issue 26, rule LK-1: operators' CONNECT and SQUIT, and a reload that adds,
removes and changes links.

Against a real InspIRCd 3 (test_link.py's harness, imported): a link without
autoconnect waits for an operator's CONNECT; SQUIT ends it with the reason, the
network's users quit with the split reason, CONNECT brings them back; people who
are not operators get 481, an unknown server 402; a reload removes the link
(InspIRCd's users quit) and one adds it back (they return); with a second
InspIRCd behind the first, SQUIT of it goes as RSQUIT. Against fake peers
(sockets that play a linked server line by line): the RSQUIT line exactly, an
autoconnect link waits its back-off after a SQUIT, and a SIGHUP or REHASH adds a
link (it connects), removes one (ERROR, its users quit), changes one's password
(it relinks with the new one) and leaves an unchanged one alone (no split seen
here); the sid does not change under a connected link.
"""

import os
import re
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, TestFailure,  # noqa: E402
                        free_port, hash_password, parse, run_tests)
# The harness of test_link.py (it exits with a SKIP line without inspircd).
from test_link import (DIRS, INSP_NAME, LIVE, SPLIT, FakePeer,  # noqa: E402
                       InspIRCd, link_section, names, pair, wait_for, wait_up)

OPER_PW = "oper-secret"
# One hash, so that a section written again is the same text.
FAKE_HASH = hash_password("fake-pass")
OPER = "[operator root]\npassword = %s\nmask = *@*\n\n" % hash_password(OPER_PW)


def oper(srv, nick):
    c = Client(srv, nick)
    c.send("OPER root %s" % OPER_PW)
    c.expect_numeric(381)
    return c


def test_lk1_connect_and_squit_by_an_operator():
    """LK-1: CONNECT starts a link that does not autoconnect; SQUIT ends it with
    the reason and the network's users quit with the split reason; CONNECT again
    brings them back. Not for people who are not operators."""
    insp, ai = pair(link_kw={"autoconnect": False}, agents=OPER)
    pleb = Client(ai, "pleb")
    pleb.send("CONNECT %s" % INSP_NAME)
    pleb.expect_numeric(481)
    pleb.send("SQUIT %s :no" % INSP_NAME)
    pleb.expect_numeric(481)
    op = oper(ai, "opal")
    op.send("CONNECT irc.nowhere.test")
    op.expect_numeric(402, params=r"irc\.nowhere\.test ")
    op.send("SQUIT %s :not up" % INSP_NAME)
    op.expect_numeric(402, params=re.escape(INSP_NAME) + " ")
    if "link irc.insp.test: connecting" in ai.log_text():
        raise TestFailure("a link without autoconnect connected by itself")
    op.send("CONNECT %s" % INSP_NAME)
    op.expect(r" NOTICE opal :\*\*\* CONNECT: Connecting to server: %s "
              r"\(127\.0\.0\.1:%d\)$" % (re.escape(INSP_NAME), insp.sport))
    wait_up(ai, insp)
    op.send("CONNECT %s" % INSP_NAME.upper())
    op.expect(r" NOTICE opal :\*\*\* CONNECT: Server %s is linked already$"
              % re.escape(INSP_NAME))
    op.join("#sq")
    erin = Client(insp, "erin")
    erin.join("#sq")
    op.expect(r"^:erin!\S+ JOIN :?#sq")
    op.send("SQUIT %s :maintenance now" % INSP_NAME)
    op.expect(r"^:erin!\S+ QUIT :%s$" % re.escape(SPLIT), timeout=10)
    op.expect(r" NOTICE opal :\*\*\* SQUIT: Server %s removed from the "
              r"network \(maintenance now\)$" % re.escape(INSP_NAME))
    wait_for("InspIRCd logs the reason", lambda: "maintenance now" in
             insp.log_text())
    wait_for("InspIRCd sees agentircd go", lambda: re.search(
        r"(split|lost).*irc\.test|irc\.test.*(split|lost)", insp.log_text()))
    if "opal" in names(erin, "#sq"):
        raise TestFailure("opal still in InspIRCd's NAMES after the SQUIT")
    # Without autoconnect it stays down until asked again.
    time.sleep(1)
    if ai.log_text().count("link irc.insp.test: connecting") != 1:
        raise TestFailure("the link connected again by itself:\n" + ai.log_tail())
    op.send("CONNECT %s" % INSP_NAME)
    op.expect(r"\*\*\* CONNECT: Connecting to server: ")
    wait_up(ai, insp, count=2)
    op.expect(r"^:erin!\S+ JOIN :?#sq", timeout=10)
    wait_for("opal back in InspIRCd's NAMES", lambda: "opal" in names(erin, "#sq"))
    erin.quit()
    op.quit()
    pleb.quit()
    ai.stop()
    insp.stop()


def test_lk1_reload_removes_and_adds_an_inspircd_link():
    """LK-1: against InspIRCd, a reload without the [link] closes it with an
    ERROR (InspIRCd logs why) and the network's users quit; a reload with it
    back links again and brings them back."""
    insp, ai = pair(agents=OPER)
    wait_up(ai, insp)
    op = oper(ai, "opal")
    op.join("#rr")
    erin = Client(insp, "erin")
    erin.join("#rr")
    op.expect(r"^:erin!\S+ JOIN :?#rr")
    with open(ai.conf) as f:
        text = f.read()
    start = text.index("[link %s]" % INSP_NAME)
    end = text.index("autoconnect = yes\n", start) + len("autoconnect = yes\n")
    with open(ai.conf, "w") as f:
        f.write(text[:start] + text[end:])
    op.send("REHASH")
    op.expect(r"^:erin!\S+ QUIT :%s$" % re.escape(SPLIT), timeout=10)
    wait_for("InspIRCd logs the reason", lambda: "Link removed from the "
             "configuration" in insp.log_text())
    op.send("CONNECT %s" % INSP_NAME)
    op.expect_numeric(402)
    with open(ai.conf, "w") as f:
        f.write(text)
    ai.proc.send_signal(signal.SIGHUP)
    wait_up(ai, insp, count=2)
    op.expect(r"^:erin!\S+ JOIN :?#rr", timeout=10)
    erin.quit()
    op.quit()
    ai.stop()
    insp.stop()


B_NAME = "irc.b.insp.test"


def check_links_and_lusers(op):
    """Issue 26 (remote servers in LINKS and LUSERS), issue 27 (LINKS; Modern IRC,
    RPL_LINKS "<client> <server> <uplink> :<hops> <info>"): with agentircd - A - B,
    LINKS lists all three with their uplinks and distances, a mask filters them;
    LUSERS counts three servers, one linked here, and our own users as local."""
    op.send("LINKS")
    got = [parse(l) for l in op.collect_until(r" 365 ")]
    links = {m.params[1]: (m.params[2], m.params[3].split()[0])
             for m in got if m.command == "364"}
    want = {"irc.test": ("irc.test", "0"), INSP_NAME: ("irc.test", "1"),
            B_NAME: (INSP_NAME, "2")}
    if links != want:
        raise TestFailure("LINKS: %r" % [m.raw for m in got])
    op.send("LINKS %s" % B_NAME.replace(".insp.test", ".*"))
    got = [parse(l) for l in op.collect_until(r" 365 ")]
    if [m.params[1] for m in got if m.command == "364"] != [B_NAME]:
        raise TestFailure("LINKS with a mask: %r" % [m.raw for m in got])
    op.send("LUSERS")
    got = {m.command: m for m in (parse(l) for l in op.collect_until(r" 266 "))}
    if not got["251"].params[-1].endswith("on 3 servers") or \
            got["255"].params[-1] != "I have 1 clients and 1 servers" or \
            got["265"].params[1] != "1" or int(got["266"].params[1]) < 2:
        raise TestFailure("LUSERS: %r" % [m.raw for m in got.values()])


def test_lk1_squit_of_a_server_behind_inspircd():
    """LK-1: agentircd - InspIRCd A - InspIRCd B. SQUIT of B by an operator here
    goes as RSQUIT through A, which removes B: B's users quit here with A's split
    reason for B."""
    port = free_port()
    a = InspIRCd(port)
    LIVE.append(a)
    b = InspIRCd.__new__(InspIRCd)
    b.dir = tempfile.mkdtemp(prefix="agentircd-insp-")
    DIRS.append(b.dir)
    b.host, b.port, b.sport, b.proc = "127.0.0.1", free_port(), free_port(), None
    b.log = os.path.join(b.dir, "inspircd.log")
    b.conf = os.path.join(b.dir, "inspircd.conf")
    with open(a.conf) as f:
        text = f.read()
    # B: A's config with its own name, id, ports and files, linked to A.
    text = text.replace(a.dir, b.dir).replace(INSP_NAME, B_NAME)
    text = text.replace('id="1IN"', 'id="2IN"')
    text = text.replace('port="%d" type="clients"' % a.port,
                        'port="%d" type="clients"' % b.port)
    text = text.replace('port="%d" type="servers"' % a.sport,
                        'port="%d" type="servers"' % b.sport)
    text = re.sub(r'<link name="irc\.test"[^\n]*\n',
                  '<link name="%s" ipaddr="127.0.0.1" port="%d" '
                  'allowmask="127.0.0.0/8" sendpass="b-to-a" recvpass="a-to-b">\n'
                  '<autoconnect period="2" server="%s">\n'
                  % (INSP_NAME, a.sport, INSP_NAME), text)
    with open(b.conf, "w") as f:
        f.write(text)
    a.stop()
    with open(a.conf, "a") as f:
        f.write('<link name="%s" ipaddr="127.0.0.1" port="%d" '
                'allowmask="127.0.0.0/8" sendpass="a-to-b" recvpass="b-to-a">\n'
                % (B_NAME, b.sport))
    a.start()
    b.start()
    LIVE.append(b)
    ai = Server(config_extra=link_section(a) + OPER, flood_exempt="127.0.0.0/8")
    wait_up(ai, a)
    wait_for("B behind A", lambda: "server %s (2IN) is behind it" % B_NAME
             in ai.log_text())
    op = oper(ai, "opal")
    op.join("#far")
    bob = Client(b, "bob")
    bob.join("#far")
    op.expect(r"^:bob!\S+ JOIN :?#far", timeout=10)
    check_links_and_lusers(op)
    op.send("SQUIT %s :too far" % B_NAME.upper())
    op.expect(r"\*\*\* SQUIT: RSQUIT sent for %s" % re.escape(B_NAME))
    op.expect(r"^:bob!\S+ QUIT :%s %s$" % (re.escape(INSP_NAME), re.escape(B_NAME)),
              timeout=10)
    wait_for("A logs the RSQUIT", lambda: re.search(
        r"RSQUIT: Server %s removed from network by opal \(too far\)"
        % re.escape(B_NAME), a.log_text()))
    if "link irc.insp.test: split" in ai.log_text():
        raise TestFailure("the link to A split too")
    op.quit()
    bob.quit()
    ai.stop()
    a.stop()
    b.stop()


def fake_up(fake, name, sid, recvpass="ai-pass", accept=True):
    """The handshake of a fake peer called name (SID sid) that agentircd connects
    to; returns agentircd's SID once its burst has ended."""
    fake.handshake(name, sid, recvpass, accept=accept)
    line = fake.expect(r"^:\w{3} ENDBURST$")
    fake.send("BURST")
    fake.send("ENDBURST")
    return line[1:4]


def fake_user(fake, sid, nick, chan):
    """A user of the fake peer, in chan."""
    uuid = sid + "AAAAAA"
    fake.send(":%s UID %s 1 %s h.fake h.fake %s 127.0.0.1 1 +i :%s"
              % (sid, uuid, nick, nick, nick))
    fake.send(":%s FJOIN %s 1 + :,%s:1" % (sid, chan, uuid))
    return uuid


def link_text(name, fake, send="ai-pass", autoconnect=True):
    return ("[link %s]\naddress = 127.0.0.1:%d\nsend-password = %s\n"
            "receive-password = %s\ntls = no\nautoconnect = %s\n\n"
            % (name, fake.sport, send, FAKE_HASH,
               "yes" if autoconnect else "no"))


def test_lk1_squit_behind_and_backoff():
    """LK-1: SQUIT of a server behind a link sends RSQUIT toward it; its SQUIT
    back quits its users. SQUIT of the link itself sends an ERROR with the
    reason, and autoconnect waits its back-off before connecting again."""
    fake = FakePeer()
    ai = Server(config_extra=link_text("irc.fake.test", fake) + OPER,
                flood_exempt="127.0.0.0/8")
    fake_up(fake, "irc.fake.test", "9FK")
    fake.send(":9FK SERVER irc.behind.test 9BH :behind it")
    fake.send(":9BH BURST")
    fake.send(":9BH ENDBURST")
    op = oper(ai, "opal")
    op.join("#bh")
    fake_user(fake, "9BH", "bea", "#bh")
    fake_user(fake, "9FK", "fay", "#bh")
    op.expect(r"^:bea!\S+ JOIN :?#bh")
    op.expect(r"^:fay!\S+ JOIN :?#bh")
    op.send("SQUIT irc.behind.test :too far")
    op.expect(r"\*\*\* SQUIT: RSQUIT sent for irc\.behind\.test")
    fake.expect(r"^:\w{3}AAAAA\w RSQUIT irc\.behind\.test :too far$")
    fake.send(":9FK SQUIT 9BH :Server quit by opal")
    op.expect(r"^:bea!\S+ QUIT :irc\.fake\.test irc\.behind\.test$")
    op.send("SQUIT irc.test")
    op.expect(r" NOTICE opal :\*\*\* SQUIT: irc\.test is this server")
    t0 = time.time()
    op.send("SQUIT irc.fake.test :bye now")
    fake.expect(r"^ERROR :Server quit by opal!\S+: bye now$")
    op.expect(r"^:fay!\S+ QUIT :irc\.test irc\.fake\.test$")
    if not fake.closed():
        raise TestFailure("the link stayed open after SQUIT")
    wait_for("the back-off logged", lambda: "link irc.fake.test: connecting "
             "again in 5 seconds" in ai.log_text())
    fake_up(fake, "irc.fake.test", "9FK")
    if time.time() - t0 < 4:
        raise TestFailure("connected again after %.1f s, before the back-off"
                          % (time.time() - t0))
    op.quit()
    ai.stop()


def test_lk1_reload_adds_removes_changes_links():
    """LK-1: a reload adds a link (it connects), removes one (ERROR, its users
    quit), changes one's password (ERROR, it connects again with the new one) and
    leaves an unchanged one alone: its connection stays, no user of it quits."""
    keep, gone, chg, new = FakePeer(), FakePeer(), FakePeer(), FakePeer()
    ai = Server(config_extra=OPER + link_text("irc.keep.test", keep)
                + link_text("irc.gone.test", gone) + link_text("irc.chg.test", chg),
                flood_exempt="127.0.0.0/8")
    sid = fake_up(keep, "irc.keep.test", "9KP")
    fake_up(gone, "irc.gone.test", "9GN")
    fake_up(chg, "irc.chg.test", "9CH")
    watcher = oper(ai, "watcher")
    watcher.join("#rl")
    for fake, s, nick in ((keep, "9KP", "kay"), (gone, "9GN", "gus"),
                          (chg, "9CH", "cho")):
        fake_user(fake, s, nick, "#rl")
        watcher.expect(r"^:%s!\S+ JOIN :?#rl" % nick)
    with open(ai.conf) as f:
        text = f.read()
    text = text.replace(link_text("irc.gone.test", gone), "")
    text = text.replace(link_text("irc.chg.test", chg),
                        link_text("irc.chg.test", chg, send="new-pass"))
    text += link_text("irc.new.test", new)
    with open(ai.conf, "w") as f:
        f.write(text)
    watcher.send("REHASH")
    watcher.expect_numeric(382)
    gone.expect(r"^ERROR :Link removed from the configuration$")
    if not gone.closed():
        raise TestFailure("the removed link stayed open")
    chg.expect(r"^ERROR :Link configuration changed$")
    if not chg.closed():
        raise TestFailure("the changed link stayed open")
    fake_up(chg, "irc.chg.test", "9CH", recvpass="new-pass")
    fake_up(new, "irc.new.test", "9NW")
    got = watcher.sync()
    got += watcher.drain(0.5)
    quits = [l for l in got if " QUIT " in l]
    want = {"gus": "irc.test irc.gone.test", "cho": "irc.test irc.chg.test"}
    for nick, reason in want.items():
        if not any(re.match(r"^:%s!\S+ QUIT :%s$" % (nick, re.escape(reason)), l)
                   for l in quits):
            raise TestFailure("no split QUIT of %s: %r" % (nick, got))
    if any(l.startswith(":kay!") for l in quits):
        raise TestFailure("the unchanged link's user quit: %r" % quits)
    # The unchanged link's connection is the one it had: it still answers.
    keep.send(":9KP PING %s" % sid)
    keep.expect(r"^:%s PONG 9KP$" % sid)
    fake_user(new, "9NW", "nia", "#rl")
    watcher.expect(r"^:nia!\S+ JOIN :?#rl")
    if "kay" not in names(watcher, "#rl"):
        raise TestFailure("kay left #rl")
    log = ai.log_text()
    for want_line in ("link irc.new.test: added by the reload",
                      "link irc.gone.test: removed by the reload",
                      "link irc.chg.test: changed by the reload"):
        if want_line not in log:
            raise TestFailure("log lacks %r" % want_line)
    if "irc.keep.test: changed" in log or "irc.keep.test: split" in log:
        raise TestFailure("the unchanged link was touched:\n" + ai.log_tail())
    watcher.quit()
    ai.stop()


def test_lk1_reload_sid_kept_while_linked():
    """LK-1: a SIGHUP that changes the sid while a link is up keeps the sid the
    links started with and says so; the link stays. A [link] added by a reload to
    a server that had none connects."""
    keep = FakePeer()
    ai = Server(flood_exempt="127.0.0.0/8")
    # The first [link] comes with a reload.
    with open(ai.conf, "a") as f:
        f.write("\n" + link_text("irc.keep.test", keep))
    ai.proc.send_signal(signal.SIGHUP)
    sid = fake_up(keep, "irc.keep.test", "9KP")
    with open(ai.conf) as f:
        text = f.read()
    text = text.replace("[server]\n", "[server]\nsid = 7ZZ\n", 1)
    if sid == "7ZZ":
        raise TestFailure("the test's new sid is the old one")
    with open(ai.conf, "w") as f:
        f.write(text)
    ai.proc.send_signal(signal.SIGHUP)
    wait_for("the sid refusal", lambda: "links: the sid changed from %s to 7ZZ; "
             "it cannot while a link is connected" % sid in ai.log_text())
    keep.send(":9KP PING %s" % sid)
    keep.expect(r"^:%s PONG 9KP$" % sid)
    ai.stop()


run_tests(globals())

#!/usr/bin/env python3
"""Rule LK-5: agentircd as the hub of two links.

With the harness of test_link.py: agentircd (irc.test) in the middle, hosting an echo
agent, links to a real InspIRCd 3 (leaf 1, irc.insp.test) and is linked to by a second
agentircd (leaf 2, irc.b.test). Checked: a person on each leaf, in one channel, see
each other join (JOIN and NAMES), talk both ways and privately, and see each other
quit; a person on leaf 2 asks the hub's agent and the person on leaf 1 sees the
answer; when leaf 1 goes away, leaf 2's person sees leaf 1's people quit (the hub
tells leaf 2 with an SQUIT).
With a fake peer as the second link: the hub's burst to it holds InspIRCd's server
(SERVER), its users (UID from their own SID) and their channels (FJOIN); the fake's
user reaches InspIRCd's people; a SID the other link has already (1IN) is refused
with an ERROR and a log line, and the fake's users quit on InspIRCd too.
What the hub only routes (as InspIRCd 3's m_spanningtree does): InspIRCd's server
PING to leaf 2 and its PONG back, a WHOIS across the hub (IDLE) with the idle time,
KILL by an operator on either side of a person on leaf 2, RSQUIT of leaf 2; and with
the fake: PING, IDLE both ways, ENCAP by SID and by mask, SAVE, RSQUIT behind it.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, TestFailure, hash_password,  # noqa: E402
                        run_tests)
from test_link import FakePeer  # noqa: E402
from test_link import (HAVE_AGENT, INSP_NAME, LIVE, InspIRCd,  # noqa: E402
                       agent_section, free_port, link_section, names, server_b,
                       wait_for)


def hub_net(insp_extra="", hub_extra=""):
    """InspIRCd (leaf 1) <- agentircd hub with an agent -> agentircd leaf 2."""
    insp = InspIRCd(free_port(), extra=insp_extra)
    LIVE.append(insp)
    lport = free_port()
    hub = Server(config_extra=link_section(insp)
                 + "[listen]\naddress = 127.0.0.1:%d\nlinks = yes\n\n"
                 "[link irc.b.test]\naddress = 127.0.0.1:1\nsend-password = a-pass\n"
                 "receive-password = %s\ntls = no\nautoconnect = no\n\n%s"
                 % (lport, hash_password("b-pass"),
                    agent_section("helper", "#hub") if HAVE_AGENT else "")
                 + hub_extra,
                 flood_exempt="127.0.0.0/8")
    wait_for("the hub links to InspIRCd", lambda: "link %s: up" % INSP_NAME
             in hub.log_text())
    wait_for("InspIRCd has the hub's burst", lambda: "Received end of netburst "
             "from irc.test" in insp.log_text())
    b = server_b("[link irc.test]\naddress = 127.0.0.1:%d\n"
                 "send-password = b-pass\nreceive-password = %s\ntls = no\n"
                 % (lport, hash_password("a-pass")))
    wait_for("the hub has leaf 2", lambda: "link irc.b.test: up" in hub.log_text())
    wait_for("leaf 2 has the hub's burst", lambda: "link irc.test: burst received"
             in b.log_text())
    wait_for("InspIRCd hears of leaf 2", lambda: "irc.b.test" in insp.log_text())
    return insp, hub, b


def test_lk5_hub_between_two_leaves():
    """LK-5: people on two leaves of an agentircd hub share a channel, talk, see
    the hub's agent answer, and see a split of the other leaf. InspIRCd learns of
    leaf 2 as a server bursting (SERVER burst=, server.cpp) and times its burst."""
    insp, hub, b = hub_net()
    # Leaf 2 was introduced as bursting (burst=), so its ENDBURST times its burst.
    wait_for("InspIRCd times leaf 2's burst", lambda: re.search(
        r"Received end of netburst from irc.b.test \(burst time: \d+ msecs\)",
        insp.log_text()))
    ian = Client(insp, "ian")
    kim = Client(b, "kim")
    ian.join("#hub")
    wait_for("ian in #hub on leaf 2", lambda: "ian" in names(kim, "#hub"))
    kim.join("#hub")
    ian.expect(r"^:kim!\S+ JOIN :?#hub")
    if "kim" not in names(ian, "#hub"):
        raise TestFailure("kim not in NAMES on InspIRCd")
    if HAVE_AGENT and "helper" not in names(ian, "#hub"):
        raise TestFailure("the hub's agent not in NAMES on InspIRCd")
    ian.send("PRIVMSG #hub :hello from leaf one")
    kim.expect(r"^(@\S+ )?:ian!\S+ PRIVMSG #hub :hello from leaf one$")
    kim.send("PRIVMSG #hub :hello from leaf two")
    ian.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG #hub :hello from leaf two$")
    kim.send("PRIVMSG ian :just you")
    ian.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG ian :just you$")
    ian.send("PRIVMSG kim :and you")
    kim.expect(r"^(@\S+ )?:ian!\S+ PRIVMSG kim :and you$")
    if HAVE_AGENT:
        kim.send("PRIVMSG #hub :@helper hi from leaf two")
        ian.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG #hub :@helper hi from leaf two$")
        # The answer is several lines: the transcript, then the question.
        ian.expect(r"^(@\S+ )?:helper!\S+ PRIVMSG #hub :kim: echo: ", timeout=30)
        ian.expect(r"^(@\S+ )?:helper!\S+ PRIVMSG #hub :.*hi from leaf two",
                   timeout=30)
    if "link %s: split" % INSP_NAME in hub.log_text() or \
            "link irc.b.test: split" in hub.log_text():
        raise TestFailure("a link of the hub split: %s" % hub.log_text()[-2000:])
    ian.send("QUIT :bye now")
    kim.expect(r"^:ian!\S+ QUIT :.*bye now")
    ivy = Client(insp, "ivy")
    ivy.join("#hub")
    kim.expect(r"^:ivy!\S+ JOIN :?#hub")
    insp.stop()
    kim.expect(r"^:ivy!\S+ QUIT :", timeout=20)
    wait_for("leaf 2 drops leaf 1", lambda: "server irc.insp.test split"
             in b.log_text() or "ivy" not in names(kim, "#hub"))
    if "ivy" in names(kim, "#hub"):
        raise TestFailure("ivy still in #hub on leaf 2 after the split")
    kim.quit()
    b.stop()
    hub.stop()


def test_lk5_hub_burst_and_sid_collision():
    """LK-5: a new link gets the other link's servers, users and channels in our
    burst; a SID already behind another link is refused."""
    insp = InspIRCd(free_port())
    LIVE.append(insp)
    fake = FakePeer()
    hub = Server(config_extra=link_section(insp)
                 + "[link irc.fake.test]\naddress = 127.0.0.1:%d\n"
                 "send-password = ai-pass\nreceive-password = %s\ntls = no\n\n"
                 % (fake.sport, hash_password("fake-pass")),
                 flood_exempt="127.0.0.0/8")
    wait_for("the hub links to InspIRCd", lambda: "Received end of netburst "
             "from irc.test" in insp.log_text())
    ian = Client(insp, "ian")
    ian.join("#hub")
    watch = Client(hub, "watch")
    wait_for("ian on the hub", lambda: "ian" in names(watch, "#hub"))
    fake.handshake()
    fake.expect(r"^:\w{3} SERVER irc.insp.test 1IN :")
    uid = fake.expect(r"^:1IN UID 1IN\w{6} \d+ ian ").split()[2]
    fake.expect(r"^:\w{3} FJOIN #hub \d+ \S+ :.*%s" % uid)
    fake.expect(r"^:\w{3} ENDBURST$")
    fake.send(":9FK BURST 1")
    fake.send(":9FK UID 9FKAAAAAA 1 fay h.fake h.fake fay 127.0.0.1 1 +i :Fay")
    fake.send(":9FK FJOIN #hub 1 +nt :,9FKAAAAAA:1")
    fake.send(":9FK ENDBURST")
    ian.expect(r"^:fay!\S+ JOIN :?#hub")
    fake.send("@+draft/reply=abc :9FKAAAAAA PRIVMSG #hub :from the fake side")
    ian.expect(r"^(@\S+ )?:fay!\S+ PRIVMSG #hub :from the fake side$")
    fake.send(":9FKAAAAAA PRIVMSG %s :just ian" % uid)
    ian.expect(r"^(@\S+ )?:fay!\S+ PRIVMSG ian :just ian$")
    ian.send("PRIVMSG fay :back to you")
    fake.expect(r"^(@\S+ )?:%s PRIVMSG 9FKAAAAAA :back to you$" % uid)
    fake.send(":9FK SERVER irc.evil.test 1IN :a SID InspIRCd has")
    fake.expect(r"^ERROR :Server ID 1IN is invalid or already in use")
    wait_for("the hub logs the collision", lambda: "1IN is invalid or already "
             "in use" in hub.log_text())
    ian.expect(r"^:fay!\S+ QUIT :")
    # fay quit by our SQUIT of 9FK, not by a split of InspIRCd's own link.
    if not insp.alive() or "link %s: split" % INSP_NAME in hub.log_text():
        raise TestFailure("the link to InspIRCd went down")
    for c in (ian, watch):
        c.quit()
    hub.stop()


OPER_PW = "oper-secret"
# An operator on InspIRCd (class Shared has every command) and one on the hub; and
# InspIRCd pinging every server each 3 seconds, warning of one silent for 2, with
# the lines between servers logged (rawio) to see who answers.
INSP_OPS = ('<type name="NetAdmin" classes="Shared">\n'
            '<oper name="root" password="%s" host="*@*" type="NetAdmin">\n'
            '<options serverpingfreq="3" pingwarning="2">\n' % OPER_PW)
HUB_OPS = "[operator root]\npassword = %s\nmask = *@*\n\n" % hash_password(OPER_PW)


def rawio(insp):
    return '<log method="file" type="*" level="rawio" flush="1" target="%s">\n' % \
        os.path.join(insp.dir, "rawio.log")


def rawio_text(insp):
    try:
        with open(os.path.join(insp.dir, "rawio.log"), "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def whois_lines(c, nick):
    c.send("WHOIS %s" % nick)
    return c.collect_until(r" 318 ")


def oper_up(c):
    c.send("OPER root %s" % OPER_PW)
    c.expect(r" 381 ")


def test_lk5_hub_routes_kill_ping_whois_rsquit():
    """LK-5 ("any mix of hub and leaf"): what the hub does not handle itself goes on
    as InspIRCd routes it (m_spanningtree: KILL broadcast, PING/PONG and IDLE
    unicast to their target, RSQUIT to the server named). InspIRCd's server PING to
    the leaf behind the hub is answered and no "not responding" warning comes; a
    WHOIS on InspIRCd of a person on the leaf shows its idle time (317); an operator
    on InspIRCd KILLs a person on the leaf, and one on the hub KILLs another, each
    gone on all three servers (InspIRCd's operator is one on the leaf too:
    OPERTYPE); InspIRCd's RSQUIT of the leaf splits it at the hub."""
    # The rawio log tag is written once the directory exists: InspIRCd makes it.
    insp, hub, b = hub_net(insp_extra=INSP_OPS, hub_extra=HUB_OPS)
    insp.stop()
    with open(insp.conf) as f:
        text = f.read()
    with open(insp.conf, "w") as f:
        f.write(text + rawio(insp))
    insp.start()
    wait_for("the hub links to InspIRCd again", lambda: hub.log_text().count(
        "link %s: burst received" % INSP_NAME) >= 2)
    wait_for("InspIRCd hears of leaf 2 again", lambda: "irc.b.test" in
             rawio_text(insp))
    bsid = re.search(r"link irc.b.test: up, server id (\w{3})",
                     hub.log_text()).group(1)
    # PING: InspIRCd's to leaf 2 reaches it through the hub, and its PONG comes back.
    wait_for("leaf 2's PONG to InspIRCd", lambda: re.search(
        r"S\[\d+\] I :%s PONG 1IN" % bsid, rawio_text(insp)), timeout=20)
    if "irc.b.test has not responded to PING" in insp.log_text():
        raise TestFailure("InspIRCd warns that leaf 2 does not answer its PING")
    ian = Client(insp, "ian")
    kim = Client(b, "kim")
    kip = Client(b, "kip")
    watch = Client(hub, "watch")
    for c in (ian, kim, kip, watch):
        c.join("#hub")
    wait_for("kim and kip on InspIRCd", lambda: {"kim", "kip"} <= set(names(ian, "#hub")))
    # WHOIS across the hub: InspIRCd asks leaf 2 (IDLE) and gets the answer back.
    ian.send("WHOIS kim kim")
    lines = ian.collect_until(r" 318 ", timeout=10)
    if not any(re.search(r" 317 ian kim \d+ \d+ :", l) for l in lines):
        raise TestFailure("WHOIS kim kim on InspIRCd lacks 317: %r" % lines)
    # KILL by InspIRCd's operator of a person on leaf 2, through the hub.
    oper_up(ian)
    # Its OPERTYPE reaches leaf 2 through the hub: an operator there too.
    wait_for("ian an operator on leaf 2", lambda: any(
        re.search(r" 313 kip ian ", l) for l in whois_lines(kip, "ian")))
    ian.send("KILL kim :enough now")
    kim.expect(r"^ERROR :.*enough now", timeout=10)
    watch.expect(r"^:kim!\S+ QUIT :.*enough now")
    kip.expect(r"^:kim!\S+ QUIT :.*enough now")
    if "kim" in names(ian, "#hub") or "kim" in names(watch, "#hub"):
        raise TestFailure("kim still in #hub after the KILL")
    # KILL by the hub's operator of a person on leaf 2: InspIRCd hears it too.
    oper_up(watch)
    watch.send("KILL kip :you too")
    kip.expect(r"^ERROR :.*you too", timeout=10)
    ian.expect(r"^:kip!\S+ QUIT :.*you too")
    wait_for("kip gone on InspIRCd", lambda: "kip" not in names(ian, "#hub"))
    # RSQUIT of leaf 2 by InspIRCd's operator: the hub, its uplink, splits it.
    ian.send("RSQUIT irc.b.test :time to go")
    wait_for("the hub splits leaf 2", lambda: "link irc.b.test: split" in
             hub.log_text())
    wait_for("leaf 2 hears why", lambda: "the peer says: Server quit by ian!"
             in b.log_text() and "time to go" in b.log_text())
    if "link %s: split" % INSP_NAME in hub.log_text().split(
            "burst received")[-1]:
        raise TestFailure("the hub's link to InspIRCd went down")
    for c in (ian, watch):
        c.quit()
    b.stop()
    hub.stop()


def test_lk5_hub_routes_to_a_fake_leaf():
    """LK-5, as InspIRCd 3's m_spanningtree routes them (ping.cpp, pong.cpp,
    idle.cpp, encap.cpp, save.cpp, rsquit.cpp): a fake leaf's PING to InspIRCd is
    answered through the hub; its IDLE of a person on InspIRCd is answered, and
    InspIRCd's WHOIS of the fake's user asks the fake; ENCAP to InspIRCd (by SID)
    and to every server (a mask) reaches InspIRCd, one to a SID nobody has goes
    nowhere; a SAVE of InspIRCd's person renames it everywhere; RSQUIT of a server
    behind the fake reaches the fake."""
    insp = InspIRCd(free_port(), extra='<module name="chgname">\n')
    LIVE.append(insp)
    fake = FakePeer()
    hub = Server(config_extra=link_section(insp)
                 + "[link irc.fake.test]\naddress = 127.0.0.1:%d\n"
                 "send-password = ai-pass\nreceive-password = %s\ntls = no\n\n"
                 % (fake.sport, hash_password("fake-pass")) + HUB_OPS,
                 flood_exempt="127.0.0.0/8")
    wait_for("the hub links to InspIRCd", lambda: "Received end of netburst "
             "from irc.test" in insp.log_text())
    ian = Client(insp, "ian")
    ian.join("#hub")
    watch = Client(hub, "watch")
    watch.join("#hub")
    wait_for("ian on the hub", lambda: "ian" in names(watch, "#hub"))
    fake.handshake()
    uid = fake.expect(r"^:1IN UID 1IN\w{6} \d+ ian ").split()
    ian_uuid, ian_ts = uid[2], uid[3]
    fake.expect(r"^:\w{3} ENDBURST$")
    fake.send(":9FK BURST 1")
    fake.send(":9FK SERVER irc.deep.test 9DP :behind the fake")
    fake.send(":9FK UID 9FKAAAAAA 1 fay h.fake h.fake fay 127.0.0.1 1 +i :Fay")
    fake.send(":9FK FJOIN #hub 1 +nt :,9FKAAAAAA:1")
    fake.send(":9FK ENDBURST")
    ian.expect(r"^:fay!\S+ JOIN :?#hub")
    # PING to InspIRCd, its PONG back.
    fake.send(":9FK PING 1IN")
    fake.expect(r"^(@\S+ )?:1IN PONG 9FK$")
    # IDLE: the fake's user asks of ian; InspIRCd answers.
    fake.send(":9FKAAAAAA IDLE %s" % ian_uuid)
    fake.expect(r"^(@\S+ )?:%s IDLE 9FKAAAAAA \d+ \d+$" % ian_uuid)
    # InspIRCd's WHOIS of fay asks the fake; the fake's answer ends the WHOIS.
    ian.send("WHOIS fay fay")
    fake.expect(r"^(@\S+ )?:%s IDLE 9FKAAAAAA$" % ian_uuid)
    fake.send(":9FKAAAAAA IDLE %s 1000 42" % ian_uuid)
    lines = ian.collect_until(r" 318 ", timeout=10)
    if not any(re.search(r" 317 ian fay 42 \d+ :", l) for l in lines):
        raise TestFailure("WHOIS fay fay on InspIRCd lacks 317 42: %r" % lines)
    # ENCAP by SID, then by mask: InspIRCd runs its CHGNAME (m_chgname) for each;
    # one for a SID no server has goes nowhere.
    fake.send(":9FK ENCAP 7ZZ CHGNAME %s :To nobody" % ian_uuid)
    fake.send(":9FK ENCAP 1IN CHGNAME %s :By SID" % ian_uuid)
    wait_for("ian renamed by SID", lambda: any(re.search(r" 311 ian ian .*:By SID$", l)
                                               for l in whois_lines(ian, "ian")))
    fake.send(":9FK ENCAP irc.*.test CHGNAME %s :By mask" % ian_uuid)
    wait_for("ian renamed by mask", lambda: any(re.search(r" 311 ian ian .*:By mask$", l)
                                                for l in whois_lines(ian, "ian")))
    # SAVE of ian (with its nick time): ian goes by its UUID on every server.
    fake.send(":9FK SAVE %s %s" % (ian_uuid, ian_ts))
    ian.expect(r"^:ian!\S+ NICK :?%s$" % ian_uuid)
    watch.expect(r"^:ian!\S+ NICK :?%s$" % ian_uuid)
    # RSQUIT of the server behind the fake, by the hub's operator and by InspIRCd's:
    # the fake gets it (it is the fake's to end).
    oper_up(watch)
    watch.send("SQUIT irc.deep.test :from the hub")
    fake.expect(r"^(@\S+ )?:\w{9} RSQUIT irc.deep.test :from the hub$")
    if not insp.alive() or "link %s: split" % INSP_NAME in hub.log_text():
        raise TestFailure("the link to InspIRCd went down")
    for c in (ian, watch):
        c.quit()
    hub.stop()


if __name__ == "__main__":
    run_tests(globals())

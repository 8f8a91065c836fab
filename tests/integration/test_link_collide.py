#!/usr/bin/env python3
"""Issue 26, rules LK-2, LK-3: collisions are settled by the protocol's timestamp rules.

Channels: a channel made on both sides while they were apart keeps the older side's
modes and operators at the link; the newer side's members join without prefixes
and its modes go (one test with a real InspIRCd 3, both ways).

Nicks:
InspIRCd's rule (m_spanningtree, DoCollision), which every server of a network applies
alike so that all of them reach the same result: when a user of a linked server
claims a nick that a user here holds, the claim with the older nick time keeps the
nick if the two are different people (ident or IP differ), the newer one if they have
the same ident and IP (the same person, reconnected); at equal times neither does.
The loser goes by its UUID (SAVE) on every server. A user still registering here
loses its nick to the network ("433 ... Nickname overruled") and chooses again.

The fake peer of test_link.py writes exact timestamps; one test uses a real
InspIRCd 3, split and relinked, to show both servers agree.
"""

import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, TestFailure, hash_password,  # noqa: E402
                        run_tests)
from test_link import (INSP_NAME, fake_pair, names, pair,  # noqa: E402
                       wait_for, wait_up, whois)


OPER_PW = "oper-secret"
OPER = "[operator root]\npassword = %s\nmask = *@*\n\n" % hash_password(OPER_PW)


def oper(srv, nick):
    c = Client(srv, nick)
    c.send("OPER root %s" % OPER_PW)
    c.expect(r" 381 ")
    return c


def our_uid(fake, nick):
    """The UUID, nick time, ident and IP of our user nick, from the UID line the
    peer got (UID uuid ts nick host dhost ident ip signon +modes :realname)."""
    line = fake.expect(r"^:\w{3} UID \S+ \d+ %s " % re.escape(nick))
    p = line.split()
    return p[2], int(p[3]), p[7], p[8]


def whois_server(c, nick):
    """The server WHOIS names for nick (312), or None when there is no such nick."""
    for m in whois(c, nick):
        if m.command == "312":
            return m.params[2]
        if m.command == "401":
            return None
    return None


def test_lk2_collision_older_remote_keeps_the_nick():
    """LK-2: a different person whose claim is older keeps the nick: ours goes by its
    UUID here (NICK to itself and to its channels) and the peer is told (SAVE with
    our nick time); WHOIS of the nick shows the peer's user."""
    fake, ai = fake_pair()
    alice = Client(ai, "alice7")
    alice.join("#col")
    uuid, ts, _, _ = our_uid(fake, "alice7")
    fake.send(":9FK UID 9FKAAAAAA %d alice7 h.fake h.fake other 192.0.2.9 %d +i :A"
              % (ts - 50, ts - 50))
    fake.expect(r"^:\w{3} SAVE %s %d$" % (uuid, ts))
    alice.expect(r"^:alice7!\S+ NICK :?%s$" % uuid)
    if whois_server(alice, "alice7") != "irc.fake.test":
        raise TestFailure("alice7 is not the peer's user now")
    # The nick time of a saved user is 100 on every server: a later UID/NICK with
    # our UUID as nick is no collision.
    fake.send(":9FK SAVE %s %d" % (uuid, ts))     # stale: no second change
    alice.send("PING :after")
    got = alice.collect_until(r"PONG .*after")
    if any(" NICK " in l for l in got):
        raise TestFailure("a stale SAVE changed the nick again: %r" % got)
    alice.quit()
    ai.stop()


def test_lk2_collision_newer_remote_goes_by_its_uuid():
    """LK-2: a different person whose claim is newer loses: the peer gets SAVE with
    its user's time, the user shows here by its UUID, ours keeps the nick."""
    fake, ai = fake_pair()
    bob = Client(ai, "bob7")
    bob.join("#col")
    uuid, ts, _, _ = our_uid(fake, "bob7")
    fake.send(":9FK UID 9FKAAAAAB %d bob7 h.fake h.fake other 192.0.2.9 %d +i :B"
              % (ts + 50, ts + 50))
    fake.send(":9FK FJOIN #col 1 + :,9FKAAAAAB:1")
    fake.expect(r"^:\w{3} SAVE 9FKAAAAAB %d$" % (ts + 50))
    bob.expect(r"^:9FKAAAAAB!other@h.fake JOIN :?#col")
    if whois_server(bob, "bob7") != "irc.test":
        raise TestFailure("bob7 is not ours any more")
    # Its own server agrees and says so again: nothing changes here.
    fake.send(":9FKAAAAAB NICK 9FKAAAAAB 100")
    # A NICK to a nick held here, newer: it stays by its UUID, SAVE again.
    fake.send(":9FKAAAAAB NICK bob7 %d" % (ts + 60))
    fake.expect(r"^:\w{3} SAVE 9FKAAAAAB %d$" % (ts + 60))
    # A NICK to a free nick is taken as it comes.
    fake.send(":9FKAAAAAB NICK robert7 %d" % (ts + 70))
    bob.expect(r"^:9FKAAAAAB!\S+ NICK :?robert7$")
    bob.quit()
    ai.stop()


def test_lk2_collision_same_person_newer_wins():
    """LK-2: the same ident and IP on both sides is the same person back: the newer
    claim keeps the nick, so our older user goes by its UUID."""
    fake, ai = fake_pair()
    carol = Client(ai, "carol7")
    uuid, ts, ident, ip = our_uid(fake, "carol7")
    fake.send(":9FK UID 9FKAAAAAC %d carol7 h.fake h.fake %s %s %d +i :C"
              % (ts + 50, ident, ip, ts + 50))
    fake.expect(r"^:\w{3} SAVE %s %d$" % (uuid, ts))
    carol.expect(r"^:carol7!\S+ NICK :?%s$" % uuid)
    carol.quit()
    ai.stop()


def test_lk2_collision_equal_times_both_lose():
    """LK-2: at equal nick times neither keeps the nick: both go by their UUIDs."""
    fake, ai = fake_pair()
    dan = Client(ai, "dan7")
    uuid, ts, _, _ = our_uid(fake, "dan7")
    fake.send(":9FK UID 9FKAAAAAD %d dan7 h.fake h.fake other 192.0.2.9 %d +i :D"
              % (ts, ts))
    fake.expect(r"^:\w{3} SAVE (%s|9FKAAAAAD) %d$" % (uuid, ts))
    fake.expect(r"^:\w{3} SAVE (%s|9FKAAAAAD) %d$" % (uuid, ts))
    dan.expect(r"^:dan7!\S+ NICK :?%s$" % uuid)
    if whois_server(dan, "dan7") is not None:
        raise TestFailure("somebody still holds dan7")
    if whois_server(dan, "9FKAAAAAD") != "irc.fake.test":
        raise TestFailure("the peer's user is not known by its UUID")
    dan.quit()
    ai.stop()


def test_lk2_save_of_our_user():
    """LK-2: a SAVE for one of ours with its current nick time renames it (another
    server settled a collision); one with another time is stale and ignored."""
    fake, ai = fake_pair()
    erin = Client(ai, "erin7")
    uuid, ts, _, _ = our_uid(fake, "erin7")
    fake.send(":9FK SAVE %s %d" % (uuid, ts - 1))
    fake.send(":9FK SAVE %s %d" % (uuid, ts))
    erin.expect(r"^:erin7!\S+ NICK :?%s$" % uuid)
    fake.expect(r"^:%s NICK %s 100$" % (uuid, uuid))
    # Back to a nick of its own: a new time, sent to the peer.
    erin.send("NICK erin8")
    erin.expect(r"^:%s!\S+ NICK :?erin8$" % uuid)
    fake.expect(r"^:%s NICK erin8 \d+$" % uuid)
    erin.quit()
    ai.stop()


def test_lk2_registering_client_overruled():
    """LK-2: a client still registering loses its nick to the network's user:
    433 "Nickname overruled", and it registers with another nick."""
    fake, ai = fake_pair()
    s = socket.create_connection((ai.host, ai.port), timeout=10)
    s.sendall(b"NICK frank7\r\n")
    # The nick is held while registering: a local client is refused it.
    other = Client(ai)
    other.send("NICK frank7")
    other.expect(r" 433 \S+ frank7 ")
    other.register("frankw")
    fake.send(":9FK UID 9FKAAAAAE 1000 frank7 h.fake h.fake fr 192.0.2.9 1000 +i :F")
    buf = b""
    deadline = time.time() + 10
    while b"Nickname overruled" not in buf and time.time() < deadline:
        buf += s.recv(4096)
    if not re.search(rb" 433 frank7 frank7 :Nickname overruled", buf):
        raise TestFailure("no 433 overruled: %r" % buf)
    s.sendall(b"NICK frank8\r\nUSER f 0 * :F\r\n")
    while b" 001 " not in buf and time.time() < deadline:
        buf += s.recv(4096)
    if b" 001 frank8 " not in buf:
        raise TestFailure("did not register as frank8: %r" % buf)
    if whois_server(other, "frank7") != "irc.fake.test":
        raise TestFailure("frank7 is not the peer's user")
    s.close()
    ai.stop()


def test_lk2_collision_after_a_split_with_inspircd():
    """LK-2, LK-3: a real InspIRCd and agentircd agree. gina7 is on InspIRCd; the
    link is split (an operator's SQUIT); a person here takes gina7; at the relink
    (CONNECT) ours, the newer claim of another person, goes by its UUID on both
    servers and InspIRCd's gina7 keeps the nick."""
    insp, ai = pair(link_kw={"autoconnect": False}, agents=OPER)
    op = oper(ai, "opal7")
    op.send("CONNECT %s" % INSP_NAME)
    wait_up(ai, insp)
    gina = Client(insp, "gina7", user="ginainsp")
    wait_for("gina7 known here", lambda: whois_server(op, "gina7") == INSP_NAME)
    time.sleep(1.1)      # ours takes the nick in a later second than gina's
    op.send("SQUIT %s :collide" % INSP_NAME)
    wait_for("gina7 gone here", lambda: whois_server(op, "gina7") is None)
    ours = Client(ai, "gina7", user="ginaours")
    op.send("CONNECT %s" % INSP_NAME)
    m = ours.expect_msg(r"^:gina7!\S+ NICK :?\w{9}$", timeout=15)
    uuid = m.params[0]
    watch = Client(insp, "watch7")
    wait_for("InspIRCd knows ours by its UUID",
             lambda: whois_server(watch, uuid) == "irc.test")
    if whois_server(watch, "gina7") != INSP_NAME:
        raise TestFailure("InspIRCd's gina7 lost its nick")
    if whois_server(ours, "gina7") != INSP_NAME:
        raise TestFailure("agentircd disagrees about gina7")
    for c in (gina, watch, ours, op):
        c.quit()
    ai.stop()


def mode_of(c, chan):
    c.send("MODE %s" % chan)
    return c.expect_msg(r" 324 ").params[2]


def ops_of(c, chan):
    return sorted(n[1:] for n in names(c, chan, prefixes=True) if n[0] == "@")


def test_lk3_channel_made_on_both_sides_with_inspircd():
    """LK-2, LK-3: while unlinked, #oh is made here first (+m) and on InspIRCd a
    second later (+s); #ot the other way round. At the link the older side wins on
    both servers: #oh keeps our modes and operator, InspIRCd's creator loses op and
    +s; #ot takes InspIRCd's modes and operator, ours loses op and +m. Messages then
    cross both ways in both channels."""
    insp, ai = pair(link_kw={"autoconnect": False}, agents=OPER)
    op = oper(ai, "opal8")
    ann = Client(ai, "ann8")
    ben = Client(insp, "ben8")
    ann.join("#oh")
    ann.send("MODE #oh +m")
    ann.expect(r" MODE #oh :?\+m$")
    ben.join("#ot")
    ben.send("MODE #ot +s")
    ben.expect(r" MODE #ot :?\+s$")
    time.sleep(1.1)      # the second side's channels are a second newer
    ben.join("#oh")
    ben.send("MODE #oh +s")
    ben.expect(r" MODE #oh :?\+s$")
    ann.join("#ot")
    ann.send("MODE #ot +m")
    ann.expect(r" MODE #ot :?\+m$")
    op.send("CONNECT %s" % INSP_NAME)
    wait_up(ai, insp)
    wait_for("ben8 in #oh here", lambda: "ben8" in names(ann, "#oh"))
    wait_for("ann8 in #ot there", lambda: "ann8" in names(ben, "#ot"))
    for c, where in ((ann, "here"), (ben, "on InspIRCd")):
        if ops_of(c, "#oh") != ["ann8"] or ops_of(c, "#ot") != ["ben8"]:
            raise TestFailure("operators %s: #oh %r, #ot %r" % (
                where, ops_of(c, "#oh"), ops_of(c, "#ot")))
        oh, ot = mode_of(c, "#oh"), mode_of(c, "#ot")
        if "m" not in oh or "s" in oh or "s" not in ot or "m" in ot:
            raise TestFailure("modes %s: #oh %s, #ot %s" % (where, oh, ot))
    ann.send("PRIVMSG #oh :from ann")
    ben.expect(r"^(@\S+ )?:ann8!\S+ PRIVMSG #oh :from ann$")
    ben.send("PRIVMSG #ot :from ben")
    ann.expect(r"^(@\S+ )?:ben8!\S+ PRIVMSG #ot :from ben$")
    for c in (ann, ben, op):
        c.quit()
    ai.stop()


if __name__ == "__main__":
    run_tests(globals())

#!/usr/bin/env python3
"""PRIVMSG and NOTICE (RFC 2812 3.3): channels, users, several targets, errors, AWAY; a
turn's lines leave in one write per client (issue 4)."""

import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Server, Shared, TestFailure, parse, run_tests  # noqa: E402

S = Shared(max_targets=4)


def three(base):
    s = S()
    cs = [Client(s, S.nick(base)) for _ in range(3)]
    ch = S.chan("#" + base)
    for c in cs:
        c.join(ch)
    cs[0].sync()
    cs[0].drain()
    cs[1].drain()
    return s, cs, ch


def test_privmsg_channel():
    s, (a, b, c), ch = three("pc")
    a.send("PRIVMSG %s :hello channel" % ch)
    for x in (b, c):
        x.expect(r"^:%s!~?\S+@\S+ PRIVMSG %s :hello channel$" % (a.nick, ch))
    a.assert_nothing(0.3, "hello channel")   # no echo without echo-message
    for x in (a, b, c):
        x.quit()


def test_notice_channel_and_user():
    s, (a, b, c), ch = three("nc")
    a.send("NOTICE %s :note to all" % ch)
    b.expect(r"^:%s!\S+ NOTICE %s :note to all$" % (a.nick, ch))
    c.expect(r"NOTICE %s :note to all$" % ch)
    a.send("NOTICE %s :just you" % b.nick)
    b.expect(r"^:%s!\S+ NOTICE %s :just you$" % (a.nick, b.nick))
    c.assert_nothing(0.3, "just you")
    for x in (a, b, c):
        x.quit()


def test_privmsg_user_and_self():
    s = S()
    a = Client(s, S.nick("pu"))
    b = Client(s, S.nick("pu"))
    a.send("PRIVMSG %s :psst" % b.nick)
    b.expect(r"^:%s!\S+@\S+ PRIVMSG %s :psst$" % (a.nick, b.nick))
    a.send("PRIVMSG %s :psst" % b.nick.upper())   # nicks are case-insensitive
    b.expect(r"PRIVMSG \S+ :psst$")
    a.send("PRIVMSG %s :note to self" % a.nick)
    a.expect(r"^:%s!\S+ PRIVMSG %s :note to self$" % (a.nick, a.nick))
    a.send("PRIVMSG %s :with  two  spaces and : colon" % b.nick)
    b.expect(r"PRIVMSG %s :with  two  spaces and : colon$" % b.nick)
    a.send("PRIVMSG %s oneword" % b.nick)
    b.expect(r"PRIVMSG %s :?oneword$" % b.nick)
    a.quit()
    b.quit()


def test_several_targets():
    s, (a, b, c), ch = three("st")
    d = Client(s, S.nick("st"))
    a.send("PRIVMSG %s,%s :multi" % (ch, d.nick))
    b.expect(r"PRIVMSG %s :multi$" % ch)
    c.expect(r"PRIVMSG %s :multi$" % ch)
    d.expect(r"^:%s!\S+ PRIVMSG %s :multi$" % (a.nick, d.nick))
    a.send("PRIVMSG %s,nobody-xx,%s :partly" % (b.nick, c.nick))
    a.expect(r" 401 %s nobody-xx :" % a.nick)
    b.expect("PRIVMSG %s :partly" % b.nick)
    c.expect("PRIVMSG %s :partly" % c.nick)
    for x in (a, b, c, d):
        x.quit()


def test_errors_401_403_411_412():
    s = S()
    a = Client(s, S.nick("er"))
    b = Client(s, S.nick("er"))
    a.send("PRIVMSG nobody-here :hi")
    a.expect(r"^:irc\.test 401 %s nobody-here :" % a.nick)
    a.send("PRIVMSG #nowhere :hi")
    a.expect(r"^:irc\.test (403|401) %s #nowhere :" % a.nick)
    a.send("PRIVMSG")
    a.expect(r"^:irc\.test 411 %s :" % a.nick)
    a.send("PRIVMSG %s" % b.nick)
    a.expect(r"^:irc\.test 412 %s :" % a.nick)
    a.send("PRIVMSG %s :" % b.nick)
    a.expect(r"^:irc\.test 412 %s :" % a.nick)
    b.assert_nothing(0.3, "PRIVMSG")
    a.quit()
    b.quit()


def test_404_cannot_send_plus_n():
    s, (a, b, c), ch = three("cs")
    d = Client(s, S.nick("cs"))
    d.send("PRIVMSG %s :outside" % ch)
    d.expect(r"^:irc\.test 404 %s %s :" % (d.nick, ch))
    a.assert_nothing(0.3, "outside")
    for x in (a, b, c, d):
        x.quit()


def test_too_many_targets_407():
    """max-targets = 4: five targets get 407 ERR_TOOMANYTARGETS."""
    s = S()
    a = Client(s, S.nick("tm"))
    peers = [Client(s, S.nick("tm")) for _ in range(5)]
    a.send("PRIVMSG %s :too many" % ",".join(p.nick for p in peers))
    a.expect(r"^:irc\.test 407 %s \S+ :" % a.nick)
    a.sync()
    got = sum(1 for p in peers if any("too many" in l for l in p.drain(0.3)))
    assert got <= 4, "%d of 5 peers got a message over TARGMAX" % got
    a.send("PRIVMSG %s :four ok" % ",".join(p.nick for p in peers[:4]))
    for p in peers[:4]:
        p.expect("four ok")
    for x in [a] + peers:
        x.quit()


def test_notice_never_errors():
    """NOTICE never gets an automatic reply (RFC 2812 3.3.2)."""
    s, (a, b, c), ch = three("ne")
    d = Client(s, S.nick("ne"))
    for cmd in ("NOTICE nobody-here :x", "NOTICE #nowhere :x", "NOTICE %s :outside" % ch,
                "NOTICE %s" % b.nick, "NOTICE %s :" % b.nick):
        d.send(cmd)
    lines = d.sync()
    assert not lines, lines
    b.send("AWAY :out")
    b.expect(" 306 ")
    d.send("NOTICE %s :are you there" % b.nick)
    lines = d.sync()
    assert not any(" 301 " in l for l in lines), lines
    for x in (a, b, c, d):
        x.quit()


def test_away_301_305_306():
    s = S()
    a = Client(s, S.nick("aw"))
    b = Client(s, S.nick("aw"))
    b.send("AWAY :gone to lunch")
    b.expect(r"^:irc\.test 306 %s :" % b.nick)
    a.send("PRIVMSG %s :hello?" % b.nick)
    a.expect(r"^:irc\.test 301 %s %s :gone to lunch$" % (a.nick, b.nick))
    b.expect("PRIVMSG %s :hello" % b.nick)
    a.send("WHOIS %s" % b.nick)
    lines = a.collect_until(" 318 ")
    assert any(" 301 %s %s :gone to lunch" % (a.nick, b.nick) in l for l in lines), lines
    a.send("USERHOST %s" % b.nick)
    a.expect(r" 302 %s :%s=-" % (a.nick, b.nick))
    b.send("AWAY")
    b.expect(r"^:irc\.test 305 %s :" % b.nick)
    a.send("PRIVMSG %s :back?" % b.nick)
    b.expect("back")
    lines = a.sync()
    assert not any(" 301 " in l for l in lines), lines
    b.send("AWAY :")
    b.expect(r" 305 %s " % b.nick)
    a.quit()
    b.quit()


def test_ctcp_action_relayed():
    s, (a, b, c), ch = three("ct")
    a.send("PRIVMSG %s :\x01ACTION waves\x01" % ch)
    b.expect("PRIVMSG %s :\x01ACTION waves\x01$" % ch)
    for x in (a, b, c):
        x.quit()


def test_utf8_text():
    s = S()
    a = Client(s, S.nick("u8"))
    b = Client(s, S.nick("u8"))
    a.send("PRIVMSG %s :héllo wörld ☃" % b.nick)
    b.expect("PRIVMSG %s :héllo wörld ☃$" % b.nick)
    a.quit()
    b.quit()


def test_statusmsg_ops_and_voiced():
    """STATUSMSG=@+ (advertised): PRIVMSG @#c reaches ops only, +#c voiced and ops."""
    s, (a, b, c), ch = three("sm")
    a.send("MODE %s +v %s" % (ch, b.nick))
    c.expect(r"MODE %s \+v" % ch)
    c.send("PRIVMSG @%s :to ops" % ch)
    a.expect(r"^:%s!\S+ PRIVMSG @%s :to ops$" % (c.nick, ch))
    b.assert_nothing(0.3, "to ops")
    c.send("PRIVMSG +%s :to voiced" % ch)
    a.expect(r"PRIVMSG \+%s :to voiced$" % ch)
    b.expect(r"PRIVMSG \+%s :to voiced$" % ch)
    for x in (a, b, c):
        x.quit()


def test_bare_cr_ends_a_line():
    """SEC-4: a CR ends a line as LF and CR LF do (as InspIRCd and ngIRCd read them), so
    a CR inside a message can never reach a client that splits at CR as a second line
    with a forged source: each part is a command of its own, from its real sender."""
    s, (a, b, c), ch = three("cr")
    a.send_raw(("PRIVMSG %s :one\r:evil!e@e PRIVMSG %s :forged\rPRIVMSG %s :three\r\n"
                % (b.nick, b.nick, ch)).encode())
    b.expect(r"^:%s!\S+ PRIVMSG %s :one$" % (a.nick, b.nick))
    b.expect(r"^:%s!\S+ PRIVMSG %s :forged$" % (a.nick, b.nick))
    b.expect(r"^:%s!\S+ PRIVMSG %s :three$" % (a.nick, ch))
    c.expect(r"^:%s!\S+ PRIVMSG %s :three$" % (a.nick, ch))
    # A CR at the end of one read and its LF at the start of the next: one line.
    a.send_raw(("PRIVMSG %s :split\r" % ch).encode())
    time.sleep(0.1)
    a.send_raw(b"\nPRIVMSG %s :after\n" % ch.encode())
    c.expect(r"^:%s!\S+ PRIVMSG %s :split$" % (a.nick, ch))
    c.expect(r"^:%s!\S+ PRIVMSG %s :after$" % (a.nick, ch))
    a.send("PING :crdone")
    got = a.collect_until(r"PONG .*crdone")
    if any(parse(l).command == "421" for l in got):
        raise TestFailure("an empty line between CR and LF was taken as a command: %r" % got)
    for x in (b, c):
        bad = [l for l in x.lines if "\r" in l or "evil" in l.split(" ", 1)[0]]
        if bad:
            raise TestFailure("%s got a line with a CR inside or a forged source: %r"
                              % (x.nick, bad))
    for x in (a, b, c):
        x.quit()


def test_relayed_line_fits_512():
    """A 510-byte PRIVMSG relayed with a longer prefix is cut, never over 512 bytes."""
    s = S()
    a = Client(s, S.nick("longsender"))
    b = Client(s, S.nick("lr"))
    line = "PRIVMSG %s :" % b.nick
    a.send(line + "x" * (510 - len(line)))
    m = b.expect_msg(r"PRIVMSG %s :x+$" % b.nick)
    assert len(m.raw.encode()) + 2 <= 512, len(m.raw)
    a.quit()
    b.quit()


def segments_in(sock):
    """TCP segments this socket has received (tcpi_segs_in of struct tcp_info, Linux 4.2+)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return struct.unpack_from("I", info, 140)[0]


def test_one_write_per_client_per_turn():
    """Issue 4: lines queued for a client during one turn of the loop leave in one write. 50
    PRIVMSGs that arrive in one read reach a member in a segment or two, not in 50 (36 when
    each line is written at once). The member's kernel counts the segments as they arrive, so
    a late reader cannot merge them, and with TCP_NODELAY the kernel does not either."""
    with Server(flood_exempt="127.0.0.1/32") as s:
        a = Client(s, "burster")
        b = Client(s, "member1")
        c = Client(s, "member2")
        for x in (a, b, c):
            x.join("#turn")
        b.expect(r":member2!\S+ JOIN #turn")
        a.send("PING :settled")
        a.expect(r"PONG \S+ :?settled")
        b.send("PING :settled")
        b.expect(r"PONG \S+ :?settled")
        before = segments_in(b.sock)
        n = 50
        a.send_raw(b"".join(b"PRIVMSG #turn :line %d\r\n" % i for i in range(n)))
        for i in range(n):
            b.expect(r"PRIVMSG #turn :line %d$" % i)
            c.expect(r"PRIVMSG #turn :line %d$" % i)
        segs = segments_in(b.sock) - before
        # One write; a second if the 50 lines came in two reads. 50 when written one by one.
        assert segs <= 4, "%d lines reached a member in %d segments" % (n, segs)
        for x in (a, b, c):
            x.quit()


if __name__ == "__main__":
    run_tests(globals())

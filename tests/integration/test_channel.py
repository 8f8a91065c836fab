#!/usr/bin/env python3
"""Channels: JOIN, PART, TOPIC, NAMES, LIST (ELIST), INVITE, KICK and their errors (RFC 2812 3.2)."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Server, Shared, parse, run_tests  # noqa: E402

S = Shared()


def pair(base="c"):
    s = S()
    a = Client(s, S.nick(base + "op"))
    b = Client(s, S.nick(base + "us"))
    return s, a, b


def test_join_creator_is_op_names_353_366():
    """JOIN echo, 353 RPL_NAMREPLY '= #chan :@op', 366; the creator gets @."""
    s, a, b = pair("j")
    ch = S.chan("#join")
    lines = a.join(ch)
    assert re.match(r"^:%s!\S+@\S+ JOIN :?%s$" % (a.nick, ch), lines[0]), lines
    names = [parse(l) for l in lines if parse(l).command == "353"]
    assert names and names[0].params[:3] == [a.nick, "=", ch], lines
    assert names[0].params[3].split() == ["@" + a.nick], names
    assert parse(lines[-1]).params[:2] == [a.nick, ch], lines[-1]
    lines = b.join(ch)
    a.expect(r"^:%s!\S+@\S+ JOIN :?%s$" % (b.nick, ch))
    names = " ".join(parse(l).params[-1] for l in lines if parse(l).command == "353")
    assert sorted(names.split()) == sorted(["@" + a.nick, b.nick]), names
    b.send("NAMES %s" % ch)
    m = b.expect_numeric(353)
    assert m.params[1] == "=" and m.params[2] == ch, m.raw
    b.expect(r" 366 %s %s :" % (b.nick, ch))
    b.send("NAMES #nonexistent-names")
    b.expect(r" 366 %s #nonexistent-names :" % b.nick)
    a.quit()
    b.quit()


def test_join_several_with_keys():
    """JOIN #a,#b,#c k1,k2: keys apply in order; a wrong key gives 475."""
    s, a, b = pair("k")
    c1, c2, c3 = S.chan("#key"), S.chan("#key"), S.chan("#open")
    a.join(c1)
    a.join(c2)
    a.send("MODE %s +k one" % c1)
    a.expect(r"MODE %s \+k :?one" % c1)
    a.send("MODE %s +k two" % c2)
    a.expect(r"MODE %s \+k :?two" % c2)
    b.send("JOIN %s,%s one,wrong" % (c1, c2))
    b.expect(r"^:%s!\S+ JOIN :?%s$" % (b.nick, c1))
    b.expect(r" 475 %s %s :" % (b.nick, c2))
    b.send("JOIN %s,%s,%s one,two" % (c1, c2, c3))
    b.expect(r"^:%s!\S+ JOIN :?%s$" % (b.nick, c2))
    b.expect(r"^:%s!\S+ JOIN :?%s$" % (b.nick, c3))
    b.expect(r" 366 %s %s " % (b.nick, c3))
    b.send("JOIN %s" % c1)   # already there: nothing
    b.assert_nothing(0.3, r"JOIN|4\d\d")
    a.quit()
    b.quit()


def test_join_0_parts_all():
    s, a, b = pair("z")
    c1, c2 = S.chan("#zero"), S.chan("#zero")
    for c in (c1, c2):
        a.join(c)
        b.join(c)
    b.send("JOIN 0")
    got = {a.expect(r"^:%s!\S+ PART (%s|%s)" % (b.nick, re.escape(c1), re.escape(c2))).group(1)
           for _ in range(2)}
    assert got == {c1, c2}, got
    b.send("WHOIS %s" % b.nick)
    lines = b.collect_until(" 318 ")
    assert not any(parse(l).command == "319" for l in lines), lines
    a.quit()
    b.quit()


def test_part_with_reason():
    s, a, b = pair("p")
    ch = S.chan("#part")
    a.join(ch)
    b.join(ch)
    b.send("PART %s :gone fishing" % ch)
    b.expect(r"^:%s!\S+@\S+ PART %s :gone fishing$" % (b.nick, ch))
    a.expect(r"^:%s!\S+@\S+ PART %s :gone fishing$" % (b.nick, ch))
    b.send("PART %s" % ch)
    b.expect(r" 442 %s %s :" % (b.nick, ch))
    b.send("PART #does-not-exist")
    b.expect(r" 403 %s #does-not-exist :" % b.nick)
    a.send("PART %s" % ch)   # the last one out: the channel goes away
    a.expect(r"^:%s!\S+ PART %s" % (a.nick, ch))
    b.join(ch)
    b.send("MODE %s" % ch)
    b.expect(r" 324 %s %s \+" % (b.nick, ch))
    a.quit()
    b.quit()


def test_topic_331_332_333_and_plus_t():
    s, a, b = pair("t")
    ch = S.chan("#topic")
    a.join(ch)
    b.join(ch)
    a.send("TOPIC %s" % ch)
    a.expect(r" 331 %s %s :" % (a.nick, ch))
    a.send("TOPIC %s :Hello world" % ch)
    a.expect(r"^:%s!\S+@\S+ TOPIC %s :Hello world$" % (a.nick, ch))
    b.expect(r"^:%s!\S+@\S+ TOPIC %s :Hello world$" % (a.nick, ch))
    b.send("TOPIC %s" % ch)
    b.expect(r" 332 %s %s :Hello world$" % (b.nick, ch))
    m = b.expect_numeric(333)
    assert m.params[1] == ch and m.params[2].split("!")[0] == a.nick \
        and m.params[3].isdigit(), m.raw
    # +t (default): a non-op cannot set it
    b.send("TOPIC %s :mine" % ch)
    b.expect(r" 482 %s %s :" % (b.nick, ch))
    a.send("MODE %s -t" % ch)
    a.expect(r"MODE %s -t" % ch)
    b.send("TOPIC %s :mine now" % ch)
    a.expect(r"^:%s!\S+ TOPIC %s :mine now$" % (b.nick, ch))
    # a new joiner gets 332/333
    c = Client(s, S.nick("tnew"))
    lines = c.join(ch)
    assert any(re.search(r" 332 %s %s :mine now$" % (c.nick, ch), l) for l in lines), lines
    assert any(parse(l).command == "333" for l in lines), lines
    # clearing
    a.send("TOPIC %s :" % ch)
    a.expect(r"^:%s!\S+ TOPIC %s :$" % (a.nick, ch))
    a.send("TOPIC %s" % ch)
    a.expect(r" 331 %s %s :" % (a.nick, ch))
    # outsiders
    d = Client(s, S.nick("tout"))
    d.send("TOPIC %s :x" % ch)
    d.expect(r" 442 %s %s :" % (d.nick, ch))
    d.send("TOPIC #nochan-topic")
    d.expect(r" (403|442) %s #nochan-topic :" % d.nick)
    for x in (a, b, c, d):
        x.quit()


def test_list_and_elist():
    """LIST 321/322/323 with ELIST filters: >n, <n, mask, !mask."""
    with Server() as s:
        users = [Client(s, "lu%d" % i) for i in range(3)]
        for u in users:
            u.join("#big")
        users[0].join("#small")
        users[0].send("TOPIC #big :the big one")
        users[0].expect("TOPIC #big")
        c = users[2]

        def listing(args=""):
            c.send(("LIST " + args).strip())
            lines = c.collect_until(r" 323 ")
            return {parse(l).params[1]: parse(l) for l in lines if parse(l).command == "322"}

        every = listing()
        assert set(every) == {"#big", "#small"}, every
        assert every["#big"].params[2] == "3" and re.match(r"^(\[\+\w*\] )?the big one$", every["#big"].params[3]), \
            every["#big"].raw
        assert every["#small"].params[2] == "1"
        assert set(listing(">2")) == {"#big"}
        assert set(listing("<2")) == {"#small"}
        assert set(listing("*big*")) == {"#big"}
        assert set(listing("!*big*")) == {"#small"}
        assert set(listing("#small")) == {"#small"}
        assert set(listing("#big,#small")) == {"#big", "#small"}


def test_invite_341_and_plus_i_473():
    s, a, b = pair("i")
    ch = S.chan("#inv")
    a.join(ch)
    a.send("MODE %s +i" % ch)
    a.expect(r"MODE %s \+i" % ch)
    b.send("JOIN %s" % ch)
    b.expect(r" 473 %s %s :" % (b.nick, ch))
    a.send("INVITE %s %s" % (b.nick, ch))
    a.expect(r"^:irc\.test 341 %s %s :?%s$" % (a.nick, b.nick, ch))
    b.expect(r"^:%s!\S+@\S+ INVITE %s :?%s$" % (a.nick, b.nick, ch))
    b.join(ch)
    a.expect(r"^:%s!\S+ JOIN" % b.nick)
    # 443 already on channel
    a.send("INVITE %s %s" % (b.nick, ch))
    a.expect(r" 443 %s %s %s :" % (a.nick, b.nick, ch))
    # 482: a non-op cannot invite to +i
    c = Client(s, S.nick("ithird"))
    b.send("INVITE %s %s" % (c.nick, ch))
    b.expect(r" 482 %s %s :" % (b.nick, ch))
    # 401 no such nick, 442 not on channel
    a.send("INVITE nobody-here %s" % ch)
    a.expect(r" 401 %s nobody-here :" % a.nick)
    c.send("INVITE %s %s" % (a.nick, ch))
    c.expect(r" 442 %s %s :" % (c.nick, ch))
    for x in (a, b, c):
        x.quit()


def test_invite_alone_lists_invites_336_337():
    """Modern IRC, INVITE message: servers may take INVITE without parameters and answer
    with the channels the sender is invited to, one RPL_INVITELIST (336) each, then
    RPL_ENDOFINVITELIST (337); an invite used by joining is no longer listed; one
    parameter is still 461 (issue 27)."""
    s, a, b = pair("il")
    b.send("INVITE")
    assert [parse(l).command for l in b.sync()] == ["337"], b.lines[-3:]
    ch1, ch2 = S.chan("#Il"), S.chan("#il")
    for ch in (ch1, ch2):
        a.join(ch)
        a.send("INVITE %s %s" % (b.nick, ch.lower()))
        b.expect(r" INVITE %s :?%s$" % (b.nick, ch))
    b.send("INVITE")
    got = [parse(l) for l in b.sync()]
    assert [m.command for m in got] == ["336", "336", "337"], [m.raw for m in got]
    assert sorted(m.params[1] for m in got[:2]) == sorted([ch1, ch2]), got
    assert got[2].params[-1] == "End of /INVITE list", got[2].raw
    b.join(ch1)
    b.send("INVITE")
    got = [parse(l) for l in b.sync()]
    assert [(m.command, m.params[1]) for m in got[:1]] == [("336", ch2)], got
    b.send("INVITE %s" % a.nick)
    b.expect(r" 461 %s INVITE :" % b.nick)
    for x in (a, b):
        x.quit()


def test_kick_by_op_and_482():
    s, a, b = pair("kk")
    ch = S.chan("#kick")
    a.join(ch)
    b.join(ch)
    b.send("KICK %s %s :no" % (ch, a.nick))
    b.expect(r" 482 %s %s :" % (b.nick, ch))
    a.send("KICK %s %s :behave" % (ch, b.nick))
    a.expect(r"^:%s!\S+@\S+ KICK %s %s :behave$" % (a.nick, ch, b.nick))
    b.expect(r"^:%s!\S+@\S+ KICK %s %s :behave$" % (a.nick, ch, b.nick))
    b.send("PRIVMSG %s :still here?" % ch)
    b.expect(r" 404 %s %s :" % (b.nick, ch))
    # 441 not on that channel, 401 no such nick, 403 no such channel
    a.send("KICK %s %s" % (ch, b.nick))
    a.expect(r" 441 %s %s %s :" % (a.nick, b.nick, ch))
    a.send("KICK %s nobody-here" % ch)
    a.expect(r" 401 %s nobody-here :" % a.nick)
    a.send("KICK #no-such-chan %s" % b.nick)
    a.expect(r" 403 %s #no-such-chan :" % a.nick)
    # default reason
    b.join(ch)
    a.send("KICK %s %s" % (ch, b.nick))
    b.expect(r"^:%s!\S+ KICK %s %s" % (a.nick, ch, b.nick))
    a.quit()
    b.quit()


def test_join_errors_471_474_475_476():
    s, a, b = pair("e")
    ch = S.chan("#err")
    a.join(ch)
    a.send("MODE %s +l 1" % ch)
    a.expect(r"MODE %s \+l :?1" % ch)
    b.send("JOIN %s" % ch)
    b.expect(r" 471 %s %s :" % (b.nick, ch))
    a.send("MODE %s -l+k sesame" % ch)
    a.expect(r"MODE %s -l\+k :?sesame" % ch)
    b.send("JOIN %s" % ch)
    b.expect(r" 475 %s %s :" % (b.nick, ch))
    b.send("JOIN %s wrong" % ch)
    b.expect(r" 475 %s %s :" % (b.nick, ch))
    a.send("MODE %s -k+b sesame %s!*@*" % (ch, b.nick))
    a.expect(r"MODE %s -k\+b" % ch)
    b.send("JOIN %s" % ch)
    b.expect(r" 474 %s %s :" % (b.nick, ch))
    b.send("JOIN nohash")
    b.expect(r" (476|403) %s nohash :" % b.nick)
    b.send("JOIN #bad\x07chan")
    b.expect(r" (476|403|479) %s " % b.nick)
    a.quit()
    b.quit()


def test_max_channels_405():
    with Server(max_channels=3) as s:
        c = Client(s, "many")
        for i in range(3):
            c.join("#m%d" % i)
        c.send("JOIN #m3")
        c.expect(r" 405 many #m3 :")
        c.send("JOIN #m4,#m5")
        c.expect(r" 405 many #m4 :")
        c.expect(r" 405 many #m5 :")
        c.send("PART #m0")
        c.expect("PART #m0")
        lines = c.join("#m3")
        assert " JOIN" in lines[0], lines


def test_lengths_topiclen_kicklen():
    """TOPIC and KICK reasons are cut to TOPICLEN and KICKLEN (005), not rejected."""
    s, a, b = pair("len")
    from ircharness import isupport
    tok = isupport(a.welcome)
    ch = S.chan("#len")
    a.join(ch)
    b.join(ch)
    a.send("TOPIC %s :%s" % (ch, "t" * 480))   # under 512 bytes, over TOPICLEN
    m = b.expect_msg(r"TOPIC %s :" % ch)
    assert 0 < len(m.params[-1]) <= int(tok.get("TOPICLEN", 512)), len(m.params[-1])
    a.send("KICK %s %s :%s" % (ch, b.nick, "k" * 450))
    m = b.expect_msg(r"KICK %s %s :" % (ch, b.nick))
    if "KICKLEN" in tok:
        assert len(m.params[-1]) <= int(tok["KICKLEN"]), len(m.params[-1])
    assert len(m.raw.encode()) <= 510, len(m.raw)
    a.quit()
    b.quit()


def test_kick_and_part_several():
    """KICK #c a,b and PART #a,#b :reason act on each target."""
    s = S()
    a = Client(s, S.nick("ks"))
    b = Client(s, S.nick("ks"))
    c = Client(s, S.nick("ks"))
    c1, c2 = S.chan("#ks"), S.chan("#ks")
    for x in (a, b, c):
        x.join(c1)
    a.join(c2)
    a.send("KICK %s %s,%s :both of you" % (c1, b.nick, c.nick))
    a.expect(r"KICK %s %s :both of you" % (c1, b.nick))
    a.expect(r"KICK %s %s :both of you" % (c1, c.nick))
    a.send("PART %s,%s :bye all" % (c1, c2))
    a.expect(r"PART %s :bye all" % c1)
    a.expect(r"PART %s :bye all" % c2)
    for x in (a, b, c):
        x.quit()


if __name__ == "__main__":
    run_tests(globals())

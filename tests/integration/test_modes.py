#!/usr/bin/env python3
"""Channel modes +n +t +m +s +i +k +l +o +v +b, user modes +i +B (RFC 2811/2812, Modern IRC)."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Shared, op_and_user, parse,  # noqa: E402
                        run_tests, set_mode)

S = Shared(max_bans=8)


def trio(base):
    return op_and_user(S, base)


def setmode(c, ch, modes, echo=None):
    return set_mode(c, ch, modes, echo_rx=echo)


def test_mode_query_324_329():
    """MODE #chan -> 324 RPL_CHANNELMODEIS '+nt' and 329 RPL_CREATIONTIME."""
    s, a, b, ch = trio("q")
    b.send("MODE %s" % ch)
    m = b.expect_msg(r" 324 ")
    assert m.params[:3] == [b.nick, ch, "+nt"], m.raw
    m = b.expect_msg(r" 329 ")
    assert m.params[1] == ch and m.params[2].isdigit(), m.raw
    setmode(a, ch, "+lk 5 pw")
    a.send("MODE %s" % ch)
    m = a.expect_msg(r" 324 ")
    modes = m.params[2]
    assert set(modes.lstrip("+")) == set("ntlk"), m.raw
    assert "5" in m.params[3:] and "pw" in m.params[3:], m.raw
    a.quit()
    b.quit()


def test_plus_n_no_external():
    s, a, b, ch = trio("n")
    c = Client(s, S.nick("nout"))
    c.send("PRIVMSG %s :from outside" % ch)
    c.expect(r" 404 %s %s :" % (c.nick, ch))
    setmode(a, ch, "-n")
    c.send("PRIVMSG %s :from outside" % ch)
    b.expect(r"^:%s!\S+ PRIVMSG %s :from outside$" % (c.nick, ch))
    for x in (a, b, c):
        x.quit()


def test_plus_m_blocks_unvoiced_404_and_v():
    s, a, b, ch = trio("m")
    setmode(a, ch, "+m")
    b.expect(r"MODE %s \+m" % ch)
    b.send("PRIVMSG %s :can I talk" % ch)
    b.expect(r" 404 %s %s :" % (b.nick, ch))
    a.assert_nothing(0.3, "can I talk")
    setmode(a, ch, "+v %s" % b.nick)
    b.expect(r"^:%s!\S+ MODE %s \+v :?%s$" % (a.nick, ch, b.nick))
    b.send("PRIVMSG %s :now I can" % ch)
    a.expect(r"PRIVMSG %s :now I can" % ch)
    b.send("NAMES %s" % ch)
    m = b.expect_numeric(353)
    assert "+" + b.nick in m.params[-1].split(), m.raw
    setmode(a, ch, "-v %s" % b.nick)
    b.send("PRIVMSG %s :again" % ch)
    b.expect(r" 404 %s %s :" % (b.nick, ch))
    a.send("PRIVMSG %s :ops may" % ch)
    b.expect("ops may")
    a.quit()
    b.quit()


def test_plus_o_and_482():
    s, a, b, ch = trio("o")
    b.send("MODE %s +m" % ch)
    b.expect(r" 482 %s %s :" % (b.nick, ch))
    setmode(a, ch, "+o %s" % b.nick)
    b.expect(r"^:%s!\S+ MODE %s \+o :?%s$" % (a.nick, ch, b.nick))
    setmode(b, ch, "+m")
    a.send("NAMES %s" % ch)
    m = a.expect_numeric(353)
    assert sorted(m.params[-1].split()) == sorted(["@" + a.nick, "@" + b.nick]), m.raw
    setmode(b, ch, "-o %s" % a.nick)
    a.send("MODE %s -m" % ch)
    a.expect(r" 482 %s %s :" % (a.nick, ch))
    # +o for someone not on the channel
    b.send("MODE %s +o nobody-at-all" % ch)
    b.expect(r" (401|441) %s nobody-at-all" % b.nick)
    a.quit()
    b.quit()


def test_plus_s_hides_from_list_whois():
    s, a, b, ch = trio("s")
    setmode(a, ch, "+s")
    c = Client(s, S.nick("sout"))
    c.send("LIST")
    lines = c.collect_until(" 323 ")
    assert not any(ch in l for l in lines if parse(l).command == "322"), lines
    c.send("WHOIS %s" % a.nick)
    lines = c.collect_until(" 318 ")
    assert not any(ch in l for l in lines), lines
    c.send("NAMES %s" % ch)
    lines = c.collect_until(" 366 ")
    assert not any(parse(l).command == "353" for l in lines), lines
    # members still see it, with '@' in NAMES
    b.send("LIST")
    lines = b.collect_until(" 323 ")
    assert any(parse(l).command == "322" and parse(l).params[1] == ch for l in lines), lines
    b.send("NAMES %s" % ch)
    m = b.expect_numeric(353)
    assert m.params[1] == "@", m.raw
    b.send("WHOIS %s" % a.nick)
    lines = b.collect_until(" 318 ")
    assert any(parse(l).command == "319" and ch in l for l in lines), lines
    for x in (a, b, c):
        x.quit()


def test_plus_i_invite_only():
    s, a, b, ch = trio("i")
    setmode(a, ch, "+i")
    c = Client(s, S.nick("iout"))
    c.send("JOIN %s" % ch)
    c.expect(r" 473 %s %s :" % (c.nick, ch))
    a.send("INVITE %s %s" % (c.nick, ch))
    c.expect("INVITE")
    c.join(ch)
    setmode(a, ch, "-i")
    for x in (a, b, c):
        x.quit()


def test_plus_k_key():
    s, a, b, ch = trio("k")
    setmode(a, ch, "+k secret")
    b.expect(r"MODE %s \+k :?secret" % ch)
    c = Client(s, S.nick("kout"))
    c.send("JOIN %s" % ch)
    c.expect(r" 475 %s %s :" % (c.nick, ch))
    c.join(ch, "secret")
    setmode(a, ch, "-k secret", echo=r"-k(?: :?\S+)?")
    d = Client(s, S.nick("kout"))
    d.join(ch)
    for x in (a, b, c, d):
        x.quit()


def test_plus_l_limit():
    s, a, b, ch = trio("l")
    setmode(a, ch, "+l 2")
    c = Client(s, S.nick("lout"))
    c.send("JOIN %s" % ch)
    c.expect(r" 471 %s %s :" % (c.nick, ch))
    setmode(a, ch, "-l")
    c.join(ch)
    for x in (a, b, c):
        x.quit()


def test_plus_t_topic_ops_only():
    s, a, b, ch = trio("t")
    b.send("TOPIC %s :x" % ch)
    b.expect(r" 482 %s %s :" % (b.nick, ch))
    setmode(a, ch, "-t")
    b.send("TOPIC %s :x" % ch)
    a.expect(r"TOPIC %s :x" % ch)
    a.quit()
    b.quit()


def test_bans_367_368_474_404():
    """+b with masks; ban list 367/368; a banned user cannot join (474) and cannot
    speak while on the channel (404); -b lifts it."""
    s, a, b, ch = trio("b")
    setmode(a, ch, "+b %s!*@*" % b.nick)
    b.send("PRIVMSG %s :am I banned" % ch)
    b.expect(r" 404 %s %s :" % (b.nick, ch))
    a.assert_nothing(0.3, "am I banned")
    setmode(a, ch, "+b *!*@evil.example")
    for q in ("MODE %s +b" % ch, "MODE %s b" % ch):
        a.send(q)
        lines = a.collect_until(r" 368 %s %s :" % (a.nick, ch))
        bans = [parse(l) for l in lines if parse(l).command == "367"]
        assert sorted(x.params[2] for x in bans) == sorted(["%s!*@*" % b.nick,
                                                            "*!*@evil.example"]), lines
        for x in bans:
            assert x.params[1] == ch, x.raw
            if len(x.params) > 3:
                assert x.params[-1].isdigit(), x.raw
    b.send("PART %s" % ch)
    b.expect("PART")
    b.send("JOIN %s" % ch)
    b.expect(r" 474 %s %s :" % (b.nick, ch))
    # a mask that matches by host: *!*@<host> of b
    setmode(a, ch, "-b %s!*@*" % b.nick)
    b.join(ch)
    b.send("PRIVMSG %s :free" % ch)
    a.expect("PRIVMSG %s :free" % ch)
    # ban matched case-insensitively and by user/host wildcards
    setmode(a, ch, "+b %s!*@127.*" % b.nick.upper())
    b.send("PRIVMSG %s :again" % ch)
    b.expect(r" 404 %s %s :" % (b.nick, ch))
    # voiced banned users may speak? no claim; ops may always speak
    a.send("PRIVMSG %s :op speaks" % ch)
    b.expect("op speaks")
    a.quit()
    b.quit()


def test_ban_list_full_478():
    """max-bans = 8: the 9th ban gets 478 ERR_BANLISTFULL."""
    s, a, b, ch = trio("bl")
    for i in range(8):
        setmode(a, ch, "+b many%d!*@*" % i)
    a.send("MODE %s +b many8!*@*" % ch)
    a.expect(r" 478 %s %s " % (a.nick, ch))
    a.send("MODE %s +b" % ch)
    lines = a.collect_until(" 368 ")
    assert len([l for l in lines if parse(l).command == "367"]) == 8, lines
    # removing one makes room again
    a.send("MODE %s -b many0!*@*" % ch)
    a.expect(r"MODE %s -b" % ch)
    a.send("MODE %s +b many9!*@*" % ch)
    a.expect(r"MODE %s \+b :?many9" % ch)
    a.quit()
    b.quit()


def test_unknown_channel_mode_472():
    s, a, b, ch = trio("u")
    a.send("MODE %s +Z" % ch)
    a.expect(r" 472 %s Z :" % a.nick)
    a.quit()
    b.quit()


def test_missing_mode_param_696_461():
    """+k and +l without a parameter: ERR_INVALIDMODEPARAM 696 (or 461)."""
    s, a, b, ch = trio("p")
    a.send("MODE %s +k" % ch)
    a.expect(r" (696|461) %s " % a.nick)
    a.send("MODE %s +l" % ch)
    a.expect(r" (696|461) %s " % a.nick)
    a.send("MODE %s +l notanumber" % ch)   # 696 or ignored, but not +l 0
    a.sync()
    a.send("MODE %s" % ch)
    m = a.expect_numeric(324)
    assert "k" not in m.params[2] and "l" not in m.params[2], m.raw
    a.quit()
    b.quit()


def test_mode_no_such_channel_403():
    s = S()
    a = Client(s, S.nick("nc"))
    a.send("MODE #no-such-chan-mode +m")
    a.expect(r" 403 %s #no-such-chan-mode :" % a.nick)
    a.quit()


def test_several_modes_one_line():
    s, a, b, ch = trio("sv")
    a.send("MODE %s +mv-t %s" % (ch, b.nick))
    b.expect(r"^:%s!\S+ MODE %s \+mv-t :?%s$" % (a.nick, ch, b.nick))
    a.send("MODE %s" % ch)
    m = a.expect_numeric(324)
    assert set(m.params[2].lstrip("+")) == set("nm"), m.raw
    a.quit()
    b.quit()


def test_user_modes_i_B_221_501_502():
    s = S()
    a = Client(s, S.nick("um"))
    b = Client(s, S.nick("um"))
    a.send("MODE %s +i" % a.nick)
    a.expect(r"^:%s(?:!\S+)? MODE %s :?\+i$" % (a.nick, a.nick))
    a.send("MODE %s +B" % a.nick)
    a.expect(r"^:%s(?:!\S+)? MODE %s :?\+B$" % (a.nick, a.nick))
    a.send("MODE %s" % a.nick)
    m = a.expect_numeric(221)
    assert set(m.params[1].lstrip("+")) >= set("iB"), m.raw
    a.send("MODE %s -i" % a.nick)
    a.expect(r"MODE %s :?-i$" % a.nick)
    a.send("MODE %s +Q" % a.nick)
    a.expect(r" 501 %s :" % a.nick)
    a.send("MODE %s +i" % b.nick)
    a.expect(r" 502 %s :" % a.nick)
    a.send("MODE %s" % b.nick)
    a.expect(r" 502 %s :" % a.nick)
    a.send("MODE %s +o" % a.nick)   # cannot make oneself an oper
    a.assert_nothing(0.3, r"MODE %s :?\+o" % a.nick)
    a.send("MODE nobody-um +i")
    a.expect(r" (401|502) %s " % a.nick)
    a.quit()
    b.quit()


def test_plus_B_shows_in_who():
    s, a, b, ch = trio("bot")
    b.send("MODE %s +B" % b.nick)
    b.expect(r"MODE %s :?\+B" % b.nick)
    a.send("WHO %s" % ch)
    lines = a.collect_until(" 315 ")
    flags = {parse(l).params[5]: parse(l).params[6] for l in lines if parse(l).command == "352"}
    assert "B" in flags[b.nick] and "B" not in flags[a.nick], flags
    a.quit()
    b.quit()


if __name__ == "__main__":
    run_tests(globals())

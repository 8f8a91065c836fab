#!/usr/bin/env python3
"""Issue 27: ban exceptions +e and invite exceptions +I (Modern IRC "Ban Exception
Channel Mode", "Invite Exception Channel Mode"; RPL_EXCEPTLIST 348/349,
RPL_INVEXLIST 346/347; ISUPPORT EXCEPTS, INVEX, MAXLIST), +C no CTCP (InspIRCd's
noctcp, Ergo's +C), the extbans R:account and m:mask with InspIRCd 3's letters
(ISUPPORT EXTBAN=,Rm), and a well-formed 696 ERR_INVALIDMODEPARAM for an empty
parameter."""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Shared, hash_password,  # noqa: E402
                        isupport, op_and_user, parse, run_tests, set_mode)

PASSWORD = "correct horse battery"
S = Shared(max_bans=4, config_extra="[account alice]\npassword = %s\n"
           % hash_password(PASSWORD))


def pair(base):
    return op_and_user(S, base)


setmode = set_mode


def listing(c, ch, letter, item, end):
    """The masks of list mode letter, from item numerics up to end."""
    c.send("MODE %s %s" % (ch, letter))
    lines = c.collect_until(r" %d %s %s :" % (end, re.escape(c.nick), re.escape(ch)))
    got = [parse(x) for x in lines if parse(x).command == str(item)]
    for m in got:
        assert m.params[1] == ch and len(m.params) == 5, m.raw
    return [m.params[2] for m in got]


def well_formed_696(c, ch, letter):
    """696 <nick> <chan> <letter> <param> :<text>, with no empty middle parameter."""
    m = c.expect_msg(r" 696 ")
    assert m.params[:3] == [c.nick, ch, letter], m.raw
    assert len(m.params) == 5 and all(p != "" for p in m.params[:4]), m.raw
    assert "  " not in m.raw, m.raw
    return m


def test_isupport_tokens():
    """Modern IRC ISUPPORT: EXCEPTS=e, INVEX=I, EXTBAN=,Rm (InspIRCd 3's form),
    MAXLIST=beI:<max-bans>, e and I in CHANMODES's list group, C in its flag group."""
    s = S()
    c = Client(s, S.nick("tok"))
    tok = isupport(c.welcome)
    assert tok.get("EXCEPTS") == "e", tok
    assert tok.get("INVEX") == "I", tok
    assert tok.get("EXTBAN") == ",Rm", tok
    assert tok.get("MAXLIST") == "beI:4", tok
    groups = tok["CHANMODES"].split(",")
    assert set(groups[0]) == set("beI") and "C" in groups[3], tok
    c.quit()


def test_ban_exception_join_and_speak():
    """Modern IRC, Ban Exception (+e): a user matching an exception may join and
    speak despite a matching ban; 348/349 list the exceptions; -e lifts it."""
    s, a, b, ch = pair("e")
    c = Client(s, S.nick("eout"))
    setmode(a, ch, "+b *!*@*")
    b.send("PRIVMSG %s :banned now" % ch)
    m = b.expect_msg(r" 404 %s %s " % (b.nick, ch))
    assert "banned" in m.params[-1], m.raw
    c.send("JOIN %s" % ch)
    c.expect(r" 474 %s %s " % (c.nick, ch))
    setmode(a, ch, "+e %s!*@*" % b.nick)
    setmode(a, ch, "+e %s!*@*" % c.nick)
    assert sorted(listing(a, ch, "e", 348, 349)) == sorted(
        ["%s!*@*" % b.nick, "%s!*@*" % c.nick])
    b.send("PRIVMSG %s :excepted" % ch)
    a.expect(r"PRIVMSG %s :excepted" % ch)
    c.join(ch)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (c.nick, ch))
    setmode(a, ch, "-e %s!*@*" % b.nick)
    b.send("PRIVMSG %s :not any more" % ch)
    b.expect(r" 404 %s %s " % (b.nick, ch))
    a.assert_nothing(0.3, "not any more")
    for x in (a, b, c):
        x.quit()


def test_invite_exception_plus_i():
    """Modern IRC, Invite Exception (+I): a matching user joins a +i channel without
    an INVITE (346/347 list them); it lets no one past +k; others still get 473."""
    s, a, b, ch = pair("inv")
    c = Client(s, S.nick("invc"))
    d = Client(s, S.nick("invd"))
    setmode(a, ch, "+i")
    c.send("JOIN %s" % ch)
    c.expect(r" 473 %s %s " % (c.nick, ch))
    setmode(a, ch, "+I %s!*@*" % c.nick)
    assert listing(b, ch, "I", 346, 347) == ["%s!*@*" % c.nick]
    c.join(ch)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (c.nick, ch))
    d.send("JOIN %s" % ch)
    d.expect(r" 473 %s %s " % (d.nick, ch))
    setmode(a, ch, "+I %s!*@*" % d.nick)
    setmode(a, ch, "+k sesame")
    d.send("JOIN %s" % ch)
    d.expect(r" 475 %s %s " % (d.nick, ch))
    d.join(ch, "sesame")
    a.expect(r"^:%s!\S+ JOIN :?%s" % (d.nick, ch))
    for x in (a, b, c, d):
        x.quit()


def test_list_queries_and_limits():
    """MAXLIST=beI:4: each list holds max-bans entries, the next gets 478 naming its
    letter; a list query needs no op, each list answers once per MODE line."""
    s, a, b, ch = pair("lim")
    for i in range(4):
        setmode(a, ch, "+e x%d!*@*" % i)
    a.send("MODE %s +e x9!*@*" % ch)
    a.expect(r" 478 %s %s e :" % (a.nick, ch))
    setmode(a, ch, "+I y0!*@*")
    assert len(listing(b, ch, "e", 348, 349)) == 4
    b.send("MODE %s eIe" % ch)
    lines = b.collect_until(r" 347 ")
    assert len([x for x in lines if " 349 " in x]) == 1, lines
    b.assert_nothing(0.3, r" 34[789] ")
    b.send("MODE %s +e z!*@*" % ch)
    b.expect(r" 482 %s %s " % (b.nick, ch))
    a.quit()
    b.quit()


def test_noctcp_plus_c():
    """+C (InspIRCd noctcp, Ergo +C): a CTCP other than ACTION to the channel gets
    404 with a reason naming CTCP and reaches no one; ACTION passes; -C lifts it."""
    s, a, b, ch = pair("ctcp")
    setmode(a, ch, "+C")
    a.send("MODE %s" % ch)
    assert "C" in a.expect_msg(r" 324 ").params[2]
    b.send("PRIVMSG %s :\x01VERSION\x01" % ch)
    m = b.expect_msg(r" 404 %s %s " % (b.nick, ch))
    assert "CTCP" in m.params[-1], m.raw
    b.send("NOTICE %s :\x01PING 1\x01" % ch)
    b.send("PRIVMSG %s :\x01ACTION waves\x01" % ch)
    a.expect(r"PRIVMSG %s :\x01ACTION waves\x01" % ch)
    a.assert_nothing(0.3, "VERSION|PING")
    b.assert_nothing(0.2, " 404 ")
    # ops too: +C is about the channel, not who sends
    a.send("PRIVMSG %s :\x01TIME\x01" % ch)
    a.expect(r" 404 %s %s " % (a.nick, ch))
    setmode(a, ch, "-C")
    b.send("PRIVMSG %s :\x01VERSION\x01" % ch)
    a.expect(r"PRIVMSG %s :\x01VERSION\x01" % ch)
    a.quit()
    b.quit()


def test_extban_r_account():
    """EXTBAN R:<account> (InspIRCd 3's letter): +b R:alice keeps out whoever is
    logged in as alice, not a guest of the same nick; +e R: lifts it; +I R: lets
    the account past +i."""
    s, a, b, ch = pair("acct")
    setmode(a, ch, "+b R:alice")
    al = Client(s)
    al.register(S.nick("al"), password="alice:%s" % PASSWORD)
    al.send("JOIN %s" % ch)
    al.expect(r" 474 %s %s " % (al.nick, ch))
    guest = Client(s, S.nick("alice"))
    guest.join(ch)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (guest.nick, ch))
    setmode(a, ch, "+e R:ALICE")
    al.join(ch)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (al.nick, ch))
    ch2 = S.chan("#acct")
    a.join(ch2)
    setmode(a, ch2, "+i")
    setmode(a, ch2, "+I R:ali*")
    al.join(ch2)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (al.nick, ch2))
    guest.send("JOIN %s" % ch2)
    guest.expect(r" 473 %s %s " % (guest.nick, ch2))
    for x in (a, b, al, guest):
        x.quit()


def test_extban_m_mute():
    """EXTBAN m:<mask> (InspIRCd 3's mute): the user may join but not speak (404
    naming the mute); voice lets them speak; an m: exception lifts the mute, a
    plain exception does not (as in InspIRCd)."""
    s, a, b, ch = pair("mute")
    setmode(a, ch, "+b m:%s" % b.nick, "+b m:%s!*@*" % b.nick)
    assert listing(a, ch, "b", 367, 368) == ["m:%s!*@*" % b.nick]
    b.send("PRIVMSG %s :hush" % ch)
    m = b.expect_msg(r" 404 %s %s " % (b.nick, ch))
    assert "muted" in m.params[-1], m.raw
    a.assert_nothing(0.3, "hush")
    b.send("PART %s" % ch)
    b.join(ch)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (b.nick, ch))
    setmode(a, ch, "+e %s!*@*" % b.nick)
    b.send("PRIVMSG %s :still hushed" % ch)
    b.expect(r" 404 %s %s " % (b.nick, ch))
    setmode(a, ch, "+e m:%s" % b.nick, "+e m:%s!*@*" % b.nick)
    b.send("PRIVMSG %s :unmuted" % ch)
    a.expect(r"PRIVMSG %s :unmuted" % ch)
    setmode(a, ch, "-e m:%s!*@*" % b.nick)
    setmode(a, ch, "+v %s" % b.nick)
    b.send("PRIVMSG %s :voiced" % ch)
    a.expect(r"PRIVMSG %s :voiced" % ch)
    a.quit()
    b.quit()


def test_noctcp_in_a_multiline_batch():
    """+C holds for a draft/multiline batch too: one CTCP line (not ACTION) refuses
    the whole message with 404; a batch without one passes (IRCv3 multiline)."""
    s, a, b, ch = pair("mlc")
    setmode(a, ch, "+C")
    u = Client(s)
    u.send("CAP REQ :batch draft/multiline")
    u.expect(r" CAP \S+ ACK ")
    u.send("CAP END")
    u.register(S.nick("mlu"))
    u.join(ch)
    a.expect(r"^:%s!\S+ JOIN :?%s" % (u.nick, ch))
    u.send("BATCH +m1 draft/multiline %s" % ch)
    u.send("@batch=m1 PRIVMSG %s :first line" % ch)
    u.send("@batch=m1 PRIVMSG %s :\x01VERSION\x01" % ch)
    u.send("BATCH -m1")
    m = u.expect_msg(r" 404 %s %s " % (u.nick, ch))
    assert "CTCP" in m.params[-1], m.raw
    a.assert_nothing(0.3, "first line")
    u.send("BATCH +m2 draft/multiline %s" % ch)
    u.send("@batch=m2 PRIVMSG %s :plain one" % ch)
    u.send("@batch=m2 PRIVMSG %s :\x01ACTION two\x01" % ch)
    u.send("BATCH -m2")
    a.expect(r"PRIVMSG %s :plain one" % ch)
    for x in (a, b, u):
        x.quit()


def test_bad_extban_696_changes_nothing():
    """Bad extban syntax (unknown letter, empty value, m: in +I) gets a well-formed
    696 naming the letter and the mask, and changes nothing."""
    s, a, b, ch = pair("bad")
    for letter, mask, why in (("b", "x:foo", "extban"), ("b", "R:", "R:"),
                              ("e", "m:", "m:"), ("I", "m:bob", "m:")):
        a.send("MODE %s +%s %s" % (ch, letter, mask))
        m = well_formed_696(a, ch, letter)
        assert m.params[3] == mask and why in m.params[4], m.raw
    a.send("MODE %s +bb x:foo good!*@*" % ch)
    well_formed_696(a, ch, "b")
    a.expect(r"MODE %s \+b :?good!\*@\*$" % ch)
    b.expect(r"MODE %s \+b :?good!\*@\*$" % ch)
    assert listing(a, ch, "b", 367, 368) == ["good!*@*"]
    assert listing(a, ch, "e", 348, 349) == []
    assert listing(a, ch, "I", 346, 347) == []
    b.assert_nothing(0.3, " MODE ")
    a.quit()
    b.quit()


def test_empty_param_696_well_formed():
    """Modern IRC 696 ERR_INVALIDMODEPARAM "<client> <target> <mode> <parameter>
    :<description>": MODE #c +l : and +b : (an empty parameter) get it with no
    empty middle parameter, and change nothing."""
    s, a, b, ch = pair("empty")
    for letter in "lbeI":
        a.send("MODE %s +%s :" % (ch, letter))
        well_formed_696(a, ch, letter)
    a.send("MODE %s +b :a b" % ch)
    well_formed_696(a, ch, "b")
    a.send("MODE %s +o :" % ch)
    m = a.expect_msg(r" 401 ")
    assert m.params[1] != "" and "  " not in m.raw, m.raw
    a.send("MODE %s" % ch)
    assert a.expect_msg(r" 324 ").params[2] == "+nt"
    assert listing(a, ch, "b", 367, 368) == []
    b.assert_nothing(0.3, " MODE ")
    a.quit()
    b.quit()


def test_noctcp_extbans_and_exceptions_survive_a_restart():
    """HS-2: +C is kept with the channel's other modes, extbans with its bans, and
    the exception lists +e and +I (a mask may be in a list and a ban at once),
    across a restart (the database in the server's directory); one removed before
    the restart stays removed."""
    db = os.path.join(tempfile.mkdtemp(prefix="agentircd-exceptions-"), "kept.db")
    s = PersistentServer(db)
    a = Client(s, "keeper")
    a.join("#kept")
    setmode(a, "#kept", "+C")
    setmode(a, "#kept", "+b m:*!*@muted.example", "+b m:*!*@muted.example")
    setmode(a, "#kept", "+b R:alice")
    setmode(a, "#kept", "+e R:alice")
    setmode(a, "#kept", "+e *!*@friend.example")
    setmode(a, "#kept", "+I R:bob")
    setmode(a, "#kept", "+I *!*@gone.example")
    setmode(a, "#kept", "-I *!*@gone.example")
    a.close()
    s.restart()
    c = Client(s, "later")
    c.join("#kept")
    c.send("MODE #kept")
    assert "C" in c.expect_msg(r" 324 ").params[2]
    assert sorted(listing(c, "#kept", "b", 367, 368)) == ["R:alice", "m:*!*@muted.example"]
    assert sorted(listing(c, "#kept", "e", 348, 349)) == ["*!*@friend.example",
                                                          "R:alice"]
    assert listing(c, "#kept", "I", 346, 347) == ["R:bob"]
    c.quit()
    s.stop()
    shutil.rmtree(os.path.dirname(db), ignore_errors=True)
    shutil.rmtree(s.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(run_tests(globals()))

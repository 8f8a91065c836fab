#!/usr/bin/env python3
"""Queries: WHO/WHOX, WHOIS, WHOWAS, ISON, USERHOST, LUSERS, MOTD, VERSION, TIME, INFO, HELP,
ADMIN (RFC 2812 3.4-3.6, Modern IRC, IRCv3 WHOX)."""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Shared, daemon_path, parse, run_tests  # noqa: E402


def _oper_section():
    try:
        out = subprocess.run([daemon_path(), "--hash-password"], input=b"qpass\n",
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
        h = out.stdout.decode().strip().splitlines()[-1]
    except Exception:
        h = "$6$invalid$"
    return "[operator qop]\npassword = %s\nmask = *@*\n" % h


S = Shared(config_extra=_oper_section())


def test_who_channel_352_315():
    s = S()
    a = Client(s, "whoa", user="usera", realname="Alice Who")
    b = Client(s, "whob", user="userb", realname="Bob Who")
    a.join("#who")
    b.join("#who")
    b.send("AWAY :brb")
    b.expect(" 306 ")
    a.send("WHO #who")
    lines = a.collect_until(r" 315 whoa #who :")
    rows = {parse(l).params[5]: parse(l) for l in lines if parse(l).command == "352"}
    assert set(rows) == {"whoa", "whob"}, lines
    r = rows["whoa"]
    assert r.params[0] == "whoa" and r.params[1] == "#who" and r.params[2] in ("usera", "~usera"), r
    assert r.params[4] == "irc.test", r
    assert r.params[6] == "H@", r
    assert re.match(r"^0 Alice Who$", r.params[7]), r
    assert rows["whob"].params[6] == "G", rows["whob"]
    # by mask (nick), and by a wildcard
    a.send("WHO whob")
    m = a.expect_numeric(352)
    assert m.params[5] == "whob" and m.params[6].startswith("G"), m.raw
    a.expect(r" 315 whoa whob :")
    a.send("WHO who*")
    lines = a.collect_until(" 315 ")
    assert {parse(l).params[5] for l in lines if parse(l).command == "352"} >= {"whoa", "whob"}
    a.send("WHO nobody-here")
    lines = a.collect_until(" 315 ")
    assert not any(parse(l).command == "352" for l in lines), lines
    a.quit()
    b.quit()


def test_whox_354():
    """WHO #c %tcuhnfar,42 -> 354 <me> 42 #c user host nick flags account :realname."""
    s = S()
    a = Client(s, "wxa", user="wxu", realname="WX Real")
    b = Client(s, "wxb")
    a.join("#whox")
    b.join("#whox")
    b.send("MODE wxb +B")
    b.expect("MODE wxb")
    b.send("AWAY :away")
    b.expect(" 306 ")
    a.send("WHO #whox %tcuhnfar,42")
    lines = a.collect_until(r" 315 wxa #whox :")
    rows = {parse(l).params[5]: parse(l) for l in lines if parse(l).command == "354"}
    assert set(rows) == {"wxa", "wxb"}, lines
    r = rows["wxa"].params
    assert r[0] == "wxa" and r[1] == "42" and r[2] == "#whox", r
    assert r[3] in ("wxu", "~wxu") and r[4], r
    assert r[6] == "H@", r
    assert r[7] == "0", r             # not logged in
    assert r[8] == "WX Real", r
    assert "G" in rows["wxb"].params[6] and "B" in rows["wxb"].params[6], rows["wxb"]
    a.send("WHO wxb %n")
    m = a.expect_numeric(354)
    assert m.params == ["wxa", "wxb"], m.raw
    a.quit()
    b.quit()


def test_whois_full():
    """WHOIS 311 312 319 317 318; 301 away; 313 oper; 335 bot; 401 + 318 for nobody."""
    s = S()
    a = Client(s, "wia")
    b = Client(s, "wib", user="wibu", realname="Wib Real")
    b.join("#wi1")
    b.join("#wi2")
    a.send("WHOIS wib")
    lines = a.collect_until(r" 318 wia wib :")
    got = {parse(l).command: parse(l) for l in lines}
    assert got["311"].params[:3] == ["wia", "wib", got["311"].params[2]] \
        and got["311"].params[2] in ("wibu", "~wibu") and got["311"].params[4] == "*" \
        and got["311"].params[5] == "Wib Real", got["311"]
    assert got["312"].params[:3] == ["wia", "wib", "irc.test"], got["312"]
    chans = got["319"].params[2].split()
    assert sorted(chans) == ["@#wi1", "@#wi2"], got["319"]
    assert got["317"].params[2].isdigit() and got["317"].params[3].isdigit(), got["317"]
    for n in ("301", "313", "335"):
        assert n not in got, lines
    b.send("AWAY :out to lunch")
    b.expect(" 306 ")
    b.send("MODE wib +B")
    b.expect("MODE wib")
    b.send("OPER qop qpass")
    b.expect(" 381 ")
    a.send("WHOIS WIB")
    lines = a.collect_until(r" 318 wia \S+ :")
    got = {parse(l).command: parse(l) for l in lines}
    assert got["301"].params[1:] == ["wib", "out to lunch"], lines
    assert "313" in got and got["313"].params[1] == "wib", lines
    assert "335" in got and got["335"].params[1] == "wib", lines
    a.send("WHO wib")
    m = a.expect_numeric(352)
    assert set(m.params[6]) >= set("G*B"), m.raw   # away, oper, bot
    a.send("WHOIS nobody-here")
    a.expect(r" 401 wia nobody-here :")
    a.expect(r" 318 wia nobody-here :")
    a.send("WHOIS")
    a.expect(r" 431 wia :| 461 wia WHOIS ")
    a.quit()
    b.quit()


def test_whowas_314_369_406():
    s = S()
    a = Client(s, "wwa")
    b = Client(s, "wwb", user="wwbu", realname="Was Here")
    b.quit("leaving")
    a.send("WHOWAS wwb")
    m = a.expect_numeric(314)
    assert m.params[1] == "wwb" and m.params[2] in ("wwbu", "~wwbu") and m.params[4] == "*" \
        and m.params[5] == "Was Here", m.raw
    a.expect(r" 369 wwa wwb :")
    a.send("WHOWAS never-was")
    a.expect(r" 406 wwa never-was :")
    a.expect(r" 369 wwa never-was :")
    a.quit()


def test_ison_303():
    s = S()
    a = Client(s, "isa")
    b = Client(s, "isb")
    a.send("ISON isa ISB nobody-here")
    m = a.expect_numeric(303)
    assert sorted(m.params[1].split()) == sorted(["isa", "isb"]), m.raw
    a.send("ISON nobody-here")
    m = a.expect_numeric(303)
    assert m.params[1] == "", m.raw
    b.quit()
    a.quit()


def test_userhost_302():
    s = S()
    a = Client(s, "uha", user="uhau")
    a.send("USERHOST uha nobody-here")
    m = a.expect_numeric(302)
    assert re.match(r"^uha=\+~?uhau@\S+$", m.params[1].strip()), m.raw


def test_lusers_motd():
    s = S()
    a = Client(s, "lma")
    a.send("LUSERS")
    lines = a.collect_until(r" 266 ")
    cmds = [parse(l).command for l in lines]
    for n in ("251", "255", "265"):
        assert n in cmds, cmds
    a.send("MOTD")
    a.collect_until(" 376 ")


def test_links_364_365_alone():
    """LINKS (RFC 2812 3.4.5; Modern IRC): RPL_LINKS (364) per server as servers
    send it, "<client> <server> <uplink> :<hop count> <server info>" (Solanum,
    InspIRCd; ircdocs/modern-irc#224), then RPL_ENDOFLINKS (365) "<client> <mask>
    :End of /LINKS list", "*" without a mask. A server without links lists itself
    alone, at 0 hops; a mask that matches nothing lists nothing; LUSERS says one
    server and no links."""
    s = S()
    a = Client(s, "linka")
    a.send("LINKS")
    got = [parse(l) for l in a.collect_until(r" 365 ")]
    assert [(m.command, m.params[1:3], m.params[3].split()[0]) for m in got[:-1]] \
        == [("364", ["irc.test", "irc.test"], "0")], [m.raw for m in got]
    assert got[-1].params[1] == "*", got[-1].raw
    a.send("LINKS *.elsewhere")
    got = [parse(l) for l in a.collect_until(r" 365 ")]
    assert [m.command for m in got] == ["365"] and got[0].params[1] == "*.elsewhere", \
        [m.raw for m in got]
    a.send("LUSERS")
    got = {m.command: m for m in (parse(l) for l in a.collect_until(r" 266 "))}
    assert got["251"].params[-1].endswith("on 1 servers"), got["251"].raw
    assert got["255"].params[-1].endswith("clients and 0 servers"), got["255"].raw
    a.quit()


def test_version_351_and_005():
    s = S()
    a = Client(s, "vera")
    a.send("VERSION")
    m = a.expect_numeric(351)
    assert m.params[2] == "irc.test", m.raw
    a.expect_numeric(5)


def test_time_391():
    s = S()
    a = Client(s, "tima")
    a.send("TIME")
    m = a.expect_numeric(391)
    assert m.params[1] == "irc.test" and m.params[-1], m.raw


def test_info_371_374():
    s = S()
    a = Client(s, "infa")
    a.send("INFO")
    lines = a.collect_until(" 374 ")
    assert any(parse(l).command == "371" for l in lines), lines


def test_help():
    """HELP: 704/705/706 (Modern IRC) or NOTICE lines."""
    s = S()
    a = Client(s, "helpa")
    a.send("HELP")
    m = a.expect_msg(r" (704|705|706|524) helpa | NOTICE helpa :")
    if m.command in ("704", "705"):
        a.expect(r" 706 helpa ")
    a.send("HELP PRIVMSG")
    a.expect(r" (704|524) helpa |NOTICE helpa :")
    a.send("HELP NOSUCHTOPIC")
    a.expect(r" (524|704|706) helpa |NOTICE helpa :")


def test_admin():
    """ADMIN: 256-259, or 423 ERR_NOADMININFO."""
    s = S()
    a = Client(s, "adma")
    a.send("ADMIN")
    m = a.expect_msg(r" (256|423|421) adma ")
    if m.command == "256":
        a.expect(" 25[789] ")


def test_who_hides_invisible():
    """+i users are not listed by WHO masks to users sharing no channel with them."""
    s = S()
    a = Client(s, "invwho")
    b = Client(s, "invhid")
    b.send("MODE invhid +i")
    b.expect(r"MODE invhid :?\+i")
    a.send("WHO inv*")
    lines = a.collect_until(" 315 ")
    assert not any(parse(l).command == "352" and parse(l).params[5] == "invhid"
                   for l in lines), lines
    b.join("#invshared")
    a.join("#invshared")
    a.send("WHO inv*")
    lines = a.collect_until(" 315 ")
    assert any(parse(l).command == "352" and parse(l).params[5] == "invhid"
               for l in lines), lines
    a.quit()
    b.quit()


if __name__ == "__main__":
    run_tests(globals())

#!/usr/bin/env python3
"""Operators from the config (SEC-2 hashes): OPER 381/464/491, KILL, WALLOPS, flood exemption."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Server, Shared, daemon_path, run_tests  # noqa: E402


from ircharness import hash_password  # noqa: E402


_H = None


def config():
    global _H
    if _H is None:
        _H = hash_password("s3cret")
    return ("[operator admin]\npassword = %s\nmask = *@*\n\n"
            "[operator faraway]\npassword = %s\nmask = *@10.99.99.99\n" % (_H, _H))


class LazyShared(Shared):
    def __call__(self):
        if not self.kw:
            self.kw = {"config_extra": config(), "flood_burst": 5}
        return Shared.__call__(self)


S = LazyShared()


def test_oper_381():
    s = S()
    a = Client(s, S.nick("op"))
    a.send("OPER admin s3cret")
    lines = a.collect_until(r"^:irc\.test 381 %s :" % a.nick)
    lines += a.sync()
    assert any(re.search(r"MODE %s :?\+\S*o" % a.nick, l) for l in lines), lines
    a.send("MODE %s" % a.nick)
    m = a.expect_numeric(221)
    assert "o" in m.params[1], m.raw
    a.send("MODE %s -o" % a.nick)
    a.expect(r"MODE %s :?-o" % a.nick)
    a.quit()


def test_oper_wrong_password_464():
    s = S()
    a = Client(s, S.nick("wp"))
    a.send("OPER admin wrong")
    a.expect(r"^:irc\.test 464 %s :" % a.nick)
    a.send("MODE %s" % a.nick)
    m = a.expect_numeric(221)
    assert "o" not in m.params[1], m.raw
    a.quit()


def test_oper_wrong_host_491():
    s = S()
    a = Client(s, S.nick("wh"))
    a.send("OPER faraway s3cret")
    a.expect(r"^:irc\.test 491 %s :" % a.nick)
    a.send("OPER nosuchoper s3cret")
    a.expect(r"^:irc\.test (491|464) %s :" % a.nick)
    a.quit()


def test_m6_oper_host_tells_nothing_of_the_password():
    """SEC-6, M6: from a host the operator may not come from, a wrong password gets 491
    as the right one does: 491 is no sign the password was right."""
    with Server(config_extra=config()) as s:
        a = Client(s, "m6host")
        a.send("OPER faraway wrong")
        a.expect(r"^:irc\.test 491 m6host :")
        a.quit()


def test_m6_oper_throttled_across_connections():
    """SEC-6, M6: OPER failures count as failed logins do, per address block and per
    operator, not per connection: after a wrong OPER password on one connection, the
    right one on another connection from loopback is refused at once (464) with a NOTICE
    to wait, and works once the wait is over."""
    with Server(config_extra=config()) as s:
        b = Client(s, "m6b")
        a = Client(s, "m6a")
        a.send("OPER admin wrong")
        a.expect(r" 464 m6a ")
        b.send("OPER admin s3cret")
        m = b.expect_msg(r" NOTICE m6b :Too many failed OPER attempts; try again in \d+ s")
        b.expect(r" 464 m6b ")
        wait = int(re.search(r"in (\d+) s", m.params[-1]).group(1))
        time.sleep(wait + 0.2)
        b.send("OPER admin s3cret")
        b.expect(r" 381 m6b ", timeout=10)
        a.quit()
        b.quit()


def test_kill_by_oper():
    """KILL: the victim gets ERROR, peers see QUIT with 'Killed'."""
    s = S()
    o = Client(s, S.nick("ko"))
    v = Client(s, S.nick("kv"))
    p = Client(s, S.nick("kp"))
    ch = S.chan("#kill")
    v.join(ch)
    p.join(ch)
    o.send("OPER admin s3cret")
    o.expect(" 381 ")
    o.send("KILL %s :spamming" % v.nick)
    v.expect(r"^ERROR :.*Killed.*spamming|^ERROR :.*spamming.*")
    v.expect_closed(3)
    p.expect(r"^:%s!\S+ QUIT :.*Killed.*" % v.nick)
    p.send("WHOIS %s" % v.nick)
    p.expect(" 401 ")
    o.send("KILL nobody-here :x")
    o.expect(r" 401 %s nobody-here :" % o.nick)
    for x in (o, p):
        x.quit()


def test_kill_by_non_oper_481():
    s = S()
    a = Client(s, S.nick("nk"))
    b = Client(s, S.nick("nk"))
    a.send("KILL %s :die" % b.nick)
    a.expect(r"^:irc\.test 481 %s :" % a.nick)
    b.send("PING :alive")
    b.expect("alive")
    a.quit()
    b.quit()


def test_wallops():
    """WALLOPS reaches +w users only; 481 for non-opers."""
    s = S()
    o = Client(s, S.nick("wo"))
    w = Client(s, S.nick("ww"))
    n = Client(s, S.nick("wn"))
    w.send("MODE %s +w" % w.nick)
    w.expect(r"MODE %s :?\+w" % w.nick)
    n.send("WALLOPS :not allowed")
    n.expect(r" 481 %s :" % n.nick)
    w.assert_nothing(0.3, "not allowed")
    o.send("OPER admin s3cret")
    o.expect(" 381 ")
    o.send("WALLOPS :hear ye")
    w.expect(r"^:%s(?:!\S+)? WALLOPS :hear ye$" % o.nick)
    n.assert_nothing(0.5, "hear ye")
    for x in (o, w, n):
        x.quit()


def test_oper_exempt_from_flood():
    """An oper is not throttled: 40 lines at once all arrive quickly (flood-burst 5)."""
    s = S()
    o = Client(s, S.nick("fo"))
    p = Client(s, S.nick("fp"))
    o.send("OPER admin s3cret")
    o.expect(" 381 ")
    t0 = time.time()
    o.send_raw(b"".join(b"PRIVMSG %s :flood %d\r\n" % (p.nick.encode(), i) for i in range(40)))
    for i in range(40):
        p.expect(r"PRIVMSG %s :flood %d$" % (p.nick, i), timeout=3)
    assert time.time() - t0 < 4, time.time() - t0
    o.quit()
    p.quit()


if __name__ == "__main__":
    run_tests(globals())

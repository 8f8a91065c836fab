#!/usr/bin/env python3
"""Issue 26, rules LK-3, LK-4, LK-5, HS-2: a message is one message on the whole network.

With the harness of test_link.py (a real InspIRCd 3 with m_ircv3_msgid and
m_ircv3_servertime, and a fake peer that writes exactly what a test says):
- a message from InspIRCd arrives here with the msgid InspIRCd's own clients saw, and
  one from here reaches InspIRCd's clients with the msgid its sender saw; CHATHISTORY
  here serves the network's message with that msgid and the time it was shown with;
- an agent's answer to a person on InspIRCd carries a reply tag naming the msgid that
  person's client knows (threading works across servers);
- a peer's msgid and time are kept (InspIRCd 3 sends no time between servers, another
  agentircd does), a time from the future is not believed, a malformed msgid is
  replaced by ours, and a msgid stored already is neither shown nor stored again (a
  replay after a relink is harmless, LK-3);
- two agentircd servers behind one InspIRCd hub, each with its own agent: a person on
  the hub asks both in one channel, both answer on all three servers, and the second
  agent's transcript (SS-2) has the first one's answer (LK-5);
- users' state beyond nicks (LK-2): InspIRCd's operators are shown as operators here
  and ours there (OPERTYPE, MODE -o), host, ident and realname changes on InspIRCd
  reach the clients here that asked for them (CHGHOST, SETNAME), and our SETNAME
  reaches InspIRCd (FNAME).
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, SkipTest, TestFailure,  # noqa: E402
                        hash_password, parse, run_tests)
from test_link import (HAVE_AGENT, INSP_NAME, LIVE, NET, InspIRCd,  # noqa: E402
                       agent_section, fake_pair, free_port, link_section, names,
                       pair, wait_for, wait_up, whois)

TIME_RX = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


def tagged(server, nick, caps="message-tags server-time"):
    """A client that negotiated caps before registering."""
    c = Client(server)
    c.nick = nick
    c.send("CAP REQ :%s" % caps)
    c.expect(r"CAP \S+ ACK")
    c.send("CAP END")
    c.register(nick)
    return c


def history(server, nick, chan):
    """CHATHISTORY LATEST of chan, as a client that joins it: parsed PRIVMSGs."""
    c = tagged(server, nick, "draft/chathistory batch server-time message-tags")
    c.join(chan)
    c.send("CHATHISTORY LATEST %s * 50" % chan)
    lines = c.collect_until(r"BATCH -")
    c.quit()
    return [m for m in map(parse, lines) if m.command in ("PRIVMSG", "NOTICE")]


def test_lk3_msgid_crosses_with_inspircd():
    """LK-3, LK-4, HS-2: InspIRCd's msgid of a message is the one shown and stored
    here (CHATHISTORY serves it with the time shown), and ours is the one InspIRCd's
    clients see."""
    insp, ai = NET()
    ian = tagged(insp, "ian", "message-tags")
    obs = tagged(insp, "obs", "message-tags")
    gil = tagged(ai, "gil", "message-tags server-time echo-message")
    for c in (ian, obs, gil):
        c.join("#mid")
    wait_for("everyone in #mid on agentircd", lambda: {"ian", "obs", "gil"} <= set(
        names(gil, "#mid")))
    wait_for("everyone in #mid on InspIRCd", lambda: {"ian", "obs", "gil"} <= set(
        names(obs, "#mid")))
    ian.send("PRIVMSG #mid :said on inspircd")
    seen = obs.expect_msg(r"^@\S+ :ian!\S+ PRIVMSG #mid :said on inspircd$")
    here = gil.expect_msg(r"^@\S+ :ian!\S+ PRIVMSG #mid :said on inspircd$")
    mid = seen.tags.get("msgid")
    if not mid or not mid.startswith("1IN~"):
        raise TestFailure("InspIRCd's client got no InspIRCd msgid: %r" % seen.raw)
    if here.tags.get("msgid") != mid:
        raise TestFailure("msgid here %r, on InspIRCd %r" % (here.tags.get("msgid"),
                                                               mid))
    shown = here.tags.get("time", "")
    if not re.match(TIME_RX, shown):
        raise TestFailure("no server-time here: %r" % here.raw)
    gil.send("PRIVMSG #mid :said on agentircd")
    own = gil.expect_msg(r"^@\S+ :gil!\S+ PRIVMSG #mid :said on agentircd$")
    there = obs.expect_msg(r"^@\S+ :gil!\S+ PRIVMSG #mid :said on agentircd$")
    if not own.tags.get("msgid") or there.tags.get("msgid") != own.tags["msgid"]:
        raise TestFailure("msgid on InspIRCd %r, here %r" % (there.raw, own.raw))
    msgs = history(ai, "hist1", "#mid")
    got = [m for m in msgs if m.params[-1] == "said on inspircd"]
    if len(got) != 1 or got[0].tags.get("msgid") != mid or \
            got[0].tags.get("time") != shown:
        raise TestFailure("CHATHISTORY: want msgid %s time %s once, got %r"
                          % (mid, shown, [m.raw for m in got]))
    for c in (ian, obs, gil):
        c.quit()


def test_lk3_reply_names_the_askers_msgid():
    """HS-4 across the link: an agent's answer to a person on InspIRCd names, in its
    reply tag, the msgid that person's server gave the question."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    insp, ai = NET()
    rita = tagged(insp, "rita", "message-tags")
    obs = tagged(insp, "robs", "message-tags")
    rita.join("#lk")
    obs.join("#lk")
    watch = Client(ai, "rwatch")
    wait_for("rita in #lk here", lambda: "rita" in names(watch, "#lk"))
    rita.send("PRIVMSG #lk :@echo thread this please")
    q = obs.expect_msg(r"^@\S+ :rita!\S+ PRIVMSG #lk :@echo thread this please$")
    mid = q.tags.get("msgid")
    if not mid or not mid.startswith("1IN~"):
        raise TestFailure("no InspIRCd msgid on the question: %r" % q.raw)
    a = rita.expect_msg(r"^@\S+ :echo!\S+ PRIVMSG #lk :.*echo: .*thread this please",
                        timeout=30)
    reply = a.tags.get("+draft/reply", a.tags.get("+reply"))
    if reply != mid:
        raise TestFailure("the answer's reply tag %r is not the question's msgid %r: %r"
                          % (reply, mid, a.raw))
    for c in (rita, obs, watch):
        c.quit()


def test_lk3_peer_msgid_time_and_replays():
    """LK-3, LK-4: a peer's msgid and time are shown and stored as it sent them; the
    same msgid again (a replay) is neither shown nor stored; a time from the future
    and a malformed msgid are replaced by ours; ours go to the peer."""
    fake, ai = fake_pair()
    amy = tagged(ai, "amy", "message-tags server-time echo-message")
    uuid = fake.expect(r" UID \w{9} \d+ amy ").split()[2]
    amy.join("#dup")
    line = fake.expect(r"^:\w{3} FJOIN #dup \d+ ")
    ts = line.split()[3]
    fake.send(":9FK UID 9FKAAAAAB 1 pat h.fake h.fake pat 127.0.0.1 1 +i :P")
    fake.send(":9FK FJOIN #dup %s +nt :,9FKAAAAAB:1" % ts)
    amy.expect(r":pat!\S+ JOIN :?#dup")
    past = "2020-01-02T03:04:05.678Z"
    fake.send("@msgid=9FK~1~1;time=%s :9FKAAAAAB PRIVMSG #dup :from the past" % past)
    m = amy.expect_msg(r":pat!\S+ PRIVMSG #dup :from the past$")
    if m.tags.get("msgid") != "9FK~1~1" or m.tags.get("time") != past:
        raise TestFailure("the peer's msgid and time not kept: %r" % m.raw)
    # The same message again, as a relink might replay it: dropped.
    fake.send("@msgid=9FK~1~1;time=%s :9FKAAAAAB PRIVMSG #dup :the replay" % past)
    fake.send("@msgid=9FK~1~2;time=2999-01-01T00:00:00.000Z :9FKAAAAAB PRIVMSG "
              "#dup :from the future")
    m = amy.expect_msg(r":pat!\S+ PRIVMSG #dup :(the replay|from the future)$")
    if m.params[-1] != "from the future":
        raise TestFailure("a replayed msgid was shown again: %r" % m.raw)
    if m.tags.get("msgid") != "9FK~1~2" or not m.tags.get("time", "").startswith(
            time.strftime("%Y-", time.gmtime())):
        raise TestFailure("a time from the future was believed: %r" % m.raw)
    wait_for("the replay logged", lambda: "dropped: msgid 9FK~1~1 is stored already"
             in ai.log_text())
    fake.send("@msgid=bad\\sid :9FKAAAAAB PRIVMSG #dup :a bad id")
    m = amy.expect_msg(r":pat!\S+ PRIVMSG #dup :a bad id$")
    # Ours, by its form (hex, a dash, a counter): "bad" can be hex too.
    if not re.fullmatch(r"[0-9a-f]+-[0-9a-f]+", m.tags.get("msgid") or ""):
        raise TestFailure("a malformed msgid was taken: %r" % m.raw)
    # A private message replayed: shown and stored once too.
    for text in ("psst", "psst again"):
        fake.send("@msgid=9FK~2~1 :9FKAAAAAB PRIVMSG %s :%s" % (uuid, text))
    m = amy.expect_msg(r":pat!\S+ PRIVMSG amy :psst")
    if m.params[-1] != "psst" or m.tags.get("msgid") != "9FK~2~1":
        raise TestFailure("the private message: %r" % m.raw)
    amy.assert_nothing(timeout=1, regex=r"psst again")
    # Ours go to the peer with the message: the id and time amy's echo has.
    amy.send("PRIVMSG #dup :from amy")
    own = amy.expect_msg(r":amy!\S+ PRIVMSG #dup :from amy$")
    out = fake.expect(r" PRIVMSG #dup :from amy$")
    if not out.startswith("@msgid=%s;time=%s :" % (own.tags["msgid"],
                                                   own.tags["time"])):
        raise TestFailure("sent to the peer without our msgid and time: %r (echo %r)"
                          % (out, own.raw))
    msgs = history(ai, "hist2", "#dup")
    texts = [(m.params[-1], m.tags.get("msgid"), m.tags.get("time")) for m in msgs]
    if texts.count(("from the past", "9FK~1~1", past)) != 1 or \
            any(t[0] == "the replay" for t in texts):
        raise TestFailure("CHATHISTORY: %r" % texts)
    amy.quit()
    ai.stop()


def leaf(name, sid, insp, agent):
    """An agentircd named name, linked to the hub insp, hosting agent in #net."""
    s = Server(config_extra=link_section(insp) + agent_section(agent, "#net"),
               flood_exempt="127.0.0.0/8", start=False, sid=sid)
    s.name = name
    s.config_text = s.config_text.replace("name = irc.test", "name = %s" % name)
    with open(s.conf, "w") as f:
        f.write(s.config_text)
    s.start()
    return s


def test_lk5_two_leaves_behind_a_hub():
    """LK-5, SS-2: InspIRCd as the hub, two agentircd leaves with an agent each and a
    person each; a person on the hub asks both agents in one channel; both answer,
    seen on all three servers, and the second agent's transcript holds the first's
    answer."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    links = "".join(
        '<link name="%s" ipaddr="127.0.0.1" port="%d" allowmask="127.0.0.0/8" '
        'sendpass="insp-pass" recvpass="ai-pass">\n' % (n, free_port())
        for n in ("irc.a.test", "irc.b.test"))
    hub = InspIRCd(free_port(), extra=links)
    LIVE.append(hub)
    a = leaf("irc.a.test", "0AA", hub, "alpha")
    b = leaf("irc.b.test", "0BB", hub, "beta")
    for s in (a, b):
        wait_for("%s up" % s.name, lambda s=s: "link %s: up" % INSP_NAME
                 in s.log_text())
        wait_for("%s's burst received by the hub" % s.name, lambda s=s:
                 "Received end of netburst from %s" % s.name in hub.log_text())
    hugo = tagged(hub, "hugo", "message-tags")
    anna = tagged(a, "anna", "message-tags")
    bert = tagged(b, "bert", "message-tags")
    for c in (hugo, anna, bert):
        c.join("#net")
    everyone = {"hugo", "anna", "bert", "alpha", "beta"}
    for c, where in ((hugo, "the hub"), (anna, "leaf A"), (bert, "leaf B")):
        wait_for("everyone in #net on %s" % where,
                 lambda c=c: everyone <= set(names(c, "#net")))
    hugo.send("PRIVMSG #net :@alpha first question")
    # One message on three servers: alpha's answer has one msgid everywhere.
    ids = [c.expect_msg(r":alpha!\S+ PRIVMSG #net :.*echo: .*first question",
                        timeout=30).tags.get("msgid") for c in (hugo, anna, bert)]
    if not ids[0] or len(set(ids)) != 1:
        raise TestFailure("alpha's answer has msgids %r on hub, A, B" % ids)
    hugo.send("PRIVMSG #net :@beta second question")
    answers = []
    for c in (hugo, anna, bert):
        lines = c.collect_until(r":beta!\S+ PRIVMSG #net :.*second question",
                                timeout=30)
        answers.append([l for l in lines if re.search(r":beta!\S+ PRIVMSG #net :", l)])
    # beta's echo quotes its prompt: the transcript has alpha's answer, said on A.
    said = "\n".join(answers[2])
    if not re.search(r"<alpha> hugo: echo: .*first question", said):
        raise TestFailure("beta's transcript lacks alpha's answer: %r" % answers[2])
    if not re.search(r"<hugo> @alpha first question", said):
        raise TestFailure("beta's transcript lacks hugo's question: %r" % answers[2])
    for got in answers[:2]:
        if not any("<alpha> hugo: echo:" in l for l in got):
            raise TestFailure("beta's answer differs across servers: %r" % got)
    for c in (hugo, anna, bert):
        c.quit()
    b.stop()
    a.stop()
    hub.stop()


OPER_PW = "oper-secret"
# An operator on InspIRCd (class Shared has every command) who may change users'
# hosts, idents and realnames; and one here.
INSP_OPS = ('<type name="NetAdmin" classes="Shared">\n'
            '<oper name="root" password="%s" host="*@*" type="NetAdmin">\n'
            '<module name="chghost">\n<module name="chgident">\n'
            '<module name="chgname">\n' % OPER_PW)
AI_OPS = "[operator root]\npassword = %s\nmask = *@*\n\n" % hash_password(OPER_PW)


def test_lk2_opers_hosts_and_realnames():
    """LK-2 ("Users ... cross the link both ways"), carried as InspIRCd 3's
    m_spanningtree does (opertype.cpp; uid.cpp FHOST, FIDENT, FNAME; main.cpp
    OnMode, OnOper, OnChangeRealName); IRCv3 chghost and setname for the clients
    here. An operator on InspIRCd is one in WHOIS (313) and WHO (*) here until -o,
    with no authority over our agents (AU-1: it may not loosen an agent's policy;
    the answers to its ! commands, this server's NOTICEs, reach it over the link);
    CHGHOST and CHGIDENT there are a CHGHOST here to clients with the cap only, and
    CHGNAME a SETNAME; WHOIS here shows the new host, ident and realname. Our
    operator is an operator on InspIRCd until -o (and again after a relink, by our
    burst), and our SETNAME is its realname there."""
    pol = agent_section("pol", "#ops").replace(
        "users = *\n", "users = *\npermissions = allow-all\n") if HAVE_AGENT else ""
    insp, ai = pair(insp_kw={"extra": INSP_OPS}, agents=AI_OPS + pol)
    wait_up(ai, insp)
    bob = Client(insp, "bob")
    bob.join("#ops")
    alice = tagged(ai, "alice", "chghost setname")
    alice.join("#ops")
    plain = Client(ai, "plain")
    plain.join("#ops")
    wait_for("bob in #ops here", lambda: "bob" in names(plain, "#ops"))
    wait_for("alice in #ops there", lambda: "alice" in names(bob, "#ops"))
    if any(m.command == "313" for m in whois(plain, "bob")):
        raise TestFailure("bob is an operator before OPER")
    # InspIRCd's operator, shown as one here; then not, after -o.
    bob.send("OPER root %s" % OPER_PW)
    bob.expect(r" 381 ")
    wait_for("bob an operator in WHOIS here", lambda: any(
        m.command == "313" for m in whois(plain, "bob")))
    plain.send("WHO bob")
    who = [parse(l) for l in plain.collect_until(r" 315 ")]
    if not any(m.command == "352" and "*" in m.params[6] for m in who):
        raise TestFailure("WHO bob here lacks the operator's *: %r" % [m.raw for m in who])
    if HAVE_AGENT:
        # But with none of our operators' authority over our agents (AU-1): bob
        # may tighten pol's policy in his query, not loosen it again.
        bob.send("PRIVMSG pol :!policy deny-all")
        bob.expect(r"^(@\S+ )?:irc.test NOTICE bob :pol: permission policy here is "
                   r"now deny-all$", timeout=15)
        bob.send("PRIVMSG pol :!policy allow-all")
        bob.expect(r"^(@\S+ )?:irc.test NOTICE bob :Only IRC operators and pol's "
                   r"admins may loosen", timeout=15)
    # Host, ident and realname changes: CHGHOST and SETNAME to the clients with caps.
    bob.send("CHGHOST bob new.host.test")
    alice.expect(r"^:bob!\S+ CHGHOST \S+ new.host.test$")
    bob.send("CHGIDENT bob newid")
    alice.expect(r"^:bob!\S+@new.host.test CHGHOST newid new.host.test$")
    bob.send("CHGNAME bob :Bob Renamed")
    alice.expect(r"^:bob!newid@new.host.test SETNAME :Bob Renamed$")
    plain.assert_nothing(regex=r"CHGHOST|SETNAME")
    w = whois(plain, "bob")
    if not any(m.command == "311" and m.params[2:4] == ["newid", "new.host.test"]
               and m.params[-1] == "Bob Renamed" for m in w):
        raise TestFailure("WHOIS bob here: %r" % [m.raw for m in w])
    bob.send("MODE bob -o")
    wait_for("bob no operator here", lambda: not any(
        m.command == "313" for m in whois(plain, "bob")))
    # Ours there: OPERTYPE, FNAME, and MODE -o.
    alice.send("OPER root %s" % OPER_PW)
    alice.expect(r" 381 ")
    wait_for("alice an operator on InspIRCd", lambda: any(
        m.command == "313" and "Operator" in m.params[-1] for m in whois(bob, "alice")))
    alice.send("SETNAME :Alice Renamed")
    wait_for("alice's realname on InspIRCd", lambda: any(
        m.command == "311" and m.params[-1] == "Alice Renamed"
        for m in whois(bob, "alice")))
    alice.send("MODE alice -o")
    wait_for("alice no operator on InspIRCd", lambda: not any(
        m.command == "313" for m in whois(bob, "alice")))
    # In our burst too: after a relink, our operator is one there again.
    alice.send("OPER root %s" % OPER_PW)
    alice.expect(r" 381 ")
    bob.close()
    insp.stop()
    insp.start()
    wait_up(ai, insp, count=2)
    bea = Client(insp, "bea")
    if not any(m.command == "313" for m in whois(bea, "alice")):
        raise TestFailure("alice no operator on InspIRCd after the relink")
    for c in (bea, alice, plain):
        c.quit()
    ai.stop()
    insp.stop()


run_tests(globals())

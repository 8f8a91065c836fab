#!/usr/bin/env python3
"""Issue 26, rules LK-1 to LK-3: agentircd links into an InspIRCd 3 network.

A real InspIRCd 3 (the Debian package; the file is skipped without it) runs with a
config this file writes: loopback only, a <bind> for clients and one for servers, a
<link> for agentircd with both passwords, and the modules the link needs
(spanningtree; botmode for agents' +B; cap, ircv3 and ircv3_ctctags for client-only
tags; ircv3_msgid and ircv3_servertime for msgid and time; ssl_gnutls for the TLS
tests). agentircd connects to it as a leaf ([link] with
autoconnect). Checked: both sides log the link and the bursts, LINKS shows agentircd;
a person on InspIRCd sees an agent of agentircd in NAMES and WHOIS (bot), mentions it
and gets its answer (the echo agent on the official ACP SDK); people on both servers
talk in a channel and privately both ways, see each other's joins, parts, nicks and
quits, WHOIS shows the remote server; a wrong password either way and a wrong pinned
fingerprint are refused with an ERROR and a log line; a split quits the remote users
with "irc.test irc.insp.test" and the link comes back.
"""

import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (SLOW, Client, FakePeer, Server, SkipTest,  # noqa: E402
                        TestFailure, daemon_path, free_port, hash_password, parse,
                        run_tests)
from agentharness import AGENTS_DIR, NODE, SDK  # noqa: E402

INSPIRCD = shutil.which("inspircd") or (
    "/usr/sbin/inspircd" if os.access("/usr/sbin/inspircd", os.X_OK) else None)
if INSPIRCD is None:
    print("1..0 # SKIP inspircd not installed (scripts/deps installs it)")
    sys.exit(0)

ECHO = os.path.join(AGENTS_DIR, "echo-agent.mjs")
HAVE_AGENT = NODE is not None and os.path.isdir(SDK) and os.path.isfile(ECHO)
TOKEN = "lktest%d" % os.getpid()
INSP_NAME = "irc.insp.test"
SPLIT = "irc.test irc.insp.test"
DIRS = []


def wait_for(what, fn, timeout=15):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise TestFailure("timed out waiting for %s" % what)


class InspIRCd:
    """One InspIRCd 3 process with a config written here: clients on port, servers
    on sport, and a <link> for agentircd (irc.test) at link_port."""

    def __init__(self, link_port, sendpass="insp-pass", recvpass="ai-pass", tls=None,
                 fingerprint=None, autoconnect=False, link_tls=False, extra=""):
        self.dir = tempfile.mkdtemp(prefix="agentircd-insp-")
        DIRS.append(self.dir)
        self.host = "127.0.0.1"
        self.port = free_port()
        self.sport = free_port()
        self.log = os.path.join(self.dir, "inspircd.log")
        self.conf = os.path.join(self.dir, "inspircd.conf")
        self.proc = None
        mods = ["spanningtree", "botmode", "cap", "ircv3", "ircv3_ctctags",
                "ircv3_msgid", "ircv3_servertime"]
        ssl = ""
        if tls:
            mods.append("ssl_gnutls")
            ssl = ('<sslprofile name="Servers" provider="gnutls" certfile="%s" '
                   'keyfile="%s" dhfile="" hash="sha256" requestclientcert="yes">\n'
                   % tls)
        text = (
            '<server name="%s" description="InspIRCd test" id="1IN" network="TestNet">\n'
            '<admin name="Test" nick="test" email="test@example.org">\n'
            '<bind address="127.0.0.1" port="%d" type="clients">\n'
            '<bind address="127.0.0.1" port="%d" type="servers"%s>\n'
            '<connect allow="*" timeout="60" pingfreq="120" sendq="262144" '
            'recvq="8192" localmax="100" globalmax="100" maxconnwarn="off" '
            'threshold="1000" commandrate="100000" fakelag="off" '
            'resolvehostnames="no" useident="no">\n'
            '<class name="Shared" commands="*" privs="*" usermodes="*" chanmodes="*">\n'
            '<pid file="%s/inspircd.pid">\n'
            '<log method="file" type="* -USERINPUT -USEROUTPUT" level="debug" '
            'flush="1" target="%s">\n'
            '%s'
            '<link name="irc.test" ipaddr="127.0.0.1" port="%d" '
            'allowmask="127.0.0.0/8" sendpass="%s" recvpass="%s"%s%s>\n'
            % (INSP_NAME, self.port, self.sport,
               ' ssl="Servers"' if tls else "", self.dir, self.log, ssl, link_port,
               sendpass, recvpass,
               ' fingerprint="%s"' % fingerprint if fingerprint else "",
               ' ssl="Servers"' if link_tls else ""))
        if autoconnect:
            text += '<autoconnect period="2" server="irc.test">\n'
        text += extra
        text += "".join('<module name="%s">\n' % m for m in mods)
        with open(self.conf, "w") as f:
            f.write(text)
        self.start()

    def start(self):
        argv = [INSPIRCD, "--nofork", "--config", self.conf]
        # The Debian package refuses to run as root unless told.
        if os.geteuid() == 0:
            argv.append("--runasroot")
        self.out = open(os.path.join(self.dir, "stdout.log"), "ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=subprocess.STDOUT, cwd=self.dir)
        deadline = time.time() + 15 * SLOW
        while True:
            if self.proc.poll() is not None:
                raise TestFailure("inspircd exited with %s:\n%s" % (
                    self.proc.returncode, self.log_text()[-3000:]))
            try:
                socket.create_connection((self.host, self.sport), timeout=1).close()
                socket.create_connection((self.host, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
            if time.time() > deadline:
                raise TestFailure("inspircd did not listen within 15 s")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_text(self):
        try:
            with open(self.log, "rb") as f:
                # Server notices bold names (^B): read them plain.
                return f.read().decode("utf-8", "replace").replace("\x02", "")
        except OSError:
            return ""

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


LIVE = []


def _cleanup():
    for i in LIVE:
        i.stop()
    r = subprocess.run(["pgrep", "-f", TOKEN], stdout=subprocess.PIPE, text=True)
    for pid in r.stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    if not os.environ.get("IRC_KEEP_TMP"):
        for d in DIRS:
            shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)

RECV_HASH = hash_password("insp-pass")


def link_section(insp, send="ai-pass", recv_hash=None, tls=False, fingerprint=None,
                 autoconnect=True, host="127.0.0.1"):
    lines = ["[link %s]" % INSP_NAME, "address = %s:%d" % (host, insp.sport),
             "send-password = %s" % send,
             "receive-password = %s" % (recv_hash or RECV_HASH),
             "tls = %s" % ("yes" if tls else "no"),
             "autoconnect = %s" % ("yes" if autoconnect else "no")]
    if fingerprint:
        lines.append("fingerprint = %s" % fingerprint)
    return "\n".join(lines) + "\n\n"


def agent_section(name, channels):
    return ("[agent %s]\ncommand = %s %s %s-%s\nchannels = %s\n"
            "description = the echo agent\nusers = *\n\n"
            % (name, NODE, ECHO, TOKEN, name, channels))


def pair(insp_kw=None, link_kw=None, agents="", listen="", **server_kw):
    """An InspIRCd, then an agentircd that links to it; both are stopped at exit.
    port is where InspIRCd would connect to agentircd (listen: a [listen] there)."""
    port = free_port()
    insp = InspIRCd(port, **(insp_kw or {}))
    LIVE.append(insp)
    ai = Server(config_extra=link_section(insp, **(link_kw or {})) + agents
                + (listen % port if listen else ""),
                flood_exempt="127.0.0.0/8", start=False, **server_kw)
    # InspIRCd's <link> names agentircd's address; the harness chose its own port.
    insp_link = 'port="%d"' % port
    with open(insp.conf) as f:
        text = f.read()
    if insp_link not in text:
        raise TestFailure("link port not in the InspIRCd config")
    ai.start()
    return insp, ai


class Net:
    """The pair most tests share: linked, with an echo agent in #lk."""

    def __init__(self):
        self.insp = self.ai = None

    def __call__(self):
        if self.ai is None or not self.ai.alive():
            self.insp, self.ai = pair(agents=agent_section("echo", "#lk")
                                      if HAVE_AGENT else "")
            wait_up(self.ai, self.insp)
        return self.insp, self.ai


NET = Net()


def wait_up(ai, insp, count=1):
    wait_for("agentircd logs the link up", lambda: ai.log_text().count(
        "link %s: up, server id 1IN" % INSP_NAME) >= count)
    wait_for("agentircd receives the burst", lambda: ai.log_text().count(
        "link %s: burst received" % INSP_NAME) >= count)
    wait_for("InspIRCd logs our burst", lambda: insp.log_text().count(
        "Received end of netburst from irc.test") >= count)


def names(c, chan, prefixes=False):
    """The nicks in chan's NAMES, without their prefixes (or with them)."""
    c.send("NAMES %s" % chan)
    out = []
    for l in c.collect_until(r" 366 \S+ %s " % re.escape(chan)):
        m = parse(l)
        if m.command == "353":
            out += [n if prefixes else n.lstrip("~&@%+")
                    for n in m.params[-1].split()]
    return out


def whois(c, nick):
    c.send("WHOIS %s" % nick)
    return [parse(l) for l in c.collect_until(r" 318 ")]


# ---------------------------------------------------------------- tests

def test_lk1_config_check():
    """LK-1: agentircd -n checks [link] sections and says file:line."""
    d = tempfile.mkdtemp(prefix="agentircd-lkconf-")
    DIRS.append(d)
    conf = os.path.join(d, "agentircd.conf")
    with open(conf, "w") as f:
        f.write("[server]\nname = irc.test\nsid = 0AI\n\n[link irc.peer.test]\n"
                "address = 192.0.2.1:7001\nsend-password = x\n"
                "receive-password = %s\n" % RECV_HASH)
    os.chmod(d, 0o700)
    os.chmod(conf, 0o600)
    r = subprocess.run([daemon_path(), "-n", "-f", conf], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=30)
    if r.returncode == 0 or "agentircd.conf:5: [link irc.peer.test] needs " \
            "fingerprint" not in r.stdout:
        raise TestFailure("agentircd -n: %d %r" % (r.returncode, r.stdout))
    with open(conf, "a") as f:
        f.write("fingerprint = %s\n" % ("ab" * 32))
    r = subprocess.run([daemon_path(), "-n", "-f", conf], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=30)
    if r.returncode != 0 or "configuration OK" not in r.stdout:
        raise TestFailure("agentircd -n: %d %r" % (r.returncode, r.stdout))


def test_lk1_links_as_a_leaf():
    """LK-1: agentircd connects, both sides authenticate and burst, LINKS shows it."""
    insp, ai = NET()
    text = ai.log_text()
    for want in ("link irc.insp.test: connected to 127.0.0.1:%d" % insp.sport,
                 "link irc.insp.test: burst sent"):
        if want not in text:
            raise TestFailure("agentircd log lacks %r" % want)
    if "Bursting to irc.test (Authentication: plaintext password)" \
            not in insp.log_text():
        raise TestFailure("InspIRCd did not log the link")
    c = Client(insp, "lkwatch")
    c.send("LINKS")
    lines = [parse(l) for l in c.collect_until(r" 365 ")]
    if not any(m.command == "364" and m.params[1] == "irc.test" for m in lines):
        raise TestFailure("LINKS on InspIRCd lacks irc.test: %r" % [m.raw for m in lines])
    c.quit()


def test_lk2_people_talk_both_ways():
    """LK-2: a channel with a person on each server; messages, joins, parts, nick
    changes, private messages and quits cross both ways; WHOIS names the server."""
    insp, ai = NET()
    alice = Client(ai, "alice")
    alice.join("#talk")
    bob = Client(insp, "bob")
    bob.join("#talk")
    alice.expect(r"^:bob!\S+ JOIN :?#talk")
    wait_for("alice in InspIRCd's NAMES", lambda: "alice" in names(bob, "#talk"))
    if "bob" not in names(alice, "#talk"):
        raise TestFailure("bob not in agentircd's NAMES")
    alice.send("PRIVMSG #talk :hello from agentircd")
    bob.expect(r"^(@\S+ )?:alice!\S+ PRIVMSG #talk :hello from agentircd$")
    bob.send("PRIVMSG #talk :hello from inspircd")
    alice.expect(r"^(@\S+ )?:bob!\S+ PRIVMSG #talk :hello from inspircd$")
    alice.send("PRIVMSG bob :psst")
    bob.expect(r"^(@\S+ )?:alice!\S+ PRIVMSG bob :psst$")
    bob.send("PRIVMSG alice :back")
    alice.expect(r"^(@\S+ )?:bob!\S+ PRIVMSG alice :back$")
    bob.send("NOTICE #talk :a notice")
    alice.expect(r"^(@\S+ )?:bob!\S+ NOTICE #talk :a notice$")
    w = whois(alice, "bob")
    if not any(m.command == "312" and m.params[2] == INSP_NAME for m in w):
        raise TestFailure("WHOIS bob on agentircd: %r" % [m.raw for m in w])
    w = whois(bob, "alice")
    if not any(m.command == "312" and m.params[2] == "irc.test" for m in w):
        raise TestFailure("WHOIS alice on InspIRCd: %r" % [m.raw for m in w])
    bob.send("NICK bobby")
    alice.expect(r"^:bob!\S+ NICK :?bobby$")
    alice.send("NICK alicia")
    bob.expect(r"^:alice!\S+ NICK :?alicia$")
    # AWAY both ways: each WHOIS shows the other's away message, then none.
    alice.send("AWAY :at lunch")
    alice.expect_numeric(306)
    bob.send("AWAY :in a meeting")
    bob.expect(r" 306 ")
    wait_for("alicia away on InspIRCd", lambda: any(
        m.command == "301" and m.params[-1] == "at lunch" for m in whois(bob, "alicia")))
    wait_for("bobby away on agentircd", lambda: any(
        m.command == "301" and m.params[-1] == "in a meeting"
        for m in whois(alice, "bobby")))
    alice.send("AWAY")
    alice.expect_numeric(305)
    bob.send("AWAY")
    bob.expect(r" 305 ")
    wait_for("alicia back on InspIRCd", lambda: not any(
        m.command == "301" for m in whois(bob, "alicia")))
    wait_for("bobby back on agentircd", lambda: not any(
        m.command == "301" for m in whois(alice, "bobby")))
    alice.send("TOPIC #talk :linked topic")
    bob.expect(r"^:alicia!\S+ TOPIC #talk :linked topic$")
    bob.send("PART #talk :see you")
    alice.expect(r"^:bobby!\S+ PART #talk :see you$")
    bob.join("#talk")
    alice.expect(r"^:bobby!\S+ JOIN :?#talk")
    alice.send("PART #talk :later")
    bob.expect(r"^:alicia!\S+ PART #talk :later$")
    alice.join("#talk")
    bob.expect(r"^:alicia!\S+ JOIN :?#talk")
    bob.quit("gone")
    alice.expect(r"^:bobby!\S+ QUIT :(Quit: )?gone$")
    alice.quit()


def test_lk4_history_of_remote_messages():
    """LK-4: what a person on InspIRCd says in a channel with members here is stored
    and served by CHATHISTORY, to someone who joins later."""
    insp, ai = NET()
    gina = Client(ai, "gina")
    gina.join("#hist")
    hank = Client(insp, "hank")
    hank.join("#hist")
    gina.expect(r"^:hank!\S+ JOIN :?#hist")
    hank.send("PRIVMSG #hist :remember this")
    gina.expect(r"^(@\S+ )?:hank!\S+ PRIVMSG #hist :remember this$")
    late = Client(ai)
    late.nick = "late"
    late.send("CAP REQ :draft/chathistory server-time message-tags")
    late.expect(r"CAP \S+ ACK")
    late.send("CAP END")
    late.register("late")
    late.join("#hist")
    late.send("CHATHISTORY LATEST #hist * 10")
    lines = late.sync()
    if not [l for l in lines if re.search(r":hank!\S+ PRIVMSG #hist :remember this$", l)]:
        raise TestFailure("CHATHISTORY lacks hank's line: %r" % lines)
    for c in (late, hank, gina):
        c.quit()


def test_lk2_agent_seen_and_answers():
    """LK-2: a person on InspIRCd sees the agent in NAMES and WHOIS (bot), mentions it
    and gets its answer from agentircd."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    insp, ai = NET()
    carol = Client(insp)
    carol.nick = "carol"
    carol.send("CAP REQ :message-tags")
    carol.expect(r"CAP \S+ ACK")
    carol.send("CAP END")
    carol.register("carol")
    lines = carol.join("#lk")
    if "echo" not in names(carol, "#lk"):
        raise TestFailure("echo not in NAMES #lk on InspIRCd: %r" % lines)
    w = whois(carol, "echo")
    if not any(m.command == "335" for m in w):
        raise TestFailure("WHOIS echo on InspIRCd shows no bot line: %r"
                          % [m.raw for m in w])
    if not any(m.command == "312" and m.params[2] == "irc.test" for m in w):
        raise TestFailure("WHOIS echo: not on irc.test: %r" % [m.raw for m in w])
    carol.send("PRIVMSG #lk :@echo hello over the link")
    # Client-only tags cross too: the agent's typing notice (TAGMSG).
    carol.expect(r"^@\S*\+typing=active\S* :echo!\S+ TAGMSG :?#lk$", timeout=30)
    m = carol.expect_msg(r"^(@\S+ )?:echo!\S+ PRIVMSG #lk :.*echo: .*hello over the link",
                         timeout=30)
    if "carol" not in m.params[1]:
        raise TestFailure("the answer does not name the asker: %r" % m.raw)
    # A private query from the other server, answered privately.
    carol.send("PRIVMSG echo :just between us")
    carol.expect_msg(r"^(@\S+ )?:echo!\S+ PRIVMSG carol :.*just between us", timeout=30)
    # An agent invited later joins on both servers.
    alice = Client(ai, "alice3")
    alice.join("#inv")
    carol.join("#inv")
    alice.expect(r"^:carol!\S+ JOIN :?#inv")
    alice.send("INVITE echo #inv")
    carol.expect(r"^(@\S+ )?:echo!\S+ JOIN :?#inv", timeout=10)
    alice.quit()
    carol.quit()


def test_lk2_remote_person_answers_a_card():
    """LK-2, PM-1, PM-2: a person on InspIRCd runs an agent's slash command that asks
    permission; the card reaches InspIRCd's channel, the person answers it with
    !allow from there, and the agent goes on (its answer crosses back)."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    insp, ai = NET()
    dora = Client(insp, "dora")
    dora.join("#lk")
    wait_for("echo in NAMES", lambda: "echo" in names(dora, "#lk"))
    dora.send("PRIVMSG #lk :/perm cross the link")
    m = dora.expect_msg(r"^(@\S+ )?:echo!\S+ NOTICE #lk :card \d+: echo asks to run",
                        timeout=30)
    n = int(re.search(r"card (\d+):", m.params[-1]).group(1))
    if "!allow" not in m.params[-1]:
        raise TestFailure("card without !allow: %r" % m.raw)
    # Somebody on agentircd who did not ask may not answer it (PM-2).
    vic = Client(ai, "vic")
    vic.join("#lk")
    vic.send("PRIVMSG #lk :!allow")
    vic.expect(r"NOTICE #lk :card %d: only dora or a channel operator may answer it"
               % n, timeout=10)
    dora.send("PRIVMSG #lk :!allow")
    dora.expect(r"^(@\S+ )?:echo!\S+ NOTICE #lk :card %d: allowed by dora" % n,
                timeout=10)
    dora.expect(r"^(@\S+ )?:echo!\S+ PRIVMSG #lk :.*permission granted \(allow-once\)",
                timeout=30)
    vic.quit()
    dora.quit()


def test_lk2_follow_up_and_commands_from_inspircd():
    """LK-2, RT-3, CM-6: a person on InspIRCd uses an agent as a local person does:
    a follow-up without a name reaches the agent that answered, and a ! command is
    answered by this server with a NOTICE that reaches that person across the link."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    insp, ai = NET()
    flo = Client(insp, "flo")
    flo.join("#lkf")
    alice = Client(ai, "alice9")
    alice.join("#lkf")
    flo.expect(r"^:alice9!\S+ JOIN :?#lkf")
    alice.send("INVITE echo #lkf")
    flo.expect(r"^(@\S+ )?:echo!\S+ JOIN :?#lkf", timeout=10)
    flo.send("PRIVMSG #lkf :@echo first question")
    flo.expect(r"^(@\S+ )?:echo!\S+ PRIVMSG #lkf :.*echo: .*first question", timeout=30)
    flo.send("PRIVMSG #lkf :and a follow-up")
    flo.expect(r"^(@\S+ )?:echo!\S+ PRIVMSG #lkf :.*echo: .*and a follow-up",
               timeout=30)
    flo.send("PRIVMSG #lkf :!status")
    flo.expect(r"^(@\S+ )?:irc\.test NOTICE flo :.*echo: (idle|answering)", timeout=10)
    alice.quit()
    flo.quit()


def test_lk2_invites_cross():
    """LK-2: a person on InspIRCd INVITEs an agent of ours into a channel and it
    joins, as for a local person; a person here INVITEs one on InspIRCd into a +i
    channel, who is told (INVITE) and may then join it there."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    insp, ai = NET()
    gus = Client(insp, "gus")
    gus.join("#linv")
    gus.send("INVITE echo #linv")
    gus.expect(r"^(@\S+ )?:echo!\S+ JOIN :?#linv", timeout=10)
    hal = Client(ai, "hal")
    hal.join("#lonly")
    hal.send("MODE #lonly +i")
    hal.expect(r" MODE #lonly \+i$")
    ivy = Client(insp, "ivy")
    wait_for("ivy known here", lambda: any(
        m.command == "312" for m in whois(hal, "ivy")))
    ivy.send("JOIN #lonly")
    ivy.expect(r" 473 ivy #lonly ")
    hal.send("INVITE ivy #lonly")
    hal.expect(r" 341 hal ivy #lonly")
    ivy.expect(r"^(@\S+ )?:hal!\S+ INVITE ivy :?#lonly$", timeout=10)
    ivy.send("JOIN #lonly")
    hal.expect(r"^(@\S+ )?:ivy!\S+ JOIN :?#lonly", timeout=10)
    for c in (gus, hal, ivy):
        c.quit()


def test_lk1_wrong_passwords_refused():
    """LK-1: a peer with the wrong password is refused with an ERROR and a log line;
    so is agentircd when it sends the wrong one."""
    insp, ai = pair(insp_kw={"sendpass": "not-the-password"})
    wait_for("agentircd refuses the password", lambda:
             "link irc.insp.test: Invalid password for link irc.insp.test"
             in ai.log_text())
    wait_for("InspIRCd receives the ERROR", lambda:
             "Invalid password for link irc.insp.test" in insp.log_text())
    if "link irc.insp.test: up" in ai.log_text():
        raise TestFailure("the link came up with a wrong password")
    ai.stop()
    insp.stop()
    insp, ai = pair(link_kw={"send": "wrong-too"})
    wait_for("agentircd logs InspIRCd's ERROR", lambda:
             "link irc.insp.test: the peer says: Mismatched server name or password"
             in ai.log_text())
    if "link irc.insp.test: up" in ai.log_text():
        raise TestFailure("the link came up with a wrong password")
    ai.stop()
    insp.stop()


def certificate(d, name):
    key, cert = os.path.join(d, name + ".key"), os.path.join(d, name + ".pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2", "-subj",
                    "/CN=" + name], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    r = subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in",
                        cert], check=True, stdout=subprocess.PIPE, text=True)
    return cert, key, r.stdout.strip().split("=", 1)[1]


def test_lk1_tls_with_a_pinned_fingerprint():
    """LK-1: over TLS the peer's certificate must be the pinned one: the right one
    links, another is refused with an ERROR and a log line."""
    if shutil.which("openssl") is None:
        raise SkipTest("openssl missing")
    d = tempfile.mkdtemp(prefix="agentircd-lkcert-")
    DIRS.append(d)
    cert, key, fp = certificate(d, "insp")
    _, _, other = certificate(d, "other")
    insp, ai = pair(insp_kw={"tls": (cert, key)},
                    link_kw={"tls": True, "fingerprint": fp})
    wait_up(ai, insp)
    if "link irc.insp.test: connected to 127.0.0.1:%d (TLS)" % insp.sport \
            not in ai.log_text():
        raise TestFailure("not over TLS:\n%s" % ai.log_tail())
    ai.stop()
    insp.stop()
    insp, ai = pair(insp_kw={"tls": (cert, key)},
                    link_kw={"tls": True, "fingerprint": other})
    want = "Invalid TLS certificate fingerprint %s - expected %s" % (
        fp.replace(":", "").lower(), other.replace(":", "").lower())
    wait_for("agentircd refuses the certificate", lambda: want in ai.log_text())
    wait_for("InspIRCd receives the ERROR", lambda: want in insp.log_text())
    if "link irc.insp.test: up" in ai.log_text():
        raise TestFailure("the link came up with another certificate")
    ai.stop()
    insp.stop()


def test_lk1_hostile_peer():
    """LK-1, SEC: malformed and hostile lines from an authenticated peer are ignored
    or refused; a line past the protocol's limit ends the link with an ERROR; the
    server goes on, and the split quits the peer's users."""
    fake = FakePeer()
    ai = Server(config_extra="[link irc.fake.test]\naddress = 127.0.0.1:%d\n"
                "send-password = ai-pass\nreceive-password = %s\ntls = no\n"
                % (fake.sport, hash_password("fake-pass")),
                flood_exempt="127.0.0.0/8")
    alice = Client(ai, "alice4")
    alice.join("#h")
    fake.handshake()
    fake.expect(r"^:\w{3} BURST \d+$")
    uid = fake.expect(r"^:\w{3} UID \w{9} \d+ alice4 ").split()[2]
    fake.expect(r"^:\w{3} ENDBURST$")
    for l in [
            ":9FK BURST 1",
            ":9FK UID 9FKAAAAAA 1 mallory h.fake h.fake mal 127.0.0.1 1 +i :Mallory",
            ":9FK UID 9FKAAAAAB",
            ":9FK UID 8XXAAAAAC 1 x h h u 1.2.3.4 1 + :not its server",
            ":9FK UID 9FKAAAAAD 1 evil h!x h!x u 1.1.1.1 1 + :bad host",
            # A nick of ours, claimed later than ours was (LK-2: it loses).
            ":9FK UID 9FKAAAAAE 4000000000 alice4 h h u 1.1.1.1 1 + :a nick of ours",
            ":9FK UID 9FKAAAAAF 1 " + "n" * 60 + " h h u 1.1.1.1 1 + :long nick",
            ":9FK FJOIN #h 1 +nt :o,9FKAAAAAA:1 garbage ,ZZZ ,9FKZZZZZZ:1 "
            "qaohv0123456789abcdef,9FKAAAAAE:2",
            ":9FK FJOIN nochan 1 + :,9FKAAAAAA:3",
            ":9FK FJOIN #h 1 + :,9FKAAAAAE:4",
            ":9FKAAAAAA PRIVMSG #h :hi there",
            ":9FKAAAAAA PRIVMSG",
            ":1AB PRIVMSG #h :from an unknown server",
            ":9FKZZZZZZ PRIVMSG #h :from an unknown user",
            ":A PRIVMSG #h :a short source",
            ":9FKAAAAAA FMODE #h 1 +qzk-o+b x y",
            ":9FKAAAAAA FMODE #h 1 +" + "v" * 40,
            ":9FK FTOPIC #h 1 1 setter :" + "t" * 5000,
            ":9FKAAAAAA KICK #h 000AAAAAA :x",
            ":9FK SQUIT 9FK :itself",
            ":9FK SQUIT ZZZ :nothing",
            ":9FK METADATA 9FKAAAAAA accountname :with space",
            ":9FKAAAAAA AWAY 1 :" + "a" * 1000,
            ":9FKAAAAAA NICK " + "x" * 100 + " 1",
            ":9FK X " + " p" * 40,
            b":9FK PING \x00nul",
            ":9FKAAAAAA IDLE %s" % uid,
            ":9FK PING " + uid[:3],
            ":9FK ENDBURST"]:
        fake.send(l)
    fake.expect(r"^:\w{3} SAVE 9FKAAAAAE \d+$")
    fake.expect(r"^:\w{3} SAVE 9FKAAAAAA \d+$")
    fake.expect(r"^:%s IDLE 9FKAAAAAA \d+ \d+$" % uid)
    fake.expect(r"^:%s PONG 9FK$" % uid[:3])
    alice.expect(r"^:mallory!mal@h.fake JOIN :?#h")
    alice.expect(r"^:mallory!\S+ PRIVMSG #h :hi there$")
    got = alice.expect_msg(r"^:\S+ TOPIC #h :t+$")
    if len(got.params[1]) > 390:
        raise TestFailure("a topic of %d bytes kept" % len(got.params[1]))
    # A nick too long for this server: saved as its UUID too.
    alice.expect(r"^:mallory!\S+ NICK :9FKAAAAAA$")
    nicks = names(alice, "#h")
    if sorted(nicks) != ["9FKAAAAAA", "9FKAAAAAE", "alice4"]:
        raise TestFailure("the colliding user is not saved as its UUID: %r" % nicks)
    # A line past 8191 + 512 bytes: the link ends with an ERROR.
    fake.send("@" + "a" * 9000 + " :9FK PING x")
    fake.expect(r"^ERROR :Line too long")
    if not fake.closed():
        raise TestFailure("the link stayed open after a line too long")
    alice.expect(r"^:9FKAAAAAA!\S+ QUIT :irc.test irc.fake.test$")
    alice.sync()
    if "link irc.fake.test: Line too long" not in ai.log_text():
        raise TestFailure("no log line for the line too long:\n" + ai.log_tail())
    alice.quit()
    ai.stop()


def test_lk1_accepts_a_link():
    """LK-1: with autoconnect = no, agentircd waits for the peer: InspIRCd connects
    to a links = yes listener (TLS, both certificates pinned), both burst, people
    talk; a second connection, and one from an address no [link] has, are refused
    with an ERROR."""
    if shutil.which("openssl") is None:
        raise SkipTest("openssl missing")
    d = tempfile.mkdtemp(prefix="agentircd-lkcert-")
    DIRS.append(d)
    icert, ikey, ifp = certificate(d, "insp")
    acert, akey, afp = certificate(d, "ai")
    insp, ai = pair(
        insp_kw={"tls": (icert, ikey), "autoconnect": True, "link_tls": True,
                 "fingerprint": afp.replace(":", "").lower()},
        link_kw={"tls": True, "fingerprint": ifp, "autoconnect": False},
        listen="[listen]\naddress = 127.0.0.1:%%d\nlinks = yes\ntls-cert = %s\n"
               "tls-key = %s\n\n" % (acert, akey))
    wait_up(ai, insp)
    text = ai.log_text()
    if "link irc.insp.test: connection from 127.0.0.1 (TLS)" not in text or \
            "connected by the peer" not in text:
        raise TestFailure("not an accepted TLS link:\n" + ai.log_tail())
    if "link irc.insp.test: connecting" in text:
        raise TestFailure("agentircd connected out with autoconnect = no")
    ivy = Client(ai, "ivy")
    ivy.join("#acc")
    jon = Client(insp, "jon")
    jon.join("#acc")
    ivy.expect(r"^:jon!\S+ JOIN :?#acc")
    jon.send("PRIVMSG #acc :over an accepted link")
    ivy.expect(r"^(@\S+ )?:jon!\S+ PRIVMSG #acc :over an accepted link$")
    ivy.send("PRIVMSG #acc :and back")
    jon.expect(r"^(@\S+ )?:ivy!\S+ PRIVMSG #acc :and back$")
    # The link is taken: a second server connection from there is refused.
    lport = int(re.search(r"address = 127.0.0.1:(\d+)\nlinks = yes",
                          ai.config_text).group(1))
    import ssl as _ssl
    ctx = _ssl.SSLContext(_ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = _ssl.CERT_NONE
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", lport), timeout=5))
    data = b""
    while True:
        try:
            b = s.recv(4096)
        except (OSError, _ssl.SSLError):
            break
        if not b:
            break
        data += b
    s.close()
    if b"ERROR :This link is connected already" not in data:
        raise TestFailure("a second connection got %r" % data)
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.bind(("127.0.0.2", 0))
    raw.settimeout(5)
    raw.connect(("127.0.0.1", lport))
    s = ctx.wrap_socket(raw)
    data = b""
    while True:
        try:
            b = s.recv(4096)
        except (OSError, _ssl.SSLError):
            break
        if not b:
            break
        data += b
    s.close()
    if b"ERROR :No link is configured for your address" not in data:
        raise TestFailure("a connection from 127.0.0.2 got %r" % data)
    if "a server connection from 127.0.0.2 refused" not in ai.log_text():
        raise TestFailure("no log line for 127.0.0.2:\n" + ai.log_tail())
    for c in (ivy, jon):
        c.quit()
    ai.stop()
    insp.stop()


def test_lk1_accepts_a_link_by_name():
    """LK-1: a [link] whose address is a host name (localhost, in /etc/hosts)
    accepts its peer when it connects from an address the name stands for."""
    insp, ai = pair(insp_kw={"autoconnect": True},
                    link_kw={"autoconnect": False, "host": "localhost"},
                    listen="[listen]\naddress = 127.0.0.1:%d\nlinks = yes\n\n")
    wait_up(ai, insp)
    if "link irc.insp.test: connection from 127.0.0.1" not in ai.log_text():
        raise TestFailure("not an accepted link:\n" + ai.log_tail())
    kay = Client(ai, "kay")
    kay.join("#byname")
    lou = Client(insp, "lou")
    lou.join("#byname")
    kay.expect(r"^:lou!\S+ JOIN :?#byname")
    kay.quit()
    lou.quit()
    ai.stop()
    insp.stop()


def test_lk5_two_agentircd_servers():
    """LK-5 (a first part): two agentircd servers link, one accepting, one
    connecting; a person on the second uses the first's agent (a bot there too),
    and people on both talk."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    lport = free_port()
    a = Server(config_extra="[listen]\naddress = 127.0.0.1:%d\nlinks = yes\n\n"
               "[link irc.b.test]\naddress = 127.0.0.1:1\nsend-password = a-pass\n"
               "receive-password = %s\ntls = no\nautoconnect = no\n\n%s"
               % (lport, hash_password("b-pass"), agent_section("helper", "#five")),
               flood_exempt="127.0.0.0/8")
    b = server_b("[link irc.test]\naddress = 127.0.0.1:%d\n"
                 "send-password = b-pass\nreceive-password = %s\ntls = no\n"
                 % (lport, hash_password("a-pass")))
    wait_for("A up", lambda: "link irc.b.test: up" in a.log_text())
    wait_for("B up", lambda: "link irc.test: up" in b.log_text())
    kim = Client(b, "kim")
    kim.join("#five")
    if "helper" not in names(kim, "#five"):
        raise TestFailure("helper not in NAMES on B")
    w = whois(kim, "helper")
    if not any(m.command == "335" for m in w) or \
            not any(m.command == "312" and m.params[2] == "irc.test" for m in w):
        raise TestFailure("WHOIS helper on B: %r" % [m.raw for m in w])
    lee = Client(a, "lee")
    lee.join("#five")
    kim.expect(r"^:lee!\S+ JOIN :?#five")
    kim.send("PRIVMSG #five :@helper hi from b")
    lee.expect(r"^(@\S+ )?:kim!\S+ PRIVMSG #five :@helper hi from b$")
    kim.expect_msg(r"^(@\S+ )?:helper!\S+ PRIVMSG #five :.*echo: .*hi from b",
                   timeout=30)
    lee.send("PRIVMSG #five :hello kim")
    kim.expect(r"^(@\S+ )?:lee!\S+ PRIVMSG #five :hello kim$")
    for c in (kim, lee):
        c.quit()
    b.stop()
    a.stop()


def server_b(config_extra, **kw):
    """A second agentircd, irc.b.test, started with config_extra."""
    b = Server(config_extra=config_extra, flood_exempt="127.0.0.0/8", start=False,
               **kw)
    b.name = "irc.b.test"
    b.config_text = b.config_text.replace("name = irc.test", "name = irc.b.test")
    with open(b.conf, "w") as f:
        f.write(b.config_text)
    b.start()
    return b


def fake_pair(extra="", **server_kw):
    """agentircd linked to a FakePeer (irc.fake.test, SID 9FK), handshake done;
    extra: more of agentircd's config."""
    fake = FakePeer()
    ai = Server(config_extra="[link irc.fake.test]\naddress = 127.0.0.1:%d\n"
                "send-password = ai-pass\nreceive-password = %s\ntls = no\n\n%s"
                % (fake.sport, hash_password("fake-pass"), extra),
                flood_exempt="127.0.0.0/8", **server_kw)
    fake.handshake(capab=(
        "CAPAB CHANMODES :list:ban=b list:banexception=e param:flood=f "
        "prefix:20000:halfop=%h simple:noctcp=C simple:secret=s",
        "CAPAB CAPABILITIES :CASEMAPPING=rfc1459"))
    fake.expect(r"^:\w{3} ENDBURST$")
    return fake, ai


def test_lk2_network_accounts_are_principals():
    """LK-2, AU-2: a person of a linked server is the account its server gives it
    (METADATA accountname): an agent whose users name that account answers them,
    and refuses, with a NOTICE that crosses the link, one without it, or the same
    person once logged out."""
    if not HAVE_AGENT:
        raise SkipTest("node or tests/agents/node_modules missing")
    gate = ("[agent gate]\ncommand = %s %s %s-gate\nchannels = #au\n"
            "description = the echo agent\nusers = acct1\n\n"
            "[account acct1]\npassword = %s\n\n" % (NODE, ECHO, TOKEN, RECV_HASH))
    fake, ai = fake_pair(extra=gate)
    for l in (":9FK UID 9FKAAAAAA 1000 amy h.fake h.fake amy 192.0.2.1 1000 + :Amy",
              ":9FK METADATA 9FKAAAAAA accountname :acct1",
              ":9FK UID 9FKAAAAAB 1000 bo h.fake h.fake bo 192.0.2.2 1000 + :Bo",
              ":9FK FJOIN #au 4000000000 + :,9FKAAAAAA:1 ,9FKAAAAAB:1",
              ":9FKAAAAAB PRIVMSG #au :@gate hello from bo"):
        fake.send(l)
    fake.expect(r"NOTICE 9FKAAAAAB :.*gate talks only to people logged in", timeout=15)
    fake.send(":9FKAAAAAA PRIVMSG #au :@gate hello from amy")
    fake.expect(r"^(@\S+ )?:\w{9} PRIVMSG #au :.*hello from amy", timeout=30)
    # Logged out on its server: the same person is refused now.
    fake.send(":9FK METADATA 9FKAAAAAA accountname :")
    fake.send(":9FKAAAAAA PRIVMSG #au :@gate again from amy")
    fake.expect(r"NOTICE 9FKAAAAAA :.*gate talks only to people logged in", timeout=15)
    ai.stop()


def test_lk2_timestamps():
    """LK-2, LK-3: the older channel wins. An FJOIN with an older time takes our
    modes and prefixes away and brings the peer's; a newer one brings members
    without prefixes; an FMODE for a newer channel is ignored; bans cross."""
    fake, ai = fake_pair()
    alice = Client(ai, "alice5")
    alice.join("#ts")
    alice.send("MODE #ts +m")
    alice.expect(r" MODE #ts \+m$")
    fake.expect(r"^:\w{3} FJOIN #ts \d+ \+nt :o,")
    fake.send(":9FK UID 9FKAAAAAA 1 mallory h.fake h.fake mal 127.0.0.1 1 +i :M")
    fake.send(":9FK UID 9FKAAAAAB 1 oscar h.fake h.fake osc 127.0.0.1 1 +i :O")
    fake.send(":9FK FJOIN #ts 1000 +ntk sekrit :o,9FKAAAAAA:1")
    alice.expect(r"^:irc.fake.test MODE #ts -o alice5$")
    alice.expect(r"^:irc.fake.test MODE #ts -m")
    alice.expect(r"^:mallory!\S+ JOIN :?#ts")
    alice.expect(r"^:irc.fake.test MODE #ts \+o mallory$")
    alice.expect(r"^:irc.fake.test MODE #ts \+ntk sekrit$")
    fake.send(":9FK FMODE #ts 1000 +b *!*@bad.example")
    alice.expect(r"^:irc.fake.test MODE #ts \+b \*!\*@bad.example$")
    # Newer than ours now (1000): no prefixes, no modes.
    fake.send(":9FK FJOIN #ts 2000 +s :o,9FKAAAAAB:2")
    alice.expect(r"^:oscar!\S+ JOIN :?#ts")
    fake.send(":9FK FMODE #ts 2000 +i")
    alice.send("NAMES #ts")
    got = alice.collect_until(r" 366 ")
    n = [l for l in got if " 353 " in l][0]
    if "@mallory" not in n or "@alice5" in n or "@oscar" in n:
        raise TestFailure("prefixes after the merges: %r" % n)
    alice.send("MODE #ts")
    m = alice.expect_msg(r" 324 ")
    if m.params[2:] != ["+ntk", "sekrit"]:
        raise TestFailure("modes after the merges: %r" % m.raw)
    # Modes this server does not keep (f, h) are skipped with their
    # parameters, as the peer's CAPAB CHANMODES says they take them; C and e
    # it keeps (issue 27).
    fake.send(":9FK FMODE #ts 1000 +Cefhm *!*@x 3:5 9FKAAAAAA")
    alice.expect(r"^:irc.fake.test MODE #ts \+Cem \*!\*@x$")
    alice.quit()
    ai.stop()


def test_lk1_ping_timeout():
    """LK-1: a silent peer is pinged after ping-interval; one that answers stays,
    one that does not is dropped with an ERROR after ping-timeout more."""
    fake, ai = fake_pair(ping_interval=2, ping_timeout=3)
    sid = fake.expect(r"^:(\w{3}) PING 9FK$", timeout=15).split()[0][1:]
    fake.send(":9FK PONG %s" % sid)
    fake.expect(r"^:%s PING 9FK$" % sid, timeout=15)
    fake.expect(r"^ERROR :Ping timeout", timeout=20)
    if not fake.closed():
        raise TestFailure("the link stayed open after the ping timeout")
    if "link irc.fake.test: Ping timeout" not in ai.log_text():
        raise TestFailure("no log line:\n" + ai.log_tail())
    ai.stop()


def test_lk1_reload_keeps_links():
    """LK-1: a reload (SIGHUP) that leaves a [link] section as it was keeps its
    link as it is; one that changes it closes the link with an ERROR and opens it
    again with the new settings."""
    fake, ai = fake_pair()
    sid = re.search(r"server id (\w{3})", ai.log_text()).group(1)
    ai.proc.send_signal(signal.SIGHUP)
    wait_for("the reload", lambda: "rehashed" in ai.log_text())
    fake.send(":9FK PING %s" % sid)
    fake.expect(r"^:\w{3} PONG 9FK$")
    with open(ai.conf) as f:
        text = f.read()
    with open(ai.conf, "w") as f:
        f.write(text.replace("send-password = ai-pass", "send-password = other"))
    ai.proc.send_signal(signal.SIGHUP)
    fake.expect(r"^ERROR :Link configuration changed$")
    fake.accept()
    fake.buf = b""
    fake.expect(r"^CAPAB END$")
    for l in ("CAPAB START 1205", "CAPAB CAPABILITIES :CASEMAPPING=rfc1459",
              "CAPAB END"):
        fake.send(l)
    fake.expect(r"^SERVER irc.test other 0 \w{3} :")
    ai.stop()


def test_lk3_split_and_relink():
    """LK-3: when the link is lost the remote users quit with the split reason; the
    link comes back by itself and the burst brings them back."""
    insp, ai = NET()
    dave = Client(ai, "dave")
    dave.join("#split")
    erin = Client(insp, "erin")
    erin.join("#split")
    dave.expect(r"^:erin!\S+ JOIN :?#split")
    insp.stop()
    dave.expect(r"^:erin!\S+ QUIT :%s$" % re.escape(SPLIT), timeout=10)
    wait_for("agentircd logs the split", lambda: "link irc.insp.test: split" in
             ai.log_text())
    insp.start()
    wait_up(ai, insp, count=2)
    frank = Client(insp, "frank")
    frank.join("#split")
    dave.expect(r"^:frank!\S+ JOIN :?#split", timeout=10)
    if "dave" not in names(frank, "#split"):
        raise TestFailure("dave not back in InspIRCd's NAMES")
    frank.quit()
    dave.quit()


# InspIRCd 3's modules for issue 27's modes and extbans.
EXCEPTION_MODULES = "".join('<module name="%s">\n' % m for m in (
    "banexception", "inviteexception", "noctcp", "muteban", "services_account"))


def lists(c, chan, letter, end):
    """The masks of list mode letter of chan, as c's server lists them."""
    c.send("MODE %s %s" % (chan, letter))
    masks = []
    for l in c.collect_until(r" %d \S+ %s " % (end, re.escape(chan))):
        m = parse(l)
        if m.command in ("346", "348", "367") and m.params[1] == chan:
            masks.append(m.params[2])
    return masks


def test_lk2_exceptions_and_noctcp_cross():
    """Issue 27, LK-2: ban exceptions +e, invite exceptions +I and +C cross the link
    both ways with InspIRCd 3's banexception, inviteexception and noctcp: as FMODE,
    and in the burst (FJOIN's modes, the lists as FMODE); InspIRCd's extbans m: and
    R: arrive as they are."""
    insp, ai = pair(insp_kw={"extra": EXCEPTION_MODULES})
    wait_up(ai, insp)
    alice = Client(ai, "alice")
    alice.join("#ex1")
    bob = Client(insp, "bob")
    bob.join("#ex1")
    alice.expect(r"^:bob!\S+ JOIN :?#ex1")
    alice.send("MODE #ex1 +e *!*@good.example")
    bob.expect(r"^:alice!\S+ MODE #ex1 \+e :?\*!\*@good\.example$")
    alice.send("MODE #ex1 +I *!*@friend.example")
    bob.expect(r"^:alice!\S+ MODE #ex1 \+I :?\*!\*@friend\.example$")
    alice.send("MODE #ex1 +C")
    bob.expect(r"^:alice!\S+ MODE #ex1 :?\+C$")
    if lists(bob, "#ex1", "e", 349) != ["*!*@good.example"]:
        raise TestFailure("+e not on InspIRCd")
    if lists(bob, "#ex1", "I", 347) != ["*!*@friend.example"]:
        raise TestFailure("+I not on InspIRCd")
    # The other way: a channel InspIRCd made, its op there sets them.
    bob.join("#ex2")
    alice.join("#ex2")
    bob.expect(r"^:alice!\S+ JOIN :?#ex2")
    for change, rx in (("+e *!*@b.example", r"\+e \*!\*@b\.example"),
                       ("+I *!*@c.example", r"\+I \*!\*@c\.example"),
                       ("+C", r"\+C"),
                       ("+b m:*!*@muted.example", r"\+b m:\*!\*@muted\.example"),
                       ("+b R:someone", r"\+b R:someone")):
        bob.send("MODE #ex2 %s" % change)
        alice.expect(r"^:bob\S* MODE #ex2 %s$" % rx)
    if lists(alice, "#ex2", "b", 368) != ["m:*!*@muted.example", "R:someone"]:
        raise TestFailure("InspIRCd's extbans not kept as they are")
    alice.send("MODE #ex2")
    if "C" not in alice.expect_msg(r" 324 ").params[2]:
        raise TestFailure("+C from InspIRCd not applied")
    # The burst: InspIRCd restarts empty; our burst brings the modes back.
    bob.close()
    insp.stop()
    wait_for("agentircd logs the split", lambda: "link %s: split" % INSP_NAME
             in ai.log_text())
    insp.start()
    wait_up(ai, insp, count=2)
    carol = Client(insp, "carol")
    if lists(carol, "#ex1", "e", 349) != ["*!*@good.example"] or \
            lists(carol, "#ex1", "I", 347) != ["*!*@friend.example"]:
        raise TestFailure("the burst did not carry #ex1's lists")
    if sorted(lists(carol, "#ex2", "b", 368)) != ["R:someone", "m:*!*@muted.example"]:
        raise TestFailure("the burst did not carry #ex2's extbans")
    for chan in ("#ex1", "#ex2"):
        carol.send("MODE %s" % chan)
        if "C" not in carol.expect_msg(r" 324 ").params[2]:
            raise TestFailure("+C of %s not in the burst" % chan)
    carol.quit()
    alice.quit()
    ai.stop()
    insp.stop()

# test_link_net.py and test_link_oper.py import the harness above; run only as
# a script.
if __name__ == "__main__":
    run_tests(globals())

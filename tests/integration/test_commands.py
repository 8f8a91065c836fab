#!/usr/bin/env python3
"""Issue 8, rules CM-1..CM-6 and PM-1..PM-5: slash commands, permission cards and modes.

Real ACP agents on the official SDK talk through the daemon to raw IRC clients: the echo
agent (tests/agents/echo-agent.mjs: announces /perm <what to do> and /plan, asks
permission with the four option kinds on /perm and reports "permission granted
(allow-once)" and the like, has the session modes ask and code, echoes anything else) and
a small tool agent written here, whose permission requests carry the tool kind and path
the test asks for (/ask <kind> <path>) and offer only allow_once and reject_once.

CM-1 commands learned at first use, kept in the database, known after a daemon restart
before the agent runs again (WHOIS, !help, HELP AGENTS, !cmd); CM-2 raw text without the
transcript, !cmd as /cmd; CM-3 /a:cmd, !a:cmd, the NOTICE listing candidates, routing by
RT rules when nobody announced; CM-4 the first command opens the sessions of agents that
never announced (the one their first answer uses); CM-5 !help, WHOIS, HELP; CM-6 the
server's ! commands never reach the agent, !!text does as !text.
PM-1 the card; PM-2 who may answer (the starter of the turn, a channel operator; not
another user, not a bot, not an agent, not someone outside); !allow N with two cards;
PM-3 timeout and a card of a cancelled turn; PM-4 each policy, !policy by operators only,
cards and automatic answers in history; PM-5 !mode lists and switches, and the mode is
applied again after session/load (agent restart, daemon restart).
Issue 21 (AU-1, AU-3): loosening !policy and switching a mode need an IRC operator, so the
tests that do so OPER up first, and the agents list the modes they may be switched to.
"""

import glob
import json
import os
import re
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Server, Shared,  # noqa: E402
                        SLOW, TestFailure, daemon_path, parse, pids_matching,
                        remove_at_exit, run_tests)
from agentharness import (NODE, is_from, joined, require_agent, send,
                        until_done, write_agent)  # noqa: E402

ECHO = require_agent("echo-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-commands-")
# Every agent command line carries this token: the test counts (and at the end cleans
# up) the agent processes its own daemons started, and no others.
TOKEN = "cmdtest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
HOST = "irc.test"
CAPS = "message-tags echo-message"
HCAPS = "draft/chathistory batch server-time message-tags echo-message"

# ---------------------------------------------------------------- the tool agent

# "/ask <kind> <path>" requests permission for a tool call of that kind touching that
# path, with only allow_once and reject_once, and says "outcome <optionId|cancelled>";
# "say <text>" says text; anything else: "heard: <last line>". Announces /ask.
TOOL_AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";

let client, n = 0;
const update = (sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const say = (sid, text) => update(sid, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const app = acp
  .agent({ name: "tool-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "tool-agent", title: "Tool Agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => {
    const sid = "tool_" + (++n) + "_" + process.pid;
    setImmediate(() => update(sid, { sessionUpdate: "available_commands_update", availableCommands: [
      { name: "ask", description: "Ask to touch a path", input: { hint: "kind path" } }] }).catch(() => {}));
    return { sessionId: sid };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    const last = text.split("\n").pop();
    let m;
    if ((m = /^\/ask (\w+) (\S+)$/.exec(text))) {
      const res = await client.request(acp.methods.client.session.requestPermission, {
        sessionId: sid,
        toolCall: { toolCallId: "t" + (++n), title: "Touch " + m[2], kind: m[1], status: "pending",
                    locations: [{ path: m[2] }] },
        options: [
          { optionId: "yes", name: "Yes", kind: "allow_once" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      });
      const o = res.outcome;
      await say(sid, "outcome " + (o.outcome === "selected" ? o.optionId : o.outcome));
      return { stopReason: "end_turn" };
    }
    if ((m = /\bsay (.*)$/.exec(last))) {
      await say(sid, m[1]);
      return { stopReason: "end_turn" };
    }
    await say(sid, "heard: " + last);
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {});
"""

TOOL = write_agent(os.path.join(TMP, "tool-agent.mjs"), TOOL_AGENT)


def state_dir(name):
    d = os.path.join(TMP, "state-" + name)
    os.makedirs(d, exist_ok=True)
    return d


from ircharness import hash_password  # noqa: E402


# AU-1, AU-3: loosening !policy and switching a mode are for IRC operators (or an agent's
# admins): the tests that do so OPER up first.
OPER_PW = "Cmd-Oper-21"
OPER_SECTION = "[operator root]\npassword = %s\nmask = *@*\n\n" % hash_password(OPER_PW)


def oper(c):
    c.send("OPER root %s" % OPER_PW)
    c.expect(r" 381 ")
    return c


def agent_section(name, channels="", tool=False, permissions=None, state=False, env=(),
                  modes=None):
    cmd = "%s %s %s-%s" % (NODE, TOOL if tool else ECHO, TOKEN, name)
    lines = ["[agent %s]" % name, "command = %s" % cmd,
             "description = test agent " + name]
    if channels:
        lines.append("channels = %s" % channels)
    if state:
        lines.append("env = ECHO_AGENT_STATE=%s" % state_dir(name))
    for e in env:
        lines.append("env = %s" % e)
    if permissions:
        lines.append("permissions = %s" % permissions)
    if modes:
        lines.append("modes = %s" % modes)
    return "\n".join(lines) + "\n\n"


def agent_pids(name=None):
    pat = "%s-%s( |$)" % (TOKEN, name) if name else TOKEN
    return pids_matching(pat)


class PServer(PersistentServer):
    """A server whose database is in TMP and whose directory survives stop()."""

    def __init__(self, name, **kw):
        PersistentServer.__init__(self, os.path.join(TMP, name + ".db"), **kw)


remove_at_exit(TMP, TOKEN)

S = Shared(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=16,
           max_parallel_turns=6, config_extra=(
               OPER_SECTION
               + agent_section("alice", "#cm2 #cm3 #cm5 #cm6 #pm1 #pm2a #pm3 #tn11",
                               permissions="ask")
               + agent_section("bob", "#cm3")
               + agent_section("carol", "#cm4", state=True)
               + agent_section("dave", "#cm4")
               + agent_section("moody", "#pm5", state=True, modes="code plan")
               + agent_section("slowmo", "#pm5k", env=["ECHO_AGENT_SET_DELAY_MS=700"],
                               modes="code")
               + agent_section("polly", "#pol2", permissions="allow-all")
               + agent_section("pall", "#pm4a", permissions="allow-all")
               + agent_section("pdeny", "#pm4d", permissions="deny-all")
               + agent_section("preads", "#pm4r", permissions="allow-reads")
               + agent_section("tooly", "#pm1 #pm2a #pm4t", tool=True,
                               permissions="allow-reads")))

# A server with a short permission-timeout (PM-3).
T = Shared(flood_exempt="127.0.0.0/8", history_replay=0, permission_timeout=2,
           config_extra=agent_section("alice", "#pm3t"))


# ---------------------------------------------------------------- helpers

def mclient(srv, nick, caps=CAPS):
    c = Client(srv)
    c.nick = nick
    if caps:
        c.send("CAP REQ :%s" % caps)
        m = c.expect_msg(r"^(?:@\S+ )?:\S+ CAP \S+ (?:ACK|NAK) ")
        if m.params[1] != "ACK":
            raise TestFailure("CAP REQ :%s: %s" % (caps, m.raw))
        c.send("CAP END")
    c.register(nick)
    c.echo = "echo-message" in (caps or "").split()
    return c


def agent_lines(lines, agent, target, cmd="PRIVMSG"):
    """The texts of agent's cmd lines to target among lines."""
    out = []
    for l in lines:
        m = parse(l)
        if m.command == cmd and is_from(m, agent) and m.params \
                and m.params[0].lower() == target.lower() \
                and not m.params[-1].startswith("\x01"):
            out.append(m.params[-1])
    return out


def said_by_others(lines, agent):
    """PRIVMSGs among lines from agents other than agent."""
    return [l for l in lines if parse(l).command == "PRIVMSG"
            and (parse(l).source or "").endswith("!agent@" + HOST)
            and not is_from(parse(l), agent)]


def ask(c, target, text, agent, timeout=15, where=None):
    """Say text in target, return (agent's PRIVMSG texts there in the turn that answers
    it, the lines). The turn is the one whose +typing=active comes after the echo of
    text; what came before the echo is dropped. where: where the agent answers (the
    person's nick in a query), target by default."""
    where = where or target
    c.send("PRIVMSG %s :%s" % (target, text))
    echo = re.compile(r"^@\S+ :%s!\S+ PRIVMSG %s :%s$" % (re.escape(c.nick), re.escape(target),
                                                       re.escape(text)), re.I)
    deadline = time.time() + timeout * SLOW
    out, seen_echo, active = [], False, False
    while True:
        line = c._next(deadline)
        if line is None:
            c._fail("the turn of %s answering %r (after %d lines)" % (agent, text, len(out)),
                    timeout)
        if not seen_echo:
            seen_echo = bool(echo.search(line))
            continue
        m = parse(line)
        typing = m.command == "TAGMSG" and is_from(m, agent) and m.params \
            and m.params[0].lower() == where.lower() and m.tags.get("+typing")
        if typing == "active":
            active = True
        if active:
            out.append(line)
        if typing == "done" and active:
            said = agent_lines(out, agent, where)
            # TN-12: where others are, the answer's first line names the asker.
            if said and said[0].startswith(c.nick + ": "):
                said[0] = said[0][len(c.nick) + 2:]
            return said, out


def agent_rx(agent, cmd, target, text_rx):
    return r"^(?:@\S+ )?:%s!\S+ %s %s :%s" % (re.escape(agent), cmd, re.escape(target),
                                             text_rx)


def server_notice_rx(where, text_rx):
    """A server NOTICE to where: a nick, or the channel where the command the NOTICE
    answers was typed (TN-11)."""
    return r"^(?:@\S+ )?:%s NOTICE %s :%s" % (re.escape(HOST), re.escape(where), text_rx)


def expect_card(c, agent, target, what_rx=r"run `Pretend action", timeout=10):
    """Wait for agent's card NOTICE in target; return (card number, its text)."""
    m = c.expect_msg(agent_rx(agent, "NOTICE", target, r"card (\d+): %s asks to %s"
                              % (re.escape(agent), what_rx)), timeout)
    return int(re.match(r"card (\d+):", m.params[-1]).group(1)), m.params[-1]


def expect_said(c, agent, target, text, timeout=10):
    """Wait for agent to say exactly text (PRIVMSG) in target, then for the end of its
    turn; returns the lines after text, up to that end. Where several people are, the
    asker's nick may come first (TN-12)."""
    c.expect_msg(agent_rx(agent, "PRIVMSG", target, r"(?:[^\s:]+: )?" + re.escape(text) + "$"),
                 timeout)
    return until_done(c, agent, target)


def expect_notice(c, where, text_rx, timeout=5):
    """The server's NOTICE to c answering what c typed in where (TN-11)."""
    return c.expect_msg(server_notice_rx(where, text_rx), timeout)


def whois(c, nick):
    c.send("WHOIS %s" % nick)
    return [parse(l) for l in c.collect_until(r" 318 ")]


def whois_320(c, nick):
    return [m.params[-1] for m in whois(c, nick) if m.command == "320"]


def wait_commands(c, agent, want="commands: /perm <what to do> /plan", timeout=5):
    """Poll WHOIS until agent's commands line is want."""
    deadline = time.time() + timeout * SLOW
    while True:
        got = whois_320(c, agent)
        if want in got:
            return got
        if time.time() > deadline:
            raise TestFailure("WHOIS %s: no %r in %r" % (agent, want, got))
        time.sleep(0.1)


_warm = set()


def warm(c, chan, agent):
    """Make sure agent ran once (so it announced its commands); say hi in chan."""
    out, _ = ask(c, chan, "@%s hi" % agent, agent)
    if not out:
        raise TestFailure("%s said nothing to hi in %s" % (agent, chan))
    if agent not in _warm and agent != "tooly":
        wait_commands(c, agent)
    _warm.add(agent)
    return out


def notices_until_sync(c):
    return [parse(l).params[-1] for l in c.sync() if parse(l).command == "NOTICE"]


def chathistory(c, target, n=50):
    c.send("CHATHISTORY LATEST %s * %d" % (target, n))
    m = c.expect_msg(r"^(?:@\S+ )?:\S+ (?:BATCH \+\S+ chathistory|FAIL) ")
    if m.command == "FAIL":
        raise TestFailure("CHATHISTORY LATEST %s: %s" % (target, m.raw))
    ref = m.params[0][1:]
    lines = c.collect_until(r"^(?:@\S+ )?:\S+ BATCH -%s$" % re.escape(ref))
    return [parse(l) for l in lines[:-1]]


def state_files(name):
    return sorted(glob.glob(os.path.join(state_dir(name), "*.json")))


def forget_mode(name, marker):
    """Make the echo agent's saved session (the one whose history holds marker) forget
    its mode, as an agent that does not keep modes itself would."""
    hit = 0
    for fn in state_files(name):
        with open(fn) as f:
            st = json.load(f)
        if any(marker in h.get("text", "") for h in st.get("history", [])):
            st["mode"] = "ask"
            with open(fn, "w") as f:
                json.dump(st, f)
            hit += 1
    if hit != 1:
        raise TestFailure("%d saved sessions of %s hold %r" % (hit, name, marker))


# ---------------------------------------------------------------- the restart server

_P = {}


def pserver():
    """keeper (echo agent with session/load) in #keep and #forget, database in TMP."""
    p = _P.get("srv")
    if p is None:
        p = PServer("persist", flood_exempt="127.0.0.0/8", history_replay=0,
                    config_extra=OPER_SECTION + agent_section("keeper", "#keep #forget",
                                                              state=True, modes="code"))
        _P["srv"] = p
    elif not p.alive():
        p.start()
    return p


def restarted():
    """Before: keeper learns its commands, its mode in #keep and #forget is switched to
    code, and #forget's saved session is made to forget it. Then a daemon restart. Done
    once; returns the server, started again, the agent not yet running."""
    if "restarted" in _P:
        return _P["srv"]
    p = pserver()
    u = oper(mclient(p, "keepu"))
    joined(u, "#keep", "#forget")
    for chan in ("#keep", "#forget"):
        out, _ = ask(u, chan, "hello %s" % chan[1:], "keeper")
        if out != ["echo: <keepu> hello %s" % chan[1:]]:
            raise TestFailure("keeper in %s: %r" % (chan, out))
        send(u, chan, "!mode keeper code")
        u.expect(agent_rx("keeper", "NOTICE", chan, "switching mode"))
        out, _ = ask(u, chan, "/mode", "keeper")
        if out != ["mode code"]:
            raise TestFailure("keeper in %s after !mode keeper code: %r" % (chan, out))
    wait_commands(u, "keeper")
    u.quit()
    p.stop()
    deadline = time.time() + 5 * SLOW
    while agent_pids("keeper") and time.time() < deadline:
        time.sleep(0.05)
    forget_mode("keeper", "hello forget")
    p.start()
    _P["restarted"] = True
    return p


# ---------------------------------------------------------------- CM

def test_cm1_commands_known_after_restart():
    """CM-1/CM-5: the commands keeper announced are in the database: right after a
    daemon restart, before the agent runs, WHOIS, !help and HELP AGENTS show them, and
    !perm works (reaching the agent as /perm)."""
    p = restarted()
    if agent_pids("keeper"):
        raise TestFailure("keeper runs right after the restart: %r" % agent_pids("keeper"))
    u = mclient(p, "cm1u")
    joined(u, "#keep")
    got = whois_320(u, "keeper")
    if "commands: /perm <what to do> /plan" not in got:
        raise TestFailure("WHOIS keeper after restart: %r" % got)
    if not any(l.startswith("state: ") and "stopped" in l for l in got):
        raise TestFailure("WHOIS keeper after restart, state not stopped: %r" % got)
    send(u, "#keep", "!help")
    nts = notices_until_sync(u)
    for want in ("/keeper:perm <what to do> — Ask for permission, then pretend to run a tool",
                 "/keeper:plan — Emit a sample plan"):
        if want not in nts:
            raise TestFailure("!help after restart: no %r in %r" % (want, nts))
    u.send("HELP AGENTS")
    lines = u.collect_until(r" 706 ")
    txt = [parse(l).params[-1] for l in lines if parse(l).command in ("704", "705")]
    if not any("/keeper:perm <what to do>" in l for l in txt) or \
            not any("/keeper:plan" in l for l in txt):
        raise TestFailure("HELP AGENTS after restart: %r" % txt)
    if agent_pids("keeper"):
        raise TestFailure("WHOIS/!help/HELP started keeper")
    # !perm is known without the agent: it reaches keeper as /perm.
    send(u, "#keep", "!perm look")
    n, _ = expect_card(u, "keeper", "#keep", timeout=15)
    send(u, "#keep", "!allow")
    expect_said(u, "keeper", "#keep", "permission granted (allow-once)")
    u.quit()


def test_cm2_raw_command_no_transcript():
    """CM-2: a message starting with / goes to the agent as the exact text, with no
    transcript although the agent missed something; what it missed comes with the next
    ordinary prompt. /perm and !perm both run the agent's perm command; !plan runs plan."""
    srv = S()
    u = joined(mclient(srv, "cm2u"), "#cm2")
    warm(u, "#cm2", "alice")
    # Something alice misses: a NOTICE (starts no turn, but is history).
    send(u, "#cm2", "side remark", cmd="NOTICE")
    out, lines = ask(u, "#cm2", "/zzz a b", "alice")
    if out != ["echo: /zzz a b"]:
        raise TestFailure("/zzz a b: alice got something else than the raw text: %r" % out)
    send(u, "#cm2", "/perm x")
    expect_card(u, "alice", "#cm2")
    send(u, "#cm2", "!deny")
    expect_said(u, "alice", "#cm2", "permission denied (reject-once)")
    send(u, "#cm2", "!perm y")
    expect_card(u, "alice", "#cm2")
    send(u, "#cm2", "!allow")
    expect_said(u, "alice", "#cm2", "permission granted (allow-once)")
    out, _ = ask(u, "#cm2", "!plan", "alice")
    if out != ["plan sent"]:
        raise TestFailure("!plan: %r" % out)
    # The next ordinary prompt carries what was missed meanwhile.
    out, _ = ask(u, "#cm2", "after", "alice")
    text = "\n".join(out)
    if "side remark" not in text or not text.endswith("<cm2u> after"):
        raise TestFailure("the prompt after the commands lacks what alice missed: %r" % out)
    u.quit()


def test_tn14_plan_shown_once_per_change():
    """TN-14, TN-13: a plan is one NOTICE from the agent, "plan: [x] 1. ... [>] 2. ...",
    when it first comes and when an entry's status changes, not when it is sent again
    unchanged; the text before it and the text after it stay on lines of their own,
    in order."""
    srv = S()
    u = joined(mclient(srv, "tn14"), "#tn14")
    warm(u, "#tn14", "alice")
    u.send("PRIVMSG #tn14 :/replan")     # not announced: alice, who spoke last
    lines = until_done(u, "alice", "#tn14", timeout=15)
    got = []
    for l in lines:
        m = parse(l)
        if m.command in ("PRIVMSG", "NOTICE") and is_from(m, "alice"):
            got.append((m.command, m.params[-1]))
    want = [("PRIVMSG", "thinking it over"),
            ("NOTICE", "plan: [x] 1. Read the prompt [>] 2. Echo it back"),
            ("NOTICE", "plan: [x] 1. Read the prompt [x] 2. Echo it back"),
            ("PRIVMSG", "plan changed")]
    if got != want:
        raise TestFailure("TN-14: got %r\n want %r" % (got, want))
    u.quit()


def test_cm3_which_agent():
    """CM-3: with alice and bob both announcing perm, /perm and !perm go to nobody and the
    sender gets a NOTICE listing /alice:perm, /bob:perm; /alice:perm and !bob:plan name
    the agent; a command nobody announced is routed by RT rules (the last speaker), raw."""
    srv = S()
    u = joined(mclient(srv, "cm3u"), "#cm3")
    warm(u, "#cm3", "alice")
    warm(u, "#cm3", "bob")
    for text in ("/perm x", "!perm x"):
        send(u, "#cm3", text)
        m = expect_notice(u, "#cm3", r"Several agents here know /perm")
        t = m.params[-1]
        if not re.search(r"/alice:perm, /bob:perm$|/bob:perm, /alice:perm$", t):
            raise TestFailure("%s: the NOTICE does not list the candidates: %r" % (text, t))
    # Nobody got them: both idle, nothing waiting.
    send(u, "#cm3", "!status")
    nts = notices_until_sync(u)
    for a in ("alice", "bob"):
        if not any(n.startswith("%s: idle, 0 waiting;" % a) for n in nts):
            raise TestFailure("after the ambiguous commands, !status: %r" % nts)
    send(u, "#cm3", "/alice:perm one")
    expect_card(u, "alice", "#cm3")
    send(u, "#cm3", "!allow")
    lines = u.collect_until(agent_rx("alice", "PRIVMSG", "#cm3",
                                     re.escape("permission granted (allow-once)")))
    if said_by_others(lines, "alice"):
        raise TestFailure("/alice:perm reached others too: %r" % said_by_others(lines, "alice"))
    out, lines = ask(u, "#cm3", "!bob:plan", "bob")
    if out != ["plan sent"] or said_by_others(lines, "bob"):
        raise TestFailure("!bob:plan: %r" % lines)
    # Nobody announced zzz: RT rules, the last speaker (bob), still raw.
    out, lines = ask(u, "#cm3", "/zzz hello", "bob")
    if out != ["echo: /zzz hello"] or said_by_others(lines, "bob"):
        raise TestFailure("/zzz hello (nobody announced it): %r" % lines)
    send(u, "#cm3", "/nobody:perm x")
    expect_notice(u, "#cm3", r"No agent is called nobody")
    u.quit()


def test_cm4_first_command_opens_sessions():
    """CM-4: carol and dave never ran. The first command in #cm4, which neither
    announced, starts both and opens their session in #cm4 (then it is routed by RT
    rules: two agents, nobody spoke, so nobody answers); their commands are known
    afterwards, and carol's first answer uses the session opened then."""
    srv = S()
    u = joined(mclient(srv, "cm4u"), "#cm4")
    send(u, "#cm4", "!help")
    nts = notices_until_sync(u)
    for a in ("carol", "dave"):
        if not any(n.startswith("%s: no commands known yet" % a) for n in nts):
            raise TestFailure("!help before any command: nothing about %s: %r" % (a, nts))
    if state_files("carol"):
        raise TestFailure("carol has sessions before anything: %r" % state_files("carol"))
    send(u, "#cm4", "/perm x")
    wait_commands(u, "carol", timeout=10)
    wait_commands(u, "dave", timeout=10)
    if len(state_files("carol")) != 1:
        raise TestFailure("carol's sessions after the first command: %r" % state_files("carol"))
    sid = state_files("carol")[0]
    out, _ = ask(u, "#cm4", "@carol first", "carol")
    if not out or not out[-1].endswith("<cm4u> carol first"):
        raise TestFailure("@carol first: %r" % out)
    if state_files("carol") != [sid]:
        raise TestFailure("carol's first answer did not use the session opened for the "
                          "command: %r then %r" % (sid, state_files("carol")))
    # Now the stored lists answer at once: both know perm.
    send(u, "#cm4", "/perm y")
    expect_notice(u, "#cm4", r"Several agents here know /perm: say which, as .*/carol:perm")
    u.quit()


def test_cm5_help_whois():
    """CM-5: !help NOTICEs the agents' commands with hints and descriptions and the
    server's ! commands; WHOIS shows the commands; HELP alice lists hers."""
    srv = S()
    u = joined(mclient(srv, "cm5u"), "#cm5")
    warm(u, "#cm5", "alice")
    send(u, "#cm5", "!help")
    nts = notices_until_sync(u)
    for want in ("/alice:perm <what to do> — Ask for permission, then pretend to run a tool",
                 "/alice:plan — Emit a sample plan"):
        if want not in nts:
            raise TestFailure("!help: no %r in %r" % (want, nts))
    srvline = [n for n in nts if n.startswith("Server commands:")]
    if not srvline:
        raise TestFailure("!help: no server commands in %r" % nts)
    for cmd in ("!stop", "!allow", "!always", "!deny", "!mode", "!policy", "!status",
                "!help", "!!text"):
        if cmd not in srvline[0]:
            raise TestFailure("!help: %s missing from %r" % (cmd, srvline[0]))
    got = whois_320(u, "alice")
    if "commands: /perm <what to do> /plan" not in got:
        raise TestFailure("WHOIS alice: %r" % got)
    u.send("HELP alice")
    lines = u.collect_until(r" 706 ")
    txt = [parse(l).params[-1] for l in lines if parse(l).command in ("704", "705")]
    if not any("/alice:perm <what to do>" in l and "Ask for permission" in l for l in txt) \
            or any("bob" in l for l in txt):
        raise TestFailure("HELP alice: %r" % txt)
    u.quit()


def test_cm6_server_commands_not_forwarded():
    """CM-6: !stop, !help, !status, !mode, !policy, !allow, !always, !deny, !schedules,
    !unschedule never reach the agent; !!hello reaches it as !hello."""
    srv = S()
    u = joined(mclient(srv, "cm6u"), "#cm6")
    warm(u, "#cm6", "alice")
    cmds = ["!stop", "!help", "!status", "!mode", "!policy", "!allow", "!always 2",
            "!deny", "!schedules", "!unschedule 1"]
    for c in cmds:
        send(u, "#cm6", c)
    lines = u.sync()
    nts = [parse(l).params[-1] for l in lines if parse(l).command == "NOTICE"]
    for want in ("Nothing to stop here", "Server commands:", "alice: idle",
                 "alice modes: ask* code", "Usage: !policy", "No card waits here",
                 "No card 2 waits here"):
        if not any(n.startswith(want) for n in nts):
            raise TestFailure("no NOTICE %r among %r" % (want, nts))
    out, lines = ask(u, "#cm6", "!!hello", "alice")
    # Turns are answered in order: had any ! command gone to alice, its echo came first.
    if not out or not out[0].startswith("echo: ") or not out[-1].endswith("<cm6u> !hello"):
        raise TestFailure("!!hello: alice's first answer after the ! commands: %r" % out)
    u.quit()


def test_cm6_typos_answered():
    """CM-6, issue 24 (UX review 22): a ! word that is no command of the server or of an
    agent here is answered, with the nearest command when it is a typo away, and never
    forwarded, in a channel and in a query; an announced command and !!text still go."""
    srv = S()
    u = joined(mclient(srv, "cm6t"), "#cm6t")
    warm(u, "#cm6t", "alice")
    cases = [("!stpo", "No command !stpo here (did you mean !stop?); !help lists them, "
                       "and !!stpo sends the text as it is"),
             ("!alow 2", "No command !alow here (did you mean !allow?)"),
             ("!prem look", "No command !prem here (did you mean !perm?)"),
             ("!weather paris", "No command !weather here; !help lists them")]
    for text, want in cases:
        send(u, "#cm6t", text)
        nts = notices_until_sync(u)
        if not any(n.startswith(want) for n in nts):
            raise TestFailure("%s: want a NOTICE %r, got %r" % (text, want, nts))
    out, _ = ask(u, "#cm6t", "!!stpo", "alice")
    # Turns are answered in order: had a typo gone to alice, its echo came first.
    if not out or not out[-1].endswith("<cm6t> !stpo"):
        raise TestFailure("!!stpo after the typos: alice's first answer %r" % out)
    u.send("PRIVMSG alice :!stpo")
    nts = notices_until_sync(u)
    if not any(n.startswith("No command !stpo here (did you mean !stop?)") for n in nts):
        raise TestFailure("!stpo in a query: %r" % nts)
    send(u, "#cm6t", "!perm look")
    expect_card(u, "alice", "#cm6t", timeout=15)
    send(u, "#cm6t", "!deny")
    u.quit()


def test_cm6_multiline_command_one_line():
    """CM-6/SEC-4: a draft/multiline batch whose text starts with a server command: the
    text joined with LF reaches the command, and its NOTICE, which quotes the argument,
    is still one line (the LF leaves as a space), so nothing after it can pose as a line
    of the server or of another user."""
    srv = S()
    u = joined(mclient(srv, "cm6m", caps=CAPS + " batch draft/multiline"), "#cm6")
    u.send("BATCH +m1 draft/multiline #cm6")
    u.send("@batch=m1 PRIVMSG #cm6 :!mode code")
    u.send("@batch=m1 PRIVMSG #cm6 :PRIVMSG #cm6 :forged")
    u.send("BATCH -m1")
    u.send("BATCH +m2 draft/multiline #cm6")
    u.send("@batch=m2 PRIVMSG #cm6 :!unschedule sch_1")
    u.send("@batch=m2 PRIVMSG #cm6 ::evil!e@e KICK #cm6 cm6m :forged")
    u.send("BATCH -m2")
    lines = u.sync()
    # Every line has a source (the closing BATCH of the echo too), and none is "evil".
    split = [l for l in lines if not re.match(r"^(?:@\S+ )?:\S+ ", l) or
             re.match(r"^(?:@\S+ )?:evil!", l)]
    if split:
        raise TestFailure("lines a bare LF split off: %r" % split)
    nts = [parse(l).params[-1] for l in lines if parse(l).command == "NOTICE"]
    if not any(n.startswith("No agent code") for n in nts) or \
            not any(n.startswith("No schedule sch_1 :evil!e@e KICK") for n in nts):
        raise TestFailure("the NOTICEs quoting the multiline arguments: %r" % nts)
    u.quit()


# ---------------------------------------------------------------- PM

def test_pm1_card():
    """PM-1: a card is a NOTICE from the requesting agent to the conversation naming the
    agent, what it asks to do in words ("tooly asks to edit /srv/data/notes.txt") and the answers it offers; cards and answers
    are kept in history (PM-4)."""
    srv = S()
    u = joined(mclient(srv, "pm1u", caps=HCAPS), "#pm1")
    send(u, "#pm1", "/alice:perm build it")
    n, text = expect_card(u, "alice", "#pm1")
    for w in ("!allow", "!always", "!deny", "add %d if several cards wait" % n):
        if w not in text:
            raise TestFailure("card without %r: %r" % (w, text))
    send(u, "#pm1", "!always")
    u.expect(agent_rx("alice", "NOTICE", "#pm1", "card %d: always allowed by pm1u" % n))
    expect_said(u, "alice", "#pm1", "permission granted (allow-always)")
    # The tool agent's request: kind edit, a path, no allow_always option.
    send(u, "#pm1", "/tooly:ask edit /srv/data/notes.txt")
    n2, text = expect_card(u, "tooly", "#pm1",
                           re.escape("edit /srv/data/notes.txt"))
    if "!allow" not in text or "!deny" not in text or "!always" in text:
        raise TestFailure("card of an agent offering allow_once/reject_once: %r" % text)
    send(u, "#pm1", "!deny")
    u.expect(agent_rx("tooly", "NOTICE", "#pm1", "card %d: denied by pm1u" % n2))
    expect_said(u, "tooly", "#pm1", "outcome no")
    hist = [m for m in chathistory(u, "#pm1") if m.command == "NOTICE"]
    want = [("alice", r"card %d: alice asks to run `Pretend action" % n),
            ("alice", r"card %d: always allowed by pm1u" % n),
            ("tooly", r"card %d: tooly asks to edit /srv/data/notes\.txt" % n2),
            ("tooly", r"card %d: denied by pm1u" % n2)]
    for who, rx in want:
        if not any(is_from(m, who) and re.match(rx, m.params[-1]) for m in hist):
            raise TestFailure("history of #pm1 lacks %s's NOTICE /%s/: %r"
                              % (who, rx, [m.raw for m in hist]))
    u.quit()


def test_tn1_card_holds_no_slot():
    """TN-1 (revised): with max-parallel-turns = 1, alice's turn waiting on a card holds no
    slot: bob answers in #tn1b meanwhile, and !status says what alice waits for; answered,
    alice's turn goes on and ends."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_parallel_turns=1,
                 config_extra=agent_section("alice", "#tn1a", permissions="ask")
                 + agent_section("bob", "#tn1b"))
    try:
        u = joined(mclient(srv, "tn1u"), "#tn1a", "#tn1b")
        send(u, "#tn1a", "/alice:perm build it")
        n, _ = expect_card(u, "alice", "#tn1a")
        out, _ = ask(u, "#tn1b", "@bob are you free", "bob", timeout=10)
        if not out or not out[-1].endswith("<tn1u> bob are you free"):
            raise TestFailure("TN-1: bob's answer while alice's card waits: %r" % out)
        send(u, "#tn1a", "!status")
        expect_notice(u, "#tn1a", re.escape("alice: waiting for card %d in #tn1a, 0 waiting"
                                            % n))
        send(u, "#tn1b", "!status")
        expect_notice(u, "#tn1b", r"bob: idle, 0 waiting")
        send(u, "#tn1a", "!allow")
        expect_said(u, "alice", "#tn1a", "permission granted (allow-once)")
        send(u, "#tn1a", "!status")
        expect_notice(u, "#tn1a", r"alice: idle, 0 waiting")
        u.quit()
    finally:
        srv.stop()


def test_pm2_who_may_answer():
    """PM-2: in a channel whose operator is op2: a card of u2's turn refused to u3 (a
    NOTICE, the card still waits), answered by u2; another answered by the operator.
    (That no agent may answer is in test_pm2_not_agents_bots_outsiders.)"""
    srv = S()
    op = joined(mclient(srv, "op2"), "#pm2")
    op.send("INVITE alice #pm2")
    op.expect(r":alice!\S+ JOIN #pm2")
    u2 = joined(mclient(srv, "u2"), "#pm2")
    u3 = joined(mclient(srv, "u3"), "#pm2")
    send(u2, "#pm2", "/perm a")
    n, _ = expect_card(u2, "alice", "#pm2")
    send(u3, "#pm2", "!allow")
    expect_notice(u3, "#pm2", r"card %d: only u2 or a channel operator may answer it" % n)
    send(u2, "#pm2", "!allow")
    u2.expect(agent_rx("alice", "NOTICE", "#pm2", "card %d: allowed by u2" % n))
    expect_said(u2, "alice", "#pm2", "permission granted (allow-once)")
    op.sync()
    send(u2, "#pm2", "/perm b")
    n, _ = expect_card(op, "alice", "#pm2")
    send(op, "#pm2", "!deny %d" % n)
    op.expect(agent_rx("alice", "NOTICE", "#pm2", "card %d: denied by op2" % n))
    expect_said(u2, "alice", "#pm2", "permission denied (reject-once)")
    for c in (op, u2, u3):
        c.quit()


def test_pm2_not_agents_bots_outsiders():
    """PM-2: an agent saying !allow, a bot (+B) and someone outside the channel answer
    nothing: the card still waits for the person who started the turn."""
    srv = S()
    u = joined(mclient(srv, "pm2u"), "#pm2a")
    out = mclient(srv, "pm2out")
    send(u, "#pm2a", "/alice:perm z")
    n, _ = expect_card(u, "alice", "#pm2a")
    # Before the bot comes: with two people here, tooly's line would start "pm2u: "
    # (TN-12), not with the command.
    got, lines = ask(u, "#pm2a", "@tooly say !allow %d" % n, "tooly")
    if got != ["!allow %d" % n]:
        raise TestFailure("tooly did not say !allow: %r" % got)
    bot = joined(mclient(srv, "pm2bot"), "#pm2a")
    bot.send("MODE pm2bot +B")
    bot.sync()
    send(bot, "#pm2a", "!allow %d" % n)
    out.send("PRIVMSG #pm2a :!allow %d" % n)
    out.sync()
    lines += u.sync()
    if [l for l in lines if "allowed by" in l or "permission granted" in l]:
        raise TestFailure("someone else answered the card: %r" % lines)
    send(u, "#pm2a", "!allow %d" % n)
    u.expect(agent_rx("alice", "NOTICE", "#pm2a", "card %d: allowed by pm2u" % n))
    expect_said(u, "alice", "#pm2a", "permission granted (allow-once)")
    for c in (u, bot, out):
        c.quit()


def test_pm2_two_cards_pick_by_number():
    """PM-1/PM-2: two cards wait in #pm2n (alice's and bob's turns run in parallel):
    !allow alone asks which (naming a card that waits here), !allow N and !deny N pick."""
    srv = S()
    u = joined(mclient(srv, "pm2n"), "#pm2n")
    u.send("INVITE alice #pm2n")
    u.send("INVITE bob #pm2n")
    u.expect(r":alice!\S+ JOIN #pm2n")
    u.expect(r":bob!\S+ JOIN #pm2n")
    # A card waiting elsewhere, opened first, must not be mixed up with these.
    w = joined(mclient(srv, "pm2w"), "#pm4t")
    send(w, "#pm4t", "/ask execute /bin/true")
    other, _ = expect_card(w, "tooly", "#pm4t", r"run `Touch /bin/true`")
    send(u, "#pm2n", "/alice:perm one")
    na, _ = expect_card(u, "alice", "#pm2n")
    send(u, "#pm2n", "/bob:perm two")
    nb, _ = expect_card(u, "bob", "#pm2n")
    send(u, "#pm2n", "!allow")
    m = expect_notice(u, "#pm2n", r"2 cards wait here: say which, as in !allow (\d+)")
    pick = int(re.search(r"!allow (\d+)", m.params[-1]).group(1))
    problem = None
    if pick not in (na, nb):
        problem = ("!allow with two cards here suggests card %d, which waits in another "
                   "conversation (here: %d, %d): %r" % (pick, na, nb, m.raw))
    send(u, "#pm2n", "!allow 999")
    expect_notice(u, "#pm2n", r"No card 999 waits here")
    send(u, "#pm2n", "!allow %d" % nb)
    expect_said(u, "bob", "#pm2n", "permission granted (allow-once)")
    send(u, "#pm2n", "!deny %d" % na)
    expect_said(u, "alice", "#pm2n", "permission denied (reject-once)")
    send(w, "#pm4t", "!allow")
    expect_said(w, "tooly", "#pm4t", "outcome yes")
    u.quit()
    w.quit()
    if problem:
        raise TestFailure(problem)


def test_pm2_private_query():
    """CM-2/CM-5/PM-1/PM-2 in a private query: /perm goes raw, the card comes from alice to
    the person, who answers it with !allow there; !help lists alice's commands."""
    srv = S()
    u = mclient(srv, "pmq")
    out, _ = ask(u, "alice", "hi", "alice", where="pmq")
    if out != ["echo: <pmq> hi"]:
        raise TestFailure("hi in a query: %r" % out)
    wait_commands(u, "alice")
    u.send("PRIVMSG alice :!help")
    nts = notices_until_sync(u)
    if "/alice:perm <what to do> — Ask for permission, then pretend to run a tool" not in nts:
        raise TestFailure("!help in a query: %r" % nts)
    u.send("PRIVMSG alice :/perm q")
    n, text = expect_card(u, "alice", "pmq")
    u.send("PRIVMSG alice :!allow")
    u.expect(agent_rx("alice", "NOTICE", "pmq", "card %d: allowed by pmq" % n))
    expect_said(u, "alice", "pmq", "permission granted (allow-once)")
    u.quit()


def test_pm3_timeout():
    """PM-3: unanswered for permission-timeout (2 s), the card is refused with the
    agent's reject_once option and a NOTICE; then no card waits."""
    srv = T()
    u = joined(mclient(srv, "pm3t"), "#pm3t")
    t0 = time.time()
    send(u, "#pm3t", "/perm slow")
    n, _ = expect_card(u, "alice", "#pm3t", timeout=15)
    u.expect(agent_rx("alice", "NOTICE", "#pm3t", "card %d: no answer in time" % n), 10)
    if time.time() - t0 < 1.5:
        raise TestFailure("the card timed out after %.1fs, before permission-timeout = 2"
                          % (time.time() - t0))
    expect_said(u, "alice", "#pm3t", "permission denied (reject-once)")
    send(u, "#pm3t", "!allow")
    expect_notice(u, "#pm3t", "No card waits here")
    u.quit()


def test_pm3_card_of_cancelled_turn():
    """PM-3/TN-6: !stop while a card waits: the turn ends, the card is gone (!allow:
    "No card waits here"), the agent says nothing more; the next turn works."""
    srv = S()
    u = joined(mclient(srv, "pm3c"), "#pm3")
    send(u, "#pm3", "/perm doomed")
    n, _ = expect_card(u, "alice", "#pm3")
    send(u, "#pm3", "!stop")
    lines = until_done(u, "alice", "#pm3")
    send(u, "#pm3", "!allow")
    lines += u.collect_until(server_notice_rx("#pm3", r"No card (?:\d+ )?waits here"))
    lines += u.sync()
    if not any(re.search(r"NOTICE #pm3 :card %d: withdrawn" % n, l) for l in lines):
        raise TestFailure("no trace of card %d being withdrawn: %r" % (n, lines))
    if agent_lines(lines, "alice", "#pm3"):
        raise TestFailure("alice spoke after !stop: %r" % agent_lines(lines, "alice", "#pm3"))
    out, _ = ask(u, "#pm3", "again", "alice")
    if not out or not out[-1].endswith("<pm3c> again"):
        raise TestFailure("the turn after the cancelled one: %r" % out)
    u.quit()


def test_pm4_policies():
    """PM-4: allow-all allows without a card (a NOTICE trace), deny-all refuses, allow-reads
    allows read and search kinds but gives a card for execute and edit; the automatic
    answers are in history."""
    srv = S()
    u = joined(mclient(srv, "pm4u", caps=HCAPS), "#pm4a", "#pm4d", "#pm4r", "#pm4t")
    cases = [("#pm4a", "pall", "/perm go", "permission granted (allow-once)",
              r"pall: allowed to run `Pretend action` \(policy allow-all\)"),
             ("#pm4d", "pdeny", "/perm go", "permission denied (reject-once)",
              r"pdeny: not allowed to run `Pretend action` \(policy deny-all\)"),
             ("#pm4t", "tooly", "/ask read /etc/hosts", "outcome yes",
              r"tooly: allowed to read /etc/hosts \(policy allow-reads\)"),
             ("#pm4t", "tooly", "/ask search /src", "outcome yes",
              r"tooly: allowed to search /src \(policy allow-reads\)")]
    for chan, agent, text, answer, trace in cases:
        out, lines = ask(u, chan, text, agent)
        nts = agent_lines(lines, agent, chan, "NOTICE")
        if out != [answer] or not any(re.match(trace, n) for n in nts) \
                or any(n.startswith("card ") for n in nts):
            raise TestFailure("%s in %s (%s): said %r, notices %r" % (text, chan, agent,
                                                                     out, nts))
        hist = [m.params[-1] for m in chathistory(u, chan)
                if m.command == "NOTICE" and is_from(m, agent)]
        if not any(re.match(trace, h) for h in hist):
            raise TestFailure("history of %s lacks /%s/: %r" % (chan, trace, hist))
    # allow-reads: what is not a read gets a card.
    send(u, "#pm4r", "/perm go")
    n, _ = expect_card(u, "preads", "#pm4r")
    send(u, "#pm4r", "!deny")
    expect_said(u, "preads", "#pm4r", "permission denied (reject-once)")
    send(u, "#pm4t", "/ask edit /etc/passwd")
    n, _ = expect_card(u, "tooly", "#pm4t", r"edit /etc/passwd")
    send(u, "#pm4t", "!allow")
    expect_said(u, "tooly", "#pm4t", "outcome yes")
    u.quit()


def test_pm4_policy_command():
    """PM-4, AU-1: !policy by a non-operator is refused; the channel operator makes this
    conversation stricter (deny-all) but may not loosen it again; an IRC operator loosens
    it (ask, a card the operator answers; allow-all, polly's configured ceiling); polly
    still acts under allow-all in its other channel."""
    srv = S()
    op = joined(mclient(srv, "pop"), "#pol")
    op.send("INVITE polly #pol")
    op.expect(r":polly!\S+ JOIN #pol")
    u = joined(mclient(srv, "puser"), "#pol", "#pol2")
    send(u, "#pol", "!policy polly deny-all")
    expect_notice(u, "#pol", "Only channel operators may change the policy")
    out, lines = ask(u, "#pol", "/perm a", "polly")
    if out != ["permission granted (allow-once)"] or \
            not agent_lines(lines, "polly", "#pol", "NOTICE")[0].endswith("(policy allow-all)"):
        raise TestFailure("/perm under polly's configured allow-all: %r" % lines)
    send(op, "#pol", "!policy polly deny-all")
    expect_notice(op, "#pol", "polly: permission policy here is now deny-all")
    out, _ = ask(u, "#pol", "/perm c", "polly")
    if out != ["permission denied (reject-once)"]:
        raise TestFailure("/perm under deny-all set by !policy: %r" % out)
    send(op, "#pol", "!policy polly allow-all")
    expect_notice(op, "#pol", r"Only IRC operators and polly's admins may loosen its policy "
                      r"\(deny-all here\)")
    # Elsewhere polly still acts under its own policy.
    out, _ = ask(u, "#pol2", "/perm elsewhere", "polly")
    if out != ["permission granted (allow-once)"]:
        raise TestFailure("/perm in #pol2 after deny-all in #pol: %r" % out)
    oper(op)
    send(op, "#pol", "!policy polly ask")
    expect_notice(op, "#pol", "polly: permission policy here is now ask")
    send(u, "#pol", "/perm d")
    n, _ = expect_card(op, "polly", "#pol")
    send(op, "#pol", "!allow")
    expect_said(u, "polly", "#pol", "permission granted (allow-once)")
    send(op, "#pol", "!policy allow-all")
    expect_notice(op, "#pol", "polly: permission policy here is now allow-all")
    out, _ = ask(u, "#pol", "/perm e", "polly")
    if out != ["permission granted (allow-once)"]:
        raise TestFailure("/perm under allow-all set again by an IRC operator: %r" % out)
    op.quit()
    u.quit()


def test_pm5_modes():
    """PM-5: !mode before a session says so; !mode lists ask* code; !mode moody code
    switches (the agent's mode is code, WHOIS shows it); after the agent process dies and
    loads its session again, having forgotten the mode, the server applies it again."""
    srv = S()
    u = joined(oper(mclient(srv, "pm5u")), "#pm5")
    send(u, "#pm5", "!mode")
    expect_notice(u, "#pm5", "moody has no session here yet")
    out, _ = ask(u, "#pm5", "hello moody", "moody")
    send(u, "#pm5", "!mode")
    expect_notice(u, "#pm5", r"moody modes: ask\* code$")
    send(u, "#pm5", "!mode moody code")
    u.expect(agent_rx("moody", "NOTICE", "#pm5", "switching mode"))
    deadline = time.time() + 5 * SLOW
    while True:
        send(u, "#pm5", "!mode")
        m = expect_notice(u, "#pm5", r"moody modes: ")
        if m.params[-1] == "moody modes: ask code*":
            break
        if time.time() > deadline:
            raise TestFailure("!mode after !mode moody code: %r" % m.params[-1])
        time.sleep(0.1)
    out, _ = ask(u, "#pm5", "/mode", "moody")
    if out != ["mode code"]:
        raise TestFailure("the agent's mode after !mode moody code: %r" % out)
    if "mode in #pm5: code" not in whois_320(u, "moody"):
        raise TestFailure("WHOIS moody: %r" % whois_320(u, "moody"))
    # The agent process dies; its saved session forgets the mode.
    send(u, "#pm5", "/crash")
    u.expect(r"NOTICE #pm5 :.*moody", 10)
    deadline = time.time() + 5 * SLOW
    while agent_pids("moody") and time.time() < deadline:
        time.sleep(0.05)
    forget_mode("moody", "hello moody")
    out, _ = ask(u, "#pm5", "/mode", "moody", timeout=20)
    if out != ["mode code"]:
        raise TestFailure("after session/load, the mode was not applied again: the agent "
                          "says %r" % out)
    send(u, "#pm5", "!mode")
    expect_notice(u, "#pm5", r"moody modes: ask code\*$")
    u.quit()


def test_pm5_kick_while_switching():
    """PM-5, SEC-4: the agent is KICKed (its session closed) while its answer to
    !mode slowmo code is still to come; the late answer changes nothing and the
    server goes on."""
    srv = S()
    # AU-7: op is the maker's, not the first person's into an agents' channel.
    u = joined(oper(mclient(srv, "pm5k")), "#pm5kick")
    u.send("INVITE slowmo #pm5kick")
    u.expect(r":slowmo!\S+ JOIN #pm5kick")
    ask(u, "#pm5kick", "hello slowmo", "slowmo")
    send(u, "#pm5kick", "!mode slowmo code")
    u.send("KICK #pm5kick slowmo :later")
    u.expect(r" KICK #pm5kick slowmo ")
    time.sleep(1.5 * SLOW)      # the agent answers set_mode after 0.7 s
    srv.check()
    u.sync()
    u.send("INVITE slowmo #pm5kick")
    u.expect(r" JOIN #pm5kick")
    out, _ = ask(u, "#pm5kick", "/mode", "slowmo", timeout=20)
    if out != ["mode ask"]:
        raise TestFailure("a new session after the KICK: %r" % out)
    u.quit()


def test_au7_agents_only_channel_gives_no_op():
    """AU-7: a channel where only agents are (slowmo's #pm5k, from the config) gives op to
    nobody who joins; nor does one whose maker left it to its agent, to the next
    connection; its maker's own connection gets op back."""
    srv = S()
    u = joined(mclient(srv, "au7a"), "#pm5k")
    u.send("NAMES #pm5k")
    names = u.expect_msg(r" 353 ").params[-1].split()
    if "au7a" not in names or "@au7a" in names:
        raise TestFailure("AU-7: the first person into an agents' channel got op: %r" % names)
    u.send("MODE #pm5k +m")
    u.expect(r" 482 ")
    u.send("PART #pm5k")
    mk = joined(mclient(srv, "au7m"), "#au7made")
    mk.send("INVITE slowmo #au7made")
    mk.expect(r":slowmo!\S+ JOIN #au7made")
    mk.send("PART #au7made")
    mk.expect(r" PART #au7made")
    v = joined(mclient(srv, "au7v"), "#au7made")
    v.send("NAMES #au7made")
    names = v.expect_msg(r" 353 ").params[-1].split()
    if "@au7v" in names or "au7v" not in names:
        raise TestFailure("AU-7: the next into a channel left to its agent got op: %r" % names)
    mk.send("JOIN #au7made")
    mk.expect(r" JOIN #au7made")
    mk.send("NAMES #au7made")
    names = mk.expect_msg(r" 353 ").params[-1].split()
    if "@au7m" not in names:
        raise TestFailure("AU-7: the maker's connection did not get op back: %r" % names)
    for c in (u, mk, v):
        c.quit()


def test_pm5_unknown_mode():
    """PM-5: !mode moody plan, a mode its config allows but moody does not offer (ask,
    code), is refused with a NOTICE saying so, and the mode stays what it was."""
    srv = S()
    u = joined(oper(mclient(srv, "pm5x")), "#pm5x")
    u.send("INVITE moody #pm5x")
    u.expect(r":moody!\S+ JOIN #pm5x")
    ask(u, "#pm5x", "hi", "moody")
    send(u, "#pm5x", "!mode moody plan")
    lines = u.sync()
    time.sleep(0.3)
    lines += u.sync()
    send(u, "#pm5x", "!mode")
    m = expect_notice(u, "#pm5x", r"moody modes: ")
    if not any(re.search(r"NOTICE #pm5x :moody has no mode plan", l) for l in lines) \
            or m.params[-1] != "moody modes: ask* code":
        raise TestFailure("!mode moody plan (not a mode moody offers): %r, then %r"
                          % ([l for l in lines if " NOTICE " in l], m.params[-1]))
    u.quit()


def test_pm5_modes_after_daemon_restart():
    """PM-5/SS-4: after a daemon restart and session/load, the mode chosen in #keep is
    there: !mode after one message shows code*, and the agent is in mode code."""
    p = restarted()
    u = joined(mclient(p, "pm5r"), "#keep")
    out, _ = ask(u, "#keep", "back again", "keeper", timeout=20)
    if not out or not out[-1].endswith("<pm5r> back again"):
        raise TestFailure("keeper after the restart: %r" % out)
    send(u, "#keep", "!mode")
    expect_notice(u, "#keep", r"keeper modes: ask code\*$")
    out, _ = ask(u, "#keep", "/mode", "keeper")
    if out != ["mode code"]:
        raise TestFailure("keeper's mode in #keep after the restart: %r" % out)
    u.quit()


def test_pm5_mode_reapplied_after_daemon_restart():
    """SS-4/PM-5: in #forget the agent's saved session forgot the mode (as an agent that
    does not keep modes would); after the daemon restart and session/load, the server
    applies code again."""
    p = restarted()
    u = joined(mclient(p, "pm5f"), "#forget")
    out, _ = ask(u, "#forget", "back again", "keeper", timeout=20)
    send(u, "#forget", "!mode")
    m = expect_notice(u, "#forget", r"keeper modes: ")
    out, _ = ask(u, "#forget", "/mode", "keeper")
    if out != ["mode code"] or m.params[-1] != "keeper modes: ask code*":
        raise TestFailure("mode code chosen before the daemon restart is not applied again "
                          "after session/load: !mode says %r, the agent says %r"
                          % (m.params[-1], out))
    u.quit()


# ---------------------------------------------------------------- TN-11

def test_tn11_bang_reply_in_channel():
    """TN-11: the replies to ! commands typed in a channel are NOTICEs from the server
    to that channel, sent to the person who typed them alone (their client shows them in
    the channel's window): another member gets none of them, and none is stored. Typed
    in a query, they stay NOTICEs to the person's nick."""
    srv = S()
    u = joined(mclient(srv, "tn11u", caps=HCAPS), "#tn11")
    v = joined(mclient(srv, "tn11v"), "#tn11")
    v.sync()
    send(u, "#tn11", "!stop")
    m = u.expect_msg(r" NOTICE ")
    if (m.source, m.params) != (HOST, ["#tn11", "Nothing to stop here"]):
        raise TestFailure("!stop in #tn11: %r" % m.raw)
    send(u, "#tn11", "!help")
    nts = [parse(l) for l in u.sync() if parse(l).command == "NOTICE"]
    if not nts or any((n.source, n.params[0]) != (HOST, "#tn11") for n in nts) \
            or not nts[-1].params[-1].startswith("Server commands: !stop"):
        raise TestFailure("!help in #tn11: %r" % [n.raw for n in nts])
    send(u, "#tn11", "!stpo")
    u.expect(r"^(?:@\S+ )?:irc\.test NOTICE #tn11 :No command !stpo here \(did you mean "
             r"!stop\?\)")
    # The other member sees the commands typed, never the replies.
    got = v.sync()
    if [l for l in got if parse(l).command == "NOTICE"] or \
            len([l for l in got if parse(l).command == "PRIVMSG"]) != 3:
        raise TestFailure("tn11v got another's replies, or not the 3 commands: %r" % got)
    # Not stored: the channel's history has the commands, no server NOTICE.
    hist = chathistory(u, "#tn11")
    if [m.raw for m in hist if m.command == "NOTICE"]:
        raise TestFailure("a reply to a ! command is in #tn11's history: %r"
                          % [m.raw for m in hist])
    # In a query: to the nick, as ever.
    u.send("PRIVMSG alice :!stop")
    m = u.expect_msg(r" NOTICE ")
    if (m.source, m.params) != (HOST, ["tn11u", "Nothing to stop here"]):
        raise TestFailure("!stop in a query with alice: %r" % m.raw)
    u.quit()
    v.quit()


def test_tn11_outsider_gets_channel_context():
    """TN-11: someone outside a -n channel has no window for it, so the reply to a !
    command typed there goes to their nick, tagged +draft/channel-context=<channel> when
    they negotiated message-tags, and plain otherwise."""
    srv = S()
    u = joined(mclient(srv, "tn11op"), "#tn11x")
    u.send("MODE #tn11x -n")
    u.send("INVITE alice #tn11x")
    u.expect(r":alice!\S+ JOIN #tn11x", 10)
    tagged = mclient(srv, "tn11o")
    tagged.send("PRIVMSG #tn11x :!status")
    m = tagged.expect_msg(r" NOTICE ")
    want = "!status is for the members of #tn11x: join it first"
    if (m.source, m.params, m.tags.get("+draft/channel-context")) != \
            (HOST, ["tn11o", want], "#tn11x"):
        raise TestFailure("!status from outside #tn11x, with message-tags: %r" % m.raw)
    plain = mclient(srv, "tn11p", caps="")
    plain.send("PRIVMSG #tn11x :!status")
    plain.expect(r"^:irc\.test NOTICE tn11p :%s$" % re.escape(want))
    # Those in the channel get nothing of it.
    if [l for l in u.sync() if parse(l).command == "NOTICE"]:
        raise TestFailure("tn11op got the outsiders' replies")
    for c in (u, tagged, plain):
        c.quit()


if __name__ == "__main__":
    run_tests(globals())

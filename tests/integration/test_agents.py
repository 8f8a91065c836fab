#!/usr/bin/env python3
"""Issue 7, rules AG, RT, TN and SS: agents in channels, end to end.

Real ACP agents on the official SDK (tests/agents/echo-agent.mjs, which echoes the prompt
it receives word by word, so its PRIVMSG lines show exactly what the daemon sent it, and
a small scripted agent written here, whose answers are given byte for byte by the test)
talk through the daemon to raw IRC clients.

AG-1 bot user in its channels (NAMES, WHO B, WHOIS 335/320 with its state, the bot tag,
realname from agentInfo), AG-2 INVITE/KICK/mention joins and memberships kept over a
restart, AG-4 433; RT-1 addressing (@nick, nick:, case, unique prefix, ambiguity NOTICE),
RT-2 mention order, RT-3 last speaker / one agent / several agents NOTICE, RT-4 only
mentions, RT-5 the text received, RT-6 NOTICE/CTCP/+B start nothing, RT-7 private
sessions; TN-1 serial answers read each other, TN-2 one conversation at a time with the
"you are next" NOTICE, TN-3 typing, TN-4 200 lines with long lines, UTF-8 and code blocks
in order (without and with draft/multiline), AG-5 CR/LF/NUL/\\x01 cannot inject, TN-6
!stop, TN-7/TN-9 a crash mid-turn; SS-1 one session per conversation, SS-2 transcript and
its limits, SS-4 daemon restart with and without session/load, SS-5 eviction with 3
agents and a cap of 2.
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Server, Shared,  # noqa: E402
                        SLOW, TestFailure, daemon_path, free_port, isupport,
                        nick_of, parse, pids_matching, remove_at_exit, run_tests,
                        wait_port)
from agentharness import (NODE, SDK, is_from, joined, require_agent,
                        send, until_done, write_agent)  # noqa: E402

ECHO = require_agent("echo-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-agents-")
# Every agent command line carries this token, so that the test can count (and, at the
# very end, clean up) the agent processes its own daemons started, and no others.
TOKEN = "agtest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
HOST = "irc.test"
MCAPS = "message-tags echo-message"

# ---------------------------------------------------------------- a scripted agent

# The echo agent's prompt commands (/crash, /huge ...) cannot be reached through the
# daemon: every prompt starts with "<nick>" or "[". This agent answers with exactly the
# chunks the test wrote to SCRIPT_DIR/<name>.json when the answered line says
# "say <name>" (a string is a text chunk, {"tool": title} a completed edit,
# {"exit": n} ends the process), crashes mid-turn on "crash", says a line without its
# end and waits for a cancel on "dawdle" ("linger": a line, then half of one, then
# the same), and otherwise says "heard: <last line>".
# With SCRIPT_FAIL_NEW set, session/new fails (after 300 ms).
SCRIPT_AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";
import fs from "node:fs";
import path from "node:path";

const DIR = process.env.SCRIPT_DIR;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let client;
const say = (sessionId, text) => client.notify(acp.methods.client.session.update,
  { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
let n = 0, tools = 0;
const cancels = [];
const app = acp
  .agent({ name: "script-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "script-agent", title: "Script Agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => {
    if (process.env.SCRIPT_FAIL_NEW) {
      await sleep(300);
      throw acp.RequestError.internalError({ reason: "no sessions today" });
    }
    return { sessionId: "script_" + (++n) + "_" + process.pid };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    const last = text.split("\n").pop();
    let m;
    if ((m = /\bsay (\w+)/.exec(last))) {
      const chunks = JSON.parse(fs.readFileSync(path.join(DIR, m[1] + ".json"), "utf8"));
      for (const c of chunks) {
        if (typeof c === "string") await say(sid, c);
        else if (c.tool) await client.notify(acp.methods.client.session.update, { sessionId: sid,
          update: { sessionUpdate: "tool_call", toolCallId: "tool" + (++tools), title: c.tool,
                    kind: "edit", status: "completed" } });
        else { await sleep(50); process.exit(c.exit); }
      }
      return { stopReason: "end_turn" };
    }
    if (/\blinger\b/.test(last)) {
      await say(sid, "lingering\n");
      await say(sid, "and half a line");
      await new Promise((r) => cancels.push(r));
      return { stopReason: "cancelled" };
    }
    if (/\bdawdle\b/.test(last)) {
      await say(sid, "dawdling");
      await new Promise((r) => cancels.push(r));
      return { stopReason: "cancelled" };
    }
    if (/\bcrash\b/.test(last)) {
      await say(sid, "about to crash\n");
      await sleep(150);
      process.exit(3);
    }
    await say(sid, "heard: " + last);
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {
    for (const r of cancels.splice(0)) r();
  });
"""

SCRIPT_DIR = os.path.join(TMP, "script")
os.makedirs(SCRIPT_DIR)
SCRIPT = write_agent(os.path.join(TMP, "script-agent.mjs"), SCRIPT_AGENT)


def script(name, chunks):
    """The answer of "say <name>": the chunks, streamed in this order."""
    with open(os.path.join(SCRIPT_DIR, name + ".json"), "w") as f:
        json.dump(chunks, f)


def agent_section(tag, name, channels="", script_agent=False, env=(), description=None,
                  extra=""):
    """An [agent name] section; tag names the server, for agent_pids()."""
    cmd = "%s %s %s-%s-%s" % (NODE, SCRIPT if script_agent else ECHO, TOKEN, tag, name)
    lines = ["[agent %s]" % name, "command = %s" % cmd]
    if channels:
        lines.append("channels = %s" % channels)
    lines.append("description = %s" % (description or "test agent " + name))
    # AU-2: a server with an [account] lets only logged-in people talk to agents
    # by default; these tests are about other rules, by anyone.
    lines.append("users = *")
    for e in env:
        lines.append("env = %s" % e)
    if script_agent:
        lines.append("env = SCRIPT_DIR=%s" % SCRIPT_DIR)
    if extra:
        lines.append(extra)
    return "\n".join(lines) + "\n\n"


def agent_pids(tag=None, name=None):
    """Pids of the live agent processes of this test run (of server tag, agent name)."""
    pat = TOKEN
    if tag:
        pat += "-" + tag + "-" + (name + "( |$)" if name else "")
    return pids_matching(pat)


# ---------------------------------------------------------------- servers

class PServer(PersistentServer):
    """A server whose database is in TMP and whose directory survives stop()."""

    def __init__(self, name, **kw):
        PersistentServer.__init__(self, os.path.join(TMP, name + ".db"), **kw)


remove_at_exit(TMP, TOKEN)

LONGNICK = "longwindedscriptagentnickname1"     # NICKLEN = 30
LONGCHAN = "#tn4" + "x" * 46                   # CHANNELLEN = 50
assert len(LONGNICK) == 30 and len(LONGCHAN) == 50

S = Shared(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=10,
           config_extra=(
               agent_section("s", "alice", "#ag1 #rt1 #rt3 #rt3b #rt3c #rt3d #rt4 #rt6 #rt6b #rt7 #tn1 "
                             "#tn3 #ss2 #utf8 #tn12 #tn12s",
                             description="Alice the echo")
               + agent_section("s", "strict", "#utf8", env=["ECHO_AGENT_STRICT_UTF8=1"])
               + agent_section("s", "bob", "#rt1 #rt3b #tn1")
               + agent_section("s", "alpha", "#amb") + agent_section("s", "amber", "#amb")
               + agent_section("s", "carl", "#tn2a #tn2b #tn6 #tn11a #tn11b",
                             env=["ECHO_AGENT_DELAY_MS=150"])
               + agent_section("s", "scripty", "#inj #crash #ml #bp1 #bp2 #bp3 #bp4 #bp5 #tn12m",
                             script_agent=True)
               + agent_section("s", LONGNICK, LONGCHAN, script_agent=True)))



def shared():
    """The shared server. It has an [account] (zed), as a real deployment does: with
    accounts, every channel message goes through the agents' routing (RT-8 keeps
    mentions), also where no agent is yet; the persistent server below has none."""
    if "[account zed]" not in S.kw["config_extra"]:
        r = subprocess.run([daemon_path(), "--hash-password"], input=b"Zed-Pass-42\n",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        if r.returncode != 0:
            raise TestFailure("--hash-password: %r" % r.stderr)
        h = r.stdout.decode().strip()
        # The same hash serves the operator of the KILL test.
        S.kw["config_extra"] += ("[account zed]\npassword = %s\n\n"
                                 "[operator root]\npassword = %s\nmask = *@*\n" % (h, h))
    return S()


_P = {}


def pserver():
    """The restart server: its own database, transcript-lines 3, transcript-chars 20."""
    p = _P.get("srv")
    if p is None:
        state = os.path.join(TMP, "echo-state")
        os.makedirs(state, exist_ok=True)
        os.makedirs(state + "-late", exist_ok=True)
        _P["state"] = state
        p = PServer("persist", flood_exempt="127.0.0.0/8", history_replay=0,
                    transcript_lines=3, transcript_chars=20, max_loaded_agents=10,
                    config_extra=(
                        agent_section("p", "alice", "#ss2")
                        + agent_section("p", "keeper", "#keep", env=["ECHO_AGENT_STATE=" + state])
                        + agent_section("p", "forget", "#forget", env=["ECHO_AGENT_MODE=no-load"])
                        + agent_section("p", "late", "#late", env=[
                            "ECHO_AGENT_STATE=" + state + "-late",
                            "ECHO_AGENT_MODE=late-replay"])))
        _P["srv"] = p
    elif not p.alive():
        p.start()
    return p


# ---------------------------------------------------------------- helpers

def mclient(srv, nick, caps=MCAPS, slow=False):
    """Register nick after CAP REQ caps (message-tags and echo-message by default).
    slow: a 4 KiB receive buffer and a 536-byte MSS, so that what the member does not
    read stays with the server, not in the kernel's buffers."""
    c = Client(srv, rcvbuf=4096 if slow else None, maxseg=536 if slow else None)
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


def names_of(c, chan):
    c.send("NAMES %s" % chan)
    lines = c.collect_until(r" 366 \S+ %s " % re.escape(chan))
    out = []
    for l in lines:
        m = parse(l)
        if m.command == "353":
            out += [n.lstrip("~&@%+") for n in m.params[-1].split()]
    return out


def until_answer(c, agent, target, last, timeout=15, turns=5):
    """Lines until agent's answer in target whose prompt ends with the line last (other
    turns may come first: they are in the lines returned)."""
    out = []
    for _ in range(turns):
        lines = until_done(c, agent, target, timeout)
        out += lines
        mine = said(lines, agent, target)
        if mine and texts(mine)[-1].endswith(last):
            return out
    raise TestFailure("%s never answered %r in %s; lines:\n  %s"
                      % (agent, last, target, "\n  ".join(out)))


def said(lines, agent=None, target=None):
    """The PRIVMSGs from agents (or from agent) to target among lines, as Msgs."""
    out = []
    for l in lines:
        m = parse(l)
        if m.command != "PRIVMSG" or not (m.source or "").endswith("!agent@" + HOST):
            continue
        if agent is not None and not is_from(m, agent):
            continue
        if target is not None and m.params[0].lower() != target.lower():
            continue
        out.append(m)
    return out


def texts(msgs):
    return [m.params[-1] for m in msgs]


def echo_of(prompt):
    """The PRIVMSG texts of the echo agent answering prompt (blank lines skipped)."""
    return [l for l in ("echo: " + prompt).split("\n") if l.strip()]


def unaddressed(lines):
    """The echo agent's lines without the "asker: " that TN-12 puts before the first
    where several people are (the test_tn12_* tests check it)."""
    if lines:
        lines = [re.sub(r"^[^\s:<>]+: (?=echo)", "", lines[0], count=1)] + lines[1:]
    return lines


def prompt_of(msgs):
    """What the echo agent was prompted with, from its PRIVMSG lines."""
    t = "\n".join(unaddressed(texts(msgs)))
    if not t.startswith("echo: "):
        raise TestFailure("not an echo: %r" % t)
    return t[len("echo: "):]


def last_line(msgs):
    return prompt_of(msgs).split("\n")[-1]


def only_from(lines, agent, target, what):
    """All the agent lines in lines are agent's, to target; returns them."""
    got = said(lines)
    other = [m.raw for m in got if not is_from(m, agent) or
             m.params[0].lower() != target.lower()]
    if other:
        raise TestFailure("%s: expected only %s in %s, also got:\n  %s"
                          % (what, agent, target, "\n  ".join(other)))
    if not got:
        raise TestFailure("%s: %s said nothing in %s; lines:\n  %s"
                          % (what, agent, target, "\n  ".join(lines)))
    return got


def ask_after(c, agent, target, timeout=15):
    """ask() for what was sent already: (None, the agent's Msgs, the lines)."""
    lines = until_done(c, agent, target, timeout)
    return None, only_from(lines, agent, target, "%s in %s" % (agent, target)), lines


def ask(c, target, text, agent, timeout=15, where=None):
    """Say text in target; return (msgid, the agent's Msgs, all lines up to its done).
    where: the target of the answer (default target)."""
    mid = send(c, target, text)
    lines = until_done(c, agent, where or target, timeout)
    return mid, only_from(lines, agent, where or target, "%s <- %r" % (agent, text)), lines


def want_echo(msgs, prompt, what):
    got = unaddressed(texts(msgs))
    want = echo_of(prompt)
    if got != want:
        raise TestFailure("%s: the agent did not receive the expected prompt\n"
                          "   got lines: %r\n  want lines: %r" % (what, got, want))


def transcript(where, lines, answered, carry=False):
    """The prompt of prompt.c: transcript block (if any) then the answered line."""
    out = ""
    if lines:
        out = "[%s: %s]\n" % (where, "the last messages of this conversation, yours "
                              "included; your memory of it was lost" if carry else
                              "what was said since your last turn")
        out += "".join("%s\n" % l for l in lines) + "[end]\n"
    return out + answered


def short(s, n):
    return s if len(s) <= n else s[:n] + "\u2026"


def whois(c, nick):
    c.send("WHOIS %s" % nick)
    lines = c.collect_until(r" 318 ")
    return [parse(l) for l in lines]


def whois_state(c, nick):
    for m in whois(c, nick):
        if m.command == "320" and m.params[-1].startswith("state: "):
            return m.params[-1]
    return None


def notices(lines, rx=None):
    out = []
    for l in lines:
        m = parse(l)
        if m.command == "NOTICE" and (rx is None or re.search(rx, m.params[-1])):
            out.append(m)
    return out


def wire_len(raw):
    """Bytes of an IRC line without its tags (and without CRLF)."""
    if raw.startswith("@"):
        raw = raw.split(" ", 1)[1]
    return len(raw.encode("utf-8"))


# ---------------------------------------------------------------- AG

def test_ag1_agent_is_a_bot_user():
    """AG-1/AG-3: nick!agent@server, in its channels from the start, ISUPPORT BOT=B,
    WHO flag B, WHOIS 335 and 320 state stopped -> idle, bot tag on what it says."""
    srv = shared()
    u = mclient(srv, "ag1u")
    if isupport(u.welcome).get("BOT") != "B":
        raise TestFailure("ISUPPORT BOT=B missing: %r" % isupport(u.welcome).get("BOT"))
    joined(u, "#ag1")
    if "alice" not in names_of(u, "#ag1"):
        raise TestFailure("alice not in NAMES #ag1")
    u.send("WHO #ag1")
    lines = u.collect_until(r" 315 ")
    who = [parse(l) for l in lines if parse(l).command == "352" and parse(l).params[5] == "alice"]
    if not who:
        raise TestFailure("no WHO line for alice:\n" + "\n".join(lines))
    w = who[0]
    assert w.params[2] == "agent" and w.params[3] == HOST, w.raw
    assert "B" in w.params[6], "WHO flags of alice lack B: %s" % w.raw
    wi = whois(u, "alice")
    got = {m.command for m in wi}
    w311 = [m for m in wi if m.command == "311"]
    assert w311 and w311[0].params[2:4] == ["agent", HOST], w311
    assert "335" in got, "no 335 RPL_WHOISBOT in WHOIS alice:\n" + "\n".join(m.raw for m in wi)
    st = whois_state(u, "alice")
    assert st == "state: stopped", "WHOIS alice before first use: %r" % st
    mid, msgs, _ = ask(u, "#ag1", "@alice hi there", "alice")
    want_echo(msgs, "<ag1u> alice hi there", "AG-1")
    for m in msgs:
        assert m.source == "alice!agent@" + HOST, m.raw
        assert "bot" in m.tags, "no bot tag: %s" % m.raw
        assert m.tags.get("+reply") == mid, "+reply %r, want %r: %s" % (
            m.tags.get("+reply"), mid, m.raw)
        assert "msgid" in m.tags, m.raw
    st = whois_state(u, "alice")
    assert st == "state: idle", "WHOIS alice after its answer: %r" % st
    info = [m.params[-1] for m in whois(u, "alice") if m.command == "320"]
    assert any("0.1.0" in i for i in info), \
        "AG-3: WHOIS alice lacks the agent info (name, version): %r" % info
    u.quit()


def test_ag1_kill_refused():
    """AG-1/SEC-4: an agent is the server's own user: an operator's KILL of it is refused
    with 483 and the agent stays (NAMES, WHOIS, HELP AGENTS, and it still answers)."""
    srv = shared()
    o = mclient(srv, "killer")
    joined(o, "#ag1")
    o.send("OPER root Zed-Pass-42")
    o.expect(r" 381 killer ")
    o.send("KILL alice :go away")
    o.expect(r"^(?:@\S+ )?:irc\.test 483 killer :You can't kill alice: it is an agent")
    o.send("HELP AGENTS")
    o.expect(r"alice")
    if "alice" not in names_of(o, "#ag1"):
        raise TestFailure("alice left #ag1 after a refused KILL")
    o.send("WHOIS alice")
    o.expect(r" 311 killer alice ")
    o.expect(r" 318 killer alice ")
    ask(o, "#ag1", "@alice still here?", "alice")
    o.quit()


def test_ss5_slot_freed_by_a_failed_session():
    """SS-5: with one process slot, a turn of an agent whose session/new fails ends (its
    error NOTICE), and the agent then idle in the slot gives it up to the turn waiting for
    it: the second agent answers."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=1,
                 max_parallel_turns=2,
                 config_extra=(agent_section("o", "failer", "#pool1", script_agent=True,
                                             env=["SCRIPT_FAIL_NEW=1"])
                               + agent_section("o", "fine", "#pool1")))
    try:
        u = mclient(srv, "pooler")
        joined(u, "#pool1")
        # One write: fine's turn starts while failer is still starting, so it waits.
        u.send_raw(b"PRIVMSG #pool1 :@failer hi\r\nPRIVMSG #pool1 :@fine hi\r\n")
        u.expect(r"NOTICE #pool1 :.*no sessions today|NOTICE #pool1 :.*failer", 15)
        u.expect(r"^(?:@\S+ )?:fine!\S+ PRIVMSG #pool1 :", 20)
        u.quit()
    finally:
        srv.stop()


def test_tn2_tn10_prompts_while_one_waits():
    """TN-10 with TN-2/SEC-4: of 20 mentions of alice sent at once in one channel, the
    first runs and the 19 others join one waiting prompt, in order (nothing refused: one
    person's prompts to one agent in one conversation are one; the 16-prompt limit per
    person is test_principals.py's L3, across conversations): two answers."""
    srv = shared()
    u = mclient(srv, "quota")
    joined(u, "#tq")
    u.send("INVITE alice #tq")
    u.expect(r":alice!\S+ JOIN #tq")
    u.send_raw(b"".join(b"PRIVMSG #tq :@alice q%d\r\n" % i for i in range(20)))
    first = until_done(u, "alice", "#tq", 20)
    second = until_done(u, "alice", "#tq", 20)
    # The first may read the others as what was said meanwhile (SS-2's transcript).
    if last_line(said(first, "alice", "#tq")) != "<quota> alice q0":
        raise TestFailure("the first prompt: %r" % texts(said(first, "alice", "#tq")))
    want_echo(said(second, "alice", "#tq"), "<quota> alice q1\n" + "\n".join(
        "  alice q%d" % i for i in range(2, 20)), "the 19 joined")
    if [l for l in first + second + u.sync() if "was not queued" in l]:
        raise TestFailure("TN-10: a joined line was refused")
    u.quit()


def test_ag1_realname_from_agent_info():
    """AG-1: the realname is the configured description until the agent is known, then its
    agentInfo.title ("Echo Agent")."""
    srv = shared()
    u = mclient(srv, "rnu")
    joined(u, "#ag1")
    ask(u, "#ag1", "@alice wake up", "alice")    # alice runs now
    w311 = [m for m in whois(u, "alice") if m.command == "311"]
    assert w311, "no 311"
    assert w311[0].params[-1] == "Echo Agent", \
        "WHOIS alice realname after start: %r, want 'Echo Agent' (agentInfo.title)" \
        % w311[0].params[-1]
    u.quit()


def test_ag4_agent_nick_taken():
    """AG-4: NICK to an agent's nick (any case) is 433, also at registration."""
    srv = shared()
    u = mclient(srv, "ag4u")
    for n in ("alice", "ALICE", "Bob"):
        u.send("NICK %s" % n)
        u.expect_numeric(433, params=re.escape(n) + " ")
    c = Client(srv)
    c.send("NICK carl")
    c.send("USER x 0 * :x")
    c.expect(r" 433 \S+ carl ")
    c.close()
    u.quit()


# ---------------------------------------------------------------- RT

def test_rt1_rt5_addressing():
    """RT-1/RT-5: @alice, alice:, ALICE, (case-insensitive), @ALI (unique prefix),
    trailing punctuation, each reaching alice although bob spoke last; the agent gets the
    text without the "nick:" address and without '@'."""
    srv = shared()
    u = mclient(srv, "rt1u")
    joined(u, "#rt1")
    cases = [
        ("@alice hi", "alice hi"),
        ("alice: hello", "hello"),
        ("ALICE, yo", "yo"),
        ("@ALI up", "ALI up"),
        ("hey @alice.", "hey alice."),
        ("@Alice: look at this", "look at this"),
    ]
    mid, msgs, _ = ask(u, "#rt1", "@bob go first", "bob")
    assert last_line(msgs) == "<rt1u> bob go first", texts(msgs)
    for typed, received in cases:
        _, msgs, _ = ask(u, "#rt1", typed, "alice")
        got = last_line(msgs)
        if got != "<rt1u> " + received:
            raise TestFailure("RT-5: %r reached alice as %r, want %r"
                              % (typed, got, "<rt1u> " + received))
        # bob speaks again: the next message cannot reach alice as the last speaker
        _, msgs, _ = ask(u, "#rt1", "@bob again", "bob")
    u.quit()


def test_rt1_ambiguous_prefix_and_rt3_choose():
    """RT-1: @a with agents alpha and amber -> a NOTICE listing both, nobody answers;
    RT-3: several agents, none spoken yet, none named -> one NOTICE naming them."""
    srv = shared()
    u = mclient(srv, "ambu")
    joined(u, "#amb")
    send(u, "#amb", "@a what do you think")
    m = u.expect_msg(r"^(?:@\S+ )?:\S+ NOTICE #amb :")
    if not ("alpha" in m.params[-1] and "amber" in m.params[-1]):
        raise TestFailure("ambiguity NOTICE does not list alpha and amber: %s" % m.raw)
    send(u, "#amb", "hello everybody")
    lines = u.sync()
    n = notices(lines)
    if len(n) != 1 or not ("alpha" in n[0].params[-1] and "amber" in n[0].params[-1]):
        raise TestFailure("RT-3: want one NOTICE naming alpha and amber, got:\n  %s"
                          % "\n  ".join(lines))
    # Nobody was dispatched: alpha's first turn answers this one (turns are FIFO).
    _, msgs, lines = ask(u, "#amb", "@alpha your turn", "alpha", timeout=20)
    want_echo(msgs, transcript("#amb", ["<ambu> @a what do you think",
                                        "<ambu> hello everybody"],
                               "<ambu> alpha your turn"), "RT-1 ambiguous")
    u.quit()


def test_rt3_unknown_name_said():
    """UX review 22: at a desk with several agents, "@zzz hello" names nobody here: the
    NOTICE says so and lists the agents, rather than only "name the one you mean"."""
    srv = shared()
    u = mclient(srv, "unkn")
    joined(u, "#unk")
    for a in ("alpha", "amber"):
        u.send("INVITE %s #unk" % a)
        u.expect(r":%s!\S+ JOIN :?#unk" % a)
    send(u, "#unk", "@zzz hello")
    m = u.expect_msg(r"^(?:@\S+ )?:\S+ NOTICE #unk :Nobody here is named zzz; name one "
                     r"of the agents here: @al", 10)
    if "@alpha" not in m.params[-1] or "@amber" not in m.params[-1]:
        raise TestFailure("the unknown-name NOTICE: %r" % m.raw)
    u.quit()


def test_rt2_tn1_mention_order():
    """RT-2/TN-1: "@bob @alice compare": bob answers first, then alice, whose prompt
    carries bob's answer."""
    srv = shared()
    u = mclient(srv, "tn1u")
    joined(u, "#tn1")
    mid = send(u, "#tn1", "@bob @alice compare")
    lines = until_done(u, "bob", "#tn1")
    bmsgs = only_from(lines, "bob", "#tn1", "bob first")
    want_echo(bmsgs, "<tn1u> bob alice compare", "RT-2 bob")
    lines = until_done(u, "alice", "#tn1")
    amsgs = only_from(lines, "alice", "#tn1", "alice second")
    p = prompt_of(amsgs).split("\n")
    want_bob = "<bob> echo: <tn1u> bob alice compare"
    if p[0] != "[#tn1: what was said since your last turn]" or want_bob not in p \
            or "[end]" not in p or p[-1] != "<tn1u> bob alice compare":
        raise TestFailure("TN-1: alice's prompt lacks bob's answer:\n  %s" % "\n  ".join(p))
    for m in bmsgs + amsgs:
        assert m.tags.get("+reply") == mid, m.raw
    u.quit()


def test_rt3_last_speaker_and_single_agent():
    """RT-3: in a one-agent channel that agent answers anything; with two agents the
    last one to speak answers unaddressed messages."""
    srv = shared()
    u = mclient(srv, "rt3u")
    joined(u, "#rt3", "#rt3b")
    _, msgs, _ = ask(u, "#rt3", "what is this", "alice")
    want_echo(msgs, "<rt3u> what is this", "RT-3 single agent")
    send(u, "#rt3b", "anyone there")
    send(u, "#rt3b", "hello?")
    lines = u.sync()
    n = notices(lines)
    if len(n) != 1 or "@alice" not in n[0].params[-1] or "@bob" not in n[0].params[-1]:
        raise TestFailure("RT-3: want one NOTICE naming @alice and @bob (once), got:\n  %s"
                          % "\n  ".join(lines))
    _, msgs, _ = ask(u, "#rt3b", "@bob hi", "bob")
    assert last_line(msgs) == "<rt3u> bob hi", texts(msgs)
    _, msgs, _ = ask(u, "#rt3b", "and then?", "bob")
    assert last_line(msgs) == "<rt3u> and then?", texts(msgs)
    _, msgs, _ = ask(u, "#rt3b", "@alice yo", "alice")
    assert last_line(msgs) == "<rt3u> alice yo", texts(msgs)
    _, msgs, _ = ask(u, "#rt3b", "next?", "alice")
    assert last_line(msgs) == "<rt3u> next?", texts(msgs)
    u.quit()


def test_rt4_only_mentions():
    """RT-4: "@alice", "alice:" and "@alice, @alice!" dispatch nothing, even with one
    agent in the channel."""
    srv = shared()
    u = mclient(srv, "rt4u")
    joined(u, "#rt4")
    for t in ("@alice", "alice:", "@alice, @alice!"):
        send(u, "#rt4", t)
    _, msgs, _ = ask(u, "#rt4", "@alice real question", "alice")
    want_echo(msgs, transcript("#rt4", ["<rt4u> @alice", "<rt4u> alice:",
                                        "<rt4u> @alice, @alice!"],
                               "<rt4u> alice real question"), "RT-4")
    u.quit()


def test_rt4_only_mention_of_absent_agent():
    """RT-4 with AG-2: "@bob" alone in #rt4 (alice's channel, bob not in it) may bring bob
    in, but dispatches nothing: neither bob nor alice answers it."""
    srv = shared()
    u = mclient(srv, "rt4b")
    joined(u, "#rt4")
    send(u, "#rt4", "@bob")
    mid = send(u, "#rt4", "@alice after bob")
    lines = until_answer(u, "alice", "#rt4", "<rt4b> alice after bob")
    extra = [m.raw for m in said(lines) if m.tags.get("+reply") != mid]
    if extra:
        raise TestFailure("RT-4: '@bob' alone (bob not in #rt4) was answered:\n  %s"
                          % "\n  ".join(extra))
    u.quit()


def test_rt6_no_turn_from_notice_ctcp_bot():
    """RT-6: a NOTICE, a CTCP request, and a +B user's message that names no agent
    exactly (no name, a prefix, a follow-up) start no turn; the next real message is the
    first thing alice answers."""
    srv = shared()
    u = mclient(srv, "rt6u")
    b = mclient(srv, "rt6bot")
    joined(u, "#rt6")
    joined(b, "#rt6")
    b.send("MODE rt6bot +B")
    b.expect(r" MODE rt6bot :?\+B")
    send(u, "#rt6", "@alice hello by notice", cmd="NOTICE")
    send(u, "#rt6", "\x01PING 12345\x01")
    send(b, "#rt6", "hello from a bot")
    send(b, "#rt6", "@ali hello from a bot")
    _, msgs, lines = ask(u, "#rt6", "@alice the real one", "alice")
    if last_line(msgs) != "<rt6u> alice the real one" or \
            len([l for l in unaddressed(texts(msgs)) if l.startswith("echo: ")]) != 1:
        raise TestFailure("RT-6: alice answered something else first:\n  %s"
                          % "\n  ".join(texts(msgs)))
    u.quit()
    b.quit()


def test_rt6_bot_names_an_agent():
    """RT-6 (revised): a bot is a user too: "@alice ..." and "alice: ..." from a +B user
    start turns, never its follow-ups; each (bot, agent) pair at most 10 wakes a minute,
    past which the bot gets a NOTICE saying so and alice is not woken. (What was not
    answered shows in the next prompt's transcript: turns are FIFO.)"""
    srv = shared()
    b = mclient(srv, "rt6ci")
    joined(b, "#rt6b")
    b.send("MODE rt6ci +B")
    b.expect(r" MODE rt6ci :?\+B")
    _, msgs, _ = ask(b, "#rt6b", "@alice build 1 failed", "alice")
    want_echo(msgs, "<rt6ci> alice build 1 failed", "RT-6 a bot's @mention")
    _, msgs, _ = ask(b, "#rt6b", "alice: build 2 failed", "alice")
    want_echo(msgs, "<rt6ci> build 2 failed", "RT-6 a bot's address")
    send(b, "#rt6b", "and build 3 too")
    _, msgs, _ = ask(b, "#rt6b", "@alice build 4 failed", "alice")
    want_echo(msgs, transcript("#rt6b", ["<rt6ci> and build 3 too"],
                               "<rt6ci> alice build 4 failed"), "RT-6 no follow-up for a bot")
    for i in range(5, 12):      # the tenth wake: "and build 3" woke nobody
        ask(b, "#rt6b", "@alice build %d failed" % i, "alice")
    send(b, "#rt6b", "@alice build 12 failed")
    b.expect_msg(r"^(?:@\S+ )?:\S+ NOTICE #rt6b :alice is not woken: a bot may wake it "
                 r"at most 10 times a minute", 10)
    # A person is not held to it; what the bot said past the rate was not answered.
    u = mclient(srv, "rt6p")
    joined(u, "#rt6b")
    _, msgs, _ = ask(u, "#rt6b", "@alice build 12?", "alice", timeout=20)
    want_echo(msgs, transcript("#rt6b", ["<rt6ci> @alice build 12 failed"],
                               "<rt6p> alice build 12?"), "RT-6 past the rate")
    u.quit()
    b.quit()


def test_rt3_people_talk_to_people():
    """RT-3 (revised): in a channel with two people and one agent, "hey, want to grab
    lunch later?" names no agent and follows up no answer: nobody answers it and nothing
    is said (alice's next prompt carries it as what was said); named, alice answers."""
    srv = shared()
    u = mclient(srv, "rt3p1")
    v = mclient(srv, "rt3p2")
    joined(u, "#rt3c")
    joined(v, "#rt3c")
    send(u, "#rt3c", "hey, want to grab lunch later?")
    send(v, "#rt3c", "sure, at noon")
    _, msgs, lines = ask(u, "#rt3c", "@alice what is noon in UTC", "alice")
    want_echo(msgs, transcript("#rt3c", ["<rt3p1> hey, want to grab lunch later?",
                                         "<rt3p2> sure, at noon"],
                               "<rt3p1> alice what is noon in UTC"), "RT-3 people")
    if notices(lines):
        raise TestFailure("RT-3: a NOTICE for people talking to people: %r"
                          % [m.raw for m in notices(lines)])
    u.quit()
    v.quit()


def test_rt3_follow_up():
    """RT-3 (revised): after alice answers rt3f1, rt3f1's next message that names nobody
    goes to alice (a follow-up); once rt3f2 has spoken, neither rt3f2's message nor
    rt3f1's next one is for alice; naming a person ends the follow-ups too."""
    srv = shared()
    u = mclient(srv, "rt3f1")
    v = mclient(srv, "rt3f2")
    joined(u, "#rt3d")
    joined(v, "#rt3d")
    ask(u, "#rt3d", "@alice why does the test fail", "alice")
    _, msgs, _ = ask(u, "#rt3d", "and what about the parser?", "alice")
    want_echo(msgs, "<rt3f1> and what about the parser?", "RT-3 follow-up")
    send(v, "#rt3d", "I think it is the lexer")
    send(u, "#rt3d", "good point")
    _, msgs, _ = ask(u, "#rt3d", "@alice so the lexer?", "alice")
    want_echo(msgs, transcript("#rt3d", ["<rt3f2> I think it is the lexer",
                                         "<rt3f1> good point"],
                               "<rt3f1> alice so the lexer?"), "RT-3 someone else spoke")
    send(u, "#rt3d", "@rt3f2 you were right")
    send(u, "#rt3d", "thanks for that")
    _, msgs, _ = ask(u, "#rt3d", "@alice bye", "alice")
    want_echo(msgs, transcript("#rt3d", ["<rt3f1> @rt3f2 you were right",
                                         "<rt3f1> thanks for that"],
                               "<rt3f1> alice bye"), "RT-3 a person named")
    u.quit()
    v.quit()


def test_rt3_follow_up_window():
    """RT-3: follow-up = 0 turns follow-ups off: an answer is followed up by nothing,
    even at once; alone in the channel, the author is at a desk and the agent that spoke
    last answers."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, follow_up=0,
                 config_extra=agent_section("w", "alice", "#fw"))
    try:
        u = mclient(srv, "fw1")
        v = mclient(srv, "fw2")
        joined(u, "#fw")
        joined(v, "#fw")
        ask(u, "#fw", "@alice hello", "alice")
        send(u, "#fw", "and then?")
        v.quit()
        time.sleep(0.2)
        _, msgs, _ = ask(u, "#fw", "alone now", "alice")
        want_echo(msgs, transcript("#fw", ["<fw1> and then?"], "<fw1> alone now"),
                  "RT-3 follow-up = 0, then a desk")
        u.quit()
    finally:
        srv.stop()


def test_tn10_paste_is_one_prompt():
    """TN-10: lines from one person to alice that come within paste-window (700 ms) of
    each other are one prompt, in order, in a channel (the next lines name nobody: they
    join the first even where RT-3 would give them to nobody) and in a query; another
    person's line in between is not joined but is in the transcript; a line after the
    prompt has started is a prompt of its own (a follow-up). The prompt's later lines
    are indented two spaces, as prompt.c marks every continuation line."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, paste_window=700,
                 config_extra=agent_section("p10", "alice", "#paste"))
    try:
        u = mclient(srv, "pst1")
        v = mclient(srv, "pst2")
        joined(u, "#paste")
        joined(v, "#paste")
        mid = send(u, "#paste", "@alice why does this fail:")
        send(u, "#paste", "    assert parse('1+') == None")
        send(v, "#paste", "not me")
        send(u, "#paste", "it raises instead")
        _, msgs, lines = ask_after(u, "alice", "#paste")
        want_echo(msgs, transcript("#paste", ["<pst2> not me"],
                                   "<pst1> alice why does this fail:\n"
                                   "      assert parse('1+') == None\n  it raises instead"),
                  "TN-10 a paste in a channel")
        if any(m.tags.get("+reply") != mid for m in msgs):
            raise TestFailure("TN-10: the answer replies to the paste's first line: %r"
                              % [m.raw for m in msgs])
        # TN-12: two people here, so the answer starts with the asker's nick.
        if len([l for l in lines if re.search(r" PRIVMSG #paste :pst1: echo: ", l)]) != 1:
            raise TestFailure("TN-10: more than one answer:\n  %s" % "\n  ".join(lines))
        # Later, on its own: a follow-up (RT-3), not joined to anything.
        time.sleep(0.8)
        _, msgs, _ = ask(u, "#paste", "and now?", "alice")
        want_echo(msgs, "<pst1> and now?", "TN-10 a later line")
        send(u, "alice", "first line")
        send(u, "alice", "second line")
        lines = until_done(u, "alice", "pst1", 10)
        pm = only_from(lines, "alice", "pst1", "TN-10 in a query")
        want_echo(pm, "<pst1> first line\n  second line", "TN-10 a paste in a query")
        u.quit()
        v.quit()
    finally:
        srv.stop()


def test_tn10_paste_held_by_flood_control():
    """TN-10: a paste of 14 lines sent at once by a client that is not flood-exempt: the
    server's flood control runs the lines past its burst one a second, yet they were
    received together, so they are still one prompt and one answer."""
    srv = Server(history_replay=0, paste_window=700,
                 config_extra=agent_section("p10f", "alice", "#pflood"))
    try:
        u = mclient(srv, "pfl")
        joined(u, "#pflood")
        lines = ["@alice line 0"] + ["line %d" % i for i in range(1, 14)]
        u.send_raw(b"".join(b"PRIVMSG #pflood :%s\r\n" % l.encode() for l in lines))
        got = until_done(u, "alice", "#pflood", 30)
        want_echo(said(got, "alice", "#pflood"), "<pfl> alice line 0\n" + "\n".join(
            "  line %d" % i for i in range(1, 14)), "TN-10 a paste held by flood control")
        if said(u.sync(), "alice"):
            raise TestFailure("TN-10: a second answer to the paste")
        u.quit()
    finally:
        srv.stop()


def test_rt7_ss1_private_session():
    """RT-7/SS-1: a private message is answered in private, in its own session: what was
    said in #rt7 never reaches it, and the private talk never reaches #rt7's session."""
    srv = shared()
    u = mclient(srv, "rt7u")
    joined(u, "#rt7")
    _, msgs, _ = ask(u, "#rt7", "@alice the password is swordfish", "alice")
    mid = send(u, "alice", "what is the password?")
    lines = until_done(u, "alice", "rt7u")
    pm = only_from(lines, "alice", "rt7u", "RT-7 private answer")
    want_echo(pm, "<rt7u> what is the password?", "SS-1 private")
    for m in pm:
        assert m.tags.get("+reply") == mid, m.raw
    _, pm, _ = ask(u, "alice", "the code is 1234", "alice", where="rt7u")
    want_echo(pm, "<rt7u> the code is 1234", "SS-1 private, second turn")
    _, msgs, _ = ask(u, "#rt7", "@alice and now?", "alice")
    want_echo(msgs, "<rt7u> alice and now?", "SS-1 channel after private")
    u.quit()


# ---------------------------------------------------------------- SS-2 (defaults)

def test_au7_agent_told_only_its_time_in_closed_channel():
    """AU-7, SS-2: an agent brought into a +s channel is not told what was said before it
    came, lest it repeat to a newcomer what the newcomer may not read; in an open channel
    it is, and once in the closed one it is told what it missed there."""
    srv = shared()
    u = mclient(srv, "au7u")
    v = mclient(srv, "au7v")
    for ch in ("#au7s", "#au7o"):
        joined(u, ch)
        joined(v, ch)
    u.send("MODE #au7s +s")
    u.expect(r" MODE #au7s \+s")
    for ch in ("#au7s", "#au7o"):
        send(u, ch, "au7v: before alice came")
        send(v, ch, "au7u: the secret part")
    _, msgs, _ = ask(u, "#au7s", "@alice hi", "alice")
    want_echo(msgs, "<au7u> alice hi", "AU-7: nothing from before the agent came")
    _, msgs, _ = ask(u, "#au7o", "@alice hi", "alice")
    want_echo(msgs, transcript("#au7o", ["<au7u> au7v: before alice came",
                                         "<au7v> au7u: the secret part"], "<au7u> alice hi"),
              "SS-2: an open channel's past")
    send(v, "#au7s", "au7u: said while alice was in")
    _, msgs, _ = ask(u, "#au7s", "@alice again", "alice")
    want_echo(msgs, transcript("#au7s", ["<au7v> au7u: said while alice was in"],
                               "<au7u> alice again"), "AU-7: what it missed while in")


def test_ss2_transcript_default_limits():
    """SS-2: the transcript holds what alice missed (humans talking to each other), not
    her own answers; at most the last 20 messages, each cut to 300 characters with …;
    the answered message whole and last."""
    srv = shared()
    u = mclient(srv, "ss2u")
    v = mclient(srv, "ss2v")
    joined(u, "#ss2")
    joined(v, "#ss2")
    _, msgs, _ = ask(u, "#ss2", "@alice one", "alice")
    want_echo(msgs, "<ss2u> alice one", "SS-2 first")
    send(u, "#ss2", "ss2v: hello there")
    send(v, "#ss2", "ss2u: hi back")
    _, msgs, _ = ask(u, "#ss2", "@alice two", "alice")
    want_echo(msgs, transcript("#ss2", ["<ss2u> ss2v: hello there", "<ss2v> ss2u: hi back"],
                               "<ss2u> alice two"), "SS-2 transcript")
    _, msgs, _ = ask(u, "#ss2", "@alice three", "alice")
    want_echo(msgs, "<ss2u> alice three", "SS-2 own answers not repeated")
    sent = []
    for i in range(25):
        t = "ss2v: n%02d " % i + ("long words é " * 30 if i == 20 else "short")
        send(u, "#ss2", t.rstrip())
        sent.append(t.rstrip())
    _, msgs, _ = ask(u, "#ss2", "@alice four", "alice")
    got = prompt_of(msgs).split("\n")
    want = transcript("#ss2", ["<ss2u> " + short(t, 300) for t in sent[-20:]],
                      "<ss2u> alice four").split("\n")
    if got != want:
        raise TestFailure("SS-2: 25 missed messages -> want the last 20 (n05..n24), "
                          "n20 cut to 300 characters\n   got %d transcript lines: %s ... %s"
                          "\n  want %d transcript lines: %s ... %s"
                          % (len(got) - 3, got[1][:40], got[-3][:40],
                             len(want) - 3, want[1][:40], want[-3][:40]))
    u.quit()
    v.quit()


# ---------------------------------------------------------------- TN

def test_tn2_one_conversation_at_a_time():
    """TN-2/AG-3: carl answering in #tn2a and asked in #tn2b -> NOTICE "carl is answering
    in #tn2a; you are next" to the #tn2b sender, WHOIS says so, #tn2b answered after."""
    srv = shared()
    u1 = mclient(srv, "tn2a")
    u2 = mclient(srv, "tn2b")
    joined(u1, "#tn2a")
    joined(u2, "#tn2a", "#tn2b")
    send(u1, "#tn2a", "@carl one two three four five")
    u2.expect(r"^@\S*\+typing=active\S* :carl!\S+ TAGMSG #tn2a$", 10)
    send(u2, "#tn2b", "@carl six")
    m = u2.expect_msg(r"^(?:@\S+ )?:\S+ NOTICE #tn2b :", 5)
    if m.params[-1] != "carl is answering in #tn2a; you are next":
        raise TestFailure("TN-2 NOTICE: %r" % m.params[-1])
    st = whois_state(u1, "carl")
    if st is None or not st.startswith("state: answering in #tn2a") or "queued: 1" not in st:
        raise TestFailure("AG-3: WHOIS carl while answering in #tn2a with one queued: %r" % st)
    la = until_done(u2, "carl", "#tn2a", 20)
    a = only_from(la, "carl", "#tn2a", "#tn2a first")
    want_echo(a, "<tn2a> carl one two three four five", "TN-2 #tn2a")
    lb = until_done(u2, "carl", "#tn2b", 20)
    b = only_from(lb, "carl", "#tn2b", "#tn2b after")
    want_echo(b, "<tn2b> carl six", "TN-2 #tn2b")
    u1.quit()
    u2.quit()


def test_tn11_queue_hint_in_channel():
    """TN-11, TN-2: carl answering in #tn11a and asked in #tn11b: "carl is answering in
    #tn11a; you are next" is a NOTICE to #tn11b (shown in that channel's window) that
    only the sender gets, not the other member; asked in a query, it is a NOTICE to the
    sender's nick."""
    srv = shared()
    u1 = joined(mclient(srv, "tn11a"), "#tn11a")
    u2 = joined(mclient(srv, "tn11b"), "#tn11b")
    u3 = joined(mclient(srv, "tn11c"), "#tn11b")
    send(u1, "#tn11a", "@carl one two three four five")
    u1.expect(r"^@\S*\+typing=active\S* :carl!\S+ TAGMSG #tn11a$", 10)
    send(u2, "#tn11b", "@carl six")
    m = u2.expect_msg(r" NOTICE ", 5)
    if (m.source, m.params) != (HOST, ["#tn11b", "carl is answering in #tn11a; you are next"]):
        raise TestFailure("TN-11: the queue hint for #tn11b: %r" % m.raw)
    send(u2, "carl", "seven")
    m = u2.expect_msg(r" NOTICE ", 5)
    if m.source != HOST or m.params[0] != "tn11b" or \
            not re.match(r"carl is answering in #tn11[ab]; you are next$", m.params[-1]):
        raise TestFailure("TN-11: the queue hint in a query: %r" % m.raw)
    if [l for l in u3.sync() if parse(l).command == "NOTICE"]:
        raise TestFailure("TN-11: tn11c got tn11b's queue hint")
    until_done(u1, "carl", "#tn11a", 20)
    until_done(u2, "carl", "#tn11b", 20)
    until_done(u2, "carl", "tn11b", 20)
    for c in (u1, u2, u3):
        c.quit()


def test_tn12_highlight_with_two_people():
    """TN-12: with two people in #tn12, alice's answer starts with the asker's nick
    ("tn12a: echo: ..."), for each asker; the agents in the channel are not people."""
    srv = shared()
    u1 = joined(mclient(srv, "tn12a"), "#tn12")
    u2 = joined(mclient(srv, "tn12b"), "#tn12")
    _, msgs, _ = ask(u1, "#tn12", "@alice hi there", "alice")
    if texts(msgs) != ["tn12a: echo: <tn12a> alice hi there"]:
        raise TestFailure("TN-12: alice's answer to tn12a: %r" % texts(msgs))
    # The other person reads the same line.
    got = texts(said(until_done(u2, "alice", "#tn12"), "alice"))
    if got != ["tn12a: echo: <tn12a> alice hi there"]:
        raise TestFailure("TN-12: alice's answer to tn12a, as tn12b reads it: %r" % got)
    _, msgs, _ = ask(u2, "#tn12", "@alice and you", "alice")
    if texts(msgs) != ["tn12b: echo: <tn12b> alice and you"]:
        raise TestFailure("TN-12: alice's answer to tn12b: %r" % texts(msgs))
    u1.quit()
    u2.quit()


def test_tn12_no_highlight_alone():
    """TN-12: alone (with agents) in #tn12s, the answer is as the agent said it; once a
    +B bot is there too, two are present (a bot is a user), and the answer names the
    asker."""
    srv = shared()
    u = joined(mclient(srv, "tn12s"), "#tn12s")
    _, msgs, _ = ask(u, "#tn12s", "@alice hi alone", "alice")
    want_echo(msgs, "<tn12s> alice hi alone", "TN-12 alone")
    bot = mclient(srv, "tn12bot")
    bot.send("MODE tn12bot +B")
    joined(bot, "#tn12s")
    _, msgs, _ = ask(u, "#tn12s", "@alice and now", "alice")
    if texts(msgs) != ["tn12s: echo: <tn12s> alice and now"]:
        raise TestFailure("TN-12: with a bot present: %r" % texts(msgs))
    u.quit()
    bot.quit()


def test_tn12_first_line_only_multiline_too():
    """TN-12: only the answer's first line names the asker: the first line of the first
    draft/multiline batch for clients with it, the first PRIVMSG for the others."""
    srv = shared()
    u = joined(mclient(srv, "tn12m", caps="draft/multiline batch message-tags echo-message"),
               "#tn12m")
    plain = joined(mclient(srv, "tn12p"), "#tn12m")
    script("tn12m", ["line one\nline two\n\nsecond paragraph\n"])
    send(u, "#tn12m", "@scripty say tn12m")
    lines = until_done(u, "scripty", "#tn12m")
    batches, order = {}, []
    for l in lines:
        m = parse(l)
        if m.command == "BATCH" and m.params[0].startswith("+"):
            batches[m.params[0][1:]] = []
            order.append(m.params[0][1:])
        elif m.command == "PRIVMSG" and is_from(m, "scripty"):
            batches.setdefault(m.tags.get("batch"), []).append(m.params[-1])
    got = [batches[r] for r in order]
    if got != [["tn12m: line one", "line two"], ["second paragraph"]]:
        raise TestFailure("TN-12: the multiline batches: %r" % got)
    got = texts(said(until_done(plain, "scripty", "#tn12m"), "scripty"))
    if got != ["tn12m: line one", "line two", "second paragraph"]:
        raise TestFailure("TN-12: the lines without multiline: %r" % got)
    u.quit()
    plain.quit()


def test_tn3_typing_and_history():
    """TN-3: TAGMSG +typing=active before the answer and +typing=done after, only to
    message-tags clients; HS-4: the answer is in CHATHISTORY with +reply."""
    srv = shared()
    u = mclient(srv, "tn3u")
    plain = mclient(srv, "tn3plain", caps="")
    joined(u, "#tn3")
    joined(plain, "#tn3")
    mid, msgs, lines = ask(u, "#tn3", "@alice are you typing", "alice")
    kinds = []
    for l in lines:
        m = parse(l)
        if is_from(m, "alice"):
            kinds.append(m.tags.get("+typing", "?") if m.command == "TAGMSG" else m.command)
    if not kinds or kinds[0] != "active" or kinds[-1] != "done" or "PRIVMSG" not in kinds:
        raise TestFailure("TN-3: alice's lines in order: %r" % kinds)
    # TN-12: two people are here, so the answer names the asker.
    plain.expect(r":alice!agent@\S+ PRIVMSG #tn3 :tn3u: echo: <tn3u> alice are you typing$")
    plain.sync()
    tm = [l for l in plain.lines if " TAGMSG " in l]
    assert not tm, "TAGMSG sent to a client without message-tags: %r" % tm
    h = mclient(srv, "tn3hist", caps="draft/chathistory batch server-time message-tags")
    joined(h, "#tn3")
    h.send("CHATHISTORY LATEST #tn3 * 10")
    lines = h.collect_until(r"^(?:@\S+ )?:\S+ (?:BATCH -\S+$|FAIL )")
    hist = [parse(l) for l in lines if " PRIVMSG #tn3 " in l]
    mine = [m for m in hist if is_from(m, "alice")]
    if not mine or mine[-1].params[-1] != msgs[-1].params[-1] or \
            mine[-1].tags.get("+reply") != mid or \
            mine[-1].tags.get("msgid") != msgs[-1].tags.get("msgid"):
        raise TestFailure("HS-4: alice's answer not in CHATHISTORY with +reply=%s:\n  %s"
                          % (mid, "\n  ".join(lines)))
    u.quit()
    plain.quit()
    h.quit()


def _tn4_lines():
    lines = []
    for i in range(200):
        if i == 40:
            lines.append("```c")
        elif i == 41:
            lines.append("    int main(void) {")
        elif i == 42:
            lines.append("")             # inside the fence: kept as a line
        elif i == 43:
            lines.append("        return 0;   /* ünïcödé ✓ */")
        elif i == 44:
            lines.append("    }")
        elif i == 45:
            lines.append("```")
        elif i == 80:
            lines.append(" ".join("wörd%03d" % k for k in range(180)))
        elif i == 120:
            lines.append("日本語" * 250)
        elif i == 160:
            lines.append("\tindented with a tab, ∑ and emoji 🎉 line %03d" % i)
        else:
            lines.append("line %03d ünïcödé ✓ 日本語 🎉" % i)
        if i in (100, 150):
            lines.append("")            # outside a fence: not sent
    return lines


def _check_tn4(msgs, lines, what):
    got = texts(msgs)
    for m in msgs:
        if wire_len(m.raw) > 510:
            raise TestFailure("%s: %d bytes on the wire (> 510): %r..."
                              % (what, wire_len(m.raw), m.raw[:120]))
        if "\ufffd" in m.raw:
            raise TestFailure("%s: broken UTF-8: %r" % (what, m.raw))
    gi = 0
    fence = False
    for n, line in enumerate(lines):
        if line.lstrip(" \t").startswith("```"):
            fence = not fence
        # TN-13: a TAB arrives as spaces to the next multiple of 8 columns.
        line = line.expandtabs(8)
        if not line.strip():
            if fence:
                if gi >= len(got) or got[gi].strip():
                    raise TestFailure("%s: blank line in a code block not kept at line %d: "
                                      "got %r" % (what, n, got[gi:gi + 1]))
                gi += 1
            continue
        acc = ""
        pieces = []
        while acc != line:
            if gi >= len(got):
                raise TestFailure("%s: answer ends before line %d %r" % (what, n, line[:60]))
            p = got[gi]
            gi += 1
            if not line.startswith(acc + p):
                raise TestFailure("%s: line %d %r\n  got piece %r after %r"
                                  % (what, n, line[:80], p[:80], acc[-40:]))
            acc += p
            pieces.append(p)
        if len(pieces) > 1 and " " in line:
            for p in pieces[:-1]:
                if not p.endswith(" "):
                    raise TestFailure("%s: line %d split inside a word: ...%r | %r..."
                                      % (what, n, p[-20:], line[len(p):][:20]))
    if gi != len(got):
        raise TestFailure("%s: %d extra lines: %r" % (what, len(got) - gi, got[gi:gi + 3]))


def test_tn4_200_lines_long_utf8_code():
    """TN-4/AG-5: a 200-line answer streamed in odd chunks from an agent with a 30-byte
    nick in a 50-byte channel: in order, nothing dropped, lines <= 512 bytes, long lines
    cut between words (or UTF-8 characters), code fences keep their lines and
    indentation, blank lines outside code not sent; a TAB arrives as spaces (TN-13)."""
    srv = shared()
    u = mclient(srv, "tn4u")
    joined(u, LONGCHAN)
    lines = _tn4_lines()
    body = "\n".join(lines) + "\n"
    script("big", [body[i:i + 173] for i in range(0, len(body), 173)])
    mid, msgs, _ = ask(u, LONGCHAN, "@%s say big" % LONGNICK, LONGNICK, timeout=30)
    _check_tn4(msgs, lines, "TN-4")
    for m in msgs:
        assert m.tags.get("+reply") == mid, m.raw
    u.quit()


def test_sec4_agents_get_valid_utf8():
    """SEC-4: IRC text need not be UTF-8, ACP frames must be (reference/acp.md). A line
    in Latin-1 reaches an agent with U+FFFD for each bad byte, in its prompt and in the
    transcript of its next turn. strict checks every frame as a Rust agent's serde_json
    does, and exits on one that is not UTF-8, which the SDK's own decoder would hide."""
    srv = shared()
    u = mclient(srv, "u8u")
    joined(u, "#utf8")
    u.send(b"PRIVMSG #utf8 :@strict caf\xe9 cr\xe8me \xe2\x82")
    lines = until_done(u, "strict", "#utf8")
    msgs = only_from(lines, "strict", "#utf8", "strict <- Latin-1")
    want_echo(msgs, "<u8u> strict caf\ufffd cr\ufffdme \ufffd", "SEC-4 prompt")
    # Said to alice, so strict gets it in its next turn's transcript.
    u.send(b"PRIVMSG #utf8 :@alice na\xefve \xff\xfe")
    until_done(u, "alice", "#utf8")
    send(u, "#utf8", "@strict and now?")
    lines = until_done(u, "strict", "#utf8")
    got = prompt_of(only_from(lines, "strict", "#utf8", "strict <- transcript"))
    if "<u8u> alice na\ufffdve \ufffd\ufffd" not in got or not got.endswith("and now?"):
        raise TestFailure("SEC-4: strict's second prompt: %r" % got)
    assert agent_pids("s", "strict"), "SEC-4: strict is no longer running"
    u.quit()


def test_tn4_multiline_batches():
    """TN-4: a client with draft/multiline gets each paragraph as one multiline batch."""
    srv = shared()
    probe = Client(srv)
    probe.send("CAP LS 302")
    ls = " ".join(probe.collect_until(r" CAP \* LS :"))
    probe.close()
    if "draft/multiline" not in ls:
        raise TestFailure("draft/multiline is not offered (CAP LS: %s)" % ls)
    u = mclient(srv, "mlu", caps="draft/multiline batch message-tags echo-message")
    joined(u, "#ml")
    paras = ["first paragraph line one\nline two ünï", "second paragraph 🎉\nand more"]
    script("ml", ["\n\n".join(paras)])
    send(u, "#ml", "@scripty say ml")
    lines = until_done(u, "scripty", "#ml")
    batches = {}
    order = []
    for l in lines:
        m = parse(l)
        if m.command == "BATCH" and m.params[0].startswith("+"):
            assert m.params[1] == "draft/multiline" and m.params[2] == "#ml", m.raw
            batches[m.params[0][1:]] = []
            order.append(m.params[0][1:])
        elif m.command == "PRIVMSG" and is_from(m, "scripty"):
            ref = m.tags.get("batch")
            if ref not in batches:
                raise TestFailure("agent line outside a multiline batch: %s" % m.raw)
            batches[ref].append(m)
    got = []
    for ref in order:
        t = ""
        for i, m in enumerate(batches[ref]):
            t += ("" if i == 0 or "draft/multiline-concat" in m.tags else "\n") + m.params[-1]
        got.append(t)
    if got != paras:
        raise TestFailure("multiline paragraphs: %r, want %r" % (got, paras))
    u.quit()



# ---------------------------------------------------------------- TN-4: backpressure

BP_LINES = 20000        # about 2 MB of answer: twice the default SendQ, sent as one chunk


def _bp_want(tag, asker=None):
    """The lines of the answer; asker: as members see them where several people are,
    the first naming the asker (TN-12)."""
    want = ["%s %05d %s" % (tag, i, "z" * 88) for i in range(BP_LINES)]
    if asker is not None:
        want[0] = "%s: %s" % (asker, want[0])
    return want


def _bp_body(tag):
    return "".join(l + "\n" for l in _bp_want(tag))


def _bp_collect(clients, end_rx, timeout=90):
    """Read every client at once (one thread each), each after its own delay in
    seconds, until a line matching end_rx or the connection's end. Returns, by client,
    the parsed lines, or the exception that ended its reading."""
    out = {}

    def reader(c, delay):
        time.sleep(delay)
        try:
            out[c] = [parse(l) for l in c.collect_until(end_rx, timeout=timeout)]
        except Exception as e:          # noqa: BLE001: reported by the caller
            out[c] = e
    threads = [threading.Thread(target=reader, args=(c, d)) for c, d in clients.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _bp_check(c, got, chan, tag, what, asker):
    """c got every line of the answer asker asked for, in order, and nothing else from
    scripty."""
    if isinstance(got, Exception):
        raise TestFailure("%s: %s did not get the whole answer: %s" % (what, c.nick, got))
    texts_ = [m.params[-1] for m in got if m.command == "PRIVMSG" and
              is_from(m, "scripty") and m.params[0] == chan and
              not m.params[-1].startswith("\x01")]
    want = _bp_want(tag, asker)
    if texts_ != want:
        i = next((k for k, (a, b) in enumerate(zip(texts_, want)) if a != b),
                 min(len(texts_), len(want)))
        raise TestFailure("%s: %s got %d of %d lines; from line %d: %r, want %r"
                          % (what, c.nick, len(texts_), len(want), i,
                             texts_[i:i + 2], want[i:i + 2]))


def _bp_late_reader(u, late, chan, tag, what):
    """u asks scripty in chan for the 2 MB answer, then a tool call; late starts reading
    3 s after u. Both get all of it, and late is still connected."""
    name = chan.lstrip("#")
    script(name, [_bp_body(tag), {"tool": "end.c"}])
    send(u, chan, "@scripty say %s" % name)
    got = _bp_collect({u: 0, late: 3}, r" PRIVMSG %s :\x01ACTION edited end\.c"
                      % re.escape(chan))
    for c in (u, late):
        _bp_check(c, got[c], chan, tag, what, u.nick)
    late.send("PING :still")
    late.expect(r" PONG \S+ :still")


def test_tn4_backpressure_huge_chunk():
    """TN-4: an answer of 2 MB in one chunk (twice a SendQ) reaches every member whole
    and in order, the tool call after it, and costs nobody the connection (it used to
    cost every member its SendQ): plain, message-tags and draft/multiline clients."""
    srv = shared()
    u = mclient(srv, "bpa")
    plain = Client(srv, "bpplain")
    ml = mclient(srv, "bpml", caps="draft/multiline batch message-tags")
    for c in (u, plain, ml):
        joined(c, "#bp1")
    script("bp1", [_bp_body("one"), {"tool": "big.c"}])
    send(u, "#bp1", "@scripty say bp1")
    got = _bp_collect({u: 0, plain: 0, ml: 0}, r" PRIVMSG #bp1 :\x01ACTION edited big\.c")
    for c in (u, plain, ml):
        _bp_check(c, got[c], "#bp1", "one", "TN-4", u.nick)
    until_done(u, "scripty", "#bp1")
    for c in (u, plain, ml):
        c.quit()


def test_tn4_backpressure_waits_for_a_slow_reader():
    """TN-4: a member that starts reading 3 s late, through a 4 KiB receive buffer, is
    waited for: it gets the whole 2 MB answer and stays connected, as does the member
    who reads at once."""
    srv = shared()
    u = mclient(srv, "bpb")
    slow = mclient(srv, "bpslow", slow=True)
    joined(u, "#bp2")
    joined(slow, "#bp2")
    _bp_late_reader(u, slow, "#bp2", "two", "TN-4, slow reader")
    u.quit()
    slow.quit()


def test_tn4_backpressure_gives_up_on_a_stalled_reader():
    """TN-4: a member that reads nothing is not waited for long (10 s a slice): its SendQ
    drops it, as for any traffic, and the member who reads gets the whole answer."""
    srv = shared()
    u = mclient(srv, "bpc")
    stalled = mclient(srv, "bpstalled", slow=True)
    joined(u, "#bp3")
    joined(stalled, "#bp3")
    script("bp3", [_bp_body("three"), {"tool": "end.c"}])
    send(u, "#bp3", "@scripty say bp3")
    got = _bp_collect({u: 0}, r" PRIVMSG #bp3 :\x01ACTION edited end\.c")
    _bp_check(u, got[u], "#bp3", "three", "TN-4, stalled reader", u.nick)
    quits = [m for m in got[u] if m.command == "QUIT" and is_from(m, "bpstalled")]
    if not quits or "SendQ exceeded" not in quits[0].params[-1]:
        raise TestFailure("the stalled reader was not dropped by its SendQ: %r"
                          % [m.raw for m in quits])
    stalled.close()
    u.quit()



def test_tn4_backpressure_tls():
    """TN-4 over TLS, on its own server: a member on TLS who starts reading 3 s late
    through a small window gets the whole 2 MB answer and stays connected (TLS output
    waits in the TLS layer's buffer, which the backpressure counts too)."""
    d = tempfile.mkdtemp(prefix="mkcert-", dir=TMP)
    r = subprocess.run([daemon_path(), "--mkcert", d], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise TestFailure("--mkcert: %r" % r.stderr)
    out = r.stdout.decode()
    cert = re.search(r"tls-cert = (\S+)", out).group(1)
    key = re.search(r"tls-key = (\S+)", out).group(1)
    port = free_port()
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, config_extra=(
        "[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n\n" % (port, cert, key)
        + agent_section("t", "scripty", "#bpt", script_agent=True)))
    try:
        wait_port(port)
        u = mclient(srv, "bpt")
        tls = Client(types.SimpleNamespace(host=srv.host, port=port), tls=True,
                     rcvbuf=4096, maxseg=536)
        tls.register("bptls")
        joined(u, "#bpt")
        joined(tls, "#bpt")
        _bp_late_reader(u, tls, "#bpt", "tls", "TN-4, TLS")
        u.quit()
        tls.quit()
    finally:
        srv.stop()

def _scripty_answers(u, chan, what):
    """scripty takes a new turn in chan and hears it whole (after a stop or a crash)."""
    _, msgs, _ = ask(u, chan, "@scripty are you there", "scripty", timeout=20)
    if texts(msgs)[-1] != "heard: <%s> scripty are you there" % u.nick:
        raise TestFailure("%s: %r" % (what, texts(msgs)))


def test_tn6_stop_while_the_answer_waits():
    """TN-6 with TN-4's backpressure: !stop while a 2 MB answer waits for a reader ends
    the turn: the rest of the answer and the tool call after it are not sent, and the
    agent answers the next message."""
    srv = shared()
    u = mclient(srv, "bpd")
    stalled = mclient(srv, "bpstall2", slow=True)
    joined(u, "#bp4")
    joined(stalled, "#bp4")
    script("bp4", [_bp_body("four"), {"tool": "never.c"}])
    send(u, "#bp4", "@scripty say bp4")
    u.expect(r" PRIVMSG #bp4 :four 00010 ", 20)
    send(u, "#bp4", "!stop")
    lines = until_done(u, "scripty", "#bp4", 30)
    got = texts(said(lines, "scripty", "#bp4"))
    if any("never.c" in t for t in got) or len(got) + 11 >= BP_LINES:
        raise TestFailure("TN-6: after !stop the held answer went on: %d lines, "
                          "tool call %s" % (len(got) + 11,
                                            any("never.c" in t for t in got)))
    stalled.close()
    u.drain(0.5)
    _scripty_answers(u, "#bp4", "after !stop")
    u.quit()


def test_tn9_exit_while_the_answer_waits():
    """TN-4, TN-9: the agent says 2 MB and one more line, then exits at once, while its
    answer waits for a member who reads 3 s late: both members get every line, the last
    one too, and then the notice that it failed."""
    srv = shared()
    u = mclient(srv, "bpe")
    slow = mclient(srv, "bpslow5", slow=True)
    joined(u, "#bp5")
    joined(slow, "#bp5")
    script("bp5", [_bp_body("five"), "tail line\n", {"exit": 3}])
    send(u, "#bp5", "@scripty say bp5")
    got = _bp_collect({u: 0, slow: 3}, r"^(?:@\S+ )?:%s NOTICE #bp5 :" % re.escape(HOST))
    for c in (u, slow):
        g = got[c]
        if not isinstance(g, Exception):
            if "tail line" not in [m.params[-1] for m in g]:
                raise TestFailure("TN-9: %s did not get the line said before the exit"
                                  % c.nick)
            g = [m for m in g if m.params[-1] != "tail line"]
            n = g[-1].params[-1]
            if "scripty" not in n or not re.search(r"(?i)exit|status|fail", n):
                raise TestFailure("TN-9: the NOTICE does not say it failed: %r" % n)
        _bp_check(c, g, "#bp5", "five", "TN-9, exit while held", u.nick)
    u.quit()
    slow.quit()



def test_ag2_kick_while_the_answer_waits():
    """AG-2 with TN-4's backpressure: KICK takes the agent out in the middle of a 2 MB
    answer that waits for a slow reader: nothing more of it reaches the channel, and
    the agent answers in another channel afterwards."""
    srv = shared()
    u = mclient(srv, "bpk")
    stalled = mclient(srv, "bpstall3", slow=True)
    joined(u, "#bp6", "#bp7")
    joined(stalled, "#bp6")
    u.send("INVITE scripty #bp6")
    u.expect(r"^(?:@\S+ )?:scripty!\S+ JOIN :?#bp6")
    u.send("INVITE scripty #bp7")
    u.expect(r"^(?:@\S+ )?:scripty!\S+ JOIN :?#bp7")
    script("bp6", [_bp_body("six"), {"tool": "never.c"}])
    send(u, "#bp6", "@scripty say bp6")
    u.expect(r" PRIVMSG #bp6 :six 00010 ", 20)
    u.send("KICK #bp6 scripty :enough")
    lines = u.collect_until(r" KICK #bp6 scripty ", 30)
    n = len(said(lines, "scripty", "#bp6")) + 11
    after = u.drain(2)
    late = said(after, "scripty", "#bp6")
    if late or n >= BP_LINES:
        raise TestFailure("AG-2: scripty went on in #bp6 after its KICK: %d lines after "
                          "(%d before)" % (len(late), n))
    stalled.close()
    _, msgs, _ = ask(u, "#bp7", "@scripty still there", "scripty", timeout=20)
    if texts(msgs)[-1] != "heard: <bpk> scripty still there":
        raise TestFailure("after the KICK: %r" % texts(msgs))
    u.quit()

def _bp_paced(c, end_rx, pause, timeout=90):
    """Read c slowly: one receive (at most its receive buffer) every pause seconds,
    until a line matching end_rx. The parsed lines."""
    rx = re.compile(end_rx)
    out = []
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        time.sleep(pause)
        c._fill(0.01)
        while c.pending:
            line = c.pending.popleft()
            out.append(parse(line))
            if rx.search(line):
                return out
        if c.eof:
            raise TestFailure("%s: connection closed after %d lines: %r"
                              % (c.nick, len(out), c.lines[-2:]))
    raise TestFailure("%s: no %s within %ds (%d lines, last %r)"
                      % (c.nick, end_rx, timeout, len(out), out[-1].raw[:80] if out else None))


def test_tn8_watchdog():
    """TN-8 (turn-timeout 1 s), on its own server: a turn that runs too long is
    cancelled and the channel is told so, after the unfinished line it had said; a turn whose answer is still going out to a
    slow reader (TN-4's backpressure) is not: the agent is waiting for us, not we for
    it. It is neither cancelled nor restarted, and both members get all of it."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, turn_timeout=1,
                 sendq="128k", config_extra=agent_section("w", "scripty", "#bpw",
                                                          script_agent=True))
    try:
        u = mclient(srv, "bpw")
        joined(u, "#bpw")
        send(u, "#bpw", "@scripty dawdle")
        lines = u.collect_until(r"^(?:@\S+ )?:%s NOTICE #bpw :" % re.escape(HOST), 15)
        n = u.last.params[-1]
        if n != "scripty took too long and was stopped":
            raise TestFailure("TN-8: the watchdog's notice: %r" % n)
        if "dawdling" not in texts(said(lines, "scripty")):
            raise TestFailure("TN-8: what was said before the watchdog was lost: %r" % lines)
        with open(srv.log, errors="replace") as f:
            fired = f.read().count("turn over the time limit")
        pid = agent_pids("w", "scripty")

        slow = mclient(srv, "bpwslow", slow=True)
        joined(slow, "#bpw")
        want = ["wd %05d %s" % (i, "z" * 90) for i in range(4000)]
        script("bpw", ["".join(l + "\n" for l in want)])
        send(u, "#bpw", "@scripty say bpw")
        done = r"\+typing=done\S* :scripty!\S+ TAGMSG #bpw$"
        got = {}

        def fast():
            got[u] = [parse(l) for l in u.collect_until(done, timeout=90)]
            got["ended"] = time.time()
        t0 = time.time()
        t = threading.Thread(target=fast)
        t.start()
        got[slow] = _bp_paced(slow, done + "|" + re.escape(want[-1]), 0.05)
        if got[slow][-1].command != "TAGMSG":
            got[slow] += [parse(l) for l in slow.collect_until(done, timeout=30)]
        took = time.time() - t0
        t.join()
        # TN-12: two people are here, so the first line names the asker.
        want[0] = "bpw: " + want[0]
        for c in (u, slow):
            have = [m.params[-1] for m in got[c]
                    if m.command == "PRIVMSG" and is_from(m, "scripty")]
            if have != want:
                raise TestFailure("%s got %d of %d lines: %r ... %r"
                                  % (c.nick, len(have), len(want), have[:2], have[-2:]))
            if any(m.command == "NOTICE" for m in got[c]):
                raise TestFailure("a notice about the held turn: %r"
                                  % [m.raw for m in got[c] if m.command == "NOTICE"])
        if got["ended"] - t0 < 2:
            raise TestFailure("the turn ended %.1fs after the question: too soon to show "
                              "anything about a 1 s watchdog" % (got["ended"] - t0))
        with open(srv.log, errors="replace") as f:
            if f.read().count("turn over the time limit") != fired:
                raise TestFailure("TN-8: the watchdog fired on a turn whose answer waited "
                                  "for a slow reader (%.1fs)" % took)
        if agent_pids("w", "scripty") != pid:
            raise TestFailure("the agent was restarted: %r, was %r"
                              % (agent_pids("w", "scripty"), pid))
        u.quit()
        slow.quit()
    finally:
        srv.stop()

def test_ag5_no_injection():
    """AG-5: CR, LF, NUL and \\x01 in an agent's text never become protocol: no bare CR
    or NUL on the wire, no line without a prefix, no leading \\x01 (CTCP), and the text
    around them is not lost."""
    srv = shared()
    u = mclient(srv, "inju")
    joined(u, "#inj")
    script("inj", ["safe start\rPRIVMSG #inj :injected-cr\n",
                   "\x01VERSION\x01\n", "\x01ACTION waves\x01 leading ctcp\n",
                   "mid \x01PING 1\x01 text\n",
                   "tail\r\nJOIN #injected-crlf\r\n",
                   "nul\x00QUIT :injected-nul\n", "the end"])
    _, msgs, lines = ask(u, "#inj", "@scripty say inj", "scripty")
    for l in lines:
        if "\r" in l or "\x00" in l:
            raise TestFailure("AG-5: CR or NUL inside a line on the wire: %r" % l)
        if not l.startswith((":", "@")):
            raise TestFailure("AG-5: a line without a prefix (injected): %r" % l)
        m = parse(l)
        if is_from(m, "scripty") and m.command not in ("PRIVMSG", "TAGMSG"):
            raise TestFailure("AG-5: the agent sent %s: %r" % (m.command, l))
    got = texts(msgs)
    for t in got:
        if t.startswith("\x01"):
            raise TestFailure("AG-5: a leading \\x01 reached the wire: %r" % t)
    joined_text = " | ".join(got)
    for word in ("safe start", "PRIVMSG #inj :injected-cr", "VERSION", "leading ctcp",
                 "mid \x01PING 1\x01 text", "tail", "JOIN #injected-crlf", "nul",
                 "the end"):
        if word not in joined_text:
            raise TestFailure("TN-4: %r was dropped; the agent's lines: %r" % (word, got))
    if "QUIT :injected-nul" not in joined_text:
        raise TestFailure("TN-4 (no text is ever dropped): the text after a NUL was lost;"
                          " the agent's lines: %r" % got)
    if [l for l in u.lines if " JOIN #injected" in l]:
        raise TestFailure("AG-5: a JOIN was injected")
    u.quit()


def test_sigterm_stops_gracefully():
    """Issue 22, a graceful stop: dally answers in #gs (it said a line and half of one,
    and waits) and a second prompt waits behind it when the daemon gets SIGTERM. The
    people there get the half line, a NOTICE that dally was stopped by the shutdown, one
    that the waiting prompt was not answered, then ERROR; the daemon is gone within
    10 s; after a restart, CHATHISTORY has both NOTICEs."""
    p = PServer("gstop", flood_exempt="127.0.0.0/8", history_replay=0,
                config_extra=agent_section("g", "dally", "#gs", script_agent=True))
    u = joined(mclient(p, "gsu"), "#gs")
    u.send("PRIVMSG #gs :dally: linger")
    # Its first line came: the half line written right after it is in the daemon.
    u.expect(r":dally!\S+ PRIVMSG #gs :lingering", 15)
    time.sleep(0.3 * SLOW)      # and has surely been read by now
    u.send("PRIVMSG #gs :dally: and then?")
    u.sync()
    t0 = time.time()
    p.stop(timeout=10)
    took = time.time() - t0
    u.drain(1.0)
    lines = u.lines             # all of it, what came before the stop too
    got = [parse(l) for l in lines]
    texts = [m.params[-1] for m in got if m.command in ("PRIVMSG", "NOTICE") and m.params]
    want = ["dally was stopped: the server is shutting down",
            "dally did not answer gsu: the server is shutting down; ask again when it is back"]
    missing = [w for w in want if w not in texts]
    if missing or "and half a line" not in texts or \
            not any(m.command == "ERROR" for m in got):
        raise TestFailure("at SIGTERM #gs got %r; missing %r" % (lines, missing))
    if took > 10 * SLOW:
        raise TestFailure("the daemon took %.1fs to stop" % took)
    p.start()
    h = mclient(p, "gsh", caps="draft/chathistory batch server-time message-tags")
    h.join("#gs")
    h.send("CHATHISTORY LATEST #gs * 20")
    hist = [parse(l).params[-1] for l in h.collect_until(r" BATCH -", 10)
            if parse(l).command in ("PRIVMSG", "NOTICE")]
    if [w for w in want if w not in hist]:
        raise TestFailure("the NOTICEs are not in history: %r" % hist)
    h.quit()
    p.stop()


def test_tn6_stop():
    """TN-6: !stop cancels the running turn: what was streamed stays, nothing more comes;
    TN-14: the channel is told who stopped whose answer to whom; !stop with nothing
    running says so; the agent answers again afterwards."""
    srv = shared()
    u = mclient(srv, "tn6u")
    v = mclient(srv, "tn6v")
    joined(u, "#tn6")
    joined(v, "#tn6")
    for t in ("tn6v: alpha", "tn6v: beta", "tn6v: gamma", "tn6v: delta", "tn6v: epsilon"):
        send(u, "#tn6", t)
    send(u, "#tn6", "@carl go on and on and on")
    first = u.expect_msg(r"^@\S+ :carl!\S+ PRIVMSG #tn6 :", 10)
    send(u, "#tn6", "!stop")
    t0 = time.time()
    lines = until_done(u, "carl", "#tn6", 5)
    stop_took = time.time() - t0
    told = [parse(l).params[-1] for l in lines if parse(l).command == "NOTICE" and
            parse(l).params[0] == "#tn6" and (parse(l).source or "") == HOST]
    if "tn6u stopped carl's answer to tn6u" not in told:
        raise TestFailure("TN-14: !stop not confirmed in the channel: %r" % told)
    more = u.drain(1.5)
    after = said(lines + more, "carl")
    all_said = [first.params[-1]] + texts(after)
    if any("go on and on" in t for t in all_said) or len(all_said) >= 8:
        raise TestFailure("TN-6: carl kept answering after !stop (%.1fs): %r"
                          % (stop_took, all_said))
    late = said(more, "carl")
    if late:
        raise TestFailure("TN-6: carl spoke after its typing=done: %r" % texts(late))
    send(u, "#tn6", "!stop")
    u.expect(r"^(?:@\S+ )?:\S+ NOTICE #tn6 :Nothing to stop")
    _, msgs, _ = ask(u, "#tn6", "@carl ok", "carl", timeout=20)
    assert last_line(msgs) == "<tn6u> carl ok", texts(msgs)
    u.quit()
    v.quit()


def test_tn7_tn9_crash_mid_turn():
    """TN-7/TN-9: the agent process dies mid-turn: a server NOTICE in the channel says
    so; the next message starts it again and is answered."""
    srv = shared()
    u = mclient(srv, "crashu")
    joined(u, "#crash")
    send(u, "#crash", "@scripty crash")
    lines = u.collect_until(r"^(?:@\S+ )?:%s NOTICE #crash :" % re.escape(HOST), 15)
    n = u.last.params[-1]
    if "scripty" not in n or not re.search(r"(?i)exit|status|signal|died|crash|fail", n):
        raise TestFailure("TN-9: crash NOTICE does not say what happened: %r" % n)
    if "about to crash" not in texts(said(lines, "scripty")):
        raise TestFailure("the streamed text before the crash was lost: %r" % lines)
    u.drain(0.3)
    _scripty_answers(u, "#crash", "after the crash")
    u.quit()


def test_ag2_mention_order_when_joining():
    """AG-2/RT-2/RT-5: "@bob @alice ..." in a channel where neither is: both JOIN, bob
    answers first, and each receives "bob alice ..." without '@'."""
    srv = shared()
    u = mclient(srv, "frshu")
    joined(u, "#fresh")
    mid = send(u, "#fresh", "@bob @alice compare fresh")
    lines = until_done(u, "alice", "#fresh", 8)
    jn = [nick_of(parse(l).source) for l in lines if parse(l).command == "JOIN"]
    if sorted(jn) != ["alice", "bob"]:
        raise TestFailure("AG-2: JOINs seen: %r" % jn)
    order = [nick_of(m.source) for m in said(lines, target="#fresh")]
    firsts = [n for i, n in enumerate(order) if i == 0 or order[i - 1] != n]
    if firsts[:2] != ["bob", "alice"]:
        raise TestFailure("RT-2: answer order %r, want bob then alice:\n  %s"
                          % (firsts, "\n  ".join(lines)))
    b = said(lines, "bob")
    if b and texts(b)[-1] != "echo: <frshu> bob alice compare fresh":
        raise TestFailure("RT-5: bob received %r, want '<frshu> bob alice compare fresh'"
                          % prompt_of(b))
    u.quit()


def test_ag2_quoted_mention_brings_the_agent():
    """AG-2/RT-1: the mentions that bring an agent in are the ones routing reads (one
    tokenizer, mention.c): '"@alice"' in a channel where alice is not makes her JOIN
    and answer, as '@alice' would."""
    srv = shared()
    u = mclient(srv, "quotu")
    joined(u, "#quoted")
    send(u, "#quoted", 'so "@alice" what is a quote')
    lines = until_done(u, "alice", "#quoted", 8)
    if not any(re.search(r":alice!\S+ JOIN :?#quoted", l) for l in lines):
        raise TestFailure("AG-2: alice did not JOIN for a quoted mention:\n  %s"
                          % "\n  ".join(lines))
    if not said(lines, "alice", target="#quoted"):
        raise TestFailure("RT-1: alice did not answer a quoted mention:\n  %s"
                          % "\n  ".join(lines))
    u.quit()


# ---------------------------------------------------------------- persistent server

def test_ss2_configured_limits():
    """SS-2: transcript-lines = 3 and transcript-chars = 20: the last 3 missed messages,
    each cut to 20 characters with …; the answered message whole."""
    srv = pserver()
    u = mclient(srv, "ss2a")
    v = mclient(srv, "ss2b")
    joined(u, "#ss2")
    joined(v, "#ss2")
    _, msgs, _ = ask(u, "#ss2", "@alice start", "alice")
    want_echo(msgs, "<ss2a> alice start", "SS-2 first turn")
    sent = ["ss2b: héllo wörld number %d is rather long" % i for i in range(5)]
    sent[4] = "ss2b: short"
    for t in sent:
        send(u, "#ss2", t)
    answered = "@alice go, this answered message is longer than twenty characters"
    _, msgs, _ = ask(u, "#ss2", answered, "alice")
    want = transcript("#ss2", ["<ss2a> " + short(t, 20) for t in sent[-3:]],
                      "<ss2a> " + answered.replace("@alice", "alice"))
    want_echo(msgs, want, "SS-2 transcript-lines 3, transcript-chars 20")
    u.quit()
    v.quit()


def test_ag2_invite_kick_mention():
    """AG-2: INVITE makes the agent JOIN; KICK takes it out; a mention in a channel where
    it is not makes it JOIN then answer (RT-5: "alice hello", no '@')."""
    srv = pserver()
    u = mclient(srv, "agtwo")
    joined(u, "#inv", "#kick", "#men")
    u.send("INVITE alice #inv")
    u.expect(r"^(?:@\S+ )?:alice!agent@%s JOIN :?#inv" % re.escape(HOST))
    assert "alice" in names_of(u, "#inv")
    u.send("INVITE alice #kick")
    u.expect(r"^(?:@\S+ )?:alice!agent@%s JOIN :?#kick" % re.escape(HOST))
    u.send("KICK #kick alice :out")
    u.expect(r"^(?:@\S+ )?:agtwo!\S+ KICK #kick alice")
    assert "alice" not in names_of(u, "#kick")
    send(u, "#men", "@alice hello there")
    lines = until_done(u, "alice", "#men", 8)
    jn = [i for i, l in enumerate(lines) if re.search(r":alice!\S+ JOIN :?#men", l)]
    first = [i for i, l in enumerate(lines) if re.search(r":alice!\S+ PRIVMSG #men ", l)]
    if not jn or not first or jn[0] > first[0]:
        raise TestFailure("AG-2: want JOIN #men then the answer:\n  %s" % "\n  ".join(lines))
    got = last_line(said(lines, "alice"))
    if got != "<agtwo> alice hello there":
        raise TestFailure("RT-5: alice, brought in by a mention, received %r, want %r"
                          % (got, "<agtwo> alice hello there"))
    u.quit()


def test_ss4_before_restart():
    """SS-4 setup: keeper (session/load), forget (no loadSession) and late (replays after
    answering session/load) hear a secret."""
    srv = pserver()
    u = mclient(srv, "pu")
    joined(u, "#keep", "#forget", "#late")
    _, msgs, _ = ask(u, "#keep", "@keeper remember tango", "keeper")
    want_echo(msgs, "<pu> keeper remember tango", "keeper first")
    _, msgs, _ = ask(u, "#forget", "@forget remember tango", "forget")
    want_echo(msgs, "<pu> forget remember tango", "forget first")
    _, msgs, _ = ask(u, "#late", "@late remember tango", "late")
    want_echo(msgs, "<pu> late remember tango", "late first")
    u.quit()


def test_ss4_after_daemon_restart():
    """SS-4 after a daemon restart: keeper resumes with session/load (its replay is not
    re-posted, its state file holds one session with both prompts); forget gets a new
    session whose first prompt carries the last messages, its own included."""
    srv = pserver()
    srv.restart()
    u = mclient(srv, "pu")
    joined(u, "#keep", "#forget")
    _, msgs, lines = ask(u, "#keep", "@keeper what did I say", "keeper", timeout=20)
    want_echo(msgs, "<pu> keeper what did I say", "SS-4 keeper after session/load")
    files = os.listdir(_P["state"])
    hist = []
    for f in files:
        with open(os.path.join(_P["state"], f)) as fh:
            h = [x["text"] for x in json.load(fh)["history"] if x["role"] == "user"]
        if any("remember tango" in x for x in h):
            hist = h
    if not any("what did I say" in x for x in hist):
        raise TestFailure("SS-4: keeper's session was not resumed (session/load): the "
                          "session that heard 'remember tango' did not get the new prompt;"
                          " sessions: %r" % files)
    _, msgs, _ = ask(u, "#forget", "@forget what did I say", "forget", timeout=20)
    want = transcript("#forget", ["<pu> " + short("@forget remember tango", 20),
                                  "<forget> " + short("echo: <pu> forget remember tango", 20)],
                      "<pu> forget what did I say", carry=True)
    want_echo(msgs, want, "SS-4 forget (no loadSession) after restart")
    lines = u.sync()
    if notices(lines):
        raise TestFailure("SS-4: a notice after the restart: %r" % notices(lines))
    u.quit()


def test_ss4_replay_after_the_load_answer():
    """SS-4 and TN-13: late answers session/load first and replays its history after it
    (gemini-cli 0.61.0 does): the replay is not shown, nor glued to the new answer, which
    is the echo of the new prompt alone, on its own line."""
    srv = pserver()
    u = mclient(srv, "pu")
    joined(u, "#late")
    _, msgs, lines = ask(u, "#late", "@late what did I say", "late", timeout=20)
    got = texts(msgs)
    if got != ["echo: <pu> late what did I say"]:
        raise TestFailure("SS-4: late's answer after its late replay: %r" % got)
    u.quit()


def test_ag2_memberships_after_restart():
    """AG-2: after the restart alice is still in #inv (INVITE) and #men (mention) and in
    her configured #ss2, and not in #kick."""
    srv = pserver()
    u = mclient(srv, "memu")
    bad = []
    for ch, want in (("#inv", True), ("#men", True), ("#kick", False), ("#ss2", True)):
        joined(u, ch)
        if ("alice" in names_of(u, ch)) != want:
            bad.append("alice %s in %s" % ("not" if want else "still", ch))
    if bad:
        raise TestFailure("AG-2 after restart: " + "; ".join(bad))
    u.quit()


def test_ss4_agent_process_restart():
    """SS-4/TN-9: the agent processes are killed while idle; the next turn starts them
    again: keeper resumes its session with session/load (no replay on IRC), forget gets
    a new session carrying the last messages, its own included; no notice either way."""
    srv = pserver()
    u = mclient(srv, "pu")
    joined(u, "#keep", "#forget")
    _, msgs, _ = ask(u, "#keep", "@keeper before the kill", "keeper", timeout=20)
    _, msgs, _ = ask(u, "#forget", "@forget before the kill", "forget", timeout=20)
    pids = agent_pids("p", "keeper") + agent_pids("p", "forget")
    if len(pids) != 2:
        raise TestFailure("want one keeper and one forget process, pgrep found %r" % pids)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    deadline = time.time() + 5 * SLOW
    while time.time() < deadline and (agent_pids("p", "keeper") or agent_pids("p", "forget")):
        time.sleep(0.05)
    time.sleep(0.2)
    _, msgs, lines = ask(u, "#keep", "@keeper after the kill", "keeper", timeout=20)
    want_echo(msgs, "<pu> keeper after the kill", "SS-4 keeper after its process died")
    _, msgs, lines2 = ask(u, "#forget", "@forget after the kill", "forget", timeout=20)
    p = prompt_of(msgs).split("\n")
    if "yours included" not in p[0] or p[-1] != "<pu> forget after the kill":
        raise TestFailure("SS-4: forget's first prompt in its new process:\n  %s"
                          % "\n  ".join(p))
    n = notices(lines + lines2 + u.sync())
    if n:
        raise TestFailure("SS-4: no notice expected, got %r" % [m.raw for m in n])
    u.quit()


def test_ss4_daemon_stop_ends_agents():
    """The daemon's agent processes end with it."""
    srv = pserver()
    u = mclient(srv, "endu")
    joined(u, "#keep")
    ask(u, "#keep", "@keeper still there", "keeper", timeout=20)
    u.quit()
    assert agent_pids("p", "keeper"), "keeper's process not found (pgrep)"
    srv.stop()
    deadline = time.time() + 10 * SLOW
    while time.time() < deadline and agent_pids("p"):
        time.sleep(0.1)
    left = agent_pids("p")
    if left:
        raise TestFailure("agent processes left after the daemon stopped: %r" % left)


# ---------------------------------------------------------------- SS-5

def test_ss5_eviction():
    """SS-5: three agents and max-loaded-agents = 2: all answer in turn, never more than
    two processes; an evicted agent comes back knowing the conversation (SS-4)."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=2,
                 config_extra="".join(agent_section("e", "ev%d" % i, "#ev") for i in (1, 2, 3)))
    try:
        u = mclient(srv, "evu")
        joined(u, "#ev")

        def count():
            return len(agent_pids("e"))

        def at_most_two():
            deadline = time.time() + 5 * SLOW
            while count() > 2 and time.time() < deadline:
                time.sleep(0.05)
            if count() > 2:
                raise TestFailure("SS-5: %d agent processes with max-loaded-agents = 2"
                                  % count())

        for i, text in ((1, "one"), (2, "two"), (3, "three")):
            _, msgs, _ = ask(u, "#ev", "@ev%d %s" % (i, text), "ev%d" % i, timeout=20)
            assert last_line(msgs) == "<evu> ev%d %s" % (i, text), texts(msgs)
            at_most_two()
        _, msgs, _ = ask(u, "#ev", "@ev1 again", "ev1", timeout=20)
        p = prompt_of(msgs).split("\n")
        if p[-1] != "<evu> ev1 again" or "yours included" not in p[0] or \
                "<ev1> echo: <evu> ev1 one" not in p:
            raise TestFailure("SS-4 after eviction: ev1's prompt should carry the last "
                              "messages, its own included:\n  %s" % "\n  ".join(p))
        at_most_two()
        st = whois_state(u, "ev2")
        assert st == "state: stopped", "WHOIS ev2 (least recently used, evicted): %r" % st
        u.quit()
    finally:
        srv.stop()


# ---------------------------------------------------------------- SEC-4, sessions

def test_sec4_idle_sessions_closed():
    """SEC-4 and SS-4: with max-open-sessions = 2, an agent that offers session/close
    and session/load holds at most two sessions: a third conversation closes the least
    recently used idle one, and the next message there loads it again in the same
    process, with nothing repeated and no notice. An agent that cannot close keeps
    its sessions."""
    state = os.path.join(TMP, "close-state")
    os.makedirs(state, exist_ok=True)
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_open_sessions=2,
                 config_extra=(
                     agent_section("o", "closer", "#o1 #o2 #o3",
                                   env=["ECHO_AGENT_STATE=" + state, "ECHO_AGENT_CLOSE=1",
                                        "ECHO_AGENT_COUNT=1"])
                     + agent_section("o", "holder", "#h1 #h2 #h3",
                                     env=["ECHO_AGENT_COUNT=1"])))
    try:
        u = mclient(srv, "ou")
        joined(u, "#o1", "#o2", "#o3", "#h1", "#h2", "#h3")
        seen = []

        def turn(chan, agent, text, n):
            _, msgs, lines = ask(u, chan, "@%s %s" % (agent, text), agent, timeout=20)
            seen.extend(lines)
            want = ["echo (%d sessions): <ou> %s %s" % (n, agent, text)]
            if texts(msgs) != want:
                raise TestFailure("%s in %s: got %r, want %r"
                                  % (agent, chan, texts(msgs), want))

        turn("#o1", "closer", "one", 1)
        turn("#o2", "closer", "two", 2)
        pid = agent_pids("o", "closer")
        turn("#o3", "closer", "three", 2)
        turn("#o3", "closer", "three again", 2)
        # "!mode" alone: with one agent here, "!mode <word>" is "!mode <mode>".
        send(u, "#o1", "!mode")
        m = u.expect_msg(r" NOTICE #o1 :closer")
        if m.params[-1] != ("closer's session here is closed for now; it opens again "
                            "when closer next answers here"):
            raise TestFailure("!mode in #o1 after its session was closed: %r" % m.raw)
        # Asking closed nothing: #o2 and #o3 are still open.
        turn("#o3", "closer", "still two", 2)
        # #o1's session was closed: it is loaded again (not a new session, whose
        # first prompt would carry the past), and another is closed in its place.
        turn("#o1", "closer", "one again", 2)
        if agent_pids("o", "closer") != pid:
            raise TestFailure("closer's process changed: %r, then %r"
                              % (pid, agent_pids("o", "closer")))
        turn("#o2", "closer", "two again", 2)
        turn("#h1", "holder", "one", 1)
        turn("#h2", "holder", "two", 2)
        turn("#h3", "holder", "three", 3)
        turn("#h1", "holder", "one again", 3)
        n = notices(seen + u.sync())
        if n:
            raise TestFailure("no notice expected, got %r" % [m.raw for m in n])
        u.quit()
    finally:
        srv.stop()


def test_sec4_agent_channel_limit():
    """SEC-4, AG-2: an agent keeps to max-channels (2 here) like anyone. Past it an
    INVITE or a mention does not bring it in: whoever asked is told, and nobody answers
    in its place. Once KICKed from a channel, a mention brings it in again."""
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_channels=2,
                 config_extra=(agent_section("m", "lim", "#l1")
                               + agent_section("m", "other", "#l3")))
    try:
        u = mclient(srv, "lu")
        joined(u, "#l2", "#l3")
        u.send("INVITE lim #l2")
        u.expect(r" JOIN #l2")
        ask(u, "#l3", "@other hello", "other")
        u.send("INVITE lim #l3")
        u.expect_msg(r" NOTICE #l3 :lim cannot join #l3: it is in 2 channels")
        send(u, "#l3", "@lim are you there")
        u.expect_msg(r" NOTICE #l3 :lim cannot join #l3: it is in 2 channels")
        lines = u.sync()
        if said(lines) or "lim" in names_of(u, "#l3"):
            raise TestFailure("past max-channels: lim joined or someone answered: %r"
                              % lines)
        u.send("KICK #l2 lim")
        u.expect(r" KICK #l2 lim ")
        _, msgs, lines = ask(u, "#l3", "@lim now", "lim")
        if "lim" not in names_of(u, "#l3"):
            raise TestFailure("lim answered in #l3 without being in it")
        u.quit()
    finally:
        srv.stop()




if __name__ == "__main__":
    run_tests(globals())


#!/usr/bin/env python3
"""Issue 25: agents hand work to each other by naming them in their answers (MN-1 to
MN-5).

The agents here are small ACP agents on the official SDK, written by this file. Each
answers from the last line of its prompt: after "say: " it says the rest, with every
"%1" made "@" and every "%N" made "%N-1" (so a person can write what an agent will
write, and what the agent woken by it will write, without naming anyone themselves:
"@alice say: ask %1bob" makes alice answer "ask @bob"); "fail: " says the rest, then
fails the turn; "sleep: " says it 4 s later (unless cancelled); the first of these words
in the line counts; anything else is answered "heard: <the last line>", its '@'s made '%'
(an echo names nobody).
"""

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, TestFailure, hash_password, parse,  # noqa: E402
                        run_tests)
from agentharness import NODE, joined, require_agent, send, until_done, write_agent  # noqa: E402

require_agent("echo-agent.mjs")
MCPAGENT = require_agent("mcp-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-handoff-")
TOKEN = "hotest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])

AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";

let client, n = 0;
const sessions = new Map();
const say = (sessionId, text) => client.notify(acp.methods.client.session.update,
  { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
const decode = (s) => s.replace(/%%(\d)/g, (_, d) => d === "1" ? "@" : "%%" + (Number(d) - 1));
const app = acp
  .agent({ name: "handoff-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "handoff-agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => ({ sessionId: "ho_" + (++n) + "_" + process.pid }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    const last = text.split("\n").pop();
    // The first of its words in the line is what it does.
    const m = /(fail|sleep|say): /.exec(last);
    const rest = m ? decode(last.slice(m.index + m[0].length)) : "";
    if (m && m[1] === "fail") {
      await say(sid, rest + "\n");
      throw new Error("failed on purpose");
    }
    if (m && m[1] === "sleep") {
      // A slow answer: it says the rest after 4 s, unless cancelled.
      const s = {};
      sessions.set(sid, s);
      const ok = await new Promise((res) => { s.cancel = () => res(false); setTimeout(() => res(true), 4000); });
      if (!ok) return { stopReason: "cancelled" };
      await say(sid, rest);
      return { stopReason: "end_turn" };
    }
    // What it heard, its names made no names: an echo wakes nobody.
    await say(sid, m ? rest : "heard: " + last.replace(/@/g, "%%"));
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    sessions.get(params.sessionId)?.cancel?.();
  });
"""

SCRIPT = write_agent(os.path.join(TMP, "handoff-agent.mjs"), AGENT)
NAMES = ("alice", "bob", "carol", "dave", "erin")


def agent(name, channels):
    return ("[agent %s]\ncommand = %s %s %s-%s\ndescription = hand-off test agent %s\n"
            "users = *\nchannels = %s\n\n" % (name, NODE, SCRIPT, TOKEN, name, name,
                                              channels))


def _cleanup():
    r = subprocess.run(["pgrep", "-f", TOKEN], stdout=subprocess.PIPE, text=True)
    for p in r.stdout.split():
        try:
            os.kill(int(p), signal.SIGKILL)
        except OSError:
            pass
    if not os.environ.get("IRC_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)


atexit.register(_cleanup)

_S = {}
PASSWORD = "gina-pw-%s" % uuid.uuid4().hex[:8]


def srv():
    """One server: alice to erin in #ho and more; frank in #hojoin; planner (an agent
    that calls the MCP tools, tests/agents/mcp-agent.mjs) in #hosched; an account gina."""
    s = _S.get("srv")
    if s is None or not s.alive():
        planner = ("[agent planner]\ncommand = %s %s %s-planner\ndescription = planner\n"
                   "users = *\nchannels = #hosched\n\n" % (NODE, MCPAGENT, TOKEN))
        s = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_parallel_turns=4,
                   config_extra="".join(agent(n, "#ho #hocycle #horate #hofail #hostrict "
                                              "#hosched #hostop #horth")
                                        for n in NAMES) + agent("frank", "#hojoin")
                   + planner + "[account gina]\npassword = %s\n\n"
                   % hash_password(PASSWORD)
                   # greta talks to gina's account only (AU-2).
                   + agent("greta", "#hogreta").replace("users = *", "users = gina"))
        _S["srv"] = s
    return s


def person(nick, chan, password=None):
    c = Client(srv())
    c.nick = nick
    if password is not None:
        c.send("PASS %s:%s" % (nick, password))
    c.send("CAP REQ :message-tags echo-message")
    c.expect(r" CAP \S+ ACK ")
    c.send("CAP END")
    c.register(nick)
    c.echo = True
    joined(c, chan)
    return c


def said(lines, who, chan):
    out = []
    for l in lines:
        m = parse(l)
        if m.command == "PRIVMSG" and (m.source or "").startswith(who + "!") and \
                m.params[0] == chan:
            out.append(m)
    return out


def notices(lines, chan):
    return [parse(l).params[-1] for l in lines
            if parse(l).command == "NOTICE" and parse(l).params[0] == chan]


def test_mn2_named_agent_wakes_in_order():
    """MN-1, MN-2: alice's answer names @bob and @carol: bob, then carol, take turns in
    #ho with alice's answer as their prompt (said by alice), each replying (+reply) to
    alice's answer."""
    u = person("hu1", "#ho")
    send(u, "#ho", "@alice say: over to %1bob and %1carol, please")
    a = until_done(u, "alice", "#ho")
    first = said(a, "alice", "#ho")
    if [m.params[-1] for m in first] != ["over to @bob and @carol, please"]:
        raise TestFailure("alice's answer: %r" % [m.raw for m in first])
    b = until_done(u, "bob", "#ho")
    c = until_done(u, "carol", "#ho")
    for who, lines in (("bob", b), ("carol", c)):
        got = said(lines, who, "#ho")
        if [m.params[-1] for m in got] != ["heard: <alice> over to %bob and %carol, please"]:
            raise TestFailure("MN-2: %s woken by alice's answer: %r"
                              % (who, [m.raw for m in got]))
        if got[0].tags.get("+reply") != first[0].tags.get("msgid"):
            raise TestFailure("MN-2: %s's answer does not reply to alice's: %s"
                              % (who, got[0].raw))
    u.quit()


def test_mn1_strict_names():
    """MN-1: names in backticks, in fenced code, glued to a word, a prefix of a name, and
    alice's own name wake nobody: the next turn of bob is the one asked for (turns run in
    order, so a woken one would come first)."""
    u = person("hu2", "#hostrict")
    send(u, "#hostrict", "@alice say: see `%1bob`, mail sam%1bob.com, %1bo, or %1alice")
    until_done(u, "alice", "#hostrict")
    send(u, "#hostrict", "@bob are you there")
    b = said(until_done(u, "bob", "#hostrict"), "bob", "#hostrict")
    if [m.params[-1] for m in b] != ["heard: <hu2> bob are you there"]:
        raise TestFailure("MN-1: bob was woken by a name that is none: %r"
                          % [m.raw for m in b])
    u.quit()


def test_mn3_more_than_three_wake_nobody():
    """MN-3: an answer naming four agents wakes none of them, and a NOTICE says so."""
    u = person("hu3", "#ho")
    send(u, "#ho", "@alice say: %1bob %1carol %1dave %1erin: all of you")
    lines = until_done(u, "alice", "#ho") + u.collect_until(r"NOTICE #ho :alice named 4", 10)
    want = "alice named 4 agents (bob, carol, dave, erin): an answer wakes at most 3, so " \
           "none was woken"
    if want not in notices(lines, "#ho"):
        raise TestFailure("MN-3: want the NOTICE %r, got %r" % (want, notices(lines, "#ho")))
    send(u, "#ho", "@erin and you")
    e = said(until_done(u, "erin", "#ho"), "erin", "#ho")
    if [m.params[-1] for m in e] != ["heard: <hu3> erin and you"]:
        raise TestFailure("MN-3: erin was woken anyway: %r" % [m.raw for m in e])
    u.quit()


def test_mn4_depth_and_cycle():
    """MN-4, MN-5: person -> alice -> bob -> carol is as deep as a chain goes: carol's
    @dave is refused with a NOTICE naming the mention and why; bob naming alice, who is
    in the chain, is refused as a cycle."""
    u = person("hu4", "#hocycle")
    send(u, "#hocycle", "@alice say: %1bob say: %2carol say: %3dave hi")
    until_done(u, "alice", "#hocycle")
    until_done(u, "bob", "#hocycle")
    lines = until_done(u, "carol", "#hocycle")
    lines += u.collect_until(r"NOTICE #hocycle :@dave was not woken", 10)
    if "@dave was not woken by carol: a chain goes 3 agents deep at most" not in \
            notices(lines, "#hocycle"):
        raise TestFailure("MN-4 depth: %r" % notices(lines, "#hocycle"))
    send(u, "#hocycle", "@alice say: %1bob say: back to %2alice")
    until_done(u, "alice", "#hocycle")
    lines = until_done(u, "bob", "#hocycle")
    lines += u.collect_until(r"NOTICE #hocycle :@alice was not woken", 10)
    if "@alice was not woken by bob: it is in this chain already" not in \
            notices(lines, "#hocycle"):
        raise TestFailure("MN-4 cycle: %r" % notices(lines, "#hocycle"))
    u.quit()


def test_mn4_pair_rate():
    """MN-4, MN-5: dave may wake erin at most 10 times a minute (a pair no other test
    here wakes): the 11th is refused with a NOTICE."""
    u = person("hu5", "#horate")
    for i in range(10):
        send(u, "#horate", "@dave say: %%1erin %d" % i)
        until_done(u, "dave", "#horate")
        until_done(u, "erin", "#horate")
    send(u, "#horate", "@dave say: %1erin 10")
    lines = until_done(u, "dave", "#horate")
    lines += u.collect_until(r"NOTICE #horate :@erin was not woken", 10)
    if "@erin was not woken by dave: dave may wake it at most 10 times a minute" not in \
            notices(lines, "#horate"):
        raise TestFailure("MN-4 rate: %r" % notices(lines, "#horate"))
    u.quit()


def test_mn2_failed_turn_wakes_nobody():
    """MN-2: a turn that fails wakes nobody, even though its text named @bob."""
    u = person("hu6", "#hofail")
    send(u, "#hofail", "@alice fail: %1bob look")
    lines = until_done(u, "alice", "#hofail")
    if not [m for m in said(lines, "alice", "#hofail") if "@bob look" in m.params[-1]]:
        raise TestFailure("alice's failing answer: %r" % lines)
    send(u, "#hofail", "@bob still there")
    b = said(until_done(u, "bob", "#hofail"), "bob", "#hofail")
    if [m.params[-1] for m in b] != ["heard: <hu6> bob still there"]:
        raise TestFailure("MN-2: a failed turn woke bob: %r" % [m.raw for m in b])
    u.quit()


def test_mn2_named_agent_brought_in():
    """MN-2, AG-2: in #hojoin, where only frank is, a person's @alice brings alice in;
    her answer names @bob, who is not there either: bob JOINs #hojoin, then answers."""
    u = person("hu7", "#hojoin")
    send(u, "#hojoin", "@alice say: %1bob join us")
    lines = until_done(u, "alice", "#hojoin")
    lines += until_done(u, "bob", "#hojoin")
    if not any(re.search(r":bob!\S+ JOIN :?#hojoin", l) for l in lines):
        raise TestFailure("AG-2: bob did not join #hojoin: %r" % lines)
    got = said(lines, "bob", "#hojoin")
    if [m.params[-1] for m in got] != ["heard: <alice> %bob join us"]:
        raise TestFailure("MN-2: bob in #hojoin: %r" % [m.raw for m in got])
    u.quit()


def test_sc8_firing_chain_answers_for_its_creator():
    """SC-8, MN-4: a schedule's firing answers for the person whose prompt made it: while
    hu8 is here, the firing's answer naming @alice wakes her; once hu8 has left, the same
    answer wakes nobody, and a NOTICE says why."""
    u = person("hu8", "#hosched")
    watch = person("hu8w", "#hosched")
    for n, secs in (("here", 1), ("gone", 3)):
        u.sync()        # what u saw of the last round
        # \u0040 is '@' to the agent's JSON, and no mention in hu8's line.
        send(u, "#hosched", 'planner: mcp schedule {"name":"%s","prompt":"ping \\u0040alice %s",'
             '"in_seconds":%d}' % (n, n, secs))
        done = until_done(u, "planner", "#hosched")
        if not [m for m in said(done, "planner", "#hosched")
                if "tool: scheduled sch_" in m.params[-1]]:
            raise TestFailure("the schedule tool: %r" % done)
        until_done(watch, "planner", "#hosched")      # the tool's answer, seen by watch
        if n == "gone":
            u.quit()
        lines = until_done(watch, "planner", "#hosched", timeout=20)
        if not [m for m in said(lines, "planner", "#hosched")
                if m.params[-1] == "got: ping @alice %s" % n]:
            raise TestFailure("the firing's answer: %r" % lines)
        if n == "here":
            got = said(until_done(watch, "alice", "#hosched"), "alice", "#hosched")
            if [m.params[-1] for m in got] != ["heard: <planner> got: ping %%alice %s" % n]:
                raise TestFailure("SC-8: the firing's @alice while hu8 is here: %r"
                                  % [m.raw for m in got])
        else:
            lines = watch.collect_until(r"NOTICE #hosched :@alice was not woken", 10)
            want = ("@alice was not woken by planner: no person who started this chain "
                    "is here to answer for it")
            if want not in notices(lines, "#hosched"):
                raise TestFailure("SC-8: hu8 gone: %r" % notices(lines, "#hosched"))
    watch.quit()


def test_mn4_status_shows_and_stop_ends_a_chain():
    """MN-4, CM-5, TN-6: while bob, woken by alice, is answering, !status shows the chain
    hu9 -> alice -> bob; !stop ends it: bob's turn is stopped, and the @carol his answer
    was going to name wakes nobody."""
    u = person("hu9", "#hostop")
    # bob's prompt ends "sleep: ...": he waits 4 s, then names carol.
    send(u, "#hostop", "@alice say: %1bob sleep: %2carol late")
    until_done(u, "alice", "#hostop")
    u.expect(r":bob!\S+ TAGMSG #hostop", 10)
    send(u, "#hostop", "!status")
    st = u.collect_until(r"NOTICE #hostop :chain ", 5)
    if "chain hu9 \u2192 alice \u2192 bob: bob answering" not in notices(st, "#hostop"):
        raise TestFailure("MN-4: !status during the chain: %r" % notices(st, "#hostop"))
    send(u, "#hostop", "!stop")
    lines = until_done(u, "bob", "#hostop")
    if not any("hu9 stopped bob's answer to hu9" in n for n in notices(lines, "#hostop")):
        raise TestFailure("TN-6: !stop in the chain: %r" % notices(lines, "#hostop"))
    send(u, "#hostop", "@carol are you there")
    c = said(until_done(u, "carol", "#hostop"), "carol", "#hostop")
    if [m.params[-1] for m in c] != ["heard: <hu9> carol are you there"]:
        raise TestFailure("MN-2: a stopped chain woke carol: %r" % [m.raw for m in c])
    send(u, "#hostop", "!status")
    st = u.collect_until(r"NOTICE #hostop :erin: ", 5)
    if [n for n in notices(st, "#hostop") if n.startswith("chain ")]:
        raise TestFailure("!status after the chain: %r" % notices(st, "#hostop"))
    u.quit()


def test_rt8_answer_names_an_away_account():
    """RT-8, MN-1: alice's answer names @gina, an account nobody is logged in to, and
    `@dave` in backticks (no name): gina is told when she logs in, once, as for a
    person's mention."""
    u = person("hu10", "#horth")
    send(u, "#horth", "@alice say: %1gina should look at this, not `%1dave`")
    until_done(u, "alice", "#horth")
    g = Client(srv())
    g.nick = "gina"
    g.send("PASS gina:%s" % PASSWORD)
    g.register("gina")
    got = g.collect_until(r"NOTICE gina :While you were away", 10)
    got += g.collect_until(r"PONG", 5) if g.send("PING :x") is None else []
    told = [parse(l).params[-1] for l in got if parse(l).command == "NOTICE"
            and "While you were away" in l]
    if len(told) != 1 or not re.match(r"While you were away, alice mentioned you in #horth "
                                      r"at .*: @gina should look at this", told[0]):
        raise TestFailure("RT-8: gina was told %r" % told)
    g.quit()
    u.quit()


def test_au2_wake_reaches_no_further_than_the_person():
    """AU-2, MN-4, MN-5: greta talks to account gina only; hu11 (no account) asks alice,
    whose answer names @greta: greta is not woken, and the NOTICE says why (a chain
    gets no more done than its person could)."""
    u = person("hu11", "#ho")
    send(u, "#ho", "@alice say: %1greta please look")
    lines = until_done(u, "alice", "#ho")
    lines += u.collect_until(r"NOTICE #ho :@greta was not woken", 10)
    want = ("@greta was not woken by alice: greta talks only to people logged in to "
            "accounts it names; log in first")
    if want not in notices(lines, "#ho"):
        raise TestFailure("AU-2 through a chain: %r" % notices(lines, "#ho"))
    if any(re.search(r":greta!\S+ JOIN", l) for l in lines):
        raise TestFailure("AU-2: greta was brought into #ho: %r" % lines)
    u.quit()


if __name__ == "__main__":
    run_tests(globals())

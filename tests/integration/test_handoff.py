#!/usr/bin/env python3
"""Issue 25: agents hand work to each other by naming them in their answers (MN-1 to
MN-5).

The agents here are small ACP agents on the official SDK, written by this file. Each
answers from the last line of its prompt: after "say: " it says the rest, with every
"%1" made "@" and every "%N" made "%N-1" (so a person can write what an agent will
write, and what the agent woken by it will write, without naming anyone themselves:
"@alice say: ask %1bob" makes alice answer "ask @bob"); "fail: " says the rest, then
fails the turn; anything else is answered "heard: <the last line>", its '@'s made '%'
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
from ircharness import Client, Server, TestFailure, parse, run_tests  # noqa: E402
from agentharness import NODE, joined, require_agent, send, until_done, write_agent  # noqa: E402

require_agent("echo-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-handoff-")
TOKEN = "hotest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])

AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";

let client, n = 0;
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
    let i = last.indexOf("fail: ");
    if (i >= 0) {
      await say(sid, decode(last.slice(i + 6)) + "\n");
      throw new Error("failed on purpose");
    }
    i = last.indexOf("say: ");
    // What it heard, its names made no names: an echo wakes nobody.
    await say(sid, i >= 0 ? decode(last.slice(i + 5)) : "heard: " + last.replace(/@/g, "%%"));
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {});
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


def srv():
    """One server: alice to erin in #ho; bob is also in #ho2, where alice is not."""
    s = _S.get("srv")
    if s is None or not s.alive():
        s = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_parallel_turns=4,
                   config_extra="".join(agent(n, "#ho #hocycle #horate #hofail #hostrict")
                                        for n in NAMES) + agent("frank", "#hojoin"))
        _S["srv"] = s
    return s


def person(nick, chan):
    c = Client(srv())
    c.nick = nick
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


if __name__ == "__main__":
    run_tests(globals())

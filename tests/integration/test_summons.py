#!/usr/bin/env python3
"""MN-6, SS-3: a prompt an agent is summoned to (named by a person, woken by another
agent's answer) starts with the Summons block: who called it and through which
chain, who else is in the conversation, and the two sentences on @names. A prompt
asked otherwise (a follow-up, a desk, a private message) and a slash command carry
none (RT-3, RT-7, CM-2); the roster is of the conversation's own channel (AU-8).

The agents here are small ACP agents on the official SDK, written by this file. Each
writes every prompt it gets, block by block, as a JSON line to DUMP/<name>.jsonl, then
answers from the last line of its prompt: after "say: " it says the rest, with every
"%1" made "@" and every "%N" made "%N-1" (as in test_handoff.py: a person writes what
an agent will write without naming anyone themselves); anything else is answered
"ok". tests/agents/echo-agent.mjs is here too, in the mode that echoes the block.
"""

import json
import os
import re
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Server, TestFailure, parse,  # noqa: E402
                        remove_at_exit, run_tests)
from agentharness import NODE, joined, require_agent, send, until_done, write_agent  # noqa: E402

ECHO = require_agent("echo-agent.mjs")
MCPAGENT = require_agent("mcp-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-summons-")
DUMP = os.path.join(TMP, "dump")
os.mkdir(DUMP)
TOKEN = "sutest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])

AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";
import fs from "node:fs";
import path from "node:path";

const NAME = process.argv[2], DUMP = process.argv[3];
let client, n = 0;
const say = (sessionId, text) => client.notify(acp.methods.client.session.update,
  { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
const decode = (s) => s.replace(/%%(\d)/g, (_, d) => d === "1" ? "@" : "%%" + (Number(d) - 1));
const app = acp
  .agent({ name: "summons-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "summons-agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => ({ sessionId: "su_" + (++n) + "_" + process.pid }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    // Every block as it came: the test reads them before the answer ends.
    fs.appendFileSync(path.join(DUMP, NAME + ".jsonl"), JSON.stringify(params.prompt) + "\n");
    const texts = params.prompt.filter((b) => b.type === "text");
    const last = texts.length ? texts[texts.length - 1].text.split("\n").pop() : "";
    const i = last.indexOf("say: ");
    await say(sid, i >= 0 ? decode(last.slice(i + 5)) : "ok");
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {});
"""

SCRIPT = write_agent(os.path.join(TMP, "summons-agent.mjs"), AGENT)

# The two sentences of MN-6, word for word.
RULES = ["Naming another agent with @name in your answer wakes it: its exact name, "
         "outside code.",
         "Naming yourself is ignored."]


def agent(name, channels):
    # The token on its command line lets _cleanup find the agent.
    return ("[agent %s]\ncommand = %s %s %s %s %s\ndescription = summons test agent %s\n"
            "users = *\nchannels = %s\n\n" % (name, NODE, SCRIPT, name, DUMP, TOKEN,
                                              name, channels))


remove_at_exit(TMP, TOKEN)

_S = {}


def srv():
    """One server: alice, bob and carol in #su and #suchain; alice and dave in #supub;
    erin alone in #sudesk; tooler (it calls MCP tools) in #sutool; #susec is nobody's till a person makes it secret and names
    alice there."""
    s = _S.get("srv")
    if s is None or not s.alive():
        s = Server(flood_exempt="127.0.0.0/8", history_replay=0, max_parallel_turns=4,
                   config_extra="".join(agent(n, c) for n, c in (
                       ("alice", "#su #suchain #supub"), ("bob", "#su #suchain"),
                       ("carol", "#su #suchain"), ("dave", "#supub"),
                       ("erin", "#sudesk")))
                   # The echo agent, in the mode that echoes the block too.
                   + "[agent echoer]\ncommand = %s %s %s-echoer\nusers = *\n"
                   "channels = #suecho\nenv = ECHO_AGENT_SUMMONS=1\n\n"
                   % (NODE, ECHO, TOKEN)
                   # An agent that calls the MCP tools (tests/agents/mcp-agent.mjs).
                   + "[agent tooler]\ncommand = %s %s %s-tooler\nusers = *\n"
                   "channels = #sutool\n\n" % (NODE, MCPAGENT, TOKEN))
        _S["srv"] = s
    return s


def person(nick, *chans):
    c = Client(srv())
    c.nick = nick
    c.send("CAP REQ :message-tags echo-message")
    c.expect(r" CAP \S+ ACK ")
    c.send("CAP END")
    c.register(nick)
    c.echo = True
    joined(c, *chans)
    return c


def prompts(name):
    """Every prompt agent name got so far, each a list of its blocks' texts."""
    try:
        with open(os.path.join(DUMP, name + ".jsonl")) as f:
            return [[b.get("text", "") for b in json.loads(l)] for l in f if l.strip()]
    except FileNotFoundError:
        return []


def last_prompt(name):
    p = prompts(name)
    if not p:
        raise TestFailure("%s was never prompted" % name)
    return p[-1]


def summons(blocks):
    """The Summons block's lines, or None when the prompt has none (it is first)."""
    if not blocks or not blocks[0].startswith("[summons]\n"):
        return None
    return blocks[0].rstrip("\n").split("\n")


def roster(lines, label):
    """The names of the roster line "label: a, b.", as a set (nobody: empty)."""
    for l in lines:
        if l.startswith(label + ": "):
            rest = l[len(label) + 2:].rstrip(".")
            return set() if rest == "nobody" else set(rest.split(", "))
    return None


def check_shape(lines, who, what):
    """The frame every Summons block has: header, "You are", rules, [end]."""
    if lines[0] != "[summons]" or lines[-1] != "[end]" or lines[-3:-1] != RULES:
        raise TestFailure("MN-6 %s: the block's frame: %r" % (what, lines))
    if not lines[1].startswith("You are %s, in " % who):
        raise TestFailure("MN-6 %s: who it is: %r" % (what, lines))


def test_mn6_named_by_person():
    """MN-6, SS-3, RT-1: a person's @alice and "bob:" are summonses: the prompt's first
    block is the Summons block, the person its caller, the roster the other agents of
    #su and the people in it now (not the one who left; the bot as a bot), and the
    message follows in a block of its own, as before."""
    u = person("sup1", "#su")
    v = person("sup2", "#su")
    gone = person("sup3", "#su")
    bot = person("subot", "#su")
    bot.send("MODE subot +B")
    bot.expect(r" MODE subot :?\+B")
    gone.send("PART #su")
    gone.expect(r" PART #su")
    send(u, "#su", "@alice have a look")
    until_done(u, "alice", "#su")
    blocks = last_prompt("alice")
    lines = summons(blocks)
    if lines is None:
        raise TestFailure("MN-6: a named turn without a Summons block: %r" % blocks)
    check_shape(lines, "alice", "named")
    if lines[1] != "You are alice, in #su." or lines[2] != "Called by sup1 (a person).":
        raise TestFailure("MN-6: who called alice: %r" % lines)
    if roster(lines, "Other agents here") != {"bob", "carol"}:
        raise TestFailure("MN-6: the other agents: %r" % lines)
    if roster(lines, "People here") != {"sup1", "sup2"}:
        raise TestFailure("MN-6: the people present (not sup3, who left): %r" % lines)
    if roster(lines, "Bots here") != {"subot"}:
        raise TestFailure("MN-6: the bot: %r" % lines)
    if len(blocks) != 2 or blocks[1].split("\n")[-1] != "<sup1> alice have a look":
        raise TestFailure("SS-3: the message answered, in its own block: %r" % blocks)
    send(v, "#su", "bob: and you")
    until_done(v, "bob", "#su")
    lines = summons(last_prompt("bob"))
    if lines is None or lines[2] != "Called by sup2 (a person)." or \
            roster(lines, "Other agents here") != {"alice", "carol"}:
        raise TestFailure("MN-6: bob named by \"bob:\": %r" % lines)
    for c in (u, v, gone, bot):
        c.quit()


def test_mn6_woken_carries_chain():
    """MN-6, MN-2: an agent woken by another's answer is told who woke it and the
    chain from the person who started it: sup4 -> alice -> bob -> carol."""
    u = person("sup4", "#suchain")
    send(u, "#suchain", "@alice say: %1bob say: %2carol hi")
    until_done(u, "alice", "#suchain")
    until_done(u, "bob", "#suchain")
    until_done(u, "carol", "#suchain")
    lines = summons(last_prompt("bob"))
    if lines is None:
        raise TestFailure("MN-6: a woken turn without a Summons block")
    check_shape(lines, "bob", "woken")
    want = "Called by alice (an agent, by naming you), in a chain started by sup4: " \
           "sup4 \u2192 alice."
    if lines[2] != want:
        raise TestFailure("MN-6: bob's caller: %r, want %r" % (lines[2], want))
    if roster(lines, "Other agents here") != {"alice", "carol"} or \
            roster(lines, "People here") != {"sup4"}:
        raise TestFailure("MN-6: bob's roster: %r" % lines)
    lines = summons(last_prompt("carol"))
    want = "Called by bob (an agent, by naming you), in a chain started by sup4: " \
           "sup4 \u2192 alice \u2192 bob."
    if lines is None or lines[2] != want:
        raise TestFailure("MN-6: carol's caller: %r, want %r" % (lines, want))
    u.quit()


def test_mn6_asked_carries_none():
    """MN-6, RT-3, RT-7, CM-2: a follow-up, a desk's message, a private message and a
    slash command are not summonses: no Summons block, the prompt as it was."""
    u = person("sup5", "#su")
    send(u, "#su", "@alice first")
    until_done(u, "alice", "#su")
    # RT-3: nobody else spoke since alice answered sup5: a follow-up.
    send(u, "#su", "and a second thing")
    until_done(u, "alice", "#su")
    blocks = last_prompt("alice")
    if summons(blocks) is not None or blocks[-1].split("\n")[-1] != \
            "<sup5> and a second thing":
        raise TestFailure("RT-3: a follow-up carries a Summons block: %r" % blocks)
    # CM-2: a command, even addressed, is the exact text and nothing else.
    send(u, "#su", "alice: /status now")
    until_done(u, "alice", "#su")
    blocks = last_prompt("alice")
    if blocks != ["/status now"]:
        raise TestFailure("CM-2: a slash command's prompt: %r" % blocks)
    u.quit()
    # RT-3: a desk: sup6 alone with erin, naming nobody.
    d = person("sup6", "#sudesk")
    send(d, "#sudesk", "hello there")
    until_done(d, "erin", "#sudesk")
    blocks = last_prompt("erin")
    if summons(blocks) is not None or blocks[-1] != "<sup6> hello there":
        raise TestFailure("RT-3: a desk's message carries a Summons block: %r" % blocks)
    # RT-7: a private message.
    send(d, "erin", "just between us")
    until_done(d, "erin", "sup6")
    blocks = last_prompt("erin")
    if summons(blocks) is not None or blocks[-1].split("\n")[-1] != \
            "<sup6> just between us":
        raise TestFailure("RT-7: a private message carries a Summons block: %r" % blocks)
    d.quit()


def test_au8_secret_roster():
    """MN-6, AU-8: the roster is the conversation's own channel: in the secret #susec
    alice is told of its members only, and in #supub, where alice is too, nothing of
    #susec (its name, its people) reaches the Summons block."""
    s = person("susec1", "#susec")
    s.send("MODE #susec +s")
    s.expect(r" MODE #susec :?\+s")
    s2 = person("susec2", "#susec")
    p = person("supub1", "#supub")
    send(s, "#susec", "@alice a secret question")
    until_done(s, "alice", "#susec")
    lines = summons(last_prompt("alice"))
    if lines is None or lines[1] != "You are alice, in #susec." or \
            roster(lines, "People here") != {"susec1", "susec2"} or \
            roster(lines, "Other agents here") != set():
        raise TestFailure("AU-8: alice's roster in #susec: %r" % lines)
    send(p, "#supub", "@alice a public question")
    until_done(p, "alice", "#supub")
    blocks = last_prompt("alice")
    lines = summons(blocks)
    if lines is None or roster(lines, "People here") != {"supub1"} or \
            roster(lines, "Other agents here") != {"dave"}:
        raise TestFailure("AU-8: alice's roster in #supub: %r" % lines)
    if re.search(r"susec", "\n".join(blocks)):
        raise TestFailure("AU-8: #susec leaks into #supub's prompt: %r" % blocks)
    for c in (s, s2, p):
        c.quit()


def test_mn6_tool_turn_says_with_a_tool():
    """MN-6, MN-7: a turn sent by send_to_agent carries the Summons block: the agent
    that sent it, "with a tool", and the chain from the person who asked it."""
    u = person("sup8", "#sutool")
    send(u, "#sutool", 'tooler: mcp send_to_agent {"agent":"bob","text":"please look"}')
    lines = until_done(u, "tooler", "#sutool")
    if not any("tool: sent to bob" in parse(l).params[-1] for l in lines
               if parse(l).command == "PRIVMSG"):
        raise TestFailure("MN-7: send_to_agent: %r" % lines)
    until_done(u, "bob", "#sutool")
    lines = summons(last_prompt("bob"))
    if lines is None:
        raise TestFailure("MN-6: a tool's turn without a Summons block")
    check_shape(lines, "bob", "tool")
    want = "Called by tooler (an agent, with a tool), in a chain started by sup8: " \
           "sup8 \u2192 tooler."
    if lines[2] != want:
        raise TestFailure("MN-6: bob's caller: %r, want %r" % (lines[2], want))
    if roster(lines, "Other agents here") != {"tooler"} or \
            roster(lines, "People here") != {"sup8"}:
        raise TestFailure("MN-6: bob's roster in #sutool: %r" % lines)
    u.quit()


def test_mn6_echo_agent_mode():
    """MN-6: the echo agent with ECHO_AGENT_SUMMONS=1 echoes the Summons block too (by
    default it leaves the block out, so other tests' echoes are the message)."""
    u = person("sup7", "#suecho")
    send(u, "#suecho", "@echoer hi")
    said = [parse(l).params[-1] for l in until_done(u, "echoer", "#suecho")
            if parse(l).command == "PRIVMSG" and parse(l).source.startswith("echoer!")]
    text = "\n".join(said)
    if "Called by sup7 (a person)." not in text or "<sup7> echoer hi" not in text:
        raise TestFailure("MN-6: the echo agent's echo of a summons: %r" % said)
    u.quit()


if __name__ == "__main__":
    run_tests(globals())

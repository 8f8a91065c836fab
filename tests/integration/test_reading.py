#!/usr/bin/env python3
"""Issue 24, rules TN-13 and TN-5: answers that read well on IRC, and tool lines that say
what happened.

Real ACP agents on the official SDK talk through the daemon to raw IRC clients: a small
scripted agent written here, whose answers are given byte for byte by the test (with
TABs, Markdown, model messages with their messageId, raw session updates), and the echo
agent (tests/agents/echo-agent.mjs), whose /write <path> asks permission to write a file.

TN-13: TABs become spaces (tab stops of 8), in code and in prose, and blank lines inside
code are kept as one space; **strong**, __strong__ and headings become IRC bold, not in
code nor in `inline code` (which keeps its backticks), and an unterminated ** stays as
typed; format = plain sends the text as written; two model messages with different
messageIds never run together on one line; a paragraph longer than two IRC lines starts
to appear before its end arrives.
TN-5: a tool call refused on its card says what did not happen and why (the card denied,
the policy deny-all); a failed one says what it tried; a completed one says what it did,
in the past tense.
"""

import json
import os
import re
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, Shared, SLOW, TestFailure, parse,  # noqa: E402
                        pids_matching, remove_at_exit, run_tests)
from agentharness import (NODE, is_from, joined, require_agent, send,
                        until_done, write_agent)  # noqa: E402

ECHO = require_agent("echo-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-reading-")
# Every agent command line carries this token: the test cleans up the agent processes
# its own daemon started, and no others.
TOKEN = "readtest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
CAPS = "message-tags echo-message"

# ---------------------------------------------------------------- a scripted agent

# "say <name>" answers with the chunks the test wrote to SCRIPT_DIR/<name>.json: a
# string is a text chunk; {"text": t, "id": m} a text chunk of model message m
# (messageId); {"update": u} the session update u as given (tool calls); {"wait": w}
# waits (up to 20 s) until the test creates SCRIPT_DIR/<w>.go. Anything else:
# "heard: <last line>".
SCRIPT_AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";
import fs from "node:fs";
import path from "node:path";

const DIR = process.env.SCRIPT_DIR;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let client, n = 0;
const update = (sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const app = acp
  .agent({ name: "reading-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "reading-agent", title: "Reading Agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => ({ sessionId: "read_" + (++n) + "_" + process.pid }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    const last = text.split("\n").pop();
    const m = /\bsay (\w+)/.exec(last);
    if (!m) {
      await update(sid, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "heard: " + last } });
      return { stopReason: "end_turn" };
    }
    for (const c of JSON.parse(fs.readFileSync(path.join(DIR, m[1] + ".json"), "utf8"))) {
      if (typeof c === "string")
        await update(sid, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: c } });
      else if (c.text !== undefined)
        await update(sid, { sessionUpdate: "agent_message_chunk", messageId: c.id,
                            content: { type: "text", text: c.text } });
      else if (c.update)
        await update(sid, c.update);
      else if (c.wait)
        for (let i = 0; i < 200 && !fs.existsSync(path.join(DIR, c.wait + ".go")); i++) await sleep(100);
    }
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {});
"""

SCRIPT_DIR = os.path.join(TMP, "script")
os.makedirs(SCRIPT_DIR)
SCRIPT = write_agent(os.path.join(TMP, "reading-agent.mjs"), SCRIPT_AGENT)


def script(name, chunks):
    """The answer of "say <name>": the chunks, in this order."""
    with open(os.path.join(SCRIPT_DIR, name + ".json"), "w") as f:
        json.dump(chunks, f)


def agent_section(name, channels, scripted=True, extra=()):
    cmd = "%s %s %s-%s" % (NODE, SCRIPT if scripted else ECHO, TOKEN, name)
    lines = ["[agent %s]" % name, "command = %s" % cmd, "channels = %s" % channels,
             "description = test agent " + name, "users = *"]
    if scripted:
        lines.append("env = SCRIPT_DIR=%s" % SCRIPT_DIR)
    lines += list(extra)
    return "\n".join(lines) + "\n\n"


def agent_pids():
    return pids_matching(TOKEN)


remove_at_exit(TMP, TOKEN)

S = Shared(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=8,
           config_extra=(
               agent_section("reader", "#tabs #bold #msgid #early #tools")
               + agent_section("plainer", "#plain", extra=["format = plain"])
               + agent_section("alice", "#deny", scripted=False,
                               extra=["permissions = ask"])
               + agent_section("denier", "#pdeny", scripted=False,
                               extra=["permissions = deny-all"])))


# ---------------------------------------------------------------- helpers

def mclient(srv, nick):
    c = Client(srv)
    c.nick = nick
    c.send("CAP REQ :%s" % CAPS)
    c.expect_msg(r"^(?:@\S+ )?:\S+ CAP \S+ ACK ")
    c.send("CAP END")
    c.register(nick)
    c.echo = True
    return c


def said(lines, agent, target, action=False):
    """The texts of agent's PRIVMSGs to target: ACTIONs only (their text), or none."""
    out = []
    for l in lines:
        m = parse(l)
        if m.command != "PRIVMSG" or not is_from(m, agent) or \
                m.params[0].lower() != target.lower():
            continue
        t = m.params[-1]
        is_action = t.startswith("\x01ACTION ") and t.endswith("\x01")
        if action and is_action:
            out.append(t[8:-1])
        elif not action and not is_action:
            out.append(t)
    return out


def answer(c, chan, agent, name, timeout=15):
    """Ask agent to say script name in chan: (its PRIVMSG texts, its ACTION texts)."""
    send(c, chan, "@%s say %s" % (agent, name))
    lines = until_done(c, agent, chan, timeout)
    return said(lines, agent, chan), said(lines, agent, chan, action=True)


def want_lines(got, want, what):
    if got != want:
        raise TestFailure("%s:\n   got %r\n  want %r" % (what, got, want))


# ---------------------------------------------------------------- TN-13

def test_tn13_tabs():
    """TN-13: TABs become spaces to the next multiple of 8 columns, in code (whose
    indentation stays) and in prose; no TAB reaches IRC; a blank line inside code is one
    space."""
    srv = S()
    u = joined(mclient(srv, "tabu"), "#tabs")
    script("tabs", ["```c\nint\nmain(void)\n{\n\tif (x)\t/* yes */\n",
                    "\n\t\treturn 0;\n}\n```\n", "a\tb\u00e9\tc\n"])
    got, _ = answer(u, "#tabs", "reader", "tabs")
    want_lines(got, ["```c", "int", "main(void)", "{", "        if (x)  /* yes */", " ",
                     "                return 0;", "}", "```", "a       b\u00e9      c"],
               "TN-13 TABs")
    u.quit()


def test_tn13_bold_and_headings():
    """TN-13: **strong**, __strong__ and headings become IRC bold (a heading without its
    #s); not inside `inline code`, which keeps its backticks, nor in a code block; an
    unterminated ** and snake__case stay as typed."""
    srv = S()
    u = joined(mclient(srv, "boldu"), "#bold")
    script("bold", ["## Set", "up ##\nUse **bold** and __this__, keep `code **x**`",
                    " and 2 ** 3 **open snake__case__x\n```\n**not** here\n```\n"])
    got, _ = answer(u, "#bold", "reader", "bold")
    want_lines(got, ["\x02Setup\x02",
                     "Use \x02bold\x02 and \x02this\x02, keep `code **x**` and 2 ** 3 "
                     "**open snake__case__x", "```", "**not** here", "```"],
               "TN-13 bold")
    u.quit()


def test_tn13_format_plain():
    """TN-13: an agent with format = plain is sent its Markdown as written (TABs still
    become spaces)."""
    srv = S()
    u = joined(mclient(srv, "plainu"), "#plain")
    script("plain", ["## Setup\nUse **bold** and __this__\n\tindented\n"])
    got, _ = answer(u, "#plain", "plainer", "plain")
    want_lines(got, ["## Setup", "Use **bold** and __this__", "        indented"],
               "TN-13 format = plain")
    u.quit()


def test_tn13_message_ids_not_glued():
    """TN-13: two model messages (messageId m1 then m2) with nothing between them, neither
    ending its text with a newline, are two lines; chunks of one message stay one line;
    text around a tool call too."""
    srv = S()
    u = joined(mclient(srv, "msgu"), "#msgid")
    script("msgs", [{"text": "Let me ", "id": "m1"}, {"text": "look.", "id": "m1"},
                    {"text": "Found it", "id": "m2"}, {"text": ": all good.", "id": "m2"},
                    {"update": {"sessionUpdate": "tool_call", "toolCallId": "t1",
                                "title": "make", "kind": "execute", "status": "completed",
                                "rawInput": {"command": "make"}}},
                    {"text": "Done.", "id": "m3"}])
    got, actions = answer(u, "#msgid", "reader", "msgs")
    want_lines(got, ["Let me look.", "Found it: all good.", "Done."],
               "TN-13 two model messages")
    want_lines(actions, ["ran `make`"], "TN-5 the tool line between them")
    u.quit()


def test_tn13_long_paragraph_starts_early():
    """TN-13: a paragraph longer than two IRC lines starts to be sent before its end comes:
    the agent waits, mid-paragraph, until the test saw a first line; the lines are cut
    between words and put together they are the paragraph."""
    srv = S()
    u = joined(mclient(srv, "earlyu"), "#early")
    words = " ".join("w%03d\u00e9" % i for i in range(300))      # about 2100 bytes
    half = len(words) * 3 // 4
    script("early", [words[i:min(i + 50, half)] for i in range(0, half, 50)]
           + [{"wait": "early"}, words[half:] + "\n", "next **para**\n"])
    send(u, "#early", "@reader say early")
    first = u.expect_msg(r"^(?:@\S+ )?:reader!\S+ PRIVMSG #early :", 10)
    t0 = time.time()
    open(os.path.join(SCRIPT_DIR, "early.go"), "w").close()
    lines = until_done(u, "reader", "#early")
    got = [first.params[-1]] + said(lines, "reader", "#early")
    if time.time() - t0 > 15 * SLOW:
        raise TestFailure("TN-13: the rest took too long")
    if got[-1] != "next \x02para\x02":
        raise TestFailure("TN-13: the next paragraph: %r" % got[-1:])
    pieces = got[:-1]
    if "".join(pieces) != words:
        raise TestFailure("TN-13: the paragraph in pieces is not the paragraph:\n  %r"
                          % pieces)
    for p in pieces[:-1]:
        if not p.endswith(" ") or len(p.encode()) < 300:
            raise TestFailure("TN-13: a piece cut badly (inside a word, or short): %r" % p)
    u.quit()


# ---------------------------------------------------------------- TN-5

def _card(c, chan, agent):
    m = c.expect_msg(r"^(?:@\S+ )?:%s!\S+ NOTICE %s :card \d+: " % (agent, chan), 15)
    return int(re.match(r"card (\d+):", m.params[-1]).group(1)), m.params[-1]


def test_tn5_denied_tool_line():
    """TN-5: a tool call refused on its card (!deny) is not shown as done nor as a plain
    failure: "* alice did not write q.txt: card N was denied"."""
    srv = S()
    u = joined(mclient(srv, "denyu"), "#deny")
    send(u, "#deny", "/alice:write q.txt")
    n, text = _card(u, "#deny", "alice")
    if "asks to write q.txt" not in text:
        raise TestFailure("TN-5: the card: %r" % text)
    send(u, "#deny", "!deny")
    lines = until_done(u, "alice", "#deny")
    want_lines(said(lines, "alice", "#deny", action=True),
               ["did not write q.txt: card %d was denied" % n], "TN-5 !deny")
    # Allowed, the same call is done, in the past tense.
    send(u, "#deny", "/alice:write r.txt")
    _card(u, "#deny", "alice")
    send(u, "#deny", "!allow")
    lines = until_done(u, "alice", "#deny")
    want_lines(said(lines, "alice", "#deny", action=True), ["wrote r.txt"], "TN-5 !allow")
    u.quit()


def test_tn5_policy_refused_tool_line():
    """TN-5: a tool call the policy refused says so: "did not write q.txt: refused by the
    policy deny-all"."""
    srv = S()
    u = joined(mclient(srv, "pdenyu"), "#pdeny")
    send(u, "#pdeny", "/denier:write q.txt")
    lines = until_done(u, "denier", "#pdeny")
    want_lines(said(lines, "denier", "#pdeny", action=True),
               ["did not write q.txt: refused by the policy deny-all"], "TN-5 deny-all")
    u.quit()


def test_tn5_tool_lines_say_what_happened():
    """TN-5: from phrase.c's words: a completed call in the past tense ("wrote q.txt",
    "ran `make`", a title's own verb "created notes.txt"), a failed one "tried to run
    `make check` — failed"; a call reported twice is shown once."""
    srv = S()
    u = joined(mclient(srv, "toolu"), "#tools")

    def call(i, status, **kw):
        return {"update": dict(sessionUpdate="tool_call", toolCallId="c%d" % i,
                               status=status, **kw)}
    script("tools", [
        call(1, "completed", title="Write q.txt", kind="edit", locations=[{"path": "q.txt"}],
             rawInput={"file_path": "q.txt", "content": "x"}),
        call(2, "completed", title="make", kind="execute", rawInput={"command": "make"}),
        call(3, "failed", title="make check", kind="execute",
             rawInput={"command": "make check"}),
        call(4, "completed", title="Create notes.txt", kind="other"),
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "c2",
                    "status": "completed"}},
        "done\n"])
    got, actions = answer(u, "#tools", "reader", "tools")
    want_lines(actions, ["wrote q.txt", "ran `make`", "tried to run `make check` \u2014 failed",
                         "created notes.txt"], "TN-5 tool lines")
    want_lines(got, ["done"], "TN-5 the text after them")
    u.quit()


if __name__ == "__main__":
    run_tests(globals())

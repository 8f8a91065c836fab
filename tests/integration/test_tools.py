#!/usr/bin/env python3
"""Issue 25, rule MN-7 (with MN-4, MN-5, AU-4, AU-5, SEC-3): hand-offs between agents by
the server's MCP tools send_to_agent, ask_agent, delegate_task and task_status.

The agents are tests/agents/mcp-agent.mjs on the official SDK: told "mcp <tool> <json>"
they call the tool through the MCP server of their session and answer "tool: <line>"
per line of its result ("tool error: ..." for an error result); "sleep <ms>" answers
"slept <ms>" after a while; anything else is answered "got: <the last line>". A tool's
text given to another such agent is that agent's prompt, so a person can start a chain
of tool calls with one line (JSON inside JSON).
"""

import json
import os
import re
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Shared, SLOW,  # noqa: E402
                        TestFailure, parse, pids_matching, remove_at_exit,
                        run_tests)
from agentharness import NODE, is_from, joined, require_agent  # noqa: E402

MCPAGENT = require_agent("mcp-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-tools-")
TOKEN = "tltest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
HOST = "irc.test"
CAPS = "message-tags echo-message"


def dump_dir(name):
    d = os.path.join(TMP, "dump-" + name)
    os.makedirs(d, exist_ok=True)
    return d


def agent_section(name, channels, env=()):
    lines = ["[agent %s]" % name,
             "command = %s %s %s-%s" % (NODE, MCPAGENT, TOKEN, name),
             "description = tools test agent " + name,
             "users = *",
             "channels = %s" % channels]
    env = list(env) + ["MCP_AGENT_DUMP=%s" % dump_dir(name)]
    if not any(e.startswith("MCP_AGENT_TIMEOUT_MS=") for e in env):
        env.append("MCP_AGENT_TIMEOUT_MS=60000")
    for e in env:
        lines.append("env = %s" % e)
    return "\n".join(lines) + "\n\n"


CHANS = "#t1 #t2 #t3 #t4 #t5 #t6 #t7 #t8 #tp"
AGENTS = (agent_section("tina", CHANS + " #tq")
          + agent_section("tom", CHANS)
          + agent_section("tess", CHANS)
          + agent_section("tony", CHANS + " #tf")
          + agent_section("rita", "#tr")
          + agent_section("ross", "#tr #tf")
          + agent_section("cora", "#tf")
          + agent_section("kai", "#tk0")
          + agent_section("kit", "#tk0")
          + agent_section("hana", "#th #thq", env=["MCP_AGENT_HTTP=1"])
          + agent_section("quick", "#tq", env=["MCP_AGENT_TIMEOUT_MS=2000"])
          + agent_section("hquick", "#thq", env=["MCP_AGENT_HTTP=1",
                                                 "MCP_AGENT_TIMEOUT_MS=2000"]))


def agent_pids():
    return pids_matching(TOKEN)


class PServer(PersistentServer):
    """A server whose database is in TMP and whose directory survives stop()."""

    def __init__(self, name, **kw):
        PersistentServer.__init__(self, os.path.join(TMP, name + ".db"), **kw)


remove_at_exit(TMP, TOKEN)

S = Shared(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=16,
           max_parallel_turns=8, config_extra=AGENTS)


# ---------------------------------------------------------------- helpers

def person(srv, nick, *chans):
    c = Client(srv)
    c.nick = nick
    c.send("CAP REQ :%s" % CAPS)
    c.expect(r" CAP \S+ ACK ")
    c.send("CAP END")
    c.register(nick)
    return joined(c, *chans)


class Watch:
    """Every line c receives from now on, kept, so that lines of turns that run at the
    same time can be looked for in any order."""

    def __init__(self, c):
        self.c = c
        self.lines = []

    def find(self, pred, what, timeout=20):
        """The first Msg (old or new) satisfying pred."""
        i = 0
        deadline = time.time() + timeout * SLOW
        while True:
            while i < len(self.lines):
                m = parse(self.lines[i])
                i += 1
                if pred(m):
                    return m
            line = self.c._next(deadline)
            if line is None:
                raise TestFailure("%s: not seen within %ds; saw %r"
                                  % (what, timeout, self.lines[-30:]))
            self.lines.append(line)

    def said(self, agent, chan, rx, timeout=20):
        """agent's PRIVMSG in chan whose text matches rx."""
        return self.find(lambda m: m.command == "PRIVMSG" and is_from(m, agent)
                         and m.params[0].lower() == chan.lower()
                         and re.search(rx, m.params[-1]) is not None,
                         "%s saying /%s/ in %s" % (agent, rx, chan), timeout)

    def notice(self, chan, rx, timeout=20):
        """The server's NOTICE in chan whose text matches rx."""
        return self.find(lambda m: m.command == "NOTICE" and m.source == HOST
                         and m.params[0].lower() == chan.lower()
                         and re.search(rx, m.params[-1]) is not None,
                         "server NOTICE /%s/ in %s" % (rx, chan), timeout)

    def texts(self, agent, chan):
        return [parse(l).params[-1] for l in self.lines
                if parse(l).command == "PRIVMSG" and is_from(parse(l), agent)
                and parse(l).params[0].lower() == chan.lower()]


def call(c, chan, agent, tool, args=None, times=None):
    """Have agent call tool in chan: "agent: mcp tool json". Returns a Watch that has
    seen the line sent."""
    w = Watch(c)
    text = "mcp %s" % tool
    if times is not None:
        text += " x%d" % times
    if args is not None:
        text += " " + json.dumps(args, separators=(",", ":"))
    c.send("PRIVMSG %s :%s: %s" % (chan, agent, text))
    return w


def tool_lines(w, agent, chan, timeout=20, n=1):
    """agent's first n "tool: " / "tool error: " lines in chan (its TN-12 prefix off)."""
    out = []
    while len(out) < n:
        m = w.find(lambda m: m.command == "PRIVMSG" and is_from(m, agent)
                   and m.params[0].lower() == chan.lower()
                   and re.search(r"(?:^|: )tool(?: error)?: ", m.params[-1])
                   and m not in out and m.raw not in [o.raw for o in out],
                   "%s's tool result in %s" % (agent, chan), timeout)
        out.append(m)
    return [re.sub(r"^\S+: (?=tool)", "", m.params[-1]) for m in out]


def task_id(lines):
    for l in lines:
        m = re.search(r"task_(\d+)", l)
        if m:
            return int(m.group(1))
    raise TestFailure("no task id in %r" % lines)


def nested(agent, tool, args):
    """The text that makes an mcp-agent call tool with args."""
    return "mcp %s %s" % (tool, json.dumps(args, separators=(",", ":")))


# ---------------------------------------------------------------- tests

def test_mn7_tools_listed():
    """MN-7: the four tools are on the MCP tool server, with descriptions."""
    u = person(S(), "ul", "#t1")
    w = call(u, "#t1", "tina", "list")
    for t in ("send_to_agent", "ask_agent", "delegate_task", "task_status"):
        w.said("tina", "#t1", r"tool: %s$" % t, timeout=15)
    u.quit()


def test_mn7_send_posts_and_queues():
    """MN-7 send_to_agent: the text is posted in the channel as tina's PRIVMSG (kept in
    history, seen by people), tina's tool returns at once with a task id, and tom
    answers it in the channel, threaded (+reply) to the posted message."""
    u = person(S(), "us", "#t1")
    w = call(u, "#t1", "tina", "send_to_agent", {"agent": "tom", "text": "hello there"})
    out = tool_lines(w, "tina", "#t1")
    if not re.match(r"tool: sent to tom in #t1 as task_\d+", out[0]):
        raise TestFailure("send_to_agent's result: %r" % out)
    posted = w.said("tina", "#t1", r"^tom: hello there$")
    msgid = posted.tags.get("msgid")
    ans = w.said("tom", "#t1", r"got: (<tina> )?hello there$")
    if not msgid or ans.tags.get("+reply") != msgid:
        raise TestFailure("tom's answer is not threaded to the posted message %r: %s"
                          % (msgid, ans.raw))
    u.quit()


def test_mn7_ask_answered():
    """MN-7 ask_agent: the tool's result is the answer of the agent asked."""
    u = person(S(), "ua", "#t2")
    w = call(u, "#t2", "tina", "ask_agent", {"agent": "tom", "question": "what is up"})
    out = tool_lines(w, "tina", "#t2")
    if out[0] != "tool: got: <tina> what is up":
        raise TestFailure("ask_agent's result: %r" % out)
    w.said("tina", "#t2", r"^tom: what is up$")
    u.quit()


def test_mn7_ask_timeout_then_status():
    """MN-7 ask_agent: past timeout_seconds it returns a normal result saying the
    answer is pending, with a task id; task_status returns the answer once it came."""
    u = person(S(), "ut", "#t3")
    w = call(u, "#t3", "tina", "ask_agent",
             {"agent": "tom", "question": "sleep 3000", "timeout_seconds": 1})
    out = tool_lines(w, "tina", "#t3")
    if not out[0].startswith("tool: still pending") or "task_" not in out[0]:
        raise TestFailure("ask_agent past its timeout: %r" % out)
    n = task_id(out)
    w.said("tom", "#t3", r"slept 3000$", timeout=15)
    w2 = call(u, "#t3", "tina", "task_status", {"id": "task_%d" % n})
    out = tool_lines(w2, "tina", "#t3", n=1)
    if not re.match(r"tool: task_%d \(ask, tina -> tom in #t3\): done" % n, out[0]):
        raise TestFailure("task_status after the answer: %r" % out)
    w2.said("tina", "#t3", r"^(\S+: )?tool: slept 3000$", timeout=5)
    u.quit()


def test_mn7_ask_over_http_longer_than_20s():
    """MN-7, SEC-7: ask_agent over the HTTP form, waiting 23 s for the answer (longer
    than the HTTP form's 20 s request deadline and evhttp's 15 s timeout), is answered."""
    u = person(S(), "uh", "#th")
    u.send("INVITE tom #th")
    w = call(u, "#th", "hana", "ask_agent",
             {"agent": "tom", "question": "sleep 23000", "timeout_seconds": 60})
    out = tool_lines(w, "hana", "#th", timeout=45)
    if out[0] != "tool: slept 23000":
        raise TestFailure("ask_agent over HTTP after 23 s: %r" % out)
    u.quit()


def test_mn7_delegate_posted_back_and_status():
    """MN-7 delegate_task: a task id at once; when tom has answered, a server NOTICE in
    the channel names the task and shows the result; task_status returns it."""
    u = person(S(), "ud", "#t4")
    w = call(u, "#t4", "tina", "delegate_task", {"agent": "tom", "task": "sum it up"})
    out = tool_lines(w, "tina", "#t4")
    if not re.match(r"tool: delegated to tom as task_\d+", out[0]):
        raise TestFailure("delegate_task's result: %r" % out)
    n = task_id(out)
    w.said("tina", "#t4", r"^tom: \[task_%d\] sum it up$" % n)
    w.notice("#t4", r"^\[task_%d done: tom's result for tina\]$" % n)
    w.notice("#t4", r"^got: (<tina> )?sum it up$")
    w2 = call(u, "#t4", "tina", "task_status", {"id": "task_%d" % n})
    out = tool_lines(w2, "tina", "#t4")
    if "): done" not in out[0]:
        raise TestFailure("task_status of a done task: %r" % out)
    w2.said("tina", "#t4", r"tool: got: (<tina> )?sum it up$", timeout=5)
    # Without an id: the tasks made here, newest first.
    w3 = call(u, "#t4", "tina", "task_status", {})
    out = tool_lines(w3, "tina", "#t4")
    if not out[0].startswith("tool: task_%d (delegate" % n):
        raise TestFailure("task_status without an id: %r" % out)
    u.quit()


def test_mn7_status_lists_tasks_in_flight():
    """MN-7 !status: a task in flight made here shows, with from -> to and its state."""
    u = person(S(), "uq", "#t5")
    w = call(u, "#t5", "tina", "delegate_task", {"agent": "tess", "task": "sleep 4000"})
    n = task_id(tool_lines(w, "tina", "#t5"))
    w.said("tina", "#t5", r"^tess: \[task_%d\]" % n)
    time.sleep(0.5 * SLOW)
    u.send("PRIVMSG #t5 :!status")
    w.notice("#t5", r"^task_%d delegate_task: tina -> tess, (waiting|running), \d+s$" % n,
             timeout=5)
    w.notice("#t5", r"^\[task_%d done" % n, timeout=15)
    u.quit()


def test_au4_tool_turn_answers_for_the_person():
    """AU-4, MN-7: the turn a tool queues answers for the person at the start of the
    chain: tom's permission card is theirs to answer (not another member's)."""
    srv = S()
    u = person(srv, "uo", "#t6")
    v = person(srv, "vo", "#t6")
    w = call(u, "#t6", "tina", "send_to_agent", {"agent": "tom", "text": "perm write x"})
    card = w.find(lambda m: m.command == "NOTICE" and is_from(m, "tom")
                  and re.match(r"card \d+: ", m.params[-1]) is not None, "tom's card")
    n = int(re.match(r"card (\d+): ", card.params[-1]).group(1))
    wv = Watch(v)
    v.send("PRIVMSG #t6 :!allow %d" % n)
    wv.find(lambda m: m.command == "NOTICE" and "only" in m.params[-1],
            "the card refused to vo", timeout=5)
    u.send("PRIVMSG #t6 :!allow %d" % n)
    w.said("tom", "#t6", r"permission granted \(allow-once\)$")
    u.quit()
    v.quit()


def test_mn4_depth_limit_for_tools():
    """MN-4, MN-5, MN-7: a chain of tool hand-offs goes 3 agents deep: us -> tina -> tom
    -> tess, and tess's send_to_agent to tony is refused with a tool error and a server
    NOTICE naming why."""
    u = person(S(), "uk", "#t6")
    inner = nested("tess", "send_to_agent", {"agent": "tony", "text": "too deep"})
    mid = nested("tom", "send_to_agent", {"agent": "tess", "text": inner})
    w = call(u, "#t6", "tina", "send_to_agent", {"agent": "tom", "text": mid})
    w.said("tom", "#t6", r"tool: sent to tess")
    w.notice("#t6", r"^tess's send_to_agent to tony was refused: a chain goes 3 agents "
             r"deep at most$")
    w.said("tess", "#t6", r"tool error: refused: tony was not handed this: a chain goes "
           r"3 agents deep at most")
    u.quit()


def test_mn4_cycle_refused_for_tools():
    """MN-4, MN-5, MN-7: no agent twice in a chain: tom, sent work by tina, cannot send
    to tina (tool error and NOTICE)."""
    u = person(S(), "uc", "#t7")
    back = nested("tom", "send_to_agent", {"agent": "tina", "text": "back to you"})
    w = call(u, "#t7", "tina", "send_to_agent", {"agent": "tom", "text": back})
    w.notice("#t7", r"^tom's send_to_agent to tina was refused: it is in this chain "
             r"already$")
    w.said("tom", "#t7", r"tool error: refused: tina was not handed this: it is in this "
           r"chain already")
    u.quit()


def test_mn4_pair_rate_for_tools():
    """MN-4, MN-7: rita may hand ross work at most 10 times a minute: the 11th call is a
    tool error, with a NOTICE."""
    u = person(S(), "ur", "#tr")
    w = call(u, "#tr", "rita", "send_to_agent", {"agent": "ross", "text": "r%i"}, times=11)
    out = tool_lines(w, "rita", "#tr", n=11, timeout=30)
    ok = [l for l in out if l.startswith("tool: sent to ross")]
    bad = [l for l in out if "at most 10 times a minute" in l]
    if len(ok) != 10 or len(bad) != 1 or not bad[0].startswith("tool error: refused"):
        raise TestFailure("11 hand-offs from rita to ross: %r" % out)
    w.notice("#tr", r"^rita's send_to_agent to ross was refused: rita may wake it at "
             r"most 10 times a minute$")
    u.quit()


def test_mn7_tasks_in_flight_bounded():
    """MN-7: a conversation has at most 20 tasks in flight: with ross and tony busy
    elsewhere (TN-2), cora's 10 hand-offs to each wait, and a 21st is a tool error.
    (Three people ask, as each person's own waiting prompts are capped at 16: AU-9.)"""
    srv = S()
    u = person(srv, "uf", "#tf", "#tr", "#t8")
    u.send("PRIVMSG #tr :ross: sleep 6000")
    u.send("PRIVMSG #t8 :tony: sleep 6000")
    time.sleep(0.5 * SLOW)
    for agent, nick in (("ross", "uf2"), ("tony", "uf3")):
        p = person(srv, nick, "#tf")
        w = call(p, "#tf", "cora", "send_to_agent", {"agent": agent, "text": "f%i"},
                 times=10)
        out = tool_lines(w, "cora", "#tf", n=10)
        if not all(l.startswith("tool: sent to %s" % agent) for l in out):
            raise TestFailure("10 hand-offs to %s: %r" % (agent, out))
        w.find(lambda m: m.command == "TAGMSG" and is_from(m, "cora")
               and m.tags.get("+typing") == "done", "cora's turn done")
    p = person(srv, "uf4", "#tf")
    w = call(p, "#tf", "cora", "send_to_agent", {"agent": "ross", "text": "one more"})
    out = tool_lines(w, "cora", "#tf")
    if not out[0].startswith("tool error: this conversation has 20 tasks in flight"):
        raise TestFailure("a 21st task in flight: %r" % out)
    w.said("tony", "#tf", r"got: (<cora> )?f9$", timeout=30)
    w.said("ross", "#tf", r"got: (<cora> )?f9$", timeout=30)
    u.quit()


def test_mn7_names_exact():
    """MN-7: agents by exact name (casemapping aside): an unknown name and a prefix are
    tool errors listing the agents; naming oneself is an error; "TESS" is tess."""
    u = person(S(), "un", "#t8")
    for name, rx in (("nobody", r"no agent is named exactly \"nobody\" \(agents: .*tom"),
                     ("to", r"no agent is named exactly \"to\" \(agents: .*tom"),
                     ("tina", r"tina is you: hand work to another agent \(agents: .*tom")):
        w = call(u, "#t8", "tina", "send_to_agent", {"agent": name, "text": "x"})
        out = tool_lines(w, "tina", "#t8")
        if not out[0].startswith("tool error: ") or not re.search(rx, out[0]):
            raise TestFailure("send_to_agent to %r: %r" % (name, out))
        if "tina" in re.search(r"\(agents: ([^)]*)\)", out[0]).group(1).split(", "):
            raise TestFailure("the candidates list the caller: %r" % out)
    w = call(u, "#t8", "tina", "ask_agent", {"agent": "TESS", "question": "case"})
    if tool_lines(w, "tina", "#t8")[0] != "tool: got: <tina> case":
        raise TestFailure("ask_agent to TESS did not reach tess")
    u.quit()


def test_mn7_private_conversation_refused():
    """MN-2, MN-7: a private conversation has nobody to bring in: a tool error says to
    ask in a channel."""
    u = person(S(), "upv")
    w = Watch(u)
    u.send("PRIVMSG tina :mcp send_to_agent %s" % json.dumps(
        {"agent": "tom", "text": "psst"}, separators=(",", ":")))
    m = w.find(lambda m: m.command == "PRIVMSG" and is_from(m, "tina")
               and m.params[-1].startswith("tool"), "tina's tool line in private")
    if "private conversation" not in m.params[-1] or \
            not m.params[-1].startswith("tool error: "):
        raise TestFailure("send_to_agent in a private conversation: %s" % m.raw)
    u.quit()


def test_sec3_no_turn_no_handoff():
    """SEC-3, AU-4, MN-7: a tool call made between turns (no turn of the agent runs in
    its conversation) has no person to answer for it: refused with a clear error."""
    u = person(S(), "ub", "#t8")
    later = os.path.join(dump_dir("tony"), "later.txt")
    if os.path.exists(later):
        os.unlink(later)
    w = Watch(u)
    u.send("PRIVMSG #t8 :tony: later 500 mcp send_to_agent %s" % json.dumps(
        {"agent": "tom", "text": "between turns"}, separators=(",", ":")))
    w.said("tony", "#t8", r"later: 500$")
    deadline = time.time() + 15 * SLOW
    while time.time() < deadline and not (os.path.exists(later) and
                                          open(later).read().strip()):
        time.sleep(0.1)
    got = open(later).read() if os.path.exists(later) else ""
    if not got.startswith("tool error: no turn of yours is running in this conversation"):
        raise TestFailure("send_to_agent between turns: %r" % got)
    if any(re.search(r"between turns", t) for t in w.texts("tina", "#t8")
           + w.texts("tony", "#t8") if t.startswith("tom:")):
        raise TestFailure("the refused hand-off was posted")
    u.quit()


def test_au5_cross_target_needs_operator():
    """AU-5, MN-7: send_to_agent aimed at another channel waits for a card there, which
    an operator of that channel allows; then the text is posted there and tom (brought
    in) answers there. A channel the person who asked is not in is refused."""
    srv = S()
    op = person(srv, "xop", "#tx")
    op.send("INVITE tina #tx")
    op.expect(r":tina!\S+ JOIN #tx")
    u = person(srv, "ux", "#t1", "#tx")
    w = call(u, "#t1", "tina", "send_to_agent",
             {"agent": "tom", "text": "cross hi", "target": "#tx"})
    out = tool_lines(w, "tina", "#t1")
    m = re.match(r"tool: task_(\d+) waits for a person to allow it \(card (\d+) in #tx",
                 out[0])
    if not m:
        raise TestFailure("send_to_agent to #tx: %r" % out)
    card = int(m.group(2))
    wo = Watch(op)
    wo.find(lambda m: m.command == "NOTICE" and is_from(m, "tina")
            and ("card %d:" % card) in m.params[-1] and "a message to tom" in m.params[-1],
            "the card in #tx")
    op.send("PRIVMSG #tx :!allow %d" % card)
    wo.find(lambda m: m.command == "JOIN" and is_from(m, "tom"), "tom joining #tx")
    wo.said("tina", "#tx", r"^tom: cross hi$")
    wo.said("tom", "#tx", r"got: (<tina> )?cross hi$")
    # #t3 is tina's, but ux is not in it: no aiming there.
    w = call(u, "#t1", "tina", "send_to_agent",
             {"agent": "tom", "text": "sneaky", "target": "#t3"})
    out = tool_lines(w, "tina", "#t1")
    if not out[0].startswith("tool error: #t3 is not a channel that both ux"):
        raise TestFailure("send_to_agent to a channel ux is not in: %r" % out)
    op.send("KICK #tx tom :done")
    op.send("KICK #tx tina :done")
    u.quit()
    op.quit()


def test_mn7_client_gone_while_ask_waits():
    """MN-7: the MCP client gives up while ask_agent waits (stdio and HTTP forms, each
    with a 2 s timeout of its own): the daemon drops the call, the task still ends, and
    task_status has its answer. ASan watches the daemon."""
    srv = S()
    u = person(srv, "ug", "#tq", "#thq")
    u.send("INVITE tom #tq")
    u.send("INVITE tom #thq")
    for agent, chan in (("quick", "#tq"), ("hquick", "#thq")):
        w = call(u, chan, agent, "ask_agent",
                 {"agent": "tom", "question": "sleep 4000", "timeout_seconds": 60})
        out = tool_lines(w, agent, chan, timeout=15)
        if not out[0].startswith("tool error: "):
            raise TestFailure("%s's MCP client timing out: %r" % (agent, out))
        w.said("tom", chan, r"slept 4000$", timeout=15)
        time.sleep(0.3 * SLOW)
        w2 = call(u, chan, agent, "task_status", {})
        out = tool_lines(w2, agent, chan)
        if not re.match(r"tool: task_\d+ \(ask, %s -> tom in %s\): done" % (agent, chan),
                        out[0]):
            raise TestFailure("%s: task_status after its client went: %r" % (agent, out))
    u.quit()


def test_mn7_kicks_while_ask_waits():
    """MN-7: kit kicked while answering kai's ask_agent: the call ends with a tool error
    saying kit did not answer. kai kicked while her ask_agent waits: nothing breaks (her
    conversation goes; the answer goes to a session nobody reads), and task_status in
    the channel still has the task, done. ASan watches the daemon."""
    srv = S()
    op = person(srv, "kop", "#tk")
    for a in ("kai", "kit"):
        op.send("INVITE %s #tk" % a)
        op.expect(r":%s!\S+ JOIN #tk" % a)
    w = call(op, "#tk", "kai", "ask_agent",
             {"agent": "kit", "question": "sleep 3000", "timeout_seconds": 60})
    w.find(lambda m: m.command == "TAGMSG" and is_from(m, "kit")
           and m.tags.get("+typing") == "active", "kit answering")
    op.send("KICK #tk kit :enough")
    out = tool_lines(w, "kai", "#tk", timeout=15)
    if not re.match(r"tool error: task_\d+ (cancelled|failed): kit did not answer", out[0]):
        raise TestFailure("ask_agent whose target was kicked: %r" % out)
    op.send("INVITE kit #tk")
    op.expect(r":kit!\S+ JOIN #tk")
    w = call(op, "#tk", "kai", "ask_agent",
             {"agent": "kit", "question": "sleep 2000", "timeout_seconds": 60})
    w.said("kai", "#tk", r"^kit: sleep 2000$")
    op.send("KICK #tk kai :enough")
    w.said("kit", "#tk", r"slept 2000$", timeout=15)
    time.sleep(0.5 * SLOW)
    op.send("INVITE kai #tk")
    op.expect(r":kai!\S+ JOIN #tk")
    w = call(op, "#tk", "kai", "task_status", {})
    out = tool_lines(w, "kai", "#tk")
    if not re.search(r"\(ask, kai -> kit in #tk\): done", out[0]):
        raise TestFailure("task_status after kai was kicked: %r" % out)
    op.send("KICK #tk kit :done")
    op.send("KICK #tk kai :done")
    op.quit()


def test_mn7_restart_interrupts_task():
    """MN-7: a delegated task in flight when the daemon stops is reported by task_status
    as interrupted after the restart, not forgotten."""
    srv = PServer("restart", flood_exempt="127.0.0.0/8", history_replay=0,
                  config_extra=agent_section("tina", "#tz") + agent_section("tom", "#tz"))
    try:
        u = person(srv, "uz", "#tz")
        w = call(u, "#tz", "tina", "delegate_task", {"agent": "tom", "task": "sleep 30000"})
        n = task_id(tool_lines(w, "tina", "#tz"))
        w.said("tina", "#tz", r"^tom: \[task_%d\]" % n)
        time.sleep(1 * SLOW)
        srv.stop()
        srv.start()
        u = person(srv, "uz", "#tz")
        w = call(u, "#tz", "tina", "task_status", {"id": "task_%d" % n})
        out = tool_lines(w, "tina", "#tz", timeout=30)
        if not re.match(r"tool: task_%d \(delegate, tina -> tom in #tz\): interrupted"
                        % n, out[0]):
            raise TestFailure("task_status after a restart: %r" % out)
        u.quit()
    finally:
        srv.stop()


if __name__ == "__main__":
    sys.exit(run_tests(globals()))

#!/usr/bin/env python3
"""Issue 9, rules SC-1..SC-8 and SEC-3: scheduled prompts through the server's MCP tools.

A real ACP agent on the official SDK (tests/agents/mcp-agent.mjs) calls the tools of the
stdio MCP server the daemon gives each session in mcpServers ("agentircd --mcp-bridge
SOCKET" with the session's token in AGENTIRCD_MCP_TOKEN) when the line it answers says
"mcp <tool> <json>", and answers "tool: <result line>" ("tool error: ..." for isError);
otherwise it answers "got: <last line of its prompt>", so a firing shows as "got:
<prompt>". The test sets [server] schedule-minute = 1: every_minutes N = every N seconds.

SC-1 once (in_seconds, at), every N, both; list_schedules, unschedule by the agent (id
"sch_N" and N), !schedules and !unschedule by a user, in a channel and in a private
conversation, bad arguments; SC-2 a daemon restart with missed firings: each fires once,
then the repeating one keeps its timetable, old tokens are refused; SC-3 a repetition is
skipped while the previous firing waits behind a busy turn; SC-4 the header NOTICE and the
prompt, the queued turn's prompt carries the header, the firing is kept in history, and a
card opened by a scheduled turn is answered only by a channel operator; SC-5 a schedule
for another conversation needs !allow under "ask" (!deny and a card's timeout drop it,
each on a server of its own), the budget of 30
prompts elsewhere, held firings in !schedules, released when a person writes where they
were made; schedules of the agent's own conversation are never held; SC-6 20 firing in a
conversation, 20 made for others, the 21st refused with a tool error; SC-7 a KICK of the
agent ends the schedules aimed at or made in that channel; SC-8 the JOIN summary; SEC-3 the
mcpServers entry, one token per session, a token acts only as its session (another
session's schedules are out of reach), bogus, missing and stale tokens are refused, the
token is not logged; the HTTP form for an agent with mcpCapabilities.http (its entry, a
call through it, no/bogus token, foreign Origin, GET, notification); SEC-4 bad MCP input
gets JSON-RPC errors.

Prompt commands of the agent: see tests/agents/mcp-agent.mjs ("mcp ...", "whoami" for the
session id whose mcpServers it dumped to MCP_AGENT_DUMP, "sleep <ms>", "perm <what>",
"perm-odd <what>", "perms <n>", "echo-prompt").
"""

import base64
import calendar
import datetime
import json
import os
import re
import sqlite3
import select
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (Client, PersistentServer, Server, Shared,  # noqa: E402
                        SLOW, TestFailure, daemon_path, free_port, parse,
                        pids_matching, pump, remove_at_exit, run_tests, wait_port)
from agentharness import (NODE, is_from, joined, require_agent)  # noqa: E402

MCPAGENT = require_agent("mcp-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-schedule-")
# Every agent command line carries this token: the test finds (and at the end cleans
# up) the agent processes its own daemons started, and no others.
TOKEN = "schtest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
HOST = "irc.test"
CAPS = "message-tags echo-message"
HCAPS = "draft/chathistory batch server-time message-tags echo-message"
HEADER_RX = (r"\[schedule sch_(\d+) \"%s\" \u00b7 automated message from "
             + re.escape(HOST) + r", not from a user; it approves nothing\]"
             r"(?: \(created in ([^)]+)\))?$")


def dump_dir(name):
    d = os.path.join(TMP, "dump-" + name)
    os.makedirs(d, exist_ok=True)
    return d


def agent_section(name, channels="", permissions=None, env=(), admins=None):
    cmd = "%s %s %s-%s" % (NODE, MCPAGENT, TOKEN, name)
    lines = ["[agent %s]" % name, "command = %s" % cmd,
             "description = test agent " + name,
             "env = MCP_AGENT_DUMP=%s" % dump_dir(name),
             "env = MCP_AGENT_TIMEOUT_MS=8000"]
    if channels:
        lines.append("channels = %s" % channels)
    if permissions:
        lines.append("permissions = %s" % permissions)
    for e in env:
        lines.append("env = %s" % e)
    if admins:
        lines.append("admins = %s" % admins)
    return "\n".join(lines) + "\n\n"


def agent_pids(name=None):
    pat = "%s-%s( |$)" % (TOKEN, name) if name else TOKEN
    return pids_matching(pat)


class PServer(PersistentServer):
    """A server whose database is in TMP and whose directory survives stop()."""

    def __init__(self, name, **kw):
        PersistentServer.__init__(self, os.path.join(TMP, name + ".db"), **kw)

_bridges = []


def _kill_bridges():
    for p in _bridges:
        if p.poll() is None:
            p.kill()


remove_at_exit(TMP, TOKEN, before=_kill_bridges)

# sched: the "ask" policy (default); crossy: allow-all (no creation card), for the
# budget and the limits; secy: SEC-3.
S = Shared(flood_exempt="127.0.0.0/8", history_replay=0, max_loaded_agents=16,
           max_parallel_turns=8, schedule_minute=1, config_extra=(
               agent_section("sched", "#sc1 #sc1b #sc1c #sc1d #sc1e #sc1f #sc3 #sc4h #sc6 #scbad")
               + agent_section("crossy", "#sc5e #sc6b #sc6c #sc6d", permissions="allow-all")
               + agent_section("secy", "#secA #secB #sec4 #secM")
               + agent_section("httpy", "#sech", env=["MCP_AGENT_HTTP=1"])))


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
    return c


def agent_lines(lines, agent, target, cmd="PRIVMSG"):
    out = []
    for l in lines:
        m = parse(l)
        if m.command == cmd and is_from(m, agent) and m.params \
                and m.params[0].lower() == target.lower():
            out.append(m.params[-1])
    return out


def ask(c, target, text, agent, timeout=15, where=None, want=None):
    """Say text in target; return (the agent's PRIVMSG texts in the first turn after the
    echo of text whose lines satisfy want (default: any), every line seen).
    where: where the agent answers (the person's nick in a private conversation)."""
    where = where or target
    c.send("PRIVMSG %s :%s" % (target, text))
    echo = re.compile(r"^@\S+ :%s!\S+ PRIVMSG %s :%s$" % (
        re.escape(c.nick), re.escape(target), re.escape(text)), re.I)
    deadline = time.time() + timeout * SLOW
    seen, turn, seen_echo, active = [], [], False, False
    while True:
        line = c._next(deadline)
        if line is None:
            c._fail("the turn of %s answering %r (after %d lines)" % (agent, text, len(seen)),
                    timeout)
        seen.append(line)
        if not seen_echo:
            seen_echo = bool(echo.search(line))
            continue
        m = parse(line)
        typing = m.command == "TAGMSG" and is_from(m, agent) and m.params \
            and m.params[0].lower() == where.lower() and m.tags.get("+typing")
        if typing == "active":
            active = True
        if active:
            turn.append(line)
        if typing == "done" and active:
            out = agent_lines(turn, agent, where)
            # TN-12: where others are, the answer's first line names the asker.
            if out and out[0].startswith(c.nick + ": "):
                out[0] = out[0][len(c.nick) + 2:]
            if want is None or want(out):
                return out, seen
            turn, active = [], False


def mcp(c, target, agent, tool, args=None, where=None, timeout=15, address=True, times=None):
    """Have agent call tool with args (a dict, or a list for several calls) through its
    MCP server; return its "tool: " / "tool error: " lines. times=N: N calls with "%i" in
    the strings of args replaced by 0..N-1."""
    text = "mcp %s" % tool
    if times is not None:
        text += " x%d" % times
    if args is not None:
        text += " " + json.dumps(args, separators=(",", ":"))
    if address:
        text = "%s: %s" % (agent, text)
    out, seen = ask(c, target, text, agent, timeout=timeout, where=where,
                    want=lambda o: any(l.startswith("tool") for l in o))
    c.seen_lines = seen     # what came with it (cards ...)
    return [l for l in out if l.startswith("tool")]


def card_in(c, agent, target, what_rx, timeout=5):
    """The number of agent's card NOTICE in target matching what_rx: among the lines that
    came with the last mcp() call of c, else the next ones."""
    rx = re.compile(r"^(?:@\S+ )?:%s!\S+ NOTICE %s :card (\d+): %s asks to .*%s"
                    % (re.escape(agent), re.escape(target), re.escape(agent), what_rx))
    for l in getattr(c, "seen_lines", []):
        m = rx.search(l)
        if m:
            return int(m.group(1))
    return int(c.expect(rx, timeout).group(1))


def scheduled_id(lines, what=""):
    """The sch_N id of a successful schedule call."""
    for l in lines:
        m = re.match(r"tool: scheduled sch_(\d+) ", l)
        if m:
            return int(m.group(1))
    raise TestFailure("%sthe schedule tool did not answer \"scheduled sch_N ...\": %r"
                      % (what + ": " if what else "", lines))


def header_rx(target, name, name_rx=None):
    """The firing header of schedule name (or of names matching name_rx) in target."""
    return r"^(?:@\S+ )?:%s NOTICE %s :%s" % (re.escape(HOST), re.escape(target),
                                             HEADER_RX % (name_rx or re.escape(name)))


def expect_firing(c, target, name, timeout=6):
    """Wait for the firing header of schedule name in target; return (id, created_in,
    arrival time, Msg)."""
    c.expect(header_rx(target, name), timeout)
    m = c.last
    hm = re.match(HEADER_RX % re.escape(name), m.params[-1])
    return int(hm.group(1)), hm.group(2), time.time(), m


def collect(clients, seconds):
    """Everything the clients receive within seconds: {client: [lines]} (consumed)."""
    pump(clients, seconds)
    out = {}
    for c in clients:
        out[c] = list(c.pending)
        c.pending.clear()
    return out


def firings(lines, target, name):
    rx = re.compile(header_rx(target, name))
    return [parse(l) for l in lines if rx.search(l)]


def server_notices(lines, *targets):
    """The texts of the server's NOTICEs to any of targets among lines."""
    rx = re.compile(r"^(?:@\S+ )?:%s NOTICE (?:%s) :" % (
        re.escape(HOST), "|".join(re.escape(t) for t in targets)), re.I)
    return [parse(l).params[-1] for l in lines if rx.match(l)]


def user_cmd(c, target, text):
    """A ! command; return the server NOTICEs to c that it produced (up to a PING):
    to the channel it was typed in (TN-11), or to c's nick (in a query, or from
    outside the channel)."""
    c.send("PRIVMSG %s :%s" % (target, text))
    if target.startswith("#"):
        return server_notices(c.sync(), c.nick, target)
    return server_notices(c.sync(), c.nick)


def iso(t):
    return datetime.datetime.utcfromtimestamp(t).strftime("%Y-%m-%dT%H:%M:%SZ")


def tag_time(m):
    """The time tag of a Msg as a Unix time."""
    t = m.tags.get("time")
    if not t:
        raise TestFailure("no time tag: %s" % m.raw)
    d = datetime.datetime.strptime(t[:19], "%Y-%m-%dT%H:%M:%S")
    frac = float("0" + t[19:].rstrip("Z")) if t[19:20] == "." else 0.0
    return calendar.timegm(d.timetuple()) + frac


def chathistory(c, target, n=100):
    c.send("CHATHISTORY LATEST %s * %d" % (target, n))
    m = c.expect_msg(r"^(?:@\S+ )?:\S+ (?:BATCH \+\S+ chathistory|FAIL) ")
    if m.command == "FAIL":
        raise TestFailure("CHATHISTORY LATEST %s: %s" % (target, m.raw))
    ref = m.params[0][1:]
    lines = c.collect_until(r"^(?:@\S+ )?:\S+ BATCH -%s$" % re.escape(ref))
    return [parse(l) for l in lines[:-1]]


def op_channel(srv, nick, chan, *agents):
    """nick creates chan (so is its operator) and INVITEs agents into it."""
    op = joined(mclient(srv, nick), chan)
    for a in agents:
        op.send("INVITE %s %s" % (a, chan))
        op.expect(r":%s!\S+ JOIN %s" % (re.escape(a), re.escape(chan)))
    return op


def kick(op, chan, agent):
    op.send("KICK %s %s :done" % (chan, agent))
    op.expect(r":%s!\S+ KICK %s %s " % (re.escape(op.nick), re.escape(chan), re.escape(agent)))


def session_of(c, target, agent, where=None):
    """The agent's session id in target and what it dumped: {sessionId, mcpServers}."""
    out, _ = ask(c, target, "%s: whoami" % agent if where is None else "whoami", agent,
                 where=where, want=lambda o: any(l.startswith("sid: ") for l in o))
    sid = [l for l in out if l.startswith("sid: ")][0][5:]
    fn = os.path.join(dump_dir(agent), re.sub(r"[^A-Za-z0-9_-]", "_", sid) + ".json")
    with open(fn) as f:
        return json.load(f)


# ---------------------------------------------------------------- a bridge of our own

class Bridge:
    """The stdio MCP server of an mcpServers entry, run by the test (with its token or
    another)."""

    def __init__(self, entry, token=None, drop_token=False):
        env = dict(os.environ)
        for e in entry["env"]:
            env[e["name"]] = e["value"]
        if token is not None:
            env["AGENTIRCD_MCP_TOKEN"] = token
        if drop_token:
            env.pop("AGENTIRCD_MCP_TOKEN", None)
        self.p = subprocess.Popen([entry["command"]] + entry["args"], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        _bridges.append(self.p)
        self.buf = b""
        self.n = 0

    def send(self, obj):
        data = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        try:
            self.p.stdin.write(data)
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def read(self, timeout=5):
        """One JSON message, or None on EOF / timeout."""
        deadline = time.time() + timeout * SLOW
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            d = os.read(fd, 65536)
            if not d:
                return None
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, method, params=None, timeout=5):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        if not self.send(msg):
            return None
        while True:
            r = self.read(timeout)
            if r is None or r.get("id") == self.n:
                return r

    def initialize(self):
        r = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "test", "version": "1"}})
        if r is not None and "result" in r:
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, name, args):
        r = self.request("tools/call", {"name": name, "arguments": args})
        if r is None or "result" not in r:
            raise TestFailure("tools/call %s %r: %r" % (name, args, r))
        text = "\n".join(c.get("text", "") for c in r["result"].get("content", []))
        return bool(r["result"].get("isError")), text

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            return self.p.wait(5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()


def refused(b, what):
    """A bridge whose token is no good: initialize gets no answer (the daemon closes the
    connection) or an error, and the bridge exits."""
    r = b.initialize()
    if r is not None and "result" in r:
        # Not refused at initialize: then the tool call must fail.
        r2 = b.request("tools/call", {"name": "list_schedules", "arguments": {}})
        if r2 is not None and "result" in r2 and not r2["result"].get("isError"):
            raise TestFailure("SEC-3: %s: the MCP server answered: %r, then %r" % (what, r, r2))
    try:
        b.p.stdin.close()
    except OSError:
        pass
    try:
        b.p.wait(5)
    except subprocess.TimeoutExpired:
        raise TestFailure("SEC-3: %s: the bridge still runs 5 s after its stdin closed" % what)


# ---------------------------------------------------------------- SC-1

def test_sc1_tools_listed():
    """SC-1: tools/list through the stdio server of mcpServers has schedule, unschedule,
    list_schedules."""
    srv = S()
    u = joined(mclient(srv, "u1l"), "#sc1")
    out = mcp(u, "#sc1", "sched", "list")
    names = sorted(l[len("tool: "):] for l in out if l.startswith("tool: "))
    for want in ("list_schedules", "schedule", "unschedule"):
        if want not in names:
            raise TestFailure("tools/list lacks %s: %r" % (want, out))
    u.quit()


def test_sc1_once_in_seconds():
    """SC-1: a one-shot in_seconds 1 fires once (header, prompt, the agent's turn), then
    is gone (list_schedules, !schedules)."""
    srv = S()
    u = joined(mclient(srv, "u1o"), "#sc1")
    t0 = time.time()
    out = mcp(u, "#sc1", "sched", "schedule",
              {"name": "once1", "prompt": "ping once1", "in_seconds": 1})
    sid = scheduled_id(out, "once")
    fid, created, t, _ = expect_firing(u, "#sc1", "once1")
    if fid != sid or created is not None:
        raise TestFailure("firing sch_%d (created in %r), want sch_%d and no 'created in'"
                          % (fid, created, sid))
    if t - t0 < 0.8:
        raise TestFailure("in_seconds 1 fired after %.2fs" % (t - t0))
    u.expect(r"^(?:@\S+ )?:%s NOTICE #sc1 :ping once1$" % re.escape(HOST), 2)
    u.expect(r":sched!\S+ PRIVMSG #sc1 :got: ping once1$", 10)
    lines = collect([u], 1.5)[u]
    if firings(lines, "#sc1", "once1"):
        raise TestFailure("a one-shot fired twice")
    out = mcp(u, "#sc1", "sched", "list_schedules", {})
    if any("once1" in l for l in out):
        raise TestFailure("SC-7: the fired one-shot is still listed: %r" % out)
    got = user_cmd(u, "#sc1", "!schedules")
    if any("once1" in l for l in got):
        raise TestFailure("!schedules still lists the fired one-shot: %r" % got)
    u.quit()


def test_sc1_once_at():
    """SC-1: at an ISO 8601 UTC time ("...Z"): fires at that second."""
    srv = S()
    u = joined(mclient(srv, "u1a"), "#sc1b")
    at = int(time.time()) + 2
    out = mcp(u, "#sc1b", "sched", "schedule",
              {"name": "at1", "prompt": "ping at1", "at": iso(at)})
    scheduled_id(out, "at")
    _, _, t, _ = expect_firing(u, "#sc1b", "at1", timeout=6)
    if not at - 0.05 <= t <= at + 1.0:
        raise TestFailure("at %s fired at %s (%.2fs off)" % (iso(at), iso(t), t - at))
    u.quit()


def test_sc1_every():
    """SC-1: every_minutes 1 (1 s here), no time given: first after one period, then
    every period; unschedule by the agent (id "sch_N") stops it."""
    srv = S()
    u = joined(mclient(srv, "u1e"), "#sc1c")
    t0 = time.time()
    out = mcp(u, "#sc1c", "sched", "schedule",
              {"name": "every1", "prompt": "tick every1", "every_minutes": 1})
    sid = scheduled_id(out, "every")
    times = [expect_firing(u, "#sc1c", "every1", timeout=4)[2] for _ in range(3)]
    if times[0] - t0 < 0.7:
        raise TestFailure("every_minutes 1 without at/in_seconds fired after %.2fs, want "
                          "one period" % (times[0] - t0))
    gaps = [round(b - a, 3) for a, b in zip(times, times[1:])]
    if any(g < 0.2 for g in gaps):
        raise TestFailure("every 1 s: one slot fired twice (seconds between the firings: "
                          "%r)" % gaps)
    if not all(0.5 <= g <= 1.6 for g in gaps):
        raise TestFailure("every 1 s: seconds between the firings %r" % gaps)
    out = mcp(u, "#sc1c", "sched", "unschedule", {"id": "sch_%d" % sid})
    if not any(re.match(r"tool: unscheduled sch_%d\b" % sid, l) for l in out):
        raise TestFailure("unschedule sch_%d: %r" % (sid, out))
    lines = collect([u], 2.0)[u]
    if firings(lines, "#sc1c", "every1"):
        raise TestFailure("fired after unschedule:\n  %s"
                          % "\n  ".join(m.raw for m in firings(lines, "#sc1c", "every1")))
    u.quit()


def test_sc1_at_then_every():
    """SC-1: at and every_minutes: first at the time, then every N (2 s)."""
    srv = S()
    u = joined(mclient(srv, "u1b"), "#sc1d")
    at = int(time.time()) + 2
    out = mcp(u, "#sc1d", "sched", "schedule",
              {"name": "both1", "prompt": "tick both1", "at": iso(at), "every_minutes": 2})
    sid = scheduled_id(out, "both")
    t1 = expect_firing(u, "#sc1d", "both1", timeout=5)[2]
    t2 = expect_firing(u, "#sc1d", "both1", timeout=4)[2]
    if not at - 0.05 <= t1 <= at + 1.0:
        raise TestFailure("first firing at %.2fs from 'at', want 0..1" % (t1 - at))
    if not 1.5 <= t2 - t1 <= 2.6:
        raise TestFailure("second firing %.2fs after the first, want every 2 s" % (t2 - t1))
    # unschedule by number
    out = mcp(u, "#sc1d", "sched", "unschedule", {"id": sid})
    if not any(re.match(r"tool: unscheduled sch_%d\b" % sid, l) for l in out):
        raise TestFailure("unschedule {id: %d} (a number): %r" % (sid, out))
    u.quit()


def test_sc1_list_and_user_commands():
    """SC-1: list_schedules shows id, name, next time; !schedules shows them to a user,
    !unschedule <id> by a user ends one, and list_schedules no longer has it."""
    srv = S()
    u = joined(mclient(srv, "u1u"), "#sc1e")
    a = scheduled_id(mcp(u, "#sc1e", "sched", "schedule",
                         {"name": "later1", "prompt": "p", "in_seconds": 3600}))
    b = scheduled_id(mcp(u, "#sc1e", "sched", "schedule",
                         {"name": "later2", "prompt": "p", "in_seconds": 7200,
                          "every_minutes": 30}))
    out = mcp(u, "#sc1e", "sched", "list_schedules", {})
    for sid, name in ((a, "later1"), (b, "later2")):
        if not any("sch_%d" % sid in l and name in l for l in out):
            raise TestFailure("list_schedules lacks sch_%d %s: %r" % (sid, name, out))
    got = user_cmd(u, "#sc1e", "!schedules")
    when = iso(time.time() + 3600)[:13].replace("T", " ")   # the date and the hour
    for sid, name in ((a, "later1"), (b, "later2")):
        line = [l for l in got if "sch_%d" % sid in l]
        if not line or name not in line[0]:
            raise TestFailure("!schedules lacks sch_%d %s: %r" % (sid, name, got))
    if not any(when in l for l in got if "sch_%d" % a in l):
        raise TestFailure("!schedules: no next time (%s...) for sch_%d: %r" % (when, a, got))
    got = user_cmd(u, "#sc1e", "!unschedule sch_%d" % a)
    if not any("sch_%d" % a in l for l in got):
        raise TestFailure("!unschedule sch_%d: %r" % (a, got))
    got = user_cmd(u, "#sc1e", "!unschedule %d" % b)
    if not any("sch_%d" % b in l for l in got):
        raise TestFailure("!unschedule %d (no sch_): %r" % (b, got))
    got = user_cmd(u, "#sc1e", "!schedules")
    if any("sch_%d" % a in l or "sch_%d" % b in l for l in got):
        raise TestFailure("!schedules after !unschedule: %r" % got)
    out = mcp(u, "#sc1e", "sched", "list_schedules", {})
    if any("later1" in l or "later2" in l for l in out):
        raise TestFailure("list_schedules after !unschedule: %r" % out)
    got = user_cmd(u, "#sc1e", "!unschedule sch_999999")
    if not got:
        raise TestFailure("!unschedule of an unknown id: no NOTICE")
    u.quit()


def test_sc1_private_conversation():
    """SC-1: in a private conversation the default target is that conversation: the
    firing is a server NOTICE to the person, and the agent answers there."""
    srv = S()
    u = mclient(srv, "u1p")
    out = mcp(u, "sched", "sched", "schedule",
              {"name": "priv1", "prompt": "ping priv1", "in_seconds": 1},
              where="u1p", address=False)
    sid = scheduled_id(out, "private")
    fid = expect_firing(u, "u1p", "priv1")[0]
    assert fid == sid, (fid, sid)
    u.expect(r"^(?:@\S+ )?:%s NOTICE u1p :ping priv1$" % re.escape(HOST), 2)
    u.expect(r":sched!\S+ PRIVMSG u1p :got: ping priv1$", 10)
    u.quit()


def test_sc1_bad_arguments():
    """SC-1/SEC-4: bad arguments are tool errors with readable text, and nothing is
    scheduled: no name, no prompt, no time, a bad at, every_minutes 0, a channel the agent
    is not in, an unknown nick; unschedule of an unknown id."""
    srv = S()
    u = joined(mclient(srv, "u1x"), "#scbad")
    bad = [
        {"prompt": "p", "in_seconds": 5},
        {"name": "x", "in_seconds": 5},
        {"name": "x", "prompt": "p"},
        {"name": "x", "prompt": "p", "at": "tomorrow at noon"},
        {"name": "x", "prompt": "p", "every_minutes": 0},
        {"name": "x", "prompt": "p", "in_seconds": 5, "target": "#nowhere-sc"},
        {"name": "x", "prompt": "p", "in_seconds": 5, "target": "nobodyhere"},
    ]
    # Out of range: once an int64 overflow (UBSan) and an endless catch-up loop.
    # (A second call: one IRC line holds the whole JSON.)
    far = [
        {"name": "x", "prompt": "p", "in_seconds": 9223371500000000},
        {"name": "x", "prompt": "p", "in_seconds": 1e300, "every_minutes": 1},
        {"name": "x", "prompt": "p", "in_seconds": -1},
        {"name": "x", "prompt": "p", "in_seconds": "5"},
        {"name": "x", "prompt": "p", "every_minutes": 1e300},
        {"name": "x", "prompt": "p", "at": "9999-01-01T00:00:00Z"},
        {"name": "a\r\nb", "prompt": "p", "in_seconds": 5},
    ]
    out = mcp(u, "#scbad", "sched", "schedule", bad)
    out += mcp(u, "#scbad", "sched", "schedule", far)
    errs = [l for l in out if l.startswith("tool error: ")]
    oks = [l for l in out if l.startswith("tool: ")]
    if oks or len(errs) < len(bad) + len(far):
        raise TestFailure("bad schedule arguments: want %d tool errors, got:\n  %s"
                          % (len(bad) + len(far), "\n  ".join(out)))
    if any(re.match(r"tool error: -32", l) for l in errs):
        raise TestFailure("bad arguments as JSON-RPC errors, want isError results: %r" % errs)
    if not any("in_seconds must be a number from 0 to 31536000" in l for l in errs):
        raise TestFailure("no readable range error for in_seconds: %r" % errs)
    out = mcp(u, "#scbad", "sched", "unschedule", {"id": "sch_424242"})
    if not out or not out[0].startswith("tool error: "):
        raise TestFailure("unschedule of an unknown id: %r" % out)
    got = user_cmd(u, "#scbad", "!schedules")
    if any("sch_" in l for l in got):
        raise TestFailure("bad calls scheduled something: %r" % got)
    u.quit()


def test_sc1_timetable_far_behind():
    """SC-1/SC-2: a repeating schedule whose first time is long past (1970) fires once at
    once and then keeps its timetable (every 1 s here), without catching up slot by
    slot: the server answers at once all along."""
    srv = S()
    u = joined(mclient(srv, "u1f"), "#sc1f")
    sid = scheduled_id(mcp(u, "#sc1f", "sched", "schedule",
                           {"name": "old1", "prompt": "old1", "at": "1970-01-01T00:00:00Z",
                            "every_minutes": 1}))
    try:
        expect_firing(u, "#sc1f", "old1", timeout=4)
        t0 = time.time()
        u.sync(timeout=2)
        if time.time() - t0 > 1 * SLOW:
            raise TestFailure("PING took %.1fs after the first firing" % (time.time() - t0))
        expect_firing(u, "#sc1f", "old1", timeout=4)
    finally:
        out = mcp(u, "#sc1f", "sched", "unschedule", {"id": "sch_%d" % sid})
        if not out or not out[0].startswith("tool: "):
            raise TestFailure("unschedule sch_%d: %r" % (sid, out))
    u.quit()


def test_sec4_permission_flood_capped():
    """SEC-4/PM-1: an agent that asks 20 permissions at once: 16 cards wait, one per
    request, and the 17th and later are answered "cancelled" at once (each waits for a
    person; more is a flood, not a question). !stop ends the turn."""
    srv = S()
    u = joined(mclient(srv, "u1p"), "#sc1f")
    u.send("PRIVMSG #sc1f :sched: perms 20")
    lines = u.collect_until(r":sched!\S+ PRIVMSG #sc1f :cancelled at once: \d+", 20)
    early = re.search(r"cancelled at once: (\d+)", lines[-1]).group(1)
    cards = [l for l in lines if re.search(r":sched!\S+ NOTICE #sc1f :card \d+:", l)]
    if early != "4" or len(cards) != 16:
        raise TestFailure("20 requests at once: %s cancelled at once and %d cards, want 4 "
                          "and 16" % (early, len(cards)))
    u.send("PRIVMSG #sc1f :!stop")
    u.expect(r"typing=done\S* :sched!\S+ TAGMSG #sc1f", 10)
    u.quit()


def test_sec4_card_odd_options():
    """PM-1/SEC-4: a permission request with ten options, eight rejections first, then an
    allow whose id is too long to send back whole, then "allow-ok": the card offers
    !allow, and !allow answers "allow-ok", an id the agent did offer."""
    srv = S()
    u = joined(mclient(srv, "u1q"), "#sc1f")
    u.send("PRIVMSG #sc1f :sched: perm-odd touch it")
    m = u.expect_msg(r":sched!\S+ NOTICE #sc1f :card (\d+):", 15)
    if "!allow" not in m.params[-1]:
        raise TestFailure("the card offers no !allow: %r" % m.params[-1])
    u.send("PRIVMSG #sc1f :!allow")
    u.expect(r":sched!\S+ PRIVMSG #sc1f :permission granted \(allow-ok\)$", 10)
    u.quit()


# ---------------------------------------------------------------- SC-2

def test_sc2_restart_missed_fires_once():
    """SC-2: a repeating schedule (every 3 s) and a one-shot miss firings while the daemon
    is down: after the restart each fires once (not once per missed interval), then the
    repeating one keeps its timetable (first firing + 3k s). The tokens of before the
    restart are refused (SEC-3)."""
    p = PServer("sc2", flood_exempt="127.0.0.0/8", history_replay=0, schedule_minute=1,
                config_extra=agent_section("keeper", "#sc2"))
    try:
        u = joined(mclient(p, "u2", caps=HCAPS), "#sc2")
        old = session_of(u, "#sc2", "keeper")
        scheduled_id(mcp(u, "#sc2", "keeper", "schedule",
                         {"name": "rep2", "prompt": "tick rep2", "in_seconds": 1,
                          "every_minutes": 3}))
        scheduled_id(mcp(u, "#sc2", "keeper", "schedule",
                         {"name": "once2", "prompt": "tick once2", "in_seconds": 3}))
        _, _, _, m = expect_firing(u, "#sc2", "rep2", timeout=4)
        t1 = tag_time(m) if "time" in m.tags else time.time()
        u.quit()
        p.stop()
        # Down over t1+3 and t1+6 (rep2) and the one-shot; back before t1+9.
        time.sleep(max(0, t1 + 7.3 - time.time()))
        p.start()
        restarted = time.time()
        u = joined(mclient(p, "u2b", caps=HCAPS), "#sc2")
        time.sleep(max(0, t1 + 10.6 - time.time()))
        hist = chathistory(u, "#sc2")
        got = [m for m in hist if m.command == "PRIVMSG" and is_from(m, "keeper")]
        rep = [tag_time(m) for m in got if m.params[-1] == "got: tick rep2"]
        once = [tag_time(m) for m in got if m.params[-1] == "got: tick once2"]
        after = sorted(t for t in rep if t > restarted - 0.1)
        where = "\n  ".join("%s %s" % (m.tags.get("time"), m.params[-1]) for m in got)
        problems = []
        if len(once) != 1:
            problems.append("the one-shot missed while down was answered %d times, want 1"
                            % len(once))
        # the catch-up once, soon after the restart; then the slot t1+9 of the timetable
        if len(after) != 2:
            problems.append("after the restart (%.2fs after the first firing) rep2 was "
                            "answered %d times by 10.6s, at %r s, want twice (the catch-up, "
                            "then the slot at 9.0s)" % (restarted - t1, len(after),
                                                        [round(t - t1, 3) for t in after]))
        elif not t1 + 8.8 <= after[1] <= t1 + 9.9:
            problems.append("the timetable after the restart: want the firing after the "
                            "catch-up at 9.0s after the first (first + 3k), got %.2fs "
                            "(restart at %.2fs; restart + 3 = %.2fs)"
                            % (after[1] - t1, restarted - t1, restarted - t1 + 3))
        notes = user_cmd(u, "#sc2", "!schedules")
        if not any("rep2" in l for l in notes) or any("once2" in l for l in notes):
            problems.append("!schedules after the restart: %r" % notes)
        # SEC-3: the token of the session before the restart is no good now (on the
        # socket of now).
        new = session_of(u, "#sc2", "keeper")
        entry = json.loads(json.dumps(new["mcpServers"][0]))
        if entry["env"][0]["value"] == old["mcpServers"][0]["env"][0]["value"]:
            problems.append("the session has the same token after the restart")
        refused(Bridge(entry, token=old["mcpServers"][0]["env"][0]["value"]),
                "a token of the daemon before its restart")
        if problems:
            raise TestFailure("\n".join(problems) + "\nkeeper's answers in #sc2:\n  " + where)
        u.quit()
    finally:
        if p.alive():
            p.stop()


# ---------------------------------------------------------------- SC-3

def test_sc2_out_of_range_row_loads():
    """SC-2/SEC-4: schedules stored out of range (as an older daemon could store them:
    a time near the int64 limits, every below 0) load without an overflow or an endless
    catch-up: the daemon starts, answers, a past time fires once at once, a far one
    waits."""
    p = PServer("sc2r", flood_exempt="127.0.0.0/8", history_replay=0, schedule_minute=1,
                config_extra=agent_section("keeper", "#sc2r"))
    try:
        u = joined(mclient(p, "u2r"), "#sc2r")
        lo = scheduled_id(mcp(u, "#sc2r", "keeper", "schedule",
                              {"name": "low2", "prompt": "tick low2", "in_seconds": 3600,
                               "every_minutes": 1}))
        hi = scheduled_id(mcp(u, "#sc2r", "keeper", "schedule",
                              {"name": "high2", "prompt": "tick high2", "in_seconds": 3600}))
        u.quit()
        p.stop()
        db = sqlite3.connect(p.db)
        db.execute("UPDATE schedules SET next = ?, every = -5 WHERE id = ?",
                   (-(1 << 63) + 1000, lo))
        db.execute("UPDATE schedules SET next = ? WHERE id = ?", ((1 << 63) - 1000, hi))
        db.commit()
        db.close()
        p.start()
        u = joined(mclient(p, "u2s", caps=HCAPS), "#sc2r")
        u.sync(timeout=3)
        time.sleep(1.5)
        # It fired at the start, before anyone joined: the history has it, once.
        hist = chathistory(u, "#sc2r")
        rx = re.compile(HEADER_RX % "(low2|high2)")
        fired = [m.params[-1] for m in hist if m.command == "NOTICE" and m.params
                 and rx.match(m.params[-1])]
        if len(fired) != 1 or '"low2"' not in fired[0]:
            raise TestFailure("firings after the restart: %r, want low2 once" % fired)
        got = user_cmd(u, "#sc2r", "!schedules")
        if not any("high2" in l for l in got) or any("low2" in l for l in got):
            raise TestFailure("after the catch-up: want high2 waiting and low2 (every "
                              "clamped to 0: a one-shot) gone: %r" % got)
        u.quit()
    finally:
        p.stop()


def test_sc3_skip_while_queued():
    """SC-3: every 2 s in #sc3 while the agent's session there is busy (a 5.5 s turn):
    the firings during the busy time give one waiting turn, not one per firing."""
    srv = S()
    u = joined(mclient(srv, "u3"), "#sc3")
    sid = scheduled_id(mcp(u, "#sc3", "sched", "schedule",
                           {"name": "busy3", "prompt": "tick busy3", "in_seconds": 1,
                            "every_minutes": 2}))
    try:
        u.send("PRIVMSG #sc3 :sched: sleep 5500")
        u.expect(r":sched!\S+ PRIVMSG #sc3 :slept 5500$", 10)
        lines = collect([u], 0.8)[u]
        got = agent_lines(lines, "sched", "#sc3").count("got: tick busy3")
        if got != 1:
            raise TestFailure("after the busy turn, the agent answered %d firings, want 1 "
                              "(firings skipped while one waits); lines:\n  %s"
                              % (got, "\n  ".join(lines)))
    finally:
        user_cmd(u, "#sc3", "!unschedule sch_%d" % sid)
    u.quit()


# ---------------------------------------------------------------- SC-4

def test_sc4_header_and_queued_turn():
    """SC-4: the header NOTICE, then the prompt, in the target conversation; the agent's
    turn carries the same text, header included, from the server."""
    srv = S()
    u = joined(mclient(srv, "u4h"), "#sc4h")
    sid = scheduled_id(mcp(u, "#sc4h", "sched", "schedule",
                           {"name": "hdr4", "prompt": "echo-prompt", "in_seconds": 1}))
    fid, _, _, m = expect_firing(u, "#sc4h", "hdr4")
    header = m.params[-1]
    assert fid == sid
    u.expect(r"^(?:@\S+ )?:%s NOTICE #sc4h :echo-prompt$" % re.escape(HOST), 2)
    u.expect(r":sched!\S+ PRIVMSG #sc4h :prompt: ", 10)
    first = u.last.params[-1]
    lines = [first] + [l for l in agent_lines(collect([u], 1.0)[u], "sched", "#sc4h")]
    plines = [l[len("prompt: "):] for l in lines if l.startswith("prompt: ")]
    if len(plines) < 2 or not plines[-1].endswith("echo-prompt") \
            or not any(header in l for l in plines):
        raise TestFailure("the scheduled turn's prompt does not carry the header %r then "
                          "the prompt; the agent read:\n  %s" % (header, "\n  ".join(plines)))
    u.quit()


def test_sc4_firing_kept_in_history():
    """SC-4/HS-2: the firing NOTICE is a NOTICE of the conversation: stored, with msgid
    and time, and given by CHATHISTORY."""
    srv = S()
    u = joined(mclient(srv, "u4k", caps=HCAPS), "#sc4h")
    scheduled_id(mcp(u, "#sc4h", "sched", "schedule",
                     {"name": "hist4", "prompt": "history4", "in_seconds": 1}))
    _, _, _, m = expect_firing(u, "#sc4h", "hist4")
    live = m
    u.expect(r":sched!\S+ PRIVMSG #sc4h :got: history4$", 10)
    hist = chathistory(u, "#sc4h")
    hit = [h for h in hist if h.command == "NOTICE" and "\"hist4\"" in h.params[-1]]
    problems = []
    if "msgid" not in live.tags or "time" not in live.tags:
        problems.append("the live firing NOTICE has no msgid/time tags: %s" % live.raw)
    if not hit:
        problems.append("CHATHISTORY LATEST #sc4h lacks the firing NOTICE (it has: %s)"
                        % "; ".join("%s %s" % (h.command, h.params[-1][:40]) for h in hist[-6:]))
    if problems:
        raise TestFailure("\n".join(problems))


def test_sc4_scheduled_turn_approves_nothing():
    """SC-4/PM-2: a card opened during a scheduled turn waits for a person: the user who
    made the schedule cannot !allow it (it is automated), a channel operator can. The
    same user can answer a card of a turn he started himself."""
    srv = S()
    op = op_channel(srv, "o4", "#sc4", "sched")
    u = joined(mclient(srv, "u4"), "#sc4")
    op.drain()
    try:
        # control: u4's own turn: u4 may answer its card
        u.send("PRIVMSG #sc4 :sched: perm warm up")
        m = u.expect_msg(r":sched!\S+ NOTICE #sc4 :card (\d+): sched asks to ", 10)
        n0 = int(re.search(r"card (\d+):", m.params[-1]).group(1))
        u.send("PRIVMSG #sc4 :!allow %d" % n0)
        # TN-12: two people are here, so the answer names u4.
        u.expect(r":sched!\S+ PRIVMSG #sc4 :u4: permission granted \(allow-once\)$", 10)
        sid = scheduled_id(mcp(u, "#sc4", "sched", "schedule",
                               {"name": "risky4", "prompt": "perm rotate the logs",
                                "in_seconds": 1}))
        expect_firing(u, "#sc4", "risky4")
        m = u.expect_msg(r":sched!\S+ NOTICE #sc4 :card (\d+): sched asks to "
                         r".*rotate the logs", 10)
        n = int(re.search(r"card (\d+):", m.params[-1]).group(1))
        got = user_cmd(u, "#sc4", "!allow %d" % n)
        if not any(re.search(r"card %d: only .*channel operator" % n, l) for l in got):
            raise TestFailure("u4 (who made the schedule, not an operator) answered !allow "
                              "to the card of a scheduled turn; NOTICEs: %r" % got)
        pend = collect([u], 0.5)[u]
        if any("permission granted" in l or "allowed by u4" in l for l in pend):
            raise TestFailure("the card of a scheduled turn was allowed by u4:\n  %s"
                              % "\n  ".join(pend))
        op.send("PRIVMSG #sc4 :!allow %d" % n)
        u.expect(r":sched!\S+ NOTICE #sc4 :card %d: allowed by o4" % n, 5)
        u.expect(r":sched!\S+ PRIVMSG #sc4 :permission granted \(allow-once\)$", 10)
        del sid
    finally:
        kick(op, "#sc4", "sched")
    u.quit()
    op.quit()


# ---------------------------------------------------------------- SC-5

def test_sc5_cross_conversation_needs_allow():
    """SC-5/AU-5: a schedule for another conversation waits for consent there: a card in
    the target channel, which neither the requester (a plain member there) nor another
    user may answer, only an operator of the target; once allowed it fires there with
    "(created in <conversation>)" and the agent answers there."""
    srv = S()
    op = op_channel(srv, "o5", "#sc5a", "sched")
    joined(op, "#sc5b")
    op.send("INVITE sched #sc5b")
    op.expect(r":sched!\S+ JOIN #sc5b")
    u = joined(mclient(srv, "u5"), "#sc5a", "#sc5b")
    other = joined(mclient(srv, "v5"), "#sc5a", "#sc5b")
    try:
        out = mcp(u, "#sc5a", "sched", "schedule",
                  {"name": "cross5", "prompt": "hello from a", "in_seconds": 1,
                   "target": "#sc5b"})
        if not any(re.match(r"tool: sch_\d+ waits for a person", l) for l in out):
            raise TestFailure("a schedule for another conversation under ask: %r" % out)
        sid = int(re.search(r"sch_(\d+)", out[0]).group(1))
        n = card_in(u, "sched", "#sc5b", "cross5")
        lines = collect([op], 1.6)[op]
        if firings(lines, "#sc5b", "cross5"):
            raise TestFailure("the cross-conversation schedule fired before !allow")
        for who in (other, u):
            got = user_cmd(who, "#sc5b", "!allow %d" % n)
            if not any("only" in l for l in got):
                raise TestFailure("%s (not an operator of #sc5b) answered the card: %r"
                                  % (who.nick, got))
        op.send("PRIVMSG #sc5b :!allow %d" % n)
        op.expect(r":sched!\S+ NOTICE #sc5b :card %d: allowed by o5" % n, 5)
        fid, created, _, _ = expect_firing(op, "#sc5b", "cross5", timeout=4)
        if fid != sid or (created or "").lower() != "#sc5a":
            raise TestFailure("firing sch_%d created in %r, want sch_%d created in #sc5a"
                              % (fid, created, sid))
        op.expect(r":sched!\S+ PRIVMSG #sc5b :got: hello from a$", 10)
    finally:
        kick(op, "#sc5a", "sched")
        kick(op, "#sc5b", "sched")
    for c in (u, other, op):
        c.quit()



def test_sc5_pending_card_after_restart():
    """SC-2/SC-5/AU-5: a schedule for another conversation still waiting for its !allow
    when the daemon stops gets its card again after the restart, in the target (kept in
    history, so the JOIN replay shows it); its operator allows it and it fires. The
    operator is an account (AU-7: op comes back to the account that made the channel,
    not to the first into a channel where only the agent is)."""
    pw = "pend5-secret"
    h = subprocess.run([daemon_path(), "--hash-password"], input=pw + "\n",
                       stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    srv = PServer("pend5", flood_exempt="127.0.0.0/8", history_replay=20,
                  schedule_minute=1,
                  config_extra="[account op5]\npassword = %s\n\n" % h
                  + agent_section("sched"))
    try:
        u = Client(srv)
        u.nick = "u5p"
        u.send("CAP REQ :%s" % CAPS)
        u.expect(r" CAP \S+ ACK ")
        u.send("CAP END")
        u.register("u5p", password="op5:" + pw)
        joined(u, "#sc5p", "#sc5q")
        for ch in ("#sc5p", "#sc5q"):
            u.send("INVITE sched %s" % ch)
            u.expect(r":sched!\S+ JOIN %s" % ch)
        out = mcp(u, "#sc5p", "sched", "schedule",
                  {"name": "pend5", "prompt": "after restart", "in_seconds": 1,
                   "target": "#sc5q"})
        if not any(re.match(r"tool: sch_\d+ waits for a person", l) for l in out):
            raise TestFailure("not pending: %r" % out)
        u.quit()
        srv.restart()
        op = Client(srv)
        op.nick = "o5p"
        op.send("CAP REQ :%s server-time" % CAPS)
        op.expect(r" CAP \S+ ACK ")
        op.send("CAP END")
        op.register("o5p", password="op5:" + pw)
        op.send("JOIN #sc5q")
        op.expect(r":o5p!\S+ JOIN #sc5q")
        op.send("JOIN #sc5p")
        n = card_in(op, "sched", "#sc5q", "pend5", timeout=8)
        op.send("PRIVMSG #sc5q :!allow %d" % n)
        op.expect(r":sched!\S+ NOTICE #sc5q :card %d: allowed by o5p" % n, 5)
        expect_firing(op, "#sc5q", "pend5", timeout=5)
        op.quit()
    finally:
        srv.stop()

def own_server(**kw):
    """A server of one test (for what may bring the daemon down): the sched agent in
    #sc5t and #sc5u."""
    return Server(flood_exempt="127.0.0.0/8", history_replay=0, schedule_minute=1,
                  config_extra=agent_section("sched", "#sc5t #sc5u"), **kw)


def test_sc5_denied_card_drops_schedule():
    """SC-5: !deny on the card of a schedule for another conversation: it never fires and
    is gone; the daemon lives on."""
    with own_server() as srv:
        # AU-7: the card's answerer is #sc5y's op, so u5d makes the channels.
        u = joined(mclient(srv, "u5d"), "#sc5x", "#sc5y")
        for ch in ("#sc5x", "#sc5y"):
            u.send("INVITE sched %s" % ch)
            u.expect(r":sched!\S+ JOIN %s" % ch)
        out = mcp(u, "#sc5x", "sched", "schedule",
                  {"name": "deny5", "prompt": "never", "in_seconds": 1, "target": "#sc5y"})
        if not any("waits for a person" in l for l in out):
            raise TestFailure("a schedule for another conversation under ask: %r" % out)
        n = card_in(u, "sched", "#sc5y", "deny5")
        u.send("PRIVMSG #sc5y :!deny %d" % n)
        u.expect(r":sched!\S+ NOTICE #sc5y :card %d: denied by u5d" % n, 5)
        lines = collect([u], 1.5)[u]
        if firings(lines, "#sc5y", "deny5"):
            raise TestFailure("a denied schedule fired")
        got = user_cmd(u, "#sc5x", "!schedules")
        if any("deny5" in l for l in got):
            raise TestFailure("a denied schedule is still listed: %r" % got)
        srv.check()
        u.quit()


def test_sc5_unanswered_card_drops_schedule():
    """SC-5/PM-3: the card of a schedule for another conversation, unanswered for
    permission-timeout, is refused: the schedule never fires and is gone; the daemon
    lives on."""
    with own_server(permission_timeout=1) as srv:
        u = joined(mclient(srv, "u5t"), "#sc5t", "#sc5u")
        out = mcp(u, "#sc5t", "sched", "schedule",
                  {"name": "late5", "prompt": "never", "in_seconds": 1, "target": "#sc5u"})
        if not any("waits for a person" in l for l in out):
            raise TestFailure("a schedule for another conversation under ask: %r" % out)
        n = card_in(u, "sched", "#sc5u", "late5")
        u.expect(r":sched!\S+ NOTICE #sc5u :card %d: no answer in time, refused" % n, 4)
        lines = collect([u], 1.5)[u]
        if firings(lines, "#sc5u", "late5"):
            raise TestFailure("the schedule of a refused card fired")
        got = user_cmd(u, "#sc5t", "!schedules")
        if any("late5" in l for l in got):
            raise TestFailure("the schedule of a refused card is still listed: %r" % got)
        srv.check()
        u.quit()


def test_sc5_budget_and_hold():
    """SC-5: prompts an agent sends elsewhere number 30 before a person is asked again: 10
    schedules every 1 s from #sc5c to #sc5d, each allowed on its card in #sc5d by its
    operator (AU-5, under allow-all too), fire 30 times after the last !allow (a person's
    yes resets the count), then are held; !schedules shows "held: waiting until you write
    in #sc5c"; a person writing in #sc5c releases them."""
    srv = S()
    op = op_channel(srv, "o5b", "#sc5c", "crossy")
    w = op_channel(srv, "w5", "#sc5d", "crossy")
    joined(op, "#sc5d")
    kicked = False
    try:
        out = mcp(op, "#sc5c", "crossy", "schedule",
                  {"name": "b%i", "prompt": "burst %i", "in_seconds": 1,
                   "every_minutes": 1, "target": "#sc5d"}, times=10)
        if len([l for l in out if re.match(r"tool: sch_\d+ waits for a person", l)]) != 10:
            raise TestFailure("10 schedules for #sc5d under allow-all: want 10 waiting "
                              "for consent there: %r" % out)
        cards = [int(w.expect(r":crossy!\S+ NOTICE #sc5d :card (\d+): crossy asks to "
                              r"schedule \"b\d+\"", 5).group(1)) for _ in range(10)]
        for n in cards:
            w.send("PRIVMSG #sc5d :!allow %d" % n)
        allowed = re.compile(r":crossy!\S+ NOTICE #sc5d :card (\d+): allowed by w5")
        hdr = re.compile(header_rx("#sc5d", None, r"b\d+"))
        deadline = time.time() + 12 * SLOW
        seen, left = [], set(cards)
        while time.time() < deadline and (left or len(seen) < 30):
            line = w._next(deadline)
            if line is None:
                break
            m = allowed.search(line)
            if m:
                left.discard(int(m.group(1)))
                seen = []   # a person's yes: the count starts again
            elif hdr.search(line):
                seen.append(line)
        if left or len(seen) < 30:
            raise TestFailure("after the last !allow, only %d firings in #sc5d within 12 s "
                              "(want 30 before the budget is used up; cards not allowed: "
                              "%r)" % (len(seen), sorted(left)))
        lines = collect([w], 2.2)[w]
        more = [l for l in lines if hdr.search(l)]
        if more:
            raise TestFailure("past the budget of 30, %d more firings:\n  %s"
                              % (len(more), "\n  ".join(more[:5])))
        problems = []
        got = user_cmd(w, "#sc5d", "!schedules")
        held = [l for l in got if "held: waiting until you write in #sc5c" in l]
        if len(held) != 10:
            raise TestFailure("!schedules in #sc5d: want 10 held (waiting until you write in "
                              "#sc5c), got:\n  %s" % "\n  ".join(got))
        # The person the hold waits for lists them where they were made: still held
        # (a ! command is no message to the conversation: it releases nothing).
        got = user_cmd(op, "#sc5c", "!schedules")
        held = [l for l in got if "held: waiting until you write in #sc5c" in l]
        lines = collect([w], 0.6)[w]
        if len(held) != 10 or any(hdr.search(l) for l in lines):
            problems.append(
                "!schedules in #sc5c, where the schedules were made: want the 10 held ones "
                "listed as held and none released; got %d listed as held, %d firings right "
                "after it; NOTICEs:\n  %s" % (len(held), len([l for l in lines if hdr.search(l)]),
                                              "\n  ".join(got)))
            # released by the ! command: wait until held again
            time.sleep(3.2)
            collect([w], 0.1)
        # A person writes where they were made: released.
        op.send("PRIVMSG #sc5c :I am here")
        lines = collect([w], 1.5)[w]
        if not any(hdr.search(l) for l in lines):
            problems.append("held firings not released when a person wrote in #sc5c")
        # SC-7: the target goes away (KICK): they all end.
        kick(w, "#sc5d", "crossy")
        kicked = True
        got = user_cmd(op, "#sc5c", "!schedules")
        if any(re.search(r"\"b\d+\"", l) for l in got):
            problems.append("SC-7: schedules aimed at a channel the agent was kicked from "
                            "remain: %r" % got)
        if problems:
            raise TestFailure("\n".join(problems))
    finally:
        if not kicked:
            kick(w, "#sc5d", "crossy")
        kick(op, "#sc5c", "crossy")
    op.quit()
    w.quit()


def test_sc5_own_conversation_never_held():
    """SC-5: schedules for the agent's own conversation are never counted nor held: 12
    every 1 s in #sc5e fire past 30 prompts (paced, AU-5: 6 a second after a burst)."""
    srv = S()
    u = joined(mclient(srv, "u5e"), "#sc5e")
    ids = []
    try:
        out = mcp(u, "#sc5e", "crossy", "schedule",
                  {"name": "own%i", "prompt": "own %i", "in_seconds": 1, "every_minutes": 1},
                  times=12)
        ids = [int(x) for x in re.findall(r"tool: scheduled sch_(\d+)", "\n".join(out))]
        if len(ids) != 12:
            raise TestFailure("12 schedules in the own conversation: %r" % out)
        hdr = re.compile(header_rx("#sc5e", None, r"own\d+"))
        deadline = time.time() + 12 * SLOW
        n = 0
        while time.time() < deadline and n < 34:
            line = u._next(deadline)
            if line is not None and hdr.search(line):
                n += 1
        if n < 34:
            raise TestFailure("own-conversation schedules fired %d times in 12 s, want > 30 "
                              "(never held)" % n)
    finally:
        for i in ids:
            u.send("PRIVMSG #sc5e :!unschedule sch_%d" % i)
        u.sync()
    got = user_cmd(u, "#sc5e", "!schedules")
    if any("own" in l for l in got):
        raise TestFailure("!unschedule left: %r" % got)
    u.quit()


# ---------------------------------------------------------------- SC-6

def test_sc6_limits():
    """SC-6: 20 schedules firing in one conversation, the 21st refused with a tool error;
    20 made for other conversations (each waiting for consent there, AU-5), the 21st
    refused too."""
    srv = S()
    u = joined(mclient(srv, "u6"), "#sc6", "#sc6b", "#sc6c", "#sc6d")
    out = mcp(u, "#sc6", "sched", "schedule",
              {"name": "lim%i", "prompt": "p", "in_seconds": 3600}, times=21)
    oks = [l for l in out if l.startswith("tool: scheduled sch_")]
    errs = [l for l in out if l.startswith("tool error: ")]
    if len(oks) != 20 or len(errs) != 1 or not re.search(r"20", errs[0]):
        raise TestFailure("21 schedules in #sc6: want 20 scheduled and one tool error "
                          "naming the limit of 20, got:\n  %s" % "\n  ".join(out))
    out = mcp(u, "#sc6b", "crossy", "schedule",
              {"name": "made%i", "prompt": "p", "in_seconds": 3600, "target": "#sc6c"},
              times=10)
    out += mcp(u, "#sc6b", "crossy", "schedule",
               {"name": "more%i", "prompt": "p", "in_seconds": 3600, "target": "#sc6d"},
               times=11)
    oks = [l for l in out if re.match(r"tool: sch_\d+ waits for a person", l)]
    errs = [l for l in out if l.startswith("tool error: ")]
    if len(oks) != 20 or len(errs) != 1 or not re.search(r"20", errs[0]):
        raise TestFailure("21 schedules made in #sc6b for others: want 20 and one tool error, "
                          "got:\n  %s" % "\n  ".join(out))
    u.quit()


# ---------------------------------------------------------------- SC-7

def test_sc7_kick_ends_schedules():
    """SC-7: KICK of the agent from the channel ends its schedules firing there, and
    those made there for another channel."""
    srv = S()
    op = op_channel(srv, "o7", "#sc7", "crossy")
    joined(op, "#sc7b")
    op.send("INVITE crossy #sc7b")
    op.expect(r":crossy!\S+ JOIN #sc7b")
    try:
        scheduled_id(mcp(op, "#sc7", "crossy", "schedule",
                         {"name": "tick7", "prompt": "tick7", "in_seconds": 1,
                          "every_minutes": 1}))
        out = mcp(op, "#sc7", "crossy", "schedule",
                  {"name": "away7", "prompt": "away7", "in_seconds": 1,
                   "every_minutes": 1, "target": "#sc7b"})
        n = card_in(op, "crossy", "#sc7b", "away7")
        op.send("PRIVMSG #sc7b :!allow %d" % n)
        expect_firing(op, "#sc7", "tick7")
        expect_firing(op, "#sc7b", "away7", timeout=4)
        kick(op, "#sc7", "crossy")
        got = user_cmd(op, "#sc7", "!schedules")
        got += user_cmd(op, "#sc7b", "!schedules")
        if any("tick7" in l or "away7" in l for l in got):
            raise TestFailure("schedules left after the KICK: %r" % got)
        lines = collect([op], 2.2)[op]
        fired = firings(lines, "#sc7", "tick7") + firings(lines, "#sc7b", "away7")
        if fired:
            raise TestFailure("fired after the KICK:\n  %s" % "\n  ".join(m.raw for m in fired))
    finally:
        op.send("KICK #sc7 crossy")
        op.send("KICK #sc7b crossy")
        op.sync()
    op.quit()


# ---------------------------------------------------------------- SC-8


def test_sc7_account_deleted_ends_schedules():
    """SC-7: a schedule of a private conversation with an account ends when the account
    is deleted from the config and the server reloads it (SIGHUP)."""
    pw = "sc7-secret"
    h = subprocess.run([daemon_path(), "--hash-password"], input=pw + "\n",
                       stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    account = "[account carol7]\npassword = %s\n\n" % h
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0, schedule_minute=1,
                 config_extra=account + agent_section("acct7"))
    try:
        c = Client(srv)
        c.nick = "carol7"
        c.send("PASS carol7:%s" % pw)
        c.send("CAP REQ :%s" % CAPS)
        c.expect(r" CAP \S+ ACK ")
        c.send("CAP END")
        c.register("carol7")
        out = mcp(c, "acct7", "acct7", "schedule",
                  {"name": "tick7a", "prompt": "tick7a", "in_seconds": 1,
                   "every_minutes": 1}, where="carol7", address=False)
        scheduled_id(out, "private")
        expect_firing(c, "carol7", "tick7a")
        with open(srv.conf) as f:
            text = f.read()
        with open(srv.conf, "w") as f:
            f.write(text.replace(account, ""))
        os.kill(srv.proc.pid, signal.SIGHUP)
        time.sleep(0.5 * SLOW)
        c.sync()
        lines = collect([c], 2.5)[c]
        if firings(lines, "carol7", "tick7a"):
            raise TestFailure("a schedule of a deleted account still fires")
        got = user_cmd(c, "acct7", "!schedules")
        if any("tick7a" in l for l in got):
            raise TestFailure("!schedules still lists it: %r" % got)
        c.quit()
    finally:
        srv.stop()

def test_sc8_join_summary():
    """SC-8: a joiner of a channel with schedules gets "N scheduled, next at HH:MM
    (<name>)"; of a channel without, nothing of the kind."""
    srv = S()
    op = op_channel(srv, "o8", "#sc8", "sched")
    try:
        t = time.time()
        scheduled_id(mcp(op, "#sc8", "sched", "schedule",
                         {"name": "daily8", "prompt": "p", "in_seconds": 120}))
        scheduled_id(mcp(op, "#sc8", "sched", "schedule",
                         {"name": "later8", "prompt": "p", "in_seconds": 3000}))
        j = mclient(srv, "j8")
        lines = j.join("#sc8") + j.sync()
        notes = server_notices(lines, "j8")
        rx = re.compile(r"^(\d+) scheduled(?: in #sc8)?, next at (\d\d:\d\d)(?: UTC)? "
                        r"\((.*)\)$")
        hit = [rx.match(n) for n in notes if rx.match(n)]
        if not hit:
            raise TestFailure("no JOIN summary \"2 scheduled, next at HH:MM (daily8)\" "
                              "among the NOTICEs to j8: %r" % notes)
        h = hit[0]
        want = {datetime.datetime.utcfromtimestamp(t + 120 + d).strftime("%H:%M")
                for d in (-2, 0, 3)}
        if h.group(1) != "2" or h.group(3) != "daily8" or h.group(2) not in want:
            raise TestFailure("JOIN summary %r: want 2, daily8, next at one of %r"
                              % (h.group(0), sorted(want)))
        lines = j.join("#sc8none") + j.sync()
        if any(rx.match(n) for n in server_notices(lines, "j8")):
            raise TestFailure("a JOIN summary in a channel without schedules")
        j.quit()
    finally:
        kick(op, "#sc8", "sched")
    op.quit()


# ---------------------------------------------------------------- SEC-3

def test_sec3_mcp_servers_entry():
    """SEC-3: the session's mcpServers entry: {name agentircd, command the daemon's own
    binary (absolute), args [--mcp-bridge, <socket>], env AGENTIRCD_MCP_TOKEN}; the socket
    is private (0600 in a 0700 directory); one token per session; the daemon's log does
    not carry the tokens."""
    srv = S()
    u = joined(mclient(srv, "us1"), "#secA", "#secB")
    a = session_of(u, "#secA", "secy")
    b = session_of(u, "#secB", "secy")
    for d in (a, b):
        ours = [e for e in d["mcpServers"] if e.get("name") == "agentircd"]
        if len(ours) != 1:
            raise TestFailure("mcpServers of %s: %r" % (d["sessionId"], d["mcpServers"]))
        e = ours[0]
        if not os.path.isabs(e["command"]) or \
                os.path.realpath(e["command"]) != os.path.realpath(srv.binary):
            raise TestFailure("command %r is not the daemon's binary %r"
                              % (e["command"], srv.binary))
        if len(e["args"]) != 2 or e["args"][0] != "--mcp-bridge":
            raise TestFailure("args %r" % e["args"])
        names = [x["name"] for x in e["env"]]
        if names != ["AGENTIRCD_MCP_TOKEN"] or len(e["env"][0]["value"]) < 16:
            raise TestFailure("env %r" % e["env"])
        sock = e["args"][1]
        st = os.stat(sock)
        dst = os.stat(os.path.dirname(sock))
        if not stat.S_ISSOCK(st.st_mode) or st.st_mode & 0o077 or dst.st_mode & 0o077:
            raise TestFailure("the MCP socket %s is not private: %o in a %o directory"
                              % (sock, st.st_mode & 0o777, dst.st_mode & 0o777))
    ta = a["mcpServers"][0]["env"][0]["value"]
    tb = b["mcpServers"][0]["env"][0]["value"]
    if ta == tb:
        raise TestFailure("two sessions share the token %s" % ta)
    log = srv.log_text()
    if ta in log or tb in log:
        raise TestFailure("SEC-2: the daemon's log carries an MCP token")
    u.quit()


def test_sec3_connection_outlives_conversation():
    """SEC-3/SEC-4: a bridge connected with a conversation's token while the agent is in
    the channel; the agent is KICKed and the conversation ends; the next call on that same
    connection is refused (the daemon closes it: it no longer knows the token), and the
    daemon answers as before."""
    srv = S()
    op = op_channel(srv, "o3g", "#secgone", "secy")
    a = session_of(op, "#secgone", "secy")
    br = Bridge(a["mcpServers"][0])
    try:
        r = br.initialize()
        if r is None or "result" not in r:
            raise TestFailure("initialize with the conversation's token: %r" % r)
        kick(op, "#secgone", "secy")
        r = br.request("tools/call", {"name": "list_schedules", "arguments": {}})
        if r is not None:
            raise TestFailure("a call on the connection of a conversation that ended: %r" % r)
        op.sync()
    finally:
        br.close()
    op.quit()


def test_sec4_mcp_unread_answers_capped():
    """SEC-4: a client of the MCP socket that sends requests and never reads the answers
    is closed once more than 4 MiB of answers wait for it, instead of the daemon keeping
    them all; a new connection with the same token is answered as before."""
    srv = S()
    u = joined(mclient(srv, "us4m"), "#secM")
    entry = session_of(u, "#secM", "secy")["mcpServers"][0]
    path, token = entry["args"][1], entry["env"][0]["value"]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(token.encode() + b"\n" + json.dumps(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"}}}).encode() + b"\n")
    # A tools/list answer is over 1 KiB: 8000 of them are well past 4 MiB.
    n = 8000
    reqs = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n' % i
                    for i in range(1, n + 1))
    s.setblocking(False)
    sent, deadline = 0, time.time() + 10 * SLOW
    while sent < len(reqs) and time.time() < deadline:
        try:
            sent += s.send(reqs[sent:sent + 65536])
        except BlockingIOError:
            select.select([], [s], [], 0.1)
        except OSError:
            break           # closed already: the daemon has had enough
    deadline = time.time() + 10 * SLOW
    while "does not read its answers" not in srv.log_text():
        if time.time() > deadline:
            raise TestFailure("4 MiB and more of unread MCP answers: the daemon kept the "
                              "connection (sent %d of %d bytes)" % (sent, len(reqs)))
        time.sleep(0.05)
    s.setblocking(True)
    s.settimeout(10 * SLOW)
    got, data = 0, b""
    try:
        while True:
            d = s.recv(1 << 20)
            if not d:
                break
            got += d.count(b"\n")
    except OSError:
        pass        # reset: closed with answers unread
    s.close()
    if got >= n:
        raise TestFailure("every answer arrived (%d): nothing was cut" % got)
    br = Bridge(entry)
    try:
        r = br.initialize()
        if r is None or "result" not in r:
            raise TestFailure("a new connection with the same token: %r" % r)
    finally:
        br.close()
    u.sync()
    u.quit()


def test_sec3_token_acts_only_as_its_session():
    """SEC-3: the bridge run with session A's token: initialize, ping and tools/list
    answer; a schedule without target fires in A's conversation; list_schedules shows
    A's and not B's; unschedule of B's is a tool error and B's stays."""
    srv = S()
    u = joined(mclient(srv, "us2"), "#secA", "#secB")
    a = session_of(u, "#secA", "secy")
    session_of(u, "#secB", "secy")
    bid = scheduled_id(mcp(u, "#secB", "secy", "schedule",
                           {"name": "bee", "prompt": "p", "in_seconds": 3600}))
    br = Bridge(a["mcpServers"][0])
    try:
        r = br.initialize()
        if r is None or "result" not in r:
            raise TestFailure("initialize with session A's own token: %r" % r)
        res = r["result"]
        if res.get("protocolVersion") != "2025-06-18" or "tools" not in res.get("capabilities", {}):
            raise TestFailure("initialize result: %r" % res)
        r = br.request("ping")
        if r is None or r.get("result") != {}:
            raise TestFailure("ping: %r" % r)
        r = br.request("tools/list", {})
        tools = {t["name"]: t for t in (r or {}).get("result", {}).get("tools", [])}
        for name in ("schedule", "unschedule", "list_schedules"):
            t = tools.get(name)
            if t is None or not t.get("description") or \
                    t.get("inputSchema", {}).get("type") != "object":
                raise TestFailure("tools/list: %s missing or without description/schema: %r"
                                  % (name, r))
        if sorted(tools["schedule"]["inputSchema"].get("required", [])) != ["name", "prompt"]:
            raise TestFailure("schedule's required arguments: %r"
                              % tools["schedule"]["inputSchema"].get("required"))
        err, text = br.call("schedule", {"name": "ayy", "prompt": "from the bridge",
                                         "in_seconds": 0.5})
        if err or not text.startswith("scheduled sch_"):
            raise TestFailure("schedule with A's token: %r" % text)
        fid, created, _, _ = expect_firing(u, "#secA", "ayy", timeout=4)
        if created is not None:
            raise TestFailure("A's default target is not #secA: created in %r" % created)
        err, text = br.call("list_schedules", {})
        if "bee" in text or "sch_%d" % bid in text:
            raise TestFailure("list_schedules with A's token shows B's schedule: %r" % text)
        err, text = br.call("unschedule", {"id": "sch_%d" % bid})
        if not err:
            raise TestFailure("unschedule of B's schedule with A's token: %r" % text)
        got = user_cmd(u, "#secB", "!schedules")
        if not any("sch_%d" % bid in l for l in got):
            raise TestFailure("B's schedule is gone after A's unschedule: %r" % got)
    finally:
        br.close()
        user_cmd(u, "#secB", "!unschedule sch_%d" % bid)
    u.quit()


def test_sec3_bad_tokens_refused():
    """SEC-3: a bogus token, no token, and the token of a session that went away (the
    agent KICKed from that channel) get nothing done."""
    srv = S()
    op = op_channel(srv, "os3", "#secK", "secy")
    d = session_of(op, "#secK", "secy")
    entry = d["mcpServers"][0]
    refused(Bridge(entry, token="0" * 32), "a bogus token")
    refused(Bridge(entry, token="x"), "a short bogus token")
    good = entry["env"][0]["value"]
    refused(Bridge(entry, token=good[:-1] + ("0" if good[-1] != "0" else "1")),
            "a token one character off")
    b = Bridge(entry, drop_token=True)
    rc = b.close()
    if rc == 0:
        raise TestFailure("the bridge without AGENTIRCD_MCP_TOKEN exited 0")
    kick(op, "#secK", "secy")
    refused(Bridge(entry), "the token of a KICKed session")
    op.quit()


def test_sec4_bad_mcp_input():
    """SEC-4: bad MCP input gets JSON-RPC errors and changes nothing: not JSON (-32700),
    an unknown method (-32601), an unknown tool and non-object arguments (-32602); the
    daemon lives on."""
    srv = S()
    u = joined(mclient(srv, "us4"), "#sec4")
    d = session_of(u, "#sec4", "secy")
    br = Bridge(d["mcpServers"][0])
    try:
        if "result" not in (br.initialize() or {}):
            raise TestFailure("initialize failed")
        br.send(b"{this is not json\n")
        r = br.read()
        if r is None or r.get("error", {}).get("code") != -32700:
            raise TestFailure("not JSON: %r" % r)
        r = br.request("no/such/method", {})
        if r is None or r.get("error", {}).get("code") != -32601:
            raise TestFailure("unknown method: %r" % r)
        r = br.request("tools/call", {"name": "no_such_tool", "arguments": {}})
        if r is None or r.get("error", {}).get("code") != -32602:
            raise TestFailure("unknown tool: %r" % r)
        r = br.request("tools/call", {"name": "schedule", "arguments": [1, 2]})
        if r is None or r.get("error", {}).get("code") != -32602:
            raise TestFailure("arguments not an object: %r" % r)
        r = br.request("ping")
        if r is None or r.get("result") != {}:
            raise TestFailure("ping after bad input: %r" % r)
    finally:
        br.close()
    srv.check()
    u.quit()


def http_post(url, body, headers=None, method="POST"):
    """(status, content type, body) of one HTTP request."""
    req = urllib.request.Request(url, data=body if method == "POST" else None,
                                 method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5 * SLOW) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def test_sec3_http_form():
    """SEC-3 (issue 9, the HTTP form): an agent that advertises mcpCapabilities.http gets
    {type http, name agentircd, url http://127.0.0.1:PORT/mcp, headers Authorization
    Bearer <token>} and its tool calls work (a schedule fires in its conversation).
    Without the token, with another, with a foreign Origin (L9: also one that only
    starts like ours) or a foreign Host: refused; GET 405; a notification 202; a request
    200 application/json, with its own Origin too."""
    srv = S()
    u = joined(mclient(srv, "ush"), "#sech")
    d = session_of(u, "#sech", "httpy")
    ent = [e for e in d["mcpServers"] if e.get("type") == "http"]
    if len(ent) != 1 or ent[0].get("name") != "agentircd":
        raise TestFailure("an agent with mcpCapabilities.http got no http entry: %r"
                          % d["mcpServers"])
    e = ent[0]
    if not re.match(r"^http://127\.0\.0\.1:\d+/mcp$", e.get("url", "")):
        raise TestFailure("http entry url %r: want loopback" % e.get("url"))
    auth = {h["name"]: h["value"] for h in e.get("headers", [])}.get("Authorization", "")
    if not re.match(r"^Bearer \S{16,}$", auth):
        raise TestFailure("http entry headers %r" % e.get("headers"))
    sid = scheduled_id(mcp(u, "#sech", "httpy", "schedule",
                           {"name": "web1", "prompt": "over http", "in_seconds": 1}), "http")
    fid = expect_firing(u, "#sech", "web1")[0]
    assert fid == sid
    url = e["url"]
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    base = {"Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"}
    problems = []
    st, ct, body = http_post(url, ping, dict(base, Authorization=auth))
    if st != 200 or "application/json" not in ct or json.loads(body).get("result") != {}:
        problems.append("ping with the token: %s %s %r" % (st, ct, body[:200]))
    for what, hdrs in (("no token", base),
                       ("a bogus token", dict(base, Authorization="Bearer " + "0" * 32)),
                       ("a token not Bearer", dict(base, Authorization=auth.split()[-1])),
                       ("a foreign Origin", dict(base, Authorization=auth,
                                                 Origin="http://evil.example")),
                       # L9, SEC-7: the review's prefixes, and a foreign Host.
                       ("Origin 127.0.0.1.evil.example",
                        dict(base, Authorization=auth,
                             Origin="http://127.0.0.1.evil.example")),
                       ("Origin localhost.attacker.net",
                        dict(base, Authorization=auth,
                             Origin="http://localhost.attacker.net")),
                       ("Host attacker.example",
                        dict(base, Authorization=auth, Host="attacker.example"))):
        st, ct, body = http_post(url, ping, hdrs)
        if st < 400 or b'"result"' in body:
            problems.append("SEC-3: %s: %s %r" % (what, st, body[:200]))
    st, _, _ = http_post(url, None, dict(base, Authorization=auth), method="GET")
    if st != 405:
        problems.append("GET /mcp: %s, want 405" % st)
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    st, _, body = http_post(url, note, dict(base, Authorization=auth))
    if st != 202:
        problems.append("a notification: %s %r, want 202" % (st, body[:100]))
    port = int(url.split(":")[2].split("/")[0])
    st, _, _ = http_post(url, ping, dict(base, Authorization=auth,
                                         Origin="http://localhost:%d" % port))
    if st != 200:
        problems.append("Origin http://localhost:%d, the endpoint's own: %s" % (port, st))
    if problems:
        raise TestFailure("\n".join(problems))
    u.quit()


def test_m3_http_headers_and_idle_bounded():
    """SEC-7, M3: the MCP HTTP port, without a token, as the review did: a header of 1 MB
    without an end is refused and the connection closed, not buffered; a connection
    that says nothing is closed after 15 s; the server meanwhile answers IRC."""
    srv = S()
    u = joined(mclient(srv, "ush3"), "#sech")
    d = session_of(u, "#sech", "httpy")
    url = [e for e in d["mcpServers"] if e.get("type") == "http"][0]["url"]
    port = int(url.split(":")[2].split("/")[0])
    big = socket.create_connection(("127.0.0.1", port), timeout=5 * SLOW)
    big.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nX-Big: ")
    sent, refused = 0, False
    try:
        while sent < (1 << 20):
            big.sendall(b"a" * 65536)
            sent += 65536
    except OSError:
        refused = True          # reset: the server closed it meanwhile
    if not refused:
        # An error page (4xx) or the end, not a wait for more.
        big.settimeout(5 * SLOW)
        try:
            data = big.recv(4096)
            refused = data == b"" or re.match(rb"HTTP/1\.[01] 4\d\d ", data) is not None
        except socket.timeout:
            refused = False
        except OSError:
            refused = True
    big.close()
    if not refused:
        raise TestFailure("M3: a 1 MB header was taken in, the connection kept open")
    # An idle one: closed after MCP_HTTP_TIMEOUT (15 s) of silence.
    idle = socket.create_connection(("127.0.0.1", port), timeout=5 * SLOW)
    t0 = time.time()
    ended = None
    while ended is None and time.time() - t0 < 25 * SLOW:
        r, _, _ = select.select([idle], [], [], 1.0)
        if r:
            try:
                data = idle.recv(4096)
            except OSError:
                data = b""
            if data == b"" or b" 408 " in data:
                ended = time.time() - t0
        u.send("PING :alive")
        u.expect(r"PONG .*alive", 5)
    idle.close()
    if ended is None:
        raise TestFailure("M3: an idle connection still open after %ds" % (25 * SLOW))
    u.quit()


def test_m3_http_connections_capped():
    """SEC-7, M3: 300 connections to the MCP HTTP port, as the review opened, hold at most
    64 of the daemon's descriptors (the rest wait in the kernel's backlog), and IRC still
    takes connections meanwhile; one dripping a header every 4 s, never silent for the
    15 s timeout, is closed by the 20 s deadline of a whole request; once they go, a real
    request is answered again."""
    srv = S()
    u = joined(mclient(srv, "ush4"), "#sech4")
    u.send("INVITE httpy #sech4")
    u.expect(r":httpy!\S+ JOIN #sech4")
    d = session_of(u, "#sech4", "httpy")
    e = [e for e in d["mcpServers"] if e.get("type") == "http"][0]
    url = e["url"]
    auth = {h["name"]: h["value"] for h in e.get("headers", [])}.get("Authorization", "")
    port = int(url.split(":")[2].split("/")[0])
    pid = srv.proc.pid
    before = len(os.listdir("/proc/%d/fd" % pid))
    drip = socket.create_connection(("127.0.0.1", port), timeout=5 * SLOW)
    drip.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\n")
    held = []
    for _ in range(300):
        sk = socket.socket()
        sk.setblocking(False)
        try:
            sk.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        held.append(sk)
    time.sleep(1)
    during = len(os.listdir("/proc/%d/fd" % pid))
    if during - before > 64 + 2:
        raise TestFailure("M3: 300 HTTP connections took %d descriptors, want at most 64"
                          % (during - before))
    irc = mclient(srv, "ush5")          # IRC is still served
    irc.send("PING :cap")
    irc.expect(r"PONG .*cap")
    t0, closed = time.time(), None
    while closed is None and time.time() - t0 < 40 * SLOW:
        try:
            drip.sendall(b"X-Drip: still here\r\n")
        except OSError:
            closed = time.time() - t0
            break
        r, _, _ = select.select([drip], [], [], 4)
        if r:
            try:
                data = drip.recv(4096)
            except OSError:
                data = b""
            if data == b"" or re.match(rb"HTTP/1\.[01] (408|400) ", data):
                closed = time.time() - t0
    drip.close()
    if closed is None:
        raise TestFailure("M3: a header dripped every 4 s kept its connection %ds"
                          % (40 * SLOW))
    for sk in held:
        sk.close()
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    st, body = None, b""
    t0 = time.time()
    while st != 200 and time.time() - t0 < 30 * SLOW:
        try:
            st, _, body = http_post(url, ping, {"Content-Type": "application/json",
                                                "Authorization": auth})
        except OSError:
            time.sleep(0.5)
    if st != 200 or json.loads(body).get("result") != {}:
        raise TestFailure("M3: a real request after the connections went: %s %r"
                          % (st, body[:200]))
    for c in (u, irc):
        c.quit()


def test_m3_http_closed_connection_takes_no_descriptor():
    """SEC-3, M3: an MCP request over HTTP with "Connection: close" is answered and its
    connection closed; the IRC connection accepted right after it (which the kernel gives
    the same descriptor number) registers. It stalled when evhttp closed the descriptor
    while the bufferevent kept for its connection count still had its events in the
    loop: the new socket was never polled (the flake of test_au5_h3_person_target_refused,
    whose MCP bridge lost its tools/call after test_m3_http_connections_capped)."""
    srv = S()
    u = joined(mclient(srv, "ush6"), "#sech6")
    u.send("INVITE httpy #sech6")
    u.expect(r":httpy!\S+ JOIN #sech6")
    d = session_of(u, "#sech6", "httpy")
    e = [e for e in d["mcpServers"] if e.get("type") == "http"][0]
    port = int(e["url"].split(":")[2].split("/")[0])
    auth = {h["name"]: h["value"] for h in e.get("headers", [])}.get("Authorization", "")
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    for i in range(3):
        h = socket.create_connection(("127.0.0.1", port), timeout=10 * SLOW)
        h.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: %s\r\n"
                  b"Content-Type: application/json\r\nConnection: close\r\n"
                  b"Content-Length: %d\r\n\r\n" % (port, auth.encode(), len(body)) + body)
        data = b""
        while True:
            x = h.recv(4096)
            if not x:
                break
            data += x
        h.close()
        if not data.startswith(b"HTTP/1.1 200 "):
            raise TestFailure("M3: the ping over HTTP: %r" % data[:200])
        c = mclient(srv, "ush6x%d" % i)     # registers, or fails saying what it saw
        c.quit()
    u.quit()


# ---------------------------------------------------------------- AU-5, H3, M7, H4, I7
#
# Each on a plain loopback listener (S) and on a TLS listener with accounts (A, everyone
# logged in by SASL PLAIN, where AU-2's default lets only accounts talk to agents).

AU_PASSWORD = "Sched-Pass-21"


class AccountSetup:
    """One server with a plain listener and a TLS listener, accounts au1..au9, the agents
    sched (ask; au9 is its admin) and crossy (allow-all), schedule-minute = 1."""

    def __init__(self):
        self.srv = None

    def __call__(self):
        if self.srv is not None and self.srv.alive() and self.srv in Server.live:
            return self.srv
        cert, key = os.path.join(TMP, "server.pem"), os.path.join(TMP, "server.key")
        if not os.path.exists(cert):
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                            "-out", cert, "-days", "2", "-subj", "/CN=irc.test"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        h = subprocess.run([daemon_path(), "--hash-password"], input=AU_PASSWORD + "\n",
                           stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
        self.tls_port = free_port()
        extra = "[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n\n" % (
            self.tls_port, cert, key)
        for i in range(1, 10):
            extra += "[account au%d]\npassword = %s\n\n" % (i, h)
        extra += agent_section("sched", admins="au9") + \
            agent_section("crossy", permissions="allow-all")
        self.srv = Server(config_extra=extra, flood_exempt="127.0.0.0/8", history_replay=0,
                          max_parallel_turns=8, max_loaded_agents=4, schedule_minute=1)
        wait_port(self.tls_port)
        return self.srv


A = AccountSetup()


def aclient(nick, account, caps=CAPS):
    """A client of A's TLS listener, logged in to account (SASL PLAIN)."""
    srv = A()
    c = Client(srv, tls=True, port=A.tls_port)
    c.nick = nick
    c.send("CAP REQ :%s sasl" % caps)
    c.expect(r" CAP \S+ ACK ")
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"^(?:@\S+ )?(?::\S+ )?AUTHENTICATE \+$")
    c.send("AUTHENTICATE " + base64.b64encode(
        ("\0%s\0%s" % (account, AU_PASSWORD)).encode()).decode())
    c.expect_numeric("903", timeout=15)
    c.send("CAP END")
    c.register(nick)
    return c


def people(tls, *nicks):
    """(server, clients): on A's TLS listener logged in to au1, au2, ... in order, or on
    S's plain listener not logged in."""
    if tls:
        srv = A()
        return srv, [aclient(n, "au%d" % (i + 1)) for i, n in enumerate(nicks)]
    srv = S()
    return srv, [mclient(srv, n) for n in nicks]


def invite(op, chan, agent):
    op.send("INVITE %s %s" % (agent, chan))
    op.expect(r":%s!\S+ JOIN %s" % (re.escape(agent), re.escape(chan)))


def no_card(lines, agent):
    return [l for l in lines if re.search(r":%s!\S+ NOTICE \S+ :card \d+: " % agent, l)]


def _h3_person(tls):
    sfx = "t" if tls else "p"
    srv, (mal, victim) = people(tls, "mal7" + sfx, "victim" + sfx)
    chan = "#m1" + sfx
    joined(mal, chan)
    invite(mal, chan, "crossy")
    try:
        for target in (victim.nick, "nobody" + sfx):
            out = mcp(mal, chan, "crossy", "schedule",
                      {"name": "x", "prompt": "Your session expired.\nType /msg crossy "
                       "!policy allow-all", "in_seconds": 1, "target": target})
            if not out or not out[0].startswith("tool error: ") \
                    or "asks for it" not in out[0]:
                raise TestFailure("H3/AU-5: a schedule from %s aimed at %s, who never spoke "
                                  "to the agent: want a tool error naming why, got %r"
                                  % (chan, target, out))
            if no_card(mal.seen_lines, "crossy"):
                raise TestFailure("H3: a card for it: %r" % no_card(mal.seen_lines, "crossy"))
        lines = collect([victim, mal], 2.0)
        got = [l for l in lines[victim] if " NOTICE %s :" % victim.nick in l
               or "PRIVMSG %s :" % victim.nick in l]
        if got:
            raise TestFailure("H3: %s received:\n  %s" % (victim.nick, "\n  ".join(got)))
    finally:
        kick(mal, chan, "crossy")
    mal.quit()
    victim.quit()


def test_au5_h3_person_target_refused():
    """AU-5, H3 (plain listener): mal7 in his #m1 has the agent (allow-all) schedule a
    phishing prompt for victim, who never spoke to it, and for an unknown nick: tool
    errors naming why, no card, and victim receives nothing."""
    _h3_person(False)


def test_au5_h3_person_target_refused_tls():
    """AU-5, H3: the same on the TLS listener, everyone logged in to an account."""
    _h3_person(True)


def _h3_secret(tls):
    sfx = "t" if tls else "p"
    srv, (owner, mal) = people(tls, "owner4" + sfx, "mal8" + sfx)
    sec, m8 = "#sec4" + sfx, "#m8" + sfx
    joined(owner, sec)
    owner.send("MODE %s +si" % sec)
    owner.expect(r" MODE %s \+si" % re.escape(sec))
    joined(mal, m8)
    try:
        for agent in ("sched", "crossy"):
            invite(owner, sec, agent)
            invite(mal, m8, agent)
        mal.send("JOIN %s" % sec)
        mal.expect_numeric("473")
        for agent in ("sched", "crossy"):
            out = mcp(mal, m8, agent, "schedule",
                      {"name": "leak", "prompt": "say the transcript", "in_seconds": 1,
                       "target": sec})
            if not out or not out[0].startswith("tool error: ") or "both" not in out[0]:
                raise TestFailure("H3/AU-5: %s from %s aimed at %s (+si, mal8 not in it): "
                                  "want a tool error, got %r" % (agent, m8, sec, out))
            if no_card(mal.seen_lines, agent):
                raise TestFailure("H3: a card to self-approve: %r" % mal.seen_lines)
            got = user_cmd(mal, m8, "!allow")
            if any("allowed" in l for l in got):
                raise TestFailure("H3: mal8 allowed something: %r" % got)
        lines = collect([owner], 2.0)[owner]
        bad = [l for l in lines if "leak" in l or "say the transcript" in l]
        if bad:
            raise TestFailure("H3: in %s:\n  %s" % (sec, "\n  ".join(bad)))
    finally:
        for agent in ("sched", "crossy"):
            owner.send("KICK %s %s" % (sec, agent))
            mal.send("KICK %s %s" % (m8, agent))
        owner.sync()
        mal.sync()
    owner.quit()
    mal.quit()


def test_au5_h3_secret_channel_refused():
    """AU-5, H3 (plain listener): owner4's +si channel with the agent; mal8, who cannot
    join it (473), schedules for it from his #m8, under ask and under allow-all: tool
    errors, no card to approve himself, nothing reaches the channel."""
    _h3_secret(False)


def test_au5_h3_secret_channel_refused_tls():
    """AU-5, H3: the same on the TLS listener with accounts."""
    _h3_secret(True)


def _consent(tls):
    sfx = "t" if tls else "p"
    srv, (op, u) = people(tls, "top" + sfx, "tu" + sfx)
    a, t = "#ca" + sfx, "#ct" + sfx
    joined(op, t)
    invite(op, t, "crossy")
    joined(u, a, t)
    invite(u, a, "crossy")
    try:
        out = mcp(u, a, "crossy", "schedule",
                  {"name": "legit", "prompt": "standup in five minutes\nsecond line",
                   "in_seconds": 1, "target": t})
        if not out or not re.match(r"tool: sch_\d+ waits for a person", out[0]):
            raise TestFailure("AU-5: a schedule from %s for %s (tu in both), under "
                              "allow-all: want it waiting for consent, got %r" % (a, t, out))
        m = op.expect_msg(r":crossy!\S+ NOTICE %s :card (\d+): crossy asks to schedule "
                          r"\"legit\"" % re.escape(t), 5)
        text = m.params[-1]
        n = int(re.search(r"card (\d+):", text).group(1))
        # AU-1: every card says the policy in force where it would act.
        for want in (a, u.nick, "standup in five minutes", " — policy allow-all"):
            if want.lower() not in text.lower():
                raise TestFailure("AU-5: the card in %s does not say %r: %r" % (t, want, text))
        if "second line" in text:
            raise TestFailure("AU-5: the card quotes more than the first line: %r" % text)
        lines = collect([op], 1.6)[op]
        if firings(lines, t, "legit"):
            raise TestFailure("AU-5: fired before consent")
        got = user_cmd(u, t, "!allow %d" % n)
        if not any("only" in l for l in got):
            raise TestFailure("AU-5: the requester (no operator of %s) answered the card "
                              "for it: %r" % (t, got))
        op.send("PRIVMSG %s :!allow %d" % (t, n))
        op.expect(r":crossy!\S+ NOTICE %s :card %d: allowed by %s" % (
            re.escape(t), n, re.escape(op.nick)), 5)
        _, created, _, _ = expect_firing(op, t, "legit", timeout=5)
        if (created or "").lower() != a.lower():
            raise TestFailure("the firing in %s says created in %r" % (t, created))
    finally:
        kick(op, t, "crossy")
        kick(u, a, "crossy")
    op.quit()
    u.quit()


def test_au5_cross_channel_consent():
    """AU-5 (plain listener): tu, in #ca and #ct, has the agent (allow-all) schedule for
    #ct: a card in #ct names the agent, #ca, tu, the name, the prompt's first line and
    the policy in force (AU-1); tu may not answer it, #ct's operator does, and then it fires there."""
    _consent(False)


def test_au5_cross_channel_consent_tls():
    """AU-5: the same on the TLS listener with accounts."""
    _consent(True)


def _secret_source(tls):
    sfx = "t" if tls else "p"
    srv, (op, u) = people(tls, "sop" + sfx, "su" + sfx)
    a, t = "#hid" + sfx, "#pub" + sfx
    joined(op, t)
    invite(op, t, "crossy")
    joined(u, a, t)
    u.send("MODE %s +s" % a)
    u.expect(r" MODE %s \+s" % re.escape(a))
    invite(u, a, "crossy")
    try:
        out = mcp(u, a, "crossy", "schedule",
                  {"name": "fromsecret", "prompt": "hello from nowhere", "in_seconds": 1,
                   "every_minutes": 60, "target": t})
        if not out or not re.match(r"tool: sch_\d+ waits for a person", out[0]):
            raise TestFailure("AU-5: from a +s channel for %s: %r" % (t, out))
        m = op.expect_msg(r":crossy!\S+ NOTICE %s :card (\d+): crossy asks to schedule "
                          r"\"fromsecret\"" % re.escape(t), 5)
        text = m.params[-1]
        if a[1:].lower() in text.lower() or "asked in a channel by " not in text:
            raise TestFailure("AU-8: the card in %s names the +s channel: %r" % (t, text))
        n = int(re.search(r"card (\d+):", text).group(1))
        op.send("PRIVMSG %s :!allow %d" % (t, n))
        _, created, _, hm = expect_firing(op, t, "fromsecret", timeout=5)
        if created != "a channel" or a[1:].lower() in hm.raw.lower():
            raise TestFailure("AU-8: the firing in %s: %r" % (t, hm.raw))
        # The asker, a member of both, is told the names.
        got = user_cmd(u, a, "!schedules")
        if not any(('"fromsecret" by crossy in %s,' % t).lower() in l.lower() for l in got):
            raise TestFailure("!schedules in %s: %r" % (a, got))
    finally:
        kick(op, t, "crossy")
        kick(u, a, "crossy")
    op.quit()
    u.quit()


def test_au8_schedule_from_secret_channel():
    """AU-8, AU-5 (plain listener): su, in +s #hidp and public #pubp, has the agent
    schedule from #hidp for #pubp: the consent card in #pubp says "asked in a channel",
    never the +s channel's name, and so does the firing's header ("created in a
    channel"); #pubp's operator allows it and it fires; su's !schedules in #hidp names
    #pubp."""
    _secret_source(False)


def test_au8_schedule_from_secret_channel_tls():
    """AU-8, AU-5: the same on the TLS listener with accounts."""
    _secret_source(True)


def test_au6_firing_shown_plain():
    """AU-6: a schedule's prompt is agent-written, and its firing shows it plain: the
    mIRC colours (black on black), a reset, a right-to-left override and a bell are
    gone from the NOTICE lines; a line of nothing but controls is no line; the agent's
    turn still has the prompt as written."""
    srv, (u,) = people(False, "plainf")
    chan = "#au6f"
    joined(u, chan)
    invite(u, chan, "sched")
    try:
        prompt = ("deploy\x0301,01 && rm -rf ~\x0f now\n\x02\x1d\n"
                  "\u202eelif.hs\u202c\x07 done")
        scheduled_id(mcp(u, chan, "sched", "schedule",
                         {"name": "colours", "prompt": prompt, "in_seconds": 1}))
        expect_firing(u, chan, "colours", timeout=5)
        lines = u.collect_until(r":%s NOTICE %s :elif\.hs done$" % (
            re.escape(HOST), re.escape(chan)), 5)
        shown = [parse(l).params[-1] for l in lines
                 if parse(l).command == "NOTICE" and parse(l).source == HOST]
        if shown != ["deploy && rm -rf ~ now", "elif.hs done"]:
            raise TestFailure("AU-6: the firing's lines: %r" % shown)
    finally:
        kick(u, chan, "sched")
    u.quit()


def test_au5_private_target_consent_tls():
    """AU-5: a person asks, in a channel, for a schedule in their own private conversation
    with the agent: the card is there, for them; allowed, it fires there."""
    srv, (u,) = people(True, "pv1")
    joined(u, "#pvt")
    invite(u, "#pvt", "sched")
    try:
        out = mcp(u, "#pvt", "sched", "schedule",
                  {"name": "mine", "prompt": "remind me", "in_seconds": 1,
                   "target": u.nick})
        if not out or not re.match(r"tool: sch_\d+ waits for a person", out[0]):
            raise TestFailure("AU-5: a schedule for the asker's own private conversation: "
                              "%r" % out)
        n = card_in(u, "sched", u.nick, r"schedule \"mine\" here")
        u.send("PRIVMSG sched :!allow %d" % n)
        u.expect(r":sched!\S+ NOTICE %s :card %d: allowed by %s" % (u.nick, n, u.nick), 5)
        expect_firing(u, u.nick, "mine", timeout=5)
    finally:
        kick(u, "#pvt", "sched")
    u.quit()


def test_au5_firing_turn_aims_nowhere_else():
    """AU-5: a turn no person asked for (a schedule firing) may not aim a schedule at
    another conversation: the firing's tool call is refused."""
    srv = S()
    u = joined(mclient(srv, "nf1"), "#nfa", "#nfb")
    invite(u, "#nfa", "crossy")
    invite(u, "#nfb", "crossy")
    try:
        inner = json.dumps({"name": "hop", "prompt": "p", "in_seconds": 1,
                            "target": "#nfb"}, separators=(",", ":"))
        scheduled_id(mcp(u, "#nfa", "crossy", "schedule",
                         {"name": "chain", "prompt": "mcp schedule " + inner,
                          "in_seconds": 1}))
        expect_firing(u, "#nfa", "chain")
        m = u.expect_msg(r":crossy!\S+ PRIVMSG #nfa :tool", 10)
        if not m.params[-1].startswith("tool error: ") or "no person" not in m.params[-1]:
            raise TestFailure("AU-5: a firing's turn scheduled elsewhere: %r" % m.params[-1])
    finally:
        kick(u, "#nfa", "crossy")
        kick(u, "#nfb", "crossy")
    u.quit()


def _m7_lines(tls):
    sfx = "t" if tls else "p"
    srv, (u,) = people(tls, "m7u" + sfx)
    chan = "#m7" + sfx
    joined(u, chan)
    invite(u, chan, "crossy")
    try:
        entry = [e for e in session_of(u, chan, "crossy")["mcpServers"]
                 if e.get("command")][0]
        b = Bridge(entry)
        b.initialize()
        prompt = "x\n" * 1999 + "e"     # 2000 lines, as the review's
        err, text = b.call("schedule", {"name": "burst", "prompt": prompt,
                                        "in_seconds": 0})
        b.close()
        if err:
            raise TestFailure("schedule: %s" % text)
        _, _, _, _ = expect_firing(u, chan, "burst", timeout=5)
        u.expect(r":crossy!\S+ PRIVMSG %s :got: e$" % re.escape(chan), 15)
        seen = [parse(l).params[-1] for l in u.lines
                if re.match(r"^(?:@\S+ )?:%s NOTICE %s :" % (re.escape(HOST), re.escape(chan)),
                            l)]
        i = max(k for k, t in enumerate(seen) if "\"burst\"" in t)
        after = seen[i + 1:]
        want = ["x"] * 5 + ["\u2026"]
        if after != want:
            raise TestFailure("M7/AU-5: after the header, want %r, got %d NOTICEs: %r"
                              % (want, len(after), after[:10]))
    finally:
        kick(u, chan, "crossy")
    u.quit()


def test_m7_firing_shows_five_lines():
    """M7, AU-5 (plain listener): a firing of a 2000-line prompt (called with the
    session's own token, as the review did) posts its header, 5 lines and "…"; the agent
    still gets the whole prompt (it answers its last line)."""
    _m7_lines(False)


def test_m7_firing_shows_five_lines_tls():
    """M7, AU-5: the same on the TLS listener with accounts."""
    _m7_lines(True)


def test_m7_firings_paced():
    """M7, AU-5: firings into one conversation are paced: 12 schedules due at once in
    #m7r all fire (none lost), and by the server's own time tags never more than 5 + 6 per
    schedule-minute (here 1 s) of them in any stretch."""
    srv = S()
    u = joined(mclient(srv, "m7r", caps=CAPS + " server-time"), "#m7r")
    invite(u, "#m7r", "crossy")
    try:
        out = mcp(u, "#m7r", "crossy", "schedule",
                  {"name": "pace%i", "prompt": "pace %i", "in_seconds": 1}, times=12)
        if len([l for l in out if l.startswith("tool: scheduled sch_")]) != 12:
            raise TestFailure("12 schedules: %r" % out)
        hdr = re.compile(header_rx("#m7r", None, r"pace\d+"))
        deadline = time.time() + 10 * SLOW
        times = []
        while time.time() < deadline and len(times) < 12:
            line = u._next(deadline)
            if line is not None and hdr.search(line):
                times.append(tag_time(parse(line)))
        if len(times) < 12:
            raise TestFailure("only %d of 12 firings within 10 s" % len(times))
        times.sort()
        gap = 1.0 / 6
        for i in range(len(times)):
            for j in range(i + 1, len(times)):
                if j - i + 1 > 5 + (times[j] - times[i]) / gap + 1e-3 + 0.02 / gap:
                    raise TestFailure("M7: %d firings within %.3f s (want at most 5 + 6 a "
                                      "second): %r" % (j - i + 1, times[j] - times[i],
                                                       times))
    finally:
        kick(u, "#m7r", "crossy")
    u.quit()


def test_h4_firing_not_to_nick_holder_tls():
    """H4, AU-4: au1 (logged in, TLS) schedules a reminder in her private conversation
    and quits; an unauthenticated client takes her nick: it receives neither the firing
    nor the agent's answer."""
    srv, (alice,) = people(True, "alice4")
    out = mcp(alice, "sched", "sched", "schedule",
              {"name": "pin", "prompt": "remind alice of what she told you",
               "in_seconds": 3}, where=alice.nick, address=False)
    scheduled_id(out, "private")
    alice.quit()
    thief = mclient(srv, "alice4")
    lines = collect([thief], 5.0)[thief]
    bad = [l for l in lines if "pin" in l or "remind alice" in l or is_from(parse(l), "sched")]
    if bad:
        raise TestFailure("H4: the nick's new holder got:\n  %s" % "\n  ".join(bad))
    thief.quit()


def test_sc7_unauthenticated_quit_ends_schedule():
    """SC-7, AU-4, H4 (plain listener): a schedule made in the private conversation of a
    person not logged in ends when that connection does: a new holder of the nick gets
    nothing, and the schedule is no longer listed anywhere."""
    srv = S()
    u = mclient(srv, "anon7")
    out = mcp(u, "sched", "sched", "schedule",
              {"name": "anon", "prompt": "anon reminder", "in_seconds": 1,
               "every_minutes": 1}, where=u.nick, address=False)
    scheduled_id(out, "private")
    expect_firing(u, u.nick, "anon")
    u.quit()
    thief = mclient(srv, "anon7")
    lines = collect([thief], 2.5)[thief]
    bad = [l for l in lines if "anon" in l.split(" :", 1)[-1] or is_from(parse(l), "sched")]
    if bad:
        raise TestFailure("SC-7/H4: after anon7's connection ended, its new holder got:\n  %s"
                          % "\n  ".join(bad))
    got = user_cmd(thief, "sched", "!schedules")
    if any("anon" in l for l in got):
        raise TestFailure("SC-7: still listed: %r" % got)
    thief.quit()


def _i7(tls):
    sfx = "t" if tls else "p"
    srv, (op, u1, u2, out_) = people(tls, "i7op" + sfx, "i7a" + sfx, "i7b" + sfx,
                                     "i7out" + sfx)
    chan = "#i7" + sfx
    joined(op, chan)
    invite(op, chan, "sched")
    joined(u1, chan)
    joined(u2, chan)
    op.send("MODE %s -n" % chan)
    op.expect(r" MODE %s -n" % re.escape(chan))
    try:
        sid = scheduled_id(mcp(u1, chan, "sched", "schedule",
                               {"name": "mine7", "prompt": "p", "in_seconds": 3600}))
        got = user_cmd(u2, chan, "!unschedule sch_%d" % sid)
        if not any("not yours" in l for l in got):
            raise TestFailure("I7: %s removed %s's schedule: %r" % (u2.nick, u1.nick, got))
        got = user_cmd(out_, chan, "!unschedule sch_%d" % sid)
        got += user_cmd(out_, chan, "!schedules")
        if any("mine7" in l and "Unscheduled" in l for l in got) or \
                any(l.startswith("sch_") for l in got):
            raise TestFailure("I7: a non-member of %s (-n): %r" % (chan, got))
        got = user_cmd(u2, chan, "!schedules")
        if not any("mine7" in l for l in got):
            raise TestFailure("I7: the schedule is gone: %r" % got)
        got = user_cmd(u1, chan, "!unschedule sch_%d" % sid)
        if not any("Unscheduled sch_%d" % sid in l for l in got):
            raise TestFailure("I7: %s could not remove his own: %r" % (u1.nick, got))
        sid = scheduled_id(mcp(u1, chan, "sched", "schedule",
                               {"name": "again7", "prompt": "p", "in_seconds": 3600}))
        got = user_cmd(op, chan, "!unschedule sch_%d" % sid)
        if not any("Unscheduled sch_%d" % sid in l for l in got):
            raise TestFailure("I7: the channel operator could not remove it: %r" % got)
    finally:
        kick(op, chan, "sched")
    for c in (op, u1, u2, out_):
        c.quit()


def test_i7_admin_unschedules_tls():
    """I7, AU-1: an admin of the agent (au9), a member of the channel but no operator of
    it, may !unschedule a schedule someone else asked for, as it may !stop their turns."""
    srv, (op, u1) = people(True, "i7aop", "i7au")
    adm = aclient("i7adm", "au9")
    chan = "#i7adm"
    joined(op, chan)
    invite(op, chan, "sched")
    joined(u1, chan)
    joined(adm, chan)
    try:
        sid = scheduled_id(mcp(u1, chan, "sched", "schedule",
                               {"name": "theirs", "prompt": "p", "in_seconds": 3600}))
        got = user_cmd(adm, chan, "!unschedule sch_%d" % sid)
        if not any("Unscheduled sch_%d" % sid in l for l in got):
            raise TestFailure("I7: sched's admin could not remove it: %r" % got)
    finally:
        kick(op, chan, "sched")
    for c in (op, u1, adm):
        c.quit()


def test_i7_stop_a_firing_in_ones_own_query():
    """I7, AU-4: a firing in a person's private conversation is nobody's request, and
    the person's to stop: "!stop" in the query cancels its turn (no "You may stop only
    what you asked"; TN-14: it is confirmed), and the agent's answer never comes."""
    srv = S()
    u = mclient(srv, "stopq")
    scheduled_id(mcp(u, "sched", "sched", "schedule",
                     {"name": "slow", "prompt": "sleep 4000", "in_seconds": 1},
                     where=u.nick, address=False), "private")
    expect_firing(u, u.nick, "slow", timeout=5)
    u.expect(r":sched!\S+ TAGMSG %s" % re.escape(u.nick), 5)
    got = user_cmd(u, "sched", "!stop")
    if got != ["stopq stopped sched's answer"]:
        raise TestFailure("!stop of a firing in one's own query: %r" % got)
    lines = collect([u], 5.0)[u]
    if [l for l in lines if "slept 4000" in l]:
        raise TestFailure("the stopped firing still answered: %r" % lines)
    u.quit()


def test_i7_unschedule_only_own():
    """I7 (plain listener): in a -n channel, a member cannot !unschedule another's
    schedule, a non-member can neither list nor remove; its asker and an operator can."""
    _i7(False)


def test_i7_unschedule_only_own_tls():
    """I7: the same on the TLS listener with accounts."""
    _i7(True)


if __name__ == "__main__":
    run_tests(globals())

"""What the agent tests (test_agents, test_commands, test_schedule) share: the SDK test
agents' location and the skip when they are not installed, and the helpers that talk
to an agent through a channel."""

import json
import os
import re
import shutil
import sys
import time

from ircharness import REPO, SLOW, TestFailure, parse

SRCDIR = os.environ.get("SRCDIR") or REPO
AGENTS_DIR = os.path.join(SRCDIR, "tests", "agents")
SDK = os.path.join(AGENTS_DIR, "node_modules", "@agentclientprotocol", "sdk")
NODE = shutil.which("node")


# How every agent a test writes (write_agent) ends: it serves ACP on stdio
# until the daemon closes its stdin. The agent's source names the SDK's
# module as %(sdk)s, calls its builder "app" and keeps the client in "client".
AGENT_MAIN = """const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
client = conn.client;
await conn.closed;
process.exit(0);
"""


def write_agent(path, source):
    """Write a test's own ACP agent, on the official SDK, to path: source with the
    SDK's module filled in for %(sdk)s, then AGENT_MAIN."""
    with open(path, "w") as f:
        f.write(source % {"sdk": json.dumps("file://" + os.path.join(
            SDK, "dist", "v1", "stable", "acp.js"))} + AGENT_MAIN)
    return path


def require_agent(script):
    """The path of tests/agents/<script>; the whole test file is skipped (TAP 1..0)
    when node, the SDK or the script is missing."""
    path = os.path.join(AGENTS_DIR, script)
    if NODE is None or not os.path.isdir(SDK) or not os.path.isfile(path):
        print("1..0 # SKIP node or tests/agents/node_modules missing "
              "(npm ci --prefix tests/agents)")
        sys.exit(0)
    return path


def joined(c, *chans):
    for ch in chans:
        lines = c.join(ch)
        if parse(lines[-1]).command != "366":
            raise TestFailure("%s cannot join %s: %s" % (c.nick, ch, lines[-1]))
    return c


def send(c, target, text, cmd="PRIVMSG"):
    """Send text; with echo-message wait for its echo (others stay pending) and return
    its msgid, else return None."""
    c.send("%s %s :%s" % (cmd, target, text))
    if not getattr(c, "echo", False):
        return None
    rx = re.compile(r"^@(\S+) :%s!\S+ %s %s :%s$" % (
        re.escape(c.nick), cmd, re.escape(target), re.escape(text)), re.I)
    deadline = time.time() + 10 * SLOW
    kept = []
    while True:
        line = c._next(deadline)
        if line is None:
            c.pending.extendleft(reversed(kept))
            c._fail("echo of %s %s :%s" % (cmd, target, text), 10)
        if rx.search(line):
            c.pending.extendleft(reversed(kept))
            return parse(line).tags.get("msgid")
        kept.append(line)


def is_from(m, agent):
    return (m.source or "").lower().startswith(agent.lower() + "!")


def until_done(c, agent, target, timeout=15):
    """Every line c receives until agent's TAGMSG target +typing=done (included)."""
    out = []
    deadline = time.time() + timeout * SLOW
    while True:
        line = c._next(deadline)
        if line is None:
            c._fail("TAGMSG %s +typing=done from %s (after %d lines)"
                    % (target, agent, len(out)), timeout)
        out.append(line)
        m = parse(line)
        if m.command == "TAGMSG" and is_from(m, agent) and m.params \
                and m.params[0].lower() == target.lower() \
                and m.tags.get("+typing") == "done":
            return out

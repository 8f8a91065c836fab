#!/usr/bin/env python3
"""Issue 24: SIGHUP and REHASH apply added, removed and changed [agent] sections (AG-1,
AG-2, TN-9, SC-7, SEC-8).

The agent here is a small ACP agent on the official SDK, written by this file: it
answers "tag=<RELOAD_TAG> pid=<its pid> heard: <the last line>", so an answer shows which
environment and which process gave it; "slow" makes it say "working", wait, then
answer; with the file named by RELOAD_FAIL present, it exits at once (a broken agent).
"""

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (SLOW, Client, Server, TestFailure, hash_password,  # noqa: E402
                        parse, run_tests)
from agentharness import NODE, joined, require_agent, write_agent  # noqa: E402

require_agent("echo-agent.mjs")
MCPAGENT = require_agent("mcp-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-reload-")
# In every agent's command line: the agent processes of this run are found by it.
TOKEN = "rltest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])

AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";
import fs from "node:fs";

if (process.env.RELOAD_FAIL && fs.existsSync(process.env.RELOAD_FAIL)) process.exit(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TAG = process.env.RELOAD_TAG || "none";
let client, n = 0;
const say = (sessionId, text) => client.notify(acp.methods.client.session.update,
  { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
const app = acp
  .agent({ name: "reload-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "reload-agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => ({ sessionId: "rl_" + (++n) + "_" + process.pid }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    const last = text.split("\n").pop();
    if (/\bslow\b/.test(last)) {
      await say(sid, "working\n");
      await sleep(2500);
    }
    await say(sid, "tag=" + TAG + " pid=" + process.pid + " heard: " + last);
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {});
"""

SCRIPT = write_agent(os.path.join(TMP, "reload-agent.mjs"), AGENT)

PW = "reload-secret"
_OPER = []


def oper_section():
    if not _OPER:
        _OPER.append("[operator admin]\npassword = %s\nmask = *@*\n\n" % hash_password(PW))
    return _OPER[0]


def agent(name, channels="", tag="one", extra=""):
    """An [agent name] section; its process carries TOKEN and name on its command line."""
    lines = ["[agent %s]" % name,
             "command = %s %s %s-%s" % (NODE, SCRIPT, TOKEN, name),
             "description = reload test agent %s" % name,
             "users = *",
             "env = RELOAD_TAG=%s" % tag]
    if channels:
        lines.append("channels = %s" % channels)
    if extra:
        lines.append(extra)
    return "\n".join(lines) + "\n\n"


def pids(name):
    r = subprocess.run(["pgrep", "-f", "%s-%s( |$)" % (TOKEN, name)],
                       stdout=subprocess.PIPE, text=True)
    return [int(p) for p in r.stdout.split()]


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


def server(sections, **kw):
    return Server(flood_exempt="127.0.0.0/8", history_replay=0,
                  config_extra=oper_section() + sections, **kw)


def rewrite(srv, sections, broken=""):
    """The config as at start with other [agent] sections (and text that breaks it)."""
    head = srv.config_text.split("[agent ", 1)[0]
    if oper_section() not in head:
        head += oper_section()
    with open(srv.conf, "w") as f:
        f.write(head + sections + broken)


def hup(srv):
    os.kill(srv.proc.pid, signal.SIGHUP)


def oper(srv, nick, *chans):
    c = Client(srv, nick)
    c.send("OPER admin %s" % PW)
    c.expect_numeric(381)
    joined(c, *chans)
    c.sync()
    return c


def answer(c, who, chan, rx, timeout=20):
    """The PRIVMSG of who in chan that matches rx: its text."""
    m = c.expect_msg(r"^(?:@\S+ )?:%s!\S+ PRIVMSG %s :.*%s" % (who, re.escape(chan), rx),
                     timeout)
    return m.params[-1]


def log_has(srv, rx, timeout=5):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if re.search(rx, srv.log_text()):
            return
        time.sleep(0.1)
    raise TestFailure("no log line /%s/\n%s" % (rx, srv.log_tail()))


def whois(c, nick):
    c.send("WHOIS %s" % nick)
    return c.collect_until(r" (?:318|401) ")


# ---------------------------------------------------------------- the tests


def test_added_agent_joins_its_channels_and_answers():
    """AG-1, AG-2: an [agent] added to the file exists after SIGHUP as a bot user, joins
    its configured channels (their members see the JOIN) and answers, as if there at
    start; the log and the operators say it was added."""
    srv = server(agent("first", "#ra1"))
    try:
        c = oper(srv, "alice", "#ra1", "#ra2")
        rewrite(srv, agent("first", "#ra1") + agent("helper", "#ra1 #ra2"))
        hup(srv)
        c.expect(r"^:helper!agent@irc\.test JOIN #ra1", 10)
        c.expect(r"^:helper!agent@irc\.test JOIN #ra2", 10)
        c.expect(r"NOTICE alice :\*\*\* Rehash: agents: 1 added \(helper\)", 10)
        w = whois(c, "helper")
        if not any(" 335 " in l for l in w):
            raise TestFailure("helper is no bot (335) in WHOIS: %r" % w)
        c.send("WHO helper")
        who = c.collect_until(r" 315 ")
        if not any(parse(l).command == "352" and "B" in parse(l).params[6] for l in who):
            raise TestFailure("WHO shows no B flag for helper: %r" % who)
        c.send("PRIVMSG #ra2 :helper: hello there")
        answer(c, "helper", "#ra2", r"tag=one pid=\d+ heard: .*hello there")
        log_has(srv, r"rehash: agent helper added, in #ra1, #ra2")
        c.quit()
    finally:
        srv.stop()


def test_removed_agent_quits_with_reason_and_its_process_ends():
    """An [agent] removed: it QUITs saying why, its running answer is stopped and the
    prompt waiting on it dropped, each said in the channel; its process ends; the other
    agent goes on; WHOIS finds it no more."""
    srv = server(agent("helper", "#rr") + agent("other", "#rr"))
    try:
        c = oper(srv, "alice", "#rr")
        b = Client(srv, "bob")
        joined(b, "#rr")
        c.send("PRIVMSG #rr :helper: slow please")
        answer(c, "helper", "#rr", r"working")
        b.send("PRIVMSG #rr :helper: and me too")
        time.sleep(0.3 * SLOW)
        if not pids("helper"):
            raise TestFailure("no helper process while it answers")
        rewrite(srv, agent("other", "#rr"))
        hup(srv)
        lines = c.collect_until(r"^:helper!agent@irc\.test QUIT :Removed from the "
                                r"server's configuration", 10)
        text = "\n".join(lines)
        if not re.search(r"NOTICE #rr :helper was stopped: it was removed from the "
                         r"server's configuration", text):
            raise TestFailure("no notice that the answer was stopped: %r" % lines)
        if not re.search(r"NOTICE #rr :helper did not answer bob: it was removed", text):
            raise TestFailure("bob, waiting, is not told: %r" % lines)
        b.expect(r"helper did not answer bob: it was removed", 5)
        deadline = time.time() + 6 * SLOW
        while pids("helper") and time.time() < deadline:
            time.sleep(0.1)
        if pids("helper"):
            raise TestFailure("the removed agent's process still runs")
        w = whois(c, "helper")
        if not any(" 401 " in l for l in w):
            raise TestFailure("WHOIS still finds helper: %r" % w)
        c.send("PRIVMSG #rr :other: still there?")
        answer(c, "other", "#rr", r"heard: .*still there")
        c.assert_nothing(1.0, r":helper!")
        log_has(srv, r"rehash: agent helper removed")
        c.quit()
        b.quit()
    finally:
        srv.stop()


def test_changed_command_applies_at_next_start_not_to_running_turn():
    """A changed env (the command's part) applies when the process next starts: the
    answer under way ends in the old process, the next prompt gets a new process with
    the new value; the log names the key, never its value (SEC-8)."""
    srv = server(agent("helper", "#rc", tag="oldtag"))
    try:
        c = oper(srv, "alice", "#rc")
        c.send("PRIVMSG #rc :helper: hi")
        first = answer(c, "helper", "#rc", r"tag=oldtag pid=\d+")
        pid1 = re.search(r"pid=(\d+)", first).group(1)
        c.send("PRIVMSG #rc :helper: slow one")
        answer(c, "helper", "#rc", r"working")
        rewrite(srv, agent("helper", "#rc", tag="newtagvalue"))
        hup(srv)
        c.expect(r"NOTICE alice :\*\*\* Rehash: agents: 1 changed \(helper\)", 10)
        during = answer(c, "helper", "#rc", r"heard: .*slow one", 15)
        if "tag=oldtag pid=%s " % pid1 not in during:
            raise TestFailure("the running answer was not the old process's: %r" % during)
        c.send("PRIVMSG #rc :helper: after")
        after = answer(c, "helper", "#rc", r"heard: .*after", 20)
        if "tag=newtagvalue" not in after or "pid=%s " % pid1 in after:
            raise TestFailure("the next start did not take the new env: %r" % after)
        log_has(srv, r"rehash: agent helper changed: env")
        if "newtagvalue" in srv.log_text():
            raise TestFailure("an env value is in the log (SEC-8)")
        c.quit()
    finally:
        srv.stop()


def test_changed_command_idle_agent_restarts_with_it():
    """A changed command of an agent whose process idles: the next prompt is answered
    by a process of the new command (another script argument shows it)."""
    srv = server(agent("helper", "#ri"))
    try:
        c = oper(srv, "alice", "#ri")
        c.send("PRIVMSG #ri :helper: hi")
        answer(c, "helper", "#ri", r"tag=one")
        old = pids("helper")
        sect = agent("helper", "#ri").replace("%s-helper" % TOKEN,
                                               "%s-helper --second" % TOKEN)
        rewrite(srv, sect)
        hup(srv)
        log_has(srv, r"rehash: agent helper changed: command")
        c.send("PRIVMSG #ri :helper: again")
        answer(c, "helper", "#ri", r"heard: .*again")
        r = subprocess.run(["pgrep", "-f", "%s-helper --second" % TOKEN],
                           stdout=subprocess.PIPE, text=True)
        if not r.stdout.split():
            raise TestFailure("no process of the new command")
        if any(p in old for p in pids("helper")):
            raise TestFailure("the old process still runs: %r" % old)
        c.quit()
    finally:
        srv.stop()


def test_channels_added_joined_removed_parted_invited_kept():
    """AG-2: channels added to an agent's section are joined, those removed parted with a
    reason; a channel it was INVITEd to stays; description applies at once."""
    srv = server(agent("helper", "#ch1 #ch2"))
    try:
        c = oper(srv, "alice", "#ch1", "#ch2", "#ch3", "#chinv")
        c.send("INVITE helper #chinv")
        c.expect(r"^:helper!agent@irc\.test JOIN #chinv", 10)
        rewrite(srv, agent("helper", "#ch2 #ch3").replace(
            "reload test agent helper", "a new description"))
        hup(srv)
        got = "\n".join(c.collect_until(r"\*\*\* Rehash: agents: 1 changed", 10))
        if not re.search(r"(?m)^:helper!agent@irc\.test PART #ch1 :Removed from its "
                         r"configured channels$", got):
            raise TestFailure("no PART of #ch1 with its reason: %r" % got)
        if not re.search(r"(?m)^:helper!agent@irc\.test JOIN #ch3$", got):
            raise TestFailure("no JOIN of #ch3: %r" % got)
        w = whois(c, "helper")
        chans = " ".join(parse(l).params[-1] for l in w if parse(l).command == "319")
        for ch in ("#ch2", "#ch3", "#chinv"):
            if ch not in chans.split():
                raise TestFailure("helper not in %s: %r" % (ch, chans))
        if "#ch1" in chans.split():
            raise TestFailure("helper still in #ch1: %r" % chans)
        real = [parse(l).params[-1] for l in w if parse(l).command == "311"]
        if real != ["a new description"]:
            raise TestFailure("the description did not apply: %r" % real)
        log_has(srv, r"rehash: agent helper changed: channels \(\+#ch3 -#ch1\), description")
        c.send("PRIVMSG #ch3 :helper: in the new one")
        answer(c, "helper", "#ch3", r"heard: .*in the new one")
        c.quit()
    finally:
        srv.stop()


def test_broken_agent_restarted_by_reload():
    """TN-9: an agent broken by failures in a row starts afresh after a reload, the same
    file unchanged."""
    fail = os.path.join(TMP, "fail-now")
    open(fail, "w").close()
    sect = agent("helper", "#rb", extra="env = RELOAD_FAIL=%s" % fail)
    srv = server(sect)
    try:
        c = oper(srv, "alice", "#rb")
        deadline = time.time() + 60 * SLOW
        while True:
            w = whois(c, "helper")
            if any("state: broken" in l for l in w):
                break
            if time.time() > deadline:
                raise TestFailure("helper never broken: %r" % w)
            c.send("PRIVMSG #rb :helper: try")
            c.expect(r"NOTICE #rb :helper (?:cannot|could not)", 30)
            time.sleep(0.2)
        os.unlink(fail)
        hup(srv)
        c.expect(r"NOTICE alice :\*\*\* Rehash: agents: 1 changed \(helper\)", 10)
        w = whois(c, "helper")
        if any("state: broken" in l for l in w):
            raise TestFailure("still broken after the reload: %r" % w)
        c.send("PRIVMSG #rb :helper: back?")
        answer(c, "helper", "#rb", r"heard: .*back\?")
        log_has(srv, r"rehash: agent helper was broken")
        c.quit()
    finally:
        srv.stop()


def test_bad_config_refused_and_nothing_changed():
    """SEC-4: a file with an error is refused whole: no agent added or removed, the
    operators are told why, the log says the running configuration stays."""
    srv = server(agent("helper", "#rx"))
    try:
        c = oper(srv, "alice", "#rx")
        rewrite(srv, agent("newbie", "#rx"), broken="[nonsense\n")
        hup(srv)
        c.expect(r"NOTICE alice :\*\*\* Rehash refused, nothing changed: \S+:\d+: ", 10)
        log_has(srv, r"keeping the running configuration")
        c.assert_nothing(1.0, r" (?:JOIN|QUIT|PART) ")
        if not any(" 401 " in l for l in whois(c, "newbie")):
            raise TestFailure("newbie exists after a refused reload")
        c.send("PRIVMSG #rx :helper: still here")
        answer(c, "helper", "#rx", r"heard: .*still here")
        c.quit()
    finally:
        srv.stop()


def test_rehash_command_does_as_sighup_and_says_what_it_did():
    """REHASH by an operator: the same as SIGHUP; one log line per agent added, removed
    and changed, and a NOTICE to every operator summing it up (not to others)."""
    srv = server(agent("keep", "#rh") + agent("gone", "#rh"))
    try:
        c = oper(srv, "alice", "#rh")
        o2 = oper(srv, "carol", "#rh")
        p = Client(srv, "plain")
        joined(p, "#rh")
        rewrite(srv, agent("keep", "#rh", extra="tools = hide") + agent("fresh", "#rh"))
        c.send("REHASH")
        c.expect_numeric(382)
        c.expect(r"^:gone!agent@irc\.test QUIT :Removed from the server's configuration", 10)
        c.expect(r"^:fresh!agent@irc\.test JOIN #rh", 10)
        summary = (r"NOTICE %s :\*\*\* Rehash: agents: 1 added \(fresh\); 1 removed "
                   r"\(gone\); 1 changed \(keep\)")
        c.expect(summary % "alice", 10)
        o2.expect(summary % "carol", 10)
        p.sync()
        p.assert_nothing(0.5, r"Rehash")
        log_has(srv, r"rehash: agent gone removed")
        log_has(srv, r"rehash: agent keep changed: tools")
        log_has(srv, r"rehash: agent fresh added, in #rh")
        c.send("PRIVMSG #rh :fresh: hello")
        answer(c, "fresh", "#rh", r"heard: .*hello")
        for x in (c, o2, p):
            x.quit()
    finally:
        srv.stop()


def test_removed_agent_schedules_kept_not_firing_back_with_it():
    """SC-7: the schedules of an agent a reload removes stay stored but do not fire while
    it is away; added back, the agent has them again and they fire."""
    sect = ("[agent sched]\ncommand = %s %s %s-sched\nchannels = #rs\nusers = *\n"
            "env = MCP_AGENT_TIMEOUT_MS=8000\n\n" % (NODE, MCPAGENT, TOKEN))
    srv = server(sect, schedule_minute=1)
    header = r"NOTICE #rs :\[schedule sch_\d+ \"tick\" "
    try:
        c = oper(srv, "alice", "#rs")
        c.send("PRIVMSG #rs :sched: mcp schedule " + json.dumps(
            {"name": "tick", "prompt": "tick", "in_seconds": 1, "every_minutes": 1},
            separators=(",", ":")))
        answer(c, "sched", "#rs", r"tool: scheduled sch_\d+")
        c.expect(header, 10)
        rewrite(srv, "")
        hup(srv)
        c.expect(r"^:sched!agent@irc\.test QUIT ", 10)
        c.drain(0.3)
        c.assert_nothing(3.0 * SLOW, header)
        rewrite(srv, sect)
        hup(srv)
        c.expect(r"^:sched!agent@irc\.test JOIN #rs", 10)
        c.expect(header, 10)
        c.quit()
    finally:
        srv.stop()


if __name__ == "__main__":
    run_tests(globals())

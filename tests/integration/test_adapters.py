#!/usr/bin/env python3
"""Issue 23: real ACP adapters behind the built daemon, answering a scripted model on
loopback (tests/models/fake_model.py), offline.

claude-agent-acp, codex-acp and gemini-cli (pinned in
tests/adapters/package-lock.json), each: a streamed answer in a channel; a file write the
model asks for (claude's Write, codex's apply_patch, gemini's write_file) becomes a card
worded for people ("claude asks to write fake-toolcall.txt"), !allow lets it write the
file in the agent's working directory, !deny refuses it and no file is written; a command
(Bash, exec_command, run_shell_command) becomes a card that shows it, and !allow runs it;
a call of agentircd's schedule tool over MCP, its card, its firing and the turn that
answers it; !stop during a slow answer, then two prompts each answered in its own turn
(claude-agent-acp needs acp/'s workaround for that). Plans for claude and codex (gemini
offers the model no plan tool). Skipped, and counted as skipped, when the adapter is not
installed (scripts/deps --adapters, which scripts/check runs)."""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import (SLOW, Client, Server, SkipTest, TestFailure, hash_password,  # noqa: E402
                        parse, run_tests)
from agentharness import NODE, SRCDIR, is_from, joined, send, until_done  # noqa: E402

ADAPTERS = os.path.join(SRCDIR, "tests", "adapters", "node_modules")
CLAUDE = os.path.join(ADAPTERS, "@zed-industries", "claude-agent-acp", "dist", "index.js")
CODEX = os.path.join(ADAPTERS, "@zed-industries", "codex-acp-linux-x64", "bin", "codex-acp")
GEMINI = os.path.join(ADAPTERS, "@google", "gemini-cli", "bundle", "gemini.js")
FAKE = os.path.join(SRCDIR, "tests", "models", "fake_model.py")
TMP = tempfile.mkdtemp(prefix="agentircd-adapters-")
CAPS = "message-tags echo-message"


class Model:
    """The scripted model, a process of its own on 127.0.0.1."""

    def __init__(self, name):
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir)
        self.portfile = os.path.join(self.dir, "port")
        self.logfile = os.path.join(self.dir, "requests.jsonl")
        self.p = subprocess.Popen([sys.executable, FAKE, self.portfile, self.logfile])
        deadline = time.time() + 10
        while not os.path.exists(self.portfile):
            if time.time() > deadline or self.p.poll() is not None:
                raise TestFailure("the fake model did not start")
            time.sleep(0.05)
        with open(self.portfile) as f:
            self.port = int(f.read())

    def requests(self):
        try:
            with open(self.logfile) as f:
                return [json.loads(l) for l in f]
        except FileNotFoundError:
            return []

    def stop(self):
        self.p.kill()
        self.p.wait()


_models = []


def model(name):
    m = Model(name)
    _models.append(m)
    return m


def require(path, what):
    if NODE is None or not os.path.isfile(path):
        raise SkipTest("%s not installed (npm ci --prefix tests/adapters)" % what)


def claude_section(m, home, name="claude", extra=()):
    """The [agent] section of docs/agents.md for claude-agent-acp, at the fake model."""
    os.makedirs(home, exist_ok=True)
    env = {
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % m.port,
        "ANTHROPIC_API_KEY": "sk-ant-fake-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "HOME": home,
        "LANG": "C.UTF-8",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    lines = ["[agent %s]" % name, "command = %s %s" % (NODE, CLAUDE),
             "description = Claude Code through claude-agent-acp (fake model)"] + list(extra)
    lines += ["env = %s=%s" % kv for kv in env.items()]
    return "\n".join(lines) + "\n\n"


CODEX_TOML = """model = "gpt-5.5"
model_provider = "fake"
approval_policy = "untrusted"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:%d/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 30000

[analytics]
enabled = false
[feedback]
enabled = false
[otel]
exporter = "none"
"""


def codex_section(m, home, name="codex", extra=(), presets=False):
    """The [agent] section of docs/agents.md for codex-acp, with a config.toml whose
    provider is the fake model (OPENAI_BASE_URL alone does not move codex). presets:
    without approval_policy and sandbox_mode, where codex-acp offers its modes
    (read-only, auto, full-access) instead."""
    toml = CODEX_TOML % m.port
    if presets:
        toml = re.sub(r"(?m)^(approval_policy|sandbox_mode) = .*\n", "", toml)
    os.makedirs(os.path.join(home, ".codex"), exist_ok=True)
    with open(os.path.join(home, ".codex", "config.toml"), "w") as f:
        f.write(toml)
    env = {"HOME": home, "CODEX_HOME": os.path.join(home, ".codex"),
           "OPENAI_API_KEY": "sk-fake-key", "LANG": "C.UTF-8",
           "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    lines = ["[agent %s]" % name, "command = %s" % CODEX,
             "description = OpenAI Codex through codex-acp (fake model)"] + list(extra)
    lines += ["env = %s=%s" % kv for kv in env.items()]
    return "\n".join(lines) + "\n\n"


def codex_server(tag, extra=(), more="", presets=False):
    require(CODEX, "codex-acp")
    m = model(tag)
    home = os.path.join(TMP, tag + "-home")
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0,
                 config_extra=more + codex_section(m, home, extra=extra,
                                                   presets=presets))
    return srv, m


GEMINI_SETTINGS = {"privacy": {"usageStatisticsEnabled": False},
                   "telemetry": {"enabled": False},
                   "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                   "security": {"auth": {"selectedType": "gemini-api-key"}}}


def gemini_section(m, home, name="gemini", extra=()):
    """The [agent] section of docs/agents.md for gemini-cli --acp, at the fake model."""
    os.makedirs(os.path.join(home, ".gemini"), exist_ok=True)
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        json.dump(GEMINI_SETTINGS, f)
    env = {"HOME": home, "GEMINI_API_KEY": "fake-gemini-key",
           "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:%d" % m.port,
           "GEMINI_TELEMETRY_ENABLED": "false", "GEMINI_CLI_TRUST_WORKSPACE": "true",
           "LANG": "C.UTF-8", "NO_PROXY": "127.0.0.1,localhost",
           "no_proxy": "127.0.0.1,localhost"}
    lines = ["[agent %s]" % name, "command = %s %s --acp" % (NODE, GEMINI),
             "description = Gemini CLI (fake model)"] + list(extra)
    lines += ["env = %s=%s" % kv for kv in env.items()]
    return "\n".join(lines) + "\n\n"


def gemini_server(tag, extra=(), more=""):
    require(GEMINI, "gemini-cli")
    m = model(tag)
    home = os.path.join(TMP, tag + "-home")
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0,
                 config_extra=more + gemini_section(m, home, extra=extra))
    return srv, m


def claude_server(tag, extra=(), more=""):
    require(CLAUDE, "claude-agent-acp")
    m = model(tag)
    home = os.path.join(TMP, tag + "-home")
    srv = Server(flood_exempt="127.0.0.0/8", history_replay=0,
                 config_extra=more + claude_section(m, home, extra=extra))
    return srv, m


def mclient(srv, nick):
    c = Client(srv)
    c.nick = nick
    c.send("CAP REQ :%s" % CAPS)
    c.expect(r" CAP \S+ ACK ")
    c.send("CAP END")
    c.register(nick)
    c.echo = True
    return c


def answer_of(lines, agent, target):
    """The agent's PRIVMSG texts to target among lines, in order."""
    out = []
    for l in lines:
        m = parse(l)
        if m.command == "PRIVMSG" and is_from(m, agent) and m.params[0] == target:
            out.append(m.params[-1])
    return out


def notices_of(lines, agent, target):
    out = []
    for l in lines:
        m = parse(l)
        if m.command == "NOTICE" and is_from(m, agent) and m.params[0] == target:
            out.append(m.params[-1])
    return out


def workspace_of(srv, agent):
    """The agent's default cwd: <config name>.workspace/<agent>, beside the config."""
    base = os.path.splitext(srv.conf)[0] + ".workspace"
    return os.path.join(base, agent)


@contextlib.contextmanager
def talking(server, agent, tag):
    """A daemon with agent at a fake model of its own, and a person tag in #tag:
    (srv, model, client); the daemon stops at the end."""
    srv, m = server(tag)
    try:
        u = joined(mclient(srv, tag), "#" + tag)
        yield srv, m, u
        u.quit()
    finally:
        srv.stop()


def streamed(server, agent, tag):
    """@agent hello: its answer is the fake model's echo, one line; returns the turn's
    lines and the model, for more checks."""
    with talking(server, agent, tag) as (srv, m, u):
        send(u, "#" + tag, "@%s hello there from irc" % agent)
        lines = until_done(u, agent, "#" + tag, timeout=60)
        said = answer_of(lines, agent, "#" + tag)
        if said != ["echo: <%s> %s hello there from irc" % (tag, agent)]:
            raise TestFailure("%s's answer %r (lines %r)" % (agent, said, lines[-10:]))
        return lines, m


def test_claude_streamed_answer():
    """claude-agent-acp answers @claude in the channel with what the fake model streamed,
    word by word, as one line; the model saw the person's words."""
    lines, m = streamed(claude_server, "claude", "au23")
    typing = [parse(l).tags.get("+typing") for l in lines
              if parse(l).command == "TAGMSG" and is_from(parse(l), "claude")]
    if typing[:1] != ["active"] or typing[-1:] != ["done"]:
        raise TestFailure("typing around the answer: %r" % typing)
    posts = [r for r in m.requests() if r["method"] == "POST"]
    if not any("hello there from irc" in r.get("user", "") for r in posts):
        raise TestFailure("the model never saw the words: %r" % posts)


def card_number(lines, agent, target):
    for t in notices_of(lines, agent, target):
        mm = re.match(r"card (\d+): ", t)
        if mm:
            return int(mm.group(1)), t
    return None, None


def wait_card(u, agent, target, timeout=60):
    deadline = time.time() + timeout * SLOW
    seen = []
    while time.time() < deadline:
        line = u._next(deadline)
        if line is None:
            break
        seen.append(line)
        n, text = card_number([line], agent, target)
        if n is not None:
            return n, text, seen
    raise TestFailure("no card from %s in %s: %r" % (agent, target, seen[-10:]))


def asked(srv, u, agent, what, answer):
    """@agent <what> (TOOLCALL or SHELLCALL; gemini is told where to write), then
    answer (!allow or !deny) on its card: (the card's text, the turn's lines, the
    agent's working directory)."""
    chan = "#" + u.nick
    ws = workspace_of(srv, agent)
    where = ws if agent == "gemini" and what == "TOOLCALL" else "please"
    send(u, chan, "@%s %s %s" % (agent, what, where))
    n, text, _ = wait_card(u, agent, chan)
    send(u, chan, "%s %d" % (answer, n))
    return text, until_done(u, agent, chan, timeout=60), ws


def file_allowed(server, agent, tag):
    """TOOLCALL, !allow: the file is in the agent's working directory; returns what it
    holds and the model, for more checks."""
    with talking(server, agent, tag) as (srv, m, u):
        text, lines, ws = asked(srv, u, agent, "TOOLCALL", "!allow")
        # PM-1: in words, the same for the three title styles.
        if not re.match(r"card \d+: %s asks to write fake-toolcall\.txt — input: "
                        % agent, text):
            raise TestFailure("%s's card is not phrased for people: %r" % (agent, text))
        path = os.path.join(ws, "fake-toolcall.txt")
        if not os.path.isfile(path):
            raise TestFailure("!allow: %s not written (card %r, lines %r)"
                              % (path, text, lines[-10:]))
        with open(path) as f:
            return f.read(), m


def file_denied(server, agent, tag):
    """TOOLCALL, !deny: nothing is written and the turn ends; returns the model."""
    with talking(server, agent, tag) as (srv, m, u):
        _, _, ws = asked(srv, u, agent, "TOOLCALL", "!deny")
        if os.path.exists(os.path.join(ws, "fake-toolcall.txt")):
            raise TestFailure("!deny: %s's file was written anyway" % agent)
        return m


def test_claude_card_allow_writes_the_file():
    """The model asks for Write: claude-agent-acp asks permission, the daemon shows a card,
    !allow lets the write happen, and fake-toolcall.txt is in the agent's working
    directory; the model gets the tool's result and the turn ends."""
    content, m = file_allowed(claude_server, "claude", "al23")
    if content != "written by the fake model\n":
        raise TestFailure("the file holds something else")
    posts = [r for r in m.requests() if r["method"] == "POST"]
    if not any(r.get("tool_results") for r in posts):
        raise TestFailure("the model never got the tool's result: %r" % posts)


def test_claude_card_deny_refuses():
    """!deny on the card: nothing is written, the model is told the tool was refused, and
    the turn ends."""
    m = file_denied(claude_server, "claude", "de23")
    posts = [r for r in m.requests() if r["method"] == "POST"]
    results = [t for r in posts for t in r.get("tool_results", [])]
    if not any("refused" in t for t in results):
        raise TestFailure("the model was never told of the refusal: %r" % results)


def plan_shown(server, agent, tag):
    """TN-14 with a real adapter: the model's plan tool reaches the channel as the agent's
    plan, one NOTICE, and the answer after it is a line of its own (TN-13)."""
    with talking(server, agent, tag) as (srv, m, u):
        chan = "#" + tag
        send(u, chan, "@%s PLANCALL please" % agent)
        lines = until_done(u, agent, chan, timeout=60)
        plans = notices_of(lines, agent, chan)
        want = "plan: [x] 1. Read the question [>] 2. Think it over [ ] 3. Answer"
        if plans != [want]:
            raise TestFailure("TN-14: %s's plan lines %r, want [%r] (lines %r)"
                              % (agent, plans, want, lines[-10:]))
        said = answer_of(lines, agent, chan)
        if not said or not said[-1].startswith("done: "):
            raise TestFailure("the answer after the plan: %r" % said)


def test_claude_plan_shown():
    """claude's TodoWrite: a plan update, no tool call."""
    plan_shown(claude_server, "claude", "pl23")


def test_codex_plan_shown():
    """codex's update_plan: a plan update, no tool call."""
    plan_shown(codex_server, "codex", "pl23b")


def scheduled(server, agent, tag):
    """SC-1 with a real adapter: the model calls agentircd's schedule tool through the MCP
    server the daemon gave the agent; its card says so in words (PM-1); after !allow the
    schedule is made and its id reaches the model, it fires a second later as a server
    NOTICE in the channel, and the agent answers the firing in a turn of its own."""
    with talking(server, agent, tag) as (srv, m, u):
        chan = "#" + tag
        send(u, chan, "@%s MCPCALL please" % agent)
        n, text, _ = wait_card(u, agent, chan)
        if not text.startswith("card %d: %s asks to use agentircd's schedule tool — input: "
                               % (n, agent)) or "ring from the fake model" not in text:
            raise TestFailure("%s's MCP card: %r" % (agent, text))
        send(u, chan, "!allow %d" % n)
        lines = until_done(u, agent, chan, timeout=60)
        said = answer_of(lines, agent, chan)
        if not any(t.startswith("done: ") and "sch_" in t for t in said):
            raise TestFailure("the tool's answer did not reach the model: %r (card %r)"
                              % (said, text))
        firing = u.expect_msg(r":irc\.test NOTICE %s :\[schedule sch_\d+ \"fake\""
                              % re.escape(chan), 30 * SLOW)
        lines = until_done(u, agent, chan, timeout=60)
        said = answer_of(lines, agent, chan)
        if not any("ring from the fake model" in t for t in said):
            raise TestFailure("%s did not answer the firing (%r): %r"
                              % (agent, firing.params[-1], said))


def test_claude_schedules_through_mcp():
    """claude calls mcp__agentircd__schedule."""
    scheduled(claude_server, "claude", "mc23")


def test_codex_schedules_through_mcp():
    """codex calls schedule in its mcp__agentircd namespace (its card's title is only
    "Approve MCP tool call")."""
    scheduled(codex_server, "codex", "mc23b")


def test_gemini_schedules_through_mcp():
    """gemini calls mcp_agentircd_schedule."""
    scheduled(gemini_server, "gemini", "mc23c")


def test_codex_streamed_answer():
    """codex-acp answers @codex in the channel with what the fake model streamed over the
    Responses API."""
    streamed(codex_server, "codex", "cx23")


def test_codex_card_allow_writes_the_file():
    """The model sends apply_patch: codex-acp (approval_policy untrusted) asks
    permission, the daemon shows a card, !allow lets it add fake-toolcall.txt in the
    agent's working directory."""
    file_allowed(codex_server, "codex", "ca23")


def test_codex_card_deny_refuses():
    """!deny on codex's card: nothing is written and the turn ends."""
    file_denied(codex_server, "codex", "cd23")


def test_gemini_streamed_answer():
    """gemini-cli --acp answers @gemini with what the fake model streamed over the
    Gemini API (after its model router's JSON side call)."""
    streamed(gemini_server, "gemini", "gm23")


def test_gemini_card_allow_writes_the_file():
    """The model calls write_file: gemini asks permission (before any tool_call), the
    daemon shows a card, !allow lets it write fake-toolcall.txt."""
    file_allowed(gemini_server, "gemini", "ga23")


def test_gemini_card_deny_refuses():
    """!deny on gemini's card: nothing is written and the turn ends."""
    file_denied(gemini_server, "gemini", "gd23")


def shell_allowed(server, agent, tag):
    """SHELLCALL: the command the model asks for becomes a card that shows it; !allow
    runs it, and its file is in the agent's working directory."""
    with talking(server, agent, tag) as (srv, m, u):
        text, lines, ws = asked(srv, u, agent, "SHELLCALL", "!allow")
        if not re.match(r"card \d+: %s asks to run `echo shell > fake-shellcall\.txt`"
                        % agent, text):
            raise TestFailure("%s's card does not show the command: %r" % (agent, text))
        path = os.path.join(ws, "fake-shellcall.txt")
        if not os.path.isfile(path):
            raise TestFailure("!allow: %s's command did not run (card %r, lines %r)"
                              % (agent, text, lines[-8:]))
        with open(path) as f:
            if f.read() != "shell\n":
                raise TestFailure("the command's file holds something else")


def test_claude_shell_card_allow_runs_it():
    """claude's Bash: a card that shows the command; !allow runs it."""
    shell_allowed(claude_server, "claude", "sh23a")


def test_codex_shell_card_allow_runs_it():
    """codex's exec_command (asked about before it is announced): a card; !allow."""
    shell_allowed(codex_server, "codex", "sh23b")


def test_gemini_shell_card_allow_runs_it():
    """gemini's run_shell_command: a card; !allow runs it."""
    shell_allowed(gemini_server, "gemini", "sh23c")


def wait_request(m, word, timeout=30):
    """Until the model has been asked something with word in it."""
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if any(word in r.get("user", "") for r in m.requests() if r["method"] == "POST"):
            return
        time.sleep(0.05)
    raise TestFailure("the model was never asked %r" % word)


def stopped_then_two(server, agent, tag):
    """TN-7 with a real adapter: !stop during a slow answer ends the turn; then two
    prompts are each answered in their own turn, with their own answer and nothing
    else. Returns the daemon's log."""
    with talking(server, agent, tag) as (srv, m, u):
        chan = "#" + tag
        send(u, chan, "@%s SLOW please" % agent)
        wait_request(m, "SLOW")
        time.sleep(0.5 * SLOW)     # words are streaming
        send(u, chan, "!stop")
        until_done(u, agent, chan, timeout=30)
        for word in ("first", "second"):
            send(u, chan, "@%s %s question" % (agent, word))
            lines = until_done(u, agent, chan, timeout=60)
            said = answer_of(lines, agent, chan)
            want = ["echo: <%s> %s %s question" % (tag, agent, word)]
            if said != want:
                raise TestFailure("after !stop, %s's answer to the %s prompt: %r, want %r"
                                  % (agent, word, said, want))
        return srv.log_text()


def test_claude_stop_then_two_prompts():
    """claude-agent-acp 0.23.1 ends the first prompt after a cancel at once, nothing said
    and zero usage, and answers it a prompt late: acp/ spots it, closes and resumes the
    session and asks again, so each prompt gets its own answer."""
    log = stopped_then_two(claude_server, "claude", "st23a")
    if "reopening it to ask again" not in log:
        raise TestFailure("claude's empty answer after the cancel was not seen (the "
                          "adapter changed?): the workaround went unused")


def test_codex_stop_then_two_prompts():
    """codex-acp after !stop: the next prompts are answered in order."""
    stopped_then_two(codex_server, "codex", "st23b")


def test_gemini_stop_then_two_prompts():
    """gemini after !stop: the next prompts are answered in order."""
    stopped_then_two(gemini_server, "gemini", "st23c")


def resumed(server, agent, tag, loads=True):
    """SS-4 with a real adapter: a conversation, a daemon restart, and the next prompt
    goes to the same session, loaded back from the adapter (session/load): the model
    gets the conversation before the restart as the adapter's own history, not replayed
    by agentircd into the prompt. loads=False: the adapter cannot load it, and the new
    session gets the conversation's last messages in its first prompt instead.
    loads=None: either, as the daemon's log tells; the answer is the same."""
    srv, m = server(tag)
    chan = "#" + tag
    try:
        u = joined(mclient(srv, tag), chan)
        send(u, chan, "@%s remember the word kumquat" % agent)
        said = answer_of(until_done(u, agent, chan, timeout=60), agent, chan)
        if said != ["echo: <%s> %s remember the word kumquat" % (tag, agent)]:
            raise TestFailure("%s before the restart: %r" % (agent, said))
        u.quit()
        srv.restart()
        u = joined(mclient(srv, tag), chan)
        send(u, chan, "@%s what was the word" % agent)
        said = answer_of(until_done(u, agent, chan, timeout=60), agent, chan)
        if said != ["echo: <%s> %s what was the word" % (tag, agent)]:
            raise TestFailure("%s after the restart: %r" % (agent, said))
        asks = [r for r in m.requests() if r["method"] == "POST"
                and "what was the word" in r.get("user", "")]
        if loads is None:
            loads = "cannot resume session" not in srv.log_text()
        if loads and not any("kumquat" in r.get("earlier", "") and
                             "kumquat" not in r["user"] for r in asks):
            raise TestFailure("%s's session was not loaded back: the model got %r"
                              % (agent, [(r["user"][-300:], r.get("earlier", "")[-300:])
                                         for r in asks]))
        if not loads and not any("remember the word kumquat" in r["user"] for r in asks):
            raise TestFailure("%s's new session was not given the conversation: %r"
                              % (agent, [r["user"][-300:] for r in asks]))
        if not loads and "cannot resume session" not in srv.log_text():
            raise TestFailure("%s loaded its session after all: test it as loading"
                              % agent)
        u.quit()
    finally:
        srv.stop()


def test_claude_session_resumed_after_restart():
    """claude-agent-acp offers loadSession."""
    resumed(claude_server, "claude", "rs23a")


def test_codex_session_resumed_after_restart():
    """codex-acp offers loadSession."""
    resumed(codex_server, "codex", "rs23b")


def test_gemini_session_resumed_after_restart():
    """gemini-cli 0.61.0 offers loadSession, but its load first writes a new, empty start
    of the session into the file it then reads: mostly it finds nothing ("No previous
    sessions found for this project") and the replay of SS-4 carries the conversation
    into a new session; when its read wins the race it loads the session, answers
    session/load, then streams the history (acp/session.c's settle keeps that off IRC).
    Either way the answer is the new one alone, on its own line (SS-4, TN-13)."""
    resumed(gemini_server, "gemini", "rs23c", loads=None)


OPER_PW = "Adapters-Oper-23"


def oper_section():
    return "[operator root]\npassword = %s\nmask = *@*\n\n" % hash_password(OPER_PW)


def mode_listing(u, chan, agent):
    send(u, chan, "!mode")
    m = u.expect_msg(r"^(?:@\S+ )?:irc\.test NOTICE %s :%s modes: " % (chan, agent), 10)
    return m.params[-1]


def modes(server, agent, tag, listing, allowed, refused):
    """PM-5 and AU-3 with a real adapter: !mode lists the adapter's own modes, the
    current one starred; a member may not switch it; an IRC operator may not switch it
    into a mode its config does not list, a mode without permission prompts named so;
    into the listed one, yes: the adapter says it switched, and !mode stars it."""
    srv, m = server(tag, extra=["modes = %s" % allowed], more=oper_section())
    chan = "#" + tag
    try:
        b = mclient(srv, tag + "op")
        b.send("OPER root %s" % OPER_PW)
        b.expect(r" 381 ")
        joined(b, chan)
        u = joined(mclient(srv, tag), chan)
        send(b, chan, "@%s hello" % agent)
        until_done(b, agent, chan, timeout=60)
        got = mode_listing(b, chan, agent)
        if got != "%s modes: %s" % (agent, listing):
            raise TestFailure("!mode: %r, want the adapter's modes %r" % (got, listing))
        send(u, chan, "!mode %s %s" % (agent, allowed))
        u.expect(r"NOTICE %s :Only IRC operators and %s's admins may switch its mode"
                 % (chan, agent), 10)
        send(b, chan, "!mode %s %s" % (agent, refused))
        b.expect(r"NOTICE %s :%s may not be switched to %s: its config allows %s "
                 r"\(a mode without permission prompts must be listed by name\)"
                 % (chan, agent, refused, allowed), 10)
        send(b, chan, "!mode %s %s" % (agent, allowed))
        b.expect(r":%s!\S+ NOTICE %s :.*switching mode" % (agent, chan), 10)
        want = re.sub(r"(^| )%s( |$)" % re.escape(allowed), r"\1%s*\2" % allowed,
                      listing.replace("*", ""))
        deadline = time.time() + 10 * SLOW
        while mode_listing(b, chan, agent) != "%s modes: %s" % (agent, want):
            if time.time() > deadline:
                raise TestFailure("!mode after switching to %s: %r, want %r"
                                  % (allowed, mode_listing(b, chan, agent), want))
            time.sleep(0.1)
        u.quit()
        b.quit()
    finally:
        srv.stop()


def test_claude_modes():
    """claude-agent-acp's modes; acceptEdits turns its prompts off."""
    modes(claude_server, "claude", "md23a", "default* acceptEdits plan dontAsk", "plan",
          "acceptEdits")


def test_codex_modes():
    """codex-acp's modes, offered when its config.toml sets no approval_policy and no
    sandbox_mode; full-access turns its prompts off."""
    modes(lambda tag, **kw: codex_server(tag, presets=True, **kw), "codex", "md23b",
          "read-only* auto full-access", "auto", "full-access")


def test_gemini_modes():
    """gemini's modes; yolo turns its prompts off."""
    modes(gemini_server, "gemini", "md23c", "default* autoEdit yolo plan", "plan", "yolo")


def _cleanup():
    # The daemons stop their agents; the models are ours to stop.
    for m in _models:
        m.stop()
    if not os.environ.get("IRC_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    import atexit
    atexit.register(_cleanup)
    run_tests(globals())

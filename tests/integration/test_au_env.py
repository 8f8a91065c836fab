#!/usr/bin/env python3
"""Issue 21, AU-10 and [channel] ops: an agent gets only what its section gives it (L5: no
blanket *_API_KEY of the daemon; L6: its default cwd is a workspace of its own, mode 0700, not
the config's directory, and a cwd holding the config is warned about), and an account listed in
[channel #x] ops gets op on JOIN, logged in over SASL or PASS, on a loopback and a TLS listener."""

import base64
import os
import re
import resource
import shutil
import ssl
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ircharness import Client, Server, daemon_path, free_port, parse, run_tests  # noqa: E402
from agentharness import NODE, require_agent, write_agent  # noqa: E402

require_agent("echo-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-auenv-")
SECRET = "sk-au10-secret-value"


def teardown_module():
    shutil.rmtree(TMP, ignore_errors=True)


# "env NAME" answers "env NAME set" or "env NAME unset"; "cwd" answers "cwd <dir>"; "fds"
# answers "fds <the descriptors open in the agent>".
ENV_AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";
import fs from "node:fs";

let client, n = 0;
const say = (sessionId, text) => client.notify(acp.methods.client.session.update, { sessionId,
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
const app = acp
  .agent({ name: "env-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "env-agent", title: "Env Agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => ({ sessionId: "env_" + (++n) }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    let m;
    if ((m = /\benv (\w+)\s*$/.exec(text)))
      await say(params.sessionId, "env " + m[1] + " " + (m[1] in process.env ? "set" : "unset"));
    else if (/\bcwd\s*$/.test(text))
      await say(params.sessionId, "cwd " + process.cwd());
    else if (/\bfds\s*$/.test(text))
      await say(params.sessionId, "fds " + fs.readdirSync("/proc/self/fd").join(" "));
    else
      await say(params.sessionId, "what?");
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async () => {});
"""

ENV = write_agent(os.path.join(TMP, "env-agent.mjs"), ENV_AGENT)


def agent(name, *lines):
    return "\n".join(["[agent %s]" % name, "command = %s %s" % (NODE, ENV)] +
                     list(lines)) + "\n\n"


def ask(c, agent_nick, text, want):
    """A private prompt; the agent's PRIVMSG back that matches want."""
    c.send("PRIVMSG %s :%s" % (agent_nick, text))
    c.expect(r":%s!\S+ PRIVMSG %s :%s" % (re.escape(agent_nick), re.escape(c.nick), want),
             timeout=30)
    return c.last.params[-1]


def with_secret_env(fn):
    """Run fn with FOO_API_KEY, BAR_TOKEN, https_proxy (with a password) and
    XDG_RUNTIME_DIR in the environment the daemon inherits."""
    saved = {k: os.environ.get(k) for k in ("FOO_API_KEY", "BAR_TOKEN", "https_proxy",
                                            "XDG_RUNTIME_DIR")}
    os.environ["FOO_API_KEY"] = SECRET
    os.environ["BAR_TOKEN"] = SECRET
    os.environ["https_proxy"] = "http://u:%s@127.0.0.1:9" % SECRET
    os.environ["XDG_RUNTIME_DIR"] = "/run/user/0"
    try:
        return fn()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_api_key_not_inherited_unless_named():
    """AU-10, L5: a daemon started with FOO_API_KEY: an agent without env-inherit does not see
    it; one with env-inherit = FOO_API_KEY does, and sees no other variable it did not name.
    Neither sees the daemon's https_proxy (its URL holds a password) nor XDG_RUNTIME_DIR (the
    user's session sockets) unless it names them."""
    def body():
        extra = agent("plain") + agent("keyed", "env-inherit = FOO_API_KEY https_proxy")
        with Server(config_extra=extra, flood_exempt="127.0.0.0/8") as srv:
            c = Client(srv, "envq")
            assert ask(c, "plain", "env FOO_API_KEY", r"env FOO_API_KEY \w+") == \
                "env FOO_API_KEY unset"
            assert ask(c, "plain", "env PATH", r"env PATH \w+") == "env PATH set"
            assert ask(c, "keyed", "env FOO_API_KEY", r"env FOO_API_KEY \w+") == \
                "env FOO_API_KEY set"
            assert ask(c, "keyed", "env BAR_TOKEN", r"env BAR_TOKEN \w+") == \
                "env BAR_TOKEN unset"
            for name in ("https_proxy", "XDG_RUNTIME_DIR"):
                assert ask(c, "plain", "env " + name, r"env %s \w+" % name) == \
                    "env %s unset" % name, name
            assert ask(c, "keyed", "env https_proxy", r"env https_proxy \w+") == \
                "env https_proxy set"
            assert SECRET not in srv.log_text()
    with_secret_env(body)


def test_i4_no_descriptor_inherited():
    """I4: the daemon started with a descriptor it does not know of, open and inheritable,
    as high as the limit allows (70000, past the 65536 the old loop stopped at, where the
    hard limit is higher; else just under it): its agent has nothing of it, nor any
    descriptor but its own stdio and what Node opens."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    high = 70000 if hard == resource.RLIM_INFINITY or hard > 70000 else hard - 1
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    leak = os.open(os.path.join(TMP, "leak.txt"), os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        os.dup2(leak, high, inheritable=True)
        srv = Server(config_extra=agent("fdq"), flood_exempt="127.0.0.0/8", start=False)
        srv.pass_fds = (high,)
        srv.start()
        with srv:
            c = Client(srv, "fdqu")
            fds = [int(x) for x in ask(c, "fdq", "fds", r"fds [\d ]+").split()[1:]]
            assert high not in fds, (high, fds)
            assert max(fds) < 1000, fds
    finally:
        os.close(leak)
        try:
            os.close(high)
        except OSError:
            pass
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_default_cwd_is_own_workspace():
    """AU-10, L6: without cwd an agent runs in <config>.workspace/<name>, made mode 0700 when it
    starts, not the directory that holds the config and the database."""
    with Server(config_extra=agent("wsp"), flood_exempt="127.0.0.0/8") as srv:
        want = os.path.join(os.path.realpath(srv.dir), "agentircd.workspace", "wsp")
        assert not os.path.exists(want), "made before the agent started"
        c = Client(srv, "cwdq")
        got = ask(c, "wsp", "cwd", r"cwd \S+")
        assert got == "cwd " + want, (got, want)
        st = os.lstat(want)
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077 == 0, oct(st.st_mode)
        assert "holds the configuration" not in srv.log_text()


def test_workspace_symlink_refused():
    """AU-10, L6: a symlink where the agent's workspace goes is not followed: the agent does
    not start there."""
    with Server(config_extra=agent("lnk"), flood_exempt="127.0.0.0/8") as srv:
        ws = os.path.join(srv.dir, "agentircd.workspace")
        os.makedirs(ws)
        os.symlink(srv.dir, os.path.join(ws, "lnk"))
        c = Client(srv, "lnkq")
        c.send("PRIVMSG lnk :cwd")
        c.assert_nothing(timeout=3, regex=r":lnk!\S+ PRIVMSG \S+ :cwd ")
        assert re.search(r"workspace .*lnk.*symlink", srv.log_text()), srv.log_tail()


def test_cwd_holding_the_config_warned():
    """AU-10, L6: a configured cwd that is the config's directory is warned about at start."""
    srv = Server(start=False, flood_exempt="127.0.0.0/8")
    with open(srv.conf, "a") as f:
        f.write(agent("nosy", "cwd = %s" % os.path.realpath(srv.dir)))
    srv.start()
    with srv:
        c = Client(srv, "nosyq")
        c.sync()
        assert re.search(r"agent nosy: cwd .* holds the configuration", srv.log_text()), \
            srv.log_tail()


# ---------------------------------------------------------------- [channel] ops

PASSWORD = "Op-Horse-42"


from ircharness import hash_password  # noqa: E402


class At:
    """Where a Client connects: the server's host and one of its ports."""

    def __init__(self, srv, port):
        self.host, self.port = srv.host, port


def ops_server():
    cert, key = os.path.join(TMP, "srv.pem"), os.path.join(TMP, "srv.key")
    if not os.path.exists(cert):
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out",
                            cert, "-days", "2", "-subj", "/CN=irc.test"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        assert r.returncode == 0, r.stderr
    h = hash_password(PASSWORD)
    tls = free_port()
    extra = ("[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n\n"
             "[account alice]\npassword = %s\n[account bob]\npassword = %s\n\n"
             "[channel #staff]\nops = alice\n" % (tls, cert, key, h, h))
    srv = Server(config_extra=extra, flood_exempt="127.0.0.0/8")
    srv.tls_port = tls
    return srv


def login(c, how, account, nick):
    """Register nick logged in to account over SASL PLAIN or PASS."""
    if how == "pass":
        c.register(nick, password="%s:%s" % (account, PASSWORD))
        return
    c.nick = nick
    c.send("CAP REQ :sasl")
    c.expect(r" CAP \* ACK :sasl")
    c.send("AUTHENTICATE PLAIN")
    c.expect(r"AUTHENTICATE \+$")
    c.send("AUTHENTICATE " + base64.b64encode(
        ("\0%s\0%s" % (account, PASSWORD)).encode()).decode())
    c.expect(r" 903 ")
    c.send("CAP END")
    c.register(nick)


def names_prefix(c, chan, nick):
    lines = c.join(chan)
    names = " ".join(parse(l).params[-1] for l in lines if parse(l).command == "353")
    for n in names.split():
        if n.lstrip("@+").lower() == nick.lower():
            return n[:len(n) - len(n.lstrip("@+"))]
    raise AssertionError("%s not in NAMES %r" % (nick, names))


def test_channel_ops_on_join():
    """[channel #staff] ops = alice: alice, logged in over SASL or PASS on the loopback or the
    TLS listener, joins #staff as @; bob (logged in) and an anonymous user do not, even with
    the nick alice."""
    with ops_server() as srv:
        seated = Client(srv, "seated")          # #staff is never empty of people again
        seated.join("#staff")
        n = 0
        for tls in (False, True):
            for how in ("sasl", "pass"):
                n += 1
                where = At(srv, srv.tls_port if tls else srv.port)
                a = Client(where, tls=tls)
                login(a, how, "alice", "ali%d" % n)
                assert names_prefix(a, "#staff", a.nick) == "@", (tls, how)
                b = Client(where, tls=tls)
                login(b, how, "bob", "bob%d" % n)
                assert names_prefix(b, "#staff", b.nick) == "", (tls, how)
                a.quit()
                b.quit()
        # A nick is not an account: "alice" without a login gets nothing.
        anon = Client(srv, "alice")
        assert names_prefix(anon, "#staff", "alice") == ""


if __name__ == "__main__":
    run_tests(globals())

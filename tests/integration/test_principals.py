#!/usr/bin/env python3
"""Issue 21, rules AU-4 and AU-9 and findings H4, M1, L2, L3, I5: principals, not nicks.

A turn, its cards, a private conversation and everything the agent says in it belong to
the principal who started it: the account, or for someone not logged in the connection.
Each attack of the review is done again here as the review did it, on a plain loopback
listener and on a TLS listener with accounts (SASL PLAIN):

H4  an answer in flight reaches whoever takes the nick of a person who quit; an account's
    private answer reaches an unauthenticated holder of the account's nick.
M1  a card is answered by whoever takes its owner's nick.
L2  a flood of tool calls is shown line by line, without bound.
L3  prompts are counted per nick (a nick change starts afresh); sessions are not capped.
I5  agents speak in +m channels and where they are banned.

The agent is written here on the official SDK (no session/load, so none of its sessions
can be closed and taken back): "lines N MS" says N lines, MS apart; "tools N" reports N
completed tool calls; "/perm WHAT" asks permission and says the outcome (also into the
file $PRINCIPAL_LOG); "hold NAME" waits until the file NAME exists in the directory of
$PRINCIPAL_LOG; anything else: "heard: <text>".
"""

import base64
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
from ircharness import (SLOW, Client, Server, TestFailure, daemon_path, free_port,  # noqa: E402
                        parse, run_tests, wait_port)
from agentharness import NODE, is_from, require_agent, write_agent  # noqa: E402

require_agent("echo-agent.mjs")

TMP = tempfile.mkdtemp(prefix="agentircd-principals-")
TOKEN = "princtest%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
HOST = "irc.test"
PASSWORD = "Princ-Pass-21"
LOG = os.path.join(TMP, "agent.log")

AGENT = r"""
import * as acp from %(sdk)s;
import { Readable, Writable } from "node:stream";
import fs from "node:fs";

let client, n = 0;
const LOG = process.env.PRINCIPAL_LOG || "";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const update = (sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const say = (sid, text) => update(sid, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const cancelled = new Set();
const app = acp
  .agent({ name: "principal-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "principal-agent", title: "Principal Agent", version: "0.0.1" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => ({ sessionId: "p_" + (++n) + "_" + process.pid }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    cancelled.delete(sid);
    // MN-6's Summons block is test_summons.py's business, not this agent's.
    const text = params.prompt.filter((b) => b.type === "text" && !b.text.startsWith("[summons]"))
      .map((b) => b.text).join(" ");
    const last = text.split("\n").pop().replace(/^<[^>]*> /, "").replace(/^\S+[:,] /, "");
    let m;
    if ((m = /^lines (\d+) (\d+)$/.exec(last))) {
      for (let i = 1; i <= Number(m[1]); i++) {
        if (cancelled.has(sid)) return { stopReason: "cancelled" };
        await say(sid, "secret line " + i + " for the asker\n");
        await sleep(Number(m[2]));
      }
      return { stopReason: "end_turn" };
    }
    if ((m = /^tools (\d+)$/.exec(last))) {
      for (let i = 1; i <= Number(m[1]); i++)
        await update(sid, { sessionUpdate: "tool_call", toolCallId: "tc" + i, title: "step " + i,
                            kind: "read", status: "completed" });
      await say(sid, "tools done");
      return { stopReason: "end_turn" };
    }
    if ((m = /^\/perm (.*)$/.exec(last))) {
      const res = await client.request(acp.methods.client.session.requestPermission, {
        sessionId: sid,
        toolCall: { toolCallId: "perm" + (++n), title: "Pretend action: " + m[1], kind: "execute",
                    status: "pending" },
        options: [
          { optionId: "yes", name: "Yes", kind: "allow_once" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      });
      const o = res.outcome;
      const word = o.outcome === "selected" ? o.optionId : o.outcome;
      if (LOG) fs.appendFileSync(LOG, "outcome " + m[1] + " " + word + "\n");
      await say(sid, "outcome " + word);
      return { stopReason: "end_turn" };
    }
    if ((m = /^hold (\w+)$/.exec(last))) {
      const file = LOG.replace(/[^/]*$/, "") + m[1];
      while (!fs.existsSync(file)) await sleep(20);
      await say(sid, "held and released");
      return { stopReason: "end_turn" };
    }
    await say(sid, "heard: " + last);
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    cancelled.add(params.sessionId);
  });
"""

SCRIPT = write_agent(os.path.join(TMP, "principal-agent.mjs"), AGENT)


def _cleanup():
    r = subprocess.run(["pgrep", "-f", TOKEN], stdout=subprocess.PIPE, text=True)
    for pid in r.stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def teardown_module():
    _cleanup()
    if not os.environ.get("IRC_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)


def agent_section(name, channels=""):
    lines = ["[agent %s]" % name,
             "command = %s %s %s-%s" % (NODE, SCRIPT, TOKEN, name),
             "description = test agent " + name,
             "users = *",
             "env = PRINCIPAL_LOG=%s" % LOG]
    if channels:
        lines.append("channels = %s" % channels)
    return "\n".join(lines) + "\n\n"


def openssl(*args):
    r = subprocess.run(["openssl"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise TestFailure("openssl %r: %s" % (args, r.stderr))


from ircharness import hash_password  # noqa: E402


class Setup:
    """One server with a plain loopback listener and a TLS listener, accounts alice and
    bob, and the agents echo and tally; sessions: its max-open-sessions."""

    def __init__(self, sessions, exempt=True):
        self.srv = None
        self.sessions = sessions
        self.exempt = exempt

    def __call__(self):
        if self.srv is not None and self.srv.alive() and self.srv in Server.live:
            return self.srv
        cert, key = os.path.join(TMP, "server.pem"), os.path.join(TMP, "server.key")
        if not os.path.exists(cert):
            openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=irc.test")
        h = hash_password(PASSWORD)
        self.tls_port = free_port()
        extra = ("[listen]\naddress = 127.0.0.1:%d\ntls-cert = %s\ntls-key = %s\n\n"
                 "[account alice]\npassword = %s\n\n[account bob]\npassword = %s\n\n"
                 % (self.tls_port, cert, key, h, h)
                 + agent_section("echo") + agent_section("tally"))
        flood = {"flood_exempt": "127.0.0.0/8"} if self.exempt else {"flood_control": "no"}
        # max-channels: L3 fills the queue with one prompt per conversation
        # (TN-10 joins a person's prompts to one agent in one), so tally
        # is in many channels.
        self.srv = Server(config_extra=extra, history_replay=0, **flood,
                          max_parallel_turns=4, max_open_sessions=self.sessions,
                          max_loaded_agents=4, max_channels=400)
        wait_port(self.tls_port)
        return self.srv


S = Setup(100)
# A server whose agents may have 3 conversations open (L3).
SMALL = Setup(3)
# A server whose loopback is no flood-exempt net: addresses are counted (L3).
COUNTED = Setup(100, exempt=False)
_count = [0]


def uniq(base):
    _count[0] += 1
    return "%s%d" % (base, _count[0])


CAPS = "message-tags server-time batch draft/chathistory"


def connect(nick, tls=False, account=None, caps=CAPS, setup=S):
    """A registered client; on the TLS listener with tls, logged in by SASL PLAIN to
    account when given."""
    srv = setup()
    c = Client(srv, tls=tls, port=setup.tls_port if tls else None)
    c.nick = nick
    c.send("CAP LS 302")
    c.expect(r" CAP \* LS ")
    want = caps + (" sasl" if account else "")
    c.send("CAP REQ :%s" % want.strip())
    c.expect(r" CAP \* ACK ")
    if account:
        c.send("AUTHENTICATE PLAIN")
        c.expect(r"^(?:@\S+ )?(?::\S+ )?AUTHENTICATE \+$")
        c.send("AUTHENTICATE " + base64.b64encode(
            ("\0%s\0%s" % (account, PASSWORD)).encode()).decode())
        c.expect_numeric("903", timeout=15)
    c.send("CAP END")
    c.register(nick)
    return c


def from_agent(line, agent, cmd="PRIVMSG"):
    m = parse(line)
    return m.command == cmd and is_from(m, agent)


def wait_answer(c, agent, rx, timeout=20):
    """Lines c receives until agent's PRIVMSG whose text matches rx (included)."""
    out = []
    deadline = time.time() + timeout * SLOW
    while True:
        line = c._next(deadline)
        if line is None:
            c._fail("%s saying %r" % (agent, rx), timeout)
        out.append(line)
        m = parse(line)
        if m.command == "PRIVMSG" and is_from(m, agent) and re.search(rx, m.params[-1]):
            return out


def agent_texts(lines, agent, cmd="PRIVMSG"):
    return [parse(l).params[-1] for l in lines if from_agent(l, agent, cmd)]


def wait_log(rx, timeout=20):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline:
        if os.path.exists(LOG):
            with open(LOG) as f:
                text = f.read()
            if re.search(rx, text):
                return text
        time.sleep(0.05)
    raise TestFailure("the agent never logged %r" % rx)


def quit_and_wait(c):
    c.send("QUIT :bye")
    c.closed(timeout=10)


# ---------------------------------------------------------------- H4: private output

def _h4_in_flight(tls):
    victim_nick = uniq("carolx")
    victim = connect(victim_nick, tls=tls)
    victim.send("PRIVMSG echo :lines 12 150")
    wait_answer(victim, "echo", r"^secret line 1 ")
    quit_and_wait(victim)
    thief = connect(victim_nick, tls=tls)
    # The agent answers one conversation at a time (TN-2): the thief's own answer
    # comes after the victim's turn is over, and everything said to the nick till then
    # is in the lines before it.
    thief.send("PRIVMSG echo :who am i")
    lines = wait_answer(thief, "echo", r"^heard: who am i$")
    leaked = [t for t in agent_texts(lines, "echo") if "secret" in t]
    if leaked:
        raise TestFailure("the new holder of %s got %r" % (victim_nick, leaked))
    thief.quit()


def test_h4_answer_in_flight_plain():
    """AU-4, H4 (answer in flight), loopback listener: carolx (not logged in) asks for
    a slow answer, gets its first line and quits; a new connection takes nick carolx.
    It receives none of the rest: the conversation belonged to the connection."""
    _h4_in_flight(False)


def test_h4_answer_in_flight_tls():
    """AU-4, H4 (answer in flight), TLS listener: the same as over loopback."""
    _h4_in_flight(True)


def test_h4_account_private_conversation():
    """AU-4, H4 (an account's private conversation): alice, logged in by SASL on the
    TLS listener, asks for a slow answer and quits; an unauthenticated client on the
    loopback listener takes nick alice and receives none of it. alice logs in again:
    the whole answer is in her history (CHATHISTORY), stored though sent to nobody."""
    nick = uniq("alice")
    alice = connect(nick, tls=True, account="alice")
    alice.send("PRIVMSG echo :lines 6 150")
    wait_answer(alice, "echo", r"^secret line 1 ")
    quit_and_wait(alice)
    thief = connect(nick)
    thief.send("PRIVMSG echo :who am i")
    lines = wait_answer(thief, "echo", r"^heard: who am i$")
    leaked = [t for t in agent_texts(lines, "echo") if "secret" in t]
    if leaked:
        raise TestFailure("an unauthenticated %s got alice's %r" % (nick, leaked))
    thief.quit()
    back = connect(uniq("alice"), tls=True, account="alice")
    back.send("CHATHISTORY LATEST echo * 50")
    lines = back.collect_until(r"^(?:@\S+ )?:\S+ BATCH -", timeout=10)
    texts = agent_texts(lines, "echo")
    if "secret line 6 for the asker" not in texts:
        raise TestFailure("alice's history with echo: %r" % texts)
    back.quit()


def test_au4_every_connection_of_the_account_reads():
    """AU-4: a private conversation is the account's: with alice logged in on two
    connections (two nicks), an answer asked on one reaches both, each addressed to its
    own nick; someone holding neither account reads nothing."""
    n1, n2 = uniq("alicea"), uniq("aliceb")
    a1 = connect(n1, tls=True, account="alice")
    a2 = connect(n2, tls=True, account="alice")
    a1.send("PRIVMSG echo :both of us")
    lines1 = wait_answer(a1, "echo", r"^heard: both of us$")
    lines2 = wait_answer(a2, "echo", r"^heard: both of us$")
    for c, lines in ((a1, lines1), (a2, lines2)):
        target = [parse(l).params[0] for l in lines if from_agent(l, "echo")][-1]
        if target.lower() != c.nick.lower():
            raise TestFailure("%s got the answer addressed to %s" % (c.nick, target))
    a1.quit()
    a2.quit()


def test_au4_nick_change_keeps_the_conversation():
    """AU-4: a nick is no principal. dan (not logged in) asks for a slow answer and
    changes nick to dan_away while it streams: the rest reaches him under his new nick;
    a newcomer taking nick dan receives nothing."""
    old = uniq("dan")
    dan = connect(old)
    dan.send("PRIVMSG echo :lines 5 200")
    wait_answer(dan, "echo", r"^secret line 1 ")
    dan.send("NICK %s_away" % old)
    dan.expect(r" NICK :?%s_away" % re.escape(old))
    dan.nick = old + "_away"
    thief = connect(old)
    lines = wait_answer(dan, "echo", r"^secret line 5 ")
    target = parse(lines[-1]).params[0]
    if target.lower() != dan.nick.lower():
        raise TestFailure("the last line went to %s, not %s" % (target, dan.nick))
    thief.send("PRIVMSG echo :who am i")
    got = wait_answer(thief, "echo", r"^heard: who am i$")
    leaked = [t for t in agent_texts(got, "echo") if "secret" in t]
    if leaked:
        raise TestFailure("the new holder of %s got %r" % (old, leaked))
    dan.quit()
    thief.quit()


def test_au4_quit_cancels_the_private_turn_and_its_card():
    """AU-4, AU-9: when a connection that is not logged in ends, its private turn is
    cancelled and its card withdrawn: the agent gets "cancelled" for its permission
    request; its conversation is forgotten (the next person's conversation is new)."""
    nick = uniq("erin")
    what = uniq("quitcard")
    erin = connect(nick)
    erin.send("PRIVMSG echo :/perm %s" % what)
    erin.expect(r":echo!\S+ NOTICE %s :card (\d+): " % re.escape(nick), timeout=15)
    quit_and_wait(erin)
    wait_log(r"outcome %s cancelled" % what)


# ---------------------------------------------------------------- M1: cards

def _m1(tls):
    chan = uniq("#m1")
    op = connect(uniq("opper"), tls=tls)
    op.join(chan)
    op.send("INVITE echo %s" % chan)
    op.expect(r":echo!\S+ JOIN %s" % re.escape(chan), timeout=10)
    carol_nick = uniq("carol")
    carol = connect(carol_nick, tls=tls)
    carol.join(chan)
    mallory = connect(uniq("mallory"), tls=tls)
    mallory.join(chan)
    what = uniq("rmrf")
    carol.send("PRIVMSG %s :echo: /perm %s" % (chan, what))
    m = mallory.expect_msg(r":echo!\S+ NOTICE %s :card (\d+): " % re.escape(chan), timeout=15)
    card = re.search(r"card (\d+)", m.params[-1]).group(1)
    mallory.send("PRIVMSG %s :!allow %s" % (chan, card))
    mallory.expect(r"NOTICE \S+ :card %s: only " % card)
    carol.send("NICK %s_away" % carol_nick)
    carol.expect(r" NICK :?%s_away" % re.escape(carol_nick))
    mallory.send("NICK %s" % carol_nick)
    mallory.expect(r" NICK :?%s" % re.escape(carol_nick))
    mallory.send("PRIVMSG %s :!allow %s" % (chan, card))
    mallory.expect(r"NOTICE \S+ :card %s: only " % card)
    # The real owner still may, under any nick.
    carol.send("PRIVMSG %s :!deny %s" % (chan, card))
    wait_answer(carol, "echo", r"outcome no$")
    for c in (op, carol, mallory):
        c.quit()


def test_m1_card_nick_reuse_plain():
    """AU-4, M1, loopback: carol (not logged in) starts a card in a channel; mallory
    may not answer it; carol changes nick and mallory takes hers: still refused
    ("only ... or a channel operator"); carol, under her new nick, answers it."""
    _m1(False)


def test_m1_card_nick_reuse_tls():
    """AU-4, M1, TLS listener: the same."""
    _m1(True)


def test_m1_card_of_an_account():
    """AU-4, M1: a card of alice's turn (logged in) is never answered by an
    unauthenticated holder of her nick after she quit; a channel operator still may
    (PM-2). (A rule test: the account was compared before this issue too.)"""
    chan = uniq("#m1a")
    op = connect(uniq("opper"), tls=True)
    op.join(chan)
    op.send("INVITE echo %s" % chan)
    op.expect(r":echo!\S+ JOIN %s" % re.escape(chan), timeout=10)
    nick = uniq("alice")
    alice = connect(nick, tls=True, account="alice")
    alice.join(chan)
    what = uniq("acct")
    alice.send("PRIVMSG %s :echo: /perm %s" % (chan, what))
    m = op.expect_msg(r":echo!\S+ NOTICE %s :card (\d+): " % re.escape(chan), timeout=15)
    card = re.search(r"card (\d+)", m.params[-1]).group(1)
    quit_and_wait(alice)
    thief = connect(nick)
    thief.join(chan)
    thief.send("PRIVMSG %s :!allow %s" % (chan, card))
    thief.expect(r"NOTICE \S+ :card %s: only " % card)
    op.send("PRIVMSG %s :!deny %s" % (chan, card))
    wait_answer(op, "echo", r"outcome no$")
    op.quit()
    thief.quit()


def test_au4_offline_mention_kept_for_the_account():
    """AU-4, RT-8: a mention of account bob while nobody is logged in to it is kept for
    bob, even when someone else holds the nick bob (a nick is nobody's); bob hears of it
    when he logs in."""
    chan = uniq("#off")
    squat = connect("bob")
    squat.join(chan)
    speaker = connect(uniq("speaker"))
    speaker.join(chan)
    word = uniq("note")
    speaker.send("PRIVMSG %s :@bob look at %s" % (chan, word))
    speaker.sync()
    squat.quit()
    bob = connect(uniq("bobby"), tls=True, account="bob")
    bob.expect(r"NOTICE \S+ :While you were away, %s mentioned you in %s at .*%s"
               % (re.escape(speaker.nick), re.escape(chan), word), timeout=10)
    bob.quit()
    speaker.quit()


# ---------------------------------------------------------------- L2: tool lines

def test_l2_tool_lines_capped():
    """AU-9, L2: 200 completed tool calls in one turn show as 50 tool lines and one
    line saying how many more there were, then the answer; not 200 lines."""
    chan = uniq("#l2")
    u = connect(uniq("tooler"))
    u.join(chan)
    u.send("INVITE echo %s" % chan)
    u.expect(r":echo!\S+ JOIN %s" % re.escape(chan), timeout=10)
    u.send("PRIVMSG %s :echo: tools 200" % chan)
    lines = u.collect_until(r":echo!\S+ PRIVMSG %s :\x01ACTION .* more tool call"
                            % re.escape(chan), timeout=30)
    if not [t for t in agent_texts(lines, "echo") if t.endswith("tools done")]:
        raise TestFailure("the answer did not come before the count: %r" % lines[-3:])
    actions = [t for t in agent_texts(lines, "echo") if t.startswith("\x01ACTION ")]
    shown = [t for t in actions if "step" in t]
    more = [t for t in actions if "more tool call" in t]
    if len(shown) != 50 or len(more) != 1 or "150 more tool calls" not in more[0]:
        raise TestFailure("200 tool calls: %d tool lines, then %r" % (len(shown), more))
    u.quit()


# ---------------------------------------------------------------- L3: fair shares

def test_l3_waiting_prompts_per_principal_not_nick():
    """AU-9, L3: one connection with 16 prompts waiting cannot queue more by changing
    nick: the waiting prompts are counted per principal, not per nick. (One prompt per
    channel: TN-10 joins a person's prompts to one agent in one conversation.)"""
    chans = [uniq("#l3") for _ in range(17)]
    holder = connect(uniq("holder"))
    release = uniq("release")
    holder.send("PRIVMSG tally :hold %s" % release)
    u = connect(uniq("greedy"))
    for ch in chans:
        u.join(ch)
        u.send("INVITE tally %s" % ch)
        u.expect(r":tally!\S+ JOIN %s" % re.escape(ch), timeout=10)
    # tally is held in holder's conversation: every prompt below waits.
    for i in range(16):
        u.send("PRIVMSG %s :tally: q%d" % (chans[i], i))
    u.send("NICK %s_new" % u.nick)
    u.expect(r" NICK :?%s_new" % re.escape(u.nick))
    u.nick += "_new"
    u.send("PRIVMSG %s :tally: one more" % chans[16])
    u.expect(r"NOTICE \S+ :You have 16 prompts waiting", timeout=10)
    open(os.path.join(TMP, release), "w").close()
    wait_answer(holder, "tally", r"^held and released$")
    holder.quit()
    u.quit()


def test_l3_waiting_prompts_per_account_tls():
    """AU-9, L3, TLS listener: prompts are counted per account, not per connection.
    alice, logged in by SASL, queues 16 prompts on one connection; on a second
    connection of the same account, under another nick, one more is refused with a
    NOTICE; bob, another account, may still queue (one prompt per channel, as above)."""
    chans = [uniq("#l3t") for _ in range(17)]
    holder = connect(uniq("holder"))
    release = uniq("release")
    holder.send("PRIVMSG tally :hold %s" % release)
    a1 = connect(uniq("alicq"), tls=True, account="alice")
    for ch in chans:
        a1.join(ch)
        a1.send("INVITE tally %s" % ch)
        a1.expect(r":tally!\S+ JOIN %s" % re.escape(ch), timeout=10)
    for i in range(16):
        a1.send("PRIVMSG %s :tally: q%d" % (chans[i], i))
    refused = [l for l in a1.sync() if "prompts waiting" in l]
    if refused:
        raise TestFailure("alice's 16 prompts: refused: %r" % refused)
    a2 = connect(uniq("alicr"), tls=True, account="alice")
    a2.join(chans[16])
    a2.send("PRIVMSG %s :tally: one more" % chans[16])
    a2.expect(r"NOTICE %s :You have 16 prompts waiting" % re.escape(chans[16]), timeout=10)
    b = connect(uniq("bobq"), tls=True, account="bob")
    b.join(chans[0])
    b.send("PRIVMSG %s :tally: mine" % chans[0])
    refused = [l for l in b.sync() if "prompts waiting" in l]
    if refused:
        raise TestFailure("bob was refused for alice's prompts: %r" % refused)
    open(os.path.join(TMP, release), "w").close()
    wait_answer(holder, "tally", r"^held and released$")
    for c in (holder, a1, a2, b):
        c.quit()


def test_l3_waiting_prompts_per_address():
    """AU-9, L3: waiting prompts are counted per address too. Where loopback is not a
    flood-exempt net, 64 connections from 127.0.0.1 with a prompt waiting each (four
    principals' shares: one person's prompts in one conversation are one, TN-10) fill
    the address's; a 65th connection's prompt is refused with a NOTICE. (Everywhere else
    in these tests loopback is exempt.)"""
    release = uniq("release")
    holder = connect(uniq("holder"), setup=COUNTED)
    holder.send("PRIVMSG tally :hold %s" % release)
    holder.sync()
    conns = [connect(uniq("addr"), setup=COUNTED) for _ in range(64)]
    for i, c in enumerate(conns):
        c.send("PRIVMSG tally :p%d" % i)
        refused = [l for l in c.sync() if "not queued" in l]
        if refused:
            raise TestFailure("%s: one prompt, refused: %r" % (c.nick, refused))
    late = connect(uniq("late"), setup=COUNTED)
    late.send("PRIVMSG tally :one more")
    late.expect(r"NOTICE \S+ :Your address has 64 prompts waiting", timeout=10)
    open(os.path.join(TMP, release), "w").close()
    wait_answer(holder, "tally", r"^held and released$")
    for c in conns + [holder, late]:
        c.quit()


def test_l3_sessions_capped():
    """AU-9, L3: an agent that cannot close and take back its sessions holds at most
    max-open-sessions (3) conversations; a 4th person is refused with a NOTICE and
    nothing reaches the agent. When one of the first ends (its connection quits),
    there is room again."""
    people = [connect(uniq("sess"), setup=SMALL) for _ in range(3)]
    for i, p in enumerate(people):
        p.send("PRIVMSG tally :hello %d" % i)
        wait_answer(p, "tally", r"^heard: hello %d$" % i)
    late = connect(uniq("late"), setup=SMALL)
    late.send("PRIVMSG tally :hello late")
    m = late.expect_msg(r"NOTICE %s :" % re.escape(late.nick), timeout=10)
    if "conversations it may have open" not in m.params[-1]:
        raise TestFailure("a 4th conversation: %r" % m.raw)
    quit_and_wait(people[0])
    late.send("PRIVMSG tally :hello again")
    wait_answer(late, "tally", r"^heard: hello again$")
    for p in people[1:] + [late]:
        p.quit()


# ---------------------------------------------------------------- I5: +m and bans

def test_i5_moderated_channel():
    """I5: in a +m channel where the agent has no voice it is not asked, and the asker
    is told by NOTICE; with +v it answers again."""
    chan = uniq("#i5m")
    op = connect(uniq("modop"))
    op.join(chan)
    op.send("INVITE echo %s" % chan)
    op.expect(r":echo!\S+ JOIN %s" % re.escape(chan), timeout=10)
    op.send("MODE %s +m" % chan)
    op.expect(r" MODE %s \+m" % re.escape(chan))
    op.send("PRIVMSG %s :echo: are you there" % chan)
    op.expect(r"NOTICE %s :echo cannot speak in" % re.escape(chan), timeout=10)
    op.send("MODE %s +v echo" % chan)
    op.expect(r" MODE %s \+v echo" % re.escape(chan))
    op.send("PRIVMSG %s :echo: now" % chan)
    wait_answer(op, "echo", r"heard: now$")
    op.quit()


def test_i5_banned_mid_answer():
    """I5: an agent banned while it answers says nothing more there; the asker is
    told once."""
    chan = uniq("#i5b")
    op = connect(uniq("banop"))
    op.join(chan)
    op.send("INVITE echo %s" % chan)
    op.expect(r":echo!\S+ JOIN %s" % re.escape(chan), timeout=10)
    op.send("PRIVMSG %s :echo: lines 10 200" % chan)
    wait_answer(op, "echo", r"secret line 1 ")
    op.send("MODE %s +b echo!*@*" % chan)
    op.expect(r" MODE %s \+b " % re.escape(chan))
    lines = op.collect_until(r"NOTICE %s :echo cannot speak in" % re.escape(chan),
                             timeout=10)
    # Ask again: refused at once, and nothing of the old answer came in between.
    op.send("PRIVMSG %s :echo: again" % chan)
    lines += op.collect_until(r"NOTICE %s :echo cannot speak in" % re.escape(chan),
                              timeout=10)
    after = [t for t in agent_texts(lines[1:], "echo") if "secret line 10" in t]
    if after:
        raise TestFailure("a banned agent went on: %r" % after)
    op.quit()


if __name__ == "__main__":
    try:
        run_tests(globals())
    finally:
        _cleanup()

// demo-agent.mjs: the demo agent of agentircd's quick start. A real ACP v1
// agent on the official SDK, with no model, no key and no network: it
// answers from a few canned rules so a fresh install shows agents talking.
// It exercises what the server supports: streamed multi-line answers,
// slash commands, a permission request, modes and session/load.
//
// State (for session/load) lives in DEMO_AGENT_STATE, or
// $XDG_STATE_HOME/agentircd-demo, or ~/.local/state/agentircd-demo.
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const STATE = process.env.DEMO_AGENT_STATE ||
  path.join(process.env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state"), "agentircd-demo");
const log = (...a) => console.error("[demo-agent]", ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
try { fs.mkdirSync(STATE, { recursive: true }); } catch (e) { log("no state dir:", e.message); }

const MODES = [
  { id: "chatty", name: "Chatty", description: "Longer answers, streamed slowly" },
  { id: "terse", name: "Terse", description: "One line answers" },
];
const COMMANDS = [
  { name: "help", description: "What this demo agent can do" },
  { name: "about", description: "What this agent is (and is not)" },
  { name: "count", description: "Count up to N, one line at a time", input: { hint: "N (1-20)" } },
  { name: "touch", description: "Pretend to create a file, after asking permission", input: { hint: "file name" } },
  { name: "plan", description: "Show a sample plan" },
  { name: "pass", description: "Hand your message to another agent: my answer names it, which wakes it", input: { hint: "agent [message]" } },
];
const ABOUT = [
  "I am the agentircd demo agent: a small script, not an AI.",
  "I follow a few fixed rules, need no account or network,",
  "and exist so you can see how agents behave on IRC.",
  "Configure a real agent (Claude, Codex, Gemini, goose, opencode) for real answers.",
];

const sessions = new Map();
const file = (id) => path.join(STATE, id.replace(/[^A-Za-z0-9_-]/g, "_") + ".json");
function save(id) {
  const s = sessions.get(id);
  try { fs.writeFileSync(file(id), JSON.stringify({ history: s.history, mode: s.mode, always: s.always })); } catch (e) { log(e.message); }
}

let client;
const update = (sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const text = (t) => ({ type: "text", text: t });

async function stream(sid, s, lines, signal) {
  // Word by word, with a newline after each line: a streamed answer.
  const out = [];
  for (const line of lines) {
    const words = line.split(/(?<= )/);
    for (const w of words) {
      if (signal.aborted) return "cancelled";
      await update(sid, { sessionUpdate: "agent_message_chunk", content: text(w) });
      if (s.mode === "chatty") await sleep(40);
    }
    await update(sid, { sessionUpdate: "agent_message_chunk", content: text("\n") });
    out.push(line);
  }
  s.history.push({ role: "agent", text: out.join("\n") });
  return "end_turn";
}

async function touch(sid, s, name, signal) {
  const toolCallId = "call_" + randomUUID().slice(0, 8);
  const target = path.join(s.cwd, name || "demo.txt");
  await update(sid, { sessionUpdate: "tool_call", toolCallId, title: `Create ${target}`, kind: "edit",
    status: "pending", locations: [{ path: target }], rawInput: { path: target, content: "" } });
  // "Always allow" and "Always deny" hold for this session: ACP leaves
  // remembering them to the agent, and a demo that asked again would make
  // !always look broken.
  let res;
  if (s.always)
    res = { outcome: { outcome: "selected", optionId: s.always } };
  else try {
    res = await client.request(acp.methods.client.session.requestPermission, {
      sessionId: sid,
      toolCall: { toolCallId, title: `Create ${target}`, kind: "edit", status: "pending" },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "always", name: "Always allow", kind: "allow_always" },
        { optionId: "deny", name: "Deny", kind: "reject_once" },
        { optionId: "never", name: "Always deny", kind: "reject_always" },
      ],
    }, { cancellationSignal: signal });
  } catch (e) {
    if (!signal.aborted) throw e;
    res = { outcome: { outcome: "cancelled" } };
  }
  if (res.outcome.outcome === "cancelled") {
    await update(sid, { sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "cancelled";
  }
  if (res.outcome.optionId === "always" || res.outcome.optionId === "never")
    s.always = res.outcome.optionId;
  const allowed = res.outcome.optionId === "allow" || res.outcome.optionId === "always";
  // Honest: nothing is written, even when allowed.
  await update(sid, { sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed",
    content: [{ type: "content", content: text(allowed ? "pretended to create it (nothing was written)" : "denied") }] });
  return stream(sid, s, [allowed ? `Allowed: I would have created ${target} (a demo writes nothing).`
    : "Denied: I leave your files alone."], signal);
}

async function answer(sid, s, prompt, signal) {
  const [cmd, ...rest] = prompt.trim().split(/\s+/);
  const arg = rest.join(" ");
  switch (cmd) {
    case "/help":
      return stream(sid, s, ["Commands: " + COMMANDS.map((c) => "/" + c.name).join(", ") + ".",
        "Anything else I answer by rule: greetings, questions, or an echo."], signal);
    case "/about":
      return stream(sid, s, ABOUT, signal);
    case "/count": {
      const n = Math.max(1, Math.min(20, Number(arg) || 5));
      return stream(sid, s, Array.from({ length: n }, (_, i) => String(i + 1)), signal);
    }
    case "/touch":
      return touch(sid, s, arg, signal);
    case "/plan":
      await update(sid, { sessionUpdate: "plan", entries: [
        { content: "Read your message", priority: "high", status: "completed" },
        { content: "Pick a canned answer", priority: "medium", status: "in_progress" },
        { content: "Stream it back", priority: "low", status: "pending" },
      ] });
      return stream(sid, s, ["Plan sent (it is the same plan every time)."], signal);
    case "/pass": {
      // An answer that names an agent with "@" wakes it (the server's MN-1).
      const [to, ...words] = rest;
      if (!to || !/^[A-Za-z0-9_\-\[\]\\`^{}|]+$/.test(to))
        return stream(sid, s, ["Name the agent to pass this to: /pass helper hello"], signal);
      return stream(sid, s, [`Over to you, @${to}: ${words.join(" ") || "hello"}`], signal);
    }
  }
  const last = prompt.trim().split("\n").pop();
  if (/\b(hi|hello|hey)\b/i.test(last))
    return stream(sid, s, s.mode === "terse" ? ["Hello."] :
      ["Hello! I am the demo agent, a script with no AI behind it.", "Type !help to see my commands and the server's (in most clients /help is the client's own help)."], signal);
  if (last.trim().endsWith("?"))
    return stream(sid, s, s.mode === "terse" ? ["I cannot know; I am a demo."] :
      ["Good question. I am only a demo, so I cannot really answer it.",
       "A real agent configured in agentircd.conf could."], signal);
  const n = s.history.filter((h) => h.role === "user").length;
  return stream(sid, s, s.mode === "terse" ? [`You said: ${last}`] :
    [`You said: ${last}`, `That is message ${n} of this conversation, which I remember across restarts.`], signal);
}

const app = acp
  .agent({ name: "agentircd-demo" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      mcpCapabilities: { http: false, sse: false },
    },
    agentInfo: { name: "agentircd-demo", title: "agentircd demo agent (a script, not an AI)", version: "0.1.0" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async ({ params }) => {
    const sessionId = "demo_" + randomUUID();
    sessions.set(sessionId, { cwd: params.cwd, history: [], mode: "chatty", abort: null });
    save(sessionId);
    setImmediate(() => update(sessionId, { sessionUpdate: "available_commands_update", availableCommands: COMMANDS }).catch(() => {}));
    return { sessionId, modes: { currentModeId: "chatty", availableModes: MODES } };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params }) => {
    let st;
    try { st = JSON.parse(fs.readFileSync(file(params.sessionId), "utf8")); } catch { throw acp.RequestError.sessionNotFound(params.sessionId); }
    const s = { cwd: params.cwd, history: st.history, mode: st.mode || "chatty", always: st.always, abort: null };
    sessions.set(params.sessionId, s);
    for (const h of s.history)
      await update(params.sessionId, { sessionUpdate: h.role === "user" ? "user_message_chunk" : "agent_message_chunk", content: text(h.text) });
    setImmediate(() => update(params.sessionId, { sessionUpdate: "available_commands_update", availableCommands: COMMANDS }).catch(() => {}));
    return { modes: { currentModeId: s.mode, availableModes: MODES } };
  })
  .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    if (!MODES.some((m) => m.id === params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId });
    s.mode = params.modeId;
    save(params.sessionId);
    setImmediate(() => update(params.sessionId, { sessionUpdate: "current_mode_update", currentModeId: s.mode }).catch(() => {}));
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    s.abort?.abort();
    const ac = new AbortController();
    s.abort = ac;
    // MN-6's Summons block says who called; a script answers the message only.
    const prompt = params.prompt.filter((b) => b.type !== "text" || !b.text.startsWith("[summons]"))
      .map((b) => (b.type === "text" ? b.text : b.type === "resource_link" ? b.uri : "")).join(" ");
    s.history.push({ role: "user", text: prompt });
    let stopReason;
    try {
      stopReason = await answer(params.sessionId, s, prompt, ac.signal);
    } finally {
      if (s.abort === ac) s.abort = null;
      save(params.sessionId);
    }
    return { stopReason: ac.signal.aborted ? "cancelled" : stopReason };
  })
  .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    sessions.get(params.sessionId)?.abort?.abort();
  });

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
client = conn.client;
await conn.closed;
process.exit(0);

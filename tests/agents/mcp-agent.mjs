// mcp-agent.mjs: an ACP test agent of agentircd's tests, on the official SDK,
// that calls the tools of the MCP servers the client gives each session
// (session/new and session/load `mcpServers`: the stdio form, or the http
// form with MCP_AGENT_HTTP=1), the way a real agent lets its model call them.
//
// It answers the LAST line of the prompt (the daemon sends "<nick> text"
// lines; the last one is the message answered, or the prompt of a
// scheduled firing). With "<nick> " (if any) removed, and a schedule's
// header "[schedule ...]" if the prompt follows it on the same line, it may be:
//   mcp list                  tools/list: "tool: <name>" per tool
//   mcp <tool> [json]         tools/call {name: tool, arguments: json};
//                             a JSON array: one tools/call per element,
//                             in order, on one MCP connection
//   mcp <tool> x<N> <json>    N tools/calls on one connection, "%i" in the
//                             JSON's strings replaced by 0..N-1 (IRC lines
//                             are short)
//   mcp raw <json>            one raw JSON-RPC request (after initialize,
//                             unless it is an initialize itself):
//                             "raw: <the response, as JSON>"
//   mcp servers               "servers: <mcpServers of this session, JSON>"
//   later <ms> mcp <...>      answers "later: <ms>" at once, ends its turn,
//                             then after <ms> runs "mcp <...>" (between
//                             turns) and appends its answer lines to
//                             MCP_AGENT_DUMP/later.txt
//   whoami                    "sid: <sessionId>"
//   echo-prompt               the whole prompt, "prompt: <line>" per line
//   sleep <ms>                wait, then "slept <ms>" (a busy agent)
//   perm <what>               session/request_permission (a card), then
//                             "permission granted (<id>)" / "... denied ..."
//   perm-odd <what>           the same with ten options: eight reject_once,
//                             an allow_once with a 100-byte id, then
//                             "allow-ok" (allow_once)
//   perms <n>                 n permission requests at once; says
//                             "cancelled at once: <k>" for those answered
//                             "cancelled" within a second, then waits for
//                             the rest (!deny, !stop)
//   anything else             "got: <last line>"
// A tools/call result is answered one line per line of its text, each
// "tool: <line>", or "tool error: <line>" when isError; a JSON-RPC error
// or a failure of the server process is "tool error: ...".
//
// Environment:
//   MCP_AGENT_DUMP     directory: each session's {sessionId, cwd,
//                      mcpServers} is written there as <sessionId>.json
//   MCP_AGENT_TIMEOUT_MS  how long one MCP exchange may take (20000)
//   MCP_AGENT_HTTP=1   advertise mcpCapabilities.http; an "http" entry of
//                      mcpServers is then used (Streamable HTTP) before a
//                      stdio one
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const DUMP = process.env.MCP_AGENT_DUMP || "";
const TIMEOUT = Number(process.env.MCP_AGENT_TIMEOUT_MS || 20000);
const HTTP = process.env.MCP_AGENT_HTTP === "1";
const log = (...a) => console.error("[mcp-agent]", ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sessions = new Map(); // id -> {cwd, mcpServers, abort}

function remember(sessionId, params) {
  const s = sessions.get(sessionId) || { abort: null };
  s.cwd = params.cwd;
  s.mcpServers = params.mcpServers || [];
  sessions.set(sessionId, s);
  if (DUMP) {
    try {
      fs.writeFileSync(path.join(DUMP, sessionId.replace(/[^A-Za-z0-9_-]/g, "_") + ".json"),
        JSON.stringify({ sessionId, cwd: s.cwd, mcpServers: s.mcpServers, pid: process.pid }));
    } catch (e) {
      log("dump:", e.message);
    }
  }
  // Names only: the entries carry the session's token, and stderr ends up in a log.
  log("session", sessionId, "mcpServers", s.mcpServers.map((m) => m.name).join(", "));
  return s;
}

function render(blocks) {
  return blocks
    .map((b) => {
      if (b.type === "text") return b.text;
      if (b.type === "resource_link") return `[link ${b.uri}]`;
      if (b.type === "resource") return `[resource ${b.resource?.uri}]`;
      return `[${b.type}]`;
    })
    .join(" ");
}

// ---------------------------------------------------------------- MCP client

// One stdio MCP server process: newline-delimited JSON-RPC on stdin/stdout.
class McpStdio {
  constructor(server) {
    const env = { ...process.env };
    for (const e of server.env || []) env[e.name] = e.value;
    this.proc = spawn(server.command, server.args || [], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.pending = new Map();
    this.nextId = 1;
    this.stderr = "";
    this.exited = null;
    let buf = "";
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).replace(/\r$/, "");
        buf = buf.slice(i + 1);
        if (!line.trim()) continue;
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          log("non-JSON from the MCP server:", line);
          continue;
        }
        if (msg.id !== undefined && this.pending.has(msg.id) && !("method" in msg)) {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          p.resolve(msg);
        } else if ("method" in msg && msg.id !== undefined) {
          // A server->client request (none expected): answer -32601.
          this.write({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
        }
      }
    });
    this.proc.stderr.setEncoding("utf8");
    this.proc.stderr.on("data", (d) => {
      if (this.stderr.length < 4000) this.stderr += d;
    });
    this.proc.stdin.on("error", () => {});
    const fail = (why) => {
      for (const p of this.pending.values()) p.reject(new Error(why));
      this.pending.clear();
    };
    this.proc.on("error", (e) => {
      this.exited = "spawn failed: " + e.message;
      fail(this.exited);
    });
    this.proc.on("exit", (code, sig) => {
      this.exited = `the MCP server exited (${sig ? "signal " + sig : "status " + code})` +
        (this.stderr.trim() ? ": " + this.stderr.trim().split("\n").pop() : "");
      fail(this.exited);
    });
  }

  write(obj) {
    if (this.exited) return;
    try {
      this.proc.stdin.write(JSON.stringify(obj) + "\n");
    } catch {}
  }

  notify(method, params) {
    this.write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  // Resolves with the whole JSON-RPC response (result or error).
  request(method, params, raw) {
    const id = raw && raw.id !== undefined ? raw.id : this.nextId++;
    const msg = raw ? { ...raw, id } : { jsonrpc: "2.0", id, method, params };
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error(this.exited));
      const t = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${msg.method} within ${TIMEOUT} ms`));
      }, TIMEOUT);
      this.pending.set(id, {
        resolve: (v) => { clearTimeout(t); resolve(v); },
        reject: (e) => { clearTimeout(t); reject(e); },
      });
      this.write(msg);
    });
  }

  async initialize() {
    const r = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "mcp-agent", version: "0.1.0" },
    });
    if (r.error) throw new Error(`initialize: ${r.error.code} ${r.error.message}`);
    this.notify("notifications/initialized");
    return r.result;
  }

  close() {
    try {
      this.proc.stdin.end();
    } catch {}
    const p = this.proc;
    setTimeout(() => { if (p.exitCode === null && p.signalCode === null) p.kill("SIGTERM"); }, 2000).unref();
    setTimeout(() => { if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL"); }, 4000).unref();
  }
}

// The HTTP form (Streamable HTTP, MCP 2025-06-18): one POST per message.
class McpHttp {
  constructor(server) {
    this.url = server.url;
    this.headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    for (const h of server.headers || []) this.headers[h.name] = h.value;
    this.nextId = 1;
  }

  async post(msg) {
    const ctl = new AbortController();
    const t = setTimeout(() => ctl.abort(), TIMEOUT);
    try {
      const r = await fetch(this.url, { method: "POST", headers: this.headers, body: JSON.stringify(msg), signal: ctl.signal });
      const sid = r.headers.get("mcp-session-id");
      if (sid) this.headers["Mcp-Session-Id"] = sid;
      const body = await r.text();
      if (msg.id === undefined) return null;
      if (!r.ok) throw new Error(`HTTP ${r.status}: ${body.trim().split("\n")[0]}`);
      if ((r.headers.get("content-type") || "").includes("text/event-stream")) {
        const data = body.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim());
        return JSON.parse(data[data.length - 1]);
      }
      return JSON.parse(body);
    } catch (e) {
      if (ctl.signal.aborted) throw new Error(`no answer to ${msg.method} within ${TIMEOUT} ms`);
      throw e;
    } finally {
      clearTimeout(t);
    }
  }

  notify(method, params) {
    return this.post(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  request(method, params, raw) {
    const id = raw && raw.id !== undefined ? raw.id : this.nextId++;
    return this.post(raw ? { ...raw, id } : { jsonrpc: "2.0", id, method, params });
  }

  async initialize() {
    const r = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "mcp-agent", version: "0.1.0" },
    });
    if (r.error) throw new Error(`initialize: ${r.error.code} ${r.error.message}`);
    this.headers["MCP-Protocol-Version"] = r.result.protocolVersion;
    await this.notify("notifications/initialized");
    return r.result;
  }

  close() {}
}

function textOf(result) {
  return (result?.content || [])
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n");
}

// The answer lines of one "mcp ..." command.
async function mcpCommand(s, words) {
  const servers = s.mcpServers || [];
  const server = servers.find((m) => m.type === "http" && m.url) ||
    servers.find((m) => m.name === "agentircd" && m.command) || servers.find((m) => m.command);
  if (!server) return ["tool error: no stdio or http MCP server in this session's mcpServers"];
  const [what, ...rest] = words.split(/ (.*)/s).filter((x) => x !== undefined);
  const argText = (rest[0] || "").trim();
  if (what === "servers") return ["servers: " + JSON.stringify(s.mcpServers)];
  let rawReq = null, args = {};
  if (what === "raw") {
    try {
      rawReq = JSON.parse(argText);
    } catch (e) {
      return ["tool error: bad JSON: " + e.message];
    }
  } else if (what !== "list" && argText) {
    const rep = /^x(\d+)\s+(.*)$/s.exec(argText);
    try {
      if (rep) {
        const tmpl = JSON.parse(rep[2]);
        const fill = (v, i) => typeof v === "string" ? v.replaceAll("%i", String(i))
          : Array.isArray(v) ? v.map((x) => fill(x, i))
          : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, i)]))
          : v;
        args = Array.from({ length: Number(rep[1]) }, (_, i) => fill(tmpl, i));
      } else args = JSON.parse(argText);
    } catch (e) {
      return ["tool error: bad JSON: " + e.message];
    }
  }
  const mcp = server.type === "http" ? new McpHttp(server) : new McpStdio(server);
  try {
    if (!(rawReq && rawReq.method === "initialize")) await mcp.initialize();
    if (rawReq) {
      const r = await mcp.request(rawReq.method, rawReq.params, rawReq);
      return ["raw: " + JSON.stringify(r)];
    }
    if (what === "list") {
      const r = await mcp.request("tools/list", {});
      if (r.error) return [`tool error: ${r.error.code} ${r.error.message}`];
      return (r.result.tools || []).map((t) => "tool: " + t.name);
    }
    const out = [];
    for (const a of Array.isArray(args) ? args : [args]) {
      const r = await mcp.request("tools/call", { name: what, arguments: a });
      if (r.error) {
        out.push(`tool error: ${r.error.code} ${r.error.message}`);
        continue;
      }
      const prefix = r.result?.isError ? "tool error: " : "tool: ";
      const lines = textOf(r.result).split("\n").filter((l) => l.length > 0);
      out.push(...(lines.length ? lines.map((l) => prefix + l) : [prefix.trim()]));
    }
    return out;
  } catch (e) {
    return ["tool error: " + e.message];
  } finally {
    mcp.close();
  }
}

// ---------------------------------------------------------------- ACP agent

let client;
const update = (sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const say = (sid, text) => update(sid, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

const PERM_OPTIONS = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" },
];
// Eight rejections, an allow whose id is 100 bytes, then the allow to pick.
const ODD_OPTIONS = [
  ...Array.from({ length: 8 }, (_, i) => ({ optionId: `no-${i}`, name: `No ${i}`, kind: "reject_once" })),
  { optionId: "y".repeat(100), name: "Allow (long id)", kind: "allow_once" },
  { optionId: "allow-ok", name: "Allow", kind: "allow_once" },
];

async function permTurn(sid, what, signal, options = PERM_OPTIONS) {
  const toolCallId = "call_" + randomUUID().slice(0, 8);
  await update(sid, {
    sessionUpdate: "tool_call", toolCallId, title: `Pretend action: ${what}`,
    kind: "execute", status: "pending", rawInput: { what },
  });
  let res;
  try {
    res = await client.request(acp.methods.client.session.requestPermission, {
      sessionId: sid,
      toolCall: { toolCallId, title: `Pretend action: ${what}`, kind: "execute", status: "pending" },
      options,
    }, { cancellationSignal: signal });
  } catch (e) {
    if (signal.aborted) res = { outcome: { outcome: "cancelled" } };
    else throw e;
  }
  if (res.outcome.outcome === "cancelled" || signal.aborted) {
    await update(sid, { sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "cancelled";
  }
  const id = res.outcome.optionId;
  const ok = id.startsWith("allow");
  await update(sid, { sessionUpdate: "tool_call_update", toolCallId, status: ok ? "completed" : "failed" });
  await say(sid, `permission ${ok ? "granted" : "denied"} (${id})`);
  return "end_turn";
}

async function permsTurn(sid, n, signal) {
  let early = 0, settled = false;
  const asks = Array.from({ length: n }, (_, i) => {
    const toolCallId = `many_${i}_` + randomUUID().slice(0, 4);
    return client.request(acp.methods.client.session.requestPermission, {
      sessionId: sid,
      toolCall: { toolCallId, title: `Pretend action ${i}`, kind: "execute", status: "pending" },
      options: [
        { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
        { optionId: "reject-once", name: "Reject", kind: "reject_once" },
      ],
    }, { cancellationSignal: signal }).then((r) => {
      if (!settled && r.outcome.outcome === "cancelled") early++;
    }, () => {});
  });
  await sleep(1000);
  settled = true;
  await say(sid, `cancelled at once: ${early}\n`);
  await Promise.all(asks);
  return signal.aborted ? "cancelled" : "end_turn";
}

async function turn(sid, s, text, signal) {
  // The daemon may indent a line that continues a message (L8): not part of it.
  const last = (text.split("\n").filter((l) => l.trim() !== "").pop() || "").replace(/^\s+/, "");
  const body = last.replace(/^<[^>\s]+> /, "")
    .replace(/^\[schedule [^\]]*\](?: \(created in [^)]*\))?\s*/, "");
  let m;
  if (body.trim() === "echo-prompt") {
    await say(sid, text.split("\n").map((l) => "prompt: " + l).join("\n") + "\n");
    return "end_turn";
  }
  if ((m = /^mcp\s+(.*)$/s.exec(body))) {
    const lines = await mcpCommand(s, m[1].trim());
    if (signal.aborted) return "cancelled";
    await say(sid, lines.join("\n") + "\n");
    return "end_turn";
  }
  if ((m = /^later\s+(\d+)\s+mcp\s+(.*)$/s.exec(body))) {
    const ms = Number(m[1]), cmd = m[2].trim();
    setTimeout(async () => {
      const lines = await mcpCommand(s, cmd);
      if (DUMP) fs.appendFileSync(path.join(DUMP, "later.txt"), lines.join("\n") + "\n");
    }, ms);
    await say(sid, `later: ${ms}`);
    return "end_turn";
  }
  if (body.trim() === "whoami") {
    await say(sid, "sid: " + sid);
    return "end_turn";
  }
  if ((m = /^sleep\s+(\d+)/.exec(body))) {
    const ms = Number(m[1]);
    const t0 = Date.now();
    while (Date.now() - t0 < ms && !signal.aborted) await sleep(20);
    if (signal.aborted) return "cancelled";
    await say(sid, `slept ${ms}`);
    return "end_turn";
  }
  if ((m = /^perms\s+(\d+)/.exec(body))) return permsTurn(sid, Number(m[1]), signal);
  if ((m = /^perm-odd\s+(.*)$/s.exec(body))) return permTurn(sid, m[1].trim(), signal, ODD_OPTIONS);
  if ((m = /^perm\s+(.*)$/s.exec(body))) return permTurn(sid, m[1].trim(), signal);
  await say(sid, "got: " + last);
  return "end_turn";
}

const app = acp
  .agent({ name: "mcp-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: HTTP, sse: false },
    },
    agentInfo: { name: "mcp-agent", title: "MCP Agent", version: "0.1.0" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async ({ params }) => {
    const sessionId = "mcps_" + randomUUID();
    remember(sessionId, params);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params }) => {
    // Any id loads (nothing to replay): what matters is the new mcpServers.
    remember(params.sessionId, params);
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    const s = sessions.get(sid);
    if (!s) throw acp.RequestError.sessionNotFound(sid);
    s.abort?.abort(); // a new prompt aborts the previous turn
    const ac = new AbortController();
    s.abort = ac;
    let stopReason;
    try {
      stopReason = await turn(sid, s, render(params.prompt), ac.signal);
    } finally {
      if (s.abort === ac) s.abort = null;
    }
    return { stopReason: ac.signal.aborted ? "cancelled" : stopReason };
  })
  .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    sessions.get(params.sessionId)?.abort?.abort();
  });

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
client = conn.client;
await conn.closed;
log("connection closed");
process.exit(0);

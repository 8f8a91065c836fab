// ts-agent.mjs: the ACP agent of bench/bridge-bench, on the official SDK
// (the copy installed for the tests in tests/agents/node_modules).
//
// On a prompt whose text ends with "go <n> [<pause_ms> [<tag>]]" it streams
// n lines, each one its own agent_message_chunk ending in "\n":
//
//     t=1733140000123.456 seq=17 tag=m
//
// t is the wall-clock time in milliseconds (sub-millisecond precision), read
// just before the chunk is handed to the SDK, which serialises it and writes
// it to stdout. Between two chunks it waits pause_ms (default 5), so each
// chunk goes through the daemon on its own instead of queueing behind the
// previous one. Anything else is answered with one line of usage.
//
// The clock: performance.now() is monotonic with sub-microsecond resolution;
// its offset to the wall clock is calibrated at start against Date.now()
// (whole milliseconds, rounded down) by taking the largest Date.now() -
// performance.now() over a few milliseconds of samples, which is the offset
// to within a few microseconds. Python's time.time() on the other side reads
// the same CLOCK_REALTIME.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";

// The SDK lives in tests/agents/node_modules; a bare import from bench/agents
// would not find it (NODE_PATH does not apply to ES modules).
const sdkFrom = process.env.TS_AGENT_SDK_FROM ||
  new URL("../../tests/agents/package.json", import.meta.url).pathname;
const acp = await import(pathToFileURL(createRequire(sdkFrom).resolve("@agentclientprotocol/sdk")).href);

const log = (...a) => console.error("[ts-agent]", ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function calibrate() {
  // Sample until Date.now() has ticked over three times: the best sample is
  // the one taken just after a tick.
  let off = -Infinity, ticks = 0, last = Date.now();
  while (ticks < 3) {
    const d = Date.now();
    const p = performance.now();
    off = Math.max(off, d - p);
    if (d !== last) {
      ticks++;
      last = d;
    }
  }
  return off;
}
const OFFSET = calibrate();
const wallMs = () => OFFSET + performance.now();

const sessions = new Map(); // id -> AbortController of the running turn
let client;
const say = (sessionId, text) => client.notify(acp.methods.client.session.update, {
  sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});

function promptText(blocks) {
  return blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

async function turn(sid, text, signal) {
  // The message answered comes last, after any transcript.
  const all = [...text.matchAll(/\bgo\s+(\d+)(?:\s+(\d+(?:\.\d+)?))?(?:\s+([A-Za-z0-9_-]+))?/g)];
  if (all.length === 0) {
    await say(sid, "usage: go <lines> [<pause_ms> [<tag>]]\n");
    return "end_turn";
  }
  const m = all[all.length - 1];
  const n = Math.min(Number(m[1]), 1000000);
  const pause = m[2] !== undefined ? Number(m[2]) : 5;
  const tag = m[3] || "x";
  for (let seq = 0; seq < n; seq++) {
    if (signal.aborted) return "cancelled";
    await say(sid, `t=${wallMs().toFixed(3)} seq=${seq} tag=${tag}\n`);
    if (pause > 0 && seq + 1 < n) await sleep(pause);
  }
  return "end_turn";
}

const app = acp
  .agent({ name: "ts-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: false,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
    },
    agentInfo: { name: "ts-agent", title: "Timestamp agent (bench)", version: "0.1.0" },
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async () => {
    const sessionId = "sess_" + randomUUID();
    sessions.set(sessionId, null);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
    const sid = params.sessionId;
    if (!sessions.has(sid)) throw acp.RequestError.sessionNotFound(sid);
    sessions.get(sid)?.abort();
    const ac = new AbortController();
    sessions.set(sid, ac);
    let stopReason;
    try {
      stopReason = await turn(sid, promptText(params.prompt), ac.signal);
    } finally {
      if (sessions.get(sid) === ac) sessions.set(sid, null);
    }
    return { stopReason: ac.signal.aborted ? "cancelled" : stopReason };
  })
  .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    sessions.get(params.sessionId)?.abort();
  });

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
client = conn.client;
log(`ready, clock offset ${OFFSET.toFixed(3)} ms`);
await conn.closed;
process.exit(0);

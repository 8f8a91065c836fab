#!/usr/bin/env python3
"""A scripted model on loopback, for real ACP adapters in the tests (issue 23).

Speaks just enough of the Anthropic Messages API (POST /v1/messages, streaming SSE or
one JSON answer) for claude-agent-acp, of the OpenAI Responses API (POST
/v1/responses, streamed) for codex-acp, and of the Gemini API (generateContent and
streamGenerateContent?alt=sse, the model router's JSON call included) for gemini-cli,
to answer offline. What it answers is decided by the last user text of the request:

  TOOLCALL   a file write, so the adapter asks for permission: fake-toolcall.txt in
             the session's working directory (claude: Write, the directory read
             from the system prompt; codex: apply_patch, relative; gemini:
             write_file, in the directory written after TOOLCALL)
  SHELLCALL  a command that writes fake-shellcall.txt (claude: Bash, codex:
             exec_command, gemini: run_shell_command), asked about too
  MCPCALL    agentircd's schedule tool: "ring from the fake model" in 1 s (claude:
             mcp__agentircd__schedule, codex: schedule in the namespace
             mcp__agentircd, gemini: mcp_agentircd_schedule)
  PLANCALL   a plan of three entries, then text (claude: TodoWrite, codex:
             update_plan; gemini has no plan tool)
  SLOW       forty words, 0.1 s apart (a turn to cancel)
  otherwise  "echo: <the last line of the user's text>"

After a tool result it answers "done: <the result's first line>". Every request is
appended to the log file as one JSON line (method, path, the last user text, the
tool results, the tools offered, and "earlier": the conversation before it), for the
tests to read. Loopback only; the standard library only.

    fake_model.py PORTFILE LOGFILE     # binds 127.0.0.1:0, writes the port to PORTFILE
"""

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()
# MCPCALL: agentircd's schedule tool, a prompt a second from now.
MCP_ARGS = {"name": "fake", "prompt": "ring from the fake model", "in_seconds": 1}
# PLANCALL: three steps, one done, one under way.
PLAN = (("Read the question", "completed"), ("Think it over", "in_progress"),
        ("Answer", "pending"))
# SLOW: forty words, 0.1 s apart, a turn to cancel.
SLOW_TEXT = " ".join("word%d" % i for i in range(40))
# SHELLCALL: a command that is not read-only, run in the session's directory.
SHELL = "echo shell > fake-shellcall.txt"


def texts_of(content):
    """The text parts of a message's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return [content]
    out = []
    for b in content or []:
        if isinstance(b, dict) and b.get("type") == "text":
            out.append(b.get("text", ""))
    return out


def tool_results_of(content):
    out = []
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "tool_result":
            c = b.get("content")
            if isinstance(c, list):
                c = "\n".join(texts_of(c))
            out.append(str(c or ""))
    return out


def strings_in(o):
    """Every string value in a parsed JSON value, in order."""
    if isinstance(o, str):
        return [o]
    if isinstance(o, dict):
        return [t for v in o.values() for t in strings_in(v)]
    if isinstance(o, list):
        return [t for v in o for t in strings_in(v)]
    return []


def earlier(items):
    """What a request carries before its last item (the conversation so far, as the
    agent gave it back to the model), as text, cut at 20000 characters."""
    return "\n".join(strings_in(items[:-1]))[:20000] if isinstance(items, list) else ""


def system_text(req):
    s = req.get("system")
    if isinstance(s, str):
        return s
    return "\n".join(texts_of(s))


def cwd_of(req):
    """The session's working directory, as Claude Code's system prompt (or, failing
    that, its first user message) names it."""
    first = (req.get("messages") or [{}])[0]
    for text in (system_text(req), "\n".join(texts_of(first.get("content")))):
        m = re.search(r"(?:Primary working directory|Working directory|cwd): *(/\S+)", text)
        if m:
            return m.group(1)
    return None


def decide(req):
    """(blocks, stop_reason): what to answer, as content blocks."""
    msgs = req.get("messages") or []
    last = msgs[-1] if msgs else {}
    results = tool_results_of(last.get("content"))
    if results:
        first = results[0].strip().splitlines()[0] if results[0].strip() else ""
        return [{"type": "text", "text": "done: " + first}], "end_turn"
    words = "\n".join(texts_of(last.get("content"))).strip()
    line = words.splitlines()[-1].strip() if words else ""
    # What is asked is on the last line: earlier ones are context (an
    # interrupted request, the transcript).
    words = line
    if "TOOLCALL" in words:
        cwd = cwd_of(req)
        if cwd is None:
            return [{"type": "text", "text": "no working directory in the prompt"}], \
                "end_turn"
        path = cwd.rstrip("/") + "/fake-toolcall.txt"
        return [{"type": "tool_use", "id": "toolu_fake_write", "name": "Write",
                 "input": {"file_path": path, "content": "written by the fake model\n"}}], \
            "tool_use"
    if "MCPCALL" in words:
        # agentircd's own MCP tool, as claude names it: mcp__<server>__<tool>.
        return [{"type": "tool_use", "id": "toolu_fake_mcp",
                 "name": "mcp__agentircd__schedule",
                 "input": MCP_ARGS}], "tool_use"
    if "SHELLCALL" in words:
        return [{"type": "tool_use", "id": "toolu_fake_bash", "name": "Bash",
                 "input": {"command": SHELL, "description": "Write a file"}}], \
            "tool_use"
    if "PLANCALL" in words:
        todos = [{"content": c, "status": s, "activeForm": c} for c, s in PLAN]
        return [{"type": "tool_use", "id": "toolu_fake_plan", "name": "TodoWrite",
                 "input": {"todos": todos}}], "tool_use"
    if "SLOW" in words:
        return [{"type": "text", "text": SLOW_TEXT, "slow": True}], "end_turn"
    return [{"type": "text", "text": "echo: " + line}], "end_turn"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model/1"

    def log_message(self, fmt, *args):
        pass

    def record(self, what):
        with LOG_LOCK, open(self.server.logfile, "a") as f:
            f.write(json.dumps(what) + "\n")

    def do_HEAD(self):
        # claude's reachability probe: headers only.
        self.record({"method": "HEAD", "path": self.path})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.record({"method": "GET", "path": self.path})
        self.send_error(404)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            req = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            self.send_error(400)
            return
        if self.path.startswith("/v1/responses"):
            self.answer_responses(req)
            return
        if self.path.startswith("/v1beta/models/"):
            self.answer_gemini(req)
            return
        if not self.path.startswith("/v1/messages"):
            self.record({"method": "POST", "path": self.path})
            self.send_error(404)
            return
        msgs = req.get("messages") or []
        last = msgs[-1] if msgs else {}
        self.record({"method": "POST", "path": self.path,
                     "user": "\n".join(texts_of(last.get("content"))),
                     "tool_results": tool_results_of(last.get("content")),
                     "tools": [t.get("name") for t in req.get("tools") or []],
                     "cwd": cwd_of(req), "earlier": earlier(msgs)})
        blocks, stop = decide(req)
        if req.get("stream"):
            self.stream(req, blocks, stop)
        else:
            self.whole(req, blocks, stop)

    def message(self, req, content, stop):
        return {"id": "msg_fake_%d" % int(time.time() * 1000), "type": "message",
                "role": "assistant", "model": req.get("model", "claude-fake"),
                "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10}}

    def whole(self, req, blocks, stop):
        self.json_reply(self.message(req, [{k: v for k, v in b.items() if k != "slow"}
                                           for b in blocks], stop))

    def json_reply(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def sse_start(self):
        """Headers of a server-sent event stream, which ends with the connection."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, name, data):
        self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
        self.wfile.flush()

    def stream(self, req, blocks, stop):
        self.sse_start()
        try:
            self.event("message_start", {"type": "message_start",
                                         "message": self.message(req, [], None)})
            for i, b in enumerate(blocks):
                if b["type"] == "text":
                    self.event("content_block_start", {
                        "type": "content_block_start", "index": i,
                        "content_block": {"type": "text", "text": ""}})
                    words = b["text"].split(" ")
                    for k, w in enumerate(words):
                        piece = w if k == 0 else " " + w
                        self.event("content_block_delta", {
                            "type": "content_block_delta", "index": i,
                            "delta": {"type": "text_delta", "text": piece}})
                        if b.get("slow"):
                            time.sleep(0.1)
                else:
                    self.event("content_block_start", {
                        "type": "content_block_start", "index": i,
                        "content_block": {"type": "tool_use", "id": b["id"],
                                          "name": b["name"], "input": {}}})
                    self.event("content_block_delta", {
                        "type": "content_block_delta", "index": i,
                        "delta": {"type": "input_json_delta",
                                  "partial_json": json.dumps(b["input"])}})
                self.event("content_block_stop", {"type": "content_block_stop", "index": i})
            self.event("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop,
                                                   "stop_sequence": None},
                                         "usage": {"output_tokens": 10}})
            self.event("message_stop", {"type": "message_stop"})
        except (BrokenPipeError, ConnectionResetError):
            pass        # a cancelled turn: the client went away


def responses_user(req):
    """The last user text and the tool outputs after it, of a Responses request."""
    texts, outputs = [], []
    for item in req.get("input") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            out = item.get("output")
            if isinstance(out, dict):
                out = out.get("content", "")
            outputs.append(str(out))
        elif item.get("role") == "user":
            texts = [c.get("text", "") for c in item.get("content") or []
                     if isinstance(c, dict) and c.get("type") == "input_text"]
            outputs = []
    return "\n".join(texts), outputs


def responses_decide(req):
    """Output items of one response, for codex."""
    words, outputs = responses_user(req)
    if outputs:
        # codex wraps a tool's output: "Wall time: …", then "Output:".
        out = outputs[-1]
        if "\nOutput:\n" in out:
            out = out.split("\nOutput:\n", 1)[1]
        first = out.strip().splitlines()
        return [{"type": "message", "text": "done: " + (first[0] if first else "")}]
    if "TOOLCALL" in words:
        patch = ("*** Begin Patch\n*** Add File: fake-toolcall.txt\n"
                 "+written by the fake model\n*** End Patch\n")
        return [{"type": "custom_tool_call", "call_id": "call_fake_patch",
                 "name": "apply_patch", "input": patch}]
    if "SHELLCALL" in words:
        return [{"type": "function_call", "call_id": "call_fake_shell",
                 "name": "exec_command", "arguments": json.dumps({"cmd": SHELL})}]
    if "MCPCALL" in words:
        # codex offers an MCP server's tools as a namespace, mcp__<server>.
        return [{"type": "function_call", "call_id": "call_fake_mcp",
                 "namespace": "mcp__agentircd", "name": "schedule",
                 "arguments": json.dumps(MCP_ARGS)}]
    if "PLANCALL" in words:
        return [{"type": "function_call", "call_id": "call_fake_plan",
                 "name": "update_plan", "arguments": json.dumps({"plan": [
                     {"step": c, "status": s} for c, s in PLAN]})}]
    if "SLOW" in words:
        return [{"type": "message", "text": SLOW_TEXT, "slow": True}]
    line = words.strip().splitlines()[-1].strip() if words.strip() else ""
    return [{"type": "message", "text": "echo: " + line}]


def _responses(self, req):
    words, outputs = responses_user(req)
    self.record({"method": "POST", "path": self.path, "user": words,
                 "tool_results": outputs, "earlier": earlier(req.get("input")),
                 "tools": [t.get("name") for t in req.get("tools") or []
                           if isinstance(t, dict)]})
    items = responses_decide(req)
    rid = "resp_fake_%d" % int(time.time() * 1000)
    self.sse_start()
    done = []
    try:
        self.event("response.created", {"type": "response.created",
                                         "response": {"id": rid}})
        for i, it in enumerate(items):
            if it["type"] == "message":
                mid = "msg_fake_%d" % i
                self.event("response.output_item.added", {
                    "type": "response.output_item.added", "output_index": i,
                    "item": {"type": "message", "id": mid, "role": "assistant",
                             "content": []}})
                for k, w in enumerate(it["text"].split(" ")):
                    self.event("response.output_text.delta", {
                        "type": "response.output_text.delta", "item_id": mid,
                        "output_index": i, "content_index": 0,
                        "delta": w if k == 0 else " " + w})
                    if it.get("slow"):
                        time.sleep(0.1)
                item = {"type": "message", "id": mid, "role": "assistant",
                        "content": [{"type": "output_text", "text": it["text"],
                                     "annotations": []}]}
            else:
                item = dict(it, id="ctc_fake_%d" % i, status="completed")
                self.event("response.output_item.added", {
                    "type": "response.output_item.added", "output_index": i,
                    "item": item})
            self.event("response.output_item.done", {
                "type": "response.output_item.done", "output_index": i, "item": item})
            done.append(item)
        self.event("response.completed", {
            "type": "response.completed",
            "response": {"id": rid, "output": done, "usage": {
                "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 20}}})
    except (BrokenPipeError, ConnectionResetError):
        pass


Handler.answer_responses = _responses


def gemini_user(req):
    """The last user turn's text parts, and the function responses in it."""
    texts, results = [], []
    for turn in req.get("contents") or []:
        if not isinstance(turn, dict) or turn.get("role") != "user":
            continue
        texts, results = [], []
        for part in turn.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if "text" in part:
                texts.append(str(part["text"]))
            if "functionResponse" in part:
                results.append(json.dumps(part["functionResponse"].get("response")))
    return texts, results


def gemini_decide(req):
    """(parts, router): the parts of the answer; router for the JSON-mode side call."""
    gc = req.get("generationConfig") or {}
    if gc.get("responseJsonSchema") or gc.get("responseSchema") or \
            gc.get("responseMimeType") == "application/json":
        return [{"text": json.dumps({"complexity_reasoning": "a test",
                                     "complexity_score": 1})}], True
    texts, results = gemini_user(req)
    if results:
        return [{"text": "done: " + results[-1][:200]}], False
    words = texts[-1] if texts else ""       # the user's words are the last part
    if "SHELLCALL" in words:
        return [{"functionCall": {"name": "run_shell_command", "args": {
            "command": SHELL, "description": "Write a file"}}}], False
    if "MCPCALL" in words:
        # gemini names an MCP server's tools mcp_<server>_<tool>.
        return [{"functionCall": {"name": "mcp_agentircd_schedule",
                                  "args": MCP_ARGS}}], False
    if "SLOW" in words:
        return [{"text": SLOW_TEXT, "slow": True}], False
    m = re.search(r"TOOLCALL (/\S+)", words)
    if m:
        path = m.group(1).rstrip("/") + "/fake-toolcall.txt"
        return [{"functionCall": {"name": "write_file", "args": {
            "file_path": path, "content": "written by the fake model\n"}}}], False
    line = words.strip().splitlines()[-1].strip() if words.strip() else ""
    return [{"text": "echo: " + line}], False


def _gemini(self, req):
    texts, results = gemini_user(req)
    self.record({"method": "POST", "path": self.path,
                 "user": texts[-1] if texts else "", "tool_results": results,
                 "earlier": earlier(req.get("contents")),
                 "tools": [d.get("name") for t in req.get("tools") or []
                           if isinstance(t, dict)
                           for d in t.get("functionDeclarations") or []
                           if isinstance(d, dict)]})
    parts, router = gemini_decide(req)
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20}

    def chunk(ps, final):
        c = {"content": {"role": "model", "parts": ps}, "index": 0}
        if final:
            c["finishReason"] = "STOP"
        out = {"candidates": [c]}
        if final:
            out["usageMetadata"] = usage
        return out
    if ":streamGenerateContent" not in self.path:
        self.json_reply(chunk([{k: v for k, v in p.items() if k != "slow"}
                               for p in parts], True))
        return
    self.sse_start()
    try:
        pieces = []
        slow = any(p.get("slow") for p in parts)
        for p in parts:
            if "text" in p and not router:
                words = p["text"].split(" ")
                pieces += [{"text": w if k == 0 else " " + w} for k, w in enumerate(words)]
            else:
                pieces.append(p)
        for k, p in enumerate(pieces):
            data = json.dumps(chunk([p], k == len(pieces) - 1))
            self.wfile.write(("data: %s\r\n\r\n" % data).encode())
            self.wfile.flush()
            if slow:
                time.sleep(0.1)
    except (BrokenPipeError, ConnectionResetError):
        pass


Handler.answer_gemini = _gemini


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fake_model.py PORTFILE LOGFILE")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.logfile = sys.argv[2]
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()

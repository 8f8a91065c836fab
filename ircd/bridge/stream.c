/*
 * stream.c: an agent's answer as IRC lines (TN-3, TN-4, TN-5). What it
 * streams is cut into lines, stored and sent as they complete; code
 * fences keep their lines, paragraphs go to draft/multiline clients as
 * one batch, typing notifications show it is at work, each tool call is
 * one ACTION line, and the answer waits for readers who fall behind.
 */
#include "compat.h"

#include <event2/event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/cap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/xmalloc.h"

/* TN-3: typing notifications, at most every 3 seconds. */
#define TYPING_SEC	3
/* A streamed line longer than this is cut (between words) before sending. */
#define STREAM_MAX	(64 * 1024)
/*
 * Backpressure (TN-4: no text is ever dropped). An agent can say a few MB
 * in one chunk, far faster than people read: queued to every member at
 * once, it would cost each its SendQ. So after every slice of a quarter
 * SendQ the rest waits, and with it everything else the agent says (its
 * input is held), until no member has more than half a SendQ queued. A
 * member that stays over half for OUT_WAIT_MS is waited for no longer:
 * the answer goes on and its SendQ decides, as for any traffic.
 */
#define OUT_LINE_COST	512	/* wire bytes of a line besides its text, at most */
#define OUT_POLL_MS	20
#define OUT_WAIT_MS	10000

static void stream_paragraph_end(struct conv *, struct turn *);

/* Send one line (no CR/LF) from the agent in cv, stored first (HS-2). */
void
stream_send(struct conv *cv, struct turn *t, const char *cmd, const char *text,
    size_t len, int action)
{
	struct agent *a = cv->agent;
	struct outmsg om;
	struct member_filter f = { .except = a->client };
	const char *where;
	char body[IRC_LINELEN], ctags[96];
	int para;

	/* AG-5: a leading \x01 would make it CTCP. */
	while (len > 0 && text[0] == '\x01') {
		text++;
		len--;
	}
	if (len == 0)
		return;
	if (action)
		snprintf(body, sizeof(body), "\x01" "ACTION %.*s\x01", (int)len, text);
	else
		snprintf(body, sizeof(body), "%.*s", (int)len, text);
	if ((where = conv_where(cv)) == NULL)
		return;
	memset(&om, 0, sizeof(om));
	om.from = a->client;
	om.cmd = cmd;
	om.target = where;
	om.text = body;
	if (t != NULL && t->msgid[0] != '\0') {
		snprintf(ctags, sizeof(ctags), "+reply=%s", t->msgid);
		om.ctags = ctags;
	}
	outmsg_render(&om);
	if (history_add(a->client, cv->key, &om) == -1)
		return;
	/*
	 * TN-4: clients with draft/multiline get the paragraph as one batch
	 * when it ends; the others each line as it comes.
	 */
	para = t != NULL && !action && strcmp(cmd, "PRIVMSG") == 0;
	if (para) {
		if (t->para == NULL)
			t->para = xcalloc(MULTILINE_MAX_LINES, sizeof(*t->para));
		if (t->npara == MULTILINE_MAX_LINES)
			stream_paragraph_end(cv, t);
		t->para[t->npara++] = om;
		f.skip_caps = CAP_MULTILINE;
	} else if (t != NULL)
		stream_paragraph_end(cv, t);
	if (!cv->private)
		dispatch_spoke(where, a);
	conv_deliver(cv, &f, &om);
}

/* The paragraph ends: multiline clients get it now, as one batch. */
static void
stream_paragraph_end(struct conv *cv, struct turn *t)
{
	char reply[96];
	size_t i;

	if (t->npara == 0)
		return;
	/*
	 * The copies were made from pointers into stream_send's stack: point
	 * them at their own line again, and at the reply tag of this turn.
	 */
	snprintf(reply, sizeof(reply), "+reply=%s", t->msgid);
	for (i = 0; i < t->npara; i++) {
		char *colon = strstr(t->para[i].line, " :");

		t->para[i].text = colon != NULL ? colon + 2 : "";
		t->para[i].target = cv->target;
		t->para[i].ctags = t->msgid[0] != '\0' ? reply : NULL;
		t->para[i].cmd = "PRIVMSG";
	}
	conv_deliver_batch(cv, t->para, t->npara);
	t->npara = 0;
}

static void
stream_say(struct conv *cv, struct turn *t, const char *text, size_t len,
    int action)
{
	stream_send(cv, t, "PRIVMSG", text, len, action);
}

struct say {
	struct conv	*cv;
	struct turn	*t;
};

static void
stream_say_piece(const char *piece, size_t len, void *arg)
{
	struct say *s = arg;

	stream_say(s->cv, s->t, piece, len, 0);
}

/* The bytes a line may carry after ":nick!agent@host PRIVMSG target :". */
static size_t
stream_budget(const struct conv *cv)
{
	const struct client *c = cv->agent->client;
	size_t fixed = 14 + 10 + strlen(c->nick) + strlen(c->user) +
	    strlen(c->host) + strlen(cv->target) + 16;	/* +reply room */

	return fixed < IRC_LINELEN - 64 ? IRC_LINELEN - fixed : 64;
}

/* One complete line of the answer: code fences keep their lines (TN-4). */
static void
stream_line(struct conv *cv, struct turn *t, const char *line, size_t len)
{
	struct say s = { cv, t };
	size_t i = 0;

	t->sent += len + OUT_LINE_COST * (1 + len / stream_budget(cv));
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i >= 3 && strncmp(line + i, "```", 3) == 0)
		t->in_fence = !t->in_fence;
	if (i == len) {
		/* Blank lines are not sent, except inside code, as one space. */
		if (t->in_fence)
			stream_say(cv, t, " ", 1, 0);
		else
			stream_paragraph_end(cv, t);
		return;
	}
	message_split(line, len, stream_budget(cv), stream_say_piece, &s);
}

/*
 * Send the complete lines so far (all: the rest too). As a chunk comes
 * (all == 0) only while the slice has room: returns 1 when lines wait.
 */
static int
stream_flush(struct conv *cv, struct turn *t, int all)
{
	size_t start = 0, i, slice = ircd.conf->sendq / 4;
	int full = 0;

	for (i = 0; i < t->len; i++) {
		if (t->buf[i] != '\n')
			continue;
		if (!all && t->sent >= slice) {
			full = 1;
			break;
		}
		stream_line(cv, t, t->buf + start, i - start);
		start = i + 1;
	}
	if (all && start < t->len) {
		stream_line(cv, t, t->buf + start, t->len - start);
		start = t->len;
	}
	/* A line that never ends is sent in pieces rather than kept growing. */
	if (!all && !full && t->len - start > STREAM_MAX) {
		stream_line(cv, t, t->buf + start, t->len - start);
		start = t->len;
	}
	if (start > 0) {
		memmove(t->buf, t->buf + start, t->len - start);
		t->len -= start;
	}
	return full;
}

/* The next check comes after ms, and after this loop turn's output left. */
static void
stream_drain_later(struct turn *t, int ms)
{
	struct timeval tv = { 0, ms * 1000 };

	evtimer_add(t->drain, &tv);
}

static void
stream_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct turn *t = arg;
	struct conv *cv = t->conv;
	uint64_t now = server_now_ms();

	(void)fd;
	(void)what;
	if (!t->cancelled && conv_congested(cv)) {
		if (t->wait_since == 0)
			t->wait_since = now;
		if (now - t->wait_since < OUT_WAIT_MS) {
			stream_drain_later(t, OUT_POLL_MS);
			return;
		}
		/* Waited enough: go on, and wait no more until it clears. */
	} else
		t->wait_since = 0;
	t->sent = 0;
	if (stream_flush(cv, t, 0)) {
		stream_drain_later(t, 0);
		return;
	}
	t->held = 0;
	acp_agent_hold(cv->agent->acp, 0);
}

/* Lines wait: so does the agent, until the members have read. */
static void
stream_hold(struct conv *cv, struct turn *t)
{
	if (t->drain == NULL)
		t->drain = evtimer_new(ircd.base, stream_drain_cb, t);
	if (!t->held) {
		t->held = 1;
		acp_agent_hold(cv->agent->acp, 1);
	}
	stream_drain_later(t, 0);
}

/* A chunk of the answer: the lines it completes go out (TN-4). */
void
stream_text(struct turn *t, const char *text, size_t len)
{
	struct conv *cv = t->conv;

	if (t->len + len + 1 > t->cap) {
		t->cap = (t->len + len + 1) * 2;
		t->buf = xreallocarray(t->buf, t->cap, 1);
	}
	memcpy(t->buf + t->len, text, len);
	t->len += len;
	if (!t->held && stream_flush(cv, t, 0))
		stream_hold(cv, t);
}

void
stream_turn_free(struct turn *t)
{
	if (t->drain != NULL)
		event_free(t->drain);
	t->drain = NULL;
	if (t->held)
		acp_agent_hold(t->conv->agent->acp, 0);
	t->held = 0;
}

static void
stream_typing(struct conv *cv, const char *state)
{
	struct outmsg om;
	struct member_filter f = { .except = cv->agent->client };
	char ctags[32];

	memset(&om, 0, sizeof(om));
	om.from = cv->agent->client;
	om.cmd = "TAGMSG";
	om.target = cv->target;
	om.tagmsg = 1;
	snprintf(ctags, sizeof(ctags), "+typing=%s", state);
	om.ctags = ctags;
	outmsg_render(&om);
	conv_deliver(cv, &f, &om);
}

static void
stream_typing_cb(evutil_socket_t fd, short what, void *arg)
{
	struct turn *t = arg;

	(void)fd;
	(void)what;
	stream_typing(t->conv, "active");
}

/* TN-3: "active" now and every TYPING_SEC while the turn runs. */
void
stream_typing_start(struct turn *t)
{
	struct timeval tv = { TYPING_SEC, 0 };

	stream_typing(t->conv, "active");
	t->typing = event_new(ircd.base, -1, EV_PERSIST, stream_typing_cb, t);
	event_add(t->typing, &tv);
}

/*
 * The turn ends: the rest of the answer goes out (rest; not after a
 * !stop), its last paragraph too, and the typing stops.
 */
void
stream_end(struct turn *t, int rest)
{
	struct conv *cv = t->conv;

	if (rest)
		stream_flush(cv, t, 1);
	stream_paragraph_end(cv, t);
	if (t->typing != NULL) {
		event_free(t->typing);
		t->typing = NULL;
	}
	stream_typing(cv, "done");
}

/* Nothing more is said for t: what waits is dropped (TN-6, AG-2). */
void
stream_silence(struct turn *t)
{
	t->cancelled = 1;
	if (t->held) {
		/* Its answer to the cancel waits behind the hold: let it come. */
		t->len = 0;
		stream_drain_later(t, 0);
	}
}

static const char *
stream_tool_verb(const char *kind)
{
	static const struct { const char *kind, *verb; } verbs[] = {
		{ "read", "read" }, { "edit", "edited" }, { "delete", "deleted" },
		{ "move", "moved" }, { "search", "searched" },
		{ "execute", "ran" }, { "think", "thought about" },
		{ "fetch", "fetched" },
	};
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (kind != NULL && strcmp(kind, verbs[i].kind) == 0)
			return verbs[i].verb;
	return "used";
}

/* TN-5: a finished tool call is one ACTION line, once per call. */
void
stream_tool(struct turn *t, const struct acp_tool *tool)
{
	struct conv *cv = t->conv;
	const char *what;
	char line[IRC_LINELEN];
	size_t i;
	int failed;

	failed = strcmp(tool->status, "failed") == 0;
	if (!failed && strcmp(tool->status, "completed") != 0)
		return;
	if (cv->agent->conf->tools != NULL &&
	    strcmp(cv->agent->conf->tools, "hide") == 0)
		return;
	/* TN-5: once per tool call. */
	for (i = 0; i < t->ntools; i++)
		if (strcmp(t->tools[i], tool->id) == 0)
			return;
	if (t->ntools < sizeof(t->tools) / sizeof(t->tools[0]))
		t->tools[t->ntools++] = xstrdup(tool->id);
	/* Whatever was streamed before the tool goes out before it. */
	stream_flush(cv, t, 1);
	what = tool->path != NULL ? tool->path : tool->title;
	snprintf(line, sizeof(line), "%s %s%s", stream_tool_verb(tool->kind), what,
	    failed ? " \xe2\x80\x94 failed" : "");
	for (i = 0; line[i] != '\0'; i++)
		if (line[i] == '\r' || line[i] == '\n')
			line[i] = ' ';
	stream_say(cv, t, line, message_utf8_trunc(line, strlen(line),
	    stream_budget(cv) - 10), 1);
}

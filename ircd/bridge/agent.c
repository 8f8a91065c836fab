/*
 * agent.c: agents as IRC users. Each configured agent is a registered
 * client without a connection (AG-1); what people say to it becomes
 * turns of its ACP sessions, one session per conversation (SS-1), and
 * what it streams back becomes PRIVMSG lines from it (TN-4), stored in
 * history with +reply to the message it answers (HS-4).
 */
#include "compat.h"

#include <event2/event.h>
#include <cjson/cJSON.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/agentcmd.h"
#include "ircd/cap.h"
#include "ircd/bridge/card.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "ircd/bridge/mcp.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/numeric.h"
#include "ircd/bridge/prompt.h"
#include "ircd/reply.h"
#include "ircd/bridge/route.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/turn.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

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

static TAILQ_HEAD(, agent) all_agents = TAILQ_HEAD_INITIALIZER(all_agents);
static struct acp_pool *pool;
static const struct client_ops agent_ops;
static const struct acp_callbacks agent_callbacks;
static struct event *trim_ev;
static uint64_t conv_clock;
/* RT-3: casefolded channel name -> the agent that spoke there last. */
static struct dict *last_spoke;

static void agent_trim_soon(void);
static void agent_turn_silence(struct turn *);

static void
agent_acp_log(enum acp_log_level lvl, const char *msg, void *arg)
{
	(void)arg;
	switch (lvl) {
	case ACP_LOG_DEBUG: log_debug("acp: %s", msg); break;
	case ACP_LOG_INFO: log_info("acp: %s", msg); break;
	default: log_warnx("acp: %s", msg); break;
	}
}

static struct agent *
agent_of(const struct client *c)
{
	return c->ops == &agent_ops ? c->priv : NULL;	/* NULL after shutdown */
}

struct agent *
agent_of_client(const struct client *c)
{
	return agent_of(c);
}

struct agent *
agent_find(const char *nick)
{
	struct client *c = client_find(nick);

	return c != NULL ? agent_of(c) : NULL;
}

const struct agent_cmd *
agent_cmd_find(const struct agent *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ncmds; i++)
		if (strcmp(a->cmds[i].name, name) == 0)
			return &a->cmds[i];
	return NULL;
}

/* ---- conversations ---- */

static struct conv *
conv_find(struct agent *a, const char *key)
{
	struct conv *cv;

	TAILQ_FOREACH(cv, &a->convs, entry)
		if (strcmp(cv->key, key) == 0)
			return cv;
	return NULL;
}

static struct conv *
conv_get(struct agent *a, const char *key, const char *target, int private)
{
	struct conv *cv = conv_find(a, key);
	char sid[256] = "";
	int64_t seen = 0;

	if (cv != NULL) {
		strlcpy(cv->target, target, sizeof(cv->target));
		cv->used = ++conv_clock;
		return cv;
	}
	cv = xcalloc(1, sizeof(*cv));
	cv->agent = a;
	strlcpy(cv->key, key, sizeof(cv->key));
	strlcpy(cv->target, target, sizeof(cv->target));
	cv->private = private;
	cv->used = ++conv_clock;
	/* SS-4: a stored session id is resumed (session/load) when it can be. */
	if (store_session_get(history_store(), a->client->nick, key, sid,
	    sizeof(sid), &seen) != 0)
		sid[0] = '\0';
	cv->seen_id = seen;
	cv->session = acp_session_new(a->acp, sid[0] != '\0' ? sid : NULL, cv);
	TAILQ_INSERT_TAIL(&a->convs, cv, entry);
	/* SEC-3: the session's own token to the server's MCP tools. */
	{
		char *mcp = mcp_servers_json(cv), *mcp_http = mcp_servers_http_json(cv);

		if (mcp != NULL)
			acp_session_set_mcp(cv->session, mcp, mcp_http);
		cJSON_free(mcp);
		cJSON_free(mcp_http);
	}
	agent_trim_soon();
	return cv;
}

/*
 * Forget a conversation; one that is answering goes when its turn ends,
 * and says nothing more meanwhile: it was taken out (AG-2).
 */
static void
conv_free(struct conv *cv)
{
	turn_drop_conv(cv);
	if (cv->turn != NULL) {
		cv->closing = 1;
		agent_turn_silence(cv->turn);
		acp_session_cancel(cv->session);
		return;
	}
	card_drop_conv(cv);
	mcp_forget(cv);
	TAILQ_REMOVE(&cv->agent->convs, cv, entry);
	acp_session_free(cv->session);
	free(cv);
}

/*
 * May cv be forgotten without anyone noticing? Nothing runs, waits or
 * asks in it, it has no !policy of its own (kept only here), and the
 * agent holds no session for it, or holds one it can close and take back.
 */
static int
conv_idle(struct conv *cv)
{
	if (cv->turn != NULL || cv->opening || cv->closing ||
	    cv->policy[0] != '\0' || turn_conv_waiting(cv) || card_conv_open(cv))
		return 0;
	if (acp_session_is_closed(cv->session))
		return 1;
	return acp_session_is_open(cv->session) &&
	    !acp_session_in_turn(cv->session) &&
	    acp_agent_can_reopen(cv->agent->acp);
}

/*
 * SEC-4: every conversation an agent is spoken to in (each person who
 * writes to it privately, too) has a session, which costs the agent
 * (some run a process per session) and the server. Past
 * max-open-sessions, the least recently used idle conversations are
 * forgotten and their sessions closed (session/close). The session id
 * stays stored, so the next message there takes it back (SS-4).
 * This runs from the loop, never under a caller holding a conversation.
 */
static void
agent_trim_cb(evutil_socket_t fd, short what, void *arg)
{
	struct agent *a;
	struct conv *cv, *lru;
	size_t n;

	(void)fd;
	(void)what;
	(void)arg;
	TAILQ_FOREACH(a, &all_agents, entry) {
		n = 0;
		TAILQ_FOREACH(cv, &a->convs, entry)
			n++;
		while (n > (size_t)ircd.conf->max_open_sessions) {
			lru = NULL;
			TAILQ_FOREACH(cv, &a->convs, entry)
				if ((lru == NULL || cv->used < lru->used) &&
				    conv_idle(cv))
					lru = cv;
			if (lru == NULL)
				break;
			log_debug("%s: closing the idle session of %s",
			    a->client->nick, lru->key);
			conv_free(lru);
			n--;
		}
	}
}

static void
agent_trim_soon(void)
{
	if (trim_ev == NULL)
		trim_ev = event_new(ircd.base, -1, 0, agent_trim_cb, NULL);
	event_active(trim_ev, 0, 0);
}

void
agent_conv_notice(struct conv *cv, const char *fmt, ...)
{
	char text[IRC_LINELEN];
	va_list ap;
	struct channel *ch;
	struct client *c;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!cv->private && (ch = channel_find(cv->target)) != NULL)
		channel_send(ch, NULL, ":%s NOTICE %s :%s", ircd.conf->name,
		    ch->name, text);
	else if (cv->private && (c = client_find(cv->target)) != NULL)
		reply_notice(c, "%s", text);
}

/* ---- who spoke last in a channel (RT-3) ---- */

static void
agent_spoke(const struct channel *ch, struct agent *a)
{
	char key[CHANNELLEN + 1];

	if (last_spoke == NULL)
		last_spoke = dict_new();
	casemap_fold(key, ch->name, sizeof(key));
	dict_set(last_spoke, key, a);
}

static const char *
agent_last_spoke(const struct channel *ch)
{
	char key[CHANNELLEN + 1];
	struct agent *a;

	if (last_spoke == NULL)
		return NULL;
	casemap_fold(key, ch->name, sizeof(key));
	return (a = dict_get(last_spoke, key)) != NULL ? a->client->nick : NULL;
}

void
agent_channel_gone(const struct channel *ch)
{
	char key[CHANNELLEN + 1];

	if (last_spoke == NULL)
		return;
	casemap_fold(key, ch->name, sizeof(key));
	dict_del(last_spoke, key);
}

/* ---- what the agent says ---- */

/* Send one line (no CR/LF) from the agent in cv, stored first (HS-2). */
static void agent_paragraph_end(struct conv *, struct turn *);

static void
agent_send(struct conv *cv, struct turn *t, const char *cmd, const char *text,
    size_t len, int action)
{
	struct agent *a = cv->agent;
	struct outmsg om;
	struct channel *ch = NULL;
	struct client *peer = NULL;
	struct member *m;
	char body[IRC_LINELEN], ctags[96];

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
	if (cv->private)
		peer = client_find(cv->target);
	else if ((ch = channel_find(cv->target)) == NULL)
		return;
	memset(&om, 0, sizeof(om));
	om.from = a->client;
	om.cmd = cmd;
	om.target = cv->private ? cv->target : ch->name;
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
	if (t != NULL && !action && strcmp(cmd, "PRIVMSG") == 0) {
		if (t->para == NULL)
			t->para = xcalloc(MULTILINE_MAX_LINES, sizeof(*t->para));
		if (t->npara == MULTILINE_MAX_LINES)
			agent_paragraph_end(cv, t);
		t->para[t->npara++] = om;
	} else if (t != NULL)
		agent_paragraph_end(cv, t);
	if (ch != NULL) {
		agent_spoke(ch, a);
		TAILQ_FOREACH(m, &ch->members, by_channel)
			if (m->client != a->client && (om.tagmsg || action ||
			    t == NULL || strcmp(cmd, "PRIVMSG") != 0 ||
			    !(m->client->caps & CAP_MULTILINE)))
				m->client->ops->deliver(m->client, &om);
	} else if (peer != NULL && (t == NULL || action ||
	    strcmp(cmd, "PRIVMSG") != 0 || !(peer->caps & CAP_MULTILINE)))
		peer->ops->deliver(peer, &om);
}

/* The paragraph ends: multiline clients get it now, as one batch. */
static void
agent_paragraph_end(struct conv *cv, struct turn *t)
{
	struct channel *ch;
	struct client *peer;
	struct member *m;
	char reply[96];
	size_t i;

	if (t->npara == 0)
		return;
	/*
	 * The copies were made from pointers into agent_send's stack: point
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
	if (!cv->private && (ch = channel_find(cv->target)) != NULL) {
		TAILQ_FOREACH(m, &ch->members, by_channel)
			if (m->client != cv->agent->client &&
			    (m->client->caps & CAP_MULTILINE))
				multiline_deliver(m->client, t->para, t->npara, NULL);
	} else if (cv->private && (peer = client_find(cv->target)) != NULL &&
	    (peer->caps & CAP_MULTILINE))
		multiline_deliver(peer, t->para, t->npara, NULL);
	t->npara = 0;
}

static void
agent_say(struct conv *cv, struct turn *t, const char *text, size_t len,
    int action)
{
	agent_send(cv, t, "PRIVMSG", text, len, action);
}

void
agent_emit(struct conv *cv, const char *cmd, const char *text)
{
	agent_send(cv, NULL, cmd, text, message_utf8_trunc(text, strlen(text),
	    IRC_LINELEN - 100), 0);
}

struct say {
	struct conv	*cv;
	struct turn	*t;
};

static void
agent_say_piece(const char *piece, size_t len, void *arg)
{
	struct say *s = arg;

	agent_say(s->cv, s->t, piece, len, 0);
}

/* The bytes a line may carry after ":nick!agent@host PRIVMSG target :". */
static size_t
agent_budget(const struct conv *cv)
{
	const struct client *c = cv->agent->client;
	size_t fixed = 14 + 10 + strlen(c->nick) + strlen(c->user) +
	    strlen(c->host) + strlen(cv->target) + 16;	/* +reply room */

	return fixed < IRC_LINELEN - 64 ? IRC_LINELEN - fixed : 64;
}

/* One complete line of the answer: code fences keep their lines (TN-4). */
static void
agent_line(struct conv *cv, struct turn *t, const char *line, size_t len)
{
	struct say s = { cv, t };
	size_t i = 0;

	t->sent += len + OUT_LINE_COST * (1 + len / agent_budget(cv));
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i >= 3 && strncmp(line + i, "```", 3) == 0)
		t->in_fence = !t->in_fence;
	if (i == len) {
		/* Blank lines are not sent, except inside code, as one space. */
		if (t->in_fence)
			agent_say(cv, t, " ", 1, 0);
		else
			agent_paragraph_end(cv, t);
		return;
	}
	message_split(line, len, agent_budget(cv), agent_say_piece, &s);
}

/*
 * Send the complete lines so far (all: the rest too). As a chunk comes
 * (all == 0) only while the slice has room: returns 1 when lines wait.
 */
static int
agent_flush(struct conv *cv, struct turn *t, int all)
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
		agent_line(cv, t, t->buf + start, i - start);
		start = i + 1;
	}
	if (all && start < t->len) {
		agent_line(cv, t, t->buf + start, t->len - start);
		start = t->len;
	}
	/* A line that never ends is sent in pieces rather than kept growing. */
	if (!all && !full && t->len - start > STREAM_MAX) {
		agent_line(cv, t, t->buf + start, t->len - start);
		start = t->len;
	}
	if (start > 0) {
		memmove(t->buf, t->buf + start, t->len - start);
		t->len -= start;
	}
	return full;
}

/* Has a member of the conversation more than half its SendQ queued? */
static int
agent_congested(const struct conv *cv)
{
	size_t half = ircd.conf->sendq / 2;
	const struct channel *ch;
	const struct member *m;
	const struct client *peer;

	if (cv->private)
		return (peer = client_find(cv->target)) != NULL &&
		    peer->conn != NULL && conn_sendq(peer->conn) > half;
	if ((ch = channel_find(cv->target)) == NULL)
		return 0;
	TAILQ_FOREACH(m, &ch->members, by_channel)
		if (m->client->conn != NULL && conn_sendq(m->client->conn) > half)
			return 1;
	return 0;
}

/* The next check comes after ms, and after this loop turn's output left. */
static void
agent_drain_later(struct turn *t, int ms)
{
	struct timeval tv = { 0, ms * 1000 };

	evtimer_add(t->drain, &tv);
}

static void
agent_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct turn *t = arg;
	struct conv *cv = t->conv;
	uint64_t now = server_now_ms();

	(void)fd;
	(void)what;
	if (!t->cancelled && agent_congested(cv)) {
		if (t->wait_since == 0)
			t->wait_since = now;
		if (now - t->wait_since < OUT_WAIT_MS) {
			agent_drain_later(t, OUT_POLL_MS);
			return;
		}
		/* Waited enough: go on, and wait no more until it clears. */
	} else
		t->wait_since = 0;
	t->sent = 0;
	if (agent_flush(cv, t, 0)) {
		agent_drain_later(t, 0);
		return;
	}
	t->held = 0;
	acp_agent_hold(cv->agent->acp, 0);
}

/* Lines wait: so does the agent, until the members have read. */
static void
agent_hold(struct conv *cv, struct turn *t)
{
	if (t->drain == NULL)
		t->drain = evtimer_new(ircd.base, agent_drain_cb, t);
	if (!t->held) {
		t->held = 1;
		acp_agent_hold(cv->agent->acp, 1);
	}
	agent_drain_later(t, 0);
}

void
agent_turn_free(struct turn *t)
{
	if (t->drain != NULL)
		event_free(t->drain);
	t->drain = NULL;
	if (t->held)
		acp_agent_hold(t->conv->agent->acp, 0);
	t->held = 0;
}

static void
agent_typing(struct conv *cv, const char *state)
{
	struct outmsg om;
	struct channel *ch;
	struct client *peer;
	struct member *m;
	char ctags[32];

	memset(&om, 0, sizeof(om));
	om.from = cv->agent->client;
	om.cmd = "TAGMSG";
	om.target = cv->target;
	om.tagmsg = 1;
	snprintf(ctags, sizeof(ctags), "+typing=%s", state);
	om.ctags = ctags;
	outmsg_render(&om);
	if (!cv->private && (ch = channel_find(cv->target)) != NULL) {
		TAILQ_FOREACH(m, &ch->members, by_channel)
			if (m->client != om.from)
				m->client->ops->deliver(m->client, &om);
	} else if (cv->private && (peer = client_find(cv->target)) != NULL)
		peer->ops->deliver(peer, &om);
}

static void
agent_typing_cb(evutil_socket_t fd, short what, void *arg)
{
	struct turn *t = arg;

	(void)fd;
	(void)what;
	agent_typing(t->conv, "active");
}

/* ---- turns ---- */

struct collect {
	struct prompt_line	*lines;
	size_t			 n, cap;
};

static void
agent_collect(const struct store_msg *sm, void *arg)
{
	struct collect *c = arg;

	/* CM-6: the server's own ! commands are never the agents' business. */
	if (agentcmd_is_server(sm->text))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->lines = xreallocarray(c->lines, c->cap, sizeof(*c->lines));
	}
	c->lines[c->n].nick = xstrdup(sm->nick);
	c->lines[c->n].text = xstrdup(sm->text);
	c->lines[c->n].hid = sm->id;
	c->n++;
}

static void
agent_turn_send(struct turn *t)
{
	struct conv *cv = t->conv;
	struct agent *a = cv->agent;
	struct store *st = history_store();
	struct collect col = { NULL, 0, 0 };
	struct acp_prompt *p;
	struct timeval tv = { TYPING_SEC, 0 };
	char where[CHANNELLEN + 64], *text;
	size_t i;

	/*
	 * CM-2: a slash command goes as the exact text, with no transcript,
	 * so the agent recognises it by its first character; what it missed
	 * meanwhile waits for the next ordinary prompt.
	 */
	if (t->text[0] == '/') {
		p = acp_prompt_new();
		acp_prompt_text(p, t->text);
		goto send;
	}
	/*
	 * One more than the limit: the message answered, when it is the last,
	 * is not part of the transcript (prompt.c leaves it out).
	 */
	if (cv->carry)
		store_history_query(st, cv->key, STORE_LATEST, NULL, NULL,
		    ircd.conf->transcript_lines + 1, agent_collect, &col);
	else if (ircd.conf->transcript_lines > 0)
		store_history_since(st, cv->key, cv->seen_id, a->client->nick,
		    ircd.conf->transcript_lines + 1, agent_collect, &col);
	if (col.n > (size_t)ircd.conf->transcript_lines &&
	    (col.n == 0 || col.lines[col.n - 1].hid != t->hid)) {
		/* The answered message is not last: keep the newest limit. */
		free((char *)(uintptr_t)col.lines[0].nick);
		free((char *)(uintptr_t)col.lines[0].text);
		memmove(col.lines, col.lines + 1, --col.n * sizeof(*col.lines));
	}
	if (cv->private)
		snprintf(where, sizeof(where), "private conversation with %s",
		    cv->target);
	else
		strlcpy(where, cv->target, sizeof(where));
	text = prompt_build(where, col.lines, col.n, t->hid, cv->carry,
	    t->speaker, t->text, (size_t)ircd.conf->transcript_chars);
	for (i = 0; i < col.n; i++) {
		free((char *)(uintptr_t)col.lines[i].nick);
		free((char *)(uintptr_t)col.lines[i].text);
	}
	free(col.lines);
	p = acp_prompt_new();
	acp_prompt_text(p, text);
	free(text);
	/* Everything up to now is in this prompt, or was let go (SS-2). */
	cv->seen_id = store_history_last_id(st, cv->key);
	cv->carry = 0;
	store_session_set(st, a->client->nick, cv->key, NULL, cv->seen_id);
send:
	if (acp_session_prompt(cv->session, p) == -1) {
		agent_conv_notice(cv, "%s cannot answer now%s%s", a->client->nick,
		    acp_agent_broken(a->acp) ? ": " : "",
		    acp_agent_broken(a->acp) ? acp_agent_broken_reason(a->acp) : "");
		turn_done(t);
		return;
	}
	agent_typing(cv, "active");
	t->typing = event_new(ircd.base, -1, EV_PERSIST, agent_typing_cb, t);
	event_add(t->typing, &tv);
}

void
agent_turn_start(struct turn *t)
{
	struct conv *cv = t->conv;

	cv->used = ++conv_clock;
	if (acp_session_is_open(cv->session)) {
		agent_turn_send(t);
		return;
	}
	/* Open first, so the prompt knows whether the session remembers (SS-4). */
	cv->opening = 1;
	if (acp_session_open(cv->session) == -1) {
		cv->opening = 0;
		agent_conv_notice(cv, "%s cannot start: %s", cv->agent->client->nick,
		    acp_agent_broken(cv->agent->acp) ?
		    acp_agent_broken_reason(cv->agent->acp) : "unknown error");
		turn_done(t);
	}
}

/* Nothing more is said for t: what waits is dropped (TN-6, AG-2). */
static void
agent_turn_silence(struct turn *t)
{
	t->cancelled = 1;
	if (t->held) {
		/* Its answer to the cancel waits behind the hold: let it come. */
		t->len = 0;
		agent_drain_later(t, 0);
	}
}

void
agent_turn_cancel(struct turn *t)
{
	/* TN-6: nothing more is said for a cancelled turn. */
	agent_turn_silence(t);
	if (t->conv->opening)
		return;		/* on_open ends it */
	acp_session_cancel(t->conv->session);
}

/* ---- ACP callbacks ---- */

static void
agent_on_open(struct acp_session *s, enum acp_open_how how, const char *error,
    void *arg)
{
	struct conv *cv = arg;
	struct agent *a = cv->agent;
	struct turn *t = cv->turn;

	(void)s;
	cv->opening = 0;
	if (how == ACP_OPEN_FAILED) {
		if (t != NULL) {
			agent_conv_notice(cv, "%s could not open a session: %s",
			    a->client->nick, error != NULL ? error : "unknown error");
			turn_done(t);
		}
		return;
	}
	/* A new session where the conversation has a past: give it the past. */
	if (how == ACP_OPEN_NEW && cv->seen_id > 0)
		cv->carry = 1;
	/* SS-4, PM-5: the mode chosen here is applied again, after a restart too. */
	{
		char mkey[200], mode[64];
		const char *cur = acp_session_mode(cv->session);

		snprintf(mkey, sizeof(mkey), "mode.%s.%s", a->client->nick, cv->key);
		if (store_kv_get(history_store(), mkey, mode, sizeof(mode)) == 0 &&
		    (cur == NULL || strcmp(cur, mode) != 0))
			acp_session_set_mode(cv->session, mode);
	}
	store_session_set(history_store(), a->client->nick, cv->key,
	    acp_session_id(cv->session), -1);
	if (t != NULL)
		agent_turn_send(t);
}

static void
agent_on_text(struct acp_session *s, const struct acp_text *txt, void *arg)
{
	struct conv *cv = arg;
	struct turn *t = cv->turn;

	(void)s;
	/* SS-4: a load's replay is old; TN-5: thoughts are not shown. */
	if (txt->replay || txt->kind != ACP_TEXT_AGENT || t == NULL || t->cancelled)
		return;
	if (t->len + txt->len + 1 > t->cap) {
		t->cap = (t->len + txt->len + 1) * 2;
		t->buf = xreallocarray(t->buf, t->cap, 1);
	}
	memcpy(t->buf + t->len, txt->text, txt->len);
	t->len += txt->len;
	if (!t->held && agent_flush(cv, t, 0))
		agent_hold(cv, t);
}

static const char *
agent_tool_verb(const char *kind)
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

static void
agent_on_tool(struct acp_session *s, const struct acp_tool *tool, void *arg)
{
	struct conv *cv = arg;
	struct turn *t = cv->turn;
	const char *what;
	char line[IRC_LINELEN];
	size_t i;
	int failed;

	(void)s;
	if (tool->replay || t == NULL || tool->status == NULL || t->cancelled)
		return;
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
	agent_flush(cv, t, 1);
	what = tool->path != NULL ? tool->path : tool->title;
	snprintf(line, sizeof(line), "%s %s%s", agent_tool_verb(tool->kind), what,
	    failed ? " \xe2\x80\x94 failed" : "");
	for (i = 0; line[i] != '\0'; i++)
		if (line[i] == '\r' || line[i] == '\n')
			line[i] = ' ';
	agent_say(cv, t, line, message_utf8_trunc(line, strlen(line),
	    agent_budget(cv) - 10), 1);
}

static void
agent_on_permission(struct acp_session *s, const struct acp_permission *p,
    void *arg)
{
	struct conv *cv = arg;
	const char *policy = cv->policy[0] != '\0' ? cv->policy :
	    cv->agent->conf->permissions != NULL ? cv->agent->conf->permissions : "ask";
	const char *kind = p->tool != NULL ? p->tool->kind : NULL;
	enum acp_perm_kind want;
	size_t i;

	/* PM-4: the policy answers what it can; a person answers the rest. */
	if (strcmp(policy, "allow-all") == 0 || (strcmp(policy, "allow-reads") == 0 &&
	    kind != NULL && (strcmp(kind, "read") == 0 || strcmp(kind, "search") == 0)))
		want = ACP_PERM_ALLOW_ONCE;
	else if (strcmp(policy, "deny-all") == 0)
		want = ACP_PERM_REJECT_ONCE;
	else {
		card_open(cv, cv->turn, p);
		return;
	}
	for (i = 0; i < p->noptions; i++)
		if (p->options[i].kind == want)
			break;
	card_auto(cv, p, policy, i < p->noptions ? &p->options[i] : NULL);
	acp_session_permit(s, p->id, i < p->noptions ? p->options[i].id : NULL);
}

static void
agent_on_permission_gone(struct acp_session *s, uint64_t id, void *arg)
{
	(void)s;
	card_gone(arg, id);
}

static void
agent_free_cmds(struct agent *a)
{
	size_t i;

	for (i = 0; i < a->ncmds; i++) {
		free(a->cmds[i].name);
		free(a->cmds[i].description);
		free(a->cmds[i].hint);
	}
	free(a->cmds);
	a->cmds = NULL;
	a->ncmds = 0;
}

static void
agent_add_cmd(struct agent *a, const char *name, const char *desc, const char *hint)
{
	struct agent_cmd *c;

	if (name == NULL || name[0] == '\0' || a->ncmds >= 256)
		return;
	a->cmds = xreallocarray(a->cmds, a->ncmds + 1, sizeof(*a->cmds));
	c = &a->cmds[a->ncmds++];
	c->name = xstrdup(name[0] == '/' ? name + 1 : name);
	c->description = xstrdup(desc != NULL ? desc : "");
	c->hint = hint != NULL ? xstrdup(hint) : NULL;
}

/* CM-1: the list is kept in the database, known after a restart. */
static void
agent_save_cmds(struct agent *a)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	char key[NICKLEN + 16], *json;
	size_t i;

	for (i = 0; i < a->ncmds; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", a->cmds[i].name);
		cJSON_AddStringToObject(o, "description", a->cmds[i].description);
		if (a->cmds[i].hint != NULL)
			cJSON_AddStringToObject(o, "hint", a->cmds[i].hint);
		cJSON_AddItemToArray(arr, o);
	}
	json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	snprintf(key, sizeof(key), "agent.commands.%s", a->client->nick);
	if (json != NULL)
		store_kv_set(history_store(), key, json);
	cJSON_free(json);
}

static void
agent_load_cmds(struct agent *a)
{
	char key[NICKLEN + 16], buf[65536];
	cJSON *arr, *o;

	snprintf(key, sizeof(key), "agent.commands.%s", a->client->nick);
	if (store_kv_get(history_store(), key, buf, sizeof(buf)) != 0)
		return;
	if ((arr = cJSON_Parse(buf)) == NULL)
		return;
	cJSON_ArrayForEach(o, arr)
		agent_add_cmd(a, cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(o, "description")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(o, "hint")));
	cJSON_Delete(arr);
	a->cmds_known = 1;
}

static void
agent_on_commands(struct acp_session *s, const struct acp_command *cmds,
    size_t n, void *arg)
{
	struct conv *cv = arg;
	struct agent *a = cv->agent;
	size_t i;

	(void)s;
	agent_free_cmds(a);
	for (i = 0; i < n; i++)
		agent_add_cmd(a, cmds[i].name, cmds[i].description, cmds[i].hint);
	a->cmds_known = 1;
	agent_save_cmds(a);
}

static void
agent_on_turn_end(struct acp_session *s, const struct acp_turn_end *e, void *arg)
{
	struct conv *cv = arg;
	struct turn *t = cv->turn;
	const char *nick = cv->agent->client->nick;

	(void)s;
	if (t == NULL)
		return;
	/*
	 * TN-6: after !stop, nothing more than what was already streamed.
	 * (While the agent is held no turn ends: acp_agent_hold().)
	 */
	if ((e->stop != ACP_STOP_CANCELLED && !e->cancelled) || e->timed_out)
		agent_flush(cv, t, 1);
	agent_paragraph_end(cv, t);
	if (t->typing != NULL) {
		event_free(t->typing);
		t->typing = NULL;
	}
	agent_typing(cv, "done");
	switch (e->stop) {
	case ACP_STOP_END_TURN:
		break;
	case ACP_STOP_CANCELLED:
		/* TN-8: cancelled by the watchdog, not by a person. */
		if (e->timed_out)
			agent_conv_notice(cv, "%s took too long and was stopped%s%s",
			    nick, e->error ? ": " : "", e->error ? e->error : "");
		break;
	case ACP_STOP_MAX_TOKENS:
		agent_conv_notice(cv, "%s stopped: it reached its token limit", nick);
		break;
	case ACP_STOP_MAX_TURN_REQUESTS:
		agent_conv_notice(cv, "%s stopped: too many requests in one turn", nick);
		break;
	case ACP_STOP_REFUSAL:
		agent_conv_notice(cv, "%s refused to answer", nick);
		break;
	case ACP_STOP_ERROR:
		if (e->timed_out)
			agent_conv_notice(cv, "%s took too long and was stopped%s%s",
			    nick, e->error ? ": " : "", e->error ? e->error : "");
		else if (!e->cancelled)
			agent_conv_notice(cv, "%s failed: %s", nick,
			    e->error != NULL ? e->error : "unknown error");
		break;
	}
	turn_done(t);
	/* A conversation closed (KICK) while it answered goes now. */
	if (cv->closing)
		conv_free(cv);
	/* One that could not be closed while it answered may go now. */
	agent_trim_soon();
}

/* AG-1: the realname becomes the agent's own title once it is known. */
static void
agent_on_ready(struct acp_agent *acp, void *arg)
{
	struct agent *a = arg;
	const char *title = acp_agent_title(acp);

	if (title != NULL && title[0] != '\0')
		client_set_realname(a->client, title, strlen(title));
}

static void
agent_on_exit(struct acp_agent *acp, const struct acp_exit *e, void *arg)
{
	struct agent *a = arg;

	(void)acp;
	log_info("agent %s: process ended (%s)%s", a->client->nick,
	    e->reason != NULL ? e->reason : "?",
	    e->broken ? "; marked broken" : "");
	if (e->broken && a->active != NULL)
		agent_conv_notice(a->active, "%s is broken (%s); INVITE it again "
		    "to retry", a->client->nick, e->reason != NULL ? e->reason : "?");
}

static const struct acp_callbacks agent_callbacks = {
	.on_ready = agent_on_ready,
	.on_open = agent_on_open,
	.on_text = agent_on_text,
	.on_tool = agent_on_tool,
	.on_permission = agent_on_permission,
	.on_permission_gone = agent_on_permission_gone,
	.on_commands = agent_on_commands,
	.on_turn_end = agent_on_turn_end,
	.on_agent_exit = agent_on_exit,
};

int
agent_help(struct client *c, const char *subject)
{
	struct agent *a, *only = agent_find(subject);
	char line[IRC_LINELEN];
	size_t i;

	if (only == NULL && strcasecmp(subject, "agents") != 0)
		return 0;
	reply(c, RPL_HELPSTART, subject, "Agents and the commands they announced; "
	    "type //cmd (WeeChat, HexChat), /say /cmd (irssi) or !cmd");
	TAILQ_FOREACH(a, &all_agents, entry) {
		if (only != NULL && a != only)
			continue;
		snprintf(line, sizeof(line), "%s: %s", a->client->nick,
		    a->ncmds > 0 ? "" : (a->cmds_known ? "no commands" :
		    "commands not known yet"));
		reply(c, RPL_HELPTXT, subject, line);
		for (i = 0; i < a->ncmds; i++) {
			snprintf(line, sizeof(line), "  /%s:%s%s%s%s  %s",
			    a->client->nick, a->cmds[i].name,
			    a->cmds[i].hint ? " <" : "", a->cmds[i].hint ? a->cmds[i].hint : "",
			    a->cmds[i].hint ? ">" : "", a->cmds[i].description);
			reply(c, RPL_HELPTXT, subject, line);
		}
	}
	reply(c, RPL_ENDOFHELP, subject, "End of /HELP");
	return 1;
}

/* ---- mentions of people who are away (RT-8) ---- */

static int
agent_account_online(const char *account)
{
	struct client *c;

	TAILQ_FOREACH(c, &ircd.all, entry)
		if (c->account != NULL && casemap_cmp(c->account, account) == 0)
			return 1;
	return 0;
}

/* Keep "@name" mentions of configured accounts nobody is logged in as. */
static void
agent_keep_mentions(struct client *from, struct channel *ch, struct outmsg *om)
{
	const char *p = om->text;
	size_t i;

	while ((p = strchr(p, '@')) != NULL) {
		char word[NICKLEN + 1], folded[NICKLEN + 1];
		size_t n = 0;

		/* An @ glued to the word before it is no mention (sam@host). */
		if (p != om->text && p[-1] != ' ') {
			p++;
			continue;
		}
		for (p++; *p != '\0' && n < NICKLEN && strchr(" .,:;!?)", *p) == NULL; p++)
			word[n++] = *p;
		word[n] = '\0';
		if (n == 0 || client_find(word) != NULL)
			continue;	/* here, or an agent: not this rule */
		for (i = 0; i < ircd.conf->naccounts; i++) {
			struct store_mention sm;

			if (casemap_cmp(ircd.conf->accounts[i].name, word) != 0 ||
			    agent_account_online(word))
				continue;
			casemap_fold(folded, ircd.conf->accounts[i].name, sizeof(folded));
			sm.account = folded;
			sm.target = ch->name;
			sm.from = from->nick;
			sm.time = om->time_ms;
			sm.text = om->text;
			store_mention_add(history_store(), &sm);
			break;
		}
	}
}

struct told {
	struct client	*c;
	char		 target[CHANNELLEN + 1];
	unsigned	 more;
};

static void
agent_told_flush(struct told *t)
{
	if (t->more > 0)
		reply_notice(t->c, "... and %u more mention%s in %s", t->more,
		    t->more == 1 ? "" : "s", t->target);
	t->more = 0;
}

static void
agent_tell_one(const struct store_mention *sm, void *arg)
{
	struct told *t = arg;
	char ts[32], *words;
	time_t secs = (time_t)(sm->time / 1000);
	struct tm tm;

	/* One NOTICE per channel: the first mention, then how many more. */
	if (strcmp(t->target, sm->target) == 0) {
		t->more++;
		return;
	}
	agent_told_flush(t);
	strlcpy(t->target, sm->target, sizeof(t->target));
	gmtime_r(&secs, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M UTC", &tm);
	words = prompt_shorten(sm->text, 80);
	reply_notice(t->c, "While you were away, %s mentioned you in %s at %s: %s",
	    sm->from, sm->target, ts, words);
	free(words);
}

void
agent_tell_mentions(struct client *c)
{
	struct told t;
	char folded[NICKLEN * 2 + 1];

	if (c->account == NULL || history_store() == NULL)
		return;
	memset(&t, 0, sizeof(t));
	t.c = c;
	casemap_fold(folded, c->account, sizeof(folded));
	store_mention_take(history_store(), folded, agent_tell_one, &t);
	agent_told_flush(&t);
}

/* ---- routing (RT) ---- */

struct conv *
agent_conv(struct agent *a, const char *key, const char *target, int private)
{
	return conv_get(a, key, target, private);
}

struct conv *
agent_conv_find(struct agent *a, const char *key)
{
	return conv_find(a, key);
}

int
agent_session_stored(struct agent *a, const char *key)
{
	char sid[256];
	int64_t seen;

	return store_session_get(history_store(), a->client->nick, key, sid,
	    sizeof(sid), &seen) == 0 && sid[0] != '\0';
}

void
agent_ask(struct agent *a, struct client *from, const char *key,
    const char *target, int private, const char *text, struct outmsg *om)
{
	struct conv *cv = conv_get(a, key, target, private);

	turn_enqueue(cv, from, from->nick, text, om->msgid, om->hid);
}

/*
 * An agent joins ch at asker's word (a mention, INVITE, a command). It
 * keeps to max-channels like anyone: an agent stays in a channel until
 * KICKed, and keeps the channel alive, so without a limit one person could
 * create channels without end (SEC-4). Refused: asker is told, and -1.
 */
int
agent_join(struct agent *a, struct client *asker, struct channel *ch)
{
	int maxch = ircd.conf->max_channels;

	if (channel_member(ch, a->client) != NULL)
		return 0;
	if (a->client->nchannels >= (unsigned)maxch) {
		reply_notice(asker, "%s cannot join %s: it is in %d channels, the "
		    "most it may be in; /kick it from one first", a->client->nick,
		    ch->name, maxch);
		return -1;
	}
	channel_add(ch, a->client, 0);
	channel_send(ch, NULL, ":%s JOIN %s", a->client->prefix, ch->name);
	return 0;
}

/* AG-2: -1 when an agent mentioned could not come (agent_join said why). */
static int
agent_join_mentioned(struct client *from, struct channel *ch, const char *text)
{
	struct agent *a;
	const char *p;
	int ret = 0;

	for (p = text; (p = strchr(p, '@')) != NULL; p++) {
		char word[NICKLEN + 1];
		size_t n = 0;
		const char *q;

		if (p != text && p[-1] != ' ' && p[-1] != '(')
			continue;
		for (q = p + 1; *q != '\0' && n < NICKLEN &&
		    strchr(" .,:;!?)'\"", *q) == NULL; q++)
			word[n++] = *q;
		word[n] = '\0';
		if ((a = agent_find(word)) != NULL && agent_join(a, from, ch) == -1)
			ret = -1;
	}
	return ret;
}

void
agent_channel_message(struct client *from, struct channel *ch, struct outmsg *om)
{
	const char *agents[ROUTE_MAX * 8], *humans[256];
	struct agent *byidx[ROUTE_MAX * 8];
	struct route_names names;
	struct route_result r;
	struct member *m;
	size_t na = 0, nh = 0, i;
	char key[CHANNELLEN + 1];

	/* RT-6: notices, CTCP, bots and agents start nothing. */
	if (om->text == NULL || om->text[0] == '\x01' || (from->umodes & UMODE_BOT) ||
	    agent_of(from) != NULL)
		return;
	history_channel_conv(ch, key, sizeof(key));
	if (ircd.conf->naccounts > 0)
		agent_keep_mentions(from, ch, om);
	if (ch->nservices == 0 && TAILQ_EMPTY(&all_agents))
		return;
	/* SC-5: a person writing here (not a ! command) releases what was held. */
	if (!agentcmd_is_server(om->text))
		schedule_person_spoke(key);
	/* CM: slash commands, and the server's own ! commands. */
	if (agentcmd_channel(from, ch, key, om))
		return;
	/*
	 * AG-2: an @mention of a known agent not here yet brings it in first,
	 * so that routing sees it like the others (order, RT-4, RT-5). A
	 * message naming one that cannot come starts nothing: no other agent
	 * answers in its place.
	 */
	if (agent_join_mentioned(from, ch, om->text) == -1)
		return;
	TAILQ_FOREACH(m, &ch->members, by_channel) {
		struct agent *a = agent_of(m->client);

		if (a != NULL && na < sizeof(agents) / sizeof(agents[0])) {
			byidx[na] = a;
			agents[na++] = a->client->nick;
		} else if (a == NULL && nh < sizeof(humans) / sizeof(humans[0]))
			humans[nh++] = m->client->nick;
	}
	names.agents = agents;
	names.nagents = na;
	names.humans = humans;
	names.nhumans = nh;
	names.last_speaker = agent_last_spoke(ch);
	route_decide(om->text, &names, &r);
	switch (r.outcome) {
	case ROUTE_DISPATCH:
		for (i = 0; i < r.nagents; i++) {
			struct agent *a = byidx[r.agents[i]];
			struct conv *cv = conv_get(a, key, ch->name, 0);

			turn_enqueue(cv, from, from->nick, r.text, om->msgid, om->hid);
		}
		break;
	case ROUTE_AMBIGUOUS: {
		char list[IRC_LINELEN] = "";

		for (i = 0; i < r.ncandidates; i++) {
			if (i > 0)
				strlcat(list, ", ", sizeof(list));
			strlcat(list, agents[r.candidates[i]], sizeof(list));
		}
		reply_notice(from, "\"%s\" could be %s: say which", r.word, list);
		break;
	}
	case ROUTE_CHOOSE: {
		char list[IRC_LINELEN] = "";

		for (i = 0; i < na; i++) {
			if (i > 0)
				strlcat(list, ", ", sizeof(list));
			strlcat(list, "@", sizeof(list));
			strlcat(list, agents[i], sizeof(list));
		}
		reply_notice(from, "Several agents are in %s; name the one you "
		    "mean: %s", ch->name, list);
		break;
	}
	case ROUTE_NONE:
		break;
	}
	route_result_free(&r);
}

/* ---- the agent's client ops ---- */

static void
agent_op_send(struct client *c, const char *line, size_t len)
{
	/* Numerics and notices to an agent have no reader. */
	(void)c;
	(void)line;
	(void)len;
}

static void
agent_op_deliver(struct client *c, struct outmsg *m)
{
	/* Channel traffic reaches agents through history and routing. */
	(void)c;
	(void)m;
}

static void
agent_op_release(struct client *c, const char *reason)
{
	(void)c;
	(void)reason;
}

static void
agent_op_joined(struct client *c, struct channel *ch)
{
	struct agent *a = c->priv;
	char key[CHANNELLEN + 1];

	history_channel_conv(ch, key, sizeof(key));
	store_agent_join(history_store(), a->client->nick, key, ch->name);
}

static void
agent_op_parted(struct client *c, struct channel *ch)
{
	struct agent *a = c->priv;
	struct conv *cv;
	char key[CHANNELLEN + 1];

	if (ircd.stopping || a == NULL)
		return;		/* shutting down: memberships stay stored */
	history_channel_conv(ch, key, sizeof(key));
	store_agent_part(history_store(), a->client->nick, key);
	/* AG-2: KICK takes it out and closes its session there. */
	store_session_delete(history_store(), a->client->nick, key);
	/* SC-7: its schedules made in or aimed at the channel end too. */
	schedule_drop(a, key);
	if ((cv = conv_find(a, key)) != NULL)
		conv_free(cv);
}

static void
agent_op_invited(struct client *c, struct client *from, struct channel *ch)
{
	struct agent *a = c->priv;

	/* TN-9: an invitation also forgives a broken agent. */
	acp_agent_reset(a->acp);
	agent_join(a, from, ch);
}

static void
agent_op_message(struct client *to, struct client *from, struct outmsg *om)
{
	struct agent *a = to->priv;
	char p1[128], p2[128], key[160];
	struct conv *cv;

	/* RT-6 and RT-7: a person's private PRIVMSG always reaches the agent. */
	if (om->tagmsg || strcmp(om->cmd, "PRIVMSG") != 0 || om->text[0] == '\x01' ||
	    (from->umodes & UMODE_BOT) || agent_of(from) != NULL)
		return;
	history_principal(from, p1, sizeof(p1));
	history_principal(to, p2, sizeof(p2));
	store_private_key(key, sizeof(key), p1, p2);
	if (!agentcmd_is_server(om->text))
		schedule_person_spoke(key);
	if (agentcmd_private(from, a, key, om))
		return;
	cv = conv_get(a, key, from->nick, 1);
	turn_enqueue(cv, from, from->nick, om->text, om->msgid, om->hid);
}

static void
agent_op_whois(struct client *c, struct client *asker)
{
	struct agent *a = c->priv;
	char state[IRC_LINELEN];
	const char *info = acp_agent_info(a->acp);
	size_t queued = turn_queued_for(a);

	reply(asker, RPL_WHOISSPECIAL, c->nick, "is an AI coding agent");
	if (info != NULL)
		reply(asker, RPL_WHOISSPECIAL, c->nick, info);
	if (acp_agent_broken(a->acp))
		snprintf(state, sizeof(state), "state: broken (%s)",
		    acp_agent_broken_reason(a->acp));
	else if (a->active != NULL)
		snprintf(state, sizeof(state), "state: answering in %s",
		    a->active->private ? "a private conversation" : a->active->target);
	else if (!acp_agent_running(a->acp))
		strlcpy(state, "state: stopped", sizeof(state));
	else if (!acp_agent_ready(a->acp))
		strlcpy(state, "state: starting", sizeof(state));
	else
		strlcpy(state, "state: idle", sizeof(state));
	if (queued > 0) {
		char q[32];

		snprintf(q, sizeof(q), ", queued: %zu", queued);
		strlcat(state, q, sizeof(state));
	}
	reply(asker, RPL_WHOISSPECIAL, c->nick, state);
	/* AG-3: its commands with their input hints, and its mode here. */
	{
		char line[IRC_LINELEN] = "commands:";
		size_t i;

		for (i = 0; i < a->ncmds; i++) {
			char one[160];

			snprintf(one, sizeof(one), " /%s%s%s%s", a->cmds[i].name,
			    a->cmds[i].hint != NULL ? " <" : "",
			    a->cmds[i].hint != NULL ? a->cmds[i].hint : "",
			    a->cmds[i].hint != NULL ? ">" : "");
			if (strlen(line) + strlen(one) > 300) {
				reply(asker, RPL_WHOISSPECIAL, c->nick, line);
				strlcpy(line, "commands:", sizeof(line));
			}
			strlcat(line, one, sizeof(line));
		}
		if (a->ncmds > 0)
			reply(asker, RPL_WHOISSPECIAL, c->nick, line);
	}
	{
		struct conv *cv;

		TAILQ_FOREACH(cv, &a->convs, entry) {
			const char *mode = acp_session_mode(cv->session);
			char line[IRC_LINELEN];

			if (mode == NULL || cv->private)
				continue;
			snprintf(line, sizeof(line), "mode in %s: %s", cv->target, mode);
			reply(asker, RPL_WHOISSPECIAL, c->nick, line);
		}
	}
}

static const struct client_ops agent_ops = {
	.send = agent_op_send,
	.deliver = agent_op_deliver,
	.release = agent_op_release,
	.joined = agent_op_joined,
	.parted = agent_op_parted,
	.invited = agent_op_invited,
	.message = agent_op_message,
	.whois = agent_op_whois,
	.service = "an agent of this server (!stop cancels what it is doing)",
};

/* ---- life cycle ---- */

static void
agent_join_stored(const char *conv, const char *name, void *arg)
{
	struct agent *a = arg;
	struct channel *ch;

	(void)conv;
	if (!casemap_valid_channel(name, CHANNELLEN))
		return;
	if ((ch = channel_find(name)) == NULL)
		ch = channel_create(name);
	if (channel_member(ch, a->client) == NULL)
		channel_add(ch, a->client, 0);
}

static struct agent *
agent_new(const struct conf_agent *ca)
{
	struct agent *a = xcalloc(1, sizeof(*a));
	struct acp_agent_config cfg;
	struct client *c;
	const char *desc;
	char *const *ch;

	if (client_find_any(ca->name) != NULL) {
		log_warnx("agent %s: the nick is taken", ca->name);
		free(a);
		return NULL;
	}
	TAILQ_INIT(&a->convs);
	a->conf = ca;
	c = client_new(&agent_ops, NULL);
	c->priv = a;
	a->client = c;
	strlcpy(c->user, "agent", sizeof(c->user));
	client_set_host(c, ircd.conf->name);
	desc = ca->description != NULL ? ca->description : ca->name;
	client_set_realname(c, desc, strlen(desc));
	client_set_nick(c, ca->name);
	c->flags |= CLIENT_HAVE_NICK | CLIENT_HAVE_USER | CLIENT_SERVICE;
	c->umodes |= UMODE_BOT;		/* AG-1 */
	client_register(c);

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = ca->name;
	cfg.command = ca->command;
	cfg.cwd = ca->cwd;
	cfg.env = (const char **)(void *)ca->env;
	cfg.turn_timeout_ms = ircd.conf->turn_timeout * 1000;
	a->acp = acp_agent_new(pool, &cfg, &agent_callbacks, a);
	TAILQ_INSERT_TAIL(&all_agents, a, entry);
	agent_load_cmds(a);

	/* AG-2: its configured channels, and those it was brought into. */
	for (ch = ca->channels; ch != NULL && *ch != NULL; ch++)
		agent_join_stored(NULL, *ch, a);
	store_agent_channels(history_store(), c->nick, agent_join_stored, a);
	return a;
}

int
agent_init(void)
{
	size_t i;

	if (ircd.conf->nagents == 0)
		return 0;
	acp_log_set(agent_acp_log, NULL, ACP_LOG_INFO);
	if (acp_init(ircd.base) == -1) {
		log_warnx("cannot start the agent library");
		return -1;
	}
	pool = acp_pool_new(ircd.conf->max_loaded_agents);
	for (i = 0; i < ircd.conf->nagents; i++)
		agent_new(&ircd.conf->agents[i]);
	return 0;
}

void
agent_shutdown(void)
{
	struct agent *a;
	struct conv *cv;

	turn_shutdown();
	while ((a = TAILQ_FIRST(&all_agents)) != NULL) {
		TAILQ_REMOVE(&all_agents, a, entry);
		while ((cv = TAILQ_FIRST(&a->convs)) != NULL) {
			TAILQ_REMOVE(&a->convs, cv, entry);
			card_drop_conv(cv);
			mcp_forget(cv);
			acp_session_free(cv->session);
			free(cv);
		}
		acp_agent_free(a->acp);
		agent_free_cmds(a);
		/* Its user stays until the clients go; it has no agent behind it now. */
		a->client->priv = NULL;
		free(a);
	}
	if (trim_ev != NULL) {
		event_free(trim_ev);
		trim_ev = NULL;
	}
	if (last_spoke != NULL) {
		dict_free(last_spoke);
		last_spoke = NULL;
	}
	if (pool != NULL) {
		acp_pool_free(pool);
		pool = NULL;
		acp_shutdown();
	}
}

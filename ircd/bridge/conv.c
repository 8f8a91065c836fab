/*
 * conv.c: conversations (SS-1). An agent has one per channel it is in
 * and per person who writes to it privately, each with its own ACP
 * session; the least recently used idle ones are let go (SEC-4).
 */
#include "compat.h"

#include <event2/event.h>
#include <cjson/cJSON.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/mcp.h"
#include "ircd/bridge/policy.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/cap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "ircd/multiline.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

static struct event *trim_ev;
/* Counts uses: the least recently used conversation has the lowest. */
static uint64_t conv_clock;

struct conv *
conv_find(struct agent *a, const char *key)
{
	struct conv *cv;

	TAILQ_FOREACH(cv, &a->convs, entry)
		if (strcmp(cv->key, key) == 0)
			return cv;
	return NULL;
}

struct conv *
conv_get(struct agent *a, const char *key, const char *target, int private)
{
	struct conv *cv = conv_find(a, key);
	char sid[CONV_SID_LEN] = "";
	int64_t seen = 0;

	if (cv != NULL) {
		strlcpy(cv->target, target, sizeof(cv->target));
		conv_touch(cv);
		return cv;
	}
	cv = xcalloc(1, sizeof(*cv));
	cv->agent = a;
	strlcpy(cv->key, key, sizeof(cv->key));
	strlcpy(cv->target, target, sizeof(cv->target));
	cv->private = private;
	/* AU-1: a !policy set here before a restart, within today's ceiling. */
	authority_policy_load(cv);
	conv_touch(cv);
	/* SS-4: a stored session id is resumed (session/load) if it can be. */
	if (store_session_get(history_store(), a->client->nick, key, sid,
	    sizeof(sid), &seen) != 0)
		sid[0] = '\0';
	cv->seen_id = seen;
	cv->session = acp_session_new(a->acp, sid[0] != '\0' ? sid : NULL, cv);
	TAILQ_INSERT_TAIL(&a->convs, cv, entry);
	/* SEC-3: the session's own token to the server's MCP tools. */
	{
		char *mcp = mcp_servers_json(cv);
		char *mcp_http = mcp_servers_http_json(cv);

		if (mcp != NULL)
			acp_session_set_mcp(cv->session, mcp, mcp_http);
		cJSON_free(mcp);
		cJSON_free(mcp_http);
	}
	conv_trim_soon();
	return cv;
}

void
conv_touch(struct conv *cv)
{
	cv->used = ++conv_clock;
}

/* What cv holds goes with it: cards, its MCP token, its session. */
static void
conv_destroy(struct conv *cv)
{
	card_drop_conv(cv);
	mcp_forget(cv);
	TAILQ_REMOVE(&cv->agent->convs, cv, entry);
	acp_session_free(cv->session);
	free(cv);
}

/*
 * Forget a conversation; one that is answering goes when its turn ends,
 * and says nothing more meanwhile: it was taken out (AG-2).
 */
void
conv_free(struct conv *cv)
{
	turn_drop_conv(cv);
	if (cv->turn != NULL) {
		cv->closing = 1;
		stream_silence(cv->turn);
		acp_session_cancel(cv->session);
		return;
	}
	conv_destroy(cv);
}

void
conv_free_all(struct agent *a)
{
	struct conv *cv;

	while ((cv = TAILQ_FIRST(&a->convs)) != NULL)
		conv_destroy(cv);
}

void
conv_shutdown(void)
{
	if (trim_ev != NULL) {
		event_free(trim_ev);
		trim_ev = NULL;
	}
}

enum policy
conv_policy(const struct conv *cv)
{
	return authority_policy(cv);
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
	    cv->policy != POLICY_UNSET || turn_conv_waiting(cv) ||
	    card_conv_open(cv))
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
conv_trim_cb(evutil_socket_t fd, short what, void *arg)
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

void
conv_trim_soon(void)
{
	if (trim_ev == NULL)
		trim_ev = event_new(ircd.base, -1, 0, conv_trim_cb, NULL);
	event_active(trim_ev, 0, 0);
}

/* ---- who reads a conversation, and what is said to them ---- */

/*
 * The person of private conversation cv. The conversation belongs to a
 * principal, the side of its key that is not the agent: an account
 * (whoever is logged in to it) or one connection (history_principal_is).
 * Yet it is read where it always was: by whoever has the nick it was
 * last spoken in (cv->target), which is its principal unless the nick
 * changed hands. That case is only logged: to bind the conversation to
 * its principal alone is the authority issue's change, not this one's.
 */
static struct client *
conv_peer(const struct conv *cv)
{
	struct client *c = client_find(cv->target);
	struct convkey agent, peer;

	if (c == NULL)
		return NULL;
	history_principal(cv->agent->client, &agent);
	if (convkey_other(cv->key, agent.s, &peer) == 0 &&
	    !history_principal_is(c, &peer))
		log_debug("%s: %s has the nick of a private conversation "
		    "of %s, and reads it", cv->agent->client->nick, c->nick,
		    peer.s);
	return c;
}

const char *
conv_where(const struct conv *cv)
{
	struct channel *ch;

	if (cv->private)
		return cv->target;
	return (ch = channel_find(cv->target)) != NULL ? ch->name : NULL;
}

void
conv_each(const struct conv *cv, const struct member_filter *f,
    void (*fn)(struct client *, void *), void *arg)
{
	struct channel *ch;
	struct client *c;

	if (!cv->private) {
		if ((ch = channel_find(cv->target)) != NULL)
			channel_each(ch, f, fn, arg);
	} else if ((c = conv_peer(cv)) != NULL && member_filter_pass(f, c, NULL))
		fn(c, arg);
}

static void
conv_deliver_one(struct client *c, void *om)
{
	c->ops->deliver(c, om);
}

void
conv_deliver(const struct conv *cv, const struct member_filter *f,
    struct outmsg *om)
{
	conv_each(cv, f, conv_deliver_one, om);
}

struct batch {
	struct outmsg	*lines;
	size_t		 n;
};

static void
conv_batch_one(struct client *c, void *arg)
{
	struct batch *b = arg;

	multiline_deliver(c, b->lines, b->n, NULL);
}

void
conv_deliver_batch(const struct conv *cv, struct outmsg *lines, size_t n)
{
	struct member_filter f = { .except = cv->agent->client,
	    .caps = CAP_MULTILINE };
	struct batch b = { lines, n };

	conv_each(cv, &f, conv_batch_one, &b);
}

static void
conv_congested_one(struct client *c, void *arg)
{
	int *congested = arg;

	if (client_sendq(c) > ircd.conf->sendq / 2)
		*congested = 1;
}

int
conv_congested(const struct conv *cv)
{
	int congested = 0;

	conv_each(cv, NULL, conv_congested_one, &congested);
	return congested;
}

void
conv_notice(struct conv *cv, const char *fmt, ...)
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
	else if (cv->private && (c = conv_peer(cv)) != NULL)
		reply_notice(c, "%s", text);
}

void
conv_notice_stored(const struct conv *cv, const char *text, size_t len)
{
	struct outmsg om;
	struct client server;
	const char *where;
	char body[IRC_LINELEN];

	if ((where = conv_where(cv)) == NULL)
		return;
	/*
	 * Rendering a line and each reader's deliver want a sender, and the
	 * server is no client: a stand-in for this call, as history.c has for
	 * the senders of what it replays. history_add stores NULL as the
	 * server itself.
	 */
	memset(&server, 0, sizeof(server));
	server.prefix = ircd.conf->name;
	snprintf(body, sizeof(body), "%.*s", (int)len, text);
	memset(&om, 0, sizeof(om));
	om.from = &server;
	om.cmd = "NOTICE";
	om.target = where;
	om.text = body;
	outmsg_render(&om);
	if (history_add(NULL, cv->key, &om) == -1)
		return;
	conv_deliver(cv, NULL, &om);
}

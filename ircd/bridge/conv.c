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
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

static struct event *trim_ev;
/* Counts uses: the least recently used conversation has the lowest. */
static uint64_t conv_clock;

/*
 * AU-4: the readers of a private conversation are the clients of its
 * principal. The core has no index of an account's clients, so they are
 * found by a walk over all clients, and kept until who is connected
 * changes (readers_gen), not walked again for every line of an answer.
 */
struct conv_readers {
	uint64_t	 gen;
	struct client	**c;
	size_t		 n, cap;
};
static uint64_t readers_gen = 1;
/*
 * Clients whose quit is under way: still among all clients until the
 * core is done with them, they are readers no more. Cleared from the
 * loop, when the core has let them go.
 */
static struct client **quitting;
static size_t nquitting, capquitting;
static struct event *quit_ev;

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
	cv->fresh = 1;
	cv->readers = xcalloc(1, sizeof(*cv->readers));
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
	free(cv->readers->c);
	free(cv->readers);
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
	if (quit_ev != NULL) {
		event_free(quit_ev);
		quit_ev = NULL;
	}
	free(quitting);
	quitting = NULL;
	nquitting = capquitting = 0;
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
conv_idle(const struct conv *cv)
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

/*
 * AU-9, L3: a private conversation made for a prompt, when the agent
 * already has max-open-sessions private ones that it cannot let go (idle
 * ones go first, from conv_trim_cb), is refused: anyone who connects can
 * open one, each costs the agent a session (some a process), and a quiet
 * one of an agent that cannot reopen it never goes. Channels are not
 * counted: an agent keeps to max-channels (AG-2), and a channel it was
 * brought into must not go silent because strangers wrote to it.
 */
int
conv_over_cap(const struct conv *cv)
{
	const struct conv *o;
	size_t busy = 0;

	if (!cv->private || !cv->fresh || cv->turn != NULL || cv->opening)
		return 0;
	TAILQ_FOREACH(o, &cv->agent->convs, entry)
		if (o != cv && o->private && !conv_idle(o))
			busy++;
	return busy >= (size_t)ircd.conf->max_open_sessions;
}

void
conv_trim_soon(void)
{
	if (trim_ev == NULL)
		trim_ev = event_new(ircd.base, -1, 0, conv_trim_cb, NULL);
	event_active(trim_ev, 0, 0);
}

/* ---- who reads a conversation, and what is said to them ---- */

int
conv_peer(const struct conv *cv, struct convkey *p)
{
	struct convkey agent;

	if (!cv->private)
		return -1;
	history_principal(cv->agent->client, &agent);
	return convkey_other(cv->key, agent.s, p);
}

static void
conv_quit_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	nquitting = 0;
	readers_gen++;
}

void
conv_readers_changed(struct client *c)
{
	readers_gen++;
	if (c == NULL)
		return;
	if (nquitting == capquitting) {
		capquitting = capquitting == 0 ? 8 : capquitting * 2;
		quitting = xreallocarray(quitting, capquitting,
		    sizeof(*quitting));
	}
	quitting[nquitting++] = c;
	if (quit_ev == NULL)
		quit_ev = event_new(ircd.base, -1, 0, conv_quit_cb, NULL);
	event_active(quit_ev, 0, 0);
}

static int
conv_reader_ok(const struct client *c, const struct convkey *peer)
{
	size_t i;

	if (!(c->flags & CLIENT_REGISTERED) ||
	    (c->flags & (CLIENT_CLOSING | CLIENT_SERVICE)) ||
	    !history_principal_is(c, peer))
		return 0;
	for (i = 0; i < nquitting; i++)
		if (quitting[i] == c)
			return 0;
	return 1;
}

static void
conv_reader_add(struct conv_readers *r, struct client *c)
{
	if (r->n == r->cap) {
		r->cap = r->cap == 0 ? 2 : r->cap * 2;
		r->c = xreallocarray(r->c, r->cap, sizeof(*r->c));
	}
	r->c[r->n++] = c;
}

/*
 * AU-4, H4: the clients of private cv's principal, never whoever holds
 * the nick. A connection is one client, most often the one with the
 * nick last spoken in; an account is all the clients logged in to it.
 */
static const struct conv_readers *
conv_readers(const struct conv *cv)
{
	struct conv_readers *r = cv->readers;
	struct convkey peer;
	struct client *c;

	if (r->gen == readers_gen)
		return r;
	r->gen = readers_gen;
	r->n = 0;
	if (conv_peer(cv, &peer) == -1)
		return r;
	if (convkey_is_connection(peer.s) &&
	    (c = client_find(cv->target)) != NULL && conv_reader_ok(c, &peer)) {
		conv_reader_add(r, c);
		return r;
	}
	TAILQ_FOREACH(c, &ircd.all, entry)
		if (conv_reader_ok(c, &peer))
			conv_reader_add(r, c);
	return r;
}

void
conv_nick(struct client *c)
{
	struct agent *a;
	struct conv *cv;
	struct convkey peer;

	TAILQ_FOREACH(a, &all_agents, entry)
		TAILQ_FOREACH(cv, &a->convs, entry)
			if (conv_peer(cv, &peer) == 0 &&
			    history_principal_is(c, &peer))
				strlcpy(cv->target, c->nick, sizeof(cv->target));
}

/*
 * AU-4, AU-9: a connection that ends takes its private conversations
 * with it: nobody can ever speak as it again. What its running turn
 * still had to say is stored (no reader is left), the turn is cancelled
 * (its cards answered "cancelled" to the agent), what waits is dropped,
 * and the session closes when the turn has ended.
 */
void
conv_forget_connection(struct client *c)
{
	struct agent *a;
	struct conv *cv, *tcv;
	struct convkey peer;

	TAILQ_FOREACH(a, &all_agents, entry) {
		TAILQ_FOREACH_SAFE(cv, &a->convs, entry, tcv) {
			if (conv_peer(cv, &peer) == -1 ||
			    !convkey_is_connection(peer.s) ||
			    !history_principal_is(c, &peer))
				continue;
			log_debug("%s: %s quit, its conversation %s goes",
			    a->client->nick, c->nick, cv->key);
			if (cv->turn != NULL)
				stream_orphan(cv->turn);
			conv_free(cv);
		}
	}
}

int
conv_can_speak(const struct conv *cv)
{
	struct channel *ch;

	if (cv->private)
		return 1;
	return (ch = channel_find(cv->target)) != NULL &&
	    channel_can_send(ch, cv->agent->client) == 0;
}

const char *
conv_where(const struct conv *cv)
{
	struct channel *ch;

	if (cv->private)
		return cv->target;
	return (ch = channel_find(cv->target)) != NULL ? ch->name : NULL;
}

/* A private conversation has few readers: a copy of them for the loop. */
#define CONV_READERS_INLINE	8

void
conv_each(const struct conv *cv, const struct member_filter *f,
    void (*fn)(struct client *, void *), void *arg)
{
	struct channel *ch;
	const struct conv_readers *r;
	struct client *inl[CONV_READERS_INLINE], **copy;
	size_t i, n;

	if (!cv->private) {
		if ((ch = channel_find(cv->target)) != NULL)
			channel_each(ch, f, fn, arg);
		return;
	}
	/*
	 * A stand-in conversation (bang.c's here_peek) has no readers. What
	 * fn does may change who reads (a client quits): a copy.
	 */
	if (cv->readers == NULL)
		return;
	r = conv_readers(cv);
	n = r->n;
	copy = n <= CONV_READERS_INLINE ? inl :
	    xreallocarray(NULL, n, sizeof(*copy));
	if (n > 0)
		memcpy(copy, r->c, n * sizeof(*copy));
	for (i = 0; i < n; i++)
		if (member_filter_pass(f, copy[i], NULL))
			fn(copy[i], arg);
	if (copy != inl)
		free(copy);
}

/*
 * A line of a private conversation names the nick it was spoken to;
 * another client of the same account reads it under its own nick.
 * The copy keeps the message's id and time: it is the same message.
 */
static void
conv_retarget(const struct outmsg *om, const char *nick, struct outmsg *copy)
{
	int n;
	size_t len;

	*copy = *om;
	copy->target = nick;
	copy->nwire = 0;
	copy->wire_self = NULL;
	if (om->text == NULL) {
		n = snprintf(copy->line, sizeof(copy->line), ":%s %s %s",
		    om->from->prefix, om->cmd, nick);
		copy->len = n > 0 && (size_t)n < sizeof(copy->line) ?
		    (size_t)n : 0;
		return;
	}
	n = snprintf(copy->line, sizeof(copy->line), ":%s %s %s :",
	    om->from->prefix, om->cmd, nick);
	if (n < 0 || (size_t)n >= sizeof(copy->line) - 2) {
		copy->len = 0;
		return;
	}
	len = message_utf8_trunc(om->text, strlen(om->text),
	    IRC_LINELEN - 2 - (size_t)n);
	memcpy(copy->line + n, om->text, len);
	copy->len = (size_t)n + len;
	copy->line[copy->len] = '\0';
	copy->text = copy->line + n;
}

struct deliver {
	const struct conv	*cv;
	struct outmsg		*om;
};

static void
conv_deliver_one(struct client *c, void *arg)
{
	struct deliver *d = arg;
	struct outmsg copy;

	if (d->cv->private && casemap_cmp(c->nick, d->om->target) != 0) {
		conv_retarget(d->om, c->nick, &copy);
		c->ops->deliver(c, &copy);
	} else
		c->ops->deliver(c, d->om);
}

void
conv_deliver(const struct conv *cv, const struct member_filter *f,
    struct outmsg *om)
{
	struct deliver d = { cv, om };

	conv_each(cv, f, conv_deliver_one, &d);
}

struct batch {
	const struct conv	*cv;
	struct outmsg		*lines;
	size_t			 n;
};

static void
conv_batch_one(struct client *c, void *arg)
{
	struct batch *b = arg;
	struct outmsg *copies;
	size_t i;

	if (!b->cv->private || b->n == 0 ||
	    casemap_cmp(c->nick, b->lines[0].target) == 0) {
		multiline_deliver(c, b->lines, b->n, NULL);
		return;
	}
	copies = xreallocarray(NULL, b->n, sizeof(*copies));
	for (i = 0; i < b->n; i++)
		conv_retarget(&b->lines[i], c->nick, &copies[i]);
	multiline_deliver(c, copies, b->n, NULL);
	free(copies);
}

void
conv_deliver_batch(const struct conv *cv, struct outmsg *lines, size_t n)
{
	struct member_filter f = { .except = cv->agent->client,
	    .caps = CAP_MULTILINE };
	struct batch b = { cv, lines, n };

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

static void
conv_notice_one(struct client *c, void *text)
{
	reply_notice(c, "%s", (const char *)text);
}

void
conv_notice(struct conv *cv, const char *fmt, ...)
{
	char text[IRC_LINELEN];
	va_list ap;
	struct channel *ch;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!cv->private && (ch = channel_find(cv->target)) != NULL)
		channel_send(ch, NULL, ":%s NOTICE %s :%s", ircd.conf->name,
		    ch->name, text);
	else if (cv->private)
		conv_each(cv, NULL, conv_notice_one, text);
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

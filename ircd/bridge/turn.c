/*
 * turn.c: the turn queue. One FIFO for the whole server: a turn starts
 * when fewer than max-parallel-turns run (a turn waiting on a card does
 * not count), its agent is not answering elsewhere (TN-2), and no earlier
 * turn of the same message is still to come, so "@alice @bob compare"
 * lets bob read alice's answer (TN-1).
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/ask.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/task.h"
#include "ircd/bridge/turn.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/history.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/*
 * Prompts one person (a principal: an account, or a connection, whatever
 * its nick) may have waiting (AU-9, L3). The queue is the server's, so
 * one fast client would otherwise keep everyone else waiting; a message
 * not queued is still in the conversation, and reaches the agent as part
 * of its transcript when it is next asked (SS-2).
 */
#define TURN_MAX_WAITING	16
/*
 * Prompts one address may have waiting: many connections from one host
 * are one person's as often as not; more than one principal's share, as
 * people may share an address (NAT), and not for the flood-exempt nets.
 */
#define TURN_MAX_WAITING_ADDR	(4 * TURN_MAX_WAITING)

/*
 * TN-10: a paste joins one prompt up to this many lines and bytes; past
 * that the next line starts a prompt of its own, still in order.
 */
#define TURN_PASTE_LINES	200
#define TURN_PASTE_BYTES	(64 * 1024)

static TAILQ_HEAD(, turn) waiting = TAILQ_HEAD_INITIALIZER(waiting);
static TAILQ_HEAD(, turn) running = TAILQ_HEAD_INITIALIZER(running);
static unsigned nrunning;
/* TN-10: wakes turn_kick when the first held prompt may start. */
static struct event *paste_ev;

/* The one place a turn goes, and what it holds with it. */
static void
turn_free(struct turn *t)
{
	/* MN-7: a task whose turn goes unanswered ends with it. */
	if (t->task != 0)
		task_turn_gone(t);
	stream_free(t->stream);
	free(t->pasted);
	free(t->text);
	free(t);
}

/*
 * TN-10: does a turn for t's agent, ahead of t, still wait for a paste's
 * lines? Then t waits too: an agent's prompts start in the order asked.
 */
static int
turn_agent_held_before(const struct turn *t, uint64_t now)
{
	const struct turn *o;

	TAILQ_FOREACH(o, &waiting, entry) {
		if (o == t)
			break;
		if (o->conv->agent == t->conv->agent && o->hold_until > now)
			return 1;
	}
	return 0;
}

static void	turn_kick(void);

static void
turn_paste_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	turn_kick();
}

/* Arm paste_ev for the first held prompt, if any. */
static void
turn_paste_arm(uint64_t now)
{
	const struct turn *t;
	uint64_t first = 0;
	struct timeval tv;

	TAILQ_FOREACH(t, &waiting, entry)
		if (t->hold_until > now && (first == 0 || t->hold_until < first))
			first = t->hold_until;
	if (paste_ev == NULL)
		paste_ev = evtimer_new(ircd.base, turn_paste_cb, NULL);
	if (first == 0) {
		evtimer_del(paste_ev);
		return;
	}
	tv = clock_timeval(first - now);
	evtimer_add(paste_ev, &tv);
}

static int
turn_same_message_before(const struct turn *t)
{
	const struct turn *o;

	if (t->hid == 0)
		return 0;	/* not a person's message (a schedule) */
	TAILQ_FOREACH(o, &running, entry)
		if (o->hid == t->hid && strcmp(o->conv->key, t->conv->key) == 0)
			return 1;
	TAILQ_FOREACH(o, &waiting, entry) {
		if (o == t)
			break;
		if (o->hid == t->hid && strcmp(o->conv->key, t->conv->key) == 0)
			return 1;
	}
	return 0;
}

/*
 * Start what can start. A turn that fails to start ends at once, and
 * ending calls this again: the nested call only asks for one more pass,
 * and each pass scans from the head, since the queue may have changed.
 */
static void
turn_kick(void)
{
	static int kicking, again;
	struct turn *t;
	uint64_t now = server_now_ms();

	if (kicking) {
		again = 1;
		return;
	}
	kicking = 1;
	do {
		again = 0;
		TAILQ_FOREACH(t, &waiting, entry) {
			if (nrunning >= (unsigned)ircd.conf->max_parallel_turns)
				break;
			if (t->hold_until > now || t->conv->agent->active != NULL ||
			    turn_same_message_before(t) ||
			    turn_agent_held_before(t, now))
				continue;
			TAILQ_REMOVE(&waiting, t, entry);
			TAILQ_INSERT_TAIL(&running, t, entry);
			nrunning++;
			t->started = 1;
			t->conv->agent->active = t->conv;
			t->conv->turn = t;
			if (t->task != 0)
				task_turn_started(t);
			ask_start(t);
			again = 1;
			break;
		}
	} while (again);
	kicking = 0;
	turn_paste_arm(now);
}

/* TN-10: who's prompt to conv that has not started, if a line may join it. */
static struct turn *
turn_paste_into(const struct conv *conv, const struct convkey *who)
{
	struct turn *t, *last = NULL;

	/* A turn another agent's answer woke (MN-2) is that agent's words. */
	TAILQ_FOREACH(t, &waiting, entry)
		if (t->conv == conv && t->sched == 0 && t->depth == 0 &&
		    t->text[0] != '/' && strcmp(t->principal.s, who->s) == 0)
			last = t;
	return last;
}

/*
 * TN-10: till when a prompt of from waits for the rest of a paste: the
 * window from now, or from when from's next line, received already but
 * held back by flood control, will run; 0 for no wait.
 */
static uint64_t
turn_hold_until(struct client *from)
{
	uint64_t window = (uint64_t)ircd.conf->paste_window;
	int64_t next;

	if (window == 0)
		return 0;
	next = from->conn != NULL ? conn_next_line_ms(from->conn) : -1;
	return server_now_ms() + window + (next > 0 ? (uint64_t)next : 0);
}

/* Join text (message hid) to t's prompt: 0 when t is full already. */
static int
turn_paste(struct turn *t, struct client *from, const char *text,
    int64_t hid)
{
	size_t have = strlen(t->text), more = strlen(text);

	if (t->npasted + 1 >= TURN_PASTE_LINES ||
	    have + 1 + more > TURN_PASTE_BYTES)
		return 0;
	t->text = xreallocarray(t->text, have + 1 + more + 1, 1);
	t->text[have] = '\n';
	memcpy(t->text + have + 1, text, more + 1);
	t->pasted = xreallocarray(t->pasted, t->npasted + 1,
	    sizeof(*t->pasted));
	t->pasted[t->npasted++] = hid;
	if (ircd.conf->paste_window > 0)
		t->hold_until = turn_hold_until(from);
	turn_paste_arm(server_now_ms());
	return 1;
}

struct agent *
turn_pasting(const char *key, const struct convkey *who)
{
	const struct turn *t;
	struct agent *a = NULL;

	TAILQ_FOREACH(t, &waiting, entry) {
		if (strcmp(t->conv->key, key) != 0 || t->sched != 0 ||
		    t->depth != 0 || t->text[0] == '/' ||
		    strcmp(t->principal.s, who->s) != 0)
			continue;
		if (a != NULL && a != t->conv->agent)
			return NULL;	/* two agents: the line says which */
		a = t->conv->agent;
	}
	return a;
}

int
turn_answers(const struct turn *t, int64_t hid)
{
	size_t i;

	if (hid == t->hid || (t->hid_from > 0 && hid >= t->hid_from &&
	    hid <= t->hid))
		return 1;
	for (i = 0; i < t->npasted; i++)
		if (t->pasted[i] == hid)
			return 1;
	return 0;
}

/*
 * A turn of conv: the message answered, as speaker said it, with its
 * msgid and history id ("" and 0 when no person's message fired it).
 */
static struct turn *
turn_new(struct conv *conv, const char *speaker, const char *text,
    const char *msgid, int64_t hid)
{
	struct turn *t = xcalloc(1, sizeof(*t));

	t->conv = conv;
	t->text = xstrdup(text);
	strlcpy(t->speaker, speaker, sizeof(t->speaker));
	strlcpy(t->msgid, msgid, sizeof(t->msgid));
	t->hid = hid;
	t->stream = stream_new(t);
	return t;
}

void
turn_enqueue(struct conv *conv, struct client *from, const char *speaker,
    const char *text, const char *msgid, int64_t hid, enum turn_how how)
{
	struct agent *a = conv->agent;
	struct turn *t;
	struct convkey who;
	int n = 0, naddr = 0;
	/* TN-11: what from is told lands where from typed. */
	const char *where = conv->private ? NULL : conv->target;

	if (from != NULL) {
		history_principal(from, &who);
		/* TN-10: a line of a paste, or typed while the prompt waits. */
		if (text[0] != '/' && (t = turn_paste_into(conv, &who)) != NULL &&
		    turn_paste(t, from, text, hid)) {
			/* MN-6: a line naming the agent made it a summons. */
			if (how == TURN_NAMED)
				t->how = TURN_NAMED;
			return;
		}
		TAILQ_FOREACH(t, &waiting, entry) {
			if (strcmp(t->principal.s, who.s) == 0)
				n++;
			if (strcmp(t->addr, from->ip) == 0)
				naddr++;
		}
		if (n >= TURN_MAX_WAITING) {
			reply_notice_in(from, where, "You have %d prompts "
			    "waiting; this one for %s was not queued (it stays "
			    "in the conversation)", n, a->client->nick);
			goto refused;
		}
		if (naddr >= TURN_MAX_WAITING_ADDR &&
		    !(from->flags & CLIENT_FLOOD_EXEMPT)) {
			reply_notice_in(from, where, "Your address has %d "
			    "prompts waiting; this one for %s was not queued "
			    "(it stays in the conversation)", naddr,
			    a->client->nick);
			goto refused;
		}
		/* I5: an agent that may not speak there is not asked. */
		if (!conv_can_speak(conv)) {
			reply_notice_in(from, where, "%s cannot speak in %s "
			    "(moderated, or banned there); it was not asked",
			    a->client->nick, conv->target);
			goto refused;
		}
		/* AU-9: the agent has all the sessions it may have. */
		if (conv_over_cap(conv)) {
			reply_notice_in(from, where, "%s has all the "
			    "conversations it may have open (%d); try again "
			    "later", a->client->nick,
			    ircd.conf->max_open_sessions);
			goto refused;
		}
	}
	conv->fresh = 0;
	t = turn_new(conv, speaker, text, msgid, hid);
	t->how = how;
	if (from != NULL) {
		strlcpy(t->requester, from->nick, sizeof(t->requester));
		t->principal = who;
		t->origin = who;
		strlcpy(t->addr, from->ip, sizeof(t->addr));
		/* TN-10: a moment for the rest of a paste to join it. */
		if (text[0] != '/')
			t->hold_until = turn_hold_until(from);
	}
	/*
	 * TN-2: say so when the agent is busy in another conversation,
	 * naming it only to who may know of it (AU-8, L1).
	 */
	if (from != NULL && a->active != NULL && a->active != conv)
		reply_notice_in(from, where, "%s is answering in %s; you are "
		    "next", a->client->nick, authority_where(from, a->active));
	TAILQ_INSERT_TAIL(&waiting, t, entry);
	turn_kick();
	return;
refused:
	/* A conversation made for this prompt alone goes with it. */
	if (conv->fresh && conv->turn == NULL && !conv->opening &&
	    !turn_conv_waiting(conv) && !card_conv_open(conv))
		conv_free(conv);
}

void
turn_chain_from(const struct turn *by, struct turn_chain *c)
{
	memset(c, 0, sizeof(*c));
	strlcpy(c->by, by->conv->agent->client->nick, sizeof(c->by));
	strlcpy(c->requester, by->requester, sizeof(c->requester));
	c->principal = by->principal;
	c->origin = by->origin;
	strlcpy(c->addr, by->addr, sizeof(c->addr));
	c->depth = by->depth + 1;
	/* At most HANDOFF_MAX_DEPTH names: it fits; cut, it still bounds. */
	strlcpy(c->chain, by->chain, sizeof(c->chain));
	if (c->chain[0] != '\0')
		strlcat(c->chain, " ", sizeof(c->chain));
	strlcat(c->chain, c->by, sizeof(c->chain));
}

/* A turn of conv handed on through chain c: said by c's agent. */
static struct turn *
turn_new_chained(struct conv *conv, const struct turn_chain *c,
    const char *text, const char *msgid, int64_t hid_from, int64_t hid)
{
	struct turn *t = turn_new(conv, c->by, text, msgid, hid);

	conv->fresh = 0;
	t->hid_from = hid_from;
	/* AU-4: cards of the chain are the person's who started it. */
	strlcpy(t->requester, c->requester, sizeof(t->requester));
	t->principal = c->principal;
	t->origin = c->origin;
	strlcpy(t->addr, c->addr, sizeof(t->addr));
	t->depth = c->depth;
	strlcpy(t->chain, c->chain, sizeof(t->chain));
	return t;
}

void
turn_enqueue_woken(struct conv *conv, const struct turn *by, const char *text,
    const char *msgid, int64_t hid_from, int64_t hid)
{
	struct turn_chain c;
	struct turn *t;

	turn_chain_from(by, &c);
	t = turn_new_chained(conv, &c, text, msgid, hid_from, hid);
	t->how = TURN_WOKEN;
	TAILQ_INSERT_TAIL(&waiting, t, entry);
	turn_kick();
}

void
turn_enqueue_tool(struct conv *conv, const struct turn_chain *c,
    const char *text, const char *msgid, int64_t hid_from, int64_t hid,
    int64_t task)
{
	struct turn *t = turn_new_chained(conv, c, text, msgid, hid_from, hid);

	t->how = TURN_TOOL;
	t->task = task;
	TAILQ_INSERT_TAIL(&waiting, t, entry);
	turn_kick();
}

void
turn_each_chained(const char *key,
    void (*fn)(const struct turn *, int running, void *), void *arg)
{
	const struct turn *t;

	TAILQ_FOREACH(t, &running, entry)
		if (t->depth > 0 && strcmp(t->conv->key, key) == 0)
			fn(t, 1, arg);
	TAILQ_FOREACH(t, &waiting, entry)
		if (t->depth > 0 && strcmp(t->conv->key, key) == 0)
			fn(t, 0, arg);
}

int
turn_waiting_sched(int64_t id)
{
	const struct turn *t;

	TAILQ_FOREACH(t, &waiting, entry)
		if (t->sched == id)
			return 1;
	return 0;
}

void
turn_enqueue_sched(struct conv *conv, const char *speaker, const char *text,
    int64_t id, const char *owner)
{
	struct turn *t = turn_new(conv, speaker, text, "", 0);

	conv->fresh = 0;	/* in use: no longer a prompt's to refuse */
	t->sched = id;
	if (owner != NULL)
		strlcpy(t->origin.s, owner, sizeof(t->origin.s));
	TAILQ_INSERT_TAIL(&waiting, t, entry);
	turn_kick();
}

void
turn_card_opened(struct turn *t)
{
	if (t->ncards++ == 0 && t->started) {
		nrunning--;
		turn_kick();
	}
}

void
turn_card_closed(struct turn *t)
{
	if (t->ncards > 0 && --t->ncards == 0 && t->started)
		nrunning++;
}

void
turn_done(struct turn *t)
{
	struct conv *conv = t->conv;

	card_drop_turn(t);	/* its slot back first (TN-1), then freed */
	TAILQ_REMOVE(&running, t, entry);
	nrunning--;
	if (conv->turn == t)
		conv->turn = NULL;
	turn_free(t);
	if (conv->agent->active == conv) {
		conv->agent->active = NULL;
		/* A reload's new command waits for this moment. */
		agent_idle(conv->agent);
	}
	turn_kick();
}

/* I7: is t one that only may stop (NULL: anyone's)? */
static int
turn_stoppable(const struct turn *t, const char *key,
    const struct client *only)
{
	if (strcmp(t->conv->key, key) != 0)
		return 0;
	return only == NULL || (t->principal.s[0] != '\0' &&
	    history_principal_is(only, &t->principal));
}

/* TN-14: !stop is confirmed where it was typed, naming who stopped what. */
static void
turn_stop_told(struct turn *t, const struct client *by, int live)
{
	const char *agent = t->conv->agent->client->nick;
	const char *what = live ? "answer" : "waiting turn";

	if (t->requester[0] == '\0')
		conv_notice(t->conv, "%s stopped %s's %s", by->nick, agent, what);
	else
		conv_notice(t->conv, "%s stopped %s's %s to %s", by->nick, agent,
		    what, t->requester);
}

int
turn_stop(const char *key, const struct client *only, const struct client *by)
{
	struct turn *t, *tt;
	int n = 0;

	TAILQ_FOREACH_SAFE(t, &waiting, entry, tt) {
		if (!turn_stoppable(t, key, only))
			continue;
		TAILQ_REMOVE(&waiting, t, entry);
		if (by != NULL)
			turn_stop_told(t, by, 0);
		turn_free(t);
		n++;
	}
	TAILQ_FOREACH(t, &running, entry) {
		if (turn_stoppable(t, key, only) && !t->cancelled) {
			if (by != NULL)
				turn_stop_told(t, by, 1);
			ask_cancel(t);
			n++;
		}
	}
	return n;
}

void
turn_drop_conv(struct conv *conv)
{
	struct turn *t, *tt;

	TAILQ_FOREACH_SAFE(t, &waiting, entry, tt) {
		if (t->conv != conv)
			continue;
		TAILQ_REMOVE(&waiting, t, entry);
		turn_free(t);
	}
}

void
turn_drop_agent(struct agent *a, const char *why)
{
	struct turn *t, *tt;
	char line[IRC_LINELEN];
	const char *nick = a->client->nick;

	/* Told as at a graceful shutdown: nobody waits for what never comes. */
	TAILQ_FOREACH_SAFE(t, &waiting, entry, tt) {
		if (t->conv->agent != a)
			continue;
		TAILQ_REMOVE(&waiting, t, entry);
		if (t->requester[0] != '\0') {
			snprintf(line, sizeof(line), "%s did not answer %s: %s",
			    nick, t->requester, why);
			conv_notice_stored(t->conv, line, strlen(line));
		}
		turn_free(t);
	}
	TAILQ_FOREACH_SAFE(t, &running, entry, tt) {
		if (t->conv->agent != a)
			continue;
		if (!t->cancelled) {
			stream_end(t, 1);
			snprintf(line, sizeof(line), "%s was stopped: %s", nick,
			    why);
			conv_notice_stored(t->conv, line, strlen(line));
		}
		/* As turn_done: its cards give its slot back, then it goes. */
		card_drop_turn(t);
		TAILQ_REMOVE(&running, t, entry);
		nrunning--;
		t->conv->turn = NULL;
		turn_free(t);
	}
	a->active = NULL;
	turn_kick();
}

int
turn_conv_waiting(const struct conv *conv)
{
	const struct turn *t;

	TAILQ_FOREACH(t, &waiting, entry)
		if (t->conv == conv)
			return 1;
	return 0;
}

size_t
turn_queued_for(const struct agent *a)
{
	const struct turn *t;
	size_t n = 0;

	TAILQ_FOREACH(t, &waiting, entry)
		if (t->conv->agent == a)
			n++;
	return n;
}

void
turn_shutdown(void)
{
	struct turn *t;
	char line[IRC_LINELEN];
	const char *nick;

	/*
	 * A graceful stop (SIGTERM): what each running answer has streamed
	 * goes out, then a NOTICE, kept in history, says it was cut there;
	 * each prompt still waiting is said to be unanswered. Whoever comes
	 * back after the restart reads that, not an answer that just ends.
	 */
	while ((t = TAILQ_FIRST(&waiting)) != NULL) {
		TAILQ_REMOVE(&waiting, t, entry);
		if (t->requester[0] != '\0') {
			snprintf(line, sizeof(line), "%s did not answer %s: the "
			    "server is shutting down; ask again when it is back",
			    t->conv->agent->client->nick, t->requester);
			conv_notice_stored(t->conv, line, strlen(line));
		}
		turn_free(t);
	}
	while ((t = TAILQ_FIRST(&running)) != NULL) {
		TAILQ_REMOVE(&running, t, entry);
		nick = t->conv->agent->client->nick;
		if (!t->cancelled) {
			stream_end(t, 1);
			snprintf(line, sizeof(line), "%s was stopped: the server "
			    "is shutting down", nick);
			conv_notice_stored(t->conv, line, strlen(line));
		}
		t->conv->turn = NULL;
		t->conv->agent->active = NULL;
		turn_free(t);
	}
	nrunning = 0;
	if (paste_ev != NULL) {
		event_free(paste_ev);
		paste_ev = NULL;
	}
}

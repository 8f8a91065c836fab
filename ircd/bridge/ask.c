/*
 * ask.c: a turn reaches its agent. The conversation's session is opened
 * first when it is not (SS-4), then the prompt goes: for a summoned
 * agent who called it and who is here (MN-6), then what the session
 * has not seen, read from the store, and the message answered (prompt.c
 * words them). A cancelled turn is cancelled at the agent too (TN-6).
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/ask.h"
#include "ircd/bridge/bang.h"
#include "ircd/bridge/prompt.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

struct collect {
	struct prompt_line	*lines;
	size_t			 n, cap;
};

static void
ask_collect(const struct store_msg *sm, void *arg)
{
	struct collect *c = arg;

	/* CM-6: the server's own ! commands are never the agents' business. */
	if (bang_is_server(sm->text))
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

/*
 * The words of t's prompt (SS-2, SS-4): the transcript of what the
 * session has not seen, read from the store, and the message answered.
 */
static char *
ask_transcript(struct turn *t, const char *where)
{
	struct conv *cv = t->conv;
	struct collect col = { NULL, 0, 0 };
	char *text;
	const struct store_who *who = NULL;
	struct chanlife_who w;
	struct channel *ch;
	int64_t after = cv->seen_id, since;
	size_t i, kept, drop;

	/*
	 * AU-7: in a closed channel an agent, like a person, is told only
	 * what was said while it was there, lest it repeat to a newcomer
	 * what the newcomer may not read.
	 */
	ch = cv->private ? NULL : channel_find(cv->target);
	if (ch != NULL && (who = chanlife_reader(ch, cv->agent->client, &w)) !=
	    NULL) {
		since = chanlife_since(ch, cv->agent->client);
		if (since == -1)
			since = store_history_last_id(history_store(), cv->key);
		if (since > after)
			after = since;
	}
	/*
	 * More than the limit by the lines the turn answers (the message,
	 * and a paste's other lines, TN-10): they are not part of the
	 * transcript, which keeps the newest of the rest.
	 */
	if (cv->carry)
		store_history_query_as(history_store(), cv->key,
		    who, STORE_LATEST, NULL, NULL,
		    ircd.conf->transcript_lines + 1 + (int)t->npasted,
		    ask_collect, &col);
	else if (ircd.conf->transcript_lines > 0)
		store_history_since(history_store(), cv->key, after,
		    cv->agent->client->nick, ircd.conf->transcript_lines + 1 +
		    (int)t->npasted, ask_collect, &col);
	for (i = 0, kept = 0; i < col.n; i++)
		if (!turn_answers(t, col.lines[i].hid))
			kept++;
	/* Keep the newest transcript_lines of those the turn does not answer. */
	drop = kept > (size_t)ircd.conf->transcript_lines ?
	    kept - (size_t)ircd.conf->transcript_lines : 0;
	for (i = 0, kept = 0; i < col.n; i++) {
		if (turn_answers(t, col.lines[i].hid) || drop > 0) {
			if (!turn_answers(t, col.lines[i].hid))
				drop--;
			free((char *)(uintptr_t)col.lines[i].nick);
			free((char *)(uintptr_t)col.lines[i].text);
		} else
			col.lines[kept++] = col.lines[i];
	}
	col.n = kept;
	text = prompt_build(where, col.lines, col.n, t->hid, cv->carry,
	    t->speaker, t->text, (size_t)ircd.conf->transcript_chars);
	for (i = 0; i < col.n; i++) {
		free((char *)(uintptr_t)col.lines[i].nick);
		free((char *)(uintptr_t)col.lines[i].text);
	}
	free(col.lines);
	return text;
}

/*
 * MN-6: who is in t's conversation, for the Summons block: the channel's
 * own members (AU-8: nothing of another channel), t's agent left out;
 * services are nobody one talks with. A bot that is no agent is listed
 * as a bot: it is somebody one may address, but no person. Of each kind
 * the block names PROMPT_ROSTER_MAX and counts the rest, so that is all
 * kept, however big the channel.
 */
struct roster {
	const struct agent	*self;
	const char		*agents[PROMPT_ROSTER_MAX];
	const char		*people[PROMPT_ROSTER_MAX];
	const char		*bots[PROMPT_ROSTER_MAX];
	size_t			 na, np, nb;
};

static void
ask_roster_keep(const char **names, size_t *n, const char *nick)
{
	if (*n < PROMPT_ROSTER_MAX)
		names[*n] = nick;
	(*n)++;
}

static void
ask_roster_add(struct client *c, void *arg)
{
	struct roster *r = arg;
	const struct agent *a = agent_of_client(c);

	if (a == r->self || (a == NULL && (c->flags & CLIENT_SERVICE)))
		return;
	if (a != NULL)
		ask_roster_keep(r->agents, &r->na, c->nick);
	else if (c->umodes & UMODE_BOT)
		ask_roster_keep(r->bots, &r->nb, c->nick);
	else
		ask_roster_keep(r->people, &r->np, c->nick);
}

/*
 * MN-6: the Summons block of t, or NULL when it was not summoned (asked
 * as a follow-up, at a desk, privately, by a schedule).
 */
static char *
ask_summons(struct turn *t, const char *where)
{
	struct conv *cv = t->conv;
	struct roster r = { .self = cv->agent };
	struct prompt_summons s;
	struct channel *ch;

	if (t->how == TURN_ASKED)
		return NULL;
	/* A private conversation holds the person and the agent only. */
	if (cv->private)
		ask_roster_keep(r.people, &r.np, cv->target);
	else if ((ch = channel_find(cv->target)) != NULL)
		channel_each(ch, NULL, ask_roster_add, &r);
	s.self = cv->agent->client->nick;
	s.where = where;
	s.person = t->requester;
	/* A chain is what woke it, or a tool's; a person's name is none. */
	s.chain = t->how == TURN_NAMED ? "" : t->chain;
	s.tool = t->how == TURN_TOOL;
	s.agents = r.agents;
	s.nagents = r.na;
	s.people = r.people;
	s.npeople = r.np;
	s.bots = r.bots;
	s.nbots = r.nb;
	return prompt_summons(&s);
}

static struct acp_prompt *
ask_prompt(struct turn *t)
{
	struct conv *cv = t->conv;
	struct acp_prompt *p = acp_prompt_new();
	char where[sizeof("private conversation with ") + CHANNELLEN], *text;

	/*
	 * CM-2: a slash command goes as the exact text, with no transcript,
	 * so the agent recognises it by its first character; what it missed
	 * meanwhile waits for the next ordinary prompt.
	 */
	if (t->text[0] == '/') {
		acp_prompt_text(p, t->text);
		return p;
	}
	/* How both blocks name the conversation. */
	if (cv->private)
		snprintf(where, sizeof(where), "private conversation with %s",
		    cv->target);
	else
		strlcpy(where, cv->target, sizeof(where));
	/*
	 * MN-6: the Summons block is a text block of its own, first: the
	 * agent reads it as its situation, and the transcript's block stays
	 * what it always was.
	 */
	if ((text = ask_summons(t, where)) != NULL) {
		acp_prompt_text(p, text);
		free(text);
	}
	text = ask_transcript(t, where);
	acp_prompt_text(p, text);
	free(text);
	/* Everything up to now is in this prompt, or was let go (SS-2). */
	cv->seen_id = store_history_last_id(history_store(), cv->key);
	cv->carry = 0;
	store_session_set(history_store(), cv->agent->client->nick, cv->key,
	    NULL, cv->seen_id);
	return p;
}

void
ask_send(struct turn *t)
{
	struct conv *cv = t->conv;
	struct agent *a = cv->agent;

	if (acp_session_prompt(cv->session, ask_prompt(t)) == -1) {
		conv_notice(cv, "%s cannot answer now%s%s", a->client->nick,
		    acp_agent_broken(a->acp) ? ": " : "",
		    acp_agent_broken(a->acp) ?
		    acp_agent_broken_reason(a->acp) : "");
		turn_done(t);
		return;
	}
	stream_typing_start(t);
}

void
ask_start(struct turn *t)
{
	struct conv *cv = t->conv;

	conv_touch(cv);
	if (acp_session_is_open(cv->session)) {
		ask_send(t);
		return;
	}
	/* Open first: the prompt knows if the session remembers (SS-4). */
	cv->opening = 1;
	if (acp_session_open(cv->session) == -1) {
		cv->opening = 0;
		conv_notice(cv, "%s cannot start: %s", cv->agent->client->nick,
		    acp_agent_broken(cv->agent->acp) ?
		    acp_agent_broken_reason(cv->agent->acp) : "unknown error");
		turn_done(t);
	}
}

void
ask_cancel(struct turn *t)
{
	/* TN-6: nothing more is said for a cancelled turn. */
	stream_silence(t);
	if (t->conv->opening)
		return;		/* on_open ends it */
	acp_session_cancel(t->conv->session);
}

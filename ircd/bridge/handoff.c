/*
 * handoff.c: agents addressing agents by name in their answers (MN-1 to
 * MN-5). When a turn ends cleanly, its answer is read with the mention
 * tokenizer's strict rules; the agents it names exactly are brought into
 * the channel if need be and take turns there, in order, with the answer
 * as their prompt. Nobody watches an agent's prose to correct a guess, so
 * every chain is bounded: depth, no agent twice, a rate per pair of
 * agents, and at most three names an answer.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/handoff.h"
#include "ircd/bridge/mention.h"
#include "ircd/bridge/offline.h"
#include "ircd/bridge/pairrate.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/history.h"

/* MN-3: the agents one answer may wake. */
#define HANDOFF_MAX_NAMES	3
/* MN-4: agents in one chain: person → A → B → C. */
#define HANDOFF_MAX_DEPTH	3

/* MN-4: each ordered pair of agents, across chains. */
static struct pairrate *pair_rate;

void
handoff_shutdown(void)
{
	pairrate_free(pair_rate);
	pair_rate = NULL;
}

/* Is the agent named nick in chain c, its handing agent included (MN-4)? */
static int
handoff_in_chain(const struct turn_chain *c, const char *nick)
{
	char word[NICKLEN + 1];
	const char *p = c->chain, *sp;
	size_t n;

	if (casemap_cmp(c->by, nick) == 0)
		return 1;
	while (*p != '\0') {
		sp = strchr(p, ' ');
		n = sp != NULL ? (size_t)(sp - p) : strlen(p);
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (casemap_cmp(word, nick) == 0)
			return 1;
		p += n;
		while (*p == ' ')
			p++;
	}
	return 0;
}

struct client *
handoff_person(const struct convkey *principal)
{
	struct client *c;

	if (principal->s[0] == '\0')
		return NULL;
	TAILQ_FOREACH(c, &ircd.all, entry)
		if ((c->flags & CLIENT_REGISTERED) &&
		    !(c->flags & CLIENT_CLOSING) &&
		    !(c->flags & CLIENT_SERVICE) &&
		    history_principal_is(c, principal))
			return c;
	return NULL;
}

/*
 * MN-4, AU-1..AU-5: one check for every hand-off, a mention's wake or a
 * tool's (MN-7), so that a tool reaches no further than prose could. A
 * chain reaches no further than the person who started it could: they
 * must still be here, and be one a may talk to.
 */
int
handoff_allow(const struct turn_chain *c, struct agent *a, int take_rate,
    char *why, size_t len)
{
	struct client *person;
	char au[256];

	/* c->depth counts the agents before a; a is the (depth + 1)th. */
	if (c->depth + 1 > HANDOFF_MAX_DEPTH) {
		snprintf(why, len, "a chain goes %d agents deep at most",
		    HANDOFF_MAX_DEPTH);
		return 0;
	}
	if (handoff_in_chain(c, a->client->nick)) {
		snprintf(why, len, "it is in this chain already");
		return 0;
	}
	if ((person = handoff_person(&c->origin)) == NULL) {
		snprintf(why, len, "no person who started this chain is here "
		    "to answer for it");
		return 0;
	}
	if (!authority_may_talk(a, person, au, sizeof(au))) {
		snprintf(why, len, "%s", au);
		return 0;
	}
	if (!take_rate)
		return 1;
	if (pair_rate == NULL)
		pair_rate = pairrate_new(PAIRRATE_WAKES, PAIRRATE_WINDOW_MS);
	if (!pairrate_take(pair_rate, c->by, a->client->nick,
	    server_now_ms())) {
		snprintf(why, len, "%s may wake it at most %d times a minute",
		    c->by, PAIRRATE_WAKES);
		return 0;
	}
	return 1;
}

void
handoff_answered(struct turn *t)
{
	struct conv *cv = t->conv;
	struct agent *self = cv->agent, *named[HANDOFF_MAX_NAMES + 1], *a;
	struct mention_scan ms;
	struct mention m;
	struct channel *ch;
	struct client *person;
	struct turn_chain c;
	const char *text, *msgid;
	char word[NICKLEN + 1], list[IRC_LINELEN] = "", why[300];
	int64_t first, last;
	size_t n = 0, i, j;

	/* MN-2: a channel's agents; a private conversation has no room. */
	if (cv->private || t->cancelled ||
	    (ch = channel_find(cv->target)) == NULL ||
	    (text = stream_said(t, &msgid, &first, &last)) == NULL ||
	    last == 0)
		return;
	/* RT-8: people it names who are away are told when they are back. */
	offline_keep_answer(self->client->nick, ch, text,
	    (int64_t)client_time_now_ms());
	mention_begin(&ms, text, MENTION_STRICT);
	while (mention_next(&ms, &m)) {
		/* MN-1: exact names of agents; itself and nobody say nothing. */
		if (mention_copy(&m, word, sizeof(word)) != 0 ||
		    (a = agent_find(word)) == NULL || a == self)
			continue;
		for (j = 0; j < n && named[j] != a; j++)
			;
		if (j < n)
			continue;
		if (n < HANDOFF_MAX_NAMES + 1)
			named[n] = a;
		n++;
		if (n > 1)
			strlcat(list, ", ", sizeof(list));
		strlcat(list, a->client->nick, sizeof(list));
	}
	if (n == 0)
		return;
	/* MN-3: more than three is a list, not a summons. */
	if (n > HANDOFF_MAX_NAMES) {
		conv_notice(cv, "%s named %zu agents (%s): an answer wakes at "
		    "most %d, so none was woken", self->client->nick, n, list,
		    HANDOFF_MAX_NAMES);
		return;
	}
	person = handoff_person(&t->origin);
	turn_chain_from(t, &c);
	for (i = 0; i < n; i++) {
		struct conv *to;

		a = named[i];
		/* MN-5: a refused wake is said, with the name and why. */
		if (!handoff_allow(&c, a, 1, why, sizeof(why))) {
			conv_notice(cv, "@%s was not woken by %s: %s",
			    a->client->nick, self->client->nick, why);
			continue;
		}
		/* AG-2: brought in first, as a person's mention would. */
		if (channel_member(ch, a->client) == NULL &&
		    agent_join(a, person, ch) == -1)
			continue;
		to = conv_get(a, cv->key, cv->target, 0);
		turn_enqueue_woken(to, t, text, msgid, first, last);
	}
}

/*
 * dispatch.c: what people say, to the agents it concerns. A person's
 * message in a channel (the core's channel_message hook) or to an agent
 * privately is filtered (RT-6), may be one of the server's ! commands or
 * an agent's / command (bang.c), brings in an agent it mentions
 * (AG-2), and is routed (route.c) to the agents that answer it as turns.
 */
#include "compat.h"

#include <string.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/bang.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/mention.h"
#include "ircd/bridge/offline.h"
#include "ircd/bridge/route.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/reply.h"

/*
 * The names routing weighs in a channel (RT): its agents, and its people,
 * whom a word may name instead. Past these, the first members are.
 */
#define DISPATCH_MAX_AGENTS	(ROUTE_MAX * 8)
#define DISPATCH_MAX_HUMANS	256

/* RT-3: casefolded channel name -> the agent that spoke there last. */
static struct dict *last_spoke;

void
dispatch_spoke(const char *channel, struct agent *a)
{
	char key[CHANNELLEN + 1];

	if (last_spoke == NULL)
		last_spoke = dict_new();
	casemap_fold(key, channel, sizeof(key));
	dict_set(last_spoke, key, a);
}

static const char *
dispatch_last_spoke(const struct channel *ch)
{
	char key[CHANNELLEN + 1];
	struct agent *a;

	if (last_spoke == NULL)
		return NULL;
	casemap_fold(key, ch->name, sizeof(key));
	return (a = dict_get(last_spoke, key)) != NULL ? a->client->nick : NULL;
}

void
dispatch_channel_gone(const struct channel *ch)
{
	char key[CHANNELLEN + 1];

	if (last_spoke == NULL)
		return;
	casemap_fold(key, ch->name, sizeof(key));
	dict_del(last_spoke, key);
}

void
dispatch_shutdown(void)
{
	if (last_spoke != NULL) {
		dict_free(last_spoke);
		last_spoke = NULL;
	}
}

/*
 * AU-2: may from talk to a? If not, from is told why, and nothing of
 * this reaches a: no turn, no session, no join.
 */
static int
dispatch_may_talk(struct agent *a, struct client *from)
{
	char why[IRC_LINELEN];

	if (authority_may_talk(a, from, why, sizeof(why)))
		return 1;
	reply_notice(from, "%s", why);
	return 0;
}

/*
 * AG-2: -1 when an agent mentioned could not come (agent_join said why),
 * or may not be talked to by from (AU-2).
 */
static int
dispatch_join_mentioned(struct client *from, struct channel *ch, const char *text)
{
	struct mention_scan ms;
	struct mention m;
	struct agent *a;
	char word[NICKLEN + 1];
	int ret = 0;

	/* The same mentions as routing finds (mention.c, people's rules). */
	mention_begin(&ms, text, MENTION_PEOPLE);
	while (mention_next(&ms, &m))
		if (mention_copy(&m, word, sizeof(word)) == 0 &&
		    (a = agent_find(word)) != NULL &&
		    channel_member(ch, a->client) == NULL &&
		    (!dispatch_may_talk(a, from) ||
		    agent_join(a, from, ch) == -1))
			ret = -1;
	return ret;
}

/* Who is in a channel, for routing: its agents' nicks and its people's. */
struct present {
	const char	*agents[DISPATCH_MAX_AGENTS];
	struct agent	*byidx[DISPATCH_MAX_AGENTS];
	const char	*humans[DISPATCH_MAX_HUMANS];
	size_t		 na, nh;
};

static void
dispatch_name(struct client *c, void *arg)
{
	struct present *n = arg;
	struct agent *a = agent_of_client(c);

	if (a != NULL && n->na < DISPATCH_MAX_AGENTS) {
		n->byidx[n->na] = a;
		n->agents[n->na++] = a->client->nick;
	} else if (a == NULL && n->nh < DISPATCH_MAX_HUMANS)
		n->humans[n->nh++] = c->nick;
}

void
dispatch_channel(struct client *from, struct channel *ch, struct outmsg *om)
{
	struct present n = { .na = 0 };
	struct route_names names;
	struct route_result r;
	size_t i;
	struct convkey key;

	/* RT-6: notices, CTCP, bots and agents start nothing. */
	if (om->text == NULL || om->text[0] == '\x01' ||
	    (from->umodes & UMODE_BOT) || agent_of_client(from) != NULL)
		return;
	if (ircd.conf->naccounts > 0)
		offline_keep(from, ch, om);
	/* A server without agents pays nothing more per message. */
	if (ch->nservices == 0 && TAILQ_EMPTY(&all_agents))
		return;
	history_channel_conv(ch, &key);
	/* SC-5: a person writing here (no ! command) releases what was held. */
	if (!bang_is_server(om->text))
		schedule_person_spoke(key.s);
	/* CM: slash commands, and the server's own ! commands. */
	if (bang_channel(from, ch, key.s, om))
		return;
	/*
	 * AG-2: an @mention of a known agent not here yet brings it in first,
	 * so that routing sees it like the others (order, RT-4, RT-5). A
	 * message naming one that cannot come starts nothing: no other agent
	 * answers in its place.
	 */
	if (dispatch_join_mentioned(from, ch, om->text) == -1)
		return;
	channel_each(ch, NULL, dispatch_name, &n);
	names.agents = n.agents;
	names.nagents = n.na;
	names.humans = n.humans;
	names.nhumans = n.nh;
	names.last_speaker = dispatch_last_spoke(ch);
	route_decide(om->text, &names, &r);
	switch (r.outcome) {
	case ROUTE_DISPATCH:
		for (i = 0; i < r.nagents; i++) {
			struct agent *a = n.byidx[r.agents[i]];
			struct conv *cv;

			if (!dispatch_may_talk(a, from))
				continue;
			cv = conv_get(a, key.s, ch->name, 0);
			turn_enqueue(cv, from, from->nick, r.text, om->msgid,
			    om->hid);
		}
		break;
	case ROUTE_AMBIGUOUS: {
		char list[IRC_LINELEN] = "";

		for (i = 0; i < r.ncandidates; i++) {
			if (i > 0)
				strlcat(list, ", ", sizeof(list));
			strlcat(list, n.agents[r.candidates[i]], sizeof(list));
		}
		/* TN-11: routing hints land where the person typed. */
		reply_notice_in(from, ch->name, "\"%s\" could be %s: say "
		    "which", r.word, list);
		break;
	}
	case ROUTE_CHOOSE: {
		char list[IRC_LINELEN] = "";

		for (i = 0; i < n.na; i++) {
			if (i > 0)
				strlcat(list, ", ", sizeof(list));
			strlcat(list, "@", sizeof(list));
			strlcat(list, n.agents[i], sizeof(list));
		}
		reply_notice_in(from, ch->name, "Several agents are in %s; "
		    "name the one you mean: %s", ch->name, list);
		break;
	}
	case ROUTE_NONE:
		break;
	}
	route_result_free(&r);
}

void
dispatch_private(struct client *to, struct client *from, struct outmsg *om)
{
	struct agent *a = to->priv;
	struct convkey p1, p2, key;
	struct conv *cv;

	/* RT-6, RT-7: a person's private PRIVMSG always reaches the agent. */
	if (om->tagmsg || strcmp(om->cmd, "PRIVMSG") != 0 ||
	    om->text[0] == '\x01' || (from->umodes & UMODE_BOT) ||
	    agent_of_client(from) != NULL)
		return;
	history_principal(from, &p1);
	history_principal(to, &p2);
	convkey_private(&key, &p1, &p2);
	if (!bang_is_server(om->text))
		schedule_person_spoke(key.s);
	if (bang_private(from, a, key.s, om))
		return;
	if (!dispatch_may_talk(a, from))
		return;
	cv = conv_get(a, key.s, from->nick, 1);
	turn_enqueue(cv, from, from->nick, om->text, om->msgid, om->hid);
}

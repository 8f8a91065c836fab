/*
 * dispatch.c: what people say, to the agents it concerns. A person's
 * message in a channel (the core's channel_message hook) or to an agent
 * privately is filtered (RT-6), may be one of the server's ! commands or
 * an agent's / command (bang.c), brings in an agent it mentions
 * (AG-2), and is routed (route.c) to the agents that answer it as turns.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/bang.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/mention.h"
#include "ircd/bridge/offline.h"
#include "ircd/bridge/pairrate.h"
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
#include "ircd/xmalloc.h"

/*
 * The names routing weighs in a channel (RT): its agents, and its people,
 * whom a word may name instead. Past these, the first members are.
 */
#define DISPATCH_MAX_AGENTS	(ROUTE_MAX * 8)
#define DISPATCH_MAX_HUMANS	256

/* RT-3: of the people the desk NOTICE asked to name an agent, the last. */
#define DISPATCH_TOLD	4

/*
 * RT-3: what a channel's next message may follow. Names, not pointers:
 * an agent may be gone by the time it is read.
 */
struct chanspeak {
	char		 last[NICKLEN + 1];	/* the agent that spoke last */
	/*
	 * The agent that answered asker last, while nobody else has spoken
	 * since ("" when somebody has), and when it last spoke.
	 */
	char		 answered[NICKLEN + 1];
	struct convkey	 asker;
	uint64_t	 at;
	/* Desk: asked to name an agent once, till they name one. */
	struct convkey	 told[DISPATCH_TOLD];
	size_t		 ntold;
};

/* Casefolded channel name -> struct chanspeak. */
static struct dict *speaks;
/* RT-6: each (bot, agent) pair at MN-4's rate. */
static struct pairrate *bot_rate;

static struct chanspeak *
dispatch_speak(const char *channel, int make)
{
	char key[CHANNELLEN + 1];
	struct chanspeak *cs;

	if (speaks == NULL) {
		if (!make)
			return NULL;
		speaks = dict_new();
	}
	casemap_fold(key, channel, sizeof(key));
	if ((cs = dict_get(speaks, key)) == NULL && make) {
		cs = xcalloc(1, sizeof(*cs));
		dict_set(speaks, key, cs);
	}
	return cs;
}

void
dispatch_spoke(const char *channel, struct agent *a,
    const struct convkey *asker)
{
	struct chanspeak *cs = dispatch_speak(channel, 1);

	strlcpy(cs->last, a->client->nick, sizeof(cs->last));
	/* Its answer goes on, or a new one starts: either way it is last. */
	if (asker != NULL) {
		strlcpy(cs->answered, a->client->nick, sizeof(cs->answered));
		cs->asker = *asker;
		cs->at = server_now_ms();
	} else
		cs->answered[0] = '\0';
}

/*
 * Somebody spoke in the channel (a person, a bot, a CTCP ACTION): unless
 * it is the one the last answer was for, that answer is followed up no
 * more (RT-3: "nobody else has spoken since").
 */
static void
dispatch_heard(struct channel *ch, const struct convkey *who)
{
	struct chanspeak *cs = dispatch_speak(ch->name, 0);

	if (cs != NULL && strcmp(cs->asker.s, who->s) != 0)
		cs->answered[0] = '\0';
}

/* The agent who's message follows up, if any (RT-3). */
static const char *
dispatch_follow_up(struct chanspeak *cs, const struct convkey *who)
{
	uint64_t window = (uint64_t)ircd.conf->follow_up * 60000;

	/* follow-up = 0: none at all, not even within the millisecond. */
	if (cs == NULL || window == 0 || cs->answered[0] == '\0' ||
	    strcmp(cs->asker.s, who->s) != 0 ||
	    server_now_ms() - cs->at > window)
		return NULL;
	return cs->answered;
}

/* RT-3: was who asked already to name an agent here? Then 1; else noted. */
static int
dispatch_told(struct chanspeak *cs, const struct convkey *who)
{
	size_t i;

	for (i = 0; i < cs->ntold; i++)
		if (strcmp(cs->told[i].s, who->s) == 0)
			return 1;
	if (cs->ntold == DISPATCH_TOLD) {
		memmove(&cs->told[0], &cs->told[1],
		    (DISPATCH_TOLD - 1) * sizeof(cs->told[0]));
		cs->ntold--;
	}
	cs->told[cs->ntold++] = *who;
	return 0;
}

/* who named an agent: the next time nobody is named, tell them again. */
static void
dispatch_untold(struct chanspeak *cs, const struct convkey *who)
{
	size_t i;

	for (i = 0; i < cs->ntold; i++)
		if (strcmp(cs->told[i].s, who->s) == 0) {
			memmove(&cs->told[i], &cs->told[i + 1],
			    (cs->ntold - i - 1) * sizeof(cs->told[0]));
			cs->ntold--;
			return;
		}
}

void
dispatch_channel_gone(const struct channel *ch)
{
	char key[CHANNELLEN + 1];

	if (speaks == NULL)
		return;
	casemap_fold(key, ch->name, sizeof(key));
	free(dict_del(speaks, key));
}

void
dispatch_shutdown(void)
{
	size_t pos = 0;
	void *v;

	if (speaks != NULL) {
		while ((v = dict_next(speaks, &pos, NULL)) != NULL)
			free(v);
		dict_free(speaks);
		speaks = NULL;
	}
	pairrate_free(bot_rate);
	bot_rate = NULL;
}

/*
 * RT-6: may the bot from wake a (MN-4's rate for each pair)? If not, it
 * is told where it wrote (a channel's name, NULL in private: TN-11), and
 * the turn does not start.
 */
static int
dispatch_bot_may(struct client *from, const struct convkey *who,
    struct agent *a, const char *where)
{
	if (bot_rate == NULL)
		bot_rate = pairrate_new(PAIRRATE_WAKES, PAIRRATE_WINDOW_MS);
	if (pairrate_take(bot_rate, who->s, a->client->nick, server_now_ms()))
		return 1;
	reply_notice_in(from, where, "%s is not woken: a bot may wake it at "
	    "most %d times a minute", a->client->nick, PAIRRATE_WAKES);
	return 0;
}

/*
 * AU-2: may from talk to a? If not, from is told why, where it wrote
 * (TN-11), and nothing of this reaches a: no turn, no session, no join.
 */
static int
dispatch_may_talk(struct agent *a, struct client *from, const char *where)
{
	char why[IRC_LINELEN];

	if (authority_may_talk(a, from, why, sizeof(why)))
		return 1;
	reply_notice_in(from, where, "%s", why);
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
		    (!dispatch_may_talk(a, from, ch->name) ||
		    agent_join(a, from, ch) == -1))
			ret = -1;
	return ret;
}

/*
 * Who is in a channel, for routing: its agents' nicks and its people's,
 * and how many people who are not bots (RT-3's desk).
 */
struct present {
	const char	*agents[DISPATCH_MAX_AGENTS];
	struct agent	*byidx[DISPATCH_MAX_AGENTS];
	const char	*humans[DISPATCH_MAX_HUMANS];
	size_t		 na, nh;
	size_t		 people;
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
	/* Services and bots are not people one talks with. */
	if (a == NULL && !(c->flags & CLIENT_SERVICE) &&
	    !(c->umodes & UMODE_BOT))
		n->people++;
}

void
dispatch_channel(struct client *from, struct channel *ch, struct outmsg *om)
{
	struct present n = { .na = 0 };
	struct route_names names;
	struct route_result r;
	struct chanspeak *cs;
	struct agent *pasting;
	size_t i;
	struct convkey key, who;
	int bot = (from->umodes & UMODE_BOT) != 0;

	/* Agents' own words are noted as they say them (dispatch_spoke). */
	if (agent_of_client(from) != NULL)
		return;
	history_principal(from, &who);
	dispatch_heard(ch, &who);
	/* RT-6: CTCP starts nothing; a bot, only by naming an agent. */
	if (om->text == NULL || om->text[0] == '\x01')
		return;
	/* RT-8 keeps what people say for the absent, not what bots do. */
	if (!bot && ircd.conf->naccounts > 0)
		offline_keep(from, ch, om);
	/* A server without agents pays nothing more per message. */
	if (ch->nservices == 0 && TAILQ_EMPTY(&all_agents))
		return;
	history_channel_conv(ch, &key);
	/* SC-5: a person writing here (no ! command) releases what was held. */
	if (!bot && !bang_is_server(om->text))
		schedule_person_spoke(key.s);
	/* CM: slash commands, and the server's own ! commands. */
	if (!bot && bang_channel(from, ch, key.s, om))
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
	cs = dispatch_speak(ch->name, 0);
	names.last_speaker = cs != NULL && cs->last[0] != '\0' ? cs->last :
	    NULL;
	/*
	 * TN-10: the next line of a paste goes where its first went, while
	 * that prompt waits; else RT-3's follow-up.
	 */
	pasting = turn_pasting(key.s, &who);
	names.follow_up = pasting != NULL ? pasting->client->nick :
	    dispatch_follow_up(cs, &who);
	/*
	 * A desk: nobody else here to talk with (bots, services aside). A
	 * command no agent claimed (CM-3) is routed as at a desk: "/perm"
	 * is never people talking to people.
	 */
	names.desk = n.people <= 1 || om->text[0] == '/';
	names.exact = bot;
	route_decide(om->text, &names, &r);
	/* Named a person: what comes next is not for the agent (RT-8). */
	if (r.human && cs != NULL && strcmp(cs->asker.s, who.s) == 0)
		cs->answered[0] = '\0';
	if (r.outcome == ROUTE_DISPATCH && cs != NULL)
		dispatch_untold(cs, &who);
	switch (r.outcome) {
	case ROUTE_DISPATCH:
		for (i = 0; i < r.nagents; i++) {
			struct agent *a = n.byidx[r.agents[i]];
			struct conv *cv;

			if (!dispatch_may_talk(a, from, ch->name) ||
			    (bot && !dispatch_bot_may(from, &who, a,
			    ch->name)))
				continue;
			cv = conv_get(a, key.s, ch->name, 0);
			/* MN-6: a named agent is told who called it. */
			turn_enqueue(cv, from, from->nick, r.text, om->msgid,
			    om->hid, r.named ? TURN_NAMED : TURN_ASKED);
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

		/* RT-3: once, till they name one. */
		if (dispatch_told(dispatch_speak(ch->name, 1), &who))
			break;
		for (i = 0; i < n.na; i++) {
			if (i > 0)
				strlcat(list, ", ", sizeof(list));
			strlcat(list, "@", sizeof(list));
			strlcat(list, n.agents[i], sizeof(list));
		}
		/* UX review 22: a name typed wrong is said to be so. */
		if (r.unknown[0] != '\0')
			reply_notice_in(from, ch->name, "Nobody here is named "
			    "%s; name one of the agents here: %s", r.unknown,
			    list);
		else
			reply_notice_in(from, ch->name, "Several agents are in "
			    "%s; name the one you mean: %s", ch->name, list);
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

	int bot = (from->umodes & UMODE_BOT) != 0;

	/*
	 * RT-6, RT-7: a person's private PRIVMSG always reaches the agent; a
	 * bot's names it exactly, so it does too, at MN-4's rate.
	 */
	if (om->tagmsg || strcmp(om->cmd, "PRIVMSG") != 0 ||
	    om->text[0] == '\x01' || agent_of_client(from) != NULL)
		return;
	history_principal(from, &p1);
	history_principal(to, &p2);
	convkey_private(&key, &p1, &p2);
	if (!bot && !bang_is_server(om->text))
		schedule_person_spoke(key.s);
	if (!bot && bang_private(from, a, key.s, om))
		return;
	if (!dispatch_may_talk(a, from, NULL) ||
	    (bot && !dispatch_bot_may(from, &p1, a, NULL)))
		return;
	cv = conv_get(a, key.s, from->nick, 1);
	/* MN-6: a private message is asked, not a summons. */
	turn_enqueue(cv, from, from->nick, om->text, om->msgid, om->hid,
	    TURN_ASKED);
}

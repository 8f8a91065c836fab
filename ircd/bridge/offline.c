/*
 * offline.c: mentions of people who are away (RT-8). An "@name" of a
 * configured account that nobody is logged in as is kept, and told to
 * the person, one NOTICE per channel, when they next log in.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/mention.h"
#include "ircd/bridge/offline.h"
#include "ircd/bridge/prompt.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/reply.h"
#include "store/store.h"

/* Characters of a mention quoted when it is told: enough to know it. */
#define OFFLINE_QUOTE	80
/* Characters of an agent's answer kept for that (its names are in them). */
#define OFFLINE_ANSWER_KEPT	400

static int
offline_account_online(const char *account)
{
	struct client *c;

	TAILQ_FOREACH(c, &ircd.all, entry)
		if (c->account != NULL && casemap_cmp(c->account, account) == 0)
			return 1;
	return 0;
}

/*
 * Keep the "@name" mentions in text (read in mode) of configured accounts
 * nobody is logged in as, said by from at time_ms in ch: kept is what is
 * stored of text.
 */
static void
offline_keep_text(const char *from, struct channel *ch, const char *text,
    const char *kept, int64_t time_ms, enum mention_mode mode)
{
	struct mention_scan ms;
	struct mention m;
	size_t i;

	mention_begin(&ms, text, mode);
	while (mention_next(&ms, &m)) {
		char word[NICKLEN + 1], folded[NICKLEN + 1];
		struct client *c;

		/*
		 * Not a nick, or an agent: not this rule. Whoever holds the
		 * nick now does not make the account's mentions go (AU-4):
		 * the account is away unless someone is logged in to it.
		 */
		if (mention_copy(&m, word, sizeof(word)) == -1 ||
		    ((c = client_find(word)) != NULL &&
		    (c->flags & CLIENT_SERVICE)))
			continue;
		for (i = 0; i < ircd.conf->naccounts; i++) {
			struct store_mention sm;

			if (casemap_cmp(ircd.conf->accounts[i].name, word) != 0 ||
			    offline_account_online(word))
				continue;
			casemap_fold(folded, ircd.conf->accounts[i].name, sizeof(folded));
			sm.account = folded;
			sm.target = ch->name;
			sm.from = from;
			sm.time = time_ms;
			sm.text = kept;
			store_mention_add(history_store(), &sm);
			break;
		}
	}
}

void
offline_keep(struct client *from, struct channel *ch, struct outmsg *om)
{
	/* The same mentions as routing finds (mention.c, people's rules). */
	offline_keep_text(from->nick, ch, om->text, om->text, om->time_ms,
	    MENTION_PEOPLE);
}

void
offline_keep_answer(const char *agent, struct channel *ch, const char *text,
    int64_t time_ms)
{
	char *words;

	if (ircd.conf->naccounts == 0)
		return;
	/*
	 * An answer may be long: what is kept is its start, about what a
	 * person's line would be (what is told is shorter still).
	 */
	words = prompt_shorten(text, OFFLINE_ANSWER_KEPT);
	offline_keep_text(agent, ch, text, words, time_ms, MENTION_STRICT);
	free(words);
}

struct told {
	struct client	*c;
	char		 target[CHANNELLEN + 1];
	unsigned	 more;
};

static void
offline_told_flush(struct told *t)
{
	if (t->more > 0)
		reply_notice(t->c, "... and %u more mention%s in %s", t->more,
		    t->more == 1 ? "" : "s", t->target);
	t->more = 0;
}

static void
offline_tell_one(const struct store_mention *sm, void *arg)
{
	struct told *t = arg;
	char ts[32], *words;
	/* One NOTICE per channel: the first mention, then how many more. */
	if (strcmp(t->target, sm->target) == 0) {
		t->more++;
		return;
	}
	offline_told_flush(t);
	strlcpy(t->target, sm->target, sizeof(t->target));
	clock_utc(ts, sizeof(ts), "%Y-%m-%d %H:%M UTC",
	    (time_t)(sm->time / 1000));
	words = prompt_shorten(sm->text, OFFLINE_QUOTE);
	reply_notice(t->c, "While you were away, %s mentioned you in %s at "
	    "%s: %s", sm->from, sm->target, ts, words);
	free(words);
}

void
offline_tell(struct client *c)
{
	struct told t;
	char folded[NICKLEN * 2 + 1];

	if (c->account == NULL || history_store() == NULL)
		return;
	memset(&t, 0, sizeof(t));
	t.c = c;
	casemap_fold(folded, c->account, sizeof(folded));
	store_mention_take(history_store(), folded, offline_tell_one, &t);
	offline_told_flush(&t);
}

/*
 * aim.c: where an agent's tool may aim, when not at its own conversation
 * (AU-5): a schedule (schedule.c) or a hand-off (task.c) goes only where
 * the person who asked for the running turn belongs. One check, so that
 * the two never drift apart. Consent there is the caller's: a card in
 * the target conversation.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/aim.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/convkey.h"
#include "ircd/history.h"

/* Is a member of ch the principal p (the person who asked)? */
struct aim_find {
	const struct convkey	*p;
	int			 found;
};

static void
aim_find_cb(struct client *c, void *arg)
{
	struct aim_find *f = arg;

	if (!f->found && history_principal_is(c, f->p))
		f->found = 1;
}

/*
 * AU-5, H3: see aim.h. A person who asks talks to the agent, so their
 * own private conversation with it is theirs to aim at. The reason is
 * the same whether a channel does not exist or only is not theirs
 * (AU-8).
 */
int
aim_target(struct conv *cv, const char *target, const char *what,
    struct convkey *tkey, char *tname, size_t tlen, int *tpriv, char *out,
    size_t len)
{
	struct turn *t = cv->turn;
	struct agent *a = cv->agent;
	struct channel *ch = NULL;
	struct client *peer = NULL;
	struct aim_find f;
	struct convkey me, p;
	int person = t != NULL && t->principal.s[0] != '\0';

	if (casemap_is_channel(target)) {
		if ((ch = channel_find(target)) == NULL ||
		    channel_member(ch, a->client) == NULL)
			ch = NULL;
		else
			history_channel_conv(ch, tkey);
	} else if ((peer = client_find(target)) != NULL &&
	    agent_of_client(peer) == NULL) {
		history_principal(peer, &p);
		history_principal(a->client, &me);
		convkey_private(tkey, &p, &me);
	} else
		peer = NULL;
	if ((ch != NULL || peer != NULL) && strcmp(tkey->s, cv->key) == 0)
		person = 1;	/* only named, it is this conversation */
	else if (!person) {
		snprintf(out, len, "no person asked for this turn (it is a "
		    "schedule's or nobody's), so %s goes only here, not to %s",
		    what, target);
		return -1;
	} else if (ch != NULL) {
		f.p = &t->principal;
		f.found = 0;
		channel_each(ch, NULL, aim_find_cb, &f);
		if (!f.found)
			ch = NULL;
	} else if (peer != NULL && !history_principal_is(peer, &t->principal))
		peer = NULL;
	if (ch == NULL && casemap_is_channel(target)) {
		snprintf(out, len, "%s is not a channel that both %s (who asked) "
		    "and I are in; %s goes only where the person who "
		    "asked for it is", target, t->requester, what);
		return -1;
	}
	if (ch == NULL && peer == NULL) {
		snprintf(out, len, "%s is not %s, who asked: %s goes to a "
		    "person's private conversation only when that person asks "
		    "for it", target, t->requester, what);
		return -1;
	}
	strlcpy(tname, ch != NULL ? ch->name : peer->nick, tlen);
	*tpriv = ch == NULL;
	return 0;
}


/*
 * authority.c: who may make an agent act. The config's permissions (the
 * agent's and its channel's) are a ceiling nobody on IRC raises (AU-1);
 * its users say who may talk to it (AU-2), its admins and the IRC
 * operators who may loosen, its modes what !mode may pick (AU-3); and a
 * +s channel is named only to its members (AU-8).
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/policy.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/ircd.h"
#include "ircd/log.h"
#include "store/store.h"

/* "policy.<nick>.<convkey>", "mode.<nick>.<convkey>": kv keys. */
#define KVKEYLEN	(sizeof("policy..") + NICKLEN + CONVKEY_LEN)
/* A stored policy's name, or a mode id; longer ones are not ours. */
#define KVVALLEN	64

/* Is account (NULL: none) in list (NULL-terminated, or NULL)? */
static int
listed(char *const *list, const char *account)
{
	size_t i;

	if (account == NULL || list == NULL)
		return 0;
	for (i = 0; list[i] != NULL; i++)
		if (casemap_cmp(list[i], account) == 0)
			return 1;
	return 0;
}

static const struct conf_channel *
conf_channel_find(const char *name)
{
	size_t i;

	if (ircd.conf == NULL || name == NULL)
		return NULL;
	for (i = 0; i < ircd.conf->nchannels; i++)
		if (casemap_cmp(ircd.conf->channels[i].name, name) == 0)
			return &ircd.conf->channels[i];
	return NULL;
}

enum policy
authority_ceiling(const struct agent *a, const char *channel)
{
	const struct conf_channel *cc;
	enum policy p;

	/* The config always sets the agent's; ask is only for zeroed memory. */
	p = policy_resolve(POLICY_UNSET, policy_find(a->conf->permissions));
	if ((cc = conf_channel_find(channel)) != NULL)
		p = policy_strictest(p, policy_find(cc->permissions));
	return p;
}

enum policy
authority_policy(const struct conv *cv)
{
	enum policy ceiling;

	ceiling = authority_ceiling(cv->agent, cv->private ? NULL :
	    cv->target);
	return policy_clamp(policy_resolve(cv->policy, ceiling), ceiling);
}

int
authority_may_loosen(const struct agent *a, const struct client *c)
{
	return client_is_oper(c) || listed(a->conf->admins, c->account);
}

int
authority_may_talk(const struct agent *a, const struct client *c,
    char *why, size_t len)
{
	char *const *users = a->conf->users;
	static char *const anyone[] = { "*", NULL };
	static char *const logged_in[] = { "logged-in", NULL };
	size_t i;
	int accounts = 0;

	/* Who may loosen its policy may surely talk to it. */
	if (authority_may_loosen(a, c))
		return 1;
	if (users == NULL)
		users = ircd.conf != NULL && ircd.conf->naccounts > 0 ?
		    logged_in : anyone;
	for (i = 0; users[i] != NULL; i++) {
		if (strcmp(users[i], "*") == 0)
			return 1;
		if (strcmp(users[i], "logged-in") == 0) {
			if (c->account != NULL)
				return 1;
		} else
			accounts = 1;
	}
	if (listed(users, c->account))
		return 1;
	if (c->account == NULL)
		snprintf(why, len, "%s talks only to people logged in to %s; "
		    "log in first", a->client->nick, accounts ?
		    "accounts it names" : "an account");
	else
		snprintf(why, len, "%s does not talk to account %s",
		    a->client->nick, c->account);
	return 0;
}

int
authority_mode_allowed(const struct agent *a, const char *modeid,
    const char *initial)
{
	return policy_mode_allowed(a->conf->modes, modeid, initial);
}

static void
kv_key(char *buf, size_t len, const char *what, const struct conv *cv)
{
	snprintf(buf, len, "%s.%s.%s", what, cv->agent->client->nick, cv->key);
}

static enum policy
conv_ceiling(const struct conv *cv)
{
	return authority_ceiling(cv->agent, cv->private ? NULL : cv->target);
}

/*
 * The policy stored under key is val: into *pp, clamped to ceiling. 1
 * when it was looser (now stored clamped), 0 when it holds, -1 when it is
 * no policy (now dropped). Each change is logged.
 */
static int
policy_stored(const char *key, const char *val, enum policy ceiling,
    enum policy *pp)
{
	if (policy_parse(val, pp) == -1) {
		log_warnx("%s: stored policy \"%s\" is none; dropped", key, val);
		store_kv_set(history_store(), key, NULL);
		return -1;
	}
	if (!policy_looser(*pp, ceiling))
		return 0;
	log_warnx("%s: stored policy %s is looser than the config's %s; "
	    "clamped", key, val, policy_name(ceiling));
	*pp = ceiling;
	store_kv_set(history_store(), key, policy_name(ceiling));
	return 1;
}

/* store_kv_list's callback: one "policy.<nick>.<convkey>" = value. */
static void
clamp_one(const char *key, const char *val, void *arg)
{
	char nick[NICKLEN + 1];
	const char *conv = key + strlen("policy."), *dot;
	const struct agent *a;
	enum policy p, ceiling;
	int *n = arg;

	/* A nick has no '.'; a connection's key may. */
	if ((dot = strchr(conv, '.')) == NULL || (size_t)(dot - conv) > NICKLEN)
		return;
	snprintf(nick, sizeof(nick), "%.*s", (int)(dot - conv), conv);
	conv = dot + 1;
	/* An agent no longer configured: its conversations never open. */
	if ((a = agent_find(nick)) == NULL)
		return;
	ceiling = authority_ceiling(a, convkey_is_channel(conv) ? conv : NULL);
	if (policy_stored(key, val, ceiling, &p) == 1)
		(*n)++;
}

void
authority_clamp_stored(void)
{
	int n = 0;

	if (store_kv_list(history_store(), "policy.", clamp_one, &n) > 0 &&
	    n > 0)
		log_info("%d stored policies clamped to the config's ceilings",
		    n);
}

void
authority_policy_load(struct conv *cv)
{
	char key[KVKEYLEN], val[KVVALLEN];
	enum policy p, ceiling;

	kv_key(key, sizeof(key), "policy", cv);
	if (store_kv_get(history_store(), key, val, sizeof(val)) != 0)
		return;
	ceiling = conv_ceiling(cv);
	/* authority_clamp_stored() saw it at start; checked again, cheaply. */
	if (policy_stored(key, val, ceiling, &p) != -1)
		cv->policy = p;
}

void
authority_policy_set(struct conv *cv, enum policy p)
{
	char key[KVKEYLEN];

	cv->policy = p;
	kv_key(key, sizeof(key), "policy", cv);
	store_kv_set(history_store(), key, p == POLICY_UNSET ? NULL :
	    policy_name(p));
}

int
authority_mode_load(const struct conv *cv, const char *initial, char *buf,
    size_t len)
{
	char key[KVKEYLEN];

	kv_key(key, sizeof(key), "mode", cv);
	if (store_kv_get(history_store(), key, buf, len) != 0)
		return -1;
	if (!authority_mode_allowed(cv->agent, buf, initial)) {
		log_warnx("%s: stored mode %s is not allowed by the config's "
		    "modes any more; dropped", key, buf);
		store_kv_set(history_store(), key, NULL);
		return -1;
	}
	return 0;
}

void
authority_mode_store(const struct conv *cv, const char *id)
{
	char key[KVKEYLEN];

	kv_key(key, sizeof(key), "mode", cv);
	store_kv_set(history_store(), key, id);
}

const char *
authority_where(const struct client *asker, const struct conv *cv)
{
	if (cv->private)
		return "a private conversation";
	return authority_channel_name(asker, cv->target);
}

const char *
authority_channel_name(const struct client *asker, const char *name)
{
	struct channel *ch;

	if (name[0] != '#')
		return name;
	ch = channel_find(name);
	if (ch == NULL || ((ch->modes & CMODE_SECRET) &&
	    (asker == NULL || channel_member(ch, asker) == NULL)))
		return "a channel";
	return name;
}

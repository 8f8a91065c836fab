/*
 * reload.c: a config reload (SIGHUP, REHASH) for the agents (issue 24).
 * The [agent] sections of the new file are matched by name against the
 * agents that run: a section with no agent yet makes one, as at start;
 * an agent with no section any more QUITs; an agent whose section
 * changed takes the change, at once or at its next process start. One
 * log line says what happened to each agent, and the operators get a
 * NOTICE summing it up. The core swaps the arrays after this hook: each
 * agent kept is pointed at its section of the new file here.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/mcp.h"
#include "ircd/bridge/reload.h"
#include "ircd/bridge/schedule.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/log.h"
#include "ircd/reply.h"

#define RELOAD_QUIT	"Removed from the server's configuration"
#define RELOAD_PART	"Removed from its configured channels"
/* What turns that were waiting on a removed agent are told (TN-9). */
#define RELOAD_WHY	"it was removed from the server's configuration"

/* A line of what changed: "command, channels (+#a -#b)", cut to fit. */
#define RELOAD_WHAT	300
/* The operators' summary: agent names, cut to fit one NOTICE. */
#define RELOAD_NAMES	120

struct reload_sum {
	int	 added, removed, changed, failed;
	char	 names_added[RELOAD_NAMES];
	char	 names_removed[RELOAD_NAMES];
	char	 names_changed[RELOAD_NAMES];
	char	 names_failed[RELOAD_NAMES];
	int	 clamp;		/* a ceiling (permissions) changed */
};

static int
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/*
 * NULL-terminated lists, in order (a list's order matters: users are
 * checked in it, env is given in it). only_set: the env entries with a
 * '=' alone, the explicit ones, not env-inherit's names conf.c appends.
 */
static int
strv_eq(char *const *a, char *const *b, int only_set)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (only_set && a != NULL && a[i] != NULL &&
		    strchr(a[i], '=') == NULL)
			i++;
		while (only_set && b != NULL && b[j] != NULL &&
		    strchr(b[j], '=') == NULL)
			j++;
		if (a == NULL || a[i] == NULL || b == NULL || b[j] == NULL)
			return (a == NULL || a[i] == NULL) &&
			    (b == NULL || b[j] == NULL);
		if (strcmp(a[i++], b[j++]) != 0)
			return 0;
	}
}

/* Does channel list v name ch (channel names compare casemapped)? */
static int
chans_have(char *const *v, const char *ch)
{
	for (; v != NULL && *v != NULL; v++)
		if (casemap_cmp(*v, ch) == 0)
			return 1;
	return 0;
}

/* Add word to a ", "-separated list in buf. */
static void
list_add(char *buf, size_t len, const char *word)
{
	if (buf[0] != '\0')
		strlcat(buf, ", ", len);
	strlcat(buf, word, len);
}

static const struct conf_agent *
reload_find(const struct conf *nc, const char *nick)
{
	size_t i;

	for (i = 0; i < nc->nagents; i++)
		if (casemap_cmp(nc->agents[i].name, nick) == 0)
			return &nc->agents[i];
	return NULL;
}

/*
 * AG-2: the configured channels the new section adds are joined, those
 * it drops are parted (as a KICK: the session there closes). A channel
 * the agent was brought into (INVITE, a mention) is not configured, and
 * stays.
 */
static void
reload_channels(struct agent *a, const struct conf_agent *old,
    const struct conf_agent *ca, char *what, size_t len)
{
	char buf[RELOAD_WHAT] = "";
	struct channel *ch;
	char *const *v;

	for (v = ca->channels; v != NULL && *v != NULL; v++)
		if (!chans_have(old->channels, *v)) {
			agent_join_conf(a, *v);
			strlcat(buf, buf[0] != '\0' ? " +" : "+", sizeof(buf));
			strlcat(buf, *v, sizeof(buf));
		}
	for (v = old->channels; v != NULL && *v != NULL; v++)
		if (!chans_have(ca->channels, *v)) {
			if ((ch = channel_find(*v)) != NULL)
				agent_part_conf(a, ch, RELOAD_PART);
			strlcat(buf, buf[0] != '\0' ? " -" : "-", sizeof(buf));
			strlcat(buf, *v, sizeof(buf));
		}
	if (buf[0] != '\0') {
		list_add(what, len, "channels (");
		strlcat(what, buf, len);
		strlcat(what, ")", len);
	}
}

/* An agent whose section the new file has: what changed applies. */
static void
reload_change(struct agent *a, const struct conf_agent *ca,
    struct reload_sum *sum)
{
	const struct conf_agent *old = a->conf;
	const char *nick = a->client->nick, *desc;
	char what[RELOAD_WHAT] = "";
	int restart = 0;

	/* The old section goes with the old config, once this hook is done. */
	a->conf = ca;
	if (!str_eq(old->command, ca->command)) {
		list_add(what, sizeof(what), "command");
		restart = 1;
	}
	/* SEC-8: which keys changed, never their values. */
	if (!strv_eq(old->env, ca->env, 1)) {
		list_add(what, sizeof(what), "env");
		restart = 1;
	}
	if (!strv_eq(old->env_inherit, ca->env_inherit, 0)) {
		list_add(what, sizeof(what), "env-inherit");
		restart = 1;
	}
	if (!str_eq(old->cwd, ca->cwd)) {
		list_add(what, sizeof(what), "cwd");
		restart = 1;
	}
	reload_channels(a, old, ca, what, sizeof(what));
	/* These are read where they are used: they apply from now on. */
	if (!str_eq(old->description, ca->description)) {
		list_add(what, sizeof(what), "description");
		/* AG-1: the agent's own title, once known, comes first. */
		if (acp_agent_title(a->acp) == NULL) {
			desc = ca->description != NULL ? ca->description :
			    ca->name;
			client_set_realname(a->client, desc, strlen(desc));
		}
	}
	if (!strv_eq(old->users, ca->users, 0))
		list_add(what, sizeof(what), "users");
	if (!strv_eq(old->admins, ca->admins, 0))
		list_add(what, sizeof(what), "admins");
	if (!str_eq(old->permissions, ca->permissions)) {
		list_add(what, sizeof(what), "permissions");
		sum->clamp = 1;
	}
	if (!strv_eq(old->modes, ca->modes, 0))
		list_add(what, sizeof(what), "modes");
	if (!str_eq(old->tools, ca->tools))
		list_add(what, sizeof(what), "tools");

	/* TN-9: a reload gives a broken agent a fresh start. */
	if (acp_agent_broken(a->acp)) {
		acp_agent_reset(a->acp);
		log_info("rehash: agent %s was broken; it starts again when "
		    "next asked", nick);
		if (what[0] == '\0')
			list_add(what, sizeof(what), "broken, started afresh");
	}
	if (restart && agent_reconfigure(a) == -1)
		log_warnx("rehash: agent %s: its new command cannot be used; "
		    "it keeps the one it has", nick);
	if (what[0] == '\0')
		return;
	log_info("rehash: agent %s changed: %s%s", nick, what, !restart ? "" :
	    acp_agent_running(a->acp) ? "; the command applies when its "
	    "process next starts, after any answer it is giving" :
	    "; the command applies at its next start");
	sum->changed++;
	list_add(sum->names_changed, sizeof(sum->names_changed), nick);
}

static void
reload_add(const struct conf_agent *ca, struct reload_sum *sum)
{
	char chans[RELOAD_WHAT] = "";
	struct agent *a;
	struct member *m;

	if ((a = agent_add(ca)) == NULL) {
		log_warnx("rehash: agent %s not added: the nick is in use; "
		    "a later reload adds it once it is free", ca->name);
		sum->failed++;
		list_add(sum->names_failed, sizeof(sum->names_failed),
		    ca->name);
		return;
	}
	/* SC-7: schedules kept while it was away are its again. */
	schedule_agent_back(a);
	TAILQ_FOREACH(m, &a->client->channels, by_client)
		list_add(chans, sizeof(chans), m->channel->name);
	log_info("rehash: agent %s added%s%s", a->client->nick,
	    chans[0] != '\0' ? ", in " : "", chans);
	sum->added++;
	list_add(sum->names_added, sizeof(sum->names_added), a->client->nick);
}

/* One part of the operators' NOTICE: "1 added (helper)". */
static void
reload_part(char *buf, size_t len, int n, const char *verb,
    const char *names)
{
	char one[RELOAD_NAMES + 40];

	if (n == 0)
		return;
	snprintf(one, sizeof(one), "%d %s (%s)", n, verb, names);
	if (buf[0] != '\0')
		strlcat(buf, "; ", len);
	strlcat(buf, one, len);
}

void
reload_agents(const struct conf *nc)
{
	struct reload_sum sum;
	struct agent *a, *ta;
	const struct conf_agent *ca;
	char line[IRC_LINELEN] = "";
	size_t i;

	memset(&sum, 0, sizeof(sum));
	/* The first agent of a server that started with none needs its tools. */
	if (nc->nagents > 0 && mcp_init() == -1)
		log_warnx("rehash: no MCP tool server; agents run without "
		    "their tools");
	TAILQ_FOREACH_SAFE(a, &all_agents, entry, ta) {
		if ((ca = reload_find(nc, a->client->nick)) != NULL) {
			reload_change(a, ca, &sum);
			continue;
		}
		log_info("rehash: agent %s removed: it quits, its process "
		    "stops; its schedules, sessions and history stay stored",
		    a->client->nick);
		sum.removed++;
		list_add(sum.names_removed, sizeof(sum.names_removed),
		    a->client->nick);
		agent_remove(a, RELOAD_QUIT, RELOAD_WHY);
	}
	for (i = 0; i < nc->nagents; i++)
		if (agent_find(nc->agents[i].name) == NULL)
			reload_add(&nc->agents[i], &sum);
	if (sum.clamp)
		authority_clamp_stored();

	reload_part(line, sizeof(line), sum.added, "added", sum.names_added);
	reload_part(line, sizeof(line), sum.removed, "removed",
	    sum.names_removed);
	reload_part(line, sizeof(line), sum.changed, "changed",
	    sum.names_changed);
	reload_part(line, sizeof(line), sum.failed, "not added, nick in use",
	    sum.names_failed);
	if (line[0] == '\0')
		strlcpy(line, "none added, removed or changed", sizeof(line));
	log_info("rehash: agents: %s", line);
	reply_opers("Rehash: agents: %s", line);
}

/*
 * agent.c: agents as IRC users. Each configured agent is a registered
 * client without a connection (AG-1), whose client ops hand what reaches
 * it to the bridge; this file makes them, answers WHOIS and HELP AGENTS
 * about them, keeps the commands they announce, and lets them go.
 */
#include "compat.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/callbacks.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/handoff.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

/*
 * The commands an agent may announce (CM-1): each is kept in memory, in
 * the database and in WHOIS, and an agent has tens; a runaway list stops
 * here.
 */
#define AGENT_MAX_CMDS		256
/* The command list's key/value key, and its JSON value's longest. */
#define AGENT_CMDS_KEY		"agent.commands."
#define AGENT_CMDS_JSON_MAX	(64 * 1024)
/*
 * WHOIS "commands:" lines: a new line past this many bytes, well within
 * a 512-byte RPL_WHOISSPECIAL with its prefix and nick; one command's
 * " /name <hint>" is cut at AGENT_WHOIS_CMD (hints are the agent's).
 */
#define AGENT_WHOIS_LINE	300
#define AGENT_WHOIS_CMD		160
/*
 * A NOTICE of an agent's (a card, a mode list) is one line: its text is
 * cut, at a character, where the prefix and target still fit.
 */
#define AGENT_EMIT_MAX		(IRC_LINELEN - 100)

struct agent_list all_agents = TAILQ_HEAD_INITIALIZER(all_agents);
static struct acp_pool *pool;
static const struct client_ops agent_ops;

static void
agent_acp_log(enum acp_log_level lvl, const char *msg, void *arg)
{
	(void)arg;
	switch (lvl) {
	case ACP_LOG_DEBUG: log_debug("acp: %s", msg); break;
	case ACP_LOG_INFO: log_info("acp: %s", msg); break;
	default: log_warnx("acp: %s", msg); break;
	}
}

static struct agent *
agent_of(const struct client *c)
{
	/* NULL after shutdown */
	return c->ops == &agent_ops ? c->priv : NULL;
}

struct agent *
agent_of_client(const struct client *c)
{
	return agent_of(c);
}

struct agent *
agent_find(const char *nick)
{
	struct client *c = client_find(nick);

	return c != NULL ? agent_of(c) : NULL;
}

const struct agent_cmd *
agent_cmd_find(const struct agent *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ncmds; i++)
		if (strcmp(a->cmds[i].name, name) == 0)
			return &a->cmds[i];
	return NULL;
}

static void
agent_free_cmds(struct agent *a)
{
	size_t i;

	for (i = 0; i < a->ncmds; i++) {
		free(a->cmds[i].name);
		free(a->cmds[i].description);
		free(a->cmds[i].hint);
	}
	free(a->cmds);
	a->cmds = NULL;
	a->ncmds = 0;
}

static void
agent_add_cmd(struct agent *a, const char *name, const char *desc,
    const char *hint)
{
	struct agent_cmd *c;

	if (name == NULL || name[0] == '\0' || a->ncmds >= AGENT_MAX_CMDS)
		return;
	a->cmds = xreallocarray(a->cmds, a->ncmds + 1, sizeof(*a->cmds));
	c = &a->cmds[a->ncmds++];
	c->name = xstrdup(name[0] == '/' ? name + 1 : name);
	c->description = xstrdup(desc != NULL ? desc : "");
	c->hint = hint != NULL ? xstrdup(hint) : NULL;
}

/* CM-1: the list is kept in the database, known after a restart. */
static void
agent_save_cmds(struct agent *a)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	char key[sizeof(AGENT_CMDS_KEY) + NICKLEN], *json;
	size_t i;

	for (i = 0; i < a->ncmds; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", a->cmds[i].name);
		cJSON_AddStringToObject(o, "description",
		    a->cmds[i].description);
		if (a->cmds[i].hint != NULL)
			cJSON_AddStringToObject(o, "hint", a->cmds[i].hint);
		cJSON_AddItemToArray(arr, o);
	}
	json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	snprintf(key, sizeof(key), AGENT_CMDS_KEY "%s", a->client->nick);
	if (json != NULL)
		store_kv_set(history_store(), key, json);
	cJSON_free(json);
}

static void
agent_load_cmds(struct agent *a)
{
	char key[sizeof(AGENT_CMDS_KEY) + NICKLEN], *buf;
	cJSON *arr, *o;
	int rc;

	snprintf(key, sizeof(key), AGENT_CMDS_KEY "%s", a->client->nick);
	buf = xmalloc(AGENT_CMDS_JSON_MAX);
	rc = store_kv_get(history_store(), key, buf, AGENT_CMDS_JSON_MAX);
	arr = rc == 0 ? cJSON_Parse(buf) : NULL;
	free(buf);
	if (arr == NULL)
		return;
	cJSON_ArrayForEach(o, arr)
		agent_add_cmd(a,
		    cJSON_GetStringValue(cJSON_GetObjectItem(o, "name")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(o, "description")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(o, "hint")));
	cJSON_Delete(arr);
	a->cmds_known = 1;
}

void
agent_set_cmds(struct agent *a, const struct acp_command *cmds, size_t n)
{
	size_t i;

	agent_free_cmds(a);
	for (i = 0; i < n; i++)
		agent_add_cmd(a, cmds[i].name, cmds[i].description,
		    cmds[i].hint);
	a->cmds_known = 1;
	agent_save_cmds(a);
}

void
agent_emit(struct conv *cv, const char *cmd, const char *text)
{
	stream_send(cv, NULL, cmd, text, message_utf8_trunc(text, strlen(text),
	    AGENT_EMIT_MAX), 0);
}

int
agent_help(struct client *c, const char *subject)
{
	struct agent *a, *only = agent_find(subject);
	char line[IRC_LINELEN];
	size_t i;

	if (only == NULL && strcasecmp(subject, "agents") != 0)
		return 0;
	reply(c, RPL_HELPSTART, subject, "Agents and the commands they "
	    "announced; type //cmd (WeeChat, HexChat), /say /cmd (irssi) "
	    "or !cmd");
	TAILQ_FOREACH(a, &all_agents, entry) {
		if (only != NULL && a != only)
			continue;
		snprintf(line, sizeof(line), "%s: %s", a->client->nick,
		    a->ncmds > 0 ? "" : (a->cmds_known ? "no commands" :
		    "commands not known yet"));
		reply(c, RPL_HELPTXT, subject, line);
		for (i = 0; i < a->ncmds; i++) {
			snprintf(line, sizeof(line), "  /%s:%s%s%s%s  %s",
			    a->client->nick, a->cmds[i].name,
			    a->cmds[i].hint ? " <" : "",
			    a->cmds[i].hint ? a->cmds[i].hint : "",
			    a->cmds[i].hint ? ">" : "", a->cmds[i].description);
			reply(c, RPL_HELPTXT, subject, line);
		}
	}
	reply(c, RPL_ENDOFHELP, subject, "End of /HELP");
	return 1;
}

int
agent_session_stored(struct agent *a, const char *key)
{
	char sid[CONV_SID_LEN];
	int64_t seen;

	return store_session_get(history_store(), a->client->nick, key, sid,
	    sizeof(sid), &seen) == 0 && sid[0] != '\0';
}

void
agent_ask(struct agent *a, struct client *from, const char *key,
    const char *target, int private, const char *text, struct outmsg *om)
{
	struct conv *cv;
	char why[IRC_LINELEN];

	/* AU-2: a command forwarded is a prompt like any other. */
	if (!authority_may_talk(a, from, why, sizeof(why))) {
		/* TN-11: told where it was typed. */
		reply_notice_in(from, private ? NULL : target, "%s", why);
		return;
	}
	cv = conv_get(a, key, target, private);
	/* A command (CM-2, CM-3): no Summons block, whoever named it. */
	turn_enqueue(cv, from, from->nick, text, om->msgid, om->hid,
	    TURN_ASKED);
}

/*
 * An agent joins ch at asker's word (a mention, INVITE, a command). It
 * keeps to max-channels like anyone: an agent stays in a channel until
 * KICKed, and keeps the channel alive, so without a limit one person could
 * create channels without end (SEC-4). Refused: asker is told, and -1.
 */
int
agent_join(struct agent *a, struct client *asker, struct channel *ch)
{
	int maxch = ircd.conf->max_channels;

	if (channel_member(ch, a->client) != NULL)
		return 0;
	if (a->client->nchannels >= (unsigned)maxch) {
		/* TN-11: the asker is told in the channel it was asked in. */
		reply_notice_in(asker, ch->name, "%s cannot join %s: it is "
		    "in %d channels, the most it may be in; /kick it from one "
		    "first",
		    a->client->nick, ch->name, maxch);
		return -1;
	}
	channel_add(ch, a->client, 0);
	channel_send(ch, NULL, ":%s JOIN %s", a->client->prefix, ch->name);
	/* A linked network learns of it as of a person's JOIN (LK-2). */
	hook_user_joined(a->client, ch);
	return 0;
}

/* ---- the agent's client ops ---- */

static void
agent_op_send(struct client *c, const char *line, size_t len)
{
	/* Numerics and notices to an agent have no reader. */
	(void)c;
	(void)line;
	(void)len;
}

static void
agent_op_deliver(struct client *c, struct outmsg *m)
{
	/* Channel traffic reaches agents through history and routing. */
	(void)c;
	(void)m;
}

static void
agent_op_release(struct client *c, const char *reason)
{
	(void)c;
	(void)reason;
}

static void
agent_op_joined(struct client *c, struct channel *ch)
{
	struct agent *a = c->priv;
	struct convkey key;

	history_channel_conv(ch, &key);
	store_agent_join(history_store(), a->client->nick, key.s, ch->name);
}

static void
agent_op_parted(struct client *c, struct channel *ch)
{
	struct agent *a = c->priv;
	struct conv *cv;
	struct convkey key;

	if (ircd.stopping || a == NULL)
		return;		/* shutting down: memberships stay stored */
	history_channel_conv(ch, &key);
	store_agent_part(history_store(), a->client->nick, key.s);
	/* AG-2: KICK takes it out and closes its session there. */
	store_session_delete(history_store(), a->client->nick, key.s);
	/* SC-7: its schedules made in or aimed at the channel end too. */
	schedule_drop(a, key.s);
	if ((cv = conv_find(a, key.s)) != NULL)
		conv_free(cv);
}

static void
agent_op_invited(struct client *c, struct client *from, struct channel *ch)
{
	struct agent *a = c->priv;
	char why[IRC_LINELEN];

	/* AU-2: whom a does not talk to brings it nowhere. */
	if (!authority_may_talk(a, from, why, sizeof(why))) {
		reply_notice(from, "%s", why);
		return;
	}
	/* TN-9: an invitation also forgives a broken agent. */
	acp_agent_reset(a->acp);
	agent_join(a, from, ch);
}

static void
agent_op_whois(struct client *c, struct client *asker)
{
	struct agent *a = c->priv;
	char state[IRC_LINELEN];
	const char *info = acp_agent_info(a->acp);
	size_t queued = turn_queued_for(a);

	reply(asker, RPL_WHOISSPECIAL, c->nick, "is an AI coding agent");
	if (info != NULL)
		reply(asker, RPL_WHOISSPECIAL, c->nick, info);
	if (acp_agent_broken(a->acp))
		snprintf(state, sizeof(state), "state: broken (%s)",
		    acp_agent_broken_reason(a->acp));
	else if (a->active != NULL)
		/* AU-8, L1: a +s channel is named to its members only. */
		snprintf(state, sizeof(state), "state: answering in %s",
		    authority_where(asker, a->active));
	else if (!acp_agent_running(a->acp))
		strlcpy(state, "state: stopped", sizeof(state));
	else if (!acp_agent_ready(a->acp))
		strlcpy(state, "state: starting", sizeof(state));
	else
		strlcpy(state, "state: idle", sizeof(state));
	if (queued > 0) {
		char q[32];

		snprintf(q, sizeof(q), ", queued: %zu", queued);
		strlcat(state, q, sizeof(state));
	}
	reply(asker, RPL_WHOISSPECIAL, c->nick, state);
	/* AG-3: its commands with their input hints, and its mode here. */
	{
		char line[IRC_LINELEN] = "commands:";
		size_t i;

		for (i = 0; i < a->ncmds; i++) {
			char one[AGENT_WHOIS_CMD];

			snprintf(one, sizeof(one), " /%s%s%s%s",
			    a->cmds[i].name,
			    a->cmds[i].hint != NULL ? " <" : "",
			    a->cmds[i].hint != NULL ? a->cmds[i].hint : "",
			    a->cmds[i].hint != NULL ? ">" : "");
			if (strlen(line) + strlen(one) > AGENT_WHOIS_LINE) {
				reply(asker, RPL_WHOISSPECIAL, c->nick, line);
				strlcpy(line, "commands:", sizeof(line));
			}
			strlcat(line, one, sizeof(line));
		}
		if (a->ncmds > 0)
			reply(asker, RPL_WHOISSPECIAL, c->nick, line);
	}
	{
		struct conv *cv;

		TAILQ_FOREACH(cv, &a->convs, entry) {
			const char *mode = acp_session_mode(cv->session);
			char line[IRC_LINELEN];

			/* AU-8, L1: not of a +s channel asker is not in. */
			if (mode == NULL || cv->private ||
			    authority_where(asker, cv) != cv->target)
				continue;
			snprintf(line, sizeof(line), "mode in %s: %s",
			    cv->target, mode);
			reply(asker, RPL_WHOISSPECIAL, c->nick, line);
		}
	}
}

static const struct client_ops agent_ops = {
	.send = agent_op_send,
	.deliver = agent_op_deliver,
	.release = agent_op_release,
	.joined = agent_op_joined,
	.parted = agent_op_parted,
	.invited = agent_op_invited,
	.message = dispatch_private,
	.whois = agent_op_whois,
	.service = "an agent of this server (!stop cancels what it is doing)",
};

/* ---- life cycle ---- */

static void
agent_join_stored(const char *conv, const char *name, void *arg)
{
	struct agent *a = arg;
	struct channel *ch;

	(void)conv;
	if (!casemap_valid_channel(name, CHANNELLEN))
		return;
	if ((ch = channel_find(name)) == NULL)
		ch = channel_create(name);
	if (channel_member(ch, a->client) == NULL)
		channel_add(ch, a->client, 0);
}

/* What acp/ is told of section ca: the process to start, and how. */
static void
agent_acp_config(const struct conf_agent *ca, struct acp_agent_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = ca->name;
	cfg->command = ca->command;
	cfg->cwd = ca->cwd;
	cfg->env = (const char **)(void *)ca->env;
	cfg->turn_timeout_ms = ircd.conf->turn_timeout * 1000;
}

static struct agent *
agent_new(const struct conf_agent *ca)
{
	struct agent *a = xcalloc(1, sizeof(*a));
	struct acp_agent_config cfg;
	struct client *c;
	const char *desc;
	char *const *ch;

	if (client_find_any(ca->name) != NULL) {
		log_warnx("agent %s: the nick is taken", ca->name);
		free(a);
		return NULL;
	}
	agent_acp_config(ca, &cfg);
	if ((a->acp = acp_agent_new(pool, &cfg, &callbacks_acp, a)) == NULL) {
		/* conf.c checked the command: out of memory, or a bad cwd. */
		log_warnx("agent %s: cannot be set up", ca->name);
		free(a);
		return NULL;
	}
	TAILQ_INIT(&a->convs);
	a->conf = ca;
	c = client_new(&agent_ops, NULL);
	c->priv = a;
	a->client = c;
	strlcpy(c->user, "agent", sizeof(c->user));
	client_set_host(c, ircd.conf->name);
	desc = ca->description != NULL ? ca->description : ca->name;
	client_set_realname(c, desc, strlen(desc));
	client_set_nick(c, ca->name);
	c->flags |= CLIENT_HAVE_NICK | CLIENT_HAVE_USER | CLIENT_SERVICE;
	c->umodes |= UMODE_BOT;		/* AG-1 */
	client_register(c);

	TAILQ_INSERT_TAIL(&all_agents, a, entry);
	agent_load_cmds(a);

	/* AG-2: its configured channels, and those it was brought into. */
	for (ch = ca->channels; ch != NULL && *ch != NULL; ch++)
		agent_join_stored(NULL, *ch, a);
	store_agent_channels(history_store(), c->nick, agent_join_stored, a);
	return a;
}

/* acp/ and the process pool, once: a server may start with no agent. */
static int
agent_lib_start(void)
{
	if (pool != NULL)
		return 0;
	acp_log_set(agent_acp_log, NULL, ACP_LOG_INFO);
	if (acp_init(ircd.base) == -1) {
		log_warnx("cannot start the agent library");
		return -1;
	}
	pool = acp_pool_new(ircd.conf->max_loaded_agents);
	return 0;
}

int
agent_init(void)
{
	size_t i;

	if (ircd.conf->nagents == 0)
		return 0;
	if (agent_lib_start() == -1)
		return -1;
	for (i = 0; i < ircd.conf->nagents; i++)
		agent_new(&ircd.conf->agents[i]);
	return 0;
}

/*
 * A section added by a reload. Its channels are joined as anyone's JOIN
 * is (the members see it come), which agent_new's start-up joins, made
 * before anyone is connected, need not.
 */
struct agent *
agent_add(const struct conf_agent *ca)
{
	struct agent *a;
	struct member *m;

	if (agent_lib_start() == -1 || (a = agent_new(ca)) == NULL)
		return NULL;
	TAILQ_FOREACH(m, &a->client->channels, by_client)
		channel_send(m->channel, a->client, ":%s JOIN %s",
		    a->client->prefix, m->channel->name);
	return a;
}

/*
 * A section a reload took away. What it did stays stored (history, its
 * sessions, memberships, commands, schedules): a section with its name
 * added again finds them, as a restart would.
 */
void
agent_remove(struct agent *a, const char *quit, const char *why)
{
	struct client *c = a->client;

	/* TN-9, as at shutdown: whoever waits on it is told it will not. */
	turn_drop_agent(a, why);
	/* SC-7: kept stored, but none fires for an agent that is not here. */
	schedule_agent_gone(c->nick);
	/* Its cards, MCP tokens and sessions go with its conversations. */
	conv_free_all(a);
	TAILQ_REMOVE(&all_agents, a, entry);
	/* EOF, SIGTERM, SIGKILL after its grace: as at shutdown. */
	acp_agent_free(a->acp);
	agent_free_cmds(a);
	/* No agent behind it: its parts below leave the memberships stored. */
	c->priv = NULL;
	client_exit(c, quit);
	free(a);
}

int
agent_reconfigure(struct agent *a)
{
	struct acp_agent_config cfg;

	agent_acp_config(a->conf, &cfg);
	if (acp_agent_reconfigure(a->acp, &cfg) == -1)
		return -1;
	if (!acp_agent_running(a->acp))
		return 0;	/* it starts with the new one when next asked */
	/* A running answer is never cut: its process stops when it ends. */
	a->restart_pending = 1;
	if (a->active == NULL)
		agent_idle(a);
	return 0;
}

void
agent_idle(struct agent *a)
{
	if (!a->restart_pending || a->active != NULL)
		return;
	a->restart_pending = 0;
	log_info("agent %s: stopping its process, to start the reloaded "
	    "command at the next prompt", a->client->nick);
	acp_agent_stop(a->acp);
}

void
agent_join_conf(struct agent *a, const char *name)
{
	struct channel *ch;

	if (!casemap_valid_channel(name, CHANNELLEN))
		return;
	if ((ch = channel_find(name)) == NULL)
		ch = channel_create(name);
	if (channel_member(ch, a->client) != NULL)
		return;
	/* Configured, like start-up's: max-channels is for what people ask. */
	channel_add(ch, a->client, 0);
	channel_send(ch, NULL, ":%s JOIN %s", a->client->prefix, ch->name);
	hook_user_joined(a->client, ch);
}

void
agent_part_conf(struct agent *a, struct channel *ch, const char *reason)
{
	if (channel_member(ch, a->client) == NULL)
		return;
	channel_send(ch, NULL, ":%s PART %s :%s", a->client->prefix, ch->name,
	    reason);
	hook_user_parted(a->client, ch, reason);
	/* As a KICK: its session there closes, its schedules there end. */
	channel_remove(ch, a->client);
}

void
agent_shutdown(void)
{
	struct agent *a;

	turn_shutdown();
	while ((a = TAILQ_FIRST(&all_agents)) != NULL) {
		TAILQ_REMOVE(&all_agents, a, entry);
		conv_free_all(a);
		acp_agent_free(a->acp);
		agent_free_cmds(a);
		/* Its user stays until the clients go, with no agent behind. */
		a->client->priv = NULL;
		free(a);
	}
	conv_shutdown();
	dispatch_shutdown();
	handoff_shutdown();
	if (pool != NULL) {
		acp_pool_free(pool);
		pool = NULL;
		acp_shutdown();
	}
}

/*
 * bridge.c: the bridge's side of the seam. It starts and stops the
 * bridge's parts in order and turns the core's hooks (ircd/hook.h) into
 * calls of the part each one concerns.
 */
#include "compat.h"

#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/bridge.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/mcp.h"
#include "ircd/bridge/offline.h"
#include "ircd/bridge/reload.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/task.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/hook.h"

static void
bridge_channel_gone(const struct channel *ch)
{
	struct convkey key;

	dispatch_channel_gone(ch);
	/* SC-7: its schedules end, but a stopping server keeps them stored. */
	if (!ircd.stopping) {
		history_channel_conv(ch, &key);
		schedule_drop_conv(key.s);
	}
}

/*
 * SC-7: the schedules of accounts the new file no longer has end; the
 * agents follow the new file's [agent] sections (reload.c).
 */
static void
bridge_rehash(const struct conf *old, const struct conf *new)
{
	struct convkey key;
	size_t i, j;

	reload_agents(new);
	for (i = 0; i < old->naccounts; i++) {
		for (j = 0; j < new->naccounts; j++)
			if (casemap_cmp(old->accounts[i].name,
			    new->accounts[j].name) == 0)
				break;
		if (j < new->naccounts)
			continue;
		convkey_account(&key, old->accounts[i].name);
		schedule_drop_conv(key.s);
	}
}

/* SC-7, AU-4: what a person not logged in made ends with the connection. */
static void
bridge_user_quit(struct client *c, const char *reason)
{
	(void)reason;
	/* AU-4: c reads no private conversation from now on. */
	conv_readers_changed(c);
	if (!ircd.stopping)
		schedule_user_quit(c);
	/*
	 * AU-4, AU-9: nobody can speak as a connection that ended: the
	 * private conversations keyed by it go with it (an account's stay).
	 */
	if (!ircd.stopping)
		conv_forget_connection(c);
}

/* AU-4: who reads private conversations may have changed. */
static void
bridge_user_new(struct client *c)
{
	(void)c;
	conv_readers_changed(NULL);
}

static void
bridge_logged_in(struct client *c)
{
	conv_readers_changed(NULL);
	offline_tell(c);
}

/* AU-4: a nick is no principal; the conversations follow the person. */
static void
bridge_user_nick(struct client *c, const char *oldnick)
{
	(void)oldnick;
	conv_nick(c);
}

/* Agents' processes go before the users: an answer must not find them gone. */
static void
bridge_stopping(void)
{
	schedule_shutdown();
	task_shutdown();
	agent_shutdown();
}

static const struct ircd_hooks bridge_hooks = {
	.channel_message = dispatch_channel,
	.channel_gone = bridge_channel_gone,
	.user_joined = schedule_join_summary,
	.logged_in = bridge_logged_in,
	.help = agent_help,
	.rehash = bridge_rehash,
	.user_new = bridge_user_new,
	.user_nick = bridge_user_nick,
	.user_quit = bridge_user_quit,
	.stopping = bridge_stopping,
};

int
bridge_init(void)
{
	if (ircd.conf->nagents > 0 && mcp_init() == -1)
		return -1;
	if (agent_init() == -1 || schedule_init() == -1 || task_init() == -1)
		return -1;
	authority_clamp_stored();
	return hook_register(&bridge_hooks);
}

void
bridge_shutdown(void)
{
	bridge_stopping();
	mcp_shutdown();
	hook_unregister(&bridge_hooks);
}

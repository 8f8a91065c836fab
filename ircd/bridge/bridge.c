/*
 * bridge.c: the bridge's side of the seam. It starts and stops the
 * bridge's parts in order and turns the core's hooks (ircd/hook.h) into
 * calls of the part each one concerns.
 */
#include "compat.h"

#include "ircd/bridge/agent.h"
#include "ircd/bridge/bridge.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/mcp.h"
#include "ircd/bridge/offline.h"
#include "ircd/bridge/schedule.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
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

/* SC-7: the schedules of accounts the new file no longer has end. */
static void
bridge_rehash(const struct conf *old, const struct conf *new)
{
	struct convkey key;
	size_t i, j;

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

/* Agents' processes go before the users: an answer must not find them gone. */
static void
bridge_stopping(void)
{
	schedule_shutdown();
	agent_shutdown();
}

static const struct ircd_hooks bridge_hooks = {
	.channel_message = dispatch_channel,
	.channel_gone = bridge_channel_gone,
	.user_joined = schedule_join_summary,
	.logged_in = offline_tell,
	.help = agent_help,
	.rehash = bridge_rehash,
	.stopping = bridge_stopping,
};

int
bridge_init(void)
{
	if (ircd.conf->nagents > 0 && mcp_init() == -1)
		return -1;
	if (agent_init() == -1 || schedule_init() == -1)
		return -1;
	return hook_register(&bridge_hooks);
}

void
bridge_shutdown(void)
{
	bridge_stopping();
	mcp_shutdown();
	hook_unregister(&bridge_hooks);
}

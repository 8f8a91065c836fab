/*
 * bridge.h: the agent bridge as main.c sees it. The bridge makes every
 * configured ACP agent an IRC user (agent.c and the files beside it); it
 * builds on the IRC core through the core's public calls and one hook
 * table (ircd/hook.h), and the core knows nothing of it.
 */
#ifndef IRCD_BRIDGE_H
#define IRCD_BRIDGE_H

/* After server_init(): the MCP tool server, the agents, the schedules. */
int	bridge_init(void);
/* After server_run() (the users are gone), before server_free(). */
void	bridge_shutdown(void);

#endif

/*
 * internal.h: what the files of acp/ share and nobody else sees: the
 * pool's view of an agent and the agent's view of the pool.
 */
#ifndef ACP_INTERNAL_H
#define ACP_INTERNAL_H

#include "acp/acp.h"

struct event_base;

struct event_base *acp_base(void);

/* pool.c */
int	pool_acquire(struct acp_pool *, struct acp_agent *); /* 1: granted */
void	pool_release(struct acp_pool *, struct acp_agent *);
void	pool_touch(struct acp_pool *, struct acp_agent *);
void	pool_check(struct acp_pool *);

/* client.c, for the pool */
int	agent_idle(struct acp_agent *);
int	agent_stopping(struct acp_agent *);
void	agent_evict(struct acp_agent *);
void	agent_granted(struct acp_agent *);

#endif

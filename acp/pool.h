/*
 * pool.h: SS-5's slots for agent processes, internal to acp/. The pool
 * knows its members only through the ops it is created with, so it never
 * calls back into lifecycle.c by name: lifecycle.c uses the pool, and
 * the pool uses nothing of acp/ but its log.
 */
#ifndef ACP_POOL_H
#define ACP_POOL_H

struct acp_agent;
struct acp_pool;

struct acp_pool_ops {
	const char	*(*name)(struct acp_agent *);	/* for the log */
	int		 (*idle)(struct acp_agent *);	/* may be evicted */
	int		 (*stopping)(struct acp_agent *); /* slot frees soon */
	void		 (*evict)(struct acp_agent *);
	void		 (*granted)(struct acp_agent *); /* a waiter's turn */
};

/* ops is not copied. acp_pool_new() is this with the agents' ops. */
struct acp_pool	*acp_pool_create(int max, const struct acp_pool_ops *);
/* 1: a slot is the agent's; 0: it waits, and ops->granted() will say. */
int		 acp_pool_acquire(struct acp_pool *, struct acp_agent *);
/* The agent's process is gone: its slot (or place in line) is free. */
void		 acp_pool_release(struct acp_pool *, struct acp_agent *);
/* The agent was used: it is now the most recently used. */
void		 acp_pool_touch(struct acp_pool *, struct acp_agent *);
/* Grant free slots to waiters; evict idle agents for the rest. */
void		 acp_pool_check(struct acp_pool *);

#endif

/*
 * pool.c: SS-5, at most max agent processes at once. A newcomer takes a
 * free slot, or the least recently used idle agent is stopped for it; an
 * agent in a turn is never evicted, so the newcomer may have to wait.
 * What an agent is (idle, stopping) and how it is evicted or started the
 * pool learns only through its ops (pool.h).
 */
#include "compat.h"

#include <stdlib.h>

#include "acp/acp.h"
#include "acp/log.h"
#include "acp/pool.h"

struct pool_node {
	TAILQ_ENTRY(pool_node)	 entry;
	struct acp_agent	*a;
};
TAILQ_HEAD(pool_nodes, pool_node);

struct acp_pool {
	const struct acp_pool_ops *ops;
	int			 max;
	int			 nrun;
	struct pool_nodes	 run;	/* head: least recently used */
	struct pool_nodes	 wait;	/* FIFO */
	int			 checking;
};

struct acp_pool *
acp_pool_create(int max, const struct acp_pool_ops *ops)
{
	struct acp_pool *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->ops = ops;
	p->max = max > 0 ? max : ACP_DEFAULT_POOL_MAX;
	TAILQ_INIT(&p->run);
	TAILQ_INIT(&p->wait);
	return p;
}

void
acp_pool_free(struct acp_pool *p)
{
	struct pool_node *n;

	if (p == NULL)
		return;
	while ((n = TAILQ_FIRST(&p->run)) != NULL) {
		TAILQ_REMOVE(&p->run, n, entry);
		free(n);
	}
	while ((n = TAILQ_FIRST(&p->wait)) != NULL) {
		TAILQ_REMOVE(&p->wait, n, entry);
		free(n);
	}
	free(p);
}

int
acp_pool_running(struct acp_pool *p)
{
	return p->nrun;
}

static struct pool_node *
find(struct pool_nodes *l, struct acp_agent *a)
{
	struct pool_node *n;

	TAILQ_FOREACH(n, l, entry)
		if (n->a == a)
			return n;
	return NULL;
}

int
acp_pool_acquire(struct acp_pool *p, struct acp_agent *a)
{
	struct pool_node *n;

	if (find(&p->run, a) != NULL)
		return 1;
	if (find(&p->wait, a) != NULL)
		return 0;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return 0;
	n->a = a;
	if (p->nrun < p->max && TAILQ_EMPTY(&p->wait)) {
		TAILQ_INSERT_TAIL(&p->run, n, entry);
		p->nrun++;
		return 1;
	}
	acp_info("%s waits for a free agent slot (max-loaded-agents %d)",
	    p->ops->name(a), p->max);
	TAILQ_INSERT_TAIL(&p->wait, n, entry);
	acp_pool_check(p);
	return 0;
}

void
acp_pool_release(struct acp_pool *p, struct acp_agent *a)
{
	struct pool_node *n;

	if ((n = find(&p->run, a)) != NULL) {
		TAILQ_REMOVE(&p->run, n, entry);
		p->nrun--;
		free(n);
	} else if ((n = find(&p->wait, a)) != NULL) {
		TAILQ_REMOVE(&p->wait, n, entry);
		free(n);
	}
	acp_pool_check(p);
}

void
acp_pool_touch(struct acp_pool *p, struct acp_agent *a)
{
	struct pool_node *n;

	if ((n = find(&p->run, a)) != NULL) {
		TAILQ_REMOVE(&p->run, n, entry);
		TAILQ_INSERT_TAIL(&p->run, n, entry);
	}
}

void
acp_pool_check(struct acp_pool *p)
{
	struct pool_node *n;
	int waiting = 0, stopping = 0;

	if (p->checking)
		return;
	p->checking = 1;
	while ((n = TAILQ_FIRST(&p->wait)) != NULL && p->nrun < p->max) {
		TAILQ_REMOVE(&p->wait, n, entry);
		TAILQ_INSERT_TAIL(&p->run, n, entry);
		p->nrun++;
		p->ops->granted(n->a);
	}
	TAILQ_FOREACH(n, &p->wait, entry)
		waiting++;
	TAILQ_FOREACH(n, &p->run, entry)
		if (p->ops->stopping(n->a))
			stopping++;
	/* Slots about to be freed already serve that many waiters. */
	waiting -= stopping + (p->max - p->nrun > 0 ? p->max - p->nrun : 0);
	TAILQ_FOREACH(n, &p->run, entry) {
		if (waiting <= 0)
			break;
		if (!p->ops->stopping(n->a) && p->ops->idle(n->a)) {
			acp_info("evicting %s, the least recently used idle "
			    "agent", p->ops->name(n->a));
			p->ops->evict(n->a);
			waiting--;
		}
	}
	p->checking = 0;
}

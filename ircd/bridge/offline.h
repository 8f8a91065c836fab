/*
 * offline.h: mentions of people who are away (RT-8).
 */
#ifndef IRCD_BRIDGE_OFFLINE_H
#define IRCD_BRIDGE_OFFLINE_H

#include <stdint.h>

struct channel;
struct client;
struct outmsg;

/* Keep "@name" mentions of configured accounts nobody is logged in as. */
void	offline_keep(struct client *from, struct channel *, struct outmsg *);
/*
 * The same for an agent's answer (RT-8, MN-1): its names read with the
 * strict rules, its first words kept.
 */
void	offline_keep_answer(const char *agent, struct channel *,
	    const char *text, int64_t time_ms);
/* c, now logged in, is told who mentioned it while it was away. */
void	offline_tell(struct client *c);

#endif

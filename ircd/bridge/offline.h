/*
 * offline.h: mentions of people who are away (RT-8).
 */
#ifndef IRCD_BRIDGE_OFFLINE_H
#define IRCD_BRIDGE_OFFLINE_H

struct channel;
struct client;
struct outmsg;

/* Keep "@name" mentions of configured accounts nobody is logged in as. */
void	agent_keep_mentions(struct client *from, struct channel *,
	    struct outmsg *);
/* RT-8: tell c, now logged in, who mentioned it while it was away. */
void	agent_tell_mentions(struct client *c);

#endif

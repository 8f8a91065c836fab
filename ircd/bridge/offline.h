/*
 * offline.h: mentions of people who are away (RT-8).
 */
#ifndef IRCD_BRIDGE_OFFLINE_H
#define IRCD_BRIDGE_OFFLINE_H

struct channel;
struct client;
struct outmsg;

/* Keep "@name" mentions of configured accounts nobody is logged in as. */
void	offline_keep(struct client *from, struct channel *, struct outmsg *);
/* c, now logged in, is told who mentioned it while it was away. */
void	offline_tell(struct client *c);

#endif

/*
 * dispatch.h: what people say, to the agents it concerns (RT), and who
 * spoke last in each channel and whom it answered (RT-3).
 */
#ifndef IRCD_BRIDGE_DISPATCH_H
#define IRCD_BRIDGE_DISPATCH_H

struct agent;
struct channel;
struct convkey;
struct client;
struct outmsg;

/*
 * A person's PRIVMSG to a channel, stored and relayed (the core's
 * channel_message hook): who answers (RT), and the server's own !
 * commands (!stop).
 */
void	dispatch_channel(struct client *from, struct channel *,
	    struct outmsg *);
/* A person's private PRIVMSG to the agent to (its client_ops.message). */
void	dispatch_private(struct client *to, struct client *from,
	    struct outmsg *);
/*
 * RT-3: a spoke in the channel named so, answering the principal asker
 * (NULL: nobody's turn, a schedule's say).
 */
void	dispatch_spoke(const char *channel, struct agent *a,
	    const struct convkey *asker);
/* A channel is gone: forget who spoke there last (RT-3). */
void	dispatch_channel_gone(const struct channel *);
void	dispatch_shutdown(void);

#endif

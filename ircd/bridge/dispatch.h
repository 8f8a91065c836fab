/*
 * dispatch.h: what people say, to the agents it concerns (RT), and who
 * spoke last in each channel (RT-3).
 */
#ifndef IRCD_BRIDGE_DISPATCH_H
#define IRCD_BRIDGE_DISPATCH_H

struct agent;
struct channel;
struct client;
struct dict;
struct outmsg;

/* RT-3: casefolded channel name -> the agent that spoke there last. */
extern struct dict	*last_spoke;

void	agent_spoke(const struct channel *, struct agent *);
/* A channel is gone: forget who spoke there last (RT-3). */
void	agent_channel_gone(const struct channel *);
/*
 * A person's PRIVMSG to a channel, stored and relayed: who answers (RT),
 * and the server's own ! commands (!stop).
 */
void	agent_channel_message(struct client *from, struct channel *ch,
	    struct outmsg *);
/* A person's private PRIVMSG to agent to (client_ops.message). */
void	agent_op_message(struct client *to, struct client *from, struct outmsg *);

#endif

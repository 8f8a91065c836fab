/*
 * agent.h: agents as IRC users (AG-1..AG-5). Each configured agent is a
 * client without a connection, whose ops hand what reaches it to the
 * agent's ACP sessions, one per conversation (SS-1), and whose answers
 * stream back as PRIVMSG lines (TN-4).
 */
#ifndef IRCD_AGENT_H
#define IRCD_AGENT_H

#include <stdint.h>

#include "ircd/ircd.h"

struct acp_session;
struct channel;
struct client;
struct outmsg;
struct turn;

/* One (agent, conversation): a channel, or a private query with a person. */
struct conv {
	TAILQ_ENTRY(conv)	 entry;
	struct agent		*agent;
	char			 key[160];	/* the store's conversation key */
	char			 target[CHANNELLEN + 1];	/* "#chan", or the person's nick */
	int			 private;
	struct acp_session	*session;
	int64_t			 seen_id;	/* history the session has seen (SS-2) */
	int			 carry;		/* new session: give it the past (SS-4) */
	int			 opening;
	int			 closing;	/* KICKed while answering: free at turn end */
	struct turn		*turn;		/* running here, or NULL */
};

struct agent {
	TAILQ_ENTRY(agent)	 entry;
	struct client		*client;
	const struct conf_agent	*conf;
	struct acp_agent	*acp;
	TAILQ_HEAD(, conv)	 convs;
	struct conv		*active;	/* the conversation it answers in (TN-2) */
};

/* Create the configured agents and put them in their channels. */
int	agent_init(void);
void	agent_shutdown(void);

/*
 * A person's PRIVMSG to a channel, stored and relayed: who answers (RT),
 * and the server's own ! commands (!stop).
 */
void	agent_channel_message(struct client *from, struct channel *ch,
	    struct outmsg *);

/* RT-8: tell c, now logged in, who mentioned it while it was away. */
void	agent_tell_mentions(struct client *c);

/* Turn plumbing for turn.c. */
void	agent_turn_start(struct turn *);
void	agent_turn_cancel(struct turn *);
/* A server NOTICE in a conversation (channel, or the person of a query). */
void	agent_conv_notice(struct conv *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif

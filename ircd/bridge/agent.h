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
	char			 policy[16];	/* PM-4 override here, "" for the agent's */
	struct turn		*turn;		/* running here, or NULL */
	uint64_t		 used;		/* last asked or answering (a count): LRU */
};

/* A slash command an agent announced (CM-1). */
struct agent_cmd {
	char	*name;		/* without '/' */
	char	*description;
	char	*hint;		/* or NULL */
};

struct agent {
	TAILQ_ENTRY(agent)	 entry;
	struct client		*client;
	const struct conf_agent	*conf;
	struct acp_agent	*acp;
	TAILQ_HEAD(, conv)	 convs;
	struct conv		*active;	/* the conversation it answers in (TN-2) */
	struct agent_cmd	*cmds;
	size_t			 ncmds;
	int			 cmds_known;	/* announced at least once, ever */
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

/* The agent behind a client, or NULL for a person. */
struct agent	*agent_of_client(const struct client *);
/* The agent named nick exactly (casemapped), or NULL. */
struct agent	*agent_find(const char *nick);
/* The agent's conversation key (created on first use). */
struct conv	*agent_conv(struct agent *, const char *key, const char *target,
		    int private);
/* The same, only if it is in memory now (NULL: none, or closed while idle). */
struct conv	*agent_conv_find(struct agent *, const char *key);
/* Has a a session stored for conversation key, to load again (SS-4)? */
int		 agent_session_stored(struct agent *, const char *key);
/* a joins ch at asker's word; past max-channels asker is told, and -1. */
int		 agent_join(struct agent *, struct client *asker, struct channel *);
/* Queue a turn for a in conversation key, with text given as is. */
void		 agent_ask(struct agent *, struct client *from, const char *key,
		    const char *target, int private, const char *text, struct outmsg *);
/* A line from the agent in cv: cmd "PRIVMSG" or "NOTICE", stored first. */
void		 agent_emit(struct conv *, const char *cmd, const char *text);
/* Does a announce command name? */
const struct agent_cmd *agent_cmd_find(const struct agent *, const char *name);

/* HELP AGENTS or HELP <agent> (CM-5): 1 if subject was one of those. */
int		 agent_help(struct client *c, const char *subject);

/* A channel is gone: forget who spoke there last (RT-3). */
void	agent_channel_gone(const struct channel *);

/* RT-8: tell c, now logged in, who mentioned it while it was away. */
void	agent_tell_mentions(struct client *c);

/* Turn plumbing for turn.c. */
void	agent_turn_start(struct turn *);
void	agent_turn_cancel(struct turn *);
/* What agent.c keeps in a turn goes with it (turn_free). */
void	agent_turn_free(struct turn *);
/* A server NOTICE in a conversation (channel, or the person of a query). */
void	agent_conv_notice(struct conv *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif

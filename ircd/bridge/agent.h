/*
 * agent.h: agents as IRC users (AG-1..AG-5). Each configured agent is a
 * client without a connection, whose ops hand what reaches it to the
 * agent's ACP sessions, one per conversation (SS-1), and whose answers
 * stream back as PRIVMSG lines (TN-4).
 */
#ifndef IRCD_AGENT_H
#define IRCD_AGENT_H

#include <stddef.h>

#include "ircd/bridge/conv.h"
#include "ircd/ircd.h"

struct acp_command;
struct channel;
struct client;
struct outmsg;
struct turn;

/* A slash command an agent announced (CM-1). */
struct agent_cmd {
	char	*name;		/* without '/' */
	char	*description;
	char	*hint;		/* or NULL */
};

/* An ACP mode id ("plan", "code"): short words; a longer one is none. */
#define AGENT_MODELEN	64

TAILQ_HEAD(agent_list, agent);

struct agent {
	TAILQ_ENTRY(agent)	 entry;
	struct client		*client;
	const struct conf_agent	*conf;
	struct acp_agent	*acp;
	TAILQ_HEAD(, conv)	 convs;
	struct conv		*active;	/* where it answers (TN-2) */
	struct agent_cmd	*cmds;
	size_t			 ncmds;
	int			 cmds_known;	/* announced once, ever */
	/* AU-3: the mode a new session starts in, "" until one opened */
	char			 mode_initial[AGENT_MODELEN];
	/*
	 * A reload changed its command while it answered: its process stops
	 * when the answer ends, and the next prompt starts the new one.
	 */
	int			 restart_pending;
};

/* Every agent of the config. */
extern struct agent_list	all_agents;

/* Create the configured agents and put them in their channels. */
int	agent_init(void);
void	agent_shutdown(void);
/*
 * A reload (reload.c). agent_add: the agent of section ca as if it had
 * been there at start, or NULL (its nick is taken). agent_remove: it
 * QUITs with reason quit; whoever waits on it is told why (TN-9), its
 * process stops.
 */
struct agent	*agent_add(const struct conf_agent *ca);
void		 agent_remove(struct agent *, const char *quit,
		    const char *why);
/* a's command, cwd and env of a->conf apply at its next process start. */
int		 agent_reconfigure(struct agent *);
/* a joins its configured channel name, or parts ch with reason. */
void		 agent_join_conf(struct agent *, const char *name);
void		 agent_part_conf(struct agent *, struct channel *,
		    const char *reason);
/* a's turn ended and it answers nowhere now (turn.c). */
void		 agent_idle(struct agent *);

/* The agent behind a client, or NULL for a person. */
struct agent	*agent_of_client(const struct client *);
/* The agent named nick exactly (casemapped), or NULL. */
struct agent	*agent_find(const char *nick);
/* Has a a session stored for conversation key, to load again (SS-4)? */
int		 agent_session_stored(struct agent *, const char *key);
/* a joins ch at asker's word; past max-channels asker is told, and -1. */
int		 agent_join(struct agent *, struct client *asker,
		    struct channel *);
/* Queue a turn for a in conversation key, with text given as is. */
void		 agent_ask(struct agent *, struct client *from, const char *key,
		    const char *target, int private, const char *text,
		    struct outmsg *);
/* A line from the agent in cv: cmd "PRIVMSG" or "NOTICE", stored first. */
void		 agent_emit(struct conv *, const char *cmd, const char *text);
/* Does a announce command name? */
const struct agent_cmd *agent_cmd_find(const struct agent *, const char *name);

/* HELP AGENTS or HELP <agent> (CM-5): 1 if subject was one of those. */
int		 agent_help(struct client *c, const char *subject);

/* The commands a announced (CM-1), now n of them: kept in the database. */
void		 agent_set_cmds(struct agent *, const struct acp_command *,
		    size_t n);

#endif

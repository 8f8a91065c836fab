/*
 * agentcmd.h: commands in conversations with agents (CM-1..CM-6, PM-5):
 * slash commands to agents, and the server's own ! commands, which are
 * never forwarded to an agent.
 */
#ifndef IRCD_AGENTCMD_H
#define IRCD_AGENTCMD_H

struct agent;
struct channel;
struct client;
struct outmsg;

/*
 * A person's PRIVMSG in channel ch (conversation key), already relayed.
 * 1 if it was a command and is handled; 0 to route it as a message (its
 * text may have been changed: "!!x" becomes "!x").
 */
int	agentcmd_channel(struct client *from, struct channel *ch, const char *key,
	    struct outmsg *);
/* Is text one of the server's own ! commands (never shown to agents)? */
int	agentcmd_is_server(const char *text);
/* The same for a private message to agent a. */
int	agentcmd_private(struct client *from, struct agent *a, const char *key,
	    struct outmsg *);

#endif

/*
 * hook.h: the core's one extension seam. The IRC core knows nothing of
 * agents or links; what builds on it (the agent bridge, later a server
 * link) registers a table of optional functions, and the core calls each
 * registered table, in the order registered, at the points below. The
 * per-user seam stays client_ops (client.h); this is the server-level one.
 */
#ifndef IRCD_HOOK_H
#define IRCD_HOOK_H

struct channel;
struct client;
struct conf;
struct outmsg;

typedef void hook_server_fn(void *arg, const char *name, const char *uplink,
    int hops, const char *info);

struct ircd_hooks {
	/* A user's PRIVMSG to a channel, stored and relayed to everyone. */
	void	(*channel_message)(struct client *from, struct channel *,
		    struct outmsg *);
	/* A channel is destroyed (it emptied, or the server stops). */
	void	(*channel_gone)(const struct channel *);
	/* A user joined a channel; after JOIN's replies (topic, names, history). */
	void	(*user_joined)(struct client *, struct channel *);
	/* A registered user is logged in to an account (SASL, PASS, or at registration). */
	void	(*logged_in)(struct client *);
	/* HELP subject that the core's table does not know: 1 if handled. */
	int	(*help)(struct client *, const char *subject);
	/* A new configuration is about to replace old (SIGHUP, REHASH). */
	void	(*rehash)(const struct conf *old, const struct conf *new);
	/* The server stops: before the users are told and go. */
	void	(*stopping)(void);
	/*
	 * What a server link needs to follow the network's state: a user
	 * registered (people and service users), a nick change, a user
	 * leaving, a channel mode change and a topic, each after the local
	 * users were told.
	 */
	void	(*user_new)(struct client *);
	void	(*user_nick)(struct client *, const char *oldnick);
	void	(*user_quit)(struct client *, const char *reason);
	void	(*channel_mode)(struct channel *, struct client *from,
		    const char *change);
	void	(*topic)(struct channel *, struct client *from);
	/*
	 * A member left a channel by PART (reason may be NULL), or was
	 * kicked by from; each after the local members were told and
	 * before it is removed.
	 */
	void	(*user_parted)(struct client *, struct channel *,
		    const char *reason);
	void	(*user_kicked)(struct client *from, struct channel *,
		    struct client *target, const char *reason);
	/* A user went away or came back (AWAY): c->away is the new state. */
	void	(*user_away)(struct client *);
	/*
	 * The servers of the network beyond this one, for LINKS and LUSERS:
	 * each is given to fn with the name of the server it is linked
	 * through (its uplink) and its distance from here in hops.
	 */
	void	(*servers)(hook_server_fn *fn, void *arg);
	/* A user became an operator (OPER) or stopped (-o): c->umodes says. */
	void	(*user_oper)(struct client *);
	/* A user's realname changed (SETNAME): c->realname is the new one. */
	void	(*user_realname)(struct client *);
};

/* At most HOOK_MAX tables; registering the same table twice is a no-op. */
#define HOOK_MAX	4

int	hook_register(const struct ircd_hooks *);
void	hook_unregister(const struct ircd_hooks *);

void	hook_channel_message(struct client *, struct channel *, struct outmsg *);
void	hook_channel_gone(const struct channel *);
void	hook_user_joined(struct client *, struct channel *);
void	hook_logged_in(struct client *);
int	hook_help(struct client *, const char *subject);
void	hook_rehash(const struct conf *old, const struct conf *new);
void	hook_stopping(void);
void	hook_user_new(struct client *);
void	hook_user_nick(struct client *, const char *oldnick);
void	hook_user_quit(struct client *, const char *reason);
void	hook_channel_mode(struct channel *, struct client *, const char *change);
void	hook_topic(struct channel *, struct client *);
void	hook_user_parted(struct client *, struct channel *, const char *reason);
void	hook_user_kicked(struct client *, struct channel *, struct client *,
	    const char *reason);
void	hook_user_away(struct client *);
void	hook_servers(hook_server_fn *, void *arg);
void	hook_user_oper(struct client *);
void	hook_user_realname(struct client *);

#endif

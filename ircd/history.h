/*
 * history.h: the IRC side of the store: what is said is stored before it
 * is relayed (HS-2), channels come back after a restart, and a JOIN
 * replays the last lines to clients without chathistory (HS-3).
 */
#ifndef IRCD_HISTORY_H
#define IRCD_HISTORY_H

#include <stddef.h>

#include "ircd/convkey.h"

struct channel;
struct client;
struct outmsg;
struct ban;
struct store;

/* Open the database of the config and restore its channels. -1 on error. */
int		 history_open(void);
void		 history_close(void);
/* Commit the turn's writes; conn.c calls it before the turn's output. */
void		 history_commit(void);
struct store	*history_store(void);

/*
 * Store a PRIVMSG or NOTICE before it is relayed, to a channel (ch) or a
 * user (to). 0: relay it. -1: it could not be stored; the sender was told
 * (FAIL) and nothing may be relayed.
 */
int	history_add_channel(struct client *from, struct channel *ch,
	    struct outmsg *);
int	history_add_private(struct client *from, struct client *to,
	    struct outmsg *);

/*
 * Store om from from in conversation conv (a key); as history_add_channel.
 * from NULL is the server (its name is the sender): it is told nothing.
 */
int	history_add(struct client *from, const char *conv, struct outmsg *);

/*
 * Is a message with this msgid stored already (in any conversation)? A
 * linked server's message seen twice (a replay after a relink) is then
 * neither stored nor relayed again (LK-3). 0 without a store.
 */
int	history_has_msgid(const char *msgid);

/* Who c is for private history: its account, connection or service nick. */
void	history_principal(const struct client *, struct convkey *);
/*
 * Does c speak as principal: logged in to its account, its very
 * connection (logged in since or not), or the service user it names?
 */
int	history_principal_is(const struct client *, const struct convkey *);
/*
 * The conversation key for target as c may read it, into conv: a channel
 * c is in, or a private conversation with a nick (online or not). 0, or
 * -1 when there is none c may read.
 */
int	history_conv_for(struct client *c, const char *target,
	    struct convkey *conv);
/* The conversation key of a channel. */
void	history_channel_conv(const struct channel *, struct convkey *);

/* Replay the channel's last lines to c after its JOIN (HS-3). */
void	history_replay_join(struct client *c, struct channel *ch);

/* Keep the channel's topic, modes, bans and exceptions across restarts. */
void	history_channel_save(struct channel *);
/* list: the mode letter of the list (b, e or I). */
void	history_ban_add(struct channel *, char list, const struct ban *);
void	history_ban_del(struct channel *, char list, const char *mask);

/* Send one stored message to c as a replay line (with batch ref, or NULL). */
struct store_msg;
void	history_send_msg(struct client *c, const struct store_msg *,
	    const char *batch, int time_prefix);

#endif

/*
 * channel.h: channels and membership. A member links one client and one
 * channel and is on both lists, so neither side searches the other.
 */
#ifndef IRCD_CHANNEL_H
#define IRCD_CHANNEL_H

#include "ircd/client.h"
#include "ircd/ircd.h"
#include "ircd/mode.h"		/* CMODE_* */

#include <time.h>


/* Member prefixes, as bits, highest rank first in PREFIX. */
#define MEMBER_OP	0x01	/* @ +o */
#define MEMBER_VOICE	0x02	/* + +v */

struct member {
	TAILQ_ENTRY(member)	 by_channel;
	TAILQ_ENTRY(member)	 by_client;
	struct client		*client;
	struct channel		*channel;
	unsigned		 modes;
	/*
	 * HS-3: the newest message it had when it last left, for the JOIN
	 * replay of what it missed; -1: the last lines instead.
	 */
	int64_t			 left_at;
};

struct ban {
	TAILQ_ENTRY(ban)	 entry;
	char			*mask;
	char			*setter;
	time_t			 when;
};

/* A list mode's entries (+b, +e, +I), at most max-bans each (MAXLIST). */
struct banlist {
	TAILQ_HEAD(, ban)	 head;
	unsigned		 n;
};

struct channel {
	char			 name[CHANNELLEN + 1];
	char			*topic;		/* NULL when unset */
	char			 topic_who[NICKLEN + USERLEN + HOSTLEN + 3];
	time_t			 topic_time;
	time_t			 created;
	unsigned		 modes;
	char			 key[KEYLEN + 1];	/* "" when unset */
	unsigned		 limit;			/* 0 when unset */
	TAILQ_HEAD(, member)	 members;
	unsigned		 nmembers;
	struct banlist		 bans;		/* +b */
	struct banlist		 excepts;	/* +e: past +b */
	struct banlist		 invex;		/* +I: past +i */
	int			 permanent;	/* from the config: kept when empty */
	int			 stored;	/* has history: kept when empty (AU-7) */
	unsigned		 nservices;	/* members that are service users */
	/*
	 * Who gets op at JOIN (AU-7): principal keys ("a:<account>" kept in
	 * the store, "c:<conn>" for one connection's life), besides the
	 * config's [channel] ops.
	 */
	char			**ops;
	unsigned		 nops;
	time_t			 empty_since;	/* when the last member left */
};

/* How many principals a channel remembers as operators. */
#define CHANNEL_MAXOPS	100

struct channel	*channel_find(const char *name);
/* Create an empty channel with the default modes; the caller adds members. */
struct channel	*channel_create(const char *name);
/*
 * Does an empty ch stay (AU-7)? When the config names it, when it has
 * history, or when its operators gave it state: a topic, a key, a limit,
 * list entries or modes other than the defaults.
 */
int		 channel_kept(const struct channel *);
/* Destroy a channel with no members unless channel_kept. */
void		 channel_maybe_destroy(struct channel *);
/* Destroy an empty channel whatever it holds (dropped, expired). */
void		 channel_destroy(struct channel *);
/* The remembered operators: principal keys, see struct channel. */
int		 channel_op_has(const struct channel *, const char *principal);
/* 0, or -1 when CHANNEL_MAXOPS are remembered already. */
int		 channel_op_add(struct channel *, const char *principal);
void		 channel_op_del(struct channel *, const char *principal);
struct member	*channel_member(const struct channel *, const struct client *);
struct member	*channel_add(struct channel *, struct client *, unsigned modes);
/* Remove a member; may destroy the channel. */
void		 channel_remove(struct channel *, struct client *);
/* Which members a relay reaches; a zero field allows any. */
struct member_filter {
	const struct client	*except;	/* not this one */
	unsigned		 modes;		/* MEMBER_*: has one of these */
	unsigned		 caps;		/* CAP_*: has all of these */
	unsigned		 skip_caps;	/* CAP_*: has none of these */
};

/*
 * Does c pass f? m is its membership, whose rank f->modes asks for; NULL
 * for a reader outside a channel (a private conversation): no rank asked.
 */
int		 member_filter_pass(const struct member_filter *f,
		    const struct client *c, const struct member *m);
/*
 * The one member loop of every relay: fn(client, arg) for each member
 * that passes f (NULL: every member).
 */
void		 channel_each(struct channel *, const struct member_filter *f,
		    void (*fn)(struct client *, void *), void *arg);
/* A relayed event to those members, each rendered per its caps. */
void		 channel_relay(struct channel *, const struct member_filter *,
		    struct outmsg *);
/*
 * c's JOIN to every member of ch (c included), as each asked for it:
 * extended-join, away-notify. cmd-channel.c's JOIN and a link's joins.
 */
void		 channel_relay_join(struct client *c, struct channel *ch);
/* Send a line to every member but except (NULL = all). */
void		 channel_send(struct channel *, struct client *except, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
void		 channel_sendn(struct channel *, struct client *except, const char *line, size_t len);
/* The modes as "+ntk key" into buf; key and limit shown only when show_args. */
void		 channel_modes_string(const struct channel *, char *buf, size_t len, int show_args);
/* Highest prefix character(s) of a member: "@", "+", "@+" with multi. */
const char	*channel_prefix(const struct member *, int multi);
/* The list of a list mode letter (b, e, I), or NULL. */
struct banlist	*channel_banlist(struct channel *, char letter);
/* The entry of l equal to mask (casefolded), or NULL. */
struct ban	*channel_ban_find(struct banlist *l, const char *mask);
/* Append an entry; NULL when l holds max-bans entries already. */
struct ban	*channel_ban_add(struct banlist *l, const char *mask,
		    const char *setter, time_t when);
void		 channel_ban_del(struct banlist *l, struct ban *);
/*
 * Is c banned from ch: a +b entry (a host mask or R:account) matches and
 * no +e entry does? Mutes (m:) are channel_can_send's.
 */
int		 channel_is_banned(const struct channel *, const struct client *);
/* Does a +I entry (a host mask or R:account) let c past +i? */
int		 channel_is_invexempt(const struct channel *, const struct client *);
/*
 * Why may c not speak in ch (+n, +m, a ban, a mute)? NULL if it may,
 * else the reason for ERR_CANNOTSENDTOCHAN.
 */
const char	*channel_cannot_send(const struct channel *, const struct client *);
/* Can c speak in ch? 0 if so, else the numeric to send (ERR_CANNOTSENDTOCHAN). */
int		 channel_can_send(const struct channel *, const struct client *);
void		 channel_set_topic(struct channel *, const char *topic, const char *who, time_t);

#endif

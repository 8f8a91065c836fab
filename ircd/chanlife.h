/*
 * chanlife.h: what a channel keeps while empty (AU-7): remembered
 * operators, each person's stays, and the end of a channel's life.
 */
#ifndef IRCD_CHANLIFE_H
#define IRCD_CHANLIFE_H

#include <stdint.h>

#include "ircd/convkey.h"
#include "store/store.h"

struct channel;
struct client;

/* A reader, for store_history_query_as: its two principals. */
struct chanlife_who {
	struct convkey		own;
	struct convkey		conn;
	struct store_who	who;
};
/*
 * Who c reads ch as: NULL when ch is open (c reads everything), else c's
 * principals in w, for store_history_query_as (a +s, +i or +k channel
 * shows each reader only its own stays).
 */
const struct store_who *chanlife_reader(const struct channel *,
	    const struct client *, struct chanlife_who *w);
/* Does c get op when it joins ch: the config's ops or a remembered one? */
int	chanlife_is_op(const struct channel *, const struct client *);
/* c became op of ch (on) or stopped being one: remember it (accounts stored). */
void	chanlife_op(struct channel *, const struct client *, int on);
/*
 * Membership, from channel_add and channel_remove: c's stays. joined
 * returns the id of the newest message c had when its principal last
 * left ch, -1 when it never was here, is here on another connection
 * too, or nothing is stored (HS-3: what it missed).
 */
int64_t	chanlife_joined(struct channel *, const struct client *);
void	chanlife_parted(struct channel *, const struct client *);
/* c quits: its connection holds nothing any more. Before it leaves its channels. */
void	chanlife_quit(const struct client *);
/* The newest message id of ch when c's current stay began; -1: none. */
int64_t	chanlife_since(const struct channel *, const struct client *);
/* End an empty channel's life: state and history set aside, then freed. */
void	chanlife_end(struct channel *);
/* End the channels empty for longer than [server] channel-expire-days. */
void	chanlife_expire(void);

#endif

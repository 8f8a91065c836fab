/*
 * convkey.h: the key of a conversation, under which history stores what
 * is said (and CHATHISTORY and the agent bridge find it). This is the one
 * place that builds and reads its text; the text is in every database, so
 * it never changes:
 *
 *   #chan             a channel: its name, casefolded
 *   a:<account>       a person logged in to an account (casefolded)
 *   c:<start>.<id>    a person not logged in: one connection of one run
 *   g:<nick>          a service user, e.g. an agent (casefolded)
 *   <p1> <p2>         a private conversation: two of those principals,
 *                     sorted and joined by a space (store_private_key)
 *
 * A principal is a key too: the conversations of a person who goes (an
 * account deleted) are those that involve its key. Pure: it knows no
 * clients nor channels, only their names; unit-tested.
 */
#ifndef IRCD_CONVKEY_H
#define IRCD_CONVKEY_H

#include <stddef.h>
#include <stdint.h>

#include "ircd/ircd.h"		/* NICKLEN */

/*
 * The longest key: two principals of the longest kind, "a:" and an
 * account cut at twice NICKLEN (accounts have no length limit of their
 * own; "c:" with a run's id and a 64-bit number, 46 at most, is shorter),
 * a space and the NUL. A channel's is at most CHANNELLEN.
 */
#define CONVKEY_LEN	(2 * (2 + 2 * NICKLEN) + 1 + 1)

struct convkey {
	char	s[CONVKEY_LEN];
};

/* A channel's conversation: its name, casefolded. */
void	convkey_channel(struct convkey *, const char *name);
/* The principal of a person logged in to account. */
void	convkey_account(struct convkey *, const char *account);
/* The principal of a service user (an agent) named nick. */
void	convkey_service(struct convkey *, const char *nick);
/* The principal of connection id of the run whose id is start. */
void	convkey_connection(struct convkey *, const char *start, uint64_t id);
/* The private conversation of two principals (the same one either way). */
void	convkey_private(struct convkey *, const struct convkey *,
	    const struct convkey *);

/* Is key a channel's? */
int	convkey_is_channel(const char *key);
/* Is key the principal of a connection (a person not logged in)? */
int	convkey_is_connection(const char *key);
/* Is principal one side of the private conversation key? */
int	convkey_side(const char *key, const char *principal);
/* Is key principal itself, or a private conversation it is a side of? */
int	convkey_involves(const char *key, const char *principal);
/*
 * The other side of the private conversation key, one side of which is
 * principal, into other: 0, or -1 when principal is not a side of it.
 */
int	convkey_other(const char *key, const char *principal,
	    struct convkey *other);

#endif

/*
 * card.h: permission cards (PM-1..PM-4). An agent's permission request
 * becomes a NOTICE card in its conversation that a person answers with
 * !allow, !always or !deny; unanswered, it is refused after
 * permission-timeout.
 */
#ifndef IRCD_CARD_H
#define IRCD_CARD_H

#include <stdint.h>

#include "ircd/bridge/policy.h"

struct acp_permission;
struct acp_perm_option;
struct channel;
struct client;
struct conv;
struct turn;

/* Show a card for request p of the turn t in cv (PM-1). */
void	card_open(struct conv *, struct turn *, const struct acp_permission *);
/*
 * A card of the server's own, e.g. a schedule aimed at another
 * conversation (SC-5): done(allowed, arg) when answered or timed out.
 * Returns its number.
 */
unsigned card_open_server(struct conv *, struct turn *, const char *what,
	    void (*done)(int allowed, void *), void *arg);
/* Drop server cards whose arg is arg (it went away first). */
void	card_forget(void *arg);
/*
 * A request the policy answered: keep a trace in the conversation (PM-4),
 * naming the policy.
 */
void	card_auto(struct conv *, const struct acp_permission *, enum policy,
	    const struct acp_perm_option *chosen);
/* The agent withdrew request id (cancel, exit). */
void	card_gone(struct conv *, uint64_t id);
/*
 * A person's !allow, !always or !deny [n] in conversation key. ch is the
 * channel (NULL for a private query). Says what happened in a NOTICE.
 */
void	card_answer(struct client *from, const char *key, struct channel *ch,
	    const char *verb, const char *arg);
void	card_drop_turn(struct turn *);
void	card_drop_conv(struct conv *);
/* Does a card of conv wait for an answer? */
int	card_conv_open(const struct conv *);
/* The number of the card conv's running turn waits on, or 0 (TN-1). */
unsigned card_waiting(const struct conv *);

#endif

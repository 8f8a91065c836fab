/*
 * authority.h: who may make an agent act (AU-1, AU-2, AU-3, AU-8). The
 * config sets the ceilings; these answer, for one person and one agent,
 * what IRC may change within them and what it may be told.
 */
#ifndef IRCD_BRIDGE_AUTHORITY_H
#define IRCD_BRIDGE_AUTHORITY_H

#include <stddef.h>

#include "ircd/bridge/policy.h"

struct agent;
struct client;
struct conv;

/* The strictest of the agent's configured permissions and the channel's (NULL: private). */
enum policy	 authority_ceiling(const struct agent *, const char *channel);
/* The policy in force in cv: its override, clamped to the ceiling (replaces conv_policy's body). */
enum policy	 authority_policy(const struct conv *);
/* AU-1: may c loosen a policy or switch a mode of a? (an IRC operator, or a's admins) */
int		 authority_may_loosen(const struct agent *, const struct client *);
/* AU-2: may c talk to a? If not, why (a sentence for a NOTICE) into why. */
int		 authority_may_talk(const struct agent *, const struct client *,
		    char *why, size_t);
/* AU-3: may a be switched into mode id by !mode? initial: its first mode, or NULL. */
int		 authority_mode_allowed(const struct agent *, const char *modeid,
		    const char *initial);
/*
 * AU-8: how to name cv to asker: "#chan" if asker may see it, else "a
 * channel" (a +s channel asker is not in), or "a private conversation".
 */
const char	*authority_where(const struct client *asker, const struct conv *);

#endif

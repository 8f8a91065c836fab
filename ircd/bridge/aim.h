/*
 * aim.h: where an agent's tool may aim, when not at its own conversation
 * (AU-5, SC-5, MN-7).
 */
#ifndef IRCD_BRIDGE_AIM_H
#define IRCD_BRIDGE_AIM_H

#include <stddef.h>

struct conv;
struct convkey;

/*
 * The conversation named target ("#chan" or a nick) into tkey, tname and
 * tpriv, for a tool of cv's agent. Another than cv only if the person
 * who asked for the running turn belongs to it: a channel both they and
 * the agent are in, or their own private conversation with the agent. A
 * turn no person asked for aims nowhere else. what ("a schedule") names
 * the thing aimed in the reason. -1 and the reason in out otherwise.
 */
int	aim_target(struct conv *cv, const char *target, const char *what,
	    struct convkey *tkey, char *tname, size_t tlen, int *tpriv,
	    char *out, size_t len);

#endif

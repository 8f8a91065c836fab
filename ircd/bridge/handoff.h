/*
 * handoff.h: agents addressing agents by name in their answers (MN-1 to
 * MN-5): the agents an answer names wake, within the chain's limits.
 */
#ifndef IRCD_BRIDGE_HANDOFF_H
#define IRCD_BRIDGE_HANDOFF_H

#include <stddef.h>

struct agent;
struct client;
struct convkey;
struct turn;
struct turn_chain;

/*
 * MN-4, MN-7: may a turn handed on through chain c (a mention's wake, a
 * tool's hand-off) go to agent a? Depth, no agent twice, the chain's
 * person still here and allowed to talk to a (AU-2), and, when
 * take_rate, one of the pair's wakes a minute. 0 and why otherwise.
 */
int	handoff_allow(const struct turn_chain *c, struct agent *a,
	    int take_rate, char *why, size_t len);
/*
 * The person of principal, connected now, or NULL (AU-4). A chain asks it
 * of its origin: the person who started it, or for a schedule's firing
 * (which approves nothing) the one whose prompt made it, as their direct
 * prompt would (SC-8): no further, and only while they are here.
 */
struct client *handoff_person(const struct convkey *principal);

/*
 * t ended cleanly (end_turn): wake the agents its answer names, or say
 * in the conversation why one was not woken. Call before turn_done(t).
 */
void	handoff_answered(struct turn *);
void	handoff_shutdown(void);

#endif

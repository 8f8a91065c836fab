/*
 * handoff.h: agents addressing agents by name in their answers (MN-1 to
 * MN-5): the agents an answer names wake, within the chain's limits.
 */
#ifndef IRCD_BRIDGE_HANDOFF_H
#define IRCD_BRIDGE_HANDOFF_H

struct turn;

/*
 * t ended cleanly (end_turn): wake the agents its answer names, or say
 * in the conversation why one was not woken. Call before turn_done(t).
 */
void	handoff_answered(struct turn *);
void	handoff_shutdown(void);

#endif

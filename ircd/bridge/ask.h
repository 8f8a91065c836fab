/*
 * ask.h: a turn reaches its agent (the session opened first if need be,
 * then the prompt), or is cancelled there.
 */
#ifndef IRCD_BRIDGE_ASK_H
#define IRCD_BRIDGE_ASK_H

struct turn;

/* Turn plumbing for turn.c. */
void	agent_turn_start(struct turn *);
void	agent_turn_cancel(struct turn *);
void	agent_turn_send(struct turn *);

#endif

/*
 * ask.h: a turn reaches its agent (the session opened first if need be,
 * then the prompt), or is cancelled there.
 */
#ifndef IRCD_BRIDGE_ASK_H
#define IRCD_BRIDGE_ASK_H

struct turn;

/* turn.c starts t (it runs now) and cancels it (!stop). */
void	ask_start(struct turn *);
void	ask_cancel(struct turn *);
/* t's session is open (callbacks.c): the prompt goes. */
void	ask_send(struct turn *);

#endif

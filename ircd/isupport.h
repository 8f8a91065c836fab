/*
 * isupport.h: the RPL_ISUPPORT (005) tokens, built once from the config.
 */
#ifndef IRCD_ISUPPORT_H
#define IRCD_ISUPPORT_H

struct client;

void	isupport_build(void);
void	isupport_send(struct client *);
void	isupport_free(void);

#endif

/*
 * whowas.h: a fixed ring of the last nicks that left or changed, for
 * WHOWAS. Its size is the config's whowas, so it never grows.
 */
#ifndef IRCD_WHOWAS_H
#define IRCD_WHOWAS_H

#include <time.h>

#include "ircd/ircd.h"

struct client;

struct whowas {
	char	nick[NICKLEN + 1];
	char	user[USERLEN + 1];
	char	host[HOSTLEN + 1];
	char	realname[REALLEN + 1];
	char	account[NICKLEN + 1];
	time_t	when;
};

void			 whowas_init(int size);
void			 whowas_add(const struct client *);
/* Newest first: i = 0, 1, ... until NULL. */
const struct whowas	*whowas_find(const char *nick, int i);
void			 whowas_free(void);

#endif

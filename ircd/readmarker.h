/*
 * readmarker.h: IRCv3 draft/read-marker (MARKREAD): where each person
 * has read up to, per channel or nick, shared by that person's clients.
 */
#ifndef IRCD_READMARKER_H
#define IRCD_READMARKER_H

struct channel;
struct client;

/* After c's JOIN, before its 366: c's marker of ch, if c has the cap. */
void	readmarker_join(struct client *c, struct channel *ch);
/* Free the markers a connection not logged in keeps in memory. */
void	readmarker_free(struct client *c);

#endif

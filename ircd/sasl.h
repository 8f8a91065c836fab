/*
 * sasl.h: the SASL exchange state of a client (AUTHENTICATE).
 */
#ifndef IRCD_SASL_H
#define IRCD_SASL_H

struct client;

/* Registration completed or the client left mid-exchange: 906 and forget it. */
void	sasl_abort(struct client *);
void	sasl_free(struct client *);

#endif

/*
 * mkcert.h: a self-signed certificate for a quick TLS start.
 */
#ifndef IRCD_MKCERT_H
#define IRCD_MKCERT_H

/* Write DIR/agentircd.crt and DIR/agentircd.key for cn; 0 on success. */
int	mkcert_run(const char *dir, const char *cn);

#endif

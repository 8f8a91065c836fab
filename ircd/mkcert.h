/*
 * mkcert.h: a self-signed certificate for a quick TLS start.
 */
#ifndef IRCD_MKCERT_H
#define IRCD_MKCERT_H

/* Write DIR/agentircd.crt and DIR/agentircd.key for cn; 0 on success. */
/* 0 done, 2 a certificate is there already (kept), 1 an error. */
int	mkcert_run(const char *dir, const char *cn);

#endif

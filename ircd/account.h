/*
 * account.h: the accounts of the config ([account NAME]): password and
 * certificate checks, and the per-address slowdown of failed logins.
 */
#ifndef IRCD_ACCOUNT_H
#define IRCD_ACCOUNT_H

struct client;

/* The account's name as configured if password matches, else NULL. */
const char	*account_check_password(const char *name, const char *password);
/* The account whose certfp is fp (lowercase hex SHA-256), or NULL. */
const char	*account_check_certfp(const char *fp);
/* Any account configured at all? (SASL is offered only then.) */
int		 account_any(void);
/* Log c in as name: sets c->account and sends 900. */
void		 account_login(struct client *c, const char *name);
/* A failed login from c's address: slows that address down (SEC-6). */
void		 account_failed(struct client *c);
/* How long logins from ip must still wait after failures, in ms. */
unsigned	 account_wait_ms(const char *ip);
void		 account_shutdown(void);

#endif

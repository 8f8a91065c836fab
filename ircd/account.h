/*
 * account.h: the accounts of the config ([account NAME]): password and
 * certificate checks, and the slowdown of failed logins (SEC-6), which
 * OPER shares.
 */
#ifndef IRCD_ACCOUNT_H
#define IRCD_ACCOUNT_H

struct client;

/* What failed logins are counted under (SEC-6). */
enum login_kind {
	LOGIN_BLOCK,	/* an address's block (addrblock.c) */
	LOGIN_ACCOUNT,	/* an [account]'s name */
	LOGIN_OPER	/* an [operator]'s name */
};

/*
 * A password check in two halves, since the hash is checked off the loop
 * (verify.c): the hash to check a password for name against (a dummy's
 * for an unknown name, L4), and afterwards the account's name as the
 * config has it now, or NULL when it has none (REHASH meanwhile).
 */
const char	*account_password_hash(const char *name);
const char	*account_with_password(const char *name);
/* A hash to check against when there is no such name (L4: same time). */
const char	*account_dummy_hash(void);
/* The account whose certfp is fp (lowercase hex SHA-256), or NULL. */
const char	*account_check_certfp(const char *fp);
/* Any account configured at all? (SASL is offered only then.) */
int		 account_any(void);
/* Log c in as name: sets c->account and sends 900. */
void		 account_login(struct client *c, const char *name);
/*
 * A failed login (or OPER) from c for name (NULL: none): slows c's
 * address block, and further tries of name from anywhere.
 */
void		 account_failed(struct client *c, enum login_kind, const char *name);
/* How long tries under kind's name (for LOGIN_BLOCK, an address) wait, in ms. */
unsigned	 account_wait_ms(enum login_kind, const char *name);
/*
 * May c try name now? 0 if so; else the ms to wait, and c is told by
 * NOTICE. A try refused so is not checked, and costs no hash.
 */
unsigned	 account_may_try(struct client *c, enum login_kind, const char *name);
void		 account_shutdown(void);

#endif

/*
 * verify.h: password hashes checked off the event loop (SEC-6).
 */
#ifndef IRCD_VERIFY_H
#define IRCD_VERIFY_H

struct client;
struct verify_job;

/* The command's end, in the loop: ok says whether the password matched. */
typedef void (*verify_done_fn)(struct client *, int ok, const char *arg);

/* Start the checking thread; -1: none, and verify_start checks in the loop. */
int	verify_init(void);
void	verify_shutdown(void);
/*
 * Check password against hash, then call done(c, ok, arg) (arg is copied,
 * and wiped after; may be NULL). Meanwhile c's further lines wait. Without the thread,
 * done runs before this returns. -1: too many checks wait already (or c
 * has one): nothing was started, tell c to try again.
 */
int	verify_start(struct client *c, const char *password, const char *hash,
	    verify_done_fn done, const char *arg);
/* c goes: its check, if any, is answered to nobody. */
void	verify_forget(struct client *);

#endif

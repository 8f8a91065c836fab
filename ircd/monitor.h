/*
 * monitor.h: IRCv3 MONITOR. Each client keeps a bounded list of the nicks
 * it watches; an index from the casefolded nick to its watchers makes a
 * sign-on, a sign-off or a nick change one look-up, whoever the user is
 * (a person, an agent, a remote user of a linked server).
 */
#ifndef IRCD_MONITOR_H
#define IRCD_MONITOR_H

#include <stddef.h>

struct client;

/*
 * Watch nick (a valid nick, as typed): 1 if it is on c's list now (added
 * or already there), 0 if the list is full (max-monitor, ISUPPORT MONITOR).
 */
int		 monitor_add(struct client *, const char *nick);
/* Stop watching nick; nothing if it was not watched. */
void		 monitor_del(struct client *, const char *nick);
/* Stop watching everything (MONITOR C, and when c exits). */
void		 monitor_clear(struct client *);
/* c's list in the order added: the i-th nick as typed, NULL past the end. */
const char	*monitor_at(const struct client *, size_t i);

/*
 * The watchers of c's nick, *n of them (NULL and 0 when none). Valid
 * until the next monitor_* call that adds or removes.
 */
struct client	*const *monitor_watchers(const struct client *, size_t *n);

/* c is online as c->nick: RPL_MONONLINE to its watchers. */
void		 monitor_signon(struct client *);
/* The user known as nick is gone (or renamed): RPL_MONOFFLINE to its watchers. */
void		 monitor_signoff(const char *nick);

/* Free the index, at exit (every client has cleared its list by then). */
void		 monitor_shutdown(void);

#endif

/*
 * turn.h: the server-wide turn queue (TN-1, TN-2, TN-6): turns run one at
 * a time (max-parallel-turns), an agent answers in one conversation at a
 * time, and the turns of one message run in mention order.
 */
#ifndef IRCD_TURN_H
#define IRCD_TURN_H

#include <stddef.h>
#include <stdint.h>

#include "ircd/convkey.h"
#include "ircd/ircd.h"

struct agent;
struct conv;
struct client;
struct stream;

struct turn {
	TAILQ_ENTRY(turn)	 entry;
	struct conv		*conv;
	char			*text;		/* answered, in RT-5 form */
	char			 speaker[NICKLEN + 1];
	/* The requester's nick as it asked: how cards name it. */
	char			 requester[NICKLEN + 1];
	/*
	 * AU-4: the requester's principal (account, or connection), "" for
	 * none; cards and private output follow it, never the nick.
	 */
	struct convkey		 principal;
	char			 addr[64];	/* requester's address (AU-9) */
	char			 msgid[64];	/* for +reply */
	int64_t			 hid;		/* history id of the message */
	int64_t			 sched;		/* the schedule firing, or 0 */
	int			 started;
	int			 cancelled;	/* !stop: say nothing more */
	struct stream		*stream;	/* its answer (stream.c) */
};

/* Queue a turn; tells from when it waits behind another conversation. */
void	turn_enqueue(struct conv *, struct client *from, const char *speaker,
	    const char *text, const char *msgid, int64_t hid);
/* The running turn of its conversation ended (callbacks.c, ask.c). */
void	turn_done(struct turn *);
/*
 * !stop: cancel what runs in the conversation key, drop what waits there;
 * only the turns whose requester only is, unless only is NULL (I7). Each
 * is told in the conversation as stopped by by (TN-14), unless NULL.
 */
int	turn_stop(const char *key, const struct client *only,
	    const struct client *by);
/* conv goes away (KICK): drop its waiting turns. */
void	turn_drop_conv(struct conv *);
/* Does a turn wait in conv? */
int	turn_conv_waiting(const struct conv *);
/* Is a turn of schedule id still waiting (SC-3)? */
int	turn_waiting_sched(int64_t id);
/* Queue a turn fired by schedule id (no person: it approves nothing). */
void	turn_enqueue_sched(struct conv *, const char *speaker, const char *text,
	    int64_t id);
/* How many turns wait for agent a (WHOIS). */
size_t	turn_queued_for(const struct agent *);
void	turn_shutdown(void);

#endif

/*
 * conv.h: conversations (SS-1). An agent has one per channel it is in
 * and per person who writes to it privately, each with its own ACP
 * session.
 */
#ifndef IRCD_BRIDGE_CONV_H
#define IRCD_BRIDGE_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "ircd/bridge/policy.h"
#include "ircd/convkey.h"
#include "ircd/ircd.h"

struct acp_session;
struct agent;
struct client;
struct member_filter;
struct outmsg;
struct turn;
struct conv_readers;

/* An ACP session id as stored (SS-4); agents' ids are UUIDs, 36 bytes. */
#define CONV_SID_LEN	256

/* One (agent, conversation): a channel, or a private query with a person. */
struct conv {
	TAILQ_ENTRY(conv)	 entry;
	struct agent		*agent;
	char			 key[CONVKEY_LEN];	/* a convkey's text */
	/* "#chan", or the person's nick */
	char			 target[CHANNELLEN + 1];
	int			 private;
	struct acp_session	*session;
	int64_t			 seen_id;	/* history seen (SS-2) */
	int			 carry;		/* give it the past (SS-4) */
	int			 opening;
	int			 closing;	/* KICKed: free at turn end */
	/* Made for a prompt not yet accepted: refused past the cap (AU-9). */
	int			 fresh;
	enum policy		 policy;	/* PM-4 override here, or UNSET */
	struct turn		*turn;		/* running here, or NULL */
	uint64_t		 used;		/* last used (a count): LRU */
	/* Private: the clients of its principal, found again on change. */
	struct conv_readers	*readers;
};

/* a's conversation key (created on first use), now named target. */
struct conv	*conv_get(struct agent *a, const char *key, const char *target,
		    int private);
/* The same, only if it is in memory now (NULL: none, or closed while idle). */
struct conv	*conv_find(struct agent *, const char *key);
/* The permission policy that applies in cv (PM-4). */
enum policy	 conv_policy(const struct conv *);
/* cv was used now (LRU, SEC-4). */
void		 conv_touch(struct conv *);
/*
 * Forget cv: its session closes, its cards and waiting turns go; one that
 * is answering goes when its turn ends, silent meanwhile (AG-2).
 */
void		 conv_free(struct conv *);
/* Each conversation of a goes at once (the server stops). */
void		 conv_free_all(struct agent *);
/* Past max-open-sessions, idle conversations go, from the loop (SEC-4). */
void		 conv_trim_soon(void);
void		 conv_shutdown(void);
/*
 * Who reads cv, the one loop of all that is said to a conversation:
 * fn(client, arg) for each member of its channel that passes f, or, in a
 * private conversation, each client of its principal (every connection
 * of the account, or the one connection) that passes f (AU-4). Nobody,
 * when that principal is not connected: what is said is stored only.
 */
void		 conv_each(const struct conv *, const struct member_filter *f,
		    void (*fn)(struct client *, void *), void *arg);
/*
 * The target of its lines: the channel's name, or the person's nick;
 * NULL when the channel is gone (then nothing is said there).
 */
const char	*conv_where(const struct conv *);
/* om (rendered, stored) to the readers that pass f. */
void		 conv_deliver(const struct conv *,
		    const struct member_filter *f, struct outmsg *);
/* One paragraph, lines[0..n), as a batch to the draft/multiline readers. */
void		 conv_deliver_batch(const struct conv *, struct outmsg *lines,
		    size_t n);
/* Has a reader more than half its SendQ queued (TN-4)? */
int		 conv_congested(const struct conv *);
/*
 * AU-4: who is connected changed (a user registered, logged in or is
 * quitting: c, else NULL), so the readers of private conversations are
 * found again; c is no reader any more.
 */
void		 conv_readers_changed(struct client *quitting);
/* The principal of private cv's person into p: 0, or -1 (a channel). */
int		 conv_peer(const struct conv *, struct convkey *p);
/* c's nick changed: its private conversations are now spoken in it. */
void		 conv_nick(struct client *);
/*
 * AU-4: c's connection ends and it was not logged in: its private
 * conversations, their turns and cards go (AU-9), nothing more is sent.
 */
void		 conv_forget_connection(struct client *);
/* Is new private cv over the agent's max-open-sessions (AU-9)? */
int		 conv_over_cap(const struct conv *);
/* May the agent speak in cv: +m, bans, +n (I5)? */
int		 conv_can_speak(const struct conv *);
/* A server NOTICE in cv, not stored (the agent's state, errors). */
void		 conv_notice(struct conv *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* A server NOTICE in cv, stored first like a message (HS-2). */
void		 conv_notice_stored(const struct conv *, const char *text,
		    size_t len);

#endif

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

/*
 * MN-6: how a turn came to its agent. A turn named (a person's @mention
 * or "nick:"), woken (another agent's answer) or sent by a tool carries
 * the Summons block; one asked otherwise (a follow-up, a desk, a private
 * message, a schedule's firing) does not.
 */
enum turn_how {
	TURN_ASKED,
	TURN_NAMED,
	TURN_WOKEN,
	TURN_TOOL
};

/*
 * MN-4, AU-4: what a turn handed on by another (woken by its answer, or
 * sent by its tool) inherits: the person who started the chain answers
 * for it, and it is one agent deeper, by joining the chain.
 */
struct turn_chain {
	char			 by[NICKLEN + 1];	/* the agent handing on */
	char			 requester[NICKLEN + 1];
	struct convkey		 principal;
	struct convkey		 origin;	/* MN-4, SC-8: see struct turn */
	char			 addr[64];
	int			 depth;		/* of the new turn */
	char			 chain[4 * (NICKLEN + 1)];	/* by included */
};

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
	/*
	 * MN-4, SC-8: the person a chain started by this turn answers for:
	 * the principal, or for a schedule's firing (which approves nothing
	 * itself) the person whose prompt created the schedule.
	 */
	struct convkey		 origin;
	char			 addr[64];	/* requester's address (AU-9) */
	char			 msgid[64];	/* for +reply */
	int64_t			 hid;		/* history id of the message */
	/*
	 * TN-10: the lines of a paste joined to it after the first, by
	 * history id (the transcript leaves them out), and till when more
	 * may join before it starts (server_now_ms).
	 */
	int64_t			*pasted;
	size_t			 npasted;
	uint64_t		 hold_until;
	/*
	 * MN-2, MN-4: a turn woken by another agent's answer: that answer's
	 * lines are hid_from..hid (it reads them as its prompt, not twice in
	 * its transcript), depth counts the agents between the person who
	 * started the chain and this one, and chain names them.
	 */
	int64_t			 hid_from;
	enum turn_how		 how;
	int			 depth;
	char			 chain[4 * (NICKLEN + 1)];
	int64_t			 sched;		/* the schedule firing, or 0 */
	int64_t			 task;		/* the tool's task (MN-7), or 0 */
	int			 started;
	int			 cancelled;	/* !stop: say nothing more */
	unsigned		 ncards;	/* open: no slot held (TN-1) */
	struct stream		*stream;	/* its answer (stream.c) */
};

/*
 * Queue a turn; tells from when it waits behind another conversation. A
 * person's line joins their prompt to the same agent in conv that has
 * not started yet (TN-10: a paste is one prompt), and a person's prompt
 * waits paste-window ms for such lines before it starts. how: TURN_NAMED
 * when from named the agent (MN-6), else TURN_ASKED.
 */
void	turn_enqueue(struct conv *, struct client *from, const char *speaker,
	    const char *text, const char *msgid, int64_t hid,
	    enum turn_how how);
/*
 * TN-1: a card of t opened or closed (card.c). While one is open, t holds
 * no slot of max-parallel-turns, so a card nobody answers stalls nobody
 * else; answered, t takes its slot again, even if others took them all.
 */
void	turn_card_opened(struct turn *);
void	turn_card_closed(struct turn *);
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
/*
 * Agent a goes away (a reload removed it): its running turn ends where
 * it got to and its waiting ones are dropped, each said in its
 * conversation, kept in history, with why ("it was removed ...").
 */
void	turn_drop_agent(struct agent *, const char *why);
/*
 * TN-10: the agent that who's prompt in conversation key waits for, when
 * one agent only: a line that names nobody joins it (dispatch.c). NULL
 * when none waits.
 */
struct agent *turn_pasting(const char *key, const struct convkey *who);
/* Is hid a message t answers (its first or a pasted line)? */
int	turn_answers(const struct turn *, int64_t hid);
/*
 * MN-2: a turn of conv woken by the answer of by (a turn that ended):
 * the answer is its prompt, said by by's agent; it answers for the person
 * who started the chain, one agent deeper. hid_from..hid: the answer's
 * stored lines; msgid: its first, for +reply.
 */
void	turn_enqueue_woken(struct conv *, const struct turn *by,
	    const char *text, const char *msgid, int64_t hid_from,
	    int64_t hid);
/*
 * MN-4, !status: fn for each turn of conversation key that a chain of
 * agents brought (depth > 0), the running ones first.
 */
void	turn_each_chained(const char *key,
	    void (*fn)(const struct turn *, int running, void *), void *arg);
/* What a turn handed on by t inherits from it. */
void	turn_chain_from(const struct turn *, struct turn_chain *);
/*
 * MN-7: a turn of conv sent by an agent's tool (task, a task id): text
 * is its prompt, posted in conv as history ids hid_from..hid (msgid the
 * first, for +reply), with the chain c.
 */
void	turn_enqueue_tool(struct conv *, const struct turn_chain *c,
	    const char *text, const char *msgid, int64_t hid_from, int64_t hid,
	    int64_t task);
/* Does a turn wait in conv? */
int	turn_conv_waiting(const struct conv *);
/* Is a turn of schedule id still waiting (SC-3)? */
int	turn_waiting_sched(int64_t id);
/*
 * Queue a turn fired by schedule id (no person: it approves nothing).
 * owner is the principal whose prompt created it, or NULL: a chain the
 * firing starts reaches no further than their direct prompt (SC-8).
 */
void	turn_enqueue_sched(struct conv *, const char *speaker, const char *text,
	    int64_t id, const char *owner);
/* How many turns wait for agent a (WHOIS). */
size_t	turn_queued_for(const struct agent *);
void	turn_shutdown(void);

#endif

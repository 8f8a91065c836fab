/*
 * store.h: everything agentircd remembers, in one SQLite file beside the
 * config (HS-1). This header is the only way in: no SQL lives outside
 * store/. It knows nothing of IRC structures; callers pass plain values.
 *
 * Errors: functions returning int give 0 on success and -1 on failure,
 * after logging the reason through the log hook; a failure never leaves
 * a half-written row (each write is one statement or one transaction,
 * or one savepoint inside a batch: see store_batch_begin).
 */
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

struct store;

/* Where store/ writes its log lines (the daemon plugs its logger in). */
void	store_set_log(void (*fn)(int is_error, const char *msg));

/*
 * Open (creating if needed) the database at path: WAL, synchronous=NORMAL,
 * foreign keys, busy timeout, then every migration not yet applied, each
 * in one transaction (PRAGMA user_version counts them). NULL on error
 * with the reason in err.
 */
struct store	*store_open(const char *path, char *err, size_t errlen);
void		 store_close(struct store *);

/*
 * Group commit: one transaction for all the writes of an event-loop
 * turn, instead of one per message (each commit costs file locks and
 * WAL writes). The caller begins it before the turn's first write and
 * commits it before the turn writes to any socket, so nothing is
 * relayed that is not stored.
 *
 * store_batch_begin: BEGIN IMMEDIATE unless a batch is open already
 * (then nothing). -1 when the write lock cannot be had within the busy
 * timeout (another process holds it) or on any other error: no batch is
 * open and the caller must treat its write as failed. Inside a batch,
 * every write function joins it, and those that make a change of
 * several statements run it as a savepoint: a change that fails is
 * undone alone and the batch goes on. Row ids set by adds are final
 * once the commit succeeds; after a failed one they may be given again.
 *
 * store_batch_commit: COMMIT; 0 when no batch is open. -1 when nothing
 * of the batch is stored: the commit failed (it is rolled back), or
 * SQLite had rolled the batch back after an error in one of its writes.
 * In that second case, store_batch_begin and every write are refused
 * (-1) until this commit reports it, so that a turn is stored whole or
 * not at all.
 *
 * store_batch_open: 1 while a batch awaits store_batch_commit (also one
 * SQLite rolled back, whose commit is -1), else 0. store_close commits
 * an open batch first.
 */
int	store_batch_begin(struct store *);
int	store_batch_commit(struct store *);
int	store_batch_open(const struct store *);

/* The schema version the file is at now. */
int		 store_version(struct store *);
/* The schema version this build creates. */
int		 store_version_latest(void);

/* ---- history (HS-2, HS-3) ---- */

/*
 * One stored message. For a channel, conv is the casefolded channel
 * name; for a private conversation it is the key of its two
 * participants (see store_private_key). time is Unix milliseconds.
 */
struct store_msg {
	int64_t		 id;		/* rowid, set by add and by queries */
	char		 msgid[64];
	int64_t		 time;
	const char	*conv;
	const char	*target;	/* as sent: "#chan" or the recipient's nick */
	const char	*kind;		/* "PRIVMSG" or "NOTICE" */
	const char	*prefix;	/* sender nick!user@host */
	const char	*nick;		/* sender nick */
	const char	*account;	/* sender account, or NULL */
	const char	*text;
	const char	*tags;		/* client tags worth keeping ("+reply=x"), or NULL */
};

/* Store m (msgid, time and the strings are copied in). Sets m->id. */
int	store_history_add(struct store *, struct store_msg *m);
/* Is a message with msgid stored, in any conversation: 1, 0, -1 on error. */
int	store_history_has(struct store *, const char *msgid);

/* fn for the message with msgid, if stored (0 or 1 calls). How many, or -1. */
int	store_history_get(struct store *, const char *msgid,
	    void (*fn)(const struct store_msg *, void *), void *arg);
/*
 * Delete the message with msgid and every copy of its text (a kept
 * mention), so that nothing in the file holds it once committed (the
 * WAL is truncated after the commit). 0 (also when there was none), -1.
 */
int	store_history_redact(struct store *, const char *msgid);

/*
 * Private conversation key of two principals (each "a:<account>" for a
 * logged-in user, "c:<connection id>" without one, "g:<agent>" for an
 * agent): the two sorted, joined by a space, into buf.
 */
void	store_private_key(char *buf, size_t len, const char *p1, const char *p2);

/* A selector: by msgid, or by time (ms). */
struct store_ref {
	const char	*msgid;		/* NULL: use time */
	int64_t		 time;
};

enum store_dir {
	STORE_LATEST,	/* the newest, after ref when ref is set ("*" = none) */
	STORE_BEFORE,	/* older than ref, newest first up to limit */
	STORE_AFTER,	/* newer than ref, oldest first up to limit */
	STORE_AROUND,	/* limit messages around ref */
	STORE_BETWEEN,	/* strictly between ref and ref2, either order */
};

/*
 * Query conv. Calls fn for each message in ascending time order (the
 * strings are valid only during the call). ref may be NULL for LATEST.
 * Returns the number of messages, -1 on error, -2 when a msgid ref is
 * not found in conv.
 *
 * References are exclusive; a timestamp ref falls between messages, so
 * BEFORE t is time < t and AFTER t is time > t. AROUND gives limit/2
 * messages before ref and the rest from ref on (a msgid ref itself
 * included; limit 1 is just it). BETWEEN keeps the end nearest ref: the
 * oldest when ref < ref2, the newest when ref > ref2. Ties in time are
 * ordered by id. Callbacks (here and below) must not call back into the
 * same store function: its cached statement is in use.
 */
int	store_history_query(struct store *, const char *conv, enum store_dir,
	    const struct store_ref *ref, const struct store_ref *ref2, int limit,
	    void (*fn)(const struct store_msg *, void *), void *arg);
/*
 * Who reads, for a channel that shows only what its reader was there for
 * (AU-7): one person's principals (its account's and its connection's;
 * p2 may be NULL), matched against store_member_join's stays.
 */
struct store_who {
	const char	*p1;
	const char	*p2;
};
/* store_history_query, but only messages said while who was a member. */
int	store_history_query_as(struct store *, const char *conv,
	    const struct store_who *who, enum store_dir,
	    const struct store_ref *ref, const struct store_ref *ref2, int limit,
	    void (*fn)(const struct store_msg *, void *), void *arg);

/*
 * Conversations with messages between t1 and t2 (ms, either order,
 * inclusive) for which keep(conv, arg) says yes: fn gets each conv, its
 * latest target name as sent, and the time of its latest message in the
 * range, newest last, at most limit (counted after keep). As BETWEEN:
 * t1 < t2 keeps the oldest limit, t1 > t2 the newest. For a private conv
 * the target is the recipient of its latest message, which may be either
 * side. Returns how many, or -1.
 */
int	store_history_targets(struct store *, int64_t t1, int64_t t2, int limit,
	    int (*keep)(const char *conv, void *),
	    void (*fn)(const char *conv, const char *target, const char *nick,
	    int64_t time, void *),
	    void *arg);

/*
 * The newest private conversation key containing principal whose other
 * side used nick (casefolded) as sender or recipient; for CHATHISTORY on
 * a nick that is offline. 0 and key in buf, or -1 if none (or on error,
 * logged). Nicks compare with SQLite's ASCII NOCASE: "[]\~" do not
 * match "{}|^" as rfc1459 would.
 */
int	store_private_find(struct store *, const char *principal,
	    const char *nick_folded, char *buf, size_t len);

/*
 * Retention: delete messages older than days (0: keep) and beyond
 * max_rows (0: all), oldest first, in batches of 1000 rows (each its own
 * transaction, so the write lock is held briefly; inside a store batch
 * they all wait for its commit, so prune outside one). 0 or -1.
 */
int	store_history_prune(struct store *, int days, int64_t max_rows);

/* ---- channels (HS-2: topic, modes, bans survive a restart) ---- */

struct store_channel {
	const char	*conv;		/* the key: the casefolded name, as in history */
	const char	*name;		/* as created, e.g. "#General" */
	const char	*topic;		/* NULL: none */
	const char	*topic_who;
	int64_t		 topic_time;	/* seconds */
	int64_t		 created;	/* seconds */
	const char	*modes;		/* flag letters, e.g. "nt"; NULL: never
					   saved, apply the defaults */
	const char	*key;		/* NULL: none */
	unsigned	 limit;		/* 0: none */
	int64_t		 emptied;	/* seconds: its last member left; 0: has one */
};

struct store_ban {
	const char	*mask;
	const char	*setter;
	int64_t		 time;
	char		 list;		/* 'b', 'e' or 'I'; 0 is 'b' */
};

/* Insert or replace the channel's row (its bans are kept). */
int	store_channel_save(struct store *, const struct store_channel *);
/* Deletes the row and its bans; a channel with history still reappears. */
int	store_channel_delete(struct store *, const char *conv);
/*
 * A ban needs no prior store_channel_save: a channel without a row gets a
 * minimal one in the same transaction (name: its latest history target,
 * else conv; created: its first message, else now; modes NULL). Adding
 * an existing mask keeps the first setter and time. Masks are compared
 * exactly: store_ban_del takes the mask as it was added.
 */
int	store_ban_add(struct store *, const char *conv, const struct store_ban *);
int	store_ban_del(struct store *, const char *conv, char list,
	    const char *mask);
/*
 * Every stored channel, and every channel with history but no row (by
 * its latest target name): fn is called with the channel, then ban_fn
 * with each of its bans (strings valid during the call only).
 */
int	store_channel_load_all(struct store *,
	    void (*fn)(const struct store_channel *, void *),
	    void (*ban_fn)(const char *conv, const struct store_ban *, void *),
	    void *arg);
/*
 * The accounts that get op in a channel when they join (AU-7). Adding
 * needs the channel's row (store_channel_save first); deleting the row
 * deletes them. store_channel_ops calls fn(conv, account, arg) for every
 * one of every channel.
 */
int	store_channel_op_add(struct store *, const char *conv, const char *account);
int	store_channel_op_del(struct store *, const char *conv, const char *account);
int	store_channel_ops(struct store *,
	    void (*fn)(const char *conv, const char *account, void *), void *arg);
/*
 * A channel's life ends (AU-7): its row, bans, operators and stays go,
 * and its messages move to the conversation "~<conv>@<tag>", which no
 * channel reads and history pruning still ages out, so a channel of the
 * same name starts empty and nothing is deleted by hand.
 */
int	store_channel_retire(struct store *, const char *conv, const char *tag);

/*
 * Stays in channels (AU-7), by message id. A join with nothing said
 * since the principal's last part continues that stay; a join while a
 * stay is open changes nothing, so the caller parts a principal only
 * when its last connection leaves. forget: every stay of a principal (a
 * connection that quit). since: the newest id of the channel when the
 * open stay began, -1 when there is none. left: the newest id when the
 * principal's last stay ended, -1 when it never had one or one is still
 * open, -2 on error (HS-3: what it missed). reset, at start: open stays
 * end where their history ends, and connections of the last run go.
 */
int	store_member_join(struct store *, const char *conv, const char *principal);
int	store_member_part(struct store *, const char *conv, const char *principal);
int	store_member_forget(struct store *, const char *principal);
int64_t	store_member_since(struct store *, const char *conv, const char *principal);
int64_t	store_member_left(struct store *, const char *conv, const char *principal);
int	store_members_reset(struct store *);

/*
 * The transcript an agent missed (SS-2): messages of conv with id greater
 * than after_id, except those whose sender nick is exclude_nick (case-
 * insensitive ASCII), the newest limit of them, delivered ascending.
 * Newest and ascending go by id, the order messages were stored in (the
 * same as time unless the clock stepped back). Returns how many, or -1.
 */
int	store_history_since(struct store *, const char *conv, int64_t after_id,
	    const char *exclude_nick, int limit,
	    void (*fn)(const struct store_msg *, void *), void *arg);
/* The id of the newest message of conv, 0 when it has none, -1 on error. */
int64_t	store_history_last_id(struct store *, const char *conv);

/* ---- agents: sessions, memberships, mentions (SS-1, SS-4, AG-2, RT-8) ---- */

/*
 * The ACP session of (agent, conv): its id (NULL until the agent gave
 * one) and the id of the last history message the session has seen.
 * get: 0 found (sid "" when none), 1 not found, -1 error (also when
 * the sid does not fit in sidlen). sid or seen_id may be NULL.
 */
int	store_session_get(struct store *, const char *agent, const char *conv,
	    char *sid, size_t sidlen, int64_t *seen_id);
/* Create or update: sid NULL keeps the stored one; seen_id < 0 keeps it. */
int	store_session_set(struct store *, const char *agent, const char *conv,
	    const char *sid, int64_t seen_id);
int	store_session_delete(struct store *, const char *agent, const char *conv);

/* The channels an agent is in (conv = casefolded name; name as shown). */
int	store_agent_join(struct store *, const char *agent, const char *conv,
	    const char *name);
int	store_agent_part(struct store *, const char *agent, const char *conv);
/* fn for each channel of agent, in the order joined. 0, or -1. */
int	store_agent_channels(struct store *, const char *agent,
	    void (*fn)(const char *conv, const char *name, void *), void *arg);

/* A mention of an account that was not connected (RT-8), kept until told. */
struct store_mention {
	const char	*account;	/* casefolded */
	const char	*target;	/* the channel, as shown */
	const char	*from;		/* who mentioned, a nick */
	int64_t		 time;		/* ms */
	const char	*text;
};
int	store_mention_add(struct store *, const struct store_mention *);
/*
 * Hand every kept mention of account to fn (oldest first), then delete
 * them, in one transaction. Returns how many, or -1. At most 100 are
 * kept per account (add drops the oldest). fn runs inside the write
 * transaction: it must not call store_mention_add/take or store_ban_add
 * (they begin their own), nor begin or commit a batch (outside one the
 * begin fails; inside, a commit rolls the whole batch back); if the
 * delete fails, the mentions stay and come again next time.
 */
int	store_mention_take(struct store *, const char *account,
	    void (*fn)(const struct store_mention *, void *), void *arg);

/* ---- read markers (draft/read-marker) ---- */

/*
 * The time (ms) of the last message account has read in target (a
 * casefolded channel name or nick); 0 when none is known. 0, or -1.
 */
int	store_marker_get(struct store *, const char *account,
	    const char *target, int64_t *time);
/*
 * Move the marker forward to time (never back; an older time changes
 * nothing). The account's oldest markers beyond 500 are dropped. 0, -1.
 */
int	store_marker_set(struct store *, const char *account,
	    const char *target, int64_t time);

/* ---- scheduled prompts (SC-1..SC-8) ---- */

struct store_schedule {
	int64_t		 id;		/* set by add */
	const char	*agent;
	const char	*name;
	const char	*prompt;
	int64_t		 next;		/* next firing, Unix ms */
	int		 every;		/* minutes; 0 for a one-shot */
	const char	*target;	/* conversation key */
	const char	*target_name;	/* "#chan", or the person's nick */
	int		 target_private;
	const char	*creator;	/* conversation key it was made in */
	const char	*creator_name;
	int		 creator_private;
	int64_t		 created;	/* Unix ms */
	const char	*provenance;	/* who asked, through which chain, or NULL */
	const char	*state;		/* "active", "pending" (awaiting a person), "held" */
};

int	store_schedule_add(struct store *, struct store_schedule *);
/* The next firing and the state change as it runs. */
int	store_schedule_update(struct store *, int64_t id, int64_t next,
	    const char *state);
int	store_schedule_delete(struct store *, int64_t id);
/* Every schedule, oldest first (strings valid during the call). */
int	store_schedule_list(struct store *,
	    void (*fn)(const struct store_schedule *, void *), void *arg);

/* ---- tasks: hand-offs between agents by MCP tool (MN-7) ---- */

struct store_task {
	int64_t		 id;		/* set by add */
	const char	*kind;		/* "send", "ask", "delegate" */
	const char	*from_agent;
	const char	*from_conv;	/* conversation key it was made in */
	const char	*from_name;
	const char	*to_agent;
	const char	*conv;		/* the conversation it runs in */
	const char	*conv_name;
	const char	*text;
	/*
	 * "pending" (consent), "waiting", "running", "done", "failed",
	 * "cancelled", "interrupted" (the server stopped meanwhile).
	 */
	const char	*state;
	const char	*result;	/* the answer, or why not; NULL */
	int64_t		 created;	/* Unix ms */
	int64_t		 ended;		/* Unix ms, 0 while in flight */
	const char	*principal;	/* the chain's person (AU-4), or NULL */
};

int	store_task_add(struct store *, struct store_task *);
/* A task's state changes; result and ended with it (NULL, 0: unchanged). */
int	store_task_set(struct store *, int64_t id, const char *state,
	    const char *result, int64_t ended);
/* Task id to fn (strings valid during the call): 1 found, 0 not, -1. */
int	store_task_get(struct store *, int64_t id,
	    void (*fn)(const struct store_task *, void *), void *arg);
/* The newest max tasks made in conversation from_conv, newest first. */
int	store_task_list(struct store *, const char *from_conv, int max,
	    void (*fn)(const struct store_task *, void *), void *arg);
/*
 * At start: tasks in flight when the server stopped end as
 * "interrupted" at now. Returns how many, or -1.
 */
int	store_task_interrupt(struct store *, int64_t now);

/* ---- key/value: small server state that needs no table of its own ---- */

/* value NULL deletes the key. */
int	store_kv_set(struct store *, const char *key, const char *value);
/* Copies the value into buf; 0 found, 1 not found, -1 error (or too long). */
int	store_kv_get(struct store *, const char *key, char *buf, size_t len);
/*
 * fn for each key that starts with prefix, in key order; fn may set or
 * delete keys (all are read first). Returns how many, or -1.
 */
int	store_kv_list(struct store *, const char *prefix,
	    void (*fn)(const char *key, const char *value, void *), void *arg);

#endif

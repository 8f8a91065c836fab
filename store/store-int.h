/*
 * store-int.h: what the files of store/ share and nobody else sees: the
 * handle, the prepared-statement cache, logging and transactions.
 */
#ifndef STORE_STORE_INT_H
#define STORE_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"

/*
 * One slot per statement of the cache. Each statement is prepared the
 * first time it is used and kept until store_close(), so a message
 * costs no SQL parsing on the hot path.
 */
enum store_sql {
	SQL_BEGIN,
	SQL_COMMIT,
	SQL_ROLLBACK,
	SQL_SAVEPOINT,
	SQL_RELEASE,
	SQL_ROLLBACK_TO,
	SQL_HISTORY_ADD,
	SQL_HISTORY_REF,
	SQL_HISTORY_HAS,
	SQL_HISTORY_ASC,
	SQL_HISTORY_DESC,
	SQL_HISTORY_ASC_AS,
	SQL_HISTORY_DESC_AS,
	SQL_HISTORY_TARGETS_ASC,
	SQL_HISTORY_TARGETS_DESC,
	SQL_HISTORY_PRIVATE_FIND,
	SQL_PRIVATE_CONVS_OF,
	SQL_PRIVATE_CONVS_PRUNE,
	SQL_HISTORY_PRUNE_TIME,
	SQL_HISTORY_COUNT,
	SQL_HISTORY_PRUNE_OLDEST,
	SQL_HISTORY_SINCE,
	SQL_HISTORY_LAST_ID,
	SQL_CHANNEL_SAVE,
	SQL_CHANNEL_EMPTIED,
	SQL_CHANNEL_FULL,
	SQL_CHANNEL_DELETE,
	SQL_CHANNEL_ENSURE,
	SQL_CHANNEL_ALL,
	SQL_CHANNEL_NEXT_CONV,
	SQL_CHANNEL_FROM_HISTORY,
	SQL_BAN_ADD,
	SQL_BAN_DEL,
	SQL_BAN_LIST,
	SQL_CHANNEL_OP_ADD,
	SQL_CHANNEL_OP_DEL,
	SQL_CHANNEL_OP_LIST,
	SQL_RETIRE_MESSAGES,
	SQL_RETIRE_CHANNEL,
	SQL_RETIRE_MEMBERS,
	SQL_MEMBER_LAST,
	SQL_MEMBER_REOPEN,
	SQL_MEMBER_JOIN,
	SQL_MEMBER_PART,
	SQL_MEMBER_FORGET,
	SQL_MEMBER_SINCE,
	SQL_MEMBER_LEFT,
	SQL_KV_SET,
	SQL_KV_DEL,
	SQL_KV_GET,
	SQL_KV_LIST,
	SQL_SESSION_GET,
	SQL_SESSION_SET,
	SQL_SESSION_DELETE,
	SQL_AGENT_JOIN,
	SQL_AGENT_PART,
	SQL_AGENT_CHANNELS,
	SQL_MENTION_ADD,
	SQL_MENTION_BOUND,
	SQL_MENTION_LIST,
	SQL_MENTION_DELETE,
	SQL_SCHEDULE_ADD,
	SQL_SCHEDULE_UPDATE,
	SQL_SCHEDULE_DELETE,
	SQL_SCHEDULE_LIST,
	SQL_TASK_ADD,
	SQL_TASK_SET,
	SQL_TASK_GET,
	SQL_TASK_LIST,
	SQL_TASK_INTERRUPT,
	SQL_MARKER_GET,
	SQL_MARKER_SET,
	SQL_MARKER_BOUND,
	SQL_HISTORY_GET,
	SQL_HISTORY_REDACT,
	SQL_MENTION_REDACT,
	SQL_MAX
};

/*
 * The batch of an event-loop turn (store_batch_begin). LOST: SQLite
 * rolled it back after an error, so writes that returned 0 are gone;
 * writes are refused until store_batch_commit reports it, lest later
 * writes of the same turn be stored while earlier ones were not.
 */
enum store_batch {
	STORE_BATCH_NONE,
	STORE_BATCH_OPEN,
	STORE_BATCH_LOST
};

struct store {
	sqlite3		*db;
	char		*path;
	sqlite3_stmt	*stmt[SQL_MAX];
	enum store_batch batch;
	int		 nest;		/* store_begin savepoints in the batch */
	int		 wal;		/* journal_mode is WAL */
	struct store_ckpt *ckpt;	/* the checkpoint thread, or NULL */
	int		 scrub;		/* a redaction: truncate the WAL after commit */
};

/* store.c */
void		 store_log(int is_error, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 store_fail(struct store *, const char *what);
sqlite3_stmt	*store_stmt(struct store *, enum store_sql, const char *sql);
int		 store_step_done(struct store *, sqlite3_stmt *, const char *what);
int		 store_begin(struct store *);
int		 store_commit(struct store *);
void		 store_rollback(struct store *);
void		 store_bind_text(sqlite3_stmt *, int, const char *);
void		 store_bind_static(sqlite3_stmt *, int, const char *);
const char	*store_column_text(sqlite3_stmt *, int);

/* checkpoint.c */
void		 store_ckpt_start(struct store *);
void		 store_ckpt_stop(struct store *);
unsigned long	 store_checkpoints(struct store *);	/* for tests */

/* migrate.c */
int		 store_migrate(struct store *, char *err, size_t errlen);
int		 store_migrations(void);

#endif

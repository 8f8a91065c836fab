/*
 * migrate.c: the schema, as the list of migrations that builds it. The
 * file's PRAGMA user_version counts the migrations applied; each one runs
 * in its own transaction together with the version bump.
 *
 * Rules for later issues: never edit a migration once released, append a
 * new one. A conversation is named everywhere by its plain text key
 * (casefolded channel name, or store_private_key() of two principals),
 * so agent sessions, command lists, schedules and wake chains can key on
 * it without a conversations table.
 */
#include "compat.h"

#include <stdio.h>

#include "store/store-int.h"

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

/* Version 1: history, channels with their bans, key/value. */
static const char *const v1[] = {
	/*
	 * AUTOINCREMENT: ids only grow, even after pruning everything, so a
	 * later table may remember "seen up to id N" safely. time is Unix
	 * milliseconds; (time, id) orders messages, id breaking ties.
	 */
	"CREATE TABLE messages (\n"
	"	id	INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	msgid	TEXT NOT NULL UNIQUE,\n"
	"	time	INTEGER NOT NULL,\n"
	"	conv	TEXT NOT NULL,\n"
	"	target	TEXT NOT NULL,\n"
	"	kind	TEXT NOT NULL CHECK (kind IN ('PRIVMSG', 'NOTICE')),\n"
	"	prefix	TEXT NOT NULL,\n"
	"	nick	TEXT NOT NULL,\n"
	"	account	TEXT,\n"
	"	text	TEXT NOT NULL,\n"
	"	tags	TEXT\n"
	")",
	/* CHATHISTORY: one conversation, a range of (time, id). */
	"CREATE INDEX messages_conv_time ON messages (conv, time, id)",
	/* TARGETS, retention by age, and the newest-first private lookup. */
	"CREATE INDEX messages_time ON messages (time)",
	/*
	 * modes NULL: never saved with modes (a row made for a ban), the
	 * daemon applies its defaults.
	 */
	"CREATE TABLE channels (\n"
	"	conv		TEXT PRIMARY KEY,\n"
	"	name		TEXT NOT NULL,\n"
	"	topic		TEXT,\n"
	"	topic_who	TEXT,\n"
	"	topic_time	INTEGER NOT NULL DEFAULT 0,\n"
	"	created		INTEGER NOT NULL DEFAULT 0,\n"
	"	modes		TEXT,\n"
	"	key		TEXT,\n"
	"	lim		INTEGER NOT NULL DEFAULT 0\n"
	")",
	"CREATE TABLE bans (\n"
	"	conv	TEXT NOT NULL\n"
	"		REFERENCES channels (conv) ON DELETE CASCADE,\n"
	"	mask	TEXT NOT NULL,\n"
	"	setter	TEXT NOT NULL,\n"
	"	time	INTEGER NOT NULL,\n"
	"	PRIMARY KEY (conv, mask)\n"
	")",
	"CREATE TABLE kv (\n"
	"	key	TEXT PRIMARY KEY,\n"
	"	value	TEXT NOT NULL\n"
	")",
	NULL
};

/*
 * Version 2: agents in channels. An agent's ACP session per
 * conversation, the channels it is in, and the mentions kept for an
 * account that was not connected. Times: updated and joined are Unix
 * seconds (as channels.created), mentions.time milliseconds (as
 * messages.time).
 */
static const char *const v2[] = {
	/*
	 * The agent transcript (store_history_since) walks a conversation
	 * by id from the newest down to the session's seen_id; with only
	 * (conv, time, id) that read and sorted the whole conversation.
	 */
	"CREATE INDEX messages_conv_id ON messages (conv, id)",
	/*
	 * sid NULL: the agent has not named its session yet. seen_id: the
	 * last messages.id the session was shown (0: none), which the
	 * AUTOINCREMENT of messages keeps meaningful across pruning.
	 */
	"CREATE TABLE agent_sessions (\n"
	"	agent	TEXT NOT NULL,\n"
	"	conv	TEXT NOT NULL,\n"
	"	sid	TEXT,\n"
	"	seen_id	INTEGER NOT NULL DEFAULT 0,\n"
	"	updated	INTEGER,\n"
	"	PRIMARY KEY (agent, conv)\n"
	")",
	/* Listed by joined, then rowid: the order the agent joined. */
	"CREATE TABLE agent_channels (\n"
	"	agent	TEXT NOT NULL,\n"
	"	conv	TEXT NOT NULL,\n"
	"	name	TEXT NOT NULL,\n"
	"	joined	INTEGER,\n"
	"	PRIMARY KEY (agent, conv)\n"
	")",
	/*
	 * At most MENTION_KEEP (store/agents.c) rows per account, oldest
	 * (lowest id) dropped first. The index is (account, id) in effect.
	 */
	"CREATE TABLE mentions (\n"
	"	id	INTEGER PRIMARY KEY,\n"
	"	account	TEXT NOT NULL,\n"
	"	target	TEXT,\n"
	"	sender	TEXT,\n"
	"	time	INTEGER,\n"
	"	text	TEXT\n"
	")",
	"CREATE INDEX mentions_account ON mentions (account)",
	NULL
};

static const char *const v3[] = {
	/*
	 * Scheduled prompts (SC-1..SC-8). next is the next firing in Unix
	 * milliseconds; every is 0 for a one-shot. target and creator are
	 * conversation keys as in messages.conv, with their shown names.
	 */
	"CREATE TABLE schedules (\n"
	"	id		INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	agent		TEXT NOT NULL,\n"
	"	name		TEXT NOT NULL,\n"
	"	prompt		TEXT NOT NULL,\n"
	"	next		INTEGER NOT NULL,\n"
	"	every		INTEGER NOT NULL DEFAULT 0,\n"
	"	target		TEXT NOT NULL,\n"
	"	target_name	TEXT NOT NULL,\n"
	"	target_private	INTEGER NOT NULL DEFAULT 0,\n"
	"	creator		TEXT NOT NULL,\n"
	"	creator_name	TEXT NOT NULL,\n"
	"	creator_private	INTEGER NOT NULL DEFAULT 0,\n"
	"	created		INTEGER NOT NULL,\n"
	"	provenance	TEXT,\n"
	"	state		TEXT NOT NULL DEFAULT 'active'\n"
	")",
	NULL
};

/*
 * Version 4: private conversations by each side's principal. Finding one
 * by the nick of an offline peer (store_private_find) walked every
 * distinct conversation of the history, one index seek each: 83 ms of
 * a blocked loop on a million messages, for each such CHATHISTORY. Now
 * it looks only at the principal's own conversations. A trigger keeps
 * the table as messages are added (atomic with the INSERT); pruning
 * drops the rows whose messages are all gone (store_history_prune).
 */
static const char *const v4[] = {
	/* a and b: the two principals of store_private_key(), a <= b. */
	"CREATE TABLE private_convs (\n"
	"	conv	TEXT PRIMARY KEY,\n"
	"	a	TEXT NOT NULL,\n"
	"	b	TEXT NOT NULL\n"
	") WITHOUT ROWID",
	"CREATE INDEX private_convs_a ON private_convs (a)",
	"CREATE INDEX private_convs_b ON private_convs (b)",
	/* A private key is the only kind with a space in it. */
	"CREATE TRIGGER messages_private AFTER INSERT ON messages\n"
	"WHEN instr(NEW.conv, ' ') > 0\n"
	"BEGIN\n"
	"	INSERT OR IGNORE INTO private_convs (conv, a, b) VALUES (\n"
	"	    NEW.conv,\n"
	"	    substr(NEW.conv, 1, instr(NEW.conv, ' ') - 1),\n"
	"	    substr(NEW.conv, instr(NEW.conv, ' ') + 1));\n"
	"END",
	"INSERT INTO private_convs (conv, a, b)\n"
	"SELECT conv, substr(conv, 1, instr(conv, ' ') - 1),\n"
	"    substr(conv, instr(conv, ' ') + 1)\n"
	"FROM (SELECT DISTINCT conv FROM messages)\n"
	"WHERE instr(conv, ' ') > 0",
	NULL
};

/*
 * Version 5: what keeps a channel's authority while it is empty (AU-7).
 * channel_ops: the accounts that get op when they join. memberships:
 * when each principal was in a channel, by message id (joined: the
 * channel's newest id at the join, so later ones were seen; parted: its
 * newest at the part, NULL while a member), which bounds what a person
 * may read back of a +s/+k/+i channel. channel_emptied: when the last
 * member of a channel left (seconds), no row while it has one, for
 * channel-expire-days (a table, not a column: v1's tables stay as
 * released).
 */
static const char *const v5[] = {
	"CREATE TABLE channel_emptied (\n"
	"	conv	TEXT PRIMARY KEY\n"
	"		REFERENCES channels (conv) ON DELETE CASCADE,\n"
	"	time	INTEGER NOT NULL\n"
	") WITHOUT ROWID",
	"CREATE TABLE channel_ops (\n"
	"	conv	TEXT NOT NULL\n"
	"		REFERENCES channels (conv) ON DELETE CASCADE,\n"
	"	account	TEXT NOT NULL,\n"
	"	PRIMARY KEY (conv, account)\n"
	") WITHOUT ROWID",
	"CREATE TABLE memberships (\n"
	"	conv		TEXT NOT NULL,\n"
	"	principal	TEXT NOT NULL,\n"
	"	joined		INTEGER NOT NULL,\n"
	"	parted		INTEGER\n"
	")",
	"CREATE INDEX memberships_conv ON memberships (conv, principal)",
	"CREATE INDEX memberships_principal ON memberships (principal)",
	NULL
};

/*
 * Version 6: hand-offs by MCP tool (MN-7). A task is in flight while
 * pending, waiting or running; one found so at start was cut by a stop
 * (store_task_interrupt). from_conv lists a conversation's tasks.
 */
static const char *const v6[] = {
	"CREATE TABLE tasks (\n"
	"	id		INTEGER PRIMARY KEY,\n"
	"	kind		TEXT NOT NULL,\n"
	"	from_agent	TEXT NOT NULL,\n"
	"	from_conv	TEXT NOT NULL,\n"
	"	from_name	TEXT NOT NULL,\n"
	"	to_agent	TEXT NOT NULL,\n"
	"	conv		TEXT NOT NULL,\n"
	"	conv_name	TEXT NOT NULL,\n"
	"	text		TEXT NOT NULL,\n"
	"	state		TEXT NOT NULL,\n"
	"	result		TEXT,\n"
	"	created		INTEGER NOT NULL,\n"
	"	ended		INTEGER,\n"
	"	principal	TEXT\n"
	")",
	"CREATE INDEX tasks_from ON tasks (from_conv, id)",
	"CREATE INDEX tasks_state ON tasks (state)",
	NULL
};

/*
 * Version 7: draft/read-marker. The time (Unix ms) of the last message an
 * account has read in each of its targets (target: the casefolded channel
 * name or nick); it only moves forward. An account's rows are bounded by
 * MARKER_KEEP (store/markers.c), the oldest marker dropped first. A
 * person not logged in keeps markers in memory only (ircd/readmarker.c).
 */
static const char *const v7[] = {
	"CREATE TABLE read_markers (\n"
	"	account	TEXT NOT NULL,\n"
	"	target	TEXT NOT NULL,\n"
	"	time	INTEGER NOT NULL,\n"
	"	PRIMARY KEY (account, target)\n"
	") WITHOUT ROWID",
	NULL
};

/*
 * Version 8: a channel's exception lists (+e ban exceptions, +I invite
 * exceptions) are kept as its bans are. The bans table gets a list
 * column ('b', 'e' or 'I'), so one mask may be in several lists.
 */
static const char *const v8[] = {
	"CREATE TABLE bans_v8 (\n"
	"	conv	TEXT NOT NULL\n"
	"		REFERENCES channels (conv) ON DELETE CASCADE,\n"
	"	list	TEXT NOT NULL DEFAULT 'b',\n"
	"	mask	TEXT NOT NULL,\n"
	"	setter	TEXT NOT NULL,\n"
	"	time	INTEGER NOT NULL,\n"
	"	PRIMARY KEY (conv, list, mask)\n"
	")",
	"INSERT INTO bans_v8 (conv, list, mask, setter, time)\n"
	"SELECT conv, 'b', mask, setter, time FROM bans",
	"DROP TABLE bans",
	"ALTER TABLE bans_v8 RENAME TO bans",
	NULL
};

static const char *const *const migrations[] = {
	v1,
	v2,
	v3,
	v4,
	v5,
	v6,
	v7,
	v8,
};

int
store_migrations(void)
{
	return (int)nitems(migrations);
}

static int
store_exec(struct store *s, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s: migration: %s", s->path,
		    msg != NULL ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
store_check_version(struct store *s, int v, char *err, size_t errlen)
{
	if (v < 0) {
		snprintf(err, errlen, "%s: cannot read the schema version: %s",
		    s->path, sqlite3_errmsg(s->db));
		return -1;
	}
	if (v > store_migrations()) {
		snprintf(err, errlen, "%s: schema version %d is newer than "
		    "this agentircd knows (%d); refusing to open it",
		    s->path, v, store_migrations());
		return -1;
	}
	return 0;
}

int
store_migrate(struct store *s, char *err, size_t errlen)
{
	const char *const *sql;
	char bump[64];
	int v;

	/* Up to date: no write at all, so a read-only file still opens. */
	v = store_version(s);
	if (store_check_version(s, v, err, errlen) == -1)
		return -1;
	while (v < store_migrations()) {
		if (store_exec(s, "BEGIN IMMEDIATE", err, errlen) == -1)
			return -1;
		/* Read again under the lock: another process may have won. */
		v = store_version(s);
		if (store_check_version(s, v, err, errlen) == -1)
			goto fail;
		if (v == store_migrations())
			return store_exec(s, "COMMIT", err, errlen);
		for (sql = migrations[v]; *sql != NULL; sql++)
			if (store_exec(s, *sql, err, errlen) == -1)
				goto fail;
		snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", v + 1);
		if (store_exec(s, bump, err, errlen) == -1 ||
		    store_exec(s, "COMMIT", err, errlen) == -1)
			goto fail;
		v++;
		store_log(0, "%s: schema migrated to version %d", s->path, v);
	}
	return 0;
fail:
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

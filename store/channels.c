/*
 * channels.c: channel state that survives a restart (HS-2): the row of
 * each channel (topic, modes, key, limit), its bans, and the channels
 * known only from their history.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store-int.h"

int
store_channel_save(struct store *s, const struct store_channel *c)
{
	sqlite3_stmt *st;

	if (store_begin(s) == -1)
		return -1;
	/*
	 * An upsert, not INSERT OR REPLACE: REPLACE deletes the old row
	 * first, and the foreign key would take the bans with it.
	 */
	st = store_stmt(s, SQL_CHANNEL_SAVE,
	    "INSERT INTO channels (conv, name, topic, topic_who, topic_time,\n"
	    "    created, modes, key, lim)\n"
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)\n"
	    "ON CONFLICT (conv) DO UPDATE SET\n"
	    "    name = excluded.name,\n"
	    "    topic = excluded.topic,\n"
	    "    topic_who = excluded.topic_who,\n"
	    "    topic_time = excluded.topic_time,\n"
	    "    created = excluded.created,\n"
	    "    modes = excluded.modes,\n"
	    "    key = excluded.key,\n"
	    "    lim = excluded.lim");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, c->conv);
	store_bind_text(st, 2, c->name != NULL ? c->name : c->conv);
	store_bind_text(st, 3, c->topic);
	store_bind_text(st, 4, c->topic_who);
	sqlite3_bind_int64(st, 5, c->topic_time);
	sqlite3_bind_int64(st, 6, c->created);
	store_bind_text(st, 7, c->modes);
	store_bind_text(st, 8, c->key);
	sqlite3_bind_int64(st, 9, c->limit);
	if (store_step_done(s, st, "save channel") == -1)
		goto fail;
	if (c->emptied > 0)
		st = store_stmt(s, SQL_CHANNEL_EMPTIED,
		    "INSERT INTO channel_emptied (conv, time)\n"
		    "VALUES (?1, ?2)\n"
		    "ON CONFLICT (conv) DO UPDATE SET time = excluded.time");
	else
		st = store_stmt(s, SQL_CHANNEL_FULL,
		    "DELETE FROM channel_emptied WHERE conv = ?1");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, c->conv);
	if (c->emptied > 0)
		sqlite3_bind_int64(st, 2, c->emptied);
	if (store_step_done(s, st, "save channel: emptied") == -1)
		goto fail;
	return store_commit(s);
fail:
	store_rollback(s);
	return -1;
}

int
store_channel_delete(struct store *s, const char *conv)
{
	sqlite3_stmt *st;

	/* The bans go with it (ON DELETE CASCADE); the history stays. */
	st = store_stmt(s, SQL_CHANNEL_DELETE,
	    "DELETE FROM channels WHERE conv = ?1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	return store_step_done(s, st, "delete channel");
}

int
store_ban_add(struct store *s, const char *conv, const struct store_ban *b)
{
	sqlite3_stmt *st;

	if (store_begin(s) == -1)
		return -1;
	/*
	 * A ban needs its channel's row: make a minimal one if there is
	 * none yet, named as its history last named it, modes NULL (the
	 * daemon's defaults). "WHERE true" lets ON CONFLICT follow a SELECT.
	 */
	st = store_stmt(s, SQL_CHANNEL_ENSURE,
	    "INSERT INTO channels (conv, name, created)\n"
	    "SELECT ?1,\n"
	    "    coalesce((SELECT target\n"
	    "        FROM messages\n"
	    "        WHERE conv = ?1\n"
	    "        ORDER BY time DESC, id DESC\n"
	    "        LIMIT 1), ?1),\n"
	    "    coalesce((SELECT min(time) / 1000\n"
	    "        FROM messages\n"
	    "        WHERE conv = ?1), ?2)\n"
	    "WHERE true\n"
	    "ON CONFLICT (conv) DO NOTHING");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, conv);
	sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
	if (store_step_done(s, st, "add ban: channel row") == -1)
		goto fail;

	/* Setting an existing ban again keeps who set it first, like IRC. */
	st = store_stmt(s, SQL_BAN_ADD,
	    "INSERT INTO bans (conv, mask, setter, time, list)\n"
	    "VALUES (?1, ?2, ?3, ?4, ?5)\n"
	    "ON CONFLICT (conv, list, mask) DO NOTHING");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, b->mask);
	store_bind_text(st, 3, b->setter != NULL ? b->setter : "");
	sqlite3_bind_int64(st, 4, b->time);
	sqlite3_bind_text(st, 5, b->list != 0 ? &b->list : "b", 1,
	    SQLITE_STATIC);
	if (store_step_done(s, st, "add ban") == -1)
		goto fail;
	return store_commit(s);
fail:
	store_rollback(s);
	return -1;
}

int
store_ban_del(struct store *s, const char *conv, char list, const char *mask)
{
	sqlite3_stmt *st;

	if (list == 0)
		list = 'b';
	st = store_stmt(s, SQL_BAN_DEL,
	    "DELETE FROM bans WHERE conv = ?1 AND mask = ?2 AND list = ?3");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, mask);
	sqlite3_bind_text(st, 3, &list, 1, SQLITE_TRANSIENT);
	return store_step_done(s, st, "delete ban");
}

static int
store_bans(struct store *s, const char *conv,
    void (*ban_fn)(const char *, const struct store_ban *, void *), void *arg)
{
	struct store_ban b;
	sqlite3_stmt *st;
	const char *list;
	int rc;

	st = store_stmt(s, SQL_BAN_LIST,
	    "SELECT mask, setter, time, list\n"
	    "FROM bans\n"
	    "WHERE conv = ?1\n"
	    "ORDER BY time, mask");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		b.mask = store_column_text(st, 0);
		b.setter = store_column_text(st, 1);
		b.time = sqlite3_column_int64(st, 2);
		list = store_column_text(st, 3);
		b.list = list != NULL && (list[0] == 'e' || list[0] == 'I') ?
		    list[0] : 'b';
		if (b.mask != NULL && ban_fn != NULL)
			ban_fn(conv, &b, arg);
	}
	if (rc != SQLITE_DONE)
		store_fail(s, "load bans");
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
store_saved_channels(struct store *s,
    void (*fn)(const struct store_channel *, void *),
    void (*ban_fn)(const char *, const struct store_ban *, void *), void *arg)
{
	struct store_channel c;
	sqlite3_stmt *st;
	int rc;

	st = store_stmt(s, SQL_CHANNEL_ALL,
	    "SELECT conv, name, topic, topic_who, topic_time, created,\n"
	    "    modes, key, lim,\n"
	    "    coalesce((SELECT time FROM channel_emptied e\n"
	    "        WHERE e.conv = channels.conv), 0)\n"
	    "FROM channels\n"
	    "ORDER BY conv");
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&c, 0, sizeof(c));
		c.conv = store_column_text(st, 0);
		c.name = store_column_text(st, 1);
		c.topic = store_column_text(st, 2);
		c.topic_who = store_column_text(st, 3);
		c.topic_time = sqlite3_column_int64(st, 4);
		c.created = sqlite3_column_int64(st, 5);
		c.modes = store_column_text(st, 6);
		c.key = store_column_text(st, 7);
		c.limit = (unsigned)sqlite3_column_int64(st, 8);
		c.emptied = sqlite3_column_int64(st, 9);
		if (c.conv == NULL || c.name == NULL)
			continue;
		fn(&c, arg);
		if (store_bans(s, c.conv, ban_fn, arg) == -1) {
			sqlite3_reset(st);
			return -1;
		}
	}
	if (rc != SQLITE_DONE)
		store_fail(s, "load channels");
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Channels with history and no row. The conversations are walked one
 * index seek at a time (every channel sorts between '"' and '$',
 * CHANTYPES=#) rather than grouping a million messages at startup. The
 * statement has a single lower bound on purpose: with two, SQLite may
 * seek to the constant one and scan from there on every step.
 */
static int
store_history_channels(struct store *s,
    void (*fn)(const struct store_channel *, void *), void *arg)
{
	struct store_channel c;
	sqlite3_stmt *next, *st;
	char *conv = NULL, *p;
	const char *v;
	int rc, ret = -1;

	for (;;) {
		next = store_stmt(s, SQL_CHANNEL_NEXT_CONV,
		    "SELECT conv\n"
		    "FROM messages\n"
		    "WHERE conv > ?1 AND conv < '$'\n"
		    "ORDER BY conv\n"
		    "LIMIT 1");
		if (next == NULL)
			goto out;
		store_bind_text(next, 1, conv != NULL ? conv : "\"");
		rc = sqlite3_step(next);
		if (rc == SQLITE_DONE) {
			sqlite3_reset(next);
			break;
		}
		if (rc != SQLITE_ROW || (v = store_column_text(next, 0)) ==
		    NULL) {
			store_fail(s, "load channels from history");
			sqlite3_reset(next);
			goto out;
		}
		if ((p = strdup(v)) == NULL) {
			store_log(1, "%s: load channels: out of memory",
			    s->path);
			sqlite3_reset(next);
			goto out;
		}
		sqlite3_reset(next);
		free(conv);
		conv = p;

		st = store_stmt(s, SQL_CHANNEL_FROM_HISTORY,
		    "SELECT\n"
		    "    (SELECT target\n"
		    "        FROM messages\n"
		    "        WHERE conv = ?1\n"
		    "        ORDER BY time DESC, id DESC\n"
		    "        LIMIT 1),\n"
		    "    (SELECT min(time)\n"
		    "        FROM messages\n"
		    "        WHERE conv = ?1),\n"
		    "    EXISTS (SELECT 1 FROM channels WHERE conv = ?1)");
		if (st == NULL)
			goto out;
		store_bind_text(st, 1, conv);
		if (sqlite3_step(st) != SQLITE_ROW) {
			store_fail(s, "load channels from history");
			sqlite3_reset(st);
			goto out;
		}
		if (conv[0] == '#' && !sqlite3_column_int(st, 2) &&
		    (v = store_column_text(st, 0)) != NULL) {
			memset(&c, 0, sizeof(c));
			c.conv = conv;
			c.name = v;
			c.created = sqlite3_column_int64(st, 1) / 1000;
			fn(&c, arg);
		}
		sqlite3_reset(st);
	}
	ret = 0;
out:
	free(conv);
	return ret;
}

int
store_channel_load_all(struct store *s,
    void (*fn)(const struct store_channel *, void *),
    void (*ban_fn)(const char *conv, const struct store_ban *, void *),
    void *arg)
{
	if (store_saved_channels(s, fn, ban_fn, arg) == -1 ||
	    store_history_channels(s, fn, arg) == -1)
		return -1;
	return 0;
}

int
store_channel_op_add(struct store *s, const char *conv, const char *account)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_CHANNEL_OP_ADD,
	    "INSERT INTO channel_ops (conv, account)\n"
	    "VALUES (?1, ?2)\n"
	    "ON CONFLICT (conv, account) DO NOTHING");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, account);
	return store_step_done(s, st, "add channel operator");
}

int
store_channel_op_del(struct store *s, const char *conv, const char *account)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_CHANNEL_OP_DEL,
	    "DELETE FROM channel_ops WHERE conv = ?1 AND account = ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, account);
	return store_step_done(s, st, "delete channel operator");
}

int
store_channel_ops(struct store *s,
    void (*fn)(const char *conv, const char *account, void *), void *arg)
{
	sqlite3_stmt *st;
	const char *conv, *account;
	int rc;

	st = store_stmt(s, SQL_CHANNEL_OP_LIST,
	    "SELECT conv, account FROM channel_ops ORDER BY conv, account");
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		conv = store_column_text(st, 0);
		account = store_column_text(st, 1);
		if (conv != NULL && account != NULL)
			fn(conv, account, arg);
	}
	if (rc != SQLITE_DONE)
		store_fail(s, "load channel operators");
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
store_channel_retire(struct store *s, const char *conv, const char *tag)
{
	sqlite3_stmt *st;

	if (store_begin(s) == -1)
		return -1;
	st = store_stmt(s, SQL_RETIRE_MESSAGES,
	    "UPDATE messages SET conv = '~' || ?1 || '@' || ?2\n"
	    "WHERE conv = ?1");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, tag);
	if (store_step_done(s, st, "retire channel: history") == -1)
		goto fail;
	st = store_stmt(s, SQL_RETIRE_CHANNEL,
	    "DELETE FROM channels WHERE conv = ?1");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, conv);
	if (store_step_done(s, st, "retire channel") == -1)
		goto fail;
	st = store_stmt(s, SQL_RETIRE_MEMBERS,
	    "DELETE FROM memberships WHERE conv = ?1");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, conv);
	if (store_step_done(s, st, "retire channel: stays") == -1)
		goto fail;
	return store_commit(s);
fail:
	store_rollback(s);
	return -1;
}

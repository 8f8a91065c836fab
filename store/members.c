/*
 * members.c: when each principal was a member of each channel (AU-7), so
 * a person who comes back to a +s/+k/+i channel reads only what was said
 * while they were in it. A stay is two message ids of the channel: the
 * newest at the join and the newest at the part.
 */
#include "compat.h"

#include <string.h>

#include "store/store-int.h"

/* A statement of ?1 conv, ?2 principal and ?3 an id, run once. */
static int
store_member_step(struct store *s, enum store_sql slot, const char *sql,
    const char *conv, const char *principal, int64_t id, const char *what)
{
	sqlite3_stmt *st;

	if ((st = store_stmt(s, slot, sql)) == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, principal);
	sqlite3_bind_int64(st, 3, id);
	return store_step_done(s, st, what);
}

int
store_member_join(struct store *s, const char *conv, const char *principal)
{
	sqlite3_stmt *st;
	int64_t now, last = -1;
	int rc;

	if ((now = store_history_last_id(s, conv)) == -1)
		return -1;
	/*
	 * Joining again with nothing said since the part continues the
	 * last stay: a JOIN/PART loop adds no rows, and rows stay bounded
	 * by the messages between them.
	 */
	st = store_stmt(s, SQL_MEMBER_LAST,
	    "SELECT rowid, parted\n"
	    "FROM memberships\n"
	    "WHERE conv = ?1 AND principal = ?2\n"
	    "ORDER BY joined DESC, rowid DESC\n"
	    "LIMIT 1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, principal);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
			sqlite3_reset(st);
			return 0;	/* still in: two connections of one account */
		}
		if (sqlite3_column_int64(st, 1) == now)
			last = sqlite3_column_int64(st, 0);
	} else if (rc != SQLITE_DONE) {
		store_fail(s, "find membership");
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	if (last != -1) {
		st = store_stmt(s, SQL_MEMBER_REOPEN,
		    "UPDATE memberships SET parted = NULL WHERE rowid = ?1");
		if (st == NULL)
			return -1;
		sqlite3_bind_int64(st, 1, last);
		return store_step_done(s, st, "reopen membership");
	}
	return store_member_step(s, SQL_MEMBER_JOIN,
	    "INSERT INTO memberships (conv, principal, joined)\n"
	    "VALUES (?1, ?2, ?3)", conv, principal, now, "add membership");
}

int
store_member_part(struct store *s, const char *conv, const char *principal)
{
	int64_t now;

	if ((now = store_history_last_id(s, conv)) == -1)
		return -1;
	return store_member_step(s, SQL_MEMBER_PART,
	    "UPDATE memberships SET parted = ?3\n"
	    "WHERE conv = ?1 AND principal = ?2 AND parted IS NULL",
	    conv, principal, now, "end membership");
}

int
store_member_forget(struct store *s, const char *principal)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_MEMBER_FORGET,
	    "DELETE FROM memberships WHERE principal = ?1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, principal);
	return store_step_done(s, st, "forget memberships");
}

/*
 * The one id the query sql (statement which) gives for conv and principal:
 * -1 when it gives no row or NULL, -2 on error (what, for the log).
 */
static int64_t
store_member_id(struct store *s, enum store_sql which, const char *sql,
    const char *conv, const char *principal, const char *what)
{
	sqlite3_stmt *st;
	int64_t id = -1;
	int rc;

	if ((st = store_stmt(s, which, sql)) == NULL)
		return -2;
	store_bind_text(st, 1, conv);
	store_bind_text(st, 2, principal);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, what);
		id = -2;
	}
	sqlite3_reset(st);
	return id;
}

int64_t
store_member_since(struct store *s, const char *conv, const char *principal)
{
	int64_t id = store_member_id(s, SQL_MEMBER_SINCE,
	    "SELECT joined\n"
	    "FROM memberships\n"
	    "WHERE conv = ?1 AND principal = ?2 AND parted IS NULL\n"
	    "ORDER BY joined\n"
	    "LIMIT 1", conv, principal, "membership start");

	return id < 0 ? -1 : id;
}

int64_t
store_member_left(struct store *s, const char *conv, const char *principal)
{
	return store_member_id(s, SQL_MEMBER_LEFT,
	    "SELECT parted\n"
	    "FROM memberships\n"
	    "WHERE conv = ?1 AND principal = ?2\n"
	    "ORDER BY joined DESC, rowid DESC\n"
	    "LIMIT 1", conv, principal, "membership end");
}

int
store_members_reset(struct store *s)
{
	char *msg = NULL;

	/*
	 * At start nobody is in: stays left open by the last run end where
	 * its history ended, and a connection of the last run is nobody now.
	 */
	if (sqlite3_exec(s->db,
	    "DELETE FROM memberships WHERE principal LIKE 'c:%';\n"
	    "UPDATE memberships SET parted = coalesce((SELECT max(id)\n"
	    "    FROM messages WHERE messages.conv = memberships.conv), 0)\n"
	    "WHERE parted IS NULL",
	    NULL, NULL, &msg) != SQLITE_OK) {
		store_log(1, "%s: reset memberships: %s", s->path,
		    msg != NULL ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/*
 * agents.c: what the server remembers for agents in channels: the ACP
 * session of each (agent, conversation) with how far it has read (SS-1,
 * SS-2), the channels each agent is in (SS-4, AG-2), and the mentions
 * kept for an account that was not connected (RT-8).
 */
#include "compat.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "store/store-int.h"

/* Mentions kept per account; beyond it the oldest go. */
#define MENTION_KEEP	100

/* ---- sessions ---- */

int
store_session_get(struct store *s, const char *agent, const char *conv,
    char *sid, size_t sidlen, int64_t *seen_id)
{
	sqlite3_stmt *st;
	const char *v;
	int rc, ret = -1;

	st = store_stmt(s, SQL_SESSION_GET,
	    "SELECT sid, seen_id\n"
	    "FROM agent_sessions\n"
	    "WHERE agent = ?1 AND conv = ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, agent);
	store_bind_text(st, 2, conv);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		ret = 1;
	else if (rc != SQLITE_ROW)
		store_fail(s, "get session");
	else {
		if ((v = store_column_text(st, 0)) == NULL)
			v = "";
		if (sid != NULL && strlcpy(sid, v, sidlen) >= sidlen)
			/* A cut session id would resume someone else's. */
			store_log(1, "%s: session %s %s: id longer than %zu "
			    "bytes", s->path, agent, conv, sidlen);
		else {
			if (seen_id != NULL)
				*seen_id = sqlite3_column_int64(st, 1);
			ret = 0;
		}
	}
	sqlite3_reset(st);
	return ret;
}

int
store_session_set(struct store *s, const char *agent, const char *conv,
    const char *sid, int64_t seen_id)
{
	sqlite3_stmt *st;

	/* One upsert: unqualified columns in DO UPDATE are the stored row. */
	st = store_stmt(s, SQL_SESSION_SET,
	    "INSERT INTO agent_sessions (agent, conv, sid, seen_id, updated)\n"
	    "VALUES (?1, ?2, ?3, max(?4, 0), ?5)\n"
	    "ON CONFLICT (agent, conv) DO UPDATE SET\n"
	    "    sid = coalesce(excluded.sid, sid),\n"
	    "    seen_id = CASE WHEN ?4 < 0 THEN seen_id\n"
	    "        ELSE excluded.seen_id END,\n"
	    "    updated = excluded.updated");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, agent);
	store_bind_text(st, 2, conv);
	store_bind_text(st, 3, sid);
	sqlite3_bind_int64(st, 4, seen_id);
	sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
	return store_step_done(s, st, "set session");
}

int
store_session_delete(struct store *s, const char *agent, const char *conv)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_SESSION_DELETE,
	    "DELETE FROM agent_sessions WHERE agent = ?1 AND conv = ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, agent);
	store_bind_text(st, 2, conv);
	return store_step_done(s, st, "delete session");
}

/* ---- memberships ---- */

int
store_agent_join(struct store *s, const char *agent, const char *conv,
    const char *name)
{
	sqlite3_stmt *st;

	/* Joining again renames at most: the place in the order is kept. */
	st = store_stmt(s, SQL_AGENT_JOIN,
	    "INSERT INTO agent_channels (agent, conv, name, joined)\n"
	    "VALUES (?1, ?2, ?3, ?4)\n"
	    "ON CONFLICT (agent, conv) DO UPDATE SET name = excluded.name");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, agent);
	store_bind_text(st, 2, conv);
	store_bind_text(st, 3, name != NULL ? name : conv);
	sqlite3_bind_int64(st, 4, (int64_t)time(NULL));
	return store_step_done(s, st, "agent join");
}

int
store_agent_part(struct store *s, const char *agent, const char *conv)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_AGENT_PART,
	    "DELETE FROM agent_channels WHERE agent = ?1 AND conv = ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, agent);
	store_bind_text(st, 2, conv);
	return store_step_done(s, st, "agent part");
}

int
store_agent_channels(struct store *s, const char *agent,
    void (*fn)(const char *conv, const char *name, void *), void *arg)
{
	sqlite3_stmt *st;
	const char *conv, *name;
	int rc, ret = 0;

	/* joined is in seconds: rowid orders the joins of one second. */
	st = store_stmt(s, SQL_AGENT_CHANNELS,
	    "SELECT conv, name\n"
	    "FROM agent_channels\n"
	    "WHERE agent = ?1\n"
	    "ORDER BY joined, rowid");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, agent);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((conv = store_column_text(st, 0)) == NULL)
			continue;
		if ((name = store_column_text(st, 1)) == NULL)
			name = conv;
		fn(conv, name, arg);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, "agent channels");
		ret = -1;
	}
	sqlite3_reset(st);
	return ret;
}

/* ---- mentions ---- */

int
store_mention_add(struct store *s, const struct store_mention *m)
{
	sqlite3_stmt *st;

	if (store_begin(s) == -1)
		return -1;
	st = store_stmt(s, SQL_MENTION_ADD,
	    "INSERT INTO mentions (account, target, sender, time, text)\n"
	    "VALUES (?1, ?2, ?3, ?4, ?5)");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, m->account);
	store_bind_text(st, 2, m->target);
	store_bind_text(st, 3, m->from);
	sqlite3_bind_int64(st, 4, m->time);
	store_bind_text(st, 5, m->text);
	if (store_step_done(s, st, "add mention") == -1)
		goto fail;

	/*
	 * Keep the newest MENTION_KEEP: everything at or below the id of
	 * the first one beyond them (none: NULL, nothing goes). Both sides
	 * are seeks on mentions_account.
	 */
	st = store_stmt(s, SQL_MENTION_BOUND,
	    "DELETE FROM mentions\n"
	    "WHERE account = ?1\n"
	    "    AND id <= (SELECT id\n"
	    "        FROM mentions\n"
	    "        WHERE account = ?1\n"
	    "        ORDER BY id DESC\n"
	    "        LIMIT 1 OFFSET ?2)");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, m->account);
	sqlite3_bind_int(st, 2, MENTION_KEEP);
	if (store_step_done(s, st, "bound mentions") == -1)
		goto fail;
	return store_commit(s);
fail:
	store_rollback(s);
	return -1;
}

/*
 * Delivered inside the transaction, deleted after: if the delete or the
 * commit fails, everything stays for the next time (delivered twice
 * rather than lost). Only the ids handed out are deleted.
 */
int
store_mention_take(struct store *s, const char *account,
    void (*fn)(const struct store_mention *, void *), void *arg)
{
	struct store_mention m;
	sqlite3_stmt *st;
	int64_t last = 0;
	int n = 0, rc;

	if (store_begin(s) == -1)
		return -1;
	st = store_stmt(s, SQL_MENTION_LIST,
	    "SELECT id, account, target, sender, time, text\n"
	    "FROM mentions\n"
	    "WHERE account = ?1\n"
	    "ORDER BY id");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, account);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&m, 0, sizeof(m));
		last = sqlite3_column_int64(st, 0);
		m.account = store_column_text(st, 1);
		m.target = store_column_text(st, 2);
		m.from = store_column_text(st, 3);
		m.time = sqlite3_column_int64(st, 4);
		m.text = store_column_text(st, 5);
		fn(&m, arg);
		n++;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, "list mentions");
		sqlite3_reset(st);
		goto fail;
	}
	sqlite3_reset(st);
	if (n == 0) {
		/* Nothing written: ending it cannot lose anything. */
		store_rollback(s);
		return 0;
	}

	st = store_stmt(s, SQL_MENTION_DELETE,
	    "DELETE FROM mentions WHERE account = ?1 AND id <= ?2");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, account);
	sqlite3_bind_int64(st, 2, last);
	if (store_step_done(s, st, "delete mentions") == -1)
		goto fail;
	if (store_commit(s) == -1)
		return -1;
	return n;
fail:
	store_rollback(s);
	return -1;
}

/*
 * history.c: the messages table: storing what is relayed, the
 * draft/chathistory queries over it (HS-3), the transcript an agent
 * missed (SS-2), private conversation keys, and retention.
 */
#include "compat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store-int.h"

/* Rows deleted per statement when pruning: short write locks. */
#define PRUNE_BATCH	1000

#define MSG_COLUMNS \
	"id, msgid, time, conv, target, kind, prefix, nick, account, " \
	"text, tags"

/* A point in the (time, id) order of a conversation. */
struct key {
	int64_t	t;
	int64_t	id;
};

/*
 * A resolved reference: messages strictly older than it are those with
 * (time, id) < below, strictly newer those with (time, id) > above. A
 * msgid names one row, so below = above = its (time, id); a timestamp
 * falls between rows: below = (t, 0) and above = (t, max), ids being >= 1.
 */
struct bound {
	struct key	below;
	struct key	above;
};

static const struct key key_min = { INT64_MIN, INT64_MIN };
static const struct key key_max = { INT64_MAX, INT64_MAX };

int
store_history_add(struct store *s, struct store_msg *m)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_HISTORY_ADD,
	    "INSERT INTO messages (msgid, time, conv, target, kind, prefix,\n"
	    "    nick, account, text, tags)\n"
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	if (st == NULL)
		return -1;
	store_bind_static(st, 1, m->msgid);
	sqlite3_bind_int64(st, 2, m->time);
	store_bind_static(st, 3, m->conv);
	store_bind_static(st, 4, m->target);
	store_bind_static(st, 5, m->kind);
	store_bind_static(st, 6, m->prefix);
	store_bind_static(st, 7, m->nick);
	store_bind_static(st, 8, m->account);
	store_bind_static(st, 9, m->text);
	store_bind_static(st, 10, m->tags);
	if (store_step_done(s, st, "store message") == -1)
		return -1;
	m->id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_history_has(struct store *s, const char *msgid)
{
	sqlite3_stmt *st;
	int rc;

	st = store_stmt(s, SQL_HISTORY_HAS,
	    "SELECT 1 FROM messages WHERE msgid = ?1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, msgid);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	store_fail(s, "find msgid");
	return -1;
}

void
store_private_key(char *buf, size_t len, const char *p1, const char *p2)
{
	if (strcmp(p1, p2) > 0)
		snprintf(buf, len, "%s %s", p2, p1);
	else
		snprintf(buf, len, "%s %s", p1, p2);
}

/* 0, -1 on error, -2 when the msgid is not in conv. */
static int
store_resolve(struct store *s, const char *conv, const struct store_ref *ref,
    struct bound *b)
{
	sqlite3_stmt *st;
	int rc;

	if (ref->msgid == NULL) {
		b->below.t = b->above.t = ref->time;
		b->below.id = 0;
		b->above.id = INT64_MAX;
		return 0;
	}
	st = store_stmt(s, SQL_HISTORY_REF,
	    "SELECT time, id\n"
	    "FROM messages\n"
	    "WHERE msgid = ?1 AND conv = ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, ref->msgid);
	store_bind_text(st, 2, conv);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		b->below.t = b->above.t = sqlite3_column_int64(st, 0);
		b->below.id = b->above.id = sqlite3_column_int64(st, 1);
		sqlite3_reset(st);
		return 0;
	}
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return -2;
	}
	store_fail(s, "find msgid");
	sqlite3_reset(st);
	return -1;
}

static int
key_cmp(struct key a, struct key b)
{
	if (a.t != b.t)
		return a.t < b.t ? -1 : 1;
	if (a.id != b.id)
		return a.id < b.id ? -1 : 1;
	return 0;
}

/*
 * Steps st, whose columns are MSG_COLUMNS, handing each row to fn (the
 * strings point into the statement: valid during the call only), then
 * resets it. Returns how many, or -1.
 */
static int
store_deliver(struct store *s, sqlite3_stmt *st, const char *what,
    void (*fn)(const struct store_msg *, void *), void *arg)
{
	struct store_msg m;
	const char *msgid;
	int n = 0, rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&m, 0, sizeof(m));
		m.id = sqlite3_column_int64(st, 0);
		if ((msgid = store_column_text(st, 1)) != NULL)
			strlcpy(m.msgid, msgid, sizeof(m.msgid));
		m.time = sqlite3_column_int64(st, 2);
		m.conv = store_column_text(st, 3);
		m.target = store_column_text(st, 4);
		m.kind = store_column_text(st, 5);
		m.prefix = store_column_text(st, 6);
		m.nick = store_column_text(st, 7);
		m.account = store_column_text(st, 8);
		m.text = store_column_text(st, 9);
		m.tags = store_column_text(st, 10);
		fn(&m, arg);
		n++;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, what);
		n = -1;
	}
	sqlite3_reset(st);
	return n;
}

int
store_history_get(struct store *s, const char *msgid,
    void (*fn)(const struct store_msg *, void *), void *arg)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_HISTORY_GET,
	    "SELECT " MSG_COLUMNS "\n"
	    "FROM messages\n"
	    "WHERE msgid = ?1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, msgid);
	return store_deliver(s, st, "get message", fn, arg);
}

/*
 * draft/message-redaction: the row goes, and with it the copy a kept
 * mention holds (RT-8: the same sender at the same millisecond). What
 * SQLite would leave behind is wiped too: secure_delete (store.c) zeroes
 * the freed bytes, and the commit's WAL hook has the checkpoint thread
 * truncate the WAL, where the row's pages still were (checkpoint.c).
 */
int
store_history_redact(struct store *s, const char *msgid)
{
	sqlite3_stmt *st;

	if (store_begin(s) == -1)
		return -1;
	st = store_stmt(s, SQL_MENTION_REDACT,
	    "DELETE FROM mentions\n"
	    "WHERE (time, sender) IN (SELECT time, nick\n"
	    "    FROM messages\n"
	    "    WHERE msgid = ?1)");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, msgid);
	if (store_step_done(s, st, "redact mentions") == -1)
		goto fail;
	st = store_stmt(s, SQL_HISTORY_REDACT,
	    "DELETE FROM messages WHERE msgid = ?1");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, msgid);
	if (store_step_done(s, st, "redact message") == -1)
		goto fail;
	s->scrub = 1;
	return store_commit(s);
fail:
	store_rollback(s);
	return -1;
}

/*
 * Calls fn for up to limit messages of conv with lo < (time, id) < hi,
 * ascending; newest picks the newest of them instead of the oldest.
 * Returns how many, or -1.
 */
/*
 * Calls fn for up to limit messages of conv with lo < (time, id) < hi,
 * ascending; newest picks the newest of them instead of the oldest. With
 * who, only messages said while one of its two principals was a member
 * (store_member_join). Returns how many, or -1.
 */
#define MSG_SEEN_BY \
	"	    AND EXISTS (SELECT 1\n" \
	"		FROM memberships m\n" \
	"		WHERE m.conv = ?1 AND m.principal IN (?7, ?8)\n" \
	"		    AND messages.id > m.joined\n" \
	"		    AND (m.parted IS NULL OR messages.id <= m.parted))\n"

static int
store_range(struct store *s, const char *conv, const struct store_who *who,
    struct key lo, struct key hi, int limit, int newest,
    void (*fn)(const struct store_msg *, void *), void *arg)
{
	sqlite3_stmt *st;

	if (limit <= 0)
		return 0;
	/* Newest first to find them, then put back in order. */
#define SQL_DESC(filter) \
	    "SELECT *\n" \
	    "FROM (\n" \
	    "	SELECT " MSG_COLUMNS "\n" \
	    "	FROM messages\n" \
	    "	WHERE conv = ?1\n" \
	    "	    AND (time, id) > (?2, ?3)\n" \
	    "	    AND (time, id) < (?4, ?5)\n" \
	    filter \
	    "	ORDER BY time DESC, id DESC\n" \
	    "	LIMIT ?6\n" \
	    ")\n" \
	    "ORDER BY time, id"
#define SQL_ASC(filter) \
	    "SELECT " MSG_COLUMNS "\n" \
	    "FROM messages\n" \
	    "WHERE conv = ?1\n" \
	    "    AND (time, id) > (?2, ?3)\n" \
	    "    AND (time, id) < (?4, ?5)\n" \
	    filter \
	    "ORDER BY time, id\n" \
	    "LIMIT ?6"
	if (who != NULL)
		st = newest ?
		    store_stmt(s, SQL_HISTORY_DESC_AS, SQL_DESC(MSG_SEEN_BY)) :
		    store_stmt(s, SQL_HISTORY_ASC_AS, SQL_ASC(MSG_SEEN_BY));
	else
		st = newest ?
		    store_stmt(s, SQL_HISTORY_DESC, SQL_DESC("")) :
		    store_stmt(s, SQL_HISTORY_ASC, SQL_ASC(""));
#undef SQL_DESC
#undef SQL_ASC
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	sqlite3_bind_int64(st, 2, lo.t);
	sqlite3_bind_int64(st, 3, lo.id);
	sqlite3_bind_int64(st, 4, hi.t);
	sqlite3_bind_int64(st, 5, hi.id);
	sqlite3_bind_int(st, 6, limit);
	if (who != NULL) {
		store_bind_text(st, 7, who->p1);
		store_bind_text(st, 8, who->p2 != NULL ? who->p2 : who->p1);
	}
	return store_deliver(s, st, "history query", fn, arg);
}

int
store_history_query(struct store *s, const char *conv, enum store_dir dir,
    const struct store_ref *ref, const struct store_ref *ref2, int limit,
    void (*fn)(const struct store_msg *, void *), void *arg)
{
	return store_history_query_as(s, conv, NULL, dir, ref, ref2, limit,
	    fn, arg);
}

int
store_history_query_as(struct store *s, const char *conv,
    const struct store_who *who, enum store_dir dir,
    const struct store_ref *ref, const struct store_ref *ref2, int limit,
    void (*fn)(const struct store_msg *, void *), void *arg)
{
	struct bound b, b2;
	struct key at;
	int n, n2, rc;

	if (ref == NULL && dir != STORE_LATEST) {
		store_log(1, "%s: history query without a reference", s->path);
		return -1;
	}
	if (dir == STORE_BETWEEN && ref2 == NULL) {
		store_log(1, "%s: history BETWEEN without a second reference",
		    s->path);
		return -1;
	}
	if (ref != NULL && (rc = store_resolve(s, conv, ref, &b)) != 0)
		return rc;
	if (dir == STORE_BETWEEN &&
	    (rc = store_resolve(s, conv, ref2, &b2)) != 0)
		return rc;

	switch (dir) {
	case STORE_LATEST:
		return store_range(s, conv, who, ref != NULL ? b.above : key_min,
		    key_max, limit, 1, fn, arg);
	case STORE_BEFORE:
		return store_range(s, conv, who, key_min, b.below, limit, 1,
		    fn, arg);
	case STORE_AFTER:
		return store_range(s, conv, who, b.above, key_max, limit, 0,
		    fn, arg);
	case STORE_AROUND:
		/*
		 * limit/2 older, the rest from the reference on: a msgid
		 * reference is itself included, and limit 1 gives just it.
		 */
		n = store_range(s, conv, who, key_min, b.below, limit / 2, 1,
		    fn, arg);
		if (n == -1)
			return -1;
		at = b.below;
		at.id--;
		n2 = store_range(s, conv, who, at, key_max, limit - limit / 2, 0,
		    fn, arg);
		return n2 == -1 ? -1 : n + n2;
	case STORE_BETWEEN:
		/* From ref towards ref2: the end nearest ref is kept. */
		if (key_cmp(b.below, b2.below) <= 0)
			return store_range(s, conv, who, b.above, b2.below, limit, 0,
			    fn, arg);
		return store_range(s, conv, who, b2.above, b.below, limit, 1,
		    fn, arg);
	}
	store_log(1, "%s: history query: bad direction %d", s->path, (int)dir);
	return -1;
}

/*
 * The agent transcript (SS-2) goes by id, the order messages were
 * stored in: "after seen_id" is a point in that order, not in time.
 * Both statements are one seek on messages_conv_id (v2): the newest
 * first down to after_id, stopping at limit, so an agent that is nearly
 * up to date costs a few rows whatever the size of the conversation.
 */
int
store_history_since(struct store *s, const char *conv, int64_t after_id,
    const char *exclude_nick, int limit,
    void (*fn)(const struct store_msg *, void *), void *arg)
{
	sqlite3_stmt *st;

	if (limit <= 0)
		return 0;
	st = store_stmt(s, SQL_HISTORY_SINCE,
	    "SELECT *\n"
	    "FROM (\n"
	    "	SELECT " MSG_COLUMNS "\n"
	    "	FROM messages INDEXED BY messages_conv_id\n"
	    "	WHERE conv = ?1\n"
	    "	    AND id > ?2\n"
	    "	    AND (?3 IS NULL OR nick <> ?3 COLLATE NOCASE)\n"
	    "	ORDER BY id DESC\n"
	    "	LIMIT ?4\n"
	    ")\n"
	    "ORDER BY id");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	sqlite3_bind_int64(st, 2, after_id);
	store_bind_text(st, 3, exclude_nick);
	sqlite3_bind_int(st, 4, limit);
	return store_deliver(s, st, "history since", fn, arg);
}

int64_t
store_history_last_id(struct store *s, const char *conv)
{
	sqlite3_stmt *st;
	int64_t id = -1;
	int rc;

	st = store_stmt(s, SQL_HISTORY_LAST_ID,
	    "SELECT id\n"
	    "FROM messages INDEXED BY messages_conv_id\n"
	    "WHERE conv = ?1\n"
	    "ORDER BY id DESC\n"
	    "LIMIT 1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, conv);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		id = 0;
	else
		store_fail(s, "last history id");
	sqlite3_reset(st);
	return id;
}

struct target {
	char	*conv;
	char	*target;
	char	*nick;
	int64_t	 time;
};

int
store_history_targets(struct store *s, int64_t t1, int64_t t2, int limit,
    int (*keep)(const char *conv, void *),
    void (*fn)(const char *conv, const char *target, const char *nick,
    int64_t time, void *),
    void *arg)
{
	struct target *v = NULL;
	sqlite3_stmt *st;
	const char *conv, *target, *nick;
	int64_t lo, hi;
	int newest, n = 0, i, rc = SQLITE_DONE, ret = -1;

	if (limit <= 0)
		return 0;
	/*
	 * As BETWEEN: from t1 towards t2. Ascending keeps the oldest limit
	 * conversations, descending the newest; both are delivered oldest
	 * first. keep() filters before counting.
	 */
	newest = t1 > t2;
	lo = newest ? t2 : t1;
	hi = newest ? t1 : t2;
	/* target is a bare column: SQLite takes it from the max() row. */
	if (newest) {
		if ((v = calloc((size_t)limit, sizeof(*v))) == NULL) {
			store_log(1, "%s: targets: out of memory", s->path);
			return -1;
		}
		st = store_stmt(s, SQL_HISTORY_TARGETS_DESC,
		    "SELECT conv, target, nick, max(time) AS latest\n"
		    "FROM messages\n"
		    "WHERE time >= ?1 AND time <= ?2\n"
		    "GROUP BY conv\n"
		    "ORDER BY latest DESC, conv DESC");
	} else
		st = store_stmt(s, SQL_HISTORY_TARGETS_ASC,
		    "SELECT conv, target, nick, max(time) AS latest\n"
		    "FROM messages\n"
		    "WHERE time >= ?1 AND time <= ?2\n"
		    "GROUP BY conv\n"
		    "ORDER BY latest, conv");
	if (st == NULL)
		goto out;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		conv = store_column_text(st, 0);
		target = store_column_text(st, 1);
		nick = store_column_text(st, 2);
		if (conv == NULL || target == NULL || nick == NULL)
			continue;
		if (keep != NULL && !keep(conv, arg))
			continue;
		if (!newest) {
			fn(conv, target, nick, sqlite3_column_int64(st, 3), arg);
			n++;
			continue;
		}
		if ((v[n].conv = strdup(conv)) == NULL ||
		    (v[n].target = strdup(target)) == NULL ||
		    (v[n].nick = strdup(nick)) == NULL) {
			free(v[n].conv);
			free(v[n].target);
			store_log(1, "%s: targets: out of memory", s->path);
			sqlite3_reset(st);
			goto out;
		}
		v[n++].time = sqlite3_column_int64(st, 3);
	}
	if (n < limit && rc != SQLITE_DONE) {
		store_fail(s, "history targets");
		sqlite3_reset(st);
		goto out;
	}
	sqlite3_reset(st);
	for (i = n - 1; newest && i >= 0; i--)
		fn(v[i].conv, v[i].target, v[i].nick, v[i].time, arg);
	ret = n;
out:
	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].conv);
		free(v[i].target);
		free(v[i].nick);
	}
	free(v);
	return ret;
}

/*
 * Looks into the principal's own private conversations only (the
 * private_convs table of schema v4), newest message first in each.
 *
 * SQLite's NOCASE folds ASCII only, so "[\]~" and "{|}^" stay distinct
 * where rfc1459 casemapping would match them; a nick with those letters
 * must be given as it was sent. Good enough for finding an offline peer.
 */
int
store_private_find(struct store *s, const char *principal,
    const char *nick_folded, char *buf, size_t len)
{
	sqlite3_stmt *mine, *st;
	struct key best = { INT64_MIN, INT64_MIN }, k;
	const char *conv;
	int rc, found = 0, ret = -1;

	mine = store_stmt(s, SQL_PRIVATE_CONVS_OF,
	    "SELECT conv FROM private_convs WHERE a = ?1\n"
	    "UNION\n"
	    "SELECT conv FROM private_convs WHERE b = ?1");
	if (mine == NULL)
		return -1;
	store_bind_text(mine, 1, principal);
	while ((rc = sqlite3_step(mine)) == SQLITE_ROW) {
		if ((conv = store_column_text(mine, 0)) == NULL)
			continue;
		st = store_stmt(s, SQL_HISTORY_PRIVATE_FIND,
		    "SELECT time, id\n"
		    "FROM messages\n"
		    "WHERE conv = ?1\n"
		    "    AND (nick = ?2 COLLATE NOCASE\n"
		    "        OR target = ?2 COLLATE NOCASE)\n"
		    "ORDER BY time DESC, id DESC\n"
		    "LIMIT 1");
		if (st == NULL)
			goto out;
		store_bind_text(st, 1, conv);
		store_bind_text(st, 2, nick_folded);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			k.t = sqlite3_column_int64(st, 0);
			k.id = sqlite3_column_int64(st, 1);
			if (key_cmp(k, best) > 0) {
				best = k;
				strlcpy(buf, conv, len);
				found = 1;
			}
		} else if (rc != SQLITE_DONE) {
			store_fail(s, "find private conversation");
			sqlite3_reset(st);
			goto out;
		}
		sqlite3_reset(st);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, "find private conversation");
		goto out;
	}
	ret = found ? 0 : -1;
out:
	sqlite3_reset(mine);
	return ret;
}

/* Delete in batches until a batch comes back short. */
static int
store_prune_batches(struct store *s, enum store_sql slot, const char *sql,
    int64_t arg, int64_t total, int64_t *deleted)
{
	sqlite3_stmt *st;
	int64_t want;
	int n;

	while (total > 0) {
		want = total < PRUNE_BATCH ? total : PRUNE_BATCH;
		if ((st = store_stmt(s, slot, sql)) == NULL)
			return -1;
		sqlite3_bind_int64(st, 1, want);
		if (sqlite3_bind_parameter_count(st) >= 2)
			sqlite3_bind_int64(st, 2, arg);
		if (store_step_done(s, st, "prune history") == -1)
			return -1;
		n = sqlite3_changes(s->db);
		*deleted += n;
		total -= n;
		if (n < want)
			break;
	}
	return 0;
}

int
store_history_prune(struct store *s, int days, int64_t max_rows)
{
	struct timespec ts;
	sqlite3_stmt *st;
	int64_t now, count, deleted = 0;
	int rc;

	if (days > 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		if (store_prune_batches(s, SQL_HISTORY_PRUNE_TIME,
		    "DELETE FROM messages\n"
		    "WHERE id IN (\n"
		    "	SELECT id\n"
		    "	FROM messages\n"
		    "	WHERE time < ?2\n"
		    "	ORDER BY time\n"
		    "	LIMIT ?1\n"
		    ")", now - (int64_t)days * 86400000, INT64_MAX,
		    &deleted) == -1)
			return -1;
	}
	if (max_rows > 0) {
		st = store_stmt(s, SQL_HISTORY_COUNT,
		    "SELECT count(*) FROM messages");
		if (st == NULL)
			return -1;
		if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
			store_fail(s, "count history");
			sqlite3_reset(st);
			return -1;
		}
		count = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		if (count > max_rows && store_prune_batches(s,
		    SQL_HISTORY_PRUNE_OLDEST,
		    "DELETE FROM messages\n"
		    "WHERE id IN (\n"
		    "	SELECT id\n"
		    "	FROM messages\n"
		    "	ORDER BY time, id\n"
		    "	LIMIT ?1\n"
		    ")", 0, count - max_rows, &deleted) == -1)
			return -1;
	}
	if (deleted > 0) {
		store_log(0, "%s: pruned %lld messages from history", s->path,
		    (long long)deleted);
		/* Private conversations left without messages (v4). */
		st = store_stmt(s, SQL_PRIVATE_CONVS_PRUNE,
		    "DELETE FROM private_convs\n"
		    "WHERE NOT EXISTS (\n"
		    "	SELECT 1 FROM messages\n"
		    "	WHERE messages.conv = private_convs.conv\n"
		    ")");
		if (st == NULL ||
		    store_step_done(s, st, "prune private conversations") == -1)
			return -1;
	}
	return 0;
}

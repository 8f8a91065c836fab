/*
 * markers.c: draft/read-marker, the time of the last message an account
 * has read in each target (schema v7). A marker only moves forward, and
 * an account keeps at most MARKER_KEEP of them.
 */
#include "compat.h"

#include "store/store-int.h"

/* Enough for every channel and private conversation one person reads. */
#define MARKER_KEEP	500

int
store_marker_get(struct store *s, const char *account, const char *target,
    int64_t *time)
{
	sqlite3_stmt *st;
	int rc;

	*time = 0;
	st = store_stmt(s, SQL_MARKER_GET,
	    "SELECT time FROM read_markers WHERE account = ?1 AND target = ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, account);
	store_bind_text(st, 2, target);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*time = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, "read marker");
		return -1;
	}
	return 0;
}

int
store_marker_set(struct store *s, const char *account, const char *target,
    int64_t time)
{
	sqlite3_stmt *st;

	if (store_begin(s) == -1)
		return -1;
	/* max(): a marker never goes back, whoever wrote last. */
	st = store_stmt(s, SQL_MARKER_SET,
	    "INSERT INTO read_markers (account, target, time)\n"
	    "VALUES (?1, ?2, ?3)\n"
	    "ON CONFLICT (account, target)\n"
	    "DO UPDATE SET time = max(time, excluded.time)");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, account);
	store_bind_text(st, 2, target);
	sqlite3_bind_int64(st, 3, time);
	if (store_step_done(s, st, "set read marker") == -1)
		goto fail;
	/* The newest MARKER_KEEP stay; a seek on the primary key. */
	st = store_stmt(s, SQL_MARKER_BOUND,
	    "DELETE FROM read_markers\n"
	    "WHERE account = ?1\n"
	    "    AND target IN (SELECT target\n"
	    "        FROM read_markers\n"
	    "        WHERE account = ?1\n"
	    "        ORDER BY time DESC, target\n"
	    "        LIMIT -1 OFFSET ?2)");
	if (st == NULL)
		goto fail;
	store_bind_text(st, 1, account);
	sqlite3_bind_int(st, 2, MARKER_KEEP);
	if (store_step_done(s, st, "bound read markers") == -1)
		goto fail;
	return store_commit(s);
fail:
	store_rollback(s);
	return -1;
}

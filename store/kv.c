/*
 * kv.c: a small key/value table for server state that needs no table of
 * its own: the commands an agent announced, the mode chosen for a
 * conversation.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "store/store-int.h"

/* A NULL value deletes the key. */
int
store_kv_set(struct store *s, const char *key, const char *value)
{
	sqlite3_stmt *st;

	if (value == NULL) {
		st = store_stmt(s, SQL_KV_DEL,
		    "DELETE FROM kv WHERE key = ?1");
		if (st == NULL)
			return -1;
		store_bind_text(st, 1, key);
		return store_step_done(s, st, "delete key");
	}
	st = store_stmt(s, SQL_KV_SET,
	    "INSERT INTO kv (key, value)\n"
	    "VALUES (?1, ?2)\n"
	    "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, key);
	store_bind_text(st, 2, value);
	return store_step_done(s, st, "set key");
}

int
store_kv_get(struct store *s, const char *key, char *buf, size_t len)
{
	sqlite3_stmt *st;
	const char *v;
	int rc, ret = -1;

	st = store_stmt(s, SQL_KV_GET,
	    "SELECT value FROM kv WHERE key = ?1");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		ret = 1;
	else if (rc != SQLITE_ROW)
		store_fail(s, "get key");
	else if ((v = store_column_text(st, 0)) == NULL)
		ret = 1;
	else if (strlcpy(buf, v, len) >= len)
		/* A cut value would be silently wrong; say so instead. */
		store_log(1, "%s: kv %s: value longer than %zu bytes",
		    s->path, key, len);
	else
		ret = 0;
	sqlite3_reset(st);
	return ret;
}

struct kv_row {
	char	*key, *value;
};

int
store_kv_list(struct store *s, const char *prefix,
    void (*fn)(const char *, const char *, void *), void *arg)
{
	sqlite3_stmt *st;
	struct kv_row *rows = NULL, *more;
	const char *k, *v;
	size_t n = 0, cap = 0, i;
	int rc, ret;

	st = store_stmt(s, SQL_KV_LIST,
	    "SELECT key, value FROM kv\n"
	    "WHERE substr(key, 1, length(?1)) = ?1\n"
	    "ORDER BY key");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, prefix);
	/* Read them all first: fn may change the table. */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((k = store_column_text(st, 0)) == NULL ||
		    (v = store_column_text(st, 1)) == NULL)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			if ((more = reallocarray(rows, cap, sizeof(*rows))) ==
			    NULL) {
				rc = SQLITE_NOMEM;
				break;
			}
			rows = more;
		}
		if ((rows[n].key = strdup(k)) == NULL ||
		    (rows[n].value = strdup(v)) == NULL) {
			free(rows[n].key);
			rc = SQLITE_NOMEM;
			break;
		}
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, "list keys");
		ret = -1;
	} else
		ret = (int)n;
	for (i = 0; i < n; i++) {
		if (ret != -1)
			fn(rows[i].key, rows[i].value, arg);
		free(rows[i].key);
		free(rows[i].value);
	}
	free(rows);
	return ret;
}

/*
 * tasks.c: hand-offs by MCP tool in the database (MN-7), so that
 * task_status still knows a task after a restart, as interrupted when it
 * was in flight. The bridge (ircd/bridge/task.c) keeps the tasks in
 * flight in memory too; this file only writes and reads rows.
 */
#include "compat.h"

#include <sqlite3.h>

#include "store/store.h"
#include "store/store-int.h"

#define TASK_COLUMNS \
	"id, kind, from_agent, from_conv, from_name, to_agent, conv,\n" \
	"    conv_name, text, state, result, created, ended, principal\n"

int
store_task_add(struct store *s, struct store_task *t)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_TASK_ADD,
	    "INSERT INTO tasks (kind, from_agent, from_conv, from_name,\n"
	    "    to_agent, conv, conv_name, text, state, result, created,\n"
	    "    ended, principal)\n"
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, t->kind);
	store_bind_text(st, 2, t->from_agent);
	store_bind_text(st, 3, t->from_conv);
	store_bind_text(st, 4, t->from_name);
	store_bind_text(st, 5, t->to_agent);
	store_bind_text(st, 6, t->conv);
	store_bind_text(st, 7, t->conv_name);
	store_bind_text(st, 8, t->text);
	store_bind_text(st, 9, t->state);
	store_bind_text(st, 10, t->result);
	sqlite3_bind_int64(st, 11, t->created);
	if (t->ended != 0)
		sqlite3_bind_int64(st, 12, t->ended);
	else
		sqlite3_bind_null(st, 12);
	store_bind_text(st, 13, t->principal);
	if (store_step_done(s, st, "add task") == -1)
		return -1;
	t->id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_task_set(struct store *s, int64_t id, const char *state,
    const char *result, int64_t ended)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_TASK_SET,
	    "UPDATE tasks SET state = ?2, result = coalesce(?3, result),\n"
	    "    ended = coalesce(?4, ended)\n"
	    "WHERE id = ?1");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	store_bind_text(st, 2, state);
	store_bind_text(st, 3, result);
	if (ended != 0)
		sqlite3_bind_int64(st, 4, ended);
	else
		sqlite3_bind_null(st, 4);
	return store_step_done(s, st, "update task");
}

static void
store_task_row(sqlite3_stmt *st, struct store_task *t)
{
	t->id = sqlite3_column_int64(st, 0);
	t->kind = store_column_text(st, 1);
	t->from_agent = store_column_text(st, 2);
	t->from_conv = store_column_text(st, 3);
	t->from_name = store_column_text(st, 4);
	t->to_agent = store_column_text(st, 5);
	t->conv = store_column_text(st, 6);
	t->conv_name = store_column_text(st, 7);
	t->text = store_column_text(st, 8);
	t->state = store_column_text(st, 9);
	t->result = store_column_text(st, 10);
	t->created = sqlite3_column_int64(st, 11);
	t->ended = sqlite3_column_int64(st, 12);
	t->principal = store_column_text(st, 13);
}

/* Rows of st to fn, those with a NULL where none may be skipped. */
static int
store_task_each(struct store *s, sqlite3_stmt *st, const char *what,
    void (*fn)(const struct store_task *, void *), void *arg)
{
	struct store_task t;
	int rc, n = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_task_row(st, &t);
		if (t.kind == NULL || t.from_agent == NULL ||
		    t.from_conv == NULL || t.from_name == NULL ||
		    t.to_agent == NULL || t.conv == NULL ||
		    t.conv_name == NULL || t.text == NULL || t.state == NULL)
			continue;
		fn(&t, arg);
		n++;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, what);
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	return n;
}

int
store_task_get(struct store *s, int64_t id,
    void (*fn)(const struct store_task *, void *), void *arg)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_TASK_GET,
	    "SELECT " TASK_COLUMNS "FROM tasks WHERE id = ?1");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return store_task_each(s, st, "get task", fn, arg);
}

int
store_task_list(struct store *s, const char *from_conv, int max,
    void (*fn)(const struct store_task *, void *), void *arg)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_TASK_LIST,
	    "SELECT " TASK_COLUMNS "FROM tasks WHERE from_conv = ?1\n"
	    "ORDER BY id DESC LIMIT ?2");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, from_conv);
	sqlite3_bind_int(st, 2, max);
	return store_task_each(s, st, "list tasks", fn, arg);
}

int
store_task_interrupt(struct store *s, int64_t now)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_TASK_INTERRUPT,
	    "UPDATE tasks SET state = 'interrupted', ended = ?1\n"
	    "WHERE state IN ('pending', 'waiting', 'running')");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	if (store_step_done(s, st, "interrupt tasks") == -1)
		return -1;
	return sqlite3_changes(s->db);
}

/*
 * schedules.c: scheduled prompts in the database, so they survive a
 * restart (SC-2). The engine (ircd/bridge/schedule.c) keeps them in
 * memory too; this file only writes and reads rows.
 */
#include "compat.h"

#include <sqlite3.h>

#include "store/store.h"
#include "store/store-int.h"

int
store_schedule_add(struct store *s, struct store_schedule *sc)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_SCHEDULE_ADD,
	    "INSERT INTO schedules (agent, name, prompt, next, every, target,\n"
	    "    target_name, target_private, creator, creator_name,\n"
	    "    creator_private, created, provenance, state)\n"
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
	if (st == NULL)
		return -1;
	store_bind_text(st, 1, sc->agent);
	store_bind_text(st, 2, sc->name);
	store_bind_text(st, 3, sc->prompt);
	sqlite3_bind_int64(st, 4, sc->next);
	sqlite3_bind_int(st, 5, sc->every);
	store_bind_text(st, 6, sc->target);
	store_bind_text(st, 7, sc->target_name);
	sqlite3_bind_int(st, 8, sc->target_private);
	store_bind_text(st, 9, sc->creator);
	store_bind_text(st, 10, sc->creator_name);
	sqlite3_bind_int(st, 11, sc->creator_private);
	sqlite3_bind_int64(st, 12, sc->created);
	store_bind_text(st, 13, sc->provenance);
	store_bind_text(st, 14, sc->state != NULL ? sc->state : "active");
	if (store_step_done(s, st, "add schedule") == -1)
		return -1;
	sc->id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_schedule_update(struct store *s, int64_t id, int64_t next,
    const char *state)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_SCHEDULE_UPDATE,
	    "UPDATE schedules SET next = ?2, state = ?3 WHERE id = ?1");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, next);
	store_bind_text(st, 3, state);
	return store_step_done(s, st, "update schedule");
}

int
store_schedule_delete(struct store *s, int64_t id)
{
	sqlite3_stmt *st;

	st = store_stmt(s, SQL_SCHEDULE_DELETE,
	    "DELETE FROM schedules WHERE id = ?1");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return store_step_done(s, st, "delete schedule");
}

int
store_schedule_list(struct store *s,
    void (*fn)(const struct store_schedule *, void *), void *arg)
{
	struct store_schedule sc;
	sqlite3_stmt *st;
	int rc, n = 0;

	st = store_stmt(s, SQL_SCHEDULE_LIST,
	    "SELECT id, agent, name, prompt, next, every, target, target_name,\n"
	    "    target_private, creator, creator_name, creator_private,\n"
	    "    created, provenance, state\n"
	    "FROM schedules\n"
	    "ORDER BY id");
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sc.id = sqlite3_column_int64(st, 0);
		sc.agent = store_column_text(st, 1);
		sc.name = store_column_text(st, 2);
		sc.prompt = store_column_text(st, 3);
		sc.next = sqlite3_column_int64(st, 4);
		sc.every = sqlite3_column_int(st, 5);
		sc.target = store_column_text(st, 6);
		sc.target_name = store_column_text(st, 7);
		sc.target_private = sqlite3_column_int(st, 8);
		sc.creator = store_column_text(st, 9);
		sc.creator_name = store_column_text(st, 10);
		sc.creator_private = sqlite3_column_int(st, 11);
		sc.created = sqlite3_column_int64(st, 12);
		sc.provenance = store_column_text(st, 13);
		sc.state = store_column_text(st, 14);
		if (sc.agent == NULL || sc.name == NULL || sc.prompt == NULL ||
		    sc.target == NULL || sc.target_name == NULL ||
		    sc.creator == NULL || sc.creator_name == NULL)
			continue;
		fn(&sc, arg);
		n++;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, "list schedules");
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	return n;
}

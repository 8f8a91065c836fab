/*
 * store.c: opening and closing the database, the pragmas that make it
 * durable, the log hook, and the prepared-statement cache that the other
 * files of store/ share.
 */
#include "compat.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store-int.h"

/* Long enough to ride out a backup or sqlite3 shell holding a lock. */
#define STORE_BUSY_MS	5000
/*
 * A burst of writes can take the WAL to 64 MiB (checkpoint.c); when it
 * starts over, SQLite cuts the file back to this size.
 */
#define STORE_WAL_KEEP	"16777216"

static void	(*log_fn)(int, const char *);

void
store_set_log(void (*fn)(int is_error, const char *msg))
{
	log_fn = fn;
}

void
store_log(int is_error, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (log_fn != NULL) {
		log_fn(is_error, buf);
		return;
	}
	fprintf(stderr, "store %s: %s\n", is_error ? "error" : "info", buf);
}

/* Log the connection's last error; every failing path goes through here. */
void
store_fail(struct store *s, const char *what)
{
	store_log(1, "%s: %s: %s (sqlite code %d)", s->path, what,
	    sqlite3_errmsg(s->db), sqlite3_extended_errcode(s->db));
}

/*
 * The cached statement for slot, prepared from sql on first use. It comes
 * back reset with no bindings; callers reset it again when done so that
 * no read transaction stays open (it would hold back WAL checkpoints).
 * A callback must therefore not re-enter the function that is calling it.
 */
sqlite3_stmt *
store_stmt(struct store *s, enum store_sql slot, const char *sql)
{
	sqlite3_stmt *st = s->stmt[slot];

	if (st != NULL) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return st;
	}
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &st, NULL) != SQLITE_OK) {
		store_fail(s, "prepare");
		return NULL;
	}
	s->stmt[slot] = st;
	return st;
}

/*
 * After an error SQLite may have rolled back the whole transaction (disk
 * full, I/O error, out of memory, RAISE(ROLLBACK)): if that was the
 * batch, every write of the turn that returned 0 is gone.
 */
static void
store_batch_check(struct store *s)
{
	if (s->batch != STORE_BATCH_OPEN || !sqlite3_get_autocommit(s->db))
		return;
	store_log(1, "%s: the batch transaction was rolled back after an "
	    "error; its writes are lost", s->path);
	s->batch = STORE_BATCH_LOST;
	s->nest = 0;
}

/* Run a statement that returns no rows (or whose rows do not matter). */
int
store_step_done(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc;

	/*
	 * A lost batch refuses writes until it is committed: they would
	 * run in autocommit and be stored while the turn's earlier writes
	 * were not. Reads and transaction control still run. The check
	 * first catches a loss in a read, which steps on its own.
	 */
	store_batch_check(s);
	if (s->batch == STORE_BATCH_LOST && !sqlite3_stmt_readonly(st)) {
		store_log(1, "%s: %s: refused: this turn's batch was rolled "
		    "back", s->path, what);
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_fail(s, what);
		sqlite3_reset(st);
		store_batch_check(s);
		return -1;
	}
	sqlite3_reset(st);
	return 0;
}

/* Roll the whole batch back and keep it LOST until it is committed. */
static void
store_batch_abort(struct store *s, const char *why)
{
	sqlite3_stmt *st;

	store_log(1, "%s: %s: rolling back the batch", s->path, why);
	s->nest = 0;
	if (!sqlite3_get_autocommit(s->db) &&
	    (st = store_stmt(s, SQL_ROLLBACK, "ROLLBACK")) != NULL)
		store_step_done(s, st, "rollback batch");
	s->batch = STORE_BATCH_LOST;
}

/*
 * IMMEDIATE takes the write lock at once: a deferred transaction that
 * reads first and writes later can fail with BUSY halfway through.
 * Inside a batch the lock is already held and BEGIN would fail, so a
 * change is a savepoint: rolling it back leaves the rest of the batch.
 * All savepoints share one name; SQLite matches the innermost.
 */
int
store_begin(struct store *s)
{
	sqlite3_stmt *st;

	if (s->batch == STORE_BATCH_OPEN) {
		if ((st = store_stmt(s, SQL_SAVEPOINT,
		    "SAVEPOINT store_change")) == NULL ||
		    store_step_done(s, st, "savepoint") == -1)
			return -1;
		s->nest++;
		return 0;
	}
	if ((st = store_stmt(s, SQL_BEGIN, "BEGIN IMMEDIATE")) == NULL)
		return -1;
	return store_step_done(s, st, "begin");
}

int
store_commit(struct store *s)
{
	sqlite3_stmt *st;

	if (s->nest > 0) {
		/* Nothing is durable yet: the batch commit does that. */
		if ((st = store_stmt(s, SQL_RELEASE,
		    "RELEASE store_change")) == NULL ||
		    store_step_done(s, st, "release savepoint") == -1) {
			store_rollback(s);
			return -1;
		}
		s->nest--;
		return 0;
	}
	if ((st = store_stmt(s, SQL_COMMIT, "COMMIT")) == NULL ||
	    store_step_done(s, st, "commit") == -1) {
		store_rollback(s);
		return -1;
	}
	return 0;
}

void
store_rollback(struct store *s)
{
	sqlite3_stmt *st;

	if (s->nest > 0) {
		/* SQLite already rolled back the batch: nothing to undo. */
		store_batch_check(s);
		if (s->batch != STORE_BATCH_OPEN)
			return;
		/* ROLLBACK TO keeps the savepoint open; RELEASE ends it. */
		s->nest--;
		if ((st = store_stmt(s, SQL_ROLLBACK_TO,
		    "ROLLBACK TO store_change")) == NULL ||
		    store_step_done(s, st, "rollback to savepoint") == -1 ||
		    (st = store_stmt(s, SQL_RELEASE,
		    "RELEASE store_change")) == NULL ||
		    store_step_done(s, st, "release savepoint") == -1)
			/* The failed change must not be committed with it. */
			store_batch_abort(s, "savepoint rollback failed");
		return;
	}
	/* After some errors SQLite has already rolled back for us. */
	if (sqlite3_get_autocommit(s->db))
		return;
	if ((st = store_stmt(s, SQL_ROLLBACK, "ROLLBACK")) != NULL)
		store_step_done(s, st, "rollback");
}

int
store_batch_begin(struct store *s)
{
	sqlite3_stmt *st;

	if (s->batch == STORE_BATCH_OPEN)
		return 0;
	if (s->batch == STORE_BATCH_LOST) {
		store_log(1, "%s: batch begin: refused: this turn's batch was "
		    "rolled back and is not committed yet", s->path);
		return -1;
	}
	/* Also fails inside a store_begin transaction: BEGIN cannot nest. */
	if ((st = store_stmt(s, SQL_BEGIN, "BEGIN IMMEDIATE")) == NULL ||
	    store_step_done(s, st, "batch begin") == -1)
		return -1;
	s->batch = STORE_BATCH_OPEN;
	s->nest = 0;
	return 0;
}

int
store_batch_commit(struct store *s)
{
	store_batch_check(s);
	switch (s->batch) {
	case STORE_BATCH_NONE:
		return 0;
	case STORE_BATCH_LOST:
		/* Logged when it was lost; the next turn starts afresh. */
		s->batch = STORE_BATCH_NONE;
		return -1;
	case STORE_BATCH_OPEN:
		break;
	}
	if (s->nest > 0) {
		/*
		 * A change of store_begin is still open (its caller is
		 * further up this stack): committing would store it half
		 * done, so the whole batch goes.
		 */
		store_batch_abort(s, "batch commit inside a store_begin");
		s->batch = STORE_BATCH_NONE;
		return -1;
	}
	/* Closed first, so that store_commit takes the COMMIT path. */
	s->batch = STORE_BATCH_NONE;
	return store_commit(s);
}

int
store_batch_open(const struct store *s)
{
	return s->batch != STORE_BATCH_NONE;
}

static void
store_bind(sqlite3_stmt *st, int i, const char *v, void (*how)(void *))
{
	if (v == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, v, -1, how);
}

/* NULL binds SQL NULL; the text is copied (SQLITE_TRANSIENT). */
void
store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	store_bind(st, i, v, SQLITE_TRANSIENT);
}

/*
 * The same without the copy, for a statement stepped to its end before
 * the caller's strings change (an INSERT): no allocation per message.
 * Queries keep the copy, since their callbacks may free what was bound.
 */
void
store_bind_static(sqlite3_stmt *st, int i, const char *v)
{
	store_bind(st, i, v, SQLITE_STATIC);
}

const char *
store_column_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static int
store_pragma(struct store *s, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s: %s", s->path, sql,
		    msg != NULL ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
store_journal_wal(struct store *s, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	const char *mode;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st,
	    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->db));
		return -1;
	}
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		snprintf(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		return -1;
	}
	/* A file system without shared memory keeps the old journal. */
	mode = store_column_text(st, 0);
	if (mode != NULL && strcmp(mode, "wal") == 0)
		s->wal = 1;
	else
		store_log(0, "%s: journal_mode is %s, not wal", s->path,
		    mode != NULL ? mode : "unknown");
	sqlite3_finalize(st);
	return 0;
}

/*
 * SEC-5, M4: the database is 0600, and so are its -wal and -shm, which
 * SQLite makes with the database's own mode: a new one is made so before
 * SQLite opens it (never through a symlink); an existing one that others
 * may read loses their bits, with a warning. The files' owners were
 * checked at start (ircd/trust.c).
 */
static int
store_files_private(const char *path, char *err, size_t errlen)
{
	static const char *const sides[] = { "", "-wal", "-shm" };
	char side[4096];
	struct stat st;
	size_t i;
	int fd;

	if (strcmp(path, ":memory:") == 0)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd != -1)
		close(fd);
	else if (errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		snprintf(side, sizeof(side), "%s%s", path, sides[i]);
		if (lstat(side, &st) == -1 || !S_ISREG(st.st_mode) ||
		    (st.st_mode & 077) == 0)
			continue;
		/* Only the others' bits go: a file made read-only stays so. */
		if (chmod(side, st.st_mode & 0700) == -1) {
			snprintf(err, errlen, "%s: mode %04o, and chmod go-rwx: %s",
			    side, (unsigned)(st.st_mode & 07777), strerror(errno));
			return -1;
		}
		store_log(1, "%s: was mode %04o, open to other users: now %04o",
		    side, (unsigned)(st.st_mode & 07777),
		    (unsigned)(st.st_mode & 0700));
	}
	return 0;
}

struct store *
store_open(const char *path, char *err, size_t errlen)
{
	struct store *s;

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		free(s);
		return NULL;
	}
	if (store_files_private(path, err, errlen) == -1) {
		free(s->path);
		free(s);
		return NULL;
	}
	/* SEC-5: a symlink where the database goes is refused, not followed. */
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, s->db != NULL ?
		    sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_MS);

	/*
	 * WAL with synchronous=NORMAL: a committed transaction is in the WAL
	 * file before sqlite3_step() returns, so a crash or kill -9 of the
	 * process loses nothing acknowledged; only a power loss or an OS
	 * crash may lose the last transactions since the WAL was last
	 * synced (at checkpoints). FULL would fsync every message, which
	 * costs more than a chat server should pay (docs say the same).
	 */
	if (store_journal_wal(s, err, errlen) == -1 ||
	    store_pragma(s, "PRAGMA synchronous = NORMAL", err, errlen) == -1 ||
	    store_pragma(s, "PRAGMA foreign_keys = ON", err, errlen) == -1 ||
	    store_pragma(s, "PRAGMA journal_size_limit = " STORE_WAL_KEEP,
	    err, errlen) == -1 ||
	    /*
	     * A redacted or pruned message is zeroed, not left in free
	     * space: a secret someone pasted and took back must be gone.
	     */
	    store_pragma(s, "PRAGMA secure_delete = ON", err, errlen) == -1)
		goto fail;
	if (store_migrate(s, err, errlen) == -1)
		goto fail;
	/* Checkpoints (and their fsyncs) leave the loop: checkpoint.c. */
	if (s->wal)
		store_ckpt_start(s);
	return s;
fail:
	store_close(s);
	return NULL;
}

void
store_close(struct store *s)
{
	size_t i;

	if (s == NULL)
		return;
	/* Shutdown must not drop what the last turn stored. */
	if (s->db != NULL && store_batch_open(s) &&
	    store_batch_commit(s) == -1)
		store_log(1, "%s: close: the open batch was not committed",
		    s->path);
	for (i = 0; i < SQL_MAX; i++)
		sqlite3_finalize(s->stmt[i]);
	store_ckpt_stop(s);
	if (s->db != NULL && sqlite3_close(s->db) != SQLITE_OK)
		store_log(1, "%s: close: %s", s->path, sqlite3_errmsg(s->db));
	free(s->path);
	free(s);
}

int
store_version(struct store *s)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK) {
		store_fail(s, "user_version");
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	else
		store_fail(s, "user_version");
	sqlite3_finalize(st);
	return v;
}

int
store_version_latest(void)
{
	return store_migrations();
}

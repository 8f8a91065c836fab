/*
 * checkpoint.c: WAL checkpoints on a thread of their own, so that the
 * event loop never waits for the disk.
 *
 * With WAL and synchronous=NORMAL a commit only appends to the WAL; the
 * fsyncs come at checkpoints, which SQLite by default runs inside the
 * commit that takes the WAL past 1000 pages. In the loop that stalled
 * every client for two fsyncs and the copy of the pages, once every
 * couple of hundred messages: the 1 % slowest deliveries waited
 * milliseconds for the disk (bench/README.md). So the loop's connection
 * never checkpoints. Its WAL hook counts the pages and, past
 * STORE_CKPT_PAGES, wakes this thread, which runs a PASSIVE checkpoint
 * through a second connection to the same file: PASSIVE never takes the
 * write lock and never waits, so the loop's next commit goes on at once.
 *
 * A PASSIVE checkpoint copies only the pages committed before it began,
 * and the WAL starts over from its beginning only when a commit finds
 * every page copied. Under a steady stream of commits (a benchmark) the
 * thread never catches up, so past STORE_CKPT_FORCE pages the loop waits
 * for one checkpoint that begins after its commit: with the loop
 * waiting nothing is written meanwhile, that checkpoint copies
 * everything, and the next commit starts the WAL over. That bounds the
 * WAL at the price of one stall per STORE_CKPT_FORCE pages of sustained
 * writing; at chat rates the thread catches up between messages.
 *
 * A redaction (store_history_redact) must leave no copy of the message
 * in the files: its old pages stay in the WAL until the WAL is written
 * over. So the commit after one asks the thread for a TRUNCATE
 * checkpoint, which waits (the busy timeout) for the loop's writes to
 * end, copies everything and empties the WAL file. Redactions are rare;
 * the loop may wait for that one checkpoint's fsync.
 *
 * The thread touches only its own connection and the fields under
 * ck->lock. It logs nothing (the log hook belongs to the loop): a failed
 * checkpoint leaves its code for the loop, which logs it at the next
 * wake-up. Without the thread (no threads in this SQLite, or none could
 * be started) the hook checkpoints in the loop, as SQLite would have.
 */
#include "compat.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "store/store-int.h"

/* SQLite's own autocheckpoint threshold: the WAL stays a few MiB. */
#define STORE_CKPT_PAGES	1000
/* 64 MiB of 4 KiB pages: where the loop waits for the thread. */
#define STORE_CKPT_FORCE	(16 * STORE_CKPT_PAGES)
/* How long a TRUNCATE checkpoint waits for the loop's transaction. */
#define STORE_CKPT_BUSY_MS	5000

struct store_ckpt {
	pthread_t	 thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 cond;		/* the thread waits for work */
	pthread_cond_t	 done;		/* the loop waits for a run */
	sqlite3		*db;		/* the thread's own connection */
	int		 due;		/* the loop asked for a checkpoint */
	int		 truncate;	/* ... one that empties the WAL */
	int		 stop;		/* store_close: finish and exit */
	int		 rc;		/* a failure the loop has not reported */
	unsigned long	 begun;		/* checkpoints started */
	unsigned long	 runs;		/* checkpoints done (tests) */
};

/* BUSY: another checkpointer (the sqlite3 shell) is at it; no error. */
static int
store_ckpt_failed(int rc)
{
	return rc != SQLITE_OK && rc != SQLITE_BUSY;
}

static void *
store_ckpt_main(void *arg)
{
	struct store_ckpt *ck = arg;
	int rc, mode;

	pthread_mutex_lock(&ck->lock);
	for (;;) {
		while (!ck->due && !ck->stop)
			pthread_cond_wait(&ck->cond, &ck->lock);
		if (ck->stop)
			break;
		mode = ck->truncate ? SQLITE_CHECKPOINT_TRUNCATE :
		    SQLITE_CHECKPOINT_PASSIVE;
		ck->due = ck->truncate = 0;
		ck->begun++;
		pthread_mutex_unlock(&ck->lock);
		rc = sqlite3_wal_checkpoint_v2(ck->db, NULL, mode, NULL, NULL);
		pthread_mutex_lock(&ck->lock);
		/* Keep the first failure until the loop reports it. */
		if (ck->rc == SQLITE_OK && store_ckpt_failed(rc))
			ck->rc = rc;
		ck->runs++;
		pthread_cond_broadcast(&ck->done);
	}
	pthread_mutex_unlock(&ck->lock);
	return NULL;
}

static void
store_ckpt_report(struct store *s, int rc)
{
	if (store_ckpt_failed(rc))
		store_log(1, "%s: checkpoint: %s (sqlite code %d)", s->path,
		    sqlite3_errstr(rc), rc);
}

/* In the loop, after each commit (sqlite3_wal_hook). */
static int
store_ckpt_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store *s = arg;
	struct store_ckpt *ck = s->ckpt;
	unsigned long want;
	int rc, scrub = s->scrub;

	if (pages < STORE_CKPT_PAGES && !scrub)
		return SQLITE_OK;
	s->scrub = 0;
	if (ck != NULL) {
		pthread_mutex_lock(&ck->lock);
		ck->due = 1;
		ck->truncate |= scrub;
		pthread_cond_signal(&ck->cond);
		if (pages >= STORE_CKPT_FORCE) {
			want = ck->begun + 1;
			while (ck->runs < want)
				pthread_cond_wait(&ck->done, &ck->lock);
		}
		rc = ck->rc;
		ck->rc = SQLITE_OK;
		pthread_mutex_unlock(&ck->lock);
	} else
		rc = sqlite3_wal_checkpoint_v2(db, name, scrub ?
		    SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE,
		    NULL, NULL);
	store_ckpt_report(s, rc);
	/* A failed checkpoint does not make the commit fail. */
	return SQLITE_OK;
}

void
store_ckpt_start(struct store *s)
{
	struct store_ckpt *ck;
	sigset_t all, old;
	int rc;

	/* The hook replaces SQLite's autocheckpoint, thread or not. */
	sqlite3_wal_hook(s->db, store_ckpt_hook, s);
	if (!sqlite3_threadsafe() || (ck = calloc(1, sizeof(*ck))) == NULL)
		goto inline_only;
	if (sqlite3_open_v2(s->path, &ck->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto fail_db;
	/*
	 * A connection opens its WAL at its first read; before that a
	 * checkpoint through it finds no WAL and quietly does nothing.
	 */
	if (sqlite3_exec(ck->db, "SELECT 1 FROM sqlite_master LIMIT 1",
	    NULL, NULL, NULL) != SQLITE_OK)
		goto fail_db;
	/* A TRUNCATE checkpoint waits for the loop's write; PASSIVE never. */
	sqlite3_busy_timeout(ck->db, STORE_CKPT_BUSY_MS);
	if (pthread_mutex_init(&ck->lock, NULL) != 0)
		goto fail_db;
	if (pthread_cond_init(&ck->cond, NULL) != 0)
		goto fail_lock;
	if (pthread_cond_init(&ck->done, NULL) != 0)
		goto fail_cond;
	/* Signals are the loop's business: the thread blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&ck->thread, NULL, store_ckpt_main, ck);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		goto fail_done;
	s->ckpt = ck;
	return;
fail_done:
	pthread_cond_destroy(&ck->done);
fail_cond:
	pthread_cond_destroy(&ck->cond);
fail_lock:
	pthread_mutex_destroy(&ck->lock);
fail_db:
	sqlite3_close(ck->db);
	free(ck);
inline_only:
	store_log(0, "%s: no checkpoint thread: checkpoints run in the loop",
	    s->path);
}

void
store_ckpt_stop(struct store *s)
{
	struct store_ckpt *ck = s->ckpt;

	if (ck == NULL)
		return;
	pthread_mutex_lock(&ck->lock);
	ck->stop = 1;
	pthread_cond_signal(&ck->cond);
	pthread_mutex_unlock(&ck->lock);
	pthread_join(ck->thread, NULL);
	pthread_cond_destroy(&ck->done);
	pthread_cond_destroy(&ck->cond);
	pthread_mutex_destroy(&ck->lock);
	/* The loop's connection, closed last, checkpoints what is left. */
	sqlite3_close(ck->db);
	free(ck);
	s->ckpt = NULL;
}

unsigned long
store_checkpoints(struct store *s)
{
	struct store_ckpt *ck = s->ckpt;
	unsigned long n;

	if (ck == NULL)
		return 0;
	pthread_mutex_lock(&ck->lock);
	n = ck->runs;
	pthread_mutex_unlock(&ck->lock);
	return n;
}

/*
 * verify.c: password hashes checked on a thread of their own (SEC-6).
 * A hash costs tens of milliseconds on purpose; in the event loop every
 * guess stalled every user for that long. Now a guess costs its guesser
 * the wait, and nobody else: the client's lines wait (conn.c) until the
 * answer comes back to the loop, which finishes the command.
 *
 * The thread sees only the job's password and hash, and writes only its
 * answer; the lists move under the lock; the client is the loop's alone.
 * Without the thread (none could be started) hashes are checked in the
 * loop, as before.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <openssl/crypto.h>

#include "ircd/client.h"
#include "ircd/conn.h"
#include "ircd/ircd.h"
#include "ircd/log.h"
#include "ircd/passwd.h"
#include "ircd/verify.h"
#include "ircd/xmalloc.h"

/* Checks waiting at once; past it a login is told to come back. */
#define VERIFY_MAX	64

struct verify_job {
	TAILQ_ENTRY(verify_job)	 entry;
	struct client		*c;	/* NULL once it is gone */
	char			*password;
	char			*hash;
	char			*arg;
	verify_done_fn		 done;
	int			 ok;
};

TAILQ_HEAD(verify_jobs, verify_job);

static struct verify_jobs queued = TAILQ_HEAD_INITIALIZER(queued);
static struct verify_jobs answered = TAILQ_HEAD_INITIALIZER(answered);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static int running, stopping;
static int wake[2] = { -1, -1 };
static struct event *wake_ev;
static unsigned npending;

static void
verify_job_free(struct verify_job *j)
{
	OPENSSL_cleanse(j->password, strlen(j->password));
	free(j->password);
	free(j->hash);
	/* arg may be a whole PASS (cmd-register.c): wiped like the password. */
	if (j->arg != NULL)
		OPENSSL_cleanse(j->arg, strlen(j->arg));
	free(j->arg);
	free(j);
}

static void *
verify_main(void *arg)
{
	struct verify_job *j;

	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!stopping && TAILQ_EMPTY(&queued))
			pthread_cond_wait(&work, &lock);
		if (stopping)
			break;
		j = TAILQ_FIRST(&queued);
		TAILQ_REMOVE(&queued, j, entry);
		pthread_mutex_unlock(&lock);
		j->ok = passwd_verify(j->password, j->hash);
		pthread_mutex_lock(&lock);
		TAILQ_INSERT_TAIL(&answered, j, entry);
		if (write(wake[1], "", 1) == -1) {
			/* Full (EAGAIN): a wake-up is pending, nothing lost. */
		}
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Back in the loop: finish each answered command, then run held lines. */
static void
verify_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct verify_jobs ready = TAILQ_HEAD_INITIALIZER(ready);
	struct verify_job *j;
	struct client *c;
	char buf[64];

	(void)what;
	(void)arg;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&lock);
	TAILQ_CONCAT(&ready, &answered, entry);
	pthread_mutex_unlock(&lock);
	while ((j = TAILQ_FIRST(&ready)) != NULL) {
		TAILQ_REMOVE(&ready, j, entry);
		npending--;
		if ((c = j->c) != NULL) {
			c->verify = NULL;
			j->done(c, j->ok, j->arg);
			if (c->conn != NULL && !(c->flags & CLIENT_CLOSING))
				conn_resume(c->conn);
		}
		verify_job_free(j);
	}
}

int
verify_init(void)
{
	sigset_t all, old;
	int rc;

	if (pipe(wake) == -1) {
		log_warn("verify: pipe");
		return -1;
	}
	fcntl(wake[0], F_SETFL, O_NONBLOCK);
	fcntl(wake[1], F_SETFL, O_NONBLOCK);
	fcntl(wake[0], F_SETFD, FD_CLOEXEC);
	fcntl(wake[1], F_SETFD, FD_CLOEXEC);
	wake_ev = event_new(ircd.base, wake[0], EV_READ | EV_PERSIST,
	    verify_wake_cb, NULL);
	if (wake_ev == NULL || event_add(wake_ev, NULL) == -1)
		goto fail;
	/* Signals are the loop's: the thread blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&thread, NULL, verify_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		log_warnx("verify: no thread (%s): passwords are checked in "
		    "the event loop", strerror(rc));
		goto fail;
	}
	running = 1;
	return 0;
fail:
	if (wake_ev != NULL)
		event_free(wake_ev);
	wake_ev = NULL;
	close(wake[0]);
	close(wake[1]);
	wake[0] = wake[1] = -1;
	return -1;
}

void
verify_shutdown(void)
{
	struct verify_job *j;

	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	running = 0;
	while ((j = TAILQ_FIRST(&queued)) != NULL) {
		TAILQ_REMOVE(&queued, j, entry);
		verify_job_free(j);
	}
	while ((j = TAILQ_FIRST(&answered)) != NULL) {
		TAILQ_REMOVE(&answered, j, entry);
		verify_job_free(j);
	}
	event_free(wake_ev);
	wake_ev = NULL;
	close(wake[0]);
	close(wake[1]);
	wake[0] = wake[1] = -1;
}

int
verify_start(struct client *c, const char *password, const char *hash,
    verify_done_fn done, const char *arg)
{
	struct verify_job *j;

	if (!running) {
		done(c, passwd_verify(password, hash), arg);
		return 0;
	}
	if (npending >= VERIFY_MAX || c->verify != NULL)
		return -1;
	j = xcalloc(1, sizeof(*j));
	j->c = c;
	j->password = xstrdup(password);
	j->hash = xstrdup(hash);
	j->arg = arg != NULL ? xstrdup(arg) : NULL;
	j->done = done;
	c->verify = j;
	npending++;
	pthread_mutex_lock(&lock);
	TAILQ_INSERT_TAIL(&queued, j, entry);
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
	return 0;
}

void
verify_forget(struct client *c)
{
	/* The job is the loop's to change: the thread never reads j->c. */
	if (c->verify != NULL) {
		c->verify->c = NULL;
		c->verify = NULL;
	}
}

/*
 * account.c: logging in against the config's accounts. Failed attempts
 * (SASL, PASS and OPER alike) are counted per address block (SEC-6:
 * loopback is one block, an IPv6 /64 one) and per account or operator
 * name, and make that block, and tries of that name, wait: a password
 * cannot be guessed quickly over many connections, many addresses of one
 * block, or many blocks against one account.
 */
#include "compat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/account.h"
#include "ircd/addrblock.h"
#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/dict.h"
#include "ircd/hook.h"
#include "ircd/log.h"
#include "ircd/numeric.h"
#include "ircd/passwd.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/* Per failure, this much penalty, up to the cap; forgotten after an hour. */
#define FAIL_PENALTY_MS	2000
#define FAIL_MAX_MS	30000
#define FAIL_FORGET	3600
/* Entries kept; past that the least recently failed one goes (M6). */
#define FAIL_TABLE_MAX	4096

/*
 * Failures under one key: "b:<address block>" (addrblock.c), "a:<account>"
 * or "o:<operator>" as configured. LRU: the most recent failure first.
 */
struct failure {
	TAILQ_ENTRY(failure)	 lru;
	char			*key;
	unsigned		 count;
	time_t			 last;
	uint64_t		 not_before;	/* ms, monotonic: wait till then */
};
TAILQ_HEAD(failures_lru, failure);

static struct dict		*failures;
static struct failures_lru	 lru = TAILQ_HEAD_INITIALIZER(lru);

static const struct conf_account *
account_find(const char *name)
{
	size_t i;

	for (i = 0; i < ircd.conf->naccounts; i++)
		if (casemap_cmp(ircd.conf->accounts[i].name, name) == 0)
			return &ircd.conf->accounts[i];
	return NULL;
}

/*
 * A hash of the configured kind to check a password against when there is
 * no account, so that an unknown name takes the time of a known one (L4):
 * made once, of a password nobody knows.
 */
const char *
account_dummy_hash(void)
{
	static char *dummy;

	if (dummy == NULL)
		dummy = passwd_hash("agentircd-no-such-account");
	return dummy != NULL ? dummy : "*";
}

const char *
account_password_hash(const char *name)
{
	const struct conf_account *a = account_find(name);

	/* Hashed even for an unknown name, so that timing tells nothing. */
	if (a == NULL || a->password == NULL)
		return account_dummy_hash();
	return a->password;
}

const char *
account_with_password(const char *name)
{
	const struct conf_account *a = account_find(name);

	return a != NULL && a->password != NULL ? a->name : NULL;
}


const char *
account_check_certfp(const char *fp)
{
	size_t i;

	if (fp == NULL)
		return NULL;
	for (i = 0; i < ircd.conf->naccounts; i++)
		if (ircd.conf->accounts[i].certfp != NULL &&
		    strcmp(ircd.conf->accounts[i].certfp, fp) == 0)
			return ircd.conf->accounts[i].name;
	return NULL;
}

int
account_any(void)
{
	return ircd.conf->naccounts > 0;
}

void
account_login(struct client *c, const char *name)
{
	free(c->account);
	c->account = xstrdup(name);
	reply(c, RPL_LOGGEDIN, c->prefix, c->account, c->account);
	if (c->flags & CLIENT_REGISTERED) {
		client_send_common_cap(c, 0, CAP_ACCOUNT_NOTIFY, ":%s ACCOUNT %s",
		    c->prefix, c->account);
		hook_logged_in(c);
	}
	log_info("%s logged in as %s from %s", client_name(c), name, c->ip);
}

/* The key of kind's name into buf: "b:", "a:" or "o:" and the name. */
static void
fail_key(char *buf, size_t len, enum login_kind kind, const char *name)
{
	char folded[ADDRBLOCK_LEN + NICKLEN * 4];

	switch (kind) {
	case LOGIN_BLOCK:
		snprintf(buf, len, "b:%s", addrblock_of(name, folded,
		    sizeof(folded)));
		return;
	case LOGIN_ACCOUNT:
	case LOGIN_OPER:
		casemap_fold(folded, name, sizeof(folded));
		snprintf(buf, len, "%c:%s", kind == LOGIN_ACCOUNT ? 'a' : 'o',
		    folded);
		return;
	}
}

static struct failure *
fail_find(enum login_kind kind, const char *name)
{
	char key[ADDRBLOCK_LEN + NICKLEN * 4 + 3];

	if (failures == NULL)
		return NULL;
	fail_key(key, sizeof(key), kind, name);
	return dict_get(failures, key);
}

static void
fail_free(struct failure *f)
{
	TAILQ_REMOVE(&lru, f, lru);
	dict_del(failures, f->key);
	free(f->key);
	free(f);
}

/* One more failure under kind's name: its wait, in ms, from now. */
static unsigned
fail_add(enum login_kind kind, const char *name)
{
	char key[ADDRBLOCK_LEN + NICKLEN * 4 + 3];
	struct failure *f;
	time_t now = time(NULL);
	unsigned ms;

	if (failures == NULL)
		failures = dict_new();
	fail_key(key, sizeof(key), kind, name);
	if ((f = dict_get(failures, key)) == NULL) {
		/* Bounded: the least recently failed goes, the rest stay. */
		if (dict_count(failures) >= FAIL_TABLE_MAX)
			fail_free(TAILQ_LAST(&lru, failures_lru));
		f = xcalloc(1, sizeof(*f));
		f->key = xstrdup(key);
		dict_set(failures, f->key, f);
	} else
		TAILQ_REMOVE(&lru, f, lru);
	TAILQ_INSERT_HEAD(&lru, f, lru);
	if (now - f->last > FAIL_FORGET)
		f->count = 0;
	f->count++;
	f->last = now;
	ms = f->count * FAIL_PENALTY_MS;
	if (ms > FAIL_MAX_MS)
		ms = FAIL_MAX_MS;
	f->not_before = server_now_ms() + ms;
	return ms;
}

void
account_failed(struct client *c, enum login_kind kind, const char *name)
{
	unsigned ms, named = 0;

	/*
	 * Every connection from the block waits, not only this one: new
	 * ones and those already open hold their login lines until then.
	 */
	ms = fail_add(LOGIN_BLOCK, c->ip);
	/*
	 * A name that is configured is slowed too, from any address; others
	 * would only fill the table. cmd-oper.c names known operators only.
	 */
	if (name != NULL && (kind == LOGIN_OPER ||
	    (kind == LOGIN_ACCOUNT && account_find(name) != NULL)))
		named = fail_add(kind, name);
	if (named > ms)
		ms = named;
	if (c->conn != NULL)
		conn_delay(c->conn, ms);
	log_info("failed %s from %s%s%s", kind == LOGIN_OPER ? "OPER" : "login",
	    c->ip, name != NULL ? " for " : "", name != NULL ? name : "");
}

unsigned
account_wait_ms(enum login_kind kind, const char *name)
{
	struct failure *f;
	uint64_t now;

	if ((f = fail_find(kind, name)) == NULL)
		return 0;
	now = server_now_ms();
	return f->not_before > now ? (unsigned)(f->not_before - now) : 0;
}

unsigned
account_may_try(struct client *c, enum login_kind kind, const char *name)
{
	unsigned w = account_wait_ms(LOGIN_BLOCK, c->ip), wn = 0;

	if (name != NULL)
		wn = account_wait_ms(kind, name);
	if (wn > w)
		w = wn;
	if (w > 0)
		reply_notice(c, "Too many failed %s; try again in %u s",
		    kind == LOGIN_OPER ? "OPER attempts" : "logins",
		    (w + 999) / 1000);
	return w;
}

void
account_shutdown(void)
{
	while (!TAILQ_EMPTY(&lru))
		fail_free(TAILQ_FIRST(&lru));
	dict_free(failures);
	failures = NULL;
}

/*
 * account.c: logging in against the config's accounts. Failed attempts
 * are counted per address and cost that address flood penalty, so a
 * password cannot be guessed quickly even over many connections.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/account.h"
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
#define FAIL_TABLE_MAX	4096

struct failure {
	unsigned	count;
	time_t		last;
	uint64_t	not_before;	/* ms, monotonic: logins from here wait */
};

static struct dict *failures;

static const struct conf_account *
account_find(const char *name)
{
	size_t i;

	for (i = 0; i < ircd.conf->naccounts; i++)
		if (casemap_cmp(ircd.conf->accounts[i].name, name) == 0)
			return &ircd.conf->accounts[i];
	return NULL;
}

const char *
account_check_password(const char *name, const char *password)
{
	const struct conf_account *a = account_find(name);

	/* Hash even for an unknown name so timing tells nothing. */
	if (a == NULL || a->password == NULL) {
		(void)passwd_verify(password, "$6$rounds=5000$x$");
		return NULL;
	}
	return passwd_verify(password, a->password) ? a->name : NULL;
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

void
account_failed(struct client *c)
{
	struct failure *f;
	time_t now = time(NULL);
	unsigned ms;

	if (failures == NULL)
		failures = dict_new();
	if ((f = dict_get(failures, c->ip)) == NULL) {
		/* Bounded: a flood of addresses resets the table, not the memory. */
		if (dict_count(failures) >= FAIL_TABLE_MAX) {
			account_shutdown();
			failures = dict_new();
		}
		f = xcalloc(1, sizeof(*f));
		dict_set(failures, c->ip, f);
	}
	if (now - f->last > FAIL_FORGET)
		f->count = 0;
	f->count++;
	f->last = now;
	ms = f->count * FAIL_PENALTY_MS;
	if (ms > FAIL_MAX_MS)
		ms = FAIL_MAX_MS;
	/*
	 * Every connection from the address waits, not only this one: new
	 * ones and those already open hold their login lines until then.
	 */
	f->not_before = server_now_ms() + ms;
	if (c->conn != NULL)
		conn_delay(c->conn, ms);
	log_info("failed login from %s (%u in a row)", c->ip, f->count);
}

unsigned
account_wait_ms(const char *ip)
{
	struct failure *f;
	uint64_t now;

	if (failures == NULL || (f = dict_get(failures, ip)) == NULL)
		return 0;
	now = server_now_ms();
	return f->not_before > now ? (unsigned)(f->not_before - now) : 0;
}

void
account_shutdown(void)
{
	struct failure *f;
	size_t pos = 0;

	if (failures == NULL)
		return;
	while ((f = dict_next(failures, &pos, NULL)) != NULL)
		free(f);
	dict_free(failures);
	failures = NULL;
}

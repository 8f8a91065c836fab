/*
 * cmd-oper.c: IRC operators: OPER with the config's [operator] blocks,
 * and what only operators may do: KILL, WALLOPS, REHASH, DIE, and
 * CONNECT and SQUIT, handed to the server links (ircd/link/).
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/account.h"
#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/passwd.h"
#include "ircd/reply.h"
#include "ircd/verify.h"
#include "ircd/xmalloc.h"

/* Extra flood cost of a failed OPER, so passwords cannot be guessed fast. */
#define OPER_FAIL_PENALTY	3000

/*
 * Command handlers check operator status themselves too: the table's
 * CMD_OPER is one gate, and a second one costs nothing.
 */
static int
need_oper(struct client *c)
{
	if (client_is_oper(c))
		return 1;
	reply(c, ERR_NOPRIVILEGES);
	return 0;
}

static const struct conf_oper *
oper_find(const char *name)
{
	size_t i;

	for (i = 0; i < ircd.conf->nopers; i++)
		if (strcmp(ircd.conf->opers[i].name, name) == 0)
			return &ircd.conf->opers[i];
	return NULL;
}

static int
oper_host_ok(const struct client *c, const struct conf_oper *o)
{
	char uh[USERLEN + HOSTLEN + 2], ui[USERLEN + 64 + 2];
	const char *mask = o->mask != NULL ? o->mask : "*@*";

	snprintf(uh, sizeof(uh), "%s@%s", c->user, c->host);
	snprintf(ui, sizeof(ui), "%s@%s", c->user, c->ip);
	return casemap_match(mask, uh) || (c->ip[0] != '\0' &&
	    casemap_match(mask, ui));
}

/*
 * A failed OPER: its numeric, and SEC-6's count under c's address block
 * and, when it names one, the operator (M6: OPER is throttled as logins
 * are, not per connection).
 */
static void
oper_fail(struct client *c, int numeric, const char *name)
{
	reply(c, numeric);
	if (c->conn != NULL)
		conn_penalty(c->conn, OPER_FAIL_PENALTY);
	account_failed(c, LOGIN_OPER, name);
}

/* The password is checked (verify.c): the block, looked up again, decides. */
static void
oper_checked(struct client *c, int right, const char *name)
{
	const struct conf_oper *o = oper_find(name);

	if (o == NULL) {
		oper_fail(c, ERR_PASSWDMISMATCH, NULL);
		return;
	}
	/*
	 * M6: from a host the operator may not come from, 491 whatever the
	 * password, so that it tells nothing of the password.
	 */
	if (!oper_host_ok(c, o)) {
		oper_fail(c, ERR_NOOPERHOST, o->name);
		return;
	}
	if (!right) {
		oper_fail(c, ERR_PASSWDMISMATCH, o->name);
		return;
	}
	free(c->oper);
	c->oper = xstrdup(o->name);
	/* Operators must be able to act fast, e.g. KILL during a flood. */
	if (c->conn != NULL)
		conn_set_flood_exempt(c->conn, 1);
	reply(c, RPL_YOUREOPER);
	if (!(c->umodes & UMODE_OPER)) {
		c->umodes |= UMODE_OPER;
		ircd.nopers++;
		client_send(c, ":%s MODE %s :+o", c->nick, c->nick);
		hook_user_oper(c);
	}
	log_info("OPER %s by %s", o->name, c->prefix);
}

void
cmd_oper(struct client *c, struct message *m)
{
	const struct conf_oper *o;

	if (m->nparams < 2) {
		reply(c, ERR_NEEDMOREPARAMS, "OPER");
		return;
	}
	o = oper_find(m->params[0]);
	/* SEC-6: too many failures from here or for this name: wait. */
	if (account_may_try(c, LOGIN_OPER, o != NULL ? o->name : NULL) > 0) {
		reply(c, ERR_PASSWDMISMATCH);
		return;
	}
	/*
	 * Hashed always, against a dummy for an unknown name (timing), and
	 * off the loop: c's next lines wait for oper_checked.
	 */
	if (verify_start(c, m->params[1], o != NULL ? o->password :
	    account_dummy_hash(), oper_checked, m->params[0]) == -1)
		client_send(c, ":%s NOTICE %s :The server is busy checking "
		    "passwords; try again in a moment", ircd.conf->name, c->nick);
}

void
cmd_kill(struct client *c, struct message *m)
{
	struct client *victim;
	char reason[KICKLEN + 1], quit[IRC_LINELEN];
	size_t len;

	if (!need_oper(c))
		return;
	if (m->nparams < 1 || m->params[0][0] == '\0') {
		reply(c, ERR_NEEDMOREPARAMS, "KILL");
		return;
	}
	if (casemap_cmp(m->params[0], ircd.conf->name) == 0) {
		reply(c, ERR_CANTKILLSERVER);
		return;
	}
	if ((victim = client_find(m->params[0])) == NULL) {
		reply(c, ERR_NOSUCHNICK, m->params[0]);
		return;
	}
	/*
	 * A service user (an agent) is the server's own, held by what runs
	 * it: like a server (483), it cannot be killed.
	 */
	if (victim->flags & CLIENT_SERVICE) {
		client_send(c, ":%s %03d %s :You can't kill %s: it is %s",
		    ircd.conf->name, ERR_CANTKILLSERVER, c->nick, victim->nick,
		    victim->ops->service != NULL ? victim->ops->service :
		    "a service of this server");
		return;
	}
	if (m->nparams > 1 && m->params[1][0] != '\0') {
		len = message_utf8_trunc(m->params[1], strlen(m->params[1]),
		    KICKLEN);
		snprintf(reason, sizeof(reason), "%.*s", (int)len, m->params[1]);
	} else
		strlcpy(reason, c->nick, sizeof(reason));
	snprintf(quit, sizeof(quit), "Killed (%s (%s))", c->nick, reason);
	log_info("KILL %s by %s: %s", victim->prefix, c->prefix, reason);
	/* The victim learns who and why before its connection closes. */
	client_send(victim, ":%s KILL %s :%s", c->prefix, victim->nick, reason);
	client_exit(victim, quit);
}

void
cmd_wallops(struct client *c, struct message *m)
{
	struct client *t;

	if (!need_oper(c))
		return;
	if (m->nparams < 1 || m->params[0][0] == '\0') {
		reply(c, ERR_NEEDMOREPARAMS, "WALLOPS");
		return;
	}
	TAILQ_FOREACH(t, &ircd.all, entry)
		if ((t->flags & CLIENT_REGISTERED) && (t->umodes & UMODE_WALLOPS))
			client_send(t, ":%s WALLOPS :%s", c->prefix, m->params[0]);
}

void
cmd_rehash(struct client *c, struct message *m)
{
	const char *file;

	(void)m;
	if (!need_oper(c))
		return;
	file = ircd.conf->path != NULL ? ircd.conf->path : "agentircd.conf";
	if (strrchr(file, '/') != NULL)
		file = strrchr(file, '/') + 1;
	reply(c, RPL_REHASHING, file);
	log_info("REHASH by %s", c->prefix);
	/* After this ircd.conf may be a new object: nothing of the old is kept. */
	server_rehash();
}

void
cmd_die(struct client *c, struct message *m)
{
	(void)m;
	if (!need_oper(c))
		return;
	log_info("DIE by %s", c->prefix);
	server_shutdown("Server terminating");
}

static const struct oper_link_ops *oper_link_ops;

void
oper_set_link_ops(const struct oper_link_ops *ops)
{
	oper_link_ops = ops;
}

/* CONNECT <server>: the configured [link] of that name starts now. */
void
cmd_connect(struct client *c, struct message *m)
{
	if (!need_oper(c))
		return;
	if (m->nparams < 1 || m->params[0][0] == '\0') {
		reply(c, ERR_NEEDMOREPARAMS, "CONNECT");
		return;
	}
	if (oper_link_ops == NULL || oper_link_ops->connect == NULL) {
		reply(c, ERR_NOSUCHSERVER, m->params[0]);
		return;
	}
	oper_link_ops->connect(c, m->params[0]);
}

/* SQUIT <server> [:reason]: the link to that server ends. */
void
cmd_squit(struct client *c, struct message *m)
{
	char reason[KICKLEN + 1];
	size_t len;

	if (!need_oper(c))
		return;
	if (m->nparams < 1 || m->params[0][0] == '\0') {
		reply(c, ERR_NEEDMOREPARAMS, "SQUIT");
		return;
	}
	if (casemap_cmp(m->params[0], ircd.conf->name) == 0) {
		reply_notice(c, "*** SQUIT: %s is this server; DIE stops it",
		    ircd.conf->name);
		return;
	}
	if (oper_link_ops == NULL || oper_link_ops->squit == NULL) {
		reply(c, ERR_NOSUCHSERVER, m->params[0]);
		return;
	}
	if (m->nparams > 1 && m->params[1][0] != '\0') {
		len = message_utf8_trunc(m->params[1], strlen(m->params[1]),
		    KICKLEN);
		snprintf(reason, sizeof(reason), "%.*s", (int)len, m->params[1]);
	} else
		strlcpy(reason, "No reason", sizeof(reason));
	oper_link_ops->squit(c, m->params[0], reason);
}

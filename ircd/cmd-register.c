/*
 * cmd-register.c: connection registration (PASS, NICK, USER, CAP), the
 * welcome burst, PING/PONG and QUIT.
 */
#include "compat.h"

#include <openssl/crypto.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ircd/account.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/hook.h"
#include "ircd/isupport.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/sasl.h"
#include "ircd/verify.h"
#include "ircd/whowas.h"
#include "ircd/xmalloc.h"

static char	**motd;
static size_t	  nmotd;

void
motd_free(void)
{
	size_t i;

	for (i = 0; i < nmotd; i++)
		free(motd[i]);
	free(motd);
	motd = NULL;
	nmotd = 0;
}

void
motd_load(void)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	motd_free();
	if (ircd.conf->motd == NULL)
		return;
	if ((fp = fopen(ircd.conf->motd, "r")) == NULL) {
		log_warn("motd %s", ircd.conf->motd);
		return;
	}
	/* Bounded: a MOTD is a screenful, not a file dump. */
	while (nmotd < 200 && (n = getline(&line, &cap, fp)) != -1) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		n = (ssize_t)message_utf8_trunc(line, (size_t)n, 400);
		motd = xreallocarray(motd, nmotd + 1, sizeof(*motd));
		motd[nmotd++] = xstrndup(line, (size_t)n);
	}
	free(line);
	fclose(fp);
}

void
send_motd(struct client *c)
{
	size_t i;

	if (motd == NULL) {
		reply(c, ERR_NOMOTD);
		return;
	}
	reply(c, RPL_MOTDSTART, ircd.conf->name);
	for (i = 0; i < nmotd; i++)
		reply(c, RPL_MOTD, motd[i]);
	reply(c, RPL_ENDOFMOTD);
}

struct lusers_servers {
	unsigned	all;		/* beyond this one */
	unsigned	direct;		/* linked to this one */
};

static void
lusers_server(void *arg, const char *name, const char *uplink, int hops,
    const char *info)
{
	struct lusers_servers *n = arg;

	(void)name;
	(void)uplink;
	(void)info;
	n->all++;
	if (hops == 1)
		n->direct++;
}

/* Users of linked servers count in the network's figures, not ours. */
void
send_lusers(struct client *c)
{
	struct lusers_servers n = { 0, 0 };
	unsigned local = ircd.nusers - ircd.nremote;

	hook_servers(lusers_server, &n);
	reply(c, RPL_LUSERCLIENT, ircd.nusers - ircd.ninvisible, ircd.ninvisible,
	    1 + n.all);
	if (ircd.nopers > 0)
		reply(c, RPL_LUSEROP, ircd.nopers);
	if (ircd.nunknown > 0)
		reply(c, RPL_LUSERUNKNOWN, ircd.nunknown);
	if (ircd.nchannels > 0)
		reply(c, RPL_LUSERCHANNELS, ircd.nchannels);
	reply(c, RPL_LUSERME, local, n.direct);
	reply(c, RPL_LOCALUSERS, local, ircd.maxlocal, local, ircd.maxlocal);
	reply(c, RPL_GLOBALUSERS, ircd.nusers, ircd.maxusers, ircd.nusers, ircd.maxusers);
}

void
send_isupport(struct client *c)
{
	isupport_send(c);
}

/*
 * PASS refused (a wrong server password, or account:password): 464,
 * counted unless refused unchecked (SEC-6); c leaves with an ERROR.
 */
static void
register_pass_refused(struct client *c, const char *name, int counted)
{
	reply(c, ERR_PASSWDMISMATCH);
	if (counted)
		account_failed(c, LOGIN_ACCOUNT, name);
	client_exit(c, "Bad password");
}

static void
register_pass_busy(struct client *c)
{
	client_send(c, ":%s NOTICE * :The server is busy checking "
	    "passwords; try again in a moment", ircd.conf->name);
	client_exit(c, "Server busy");
}

/*
 * The password of PASS account:password is checked: registration goes
 * on. An account's password also stands for the server's, as Ergo's
 * login-via-pass-command does: clients with one password field send
 * only this.
 */
static void
register_pass_checked(struct client *c, int ok, const char *name)
{
	const char *account = ok ? account_with_password(name) : NULL;

	if (account == NULL) {
		register_pass_refused(c, name, 1);
		return;
	}
	c->flags |= CLIENT_PASS_OK;
	account_login(c, account);
	register_try(c);
}

/*
 * PASS account:password, for clients without SASL: 1 to go on with the
 * registration, 0 if it failed (c is leaving), -1 while the password is
 * checked (SEC-6: off the loop; register_pass_checked goes on). pass is
 * the caller's, and may be cut.
 */
static int
register_pass_account(struct client *c, char *pass)
{
	char *colon = strchr(pass, ':');
	int ret;

	if (c->account != NULL)
		return 1;	/* logged in by SASL already */
	if (colon == NULL) {
		/* Not an account: ignored, unless a login is needed. */
		if (conn_needs_auth(c->conn)) {
			register_pass_refused(c, NULL, 1);
			return 0;
		}
		return 1;
	}
	*colon = '\0';
	/*
	 * SEC-6: an account tried too often waits, from anywhere; the try is
	 * refused unchecked, and not counted again.
	 */
	if (account_may_try(c, LOGIN_ACCOUNT, pass) > 0) {
		register_pass_refused(c, pass, 0);
		ret = 0;
	} else if (verify_start(c, colon + 1, account_password_hash(pass),
	    register_pass_checked, pass) == -1) {
		register_pass_busy(c);
		ret = 0;
	} else
		ret = -1;
	*colon = ':';
	return ret;
}

/*
 * The server's password is checked. When it was not that, a PASS of the
 * form account:password (arg: the PASS, kept only then) may still log
 * in, which stands for the server's password too.
 */
static void
register_server_checked(struct client *c, int ok, const char *arg)
{
	char *pass;

	if (ok) {
		c->flags |= CLIENT_PASS_OK;
		register_try(c);
		return;
	}
	if (arg == NULL || c->account != NULL) {
		register_pass_refused(c, NULL, 1);
		return;
	}
	pass = xstrdup(arg);
	if (register_pass_account(c, pass) == 1)
		register_try(c);
	OPENSSL_cleanse(pass, strlen(pass));
	free(pass);
}

/*
 * The PASS a client sent, checked when it registers: the server's
 * password if one is configured ([server] password), else (or when it
 * is not that) account:password. 1 to go on with the registration, 0
 * if it failed (c is leaving), -1 while a password is checked.
 */
static int
register_pass(struct client *c)
{
	char *pass = c->pass;
	const char *hash = ircd.conf->password;
	int ret;

	c->pass = NULL;
	if (hash == NULL || (c->flags & CLIENT_PASS_OK))
		ret = register_pass_account(c, pass);
	else if (account_may_try(c, LOGIN_ACCOUNT, NULL) > 0) {
		/* SEC-6: this address block waits; refused unchecked. */
		register_pass_refused(c, NULL, 0);
		ret = 0;
	} else if (verify_start(c, pass, hash, register_server_checked,
	    strchr(pass, ':') != NULL ? pass : NULL) == -1) {
		register_pass_busy(c);
		ret = 0;
	} else
		ret = -1;
	OPENSSL_cleanse(pass, strlen(pass));
	free(pass);
	return ret;
}

void
register_try(struct client *c)
{
	const struct conf *cf = ircd.conf;

	if ((c->flags & CLIENT_REGISTERED) ||
	    !(c->flags & CLIENT_HAVE_NICK) || !(c->flags & CLIENT_HAVE_USER) ||
	    (c->flags & CLIENT_CAP_NEGOTIATING))
		return;
	/* Registration ends any SASL exchange still open (906). */
	sasl_abort(c);
	if (c->pass != NULL && register_pass(c) != 1)
		return;
	if (c->conn != NULL && ircd.conf->password != NULL &&
	    !(c->flags & CLIENT_PASS_OK)) {
		/*
		 * No PASS with the server's password. A SASL login does not
		 * stand for it (as in Ergo, by default, and InspIRCd).
		 */
		reply(c, ERR_PASSWDMISMATCH);
		client_exit(c, "Password required");
		return;
	}
	if (c->conn != NULL && conn_needs_auth(c->conn) && c->account == NULL) {
		/* SEC-1: remote listeners serve only people with an account. */
		reply_fail(c, "*", "ACCOUNT_REQUIRED", NULL,
		    "Log in with SASL or PASS account:password to use this server");
		client_exit(c, "Authentication required");
		return;
	}
	client_register(c);
	log_debug("registered %s from %s", c->prefix, c->ip);

	reply(c, RPL_WELCOME, cf->network, c->prefix);
	reply(c, RPL_YOURHOST, cf->name, IRCD_VERSION);
	reply(c, RPL_CREATED, ircd.created);
	reply(c, RPL_MYINFO, cf->name, IRCD_VERSION, "iowB", "CIbeiklmnostv",
	    "Ibeklov");
	send_isupport(c);
	send_lusers(c);
	send_motd(c);
	if (c->account != NULL)
		hook_logged_in(c);
	if (c->umodes != 0)
		client_send(c, ":%s MODE %s :+%s%s%s%s", c->nick, c->nick,
		    c->umodes & UMODE_INVISIBLE ? "i" : "",
		    c->umodes & UMODE_OPER ? "o" : "",
		    c->umodes & UMODE_WALLOPS ? "w" : "",
		    c->umodes & UMODE_BOT ? "B" : "");
}

void
cmd_pass(struct client *c, struct message *m)
{
	/* Checked when registration completes, as account:password. */
	if (c->pass != NULL) {
		OPENSSL_cleanse(c->pass, strlen(c->pass));
		free(c->pass);
	}
	c->pass = xstrdup(m->params[0]);
}

void
cmd_nick(struct client *c, struct message *m)
{
	const char *nick = m->nparams > 0 ? m->params[0] : "";
	struct client *other;

	if (nick[0] == '\0') {
		reply(c, ERR_NONICKNAMEGIVEN);
		return;
	}
	if (!casemap_valid_nick(nick, NICKLEN)) {
		reply(c, ERR_ERRONEUSNICKNAME, nick);
		return;
	}
	other = client_find_any(nick);
	if (other != NULL && other != c) {
		reply(c, ERR_NICKNAMEINUSE, nick);
		return;
	}
	if (strcmp(c->nick, nick) == 0)
		return;		/* no change at all */
	if (c->flags & CLIENT_REGISTERED) {
		/* Everyone who can see c learns the new nick, c included. */
		char old[NICKLEN + 1];

		client_send_common(c, 1, ":%s NICK :%s", c->prefix, nick);
		whowas_add(c);
		strlcpy(old, c->nick, sizeof(old));
		client_set_nick(c, nick);
		hook_user_nick(c, old);
		return;
	}
	client_set_nick(c, nick);
	c->flags |= CLIENT_HAVE_NICK;
	register_try(c);
}

void
cmd_user(struct client *c, struct message *m)
{
	const char *p;
	size_t n = 0;

	if (c->flags & CLIENT_HAVE_USER) {
		reply(c, ERR_ALREADYREGISTERED);
		return;
	}
	if (m->params[0][0] == '\0') {
		reply(c, ERR_NEEDMOREPARAMS, "USER");
		return;
	}
	/* Keep the characters a prefix can carry; the rest would break parsing. */
	for (p = m->params[0]; *p != '\0' && n < USERLEN; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch > ' ' && ch < 0x7f && ch != '@' && ch != '!' && ch != ':')
			c->user[n++] = (char)ch;
	}
	c->user[n] = '\0';
	if (n == 0)
		strlcpy(c->user, "user", sizeof(c->user));
	n = message_utf8_trunc(m->params[3], strlen(m->params[3]), REALLEN);
	client_set_realname(c, m->params[3], n);
	c->flags |= CLIENT_HAVE_USER;
	client_update_prefix(c);
	register_try(c);
}

void
cmd_ping(struct client *c, struct message *m)
{
	if (m->nparams < 1 || m->params[0][0] == '\0') {
		reply(c, ERR_NOORIGIN);
		return;
	}
	client_send(c, ":%s PONG %s :%s", ircd.conf->name, ircd.conf->name,
	    m->params[0]);
}

void
cmd_pong(struct client *c, struct message *m)
{
	/* Any line resets the ping timer (conn.c); nothing more to do. */
	(void)c;
	(void)m;
}

void
cmd_quit(struct client *c, struct message *m)
{
	char reason[IRC_LINELEN];

	if (m->nparams > 0 && m->params[0][0] != '\0')
		snprintf(reason, sizeof(reason), "Quit: %s", m->params[0]);
	else
		strlcpy(reason, "Client Quit", sizeof(reason));
	reason[message_utf8_trunc(reason, strlen(reason), KICKLEN)] = '\0';
	client_exit(c, reason);
}

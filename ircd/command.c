/*
 * command.c: the command table, sorted by name for bsearch, and the one
 * dispatch path: registration gate, parameter count, operator check and
 * flood penalty happen here so that handlers need not repeat them.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ircd/cap.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conn.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"

/* Flood cost of a command, in ms (a penalty scheme like ngIRCd's). */
#define P_FREE	0
#define P_STD	1000
#define P_HEAVY	2000

/* Sorted by name: command_find() relies on it (checked by the unit test). */
static struct command commands[] = {
	{ "ADMIN",	cmd_admin,	0, CMD_REG,	P_STD, 0 },
	{ "AUTHENTICATE", cmd_authenticate, 1, CMD_ANY, P_FREE, 0 },
	{ "AWAY",	cmd_away,	0, CMD_REG,	P_STD, 0 },
	{ "BATCH",	multiline_batch, 1, CMD_REG,	P_FREE, 0 },
	{ "CAP",	cmd_cap,	1, CMD_ANY,	P_FREE, 0 },
	{ "CHATHISTORY", cmd_chathistory, 3, CMD_REG,	P_STD, 0 },
	{ "DIE",	cmd_die,	0, CMD_REG | CMD_OPER, P_FREE, 0 },
	{ "HELP",	cmd_help,	0, CMD_REG,	P_STD, 0 },
	{ "INFO",	cmd_info,	0, CMD_REG,	P_HEAVY, 0 },
	{ "INVITE",	cmd_invite,	0, CMD_REG,	P_HEAVY, 0 },
	{ "ISON",	cmd_ison,	1, CMD_REG,	P_STD, 0 },
	{ "JOIN",	cmd_join,	1, CMD_REG,	P_STD, 0 },
	{ "KICK",	cmd_kick,	2, CMD_REG,	P_STD, 0 },
	{ "KILL",	cmd_kill,	1, CMD_REG | CMD_OPER, P_FREE, 0 },
	{ "LIST",	cmd_list,	0, CMD_REG,	P_HEAVY, 0 },
	{ "LUSERS",	cmd_lusers,	0, CMD_REG,	P_STD, 0 },
	{ "MODE",	cmd_mode,	1, CMD_REG,	P_STD, 0 },
	{ "MOTD",	cmd_motd,	0, CMD_REG,	P_HEAVY, 0 },
	{ "NAMES",	cmd_names,	0, CMD_REG,	P_STD, 0 },
	{ "NICK",	cmd_nick,	0, CMD_ANY,	P_STD, 0 },
	{ "NOTICE",	cmd_notice,	0, CMD_REG,	P_STD, 0 },
	{ "OPER",	cmd_oper,	2, CMD_REG,	P_HEAVY, 0 },
	{ "PART",	cmd_part,	1, CMD_REG,	P_STD, 0 },
	{ "PASS",	cmd_pass,	1, CMD_UNREG,	P_FREE, 0 },
	{ "PING",	cmd_ping,	0, CMD_ANY,	P_FREE, 0 },
	{ "PONG",	cmd_pong,	0, CMD_ANY,	P_FREE, 0 },
	{ "PRIVMSG",	cmd_privmsg,	0, CMD_REG,	P_STD, 0 },
	{ "QUIT",	cmd_quit,	0, CMD_ANY,	P_FREE, 0 },
	{ "REHASH",	cmd_rehash,	0, CMD_REG | CMD_OPER, P_FREE, 0 },
	{ "SETNAME",	cmd_setname,	1, CMD_REG,	P_HEAVY, 0 },
	{ "TAGMSG",	cmd_tagmsg,	1, CMD_REG,	P_STD, 0 },
	{ "TIME",	cmd_time,	0, CMD_REG,	P_STD, 0 },
	{ "TOPIC",	cmd_topic,	1, CMD_REG,	P_STD, 0 },
	{ "USER",	cmd_user,	4, CMD_UNREG,	P_FREE, 0 },
	{ "USERHOST",	cmd_userhost,	1, CMD_REG,	P_STD, 0 },
	{ "VERSION",	cmd_version,	0, CMD_REG,	P_STD, 0 },
	{ "WALLOPS",	cmd_wallops,	1, CMD_REG | CMD_OPER, P_FREE, 0 },
	{ "WHO",	cmd_who,	0, CMD_REG,	P_STD, 0 },
	{ "WHOIS",	cmd_whois,	0, CMD_REG,	P_STD, 0 },
	{ "WHOWAS",	cmd_whowas,	0, CMD_REG,	P_STD, 0 },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int
command_cmp(const void *key, const void *elem)
{
	return strcasecmp(key, ((const struct command *)elem)->name);
}

const struct command *
command_find(const char *name)
{
	return bsearch(name, commands, NCOMMANDS, sizeof(commands[0]), command_cmp);
}

const struct command *
command_at(unsigned i)
{
	return i < NCOMMANDS ? &commands[i] : NULL;
}

/* The checks every command shares, then the handler. */
static void
command_run(struct client *c, struct command *cmd, struct message *m)
{
	if (cmd == NULL) {
		/* Numerics and unknown words from unregistered clients are ignored. */
		if (c->flags & CLIENT_REGISTERED)
			reply(c, ERR_UNKNOWNCOMMAND, m->cmd);
		else
			reply(c, ERR_NOTREGISTERED);
		return;
	}
	if (!(c->flags & CLIENT_REGISTERED) && !(cmd->flags & CMD_UNREG)) {
		reply(c, ERR_NOTREGISTERED);
		return;
	}
	if ((c->flags & CLIENT_REGISTERED) && !(cmd->flags & CMD_REG)) {
		reply(c, ERR_ALREADYREGISTERED);
		return;
	}
	if (m->nparams < cmd->min) {
		reply(c, ERR_NEEDMOREPARAMS, cmd->name);
		return;
	}
	if ((cmd->flags & CMD_OPER) && !(c->umodes & UMODE_OPER)) {
		reply(c, ERR_NOPRIVILEGES);
		return;
	}
	cmd->count++;
	cmd->handler(c, m);
}

void
command_dispatch(struct client *c, struct message *m)
{
	struct command *cmd;
	char *p;

	for (p = m->cmd; *p != '\0'; p++)
		if (*p >= 'a' && *p <= 'z')
			*p -= 32;
	cmd = bsearch(m->cmd, commands, NCOMMANDS, sizeof(commands[0]), command_cmp);
	/* A multiline batch may come all at once: its lines cost nothing. */
	if (c->conn != NULL && !(c->umodes & UMODE_OPER) && !(c->mlbatch != NULL &&
	    cmd != NULL && (cmd->handler == cmd_privmsg || cmd->handler == cmd_notice)))
		conn_penalty(c->conn, cmd != NULL ? cmd->penalty : P_STD);
	/* Every reply to a labeled command carries the label, errors too. */
	if (c->conn != NULL && (c->caps & CAP_LABELED_RESPONSE) && m->tags != NULL) {
		char label[IRC_LINELEN];
		struct conn *conn = c->conn;	/* c->conn is gone if c quits */

		if (message_tag_get(m->tags, "label", label, sizeof(label)) &&
		    label[0] != '\0' && strlen(label) <= 64) {
			conn_label_begin(conn, label);
			command_run(c, cmd, m);
			conn_label_end(conn);
			return;
		}
	}
	command_run(c, cmd, m);
}

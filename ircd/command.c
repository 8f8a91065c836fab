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

/* labeled-response: a label "MUST NOT exceed 64 bytes"; longer is ignored. */
#define LABEL_MAX	64

/* Flood cost of a command, in ms (a penalty scheme like ngIRCd's). */
#define P_FREE	0
#define P_STD	1000
#define P_HEAVY	2000

/*
 * Sorted by name, as command_find()'s binary search needs (checked by
 * tests/unit/test_command.c). Each row holds what HELP shows of it.
 */
static const struct command commands[] = {
	{ "ADMIN", cmd_admin, 0, CMD_REG, P_STD,
	    "ADMIN [<server>]",
	    { "Shows who runs this server and how to reach them." } },
	{ "AUTHENTICATE", cmd_authenticate, 1, CMD_ANY | CMD_NOHELP, P_FREE,
	    "AUTHENTICATE <mechanism>|<data>|*",
	    { "Client software: a SASL login (PLAIN, EXTERNAL)." } },
	{ "AWAY", cmd_away, 0, CMD_REG, P_STD,
	    "AWAY [:<message>]",
	    { "Marks you away with a message; without one, back again." } },
	{ "BATCH", multiline_batch, 1, CMD_REG | CMD_NOHELP, P_FREE,
	    "BATCH +<ref> draft/multiline <target> | BATCH -<ref>",
	    { "Client software: opens and closes a multiline message." } },
	{ "CAP", cmd_cap, 1, CMD_ANY, P_FREE,
	    "CAP LS|LIST|REQ|END [...]",
	    { "Negotiates IRCv3 capabilities before or after registration." } },
	{ "CHATHISTORY", cmd_chathistory, 3, CMD_REG | CMD_NOHELP, P_STD,
	    "CHATHISTORY LATEST|BEFORE|AFTER|AROUND|BETWEEN|TARGETS ...",
	    { "Client software: fetches stored messages." } },
	{ "CONNECT", cmd_connect, 1, CMD_REG | CMD_OPER, P_FREE,
	    "CONNECT <server>",
	    { "Operators only: connects the [link] of that name now." } },
	{ "DIE", cmd_die, 0, CMD_REG | CMD_OPER, P_FREE,
	    "DIE",
	    { "Operators only: stops the server." } },
	{ "DROP", cmd_drop, 1, CMD_REG, P_HEAVY,
	    "DROP <channel>",
	    { "Channel operators: ends a channel nobody else is in; its",
	      "history, modes, bans and operators go (agents leave)." } },
	{ "HELP", cmd_help, 0, CMD_REG, P_STD,
	    "HELP [<subject>]",
	    { "Shows help on a command, or the list of commands." } },
	{ "INFO", cmd_info, 0, CMD_REG, P_HEAVY,
	    "INFO",
	    { "Shows what this server is and when it started." } },
	{ "INVITE", cmd_invite, 0, CMD_REG, P_HEAVY,
	    "INVITE [<nick> <channel>]",
	    { "Invites a user to a channel; needed for +i channels.",
	      "Alone, lists the channels you are invited to." } },
	{ "ISON", cmd_ison, 1, CMD_REG, P_STD,
	    "ISON <nick> [<nick> ...]",
	    { "Tells which of the nicks are online." } },
	{ "JOIN", cmd_join, 1, CMD_REG, P_STD,
	    "JOIN <channel>{,<channel>} [<key>{,<key>}]",
	    { "Joins channels, creating them if needed.",
	      "JOIN 0 leaves every channel." } },
	{ "KICK", cmd_kick, 2, CMD_REG, P_STD,
	    "KICK <channel> <nick>{,<nick>} [:<reason>]",
	    { "Channel operators: removes users from a channel." } },
	{ "KILL", cmd_kill, 1, CMD_REG | CMD_OPER, P_FREE,
	    "KILL <nick> :<reason>",
	    { "Operators only: disconnects a user." } },
	{ "LINKS", cmd_links, 0, CMD_REG, P_STD,
	    "LINKS [[<server>] <mask>]",
	    { "Lists the servers of the network (matching mask) and",
	      "the server each is linked through." } },
	{ "LIST", cmd_list, 0, CMD_REG, P_HEAVY,
	    "LIST [<channel>{,<channel>}] [<elist>]",
	    { "Lists channels; filters: >n <n users, C>m C<m created,",
	      "T>m T<m topic age (minutes), and masks." } },
	{ "LUSERS", cmd_lusers, 0, CMD_REG, P_STD,
	    "LUSERS",
	    { "Shows how many users, operators and channels there are." } },
	{ "MARKREAD", cmd_markread, 0, CMD_REG | CMD_NOHELP, P_STD,
	    "MARKREAD <target> [timestamp=<time>]",
	    { "Client software: where you have read up to in a channel or",
	      "private conversation, shared by all your clients." } },
	{ "MODE", cmd_mode, 1, CMD_REG, P_STD,
	    "MODE <nick> [+|-]iwB",
	    { "MODE <channel> [+|-]ntmsiCklbeIov [<args>...]",
	      "Shows or changes modes. +e ban and +I invite exceptions, +C",
	      "no CTCP but ACTION; extbans R:<account>, m:<mask> (mute)." } },
	{ "MONITOR", cmd_monitor, 1, CMD_REG, P_STD,
	    "MONITOR +|- <nick>{,<nick>} | MONITOR C|L|S",
	    { "Tells you when the nicks you watch come online or leave;",
	      "C clears your list, L shows it, S shows who is online." } },
	{ "MOTD", cmd_motd, 0, CMD_REG, P_HEAVY,
	    "MOTD",
	    { "Shows the message of the day." } },
	{ "NAMES", cmd_names, 0, CMD_REG, P_STD,
	    "NAMES [<channel>{,<channel>}]",
	    { "Lists the visible members of channels." } },
	{ "NICK", cmd_nick, 0, CMD_ANY, P_STD,
	    "NICK <nick>",
	    { "Sets or changes your nickname." } },
	{ "NOTICE", cmd_notice, 0, CMD_REG, P_STD,
	    "NOTICE <target>{,<target>} :<text>",
	    { "Like PRIVMSG, but never answered automatically." } },
	{ "OPER", cmd_oper, 2, CMD_REG, P_HEAVY,
	    "OPER <name> <password>",
	    { "Makes you an IRC operator with a block from the config." } },
	{ "PART", cmd_part, 1, CMD_REG, P_STD,
	    "PART <channel>{,<channel>} [:<reason>]",
	    { "Leaves channels." } },
	{ "PASS", cmd_pass, 1, CMD_UNREG, P_FREE,
	    "PASS <password>",
	    { "Gives the connection password, before NICK and USER." } },
	{ "PING", cmd_ping, 0, CMD_ANY, P_FREE,
	    "PING <token>",
	    { "Asks the server for a PONG with the same token." } },
	{ "PONG", cmd_pong, 0, CMD_ANY, P_FREE,
	    "PONG <token>",
	    { "Answers a PING from the server." } },
	{ "PRIVMSG", cmd_privmsg, 0, CMD_REG, P_STD,
	    "PRIVMSG <target>{,<target>} :<text>",
	    { "Sends a message to channels or users." } },
	{ "QUIT", cmd_quit, 0, CMD_ANY, P_FREE,
	    "QUIT [:<reason>]",
	    { "Leaves the server." } },
	{ "REDACT", cmd_redact, 2, CMD_REG, P_STD,
	    "REDACT <target> <msgid> [:<reason>]",
	    { "Deletes a message: your own, one in a channel you operate,",
	      "or (operators) any. It is gone from the history too." } },
	{ "REHASH", cmd_rehash, 0, CMD_REG | CMD_OPER, P_FREE,
	    "REHASH",
	    { "Operators only: reloads the configuration file." } },
	{ "SETNAME", cmd_setname, 1, CMD_REG, P_HEAVY,
	    "SETNAME :<realname>",
	    { "Changes your real name." } },
	{ "SQUIT", cmd_squit, 1, CMD_REG | CMD_OPER, P_FREE,
	    "SQUIT <server> [:<reason>]",
	    { "Operators only: ends the link to a server; its users quit.",
	      "A server behind a link is asked to go by an RSQUIT." } },
	{ "TAGMSG", cmd_tagmsg, 1, CMD_REG | CMD_NOHELP, P_STD,
	    "TAGMSG <target>{,<target>}",
	    { "Client software: sends tags alone (typing, reactions)." } },
	{ "TIME", cmd_time, 0, CMD_REG, P_STD,
	    "TIME",
	    { "Shows the server's local time." } },
	{ "TOPIC", cmd_topic, 1, CMD_REG, P_STD,
	    "TOPIC <channel> [:<topic>]",
	    { "Shows or sets a channel topic; an empty topic clears it." } },
	{ "USER", cmd_user, 4, CMD_UNREG, P_FREE,
	    "USER <username> 0 * :<realname>",
	    { "Gives your username and real name at registration." } },
	{ "USERHOST", cmd_userhost, 1, CMD_REG, P_STD,
	    "USERHOST <nick> [<nick> ...]",
	    { "Shows user@host of up to 5 nicks (* oper, - away)." } },
	{ "VERSION", cmd_version, 0, CMD_REG, P_STD,
	    "VERSION",
	    { "Shows the server version and its ISUPPORT tokens." } },
	{ "WALLOPS", cmd_wallops, 1, CMD_REG | CMD_OPER, P_FREE,
	    "WALLOPS :<text>",
	    { "Operators only: sends text to every user with mode +w." } },
	{ "WHO", cmd_who, 0, CMD_REG, P_STD,
	    "WHO <mask>|<channel> [o][%<fields>[,<token>]]",
	    { "Lists users matching a mask or in a channel; o: operators",
	      "only; %fields asks for a WHOX (354) reply." } },
	{ "WHOIS", cmd_whois, 0, CMD_REG, P_STD,
	    "WHOIS [<server>] <nick>{,<nick>}",
	    { "Shows everything public about users." } },
	{ "WHOWAS", cmd_whowas, 0, CMD_REG, P_STD,
	    "WHOWAS <nick> [<count>]",
	    { "Shows who recently used a nick." } },
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
	return bsearch(name, commands, NCOMMANDS, sizeof(commands[0]),
	    command_cmp);
}

const struct command *
command_at(size_t i)
{
	return i < NCOMMANDS ? &commands[i] : NULL;
}

/* Command words are ASCII; the table spells them in capitals. */
static void
command_upcase(char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

/*
 * SEC-7, M8: so many commands an unregistered client may get 451 for;
 * the next one closes it. A real client sends a few at most (a numeric,
 * a command sent too early); another protocol's talk sends many.
 */
#define COMMAND_UNREG_ERRORS	4

/*
 * SEC-7, M8: an HTTP request's first word. A web page can make a browser
 * POST to any port; its body would be IRC lines. None is an IRC command.
 */
static int
command_is_http(const char *word)
{
	static const char *const methods[] = {
		"GET", "POST", "PUT", "HEAD", "OPTIONS", "CONNECT", NULL
	};
	size_t i;

	for (i = 0; methods[i] != NULL; i++)
		if (strcmp(word, methods[i]) == 0)
			return 1;
	return 0;
}

/* 451 to an unregistered client, which is closed past a few (SEC-7). */
static void
command_unregistered(struct client *c)
{
	if (c->unreg_errors++ >= COMMAND_UNREG_ERRORS) {
		client_exit(c, "Too many commands before registration");
		return;
	}
	reply(c, ERR_NOTREGISTERED);
}

/* The checks every command shares, then the handler. */
static void
command_run(struct client *c, const struct command *cmd, struct message *m)
{
	if (!(c->flags & CLIENT_REGISTERED) && command_is_http(m->cmd)) {
		client_exit(c, "This is an IRC server, not a web server");
		return;
	}
	if (cmd == NULL) {
		/* Unregistered clients' numerics and unknown words: 451. */
		if (c->flags & CLIENT_REGISTERED)
			reply(c, ERR_UNKNOWNCOMMAND, m->cmd);
		else
			command_unregistered(c);
		return;
	}
	if (!(c->flags & CLIENT_REGISTERED) && !(cmd->flags & CMD_UNREG)) {
		command_unregistered(c);
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
	cmd->handler(c, m);
}

void
command_dispatch(struct client *c, struct message *m)
{
	const struct command *cmd;

	command_upcase(m->cmd);
	cmd = command_find(m->cmd);
	/* A multiline batch may come all at once: its lines cost nothing. */
	if (c->conn != NULL && !(c->umodes & UMODE_OPER) &&
	    !(c->mlbatch != NULL && cmd != NULL &&
	    (cmd->handler == cmd_privmsg || cmd->handler == cmd_notice)))
		conn_penalty(c->conn, cmd != NULL ? cmd->penalty : P_STD);
	/* Every reply to a labeled command carries the label, errors too. */
	if (c->conn != NULL && (c->caps & CAP_LABELED_RESPONSE) &&
	    m->tags != NULL) {
		char label[IRC_LINELEN];
		struct conn *conn = c->conn;	/* c->conn is gone if c quits */

		if (message_tag_get(m->tags, "label", label, sizeof(label)) &&
		    label[0] != '\0' && strlen(label) <= LABEL_MAX) {
			conn_label_begin(conn, label);
			command_run(c, cmd, m);
			conn_label_end(conn);
			return;
		}
	}
	command_run(c, cmd, m);
}

/*
 * cmd-message.c: PRIVMSG and NOTICE to channels (with STATUSMSG
 * prefixes) and users. The line is rendered once and shared by every
 * recipient; NOTICE never draws an error reply (RFC 1459 4.4.2).
 */
#include "compat.h"

#include <string.h>
#include <time.h>

#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"

static void
message_to_channel(struct client *c, struct outmsg *om, const char *name,
    int notice)
{
	struct channel *ch;
	struct member *mb;
	unsigned need = 0;
	int err;

	/* STATUSMSG: "@#chan" reaches operators, "+#chan" voiced and above. */
	if (name[0] == '@')
		need = MEMBER_OP;
	else if (name[0] == '+')
		need = MEMBER_OP | MEMBER_VOICE;
	if (need != 0)
		name++;
	if ((ch = channel_find(name)) == NULL) {
		if (!notice)
			reply(c, ERR_NOSUCHNICK, name);
		return;
	}
	if ((err = channel_can_send(ch, c)) != 0) {
		if (!notice)
			reply(c, err, ch->name);
		return;
	}
	outmsg_render(om);
	TAILQ_FOREACH(mb, &ch->members, by_channel) {
		if (mb->client == c)
			continue;
		if (need != 0 && !(mb->modes & need))
			continue;
		mb->client->ops->deliver(mb->client, om);
	}
}

static void
message_to_user(struct client *c, struct outmsg *om, const char *nick, int notice)
{
	struct client *to = client_find(nick);

	if (to == NULL) {
		if (!notice)
			reply(c, ERR_NOSUCHNICK, nick);
		return;
	}
	outmsg_render(om);
	to->ops->deliver(to, om);
	if (!notice && to->away != NULL)
		reply(c, RPL_AWAY, to->nick, to->away);
}

static void
message_send(struct client *c, struct message *m, const char *cmd, int notice)
{
	char targets[IRC_LINELEN], *t, *next;
	const char *seen[64];
	int ntargets = 0, i, dup;
	struct outmsg om;

	if (m->nparams < 1 || m->params[0][0] == '\0') {
		if (!notice)
			reply(c, ERR_NORECIPIENT, cmd);
		return;
	}
	if (m->nparams < 2 || m->params[1][0] == '\0') {
		if (!notice)
			reply(c, ERR_NOTEXTTOSEND);
		return;
	}
	strlcpy(targets, m->params[0], sizeof(targets));
	/* Count first: too many targets delivers to none, never to some. */
	for (t = targets, i = 1; *t != '\0'; t++)
		if (*t == ',')
			i++;
	if (i > ircd.conf->max_targets) {
		if (!notice)
			reply(c, ERR_TOOMANYTARGETS, m->params[0], ircd.conf->max_targets);
		return;
	}
	if (!notice)
		c->idle = time(NULL);
	for (t = targets; t != NULL; t = next) {
		if ((next = strchr(t, ',')) != NULL)
			*next++ = '\0';
		if (*t == '\0')
			continue;
		for (i = 0, dup = 0; i < ntargets; i++)
			if (casemap_cmp(seen[i], t) == 0)
				dup = 1;
		if (dup)
			continue;
		if (ntargets < (int)(sizeof(seen) / sizeof(seen[0])))
			seen[ntargets++] = t;
		memset(&om, 0, sizeof(om));
		om.from = c;
		om.cmd = cmd;
		om.target = t;
		om.text = m->params[1];
		if (casemap_is_channel(t) ||
		    ((t[0] == '@' || t[0] == '+') && casemap_is_channel(t + 1)))
			message_to_channel(c, &om, t, notice);
		else
			message_to_user(c, &om, t, notice);
	}
}

void
cmd_privmsg(struct client *c, struct message *m)
{
	message_send(c, m, "PRIVMSG", 0);
}

void
cmd_notice(struct client *c, struct message *m)
{
	message_send(c, m, "NOTICE", 1);
}

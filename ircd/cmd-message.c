/*
 * cmd-message.c: PRIVMSG, NOTICE and TAGMSG to channels (with STATUSMSG
 * prefixes) and users. Each is rendered once with one msgid and time,
 * shared by every recipient and the sender's echo; NOTICE never draws an
 * error reply (RFC 1459 4.4.2).
 */
#include "compat.h"

#include <string.h>
#include <time.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"

/* Client-only tags may carry at most this much (message-tags spec). */
#define CLIENT_TAGS_MAX	4094

enum kind { K_PRIVMSG, K_NOTICE, K_TAGMSG };

static void
message_echo(struct client *c, struct outmsg *om)
{
	if (c->caps & CAP_ECHO_MESSAGE)
		c->ops->deliver(c, om);
}

static void
message_to_channel(struct client *c, struct outmsg *om, const char *name,
    int quiet)
{
	struct channel *ch;
	struct member_filter f;
	const char *why;
	unsigned need = 0;

	/* STATUSMSG: "@#chan" reaches operators, "+#chan" voiced and above. */
	if (name[0] == '@')
		need = MEMBER_OP;
	else if (name[0] == '+')
		need = MEMBER_OP | MEMBER_VOICE;
	if ((ch = channel_find(need != 0 ? name + 1 : name)) == NULL) {
		if (!quiet)
			reply(c, ERR_NOSUCHNICK, name);
		return;
	}
	why = channel_cannot_send(ch, c);
	if (why == NULL && (ch->modes & CMODE_NOCTCP) &&
	    message_is_ctcp(om->text))
		why = "Cannot send CTCP to channel (+C)";
	if (why != NULL) {
		if (!quiet)
			reply(c, ERR_CANNOTSENDTOCHAN, ch->name, why);
		return;
	}
	outmsg_render(om);
	/* Stored before relayed: what anyone saw is on disk (HS-2). */
	if (history_add_channel(c, ch, om) == -1)
		return;
	memset(&f, 0, sizeof(f));
	f.except = c;
	f.modes = need;
	channel_relay(ch, &f, om);
	message_echo(c, om);
	/* Stored and relayed: now the hooks (the agents' routing, RT). */
	if (need == 0 && strcmp(om->cmd, "PRIVMSG") == 0)
		hook_channel_message(c, ch, om);
}

static void
message_to_user(struct client *c, struct outmsg *om, const char *nick,
    enum kind kind)
{
	struct client *to = client_find(nick);

	if (to == NULL) {
		if (kind != K_NOTICE)
			reply(c, ERR_NOSUCHNICK, nick);
		return;
	}
	outmsg_render(om);
	if (history_add_private(c, to, om) == -1)
		return;
	to->ops->deliver(to, om);
	/*
	 * Echoed before the service hears it: an agent's answer (its typing
	 * notice is sent at once) must not reach the sender before the
	 * sender's own line, as in a channel.
	 */
	if (to != c)
		message_echo(c, om);
	if (to->ops->message != NULL)
		to->ops->message(to, c, om);
	if (kind == K_PRIVMSG && to->away != NULL)
		reply(c, RPL_AWAY, to->nick, to->away);
}

/*
 * Is client-only tag key (without '+') denied by CLIENTTAGDENY? The list
 * is read in order: "*" denies all, "name" denies one, "-name" allows it.
 */
static int
message_tag_denied(const char *key, size_t klen)
{
	const char *p = ircd.conf->client_tag_deny;
	int denied = 0;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

		if (len == 1 && p[0] == '*')
			denied = 1;
		else if (p[0] == '-' && len - 1 == klen && strncmp(p + 1, key, klen) == 0)
			denied = 0;
		else if (len == klen && strncmp(p, key, klen) == 0)
			denied = 1;
		p = end != NULL ? end + 1 : NULL;
	}
	return denied;
}

/* Keep the client-only (+) tags of the sender for relaying. */
static int
message_client_tags(const char *tags, char *out, size_t size)
{
	const char *p = tags;
	size_t n = 0, total = 0;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ';');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

		size_t klen = strcspn(p, "=;");

		if (p[0] == '+' && !message_tag_denied(p + 1, klen - 1)) {
			total += len + 1;
			if (total > CLIENT_TAGS_MAX + 1 || n + len + 2 > size)
				return -1;
			if (n > 0)
				out[n++] = ';';
			memcpy(out + n, p, len);
			n += len;
			out[n] = '\0';
		}
		p = end != NULL ? end + 1 : NULL;
	}
	return 0;
}

static void
message_send(struct client *c, struct message *m, const char *cmd, enum kind kind)
{
	char targets[IRC_LINELEN], *t, *next, ctags[CLIENT_TAGS_MAX + 2];
	const char *seen[64];
	int ntargets = 0, i, dup, quiet = kind == K_NOTICE;
	struct outmsg om;

	/* A line of a draft/multiline batch waits for the batch's end. */
	if (kind != K_TAGMSG && m->tags != NULL && c->mlbatch != NULL &&
	    multiline_take(c, m, cmd))
		return;
	if (m->nparams < 1 || m->params[0][0] == '\0') {
		if (!quiet)
			reply(c, ERR_NORECIPIENT, cmd);
		return;
	}
	if (kind != K_TAGMSG && (m->nparams < 2 || m->params[1][0] == '\0')) {
		if (!quiet)
			reply(c, ERR_NOTEXTTOSEND);
		return;
	}
	if (message_client_tags((c->caps & CAP_MESSAGE_TAGS) ? m->tags : NULL,
	    ctags, sizeof(ctags)) == -1) {
		reply(c, ERR_INPUTTOOLONG);
		return;
	}
	strlcpy(targets, m->params[0], sizeof(targets));
	/* Count first: too many targets delivers to none, never to some. */
	for (t = targets, i = 1; *t != '\0'; t++)
		if (*t == ',')
			i++;
	if (i > ircd.conf->max_targets) {
		if (!quiet)
			reply(c, ERR_TOOMANYTARGETS, m->params[0], ircd.conf->max_targets);
		return;
	}
	if (kind == K_PRIVMSG)
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
		om.text = kind == K_TAGMSG ? NULL : m->params[1];
		om.ctags = ctags;
		om.tagmsg = kind == K_TAGMSG;
		om.net_msgid = m->msgid;
		om.net_time_ms = m->time_ms;
		if (casemap_is_channel(t) ||
		    ((t[0] == '@' || t[0] == '+') && casemap_is_channel(t + 1)))
			message_to_channel(c, &om, t, quiet);
		else
			message_to_user(c, &om, t, kind);
	}
}

void
cmd_privmsg(struct client *c, struct message *m)
{
	message_send(c, m, "PRIVMSG", K_PRIVMSG);
}

void
cmd_notice(struct client *c, struct message *m)
{
	message_send(c, m, "NOTICE", K_NOTICE);
}

void
cmd_tagmsg(struct client *c, struct message *m)
{
	message_send(c, m, "TAGMSG", K_TAGMSG);
}

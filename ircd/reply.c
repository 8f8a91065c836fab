/*
 * reply.c: numerics, server notices and standard replies, formatted from
 * the one table in numeric.c.
 */
#include "compat.h"

#include <stdarg.h>
#include <stdio.h>

#include "ircd/cap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"

void
reply(struct client *c, int num, ...)
{
	char buf[IRC_LINELEN * 2];
	const char *fmt = numeric_format(num);
	va_list ap;
	int n, m;

	if (fmt == NULL) {
		log_warnx("reply: no format for numeric %d", num);
		return;
	}
	n = snprintf(buf, sizeof(buf), ":%s %03d %s ", ircd.conf->name, num,
	    client_name(c));
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	va_start(ap, num);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
#pragma GCC diagnostic pop
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	client_sendn(c, buf, (size_t)n);
}

void
reply_notice(struct client *c, const char *fmt, ...)
{
	char text[IRC_LINELEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	client_send(c, ":%s NOTICE %s :%s", ircd.conf->name, client_name(c), text);
}

void
reply_opers(const char *fmt, ...)
{
	char text[IRC_LINELEN];
	struct client *c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	TAILQ_FOREACH(c, &ircd.all, entry)
		if ((c->flags & CLIENT_REGISTERED) && client_is_oper(c))
			reply_notice(c, "*** %s", text);
}

void
reply_notice_in(struct client *c, const char *where, const char *fmt, ...)
{
	char text[IRC_LINELEN], ctx[CHANNELLEN * 2 + 1];
	struct channel *ch;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* To c alone, like any reply: not relayed to the channel, not stored. */
	if (where != NULL && (ch = channel_find(where)) != NULL) {
		if (channel_member(ch, c) != NULL) {
			client_send(c, ":%s NOTICE %s :%s", ircd.conf->name,
			    ch->name, text);
			return;
		}
		if (c->caps & CAP_MESSAGE_TAGS) {
			message_tag_escape(ctx, sizeof(ctx), ch->name);
			client_send(c, "@+draft/channel-context=%s :%s NOTICE "
			    "%s :%s", ctx, ircd.conf->name, client_name(c), text);
			return;
		}
	}
	client_send(c, ":%s NOTICE %s :%s", ircd.conf->name, client_name(c),
	    text);
}

void
reply_fail(struct client *c, const char *cmd, const char *code,
    const char *context, const char *text)
{
	if (context != NULL)
		client_send(c, ":%s FAIL %s %s %s :%s", ircd.conf->name, cmd, code,
		    context, text);
	else
		client_send(c, ":%s FAIL %s %s :%s", ircd.conf->name, cmd, code, text);
}

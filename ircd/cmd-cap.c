/*
 * cmd-cap.c: the CAP command. Registration waits for CAP END once a
 * client has sent CAP LS or CAP REQ; a request is applied whole or not
 * at all; 302 clients get values and cap-notify implicitly.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ircd/account.h"
#include "ircd/cap.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/message.h"
#include "ircd/reply.h"

#define ERR_INVALIDCAPCMD	410

struct cap {
	const char	*name;
	unsigned	 bit;
	unsigned	 needs;		/* caps that must be enabled too */
	const char	*(*value)(void);	/* 302 value, or NULL */
	int		 (*offered)(void);	/* NULL: always offered */
};

static const char *
cap_sasl_value(void)
{
	return "PLAIN,EXTERNAL";
}

static const char *
cap_multiline_value(void)
{
	static char v[64];

	snprintf(v, sizeof(v), "max-bytes=%d,max-lines=%d", MULTILINE_MAX_BYTES,
	    MULTILINE_MAX_LINES);
	return v;
}

/* Only what the server really does is offered. */
static const struct cap caps[] = {
	{ "account-notify",	CAP_ACCOUNT_NOTIFY,	0, NULL, NULL },
	{ "account-tag",	CAP_ACCOUNT_TAG,	0, NULL, NULL },
	{ "away-notify",	CAP_AWAY_NOTIFY,	0, NULL, NULL },
	{ "batch",		CAP_BATCH,		0, NULL, NULL },
	{ "cap-notify",		CAP_CAP_NOTIFY,		0, NULL, NULL },
	{ "chghost",		CAP_CHGHOST,		0, NULL, NULL },
	{ "draft/chathistory",	CAP_CHATHISTORY,	0, NULL, NULL },
	{ "draft/message-redaction", CAP_REDACTION,	0, NULL, NULL },
	{ "draft/multiline",	CAP_MULTILINE,		CAP_BATCH, cap_multiline_value, NULL },
	{ "draft/read-marker",	CAP_READ_MARKER,	0, NULL, NULL },
	{ "echo-message",	CAP_ECHO_MESSAGE,	0, NULL, NULL },
	{ "extended-join",	CAP_EXTENDED_JOIN,	0, NULL, NULL },
	{ "extended-monitor",	CAP_EXTENDED_MONITOR,	0, NULL, NULL },
	{ "invite-notify",	CAP_INVITE_NOTIFY,	0, NULL, NULL },
	{ "labeled-response",	CAP_LABELED_RESPONSE,	CAP_BATCH, NULL, NULL },
	{ "message-tags",	CAP_MESSAGE_TAGS,	0, NULL, NULL },
	{ "multi-prefix",	CAP_MULTI_PREFIX,	0, NULL, NULL },
	{ "sasl",		CAP_SASL,		0, cap_sasl_value, account_any },
	{ "server-time",	CAP_SERVER_TIME,	0, NULL, NULL },
	{ "setname",		CAP_SETNAME,		0, NULL, NULL },
	{ "userhost-in-names",	CAP_USERHOST_IN_NAMES,	0, NULL, NULL },
};
#define NCAPS (sizeof(caps) / sizeof(caps[0]))

static const struct cap *
cap_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCAPS; i++)
		if (strcmp(caps[i].name, name) == 0 &&
		    (caps[i].offered == NULL || caps[i].offered()))
			return &caps[i];
	return NULL;
}

unsigned
cap_offered(void)
{
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < NCAPS; i++)
		if (caps[i].offered == NULL || caps[i].offered())
			bits |= caps[i].bit;
	return bits;
}

void
cap_names(unsigned bits, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < NCAPS; i++) {
		if (!(bits & caps[i].bit))
			continue;
		if (buf[0] != '\0')
			strlcat(buf, " ", len);
		strlcat(buf, caps[i].name, len);
	}
}

/*
 * Send a cap list, split over several lines when long: every line but
 * the last carries "*" (302 clients only; others get one line).
 */
static void
cap_send_list(struct client *c, const char *sub, unsigned bits, int values)
{
	char line[400] = "", word[64];
	size_t i;

	for (i = 0; i < NCAPS; i++) {
		if (!(bits & caps[i].bit))
			continue;
		if (values && caps[i].value != NULL)
			snprintf(word, sizeof(word), "%s=%s", caps[i].name,
			    caps[i].value());
		else
			snprintf(word, sizeof(word), "%s", caps[i].name);
		if ((c->flags & CLIENT_CAP_302) &&
		    strlen(line) + strlen(word) + 1 > 300) {
			client_send(c, ":%s CAP %s %s * :%s", ircd.conf->name,
			    client_name(c), sub, line);
			line[0] = '\0';
		}
		if (line[0] != '\0')
			strlcat(line, " ", sizeof(line));
		strlcat(line, word, sizeof(line));
	}
	client_send(c, ":%s CAP %s %s :%s", ircd.conf->name, client_name(c), sub,
	    line);
}

void
cap_notify_change(unsigned before, unsigned after)
{
	struct client *c;

	TAILQ_FOREACH(c, &ircd.all, entry) {
		if (!(c->caps & CAP_CAP_NOTIFY))
			continue;
		if (after & ~before)
			cap_send_list(c, "NEW", after & ~before,
			    (c->flags & CLIENT_CAP_302) != 0);
		if (before & ~after) {
			cap_send_list(c, "DEL", before & ~after, 0);
			c->caps &= ~(before & ~after);
		}
	}
}

static void
cap_req(struct client *c, const char *list)
{
	char buf[IRC_LINELEN], *w, *save = NULL;
	unsigned add = 0, del = 0, result;
	const struct cap *cp;

	strlcpy(buf, list, sizeof(buf));
	for (w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		int minus = w[0] == '-';

		if ((cp = cap_find(w + minus)) == NULL)
			goto nak;
		if (minus) {
			/* cap-notify is implicit for 302 clients: it cannot go. */
			if (cp->bit == CAP_CAP_NOTIFY && (c->flags & CLIENT_CAP_302))
				goto nak;
			del |= cp->bit;
		} else
			add |= cp->bit;
	}
	result = (c->caps | add) & ~del;
	/* Every enabled cap must have what it depends on. */
	for (cp = caps; cp < caps + NCAPS; cp++)
		if ((result & cp->bit) && (result & cp->needs) != cp->needs)
			goto nak;
	c->caps = result;
	client_send(c, ":%s CAP %s ACK :%s", ircd.conf->name, client_name(c), list);
	return;
nak:
	client_send(c, ":%s CAP %s NAK :%s", ircd.conf->name, client_name(c), list);
}

void
cmd_cap(struct client *c, struct message *m)
{
	const char *sub = m->params[0];

	if (strcasecmp(sub, "LS") == 0) {
		if (!(c->flags & CLIENT_REGISTERED))
			c->flags |= CLIENT_CAP_NEGOTIATING;
		int v = m->nparams > 1 ? atoi(m->params[1]) : 0;

		/* Only "302 or later" matters, and it stays once seen. */
		if (v >= 302)
			c->flags |= CLIENT_CAP_302;
		if (c->flags & CLIENT_CAP_302)
			c->caps |= CAP_CAP_NOTIFY;
		/* Values only when this LS asks for 302; the version stays. */
		cap_send_list(c, "LS", cap_offered(), v >= 302);
	} else if (strcasecmp(sub, "LIST") == 0) {
		cap_send_list(c, "LIST", c->caps, 0);
	} else if (strcasecmp(sub, "REQ") == 0) {
		if (!(c->flags & CLIENT_REGISTERED))
			c->flags |= CLIENT_CAP_NEGOTIATING;
		cap_req(c, m->nparams > 1 ? m->params[1] : "");
	} else if (strcasecmp(sub, "END") == 0) {
		if (c->flags & CLIENT_REGISTERED)
			return;
		c->flags &= ~CLIENT_CAP_NEGOTIATING;
		register_try(c);
	} else
		client_send(c, ":%s %d %s %s :Invalid CAP command", ircd.conf->name,
		    ERR_INVALIDCAPCMD, client_name(c), sub);
}

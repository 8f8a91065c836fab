/*
 * cmd-query.c: the commands that ask the server about users and itself:
 * WHO (and WHOX), WHOIS, WHOWAS, AWAY, ISON, USERHOST, LUSERS, MOTD,
 * VERSION, TIME, INFO, HELP, ADMIN, SETNAME.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/message.h"
#include "ircd/monitor.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/whowas.h"
#include "ircd/xmalloc.h"

#define USERHOST_MAX	5	/* nicks per USERHOST (RFC 2812) */
#define WHOX_TOKENLEN	3	/* WHOX query types are at most 3 digits */

static const char *
server_name(void)
{
	return ircd.conf->name;
}

static const char *
server_info(void)
{
	return ircd.conf->info != NULL ? ircd.conf->info : "agentircd";
}

/*
 * Bytes left for the last parameter of a numeric to c, after
 * ":server NNN nick " and extra bytes of other parameters, so replies
 * built from lists never pass the 512-byte line.
 */
static size_t
reply_room(const struct client *c, size_t extra)
{
	size_t used;

	used = 1 + strlen(server_name()) + 5 + strlen(client_name(c)) + 1 +
	    extra + 2 /* " :" or ":" */ + 2 /* CRLF */;
	return used < IRC_LINELEN ? IRC_LINELEN - used : 0;
}

/* Do a and b share a channel? Walks the shorter membership list. */
static int
shares_channel(const struct client *a, const struct client *b)
{
	const struct member *m;

	if (a == b)
		return 1;
	if (a->nchannels > b->nchannels) {
		const struct client *t = a;

		a = b;
		b = t;
	}
	TAILQ_FOREACH(m, &a->channels, by_client)
		if (channel_member(m->channel, b) != NULL)
			return 1;
	return 0;
}

/*
 * Does the server parameter of WHOIS/ADMIN/... name us? A nick is
 * accepted too: "WHOIS nick nick" is how clients ask for idle times.
 */
static int
target_is_us(const char *s)
{
	return casemap_match(s, server_name()) || client_find(s) != NULL;
}

static int
has_wildcards(const char *s)
{
	return strpbrk(s, "*?") != NULL;
}

/* ---- WHO ---- */

struct who_query {
	int	 opers_only;		/* flag o */
	int	 whox;			/* %fields given */
	char	 fields[16];		/* WHOX field letters asked for */
	char	 token[WHOX_TOKENLEN + 1];
};

static void
who_parse_options(struct who_query *q, const char *opt)
{
	const char *p, *comma;
	size_t i, n = 0;

	memset(q, 0, sizeof(*q));
	if (opt == NULL)
		return;
	for (p = opt; *p != '\0' && *p != '%'; p++)
		if (*p == 'o')
			q->opers_only = 1;
	if (*p != '%')
		return;
	q->whox = 1;
	p++;
	comma = strchr(p, ',');
	for (; *p != '\0' && p != comma; p++)
		if (strchr("tcuihsnfdlaor", *p) != NULL &&
		    strchr(q->fields, *p) == NULL && n < sizeof(q->fields) - 1)
			q->fields[n++] = *p;
	q->fields[n] = '\0';
	/* No known field: an empty 354 says nothing, so answer with 352. */
	if (n == 0)
		q->whox = 0;
	/* The token comes back verbatim, so only digits may pass. */
	if (comma != NULL) {
		for (i = 0, p = comma + 1; *p >= '0' && *p <= '9' &&
		    i < WHOX_TOKENLEN; p++)
			q->token[i++] = *p;
		q->token[i] = '\0';
	}
	if (q->token[0] == '\0')
		strlcpy(q->token, "0", sizeof(q->token));
}

/* The H|G[*][@|+][B] flags of a WHO reply; m is the membership shown, if any. */
static void
who_flags(char *buf, size_t size, const struct client *viewer,
    const struct client *t, const struct member *m)
{
	snprintf(buf, size, "%c%s%s%s", t->away != NULL ? 'G' : 'H',
	    client_shows_oper(t) ? "*" : "",
	    m != NULL ? channel_prefix(m, (viewer->caps & CAP_MULTI_PREFIX) != 0) : "",
	    (t->umodes & UMODE_BOT) ? "B" : "");
}

static void
who_append(char *buf, size_t size, const char *s)
{
	if (buf[0] != '\0')
		strlcat(buf, " ", size);
	strlcat(buf, s, size);
}

static void
who_send(struct client *c, const struct who_query *q, struct client *t,
    const struct channel *ch, const struct member *m)
{
	char flags[8], buf[IRC_LINELEN], num[32];
	const char *chname = ch != NULL ? ch->name : "*";
	const char *f;
	long long idle;

	who_flags(flags, sizeof(flags), c, t, m);
	if (!q->whox) {
		reply(c, RPL_WHOREPLY, chname, t->user, t->host,
		    client_server(t, NULL), t->nick, flags, t->realname);
		return;
	}
	buf[0] = '\0';
	/* WHOX fields always go out in this order, whatever the request's. */
	for (f = "tcuihsnfdlaor"; *f != '\0'; f++) {
		if (strchr(q->fields, *f) == NULL)
			continue;
		switch (*f) {
		case 't':
			who_append(buf, sizeof(buf), q->token);
			break;
		case 'c':
			who_append(buf, sizeof(buf), chname);
			break;
		case 'u':
			who_append(buf, sizeof(buf), t->user);
			break;
		case 'i':
			/* Addresses are for operators and the user alone. */
			who_append(buf, sizeof(buf), (client_is_oper(c) || c == t) &&
			    t->ip[0] != '\0' ? t->ip : "255.255.255.255");
			break;
		case 'h':
			who_append(buf, sizeof(buf), t->host);
			break;
		case 's':
			who_append(buf, sizeof(buf), client_server(t, NULL));
			break;
		case 'n':
			who_append(buf, sizeof(buf), t->nick);
			break;
		case 'f':
			who_append(buf, sizeof(buf), flags);
			break;
		case 'd':
			who_append(buf, sizeof(buf), "0");
			break;
		case 'l':
			idle = (long long)(time(NULL) - t->idle);
			snprintf(num, sizeof(num), "%lld", idle < 0 ? 0 : idle);
			who_append(buf, sizeof(buf), num);
			break;
		case 'a':
			who_append(buf, sizeof(buf),
			    t->account != NULL ? t->account : "0");
			break;
		case 'o':
			who_append(buf, sizeof(buf), "n/a");
			break;
		case 'r':
			/* Last, as a trailing parameter: it may hold spaces. */
			if (buf[0] != '\0')
				strlcat(buf, " ", sizeof(buf));
			strlcat(buf, ":", sizeof(buf));
			strlcat(buf, t->realname, sizeof(buf));
			break;
		}
	}
	reply(c, RPL_WHOSPCRPL, buf);
}

static void
who_channel(struct client *c, const struct who_query *q, struct channel *ch)
{
	struct member *m;
	int inside = channel_member(ch, c) != NULL;

	/* Outsiders learn nothing of a secret channel, not even who is in. */
	if (!inside && (ch->modes & CMODE_SECRET))
		return;
	TAILQ_FOREACH(m, &ch->members, by_channel) {
		if (!inside && (m->client->umodes & UMODE_INVISIBLE))
			continue;
		if (q->opers_only && !client_shows_oper(m->client))
			continue;
		who_send(c, q, m->client, ch, m);
	}
}

static int
who_matches(const struct client *t, const char *mask)
{
	return casemap_match(mask, t->nick) || casemap_match(mask, t->user) ||
	    casemap_match(mask, t->host) || casemap_match(mask, t->realname) ||
	    casemap_match(mask, server_name()) || casemap_match(mask, t->prefix);
}

static void
who_mask(struct client *c, const struct who_query *q, const char *mask)
{
	struct client *t;

	/*
	 * An exact nick names one user, visible or not, as WHOIS would
	 * (Modern IRC); only patterns are filtered by visibility.
	 */
	if (!has_wildcards(mask) && (t = client_find(mask)) != NULL) {
		if (!q->opers_only || client_shows_oper(t))
			who_send(c, q, t, NULL, NULL);
		return;
	}
	TAILQ_FOREACH(t, &ircd.all, entry) {
		if (!(t->flags & CLIENT_REGISTERED) || (t->flags & CLIENT_CLOSING))
			continue;
		if (q->opers_only && !client_shows_oper(t))
			continue;
		if ((t->umodes & UMODE_INVISIBLE) && !shares_channel(c, t))
			continue;
		if (!who_matches(t, mask))
			continue;
		who_send(c, q, t, NULL, NULL);
	}
}

void
cmd_who(struct client *c, struct message *m)
{
	struct who_query q;
	struct channel *ch;
	const char *mask = m->nparams > 0 ? m->params[0] : "*";

	who_parse_options(&q, m->nparams > 1 ? m->params[1] : NULL);
	if (casemap_is_channel(mask)) {
		if ((ch = channel_find(mask)) != NULL)
			who_channel(c, &q, ch);
	} else if (mask[0] == '\0' || strcmp(mask, "0") == 0)
		/* "WHO 0" and "WHO" are old spellings of "everyone". */
		who_mask(c, &q, "*");
	else
		who_mask(c, &q, mask);
	reply(c, RPL_ENDOFWHO, m->nparams > 0 && mask[0] != '\0' ? mask : "*");
}

/* ---- WHOIS ---- */

static void
whois_channels(struct client *c, struct client *t)
{
	struct member *m;
	char buf[IRC_LINELEN];
	size_t room, len = 0, need;
	const char *pfx;

	room = reply_room(c, strlen(t->nick) + 1);
	if (room > sizeof(buf) - 1)
		room = sizeof(buf) - 1;
	buf[0] = '\0';
	TAILQ_FOREACH(m, &t->channels, by_client) {
		/* A secret channel shows only to those inside it. */
		if ((m->channel->modes & CMODE_SECRET) && c != t &&
		    channel_member(m->channel, c) == NULL)
			continue;
		pfx = channel_prefix(m, (c->caps & CAP_MULTI_PREFIX) != 0);
		need = (len > 0 ? 1 : 0) + strlen(pfx) + strlen(m->channel->name);
		if (len > 0 && len + need > room) {
			reply(c, RPL_WHOISCHANNELS, t->nick, buf);
			buf[0] = '\0';
			len = 0;
		}
		if (len > 0)
			buf[len++] = ' ';
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", pfx,
		    m->channel->name);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
	}
	if (len > 0)
		reply(c, RPL_WHOISCHANNELS, t->nick, buf);
}

static void
whois_one(struct client *c, const char *nick)
{
	struct client *t;
	time_t now = time(NULL);
	long long idle;

	if ((t = client_find(nick)) == NULL) {
		reply(c, ERR_NOSUCHNICK, nick);
		reply(c, RPL_ENDOFWHOIS, nick);
		return;
	}
	reply(c, RPL_WHOISUSER, t->nick, t->user, t->host, t->realname);
	whois_channels(c, t);
	{
		const char *info, *srv = client_server(t, &info);

		reply(c, RPL_WHOISSERVER, t->nick, srv, info);
	}
	if (t->away != NULL)
		reply(c, RPL_AWAY, t->nick, t->away);
	if (client_shows_oper(t))
		reply(c, RPL_WHOISOPERATOR, t->nick);
	if (t->umodes & UMODE_BOT)
		reply(c, RPL_WHOISBOT, t->nick, ircd.conf->network);
	if (t->ops->whois != NULL)
		t->ops->whois(t, c);
	if (t->account != NULL)
		reply(c, RPL_WHOISACCOUNT, t->nick, t->account);
	/* The real address is for operators and the user alone. */
	if ((client_is_oper(c) || c == t) && t->ip[0] != '\0')
		reply(c, RPL_WHOISACTUALLY, t->nick, t->user, t->host, t->ip);
#ifdef RPL_WHOISSECURE
	if (t->conn != NULL && conn_is_tls(t->conn))
		reply(c, RPL_WHOISSECURE, t->nick);
#endif
	idle = (long long)(now - t->idle);
	reply(c, RPL_WHOISIDLE, t->nick, idle < 0 ? 0LL : idle,
	    (long long)t->signon);
	reply(c, RPL_ENDOFWHOIS, t->nick);
}

/* Call fn for each comma-separated item of list, at most max of them. */
static void
each_target(struct client *c, const char *list, int max,
    void (*fn)(struct client *, const char *))
{
	char buf[IRC_LINELEN], *p, *item;
	int n = 0;

	strlcpy(buf, list, sizeof(buf));
	p = buf;
	while ((item = strsep(&p, ",")) != NULL) {
		if (*item == '\0')
			continue;
		if (max > 0 && n++ >= max)
			break;
		fn(c, item);
	}
}

void
cmd_whois(struct client *c, struct message *m)
{
	const char *list;

	if (m->nparams == 0 || m->params[m->nparams > 1 ? 1 : 0][0] == '\0') {
		reply(c, ERR_NONICKNAMEGIVEN);
		return;
	}
	if (m->nparams > 1) {
		/* "WHOIS server nick": we are the only server. */
		if (!target_is_us(m->params[0])) {
			reply(c, ERR_NOSUCHSERVER, m->params[0]);
			return;
		}
		list = m->params[1];
	} else
		list = m->params[0];
	each_target(c, list, ircd.conf->max_targets, whois_one);
}

/* ---- WHOWAS ---- */

void
cmd_whowas(struct client *c, struct message *m)
{
	const struct whowas *w;
	char nick[NICKLEN + 1], when[64];
	long count = 0;
	int i;

	if (m->nparams == 0 || m->params[0][0] == '\0') {
		reply(c, ERR_NONICKNAMEGIVEN);
		return;
	}
	/* One nick: the first of a list. */
	strlcpy(nick, m->params[0], sizeof(nick));
	nick[strcspn(nick, ",")] = '\0';
	if (m->nparams > 1)
		count = strtol(m->params[1], NULL, 10);
	for (i = 0; (w = whowas_find(nick, i)) != NULL; i++) {
		if (count > 0 && i >= count)
			break;
		reply(c, RPL_WHOWASUSER, w->nick, w->user, w->host, w->realname);
		if (w->account[0] != '\0')
			reply(c, RPL_WHOISACCOUNT, w->nick, w->account);
		clock_utc(when, sizeof(when), "%a %b %d %H:%M:%S %Y UTC",
		    w->when);
		reply(c, RPL_WHOISSERVER, w->nick, server_name(), when);
	}
	if (i == 0)
		reply(c, ERR_WASNOSUCHNICK, nick);
	reply(c, RPL_ENDOFWHOWAS, nick);
}

/* ---- AWAY ---- */

void
cmd_away(struct client *c, struct message *m)
{
	const char *text = m->nparams > 0 ? m->params[0] : "";
	size_t len;

	free(c->away);
	c->away = NULL;
	if (text[0] == '\0') {
		reply(c, RPL_UNAWAY);
		client_send_common_cap(c, 0, CAP_AWAY_NOTIFY, ":%s AWAY", c->prefix);
		hook_user_away(c);
		return;
	}
	len = message_utf8_trunc(text, strlen(text), AWAYLEN);
	c->away = xstrndup(text, len);
	reply(c, RPL_NOWAWAY);
	client_send_common_cap(c, 0, CAP_AWAY_NOTIFY, ":%s AWAY :%s", c->prefix,
	    c->away);
	hook_user_away(c);
}

/* ---- ISON, USERHOST ---- */

void
cmd_ison(struct client *c, struct message *m)
{
	char buf[IRC_LINELEN], word[IRC_LINELEN], *p, *nick;
	struct client *t;
	size_t room = reply_room(c, 0), len = 0;
	int i;

	if (room > sizeof(buf) - 1)
		room = sizeof(buf) - 1;
	buf[0] = '\0';
	/* Nicks may come as several parameters or as one with spaces. */
	for (i = 0; i < m->nparams; i++) {
		strlcpy(word, m->params[i], sizeof(word));
		p = word;
		while ((nick = strsep(&p, " ")) != NULL) {
			if (*nick == '\0' || (t = client_find(nick)) == NULL)
				continue;
			if (len + (len > 0) + strlen(t->nick) > room)
				goto done;
			if (len > 0)
				buf[len++] = ' ';
			len += strlcpy(buf + len, t->nick, sizeof(buf) - len);
		}
	}
done:
	reply(c, RPL_ISON, buf);
}

/* ---- MONITOR (IRCv3 monitor) ---- */

/* Comma-separated items under one numeric, in as few lines as fit. */
struct replylist {
	struct client	*c;
	int		 num;
	size_t		 room, len;
	char		 buf[IRC_LINELEN];
};

static void
replylist_init(struct replylist *rl, struct client *c, int num)
{
	rl->c = c;
	rl->num = num;
	rl->len = 0;
	rl->buf[0] = '\0';
	rl->room = reply_room(c, 0);
	if (rl->room > sizeof(rl->buf) - 1)
		rl->room = sizeof(rl->buf) - 1;
}

static void
replylist_flush(struct replylist *rl)
{
	if (rl->len > 0)
		reply(rl->c, rl->num, rl->buf);
	rl->len = 0;
	rl->buf[0] = '\0';
}

static void
replylist_add(struct replylist *rl, const char *item)
{
	size_t n = strlen(item);

	if (rl->len > 0 && rl->len + 1 + n > rl->room)
		replylist_flush(rl);
	if (rl->len > 0)
		rl->buf[rl->len++] = ',';
	strlcpy(rl->buf + rl->len, item, sizeof(rl->buf) - rl->len);
	rl->len = strlen(rl->buf);
}

/* RPL_MONONLINE with the prefix, or RPL_MONOFFLINE with the nick. */
static void
monitor_status(struct replylist *on, struct replylist *off, const char *nick)
{
	struct client *t = client_find(nick);

	if (t != NULL)
		replylist_add(on, t->prefix);
	else
		replylist_add(off, nick);
}

/*
 * ERR_MONLISTFULL with the targets not added, cut at a comma so that the
 * line keeps its text.
 */
static void
monitor_full(struct client *c, const char *rest)
{
	char buf[IRC_LINELEN], lim[16], *comma;
	size_t room;

	snprintf(lim, sizeof(lim), "%d ", ircd.conf->max_monitor);
	room = reply_room(c, strlen(lim) + strlen(" :Monitor list is full."));
	if (room > sizeof(buf))
		room = sizeof(buf);
	strlcpy(buf, rest, room);
	if (strlen(rest) >= room && (comma = strrchr(buf, ',')) != NULL)
		*comma = '\0';
	reply(c, ERR_MONLISTFULL, ircd.conf->max_monitor, buf);
}

static void
monitor_plus(struct client *c, const char *targets)
{
	struct replylist on, off;
	char list[IRC_LINELEN], *p, *nick;

	replylist_init(&on, c, RPL_MONONLINE);
	replylist_init(&off, c, RPL_MONOFFLINE);
	strlcpy(list, targets, sizeof(list));
	p = list;
	while ((nick = strsep(&p, ",")) != NULL) {
		if (*nick == '\0')
			continue;
		if (!casemap_valid_nick(nick, NICKLEN)) {
			reply(c, ERR_ERRONEUSNICKNAME, nick);
			continue;
		}
		if (!monitor_add(c, nick)) {
			/* What fits is added; the rest is named in the 734. */
			replylist_flush(&on);
			replylist_flush(&off);
			monitor_full(c, targets + (nick - list));
			return;
		}
		monitor_status(&on, &off, nick);
	}
	replylist_flush(&on);
	replylist_flush(&off);
}

static void
monitor_minus(struct client *c, const char *targets)
{
	char list[IRC_LINELEN], *p, *nick;

	strlcpy(list, targets, sizeof(list));
	p = list;
	while ((nick = strsep(&p, ",")) != NULL)
		if (*nick != '\0')
			monitor_del(c, nick);
}

void
cmd_monitor(struct client *c, struct message *m)
{
	const char *sub = m->params[0], *nick;
	struct replylist on, off;
	size_t i;

	if (strcmp(sub, "+") == 0 || strcmp(sub, "-") == 0) {
		if (m->nparams < 2 || m->params[1][0] == '\0') {
			reply(c, ERR_NEEDMOREPARAMS, "MONITOR");
			return;
		}
		if (sub[0] == '+')
			monitor_plus(c, m->params[1]);
		else
			monitor_minus(c, m->params[1]);
	} else if (strcasecmp(sub, "C") == 0)
		monitor_clear(c);
	else if (strcasecmp(sub, "L") == 0) {
		replylist_init(&on, c, RPL_MONLIST);
		for (i = 0; (nick = monitor_at(c, i)) != NULL; i++)
			replylist_add(&on, nick);
		replylist_flush(&on);
		reply(c, RPL_ENDOFMONLIST);
	} else if (strcasecmp(sub, "S") == 0) {
		replylist_init(&on, c, RPL_MONONLINE);
		replylist_init(&off, c, RPL_MONOFFLINE);
		for (i = 0; (nick = monitor_at(c, i)) != NULL; i++)
			monitor_status(&on, &off, nick);
		replylist_flush(&on);
		replylist_flush(&off);
	} else
		reply(c, ERR_UNKNOWNERROR, "MONITOR", "Unknown subcommand");
}

void
cmd_userhost(struct client *c, struct message *m)
{
	char buf[IRC_LINELEN], word[IRC_LINELEN], item[IRC_LINELEN];
	char *p, *nick;
	struct client *t;
	int i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < m->nparams && n < USERHOST_MAX; i++) {
		strlcpy(word, m->params[i], sizeof(word));
		p = word;
		while ((nick = strsep(&p, " ")) != NULL && n < USERHOST_MAX) {
			if (*nick == '\0')
				continue;
			n++;
			if ((t = client_find(nick)) == NULL)
				continue;
			snprintf(item, sizeof(item), "%s%s=%c%s@%s", t->nick,
			    client_shows_oper(t) ? "*" : "",
			    t->away != NULL ? '-' : '+', t->user, t->host);
			who_append(buf, sizeof(buf), item);
		}
	}
	reply(c, RPL_USERHOST, buf);
}

/* ---- LUSERS, MOTD, VERSION, TIME, INFO, ADMIN ---- */

struct links_ask {
	struct client	*c;
	const char	*mask;
};

static void
links_one(void *arg, const char *name, const char *uplink, int hops,
    const char *info)
{
	struct links_ask *a = arg;

	if (casemap_match(a->mask, name))
		reply(a->c, RPL_LINKS, name, uplink, hops, info);
}

/*
 * LINKS [[server] mask]: this server, then the network's servers that a
 * link knows (the servers hook), each with its uplink. The network is
 * one, so a server named first is answered here as InspIRCd and Ergo do.
 */
void
cmd_links(struct client *c, struct message *m)
{
	struct links_ask a = { c, m->nparams > 0 ?
	    m->params[m->nparams - 1] : "*" };

	if (a.mask[0] == '\0')
		a.mask = "*";
	links_one(&a, server_name(), server_name(), 0, server_info());
	hook_servers(links_one, &a);
	reply(c, RPL_ENDOFLINKS, a.mask);
}

void
cmd_lusers(struct client *c, struct message *m)
{
	(void)m;
	send_lusers(c);
}

void
cmd_motd(struct client *c, struct message *m)
{
	if (m->nparams > 0 && !target_is_us(m->params[0])) {
		reply(c, ERR_NOSUCHSERVER, m->params[0]);
		return;
	}
	send_motd(c);
}

void
cmd_version(struct client *c, struct message *m)
{
	if (m->nparams > 0 && !target_is_us(m->params[0])) {
		reply(c, ERR_NOSUCHSERVER, m->params[0]);
		return;
	}
	reply(c, RPL_VERSION, IRCD_VERSION ".", server_name(),
	    "an IRC server where AI coding agents are users");
	send_isupport(c);
}

void
cmd_time(struct client *c, struct message *m)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[64];

	if (m->nparams > 0 && !target_is_us(m->params[0])) {
		reply(c, ERR_NOSUCHSERVER, m->params[0]);
		return;
	}
	localtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%A %B %d %Y -- %H:%M:%S %z", &tm);
	reply(c, RPL_TIME, server_name(), (long long)now, buf);
}

void
cmd_info(struct client *c, struct message *m)
{
	char buf[128], when[64];

	(void)m;
	reply(c, RPL_INFO, server_name());
	reply(c, RPL_INFO, IRCD_VERSION);
	reply(c, RPL_INFO,
	    "agentircd \xe2\x80\x94 an IRC server where AI coding agents are users");
	reply(c, RPL_INFO, "");
	clock_utc(when, sizeof(when), "%a %b %d %Y at %H:%M:%S UTC",
	    ircd.started);
	snprintf(buf, sizeof(buf), "Started %s", when);
	reply(c, RPL_INFO, buf);
	reply(c, RPL_ENDOFINFO);
}

void
cmd_admin(struct client *c, struct message *m)
{
	const char *admin = ircd.conf->admin;

	if (m->nparams > 0 && !target_is_us(m->params[0])) {
		reply(c, ERR_NOSUCHSERVER, m->params[0]);
		return;
	}
	reply(c, RPL_ADMINME, server_name());
	reply(c, RPL_ADMINLOC1, server_info());
	reply(c, RPL_ADMINLOC2, ircd.conf->network);
	reply(c, RPL_ADMINEMAIL, admin != NULL ? admin :
	    "No administrative contact configured");
}

/* ---- HELP ---- */

/* HELP without a subject: every command a person types, a line full each. */
static void
help_index(struct client *c)
{
	const struct command *cmd;
	char buf[IRC_LINELEN];
	size_t i, room = reply_room(c, 2);

	reply(c, RPL_HELPSTART, "*", "** Help System **");
	reply(c, RPL_HELPTXT, "*", "Try HELP <command> for specific help, "
	    "HELP AGENTS for the agents' commands.");
	reply(c, RPL_HELPTXT, "*", "Commands:");
	buf[0] = '\0';
	for (i = 0; (cmd = command_at(i)) != NULL; i++) {
		if (cmd->flags & CMD_NOHELP)
			continue;
		if (buf[0] != '\0' &&
		    strlen(buf) + 1 + strlen(cmd->name) > room) {
			reply(c, RPL_HELPTXT, "*", buf);
			buf[0] = '\0';
		}
		who_append(buf, sizeof(buf), cmd->name);
	}
	if (buf[0] != '\0')
		reply(c, RPL_HELPTXT, "*", buf);
	reply(c, RPL_ENDOFHELP, "*", "End of /HELP");
}

void
cmd_help(struct client *c, struct message *m)
{
	const struct command *cmd;
	const char *subject;
	size_t i;

	if (m->nparams == 0 || m->params[0][0] == '\0') {
		help_index(c);
		return;
	}
	subject = m->params[0];
	if ((cmd = command_find(subject)) != NULL &&
	    (cmd->flags & CMD_NOHELP))
		cmd = NULL;
	/* Subjects the core does not know: HELP AGENTS, for one (CM-5). */
	if (cmd == NULL && hook_help(c, subject))
		return;
	if (cmd == NULL) {
		reply(c, ERR_HELPNOTFOUND, subject);
		return;
	}
	reply(c, RPL_HELPSTART, cmd->name, cmd->usage);
	for (i = 0; i < sizeof(cmd->text) / sizeof(cmd->text[0]) &&
	    cmd->text[i] != NULL; i++)
		reply(c, RPL_HELPTXT, cmd->name, cmd->text[i]);
	reply(c, RPL_ENDOFHELP, cmd->name, "End of /HELP");
}

/* ---- SETNAME ---- */

void
cmd_setname(struct client *c, struct message *m)
{
	const char *name = m->nparams > 0 ? m->params[0] : "";

	if (name[0] == '\0' || strlen(name) > REALLEN) {
		reply_fail(c, "SETNAME", "INVALID_REALNAME", NULL,
		    "Realname is empty or too long");
		return;
	}
	client_set_realname(c, name, strlen(name));
	/* Without the cap the change is silent (setname spec). */
	client_send_common_cap(c, 1, CAP_SETNAME, ":%s SETNAME :%s", c->prefix,
	    c->realname);
	hook_user_realname(c);
}

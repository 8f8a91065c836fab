/*
 * link-user.c: the users of a linked network as clients of this server
 * (LK-2), and the peer's lines about them. A remote user is a core client
 * without a socket whose ops are the link's: it sits in channels, NAMES,
 * WHO and WHOIS like anyone, and what reaches it is sent over its link
 * once (a channel message goes once per link, not once per member).
 * Messages it sends run through the core's own PRIVMSG/NOTICE/TAGMSG
 * handlers as its commands, so history, relay and the agents' routing
 * (hook channel_message) treat it as a local person.
 *
 * Every line's source is checked against the servers this link brought
 * in (no "fake direction"), and everything kept is bounded (users,
 * servers); a line that does not fit is logged and ignored.
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
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/link/link.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/xmalloc.h"

struct link_user {
	struct link	*link;
	char		 uuid[LINK_UUIDLEN + 1];
	/* Removed by the network (QUIT, KILL, split): tell it nothing. */
	int		 gone;
};

static void	lu_send(struct client *, const char *, size_t);
static void	lu_deliver(struct client *, struct outmsg *);
static void	lu_release(struct client *, const char *);
static const char *lu_server(const struct client *, const char **);

static void	lu_invited(struct client *, struct client *, struct channel *);

static const struct client_ops link_user_ops = {
	.send = lu_send,
	.deliver = lu_deliver,
	.invited = lu_invited,
	.release = lu_release,
	.server = lu_server,
};

int
link_is_remote(const struct client *c)
{
	return c != NULL && c->ops == &link_user_ops;
}

struct link *
link_of(const struct client *c)
{
	return link_is_remote(c) ? ((struct link_user *)c->priv)->link : NULL;
}

const char *
link_remote_uuid(const struct client *c)
{
	return link_is_remote(c) ? ((struct link_user *)c->priv)->uuid : NULL;
}

struct client *
link_find_uuid(struct link *l, const char *uuid)
{
	struct client *c;
	struct link *o;

	if (!link_is_uuid(uuid))
		return NULL;
	if ((c = dict_get(l->users, uuid)) != NULL)
		return c;
	/* A user behind another link of ours (a hub's, LK-5). */
	if ((o = link_hub_behind(uuid)) != NULL && o != l)
		return dict_get(o->users, uuid);
	return link_local_find(uuid);
}

int
link_server_find(const struct link *l, const char *sid)
{
	size_t i;

	for (i = 0; i < l->nservers; i++)
		if (strcmp(l->servers[i].sid, sid) == 0)
			return (int)i;
	return -1;
}

/*
 * Replies and events addressed to a remote user: its own server tells
 * it what it needs, and our events reach the network through the hooks.
 * But for this server's own NOTICEs (the answers to its ! commands,
 * TN-11): they go over the link from our SID to the user, as a NOTICE to
 * it alone even when it was meant for its channel window.
 */
static void
lu_send(struct client *to, const char *line, size_t len)
{
	struct link_user *lu = to->priv;
	const char *p = line, *end = line + len, *sp;
	char head[HOSTLEN + 10];
	int n;

	if (lu == NULL || lu->link->state != LINK_UP)
		return;
	while (end > p && (end[-1] == '\r' || end[-1] == '\n'))
		end--;
	if (p == end)
		return;
	if (*p == '@' && (p = memchr(p, ' ', end - p)) != NULL)
		p++;
	n = snprintf(head, sizeof(head), ":%s NOTICE ", ircd.conf->name);
	if (p == NULL || n < 0 || (size_t)n >= sizeof(head) ||
	    end - p <= n || memcmp(p, head, n) != 0)
		return;
	p += n;
	if ((sp = memchr(p, ' ', end - p)) == NULL || end - sp < 2 ||
	    sp[1] != ':')
		return;
	p = sp + 2;
	link_send(lu->link, ":%s NOTICE %s :%.*s", link_our_sid(), lu->uuid,
	    (int)(end - p), p);
}

static int
lu_is_channel(const char *t)
{
	if (t[0] == '@' || t[0] == '+')
		t++;
	return t[0] == '#' || t[0] == '&';
}

/* A local user's PRIVMSG, NOTICE or TAGMSG, over the link. */
static void
lu_deliver(struct client *to, struct outmsg *om)
{
	struct link_user *lu = to->priv;
	struct link *l = lu->link;
	char from[LINK_UUIDLEN + 1], tags[IRC_TAGLEN];
	const char *target;

	/* JOIN, PART and the like (no cmd) go by the hooks. */
	if (l->state != LINK_UP || om->cmd == NULL || om->from == NULL ||
	    link_is_remote(om->from) ||
	    !(om->from->flags & CLIENT_REGISTERED))
		return;
	if (strcmp(om->cmd, "TAGMSG") == 0 &&
	    !link_has_module(l, "m_ircv3_ctctags.so"))
		return;
	if (lu_is_channel(om->target)) {
		/* Once per link: every member here shares one outmsg. */
		if (l->last_om == om && l->last_text == om->text &&
		    l->last_time == om->time_ms &&
		    strcmp(l->last_msgid, om->msgid) == 0)
			return;
		l->last_om = om;
		l->last_text = om->text;
		l->last_time = om->time_ms;
		strlcpy(l->last_msgid, om->msgid, sizeof(l->last_msgid));
		target = om->target;
	} else
		target = lu->uuid;
	link_local_uuid(om->from, from);
	/*
	 * The message's id and time go with it, so that every server shows
	 * and stores it as the same message (LK-3, LK-4). A line after the
	 * first of a multiline message shares the first's id: it goes
	 * without one, and the peer gives it its own.
	 */
	if (om->nomsgid)
		snprintf(tags, sizeof(tags), "@time=%s%s%s ", om->time,
		    om->ctags != NULL && om->ctags[0] != '\0' ? ";" : "",
		    om->ctags != NULL ? om->ctags : "");
	else
		snprintf(tags, sizeof(tags), "@msgid=%s;time=%s%s%s ",
		    om->msgid, om->time,
		    om->ctags != NULL && om->ctags[0] != '\0' ? ";" : "",
		    om->ctags != NULL ? om->ctags : "");
	if (om->text == NULL)
		link_send(l, "%s:%s %s %s", tags, from, om->cmd, target);
	else
		link_send(l, "%s:%s %s %s :%s", tags, from, om->cmd, target,
		    om->text);
}

static void
lu_release(struct client *c, const char *reason)
{
	struct link_user *lu = c->priv;
	struct link *l = lu->link, *o;
	size_t i;

	/*
	 * Gone by our hand (a local operator's KILL): the network must know,
	 * every link of it, as InspIRCd broadcasts a KILL.
	 */
	if (!lu->gone)
		for (i = 0; (o = link_at(i)) != NULL; i++)
			if (o->state == LINK_UP)
				link_send(o, ":%s KILL %s :%s",
				    link_our_sid(), lu->uuid, reason);
	if (dict_get(l->users, lu->uuid) == c) {
		dict_del(l->users, lu->uuid);
		l->nusers--;
	}
	free(lu);
	c->priv = NULL;
}

static const char *
lu_server(const struct client *c, const char **info)
{
	const struct link_user *lu = c->priv;
	char sid[LINK_SIDLEN + 1];
	int i;

	if (lu == NULL)
		return NULL;
	memcpy(sid, lu->uuid, LINK_SIDLEN);
	sid[LINK_SIDLEN] = '\0';
	if ((i = link_server_find(lu->link, sid)) == -1)
		return NULL;
	*info = lu->link->servers[i].info;
	return lu->link->servers[i].name;
}

void
link_users_split(struct link *l, const char *sid, const char *reason)
{
	struct client **v = NULL, *c;
	const char *key;
	size_t pos = 0, n = 0, i;

	/* Collected first: client_exit takes each out of the dict. */
	while ((c = dict_next(l->users, &pos, &key)) != NULL) {
		if (sid != NULL && strncmp(key, sid, LINK_SIDLEN) != 0)
			continue;
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = c;
	}
	for (i = 0; i < n; i++) {
		((struct link_user *)v[i]->priv)->gone = 1;
		client_exit(v[i], reason);
	}
	free(v);
}

/* The source of a line: a remote user of this link, or NULL. */
struct client *
link_source_user(struct link *l, const struct link_msg *m)
{
	if (m->source == NULL)
		return NULL;
	return dict_get(l->users, m->source);
}

/* The source's server is behind this link (or it is the peer). */
int
link_source_server(struct link *l, const struct link_msg *m)
{
	if (m->source == NULL)
		return 0;
	return link_server_find(l, m->source);
}

/*
 * A word that goes into prefixes and replies (host, ident, account):
 * nothing that would break "nick!user@host" or a line.
 */
int
link_word_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f || *s == '!' ||
		    *s == '@' || *s == '*' || *s == ',')
			return 0;
	return 1;
}

/* At most max bytes of s, not cutting a UTF-8 sequence, into buf. */
const char *
link_cut(char *buf, size_t size, const char *s, size_t max)
{
	size_t n = message_utf8_trunc(s, strlen(s), max < size ? max :
	    size - 1);

	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

long long
link_ts(const char *s)
{
	long long v = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		if (v < 100000000000LL)
			v = v * 10 + (*s - '0');
	return v;
}

/*
 * A nick that is its UUID carries this time on every server (InspIRCd's
 * SavedTimestamp), so a SAVE made twice settles the same way.
 */
#define LINK_SAVED_TS	100

/* c goes by nick from now on, taken at ts: who shares a channel sees it. */
static void
lu_rename(struct client *c, const char *nick, time_t ts)
{
	char old[NICKLEN + 1];

	if (strcmp(nick, c->nick) == 0) {
		c->nickts = ts;
		return;
	}
	strlcpy(old, c->nick, sizeof(old));
	client_send_common(c, !link_is_remote(c), ":%s NICK :%s", c->prefix,
	    nick);
	client_set_nick(c, nick);
	c->nickts = ts;
	hook_user_nick(c, old);
}

/*
 * A user of l's (uuid, claiming its nick at ts, as ident@ip) collides
 * with other, registered here. InspIRCd's rule, which every server of
 * the network applies alike: with the same ident and IP the newer claim
 * keeps the nick (the same person, back), otherwise the older one; at
 * equal times neither. A loser here (ours, or another link's when we are
 * a hub) goes by its UUID and every link is told (SAVE); the newcomer's
 * own server is sent its SAVE. Returns 1 when the newcomer loses.
 */
static int
lu_collide(struct link *l, struct client *other, const char *uuid,
    time_t ts, const char *ident, const char *ip)
{
	char ouuid[LINK_UUIDLEN + 1];
	const char *oident = other->user[0] != '\0' ? other->user : other->nick;
	const char *oip = other->ip[0] != '\0' ? other->ip : "0.0.0.0";
	int ours = 1, theirs = 1, same;

	if (ts != other->nickts) {
		same = strcmp(oident, ident) == 0 && strcmp(oip, ip) == 0;
		if ((same && ts < other->nickts) || (!same && ts > other->nickts))
			ours = 0;
		else
			theirs = 0;
	}
	link_any_uuid(other, ouuid);
	log_info("link %s: nick collision on %s between %s (%lld) and %s "
	    "(%lld): %s", l->name, other->nick, ouuid,
	    (long long)other->nickts, uuid, (long long)ts,
	    ours && theirs ? "both go by their UUIDs" : ours ?
	    "ours goes by its UUID" : "theirs goes by its UUID");
	if (ours) {
		link_send_up(":%s SAVE %s %lld", link_our_sid(), ouuid,
		    (long long)other->nickts);
		lu_rename(other, ouuid, LINK_SAVED_TS);
	}
	if (theirs)
		link_send(l, ":%s SAVE %s %lld", link_our_sid(), uuid,
		    (long long)ts);
	return theirs;
}

/*
 * The nick a user of l's (uuid, ident@ip) may have here for the one it
 * claims at *ts: that one, or its UUID when the nick is not one by our
 * rules or it lost a collision (then *ts is the saved time). self is the
 * user when it changes nick, NULL when it is new.
 */
static const char *
lu_nick_claim(struct link *l, const char *uuid, const char *nick,
    time_t *ts, const char *ident, const char *ip, struct client *self)
{
	struct client *other;

	/* A SAVEd user goes by its UUID: the one nick that is not a nick. */
	if (strcmp(nick, uuid) == 0)
		return uuid;
	if (!casemap_valid_nick(nick, NICKLEN)) {
		log_info("link %s: %s cannot be %.*s here: saved as its UUID",
		    l->name, uuid, NICKLEN, nick);
		link_send(l, ":%s SAVE %s %lld", link_our_sid(), uuid,
		    (long long)*ts);
		*ts = LINK_SAVED_TS;
		return uuid;
	}
	if ((other = client_find_any(nick)) == NULL || other == self)
		return nick;
	if (!(other->flags & CLIENT_REGISTERED)) {
		/* Still registering: it chooses again, as InspIRCd does. */
		client_nick_overruled(other);
		return nick;
	}
	if (lu_collide(l, other, uuid, *ts, ident, ip)) {
		*ts = LINK_SAVED_TS;
		return uuid;
	}
	return nick;
}

/* UID uuid age nick host dhost ident ip signon +modes [params] :real */
static void
h_uid(struct link *l, struct link_msg *m)
{
	struct link_user *lu;
	struct client *c;
	const char *uuid, *nick, *modes;
	time_t ts;

	if (link_source_server(l, m) == -1 || m->nparams < 10)
		return;
	uuid = m->params[0];
	if (!link_is_uuid(uuid) || strncmp(uuid, m->source, LINK_SIDLEN) != 0 ||
	    dict_get(l->users, uuid) != NULL) {
		log_warnx("link %s: UID with a bad or known UUID ignored",
		    l->name);
		return;
	}
	if (l->nusers >= LINK_MAXUSERS) {
		link_error(l, "Too many users (%d) behind this link",
		    LINK_MAXUSERS);
		return;
	}
	if (!link_word_ok(m->params[4], HOSTLEN) ||
	    !link_word_ok(m->params[5], USERLEN + 1)) {
		log_warnx("link %s: UID %s with a bad host or ident ignored",
		    l->name, uuid);
		return;
	}
	ts = (time_t)link_ts(m->params[1]);
	nick = lu_nick_claim(l, uuid, m->params[2], &ts, m->params[5],
	    m->params[6], NULL);
	lu = xcalloc(1, sizeof(*lu));
	lu->link = l;
	strlcpy(lu->uuid, uuid, sizeof(lu->uuid));
	c = client_new(&link_user_ops, NULL);
	c->priv = lu;
	strlcpy(c->user, m->params[5], sizeof(c->user));
	client_set_host(c, m->params[4]);
	strlcpy(c->ip, m->params[6], sizeof(c->ip));
	client_set_realname(c, m->params[m->nparams - 1],
	    strlen(m->params[m->nparams - 1]));
	client_set_nick(c, nick);
	/* Its client-only tags (+typing, +reply) count as a local person's. */
	c->caps = CAP_MESSAGE_TAGS;
	c->flags |= CLIENT_HAVE_NICK | CLIENT_HAVE_USER | CLIENT_FLOOD_EXEMPT;
	for (modes = m->params[8]; *modes != '\0'; modes++) {
		if (*modes == 'i')
			c->umodes |= UMODE_INVISIBLE;
		else if (*modes == 'B')
			c->umodes |= UMODE_BOT;
	}
	if (c->umodes & UMODE_INVISIBLE)
		ircd.ninvisible++;
	dict_set(l->users, uuid, c);
	l->nusers++;
	client_register(c);
	c->signon = (time_t)link_ts(m->params[7]);
	c->nickts = ts;
}

/* :uuid NICK nick ts */
static void
h_nick(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	const char *nick;
	time_t ts;

	if (c == NULL || m->nparams < 1)
		return;
	ts = m->nparams > 1 ? (time_t)link_ts(m->params[1]) : time(NULL);
	nick = lu_nick_claim(l, m->source, m->params[0], &ts, c->user, c->ip,
	    c);
	lu_rename(c, nick, ts);
}

static void
h_quit(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);

	if (c == NULL)
		return;
	((struct link_user *)c->priv)->gone = 1;
	client_exit(c, m->nparams > 0 ? m->params[m->nparams - 1] : "Quit");
}

const char *
link_source_name(struct link *l, const struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	int i;

	if (c != NULL)
		return c->prefix;
	if ((i = link_source_server(l, m)) >= 0)
		return l->servers[i].name;
	return l->name;
}

static void
h_kill(struct link *l, struct link_msg *m)
{
	struct client *c;
	char reason[IRC_LINELEN];

	if (m->nparams < 1 || (c = link_find_uuid(l, m->params[0])) == NULL)
		return;
	snprintf(reason, sizeof(reason), "Killed (%s (%s))",
	    link_source_name(l, m), m->nparams > 1 ? m->params[1] : "");
	if (link_is_remote(c)) {
		/* Behind this link or, as a hub, another: the KILL goes on. */
		((struct link_user *)c->priv)->gone = 1;
		client_exit(c, reason);
	} else if (c->flags & CLIENT_SERVICE) {
		/* An agent is this server's to end: it comes back at once. */
		log_info("link %s: KILL of %s refused: it is a service",
		    l->name, c->nick);
		link_send_uid(l, c);
		link_burst_user_channels(l, c);
	} else
		client_exit(c, reason);
}

/*
 * INVITE of a remote user by one here (ours, or another link's when we
 * are its hub): to its server, with the channel's time, which InspIRCd
 * checks, and no expiry.
 */
static void
lu_invited(struct client *to, struct client *from, struct channel *ch)
{
	struct link_user *lu = to->priv;
	char uuid[LINK_UUIDLEN + 1];

	if (lu == NULL || lu->link->state != LINK_UP || link_of(from) ==
	    lu->link)
		return;
	link_any_uuid(from, uuid);
	link_send(lu->link, ":%s INVITE %s %s %lld 0", uuid, lu->uuid,
	    ch->name, (long long)ch->created);
}

/*
 * :uuid INVITE <target> <channel> <channel time> [<expiry>]: a user of
 * the peer invites one here, or (a hub) behind another link. The core's
 * INVITE runs as that user, so its checks hold and an agent joins as it
 * would for a local person. An invite for a newer channel than ours is
 * dropped, as InspIRCd does.
 */
static void
h_invite(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m), *t;
	struct channel *ch;
	struct message msg;

	if (c == NULL || m->nparams < 3 ||
	    (t = link_find_uuid(l, m->params[0])) == NULL ||
	    (ch = channel_find(m->params[1])) == NULL ||
	    (long long)ch->created < link_ts(m->params[2]))
		return;
	memset(&msg, 0, sizeof(msg));
	msg.cmd = "INVITE";
	msg.params[0] = t->nick;
	msg.params[1] = ch->name;
	msg.nparams = 2;
	command_dispatch(c, &msg);
}

/*
 * PRIVMSG, NOTICE, TAGMSG from a remote user: the core's handler runs as
 * that user, with the target made a nick when it is one of our UUIDs.
 */
static void
h_message(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m), *t;
	struct message msg;
	char tags[IRC_TAGLEN], target[CHANNELLEN + 2];
	char msgid[sizeof(((struct outmsg *)0)->msgid)];
	int64_t time_ms, now;
	int tagmsg = strcmp(m->cmd, "TAGMSG") == 0;

	if (c == NULL || m->nparams < (tagmsg ? 1 : 2))
		return;
	/* One target a line, as InspIRCd sends: one msgid, one message. */
	if (strchr(m->params[0], ',') != NULL)
		return;
	if (link_is_uuid(m->params[0])) {
		if ((t = link_local_find(m->params[0])) == NULL)
			return;
		strlcpy(target, t->nick, sizeof(target));
	} else if (lu_is_channel(m->params[0]))
		strlcpy(target, m->params[0], sizeof(target));
	else
		return;		/* $masks and the like: not for us */
	memset(&msg, 0, sizeof(msg));
	if (m->tags != NULL && link_tags_client(m->tags, tags,
	    sizeof(tags)) > 0)
		msg.tags = tags;
	/*
	 * The network's msgid and time are kept (LK-3, LK-4): the message is
	 * the same one on every server, so a +reply to it means something to
	 * the asker's client. One stored already (a replay after a relink,
	 * or a loop) is dropped: nothing is stored or delivered twice. A time
	 * from the future (past a minute of clock skew) is not believed.
	 */
	link_tags_ids(m->tags, msgid, sizeof(msgid), &time_ms);
	now = client_time_now_ms();
	if (msgid[0] != '\0') {
		if (history_has_msgid(msgid)) {
			log_info("link %s: %s %s from %s dropped: msgid %s is "
			    "stored already", l->name, m->cmd, target,
			    c->nick, msgid);
			return;
		}
		msg.msgid = msgid;
	}
	if (time_ms > 0 && time_ms <= now + 60000)
		msg.time_ms = time_ms;
	msg.cmd = m->cmd;
	msg.params[0] = target;
	if (!tagmsg)
		msg.params[1] = m->params[1];
	msg.nparams = tagmsg ? 1 : 2;
	command_dispatch(c, &msg);
}

/* METADATA uuid accountname :account (the only key kept, for AU). */
static void
h_metadata(struct link *l, struct link_msg *m)
{
	struct client *c;

	if (m->nparams < 3 || strcmp(m->params[1], "accountname") != 0 ||
	    (c = dict_get(l->users, m->params[0])) == NULL)
		return;
	free(c->account);
	c->account = NULL;
	if (link_word_ok(m->params[2], NICKLEN))
		c->account = xstrdup(m->params[2]);
}

/* :uuid AWAY [ts] :message, or :uuid AWAY to come back. */
static void
h_away(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	const char *text;
	char buf[AWAYLEN + 1];

	if (c == NULL)
		return;
	free(c->away);
	c->away = NULL;
	if (m->nparams > 0 && (text = m->params[m->nparams - 1])[0] != '\0') {
		c->away = xstrdup(link_cut(buf, sizeof(buf), text, AWAYLEN));
		client_send_common_cap(c, 0, CAP_AWAY_NOTIFY, ":%s AWAY :%s",
		    c->prefix, c->away);
	} else
		client_send_common_cap(c, 0, CAP_AWAY_NOTIFY, ":%s AWAY",
		    c->prefix);
}

/*
 * :uuid OPERTYPE :type, the user is an operator of its server. Shown as
 * one here (WHOIS 313, WHO *), but with no authority of this server's
 * operators (agents' policies, ! commands, KILL): CLIENT_NETOPER, not +o.
 */
static void
h_opertype(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	char type[LINK_OPERTYPELEN + 1];

	if (c == NULL || m->nparams < 1)
		return;
	if (!(c->flags & CLIENT_NETOPER)) {
		c->flags |= CLIENT_NETOPER;
		ircd.nopers++;
	}
	free(c->oper);
	c->oper = xstrdup(link_cut(type, sizeof(type), m->params[0],
	    LINK_OPERTYPELEN));
}

/*
 * :source MODE uuid modes [params]: a remote user's own modes. Kept: i,
 * B, and -o (an operator no more; +o comes as OPERTYPE). The rest, and
 * their parameters, mean nothing here.
 */
static void
h_umode(struct link *l, struct link_msg *m)
{
	struct client *c;
	const char *p;
	char dir = '+';

	if (m->nparams < 2 || (c = dict_get(l->users, m->params[0])) == NULL)
		return;
	for (p = m->params[1]; *p != '\0'; p++) {
		if (*p == '+' || *p == '-')
			dir = *p;
		else if (*p == 'i' && dir == '+' &&
		    !(c->umodes & UMODE_INVISIBLE)) {
			c->umodes |= UMODE_INVISIBLE;
			ircd.ninvisible++;
		} else if (*p == 'i' && dir == '-' &&
		    (c->umodes & UMODE_INVISIBLE)) {
			c->umodes &= ~UMODE_INVISIBLE;
			ircd.ninvisible--;
		} else if (*p == 'B' && dir == '+')
			c->umodes |= UMODE_BOT;
		else if (*p == 'B' && dir == '-')
			c->umodes &= ~UMODE_BOT;
		else if (*p == 'o' && dir == '-' &&
		    (c->flags & CLIENT_NETOPER)) {
			c->flags &= ~CLIENT_NETOPER;
			ircd.nopers--;
			free(c->oper);
			c->oper = NULL;
		}
	}
}

/*
 * A remote user's host (FHOST) or ident (FIDENT) changed: CHGHOST to the
 * local clients that share a channel with it and have the cap (IRCv3
 * chghost), from its old prefix; the others see the new one next time.
 */
static void
lu_chghost(struct client *c, const char *user, const char *host)
{
	client_send_common_cap(c, 0, CAP_CHGHOST, ":%s CHGHOST %s %s",
	    c->prefix, user, host);
	if (user != c->user)
		strlcpy(c->user, user, sizeof(c->user));
	if (host != c->host)
		client_set_host(c, host);
	client_update_prefix(c);
}

/* :uuid FHOST host, the displayed host (1205 carries only that one). */
static void
h_fhost(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);

	if (c == NULL || m->nparams < 1)
		return;
	if (!link_word_ok(m->params[0], HOSTLEN)) {
		log_warnx("link %s: FHOST of %s with a bad host ignored",
		    l->name, c->nick);
		return;
	}
	if (strcmp(m->params[0], c->host) != 0)
		lu_chghost(c, c->user, m->params[0]);
}

/* :uuid FIDENT ident */
static void
h_fident(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);

	if (c == NULL || m->nparams < 1)
		return;
	if (!link_word_ok(m->params[0], USERLEN + 1)) {
		log_warnx("link %s: FIDENT of %s with a bad ident ignored",
		    l->name, c->nick);
		return;
	}
	if (strcmp(m->params[0], c->user) != 0)
		lu_chghost(c, m->params[0], c->host);
}

/* :uuid FNAME :realname, told as SETNAME to clients with the cap. */
static void
h_fname(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	char buf[REALLEN + 1];

	if (c == NULL || m->nparams < 1 || m->params[0][0] == '\0')
		return;
	link_cut(buf, sizeof(buf), m->params[0], REALLEN);
	if (strcmp(buf, c->realname) == 0)
		return;
	client_set_realname(c, buf, strlen(buf));
	client_send_common_cap(c, 0, CAP_SETNAME, ":%s SETNAME :%s",
	    c->prefix, c->realname);
}

/* A remote WHOIS asks our user's idle time: ":target IDLE asker signon idle". */
static void
h_idle(struct link *l, struct link_msg *m)
{
	struct client *asker = link_source_user(l, m), *t;
	char uuid[LINK_UUIDLEN + 1];
	time_t now = time(NULL);

	if (asker == NULL || m->nparams != 1 ||
	    (t = link_local_find(m->params[0])) == NULL)
		return;
	link_local_uuid(t, uuid);
	link_send(l, ":%s IDLE %s %lld %lld", uuid, m->source,
	    (long long)t->signon, (long long)(now > t->idle ? now - t->idle :
	    0));
}

/* :parent SERVER name sid [key=value ...] :description */
static void
h_server(struct link *l, struct link_msg *m)
{
	struct link_server *s;

	if (link_source_server(l, m) == -1 || m->nparams < 3)
		return;
	/* One behind another link already would make a loop (LK-5). */
	if (!link_is_sid(m->params[1]) || link_server_find(l,
	    m->params[1]) != -1 || strcmp(m->params[1], link_our_sid()) == 0 ||
	    link_hub_sid_taken(l, m->params[1])) {
		link_error(l, "Server ID %.3s is invalid or already in use",
		    m->params[1]);
		return;
	}
	if (l->nservers == LINK_MAXSERVERS) {
		link_error(l, "Too many servers (%d) behind this link",
		    LINK_MAXSERVERS);
		return;
	}
	s = &l->servers[l->nservers++];
	memset(s, 0, sizeof(*s));
	strlcpy(s->sid, m->params[1], sizeof(s->sid));
	strlcpy(s->parent, m->source, sizeof(s->parent));
	strlcpy(s->name, m->params[0], sizeof(s->name));
	strlcpy(s->info, m->params[m->nparams - 1], sizeof(s->info));
	log_info("link %s: server %s (%s) is behind it", l->name, s->name,
	    s->sid);
}

/* SQUIT sid :reason: that server and those behind it leave. */
static void
h_squit(struct link *l, struct link_msg *m)
{
	char reason[2 * HOSTLEN + 2], gone[LINK_SIDLEN + 1];
	size_t i;
	int idx, changed;

	if (m->nparams < 1 || (idx = link_server_find(l, m->params[0])) <= 0)
		return;
	/* Mark the subtree: parents first, as long as something changes. */
	l->servers[idx].parent[0] = '!';
	do {
		changed = 0;
		for (i = 1; i < l->nservers; i++)
			if (l->servers[i].parent[0] != '!' &&
			    (idx = link_server_find(l,
			    l->servers[i].parent)) >= 0 &&
			    l->servers[idx].parent[0] == '!') {
				l->servers[i].parent[0] = '!';
				changed = 1;
			}
	} while (changed);
	for (i = 1; i < l->nservers;) {
		if (l->servers[i].parent[0] != '!') {
			i++;
			continue;
		}
		strlcpy(gone, l->servers[i].sid, sizeof(gone));
		snprintf(reason, sizeof(reason), "%s %s", l->name,
		    l->servers[i].name);
		log_info("link %s: server %s split", l->name,
		    l->servers[i].name);
		link_users_split(l, gone, reason);
		l->servers[i] = l->servers[--l->nservers];
	}
}

/*
 * SAVE uuid ts: the user lost a nick collision somewhere and goes by its
 * UUID, ours included, if its nick is still the one of time ts.
 */
static void
h_save(struct link *l, struct link_msg *m)
{
	struct client *c;

	if (m->nparams < 2 || (c = link_find_uuid(l, m->params[0])) == NULL ||
	    c->nickts != (time_t)link_ts(m->params[1]))
		return;
	if (!link_is_remote(c))
		log_info("link %s: our %s lost its nick: it goes by %s",
		    l->name, c->nick, m->params[0]);
	lu_rename(c, m->params[0], LINK_SAVED_TS);
}

static const struct {
	const char	*cmd;
	void		(*fn)(struct link *, struct link_msg *);
} link_handlers[] = {
	{ "AWAY",	h_away },
	{ "ENCAP",	link_hub_encap },
	{ "FHOST",	h_fhost },
	{ "FIDENT",	h_fident },
	{ "FJOIN",	link_chan_fjoin },
	{ "FMODE",	link_chan_fmode },
	{ "FNAME",	h_fname },
	{ "FTOPIC",	link_chan_ftopic },
	{ "IDLE",	h_idle },
	{ "IJOIN",	link_chan_ijoin },
	{ "INVITE",	h_invite },
	{ "KICK",	link_chan_kick },
	{ "KILL",	h_kill },
	{ "METADATA",	h_metadata },
	{ "MODE",	h_umode },
	{ "NICK",	h_nick },
	{ "NOTICE",	h_message },
	{ "OPERTYPE",	h_opertype },
	{ "PART",	link_chan_part },
	{ "PRIVMSG",	h_message },
	{ "QUIT",	h_quit },
	{ "RSQUIT",	link_hub_rsquit },
	{ "SAVE",	h_save },
	{ "SERVER",	h_server },
	{ "SQUIT",	h_squit },
	{ "TAGMSG",	h_message },
	{ "UID",	h_uid },
};

int
link_dispatch(struct link *l, struct link_msg *m, const char *raw)
{
	size_t i;
	char sid[LINK_SIDLEN + 1];
	int known;

	/* No source: the peer itself. Any other must be behind this link. */
	if (m->source == NULL)
		m->source = l->servers[0].sid;
	if (strlen(m->source) != LINK_SIDLEN &&
	    strlen(m->source) != LINK_UUIDLEN) {
		log_debug("link %s: %s from a bad source dropped", l->name,
		    m->cmd);
		return 0;
	}
	memcpy(sid, m->source, LINK_SIDLEN);
	sid[LINK_SIDLEN] = '\0';
	if (link_server_find(l, sid) == -1) {
		log_debug("link %s: %s from unknown source %.9s dropped",
		    l->name, m->cmd, m->source);
		return 0;
	}
	for (i = 0; i < sizeof(link_handlers) / sizeof(link_handlers[0]); i++)
		if (strcmp(link_handlers[i].cmd, m->cmd) == 0) {
			known = link_hub_known(l, m);
			link_handlers[i].fn(l, m);
			if (l->bev == NULL)
				return -1;
			link_hub_forward(l, m, raw, known);
			return 0;
		}
	/* SINFO, OPERTYPE, FHOST, ENCAP, ADDLINE...: not kept yet. */
	log_debug("link %s: %s not handled", l->name, m->cmd);
	return 0;
}

/*
 * client.c: users and their life cycle. A client leaves in one place
 * (client_exit) and is freed later (client_reap), so no caller ever holds
 * a freed client, even in the middle of a channel broadcast.
 */
#include "compat.h"

#include <event2/event.h>
#include <openssl/crypto.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/verify.h"
#include "ircd/clock.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/dict.h"
#include "ircd/hook.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/monitor.h"
#include "ircd/multiline.h"
#include "ircd/numeric.h"
#include "ircd/readmarker.h"
#include "ircd/sasl.h"
#include "ircd/whowas.h"
#include "ircd/xmalloc.h"

static struct client_list dead = TAILQ_HEAD_INITIALIZER(dead);
static struct event *reap_ev;
static uint32_t mark_seq;
static uint64_t client_seq;
/*
 * The prefix and realname of a new client: never NULL, so every reader may
 * print them, and never freed, so a client that never set them costs nothing.
 */
static char client_empty[1];

static void
client_str_free(char *s)
{
	if (s != client_empty)
		free(s);
}

static void
client_reap_cb(evutil_socket_t fd, short what, void *arg)
{
	client_reap();
}

struct client *
client_new(const struct client_ops *ops, struct conn *conn)
{
	struct client *c = xcalloc(1, sizeof(*c));

	c->ops = ops;
	c->conn = conn;
	c->id = ++client_seq;
	c->signon = c->idle = time(NULL);
	c->prefix = c->realname = c->host = client_empty;
	TAILQ_INIT(&c->channels);
	LIST_INIT(&c->invites);
	TAILQ_INSERT_TAIL(&ircd.all, c, entry);
	ircd.nunknown++;
	return c;
}

void
client_register(struct client *c)
{
	c->flags |= CLIENT_REGISTERED;
	c->signon = c->idle = c->nickts = time(NULL);
	ircd.nunknown--;
	ircd.nusers++;
	if (ircd.nusers > ircd.maxusers)
		ircd.maxusers = ircd.nusers;
	/* A user of a linked server names its server (client_ops). */
	if (c->ops->server != NULL)
		ircd.nremote++;
	else if (ircd.nusers - ircd.nremote > ircd.maxlocal)
		ircd.maxlocal = ircd.nusers - ircd.nremote;
	client_update_prefix(c);
	monitor_signon(c);
	hook_user_new(c);
}

struct client *
client_find_any(const char *nick)
{
	char key[NICKLEN + 1];

	if (strlen(nick) > NICKLEN)
		return NULL;
	casemap_fold(key, nick, sizeof(key));
	return dict_get(ircd.clients, key);
}

struct client *
client_find(const char *nick)
{
	struct client *c = client_find_any(nick);

	return c != NULL && (c->flags & CLIENT_REGISTERED) ? c : NULL;
}

void
client_update_prefix(struct client *c)
{
	const char *nick = c->nick[0] ? c->nick : "*";
	const char *user = c->user[0] ? c->user : "*";
	size_t len = strlen(nick) + 1 + strlen(user) + 1 + strlen(c->host) + 1;
	char *p = xmalloc(len);

	/* Exact size: an idle client's prefix is rarely near the longest. */
	snprintf(p, len, "%s!%s@%s", nick, user, c->host);
	client_str_free(c->prefix);
	c->prefix = p;
}

void
client_set_host(struct client *c, const char *host)
{
	char *p = xstrndup(host, HOSTLEN);

	client_str_free(c->host);
	c->host = p;
}

void
client_set_realname(struct client *c, const char *name, size_t len)
{
	char *p;

	if (len > REALLEN)
		len = REALLEN;
	p = xstrndup(name, len);
	client_str_free(c->realname);
	c->realname = p;
}

void
client_set_nick(struct client *c, const char *nick)
{
	char key[NICKLEN + 1], old[NICKLEN + 1];

	/* Unregistered nicks are indexed too, so two clients never race for one. */
	if (c->nick[0] != '\0') {
		casemap_fold(key, c->nick, sizeof(key));
		dict_del(ircd.clients, key);
	}
	strlcpy(old, c->nick, sizeof(old));
	strlcpy(c->nick, nick, sizeof(c->nick));
	casemap_fold(key, c->nick, sizeof(key));
	dict_set(ircd.clients, key, c);
	if (c->flags & CLIENT_REGISTERED)
		c->nickts = time(NULL);
	client_update_prefix(c);
	/*
	 * MONITOR: the old nick went offline, the new one came online. A
	 * change of case only is the same nick to a watcher.
	 */
	if ((c->flags & CLIENT_REGISTERED) && casemap_cmp(old, c->nick) != 0) {
		monitor_signoff(old);
		monitor_signon(c);
	}
}

void
client_nick_overruled(struct client *c)
{
	char key[NICKLEN + 1];

	if (c->nick[0] == '\0' || (c->flags & CLIENT_REGISTERED))
		return;
	client_send(c, ":%s %03d %s %s :Nickname overruled", ircd.conf->name,
	    ERR_NICKNAMEINUSE, client_name(c), c->nick);
	casemap_fold(key, c->nick, sizeof(key));
	dict_del(ircd.clients, key);
	c->nick[0] = '\0';
	c->flags &= ~CLIENT_HAVE_NICK;
	client_update_prefix(c);
}

size_t
client_sendq(const struct client *c)
{
	return c->conn != NULL ? conn_sendq(c->conn) : 0;
}

const char *
client_name(const struct client *c)
{
	return c->nick[0] != '\0' ? c->nick : "*";
}

int
client_is_oper(const struct client *c)
{
	return (c->umodes & UMODE_OPER) != 0;
}

int
client_shows_oper(const struct client *c)
{
	return (c->umodes & UMODE_OPER) || (c->flags & CLIENT_NETOPER);
}

const char *
client_server(const struct client *c, const char **info)
{
	const char *name = NULL, *i = NULL;

	if (c->ops->server != NULL)
		name = c->ops->server(c, &i);
	if (name == NULL) {
		name = ircd.conf->name;
		i = ircd.conf->info != NULL ? ircd.conf->info : "agentircd";
	}
	if (info != NULL)
		*info = i != NULL ? i : "";
	return name;
}

int
client_match_mask(const struct client *c, const char *mask)
{
	char ipprefix[NICKLEN + USERLEN + 64 + 3];

	if (casemap_match(mask, c->prefix))
		return 1;
	snprintf(ipprefix, sizeof(ipprefix), "%s!%s@%s", c->nick, c->user, c->ip);
	return c->ip[0] != '\0' && casemap_match(mask, ipprefix);
}

void
client_sendn(struct client *c, const char *line, size_t len)
{
	if (c->flags & CLIENT_CLOSING)
		return;
	/* Nothing leaves longer than the protocol allows (AG-5). */
	len = message_utf8_trunc(line, len, IRC_LINELEN - 2);
	c->ops->send(c, line, len);
}

void
client_send(struct client *c, const char *fmt, ...)
{
	char buf[IRC_LINELEN * 2];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	client_sendn(c, buf, (size_t)n);
}

struct client *
outmsg_from_line(struct outmsg *m, const char *line, size_t len)
{
	char nick[NICKLEN + 1];
	size_t i;

	memset(m, 0, sizeof(*m));
	len = message_utf8_trunc(line, len, sizeof(m->line) - 1);
	memcpy(m->line, line, len);
	m->line[len] = '\0';
	m->len = len;
	if (line[0] != ':')
		return NULL;
	for (i = 0; i < NICKLEN && i + 1 < len && line[i + 1] != '!' &&
	    line[i + 1] != ' '; i++)
		nick[i] = line[i + 1];
	nick[i] = '\0';
	if ((m->from = client_find_any(nick)) == NULL)
		return NULL;
	m->time_ms = client_time_now_ms();
	client_time_format(m->time_ms, m->time, sizeof(m->time));
	server_msgid(m->msgid, sizeof(m->msgid));
	return m->from;
}

/* To one recipient: as a user's event when it has a source, else plain. */
static void
client_relay(struct client *to, struct outmsg *m)
{
	if (to->flags & CLIENT_CLOSING)
		return;
	if (m->from != NULL)
		to->ops->deliver(to, m);
	else
		to->ops->send(to, m->line, m->len);
}

/*
 * extended-monitor: c's watchers with that cap and cap hear of c's
 * changes without a common channel; the mark skips those already told.
 */
static void
client_send_watchers(struct client *c, unsigned cap, uint32_t mark,
    struct outmsg *om)
{
	struct client *const *w;
	size_t i, n;

	w = monitor_watchers(c, &n);
	for (i = 0; i < n; i++) {
		if (w[i]->mark == mark)
			continue;
		w[i]->mark = mark;
		if ((w[i]->caps & CAP_EXTENDED_MONITOR) && (w[i]->caps & cap))
			client_relay(w[i], om);
	}
}

static void
client_vsend_common(struct client *c, int self, unsigned cap, const char *fmt,
    va_list ap)
{
	char buf[IRC_LINELEN * 2];
	struct client *t;
	struct member *m, *o;
	struct outmsg om;
	uint32_t mark;
	int n;

	/*
	 * Marks are 32 bits to keep struct client small: when they wrap, old
	 * marks are cleared so none can be taken for the new one. 0 is never
	 * a mark, as a new client has it.
	 */
	if ((mark = ++mark_seq) == 0) {
		TAILQ_FOREACH(t, &ircd.all, entry)
			t->mark = 0;
		mark = mark_seq = 1;
	}

	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	outmsg_from_line(&om, buf, (size_t)n);
	c->mark = mark;		/* skip c, unless self */
	if (self && (cap == 0 || (c->caps & cap)))
		client_relay(c, &om);
	TAILQ_FOREACH(m, &c->channels, by_client) {
		TAILQ_FOREACH(o, &m->channel->members, by_channel) {
			if (o->client->mark == mark)
				continue;
			o->client->mark = mark;
			if (cap == 0 || (o->client->caps & cap))
				client_relay(o->client, &om);
		}
	}
	if (cap != 0)
		client_send_watchers(c, cap, mark, &om);
}

void
client_send_common(struct client *c, int self, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	client_vsend_common(c, self, 0, fmt, ap);
	va_end(ap);
}

void
client_send_common_cap(struct client *c, int self, unsigned cap,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	client_vsend_common(c, self, cap, fmt, ap);
	va_end(ap);
}

void
client_relayn(struct client *to, const char *line, size_t len)
{
	struct outmsg om;

	outmsg_from_line(&om, line, len);
	client_relay(to, &om);
}

int64_t
client_time_now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

void
client_time_format(int64_t ms, char *buf, size_t len)
{
	char ts[32];

	clock_utc(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", (time_t)(ms / 1000));
	snprintf(buf, len, "%.20s.%03uZ", ts, (unsigned)(ms % 1000));
}

void
client_time_tag(char *buf, size_t len)
{
	client_time_format(client_time_now_ms(), buf, len);
}

void
outmsg_render(struct outmsg *m)
{
	int n;
	size_t len;

	m->nwire = 0;
	m->time_ms = m->net_time_ms > 0 ? m->net_time_ms : client_time_now_ms();
	client_time_format(m->time_ms, m->time, sizeof(m->time));
	if (m->net_msgid != NULL && m->net_msgid[0] != '\0')
		strlcpy(m->msgid, m->net_msgid, sizeof(m->msgid));
	else
		server_msgid(m->msgid, sizeof(m->msgid));
	if (m->text == NULL) {
		n = snprintf(m->line, sizeof(m->line), ":%s %s %s", m->from->prefix,
		    m->cmd, m->target);
		m->len = n > 0 && (size_t)n < sizeof(m->line) ? (size_t)n : 0;
		return;
	}
	n = snprintf(m->line, sizeof(m->line), ":%s %s %s :", m->from->prefix,
	    m->cmd, m->target);
	if (n < 0 || (size_t)n >= sizeof(m->line) - 2) {
		m->len = 0;
		return;
	}
	len = strlen(m->text);
	len = message_utf8_trunc(m->text, len, IRC_LINELEN - 2 - (size_t)n);
	memcpy(m->line + n, m->text, len);
	m->len = (size_t)n + len;
	m->line[m->len] = '\0';
}

void
client_invite_add(struct client *c, const char *chan)
{
	struct invite *inv;
	char key[CHANNELLEN + 1];

	casemap_fold(key, chan, sizeof(key));
	LIST_FOREACH(inv, &c->invites, entry)
		if (strcmp(inv->chan, key) == 0)
			return;
	/* Bounded: the oldest invite goes when a client collects too many. */
	if (c->ninvites >= CLIENT_MAXINVITES) {
		struct invite *last = NULL;

		LIST_FOREACH(inv, &c->invites, entry)
			last = inv;
		LIST_REMOVE(last, entry);
		free(last);
		c->ninvites--;
	}
	inv = xcalloc(1, sizeof(*inv));
	strlcpy(inv->chan, key, sizeof(inv->chan));
	LIST_INSERT_HEAD(&c->invites, inv, entry);
	c->ninvites++;
}

int
client_invite_take(struct client *c, const char *chan)
{
	struct invite *inv;
	char key[CHANNELLEN + 1];

	casemap_fold(key, chan, sizeof(key));
	LIST_FOREACH(inv, &c->invites, entry) {
		if (strcmp(inv->chan, key) == 0) {
			LIST_REMOVE(inv, entry);
			free(inv);
			c->ninvites--;
			return 1;
		}
	}
	return 0;
}

void
client_invite_clear(struct client *c, const char *chan)
{
	(void)client_invite_take(c, chan);
}

void
client_exit(struct client *c, const char *reason)
{
	struct member *m, *mt;
	struct invite *inv;
	char key[NICKLEN + 1];

	if (c->flags & CLIENT_CLOSING)
		return;
	/* Its own list first: a client watching itself hears nothing now. */
	monitor_clear(c);
	if (c->flags & CLIENT_REGISTERED) {
		client_send_common(c, 0, ":%s QUIT :%s", c->prefix, reason);
		monitor_signoff(c->nick);
		hook_user_quit(c, reason);
		chanlife_quit(c);
		TAILQ_FOREACH_SAFE(m, &c->channels, by_client, mt)
			channel_remove(m->channel, c);
		whowas_add(c);
		ircd.nusers--;
		if (c->ops->server != NULL)
			ircd.nremote--;
		if (c->umodes & UMODE_INVISIBLE)
			ircd.ninvisible--;
		if ((c->umodes & UMODE_OPER) || (c->flags & CLIENT_NETOPER))
			ircd.nopers--;
	} else
		ircd.nunknown--;
	if (c->nick[0] != '\0') {
		casemap_fold(key, c->nick, sizeof(key));
		dict_del(ircd.clients, key);
	}
	c->flags |= CLIENT_CLOSING;
	sasl_free(c);
	verify_forget(c);
	multiline_free(c);
	while ((inv = LIST_FIRST(&c->invites)) != NULL) {
		LIST_REMOVE(inv, entry);
		free(inv);
	}
	c->ops->release(c, reason);
	c->conn = NULL;
	TAILQ_REMOVE(&ircd.all, c, entry);
	TAILQ_INSERT_TAIL(&dead, c, entry);
	if (reap_ev == NULL)
		reap_ev = event_new(ircd.base, -1, 0, client_reap_cb, NULL);
	event_active(reap_ev, 0, 0);
}

void
client_reap(void)
{
	struct client *c;

	while ((c = TAILQ_FIRST(&dead)) != NULL) {
		TAILQ_REMOVE(&dead, c, entry);
		client_str_free(c->prefix);
		client_str_free(c->realname);
		client_str_free(c->host);
		free(c->away);
		free(c->account);
		free(c->oper);
		free(c->certfp);
		readmarker_free(c);
		if (c->pass != NULL) {
			OPENSSL_cleanse(c->pass, strlen(c->pass));
			free(c->pass);
		}
		free(c);
	}
}

void
client_shutdown(void)
{
	client_reap();
	monitor_shutdown();
	if (reap_ev != NULL)
		event_free(reap_ev);
	reap_ev = NULL;
}

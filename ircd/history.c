/*
 * history.c: the IRC side of store/. Messages are stored before they are
 * relayed, so an acknowledged message is on disk (HS-2); a message that
 * cannot be stored is refused with FAIL, never dropped in silence.
 * Channels restored at start stay until someone joins and leaves them.
 */
#include "compat.h"

#include <event2/event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/chanlife.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

static struct store *store;
static struct event *prune_ev;

/* Retention runs at start and then every hour, in bounded batches. */
static void
history_prune_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	/* Prune in its own chunked transactions, not inside the turn's batch. */
	history_commit();
	if (store != NULL && (ircd.conf->history_days > 0 ||
	    ircd.conf->history_max_rows > 0))
		store_history_prune(store, ircd.conf->history_days,
		    ircd.conf->history_max_rows);
	chanlife_expire();
}

static void
history_log(int is_error, const char *msg)
{
	if (is_error)
		log_warnx("store: %s", msg);
	else
		log_info("store: %s", msg);
}

struct store *
history_store(void)
{
	return store;
}

static void
history_load_channel(const struct store_channel *sc, void *arg)
{
	struct channel *ch;

	(void)arg;
	if (!casemap_valid_channel(sc->name, CHANNELLEN))
		return;
	if ((ch = channel_find(sc->name)) == NULL)
		ch = channel_create(sc->name);
	/* It was kept when it emptied, or the server stopped with it: keep it. */
	ch->stored = 1;
	/* Full when the server stopped: the clock starts now. */
	ch->empty_since = sc->emptied > 0 ? (time_t)sc->emptied : time(NULL);
	if (sc->modes != NULL)
		ch->modes = mode_chan_flags(sc->modes);
	if (sc->created > 0)
		ch->created = (time_t)sc->created;
	if (sc->key != NULL)
		strlcpy(ch->key, sc->key, sizeof(ch->key));
	ch->limit = sc->limit;
	if (sc->topic != NULL)
		channel_set_topic(ch, sc->topic, sc->topic_who != NULL ?
		    sc->topic_who : ircd.conf->name, (time_t)sc->topic_time);
}

static void
history_load_ban(const char *conv, const struct store_ban *sb, void *arg)
{
	struct channel *ch = channel_find(conv);

	(void)arg;
	if (ch == NULL)
		return;
	channel_ban_add(channel_banlist(ch, sb->list), sb->mask,
	    sb->setter != NULL ? sb->setter : ircd.conf->name,
	    (time_t)sb->time);
}

/* A remembered operator's account (AU-7). */
static void
history_load_op(const char *conv, const char *account, void *arg)
{
	struct channel *ch = channel_find(conv);
	struct convkey k;

	(void)arg;
	if (ch == NULL)
		return;
	convkey_account(&k, account);
	channel_op_add(ch, k.s);
}

int
history_open(void)
{
	char err[512];

	store_set_log(history_log);
	if ((store = store_open(ircd.conf->database, err, sizeof(err))) == NULL) {
		log_warnx("database %s: %s", ircd.conf->database, err);
		return -1;
	}
	log_info("database %s (schema %d)", ircd.conf->database, store_version(store));
	if (ircd.conf->history_days > 0 || ircd.conf->history_max_rows > 0 ||
	    ircd.conf->channel_expire_days > 0) {
		struct timeval hour = { 3600, 0 };

		history_prune_cb(-1, 0, NULL);
		prune_ev = event_new(ircd.base, -1, EV_PERSIST, history_prune_cb, NULL);
		event_add(prune_ev, &hour);
	}
	store_channel_load_all(store, history_load_channel, history_load_ban, NULL);
	store_channel_ops(store, history_load_op, NULL);
	store_members_reset(store);
	chanlife_expire();	/* a server down for long may find some old */
	return 0;
}

/*
 * The end of a loop turn, before any line of it is written (conn.c): the
 * turn's messages are committed together, so each costs no commit of its own.
 */
void
history_commit(void)
{
	if (store != NULL && store_batch_open(store) &&
	    store_batch_commit(store) == -1)
		log_warnx("history: the messages of one loop turn could not be "
		    "committed; they are delivered but not in the history");
}

void
history_close(void)
{
	if (prune_ev != NULL)
		event_free(prune_ev);
	prune_ev = NULL;
	store_close(store);
	store = NULL;
}

void
history_principal(const struct client *c, struct convkey *k)
{
	/* A service user's nick is fixed by the config: it is its principal. */
	if (c->flags & CLIENT_SERVICE)
		convkey_service(k, c->nick);
	else if (c->account != NULL)
		convkey_account(k, c->account);
	else
		convkey_connection(k, ircd.msgid_base, c->id);
}

int
history_principal_is(const struct client *c, const struct convkey *p)
{
	struct convkey k;

	/* A connection stays itself when it logs in: its key is by its id. */
	if (convkey_is_connection(p->s) && !(c->flags & CLIENT_SERVICE))
		convkey_connection(&k, ircd.msgid_base, c->id);
	else
		history_principal(c, &k);
	return strcmp(k.s, p->s) == 0;
}

void
history_channel_conv(const struct channel *ch, struct convkey *k)
{
	convkey_channel(k, ch->name);
}

/*
 * The conversation key for target as c may read it, into conv: a channel
 * c is in, or a private conversation with a nick (online or not).
 */
int
history_conv_for(struct client *c, const char *target, struct convkey *conv)
{
	struct convkey me, them;
	char folded[NICKLEN + 1];
	struct client *t;
	struct channel *ch;

	if (casemap_is_channel(target)) {
		if ((ch = channel_find(target)) == NULL || channel_member(ch, c) == NULL)
			return -1;
		history_channel_conv(ch, conv);
		return 0;
	}
	if (!casemap_valid_nick(target, NICKLEN))
		return -1;
	history_principal(c, &me);
	if ((t = client_find(target)) != NULL) {
		history_principal(t, &them);
		convkey_private(conv, &me, &them);
		return 0;
	}
	casemap_fold(folded, target, sizeof(folded));
	return store_private_find(history_store(), me.s, folded, conv->s,
	    sizeof(conv->s));
}

int
history_has_msgid(const char *msgid)
{
	if (store == NULL)
		return 0;
	return store_history_has(store, msgid) == 1;
}

int
history_add(struct client *from, const char *conv, struct outmsg *om)
{
	struct store_msg sm;
	char server[NICKLEN + 1];

	memset(&sm, 0, sizeof(sm));
	strlcpy(sm.msgid, om->msgid, sizeof(sm.msgid));
	sm.time = om->time_ms;
	sm.conv = conv;
	sm.target = om->target;
	sm.kind = om->cmd;
	if (from != NULL) {
		sm.prefix = from->prefix;
		sm.nick = from->nick;
		sm.account = from->account;
	} else {
		/* The server's name, cut as a nick is where a nick goes. */
		strlcpy(server, ircd.conf->name, sizeof(server));
		sm.prefix = ircd.conf->name;
		sm.nick = server;
	}
	sm.text = om->text;
	sm.tags = om->ctags != NULL && om->ctags[0] != '\0' ? om->ctags : NULL;
	/*
	 * The message joins the turn's batch, committed before any line of the
	 * turn is written (conn.c): stored before relayed, one commit per turn.
	 */
	if (store == NULL || store_batch_begin(store) == -1 ||
	    store_history_add(store, &sm) == -1) {
		if (from != NULL)
			reply_fail(from, om->cmd, "MESSAGE_ERROR", om->target,
			    "Your message could not be stored, so it was not "
			    "sent; try again");
		else
			log_warnx("history: a %s of the server to %s could "
			    "not be stored, so it was not sent", om->cmd,
			    om->target);
		return -1;
	}
	om->hid = sm.id;
	conn_flush_soon();
	return 0;
}

int
history_add_channel(struct client *from, struct channel *ch, struct outmsg *om)
{
	struct convkey conv;

	if (om->tagmsg)
		return 0;
	history_channel_conv(ch, &conv);
	if (history_add(from, conv.s, om) == -1)
		return -1;
	ch->stored = 1;		/* AU-7: a channel with history outlives emptiness */
	return 0;
}

int
history_add_private(struct client *from, struct client *to, struct outmsg *om)
{
	struct convkey p1, p2, conv;

	if (om->tagmsg)
		return 0;
	history_principal(from, &p1);
	history_principal(to, &p2);
	convkey_private(&conv, &p1, &p2);
	return history_add(from, conv.s, om);
}

/* One line of a stored message to c; the first of a message has its id. */
static void
history_send_line(struct client *c, const struct store_msg *sm, const char *batch,
    int time_prefix, const char *text, size_t tlen, int first)
{
	struct outmsg om;
	struct client from;
	char prefix[NICKLEN + USERLEN + HOSTLEN + 3];
	int n;

	/* The stored sender, as a stand-in: only its prefix and account count. */
	memset(&from, 0, sizeof(from));
	strlcpy(prefix, sm->prefix, sizeof(prefix));
	from.prefix = prefix;
	from.account = (char *)(uintptr_t)sm->account;
	memset(&om, 0, sizeof(om));
	om.from = &from;
	om.batch = batch;
	om.ctags = first ? sm->tags : NULL;
	om.nomsgid = !first;
	om.time_ms = sm->time;
	client_time_format(sm->time, om.time, sizeof(om.time));
	strlcpy(om.msgid, sm->msgid, sizeof(om.msgid));
	n = snprintf(om.line, sizeof(om.line), ":%s %s %s :", sm->prefix, sm->kind,
	    sm->target);
	if (n < 0 || (size_t)n >= sizeof(om.line) - 1)
		return;
	if (time_prefix) {
		/* No server-time: the time goes in front of the text. */
		time_t secs = (time_t)(sm->time / 1000);
		struct tm tm;
		int w;

		gmtime_r(&secs, &tm);
		w = snprintf(om.line + n, sizeof(om.line) - (size_t)n,
		    "[%02d:%02d:%02d] ", tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (w > 0)
			n += w;
	}
	if ((size_t)n + tlen > IRC_LINELEN - 2)
		tlen = message_utf8_trunc(text, tlen, IRC_LINELEN - 2 - (size_t)n);
	memcpy(om.line + n, text, tlen);
	om.len = (size_t)n + tlen;
	om.line[om.len] = '\0';
	c->ops->deliver(c, &om);
}

/*
 * Send a stored message to c as replay lines. A multiline message holds
 * newlines: each of its lines goes on its own line, the blank ones not
 * at all, so nothing stored can break the protocol.
 */
void
history_send_msg(struct client *c, const struct store_msg *sm, const char *batch,
    int time_prefix)
{
	const char *p = sm->text, *nl;
	int first = 1;

	for (;;) {
		size_t len;

		nl = strpbrk(p, "\r\n");
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (p[strspn(p, " ")] != '\0' && len > strspn(p, " ")) {
			history_send_line(c, sm, batch, time_prefix, p, len, first);
			first = 0;
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

struct replay {
	struct client	*c;
	const char	*batch;
	int		 time_prefix;
	int64_t		 after;		/* only newer messages: what c missed */
	int		 any;		/* history_replay_any found one */
};

static void
history_replay_one(const struct store_msg *sm, void *arg)
{
	struct replay *r = arg;

	if (sm->id > r->after)
		history_send_msg(r->c, sm, r->batch, r->time_prefix);
}

/* Would c's replay of ch, of messages newer than after, hold any? */
static void
history_replay_any(const struct store_msg *sm, void *arg)
{
	struct replay *r = arg;

	if (sm->id > r->after)
		r->any = 1;
}

void
history_replay_join(struct client *c, struct channel *ch)
{
	static unsigned long seq;
	struct convkey conv;
	char ref[16];
	struct replay r;
	struct chanlife_who w;
	struct member *m;
	const struct store_who *who;

	/*
	 * A client with chathistory asks for what it wants (HS-3); a bot
	 * reads what it is sent from now on.
	 */
	if (store == NULL || ircd.conf->history_replay <= 0 ||
	    (c->caps & CAP_CHATHISTORY) || (c->umodes & UMODE_BOT) ||
	    (m = channel_member(ch, c)) == NULL)
		return;
	history_channel_conv(ch, &conv);
	/* AU-7: of a closed channel, only what c was there for. */
	who = chanlife_reader(ch, c, &w);
	/*
	 * HS-3: who left and comes back gets what it missed since (the
	 * newest history-replay of it, and nothing when nothing was said);
	 * anyone else the last history-replay lines.
	 */
	r.c = c;
	r.after = m->left_at;
	r.any = 0;
	/*
	 * Nothing missed, or nothing ever said (a channel created empty,
	 * HS-3): no empty batch either.
	 */
	store_history_query_as(store, conv.s, who, STORE_LATEST, NULL, NULL, 1,
	    history_replay_any, &r);
	if (!r.any)
		return;
	r.batch = NULL;
	r.time_prefix = !(c->caps & CAP_SERVER_TIME);
	if (c->caps & CAP_BATCH) {
		snprintf(ref, sizeof(ref), "H%lx", ++seq);
		r.batch = ref;
		client_send(c, ":%s BATCH +%s chathistory %s", ircd.conf->name, ref,
		    ch->name);
	}
	store_history_query_as(store, conv.s, who, STORE_LATEST, NULL, NULL,
	    ircd.conf->history_replay, history_replay_one, &r);
	if (r.batch != NULL)
		client_send(c, ":%s BATCH -%s", ircd.conf->name, ref);
}

void
history_channel_save(struct channel *ch)
{
	struct store_channel sc;
	struct convkey conv;
	char modes[16];

	if (store == NULL)
		return;
	history_channel_conv(ch, &conv);
	mode_chan_letters(ch->modes, modes, sizeof(modes));
	memset(&sc, 0, sizeof(sc));
	sc.conv = conv.s;
	sc.name = ch->name;
	sc.topic = ch->topic;
	sc.topic_who = ch->topic_who;
	sc.topic_time = ch->topic_time;
	sc.created = ch->created;
	sc.modes = modes;
	sc.key = ch->key[0] != '\0' ? ch->key : NULL;
	sc.limit = ch->limit;
	sc.emptied = ch->nmembers == 0 ? ch->empty_since : 0;
	store_channel_save(store, &sc);
}

void
history_ban_add(struct channel *ch, char list, const struct ban *b)
{
	struct store_ban sb;
	struct convkey conv;

	if (store == NULL)
		return;
	history_channel_save(ch);
	history_channel_conv(ch, &conv);
	sb.mask = b->mask;
	sb.setter = b->setter;
	sb.time = b->when;
	sb.list = list;
	store_ban_add(store, conv.s, &sb);
}

void
history_ban_del(struct channel *ch, char list, const char *mask)
{
	struct convkey conv;

	if (store == NULL)
		return;
	history_channel_conv(ch, &conv);
	store_ban_del(store, conv.s, list, mask);
}

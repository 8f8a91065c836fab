/*
 * chanlife.c: a channel's authority outlives its members (AU-7). It
 * remembers who gets op when they join, records each person's stays so
 * that a +s/+k/+i channel shows a returning person only what was said
 * while they were in it, and ends a channel's life (dropped, expired):
 * its history moves aside, and the name starts again empty.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ircd/casemap.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/convkey.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "store/store.h"

/*
 * The store, with the loop turn's batch open: a JOIN or PART costs no
 * commit of its own (history_commit ends the batch with the turn).
 * NULL when there is none, or the server is stopping.
 */
static struct store *
chanlife_store(void)
{
	struct store *s = history_store();

	if (s == NULL || ircd.stopping || store_batch_begin(s) == -1)
		return NULL;
	conn_flush_soon();
	return s;
}

/*
 * The two principals of c: its own (account, connection or service) and
 * its connection's (conn may be NULL), which differ once it logs in.
 */
static void
chanlife_keys(const struct client *c, struct convkey *own,
    struct convkey *conn)
{
	history_principal(c, own);
	if (conn == NULL)
		return;
	if (c->flags & CLIENT_SERVICE)
		*conn = *own;
	else
		convkey_connection(conn, ircd.msgid_base, c->id);
}

const struct store_who *
chanlife_reader(const struct channel *ch, const struct client *c,
    struct chanlife_who *w)
{
	if (!(ch->modes & (CMODE_SECRET | CMODE_INVITEONLY)) &&
	    ch->key[0] == '\0')
		return NULL;
	chanlife_keys(c, &w->own, &w->conn);
	w->who.p1 = w->own.s;
	w->who.p2 = w->conn.s;
	return &w->who;
}

/* Does the config's [channel] ops list c's account? Only a login counts. */
static int
chanlife_conf_op(const struct channel *ch, const struct client *c)
{
	const struct conf_channel *cc;
	size_t i, j;

	if (c->account == NULL || ircd.conf == NULL)
		return 0;
	for (i = 0; i < ircd.conf->nchannels; i++) {
		cc = &ircd.conf->channels[i];
		if (casemap_cmp(cc->name, ch->name) != 0)
			continue;
		for (j = 0; cc->ops != NULL && cc->ops[j] != NULL; j++)
			if (casemap_cmp(cc->ops[j], c->account) == 0)
				return 1;
		break;
	}
	return 0;
}

int
chanlife_is_op(const struct channel *ch, const struct client *c)
{
	struct convkey own, conn;

	if (chanlife_conf_op(ch, c))
		return 1;
	chanlife_keys(c, &own, &conn);
	return channel_op_has(ch, own.s) || channel_op_has(ch, conn.s);
}

void
chanlife_op(struct channel *ch, const struct client *c, int on)
{
	struct convkey own, conn, conv;
	struct store *s;

	/* An agent's rank is the config's business, not a memory of ours. */
	if (c->flags & CLIENT_SERVICE)
		return;
	s = c->account != NULL ? chanlife_store() : NULL;
	chanlife_keys(c, &own, &conn);
	history_channel_conv(ch, &conv);
	if (!on) {
		channel_op_del(ch, own.s);
		channel_op_del(ch, conn.s);
		if (s != NULL)
			store_channel_op_del(s, conv.s, c->account);
		return;
	}
	if (channel_op_add(ch, own.s) == -1)
		return;		/* full: op for now, not remembered */
	if (s != NULL) {
		history_channel_save(ch);
		store_channel_op_add(s, conv.s, c->account);
	}
}

int64_t
chanlife_joined(struct channel *ch, const struct client *c)
{
	struct convkey own, conv;
	struct store *s;
	int64_t left;

	if ((s = chanlife_store()) == NULL)
		return -1;
	/* The first member in: no longer empty, whatever was stored. */
	if (ch->nmembers == 1 && ch->stored)
		history_channel_save(ch);
	chanlife_keys(c, &own, NULL);
	history_channel_conv(ch, &conv);
	/* Before this stay is recorded, which may continue the last. */
	left = store_member_left(s, conv.s, own.s);
	store_member_join(s, conv.s, own.s);
	return left >= 0 ? left : -1;
}

void
chanlife_parted(struct channel *ch, const struct client *c)
{
	struct convkey own, other, conv;
	struct store *s;
	struct member *m;

	if (ch->nmembers == 0)
		ch->empty_since = time(NULL);
	if ((s = chanlife_store()) == NULL)
		return;
	/* Kept while empty: when it emptied is kept too (expiry). */
	if (ch->nmembers == 0 && channel_kept(ch))
		history_channel_save(ch);
	chanlife_keys(c, &own, NULL);
	/* Another connection of the same account is still there: still in. */
	if (c->account != NULL)
		TAILQ_FOREACH(m, &ch->members, by_channel) {
			if (m->client == c || m->client->account == NULL)
				continue;
			history_principal(m->client, &other);
			if (strcmp(other.s, own.s) == 0)
				return;
		}
	history_channel_conv(ch, &conv);
	store_member_part(s, conv.s, own.s);
}

void
chanlife_quit(const struct client *c)
{
	struct convkey own, conn;
	struct member *m;
	struct store *s;

	if (c->flags & CLIENT_SERVICE)
		return;
	chanlife_keys(c, &own, &conn);
	/* The connection is nobody once it is gone: forget what it held. */
	TAILQ_FOREACH(m, &c->channels, by_client)
		channel_op_del(m->channel, conn.s);
	if ((s = chanlife_store()) != NULL)
		store_member_forget(s, conn.s);
}

int64_t
chanlife_since(const struct channel *ch, const struct client *c)
{
	struct convkey own, conv;
	struct store *s = history_store();

	if (s == NULL)
		return -1;
	chanlife_keys(c, &own, NULL);
	history_channel_conv(ch, &conv);
	return store_member_since(s, conv.s, own.s);
}

void
chanlife_end(struct channel *ch)
{
	struct convkey conv;
	struct store *s = history_store();
	char tag[32];

	if (ch->nmembers > 0)
		return;
	/*
	 * A stopping server keeps every channel as it is; otherwise what the
	 * name held moves aside, tagged with the time its life ended.
	 */
	if (s != NULL && !ircd.stopping) {
		history_channel_conv(ch, &conv);
		snprintf(tag, sizeof(tag), "%lld", (long long)server_now_ms());
		if (store_channel_retire(s, conv.s, tag) == -1)
			log_warnx("channel %s: its history could not be set "
			    "aside; it is kept", ch->name);
		else if (ch->stored)
			log_info("channel %s ended: history set aside as %s@%s",
			    ch->name, conv.s, tag);
	}
	channel_destroy(ch);
}

void
chanlife_expire(void)
{
	struct channel *ch;
	time_t cutoff;
	size_t pos = 0;
	int days = ircd.conf->channel_expire_days;

	if (days <= 0)
		return;
	cutoff = time(NULL) - (time_t)days * 86400;
	while ((ch = dict_next(ircd.channels, &pos, NULL)) != NULL) {
		if (ch->nmembers > 0 || ch->permanent || ch->empty_since == 0 ||
		    ch->empty_since > cutoff)
			continue;
		log_info("channel %s expired: empty for %d days", ch->name,
		    days);
		chanlife_end(ch);
		pos = 0;	/* the dict changed under the walk */
	}
}

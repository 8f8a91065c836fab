/*
 * channel.c: channels, membership and the checks every command shares
 * (bans, who may speak). A channel dies with its last member unless the
 * config names it or it holds something worth keeping (AU-7).
 */
#include "compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/banmask.h"
#include "ircd/casemap.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/hook.h"
#include "ircd/numeric.h"
#include "ircd/xmalloc.h"

struct channel *
channel_find(const char *name)
{
	char key[CHANNELLEN + 1];

	if (strlen(name) > CHANNELLEN)
		return NULL;
	casemap_fold(key, name, sizeof(key));
	return dict_get(ircd.channels, key);
}

struct channel *
channel_create(const char *name)
{
	struct channel *ch = xcalloc(1, sizeof(*ch));
	char key[CHANNELLEN + 1];

	strlcpy(ch->name, name, sizeof(ch->name));
	ch->created = time(NULL);
	TAILQ_INIT(&ch->members);
	TAILQ_INIT(&ch->bans.head);
	TAILQ_INIT(&ch->excepts.head);
	TAILQ_INIT(&ch->invex.head);
	ch->modes = mode_chan_flags(ircd.conf->default_modes);
	casemap_fold(key, name, sizeof(key));
	dict_set(ircd.channels, key, ch);
	ircd.nchannels++;
	return ch;
}

static void
channel_ban_clear(struct banlist *l)
{
	struct ban *b;

	while ((b = TAILQ_FIRST(&l->head)) != NULL)
		channel_ban_del(l, b);
}

int
channel_kept(const struct channel *ch)
{
	return ch->permanent || ch->stored || ch->topic != NULL ||
	    ch->key[0] != '\0' || ch->limit > 0 || ch->bans.n > 0 ||
	    ch->excepts.n > 0 || ch->invex.n > 0 ||
	    ch->modes != mode_chan_flags(ircd.conf->default_modes);
}

void
channel_maybe_destroy(struct channel *ch)
{
	if (ch->nmembers > 0 || channel_kept(ch))
		return;
	chanlife_end(ch);
}

void
channel_destroy(struct channel *ch)
{
	char key[CHANNELLEN + 1];
	unsigned i;

	if (ch->nmembers > 0)
		return;
	casemap_fold(key, ch->name, sizeof(key));
	dict_del(ircd.channels, key);
	ircd.nchannels--;
	hook_channel_gone(ch);
	channel_ban_clear(&ch->bans);
	channel_ban_clear(&ch->excepts);
	channel_ban_clear(&ch->invex);
	for (i = 0; i < ch->nops; i++)
		free(ch->ops[i]);
	free(ch->ops);
	free(ch->topic);
	free(ch);
}

int
channel_op_has(const struct channel *ch, const char *principal)
{
	unsigned i;

	for (i = 0; i < ch->nops; i++)
		if (strcmp(ch->ops[i], principal) == 0)
			return 1;
	return 0;
}

int
channel_op_add(struct channel *ch, const char *principal)
{
	if (channel_op_has(ch, principal))
		return 0;
	if (ch->nops >= CHANNEL_MAXOPS)
		return -1;
	ch->ops = xreallocarray(ch->ops, ch->nops + 1, sizeof(*ch->ops));
	ch->ops[ch->nops++] = xstrdup(principal);
	return 0;
}

void
channel_op_del(struct channel *ch, const char *principal)
{
	unsigned i;

	for (i = 0; i < ch->nops; i++)
		if (strcmp(ch->ops[i], principal) == 0) {
			free(ch->ops[i]);
			ch->ops[i] = ch->ops[--ch->nops];
			return;
		}
}

struct member *
channel_member(const struct channel *ch, const struct client *c)
{
	struct member *m;

	/* Walk the shorter list: a user is in few channels, a channel has many users. */
	if (c->nchannels <= ch->nmembers) {
		TAILQ_FOREACH(m, &c->channels, by_client)
			if (m->channel == ch)
				return m;
	} else {
		TAILQ_FOREACH(m, &ch->members, by_channel)
			if (m->client == c)
				return m;
	}
	return NULL;
}

struct member *
channel_add(struct channel *ch, struct client *c, unsigned modes)
{
	struct member *m = xcalloc(1, sizeof(*m));

	m->client = c;
	m->channel = ch;
	m->modes = modes;
	TAILQ_INSERT_TAIL(&ch->members, m, by_channel);
	TAILQ_INSERT_TAIL(&c->channels, m, by_client);
	ch->nmembers++;
	c->nchannels++;
	if (c->flags & CLIENT_SERVICE)
		ch->nservices++;
	m->left_at = chanlife_joined(ch, c);
	if (c->ops->joined != NULL)
		c->ops->joined(c, ch);
	return m;
}

void
channel_remove(struct channel *ch, struct client *c)
{
	struct member *m = channel_member(ch, c);

	if (m == NULL)
		return;
	TAILQ_REMOVE(&ch->members, m, by_channel);
	TAILQ_REMOVE(&c->channels, m, by_client);
	ch->nmembers--;
	c->nchannels--;
	if (c->flags & CLIENT_SERVICE)
		ch->nservices--;
	free(m);
	chanlife_parted(ch, c);
	if (c->ops->parted != NULL)
		c->ops->parted(c, ch);
	channel_maybe_destroy(ch);
}

int
member_filter_pass(const struct member_filter *f, const struct client *c,
    const struct member *m)
{
	if (c->flags & CLIENT_CLOSING)
		return 0;
	return f == NULL || (c != f->except &&
	    (m == NULL || f->modes == 0 || (m->modes & f->modes)) &&
	    (c->caps & f->caps) == f->caps && !(c->caps & f->skip_caps));
}

void
channel_each(struct channel *ch, const struct member_filter *f,
    void (*fn)(struct client *, void *), void *arg)
{
	struct member *m;

	TAILQ_FOREACH(m, &ch->members, by_channel)
		if (member_filter_pass(f, m->client, m))
			fn(m->client, arg);
}

static void
channel_deliver(struct client *c, void *om)
{
	c->ops->deliver(c, om);
}

void
channel_relay(struct channel *ch, const struct member_filter *f,
    struct outmsg *om)
{
	channel_each(ch, f, channel_deliver, om);
}

struct rawline {
	const char	*line;
	size_t		 len;
};

static void
channel_sendraw(struct client *c, void *arg)
{
	struct rawline *r = arg;

	client_sendn(c, r->line, r->len);
}

void
channel_sendn(struct channel *ch, struct client *except, const char *line, size_t len)
{
	struct outmsg om;
	struct rawline r = { line, len };
	struct member_filter f = { .except = except };

	/* A user's event carries its tags (time, msgid, account...) per recipient. */
	if (outmsg_from_line(&om, line, len) == NULL)
		channel_each(ch, &f, channel_sendraw, &r);
	else
		channel_relay(ch, &f, &om);
}

void
channel_send(struct channel *ch, struct client *except, const char *fmt, ...)
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
	channel_sendn(ch, except, buf, (size_t)n);
}

void
channel_modes_string(const struct channel *ch, char *buf, size_t len, int show_args)
{
	char letters[16], args[64] = "";
	size_t n;

	letters[0] = '+';
	mode_chan_letters(ch->modes, letters + 1, sizeof(letters) - 3);
	n = strlen(letters);
	if (ch->key[0] != '\0') {
		letters[n++] = 'k';
		strlcat(args, " ", sizeof(args));
		strlcat(args, show_args ? ch->key : "*", sizeof(args));
	}
	if (ch->limit > 0) {
		char num[16];

		letters[n++] = 'l';
		snprintf(num, sizeof(num), " %u", ch->limit);
		strlcat(args, num, sizeof(args));
	}
	letters[n] = '\0';
	snprintf(buf, len, "%s%s", letters, args);
}

const char *
channel_prefix(const struct member *m, int multi)
{
	if ((m->modes & (MEMBER_OP | MEMBER_VOICE)) == (MEMBER_OP | MEMBER_VOICE))
		return multi ? "@+" : "@";
	if (m->modes & MEMBER_OP)
		return "@";
	if (m->modes & MEMBER_VOICE)
		return "+";
	return "";
}

struct banlist *
channel_banlist(struct channel *ch, char letter)
{
	switch (letter) {
	case 'b':
		return &ch->bans;
	case 'e':
		return &ch->excepts;
	case 'I':
		return &ch->invex;
	default:
		return NULL;
	}
}

struct ban *
channel_ban_find(struct banlist *l, const char *mask)
{
	struct ban *b;

	TAILQ_FOREACH(b, &l->head, entry)
		if (casemap_cmp(b->mask, mask) == 0)
			return b;
	return NULL;
}

struct ban *
channel_ban_add(struct banlist *l, const char *mask, const char *setter,
    time_t when)
{
	struct ban *b;

	if (ircd.conf->max_bans > 0 && l->n >= (unsigned)ircd.conf->max_bans)
		return NULL;
	b = xcalloc(1, sizeof(*b));
	b->mask = xstrdup(mask);
	b->setter = xstrdup(setter);
	b->when = when;
	TAILQ_INSERT_TAIL(&l->head, b, entry);
	l->n++;
	return b;
}

void
channel_ban_del(struct banlist *l, struct ban *b)
{
	TAILQ_REMOVE(&l->head, b, entry);
	l->n--;
	free(b->mask);
	free(b->setter);
	free(b);
}

/* Does a host mask or R:account name c? An m: entry names nobody here. */
static int
channel_mask_match(const struct client *c, const char *mask)
{
	const char *value;

	switch (banmask_split(mask, &value)) {
	case 0:
		return client_match_mask(c, mask);
	case 'R':
		return c->account != NULL && casemap_match(value, c->account);
	default:
		return 0;
	}
}

/*
 * Does an entry of l match c? ext 0: as a ban (host masks, R:); else
 * only the entries of that extban ('m'), by what follows "m:". So a
 * plain +e lifts a plain ban, an m: exception a mute, as in InspIRCd.
 */
static int
channel_list_match(const struct banlist *l, const struct client *c, char ext)
{
	const struct ban *b;
	const char *value;

	TAILQ_FOREACH(b, &l->head, entry) {
		if (ext == 0 ? channel_mask_match(c, b->mask) :
		    banmask_split(b->mask, &value) == ext &&
		    channel_mask_match(c, value))
			return 1;
	}
	return 0;
}

int
channel_is_banned(const struct channel *ch, const struct client *c)
{
	return channel_list_match(&ch->bans, c, 0) &&
	    !channel_list_match(&ch->excepts, c, 0);
}

int
channel_is_invexempt(const struct channel *ch, const struct client *c)
{
	return channel_list_match(&ch->invex, c, 0);
}

const char *
channel_cannot_send(const struct channel *ch, const struct client *c)
{
	struct member *m = channel_member(ch, c);

	if (m == NULL && (ch->modes & CMODE_NOEXTERNAL))
		return "Cannot send to channel (no external messages)";
	if (m != NULL && (m->modes & (MEMBER_OP | MEMBER_VOICE)))
		return NULL;
	if (ch->modes & CMODE_MODERATED)
		return "Cannot send to channel (+m)";
	if (channel_is_banned(ch, c))
		return "Cannot send to channel (you are banned)";
	if (channel_list_match(&ch->bans, c, 'm') &&
	    !channel_list_match(&ch->excepts, c, 'm'))
		return "Cannot send to channel (you are muted)";
	return NULL;
}

int
channel_can_send(const struct channel *ch, const struct client *c)
{
	return channel_cannot_send(ch, c) == NULL ? 0 : ERR_CANNOTSENDTOCHAN;
}

void
channel_set_topic(struct channel *ch, const char *topic, const char *who, time_t when)
{
	free(ch->topic);
	ch->topic = topic != NULL && topic[0] != '\0' ? xstrdup(topic) : NULL;
	strlcpy(ch->topic_who, who, sizeof(ch->topic_who));
	ch->topic_time = when;
}

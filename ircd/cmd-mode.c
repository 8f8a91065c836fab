/*
 * cmd-mode.c: MODE for users (+i +w +B, -o) and channels (flags, key,
 * limit, the lists +b +e +I, ops and voices). mode.c splits the string;
 * this file checks rights, applies each change in order and relays what
 * really changed.
 */
#include "compat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/banmask.h"
#include "ircd/casemap.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/message.h"
#include "ircd/mode.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/*
 * The changes that took effect, rendered as one MODE line: "+ov-k" and
 * its parameters, copied at once (a ban may be freed by a later change).
 * When the parameters would overflow a line, what is there is sent and
 * a new line begins, so no change is ever cut.
 */
struct mode_out {
	struct client	*from;
	struct channel	*ch;		/* NULL for a user mode echo */
	char		 modes[MODE_MAXCHANGES * 2 + 2];
	size_t		 mlen;
	char		 dir;		/* last sign written, 0 for none */
	char		 args[IRC_LINELEN];
	size_t		 alen;
	int		 nargs;
	int		 changed;	/* anything applied, for saving */
	size_t		 lastoff;	/* where the last parameter begins */
};

static void
mode_out_init(struct mode_out *o, struct client *from, struct channel *ch)
{
	memset(o, 0, sizeof(*o));
	o->from = from;
	o->ch = ch;
}

static void
mode_out_flush(struct mode_out *o)
{
	char args[IRC_LINELEN + 2];

	if (o->mlen == 0)
		return;
	o->modes[o->mlen] = '\0';
	args[0] = '\0';
	if (o->nargs > 0) {
		/* Parameters were written plain; only the last may need ':'. */
		const char *last = o->args + o->lastoff + 1;

		memcpy(args, o->args, o->lastoff);
		args[o->lastoff] = '\0';
		message_join_params(args, sizeof(args), 1, &last);
	}
	if (o->ch != NULL) {
		char change[IRC_LINELEN];

		channel_send(o->ch, NULL, ":%s MODE %s %s%s", o->from->prefix,
		    o->ch->name, o->modes, args);
		/* Both fit one line: the change is never cut, but -O1 can't tell. */
		if (snprintf(change, sizeof(change), "%s%s", o->modes,
		    args) >= 0)
			hook_channel_mode(o->ch, o->from, change);
	} else
		client_send(o->from, ":%s MODE %s :%s", o->from->nick,
		    o->from->nick, o->modes);
	o->mlen = o->alen = o->lastoff = 0;
	o->nargs = 0;
	o->dir = 0;
}

static void
mode_out_add(struct mode_out *o, char dir, char letter, const char *arg)
{
	size_t fixed, alen = arg != NULL ? strlen(arg) + 2 : 0;

	o->changed = 1;
	/* ":prefix MODE #chan " + modes + args + CRLF */
	fixed = 1 + strlen(o->from->prefix) + 6 +
	    (o->ch != NULL ? strlen(o->ch->name) : strlen(o->from->nick)) + 1;
	if (o->mlen + 2 >= sizeof(o->modes) ||
	    fixed + o->mlen + 2 + o->alen + alen + 2 > IRC_LINELEN)
		mode_out_flush(o);
	if (o->dir != dir)
		o->modes[o->mlen++] = dir;
	o->dir = dir;
	o->modes[o->mlen++] = letter;
	if (arg != NULL && o->alen + alen < sizeof(o->args)) {
		o->lastoff = o->alen;
		o->alen += (size_t)snprintf(o->args + o->alen,
		    sizeof(o->args) - o->alen, " %s", arg);
		o->nargs++;
	}
}

/* User modes as "+iw", for 221. */
static void
umode_string(const struct client *c, char *buf, size_t len)
{
	size_t n = 0;

	if (len < 6)
		return;
	buf[n++] = '+';
	if (c->umodes & UMODE_INVISIBLE)
		buf[n++] = 'i';
	if (c->umodes & UMODE_OPER)
		buf[n++] = 'o';
	if (c->umodes & UMODE_WALLOPS)
		buf[n++] = 'w';
	if (c->umodes & UMODE_BOT)
		buf[n++] = 'B';
	buf[n] = '\0';
}

static void
mode_user(struct client *c, struct client *target, struct message *msg)
{
	struct mode_out o;
	const char *p;
	char buf[16], dir = '+';
	unsigned bit;
	int unknown = 0, deoper = 0;

	if (target != c) {
		reply(c, ERR_USERSDONTMATCH);
		return;
	}
	if (msg->nparams < 2) {
		umode_string(c, buf, sizeof(buf));
		reply(c, RPL_UMODEIS, buf);
		return;
	}
	mode_out_init(&o, c, NULL);
	for (p = msg->params[1]; *p != '\0'; p++) {
		switch (*p) {
		case '+':
		case '-':
			dir = *p;
			continue;
		case 'i':
			bit = UMODE_INVISIBLE;
			break;
		case 'w':
			bit = UMODE_WALLOPS;
			break;
		case 'B':
			bit = UMODE_BOT;
			break;
		case 'o':
			/* Only OPER grants +o; anyone may drop it. */
			if (dir == '+')
				continue;
			bit = UMODE_OPER;
			break;
		default:
			unknown = 1;
			continue;
		}
		if (dir == '+' && !(c->umodes & bit)) {
			c->umodes |= bit;
			if (bit == UMODE_INVISIBLE)
				ircd.ninvisible++;
		} else if (dir == '-' && (c->umodes & bit)) {
			c->umodes &= ~bit;
			if (bit == UMODE_INVISIBLE)
				ircd.ninvisible--;
			if (bit == UMODE_OPER) {
				ircd.nopers--;
				free(c->oper);
				c->oper = NULL;
				if (c->conn != NULL)
					conn_set_flood_exempt(c->conn, 0);
				deoper = 1;
			}
		} else
			continue;
		mode_out_add(&o, dir, *p, NULL);
	}
	if (unknown)
		reply(c, ERR_UMODEUNKNOWNFLAG);
	mode_out_flush(&o);
	if (deoper)
		hook_user_oper(c);
}

/*
 * 696 for a parameter that cannot be taken. What the user sent may be
 * empty or hold spaces ("MODE #c +l :"), which cannot be a middle
 * parameter: then the reply names it "*", so the line stays well formed.
 */
static void
mode_invalid(struct client *c, struct channel *ch, char letter,
    const char *arg, const char *why)
{
	const char *p;

	if (arg == NULL || arg[0] == '\0' || arg[0] == ':')
		arg = "*";
	for (p = arg; *p != '\0'; p++)
		if (*p == ' ')
			arg = "*";
	reply(c, ERR_INVALIDMODEPARAM, ch->name, letter, arg, why);
}

/* +b, +e and +I: each list's numerics. */
static const struct {
	char	letter;
	int	item, end;
} mode_lists[] = {
	{ 'b', RPL_BANLIST, RPL_ENDOFBANLIST },
	{ 'e', RPL_EXCEPTLIST, RPL_ENDOFEXCEPTLIST },
	{ 'I', RPL_INVEXLIST, RPL_ENDOFINVEXLIST },
};

static void
ban_list(struct client *c, struct channel *ch, char letter)
{
	struct banlist *l = channel_banlist(ch, letter);
	struct ban *b;
	size_t i, n = sizeof(mode_lists) / sizeof(mode_lists[0]);

	for (i = 0; i < n && mode_lists[i].letter != letter; i++)
		continue;
	if (i == n || l == NULL)
		return;
	/* The list of a secret channel is as hidden as the channel. */
	if (!(ch->modes & CMODE_SECRET) || channel_member(ch, c) != NULL)
		TAILQ_FOREACH(b, &l->head, entry)
			reply(c, mode_lists[i].item, ch->name, b->mask,
			    b->setter, (long long)b->when);
	reply(c, mode_lists[i].end, ch->name);
}

/* A key that can travel as one parameter and in JOIN's comma list. */
static int
key_valid(const char *k)
{
	const char *p;

	if (k[0] == '\0' || k[0] == ':' || strlen(k) > KEYLEN)
		return 0;
	for (p = k; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == ',' ||
		    (unsigned char)*p == 0x7f)
			return 0;
	return 1;
}

/* +o/-o/+v/-v on a member. */
static void
cmode_prefix(struct client *c, struct channel *ch, struct mode_change *mc,
    struct mode_out *o)
{
	struct client *target;
	struct member *tm;
	unsigned bit = mc->letter == 'o' ? MEMBER_OP : MEMBER_VOICE;

	if ((target = client_find(mc->arg)) == NULL) {
		/* "MODE #c +o :" names no one; "" cannot be a middle parameter. */
		reply(c, ERR_NOSUCHNICK, mc->arg[0] != '\0' ? mc->arg : "*");
		return;
	}
	if ((tm = channel_member(ch, target)) == NULL) {
		reply(c, ERR_USERNOTINCHANNEL, target->nick, ch->name);
		return;
	}
	if (mc->dir == '+' && !(tm->modes & bit))
		tm->modes |= bit;
	else if (mc->dir == '-' && (tm->modes & bit))
		tm->modes &= ~bit;
	else
		return;
	/* AU-7: an op is remembered, by account, for when they come back. */
	if (bit == MEMBER_OP)
		chanlife_op(ch, target, mc->dir == '+');
	mode_out_add(o, mc->dir, mc->letter, target->nick);
}

static void
cmode_key(struct client *c, struct channel *ch, struct mode_change *mc,
    struct mode_out *o)
{
	if (mc->dir == '-') {
		/* RFC 1459 wants the key to unset it; clients often omit it. */
		if (ch->key[0] == '\0')
			return;
		ch->key[0] = '\0';
		mode_out_add(o, '-', 'k', "*");
		return;
	}
	if (!key_valid(mc->arg)) {
		reply(c, ERR_INVALIDKEY, ch->name);
		return;
	}
	if (strcmp(ch->key, mc->arg) == 0)
		return;
	strlcpy(ch->key, mc->arg, sizeof(ch->key));
	mode_out_add(o, '+', 'k', ch->key);
}

static void
cmode_limit(struct client *c, struct channel *ch, struct mode_change *mc,
    struct mode_out *o)
{
	char num[16], *end;
	unsigned long v;

	if (mc->dir == '-') {
		if (ch->limit == 0)
			return;
		ch->limit = 0;
		mode_out_add(o, '-', 'l', NULL);
		return;
	}
	if (!isdigit((unsigned char)mc->arg[0]) ||
	    (v = strtoul(mc->arg, &end, 10)) == 0 || *end != '\0' ||
	    v > 1000000) {
		mode_invalid(c, ch, 'l', mc->arg,
		    "Invalid limit mode parameter");
		return;
	}
	if (ch->limit == (unsigned)v)
		return;
	ch->limit = (unsigned)v;
	snprintf(num, sizeof(num), "%u", ch->limit);
	mode_out_add(o, '+', 'l', num);
}

/* +b, +e, +I: an entry added or removed, and stored (HS-2). */
static void
cmode_list(struct client *c, struct channel *ch, struct mode_change *mc,
    struct mode_out *o)
{
	struct banlist *l = channel_banlist(ch, mc->letter);
	char mask[BANMASK_LEN + 1];
	const char *why;
	struct ban *b;

	if ((why = banmask_normalize(mc->arg, mc->letter, mask,
	    sizeof(mask))) != NULL) {
		/* A mask stored before these rules can still be removed. */
		if (mc->dir == '-' && (b = channel_ban_find(l, mc->arg)) != NULL)
			strlcpy(mask, b->mask, sizeof(mask));
		else {
			mode_invalid(c, ch, mc->letter, mc->arg, why);
			return;
		}
	}
	b = channel_ban_find(l, mask);
	if (mc->dir == '-') {
		if (b == NULL && (b = channel_ban_find(l, mc->arg)) == NULL)
			return;
		mode_out_add(o, '-', mc->letter, b->mask);
		history_ban_del(ch, mc->letter, b->mask);
		channel_ban_del(l, b);
		return;
	}
	if (b != NULL)
		return;
	if ((b = channel_ban_add(l, mask, c->prefix, time(NULL))) == NULL) {
		reply(c, ERR_BANLISTFULL, ch->name, mc->letter);
		return;
	}
	history_ban_add(ch, mc->letter, b);
	mode_out_add(o, '+', mc->letter, b->mask);
}

static void
mode_channel(struct client *c, struct channel *ch, struct message *msg)
{
	struct mode_change ch_list[MODE_MAXCHANGES];
	struct mode_out o;
	struct member *m = channel_member(ch, c);
	char buf[IRC_LINELEN];
	unsigned bit;
	char listed[4] = "";	/* the lists shown: each once */
	int i, n, isop, denied = 0, nparam = 0;

	if (msg->nparams < 2) {
		channel_modes_string(ch, buf, sizeof(buf), m != NULL);
		reply(c, RPL_CHANNELMODEIS, ch->name, buf);
		reply(c, RPL_CREATIONTIME, ch->name, (long long)ch->created);
		return;
	}
	isop = m != NULL && (m->modes & MEMBER_OP);
	n = mode_parse(msg->params[1], (const char *const *)&msg->params[2],
	    msg->nparams - 2, mode_chan_type, ch_list, MODE_MAXCHANGES);
	mode_out_init(&o, c, ch);
	for (i = 0; i < n; i++) {
		struct mode_change *mc = &ch_list[i];
		enum mode_type t = mode_chan_type(mc->letter);

		if (t == MODE_UNKNOWN) {
			reply(c, ERR_UNKNOWNMODE, mc->letter);
			continue;
		}
		if (t == MODE_LIST && mc->arg == NULL) {
			/* A query, not a change: anyone may ask, once a list. */
			if (strchr(listed, mc->letter) == NULL) {
				ban_list(c, ch, mc->letter);
				listed[strlen(listed)] = mc->letter;
			}
			continue;
		}
		if (!isop) {
			if (!denied++)
				reply(c, ERR_CHANOPRIVSNEEDED, ch->name);
			continue;
		}
		if (mc->arg != NULL && ++nparam > MAXMODES)
			continue;	/* over the limit: ignored, as in 005 */
		switch (t) {
		case MODE_FLAG:
			bit = mode_chan_flag(mc->letter);
			if (mc->dir == '+' && !(ch->modes & bit))
				ch->modes |= bit;
			else if (mc->dir == '-' && (ch->modes & bit))
				ch->modes &= ~bit;
			else
				break;
			mode_out_add(&o, mc->dir, mc->letter, NULL);
			break;
		case MODE_PREFIX:
			if (mc->arg != NULL)
				cmode_prefix(c, ch, mc, &o);
			break;
		case MODE_ALWAYS:
			if (mc->arg == NULL && mc->dir == '+')
				reply(c, ERR_INVALIDMODEPARAM, ch->name, 'k',
				    "*", "You must specify a parameter for "
				    "the key mode");
			else
				cmode_key(c, ch, mc, &o);
			break;
		case MODE_SETONLY:
			if (mc->arg == NULL && mc->dir == '+')
				reply(c, ERR_INVALIDMODEPARAM, ch->name, 'l',
				    "*", "You must specify a parameter for "
				    "the limit mode");
			else
				cmode_limit(c, ch, mc, &o);
			break;
		case MODE_LIST:
			cmode_list(c, ch, mc, &o);
			break;
		case MODE_UNKNOWN:
		default:
			break;
		}
	}
	/* Modes, key and limit survive a restart (HS-2). */
	if (o.changed)
		history_channel_save(ch);
	mode_out_flush(&o);
}

void
cmd_mode(struct client *c, struct message *msg)
{
	struct client *target;
	struct channel *ch;

	if (msg->nparams < 1) {
		reply(c, ERR_NEEDMOREPARAMS, "MODE");
		return;
	}
	if (casemap_is_channel(msg->params[0])) {
		if ((ch = channel_find(msg->params[0])) == NULL)
			reply(c, ERR_NOSUCHCHANNEL, msg->params[0]);
		else
			mode_channel(c, ch, msg);
		return;
	}
	if ((target = client_find(msg->params[0])) == NULL) {
		reply(c, ERR_NOSUCHNICK, msg->params[0]);
		return;
	}
	mode_user(c, target, msg);
}

/*
 * link-chan.c: the peer's lines about channels (LK-2, LK-3): joins (FJOIN,
 * IJOIN), PART, KICK, FTOPIC and FMODE, by InspIRCd's timestamp rules:
 * the older channel wins, and its modes, bans and prefixes with it. What
 * the network changes is shown to the local members as MODE, TOPIC, JOIN
 * lines from the peer, and stored like a local change (AU-7).
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/banmask.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/ircd.h"
#include "ircd/link/link.h"
#include "ircd/log.h"
#include "ircd/mode.h"

/* A ban mask as a line may carry it: no space, comma or control. */
static int
lu_mask_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > BANMASK_LEN)
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == ',' || *s == 0x7f)
			return 0;
	return 1;
}

/* A remote user joins ch with prefix letters; local members see it. */
static void
lu_join(struct link *l, struct channel *ch, struct client *c,
    const char *prefixes)
{
	unsigned modes = 0;

	if (channel_member(ch, c) != NULL)
		return;
	/* A bound on what one remote user may make this server keep. */
	if (c->nchannels >= LINK_MAXCHANS) {
		log_warnx("link %s: %s is in %d channels already; %s ignored",
		    l->name, c->nick, LINK_MAXCHANS, ch->name);
		return;
	}
	if (strchr(prefixes, 'o') != NULL)
		modes |= MEMBER_OP;
	if (strchr(prefixes, 'v') != NULL)
		modes |= MEMBER_VOICE;
	channel_add(ch, c, modes);
	channel_relay_join(c, ch);
	if (modes & MEMBER_OP)
		channel_send(ch, c, ":%s MODE %s +o %s", l->name, ch->name,
		    c->nick);
	if (modes & MEMBER_VOICE)
		channel_send(ch, c, ":%s MODE %s +v %s", l->name, ch->name,
		    c->nick);
}

/*
 * Modes from the network, applied and shown to the local members as from
 * source: prefixes (of members named by UUID), flags, key, limit and
 * the lists +b +e +I. The first letter this server does not know ends the change: it
 * cannot tell whether that letter takes a parameter. Returns the number
 * of changes made.
 */
static int
lu_apply_modes(struct link *l, struct channel *ch, const char *source,
    const char *modestr, char **args, int nargs)
{
	struct member *mb;
	struct client *t;
	struct banlist *bl;
	struct ban *b;
	char out[IRC_LINELEN], outargs[IRC_LINELEN];
	const char *p, *arg;
	char dir = '+', last = 0;
	size_t on = 0;
	int ai = 0, n = 0;
	enum mode_type type;

	outargs[0] = '\0';
	for (p = modestr; *p != '\0' && on + 3 < sizeof(out); p++) {
		if (*p == '+' || *p == '-') {
			dir = *p;
			continue;
		}
		/* A letter we do not keep: skipped, with its parameter. */
		if ((type = mode_chan_type(*p)) == MODE_UNKNOWN) {
			type = link_peer_chanmode(l, *p);
			if (type == MODE_UNKNOWN)
				break;	/* cannot tell what follows */
			if (type == MODE_PREFIX || type == MODE_LIST ||
			    type == MODE_ALWAYS ||
			    (type == MODE_SETONLY && dir == '+'))
				ai++;
			continue;
		}
		arg = NULL;
		if (type == MODE_PREFIX || type == MODE_LIST ||
		    type == MODE_ALWAYS || (type == MODE_SETONLY && dir == '+')) {
			if (ai >= nargs)
				break;
			arg = args[ai++];
		}
		if (type == MODE_PREFIX) {
			unsigned bit = *p == 'o' ? MEMBER_OP : MEMBER_VOICE;

			if ((t = link_find_uuid(l, arg)) == NULL ||
			    (mb = channel_member(ch, t)) == NULL ||
			    ((mb->modes & bit) != 0) == (dir == '+'))
				continue;
			if (dir == '+')
				mb->modes |= bit;
			else
				mb->modes &= ~bit;
			arg = t->nick;
		} else if (type == MODE_FLAG) {
			if (((ch->modes & mode_chan_flag(*p)) != 0) == (dir == '+'))
				continue;
			if (dir == '+')
				ch->modes |= mode_chan_flag(*p);
			else
				ch->modes &= ~mode_chan_flag(*p);
		} else if (*p == 'k') {
			if (dir == '+')
				strlcpy(ch->key, arg, sizeof(ch->key));
			else if (ch->key[0] == '\0')
				continue;
			else
				ch->key[0] = '\0';
		} else if (*p == 'l') {
			ch->limit = dir == '+' ? (unsigned)link_ts(arg) : 0;
		} else if ((bl = channel_banlist(ch, *p)) != NULL) {
			/* +b +e +I; an extban (R:, m:) arrives as it is. */
			b = channel_ban_find(bl, arg);
			if (dir == '-' && b != NULL) {
				history_ban_del(ch, *p, b->mask);
				channel_ban_del(bl, b);
			} else if (dir == '+' && b == NULL && lu_mask_ok(arg) &&
			    (b = channel_ban_add(bl, arg, source,
			    time(NULL))) != NULL) {
				history_ban_add(ch, *p, b);
			} else
				continue;
		} else
			continue;	/* other list modes: not kept */
		n++;
		if (dir != last)
			out[on++] = last = dir;
		out[on++] = *p;
		if (arg != NULL && strlen(outargs) + strlen(arg) + 2 <
		    sizeof(outargs)) {
			strlcat(outargs, " ", sizeof(outargs));
			strlcat(outargs, arg, sizeof(outargs));
		}
	}
	out[on] = '\0';
	if (n > 0) {
		channel_send(ch, NULL, ":%s MODE %s %s%s", source, ch->name,
		    out, outargs);
		history_channel_save(ch);
	}
	return n;
}

/*
 * TS rules: the peer's channel is older, so ours loses what it had
 * (modes, key, limit, bans, topic, every prefix) and takes the peer's
 * time; the peer's modes and members follow in the same FJOIN.
 */
static void
lu_lower_ts(struct link *l, struct channel *ch, long long ts)
{
	struct member *m;
	struct ban *b;
	const char *lp;
	char flags[16];

	log_info("link %s: %s is older on the network (%lld < %lld): its "
	    "modes here give way", l->name, ch->name, ts,
	    (long long)ch->created);
	ch->created = (time_t)ts;
	TAILQ_FOREACH(m, &ch->members, by_channel) {
		if (m->modes & MEMBER_OP)
			channel_send(ch, NULL, ":%s MODE %s -o %s", l->name,
			    ch->name, m->client->nick);
		if (m->modes & MEMBER_VOICE)
			channel_send(ch, NULL, ":%s MODE %s -v %s", l->name,
			    ch->name, m->client->nick);
		m->modes = 0;
	}
	mode_chan_letters(ch->modes, flags, sizeof(flags));
	if (flags[0] != '\0')
		channel_send(ch, NULL, ":%s MODE %s -%s", l->name, ch->name,
		    flags);
	ch->modes = 0;
	if (ch->key[0] != '\0')
		channel_send(ch, NULL, ":%s MODE %s -k %s", l->name, ch->name,
		    ch->key);
	ch->key[0] = '\0';
	if (ch->limit != 0)
		channel_send(ch, NULL, ":%s MODE %s -l", l->name, ch->name);
	ch->limit = 0;
	for (lp = "beI"; *lp != '\0'; lp++) {
		struct banlist *bl = channel_banlist(ch, *lp);

		while ((b = TAILQ_FIRST(&bl->head)) != NULL) {
			channel_send(ch, NULL, ":%s MODE %s -%c %s", l->name,
			    ch->name, *lp, b->mask);
			history_ban_del(ch, *lp, b->mask);
			channel_ban_del(bl, b);
		}
	}
	if (ch->topic != NULL)
		channel_set_topic(ch, NULL, "", 0);
	history_channel_save(ch);
}

static struct channel *
lu_channel(struct link *l, const char *name, long long ts, int *theirs)
{
	struct channel *ch;

	*theirs = 1;
	if (!casemap_valid_channel(name, CHANNELLEN)) {
		log_warnx("link %s: bad channel name ignored", l->name);
		return NULL;
	}
	if ((ch = channel_find(name)) == NULL) {
		ch = channel_create(name);
		/* Not ours to begin with: the peer's modes, not our defaults. */
		ch->modes = 0;
		if (ts > 0)
			ch->created = (time_t)ts;
	} else if (ts > 0 && ts < ch->created)
		lu_lower_ts(l, ch, ts);
	else if (ts > ch->created)
		*theirs = 0;	/* ours is older: their modes do not count */
	return ch;
}

/* FJOIN #chan ts +modes [params] :[prefixes],uuid[:membid] ... */
void
link_chan_fjoin(struct link *l, struct link_msg *m)
{
	struct link_member mb;
	struct channel *ch;
	struct client *c;
	const char *s;
	int r, theirs;

	if (link_source_server(l, m) == -1 || m->nparams < 4)
		return;
	if ((ch = lu_channel(l, m->params[0], link_ts(m->params[1]),
	    &theirs)) == NULL)
		return;
	s = m->params[m->nparams - 1];
	while ((r = link_fjoin_next(&s, &mb)) != 0) {
		if (r == -1 || (c = dict_get(l->users, mb.uuid)) == NULL)
			continue;
		lu_join(l, ch, c, theirs ? mb.modes : "");
	}
	if (ch->nmembers == 0) {
		channel_maybe_destroy(ch);
		return;
	}
	if (theirs)
		lu_apply_modes(l, ch, link_source_name(l, m), m->params[2],
		    m->params + 3, m->nparams - 4);
}

/* :uuid IJOIN #chan membid [ts prefixes] */
void
link_chan_ijoin(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	struct channel *ch;
	long long ts = 0;
	int theirs;

	if (c == NULL || m->nparams < 1)
		return;
	/* With a time and prefixes: the joiner gets them if it counts. */
	if (m->nparams >= 4)
		ts = link_ts(m->params[2]);
	if ((ch = lu_channel(l, m->params[0], ts, &theirs)) == NULL)
		return;
	lu_join(l, ch, c, m->nparams >= 4 && theirs ? m->params[3] : "");
}

void
link_chan_part(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	struct channel *ch;

	if (c == NULL || m->nparams < 1 ||
	    (ch = channel_find(m->params[0])) == NULL ||
	    channel_member(ch, c) == NULL)
		return;
	if (m->nparams > 1 && m->params[1][0] != '\0')
		channel_send(ch, NULL, ":%s PART %s :%s", c->prefix, ch->name,
		    m->params[1]);
	else
		channel_send(ch, NULL, ":%s PART %s", c->prefix, ch->name);
	channel_remove(ch, c);
}

/* :src KICK #chan uuid [membid] :reason */
void
link_chan_kick(struct link *l, struct link_msg *m)
{
	struct channel *ch;
	struct client *t;

	if (m->nparams < 2 || (ch = channel_find(m->params[0])) == NULL ||
	    (t = link_find_uuid(l, m->params[1])) == NULL ||
	    channel_member(ch, t) == NULL)
		return;
	channel_send(ch, NULL, ":%s KICK %s %s :%s", link_source_name(l, m),
	    ch->name, t->nick, m->nparams > 2 ? m->params[m->nparams - 1] :
	    t->nick);
	channel_remove(ch, t);
}

/* Server: FTOPIC #chan chants topicts setter :topic; a user's: no setter. */
void
link_chan_ftopic(struct link *l, struct link_msg *m)
{
	struct client *c = link_source_user(l, m);
	struct channel *ch;
	long long chants, ts;
	const char *who, *topic;
	char buf[TOPICLEN + 1];

	if (m->nparams < 4 || (ch = channel_find(m->params[0])) == NULL)
		return;
	chants = link_ts(m->params[1]);
	ts = link_ts(m->params[2]);
	if (chants > ch->created)
		return;
	topic = link_cut(buf, sizeof(buf), m->params[m->nparams - 1], TOPICLEN);
	if (c != NULL)
		who = c->prefix;
	else if (m->nparams >= 5)
		who = m->params[3];
	else
		return;
	/* In a burst, the newer topic wins; a user's change always does. */
	if (c == NULL && ch->topic != NULL && ts < ch->topic_time)
		return;
	if (ch->topic != NULL && strcmp(ch->topic, topic) == 0)
		return;
	channel_set_topic(ch, topic, who, (time_t)ts);
	channel_send(ch, NULL, ":%s TOPIC %s :%s", c != NULL ? c->prefix :
	    link_source_name(l, m), ch->name, topic);
	history_channel_save(ch);
}

/* FMODE #chan ts modes params...: applied unless our channel is older. */
void
link_chan_fmode(struct link *l, struct link_msg *m)
{
	struct channel *ch;

	if (m->nparams < 3 || (ch = channel_find(m->params[0])) == NULL ||
	    link_ts(m->params[1]) > ch->created)
		return;
	lu_apply_modes(l, ch, link_source_name(l, m), m->params[2],
	    m->params + 3, m->nparams - 3);
}


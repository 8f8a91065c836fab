/*
 * cmd-channel.c: the channel commands a user runs: JOIN, PART, TOPIC,
 * NAMES, LIST (with ELIST filters), INVITE and KICK. Membership itself
 * lives in channel.c; this file decides who may do what and replies.
 */
#include "compat.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/readmarker.h"
#include "ircd/reply.h"

/*
 * Cut the next comma-separated item off *sp in place. Empty items are
 * skipped (",,#a" is "#a"), so callers never see "".
 */
static char *
chan_next_item(char **sp)
{
	char *s = *sp, *item;

	if (s == NULL)
		return NULL;
	while (*s == ',')
		s++;
	if (*s == '\0') {
		*sp = NULL;
		return NULL;
	}
	item = s;
	while (*s != '\0' && *s != ',')
		s++;
	if (*s == ',')
		*s++ = '\0';
	*sp = s;
	return item;
}

/* Copy text into buf, cut on a UTF-8 boundary so it takes at most max bytes. */
static const char *
chan_trunc(char *buf, size_t size, const char *text, size_t max)
{
	size_t len = strlen(text);

	if (max >= size)
		max = size - 1;
	len = message_utf8_trunc(text, len, max);
	memmove(buf, text, len);	/* text may be buf itself */
	buf[len] = '\0';
	return buf;
}

/*
 * Room left for a trailing text on a relayed line ":prefix CMD a b :text"
 * whose fixed part is fixed bytes long, so that text is never cut mid-
 * character by the final line cap.
 */
static size_t
chan_room(size_t fixed)
{
	size_t max = IRC_LINELEN - 2;

	return fixed >= max ? 0 : max - fixed;
}

static int
chan_is_op(const struct member *m)
{
	return m != NULL && (m->modes & MEMBER_OP) != 0;
}

/* Is ch shown to c at all? Secret channels only to their members. */
static int
chan_visible(const struct channel *ch, const struct client *c)
{
	return !(ch->modes & CMODE_SECRET) || channel_member(ch, c) != NULL;
}

/* How many items a comma list may hold (TARGMAX); 0 means no limit. */
static int
chan_targmax(void)
{
	return ircd.conf != NULL && ircd.conf->max_targets > 0 ?
	    ircd.conf->max_targets : 0;
}

/* The name of the server, as reply() writes it, to size NAMES lines. */
static const char *
chan_server_name(void)
{
	return ircd.conf != NULL && ircd.conf->name != NULL ?
	    ircd.conf->name : "agentircd.local";
}

/*
 * NAMES for one channel: 353 lines, then 366. A non-member
 * sees a secret channel as empty and does not see invisible users; lines
 * are filled up to the 512-byte limit. After a JOIN (joined), c's read
 * marker goes before the 366, as draft/read-marker asks.
 */
static void
chan_send_names(struct client *c, struct channel *ch, int joined)
{
	char names[IRC_LINELEN];
	const char *sym = (ch->modes & CMODE_SECRET) ? "@" : "=";
	struct member *m;
	size_t fixed, budget, len = 0;
	int member = channel_member(ch, c) != NULL;

	if (!member && (ch->modes & CMODE_SECRET))
		goto end;
	/* ":server 353 nick = #chan :" and CRLF */
	fixed = 1 + strlen(chan_server_name()) + 5 + strlen(client_name(c)) +
	    1 + strlen(sym) + 1 + strlen(ch->name) + 2 + 2;
	budget = fixed < IRC_LINELEN ? IRC_LINELEN - fixed : 0;
	if (budget >= sizeof(names))
		budget = sizeof(names) - 1;
	TAILQ_FOREACH(m, &ch->members, by_channel) {
		const char *pfx, *who;
		size_t need;

		if (!member && (m->client->umodes & UMODE_INVISIBLE))
			continue;
		pfx = channel_prefix(m, (c->caps & CAP_MULTI_PREFIX) != 0);
		/* userhost-in-names: nick!user@host instead of the nick. */
		who = (c->caps & CAP_USERHOST_IN_NAMES) ? m->client->prefix :
		    m->client->nick;
		need = strlen(pfx) + strlen(who) + (len > 0);
		if (len > 0 && len + need > budget) {
			reply(c, RPL_NAMREPLY, sym, ch->name, names);
			len = 0;
		}
		len += (size_t)snprintf(names + len, sizeof(names) - len,
		    "%s%s%s", len > 0 ? " " : "", pfx, who);
		if (len >= sizeof(names))
			len = sizeof(names) - 1;
	}
	if (len > 0)
		reply(c, RPL_NAMREPLY, sym, ch->name, names);
end:
	if (joined)
		readmarker_join(c, ch);
	reply(c, RPL_ENDOFNAMES, ch->name);
}

static void
chan_send_topic(struct client *c, const struct channel *ch)
{
	reply(c, RPL_TOPIC, ch->name, ch->topic);
	reply(c, RPL_TOPICWHOTIME, ch->name, ch->topic_who,
	    (long long)ch->topic_time);
}

/* Leave ch with an optional reason, relayed to every member first. */
static void
chan_part(struct client *c, struct channel *ch, const char *reason)
{
	char buf[IRC_LINELEN];

	if (reason != NULL && reason[0] != '\0') {
		/* ":prefix PART #chan :" */
		chan_trunc(buf, sizeof(buf), reason, chan_room(1 +
		    strlen(c->prefix) + 6 + strlen(ch->name) + 2));
		channel_send(ch, NULL, ":%s PART %s :%s", c->prefix, ch->name,
		    buf);
		hook_user_parted(c, ch, buf);
	} else {
		channel_send(ch, NULL, ":%s PART %s", c->prefix, ch->name);
		hook_user_parted(c, ch, NULL);
	}
	channel_remove(ch, c);
}

/* JOIN 0: leave every channel, as if parting each one. */
static void
chan_part_all(struct client *c)
{
	struct member *m, *mt;

	TAILQ_FOREACH_SAFE(m, &c->channels, by_client, mt)
		chan_part(c, m->channel, NULL);
}

/*
 * May c join the existing channel ch with key? 0 if so, else the numeric.
 * Bans block unless a +e entry matches. An invite lets the user past +i,
 * +k and +l (so an op can bring someone into a full or keyed channel)
 * and is used up; a +I entry lets a user past +i only, as in InspIRCd.
 */
static int
chan_join_check(struct client *c, struct channel *ch, const char *key)
{
	int keyok, full, invonly;

	if (channel_is_banned(ch, c))
		return ERR_BANNEDFROMCHAN;
	keyok = ch->key[0] == '\0' || (key != NULL && strcmp(key, ch->key) == 0);
	full = ch->limit > 0 && ch->nmembers >= ch->limit;
	invonly = (ch->modes & CMODE_INVITEONLY) &&
	    !channel_is_invexempt(ch, c);
	if (!invonly && keyok && !full)
		return 0;
	if (client_invite_take(c, ch->name))
		return 0;
	if (invonly)
		return ERR_INVITEONLYCHAN;
	if (!keyok)
		return ERR_BADCHANNELKEY;
	return ERR_CHANNELISFULL;
}

/*
 * The JOIN as each member asked for it: extended-join adds the account
 * and realname; away-notify members learn at once that the joiner is away.
 */
void
channel_relay_join(struct client *c, struct channel *ch)
{
	struct outmsg plain, ext, away;
	struct member *m;
	char line[IRC_LINELEN];
	int n;

	n = snprintf(line, sizeof(line), ":%s JOIN %s", c->prefix, ch->name);
	outmsg_from_line(&plain, line, (size_t)n);
	n = snprintf(line, sizeof(line), ":%s JOIN %s %s :%s", c->prefix, ch->name,
	    c->account != NULL ? c->account : "*", c->realname);
	outmsg_from_line(&ext, line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1));
	if (c->away != NULL) {
		n = snprintf(line, sizeof(line), ":%s AWAY :%s", c->prefix, c->away);
		outmsg_from_line(&away, line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1));
	}
	TAILQ_FOREACH(m, &ch->members, by_channel) {
		struct client *to = m->client;

		if (to->flags & CLIENT_CLOSING)
			continue;
		to->ops->deliver(to, (to->caps & CAP_EXTENDED_JOIN) ? &ext : &plain);
		if (c->away != NULL && to != c && (to->caps & CAP_AWAY_NOTIFY))
			to->ops->deliver(to, &away);
	}
}

static void
chan_join_one(struct client *c, const char *name, const char *key)
{
	struct channel *ch;
	int err, maxch;

	if (!casemap_valid_channel(name, CHANNELLEN)) {
		reply(c, ERR_NOSUCHCHANNEL, name);
		return;
	}
	ch = channel_find(name);
	if (ch != NULL && channel_member(ch, c) != NULL)
		return;		/* already there: nothing to say */
	maxch = ircd.conf != NULL ? ircd.conf->max_channels : 0;
	if (maxch > 0 && c->nchannels >= (unsigned)maxch) {
		reply(c, ERR_TOOMANYCHANNELS, ch != NULL ? ch->name : name);
		return;
	}
	if (ch == NULL) {
		/* Who makes a channel runs it, and gets op back (AU-7). */
		ch = channel_create(name);
		channel_add(ch, c, MEMBER_OP);
		chanlife_op(ch, c, 1);
	} else {
		if ((err = chan_join_check(c, ch, key)) != 0) {
			reply(c, err, ch->name);
			return;
		}
		/* A stale invite must not outlive the join it was for. */
		client_invite_clear(c, ch->name);
		/*
		 * AU-7: op goes only to those the channel remembers or the
		 * config names, never to whoever finds it empty or holding
		 * only agents.
		 */
		channel_add(ch, c, chanlife_is_op(ch, c) ? MEMBER_OP : 0);
	}
	channel_relay_join(c, ch);
	if (ch->topic != NULL)
		chan_send_topic(c, ch);
	chan_send_names(c, ch, 1);
	history_replay_join(c, ch);
	hook_user_joined(c, ch);
}

void
cmd_join(struct client *c, struct message *msg)
{
	char *chans = msg->params[0];
	char *keys = msg->nparams > 1 ? msg->params[1] : NULL;
	char *name, *key;

	/*
	 * No target limit here (TARGMAX JOIN:): the line length bounds the
	 * list and the channel limit bounds what it can do.
	 */
	if (strcmp(chans, "0") == 0) {
		chan_part_all(c);
		return;
	}
	while ((name = chan_next_item(&chans)) != NULL) {
		/* Keys pair with channels by position; "" would skip one. */
		key = NULL;
		if (keys != NULL) {
			key = keys;
			if ((keys = strchr(keys, ',')) != NULL)
				*keys++ = '\0';
		}
		if (strcmp(name, "0") == 0) {
			chan_part_all(c);
			continue;
		}
		chan_join_one(c, name, key);
		if (c->flags & CLIENT_CLOSING)
			return;
	}
}

void
cmd_part(struct client *c, struct message *msg)
{
	char *chans = msg->params[0];
	const char *reason = msg->nparams > 1 ? msg->params[1] : NULL;
	struct channel *ch;
	char *name;

	while ((name = chan_next_item(&chans)) != NULL) {
		if ((ch = channel_find(name)) == NULL) {
			reply(c, ERR_NOSUCHCHANNEL, name);
			continue;
		}
		if (channel_member(ch, c) == NULL) {
			reply(c, ERR_NOTONCHANNEL, ch->name);
			continue;
		}
		chan_part(c, ch, reason);
	}
}

void
cmd_topic(struct client *c, struct message *msg)
{
	char buf[TOPICLEN + 1];
	struct channel *ch;
	struct member *m;
	const char *text;

	if ((ch = channel_find(msg->params[0])) == NULL) {
		reply(c, ERR_NOSUCHCHANNEL, msg->params[0]);
		return;
	}
	m = channel_member(ch, c);
	if (msg->nparams < 2) {
		/* A secret channel does not exist for outsiders. */
		if (m == NULL && (ch->modes & CMODE_SECRET)) {
			reply(c, ERR_NOTONCHANNEL, ch->name);
			return;
		}
		if (ch->topic != NULL)
			chan_send_topic(c, ch);
		else
			reply(c, RPL_NOTOPIC, ch->name);
		return;
	}
	if (m == NULL) {
		reply(c, ERR_NOTONCHANNEL, ch->name);
		return;
	}
	if ((ch->modes & CMODE_TOPICLOCK) && !chan_is_op(m)) {
		reply(c, ERR_CHANOPRIVSNEEDED, ch->name);
		return;
	}
	text = chan_trunc(buf, sizeof(buf), msg->params[1], TOPICLEN);
	channel_set_topic(ch, text[0] != '\0' ? text : NULL, c->prefix,
	    time(NULL));
	history_channel_save(ch);
	channel_send(ch, NULL, ":%s TOPIC %s :%s", c->prefix, ch->name, text);
	hook_topic(ch, c);
}

void
cmd_names(struct client *c, struct message *msg)
{
	struct channel *ch;
	char *list, *name;
	int n = 0, max = chan_targmax();

	if (msg->nparams < 1 || msg->params[0][0] == '\0') {
		/*
		 * Listing every user of the server is a flood for the asker
		 * and a privacy leak; modern servers answer with the end only.
		 */
		reply(c, RPL_ENDOFNAMES, "*");
		return;
	}
	list = msg->params[0];
	while ((name = chan_next_item(&list)) != NULL) {
		if (max > 0 && ++n > max) {
			reply(c, ERR_TOOMANYTARGETS, name, max);
			return;
		}
		if ((ch = channel_find(name)) != NULL)
			chan_send_names(c, ch, 0);
		else
			reply(c, RPL_ENDOFNAMES, name);
	}
}

/* LIST filters (ELIST M, N, U, C, T), all of which must pass. */
struct list_filter {
	long		 users_min;	/* > n: nmembers > users_min */
	long		 users_max;	/* < n: nmembers < users_max */
	time_t		 created_before;	/* C>n: created before this */
	time_t		 created_after;		/* C<n: created after this */
	time_t		 topic_before;		/* T>n */
	time_t		 topic_after;		/* T<n */
	const char	*masks[16];	/* with "!" kept for negation */
	int		 nmasks;
	int		 npositive;
};

/* A non-negative decimal number, or -1. */
static long
list_number(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < 0)
		return -1;
	return v;
}

/* Parse one LIST item as a filter; 0 if it is not one (a channel name). */
static int
list_parse_filter(struct list_filter *f, const char *item, time_t now)
{
	long v;
	char kind = 0;

	if (item[0] == '>' || item[0] == '<') {
		if ((v = list_number(item + 1)) < 0)
			return 1;	/* malformed: ignore it, as a filter */
		if (item[0] == '>')
			f->users_min = v > f->users_min ? v : f->users_min;
		else
			f->users_max = v < f->users_max ? v : f->users_max;
		return 1;
	}
	if ((item[0] == 'C' || item[0] == 'T' || item[0] == 'c' ||
	    item[0] == 't') && (item[1] == '>' || item[1] == '<')) {
		kind = (char)toupper((unsigned char)item[0]);
		if ((v = list_number(item + 2)) < 0)
			return 1;
		if (v > LONG_MAX / 60)
			v = LONG_MAX / 60;
		/* "C>n": created more than n minutes ago, so before now-n. */
		if (kind == 'C' && item[1] == '>')
			f->created_before = now - (time_t)v * 60;
		else if (kind == 'C')
			f->created_after = now - (time_t)v * 60;
		else if (item[1] == '>')
			f->topic_before = now - (time_t)v * 60;
		else
			f->topic_after = now - (time_t)v * 60;
		return 1;
	}
	if (item[0] == '!' || strchr(item, '*') != NULL ||
	    strchr(item, '?') != NULL) {
		if (f->nmasks < (int)(sizeof(f->masks) / sizeof(f->masks[0]))) {
			f->masks[f->nmasks++] = item;
			if (item[0] != '!')
				f->npositive++;
		}
		return 1;
	}
	return 0;
}

static int
list_match(const struct list_filter *f, const struct channel *ch)
{
	int i, hit = 0;

	if ((long)ch->nmembers <= f->users_min ||
	    (long)ch->nmembers >= f->users_max)
		return 0;
	if (f->created_before != 0 && ch->created > f->created_before)
		return 0;
	if (f->created_after != 0 && ch->created < f->created_after)
		return 0;
	if ((f->topic_before != 0 || f->topic_after != 0) && ch->topic == NULL)
		return 0;
	if (f->topic_before != 0 && ch->topic_time > f->topic_before)
		return 0;
	if (f->topic_after != 0 && ch->topic_time < f->topic_after)
		return 0;
	for (i = 0; i < f->nmasks; i++) {
		if (f->masks[i][0] == '!') {
			if (casemap_match(f->masks[i] + 1, ch->name))
				return 0;
		} else if (casemap_match(f->masks[i], ch->name))
			hit = 1;
	}
	return f->npositive == 0 || hit;
}

static void
list_send(struct client *c, const struct channel *ch)
{
	char modes[64], text[IRC_LINELEN];

	channel_modes_string(ch, modes, sizeof(modes), 0);
	snprintf(text, sizeof(text), "[%s]%s%s", modes,
	    ch->topic != NULL ? " " : "", ch->topic != NULL ? ch->topic : "");
	reply(c, RPL_LIST, ch->name, ch->nmembers, text);
}

void
cmd_list(struct client *c, struct message *msg)
{
	struct list_filter f;
	struct channel *ch;
	const char *names[64];
	const char *key;
	char *list, *item;
	time_t now = time(NULL);
	size_t pos = 0;
	int i, nnames = 0;

	memset(&f, 0, sizeof(f));
	f.users_min = -1;
	f.users_max = LONG_MAX;
	/*
	 * Channels and conditions are accepted in one comma list (as most
	 * servers do) or split over two parameters (as the docs show).
	 */
	for (i = 0; i < msg->nparams && i < 2; i++) {
		list = msg->params[i];
		while ((item = chan_next_item(&list)) != NULL) {
			if (list_parse_filter(&f, item, now))
				continue;
			if (nnames < (int)(sizeof(names) / sizeof(names[0])))
				names[nnames++] = item;
		}
	}
	reply(c, RPL_LISTSTART);
	if (nnames > 0) {
		for (i = 0; i < nnames; i++) {
			ch = channel_find(names[i]);
			if (ch != NULL && chan_visible(ch, c) &&
			    list_match(&f, ch))
				list_send(c, ch);
		}
	} else {
		while ((ch = dict_next(ircd.channels, &pos, &key)) != NULL)
			if (chan_visible(ch, c) && list_match(&f, ch))
				list_send(c, ch);
	}
	reply(c, RPL_LISTEND);
}

/*
 * INVITE alone: the channels c is invited to and that still exist
 * (RPL_INVITELIST, Modern IRC's INVITE; as Ergo and InspIRCd do).
 */
static void
invite_list(struct client *c)
{
	struct invite *inv;
	struct channel *ch;

	LIST_FOREACH(inv, &c->invites, entry)
		if ((ch = channel_find(inv->chan)) != NULL)
			reply(c, RPL_INVITELIST, ch->name);
	reply(c, RPL_ENDOFINVITELIST);
}

void
cmd_invite(struct client *c, struct message *msg)
{
	struct client *target;
	struct channel *ch;
	struct member *m;
	char line[IRC_LINELEN];
	int n;

	if (msg->nparams == 0) {
		invite_list(c);
		return;
	}
	if (msg->nparams < 2) {
		reply(c, ERR_NEEDMOREPARAMS, "INVITE");
		return;
	}
	if ((target = client_find(msg->params[0])) == NULL) {
		reply(c, ERR_NOSUCHNICK, msg->params[0]);
		return;
	}
	if ((ch = channel_find(msg->params[1])) == NULL) {
		reply(c, ERR_NOSUCHCHANNEL, msg->params[1]);
		return;
	}
	if ((m = channel_member(ch, c)) == NULL) {
		reply(c, ERR_NOTONCHANNEL, ch->name);
		return;
	}
	if ((ch->modes & CMODE_INVITEONLY) && !chan_is_op(m)) {
		reply(c, ERR_CHANOPRIVSNEEDED, ch->name);
		return;
	}
	if (channel_member(ch, target) != NULL) {
		reply(c, ERR_USERONCHANNEL, target->nick, ch->name);
		return;
	}
	client_invite_add(target, ch->name);
	reply(c, RPL_INVITING, target->nick, ch->name);
	if (target->away != NULL)
		reply(c, RPL_AWAY, target->nick, target->away);
	/* A user's event: it carries the inviter's account (account-tag). */
	n = snprintf(line, sizeof(line), ":%s INVITE %s %s", c->prefix,
	    target->nick, ch->name);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	client_relayn(target, line, (size_t)n);
	if (target->ops->invited != NULL)
		target->ops->invited(target, c, ch);
	/* invite-notify: the channel's other members see it too. */
	TAILQ_FOREACH(m, &ch->members, by_channel)
		if (m->client != c && (m->client->caps & CAP_INVITE_NOTIFY))
			client_relayn(m->client, line, (size_t)n);
}

void
cmd_kick(struct client *c, struct message *msg)
{
	char chname[CHANNELLEN + 1], buf[IRC_LINELEN];
	const char *reason;
	struct client *target;
	struct channel *ch;
	char *nicks, *nick;
	int n = 0, max = chan_targmax();

	if (msg->nparams < 2) {
		reply(c, ERR_NEEDMOREPARAMS, "KICK");
		return;
	}
	if ((ch = channel_find(msg->params[0])) == NULL) {
		reply(c, ERR_NOSUCHCHANNEL, msg->params[0]);
		return;
	}
	if (!chan_is_op(channel_member(ch, c))) {
		reply(c, channel_member(ch, c) == NULL ?
		    ERR_NOTONCHANNEL : ERR_CHANOPRIVSNEEDED, ch->name);
		return;
	}
	strlcpy(chname, ch->name, sizeof(chname));
	reason = msg->nparams > 2 && msg->params[2][0] != '\0' ?
	    msg->params[2] : c->nick;
	nicks = msg->params[1];
	while ((nick = chan_next_item(&nicks)) != NULL) {
		/* The channel goes away when an op kicks out the last member. */
		if ((ch = channel_find(chname)) == NULL ||
		    channel_member(ch, c) == NULL)
			return;
		if (max > 0 && ++n > max) {
			reply(c, ERR_TOOMANYTARGETS, nick, max);
			return;
		}
		if ((target = client_find(nick)) == NULL) {
			reply(c, ERR_NOSUCHNICK, nick);
			continue;
		}
		if (channel_member(ch, target) == NULL) {
			reply(c, ERR_USERNOTINCHANNEL, target->nick, ch->name);
			continue;
		}
		/* ":prefix KICK #chan nick :" */
		chan_trunc(buf, sizeof(buf), reason, KICKLEN);
		chan_trunc(buf, sizeof(buf), buf, chan_room(1 +
		    strlen(c->prefix) + 6 + strlen(ch->name) + 1 +
		    strlen(target->nick) + 2));
		channel_send(ch, NULL, ":%s KICK %s %s :%s", c->prefix,
		    ch->name, target->nick, buf);
		hook_user_kicked(c, ch, target, buf);
		channel_remove(ch, target);
	}
}

/*
 * DROP <channel>: end a channel's life (AU-7). One of its operators may
 * (a member with op, or an account it remembers) or a server operator,
 * once no other person is in it: the agents there leave with it, its
 * history is set aside, and its name starts again empty.
 */
void
cmd_drop(struct client *c, struct message *msg)
{
	struct channel *ch;
	struct member *m, *mt;
	char name[CHANNELLEN + 1];
	int may;

	if ((ch = channel_find(msg->params[0])) == NULL) {
		reply(c, ERR_NOSUCHCHANNEL, msg->params[0]);
		return;
	}
	m = channel_member(ch, c);
	may = chan_is_op(m) || chanlife_is_op(ch, c) || client_is_oper(c);
	if (!may) {
		/* A secret channel does not exist for outsiders (AU-8). */
		if (m == NULL && (ch->modes & CMODE_SECRET))
			reply(c, ERR_NOSUCHCHANNEL, msg->params[0]);
		else
			reply(c, ERR_CHANOPRIVSNEEDED, ch->name);
		return;
	}
	if (ch->permanent) {
		reply_fail(c, "DROP", "CANNOT_DROP", ch->name,
		    "This channel is in the server's config; it ends only "
		    "there");
		return;
	}
	TAILQ_FOREACH(m, &ch->members, by_channel)
		if (m->client != c && !(m->client->flags & CLIENT_SERVICE)) {
			reply_fail(c, "DROP", "CHANNEL_NOT_EMPTY", ch->name,
			    "Others are still in this channel; only its last "
			    "person can drop it");
			return;
		}
	strlcpy(name, ch->name, sizeof(name));
	/* Held while its members go, so the last one does not free it. */
	ch->permanent = 1;
	TAILQ_FOREACH_SAFE(m, &ch->members, by_channel, mt) {
		channel_send(ch, NULL, ":%s PART %s :Channel dropped",
		    m->client->prefix, ch->name);
		channel_remove(ch, m->client);
	}
	ch->permanent = 0;
	chanlife_end(ch);
	client_send(c, ":%s NOTICE %s :%s dropped: its history, topic, modes, "
	    "bans and operators are gone; joining it makes a new channel",
	    ircd.conf->name, c->nick, name);
}

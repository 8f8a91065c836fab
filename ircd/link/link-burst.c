/*
 * link-burst.c: this server's users and channels, told to a linked
 * network (LK-2, LK-3): all at once when a link comes up (the burst),
 * then each change as it happens, through the core's hook table. The
 * users are every registered local client, people and agents alike (an
 * agent is a service user with +B); a link's own users are never sent
 * back to it, those of our other links are (a hub, link-hub.c).
 */
#include "compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/hook.h"
#include "ircd/ircd.h"
#include "ircd/link/link.h"
#include "ircd/log.h"
#include "ircd/mode.h"

/* Membership ids (1205): unique per join, as InspIRCd counts them. */
static unsigned long long link_membid;

void
link_local_uuid(const struct client *c, char out[LINK_UUIDLEN + 1])
{
	/* Ids past 36^6 would wrap; a run never registers that many. */
	link_uuid_make(link_our_sid(), c->id, out);
}

/*
 * Our registered users by client id (in hex), kept by the hooks: the peer
 * names a user of ours by UUID in every line for it (a private message,
 * IDLE, INVITE, KILL...). The id, not the UUID, is the key: a reload may
 * change our SID while no link is up.
 */
static struct dict *link_locals;

static void
link_locals_key(uint64_t id, char key[17])
{
	snprintf(key, 17, "%llx", (unsigned long long)id);
}

static void
link_locals_add(struct client *c)
{
	char key[17];

	link_locals_key(c->id, key);
	dict_set(link_locals, key, c);
}

struct client *
link_local_find(const char *uuid)
{
	struct client *c;
	char key[17];
	uint64_t id;

	if (link_locals == NULL ||
	    link_uuid_id(link_our_sid(), uuid, &id) == -1)
		return NULL;
	link_locals_key(id, key);
	if ((c = dict_get(link_locals, key)) == NULL ||
	    (c->flags & CLIENT_CLOSING))
		return NULL;
	return c;
}

void
link_any_uuid(const struct client *c, char out[LINK_UUIDLEN + 1])
{
	const char *r = link_remote_uuid(c);

	if (r != NULL)
		strlcpy(out, r, LINK_UUIDLEN + 1);
	else
		link_local_uuid(c, out);
}

static int
link_is_local_user(const struct client *c)
{
	return (c->flags & CLIENT_REGISTERED) && !link_is_remote(c);
}

/*
 * c's UID, account and away to l, as uuid (ours, or another link's when
 * we are its hub: the source is the SID that begins the UUID).
 */
void
link_send_uid_as(struct link *l, struct client *c, const char *uuid)
{
	char modes[8];
	size_t n = 0;

	modes[n++] = '+';
	if (c->umodes & UMODE_INVISIBLE)
		modes[n++] = 'i';
	/* The peer refuses a mode it has no module for, and the link. */
	if ((c->umodes & UMODE_BOT) && link_has_umode(l, 'B'))
		modes[n++] = 'B';
	modes[n] = '\0';
	link_send(l, ":%.3s UID %s %lld %s %s %s %s %s %lld %s :%s", uuid,
	    uuid, (long long)c->nickts, c->nick, c->host, c->host,
	    c->user[0] != '\0' ? c->user : c->nick,
	    c->ip[0] != '\0' ? c->ip : "0.0.0.0", (long long)c->signon, modes,
	    c->realname);
	if (c->account != NULL)
		link_send(l, ":%.3s METADATA %s accountname :%s", uuid, uuid,
		    c->account);
	if (c->away != NULL)
		link_send(l, ":%s AWAY %lld :%s", uuid, (long long)time(NULL),
		    c->away);
	if (c->umodes & UMODE_OPER)
		link_send(l, ":%s OPERTYPE :%s", uuid, LINK_OPERTYPE);
	else if ((c->flags & CLIENT_NETOPER) && c->oper != NULL)
		link_send(l, ":%s OPERTYPE :%s", uuid, c->oper);
}

void
link_send_uid(struct link *l, struct client *c)
{
	char uuid[LINK_UUIDLEN + 1];

	link_local_uuid(c, uuid);
	link_send_uid_as(l, c, uuid);
}

static void
link_emit(const char *line, size_t len, void *arg)
{
	link_send(arg, "%.*s", (int)len, line);
}

static const char *
link_prefixes(const struct member *m)
{
	if ((m->modes & MEMBER_OP) && (m->modes & MEMBER_VOICE))
		return "ov";
	if (m->modes & MEMBER_OP)
		return "o";
	if (m->modes & MEMBER_VOICE)
		return "v";
	return "";
}

/* A channel's local members (only c, if not NULL), its topic and lists. */
static void
link_send_channel(struct link *l, struct channel *ch, struct client *only)
{
	struct link_fjoin f;
	struct member *m;
	struct ban *b;
	const char *lp;
	char modes[IRC_LINELEN], uuid[LINK_UUIDLEN + 1];

	channel_modes_string(ch, modes, sizeof(modes), 1);
	link_fjoin_begin(&f, link_our_sid(), ch->name, (long long)ch->created,
	    modes, link_emit, l);
	TAILQ_FOREACH(m, &ch->members, by_channel) {
		/* Every member but the link's own: others' come via the hub. */
		if (!(m->client->flags & CLIENT_REGISTERED) ||
		    link_of(m->client) == l ||
		    (only != NULL && m->client != only))
			continue;
		link_any_uuid(m->client, uuid);
		link_fjoin_add(&f, link_prefixes(m), uuid, ++link_membid);
	}
	if (link_fjoin_end(&f) == 0 || only != NULL)
		return;
	if (ch->topic != NULL)
		link_send(l, ":%s FTOPIC %s %lld %lld %s :%s", link_our_sid(),
		    ch->name, (long long)ch->created,
		    (long long)ch->topic_time, ch->topic_who, ch->topic);
	for (lp = "beI"; *lp != '\0'; lp++)
		TAILQ_FOREACH(b, &channel_banlist(ch, *lp)->head, entry)
			link_send(l, ":%s FMODE %s %lld +%c %s",
			    link_our_sid(), ch->name, (long long)ch->created,
			    *lp, b->mask);
}

void
link_burst_user_channels(struct link *l, struct client *c)
{
	struct member *m;

	TAILQ_FOREACH(m, &c->channels, by_client)
		link_send_channel(l, m->channel, c);
}

void
link_burst(struct link *l)
{
	struct client *c;
	struct channel *ch;
	size_t pos = 0, nu = 0, nc = 0;
	const char *key;

	link_send(l, ":%s BURST %lld", link_our_sid(), (long long)time(NULL));
	/* The servers and users of our other links first (a hub, LK-5). */
	link_hub_burst(l);
	TAILQ_FOREACH(c, &ircd.all, entry)
		if (link_is_local_user(c) && !(c->flags & CLIENT_CLOSING)) {
			link_send_uid(l, c);
			nu++;
		}
	while ((ch = dict_next(ircd.channels, &pos, &key)) != NULL) {
		link_send_channel(l, ch, NULL);
		nc++;
	}
	link_send(l, ":%s ENDBURST", link_our_sid());
	log_info("link %s: burst sent, %zu users, %zu channels", l->name, nu,
	    nc);
}

/* Each link that is up, for what a hook has to tell. */
#define LINK_EACH_UP(l, i)						\
	for ((i) = 0; ((l) = link_at(i)) != NULL; (i)++)		\
		if ((l)->state == LINK_UP)

void
link_send_up(const char *fmt, ...)
{
	char buf[LINK_LINEMAX + 1];
	struct link *l;
	va_list ap;
	size_t i;

	/* A server without links (hooks stay for a reload) formats nothing. */
	if (link_count() == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	LINK_EACH_UP(l, i)
		link_send(l, "%s", buf);
}

static void
link_user_new(struct client *c)
{
	struct link *l;
	size_t i;

	if (link_is_remote(c))
		return;
	link_locals_add(c);
	LINK_EACH_UP(l, i)
		link_send_uid(l, c);
}

static void
link_user_nick(struct client *c, const char *oldnick)
{
	char uuid[LINK_UUIDLEN + 1];

	(void)oldnick;
	if (!link_is_local_user(c))
		return;
	link_local_uuid(c, uuid);
	link_send_up(":%s NICK %s %lld", uuid, c->nick, (long long)c->nickts);
}

static void
link_user_quit(struct client *c, const char *reason)
{
	char uuid[LINK_UUIDLEN + 1], key[17];

	if (!link_is_local_user(c))
		return;
	link_locals_key(c->id, key);
	dict_del(link_locals, key);
	link_local_uuid(c, uuid);
	link_send_up(":%s QUIT :%s", uuid, reason);
}

static void
link_user_joined(struct client *c, struct channel *ch)
{
	struct link *l;
	size_t i;

	if (!link_is_local_user(c))
		return;
	LINK_EACH_UP(l, i)
		link_send_channel(l, ch, c);
}

static void
link_user_parted(struct client *c, struct channel *ch, const char *reason)
{
	char uuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(c))
		return;
	link_local_uuid(c, uuid);
	if (reason != NULL)
		link_send_up(":%s PART %s :%s", uuid, ch->name, reason);
	else
		link_send_up(":%s PART %s", uuid, ch->name);
}

static void
link_user_kicked(struct client *from, struct channel *ch,
    struct client *target, const char *reason)
{
	char uuid[LINK_UUIDLEN + 1], tuuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(from))
		return;
	link_local_uuid(from, uuid);
	link_any_uuid(target, tuuid);
	link_send_up(":%s KICK %s %s :%s", uuid, ch->name, tuuid, reason);
}

/* "+o-v alice bob": the nicks of prefix modes become UUIDs. */
static void
link_channel_mode(struct channel *ch, struct client *from,
    const char *change)
{
	char buf[IRC_LINELEN], copy[IRC_LINELEN], uuid[LINK_UUIDLEN + 1];
	char *args[MAXMODES + 8], *p, *modes;
	struct client *t;
	int n = 0, k;
	char dir = '+';
	enum mode_type type;

	if (!link_is_local_user(from) || link_count() == 0)
		return;
	strlcpy(copy, change, sizeof(copy));
	modes = strtok_r(copy, " ", &p);
	if (modes == NULL)
		return;
	while (n < (int)(sizeof(args) / sizeof(args[0])) &&
	    (args[n] = strtok_r(NULL, " ", &p)) != NULL)
		n++;
	if (n > 0 && args[n - 1][0] == ':')
		args[n - 1]++;
	snprintf(buf, sizeof(buf), "%s", modes);
	for (k = 0; *modes != '\0'; modes++) {
		if (*modes == '+' || *modes == '-') {
			dir = *modes;
			continue;
		}
		type = mode_chan_type(*modes);
		if (type == MODE_FLAG || (type == MODE_SETONLY && dir == '-'))
			continue;
		if (k >= n)
			break;
		if (type == MODE_PREFIX && (t = client_find(args[k])) != NULL) {
			link_any_uuid(t, uuid);
			strlcat(buf, " ", sizeof(buf));
			strlcat(buf, uuid, sizeof(buf));
		} else {
			strlcat(buf, " ", sizeof(buf));
			strlcat(buf, args[k], sizeof(buf));
		}
		k++;
	}
	link_local_uuid(from, uuid);
	link_send_up(":%s FMODE %s %lld %s", uuid, ch->name,
	    (long long)ch->created, buf);
}

static void
link_topic(struct channel *ch, struct client *from)
{
	char uuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(from))
		return;
	link_local_uuid(from, uuid);
	link_send_up(":%s FTOPIC %s %lld %lld :%s", uuid, ch->name,
	    (long long)ch->created, (long long)ch->topic_time,
	    ch->topic != NULL ? ch->topic : "");
}

static void
link_user_away(struct client *c)
{
	char uuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(c))
		return;
	link_local_uuid(c, uuid);
	if (c->away != NULL)
		link_send_up(":%s AWAY %lld :%s", uuid, (long long)time(NULL),
		    c->away);
	else
		link_send_up(":%s AWAY", uuid);
}

static void
link_logged_in(struct client *c)
{
	char uuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(c) || c->account == NULL)
		return;
	link_local_uuid(c, uuid);
	link_send_up(":%s METADATA %s accountname :%s", link_our_sid(), uuid,
	    c->account);
}

/* OPER, or -o: the network sees our operators as operators too. */
static void
link_user_oper(struct client *c)
{
	char uuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(c))
		return;
	link_local_uuid(c, uuid);
	if (c->umodes & UMODE_OPER)
		link_send_up(":%s OPERTYPE :%s", uuid, LINK_OPERTYPE);
	else
		link_send_up(":%s MODE %s -o", uuid, uuid);
}

/* SETNAME: FNAME, as InspIRCd's own SETNAME sends it. */
static void
link_user_realname(struct client *c)
{
	char uuid[LINK_UUIDLEN + 1];

	if (!link_is_local_user(c))
		return;
	link_local_uuid(c, uuid);
	link_send_up(":%s FNAME :%s", uuid, c->realname);
}

/* SIGHUP and REHASH: the new [link] sections (link.c). */
static void
link_rehash(const struct conf *old, const struct conf *new)
{
	(void)old;
	link_reload(new);
}

/* The server stops: the links end while the loop still runs. */
static void
link_stopping(void)
{
	struct link *l;
	size_t i;

	LINK_EACH_UP(l, i)
		link_error(l, "Server shutting down");
}

/*
 * The servers behind each link that is up, for LINKS and LUSERS: the
 * peer is one hop away, through us; a server behind it names its parent
 * (SERVER's source), and its distance is its parent's plus one.
 */
static void
link_servers(hook_server_fn *fn, void *arg)
{
	const struct link_server *s, *p;
	struct link *l;
	size_t i, j, k;
	int hops;

	LINK_EACH_UP(l, i) {
		for (j = 0; j < l->nservers; j++) {
			s = &l->servers[j];
			p = NULL;
			hops = 1;
			/* At most nservers steps: the parents form a tree. */
			for (k = j; k < l->nservers && l->servers[k].parent[0] !=
			    '\0' && hops <= (int)l->nservers; hops++) {
				int up = link_server_find(l, l->servers[k].parent);

				if (up < 0)
					break;
				if (p == NULL)
					p = &l->servers[up];
				k = (size_t)up;
			}
			fn(arg, s->name, p != NULL ? p->name : ircd.conf->name,
			    hops, s->info);
		}
	}
}

static const struct ircd_hooks link_hooks = {
	.user_new = link_user_new,
	.user_nick = link_user_nick,
	.user_quit = link_user_quit,
	.user_joined = link_user_joined,
	.user_parted = link_user_parted,
	.user_kicked = link_user_kicked,
	.user_away = link_user_away,
	.user_oper = link_user_oper,
	.user_realname = link_user_realname,
	.channel_mode = link_channel_mode,
	.topic = link_topic,
	.logged_in = link_logged_in,
	.rehash = link_rehash,
	.stopping = link_stopping,
	.servers = link_servers,
};

void
link_hooks_register(void)
{
	struct client *c;

	/* Users registered before the links were set up: the agents. */
	if (link_locals == NULL) {
		link_locals = dict_new();
		TAILQ_FOREACH(c, &ircd.all, entry)
			if (link_is_local_user(c))
				link_locals_add(c);
	}
	hook_register(&link_hooks);
}

void
link_hooks_unregister(void)
{
	hook_unregister(&link_hooks);
	dict_free(link_locals);
	link_locals = NULL;
}

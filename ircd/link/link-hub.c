/*
 * link-hub.c: this server as a hub (LK-5). With several links up, what
 * one link brings in (servers, users, their changes, channel and private
 * messages, splits) is passed on to the others with its own source, as
 * a spanning-tree hub does: the line as the peer sent it, never back to
 * the link it came from. A link that comes up is told of the others'
 * servers and users in our burst, and a split is told as an SQUIT.
 * What a hub only routes goes where InspIRCd's m_spanningtree sends it:
 * KILL and SAVE to every other link; PING, PONG and IDLE toward the
 * server or user they name; RSQUIT and ENCAP toward the server named.
 *
 * The network is a tree: a SID is behind one link only. One that another
 * link has brought in already is a collision, refused (link.c, and
 * h_server in link-user.c), so no line can come round again.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/ircd.h"
#include "ircd/link/link.h"
#include "ircd/log.h"

struct link *
link_hub_by_sid(const char *sid)
{
	struct link *o;
	size_t i;

	for (i = 0; (o = link_at(i)) != NULL; i++)
		if (o->state == LINK_UP && link_server_find(o, sid) != -1)
			return o;
	return NULL;
}

int
link_hub_sid_taken(const struct link *l, const char *sid)
{
	struct link *o;
	size_t i;

	for (i = 0; (o = link_at(i)) != NULL; i++)
		if (o != l && o->state >= LINK_AUTH && o->nservers > 0 &&
		    link_server_find(o, sid) != -1)
			return 1;
	return 0;
}

/* The line to another link: with the peer as its source if it had none. */
static void
link_hub_send(struct link *to, const struct link *from, const char *raw)
{
	const char *rest = raw;

	if (raw[0] == '@' && (rest = strchr(raw, ' ')) != NULL)
		rest++;
	else
		rest = raw;
	if (rest[0] == ':')
		link_send(to, "%s", raw);
	else
		link_send(to, "%.*s:%s %s", (int)(rest - raw), raw,
		    from->servers[0].sid, rest);
}

/* Every other link that is up. */
static void
link_hub_all(struct link *from, const char *raw)
{
	struct link *o;
	size_t i;

	for (i = 0; (o = link_at(i)) != NULL; i++)
		if (o != from && o->state == LINK_UP)
			link_hub_send(o, from, raw);
}

/* A channel's message: to the links with a member in it, once each. */
static void
link_hub_channel(struct link *from, const char *target, const char *raw)
{
	struct channel *ch;
	struct member *mb;
	struct link *o;
	size_t i;

	if (target[0] == '@' || target[0] == '+')
		target++;
	if ((ch = channel_find(target)) == NULL)
		return;
	for (i = 0; (o = link_at(i)) != NULL; i++) {
		if (o == from || o->state != LINK_UP)
			continue;
		TAILQ_FOREACH(mb, &ch->members, by_channel)
			if (link_of(mb->client) == o) {
				link_hub_send(o, from, raw);
				break;
			}
	}
}

struct link *
link_hub_behind(const char *target)
{
	char sid[LINK_SIDLEN + 1];

	if (strlen(target) != LINK_SIDLEN && !link_is_uuid(target))
		return NULL;
	memcpy(sid, target, LINK_SIDLEN);
	sid[LINK_SIDLEN] = '\0';
	return link_hub_by_sid(sid);
}

/* The server of that name (or SID, or mask) and the link it is behind. */
static struct link *
link_hub_server(const char *name, size_t *idx)
{
	struct link *o;
	size_t i, j;

	for (i = 0; (o = link_at(i)) != NULL; i++) {
		if (o->state != LINK_UP)
			continue;
		for (j = 0; j < o->nservers; j++)
			if (strcmp(o->servers[j].sid, name) == 0 ||
			    casemap_match(name, o->servers[j].name)) {
				*idx = j;
				return o;
			}
	}
	return NULL;
}

/* ENCAP target cmd [params]: a mask, our SID or our name is for us. */
static int
link_hub_encap_ours(const struct link_msg *m)
{
	return strcmp(m->params[0], link_our_sid()) == 0 ||
	    casemap_match(m->params[0], ircd.conf->name);
}

/* The line toward the server of target, unless that is back to from. */
static void
link_hub_toward(struct link *from, const char *target, const char *raw)
{
	struct link *o;

	if ((o = link_hub_behind(target)) != NULL && o != from)
		link_hub_send(o, from, raw);
}

/*
 * A line of from's, handled here: passed on when it was one we took
 * (known says whether its source was known before the handler ran, as a
 * QUIT removes it), the way InspIRCd routes it: to every other link, or
 * toward the one user or server it is for. Commands not listed stay here.
 */
void
link_hub_forward(struct link *from, const struct link_msg *m,
    const char *raw, int known)
{
	struct link *o;
	const char *cmd = m->cmd;
	size_t j;

	if (raw == NULL || link_count() < 2 || from->state != LINK_UP)
		return;
	if (strcmp(cmd, "SERVER") == 0) {
		if (m->nparams >= 3 && link_server_find(from, m->params[1]) > 0)
			link_hub_all(from, raw);
	} else if (strcmp(cmd, "UID") == 0) {
		if (m->nparams >= 1 && dict_get(from->users, m->params[0]) !=
		    NULL)
			link_hub_all(from, raw);
	} else if (strcmp(cmd, "SQUIT") == 0) {
		if (known)
			link_hub_all(from, raw);
	} else if (strcmp(cmd, "PRIVMSG") == 0 || strcmp(cmd, "NOTICE") == 0 ||
	    strcmp(cmd, "TAGMSG") == 0) {
		if (!known || m->nparams < 1)
			return;
		if (link_is_uuid(m->params[0]))
			/* A private message: over the link its user is behind. */
			link_hub_toward(from, m->params[0], raw);
		else
			link_hub_channel(from, m->params[0], raw);
	} else if (strcmp(cmd, "KILL") == 0 || strcmp(cmd, "SAVE") == 0) {
		/* Of a user behind a link (ours answer for themselves). */
		if (!known || m->nparams < 1 || !link_is_uuid(m->params[0]) ||
		    (o = link_hub_behind(m->params[0])) == NULL)
			return;
		/* h_save renamed another link's user here (by its time). */
		link_hub_all(from, raw);
	} else if (strcmp(cmd, "IDLE") == 0) {
		/* A WHOIS's question, or its answer: to the one user. */
		if (known && m->nparams >= 1)
			link_hub_toward(from, m->params[0], raw);
	} else if (strcmp(cmd, "RSQUIT") == 0) {
		/* Toward the link the server is behind; ours ended it. */
		if (known && m->nparams >= 1 &&
		    !casemap_match(m->params[0], ircd.conf->name) &&
		    (o = link_hub_server(m->params[0], &j)) != NULL &&
		    j > 0 && o != from)
			link_hub_send(o, from, raw);
	} else if (strcmp(cmd, "ENCAP") == 0) {
		/* A mask to every other link; a server toward it. */
		if (!known || m->nparams < 2)
			return;
		if (strpbrk(m->params[0], "*?") != NULL)
			link_hub_all(from, raw);
		else if (!link_hub_encap_ours(m) &&
		    (o = link_hub_server(m->params[0], &j)) != NULL &&
		    o != from)
			link_hub_send(o, from, raw);
	} else if (strcmp(cmd, "METADATA") == 0) {
		if (m->nparams >= 3 && dict_get(from->users, m->params[0]) !=
		    NULL)
			link_hub_all(from, raw);
	} else if (strcmp(cmd, "NICK") == 0 || strcmp(cmd, "QUIT") == 0 ||
	    strcmp(cmd, "AWAY") == 0 || strcmp(cmd, "FJOIN") == 0 ||
	    strcmp(cmd, "IJOIN") == 0 || strcmp(cmd, "PART") == 0 ||
	    strcmp(cmd, "KICK") == 0 || strcmp(cmd, "FMODE") == 0 ||
	    strcmp(cmd, "FTOPIC") == 0 || strcmp(cmd, "ENDBURST") == 0 ||
	    strcmp(cmd, "OPERTYPE") == 0 || strcmp(cmd, "MODE") == 0 ||
	    strcmp(cmd, "FHOST") == 0 || strcmp(cmd, "FIDENT") == 0 ||
	    strcmp(cmd, "FNAME") == 0) {
		if (known)
			link_hub_all(from, raw);
	}
}

/*
 * A server's PING or PONG for another server (link.c): passed on toward
 * it, as InspIRCd routes them, so that servers on either side of this one
 * see each other answer. 1 if the line was not for us; 0 if it was.
 */
int
link_hub_ping(struct link *from, const struct link_msg *m, const char *raw)
{
	if (m->nparams < 1 || strcmp(m->params[0], link_our_sid()) == 0)
		return 0;
	/* Only from a server of from's: no fake direction. */
	if (raw != NULL && m->source != NULL &&
	    strlen(m->source) == LINK_SIDLEN &&
	    link_server_find(from, m->source) != -1)
		link_hub_toward(from, m->params[0], raw);
	return 1;
}

/*
 * :uuid RSQUIT server [:reason], an operator's SQUIT of a server not
 * linked to theirs. One of our peers we end, as an operator's SQUIT here
 * would; one behind another link is that link's to end (link_hub_forward
 * passes the line on).
 */
void
link_hub_rsquit(struct link *l, struct link_msg *m)
{
	struct client *by;
	struct link *o;
	const char *reason = m->nparams > 1 ? m->params[1] : "No reason";
	size_t j;

	if (m->nparams < 1 || (by = link_source_user(l, m)) == NULL)
		return;
	if (casemap_match(m->params[0], ircd.conf->name) ||
	    (o = link_hub_server(m->params[0], &j)) == NULL) {
		log_info("link %s: RSQUIT %.64s by %s ignored: no such server "
		    "behind this one", l->name, m->params[0], by->prefix);
		return;
	}
	if (j > 0)
		return;
	log_info("link %s: RSQUIT by %s: %s", o->name, by->prefix, reason);
	link_error(o, "Server quit by %s (%s)", by->prefix, reason);
}

/*
 * :source ENCAP target cmd [params]: a command for the servers the
 * target names. This server handles none (SASL, SVSJOIN... are not
 * built); link_hub_forward passes them on.
 */
void
link_hub_encap(struct link *l, struct link_msg *m)
{
	if (m->nparams >= 2 && link_hub_encap_ours(m))
		log_debug("link %s: ENCAP %.32s not handled", l->name,
		    m->params[1]);
}

/* The source was a server or user of from's before its line ran. */
int
link_hub_known(struct link *from, const struct link_msg *m)
{
	if (m->source == NULL)
		return 1;
	if (strlen(m->source) == LINK_SIDLEN)
		return link_server_find(from, m->source) != -1;
	return dict_get(from->users, m->source) != NULL;
}

/*
 * l is up: the other links learn of its peer; what is behind follows,
 * its burst, which burst= (when it began, in ms, as InspIRCd's own
 * SERVER lines say) tells them to time until its ENDBURST.
 */
void
link_hub_up(struct link *l)
{
	struct link *o;
	size_t i;

	for (i = 0; (o = link_at(i)) != NULL; i++)
		if (o != l && o->state == LINK_UP)
			link_send(o, ":%s SERVER %s %s burst=%lld :%s",
			    link_our_sid(), l->servers[0].name,
			    l->servers[0].sid, (long long)client_time_now_ms(),
			    l->servers[0].info);
}

/* l split: the other links drop its peer, what is behind and its users. */
void
link_hub_split(struct link *l, const char *reason)
{
	struct link *o;
	size_t i;

	if (l->nservers == 0)
		return;
	for (i = 0; (o = link_at(i)) != NULL; i++)
		if (o != l && o->state == LINK_UP)
			link_send(o, ":%s SQUIT %s :%s", link_our_sid(),
			    l->servers[0].sid, reason);
}

/*
 * Our burst to l: the servers of the other links (each after its parent,
 * whatever order SQUITs left the table in), then their users. Their
 * channel memberships go with ours (link-burst.c).
 */
void
link_hub_burst(struct link *l)
{
	struct link *o;
	struct client *c;
	const char *key;
	char sent[LINK_MAXSERVERS];
	size_t i, j, pos, done;
	int progress;

	for (i = 0; (o = link_at(i)) != NULL; i++) {
		if (o == l || o->state != LINK_UP || o->nservers == 0)
			continue;
		memset(sent, 0, sizeof(sent));
		link_send(l, ":%s SERVER %s %s :%s", link_our_sid(),
		    o->servers[0].name, o->servers[0].sid, o->servers[0].info);
		sent[0] = 1;
		done = 1;
		do {
			progress = 0;
			for (j = 1; j < o->nservers; j++) {
				int p;

				if (sent[j] || (p = link_server_find(o,
				    o->servers[j].parent)) == -1 || !sent[p])
					continue;
				link_send(l, ":%s SERVER %s %s :%s",
				    o->servers[j].parent, o->servers[j].name,
				    o->servers[j].sid, o->servers[j].info);
				sent[j] = 1;
				done++;
				progress = 1;
			}
		} while (progress && done < o->nservers);
		pos = 0;
		while ((c = dict_next(o->users, &pos, &key)) != NULL)
			link_send_uid_as(l, c, key);
	}
}

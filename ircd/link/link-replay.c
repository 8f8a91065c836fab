/*
 * link-replay.c: no message lost at a split (LK-3).
 *
 * TCP says which bytes reached the peer's kernel, not which lines the
 * peer handled: what was written to a link that breaks may never have
 * been read. So each PRIVMSG and NOTICE sent to a link is kept until the
 * peer has answered a PING sent after it. A server handles its lines in
 * order, so its PONG says every line before the PING was handled; the
 * PING carries the number of the last line it covers, and InspIRCd (and
 * agentircd) give that token back in the PONG. One such PING is out at a
 * time: about one a round trip while messages flow, none when idle.
 *
 * At a split, what was not acknowledged is kept aside and sent again
 * once the link is back and both bursts are done, with its own msgid and
 * time, when its sender (and, for a private message, its target) is
 * still on the network. Another agentircd drops a msgid it has stored
 * already, so it shows nothing twice. InspIRCd 3 keeps no msgids: a line
 * it handled in the last round trip before the split is shown twice
 * there, with the same msgid (clients that know msgids show it once).
 *
 * Memory is bounded: at most LINK_REPLAY_BYTES kept per link, the oldest
 * dropped first (those are the most likely to have been handled).
 */
#include "compat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "ircd/link/link.h"
#include "ircd/log.h"
#include "ircd/xmalloc.h"

/* Bytes of lines kept per link, sent and set aside together. */
#define LINK_REPLAY_BYTES	(4 * 1024 * 1024)

struct replay_line {
	TAILQ_ENTRY(replay_line) entry;
	uint64_t		 seq;
	size_t			 len;
	char			 line[];	/* no CRLF, NUL-terminated */
};

TAILQ_HEAD(replay_list, replay_line);

struct link_replay {
	struct replay_list	 sent;		/* sent, not acknowledged */
	struct replay_list	 again;		/* of a split: to send again */
	size_t			 bytes;		/* of both lists */
	uint64_t		 seq;		/* of the last line kept */
	int			 ping_out;	/* a PING with a token is out */
	int			 resending;	/* link_replay_resend is sending */
	int			 warned;	/* the bound was logged */
};

static struct link_replay *
replay_of(struct link *l)
{
	struct link_replay *r = l->replay;

	if (r == NULL) {
		r = l->replay = xcalloc(1, sizeof(*r));
		TAILQ_INIT(&r->sent);
		TAILQ_INIT(&r->again);
	}
	return r;
}

static void
replay_drop(struct link_replay *r, struct replay_list *q,
    struct replay_line *e)
{
	TAILQ_REMOVE(q, e, entry);
	r->bytes -= e->len;
	free(e);
}

/* Past the bound: the oldest go first, those set aside before the rest. */
static void
replay_bound(struct link *l, struct link_replay *r)
{
	struct replay_line *e;

	while (r->bytes > LINK_REPLAY_BYTES) {
		if ((e = TAILQ_FIRST(&r->again)) != NULL)
			replay_drop(r, &r->again, e);
		else if ((e = TAILQ_FIRST(&r->sent)) != NULL)
			replay_drop(r, &r->sent, e);
		else
			break;
		if (!r->warned) {
			log_warnx("link %s: more than %d bytes of messages not "
			    "acknowledged: the oldest will not be sent again "
			    "after a split", l->name, LINK_REPLAY_BYTES);
			r->warned = 1;
		}
	}
}

/* Past the tags and the source: the command of a line we send. */
static const char *
replay_command(const char *s, size_t n)
{
	const char *p = s, *e = s + n;

	if (p < e && *p == '@' && (p = memchr(p, ' ', (size_t)(e - p))) != NULL)
		p++;
	if (p != NULL && p < e && *p == ':' &&
	    (p = memchr(p, ' ', (size_t)(e - p))) != NULL)
		p++;
	return p;
}

static int
replay_wanted(const char *s, size_t n)
{
	const char *p = replay_command(s, n);
	size_t left;

	if (p == NULL)
		return 0;
	left = (size_t)(s + n - p);
	return (left > 8 && memcmp(p, "PRIVMSG ", 8) == 0) ||
	    (left > 7 && memcmp(p, "NOTICE ", 7) == 0);
}

/* A PING, with a token when there is something to acknowledge. */
void
link_replay_ping(struct link *l)
{
	struct link_replay *r = l->replay;

	if (r == NULL || TAILQ_EMPTY(&r->sent)) {
		link_send(l, ":%s PING %s", link_our_sid(), l->servers[0].sid);
		return;
	}
	link_send(l, ":%s PING %s %llu", link_our_sid(), l->servers[0].sid,
	    (unsigned long long)r->seq);
	r->ping_out = 1;
}

void
link_replay_keep(struct link *l, const char *line, size_t n)
{
	struct link_replay *r;
	struct replay_line *e;

	if (l->state != LINK_UP || !replay_wanted(line, n))
		return;
	r = replay_of(l);
	e = xmalloc(sizeof(*e) + n + 1);
	e->seq = ++r->seq;
	e->len = n;
	memcpy(e->line, line, n);
	e->line[n] = '\0';
	TAILQ_INSERT_TAIL(&r->sent, e, entry);
	r->bytes += n;
	replay_bound(l, r);
	/* Asked after the line (and whatever follows in this round). */
	if (!r->ping_out && !r->resending)
		link_replay_ping(l);
}

void
link_replay_pong(struct link *l, const char *token)
{
	struct link_replay *r = l->replay;
	struct replay_line *e;
	unsigned long long upto;
	char *end;

	if (r == NULL || token == NULL)
		return;
	upto = strtoull(token, &end, 10);
	if (*end != '\0' || upto > r->seq)
		return;
	r->ping_out = 0;
	while ((e = TAILQ_FIRST(&r->sent)) != NULL && e->seq <= upto)
		replay_drop(r, &r->sent, e);
	/* Lines sent while that PING was out: ask for them now. */
	if (!TAILQ_EMPTY(&r->sent))
		link_replay_ping(l);
}

void
link_replay_split(struct link *l)
{
	struct link_replay *r = l->replay;
	struct replay_line *e;

	if (r == NULL)
		return;
	while ((e = TAILQ_FIRST(&r->sent)) != NULL) {
		TAILQ_REMOVE(&r->sent, e, entry);
		TAILQ_INSERT_TAIL(&r->again, e, entry);
	}
	r->ping_out = 0;
}

/* A UUID of the line (source or target) is on the network still. */
static int
replay_user_here(struct link *l, const char *p, size_t n)
{
	char uuid[LINK_UUIDLEN + 1];

	if (n != LINK_UUIDLEN)
		return 1;		/* a server or a channel */
	memcpy(uuid, p, n);
	uuid[n] = '\0';
	return link_find_uuid(l, uuid) != NULL;
}

void
link_replay_resend(struct link *l)
{
	struct link_replay *r = l->replay;
	struct replay_line *e;
	const char *src, *cmd, *target, *end;
	size_t sent = 0, gone = 0;

	if (r == NULL || TAILQ_EMPTY(&r->again))
		return;
	r->resending = 1;
	while ((e = TAILQ_FIRST(&r->again)) != NULL && l->state == LINK_UP) {
		TAILQ_REMOVE(&r->again, e, entry);
		r->bytes -= e->len;
		/* ":SRC CMD TARGET :text": both still here, or not sent. */
		src = e->line[0] == '@' ? strchr(e->line, ' ') + 1 : e->line;
		cmd = replay_command(e->line, e->len);
		target = cmd != NULL ? strchr(cmd, ' ') : NULL;
		end = target != NULL ? strchr(target + 1, ' ') : NULL;
		if (src[0] == ':' && cmd != NULL && end != NULL &&
		    replay_user_here(l, src + 1, (size_t)(cmd - src - 2)) &&
		    replay_user_here(l, target + 1,
		    (size_t)(end - target - 1))) {
			link_send(l, "%s", e->line);
			sent++;
		} else
			gone++;
		free(e);
	}
	r->resending = 0;
	log_info("link %s: %zu messages of before the split sent again, "
	    "%zu not (their sender or target left)", l->name, sent, gone);
	if (l->state == LINK_UP && !TAILQ_EMPTY(&r->sent))
		link_replay_ping(l);
}

void
link_replay_free(struct link *l)
{
	struct link_replay *r = l->replay;
	struct replay_line *e;

	if (r == NULL)
		return;
	while ((e = TAILQ_FIRST(&r->sent)) != NULL)
		replay_drop(r, &r->sent, e);
	while ((e = TAILQ_FIRST(&r->again)) != NULL)
		replay_drop(r, &r->again, e);
	free(r);
	l->replay = NULL;
}

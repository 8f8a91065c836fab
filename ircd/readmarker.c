/*
 * readmarker.c: IRCv3 draft/read-marker. MARKREAD sets or gets the time
 * of the last message a person has read in a target (a channel or a
 * nick), for all of that person's clients: an account's markers are
 * stored (store/markers.c) and outlive restarts; a connection that is
 * not logged in keeps its own in memory, for as long as it is connected.
 * A marker only moves forward, and never reaches anyone else.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/message.h"
#include "ircd/readmarker.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

/* A connection's markers in memory: the least recently moved goes first. */
#define READMARKS_MAX	64

#define TARGETLEN	(CHANNELLEN > NICKLEN ? CHANNELLEN : NICKLEN)

struct readmarks {
	unsigned	n;
	struct {
		char	target[TARGETLEN + 1];	/* casefolded */
		int64_t	time;
		int64_t	moved;			/* for the eviction */
	}		v[READMARKS_MAX];
};

static int
readmark_find(const struct readmarks *rm, const char *folded)
{
	unsigned i;

	for (i = 0; rm != NULL && i < rm->n; i++)
		if (strcmp(rm->v[i].target, folded) == 0)
			return (int)i;
	return -1;
}

/* The marker of c for target (casefolded) into *t, 0 when none. 0, or -1. */
static int
readmark_get(struct client *c, const char *folded, int64_t *t)
{
	struct convkey k;
	int i;

	*t = 0;
	if (c->account == NULL) {
		if ((i = readmark_find(c->readmarks, folded)) >= 0)
			*t = c->readmarks->v[i].time;
		return 0;
	}
	if (history_store() == NULL)
		return -1;
	convkey_account(&k, c->account);
	return store_marker_get(history_store(), k.s, folded, t);
}

/* Move c's marker for target forward to t (never back). 0, or -1. */
static int
readmark_set(struct client *c, const char *folded, int64_t t)
{
	struct readmarks *rm;
	struct convkey k;
	unsigned j;
	int i;

	if (c->account != NULL) {
		if (history_store() == NULL)
			return -1;
		convkey_account(&k, c->account);
		return store_marker_set(history_store(), k.s, folded, t);
	}
	if (c->readmarks == NULL)
		c->readmarks = xcalloc(1, sizeof(*c->readmarks));
	rm = c->readmarks;
	if ((i = readmark_find(rm, folded)) < 0) {
		if (rm->n < READMARKS_MAX)
			i = (int)rm->n++;
		else
			for (i = 0, j = 1; j < rm->n; j++)
				if (rm->v[j].moved < rm->v[i].moved)
					i = (int)j;
		strlcpy(rm->v[i].target, folded, sizeof(rm->v[i].target));
		rm->v[i].time = 0;
	}
	if (t > rm->v[i].time)
		rm->v[i].time = t;
	rm->v[i].moved = client_time_now_ms();
	return 0;
}

static void
readmark_send(struct client *to, const char *target, int64_t t)
{
	char ts[32];

	if (t <= 0) {
		client_send(to, ":%s MARKREAD %s *", ircd.conf->name, target);
		return;
	}
	client_time_format(t, ts, sizeof(ts));
	client_send(to, ":%s MARKREAD %s timestamp=%s", ircd.conf->name, target,
	    ts);
}

/*
 * The new marker to every client of the same person with the cap: the
 * account's, or only c itself when it is not logged in. c gets it in any
 * case, as the answer to its MARKREAD.
 */
static void
readmark_tell(struct client *c, const char *target, int64_t t)
{
	struct client *o;

	readmark_send(c, target, t);
	if (c->account == NULL)
		return;
	TAILQ_FOREACH(o, &ircd.all, entry)
		if (o != c && (o->caps & CAP_READ_MARKER) &&
		    !(o->flags & (CLIENT_SERVICE | CLIENT_CLOSING)) &&
		    o->account != NULL && casemap_cmp(o->account, c->account) == 0)
			readmark_send(o, target, t);
}

void
cmd_markread(struct client *c, struct message *m)
{
	char folded[TARGETLEN + 1];
	const char *target, *name;
	struct channel *ch;
	int64_t t, old;

	if (m->nparams < 1 || m->params[0][0] == '\0') {
		reply_fail(c, "MARKREAD", "NEED_MORE_PARAMS", NULL,
		    "Missing parameters");
		return;
	}
	target = m->params[0];
	if (!casemap_valid_channel(target, CHANNELLEN) &&
	    !casemap_valid_nick(target, NICKLEN)) {
		reply_fail(c, "MARKREAD", "INVALID_PARAMS", target,
		    "The target is neither a channel nor a nick");
		return;
	}
	/* A channel is named as it was created, a nick as it was given. */
	name = (ch = channel_find(target)) != NULL ? ch->name : target;
	casemap_fold(folded, target, sizeof(folded));
	if (readmark_get(c, folded, &old) == -1) {
		reply_fail(c, "MARKREAD", "INTERNAL_ERROR", target,
		    "The read timestamp could not be read");
		return;
	}
	if (m->nparams < 2) {
		readmark_send(c, name, old);
		return;
	}
	if (strncmp(m->params[1], "timestamp=", 10) != 0 ||
	    clock_parse_ms(m->params[1] + 10, &t) == -1 || t <= 0) {
		reply_fail(c, "MARKREAD", "INVALID_PARAMS", m->params[1],
		    "A read timestamp is timestamp=YYYY-MM-DDThh:mm:ss.sssZ");
		return;
	}
	/*
	 * Between the stored value and now: nothing unsent can have been
	 * read. Not newer than what is stored: c is told what is.
	 */
	if (t > client_time_now_ms())
		t = client_time_now_ms();
	if (t <= old) {
		readmark_send(c, name, old);
		return;
	}
	if (readmark_set(c, folded, t) == -1) {
		reply_fail(c, "MARKREAD", "INTERNAL_ERROR", target,
		    "The read timestamp could not be set");
		return;
	}
	readmark_tell(c, name, t);
}

void
readmarker_join(struct client *c, struct channel *ch)
{
	char folded[CHANNELLEN + 1];
	int64_t t;

	if (!(c->caps & CAP_READ_MARKER))
		return;
	casemap_fold(folded, ch->name, sizeof(folded));
	/* Unknown, or unreadable for now: "*" either way, the spec's words. */
	if (readmark_get(c, folded, &t) == -1)
		t = 0;
	readmark_send(c, ch->name, t);
}

void
readmarker_free(struct client *c)
{
	free(c->readmarks);
	c->readmarks = NULL;
}

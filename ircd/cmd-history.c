/*
 * cmd-history.c: CHATHISTORY (IRCv3 draft/chathistory): LATEST, BEFORE,
 * AFTER, AROUND, BETWEEN and TARGETS over the store, in chathistory
 * batches. Nobody reads a channel they are not in, nor a private
 * conversation they were not part of (HS-3).
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/chanlife.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/message.h"
#include "ircd/reply.h"
#include "store/store.h"

/* The most one request returns (ISUPPORT CHATHISTORY). */
#define CHATHISTORY_MAX	100

/* "timestamp=..." or "msgid=..." into ref; "*" when star_ok. 1 for "*". */
static int
history_parse_ref(const char *s, struct store_ref *ref, int star_ok)
{
	memset(ref, 0, sizeof(*ref));
	if (star_ok && strcmp(s, "*") == 0)
		return 1;
	if (strncmp(s, "msgid=", 6) == 0 && s[6] != '\0') {
		ref->msgid = s + 6;
		return 0;
	}
	if (strncmp(s, "timestamp=", 10) == 0)
		return clock_parse_ms(s + 10, &ref->time) == 0 ? 0 : -1;
	return -1;
}

struct sendctx {
	struct client	*c;
	const char	*batch;
};

static void
history_send_one(const struct store_msg *sm, void *arg)
{
	struct sendctx *sc = arg;

	history_send_msg(sc->c, sm, sc->batch, 0);
}

static void
history_batch(struct client *c, char *ref, size_t len, const char *type,
    const char *target)
{
	static unsigned long seq;

	ref[0] = '\0';
	if (!(c->caps & CAP_BATCH))
		return;
	snprintf(ref, len, "C%lx", ++seq);
	if (target != NULL)
		client_send(c, ":%s BATCH +%s %s %s", ircd.conf->name, ref, type,
		    target);
	else
		client_send(c, ":%s BATCH +%s %s", ircd.conf->name, ref, type);
}

static void
history_batch_end(struct client *c, const char *ref)
{
	if (ref[0] != '\0')
		client_send(c, ":%s BATCH -%s", ircd.conf->name, ref);
}

struct targetsctx {
	struct client	*c;
	const char	*batch;
	struct convkey	 me;
};

/* TARGETS lists channels c is in and private conversations c took part in. */
static int
history_target_keep(const char *conv, void *arg)
{
	struct targetsctx *tc = arg;
	struct channel *ch;

	if (convkey_is_channel(conv))
		return (ch = channel_find(conv)) != NULL && channel_member(ch, tc->c) != NULL;
	return convkey_side(conv, tc->me.s);
}

static void
history_target_send(const char *conv, const char *target, const char *nick,
    int64_t time, void *arg)
{
	struct targetsctx *tc = arg;
	char ts[32];
	const char *name = target;

	(void)conv;
	client_time_format(time, ts, sizeof(ts));
	/* A private conversation is named by the other side's nick. */
	if (!casemap_is_channel(target) && casemap_cmp(target, tc->c->nick) == 0)
		name = nick;
	/* The time bare, as the spec's examples have it: not a selector. */
	if (tc->batch[0] != '\0')
		client_send(tc->c, "@batch=%s :%s CHATHISTORY TARGETS %s %s",
		    tc->batch, ircd.conf->name, name, ts);
	else
		client_send(tc->c, ":%s CHATHISTORY TARGETS %s %s",
		    ircd.conf->name, name, ts);
}

static int
history_limit(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || n < 0)
		return -1;
	return n == 0 || n > CHATHISTORY_MAX ? CHATHISTORY_MAX : (int)n;
}

void
cmd_chathistory(struct client *c, struct message *m)
{
	const char *sub = m->params[0];
	struct store_ref ref, ref2;
	enum store_dir dir;
	struct convkey conv;
	char batch[16], what[IRC_LINELEN];
	struct sendctx sc;
	struct channel *ch;
	struct chanlife_who w;
	int limit, nref = 1, star = 0, rc;

	if (history_store() == NULL) {
		reply_fail(c, "CHATHISTORY", "MESSAGE_ERROR", sub, "History is not available");
		return;
	}
	if (strcasecmp(sub, "TARGETS") == 0) {
		struct targetsctx tc;
		int64_t t1, t2;

		if (m->nparams < 4 || history_parse_ref(m->params[1], &ref, 0) != 0 ||
		    history_parse_ref(m->params[2], &ref2, 0) != 0 ||
		    ref.msgid != NULL || ref2.msgid != NULL ||
		    (limit = history_limit(m->params[3])) < 0) {
			reply_fail(c, "CHATHISTORY", "INVALID_PARAMS", "TARGETS",
			    "TARGETS takes two timestamps and a limit");
			return;
		}
		t1 = ref.time;
		t2 = ref2.time;
		tc.c = c;
		history_principal(c, &tc.me);
		history_batch(c, batch, sizeof(batch), "draft/chathistory-targets", NULL);
		tc.batch = batch;
		store_history_targets(history_store(), t1, t2, limit,
		    history_target_keep, history_target_send, &tc);
		history_batch_end(c, batch);
		return;
	}
	if (strcasecmp(sub, "LATEST") == 0)
		dir = STORE_LATEST, star = 1;
	else if (strcasecmp(sub, "BEFORE") == 0)
		dir = STORE_BEFORE;
	else if (strcasecmp(sub, "AFTER") == 0)
		dir = STORE_AFTER;
	else if (strcasecmp(sub, "AROUND") == 0)
		dir = STORE_AROUND;
	else if (strcasecmp(sub, "BETWEEN") == 0)
		dir = STORE_BETWEEN, nref = 2;
	else {
		reply_fail(c, "CHATHISTORY", "INVALID_PARAMS", sub, "Unknown subcommand");
		return;
	}
	if (m->nparams < 3 + nref) {
		reply_fail(c, "CHATHISTORY", "INVALID_PARAMS", sub, "Not enough parameters");
		return;
	}
	rc = history_parse_ref(m->params[2], &ref, star);
	if (rc == -1 || (nref == 2 && history_parse_ref(m->params[3], &ref2, 0) != 0)) {
		reply_fail(c, "CHATHISTORY", "INVALID_PARAMS", sub,
		    "A message reference is timestamp=YYYY-MM-DDThh:mm:ss.sssZ or msgid=ID");
		return;
	}
	if ((limit = history_limit(m->params[2 + nref])) < 0) {
		reply_fail(c, "CHATHISTORY", "INVALID_PARAMS", sub, "Bad limit");
		return;
	}
	if (history_conv_for(c, m->params[1], &conv) == -1) {
		/* Also when it exists but is not c's: nothing is revealed. */
		if (!casemap_is_channel(m->params[1]) && casemap_valid_nick(m->params[1], NICKLEN)) {
			/* A nick never talked to: an empty answer, like any empty history. */
			history_batch(c, batch, sizeof(batch), "chathistory", m->params[1]);
			history_batch_end(c, batch);
			return;
		}
		/* "INVALID_TARGET <subcommand> <target>", as the spec has it. */
		snprintf(what, sizeof(what), "%s %s", sub, m->params[1]);
		reply_fail(c, "CHATHISTORY", "INVALID_TARGET", what,
		    "Messages could not be retrieved");
		return;
	}
	history_batch(c, batch, sizeof(batch), "chathistory", m->params[1]);
	sc.c = c;
	sc.batch = batch[0] != '\0' ? batch : NULL;
	/* AU-7: of a closed channel, only what c was there for. */
	ch = casemap_is_channel(m->params[1]) ? channel_find(m->params[1]) : NULL;
	rc = store_history_query_as(history_store(), conv.s,
	    ch != NULL ? chanlife_reader(ch, c, &w) : NULL, dir,
	    rc == 1 ? NULL : &ref, nref == 2 ? &ref2 : NULL, limit,
	    history_send_one, &sc);
	history_batch_end(c, batch);
	if (rc == -1)
		reply_fail(c, "CHATHISTORY", "MESSAGE_ERROR", sub,
		    "History could not be read");
}

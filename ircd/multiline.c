/*
 * multiline.c: draft/multiline batches in and out. A client's batch is
 * collected (bounded by max-bytes and max-lines), then relayed once,
 * stored as one message whose text holds its newlines, and handed to
 * agents as one message.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/history.h"
#include "ircd/hook.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

struct mlbatch {
	char		 ref[64];
	char		 target[CHANNELLEN + 2];
	char		 cmd[8];		/* "" until the first line */
	char		*lines[MULTILINE_MAX_LINES];
	unsigned char	 concat[MULTILINE_MAX_LINES];
	size_t		 n;
	size_t		 bytes;
	char		*ctags;			/* client tags of the BATCH line */
	/*
	 * The opening's label (labeled-response), or "": the batch is one
	 * command, answered under it when it closes.
	 */
	char		 label[IRC_LINELEN];
};

static unsigned long ml_seq;

void
multiline_free(struct client *c)
{
	struct mlbatch *b = c->mlbatch;
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++)
		free(b->lines[i]);
	free(b->ctags);
	free(b);
	c->mlbatch = NULL;
}

static void
ml_fail(struct client *c, const char *code, const char *ctx, const char *text)
{
	reply_fail(c, "BATCH", code, ctx, text);
	multiline_free(c);
}

/* Replies from here to ml_label_end answer the labeled batch of c. */
static struct conn *
ml_label_begin(struct client *c)
{
	struct conn *conn = c->conn;	/* c->conn is gone if c quits */

	if (conn == NULL || c->mlbatch == NULL || c->mlbatch->label[0] == '\0')
		return NULL;
	conn_label_begin(conn, c->mlbatch->label);
	return conn;
}

static void
ml_label_end(struct conn *conn)
{
	if (conn != NULL)
		conn_label_end(conn);
}

/* A line of the batch ends it in a FAIL: the answer to the batch. */
static void
ml_take_fail(struct client *c, const char *code, const char *ctx,
    const char *text)
{
	struct conn *conn = ml_label_begin(c);

	ml_fail(c, code, ctx, text);
	ml_label_end(conn);
}

/*
 * multiline_deliver; label: a "label=..." tag for the opening BATCH line
 * (the echo of a labeled batch, labeled-response), or NULL.
 */
static void
ml_deliver(struct client *to, struct outmsg *lines, size_t n,
    const unsigned char *concat, const char *label)
{
	struct outmsg l;
	char ref[24], line[IRC_LINELEN];
	size_t i;
	int first = 1, w;

	if (n == 0 || (to->flags & CLIENT_CLOSING))
		return;
	if ((to->caps & (CAP_MULTILINE | CAP_BATCH)) != (CAP_MULTILINE | CAP_BATCH)) {
		/* Fallback: the lines as they are, no blank ones; tags on the first. */
		for (i = 0; i < n; i++) {
			const char *t = lines[i].text;

			if (t == NULL || t[strspn(t, " ")] == '\0')
				continue;
			l = lines[i];
			l.nomsgid = !first;
			l.ctags = first ? lines[i].ctags : NULL;
			to->ops->deliver(to, &l);
			first = 0;
		}
		return;
	}
	snprintf(ref, sizeof(ref), "ml%lx", ++ml_seq);
	/* The BATCH line carries the message's id, time and client tags. */
	l = lines[0];
	w = snprintf(l.line, sizeof(l.line), ":%s BATCH +%s draft/multiline %s",
	    lines[0].from->prefix, ref, lines[0].target);
	l.len = w > 0 && (size_t)w < sizeof(l.line) ? (size_t)w : 0;
	l.stags = label;
	to->ops->deliver(to, &l);
	for (i = 0; i < n; i++) {
		l = lines[i];
		l.batch = ref;
		l.nomsgid = 1;
		l.ctags = NULL;
		l.stags = concat != NULL && concat[i] ? "draft/multiline-concat" : NULL;
		to->ops->deliver(to, &l);
	}
	/* Closed by the sender as it was opened (the spec's example). */
	w = snprintf(line, sizeof(line), ":%s BATCH -%s", lines[0].from->prefix,
	    ref);
	if (w > 0 && (size_t)w < sizeof(line))
		client_sendn(to, line, (size_t)w);
}

void
multiline_deliver(struct client *to, struct outmsg *lines, size_t n,
    const unsigned char *concat)
{
	ml_deliver(to, lines, n, concat, NULL);
}

/* One multiline message on its way to each member of a channel. */
struct ml_relay {
	struct outmsg		*oms;
	size_t			 n;
	const unsigned char	*concat;
};

static void
ml_relay_one(struct client *to, void *arg)
{
	struct ml_relay *r = arg;

	multiline_deliver(to, r->oms, r->n, r->concat);
}

/* Relay the finished batch b of c: stored once, then to everyone. */
static void
ml_relay(struct client *c, struct mlbatch *b)
{
	struct outmsg *oms, joined;
	struct channel *ch = NULL;
	struct client *to = NULL;
	char *text;
	size_t i, len = 0;
	const char *why;
	int notice = strcmp(b->cmd, "NOTICE") == 0;

	if (casemap_is_channel(b->target)) {
		if ((ch = channel_find(b->target)) == NULL) {
			if (!notice)
				reply(c, 401, b->target);
			return;
		}
		why = channel_cannot_send(ch, c);
		for (i = 0; why == NULL && (ch->modes & CMODE_NOCTCP) &&
		    i < b->n; i++)
			if (message_is_ctcp(b->lines[i]))
				why = "Cannot send CTCP to channel (+C)";
		if (why != NULL) {
			if (!notice)
				reply(c, ERR_CANNOTSENDTOCHAN, ch->name, why);
			return;
		}
	} else if ((to = client_find(b->target)) == NULL) {
		if (!notice)
			reply(c, 401, b->target);
		return;
	}
	/* The message as one text: lines joined by newlines, concat ones glued. */
	for (i = 0; i < b->n; i++)
		len += strlen(b->lines[i]) + 1;
	text = xmalloc(len + 1);
	text[0] = '\0';
	for (i = 0, len = 0; i < b->n; i++) {
		if (i > 0 && !b->concat[i])
			text[len++] = '\n';
		len += strlcpy(text + len, b->lines[i], 1 + strlen(b->lines[i]));
	}
	memset(&joined, 0, sizeof(joined));
	joined.from = c;
	joined.cmd = b->cmd;
	joined.target = ch != NULL ? ch->name : b->target;
	joined.text = text;
	joined.ctags = b->ctags;
	outmsg_render(&joined);
	if ((ch != NULL ? history_add_channel(c, ch, &joined) :
	    history_add_private(c, to, &joined)) == -1) {
		free(text);
		return;
	}
	oms = xcalloc(b->n, sizeof(*oms));
	for (i = 0; i < b->n; i++) {
		oms[i].from = c;
		oms[i].cmd = b->cmd;
		oms[i].target = joined.target;
		oms[i].text = b->lines[i];
		oms[i].ctags = b->ctags;
		outmsg_render(&oms[i]);
		/* One message: one id and one time. */
		strlcpy(oms[i].msgid, joined.msgid, sizeof(oms[i].msgid));
		strlcpy(oms[i].time, joined.time, sizeof(oms[i].time));
		oms[i].time_ms = joined.time_ms;
	}
	if (ch != NULL) {
		struct ml_relay r = { oms, b->n, b->concat };
		struct member_filter f = { .except = c };

		channel_each(ch, &f, ml_relay_one, &r);
	} else if (to != c || !(c->caps & CAP_ECHO_MESSAGE))
		multiline_deliver(to, oms, b->n, b->concat);
	/* The echo; to oneself the only copy, as Ergo does. */
	if (c->caps & CAP_ECHO_MESSAGE) {
		/*
		 * The echo of a labeled batch carries the label on its
		 * opening BATCH line only (draft/multiline, labeled-response);
		 * as lines one by one it is a labeled-response batch.
		 */
		char lt[IRC_LINELEN + 8] = "label=";
		const char *label = NULL;

		if ((c->caps & (CAP_MULTILINE | CAP_BATCH)) ==
		    (CAP_MULTILINE | CAP_BATCH) && c->conn != NULL &&
		    conn_label_claim(c->conn, lt + 6, sizeof(lt) - 6))
			label = lt;
		ml_deliver(c, oms, b->n, b->concat, label);
	}
	if (!notice) {
		if (ch != NULL)
			hook_channel_message(c, ch, &joined);
		else if (to != NULL && to->ops->message != NULL)
			to->ops->message(to, c, &joined);
	}
	free(oms);
	free(text);
}

void
multiline_batch(struct client *c, struct message *m)
{
	const char *p0 = m->params[0];
	struct mlbatch *b;
	struct conn *conn;

	if (p0[0] == '+') {
		if (m->nparams < 3 || strcmp(m->params[1], "draft/multiline") != 0 ||
		    !(c->caps & CAP_MULTILINE)) {
			reply_fail(c, "BATCH", "MULTILINE_INVALID", NULL,
			    "Only draft/multiline batches are accepted, once negotiated");
			return;
		}
		if (c->mlbatch != NULL) {
			ml_fail(c, "MULTILINE_INVALID", NULL, "A batch is already open");
			return;
		}
		b = xcalloc(1, sizeof(*b));
		strlcpy(b->ref, p0 + 1, sizeof(b->ref));
		strlcpy(b->target, m->params[2], sizeof(b->target));
		if (m->tags != NULL) {
			char ct[IRC_TAGLEN];
			const char *t = m->tags;
			size_t n = 0;

			/* Keep the client-only tags; they go on the BATCH line. */
			while (t != NULL && *t != '\0') {
				const char *e = strchr(t, ';');
				size_t l = e != NULL ? (size_t)(e - t) : strlen(t);

				if (t[0] == '+' && n + l + 2 < sizeof(ct)) {
					if (n > 0)
						ct[n++] = ';';
					memcpy(ct + n, t, l);
					n += l;
				}
				t = e != NULL ? e + 1 : NULL;
			}
			ct[n] = '\0';
			if (n > 0)
				b->ctags = xstrdup(ct);
		}
		/* A labeled opening is answered when the batch closes. */
		if (c->conn == NULL || !message_tag_get(m->tags, "label",
		    b->label, sizeof(b->label)) || !conn_label_defer(c->conn))
			b->label[0] = '\0';
		c->mlbatch = b;
		return;
	}
	if (p0[0] != '-' || (b = c->mlbatch) == NULL || strcmp(b->ref, p0 + 1) != 0) {
		reply_fail(c, "BATCH", "MULTILINE_INVALID", NULL, "No such batch open");
		return;
	}
	/* A batch of blank lines only is no message. */
	{
		size_t i;
		int content = 0;

		for (i = 0; i < b->n; i++)
			if (b->lines[i][strspn(b->lines[i], " ")] != '\0')
				content = 1;
		if (!content) {
			ml_take_fail(c, "MULTILINE_INVALID", NULL,
			    "The batch has no text");
			return;
		}
	}
	conn = ml_label_begin(c);
	ml_relay(c, b);
	ml_label_end(conn);
	multiline_free(c);
}

int
multiline_take(struct client *c, struct message *m, const char *cmd)
{
	struct mlbatch *b = c->mlbatch;
	char ref[64];
	int concat;
	size_t len;

	if (b == NULL || !message_tag_get(m->tags, "batch", ref, sizeof(ref)) ||
	    strcmp(ref, b->ref) != 0)
		return 0;
	if (m->nparams < 2) {
		ml_take_fail(c, "MULTILINE_INVALID", NULL, "A line without text");
		return 1;
	}
	if (casemap_cmp(m->params[0], b->target) != 0) {
		ml_take_fail(c, "MULTILINE_INVALID_TARGET", b->target, m->params[0]);
		return 1;
	}
	if (b->cmd[0] == '\0')
		strlcpy(b->cmd, cmd, sizeof(b->cmd));
	else if (strcmp(b->cmd, cmd) != 0) {
		ml_take_fail(c, "MULTILINE_INVALID", NULL, "PRIVMSG and NOTICE mixed");
		return 1;
	}
	concat = message_tag_get(m->tags, "draft/multiline-concat", ref, sizeof(ref));
	len = strlen(m->params[1]);
	if (concat && (len == 0 || b->n == 0)) {
		ml_take_fail(c, "MULTILINE_INVALID", NULL, "A blank or first line cannot be concatenated");
		return 1;
	}
	if (b->n == MULTILINE_MAX_LINES) {
		char lim[16];

		snprintf(lim, sizeof(lim), "%d", MULTILINE_MAX_LINES);
		ml_take_fail(c, "MULTILINE_MAX_LINES", lim, "Too many lines");
		return 1;
	}
	if (b->bytes + len + (b->n > 0 && !concat) > MULTILINE_MAX_BYTES) {
		char lim[16];

		snprintf(lim, sizeof(lim), "%d", MULTILINE_MAX_BYTES);
		ml_take_fail(c, "MULTILINE_MAX_BYTES", lim, "Too many bytes");
		return 1;
	}
	b->bytes += len + (b->n > 0 && !concat);
	b->concat[b->n] = (unsigned char)concat;
	b->lines[b->n++] = xstrdup(m->params[1]);
	return 1;
}

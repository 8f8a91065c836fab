/*
 * stream.c: an agent's answer as IRC lines (TN-3, TN-4, TN-5, TN-13).
 * What it streams is cut into lines, made to read well on IRC
 * (ircfmt.c), stored and sent as they complete, and a long paragraph
 * before it ends; code fences keep their lines, paragraphs go to
 * draft/multiline clients as one batch, typing notifications show it is
 * at work, each tool call is one ACTION line, and the answer waits for
 * readers who fall behind.
 */
#include "compat.h"

#include <event2/event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/dispatch.h"
#include "ircd/bridge/ircfmt.h"
#include "ircd/bridge/phrase.h"
#include "ircd/bridge/plan.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/message.h"
#include "ircd/multiline.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/* TN-3: typing notifications, at most every 3 seconds. */
#define TYPING_SEC	3
/* A streamed line longer than this is cut (between words) before sending. */
#define STREAM_MAX	(64 * 1024)
/*
 * Backpressure (TN-4: no text is ever dropped). An agent can say a few MB
 * in one chunk, far faster than people read: queued to every member at
 * once, it would cost each its SendQ. So after every slice of a quarter
 * SendQ the rest waits, and with it everything else the agent says (its
 * input is held), until no member has more than half a SendQ queued. A
 * member that stays over half for OUT_WAIT_MS is waited for no longer:
 * the answer goes on and its SendQ decides, as for any traffic.
 */
#define OUT_LINE_COST	512	/* a line's bytes besides its text, at most */
#define OUT_POLL_MS	20
#define OUT_WAIT_MS	10000
/*
 * A line's budget for text (stream_budget) is IRC_LINELEN less
 * ":nick!user@host PRIVMSG target :" (LINE_SYNTAX is the ":", "!", "@",
 * " PRIVMSG " and " :") and LINE_SPARE: the CR LF, an ACTION's "\x01ACTION "
 * and "\x01", and 15 bytes to spare (a +reply tag needs none: tags have
 * their own limit). A line takes at least LINE_MIN_TEXT bytes of text,
 * whatever the prefix (never reached with the nick, host and channel
 * limits), so that an answer is always cut into pieces that fit.
 */
#define LINE_SYNTAX	14
#define LINE_SPARE	(2 + 9 + 15)
#define LINE_MIN_TEXT	64
/* An ACTION's "\x01ACTION " and "\x01", rounded up: a tool line's room. */
#define ACTION_WRAP	10
/*
 * Tool calls a turn remembers to show each once (TN-5); past it, a call
 * reported done twice would be shown twice.
 */
#define STREAM_MAX_TOOLS	32
/*
 * TN-5: tool calls refused (on a card, by the policy) a turn remembers,
 * so that their lines say so; past it, the oldest is forgotten and its
 * line says only that it failed. A call fails soon after its refusal.
 */
#define STREAM_MAX_REFUSALS	16
#define STREAM_REFUSAL_IDLEN	128	/* a longer id is not remembered */
#define STREAM_REFUSAL_WHYLEN	64	/* "refused by the policy deny-all" */
/*
 * TN-13: a line not ended yet starts to go out once it holds more than
 * STREAM_EARLY_LINES lines' worth; what cannot be formatted yet (a "**"
 * whose closer has not come) is looked at again when STREAM_SETTLE_STEP
 * more bytes came, not at every chunk, so that an unclosed marker does
 * not make each chunk a scan of the whole line.
 */
#define STREAM_EARLY_LINES	2
/* MN-1: what of an answer is read for mentions; past it, nothing is. */
#define STREAM_SAID_MAX		(64 * 1024)
#define STREAM_SETTLE_STEP	64
/*
 * AU-9, L2: tool lines a turn shows; past it they are counted, and one
 * line at the end says how many more there were. A tool line costs a
 * line of text against the answer's pacing, too.
 */
#define STREAM_TOOL_LINES	50

/*
 * What a turn's answer needs while it streams; the turn owns it
 * (turn_new, turn_free) and only this file looks inside.
 */
struct stream {
	struct turn	*turn;
	/* What the agent said that is not sent yet: up to a line's end. */
	char		*buf;
	size_t		 len, cap;
	/*
	 * TN-13: the line being sent, formatted for IRC (fences, TAB
	 * columns), and its start formatted already but not sent: less
	 * than a line's worth, which the rest of the line continues.
	 */
	struct ircfmt	 fmt;
	char		*carry;
	size_t		 clen, ccap;
	size_t		 unsettled;	/* bytes when nothing settled; 0 */
	int		 bold_open;	/* a piece sent ended inside bold */
	char		*message;	/* TN-13: the model message's id */
	/* TN-5: tool calls refused, and why; a ring, the oldest replaced. */
	struct {
		char	id[STREAM_REFUSAL_IDLEN];
		char	why[STREAM_REFUSAL_WHYLEN];
	}		 refused[STREAM_MAX_REFUSALS];
	size_t		 nrefused;	/* ever: the next slot is mod the size */
	struct event	*typing;
	char		*tools[STREAM_MAX_TOOLS];	/* shown (TN-5) */
	size_t		 ntools;
	size_t		 tool_lines;	/* shown (L2) */
	size_t		 tool_more;	/* not shown, past STREAM_TOOL_LINES */
	int		 muted;		/* I5: told it cannot speak */
	/*
	 * The paragraph so far, for draft/multiline clients (TN-4): copies
	 * of the lines sent, whose text is in their own line.
	 */
	struct outmsg	*para;
	size_t		 npara;
	/* "+reply=<msgid>" of the message answered, "" when none. */
	char		 reply[sizeof("+reply=") +
			    sizeof(((struct turn *)0)->msgid)];
	/* Backpressure: the answer waits for its readers. */
	size_t		 sent;		/* bytes sent since the last check */
	int		 held;		/* the agent's input is held */
	struct event	*drain;		/* the next check */
	uint64_t	 wait_since;	/* server_now_ms(); 0: not waiting */
	char		*plan;		/* the plan line last shown (TN-14) */
	/*
	 * MN-1: the answer as the agent wrote it, for the names it may
	 * wake (up to STREAM_SAID_MAX), and its PRIVMSGs as stored: the
	 * first one's msgid and history id, and the last one's id.
	 */
	char		*said;
	size_t		 saidlen;
	char		 first_msgid[64];
	int64_t		 first_hid, last_hid;
	int		 addressed;	/* TN-12: its first line is out */
};

static void stream_paragraph_end(struct stream *);
static void stream_muted(struct stream *);

struct stream *
stream_new(struct turn *t)
{
	struct stream *st = xcalloc(1, sizeof(*st));

	st->turn = t;
	if (t->msgid[0] != '\0')
		snprintf(st->reply, sizeof(st->reply), "+reply=%s", t->msgid);
	return st;
}

void
stream_free(struct stream *st)
{
	size_t i;

	if (st->drain != NULL)
		event_free(st->drain);
	if (st->held)
		acp_agent_hold(st->turn->conv->agent->acp, 0);
	if (st->typing != NULL)
		event_free(st->typing);
	for (i = 0; i < st->ntools; i++)
		free(st->tools[i]);
	free(st->plan);
	free(st->message);
	free(st->said);
	free(st->carry);
	free(st->buf);
	free(st->para);
	free(st);
}

/* Send one line (no CR/LF) from the agent in cv, stored first (HS-2). */
void
stream_send(struct conv *cv, struct turn *t, const char *cmd, const char *text,
    size_t len, int action)
{
	struct agent *a = cv->agent;
	struct stream *st = t != NULL ? t->stream : NULL;
	struct outmsg om, *copy;
	struct member_filter f = { .except = a->client };
	const char *where;
	char body[IRC_LINELEN], *colon;

	/* AG-5: a leading \x01 would make it CTCP. */
	while (len > 0 && text[0] == '\x01') {
		text++;
		len--;
	}
	if (len == 0)
		return;
	if (action)
		snprintf(body, sizeof(body), "\x01" "ACTION %.*s\x01", (int)len,
		    text);
	else
		snprintf(body, sizeof(body), "%.*s", (int)len, text);
	if ((where = conv_where(cv)) == NULL)
		return;
	/* I5: +m and bans hold for agents too. */
	if (!conv_can_speak(cv)) {
		if (st != NULL)
			stream_muted(st);
		return;
	}
	memset(&om, 0, sizeof(om));
	om.from = a->client;
	om.cmd = cmd;
	om.target = where;
	om.text = body;
	if (st != NULL && st->reply[0] != '\0')
		om.ctags = st->reply;
	outmsg_render(&om);
	if (history_add(a->client, cv->key, &om) == -1)
		return;
	/* MN-2: the answer's stored lines, which a woken agent reads. */
	if (st != NULL && !action && strcmp(cmd, "PRIVMSG") == 0) {
		if (st->first_hid == 0) {
			st->first_hid = om.hid;
			strlcpy(st->first_msgid, om.msgid,
			    sizeof(st->first_msgid));
		}
		st->last_hid = om.hid;
	}
	/*
	 * TN-4: clients with draft/multiline get the paragraph as one batch
	 * when it ends; the others each line as it comes.
	 */
	if (st != NULL && !action && strcmp(cmd, "PRIVMSG") == 0) {
		if (st->para == NULL)
			st->para = xcalloc(MULTILINE_MAX_LINES,
			    sizeof(*st->para));
		if (st->npara == MULTILINE_MAX_LINES)
			stream_paragraph_end(st);
		/* The copy's text is in its own line, its tag the stream's. */
		copy = &st->para[st->npara++];
		*copy = om;
		colon = strstr(copy->line, " :");
		copy->text = colon != NULL ? colon + 2 : "";
		copy->target = cv->target;
		f.skip_caps = CAP_MULTILINE;
	} else if (st != NULL)
		stream_paragraph_end(st);
	if (!cv->private)
		dispatch_spoke(where, a, t != NULL && t->principal.s[0] != '\0' ?
		    &t->principal : NULL);
	conv_deliver(cv, &f, &om);
}

int64_t
stream_post(struct conv *cv, const char *text, char *msgid, size_t mlen)
{
	struct agent *a = cv->agent;
	struct outmsg om;
	struct member_filter f = { .except = a->client };
	const char *where;
	char body[IRC_LINELEN];

	/* AG-5: a leading \x01 would make it CTCP. */
	while (text[0] == '\x01')
		text++;
	if (text[0] == '\0' || (where = conv_where(cv)) == NULL ||
	    !conv_can_speak(cv))
		return 0;
	snprintf(body, sizeof(body), "%s", text);
	memset(&om, 0, sizeof(om));
	om.from = a->client;
	om.cmd = "PRIVMSG";
	om.target = where;
	om.text = body;
	outmsg_render(&om);
	if (history_add(a->client, cv->key, &om) == -1)
		return 0;
	if (msgid != NULL)
		strlcpy(msgid, om.msgid, mlen);
	/* RT-3: it spoke last, but answered nobody: no follow-up goes to it. */
	if (!cv->private)
		dispatch_spoke(where, a, NULL);
	conv_deliver(cv, &f, &om);
	return om.hid;
}

/* TN-11: told in the channel where the turn was asked for. */
static void
stream_tell_one(struct client *c, const struct conv *cv,
    const struct convkey *p, const char *text)
{
	if ((c->flags & CLIENT_REGISTERED) && !(c->flags & CLIENT_CLOSING) &&
	    !(c->flags & CLIENT_SERVICE) && history_principal_is(c, p))
		reply_notice_in(c, cv->private ? NULL : cv->target, "%s", text);
}

/*
 * I5: the agent may not speak in the channel any more (+m, a ban): its
 * turn ends, and the person who asked is told so, once.
 */
static void
stream_muted(struct stream *st)
{
	struct turn *t = st->turn;
	struct client *c;
	char text[IRC_LINELEN];

	if (st->muted)
		return;
	st->muted = 1;
	snprintf(text, sizeof(text), "%s cannot speak in %s (moderated, or "
	    "banned there): its answer stops", t->conv->agent->client->nick,
	    t->conv->target);
	if (t->principal.s[0] != '\0')
		TAILQ_FOREACH(c, &ircd.all, entry)
			stream_tell_one(c, t->conv, &t->principal, text);
	/*
	 * Cancelled, but not silenced here: this may run inside a flush of
	 * the buffer that stream_silence would empty.
	 */
	if (!t->cancelled) {
		t->cancelled = 1;
		if (!t->conv->opening)
			acp_session_cancel(t->conv->session);
	}
}

/* The paragraph ends: multiline clients get it now, as one batch. */
static void
stream_paragraph_end(struct stream *st)
{
	if (st->npara == 0)
		return;
	conv_deliver_batch(st->turn->conv, st->para, st->npara);
	st->npara = 0;
}

static void
stream_say(struct conv *cv, struct turn *t, const char *text, size_t len,
    int action)
{
	stream_send(cv, t, "PRIVMSG", text, len, action);
}

/*
 * A line of the answer is cut into pieces that fit (message_split); all
 * of them, or only those the rest of the line cannot change (early).
 */
struct say {
	struct stream	*st;
	const char	*text;
	size_t		 len, budget;
	int		 all;
	size_t		 done;		/* the text's bytes sent */
	int		 stopped;	/* a piece was not whole: no more */
};

static void
stream_say_piece(const char *piece, size_t len, void *arg)
{
	struct say *s = arg;
	struct stream *st = s->st;
	char line[IRC_LINELEN];
	size_t i, off = (size_t)(piece - s->text);

	/* A piece is whole when the text went on past its window. */
	if (s->stopped || (!s->all && s->len - off <= s->budget)) {
		s->stopped = 1;
		return;
	}
	s->done = off + len;
	/*
	 * TN-13: a client ends bold at the end of each message, so a piece
	 * that starts inside bold opens it again (the line's spare bytes
	 * have room for it).
	 */
	if (st->bold_open && len + 1 < sizeof(line)) {
		line[0] = IRCFMT_BOLD_CHAR;
		memcpy(line + 1, piece, len);
		stream_say(st->turn->conv, st->turn, line, len + 1, 0);
	} else
		stream_say(st->turn->conv, st->turn, piece, len, 0);
	for (i = 0; i < len; i++)
		if (piece[i] == IRCFMT_BOLD_CHAR)
			st->bold_open = !st->bold_open;
}

/* The bytes a line may carry after ":nick!agent@host PRIVMSG target :". */
static size_t
stream_budget(const struct conv *cv)
{
	const struct client *c = cv->agent->client;
	size_t fixed = LINE_SYNTAX + strlen(c->nick) + strlen(c->user) +
	    strlen(c->host) + strlen(cv->target) + LINE_SPARE;

	return fixed < IRC_LINELEN - LINE_MIN_TEXT ? IRC_LINELEN - fixed :
	    LINE_MIN_TEXT;
}

/*
 * TN-12: whom the answer of t names first, so that the asker's client
 * highlights it: in a channel where more than one person is (agents are
 * not people; a +B bot is one), the person who asked, by the nick it has
 * now. 0 when it names nobody: a schedule fired it, or the asker is the
 * only person there (then the answer is plainly theirs).
 */
static int
stream_asker(const struct turn *t, char *nick, size_t size)
{
	struct channel *ch;
	struct member *m;

	if (t->conv->private || t->requester[0] == '\0' ||
	    (ch = channel_find(t->conv->target)) == NULL ||
	    ch->nmembers - ch->nservices < 2)
		return 0;
	strlcpy(nick, t->requester, size);
	TAILQ_FOREACH(m, &ch->members, by_channel)
		if (!(m->client->flags & CLIENT_SERVICE) &&
		    history_principal_is(m->client, &t->principal)) {
			strlcpy(nick, m->client->nick, size);
			break;
		}
	return 1;
}

/* TN-12: has the agent named nick first itself ("bob: ", "bob, ")? */
static int
stream_names(const char *line, size_t len, const char *nick)
{
	char word[NICKLEN + 1];
	size_t n = strlen(nick);

	if (len <= n || (line[n] != ':' && line[n] != ','))
		return 0;
	snprintf(word, sizeof(word), "%.*s", (int)n, line);
	return casemap_cmp(word, nick) == 0;
}

/* TN-13: format the agent's markup for IRC, unless it is format = plain. */
static int
stream_fmtflags(const struct conv *cv)
{
	const char *format = cv->agent->conf->format;

	return format != NULL && strcmp(format, "plain") == 0 ? 0 :
	    IRCFMT_MARKDOWN;
}

/*
 * Part of a line (all of it when end) formatted for IRC onto the carry.
 * TN-12: the first line of the answer starts with the asker's nick,
 * cut with the line so that each piece still fits.
 */
static void
stream_carry(struct stream *st, const char *text, size_t len, int end)
{
	struct turn *t = st->turn;
	char nick[NICKLEN + 1];
	size_t need = ircfmt_size(text, len) + sizeof(nick) + 2, n, at;

	if (st->clen + need > st->ccap) {
		st->ccap = (st->clen + need) * 2;
		st->carry = xreallocarray(st->carry, st->ccap, 1);
	}
	at = st->clen;
	n = ircfmt_line(&st->fmt, text, len, stream_fmtflags(t->conv), end,
	    st->carry + at);
	st->clen += n;
	if (st->addressed || n == 0)
		return;
	st->addressed = 1;
	if (stream_asker(t, nick, sizeof(nick)) &&
	    !stream_names(st->carry + at, n, nick)) {
		n = strlen(nick);
		memmove(st->carry + at + n + 2, st->carry + at, st->clen - at);
		memcpy(st->carry + at, nick, n);
		memcpy(st->carry + at + n, ": ", 2);
		st->clen += n + 2;
	}
}

/*
 * Send the carry's pieces: all (the line ended), or the whole ones only;
 * what is not sent stays for the rest of the line.
 */
static void
stream_pieces(struct stream *st, int all)
{
	struct say s = { st, st->carry, st->clen,
	    stream_budget(st->turn->conv), all, 0, 0 };

	if (st->clen > 0)
		message_split(st->carry, st->clen, s.budget, stream_say_piece,
		    &s);
	if (all || s.done >= st->clen) {
		st->clen = 0;
		if (all)
			st->bold_open = 0;
		return;
	}
	memmove(st->carry, st->carry + s.done, st->clen - s.done);
	st->clen -= s.done;
}

/* One complete line of the answer: code fences keep their lines (TN-4). */
static void
stream_line(struct stream *st, const char *line, size_t len)
{
	struct turn *t = st->turn;
	struct conv *cv = t->conv;
	size_t i = 0;

	st->sent += len + OUT_LINE_COST * (1 + len / stream_budget(cv));
	st->unsettled = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len && st->clen == 0 && !st->fmt.cont) {
		/*
		 * Blank lines are not sent, but inside code, as one space
		 * (TN-13).
		 */
		if (st->fmt.in_fence)
			stream_say(cv, t, " ", 1, 0);
		else
			stream_paragraph_end(st);
		return;
	}
	stream_carry(st, line, len, 1);
	stream_pieces(st, 1);
}

/*
 * TN-13: a line not ended yet (a paragraph) that holds more than
 * STREAM_EARLY_LINES lines' worth starts to go out: the part of it that
 * what may still come cannot change (ircfmt_settled), in the pieces
 * that are whole. Returns the bytes of text taken.
 */
static size_t
stream_early(struct stream *st, const char *text, size_t len)
{
	struct conv *cv = st->turn->conv;
	size_t budget = stream_budget(cv), n;

	if (st->clen + len <= STREAM_EARLY_LINES * budget ||
	    (st->unsettled > 0 && len < st->unsettled + STREAM_SETTLE_STEP))
		return 0;
	if ((n = ircfmt_settled(&st->fmt, text, len,
	    stream_fmtflags(cv))) == 0) {
		st->unsettled = len;
		return 0;
	}
	st->unsettled = 0;
	st->sent += n + OUT_LINE_COST * (n / budget);
	stream_carry(st, text, n, 0);
	stream_pieces(st, 0);
	return n;
}

/*
 * Send the complete lines so far (all: the rest too). As a chunk comes
 * (all == 0) only while the slice has room: returns 1 when lines wait.
 */
static int
stream_flush(struct stream *st, int all)
{
	size_t start = 0, i, slice = ircd.conf->sendq / 4;
	int full = 0;

	for (i = 0; i < st->len; i++) {
		if (st->buf[i] != '\n')
			continue;
		if (!all && st->sent >= slice) {
			full = 1;
			break;
		}
		stream_line(st, st->buf + start, i - start);
		start = i + 1;
	}
	if (all && (start < st->len || st->clen > 0)) {
		stream_line(st, st->buf + start, st->len - start);
		start = st->len;
	}
	/*
	 * A long paragraph starts before it ends (TN-13); what it sent
	 * counts against the slice as lines do, and past it the rest waits.
	 */
	if (!all && !full && st->len > start) {
		start += stream_early(st, st->buf + start, st->len - start);
		full = st->sent >= slice && start < st->len;
	}
	/* A line that never ends is sent in pieces rather than kept growing. */
	if (!all && !full && st->len - start > STREAM_MAX) {
		stream_line(st, st->buf + start, st->len - start);
		start = st->len;
	}
	if (start > 0) {
		memmove(st->buf, st->buf + start, st->len - start);
		st->len -= start;
	}
	return full;
}

/* The next check comes after ms, and after this loop turn's output left. */
static void
stream_drain_later(struct stream *st, int ms)
{
	struct timeval tv = clock_timeval((uint64_t)ms);

	evtimer_add(st->drain, &tv);
}

static void
stream_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct stream *st = arg;
	struct conv *cv = st->turn->conv;
	uint64_t now = server_now_ms();

	(void)fd;
	(void)what;
	if (!st->turn->cancelled && conv_congested(cv)) {
		if (st->wait_since == 0)
			st->wait_since = now;
		if (now - st->wait_since < OUT_WAIT_MS) {
			stream_drain_later(st, OUT_POLL_MS);
			return;
		}
		/* Waited enough: go on, and wait no more until it clears. */
	} else
		st->wait_since = 0;
	st->sent = 0;
	if (stream_flush(st, 0)) {
		stream_drain_later(st, 0);
		return;
	}
	st->held = 0;
	acp_agent_hold(cv->agent->acp, 0);
}

/* Lines wait: so does the agent, until the members have read. */
static void
stream_hold(struct stream *st)
{
	if (st->drain == NULL)
		st->drain = evtimer_new(ircd.base, stream_drain_cb, st);
	if (!st->held) {
		st->held = 1;
		acp_agent_hold(st->turn->conv->agent->acp, 1);
	}
	stream_drain_later(st, 0);
}

/*
 * A chunk of the answer: the lines it completes go out (TN-4). TN-13: a
 * chunk of another model message (message, when the adapter names them)
 * starts a line of its own, so that two messages never run together.
 */
void
stream_text(struct turn *t, const char *text, size_t len, const char *message)
{
	struct stream *st = t->stream;
	int other;

	if (message != NULL) {
		other = st->message != NULL && strcmp(st->message, message) != 0;
		if (other && (st->clen > 0 ||
		    (st->len > 0 && st->buf[st->len - 1] != '\n')))
			stream_text(t, "\n", 1, NULL);
		if (st->message == NULL || other) {
			free(st->message);
			st->message = xstrdup(message);
		}
	}
	/* MN-1: kept whole, or not at all past the cap (said stays NUL-ended). */
	if (st->saidlen != (size_t)-1) {
		if (st->saidlen + len > STREAM_SAID_MAX) {
			free(st->said);
			st->said = NULL;
			st->saidlen = (size_t)-1;
		} else {
			st->said = xreallocarray(st->said, st->saidlen + len + 1,
			    1);
			memcpy(st->said + st->saidlen, text, len);
			st->saidlen += len;
			st->said[st->saidlen] = '\0';
		}
	}
	if (st->len + len + 1 > st->cap) {
		st->cap = (st->len + len + 1) * 2;
		st->buf = xreallocarray(st->buf, st->cap, 1);
	}
	memcpy(st->buf + st->len, text, len);
	st->len += len;
	if (!st->held && stream_flush(st, 0))
		stream_hold(st);
}

static void
stream_typing(struct conv *cv, const char *state)
{
	struct outmsg om;
	struct member_filter f = { .except = cv->agent->client };
	char ctags[32];

	if (!conv_can_speak(cv))
		return;		/* I5 */
	memset(&om, 0, sizeof(om));
	om.from = cv->agent->client;
	om.cmd = "TAGMSG";
	om.target = cv->target;
	om.tagmsg = 1;
	snprintf(ctags, sizeof(ctags), "+typing=%s", state);
	om.ctags = ctags;
	outmsg_render(&om);
	conv_deliver(cv, &f, &om);
}

static void
stream_typing_cb(evutil_socket_t fd, short what, void *arg)
{
	struct stream *st = arg;

	(void)fd;
	(void)what;
	stream_typing(st->turn->conv, "active");
}

/* TN-3: "active" now and every TYPING_SEC while the turn runs. */
void
stream_typing_start(struct turn *t)
{
	struct stream *st = t->stream;
	struct timeval tv = { TYPING_SEC, 0 };

	stream_typing(t->conv, "active");
	st->typing = event_new(ircd.base, -1, EV_PERSIST, stream_typing_cb, st);
	event_add(st->typing, &tv);
}

/*
 * The turn ends: the rest of the answer goes out (rest; not after a
 * !stop), its last paragraph too, and the typing stops.
 */
void
stream_end(struct turn *t, int rest)
{
	struct stream *st = t->stream;

	char line[IRC_LINELEN];

	if (rest)
		stream_flush(st, 1);
	stream_paragraph_end(st);
	/* L2: the tool lines not shown, in one line. */
	if (st->tool_more > 0 && !t->cancelled) {
		snprintf(line, sizeof(line), "\xe2\x80\xa6 %zu more tool call%s",
		    st->tool_more, st->tool_more == 1 ? "" : "s");
		stream_say(t->conv, t, line, strlen(line), 1);
	}
	if (st->typing != NULL) {
		event_free(st->typing);
		st->typing = NULL;
	}
	stream_typing(t->conv, "done");
}

const char *
stream_said(const struct turn *t, const char **msgid, int64_t *first,
    int64_t *last)
{
	const struct stream *st = t->stream;

	*msgid = st->first_msgid;
	*first = st->first_hid;
	*last = st->last_hid;
	return st->saidlen == (size_t)-1 ? NULL : st->said;
}

/*
 * AU-4: nobody reads t any more (its connection ended): what it has
 * not sent yet is stored, sent to nobody, and it says nothing more.
 */
void
stream_orphan(struct turn *t)
{
	if (!t->cancelled)
		stream_flush(t->stream, 1);
	stream_paragraph_end(t->stream);
	stream_silence(t);
}

/* Nothing more is said for t: what waits is dropped (TN-6, AG-2). */
void
stream_silence(struct turn *t)
{
	t->cancelled = 1;
	if (t->stream->held) {
		/* Its answer to the cancel waits behind the hold: let it in. */
		t->stream->len = 0;
		t->stream->clen = 0;
		stream_drain_later(t->stream, 0);
	}
}

void
stream_refused(struct turn *t, const char *tool_id, const char *why)
{
	struct stream *st = t->stream;
	size_t slot = st->nrefused % STREAM_MAX_REFUSALS;

	if (tool_id == NULL || strlen(tool_id) >= sizeof(st->refused[0].id))
		return;
	strlcpy(st->refused[slot].id, tool_id, sizeof(st->refused[0].id));
	strlcpy(st->refused[slot].why, why, sizeof(st->refused[0].why));
	st->nrefused++;
}

/* Why tool call id of st was refused, or NULL: it was not (TN-5). */
static const char *
stream_refusal(const struct stream *st, const char *id)
{
	size_t i, n = st->nrefused < STREAM_MAX_REFUSALS ? st->nrefused :
	    STREAM_MAX_REFUSALS;

	for (i = 0; i < n; i++)
		if (strcmp(st->refused[i].id, id) == 0)
			return st->refused[i].why;
	return NULL;
}

/*
 * TN-14: a plan is one line, when it first comes and when it changes
 * (adapters resend it whole, often unchanged). It also ends the model
 * message before it, whose text must not run into the next (TN-13).
 */
void
stream_plan(struct turn *t, const struct acp_plan_entry *e, size_t n)
{
	struct stream *st = t->stream;
	struct conv *cv = t->conv;
	char line[IRC_LINELEN];
	size_t len;

	if (t->cancelled || n == 0)
		return;
	len = plan_line(e, n, line, sizeof(line) < stream_budget(cv) + 1 ?
	    sizeof(line) : stream_budget(cv) + 1);
	if (len == 0 || (st->plan != NULL && strcmp(st->plan, line) == 0))
		return;
	free(st->plan);
	st->plan = xstrdup(line);
	stream_flush(st, 1);
	stream_send(cv, t, "NOTICE", line, len, 0);
	/* It costs a line against the pacing, as text does (TN-4). */
	st->sent += len + OUT_LINE_COST;
	if (!st->held && st->sent >= ircd.conf->sendq / 4)
		stream_hold(st);
}

/*
 * TN-5: a finished tool call is one ACTION line, once per call, saying
 * what it did ("* alice wrote q.txt"), tried ("tried to run `make` —
 * failed") or did not do and why ("did not write q.txt: card 2 was
 * denied").
 */
void
stream_tool(struct turn *t, const struct acp_tool *tool)
{
	struct stream *st = t->stream;
	struct conv *cv = t->conv;
	const char *why = NULL;
	char line[IRC_LINELEN];
	size_t i;
	int failed;

	failed = strcmp(tool->status, "failed") == 0;
	if (!failed && strcmp(tool->status, "completed") != 0)
		return;
	if (cv->agent->conf->tools != NULL &&
	    strcmp(cv->agent->conf->tools, "hide") == 0)
		return;
	/* TN-5: once per tool call. */
	for (i = 0; i < st->ntools; i++)
		if (strcmp(st->tools[i], tool->id) == 0)
			return;
	if (st->ntools < sizeof(st->tools) / sizeof(st->tools[0]))
		st->tools[st->ntools++] = xstrdup(tool->id);
	if (t->cancelled)
		return;
	/* L2: so many tool lines, then only a count (stream_end). */
	if (st->tool_lines >= STREAM_TOOL_LINES) {
		st->tool_more++;
		return;
	}
	st->tool_lines++;
	/* Whatever was streamed before the tool goes out before it. */
	stream_flush(st, 1);
	/*
	 * In phrase.c's words, true to what happened: a call refused on its
	 * card or by the policy did not happen, and the line says why.
	 */
	if (failed)
		why = stream_refusal(st, tool->id);
	phrase_tool_line(line, sizeof(line), tool, cv->agent->conf->cwd,
	    why != NULL ? PHRASE_REFUSED : failed ? PHRASE_FAILED : PHRASE_DONE,
	    why);
	for (i = 0; line[i] != '\0'; i++)
		if (line[i] == '\r' || line[i] == '\n')
			line[i] = ' ';
	stream_say(cv, t, line, message_utf8_trunc(line, strlen(line),
	    stream_budget(cv) - ACTION_WRAP), 1);
	/* L2: it costs a line against the pacing, as text does (TN-4). */
	st->sent += strlen(line) + OUT_LINE_COST;
	if (!st->held && st->sent >= ircd.conf->sendq / 4)
		stream_hold(st);
}

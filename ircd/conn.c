/*
 * conn.c: one client socket. Lines are capped as they are read, commands
 * run only as fast as the flood penalty allows, output past the SendQ
 * drops the client, and silence is answered with PING, then a timeout.
 *
 * Output is gathered for the whole loop turn (wbuf.c) and written at its
 * end, after the turn's history is committed: one sendmsg() per client per
 * turn, however many lines it got, and nothing reaches a client before it
 * is stored. A plain socket is a bare descriptor and one event; only when
 * the kernel does not take everything does a client get a buffer of its
 * own. TLS sockets are bufferevents, fed once per turn.
 *
 * A conn is freed only from the deferred event, never inside a callback
 * that may still be on the stack.
 */
#include "compat.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/event_struct.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ircd/account.h"
#include "ircd/cap.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/dict.h"
#include "ircd/history.h"
#include "ircd/listen.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/wbuf.h"
#include "ircd/xmalloc.h"

/* A whole line: the tag section and the 512-byte rest, CRLF included. */
#define CONN_MAXLINE	(IRC_TAGLEN + IRC_LINELEN)
/*
 * The tag data a client may send, without the '@' and the space: every
 * tag counts, with the client-only prefix or without (message-tags).
 */
#define CONN_CLIENT_TAGDATA	4094
/* How long a closing connection may take to flush its last lines. */
#define CONN_LINGER_SEC	3
/*
 * Past this much output in one turn, write it out between two commands.
 * Big: a storm of JOINs to a 5000-member channel queues 60 KB of segments
 * per JOIN, and each early flush is a write to every member; fewer,
 * larger writes are cheaper for the server and for every client.
 */
#define CONN_FLUSH_AT	(16 * 1024 * 1024)
/* Segments per sendmsg(): a busy turn gives a client hundreds. */
#define CONN_IOV	IOV_MAX
/* The tags of a relayed line depend on these caps only. */
#define CONN_TAGCAPS	(CAP_BATCH | CAP_SERVER_TIME | CAP_ACCOUNT_TAG | CAP_MESSAGE_TAGS)

struct conn {
	TAILQ_ENTRY(conn)	 entry;		/* every conn, for the sweep */
	TAILQ_ENTRY(conn)	 dentry;	/* conns with output this turn */
	struct event		 ev;		/* plain: read, and write when blocked */
	struct bufferevent	*bev;		/* TLS only */
	struct client		*client;
	struct listener		*listener;
	struct event		*hold;		/* flood resume; made on first use */
	struct conn		*defer_next;	/* on the deferred list */
	const char		*exit_reason;
	struct wq		 q;		/* this turn's output */
	char			*ibuf;		/* input not processed yet, or NULL */
	char			*obuf;		/* output the socket has not taken */
	uint32_t		 ilen, icap;
	uint32_t		 ooff, olen, ocap;
	uint64_t		 penalty;	/* ms (monotonic) the client has used up to */
	uint64_t		 delay_until;	/* ms: no lines before (failed logins) */
	time_t			 last_read;
	time_t			 ping_sent;	/* 0 when no PING is outstanding */
	time_t			 close_at;	/* closing: free by then even if unflushed */
	evutil_socket_t		 fd;
	unsigned		 armed:8;	/* EV_READ|EV_WRITE the event waits for */
	unsigned		 closing:1;
	unsigned		 freeing:1;
	unsigned		 deferred:1;
	unsigned		 dirty:1;
	unsigned		 dead:1;	/* the socket is gone: write nothing */
	unsigned		 discarding:1;	/* skipping the rest of an overlong line */
	unsigned		 flood_exempt:1;
	unsigned		 more:1;	/* a line waits behind this one */
	unsigned		 ip_exempt:1;	/* from flood-exempt in the config */
};

static TAILQ_HEAD(, conn) conns = TAILQ_HEAD_INITIALIZER(conns);
static TAILQ_HEAD(, conn) dirty = TAILQ_HEAD_INITIALIZER(dirty);
static struct conn	*deferred;
static struct event	*flush_ev, *defer_ev, *sweep_ev;
static int		 flush_pending;

/*
 * One line is parsed and dispatched at a time, and one socket read at a
 * time, so the line and read buffers and the labeled-response state are
 * shared, not per connection: an idle client costs no buffer at all.
 */
static char conn_line[CONN_MAXLINE + 1];
static char conn_rbuf[16384];

static struct {
	struct conn	*conn;		/* the connection whose command is labeled */
	unsigned	 lines;
	char		 label[IRC_LINELEN];	/* escaped for a tag value */
	char		 batch[16];
	char		*held;		/* the first reply, "tags\nbody" */
} lab;

static const struct client_ops conn_client_ops;
static void	conn_flush_cb(evutil_socket_t, short, void *);
static void	conn_arm(struct conn *);
static void	conn_ev_cb(evutil_socket_t, short, void *);
static void	conn_input(struct conn *, const char *, size_t);

static void
conn_free(struct conn *conn)
{
	if (conn->bev != NULL) {
		/* Say goodbye in TLS too (close_notify), so clients see no truncation. */
		if (!conn->dead) {
			SSL *ssl = bufferevent_openssl_get_ssl(conn->bev);

			if (ssl != NULL && SSL_is_init_finished(ssl))
				(void)SSL_shutdown(ssl);
		}
		bufferevent_free(conn->bev);
	} else {
		if (conn->armed)
			event_del(&conn->ev);
		evutil_closesocket(conn->fd);
	}
	if (conn->hold != NULL)
		event_free(conn->hold);
	if (conn->dirty)
		TAILQ_REMOVE(&dirty, conn, dentry);
	TAILQ_REMOVE(&conns, conn, entry);
	free(conn->ibuf);
	free(conn->obuf);
	ircd.nconns--;
	free(conn);
}

/* Exits and frees wait for the deferred event, off every callback's stack. */
static void
conn_defer(struct conn *conn)
{
	if (conn->deferred)
		return;
	conn->deferred = 1;
	conn->defer_next = deferred;
	deferred = conn;
	event_active(defer_ev, 0, 0);
}

static void
conn_defer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *conn;

	while ((conn = deferred) != NULL) {
		deferred = conn->defer_next;
		conn->deferred = 0;
		if (conn->freeing)
			conn_free(conn);
		else if (conn->client != NULL)
			client_exit(conn->client, conn->exit_reason);
		else
			conn_close(conn, conn->exit_reason);
	}
}

static void
conn_destroy_later(struct conn *conn)
{
	if (conn->freeing)
		return;
	conn->freeing = 1;
	conn_defer(conn);
}

/* The client must go, but not from inside a send loop: exit on the next turn. */
static void
conn_exit_later(struct conn *conn, const char *reason)
{
	if (conn->exit_reason != NULL || conn->closing)
		return;
	conn->exit_reason = reason;
	conn_defer(conn);
}

static int
conn_flood_limited(const struct conn *conn)
{
	return ircd.conf->flood && !conn->flood_exempt;
}

void
conn_penalty(struct conn *conn, unsigned ms)
{
	uint64_t now = server_now_ms();

	if (conn->penalty < now)
		conn->penalty = now;
	conn->penalty += ms;
}

int64_t
conn_next_line_ms(const struct conn *conn)
{
	uint64_t now = server_now_ms(), at = now;
	uint64_t burst = (uint64_t)ircd.conf->flood_burst * 1000;

	if (!conn->more)
		return -1;
	if (conn->delay_until > at)
		at = conn->delay_until;
	if (conn_flood_limited(conn) && conn->penalty > at + burst)
		at = conn->penalty - burst;
	return (int64_t)(at - now);
}

void
conn_delay(struct conn *conn, unsigned ms)
{
	uint64_t now = server_now_ms();

	if (conn->delay_until < now)
		conn->delay_until = now;
	conn->delay_until += ms;
}

int
conn_needs_auth(const struct conn *conn)
{
	return !conn->listener->loopback && !conn->listener->conf->open;
}

void
conn_set_flood_exempt(struct conn *conn, int exempt)
{
	/* Losing oper status falls back to what the address grants. */
	conn->flood_exempt = exempt || conn->ip_exempt;
}

int
conn_is_tls(const struct conn *conn)
{
	return conn->bev != NULL;
}

size_t
conn_sendq(const struct conn *conn)
{
	size_t n = conn->olen + conn->q.bytes;

	if (conn->bev != NULL)
		n += evbuffer_get_length(bufferevent_get_output(conn->bev));
	return n;
}

unsigned
conn_count_ip(const char *ip)
{
	struct client *c;
	unsigned n = 0;

	TAILQ_FOREACH(c, &ircd.all, entry)
		if (c->conn != NULL && strcmp(c->ip, ip) == 0)
			n++;
	return n;
}


/* What is queued but not written goes: the socket is dead or over its SendQ. */
static void
conn_drop_output(struct conn *conn)
{
	memset(&conn->q, 0, sizeof(conn->q));
	free(conn->obuf);
	conn->obuf = NULL;
	conn->ooff = conn->olen = conn->ocap = 0;
	if (conn->bev != NULL) {
		struct evbuffer *out = bufferevent_get_output(conn->bev);

		evbuffer_drain(out, evbuffer_get_length(out));
	}
}

/*
 * The socket is gone: nothing more is written. A closing conn is then
 * freed (returns 1); otherwise its client must still leave (returns 0).
 */
static int
conn_mark_dead(struct conn *conn)
{
	conn->dead = 1;
	conn_drop_output(conn);
	conn_arm(conn);
	if (conn->closing) {
		conn_destroy_later(conn);
		return 1;
	}
	return 0;
}

/*
 * A write failed. Writes happen while the turn's output is flushed, one
 * connection after another: the client leaves from the deferred event,
 * not in the middle of that.
 */
static void
conn_fail(struct conn *conn, const char *reason)
{
	if (!conn_mark_dead(conn))
		conn_exit_later(conn, reason);
}

/* Output is written at the end of the turn; make sure that end comes. */
void
conn_flush_soon(void)
{
	if (flush_pending)
		return;
	flush_pending = 1;
	if (flush_ev == NULL)
		flush_ev = event_new(ircd.base, -1, 0, conn_flush_cb, NULL);
	event_active(flush_ev, 0, 0);
}

static void
conn_queue(struct conn *conn, uint32_t off, uint32_t len)
{
	wq_push(&conn->q, off, len);
	if (!conn->dirty) {
		conn->dirty = 1;
		TAILQ_INSERT_TAIL(&dirty, conn, dentry);
	}
	conn_flush_soon();
}

/* May len more bytes be queued? Past the SendQ the client is dropped. */
static int
conn_room(struct conn *conn, size_t len)
{
	if (conn->closing || conn->dead || conn->exit_reason != NULL)
		return 0;
	if (conn_sendq(conn) + len > ircd.conf->sendq) {
		/* Drop what it will never read; the ERROR line goes out alone. */
		conn_drop_output(conn);
		conn_exit_later(conn, "SendQ exceeded");
		return 0;
	}
	return 1;
}

/*
 * The last guard of IRC framing: a CR, LF or NUL inside a line would end
 * it early for the client and make the rest a second line, from nobody
 * (or forged). Whatever put it there (an agent's title, a multiline
 * text in a reply), it leaves as a space.
 */
static void
conn_unbreak(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] <= '\r' &&
		    (p[i] == '\r' || p[i] == '\n' || p[i] == '\0'))
			p[i] = ' ';
}

/* The bytes of "@tags body\r\n"; no "@tags " when tlen is 0. */
static inline size_t
conn_line_size(size_t tlen, size_t len)
{
	return (tlen > 0 ? tlen + 2 : 0) + len + 2;
}

/*
 * Write "@tags body\r\n" into the arena, need bytes (conn_line_size),
 * and return its offset. The caller has checked the SendQ.
 */
static inline uint32_t
conn_render(const char *tags, size_t tlen, const char *body, size_t len,
    size_t need)
{
	uint32_t off;
	char *line, *p;

	line = p = wbuf_reserve(need, &off);
	if (tlen > 0) {
		*p++ = '@';
		memcpy(p, tags, tlen);
		p += tlen;
		*p++ = ' ';
	}
	memcpy(p, body, len);
	conn_unbreak(line, need - 2);
	p[len] = '\r';
	p[len + 1] = '\n';
	return off;
}

/* Queue one line: "@tags " (when there are tags), the body, CRLF. */
static void
conn_put(struct conn *conn, const char *tags, const char *body, size_t len)
{
	size_t tlen = tags != NULL ? strlen(tags) : 0;
	size_t need = conn_line_size(tlen, len);

	if (!conn_room(conn, need))
		return;
	conn_queue(conn, conn_render(tags, tlen, body, len, need),
	    (uint32_t)need);
}

/* Keep bytes the socket did not take; they leave when it is writable. */
static void
conn_obuf_add(struct conn *conn, const struct wq *q, size_t skip)
{
	size_t n = q->bytes - skip;

	if (conn->ooff > 0 && conn->ooff + conn->olen + n > conn->ocap) {
		memmove(conn->obuf, conn->obuf + conn->ooff, conn->olen);
		conn->ooff = 0;
	}
	if (conn->olen + n > conn->ocap) {
		size_t cap = conn->ocap > 0 ? conn->ocap : 4096;

		while (cap < conn->olen + n)
			cap *= 2;
		conn->obuf = xreallocarray(conn->obuf, cap, 1);
		conn->ocap = (uint32_t)cap;
	}
	wq_copy(q, skip, conn->obuf + conn->ooff + conn->olen);
	conn->olen += (uint32_t)n;
}

/* The event waits for what the socket needs now: input, room, or nothing. */
static void
conn_arm(struct conn *conn)
{
	unsigned want = 0;

	if (conn->bev != NULL)
		return;
	if (!conn->dead) {
		if (!conn->closing)
			want |= EV_READ;
		if (conn->olen > 0)
			want |= EV_WRITE;
	}
	if (want == conn->armed)
		return;
	if (conn->armed)
		event_del(&conn->ev);
	conn->armed = want;
	if (want == 0)
		return;
	event_assign(&conn->ev, ircd.base, conn->fd, (short)(want | EV_PERSIST),
	    conn_ev_cb, conn);
	event_add(&conn->ev, NULL);
}

/*
 * send()/sendmsg() rather than write()/writev(): the socket calls skip the
 * file layer (its position lock among others), which is measurable when a
 * message to a big channel is a thousand of them.
 */
static ssize_t
conn_send(evutil_socket_t fd, struct iovec *iov, int cnt)
{
	struct msghdr mh;

	if (cnt == 1)
		return send(fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = (size_t)cnt;
	return sendmsg(fd, &mh, MSG_NOSIGNAL);
}

/* TLS: one bufferevent_write per 16 KiB, so lines share records. */
static void
conn_flush_tls(struct conn *conn, const struct wq *q)
{
	static char buf[16384];
	static struct iovec iov[CONN_IOV];	/* one loop, one flush at a time */
	uint32_t cur = q->head;
	size_t have = 0;
	int i, n;

	while (cur != 0) {
		n = wq_iov(iov, CONN_IOV, &cur);
		for (i = 0; i < n; i++) {
			const char *p = iov[i].iov_base;
			size_t len = iov[i].iov_len;

			while (len > 0) {
				size_t k = sizeof(buf) - have < len ? sizeof(buf) - have : len;

				memcpy(buf + have, p, k);
				have += k;
				p += k;
				len -= k;
				if (have == sizeof(buf)) {
					bufferevent_write(conn->bev, buf, have);
					have = 0;
				}
			}
		}
	}
	if (have > 0)
		bufferevent_write(conn->bev, buf, have);
}

static void
conn_flush(struct conn *conn)
{
	static struct iovec iov[CONN_IOV];	/* one loop, one flush at a time */
	uint32_t cur;
	size_t done = 0, want;
	ssize_t n;
	int cnt, i;

	if (conn->q.bytes == 0 || conn->dead) {
		memset(&conn->q, 0, sizeof(conn->q));
		return;
	}
	if (conn->bev != NULL) {
		/* Empty first: the write callback may run inside bufferevent_write. */
		struct wq q = conn->q;

		memset(&conn->q, 0, sizeof(conn->q));
		conn_flush_tls(conn, &q);
		if (conn->closing &&
		    evbuffer_get_length(bufferevent_get_output(conn->bev)) == 0)
			conn_destroy_later(conn);
		return;
	}
	/* Older bytes are still waiting: these go behind them. */
	if (conn->olen == 0) {
		cur = conn->q.head;
		while (cur != 0) {
			cnt = wq_iov(iov, CONN_IOV, &cur);
			for (want = 0, i = 0; i < cnt; i++)
				want += iov[i].iov_len;
			n = conn_send(conn->fd, iov, cnt);
			if (n < 0) {
				if (errno != EAGAIN && errno != EWOULDBLOCK &&
				    errno != EINTR) {
					conn_fail(conn, "Write error");
					return;
				}
				n = 0;
			}
			done += (size_t)n;
			if ((size_t)n < want)
				break;
		}
	}
	if (done < conn->q.bytes)
		conn_obuf_add(conn, &conn->q, done);
	memset(&conn->q, 0, sizeof(conn->q));
	conn_arm(conn);
	if (conn->closing && conn->olen == 0)
		conn_destroy_later(conn);
}

/*
 * The end of the turn: commit the turn's history, then give every client
 * its lines, one write each.
 */
static void
conn_flush_all(void)
{
	struct conn *conn;

	flush_pending = 0;
	history_commit();
	while ((conn = TAILQ_FIRST(&dirty)) != NULL) {
		TAILQ_REMOVE(&dirty, conn, dentry);
		conn->dirty = 0;
		conn_flush(conn);
	}
	wbuf_reset();
}

static void
conn_flush_cb(evutil_socket_t fd, short what, void *arg)
{
	conn_flush_all();
}

/* Plain socket writable again: send what it did not take before. */
static void
conn_write_ready(struct conn *conn)
{
	ssize_t n;

	n = send(conn->fd, conn->obuf + conn->ooff, conn->olen, MSG_NOSIGNAL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			conn_fail(conn, "Write error");
		return;
	}
	conn->ooff += (uint32_t)n;
	conn->olen -= (uint32_t)n;
	if (conn->olen > 0)
		return;
	free(conn->obuf);
	conn->obuf = NULL;
	conn->ooff = conn->ocap = 0;
	conn_arm(conn);
	if (conn->closing)
		conn_destroy_later(conn);
}

/* Join "a" and "b" as tag sections ("a;b"), either may be empty. */
static const char *
conn_tags_join(char *buf, size_t size, const char *a, const char *b)
{
	if (a == NULL || *a == '\0')
		return b;
	if (b == NULL || *b == '\0')
		return a;
	snprintf(buf, size, "%s;%s", a, b);
	return buf;
}

/*
 * Every line to a client goes through here. During a labeled command the
 * first reply is held; a second one opens a labeled-response batch.
 */
static void
conn_emit(struct conn *conn, const char *tags, const char *body, size_t len)
{
	char bt[IRC_TAGLEN + 32], tb[IRC_TAGLEN + 64];

	if (lab.conn != conn) {
		conn_put(conn, tags, body, len);
		return;
	}
	if (lab.lines == 0) {
		free(lab.held);
		/* "tags\nbody": the tags are split off again when it is sent. */
		xasprintf(&lab.held, "%s\n%.*s", tags != NULL ? tags : "",
		    (int)len, body);
		lab.lines = 1;
		return;
	}
	snprintf(bt, sizeof(bt), "batch=%s", lab.batch);
	if (lab.lines == 1) {
		char *nl = strchr(lab.held, '\n');
		char open[128];
		int n;

		snprintf(tb, sizeof(tb), "label=%s", lab.label);
		n = snprintf(open, sizeof(open), ":%s BATCH +%s labeled-response",
		    ircd.conf->name, lab.batch);
		conn_put(conn, tb, open, (size_t)n);
		*nl = '\0';
		conn_put(conn, conn_tags_join(tb, sizeof(tb), bt, lab.held),
		    nl + 1, strlen(nl + 1));
		free(lab.held);
		lab.held = NULL;
	}
	lab.lines++;
	conn_put(conn, conn_tags_join(tb, sizeof(tb), bt, tags), body, len);
}

void
conn_label_begin(struct conn *conn, const char *label)
{
	static unsigned long seq;

	lab.conn = conn;
	lab.lines = 0;
	message_tag_escape(lab.label, sizeof(lab.label), label);
	snprintf(lab.batch, sizeof(lab.batch), "L%lx", ++seq);
}

void
conn_label_end(struct conn *conn)
{
	char tb[IRC_TAGLEN + 64], lt[IRC_LINELEN + 8], line[128];
	int n;

	if (lab.conn != conn)
		return;
	lab.conn = NULL;
	snprintf(lt, sizeof(lt), "label=%s", lab.label);
	if (lab.lines == 0) {
		/* A labeled command with no reply is acknowledged. */
		n = snprintf(line, sizeof(line), ":%s ACK", ircd.conf->name);
		conn_put(conn, lt, line, (size_t)n);
	} else if (lab.lines == 1) {
		char *nl = strchr(lab.held, '\n');

		*nl = '\0';
		conn_put(conn, conn_tags_join(tb, sizeof(tb), lt, lab.held),
		    nl + 1, strlen(nl + 1));
	} else {
		n = snprintf(line, sizeof(line), ":%s BATCH -%s", ircd.conf->name,
		    lab.batch);
		conn_put(conn, NULL, line, (size_t)n);
	}
	free(lab.held);
	lab.held = NULL;
}

int
conn_label_defer(struct conn *conn)
{
	if (lab.conn != conn || lab.lines != 0)
		return 0;
	lab.conn = NULL;
	return 1;
}

int
conn_label_claim(struct conn *conn, char *buf, size_t size)
{
	if (lab.conn != conn || lab.lines != 0)
		return 0;
	lab.conn = NULL;
	strlcpy(buf, lab.label, size);
	return 1;
}

void
conn_write(struct conn *conn, const char *line, size_t len)
{
	char tags[IRC_TAGLEN + 64], own[IRC_TAGLEN];
	const char *t = NULL;
	struct client *c = conn->client;
	size_t n = 0;

	/* A line that brings its own tags ("@batch=x ...") keeps them, merged. */
	if (len > 0 && line[0] == '@') {
		const char *sp = memchr(line, ' ', len);

		if (sp == NULL || (size_t)(sp - line) >= sizeof(own))
			return;
		n = (size_t)(sp - line) - 1;
		memcpy(own, line + 1, n);
		own[n] = '\0';
		t = own;
		len -= (size_t)(sp - line) + 1;
		line = sp + 1;
	}
	if (c != NULL && (c->caps & CAP_SERVER_TIME)) {
		char now[40];

		client_time_tag(now, sizeof(now));
		snprintf(tags, sizeof(tags), "%s%stime=%s", t != NULL ? t : "",
		    t != NULL ? ";" : "", now);
		t = tags;
	}
	conn_emit(conn, t, line, len);
}

/*
 * 1 if the line keeps within the tag and body limits, else send 417
 * (message-tags: never truncated, and nothing of it is done).
 */
static int
conn_line_fits(struct conn *conn)
{
	const char *body = conn_line;
	size_t tagdata = 0;

	if (body[0] == '@') {
		const char *sp = strchr(body, ' ');

		tagdata = sp != NULL ? (size_t)(sp - body) - 1 : strlen(body) - 1;
		body += sp != NULL ? (size_t)(sp - body) + 1 : strlen(body);
	}
	if (tagdata > CONN_CLIENT_TAGDATA || strlen(body) > IRC_LINELEN - 2) {
		reply(conn->client, ERR_INPUTTOOLONG);
		return 0;
	}
	return 1;
}

/* The tags of a relayed message for a client with these caps. */
static size_t
conn_deliver_tags(char *tags, size_t size, unsigned caps, const struct outmsg *m)
{
	size_t n = 0;

	tags[0] = '\0';
#define ADD(...) do {							\
	int w_ = snprintf(tags + n, size - n, "%s", n ? ";" : "");	\
	n += (size_t)w_;						\
	w_ = snprintf(tags + n, size - n, __VA_ARGS__);			\
	if (w_ > 0 && (size_t)w_ < size - n)				\
		n += (size_t)w_;					\
} while (0)
	if (m->batch != NULL && (caps & CAP_BATCH))
		ADD("batch=%s", m->batch);
	if (m->stags != NULL)
		ADD("%s", m->stags);
	if (caps & CAP_SERVER_TIME)
		ADD("time=%s", m->time);
	if ((caps & CAP_ACCOUNT_TAG) && m->from->account != NULL)
		ADD("account=%s", m->from->account);
	if (caps & CAP_MESSAGE_TAGS) {
		if (!m->nomsgid)
			ADD("msgid=%s", m->msgid);
		if (m->from->umodes & UMODE_BOT)
			ADD("bot");
		if (m->ctags != NULL && m->ctags[0] != '\0')
			ADD("%s", m->ctags);
	}
#undef ADD
	return n;
}

/*
 * A relayed message: its tags depend only on which tag caps the client
 * negotiated, so the line is rendered once per set of those caps per turn
 * and every recipient with the same set queues the same bytes.
 */
static void
conn_deliver(struct conn *conn, struct client *to, struct outmsg *m)
{
	char tags[IRC_TAGLEN];
	unsigned key = to->caps & CONN_TAGCAPS, gen = wbuf_gen();
	uint32_t off;
	size_t i, n, need;

	n = conn_deliver_tags(tags, sizeof(tags), to->caps, m);
	if (lab.conn == conn) {
		/* The sender's own echo carries its label: not shared. */
		conn_emit(conn, n > 0 ? tags : NULL, m->line, m->len);
		return;
	}
	/* A copied outmsg (struct assignment) does not inherit renderings. */
	if (m->wire_self != m) {
		m->wire_self = m;
		m->nwire = 0;
	}
	for (i = 0; i < m->nwire; i++) {
		if (m->wire[i].key == key && m->wire[i].gen == gen) {
			if (conn_room(conn, m->wire[i].len))
				conn_queue(conn, m->wire[i].off, m->wire[i].len);
			return;
		}
	}
	need = conn_line_size(n, m->len);
	if (!conn_room(conn, need))
		return;
	off = conn_render(tags, n, m->line, m->len, need);
	i = m->nwire < OUTMSG_NWIRE ? m->nwire++ : key % OUTMSG_NWIRE;
	m->wire[i].key = key;
	m->wire[i].gen = gen;
	m->wire[i].off = off;
	m->wire[i].len = (uint32_t)need;
	conn_queue(conn, off, (uint32_t)need);
}

void
conn_close(struct conn *conn, const char *reason)
{
	char buf[IRC_LINELEN];
	const char *ip = conn->client != NULL ? conn->client->ip : "unknown";
	int n;

	if (conn->closing)
		return;
	/* The line is made now: the client is gone once closing starts. */
	n = snprintf(buf, sizeof(buf), "ERROR :Closing Link: %s (%s)", ip, reason);
	conn->closing = 1;
	conn->client = NULL;
	conn->close_at = time(NULL) + CONN_LINGER_SEC;
	if (conn->dead) {
		conn_destroy_later(conn);
		return;
	}
	if (conn->bev != NULL)
		bufferevent_disable(conn->bev, EV_READ);
	conn_arm(conn);
	if (n < 0)
		n = 0;
	n = (int)message_utf8_trunc(buf, (size_t)n, IRC_LINELEN - 2);
	conn_unbreak(buf, (size_t)n);
	memcpy(buf + n, "\r\n", 2);
	/* Freed once flushed (conn_flush, the write callbacks), or by the sweep. */
	conn_queue(conn, wbuf_put(buf, (size_t)n + 2), (uint32_t)n + 2);
}

/* Keep input that is not processed yet (a partial line, held lines). */
static void
conn_ibuf_add(struct conn *conn, const char *p, size_t n)
{
	if (conn->ilen + n > conn->icap) {
		size_t cap = conn->icap > 0 ? conn->icap : 1024;

		while (cap < conn->ilen + n)
			cap *= 2;
		conn->ibuf = xreallocarray(conn->ibuf, cap, 1);
		conn->icap = (uint32_t)cap;
	}
	memcpy(conn->ibuf + conn->ilen, p, n);
	conn->ilen += (uint32_t)n;
}

/* Hold the client's next lines for ms: flood control, failed logins. */
static void
conn_hold_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *conn = arg;

	conn_input(conn, NULL, 0);
}

/*
 * The end of the first line in p: CR, LF or CR LF, as InspIRCd and
 * ngIRCd read them. A CR that ended nothing would reach every client
 * that ends lines at CR as a second, forged line.
 */
static const char *
conn_eol(const char *p, size_t n)
{
	const char *lf = memchr(p, '\n', n), *cr;

	cr = memchr(p, '\r', lf != NULL ? (size_t)(lf - p) : n);
	return cr != NULL ? cr : lf;
}

/* How many bytes the end of line at eol takes (end: the data's end). */
static size_t
conn_eol_len(const char *eol, const char *end)
{
	return eol[0] == '\r' && eol + 1 < end && eol[1] == '\n' ? 2 : 1;
}

/* Run the complete lines of p as far as flood control allows; returns bytes used. */
static size_t
conn_lines(struct conn *conn, const char *p, size_t n)
{
	struct message m;
	uint64_t burst = (uint64_t)ircd.conf->flood_burst * 1000;
	size_t off = 0, len;
	const char *eol;

	while (!conn->closing && conn->exit_reason == NULL && conn->client != NULL) {
		uint64_t now = server_now_ms(), wait = 0;

		/* A password being checked (verify.c): the rest waits for it. */
		if (conn->client->verify != NULL) {
			if (n - off > ircd.conf->recvq)
				conn_exit_later(conn, "Excess Flood");
			break;
		}

		if (conn->delay_until > now)
			wait = conn->delay_until - now;
		/* Lines that can log in wait while the address is slowed down. */
		if (!(conn->client->flags & CLIENT_REGISTERED) || conn->client->sasl != NULL) {
			uint64_t w = account_wait_ms(LOGIN_BLOCK,
			    conn->client->ip);

			if (w > wait)
				wait = w;
		}
		else if (conn_flood_limited(conn) && conn->penalty > now + burst)
			wait = conn->penalty - now - burst;
		if (wait > 0) {
			/* Come back when the client has earned another line. */
			struct timeval tv;

			if (off >= n || conn_eol(p + off, n - off) == NULL)
				break;
			tv = clock_timeval(wait);
			if (conn->hold == NULL)
				conn->hold = evtimer_new(ircd.base, conn_hold_cb, conn);
			evtimer_add(conn->hold, &tv);
			if (n - off > ircd.conf->recvq)
				conn_exit_later(conn, "Excess Flood");
			break;
		}
		eol = off < n ? conn_eol(p + off, n - off) : NULL;
		if (eol == NULL) {
			if (n - off > CONN_MAXLINE) {
				/* No end in sight: drop it all and the rest of the line. */
				if (!conn->discarding)
					reply(conn->client, ERR_INPUTTOOLONG);
				conn->discarding = 1;
				off = n;
			}
			break;
		}
		len = (size_t)(eol - (p + off));
		if (conn->discarding || len > CONN_MAXLINE) {
			if (!conn->discarding)
				reply(conn->client, ERR_INPUTTOOLONG);
			conn->discarding = 0;
			off += len + conn_eol_len(eol, p + n);
			continue;
		}
		memcpy(conn_line, p + off, len);
		off += len + conn_eol_len(eol, p + n);
		conn_line[len] = '\0';
		if (!conn_line_fits(conn))
			continue;
		if (message_parse(conn_line, &m) != MSG_OK)
			continue;
		conn->more = off < n && conn_eol(p + off, n - off) != NULL;
		command_dispatch(conn->client, &m);
		conn->more = 0;
		/* A huge turn goes out between two commands, not all at its end. */
		if (wbuf_used() > CONN_FLUSH_AT)
			conn_flush_all();
	}
	return off;
}

void
conn_resume(struct conn *conn)
{
	if (!conn->closing && conn->exit_reason == NULL)
		conn_input(conn, NULL, 0);
}

/* New input (or none, to resume held lines): run what may run, keep the rest. */
static void
conn_input(struct conn *conn, const char *data, size_t len)
{
	size_t used;

	if (conn->ilen > 0 || data == NULL) {
		if (len > 0)
			conn_ibuf_add(conn, data, len);
		used = conn_lines(conn, conn->ibuf != NULL ? conn->ibuf : "", conn->ilen);
		if (conn->closing)
			return;
		conn->ilen -= (uint32_t)used;
		if (conn->ilen > 0) {
			memmove(conn->ibuf, conn->ibuf + used, conn->ilen);
			return;
		}
		free(conn->ibuf);
		conn->ibuf = NULL;
		conn->icap = 0;
		return;
	}
	used = conn_lines(conn, data, len);
	if (used < len && !conn->closing)
		conn_ibuf_add(conn, data + used, len - used);
}

/*
 * The other side closed, or a read failed. From a read callback the
 * client can leave at once, and must: reason is on the caller's stack.
 */
static void
conn_lost(struct conn *conn, const char *reason)
{
	if (conn_mark_dead(conn))
		return;
	if (conn->client != NULL)
		client_exit(conn->client, reason);
	else
		conn_close(conn, reason);
}

static void
conn_read_ready(struct conn *conn)
{
	char reason[128];
	ssize_t n;

	n = read(conn->fd, conn_rbuf, sizeof(conn_rbuf));
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		snprintf(reason, sizeof(reason), "Read error: %s", strerror(errno));
		conn_lost(conn, reason);
		return;
	}
	if (n == 0) {
		conn_lost(conn, "Connection closed");
		return;
	}
	conn->last_read = time(NULL);
	conn->ping_sent = 0;
	conn_input(conn, conn_rbuf, (size_t)n);
}

static void
conn_ev_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *conn = arg;

	if ((what & EV_WRITE) && conn->olen > 0 && !conn->dead)
		conn_write_ready(conn);
	if ((what & EV_READ) && !conn->closing && !conn->dead)
		conn_read_ready(conn);
}

static void
conn_tls_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *conn = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	int n;

	conn->last_read = time(NULL);
	conn->ping_sent = 0;
	while (!conn->closing && (n = evbuffer_remove(in, conn_rbuf,
	    sizeof(conn_rbuf))) > 0)
		conn_input(conn, conn_rbuf, (size_t)n);
}

static void
conn_tls_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *conn = arg;

	if (conn->closing && conn->q.bytes == 0)
		conn_destroy_later(conn);
}

/* Remember the client certificate's SHA-256 for SASL EXTERNAL. */
static void
conn_tls_certfp(struct conn *conn)
{
	SSL *ssl = bufferevent_openssl_get_ssl(conn->bev);
	X509 *cert;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n, i;
	char *hex;

	if (ssl == NULL || (cert = SSL_get1_peer_certificate(ssl)) == NULL)
		return;
	if (X509_digest(cert, EVP_sha256(), md, &n) == 1) {
		hex = xmalloc(n * 2 + 1);
		for (i = 0; i < n; i++)
			snprintf(hex + i * 2, 3, "%02x", md[i]);
		free(conn->client->certfp);
		conn->client->certfp = hex;
	}
	X509_free(cert);
}

static void
conn_tls_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *conn = arg;
	char reason[128];
	unsigned long err;

	if (what & BEV_EVENT_CONNECTED) {
		if (conn->client != NULL)
			conn_tls_certfp(conn);
		return;
	}
	if (what & BEV_EVENT_EOF)
		strlcpy(reason, "Connection closed", sizeof(reason));
	else if ((err = bufferevent_get_openssl_error(bev)) != 0)
		snprintf(reason, sizeof(reason), "TLS error: %s",
		    ERR_reason_error_string(err) ? ERR_reason_error_string(err) : "unknown");
	else
		strlcpy(reason, "Read error", sizeof(reason));
	conn_lost(conn, reason);
}

/*
 * Once a second, for every connection: registration and ping timeouts,
 * PINGs to the silent, and closing connections that never flushed. One
 * timer for all instead of one each keeps an idle client small.
 */
static void
conn_sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	const struct conf *cf = ircd.conf;
	struct conn *conn, *tmp;
	time_t now = time(NULL);
	char reason[64];

	TAILQ_FOREACH_SAFE(conn, &conns, entry, tmp) {
		struct client *c = conn->client;

		if (conn->closing) {
			if (now >= conn->close_at)
				conn_destroy_later(conn);
			continue;
		}
		if (c == NULL || conn->exit_reason != NULL)
			continue;
		if (!(c->flags & CLIENT_REGISTERED)) {
			if (now >= c->signon + cf->register_timeout)
				client_exit(c, "Registration timed out");
		} else if (conn->ping_sent) {
			if (now >= conn->ping_sent + cf->ping_timeout) {
				snprintf(reason, sizeof(reason),
				    "Ping timeout: %lld seconds",
				    (long long)(now - conn->last_read));
				client_exit(c, reason);
			}
		} else if (now >= conn->last_read + cf->ping_interval) {
			client_send(c, "PING :%s", cf->name);
			conn->ping_sent = now;
		}
	}
}

static void
conn_send_op(struct client *c, const char *line, size_t len)
{
	conn_write(c->conn, line, len);
}

static void
conn_deliver_op(struct client *c, struct outmsg *m)
{
	/* TAGMSG only reaches clients that can read tags. */
	if (m->tagmsg && !(c->caps & CAP_MESSAGE_TAGS))
		return;
	conn_deliver(c->conn, c, m);
}

static void
conn_release_op(struct client *c, const char *reason)
{
	conn_close(c->conn, reason);
}

static const struct client_ops conn_client_ops = {
	.send = conn_send_op,
	.deliver = conn_deliver_op,
	.release = conn_release_op,
};

struct conn *
conn_new(evutil_socket_t fd, struct bufferevent *tlsbev,
    const struct sockaddr *sa, socklen_t salen, struct listener *l)
{
	struct conn *conn = xcalloc(1, sizeof(*conn));
	struct client *c;
	char ip[INET6_ADDRSTRLEN];
	int one = 1;

	if (sweep_ev == NULL) {
		struct timeval sec = { 1, 0 };

		defer_ev = event_new(ircd.base, -1, 0, conn_defer_cb, NULL);
		sweep_ev = event_new(ircd.base, -1, EV_PERSIST, conn_sweep_cb, NULL);
		evtimer_add(sweep_ev, &sec);
	}
	conn->fd = fd;
	conn->bev = tlsbev;
	conn->listener = l;
	conn->last_read = time(NULL);
	conn->flood_exempt = conn->ip_exempt =
	    conf_cidr_match(ircd.conf->flood_nets, ircd.conf->nflood_nets, sa);
	/* Replies are small and interactive: never wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
		    ip, sizeof(ip));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		    ip, sizeof(ip));
	else
		strlcpy(ip, "unknown", sizeof(ip));
	(void)salen;
	TAILQ_INSERT_TAIL(&conns, conn, entry);
	ircd.nconns++;

	c = client_new(&conn_client_ops, conn);
	conn->client = c;
	strlcpy(c->ip, ip, sizeof(c->ip));
	/* A host may not start with ':' on the wire ("::1" -> "0::1"). */
	if (ip[0] == ':') {
		char host[INET6_ADDRSTRLEN + 1];

		snprintf(host, sizeof(host), "0%s", ip);
		client_set_host(c, host);
	} else
		client_set_host(c, ip);
	if (conn->flood_exempt)
		c->flags |= CLIENT_FLOOD_EXEMPT;
	client_update_prefix(c);

	if (tlsbev != NULL) {
		bufferevent_setcb(tlsbev, conn_tls_read_cb, conn_tls_write_cb,
		    conn_tls_event_cb, conn);
		bufferevent_enable(tlsbev, EV_READ | EV_WRITE);
	} else {
		event_assign(&conn->ev, ircd.base, fd, EV_READ | EV_PERSIST,
		    conn_ev_cb, conn);
		conn_arm(conn);
	}
	return conn;
}

/* Once every connection is gone: the shared events and buffers. */
void
conn_shutdown(void)
{
	conn_flush_all();
	if (flush_ev != NULL)
		event_free(flush_ev);
	if (defer_ev != NULL)
		event_free(defer_ev);
	if (sweep_ev != NULL)
		event_free(sweep_ev);
	flush_ev = defer_ev = sweep_ev = NULL;
	flush_pending = 0;
	free(lab.held);
	lab.held = NULL;
	wbuf_free();
}

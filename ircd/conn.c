/*
 * conn.c: one client socket. Lines are capped as they are read, commands
 * run only as fast as the flood penalty allows, output past the SendQ
 * drops the client, and silence is answered with PING, then a timeout.
 * A conn is freed only from its own deferred event, never inside a
 * bufferevent callback that may still be on the stack.
 */
#include "compat.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/account.h"
#include "ircd/cap.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/dict.h"
#include "ircd/listen.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/* A whole line: the tag section and the 512-byte rest, CRLF included. */
#define CONN_MAXLINE	(IRC_TAGLEN + IRC_LINELEN)
/* How long a closing connection may take to flush its last lines. */
#define CONN_LINGER_SEC	3

struct conn {
	struct bufferevent	*bev;
	struct client		*client;
	struct listener		*listener;
	struct event		*timer;		/* pings, registration, flood resume */
	struct event		*ev_free;	/* deferred free */
	struct event		*ev_exit;	/* deferred client_exit (SendQ) */
	const char		*exit_reason;
	uint64_t		 penalty;	/* ms (monotonic) the client has used up to */
	uint64_t		 delay_until;	/* ms: no lines before (failed logins) */
	time_t			 last_read;
	time_t			 ping_sent;	/* 0 when no PING is outstanding */
	int			 closing;
	int			 freeing;
	int			 dead;		/* the socket is gone: write nothing */
	int			 discarding;	/* skipping the rest of an overlong line */
	int			 flood_exempt;
	int			 ip_exempt;	/* from flood-exempt in the config */
	int			 tls;
	char			 ip[64];
};

/*
 * One line is parsed and dispatched at a time, so the line buffer and the
 * labeled-response state are shared, not per connection: an idle client
 * costs no 8 KiB line buffer.
 */
static char conn_line[CONN_MAXLINE + 1];

static struct {
	struct conn	*conn;		/* the connection whose command is labeled */
	unsigned	 lines;
	char		 label[IRC_LINELEN];	/* escaped for a tag value */
	char		 batch[16];
	char		*held;		/* the first reply, "tags\nbody" */
} lab;

static const struct client_ops conn_client_ops;

static uint64_t
conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
conn_free_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *conn = arg;

	/* Say goodbye in TLS too (close_notify), so clients see no truncation. */
	if (conn->tls && !conn->dead) {
		SSL *ssl = bufferevent_openssl_get_ssl(conn->bev);

		if (ssl != NULL && SSL_is_init_finished(ssl))
			(void)SSL_shutdown(ssl);
	}
	bufferevent_free(conn->bev);
	event_free(conn->timer);
	event_free(conn->ev_free);
	event_free(conn->ev_exit);
	ircd.nconns--;
	free(conn);
}

static void
conn_destroy_later(struct conn *conn)
{
	if (conn->freeing)
		return;
	conn->freeing = 1;
	event_active(conn->ev_free, 0, 0);
}

/* The client must go, but not from inside a send loop: exit on the next turn. */
static void
conn_exit_later(struct conn *conn, const char *reason)
{
	if (conn->exit_reason != NULL || conn->closing)
		return;
	conn->exit_reason = reason;
	event_active(conn->ev_exit, 0, 0);
}

static void
conn_exit_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *conn = arg;

	if (conn->client != NULL)
		client_exit(conn->client, conn->exit_reason);
	else
		conn_close(conn, conn->exit_reason);
}

static int
conn_flood_limited(const struct conn *conn)
{
	return ircd.conf->flood && !conn->flood_exempt;
}

static void
conn_schedule(struct conn *conn)
{
	struct timeval tv = { 0, 0 };
	time_t now = time(NULL), due;
	const struct conf *cf = ircd.conf;

	if (conn->closing)
		return;
	if (conn->client != NULL && !(conn->client->flags & CLIENT_REGISTERED))
		due = conn->client->signon + cf->register_timeout;
	else if (conn->ping_sent)
		due = conn->ping_sent + cf->ping_timeout;
	else
		due = conn->last_read + cf->ping_interval;
	tv.tv_sec = due > now ? due - now : 0;
	evtimer_add(conn->timer, &tv);
}

void
conn_penalty(struct conn *conn, unsigned ms)
{
	uint64_t now = conn_now_ms();

	if (conn->penalty < now)
		conn->penalty = now;
	conn->penalty += ms;
}

void
conn_delay(struct conn *conn, unsigned ms)
{
	uint64_t now = conn_now_ms();

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
	return conn->tls;
}

size_t
conn_sendq(const struct conn *conn)
{
	return evbuffer_get_length(bufferevent_get_output(conn->bev));
}

unsigned
conn_count_ip(const char *ip)
{
	struct client *c;
	unsigned n = 0;

	TAILQ_FOREACH(c, &ircd.all, entry)
		if (c->conn != NULL && strcmp(c->conn->ip, ip) == 0)
			n++;
	return n;
}

/* Queue one line: "@tags " (when there are tags), the body, CRLF. */
static void
conn_put(struct conn *conn, const char *tags, const char *body, size_t len)
{
	struct evbuffer *out;
	size_t tlen = tags != NULL ? strlen(tags) : 0;

	if (conn->closing || conn->dead || conn->exit_reason != NULL)
		return;
	out = bufferevent_get_output(conn->bev);
	if (evbuffer_get_length(out) + tlen + len + 4 > ircd.conf->sendq) {
		/* Drop what it will never read; the ERROR line goes out alone. */
		evbuffer_drain(out, evbuffer_get_length(out));
		conn_exit_later(conn, "SendQ exceeded");
		return;
	}
	if (tlen > 0) {
		evbuffer_add(out, "@", 1);
		evbuffer_add(out, tags, tlen);
		evbuffer_add(out, " ", 1);
	}
	evbuffer_add(out, body, len);
	evbuffer_add(out, "\r\n", 2);
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

/* A relayed message: tags chosen by what this client negotiated. */
static void
conn_deliver(struct conn *conn, struct client *to, struct outmsg *m)
{
	char tags[IRC_TAGLEN];
	size_t n = 0;
	unsigned caps = to->caps;

	tags[0] = '\0';
#define ADD(...) do {							\
	int w_ = snprintf(tags + n, sizeof(tags) - n, "%s", n ? ";" : "");	\
	n += (size_t)w_;						\
	w_ = snprintf(tags + n, sizeof(tags) - n, __VA_ARGS__);	\
	if (w_ > 0 && (size_t)w_ < sizeof(tags) - n)			\
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
	conn_emit(conn, n > 0 ? tags : NULL, m->line, m->len);
}

void
conn_close(struct conn *conn, const char *reason)
{
	struct timeval linger = { CONN_LINGER_SEC, 0 };
	char buf[IRC_LINELEN];
	int n;

	if (conn->closing)
		return;
	conn->closing = 1;
	conn->client = NULL;
	evtimer_del(conn->timer);
	if (conn->dead) {
		conn_destroy_later(conn);
		return;
	}
	bufferevent_disable(conn->bev, EV_READ);
	n = snprintf(buf, sizeof(buf), "ERROR :Closing Link: %s (%s)", conn->ip,
	    reason);
	if (n > 0) {
		evbuffer_add(bufferevent_get_output(conn->bev), buf,
		    message_utf8_trunc(buf, (size_t)n, IRC_LINELEN - 2));
		evbuffer_add(bufferevent_get_output(conn->bev), "\r\n", 2);
	}
	/* The write callback frees it once flushed; the timer if it never is. */
	evtimer_add(conn->timer, &linger);
}

/* Take one complete line off the input into conn_line; 1 if one was taken. */
static int
conn_take_line(struct conn *conn, struct evbuffer *in)
{
	struct evbuffer_ptr eol;
	size_t eol_len, len;

	for (;;) {
		eol = evbuffer_search_eol(in, NULL, &eol_len, EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			if (evbuffer_get_length(in) > CONN_MAXLINE) {
				/* No end in sight: drop it all and the rest of the line. */
				evbuffer_drain(in, evbuffer_get_length(in));
				if (!conn->discarding && conn->client != NULL)
					reply(conn->client, ERR_INPUTTOOLONG);
				conn->discarding = 1;
			}
			return 0;
		}
		len = (size_t)eol.pos;
		if (conn->discarding || len > CONN_MAXLINE) {
			evbuffer_drain(in, len + eol_len);
			if (!conn->discarding && conn->client != NULL)
				reply(conn->client, ERR_INPUTTOOLONG);
			conn->discarding = 0;
			continue;
		}
		evbuffer_remove(in, conn_line, len);
		evbuffer_drain(in, eol_len);
		if (len > 0 && conn_line[len - 1] == '\r')
			len--;
		conn_line[len] = '\0';
		return 1;
	}
}

/* 1 if the line keeps within the tag and body limits, else send 417. */
static int
conn_line_fits(struct conn *conn)
{
	const char *body = conn_line;
	size_t taglen = 0;

	if (body[0] == '@') {
		const char *sp = strchr(body, ' ');

		taglen = sp != NULL ? (size_t)(sp - body) + 1 : strlen(body);
		body += taglen;
	}
	if (taglen > IRC_TAGLEN || strlen(body) > IRC_LINELEN - 2) {
		reply(conn->client, ERR_INPUTTOOLONG);
		return 0;
	}
	return 1;
}

static void
conn_process(struct conn *conn)
{
	struct evbuffer *in = bufferevent_get_input(conn->bev);
	struct message m;
	uint64_t burst = (uint64_t)ircd.conf->flood_burst * 1000;

	while (!conn->closing && conn->exit_reason == NULL && conn->client != NULL) {
		uint64_t now = conn_now_ms(), wait = 0;

		if (conn->delay_until > now)
			wait = conn->delay_until - now;
		/* Lines that can log in wait while the address is slowed down. */
		if (!(conn->client->flags & CLIENT_REGISTERED) || conn->client->sasl != NULL) {
			uint64_t w = account_wait_ms(conn->ip);

			if (w > wait)
				wait = w;
		}
		else if (conn_flood_limited(conn) && conn->penalty > now + burst)
			wait = conn->penalty - now - burst;
		if (wait > 0) {
			/* Come back when the client has earned another line. */
			struct timeval tv;

			tv.tv_sec = (time_t)(wait / 1000);
			tv.tv_usec = (suseconds_t)(wait % 1000) * 1000;
			evtimer_add(conn->timer, &tv);
			if (evbuffer_get_length(in) > ircd.conf->recvq)
				conn_exit_later(conn, "Excess Flood");
			return;
		}
		if (!conn_take_line(conn, in))
			break;
		if (!conn_line_fits(conn))
			continue;
		if (message_parse(conn_line, &m) != MSG_OK)
			continue;
		command_dispatch(conn->client, &m);
	}
	if (!conn->closing && conn->exit_reason == NULL)
		conn_schedule(conn);
}

static void
conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct conn *conn = arg;

	conn->last_read = time(NULL);
	conn->ping_sent = 0;
	conn_process(conn);
}

static void
conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *conn = arg;

	if (conn->closing)
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
conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *conn = arg;
	char reason[128];
	unsigned long err;

	if (what & BEV_EVENT_CONNECTED) {
		if (conn->tls && conn->client != NULL)
			conn_tls_certfp(conn);
		return;
	}
	conn->dead = 1;
	if (conn->closing) {
		conn_destroy_later(conn);
		return;
	}
	if (what & BEV_EVENT_EOF)
		strlcpy(reason, "Connection closed", sizeof(reason));
	else if (conn->tls && (err = bufferevent_get_openssl_error(bev)) != 0)
		snprintf(reason, sizeof(reason), "TLS error: %s",
		    ERR_reason_error_string(err) ? ERR_reason_error_string(err) : "unknown");
	else
		strlcpy(reason, "Read error", sizeof(reason));
	if (conn->client != NULL)
		client_exit(conn->client, reason);
	else
		conn_close(conn, reason);
}

static void
conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *conn = arg;
	const struct conf *cf = ircd.conf;
	time_t now = time(NULL);
	char reason[64];

	if (conn->closing) {
		conn_destroy_later(conn);
		return;
	}
	if (conn->client == NULL)
		return;
	if (!(conn->client->flags & CLIENT_REGISTERED)) {
		if (now >= conn->client->signon + cf->register_timeout) {
			client_exit(conn->client, "Registration timed out");
			return;
		}
	} else if (conn->ping_sent) {
		if (now >= conn->ping_sent + cf->ping_timeout) {
			snprintf(reason, sizeof(reason), "Ping timeout: %lld seconds",
			    (long long)(now - conn->last_read));
			client_exit(conn->client, reason);
			return;
		}
	} else if (now >= conn->last_read + cf->ping_interval) {
		client_send(conn->client, "PING :%s", cf->name);
		conn->ping_sent = now;
	}
	/* The timer also resumes a client held back by flood control. */
	conn_process(conn);
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

static int
conn_ip_exempt(const struct sockaddr *sa)
{
	char *const *p;

	for (p = ircd.conf->flood_exempt; p != NULL && *p != NULL; p++) {
		char net[64], *slash;
		unsigned char want[16], have[16];
		int bits, family, alen, i;

		strlcpy(net, *p, sizeof(net));
		slash = strchr(net, '/');
		if (slash != NULL)
			*slash++ = '\0';
		family = strchr(net, ':') != NULL ? AF_INET6 : AF_INET;
		alen = family == AF_INET6 ? 16 : 4;
		if (inet_pton(family, net, want) != 1)
			continue;
		bits = slash != NULL ? atoi(slash) : alen * 8;
		if (sa->sa_family == AF_INET && family == AF_INET)
			memcpy(have, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		else if (sa->sa_family == AF_INET6 && family == AF_INET6)
			memcpy(have, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		else
			continue;
		for (i = 0; i < alen && bits > 0; i++, bits -= 8) {
			unsigned char mask = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));

			if ((want[i] & mask) != (have[i] & mask))
				break;
		}
		if (i == alen || bits <= 0)
			return 1;
	}
	return 0;
}

struct conn *
conn_new(struct bufferevent *bev, const struct sockaddr *sa, socklen_t salen,
    struct listener *l)
{
	struct conn *conn = xcalloc(1, sizeof(*conn));
	struct client *c;
	evutil_socket_t fd = bufferevent_getfd(bev);
	int one = 1;

	conn->bev = bev;
	conn->listener = l;
	conn->tls = l->ssl != NULL;
	conn->last_read = time(NULL);
	conn->timer = evtimer_new(ircd.base, conn_timer_cb, conn);
	conn->ev_free = event_new(ircd.base, -1, 0, conn_free_cb, conn);
	conn->ev_exit = event_new(ircd.base, -1, 0, conn_exit_cb, conn);
	conn->flood_exempt = conn->ip_exempt = conn_ip_exempt(sa);
	/* Replies are small and interactive: never wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
		    conn->ip, sizeof(conn->ip));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		    conn->ip, sizeof(conn->ip));
	else
		strlcpy(conn->ip, "unknown", sizeof(conn->ip));
	(void)salen;
	ircd.nconns++;

	c = client_new(&conn_client_ops, conn);
	conn->client = c;
	strlcpy(c->ip, conn->ip, sizeof(c->ip));
	/* A host may not start with ':' on the wire ("::1" -> "0::1"). */
	c->host[0] = '\0';
	if (conn->ip[0] == ':')
		strlcpy(c->host, "0", sizeof(c->host));
	strlcat(c->host, conn->ip, sizeof(c->host));
	if (conn->flood_exempt)
		c->flags |= CLIENT_FLOOD_EXEMPT;
	client_update_prefix(c);

	bufferevent_setcb(bev, conn_read_cb, conn_write_cb, conn_event_cb, conn);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	conn_schedule(conn);
	return conn;
}

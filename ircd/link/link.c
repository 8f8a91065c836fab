/*
 * link.c: each [link] section's connection and its state machine (LK-1).
 * This server connects out (autoconnect, with back-off), speaks CAPAB and
 * SERVER as InspIRCd 3 does, checks the peer's password against the
 * config's hash and its certificate against the pinned fingerprint, then
 * bursts (link-burst.c) and hands every later line to link-user.c.
 *
 * Whatever the peer sends is bounded: a line longer than the protocol's
 * limit, or a SendQ past LINK_SENDQ, ends the link with an ERROR and a
 * log line; a malformed line is logged and ignored.
 */
#include "compat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/dict.h"
#include "ircd/ircd.h"
#include "ircd/link/link.h"
#include "ircd/listen.h"
#include "ircd/log.h"
#include "ircd/mode.h"
#include "ircd/passwd.h"
#include "ircd/xmalloc.h"

#define LINK_BACKOFF_MIN	5
#define LINK_BACKOFF_MAX	300
#define LINK_TICK		5	/* seconds between liveness checks */
#define LINK_MODULES_MAX	8192	/* bytes of CAPAB MODULES kept */

/* Pointers: a reload adds and removes links, and each is an event's arg. */
static struct link	**links;
static size_t		 nlinks;

static void	link_connect(struct link *);
static void	link_close(struct link *, const char *why);
static int	link_check_fingerprint(struct link *);

size_t
link_count(void)
{
	return nlinks;
}

struct link *
link_at(size_t i)
{
	return i < nlinks ? links[i] : NULL;
}

/*
 * Our SID as the links started with it: every UUID of ours is made from
 * it, so a reload must not change it under a link (a restart does).
 */
static char	link_sid[CONF_SIDLEN + 1];

const char *
link_our_sid(void)
{
	return link_sid;
}

int
link_has_module(const struct link *l, const char *module)
{
	const char *p = l->peer_modules;
	size_t n = strlen(module);

	while (p != NULL && (p = strstr(p, module)) != NULL) {
		/* Whole names only: "m_botmode.so" or "m_botmode.so=...". */
		if ((p == l->peer_modules || p[-1] == ' ' || p[-1] == ',') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '=' || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

/*
 * The debug log of the lines: the SERVER lines of the handshake carry a
 * password, which is never logged (SEC-2).
 */
static void
link_log_line(struct link *l, const char *dir, const char *line, size_t n)
{
	if (n > 7 && strncmp(line, "SERVER ", 7) == 0)
		log_debug("link %s: %s SERVER (the rest hidden: a password)",
		    l->name, dir);
	else
		log_debug("link %s: %s %.*s", l->name, dir, (int)n, line);
}

int
link_peer_chanmode(const struct link *l, char letter)
{
	return l->peer_chanmodes != NULL ?
	    link_chanmode_type(l->peer_chanmodes, letter) : MODE_UNKNOWN;
}

int
link_has_umode(const struct link *l, char letter)
{
	const char *p;

	if (letter == 'B' && l->peer_bot)
		return 1;
	for (p = l->peer_umodes; (p = strchr(p, '=')) != NULL; p++)
		if (p[1] == letter && (p[2] == ' ' || p[2] == '\0'))
			return 1;
	return 0;
}

void
link_send(struct link *l, const char *fmt, ...)
{
	char buf[LINK_LINEMAX + 3];
	va_list ap;
	int n;

	if (l->bev == NULL || l->state < LINK_CAPAB)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf) - 2) {
		log_warnx("link %s: a line of %d bytes cut to fit", l->name, n);
		n = (int)sizeof(buf) - 3;
	}
	link_log_line(l, ">", buf, (size_t)n);
	buf[n] = '\r';
	buf[n + 1] = '\n';
	bufferevent_write(l->bev, buf, (size_t)n + 2);
	if (evbuffer_get_length(bufferevent_get_output(l->bev)) > LINK_SENDQ) {
		link_close(l, "SendQ exceeded");
		return;
	}
	/* Kept after it is written: the PING that asks for it follows it. */
	link_replay_keep(l, buf, (size_t)n);
}

/*
 * Connections being let go: their last words (an ERROR) go out, then they
 * wait for the peer's end, 10 s at most; a stop frees what is left.
 */
struct link_drain {
	TAILQ_ENTRY(link_drain)	 entry;
	struct bufferevent	*bev;
};
static TAILQ_HEAD(, link_drain) drains = TAILQ_HEAD_INITIALIZER(drains);

static void
link_drain_free(struct link_drain *d)
{
	TAILQ_REMOVE(&drains, d, entry);
	bufferevent_free(d->bev);
	free(d);
}

static void
link_drained_ev(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	/* A TLS handshake finishing is no reason to stop writing. */
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		link_drain_free(arg);
}

/* What a connection being let go still receives is not read. */
static void
link_drained_read(struct bufferevent *bev, void *arg)
{
	struct evbuffer *in = bufferevent_get_input(bev);

	(void)arg;
	evbuffer_drain(in, evbuffer_get_length(in));
}

/*
 * Its last words are written: it sends no more, and goes at the peer's
 * end (or the timeout). Closed at once with the peer's lines unread, the
 * kernel would send a reset, which can destroy the ERROR before the peer
 * reads it.
 */
static void
link_drained_cb(struct bufferevent *bev, void *arg)
{
	bufferevent_setcb(bev, link_drained_read, NULL, link_drained_ev, arg);
	(void)shutdown(bufferevent_getfd(bev), SHUT_WR);
	bufferevent_enable(bev, EV_READ);
}

/* bev's last words go out, then it is freed; a peer that reads nothing
 * or never finishes its TLS handshake holds it 10 seconds at most. */
static void
link_drain(struct bufferevent *bev)
{
	struct timeval tv = { 10, 0 };
	struct link_drain *d = xcalloc(1, sizeof(*d));

	d->bev = bev;
	TAILQ_INSERT_TAIL(&drains, d, entry);
	bufferevent_setcb(bev, NULL, link_drained_cb, link_drained_ev, d);
	bufferevent_set_timeouts(bev, &tv, &tv);
	bufferevent_enable(bev, EV_WRITE);
}

static void
link_schedule(struct link *l, int seconds)
{
	struct timeval tv = { seconds, 0 };

	evtimer_add(l->timer, &tv);
}

/*
 * The link ends: the remote users quit to the local clients with the
 * split reason ("ours theirs"), and autoconnect tries again later.
 */
static void
link_close(struct link *l, const char *why)
{
	char reason[2 * HOSTLEN + 2];
	struct bufferevent *bev = l->bev;

	if (bev == NULL)
		return;
	l->bev = NULL;
	if (evbuffer_get_length(bufferevent_get_output(bev)) > 0 &&
	    evbuffer_get_length(bufferevent_get_output(bev)) < LINK_SENDQ) {
		/* Let what is queued (an ERROR) go out, then free. */
		bufferevent_disable(bev, EV_READ);
		link_drain(bev);
	} else
		bufferevent_free(bev);
	if (l->state == LINK_UP)
		log_info("link %s: split: %s", l->name, why);
	else
		log_info("link %s: closed: %s", l->name, why);
	snprintf(reason, sizeof(reason), "%s %s", ircd.conf->name, l->name);
	if (l->state == LINK_UP) {
		link_replay_split(l);
		link_hub_split(l, reason);
	}
	link_users_split(l, NULL, reason);
	l->state = LINK_IDLE;
	l->nservers = 0;
	l->bursting = 0;
	l->inbound = l->capab_sent = l->capab_done = l->server_ok = 0;
	l->fp_ok = 0;
	l->ping_out = 0;
	l->last_om = NULL;
	free(l->peer_modules);
	l->peer_modules = NULL;
	l->peer_umodes[0] = '\0';
	l->peer_bot = 0;
	free(l->peer_chanmodes);
	l->peer_chanmodes = NULL;
	evtimer_del(l->timer);
	if (l->autoconnect && !ircd.stopping) {
		log_info("link %s: connecting again in %d seconds", l->name,
		    l->backoff);
		link_schedule(l, l->backoff);
		l->backoff = l->backoff * 2 > LINK_BACKOFF_MAX ?
		    LINK_BACKOFF_MAX : l->backoff * 2;
	}
}

void
link_error(struct link *l, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("link %s: %s", l->name, msg);
	if (l->bev != NULL && l->state >= LINK_CAPAB)
		link_send(l, "ERROR :%s", msg);
	link_close(l, msg);
}

static void
link_send_capab(struct link *l)
{
	if (l->capab_sent)
		return;
	l->capab_sent = 1;
	link_send(l, "CAPAB START %d", LINK_PROTO);
	/*
	 * No MODULES, CHANMODES or USERMODES: InspIRCd compares those only
	 * when they are sent, and this server is no InspIRCd to match its
	 * module list. No CHALLENGE either: the passwords go as they are,
	 * which is what lets the one we receive be a hash (SEC-2).
	 */
	link_send(l, "CAPAB CAPABILITIES :NICKMAX=%d CHANMAX=%d MAXMODES=%d "
	    "IDENTMAX=%d MAXQUIT=%d MAXTOPIC=%d MAXKICK=%d MAXREAL=%d "
	    "MAXAWAY=%d MAXHOST=%d MAXLINE=512 CASEMAPPING=rfc1459 GLOBOPS=0 "
	    "BOT=B", NICKLEN, CHANNELLEN, MAXMODES, USERLEN, KICKLEN, TOPICLEN,
	    KICKLEN, REALLEN, AWAYLEN, HOSTLEN);
	link_send(l, "CAPAB END");
}

static void
link_send_server(struct link *l)
{
	link_send(l, "SERVER %s %s 0 %s :%s", ircd.conf->name,
	    l->send_password, link_our_sid(),
	    ircd.conf->info != NULL ? ircd.conf->info : "agentircd");
}

/* Both sides are authenticated: ours is the burst. */
static void
link_up(struct link *l)
{
	l->state = LINK_UP;
	l->backoff = LINK_BACKOFF_MIN;
	log_info("link %s: up, server id %s (%s)%s", l->name,
	    l->servers[0].sid, l->servers[0].info,
	    l->inbound ? ", connected by the peer" : "");
	link_hub_up(l);
	link_burst(l);
}

/* The peer's SERVER: its name, our receive password, a free SID. */
static void
link_auth(struct link *l, struct link_msg *m)
{
	const char *name, *pass, *sid, *desc;

	if (m->nparams < 5) {
		link_error(l, "Protocol error - not enough parameters for "
		    "SERVER");
		return;
	}
	name = m->params[0];
	pass = m->params[1];
	sid = m->params[3];
	desc = m->params[m->nparams - 1];
	if (strcasecmp(name, l->name) != 0) {
		link_error(l, "Server name %.*s is not the %s this link is for",
		    HOSTLEN, name, l->name);
		return;
	}
	if (!passwd_verify(pass, l->receive_password)) {
		link_error(l, "Invalid password for link %s", l->name);
		return;
	}
	if (!link_is_sid(sid) || strcmp(sid, link_our_sid()) == 0) {
		link_error(l, "Invalid or duplicate server ID %.*s", 3, sid);
		return;
	}
	/* Behind another of our links already: a loop, or a collision. */
	if (link_hub_sid_taken(l, sid)) {
		link_error(l, "Server ID %.3s is already in use on the network",
		    sid);
		return;
	}
	memset(&l->servers[0], 0, sizeof(l->servers[0]));
	strlcpy(l->servers[0].sid, sid, sizeof(l->servers[0].sid));
	strlcpy(l->servers[0].name, l->name, sizeof(l->servers[0].name));
	strlcpy(l->servers[0].info, desc, sizeof(l->servers[0].info));
	l->nservers = 1;
	if (l->inbound) {
		/* Ours in answer; theirs is BURST, then we burst (link_up). */
		link_send_server(l);
		l->server_ok = 1;
		return;
	}
	link_up(l);
}

static void
link_capab(struct link *l, struct link_msg *m)
{
	char val[32];
	size_t have, n;

	if (m->nparams < 1)
		return;
	if (strcmp(m->params[0], "START") == 0) {
		if (m->nparams > 1 && atoi(m->params[1]) < LINK_PROTO)
			link_error(l, "CAPAB negotiation failed: protocol %.8s "
			    "is older than %d", m->params[1], LINK_PROTO);
		else
			link_send_capab(l);	/* the peer opened: answer */
	} else if (strcmp(m->params[0], "MODULES") == 0 && m->nparams > 1) {
		have = l->peer_modules != NULL ? strlen(l->peer_modules) : 0;
		n = strlen(m->params[1]);
		if (have + n + 2 > LINK_MODULES_MAX)
			return;
		l->peer_modules = xreallocarray(l->peer_modules, 1, have + n + 2);
		if (have > 0)
			l->peer_modules[have++] = ' ';
		memcpy(l->peer_modules + have, m->params[1], n + 1);
	} else if (strcmp(m->params[0], "CHANMODES") == 0 && m->nparams > 1) {
		free(l->peer_chanmodes);
		l->peer_chanmodes = xstrndup(m->params[1], LINK_MODULES_MAX);
	} else if (strcmp(m->params[0], "USERMODES") == 0 && m->nparams > 1) {
		strlcpy(l->peer_umodes, m->params[1], sizeof(l->peer_umodes));
	} else if (strcmp(m->params[0], "CAPABILITIES") == 0 &&
	    m->nparams > 1) {
		if (link_capab_get(m->params[1], "CASEMAPPING", val,
		    sizeof(val)) && strcmp(val, "rfc1459") != 0)
			link_error(l, "CAPAB negotiation failed: casemapping "
			    "%s differs from this server's rfc1459", val);
		/* Another agentircd says so (BOT, as in ISUPPORT). */
		else if (link_capab_get(m->params[1], "BOT", val, sizeof(val))
		    && strcmp(val, "B") == 0)
			l->peer_bot = 1;
	} else if (strcmp(m->params[0], "END") == 0 &&
	    l->state == LINK_CAPAB) {
		l->capab_done = 1;
		l->state = LINK_AUTH;
		/* Who connected speaks first. */
		if (!l->inbound)
			link_send_server(l);
	}
}

static void
link_ping(struct link *l, struct link_msg *m)
{
	/*
	 * ":<their sid> PING <our sid> [token]": answer from us to them,
	 * with the token, which says what the peer may stop keeping.
	 */
	if (m->nparams >= 1 && strcmp(m->params[0], link_our_sid()) == 0 &&
	    m->source != NULL) {
		if (m->nparams >= 2 && link_word_ok(m->params[1], 32))
			link_send(l, ":%s PONG %s %s", link_our_sid(),
			    m->source, m->params[1]);
		else
			link_send(l, ":%s PONG %s", link_our_sid(), m->source);
	}
}

/* One line from the peer; bounded and parsed, then by state. */
static void
link_line(struct link *l, char *line)
{
	struct link_msg m;
	char raw[LINK_LINEMAX + 1];
	const char *rawp = NULL;

	/* No line counts before the pinned certificate was seen. */
	if (l->fingerprint != NULL && !l->fp_ok &&
	    link_check_fingerprint(l) == -1)
		return;
	link_log_line(l, "<", line, strlen(line));
	/* Parsing cuts the line up: a hub passes it on as it came (LK-5). */
	if (link_count() > 1 && l->state == LINK_UP) {
		strlcpy(raw, line, sizeof(raw));
		rawp = raw;
	}
	if (link_parse(line, &m) == -1) {
		log_warnx("link %s: a malformed line ignored", l->name);
		return;
	}
	if (strcmp(m.cmd, "ERROR") == 0) {
		log_warnx("link %s: the peer says: %.300s", l->name,
		    m.nparams > 0 ? m.params[m.nparams - 1] : "");
		link_close(l, m.nparams > 0 ? m.params[m.nparams - 1] :
		    "ERROR");
		return;
	}
	if (strcmp(m.cmd, "CAPAB") == 0) {
		link_capab(l, &m);
		return;
	}
	switch (l->state) {
	case LINK_CAPAB:
	case LINK_AUTH:
		if (strcmp(m.cmd, "SERVER") == 0 && l->state == LINK_AUTH &&
		    !l->server_ok)
			link_auth(l, &m);
		else if (strcmp(m.cmd, "BURST") == 0 && l->server_ok) {
			link_up(l);
			l->bursting = 1;
		} else
			log_debug("link %s: %s before authentication ignored",
			    l->name, m.cmd);
		return;
	case LINK_UP:
		break;
	case LINK_IDLE:
	case LINK_CONNECTING:
		return;
	}
	if ((strcmp(m.cmd, "PING") == 0 || strcmp(m.cmd, "PONG") == 0) &&
	    link_hub_ping(l, &m, rawp))
		return;		/* another server's: passed on (LK-5) */
	if (strcmp(m.cmd, "PING") == 0)
		link_ping(l, &m);
	else if (strcmp(m.cmd, "PONG") == 0) {
		l->ping_out = 0;
		if (m.nparams >= 2 && strcmp(m.params[0], link_our_sid()) == 0)
			link_replay_pong(l, m.params[1]);
	}
	else if (strcmp(m.cmd, "BURST") == 0)
		l->bursting = 1;
	else if (strcmp(m.cmd, "ENDBURST") == 0) {
		if (l->bursting && (m.source == NULL ||
		    strcmp(m.source, l->servers[0].sid) == 0)) {
			log_info("link %s: burst received, %zu users, %zu "
			    "servers", l->name, l->nusers, l->nservers);
			l->bursting = 0;
			/* Both bursts are done: what the split may have lost. */
			link_replay_resend(l);
		}
		l->bursting = 0;
		link_hub_forward(l, &m, rawp, link_hub_known(l, &m));
	} else
		link_dispatch(l, &m, rawp);
}

static void
link_read_cb(struct bufferevent *bev, void *arg)
{
	struct link *l = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr eol;
	size_t n;
	char *line;

	while (l->bev == bev) {
		eol = evbuffer_search_eol(in, NULL, &n, EVBUFFER_EOL_CRLF);
		if (eol.pos < 0) {
			if (evbuffer_get_length(in) > LINK_LINEMAX + 2)
				link_error(l, "Line too long (over %d bytes)",
				    LINK_LINEMAX);
			return;
		}
		if ((size_t)eol.pos > LINK_LINEMAX) {
			link_error(l, "Line too long (over %d bytes)",
			    LINK_LINEMAX);
			return;
		}
		if ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF)) == NULL)
			return;
		l->last_rx = time(NULL);
		if (memchr(line, '\0', n) != NULL)
			log_warnx("link %s: a line with a NUL ignored",
			    l->name);
		else
			link_line(l, line);
		free(line);
	}
}

/* TLS: the peer's certificate must be the one pinned (LK-1). */
static int
link_check_fingerprint(struct link *l)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	char hex[2 * EVP_MAX_MD_SIZE + 1];
	unsigned int i, n = 0;
	X509 *cert;
	SSL *ssl = bufferevent_openssl_get_ssl(l->bev);

	if (l->fingerprint == NULL)
		return 0;
	if (ssl == NULL || (cert = SSL_get1_peer_certificate(ssl)) == NULL) {
		link_error(l, "No TLS certificate from the peer; %s is pinned",
		    l->fingerprint);
		return -1;
	}
	if (X509_digest(cert, EVP_sha256(), md, &n) != 1)
		n = 0;
	X509_free(cert);
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[2 * n] = '\0';
	if (strcmp(hex, l->fingerprint) != 0) {
		link_error(l, "Invalid TLS certificate fingerprint %s - "
		    "expected %s", hex, l->fingerprint);
		return -1;
	}
	l->fp_ok = 1;
	return 0;
}

/*
 * A link carries every user's lines, many of them small: Nagle would hold
 * each one back until the last is acknowledged (bench/README: ~40 ms at
 * p99 across a link), as the client sockets never do (conn.c).
 */
static void
link_nodelay(evutil_socket_t fd)
{
	int one = 1;

	if (fd != -1)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
}

static void
link_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct link *l = arg;
	unsigned long e;

	if (l->bev != bev)
		return;
	if (what & BEV_EVENT_CONNECTED) {
		if (l->inbound) {
			/* TLS is up: the certificate before any line. */
			link_check_fingerprint(l);
			return;
		}
		log_info("link %s: connected to %s:%s%s", l->name, l->host,
		    l->port, l->tls ? " (TLS)" : "");
		link_nodelay(bufferevent_getfd(bev));
		l->state = LINK_CAPAB;
		l->last_rx = time(NULL);
		if (l->tls && link_check_fingerprint(l) == -1)
			return;
		link_send_capab(l);
		link_schedule(l, LINK_TICK);
		return;
	}
	if (what & BEV_EVENT_ERROR) {
		char why[256];

		if (l->tls && (e = bufferevent_get_openssl_error(bev)) != 0)
			snprintf(why, sizeof(why), "TLS: %s",
			    ERR_reason_error_string(e));
		else if (bufferevent_socket_get_dns_error(bev) != 0)
			snprintf(why, sizeof(why), "%s: %s", l->host,
			    evutil_gai_strerror(
			    bufferevent_socket_get_dns_error(bev)));
		else
			snprintf(why, sizeof(why), "%s",
			    evutil_socket_error_to_string(
			    EVUTIL_SOCKET_ERROR()));
		link_close(l, why);
		return;
	}
	if (what & BEV_EVENT_EOF)
		link_close(l, "Connection closed");
}

/* Retry while idle; while connected, PING a silent peer and time it out. */
static void
link_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct link *l = arg;
	time_t now = time(NULL), idle = now - l->last_rx;

	(void)fd;
	(void)what;
	if (l->bev == NULL) {
		if (l->autoconnect && !ircd.stopping)
			link_connect(l);
		return;
	}
	if (l->state != LINK_UP && idle > ircd.conf->register_timeout) {
		link_error(l, "Connection timeout during negotiation");
		return;
	}
	if (idle > ircd.conf->ping_interval + ircd.conf->ping_timeout) {
		link_error(l, "Ping timeout: %lld seconds", (long long)idle);
		return;
	}
	if (l->state == LINK_UP && idle > ircd.conf->ping_interval &&
	    !l->ping_out) {
		link_replay_ping(l);
		l->ping_out = 1;
	}
	link_schedule(l, LINK_TICK);
}

static SSL_CTX *
link_tls_ctx(struct link *l)
{
	SSL_CTX *ctx;
	size_t i;

	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* The fingerprint is the trust: no CA decides for the operator. */
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	/* Our certificate, for a peer that pins ours: a TLS listener's. */
	for (i = 0; i < ircd.conf->nlistens; i++) {
		const struct conf_listen *cl = &ircd.conf->listens[i];

		if (cl->tls_cert == NULL)
			continue;
		if (SSL_CTX_use_certificate_chain_file(ctx, cl->tls_cert) != 1 ||
		    SSL_CTX_use_PrivateKey_file(ctx, cl->tls_key,
		    SSL_FILETYPE_PEM) != 1)
			log_warnx("link %s: cannot use %s as our certificate",
			    l->name, cl->tls_cert);
		break;
	}
	ERR_clear_error();
	return ctx;
}

/* The resolver of the links' names, made at the first connection. */
static struct evdns_base *link_dns;

struct evdns_base *
link_dns_base(void)
{
	if (link_dns == NULL)
		link_dns = evdns_base_new(ircd.base,
		    EVDNS_BASE_INITIALIZE_NAMESERVERS);
	return link_dns;
}

static void
link_connect(struct link *l)
{
	struct bufferevent *bev;
	SSL *ssl;

	log_info("link %s: connecting to %s:%s", l->name, l->host, l->port);
	if (l->tls) {
		if (l->ctx == NULL && (l->ctx = link_tls_ctx(l)) == NULL) {
			log_warnx("link %s: no TLS context", l->name);
			return;
		}
		if ((ssl = SSL_new(l->ctx)) == NULL)
			return;
		SSL_set_tlsext_host_name(ssl, l->host);
		bev = bufferevent_openssl_socket_new(ircd.base, -1, ssl,
		    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
		if (bev != NULL)
			bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	} else
		bev = bufferevent_socket_new(ircd.base, -1,
		    BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		log_warnx("link %s: cannot make a connection", l->name);
		return;
	}
	l->bev = bev;
	l->state = LINK_CONNECTING;
	bufferevent_setcb(bev, link_read_cb, NULL, link_event_cb, l);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	/*
	 * A name is looked up by libevent's resolver, in the loop: a slow
	 * DNS server holds up this link, not every client. Without one (no
	 * resolv.conf), getaddrinfo() blocks; an address is never looked up.
	 */
	if (link_dns_base() == NULL)
		log_warnx("link %s: no DNS resolver; looking %s up blocks",
		    l->name, l->host);
	if (bufferevent_socket_connect_hostname(bev, link_dns, AF_UNSPEC,
	    l->host, atoi(l->port)) == -1)
		link_close(l, "cannot connect");
}

/* Say why, then close: a connection that is no link of ours. */
static void
link_refuse(int fd, struct bufferevent *bev, const char *why)
{
	if (bev == NULL &&
	    (bev = bufferevent_socket_new(ircd.base, fd, BEV_OPT_CLOSE_ON_FREE))
	    == NULL) {
		evutil_closesocket(fd);
		return;
	}
	link_drain(bev);
	evbuffer_add_printf(bufferevent_get_output(bev), "ERROR :%s\r\n", why);
}

/*
 * A connection to a "links = yes" listener (listen.c): the [link] whose
 * address has the peer's IP address, if it is not connected already.
 * The peer speaks first (CAPAB, then SERVER); we answer.
 */
static void
link_accept(int fd, struct bufferevent *bev, const struct sockaddr *sa,
    int salen)
{
	char ip[INET6_ADDRSTRLEN] = "";
	struct link *l = NULL;
	size_t i;

	(void)salen;
	if (sa->sa_family == AF_INET)
		evutil_inet_ntop(AF_INET, &((const struct sockaddr_in *)
		    (const void *)sa)->sin_addr, ip, sizeof(ip));
	else if (sa->sa_family == AF_INET6)
		evutil_inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)
		    (const void *)sa)->sin6_addr, ip, sizeof(ip));
	for (i = 0; i < nlinks; i++)
		if (link_addr_match(links[i], ip)) {
			l = links[i];
			if (l->bev == NULL)
				break;
		}
	/* Names may point elsewhere now: looked up again for the next try. */
	if (l == NULL)
		for (i = 0; i < nlinks; i++)
			link_addr_lookup(links[i]);
	if (l == NULL || l->bev != NULL) {
		log_warnx("link: a server connection from %s refused: %s", ip,
		    l == NULL ? "no [link] has that address" :
		    "its link is connected already");
		link_refuse(fd, bev, l == NULL ? "No link is configured for "
		    "your address" : "This link is connected already");
		return;
	}
	if (bev == NULL && l->tls) {
		link_refuse(fd, NULL, "This link needs TLS");
		log_warnx("link %s: a plain-text connection from %s refused: "
		    "the link needs TLS", l->name, ip);
		return;
	}
	if (bev == NULL && (bev = bufferevent_socket_new(ircd.base, fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		evutil_closesocket(fd);
		return;
	}
	log_info("link %s: connection from %s%s", l->name, ip,
	    bufferevent_openssl_get_ssl(bev) != NULL ? " (TLS)" : "");
	link_nodelay(fd);
	evtimer_del(l->timer);
	l->bev = bev;
	l->inbound = 1;
	l->state = LINK_CAPAB;
	l->last_rx = time(NULL);
	bufferevent_setcb(bev, link_read_cb, NULL, link_event_cb, l);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	link_schedule(l, LINK_TICK);
}

/* The copy of its section's settings that a link holds. */
static void
link_conf_free(struct link *l)
{
	free(l->name);
	free(l->host);
	free(l->port);
	free(l->send_password);
	free(l->receive_password);
	free(l->fingerprint);
}

/* The section's settings, copied: the config is freed at a reload. */
static void
link_set(struct link *l, const struct conf_link *k)
{
	link_conf_free(l);
	l->name = xstrdup(k->name);
	l->host = xstrdup(k->host);
	l->port = xstrdup(k->port);
	l->send_password = xstrdup(k->send_password);
	l->receive_password = xstrdup(k->receive_password);
	l->fingerprint = k->fingerprint != NULL ? xstrdup(k->fingerprint) :
	    NULL;
	l->tls = k->tls;
	l->autoconnect = k->autoconnect;
	link_addr_cancel(l);
	l->naddrs = 0;
	link_addr_lookup(l);
	/* The TLS context is made again at the next connection. */
	if (l->ctx != NULL) {
		SSL_CTX_free(l->ctx);
		l->ctx = NULL;
	}
}

static struct link *
link_new(const struct conf_link *k)
{
	struct link *l = xcalloc(1, sizeof(*l));

	link_set(l, k);
	l->backoff = LINK_BACKOFF_MIN;
	l->users = dict_new();
	l->timer = evtimer_new(ircd.base, link_timer_cb, l);
	if (l->autoconnect)
		link_schedule(l, 0);
	return l;
}

/* The link ends (ERROR to the peer, the split) and is freed. */
static void
link_free(struct link *l, const char *why)
{
	l->autoconnect = 0;
	if (l->bev != NULL)
		link_error(l, "%s", why);
	link_addr_cancel(l);
	event_free(l->timer);
	dict_free(l->users);
	if (l->ctx != NULL)
		SSL_CTX_free(l->ctx);
	link_conf_free(l);
	free(l->peer_modules);
	free(l->peer_chanmodes);
	link_replay_free(l);
	free(l);
}

/* Whether the running link is what section k says, to the letter. */
static int
link_same(const struct link *l, const struct conf_link *k)
{
	return strcmp(l->name, k->name) == 0 &&
	    strcmp(l->host, k->host) == 0 && strcmp(l->port, k->port) == 0 &&
	    strcmp(l->send_password, k->send_password) == 0 &&
	    strcmp(l->receive_password, k->receive_password) == 0 &&
	    (l->fingerprint == NULL) == (k->fingerprint == NULL) &&
	    (l->fingerprint == NULL ||
	    strcmp(l->fingerprint, k->fingerprint) == 0) &&
	    l->tls == k->tls;
}

struct link *
link_find(const char *name)
{
	size_t i;

	for (i = 0; i < nlinks; i++)
		if (strcasecmp(links[i]->name, name) == 0)
			return links[i];
	return NULL;
}

/* Links are configured: a "links = yes" listener hands us its peers. */
static void
link_listen_update(void)
{
	listen_set_link_handler(nlinks > 0 ? link_accept : NULL);
}

/*
 * SIGHUP and REHASH (LK-1): the new file's [link] sections are the links
 * now. A new one starts (connecting if autoconnect); one gone ends with
 * an ERROR and a split; a changed one ends that way and starts again
 * with its new settings; an unchanged one is left alone, connection and
 * all. Only autoconnect changing is applied in place: it decides the
 * next try, not the connection. The SID is in every UUID of ours and
 * the peers', so it changes only while no link is connected.
 */
void
link_reload(const struct conf *new)
{
	struct link **nl, **old = links, *l;
	size_t i, j, nold = nlinks, connected = 0;
	char *changed;

	for (i = 0; i < nlinks; i++)
		if (links[i]->bev != NULL)
			connected++;
	if (strcmp(link_sid, new->sid) != 0) {
		if (connected > 0)
			log_warnx("links: the sid changed from %s to %s; it "
			    "cannot while a link is connected: %s is kept "
			    "until the next start", link_sid, new->sid,
			    link_sid);
		else {
			log_info("links: server id now %s", new->sid);
			strlcpy(link_sid, new->sid, sizeof(link_sid));
		}
	}
	/*
	 * First the new list, with no side effect; then it is the list;
	 * only then are links closed, which quits users and so runs hooks
	 * that walk the list: they never meet a link being freed.
	 */
	nl = new->nlinks > 0 ? xcalloc(new->nlinks, sizeof(*nl)) : NULL;
	changed = new->nlinks > 0 ? xcalloc(new->nlinks, 1) : NULL;
	for (i = 0; i < new->nlinks; i++) {
		const struct conf_link *k = &new->links[i];

		for (j = 0; j < nold; j++)
			if (old[j] != NULL &&
			    strcasecmp(old[j]->name, k->name) == 0)
				break;
		if (j == nold) {
			log_info("link %s: added by the reload", k->name);
			nl[i] = link_new(k);
			continue;
		}
		nl[i] = old[j];
		old[j] = NULL;		/* taken: what is left is removed */
		changed[i] = !link_same(nl[i], k);
	}
	links = nl;
	nlinks = new->nlinks;
	for (i = 0; i < nold; i++) {
		if ((l = old[i]) == NULL)
			continue;
		log_info("link %s: removed by the reload", l->name);
		link_free(l, "Link removed from the configuration");
	}
	free(old);
	for (i = 0; i < nlinks; i++) {
		const struct conf_link *k = &new->links[i];

		l = links[i];
		if (!changed[i]) {
			/* autoconnect decides the next try, not the link. */
			if (l->autoconnect != k->autoconnect) {
				l->autoconnect = k->autoconnect;
				if (l->autoconnect && l->bev == NULL)
					link_schedule(l, 0);
			}
			continue;
		}
		log_info("link %s: changed by the reload; %s", l->name,
		    l->bev != NULL ? "closing and opening it again" :
		    "its new settings apply from its next connection");
		l->autoconnect = 0;
		if (l->bev != NULL)
			link_error(l, "Link configuration changed");
		link_set(l, k);
		evtimer_del(l->timer);
		l->backoff = LINK_BACKOFF_MIN;
		if (l->autoconnect)
			link_schedule(l, 0);
	}
	free(changed);
	link_listen_update();
}

/*
 * An operator's CONNECT: the link of that name starts now, whatever its
 * back-off; one connected already or a server behind a link is left be.
 */
int
link_oper_connect(const char *name, const char **via)
{
	struct link *l;
	size_t i, j;

	if ((l = link_find(name)) != NULL) {
		if (l->bev != NULL)
			return l->state == LINK_UP ? LINK_OPER_UP :
			    LINK_OPER_CONNECTING;
		evtimer_del(l->timer);
		link_connect(l);
		return l->bev != NULL ? LINK_OPER_DONE : LINK_OPER_FAILED;
	}
	for (i = 0; i < nlinks; i++)
		for (j = 1; j < links[i]->nservers; j++)
			if (strcasecmp(links[i]->servers[j].name, name) == 0) {
				*via = links[i]->name;
				return LINK_OPER_BEHIND;
			}
	return LINK_OPER_NOSUCH;
}

/*
 * An operator's SQUIT: a link of ours ends with an ERROR giving the
 * reason, and its users quit as in a split; autoconnect tries again
 * after its back-off, as after any split. A server behind a link is the
 * business of the one it is linked to: an RSQUIT goes there (as
 * InspIRCd's own RSQUIT does), and its SQUIT comes back to us.
 */
int
link_oper_squit(const char *name, const char *reason, struct client *by,
    const char **real)
{
	char uuid[LINK_UUIDLEN + 1];
	struct link *l;
	size_t i, j;

	if ((l = link_find(name)) != NULL) {
		if (l->bev == NULL)
			return LINK_OPER_NOSUCH;
		log_info("link %s: SQUIT by %s: %s", l->name, by->prefix,
		    reason);
		*real = l->name;
		link_error(l, "Server quit by %s: %s", by->prefix, reason);
		return LINK_OPER_DONE;
	}
	for (i = 0; i < nlinks; i++)
		for (j = 1; j < links[i]->nservers; j++)
			if (strcasecmp(links[i]->servers[j].name, name) == 0) {
				link_local_uuid(by, uuid);
				log_info("link %s: RSQUIT %s by %s: %s",
				    links[i]->name, links[i]->servers[j].name,
				    by->prefix, reason);
				link_send(links[i], ":%s RSQUIT %s :%s", uuid,
				    links[i]->servers[j].name, reason);
				*real = links[i]->servers[j].name;
				return LINK_OPER_SENT;
			}
	return LINK_OPER_NOSUCH;
}

int
link_init(void)
{
	const struct conf *cf = ircd.conf;
	size_t i;

	strlcpy(link_sid, cf->sid, sizeof(link_sid));
	/* Always: a reload may bring the first [link] (link_reload). */
	link_hooks_register();
	link_oper_register();
	if (cf->nlinks == 0)
		return 0;
	links = xcalloc(cf->nlinks, sizeof(*links));
	nlinks = cf->nlinks;
	for (i = 0; i < nlinks; i++)
		links[i] = link_new(&cf->links[i]);
	log_info("links: %zu configured, server id %s", nlinks,
	    link_our_sid());
	link_listen_update();
	return 0;
}

void
link_shutdown(void)
{
	size_t i;

	link_hooks_unregister();
	link_oper_unregister();
	listen_set_link_handler(NULL);
	for (i = 0; i < nlinks; i++) {
		struct link *l = links[i];

		if (l->bev != NULL && l->state == LINK_UP)
			link_send(l, "ERROR :Server shutting down");
		l->autoconnect = 0;
		if (l->bev != NULL)
			link_close(l, "shutting down");
		link_free(l, "shutting down");
	}
	free(links);
	links = NULL;
	nlinks = 0;
	while (!TAILQ_EMPTY(&drains))
		link_drain_free(TAILQ_FIRST(&drains));
	if (link_dns != NULL) {
		/* Its lookups still out fail now, with nobody to tell. */
		evdns_base_free(link_dns, 1);
		link_dns = NULL;
	}
}

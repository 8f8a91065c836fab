/*
 * loadgen.c: a load generator for IRC servers on loopback.
 *
 * It connects N clients (plain or TLS), registers them, joins them to K
 * channels, has S of them send M PRIVMSGs each with at most W in flight,
 * and reports what it measured: one key=value line per figure on stdout,
 * the same in words on stderr.
 *
 * Completion is measured where it matters, at the receivers: every client
 * lives in this process, so a message counts as delivered when each other
 * member of its channel has read it, and a sender's window only moves on
 * when its oldest message has reached everyone. Each message carries its
 * send time (CLOCK_MONOTONIC, ns), so every delivery gives one latency.
 *
 * It speaks only the common core of the protocol (NICK, USER, PING, JOIN,
 * PRIVMSG), waits for 001 and then a PING round trip (which ends whatever
 * welcome burst the server sends: agentircd, InspIRCd and ngIRCd differ),
 * refuses any target outside 127.0.0.0/8 and ::1, and always stops by
 * itself after --timeout seconds.
 *
 * With --tls every client makes a full handshake; --tls-resume first
 * gets one session from a priming connection and has every client offer
 * it, so that the server may resume instead.
 *
 * With --port2 every second client (odd index) is on a second server
 * linked to the first, the senders are all on the first (even indices),
 * and deliveries to the second server's clients, across the link, get a
 * latency histogram of their own. --hold keeps every client connected
 * after the report (until SIGTERM, SIGINT or --timeout), so that a
 * script can link servers while they hold those users.
 */
#include "compat.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum phase { P_CONNECT, P_JOIN, P_SYNC, P_SEND, P_HOLD, P_DONE };

enum cstate {
	C_IDLE,		/* not launched yet */
	C_CONNECTING,	/* TCP (and TLS) handshake */
	C_REGISTERING,	/* NICK/USER sent, waiting for 001 */
	C_WELCOMED,	/* 001 seen, waiting for our PING's PONG */
	C_REGISTERED,
	C_JOINING,	/* JOIN sent, waiting for 366 */
	C_JOINED,
	C_SYNCING,	/* PING sent, waiting for PONG */
	C_READY,
	C_DEAD
};

struct sender {
	uint64_t	 next;		/* next sequence number to send */
	uint64_t	 oldest;	/* oldest one not yet fully delivered */
	uint64_t	*seq;		/* window slots: sequence number ... */
	uint32_t	*got;		/* ... and how many receivers saw it */
	uint32_t	 expect;	/* receivers of each message */
	int		 done;
};

/*
 * Plain clients skip bufferevents, which cost an ioctl(FIONREAD) and a
 * readv per readiness plus evbuffer bookkeeping: with 500 receivers the
 * latency figure measured the load generator, not the server. They get
 * one event and one read() per readiness into a buffer shared by all of
 * them, and only a partial last line is kept per client. TLS clients
 * (the handshake benchmark) stay on bufferevent_openssl.
 */
#define READ_MAX	65536
#define PARTIAL_MAX	8192	/* longer is no IRC line: dropped */

struct client {
	struct bufferevent	*bev;		/* TLS only */
	struct event		*ev;		/* plain only, on fd */
	int			 fd;		/* plain only, else -1 */
	short			 evflags;	/* what ev is armed for */
	int			 corked;	/* queue writes, flush later */
	int			 werr;		/* write failed: errno */
	char			*part;		/* partial line, partlen long */
	size_t			 partlen, partcap;
	char			*wq;		/* unsent: wq[wqoff..wqlen) */
	size_t			 wqoff, wqlen, wqcap;
	struct sender		*snd;		/* NULL unless a sender */
	uint64_t		 t_connect;	/* connect() called */
	uint64_t		 t_ready;	/* TCP/TLS established */
	int			 idx;
	int			 side;		/* 1: on --port2's server */
	int			 chan;		/* -1: joins nothing */
	int			 nickretry;
	enum cstate		 state;
};

/* Latency histogram: 32 sub-buckets per power of two, about 3 % error. */
#define H_SUB		32
#define H_LINEAR	64
#define H_BUCKETS	(H_LINEAR + 58 * H_SUB)
/* Histograms: every delivery; to clients of the first, of the second server. */
#define H_ALL		0
#define H_SIDE(s)	(1 + (s))

struct opts {
	const char	*host;
	const char	*port;
	const char	*port2;		/* NULL: one server */
	const char	*prefix;
	int		 clients;
	int		 channels;
	int		 senders;
	long		 messages;
	int		 window;
	double		 rate;		/* connections per second, 0: no limit */
	int		 parallel;	/* connections being set up at once */
	double		 timeout;
	int		 tls;
	int		 tls_resume;	/* offer a primed session */
	long		 server_pid;
	long		 server_pid2;
	int		 hold;		/* keep the clients after the report */
	int		 payload;
	int		 quiet;
};

static struct {
	struct opts		 o;
	struct event_base	*base;
	struct event		*timeout_ev;
	struct event		*rate_ev;
	SSL_CTX			*ssl_ctx;
	SSL_SESSION		*tls_session;	/* --tls-resume: offered */
	int			 tls_resumed;	/* handshakes that resumed */
	struct sockaddr_storage	 sa[2];		/* --port, --port2 */
	socklen_t		 salen[2];
	struct event		*sig_ev[2];	/* SIGTERM, SIGINT: end a hold */
	struct client		*c;
	struct sender		*snd;
	int			*members;	/* per channel */
	char			*pad;
	enum phase		 phase;
	const char		*status;
	int			 exitcode;

	int			 launched, pending, registered, regfailed;
	int			 joined, synced, senders_done;
	int			 linksync;	/* lgsync lines sent */
	uint64_t		 sync_got, sync_expected;
	int			 reported;
	uint64_t		 t_start, t_first_ready, t_last_ready;
	uint64_t		 t_registered, t_join_start, t_joined;
	uint64_t		 t_send_start, t_last_delivery, t_end;
	uint64_t		 deliveries, expected, stray;
	uint64_t		 hist[3][H_BUCKETS];
	uint64_t		 lat_max[3];
	int			 errors_logged;

	/* Server figures from /proc, -1 when unknown; [1]: --server-pid2. */
	double			 cpu_start[2], cpu_reg[2], cpu_join[2], cpu_end[2];
	long			 rss_start[2], rss_reg[2], rss_join[2], rss_end[2];
} lg;

static void	finish(const char *status, int code);
static void	launch_more(void);
static void	client_send(struct client *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static void	client_io_cb(evutil_socket_t, short, void *);

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double
secs(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) / 1e9 : 0.0;
}

static void
warnx_(const char *fmt, ...)
{
	va_list ap;

	fputs("loadgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Only a handful of per-client errors: 5000 identical lines help nobody. */
static void
client_error(struct client *c, const char *fmt, ...)
{
	va_list ap;

	if (lg.errors_logged++ >= 5)
		return;
	fprintf(stderr, "loadgen: client %d: ", c->idx);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Server CPU time (user + system) in seconds, from /proc/PID/stat; the
 * command name in parentheses may hold spaces, so fields count from the
 * last ')'.
 */
static double
server_cpu(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	size_t n;
	int i;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	/*
	 * After ")" come state (field 3) ... utime (14), stime (15): step to
	 * the space before field 14. (Stopping one field early read cmajflt
	 * and utime, which left out all the kernel time of a fan-out.)
	 */
	for (i = 3; i <= 14; i++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -1;
	}
	if (sscanf(p, " %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Server resident set in KiB, from VmRSS in /proc/PID/status. */
static long
server_rss(long pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Both servers' CPU time and RSS, now. */
static void
sample(double cpu[2], long rss[2])
{
	cpu[0] = server_cpu(lg.o.server_pid);
	rss[0] = server_rss(lg.o.server_pid);
	cpu[1] = server_cpu(lg.o.server_pid2);
	rss[1] = server_rss(lg.o.server_pid2);
}

static void
hist_add(int h, uint64_t v)
{
	size_t b;
	int e;

	if (v > lg.lat_max[h])
		lg.lat_max[h] = v;
	if (v < H_LINEAR)
		b = (size_t)v;
	else {
		e = 63 - __builtin_clzll(v);
		b = H_LINEAR + (size_t)(e - 6) * H_SUB +
		    (size_t)((v >> (e - 5)) & (H_SUB - 1));
		if (b >= H_BUCKETS)
			b = H_BUCKETS - 1;
	}
	lg.hist[h][b]++;
}

/* The middle of the bucket holding the p-th quantile, in ns. */
static double
hist_quantile(int h, double p)
{
	uint64_t total = 0, rank, acc = 0;
	size_t b;
	int e, m;

	for (b = 0; b < H_BUCKETS; b++)
		total += lg.hist[h][b];
	if (total == 0)
		return -1;
	rank = (uint64_t)(p * (double)total + 0.999999);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < H_BUCKETS; b++) {
		acc += lg.hist[h][b];
		if (acc >= rank)
			break;
	}
	if (b < H_LINEAR)
		return (double)b;
	e = (int)(b - H_LINEAR) / H_SUB + 6;
	m = (int)(b - H_LINEAR) % H_SUB;
	return (double)((uint64_t)(H_SUB + m) << (e - 5)) +
	    (double)(1ull << (e - 5)) / 2;
}

/*
 * Arm a plain client's one event for what it waits for now: writability
 * once while connecting, then input, plus writability while output is
 * queued. Changing the flags means event_del and event_assign, which is
 * fine: queued output is rare.
 */
static void
client_arm(struct client *c)
{
	short want;

	if (c->ev == NULL)
		return;
	if (c->state == C_CONNECTING)
		want = EV_WRITE;
	else {
		want = EV_READ | EV_PERSIST;
		if (c->wqoff < c->wqlen)
			want |= EV_WRITE;
	}
	if (want == c->evflags)
		return;
	event_del(c->ev);
	event_assign(c->ev, lg.base, c->fd, want, client_io_cb, c);
	event_add(c->ev, NULL);
	c->evflags = want;
}

/*
 * A write failed for good. Killing the client here would pull it from
 * under whoever is sending (a loop over clients, another client's
 * callback); its own callback does it instead.
 */
static void
client_write_failed(struct client *c, int err)
{
	c->werr = err;
	if (c->ev != NULL)
		event_active(c->ev, EV_WRITE, 1);
}

/* Write what is queued: once, as a short write means a full socket. */
static void
client_flush(struct client *c)
{
	ssize_t n;

	if (c->werr != 0 || c->wqoff == c->wqlen)
		return;
	n = write(c->fd, c->wq + c->wqoff, c->wqlen - c->wqoff);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			client_write_failed(c, errno);
			return;
		}
		n = 0;
	}
	c->wqoff += (size_t)n;
	if (c->wqoff == c->wqlen)
		c->wqoff = c->wqlen = 0;
	client_arm(c);
}

/*
 * Plain output goes straight to write(): our lines are short and the
 * socket is almost never full. Whatever it does not take waits in wq
 * for EV_WRITE, and so does everything after it, to keep the order.
 */
static void
client_write(struct client *c, const char *p, size_t len)
{
	size_t have;
	ssize_t n;
	char *q;

	if (c->fd < 0 || c->werr != 0)
		return;
	if (!c->corked && c->wqoff == c->wqlen) {
		n = write(c->fd, p, len);
		if (n == (ssize_t)len)
			return;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR) {
				client_write_failed(c, errno);
				return;
			}
			n = 0;
		}
		p += n;
		len -= (size_t)n;
	}
	have = c->wqlen - c->wqoff;
	if (c->wqoff > 0) {
		memmove(c->wq, c->wq + c->wqoff, have);
		c->wqoff = 0;
		c->wqlen = have;
	}
	if (have + len > c->wqcap) {
		if ((q = realloc(c->wq, have + len + 512)) == NULL) {
			client_write_failed(c, ENOMEM);
			return;
		}
		c->wq = q;
		c->wqcap = have + len + 512;
	}
	memcpy(c->wq + c->wqlen, p, len);
	c->wqlen += len;
	if (!c->corked)
		client_arm(c);
}

/*
 * Between cork and uncork a plain client's lines are gathered and go out
 * in one write, as a bufferevent would have sent them: a sender's window
 * of PRIVMSGs, or NICK and USER. The server sees the same segments.
 */
static void
client_cork(struct client *c)
{
	c->corked = 1;
}

static void
client_uncork(struct client *c)
{
	c->corked = 0;
	/* With EV_WRITE armed, the socket is full: that callback flushes. */
	if (c->fd >= 0 && !(c->evflags & EV_WRITE))
		client_flush(c);
}

static void
client_send(struct client *c, const char *fmt, ...)
{
	char line[1024], *big;
	va_list ap, ap2;
	int n;

	va_start(ap, fmt);
	if (c->bev != NULL) {
		evbuffer_add_vprintf(bufferevent_get_output(c->bev), fmt, ap);
		va_end(ap);
		return;
	}
	if (c->fd < 0) {
		/* Dead: nobody to write to. */
		va_end(ap);
		return;
	}
	va_copy(ap2, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		return;
	}
	if ((size_t)n < sizeof(line))
		client_write(c, line, (size_t)n);
	else if ((big = malloc((size_t)n + 1)) != NULL) {
		/* Only a PONG to a long PING token gets here. */
		vsnprintf(big, (size_t)n + 1, fmt, ap2);
		client_write(c, big, (size_t)n);
		free(big);
	} else
		client_write_failed(c, ENOMEM);
	va_end(ap2);
}

/* Release a client's connection, whichever kind it has. */
static void
client_close(struct client *c)
{
	if (c->bev != NULL) {
		bufferevent_free(c->bev);
		c->bev = NULL;
	}
	/* Safe in the event's own callback: libevent copied what it needs. */
	if (c->ev != NULL) {
		event_free(c->ev);
		c->ev = NULL;
	}
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	free(c->part);
	c->part = NULL;
	c->partlen = c->partcap = 0;
	free(c->wq);
	c->wq = NULL;
	c->wqoff = c->wqlen = c->wqcap = 0;
}

static void
client_kill(struct client *c)
{
	if (c->state == C_DEAD)
		return;
	client_close(c);
	if (c->state < C_REGISTERED) {
		/* Setup failures leave the others to be measured. */
		c->state = C_DEAD;
		lg.pending--;
		lg.regfailed++;
		launch_more();
		return;
	}
	c->state = C_DEAD;
	/* Held after the report: the figures are out, the rest goes on. */
	if (lg.phase == P_HOLD)
		return;
	/* A member lost later breaks every count: stop with what we have. */
	if (lg.phase != P_DONE)
		finish("error", 1);
}

/*
 * The client that is sender i: client i, or with --port2 client 2i, so
 * that every sender is on the first server.
 */
static struct client *
sender_client(int i)
{
	return &lg.c[lg.o.port2 != NULL ? 2 * i : i];
}

static void
send_nick(struct client *c)
{
	if (c->nickretry == 0)
		client_send(c, "NICK %s%d\r\n", lg.o.prefix, c->idx);
	else
		client_send(c, "NICK %s%d_%d\r\n", lg.o.prefix, c->idx,
		    c->nickretry);
}

/* Send what the window allows; every message names its sender and seq. */
static void
sender_fill(struct client *c)
{
	struct sender *s = c->snd;
	uint64_t slot;

	client_cork(c);
	while (s->next < (uint64_t)lg.o.messages &&
	    s->next - s->oldest < (uint64_t)lg.o.window) {
		slot = s->next % (uint64_t)lg.o.window;
		s->seq[slot] = s->next;
		s->got[slot] = 0;
		client_send(c, "PRIVMSG #%s%d :lgm %d %" PRIu64 " %" PRIu64
		    "%s\r\n", lg.o.prefix, c->chan, c->idx, s->next, now_ns(),
		    lg.pad);
		s->next++;
		if (s->expect == 0) {
			/* Alone in its channel: nobody to wait for. */
			s->oldest = s->next;
		}
	}
	client_uncork(c);
	if (!s->done && s->oldest == (uint64_t)lg.o.messages) {
		s->done = 1;
		if (++lg.senders_done == lg.o.senders)
			finish("ok", 0);
	}
}

static void
start_send(void)
{
	int i;

	lg.phase = P_SEND;
	sample(lg.cpu_join, lg.rss_join);
	lg.t_send_start = now_ns();
	if (lg.o.senders == 0 || lg.o.messages == 0) {
		finish("ok", 0);
		return;
	}
	for (i = 0; i < lg.o.senders && lg.phase == P_SEND; i++)
		sender_fill(sender_client(i));
}

/*
 * With two servers, the PING round trips say nothing of the link: a
 * JOIN may still be on its way to the other server. Each sender sends
 * one "lgsync" line to its channel first, and sending starts once every
 * other member has it, so that the link carries what came before.
 */
static void
start_linksync(void)
{
	int i;

	lg.linksync = 1;
	lg.sync_expected = 0;
	for (i = 0; i < lg.o.senders; i++)
		lg.sync_expected += lg.snd[i].expect;
	if (lg.sync_expected == 0) {
		start_send();
		return;
	}
	for (i = 0; i < lg.o.senders; i++)
		client_send(sender_client(i), "PRIVMSG #%s%d :lgsync\r\n",
		    lg.o.prefix, sender_client(i)->chan);
}

static void
start_sync(void)
{
	int i;

	lg.phase = P_SYNC;
	lg.t_joined = now_ns();
	/*
	 * One more round trip each, so that the JOIN lines still queued to
	 * the first members are read before any timestamp is taken.
	 */
	for (i = 0; i < lg.o.clients; i++) {
		if (lg.c[i].state != C_JOINED)
			continue;
		lg.c[i].state = C_SYNCING;
		client_send(&lg.c[i], "PING :lgsync\r\n");
	}
}

static void
start_join(void)
{
	int i, n = 0;

	lg.t_registered = now_ns();
	sample(lg.cpu_reg, lg.rss_reg);
	if (lg.registered == 0) {
		finish("error", 1);
		return;
	}
	if (lg.regfailed > 0 && lg.o.channels > 0) {
		warnx_("%d clients failed to register", lg.regfailed);
		finish("error", 1);
		return;
	}
	lg.phase = P_JOIN;
	lg.t_join_start = now_ns();
	if (lg.o.channels == 0) {
		lg.t_joined = lg.t_join_start;
		start_send();
		return;
	}
	for (i = 0; i < lg.o.clients; i++) {
		struct client *c = &lg.c[i];

		if (c->state != C_REGISTERED)
			continue;
		c->chan = i % lg.o.channels;
		lg.members[c->chan]++;
		c->state = C_JOINING;
		client_send(c, "JOIN #%s%d\r\n", lg.o.prefix, c->chan);
		n++;
	}
	lg.expected = 0;
	for (i = 0; i < lg.o.senders; i++) {
		lg.snd[i].expect =
		    (uint32_t)(lg.members[sender_client(i)->chan] - 1);
		lg.expected += (uint64_t)lg.o.messages * lg.snd[i].expect;
	}
}

static void
on_registered(struct client *c)
{
	c->state = C_REGISTERED;
	lg.pending--;
	lg.registered++;
	launch_more();
}

/* A PRIVMSG from one of our senders: count it, take its latency. */
static void
on_privmsg(struct client *c, const char *text, uint64_t now)
{
	struct sender *s;
	uint64_t seq = 0, ts = 0, slot;
	unsigned long idx = 0;
	const char *p = text;

	if (strcmp(p, "lgsync") == 0 && lg.linksync && lg.phase == P_SYNC) {
		if (++lg.sync_got == lg.sync_expected)
			start_send();
		return;
	}
	if (strncmp(p, "lgm ", 4) != 0)
		goto stray;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		idx = idx * 10 + (unsigned long)(*p - '0');
	if (*p++ != ' ')
		goto stray;
	for (; *p >= '0' && *p <= '9'; p++)
		seq = seq * 10 + (uint64_t)(*p - '0');
	if (*p++ != ' ')
		goto stray;
	for (; *p >= '0' && *p <= '9'; p++)
		ts = ts * 10 + (uint64_t)(*p - '0');
	if (idx >= (unsigned long)lg.o.clients || lg.c[idx].snd == NULL)
		goto stray;
	s = lg.c[idx].snd;
	slot = seq % (uint64_t)lg.o.window;
	if (seq < s->oldest || seq >= s->next || s->seq[slot] != seq)
		goto stray;
	lg.deliveries++;
	lg.t_last_delivery = now;
	hist_add(H_ALL, now > ts ? now - ts : 0);
	if (lg.o.port2 != NULL)
		hist_add(H_SIDE(c->side), now > ts ? now - ts : 0);
	if (++s->got[slot] < s->expect)
		return;
	/* Slide over every fully delivered message at the window's start. */
	while (s->oldest < s->next &&
	    s->got[s->oldest % (uint64_t)lg.o.window] >= s->expect)
		s->oldest++;
	sender_fill(&lg.c[idx]);
	return;
stray:
	/* The first few say what they were. */
	if (lg.stray++ < 3)
		client_error(c, "stray line: %.100s", text);
}

/*
 * One line from the server, NUL-terminated, CR/LF removed. Only the
 * prefix and command are parsed in general; PRIVMSG goes straight to
 * its trailing text.
 */
static void
on_line(struct client *c, char *line, uint64_t now)
{
	char *cmd = line, *args, *p;

	if (*cmd == ':') {
		if ((cmd = strchr(cmd, ' ')) == NULL)
			return;
		cmd++;
	}
	if ((args = strchr(cmd, ' ')) != NULL)
		*args++ = '\0';
	else
		args = cmd + strlen(cmd);

	if (strcmp(cmd, "PRIVMSG") == 0) {
		if ((p = strstr(args, " :")) != NULL)
			on_privmsg(c, p + 2, now);
		return;
	}
	if (strcmp(cmd, "PING") == 0) {
		client_send(c, "PONG %s\r\n", args);
		return;
	}
	if (strcmp(cmd, "PONG") == 0) {
		if (c->state == C_WELCOMED)
			on_registered(c);
		else if (c->state == C_SYNCING) {
			c->state = C_READY;
			if (++lg.synced == lg.joined) {
				if (lg.o.port2 != NULL)
					start_linksync();
				else
					start_send();
			}
		}
		return;
	}
	if (strcmp(cmd, "001") == 0 && c->state == C_REGISTERING) {
		c->state = C_WELCOMED;
		/* The PONG comes after the whole welcome burst. */
		client_send(c, "PING :lgreg\r\n");
		return;
	}
	if (strcmp(cmd, "366") == 0 && c->state == C_JOINING) {
		c->state = C_JOINED;
		if (++lg.joined == lg.registered)
			start_sync();
		return;
	}
	if (strcmp(cmd, "433") == 0 && c->state == C_REGISTERING &&
	    c->nickretry < 5) {
		c->nickretry++;
		send_nick(c);
		return;
	}
	if (strcmp(cmd, "ERROR") == 0) {
		client_error(c, "server says: %s", args);
		return;
	}
	/* Refusals of JOIN (403, 405, 471, 473-477) or of registration. */
	if (cmd[0] >= '4' && cmd[0] <= '5' && strlen(cmd) == 3 &&
	    (c->state == C_JOINING || c->state == C_REGISTERING) &&
	    strcmp(cmd, "421") != 0) {
		client_error(c, "%s %s", cmd, args);
		client_kill(c);
	}
}

/*
 * Hand each complete line in buf (len bytes) to on_line and say how many
 * bytes that used; the rest is a partial line. -1: the client or the run
 * has ended, and neither buf nor the client's buffers may be touched.
 * Both the plain and the TLS path come through here.
 */
static ssize_t
client_lines(struct client *c, char *buf, size_t len, uint64_t now)
{
	size_t off = 0;
	char *nl, *end;

	while (off < len) {
		if ((nl = memchr(buf + off, '\n', len - off)) == NULL)
			break;
		end = nl;
		if (end > buf + off && end[-1] == '\r')
			end--;
		*end = '\0';
		on_line(c, buf + off, now);
		off = (size_t)(nl - buf) + 1;
		if (c->state == C_DEAD || lg.phase == P_DONE)
			return -1;
	}
	/* A partial line of 8 KiB is no IRC line: drop it. */
	if (len - off > PARTIAL_MAX)
		off = len;
	return (ssize_t)off;
}

/* Registration starts once the connection (and TLS) is up. */
static void
on_connected(struct client *c)
{
	c->t_ready = now_ns();
	if (lg.t_first_ready == 0)
		lg.t_first_ready = c->t_ready;
	lg.t_last_ready = c->t_ready;
	c->state = C_REGISTERING;
	client_arm(c);
	client_cork(c);
	send_nick(c);
	client_send(c, "USER %s%d 0 * :loadgen\r\n", lg.o.prefix, c->idx);
	client_uncork(c);
}

/*
 * One read() per readiness, into a buffer all plain clients share: the
 * client's partial line, if any, is copied in front of the new bytes so
 * that lines are parsed in place, and what is left over is kept.
 */
static void
plain_read(struct client *c)
{
	static char buf[PARTIAL_MAX + READ_MAX];
	size_t len, cap;
	ssize_t n, used;
	uint64_t now;
	char *p;

	if (c->partlen > 0)
		memcpy(buf, c->part, c->partlen);
	n = read(c->fd, buf + c->partlen, READ_MAX);
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR))
			return;
		if (n == 0)
			client_error(c, "connection closed by server");
		else
			client_error(c, "%s", strerror(errno));
		client_kill(c);
		return;
	}
	/* One clock read per batch: the time these bytes became readable. */
	now = now_ns();
	len = c->partlen + (size_t)n;
	if ((used = client_lines(c, buf, len, now)) < 0)
		return;
	c->partlen = len - (size_t)used;
	if (c->partlen == 0)
		return;
	if (c->partlen > c->partcap) {
		/*
		 * Kept for later partial lines: no allocation per line. 512
		 * bytes hold any IRC line without tags; 20,000 clients at
		 * 8 KiB each would be 160 MiB.
		 */
		cap = c->partlen <= 512 ? 512 : PARTIAL_MAX;
		if ((p = realloc(c->part, cap)) == NULL) {
			client_error(c, "out of memory");
			client_kill(c);
			return;
		}
		c->part = p;
		c->partcap = cap;
	}
	memcpy(c->part, buf + used, c->partlen);
}

static void
client_io_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;
	socklen_t len;
	int err = 0;

	if (c->state == C_CONNECTING) {
		/* Non-blocking connect: writable once it has settled. */
		len = sizeof(err);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			err = errno;
		if (err != 0) {
			client_error(c, "%s", strerror(err));
			client_kill(c);
			return;
		}
		on_connected(c);
		return;
	}
	if (c->werr != 0) {
		client_error(c, "%s", strerror(c->werr));
		client_kill(c);
		return;
	}
	if (what & EV_WRITE) {
		client_flush(c);
		/* A failed flush comes back here through werr. */
		if (c->werr != 0)
			return;
	}
	if (what & EV_READ)
		plain_read(c);
}

static void
tls_read_cb(struct bufferevent *bev, void *arg)
{
	struct client *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len;
	ssize_t used;
	char *buf;
	uint64_t now;

	if ((len = evbuffer_get_length(in)) == 0)
		return;
	/* One clock read per batch: the time these bytes became readable. */
	now = now_ns();
	/* Contiguous, so lines are parsed in place and drained once. */
	if ((buf = (char *)evbuffer_pullup(in, -1)) == NULL)
		return;
	if ((used = client_lines(c, buf, len, now)) < 0)
		return;
	evbuffer_drain(in, (size_t)used);
}

static void
tls_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct client *c = arg;
	unsigned long e;
	const char *r;
	int one = 1;

	if (what & BEV_EVENT_CONNECTED) {
		setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY,
		    &one, sizeof(one));
		/* Offering a session is no promise: the server decides. */
		if (SSL_session_reused(bufferevent_openssl_get_ssl(bev)))
			lg.tls_resumed++;
		on_connected(c);
		return;
	}
	if (what & BEV_EVENT_EOF)
		client_error(c, "connection closed by server");
	else if (what & BEV_EVENT_ERROR) {
		/*
		 * libevent also stores SSL_get_error()'s codes here, which
		 * have no reason string: then the socket's error says more.
		 */
		if ((e = bufferevent_get_openssl_error(bev)) != 0 &&
		    (r = ERR_reason_error_string(e)) != NULL)
			client_error(c, "TLS: %s", r);
		else
			client_error(c, "%s", evutil_socket_error_to_string(
			    EVUTIL_SOCKET_ERROR()));
	}
	client_kill(c);
}

static int
connect_one(struct client *c)
{
	struct bufferevent *bev;
	SSL_SESSION *sess;
	SSL *ssl;
	int fd, one = 1;
	struct sockaddr *sa = (struct sockaddr *)&lg.sa[c->side];
	socklen_t salen = lg.salen[c->side];

	c->state = C_CONNECTING;
	c->t_connect = now_ns();
	if (lg.o.tls) {
		/*
		 * libevent creates and connects the socket itself, then
		 * runs the handshake: CONNECTED comes when TLS is up.
		 */
		if ((ssl = SSL_new(lg.ssl_ctx)) == NULL)
			return -1;
		/*
		 * Each client gets its own copy: bufferevent_free closes
		 * without a close_notify, and OpenSSL then marks the session
		 * the connection holds not resumable. Were that the shared
		 * one, one client lost early would stop all later resumptions.
		 */
		if (lg.tls_session != NULL) {
			if ((sess = SSL_SESSION_dup(lg.tls_session)) == NULL) {
				SSL_free(ssl);
				return -1;
			}
			if (SSL_set_session(ssl, sess) != 1) {
				SSL_SESSION_free(sess);
				SSL_free(ssl);
				return -1;
			}
			SSL_SESSION_free(sess);
		}
		bev = bufferevent_openssl_socket_new(lg.base, -1, ssl,
		    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
		if (bev == NULL) {
			SSL_free(ssl);
			return -1;
		}
		c->bev = bev;
		bufferevent_setcb(bev, tls_read_cb, NULL, tls_event_cb, c);
		bufferevent_set_max_single_read(bev, 65536);
		bufferevent_enable(bev, EV_READ | EV_WRITE);
		if (bufferevent_socket_connect(bev, sa, (int)salen) != 0) {
			client_error(c, "connect: %s", strerror(errno));
			return -1;
		}
		return 0;
	}

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd < 0) {
		warnx_("socket: %s", strerror(errno));
		return -1;
	}
	c->fd = fd;
	/* The client's own writes must not wait on Nagle either. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* No flags yet: client_arm sets them from the state. */
	if ((c->ev = event_new(lg.base, fd, 0, client_io_cb, c)) == NULL)
		return -1;
	c->evflags = 0;
	if (connect(fd, sa, salen) != 0 &&
	    errno != EINPROGRESS && errno != EINTR) {
		client_error(c, "connect: %s", strerror(errno));
		return -1;
	}
	/* Done or not, the socket turns writable when it is settled. */
	client_arm(c);
	return 0;
}

/* Start connections as the rate and the parallel limit allow. */
static void
launch_more(void)
{
	long allowed = lg.o.clients;

	if (lg.phase != P_CONNECT)
		return;
	if (lg.o.rate > 0)
		allowed = (long)(lg.o.rate * secs(lg.t_start, now_ns())) + 1;
	while (lg.launched < lg.o.clients && lg.launched < allowed &&
	    lg.pending < lg.o.parallel) {
		struct client *c = &lg.c[lg.launched++];

		if (connect_one(c) != 0) {
			/* Not client_kill(): that would recurse here. */
			client_close(c);
			c->state = C_DEAD;
			lg.regfailed++;
		} else
			lg.pending++;
	}
	if (lg.registered + lg.regfailed == lg.o.clients) {
		if (lg.rate_ev != NULL)
			event_del(lg.rate_ev);
		start_join();
	}
}

static void
rate_cb(evutil_socket_t fd, short what, void *arg)
{
	launch_more();
}

static void
timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	static const char *names[] = { "idle", "connecting", "registering",
	    "welcomed", "registered", "joining", "joined", "syncing", "ready",
	    "dead" };
	int n[C_DEAD + 1] = { 0 }, i;

	/* A hold ends here at the latest; its report is already out. */
	if (lg.phase == P_HOLD) {
		if (!lg.o.quiet)
			warnx_("hold: timeout after %.1f s, stopping",
			    lg.o.timeout);
		lg.phase = P_DONE;
		event_base_loopbreak(lg.base);
		return;
	}
	warnx_("timeout after %.1f s; clients by state:", lg.o.timeout);
	/* Where they got stuck is the first question after a timeout. */
	for (i = 0; i < lg.o.clients; i++)
		n[lg.c[i].state]++;
	for (i = 0; i <= C_DEAD; i++)
		if (n[i] > 0)
			fprintf(stderr, "\t%s %d\n", names[i], n[i]);
	finish("timeout", 2);
}

static void	report(void);

/* SIGTERM or SIGINT: a hold ends, or a run ends with what it has. */
static void
signal_cb(evutil_socket_t sig, short what, void *arg)
{
	if (lg.phase == P_HOLD) {
		lg.phase = P_DONE;
		event_base_loopbreak(lg.base);
		return;
	}
	warnx_("interrupted by signal %d", (int)sig);
	finish("error", 1);
}

static void
finish(const char *status, int code)
{
	if (lg.phase == P_DONE || lg.phase == P_HOLD)
		return;
	/* Figures over fewer clients than asked for must not pass as ok. */
	if (code == 0 && lg.regfailed > 0) {
		status = "partial";
		code = 1;
	}
	lg.phase = P_DONE;
	lg.status = status;
	lg.exitcode = code;
	lg.t_end = now_ns();
	sample(lg.cpu_end, lg.rss_end);
	if (lg.o.hold && code == 0) {
		/* The figures now; the connections stay until told. */
		report();
		lg.reported = 1;
		lg.phase = P_HOLD;
		if (!lg.o.quiet)
			warnx_("holding %d clients until SIGTERM, SIGINT or "
			    "the timeout", lg.registered);
		return;
	}
	event_base_loopbreak(lg.base);
}

#define KV(k, fmt, ...)	printf(k "=" fmt "\n", __VA_ARGS__)

static void
report(void)
{
	struct rusage ru;
	double reg_s, join_s, send_s, dps = 0, p50, p99, cpu_send = -1;
	double lcpu, hs_s, q;
	static const char *side[2] = { "local", "remote" };
	long per_client = -1;
	int nclients = lg.registered, i;

	getrusage(RUSAGE_SELF, &ru);
	lcpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	reg_s = lg.t_registered ? secs(lg.t_start, lg.t_registered) : 0;
	join_s = lg.t_joined ? secs(lg.t_join_start, lg.t_joined) : 0;
	send_s = secs(lg.t_send_start, lg.t_last_delivery);
	if (lg.t_send_start && send_s > 0)
		dps = (double)lg.deliveries / send_s;
	hs_s = secs(lg.t_start, lg.t_last_ready);
	p50 = hist_quantile(H_ALL, 0.50);
	p99 = hist_quantile(H_ALL, 0.99);
	if (lg.cpu_join[0] >= 0 && lg.cpu_end[0] >= 0)
		cpu_send = lg.cpu_end[0] - lg.cpu_join[0];
	if (lg.rss_reg[0] >= 0 && lg.rss_start[0] >= 0 && nclients > 0)
		per_client = (lg.rss_reg[0] - lg.rss_start[0]) * 1024 /
		    nclients;

	KV("status", "%s", lg.status);
	KV("clients", "%d", lg.o.clients);
	KV("channels", "%d", lg.o.channels);
	KV("senders", "%d", lg.o.senders);
	KV("messages", "%ld", lg.o.messages);
	KV("window", "%d", lg.o.window);
	KV("tls", "%d", lg.o.tls);
	KV("registered", "%d", lg.registered);
	KV("reg_failed", "%d", lg.regfailed);
	KV("reg_time_s", "%.6f", reg_s);
	KV("reg_per_s", "%.1f", reg_s > 0 ? lg.registered / reg_s : 0);
	if (lg.o.tls) {
		KV("tls_handshakes_per_s", "%.1f",
		    hs_s > 0 ? (lg.registered + lg.regfailed) / hs_s : 0);
		KV("tls_resume", "%d", lg.o.tls_resume);
		KV("tls_resumed", "%d", lg.tls_resumed);
	}
	KV("joined", "%d", lg.joined);
	KV("join_time_s", "%.6f", join_s);
	KV("deliveries", "%" PRIu64, lg.deliveries);
	KV("expected_deliveries", "%" PRIu64, lg.expected);
	KV("stray_lines", "%" PRIu64, lg.stray);
	KV("send_time_s", "%.6f", send_s);
	KV("deliveries_per_s", "%.1f", dps);
	KV("latency_p50_us", "%.1f", p50 >= 0 ? p50 / 1e3 : -1);
	KV("latency_p99_us", "%.1f", p99 >= 0 ? p99 / 1e3 : -1);
	KV("latency_max_us", "%.1f", (double)lg.lat_max[H_ALL] / 1e3);
	if (lg.o.port2 != NULL) {
		/* Local to the senders' server, and across the link. */
		for (i = 0; i < 2; i++) {
			q = hist_quantile(H_SIDE(i), 0.50);
			printf("latency_%s_p50_us=%.1f\n", side[i],
			    q >= 0 ? q / 1e3 : -1);
			q = hist_quantile(H_SIDE(i), 0.99);
			printf("latency_%s_p99_us=%.1f\n", side[i],
			    q >= 0 ? q / 1e3 : -1);
			printf("latency_%s_max_us=%.1f\n", side[i],
			    (double)lg.lat_max[H_SIDE(i)] / 1e3);
		}
	}
	if (lg.o.server_pid > 0) {
		KV("server_cpu_reg_s", "%.3f", lg.cpu_reg[0] >= 0 ?
		    lg.cpu_reg[0] - lg.cpu_start[0] : -1);
		KV("server_cpu_join_s", "%.3f", lg.cpu_join[0] >= 0 &&
		    lg.cpu_reg[0] >= 0 ? lg.cpu_join[0] - lg.cpu_reg[0] : -1);
		KV("server_cpu_send_s", "%.3f", cpu_send);
		KV("server_cpu_ns_per_delivery", "%.1f",
		    cpu_send >= 0 && lg.deliveries > 0 ?
		    cpu_send * 1e9 / (double)lg.deliveries : -1);
		/*
		 * Whether the server was the bottleneck: near 100 (or over,
		 * with threads) it never waited; well below, it waited for
		 * the senders' windows and deliveries_per_s measures those.
		 */
		KV("server_busy_pct", "%.0f", cpu_send >= 0 && send_s > 0 ?
		    cpu_send * 100 / send_s : -1);
		KV("server_rss_start_kib", "%ld", lg.rss_start[0]);
		KV("server_rss_registered_kib", "%ld", lg.rss_reg[0]);
		KV("server_rss_joined_kib", "%ld", lg.rss_join[0]);
		KV("server_rss_end_kib", "%ld", lg.rss_end[0]);
		KV("server_rss_per_client_b", "%ld", per_client);
	}
	if (lg.o.server_pid2 > 0) {
		KV("server2_cpu_reg_s", "%.3f", lg.cpu_reg[1] >= 0 ?
		    lg.cpu_reg[1] - lg.cpu_start[1] : -1);
		KV("server2_cpu_join_s", "%.3f", lg.cpu_join[1] >= 0 &&
		    lg.cpu_reg[1] >= 0 ? lg.cpu_join[1] - lg.cpu_reg[1] : -1);
		KV("server2_cpu_send_s", "%.3f", lg.cpu_join[1] >= 0 &&
		    lg.cpu_end[1] >= 0 ? lg.cpu_end[1] - lg.cpu_join[1] : -1);
		KV("server2_rss_start_kib", "%ld", lg.rss_start[1]);
		KV("server2_rss_registered_kib", "%ld", lg.rss_reg[1]);
		KV("server2_rss_joined_kib", "%ld", lg.rss_join[1]);
		KV("server2_rss_end_kib", "%ld", lg.rss_end[1]);
	}
	KV("loadgen_cpu_s", "%.3f", lcpu);
	KV("elapsed_s", "%.3f", secs(lg.t_start, lg.t_end));
	fflush(stdout);

	if (lg.o.quiet)
		return;
	fprintf(stderr, "%s: %d/%d clients registered in %.3f s "
	    "(%.0f/s)%s\n", lg.status, lg.registered, lg.o.clients, reg_s,
	    reg_s > 0 ? lg.registered / reg_s : 0,
	    lg.regfailed ? ", some failed" : "");
	if (lg.o.tls)
		fprintf(stderr, "TLS: %.0f handshakes/s, %d of %d resumed%s\n",
		    hs_s > 0 ? (lg.registered + lg.regfailed) / hs_s : 0,
		    lg.tls_resumed, lg.registered + lg.regfailed,
		    !lg.o.tls_resume ? " (none offered)" :
		    lg.tls_session == NULL ? " (no session to offer)" : "");
	if (lg.o.channels > 0)
		fprintf(stderr, "%d joined %d channel(s) in %.3f s\n",
		    lg.joined, lg.o.channels, join_s);
	if (lg.o.senders > 0 && lg.o.messages > 0)
		fprintf(stderr, "%" PRIu64 "/%" PRIu64 " deliveries in "
		    "%.3f s: %.0f/s; latency p50 %.1f us, p99 %.1f us, "
		    "max %.1f us\n", lg.deliveries, lg.expected, send_s, dps,
		    p50 / 1e3, p99 / 1e3, (double)lg.lat_max[H_ALL] / 1e3);
	if (lg.o.port2 != NULL && lg.o.senders > 0 && lg.o.messages > 0)
		fprintf(stderr, "latency p50/p99 on the senders' server %.1f/"
		    "%.1f us, across the link %.1f/%.1f us\n",
		    hist_quantile(H_SIDE(0), 0.50) / 1e3,
		    hist_quantile(H_SIDE(0), 0.99) / 1e3,
		    hist_quantile(H_SIDE(1), 0.50) / 1e3,
		    hist_quantile(H_SIDE(1), 0.99) / 1e3);
	if (lg.o.server_pid > 0)
		fprintf(stderr, "server: CPU %.3f s while sending (%.0f ns "
		    "per delivery); RSS %ld KiB at start, %ld registered "
		    "(%ld B per client), %ld at end\n", cpu_send,
		    cpu_send >= 0 && lg.deliveries > 0 ?
		    cpu_send * 1e9 / (double)lg.deliveries : -1,
		    lg.rss_start[0], lg.rss_reg[0], per_client, lg.rss_end[0]);
	fprintf(stderr, "loadgen: CPU %.3f s in %.3f s\n", lcpu,
	    secs(lg.t_start, lg.t_end));
}

/* The one hard rule: only 127.0.0.0/8 and ::1 (also as ::ffff:127.x). */
static int
is_loopback(const struct sockaddr *sa)
{
	const struct sockaddr_in *sin;
	const struct sockaddr_in6 *sin6;
	const uint8_t *a;

	if (sa->sa_family == AF_INET) {
		sin = (const struct sockaddr_in *)sa;
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)sa;
		a = sin6->sin6_addr.s6_addr;
		if (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) && a[12] == 127;
	}
	return 0;
}

static int
resolve(const char *port, int i)
{
	struct addrinfo hints, *res, *ai;
	int e;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((e = getaddrinfo(lg.o.host, port, &hints, &res)) != 0) {
		warnx_("%s port %s: %s", lg.o.host, port, gai_strerror(e));
		return -1;
	}
	/* Every address the name gives must be loopback, not just one. */
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (!is_loopback(ai->ai_addr)) {
			warnx_("refusing %s: not a loopback address "
			    "(127.0.0.0/8 or ::1 only)", lg.o.host);
			freeaddrinfo(res);
			return -1;
		}
	}
	memcpy(&lg.sa[i], res->ai_addr, res->ai_addrlen);
	lg.salen[i] = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: loadgen [-q] [--host addr] [--port n] [--clients n]\n"
	    "\t[--channels k] [--senders s] [--messages m] [--window w]\n"
	    "\t[--connect-rate r] [--parallel p] [--timeout secs] [--tls]\n"
	    "\t[--tls-resume] [--server-pid pid] [--payload bytes]\n"
	    "\t[--prefix nick] [--port2 n] [--server-pid2 pid] [--hold]\n");
	exit(64);
}

static long
num(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < lo || v > hi) {
		warnx_("%s: %s is not a number from %ld to %ld", what, s, lo,
		    hi);
		exit(64);
	}
	return v;
}

static double
dnum(const char *s, const char *what, double lo, double hi)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !(v >= lo && v <= hi)) {
		warnx_("%s: %s is not a number from %g to %g", what, s, lo,
		    hi);
		exit(64);
	}
	return v;
}

static void
parse_opts(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "host",		required_argument, NULL, 'h' },
		{ "port",		required_argument, NULL, 'p' },
		{ "clients",		required_argument, NULL, 'n' },
		{ "channels",		required_argument, NULL, 'k' },
		{ "senders",		required_argument, NULL, 's' },
		{ "messages",		required_argument, NULL, 'm' },
		{ "window",		required_argument, NULL, 'w' },
		{ "connect-rate",	required_argument, NULL, 'r' },
		{ "parallel",		required_argument, NULL, 'P' },
		{ "timeout",		required_argument, NULL, 't' },
		{ "tls",		no_argument,	   NULL, 'T' },
		{ "tls-resume",		no_argument,	   NULL, 'R' },
		{ "server-pid",		required_argument, NULL, 'S' },
		{ "payload",		required_argument, NULL, 'l' },
		{ "prefix",		required_argument, NULL, 'x' },
		{ "quiet",		no_argument,	   NULL, 'q' },
		{ "port2",		required_argument, NULL, '2' },
		{ "server-pid2",	required_argument, NULL, 'Q' },
		{ "hold",		no_argument,	   NULL, 'H' },
		{ NULL,			0,		   NULL, 0 }
	};
	struct opts *o = &lg.o;
	int ch;

	o->host = "127.0.0.1";
	o->port = "6667";
	o->prefix = "lg";
	o->clients = 10;
	o->channels = 1;
	o->senders = 1;
	o->messages = 100;
	o->window = 16;
	o->parallel = 100;
	o->timeout = 60;
	while ((ch = getopt_long(argc, argv, "h:p:n:k:s:m:w:r:P:t:TS:l:x:q",
	    lopts, NULL)) != -1) {
		switch (ch) {
		case 'h': o->host = optarg; break;
		case 'p':
			num(optarg, "port", 1, 65535);
			o->port = optarg;
			break;
		case 'n': o->clients = (int)num(optarg, "clients", 1,
		    1000000); break;
		case 'k': o->channels = (int)num(optarg, "channels", 0,
		    100000); break;
		case 's': o->senders = (int)num(optarg, "senders", 0,
		    100000); break;
		case 'm': o->messages = num(optarg, "messages", 0,
		    1000000000); break;
		case 'w': o->window = (int)num(optarg, "window", 1,
		    1000000); break;
		case 'r': o->rate = dnum(optarg, "connect-rate", 0, 1e9);
		    break;
		case 'P': o->parallel = (int)num(optarg, "parallel", 1,
		    1000000); break;
		case 't': o->timeout = dnum(optarg, "timeout", 0.1, 86400);
		    break;
		case 'T': o->tls = 1; break;
		case 'R': o->tls = o->tls_resume = 1; break;
		case 'S': o->server_pid = num(optarg, "server-pid", 1,
		    1L << 30); break;
		case 'l': o->payload = (int)num(optarg, "payload", 0, 400);
		    break;
		case 'x':
			if (strlen(optarg) < 1 || strlen(optarg) > 4 ||
			    strspn(optarg, "abcdefghijklmnopqrstuvwxyz") !=
			    strlen(optarg)) {
				warnx_("prefix: 1 to 4 lowercase letters");
				exit(64);
			}
			o->prefix = optarg;
			break;
		case 'q': o->quiet = 1; break;
		case '2':
			num(optarg, "port2", 1, 65535);
			o->port2 = optarg;
			break;
		case 'Q': o->server_pid2 = num(optarg, "server-pid2", 1,
		    1L << 30); break;
		case 'H': o->hold = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (o->channels == 0)
		o->senders = 0;
	if (o->senders > o->clients) {
		warnx_("more senders (%d) than clients (%d)", o->senders,
		    o->clients);
		exit(64);
	}
	/* With two servers, sender i is client 2i: all on the first. */
	if (o->port2 != NULL && o->senders > (o->clients + 1) / 2) {
		warnx_("with --port2, at most (clients + 1) / 2 senders");
		exit(64);
	}
}

/* Enough descriptors for every client, or a clear refusal up front. */
static int
raise_nofile(void)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)lg.o.clients + 32;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ?
	    need : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < need) {
		warnx_("%d clients need %lu descriptors, the hard limit is "
		    "%lu (raise ulimit -n)", lg.o.clients, (unsigned long)need,
		    (unsigned long)rl.rlim_max);
		return -1;
	}
	return 0;
}

/*
 * One line to the priming connection; 0 when the whole line went out.
 */
static int
prime_send(SSL *ssl, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	return SSL_write(ssl, line, n) == n ? 0 : -1;
}

/*
 * --tls-resume: one full handshake before the measured run and outside
 * every figure, for the session the clients then offer. The priming
 * client registers and quits. In TLS 1.3 the tickets come after the
 * handshake, and a server may write nothing until it is spoken to; once
 * 001 has been read, every ticket sent with the handshake has been read.
 * Blocking I/O with socket timeouts: one connection needs no event loop.
 * NULL: no session to offer (why is on stderr); clients then make full
 * handshakes and tls_resumed says 0.
 */
static SSL_SESSION *
tls_prime(void)
{
	char buf[4096], *line, *nl, *cmd, *args;
	const char *e;
	struct timeval tv;
	SSL_SESSION *sess = NULL;
	SSL *ssl = NULL;
	uint64_t deadline;
	size_t len = 0;
	double t;
	int fd, n, one = 1, retry = 0, welcomed = 0;

	/* InspIRCd 3 sends 001 on a once-a-second timer: 10 s is ample. */
	t = lg.o.timeout < 10 ? lg.o.timeout : 10;
	deadline = now_ns() + (uint64_t)(t * 1e9);
	tv.tv_sec = (time_t)t;
	tv.tv_usec = (suseconds_t)((t - (double)tv.tv_sec) * 1e6);
	if ((fd = socket(lg.sa[0].ss_family, SOCK_STREAM | SOCK_CLOEXEC,
	    0)) < 0) {
		warnx_("tls-resume: socket: %s", strerror(errno));
		return NULL;
	}
	/* Linux applies SO_SNDTIMEO to connect() as well. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&lg.sa[0], lg.salen[0]) != 0) {
		warnx_("tls-resume: priming connection: %s", strerror(errno));
		goto out;
	}
	if ((ssl = SSL_new(lg.ssl_ctx)) == NULL || SSL_set_fd(ssl, fd) != 1 ||
	    SSL_connect(ssl) != 1) {
		e = ERR_reason_error_string(ERR_get_error());
		warnx_("tls-resume: priming handshake failed: %s",
		    e != NULL ? e : strerror(errno));
		goto out;
	}
	/* "<prefix>p" cannot be a client's nick: theirs end in digits. */
	if (prime_send(ssl, "NICK %sp\r\nUSER %sp 0 * :loadgen\r\n",
	    lg.o.prefix, lg.o.prefix) != 0) {
		warnx_("tls-resume: priming connection: write failed");
		goto out;
	}
	while (!welcomed) {
		if (now_ns() >= deadline ||
		    (n = SSL_read(ssl, buf + len, (int)(sizeof(buf) - 1 -
		    len))) <= 0) {
			warnx_("tls-resume: no 001 on the priming connection");
			goto out;
		}
		len += (size_t)n;
		buf[len] = '\0';
		for (line = buf; (nl = strchr(line, '\n')) != NULL;
		    line = nl + 1) {
			*nl = '\0';
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
			cmd = line;
			if (*cmd == ':' && (cmd = strchr(cmd, ' ')) != NULL)
				cmd++;
			if (cmd == NULL)
				continue;
			if ((args = strchr(cmd, ' ')) != NULL)
				*args++ = '\0';
			else
				args = cmd + strlen(cmd);
			if (strcmp(cmd, "PING") == 0)
				prime_send(ssl, "PONG %s\r\n", args);
			else if (strcmp(cmd, "433") == 0 && retry < 5)
				prime_send(ssl, "NICK %sp%d\r\n", lg.o.prefix,
				    ++retry);
			else if (strcmp(cmd, "001") == 0)
				welcomed = 1;
			else if (strcmp(cmd, "ERROR") == 0) {
				warnx_("tls-resume: priming connection: "
				    "server says: %s", args);
				goto out;
			}
		}
		/* Keep a partial line; one that fills buf is no IRC line. */
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)
			len = 0;
	}
	prime_send(ssl, "QUIT\r\n");
	/*
	 * A close_notify first: freed without one, the connection's session
	 * would be marked not resumable, and it is the one we keep.
	 */
	SSL_shutdown(ssl);
	sess = SSL_get1_session(ssl);
out:
	SSL_free(ssl);
	close(fd);
	/* What failed here is reported; the clients' errors are their own. */
	ERR_clear_error();
	if (sess != NULL && !SSL_SESSION_is_resumable(sess)) {
		warnx_("tls-resume: the server gave no resumable session");
		SSL_SESSION_free(sess);
		sess = NULL;
	}
	if (sess != NULL && !lg.o.quiet)
		fprintf(stderr, "loadgen: tls-resume: offering the priming "
		    "connection's %s session\n",
		    SSL_SESSION_get_protocol_version(sess) == TLS1_3_VERSION ?
		    "TLS 1.3" : "TLS 1.2");
	return sess;
}

int
main(int argc, char **argv)
{
	struct timeval tv;
	int i;

	parse_opts(argc, argv);
	if (resolve(lg.o.port, 0) != 0 ||
	    (lg.o.port2 != NULL && resolve(lg.o.port2, 1) != 0))
		return 64;
	if (raise_nofile() != 0)
		return 1;
	/* A server that closes on us must not kill us mid-report. */
	signal(SIGPIPE, SIG_IGN);

	if (lg.o.tls) {
		if ((lg.ssl_ctx = SSL_CTX_new(TLS_client_method())) == NULL) {
			warnx_("SSL_CTX_new failed");
			return 1;
		}
		/*
		 * Benchmark servers use throw-away self-signed certificates:
		 * no verification. No session cache either: a connection
		 * resumes only with --tls-resume, which sets the one session
		 * every client offers by hand.
		 */
		SSL_CTX_set_verify(lg.ssl_ctx, SSL_VERIFY_NONE, NULL);
		SSL_CTX_set_session_cache_mode(lg.ssl_ctx,
		    SSL_SESS_CACHE_OFF);
		if (lg.o.tls_resume)
			lg.tls_session = tls_prime();
	}
	lg.c = calloc((size_t)lg.o.clients, sizeof(*lg.c));
	lg.snd = calloc((size_t)lg.o.senders + 1, sizeof(*lg.snd));
	lg.members = calloc((size_t)lg.o.channels + 1, sizeof(int));
	lg.pad = calloc((size_t)lg.o.payload + 2, 1);
	if (lg.c == NULL || lg.snd == NULL || lg.members == NULL ||
	    lg.pad == NULL) {
		warnx_("out of memory");
		return 1;
	}
	if (lg.o.payload > 0) {
		lg.pad[0] = ' ';
		memset(lg.pad + 1, 'x', (size_t)lg.o.payload - 1);
	}
	for (i = 0; i < lg.o.clients; i++) {
		lg.c[i].idx = i;
		lg.c[i].chan = -1;
		lg.c[i].fd = -1;
		lg.c[i].side = lg.o.port2 != NULL ? i % 2 : 0;
	}
	for (i = 0; i < lg.o.senders; i++) {
		lg.snd[i].seq = calloc((size_t)lg.o.window, sizeof(uint64_t));
		lg.snd[i].got = calloc((size_t)lg.o.window, sizeof(uint32_t));
		if (lg.snd[i].seq == NULL || lg.snd[i].got == NULL) {
			warnx_("out of memory");
			return 1;
		}
		sender_client(i)->snd = &lg.snd[i];
	}

	if ((lg.base = event_base_new()) == NULL) {
		warnx_("event_base_new failed");
		return 1;
	}
	lg.timeout_ev = evtimer_new(lg.base, timeout_cb, NULL);
	tv.tv_sec = (time_t)lg.o.timeout;
	tv.tv_usec = (suseconds_t)((lg.o.timeout - (double)tv.tv_sec) * 1e6);
	evtimer_add(lg.timeout_ev, &tv);
	lg.sig_ev[0] = evsignal_new(lg.base, SIGTERM, signal_cb, NULL);
	lg.sig_ev[1] = evsignal_new(lg.base, SIGINT, signal_cb, NULL);
	for (i = 0; i < 2; i++)
		if (lg.sig_ev[i] != NULL)
			event_add(lg.sig_ev[i], NULL);
	if (lg.o.rate > 0) {
		struct timeval tick = { 0, 2000 };

		lg.rate_ev = event_new(lg.base, -1, EV_PERSIST, rate_cb,
		    NULL);
		event_add(lg.rate_ev, &tick);
	}

	lg.status = "running";
	for (i = 0; i < 2; i++) {
		lg.cpu_reg[i] = lg.cpu_join[i] = lg.cpu_end[i] = -1;
		lg.rss_reg[i] = lg.rss_join[i] = lg.rss_end[i] = -1;
	}
	sample(lg.cpu_start, lg.rss_start);
	lg.t_start = now_ns();
	launch_more();
	if (lg.phase != P_DONE)
		event_base_dispatch(lg.base);

	if (!lg.reported)
		report();

	for (i = 0; i < lg.o.clients; i++)
		client_close(&lg.c[i]);
	for (i = 0; i < lg.o.senders; i++) {
		free(lg.snd[i].seq);
		free(lg.snd[i].got);
	}
	if (lg.rate_ev != NULL)
		event_free(lg.rate_ev);
	event_free(lg.timeout_ev);
	for (i = 0; i < 2; i++)
		if (lg.sig_ev[i] != NULL)
			event_free(lg.sig_ev[i]);
	event_base_free(lg.base);
	SSL_SESSION_free(lg.tls_session);
	if (lg.ssl_ctx != NULL)
		SSL_CTX_free(lg.ssl_ctx);
	free(lg.c);
	free(lg.snd);
	free(lg.members);
	free(lg.pad);
	return lg.exitcode;
}

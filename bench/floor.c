/*
 * bench/floor.c: the least any server can do for bench/loadgen's latency
 * scenarios, to show where the floor is on this machine.
 *
 * It is not an IRC server. It answers just enough for the load generator
 * (001 to USER, PONG to PING, 366 to JOIN) and relays a PRIVMSG with one
 * send() per other member of its single channel, straight from the read
 * that brought it: no parsing beyond the command word, no history, no
 * queues, no limits. Whatever a real server does on top, it cannot deliver
 * a line sooner than this. run-compare runs it beside the real servers
 * with --servers ...,floor (latency scenarios only, see bench/README.md).
 *
 * Output that does not fit in a socket at once is dropped, and counted on
 * stderr at exit; the load generator then reports missing deliveries, so a
 * run where that happened cannot pass for a good one. With one message in
 * flight (--window 1) it never happens.
 *
 *	floor PORT	listens on 127.0.0.1:PORT until SIGTERM or SIGINT
 */
#include "compat.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOOR_LINE	1024	/* longer input lines are dropped whole */
#define FLOOR_EVENTS	256

struct floor_client {
	int	 fd;
	int	 member;	/* index in members, or -1 */
	size_t	 len;		/* bytes in buf */
	int	 skip;		/* discarding an overlong line */
	char	 nick[32];
	char	 buf[FLOOR_LINE];
};

static struct floor_client **clients;	/* by descriptor */
static size_t nclients;
static int *members;			/* descriptors in the channel */
static size_t nmembers, members_cap;
static unsigned long dropped;
static volatile sig_atomic_t quit;

static void
floor_quit(int sig)
{
	(void)sig;
	quit = 1;
}

static void
floor_send(int fd, const char *s, size_t n)
{
	ssize_t w = send(fd, s, n, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (w < 0 || (size_t)w != n)
		dropped++;
}

static void
floor_leave(struct floor_client *c)
{
	if (c->member < 0)
		return;
	/* Swap the last member into the hole; order does not matter. */
	members[c->member] = members[--nmembers];
	clients[members[c->member]]->member = c->member;
	c->member = -1;
}

static void
floor_join(struct floor_client *c)
{
	int *m;

	if (c->member >= 0)
		return;
	if (nmembers == members_cap) {
		members_cap = members_cap ? members_cap * 2 : 1024;
		if ((m = realloc(members, members_cap * sizeof(*m))) == NULL) {
			perror("floor: realloc");
			exit(1);
		}
		members = m;
	}
	c->member = (int)nmembers;
	members[nmembers++] = c->fd;
}

/* One input line, without its CR LF. */
static void
floor_line(struct floor_client *c, const char *l)
{
	char out[FLOOR_LINE + 128];
	size_t i;
	int n;

	if (strncmp(l, "NICK ", 5) == 0) {
		snprintf(c->nick, sizeof(c->nick), "%s", l + 5);
		return;
	}
	if (strncmp(l, "USER ", 5) == 0)
		n = snprintf(out, sizeof(out), ":floor 001 %s :Welcome\r\n",
		    c->nick);
	else if (strncmp(l, "PING ", 5) == 0)
		n = snprintf(out, sizeof(out), ":floor PONG floor %s\r\n",
		    l + 5);
	else if (strncmp(l, "JOIN ", 5) == 0) {
		floor_join(c);
		n = snprintf(out, sizeof(out), ":%s!f@floor JOIN %s\r\n"
		    ":floor 366 %s %s :End of /NAMES list.\r\n",
		    c->nick, l + 5, c->nick, l + 5);
	} else if (strncmp(l, "PRIVMSG ", 8) == 0) {
		n = snprintf(out, sizeof(out), ":%s!f@floor %s\r\n", c->nick, l);
		for (i = 0; i < nmembers; i++)
			if (members[i] != c->fd)
				floor_send(members[i], out, (size_t)n);
		return;
	} else
		return;
	floor_send(c->fd, out, (size_t)n);
}

static void
floor_close(int ep, struct floor_client *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	floor_leave(c);
	clients[c->fd] = NULL;
	close(c->fd);
	free(c);
}

static void
floor_read(int ep, struct floor_client *c)
{
	char *s, *e, *end;
	ssize_t r;

	r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		floor_close(ep, c);
		return;
	}
	if (r < 0)
		return;
	c->len += (size_t)r;
	s = c->buf;
	end = c->buf + c->len;
	while ((e = memchr(s, '\n', (size_t)(end - s))) != NULL) {
		*e = '\0';
		if (e > s && e[-1] == '\r')
			e[-1] = '\0';
		if (!c->skip)
			floor_line(c, s);
		c->skip = 0;
		s = e + 1;
	}
	c->len = (size_t)(end - s);
	if (c->len == sizeof(c->buf)) {	/* no line end in a full buffer */
		c->skip = 1;
		c->len = 0;
	} else
		memmove(c->buf, s, c->len);
}

static void
floor_accept(int ep, int ls)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct floor_client *c, **nc;
	int fd, one = 1;

	while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
		if ((size_t)fd >= nclients) {
			size_t n = ((size_t)fd + 1) * 2;

			if ((nc = realloc(clients, n * sizeof(*nc))) == NULL) {
				perror("floor: realloc");
				exit(1);
			}
			memset(nc + nclients, 0, (n - nclients) * sizeof(*nc));
			clients = nc;
			nclients = n;
		}
		if ((c = calloc(1, sizeof(*c))) == NULL) {
			perror("floor: calloc");
			exit(1);
		}
		/* As agentircd does: no Nagle delay on any line. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->fd = fd;
		c->member = -1;
		clients[fd] = c;
		ev.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
			perror("floor: epoll_ctl");
			exit(1);
		}
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLIN }, evs[FLOOR_EVENTS];
	struct sigaction sa = { .sa_handler = floor_quit };
	int ls, ep, n, i, one = 1;
	char *end;
	long port;

	if (argc != 2 || (port = strtol(argv[1], &end, 10)) <= 0 ||
	    port > 65535 || *end != '\0') {
		fprintf(stderr, "usage: floor PORT\n");
		return 64;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Loopback only, like the load generator. */
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((unsigned short)port);
	if ((ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(ls, 4096)) {
		perror("floor: listen");
		return 1;
	}
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		perror("floor: epoll_create1");
		return 1;
	}
	ev.data.fd = ls;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev) == -1) {
		perror("floor: epoll_ctl");
		return 1;
	}
	while (!quit) {
		if ((n = epoll_wait(ep, evs, FLOOR_EVENTS, -1)) == -1) {
			if (errno == EINTR)
				continue;
			perror("floor: epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == ls)
				floor_accept(ep, ls);
			else if (clients[evs[i].data.fd] != NULL)
				floor_read(ep, clients[evs[i].data.fd]);
		}
	}
	if (dropped)
		fprintf(stderr, "floor: %lu writes did not fit and were "
		    "dropped\n", dropped);
	return dropped ? 1 : 0;
}

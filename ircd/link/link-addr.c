/*
 * link-addr.c: the addresses a [link]'s host name stands for, so that
 * the peer of a link written with a name (not an IP address) is known
 * when it connects to us (LK-1).
 *
 * A name is looked up by libevent's resolver, in the loop, when the link
 * is made or changed by the config, and again when a connection from an
 * address no link has comes in (the name may point elsewhere now): that
 * connection is refused, the next one from there is matched. An address
 * written as such in the config matches only itself, and is never looked
 * up.
 */
#include "compat.h"

#include <string.h>

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <event2/dns.h>
#include <event2/util.h>

#include "ircd/link/link.h"
#include "ircd/log.h"

static int
link_addr_literal(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, buf) == 1 ||
	    inet_pton(AF_INET6, host, buf) == 1;
}

static void
link_addr_found(int err, struct evutil_addrinfo *res, void *arg)
{
	struct link *l = arg;
	struct evutil_addrinfo *ai;
	const void *a;
	size_t n = 0;

	/* A cancel comes from link_addr_cancel, with l going away. */
	if (err == EVUTIL_EAI_CANCEL)
		return;
	l->addr_req = NULL;
	l->addr_busy = 0;
	if (err != 0) {
		log_warnx("link %s: %s not found (%s): a connection from it "
		    "cannot be matched yet", l->name, l->host,
		    evutil_gai_strerror(err));
		l->naddrs = 0;
		return;
	}
	for (ai = res; ai != NULL && n < LINK_MAXADDRS; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET)
			a = &((struct sockaddr_in *)(void *)ai->ai_addr)->
			    sin_addr;
		else if (ai->ai_family == AF_INET6)
			a = &((struct sockaddr_in6 *)(void *)ai->ai_addr)->
			    sin6_addr;
		else
			continue;
		if (evutil_inet_ntop(ai->ai_family, a, l->addrs[n],
		    sizeof(l->addrs[n])) != NULL)
			n++;
	}
	l->naddrs = n;
	evutil_freeaddrinfo(res);
	log_debug("link %s: %s is %zu addresses", l->name, l->host, n);
}

void
link_addr_lookup(struct link *l)
{
	struct evutil_addrinfo hints;
	struct evdns_getaddrinfo_request *req;
	struct evdns_base *dns;

	if (l->addr_busy || link_addr_literal(l->host) ||
	    (dns = link_dns_base()) == NULL)
		return;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/* The answer may come at once (a name in /etc/hosts): then no req. */
	l->addr_busy = 1;
	req = evdns_getaddrinfo(dns, l->host, NULL, &hints, link_addr_found,
	    l);
	if (l->addr_busy)
		l->addr_req = req;
}

void
link_addr_cancel(struct link *l)
{
	struct evdns_getaddrinfo_request *req = l->addr_req;

	l->addr_req = NULL;
	l->addr_busy = 0;
	if (req != NULL)
		evdns_getaddrinfo_cancel(req);
}

int
link_addr_match(const struct link *l, const char *ip)
{
	size_t i;

	if (strcmp(l->host, ip) == 0)
		return 1;
	for (i = 0; i < l->naddrs; i++)
		if (strcmp(l->addrs[i], ip) == 0)
			return 1;
	return 0;
}

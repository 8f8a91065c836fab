/*
 * listen.c: the listening sockets. Each [listen] block is one
 * evconnlistener; a TLS block has its SSL_CTX. When the process runs out
 * of descriptors, accepting pauses for a second instead of spinning.
 */
#include "compat.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ircd/conf.h"
#include "ircd/conn.h"
#include "ircd/ircd.h"
#include "ircd/listen.h"
#include "ircd/log.h"
#include "ircd/xmalloc.h"

static struct listener	*listeners;
static size_t		 nlisteners;
static struct event	*resume_ev;

static void
listen_refuse(evutil_socket_t fd, const char *why)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "ERROR :Closing Link: %s\r\n", why);

	/* Best effort: the socket is new and its buffer empty. */
	if (n > 0 && write(fd, buf, (size_t)n) < 0)
		log_debug("refused connection: %s", why);
	evutil_closesocket(fd);
}

static listen_link_fn	link_handler;

void
listen_set_link_handler(listen_link_fn fn)
{
	link_handler = fn;
}

static void
listen_accept_cb(struct evconnlistener *evl, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct listener *l = arg;
	struct bufferevent *bev = NULL;
	const struct conf *cf = ircd.conf;

	if (l->links && link_handler == NULL) {
		listen_refuse(fd, "This port is for server links; none is "
		    "configured");
		return;
	}
	if (ircd.nconns >= (unsigned)cf->max_clients) {
		listen_refuse(fd, "Server is full");
		return;
	}
	if (cf->max_per_ip > 0) {
		char ip[64] = "";

		if (sa->sa_family == AF_INET)
			evutil_inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, ip, sizeof(ip));
		else if (sa->sa_family == AF_INET6)
			evutil_inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, ip, sizeof(ip));
		if (conn_count_ip(ip) >= (unsigned)cf->max_per_ip) {
			listen_refuse(fd, "Too many connections from your address");
			return;
		}
	}
	evutil_make_socket_nonblocking(fd);
	if (l->ssl != NULL) {
		SSL *ssl = SSL_new(l->ssl);

		if (ssl == NULL) {
			evutil_closesocket(fd);
			return;
		}
		bev = bufferevent_openssl_socket_new(ircd.base, fd, ssl,
		    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
		if (bev == NULL) {
			SSL_free(ssl);
			evutil_closesocket(fd);
			return;
		}
		bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	}
	if (l->links) {
		link_handler(fd, bev, sa, salen);
		return;
	}
	conn_new(fd, bev, sa, (socklen_t)salen, l);
}

static void
listen_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	size_t i;

	for (i = 0; i < nlisteners; i++)
		evconnlistener_enable(listeners[i].evl);
}

static void
listen_error_cb(struct evconnlistener *evl, void *arg)
{
	struct timeval tv = { 1, 0 };
	size_t i;
	int err = EVUTIL_SOCKET_ERROR();

	if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
		log_warnx("accept: %s; pausing for a second",
		    evutil_socket_error_to_string(err));
		for (i = 0; i < nlisteners; i++)
			evconnlistener_disable(listeners[i].evl);
		if (resume_ev == NULL)
			resume_ev = evtimer_new(ircd.base, listen_resume_cb, NULL);
		evtimer_add(resume_ev, &tv);
		return;
	}
	log_warnx("accept: %s", evutil_socket_error_to_string(err));
}

static int
listen_verify_any(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

static int
listen_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return 0;
}

static struct ssl_ctx_st *
listen_tls_ctx(const struct conf_listen *cl)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	char err[256];

	if (ctx == NULL)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* SEC-7, I1: TLS 1.2 with AEAD ciphers only, unless configured. */
	if (SSL_CTX_set_cipher_list(ctx, cl->tls_ciphers != NULL ?
	    cl->tls_ciphers : CONF_TLS_CIPHERS) != 1) {
		ERR_error_string_n(ERR_get_error(), err, sizeof(err));
		log_warnx("listen %s: tls-ciphers: %s", cl->address, err);
		SSL_CTX_free(ctx);
		return NULL;
	}
	/*
	 * Ask for a client certificate but accept any: its fingerprint, not a
	 * CA, is what SASL EXTERNAL matches against an account.
	 */
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_CLIENT_ONCE,
	    cl->tls_client_ca != NULL ? NULL : listen_verify_any);
	if (cl->tls_client_ca != NULL &&
	    SSL_CTX_load_verify_locations(ctx, cl->tls_client_ca, NULL) != 1) {
		ERR_error_string_n(ERR_get_error(), err, sizeof(err));
		log_warnx("listen %s: cannot load %s: %s", cl->address,
		    cl->tls_client_ca, err);
		SSL_CTX_free(ctx);
		return NULL;
	}
	/* Resumption (a reconnecting phone, a benchmark) needs a context id. */
	SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"agentircd", 9);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
	/*
	 * One TLS 1.3 ticket, not OpenSSL's two: tickets are stateless and
	 * reusable, so one is enough to resume, and each costs an encryption
	 * in every handshake.
	 */
	SSL_CTX_set_num_tickets(ctx, 1);
	/* An idle TLS client keeps no 16 KiB record buffers. */
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	if (SSL_CTX_use_certificate_chain_file(ctx, cl->tls_cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, cl->tls_key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		ERR_error_string_n(ERR_get_error(), err, sizeof(err));
		log_warnx("listen %s: cannot load %s / %s: %s", cl->address,
		    cl->tls_cert, cl->tls_key, err);
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

int
listen_tls_usable(const struct conf_listen *cl)
{
	SSL_CTX *ctx = listen_tls_ctx(cl);

	if (ctx == NULL)
		return -1;
	SSL_CTX_free(ctx);
	return 0;
}

int
listen_start(struct conf *cf)
{
	size_t i;

	listeners = xcalloc(cf->nlistens, sizeof(*listeners));
	for (i = 0; i < cf->nlistens; i++) {
		const struct conf_listen *cl = &cf->listens[i];
		struct listener *l = &listeners[i];
		struct addrinfo hints, *res;
		int error;

		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
		error = getaddrinfo(cl->host, cl->port, &hints, &res);
		if (error != 0) {
			log_warnx("listen %s: %s", cl->address, gai_strerror(error));
			goto fail;
		}
		l->conf = cl;
		l->links = cl->links;
		l->loopback = listen_is_loopback(res->ai_addr);
		if (cl->tls_cert != NULL && (l->ssl = listen_tls_ctx(cl)) == NULL) {
			freeaddrinfo(res);
			goto fail;
		}
		l->evl = evconnlistener_new_bind(ircd.base, listen_accept_cb, l,
		    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
		    1024, res->ai_addr, (int)res->ai_addrlen);
		freeaddrinfo(res);
		if (l->evl == NULL) {
			/* Fatal: the caller stops the start (exit 71). */
			log_error("listen %s: cannot bind, so the server does "
			    "not start (is another server on that port?)",
			    cl->address);
			goto fail;
		}
		evconnlistener_set_error_cb(l->evl, listen_error_cb);
		nlisteners++;
		log_info("listening on %s%s", cl->address, l->ssl ? " (TLS)" : "");
	}
	return 0;
fail:
	listen_stop();
	return -1;
}

void
listen_reload_tls(void)
{
	size_t i;

	for (i = 0; i < nlisteners; i++) {
		struct ssl_ctx_st *ctx;

		if (listeners[i].ssl == NULL)
			continue;
		/* A bad new certificate keeps the old one serving. */
		if ((ctx = listen_tls_ctx(listeners[i].conf)) == NULL)
			continue;
		/* Live connections hold their own reference to the old context. */
		SSL_CTX_free(listeners[i].ssl);
		listeners[i].ssl = ctx;
	}
}

void
listen_stop(void)
{
	size_t i;

	for (i = 0; listeners != NULL && i < ircd.conf->nlistens; i++) {
		if (listeners[i].evl != NULL)
			evconnlistener_free(listeners[i].evl);
		if (listeners[i].ssl != NULL)
			SSL_CTX_free(listeners[i].ssl);
	}
	free(listeners);
	listeners = NULL;
	nlisteners = 0;
	if (resume_ev != NULL) {
		event_free(resume_ev);
		resume_ev = NULL;
	}
}

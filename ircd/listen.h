/*
 * listen.h: one evconnlistener per [listen] block; TLS contexts; accept
 * back-off when out of file descriptors.
 */
#ifndef IRCD_LISTEN_H
#define IRCD_LISTEN_H

struct conf;
struct conf_listen;

struct listener {
	struct evconnlistener		*evl;
	const struct conf_listen	*conf;
	struct ssl_ctx_st		*ssl;	/* NULL for plain text */
	int				 loopback;
	int				 links;	/* server links only (LK-1) */
};

struct bufferevent;
struct sockaddr;

/*
 * Who takes a connection to a "links = yes" listener: a server link
 * layer registers it (ircd/link/); bev is the TLS one when the listener
 * has TLS, else NULL and fd is a plain socket. Without one, such
 * connections are refused.
 */
typedef void (*listen_link_fn)(int fd, struct bufferevent *bev,
    const struct sockaddr *, int salen);
void	listen_set_link_handler(listen_link_fn);

/* Bind every listener of conf; on failure log and return -1 (nothing left bound). */
int	listen_start(struct conf *);
/* Do cl's TLS files and ciphers load (-n)? 0, or -1 with the reason logged. */
int	listen_tls_usable(const struct conf_listen *cl);
void	listen_stop(void);
/* Load every TLS listener's certificate and key again (SIGHUP). */
void	listen_reload_tls(void);

#endif

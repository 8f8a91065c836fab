/*
 * link.h: server links (LK), by InspIRCd's spanning-tree protocol 1205.
 * Beside the agent bridge and on the same seams: a hook table follows the
 * local users and channels (link-burst.c), remote users are clients with
 * the link's client_ops (link-user.c) with the peer's lines about
 * channels in link-chan.c, and link.c runs each connection.
 * Agents are service users here like any other local user.
 *
 * main.c calls link_init() after server_init() and link_shutdown() once
 * the loop has ended; the rest is internal to ircd/link/.
 */
#ifndef IRCD_LINK_H
#define IRCD_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <netinet/in.h>

#include "ircd/ircd.h"
#include "ircd/link/link-proto.h"

struct bufferevent;
struct evdns_base;
struct evdns_getaddrinfo_request;
struct client;
struct conf;
struct dict;
struct event;
struct link_msg;
struct link_replay;
struct outmsg;
struct ssl_ctx_st;

int	link_init(void);
void	link_shutdown(void);

/* Internal to ircd/link/. */

/*
 * Operators' CONNECT and SQUIT (link-oper.c), by server name: what was
 * done, or why not. via is the link a server behind it is reached by;
 * real the server's name as it gives it.
 */
enum link_oper {
	LINK_OPER_DONE,		/* connecting now; or the link ended */
	LINK_OPER_SENT,		/* RSQUIT sent toward a server behind a link */
	LINK_OPER_UP,		/* CONNECT: the link is up already */
	LINK_OPER_CONNECTING,	/* CONNECT: its connection is under way */
	LINK_OPER_BEHIND,	/* CONNECT: a server behind the link via */
	LINK_OPER_FAILED,	/* CONNECT: no connection could be made */
	LINK_OPER_NOSUCH	/* no such link, or (SQUIT) none connected */
};
int	link_oper_connect(const char *name, const char **via);
int	link_oper_squit(const char *name, const char *reason, struct client *,
	    const char **real);

enum link_state {
	LINK_IDLE,		/* not connected; maybe waiting to retry */
	LINK_CONNECTING,	/* TCP (and TLS) under way */
	LINK_CAPAB,		/* our CAPAB sent; theirs until CAPAB END */
	LINK_AUTH,		/* our SERVER sent; waiting for theirs */
	LINK_UP			/* both authenticated; bursts and traffic */
};

/* Servers a link may bring in behind the peer; more is a protocol error. */
#define LINK_MAXSERVERS	256
/* Users a link may bring in; more is refused with an ERROR. */
#define LINK_MAXUSERS	100000
/* Channels a remote user may be in here; joins past it are ignored. */
#define LINK_MAXCHANS	500
/*
 * The OPERTYPE our operators have on the network ("is an Operator on
 * <network>" in InspIRCd's WHOIS): not the [operator] section's name,
 * which is half of what OPER asks.
 */
#define LINK_OPERTYPE	"Operator"
/* Bytes of a remote operator's type kept. */
#define LINK_OPERTYPELEN	64
/* Addresses kept of what a link's host name stands for (link-addr.c). */
#define LINK_MAXADDRS	8
/* Bytes queued to the peer before the link is dropped (SendQ). */
#define LINK_SENDQ	(16 * 1024 * 1024)

struct link_server {
	char	sid[LINK_SIDLEN + 1];
	char	parent[LINK_SIDLEN + 1];	/* "" for the peer itself */
	char	name[HOSTLEN + 1];
	char	info[128];
};

struct link {
	/* A copy of the config's section: a reload frees the old one. */
	char			*name;
	char			*host;
	char			*port;
	char			*send_password;
	char			*receive_password;
	char			*fingerprint;
	int			 tls;
	int			 autoconnect;
	/* What host stands for, if a name: to know the peer that connects. */
	char			 addrs[LINK_MAXADDRS][INET6_ADDRSTRLEN];
	size_t			 naddrs;
	struct evdns_getaddrinfo_request *addr_req;
	int			 addr_busy;	/* a lookup is under way */

	enum link_state		 state;
	struct bufferevent	*bev;
	struct ssl_ctx_st	*ctx;
	struct event		*timer;		/* retry, or ping while up */
	int			 backoff;	/* seconds until the next try */
	time_t			 last_rx;
	int			 ping_out;	/* a PING of ours awaits its PONG */
	int			 bursting;	/* their BURST seen, no ENDBURST */
	int			 inbound;	/* the peer connected to us */
	int			 capab_sent;	/* our CAPAB is out */
	int			 capab_done;	/* their CAPAB END seen */
	int			 server_ok;	/* inbound: their SERVER checked */
	int			 fp_ok;		/* the pinned certificate seen */
	char			*peer_modules;	/* CAPAB MODULES, bounded */
	char			 peer_umodes[512];	/* CAPAB USERMODES */
	int			 peer_bot;	/* CAPABILITIES BOT=B */
	char			*peer_chanmodes;	/* CAPAB CHANMODES, bounded */
	struct link_server	 servers[LINK_MAXSERVERS];
	size_t			 nservers;	/* servers[0] is the peer */
	struct dict		*users;		/* UUID -> remote client */
	size_t			 nusers;
	struct link_replay	*replay;	/* link-replay.c */
	/* The last channel message sent, so each goes once per link. */
	const struct outmsg	*last_om;
	char			 last_msgid[64];
	const char		*last_text;
	int64_t			 last_time;
};

/* link.c */
size_t		 link_count(void);
struct link	*link_at(size_t);
struct link	*link_find(const char *name);
/* The new config's [link] sections and sid, at a reload. */
void		 link_reload(const struct conf *);
/* Send one line (no CRLF); bounded by LINK_LINEMAX, dropped when down. */
void		 link_send(struct link *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* Refuse or end the link: ERROR to the peer, a log line, the split. */
void		 link_error(struct link *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* The peer supports module (a CAPAB MODULES name, "m_botmode.so"). */
int		 link_has_module(const struct link *, const char *module);
/*
 * How the peer's channel mode letter takes a parameter, from its CAPAB
 * CHANMODES ("list:ban=b param-set:limit=l simple:secret=s"): a
 * MODE_* type of mode.h, MODE_UNKNOWN if it did not say.
 */
int		 link_peer_chanmode(const struct link *, char letter);
/* The peer has user mode letter (CAPAB USERMODES "simple:bot=B"). */
int		 link_has_umode(const struct link *, char letter);
const char	*link_our_sid(void);
/* The resolver of the links, made at first use; NULL if none can be. */
struct evdns_base *link_dns_base(void);

/* link-addr.c: the addresses of a [link] written with a host name. */
void		 link_addr_lookup(struct link *);
void		 link_addr_cancel(struct link *);
/* ip (as inet_ntop writes it) is the link's address, or one of its name's. */
int		 link_addr_match(const struct link *, const char *ip);

/* link-oper.c: CONNECT and SQUIT handed to the core (cmd-oper.c). */
void		 link_oper_register(void);
void		 link_oper_unregister(void);

/* link-burst.c: this server's state to the peer, and its changes. */
void		 link_burst(struct link *);
void		 link_hooks_register(void);
void		 link_hooks_unregister(void);
/* The UUID of a local user; and the local user of one of our UUIDs. */
void		 link_local_uuid(const struct client *, char out[LINK_UUIDLEN + 1]);
struct client	*link_local_find(const char *uuid);
/* A UID line for a local user, sent to one link; and its channels. */
void		 link_send_uid(struct link *, struct client *);
void		 link_send_uid_as(struct link *, struct client *, const char *);
void		 link_burst_user_channels(struct link *, struct client *);
/* The client's UUID, local or remote, into out. */
void		 link_any_uuid(const struct client *, char out[LINK_UUIDLEN + 1]);
/* One line to every link that is up: made once, sent to each. */
void		 link_send_up(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));

/* link-user.c: remote users, and the peer's lines that concern them. */
int		 link_is_remote(const struct client *);
struct link	*link_of(const struct client *);
const char	*link_remote_uuid(const struct client *);
/* The client a UUID (remote or local) stands for, or NULL. */
struct client	*link_find_uuid(struct link *, const char *uuid);
/* Every remote user of the link (or behind sid, if not NULL) quits. */
void		 link_users_split(struct link *, const char *sid,
		    const char *reason);
/* A line of a link that is up; 0, or -1 after the link was closed. */
/* raw: the line as received, to pass on to the other links (link-hub.c). */
int		 link_dispatch(struct link *, struct link_msg *, const char *raw);
/* Helpers of the peer's lines, shared with link-chan.c. */
int		 link_server_find(const struct link *, const char *sid);
/* The source: a remote user of this link (or NULL); its server's index. */
struct client	*link_source_user(struct link *, const struct link_msg *);
int		 link_source_server(struct link *, const struct link_msg *);
/* The source as a prefix for local clients: nick!user@host or a server. */
const char	*link_source_name(struct link *, const struct link_msg *);
/* A decimal time (or number) of the peer, bounded. */
long long	 link_ts(const char *);
/* A word fit for a prefix (host, ident, account) of at most max bytes. */
int		 link_word_ok(const char *, size_t max);
/* At most max bytes of s, not cutting a UTF-8 sequence, into buf. */
const char	*link_cut(char *buf, size_t size, const char *s, size_t max);

/* link-hub.c: this server as a hub, between its links (LK-5). */
struct link	*link_hub_by_sid(const char *sid);
/* The link a SID, or the server of a UUID, is behind; NULL if none. */
struct link	*link_hub_behind(const char *target);
/* sid is behind a link other than l already: a collision. */
int		 link_hub_sid_taken(const struct link *l, const char *sid);
int		 link_hub_known(struct link *, const struct link_msg *);
void		 link_hub_forward(struct link *, const struct link_msg *,
		    const char *raw, int known);
/* PING or PONG for another server: passed on toward it; 1 if not ours. */
int		 link_hub_ping(struct link *, const struct link_msg *,
		    const char *raw);
void		 link_hub_rsquit(struct link *, struct link_msg *);
void		 link_hub_encap(struct link *, struct link_msg *);
void		 link_hub_up(struct link *);
void		 link_hub_split(struct link *, const char *reason);
void		 link_hub_burst(struct link *);

/*
 * link-replay.c: messages kept until the peer acknowledges them (a PING
 * with a token after them), and sent again after a split (LK-3).
 */
void		 link_replay_keep(struct link *, const char *line, size_t n);
void		 link_replay_ping(struct link *);
void		 link_replay_pong(struct link *, const char *token);
void		 link_replay_split(struct link *);
void		 link_replay_resend(struct link *);
void		 link_replay_free(struct link *);

/* link-chan.c: the peer's lines about channels. */
void		 link_chan_fjoin(struct link *, struct link_msg *);
void		 link_chan_ijoin(struct link *, struct link_msg *);
void		 link_chan_part(struct link *, struct link_msg *);
void		 link_chan_kick(struct link *, struct link_msg *);
void		 link_chan_ftopic(struct link *, struct link_msg *);
void		 link_chan_fmode(struct link *, struct link_msg *);

#endif

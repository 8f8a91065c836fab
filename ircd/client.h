/*
 * client.h: users, with or without a connection. A person has a conn; a
 * service user (an agent of the bridge) has none and its own ops. Command
 * handlers only ever talk to a client through client_send() and ops, and
 * never ask what is behind a service user.
 */
#ifndef IRCD_CLIENT_H
#define IRCD_CLIENT_H

#include "ircd/ircd.h"

#include <netinet/in.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct conn;
struct client;
struct member;
struct outmsg;
struct sasl;
struct verify_job;
struct mlbatch;
struct monlist;
struct channel;
struct readmarks;

/* User modes, as bits. */
#define UMODE_INVISIBLE	0x01	/* +i */
#define UMODE_OPER	0x02	/* +o */
#define UMODE_WALLOPS	0x04	/* +w */
#define UMODE_BOT	0x08	/* +B */

/* Client state flags. */
#define CLIENT_REGISTERED	0x0001
#define CLIENT_HAVE_NICK	0x0002
#define CLIENT_HAVE_USER	0x0004
#define CLIENT_PASS_OK		0x0008
#define CLIENT_CAP_NEGOTIATING	0x0010	/* CAP LS/REQ seen, no CAP END yet */
#define CLIENT_CLOSING		0x0020	/* quit in progress: send nothing more */
#define CLIENT_FLOOD_EXEMPT	0x0040
#define CLIENT_SERVICE		0x0080	/* a pseudo-user of this server: unkillable,
					   not counted for first-join op */
#define CLIENT_CAP_302		0x0100	/* a CAP LS 302 (or later) was seen */
#define CLIENT_NETOPER		0x0200	/* an operator of another server of the
					   network: shown as one, with no
					   operator's authority here */

/* Invitations a client keeps; the oldest goes first. */
#define CLIENT_MAXINVITES	64

/*
 * A relayed event (PRIVMSG, NOTICE, ...) from one user, rendered once and
 * shared by every recipient; structured fields let service users read it
 * without parsing the line.
 */
#define OUTMSG_NWIRE	4

struct outmsg {
	struct client	*from;
	const char	*cmd;		/* "PRIVMSG", "NOTICE", "TAGMSG" */
	const char	*target;	/* as the sender wrote it */
	const char	*text;		/* NULL for TAGMSG */
	const char	*ctags;		/* client-only tags, escaped, no '@'; or NULL */
	int		 tagmsg;	/* only for clients with message-tags */
	int		 nomsgid;	/* a line inside a batch: the batch has the id */
	const char	*stags;		/* server tags for everyone, e.g. a multiline concat */
	char		 time[32];	/* server-time value, the same for everyone */
	int64_t		 time_ms;	/* the same, in Unix milliseconds */
	const char	*batch;		/* batch reference for batch clients, or NULL */
	int64_t		 hid;		/* its history row once stored, else 0 */
	char		 msgid[64];
	/*
	 * The network's id and time for a message from a linked server
	 * (NULL and 0 otherwise): outmsg_render keeps them instead of
	 * making new ones, so the message is the same on every server.
	 */
	const char	*net_msgid;
	int64_t		 net_time_ms;
	char		 line[IRC_LINELEN];	/* ":prefix CMD target :text", no CRLF */
	size_t		 len;
	/*
	 * conn.c's renderings of this message in the turn's output arena, one
	 * per set of tag caps, so recipients share bytes. A struct copy does
	 * not carry them over: wire_self must point at the struct itself.
	 */
	const struct outmsg *wire_self;
	unsigned	 nwire;
	struct {
		unsigned	 key, gen;
		uint32_t	 off, len;
	}		 wire[OUTMSG_NWIRE];
};

/* Set time and msgid, and render the line (text cut to the line limit). */
void	outmsg_render(struct outmsg *m);
/*
 * An event already formatted as a line by a user (JOIN, PART, NICK, ...):
 * from is found from the line's prefix; NULL if the server sent it.
 */
struct client	*outmsg_from_line(struct outmsg *m, const char *line, size_t len);
/* The current time as an IRCv3 server-time value. */
void	client_time_tag(char *buf, size_t len);
/* Unix milliseconds as a server-time value; and now in milliseconds. */
void	client_time_format(int64_t ms, char *buf, size_t len);
int64_t	client_time_now_ms(void);

struct client_ops {
	/* One complete line, no CRLF. Server replies and relayed events. */
	void	(*send)(struct client *to, const char *line, size_t len);
	/* A relayed event from another user; rendered per recipient's caps. */
	void	(*deliver)(struct client *to, struct outmsg *);
	/* The client leaves the server for reason; free what the ops own. */
	void	(*release)(struct client *, const char *reason);
	/* Optional (NULL for people): membership changes and invitations. */
	void	(*joined)(struct client *, struct channel *);
	void	(*parted)(struct client *, struct channel *);
	void	(*invited)(struct client *to, struct client *from, struct channel *);
	/* Optional: a private PRIVMSG to this client, after it was relayed. */
	void	(*message)(struct client *to, struct client *from, struct outmsg *);
	/* Optional: more WHOIS lines about this client, for asker (AG-3). */
	void	(*whois)(struct client *, struct client *asker);
	/*
	 * Optional: the server the user is on, for WHOIS and WHO, and its
	 * description (info); NULL: this server. A linked server's users.
	 */
	const char	*(*server)(const struct client *, const char **info);
	/*
	 * Service users: what the user is, for the refusal of a KILL
	 * ("You can't kill alice: it is <service>").
	 */
	const char	*service;
};

struct invite {
	LIST_ENTRY(invite)	 entry;
	char			 chan[CHANNELLEN + 1];	/* casefolded */
};

TAILQ_HEAD(member_list, member);

/*
 * Thousands of these sit idle, so the layout is for size: pointers first,
 * then the narrow counters, then the inline strings (byte-aligned, so no
 * padding). The prefix and realname are on the heap at their exact size:
 * most are far shorter than the longest they may be. host stays inline
 * because conn.c fills it in place.
 */
struct client {
	TAILQ_ENTRY(client)	 entry;		/* ircd.all */
	const struct client_ops	*ops;
	void			*priv;		/* the ops' own state */
	struct conn		*conn;		/* NULL for clients without a socket */
	char			*prefix;	/* nick!user@host; never NULL */
	char			*realname;	/* never NULL; client_set_realname */
	char			*host;		/* never NULL; client_set_host */
	char			*away;		/* NULL when here */
	char			*account;	/* NULL when not logged in */
	char			*oper;		/* operator block name */
	char			*certfp;	/* TLS client certificate SHA-256, hex */
	struct sasl		*sasl;		/* an AUTHENTICATE in progress */
	struct verify_job	*verify;	/* a password being checked */
	char			*pass;		/* PASS, until registration checks it */
	struct mlbatch		*mlbatch;	/* a draft/multiline batch being sent */
	struct readmarks	*readmarks;	/* MARKREAD without an account */
	struct monlist		*monitor;	/* nicks it MONITORs (monitor.c), or NULL */
	struct member_list	 channels;	/* memberships, via member.by_client */
	LIST_HEAD(, invite)	 invites;
	time_t			 signon;
	/*
	 * When the nick was taken: a linked server settles a nick collision
	 * by it (the older claim keeps the nick, InspIRCd's rule).
	 */
	time_t			 nickts;
	time_t			 idle;		/* last PRIVMSG/NOTICE, for WHOIS 317 */
	uint64_t		 id;		/* unique for this run, never reused */
	uint32_t		 mark;		/* send-once marker, see client_send_common */
	uint32_t		 caps;		/* CAP_* of cap.h */
	unsigned		 nchannels;
	uint16_t		 flags;		/* CLIENT_* */
	uint8_t			 umodes;	/* UMODE_* */
	uint8_t			 ninvites;	/* at most CLIENT_MAXINVITES */
	uint8_t			 unreg_errors;	/* 451s before registering */
	char			 nick[NICKLEN + 1];
	char			 user[USERLEN + 1];
	char			 ip[INET6_ADDRSTRLEN];	/* as inet_ntop writes it */
};

/* A new unregistered client with ops; adds it to ircd.all. */
struct client	*client_new(const struct client_ops *, struct conn *);
/*
 * The client is registered: counted as a user, its prefix built, and the
 * hooks told (hook.h user_new). For people and service users alike.
 */
void		 client_register(struct client *);
/* Look a nick up, case-insensitively; registered clients only. */
struct client	*client_find(const char *nick);
/* The same, including clients still registering (for 433). */
struct client	*client_find_any(const char *nick);
/*
 * Change (or set) the nick index; rebuilds the prefix. A registered
 * client's nickts becomes now (a linked server's users set their own).
 */
void		 client_set_nick(struct client *, const char *nick);
/*
 * A user of a linked server has taken the nick of c, which is still
 * registering: 433, and c must send NICK again.
 */
void		 client_nick_overruled(struct client *);
/* Rebuild the prefix from nick, user and host. */
void		 client_update_prefix(struct client *);
/* Set the realname to len bytes of name (at most REALLEN are kept). */
void		 client_set_realname(struct client *, const char *name, size_t len);
/* Set the host shown in prefixes and WHOIS (at most HOSTLEN bytes). */
void		 client_set_host(struct client *, const char *host);
/*
 * The client leaves: QUIT to common channels (once each peer), parts all,
 * WHOWAS entry, unindexed, ops->release. The struct is freed later.
 */
void		 client_exit(struct client *, const char *reason);
/* Free exited clients; called once per loop turn, never from a callback of their own. */
void		 client_reap(void);
/* Free what the client module keeps for itself, at exit. */
void		 client_shutdown(void);

void		 client_send(struct client *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 client_sendn(struct client *, const char *line, size_t len);
/* A user's event (":nick!u@h CMD ...") to one client, with its tags. */
void		 client_relayn(struct client *, const char *line, size_t len);
/* Send to every client sharing a channel with c, each once (and c if self). */
void		 client_send_common(struct client *c, int self, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
/*
 * The same, only to clients that negotiated cap (a CAP_* bit); and to
 * those that MONITOR c with extended-monitor and cap, each once. For
 * the changes that spec lists: AWAY, ACCOUNT, CHGHOST, SETNAME.
 */
void		 client_send_common_cap(struct client *c, int self, unsigned cap,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Bytes queued for c and not yet taken by the kernel (0 without a socket). */
size_t		 client_sendq(const struct client *);
/* The nick to use in replies: "*" until one is set. */
const char	*client_name(const struct client *);
int		 client_is_oper(const struct client *);
/* An operator here or (CLIENT_NETOPER) elsewhere, as WHOIS and WHO show. */
int		 client_shows_oper(const struct client *);
/* The name of the server c is on (ops->server, else ours); and its info. */
const char	*client_server(const struct client *, const char **info);
/* Does the client match a nick!user@host mask? */
int		 client_match_mask(const struct client *, const char *mask);
void		 client_invite_add(struct client *, const char *chan);
int		 client_invite_take(struct client *, const char *chan);
void		 client_invite_clear(struct client *, const char *chan);

#endif

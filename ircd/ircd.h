/*
 * ircd.h: the one server object and the limits every module shares.
 * One process, one thread, one event_base (docs/architecture.md).
 */
#ifndef IRCD_IRCD_H
#define IRCD_IRCD_H

#include "compat.h"

#include <stdint.h>
#include <time.h>

#define IRCD_VERSION	"agentircd-" PACKAGE_VERSION

/* Limits advertised in ISUPPORT; buffers are sized from them. */
#define NICKLEN		30
#define USERLEN		10
#define HOSTLEN		63
#define REALLEN		128
#define CHANNELLEN	50
#define TOPICLEN	390
#define KICKLEN		255
#define AWAYLEN		200
#define KEYLEN		23
#define MAXMODES	6	/* mode changes with a parameter per MODE */
#define IRC_LINELEN	512	/* the body, CRLF included */
#define IRC_TAGLEN	8191	/* the tag section, '@' and space included */

struct event_base;
struct conf;
struct dict;
struct client;

TAILQ_HEAD(client_list, client);

struct ircd {
	struct event_base	*base;
	struct conf		*conf;
	time_t			 started;
	struct dict		*clients;	/* casefolded nick -> client */
	struct dict		*channels;	/* casefolded name -> channel */
	struct client_list	 all;		/* every client, registered or not */
	struct client		*me;		/* not a client: see server.c */
	unsigned		 nusers;	/* registered: people and service users */
	unsigned		 nunknown;	/* connections not yet registered */
	unsigned		 ninvisible;
	unsigned		 nopers;
	unsigned		 nchannels;
	unsigned		 maxusers;	/* highest nusers seen */
	unsigned		 nremote;	/* of nusers, on linked servers */
	unsigned		 maxlocal;	/* highest nusers - nremote seen */
	unsigned		 nconns;
	int			 stopping;	/* shutting down: keep stored state */
	uint64_t		 msgid_seq;
	char			 msgid_base[24];	/* per start, so ids never repeat */
	char			 created[64];	/* for 003 */
};

extern struct ircd ircd;

/*
 * server.c: start, stop and reload the server around the loop. main.c
 * runs server_init(), then what hooks into the core, then server_run()
 * (the loop, until the users are gone), the hooks' own teardown, and
 * server_free().
 */
int	server_init(struct conf *);
void	server_run(void);
void	server_free(void);
void	server_shutdown(const char *reason);
/* SIGHUP and REHASH: reload what can change without a restart. */
void	server_rehash(void);
/* A fresh message id: unique across restarts (start time + counter). */
const char *server_msgid(char *buf, size_t len);
/* Milliseconds on the monotonic clock: for timeouts, never for display. */
uint64_t server_now_ms(void);

#endif

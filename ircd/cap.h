/*
 * cap.h: IRCv3 capability negotiation (CAP LS 302, LIST, REQ, END,
 * NEW/DEL with cap-notify). A client's capabilities are one bitmask.
 */
#ifndef IRCD_CAP_H
#define IRCD_CAP_H

#include <stddef.h>

struct client;

#define CAP_CAP_NOTIFY		0x0001
#define CAP_MESSAGE_TAGS	0x0002
#define CAP_SERVER_TIME		0x0004
#define CAP_ECHO_MESSAGE	0x0008
#define CAP_BATCH		0x0010
#define CAP_LABELED_RESPONSE	0x0020
#define CAP_SASL		0x0040
#define CAP_ACCOUNT_TAG		0x0080
#define CAP_ACCOUNT_NOTIFY	0x0100
#define CAP_AWAY_NOTIFY		0x0200
#define CAP_EXTENDED_JOIN	0x0400
#define CAP_INVITE_NOTIFY	0x0800
#define CAP_MULTI_PREFIX	0x1000
#define CAP_USERHOST_IN_NAMES	0x2000
#define CAP_SETNAME		0x4000
#define CAP_CHGHOST		0x8000
#define CAP_CHATHISTORY		0x10000	/* draft/chathistory */
#define CAP_MULTILINE		0x20000	/* draft/multiline */
#define CAP_READ_MARKER		0x40000	/* draft/read-marker */
#define CAP_REDACTION		0x80000	/* draft/message-redaction */
#define CAP_EXTENDED_MONITOR	0x100000

/* draft/multiline limits, advertised as the cap's value. */
#define MULTILINE_MAX_BYTES	4096
#define MULTILINE_MAX_LINES	64

/* The names of caps in bits, space-separated, into buf. */
void	cap_names(unsigned bits, char *buf, size_t len);
/* The caps offered now (some depend on the config). */
unsigned cap_offered(void);
/* After a reload: tell cap-notify clients what appeared and went. */
void	cap_notify_change(unsigned before, unsigned after);

#endif

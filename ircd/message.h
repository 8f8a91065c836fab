/*
 * message.h: IRC lines in and out. Parsing borrows the line it is given
 * (tokens are NUL-terminated in place); formatting never exceeds the
 * 512-byte limit. Pure, unit-tested.
 */
#ifndef IRCD_MESSAGE_H
#define IRCD_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#define MSG_MAXPARAMS	15

struct message {
	char	*tags;		/* raw tag section without '@', or NULL */
	char	*source;	/* without ':', or NULL */
	char	*cmd;
	char	*params[MSG_MAXPARAMS];
	int	 nparams;
	/*
	 * Set only by ircd/link/ for a linked server's user: the network's
	 * id and time of the message (Unix ms, 0 for none), which it keeps
	 * here too (LK-3, LK-4). A client's own msgid tag is never read.
	 */
	const char *msgid;
	int64_t	 time_ms;
};

enum {
	MSG_OK = 0,
	MSG_EMPTY = -1,		/* nothing but spaces: ignore silently */
	MSG_BAD = -2,		/* no command */
};

/* Parse line (no CR/LF) in place. */
int	 message_parse(char *line, struct message *);

/*
 * Find tag key in a raw tag section and unescape its value into val.
 * Returns 1 if present (val "" for a valueless tag), 0 if absent.
 */
int	 message_tag_get(const char *tags, const char *key, char *val, size_t len);
/* Escape a tag value (message-tags escaping) into dst; returns the length. */
size_t	 message_tag_escape(char *dst, size_t size, const char *val);
size_t	 message_tag_unescape(char *dst, size_t size, const char *val);

/*
 * Append params to buf in wire form: every parameter but the last as is,
 * the last one with ':' when it is empty, has a space, or starts with ':'.
 */
size_t	 message_join_params(char *buf, size_t size, int n, const char *const *params);

/*
 * Cut text into pieces that fit budget bytes each: between words when it
 * can, never inside a UTF-8 sequence, and CR, LF and NUL never reach the
 * output. Calls fn for each piece. Agents' answers are cut with it
 * (AG-5).
 */
void	 message_split(const char *text, size_t len, size_t budget,
	    void (*fn)(const char *piece, size_t len, void *arg), void *arg);

/* Truncate s to at most max bytes without cutting a UTF-8 sequence. */
size_t	 message_utf8_trunc(const char *s, size_t len, size_t max);
/*
 * Is text a CTCP other than ACTION ("\001VERSION\001")? What +C refuses,
 * as InspIRCd's noctcp and Ergo's +C do; "/me" stays allowed.
 */
int	 message_is_ctcp(const char *text);

#endif

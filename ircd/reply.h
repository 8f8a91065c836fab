/*
 * reply.h: numeric replies and server notices, formatted from the table
 * in numeric.c so every reply of a kind reads the same.
 */
#ifndef IRCD_REPLY_H
#define IRCD_REPLY_H

struct client;

/* ":<server> <NNN> <nick> " + the numeric's format with the arguments. */
void	reply(struct client *, int numeric, ...);
/* ":<server> NOTICE <nick> :text" */
void	reply_notice(struct client *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * ":<server> NOTICE <nick> :*** text" to every IRC operator (a rehash
 * says what it did, or why it changed nothing).
 */
void	reply_opers(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
/*
 * TN-11: a reply to what c typed in channel where ("#chan"; NULL or a
 * nick for a private conversation: then as reply_notice). To c alone, as
 * ":<server> NOTICE #chan :text", so that clients show it in the channel's
 * window; when c is not in that channel (no window to show it in), to
 * c's nick with +draft/channel-context=#chan for clients with message-tags.
 */
void	reply_notice_in(struct client *, const char *where, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Standard replies: "FAIL <command> <code> [context] :text" (context may be NULL). */
void	reply_fail(struct client *, const char *cmd, const char *code,
	    const char *context, const char *text);

#endif

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
/* Standard replies: "FAIL <command> <code> [context] :text" (context may be NULL). */
void	reply_fail(struct client *, const char *cmd, const char *code,
	    const char *context, const char *text);

#endif

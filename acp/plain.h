/*
 * plain.h: what the files of acp/ share about plain text (AU-6): the
 * UTF-8 decoder of json.c, and how much of each agent-written field is
 * kept for people to read. acp_plain() and acp_plain_input() themselves
 * are in acp.h, for the bridge too.
 */
#ifndef ACP_PLAIN_H
#define ACP_PLAIN_H

#include <stddef.h>

/*
 * Bytes kept of each field, the NUL included; past them the text is cut
 * with "…". Each is roomy for what real agents send (a title is a
 * command line or a sentence) and small enough that a card or a WHOIS
 * line still has room for what follows it.
 */
#define ACP_PLAIN_WORD		64	/* kinds, statuses, priorities */
#define ACP_PLAIN_NAME		128	/* option, command and mode names */
#define ACP_PLAIN_TITLE		256	/* tool and session titles */
#define ACP_PLAIN_TEXT		512	/* plan entries, descriptions, paths */
/* A tool call's input as a card shows it, at most (acp_tool.input). */
#define ACP_PLAIN_INPUT		256
/* Without a key that says what it is, rawInput is shown as JSON cut here. */
#define ACP_PLAIN_JSON		200

/*
 * The length of the well-formed UTF-8 sequence at s (n bytes left), or
 * 0 with *bad set to the length of the maximal subpart to replace.
 */
size_t	 acp_utf8_seq(const unsigned char *s, size_t n, size_t *bad);

/* acp_plain() into a new string (free it), or NULL for NULL or no memory. */
char	*acp_plain_dup(const char *, size_t size);

#endif

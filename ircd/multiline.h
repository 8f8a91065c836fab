/*
 * multiline.h: IRCv3 draft/multiline. A client may send one message as a
 * batch of lines; clients that negotiated the cap get it as a batch, the
 * others the lines one by one (never the blank ones). Agents' answers go
 * the same way, a paragraph per batch (TN-4).
 */
#ifndef IRCD_MULTILINE_H
#define IRCD_MULTILINE_H

#include <stddef.h>

struct client;
struct message;
struct outmsg;

/* BATCH +ref draft/multiline target | BATCH -ref */
void	multiline_batch(struct client *, struct message *);
/* A PRIVMSG/NOTICE tagged with the client's open batch: 1 if taken. */
int	multiline_take(struct client *, struct message *, const char *cmd);
/*
 * Send lines[0..n) (one message: the first carries the msgid) to to: as a
 * draft/multiline batch if it negotiated it, else line by line without
 * the blank ones. concat[i] marks a line joined to the previous without a
 * newline (may be NULL).
 */
void	multiline_deliver(struct client *to, struct outmsg *lines, size_t n,
	    const unsigned char *concat);
void	multiline_free(struct client *);

#endif

/*
 * conn.h: one socket of one client. Reads CRLF lines with a length cap,
 * enforces flood penalties, the SendQ and ping timeouts, and closes with
 * a reason. A plain socket is a descriptor and an event; a TLS one is a
 * bufferevent_openssl.
 */
#ifndef IRCD_CONN_H
#define IRCD_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <event2/util.h>

struct bufferevent;
struct client;
struct listener;

/* A plain socket has no bufferevent; a TLS one comes as bufferevent_openssl. */
struct conn	*conn_new(evutil_socket_t, struct bufferevent *tls,
		    const struct sockaddr *, socklen_t, struct listener *);
/*
 * Lines are written at the end of the loop turn, after the turn's history
 * is committed (history_commit). Anything that stores without queueing a
 * line still calls this, so that the commit comes.
 */
void		 conn_flush_soon(void);
/* Free the shared events and buffers once no connection is left. */
void		 conn_shutdown(void);
/* Queue a line (CRLF appended). Past the SendQ the client is dropped. */
void		 conn_write(struct conn *, const char *line, size_t len);
/* Replies between these two carry the client's label (labeled-response). */
void		 conn_label_begin(struct conn *, const char *label);
void		 conn_label_end(struct conn *);
/*
 * The labeled command opened a batch (draft/multiline), answered when it
 * closes: no ACK now. 1 if a label was in force, else 0.
 */
int		 conn_label_defer(struct conn *);
/*
 * The whole reply is one batch whose opening line carries the label
 * (draft/multiline's echo): the label, escaped, into buf, and no ACK or
 * labeled-response batch. 0 if none is in force, or a reply went out.
 */
int		 conn_label_claim(struct conn *, char *buf, size_t size);
/* Flush what is queued, then close; the client gets "ERROR :Closing Link: ..." first. */
void		 conn_close(struct conn *, const char *reason);
/* Add ms of flood penalty for the command being processed. */
void		 conn_penalty(struct conn *, unsigned ms);
void		 conn_set_flood_exempt(struct conn *, int exempt);
/* Run the lines held while the client waited (a password check). */
void		 conn_resume(struct conn *);
/* Hold back the client's next lines for ms, exempt or not (failed logins). */
void		 conn_delay(struct conn *, unsigned ms);
/*
 * While one of the client's lines runs: in how many ms its next line,
 * received already, runs (flood control may hold it back), or -1 when
 * none has come. A paste is one prompt whatever held its lines (TN-10).
 */
int64_t		 conn_next_line_ms(const struct conn *);
/* Must this client log in before registering (SEC-1)? */
int		 conn_needs_auth(const struct conn *);
int		 conn_is_tls(const struct conn *);
size_t		 conn_sendq(const struct conn *);
/* How many connections come from this address right now. */
unsigned	 conn_count_ip(const char *ip);

#endif

/*
 * jsonrpc.h: JSON-RPC 2.0 over newline-delimited JSON, both directions.
 * Frames a byte stream into messages (capped, no fixed buffers), demuxes
 * them by shape and keeps the table of our own outstanding requests.
 */
#ifndef ACP_JSONRPC_H
#define ACP_JSONRPC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct event_base;
struct evbuffer;
struct jsonrpc;

#define JSONRPC_PARSE_ERROR	-32700
#define JSONRPC_INVALID_REQUEST	-32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS	-32602
#define JSONRPC_INTERNAL_ERROR	-32603
#define JSONRPC_REQUEST_CANCELLED -32800
/* Local codes, never on the wire: a request that got no answer. */
#define JSONRPC_TIMEOUT		-32098
#define JSONRPC_CLOSED		-32099

#define JSONRPC_MAX_FRAME_DEFAULT	(32u * 1024 * 1024)
#define JSONRPC_MAX_BAD_DEFAULT		100

struct jsonrpc_error {
	int		 code;
	const char	*message;	/* never NULL */
	const cJSON	*data;		/* may be NULL */
};

struct jsonrpc_handlers {
	/*
	 * A request from the peer. Return 0 when it is (or will be)
	 * answered with jsonrpc_respond*(), -1 to have it answered with
	 * -32601 method not found.
	 */
	int	(*request)(struct jsonrpc *, const char *method,
		    const cJSON *params, const cJSON *id, void *arg);
	void	(*notify)(struct jsonrpc *, const char *method,
		    const cJSON *params, void *arg);
	/* One whole frame, newline included, to write to the peer. */
	void	(*write)(const char *buf, size_t len, void *arg);
	/* Too many bad lines in a row: the peer should be dropped. */
	void	(*fatal)(struct jsonrpc *, const char *why, void *arg);
};

/* The answer to one of our requests: exactly one of result and err is set. */
typedef void jsonrpc_reply_fn(struct jsonrpc *, const cJSON *result,
    const struct jsonrpc_error *err, void *arg);

struct jsonrpc	*jsonrpc_new(struct event_base *,
		    const struct jsonrpc_handlers *, void *arg);
void		 jsonrpc_set_limits(struct jsonrpc *, size_t max_frame,
		    int max_bad);
/* Frees without running callbacks: call jsonrpc_close() first for that. */
void		 jsonrpc_free(struct jsonrpc *);

/*
 * Consume every complete frame of buf (always the same buffer), leaving
 * a partial last line in it. Returns -1 once the peer was judged fatal or
 * jsonrpc_close() was called (nothing more is dispatched), else 0.
 */
int		 jsonrpc_input(struct jsonrpc *, struct evbuffer *buf);
/* The same for bytes held in an internal buffer (tests, odd transports). */
int		 jsonrpc_feed(struct jsonrpc *, const void *, size_t);
/* At EOF: a last line without a newline is still a frame. */
int		 jsonrpc_input_eof(struct jsonrpc *, struct evbuffer *buf);

/*
 * Pause (on) or allow (off) dispatching. A pause asked for inside a
 * dispatch takes effect after that frame; the frames after it stay in the
 * buffer, in order, for the next jsonrpc_input*() once allowed again.
 * Requests do not time out while paused (their answers may be waiting):
 * a timeout that comes due is tried again every second.
 */
void		 jsonrpc_pause(struct jsonrpc *, int on);
int		 jsonrpc_paused(const struct jsonrpc *);

/* Returns our request id (>= 0), or -1. timeout_ms <= 0: no timeout. */
int64_t		 jsonrpc_call(struct jsonrpc *, const char *method,
		    cJSON *params, int timeout_ms, jsonrpc_reply_fn *, void *);
int		 jsonrpc_notify(struct jsonrpc *, const char *method,
		    cJSON *params);
/* Takes ownership of result (NULL means JSON null). */
int		 jsonrpc_respond(struct jsonrpc *, const cJSON *id,
		    cJSON *result);
int		 jsonrpc_respond_error(struct jsonrpc *, const cJSON *id,
		    int code, const char *message);
/*
 * The same answers as messages, for a transport of the caller's own (the
 * MCP server): to print and cJSON_Delete(). A NULL id is JSON null;
 * jsonrpc_build_result() takes result (NULL: JSON null). NULL when out of
 * memory.
 */
cJSON		*jsonrpc_build_result(const cJSON *id, cJSON *result);
cJSON		*jsonrpc_build_error(const cJSON *id, int code,
		    const char *message);
/*
 * Forget our requests made with callback argument arg (its owner goes
 * away): their callbacks never run, late answers are dropped.
 */
void		 jsonrpc_forget_arg(struct jsonrpc *, const void *arg);
/* Stop dispatching and fail every outstanding request with code/msg. */
void		 jsonrpc_close(struct jsonrpc *, int code, const char *msg);

size_t		 jsonrpc_outstanding(struct jsonrpc *);
unsigned long	 jsonrpc_bad_lines(struct jsonrpc *);	/* in total */

/* Replace escaped NULs in a JSON text by U+FFFD, in place (pure). */
void	jsonrpc_unnul(char *line, size_t len);

#endif

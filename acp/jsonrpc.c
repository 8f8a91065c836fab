/*
 * jsonrpc.c: JSON-RPC 2.0 over newline-delimited JSON. Splits a byte
 * stream into lines (capped, grown on demand), routes each message by its
 * shape since both peers number their requests from 0, answers what
 * nobody handles, and times out our own requests.
 */
#include "compat.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "acp/acp.h"
#include "acp/jsonrpc.h"
#include "acp/log.h"

/* Paused, a request that times out is looked at again this much later. */
#define PAUSED_RETRY_SEC	1

struct jsonrpc_req {
	TAILQ_ENTRY(jsonrpc_req) entry;
	struct jsonrpc		*j;
	int64_t			 id;
	char			 method[48];
	jsonrpc_reply_fn	*fn;
	void			*arg;
	struct event		*timer;
};
TAILQ_HEAD(jsonrpc_reqs, jsonrpc_req);

struct jsonrpc {
	struct event_base	*base;
	struct jsonrpc_handlers	 h;
	void			*arg;
	size_t			 max_frame;
	int			 max_bad;
	int64_t			 next_id;
	struct jsonrpc_reqs	 reqs;
	size_t			 nreqs;
	struct evbuffer		*own;		/* for jsonrpc_feed() */
	size_t			 scanned;	/* bytes known to hold no LF */
	int			 discarding;	/* inside an oversized line */
	int			 bad_in_row;
	unsigned long		 bad_total;
	int			 closed;
	int			 paused;	/* jsonrpc_pause() */
	int			 depth;		/* inside a dispatch */
	int			 dead;		/* freed while inside one */
};

static void	jsonrpc_destroy(struct jsonrpc *);

struct jsonrpc *
jsonrpc_new(struct event_base *base, const struct jsonrpc_handlers *h,
    void *arg)
{
	struct jsonrpc *j;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return NULL;
	j->base = base;
	j->h = *h;
	j->arg = arg;
	j->max_frame = JSONRPC_MAX_FRAME_DEFAULT;
	j->max_bad = JSONRPC_MAX_BAD_DEFAULT;
	TAILQ_INIT(&j->reqs);
	return j;
}

void
jsonrpc_set_limits(struct jsonrpc *j, size_t max_frame, int max_bad)
{
	if (max_frame > 0)
		j->max_frame = max_frame;
	if (max_bad > 0)
		j->max_bad = max_bad;
}

static void
req_free(struct jsonrpc_req *r)
{
	if (r->timer != NULL)
		event_free(r->timer);
	free(r);
}

static void
jsonrpc_destroy(struct jsonrpc *j)
{
	struct jsonrpc_req *r;

	while ((r = TAILQ_FIRST(&j->reqs)) != NULL) {
		TAILQ_REMOVE(&j->reqs, r, entry);
		req_free(r);
	}
	if (j->own != NULL)
		evbuffer_free(j->own);
	free(j);
}

void
jsonrpc_free(struct jsonrpc *j)
{
	struct jsonrpc_req *r;

	if (j == NULL)
		return;
	j->closed = 1;
	/* Callbacks must not run any more, even if freed from inside one. */
	TAILQ_FOREACH(r, &j->reqs, entry)
		r->fn = NULL;
	if (j->depth > 0) {
		j->dead = 1;
		return;
	}
	jsonrpc_destroy(j);
}

/* Leave a dispatch; the last one out frees a jsonrpc freed meanwhile. */
static int
jsonrpc_leave(struct jsonrpc *j)
{
	int closed = j->closed;

	if (--j->depth == 0 && j->dead) {
		jsonrpc_destroy(j);
		return -1;
	}
	return closed ? -1 : 0;
}

static void
jsonrpc_send(struct jsonrpc *j, cJSON *msg)
{
	char *s;
	size_t len;

	if ((s = acp_json_print(msg, &len)) == NULL) {
		acp_error("jsonrpc: cannot encode a message");
		return;
	}
	/* cJSON escapes control characters, so the frame has no raw LF. */
	s[len] = '\n';		/* overwrites the NUL; length passed along */
	if (j->h.write != NULL)
		j->h.write(s, len + 1, j->arg);
	free(s);
}

static cJSON *
msg_new(void)
{
	cJSON *m;

	if ((m = cJSON_CreateObject()) != NULL)
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	return m;
}

static void
req_timeout(evutil_socket_t fd, short ev, void *arg)
{
	struct jsonrpc_req *r = arg;
	struct jsonrpc *j = r->j;
	struct jsonrpc_error err = { JSONRPC_TIMEOUT, "request timed out",
	    NULL };

	(void)fd;
	(void)ev;
	/* Paused, its answer may be waiting in our buffer: try again later. */
	if (j->paused) {
		struct timeval tv = { PAUSED_RETRY_SEC, 0 };

		evtimer_add(r->timer, &tv);
		return;
	}
	acp_warn("jsonrpc: %s (id %lld) timed out", r->method,
	    (long long)r->id);
	TAILQ_REMOVE(&j->reqs, r, entry);
	j->nreqs--;
	j->depth++;
	if (r->fn != NULL)
		r->fn(j, NULL, &err, r->arg);
	req_free(r);
	jsonrpc_leave(j);
}

int64_t
jsonrpc_call(struct jsonrpc *j, const char *method, cJSON *params,
    int timeout_ms, jsonrpc_reply_fn *fn, void *arg)
{
	struct jsonrpc_req *r = NULL;
	cJSON *m = NULL;

	if (j->closed || (r = calloc(1, sizeof(*r))) == NULL ||
	    (m = msg_new()) == NULL) {
		free(r);
		cJSON_Delete(params);
		return -1;
	}
	r->j = j;
	r->id = j->next_id++;
	strlcpy(r->method, method, sizeof(r->method));
	r->fn = fn;
	r->arg = arg;
	if (timeout_ms > 0) {
		struct timeval tv = { timeout_ms / 1000,
		    (timeout_ms % 1000) * 1000 };

		r->timer = evtimer_new(j->base, req_timeout, r);
		if (r->timer != NULL)
			evtimer_add(r->timer, &tv);
	}
	TAILQ_INSERT_TAIL(&j->reqs, r, entry);
	j->nreqs++;
	cJSON_AddNumberToObject(m, "id", (double)r->id);
	cJSON_AddStringToObject(m, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(m, "params", params);
	jsonrpc_send(j, m);
	cJSON_Delete(m);
	return r->id;
}

int
jsonrpc_notify(struct jsonrpc *j, const char *method, cJSON *params)
{
	cJSON *m;

	if (j->closed || (m = msg_new()) == NULL) {
		cJSON_Delete(params);
		return -1;
	}
	cJSON_AddStringToObject(m, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(m, "params", params);
	jsonrpc_send(j, m);
	cJSON_Delete(m);
	return 0;
}

static cJSON *
id_copy(const cJSON *id)
{
	if (id == NULL)
		return cJSON_CreateNull();
	return cJSON_Duplicate(id, 1);
}

cJSON *
jsonrpc_build_result(const cJSON *id, cJSON *result)
{
	cJSON *m;

	if ((m = msg_new()) == NULL) {
		cJSON_Delete(result);
		return NULL;
	}
	cJSON_AddItemToObject(m, "id", id_copy(id));
	cJSON_AddItemToObject(m, "result",
	    result != NULL ? result : cJSON_CreateNull());
	return m;
}

cJSON *
jsonrpc_build_error(const cJSON *id, int code, const char *message)
{
	cJSON *m, *e;

	if ((m = msg_new()) == NULL)
		return NULL;
	cJSON_AddItemToObject(m, "id", id_copy(id));
	e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	return m;
}

int
jsonrpc_respond(struct jsonrpc *j, const cJSON *id, cJSON *result)
{
	cJSON *m;

	if (j->closed) {
		cJSON_Delete(result);
		return -1;
	}
	if ((m = jsonrpc_build_result(id, result)) == NULL)
		return -1;
	jsonrpc_send(j, m);
	cJSON_Delete(m);
	return 0;
}

int
jsonrpc_respond_error(struct jsonrpc *j, const cJSON *id, int code,
    const char *message)
{
	cJSON *m;

	if (j->closed ||
	    (m = jsonrpc_build_error(id, code, message)) == NULL)
		return -1;
	jsonrpc_send(j, m);
	cJSON_Delete(m);
	return 0;
}

void
jsonrpc_forget_arg(struct jsonrpc *j, const void *arg)
{
	struct jsonrpc_req *r;

	TAILQ_FOREACH(r, &j->reqs, entry)
		if (r->arg == arg)
			r->fn = NULL;
}

void
jsonrpc_close(struct jsonrpc *j, int code, const char *msg)
{
	struct jsonrpc_error err = { code, msg, NULL };
	struct jsonrpc_req *r;

	j->closed = 1;
	j->depth++;
	while ((r = TAILQ_FIRST(&j->reqs)) != NULL) {
		TAILQ_REMOVE(&j->reqs, r, entry);
		j->nreqs--;
		if (r->fn != NULL)
			r->fn(j, NULL, &err, r->arg);
		req_free(r);
	}
	jsonrpc_leave(j);
}

size_t
jsonrpc_outstanding(struct jsonrpc *j)
{
	return j->nreqs;
}

unsigned long
jsonrpc_bad_lines(struct jsonrpc *j)
{
	return j->bad_total;
}

/* A line that is not a message: logged, skipped, and counted. */
static void
bad_line(struct jsonrpc *j, const char *why, const char *line, size_t len,
    size_t size)
{
	char show[81];
	size_t i, n;

	n = len < sizeof(show) - 1 ? len : sizeof(show) - 1;
	for (i = 0; i < n; i++)
		show[i] = isprint((unsigned char)line[i]) ? line[i] : '?';
	show[n] = '\0';
	j->bad_total++;
	acp_warn("jsonrpc: skipped a line (%s, %zu bytes): %s%s", why, size,
	    show, n < len ? "..." : "");
	if (++j->bad_in_row >= j->max_bad && !j->closed) {
		acp_error("jsonrpc: %d bad lines in a row, giving up",
		    j->bad_in_row);
		if (j->h.fatal != NULL)
			j->h.fatal(j, "too many lines that are not JSON-RPC",
			    j->arg);
		j->closed = 1;
	}
}

static int64_t
id_value(const cJSON *id, int *okp)
{
	char *end;
	long long v;

	*okp = 0;
	if (cJSON_IsNumber(id)) {
		if (id->valuedouble < 0 || id->valuedouble > 9e15 ||
		    (double)(int64_t)id->valuedouble != id->valuedouble)
			return 0;
		*okp = 1;
		return (int64_t)id->valuedouble;
	}
	/* Some peers turn ids into strings; ours are decimal numbers. */
	if (cJSON_IsString(id) && id->valuestring[0] != '\0') {
		v = strtoll(id->valuestring, &end, 10);
		if (*end == '\0' && v >= 0) {
			*okp = 1;
			return v;
		}
	}
	return 0;
}

static void
dispatch_response(struct jsonrpc *j, const cJSON *msg, const cJSON *id)
{
	struct jsonrpc_req *r;
	struct jsonrpc_error err;
	const cJSON *res, *e, *c, *mm;
	int64_t v;
	int ok;

	v = id_value(id, &ok);
	TAILQ_FOREACH(r, &j->reqs, entry)
		if (ok && r->id == v)
			break;
	if (r == NULL) {
		acp_debug("jsonrpc: answer to no request of ours, dropped");
		return;
	}
	TAILQ_REMOVE(&j->reqs, r, entry);
	j->nreqs--;
	res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	e = cJSON_GetObjectItemCaseSensitive(msg, "error");
	if (r->fn != NULL) {
		if (e != NULL && !cJSON_IsNull(e)) {
			c = cJSON_GetObjectItemCaseSensitive(e, "code");
			mm = cJSON_GetObjectItemCaseSensitive(e, "message");
			err.code = cJSON_IsNumber(c) ? c->valueint :
			    JSONRPC_INTERNAL_ERROR;
			err.message = cJSON_IsString(mm) ? mm->valuestring :
			    "error without a message";
			err.data = cJSON_GetObjectItemCaseSensitive(e, "data");
			r->fn(j, NULL, &err, r->arg);
		} else if (res == NULL) {
			/* Neither: the callback still gets one of the two. */
			err.code = JSONRPC_INTERNAL_ERROR;
			err.message = "an answer with neither result nor error";
			err.data = NULL;
			r->fn(j, NULL, &err, r->arg);
		} else {
			/* "result": null is an answer too (session/load). */
			r->fn(j, res, NULL, r->arg);
		}
	}
	req_free(r);
}

/*
 * cJSON hands strings out NUL-terminated, so an escaped NUL ("\u0000")
 * in a string would silently cut the rest of it off. Turn each escaped
 * NUL into U+FFFD ("\ufffd", the same length) before parsing: no text
 * is lost, and no NUL can reach IRC. A backslash that is itself escaped
 * ("\\u0000") starts no escape and is left alone.
 */
void
jsonrpc_unnul(char *line, size_t len)
{
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		if (line[i] != '\\') {
			run = 0;
			continue;
		}
		run++;
		if ((run & 1) == 1 && i + 5 < len &&
		    strncmp(line + i + 1, "u0000", 5) == 0) {
			memcpy(line + i + 1, "ufffd", 5);
			i += 5;
			run = 0;
		}
	}
}

static void
dispatch(struct jsonrpc *j, const char *line, size_t len)
{
	cJSON *msg;
	const cJSON *method, *id, *params;
	size_t i;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
	    line[len - 1] == '\t'))
		len--;
	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len)
		return;		/* blank lines are harmless */
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL) {
		bad_line(j, "not JSON", line, len, len);
		return;
	}
	if (cJSON_IsArray(msg)) {
		/* ACP has no batches; answer as the SDK does. */
		jsonrpc_respond_error(j, NULL, JSONRPC_INVALID_REQUEST,
		    "batches are not supported");
		bad_line(j, "batch", line, len, len);
		cJSON_Delete(msg);
		return;
	}
	if (!cJSON_IsObject(msg)) {
		bad_line(j, "not an object", line, len, len);
		cJSON_Delete(msg);
		return;
	}
	j->bad_in_row = 0;
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (cJSON_IsString(method)) {
		if (id != NULL) {
			/* A request: it must be answered, whatever happens. */
			if (j->h.request == NULL || j->h.request(j,
			    method->valuestring, params, id, j->arg) == -1)
				jsonrpc_respond_error(j, id,
				    JSONRPC_METHOD_NOT_FOUND,
				    "Method not found");
		} else if (j->h.notify != NULL)
			j->h.notify(j, method->valuestring, params, j->arg);
	} else if (id != NULL && method == NULL &&
	    (cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(msg, "error") != NULL))
		dispatch_response(j, msg, id);
	else {
		acp_warn("jsonrpc: message of no known shape, skipped");
		if (id != NULL && method != NULL)
			jsonrpc_respond_error(j, id, JSONRPC_INVALID_REQUEST,
			    "Invalid request");
	}
	cJSON_Delete(msg);
}

static void
take_line(struct jsonrpc *j, struct evbuffer *buf, size_t len, int eol)
{
	char *line;

	if (len > j->max_frame) {
		evbuffer_drain(buf, len + eol);
		bad_line(j, "frame over the size cap", "", 0, len);
		return;
	}
	if ((line = malloc(len + 1)) == NULL) {
		evbuffer_drain(buf, len + eol);
		bad_line(j, "out of memory", "", 0, len);
		return;
	}
	evbuffer_remove(buf, line, len);
	evbuffer_drain(buf, eol);
	line[len] = '\0';
	jsonrpc_unnul(line, len);
	dispatch(j, line, len);
	free(line);
}

static int
input(struct jsonrpc *j, struct evbuffer *buf, int eof)
{
	struct evbuffer_ptr start, p;
	size_t len;

	j->depth++;
	while (!j->closed && !j->paused) {
		len = evbuffer_get_length(buf);
		if (j->scanned > len)
			j->scanned = 0;
		if (j->scanned == len)
			p.pos = -1;
		else {
			/* Scan only what is new: a line may take many reads. */
			evbuffer_ptr_set(buf, &start, j->scanned,
			    EVBUFFER_PTR_SET);
			p = evbuffer_search(buf, "\n", 1, &start);
		}
		if (p.pos == -1) {
			if (j->discarding) {
				evbuffer_drain(buf, len);
				j->scanned = 0;
			} else if (len > j->max_frame) {
				/* Drop now, not after buffering the rest. */
				evbuffer_drain(buf, len);
				j->scanned = 0;
				j->discarding = 1;
				bad_line(j, "frame over the size cap", "", 0,
				    len);
			} else if (eof && len > 0) {
				j->scanned = 0;
				take_line(j, buf, len, 0);
				continue;
			} else
				j->scanned = len;
			break;
		}
		j->scanned = 0;
		if (j->discarding) {
			evbuffer_drain(buf, (size_t)p.pos + 1);
			j->discarding = 0;
			continue;
		}
		take_line(j, buf, (size_t)p.pos, 1);
	}
	return jsonrpc_leave(j);
}

void
jsonrpc_pause(struct jsonrpc *j, int on)
{
	j->paused = on != 0;
}

int
jsonrpc_paused(const struct jsonrpc *j)
{
	return j->paused;
}

int
jsonrpc_input(struct jsonrpc *j, struct evbuffer *buf)
{
	return input(j, buf, 0);
}

int
jsonrpc_input_eof(struct jsonrpc *j, struct evbuffer *buf)
{
	return input(j, buf, 1);
}

int
jsonrpc_feed(struct jsonrpc *j, const void *data, size_t len)
{
	if (j->own == NULL && (j->own = evbuffer_new()) == NULL)
		return -1;
	evbuffer_add(j->own, data, len);
	return input(j, j->own, 0);
}

/*
 * fuzz_jsonrpc.c: fuzz target for what an agent writes on its stdout:
 * JSON-RPC framing, dispatch of requests and notifications, and replies
 * matched to our outstanding calls. The input is fed in two chunks so a
 * frame can be cut anywhere. Invariants: no memory error or leak, every
 * frame we write is one line of valid UTF-8 (the agent's ids come back in
 * our answers), a reply callback gets exactly one of result and error
 * (SEC-4), and acp_utf8_scrub() of the input is valid UTF-8 and leaves
 * valid input alone.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "acp/acp.h"
#include "acp/jsonrpc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
on_request(struct jsonrpc *j, const char *method, const cJSON *params,
    const cJSON *id, void *arg)
{
	(void)params;
	(void)arg;
	/* Answer some requests, leave the rest to the -32601 path. */
	if (strlen(method) % 2 == 0)
		return -1;
	jsonrpc_respond(j, id, cJSON_CreateObject());
	return 0;
}

static void
on_notify(struct jsonrpc *j, const char *method, const cJSON *params,
    void *arg)
{
	(void)j;
	(void)method;
	(void)params;
	(void)arg;
}

static void
on_write(const char *buf, size_t len, void *arg)
{
	char *out;
	size_t olen;

	(void)arg;
	if (len == 0 || memchr(buf, '\n', len) != buf + len - 1)
		abort();
	if (acp_utf8_scrub(buf, len, &out, &olen) != 0)
		abort();
}

static void
check_scrub(const uint8_t *data, size_t size)
{
	char *out, *again;
	size_t olen, alen;
	int r;

	if ((r = acp_utf8_scrub((const char *)data, size, &out, &olen)) < 0)
		abort();
	if (r == 0)
		return;
	/* Each bad subpart (1 to 3 bytes) became three; the result is valid. */
	if (olen < size || olen > size + 2 * (size_t)r ||
	    acp_utf8_scrub(out, olen, &again, &alen) != 0)
		abort();
	free(out);
}

static void
on_fatal(struct jsonrpc *j, const char *why, void *arg)
{
	(void)j;
	(void)why;
	(void)arg;
}

static void
on_reply(struct jsonrpc *j, const cJSON *result,
    const struct jsonrpc_error *err, void *arg)
{
	(void)j;
	(void)arg;
	if ((result == NULL) == (err == NULL))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct jsonrpc_handlers h = {
		on_request, on_notify, on_write, on_fatal
	};
	static struct event_base *base;
	struct jsonrpc *j;
	size_t half = size / 2;
	int i;

	check_scrub(data, size);
	if (base == NULL && (base = event_base_new()) == NULL)
		abort();
	if ((j = jsonrpc_new(base, &h, NULL)) == NULL)
		abort();
	jsonrpc_set_limits(j, 4096, 4);
	/* Ids 0, 1 and 2 outstanding, for replies to find. */
	for (i = 0; i < 3; i++)
		jsonrpc_call(j, "session/prompt", cJSON_CreateObject(), 0,
		    on_reply, NULL);
	if (jsonrpc_feed(j, data, half) == 0)
		jsonrpc_feed(j, data + half, size - half);
	jsonrpc_close(j, JSONRPC_CLOSED, "end of input");
	jsonrpc_free(j);
	return 0;
}

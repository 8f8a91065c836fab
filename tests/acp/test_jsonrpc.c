/*
 * test_jsonrpc.c: the framer and demultiplexer of acp/jsonrpc.c: split
 * reads, huge and oversized frames, garbage, overlapping ids, timeouts,
 * pausing (the backpressure of acp_agent_hold()), the UTF-8 of what is
 * written (acp/json.c), and the answers built for other transports (MCP).
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "acp/acp.h"
#include "acp/jsonrpc.h"
#include "tests/unit/tap.h"

static struct event_base *base;
static int nreq, nnote, nfatal, nreply, nwrites;
static char last_method[64], last_note[64], last_written[4096];
static size_t last_note_len;
static int reply_code;
static char reply_text[64];
static int free_in_reply;
static const char *pause_at;	/* the notification that pauses */

static int
on_request(struct jsonrpc *j, const char *method, const cJSON *params,
    const cJSON *id, void *arg)
{
	(void)params;
	(void)arg;
	nreq++;
	strlcpy(last_method, method, sizeof(last_method));
	if (strcmp(method, "session/request_permission") == 0) {
		jsonrpc_respond(j, id, cJSON_CreateObject());
		return 0;
	}
	return -1;
}

static void
on_notify(struct jsonrpc *j, const char *method, const cJSON *params,
    void *arg)
{
	const cJSON *t;

	(void)arg;
	nnote++;
	strlcpy(last_note, method, sizeof(last_note));
	if (pause_at != NULL && strcmp(method, pause_at) == 0)
		jsonrpc_pause(j, 1);
	t = cJSON_GetObjectItemCaseSensitive(params, "text");
	last_note_len = cJSON_IsString(t) ? strlen(t->valuestring) : 0;
}

static void
on_write(const char *buf, size_t len, void *arg)
{
	(void)arg;
	nwrites++;
	if (len >= sizeof(last_written))
		len = sizeof(last_written) - 1;
	memcpy(last_written, buf, len);
	last_written[len] = '\0';
}

static void
on_fatal(struct jsonrpc *j, const char *why, void *arg)
{
	(void)j;
	(void)why;
	(void)arg;
	nfatal++;
}

static const struct jsonrpc_handlers h = { on_request, on_notify, on_write,
    on_fatal };

static void
on_reply(struct jsonrpc *j, const cJSON *res, const struct jsonrpc_error *err,
    void *arg)
{
	const cJSON *v;

	(void)arg;
	nreply++;
	reply_code = err != NULL ? err->code : 0;
	reply_text[0] = '\0';
	if (res != NULL && (v = cJSON_GetObjectItemCaseSensitive(res, "v")) &&
	    cJSON_IsString(v))
		strlcpy(reply_text, v->valuestring, sizeof(reply_text));
	if (free_in_reply)
		jsonrpc_free(j);	/* must be deferred safely */
}

static void
reset(void)
{
	nreq = nnote = nfatal = nreply = nwrites = 0;
	last_method[0] = last_note[0] = last_written[0] = '\0';
	reply_code = 0;
	free_in_reply = 0;
}

static void
feed_str(struct jsonrpc *j, const char *s)
{
	jsonrpc_feed(j, s, strlen(s));
}

static void
test_split(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	const char *m = "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\","
	    "\"params\":{\"text\":\"hello\"}}\n";
	size_t i;

	reset();
	for (i = 0; m[i] != '\0'; i++) {
		jsonrpc_feed(j, m + i, 1);
		if (m[i + 1] != '\0' && nnote != 0)
			break;
	}
	is_int(nnote, 1, "split: one byte at a time gives one message");
	is_str(last_note, "session/update", "split: method");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":"
	    "\"2.0\",\"method\":\"b\"}\n{\"jsonrpc\":\"2.0\",");
	is_int(nnote, 3, "split: two messages in one read");
	is_str(last_note, "b", "split: in order");
	feed_str(j, "\"method\":\"c\"}\r\n\n   \n");
	is_int(nnote, 4, "split: rest of a line, CRLF, blank lines");
	is_int(jsonrpc_bad_lines(j), 0, "split: blank lines are not bad");
	jsonrpc_free(j);
}

static void
test_huge(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	size_t big = 5u * 1024 * 1024, off, n;
	char *m;
	int len;

	reset();
	m = malloc(big + 200);
	len = snprintf(m, 200, "{\"jsonrpc\":\"2.0\",\"method\":\"big\","
	    "\"params\":{\"text\":\"");
	memset(m + len, 'x', big);
	strcpy(m + len + big, "\"}}\n");
	n = strlen(m);
	for (off = 0; off < n; off += 65536)
		jsonrpc_feed(j, m + off, n - off < 65536 ? n - off : 65536);
	is_int(nnote, 1, "huge: a 5 MiB frame in 64 KiB reads");
	is_int(last_note_len, big, "huge: content intact");

	/* Over the cap: skipped, counted, and the next line still works. */
	jsonrpc_set_limits(j, 1024, 0);
	for (off = 0; off < n; off += 65536)
		jsonrpc_feed(j, m + off, n - off < 65536 ? n - off : 65536);
	is_int(nnote, 1, "cap: oversized frame in pieces skipped");
	is_int(jsonrpc_bad_lines(j), 1, "cap: counted once");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"method\":\"after\"}\n");
	is_int(nnote, 2, "cap: next frame dispatched");
	is_str(last_note, "after", "cap: next frame is the right one");
	m[2000] = '\0';
	strcat(m, "\n{\"jsonrpc\":\"2.0\",\"method\":\"again\"}\n");
	feed_str(j, m);
	is_int(nnote, 3, "cap: oversized line and a good one in one read");
	is_int(jsonrpc_bad_lines(j), 2, "cap: counted");
	free(m);
	jsonrpc_free(j);
}

static void
test_garbage(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	int i;

	reset();
	feed_str(j, "Welcome to my agent v1.0!\n\x1b[31mred\x1b[0m\n42\n"
	    "{\"broken\":\n");
	is_int(jsonrpc_bad_lines(j), 4, "garbage: four bad lines skipped");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n");
	is_int(nnote, 1, "garbage: a good line after them works");
	feed_str(j, "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]\n");
	ok(strstr(last_written, "-32600") != NULL &&
	    strstr(last_written, "\"id\":null") != NULL,
	    "garbage: a batch is answered -32600 with id null");
	is_int(nfatal, 0, "garbage: not fatal yet");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n");
	jsonrpc_set_limits(j, 0, 5);
	for (i = 0; i < 4; i++)
		feed_str(j, "noise\n");
	is_int(nfatal, 0, "garbage: below the limit in a row");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n");
	for (i = 0; i < 4; i++)
		feed_str(j, "noise\n");
	is_int(nfatal, 0, "garbage: a good line resets the count");
	is_int(jsonrpc_feed(j, "noise\n", 6), -1,
	    "garbage: the limit in a row is fatal");
	is_int(nfatal, 1, "garbage: fatal reported once");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"method\":\"late\"}\n");
	is_int(nnote, 3, "garbage: nothing dispatched after fatal");
	jsonrpc_free(j);
}

static void
test_demux(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	int64_t id0, id1;

	reset();
	id0 = jsonrpc_call(j, "initialize", cJSON_CreateObject(), 0,
	    on_reply, NULL);
	is_int(id0, 0, "demux: our first id is 0");
	ok(strstr(last_written, "\"id\":0") != NULL &&
	    last_written[strlen(last_written) - 1] == '\n',
	    "demux: request written as one line");
	/* The agent's own request 0 is not our answer. */
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":"
	    "\"session/request_permission\",\"params\":{}}\n");
	is_int(nreq, 1, "demux: peer request with our id 0 is a request");
	is_int(nreply, 0, "demux: and not an answer");
	ok(strstr(last_written, "\"result\":{}") != NULL,
	    "demux: handler answered it");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"v\":\"i\"}}\n");
	is_int(nreply, 1, "demux: then the answer to ours");
	is_str(reply_text, "i", "demux: with its result");
	is_int(jsonrpc_outstanding(j), 0, "demux: nothing outstanding");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n");
	is_int(nreply, 1, "demux: a second answer is dropped");

	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":"
	    "\"fs/read_text_file\",\"params\":{}}\n");
	ok(strstr(last_written, "-32601") != NULL &&
	    strstr(last_written, "\"id\":\"abc\"") != NULL,
	    "demux: unsupported request answered -32601, string id kept");

	id1 = jsonrpc_call(j, "session/new", NULL, 0, on_reply, NULL);
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"error\":{\"code\":"
	    "-32000,\"message\":\"Authentication required\"}}\n");
	is_int(id1, 1, "demux: ids count up");
	is_int(reply_code, -32000, "demux: error answer with a string id");
	jsonrpc_call(j, "session/load", NULL, 0, on_reply, NULL);
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}\n");
	is_int(nreply, 3, "demux: result null is an answer");
	is_int(reply_code, 0, "demux: and not an error");

	jsonrpc_notify(j, "session/cancel", cJSON_CreateString("a\nb"));
	ok(strchr(last_written, '\n') == last_written +
	    strlen(last_written) - 1, "demux: no raw LF inside a frame");
	jsonrpc_free(j);
}

static void
test_timeout_close(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	struct timeval tv = { 0, 200000 };

	reset();
	jsonrpc_call(j, "slow", NULL, 50, on_reply, NULL);
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	is_int(nreply, 1, "timeout: callback ran");
	is_int(reply_code, JSONRPC_TIMEOUT, "timeout: with the local code");
	feed_str(j, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n");
	is_int(nreply, 1, "timeout: the late answer is dropped");

	{
		static int owner;	/* two requests made for it */

		jsonrpc_call(j, "a", NULL, 0, on_reply, NULL);
		jsonrpc_call(j, "b", NULL, 0, on_reply, &owner);
		jsonrpc_call(j, "c", NULL, 0, on_reply, &owner);
		jsonrpc_forget_arg(j, &owner);
	}
	jsonrpc_close(j, JSONRPC_CLOSED, "gone");
	is_int(nreply, 2, "close: outstanding requests fail, forgotten ones "
	    "silently");
	is_int(reply_code, JSONRPC_CLOSED, "close: with the close code");
	is_int(jsonrpc_call(j, "d", NULL, 0, on_reply, NULL), -1,
	    "close: no new requests");
	jsonrpc_free(j);

	/* Freed from inside its own callback: deferred, no crash. */
	j = jsonrpc_new(base, &h, NULL);
	reset();
	free_in_reply = 1;
	jsonrpc_call(j, "x", NULL, 0, on_reply, NULL);
	jsonrpc_call(j, "y", NULL, 0, on_reply, NULL);
	{
		static const char two[] = "{\"jsonrpc\":\"2.0\",\"id\":0,"
		    "\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,"
		    "\"result\":{}}\n";

		is_int(jsonrpc_feed(j, two, sizeof(two) - 1), -1,
		    "free in callback: input stops");
	}
	is_int(nreply, 1, "free in callback: no callback after the free");
}

static void
test_eof(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	struct evbuffer *b = evbuffer_new();

	reset();
	evbuffer_add_printf(b, "{\"jsonrpc\":\"2.0\",\"method\":\"last\"}");
	jsonrpc_input(j, b);
	is_int(nnote, 0, "eof: no newline, no frame yet");
	jsonrpc_input_eof(j, b);
	is_int(nnote, 1, "eof: the last line counts at EOF");
	evbuffer_free(b);
	jsonrpc_free(j);
}

#define NOTE(m)	"{\"jsonrpc\":\"2.0\",\"method\":\"" m "\"}\n"

static void
test_pause(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	struct evbuffer *b = evbuffer_new();

	reset();
	pause_at = "b";
	evbuffer_add_printf(b, "%s%s%s%s", NOTE("a"), NOTE("b"), NOTE("c"),
	    "{\"jsonrpc\":\"2.0\",");
	jsonrpc_input(j, b);
	is_int(nnote, 2, "pause: asked for in a dispatch, after that frame");
	is_str(last_note, "b", "pause: the frame that asked was whole");
	ok(jsonrpc_paused(j), "pause: paused");
	evbuffer_add_printf(b, "\"method\":\"d\"}\n");
	jsonrpc_input(j, b);
	jsonrpc_input_eof(j, b);
	is_int(nnote, 2, "pause: nothing dispatched while paused, EOF neither");
	pause_at = NULL;
	jsonrpc_pause(j, 0);
	ok(!jsonrpc_paused(j), "pause: allowed again");
	jsonrpc_input(j, b);
	is_int(nnote, 4, "pause: then the rest");
	is_str(last_note, "d", "pause: in order");
	is_int(jsonrpc_bad_lines(j), 0, "pause: no frame cut");
	is_int((int)evbuffer_get_length(b), 0, "pause: nothing left behind");

	/* A request's timeout waits while paused, and comes after. */
	{
		struct timeval tv = { 0, 300000 }, tv2 = { 1, 200000 };

		jsonrpc_pause(j, 1);
		jsonrpc_call(j, "slow", NULL, 50, on_reply, NULL);
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		is_int(nreply, 0, "pause: no timeout while paused");
		jsonrpc_pause(j, 0);
		event_base_loopexit(base, &tv2);
		event_base_dispatch(base);
		is_int(nreply, 1, "pause: the timeout once allowed again");
		is_int(reply_code, JSONRPC_TIMEOUT, "pause: as a timeout");
	}
	evbuffer_free(b);
	jsonrpc_free(j);
}

/* Valid UTF-8 only on the wire; U+FFFD per maximal invalid subpart. */
static void
test_utf8(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain ascii", NULL },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf", NULL },
		{ "caf\xe9", "caf\xef\xbf\xbd" },		/* Latin-1 */
		{ "\xff\xfe" "a", "\xef\xbf\xbd\xef\xbf\xbd" "a" },
		{ "\xe2\x82", "\xef\xbf\xbd" },			/* cut at the end */
		{ "\xe2\x82" "a", "\xef\xbf\xbd" "a" },		/* cut mid-text */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },	/* overlong '/' */
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		    "\xef\xbf\xbd" },				/* > U+10FFFF */
		{ "\xf0\x9f\x98", "\xef\xbf\xbd" },		/* 3 of 4 */
		{ "\x80x", "\xef\xbf\xbdx" },			/* lone continuation */
	};
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	cJSON *p;
	size_t i, olen;
	char *out, name[64];
	int r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = NULL;
		r = acp_utf8_scrub(cases[i].in, strlen(cases[i].in), &out,
		    &olen);
		if (cases[i].out == NULL) {
			snprintf(name, sizeof(name), "utf8: case %zu is valid, "
			    "left alone", i);
			is_int(r, 0, name);
			continue;
		}
		snprintf(name, sizeof(name), "utf8: case %zu replaced by "
		    "maximal subparts", i);
		ok(r > 0 && out != NULL && olen == strlen(cases[i].out) &&
		    memcmp(out, cases[i].out, olen) == 0, name);
		free(out);
	}

	/* An IRC line in Latin-1 goes out to the agent as valid UTF-8. */
	reset();
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "text", "na\xefve caf\xe9");
	jsonrpc_notify(j, "session/prompt", p);
	is_int(nwrites, 1, "utf8: one frame written");
	ok(strstr(last_written, "\"na\xef\xbf\xbdve caf\xef\xbf\xbd\"") !=
	    NULL, "utf8: its text carries U+FFFD for each bad byte");
	r = acp_utf8_scrub(last_written, strlen(last_written), &out, &olen);
	is_int(r, 0, "utf8: the whole frame is valid UTF-8");
	ok(last_written[strlen(last_written) - 1] == '\n',
	    "utf8: the frame still ends in LF");
	jsonrpc_free(j);
}

/* The answers the MCP server sends, byte for byte; and ours the same. */
static void
test_build(void)
{
	struct jsonrpc *j = jsonrpc_new(base, &h, NULL);
	cJSON *id = cJSON_CreateNumber(7), *sid = cJSON_CreateString("a"), *m;
	cJSON *r = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(r, "k", "v");
	m = jsonrpc_build_result(id, r);
	s = acp_json_print(m, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"k\":\"v\"}}",
	    "build: a result");
	reset();
	jsonrpc_respond(j, id, cJSON_Duplicate(r, 1));
	ok(strlen(last_written) == strlen(s) + 1 &&
	    strncmp(last_written, s, strlen(s)) == 0,
	    "build: jsonrpc_respond() writes the same, and a LF");
	free(s);
	cJSON_Delete(m);

	m = jsonrpc_build_result(sid, NULL);
	s = acp_json_print(m, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":null}",
	    "build: a null result, a string id");
	free(s);
	cJSON_Delete(m);

	m = jsonrpc_build_error(NULL, JSONRPC_PARSE_ERROR, "Parse error");
	s = acp_json_print(m, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
	    "{\"code\":-32700,\"message\":\"Parse error\"}}",
	    "build: an error without an id");
	free(s);
	cJSON_Delete(m);

	m = jsonrpc_build_error(id, JSONRPC_INVALID_PARAMS, "Unknown tool");
	s = acp_json_print(m, NULL);
	is_str(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":"
	    "{\"code\":-32602,\"message\":\"Unknown tool\"}}",
	    "build: an error");
	reset();
	jsonrpc_respond_error(j, id, JSONRPC_INVALID_PARAMS, "Unknown tool");
	ok(strlen(last_written) == strlen(s) + 1 &&
	    strncmp(last_written, s, strlen(s)) == 0,
	    "build: jsonrpc_respond_error() writes the same, and a LF");
	free(s);
	cJSON_Delete(m);
	cJSON_Delete(id);
	cJSON_Delete(sid);
	jsonrpc_free(j);
}

int
main(void)
{
	{
		/* An escaped NUL would cut a cJSON string short: it becomes U+FFFD. */
		char a[] = "{\"t\":\"nul\\u0000QUIT\"}";
		char b[] = "{\"t\":\"x\\\\u0000\"}";
		char c[] = "\\u000";

		jsonrpc_unnul(a, strlen(a));
		is_str(a, "{\"t\":\"nul\\ufffdQUIT\"}", "unnul: escaped NUL replaced");
		jsonrpc_unnul(b, strlen(b));
		is_str(b, "{\"t\":\"x\\\\u0000\"}", "unnul: an escaped backslash is no escape");
		jsonrpc_unnul(c, strlen(c));
		is_str(c, "\\u000", "unnul: a cut escape is left alone");
	}
	acp_log_set(NULL, NULL, ACP_LOG_ERROR);
	base = event_base_new();
	test_split();
	test_huge();
	test_garbage();
	test_demux();
	test_timeout_close();
	test_eof();
	test_pause();
	test_utf8();
	test_build();
	event_base_free(base);
	return tap_done();
}

/*
 * mcp.c: the MCP tool server. The daemon listens on a Unix socket in a
 * private directory (0700); each connection starts with the session's
 * token, then carries MCP (JSON-RPC, one message per line). Tools are
 * rows of one table, so adding one is adding a row. A call acts only as
 * the agent and conversation its token was made for (SEC-3).
 */
#include "compat.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <cjson/cJSON.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "acp/acp.h"
#include "acp/jsonrpc.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/mcp.h"
#include "ircd/bridge/mcp-proto.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/task.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/log.h"
#include "ircd/xmalloc.h"

#define MCP_MAXLINE	(1024 * 1024)
#define MCP_MAXOUT	(4 * 1024 * 1024)	/* answers the client has not read */
/*
 * SEC-7, M3: the HTTP form's request headers, its seconds of silence,
 * its connections at once, and the seconds a whole request may take
 * (a header dripped every few seconds is never silent).
 */
#define MCP_HTTP_HEADERS_MAX	8192
#define MCP_HTTP_TIMEOUT	15
#define MCP_HTTP_CONNS_MAX	64
#define MCP_HTTP_DEADLINE	20
/* What a connection evhttp let go may still read until the sweep. */
#define MCP_HTTP_LINGER_MAX	(MCP_MAXLINE + MCP_HTTP_HEADERS_MAX)
/* The socket's directory in /tmp: this, the server's pid, a dot, mkdtemp's. */
#define MCP_DIR_PREFIX	"agentircd-mcp."

struct mcp_token {
	TAILQ_ENTRY(mcp_token)	 entry;
	char			 token[33];
	struct conv		*conv;
};

/*
 * A socket connection holds its token, not its conversation: the
 * conversation may go (the agent kicked, the channel gone) while the
 * agent keeps the socket, so each call looks the token up again.
 */
struct mcp_conn {
	struct bufferevent	*bev;
	char			 token[33];	/* "" until the token line */
};

/*
 * An HTTP connection, by the bufferevent we make for evhttp and hold a
 * reference to. libevent 2.1 has no connection limit and tells nobody
 * when it frees a connection; freeing clears the callbacks, and our
 * reference keeps the struct readable until the sweep sees that.
 *
 * The bufferevent owns its descriptor (BEV_OPT_CLOSE_ON_FREE), so evhttp
 * leaves it open and the sweep's last reference closes it. Were evhttp
 * to close it, the bufferevent we keep would still have its events in
 * the loop (evhttp often frees a connection with reading enabled), and
 * the next socket given that number (an IRC client, an MCP bridge) would
 * be read by them, or never polled: that connection stalled, its lines
 * lost. Till the sweep, a freed connection reads at most
 * MCP_HTTP_LINGER_MAX bytes more (nobody drains its buffer).
 */
struct mcp_hconn {
	TAILQ_ENTRY(mcp_hconn)	 entry;
	struct bufferevent	*bev;
	struct event		*deadline;
};

/*
 * MN-7: a tools/call answered later (ask_agent), by the handle its tool
 * took. It names its way back: a socket connection, or an HTTP request
 * whose connection's deadline waits meanwhile. When that goes first
 * (the client closed, the server stops), the call goes with it, and an
 * answer for its handle finds nothing.
 */
struct mcp_pending {
	TAILQ_ENTRY(mcp_pending) entry;
	uint64_t		 id;
	cJSON			*rpcid;		/* the request's JSON-RPC id */
	struct mcp_conn		*mc;		/* socket form, or NULL */
	struct evhttp_request	*req;		/* HTTP form, or NULL */
	struct event		*watch;		/* HTTP: the client going */
};

/* Where the message mcp_handle works on came from, for mcp_defer. */
struct mcp_from {
	struct mcp_conn		*mc;
	struct evhttp_request	*req;
	const cJSON		*rpcid;
	int			 deferred;	/* the tool took the call */
};

static TAILQ_HEAD(, mcp_pending) pendings =
    TAILQ_HEAD_INITIALIZER(pendings);
static struct mcp_from *calling;	/* set during a tool's call */
static uint64_t pending_next;
static TAILQ_HEAD(, mcp_token) tokens = TAILQ_HEAD_INITIALIZER(tokens);
static TAILQ_HEAD(, mcp_hconn) hconns = TAILQ_HEAD_INITIALIZER(hconns);
static unsigned nhconns;
static struct evconnlistener *listener;
static struct evhttp *http;		/* the HTTP form, on loopback */
static struct evconnlistener *http_lev;	/* its listener */
static struct event *hconn_sweep_ev;
static int http_port;
static char sockdir[64], sockpath[128], exe[4096];

/* ---- tools: one row each ---- */

struct mcp_tool {
	const char	*name;
	const char	*description;
	const char	*schema;	/* JSON Schema of the arguments */
	/* Fill out (text for the model); return 1 for an error result. */
	int		(*call)(struct conv *, const cJSON *args, char *out, size_t len);
};

static const struct mcp_tool mcp_tools[] = {
	{ "schedule",
	  "Schedule a prompt for later: it will be sent to you (this agent) as a "
	  "new message in a conversation, once at a time, every N minutes, or "
	  "both (first at the time, then every N minutes). People in the "
	  "conversation see it as an automated message. Use it for reminders, "
	  "periodic checks or follow-ups. Returns the schedule id (sch_N).",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"name\":{\"type\":\"string\",\"description\":\"A short name people will see\"},"
	  "\"prompt\":{\"type\":\"string\",\"description\":\"The message you will receive\"},"
	  "\"at\":{\"type\":\"string\",\"description\":\"When, as an ISO 8601 UTC time "
	  "(2026-12-02T15:30:00Z), at most a year ahead; default: now plus "
	  "every_minutes\"},"
	  "\"in_seconds\":{\"type\":\"number\",\"description\":\"Or: this many seconds "
	  "from now (at most 31536000, a year)\"},"
	  "\"every_minutes\":{\"type\":\"number\",\"description\":\"Repeat every N minutes; "
	  "omit for once\"},"
	  "\"target\":{\"type\":\"string\",\"description\":\"Another conversation on this "
	  "server, for the person who asked you: a #channel that you and they are "
	  "both in, or their own nick (their private conversation with you); it "
	  "fires only once an operator of that channel, or that person, allows "
	  "it there. Default: this conversation\"}},"
	  "\"required\":[\"name\",\"prompt\"]}",
	  schedule_tool_create },
	{ "unschedule",
	  "Cancel one of your scheduled prompts by its id (sch_N).",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"id\":{\"type\":\"string\",\"description\":\"The schedule id, sch_N\"}},"
	  "\"required\":[\"id\"]}",
	  schedule_tool_delete },
	{ "list_schedules",
	  "List your scheduled prompts made in or aimed at this conversation, "
	  "with their ids, names and next times.",
	  "{\"type\":\"object\",\"properties\":{}}",
	  schedule_tool_list },
	{ "send_to_agent",
	  "Hand a message to another agent and go on at once (fire and "
	  "forget). The text is posted in the conversation as a message from "
	  "you, so people see it, and becomes that agent's next prompt there "
	  "(it is brought into the channel if need be). Use it to pass work "
	  "or information on when you do not need the answer yourself; use "
	  "ask_agent to wait for the answer, delegate_task to have it "
	  "reported back here. Limits: channels only (not a private "
	  "conversation); a chain of hand-offs goes 3 agents deep at most "
	  "(person -> A -> B -> C), never to an agent already in it, and each "
	  "pair of agents at most 10 times a minute; 20 tasks in flight per "
	  "conversation. Returns a task id (task_N) for task_status.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"agent\":{\"type\":\"string\",\"description\":\"The other "
	  "agent's exact nick\"},"
	  "\"text\":{\"type\":\"string\",\"description\":\"The message: "
	  "its prompt\"},"
	  "\"target\":{\"type\":\"string\",\"description\":\"Another "
	  "#channel that you and the person who asked you are both in; it is "
	  "sent only once an operator of that channel allows it there. "
	  "Default: this conversation\"}},"
	  "\"required\":[\"agent\",\"text\"]}",
	  task_tool_send },
	{ "ask_agent",
	  "Ask another agent in this channel a question and wait for its "
	  "answer, which this tool returns. The question is posted here as a "
	  "message from you, so people see it, and the other agent answers "
	  "here as usual. Use it when you need the answer to go on. If it has "
	  "not answered within timeout_seconds, you get a task id instead "
	  "(not an error): call task_status with it later. Same limits as "
	  "send_to_agent.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"agent\":{\"type\":\"string\",\"description\":\"The other "
	  "agent's exact nick\"},"
	  "\"question\":{\"type\":\"string\",\"description\":\"What to ask\"},"
	  "\"timeout_seconds\":{\"type\":\"number\",\"description\":\"How "
	  "long to wait, 1 to 1800 (more is taken as 1800); default 600\"}},"
	  "\"required\":[\"agent\",\"question\"]}",
	  task_tool_ask },
	{ "delegate_task",
	  "Give another agent in this channel a task, tracked by an id "
	  "(task_N), and go on at once. The task is posted here as a message "
	  "from you and becomes the other agent's prompt; when it has "
	  "answered, a notice here reports the result under the task id, and "
	  "task_status returns it. Use it for work whose result you or people "
	  "here will want later. Same limits as send_to_agent.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"agent\":{\"type\":\"string\",\"description\":\"The other "
	  "agent's exact nick\"},"
	  "\"task\":{\"type\":\"string\",\"description\":\"What it should "
	  "do\"}},"
	  "\"required\":[\"agent\",\"task\"]}",
	  task_tool_delegate },
	{ "task_status",
	  "The state of a task made by send_to_agent, ask_agent or "
	  "delegate_task (pending consent, waiting, running, done, failed, "
	  "cancelled, interrupted by a server restart), with its result when "
	  "done. Without an id: the newest tasks made in this conversation.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"id\":{\"type\":\"string\",\"description\":\"The task id, "
	  "task_N; omit to list\"}}}",
	  task_tool_status },
};
#define NTOOLS (sizeof(mcp_tools) / sizeof(mcp_tools[0]))

/* ---- tokens ---- */

static struct mcp_token *
mcp_token_for(struct conv *cv)
{
	struct mcp_token *t;
	unsigned char rnd[16];
	size_t i;

	TAILQ_FOREACH(t, &tokens, entry)
		if (t->conv == cv)
			return t;
	t = xcalloc(1, sizeof(*t));
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		log_fatalx("mcp: no randomness for a token");
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(t->token + i * 2, 3, "%02x", rnd[i]);
	t->conv = cv;
	TAILQ_INSERT_TAIL(&tokens, t, entry);
	return t;
}

void
mcp_forget(struct conv *cv)
{
	struct mcp_token *t, *tt;

	TAILQ_FOREACH_SAFE(t, &tokens, entry, tt) {
		if (t->conv != cv)
			continue;
		TAILQ_REMOVE(&tokens, t, entry);
		free(t);
	}
}

char *
mcp_servers_http_json(struct conv *cv)
{
	cJSON *arr, *srv, *headers, *kv;
	char url[64], auth[64], *json;

	if (http == NULL)
		return NULL;
	arr = cJSON_CreateArray();
	srv = cJSON_CreateObject();
	cJSON_AddStringToObject(srv, "type", "http");
	cJSON_AddStringToObject(srv, "name", "agentircd");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/mcp", http_port);
	cJSON_AddStringToObject(srv, "url", url);
	headers = cJSON_AddArrayToObject(srv, "headers");
	kv = cJSON_CreateObject();
	cJSON_AddStringToObject(kv, "name", "Authorization");
	snprintf(auth, sizeof(auth), "Bearer %s", mcp_token_for(cv)->token);
	cJSON_AddStringToObject(kv, "value", auth);
	cJSON_AddItemToArray(headers, kv);
	cJSON_AddItemToArray(arr, srv);
	json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return json;
}

char *
mcp_servers_json(struct conv *cv)
{
	cJSON *arr, *srv, *args, *env, *kv;
	char *json;

	if (listener == NULL)
		return NULL;
	arr = cJSON_CreateArray();
	srv = cJSON_CreateObject();
	cJSON_AddStringToObject(srv, "name", "agentircd");
	cJSON_AddStringToObject(srv, "command", exe);
	args = cJSON_AddArrayToObject(srv, "args");
	cJSON_AddItemToArray(args, cJSON_CreateString("--mcp-bridge"));
	cJSON_AddItemToArray(args, cJSON_CreateString(sockpath));
	env = cJSON_AddArrayToObject(srv, "env");
	kv = cJSON_CreateObject();
	cJSON_AddStringToObject(kv, "name", "AGENTIRCD_MCP_TOKEN");
	cJSON_AddStringToObject(kv, "value", mcp_token_for(cv)->token);
	cJSON_AddItemToArray(env, kv);
	cJSON_AddItemToArray(arr, srv);
	json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return json;
}

/* ---- the protocol ---- */

static void
mcp_send(struct mcp_conn *mc, cJSON *msg)
{
	size_t len;
	char *s = acp_json_print(msg, &len);	/* valid UTF-8, as MCP wants */

	if (s != NULL) {
		bufferevent_write(mc->bev, s, len);
		bufferevent_write(mc->bev, "\n", 1);
		free(s);
	}
	cJSON_Delete(msg);
}

static cJSON *
mcp_tools_list(void)
{
	cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "tools");
	size_t i;

	for (i = 0; i < NTOOLS; i++) {
		cJSON *t = cJSON_CreateObject();

		cJSON_AddStringToObject(t, "name", mcp_tools[i].name);
		cJSON_AddStringToObject(t, "description", mcp_tools[i].description);
		cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(mcp_tools[i].schema));
		cJSON_AddItemToArray(arr, t);
	}
	return res;
}

/*
 * One MCP message from the session of cv, from where from says: the
 * response, or NULL for none (a notification, or a call a tool answers
 * later: then from->deferred).
 */
static cJSON *
mcp_handle(struct conv *cv, const cJSON *msg, struct mcp_from *from)
{
	const cJSON *id, *args;
	const char *tool;
	cJSON *reply;
	char out[4096];
	size_t i;
	int rc;

	switch (mcp_request(msg, &reply, &id, &tool, &args)) {
	case MCP_REQ_NONE:
		return NULL;
	case MCP_REQ_REPLY:
		return reply;
	case MCP_REQ_TOOLS_LIST:
		return jsonrpc_build_result(id, mcp_tools_list());
	case MCP_REQ_CALL:
		break;
	}
	for (i = 0; i < NTOOLS; i++)
		if (tool != NULL && strcmp(tool, mcp_tools[i].name) == 0)
			break;
	if (i == NTOOLS)
		return jsonrpc_build_error(id, JSONRPC_INVALID_PARAMS,
		    "Unknown tool");
	out[0] = '\0';
	from->rpcid = id;
	calling = from;
	rc = mcp_tools[i].call(cv, args, out, sizeof(out));
	calling = NULL;
	if (rc == MCP_DEFERRED && from->deferred)
		return NULL;
	return mcp_tool_result(id, out, rc != 0);
}

uint64_t
mcp_defer(void)
{
	struct mcp_pending *p;

	if (calling == NULL || calling->deferred)
		return 0;
	p = xcalloc(1, sizeof(*p));
	p->id = ++pending_next;
	p->rpcid = calling->rpcid != NULL ?
	    cJSON_Duplicate(calling->rpcid, 1) : cJSON_CreateNull();
	p->mc = calling->mc;
	p->req = calling->req;
	calling->deferred = 1;
	TAILQ_INSERT_TAIL(&pendings, p, entry);
	return p->id;
}

static void
mcp_pending_free(struct mcp_pending *p)
{
	TAILQ_REMOVE(&pendings, p, entry);
	if (p->watch != NULL)
		event_free(p->watch);
	cJSON_Delete(p->rpcid);
	free(p);
}

/* The socket connection mc goes: its calls go with it. */
static void
mcp_pending_drop_conn(struct mcp_conn *mc)
{
	struct mcp_pending *p, *tp;

	TAILQ_FOREACH_SAFE(p, &pendings, entry, tp)
		if (p->mc == mc) {
			log_info("mcp: a client went away while its tool "
			    "call waited");
			mcp_pending_free(p);
		}
}

static struct mcp_pending *
mcp_pending_find(uint64_t id)
{
	struct mcp_pending *p;

	TAILQ_FOREACH(p, &pendings, entry)
		if (p->id == id)
			return p;
	return NULL;
}

static void	mcp_send(struct mcp_conn *, cJSON *);
static void	mcp_http_reply(struct evhttp_request *, cJSON *);
static void	mcp_http_hold(struct evhttp_request *);
static void	mcp_http_unhold(struct evhttp_request *);

void
mcp_answer(uint64_t id, const char *text, int err)
{
	struct mcp_pending *p;
	struct evhttp_request *req;
	struct mcp_conn *mc;
	cJSON *resp;

	if ((p = mcp_pending_find(id)) == NULL)
		return;		/* its client went away */
	resp = mcp_tool_result(p->rpcid, text, err);
	mc = p->mc;
	req = p->req;
	mcp_pending_free(p);
	if (mc != NULL)
		mcp_send(mc, resp);
	else if (req != NULL) {
		mcp_http_unhold(req);
		mcp_http_reply(req, resp);
	} else
		cJSON_Delete(resp);
}

static struct conv *mcp_token_conv(const char *);

static void
mcp_conn_free(struct mcp_conn *mc)
{
	mcp_pending_drop_conn(mc);
	bufferevent_free(mc->bev);
	free(mc);
}

static void
mcp_read_cb(struct bufferevent *bev, void *arg)
{
	struct mcp_conn *mc = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char *line;
	size_t len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) != NULL) {
		struct conv *cv = mcp_token_conv(mc->token[0] != '\0' ?
		    mc->token : line);

		/* A client that sends and never reads its answers: let it go. */
		if (evbuffer_get_length(bufferevent_get_output(bev)) >
		    MCP_MAXOUT) {
			log_warnx("mcp: the client does not read its answers; "
			    "closing");
			free(line);
			mcp_conn_free(mc);
			return;
		}
		if (cv == NULL) {
			log_warnx("mcp: %s; closing", mc->token[0] != '\0' ?
			    "the connection's conversation is gone" :
			    "a connection with an unknown token");
			free(line);
			mcp_conn_free(mc);
			return;
		}
		if (mc->token[0] == '\0') {
			/* The first line is the token: it names agent and conversation. */
			strlcpy(mc->token, line, sizeof(mc->token));
			free(line);
			continue;
		}
		{
			cJSON *msg = cJSON_ParseWithLength(line, len), *resp;
			struct mcp_from from = { .mc = mc };

			resp = msg == NULL ? jsonrpc_build_error(NULL,
			    JSONRPC_PARSE_ERROR, "Parse error") :
			    mcp_handle(cv, msg, &from);
			if (resp != NULL)
				mcp_send(mc, resp);
			cJSON_Delete(msg);
		}
		free(line);
	}
	if (evbuffer_get_length(in) > MCP_MAXLINE) {
		log_warnx("mcp: a line over the size cap; closing");
		mcp_conn_free(mc);
	}
}

static void
mcp_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		mcp_conn_free(arg);
}

static void
mcp_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct mcp_conn *mc = xcalloc(1, sizeof(*mc));

	(void)l;
	(void)sa;
	(void)salen;
	(void)arg;
	mc->bev = bufferevent_socket_new(ircd.base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(mc->bev, mcp_read_cb, NULL, mcp_event_cb, mc);
	bufferevent_enable(mc->bev, EV_READ | EV_WRITE);
}

static struct conv *
mcp_token_conv(const char *token)
{
	struct mcp_token *t;

	if (token == NULL || strlen(token) != 32)
		return NULL;
	TAILQ_FOREACH(t, &tokens, entry)
		if (CRYPTO_memcmp(t->token, token, 32) == 0)
			return t->conv;
	return NULL;
}

static void
mcp_hconn_arm(struct mcp_hconn *h)
{
	struct timeval tv = { MCP_HTTP_DEADLINE, 0 };

	evtimer_add(h->deadline, &tv);
}

/*
 * Let go of the connections evhttp has freed (their callbacks cleared);
 * below the cap, accept again.
 */
static void
mcp_hconn_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct mcp_hconn *h, *ht;
	bufferevent_data_cb rcb, wcb;
	bufferevent_event_cb ecb;
	void *cbarg;

	(void)fd;
	(void)what;
	(void)arg;
	TAILQ_FOREACH_SAFE(h, &hconns, entry, ht) {
		bufferevent_getcb(h->bev, &rcb, &wcb, &ecb, &cbarg);
		if (rcb != NULL || wcb != NULL || ecb != NULL)
			continue;
		TAILQ_REMOVE(&hconns, h, entry);
		event_free(h->deadline);
		bufferevent_decref(h->bev);
		free(h);
		if (nhconns-- == MCP_HTTP_CONNS_MAX && http_lev != NULL)
			evconnlistener_enable(http_lev);
	}
	if (nhconns == 0 && hconn_sweep_ev != NULL)
		event_del(hconn_sweep_ev);
}

/* A request not whole in time: evhttp drops the connection, as on a timeout. */
static void
mcp_hconn_late(evutil_socket_t fd, short what, void *arg)
{
	struct mcp_hconn *h = arg;

	(void)fd;
	(void)what;
	bufferevent_trigger_event(h->bev, BEV_EVENT_READING | BEV_EVENT_TIMEOUT,
	    0);
}

/*
 * evhttp asks for each accepted connection's bufferevent. At the cap the
 * listener stops accepting: later connections wait in the kernel's
 * backlog, holding none of our descriptors, until one ends.
 */
static struct bufferevent *
mcp_http_bev(struct event_base *base, void *arg)
{
	struct timeval second = { 1, 0 };
	struct bufferevent *bev;
	struct mcp_hconn *h;

	(void)arg;
	mcp_hconn_sweep(-1, 0, NULL);
	if ((bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE)) ==
	    NULL)
		return NULL;
	/*
	 * evhttp drains the input as it parses (headers are capped, a body
	 * moves to the request), so this binds only a connection it freed.
	 */
	bufferevent_setwatermark(bev, EV_READ, 0, MCP_HTTP_LINGER_MAX);
	h = xcalloc(1, sizeof(*h));
	if ((h->deadline = evtimer_new(base, mcp_hconn_late, h)) == NULL) {
		free(h);
		bufferevent_free(bev);
		return NULL;
	}
	if (hconn_sweep_ev == NULL)
		hconn_sweep_ev = event_new(base, -1, EV_PERSIST, mcp_hconn_sweep,
		    NULL);
	if (hconn_sweep_ev != NULL && !event_pending(hconn_sweep_ev,
	    EV_TIMEOUT, NULL))
		event_add(hconn_sweep_ev, &second);
	bufferevent_incref(bev);
	h->bev = bev;
	TAILQ_INSERT_TAIL(&hconns, h, entry);
	mcp_hconn_arm(h);
	if (++nhconns == MCP_HTTP_CONNS_MAX && http_lev != NULL)
		evconnlistener_disable(http_lev);
	return bev;
}

/* A request was answered: the connection's next one has its own time. */
static void
mcp_hconn_done(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev;
	struct mcp_hconn *h;

	if (evcon == NULL ||
	    (bev = evhttp_connection_get_bufferevent(evcon)) == NULL)
		return;
	TAILQ_FOREACH(h, &hconns, entry)
		if (h->bev == bev) {
			mcp_hconn_arm(h);
			return;
		}
}

/* The connection entry of req, or NULL. */
static struct mcp_hconn *
mcp_hconn_of(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev;
	struct mcp_hconn *h;

	if (evcon == NULL ||
	    (bev = evhttp_connection_get_bufferevent(evcon)) == NULL)
		return NULL;
	TAILQ_FOREACH(h, &hconns, entry)
		if (h->bev == bev)
			return h;
	return NULL;
}

/*
 * The client of a held request may have gone. evhttp reads nothing while
 * a request is the user's, so it would not know before the answer; we
 * look at the socket ourselves, without reading it. At its end (or an
 * error) the connection goes, with its request and the call. Bytes from
 * a client that waits are not ours to take: then we stop looking, and
 * the answer still comes, or the wait's end (ask_agent's timeout).
 */
static void
mcp_http_watch(evutil_socket_t fd, short what, void *arg)
{
	struct mcp_pending *p = mcp_pending_find((uint64_t)(uintptr_t)arg);
	struct evhttp_connection *evcon;
	struct evhttp_request *req;
	ssize_t n;
	char c;

	(void)what;
	if (p == NULL)
		return;
	n = recv(fd, &c, 1, MSG_PEEK);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK ||
	    errno == EINTR)) {
		event_add(p->watch, NULL);
		return;
	}
	if (n > 0)
		return;		/* not pending any more: not looked at */
	req = p->req;
	mcp_pending_free(p);
	log_info("mcp: an HTTP client went away while its tool call waited");
	if ((evcon = evhttp_request_get_connection(req)) != NULL)
		evhttp_connection_free(evcon);	/* and req with it */
}

/*
 * MN-7: req waits for a tool's later answer: a wait it is allowed, so
 * neither our deadline nor evhttp's idle timeout may end it; a client
 * that goes meanwhile takes the call with it (mcp_http_watch).
 */
static void
mcp_http_hold(struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct mcp_hconn *h = mcp_hconn_of(req);
	struct mcp_pending *p;

	TAILQ_FOREACH(p, &pendings, entry)
		if (p->req == req)
			break;
	if (h != NULL) {
		evtimer_del(h->deadline);
		bufferevent_set_timeouts(h->bev, NULL, NULL);
	}
	if (evcon != NULL && h != NULL && p != NULL &&
	    (p->watch = event_new(ircd.base, bufferevent_getfd(h->bev),
	    EV_READ, mcp_http_watch, (void *)(uintptr_t)p->id)) != NULL)
		event_add(p->watch, NULL);
}

/* req is answered at last: its connection is timed again. */
static void
mcp_http_unhold(struct evhttp_request *req)
{
	struct timeval tv = { MCP_HTTP_TIMEOUT, 0 };
	struct mcp_hconn *h = mcp_hconn_of(req);

	if (h != NULL) {
		bufferevent_set_timeouts(h->bev, &tv, &tv);
		mcp_hconn_arm(h);
	}
}

/*
 * The Streamable HTTP form (MCP 2025-06-18): one POST per JSON-RPC
 * message, the answer as application/json, 202 for notifications, 405
 * for the server-sent stream we do not offer. Loopback only, a bearer
 * token per session, our own Host only, and browsers' cross-site
 * requests refused by Origin.
 */
static void
mcp_http_cb(struct evhttp_request *req, void *arg)
{
	struct evkeyvalq *hdr = evhttp_request_get_input_headers(req);
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	struct mcp_from from = { .req = NULL };
	struct conv *cv = NULL;
	const char *token;
	cJSON *msg, *resp;
	size_t len;
	char *body;
	int refuse;

	(void)arg;
	mcp_hconn_done(req);
	refuse = mcp_http_admit(evhttp_find_header(hdr, "Host"),
	    evhttp_find_header(hdr, "Origin"),
	    evhttp_find_header(hdr, "Authorization"), http_port, &token);
	if (refuse == 0 && (cv = mcp_token_conv(token)) == NULL)
		refuse = 401;
	if (refuse != 0) {
		evhttp_send_error(req, refuse, refuse == 421 ?
		    "Misdirected Request" : refuse == 403 ? "Forbidden origin" :
		    "Unauthorized");
		return;
	}
	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_POST:
		break;
	case EVHTTP_REQ_DELETE:
		evhttp_send_reply(req, 200, "OK", NULL);
		return;
	default:
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
		    "POST, DELETE");
		evhttp_send_error(req, 405, "Method Not Allowed");
		return;
	}
	len = evbuffer_get_length(in);
	body = xmalloc(len + 1);
	evbuffer_remove(in, body, len);
	body[len] = '\0';
	msg = cJSON_ParseWithLength(body, len);
	free(body);
	from.req = req;
	resp = msg == NULL ? jsonrpc_build_error(NULL, JSONRPC_PARSE_ERROR,
	    "Parse error") : mcp_handle(cv, msg, &from);
	cJSON_Delete(msg);
	if (from.deferred) {
		mcp_http_hold(req);
		return;
	}
	mcp_http_reply(req, resp);
}

/* resp (taken) as req's answer: 202 for none (a notification). */
static void
mcp_http_reply(struct evhttp_request *req, cJSON *resp)
{
	struct evbuffer *out;
	size_t len;
	char *body;

	if (resp == NULL) {
		evhttp_send_reply(req, 202, "Accepted", NULL);
		return;
	}
	body = acp_json_print(resp, &len);	/* valid UTF-8, as MCP wants */
	cJSON_Delete(resp);
	if (body == NULL) {
		evhttp_send_error(req, 500, "Out of memory");
		return;
	}
	out = evbuffer_new();
	evbuffer_add(out, body, len);
	free(body);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	    "application/json");
	evhttp_send_reply(req, 200, "OK", out);
	evbuffer_free(out);
}

static int
mcp_http_start(void)
{
	struct evhttp_bound_socket *bs;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	if ((http = evhttp_new(ircd.base)) == NULL)
		return -1;
	evhttp_set_max_body_size(http, MCP_MAXLINE);
	/* SEC-7, M3: no header without end, no connection idle forever. */
	evhttp_set_max_headers_size(http, MCP_HTTP_HEADERS_MAX);
	evhttp_set_timeout(http, MCP_HTTP_TIMEOUT);
	evhttp_set_bevcb(http, mcp_http_bev, NULL);
	evhttp_set_allowed_methods(http, EVHTTP_REQ_POST | EVHTTP_REQ_GET |
	    EVHTTP_REQ_DELETE);
	evhttp_set_cb(http, "/mcp", mcp_http_cb, NULL);
	if ((bs = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0)) == NULL ||
	    getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&sin,
	    &sl) == -1) {
		log_warn("mcp: cannot listen for HTTP on 127.0.0.1");
		evhttp_free(http);
		http = NULL;
		return -1;
	}
	http_port = ntohs(sin.sin_port);
	http_lev = evhttp_bound_socket_get_listener(bs);
	log_info("MCP tool server over HTTP on 127.0.0.1:%d", http_port);
	return 0;
}

/*
 * I8: a server that crashed left its socket directory behind. Each is
 * named for the process that made it ("agentircd-mcp.<pid>.XXXXXX"): one
 * of ours (our user's, 0700, a directory and no symlink) whose process is
 * gone is removed with its socket.
 */
static void
mcp_sweep(void)
{
	DIR *tmp;
	struct dirent *e;
	struct stat st;
	char *end;
	long pid;
	int dfd;

	if ((tmp = opendir("/tmp")) == NULL)
		return;
	while ((e = readdir(tmp)) != NULL) {
		if (strncmp(e->d_name, MCP_DIR_PREFIX, strlen(MCP_DIR_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(MCP_DIR_PREFIX), &end, 10);
		if (end == e->d_name + strlen(MCP_DIR_PREFIX) || *end != '.' ||
		    pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(tmp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 077) != 0)
			continue;
		if ((dfd = openat(dirfd(tmp), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		(void)unlinkat(dfd, "mcp.sock", 0);
		close(dfd);
		if (unlinkat(dirfd(tmp), e->d_name, AT_REMOVEDIR) == 0)
			log_info("mcp: removed /tmp/%s, left by process %ld, "
			    "which is gone", e->d_name, pid);
	}
	closedir(tmp);
}

int
mcp_init(void)
{
	struct sockaddr_un sun;
	ssize_t n;

	/* Once: a reload adding the first agent calls it again. */
	if (listener != NULL)
		return 0;
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0) {
		log_warn("mcp: cannot find my own binary");
		return -1;
	}
	exe[n] = '\0';
	mcp_sweep();
	snprintf(sockdir, sizeof(sockdir), "/tmp/" MCP_DIR_PREFIX "%ld.XXXXXX",
	    (long)getpid());
	if (mkdtemp(sockdir) == NULL) {
		log_warn("mcp: mkdtemp");
		return -1;
	}
	chmod(sockdir, 0700);
	snprintf(sockpath, sizeof(sockpath), "%s/mcp.sock", sockdir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, sockpath, sizeof(sun.sun_path));
	listener = evconnlistener_new_bind(ircd.base, mcp_accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 64,
	    (struct sockaddr *)&sun, sizeof(sun));
	if (listener == NULL) {
		log_warn("mcp: cannot listen on %s", sockpath);
		rmdir(sockdir);
		return -1;
	}
	chmod(sockpath, 0600);
	log_info("MCP tool server on %s", sockpath);
	/* The HTTP form is a convenience: without it, stdio still serves. */
	(void)mcp_http_start();
	return 0;
}

void
mcp_shutdown(void)
{
	struct mcp_token *t;

	/* Calls still waiting go unanswered; evhttp frees its own requests. */
	while (TAILQ_FIRST(&pendings) != NULL)
		mcp_pending_free(TAILQ_FIRST(&pendings));
	if (http != NULL) {
		http_lev = NULL;	/* freed with http */
		evhttp_free(http);
		http = NULL;
		mcp_hconn_sweep(-1, 0, NULL);
	}
	if (hconn_sweep_ev != NULL) {
		event_free(hconn_sweep_ev);
		hconn_sweep_ev = NULL;
	}
	if (listener != NULL) {
		evconnlistener_free(listener);
		listener = NULL;
		unlink(sockpath);
		rmdir(sockdir);
	}
	while ((t = TAILQ_FIRST(&tokens)) != NULL) {
		TAILQ_REMOVE(&tokens, t, entry);
		free(t);
	}
}

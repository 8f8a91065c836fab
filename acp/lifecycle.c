/*
 * client.c: the ACP v1 client. One acp_agent per configured agent, with
 * at most one process at a time; sessions outlive processes and are
 * resumed (session/load with its replay flagged, session/resume, or new)
 * when a process starts again. Supervision: watchdogs, restart back-off,
 * the broken state, eviction on the pool's request.
 */
#include "compat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "acp/acp.h"
#include "acp/internal.h"
#include "acp/jsonrpc.h"
#include "acp/log.h"
#include "acp/proc.h"

#define ACP_PROTOCOL_VERSION	1
#define MAX_TOOLS		64	/* remembered per session */
#define MAX_EARLY_UPDATES	1024	/* before session/new answers */
#define MAX_EARLY_BYTES		(16u << 20)	/* the same, in bytes */
#define MAX_PERMS_PENDING	16	/* unanswered requests per session */

enum agent_state {
	AG_STOPPED,	/* no process */
	AG_STARTING,	/* waiting for back-off, a slot, or the loop */
	AG_INIT,	/* spawned, initialize sent */
	AG_READY,
	AG_STOPPING,	/* going; finalize() follows */
	AG_BROKEN
};

enum sess_state { S_CLOSED, S_OPENING, S_OPEN };

struct tool {
	TAILQ_ENTRY(tool)	 entry;
	char			*id, *title, *kind, *status, *path, *text;
	char			*raw_input;
};
TAILQ_HEAD(tools, tool);

struct perm {
	TAILQ_ENTRY(perm)	 entry;
	uint64_t		 id;
	cJSON			*rid;	/* the agent's request id */
};
TAILQ_HEAD(perms, perm);

struct cfgset {
	char	*id;
	char	*value;
};

struct early {
	TAILQ_ENTRY(early)	 entry;
	cJSON			*params;
	size_t			 bytes;	/* json_bytes() of params */
};
TAILQ_HEAD(earlies, early);

struct acp_prompt {
	cJSON	*blocks;
};

struct acp_session {
	TAILQ_ENTRY(acp_session) entry;
	struct acp_agent	*a;
	void			*arg;
	char			*id;
	char			*mcp;		/* mcpServers JSON array, or NULL */
	char			*mcp_http;	/* the same for agents that take HTTP */
	enum sess_state		 st;
	enum acp_open_how	 how;
	int			 want_open;
	int			 dead;
	int			 replaying;
	int64_t			 open_rid;
	int			 reapply;	/* answers still awaited */
	struct acp_prompt	*prompt;	/* not sent yet */
	int			 in_turn;
	int64_t			 prompt_rid;
	int			 cancel_sent;
	int			 timed_out;
	struct event		*turn_ev, *cancel_ev, *defer_ev;
	struct acp_mode		*modes;
	size_t			 nmodes;
	char			*mode_cur;
	char			*mode_want;
	struct cfgset		*cfg;
	size_t			 ncfg;
	struct perms		 perms;
	struct tools		 tools;
	size_t			 ntools;
};
TAILQ_HEAD(sessions, acp_session);

struct acp_agent {
	struct acp_pool		*pool;
	struct acp_agent_config	 cfg;
	char			*name, *command, *cwd, *auth_method;
	char			**argv;
	char			**env;
	struct acp_callbacks	 cb;
	void			*arg;
	enum agent_state	 state;
	struct acp_proc		*proc;
	struct jsonrpc		*rpc;
	int			 eof, reaped, status;
	int			 held;		/* acp_agent_hold() */
	int			 eof_held;	/* EOF seen while held */
	int			 stop_requested, evicted;
	char			 abort_reason[256];
	int			 failures;
	long long		 next_start;	/* monotonic ms */
	char			 broken_reason[512];
	int			 can_load, can_resume, can_close;
	cJSON			*auth_methods;
	int			 auth_tried;
	char			 info[128];
	char			 title[128];	/* agentInfo.title, else its name */
	int			 mcp_http;	/* mcpCapabilities.http */
	int			 news;		/* session/new in flight */
	struct earlies		 early;
	int			 nearly;
	size_t			 early_bytes;
	struct sessions		 sessions;
	int			 depth;		/* in a user callback */
	int			 dead;
	struct event		*start_ev, *fin_ev, *gc_ev, *eof_ev, *resume_ev;
};

static struct event_base	*acp_evbase;
static uint64_t			 perm_seq;

static void	agent_want(struct acp_agent *);
static void	agent_abort(struct acp_agent *, const char *);
static void	agent_destroy(struct acp_agent *);
static void	session_do_open(struct acp_session *);
static void	session_open_failed(struct acp_session *, const char *);
static void	session_send_prompt(struct acp_session *);
static void	session_destroy(struct acp_session *);
static void	route_update(struct acp_agent *, const cJSON *);
static void	out_eof(struct evbuffer *, void *);

struct event_base *
acp_base(void)
{
	return acp_evbase;
}

int
acp_init(struct event_base *base)
{
	acp_evbase = base;
	return proc_init(base);
}

void
acp_shutdown(void)
{
	proc_shutdown();
	acp_evbase = NULL;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
timer_ms(struct event *ev, long long ms)
{
	struct timeval tv;

	if (ms < 0)
		ms = 0;
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)((ms % 1000) * 1000);
	evtimer_add(ev, &tv);
}

static char *
xstrdup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

static void
set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

static const char *
jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* User callbacks run with depth raised, so frees inside them wait. */
#define CALL_A(a, fn, ...) do {						\
	if (!(a)->dead && (a)->cb.fn != NULL) {				\
		(a)->depth++;						\
		(a)->cb.fn(__VA_ARGS__);				\
		(a)->depth--;						\
	}								\
} while (0)
#define CALL_S(s, fn, ...) do {						\
	if (!(s)->dead && !(s)->a->dead && (s)->a->cb.fn != NULL) {	\
		(s)->a->depth++;					\
		(s)->a->cb.fn(__VA_ARGS__);				\
		(s)->a->depth--;					\
	}								\
} while (0)

static void
gc_later(struct acp_agent *a)
{
	event_active(a->gc_ev, EV_TIMEOUT, 0);
}

/* ---- configuration ---- */

#define DEF(v, d)	((v) > 0 ? (v) : (d))

struct acp_agent *
acp_agent_new(struct acp_pool *pool, const struct acp_agent_config *cfg,
    const struct acp_callbacks *cb, void *arg);

static void agent_start_cb(evutil_socket_t, short, void *);
static void agent_fin_cb(evutil_socket_t, short, void *);
static void agent_gc_cb(evutil_socket_t, short, void *);
static void agent_eof_cb(evutil_socket_t, short, void *);
static void agent_resume_cb(evutil_socket_t, short, void *);

struct acp_agent *
acp_agent_new(struct acp_pool *pool, const struct acp_agent_config *cfg,
    const struct acp_callbacks *cb, void *arg)
{
	struct acp_agent *a;
	const char *err;
	char buf[4096];
	size_t i, n = 0;

	if (acp_evbase == NULL) {
		acp_error("acp_agent_new before acp_init");
		return NULL;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->pool = pool;
	a->cfg = *cfg;
	a->cb = *cb;
	a->arg = arg;
	TAILQ_INIT(&a->sessions);
	TAILQ_INIT(&a->early);
	a->name = strdup(cfg->name != NULL ? cfg->name : "agent");
	a->command = xstrdup(cfg->command);
	a->auth_method = xstrdup(cfg->auth_method);
	if (cfg->cwd != NULL)
		a->cwd = strdup(cfg->cwd);
	else if (getcwd(buf, sizeof(buf)) != NULL)
		a->cwd = strdup(buf);
	else
		a->cwd = strdup("/");
	a->cfg.max_frame = cfg->max_frame > 0 ? cfg->max_frame :
	    JSONRPC_MAX_FRAME_DEFAULT;
	a->cfg.max_bad_lines = DEF(cfg->max_bad_lines, JSONRPC_MAX_BAD_DEFAULT);
	a->cfg.init_timeout_ms = DEF(cfg->init_timeout_ms, 60000);
	a->cfg.request_timeout_ms = DEF(cfg->request_timeout_ms, 60000);
	a->cfg.turn_timeout_ms = DEF(cfg->turn_timeout_ms, 30 * 60 * 1000);
	a->cfg.cancel_timeout_ms = DEF(cfg->cancel_timeout_ms, 10000);
	a->cfg.grace_ms = DEF(cfg->grace_ms, 2000);
	a->cfg.backoff_ms = DEF(cfg->backoff_ms, 1000);
	a->cfg.backoff_max_ms = DEF(cfg->backoff_max_ms, 60000);
	a->cfg.max_failures = DEF(cfg->max_failures, 5);
	a->cfg.name = a->cfg.command = a->cfg.cwd = NULL;
	a->cfg.auth_method = NULL;
	a->cfg.env = NULL;
	for (i = 0; cfg->env != NULL && cfg->env[i] != NULL; i++)
		n++;
	a->env = calloc(n + 1, sizeof(*a->env));
	for (i = 0; a->env != NULL && i < n; i++)
		a->env[i] = strdup(cfg->env[i]);
	a->start_ev = evtimer_new(acp_evbase, agent_start_cb, a);
	a->fin_ev = evtimer_new(acp_evbase, agent_fin_cb, a);
	a->gc_ev = evtimer_new(acp_evbase, agent_gc_cb, a);
	a->eof_ev = evtimer_new(acp_evbase, agent_eof_cb, a);
	a->resume_ev = evtimer_new(acp_evbase, agent_resume_cb, a);
	if (a->name == NULL || a->cwd == NULL || a->env == NULL ||
	    a->start_ev == NULL || a->fin_ev == NULL || a->gc_ev == NULL ||
	    a->eof_ev == NULL || a->resume_ev == NULL) {
		agent_destroy(a);
		return NULL;
	}
	if (a->command == NULL ||
	    (a->argv = acp_argv_parse(a->command, &err)) == NULL) {
		acp_error("%s: bad command: %s", a->name,
		    a->command == NULL ? "none" : err);
		agent_destroy(a);
		return NULL;
	}
	if (a->cwd[0] != '/') {
		acp_error("%s: cwd must be absolute", a->name);
		agent_destroy(a);
		return NULL;
	}
	return a;
}

const char *
acp_agent_name(struct acp_agent *a)
{
	return a->name;
}

int
acp_agent_running(struct acp_agent *a)
{
	return a->proc != NULL;
}

int
acp_agent_ready(struct acp_agent *a)
{
	return a->state == AG_READY;
}

int
acp_agent_busy(struct acp_agent *a)
{
	struct acp_session *s;

	TAILQ_FOREACH(s, &a->sessions, entry)
		if (!s->dead && s->in_turn)
			return 1;
	return 0;
}

int
acp_agent_broken(struct acp_agent *a)
{
	return a->state == AG_BROKEN;
}

const char *
acp_agent_broken_reason(struct acp_agent *a)
{
	return a->state == AG_BROKEN ? a->broken_reason : NULL;
}

long
acp_agent_pid(struct acp_agent *a)
{
	return a->proc != NULL ? (long)proc_pid(a->proc) : -1;
}

const char *
acp_agent_info(struct acp_agent *a)
{
	return a->info[0] != '\0' ? a->info : NULL;
}

int
acp_session_set_mcp(struct acp_session *s, const char *json,
    const char *http_json)
{
	char *copy = json != NULL ? strdup(json) : NULL;
	char *hcopy = http_json != NULL ? strdup(http_json) : NULL;

	if ((json != NULL && copy == NULL) || (http_json != NULL && hcopy == NULL)) {
		free(copy);
		free(hcopy);
		return -1;
	}
	free(s->mcp);
	free(s->mcp_http);
	s->mcp = copy;
	s->mcp_http = hcopy;
	return 0;
}

int
acp_agent_mcp_http(struct acp_agent *a)
{
	return a->mcp_http;
}

const char *
acp_agent_title(struct acp_agent *a)
{
	return a->title[0] != '\0' ? a->title : NULL;
}

int
acp_agent_can_load(struct acp_agent *a)
{
	return a->can_load;
}

int
acp_agent_can_reopen(struct acp_agent *a)
{
	return a->can_close && (a->can_load || a->can_resume);
}

int
agent_idle(struct acp_agent *a)
{
	struct acp_session *s;

	if (a->state != AG_READY)
		return 0;
	TAILQ_FOREACH(s, &a->sessions, entry)
		if (!s->dead && (s->in_turn || s->want_open ||
		    s->st == S_OPENING))
			return 0;
	return 1;
}

int
agent_stopping(struct acp_agent *a)
{
	return a->state == AG_STOPPING;
}

/* ---- process and protocol plumbing ---- */

static void
rpc_write(const char *buf, size_t len, void *arg)
{
	struct acp_agent *a = arg;

	if (a->proc != NULL)
		proc_write(a->proc, buf, len);
}

static void
rpc_fatal(struct jsonrpc *j, const char *why, void *arg)
{
	(void)j;
	agent_abort(arg, why);
}

static struct acp_session *
session_by_id(struct acp_agent *a, const char *id)
{
	struct acp_session *s;

	if (id == NULL)
		return NULL;
	TAILQ_FOREACH(s, &a->sessions, entry)
		if (!s->dead && s->id != NULL && s->st != S_CLOSED &&
		    strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

static cJSON *
outcome_cancelled(void)
{
	cJSON *r = cJSON_CreateObject(), *o;

	o = cJSON_AddObjectToObject(r, "outcome");
	cJSON_AddStringToObject(o, "outcome", "cancelled");
	return r;
}

static struct tool *
tool_find(struct acp_session *s, const char *id, int create)
{
	struct tool *t;

	TAILQ_FOREACH(t, &s->tools, entry)
		if (strcmp(t->id, id) == 0)
			return t;
	if (!create || (t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if ((t->id = strdup(id)) == NULL) {
		free(t);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&s->tools, t, entry);
	if (++s->ntools > MAX_TOOLS) {
		struct tool *old = TAILQ_FIRST(&s->tools);

		TAILQ_REMOVE(&s->tools, old, entry);
		s->ntools--;
		free(old->id);
		free(old->title);
		free(old->kind);
		free(old->status);
		free(old->path);
		free(old->text);
		free(old->raw_input);
		free(old);
	}
	return t;
}

static void
tools_clear(struct acp_session *s)
{
	struct tool *t;

	while ((t = TAILQ_FIRST(&s->tools)) != NULL) {
		TAILQ_REMOVE(&s->tools, t, entry);
		free(t->id);
		free(t->title);
		free(t->kind);
		free(t->status);
		free(t->path);
		free(t->text);
		free(t->raw_input);
		free(t);
	}
	s->ntools = 0;
}

/* Merge a ToolCall or ToolCallUpdate (only changed fields) into t. */
static void
tool_merge(struct tool *t, const cJSON *u)
{
	const cJSON *c, *it, *inner, *raw;
	const char *v;
	char *txt;

	if ((v = jstr(u, "title")) != NULL)
		set_str(&t->title, v);
	if ((v = jstr(u, "kind")) != NULL)
		set_str(&t->kind, v);
	if ((v = jstr(u, "status")) != NULL)
		set_str(&t->status, v);
	c = cJSON_GetObjectItemCaseSensitive(u, "locations");
	if (cJSON_IsArray(c) && (it = cJSON_GetArrayItem(c, 0)) != NULL &&
	    (v = jstr(it, "path")) != NULL)
		set_str(&t->path, v);
	c = cJSON_GetObjectItemCaseSensitive(u, "content");
	if (cJSON_IsArray(c)) {
		/* content replaces the list: take its first text and diff. */
		set_str(&t->text, NULL);
		cJSON_ArrayForEach(it, c) {
			v = jstr(it, "type");
			if (v == NULL)
				continue;
			if (strcmp(v, "diff") == 0 && jstr(it, "path") != NULL)
				set_str(&t->path, jstr(it, "path"));
			inner = cJSON_GetObjectItemCaseSensitive(it,
			    "content");
			if (strcmp(v, "content") == 0 && t->text == NULL &&
			    inner != NULL && jstr(inner, "text") != NULL)
				set_str(&t->text, jstr(inner, "text"));
		}
	}
	raw = cJSON_GetObjectItemCaseSensitive(u, "rawInput");
	if (raw != NULL && (txt = cJSON_PrintUnformatted(raw)) != NULL) {
		free(t->raw_input);
		t->raw_input = txt;
	}
}

static void
tool_view(struct tool *t, struct acp_tool *v, int update, int replay)
{
	v->id = t->id;
	v->title = t->title != NULL ? t->title : "";
	v->kind = t->kind != NULL ? t->kind : "other";
	v->status = t->status != NULL ? t->status : "pending";
	v->path = t->path;
	v->text = t->text;
	v->raw_input = t->raw_input;
	v->is_update = update;
	v->replay = replay;
}

static enum acp_perm_kind
perm_kind(const char *k)
{
	if (k == NULL)
		return ACP_PERM_OTHER;
	if (strcmp(k, "allow_once") == 0)
		return ACP_PERM_ALLOW_ONCE;
	if (strcmp(k, "allow_always") == 0)
		return ACP_PERM_ALLOW_ALWAYS;
	if (strcmp(k, "reject_once") == 0)
		return ACP_PERM_REJECT_ONCE;
	if (strcmp(k, "reject_always") == 0)
		return ACP_PERM_REJECT_ALWAYS;
	return ACP_PERM_OTHER;
}

static int
req_permission(struct acp_agent *a, const cJSON *params, const cJSON *id)
{
	struct acp_session *s;
	struct acp_permission p;
	struct acp_perm_option *opts = NULL;
	struct acp_tool view;
	struct perm *pe;
	struct tool *t;
	const cJSON *tc, *ol, *o;
	const char *tid;
	size_t n = 0;
	int waiting = 0;

	s = session_by_id(a, jstr(params, "sessionId"));
	/* Unanswered, the turn would hang: refuse what we cannot ask. */
	if (s == NULL || !s->in_turn || s->cancel_sent ||
	    a->cb.on_permission == NULL) {
		acp_info("%s: permission request answered \"cancelled\"",
		    a->name);
		return jsonrpc_respond(a->rpc, id, outcome_cancelled());
	}
	/* Each waits for a person: more than a few is a flood, not a question. */
	TAILQ_FOREACH(pe, &s->perms, entry)
		if (++waiting >= MAX_PERMS_PENDING) {
			acp_warn("%s: over %d permission requests waiting; "
			    "answered \"cancelled\"", a->name, MAX_PERMS_PENDING);
			return jsonrpc_respond(a->rpc, id, outcome_cancelled());
		}
	tc = cJSON_GetObjectItemCaseSensitive(params, "toolCall");
	tid = jstr(tc, "toolCallId");
	t = tool_find(s, tid != NULL ? tid : "", 1);
	ol = cJSON_GetObjectItemCaseSensitive(params, "options");
	if (t == NULL || (pe = calloc(1, sizeof(*pe))) == NULL) {
		jsonrpc_respond(a->rpc, id, outcome_cancelled());
		return 0;
	}
	tool_merge(t, tc);
	pe->id = ++perm_seq;
	pe->rid = cJSON_Duplicate(id, 1);
	TAILQ_INSERT_TAIL(&s->perms, pe, entry);
	if (cJSON_IsArray(ol) && cJSON_GetArraySize(ol) > 0)
		opts = calloc((size_t)cJSON_GetArraySize(ol), sizeof(*opts));
	if (opts != NULL) {
		cJSON_ArrayForEach(o, ol) {
			if (jstr(o, "optionId") == NULL)
				continue;
			opts[n].id = jstr(o, "optionId");
			opts[n].name = jstr(o, "name") != NULL ?
			    jstr(o, "name") : opts[n].id;
			opts[n].kind = perm_kind(jstr(o, "kind"));
			n++;
		}
	}
	tool_view(t, &view, 1, 0);
	p.id = pe->id;
	p.tool = &view;
	p.options = opts;
	p.noptions = n;
	CALL_S(s, on_permission, s, &p, s->arg);
	free(opts);
	return 0;
}

static int
rpc_request(struct jsonrpc *j, const char *method, const cJSON *params,
    const cJSON *id, void *arg)
{
	struct acp_agent *a = arg;

	(void)j;
	if (strcmp(method, "session/request_permission") == 0)
		return req_permission(a, params, id);
	/* fs, terminal, elicitation, _vendor methods: not advertised. */
	acp_debug("%s: unsupported request %s answered -32601", a->name,
	    method);
	return -1;
}

static int
json_ids_equal(const cJSON *x, const cJSON *y)
{
	if (x == NULL || y == NULL)
		return 0;
	if (cJSON_IsNumber(x) && cJSON_IsNumber(y))
		return x->valuedouble == y->valuedouble;
	if (cJSON_IsString(x) && cJSON_IsString(y))
		return strcmp(x->valuestring, y->valuestring) == 0;
	return 0;
}

/* Settle a pending permission: cancelled, or the chosen option. */
static void
perm_settle(struct acp_session *s, struct perm *pe, const char *option,
    int tell)
{
	struct acp_agent *a = s->a;
	cJSON *r, *o;
	uint64_t id = pe->id;

	if (option == NULL)
		r = outcome_cancelled();
	else {
		r = cJSON_CreateObject();
		o = cJSON_AddObjectToObject(r, "outcome");
		cJSON_AddStringToObject(o, "outcome", "selected");
		cJSON_AddStringToObject(o, "optionId", option);
	}
	TAILQ_REMOVE(&s->perms, pe, entry);
	if (a->rpc != NULL)
		jsonrpc_respond(a->rpc, pe->rid, r);
	else
		cJSON_Delete(r);
	cJSON_Delete(pe->rid);
	free(pe);
	if (tell)
		CALL_S(s, on_permission_gone, s, id, s->arg);
}

static void
perms_cancel(struct acp_session *s)
{
	struct perm *pe;

	while ((pe = TAILQ_FIRST(&s->perms)) != NULL)
		perm_settle(s, pe, NULL, 1);
}

static void
rpc_notify(struct jsonrpc *j, const char *method, const cJSON *params,
    void *arg)
{
	struct acp_agent *a = arg;
	struct acp_session *s, *ts;
	struct perm *pe, *tp;
	const cJSON *rid;

	(void)j;
	if (strcmp(method, "session/update") == 0) {
		route_update(a, params);
		return;
	}
	if (strcmp(method, "$/cancel_request") == 0) {
		/* The agent withdraws a request: a permission card. */
		rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
		TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
			TAILQ_FOREACH_SAFE(pe, &s->perms, entry, tp)
				if (json_ids_equal(pe->rid, rid))
					perm_settle(s, pe, NULL, 1);
		return;
	}
	acp_debug("%s: notification %s ignored", a->name, method);
}

/* ---- session/update ---- */

static void
update_text(struct acp_session *s, enum acp_text_kind kind, const cJSON *u)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(u, "content");
	struct acp_text t;
	const char *type = jstr(c, "type"), *txt = jstr(c, "text");

	if (type == NULL || strcmp(type, "text") != 0 || txt == NULL)
		return;		/* images and the like: not text */
	t.kind = kind;
	t.text = txt;
	t.len = strlen(txt);
	t.message_id = jstr(u, "messageId");
	t.replay = s->replaying;
	t.cancelling = s->cancel_sent;
	CALL_S(s, on_text, s, &t, s->arg);
}

static void
update_tool(struct acp_session *s, const cJSON *u, int is_update)
{
	struct acp_tool v;
	struct tool *t;
	const char *id = jstr(u, "toolCallId");

	if (id == NULL || (t = tool_find(s, id, 1)) == NULL)
		return;
	tool_merge(t, u);
	tool_view(t, &v, is_update, s->replaying);
	CALL_S(s, on_tool, s, &v, s->arg);
}

static void
update_plan(struct acp_session *s, const cJSON *u)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(u, "entries"), *e;
	struct acp_plan_entry *pl;
	size_t n = 0;
	int sz = cJSON_GetArraySize(l);

	if (!cJSON_IsArray(l))
		return;
	if ((pl = calloc((size_t)sz + 1, sizeof(*pl))) == NULL)
		return;
	cJSON_ArrayForEach(e, l) {
		if (jstr(e, "content") == NULL)
			continue;
		pl[n].content = jstr(e, "content");
		pl[n].priority = jstr(e, "priority") ? jstr(e, "priority") :
		    "medium";
		pl[n].status = jstr(e, "status") ? jstr(e, "status") :
		    "pending";
		n++;
	}
	CALL_S(s, on_plan, s, pl, n, s->arg);
	free(pl);
}

static void
update_commands(struct acp_session *s, const cJSON *u)
{
	const cJSON *l, *e, *in;
	struct acp_command *c;
	size_t n = 0;
	const char *name;

	l = cJSON_GetObjectItemCaseSensitive(u, "availableCommands");
	if (!cJSON_IsArray(l))
		return;
	if ((c = calloc((size_t)cJSON_GetArraySize(l) + 1, sizeof(*c))) ==
	    NULL)
		return;
	cJSON_ArrayForEach(e, l) {
		if ((name = jstr(e, "name")) == NULL)
			continue;
		if (name[0] == '/')
			name++;		/* leniency: some send "/name" */
		c[n].name = name;
		c[n].description = jstr(e, "description") ?
		    jstr(e, "description") : "";
		in = cJSON_GetObjectItemCaseSensitive(e, "input");
		c[n].hint = jstr(in, "hint");
		n++;
	}
	CALL_S(s, on_commands, s, c, n, s->arg);
	free(c);
}

static void
update_mode(struct acp_session *s, const cJSON *u)
{
	const char *m = jstr(u, "currentModeId");

	if (m == NULL)
		m = jstr(u, "modeId");	/* as the docs page has it */
	if (m == NULL)
		return;
	set_str(&s->mode_cur, m);
	CALL_S(s, on_mode, s, m, s->arg);
}

static void
update_config(struct acp_session *s, const cJSON *opts)
{
	char *txt;

	if (!cJSON_IsArray(opts) || (txt = cJSON_PrintUnformatted(opts)) ==
	    NULL)
		return;
	CALL_S(s, on_config, s, txt, s->arg);
	free(txt);
}

static void
update_session(struct acp_session *s, const cJSON *u)
{
	const char *k = jstr(u, "sessionUpdate");

	if (k == NULL)
		return;
	if (strcmp(k, "agent_message_chunk") == 0)
		update_text(s, ACP_TEXT_AGENT, u);
	else if (strcmp(k, "agent_thought_chunk") == 0)
		update_text(s, ACP_TEXT_THOUGHT, u);
	else if (strcmp(k, "user_message_chunk") == 0)
		update_text(s, ACP_TEXT_USER, u);
	else if (strcmp(k, "tool_call") == 0)
		update_tool(s, u, 0);
	else if (strcmp(k, "tool_call_update") == 0)
		update_tool(s, u, 1);
	else if (strcmp(k, "plan") == 0)
		update_plan(s, u);
	else if (strcmp(k, "available_commands_update") == 0)
		update_commands(s, u);
	else if (strcmp(k, "current_mode_update") == 0)
		update_mode(s, u);
	else if (strcmp(k, "config_option_update") == 0)
		update_config(s,
		    cJSON_GetObjectItemCaseSensitive(u, "configOptions"));
	else if (strcmp(k, "session_info_update") == 0) {
		if (jstr(u, "title") != NULL)
			CALL_S(s, on_title, s, jstr(u, "title"), s->arg);
	}
	/* usage_update, notices, vendor kinds: ignored on purpose. */
}

static void
early_clear(struct acp_agent *a)
{
	struct early *e;

	while ((e = TAILQ_FIRST(&a->early)) != NULL) {
		TAILQ_REMOVE(&a->early, e, entry);
		cJSON_Delete(e->params);
		free(e);
	}
	a->nearly = 0;
	a->early_bytes = 0;
}

/* About what a parsed value takes: its strings, and a little per item. */
static size_t
json_bytes(const cJSON *j)
{
	size_t n = 0;

	for (; j != NULL; j = j->next) {
		n += 16 + (j->string != NULL ? strlen(j->string) : 0);
		if (cJSON_IsString(j) && j->valuestring != NULL)
			n += strlen(j->valuestring);
		n += json_bytes(j->child);
	}
	return n;
}

static void
route_update(struct acp_agent *a, const cJSON *params)
{
	struct acp_session *s;
	struct early *e;
	const char *sid = jstr(params, "sessionId");
	size_t bytes = 0;

	if ((s = session_by_id(a, sid)) != NULL) {
		update_session(s,
		    cJSON_GetObjectItemCaseSensitive(params, "update"));
		return;
	}
	/*
	 * Maybe for a session/new not answered yet: keep it till then, up to
	 * a count and a size (an agent could send any number of them).
	 */
	if (a->news > 0 && sid != NULL && a->nearly < MAX_EARLY_UPDATES &&
	    a->early_bytes + (bytes = json_bytes(params)) <= MAX_EARLY_BYTES &&
	    (e = calloc(1, sizeof(*e))) != NULL) {
		if ((e->params = cJSON_Duplicate(params, 1)) == NULL) {
			free(e);
			return;
		}
		e->bytes = bytes;
		TAILQ_INSERT_TAIL(&a->early, e, entry);
		a->nearly++;
		a->early_bytes += bytes;
		return;
	}
	acp_debug("%s: update for unknown session %s ignored", a->name,
	    sid != NULL ? sid : "(none)");
}

/* ---- agent lifecycle ---- */

static void
out_data(struct evbuffer *buf, void *arg)
{
	struct acp_agent *a = arg;

	if (a->rpc != NULL)
		jsonrpc_input(a->rpc, buf);
}

static void
out_eof(struct evbuffer *buf, void *arg)
{
	struct acp_agent *a = arg;

	if (a->rpc != NULL)
		jsonrpc_input_eof(a->rpc, buf);
	if (a->held) {
		/* The rest of what it said first: acp_agent_hold(a, 0). */
		a->eof_held = 1;
		return;
	}
	a->eof = 1;
	a->state = AG_STOPPING;
	if (a->reaped)
		event_active(a->fin_ev, EV_TIMEOUT, 0);
	else if (a->proc != NULL) {
		/* stdout closed but alive: it is of no use any more. */
		proc_stop(a->proc, a->cfg.grace_ms);
	}
}

static void
proc_exit(int status, void *arg)
{
	struct acp_agent *a = arg;

	a->reaped = 1;
	a->status = status;
	if (a->state != AG_STOPPING)
		a->state = AG_STOPPING;
	if (a->eof)
		event_active(a->fin_ev, EV_TIMEOUT, 0);
	else
		/* The last answers may still sit in the pipe: read them. */
		timer_ms(a->eof_ev, 1000);
}

static void
agent_eof_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_agent *a = arg;

	(void)fd;
	(void)ev;
	/* Held, we do not read: what is in the pipe is still to come. */
	if (a->held || a->eof_held) {
		timer_ms(a->eof_ev, 1000);
		return;
	}
	/* A grandchild keeps stdout open: stop waiting for EOF. */
	event_active(a->fin_ev, EV_TIMEOUT, 0);
}

void
acp_agent_hold(struct acp_agent *a, int on)
{
	if ((on != 0) == a->held)
		return;
	a->held = on != 0;
	if (a->rpc != NULL)
		jsonrpc_pause(a->rpc, on);
	if (a->proc != NULL)
		proc_hold(a->proc, on);
	/* Not from here: the caller may be inside one of our callbacks. */
	if (!on)
		event_active(a->resume_ev, EV_TIMEOUT, 0);
}

static void
agent_resume_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_agent *a = arg;

	(void)fd;
	(void)ev;
	if (a->held || a->proc == NULL)
		return;
	if (a->eof_held) {
		a->eof_held = 0;
		out_eof(proc_stdout(a->proc), a);
	} else if (a->rpc != NULL)
		jsonrpc_input(a->rpc, proc_stdout(a->proc));
}

static long long
backoff_ms(struct acp_agent *a)
{
	long long d = a->cfg.backoff_ms;
	int i;

	for (i = 1; i < a->failures && d < a->cfg.backoff_max_ms; i++)
		d *= 2;
	return d < a->cfg.backoff_max_ms ? d : a->cfg.backoff_max_ms;
}

/* The process is gone (EOF and reaped, or given up on): clean up. */
static void
agent_fin_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_agent *a = arg;
	struct acp_session *s, *ts;
	struct acp_exit ex;
	char why[400], st[128];
	int failed, want = 0;

	(void)fd;
	(void)ev;
	if (a->proc == NULL)
		return;
	event_del(a->eof_ev);
	proc_status_str(a->reaped ? a->status : -1, st, sizeof(st));
	if (a->abort_reason[0] != '\0')
		snprintf(why, sizeof(why), "%s (%s)", a->abort_reason, st);
	else
		snprintf(why, sizeof(why), "%s", st);
	failed = !a->stop_requested || a->abort_reason[0] != '\0';
	acp_log(failed ? ACP_LOG_WARN : ACP_LOG_INFO, "%s: agent %s",
	    a->name, why);
	/* Fail what was outstanding: turns end, opens fail (TN-9). */
	if (a->rpc != NULL) {
		char msg[440];

		snprintf(msg, sizeof(msg), "the agent %s", why);
		jsonrpc_close(a->rpc, JSONRPC_CLOSED, msg);
	}
	TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts) {
		perms_cancel(s);
		if (s->st == S_OPENING)
			session_open_failed(s, why);
		s->st = S_CLOSED;
		s->replaying = 0;
		s->reapply = 0;
		if (!s->dead && (s->want_open || s->prompt != NULL)) {
			s->want_open = 1;	/* reopened on restart */
			want = 1;
		}
	}
	early_clear(a);
	a->news = 0;
	jsonrpc_free(a->rpc);
	a->rpc = NULL;
	proc_free(a->proc);
	a->proc = NULL;
	a->eof = a->reaped = 0;
	/* A hold was on that process; the next one starts free. */
	a->held = a->eof_held = 0;
	if (failed) {
		a->failures++;
		a->next_start = now_ms() + backoff_ms(a);
	}
	memset(&ex, 0, sizeof(ex));
	ex.status = a->status;
	ex.requested = a->stop_requested;
	ex.evicted = a->evicted;
	ex.reason = why;
	if (a->failures >= a->cfg.max_failures) {
		a->state = AG_BROKEN;
		snprintf(a->broken_reason, sizeof(a->broken_reason),
		    "failed %d times in a row, last: %s", a->failures, why);
		acp_error("%s: marked broken: %s", a->name, a->broken_reason);
		ex.broken = 1;
	} else
		a->state = AG_STOPPED;
	a->stop_requested = a->evicted = 0;
	a->abort_reason[0] = '\0';
	a->can_load = a->can_resume = a->can_close = 0;
	cJSON_Delete(a->auth_methods);
	a->auth_methods = NULL;
	a->auth_tried = 0;
	CALL_A(a, on_agent_exit, a, &ex, a->arg);
	if (a->pool != NULL)
		pool_release(a->pool, a);
	if (a->state == AG_BROKEN || (failed && want)) {
		/* TN-9: the turn that saw the failure ends; the next restarts. */
		TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
			if (s->want_open || s->prompt != NULL)
				session_open_failed(s, a->state == AG_BROKEN ?
				    a->broken_reason : why);
	} else if (want && !a->dead)
		agent_want(a);
	if (a->dead && a->depth == 0)
		gc_later(a);
}

static void
agent_abort(struct acp_agent *a, const char *why)
{
	if (a->proc == NULL)
		return;
	if (a->abort_reason[0] == '\0')
		strlcpy(a->abort_reason, why, sizeof(a->abort_reason));
	acp_warn("%s: %s; killing the agent", a->name, why);
	a->state = AG_STOPPING;
	if (a->rpc != NULL)
		jsonrpc_close(a->rpc, JSONRPC_CLOSED, why);
	proc_kill(a->proc);
}

static void
init_reply(struct jsonrpc *j, const cJSON *res, const struct jsonrpc_error *err,
    void *arg)
{
	struct acp_agent *a = arg;
	struct acp_session *s, *ts;
	const cJSON *caps, *sc, *info, *pv;
	char why[256];

	(void)j;
	if (err != NULL) {
		if (err->code != JSONRPC_CLOSED) {
			snprintf(why, sizeof(why), "initialize failed: %s",
			    err->message);
			agent_abort(a, why);
		}
		return;
	}
	pv = cJSON_GetObjectItemCaseSensitive(res, "protocolVersion");
	if (!cJSON_IsNumber(pv) || pv->valueint != ACP_PROTOCOL_VERSION) {
		snprintf(why, sizeof(why), "speaks ACP version %d, not %d",
		    cJSON_IsNumber(pv) ? pv->valueint : -1,
		    ACP_PROTOCOL_VERSION);
		agent_abort(a, why);
		return;
	}
	caps = cJSON_GetObjectItemCaseSensitive(res, "agentCapabilities");
	a->can_load = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(caps,
	    "loadSession"));
	sc = cJSON_GetObjectItemCaseSensitive(caps, "sessionCapabilities");
	/* Object-typed capabilities: present and not null. */
	a->can_resume = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(sc,
	    "resume"));
	a->can_close = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(sc,
	    "close"));
	cJSON_Delete(a->auth_methods);
	a->auth_methods = cJSON_Duplicate(
	    cJSON_GetObjectItemCaseSensitive(res, "authMethods"), 1);
	a->mcp_http = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res,
	    "agentCapabilities"), "mcpCapabilities"), "http"));
	info = cJSON_GetObjectItemCaseSensitive(res, "agentInfo");
	snprintf(a->info, sizeof(a->info), "%s %s",
	    jstr(info, "name") ? jstr(info, "name") : a->name,
	    jstr(info, "version") ? jstr(info, "version") : "");
	snprintf(a->title, sizeof(a->title), "%s", jstr(info, "title") ?
	    jstr(info, "title") : jstr(info, "name") ? jstr(info, "name") : "");
	acp_info("%s: initialized (%s; load %s)", a->name, a->info,
	    a->can_load ? "yes" : "no");
	a->state = AG_READY;
	CALL_A(a, on_ready, a, a->arg);
	TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
		if (!s->dead && s->want_open && a->state == AG_READY)
			session_do_open(s);
}

static void
agent_spawn(struct acp_agent *a)
{
	static const struct acp_proc_cbs cbs = { out_data, out_eof,
	    proc_exit };
	static const struct jsonrpc_handlers h = { rpc_request, rpc_notify,
	    rpc_write, rpc_fatal };
	struct acp_session *s, *ts;
	cJSON *p, *c, *fs, *ci;
	char err[256];

	a->eof = a->reaped = 0;
	a->status = -1;
	a->proc = proc_spawn(acp_evbase, a->name, a->argv, a->cwd,
	    (const char *const *)a->env, &cbs, a, err, sizeof(err));
	if (a->proc == NULL) {
		acp_error("%s: %s", a->name, err);
		a->failures++;
		a->next_start = now_ms() + backoff_ms(a);
		if (a->pool != NULL)
			pool_release(a->pool, a);
		if (a->failures >= a->cfg.max_failures) {
			a->state = AG_BROKEN;
			snprintf(a->broken_reason, sizeof(a->broken_reason),
			    "%s", err);
		} else
			a->state = AG_STOPPED;
		TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
			if (s->want_open || s->prompt != NULL)
				session_open_failed(s, err);
		return;
	}
	if ((a->rpc = jsonrpc_new(acp_evbase, &h, a)) == NULL) {
		agent_abort(a, "out of memory");
		return;
	}
	jsonrpc_set_limits(a->rpc, a->cfg.max_frame, a->cfg.max_bad_lines);
	a->state = AG_INIT;
	/* Headless: no fs, no terminal; we wait for the answer (pitfall 8). */
	p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "protocolVersion", ACP_PROTOCOL_VERSION);
	c = cJSON_AddObjectToObject(p, "clientCapabilities");
	fs = cJSON_AddObjectToObject(c, "fs");
	cJSON_AddFalseToObject(fs, "readTextFile");
	cJSON_AddFalseToObject(fs, "writeTextFile");
	cJSON_AddFalseToObject(c, "terminal");
	ci = cJSON_AddObjectToObject(p, "clientInfo");
	cJSON_AddStringToObject(ci, "name", "agentircd");
	cJSON_AddStringToObject(ci, "version", PACKAGE_VERSION);
	jsonrpc_call(a->rpc, "initialize", p, a->cfg.init_timeout_ms,
	    init_reply, a);
}

static void
agent_start_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_agent *a = arg;
	long long wait;

	(void)fd;
	(void)ev;
	if (a->state != AG_STARTING || a->dead)
		return;
	/* TN-9: restarts back off. */
	if ((wait = a->next_start - now_ms()) > 0) {
		timer_ms(a->start_ev, wait);
		return;
	}
	if (a->pool != NULL && !pool_acquire(a->pool, a))
		return;		/* agent_granted() comes back here */
	agent_spawn(a);
}

void
agent_granted(struct acp_agent *a)
{
	if (a->state == AG_STARTING)
		event_active(a->start_ev, EV_TIMEOUT, 0);
}

/* Someone needs the process: start it (always from the loop, later). */
static void
agent_want(struct acp_agent *a)
{
	if (a->state != AG_STOPPED)
		return;		/* starting, ready, or will restart */
	a->state = AG_STARTING;
	event_active(a->start_ev, EV_TIMEOUT, 0);
}

int
acp_agent_start(struct acp_agent *a)
{
	if (a->state == AG_BROKEN || a->dead)
		return -1;
	agent_want(a);
	return 0;
}

void
agent_evict(struct acp_agent *a)
{
	a->evicted = 1;
	acp_agent_stop(a);
}

void
acp_agent_stop(struct acp_agent *a)
{
	if (a->proc == NULL) {
		if (a->state == AG_STARTING) {
			a->state = AG_STOPPED;
			if (a->pool != NULL)
				pool_release(a->pool, a);
		}
		return;
	}
	a->stop_requested = 1;
	if (a->state != AG_STOPPING)
		acp_info("%s: stopping%s", a->name,
		    a->evicted ? " (evicted)" : "");
	a->state = AG_STOPPING;
	proc_stop(a->proc, a->cfg.grace_ms);
}

void
acp_agent_reset(struct acp_agent *a)
{
	a->failures = 0;
	a->next_start = 0;
	a->broken_reason[0] = '\0';
	if (a->state == AG_BROKEN)
		a->state = AG_STOPPED;
}

static void
agent_destroy(struct acp_agent *a)
{
	struct acp_session *s;

	while ((s = TAILQ_FIRST(&a->sessions)) != NULL)
		session_destroy(s);
	early_clear(a);
	if (a->rpc != NULL)
		jsonrpc_free(a->rpc);
	if (a->proc != NULL)
		proc_free(a->proc);
	if (a->pool != NULL)
		pool_release(a->pool, a);
	if (a->start_ev != NULL)
		event_free(a->start_ev);
	if (a->fin_ev != NULL)
		event_free(a->fin_ev);
	if (a->gc_ev != NULL)
		event_free(a->gc_ev);
	if (a->eof_ev != NULL)
		event_free(a->eof_ev);
	if (a->resume_ev != NULL)
		event_free(a->resume_ev);
	cJSON_Delete(a->auth_methods);
	acp_argv_free(a->argv);
	acp_argv_free(a->env);
	free(a->name);
	free(a->command);
	free(a->cwd);
	free(a->auth_method);
	free(a);
}

static void
agent_gc_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_agent *a = arg;
	struct acp_session *s, *ts;

	(void)fd;
	(void)ev;
	if (a->depth > 0)
		return;
	if (a->dead) {
		agent_destroy(a);
		return;
	}
	TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
		if (s->dead)
			session_destroy(s);
}

void
acp_agent_free(struct acp_agent *a)
{
	if (a == NULL)
		return;
	a->dead = 1;
	if (a->depth > 0) {
		/* Inside one of its callbacks: later, from the loop. */
		if (a->proc != NULL)
			proc_kill(a->proc);
		gc_later(a);
		return;
	}
	agent_destroy(a);
}

/* ---- sessions ---- */

static void session_turn_cb(evutil_socket_t, short, void *);
static void session_cancel_cb(evutil_socket_t, short, void *);
static void session_defer_cb(evutil_socket_t, short, void *);

struct acp_session *
acp_session_new(struct acp_agent *a, const char *id, void *arg)
{
	struct acp_session *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->a = a;
	s->arg = arg;
	s->prompt_rid = s->open_rid = -1;
	TAILQ_INIT(&s->perms);
	TAILQ_INIT(&s->tools);
	s->id = xstrdup(id);
	s->turn_ev = evtimer_new(acp_evbase, session_turn_cb, s);
	s->cancel_ev = evtimer_new(acp_evbase, session_cancel_cb, s);
	s->defer_ev = evtimer_new(acp_evbase, session_defer_cb, s);
	if ((id != NULL && s->id == NULL) || s->turn_ev == NULL ||
	    s->cancel_ev == NULL || s->defer_ev == NULL) {
		TAILQ_INSERT_TAIL(&a->sessions, s, entry);
		session_destroy(s);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&a->sessions, s, entry);
	return s;
}

static void
modes_clear(struct acp_session *s)
{
	size_t i;

	for (i = 0; i < s->nmodes; i++) {
		free((char *)s->modes[i].id);
		free((char *)s->modes[i].name);
		free((char *)s->modes[i].description);
	}
	free(s->modes);
	s->modes = NULL;
	s->nmodes = 0;
}

static void
session_destroy(struct acp_session *s)
{
	struct acp_agent *a = s->a;
	struct perm *pe;
	size_t i;

	TAILQ_REMOVE(&a->sessions, s, entry);
	/* No answer may reach it now: prompt, open, set_mode, options. */
	if (a->rpc != NULL)
		jsonrpc_forget_arg(a->rpc, s);
	while ((pe = TAILQ_FIRST(&s->perms)) != NULL)
		perm_settle(s, pe, NULL, 0);
	tools_clear(s);
	modes_clear(s);
	if (s->turn_ev != NULL)
		event_free(s->turn_ev);
	if (s->cancel_ev != NULL)
		event_free(s->cancel_ev);
	if (s->defer_ev != NULL)
		event_free(s->defer_ev);
	acp_prompt_free(s->prompt);
	for (i = 0; i < s->ncfg; i++) {
		free(s->cfg[i].id);
		free(s->cfg[i].value);
	}
	free(s->cfg);
	free(s->id);
	free(s->mcp);
	free(s->mcp_http);
	free(s->mode_cur);
	free(s->mode_want);
	free(s);
}

void
acp_session_free(struct acp_session *s)
{
	struct acp_agent *a;

	if (s == NULL)
		return;
	a = s->a;
	if (s->st == S_OPEN && a->can_close && a->rpc != NULL &&
	    a->state == AG_READY) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "sessionId", s->id);
		jsonrpc_call(a->rpc, "session/close", p,
		    a->cfg.request_timeout_ms, NULL, NULL);
	} else if (s->in_turn && s->prompt_rid >= 0 && a->rpc != NULL) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "sessionId", s->id);
		jsonrpc_notify(a->rpc, "session/cancel", p);
	}
	/* Answer the agent, forget our requests, then free (maybe later). */
	while (!TAILQ_EMPTY(&s->perms))
		perm_settle(s, TAILQ_FIRST(&s->perms), NULL, 0);
	if (a->rpc != NULL)
		jsonrpc_forget_arg(a->rpc, s);
	if (s->open_rid >= 0 && s->how == ACP_OPEN_NEW && a->news > 0)
		a->news--;
	s->prompt_rid = s->open_rid = -1;
	s->dead = 1;
	s->st = S_CLOSED;
	if (a->depth > 0) {
		gc_later(a);
		return;
	}
	session_destroy(s);
	if (a->pool != NULL)
		pool_check(a->pool);
}

int
acp_session_is_open(struct acp_session *s)
{
	return s->st == S_OPEN;
}

int
acp_session_is_closed(struct acp_session *s)
{
	return s->st == S_CLOSED && !s->want_open && !s->in_turn;
}

const char *
acp_session_id(struct acp_session *s)
{
	return s->id;
}

struct acp_agent *
acp_session_agent(struct acp_session *s)
{
	return s->a;
}

void *
acp_session_arg(struct acp_session *s)
{
	return s->arg;
}

const char *
acp_session_mode(struct acp_session *s)
{
	return s->mode_cur;
}

size_t
acp_session_modes(struct acp_session *s, const struct acp_mode **m)
{
	*m = s->modes;
	return s->nmodes;
}

int
acp_session_in_turn(struct acp_session *s)
{
	return s->in_turn;
}

static void
session_modes(struct acp_session *s, const cJSON *res)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "modes"), *l,
	    *e;
	size_t n = 0;

	if (!cJSON_IsObject(m))
		return;
	modes_clear(s);
	if (jstr(m, "currentModeId") != NULL)
		set_str(&s->mode_cur, jstr(m, "currentModeId"));
	l = cJSON_GetObjectItemCaseSensitive(m, "availableModes");
	if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) == 0 ||
	    (s->modes = calloc((size_t)cJSON_GetArraySize(l),
	    sizeof(*s->modes))) == NULL)
		return;
	cJSON_ArrayForEach(e, l) {
		if (jstr(e, "id") == NULL)
			continue;
		s->modes[n].id = strdup(jstr(e, "id"));
		s->modes[n].name = strdup(jstr(e, "name") ? jstr(e, "name") :
		    jstr(e, "id"));
		s->modes[n].description = xstrdup(jstr(e, "description"));
		n++;
	}
	s->nmodes = n;
}

static void
open_done(struct acp_session *s)
{
	s->st = S_OPEN;
	CALL_S(s, on_open, s, s->how, NULL, s->arg);
	if (!s->dead && s->prompt != NULL && s->st == S_OPEN &&
	    s->a->state == AG_READY)
		session_send_prompt(s);
}

static void
reapply_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;

	(void)j;
	(void)res;
	if (err != NULL)
		acp_warn("%s: re-applying a setting failed: %s", s->a->name,
		    err->message);
	if (s->reapply > 0 && --s->reapply == 0 && s->st == S_OPENING &&
	    (err == NULL || err->code != JSONRPC_CLOSED))
		open_done(s);
}

static int64_t
send_set_mode(struct acp_session *s, const char *mode, jsonrpc_reply_fn *fn)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddStringToObject(p, "modeId", mode);
	return jsonrpc_call(s->a->rpc, "session/set_mode", p,
	    s->a->cfg.request_timeout_ms, fn, s);
}

static void config_reply(struct jsonrpc *, const cJSON *,
    const struct jsonrpc_error *, void *);

static int64_t
send_set_config(struct acp_session *s, const struct cfgset *c,
    jsonrpc_reply_fn *fn)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddStringToObject(p, "configId", c->id);
	if (strcmp(c->value, "true") == 0 || strcmp(c->value, "false") == 0) {
		cJSON_AddStringToObject(p, "type", "boolean");
		cJSON_AddBoolToObject(p, "value", c->value[0] == 't');
	} else
		cJSON_AddStringToObject(p, "value", c->value);
	return jsonrpc_call(s->a->rpc, "session/set_config_option", p,
	    s->a->cfg.request_timeout_ms, fn, s);
}

/* The session is back: apply the chosen mode and options again (SS-4). */
static void
session_reapply(struct acp_session *s)
{
	size_t i;

	s->reapply = 1;		/* held while we send */
	if (s->mode_want != NULL && (s->mode_cur == NULL ||
	    strcmp(s->mode_cur, s->mode_want) != 0) &&
	    send_set_mode(s, s->mode_want, reapply_reply) >= 0)
		s->reapply++;
	for (i = 0; i < s->ncfg; i++)
		if (send_set_config(s, &s->cfg[i], reapply_reply) >= 0)
			s->reapply++;
	if (--s->reapply == 0)
		open_done(s);
}

static int
pick_auth(struct acp_agent *a, const char **idp)
{
	const cJSON *m;
	const char *id, *type;
	size_t i;
	int key = getenv("OPENAI_API_KEY") != NULL ||
	    getenv("ANTHROPIC_API_KEY") != NULL ||
	    getenv("GEMINI_API_KEY") != NULL;

	for (i = 0; a->env[i] != NULL; i++)
		if (strstr(a->env[i], "_API_KEY=") != NULL)
			key = 1;
	cJSON_ArrayForEach(m, a->auth_methods) {
		id = jstr(m, "id");
		type = jstr(m, "type");
		/* Terminal methods run out of band; never "authenticate". */
		if (id == NULL || (type != NULL && strcmp(type, "agent") != 0))
			continue;
		if (a->auth_method != NULL) {
			if (strcmp(id, a->auth_method) == 0) {
				*idp = id;
				return 1;
			}
			continue;
		}
		/* Browser and OAuth methods hang headless: keys only. */
		if (key && (strcasestr(id, "api-key") != NULL ||
		    strcasestr(id, "api_key") != NULL ||
		    strcasestr(id, "apikey") != NULL)) {
			*idp = id;
			return 1;
		}
	}
	return 0;
}

static void
auth_message(struct acp_agent *a, const struct jsonrpc_error *err, char *buf,
    size_t len)
{
	const cJSON *m;
	const char *dm = jstr(err->data, "message");
	char names[200] = "";

	cJSON_ArrayForEach(m, a->auth_methods) {
		if (jstr(m, "name") == NULL)
			continue;
		if (names[0] != '\0')
			strlcat(names, ", ", sizeof(names));
		strlcat(names, jstr(m, "name"), sizeof(names));
	}
	snprintf(buf, len, "%s needs a login: %s%s%s; log in to it on the "
	    "server host%s%s%s", a->name, err->message, dm ? ": " : "",
	    dm ? dm : "", names[0] ? " (methods: " : "", names,
	    names[0] ? ")" : "");
}

static void open_reply(struct jsonrpc *, const cJSON *,
    const struct jsonrpc_error *, void *);

static void
send_open(struct acp_session *s, const char *method)
{
	struct acp_agent *a = s->a;
	cJSON *p = cJSON_CreateObject();

	if (strcmp(method, "session/new") != 0)
		cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddStringToObject(p, "cwd", a->cwd);
	/* Required, even empty (pitfall 16); repeated on load and resume. */
	{
		const char *json = a->mcp_http && s->mcp_http != NULL ? s->mcp_http :
		    s->mcp;
		cJSON *servers = json != NULL ? cJSON_Parse(json) : NULL;

		cJSON_AddItemToObject(p, "mcpServers", servers != NULL &&
		    cJSON_IsArray(servers) ? servers : cJSON_CreateArray());
		if (servers != NULL && !cJSON_IsArray(servers))
			cJSON_Delete(servers);
	}
	s->open_rid = jsonrpc_call(a->rpc, method, p,
	    a->cfg.request_timeout_ms, open_reply, s);
	if (s->open_rid < 0)
		session_open_failed(s, "the agent is gone");
}

static void
auth_reply(struct jsonrpc *j, const cJSON *res, const struct jsonrpc_error *err,
    void *arg)
{
	struct acp_session *s = arg;
	char msg[512];

	(void)j;
	(void)res;
	s->open_rid = -1;
	if (err != NULL) {
		snprintf(msg, sizeof(msg), "%s: authentication failed: %s",
		    s->a->name, err->message);
		session_open_failed(s, msg);
		return;
	}
	s->a->news++;
	send_open(s, "session/new");
}

static void
open_new(struct acp_session *s)
{
	free(s->id);
	s->id = NULL;
	s->how = ACP_OPEN_NEW;
	s->a->news++;
	send_open(s, "session/new");
}

static void
open_reply(struct jsonrpc *j, const cJSON *res, const struct jsonrpc_error *err,
    void *arg)
{
	struct acp_session *s = arg;
	struct acp_agent *a = s->a;
	struct early *e, *te;
	const char *sid, *mid;
	cJSON *p;
	char msg[512];

	(void)j;
	s->open_rid = -1;
	if (s->how == ACP_OPEN_NEW && a->news > 0)
		a->news--;
	s->replaying = 0;
	if (err != NULL) {
		if (err->code == JSONRPC_CLOSED)
			return;		/* agent_fin_cb fails the session */
		if (s->how != ACP_OPEN_NEW) {
			/* The agent lost it: start afresh (SS-4). */
			acp_info("%s: cannot resume session %s (%s), opening "
			    "a new one", a->name, s->id, err->message);
			open_new(s);
			return;
		}
		if (err->code == -32000 || strcasestr(err->message, "auth")) {
			if (!a->auth_tried && pick_auth(a, &mid)) {
				a->auth_tried = 1;
				acp_info("%s: authenticating with %s",
				    a->name, mid);
				p = cJSON_CreateObject();
				cJSON_AddStringToObject(p, "methodId", mid);
				s->open_rid = jsonrpc_call(a->rpc,
				    "authenticate", p,
				    a->cfg.request_timeout_ms, auth_reply, s);
				return;
			}
			auth_message(a, err, msg, sizeof(msg));
		} else
			snprintf(msg, sizeof(msg), "%s: %s%s%s", a->name,
			    err->message, jstr(err->data, "message") ?
			    ": " : "", jstr(err->data, "message") ?
			    jstr(err->data, "message") : "");
		session_open_failed(s, msg);
		if (a->news == 0)
			early_clear(a);
		return;
	}
	if (s->how == ACP_OPEN_NEW) {
		if ((sid = jstr(res, "sessionId")) == NULL) {
			session_open_failed(s, "session/new gave no sessionId");
			return;
		}
		set_str(&s->id, sid);
	}
	session_modes(s, res);
	s->st = S_OPENING;	/* routable from now on */
	if (s->how == ACP_OPEN_NEW) {
		/* Updates that came before the answer (pitfall 7). */
		TAILQ_FOREACH_SAFE(e, &a->early, entry, te) {
			if (strcmp(jstr(e->params, "sessionId"), s->id) != 0)
				continue;
			TAILQ_REMOVE(&a->early, e, entry);
			a->nearly--;
			a->early_bytes -= e->bytes;
			route_update(a, e->params);
			cJSON_Delete(e->params);
			free(e);
		}
		if (a->news == 0)
			early_clear(a);
	}
	update_config(s, cJSON_GetObjectItemCaseSensitive(res,
	    "configOptions"));
	if (s->dead)
		return;
	session_reapply(s);
}

static void
session_do_open(struct acp_session *s)
{
	struct acp_agent *a = s->a;

	s->want_open = 0;
	s->st = S_OPENING;
	s->reapply = 0;
	if (s->id != NULL && a->can_load) {
		s->how = ACP_OPEN_LOADED;
		s->replaying = 1;
		send_open(s, "session/load");
	} else if (s->id != NULL && a->can_resume) {
		s->how = ACP_OPEN_RESUMED;
		send_open(s, "session/resume");
	} else
		open_new(s);
}

static void
session_open_failed(struct acp_session *s, const char *why)
{
	struct acp_agent *a = s->a;
	struct acp_turn_end te;

	s->st = S_CLOSED;
	s->want_open = 0;
	s->replaying = 0;
	CALL_S(s, on_open, s, ACP_OPEN_FAILED, why, s->arg);
	if (s->prompt != NULL && !s->dead) {
		acp_prompt_free(s->prompt);
		s->prompt = NULL;
		s->in_turn = 0;
		evtimer_del(s->turn_ev);
		evtimer_del(s->cancel_ev);
		memset(&te, 0, sizeof(te));
		te.stop = ACP_STOP_ERROR;
		te.error = why;
		te.cancelled = s->cancel_sent;
		CALL_S(s, on_turn_end, s, &te, s->arg);
	}
	/* The agent may be idle now: its slot can serve a waiting agent. */
	if (a->pool != NULL && !a->dead)
		pool_check(a->pool);
}

int
acp_session_open(struct acp_session *s)
{
	struct acp_agent *a = s->a;

	if (s->dead || a->dead || a->state == AG_BROKEN)
		return -1;
	if (s->st != S_CLOSED || s->want_open)
		return 0;
	s->want_open = 1;
	if (a->state == AG_READY)
		session_do_open(s);
	else
		agent_want(a);
	return 0;
}

/* ---- prompts and turns ---- */

struct acp_prompt *
acp_prompt_new(void)
{
	struct acp_prompt *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if ((p->blocks = cJSON_CreateArray()) == NULL) {
		free(p);
		return NULL;
	}
	return p;
}

int
acp_prompt_text(struct acp_prompt *p, const char *text)
{
	cJSON *b = cJSON_CreateObject();

	if (b == NULL)
		return -1;
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(p->blocks, b);
	return 0;
}

int
acp_prompt_link(struct acp_prompt *p, const char *uri, const char *name)
{
	cJSON *b = cJSON_CreateObject();

	if (b == NULL)
		return -1;
	cJSON_AddStringToObject(b, "type", "resource_link");
	cJSON_AddStringToObject(b, "uri", uri);
	cJSON_AddStringToObject(b, "name", name != NULL ? name : uri);
	cJSON_AddItemToArray(p->blocks, b);
	return 0;
}

void
acp_prompt_free(struct acp_prompt *p)
{
	if (p == NULL)
		return;
	cJSON_Delete(p->blocks);
	free(p);
}

static enum acp_stop
stop_parse(const char *r)
{
	if (r == NULL || strcmp(r, "end_turn") == 0)
		return ACP_STOP_END_TURN;
	if (strcmp(r, "max_tokens") == 0)
		return ACP_STOP_MAX_TOKENS;
	if (strcmp(r, "max_turn_requests") == 0)
		return ACP_STOP_MAX_TURN_REQUESTS;
	if (strcmp(r, "refusal") == 0)
		return ACP_STOP_REFUSAL;
	if (strcmp(r, "cancelled") == 0)
		return ACP_STOP_CANCELLED;
	return ACP_STOP_END_TURN;	/* unknown: the turn is over anyway */
}

static void
turn_end(struct acp_session *s, struct acp_turn_end *te)
{
	struct acp_agent *a = s->a;

	s->in_turn = 0;
	s->prompt_rid = -1;
	evtimer_del(s->turn_ev);
	evtimer_del(s->cancel_ev);
	te->cancelled = s->cancel_sent;
	te->timed_out = s->timed_out;
	s->cancel_sent = s->timed_out = 0;
	/* An agent that answered early still holds none of our cards. */
	perms_cancel(s);
	CALL_S(s, on_turn_end, s, te, s->arg);
	if (a->pool != NULL) {
		pool_touch(a->pool, a);
		pool_check(a->pool);
	}
}

static void
prompt_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;
	struct acp_turn_end te;
	char msg[512];
	const char *dm;

	(void)j;
	s->prompt_rid = -1;
	memset(&te, 0, sizeof(te));
	if (err != NULL) {
		dm = jstr(err->data, "message");
		te.code = err->code;
		if (err->code == -32000)
			auth_message(s->a, err, msg, sizeof(msg));
		else
			snprintf(msg, sizeof(msg), "%s%s%s", err->message,
			    dm ? ": " : "", dm ? dm : "");
		te.error = msg;
		/* After a cancel, an error is how some agents say it. */
		te.stop = s->cancel_sent ? ACP_STOP_CANCELLED : ACP_STOP_ERROR;
	} else {
		te.stop_reason = jstr(res, "stopReason");
		te.stop = stop_parse(te.stop_reason);
		s->a->failures = 0;	/* a turn went through: healthy */
	}
	turn_end(s, &te);
}

static void
session_send_prompt(struct acp_session *s)
{
	struct acp_agent *a = s->a;
	struct acp_prompt *pr = s->prompt;
	cJSON *p = cJSON_CreateObject();

	s->prompt = NULL;
	cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddItemToObject(p, "prompt", pr->blocks);
	pr->blocks = NULL;
	acp_prompt_free(pr);
	tools_clear(s);
	/* No request timeout: the turn watchdog covers it (TN-8); it
	 * starts now, as starting the agent has timeouts of its own. */
	timer_ms(s->turn_ev, a->cfg.turn_timeout_ms);
	s->prompt_rid = jsonrpc_call(a->rpc, "session/prompt", p, 0,
	    prompt_reply, s);
	if (s->prompt_rid < 0) {
		struct acp_turn_end te;

		memset(&te, 0, sizeof(te));
		te.stop = ACP_STOP_ERROR;
		te.error = "the agent is gone";
		turn_end(s, &te);
	}
}

int
acp_session_prompt(struct acp_session *s, struct acp_prompt *p)
{
	struct acp_agent *a = s->a;

	if (p == NULL || s->dead || a->dead || s->in_turn ||
	    a->state == AG_BROKEN) {
		acp_prompt_free(p);
		return -1;
	}
	s->prompt = p;
	s->in_turn = 1;
	s->cancel_sent = s->timed_out = 0;
	if (a->pool != NULL)
		pool_touch(a->pool, a);
	if (s->st == S_OPEN && a->state == AG_READY)
		session_send_prompt(s);
	else if (s->st == S_CLOSED && !s->want_open) {
		s->want_open = 1;
		if (a->state == AG_READY)
			session_do_open(s);
		else
			agent_want(a);
	}
	return 0;
}

static void
session_defer_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;
	struct acp_turn_end te;

	(void)fd;
	(void)ev;
	memset(&te, 0, sizeof(te));
	te.stop = ACP_STOP_CANCELLED;
	turn_end(s, &te);
}

int
acp_session_cancel(struct acp_session *s)
{
	struct acp_agent *a = s->a;
	cJSON *p;

	if (!s->in_turn || s->dead)
		return -1;
	if (s->cancel_sent)
		return 0;
	s->cancel_sent = 1;
	if (s->prompt != NULL) {
		/* Not sent yet: nothing to tell the agent. */
		acp_prompt_free(s->prompt);
		s->prompt = NULL;
		event_active(s->defer_ev, EV_TIMEOUT, 0);
		return 0;
	}
	if (a->rpc != NULL && s->prompt_rid >= 0) {
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "sessionId", s->id);
		jsonrpc_notify(a->rpc, "session/cancel", p);
	}
	/* Cancellation duties: every pending card answered "cancelled". */
	perms_cancel(s);
	timer_ms(s->cancel_ev, a->cfg.cancel_timeout_ms);
	return 0;
}

static void
session_turn_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;

	(void)fd;
	(void)ev;
	/* Held, its answer may be waiting for us: we do not blame it. */
	if (s->a->held) {
		timer_ms(s->turn_ev, 1000);
		return;
	}
	acp_warn("%s: turn over the time limit, cancelling", s->a->name);
	s->timed_out = 1;
	acp_session_cancel(s);
}

static void
session_cancel_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;
	char why[128];

	(void)fd;
	(void)ev;
	if (s->a->held) {
		timer_ms(s->cancel_ev, 1000);
		return;
	}
	snprintf(why, sizeof(why), "no answer to session/cancel within %d s",
	    s->a->cfg.cancel_timeout_ms / 1000);
	/* TN-8: a wedged agent is restarted; the turn ends as it dies. */
	agent_abort(s->a, why);
}

int
acp_session_permit(struct acp_session *s, uint64_t id, const char *option)
{
	struct perm *pe;

	TAILQ_FOREACH(pe, &s->perms, entry) {
		if (pe->id == id) {
			perm_settle(s, pe, option, 0);
			return 0;
		}
	}
	return -1;
}

static void
mode_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;

	(void)j;
	(void)res;
	if (err != NULL) {
		acp_warn("%s: session/set_mode: %s", s->a->name, err->message);
		return;
	}
	/* Some agents never send current_mode_update: do not wait for it. */
	if (s->mode_want != NULL && (s->mode_cur == NULL ||
	    strcmp(s->mode_cur, s->mode_want) != 0)) {
		set_str(&s->mode_cur, s->mode_want);
		CALL_S(s, on_mode, s, s->mode_cur, s->arg);
	}
}

int
acp_session_set_mode(struct acp_session *s, const char *mode)
{
	set_str(&s->mode_want, mode);
	if (s->st == S_OPEN && s->a->rpc != NULL)
		return send_set_mode(s, mode, mode_reply) >= 0 ? 0 : -1;
	return 0;	/* applied when the session opens */
}

static void
config_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;

	(void)j;
	if (err != NULL) {
		acp_warn("%s: session/set_config_option: %s", s->a->name,
		    err->message);
		return;
	}
	update_config(s, cJSON_GetObjectItemCaseSensitive(res,
	    "configOptions"));
}

int
acp_session_set_config(struct acp_session *s, const char *id,
    const char *value)
{
	struct cfgset *c = NULL, *nc;
	size_t i;

	for (i = 0; i < s->ncfg; i++)
		if (strcmp(s->cfg[i].id, id) == 0)
			c = &s->cfg[i];
	if (c == NULL) {
		if ((nc = reallocarray(s->cfg, s->ncfg + 1,
		    sizeof(*nc))) == NULL)
			return -1;
		s->cfg = nc;
		c = &s->cfg[s->ncfg++];
		c->id = strdup(id);
		c->value = NULL;
	}
	set_str(&c->value, value);
	if (c->id == NULL || c->value == NULL)
		return -1;
	if (s->st == S_OPEN && s->a->rpc != NULL)
		return send_set_config(s, c, config_reply) >= 0 ? 0 : -1;
	return 0;
}

/*
 * lifecycle.c: the ACP v1 client's agents. One acp_agent per configured
 * agent, with at most one process at a time: spawned on demand, initialized,
 * supervised (watchdogs, restart back-off, the broken state, eviction on
 * the pool's request, backpressure holds) and torn down. What the process
 * says goes to session.c, update.c and permission.c.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "acp/acp.h"
#include "acp/internal.h"
#include "acp/jsonrpc.h"
#include "acp/log.h"
#include "acp/plain.h"
#include "acp/pool.h"
#include "acp/proc.h"

#define ACP_PROTOCOL_VERSION	1

static struct event_base	*acp_evbase;

static void	agent_destroy(struct acp_agent *);
static void	agent_start_cb(evutil_socket_t, short, void *);
static void	agent_fin_cb(evutil_socket_t, short, void *);
static void	agent_gc_cb(evutil_socket_t, short, void *);
static void	agent_eof_cb(evutil_socket_t, short, void *);
static void	agent_resume_cb(evutil_socket_t, short, void *);
static void	agent_stdout_eof(struct evbuffer *, void *);
static void	agent_next_take(struct acp_agent *);

int
acp_init(struct event_base *base)
{
	acp_evbase = base;
	return acp_proc_init(base);
}

void
acp_shutdown(void)
{
	acp_proc_shutdown();
	acp_evbase = NULL;
}

void
acp_agent_gc_later(struct acp_agent *a)
{
	event_active(a->gc_ev, EV_TIMEOUT, 0);
}

/* ---- the agent object ---- */

#define DEF(v, d)	((v) > 0 ? (v) : (d))

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
	a->base = acp_evbase;
	a->pool = pool;
	a->cfg = *cfg;
	a->cb = *cb;
	a->arg = arg;
	TAILQ_INIT(&a->sessions);
	TAILQ_INIT(&a->early);
	a->name = strdup(cfg->name != NULL ? cfg->name : "agent");
	a->command = acp_str_copy(cfg->command);
	a->auth_method = acp_str_copy(cfg->auth_method);
	if (cfg->cwd != NULL)
		a->cwd = strdup(cfg->cwd);
	else if (getcwd(buf, sizeof(buf)) != NULL)
		a->cwd = strdup(buf);
	else
		a->cwd = strdup("/");
	a->cfg.max_frame = cfg->max_frame > 0 ? cfg->max_frame :
	    JSONRPC_MAX_FRAME_DEFAULT;
	a->cfg.max_bad_lines = DEF(cfg->max_bad_lines, JSONRPC_MAX_BAD_DEFAULT);
	a->cfg.init_timeout_ms = DEF(cfg->init_timeout_ms,
	    ACP_DEFAULT_INIT_TIMEOUT_MS);
	a->cfg.request_timeout_ms = DEF(cfg->request_timeout_ms,
	    ACP_DEFAULT_REQUEST_TIMEOUT_MS);
	a->cfg.turn_timeout_ms = DEF(cfg->turn_timeout_ms,
	    ACP_DEFAULT_TURN_TIMEOUT_MS);
	a->cfg.cancel_timeout_ms = DEF(cfg->cancel_timeout_ms,
	    ACP_DEFAULT_CANCEL_TIMEOUT_MS);
	a->cfg.grace_ms = DEF(cfg->grace_ms, ACP_DEFAULT_GRACE_MS);
	a->cfg.backoff_ms = DEF(cfg->backoff_ms, ACP_DEFAULT_BACKOFF_MS);
	a->cfg.backoff_max_ms = DEF(cfg->backoff_max_ms,
	    ACP_DEFAULT_BACKOFF_MAX_MS);
	a->cfg.max_failures = DEF(cfg->max_failures, ACP_DEFAULT_MAX_FAILURES);
	a->cfg.name = a->cfg.command = a->cfg.cwd = NULL;
	a->cfg.auth_method = NULL;
	a->cfg.env = NULL;
	for (i = 0; cfg->env != NULL && cfg->env[i] != NULL; i++)
		n++;
	a->env = calloc(n + 1, sizeof(*a->env));
	for (i = 0; a->env != NULL && i < n; i++)
		a->env[i] = strdup(cfg->env[i]);
	a->start_ev = evtimer_new(a->base, agent_start_cb, a);
	a->fin_ev = evtimer_new(a->base, agent_fin_cb, a);
	a->gc_ev = evtimer_new(a->base, agent_gc_cb, a);
	a->eof_ev = evtimer_new(a->base, agent_eof_cb, a);
	a->resume_ev = evtimer_new(a->base, agent_resume_cb, a);
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
	return a->proc != NULL ? (long)acp_proc_pid(a->proc) : -1;
}

const char *
acp_agent_info(struct acp_agent *a)
{
	return a->info[0] != '\0' ? a->info : NULL;
}

const char *
acp_agent_title(struct acp_agent *a)
{
	return a->title[0] != '\0' ? a->title : NULL;
}

int
acp_agent_can_reopen(struct acp_agent *a)
{
	return a->can_close && (a->can_load || a->can_resume);
}

/* ---- the agent in the pool (SS-5) ---- */

static int
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

static int
agent_stopping(struct acp_agent *a)
{
	return a->state == AG_STOPPING;
}

static void
agent_granted(struct acp_agent *a)
{
	if (a->state == AG_STARTING)
		event_active(a->start_ev, EV_TIMEOUT, 0);
}

static void
agent_evict(struct acp_agent *a)
{
	a->evicted = 1;
	acp_agent_stop(a);
}

static const struct acp_pool_ops agent_pool_ops = {
	.name = acp_agent_name,
	.idle = agent_idle,
	.stopping = agent_stopping,
	.evict = agent_evict,
	.granted = agent_granted
};

/* A pool of agents: pool.c is given what it needs to know of them. */
struct acp_pool *
acp_pool_new(int max)
{
	return acp_pool_create(max, &agent_pool_ops);
}

/* ---- process and protocol plumbing ---- */

static void
rpc_write(const char *buf, size_t len, void *arg)
{
	struct acp_agent *a = arg;

	if (a->proc != NULL)
		acp_proc_write(a->proc, buf, len);
}

static void
rpc_fatal(struct jsonrpc *j, const char *why, void *arg)
{
	(void)j;
	acp_agent_abort(arg, why);
}

static int
rpc_request(struct jsonrpc *j, const char *method, const cJSON *params,
    const cJSON *id, void *arg)
{
	struct acp_agent *a = arg;

	(void)j;
	if (strcmp(method, "session/request_permission") == 0)
		return acp_perm_request(a, params, id);
	/* fs, terminal, elicitation, _vendor methods: not advertised. */
	acp_debug("%s: unsupported request %s answered -32601", a->name,
	    method);
	return -1;
}

static void
rpc_notify(struct jsonrpc *j, const char *method, const cJSON *params,
    void *arg)
{
	struct acp_agent *a = arg;

	(void)j;
	if (strcmp(method, "session/update") == 0) {
		acp_update_route(a, params);
		return;
	}
	if (strcmp(method, "$/cancel_request") == 0) {
		acp_perm_withdraw(a,
		    cJSON_GetObjectItemCaseSensitive(params, "requestId"));
		return;
	}
	acp_debug("%s: notification %s ignored", a->name, method);
}

/* ---- agent lifecycle ---- */

static void
agent_stdout_cb(struct evbuffer *buf, void *arg)
{
	struct acp_agent *a = arg;

	if (a->rpc != NULL)
		jsonrpc_input(a->rpc, buf);
}

static void
agent_stdout_eof(struct evbuffer *buf, void *arg)
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
		acp_proc_stop(a->proc, a->cfg.grace_ms);
	}
}

static void
agent_exit_cb(int status, void *arg)
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
		acp_timer_ms(a->eof_ev, ACP_EOF_WAIT_MS);
}

static void
agent_eof_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_agent *a = arg;

	(void)fd;
	(void)ev;
	/* Held, we do not read: what is in the pipe is still to come. */
	if (a->held || a->eof_held) {
		acp_timer_ms(a->eof_ev, ACP_HELD_RETRY_MS);
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
		acp_proc_hold(a->proc, on);
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
		agent_stdout_eof(acp_proc_stdout(a->proc), a);
	} else if (a->rpc != NULL)
		jsonrpc_input(a->rpc, acp_proc_stdout(a->proc));
}

static long long
agent_backoff_ms(struct acp_agent *a)
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
	acp_proc_status_str(a->reaped ? a->status : -1, st, sizeof(st));
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
		acp_perms_cancel(s, 1);
		if (s->st == S_OPENING)
			acp_session_open_failed(s, why);
		s->st = S_CLOSED;
		s->replaying = 0;
		s->reapply = 0;
		if (!s->dead && (s->want_open || s->prompt != NULL)) {
			s->want_open = 1;	/* reopened on restart */
			want = 1;
		}
	}
	acp_early_clear(a);
	a->news = 0;
	jsonrpc_free(a->rpc);
	a->rpc = NULL;
	acp_proc_free(a->proc);
	a->proc = NULL;
	a->eof = a->reaped = 0;
	/* A hold was on that process; the next one starts free. */
	a->held = a->eof_held = 0;
	if (failed) {
		a->failures++;
		a->next_start = acp_now_ms() + agent_backoff_ms(a);
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
		acp_pool_release(a->pool, a);
	if (a->state == AG_BROKEN || (failed && want)) {
		/* TN-9: the turn that saw the failure ends; the next
		 * restarts. */
		TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
			if (s->want_open || s->prompt != NULL)
				acp_session_open_failed(s,
				    a->state == AG_BROKEN ? a->broken_reason :
				    why);
	} else if (want && !a->dead)
		acp_agent_want(a);
	if (a->dead && a->depth == 0)
		acp_agent_gc_later(a);
}

void
acp_agent_abort(struct acp_agent *a, const char *why)
{
	if (a->proc == NULL)
		return;
	if (a->abort_reason[0] == '\0')
		strlcpy(a->abort_reason, why, sizeof(a->abort_reason));
	acp_warn("%s: %s; killing the agent", a->name, why);
	a->state = AG_STOPPING;
	if (a->rpc != NULL)
		jsonrpc_close(a->rpc, JSONRPC_CLOSED, why);
	acp_proc_kill(a->proc);
}

/*
 * agentInfo, made plain (AU-6): WHOIS shows "name version", and the
 * title becomes the agent's realname.
 */
static void
agent_info_set(struct acp_agent *a, const cJSON *info)
{
	/* Both fit a->info, with the space between. */
	char name[sizeof(a->info) / 2 + 16], version[sizeof(a->info) / 2 - 16];
	const char *v;

	v = acp_jstr(info, "name") ? acp_jstr(info, "name") : a->name;
	acp_plain(name, sizeof(name), v, strlen(v));
	v = acp_jstr(info, "version") ? acp_jstr(info, "version") : "";
	acp_plain(version, sizeof(version), v, strlen(v));
	snprintf(a->info, sizeof(a->info), "%s %s", name, version);
	v = acp_jstr(info, "title") ? acp_jstr(info, "title") :
	    acp_jstr(info, "name") ? acp_jstr(info, "name") : "";
	acp_plain(a->title, sizeof(a->title), v, strlen(v));
}

static void
agent_init_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_agent *a = arg;
	struct acp_session *s, *ts;
	const cJSON *caps, *sc, *info, *pv;
	char why[256], msg[200];

	(void)j;
	if (err != NULL) {
		if (err->code != JSONRPC_CLOSED) {
			/* AU-6: WHOIS shows it as the broken state's reason. */
			acp_plain(msg, sizeof(msg), err->message,
			    strlen(err->message));
			snprintf(why, sizeof(why), "initialize failed: %s", msg);
			acp_agent_abort(a, why);
		}
		return;
	}
	pv = cJSON_GetObjectItemCaseSensitive(res, "protocolVersion");
	if (!cJSON_IsNumber(pv) || pv->valueint != ACP_PROTOCOL_VERSION) {
		snprintf(why, sizeof(why), "speaks ACP version %d, not %d",
		    cJSON_IsNumber(pv) ? pv->valueint : -1,
		    ACP_PROTOCOL_VERSION);
		acp_agent_abort(a, why);
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
	    cJSON_GetObjectItemCaseSensitive(caps, "mcpCapabilities"),
	    "http"));
	info = cJSON_GetObjectItemCaseSensitive(res, "agentInfo");
	agent_info_set(a, info);
	acp_info("%s: initialized (%s; load %s)", a->name, a->info,
	    a->can_load ? "yes" : "no");
	a->state = AG_READY;
	CALL_A(a, on_ready, a, a->arg);
	TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
		if (!s->dead && s->want_open && a->state == AG_READY)
			acp_session_do_open(s);
}

static void
agent_spawn(struct acp_agent *a)
{
	static const struct acp_proc_cbs cbs = { agent_stdout_cb,
	    agent_stdout_eof, agent_exit_cb };
	static const struct jsonrpc_handlers h = { rpc_request, rpc_notify,
	    rpc_write, rpc_fatal };
	struct acp_session *s, *ts;
	cJSON *p, *c, *fs, *ci;
	char err[256];

	a->eof = a->reaped = 0;
	a->status = -1;
	agent_next_take(a);
	a->proc = acp_proc_spawn(a->base, a->name, a->argv, a->cwd,
	    (const char *const *)a->env, &cbs, a, err, sizeof(err));
	if (a->proc == NULL) {
		acp_error("%s: %s", a->name, err);
		a->failures++;
		a->next_start = acp_now_ms() + agent_backoff_ms(a);
		if (a->pool != NULL)
			acp_pool_release(a->pool, a);
		if (a->failures >= a->cfg.max_failures) {
			a->state = AG_BROKEN;
			snprintf(a->broken_reason, sizeof(a->broken_reason),
			    "%s", err);
		} else
			a->state = AG_STOPPED;
		TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
			if (s->want_open || s->prompt != NULL)
				acp_session_open_failed(s, err);
		return;
	}
	if ((a->rpc = jsonrpc_new(a->base, &h, a)) == NULL) {
		acp_agent_abort(a, "out of memory");
		return;
	}
	jsonrpc_set_limits(a->rpc, a->cfg.max_frame, a->cfg.max_bad_lines);
	a->state = AG_INIT;
	/*
	 * Headless: no fs, no terminal. Nothing more is sent before its
	 * answer: SDK agents refuse pipelined requests (-32600).
	 */
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
	    agent_init_reply, a);
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
	if ((wait = a->next_start - acp_now_ms()) > 0) {
		acp_timer_ms(a->start_ev, wait);
		return;
	}
	if (a->pool != NULL && !acp_pool_acquire(a->pool, a))
		return;		/* agent_granted() comes back here */
	agent_spawn(a);
}

/* Someone needs the process: start it (always from the loop, later). */
void
acp_agent_want(struct acp_agent *a)
{
	if (a->state != AG_STOPPED)
		return;		/* starting, ready, or will restart */
	a->state = AG_STARTING;
	event_active(a->start_ev, EV_TIMEOUT, 0);
}

void
acp_agent_stop(struct acp_agent *a)
{
	if (a->proc == NULL) {
		if (a->state == AG_STARTING) {
			a->state = AG_STOPPED;
			if (a->pool != NULL)
				acp_pool_release(a->pool, a);
		}
		return;
	}
	a->stop_requested = 1;
	if (a->state != AG_STOPPING)
		acp_info("%s: stopping%s", a->name,
		    a->evicted ? " (evicted)" : "");
	a->state = AG_STOPPING;
	acp_proc_stop(a->proc, a->cfg.grace_ms);
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

/* What acp_agent_reconfigure() left for the next start, dropped. */
static void
agent_next_free(struct acp_agent *a)
{
	free(a->next_command);
	free(a->next_cwd);
	acp_argv_free(a->next_argv);
	acp_argv_free(a->next_env);
	a->next_command = a->next_cwd = NULL;
	a->next_argv = a->next_env = NULL;
}

int
acp_agent_reconfigure(struct acp_agent *a, const struct acp_agent_config *cfg)
{
	char **argv, **env, *command, *cwd;
	const char *err;
	char buf[4096];
	size_t i, n = 0;

	if (cfg->command == NULL ||
	    (argv = acp_argv_parse(cfg->command, &err)) == NULL) {
		acp_error("%s: bad command: %s", a->name,
		    cfg->command == NULL ? "none" : err);
		return -1;
	}
	if (cfg->cwd != NULL)
		cwd = strdup(cfg->cwd);
	else
		cwd = strdup(getcwd(buf, sizeof(buf)) != NULL ? buf : "/");
	for (i = 0; cfg->env != NULL && cfg->env[i] != NULL; i++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	for (i = 0; env != NULL && i < n; i++)
		if ((env[i] = strdup(cfg->env[i])) == NULL)
			break;
	command = strdup(cfg->command);
	if (cwd == NULL || env == NULL || i < n || command == NULL ||
	    cwd[0] != '/') {
		if (cwd != NULL && cwd[0] != '/')
			acp_error("%s: cwd must be absolute", a->name);
		acp_argv_free(argv);
		acp_argv_free(env);
		free(cwd);
		free(command);
		return -1;
	}
	/* A second reload before the start: the last one wins. */
	agent_next_free(a);
	a->next_command = command;
	a->next_argv = argv;
	a->next_cwd = cwd;
	a->next_env = env;
	return 0;
}

/* At a spawn: what a reload asked for becomes what the agent runs. */
static void
agent_next_take(struct acp_agent *a)
{
	if (a->next_argv == NULL)
		return;
	free(a->command);
	free(a->cwd);
	acp_argv_free(a->argv);
	acp_argv_free(a->env);
	a->command = a->next_command;
	a->cwd = a->next_cwd;
	a->argv = a->next_argv;
	a->env = a->next_env;
	a->next_command = a->next_cwd = NULL;
	a->next_argv = a->next_env = NULL;
}

static void
agent_destroy(struct acp_agent *a)
{
	struct acp_session *s;

	while ((s = TAILQ_FIRST(&a->sessions)) != NULL)
		acp_session_destroy(s);
	acp_early_clear(a);
	if (a->rpc != NULL)
		jsonrpc_free(a->rpc);
	if (a->proc != NULL)
		acp_proc_free(a->proc);
	if (a->pool != NULL)
		acp_pool_release(a->pool, a);
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
	agent_next_free(a);
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
			acp_session_destroy(s);
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
			acp_proc_kill(a->proc);
		acp_agent_gc_later(a);
		return;
	}
	agent_destroy(a);
}


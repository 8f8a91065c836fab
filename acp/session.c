/*
 * session.c: sessions, one conversation each with an agent: opened on
 * demand (session/load with its replay flagged, session/resume, or new),
 * modes and config options re-applied when a session comes back (SS-4),
 * prompts and turns with their watchdog (TN-8), cancellation. A session
 * outlives the agent's process: the next prompt opens it again.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "acp/internal.h"
#include "acp/jsonrpc.h"
#include "acp/log.h"
#include "acp/plain.h"
#include "acp/pool.h"

#define ACP_ERROR_AUTH_REQUIRED	-32000	/* ACP's authRequired */

struct cfgset {
	char	*id;
	char	*value;
};

struct acp_prompt {
	cJSON	*blocks;
};

static void	sess_send_prompt(struct acp_session *);
static void	sess_turn_cb(evutil_socket_t, short, void *);
static void	sess_cancel_cb(evutil_socket_t, short, void *);
static void	sess_defer_cb(evutil_socket_t, short, void *);
static void	sess_settle_cb(evutil_socket_t, short, void *);
static void	sess_open_reply(struct jsonrpc *, const cJSON *,
		    const struct jsonrpc_error *, void *);
static void	sess_stale_closed(struct jsonrpc *, const cJSON *,
		    const struct jsonrpc_error *, void *);
static void	sess_config_reply(struct jsonrpc *, const cJSON *,
		    const struct jsonrpc_error *, void *);

/* ---- sessions ---- */

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
	s->id = acp_str_copy(id);
	s->turn_ev = evtimer_new(a->base, sess_turn_cb, s);
	s->cancel_ev = evtimer_new(a->base, sess_cancel_cb, s);
	s->defer_ev = evtimer_new(a->base, sess_defer_cb, s);
	s->settle_ev = evtimer_new(a->base, sess_settle_cb, s);
	if ((id != NULL && s->id == NULL) || s->turn_ev == NULL ||
	    s->cancel_ev == NULL || s->defer_ev == NULL ||
	    s->settle_ev == NULL) {
		TAILQ_INSERT_TAIL(&a->sessions, s, entry);
		acp_session_destroy(s);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&a->sessions, s, entry);
	return s;
}

/* The open or opening session of a with this id: updates go there. */
struct acp_session *
acp_session_find(struct acp_agent *a, const char *id)
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

static void
sess_modes_clear(struct acp_session *s)
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

void
acp_session_destroy(struct acp_session *s)
{
	struct acp_agent *a = s->a;
	size_t i;

	TAILQ_REMOVE(&a->sessions, s, entry);
	/* No answer may reach it now: prompt, open, set_mode, options. */
	if (a->rpc != NULL)
		jsonrpc_forget_arg(a->rpc, s);
	acp_perms_cancel(s, 0);
	acp_tools_clear(s);
	sess_modes_clear(s);
	if (s->turn_ev != NULL)
		event_free(s->turn_ev);
	if (s->cancel_ev != NULL)
		event_free(s->cancel_ev);
	if (s->defer_ev != NULL)
		event_free(s->defer_ev);
	if (s->settle_ev != NULL)
		event_free(s->settle_ev);
	acp_prompt_free(s->prompt);
	cJSON_Delete(s->resend);
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
	acp_perms_cancel(s, 0);
	if (a->rpc != NULL)
		jsonrpc_forget_arg(a->rpc, s);
	if (s->open_rid >= 0 && s->how == ACP_OPEN_NEW && a->news > 0)
		a->news--;
	s->prompt_rid = s->open_rid = -1;
	s->dead = 1;
	s->st = S_CLOSED;
	if (a->depth > 0) {
		acp_agent_gc_later(a);
		return;
	}
	acp_session_destroy(s);
	if (a->pool != NULL)
		acp_pool_check(a->pool);
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

/* AU-6: an id that is not plain text is not one to show (see below). */
const char *
acp_session_mode(struct acp_session *s)
{
	return s->mode_cur != NULL && acp_plain_is(s->mode_cur) ?
	    s->mode_cur : NULL;
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

int
acp_session_set_mcp(struct acp_session *s, const char *json,
    const char *http_json)
{
	char *copy = json != NULL ? strdup(json) : NULL;
	char *hcopy = http_json != NULL ? strdup(http_json) : NULL;

	if ((json != NULL && copy == NULL) ||
	    (http_json != NULL && hcopy == NULL)) {
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

static void
sess_modes_parse(struct acp_session *s, const cJSON *res)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(res, "modes"), *l,
	    *e;
	size_t n = 0;

	if (!cJSON_IsObject(m))
		return;
	sess_modes_clear(s);
	if (acp_jstr(m, "currentModeId") != NULL)
		acp_str_set(&s->mode_cur, acp_jstr(m, "currentModeId"));
	l = cJSON_GetObjectItemCaseSensitive(m, "availableModes");
	if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) == 0 ||
	    (s->modes = calloc((size_t)cJSON_GetArraySize(l),
	    sizeof(*s->modes))) == NULL)
		return;
	cJSON_ArrayForEach(e, l) {
		/*
		 * AU-6: the id is sent back verbatim (session/set_mode) and
		 * people type it, so it is shown as it is: one that is not
		 * plain text (controls, colours, bidi) is left out. Real
		 * agents' ids are words ("default", "plan", "read-only").
		 */
		if (acp_jstr(e, "id") == NULL)
			continue;
		if (!acp_plain_is(acp_jstr(e, "id"))) {
			acp_warn("%s: a mode id that is not plain text is left "
			    "out", s->a->name);
			continue;
		}
		s->modes[n].id = strdup(acp_jstr(e, "id"));
		s->modes[n].name = acp_plain_dup(acp_jstr(e, "name") ?
		    acp_jstr(e, "name") : acp_jstr(e, "id"), ACP_PLAIN_NAME);
		s->modes[n].description = acp_plain_dup(acp_jstr(e,
		    "description"), ACP_PLAIN_TEXT);
		n++;
	}
	s->nmodes = n;
}

static void
sess_open_done(struct acp_session *s)
{
	int quiet = s->quiet;

	s->st = S_OPEN;
	s->quiet = 0;
	/* Reopened for a prompt asked again (sess_stale): nothing new. */
	if (!quiet)
		CALL_S(s, on_open, s, s->how, NULL, s->arg);
	if (!s->dead && s->prompt != NULL && s->st == S_OPEN &&
	    s->a->state == AG_READY)
		sess_send_prompt(s);
}

static void
sess_reapply_reply(struct jsonrpc *j, const cJSON *res,
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
		sess_open_done(s);
}

static int64_t
sess_send_set_mode(struct acp_session *s, const char *mode,
    jsonrpc_reply_fn *fn)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddStringToObject(p, "modeId", mode);
	return jsonrpc_call(s->a->rpc, "session/set_mode", p,
	    s->a->cfg.request_timeout_ms, fn, s);
}

static int64_t
sess_send_set_config(struct acp_session *s, const struct cfgset *c,
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
sess_reapply(struct acp_session *s)
{
	size_t i;

	s->reapply = 1;		/* held while we send */
	if (s->mode_want != NULL && (s->mode_cur == NULL ||
	    strcmp(s->mode_cur, s->mode_want) != 0) &&
	    sess_send_set_mode(s, s->mode_want, sess_reapply_reply) >= 0)
		s->reapply++;
	for (i = 0; i < s->ncfg; i++)
		if (sess_send_set_config(s, &s->cfg[i],
		    sess_reapply_reply) >= 0)
			s->reapply++;
	if (--s->reapply == 0)
		sess_open_done(s);
}

static int
sess_pick_auth(struct acp_agent *a, const char **idp)
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
		id = acp_jstr(m, "id");
		type = acp_jstr(m, "type");
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
sess_auth_message(struct acp_agent *a, const struct jsonrpc_error *err,
    char *buf, size_t len)
{
	const cJSON *m;
	const char *dm = acp_jstr(err->data, "message");
	char names[200] = "";

	cJSON_ArrayForEach(m, a->auth_methods) {
		if (acp_jstr(m, "name") == NULL)
			continue;
		if (names[0] != '\0')
			strlcat(names, ", ", sizeof(names));
		strlcat(names, acp_jstr(m, "name"), sizeof(names));
	}
	snprintf(buf, len, "%s needs a login: %s%s%s; log in to it on the "
	    "server host%s%s%s", a->name, err->message, dm ? ": " : "",
	    dm ? dm : "", names[0] ? " (methods: " : "", names,
	    names[0] ? ")" : "");
}

static void
sess_send_open(struct acp_session *s, const char *method)
{
	struct acp_agent *a = s->a;
	cJSON *p = cJSON_CreateObject(), *servers;
	const char *json;

	if (strcmp(method, "session/new") != 0)
		cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddStringToObject(p, "cwd", a->cwd);
	/* Required by ACP, even empty; repeated on load and resume. */
	json = a->mcp_http && s->mcp_http != NULL ? s->mcp_http : s->mcp;
	servers = json != NULL ? cJSON_Parse(json) : NULL;
	cJSON_AddItemToObject(p, "mcpServers", servers != NULL &&
	    cJSON_IsArray(servers) ? servers : cJSON_CreateArray());
	if (servers != NULL && !cJSON_IsArray(servers))
		cJSON_Delete(servers);
	s->open_rid = jsonrpc_call(a->rpc, method, p,
	    a->cfg.request_timeout_ms, sess_open_reply, s);
	if (s->open_rid < 0)
		acp_session_open_failed(s, "the agent is gone");
}

static void
sess_auth_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;
	char msg[512];

	(void)j;
	(void)res;
	s->open_rid = -1;
	if (err != NULL) {
		snprintf(msg, sizeof(msg), "%s: authentication failed: %s",
		    s->a->name, err->message);
		acp_session_open_failed(s, msg);
		return;
	}
	s->a->news++;
	sess_send_open(s, "session/new");
}

static void
sess_open_new(struct acp_session *s)
{
	free(s->id);
	s->id = NULL;
	s->how = ACP_OPEN_NEW;
	s->a->news++;
	sess_send_open(s, "session/new");
}

/*
 * SS-4: a load's replay is history we hold already, and must not be shown
 * as the next answer. ACP has the agent replay before it answers
 * session/load, but gemini-cli 0.61.0 answers first and streams the
 * history after, while the next prompt may already be on its way, and the
 * old answer came out glued to the new one. So the session counts as
 * loaded, and the prompt goes, only once the agent has been quiet for
 * ACP_LOAD_SETTLE_MS (each update meanwhile is replay and restarts the
 * wait), or after ACP_LOAD_SETTLE_MAX_MS at most.
 */
static void
sess_settle(struct acp_session *s)
{
	s->settling = 1;
	s->settle_end = acp_now_ms() + ACP_LOAD_SETTLE_MAX_MS;
	acp_timer_ms(s->settle_ev, ACP_LOAD_SETTLE_MS);
}

/* An update while settling: the agent is still replaying. */
void
acp_session_settle_more(struct acp_session *s)
{
	long long left = s->settle_end - acp_now_ms();

	acp_timer_ms(s->settle_ev, left < ACP_LOAD_SETTLE_MS ? left :
	    ACP_LOAD_SETTLE_MS);
}

static void
sess_settle_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;

	(void)fd;
	(void)ev;
	if (s->dead || !s->settling)
		return;
	s->settling = 0;
	s->replaying = 0;
	sess_reapply(s);
}

static void
sess_open_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;
	struct acp_agent *a = s->a;
	const char *sid, *mid;
	cJSON *p;
	char msg[512];

	(void)j;
	s->open_rid = -1;
	if (s->how == ACP_OPEN_NEW && a->news > 0)
		a->news--;
	if (err != NULL) {
		s->replaying = 0;
		if (err->code == JSONRPC_CLOSED)
			return;		/* agent_fin_cb fails the session */
		if (s->quiet) {
			/* The turn fails; the next prompt opens afresh. */
			snprintf(msg, sizeof(msg), "%s: cannot reopen session "
			    "%s after a cancel: %s", a->name, s->id,
			    err->message);
			acp_session_open_failed(s, msg);
			return;
		}
		if (s->how != ACP_OPEN_NEW) {
			/* The agent lost it: start afresh (SS-4). */
			acp_info("%s: cannot resume session %s (%s), opening "
			    "a new one", a->name, s->id, err->message);
			sess_open_new(s);
			return;
		}
		if (err->code == ACP_ERROR_AUTH_REQUIRED ||
		    strcasestr(err->message, "auth")) {
			if (!a->auth_tried && sess_pick_auth(a, &mid)) {
				a->auth_tried = 1;
				acp_info("%s: authenticating with %s",
				    a->name, mid);
				p = cJSON_CreateObject();
				cJSON_AddStringToObject(p, "methodId", mid);
				s->open_rid = jsonrpc_call(a->rpc,
				    "authenticate", p,
				    a->cfg.request_timeout_ms, sess_auth_reply,
				    s);
				return;
			}
			sess_auth_message(a, err, msg, sizeof(msg));
		} else
			snprintf(msg, sizeof(msg), "%s: %s%s%s", a->name,
			    err->message, acp_jstr(err->data, "message") ?
			    ": " : "", acp_jstr(err->data, "message") ?
			    acp_jstr(err->data, "message") : "");
		acp_session_open_failed(s, msg);
		if (a->news == 0)
			acp_early_clear(a);
		return;
	}
	if (s->how == ACP_OPEN_NEW) {
		if ((sid = acp_jstr(res, "sessionId")) == NULL) {
			acp_session_open_failed(s,
			    "session/new gave no sessionId");
			return;
		}
		acp_str_set(&s->id, sid);
	}
	sess_modes_parse(s, res);
	s->st = S_OPENING;	/* routable from now on */
	if (s->how == ACP_OPEN_NEW)
		acp_update_early(s);	/* what came before the answer */
	acp_update_config(s, cJSON_GetObjectItemCaseSensitive(res,
	    "configOptions"));
	if (s->dead)
		return;
	if (s->how == ACP_OPEN_LOADED) {
		sess_settle(s);
		return;
	}
	s->replaying = 0;
	sess_reapply(s);
}

void
acp_session_do_open(struct acp_session *s)
{
	struct acp_agent *a = s->a;

	s->want_open = 0;
	s->st = S_OPENING;
	s->reapply = 0;
	s->quiet = 0;
	if (s->id != NULL && a->can_load) {
		s->how = ACP_OPEN_LOADED;
		s->replaying = 1;
		sess_send_open(s, "session/load");
	} else if (s->id != NULL && a->can_resume) {
		s->how = ACP_OPEN_RESUMED;
		sess_send_open(s, "session/resume");
	} else
		sess_open_new(s);
}

void
acp_session_open_failed(struct acp_session *s, const char *reason)
{
	struct acp_agent *a = s->a;
	struct acp_turn_end te;
	char why[512];

	/* AU-6: it quotes the agent's error, and people read it. */
	acp_plain(why, sizeof(why), reason, strlen(reason));
	s->st = S_CLOSED;
	s->want_open = 0;
	s->replaying = 0;
	s->settling = 0;
	evtimer_del(s->settle_ev);
	s->quiet = 0;
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
		acp_pool_check(a->pool);
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
		acp_session_do_open(s);
	else
		acp_agent_want(a);
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
sess_stop_parse(const char *r)
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
sess_turn_end(struct acp_session *s, struct acp_turn_end *te)
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
	acp_perms_cancel(s, 1);
	CALL_S(s, on_turn_end, s, te, s->arg);
	if (a->pool != NULL) {
		acp_pool_touch(a->pool, a);
		acp_pool_check(a->pool);
	}
}

/* A usage object whose counts are all zero: no model was asked. */
static int
sess_usage_zero(const cJSON *usage)
{
	const cJSON *n;
	int counts = 0;

	if (!cJSON_IsObject(usage))
		return 0;
	cJSON_ArrayForEach(n, usage) {
		if (!cJSON_IsNumber(n))
			continue;
		if (n->valuedouble != 0)
			return 0;
		counts++;
	}
	return counts > 0;
}

/*
 * claude-agent-acp 0.23.1, the first prompt after a session/cancel: it
 * ends end_turn at once, nothing said and all-zero usage, and its answer
 * comes during the prompt after it (stale events of the cancelled turn
 * end it). Closing the session and resuming it starts afresh; the prompt
 * is then asked again. This turn goes on meanwhile, so the caller sees
 * one turn with one answer. Returns 1 when it did so.
 */
static int
sess_stale(struct acp_session *s, const cJSON *res, enum acp_stop stop)
{
	struct acp_agent *a = s->a;
	struct acp_prompt *pr;
	cJSON *p;

	if (stop != ACP_STOP_END_TURN || s->resend == NULL || s->said > 0 ||
	    s->cancel_sent || !sess_usage_zero(
	    cJSON_GetObjectItemCaseSensitive(res, "usage")))
		return 0;
	if ((pr = calloc(1, sizeof(*pr))) == NULL ||
	    (p = cJSON_CreateObject()) == NULL) {
		free(pr);
		return 0;
	}
	acp_info("%s: session %s ended a prompt at once after a cancel; "
	    "reopening it to ask again", a->name, s->id);
	pr->blocks = s->resend;
	s->resend = NULL;
	s->prompt = pr;
	s->quiet = 1;
	s->st = S_OPENING;
	cJSON_AddStringToObject(p, "sessionId", s->id);
	s->open_rid = jsonrpc_call(a->rpc, "session/close", p,
	    a->cfg.request_timeout_ms, sess_stale_closed, s);
	if (s->open_rid < 0)
		acp_session_open_failed(s, "the agent is gone");
	return 1;
}

static void
sess_stale_closed(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;

	(void)j;
	(void)res;
	s->open_rid = -1;
	if (err != NULL && err->code == JSONRPC_CLOSED)
		return;		/* agent_fin_cb fails the session */
	if (err != NULL)
		acp_warn("%s: session/close: %s", s->a->name, err->message);
	s->reapply = 0;
	if (s->a->can_resume) {
		s->how = ACP_OPEN_RESUMED;
		sess_send_open(s, "session/resume");
	} else {
		s->how = ACP_OPEN_LOADED;
		s->replaying = 1;	/* the history it replays is known */
		sess_send_open(s, "session/load");
	}
}

static void
sess_prompt_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;
	struct acp_turn_end te;
	char msg[512], plain[512];
	const char *dm;

	(void)j;
	s->prompt_rid = -1;
	memset(&te, 0, sizeof(te));
	if (err != NULL) {
		dm = acp_jstr(err->data, "message");
		te.code = err->code;
		if (err->code == ACP_ERROR_AUTH_REQUIRED)
			sess_auth_message(s->a, err, msg, sizeof(msg));
		else
			snprintf(msg, sizeof(msg), "%s%s%s", err->message,
			    dm ? ": " : "", dm ? dm : "");
		/* AU-6: the agent's words, for people. */
		acp_plain(plain, sizeof(plain), msg, strlen(msg));
		te.error = plain;
		/* After a cancel, an error is how some agents say it. */
		te.stop = s->cancel_sent ? ACP_STOP_CANCELLED : ACP_STOP_ERROR;
	} else {
		te.stop_reason = acp_jstr(res, "stopReason");
		te.stop = sess_stop_parse(te.stop_reason);
		s->a->failures = 0;	/* a turn went through: healthy */
		if (sess_stale(s, res, te.stop))
			return;
	}
	cJSON_Delete(s->resend);
	s->resend = NULL;
	sess_turn_end(s, &te);
}

static void
sess_send_prompt(struct acp_session *s)
{
	struct acp_agent *a = s->a;
	struct acp_prompt *pr = s->prompt;
	cJSON *p = cJSON_CreateObject();

	s->prompt = NULL;
	/* Kept to ask again, once (sess_stale), where the agent can reopen. */
	cJSON_Delete(s->resend);
	s->resend = s->after_cancel && a->can_close && (a->can_resume ||
	    a->can_load) ? cJSON_Duplicate(pr->blocks, 1) : NULL;
	s->after_cancel = s->said = 0;
	cJSON_AddStringToObject(p, "sessionId", s->id);
	cJSON_AddItemToObject(p, "prompt", pr->blocks);
	pr->blocks = NULL;
	acp_prompt_free(pr);
	acp_tools_clear(s);
	/* No request timeout: the turn watchdog covers it (TN-8); it
	 * starts now, as starting the agent has timeouts of its own. */
	acp_timer_ms(s->turn_ev, a->cfg.turn_timeout_ms);
	s->prompt_rid = jsonrpc_call(a->rpc, "session/prompt", p, 0,
	    sess_prompt_reply, s);
	if (s->prompt_rid < 0) {
		struct acp_turn_end te;

		memset(&te, 0, sizeof(te));
		te.stop = ACP_STOP_ERROR;
		te.error = "the agent is gone";
		sess_turn_end(s, &te);
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
		acp_pool_touch(a->pool, a);
	if (s->st == S_OPEN && a->state == AG_READY)
		sess_send_prompt(s);
	else if (s->st == S_CLOSED && !s->want_open) {
		s->want_open = 1;
		if (a->state == AG_READY)
			acp_session_do_open(s);
		else
			acp_agent_want(a);
	}
	return 0;
}

static void
sess_defer_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;
	struct acp_turn_end te;

	(void)fd;
	(void)ev;
	memset(&te, 0, sizeof(te));
	te.stop = ACP_STOP_CANCELLED;
	sess_turn_end(s, &te);
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
		s->after_cancel = 1;
	}
	/* Cancellation duties: every pending card answered "cancelled". */
	acp_perms_cancel(s, 1);
	acp_timer_ms(s->cancel_ev, a->cfg.cancel_timeout_ms);
	return 0;
}

static void
sess_turn_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;

	(void)fd;
	(void)ev;
	/* Held, its answer may be waiting for us: we do not blame it. */
	if (s->a->held) {
		acp_timer_ms(s->turn_ev, ACP_HELD_RETRY_MS);
		return;
	}
	acp_warn("%s: turn over the time limit, cancelling", s->a->name);
	s->timed_out = 1;
	acp_session_cancel(s);
}

static void
sess_cancel_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct acp_session *s = arg;
	char why[128];

	(void)fd;
	(void)ev;
	if (s->a->held) {
		acp_timer_ms(s->cancel_ev, ACP_HELD_RETRY_MS);
		return;
	}
	snprintf(why, sizeof(why), "no answer to session/cancel within %d s",
	    s->a->cfg.cancel_timeout_ms / 1000);
	/* TN-8: a wedged agent is restarted; the turn ends as it dies. */
	acp_agent_abort(s->a, why);
}

static void
sess_mode_reply(struct jsonrpc *j, const cJSON *res,
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
		acp_str_set(&s->mode_cur, s->mode_want);
		CALL_S(s, on_mode, s, s->mode_cur, s->arg);
	}
}

int
acp_session_set_mode(struct acp_session *s, const char *mode)
{
	acp_str_set(&s->mode_want, mode);
	if (s->st == S_OPEN && s->a->rpc != NULL)
		return sess_send_set_mode(s, mode, sess_mode_reply) >= 0 ?
		    0 : -1;
	return 0;	/* applied when the session opens */
}

static void
sess_config_reply(struct jsonrpc *j, const cJSON *res,
    const struct jsonrpc_error *err, void *arg)
{
	struct acp_session *s = arg;

	(void)j;
	if (err != NULL) {
		acp_warn("%s: session/set_config_option: %s", s->a->name,
		    err->message);
		return;
	}
	acp_update_config(s, cJSON_GetObjectItemCaseSensitive(res,
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
	acp_str_set(&c->value, value);
	if (c->id == NULL || c->value == NULL)
		return -1;
	if (s->st == S_OPEN && s->a->rpc != NULL)
		return sess_send_set_config(s, c, sess_config_reply) >= 0 ?
		    0 : -1;
	return 0;
}

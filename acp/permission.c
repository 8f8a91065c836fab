/*
 * permission.c: session/request_permission. The agent asks; a card waits
 * for a person (on_permission) and acp_session_permit() answers it. Cards
 * are settled "cancelled" when the turn is cancelled or ends, when the
 * agent withdraws its request or dies, and when the session goes.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "acp/internal.h"
#include "acp/jsonrpc.h"
#include "acp/log.h"
#include "acp/plain.h"

#define MAX_PERMS_PENDING	16	/* unanswered requests per session */

struct perm {
	TAILQ_ENTRY(perm)	 entry;
	uint64_t		 id;
	cJSON			*rid;	/* the agent's request id */
};

static uint64_t		 perm_seq;

static cJSON *
perm_cancelled(void)
{
	cJSON *r = cJSON_CreateObject(), *o;

	o = cJSON_AddObjectToObject(r, "outcome");
	cJSON_AddStringToObject(o, "outcome", "cancelled");
	return r;
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

/* session/request_permission: a card for people, or "cancelled". */
int
acp_perm_request(struct acp_agent *a, const cJSON *params, const cJSON *id)
{
	struct acp_session *s;
	struct acp_permission p;
	struct acp_perm_option *opts = NULL;
	char (*names)[ACP_PLAIN_NAME] = NULL;
	struct acp_tool view;
	struct perm *pe;
	struct tool *t;
	const cJSON *tc, *ol, *o;
	const char *tid;
	size_t n = 0;
	int waiting = 0;

	s = acp_session_find(a, acp_jstr(params, "sessionId"));
	/* Unanswered, the turn would hang: refuse what we cannot ask. */
	if (s == NULL || !s->in_turn || s->cancel_sent ||
	    a->cb.on_permission == NULL) {
		acp_info("%s: permission request answered \"cancelled\"",
		    a->name);
		return jsonrpc_respond(a->rpc, id, perm_cancelled());
	}
	/* Each waits for a person: more than a few is a flood, not a
	 * question. */
	TAILQ_FOREACH(pe, &s->perms, entry)
		if (++waiting >= MAX_PERMS_PENDING) {
			acp_warn("%s: over %d permission requests waiting; "
			    "answered \"cancelled\"", a->name,
			    MAX_PERMS_PENDING);
			return jsonrpc_respond(a->rpc, id, perm_cancelled());
		}
	tc = cJSON_GetObjectItemCaseSensitive(params, "toolCall");
	tid = acp_jstr(tc, "toolCallId");
	t = acp_tool_find(s, tid != NULL ? tid : "", 1);
	ol = cJSON_GetObjectItemCaseSensitive(params, "options");
	if (t == NULL || (pe = calloc(1, sizeof(*pe))) == NULL) {
		jsonrpc_respond(a->rpc, id, perm_cancelled());
		return 0;
	}
	acp_tool_merge(t, tc);
	pe->id = ++perm_seq;
	pe->rid = cJSON_Duplicate(id, 1);
	TAILQ_INSERT_TAIL(&s->perms, pe, entry);
	if (cJSON_IsArray(ol) && cJSON_GetArraySize(ol) > 0 &&
	    (opts = calloc((size_t)cJSON_GetArraySize(ol), sizeof(*opts))) !=
	    NULL && (names = calloc((size_t)cJSON_GetArraySize(ol),
	    sizeof(*names))) == NULL) {
		free(opts);
		opts = NULL;
	}
	if (opts != NULL) {
		/* The id goes back as sent; the name is for people (AU-6). */
		cJSON_ArrayForEach(o, ol) {
			const char *name;

			if (acp_jstr(o, "optionId") == NULL)
				continue;
			opts[n].id = acp_jstr(o, "optionId");
			name = acp_jstr(o, "name") != NULL ?
			    acp_jstr(o, "name") : opts[n].id;
			acp_plain(names[n], sizeof(names[n]), name,
			    strlen(name));
			opts[n].name = names[n];
			opts[n].kind = perm_kind(acp_jstr(o, "kind"));
			n++;
		}
	}
	acp_tool_view(t, &view, 1, 0);
	p.id = pe->id;
	p.tool = &view;
	p.options = opts;
	p.noptions = n;
	CALL_S(s, on_permission, s, &p, s->arg);
	free(names);
	free(opts);
	return 0;
}

static int
perm_ids_equal(const cJSON *x, const cJSON *y)
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
		r = perm_cancelled();
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

/* Settle every pending permission "cancelled"; tell: drop their cards. */
void
acp_perms_cancel(struct acp_session *s, int tell)
{
	struct perm *pe;

	while ((pe = TAILQ_FIRST(&s->perms)) != NULL)
		perm_settle(s, pe, NULL, tell);
}

/* $/cancel_request: the agent withdraws a request, a permission card. */
void
acp_perm_withdraw(struct acp_agent *a, const cJSON *rid)
{
	struct acp_session *s, *ts;
	struct perm *pe, *tp;

	TAILQ_FOREACH_SAFE(s, &a->sessions, entry, ts)
		TAILQ_FOREACH_SAFE(pe, &s->perms, entry, tp)
			if (perm_ids_equal(pe->rid, rid))
				perm_settle(s, pe, NULL, 1);
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

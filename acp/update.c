/*
 * update.c: session/update, what the agent tells about a session: text
 * chunks, tool calls (merged with their updates, for the permission cards
 * too), plans, commands, modes, options and titles, passed on to the
 * callbacks. Updates for a session that session/new has not named yet are
 * kept until it has.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "acp/internal.h"
#include "acp/log.h"

#define MAX_TOOLS		64	/* remembered per session */
#define MAX_EARLY_UPDATES	1024	/* before session/new answers */
#define MAX_EARLY_BYTES		(16u << 20)	/* the same, in bytes */

struct tool {
	TAILQ_ENTRY(tool)	 entry;
	char			*id, *title, *kind, *status, *path, *text;
	char			*raw_input;
};

struct early {
	TAILQ_ENTRY(early)	 entry;
	cJSON			*params;
	size_t			 bytes;	/* json_bytes() of params */
};

static void
tool_free(struct tool *t)
{
	free(t->id);
	free(t->title);
	free(t->kind);
	free(t->status);
	free(t->path);
	free(t->text);
	free(t->raw_input);
	free(t);
}

/*
 * The tool call id of s; with create, made when unknown (past MAX_TOOLS
 * the oldest is forgotten).
 */
struct tool *
acp_tool_find(struct acp_session *s, const char *id, int create)
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
		tool_free(old);
	}
	return t;
}

void
acp_tools_clear(struct acp_session *s)
{
	struct tool *t;

	while ((t = TAILQ_FIRST(&s->tools)) != NULL) {
		TAILQ_REMOVE(&s->tools, t, entry);
		tool_free(t);
	}
	s->ntools = 0;
}

/* Merge a ToolCall or ToolCallUpdate (only changed fields) into t. */
void
acp_tool_merge(struct tool *t, const cJSON *u)
{
	const cJSON *c, *it, *inner, *raw;
	const char *v;
	char *txt;

	if ((v = acp_jstr(u, "title")) != NULL)
		acp_str_set(&t->title, v);
	if ((v = acp_jstr(u, "kind")) != NULL)
		acp_str_set(&t->kind, v);
	if ((v = acp_jstr(u, "status")) != NULL)
		acp_str_set(&t->status, v);
	c = cJSON_GetObjectItemCaseSensitive(u, "locations");
	if (cJSON_IsArray(c) && (it = cJSON_GetArrayItem(c, 0)) != NULL &&
	    (v = acp_jstr(it, "path")) != NULL)
		acp_str_set(&t->path, v);
	c = cJSON_GetObjectItemCaseSensitive(u, "content");
	if (cJSON_IsArray(c)) {
		/* content replaces the list: take its first text and diff. */
		acp_str_set(&t->text, NULL);
		cJSON_ArrayForEach(it, c) {
			v = acp_jstr(it, "type");
			if (v == NULL)
				continue;
			if (strcmp(v, "diff") == 0 &&
			    acp_jstr(it, "path") != NULL)
				acp_str_set(&t->path, acp_jstr(it, "path"));
			inner = cJSON_GetObjectItemCaseSensitive(it,
			    "content");
			if (strcmp(v, "content") == 0 && t->text == NULL &&
			    inner != NULL && acp_jstr(inner, "text") != NULL)
				acp_str_set(&t->text, acp_jstr(inner, "text"));
		}
	}
	raw = cJSON_GetObjectItemCaseSensitive(u, "rawInput");
	if (raw != NULL && (txt = cJSON_PrintUnformatted(raw)) != NULL) {
		free(t->raw_input);
		t->raw_input = txt;
	}
}

void
acp_tool_view(struct tool *t, struct acp_tool *v, int update, int replay)
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

/* ---- session/update ---- */

static void
update_text(struct acp_session *s, enum acp_text_kind kind, const cJSON *u)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(u, "content");
	struct acp_text t;
	const char *type = acp_jstr(c, "type"), *txt = acp_jstr(c, "text");

	if (type == NULL || strcmp(type, "text") != 0 || txt == NULL)
		return;		/* images and the like: not text */
	t.kind = kind;
	t.text = txt;
	t.len = strlen(txt);
	t.message_id = acp_jstr(u, "messageId");
	t.replay = s->replaying;
	t.cancelling = s->cancel_sent;
	CALL_S(s, on_text, s, &t, s->arg);
}

static void
update_tool(struct acp_session *s, const cJSON *u, int is_update)
{
	struct acp_tool v;
	struct tool *t;
	const char *id = acp_jstr(u, "toolCallId");

	if (id == NULL || (t = acp_tool_find(s, id, 1)) == NULL)
		return;
	acp_tool_merge(t, u);
	acp_tool_view(t, &v, is_update, s->replaying);
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
		if (acp_jstr(e, "content") == NULL)
			continue;
		pl[n].content = acp_jstr(e, "content");
		pl[n].priority = acp_jstr(e, "priority") ?
		    acp_jstr(e, "priority") : "medium";
		pl[n].status = acp_jstr(e, "status") ? acp_jstr(e, "status") :
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
		if ((name = acp_jstr(e, "name")) == NULL)
			continue;
		if (name[0] == '/')
			name++;		/* leniency: some send "/name" */
		c[n].name = name;
		c[n].description = acp_jstr(e, "description") ?
		    acp_jstr(e, "description") : "";
		in = cJSON_GetObjectItemCaseSensitive(e, "input");
		c[n].hint = acp_jstr(in, "hint");
		n++;
	}
	CALL_S(s, on_commands, s, c, n, s->arg);
	free(c);
}

static void
update_mode(struct acp_session *s, const cJSON *u)
{
	const char *m = acp_jstr(u, "currentModeId");

	if (m == NULL)
		m = acp_jstr(u, "modeId");	/* as the docs page has it */
	if (m == NULL)
		return;
	acp_str_set(&s->mode_cur, m);
	CALL_S(s, on_mode, s, m, s->arg);
}

void
acp_update_config(struct acp_session *s, const cJSON *opts)
{
	char *txt;

	if (!cJSON_IsArray(opts) || (txt = cJSON_PrintUnformatted(opts)) ==
	    NULL)
		return;
	CALL_S(s, on_config, s, txt, s->arg);
	free(txt);
}

static void
update_dispatch(struct acp_session *s, const cJSON *u)
{
	const char *k = acp_jstr(u, "sessionUpdate");

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
		acp_update_config(s,
		    cJSON_GetObjectItemCaseSensitive(u, "configOptions"));
	else if (strcmp(k, "session_info_update") == 0) {
		if (acp_jstr(u, "title") != NULL)
			CALL_S(s, on_title, s, acp_jstr(u, "title"), s->arg);
	}
	/* usage_update, notices, vendor kinds: ignored on purpose. */
}

void
acp_early_clear(struct acp_agent *a)
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

void
acp_update_route(struct acp_agent *a, const cJSON *params)
{
	struct acp_session *s;
	struct early *e;
	const char *sid = acp_jstr(params, "sessionId");
	size_t bytes = 0;

	if ((s = acp_session_find(a, sid)) != NULL) {
		update_dispatch(s,
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

/*
 * session/new has named s: pass on what the agent sent for it before its
 * answer (agents may), and drop the rest once no other session/new is
 * awaited.
 */
void
acp_update_early(struct acp_session *s)
{
	struct acp_agent *a = s->a;
	struct early *e, *te;

	TAILQ_FOREACH_SAFE(e, &a->early, entry, te) {
		if (strcmp(acp_jstr(e->params, "sessionId"), s->id) != 0)
			continue;
		TAILQ_REMOVE(&a->early, e, entry);
		a->nearly--;
		a->early_bytes -= e->bytes;
		acp_update_route(a, e->params);
		cJSON_Delete(e->params);
		free(e);
	}
	if (a->news == 0)
		acp_early_clear(a);
}

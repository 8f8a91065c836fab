/*
 * update.c: session/update, what the agent tells about a session: text
 * chunks, tool calls (merged with their updates, for the permission cards
 * too), plans, commands, modes, options and titles, passed on to the
 * callbacks. Updates for a session that session/new has not named yet are
 * kept until it has. What people read of them is made plain here (AU-6,
 * plain.c): titles, kinds, paths, input, plans, command names and titles.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "acp/internal.h"
#include "acp/log.h"
#include "acp/plain.h"

#define MAX_TOOLS		64	/* remembered per session */
#define MAX_EARLY_UPDATES	1024	/* before session/new answers */
#define MAX_EARLY_BYTES		(16u << 20)	/* the same, in bytes */

struct tool {
	TAILQ_ENTRY(tool)	 entry;
	char			*id, *title, *kind, *status, *path, *text;
	char			*raw_input;
	char			*input;		/* acp_plain_input() */
	int			 creates;	/* a diff without old text */
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
	free(t->input);
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

/* Set *dst to s made plain (AU-6), cut to size bytes. */
static void
tool_set_plain(char **dst, const char *s, size_t size)
{
	free(*dst);
	*dst = acp_plain_dup(s, size);
}

/*
 * A diff: its path, whether it makes a file, and, while no rawInput says
 * more, the input a card shows (the path and the size of the new text).
 */
static void
tool_diff(struct tool *t, const cJSON *d)
{
	const cJSON *old = cJSON_GetObjectItemCaseSensitive(d, "oldText");
	char input[ACP_PLAIN_INPUT];

	tool_set_plain(&t->path, acp_jstr(d, "path"), ACP_PLAIN_TEXT);
	t->creates = old == NULL || cJSON_IsNull(old) ||
	    (cJSON_IsString(old) && old->valuestring[0] == '\0');
	if (t->raw_input == NULL) {
		free(t->input);
		t->input = acp_plain_input(input, sizeof(input), d) > 0 ?
		    strdup(input) : NULL;
	}
}

/*
 * Merge a ToolCall or ToolCallUpdate (only changed fields) into t. What
 * people read is kept plain; the id and rawInput as sent.
 */
void
acp_tool_merge(struct tool *t, const cJSON *u)
{
	const cJSON *c, *it, *inner, *raw;
	const char *v;
	char *txt, input[ACP_PLAIN_INPUT];

	if ((v = acp_jstr(u, "title")) != NULL)
		tool_set_plain(&t->title, v, ACP_PLAIN_TITLE);
	if ((v = acp_jstr(u, "kind")) != NULL)
		tool_set_plain(&t->kind, v, ACP_PLAIN_WORD);
	if ((v = acp_jstr(u, "status")) != NULL)
		tool_set_plain(&t->status, v, ACP_PLAIN_WORD);
	c = cJSON_GetObjectItemCaseSensitive(u, "locations");
	if (cJSON_IsArray(c) && (it = cJSON_GetArrayItem(c, 0)) != NULL &&
	    (v = acp_jstr(it, "path")) != NULL)
		tool_set_plain(&t->path, v, ACP_PLAIN_TEXT);
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
				tool_diff(t, it);
			inner = cJSON_GetObjectItemCaseSensitive(it,
			    "content");
			if (strcmp(v, "content") == 0 && t->text == NULL &&
			    inner != NULL && acp_jstr(inner, "text") != NULL)
				acp_str_set(&t->text, acp_jstr(inner, "text"));
		}
	}
	/*
	 * Before it runs, a call's text is what it will do: gemini puts an
	 * MCP tool's arguments there and sends no rawInput. After, it is
	 * the output, no input.
	 */
	if (t->raw_input == NULL && t->input == NULL && t->text != NULL &&
	    (t->status == NULL || strcmp(t->status, "pending") == 0) &&
	    acp_plain(input, sizeof(input), t->text, strlen(t->text)) > 0)
		t->input = strdup(input);
	raw = cJSON_GetObjectItemCaseSensitive(u, "rawInput");
	if (raw != NULL && (txt = cJSON_PrintUnformatted(raw)) != NULL) {
		free(t->raw_input);
		t->raw_input = txt;
		free(t->input);
		t->input = acp_plain_input(input, sizeof(input), raw) > 0 ?
		    strdup(input) : NULL;
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
	v->input = t->input;
	v->creates = t->creates;
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

/* Free the strings of n plan entries or commands made plain, and them. */
static void
plain_strs_free(char **strs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
}

/* s made plain into strs[*n] (kept till plain_strs_free), or dflt. */
static const char *
plain_str(char **strs, size_t *n, const char *s, size_t size,
    const char *dflt)
{
	if (s == NULL || (strs[*n] = acp_plain_dup(s, size)) == NULL)
		return dflt;
	return strs[(*n)++];
}

static void
update_plan(struct acp_session *s, const cJSON *u)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(u, "entries"), *e;
	struct acp_plan_entry *pl;
	char **strs;
	size_t n = 0, ns = 0;
	int sz = cJSON_GetArraySize(l);

	if (!cJSON_IsArray(l))
		return;
	if ((pl = calloc((size_t)sz + 1, sizeof(*pl))) == NULL)
		return;
	if ((strs = calloc((size_t)sz * 3 + 1, sizeof(*strs))) == NULL) {
		free(pl);
		return;
	}
	cJSON_ArrayForEach(e, l) {
		if (acp_jstr(e, "content") == NULL)
			continue;
		pl[n].content = plain_str(strs, &ns, acp_jstr(e, "content"),
		    ACP_PLAIN_TEXT, "");
		pl[n].priority = plain_str(strs, &ns, acp_jstr(e, "priority"),
		    ACP_PLAIN_WORD, "medium");
		pl[n].status = plain_str(strs, &ns, acp_jstr(e, "status"),
		    ACP_PLAIN_WORD, "pending");
		n++;
	}
	CALL_S(s, on_plan, s, pl, n, s->arg);
	plain_strs_free(strs, ns);
	free(pl);
}

static void
update_commands(struct acp_session *s, const cJSON *u)
{
	const cJSON *l, *e, *in;
	struct acp_command *c;
	char **strs;
	size_t n = 0, ns = 0;
	const char *name;
	int sz;

	l = cJSON_GetObjectItemCaseSensitive(u, "availableCommands");
	if (!cJSON_IsArray(l))
		return;
	sz = cJSON_GetArraySize(l);
	if ((c = calloc((size_t)sz + 1, sizeof(*c))) == NULL)
		return;
	if ((strs = calloc((size_t)sz * 3 + 1, sizeof(*strs))) == NULL) {
		free(c);
		return;
	}
	cJSON_ArrayForEach(e, l) {
		if ((name = acp_jstr(e, "name")) == NULL)
			continue;
		if (name[0] == '/')
			name++;		/* leniency: some send "/name" */
		/* A name that is nothing once plain cannot be typed. */
		if ((name = plain_str(strs, &ns, name, ACP_PLAIN_NAME,
		    NULL)) == NULL || name[0] == '\0')
			continue;
		c[n].name = name;
		c[n].description = plain_str(strs, &ns,
		    acp_jstr(e, "description"), ACP_PLAIN_TEXT, "");
		in = cJSON_GetObjectItemCaseSensitive(e, "input");
		c[n].hint = plain_str(strs, &ns, acp_jstr(in, "hint"),
		    ACP_PLAIN_NAME, NULL);
		n++;
	}
	CALL_S(s, on_commands, s, c, n, s->arg);
	plain_strs_free(strs, ns);
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
	/* AU-6: an id that is not plain is shown nowhere (session.c). */
	if (acp_plain_is(m))
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
update_title(struct acp_session *s, const cJSON *u)
{
	char *t;

	if ((t = acp_plain_dup(acp_jstr(u, "title"), ACP_PLAIN_TITLE)) ==
	    NULL)
		return;
	CALL_S(s, on_title, s, t, s->arg);
	free(t);
}

static void
update_dispatch(struct acp_session *s, const cJSON *u)
{
	const char *k = acp_jstr(u, "sessionUpdate");

	if (k == NULL)
		return;
	if (s->settling)
		acp_session_settle_more(s);
	/* What the agent did in this turn (sess_stale in session.c). */
	if (s->in_turn && !s->replaying && (strncmp(k, "agent_", 6) == 0 ||
	    strncmp(k, "tool_call", 9) == 0 || strcmp(k, "plan") == 0))
		s->said++;
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
	else if (strcmp(k, "session_info_update") == 0)
		update_title(s, u);
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

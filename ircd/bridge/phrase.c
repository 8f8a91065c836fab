/*
 * phrase.c: a tool call in words for people (PM-1, AU-6). Adapters title
 * their tool calls each in their own style (reference/real-adapters-
 * offline.md): claude "Write fake.txt" and "mcp__agentircd__schedule",
 * codex "Edit /abs/path" and "Approve MCP tool call", gemini "Writing to
 * fake.txt" and "schedule (agentircd MCP Server)". A card copying them
 * reads "gemini wants to Writing to ...", and a title is the agent's
 * claim, not what will run. So the phrase comes from the input first,
 * which is what the tool will really do, and from the title last. The
 * same words, in the past tense, tell what a finished call did (TN-5).
 */
#include "compat.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/phrase.h"

/* Room for a phrase before it is made plain and cut to the caller's size. */
#define PHRASE_MAX	1024

static const char *
phrase_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
phrase_is(const char *s, const char *word)
{
	return s != NULL && strcmp(s, word) == 0;
}

/*
 * The MCP server and tool a call is for, as each adapter says it:
 * claude's title mcp__<server>__<tool>, gemini's "<tool> (<server> MCP
 * Server)", codex's rawInput server_name with its message 'Allow the
 * <server> MCP server to run tool "<tool>"?'.
 */
static int
phrase_mcp(const struct acp_tool *t, const cJSON *raw, char *server,
    size_t slen, char *tool, size_t tlen)
{
	const char *title = t->title, *p, *q, *msg;
	const cJSON *req;
	size_t n;

	if (strncmp(title, "mcp__", 5) == 0 &&
	    (p = strstr(title + 5, "__")) != NULL && p > title + 5 &&
	    p[2] != '\0' && strchr(title, ' ') == NULL) {
		n = (size_t)(p - (title + 5));
		snprintf(server, slen, "%.*s", (int)n, title + 5);
		snprintf(tool, tlen, "%s", p + 2);
		return 1;
	}
	n = strlen(title);
	if (n > 14 && strcmp(title + n - 12, " MCP Server)") == 0 &&
	    (p = strstr(title, " (")) != NULL && p > title &&
	    (size_t)(p - title) + 2 < n - 12) {
		snprintf(tool, tlen, "%.*s", (int)(p - title), title);
		snprintf(server, slen, "%.*s", (int)(n - 12 - (size_t)(p + 2 -
		    title)), p + 2);
		return 1;
	}
	if (raw != NULL && phrase_str(raw, "server_name") != NULL) {
		req = cJSON_GetObjectItemCaseSensitive(raw, "request");
		msg = phrase_str(req, "message");
		if (msg != NULL && (p = strstr(msg, "tool \"")) != NULL &&
		    (q = strchr(p + 6, '"')) != NULL && q > p + 6) {
			snprintf(server, slen, "%s",
			    phrase_str(raw, "server_name"));
			snprintf(tool, tlen, "%.*s", (int)(q - (p + 6)), p + 6);
			return 1;
		}
	}
	return 0;
}

/*
 * The command a call runs: rawInput's command or cmd, a string or an
 * argv. An argv that only wraps a script in a shell (codex's
 * ["/bin/bash", "-lc", "make"]) is the script; the card's input still
 * shows all of it.
 */
static int
phrase_command(const cJSON *raw, char *buf, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(raw, "command");
	const cJSON *w;
	const char *sh, *base;
	size_t used = 0;

	if (v == NULL)
		v = cJSON_GetObjectItemCaseSensitive(raw, "cmd");
	if (cJSON_IsString(v) && v->valuestring[0] != '\0') {
		snprintf(buf, len, "%s", v->valuestring);
		return 1;
	}
	if (!cJSON_IsArray(v) || v->child == NULL)
		return 0;
	if (cJSON_GetArraySize(v) == 3 && cJSON_IsString(v->child) &&
	    cJSON_IsString(v->child->next) &&
	    cJSON_IsString(v->child->next->next)) {
		sh = v->child->valuestring;
		base = strrchr(sh, '/') != NULL ? strrchr(sh, '/') + 1 : sh;
		if ((phrase_is(base, "sh") || phrase_is(base, "bash") ||
		    phrase_is(base, "dash") || phrase_is(base, "zsh")) &&
		    (phrase_is(v->child->next->valuestring, "-c") ||
		    phrase_is(v->child->next->valuestring, "-lc"))) {
			snprintf(buf, len, "%s",
			    v->child->next->next->valuestring);
			return 1;
		}
	}
	buf[0] = '\0';
	cJSON_ArrayForEach(w, v) {
		if (!cJSON_IsString(w) || used + 2 >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		    used > 0 ? " " : "", w->valuestring);
		if (used >= len)
			used = len - 1;
	}
	return buf[0] != '\0';
}

/*
 * The path a call touches, and whether it makes a new file: rawInput's
 * file_path, path or abs_path (content without old_string is a whole
 * file), the first of codex's changes (type add, update or delete), else
 * the path acp/ took from the locations or the diff.
 */
static const char *
phrase_path(const struct acp_tool *t, const cJSON *raw, int *creates,
    int *deletes)
{
	static const char *const keys[] = { "file_path", "path", "abs_path" };
	const cJSON *ch;
	const char *p, *type;
	size_t i;

	*creates = t->creates;
	*deletes = 0;
	ch = cJSON_GetObjectItemCaseSensitive(raw, "changes");
	if (cJSON_IsObject(ch) && ch->child != NULL &&
	    ch->child->string != NULL) {
		type = phrase_str(ch->child, "type");
		*creates = phrase_is(type, "add");
		*deletes = phrase_is(type, "delete");
		return ch->child->string;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((p = phrase_str(raw, keys[i])) != NULL && *p != '\0') {
			if (phrase_str(raw, "content") != NULL &&
			    phrase_str(raw, "old_string") == NULL)
				*creates = 1;
			return p;
		}
	return t->path;
}

/* path, relative to cwd when it is inside it. */
static const char *
phrase_relative(const char *path, const char *cwd)
{
	size_t n;

	if (cwd == NULL || (n = strlen(cwd)) == 0)
		return path;
	while (n > 1 && cwd[n - 1] == '/')
		n--;
	if (strncmp(path, cwd, n) == 0 && path[n] == '/' && path[n + 1] != '\0')
		return path + n + 1;
	return path;
}

/*
 * The title as the end of "asks to": a title that starts with a
 * capitalised verb ("Run tests", "Touch notes.txt") is lowercased; any
 * other (a gerund, a tool name, a sentence) is quoted after "use".
 */
static void
phrase_title(char *buf, size_t len, const char *title)
{
	size_t w = strcspn(title, " ");
	size_t i;
	int verb = w >= 2 && isupper((unsigned char)title[0]);

	for (i = 1; verb && i < w; i++)
		if (!islower((unsigned char)title[i]))
			verb = 0;
	if (verb && w > 3 && strncmp(title + w - 3, "ing", 3) == 0)
		verb = 0;
	if (title[0] == '\0')
		snprintf(buf, len, "use a tool");
	else if (verb)
		snprintf(buf, len, "%c%s", tolower((unsigned char)title[0]),
		    title + 1);
	else
		snprintf(buf, len, "use \"%s\"", title);
}

size_t
phrase_tool(char *buf, size_t len, const struct acp_tool *t, const char *cwd)
{
	char out[PHRASE_MAX], a[PHRASE_MAX / 2], b[PHRASE_MAX / 4];
	cJSON *raw = t->raw_input != NULL ? cJSON_Parse(t->raw_input) : NULL;
	const char *kind = t->kind != NULL ? t->kind : "other", *path, *url;
	int creates, deletes;

	if (!cJSON_IsObject(raw)) {
		cJSON_Delete(raw);
		raw = NULL;
	}
	path = phrase_path(t, raw, &creates, &deletes);
	if (phrase_mcp(t, raw, a, sizeof(a), b, sizeof(b)))
		snprintf(out, sizeof(out), "use %s's %s tool", a, b);
	else if (raw != NULL && phrase_command(raw, a, sizeof(a)))
		snprintf(out, sizeof(out), "run `%s`", a);
	else if (path != NULL && *path != '\0' && (phrase_is(kind, "read") ||
	    phrase_is(kind, "edit") || phrase_is(kind, "delete") ||
	    phrase_is(kind, "move") || phrase_is(kind, "search")))
		snprintf(out, sizeof(out), "%s %s",
		    deletes || phrase_is(kind, "delete") ? "delete" :
		    !phrase_is(kind, "edit") ? kind : creates ? "write" : "edit",
		    phrase_relative(path, cwd));
	else if (phrase_is(kind, "fetch") && raw != NULL &&
	    (url = phrase_str(raw, "url")) != NULL)
		snprintf(out, sizeof(out), "fetch %s", url);
	else if (phrase_is(kind, "execute") && t->title[0] != '\0')
		snprintf(out, sizeof(out), "run `%s`", t->title);
	else
		phrase_title(out, sizeof(out), t->title);
	cJSON_Delete(raw);
	return acp_plain(buf, len, out, strlen(out));
}

/*
 * The past tense of a phrase's verb, its first word: the irregular ones
 * phrases and adapters' titles use, else the regular rule ("touch"
 * "touched", "create" "created", "copy" "copied").
 */
static void
phrase_past(char *buf, size_t len, const char *verb, size_t n)
{
	static const struct { const char *verb, *past; } irregular[] = {
		{ "begin", "began" }, { "build", "built" }, { "commit",
		"committed" }, { "cut", "cut" }, { "do", "did" }, { "find",
		"found" }, { "get", "got" }, { "give", "gave" }, { "go", "went" },
		{ "make", "made" }, { "overwrite", "overwrote" }, { "plan",
		"planned" }, { "put", "put" }, { "read", "read" }, { "rerun",
		"reran" }, { "rewrite", "rewrote" }, { "run", "ran" }, { "say",
		"said" }, { "see", "saw" }, { "send", "sent" }, { "set", "set" },
		{ "split", "split" }, { "stop", "stopped" }, { "take", "took" },
		{ "think", "thought" }, { "undo", "undid" }, { "write", "wrote" },
	};
	size_t i;

	for (i = 0; i < sizeof(irregular) / sizeof(irregular[0]); i++)
		if (strlen(irregular[i].verb) == n &&
		    strncmp(verb, irregular[i].verb, n) == 0) {
			snprintf(buf, len, "%s", irregular[i].past);
			return;
		}
	if (n > 0 && verb[n - 1] == 'e')
		snprintf(buf, len, "%.*sd", (int)n, verb);
	else if (n > 1 && verb[n - 1] == 'y' &&
	    strchr("aeiou", verb[n - 2]) == NULL)
		snprintf(buf, len, "%.*sied", (int)(n - 1), verb);
	else
		snprintf(buf, len, "%.*sed", (int)n, verb);
}

size_t
phrase_tool_line(char *buf, size_t len, const struct acp_tool *t,
    const char *cwd, enum phrase_outcome outcome, const char *why)
{
	static const struct { const char *kind, *verb; } kinds[] = {
		{ "read", "read" }, { "edit", "edit" }, { "delete", "delete" },
		{ "move", "move" }, { "search", "search" },
		{ "execute", "run" }, { "fetch", "fetch" },
	};
	char what[PHRASE_MAX], out[PHRASE_MAX * 2], past[32];
	const char *q;
	size_t i, w;

	phrase_tool(what, sizeof(what), t, cwd);
	/*
	 * A title phrase_tool could only quote ("use "end.c"") says more
	 * with the kind's verb once the call is done: the tool was used,
	 * and what it was for is known ("edit end.c").
	 */
	if (strncmp(what, "use \"", 5) == 0 && t->kind != NULL &&
	    (q = strrchr(what + 5, '"')) != NULL)
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strcmp(t->kind, kinds[i].kind) == 0) {
				snprintf(out, sizeof(out), "%s %.*s",
				    kinds[i].verb, (int)(q - (what + 5)),
				    what + 5);
				strlcpy(what, out, sizeof(what));
				break;
			}
	switch (outcome) {
	case PHRASE_REFUSED:
		snprintf(out, sizeof(out), "did not %s: %s", what,
		    why != NULL ? why : "it was refused");
		break;
	case PHRASE_FAILED:
		snprintf(out, sizeof(out), "tried to %s \xe2\x80\x94 failed",
		    what);
		break;
	case PHRASE_DONE:
	default:
		w = strcspn(what, " ");
		phrase_past(past, sizeof(past), what, w);
		snprintf(out, sizeof(out), "%s%s", past, what + w);
		break;
	}
	return acp_plain(buf, len, out, strlen(out));
}

/*
 * fuzz_mcp.c: fuzz target for the MCP request path, what any local user
 * reaches on the HTTP port and any agent through its tools: the HTTP
 * admission (Host, Origin, bearer token: SEC-3, SEC-7, L9), the JSON-RPC
 * message (mcp_request) and the schedule tool's arguments
 * (sched_args_parse). The input's first three lines are the Host, Origin
 * and Authorization headers ("-" for none), the rest is the body.
 * Invariants: no memory error, leak or undefined behaviour; admission
 * lets in exactly our own Host with a bearer token and no foreign Origin;
 * every answer prints as valid UTF-8 and carries the request's id; a
 * schedule accepted has a readable name, bounded text, a repetition in
 * range and a first firing within a year.
 */
#include "compat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acp/acp.h"
#include "ircd/bridge/mcp-proto.h"
#include "ircd/bridge/sched-args.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define PORT	38279
#define NOW	1796400000000LL		/* ms, a fixed now */

/* The next line of [*p, end) as a string ("-": NULL); NULL past the end. */
static char *
header(const char **p, const char *end, int *absent)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n;
	char *s;

	*absent = 1;
	if (nl == NULL)
		return NULL;
	n = (size_t)(nl - *p);
	if ((s = malloc(n + 1)) == NULL)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p = nl + 1;
	*absent = strcmp(s, "-") == 0 || memchr(s, '\0', n) != NULL;
	return s;
}

static int
ours(const char *v, const char *scheme)
{
	char a[64], b[64];

	snprintf(a, sizeof(a), "%s127.0.0.1:%d", scheme, PORT);
	snprintf(b, sizeof(b), "%slocalhost:%d", scheme, PORT);
	return strcasecmp(v, a) == 0 || strcasecmp(v, b) == 0;
}

static void
admit(const char *host, const char *origin, const char *auth)
{
	const char *token;
	int r = mcp_http_admit(host, origin, auth, PORT, &token);
	int want = host == NULL || !ours(host, "") ? 421 :
	    origin != NULL && !ours(origin, "http://") ? 403 :
	    auth == NULL || strncmp(auth, "Bearer ", 7) != 0 ? 401 : 0;

	if (r != want || (r == 0) != (token != NULL) ||
	    (r == 0 && token != auth + 7))
		abort();
}

/* An answer prints as valid UTF-8 JSON with the request's id. */
static void
answer(cJSON *reply, const cJSON *id)
{
	char *text, *clean, *a, *b;
	size_t len, clen;

	if (reply == NULL)
		abort();
	/* Printed, since cJSON_Compare finds no infinity equal to itself. */
	a = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(reply, "id"));
	b = cJSON_PrintUnformatted(id);
	if (a == NULL || b == NULL || strcmp(a, b) != 0)
		abort();
	cJSON_free(a);
	cJSON_free(b);
	if ((text = acp_json_print(reply, &len)) == NULL)
		abort();
	if (acp_utf8_scrub(text, len, &clean, &clen) != 0)
		abort();	/* scrubbing changed it: it was not valid */
	free(text);
	cJSON_Delete(reply);
}

static void
schedule(const cJSON *args)
{
	struct sched_args sa;
	char out[4096];

	out[0] = '\0';
	if (sched_args_parse(args, NOW, 60000, &sa, out, sizeof(out)) == -1) {
		if (out[0] == '\0')
			abort();	/* a refusal says why */
		return;
	}
	if (sa.name == NULL || sa.name[0] == '\0' || sa.prompt == NULL ||
	    sa.prompt[0] == '\0' || strlen(sa.name) > SCHED_NAME_MAX ||
	    strlen(sa.prompt) > SCHED_PROMPT_MAX || !acp_plain_is(sa.name) ||
	    sa.every < 0 || sa.every > SCHED_EVERY_MAX ||
	    sa.next > NOW + SCHED_AHEAD_MAX_MS)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	char *h[3];
	const cJSON *id, *args;
	const char *tool;
	cJSON *msg, *reply;
	int absent[3], i;

	for (i = 0; i < 3; i++)
		h[i] = header(&p, end, &absent[i]);
	admit(absent[0] ? NULL : h[0], absent[1] ? NULL : h[1],
	    absent[2] ? NULL : h[2]);
	for (i = 0; i < 3; i++)
		free(h[i]);
	if ((msg = cJSON_ParseWithLength(p, (size_t)(end - p))) == NULL)
		return 0;
	switch (mcp_request(msg, &reply, &id, &tool, &args)) {
	case MCP_REQ_NONE:
		if (reply != NULL || id != NULL)
			abort();	/* only what has no id goes unanswered */
		break;
	case MCP_REQ_REPLY:
		answer(reply, id);
		break;
	case MCP_REQ_TOOLS_LIST:
		if (id == NULL)
			abort();
		break;
	case MCP_REQ_CALL:
		if (id == NULL || (args != NULL && !cJSON_IsObject(args)))
			abort();
		if (tool != NULL && strcmp(tool, "schedule") == 0)
			schedule(args);
		answer(mcp_tool_result(id, tool != NULL ? tool : "", 0), id);
		break;
	}
	cJSON_Delete(msg);
	return 0;
}

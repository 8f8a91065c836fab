/*
 * mcp-proto.c: the MCP request path before any tool runs (SEC-3, SEC-7):
 * who may ask over HTTP, and what a JSON-RPC message asks. Pure, so the
 * HTTP form and the socket form share it, and fuzz_mcp drives it.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "acp/jsonrpc.h"
#include "ircd/bridge/mcp-proto.h"

/*
 * SEC-7, L9: exactly 127.0.0.1 or localhost, and our port. Not
 * "http://127.0.0.1.evil.example", and no other Host: a name an attacker
 * points at 127.0.0.1 (DNS rebinding) is not ours.
 */
int
mcp_http_is_us(const char *v, const char *scheme, int port)
{
	static const char *const hosts[] = { "127.0.0.1", "localhost", NULL };
	char want[64];
	size_t i;

	for (i = 0; hosts[i] != NULL; i++) {
		snprintf(want, sizeof(want), "%s%s:%d", scheme, hosts[i], port);
		if (strcasecmp(v, want) == 0)
			return 1;
	}
	return 0;
}

int
mcp_http_admit(const char *host, const char *origin, const char *auth,
    int port, const char **token)
{
	*token = NULL;
	if (host == NULL || !mcp_http_is_us(host, "", port))
		return 421;
	/* Browsers' cross-site requests carry a foreign Origin. */
	if (origin != NULL && !mcp_http_is_us(origin, "http://", port))
		return 403;
	if (auth == NULL || strncmp(auth, "Bearer ", 7) != 0)
		return 401;
	*token = auth + 7;
	return 0;
}

static int
mcp_version_known(const char *v)
{
	static const char *const known[] = { "2024-11-05", "2025-03-26",
	    "2025-06-18", "2025-11-25", NULL };
	size_t i;

	for (i = 0; v != NULL && known[i] != NULL; i++)
		if (strcmp(v, known[i]) == 0)
			return 1;
	return 0;
}

static cJSON *
mcp_initialize(const cJSON *id, const cJSON *params)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    params, "protocolVersion"));
	cJSON *res = cJSON_CreateObject(), *caps, *info;

	/* Echo a version we know, else answer with ours. */
	cJSON_AddStringToObject(res, "protocolVersion", mcp_version_known(v) ?
	    v : MCP_VERSION);
	caps = cJSON_AddObjectToObject(res, "capabilities");
	cJSON_AddFalseToObject(cJSON_AddObjectToObject(caps, "tools"),
	    "listChanged");
	info = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(info, "name", "agentircd");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(res, "instructions",
	    "Tools of the IRC server you are on: schedule prompts for later.");
	return jsonrpc_build_result(id, res);
}

enum mcp_req
mcp_request(const cJSON *msg, cJSON **reply, const cJSON **id,
    const char **tool, const cJSON **args)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *method = cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(msg, "method"));

	*reply = NULL;
	*tool = NULL;
	*args = NULL;
	*id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (method == NULL) {
		if (*id == NULL)
			return MCP_REQ_NONE;	/* a response or junk */
		*reply = jsonrpc_build_error(*id, JSONRPC_INVALID_REQUEST,
		    "Invalid request");
		return MCP_REQ_REPLY;
	}
	if (*id == NULL)
		return MCP_REQ_NONE;	/* notifications: initialized, cancelled */
	if (strcmp(method, "initialize") == 0)
		*reply = mcp_initialize(*id, params);
	else if (strcmp(method, "ping") == 0)
		*reply = jsonrpc_build_result(*id, cJSON_CreateObject());
	else if (strcmp(method, "tools/list") == 0)
		return MCP_REQ_TOOLS_LIST;
	else if (strcmp(method, "tools/call") == 0) {
		*tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		    params, "name"));
		*args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
		if (*args == NULL || cJSON_IsObject(*args))
			return MCP_REQ_CALL;
		*reply = jsonrpc_build_error(*id, JSONRPC_INVALID_PARAMS,
		    "arguments must be an object");
	} else
		*reply = jsonrpc_build_error(*id, JSONRPC_METHOD_NOT_FOUND,
		    "Method not found");
	return MCP_REQ_REPLY;
}

cJSON *
mcp_tool_result(const cJSON *id, const char *text, int iserr)
{
	cJSON *res = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(res, "content");
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(content, t);
	cJSON_AddBoolToObject(res, "isError", iserr);
	return jsonrpc_build_result(id, res);
}

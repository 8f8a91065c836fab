/*
 * mcp-proto.h: the MCP request path before any tool runs. Pure: no
 * server, no conversation; fuzz_mcp drives it.
 */
#ifndef IRCD_BRIDGE_MCP_PROTO_H
#define IRCD_BRIDGE_MCP_PROTO_H

#include <cjson/cJSON.h>

/* The protocol version we speak, and answer with when asked for another. */
#define MCP_VERSION	"2025-06-18"

/*
 * Is v this endpoint (SEC-7, L9): a Host ("" scheme) or an Origin
 * ("http://") of 127.0.0.1 or localhost at port, exactly?
 */
int	mcp_http_is_us(const char *v, const char *scheme, int port);
/*
 * May an HTTP request with these headers (NULL: absent) be served? 0 with
 * *token at the bearer token of auth (not yet looked up), else the HTTP
 * status to refuse it with: 421 (a Host not ours), 403 (a foreign Origin),
 * 401 (no bearer token).
 */
int	mcp_http_admit(const char *host, const char *origin, const char *auth,
	    int port, const char **token);

enum mcp_req {
	MCP_REQ_NONE,		/* a notification or a response: no answer */
	MCP_REQ_REPLY,		/* *reply is the answer */
	MCP_REQ_TOOLS_LIST,	/* the caller answers with its tools */
	MCP_REQ_CALL,		/* the caller runs *tool (NULL: unnamed) */
};

/*
 * What one JSON-RPC message asks. For MCP_REQ_CALL, *args is the call's
 * arguments (NULL or an object: anything else is answered as an error);
 * *id is the message's id for every kind but NONE.
 */
enum mcp_req mcp_request(const cJSON *msg, cJSON **reply, const cJSON **id,
	    const char **tool, const cJSON **args);
/* The answer of a tools/call: its text, and whether it is an error. */
cJSON	*mcp_tool_result(const cJSON *id, const char *text, int iserr);

#endif

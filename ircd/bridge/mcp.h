/*
 * mcp.h: the server's own MCP tool server, offered to every agent
 * session (SEC-3). Agents run "agentircd --mcp-bridge SOCKET", which
 * relays MCP's newline-delimited JSON-RPC to the daemon over a private
 * Unix socket; a token per session says which agent and conversation a
 * call acts as.
 */
#ifndef IRCD_MCP_H
#define IRCD_MCP_H

#include <stddef.h>
#include <stdint.h>

struct conv;

/* Start the tool server; again when it runs is a no-op (a reload). */
int	mcp_init(void);
void	mcp_shutdown(void);
/* The mcpServers JSON array for cv's session (makes its token). */
char	*mcp_servers_json(struct conv *);
/* The same with the HTTP form, for agents that take it; NULL if none. */
char	*mcp_servers_http_json(struct conv *);
/* Forget cv's token (its conversation goes away). */
void	mcp_forget(struct conv *);
/*
 * MN-7: a tool that answers later returns MCP_DEFERRED from its call,
 * having taken the call's handle with mcp_defer() (only there). It then
 * answers once with mcp_answer(), an error result when err; an answer
 * for a client that went away meanwhile goes nowhere, safely.
 */
#define MCP_DEFERRED	2
uint64_t mcp_defer(void);
void	mcp_answer(uint64_t id, const char *text, int err);
/* The bridge (mcp-bridge.c): the program agents start; its exit status. */
int	mcp_bridge_main(const char *socket_path);

#endif

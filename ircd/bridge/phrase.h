/*
 * phrase.h: what a tool call asks to do, in words for people, whatever the
 * adapter's title style (PM-1, AU-6). Pure.
 */
#ifndef IRCD_BRIDGE_PHRASE_H
#define IRCD_BRIDGE_PHRASE_H

#include <stddef.h>

struct acp_tool;

/*
 * "write notes.txt", "run `make check`", "use agentircd's schedule tool",
 * into buf (len bytes, made plain and cut with "…"): a phrase that follows
 * "<agent> asks to". It is read from the tool call's real input first
 * (rawInput's command, paths and MCP names; the diff's path), its kind
 * next, and its title, the adapter's own words, only when nothing else
 * says what it does. Paths inside cwd (the agent's working directory,
 * or NULL) are shown relative to it. Returns the length written.
 */
size_t	phrase_tool(char *buf, size_t len, const struct acp_tool *,
	    const char *cwd);

#endif

/*
 * phrase.h: what a tool call asks to do, and what it did, in words for
 * people, whatever the adapter's title style (PM-1, AU-6, TN-5). Pure.
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

/* What became of a tool call (TN-5). */
enum phrase_outcome {
	PHRASE_DONE,		/* completed */
	PHRASE_FAILED,		/* failed */
	PHRASE_REFUSED		/* failed, and a card or the policy refused it */
};

/*
 * A finished tool call as its line says it after "* <agent> ", from
 * phrase_tool's words: "wrote q.txt", "ran `make`"; "tried to run `make`
 * — failed"; "did not write q.txt: <why>" (why: "card 2 was denied").
 * Made plain and cut to len as phrase_tool. Returns the length.
 */
size_t	phrase_tool_line(char *buf, size_t len, const struct acp_tool *,
	    const char *cwd, enum phrase_outcome, const char *why);

#endif

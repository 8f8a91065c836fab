/*
 * task.h: hand-offs between agents by MCP tool (MN-7): send_to_agent,
 * ask_agent, delegate_task and task_status, each hand-off a task with an
 * id, in flight in memory and kept in the database.
 */
#ifndef IRCD_BRIDGE_TASK_H
#define IRCD_BRIDGE_TASK_H

#include <stddef.h>

struct cJSON;
struct conv;
struct turn;

/* The tools (mcp.c's table): fill out, return 1 for an error result. */
int	task_tool_send(struct conv *, const struct cJSON *args, char *out,
	    size_t len);
/* May return MCP_DEFERRED: it answers when the other agent has. */
int	task_tool_ask(struct conv *, const struct cJSON *args, char *out,
	    size_t len);
int	task_tool_delegate(struct conv *, const struct cJSON *args, char *out,
	    size_t len);
int	task_tool_status(struct conv *, const struct cJSON *args, char *out,
	    size_t len);

/* Turn t of a task started (turn.c). */
void	task_turn_started(struct turn *);
/*
 * Turn t of a task ended (callbacks.c, before turn_done): answered when
 * state is NULL, else "failed" or "cancelled" and why.
 */
void	task_turn_end(struct turn *, const char *state, const char *why);
/* Turn t of a task goes (turn.c): unanswered, unless it ended first. */
void	task_turn_gone(struct turn *);

/*
 * !status: a line for each task in flight made in conversation key or
 * aimed at it, newest first, bounded, to fn.
 */
void	task_here(const char *key, void (*fn)(const char *line, void *),
	    void *arg);

/* At start: what was in flight at the last stop is interrupted. */
int	task_init(void);
/* The server stops: tasks in flight stay so in the database. */
void	task_shutdown(void);

#endif

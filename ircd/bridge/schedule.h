/*
 * schedule.h: scheduled prompts (SC-1..SC-8). Agents make them with the
 * MCP tools; at each firing the server posts a NOTICE header and the
 * prompt in the target conversation and queues it as the agent's turn,
 * an automated one that approves nothing.
 */
#ifndef IRCD_SCHEDULE_H
#define IRCD_SCHEDULE_H

#include <stddef.h>

struct agent;
struct channel;
struct client;
struct conv;
struct cJSON;

int	schedule_init(void);
void	schedule_shutdown(void);

/* The MCP tools (mcp.c): fill out, return 1 for an error result. */
int	schedule_tool_create(struct conv *, const struct cJSON *args, char *out,
	    size_t len);
int	schedule_tool_delete(struct conv *, const struct cJSON *args, char *out,
	    size_t len);
int	schedule_tool_list(struct conv *, const struct cJSON *args, char *out,
	    size_t len);

/* !schedules and !unschedule <id> in conversation key. */
void	schedule_user_list(struct client *, const char *key);
void	schedule_user_delete(struct client *, const char *key, const char *id);
/* A person wrote in conversation key: held firings made there go (SC-5). */
void	schedule_person_spoke(const char *key);
/*
 * SC-7, issue 24: an agent a reload removed keeps its schedules stored,
 * but none fires while it is away; one added back (by nick) has them
 * armed again, and those waiting for consent ask again.
 */
void	schedule_agent_gone(const char *nick);
void	schedule_agent_back(struct agent *);
/* The agent left conversation key (KICK): its schedules there end (SC-7). */
void	schedule_drop(struct agent *, const char *key);
/*
 * SC-7: a conversation went away (a channel destroyed, "#chan"), or a
 * person did (an account deleted, "a:<account>"): its schedules end.
 */
void	schedule_drop_conv(const char *key);
/*
 * SC-7, AU-4: c's connection ended; the schedules of a person not logged
 * in (their private conversation, made or aimed there) end with it.
 */
void	schedule_user_quit(struct client *);
/* SC-8: tell a joiner what is scheduled in ch. */
void	schedule_join_summary(struct client *, struct channel *);

#endif

/*
 * stream.h: an agent's answer as IRC lines (TN-3, TN-4, TN-5), and the
 * backpressure that makes it wait for its readers.
 */
#ifndef IRCD_BRIDGE_STREAM_H
#define IRCD_BRIDGE_STREAM_H

#include <event2/util.h>

#include <stddef.h>

struct conv;
struct turn;

void	agent_send(struct conv *, struct turn *, const char *cmd, const char *text,
	    size_t len, int action);
void	agent_paragraph_end(struct conv *, struct turn *);
void	agent_say(struct conv *, struct turn *, const char *text, size_t len,
	    int action);
size_t	agent_budget(const struct conv *);
int	agent_flush(struct conv *, struct turn *, int all);
void	agent_hold(struct conv *, struct turn *);
/* What agent.c keeps in a turn goes with it (turn_free). */
void	agent_turn_free(struct turn *);
void	agent_typing(struct conv *, const char *state);
void	agent_typing_cb(evutil_socket_t, short, void *);
void	agent_turn_silence(struct turn *);
const char *agent_tool_verb(const char *kind);

#endif

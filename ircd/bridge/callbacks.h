/*
 * callbacks.h: the ACP callbacks of every agent (acp_agent_new).
 */
#ifndef IRCD_BRIDGE_CALLBACKS_H
#define IRCD_BRIDGE_CALLBACKS_H

struct acp_callbacks;

extern const struct acp_callbacks agent_callbacks;

#endif

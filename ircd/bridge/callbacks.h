/*
 * callbacks.h: what every agent's ACP sessions say comes back through
 * this table (acp_agent_new).
 */
#ifndef IRCD_BRIDGE_CALLBACKS_H
#define IRCD_BRIDGE_CALLBACKS_H

struct acp_callbacks;

extern const struct acp_callbacks callbacks_acp;

#endif

/*
 * reload.h: SIGHUP and REHASH for the [agent] sections (issue 24):
 * agents added join their channels, removed ones quit, changed ones take
 * the change (the command at their next process start), and the log and
 * the operators are told what happened.
 */
#ifndef IRCD_BRIDGE_RELOAD_H
#define IRCD_BRIDGE_RELOAD_H

struct conf;

/* Before the core takes nc's [agent] array in place of the running one. */
void	reload_agents(const struct conf *nc);

#endif

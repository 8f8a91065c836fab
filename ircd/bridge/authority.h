/*
 * authority.h: who may make an agent act (AU-1, AU-2, AU-3, AU-8). The
 * config sets the ceilings; these answer, for one person and one agent,
 * what IRC may change within them and what it may be told.
 */
#ifndef IRCD_BRIDGE_AUTHORITY_H
#define IRCD_BRIDGE_AUTHORITY_H

#include <stddef.h>

#include "ircd/bridge/policy.h"

struct agent;
struct client;
struct conv;

/* The strictest of the agent's configured permissions and the channel's (NULL: private). */
enum policy	 authority_ceiling(const struct agent *, const char *channel);
/* The policy in force in cv: its override, clamped to the ceiling (replaces conv_policy's body). */
enum policy	 authority_policy(const struct conv *);
/* AU-1: may c loosen a policy or switch a mode of a? (an IRC operator, or a's admins) */
int		 authority_may_loosen(const struct agent *, const struct client *);
/*
 * AU-2: may c talk to a? If not, why (a sentence for a NOTICE) into why;
 * NULL and 0 leave it unsaid.
 */
int		 authority_may_talk(const struct agent *, const struct client *,
		    char *why, size_t);
/* AU-3: may a be switched into mode id by !mode? initial: its first mode, or NULL. */
int		 authority_mode_allowed(const struct agent *, const char *modeid,
		    const char *initial);
/*
 * AU-1: cv's stored !policy (kept across restarts), read when cv is
 * made; one looser than the ceiling now is clamped to it, and logged.
 */
void		 authority_policy_load(struct conv *);
/*
 * AU-1, at start: every stored !policy looser than today's ceiling is
 * clamped to it, and logged (an upgrade or an edit of the config may have
 * lowered it); one that is no policy is dropped.
 */
void		 authority_clamp_stored(void);
/* !policy p in cv: set, and stored ("policy.<agent>.<convkey>"). */
void		 authority_policy_set(struct conv *, enum policy);
/*
 * AU-3: the mode stored for cv by !mode into buf: 0, or -1 when none;
 * one no longer allowed (initial: the session's first mode) is dropped
 * from the store, and logged.
 */
int		 authority_mode_load(const struct conv *, const char *initial,
		    char *buf, size_t len);
/* !mode id in cv: stored, to be set again when a session opens. */
void		 authority_mode_store(const struct conv *, const char *id);
/*
 * AU-8: how to name cv to asker: "#chan" if asker may see it, else "a
 * channel" (a +s channel asker is not in), or "a private conversation".
 */
const char	*authority_where(const struct client *asker, const struct conv *);
/*
 * AU-8: name (a channel's, or a person's nick) as asker may be told it:
 * "a channel" for a +s channel asker is not in (NULL: everyone there
 * may read it, so never a +s one), or one that is gone.
 */
const char	*authority_channel_name(const struct client *asker, const char *name);

#endif

/*
 * policy.h: the permission policy (PM-4) of an agent in a conversation:
 * its names, which one applies, and what it does with a request. Pure.
 */
#ifndef IRCD_POLICY_H
#define IRCD_POLICY_H

/*
 * POLICY_UNSET is zero so that zeroed memory means "no override here":
 * a conversation without a !policy of its own has the agent's.
 */
enum policy {
	POLICY_UNSET,
	POLICY_ASK,		/* the default: a person answers each card */
	POLICY_ALLOW_READS,	/* tool kinds read and search need no card */
	POLICY_ALLOW_ALL,
	POLICY_DENY_ALL,
};

/* The names in enum order, as usage texts list them (test_policy checks). */
#define POLICY_NAMES	"ask|allow-reads|allow-all|deny-all"

/* What a policy does with one permission request. */
enum policy_verdict {
	POLICY_CARD,		/* a person answers it: open a card (PM-1) */
	POLICY_GRANT,		/* allowed once, without a card */
	POLICY_REFUSE,		/* rejected once, without a card */
};

/* name ("ask", "allow-reads"...) into *p: 0, or -1 when it is none. */
int		 policy_parse(const char *name, enum policy *p);
/*
 * The same for a name kept as a string (the config's permissions, a
 * conversation's override): POLICY_UNSET for NULL, "" or no name.
 */
enum policy	 policy_find(const char *name);
/* The name of p; "" for POLICY_UNSET (what a conversation keeps then). */
const char	*policy_name(enum policy p);
/*
 * The policy that applies: the conversation's override, else the
 * agent's configured one, else ask (the config always sets the agent's,
 * so that last is only for zeroed memory).
 */
enum policy	 policy_resolve(enum policy conv, enum policy agent);
/*
 * AU-1: the order from loosest: allow-all, allow-reads, ask, deny-all.
 * Is p looser than than? POLICY_UNSET is neither looser nor stricter.
 */
int		 policy_looser(enum policy p, enum policy than);
/* The stricter of two; POLICY_UNSET (no ceiling) yields the other. */
enum policy	 policy_strictest(enum policy, enum policy);
/* p, or ceiling when p is looser (POLICY_UNSET ceiling: no limit). */
enum policy	 policy_clamp(enum policy p, enum policy ceiling);
/*
 * AU-3: may !mode pick mode id? modes is the config's list (NULL: none):
 * a name, or "*" for any mode but those that turn the agent's own
 * permission prompts off, which must be listed by name. initial, the
 * agent's first mode (NULL: unknown), is always allowed.
 */
int		 policy_mode_allowed(char *const *modes, const char *id,
		    const char *initial);
/* Does mode id turn the agent's own permission prompts off? */
int		 policy_mode_prompts_off(const char *id);
/* What p does with a request for a tool of kind (NULL: not said). */
enum policy_verdict policy_judge(enum policy p, const char *kind);

#endif

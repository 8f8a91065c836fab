/*
 * policy.c: the permission policy (PM-4): one table of its names, the
 * choice between a conversation's override and the agent's own, and
 * what each policy answers without asking a person.
 */
#include "compat.h"

#include <string.h>

#include "ircd/bridge/policy.h"

/* Indexed by enum policy. */
static const char *const names[] = {
	[POLICY_UNSET] = "",
	[POLICY_ASK] = "ask",
	[POLICY_ALLOW_READS] = "allow-reads",
	[POLICY_ALLOW_ALL] = "allow-all",
	[POLICY_DENY_ALL] = "deny-all",
};
#define NNAMES	(sizeof(names) / sizeof(names[0]))

int
policy_parse(const char *name, enum policy *p)
{
	size_t i;

	if (name == NULL)
		return -1;
	/* From 1: "" names POLICY_UNSET only as what is kept, not typed. */
	for (i = 1; i < NNAMES; i++)
		if (strcmp(name, names[i]) == 0) {
			*p = (enum policy)i;
			return 0;
		}
	return -1;
}

enum policy
policy_find(const char *name)
{
	enum policy p;

	return policy_parse(name, &p) == 0 ? p : POLICY_UNSET;
}

const char *
policy_name(enum policy p)
{
	return (size_t)p < NNAMES ? names[p] : "";
}

enum policy
policy_resolve(enum policy conv, enum policy agent)
{
	if (conv != POLICY_UNSET)
		return conv;
	return agent != POLICY_UNSET ? agent : POLICY_ASK;
}

enum policy_verdict
policy_judge(enum policy p, const char *kind)
{
	switch (p) {
	case POLICY_ALLOW_ALL:
		return POLICY_GRANT;
	case POLICY_ALLOW_READS:
		/* Reading changes nothing; anything else waits for a person. */
		if (kind != NULL && (strcmp(kind, "read") == 0 ||
		    strcmp(kind, "search") == 0))
			return POLICY_GRANT;
		return POLICY_CARD;
	case POLICY_DENY_ALL:
		return POLICY_REFUSE;
	case POLICY_UNSET:
	case POLICY_ASK:
		break;
	}
	return POLICY_CARD;
}

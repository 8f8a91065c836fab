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

/* Indexed by enum policy: higher is looser; UNSET ranks nowhere. */
static const int looseness[] = {
	[POLICY_UNSET] = -1,
	[POLICY_DENY_ALL] = 0,
	[POLICY_ASK] = 1,
	[POLICY_ALLOW_READS] = 2,
	[POLICY_ALLOW_ALL] = 3,
};

static int
rank(enum policy p)
{
	return (size_t)p < NNAMES ? looseness[p] : -1;
}

int
policy_looser(enum policy p, enum policy than)
{
	if (rank(p) < 0 || rank(than) < 0)
		return 0;
	return rank(p) > rank(than);
}

enum policy
policy_strictest(enum policy a, enum policy b)
{
	if (rank(a) < 0)
		return rank(b) < 0 ? POLICY_UNSET : b;
	if (rank(b) < 0)
		return a;
	return rank(a) <= rank(b) ? a : b;
}

enum policy
policy_clamp(enum policy p, enum policy ceiling)
{
	return policy_looser(p, ceiling) ? ceiling : p;
}

/*
 * Modes in which the agent itself stops asking before it acts, so that
 * no card would ever be shown: "*" never opens them (H1).
 */
static const char *const prompts_off[] = {
	"bypassPermissions", "acceptEdits", "dontAsk",	/* claude-agent-acp */
	"yolo", "autoEdit", "auto_edit",		/* gemini */
	"full-access",					/* codex */
};

int
policy_mode_prompts_off(const char *id)
{
	size_t i;

	for (i = 0; i < sizeof(prompts_off) / sizeof(prompts_off[0]); i++)
		if (strcmp(id, prompts_off[i]) == 0)
			return 1;
	return 0;
}

int
policy_mode_allowed(char *const *modes, const char *id, const char *initial)
{
	size_t i;
	int any = 0;

	if (id == NULL || *id == '\0')
		return 0;
	if (initial != NULL && strcmp(id, initial) == 0)
		return 1;
	for (i = 0; modes != NULL && modes[i] != NULL; i++) {
		if (strcmp(modes[i], id) == 0)
			return 1;
		if (strcmp(modes[i], "*") == 0)
			any = 1;
	}
	return any && !policy_mode_prompts_off(id);
}

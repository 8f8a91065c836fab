/*
 * test_policy.c: the permission policy (PM-4): its names, which one
 * applies (a conversation's override, else the agent's), what each
 * answers by itself, their order and ceilings (AU-1), the modes !mode
 * may pick (AU-3), and that the config accepts exactly these names.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/bridge/policy.h"
#include "ircd/conf.h"
#include "tests/unit/tap.h"

static const enum policy all[] = { POLICY_ASK, POLICY_ALLOW_READS,
    POLICY_ALLOW_ALL, POLICY_DENY_ALL };
#define NALL	(sizeof(all) / sizeof(all[0]))

static void
test_names(void)
{
	char joined[128] = "";
	enum policy p;
	size_t i;

	is_str(policy_name(POLICY_ASK), "ask", "name: ask");
	is_str(policy_name(POLICY_ALLOW_READS), "allow-reads",
	    "name: allow-reads");
	is_str(policy_name(POLICY_ALLOW_ALL), "allow-all", "name: allow-all");
	is_str(policy_name(POLICY_DENY_ALL), "deny-all", "name: deny-all");
	is_str(policy_name(POLICY_UNSET), "", "name: unset is \"\"");
	is_str(policy_name((enum policy)99), "", "name: out of range is \"\"");

	for (i = 0; i < NALL; i++) {
		p = POLICY_UNSET;
		ok(policy_parse(policy_name(all[i]), &p) == 0 && p == all[i],
		    "parse: every name back to its policy");
		if (i > 0)
			strlcat(joined, "|", sizeof(joined));
		strlcat(joined, policy_name(all[i]), sizeof(joined));
	}
	is_str(POLICY_NAMES, joined, "POLICY_NAMES lists them all, in order");
	is_int(POLICY_UNSET, 0, "zeroed memory is unset");

	p = POLICY_DENY_ALL;
	is_int(policy_parse("", &p), -1, "parse: \"\" is no name");
	is_int(policy_parse(NULL, &p), -1, "parse: NULL is no name");
	is_int(policy_parse("ASK", &p), -1, "parse: names are lower case");
	is_int(policy_parse("allow", &p), -1, "parse: no prefixes");
	is_int(policy_parse("ask ", &p), -1, "parse: no trailing space");
	is_int(p, POLICY_DENY_ALL, "parse: *p untouched on failure");

	is_int(policy_find("allow-all"), POLICY_ALLOW_ALL, "find: a name");
	is_int(policy_find(""), POLICY_UNSET, "find: \"\" is unset");
	is_int(policy_find(NULL), POLICY_UNSET, "find: NULL is unset");
	is_int(policy_find("maybe"), POLICY_UNSET, "find: no name is unset");
}

static void
test_resolve(void)
{
	is_int(policy_resolve(POLICY_DENY_ALL, POLICY_ALLOW_ALL),
	    POLICY_DENY_ALL, "resolve: the conversation's override wins");
	is_int(policy_resolve(POLICY_ASK, POLICY_ALLOW_ALL), POLICY_ASK,
	    "resolve: even back to ask");
	is_int(policy_resolve(POLICY_UNSET, POLICY_ALLOW_READS),
	    POLICY_ALLOW_READS, "resolve: else the agent's");
	is_int(policy_resolve(POLICY_UNSET, POLICY_UNSET), POLICY_ASK,
	    "resolve: else ask, the default");
	/* What the daemon keeps today: strings, "" for no override. */
	is_int(policy_resolve(policy_find(""), policy_find("deny-all")),
	    POLICY_DENY_ALL, "resolve: from kept strings");
}

static void
test_judge(void)
{
	is_int(policy_judge(POLICY_ASK, "read"), POLICY_CARD,
	    "ask: a card, even to read");
	is_int(policy_judge(POLICY_UNSET, "read"), POLICY_CARD,
	    "unset: as ask");
	is_int(policy_judge(POLICY_ALLOW_READS, "read"), POLICY_GRANT,
	    "allow-reads: read granted");
	is_int(policy_judge(POLICY_ALLOW_READS, "search"), POLICY_GRANT,
	    "allow-reads: search granted");
	is_int(policy_judge(POLICY_ALLOW_READS, "edit"), POLICY_CARD,
	    "allow-reads: edit needs a card");
	is_int(policy_judge(POLICY_ALLOW_READS, "Read"), POLICY_CARD,
	    "allow-reads: kinds are exact");
	is_int(policy_judge(POLICY_ALLOW_READS, NULL), POLICY_CARD,
	    "allow-reads: no kind needs a card");
	is_int(policy_judge(POLICY_ALLOW_ALL, "execute"), POLICY_GRANT,
	    "allow-all: granted");
	is_int(policy_judge(POLICY_ALLOW_ALL, NULL), POLICY_GRANT,
	    "allow-all: even with no kind");
	is_int(policy_judge(POLICY_DENY_ALL, "read"), POLICY_REFUSE,
	    "deny-all: refused, even to read");
}

/* AU-1, C1: the order from loosest, and a ceiling nothing passes. */
static void
test_order(void)
{
	/* Loosest first. */
	static const enum policy order[] = { POLICY_ALLOW_ALL,
	    POLICY_ALLOW_READS, POLICY_ASK, POLICY_DENY_ALL };
	size_t i, j;
	int right = 1;

	for (i = 0; i < NALL; i++)
		for (j = 0; j < NALL; j++)
			if (policy_looser(order[i], order[j]) != (i < j))
				right = 0;
	ok(right, "looser: allow-all, allow-reads, ask, deny-all, in order");
	ok(!policy_looser(POLICY_UNSET, POLICY_DENY_ALL) &&
	    !policy_looser(POLICY_ALLOW_ALL, POLICY_UNSET),
	    "looser: unset is neither");
	ok(!policy_looser((enum policy)99, POLICY_DENY_ALL),
	    "looser: out of range is neither");

	is_int(policy_strictest(POLICY_ALLOW_ALL, POLICY_ASK), POLICY_ASK,
	    "strictest: ask over allow-all");
	is_int(policy_strictest(POLICY_DENY_ALL, POLICY_ALLOW_READS),
	    POLICY_DENY_ALL, "strictest: deny-all over anything");
	is_int(policy_strictest(POLICY_UNSET, POLICY_ALLOW_READS),
	    POLICY_ALLOW_READS, "strictest: unset (no ceiling) yields");
	is_int(policy_strictest(POLICY_ALLOW_ALL, POLICY_UNSET),
	    POLICY_ALLOW_ALL, "strictest: either way");
	is_int(policy_strictest(POLICY_UNSET, POLICY_UNSET), POLICY_UNSET,
	    "strictest: two unset are unset");

	is_int(policy_clamp(POLICY_ALLOW_ALL, POLICY_DENY_ALL), POLICY_DENY_ALL,
	    "clamp: allow-all under a deny-all ceiling is deny-all (C1)");
	is_int(policy_clamp(POLICY_ALLOW_ALL, POLICY_ASK), POLICY_ASK,
	    "clamp: allow-all under ask is ask");
	is_int(policy_clamp(POLICY_DENY_ALL, POLICY_ALLOW_ALL), POLICY_DENY_ALL,
	    "clamp: stricter stays");
	is_int(policy_clamp(POLICY_ALLOW_READS, POLICY_ALLOW_READS),
	    POLICY_ALLOW_READS, "clamp: the ceiling itself stays");
	is_int(policy_clamp(POLICY_ALLOW_ALL, POLICY_UNSET), POLICY_ALLOW_ALL,
	    "clamp: no ceiling, no change");
}

/* AU-3, H1: which modes !mode may pick. */
static void
test_modes(void)
{
	char *none[] = { NULL };
	char *star[] = { "*", NULL };
	char *listed[] = { "plan", "bypassPermissions", NULL };
	char *starplus[] = { "*", "yolo", NULL };
	static const char *const off[] = { "bypassPermissions", "acceptEdits",
	    "dontAsk", "yolo", "autoEdit", "auto_edit", "full-access" };
	size_t i;
	int all_off = 1, star_refuses = 1;

	ok(!policy_mode_allowed(NULL, "code", "ask"),
	    "modes unset: none but the initial");
	ok(policy_mode_allowed(NULL, "ask", "ask"),
	    "modes unset: the initial one");
	ok(!policy_mode_allowed(none, "code", NULL),
	    "modes empty, initial unknown: none");
	ok(policy_mode_allowed(star, "code", NULL), "*: any mode");
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		if (!policy_mode_prompts_off(off[i]))
			all_off = 0;
		if (policy_mode_allowed(star, off[i], "default"))
			star_refuses = 0;
	}
	ok(all_off, "the modes without prompts are known");
	ok(star_refuses, "*: never a mode without prompts (H1)");
	ok(!policy_mode_prompts_off("plan") &&
	    !policy_mode_prompts_off("BYPASSPERMISSIONS"),
	    "prompts_off: exact names only");
	ok(policy_mode_allowed(listed, "plan", NULL), "listed: plan");
	ok(policy_mode_allowed(listed, "bypassPermissions", NULL),
	    "listed by name: bypassPermissions");
	ok(!policy_mode_allowed(listed, "code", NULL), "listed: not code");
	ok(!policy_mode_allowed(listed, "Plan", NULL), "listed: exact case");
	ok(policy_mode_allowed(starplus, "yolo", NULL) &&
	    !policy_mode_allowed(starplus, "autoEdit", NULL),
	    "* and a name: that one, not the others without prompts");
	ok(!policy_mode_allowed(star, "", NULL) &&
	    !policy_mode_allowed(star, NULL, NULL), "no id: never");
}

/*
 * The core's config cannot include the bridge, so conf.c keeps its own
 * list of the names: it must be this one.
 */
static void
test_conf_agrees(void)
{
	char text[256], err[256];
	struct conf *c;
	size_t i;

	for (i = 0; i < NALL; i++) {
		snprintf(text, sizeof(text), "[agent a]\ncommand = x\n"
		    "permissions = %s\n", policy_name(all[i]));
		c = conf_parse(text, "p.conf", err, sizeof(err));
		ok(c != NULL && c->nagents == 1 &&
		    policy_find(c->agents[0].permissions) == all[i],
		    "the config takes each policy's name");
		conf_free(c);
	}
	c = conf_parse("[agent a]\ncommand = x\n", "p.conf", err, sizeof(err));
	ok(c != NULL && c->nagents == 1 &&
	    policy_find(c->agents[0].permissions) == POLICY_ASK,
	    "the config's default is ask");
	conf_free(c);
	c = conf_parse("[agent a]\ncommand = x\npermissions = allow\n",
	    "p.conf", err, sizeof(err));
	ok(c == NULL, "the config refuses what is no policy");
	conf_free(c);
}

int
main(void)
{
	test_names();
	test_resolve();
	test_judge();
	test_order();
	test_modes();
	test_conf_agrees();
	return tap_done();
}

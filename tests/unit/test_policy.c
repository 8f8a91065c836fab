/*
 * test_policy.c: the permission policy (PM-4): its names, which one
 * applies (a conversation's override, else the agent's), what each
 * answers by itself, and that the config accepts exactly these names.
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
	test_conf_agrees();
	return tap_done();
}

/*
 * test_authority.c: who may make an agent act, without sockets: the
 * ceiling of an agent and a channel (AU-1, C1), the policy in force, who
 * may loosen (AU-1), who may talk (AU-2, with its default that depends
 * on [account]), and which modes !mode may pick (AU-3, H1).
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/policy.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/ircd.h"
#include "tests/unit/tap.h"

static struct conf cf;
static struct conf_channel chans[1];
static struct conf_agent ca;
static struct client agent_client, anon, alice, bob, oper;
static struct agent ag;

static void
setup(void)
{
	static char *admins[] = { "Alice", NULL };

	chans[0].name = "#Capped";
	chans[0].permissions = "deny-all";
	cf.channels = chans;
	cf.nchannels = 1;
	ircd.conf = &cf;
	ca.name = "echo";
	ca.permissions = "allow-reads";
	ca.admins = admins;
	strlcpy(agent_client.nick, "echo", sizeof(agent_client.nick));
	ag.client = &agent_client;
	ag.conf = &ca;
	alice.account = "alice";
	bob.account = "bob";
	oper.umodes = UMODE_OPER;
}

static void
test_ceiling(void)
{
	struct conv cv;

	is_int(authority_ceiling(&ag, NULL), POLICY_ALLOW_READS,
	    "ceiling: the agent's, in a query");
	is_int(authority_ceiling(&ag, "#elsewhere"), POLICY_ALLOW_READS,
	    "ceiling: the agent's, in a channel without its own");
	is_int(authority_ceiling(&ag, "#cAPPED"), POLICY_DENY_ALL,
	    "ceiling: the channel's when stricter (casemapped name)");
	chans[0].permissions = "allow-all";
	is_int(authority_ceiling(&ag, "#capped"), POLICY_ALLOW_READS,
	    "ceiling: the agent's when the channel's is looser");
	chans[0].permissions = NULL;
	is_int(authority_ceiling(&ag, "#capped"), POLICY_ALLOW_READS,
	    "ceiling: a channel without permissions sets none");
	chans[0].permissions = "deny-all";

	memset(&cv, 0, sizeof(cv));
	cv.agent = &ag;
	cv.private = 1;
	strlcpy(cv.target, "anon", sizeof(cv.target));
	is_int(authority_policy(&cv), POLICY_ALLOW_READS,
	    "policy: no override is the ceiling");
	cv.policy = POLICY_ALLOW_ALL;
	is_int(authority_policy(&cv), POLICY_ALLOW_READS,
	    "policy: an override past the ceiling is clamped (C1)");
	cv.policy = POLICY_ASK;
	is_int(authority_policy(&cv), POLICY_ASK,
	    "policy: a stricter override holds");
	cv.private = 0;
	strlcpy(cv.target, "#capped", sizeof(cv.target));
	is_int(authority_policy(&cv), POLICY_DENY_ALL,
	    "policy: in a capped channel, the channel's ceiling");
}

static void
test_loosen(void)
{
	ok(!authority_may_loosen(&ag, &anon), "loosen: not someone logged out");
	ok(!authority_may_loosen(&ag, &bob), "loosen: not any account");
	ok(authority_may_loosen(&ag, &alice), "loosen: an admin (casemapped)");
	ok(authority_may_loosen(&ag, &oper), "loosen: an IRC operator");
	ca.admins = NULL;
	ok(!authority_may_loosen(&ag, &alice), "loosen: no admins, no admin");
}

static void
test_talk(void)
{
	static char *logged_in[] = { "logged-in", NULL };
	static char *star[] = { "*", NULL };
	static char *some[] = { "bob", NULL };
	char why[256];

	cf.naccounts = 0;
	ca.users = NULL;
	ok(authority_may_talk(&ag, &anon, why, sizeof(why)),
	    "talk: default without [account]: anyone");
	cf.naccounts = 2;
	why[0] = '\0';
	ok(!authority_may_talk(&ag, &anon, why, sizeof(why)) &&
	    strstr(why, "logged in") != NULL,
	    "talk: default with [account]: not someone logged out, and why");
	ok(authority_may_talk(&ag, &alice, why, sizeof(why)),
	    "talk: default with [account]: someone logged in");
	ca.users = star;
	ok(authority_may_talk(&ag, &anon, why, sizeof(why)), "talk: * is anyone");
	ca.users = logged_in;
	ok(!authority_may_talk(&ag, &anon, why, sizeof(why)) &&
	    authority_may_talk(&ag, &bob, why, sizeof(why)),
	    "talk: logged-in");
	ca.users = some;
	why[0] = '\0';
	ok(!authority_may_talk(&ag, &alice, why, sizeof(why)) &&
	    strstr(why, "alice") != NULL, "talk: not an account unlisted, and why");
	ok(authority_may_talk(&ag, &bob, why, sizeof(why)),
	    "talk: a listed account");
	ok(authority_may_talk(&ag, &oper, why, sizeof(why)),
	    "talk: an IRC operator may");
}

static void
test_modes(void)
{
	static char *code[] = { "code", NULL };

	ca.modes = NULL;
	ok(!authority_mode_allowed(&ag, "code", "ask") &&
	    authority_mode_allowed(&ag, "ask", "ask"),
	    "modes unset: only the initial (AU-3)");
	ca.modes = code;
	ok(authority_mode_allowed(&ag, "code", "ask") &&
	    !authority_mode_allowed(&ag, "bypassPermissions", "ask"),
	    "modes = code: code, not bypassPermissions (H1)");
}

int
main(void)
{
	setup();
	test_ceiling();
	test_loosen();
	test_talk();
	test_modes();
	return tap_done();
}

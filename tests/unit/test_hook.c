/*
 * test_hook.c: the core's hook table (ircd/hook.h) without a server:
 * tables are called in the order registered, a missing function is
 * skipped, HELP stops at the first table that knows the subject, and
 * registering is bounded and idempotent.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/hook.h"
#include "tests/unit/tap.h"

static char calls[256];

static void
note(const char *what)
{
	strlcat(calls, what, sizeof(calls));
	strlcat(calls, " ", sizeof(calls));
}

static void a_stopping(void) { note("a:stopping"); }
static void b_stopping(void) { note("b:stopping"); }
static void a_logged_in(struct client *c) { (void)c; note("a:logged_in"); }
static void b_quit(struct client *c, const char *reason)
{
	(void)c;
	note(reason);
}

static int
a_help(struct client *c, const char *subject)
{
	(void)c;
	note("a:help");
	return strcmp(subject, "AGENTS") == 0;
}

static int
b_help(struct client *c, const char *subject)
{
	(void)c;
	(void)subject;
	note("b:help");
	return 1;
}

static const struct ircd_hooks ha = {
	.stopping = a_stopping,
	.logged_in = a_logged_in,
	.help = a_help,
};
static const struct ircd_hooks hb = {
	.stopping = b_stopping,
	.user_quit = b_quit,
	.help = b_help,
};
static const struct ircd_hooks hc, hd, he;

int
main(void)
{
	calls[0] = '\0';
	hook_stopping();
	is_str(calls, "", "no table: nothing is called");

	ok(hook_register(&ha) == 0, "register a");
	ok(hook_register(&hb) == 0, "register b");
	ok(hook_register(&ha) == 0, "registering a again is a no-op");

	calls[0] = '\0';
	hook_stopping();
	is_str(calls, "a:stopping b:stopping ", "called in the order registered, once each");

	calls[0] = '\0';
	hook_logged_in(NULL);
	hook_user_quit(NULL, "bye");
	is_str(calls, "a:logged_in bye ", "a table without the function is skipped");

	calls[0] = '\0';
	ok(hook_help(NULL, "AGENTS") == 1, "HELP AGENTS is handled");
	is_str(calls, "a:help ", "the first table that knows the subject answers alone");
	calls[0] = '\0';
	ok(hook_help(NULL, "OTHER") == 1, "HELP OTHER is handled by b");
	is_str(calls, "a:help b:help ", "a table that does not know it passes it on");

	ok(hook_register(&hc) == 0 && hook_register(&hd) == 0,
	    "up to HOOK_MAX tables");
	ok(hook_register(&he) == -1, "one more is refused");

	hook_unregister(&ha);
	hook_unregister(&hc);
	hook_unregister(&hd);
	calls[0] = '\0';
	hook_stopping();
	is_str(calls, "b:stopping ", "an unregistered table is called no more");
	ok(hook_help(NULL, "AGENTS") == 1 && strcmp(calls, "b:stopping b:help ") == 0,
	    "nor asked for HELP");
	hook_unregister(&hb);
	calls[0] = '\0';
	hook_stopping();
	ok(hook_help(NULL, "AGENTS") == 0 && calls[0] == '\0',
	    "with every table gone, HELP is not handled");
	return tap_done();
}

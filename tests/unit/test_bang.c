/*
 * test_bang.c: the table of the server's own ! commands (CM-5, CM-6):
 * sorted, every row complete, found by one lookup, the same commands as
 * ever are never forwarded, and !help's list from it reads as it did.
 */
#include "compat.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ircd/bridge/bang.h"
#include "tests/unit/tap.h"

/* CM-6's list, as the two lists before the table had it. */
static const char *const cm6[] = { "stop", "allow", "always", "deny",
    "mode", "policy", "status", "help", "schedules", "unschedule" };
#define NCM6	(sizeof(cm6) / sizeof(cm6[0]))

static size_t
rows(void)
{
	size_t n = 0;

	while (bang_at(n) != NULL)
		n++;
	return n;
}

static void
test_table(void)
{
	const struct bang *b, *prev = NULL;
	size_t i, j, n = rows(), sorted = 1, complete = 1, lower = 1;
	int seen[64] = { 0 }, orders = 1;

	is_int(n, NCM6, "one row per server command");
	for (i = 0; (b = bang_at(i)) != NULL; i++) {
		if (prev != NULL && strcmp(prev->name, b->name) >= 0)
			sorted = 0;
		if (b->run == NULL || b->usage == NULL || b->help == NULL ||
		    b->help[0] == '\0')
			complete = 0;
		for (j = 0; b->name[j] != '\0'; j++)
			if (!islower((unsigned char)b->name[j]))
				lower = 0;
		if (b->name[0] == '\0')
			lower = 0;
		if (b->order < 0 || (size_t)b->order >= n ||
		    (size_t)b->order >= sizeof(seen) / sizeof(seen[0]) ||
		    seen[b->order]++)
			orders = 0;
		prev = b;
	}
	ok(sorted, "sorted by name, no name twice");
	ok(complete, "every row has a handler, a usage and help");
	ok(lower, "names are lower-case words");
	ok(orders, "!help's order is a place each, 0..n-1");
	ok(bang_at(n) == NULL && bang_at(n + 100) == NULL, "NULL past the end");
}

static void
test_find(void)
{
	const struct bang *b;
	size_t i, found = 0, server = 0;
	char text[64];

	for (i = 0; (b = bang_at(i)) != NULL; i++)
		if (bang_find(b->name, strlen(b->name)) == b)
			found++;
	is_int(found, rows(), "bang_find finds every row");
	ok(bang_find("stop now", 4) == bang_find("stop", 4),
	    "the name need not be NUL-terminated");
	ok(bang_find("sto", 3) == NULL, "no prefixes");
	ok(bang_find("stopx", 5) == NULL, "no longer names");
	ok(bang_find("STOP", 4) == NULL, "exact case");
	ok(bang_find("", 0) == NULL, "no empty name");
	ok(bang_find("zzz", 3) == NULL && bang_find("a", 1) == NULL,
	    "past either end of the table");

	for (i = 0; i < NCM6; i++) {
		snprintf(text, sizeof(text), "!%s", cm6[i]);
		server += bang_is_server(text);
		snprintf(text, sizeof(text), "!%s 2 x", cm6[i]);
		server += bang_is_server(text);
	}
	is_int(server, 2 * NCM6, "CM-6: each command, bare or with words");
	ok(!bang_is_server("!!stop"), "!!stop is text for the agent");
	ok(!bang_is_server("stop"), "no '!', no command");
	ok(!bang_is_server("!"), "a lone '!'");
	ok(!bang_is_server("!stopx"), "!stopx is not !stop");
	ok(!bang_is_server("!idioms x"), "an agent's command is not ours");
	ok(!bang_is_server("!alice:stop"), "nor one that names an agent");
}

/* !help's list of server commands, built as cmd_help builds it. */
static void
test_help(void)
{
	const struct bang *b, *pol;
	char line[512] = "";
	size_t i, n = rows();
	int k;

	for (k = 0; k < (int)n; k++)
		for (i = 0; (b = bang_at(i)) != NULL; i++) {
			if (b->order != k)
				continue;
			if (k > 0)
				strlcat(line, ", ", sizeof(line));
			strlcat(line, "!", sizeof(line));
			strlcat(line, b->name, sizeof(line));
			if (b->usage[0] != '\0') {
				strlcat(line, " ", sizeof(line));
				strlcat(line, b->usage, sizeof(line));
			}
		}
	is_str(line, "!stop, !allow [n], !always [n], !deny [n], "
	    "!mode [agent mode], !policy [agent] ask|allow-reads|allow-all|"
	    "deny-all, !schedules, !unschedule <id>, !status, !help",
	    "!help lists the commands as it always did");

	pol = bang_find("policy", 6);
	ok(pol != NULL && pol->who == BANG_OPERATOR,
	    "!policy: operators only (PM-4)");
	for (i = 0, n = 0; (b = bang_at(i)) != NULL; i++)
		n += b->who == BANG_OPERATOR;
	is_int(n, 1, "and only !policy (cards check their own, PM-2)");
}

/* Typos of ! commands (issue 24): the words and the distances. */
static const struct {
	const char	*typed, *name;
	int		 want;		/* with max 2: 3 is "more than 2" */
	const char	*why;
} dist[] = {
	{ "stop", "stop", 0, "the same word: 0" },
	{ "STOP", "stop", 0, "case ignored" },
	{ "stpo", "stop", 1, "two neighbours swapped: 1" },
	{ "sotp", "stop", 1, "another swap: 1" },
	{ "sop", "stop", 1, "one left out: 1" },
	{ "stopp", "stop", 1, "one more: 1" },
	{ "stap", "stop", 1, "one changed: 1" },
	{ "alow", "allow", 1, "!alow: 1 from allow" },
	{ "shedules", "schedules", 1, "!shedules: 1" },
	{ "unshedule", "unschedule", 1, "!unshedule: 1" },
	{ "stts", "status", 2, "two left out: 2" },
	{ "weather", "stop", 3, "far: max + 1" },
	{ "x", "unschedule", 3, "lengths far apart: max + 1 at once" },
	{ "", "", 0, "two empty words: 0" },
	{ "", "ab", 2, "empty to two letters: 2" },
};

static void
test_typos(void)
{
	size_t k;

	ok(bang_word_shaped("stpo") && bang_word_shaped("set-mode_2"),
	    "letters, digits, '-' and '_' make a command word");
	ok(!bang_word_shaped("") && !bang_word_shaped("2fast") &&
	    !bang_word_shaped("-x") && !bang_word_shaped("wow!") &&
	    !bang_word_shaped("a.b") && !bang_word_shaped("\xc3\xa9t\xc3\xa9"),
	    "an empty word, a leading digit or '-', punctuation, non-ASCII: not");
	for (k = 0; k < sizeof(dist) / sizeof(dist[0]); k++)
		is_int(bang_distance(dist[k].typed, dist[k].name, 2), dist[k].want,
		    dist[k].why);
	{
		char big[300];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		is_int(bang_distance(big, big, 2), 3,
		    "a word past WORDLEN is no command: max + 1");
	}
	is_int(bang_typo_max("stpo"), 1, "a short word: one edit");
	is_int(bang_typo_max("shedules"), 2, "a longer one: two");
}

int
main(void)
{
	test_table();
	test_find();
	test_help();
	test_typos();
	return tap_done();
}

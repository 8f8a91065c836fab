/*
 * test_command.c: the command table (ircd/command.c) without a server:
 * its rows are sorted as command_find()'s binary search needs, every
 * command has help for HELP, and each is found in any case.
 */
#include "compat.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ircd/command.h"
#include "tests/unit/tap.h"

static void
test_sorted(void)
{
	const struct command *cmd, *prev = NULL;
	size_t i;
	int sorted = 1;

	for (i = 0; (cmd = command_at(i)) != NULL; i++) {
		if (prev != NULL && strcasecmp(prev->name, cmd->name) >= 0) {
			printf("# %s before %s\n", prev->name, cmd->name);
			sorted = 0;
		}
		prev = cmd;
	}
	ok(i > 0, "the table has rows");
	ok(sorted, "rows sorted by name, no name twice");
}

static void
test_help(void)
{
	const struct command *cmd;
	const char *p;
	char name[64];
	size_t i, n;
	int upper;

	for (i = 0; (cmd = command_at(i)) != NULL; i++) {
		upper = 1;
		for (p = cmd->name; *p != '\0'; p++)
			if (!isupper((unsigned char)*p))
				upper = 0;
		snprintf(name, sizeof(name), "%s: an upper-case name",
		    cmd->name);
		ok(upper, name);
		n = strlen(cmd->name);
		snprintf(name, sizeof(name), "%s: usage starts with the name",
		    cmd->name);
		ok(cmd->usage != NULL && strncmp(cmd->usage, cmd->name, n) ==
		    0 && (cmd->usage[n] == '\0' || cmd->usage[n] == ' '), name);
		snprintf(name, sizeof(name), "%s: help text", cmd->name);
		ok(cmd->text[0] != NULL && cmd->text[0][0] != '\0', name);
	}
}

static void
test_find(void)
{
	const struct command *cmd;
	char lower[64], mixed[64], name[96];
	size_t i, j;

	for (i = 0; (cmd = command_at(i)) != NULL; i++) {
		for (j = 0; cmd->name[j] != '\0' && j + 1 < sizeof(lower);
		    j++) {
			lower[j] = (char)tolower((unsigned char)cmd->name[j]);
			mixed[j] = j % 2 ? lower[j] : cmd->name[j];
		}
		lower[j] = mixed[j] = '\0';
		snprintf(name, sizeof(name), "find %s", cmd->name);
		ok(command_find(cmd->name) == cmd, name);
		snprintf(name, sizeof(name), "find %s", lower);
		ok(command_find(lower) == cmd, name);
		snprintf(name, sizeof(name), "find %s", mixed);
		ok(command_find(mixed) == cmd, name);
	}
	ok(command_find("NOSUCHCOMMAND") == NULL, "an unknown word");
	ok(command_find("") == NULL, "the empty word");
	ok(command_find("PRIVMS") == NULL, "a prefix of a command");
	ok(command_find("PRIVMSGS") == NULL, "a command and more");
	ok(command_at((size_t)-1) == NULL, "no row past the end");
}

int
main(void)
{
	test_sorted();
	test_help();
	test_find();
	return tap_done();
}

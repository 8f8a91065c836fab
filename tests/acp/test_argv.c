/*
 * test_argv.c: acp_argv_parse(), the shell-like splitting of an agent's
 * command (quotes and backslashes, no shell).
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "tests/unit/tap.h"

static char *
joined(const char *cmd)
{
	static char buf[512];
	const char *err;
	char **v;
	size_t i;

	if ((v = acp_argv_parse(cmd, &err)) == NULL) {
		snprintf(buf, sizeof(buf), "ERR %s", err);
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; v[i] != NULL; i++) {
		strlcat(buf, "[", sizeof(buf));
		strlcat(buf, v[i], sizeof(buf));
		strlcat(buf, "]", sizeof(buf));
	}
	acp_argv_free(v);
	return buf;
}

int
main(void)
{
	is_str(joined("npx -y @zed-industries/claude-agent-acp"),
	    "[npx][-y][@zed-industries/claude-agent-acp]", "plain words");
	is_str(joined("  gemini\t--acp  "), "[gemini][--acp]",
	    "blanks and tabs");
	is_str(joined("node 'my dir/agent.mjs' \"a \\\"b\\\"\""),
	    "[node][my dir/agent.mjs][a \"b\"]", "quotes");
	is_str(joined("a\\ b c'd'e \"\""), "[a b][cde][]",
	    "backslash, adjacent quotes, empty word");
	is_str(joined("echo $HOME ; rm *"), "[echo][$HOME][;][rm][*]",
	    "no expansion, no shell syntax");
	is_str(joined("'x"), "ERR unterminated quote", "unterminated quote");
	is_str(joined("x\\"), "ERR trailing backslash", "trailing backslash");
	is_str(joined("   "), "ERR empty command", "empty command");
	is_str(joined("a\rb\fc\vd\te f"), "[a][b][c][d][e][f]",
	    "CR, FF and VT are blanks too");
	is_str(joined("'a\rb' \"c\fd\" e\\\vf"), "[a\rb][c\fd][e\vf]",
	    "quoted or escaped, they stay in the word");
	is_str(joined(" \r\f\v\t "), "ERR empty command",
	    "only blanks of every kind");
	is_str(joined("'' -y"), "ERR empty program name",
	    "empty program name");
	is_str(joined("\"\" x"), "ERR empty program name",
	    "empty program name, double quotes");
	is_str(joined("x '' y"), "[x][][y]", "an empty argument is fine");
	is_str(joined("x \"a"), "ERR unterminated quote",
	    "unterminated double quote");
	return tap_done();
}

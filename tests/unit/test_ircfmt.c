/*
 * test_ircfmt.c: TN-13, an agent's Markdown as IRC text
 * (ircd/bridge/ircfmt.c): TABs to spaces, strong emphasis and headings
 * to bold, code as typed, and what of a line not ended yet is settled.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/ircfmt.h"
#include "tap.h"

#define B	"\x02"
#define MD	IRCFMT_MARKDOWN

struct line_case {
	const char	*name;
	int		 flags;
	const char	*in;	/* lines, "\n" between them */
	const char	*want;	/* the same lines, formatted */
};

static const struct line_case lines[] = {
	{ "a TAB at the start is 8 spaces", MD,
	  "\tindented", "        indented" },
	{ "TABs stop every 8 columns", MD,
	  "ab\tc\td", "ab      c       d" },
	{ "a TAB after UTF-8 counts characters, not bytes", MD,
	  "\xc3\xa9t\xc3\xa9\tx", "\xc3\xa9t\xc3\xa9     x" },
	{ "TABs in code keep the indentation", MD,
	  "```c\nint\nmain(void)\n{\n\treturn 0;\n\t\t/* x */\n}\n```",
	  "```c\nint\nmain(void)\n{\n        return 0;\n                /* x */\n}\n```" },
	{ "format = plain: TABs still become spaces", 0,
	  "\t**kept**", "        **kept**" },
	{ "strong emphasis, both spellings", MD,
	  "a **bold** and __also__ b", "a " B "bold" B " and " B "also" B " b" },
	{ "format = plain: text as the agent wrote it", 0,
	  "# Title\na **bold** b", "# Title\na **bold** b" },
	{ "an unterminated ** stays as typed", MD,
	  "2 ** 10 and **open", "2 ** 10 and **open" },
	{ "** before a blank opens nothing", MD,
	  "a ** b ** c", "a ** b ** c" },
	{ "__ inside a word is no markup", MD,
	  "snake__case__name and __init__", "snake__case__name and " B "init" B },
	{ "inline code keeps its backticks and its stars", MD,
	  "run `a**b**c` now", "run `a**b**c` now" },
	{ "a closer inside code does not close", MD,
	  "**x `y**` z**", B "x `y**` z" B },
	{ "double backticks hold a single one", MD,
	  "``a`b`` and **c**", "``a`b`` and " B "c" B },
	{ "an unclosed backtick is a backtick", MD,
	  "a ` b **c**", "a ` b " B "c" B },
	{ "bold inside bold keeps one level", MD,
	  "**a __b__ c**", B "a b c" B },
	{ "triple stars are left alone", MD,
	  "***x***", "***x***" },
	{ "a heading is bold without its #s", MD,
	  "# Title\n## Sub section ##\n   ###### six", B "Title" B "\n" B
	  "Sub section" B "\n" B "six" B },
	{ "a heading's own bold is not doubled", MD,
	  "## **Setup** steps", B "Setup steps" B },
	{ "seven #s, #hashtag and 4 spaces are no heading", MD,
	  "####### x\n#hashtag\n    # code", "####### x\n#hashtag\n    # code" },
	{ "an empty heading says nothing", MD, "##", "" },
	{ "no markup inside a fence", MD,
	  "```\n# not a title\n**x**\n```\n**y**",
	  "```\n# not a title\n**x**\n```\n" B "y" B },
	{ "a fence may be indented", MD,
	  "  ```py\n__x__\n  ```", "  ```py\n__x__\n  ```" },
	{ "bold next to a TAB: columns as shown", MD,
	  "**ab**\tc", B "ab" B "      c" },
};

static int failures;

static void
fail_size(void)
{
	failures++;
}

/* Format in's lines one by one, joined by "\n" into out. */
static void
format_lines(const char *in, int flags, char *out, size_t size)
{
	struct ircfmt f;
	const char *p = in, *nl;
	char *buf;
	size_t used = 0, len, n;

	memset(&f, 0, sizeof(f));
	out[0] = '\0';
	for (;;) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		buf = malloc(ircfmt_size(p, len));
		n = ircfmt_line(&f, p, len, flags, 1, buf);
		if (n >= ircfmt_size(p, len))
			fail_size();
		used += (size_t)snprintf(out + used, size - used, "%s%.*s",
		    p != in ? "\n" : "", (int)n, buf);
		free(buf);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

struct settle_case {
	const char	*name;
	int		 cont;
	const char	*in;
	size_t		 want;
};

static const struct settle_case settles[] = {
	{ "plain words are all settled", 0,
	  "some words", 10 },
	{ "a trailing star may become **", 0, "some words *", 11 },
	{ "an open ** holds what follows it", 0, "ab **cd ef", 3 },
	{ "a closed pair is settled", 0, "ab **cd** ef", 12 },
	{ "a pair closing at the end is not yet (***?)", 0, "ab **cd**", 3 },
	{ "an open code span holds", 0, "x `code ** y", 2 },
	{ "a closed code span is settled", 0, "x `a` y", 7 },
	{ "__ at the end may be followed by a word", 0, "x __a__", 2 },
	{ "a heading's line waits whole", 0, "## long heading text", 0 },
	{ "a fence's line waits whole", 0, "```python and more", 0 },
	{ "# goes on a line already begun", 1, "# more", 6 },
};

/*
 * Feeding a line in settled parts, as stream.c does, gives what the
 * whole line gives.
 */
static void
check_parts(const char *line, size_t step, const char *name)
{
	struct ircfmt f, g;
	char *whole, *parts, *buf;
	size_t len = strlen(line), have = 0, done = 0, n, k, wn, pn = 0;

	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	whole = malloc(ircfmt_size(line, len));
	wn = ircfmt_line(&g, line, len, MD, 1, whole);
	parts = malloc(ircfmt_size(line, len) * 2);
	while (have < len) {
		have = have + step < len ? have + step : len;
		k = ircfmt_settled(&f, line + done, have - done, MD);
		if (k == 0)
			continue;
		buf = malloc(ircfmt_size(line + done, k));
		n = ircfmt_line(&f, line + done, k, MD, 0, buf);
		memcpy(parts + pn, buf, n);
		pn += n;
		done += k;
		free(buf);
	}
	buf = malloc(ircfmt_size(line + done, len - done));
	n = ircfmt_line(&f, line + done, len - done, MD, 1, buf);
	memcpy(parts + pn, buf, n);
	pn += n;
	free(buf);
	ok(pn == wn && memcmp(parts, whole, wn) == 0, name);
	if (pn != wn || memcmp(parts, whole, wn) != 0)
		printf("# got  %.*s\n# want %.*s\n", (int)pn, parts, (int)wn,
		    whole);
	free(whole);
	free(parts);
}

int
main(void)
{
	char out[4096];
	struct ircfmt f;
	size_t i, step;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		format_lines(lines[i].in, lines[i].flags, out, sizeof(out));
		is_str(out, lines[i].want, lines[i].name);
	}
	ok(strchr(out, '\t') == NULL, "no TAB comes out");
	for (i = 0; i < sizeof(settles) / sizeof(settles[0]); i++) {
		memset(&f, 0, sizeof(f));
		f.cont = settles[i].cont;
		is_int((int)ircfmt_settled(&f, settles[i].in,
		    strlen(settles[i].in), MD), (int)settles[i].want,
		    settles[i].name);
	}
	memset(&f, 0, sizeof(f));
	is_int((int)ircfmt_settled(&f, "ab **cd", 7, 0), 7,
	    "format = plain: all of it is settled");
	f.in_fence = 1;
	is_int((int)ircfmt_settled(&f, "x **y", 5, MD), 5,
	    "inside a fence: all of it is settled");
	for (step = 1; step <= 7; step += 3) {
		check_parts("a **bold** word, then `code ** x` and __u__ and "
		    "**open at\tthe end, with\ttabs", step,
		    "in parts as whole: markup and TABs");
		check_parts("\tx **a `b** c` d** e", step,
		    "in parts as whole: a code span inside an opener");
	}
	ok(failures == 0, "out never reaches ircfmt_size");
	return tap_done();
}

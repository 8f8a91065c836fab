/*
 * prompt.c: the words an agent reads at the start of a turn. Pure: it
 * takes the lines the caller read from the store, so it is unit-tested
 * without a database.
 *
 * The shape (documented in docs/agents.md):
 *   [#general: what was said since your last turn]
 *   <bob> does the build pass?
 *   <carol> it did for me
 *   [end]
 *   <bob> @alice why does this test fail?
 *
 * Only the server starts a line with "<" or "[" (L8): a transcript
 * line's own line breaks become spaces, and each further line of the
 * message answered (a draft/multiline batch, a paste) is indented by
 * PROMPT_CONT, so that nobody can write an "[end]" or a "<owner> ..."
 * line of their own.
 *
 * A turn an agent was summoned to (MN-6) has a block of its own before
 * that one, which the caller sends as a separate text block:
 *   [summons]
 *   You are alice, in #general.
 *   Called by bob (a person).
 *   Other agents here: carol.
 *   People here: bob, dave.
 *   Naming another agent with @name in your answer wakes it: its exact
 *   name, outside code.
 *   Naming yourself is ignored.
 *   [end]
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/prompt.h"
#include "ircd/xmalloc.h"

/* What starts each continuation line of the message answered (L8). */
#define PROMPT_CONT	"  "

char *
prompt_shorten(const char *s, size_t max)
{
	size_t i = 0, chars = 0;
	char *out;

	/* Count characters, not bytes: UTF-8 continuation bytes are none. */
	while (s[i] != '\0') {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (chars == max)
				break;
			chars++;
		}
		i++;
	}
	if (s[i] == '\0')
		return xstrdup(s);
	out = xmalloc(i + 4);
	memcpy(out, s, i);
	memcpy(out + i, "\xe2\x80\xa6", 4);	/* … */
	return out;
}

struct sbuf {
	char	*s;
	size_t	 len, cap;
};

static void
sbuf_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xreallocarray(b->s, b->cap, 1);
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

/* One "<nick> text" line; newlines inside become spaces so lines stay lines. */
static void
sbuf_line(struct sbuf *b, const char *nick, const char *text, size_t max)
{
	char *t = prompt_shorten(text, max), *p;

	for (p = t; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	sbuf_add(b, "<");
	sbuf_add(b, nick);
	sbuf_add(b, "> ");
	sbuf_add(b, t);
	sbuf_add(b, "\n");
	free(t);
}

/*
 * The message answered, its lines kept (code, lists), each line after
 * the first indented (L8). CR LF, a lone CR and LF all end a line, as
 * some reader may take any of them for one.
 */
static void
sbuf_message(struct sbuf *b, const char *text)
{
	const char *p = text;
	char *line;
	size_t n;

	for (;;) {
		n = strcspn(p, "\r\n");
		line = xstrndup(p, n);
		sbuf_add(b, line);
		free(line);
		p += n;
		if (*p == '\0')
			break;
		p += (p[0] == '\r' && p[1] == '\n') ? 2 : 1;
		sbuf_add(b, "\n" PROMPT_CONT);
	}
}

char *
prompt_build(const char *where, const struct prompt_line *lines,
    size_t nlines, int64_t answered_hid, int carry, const char *speaker,
    const char *text, size_t max_chars)
{
	struct sbuf b = { NULL, 0, 0 };
	size_t i, n = nlines;

	/* The message answered comes last anyway: not twice in a row. */
	if (n > 0 && lines[n - 1].hid == answered_hid)
		n--;
	if (n > 0) {
		sbuf_add(&b, "[");
		sbuf_add(&b, where);
		sbuf_add(&b, carry ? ": the last messages of this "
		    "conversation, yours included; your memory of it was "
		    "lost]\n" :
		    ": what was said since your last turn]\n");
		for (i = 0; i < n; i++)
			sbuf_line(&b, lines[i].nick, lines[i].text, max_chars);
		sbuf_add(&b, "[end]\n");
	}
	/* The message answered is given whole, not shortened. */
	sbuf_add(&b, "<");
	sbuf_add(&b, speaker);
	sbuf_add(&b, "> ");
	sbuf_message(&b, text);
	return b.s;
}

/*
 * A name as the Summons block shows it: nicks are plain already, but a
 * control character would break the block's lines, so none gets in.
 */
static void
sbuf_name(struct sbuf *b, const char *name, size_t len)
{
	char *n = xstrndup(name, len), *p;

	for (p = n; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	sbuf_add(b, n);
	free(n);
}

/* "label: a, b, c, and N more." or "label: nobody." (MN-6). */
static void
sbuf_roster(struct sbuf *b, const char *label, const char *const *names,
    size_t n)
{
	char more[64];
	size_t i;

	sbuf_add(b, label);
	if (n == 0)
		sbuf_add(b, " nobody");
	for (i = 0; i < n && i < PROMPT_ROSTER_MAX; i++) {
		sbuf_add(b, i > 0 ? ", " : " ");
		sbuf_name(b, names[i], strlen(names[i]));
	}
	if (n > PROMPT_ROSTER_MAX) {
		snprintf(more, sizeof(more), ", and %zu more",
		    n - PROMPT_ROSTER_MAX);
		sbuf_add(b, more);
	}
	sbuf_add(b, ".\n");
}

char *
prompt_summons(const struct prompt_summons *s)
{
	struct sbuf b = { NULL, 0, 0 };
	const char *p, *caller = NULL, *arrow = "";
	size_t n, callerlen = 0;

	sbuf_add(&b, "[summons]\nYou are ");
	sbuf_name(&b, s->self, strlen(s->self));
	sbuf_add(&b, ", in ");
	sbuf_add(&b, s->where);
	sbuf_add(&b, ".\n");
	/* The caller: the chain's last agent, else the person. */
	for (p = s->chain; *p != '\0'; p += n) {
		while (*p == ' ')
			p++;
		if ((n = strcspn(p, " ")) > 0) {
			caller = p;
			callerlen = n;
		}
	}
	if (caller != NULL) {
		sbuf_add(&b, "Called by ");
		sbuf_name(&b, caller, callerlen);
		sbuf_add(&b, s->tool ? " (an agent, with a tool)" :
		    " (an agent, by naming you)");
		/* "in a chain started by carol: carol → alice → bob" */
		if (s->person[0] != '\0') {
			sbuf_add(&b, ", in a chain started by ");
			sbuf_name(&b, s->person, strlen(s->person));
			sbuf_add(&b, ": ");
			sbuf_name(&b, s->person, strlen(s->person));
			arrow = " \xe2\x86\x92 ";	/* → */
		} else
			sbuf_add(&b, ", in a chain: ");
		for (p = s->chain; *p != '\0'; p += n) {
			while (*p == ' ')
				p++;
			if ((n = strcspn(p, " ")) == 0)
				continue;
			sbuf_add(&b, arrow);
			sbuf_name(&b, p, n);
			arrow = " \xe2\x86\x92 ";
		}
		sbuf_add(&b, ".\n");
	} else if (s->person[0] != '\0') {
		sbuf_add(&b, "Called by ");
		sbuf_name(&b, s->person, strlen(s->person));
		sbuf_add(&b, " (a person).\n");
	} else
		sbuf_add(&b, "Called by the server.\n");
	sbuf_roster(&b, "Other agents here:", s->agents, s->nagents);
	sbuf_roster(&b, "People here:", s->people, s->npeople);
	if (s->nbots > 0)
		sbuf_roster(&b, "Bots here:", s->bots, s->nbots);
	/* MN-1's strict rules, said as the agent needs them: two sentences. */
	sbuf_add(&b, "Naming another agent with @name in your answer wakes "
	    "it: its exact name, outside code.\n"
	    "Naming yourself is ignored.\n"
	    "[end]\n");
	return b.s;
}

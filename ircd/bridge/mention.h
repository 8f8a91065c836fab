/*
 * mention.h: the one tokenizer of "@name" mentions. Pure: it finds where
 * names are written and says nothing of who they are; the caller looks
 * the names up (route.c: agents, then humans; RT-8: accounts; AG-2:
 * agents to bring in; later handoff.c: MN-1's exact names).
 */
#ifndef IRCD_MENTION_H
#define IRCD_MENTION_H

#include <stddef.h>

/*
 * MENTION_PEOPLE, for a person's message (RT-1, RT-8, AG-2):
 * - an '@' opens a mention at the start of the text or after a space or
 *   control byte (IRC formatting such as ^B wraps names), a byte of
 *   UTF-8 (CJK text glues '@' to the sentence), or one of ( " ' < *;
 *   glued to anything else it is none (sam@alice.com, node@20, @@x);
 * - the name is the run of nick characters after it (letters, digits,
 *   []\`_^{|}-: hyphens belong to the name), at least one;
 * - it must end at the end of the text, a space or control byte, UTF-8,
 *   or one of . , : ; ! ? ) " ' > * (so "@alice's" names alice); any
 *   other byte right after ('/', '@', '#', '=' ...) makes it a path or
 *   an address (@scope/pkg, @alice@host), not a mention.
 *
 * MENTION_STRICT, for an agent's answer (MN-1), since nobody watches to
 * correct a guess: the same, and
 * - an '@' after UTF-8 opens nothing: it is glued to a word;
 * - nothing in fenced code: a line whose first non-blank characters are
 *   ``` opens a fence and the next such line closes it (as the answer's
 *   stream reads fences); an unterminated fence runs to the end;
 * - nothing in inline code: a run of backticks opens a span that the
 *   next run of as many backticks on the same line closes; without one
 *   on that line the backticks are plain text.
 * Exact names only, no self-mention and at most three per answer
 * (MN-1, MN-3) are the caller's rules: they are about names, not text.
 */
enum mention_mode {
	MENTION_PEOPLE,
	MENTION_STRICT,
};

/* One mention: the name is name[0..len), right after the '@' at at. */
struct mention {
	const char	*at;
	const char	*name;
	size_t		 len;
};

/* Where a scan is; fill it with mention_begin(). */
struct mention_scan {
	const char		*text;
	const char		*p;
	enum mention_mode	 mode;
	int			 fence;		/* STRICT: in fenced code */
};

/*
 * Scan text (NUL-terminated, kept by the caller until the scan ends)
 * from its start, which counts as the start of a line after a space.
 */
void	mention_begin(struct mention_scan *, const char *text,
	    enum mention_mode);
/* The next mention in text order into *m: 1, or 0 at the end. */
int	mention_next(struct mention_scan *, struct mention *m);
/*
 * Copy m's name into buf (size bytes) NUL-terminated: 0, or -1 when it
 * does not fit (a name longer than any nick is no nick's name).
 */
int	mention_copy(const struct mention *m, char *buf, size_t size);
/* The length of the run of nick characters at p (0: none). */
size_t	mention_namelen(const char *p);

#endif

/*
 * prompt.h: the text of a turn's prompt (SS-2, SS-3, SS-4): what the
 * agent's session has not seen in this conversation, as a short
 * transcript, then the message it answers with its speaker named.
 */
#ifndef IRCD_PROMPT_H
#define IRCD_PROMPT_H

#include <stddef.h>
#include <stdint.h>

struct prompt_line {
	const char	*nick;
	const char	*text;
	int64_t		 hid;		/* history id */
};

/*
 * Build the prompt into a new string (free it). where names the
 * conversation ("#general", or "a private conversation with bob").
 * lines are the transcript candidates, oldest first; the line whose hid
 * is answered_hid is left out of the transcript when it is the last one.
 * carry says the session is new and lines include its own (SS-4). Each
 * line's text is cut to max_chars characters with an ellipsis.
 */
char	*prompt_build(const char *where, const struct prompt_line *lines,
	    size_t nlines, int64_t answered_hid, int carry,
	    const char *speaker, const char *text, size_t max_chars);

/* Cut s to at most max characters (not bytes), adding "…" when cut. */
char	*prompt_shorten(const char *s, size_t max);

#endif

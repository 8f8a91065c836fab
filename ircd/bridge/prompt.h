/*
 * prompt.h: the text of a turn's prompt (SS-2, SS-3, SS-4): what the
 * agent's session has not seen in this conversation, as a short
 * transcript, then the message it answers with its speaker named; and
 * for a turn an agent was summoned to, the Summons block (MN-6).
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

/* MN-6: names of one kind a Summons block lists, then "and N more". */
#define PROMPT_ROSTER_MAX	20

/*
 * MN-6: who summoned an agent, and who else is in the conversation. The
 * caller is the last agent of chain, else the person; the arrays are of
 * the conversation's own members only (AU-8), self left out. Each count
 * is how many there are; only the first PROMPT_ROSTER_MAX names of an
 * array are read, so a caller keeps no more.
 */
struct prompt_summons {
	const char		*self;		/* the agent summoned */
	const char		*where;		/* as prompt_build's */
	const char		*person;	/* who started it, or "" */
	/* The agents after person, space-separated; "" when person called. */
	const char		*chain;
	int			 tool;		/* by a tool (MN-7) */
	const char *const	*agents;	/* the other agents present */
	size_t			 nagents;
	const char *const	*people;	/* the people present */
	size_t			 npeople;
	const char *const	*bots;		/* bots (+B), not agents */
	size_t			 nbots;
};

/*
 * MN-6: the Summons block into a new string (free it), "[summons]" to
 * "[end]\n". A separate text block of the prompt: it is not part of the
 * transcript.
 */
char	*prompt_summons(const struct prompt_summons *);

/* Cut s to at most max characters (not bytes), adding "…" when cut. */
char	*prompt_shorten(const char *s, size_t max);

#endif

/*
 * route.h: who answers a human's channel message (RT-1..RT-6, RT-8).
 * Pure: it takes the text and the names present and returns a decision;
 * no server state, so it is unit-tested without sockets.
 */
#ifndef IRCD_ROUTE_H
#define IRCD_ROUTE_H

#include <stddef.h>

#include "ircd/ircd.h"

#define ROUTE_MAX	8	/* agents one message may address */

/* Who is in the conversation, as route sees it. */
struct route_names {
	const char *const	*agents;	/* nicks of the agents present */
	size_t			 nagents;
	const char *const	*humans;	/* nicks of the humans present */
	size_t			 nhumans;
	const char		*last_speaker;	/* agent that spoke last here, or NULL */
	/*
	 * RT-3: the agent this message may follow up (it answered the
	 * author last, nobody else spoke since, not too long ago), or NULL;
	 * desk: the author is the only person present.
	 */
	const char		*follow_up;
	int			 desk;
	/* RT-6: a bot's message: exact names only, and no follow-ups. */
	int			 exact;
};

enum route_outcome {
	ROUTE_DISPATCH,		/* agents[0..n) answer, in this order */
	ROUTE_NONE,		/* nobody answers, nothing to say */
	ROUTE_AMBIGUOUS,	/* a prefix fits several agents: tell the sender */
	ROUTE_CHOOSE,		/* a desk, several agents, none addressed or spoken (RT-3) */
};

struct route_result {
	enum route_outcome	 outcome;
	size_t			 agents[ROUTE_MAX];	/* indexes into names->agents */
	size_t			 nagents;
	/*
	 * ROUTE_AMBIGUOUS: the word and the candidates (indexes into
	 * agents). The word is a prefix of two names, so it is never
	 * longer than a nick.
	 */
	char			 word[NICKLEN + 1];
	size_t			 candidates[ROUTE_MAX];
	size_t			 ncandidates;
	/*
	 * The text the agents receive (RT-5): the leading "nick:" or "nick,"
	 * address removed, '@' dropped from mentions. NUL-terminated.
	 */
	char			*text;
	int			 human;		/* a human was named (RT-8) */
	/*
	 * ROUTE_DISPATCH: the agents were named ("@nick", "nick:"), not
	 * reached as a follow-up or at a desk (RT-3); their turns carry
	 * MN-6's Summons block.
	 */
	int			 named;
	/* The first @word that named nobody here, for a better hint. */
	char			 unknown[NICKLEN + 1];
};

/*
 * Decide for text (a channel PRIVMSG from a human). Mentions are found
 * by mention.c (MENTION_PEOPLE: trailing ".,:;!?)" are not part of a
 * name). Matching is case-insensitive with the server's casemapping:
 * exact name first, else a unique prefix; agents are tried before humans
 * and one word reaches at most one principal. A human mentioned
 * dispatches nothing (RT-8), nor does a text that is only mentions
 * (RT-4). A text that names nobody goes to names->follow_up, else, at a
 * desk only, to the agent that spoke last, else to the only agent, else
 * nowhere (RT-3). names->exact: no prefixes, no follow-ups (RT-6). Keeping mentions of absent people for later is not decided
 * here: they are not in names. The caller frees result->text with
 * route_result_free().
 */
void	route_decide(const char *text, const struct route_names *,
	    struct route_result *);
void	route_result_free(struct route_result *);

#endif

/*
 * route.c: who answers a human's channel message (RT-1..RT-6, RT-8).
 * Pure: text and names in, a decision out; the caller does the NOTICEs,
 * the JOINs and the dispatch.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/mention.h"
#include "ircd/bridge/route.h"
#include "ircd/casemap.h"
#include "ircd/xmalloc.h"

enum hit {
	HIT_NOBODY,
	HIT_AGENT,
	HIT_HUMAN,
	HIT_AMBIGUOUS,
};

/* Control bytes count as space, as in mention.c. */
static int
is_space(int c)
{
	return c != '\0' && c <= ' ';
}

static int
is_punct(int c)
{
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
	    (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

/* Is word[0..len) a casefolded prefix (or all) of name? */
static int
folds_prefix(const char *word, size_t len, const char *name)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (name[i] == '\0' || casemap_lower((unsigned char)name[i]) !=
		    casemap_lower((unsigned char)word[i]))
			return 0;
	return 1;
}

static int
folds_equal(const char *word, size_t len, const char *name)
{
	return folds_prefix(word, len, name) && name[len] == '\0';
}

/*
 * Resolve one typed word. Exact names first (an agent before a human of
 * the same name, RT-8), so "@arch" reaches a human arch before it is read
 * as a prefix of architect. Prefixes reach agents only, and only when the
 * word was marked with '@' (prefix_ok): a bare leading "so," or "note:"
 * is too often plain English to be guessed at.
 */
static enum hit
resolve(const char *word, size_t len, int prefix_ok,
    const struct route_names *names, size_t *idx, size_t *cand, size_t *ncand)
{
	size_t i, n = 0;

	for (i = 0; i < names->nagents; i++)
		if (folds_equal(word, len, names->agents[i])) {
			*idx = i;
			return HIT_AGENT;
		}
	for (i = 0; i < names->nhumans; i++)
		if (folds_equal(word, len, names->humans[i])) {
			*idx = i;
			return HIT_HUMAN;
		}
	if (!prefix_ok)
		return HIT_NOBODY;
	for (i = 0; i < names->nagents; i++)
		if (folds_prefix(word, len, names->agents[i])) {
			if (n < ROUTE_MAX)
				cand[n] = i;
			n++;
		}
	*ncand = n < ROUTE_MAX ? n : ROUTE_MAX;
	if (n == 1) {
		*idx = cand[0];
		return HIT_AGENT;
	}
	return n > 1 ? HIT_AMBIGUOUS : HIT_NOBODY;
}

/* Append i to set[0..*n) unless there or full: each principal once (RT-2). */
static void
add_once(size_t *set, size_t *n, size_t i)
{
	size_t k;

	for (k = 0; k < *n; k++)
		if (set[k] == i)
			return;
	if (*n < ROUTE_MAX)
		set[(*n)++] = i;
}

/*
 * Look up one word and remember what it reached (*human: a human was
 * named, RT-8). Returns 1 when it is a principal, so the caller drops
 * the address or the '@' (RT-5).
 */
static int
take(const char *word, size_t len, int prefix_ok,
    const struct route_names *names, struct route_result *res, int *human)
{
	size_t idx = 0, cand[ROUTE_MAX], ncand = 0;
	size_t wl;

	switch (resolve(word, len, prefix_ok && !names->exact, names, &idx,
	    cand, &ncand)) {
	case HIT_AGENT:
		add_once(res->agents, &res->nagents, idx);
		return 1;
	case HIT_HUMAN:
		*human = 1;
		return 1;
	case HIT_AMBIGUOUS:
		/* The first ambiguous word is the one the NOTICE names. */
		if (res->ncandidates == 0) {
			wl = len < sizeof(res->word) ? len :
			    sizeof(res->word) - 1;
			memcpy(res->word, word, wl);
			res->word[wl] = '\0';
			memcpy(res->candidates, cand, ncand * sizeof(cand[0]));
			res->ncandidates = ncand;
		}
		return 0;
	case HIT_NOBODY:
		break;
	}
	return 0;
}

/*
 * The leading IRC address: optional '@', a name, then ':' or ',' and a
 * space or the end ("alice:hi" is one word). Returns what follows the
 * address and its spaces, or NULL when there is none or nobody by it.
 */
static const char *
take_address(const char *text, const struct route_names *names,
    struct route_result *res, int *human)
{
	const char *p = text, *w;
	size_t n;
	int at;

	while (is_space((unsigned char)*p))
		p++;
	at = *p == '@';
	w = p + at;
	n = mention_namelen(w);
	if (n == 0 || (w[n] != ':' && w[n] != ',') ||
	    (w[n + 1] != '\0' && !is_space((unsigned char)w[n + 1])))
		return NULL;
	if (!take(w, n, at, names, res, human))
		return NULL;	/* left alone; an '@' one meets the scan */
	p = w + n + 1;
	while (is_space((unsigned char)*p))
		p++;
	return p;
}

/*
 * Copy text [p, end) to *out. Returns 1 when it says something: more
 * than spaces and punctuation (RT-4).
 */
static int
copy_text(char **out, const char *p, const char *end)
{
	int said = 0;

	for (; p < end; p++) {
		if (!is_space((unsigned char)*p) &&
		    !is_punct((unsigned char)*p))
			said = 1;
		*(*out)++ = *p;
	}
	return said;
}

/* Dispatch to the agent present by the name nick; 0 if none is. */
static int
to_agent(const struct route_names *names, const char *nick,
    struct route_result *res)
{
	size_t i;

	if (nick != NULL)
		for (i = 0; i < names->nagents; i++)
			if (casemap_cmp(names->agents[i], nick) == 0) {
				res->agents[0] = i;
				res->nagents = 1;
				res->outcome = ROUTE_DISPATCH;
				return 1;
			}
	return 0;
}

/*
 * RT-3, nobody addressed: a follow-up goes to the agent it follows. Else,
 * where people talk to people, nothing is for an agent; at a desk (the
 * author alone with agents) the last agent to speak, else the only
 * agent, else the author is asked to choose. A bot follows up nothing
 * (RT-6).
 */
static void
fallback(const struct route_names *names, struct route_result *res)
{
	res->outcome = ROUTE_NONE;
	if (names->exact)
		return;
	if (to_agent(names, names->follow_up, res) || !names->desk ||
	    to_agent(names, names->last_speaker, res))
		return;
	if (names->nagents == 1) {
		res->agents[0] = 0;
		res->nagents = 1;
		res->outcome = ROUTE_DISPATCH;
	} else if (names->nagents > 1)
		res->outcome = ROUTE_CHOOSE;
	else
		res->outcome = ROUTE_NONE;
}

void
route_decide(const char *text, const struct route_names *names,
    struct route_result *res)
{
	struct mention_scan ms;
	struct mention m;
	const char *p;
	char *out;
	int said = 0, named = 0, blank = 1, human = 0;

	memset(res, 0, sizeof(*res));
	if (text == NULL)
		text = "";
	/* The rewritten text only ever shrinks. */
	res->text = out = xmalloc(strlen(text) + 1);

	if ((p = take_address(text, names, res, &human)) != NULL)
		named = 1;
	else
		p = text;
	/* The address ends in a space, so p may start the scan. */
	mention_begin(&ms, p, MENTION_PEOPLE);
	while (mention_next(&ms, &m)) {
		said |= copy_text(&out, p, m.at);
		if (take(m.name, m.len, 1, names, res, &human)) {
			/* RT-5: keep the name as typed, without '@'. */
			memcpy(out, m.name, m.len);
			out += m.len;
			named = 1;
		} else {
			/* Nobody by that name: it is just text. */
			if (res->unknown[0] == '\0' && res->ncandidates == 0)
				snprintf(res->unknown, sizeof(res->unknown),
				    "%.*s", (int)(m.len < NICKLEN ? m.len :
				    NICKLEN), m.name);
			memcpy(out, m.at, m.len + 1);
			out += m.len + 1;
			said = 1;
		}
		p = m.name + m.len;
	}
	said |= copy_text(&out, p, p + strlen(p));
	*out = '\0';
	for (p = text; *p != '\0'; p++)
		if (!is_space((unsigned char)*p))
			blank = 0;

	if (res->ncandidates > 0) {
		/* Never a silent guess: nothing goes anywhere (RT-1). */
		res->outcome = ROUTE_AMBIGUOUS;
		res->nagents = 0;
	} else if (blank || (named && !said)) {
		/* RT-4: only mentions. */
		res->outcome = ROUTE_NONE;
		res->nagents = 0;
	} else if (res->nagents > 0) {
		res->outcome = ROUTE_DISPATCH;
		res->named = 1;
	} else if (human)
		res->outcome = ROUTE_NONE;	/* RT-8: a human was meant */
	else
		fallback(names, res);
	res->human = human;
}

void
route_result_free(struct route_result *res)
{
	free(res->text);
	res->text = NULL;
}

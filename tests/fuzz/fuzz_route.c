/*
 * fuzz_route.c: fuzz target for who answers a human's message
 * (route_decide, RT-1..RT-6, RT-8) and for the prompt built from the
 * same text (prompt_build, prompt_shorten, SS-2..SS-4). Invariants: no
 * memory error, every index in the result names a present agent, and
 * the counts stay within ROUTE_MAX.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/prompt.h"
#include "ircd/bridge/route.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const agents[] = { "alice", "bob", "code-reviewer", "al",
    "Alice2", "[x]" };
static const char *const humans[] = { "carol", "dave", "al1ce" };
#define NAGENTS	(sizeof(agents) / sizeof(agents[0]))
#define NHUMANS	(sizeof(humans) / sizeof(humans[0]))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct route_names names = { .agents = agents, .nagents = NAGENTS,
	    .humans = humans, .nhumans = NHUMANS };
	struct prompt_line lines[3];
	struct route_result r;
	char *text, *p;
	size_t i;

	if ((text = malloc(size + 1)) == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';

	/* The input's size picks the setting: desk, follow-up, bot. */
	names.last_speaker = size % 2 ? "bob" : NULL;
	names.desk = size % 3 == 0;
	names.follow_up = size % 5 == 0 ? "alice" : size % 5 == 1 ? "gone" :
	    NULL;
	names.exact = size % 7 == 0;
	route_decide(text, &names, &r);
	if (r.nagents > ROUTE_MAX || r.ncandidates > ROUTE_MAX ||
	    strnlen(r.word, sizeof(r.word)) == sizeof(r.word))
		abort();
	for (i = 0; i < r.nagents; i++)
		if (r.agents[i] >= NAGENTS)
			abort();
	for (i = 0; i < r.ncandidates; i++)
		if (r.candidates[i] >= NAGENTS)
			abort();
	if (r.text != NULL && strlen(r.text) > size)
		abort();	/* RT-5 only removes */
	route_result_free(&r);

	/* The text as transcript lines, a speaker's nick and the answer. */
	lines[0] = (struct prompt_line){ "carol", text, 1 };
	lines[1] = (struct prompt_line){ "alice", text + size / 2, 2 };
	lines[2] = (struct prompt_line){ text + size / 3, "x", 3 };
	p = prompt_build(text + size / 4, lines, 3, 3, (int)(size & 1),
	    "dave", text, 1 + size % 50);
	free(p);
	free(prompt_shorten(text, size % 7));
	free(text);
	return 0;
}

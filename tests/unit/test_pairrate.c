/*
 * test_pairrate.c: pairrate, the sliding-window rate per ordered pair
 * (RT-6: each bot and agent at most 10 wakes a minute; MN-4's rate).
 */
#include "compat.h"

#include <stdio.h>

#include "ircd/bridge/pairrate.h"
#include "tests/unit/tap.h"

static void
test_window(void)
{
	struct pairrate *r = pairrate_new(PAIRRATE_WAKES, PAIRRATE_WINDOW_MS);
	uint64_t t = 1000000;
	int i, n = 0;

	for (i = 0; i < 10; i++)
		n += pairrate_take(r, "bot", "alice", t + i * 1000);
	is_int(n, 10, "RT-6: ten wakes in a minute");
	is_int(pairrate_take(r, "bot", "alice", t + 10000), 0,
	    "the eleventh is past the rate");
	is_int(pairrate_take(r, "bot", "alice", t + 59999), 0,
	    "still past it just before the first leaves the window");
	is_int(pairrate_take(r, "bot", "bob", t + 10000), 1,
	    "another agent is another pair");
	is_int(pairrate_take(r, "alice", "bot", t + 10000), 1,
	    "pairs are ordered");
	is_int(pairrate_take(r, "bot", "alice", t + 60000), 1,
	    "a minute after the first, one more fits");
	is_int(pairrate_take(r, "bot", "alice", t + 60001), 0,
	    "and only one: the second is a minute old only at 61 s");
	is_int(pairrate_take(r, "bot", "alice", t + 61000), 1,
	    "at 61 s the second has left too");
	/* Refused events are not counted: a flood does not extend the wait. */
	for (i = 0; i < 100; i++)
		pairrate_take(r, "bot", "alice", t + 61500);
	is_int(pairrate_take(r, "bot", "alice", t + 62000), 1,
	    "refusals do not count against the pair");
	pairrate_free(r);
}

static void
test_sweep(void)
{
	struct pairrate *r = pairrate_new(2, 1000);
	char a[32];
	int i;

	for (i = 0; i < 3000; i++) {
		snprintf(a, sizeof(a), "bot%d", i);
		pairrate_take(r, a, "alice", (uint64_t)i * 10);
	}
	/* At 30 s, only the pairs of the last second may be kept. */
	ok(pairrate_count(r) < 1100, "idle pairs are forgotten");
	ok(pairrate_count(r) >= 100, "the pairs of the last second are kept");
	is_int(pairrate_take(r, "bot2999", "alice", 29995), 1,
	    "a kept pair still counts: its second event fits");
	is_int(pairrate_take(r, "bot2999", "alice", 29996), 0,
	    "and its third does not");
	pairrate_free(r);
	pairrate_free(NULL);
	ok(1, "pairrate_free(NULL) is harmless");
}

int
main(void)
{
	test_window();
	test_sweep();
	return tap_done();
}

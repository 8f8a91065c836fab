/*
 * pairrate.h: at most so many events a window for each ordered pair of
 * principals, in a sliding window: RT-6 holds each (bot, agent) pair to
 * MN-4's rate of 10 wakes a minute. The caller gives the time, so it is
 * unit-tested without a clock.
 */
#ifndef IRCD_BRIDGE_PAIRRATE_H
#define IRCD_BRIDGE_PAIRRATE_H

#include <stddef.h>
#include <stdint.h>

/* RT-6, MN-4: wakes a minute for one pair. */
#define PAIRRATE_WAKES		10
#define PAIRRATE_WINDOW_MS	60000

struct pairrate;

struct pairrate	*pairrate_new(size_t max, uint64_t window_ms);
void		 pairrate_free(struct pairrate *);
/*
 * One more event from a to b at now_ms: 1 when it is within the rate (and
 * is counted), 0 when it is past it (and is not). Pairs whose events are
 * all older than the window are forgotten, so the table stays as small as
 * the pairs active in the last window.
 */
int		 pairrate_take(struct pairrate *, const char *a, const char *b,
		    uint64_t now_ms);
/* How many pairs are remembered (tests). */
size_t		 pairrate_count(const struct pairrate *);

#endif

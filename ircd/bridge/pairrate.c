/*
 * pairrate.c: a sliding-window rate per ordered pair of principals
 * (RT-6's bots and agents; MN-4's agents). Each pair keeps the times of
 * its last max events in a ring: the oldest of them tells whether one
 * more fits in the window.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/pairrate.h"
#include "ircd/dict.h"
#include "ircd/xmalloc.h"

/* Past this many pairs, the ones idle for a window are swept. */
#define PAIRRATE_SWEEP_AT	1024

struct pair {
	size_t		 n;		/* events in the ring */
	size_t		 next;		/* where the next one goes */
	uint64_t	 at[];		/* max of them */
};

struct pairrate {
	struct dict	*pairs;		/* "a\nb" -> struct pair */
	size_t		 max;
	uint64_t	 window;
	size_t		 sweep_at;
};

struct pairrate *
pairrate_new(size_t max, uint64_t window_ms)
{
	struct pairrate *r = xcalloc(1, sizeof(*r));

	r->pairs = dict_new();
	r->max = max > 0 ? max : 1;
	r->window = window_ms;
	r->sweep_at = PAIRRATE_SWEEP_AT;
	return r;
}

void
pairrate_free(struct pairrate *r)
{
	size_t pos = 0;
	void *v;

	if (r == NULL)
		return;
	while ((v = dict_next(r->pairs, &pos, NULL)) != NULL)
		free(v);
	dict_free(r->pairs);
	free(r);
}

/* The newest event of p. */
static uint64_t
pair_newest(const struct pairrate *r, const struct pair *p)
{
	return p->at[(p->next + r->max - 1) % r->max];
}

/* Forget the pairs with nothing in the window, a batch at a time. */
static void
pairrate_sweep(struct pairrate *r, uint64_t now)
{
	const char *gone[64], *key;
	size_t pos, n, i;
	struct pair *p;

	do {
		n = 0;
		pos = 0;
		while (n < 64 && (p = dict_next(r->pairs, &pos, &key)) != NULL)
			if (now - pair_newest(r, p) >= r->window)
				gone[n++] = key;
		/*
		 * Deleting frees only that slot's key (a tombstone stays),
		 * so the others are still good; each is copied first.
		 */
		for (i = 0; i < n; i++) {
			char k[256];

			strlcpy(k, gone[i], sizeof(k));
			free(dict_del(r->pairs, k));
		}
	} while (n == 64);
	/* Every pair busy: sweep again only when twice as many. */
	r->sweep_at = dict_count(r->pairs) * 2 > PAIRRATE_SWEEP_AT ?
	    dict_count(r->pairs) * 2 : PAIRRATE_SWEEP_AT;
}

int
pairrate_take(struct pairrate *r, const char *a, const char *b,
    uint64_t now)
{
	char key[256];
	struct pair *p;

	snprintf(key, sizeof(key), "%s\n%s", a, b);
	if ((p = dict_get(r->pairs, key)) == NULL) {
		if (dict_count(r->pairs) >= r->sweep_at)
			pairrate_sweep(r, now);
		p = xcalloc(1, sizeof(*p) + r->max * sizeof(p->at[0]));
		dict_set(r->pairs, key, p);
	}
	/* Full, and the oldest still in the window: past the rate. */
	if (p->n == r->max && now - p->at[p->next] < r->window)
		return 0;
	p->at[p->next] = now;
	p->next = (p->next + 1) % r->max;
	if (p->n < r->max)
		p->n++;
	return 1;
}

size_t
pairrate_count(const struct pairrate *r)
{
	return dict_count(r->pairs);
}

/*
 * whowas.c: the WHOWAS history, a fixed ring of the last nicks that left
 * or changed. The oldest entry is overwritten, so memory never grows.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/whowas.h"
#include "ircd/xmalloc.h"

static struct whowas	*ring;
static int		 ring_size;
static int		 ring_next;	/* slot written next */
static int		 ring_count;	/* slots in use, up to ring_size */

void
whowas_init(int size)
{
	whowas_free();
	if (size <= 0)
		return;
	ring = xcalloc(size, sizeof(*ring));
	ring_size = size;
}

void
whowas_add(const struct client *c)
{
	struct whowas *w;

	/* A client that never had a nick leaves nothing to ask about. */
	if (ring_size == 0 || c->nick[0] == '\0')
		return;
	w = &ring[ring_next];
	memset(w, 0, sizeof(*w));
	strlcpy(w->nick, c->nick, sizeof(w->nick));
	strlcpy(w->user, c->user, sizeof(w->user));
	strlcpy(w->host, c->host, sizeof(w->host));
	strlcpy(w->realname, c->realname, sizeof(w->realname));
	if (c->account != NULL)
		strlcpy(w->account, c->account, sizeof(w->account));
	w->when = time(NULL);
	ring_next = (ring_next + 1) % ring_size;
	if (ring_count < ring_size)
		ring_count++;
}

const struct whowas *
whowas_find(const char *nick, int i)
{
	int k, slot;

	if (i < 0)
		return NULL;
	/* Walk back from the newest entry, counting matches. */
	for (k = 0; k < ring_count; k++) {
		slot = (ring_next - 1 - k + ring_size) % ring_size;
		if (casemap_cmp(ring[slot].nick, nick) != 0)
			continue;
		if (i-- == 0)
			return &ring[slot];
	}
	return NULL;
}

void
whowas_free(void)
{
	free(ring);
	ring = NULL;
	ring_size = ring_next = ring_count = 0;
}

/*
 * wbuf.c: the turn's output arena. Offsets, not pointers, name the bytes,
 * because the arena moves when it grows. The arena keeps a small buffer
 * between turns and gives a big one back, so one burst (a thousand
 * welcomes in one turn) does not stay in the server's memory.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "ircd/wbuf.h"
#include "ircd/xmalloc.h"

/* What the arena may keep between turns. */
#define WBUF_KEEP_BYTES	(64 * 1024)
#define WBUF_KEEP_SEGS	4096

struct wseg {
	uint32_t	off;
	uint32_t	len;
	uint32_t	next;		/* index + 1 of the next segment; 0 ends */
};

static char		*data;
static size_t		 dlen, dcap;
static struct wseg	*segs;
static size_t		 nsegs, scap;
static unsigned		 gen = 1;

char *
wbuf_reserve(size_t len, uint32_t *off)
{
	if (dlen + len > dcap) {
		size_t ncap = dcap > 0 ? dcap : 4096;

		while (ncap < dlen + len)
			ncap *= 2;
		data = xreallocarray(data, ncap, 1);
		dcap = ncap;
	}
	*off = (uint32_t)dlen;
	dlen += len;
	return data + *off;
}

uint32_t
wbuf_put(const void *p, size_t len)
{
	uint32_t off;

	memcpy(wbuf_reserve(len, &off), p, len);
	return off;
}

void
wq_push(struct wq *q, uint32_t off, uint32_t len)
{
	struct wseg *s;

	if (len == 0)
		return;
	q->bytes += len;
	/* Lines queued back to back for one client are one segment. */
	if (q->tail != 0) {
		s = &segs[q->tail - 1];
		if (s->off + s->len == off) {
			s->len += len;
			return;
		}
	}
	if (nsegs == scap) {
		scap = scap > 0 ? scap * 2 : 1024;
		segs = xreallocarray(segs, scap, sizeof(*segs));
	}
	s = &segs[nsegs++];
	s->off = off;
	s->len = len;
	s->next = 0;
	if (q->tail != 0)
		segs[q->tail - 1].next = (uint32_t)nsegs;
	else
		q->head = (uint32_t)nsegs;
	q->tail = (uint32_t)nsegs;
}

int
wq_iov(struct iovec *iov, int max, uint32_t *cursor)
{
	uint32_t i = *cursor;
	int n = 0;

	while (i != 0 && n < max) {
		const struct wseg *s = &segs[i - 1];

		iov[n].iov_base = data + s->off;
		iov[n].iov_len = s->len;
		n++;
		i = s->next;
	}
	*cursor = i;
	return n;
}

void
wq_copy(const struct wq *q, size_t skip, char *dst)
{
	uint32_t i;

	for (i = q->head; i != 0; i = segs[i - 1].next) {
		const struct wseg *s = &segs[i - 1];

		if (skip >= s->len) {
			skip -= s->len;
			continue;
		}
		memcpy(dst, data + s->off + skip, s->len - skip);
		dst += s->len - skip;
		skip = 0;
	}
}

size_t
wbuf_used(void)
{
	return dlen + nsegs * sizeof(struct wseg);
}

void
wbuf_reset(void)
{
	dlen = 0;
	nsegs = 0;
	gen++;
	if (dcap > WBUF_KEEP_BYTES) {
		free(data);
		data = NULL;
		dcap = 0;
	}
	if (scap > WBUF_KEEP_SEGS) {
		free(segs);
		segs = NULL;
		scap = 0;
	}
}

unsigned
wbuf_gen(void)
{
	return gen;
}

void
wbuf_free(void)
{
	free(data);
	free(segs);
	data = NULL;
	segs = NULL;
	dlen = dcap = nsegs = scap = 0;
}

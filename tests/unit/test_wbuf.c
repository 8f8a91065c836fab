/*
 * test_wbuf.c: the turn's output arena (ircd/wbuf.c). Segments of one
 * queue come back in order, shared bytes are not copied, neighbours are
 * joined, a partial write's rest is copied exactly, and offsets stay
 * right when the arena grows.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/wbuf.h"
#include "tests/unit/tap.h"

/* Everything q holds, through wq_iov, as one string. */
static const char *
drain(const struct wq *q, int max)
{
	static char out[1 << 20];
	struct iovec iov[8];
	uint32_t cur = q->head;
	size_t n = 0;
	int i, cnt;

	while (cur != 0) {
		cnt = wq_iov(iov, max, &cur);
		for (i = 0; i < cnt; i++) {
			memcpy(out + n, iov[i].iov_base, iov[i].iov_len);
			n += iov[i].iov_len;
		}
	}
	out[n] = '\0';
	return out;
}

static int
nsegs(const struct wq *q)
{
	struct iovec iov[8];
	uint32_t cur = q->head;
	int n = 0;

	while (cur != 0)
		n += wq_iov(iov, 8, &cur);
	return n;
}

static void
test_order_and_sharing(void)
{
	struct wq a, b;
	uint32_t l1, l2, own;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	l1 = wbuf_put("one\r\n", 5);
	wq_push(&a, l1, 5);
	wq_push(&b, l1, 5);
	own = wbuf_put("b-only\r\n", 8);
	wq_push(&b, own, 8);
	l2 = wbuf_put("two\r\n", 5);
	wq_push(&a, l2, 5);
	wq_push(&b, l2, 5);
	is_str(drain(&a, 8), "one\r\ntwo\r\n", "a gets both shared lines in order");
	is_str(drain(&b, 8), "one\r\nb-only\r\ntwo\r\n", "b gets its own line between them");
	is_int(a.bytes, 10, "a counts its bytes");
	is_int(b.bytes, 18, "b counts its bytes");
	/* b's three lines are back to back in the arena: one segment. */
	is_int(nsegs(&b), 1, "neighbouring segments are joined");
	is_int(nsegs(&a), 2, "a's lines are not neighbours: two segments");
	ok(wbuf_used() >= 18, "the arena counts what it holds");
	wbuf_reset();
}

static void
test_partial_copy(void)
{
	struct wq q;
	char dst[64];
	uint32_t off;

	memset(&q, 0, sizeof(q));
	off = wbuf_put("abc", 3);
	wq_push(&q, off, 3);
	(void)wbuf_put("zz", 2);	/* someone else's bytes in between */
	off = wbuf_put("defgh", 5);
	wq_push(&q, off, 5);
	memset(dst, 0, sizeof(dst));
	wq_copy(&q, 0, dst);
	is_str(dst, "abcdefgh", "copy from 0");
	memset(dst, 0, sizeof(dst));
	wq_copy(&q, 2, dst);
	is_str(dst, "cdefgh", "copy after a partial write inside the first segment");
	memset(dst, 0, sizeof(dst));
	wq_copy(&q, 3, dst);
	is_str(dst, "defgh", "copy after a write that ended on a segment boundary");
	memset(dst, 0, sizeof(dst));
	wq_copy(&q, 7, dst);
	is_str(dst, "h", "copy of the last byte");
	wbuf_reset();
}

static void
test_growth_and_reset(void)
{
	struct wq q;
	char line[32], want[64];
	unsigned gen = wbuf_gen();
	uint32_t off;
	int i, bad = 0;

	memset(&q, 0, sizeof(q));
	/* 200 000 lines, every other one for q: the arena moves many times. */
	for (i = 0; i < 200000; i++) {
		int n = snprintf(line, sizeof(line), "%d\n", i);

		off = wbuf_put(line, (size_t)n);
		if (i % 2 == 0)
			wq_push(&q, off, (uint32_t)n);
	}
	{
		const char *all = drain(&q, 3);
		size_t pos = 0;

		for (i = 0; i < 200000; i += 2) {
			int n = snprintf(want, sizeof(want), "%d\n", i);

			if (strncmp(all + pos, want, (size_t)n) != 0)
				bad++;
			pos += (size_t)n;
		}
		is_int(strlen(all), pos, "every queued byte is there");
	}
	is_int(bad, 0, "offsets stay right as the arena grows");
	ok(wbuf_used() > 1000000, "a big turn is visible to the early-flush check");
	wbuf_reset();
	ok(wbuf_gen() != gen, "a reset changes the generation");
	is_int(wbuf_used(), 0, "a reset empties the arena");
	memset(&q, 0, sizeof(q));
	off = wbuf_put("after\n", 6);
	wq_push(&q, off, 6);
	is_str(drain(&q, 8), "after\n", "the arena works after giving its memory back");
	wbuf_reset();
	wbuf_free();
}

static void
test_empty(void)
{
	struct wq q;

	memset(&q, 0, sizeof(q));
	wq_push(&q, wbuf_put("x", 1), 0);
	is_int(q.bytes, 0, "an empty push queues nothing");
	ok(q.head == 0, "and makes no segment");
	wbuf_reset();
}

int
main(void)
{
	test_order_and_sharing();
	test_partial_copy();
	test_growth_and_reset();
	test_empty();
	return tap_done();
}

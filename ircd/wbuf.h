/*
 * wbuf.h: the output of one loop turn. Every line queued for a socket
 * during a turn is stored once in one arena; each connection keeps only a
 * list of (offset, length) segments into it. A line relayed to a thousand
 * members is one copy and a thousand twelve-byte segments, and an idle
 * connection holds no output buffer at all. At the end of the turn each
 * connection's segments go out in one sendmsg(), and the arena is reset.
 */
#ifndef IRCD_WBUF_H
#define IRCD_WBUF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* One connection's segments in this turn (zeroed: empty). */
struct wq {
	uint32_t	head;		/* segment index + 1; 0 when empty */
	uint32_t	tail;
	uint32_t	bytes;
};

/* Room for len bytes at the end of the arena; valid until the next reserve. */
char		*wbuf_reserve(size_t len, uint32_t *off);
/* Copy len bytes into the arena; returns their offset. */
uint32_t	 wbuf_put(const void *, size_t len);
/* Queue len bytes at off for q; joins a segment that ends where it starts. */
void		 wq_push(struct wq *, uint32_t off, uint32_t len);
/*
 * Fill up to max iovecs with a queue's segments from *cursor on (start
 * with its head); returns how many were filled. *cursor is 0 once all are.
 */
int		 wq_iov(struct iovec *, int max, uint32_t *cursor);
/* Copy q's bytes from byte skip on into dst (q->bytes - skip bytes). */
void		 wq_copy(const struct wq *, size_t skip, char *dst);
/* Bytes and segments used this turn: the caller flushes early past a bound. */
size_t		 wbuf_used(void);
/* Forget everything (every wq must have been emptied); bumps the generation. */
void		 wbuf_reset(void);
/* Changes at every reset, so cached offsets from older turns are known stale. */
unsigned	 wbuf_gen(void);
void		 wbuf_free(void);

#endif

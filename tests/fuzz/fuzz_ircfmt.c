/*
 * fuzz_ircfmt.c: fuzz target for TN-13's Markdown to IRC text
 * (ircd/bridge/ircfmt.c). The first byte picks the flags and the size of
 * the chunks a line arrives in; the rest is an answer, cut at its
 * newlines. Invariants: no memory error; what comes out fits
 * ircfmt_size() and holds no TAB; ircfmt_settled() never passes the end;
 * and a line formatted in the settled parts stream.c sends early is
 * byte for byte the line formatted whole.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/ircfmt.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Format in (len) into a buffer of its own, checking the size and TABs. */
static char *
format(struct ircfmt *f, const char *in, size_t len, int flags, int end,
    size_t *n)
{
	size_t size = ircfmt_size(in, len);
	char *out = malloc(size);

	if (out == NULL)
		abort();
	*n = ircfmt_line(f, in, len, flags, end, out);
	if (*n > size || memchr(out, '\t', *n) != NULL)
		abort();
	return out;
}

static void
check_line(struct ircfmt *f, const char *in, size_t len, int flags,
    size_t step)
{
	struct ircfmt whole_f = *f;
	char *whole, *part, *parts;
	size_t wn, pn = 0, n, have = 0, done = 0, k;

	whole = format(&whole_f, in, len, flags, 1, &wn);
	if ((parts = malloc(wn + 1)) == NULL)
		abort();
	while (have < len) {
		have = have + step < len ? have + step : len;
		k = ircfmt_settled(f, in + done, have - done, flags);
		if (k > have - done)
			abort();
		if (k == 0)
			continue;
		part = format(f, in + done, k, flags, 0, &n);
		if (pn + n > wn)
			abort();
		memcpy(parts + pn, part, n);
		pn += n;
		done += k;
		free(part);
	}
	part = format(f, in + done, len - done, flags, 1, &n);
	if (pn + n != wn)
		abort();
	memcpy(parts + pn, part, n);
	if (memcmp(parts, whole, wn) != 0)
		abort();
	if (f->in_fence != whole_f.in_fence || f->cont || f->col != 0)
		abort();
	free(part);
	free(parts);
	free(whole);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ircfmt f;
	const char *p, *end, *nl;
	int flags;
	size_t step;

	if (size == 0)
		return 0;
	flags = data[0] & 1 ? IRCFMT_MARKDOWN : 0;
	step = (size_t)(data[0] >> 1) % 16 + 1;
	p = (const char *)data + 1;
	end = (const char *)data + size;
	memset(&f, 0, sizeof(f));
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		check_line(&f, p, (size_t)(nl - p), flags, step);
		p = nl + 1;
	}
	return 0;
}

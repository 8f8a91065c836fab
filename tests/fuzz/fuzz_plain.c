/*
 * fuzz_plain.c: fuzz target for AU-6's sanitiser (acp/plain.c). The
 * first byte picks the output's size, the rest is agent-written text,
 * and also, when it parses, a tool call's rawInput. Invariants: no
 * memory error; the length returned is the string's and fits; what comes
 * out is valid UTF-8 with no C0 or C1 control, DEL, bidi control or
 * line separator; acp_plain_is() holds for it and acp_plain() leaves it
 * as it is. acp_plain_input() keeps the same promises.
 */
#include "compat.h"

#include <cjson/cJSON.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "acp/plain.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define OUTMAX	512

/* Is the code point at s (k bytes, well formed) one AU-6 removes or spaces? */
static int
unplain(const unsigned char *s, size_t k)
{
	unsigned long cp;

	if (k == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	if (k == 2)
		cp = ((unsigned long)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
	else if (k == 3)
		cp = ((unsigned long)(s[0] & 0x0f) << 12) |
		    ((unsigned long)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	else
		return 0;	/* nothing past U+FFFF is removed */
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/* out, of r bytes from a buffer of size, keeps every promise. */
static void
check(const char *out, size_t r, size_t size)
{
	const unsigned char *s = (const unsigned char *)out;
	char again[OUTMAX];
	size_t i, k, bad;

	if (r >= size || strlen(out) != r)
		abort();
	for (i = 0; i < r; i += k) {
		if ((k = acp_utf8_seq(s + i, r - i, &bad)) == 0)
			abort();
		if (unplain(s + i, k))
			abort();
	}
	if (!acp_plain_is(out))
		abort();
	if (acp_plain(again, sizeof(again), out, r) != r ||
	    memcmp(again, out, r + 1) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[OUTMAX];
	size_t outsize, r;
	cJSON *json;

	if (size == 0)
		return 0;
	/* 1 to 256 bytes: small ones make the cut happen often. */
	outsize = (size_t)data[0] + 1;
	data++;
	size--;
	r = acp_plain(out, outsize, (const char *)data, size);
	check(out, r, outsize);

	if ((json = cJSON_ParseWithLength((const char *)data, size)) != NULL) {
		r = acp_plain_input(out, outsize, json);
		check(out, r, outsize);
		cJSON_Delete(json);
	}
	return 0;
}

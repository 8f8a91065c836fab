/*
 * fuzz_sasl.c: fuzz target for the SASL decoder (sasl_decode) and PLAIN's
 * split (sasl_plain_split), what an unauthenticated client's AUTHENTICATE
 * lines reach. The input is tried as the base64 a client sends, then as
 * the decoded message itself. Invariants: no memory error or leak; a
 * decoded message fits and ends in NUL; a split succeeds exactly when the
 * message holds two NULs, and its three parts are the whole message.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/sasl.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t
nuls(const unsigned char *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == '\0';
	return k;
}

static void
split(const unsigned char *raw, size_t n)
{
	const char *zid, *cid, *pw;
	int r = sasl_plain_split(raw, n, &zid, &cid, &pw);

	if ((r == 0) != (nuls(raw, n) == 2))
		abort();
	if (r != 0)
		return;
	if (zid != (const char *)raw || cid <= zid || pw <= cid ||
	    pw > (const char *)raw + n ||
	    strlen(zid) + strlen(cid) + strlen(pw) + 2 != n)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *out, *raw;
	int n;

	if ((n = sasl_decode((const char *)data, size, &out)) >= 0) {
		if ((size_t)n > size / 4 * 3 || out[n] != '\0')
			abort();
		split(out, (size_t)n);
		free(out);
	}
	if ((raw = malloc(size + 1)) == NULL)
		abort();
	memcpy(raw, data, size);
	raw[size] = '\0';
	split(raw, size);
	free(raw);
	return 0;
}

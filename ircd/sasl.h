/*
 * sasl.h: the SASL exchange state of a client (AUTHENTICATE).
 */
#ifndef IRCD_SASL_H
#define IRCD_SASL_H

#include <stddef.h>

struct client;

/*
 * Pure, for tests and fuzz_sasl. Base64 in (inlen bytes, a multiple of
 * 4) decoded into a new NUL-terminated buffer *out: its length, or -1
 * (and nothing to free) when it is no base64.
 */
int	sasl_decode(const char *in, size_t inlen, unsigned char **out);
/*
 * PLAIN's message (RFC 4616: authzid NUL authcid NUL password), n bytes
 * at raw, NUL-terminated after them: its three parts, pointing into raw.
 * 0, or -1 when there are not exactly two NULs in it.
 */
int	sasl_plain_split(const unsigned char *raw, size_t n,
	    const char **authzid, const char **authcid, const char **password);

/* Registration completed or the client left mid-exchange: 906 and forget it. */
void	sasl_abort(struct client *);
void	sasl_free(struct client *);

#endif

/*
 * acp/json.c: JSON text for the wire.
 *
 * ACP and MCP frames are UTF-8 only (both specs say so), and a strict
 * peer (serde_json in codex-acp or goose) rejects a whole frame that is
 * not. IRC text is bytes: a client may send Latin-1 or a cut sequence,
 * and the server relays it to IRC as sent, as other servers do. So it
 * is made valid here, on its way out to an agent, and nowhere else:
 * each maximal invalid subpart (Unicode's "substitution of maximal
 * subparts", which is also what a browser's TextDecoder does) becomes
 * U+FFFD. JSON's own syntax is ASCII, so only string contents change.
 */
#include "compat.h"

#include <cjson/cJSON.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "acp/plain.h"

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF), or 0 with *bad set
 * to the length of the maximal subpart that has to be replaced.
 */
size_t
acp_utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong below U+0800 */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong below U+10000 */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		*bad = 1;	/* 80-C1, F5-FF: never a lead byte */
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

int
acp_utf8_scrub(const char *text, size_t len, char **outp, size_t *outlen)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i, k, bad, nbad = 0;
	char *out, *o;

	/* One pass to see whether anything, and how much, must change. */
	for (i = 0; i < len; i += k ? k : bad)
		if ((k = acp_utf8_seq(s + i, len - i, &bad)) == 0)
			nbad++;
	if (nbad == 0)
		return 0;
	/* Each replacement is 3 bytes for at least 1. */
	if ((out = malloc(len + 2 * nbad + 1)) == NULL)
		return -1;
	for (i = 0, o = out; i < len; ) {
		if ((k = acp_utf8_seq(s + i, len - i, &bad)) != 0) {
			memcpy(o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i += bad;
		}
	}
	*o = '\0';
	*outp = out;
	*outlen = (size_t)(o - out);
	return nbad > INT_MAX ? INT_MAX : (int)nbad;
}

char *
acp_json_print(const cJSON *item, size_t *lenp)
{
	char *s, *t;
	size_t len, tlen;
	int r;

	if ((s = cJSON_PrintUnformatted(item)) == NULL)
		return NULL;
	len = strlen(s);
	if ((r = acp_utf8_scrub(s, len, &t, &tlen)) != 0) {
		cJSON_free(s);
		if (r < 0)
			return NULL;
		s = t;
		len = tlen;
	}
	if (lenp != NULL)
		*lenp = len;
	return s;
}

/*
 * banmask.c: list-mode masks checked and completed; extended bans told
 * apart from host masks (banmask.h). Pure: matching a user is channel.c's.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/banmask.h"

/* Copy at most max bytes of [s, e) into dst, or "*" when empty. */
static void
banmask_part(char *dst, size_t size, const char *s, const char *e, size_t max)
{
	size_t len = (size_t)(e - s);

	if (len == 0) {
		s = "*";
		len = 1;
	}
	if (len > max)
		len = max;
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Can s travel as one middle parameter and in a comma list? */
static int
banmask_chars_ok(const char *s)
{
	if (s[0] == ':')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == ',' ||
		    (unsigned char)*s == 0x7f)
			return 0;
	return 1;
}

/* Complete a host mask to nick!user@host (see banmask.h). */
static void
banmask_host(const char *in, char *out, size_t size)
{
	char nick[NICKLEN + 1], user[USERLEN + 1], host[HOSTLEN + 1];
	const char *bang, *at, *end = in + strlen(in);

	bang = strchr(in, '!');
	at = strchr(bang != NULL ? bang : in, '@');
	if (bang != NULL) {
		banmask_part(nick, sizeof(nick), in, bang, NICKLEN);
		banmask_part(user, sizeof(user), bang + 1,
		    at != NULL ? at : end, USERLEN);
		banmask_part(host, sizeof(host), at != NULL ? at + 1 : end,
		    end, HOSTLEN);
	} else if (at != NULL) {
		banmask_part(nick, sizeof(nick), in, in, NICKLEN);
		banmask_part(user, sizeof(user), in, at, USERLEN);
		banmask_part(host, sizeof(host), at + 1, end, HOSTLEN);
	} else if (strchr(in, '.') != NULL || strchr(in, ':') != NULL) {
		banmask_part(nick, sizeof(nick), in, in, NICKLEN);
		banmask_part(user, sizeof(user), in, in, USERLEN);
		banmask_part(host, sizeof(host), in, end, HOSTLEN);
	} else {
		banmask_part(nick, sizeof(nick), in, end, NICKLEN);
		banmask_part(user, sizeof(user), in, in, USERLEN);
		banmask_part(host, sizeof(host), in, in, HOSTLEN);
	}
	snprintf(out, size, "%s!%s@%s", nick, user, host);
}

char
banmask_split(const char *mask, const char **value)
{
	/* A nick has no ':', so "X:" can only begin an extended ban. */
	if (((mask[0] >= 'a' && mask[0] <= 'z') ||
	    (mask[0] >= 'A' && mask[0] <= 'Z')) && mask[1] == ':') {
		*value = mask + 2;
		return mask[0];
	}
	*value = mask;
	return 0;
}

const char *
banmask_normalize(const char *in, char list, char *out, size_t size)
{
	char inner[BANMASK_LEN + 1];
	const char *value, *why;

	if (size < BANMASK_LEN + 1)
		return "Mask buffer too small";
	if (in[0] == '\0')
		return "Empty mask";
	if (!banmask_chars_ok(in))
		return "Invalid characters in mask";
	switch (banmask_split(in, &value)) {
	case 0:
		banmask_host(in, out, size);
		return NULL;
	case 'R':
		if (value[0] == '\0')
			return "Empty extban value (R:<account>)";
		/* An account name is a nick: bounded like one. */
		if (strlen(value) > NICKLEN)
			return "Extban account name too long";
		snprintf(out, size, "R:%s", value);
		return NULL;
	case 'm':
		if (list == 'I')
			return "Extban m: (mute) is no invite exception";
		if (value[0] == '\0')
			return "Empty extban value (m:<mask>)";
		/* A mute names whom by a host mask or an account, once. */
		if (banmask_split(value, &why) == 'm')
			return "Extban m: cannot hold another m:";
		if ((why = banmask_normalize(value, list, inner,
		    sizeof(inner))) != NULL)
			return why;
		snprintf(out, size, "m:%s", inner);
		return NULL;
	default:
		return "Unknown extban type (EXTBAN=,Rm)";
	}
}

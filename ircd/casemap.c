/*
 * casemap.c: rfc1459 casemapping and name validity. Pure: no server
 * state, so the unit tests call it directly.
 */
#include "compat.h"

#include <string.h>

#include "ircd/casemap.h"

int
casemap_lower(int c)
{
	if (c >= 'A' && c <= '^')	/* A-Z and [\]^ fold to a-z and {|}~ */
		return c + 32;
	return c;
}

void
casemap_fold(char *dst, const char *src, size_t size)
{
	size_t i;

	if (size == 0)
		return;
	for (i = 0; i + 1 < size && src[i] != '\0'; i++)
		dst[i] = (char)casemap_lower((unsigned char)src[i]);
	dst[i] = '\0';
}

int
casemap_cmp(const char *a, const char *b)
{
	int ca, cb;

	do {
		ca = casemap_lower((unsigned char)*a++);
		cb = casemap_lower((unsigned char)*b++);
	} while (ca == cb && ca != '\0');
	return ca - cb;
}

int
casemap_match(const char *mask, const char *s)
{
	const char *star_m = NULL, *star_s = NULL;

	/* Iterative glob with backtracking to the last '*': linear-ish, no recursion. */
	while (*s != '\0') {
		if (*mask == '*') {
			while (*mask == '*')
				mask++;
			if (*mask == '\0')
				return 1;
			star_m = mask;
			star_s = s;
			continue;
		}
		if (*mask == '\\' && (mask[1] == '*' || mask[1] == '?' || mask[1] == '\\')) {
			if (mask[1] == *s) {
				mask += 2;
				s++;
				continue;
			}
		} else if (*mask != '\0' && (*mask == '?' ||
		    casemap_lower((unsigned char)*mask) == casemap_lower((unsigned char)*s))) {
			mask++;
			s++;
			continue;
		}
		if (star_m == NULL)
			return 0;
		mask = star_m;
		s = ++star_s;
	}
	while (*mask == '*')
		mask++;
	return *mask == '\0';
}

static int
nick_special(int c)
{
	return strchr("[]\\`_^{|}", c) != NULL;
}

int
casemap_valid_nick(const char *s, size_t maxlen)
{
	size_t i;
	int c;

	if (s == NULL || s[0] == '\0')
		return 0;
	c = (unsigned char)s[0];
	if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || nick_special(c)))
		return 0;
	for (i = 1; s[i] != '\0'; i++) {
		c = (unsigned char)s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || nick_special(c)))
			return 0;
	}
	return i <= maxlen;
}

int
casemap_is_channel(const char *s)
{
	return s != NULL && s[0] == '#';
}

int
casemap_valid_channel(const char *s, size_t maxlen)
{
	size_t i;

	if (!casemap_is_channel(s) || s[1] == '\0')
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (s[i] == ' ' || s[i] == ',' || s[i] == '\a' ||
		    s[i] == '\r' || s[i] == '\n' || s[i] == ':')
			return 0;
	return i <= maxlen;
}

int
casemap_valid_user(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == '@' || c == '!' || c == ':' || c >= 0x7f)
			return 0;
	}
	return 1;
}

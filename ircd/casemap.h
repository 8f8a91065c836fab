/*
 * casemap.h: rfc1459 casemapping (A-Z[\]^ fold to a-z{|}~) and
 * nick/channel/user validity. Pure, unit-tested.
 */
#ifndef IRCD_CASEMAP_H
#define IRCD_CASEMAP_H

#include <stddef.h>

#define CASEMAPPING	"rfc1459"

int	casemap_lower(int c);
/* Fold src into dst (size bytes, NUL-terminated, truncated if needed). */
void	casemap_fold(char *dst, const char *src, size_t size);
int	casemap_cmp(const char *, const char *);
/* Glob match (* and ?, with \ escaping), casefolded. 1 on match. */
int	casemap_match(const char *mask, const char *s);
int	casemap_valid_nick(const char *, size_t maxlen);
int	casemap_valid_channel(const char *, size_t maxlen);
int	casemap_valid_user(const char *);
int	casemap_is_channel(const char *);

#endif

/*
 * xmalloc.h: allocation that cannot fail. Out of memory is fatal for a
 * server that must never half-apply a change.
 */
#ifndef IRCD_XMALLOC_H
#define IRCD_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif

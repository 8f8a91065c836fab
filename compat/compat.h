/*
 * compat.h: what some libcs lack. Each function is built from compat/
 * only where configure found it missing.
 */
#ifndef COMPAT_H
#define COMPAT_H

#include "config.h"
#include <stddef.h>
#include <sys/queue.h>

#ifndef HAVE_STRLCPY
size_t	strlcpy(char *, const char *, size_t);
#endif
#ifndef HAVE_STRLCAT
size_t	strlcat(char *, const char *, size_t);
#endif
#ifndef HAVE_REALLOCARRAY
void	*reallocarray(void *, size_t, size_t);
#endif

/* glibc's sys/queue.h has no _SAFE iterators. */
#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) != NULL && ((tvar) = TAILQ_NEXT(var, field), 1);	\
	    (var) = (tvar))
#endif
#ifndef LIST_FOREACH_SAFE
#define LIST_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = LIST_FIRST(head);					\
	    (var) != NULL && ((tvar) = LIST_NEXT(var, field), 1);	\
	    (var) = (tvar))
#endif

#endif

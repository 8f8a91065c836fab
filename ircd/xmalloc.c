/*
 * xmalloc.c: allocation wrappers that abort on exhaustion, so callers
 * never carry half-built state around an out-of-memory path.
 */
#include "compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/log.h"
#include "ircd/xmalloc.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		log_fatalx("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		log_fatalx("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *q = reallocarray(p, n ? n : 1, size ? size : 1);

	if (q == NULL)
		log_fatalx("out of memory (%zu x %zu bytes)", n, size);
	return q;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		log_fatalx("out of memory");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		log_fatalx("out of memory");
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		log_fatalx("out of memory");
	return n;
}

/* reallocarray: realloc with overflow check, for libcs without it. */
#include "compat.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

void *
reallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}

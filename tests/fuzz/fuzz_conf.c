/*
 * fuzz_conf.c: fuzz target for the configuration parser (conf_parse).
 * Invariants: no memory error or leak, and every rejected file gets an
 * error that names it as "file:line: ..." (SEC-4).
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/conf.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf *c;
	char err[512], *text;

	if ((text = malloc(size + 1)) == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if ((c = conf_parse(text, "fuzz.conf", err, sizeof(err))) == NULL) {
		if (strncmp(err, "fuzz.conf:", 10) != 0)
			abort();
	} else
		conf_free(c);
	free(text);
	return 0;
}

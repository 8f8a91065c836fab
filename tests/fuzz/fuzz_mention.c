/*
 * fuzz_mention.c: fuzz target for the "@name" tokenizer (mention.c, in
 * both modes). Invariants: no memory error; every mention lies inside
 * the text, in order, an '@' then nick characters only; the scan ends
 * and stays ended; a strict mention is always a people's one too (strict
 * mode only takes away); mention_copy never writes past its buffer.
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/mention.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A small buffer, so that copies that do not fit are tried too. */
#define COPYLEN	8

/* Check one scan; remember where its mentions are in at[]. */
static size_t
scan(const char *text, enum mention_mode mode, const char **at, size_t max)
{
	const char *end = text + strlen(text), *last = NULL;
	struct mention_scan s;
	struct mention m;
	char buf[COPYLEN + 1];
	size_t n = 0;

	mention_begin(&s, text, mode);
	while (mention_next(&s, &m)) {
		if (m.at < text || m.at <= last || *m.at != '@' ||
		    m.name != m.at + 1 || m.len == 0 || m.name + m.len > end ||
		    mention_namelen(m.name) != m.len)
			abort();
		last = m.at;
		buf[COPYLEN] = 'X';
		if (mention_copy(&m, buf, COPYLEN) == 0 ?
		    (m.len >= COPYLEN || strlen(buf) != m.len) :
		    m.len < COPYLEN)
			abort();
		if (buf[COPYLEN] != 'X')
			abort();
		if (n >= max)
			abort();	/* more mentions than '@' */
		at[n++] = m.at;
	}
	if (mention_next(&s, &m))
		abort();
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char **people, **strict;
	size_t np, ns, i, j;
	char *text;

	if ((text = malloc(size + 1)) == NULL ||
	    (people = calloc(size + 1, sizeof(*people))) == NULL ||
	    (strict = calloc(size + 1, sizeof(*strict))) == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';

	np = scan(text, MENTION_PEOPLE, people, size + 1);
	ns = scan(text, MENTION_STRICT, strict, size + 1);
	for (i = j = 0; i < ns; i++) {
		while (j < np && people[j] != strict[i])
			j++;
		if (j == np)
			abort();
	}
	free(strict);
	free(people);
	free(text);
	return 0;
}

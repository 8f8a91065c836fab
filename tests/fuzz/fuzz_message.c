/*
 * fuzz_message.c: fuzz target for the IRC line parser and what a parsed
 * line goes through next in every command: tag lookup and unescaping,
 * MODE strings, the casemapping checks, and cutting long text into lines
 * (message_split). Invariants: no memory error, and no piece of split
 * text carries CR, LF or NUL (AG-5, SEC-4).
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/casemap.h"
#include "ircd/message.h"
#include "ircd/mode.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_piece(const char *s, size_t len, void *budget)
{
	if (len > *(size_t *)budget || memchr(s, '\r', len) != NULL ||
	    memchr(s, '\n', len) != NULL || memchr(s, '\0', len) != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mode_change ch[MODE_MAXCHANGES];
	struct message m;
	char *line, *text, val[600], esc[1300], out[512];
	size_t budget;
	int i;

	if ((line = malloc(size + 1)) == NULL || (text = malloc(size + 1)) == NULL)
		abort();
	memcpy(line, data, size);
	line[size] = '\0';
	memcpy(text, line, size + 1);

	if (message_parse(line, &m) == MSG_OK) {
		if (m.nparams < 0 || m.nparams > MSG_MAXPARAMS)
			abort();
		if (m.tags != NULL) {
			message_tag_get(m.tags, "label", val, sizeof(val));
			message_tag_get(m.tags, "batch", val, sizeof(val));
			message_tag_get(m.tags, "+draft/reply", val, 8);
		}
		if (m.nparams > 0 && mode_parse(m.params[0],
		    (const char *const *)m.params + 1, m.nparams - 1,
		    mode_chan_type, ch, MODE_MAXCHANGES) > MODE_MAXCHANGES)
			abort();
		for (i = 0; i < m.nparams; i++) {
			casemap_valid_nick(m.params[i], 30);
			casemap_valid_channel(m.params[i], 50);
			casemap_valid_user(m.params[i]);
			casemap_is_channel(m.params[i]);
			casemap_fold(val, m.params[i], sizeof(val));
			if (i + 1 < m.nparams)
				casemap_match(m.params[i], m.params[i + 1]);
		}
		out[0] = '\0';
		if (message_join_params(out, sizeof(out), m.nparams,
		    (const char *const *)m.params) >= sizeof(out))
			abort();
	}

	/* The same bytes as a tag value and as an agent's long answer. */
	message_tag_unescape(val, sizeof(val), text);
	message_tag_escape(esc, sizeof(esc), text);
	message_tag_unescape(val, 3, text);
	message_tag_escape(esc, 5, text);
	for (budget = 8; budget < 40; budget += 13)	/* 8: its minimum */
		message_split(text, size, budget, check_piece, &budget);
	budget = 400;
	message_split(text, size, budget, check_piece, &budget);
	if (message_utf8_trunc(text, size, size / 2) > size / 2)
		abort();
	free(line);
	free(text);
	return 0;
}

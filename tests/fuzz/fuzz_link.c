/*
 * fuzz_link.c: fuzz target for the spanning-tree line parser and what a
 * peer's parsed line goes through next without the server: ids, CAPAB
 * keys and CHANMODES, FJOIN member lists, client-only tags, msgid and
 * time tags (a msgid kept is plain and bounded), and FJOIN
 * lines built back from what was parsed. Invariants: no memory error, at most
 * LINK_MAXPARAMS parameters, every member's UUID valid, no built line
 * longer than LINK_OUTMAX or holding CR, LF or NUL (LK-1, SEC-4).
 */
#include "compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/link/link-proto.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_line(const char *line, size_t len, void *arg)
{
	(void)arg;
	if (len > LINK_OUTMAX || strlen(line) != len ||
	    strpbrk(line, "\r\n") != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct link_msg m;
	struct link_member mb;
	struct link_fjoin f;
	char *line, val[64], tags[512];
	const char *s;
	uint64_t id;
	int64_t t;
	int i, r, n = 0;

	if ((line = malloc(size + 1)) == NULL)
		abort();
	memcpy(line, data, size);
	line[size] = '\0';
	if (link_parse(line, &m) == 0) {
		if (m.nparams < 0 || m.nparams > LINK_MAXPARAMS || m.cmd == NULL)
			abort();
		if (m.tags != NULL && link_tags_client(m.tags, tags,
		    sizeof(tags)) >= sizeof(tags))
			abort();
		/* A msgid kept is bounded and plain: no tag or line breaker. */
		link_tags_ids(m.tags, val, sizeof(val), &t);
		if (strlen(val) >= sizeof(val) ||
		    val[strcspn(val, " ;\\=\r\n")] != '\0' || t < 0)
			abort();
		link_fjoin_begin(&f, "0AB", "#c", 1, "+nt", check_line, NULL);
		for (i = 0; i < m.nparams; i++) {
			if (link_is_uuid(m.params[i]) &&
			    link_uuid_id(m.params[i], m.params[i], &id) != 0)
				abort();
			link_is_sid(m.params[i]);
			link_capab_get(m.params[i], "CASEMAPPING", val,
			    sizeof(val));
			link_chanmode_type(m.params[i], 'b');
			link_chanmode_type(m.params[i], m.params[i][0]);
			s = m.params[i];
			while ((r = link_fjoin_next(&s, &mb)) != 0 && n < 10000) {
				n++;
				if (r == 1 && !link_is_uuid(mb.uuid))
					abort();
				if (r == 1)
					link_fjoin_add(&f, mb.modes, mb.uuid,
					    (unsigned long long)n);
			}
		}
		link_fjoin_end(&f);
	}
	free(line);
	return 0;
}

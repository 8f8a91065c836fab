/*
 * plan.h: an ACP plan as one line for IRC (TN-14). Pure.
 */
#ifndef IRCD_BRIDGE_PLAN_H
#define IRCD_BRIDGE_PLAN_H

#include <stddef.h>

struct acp_plan_entry;

/*
 * "plan: [x] 1. read the tests [>] 2. fix the parser [ ] 3. run make"
 * into buf (len bytes, cut on a UTF-8 boundary with "…" when it does not
 * fit): [x] completed, [>] in progress, [ ] anything else. Returns the
 * length of what was written.
 */
size_t	plan_line(const struct acp_plan_entry *, size_t n, char *buf,
	    size_t len);

#endif

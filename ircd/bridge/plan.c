/*
 * plan.c: an ACP plan as one compact line (TN-14), shown when it first
 * arrives and when it changes, never per chunk (stream.c decides when).
 * The entries come made plain (acp/update.c); this only lays them out.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/plan.h"
#include "ircd/message.h"

static const char *
plan_box(const char *status)
{
	if (status != NULL && strcmp(status, "completed") == 0)
		return "[x]";
	if (status != NULL && strcmp(status, "in_progress") == 0)
		return "[>]";
	return "[ ]";
}

size_t
plan_line(const struct acp_plan_entry *e, size_t n, char *buf, size_t len)
{
	static const char ell[] = "\xe2\x80\xa6";
	size_t i, used;
	int w;

	if (len == 0)
		return 0;
	used = strlcpy(buf, "plan:", len);
	for (i = 0; i < n && used < len; i++) {
		w = snprintf(buf + used, len - used, " %s %zu. %s",
		    plan_box(e[i].status), i + 1,
		    e[i].content != NULL ? e[i].content : "");
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (used < len)
		return used;
	/* Too long: cut whole characters, and say so. */
	if (len < sizeof(ell) + 1) {
		buf[0] = '\0';
		return 0;
	}
	used = message_utf8_trunc(buf, len - 1, len - sizeof(ell));
	memcpy(buf + used, ell, sizeof(ell));
	return used + sizeof(ell) - 1;
}

/*
 * sched-args.c: what an agent's schedule call asks for, checked before
 * anything is scheduled (SC-1, AU-6): a name people can read on one line,
 * a prompt of bounded size, and one first firing within a year. Numbers
 * are checked as doubles: a cast of one out of range is undefined.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "acp/acp.h"
#include "ircd/bridge/sched-args.h"

static const char *
jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

int
sched_parse_time(const char *s, int64_t *ms)
{
	struct tm tm;
	const char *p;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p != 'Z' && *p != '\0')
		return -1;
	if ((t = timegm(&tm)) == (time_t)-1)
		return -1;
	*ms = (int64_t)t * 1000;
	return 0;
}

int
sched_args_parse(const cJSON *args, int64_t now, int64_t minute_ms,
    struct sched_args *a, char *out, size_t len)
{
	const cJSON *every_j = cJSON_GetObjectItemCaseSensitive(args, "every_minutes");
	const cJSON *in_j = cJSON_GetObjectItemCaseSensitive(args, "in_seconds");
	const char *at = jstr(args, "at");

	memset(a, 0, sizeof(*a));
	a->name = jstr(args, "name");
	a->prompt = jstr(args, "prompt");
	a->target = jstr(args, "target");
	if (a->name == NULL || a->name[0] == '\0' || a->prompt == NULL ||
	    a->prompt[0] == '\0') {
		snprintf(out, len, "name and prompt are required");
		return -1;
	}
	if (strlen(a->name) > SCHED_NAME_MAX ||
	    strlen(a->prompt) > SCHED_PROMPT_MAX) {
		snprintf(out, len, "name is at most %d bytes, prompt at most %d",
		    SCHED_NAME_MAX, SCHED_PROMPT_MAX);
		return -1;
	}
	/* People see the name inside one NOTICE line, and on cards (AU-6). */
	if (!acp_plain_is(a->name)) {
		snprintf(out, len, "name must be one line of plain text (no "
		    "control, formatting or bidi characters)");
		return -1;
	}
	if (every_j != NULL) {
		if (!cJSON_IsNumber(every_j) || !(every_j->valuedouble >= 1 &&
		    every_j->valuedouble <= SCHED_EVERY_MAX)) {
			snprintf(out, len, "every_minutes must be a number from 1 "
			    "to %d", SCHED_EVERY_MAX);
			return -1;
		}
		a->every = (int)every_j->valuedouble;
	}
	if (at != NULL) {
		if (sched_parse_time(at, &a->next) == -1) {
			snprintf(out, len, "at must be an ISO 8601 UTC time such as "
			    "2026-12-02T15:30:00Z");
			return -1;
		}
		if (a->next > now + SCHED_AHEAD_MAX_MS) {
			snprintf(out, len, "at must be within a year from now");
			return -1;
		}
	} else if (in_j != NULL) {
		if (!cJSON_IsNumber(in_j) || !(in_j->valuedouble >= 0 &&
		    in_j->valuedouble * 1000 <= SCHED_AHEAD_MAX_MS)) {
			snprintf(out, len, "in_seconds must be a number from 0 "
			    "to %lld (a year)", SCHED_AHEAD_MAX_MS / 1000);
			return -1;
		}
		a->next = now + (int64_t)(in_j->valuedouble * 1000);
	} else if (a->every > 0)
		a->next = now + a->every * minute_ms;
	else {
		snprintf(out, len, "give at, in_seconds or every_minutes");
		return -1;
	}
	return 0;
}

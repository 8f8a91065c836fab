/*
 * util.c: the small helpers every file of acp/ uses: strings that may be
 * NULL, a string member of a JSON object, a timer in milliseconds. Out of
 * memory they return NULL and never abort: the daemon must live on.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "acp/internal.h"

void
acp_timer_ms(struct event *ev, long long ms)
{
	struct timeval tv;

	if (ms < 0)
		ms = 0;
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)((ms % 1000) * 1000);
	evtimer_add(ev, &tv);
}

/* Monotonic milliseconds, for deadlines. */
long long
acp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Unlike ircd's xstrdup(), NULL is no error here: it is copied as NULL. */
char *
acp_str_copy(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

void
acp_str_set(char **dst, const char *s)
{
	free(*dst);
	*dst = acp_str_copy(s);
}

const char *
acp_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

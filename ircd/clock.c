/*
 * clock.c: a moment as UTC text and a delay as a struct timeval, so that
 * no caller spells out gmtime_r() and strftime() or the unit arithmetic.
 */
#include "compat.h"

#include "ircd/clock.h"

size_t
clock_utc(char *buf, size_t len, const char *fmt, time_t secs)
{
	struct tm tm;
	size_t n;

	if (len == 0)
		return 0;
	if (gmtime_r(&secs, &tm) == NULL ||
	    (n = strftime(buf, len, fmt, &tm)) == 0) {
		buf[0] = '\0';
		return 0;
	}
	return n;
}

struct timeval
clock_timeval(uint64_t ms)
{
	struct timeval tv;

	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	return tv;
}

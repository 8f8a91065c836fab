/*
 * clock.c: a moment as UTC text and back (server-time values), and a
 * delay as a struct timeval, so that no caller spells out gmtime_r(),
 * strftime(), strptime() or the unit arithmetic.
 */
#include "compat.h"

#include <string.h>

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

int
clock_parse_ms(const char *s, int64_t *ms)
{
	struct tm tm;
	unsigned msec = 0;
	const char *p;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p == NULL)
		return -1;
	if (*p == '.') {
		int digits = 0;

		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 3)
				msec = msec * 10 + (unsigned)(*p - '0');
		while (digits > 0 && digits < 3) {
			msec *= 10;
			digits++;
		}
	}
	if (*p != 'Z' || p[1] != '\0')
		return -1;
	if ((t = timegm(&tm)) == (time_t)-1)
		return -1;
	*ms = (int64_t)t * 1000 + msec;
	return 0;
}

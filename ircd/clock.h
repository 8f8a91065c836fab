/*
 * clock.h: time as the server writes it and waits for it: a moment as
 * UTC text, and milliseconds as the struct timeval event timers take.
 * Pure. (The clocks themselves: server_now_ms, client_time_now_ms.)
 */
#ifndef IRCD_CLOCK_H
#define IRCD_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

/*
 * secs in UTC, written by strftime(3)'s fmt into buf (len bytes).
 * Returns the length written; 0 and an empty buf if it does not fit.
 */
size_t		clock_utc(char *buf, size_t len, const char *fmt, time_t secs);
/* ms as a struct timeval, for evtimer_add() and event_add(). */
struct timeval	clock_timeval(uint64_t ms);
/*
 * A server-time value ("2020-01-02T03:04:05.678Z", the fraction optional)
 * as Unix milliseconds into ms. 0, or -1 when it is not one.
 */
int		clock_parse_ms(const char *s, int64_t *ms);

#endif

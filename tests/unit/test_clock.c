/*
 * test_clock.c: server-time values read back (clock_parse_ms), as
 * CHATHISTORY selectors and MARKREAD timestamps give them.
 */
#include "compat.h"

#include <stdint.h>

#include "ircd/clock.h"
#include "tap.h"

static void
test_parse(void)
{
	int64_t ms;

	ok(clock_parse_ms("2020-01-02T03:04:05.678Z", &ms) == 0 &&
	    ms == 1577934245678LL, "milliseconds");
	ok(clock_parse_ms("1970-01-01T00:00:00.000Z", &ms) == 0 && ms == 0,
	    "the epoch");
	ok(clock_parse_ms("2020-01-02T03:04:05Z", &ms) == 0 &&
	    ms == 1577934245000LL, "no fraction");
	ok(clock_parse_ms("2020-01-02T03:04:05.6Z", &ms) == 0 &&
	    ms == 1577934245600LL, "one digit is tenths");
	ok(clock_parse_ms("2020-01-02T03:04:05.123456Z", &ms) == 0 &&
	    ms == 1577934245123LL, "digits past the third are dropped");
	ok(clock_parse_ms("2020-01-02T03:04:05.678", &ms) == -1, "no Z");
	ok(clock_parse_ms("2020-01-02T03:04:05.678Zx", &ms) == -1,
	    "something after the Z");
	ok(clock_parse_ms("2020-01-02", &ms) == -1, "a date alone");
	ok(clock_parse_ms("yesterday", &ms) == -1, "not a time");
	ok(clock_parse_ms("", &ms) == -1, "empty");
	ok(clock_parse_ms("2026-13-45T99:00:00.000Z", &ms) == -1,
	    "out of range");
}

static void
test_round_trip(void)
{
	char buf[32];
	int64_t ms;

	clock_utc(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S.000Z", 1700000000);
	ok(clock_parse_ms(buf, &ms) == 0 && ms == 1700000000000LL,
	    "clock_utc's text reads back");
}

int
main(void)
{
	test_parse();
	test_round_trip();
	return tap_done();
}

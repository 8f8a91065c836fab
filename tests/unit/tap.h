/*
 * tap.h: a tiny TAP producer for unit tests, so that the automake TAP
 * driver counts every check. Include once per test program.
 */
#ifndef TESTS_TAP_H
#define TESTS_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static void
tap_ok(int cond, const char *name, const char *file, int line)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, name);
	if (!cond)
		printf("# failed at %s:%d\n", file, line);
}

#define ok(cond, name)	tap_ok(!!(cond), (name), __FILE__, __LINE__)
#define is_str(got, want, name) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int c_ = (g_ == NULL && w_ == NULL) ||				\
	    (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0);		\
	tap_ok(c_, (name), __FILE__, __LINE__);				\
	if (!c_)							\
		printf("# got \"%s\", want \"%s\"\n",			\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)
#define is_int(got, want, name) do {					\
	long long g_ = (got), w_ = (want);				\
	tap_ok(g_ == w_, (name), __FILE__, __LINE__);			\
	if (g_ != w_)							\
		printf("# got %lld, want %lld\n", g_, w_);		\
} while (0)

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif

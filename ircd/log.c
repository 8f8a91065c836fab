/*
 * log.c: timestamped lines on stderr. The daemon runs in the foreground
 * under a supervisor (systemd, tmux, tests), which keeps the file.
 */
#include "compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "ircd/clock.h"
#include "ircd/log.h"
#include "ircd/sysexits.h"

static int log_verbose;

void
log_init(int verbose)
{
	log_verbose = verbose;
}

static void
log_vwrite(const char *level, const char *fmt, va_list ap, const char *suffix)
{
	struct timeval tv;
	char ts[32], msg[4096], *p;

	gettimeofday(&tv, NULL);
	clock_utc(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", tv.tv_sec);
	/*
	 * One event, one line: what agents and clients say (an agent's name,
	 * a nick, a reason) may hold a CR or LF, and would forge a line.
	 */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (p = msg; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			*p = ' ';
	fprintf(stderr, "%s.%03dZ %s %s", ts, (int)(tv.tv_usec / 1000), level,
	    msg);
	if (suffix != NULL)
		fprintf(stderr, ": %s", suffix);
	fputc('\n', stderr);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_vwrite("debug", fmt, ap, NULL);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("info", fmt, ap, NULL);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("warn", fmt, ap, NULL);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vwrite("warn", fmt, ap, strerror(saved));
	va_end(ap);
}

void
log_error(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vwrite("error", fmt, ap, strerror(saved));
	va_end(ap);
}

void
log_fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("fatal", fmt, ap, NULL);
	va_end(ap);
	exit(EX_SOFTWARE);
}

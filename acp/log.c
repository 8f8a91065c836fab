/*
 * log.c: the logging hook of acp/. By default messages go to stderr; the
 * daemon replaces the sink with acp_log_set() so acp/ needs no ircd header.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>

#include "acp/log.h"

static void	(*log_fn)(enum acp_log_level, const char *, void *);
static void	*log_arg;
static enum acp_log_level log_min = ACP_LOG_INFO;

void
acp_log_set(void (*fn)(enum acp_log_level, const char *, void *), void *arg,
    enum acp_log_level min)
{
	log_fn = fn;
	log_arg = arg;
	log_min = min;
}

void
acp_logv(enum acp_log_level lvl, const char *fmt, va_list ap)
{
	static const char *names[] = { "debug", "info", "warn", "error" };
	char buf[2048];

	if (lvl < log_min)
		return;
	/* Formatted once, bounded: agent text can be long and hostile. */
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_fn != NULL) {
		log_fn(lvl, buf, log_arg);
		return;
	}
	fprintf(stderr, "acp %s: %s\n", names[lvl], buf);
}

void
acp_log(enum acp_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	acp_logv(lvl, fmt, ap);
	va_end(ap);
}

/*
 * log.h: one log, to stderr, with a timestamp and a level. Secrets are
 * never passed here (SEC-2).
 */
#ifndef IRCD_LOG_H
#define IRCD_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_DEBUG, LOG_LVL_INFO, LOG_LVL_WARN, LOG_LVL_ERROR };

void	log_init(int verbose);
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
/* log_warn appends strerror(errno). */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* An error the server does not start or go on past; strerror(errno) too. */
void	log_error(const char *, ...) __attribute__((format(printf, 1, 2)));
/* Log, then exit(EX_SOFTWARE). */
void	log_fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif

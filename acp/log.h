/*
 * log.h: acp/'s own logging hook. acp/ knows nothing of the daemon's
 * logger; the daemon plugs its own in with acp_log_set().
 */
#ifndef ACP_LOG_H
#define ACP_LOG_H

#include <stdarg.h>

#include "acp/acp.h"

void	acp_log(enum acp_log_level, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	acp_logv(enum acp_log_level, const char *, va_list);

#define acp_debug(...)	acp_log(ACP_LOG_DEBUG, __VA_ARGS__)
#define acp_info(...)	acp_log(ACP_LOG_INFO, __VA_ARGS__)
#define acp_warn(...)	acp_log(ACP_LOG_WARN, __VA_ARGS__)
#define acp_error(...)	acp_log(ACP_LOG_ERROR, __VA_ARGS__)

#endif

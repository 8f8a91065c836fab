/*
 * preflight.h: what in a loaded config would fail at start or at first
 * use, found before (-n, and warnings at start): TLS files that do not
 * load, an agent's command not found, a missing cwd.
 */
#ifndef IRCD_PREFLIGHT_H
#define IRCD_PREFLIGHT_H

#include <stddef.h>

struct conf;

/*
 * Report each problem of cf as "file:line: message", on stderr when
 * check (for -n), else as a log warning. The number of problems.
 */
size_t	preflight_run(const struct conf *cf, int check);

#endif

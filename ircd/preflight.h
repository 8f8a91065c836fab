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

/*
 * Where execvp would find prog with search path path (NULL: the default
 * search path): into buf, 0; -1 when nowhere (buf says the last reason).
 */
int	preflight_find_prog(const char *prog, const char *path, char *buf,
	    size_t len);

#endif

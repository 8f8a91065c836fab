/*
 * trust.h: SEC-5, M5. The server trusts what its config, the config's
 * directory, its database and the database's directory hold; each must
 * be its own user's (or root's) and writable by nobody else.
 */
#ifndef IRCD_TRUST_H
#define IRCD_TRUST_H

#include <stddef.h>

struct conf;

/*
 * 0 when every file the server trusts is its own to write; else -1, with
 * which one, why and how to fix it in err. file: the config's path.
 */
int	trust_check(const struct conf *, const char *file, char *err, size_t);

#endif

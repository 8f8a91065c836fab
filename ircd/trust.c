/*
 * trust.c: SEC-5, M5. Another user who may write the config, the
 * directory it is in, the database or its directory can give the server
 * a database of their own (and read every private conversation in it),
 * or seed it with schedules and modes the server then trusts. So the
 * server starts only when each of them, and the database's -wal and -shm
 * when they exist, is owned by its own user or by root and is writable
 * by no group and no other user. Missing files are fine: the server
 * makes them itself (store.c, 0600).
 */
#include "compat.h"

#include <sys/stat.h>

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ircd/conf.h"
#include "ircd/trust.h"

/* path (what it is, for the message) is ours to trust; ENOENT is too. */
static int
trust_one(const char *path, const char *what, char *err, size_t len)
{
	struct stat st;
	uid_t me = geteuid();

	if (stat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, len, "%s %s: %s", what, path, strerror(errno));
		return -1;
	}
	if (st.st_uid != me && st.st_uid != 0) {
		snprintf(err, len, "%s %s is owned by uid %u, not by this user "
		    "(uid %u) nor root: another user could change what the "
		    "server trusts; chown it to uid %u", what, path,
		    (unsigned)st.st_uid, (unsigned)me, (unsigned)me);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, len, "%s %s is writable by %s (mode %04o): "
		    "another user could change what the server trusts; "
		    "chmod go-w %s", what, path, st.st_mode & S_IWOTH ?
		    "every user" : "its group", (unsigned)(st.st_mode & 07777),
		    path);
		return -1;
	}
	return 0;
}

/* The directory path is in (its dirname), checked. */
static int
trust_dir(const char *path, const char *what, char *err, size_t len)
{
	char *copy, *dir;
	int ret;

	if ((copy = strdup(path)) == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	dir = dirname(copy);
	ret = trust_one(dir, what, err, len);
	free(copy);
	return ret;
}

int
trust_check(const struct conf *cf, const char *file, char *err, size_t len)
{
	static const char *const sides[] = { "", "-wal", "-shm" };
	char path[4096];
	size_t i;

	if (trust_one(file, "the config", err, len) == -1 ||
	    trust_dir(file, "the config's directory", err, len) == -1)
		return -1;
	if (cf->database == NULL || strcmp(cf->database, ":memory:") == 0)
		return 0;
	if (trust_dir(cf->database, "the database's directory", err, len) == -1)
		return -1;
	for (i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", cf->database, sides[i]);
		if (trust_one(path, "the database", err, len) == -1)
			return -1;
	}
	return 0;
}

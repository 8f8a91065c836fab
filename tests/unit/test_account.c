/*
 * test_account.c: L4, SEC-6. An unknown account name is checked against
 * a real hash, so it costs the time a known one does: the dummy must be
 * a hash crypt(3) verifies (the old "$6$rounds=5000$x$" was none, and
 * nothing was hashed at all). Issue 27: a password of any length hashes
 * and verifies, and no byte of a long one is left out.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/account.h"
#include "ircd/passwd.h"
#include "tap.h"

/* A password of len bytes, all 'p' but its last, which is last. */
static char *
long_password(size_t len, char last)
{
	char *s = malloc(len + 1);

	memset(s, 'p', len);
	s[len - 1] = last;
	s[len] = '\0';
	return s;
}

static void
long_passwords(void)
{
	static const size_t lens[] = { 511, 512, 6000 };
	char *pw, *other, *h, name[64];
	size_t i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		pw = long_password(lens[i], 'a');
		other = long_password(lens[i], 'b');
		h = passwd_hash(pw);
		snprintf(name, sizeof(name), "%zu bytes: hashed", lens[i]);
		ok(h != NULL && passwd_is_hash(h), name);
		snprintf(name, sizeof(name), "%zu bytes: verified", lens[i]);
		ok(h != NULL && passwd_verify(pw, h), name);
		snprintf(name, sizeof(name), "%zu bytes: the last byte counts",
		    lens[i]);
		ok(h != NULL && !passwd_verify(other, h), name);
		pw[lens[i] - 1] = '\0';
		snprintf(name, sizeof(name), "%zu bytes: one byte short does "
		    "not match", lens[i]);
		ok(h != NULL && !passwd_verify(pw, h), name);
		free(h);
		free(pw);
		free(other);
	}
}

int
main(void)
{
	const char *dummy = account_dummy_hash();

	ok(passwd_is_hash(dummy), "L4: the dummy is a real hash");
	ok(strncmp(dummy, "$y$", 3) == 0 || strncmp(dummy, "$6$", 3) == 0,
	    "L4: of the kind --hash-password makes");
	ok(!passwd_verify("agentircd", dummy) && !passwd_verify("", dummy),
	    "no guess matches it");
	ok(account_dummy_hash() == dummy, "made once");
	long_passwords();
	return tap_done();
}

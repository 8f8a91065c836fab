/*
 * test_account.c: L4, SEC-6. An unknown account name is checked against
 * a real hash, so it costs the time a known one does: the dummy must be
 * a hash crypt(3) verifies (the old "$6$rounds=5000$x$" was none, and
 * nothing was hashed at all).
 */
#include "compat.h"

#include <string.h>

#include "ircd/account.h"
#include "ircd/passwd.h"
#include "tap.h"

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
	return tap_done();
}

/*
 * test_convkey.c: conversation keys (convkey.c, and history.c's
 * principals of clients). Their text is in every database, so the keys
 * built here are checked byte for byte against literals and against
 * the builders they replaced (old_*, copied from before issue 20).
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/casemap.h"
#include "ircd/client.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "store/store.h"
#include "tap.h"

/* history.c's principal builder before struct convkey, in a 68-byte buffer. */
static void
old_principal(char *buf, size_t len, int service, const char *nick,
    const char *account, const char *start, unsigned long long id)
{
	char folded[NICKLEN * 2 + 1];

	if (service) {
		casemap_fold(folded, nick, sizeof(folded));
		snprintf(buf, len, "g:%s", folded);
	} else if (account != NULL) {
		casemap_fold(folded, account, sizeof(folded));
		snprintf(buf, len, "a:%s", folded);
	} else
		snprintf(buf, len, "c:%s.%llu", start, id);
}

static void
test_literals(void)
{
	struct convkey k, a, b;

	convkey_channel(&k, "#Dev[Ops]^");
	is_str(k.s, "#dev{ops}~", "a channel: its name, rfc1459-folded");
	convkey_account(&k, "Alice[1]");
	is_str(k.s, "a:alice{1}", "an account");
	convkey_service(&k, "Claude");
	is_str(k.s, "g:claude", "a service user");
	convkey_connection(&k, "6553f1a0c0ffee01", 42);
	is_str(k.s, "c:6553f1a0c0ffee01.42", "a connection of a run");
	convkey_connection(&k, "6553f1a0c0ffee01", UINT64_MAX);
	is_str(k.s, "c:6553f1a0c0ffee01.18446744073709551615",
	    "the largest connection id");

	convkey_account(&a, "Bob");
	convkey_connection(&b, "x", 5);
	convkey_private(&k, &b, &a);
	is_str(k.s, "a:bob c:x.5", "a private key: the two sides sorted");
	convkey_private(&k, &a, &b);
	is_str(k.s, "a:bob c:x.5", "either way round");
	convkey_service(&a, "claude");
	convkey_private(&k, &a, &a);
	is_str(k.s, "g:claude g:claude", "a conversation with oneself");
}

static void
test_as_before(void)
{
	static const char *names[] = {
		"bob", "Bob", "[x]\\^", "a",
		/* 70 characters: cut at 60 */
		"0123456789012345678901234567890123456789"
		    "012345678901234567890123456789",
	};
	char old[NICKLEN * 2 + 8], o2[NICKLEN * 2 + 8];
	char oldkey[NICKLEN * 4 + 20];
	char name[64];
	struct convkey k, k2, pk;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		old_principal(old, sizeof(old), 0, NULL, names[i], "", 0);
		convkey_account(&k, names[i]);
		snprintf(name, sizeof(name), "account %zu as before", i);
		is_str(k.s, old, name);
		old_principal(old, sizeof(old), 1, names[i], NULL, "", 0);
		convkey_service(&k, names[i]);
		snprintf(name, sizeof(name), "service %zu as before", i);
		is_str(k.s, old, name);
	}
	old_principal(old, sizeof(old), 0, NULL, NULL, "18c5f3a1b2c3d4e5f6",
	    77);
	convkey_connection(&k, "18c5f3a1b2c3d4e5f6", 77);
	is_str(k.s, old, "connection as before");

	/* The longest private key is kept whole, as it was. */
	old_principal(old, sizeof(old), 0, NULL, names[4], "", 0);
	old_principal(o2, sizeof(o2), 0, NULL, "Zed", "", 0);
	store_private_key(oldkey, sizeof(oldkey), old, o2);
	convkey_account(&k, names[4]);
	convkey_account(&k2, "Zed");
	convkey_private(&pk, &k2, &k);
	is_str(pk.s, oldkey, "a private key as before");
	old_principal(o2, sizeof(o2), 0, NULL, names[4] + 1, "", 0);
	store_private_key(oldkey, sizeof(oldkey), old, o2);
	convkey_account(&k2, names[4] + 1);
	convkey_private(&pk, &k, &k2);
	is_str(pk.s, oldkey, "two of the longest principals, as before");
	is_int(strlen(pk.s), CONVKEY_LEN - 1, "which is the longest key");
}

static void
test_reading(void)
{
	struct convkey k;

	ok(convkey_is_channel("#dev"), "#dev is a channel's");
	ok(!convkey_is_channel("a:bob c:x.5"), "a private key is not");
	ok(convkey_is_connection("c:x.5"), "c:x.5 is a connection's");
	ok(!convkey_is_connection("a:bob"), "an account's is not");
	ok(!convkey_is_connection("#c:x"), "nor a channel's");

	ok(convkey_side("a:bob c:x.5", "a:bob"), "the first side");
	ok(convkey_side("a:bob c:x.5", "c:x.5"), "the second side");
	ok(!convkey_side("a:bob c:x.5", "a:bo"), "not a prefix of a side");
	ok(!convkey_side("a:bob c:x.5", "b c:x.5"), "not a suffix of a side");
	ok(!convkey_side("a:bob", "a:bob"), "a principal has no sides");
	ok(!convkey_side("#dev", "a:bob"), "nor has a channel");

	ok(convkey_involves("a:bob", "a:bob"), "a key involves itself");
	ok(convkey_involves("a:bob c:x.5", "c:x.5"), "and its sides");
	ok(!convkey_involves("a:bobby c:x.5", "a:bob"), "only whole sides");
	ok(!convkey_involves("#dev", "a:bob"), "a channel involves nobody");

	is_int(convkey_other("a:bob c:x.5", "a:bob", &k), 0, "the other side");
	is_str(k.s, "c:x.5", "of the first");
	is_int(convkey_other("a:bob c:x.5", "c:x.5", &k), 0, "and");
	is_str(k.s, "a:bob", "of the second");
	is_int(convkey_other("g:claude g:claude", "g:claude", &k), 0,
	    "oneself");
	is_str(k.s, "g:claude", "is the other side");
	is_int(convkey_other("a:bob c:x.5", "a:carol", &k), -1,
	    "no other side for a stranger");
	is_int(convkey_other("#dev", "a:bob", &k), -1, "nor in a channel");
}

/* The principals of clients (history.c), as history has always stored them. */
static void
test_principals(void)
{
	struct client c;
	struct convkey k, p;
	char old[NICKLEN * 2 + 8], account[16];

	strlcpy(ircd.msgid_base, "6553f1a0c0ffee01", sizeof(ircd.msgid_base));
	memset(&c, 0, sizeof(c));
	c.id = 9;
	strlcpy(c.nick, "Bob", sizeof(c.nick));
	history_principal(&c, &k);
	old_principal(old, sizeof(old), 0, c.nick, NULL, ircd.msgid_base, c.id);
	is_str(k.s, old, "a person not logged in: the connection");
	is_str(k.s, "c:6553f1a0c0ffee01.9", "its key");
	ok(history_principal_is(&c, &k), "is that principal");

	p = k;
	strlcpy(account, "Bobby", sizeof(account));
	c.account = account;
	history_principal(&c, &k);
	is_str(k.s, "a:bobby", "logged in: the account");
	ok(history_principal_is(&c, &k), "is the account's principal");
	ok(history_principal_is(&c, &p), "and still its connection's");
	convkey_account(&p, "carol");
	ok(!history_principal_is(&c, &p), "not another account's");
	convkey_connection(&p, ircd.msgid_base, 10);
	ok(!history_principal_is(&c, &p), "nor another connection's");
	convkey_connection(&p, "another-run", 9);
	ok(!history_principal_is(&c, &p), "nor that of an earlier run");

	c.flags |= CLIENT_SERVICE;
	strlcpy(c.nick, "Claude", sizeof(c.nick));
	history_principal(&c, &k);
	is_str(k.s, "g:claude", "a service user: its nick, not its account");
	ok(history_principal_is(&c, &k), "is its principal");
	convkey_connection(&p, ircd.msgid_base, 9);
	ok(!history_principal_is(&c, &p), "and not a connection");
}

int
main(void)
{
	test_literals();
	test_as_before();
	test_reading();
	test_principals();
	return tap_done();
}

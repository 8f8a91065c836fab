/*
 * test_banmask.c: banmask_normalize and banmask_split, the pure half of
 * +b +e +I: host masks completed, extbans R: and m: (InspIRCd 3's
 * letters, issue 27) checked, bad ones refused with a reason.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/banmask.h"
#include "tests/unit/tap.h"

static char out[BANMASK_LEN + 1];

/* The normalized mask, or "ERR" when refused. */
static const char *
norm(const char *in, char list)
{
	if (banmask_normalize(in, list, out, sizeof(out)) != NULL)
		return "ERR";
	return out;
}

static void
test_host(void)
{
	is_str(norm("nick", 'b'), "nick!*@*", "a nick");
	is_str(norm("user@host", 'b'), "*!user@host", "user@host");
	is_str(norm("host.name", 'b'), "*!*@host.name", "a host name");
	is_str(norm("nick!user", 'b'), "nick!user@*", "nick!user");
	is_str(norm("*!*@*", 'e'), "*!*@*", "a full mask as it is");
	is_str(norm("fe80::1", 'I'), "*!*@fe80::1", "an IPv6 host");
	is_str(norm("", 'b'), "ERR", "empty: refused");
	is_str(norm(":x", 'b'), "ERR", "a leading colon: refused");
	is_str(norm("a b", 'b'), "ERR", "a space: refused");
	is_str(norm("a,b", 'b'), "ERR", "a comma: refused");
}

static void
test_extban(void)
{
	const char *v;

	is_str(norm("R:alice", 'b'), "R:alice", "R: in +b");
	is_str(norm("R:alice", 'e'), "R:alice", "R: in +e");
	is_str(norm("R:ali*", 'I'), "R:ali*", "R: in +I, with a wildcard");
	is_str(norm("m:bob", 'b'), "m:bob!*@*", "m: completes its mask");
	is_str(norm("m:*@evil.host", 'e'), "m:*!*@evil.host", "m: in +e");
	is_str(norm("m:R:carol", 'b'), "m:R:carol", "m: by account");
	is_str(norm("m:bob", 'I'), "ERR", "m: is no invite exception");
	is_str(norm("m:m:bob", 'b'), "ERR", "m: inside m:");
	is_str(norm("R:", 'b'), "ERR", "R: without an account");
	is_str(norm("m:", 'b'), "ERR", "m: without a mask");
	is_str(norm("m:R:", 'b'), "ERR", "m:R: without an account");
	is_str(norm("x:foo", 'b'), "ERR", "an unknown extban letter");
	is_str(norm("r:foo", 'b'), "ERR", "letters are case-sensitive");
	ok(banmask_normalize("x:foo", 'b', out, sizeof(out)) != NULL &&
	    strstr(banmask_normalize("x:foo", 'b', out, sizeof(out)),
	    "extban") != NULL, "the reason names the extban");
	is_str(norm("R:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 'b'), "ERR",
	    "an account longer than a nick");

	is_int(banmask_split("R:alice", &v), 'R', "split R:");
	is_str(v, "alice", "R: value");
	is_int(banmask_split("m:R:bob", &v), 'm', "split m:");
	is_str(v, "R:bob", "m: value");
	is_int(banmask_split("nick!u@h", &v), 0, "a host mask is no extban");
	is_str(v, "nick!u@h", "its value is itself");
	is_int(banmask_split("", &v), 0, "empty");
}

int
main(void)
{
	test_host();
	test_extban();
	return tap_done();
}

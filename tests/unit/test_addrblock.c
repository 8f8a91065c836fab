/*
 * test_addrblock.c: the blocks failed logins are counted under (SEC-6,
 * M6): loopback is one, an IPv6 /64 is one, an IPv4 address is its own.
 */
#include "compat.h"

#include <string.h>

#include "ircd/addrblock.h"
#include "tap.h"

static const char *
of(const char *ip)
{
	static char buf[ADDRBLOCK_LEN];

	return addrblock_of(ip, buf, sizeof(buf));
}

int
main(void)
{
	char small[8];

	is_str(of("192.0.2.7"), "192.0.2.7", "an IPv4 address is its own block");
	is_str(of("192.0.2.8"), "192.0.2.8", "its neighbour is another");
	is_str(of("127.0.0.1"), "127.0.0.0/8", "loopback is one block");
	is_str(of("127.45.6.7"), "127.0.0.0/8",
	    "M6: another loopback address is the same block");
	is_str(of("2001:db8:1:2::5"), "2001:db8:1:2::/64", "an IPv6 /64");
	is_str(of("2001:db8:1:2:ffff:eeee:dddd:cccc"), "2001:db8:1:2::/64",
	    "M6: any address of the /64 is the same block");
	is_str(of("2001:db8:1:3::5"), "2001:db8:1:3::/64",
	    "the next /64 is another");
	is_str(of("::ffff:198.51.100.9"), "198.51.100.9",
	    "an IPv4-mapped address is its IPv4 one");
	is_str(of("::ffff:127.0.0.2"), "127.0.0.0/8", "mapped loopback too");
	is_str(of("::1"), "::1", "IPv6 loopback is one block");
	is_str(of("not an address"), "not an address",
	    "what is no address is its own block");
	is_str(of(""), "", "nor is the empty string");
	addrblock_of("2001:db8:1:2::5", small, sizeof(small));
	ok(strlen(small) == sizeof(small) - 1, "a small buffer is cut, not overrun");
	return tap_done();
}

/*
 * addrblock.c: SEC-6, M6. Failed logins counted per exact address let
 * anyone with many addresses guess at full speed: a local user has all
 * of 127.0.0.0/8, a remote one usually a whole IPv6 /64. So they are
 * counted per block, as named here.
 */
#include "compat.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <string.h>

#include "ircd/addrblock.h"

static const unsigned char v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static char *
addrblock_v4(const unsigned char *a, char *out, size_t len)
{
	if (a[0] == 127)
		snprintf(out, len, "127.0.0.0/8");
	else
		snprintf(out, len, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	return out;
}

char *
addrblock_of(const char *ip, char *out, size_t len)
{
	struct in_addr v4;
	struct in6_addr v6;
	const unsigned char *b;

	if (inet_pton(AF_INET, ip, &v4) == 1)
		return addrblock_v4((const unsigned char *)&v4.s_addr, out, len);
	if (inet_pton(AF_INET6, ip, &v6) != 1) {
		snprintf(out, len, "%s", ip);
		return out;
	}
	b = v6.s6_addr;
	if (memcmp(b, v4mapped, sizeof(v4mapped)) == 0)
		return addrblock_v4(b + 12, out, len);
	if (IN6_IS_ADDR_LOOPBACK(&v6)) {
		snprintf(out, len, "::1");
		return out;
	}
	snprintf(out, len, "%x:%x:%x:%x::/64", b[0] << 8 | b[1], b[2] << 8 | b[3],
	    b[4] << 8 | b[5], b[6] << 8 | b[7]);
	return out;
}

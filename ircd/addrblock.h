/*
 * addrblock.h: SEC-6. The block of addresses one party is likely to
 * hold, under which failed logins are counted: an IPv4 address alone,
 * all of loopback (127.0.0.0/8: any local user has every address of it),
 * an IPv6 /64 (what one host or site is given). Pure: unit-tested.
 */
#ifndef IRCD_ADDRBLOCK_H
#define IRCD_ADDRBLOCK_H

#include <stddef.h>

/* Room for the longest block's name: an IPv6 /64 and its suffix. */
#define ADDRBLOCK_LEN	48

/*
 * ip's block, as text ("192.0.2.7", "127.0.0.0/8", "2001:db8:1:2::/64")
 * into out. An IPv4-mapped IPv6 address is its IPv4 one. Text that is no
 * address is its own block. Returns out.
 */
char	*addrblock_of(const char *ip, char *out, size_t len);

#endif

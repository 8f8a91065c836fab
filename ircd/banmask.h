/*
 * banmask.h: the masks of the list modes +b, +e and +I. A plain mask is
 * completed to nick!user@host; an extended ban is a letter, a colon and
 * a value, with InspIRCd 3's letters so that a ban means the same on
 * both sides of a link: R:account (a user logged in to it) and m:mask
 * (mute: may join, may not speak). Pure.
 */
#ifndef IRCD_BANMASK_H
#define IRCD_BANMASK_H

#include <stddef.h>

#include "ircd/ircd.h"

/* The longest mask kept: nick!user@host behind "m:" and "R:". */
#define BANMASK_LEN	(NICKLEN + USERLEN + HOSTLEN + 2 + 4)

/* The extban letters, for ISUPPORT EXTBAN=,<letters>. */
#define BANMASK_EXTBANS	"Rm"

/*
 * Normalize in as an entry of list (b, e or I) into out (at least
 * BANMASK_LEN + 1 bytes): "nick" is nick!*@*, "user@host" *!user@host,
 * "host.name" *!*@host.name, "nick!user" nick!user@*; "m:nick" is
 * m:nick!*@*. Returns NULL, or why in is no mask (for 696).
 */
const char	*banmask_normalize(const char *in, char list, char *out,
		    size_t size);
/*
 * The extban letter of a stored mask, with *value set to what follows
 * "X:"; 0 for a plain mask, with *value the mask itself.
 */
char		 banmask_split(const char *mask, const char **value);

#endif

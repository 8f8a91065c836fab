/*
 * mode.h: parse a MODE change string ("+ov-k alice bob key") into a list
 * of single changes, given which letters take parameters. Pure.
 */
#ifndef IRCD_MODE_H
#define IRCD_MODE_H

#include <stddef.h>

#define MODE_MAXCHANGES	32

/* Channel flag modes (CHANMODES type D), as bits. */
#define CMODE_NOEXTERNAL	0x01	/* +n */
#define CMODE_TOPICLOCK		0x02	/* +t */
#define CMODE_MODERATED		0x04	/* +m */
#define CMODE_SECRET		0x08	/* +s */
#define CMODE_INVITEONLY	0x10	/* +i */
#define CMODE_NOCTCP		0x20	/* +C: no CTCP but ACTION */

struct mode_change {
	char		 dir;		/* '+' or '-' */
	char		 letter;
	const char	*arg;		/* NULL when the mode takes none */
};

/* How a letter takes its argument (CHANMODES types A-D, and prefixes). */
enum mode_type {
	MODE_UNKNOWN = 0,
	MODE_LIST,	/* A: b e I, parameter always; none = list query */
	MODE_ALWAYS,	/* B: k, parameter to set and unset */
	MODE_SETONLY,	/* C: l, parameter to set only */
	MODE_FLAG,	/* D: C i m n s t, no parameter */
	MODE_PREFIX,	/* o v, a nick both ways */
};

enum mode_type	mode_chan_type(char letter);
/* The CMODE_* bit of a flag letter, or 0. */
unsigned	mode_chan_flag(char letter);
/* The bits of every flag letter in letters ('+', '-' and others ignored). */
unsigned	mode_chan_flags(const char *letters);
/* The letters of bits, in ASCII order ("Cimnst"), into buf. */
void		mode_chan_letters(unsigned bits, char *buf, size_t len);

/*
 * Parse modestr with args[0..nargs). Letters of unknown type are returned
 * with letter set and dir, and arg NULL, so the caller can send 472.
 * A change that needs a missing parameter is returned with arg NULL too;
 * the caller decides (696 or ignore). Returns the number of changes.
 */
int	mode_parse(const char *modestr, const char *const *args, int nargs,
	    enum mode_type (*type)(char), struct mode_change *out, int max);

#endif

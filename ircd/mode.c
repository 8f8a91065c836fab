/*
 * mode.c: split a MODE change string into single changes. Pure: it knows
 * which letters take a parameter, not what they mean; cmd-mode.c applies.
 */
#include "compat.h"

#include <stddef.h>

#include "ircd/mode.h"

/*
 * The one table of channel flag letters, in the order they are shown
 * (ASCII, as CHANMODES lists them).
 */
static const struct {
	char		 letter;
	unsigned	 bit;
} mode_flags[] = {
	{ 'C', CMODE_NOCTCP },
	{ 'i', CMODE_INVITEONLY },
	{ 'm', CMODE_MODERATED },
	{ 'n', CMODE_NOEXTERNAL },
	{ 's', CMODE_SECRET },
	{ 't', CMODE_TOPICLOCK },
};
#define NFLAGS	(sizeof(mode_flags) / sizeof(mode_flags[0]))

unsigned
mode_chan_flag(char letter)
{
	size_t i;

	for (i = 0; i < NFLAGS; i++)
		if (mode_flags[i].letter == letter)
			return mode_flags[i].bit;
	return 0;
}

unsigned
mode_chan_flags(const char *letters)
{
	unsigned bits = 0;

	for (; letters != NULL && *letters != '\0'; letters++)
		bits |= mode_chan_flag(*letters);
	return bits;
}

void
mode_chan_letters(unsigned bits, char *buf, size_t len)
{
	size_t i, n = 0;

	if (len == 0)
		return;
	for (i = 0; i < NFLAGS && n + 1 < len; i++)
		if (bits & mode_flags[i].bit)
			buf[n++] = mode_flags[i].letter;
	buf[n] = '\0';
}

enum mode_type
mode_chan_type(char letter)
{
	switch (letter) {
	case 'b':
	case 'e':
	case 'I':
		return MODE_LIST;
	case 'k':
		return MODE_ALWAYS;
	case 'l':
		return MODE_SETONLY;
	case 'o':
	case 'v':
		return MODE_PREFIX;
	default:
		return mode_chan_flag(letter) != 0 ? MODE_FLAG : MODE_UNKNOWN;
	}
}

/* Does a letter of this type consume a parameter in direction dir? */
static int
mode_takes_arg(enum mode_type t, char dir)
{
	switch (t) {
	case MODE_LIST:
	case MODE_ALWAYS:
	case MODE_PREFIX:
		return 1;
	case MODE_SETONLY:
		return dir == '+';
	case MODE_FLAG:
	case MODE_UNKNOWN:
	default:
		/*
		 * An unknown letter takes nothing: guessing would shift
		 * every later parameter onto the wrong letter anyway.
		 */
		return 0;
	}
}

int
mode_parse(const char *modestr, const char *const *args, int nargs,
    enum mode_type (*type)(char), struct mode_change *out, int max)
{
	const char *p;
	char dir = '+';	/* "MODE #c n" means +n, as every server reads it */
	int n = 0, ai = 0;

	if (modestr == NULL || max <= 0)
		return 0;
	if (args == NULL)
		nargs = 0;
	for (p = modestr; *p != '\0' && n < max; p++) {
		if (*p == '+' || *p == '-') {
			dir = *p;
			continue;
		}
		out[n].dir = dir;
		out[n].letter = *p;
		out[n].arg = NULL;
		if (mode_takes_arg(type(*p), dir) && ai < nargs)
			out[n].arg = args[ai++];
		n++;
	}
	return n;
}

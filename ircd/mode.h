/*
 * mode.h: parse a MODE change string ("+ov-k alice bob key") into a list
 * of single changes, given which letters take parameters. Pure.
 */
#ifndef IRCD_MODE_H
#define IRCD_MODE_H

#define MODE_MAXCHANGES	32

struct mode_change {
	char		 dir;		/* '+' or '-' */
	char		 letter;
	const char	*arg;		/* NULL when the mode takes none */
};

/* How a letter takes its argument (CHANMODES types A-D, and prefixes). */
enum mode_type {
	MODE_UNKNOWN = 0,
	MODE_LIST,	/* A: b, parameter always; no parameter = list query */
	MODE_ALWAYS,	/* B: k, parameter to set and unset */
	MODE_SETONLY,	/* C: l, parameter to set only */
	MODE_FLAG,	/* D: n t m s i, no parameter */
	MODE_PREFIX,	/* o v, a nick both ways */
};

enum mode_type	mode_chan_type(char letter);

/*
 * Parse modestr with args[0..nargs). Letters of unknown type are returned
 * with letter set and dir, and arg NULL, so the caller can send 472.
 * A change that needs a missing parameter is returned with arg NULL too;
 * the caller decides (696 or ignore). Returns the number of changes.
 */
int	mode_parse(const char *modestr, const char *const *args, int nargs,
	    enum mode_type (*type)(char), struct mode_change *out, int max);

#endif

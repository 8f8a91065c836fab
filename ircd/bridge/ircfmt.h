/*
 * ircfmt.h: an agent's Markdown as IRC text (TN-13). Pure: it knows
 * lines, not streams; stream.c feeds it each line of an answer, or the
 * part of a line that cannot change any more (ircfmt_settled).
 */
#ifndef IRCD_BRIDGE_IRCFMT_H
#define IRCD_BRIDGE_IRCFMT_H

#include <stddef.h>

/* IRC bold, which every client renders (monospace \x11 irssi does not). */
#define IRCFMT_BOLD_CHAR	'\x02'
/* TABs stop every 8 columns, as terminals and IRC clients' fonts align. */
#define IRCFMT_TABSTOP		8

/* Flags: Markdown strong emphasis and headings become IRC bold. */
#define IRCFMT_MARKDOWN		0x1

/*
 * What one answer's lines carry from one to the next. Zeroed: the
 * answer's start.
 */
struct ircfmt {
	int	in_fence;	/* inside a ``` block: code, kept as typed */
	int	cont;		/* the line's start was formatted already */
	size_t	col;		/* the line's columns so far, for TABs */
	unsigned char prev;	/* the line's last byte so far ("__" in words) */
};

/*
 * The bytes out needs for len bytes of in: a TAB can take IRCFMT_TABSTOP
 * spaces; markup never makes text longer.
 */
size_t	ircfmt_size(const char *in, size_t len);
/*
 * in (no newline) into out, which has ircfmt_size(in, len) bytes; no TAB
 * comes out. It is a line's start unless f->cont; end: the line ends
 * with it (the next call starts a line). A line of a fence is code: only
 * its TABs change. Elsewhere, with IRCFMT_MARKDOWN, "**x**" and "__x__"
 * become \x02x\x02 (not inside `code`, whose backticks stay), and a
 * heading ("## Sub") is the line in bold without its #s; an opener
 * without its closer stays as typed. Returns the length written (no NUL).
 */
size_t	ircfmt_line(struct ircfmt *f, const char *in, size_t len, int flags,
	    int end, char *out);
/*
 * in is a line not ended yet: how many of its first bytes ircfmt_line may
 * format now, because nothing that may still come can change them (a
 * "**" whose closer has not come yet, a `span` not closed, a word not
 * ended). 0 for a heading, a fence line, or when nothing is settled.
 */
size_t	ircfmt_settled(const struct ircfmt *f, const char *in, size_t len,
	    int flags);
/* Is in (len bytes) a fence line, "```" after blanks? */
int	ircfmt_is_fence(const char *in, size_t len);

#endif

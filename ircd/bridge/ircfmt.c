/*
 * ircfmt.c: an agent's Markdown as IRC text (TN-13). Agents write for a
 * Markdown renderer; IRC clients show the text as it comes, so "**x**"
 * reads as asterisks, a heading as "## Setup", and a TAB as whatever the
 * client makes of a control character (irssi an inverse "I", others one
 * space), which loses code's indentation. So TABs become spaces, strong
 * emphasis and headings IRC bold, and the rest stays as typed: inline
 * code keeps its backticks (monospace \x11 is not rendered by irssi), and
 * a marker that is not closed is left alone, since it may be a
 * multiplication or a glob rather than markup.
 *
 * The rules are a small part of CommonMark's: a code span is a run of
 * backticks closed by the next run of the same length; "**" or "__"
 * opens before a non-blank and closes after one ("__" not inside a
 * word, so snake__case stays); code spans come first; the nearest closer
 * wins. Each search remembers where it failed, so a line of openers
 * without closers costs one pass, not one per opener.
 */
#include "compat.h"

#include <string.h>

#include "ircd/bridge/ircfmt.h"

#define NONE		((size_t)-1)
/* Backtick runs longer than this are never code spans (a memo's size). */
#define MAXTICKS	32

struct fmtout {
	char	*p;		/* NULL: only looking (ircfmt_settled) */
	size_t	 n;
	size_t	 col;
};

struct scan {
	const char	*s;
	size_t		 len;
	int		 partial;	/* more of the line may come */
	unsigned char	 prev;		/* the byte before s[0], or 0 */
	/* Memo: a run of n backticks has no closer after the last search. */
	unsigned char	 noticks[MAXTICKS + 1];
	unsigned char	 noclose[2];	/* "**", "__": no closer further on */
	struct fmtout	*o;
};

static int
ircfmt_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* A word's byte: ASCII letters and digits, and any non-ASCII one. */
static int
ircfmt_wordy(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z') || c >= 0x80;
}

/* Copy s out, TABs as spaces to the next stop, counting columns. */
static void
ircfmt_put(struct fmtout *o, const char *s, size_t len)
{
	size_t i, k;
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '\t') {
			k = IRCFMT_TABSTOP - o->col % IRCFMT_TABSTOP;
			if (o->p != NULL)
				memset(o->p + o->n, ' ', k);
			o->n += k;
			o->col += k;
			continue;
		}
		if (o->p != NULL)
			o->p[o->n] = (char)c;
		o->n++;
		/*
		 * A column per character (not per UTF-8 continuation byte);
		 * IRC's formatting codes take none. Wide characters count
		 * one: how wide a client draws them, the server cannot know.
		 */
		if (c >= 0x20 && (c & 0xc0) != 0x80)
			o->col++;
	}
}

static void
ircfmt_bold(struct fmtout *o)
{
	if (o->p != NULL)
		o->p[o->n] = IRCFMT_BOLD_CHAR;
	o->n++;
}

static size_t
ircfmt_run(const struct scan *sc, size_t i, char c)
{
	size_t j = i;

	while (j < sc->len && sc->s[j] == c)
		j++;
	return j - i;
}

/*
 * Where the run of exactly n backticks that closes a code span opened
 * before from starts, or NONE; *undecided when the text so far cannot
 * tell (partial: a run touching the end may still grow).
 */
static size_t
ircfmt_ticks(struct scan *sc, size_t from, size_t n, int *undecided)
{
	size_t i = from, r;

	*undecided = 0;
	if (n > MAXTICKS || sc->noticks[n])
		return NONE;
	while (i < sc->len) {
		if (sc->s[i] != '`') {
			i++;
			continue;
		}
		r = ircfmt_run(sc, i, '`');
		if (sc->partial && i + r == sc->len)
			break;
		if (r == n)
			return i;
		i += r;
	}
	if (sc->partial) {
		*undecided = 1;
		return NONE;
	}
	sc->noticks[n] = 1;
	return NONE;
}

/*
 * Where the "**" or "__" (c) closing an opener before from starts: a
 * run of exactly two after a non-blank, "__" not before a word's byte,
 * code spans skipped. NONE, or *undecided as for ircfmt_ticks.
 */
static size_t
ircfmt_closer(struct scan *sc, size_t from, char c, int *undecided)
{
	size_t i = from, r, e;

	*undecided = 0;
	if (sc->noclose[c == '_'])
		return NONE;
	while (i < sc->len) {
		if (sc->s[i] == '`') {
			r = ircfmt_run(sc, i, '`');
			e = ircfmt_ticks(sc, i + r, r, undecided);
			if (*undecided)
				return NONE;
			i = e == NONE ? i + r : e + r;
			continue;
		}
		if (sc->s[i] != c) {
			i++;
			continue;
		}
		r = ircfmt_run(sc, i, c);
		if (sc->partial && i + r == sc->len)
			break;
		if (r == 2 && i > from &&
		    !ircfmt_blank((unsigned char)sc->s[i - 1]) &&
		    (c == '*' || i + 2 == sc->len ||
		    !ircfmt_wordy((unsigned char)sc->s[i + 2])))
			return i;
		i += r;
	}
	if (sc->partial) {
		*undecided = 1;
		return NONE;
	}
	sc->noclose[c == '_'] = 1;
	return NONE;
}

/* Does the "**" or "__" at i open (before a non-blank, "__" not in a word)? */
static int
ircfmt_opens(const struct scan *sc, size_t i, char c)
{
	unsigned char before = i > 0 ? (unsigned char)sc->s[i - 1] : sc->prev;

	if (i + 2 >= sc->len || ircfmt_blank((unsigned char)sc->s[i + 2]))
		return 0;
	return c == '*' || !ircfmt_wordy(before);
}

static void	ircfmt_inline(const char *, size_t, unsigned char, int,
		    struct fmtout *);

/*
 * Scan sc from its start: with an output, write it (inbold: pairs lose
 * their markers, the text is bold already); without, stop at the first
 * opener whose closer is not known yet and return where it is (len: none).
 * *span is where the span holding byte at, if any, starts.
 */
static size_t
ircfmt_scan(struct scan *sc, int inbold, size_t at, size_t *span)
{
	struct fmtout *o = sc->o;
	size_t i = 0, r, e;
	char c;
	int undecided;

	while (i < sc->len) {
		c = sc->s[i];
		if (c == '`') {
			r = ircfmt_run(sc, i, '`');
			e = ircfmt_ticks(sc, i + r, r, &undecided);
			if (undecided)
				return i;
			if (e == NONE) {
				ircfmt_put(o, sc->s + i, r);
				i += r;
				continue;
			}
			/* Code: kept as typed, backticks too. */
			if (at > i && at < e + r)
				*span = i;
			ircfmt_put(o, sc->s + i, e + r - i);
			i = e + r;
			continue;
		}
		if ((c == '*' || c == '_') && (r = ircfmt_run(sc, i, c)) == 2) {
			if (sc->partial && i + r == sc->len)
				return i;
			if (ircfmt_opens(sc, i, c)) {
				e = ircfmt_closer(sc, i + 2, c, &undecided);
				if (undecided)
					return i;
				if (e != NONE) {
					if (at > i && at < e + 2)
						*span = i;
					if (o->p != NULL || !sc->partial) {
						if (!inbold)
							ircfmt_bold(o);
						ircfmt_inline(sc->s + i + 2,
						    e - i - 2, (unsigned char)c,
						    1, o);
						if (!inbold)
							ircfmt_bold(o);
					}
					i = e + 2;
					continue;
				}
			}
			ircfmt_put(o, sc->s + i, 2);
			i += 2;
			continue;
		}
		if (c == '*' || c == '_') {
			/* A run of another length is not strong emphasis. */
			r = ircfmt_run(sc, i, c);
			ircfmt_put(o, sc->s + i, r);
			i += r;
			continue;
		}
		ircfmt_put(o, sc->s + i, 1);
		i++;
	}
	return sc->len;
}

/* s (len bytes, after prev) with its inline markup, into o. */
static void
ircfmt_inline(const char *s, size_t len, unsigned char prev, int inbold,
    struct fmtout *o)
{
	struct scan sc;
	size_t span = NONE;

	memset(&sc, 0, sizeof(sc));
	sc.s = s;
	sc.len = len;
	sc.prev = prev;
	sc.o = o;
	ircfmt_scan(&sc, inbold, NONE, &span);
}

int
ircfmt_is_fence(const char *in, size_t len)
{
	size_t i = 0;

	while (i < len && ircfmt_blank((unsigned char)in[i]))
		i++;
	return len - i >= 3 && strncmp(in + i, "```", 3) == 0;
}

/*
 * A heading: up to 3 spaces, 1 to 6 #s, then a blank or the end. Its
 * text is [*a, *b): blanks and a closing run of #s left out.
 */
static int
ircfmt_heading(const char *in, size_t len, size_t *a, size_t *b)
{
	size_t i = 0, h = 0, e;

	while (i < len && i < 3 && in[i] == ' ')
		i++;
	while (i + h < len && in[i + h] == '#')
		h++;
	if (h == 0 || h > 6 || (i + h < len &&
	    !ircfmt_blank((unsigned char)in[i + h])))
		return 0;
	i += h;
	while (i < len && ircfmt_blank((unsigned char)in[i]))
		i++;
	e = len;
	while (e > i && ircfmt_blank((unsigned char)in[e - 1]))
		e--;
	h = e;
	while (h > i && in[h - 1] == '#')
		h--;
	if (h == i || ircfmt_blank((unsigned char)in[h - 1])) {
		e = h;
		while (e > i && ircfmt_blank((unsigned char)in[e - 1]))
			e--;
	}
	*a = i;
	*b = e;
	return 1;
}

size_t
ircfmt_size(const char *in, size_t len)
{
	size_t i, tabs = 0;

	for (i = 0; i < len; i++)
		if (in[i] == '\t')
			tabs++;
	/* A heading's two \x02 replace at least "# ". */
	return len + tabs * (IRCFMT_TABSTOP - 1) + 2;
}

size_t
ircfmt_line(struct ircfmt *f, const char *in, size_t len, int flags, int end,
    char *out)
{
	struct fmtout o = { out, 0, f->col };
	size_t a, b;
	int code = f->in_fence;

	if (!f->cont && ircfmt_is_fence(in, len)) {
		f->in_fence = !f->in_fence;
		code = 1;
	}
	if (code || !(flags & IRCFMT_MARKDOWN))
		ircfmt_put(&o, in, len);
	else if (!f->cont && ircfmt_heading(in, len, &a, &b)) {
		if (a < b) {
			ircfmt_bold(&o);
			ircfmt_inline(in + a, b - a, ' ', 1, &o);
			ircfmt_bold(&o);
		}
	} else
		ircfmt_inline(in, len, f->cont ? f->prev : 0, 0, &o);
	if (end) {
		f->cont = 0;
		f->col = 0;
		f->prev = 0;
	} else {
		f->cont = 1;
		f->col = o.col;
		if (len > 0)
			f->prev = (unsigned char)in[len - 1];
	}
	return o.n;
}

size_t
ircfmt_settled(const struct ircfmt *f, const char *in, size_t len, int flags)
{
	struct fmtout o = { NULL, 0, 0 };
	struct scan sc;
	size_t i = 0, cut, u, span = NONE;

	if (!f->cont) {
		while (i < len && ircfmt_blank((unsigned char)in[i]))
			i++;
		/*
		 * A fence's or a heading's line is seen whole, and so is a
		 * start that may still become one.
		 */
		if (i == len || (len - i < 3 &&
		    strncmp(in + i, "```", len - i) == 0) ||
		    ircfmt_is_fence(in, len) || (in[i] == '#' &&
		    !f->in_fence && (flags & IRCFMT_MARKDOWN)))
			return 0;
	}
	if (f->in_fence || !(flags & IRCFMT_MARKDOWN))
		return len;
	/* A marker at the end may be the start of a longer one. */
	cut = len;
	while (cut > 0 && strchr("*_`", in[cut - 1]) != NULL)
		cut--;
	memset(&sc, 0, sizeof(sc));
	sc.s = in;
	sc.len = len;
	sc.partial = 1;
	sc.prev = f->cont ? f->prev : 0;
	sc.o = &o;
	u = ircfmt_scan(&sc, 0, cut, &span);
	if (u <= cut)
		return u;
	return span != NONE ? span : cut;
}

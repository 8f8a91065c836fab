/*
 * mention.c: the one tokenizer of "@name" mentions, in a person's
 * message (RT-1, RT-8, AG-2) or an agent's answer (MN-1); the rules are
 * in mention.h. Pure: bytes in, spans out, no lookup of names.
 */
#include "compat.h"

#include <string.h>

#include "ircd/bridge/mention.h"

/* What opens and closes fenced code, as the answer's stream reads it. */
#define FENCE	"```"

/* Letters, digits and []\`_^{|}- (Modern IRC nick characters). */
static int
is_nickchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("[]\\`_^{|}-", c));
}

/* Control bytes count as space: IRC formatting (^B, ^O...) wraps names. */
static int
is_space(int c)
{
	return c != '\0' && c <= ' ';
}

/* May an '@' right after c open a mention? */
static int
opens(int c, enum mention_mode mode)
{
	if (c >= 0x80)
		return mode == MENTION_PEOPLE;
	return is_space(c) || (c != '\0' && strchr("(\"'<*", c) != NULL);
}

/* May c follow a name? Other bytes make a path or an address of it. */
static int
closes(int c)
{
	return c == '\0' || is_space(c) || c >= 0x80 ||
	    strchr(".,:;!?)\"'>*", c) != NULL;
}

/* Is the line at p a fence line: first non-blank characters ```? */
static int
is_fence(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return strncmp(p, FENCE, sizeof(FENCE) - 1) == 0;
}

/* The start of the line after the one at p, or its NUL. */
static const char *
next_line(const char *p)
{
	p += strcspn(p, "\n");
	return *p == '\n' ? p + 1 : p;
}

/*
 * The run of backticks at p opens inline code: return what follows the
 * run of as many backticks that closes it on this line, or, when none
 * does, what follows the run itself (its backticks are plain text).
 */
static const char *
code_end(const char *p)
{
	size_t n = strspn(p, "`"), k;
	const char *q = p + n;

	while (*q != '\0' && *q != '\n') {
		if (*q != '`') {
			q++;
			continue;
		}
		if ((k = strspn(q, "`")) == n)
			return q + k;
		q += k;
	}
	return p + n;
}

size_t
mention_namelen(const char *p)
{
	size_t n = 0;

	while (is_nickchar((unsigned char)p[n]))
		n++;
	return n;
}

void
mention_begin(struct mention_scan *s, const char *text,
    enum mention_mode mode)
{
	memset(s, 0, sizeof(*s));
	s->text = s->p = text;
	s->mode = mode;
}

int
mention_next(struct mention_scan *s, struct mention *m)
{
	const char *p = s->p;
	size_t n;
	int fence;

	while (*p != '\0') {
		if (s->mode == MENTION_STRICT) {
			/* Fences are whole lines; in one, every line goes. */
			if (p == s->text || p[-1] == '\n') {
				fence = is_fence(p);
				if (fence || s->fence) {
					s->fence ^= fence;
					p = next_line(p);
					continue;
				}
			}
			if (*p == '`') {
				p = code_end(p);
				continue;
			}
		}
		if (*p == '@' && (p == s->text ||
		    opens((unsigned char)p[-1], s->mode)) &&
		    (n = mention_namelen(p + 1)) > 0 &&
		    closes((unsigned char)p[n + 1])) {
			m->at = p;
			m->name = p + 1;
			m->len = n;
			s->p = p + 1 + n;
			return 1;
		}
		p++;
	}
	s->p = p;
	return 0;
}

int
mention_copy(const struct mention *m, char *buf, size_t size)
{
	if (m->len >= size)
		return -1;
	memcpy(buf, m->name, m->len);
	buf[m->len] = '\0';
	return 0;
}

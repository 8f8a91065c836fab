/*
 * message.c: parse and format IRC lines. Parsing works in place on the
 * read buffer; nothing here allocates, so it is safe on the hot path.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ircd/message.h"

static char *
skip_spaces(char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* Cut the word at p: NUL-terminate it and return what follows. */
static char *
cut_word(char *p)
{
	while (*p != '\0' && *p != ' ')
		p++;
	if (*p == ' ')
		*p++ = '\0';
	return skip_spaces(p);
}

int
message_parse(char *line, struct message *m)
{
	char *p = skip_spaces(line);

	memset(m, 0, sizeof(*m));
	if (*p == '\0')
		return MSG_EMPTY;
	if (*p == '@') {
		m->tags = p + 1;
		p = cut_word(p);
	}
	if (*p == ':') {
		m->source = p + 1;
		p = cut_word(p);
	}
	if (*p == '\0')
		return MSG_BAD;
	m->cmd = p;
	p = cut_word(p);
	while (*p != '\0') {
		if (*p == ':' || m->nparams == MSG_MAXPARAMS - 1) {
			/* The trailing parameter, or the 15th which takes the rest. */
			m->params[m->nparams++] = *p == ':' ? p + 1 : p;
			break;
		}
		m->params[m->nparams++] = p;
		p = cut_word(p);
	}
	return MSG_OK;
}

size_t
message_tag_unescape(char *dst, size_t size, const char *val)
{
	size_t n = 0;

	for (; *val != '\0' && *val != ';' && n + 1 < size; val++) {
		char c = *val;

		if (c == '\\') {
			val++;
			switch (*val) {
			case ':': c = ';'; break;
			case 's': c = ' '; break;
			case '\\': c = '\\'; break;
			case 'r': c = '\r'; break;
			case 'n': c = '\n'; break;
			case '\0': case ';':
				/* A lone trailing backslash is dropped. */
				val--;
				goto out;
			default: c = *val; break;
			}
		}
		dst[n++] = c;
	}
out:
	if (size > 0)
		dst[n] = '\0';
	return n;
}

size_t
message_tag_escape(char *dst, size_t size, const char *val)
{
	size_t n = 0;

	for (; *val != '\0'; val++) {
		const char *e = NULL;

		switch (*val) {
		case ';': e = "\\:"; break;
		case ' ': e = "\\s"; break;
		case '\\': e = "\\\\"; break;
		case '\r': e = "\\r"; break;
		case '\n': e = "\\n"; break;
		}
		if (e != NULL) {
			if (n + 3 > size)
				break;
			dst[n++] = e[0];
			dst[n++] = e[1];
		} else {
			if (n + 2 > size)
				break;
			dst[n++] = *val;
		}
	}
	if (size > 0)
		dst[n] = '\0';
	return n;
}

int
message_tag_get(const char *tags, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = tags, *found = NULL;

	if (tags == NULL)
		return 0;
	/* The last occurrence of a key wins. */
	while (*p != '\0') {
		const char *end = strchr(p, ';');

		if (end == NULL)
			end = p + strlen(p);
		if ((size_t)(end - p) >= klen && strncmp(p, key, klen) == 0 &&
		    (p[klen] == '=' || p + klen == end))
			found = p + klen;
		p = *end == ';' ? end + 1 : end;
	}
	if (found == NULL)
		return 0;
	if (*found == '=')
		message_tag_unescape(val, len, found + 1);
	else if (len > 0)
		val[0] = '\0';
	return 1;
}

size_t
message_join_params(char *buf, size_t size, int n, const char *const *params)
{
	size_t len = strnlen(buf, size);
	int i;

	for (i = 0; i < n && len + 1 < size; i++) {
		const char *p = params[i];
		int trailing = i == n - 1 &&
		    (p[0] == '\0' || p[0] == ':' || strchr(p, ' ') != NULL);
		int w = snprintf(buf + len, size - len, "%s%s",
		    trailing ? " :" : " ", p);

		if (w < 0 || (size_t)w >= size - len)
			return size - 1;	/* truncated */
		len += (size_t)w;
	}
	return len;
}

size_t
message_utf8_trunc(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	len = max;
	/* Back off continuation bytes, then the lead byte of a cut sequence. */
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

void
message_split(const char *text, size_t len, size_t budget,
    void (*fn)(const char *, size_t, void *), void *arg)
{
	size_t start = 0;

	if (budget < 8)
		budget = 8;
	while (start < len) {
		size_t end, cut, i;

		/* A line ends at CR, LF or NUL; none of them is ever sent. */
		for (end = start; end < len && text[end] != '\n' &&
		    text[end] != '\r' && text[end] != '\0'; end++)
			;
		while (start < end) {
			if (end - start <= budget) {
				cut = end - start;
			} else {
				cut = message_utf8_trunc(text + start,
				    end - start, budget);
				/* Prefer to cut after a space, keeping it on this line. */
				for (i = cut; i > cut / 2; i--)
					if (text[start + i - 1] == ' ')
						break;
				if (i > cut / 2)
					cut = i;
				if (cut == 0)
					cut = 1;
			}
			fn(text + start, cut, arg);
			start += cut;
		}
		start = end + 1;
	}
}

int
message_is_ctcp(const char *text)
{
	if (text == NULL || text[0] != '\001')
		return 0;
	return !(strncasecmp(text + 1, "ACTION", 6) == 0 &&
	    (text[7] == ' ' || text[7] == '\001' || text[7] == '\0'));
}

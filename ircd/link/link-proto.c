/*
 * link-proto.c: spanning-tree lines parsed and formatted (link-proto.h).
 * Everything here is pure and bounded by what it is given: a hostile
 * peer's line is cut into words in place, and never copied unbounded.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/link/link-proto.h"
#include "ircd/mode.h"

static const char link_b36[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static char *
link_skip(char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* End the word at p with a NUL; return the start of the next one. */
static char *
link_cut(char *p)
{
	while (*p != '\0' && *p != ' ')
		p++;
	if (*p == ' ')
		*p++ = '\0';
	return link_skip(p);
}

int
link_parse(char *line, struct link_msg *m)
{
	char *p = link_skip(line);

	memset(m, 0, sizeof(*m));
	for (char *s = line; *s != '\0'; s++)
		if (*s == '\r' || *s == '\n')
			return -1;
	if (*p == '@') {
		m->tags = p + 1;
		p = link_cut(p);
	}
	if (*p == ':') {
		m->source = p + 1;
		p = link_cut(p);
		if (m->source[0] == '\0')
			return -1;
	}
	if (*p == '\0' || *p == ':')
		return -1;
	m->cmd = p;
	p = link_cut(p);
	while (*p != '\0') {
		if (m->nparams == LINK_MAXPARAMS)
			return -1;
		if (*p == ':') {
			m->params[m->nparams++] = p + 1;
			break;
		}
		m->params[m->nparams++] = p;
		p = link_cut(p);
	}
	return 0;
}

static int
link_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static int
link_isupalnum(int c)
{
	return link_isdigit(c) || (c >= 'A' && c <= 'Z');
}

int
link_is_sid(const char *s)
{
	return strlen(s) == LINK_SIDLEN && link_isdigit((unsigned char)s[0]) &&
	    link_isupalnum((unsigned char)s[1]) &&
	    link_isupalnum((unsigned char)s[2]);
}

int
link_is_uuid(const char *s)
{
	size_t i;

	if (strlen(s) != LINK_UUIDLEN || !link_isdigit((unsigned char)s[0]))
		return 0;
	for (i = 1; i < LINK_UUIDLEN; i++)
		if (!link_isupalnum((unsigned char)s[i]))
			return 0;
	return 1;
}

int
link_uuid_make(const char *sid, uint64_t id, char out[LINK_UUIDLEN + 1])
{
	int i;

	memcpy(out, sid, LINK_SIDLEN);
	for (i = LINK_UUIDLEN - 1; i >= LINK_SIDLEN; i--) {
		out[i] = link_b36[id % 36];
		id /= 36;
	}
	out[LINK_UUIDLEN] = '\0';
	return id == 0;
}

int
link_uuid_id(const char *sid, const char *uuid, uint64_t *id)
{
	const char *p;
	uint64_t v = 0;
	int i;

	if (!link_is_uuid(uuid) || strncmp(uuid, sid, LINK_SIDLEN) != 0)
		return -1;
	for (i = LINK_SIDLEN; i < LINK_UUIDLEN; i++) {
		p = strchr(link_b36, uuid[i]);
		v = v * 36 + (uint64_t)(p - link_b36);
	}
	*id = v;
	return 0;
}

int
link_capab_get(const char *caps, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = caps, *end;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		end = p + strcspn(p, " ");
		if ((size_t)(end - p) >= klen && strncmp(p, key, klen) == 0 &&
		    (p[klen] == '=' || p + klen == end)) {
			const char *v = p + klen + (p[klen] == '=');
			size_t n = (size_t)(end - v);

			if (len > 0) {
				if (n >= len)
					n = len - 1;
				memcpy(val, v, n);
				val[n] = '\0';
			}
			return 1;
		}
		p = end;
	}
	return 0;
}

int
link_fjoin_next(const char **sp, struct link_member *m)
{
	const char *p = *sp, *end, *comma, *colon;
	size_t n;

	while (*p == ' ')
		p++;
	if (*p == '\0') {
		*sp = p;
		return 0;
	}
	end = p + strcspn(p, " ");
	*sp = end;
	memset(m, 0, sizeof(*m));
	if ((comma = memchr(p, ',', (size_t)(end - p))) == NULL)
		return -1;
	if ((n = (size_t)(comma - p)) >= sizeof(m->modes))
		return -1;
	memcpy(m->modes, p, n);
	m->modes[n] = '\0';
	/* 1205 adds ":membid"; an older peer's entry ends at the UUID. */
	colon = memchr(comma + 1, ':', (size_t)(end - comma - 1));
	n = (size_t)((colon != NULL ? colon : end) - (comma + 1));
	if (n != LINK_UUIDLEN)
		return -1;
	memcpy(m->uuid, comma + 1, n);
	m->uuid[n] = '\0';
	return link_is_uuid(m->uuid) ? 1 : -1;
}

void
link_fjoin_begin(struct link_fjoin *f, const char *sid, const char *chan,
    long long ts, const char *modes,
    void (*emit)(const char *, size_t, void *), void *arg)
{
	int n;

	memset(f, 0, sizeof(*f));
	f->emit = emit;
	f->arg = arg;
	n = snprintf(f->line, sizeof(f->line), ":%s FJOIN %s %lld %s :", sid,
	    chan, ts, modes[0] != '\0' ? modes : "+");
	if (n < 0 || (size_t)n >= sizeof(f->line))
		n = (int)sizeof(f->line) - 1;
	f->head = f->len = (size_t)n;
}

static void
link_fjoin_flush(struct link_fjoin *f)
{
	if (f->n == 0)
		return;
	f->emit(f->line, f->len, f->arg);
	f->lines++;
	f->len = f->head;
	f->line[f->len] = '\0';
	f->n = 0;
}

void
link_fjoin_add(struct link_fjoin *f, const char *prefixes, const char *uuid,
    unsigned long long membid)
{
	char item[64];
	int n;

	n = snprintf(item, sizeof(item), "%s%.15s,%s:%llu", f->n > 0 ? " " :
	    "", prefixes, uuid, membid);
	if (n < 0 || (size_t)n >= sizeof(item))
		return;
	if (f->len + (size_t)n > LINK_OUTMAX) {
		link_fjoin_flush(f);
		n = snprintf(item, sizeof(item), "%.15s,%s:%llu", prefixes,
		    uuid, membid);
	}
	memcpy(f->line + f->len, item, (size_t)n + 1);
	f->len += (size_t)n;
	f->n++;
}

int
link_fjoin_end(struct link_fjoin *f)
{
	/* A channel with no member of ours is not sent at all. */
	link_fjoin_flush(f);
	return f->lines;
}

size_t
link_tags_client(const char *tags, char *out, size_t size)
{
	const char *p = tags, *end;
	size_t n = 0, len;

	if (size == 0)
		return 0;
	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		end = p + strcspn(p, ";");
		len = (size_t)(end - p);
		if (p[0] == '+' && len > 1 && n + len + (n > 0) < size) {
			if (n > 0)
				out[n++] = ';';
			memcpy(out + n, p, len);
			n += len;
			out[n] = '\0';
		}
		p = *end == ';' ? end + 1 : end;
	}
	return n;
}

/* Digits s[0..n) as a number; -1 if any is not a digit. */
static long
lp_num(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int64_t
link_time_parse(const char *s, size_t len)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	long y, mo, d, h, mi, sec, ms;
	int64_t days, yy;

	/* Exactly "YYYY-MM-DDThh:mm:ss.sssZ", as IRCv3 server-time writes. */
	if (len != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z')
		return 0;
	y = lp_num(s, 4);
	mo = lp_num(s + 5, 2);
	d = lp_num(s + 8, 2);
	h = lp_num(s + 11, 2);
	mi = lp_num(s + 14, 2);
	sec = lp_num(s + 17, 2);
	ms = lp_num(s + 20, 3);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60 ||
	    ms < 0)
		return 0;
	/* Days since the epoch (Howard Hinnant's days_from_civil). */
	yy = y - (mo <= 2);
	days = (yy / 400) * 146097 + ((yy % 400) * 365 + (yy % 400) / 4 -
	    (yy % 400) / 100) + (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 +
	    d - 1 - 719468;
	return ((days * 24 + h) * 60 + mi) * 60000 + (int64_t)sec * 1000 + ms;
}

void
link_tags_ids(const char *tags, char *msgid, size_t size, int64_t *time_ms)
{
	const char *p = tags, *end, *v;
	size_t len, i;

	if (size > 0)
		msgid[0] = '\0';
	*time_ms = 0;
	while (p != NULL && *p != '\0') {
		end = p + strcspn(p, ";");
		len = (size_t)(end - p);
		if (len > 6 && strncmp(p, "msgid=", 6) == 0 &&
		    len - 6 < size) {
			v = p + 6;
			for (i = 0; i < len - 6; i++)
				if (v[i] <= ' ' || v[i] > '~' ||
				    v[i] == '\\' || v[i] == '=')
					break;
			if (i == len - 6) {
				memcpy(msgid, v, i);
				msgid[i] = '\0';
			}
		} else if (len > 5 && strncmp(p, "time=", 5) == 0)
			*time_ms = link_time_parse(p + 5, len - 5);
		p = *end == ';' ? end + 1 : end;
	}
}

int
link_chanmode_type(const char *chanmodes, char letter)
{
	const char *p = chanmodes, *end, *eq;
	size_t n;

	while (p != NULL && *p != '\0') {
		while (*p == ' ')
			p++;
		end = p + strcspn(p, " ");
		eq = memchr(p, '=', (size_t)(end - p));
		/* "...=b", or a prefix's "...=@o": the letter ends the token. */
		if (eq != NULL && end[-1] == letter && end - eq >= 2) {
			n = (size_t)(end - p);
			if (n > 5 && strncmp(p, "list:", 5) == 0)
				return MODE_LIST;
			if (n > 10 && strncmp(p, "param-set:", 10) == 0)
				return MODE_SETONLY;
			if (n > 6 && strncmp(p, "param:", 6) == 0)
				return MODE_ALWAYS;
			if (n > 7 && strncmp(p, "prefix:", 7) == 0)
				return MODE_PREFIX;
			if (n > 7 && strncmp(p, "simple:", 7) == 0)
				return MODE_FLAG;
			return MODE_UNKNOWN;
		}
		p = end;
	}
	return MODE_UNKNOWN;
}

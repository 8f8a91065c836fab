/*
 * plain.c: AU-6. What an agent writes that people must judge (a tool
 * call's title, kind and path, its input, a plan, the names of options,
 * commands and modes, agentInfo, a session's title) is shown as plain
 * text: what a person reads is what is there. A C0 or C1 control can
 * move a terminal's cursor; mIRC colours can paint a command black on
 * black ("\x03" "01,01"); a right-to-left override shows "hs.lave" as
 * "eval.sh". acp/ makes each such field plain once, where it
 * parses it (update.c, permission.c, session.c, lifecycle.c), so nothing
 * above it can forget to. The answer itself is not touched: it is text
 * people asked for, and stream.c keeps its lines.
 *
 * Pure, so tests/unit/test_plain.c and tests/fuzz/fuzz_plain.c drive it.
 */
#include "compat.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "acp/plain.h"

#define ELLIPSIS	"\xe2\x80\xa6"	/* "…", marks a cut */
#define ELLIPSIS_LEN	3
#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD for invalid UTF-8 */

enum plain_class {
	PLAIN_KEEP,	/* shown as it is */
	PLAIN_DROP,	/* removed */
	PLAIN_SPACE,	/* becomes one space */
	PLAIN_BAD	/* invalid UTF-8: becomes U+FFFD */
};

static int
plain_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
plain_ishex(unsigned char c)
{
	return plain_isdigit(c) || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* How many of the n bytes at s are ASCII digits, at most max. */
static size_t
plain_digits(const unsigned char *s, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max && plain_isdigit(s[i]); i++)
		;
	return i;
}

/* Are the 6 bytes at s (n left) a hex colour, RRGGBB? */
static int
plain_hex6(const unsigned char *s, size_t n)
{
	size_t i;

	if (n < 6)
		return 0;
	for (i = 0; i < 6; i++)
		if (!plain_ishex(s[i]))
			return 0;
	return 1;
}

/*
 * An IRC colour code at s[0] (\x03 or \x04) with its parameters: "\x03"
 * then one or two digits, then "," and one or two more (a background is
 * only read after a foreground, as clients do); "\x04" then RRGGBB, then
 * ",RRGGBB". Returns the bytes it takes.
 */
static size_t
plain_colour(const unsigned char *s, size_t n)
{
	size_t i = 1, d;

	if (s[0] == 0x03) {
		if ((d = plain_digits(s + i, n - i, 2)) == 0)
			return i;
		i += d;
		if (i + 1 < n && s[i] == ',' &&
		    (d = plain_digits(s + i + 1, n - i - 1, 2)) > 0)
			i += 1 + d;
		return i;
	}
	if (!plain_hex6(s + i, n - i))
		return i;
	i += 6;
	if (i < n && s[i] == ',' && plain_hex6(s + i + 1, n - i - 1))
		i += 7;
	return i;
}

/* What becomes of the character at s (n bytes left); *len: its bytes. */
static enum plain_class
plain_classify(const unsigned char *s, size_t n, size_t *len)
{
	size_t k, bad;
	unsigned long cp;

	if ((k = acp_utf8_seq(s, n, &bad)) == 0) {
		*len = bad;
		return PLAIN_BAD;
	}
	*len = k;
	if (s[0] == 0x03 || s[0] == 0x04) {
		*len = plain_colour(s, n);
		return PLAIN_DROP;
	}
	/* Tab and the line and page breaks separate words: keep them apart. */
	if (s[0] == '\t' || s[0] == '\n' || s[0] == '\v' || s[0] == '\f' ||
	    s[0] == '\r')
		return PLAIN_SPACE;
	/* The rest of C0 (IRC's \x02 \x0f \x11 \x16 \x1d \x1e \x1f), DEL. */
	if (s[0] < 0x20 || s[0] == 0x7f)
		return PLAIN_DROP;
	if (k == 1)
		return PLAIN_KEEP;
	if (k == 2)
		cp = ((unsigned long)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
	else if (k == 3)
		cp = ((unsigned long)(s[0] & 0x0f) << 12) |
		    ((unsigned long)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	else
		return PLAIN_KEEP;	/* nothing above U+FFFF is a control */
	/* C1; bidi: ALM, LRM, RLM, the embeddings and overrides, isolates. */
	if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
	    cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return PLAIN_DROP;
	/* The line and paragraph separators break lines in some clients. */
	if (cp == 0x2028 || cp == 0x2029)
		return PLAIN_SPACE;
	return PLAIN_KEEP;
}

size_t
acp_plain(char *out, size_t size, const char *in, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	const char *add;
	size_t i = 0, o = 0, k, n;
	int cut = 0;

	if (size == 0)
		return 0;
	while (i < len) {
		switch (plain_classify(s + i, len - i, &k)) {
		case PLAIN_KEEP:
			add = in + i;
			n = k;
			break;
		case PLAIN_SPACE:
			add = " ";
			n = 1;
			break;
		case PLAIN_BAD:
			add = REPLACEMENT;
			n = sizeof(REPLACEMENT) - 1;
			break;
		case PLAIN_DROP:
		default:
			i += k;
			continue;
		}
		if (o + n > size - 1) {
			cut = 1;
			break;
		}
		memcpy(out + o, add, n);
		o += n;
		i += k;
	}
	/* Cut: make room for the ellipsis, going back whole characters. */
	if (cut && size - 1 >= ELLIPSIS_LEN) {
		while (o + ELLIPSIS_LEN > size - 1) {
			o--;
			while (o > 0 && ((unsigned char)out[o] & 0xc0) == 0x80)
				o--;
		}
		memcpy(out + o, ELLIPSIS, ELLIPSIS_LEN);
		o += ELLIPSIS_LEN;
	}
	out[o] = '\0';
	return o;
}

int
acp_plain_is(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i, k, n = strlen(str);

	for (i = 0; i < n; i += k)
		if (plain_classify(s + i, n - i, &k) != PLAIN_KEEP)
			return 0;
	return 1;
}

char *
acp_plain_dup(const char *in, size_t size)
{
	size_t len, want;
	char *out;

	if (in == NULL || size == 0)
		return NULL;
	/* Each input byte gives at most 3 (a U+FFFD), and the NUL. */
	len = strlen(in);
	want = len < (size - 1) / 3 ? len * 3 + 1 : size;
	if ((out = malloc(want)) == NULL)
		return NULL;
	acp_plain(out, want, in, len);
	return out;
}

/* ---- a tool call's input, for a card (M2) ---- */

struct plain_buf {
	char	*s;
	size_t	 len, cap;
	int	 oom;
};

static void
plain_add(struct plain_buf *b, const char *s, size_t n)
{
	char *ns;
	size_t cap;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = (b->len + n + 1) * 2;
		if ((ns = realloc(b->s, cap)) == NULL) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
plain_adds(struct plain_buf *b, const char *s)
{
	plain_add(b, s, strlen(s));
}

/* A word of an argv as a shell would need it, so that words stay apart. */
static void
plain_add_word(struct plain_buf *b, const char *w)
{
	const char *p;

	if (*w != '\0' && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") == strlen(w)) {
		plain_adds(b, w);
		return;
	}
	plain_adds(b, "'");
	for (p = w; *p != '\0'; p++) {
		if (*p == '\'')
			plain_adds(b, "'\\''");
		else
			plain_add(b, p, 1);
	}
	plain_adds(b, "'");
}

static const cJSON *
plain_member(const cJSON *o, const char *const *keys)
{
	const cJSON *v;

	for (; *keys != NULL; keys++)
		if ((v = cJSON_GetObjectItemCaseSensitive(o, *keys)) != NULL &&
		    !cJSON_IsNull(v))
			return v;
	return NULL;
}

/* An argv (strings; anything else as JSON) as one command line. */
static void
plain_add_argv(struct plain_buf *b, const cJSON *a)
{
	const cJSON *w;
	char *j;
	int first = 1;

	cJSON_ArrayForEach(w, a) {
		if (!first)
			plain_adds(b, " ");
		first = 0;
		if (cJSON_IsString(w))
			plain_add_word(b, w->valuestring);
		else if ((j = cJSON_PrintUnformatted(w)) != NULL) {
			plain_adds(b, j);
			cJSON_free(j);
		}
	}
}

/*
 * The keys real adapters use (docs: reference/real-adapters-offline.md):
 * Claude Code's Bash {command}, Read/Write/Edit {file_path, content,
 * old_string, new_string}; codex's exec {command: argv}; Gemini's shell
 * {command} and write_file/replace {file_path, content, new_string};
 * Zed's {path, abs_path, paths}; newText in diffs.
 */
static const char *const plain_cmd_keys[] = { "command", "cmd", NULL };
static const char *const plain_path_keys[] = { "file_path", "path",
    "abs_path", NULL };
static const char *const plain_size_keys[] = { "content", "new_string",
    "newText", "old_string", NULL };

/*
 * codex's two shapes: apply_patch's {changes: {<path>: {type, content or
 * unified_diff}}}, each as "<path> (add, 26 bytes)"; and an MCP tool's
 * approval, whose arguments are request._meta.tool_params, as JSON.
 */
static void
plain_render_codex(struct plain_buf *b, const cJSON *raw)
{
	const cJSON *v, *w, *meta, *body;
	const char *type;
	char num[64], *j;

	v = cJSON_GetObjectItemCaseSensitive(raw, "changes");
	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach(w, v) {
			if (w->string == NULL)
				continue;
			if (b->len > 0)
				plain_adds(b, ", ");
			plain_adds(b, w->string);
			type = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(w,
			    "type")) ? cJSON_GetObjectItemCaseSensitive(w,
			    "type")->valuestring : "change";
			if ((body = cJSON_GetObjectItemCaseSensitive(w,
			    "content")) == NULL)
				body = cJSON_GetObjectItemCaseSensitive(w,
				    "unified_diff");
			if (cJSON_IsString(body))
				snprintf(num, sizeof(num), " (%.16s, %zu bytes)",
				    type, strlen(body->valuestring));
			else
				snprintf(num, sizeof(num), " (%.16s)", type);
			plain_adds(b, num);
		}
	}
	meta = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(raw, "request"), "_meta");
	v = cJSON_GetObjectItemCaseSensitive(meta, "tool_params");
	if (b->len == 0 && v != NULL && (j = cJSON_PrintUnformatted(v)) != NULL) {
		plain_adds(b, j);	/* acp_plain_input() cuts it */
		cJSON_free(j);
	}
}

/* What the input says it does, in words; nothing when no key is known. */
static void
plain_render(struct plain_buf *b, const cJSON *raw)
{
	const cJSON *v, *w;
	char num[32];
	int first;

	if ((v = plain_member(raw, plain_cmd_keys)) != NULL) {
		plain_adds(b, "$ ");
		if (cJSON_IsString(v))
			plain_adds(b, v->valuestring);
		else if (cJSON_IsArray(v))
			plain_add_argv(b, v);
	}
	if ((v = plain_member(raw, plain_path_keys)) != NULL &&
	    cJSON_IsString(v)) {
		if (b->len > 0)
			plain_adds(b, " ");
		plain_adds(b, v->valuestring);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(raw, "paths")) != NULL &&
	    cJSON_IsArray(v)) {
		first = 1;
		cJSON_ArrayForEach(w, v) {
			if (!cJSON_IsString(w))
				continue;
			if (b->len > 0)
				plain_adds(b, first ? " " : ", ");
			plain_adds(b, w->valuestring);
			first = 0;
		}
	}
	if ((v = plain_member(raw, plain_size_keys)) != NULL &&
	    cJSON_IsString(v)) {
		snprintf(num, sizeof(num), "%s(%zu bytes)", b->len > 0 ? " " :
		    "", strlen(v->valuestring));
		plain_adds(b, num);
	}
	plain_render_codex(b, raw);
}

size_t
acp_plain_input(char *out, size_t size, const cJSON *raw)
{
	struct plain_buf b = { NULL, 0, 0, 0 };
	size_t n = 0;
	char *j;

	if (size == 0)
		return 0;
	out[0] = '\0';
	if (raw == NULL || cJSON_IsNull(raw) ||
	    ((cJSON_IsObject(raw) || cJSON_IsArray(raw)) && raw->child == NULL))
		return 0;
	if (cJSON_IsObject(raw))
		plain_render(&b, raw);
	if (b.len > 0 && !b.oom)
		n = acp_plain(out, size, b.s, b.len);
	else if ((j = cJSON_PrintUnformatted(raw)) != NULL) {
		n = acp_plain(out, size < ACP_PLAIN_JSON + 1 ? size :
		    ACP_PLAIN_JSON + 1, j, strlen(j));
		cJSON_free(j);
	}
	free(b.s);
	return n;
}

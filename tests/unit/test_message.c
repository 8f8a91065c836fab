/*
 * test_message.c: the pure line functions: parsing in place, tags and
 * their escaping, parameter joining, UTF-8-safe truncation and splitting.
 */
#include "compat.h"

#include <stdlib.h>
#include <string.h>

#include "ircd/message.h"
#include "tap.h"

static void
test_parse(void)
{
	struct message m;
	char line[1024];

	strlcpy(line, ":nick!u@h PRIVMSG #chan :hello world", sizeof(line));
	is_int(message_parse(line, &m), MSG_OK, "parse: ok");
	is_str(m.source, "nick!u@h", "parse: source");
	is_str(m.cmd, "PRIVMSG", "parse: command");
	is_int(m.nparams, 2, "parse: two params");
	is_str(m.params[0], "#chan", "parse: middle param");
	is_str(m.params[1], "hello world", "parse: trailing keeps spaces");

	strlcpy(line, "@a=1;+b=x\\sy :src CMD p1  p2   :", sizeof(line));
	is_int(message_parse(line, &m), MSG_OK, "parse: tags ok");
	is_str(m.tags, "a=1;+b=x\\sy", "parse: raw tag section");
	is_int(m.nparams, 3, "parse: repeated spaces collapse, empty trailing kept");
	is_str(m.params[2], "", "parse: empty trailing");

	strlcpy(line, "   ", sizeof(line));
	is_int(message_parse(line, &m), MSG_EMPTY, "parse: spaces only is empty");
	strlcpy(line, "", sizeof(line));
	is_int(message_parse(line, &m), MSG_EMPTY, "parse: empty line");
	strlcpy(line, ":prefixonly", sizeof(line));
	is_int(message_parse(line, &m), MSG_BAD, "parse: prefix without command");
	strlcpy(line, "@tags", sizeof(line));
	is_int(message_parse(line, &m), MSG_BAD, "parse: tags without command");

	strlcpy(line, "CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", sizeof(line));
	is_int(message_parse(line, &m), MSG_OK, "parse: many params ok");
	is_int(m.nparams, MSG_MAXPARAMS, "parse: at most 15 params");
	is_str(m.params[14], "15 16 17", "parse: the 15th takes the rest");

	strlcpy(line, "NICK :", sizeof(line));
	message_parse(line, &m);
	is_int(m.nparams, 1, "parse: lone colon is one empty param");
	is_str(m.params[0], "", "parse: lone colon value");
}

static void
test_tags(void)
{
	char val[64];

	ok(message_tag_get("a=1;label=xyz;b", "label", val, sizeof(val)),
	    "tag: found");
	is_str(val, "xyz", "tag: value");
	ok(message_tag_get("a=1;b", "b", val, sizeof(val)), "tag: valueless found");
	is_str(val, "", "tag: valueless is empty");
	ok(!message_tag_get("ab=1", "a", val, sizeof(val)), "tag: prefix is not a match");
	ok(message_tag_get("k=1;k=2", "k", val, sizeof(val)), "tag: repeated");
	is_str(val, "2", "tag: last occurrence wins");
	message_tag_get("k=a\\:b\\sc\\\\d\\re\\nf\\x", "k", val, sizeof(val));
	is_str(val, "a;b c\\d\re\nfx", "tag: unescape, invalid escape drops backslash");
	message_tag_get("k=end\\", "k", val, sizeof(val));
	is_str(val, "end", "tag: lone trailing backslash dropped");
	message_tag_escape(val, sizeof(val), "a;b c\\d\r\n");
	is_str(val, "a\\:b\\sc\\\\d\\r\\n", "tag: escape");
	ok(!message_tag_get(NULL, "k", val, sizeof(val)), "tag: no tags");
}

static void
test_join(void)
{
	char buf[128];
	const char *p1[] = { "#chan", "hello world" };
	const char *p2[] = { "nick", "word" };
	const char *p3[] = { "x", ":colon" };
	const char *p4[] = { "x", "" };

	strlcpy(buf, "PRIVMSG", sizeof(buf));
	message_join_params(buf, sizeof(buf), 2, p1);
	is_str(buf, "PRIVMSG #chan :hello world", "join: trailing with space");
	strlcpy(buf, "X", sizeof(buf));
	message_join_params(buf, sizeof(buf), 2, p2);
	is_str(buf, "X nick word", "join: plain last word");
	strlcpy(buf, "X", sizeof(buf));
	message_join_params(buf, sizeof(buf), 2, p3);
	is_str(buf, "X x ::colon", "join: leading colon escaped");
	strlcpy(buf, "X", sizeof(buf));
	message_join_params(buf, sizeof(buf), 2, p4);
	is_str(buf, "X x :", "join: empty last");
	strlcpy(buf, "X", 8);
	is_int(message_join_params(buf, 8, 2, p1), 7, "join: truncates to the buffer");
}

static void
test_utf8(void)
{
	const char *s = "ab\xc3\xa9z";	/* a b é z */

	is_int(message_utf8_trunc(s, 5, 10), 5, "utf8: fits");
	is_int(message_utf8_trunc(s, 5, 3), 2, "utf8: never cut inside é");
	is_int(message_utf8_trunc(s, 5, 4), 4, "utf8: after é");
}

struct pieces {
	char	out[16][64];
	int	n;
};

static void
collect(const char *p, size_t len, void *arg)
{
	struct pieces *pc = arg;

	if (pc->n < 16) {
		memcpy(pc->out[pc->n], p, len);
		pc->out[pc->n][len] = '\0';
		pc->n++;
	}
}

static void
test_split(void)
{
	struct pieces pc;
	const char *text = "hello world\r\nsecond line\n\nthird";
	const char *nul = "a\0b";
	const char *utf = "\xc3\xa9\xc3\xa9\xc3\xa9";

	memset(&pc, 0, sizeof(pc));
	message_split(text, strlen(text), 100, collect, &pc);
	is_int(pc.n, 3, "split: CR, LF and blank lines");
	is_str(pc.out[0], "hello world", "split: line 1");
	is_str(pc.out[1], "second line", "split: line 2");
	is_str(pc.out[2], "third", "split: line 3");

	memset(&pc, 0, sizeof(pc));
	message_split("one two three four", 18, 9, collect, &pc);
	is_int(pc.n, 3, "split: long line in three");
	is_str(pc.out[0], "one two ", "split: between words, space kept");
	is_str(pc.out[1], "three ", "split: second piece");
	is_str(pc.out[2], "four", "split: last piece");

	memset(&pc, 0, sizeof(pc));
	message_split(nul, 3, 100, collect, &pc);
	is_int(pc.n, 2, "split: NUL ends a line");

	memset(&pc, 0, sizeof(pc));
	message_split(utf, 6, 8, collect, &pc);
	is_int(pc.n, 1, "split: fits the minimum budget");
	memset(&pc, 0, sizeof(pc));
	message_split("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10, 8, collect, &pc);
	is_int(pc.n, 2, "split: utf8 in two");
	is_int((int)strlen(pc.out[0]), 8, "split: first piece whole sequences");
}

/* +C's test (issue 27): CTCPs but ACTION. */
static void
test_ctcp(void)
{
	ok(message_is_ctcp("\001VERSION\001"), "ctcp: VERSION");
	ok(message_is_ctcp("\001PING 123\001"), "ctcp: PING with an argument");
	ok(message_is_ctcp("\001VERSION"), "ctcp: without the closing \\001");
	ok(message_is_ctcp("\001ACTIONS\001"), "ctcp: ACTIONS is not ACTION");
	ok(!message_is_ctcp("\001ACTION waves\001"), "ctcp: ACTION is allowed");
	ok(!message_is_ctcp("\001action waves\001"), "ctcp: action, any case");
	ok(!message_is_ctcp("\001ACTION\001"), "ctcp: empty ACTION");
	ok(!message_is_ctcp("\001ACTION"), "ctcp: bare ACTION");
	ok(!message_is_ctcp("hello \001VERSION\001"), "ctcp: only at the start");
	ok(!message_is_ctcp(""), "ctcp: empty text");
	ok(!message_is_ctcp(NULL), "ctcp: TAGMSG has no text");
}

int
main(void)
{
	test_ctcp();
	test_parse();
	test_tags();
	test_join();
	test_utf8();
	test_split();
	return tap_done();
}

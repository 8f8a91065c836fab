/*
 * test_mention.c: the one "@name" tokenizer, in a person's message
 * (MENTION_PEOPLE: RT-1, RT-8, AG-2) and in an agent's answer
 * (MENTION_STRICT: MN-1), and its helpers.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/mention.h"
#include "tests/unit/tap.h"

/* The names found, "alice,bob", for compact comparison. */
static const char *
names(const char *text, enum mention_mode mode)
{
	static char buf[1024];
	struct mention_scan s;
	struct mention m;
	char one[256];

	buf[0] = '\0';
	mention_begin(&s, text, mode);
	while (mention_next(&s, &m)) {
		snprintf(one, sizeof(one), "%s%.*s", buf[0] != '\0' ? "," : "",
		    (int)m.len, m.name);
		strlcat(buf, one, sizeof(buf));
	}
	return buf;
}

/* The same with each mention's place: "3:alice" (offset of the '@'). */
static const char *
places(const char *text, enum mention_mode mode)
{
	static char buf[1024];
	struct mention_scan s;
	struct mention m;
	char one[256];

	buf[0] = '\0';
	mention_begin(&s, text, mode);
	while (mention_next(&s, &m)) {
		if (m.name != m.at + 1)
			return "name not after its '@'";
		snprintf(one, sizeof(one), "%s%zu:%.*s",
		    buf[0] != '\0' ? "," : "", (size_t)(m.at - text),
		    (int)m.len, m.name);
		strlcat(buf, one, sizeof(buf));
	}
	return buf;
}

#define people(t)	names((t), MENTION_PEOPLE)
#define strict(t)	names((t), MENTION_STRICT)

static void
test_people(void)
{
	is_str(places("@alice can you look?", MENTION_PEOPLE), "0:alice",
	    "at the start");
	is_str(places("what do you think, @bob?", MENTION_PEOPLE), "19:bob",
	    "at the end, '?' trailing");
	is_str(people("ask @alice, then @bob."), "alice,bob",
	    "',' and '.' end a name; text order");
	is_str(people("@a: @b; @c! @d? @e) @f\" @g' @h> @i*"),
	    "a,b,c,d,e,f,g,h,i", "every closing mark ends a name");
	is_str(people("(@alice) \"@bob\" '@carol' <@dave> *@erin*"),
	    "alice,bob,carol,dave,erin", "( \" ' < * may open a mention");
	is_str(people("\t@alice \x02@bob\x02"), "alice,bob",
	    "control bytes are spaces (tab, IRC bold)");
	is_str(people("@alice's idea"), "alice", "possessive 's ends the name");
	is_str(people("@code-reviewer look"), "code-reviewer",
	    "hyphens belong to the name");
	is_str(people("@a[b] @x{y}|z^_\\` ping"), "a[b],x{y}|z^_\\`",
	    "all the nick characters");
	is_str(people("@ALICE"), "ALICE", "the name as typed");
	is_str(people("@alice @bob @alice"), "alice,bob,alice",
	    "every mention, repeats too (each-once is the caller's)");
}

static void
test_glued(void)
{
	is_str(people("write to sam@alice.com"), "", "sam@alice.com");
	is_str(people("node@20 and x@y"), "", "glued to a word");
	is_str(people("@@alice hello"), "", "@@alice");
	is_str(people("install @alice/pkg now"), "", "@scope/pkg");
	is_str(people("mail @alice@example.org"), "", "@a@host");
	is_str(people("#@alice @bob#x @carol=1 @dave+"), "",
	    "other marks before or after make no mention");
	is_str(people("pkg/@scope"), "", "a path");
	is_str(people("@"), "", "a lone '@'");
	is_str(people("@ alice @. @,"), "", "'@' then no name");
	is_str(people(""), "", "empty text");
	is_str(people("@bob*@carol"), "bob,carol",
	    "the mark that ends one name may open the next");
}

static void
test_utf8(void)
{
	is_str(people("h\xc3\xa9llo @alice \xe2\x80\x94 \xc3\xa7" "a"),
	    "alice", "among UTF-8");
	is_str(people("\xe8\xaf\xb7@alice\xe7\x9c\x8b\xe7\x9c\x8b"), "alice",
	    "people: CJK glued on both sides");
	is_str(people("@alice\xe2\x80\x99s"), "alice",
	    "UTF-8 right after ends a name");
	is_str(strict("\xe8\xaf\xb7@alice\xe7\x9c\x8b"), "",
	    "strict: '@' after UTF-8 is glued to a word");
	is_str(strict("@alice\xe2\x80\x99s"), "alice",
	    "strict: UTF-8 after a name still ends it");
}

/*
 * Where the two scans agent.c had before mention.c (RT-8 and AG-2)
 * read differently from routing, they now read as routing does.
 */
static void
test_one_rule(void)
{
	is_str(people("(@carol)"), "carol", "RT-8: '(' opens, as in routing");
	is_str(people("@carol's"), "carol", "RT-8: quotes end a name");
	is_str(people("\x02@carol\x02"), "carol", "RT-8: formatting");
	is_str(people("\"@bob\" <@bob>"), "bob,bob",
	    "AG-2: quotes and '<' open, as in routing");
	is_str(people("@bob/x @bob@h"), "",
	    "AG-2: a path or address names nobody (it never did)");
}

static void
test_strict(void)
{
	is_str(strict("@bob please review, then @code-reviewer."),
	    "bob,code-reviewer", "plain mentions");
	is_str(strict("sam@host.com pkg/@scope node@20"), "",
	    "MN-1: glued '@' is no mention");
	is_str(strict("(@bob) \"@carol\""), "bob,carol", "opening marks");
	is_str(strict("see `@bob` and @carol"), "carol",
	    "nothing in backticks");
	is_str(strict("``x ` @bob`` @carol"), "carol",
	    "a double-backtick span holds a single one");
	is_str(strict("it`s @bob"), "bob",
	    "an unclosed backtick is plain text");
	is_str(strict("`a\n@bob b`"), "bob",
	    "a code span does not cross lines");
	is_str(strict("```\n@bob\n```\n@carol"), "carol",
	    "nothing in fenced code");
	is_str(strict("```c\n@bob\n```\n@carol"), "carol",
	    "a fence with a language");
	is_str(strict("  ```\n@bob\n\t```\n@carol"), "carol",
	    "indented fences");
	is_str(strict("```@bob\n@carol\n```"), "",
	    "the fence line itself is code");
	is_str(strict("hi @alice\n```\n@bob\nmore @carol"), "alice",
	    "MN-1: an unterminated fence blanks the rest");
	is_str(strict("text ``` @bob"), "bob", "``` mid-line is no fence");
	is_str(strict("```\r\n@bob\r\n```\r\n@carol"), "carol",
	    "CRLF lines");
	is_str(strict("a\n```\n@b\n```\n@c\n```\n@d\n```\n@e"), "c,e",
	    "fences open and close in turn");
	is_str(people("```\n@bob\n```"), "bob",
	    "people: fences are text (routing never read code)");
	is_str(people("see `@bob`"), "", "people: '`' before '@' is glued");
}

static void
test_scan(void)
{
	static const char text[] = "x @a y @b z";
	struct mention_scan s;
	struct mention m;

	mention_begin(&s, text, MENTION_PEOPLE);
	ok(mention_next(&s, &m) && m.at == text + 2 && m.len == 1, "first");
	ok(mention_next(&s, &m) && m.at == text + 7 && m.len == 1, "second");
	ok(!mention_next(&s, &m), "then the end");
	ok(!mention_next(&s, &m), "and the end again");

	mention_begin(&s, text + 7, MENTION_PEOPLE);
	ok(mention_next(&s, &m) && m.at == text + 7,
	    "the start of the scan counts as a space");
}

static void
test_copy(void)
{
	struct mention m = { "@alice", "@alice" + 1, 5 };
	char buf[6], small[5];
	char *big;
	struct mention_scan s;

	is_int(mention_copy(&m, buf, sizeof(buf)), 0, "copy: fits exactly");
	is_str(buf, "alice", "copy: NUL-terminated");
	is_int(mention_copy(&m, small, sizeof(small)), -1,
	    "copy: too long for the buffer");
	is_int(mention_copy(&m, small, 0), -1, "copy: no room at all");

	is_int(mention_namelen("code-reviewer: hi"), 13, "namelen: to ':'");
	is_int(mention_namelen("@x"), 0, "namelen: none");
	is_int(mention_namelen(""), 0, "namelen: empty");

	big = malloc(202);
	memset(big, 'x', 201);
	big[0] = '@';
	big[201] = '\0';
	mention_begin(&s, big, MENTION_PEOPLE);
	ok(mention_next(&s, &m) && m.len == 200, "a 200-character name");
	is_int(mention_copy(&m, buf, sizeof(buf)), -1,
	    "is no nick's name (copy refuses it)");
	free(big);
}

int
main(void)
{
	test_people();
	test_glued();
	test_utf8();
	test_one_rule();
	test_strict();
	test_scan();
	test_copy();
	return tap_done();
}

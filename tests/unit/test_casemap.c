/*
 * test_casemap.c: rfc1459 casefolding, mask matching and nick, channel and
 * user validity, checked against casemap.h and the Modern IRC rules.
 */
#include "compat.h"

#include <string.h>

#include "ircd/casemap.h"
#include "tests/unit/tap.h"

static void
test_lower(void)
{
	int c, bad = 0;

	is_int(casemap_lower('A'), 'a', "lower A");
	is_int(casemap_lower('Z'), 'z', "lower Z");
	is_int(casemap_lower('a'), 'a', "lower a stays");
	/*
	 * rfc1459 (Modern IRC, ISUPPORT CASEMAPPING): {|}~ are the lower
	 * case of [\]^, bytes 0x5b-0x5e.
	 */
	is_int(casemap_lower('['), '{', "lower [ is {");
	is_int(casemap_lower(']'), '}', "lower ] is }");
	is_int(casemap_lower('\\'), '|', "lower \\ is |");
	is_int(casemap_lower('^'), '~', "lower ^ is ~");
	is_int(casemap_lower('{'), '{', "lower { stays");
	is_int(casemap_lower('~'), '~', "lower ~ stays");
	is_int(casemap_lower('_'), '_', "lower _ stays");
	is_int(casemap_lower('`'), '`', "lower ` stays");
	is_int(casemap_lower('@'), '@', "lower @ stays");
	is_int(casemap_lower('0'), '0', "lower 0 stays");
	/* Bytes of UTF-8 sequences are never touched. */
	for (c = 0x80; c <= 0xff; c++)
		if (casemap_lower(c) != c)
			bad++;
	is_int(bad, 0, "high bytes are left alone");
}

static void
test_fold(void)
{
	char buf[64];

	casemap_fold(buf, "NickName", sizeof(buf));
	is_str(buf, "nickname", "fold letters");
	casemap_fold(buf, "[]\\^", sizeof(buf));
	is_str(buf, "{}|~", "fold []\\^ to {}|~");
	casemap_fold(buf, "{}|~", sizeof(buf));
	is_str(buf, "{}|~", "fold keeps {}|~");
	casemap_fold(buf, "#Chan[1]", sizeof(buf));
	is_str(buf, "#chan{1}", "fold a channel name");
	casemap_fold(buf, "", sizeof(buf));
	is_str(buf, "", "fold empty");
	casemap_fold(buf, "caf\xc3\x89", sizeof(buf));
	is_str(buf, "caf\xc3\x89", "fold leaves UTF-8 alone");

	/* Truncation always leaves a terminated string. */
	memset(buf, 'x', sizeof(buf));
	casemap_fold(buf, "ABCDEF", 4);
	is_str(buf, "abc", "fold truncates to size - 1");
	is_int(buf[4], 'x', "fold writes nothing past size");
	memset(buf, 'x', sizeof(buf));
	casemap_fold(buf, "ABC", 1);
	is_str(buf, "", "fold into one byte is empty");

	/* Folding in place is how callers key the dicts. */
	strlcpy(buf, "MiXeD[]", sizeof(buf));
	casemap_fold(buf, buf, sizeof(buf));
	is_str(buf, "mixed{}", "fold in place");
}

static void
test_cmp(void)
{
	is_int(casemap_cmp("nick", "NICK"), 0, "cmp ignores case");
	is_int(casemap_cmp("a[b]\\^", "A{B}|~"), 0, "cmp rfc1459 specials");
	is_int(casemap_cmp("", ""), 0, "cmp empty");
	ok(casemap_cmp("abc", "abd") < 0, "cmp abc < abd");
	ok(casemap_cmp("abd", "ABC") > 0, "cmp abd > ABC");
	ok(casemap_cmp("abc", "abcd") < 0, "cmp prefix is smaller");
	ok(casemap_cmp("abcd", "abc") > 0, "cmp longer is greater");
	ok(casemap_cmp("nick", "nick_") != 0, "cmp differs on _");
	ok(casemap_cmp("a", "") > 0, "cmp vs empty");
}

static void
test_match(void)
{
	ok(casemap_match("*", ""), "* matches empty");
	ok(casemap_match("*", "anything"), "* matches anything");
	ok(!casemap_match("?", ""), "? needs one char");
	ok(casemap_match("?", "x"), "? matches one char");
	ok(!casemap_match("?", "xy"), "? matches only one char");
	ok(casemap_match("", ""), "empty matches empty");
	ok(!casemap_match("", "a"), "empty mask matches only empty");
	ok(casemap_match("abc", "abc"), "literal");
	ok(!casemap_match("abc", "abcd"), "literal is anchored at the end");
	ok(!casemap_match("bcd", "abcd"), "literal is anchored at the start");
	ok(casemap_match("a*", "a"), "a* matches a");
	ok(casemap_match("a*c", "abbbc"), "a*c");
	ok(!casemap_match("a*c", "abbbd"), "a*c not abbbd");
	ok(casemap_match("*ab", "aab"), "*ab backtracks");
	ok(casemap_match("*a*b*", "xxaxxbxx"), "*a*b*");
	ok(casemap_match("**", "x"), "** matches");
	ok(casemap_match("a?c", "abc"), "a?c");
	ok(casemap_match("*?", "x"), "*? matches one");
	ok(!casemap_match("*?", ""), "*? needs one");

	/* Case and rfc1459 folding on both sides. */
	ok(casemap_match("NICK!*@*", "nick!user@host"), "mask case");
	ok(casemap_match("nick!*@*", "NICK!user@HOST"), "string case");
	ok(casemap_match("[a]*", "{A}x"), "rfc1459 specials fold");

	/* Escapes make * and ? literal. */
	ok(casemap_match("a\\*b", "a*b"), "\\* is a literal *");
	ok(!casemap_match("a\\*b", "axb"), "\\* is not a wildcard");
	ok(!casemap_match("a\\*b", "axyb"), "\\* matches no run");
	ok(casemap_match("a\\?b", "a?b"), "\\? is a literal ?");
	ok(!casemap_match("a\\?b", "axb"), "\\? is not a wildcard");
	ok(casemap_match("a\\\\b", "a\\b"), "\\\\ is a literal backslash");

	/* Typical masks. */
	ok(casemap_match("*!*@127.0.0.1", "alice!al@127.0.0.1"), "ban mask");
	ok(!casemap_match("*!*@127.0.0.1", "alice!al@127.0.0.2"), "ban mask no");
	ok(casemap_match("*@*", "user@host"), "oper mask *@*");
	ok(casemap_match("u?er@*.example.org", "USER@a.b.example.org"),
	    "oper mask host");

	/* Must not take exponential time on many stars. */
	ok(!casemap_match("*a*a*a*a*a*a*a*a*a*a*a*a*b",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	    "many stars, no match, in time");
}

static void
test_nick(void)
{
	char n[64];

	ok(casemap_valid_nick("alice", 30), "nick alice");
	ok(casemap_valid_nick("Alice_", 30), "nick Alice_");
	ok(casemap_valid_nick("a1-2", 30), "nick with digits and -");
	ok(casemap_valid_nick("[bot]", 30), "nick starting with [");
	ok(casemap_valid_nick("\\o/", 30) == 0, "nick with / is invalid");
	ok(casemap_valid_nick("`x^{|}", 30), "nick specials");
	ok(casemap_valid_nick("_", 30), "nick _");
	ok(casemap_valid_nick("|", 30), "nick |");
	ok(casemap_valid_nick("x", 30), "one letter nick");
	ok(!casemap_valid_nick("", 30), "empty nick");
	ok(!casemap_valid_nick("1abc", 30), "nick starting with a digit");
	ok(!casemap_valid_nick("-abc", 30), "nick starting with -");
	ok(!casemap_valid_nick("#abc", 30), "nick starting with #");
	ok(!casemap_valid_nick(":abc", 30), "nick starting with :");
	ok(!casemap_valid_nick("$abc", 30), "nick starting with $");
	ok(!casemap_valid_nick("a b", 30), "nick with space");
	ok(!casemap_valid_nick("a,b", 30), "nick with comma");
	ok(!casemap_valid_nick("a*b", 30), "nick with *");
	ok(!casemap_valid_nick("a?b", 30), "nick with ?");
	ok(!casemap_valid_nick("a!b", 30), "nick with !");
	ok(!casemap_valid_nick("a@b", 30), "nick with @");
	ok(!casemap_valid_nick("a.b", 30), "nick with .");
	ok(!casemap_valid_nick("a:b", 30), "nick with :");
	ok(!casemap_valid_nick("a\x07" "b", 30), "nick with BEL");
	ok(!casemap_valid_nick("caf\xc3\xa9", 30), "nick with UTF-8");

	memset(n, 'a', sizeof(n));
	n[30] = '\0';
	ok(casemap_valid_nick(n, 30), "nick of maxlen");
	n[30] = 'a';
	n[31] = '\0';
	ok(!casemap_valid_nick(n, 30), "nick over maxlen");
	ok(!casemap_valid_nick("abcdef", 5), "nick over a small maxlen");
	ok(casemap_valid_nick("abcde", 5), "nick at a small maxlen");
}

static void
test_channel(void)
{
	char n[64];

	ok(casemap_is_channel("#chan"), "is_channel #chan");
	ok(!casemap_is_channel("nick"), "is_channel nick");
	ok(!casemap_is_channel(""), "is_channel empty");

	ok(casemap_valid_channel("#chan", 50), "channel #chan");
	ok(casemap_valid_channel("#Chan-1_[x]", 50), "channel with specials");
	ok(casemap_valid_channel("#caf\xc3\xa9", 50), "channel with UTF-8");
	ok(casemap_valid_channel("##two", 50), "channel ##two");
	ok(!casemap_valid_channel("", 50), "empty channel");
	ok(!casemap_valid_channel("chan", 50), "channel without #");
	ok(!casemap_valid_channel("#a b", 50), "channel with space");
	ok(!casemap_valid_channel("#a,b", 50), "channel with comma");
	ok(!casemap_valid_channel("#a\x07" "b", 50), "channel with BEL");

	memset(n, 'c', sizeof(n));
	n[0] = '#';
	n[50] = '\0';
	ok(casemap_valid_channel(n, 50), "channel of maxlen");
	n[50] = 'c';
	n[51] = '\0';
	ok(!casemap_valid_channel(n, 50), "channel over maxlen");
}

static void
test_user(void)
{
	ok(casemap_valid_user("alice"), "user alice");
	ok(casemap_valid_user("~al.ice-1"), "user with ~ . -");
	ok(!casemap_valid_user(""), "empty user");
	ok(!casemap_valid_user("a b"), "user with space");
	ok(!casemap_valid_user("a@b"), "user with @");
	ok(!casemap_valid_user("a\rb"), "user with CR");
	ok(!casemap_valid_user("a\nb"), "user with LF");
}

int
main(void)
{
	test_lower();
	test_fold();
	test_cmp();
	test_match();
	test_nick();
	test_channel();
	test_user();
	return tap_done();
}

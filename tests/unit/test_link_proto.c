/*
 * test_link_proto.c: spanning-tree lines (ircd/link/link-proto.c) parsed
 * and formatted without a socket: sources, tags, many parameters, ids,
 * CAPAB keys, FJOIN member lists both ways, and what a hostile peer's
 * malformed lines come to.
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/link/link-proto.h"
#include "ircd/mode.h"
#include "tests/unit/tap.h"

static void
test_parse(void)
{
	struct link_msg m;
	char line[1024];
	int i;

	strlcpy(line, "@+typing=active;msgid=x :0ABAAAAAB PRIVMSG #c :hi there",
	    sizeof(line));
	is_int(link_parse(line, &m), 0, "a user's message parses");
	is_str(m.tags, "+typing=active;msgid=x", "tags");
	is_str(m.source, "0ABAAAAAB", "UUID source");
	is_str(m.cmd, "PRIVMSG", "command");
	is_int(m.nparams, 2, "two parameters");
	is_str(m.params[1], "hi there", "trailing parameter");

	strlcpy(line, ":0AB UID 0ABAAAAAB 1700000000 alice host.a host.a "
	    "~alice 127.0.0.1 1700000000 +iB :Alice A", sizeof(line));
	is_int(link_parse(line, &m), 0, "UID parses");
	is_int(m.nparams, 10, "UID: ten parameters");
	is_str(m.params[8], "+iB", "UID modes");
	is_str(m.params[9], "Alice A", "UID realname");

	strlcpy(line, "CAPAB START 1205", sizeof(line));
	is_int(link_parse(line, &m), 0, "no source");
	ok(m.source == NULL && m.nparams == 2, "CAPAB START: no source");

	/* Past a client's 15 parameters, as FMODE may be. */
	strlcpy(line, ":0AB FMODE #c 1 +vvvvvvvvvvvvvvvvvvvv", sizeof(line));
	for (i = 0; i < 20; i++)
		strlcat(line, " 0ABAAAAAB", sizeof(line));
	is_int(link_parse(line, &m), 0, "23 parameters parse");
	is_int(m.nparams, 23, "all 23 kept");

	strlcpy(line, ":0AB X", sizeof(line));
	for (i = 0; i < LINK_MAXPARAMS + 1; i++)
		strlcat(line, " p", sizeof(line));
	is_int(link_parse(line, &m), -1, "too many parameters: malformed");
	strlcpy(line, ":0AB", sizeof(line));
	is_int(link_parse(line, &m), -1, "source alone: malformed");
	strlcpy(line, "   ", sizeof(line));
	is_int(link_parse(line, &m), -1, "empty: malformed");
	strlcpy(line, ": PING x", sizeof(line));
	is_int(link_parse(line, &m), -1, "empty source: malformed");
	strlcpy(line, "PING a\rb", sizeof(line));
	is_int(link_parse(line, &m), -1, "CR inside: malformed");
	strlcpy(line, "PING :", sizeof(line));
	ok(link_parse(line, &m) == 0 && m.nparams == 1 && m.params[0][0] ==
	    '\0', "empty trailing parameter");
}

static void
test_ids(void)
{
	char uuid[LINK_UUIDLEN + 1];
	uint64_t id;

	ok(link_is_sid("0AB") && link_is_sid("999") && !link_is_sid("A00") &&
	    !link_is_sid("0ab") && !link_is_sid("0A") && !link_is_sid("0ABC"),
	    "SIDs");
	ok(link_is_uuid("0ABAAAAAB") && !link_is_uuid("0ABAAAAA") &&
	    !link_is_uuid("0ABAAAAAb") && !link_is_uuid("AABAAAAAB"), "UUIDs");
	ok(link_uuid_make("0AB", 0, uuid), "id 0 fits");
	is_str(uuid, "0ABAAAAAA", "id 0 is AAAAAA, as InspIRCd counts");
	ok(link_uuid_make("0AB", 37, uuid), "id 37 fits");
	is_str(uuid, "0ABAAAABB", "id 37");
	ok(link_uuid_id("0AB", uuid, &id) == 0 && id == 37, "back to 37");
	ok(link_uuid_make("1ZZ", 2176782335ULL, uuid), "36^6-1 fits");
	ok(link_uuid_id("1ZZ", uuid, &id) == 0 && id == 2176782335ULL,
	    "36^6-1 back");
	ok(!link_uuid_make("1ZZ", 2176782336ULL, uuid), "36^6 does not");
	is_int(link_uuid_id("0AC", "0ABAAAAAB", &id), -1,
	    "another server's UUID is not ours");
}

static void
test_capab(void)
{
	const char *caps = "NICKMAX=31 CHANMAX=64 CASEMAPPING=rfc1459 GLOBOPS=1"
	    " FLAG";
	char v[8];

	ok(link_capab_get(caps, "NICKMAX", v, sizeof(v)) && strcmp(v, "31") ==
	    0, "NICKMAX");
	ok(link_capab_get(caps, "CASEMAPPING", v, sizeof(v)) &&
	    strcmp(v, "rfc1459") == 0, "CASEMAPPING truncated to fit");
	ok(link_capab_get(caps, "FLAG", v, sizeof(v)) && v[0] == '\0',
	    "a key without value");
	ok(!link_capab_get(caps, "NICK", v, sizeof(v)), "no prefix match");
	ok(!link_capab_get(caps, "CHALLENGE", v, sizeof(v)), "absent");
}

static void
test_fjoin_parse(void)
{
	struct link_member m;
	const char *s = "o,0ABAAAAAB:1 ,0ABAAAAAC:22 ov,0ABAAAAAD bad "
	    "x,0ABAAAAA:1 qaohv0123456789abcdef,0ABAAAAAE:1 ,0ABAAAAAF:3";

	ok(link_fjoin_next(&s, &m) == 1 && strcmp(m.modes, "o") == 0 &&
	    strcmp(m.uuid, "0ABAAAAAB") == 0, "an op");
	ok(link_fjoin_next(&s, &m) == 1 && m.modes[0] == '\0' &&
	    strcmp(m.uuid, "0ABAAAAAC") == 0, "no prefix");
	ok(link_fjoin_next(&s, &m) == 1 && strcmp(m.modes, "ov") == 0,
	    "two prefixes, no membership id (older peers)");
	is_int(link_fjoin_next(&s, &m), -1, "no comma: malformed");
	is_int(link_fjoin_next(&s, &m), -1, "short UUID: malformed");
	is_int(link_fjoin_next(&s, &m), -1, "too many prefixes: malformed");
	ok(link_fjoin_next(&s, &m) == 1 && strcmp(m.uuid, "0ABAAAAAF") == 0,
	    "the list goes on after bad entries");
	is_int(link_fjoin_next(&s, &m), 0, "the end");
}

static char emitted[8][LINK_OUTMAX + 1];
static int nemitted;

static void
emit(const char *line, size_t len, void *arg)
{
	(void)arg;
	if (nemitted < 8 && len <= LINK_OUTMAX)
		memcpy(emitted[nemitted++], line, len + 1);
}

static void
test_fjoin_format(void)
{
	struct link_fjoin f;
	char uuid[LINK_UUIDLEN + 1];
	const char *s;
	struct link_member m;
	int i, n, total;

	nemitted = 0;
	link_fjoin_begin(&f, "0AB", "#c", 1700000000, "+nt", emit, NULL);
	link_fjoin_add(&f, "o", "0ABAAAAAB", 1);
	link_fjoin_add(&f, "", "0ABAAAAAC", 2);
	is_int(link_fjoin_end(&f), 1, "one line");
	is_str(emitted[0], ":0AB FJOIN #c 1700000000 +nt :o,0ABAAAAAB:1 "
	    ",0ABAAAAAC:2", "the FJOIN line");

	nemitted = 0;
	link_fjoin_begin(&f, "0AB", "#c", 1, "", emit, NULL);
	is_int(link_fjoin_end(&f), 0, "no members, no line");

	nemitted = 0;
	link_fjoin_begin(&f, "0AB", "#c", 1, "+n", emit, NULL);
	for (i = 0; i < 100; i++) {
		link_uuid_make("0AB", (uint64_t)i, uuid);
		link_fjoin_add(&f, "v", uuid, (unsigned long long)i);
	}
	n = link_fjoin_end(&f);
	ok(n > 1 && n == nemitted, "100 members: several lines");
	total = 0;
	for (i = 0; i < nemitted; i++) {
		ok(strlen(emitted[i]) <= LINK_OUTMAX, "line within 510");
		ok(strncmp(emitted[i], ":0AB FJOIN #c 1 +n :", 20) == 0,
		    "each line has the head");
		s = emitted[i] + 20;
		while (link_fjoin_next(&s, &m) == 1)
			total++;
	}
	is_int(total, 100, "every member once");
}

static void
test_tags(void)
{
	char out[64];

	link_tags_client("msgid=x;+typing=active;time=y;+draft/reply=z", out,
	    sizeof(out));
	is_str(out, "+typing=active;+draft/reply=z", "client tags kept");
	link_tags_client("msgid=x;time=y", out, sizeof(out));
	is_str(out, "", "no client tags");
	link_tags_client("+a=0123456789012345678901234567890123456789"
	    "01234567890123456789"
	    "0123456789;+b", out, sizeof(out));
	is_str(out, "+b", "a tag too long for the room is left out");
}

static void
test_tag_ids(void)
{
	char id[64], small[8];
	int64_t t;

	link_tags_ids("+typing=active;msgid=1IN~1733500000~42;"
	    "time=2024-12-06T14:35:05.123Z", id, sizeof(id), &t);
	is_str(id, "1IN~1733500000~42", "InspIRCd's msgid kept");
	ok(t == 1733495705123LL, "time as Unix milliseconds");
	link_tags_ids("+typing=active", id, sizeof(id), &t);
	ok(id[0] == '\0' && t == 0, "no msgid, no time");
	link_tags_ids(NULL, id, sizeof(id), &t);
	ok(id[0] == '\0' && t == 0, "no tags");
	link_tags_ids("msgid=a\\sb", id, sizeof(id), &t);
	is_str(id, "", "an escaped msgid is refused");
	link_tags_ids("msgid=", id, sizeof(id), &t);
	is_str(id, "", "an empty msgid is refused");
	link_tags_ids("msgid=x\x01y", id, sizeof(id), &t);
	is_str(id, "", "a control character is refused");
	link_tags_ids("msgid=\xc3\xa9", id, sizeof(id), &t);
	is_str(id, "", "a byte past ASCII is refused");
	link_tags_ids("msgid=12345678", small, sizeof(small), &t);
	is_str(small, "", "a msgid longer than the room is refused");
	link_tags_ids("msgid=1234567", small, sizeof(small), &t);
	is_str(small, "1234567", "a msgid that fits is kept");
	ok(link_time_parse("1970-01-01T00:00:00.000Z", 24) == 0,
	    "the epoch is 0");
	ok(link_time_parse("2000-03-01T00:00:01.002Z", 24) ==
	    951868801002LL, "after a leap day");
	ok(link_time_parse("2024-02-30T00:00:00.000Z", 24) == 0,
	    "no 30 February");
	ok(link_time_parse("2024-12-06T14:35:05Z", 20) == 0,
	    "no milliseconds: malformed");
	ok(link_time_parse("2024-12-06T25:35:05.000Z", 24) == 0,
	    "hour 25: malformed");
	ok(link_time_parse("2024-12-06 14:35:05.000Z", 24) == 0,
	    "no T: malformed");
	ok(link_time_parse("20x4-12-06T14:35:05.000Z", 24) == 0,
	    "not a digit: malformed");
}

static void
test_chanmodes(void)
{
	const char *cm = "list:ban=b param-set:limit=l param:key=k "
	    "prefix:10000:voice=+v prefix:30000:op=@o simple:noextmsg=n "
	    "list:banexception=e simple:c";

	is_int(link_chanmode_type(cm, 'b'), MODE_LIST, "b: a list");
	is_int(link_chanmode_type(cm, 'e'), MODE_LIST, "e: a list");
	is_int(link_chanmode_type(cm, 'l'), MODE_SETONLY, "l: on set");
	is_int(link_chanmode_type(cm, 'k'), MODE_ALWAYS, "k: always");
	is_int(link_chanmode_type(cm, 'o'), MODE_PREFIX, "o: a prefix");
	is_int(link_chanmode_type(cm, 'v'), MODE_PREFIX, "v: a prefix");
	is_int(link_chanmode_type(cm, 'n'), MODE_FLAG, "n: simple");
	is_int(link_chanmode_type(cm, 'c'), MODE_UNKNOWN,
	    "no =letter: not a mode");
	is_int(link_chanmode_type(cm, 'z'), MODE_UNKNOWN, "z: not listed");
	is_int(link_chanmode_type("", 'b'), MODE_UNKNOWN, "empty list");
	is_int(link_chanmode_type("odd:x=q", 'q'), MODE_UNKNOWN,
	    "an unknown kind");
}

int
main(void)
{
	test_parse();
	test_ids();
	test_capab();
	test_fjoin_parse();
	test_fjoin_format();
	test_tags();
	test_tag_ids();
	test_chanmodes();
	return tap_done();
}

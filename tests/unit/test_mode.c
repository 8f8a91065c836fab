/*
 * test_mode.c: mode_chan_type and mode_parse, the pure half of MODE:
 * which letters take a parameter and how parameters line up with them.
 */
#include "compat.h"

#include <stdio.h>

#include "ircd/mode.h"
#include "tests/unit/tap.h"

static struct mode_change ch[MODE_MAXCHANGES];

static int
parse(const char *modes, const char *const *args, int nargs)
{
	return mode_parse(modes, args, nargs, mode_chan_type, ch,
	    MODE_MAXCHANGES);
}

/* One change rendered as "+o:alice" or "+n" for compact comparison. */
static const char *
fmt(int i)
{
	static char buf[8][64];
	static int slot;
	char *b = buf[slot++ % 8];

	snprintf(b, 64, "%c%c%s%s", ch[i].dir, ch[i].letter,
	    ch[i].arg ? ":" : "", ch[i].arg ? ch[i].arg : "");
	return b;
}

static void
test_types(void)
{
	is_int(mode_chan_type('b'), MODE_LIST, "b is a list mode");
	is_int(mode_chan_type('e'), MODE_LIST, "e is a list mode");
	is_int(mode_chan_type('I'), MODE_LIST, "I is a list mode");
	is_int(mode_chan_type('C'), MODE_FLAG, "C is a flag");
	is_int(mode_chan_type('k'), MODE_ALWAYS, "k always takes a parameter");
	is_int(mode_chan_type('l'), MODE_SETONLY, "l takes one to set");
	is_int(mode_chan_type('i'), MODE_FLAG, "i is a flag");
	is_int(mode_chan_type('m'), MODE_FLAG, "m is a flag");
	is_int(mode_chan_type('n'), MODE_FLAG, "n is a flag");
	is_int(mode_chan_type('s'), MODE_FLAG, "s is a flag");
	is_int(mode_chan_type('t'), MODE_FLAG, "t is a flag");
	is_int(mode_chan_type('o'), MODE_PREFIX, "o is a prefix");
	is_int(mode_chan_type('v'), MODE_PREFIX, "v is a prefix");
	is_int(mode_chan_type('x'), MODE_UNKNOWN, "x is unknown");
	is_int(mode_chan_type('O'), MODE_UNKNOWN, "O is unknown (case matters)");
	is_int(mode_chan_type('+'), MODE_UNKNOWN, "+ is no letter");
}

static void
test_parse(void)
{
	const char *a1[] = { "a", "b", "key" };
	const char *a2[] = { "10" };
	const char *a3[] = { "alice" };
	const char *a4[] = { "key", "5" };
	const char *a5[] = { "5", "key" };
	const char *a6[] = { "*!*@evil", "alice", "extra" };
	const char *many[40];
	char big[80];
	int i, n;

	n = parse("+nt", NULL, 0);
	is_int(n, 2, "+nt: two changes");
	is_str(fmt(0), "+n", "+nt: +n");
	is_str(fmt(1), "+t", "+nt: +t");

	n = parse("+ov-k", a1, 3);
	is_int(n, 3, "+ov-k a b key: three changes");
	is_str(fmt(0), "+o:a", "+ov-k: +o a");
	is_str(fmt(1), "+v:b", "+ov-k: +v b");
	is_str(fmt(2), "-k:key", "+ov-k: -k key");

	n = parse("+l", a2, 1);
	is_int(n, 1, "+l 10: one change");
	is_str(fmt(0), "+l:10", "+l 10: the limit");

	n = parse("-l", a2, 1);
	is_int(n, 1, "-l: one change");
	is_str(fmt(0), "-l", "-l takes no parameter even when one is there");

	n = parse("+k", NULL, 0);
	is_int(n, 1, "+k without key: still one change");
	is_str(fmt(0), "+k", "+k without key: arg NULL");
	ok(ch[0].arg == NULL, "+k without key: arg is NULL");

	n = parse("-k", NULL, 0);
	is_int(n, 1, "-k without key: one change");
	ok(ch[0].arg == NULL, "-k without key: arg NULL");

	n = parse("+b", NULL, 0);
	is_int(n, 1, "+b alone: one change");
	ok(ch[0].letter == 'b' && ch[0].dir == '+' && ch[0].arg == NULL,
	    "+b alone: list query (arg NULL)");

	n = parse("b", NULL, 0);
	is_int(n, 1, "b without sign: one change");
	is_str(fmt(0), "+b", "no sign means +");

	n = parse("+x", a3, 1);
	is_int(n, 1, "+x: reported");
	ok(ch[0].letter == 'x' && ch[0].arg == NULL,
	    "+x: unknown letter, no parameter consumed");

	n = parse("+xo", a3, 1);
	is_int(n, 2, "+xo alice: two changes");
	is_str(fmt(1), "+o:alice", "+xo: unknown x does not steal o's nick");

	n = parse("+-+o", a3, 1);
	is_int(n, 1, "+-+o: one change");
	is_str(fmt(0), "+o:alice", "+-+o: last sign wins");

	n = parse("-+-", NULL, 0);
	is_int(n, 0, "signs only: nothing");

	n = parse("", NULL, 0);
	is_int(n, 0, "empty string: nothing");

	n = parse("+kl", a4, 2);
	is_int(n, 2, "+kl key 5: two");
	is_str(fmt(0), "+k:key", "+kl: key first");
	is_str(fmt(1), "+l:5", "+kl: limit second");

	n = parse("+lk", a5, 2);
	is_str(fmt(0), "+l:5", "+lk: limit first");
	is_str(fmt(1), "+k:key", "+lk: key second");

	n = parse("+kl", a4, 1);
	is_int(n, 2, "+kl with one arg: two changes");
	is_str(fmt(0), "+k:key", "+kl one arg: k gets it");
	is_str(fmt(1), "+l", "+kl one arg: l gets none");

	n = parse("-lk", a4, 2);
	is_str(fmt(0), "-l", "-lk: -l takes none");
	is_str(fmt(1), "-k:key", "-lk: -k takes the first");

	n = parse("+b-o+v", a6, 3);
	is_int(n, 3, "+b-o+v: three");
	is_str(fmt(0), "+b:*!*@evil", "+b-o+v: ban mask");
	is_str(fmt(1), "-o:alice", "+b-o+v: -o alice");
	is_str(fmt(2), "+v:extra", "+b-o+v: +v extra");

	n = parse("+o", a6, 3);
	is_int(n, 1, "extra params are ignored");

	n = parse("+imnst-imnst", NULL, 0);
	is_int(n, 10, "ten flags");
	is_str(fmt(4), "+t", "fifth is +t");
	is_str(fmt(5), "-i", "sixth is -i");

	/* Too many: capped at max, the rest dropped. */
	for (i = 0; i < 40; i++)
		many[i] = "n";
	big[0] = '+';
	for (i = 1; i < 41; i++)
		big[i] = 'v';
	big[41] = '\0';
	n = parse(big, many, 40);
	is_int(n, MODE_MAXCHANGES, "capped at MODE_MAXCHANGES");
	n = mode_parse("+ntmsi", NULL, 0, mode_chan_type, ch, 3);
	is_int(n, 3, "capped at max given");
	is_str(fmt(2), "+m", "cap keeps the first ones");
	n = mode_parse("+nt", NULL, 0, mode_chan_type, ch, 0);
	is_int(n, 0, "max 0: nothing");
	n = mode_parse(NULL, NULL, 0, mode_chan_type, ch, 3);
	is_int(n, 0, "NULL string: nothing");
}

/* The one letter <-> CMODE_* table, both ways. */
static void
test_flags(void)
{
	char buf[8];

	is_int(mode_chan_flag('n'), CMODE_NOEXTERNAL, "n is CMODE_NOEXTERNAL");
	is_int(mode_chan_flag('t'), CMODE_TOPICLOCK, "t is CMODE_TOPICLOCK");
	is_int(mode_chan_flag('m'), CMODE_MODERATED, "m is CMODE_MODERATED");
	is_int(mode_chan_flag('s'), CMODE_SECRET, "s is CMODE_SECRET");
	is_int(mode_chan_flag('i'), CMODE_INVITEONLY, "i is CMODE_INVITEONLY");
	is_int(mode_chan_flag('k'), 0, "k is no flag");
	is_int(mode_chan_flag('\0'), 0, "NUL is no flag");
	is_int(mode_chan_flags("+nt-s"), CMODE_NOEXTERNAL | CMODE_TOPICLOCK |
	    CMODE_SECRET, "flags: every letter, signs ignored");
	is_int(mode_chan_flags(NULL), 0, "flags of NULL: none");
	mode_chan_letters(CMODE_TOPICLOCK | CMODE_NOEXTERNAL | CMODE_INVITEONLY,
	    buf, sizeof(buf));
	is_str(buf, "int", "letters in alphabetical order");
	mode_chan_letters(mode_chan_flags("tsnmi"), buf, sizeof(buf));
	is_str(buf, "imnst", "letters of every flag");
	mode_chan_letters(mode_chan_flags("tsnmi"), buf, 3);
	is_str(buf, "im", "letters cut to the buffer");
	mode_chan_letters(0, buf, sizeof(buf));
	is_str(buf, "", "no flags, no letters");
	mode_chan_letters(mode_chan_flags("tCn"), buf, sizeof(buf));
	is_str(buf, "Cnt", "C first, in ASCII order");
}

int
main(void)
{
	test_types();
	test_parse();
	test_flags();
	return tap_done();
}

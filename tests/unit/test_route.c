/*
 * test_route.c: route_decide, who answers a human's channel message
 * (RT-1..RT-6, RT-8): mentions, addresses, prefixes, fallbacks (a desk,
 * follow-ups in a shared channel), bots, rewrite.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircd/bridge/mention.h"
#include "ircd/bridge/route.h"
#include "tests/unit/tap.h"

static const char *const three[] = { "alice", "bob", "architect" };
static const char *const people[] = { "carol", "dave" };
static const char *const solo[] = { "solo" };

static struct route_result r;
static struct route_names nm;

static void
names(const char *const *agents, size_t na, const char *const *humans,
    size_t nh, const char *last)
{
	nm.agents = agents;
	nm.nagents = na;
	nm.humans = humans;
	nm.nhumans = nh;
	nm.last_speaker = last;
	/* The first rules' setting: one person alone with agents. */
	nm.desk = 1;
	nm.follow_up = NULL;
	nm.exact = 0;
}

static void
decide(const char *text)
{
	route_result_free(&r);
	route_decide(text, &nm, &r);
}

/* The dispatched agents by name, "alice,bob", for compact comparison. */
static const char *
who(void)
{
	static char buf[256];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < r.nagents; i++) {
		if (i > 0)
			strlcat(buf, ",", sizeof(buf));
		strlcat(buf, nm.agents[r.agents[i]], sizeof(buf));
	}
	return buf;
}

/*
 * The @names route's scan (mention.c) finds in text, "carol,dave". Route
 * keeps no list of the humans it resolved (nothing read it); what it
 * does with them shows in its outcome.
 */
static const char *
mentioned(const char *text)
{
	static char buf[256];
	struct mention_scan s;
	struct mention m;
	char one[64];

	buf[0] = '\0';
	mention_begin(&s, text, MENTION_PEOPLE);
	while (mention_next(&s, &m)) {
		snprintf(one, sizeof(one), "%s%.*s", buf[0] ? "," : "",
		    (int)m.len, m.name);
		strlcat(buf, one, sizeof(buf));
	}
	return buf;
}

static const char *
candidates(void)
{
	static char buf[256];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < r.ncandidates; i++) {
		if (i > 0)
			strlcat(buf, ",", sizeof(buf));
		strlcat(buf, nm.agents[r.candidates[i]], sizeof(buf));
	}
	return buf;
}

static void
test_mentions(void)
{
	names(three, 3, people, 2, NULL);

	decide("@alice can you look at this?");
	is_int(r.outcome, ROUTE_DISPATCH, "@alice dispatches");
	is_str(who(), "alice", "@alice reaches alice");
	is_str(r.text, "alice can you look at this?", "the '@' is dropped");

	decide("what do you think, @bob?");
	is_str(who(), "bob", "mention at the end, '?' trailing");
	is_str(r.text, "what do you think, bob?", "trailing '?' kept");

	decide("ask @alice, then @bob.");
	is_str(who(), "alice,bob", "trailing ',' and '.' end a name");
	is_str(r.text, "ask alice, then bob.", "both '@' dropped");

	decide("(@alice) please check");
	is_str(who(), "alice", "'(' may open a mention");
	is_str(r.text, "(alice) please check", "the parentheses stay");

	decide("@ALICE wake up");
	is_str(who(), "alice", "case-insensitive");
	is_str(r.text, "ALICE wake up", "the name is kept as typed");

	decide("@bob and @alice, review");
	is_str(who(), "bob,alice", "RT-2: order of first mention");

	decide("@alice @bob @alice @ALICE please");
	is_str(who(), "alice,bob", "RT-2: each once");
	is_str(r.text, "alice bob alice ALICE please", "every '@' dropped");

	decide("write to sam@alice.com about it");
	is_int(r.outcome, ROUTE_CHOOSE, "glued '@' is no mention");
	is_str(r.text, "write to sam@alice.com about it", "address untouched");

	decide("@@alice hello");
	ok(r.outcome != ROUTE_NONE, "@@alice is no mention, text routes on");
	is_str(r.text, "@@alice hello", "@@alice untouched");

	decide("install @alice/pkg now");
	is_str(r.text, "install @alice/pkg now", "@scope/pkg is no mention");

	decide("mail @alice@example.org");
	is_str(r.text, "mail @alice@example.org", "@a@host is no mention");

	decide("\x02@alice\x02 bold question");
	is_str(who(), "alice", "IRC formatting around a mention");
	is_str(r.text, "\x02" "alice\x02 bold question", "formatting kept");

	decide("@alice's idea is good, thoughts?");
	is_str(who(), "alice", "possessive 's ends the name");
}

static void
test_address(void)
{
	names(three, 3, people, 2, NULL);

	decide("alice: hi there");
	is_int(r.outcome, ROUTE_DISPATCH, "leading 'alice:' dispatches");
	is_str(who(), "alice", "leading address reaches alice");
	is_str(r.text, "hi there", "RT-5: the address is removed");

	decide("Bob, please review");
	is_str(who(), "bob", "leading 'Bob,' reaches bob");
	is_str(r.text, "please review", "the 'nick,' address is removed");

	decide("  alice:   spaced out");
	is_str(r.text, "spaced out", "spaces around the address go too");

	decide("alice:hi");
	is_str(r.text, "alice:hi", "'alice:hi' is one word, no address");

	decide("@alice: look");
	is_str(who(), "alice", "'@alice:' is an address too");
	is_str(r.text, "look", "and is removed");

	decide("so, what now");
	is_str(r.text, "so, what now", "an unknown first word stays");

	decide("arch: plan it");
	is_str(r.text, "arch: plan it", "a bare address needs the full name");
	is_int(r.outcome, ROUTE_CHOOSE, "so nobody is addressed");

	decide("@arch: plan it");
	is_str(who(), "architect", "'@arch:' takes a prefix");
	is_str(r.text, "plan it", "and is removed");

	decide("alice: ask @bob too");
	is_str(who(), "alice,bob", "address then mention, in order");
	is_str(r.text, "ask bob too", "address and '@' both go");

	decide("hey alice: hi");
	is_str(r.text, "hey alice: hi", "only the first word is an address");
	is_int(r.outcome, ROUTE_CHOOSE, "a later 'alice:' is not");
}

static void
test_matching(void)
{
	static const char *const brackets[] = { "a{b}", "zed" };
	static const char *const aa[] = { "alice", "amy", "bob" };
	static const char *const exact[] = { "alice", "al" };
	static const char *const many[] = { "ann", "anna", "annie" };

	names(three, 3, NULL, 0, NULL);
	decide("@arch what do you think");
	is_str(who(), "architect", "RT-1: @arch reaches architect");
	is_str(r.text, "arch what do you think", "prefix kept as typed");

	names(brackets, 2, NULL, 0, NULL);
	decide("@a[b] ping");
	is_str(who(), "a{b}", "rfc1459: [] fold to {}");
	decide("@A[B] ping");
	is_str(who(), "a{b}", "rfc1459 and case together");

	names(aa, 3, NULL, 0, NULL);
	decide("@a what now");
	is_int(r.outcome, ROUTE_AMBIGUOUS, "@a fits alice and amy");
	is_str(r.word, "a", "the ambiguous word");
	is_str(candidates(), "alice,amy", "the candidates, in name order");
	is_int(r.nagents, 0, "ambiguity dispatches nothing");
	ok(r.text != NULL, "text is set on ambiguity");

	decide("@bob and @A, look");
	is_int(r.outcome, ROUTE_AMBIGUOUS, "one ambiguous word stops all");
	is_int(r.nagents, 0, "not even bob");
	is_str(r.word, "A", "the word as typed");

	decide("@am hi");
	is_str(who(), "amy", "a longer prefix is unique");

	names(exact, 2, NULL, 0, NULL);
	decide("@al hello");
	is_int(r.outcome, ROUTE_DISPATCH, "exact name wins over prefix");
	is_str(who(), "al", "@al reaches al, not alice");
	decide("@ali hello");
	is_str(who(), "alice", "@ali reaches alice");

	names(many, 3, NULL, 0, NULL);
	decide("@ann hi");
	is_str(who(), "ann", "exact ann among ann/anna/annie");
	decide("@anni hi");
	is_str(who(), "annie", "unique prefix annie");
	decide("@an hi");
	is_str(candidates(), "ann,anna,annie", "three candidates");

	names(three, 3, NULL, 0, NULL);
	decide("@zoe hi");
	is_str(r.text, "@zoe hi", "an unknown @word stays as typed");
	is_int(r.outcome, ROUTE_CHOOSE, "and addresses nobody");

	decide("@alicex hi");
	is_str(r.text, "@alicex hi", "a longer word is no match");
}

static void
test_fallback(void)
{

	names(three, 3, NULL, 0, "bob");
	decide("any ideas?");
	is_int(r.outcome, ROUTE_DISPATCH, "RT-3: last speaker");
	is_str(who(), "bob", "the last speaker answers");
	is_str(r.text, "any ideas?", "text unchanged");

	names(three, 3, NULL, 0, "BOB");
	decide("and then?");
	is_str(who(), "bob", "last speaker matched casefolded");

	names(three, 3, NULL, 0, "gone");
	decide("and then?");
	is_int(r.outcome, ROUTE_CHOOSE, "absent last speaker is ignored");

	names(three, 3, NULL, 0, "bob");
	decide("@alice take this one");
	is_str(who(), "alice", "a mention beats the last speaker");

	names(solo, 1, NULL, 0, NULL);
	decide("hello");
	is_int(r.outcome, ROUTE_DISPATCH, "one agent: it answers");
	is_str(who(), "solo", "the only agent");

	names(three, 3, NULL, 0, NULL);
	decide("hello");
	is_int(r.outcome, ROUTE_CHOOSE, "several agents, none spoke: choose");
	is_int(r.nagents, 0, "choose dispatches nothing");

	names(NULL, 0, people, 2, NULL);
	decide("hello");
	is_int(r.outcome, ROUTE_NONE, "no agents: none");
	is_str(r.text, "hello", "text set on none");
}

/* RT-3 revised: a channel shared by people. */
static void
test_shared_channel(void)
{
	names(three, 3, people, 2, "bob");
	nm.desk = 0;
	decide("hey, want to grab lunch later?");
	is_int(r.outcome, ROUTE_NONE, "RT-3: people talking to people");
	is_int(r.nagents, 0, "nothing dispatched, not even to the last "
	    "speaker");
	is_str(r.text, "hey, want to grab lunch later?", "text set on none");

	names(solo, 1, people, 2, NULL);
	nm.desk = 0;
	decide("hello");
	is_int(r.outcome, ROUTE_NONE, "the only agent is not guessed at "
	    "either");

	names(three, 3, people, 2, NULL);
	nm.desk = 0;
	decide("any ideas?");
	is_int(r.outcome, ROUTE_NONE, "several agents: no NOTICE to choose");

	names(three, 3, people, 2, "bob");
	nm.desk = 0;
	nm.follow_up = "alice";
	decide("and what about the parser?");
	is_int(r.outcome, ROUTE_DISPATCH, "RT-3: a follow-up");
	is_str(who(), "alice", "to the agent that answered the author, not "
	    "the last speaker");
	decide("@bob and you?");
	is_str(who(), "bob", "a mention beats the follow-up");
	decide("@carol what do you think?");
	is_int(r.outcome, ROUTE_NONE, "RT-8: a person named, no follow-up");
	is_int(r.human, 1, "the human is flagged");

	names(three, 3, people, 2, NULL);
	nm.desk = 0;
	nm.follow_up = "gone";
	decide("still there?");
	is_int(r.outcome, ROUTE_NONE, "a follow-up to an agent that left");

	/* At a desk, the follow-up comes first too. */
	names(three, 3, NULL, 0, "bob");
	nm.follow_up = "alice";
	decide("more");
	is_str(who(), "alice", "desk: follow-up before the last speaker");
}

/* UX review 22: an @word that names nobody is kept for the hint. */
static void
test_unknown(void)
{
	names(three, 3, people, 2, NULL);
	decide("@zzz hi");
	is_int(r.outcome, ROUTE_CHOOSE, "a desk, nobody named: choose");
	is_str(r.unknown, "zzz", "the unknown name is kept");
	decide("hi @alice and @zzz");
	is_str(r.unknown, "zzz", "kept beside a known one");
	is_str(who(), "alice", "the known one answers");
	decide("hi there");
	is_str(r.unknown, "", "no @word, nothing kept");
}

/* RT-6: a bot names an agent exactly, or reaches none. */
static void
test_bot(void)
{
	names(three, 3, people, 2, "bob");
	nm.exact = 1;
	nm.follow_up = "bob";
	decide("build 42 failed");
	is_int(r.outcome, ROUTE_NONE, "RT-6: a bot follows nothing up");
	decide("@bob build 42 failed");
	is_int(r.outcome, ROUTE_DISPATCH, "RT-6: a bot naming an agent");
	is_str(who(), "bob", "exactly that agent");
	is_str(r.text, "bob build 42 failed", "RT-5 for bots too");
	decide("architect: review PR 7");
	is_str(who(), "architect", "a bot's address");
	decide("@arch review PR 7");
	is_int(r.outcome, ROUTE_NONE, "no prefixes for bots");
	is_int(r.ncandidates, 0, "and no candidates");
	decide("@BOB again");
	is_str(who(), "bob", "an exact name in another case");
	nm.desk = 1;
	decide("hello?");
	is_int(r.outcome, ROUTE_NONE, "no desk guesses for a bot");
}

static void
test_only_mentions(void)
{
	names(three, 3, people, 2, "bob");

	decide("@alice");
	is_int(r.outcome, ROUTE_NONE, "RT-4: '@alice' alone");
	is_int(r.nagents, 0, "nothing dispatched");
	is_str(r.text, "alice", "text still rewritten");
	decide("@alice @bob");
	is_int(r.outcome, ROUTE_NONE, "RT-4: '@alice @bob'");
	decide("alice:");
	is_int(r.outcome, ROUTE_NONE, "RT-4: 'alice:'");
	is_str(r.text, "", "address removed leaves nothing");
	decide("@alice, @bob!");
	is_int(r.outcome, ROUTE_NONE, "RT-4: punctuation is not a message");
	decide("alice: @carol");
	is_int(r.outcome, ROUTE_NONE, "RT-4: agent and human only");

	decide("");
	is_int(r.outcome, ROUTE_NONE, "empty text");
	is_str(r.text, "", "empty text copied");
	decide("    ");
	is_int(r.outcome, ROUTE_NONE, "only spaces");
	is_str(r.text, "    ", "spaces copied");

	decide("@");
	is_int(r.outcome, ROUTE_DISPATCH, "a lone '@' is text, last speaker");
	is_str(r.text, "@", "lone '@' kept");
	decide("@zoe");
	is_str(who(), "bob", "an unknown @word is text, last speaker");
}

static void
test_humans(void)
{
	static const char *const both[] = { "carol", "alice" };

	names(three, 3, people, 2, "bob");

	decide("@carol can you have a look?");
	is_int(r.outcome, ROUTE_NONE, "RT-8: a human mention dispatches none");
	is_int(r.nagents, 0, "not the last speaker either");
	is_str(mentioned("@carol can you have a look?"), "carol",
	    "carol recorded: the one mention is hers");
	is_str(r.text, "carol can you have a look?", "'@' dropped");

	decide("dave: are you there?");
	is_int(r.outcome, ROUTE_NONE, "RT-8: leading human address");
	is_str(who(), "", "dave recorded: a human, so not the last speaker");
	is_str(r.text, "are you there?", "human address removed");

	decide("@CAROL and @dave and @carol, meeting?");
	is_int(r.outcome, ROUTE_NONE, "humans only: nobody answers");
	is_str(mentioned("@CAROL and @dave and @carol, meeting?"),
	    "CAROL,dave,carol", "humans, in order");

	decide("@car hello");
	is_int(r.outcome, ROUTE_DISPATCH, "no prefixes for humans");
	is_str(r.text, "@car hello", "so @car stays");
	is_str(who(), "bob", "and routes as plain text");

	decide("@carol and @alice, please sync");
	is_int(r.outcome, ROUTE_DISPATCH, "agent and human: agent answers");
	is_str(who(), "alice", "alice dispatched");
	is_str(mentioned("@carol and @alice, please sync"), "carol,alice",
	    "carol still mentioned");

	names(three, 3, both, 2, NULL);
	decide("@alice do it");
	is_str(who(), "alice", "an agent's name beats a human's");
	is_int(r.outcome, ROUTE_DISPATCH, "the human is not taken");

	{
		static const char *const arch[] = { "arch" };

		names(three, 3, arch, 1, NULL);
		decide("@arch hi");
		is_int(r.outcome, ROUTE_NONE,
		    "a human's exact name beats an agent prefix");
		is_int(r.nagents, 0, "human arch taken, not architect");
	}
}

static void
test_text(void)
{
	static const char *const many[] = { "a0", "a1", "a2", "a3", "a4",
	    "a5", "a6", "a7", "a8", "a9" };
	char *big;
	size_t i;

	names(three, 3, NULL, 0, NULL);
	decide("h\xc3\xa9llo @alice \xe2\x80\x94 \xc3\xa7" "a va ?");
	is_str(who(), "alice", "mention among UTF-8");
	is_str(r.text, "h\xc3\xa9llo alice \xe2\x80\x94 \xc3\xa7" "a va ?",
	    "UTF-8 around a mention intact");

	decide("\xe8\xaf\xb7@alice\xe7\x9c\x8b\xe7\x9c\x8b");
	is_str(who(), "alice", "CJK glued to '@' is a mention");
	is_str(r.text, "\xe8\xaf\xb7" "alice\xe7\x9c\x8b\xe7\x9c\x8b",
	    "CJK intact");

	big = malloc(10241);
	for (i = 0; i < 10240; i++)
		big[i] = "lorem ipsum "[i % 12];
	memcpy(big + 5000, " @bob ", 6);
	memcpy(big + 10234, " @arch", 6);
	big[10240] = '\0';
	decide(big);
	is_str(who(), "bob,architect", "10 KB text: both mentions");
	is_int(strlen(r.text), 10238, "10 KB text: two '@' dropped");
	free(big);

	names(many, 10, NULL, 0, NULL);
	decide("@a9 @a8 @a7 @a6 @a5 @a4 @a3 @a2 @a1 @a0 all of you");
	is_int(r.nagents, ROUTE_MAX, "capped at ROUTE_MAX");
	is_str(who(), "a9,a8,a7,a6,a5,a4,a3,a2", "first ROUTE_MAX, in order");
	is_str(r.text, "a9 a8 a7 a6 a5 a4 a3 a2 a1 a0 all of you",
	    "every resolved '@' dropped");
	decide("@a say hi");
	is_int(r.ncandidates, ROUTE_MAX, "candidates capped at ROUTE_MAX");

	names(three, 3, NULL, 0, NULL);
	big = malloc(201);
	memset(big, 'x', 200);
	big[0] = '@';
	big[200] = '\0';
	decide(big);
	is_str(r.text, big, "a 199-character @word is left alone");
	free(big);

	route_result_free(&r);
	ok(r.text == NULL, "route_result_free clears text");
	route_result_free(&r);
	ok(1, "route_result_free twice is harmless");
}

/* MN-6: named agents carry the Summons block; those reached otherwise not. */
static void
test_named(void)
{
	static const struct {
		const char	*text;
		const char	*follow_up;
		int		 desk;
		const char	*who;
		int		 named;
		const char	*name;
	} cases[] = {
		{ "@alice look", NULL, 0, "alice", 1, "named: @mention" },
		{ "bob: look", NULL, 0, "bob", 1, "named: leading address" },
		{ "@arch look", NULL, 0, "architect", 1, "named: a prefix" },
		{ "look at @bob and @alice", NULL, 0, "bob,alice", 1,
		  "named: two" },
		{ "@bob over to you", "alice", 0, "bob", 1,
		  "named: a name beats the follow-up" },
		{ "and then?", "alice", 0, "alice", 0, "not named: follow-up" },
		{ "and then?", NULL, 1, "bob", 0,
		  "not named: desk, last speaker" },
		{ "hello @carol", NULL, 1, "", 0, "not named: a person named" },
		{ "@alice", NULL, 0, "", 0, "not named: only mentions" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		names(three, 3, people, 2, "bob");
		nm.follow_up = cases[i].follow_up;
		nm.desk = cases[i].desk;
		decide(cases[i].text);
		ok(strcmp(who(), cases[i].who) == 0 &&
		    r.named == cases[i].named, cases[i].name);
	}
	names(solo, 1, NULL, 0, NULL);
	decide("hello");
	ok(r.outcome == ROUTE_DISPATCH && !r.named,
	    "not named: the only agent at a desk");
}

int
main(void)
{
	test_mentions();
	test_address();
	test_matching();
	test_fallback();
	test_shared_channel();
	test_bot();
	test_unknown();
	test_only_mentions();
	test_humans();
	test_text();
	test_named();
	return tap_done();
}

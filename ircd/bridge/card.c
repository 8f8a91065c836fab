/*
 * card.c: permission cards. A card is a NOTICE from the requesting agent
 * to its conversation naming the tool call and the answers; it is stored
 * in history like the answer given, so anyone can see what was allowed
 * (PM-4). Only the person whose message started the turn, or a channel
 * operator, may answer; never an agent or an automated turn (PM-2).
 */
#include "compat.h"

#include <event2/event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/phrase.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/turn.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"

/*
 * A card keeps one option of each kind (the first one offered), which
 * is all an answer needs; ACP_PERM_OTHER is the last kind.
 */
#define CARD_MAXOPTS	(ACP_PERM_OTHER + 1)
/*
 * Option ids are short words ("allow_once", "proceed_always"); a longer
 * one is left out rather than cut, which would send back an id the
 * agent never offered.
 */
#define CARD_OPTIDLEN	64
/* The tool call described, cut so that the answers after it still fit. */
#define CARD_WHATLEN	300
/*
 * A card says more (AU-6, M2): the tool call's input, the policy and the
 * mode, so its title is cut shorter. The line is cut by agent_emit()
 * where a prefix and target still fit (agent.c's AGENT_EMIT_MAX).
 */
#define CARD_OPEN_WHATLEN	180
#define CARD_LINEMAX		(IRC_LINELEN - 100)
/* A mode id as a card shows it: a word ("default", "plan"). */
#define CARD_MODELEN		33
/* " — policy allow-reads, mode <id>" (card_in_force). */
#define CARD_FORCELEN		(48 + CARD_MODELEN)
#define CARD_INPUT		" — input: "

struct card {
	TAILQ_ENTRY(card)	 entry;
	unsigned		 n;
	struct conv		*conv;
	struct turn		*turn;
	uint64_t		 id;
	char			 requester[NICKLEN + 1];	/* its nick, said */
	/* AU-4, M1: who may answer, the requester's principal, not a nick. */
	struct convkey		 principal;
	int			 automated;	/* no person started the turn */
	char			 opt_id[CARD_MAXOPTS][CARD_OPTIDLEN];
	enum acp_perm_kind	 opt_kind[CARD_MAXOPTS];
	size_t			 nopts;
	struct event		*timeout;
	/* TN-5: the tool call asked about, whose line says it was refused. */
	char			*tool_id;
	/* A card of the server's own (a schedule to approve): done says. */
	void			(*done)(int allowed, void *arg);
	void			*arg;
};

static TAILQ_HEAD(, card) cards = TAILQ_HEAD_INITIALIZER(cards);
static unsigned card_seq;

static void
card_free(struct card *c)
{
	TAILQ_REMOVE(&cards, c, entry);
	if (c->turn != NULL)
		turn_card_closed(c->turn);
	if (c->timeout != NULL)
		event_free(c->timeout);
	free(c->tool_id);
	free(c);
}

/* TN-5: the card refused its tool call; its line will say why. */
static void
card_refused(const struct card *c, const char *why)
{
	char text[64];

	if (c->turn == NULL || c->tool_id == NULL)
		return;
	snprintf(text, sizeof(text), "card %u %s", c->n, why);
	stream_refused(c->turn, c->tool_id, text);
}

static const char *
card_option(const struct card *c, enum acp_perm_kind kind)
{
	size_t i;

	for (i = 0; i < c->nopts; i++)
		if (c->opt_kind[i] == kind)
			return c->opt_id[i];
	return NULL;
}

/* PM-3: unanswered, the card is refused (reject_once, else cancelled). */
static void
card_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	struct card *c = arg;
	char line[IRC_LINELEN];

	(void)fd;
	(void)what;
	snprintf(line, sizeof(line), "card %u: no answer in time, refused", c->n);
	agent_emit(c->conv, "NOTICE", line);
	if (c->done != NULL) {
		/* done may drop what the card belongs to: free the card first. */
		void (*done)(int, void *) = c->done;
		void *darg = c->arg;

		card_free(c);
		done(0, darg);
		return;
	}
	card_refused(c, "had no answer in time");
	acp_session_permit(c->conv->session, c->id,
	    card_option(c, ACP_PERM_REJECT_ONCE));
	card_free(c);
}

/* Cut plain text s to at most size - 1 bytes, on a character (AU-6). */
static void
card_cut(char *buf, size_t size, const char *s)
{
	acp_plain(buf, size, s, strlen(s));
}

/*
 * What the agent asks to do, in words (phrase.c): "write notes.txt",
 * "run `make`", paths relative to the agent's working directory.
 */
static void
card_describe(char *buf, size_t len, const struct conv *cv,
    const struct acp_permission *p)
{
	if (p->tool != NULL)
		phrase_tool(buf, len, p->tool, cv->agent->conf->cwd);
	else
		strlcpy(buf, "use a tool", len);
}

/*
 * AU-1, M2: " — policy ask, mode code", what is in force in cv, so the
 * approver knows what else the agent may do unasked.
 */
static void
card_in_force(char *buf, size_t len, struct conv *cv)
{
	char modeid[CARD_MODELEN];
	const char *mode = acp_session_mode(cv->session);

	card_cut(modeid, sizeof(modeid), mode != NULL ? mode : "");
	snprintf(buf, len, " — policy %s%s%s", policy_name(authority_policy(cv)),
	    modeid[0] != '\0' ? ", mode " : "", modeid);
}

void
card_open(struct conv *cv, struct turn *t, const struct acp_permission *p)
{
	struct card *c = xcalloc(1, sizeof(*c));
	struct timeval tv = { ircd.conf->permission_timeout, 0 };
	char what[CARD_WHATLEN], line[IRC_LINELEN], head[IRC_LINELEN];
	char tail[IRC_LINELEN], input[IRC_LINELEN], force[CARD_FORCELEN];
	size_t i, used;

	c->n = ++card_seq;
	c->conv = cv;
	c->turn = t;
	c->id = p->id;
	if (p->tool != NULL && p->tool->id != NULL)
		c->tool_id = xstrdup(p->tool->id);
	if (t != NULL && t->principal.s[0] != '\0') {
		strlcpy(c->requester, t->requester, sizeof(c->requester));
		c->principal = t->principal;
	} else
		c->automated = 1;
	/* The first option of each kind, wherever it comes in the list. */
	for (i = 0; i < p->noptions && c->nopts < CARD_MAXOPTS; i++) {
		if (strlen(p->options[i].id) >= sizeof(c->opt_id[0]) ||
		    card_option(c, p->options[i].kind) != NULL)
			continue;
		strlcpy(c->opt_id[c->nopts], p->options[i].id, sizeof(c->opt_id[0]));
		c->opt_kind[c->nopts++] = p->options[i].kind;
	}
	c->timeout = evtimer_new(ircd.base, card_timeout_cb, c);
	evtimer_add(c->timeout, &tv);
	TAILQ_INSERT_TAIL(&cards, c, entry);
	card_describe(what, CARD_OPEN_WHATLEN, cv, p);
	snprintf(head, sizeof(head), "card %u: %s asks to %s", c->n,
	    cv->agent->client->nick, what);
	/* Word the answers as the options the agent really offers. */
	card_in_force(force, sizeof(force), cv);
	snprintf(tail, sizeof(tail), "%s — answer %s%s%s"
	    "(add %u if several cards wait)", force,
	    card_option(c, ACP_PERM_ALLOW_ONCE) ? "!allow, " : "",
	    card_option(c, ACP_PERM_ALLOW_ALWAYS) ? "!always, " : "",
	    card_option(c, ACP_PERM_REJECT_ONCE) || card_option(c, ACP_PERM_REJECT_ALWAYS) ?
	    "!deny " : "", c->n);
	/*
	 * AU-6, M2: the tool call's real input, not only the title the agent
	 * chose, in the room left (cut with "…": more is there).
	 */
	input[0] = '\0';
	used = strlen(head) + strlen(tail) + strlen(CARD_INPUT);
	if (p->tool != NULL && p->tool->input != NULL && used < CARD_LINEMAX)
		card_cut(input, CARD_LINEMAX - used + 1 < sizeof(input) ?
		    CARD_LINEMAX - used + 1 : sizeof(input), p->tool->input);
	/* Cut to the line, as agent_emit would; -O1 warns of it otherwise. */
	if (snprintf(line, sizeof(line), "%s%s%s%s", head, input[0] != '\0' ?
	    CARD_INPUT : "", input, tail) >= 0)
		agent_emit(cv, "NOTICE", line);
	/* TN-1: waiting for a person, the turn lets another run. */
	if (t != NULL)
		turn_card_opened(t);
}

unsigned
card_open_server(struct conv *cv, struct turn *t, const char *what,
    void (*done)(int, void *), void *arg)
{
	struct card *c = xcalloc(1, sizeof(*c));
	struct timeval tv = { ircd.conf->permission_timeout, 0 };
	char line[IRC_LINELEN], force[CARD_FORCELEN];

	c->n = ++card_seq;
	c->conv = cv;
	c->turn = NULL;		/* it outlives the turn that asked */
	c->done = done;
	c->arg = arg;
	if (t != NULL && t->principal.s[0] != '\0') {
		strlcpy(c->requester, t->requester, sizeof(c->requester));
		c->principal = t->principal;
	} else
		c->automated = 1;
	c->timeout = evtimer_new(ircd.base, card_timeout_cb, c);
	evtimer_add(c->timeout, &tv);
	TAILQ_INSERT_TAIL(&cards, c, entry);
	card_in_force(force, sizeof(force), cv);
	snprintf(line, sizeof(line), "card %u: %s asks to %s%s — answer !allow "
	    "or !deny (add %u if several cards wait)", c->n,
	    cv->agent->client->nick, what, force, c->n);
	agent_emit(cv, "NOTICE", line);
	return c->n;
}

void
card_forget(void *arg)
{
	struct card *c, *tc;

	TAILQ_FOREACH_SAFE(c, &cards, entry, tc)
		if (c->done != NULL && c->arg == arg)
			card_free(c);
}

void
card_auto(struct conv *cv, const struct acp_permission *p, enum policy policy,
    const struct acp_perm_option *chosen)
{
	char what[CARD_WHATLEN], line[IRC_LINELEN];
	int allowed = chosen != NULL && (chosen->kind == ACP_PERM_ALLOW_ONCE ||
	    chosen->kind == ACP_PERM_ALLOW_ALWAYS);

	card_describe(what, sizeof(what), cv, p);
	snprintf(line, sizeof(line), "%s: %s to %s (policy %s)",
	    cv->agent->client->nick, allowed ? "allowed" : "not allowed", what,
	    policy_name(policy));
	agent_emit(cv, "NOTICE", line);
}

void
card_gone(struct conv *cv, uint64_t id)
{
	struct card *c, *tc;
	char line[IRC_LINELEN];

	TAILQ_FOREACH_SAFE(c, &cards, entry, tc) {
		if (c->conv != cv || c->id != id)
			continue;
		snprintf(line, sizeof(line), "card %u: withdrawn", c->n);
		agent_emit(cv, "NOTICE", line);
		card_free(c);
	}
}

/*
 * PM-2, AU-4, M1: the person who started the turn (its principal: the
 * account, or the very connection, whatever nick it has now), or an
 * operator of the channel. A card no person's turn opened (a schedule's
 * firing, a server card) waits for an operator of its channel, or in a
 * private conversation for that conversation's person.
 */
static int
card_may_answer(const struct card *c, struct client *from, struct channel *ch)
{
	struct member *m;
	struct convkey peer;

	if (agent_of_client(from) != NULL || (from->umodes & UMODE_BOT))
		return 0;
	if (ch != NULL) {
		if ((m = channel_member(ch, from)) == NULL)
			return 0;
		if (m->modes & MEMBER_OP)
			return 1;
	}
	if (c->automated)
		return ch == NULL && conv_peer(c->conv, &peer) == 0 &&
		    history_principal_is(from, &peer);
	return history_principal_is(from, &c->principal);
}

void
card_answer(struct client *from, const char *key, struct channel *ch,
    const char *verb, const char *arg)
{
	struct card *c, *pick = NULL;
	unsigned waiting = 0, n = 0;
	enum acp_perm_kind kind, fallback;
	const char *opt, *word;
	char line[IRC_LINELEN];
	/* TN-11: the replies land where the person typed. */
	const char *where = ch != NULL ? ch->name : NULL;

	if (arg != NULL && *arg != '\0')
		n = (unsigned)strtoul(arg, NULL, 10);
	TAILQ_FOREACH(c, &cards, entry) {
		if (strcmp(c->conv->key, key) != 0)
			continue;
		waiting++;
		if (n == 0 || c->n == n)
			pick = c;
	}
	if (waiting == 0 || (n != 0 && pick == NULL)) {
		if (n != 0)
			reply_notice_in(from, where, "No card %u waits here", n);
		else
			reply_notice_in(from, where, "No card waits here");
		return;
	}
	if (n == 0 && waiting > 1) {
		TAILQ_FOREACH(c, &cards, entry)
			if (strcmp(c->conv->key, key) == 0)
				break;
		reply_notice_in(from, where, "%u cards wait here: say which, "
		    "as in !%s %u", waiting, verb, c->n);
		return;
	}
	if (!card_may_answer(pick, from, ch)) {
		if (ch == NULL && pick->automated)
			reply_notice_in(from, where, "card %u: only the "
			    "person of this conversation may answer it",
			    pick->n);
		else
			reply_notice_in(from, where, "card %u: only %s%s may "
			    "answer it", pick->n, pick->automated ? "" : pick->requester,
			    ch != NULL ? (pick->automated ? "a channel operator" :
			    " or a channel operator") : "");
		return;
	}
	if (strcmp(verb, "allow") == 0) {
		kind = ACP_PERM_ALLOW_ONCE;
		fallback = ACP_PERM_ALLOW_ALWAYS;
		word = "allowed";
	} else if (strcmp(verb, "always") == 0) {
		kind = ACP_PERM_ALLOW_ALWAYS;
		fallback = ACP_PERM_ALLOW_ONCE;
		word = "always allowed";
	} else {
		kind = ACP_PERM_REJECT_ONCE;
		fallback = ACP_PERM_REJECT_ALWAYS;
		word = "denied";
	}
	if (pick->done != NULL) {
		void (*done)(int, void *) = pick->done;
		void *darg = pick->arg;

		snprintf(line, sizeof(line), "card %u: %s by %s", pick->n, word,
		    from->nick);
		agent_emit(pick->conv, "NOTICE", line);
		/* done may drop what the card belongs to: free the card first. */
		card_free(pick);
		done(kind != ACP_PERM_REJECT_ONCE, darg);
		return;
	}
	if ((opt = card_option(pick, kind)) == NULL)
		opt = card_option(pick, fallback);
	if (opt == NULL && kind != ACP_PERM_REJECT_ONCE) {
		reply_notice_in(from, where, "card %u: %s does not offer "
		    "that answer", pick->n, pick->conv->agent->client->nick);
		return;
	}
	snprintf(line, sizeof(line), "card %u: %s by %s", pick->n, word, from->nick);
	agent_emit(pick->conv, "NOTICE", line);
	if (kind == ACP_PERM_REJECT_ONCE)
		card_refused(pick, "was denied");
	acp_session_permit(pick->conv->session, pick->id, opt);
	card_free(pick);
}

void
card_drop_turn(struct turn *t)
{
	struct card *c, *tc;

	TAILQ_FOREACH_SAFE(c, &cards, entry, tc)
		if (c->turn == t)
			card_free(c);
}

unsigned
card_waiting(const struct conv *cv)
{
	const struct card *c;

	TAILQ_FOREACH(c, &cards, entry)
		if (c->conv == cv && c->turn != NULL && c->turn == cv->turn)
			return c->n;
	return 0;
}

int
card_conv_open(const struct conv *cv)
{
	const struct card *c;

	TAILQ_FOREACH(c, &cards, entry)
		if (c->conv == cv)
			return 1;
	return 0;
}

void
card_drop_conv(struct conv *cv)
{
	struct card *c, *tc;

	TAILQ_FOREACH_SAFE(c, &cards, entry, tc)
		if (c->conv == cv)
			card_free(c);
}

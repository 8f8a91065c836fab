/*
 * bang.c: what a leading '/' or '!' means in a conversation with agents.
 * "/cmd args" goes raw to the one agent here that announced cmd (CM-2,
 * CM-3); "/alice:cmd" names the agent; "!cmd" is the same for an
 * announced command; the server's own ! commands, one table below, are
 * never forwarded (CM-6), and "!!text" sends "!text" literally.
 */
#include "compat.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/bang.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/policy.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/task.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/history.h"
#include "ircd/reply.h"
#include "store/store.h"

#define MAXHERE	32	/* agents of one conversation that commands see */
/* A command word ("stop", "alice:cmd"): a nick, ':' and a command name. */
#define WORDLEN	128
/* An ACP mode id ("plan", "code"): short words; a longer one is none. */
#define MODEIDLEN	AGENT_MODELEN

/* The agents of the conversation: a channel's, or the one of a query. */
struct here {
	struct client	*from;
	struct channel	*ch;		/* NULL for a private query */
	const char	*key;
	const char	*target;	/* channel name, or the person's nick */
	struct agent	*agents[MAXHERE];
	size_t		 n;
	struct outmsg	*om;
};

static void
here_fill(struct here *h)
{
	struct member *m;
	struct agent *a;

	if (h->ch == NULL)
		return;
	TAILQ_FOREACH(m, &h->ch->members, by_channel)
		if ((a = agent_of_client(m->client)) != NULL && h->n < MAXHERE)
			h->agents[h->n++] = a;
}

/*
 * TN-11: a reply to the person, where they typed: in a channel, a NOTICE
 * to them alone that their client shows in the channel's window; in a
 * query, a NOTICE to their nick, as ever.
 */
static void	here_reply(const struct here *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

static void
here_reply(const struct here *h, const char *fmt, ...)
{
	char text[IRC_LINELEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	reply_notice_in(h->from, h->ch != NULL ? h->ch->name : NULL, "%s",
	    text);
}

static struct conv *
here_conv(struct here *h, struct agent *a)
{
	return conv_get(a, h->key, h->target, h->ch == NULL);
}

/* Split "word rest" at the first space: word into buf, rest returned. */
static const char *
cmd_word(const char *text, char *buf, size_t len)
{
	size_t n = strcspn(text, " ");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), text);
	text += n;
	while (*text == ' ')
		text++;
	return text;
}

static void
cmd_send(struct here *h, struct agent *a, const char *name, const char *rest)
{
	char text[IRC_LINELEN], why[IRC_LINELEN];

	/* AU-2 first: whom a does not talk to brings it nowhere. */
	if (!authority_may_talk(a, h->from, why, sizeof(why))) {
		here_reply(h, "%s", why);
		return;
	}
	/* In a channel, a named agent not here yet joins first (AG-2). */
	if (h->ch != NULL && agent_join(a, h->from, h->ch) == -1)
		return;
	snprintf(text, sizeof(text), "/%s%s%s", name, *rest ? " " : "", rest);
	agent_ask(a, h->from, h->key, h->target, h->ch == NULL, text, h->om);
}

static size_t	cmd_learn(struct here *);

/*
 * CM-3: "/name rest" to the one agent here that announced name. 1 if
 * handled (sent, or the sender told whom to pick); 0 when nobody here
 * announced it: then it is routed by RT rules, still raw.
 */
static int
cmd_slash(struct here *h, const char *name, const char *rest)
{
	struct agent *who[MAXHERE];
	char list[IRC_LINELEN] = "";
	size_t i, n = 0;

	for (i = 0; i < h->n; i++)
		if (agent_cmd_find(h->agents[i], name) != NULL)
			who[n++] = h->agents[i];
	if (n == 1) {
		cmd_send(h, who[0], name, rest);
		return 1;
	}
	if (n > 1) {
		for (i = 0; i < n; i++) {
			char one[sizeof(", /:") + NICKLEN + WORDLEN];

			snprintf(one, sizeof(one), "%s/%s:%s", i > 0 ? ", " : "",
			    who[i]->client->nick, name);
			strlcat(list, one, sizeof(list));
		}
		here_reply(h, "Several agents here know /%s: say which, "
		    "as %s", name, list);
		return 1;
	}
	cmd_learn(h);
	return 0;
}

/*
 * CM-4: agents that never told their commands open a session to learn,
 * but only for someone they talk to (AU-2). The number of agents here
 * whose commands are still unknown.
 */
static size_t
cmd_learn(struct here *h)
{
	size_t i, n = 0;

	for (i = 0; i < h->n; i++) {
		struct conv *cv;

		if (h->agents[i]->cmds_known)
			continue;
		n++;
		if (!authority_may_talk(h->agents[i], h->from, NULL, 0))
			continue;
		cv = here_conv(h, h->agents[i]);
		if (!acp_session_is_open(cv->session) && cv->turn == NULL)
			acp_session_open(cv->session);
	}
	return n;
}

/*
 * "!stpo": a word shaped like a command that is nobody's. Said so, with
 * the nearest command if one is a typo away, and never forwarded: an
 * agent should not act on a mistyped !stop. "!!stpo" still sends it.
 */
/* Keep name in *near when it is nearer to word than *best edits. */
static void
cmd_nearer(const char *word, const char *name, size_t *best,
    const char **near)
{
	size_t d = bang_distance(word, name, *best - 1);

	if (d < *best) {
		*best = d;
		*near = name;
	}
}

static void
cmd_unknown(struct here *h, const char *word)
{
	const char *near = NULL;
	char hint[WORDLEN + sizeof(" (did you mean !?)")] = "";
	size_t i, j, best = bang_typo_max(word) + 1, unknown;
	const struct bang *b;

	for (i = 0; (b = bang_at(i)) != NULL; i++)
		cmd_nearer(word, b->name, &best, &near);
	for (i = 0; i < h->n; i++)
		for (j = 0; j < h->agents[i]->ncmds; j++)
			cmd_nearer(word, h->agents[i]->cmds[j].name, &best,
			    &near);
	if (near != NULL)
		snprintf(hint, sizeof(hint), " (did you mean !%s?)", near);
	unknown = cmd_learn(h);
	here_reply(h, "No command !%s here%s; !help lists them%s, "
	    "and !!%s sends the text as it is", word, hint, unknown > 0 ?
	    " (an agent here has not told its commands yet: ask again in a "
	    "moment)" : "", word);
}

/* "/alice:cmd rest" or "!alice:cmd rest". */
static int
cmd_named(struct here *h, const char *word, const char *rest)
{
	char nick[NICKLEN + 1];
	const char *colon = strchr(word, ':');
	struct agent *a;

	snprintf(nick, sizeof(nick), "%.*s", (int)(colon - word), word);
	if ((a = agent_find(nick)) == NULL) {
		here_reply(h, "No agent is called %s", nick);
		return 1;
	}
	if (h->ch == NULL && a != h->agents[0]) {
		here_reply(h, "%s is not in this conversation", a->client->nick);
		return 1;
	}
	cmd_send(h, a, colon + 1, rest);
	return 1;
}

static void	cmd_card(struct here *, const struct bang *, const char *);
static void	cmd_help(struct here *, const struct bang *, const char *);
static void	cmd_mode(struct here *, const struct bang *, const char *);
static void	cmd_policy(struct here *, const struct bang *, const char *);
static void	cmd_schedules(struct here *, const struct bang *, const char *);
static void	cmd_status(struct here *, const struct bang *, const char *);
static void	cmd_stop(struct here *, const struct bang *, const char *);
static void	cmd_unschedule(struct here *, const struct bang *,
		    const char *);

/*
 * The server's own ! commands (CM-6), sorted by name for bang_find (the
 * unit test checks). order is the place in !help's list, which starts
 * with what one needs at once (stopping, answering cards).
 */
static const struct bang bangs[] = {
	{ "allow", cmd_card, BANG_MEMBER, "[n]",
	    "allow what card n (or the one waiting) asks, once", 1 },
	{ "always", cmd_card, BANG_MEMBER, "[n]",
	    "allow what the card asks, from now on", 2 },
	{ "deny", cmd_card, BANG_MEMBER, "[n]",
	    "refuse what the card asks", 3 },
	{ "help", cmd_help, BANG_ANYONE, "",
	    "list the agents' commands and these", 9 },
	{ "mode", cmd_mode, BANG_MEMBER, "[agent mode]",
	    "list the agents' session modes, or switch one", 4 },
	{ "policy", cmd_policy, BANG_OPERATOR, "[agent] " POLICY_NAMES,
	    "set the permission policy of the agents here", 5 },
	{ "schedules", cmd_schedules, BANG_MEMBER, "",
	    "list the schedules of this conversation", 6 },
	{ "status", cmd_status, BANG_MEMBER, "",
	    "say what each agent here is doing", 8 },
	{ "stop", cmd_stop, BANG_MEMBER, "",
	    "stop the answer in progress here", 0 },
	{ "unschedule", cmd_unschedule, BANG_MEMBER, "<id>",
	    "delete a schedule", 7 },
};
#define NBANGS	(sizeof(bangs) / sizeof(bangs[0]))

/* Compare name[0..len) with a row's name, as strcmp would. */
static int
bang_cmp(const char *name, size_t len, const char *row)
{
	int c = strncmp(name, row, len);

	if (c != 0)
		return c;
	return row[len] == '\0' ? 0 : -1;
}

const struct bang *
bang_find(const char *name, size_t len)
{
	size_t lo = 0, hi = NBANGS, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = bang_cmp(name, len, bangs[mid].name)) == 0)
			return &bangs[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct bang *
bang_at(size_t i)
{
	return i < NBANGS ? &bangs[i] : NULL;
}

int
bang_word_shaped(const char *word)
{
	size_t i;

	if (!isalpha((unsigned char)word[0]))
		return 0;
	for (i = 1; word[i] != '\0'; i++)
		if (!isalnum((unsigned char)word[i]) && word[i] != '-' &&
		    word[i] != '_')
			return 0;
	return 1;
}

/*
 * Edits from typed to name, ASCII case ignored: the optimal string
 * alignment distance (a swap of neighbours is one edit, "stpo" is one
 * from "stop"), three rows of a table of at most WORDLEN columns.
 */
size_t
bang_distance(const char *typed, const char *name, size_t max)
{
	size_t rows[3][WORDLEN + 1], *pp, *p, *c;
	size_t la = strlen(typed), lb = strlen(name), i, j, best;

	if (la >= WORDLEN || lb >= WORDLEN ||
	    (la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (j = 0; j <= lb; j++)
		rows[1][j] = j;
	pp = rows[0];
	p = rows[1];
	c = rows[2];
	for (i = 1; i <= la; i++) {
		int ca = tolower((unsigned char)typed[i - 1]);

		c[0] = i;
		best = c[0];
		for (j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)name[j - 1]);
			size_t v = p[j - 1] + (ca != cb);

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)
			    name[j - 2]) && tolower((unsigned char)
			    typed[i - 2]) == cb && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
		/* Rotate: the row before last is reused for the next. */
		{
			size_t *t = pp;

			pp = p;
			p = c;
			c = t;
		}
	}
	return p[lb] > max ? max + 1 : p[lb];
}

size_t
bang_typo_max(const char *typed)
{
	return strlen(typed) <= 4 ? 1 : 2;
}

/*
 * I7: may h's sender run b at all? In a channel, all but !help need its
 * membership, +n or not; in a query the person of the query may. Who
 * may do what to a policy or a mode, cmd_policy and cmd_mode say.
 */
static int
bang_may(const struct here *h, const struct bang *b)
{
	if (b->who == BANG_ANYONE || h->ch == NULL)
		return 1;
	return channel_member(h->ch, h->from) != NULL;
}

/*
 * a's conversation here as it would be, without opening one (which
 * could close another idle one): its stored !policy, read into tmp.
 */
static const struct conv *
here_peek(const struct here *h, struct agent *a, struct conv *tmp)
{
	struct conv *cv;

	if ((cv = conv_find(a, h->key)) != NULL)
		return cv;
	memset(tmp, 0, sizeof(*tmp));
	tmp->agent = a;
	strlcpy(tmp->key, h->key, sizeof(tmp->key));
	strlcpy(tmp->target, h->target, sizeof(tmp->target));
	tmp->private = h->ch == NULL;
	authority_policy_load(tmp);
	return tmp;
}

/* AU-1, AU-3: "policy ask, mode code" of a here, as !status and !help say. */
static void
here_state(const struct here *h, struct agent *a, char *buf, size_t len)
{
	char mode[MODEIDLEN];
	const char *cur = NULL;
	const struct conv *cv;
	struct conv tmp;

	cv = here_peek(h, a, &tmp);
	if (cv->session != NULL && acp_session_is_open(cv->session))
		cur = acp_session_mode(cv->session);
	if (cur != NULL)
		snprintf(buf, len, "policy %s, mode %s",
		    policy_name(authority_policy(cv)), cur);
	else if (authority_mode_load(cv, a->mode_initial[0] != '\0' ?
	    a->mode_initial : NULL, mode, sizeof(mode)) == 0)
		snprintf(buf, len, "policy %s, mode %s when its session opens",
		    policy_name(authority_policy(cv)), mode);
	else
		snprintf(buf, len, "policy %s, mode %s",
		    policy_name(authority_policy(cv)), a->mode_initial[0] !=
		    '\0' ? a->mode_initial : "not known until a session opens");
}

/* PM-1: !allow, !always and !deny answer a card; card.c checks who (PM-2). */
static void
cmd_card(struct here *h, const struct bang *b, const char *args)
{
	card_answer(h->from, h->key, h->ch, b->name, args);
}

/*
 * I7: may h's sender act on others' requests here? A channel operator,
 * an IRC operator, or an admin of an agent here; in a query its person,
 * whose own it is (its key is their principal's): a scheduled firing
 * there is nobody's request, and theirs to stop.
 */
static int
bang_in_charge(const struct here *h)
{
	struct member *m;
	size_t i;

	if (h->ch == NULL)
		return 1;
	if ((m = channel_member(h->ch, h->from)) != NULL &&
	    (m->modes & MEMBER_OP))
		return 1;
	for (i = 0; i < h->n; i++)
		if (authority_may_loosen(h->agents[i], h->from))
			return 1;
	return client_is_oper(h->from);
}

/* I7: one's own requests, or anyone's for those in charge here. */
static void
cmd_stop(struct here *h, const struct bang *b, const char *args)
{
	int all = bang_in_charge(h);
	size_t i;

	(void)b;
	(void)args;
	if (turn_stop(h->key, all ? NULL : h->from, h->from) > 0)
		return;
	for (i = 0; i < h->n && !all; i++) {
		struct conv *cv = conv_find(h->agents[i], h->key);

		if (cv != NULL && cv->turn != NULL) {
			here_reply(h, "You may stop only what you "
			    "asked; channel operators may stop anything here");
			return;
		}
	}
	here_reply(h, "Nothing to stop here");
}

/* SC: the schedules of this conversation, and deleting one. */
static void
cmd_schedules(struct here *h, const struct bang *b, const char *args)
{
	(void)b;
	(void)args;
	schedule_user_list(h->from, h->key);
}

static void
cmd_unschedule(struct here *h, const struct bang *b, const char *args)
{
	(void)b;
	schedule_user_delete(h->from, h->key, args);
}

/* CM-5: the agents' commands here, then the server's, from the table. */
static void
cmd_help(struct here *h, const struct bang *b, const char *args)
{
	char line[IRC_LINELEN] = "Server commands: ";
	size_t i, j;
	int k;

	(void)b;
	(void)args;
	for (i = 0; i < h->n; i++) {
		struct agent *a = h->agents[i];
		char state[IRC_LINELEN];

		here_state(h, a, state, sizeof(state));
		here_reply(h, "%s here: %s", a->client->nick, state);
		if (a->ncmds == 0) {
			here_reply(h, "%s: no commands known yet%s",
			    a->client->nick, a->cmds_known ? "" :
			    " (type one with / and it will tell)");
			continue;
		}
		for (j = 0; j < a->ncmds; j++)
			here_reply(h, "/%s:%s%s%s%s — %s", a->client->nick,
			    a->cmds[j].name, a->cmds[j].hint ? " <" : "",
			    a->cmds[j].hint ? a->cmds[j].hint : "",
			    a->cmds[j].hint ? ">" : "", a->cmds[j].description);
	}
	for (k = 0; k < (int)NBANGS; k++)
		for (i = 0; i < NBANGS; i++) {
			if (bangs[i].order != k)
				continue;
			if (k > 0)
				strlcat(line, ", ", sizeof(line));
			strlcat(line, "!", sizeof(line));
			strlcat(line, bangs[i].name, sizeof(line));
			if (bangs[i].usage[0] != '\0') {
				strlcat(line, " ", sizeof(line));
				strlcat(line, bangs[i].usage, sizeof(line));
			}
		}
	here_reply(h, "%s; !!text sends !text. Type //cmd (WeeChat, "
	    "HexChat) or /say /cmd (irssi) for an agent's command, or !cmd.",
	    line);
}

/*
 * MN-4: a turn a chain of agents brought here, with the chain: "chain
 * carol → alice → bob: bob answering". !stop here stops it (TN-6).
 */
static void
status_chained(const struct turn *t, int running, void *arg)
{
	struct here *h = arg;
	char chain[sizeof(t->chain) + 64];
	const char *p;
	size_t n;

	strlcpy(chain, t->requester[0] != '\0' ? t->requester :
	    "a schedule", sizeof(chain));
	for (p = t->chain; *p != '\0'; p += n) {
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (n == 0)
			break;
		strlcat(chain, " \xe2\x86\x92 ", sizeof(chain));	/* → */
		snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain),
		    "%.*s", (int)n, p);
	}
	here_reply(h, "chain %s \xe2\x86\x92 %s: %s %s", chain,
	    t->conv->agent->client->nick, t->conv->agent->client->nick,
	    running ? "answering" : "waiting");
}

/* MN-7: one task in flight made or aimed here. */
static void
status_task_line(const char *line, void *arg)
{
	here_reply(arg, "%s", line);
}

/* CM-5: what each agent here is doing, the chains and tasks here. */
static void
cmd_status(struct here *h, const struct bang *b, const char *args)
{
	size_t i;

	(void)b;
	(void)args;
	for (i = 0; i < h->n; i++) {
		struct agent *a = h->agents[i];
		unsigned card = a->active != NULL ? card_waiting(a->active) : 0;
		char waiting[48];
		const char *state = acp_agent_broken(a->acp) ? "broken" :
		    card != 0 ? waiting : a->active != NULL ? "answering" :
		    acp_agent_running(a->acp) ? "idle" : "stopped";
		char here[IRC_LINELEN];

		/* TN-1: a turn held by a card is waiting for a person. */
		snprintf(waiting, sizeof(waiting), "waiting for card %u", card);
		here_state(h, a, here, sizeof(here));
		/* AU-8: a +s channel is named to its members only. */
		here_reply(h, "%s: %s%s%s, %zu waiting; here %s",
		    a->client->nick, state, a->active != NULL ? " in " : "",
		    a->active != NULL ? authority_where(h->from, a->active) : "",
		    turn_queued_for(a), here);
	}
	if (h->n == 0)
		here_reply(h, "No agent here");
	turn_each_chained(h->key, status_chained, h);
	/* MN-7: the hand-offs in flight made here or aimed here. */
	task_here(h->key, status_task_line, h);
}

/*
 * AU-3, H1: may h's sender switch a into modeid? Says why not. Those who
 * may loosen its policy may, into the modes its config allows.
 */
static int
mode_may(const struct here *h, struct agent *a, const char *modeid)
{
	char list[IRC_LINELEN] = "";
	size_t i;

	if (!authority_may_loosen(a, h->from)) {
		here_reply(h, "Only IRC operators and %s's admins may "
		    "switch its mode", a->client->nick);
		return 0;
	}
	if (authority_mode_allowed(a, modeid, a->mode_initial[0] != '\0' ?
	    a->mode_initial : NULL))
		return 1;
	for (i = 0; a->conf->modes != NULL && a->conf->modes[i] != NULL; i++) {
		strlcat(list, " ", sizeof(list));
		strlcat(list, a->conf->modes[i], sizeof(list));
	}
	here_reply(h, "%s may not be switched to %s: its config "
	    "allows%s%s", a->client->nick, modeid, list[0] != '\0' ? list :
	    " only its initial mode", list[0] != '\0' &&
	    policy_mode_prompts_off(modeid) ? " (a mode without permission "
	    "prompts must be listed by name)" : "");
	return 0;
}

/* PM-5: "!mode" lists, "!mode alice plan" switches (AU-3). */
static void
cmd_mode(struct here *h, const struct bang *b, const char *rest)
{
	char nick[NICKLEN + 1], modeid[MODEIDLEN];
	const struct acp_mode *modes;
	struct agent *a = NULL;
	struct conv *cv;
	size_t i, j, n;

	(void)b;
	rest = cmd_word(rest, nick, sizeof(nick));
	rest = cmd_word(rest, modeid, sizeof(modeid));
	if (nick[0] != '\0' && modeid[0] == '\0' && h->n == 1) {
		/* "!mode plan" with one agent here. */
		strlcpy(modeid, nick, sizeof(modeid));
		strlcpy(nick, h->agents[0]->client->nick, sizeof(nick));
	}
	for (i = 0; i < h->n; i++) {
		char line[IRC_LINELEN];

		if (nick[0] != '\0' && casemap_cmp(nick, h->agents[i]->client->nick) != 0)
			continue;
		a = h->agents[i];
		if (modeid[0] != '\0' && !mode_may(h, a, modeid))
			continue;
		/*
		 * Only an open session has modes: asking does not make a
		 * conversation (which could close another idle one).
		 */
		cv = conv_find(a, h->key);
		if (cv == NULL || !acp_session_is_open(cv->session)) {
			if (modeid[0] != '\0') {
				/* AU-3: remembered, and set when it opens. */
				struct conv tmp;

				authority_mode_store(here_peek(h, a, &tmp),
				    modeid);
				here_reply(h, "%s has no open session "
				    "here; it switches to mode %s when one "
				    "opens", a->client->nick, modeid);
			/* Stored: a restart, or closed while idle (SS-4). */
			} else if (agent_session_stored(a, h->key))
				here_reply(h, "%s's session here is "
				    "closed for now; it opens again when %s next "
				    "answers here", a->client->nick,
				    a->client->nick);
			else
				here_reply(h, "%s has no session here "
				    "yet: ask it something first",
				    a->client->nick);
			continue;
		}
		n = acp_session_modes(cv->session, &modes);
		if (modeid[0] != '\0') {
			for (j = 0; j < n; j++)
				if (strcmp(modes[j].id, modeid) == 0)
					break;
			if (j == n || acp_session_set_mode(cv->session, modeid) == -1) {
				here_reply(h, "%s has no mode %s", a->client->nick,
				    modeid);
				continue;
			}
			/* Kept, so it is applied again after a restart (SS-4). */
			authority_mode_store(cv, modeid);
			snprintf(line, sizeof(line), "switching mode to %s, as %s asked",
			    modeid, h->from->nick);
			agent_emit(cv, "NOTICE", line);
			continue;
		}
		snprintf(line, sizeof(line), "%s modes:", a->client->nick);
		for (j = 0; j < n; j++) {
			strlcat(line, " ", sizeof(line));
			strlcat(line, modes[j].id, sizeof(line));
			if (acp_session_mode(cv->session) != NULL &&
			    strcmp(acp_session_mode(cv->session), modes[j].id) == 0)
				strlcat(line, "*", sizeof(line));
		}
		if (n == 0)
			strlcat(line, " none", sizeof(line));
		here_reply(h, "%s", line);
	}
	if (a == NULL && nick[0] != '\0')
		here_reply(h, "No agent %s here", nick);
	else if (a == NULL)
		here_reply(h, "No agent here");
}

/*
 * AU-1, C1: may h's sender set a's policy here to p? Says why not. No one
 * goes past the config's ceiling; only IRC operators and a's admins
 * loosen; stricter is for a channel's operators too, and for the person
 * of a query.
 */
static int
policy_may(const struct here *h, struct agent *a, enum policy p)
{
	struct conv tmp;
	const struct conv *cv = here_peek(h, a, &tmp);
	enum policy ceiling = authority_ceiling(a, h->ch != NULL ?
	    h->ch->name : NULL), now = authority_policy(cv);
	struct member *m;

	if (policy_looser(p, ceiling)) {
		here_reply(h, "%s: the config's ceiling here is %s; "
		    "%s would be looser", a->client->nick,
		    policy_name(ceiling), policy_name(p));
		return 0;
	}
	if (authority_may_loosen(a, h->from))
		return 1;
	if (policy_looser(p, now)) {
		here_reply(h, "Only IRC operators and %s's admins may "
		    "loosen its policy (%s here)", a->client->nick,
		    policy_name(now));
		return 0;
	}
	if (h->ch != NULL && ((m = channel_member(h->ch, h->from)) == NULL ||
	    !(m->modes & MEMBER_OP))) {
		here_reply(h, "Only channel operators may change the "
		    "policy");
		return 0;
	}
	return 1;
}

/* PM-4 at run time: "!policy [agent] ask|allow-reads|allow-all|deny-all". */
static void
cmd_policy(struct here *h, const struct bang *b, const char *rest)
{
	char w1[NICKLEN + 1], w2[NICKLEN + 1];
	enum policy policy;
	size_t i;

	rest = cmd_word(rest, w1, sizeof(w1));
	cmd_word(rest, w2, sizeof(w2));
	if (policy_parse(w2[0] != '\0' ? w2 : w1, &policy) == -1) {
		here_reply(h, "Usage: !%s %s", b->name, b->usage);
		return;
	}
	for (i = 0; i < h->n; i++) {
		struct conv *cv;

		if (w2[0] != '\0' && casemap_cmp(w1, h->agents[i]->client->nick) != 0)
			continue;
		if (!policy_may(h, h->agents[i], policy))
			continue;
		cv = here_conv(h, h->agents[i]);
		authority_policy_set(cv, policy);
		here_reply(h, "%s: permission policy here is now %s",
		    h->agents[i]->client->nick, policy_name(policy));
	}
}

int
bang_is_server(const char *text)
{
	if (text[0] != '!' || text[1] == '!')
		return 0;
	return bang_find(text + 1, strcspn(text + 1, " ")) != NULL;
}

static int
agentcmd(struct here *h)
{
	const char *text = h->om->text, *rest;
	const struct bang *b;
	char word[WORDLEN];
	size_t i;

	if (text[0] == '!' && text[1] == '!') {
		h->om->text = text + 1;		/* CM-6: literally "!..." */
		return 0;
	}
	if (text[0] == '!') {
		rest = cmd_word(text + 1, word, sizeof(word));
		if ((b = bang_find(word, strlen(word))) != NULL) {
			if (bang_may(h, b))
				b->run(h, b, rest);
			else
				here_reply(h, "!%s is for the members of "
				    "%s: join it first", b->name, h->ch->name);
			return 1;
		}
		if (strchr(word, ':') != NULL)
			return cmd_named(h, word, rest);
		/* "!cmd" for a command some agent here announced. */
		for (i = 0; i < h->n; i++)
			if (agent_cmd_find(h->agents[i], word) != NULL)
				return cmd_slash(h, word, rest);
		if (h->n > 0 && bang_word_shaped(word)) {
			cmd_unknown(h, word);
			return 1;
		}
		return 0;
	}
	if (text[0] == '/') {
		rest = cmd_word(text + 1, word, sizeof(word));
		if (strchr(word, ':') != NULL)
			return cmd_named(h, word, rest);
		/* In a query the one agent gets it, raw (RT-7). */
		if (h->ch == NULL)
			return 0;
		return cmd_slash(h, word, rest);
	}
	return 0;
}

int
bang_channel(struct client *from, struct channel *ch, const char *key,
    struct outmsg *om)
{
	struct here h;

	memset(&h, 0, sizeof(h));
	h.from = from;
	h.ch = ch;
	h.key = key;
	h.target = ch->name;
	h.om = om;
	here_fill(&h);
	return agentcmd(&h);
}

int
bang_private(struct client *from, struct agent *a, const char *key,
    struct outmsg *om)
{
	struct here h;

	memset(&h, 0, sizeof(h));
	h.from = from;
	h.key = key;
	h.target = from->nick;
	h.om = om;
	h.agents[h.n++] = a;
	return agentcmd(&h);
}

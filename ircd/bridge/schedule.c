/*
 * schedule.c: the schedule engine. Schedules live in the database and in
 * memory, each with its own timer. A firing missed while the server was
 * down fires once when it is back, then the timetable goes on (SC-2); a
 * repetition is skipped while the previous one still waits (SC-3).
 * Prompts aimed at other conversations are counted per agent and held
 * past a budget until a person writes where they were made (SC-5).
 *
 * AU-5: a schedule aimed at another conversation is made only for a
 * person who asked and who belongs there (a member of the target
 * channel, or the target person), and waits for consent there: a card
 * in the target conversation, under every policy. A firing shows its
 * header and at most SCHED_SHOW_LINES lines of its prompt, and firings
 * into one conversation are paced (struct pace); the turn gets it all.
 */
#include "compat.h"

#include <event2/event.h>
#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/aim.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/policy.h"
#include "ircd/bridge/sched-args.h"
#include "ircd/bridge/schedule.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/clock.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/reply.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

#define SCHED_MAX_TARGET	20	/* SC-6: firing in one conversation */
#define SCHED_MAX_CREATED	20	/* SC-6: made for other conversations */
#define SCHED_BUDGET		30	/* SC-5: prompts elsewhere before a person */
#define SCHED_RECHECK_SEC	60	/* SC-5: held firings looked at again */
/* A firing's prompt lines are cut at this many bytes each (sched-args.h). */
#define SCHED_NOTICE_MAX	400
/*
 * What a card says it asks about, "schedule "<name>" in <target>
 * (repeating)": room for the longest name and target, twice over.
 */
#define SCHED_WHAT_LEN		400
/* A card quotes this much of the prompt's first line (AU-5). */
#define SCHED_QUOTE_MAX		80
/* AU-5, M7: a firing shows its header and this many lines of its prompt. */
#define SCHED_SHOW_LINES	5
/*
 * AU-5, M7: firings into one conversation, whatever schedules they come
 * from, go at most SCHED_PACE_PER_MIN a schedule-minute after a burst of
 * SCHED_PACE_BURST. One past that is not lost: it waits for its turn
 * (first come, first served) and then fires; a repeating one then keeps
 * its timetable, the slots missed meanwhile skipped as in SC-2.
 */
#define SCHED_PACE_BURST	5
#define SCHED_PACE_PER_MIN	6

struct sched {
	TAILQ_ENTRY(sched)	 entry;
	int64_t			 id;
	char			 agent[NICKLEN + 1];
	char			*name;
	char			*prompt;
	int64_t			 next;		/* ms */
	int			 every;		/* minutes, 0: once */
	char			 target[CONVKEY_LEN];	/* conversation keys */
	char			 target_name[CHANNELLEN + 1];
	int			 target_private;
	char			 creator[CONVKEY_LEN];
	char			 creator_name[CHANNELLEN + 1];
	int			 creator_private;
	char			 state[12];	/* active, pending, held */
	/* Who asked (AU-4, I7): a principal's key, or "" for nobody. */
	char			 owner[CONVKEY_LEN];
	int64_t			 slot;		/* ms: its paced turn, or 0 */
	struct event		*ev;
};

/*
 * AU-5: the pace of firings into one conversation, as a "theoretical
 * arrival time" (GCRA): a firing may go when now >= tat - (burst - 1) *
 * gap, and moves tat to max(tat, now) + gap. A conversation whose tat
 * is past has its whole burst again and is forgotten.
 */
struct pace {
	TAILQ_ENTRY(pace)	 entry;
	char			 target[CONVKEY_LEN];
	int64_t			 tat;
};

/* SC-5: per agent and creating conversation, prompts sent elsewhere. */
struct budget {
	TAILQ_ENTRY(budget)	 entry;
	char			 agent[NICKLEN + 1];
	char			 creator[CONVKEY_LEN];
	int			 used;
};

static TAILQ_HEAD(, sched) scheds = TAILQ_HEAD_INITIALIZER(scheds);
static TAILQ_HEAD(, budget) budgets = TAILQ_HEAD_INITIALIZER(budgets);
static TAILQ_HEAD(, pace) paces = TAILQ_HEAD_INITIALIZER(paces);
static struct event *recheck_ev;

static int64_t
sched_now(void)
{
	return client_time_now_ms();
}

static int64_t
sched_minute_ms(void)
{
	return (int64_t)ircd.conf->schedule_minute * 1000;
}

static int
sched_cross(const struct sched *s)
{
	return strcmp(s->target, s->creator) != 0;
}

static struct budget *
budget_get(const char *agent, const char *creator)
{
	struct budget *b;

	TAILQ_FOREACH(b, &budgets, entry)
		if (strcmp(b->agent, agent) == 0 && strcmp(b->creator, creator) == 0)
			return b;
	b = xcalloc(1, sizeof(*b));
	strlcpy(b->agent, agent, sizeof(b->agent));
	strlcpy(b->creator, creator, sizeof(b->creator));
	TAILQ_INSERT_TAIL(&budgets, b, entry);
	return b;
}

static int64_t
pace_gap_ms(void)
{
	return sched_minute_ms() / SCHED_PACE_PER_MIN;
}

/*
 * When may a firing into target go? now, or later: then that moment is
 * taken (the next one waits after it), so firings that wait go in turn.
 */
static int64_t
pace_take(const char *target, int64_t now)
{
	struct pace *p;
	int64_t gap = pace_gap_ms(), at;

	TAILQ_FOREACH(p, &paces, entry)
		if (strcmp(p->target, target) == 0)
			break;
	if (p == NULL) {
		p = xcalloc(1, sizeof(*p));
		strlcpy(p->target, target, sizeof(p->target));
		TAILQ_INSERT_TAIL(&paces, p, entry);
	}
	at = p->tat - (SCHED_PACE_BURST - 1) * gap;
	if (at < now)
		at = now;
	p->tat = (p->tat > at ? p->tat : at) + gap;
	return at;
}

/* Paces whose burst is whole again hold nothing worth keeping. */
static void
pace_trim(int64_t now)
{
	struct pace *p, *tp;

	TAILQ_FOREACH_SAFE(p, &paces, entry, tp)
		if (p->tat <= now) {
			TAILQ_REMOVE(&paces, p, entry);
			free(p);
		}
}

static void
sched_free(struct sched *s)
{
	TAILQ_REMOVE(&scheds, s, entry);
	card_forget(s);
	if (s->ev != NULL)
		event_free(s->ev);
	free(s->name);
	free(s->prompt);
	free(s);
}

static void
sched_delete(struct sched *s)
{
	store_schedule_delete(history_store(), s->id);
	sched_free(s);
}

static void sched_fire_cb(evutil_socket_t, short, void *);

static void
sched_arm(struct sched *s)
{
	struct timeval tv;
	int64_t now = sched_now(), at = s->slot != 0 ? s->slot : s->next;

	if (s->ev == NULL)
		s->ev = evtimer_new(ircd.base, sched_fire_cb, s);
	/* Compared first: a subtraction could overflow. */
	tv = clock_timeval(at > now ? (uint64_t)(at - now) : 0);
	evtimer_add(s->ev, &tv);
}

static void
sched_fmt_time(int64_t ms, char *buf, size_t len)
{
	clock_utc(buf, len, "%Y-%m-%d %H:%M:%S UTC", (time_t)(ms / 1000));
}

/* The conversation a schedule fires in, as the agent sees it. */
static struct conv *
sched_conv(struct sched *s)
{
	struct agent *a = agent_find(s->agent);

	if (a == NULL)
		return NULL;
	return conv_get(a, s->target, s->target_name, s->target_private);
}

/* One NOTICE line from the server in the target conversation, stored first. */
static void
sched_notice(struct conv *cv, const char *text, size_t len)
{
	conv_notice_stored(cv, text, message_utf8_trunc(text, len,
	    SCHED_NOTICE_MAX));
}

/*
 * SC-4: the NOTICE in the target conversation and the queued turn.
 * AU-5, M7: people see the header and the prompt's first lines, then
 * "…"; the agent's turn has the whole prompt.
 */
static void
sched_fire(struct sched *s)
{
	struct conv *cv;
	char header[IRC_LINELEN], line[SCHED_NOTICE_MAX + 1], *text;
	const char *p, *nl;
	int shown = 0;

	if ((cv = sched_conv(s)) == NULL)
		return;
	snprintf(header, sizeof(header), "[schedule sch_%lld \"%s\" \xc2\xb7 "
	    "automated message from %s, not from a user; it approves nothing]%s%s%s",
	    (long long)s->id, s->name, ircd.conf->name,
	    sched_cross(s) ? " (created in " : "", sched_cross(s) ?
	    authority_channel_name(NULL, s->creator_name) : "",
	    sched_cross(s) ? ")" : "");
	/* The header, then the prompt, a NOTICE per line. */
	sched_notice(cv, header, strlen(header));
	for (p = s->prompt; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		/* AU-6: an agent wrote it, people read it: shown plain. */
		acp_plain(line, sizeof(line), p, nl != NULL ? (size_t)(nl - p) :
		    strlen(p));
		if (line[0] == '\0')
			continue;
		if (shown++ == SCHED_SHOW_LINES) {
			sched_notice(cv, "\xe2\x80\xa6", 3);	/* "…" */
			break;
		}
		sched_notice(cv, line, strlen(line));
	}
	xasprintf(&text, "%s\n%s", header, s->prompt);
	turn_enqueue_sched(cv, ircd.conf->name, text, s->id,
	    s->owner[0] != '\0' ? s->owner : NULL);
	free(text);
}

static void
sched_fire_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s = arg;
	int64_t now = sched_now(), step, slot = s->slot;

	(void)fd;
	(void)what;
	s->slot = 0;		/* a paced turn, if it had one, is now */
	if (strcmp(s->state, "pending") == 0)
		return;		/* waits for a person's !allow */
	/*
	 * Its agent is not in the config (a reload removed it): kept as it
	 * is, not fired, not moved on; it fires when the agent is back.
	 */
	if (agent_find(s->agent) == NULL)
		return;
	/* SC-3: one prompt waiting is enough; a blocked session gets no pile. */
	if (turn_waiting_sched(s->id))
		log_info("schedule sch_%lld: previous firing still waiting; skipped",
		    (long long)s->id);
	else if (sched_cross(s) && budget_get(s->agent, s->creator)->used >= SCHED_BUDGET) {
		/* SC-5: held until a person writes where it was made. */
		if (strcmp(s->state, "held") != 0) {
			strlcpy(s->state, "held", sizeof(s->state));
			store_schedule_update(history_store(), s->id, s->next, s->state);
		}
		return;
	} else if (slot == 0 && (slot = pace_take(s->target, now)) > now) {
		/* AU-5: too many firings here of late; it goes at its turn. */
		s->slot = slot;
		sched_arm(s);
		return;
	} else {
		if (sched_cross(s))
			budget_get(s->agent, s->creator)->used++;
		strlcpy(s->state, "active", sizeof(s->state));
		sched_fire(s);
	}
	if (s->every == 0) {
		sched_delete(s);	/* SC-7: a one-shot has fired */
		return;
	}
	/*
	 * Keep the timetable: the next slot after now, not now plus a period,
	 * and at least one step (a timer may wake a hair before its time).
	 * Computed, not stepped to: a timetable far behind (an "at" long past)
	 * would otherwise take the loop away for as many steps.
	 */
	step = s->every * sched_minute_ms();
	s->next += step;
	if (s->next <= now)
		s->next = now + (step - (int64_t)(((uint64_t)now -
		    (uint64_t)s->next) % (uint64_t)step));
	store_schedule_update(history_store(), s->id, s->next, s->state);
	sched_arm(s);
}

/* Held firings are looked at again every minute (SC-5). */
static void
sched_recheck_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sched *s, *ts;

	(void)fd;
	(void)what;
	(void)arg;
	pace_trim(sched_now());
	TAILQ_FOREACH_SAFE(s, &scheds, entry, ts)
		if (strcmp(s->state, "held") == 0 &&
		    budget_get(s->agent, s->creator)->used < SCHED_BUDGET)
			sched_fire_cb(-1, 0, s);
}

void
schedule_person_spoke(const char *key)
{
	struct budget *b;
	struct sched *s, *ts;

	TAILQ_FOREACH(b, &budgets, entry)
		if (strcmp(b->creator, key) == 0)
			b->used = 0;
	TAILQ_FOREACH_SAFE(s, &scheds, entry, ts)
		if (strcmp(s->creator, key) == 0 && strcmp(s->state, "held") == 0)
			sched_fire_cb(-1, 0, s);
}

/* The schedule ss (as stored), in memory too. */
static struct sched *
sched_new(const struct store_schedule *ss)
{
	struct sched *s = xcalloc(1, sizeof(*s));

	s->id = ss->id;
	strlcpy(s->agent, ss->agent, sizeof(s->agent));
	s->name = xstrdup(ss->name);
	s->prompt = xstrdup(ss->prompt);
	s->next = ss->next;
	s->every = ss->every;
	strlcpy(s->target, ss->target, sizeof(s->target));
	strlcpy(s->target_name, ss->target_name, sizeof(s->target_name));
	s->target_private = ss->target_private;
	strlcpy(s->creator, ss->creator, sizeof(s->creator));
	strlcpy(s->creator_name, ss->creator_name, sizeof(s->creator_name));
	s->creator_private = ss->creator_private;
	strlcpy(s->state, ss->state != NULL ? ss->state : "active", sizeof(s->state));
	/* Rows of before AU-4 name a nick here, which is nobody's key. */
	if (ss->provenance != NULL && (strncmp(ss->provenance, "a:", 2) == 0 ||
	    convkey_is_connection(ss->provenance)))
		strlcpy(s->owner, ss->provenance, sizeof(s->owner));
	TAILQ_INSERT_TAIL(&scheds, s, entry);
	return s;
}

/*
 * Does conversation key (of agent) belong to a person not logged in, a
 * connection? None outlives its run (SC-7).
 */
static int
sched_of_connection(const char *key, const char *agent)
{
	struct convkey me, other;

	convkey_service(&me, agent);
	return convkey_is_connection(key) || (convkey_other(key, me.s,
	    &other) == 0 && convkey_is_connection(other.s));
}

static void
sched_load(const struct store_schedule *ss, void *arg)
{
	struct store_schedule in = *ss;
	int64_t now = sched_now();

	(void)arg;
	/*
	 * A stored row is not trusted to be in range (the tools check what
	 * they store, but the database may have been written otherwise): a
	 * time before 1970 fires at once, one beyond a year comes in a year.
	 */
	in.next = ss->next < 0 ? 0 : ss->next;
	if (in.next > now + SCHED_AHEAD_MAX_MS)
		in.next = now + SCHED_AHEAD_MAX_MS;
	in.every = ss->every < 0 ? 0 : ss->every > SCHED_EVERY_MAX ?
	    SCHED_EVERY_MAX : ss->every;
	/*
	 * SC-2: a firing missed while down fires once, at once (the timer
	 * clamps a past time to now); the firing then moves next to the
	 * first slot of its timetable after now.
	 */
	sched_arm(sched_new(&in));
}

static void sched_approved(int, void *);

/*
 * The prompt's first line as a card quotes it: plain (AU-6), and short,
 * cut with "…".
 */
static void
sched_quote(const char *prompt, char *buf, size_t len)
{
	const char *nl;

	prompt += strspn(prompt, "\n");
	nl = strchr(prompt, '\n');
	acp_plain(buf, len, prompt, nl != NULL ? (size_t)(nl - prompt) :
	    strlen(prompt));
}

/*
 * AU-5: consent where it will fire, asked by a card in the target
 * conversation: which agent (the card's sender), the schedule's name,
 * where it was asked and by whom, and what it would say. Its answer is
 * an operator's of the target channel, or the target person's (card.c).
 */
static unsigned
sched_card_open(struct agent *a, struct sched *s, const char *who)
{
	char what[SCHED_WHAT_LEN], quote[SCHED_QUOTE_MAX];

	sched_quote(s->prompt, quote, sizeof(quote));
	snprintf(what, sizeof(what), "schedule \"%s\" here (%s), asked in %s%s%s; "
	    "it starts: \"%s\"", s->name, s->every > 0 ? "repeating" : "once",
	    authority_channel_name(NULL, s->creator_name), who != NULL ?
	    " by " : "", who != NULL ? who : "", quote);
	return card_open_server(conv_get(a, s->target, s->target_name,
	    s->target_private), NULL, what, sched_approved, s);
}

/*
 * A schedule that waited for consent when the server stopped gets its
 * card again, in the conversation it is aimed at (AU-5).
 */
static void
sched_reopen_cards(void)
{
	struct sched *s;
	struct agent *a;

	TAILQ_FOREACH(s, &scheds, entry) {
		if (strcmp(s->state, "pending") != 0 || (a = agent_find(s->agent)) == NULL)
			continue;
		sched_card_open(a, s, strncmp(s->owner, "a:", 2) == 0 ?
		    s->owner + 2 : NULL);
	}
}

int
schedule_init(void)
{
	/* "Every minute", in the configured minute. */
	struct timeval tv = { ircd.conf->schedule_minute * SCHED_RECHECK_SEC / 60, 0 };
	struct sched *s, *ts;

	store_schedule_list(history_store(), sched_load, NULL);
	/* SC-7, AU-4: their person's connection ended with the last run. */
	TAILQ_FOREACH_SAFE(s, &scheds, entry, ts)
		if (sched_of_connection(s->target, s->agent) ||
		    sched_of_connection(s->creator, s->agent))
			sched_delete(s);
	sched_reopen_cards();
	recheck_ev = event_new(ircd.base, -1, EV_PERSIST, sched_recheck_cb, NULL);
	event_add(recheck_ev, &tv);
	return 0;
}

void
schedule_shutdown(void)
{
	struct sched *s;
	struct budget *b;
	struct pace *p;

	while ((s = TAILQ_FIRST(&scheds)) != NULL)
		sched_free(s);
	while ((p = TAILQ_FIRST(&paces)) != NULL) {
		TAILQ_REMOVE(&paces, p, entry);
		free(p);
	}
	while ((b = TAILQ_FIRST(&budgets)) != NULL) {
		TAILQ_REMOVE(&budgets, b, entry);
		free(b);
	}
	if (recheck_ev != NULL)
		event_free(recheck_ev);
	recheck_ev = NULL;
}

/* ---- the tools ---- */

static void
sched_approved(int allowed, void *arg)
{
	struct sched *s = arg;

	if (!allowed) {
		log_info("schedule sch_%lld refused", (long long)s->id);
		sched_delete(s);
		return;
	}
	strlcpy(s->state, "active", sizeof(s->state));
	schedule_person_spoke(s->creator);	/* a person's yes resets the budget */
	store_schedule_update(history_store(), s->id, s->next, s->state);
	sched_arm(s);
}

int
schedule_tool_create(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	struct sched_args sa;
	struct agent *a = cv->agent;
	struct store_schedule ss;
	struct sched *s;
	struct convkey tkey;
	char tname[CHANNELLEN + 1], when[40];
	const char *name, *prompt, *target;
	int every, tpriv = 0, ntarget = 0, ncreated = 0, cross;
	int64_t next, now = sched_now();

	if (sched_args_parse(args, now, sched_minute_ms(), &sa, out, len) == -1)
		return 1;
	name = sa.name;
	prompt = sa.prompt;
	target = sa.target;
	every = sa.every;
	next = sa.next;
	/* The target: this conversation, or one the person who asked is in. */
	if (target == NULL || target[0] == '\0') {
		strlcpy(tkey.s, cv->key, sizeof(tkey.s));
		strlcpy(tname, cv->target, sizeof(tname));
		tpriv = cv->private;
	} else if (aim_target(cv, target, "a schedule", &tkey, tname,
	    sizeof(tname), &tpriv, out, len) == -1)
		return 1;
	cross = strcmp(tkey.s, cv->key) != 0;
	/* SC-6: 20 firing in a conversation, 20 made for others. */
	TAILQ_FOREACH(s, &scheds, entry) {
		if (strcmp(s->target, tkey.s) == 0)
			ntarget++;
		if (cross && strcmp(s->creator, cv->key) == 0 && sched_cross(s))
			ncreated++;
	}
	if (ntarget >= SCHED_MAX_TARGET) {
		snprintf(out, len, "%s already has %d schedules firing in it: "
		    "unschedule one first", tname, SCHED_MAX_TARGET);
		return 1;
	}
	if (cross && ncreated >= SCHED_MAX_CREATED) {
		snprintf(out, len, "this conversation already made %d schedules for "
		    "others: unschedule one first", SCHED_MAX_CREATED);
		return 1;
	}
	memset(&ss, 0, sizeof(ss));
	ss.agent = a->client->nick;
	ss.name = name;
	ss.prompt = prompt;
	ss.next = next;
	ss.every = every;
	ss.target = tkey.s;
	ss.target_name = tname;
	ss.target_private = tpriv;
	ss.creator = cv->key;
	ss.creator_name = cv->target;
	ss.creator_private = cv->private;
	ss.created = now;
	/* Who asked: a principal (AU-4), so that only they may unschedule (I7). */
	ss.provenance = cv->turn != NULL && cv->turn->principal.s[0] != '\0' ?
	    cv->turn->principal.s : NULL;
	/*
	 * AU-5, SC-5: aimed elsewhere, it waits for consent there, whatever
	 * the policy: a prompt in someone else's conversation is no tool call
	 * of this one that a policy could allow.
	 */
	ss.state = cross ? "pending" : "active";
	if (cross && conv_policy(cv) == POLICY_DENY_ALL) {
		snprintf(out, len, "the policy here (deny-all) refuses schedules for "
		    "other conversations");
		return 1;
	}
	if (store_schedule_add(history_store(), &ss) == -1) {
		snprintf(out, len, "the schedule could not be stored; try again");
		return 1;
	}
	s = sched_new(&ss);
	sched_fmt_time(next, when, sizeof(when));
	if (cross) {
		unsigned n = sched_card_open(a, s, cv->turn->requester);

		snprintf(out, len, "sch_%lld waits for a person to allow it "
		    "(card %u in %s, for %s); then it fires first at %s",
		    (long long)s->id, n, tname, tpriv ? tname :
		    "an operator there", when);
		return 0;
	}
	sched_arm(s);
	snprintf(out, len, "scheduled sch_%lld \"%s\" in %s, first at %s",
	    (long long)s->id, name, tname, when);
	if (every > 0)
		snprintf(out + strlen(out), len - strlen(out), ", then every %d min",
		    every);
	return 0;
}

static struct sched *
sched_by_id(const char *id)
{
	struct sched *s;
	long long n;

	if (id == NULL)
		return NULL;
	if (strncmp(id, "sch_", 4) == 0)
		id += 4;
	n = strtoll(id, NULL, 10);
	TAILQ_FOREACH(s, &scheds, entry)
		if (s->id == n)
			return s;
	return NULL;
}

int
schedule_tool_delete(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	const cJSON *idj = cJSON_GetObjectItemCaseSensitive(args, "id");
	char idbuf[32];
	const char *id = cJSON_GetStringValue(idj);
	struct sched *s;

	if (id == NULL && cJSON_IsNumber(idj)) {
		snprintf(idbuf, sizeof(idbuf), "%lld", (long long)idj->valuedouble);
		id = idbuf;
	}
	/* SEC-3: only the agent's own, made in or aimed at this conversation. */
	if ((s = sched_by_id(id)) == NULL || strcmp(s->agent, cv->agent->client->nick) != 0 ||
	    (strcmp(s->creator, cv->key) != 0 && strcmp(s->target, cv->key) != 0)) {
		snprintf(out, len, "no schedule %s of yours here", id != NULL ? id : "?");
		return 1;
	}
	snprintf(out, len, "unscheduled sch_%lld \"%s\"", (long long)s->id, s->name);
	sched_delete(s);
	return 0;
}

/* One line of a list for viewer, who is told no +s channel it is not in (AU-8). */
static void
sched_describe(const struct sched *s, const struct client *viewer, char *buf,
    size_t len)
{
	char when[40], every[32] = "", state[CHANNELLEN + 64] = "";

	sched_fmt_time(s->next, when, sizeof(when));
	if (s->every > 0)
		snprintf(every, sizeof(every), ", every %d min", s->every);
	if (strcmp(s->state, "held") == 0)
		snprintf(state, sizeof(state), ", held: waiting until you write in %s",
		    authority_channel_name(viewer, s->creator_name));
	else if (strcmp(s->state, "pending") == 0)
		strlcpy(state, ", pending: waiting for !allow", sizeof(state));
	snprintf(buf, len, "sch_%lld \"%s\" by %s in %s, next %s%s%s",
	    (long long)s->id, s->name, s->agent,
	    authority_channel_name(viewer, s->target_name), when, every, state);
}

int
schedule_tool_list(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	struct sched *s;
	char line[IRC_LINELEN];

	(void)args;
	out[0] = '\0';
	TAILQ_FOREACH(s, &scheds, entry) {
		if (strcmp(s->agent, cv->agent->client->nick) != 0 ||
		    (strcmp(s->creator, cv->key) != 0 && strcmp(s->target, cv->key) != 0))
			continue;
		sched_describe(s, cv->agent->client, line, sizeof(line));
		strlcat(out, line, len);
		strlcat(out, "\n", len);
	}
	if (out[0] == '\0')
		strlcpy(out, "no schedules", len);
	return 0;
}

/* ---- people ---- */

/*
 * I7: the channel of conversation key, if c is in it; NULL and a NOTICE
 * why when c is not. *ch is NULL for a private conversation.
 */
static int
sched_member(struct client *c, const char *key, struct channel **ch)
{
	*ch = NULL;
	if (!convkey_is_channel(key))
		return 0;
	if ((*ch = channel_find(key)) == NULL ||
	    channel_member(*ch, c) == NULL) {
		reply_notice_in(c, key, "You are not in %s", key);
		return -1;
	}
	return 0;
}

/*
 * I7: who may end s from conversation key: the person who asked for it,
 * an operator of the channel, the person of a private conversation (it
 * fires in theirs, or was made there), an IRC operator, or an admin of
 * its agent.
 */
static int
sched_may_end(const struct sched *s, struct client *c, const char *key,
    struct channel *ch)
{
	struct convkey p, agent;
	struct member *m;
	struct agent *a;

	/* As !stop: IRC operators and the agent's admins (AU-1). */
	if (client_is_oper(c) || ((a = agent_find(s->agent)) != NULL &&
	    authority_may_loosen(a, c)))
		return 1;
	if (s->owner[0] != '\0') {
		strlcpy(p.s, s->owner, sizeof(p.s));
		if (history_principal_is(c, &p))
			return 1;
	}
	if (ch != NULL)
		return (m = channel_member(ch, c)) != NULL &&
		    (m->modes & MEMBER_OP) != 0;
	convkey_service(&agent, s->agent);
	return convkey_other(key, agent.s, &p) == 0 && history_principal_is(c, &p);
}

void
schedule_user_list(struct client *c, const char *key)
{
	struct sched *s;
	struct channel *ch;
	const char *where;	/* TN-11: the replies land there */
	char line[IRC_LINELEN];
	int n = 0;

	if (sched_member(c, key, &ch) == -1)
		return;
	where = ch != NULL ? ch->name : NULL;
	TAILQ_FOREACH(s, &scheds, entry) {
		if (strcmp(s->creator, key) != 0 && strcmp(s->target, key) != 0)
			continue;
		sched_describe(s, c, line, sizeof(line));
		reply_notice_in(c, where, "%s", line);
		n++;
	}
	if (n == 0)
		reply_notice_in(c, where, "Nothing is scheduled here");
}

void
schedule_user_delete(struct client *c, const char *key, const char *id)
{
	struct sched *s = sched_by_id(id);
	struct channel *ch;
	const char *where;	/* TN-11: the replies land there */

	if (sched_member(c, key, &ch) == -1)
		return;
	where = ch != NULL ? ch->name : NULL;
	if (s == NULL || (strcmp(s->creator, key) != 0 && strcmp(s->target, key) != 0)) {
		reply_notice_in(c, where, "No schedule %s here",
		    id != NULL && *id ? id : "?");
		return;
	}
	if (!sched_may_end(s, c, key, ch)) {
		reply_notice_in(c, where, "sch_%lld \"%s\" is not yours: only "
		    "who asked for it, %s, an IRC operator or %s's admins may "
		    "unschedule it",
		    (long long)s->id, s->name, ch != NULL ? "a channel operator" :
		    "the person here", s->agent);
		return;
	}
	reply_notice_in(c, where, "Unscheduled sch_%lld \"%s\"",
	    (long long)s->id, s->name);
	sched_delete(s);
}

void
schedule_agent_gone(const char *nick)
{
	struct sched *s;

	TAILQ_FOREACH(s, &scheds, entry)
		if (strcmp(s->agent, nick) == 0 && s->ev != NULL)
			evtimer_del(s->ev);
}

void
schedule_agent_back(struct agent *a)
{
	struct sched *s;

	TAILQ_FOREACH(s, &scheds, entry) {
		if (strcmp(s->agent, a->client->nick) != 0)
			continue;
		/* SC-2: one missed while it was away fires once, now. */
		sched_arm(s);
		if (strcmp(s->state, "pending") == 0)
			sched_card_open(a, s, strncmp(s->owner, "a:", 2) == 0 ?
			    s->owner + 2 : NULL);
	}
}

void
schedule_drop(struct agent *a, const char *key)
{
	struct sched *s, *ts;

	TAILQ_FOREACH_SAFE(s, &scheds, entry, ts)
		if (strcmp(s->agent, a->client->nick) == 0 &&
		    (strcmp(s->target, key) == 0 || strcmp(s->creator, key) == 0))
			sched_delete(s);
}

void
schedule_drop_conv(const char *key)
{
	struct sched *s, *ts;

	TAILQ_FOREACH_SAFE(s, &scheds, entry, ts)
		if (convkey_involves(s->target, key) ||
		    convkey_involves(s->creator, key))
			sched_delete(s);
}

void
schedule_user_quit(struct client *c)
{
	struct convkey key;

	if (c->flags & CLIENT_SERVICE)
		return;
	/* Its connection's key, the one it had before any login. */
	convkey_connection(&key, ircd.msgid_base, c->id);
	schedule_drop_conv(key.s);
}

void
schedule_join_summary(struct client *c, struct channel *ch)
{
	struct sched *s, *first = NULL;
	struct convkey key;
	char when[40];
	int n = 0;

	history_channel_conv(ch, &key);
	TAILQ_FOREACH(s, &scheds, entry) {
		if (strcmp(s->target, key.s) != 0)
			continue;
		n++;
		if (first == NULL || s->next < first->next)
			first = s;
	}
	if (n == 0)
		return;
	clock_utc(when, sizeof(when), "%H:%M", (time_t)(first->next / 1000));
	reply_notice(c, "%d scheduled, next at %s (%s)", n, when, first->name);
}

/*
 * task.c: hand-offs between agents by MCP tool (MN-7). Prose is read
 * for names (handoff.c) only when a turn ends, and nobody corrects a
 * guess; these tools say whom they mean, and what comes of it.
 *
 * Each hand-off is a task: its text is posted in the conversation as a
 * message from the calling agent (people see what agents tell each
 * other), then queued as the named agent's turn there, one agent deeper
 * in the caller's chain and answering for the chain's person (AU-4).
 * handoff_allow() is the one check for mentions and tools alike (MN-4):
 * a tool reaches no further than prose could. A task is in memory while
 * in flight and in the database always, so task_status still knows it
 * after a restart (as interrupted, when the stop cut it).
 */
#include "compat.h"

#include <event2/event.h>
#include <cjson/cJSON.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/aim.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/conv.h"
#include "ircd/bridge/handoff.h"
#include "ircd/bridge/mcp.h"
#include "ircd/bridge/policy.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/task.h"
#include "ircd/bridge/turn.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "ircd/message.h"
#include "ircd/xmalloc.h"
#include "store/store.h"

/* Tasks one conversation may have in flight (pending, waiting, running). */
#define TASK_MAX_FLIGHT		20
/* A task's text, and the answer kept as its result, in bytes. */
#define TASK_TEXT_MAX		(16 * 1024)
#define TASK_RESULT_MAX		(16 * 1024)
/* ask_agent's wait: by default, and at most (more is taken as this). */
#define TASK_ASK_DEFAULT	600
#define TASK_ASK_MAX		1800
/* The lines of a text posted, and of a result posted back, then "…". */
#define TASK_SHOW_LINES		5
/* Each posted line is cut at this many bytes (a line of IRC holds it). */
#define TASK_LINE_MAX		400
/* Tasks task_status lists, and !status shows. */
#define TASK_LIST_MAX		10
/* A consent card quotes this much of the text's first line (AU-5). */
#define TASK_QUOTE_MAX		80

enum task_kind {
	TASK_SEND,
	TASK_ASK,
	TASK_DELEGATE
};

static const char *const task_kinds[] = { "send", "ask", "delegate" };
static const char *const task_tools[] = {
	"send_to_agent", "ask_agent", "delegate_task"
};

struct task {
	TAILQ_ENTRY(task)	 entry;
	int64_t			 id;
	enum task_kind		 kind;
	char			 state[12];	/* pending, waiting, running */
	char			 from_agent[NICKLEN + 1];
	char			 from_key[CONVKEY_LEN];
	char			 from_name[CHANNELLEN + 1];
	char			 to_agent[NICKLEN + 1];
	char			 to_key[CONVKEY_LEN];
	char			 to_name[CHANNELLEN + 1];
	char			*text;
	int64_t			 created;	/* ms */
	/* MN-4: the chain its turn joins, taken from the calling turn. */
	struct turn_chain	 chain;
	uint64_t		 call;		/* ask: the MCP call waiting, or 0 */
	struct event		*late;		/* ask: when the call is told */
	int			 wait;		/* ask: seconds */
};

static TAILQ_HEAD(task_list_head, task) tasks = TAILQ_HEAD_INITIALIZER(tasks);

static int64_t
task_now(void)
{
	return client_time_now_ms();
}

static struct task *
task_find(int64_t id)
{
	struct task *t;

	TAILQ_FOREACH(t, &tasks, entry)
		if (t->id == id)
			return t;
	return NULL;
}

static void
task_free(struct task *t)
{
	TAILQ_REMOVE(&tasks, t, entry);
	card_forget(t);
	if (t->late != NULL)
		event_free(t->late);
	free(t->text);
	free(t);
}

/* "12s", "3m", "2h", "4d": how long ago ms was. */
static void
task_age(int64_t ms, char *buf, size_t len)
{
	int64_t s = (task_now() - ms) / 1000;

	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 7200)
		snprintf(buf, len, "%lldm", (long long)s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, len, "%lldh", (long long)s / 3600);
	else
		snprintf(buf, len, "%lldd", (long long)s / 86400);
}

/* One NOTICE line from the server in cv, stored, plain and bounded. */
static void
task_notice(struct conv *cv, const char *text, size_t len)
{
	char line[TASK_LINE_MAX + 1];

	/* AU-6: an agent wrote it, people read it: shown plain. */
	acp_plain(line, sizeof(line), text, len);
	if (line[0] != '\0')
		conv_notice_stored(cv, line, message_utf8_trunc(line,
		    strlen(line), TASK_LINE_MAX));
}

/*
 * The conversation of agent nick with key, in memory or made again;
 * NULL when the agent is gone.
 */
static struct conv *
task_conv(const char *nick, const char *key, const char *name)
{
	struct agent *a = agent_find(nick);

	return a != NULL ? conv_get(a, key, name, 0) : NULL;
}

/*
 * delegate_task: the result goes back where the task was given, as a
 * NOTICE naming the task, its first lines, then "…" (AU-5's bound: the
 * whole is task_status's).
 */
static void
task_post_back(const struct task *t, const char *state, const char *result)
{
	struct conv *cv;
	char header[IRC_LINELEN];
	const char *p, *nl;
	int shown = 0;

	if ((cv = task_conv(t->from_agent, t->from_key, t->from_name)) == NULL)
		return;
	snprintf(header, sizeof(header), "[task_%lld %s: %s's result for %s%s%s]",
	    (long long)t->id, state, t->to_agent, t->from_agent,
	    strcmp(t->to_key, t->from_key) != 0 ? ", in " : "",
	    strcmp(t->to_key, t->from_key) != 0 ? t->to_name : "");
	task_notice(cv, header, strlen(header));
	for (p = result; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 :
	    NULL) {
		nl = strchr(p, '\n');
		if (p[strspn(p, " \t\r")] == '\n' ||
		    p[strspn(p, " \t\r")] == '\0')
			continue;
		if (shown++ == TASK_SHOW_LINES) {
			conv_notice_stored(cv, "\xe2\x80\xa6", 3);	/* "…" */
			break;
		}
		task_notice(cv, p, nl != NULL ? (size_t)(nl - p) : strlen(p));
	}
}

/*
 * t ends in state ("done", "failed", "cancelled") with result (the
 * answer, or why not): stored; a waiting ask_agent call is answered; a
 * delegated task's result is posted back. t is freed.
 */
static void
task_end(struct task *t, const char *state, const char *result)
{
	char *cut = NULL, *msg;
	size_t n = strlen(result);
	int done = strcmp(state, "done") == 0;

	if (n > TASK_RESULT_MAX) {
		n = message_utf8_trunc(result, n, TASK_RESULT_MAX);
		xasprintf(&cut, "%.*s\xe2\x80\xa6", (int)n, result);
		result = cut;
	}
	store_task_set(history_store(), t->id, state, result, task_now());
	if (t->call != 0) {
		if (done)
			mcp_answer(t->call, result[0] != '\0' ? result :
			    "(it answered with no text)", 0);
		else {
			xasprintf(&msg, "task_%lld %s: %s did not answer: %s",
			    (long long)t->id, state, t->to_agent, result);
			mcp_answer(t->call, msg, 1);
			free(msg);
		}
		t->call = 0;
	}
	if (t->kind == TASK_DELEGATE)
		task_post_back(t, state, result);
	free(cut);
	task_free(t);
}

static void
task_set_state(struct task *t, const char *state)
{
	strlcpy(t->state, state, sizeof(t->state));
	store_task_set(history_store(), t->id, state, NULL, 0);
}

/*
 * Post t's text in its conversation as from its agent, then queue it as
 * the named agent's turn there (MN-2: brought in first if need be).
 * -1 and why when it cannot go.
 */
static int
task_dispatch(struct task *t, char *why, size_t len)
{
	struct agent *a = agent_find(t->to_agent);
	struct conv *from, *to;
	struct channel *ch;
	struct client *person;
	char line[TASK_LINE_MAX + 1], msgid[64] = "", first[64] = "";
	const char *p, *nl;
	int64_t hid, hid_from = 0, hid_last = 0;
	int shown = 0;

	if (a == NULL) {
		snprintf(why, len, "%s is gone", t->to_agent);
		return -1;
	}
	if ((ch = channel_find(t->to_name)) == NULL ||
	    (from = task_conv(t->from_agent, t->to_key, t->to_name)) == NULL ||
	    channel_member(ch, from->agent->client) == NULL) {
		snprintf(why, len, "%s is not in %s any more", t->from_agent,
		    t->to_name);
		return -1;
	}
	if ((person = handoff_person(&t->chain.origin)) == NULL) {
		snprintf(why, len, "no person who started this chain is here "
		    "to answer for it");
		return -1;
	}
	/* AG-2: brought in first, as a person's mention would. */
	if (channel_member(ch, a->client) == NULL &&
	    agent_join(a, person, ch) == -1) {
		snprintf(why, len, "%s cannot join %s", t->to_agent, ch->name);
		return -1;
	}
	/*
	 * People see what one agent hands another: "bob: " and the text's
	 * first lines, then "…"; the turn gets the whole text.
	 */
	for (p = t->text; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 :
	    NULL) {
		char said[TASK_LINE_MAX + NICKLEN + 32];

		nl = strchr(p, '\n');
		acp_plain(line, sizeof(line), p, nl != NULL ? (size_t)(nl - p) :
		    strlen(p));
		if (line[0] == '\0')
			continue;
		if (shown == TASK_SHOW_LINES) {
			strlcpy(line, "\xe2\x80\xa6", sizeof(line));
			nl = NULL;
		}
		if (shown++ == 0 && t->kind == TASK_DELEGATE)
			snprintf(said, sizeof(said), "%s: [task_%lld] %s",
			    t->to_agent, (long long)t->id, line);
		else if (shown == 1)
			snprintf(said, sizeof(said), "%s: %s", t->to_agent, line);
		else
			strlcpy(said, line, sizeof(said));
		said[message_utf8_trunc(said, strlen(said), TASK_LINE_MAX)] =
		    '\0';
		if ((hid = stream_post(from, said, msgid, sizeof(msgid))) == 0)
			break;
		if (hid_from == 0) {
			hid_from = hid;
			strlcpy(first, msgid, sizeof(first));
		}
		hid_last = hid;
	}
	if (hid_from == 0) {
		snprintf(why, len, "%s may not speak in %s (moderated, or "
		    "banned there)", t->from_agent, ch->name);
		return -1;
	}
	to = conv_get(a, t->to_key, ch->name, 0);
	task_set_state(t, "waiting");
	turn_enqueue_tool(to, &t->chain, t->text, first, hid_from, hid_last,
	    t->id);
	return 0;
}

/* AU-5: consent in the target conversation, from a person there. */
static void
task_approved(int allowed, void *arg)
{
	struct task *t = arg;
	struct agent *a = agent_find(t->to_agent);
	char why[300];

	if (!allowed) {
		task_end(t, "cancelled", "nobody allowed it there");
		return;
	}
	if (a == NULL) {
		task_end(t, "failed", "that agent is gone");
		return;
	}
	/* The chain's person must still be here, and allowed to talk to it. */
	if (!handoff_allow(&t->chain, a, 0, why, sizeof(why)) ||
	    task_dispatch(t, why, sizeof(why)) == -1)
		task_end(t, "failed", why);
}

/*
 * MN-7: the agent named name, exactly (casemapping aside); none, or
 * itself, is an error listing the agents that are.
 */
static struct agent *
task_agent(struct conv *cv, const char *name, char *out, size_t len)
{
	struct agent *a = NULL;
	struct client *c;
	char list[IRC_LINELEN] = "";
	int n = 0;

	/* Nicks are unique under casemapping: one exact match or none. */
	TAILQ_FOREACH(c, &ircd.all, entry) {
		struct agent *o = agent_of_client(c);

		if (o == NULL || o == cv->agent)
			continue;
		if (casemap_cmp(c->nick, name) == 0)
			a = o;
		if (n++ > 0)
			strlcat(list, ", ", sizeof(list));
		strlcat(list, c->nick, sizeof(list));
	}
	if (a != NULL)
		return a;
	if (casemap_cmp(cv->agent->client->nick, name) == 0)
		snprintf(out, len, "%s is you: hand work to another agent "
		    "(agents: %s)", name, n > 0 ? list : "none");
	else
		snprintf(out, len, "no agent is named exactly \"%s\" (agents: "
		    "%s)", name, n > 0 ? list : "none");
	return NULL;
}

/*
 * The common part of the three hand-off tools: checks, the task made
 * and stored, then posted and queued, or a card opened for consent
 * elsewhere. The task's id, or 0 with the reason in out.
 */
static int64_t
task_make(struct conv *cv, const cJSON *args, enum task_kind kind,
    const char *field, char *out, size_t len)
{
	struct turn *run = cv->turn;
	struct agent *a;
	struct store_task st;
	struct task *t;
	struct convkey tkey;
	char tname[CHANNELLEN + 1], why[300];
	const char *name, *text, *target = NULL;
	int tpriv = 0, n = 0, cross;
	int64_t id;

	name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args,
	    "agent"));
	text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args,
	    field));
	if (kind == TASK_SEND)
		target = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(args, "target"));
	if (name == NULL || name[0] == '\0' || text == NULL ||
	    text[strspn(text, " \t\r\n")] == '\0') {
		snprintf(out, len, "%s needs \"agent\" and \"%s\"",
		    task_tools[kind], field);
		return 0;
	}
	if (strlen(text) > TASK_TEXT_MAX) {
		snprintf(out, len, "the %s is over %d bytes: shorten it", field,
		    TASK_TEXT_MAX);
		return 0;
	}
	/* SEC-3, AU-4: a hand-off is the running turn's, for its person. */
	if (run == NULL) {
		snprintf(out, len, "no turn of yours is running in this "
		    "conversation, so there is no person to answer for a "
		    "hand-off: use it while answering");
		return 0;
	}
	if ((a = task_agent(cv, name, out, len)) == NULL)
		return 0;
	/* MN-2: a private conversation has nobody to bring in. */
	if (cv->private) {
		snprintf(out, len, "this is a private conversation: no other "
		    "agent can be brought into it. Ask in a channel where both "
		    "%s and you are", a->client->nick);
		return 0;
	}
	if (target == NULL || target[0] == '\0') {
		strlcpy(tkey.s, cv->key, sizeof(tkey.s));
		strlcpy(tname, cv->target, sizeof(tname));
	} else if (aim_target(cv, target, "a message", &tkey, tname,
	    sizeof(tname), &tpriv, out, len) == -1)
		return 0;
	if (tpriv) {
		snprintf(out, len, "%s is a private conversation: no other "
		    "agent can be brought into it. Aim at a channel", tname);
		return 0;
	}
	cross = strcmp(tkey.s, cv->key) != 0;
	if (cross && conv_policy(cv) == POLICY_DENY_ALL) {
		snprintf(out, len, "the policy here (deny-all) refuses "
		    "messages for other conversations");
		return 0;
	}
	TAILQ_FOREACH(t, &tasks, entry)
		if (strcmp(t->from_key, cv->key) == 0)
			n++;
	if (n >= TASK_MAX_FLIGHT) {
		snprintf(out, len, "this conversation has %d tasks in flight "
		    "already, the most it may have: wait for one to end",
		    TASK_MAX_FLIGHT);
		return 0;
	}
	t = xcalloc(1, sizeof(*t));
	turn_chain_from(run, &t->chain);
	/* MN-4, MN-5: a tool reaches no further than a mention could. */
	if (!handoff_allow(&t->chain, a, 1, why, sizeof(why))) {
		conv_notice(cv, "%s's %s to %s was refused: %s",
		    cv->agent->client->nick, task_tools[kind], a->client->nick,
		    why);
		snprintf(out, len, "refused: %s was not handed this: %s",
		    a->client->nick, why);
		free(t);
		return 0;
	}
	t->kind = kind;
	strlcpy(t->state, cross ? "pending" : "waiting", sizeof(t->state));
	strlcpy(t->from_agent, cv->agent->client->nick, sizeof(t->from_agent));
	strlcpy(t->from_key, cv->key, sizeof(t->from_key));
	strlcpy(t->from_name, cv->target, sizeof(t->from_name));
	strlcpy(t->to_agent, a->client->nick, sizeof(t->to_agent));
	strlcpy(t->to_key, tkey.s, sizeof(t->to_key));
	strlcpy(t->to_name, tname, sizeof(t->to_name));
	t->text = xstrdup(text);
	t->created = task_now();
	memset(&st, 0, sizeof(st));
	st.kind = task_kinds[kind];
	st.from_agent = t->from_agent;
	st.from_conv = t->from_key;
	st.from_name = t->from_name;
	st.to_agent = t->to_agent;
	st.conv = t->to_key;
	st.conv_name = t->to_name;
	st.text = t->text;
	st.state = t->state;
	st.created = t->created;
	st.principal = t->chain.principal.s[0] != '\0' ?
	    t->chain.principal.s : NULL;
	if (store_task_add(history_store(), &st) == -1) {
		snprintf(out, len, "the task could not be stored; try again");
		free(t->text);
		free(t);
		return 0;
	}
	t->id = id = st.id;
	TAILQ_INSERT_TAIL(&tasks, t, entry);
	if (cross) {
		char what[400], quote[TASK_QUOTE_MAX];
		const char *nl = strchr(text, '\n');
		unsigned card;

		acp_plain(quote, sizeof(quote), text, nl != NULL ?
		    (size_t)(nl - text) : strlen(text));
		snprintf(what, sizeof(what), "a message to %s here (task_%lld), "
		    "asked in %s by %s; it starts: \"%s\"", t->to_agent,
		    (long long)id, cv->target, run->requester, quote);
		card = card_open_server(conv_get(cv->agent, tkey.s, tname, 0),
		    NULL, what, task_approved, t);
		snprintf(out, len, "task_%lld waits for a person to allow it "
		    "(card %u in %s, for an operator there); then it is posted "
		    "there and queued as %s's turn", (long long)id, card, tname,
		    t->to_agent);
		return id;
	}
	if (task_dispatch(t, why, sizeof(why)) == -1) {
		snprintf(out, len, "%s could not be handed this: %s",
		    t->to_agent, why);
		task_end(t, "failed", why);
		return 0;
	}
	return id;
}

/* A task that ended as it was made (its turn could not start): how. */
struct task_row {
	char	*out;
	size_t	 len;
	int	 err;
};

static void
task_row_result(const struct store_task *st, void *arg)
{
	struct task_row *r = arg;

	r->err = strcmp(st->state, "done") != 0;
	snprintf(r->out, r->len, "task_%lld %s: %s", (long long)st->id,
	    st->state, st->result != NULL ? st->result : "");
}

int
task_tool_send(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	struct task_row r = { out, len, 0 };
	struct task *t;
	int64_t id;

	if ((id = task_make(cv, args, TASK_SEND, "text", out, len)) == 0)
		return 1;
	if ((t = task_find(id)) == NULL) {
		store_task_get(history_store(), id, task_row_result, &r);
		return r.err;
	}
	if (strcmp(t->state, "pending") == 0)
		return 0;	/* out says so */
	snprintf(out, len, "sent to %s in %s as task_%lld; it is queued as "
	    "%s's turn there (task_status tells how it went)", t->to_agent,
	    t->to_name, (long long)id, t->to_agent);
	return 0;
}

/* ask_agent's wait is over: the caller learns the task id instead. */
static void
task_ask_late(evutil_socket_t fd, short what, void *arg)
{
	struct task *t = arg;
	char msg[400];

	(void)fd;
	(void)what;
	snprintf(msg, sizeof(msg), "still pending: %s has not answered within "
	    "%d seconds. The answer will be kept as task_%lld: call "
	    "task_status with {\"id\": \"task_%lld\"} later to read it",
	    t->to_agent, t->wait, (long long)t->id, (long long)t->id);
	mcp_answer(t->call, msg, 0);
	t->call = 0;
}

int
task_tool_ask(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	const cJSON *tj = cJSON_GetObjectItemCaseSensitive(args,
	    "timeout_seconds");
	struct task_row r = { out, len, 0 };
	struct timeval tv = { 0, 0 };
	struct task *t;
	double wait = TASK_ASK_DEFAULT;
	int64_t id;

	if (tj != NULL && !cJSON_IsNull(tj)) {
		if (!cJSON_IsNumber(tj) || tj->valuedouble < 1) {
			snprintf(out, len, "timeout_seconds is a number of "
			    "seconds, 1 to %d", TASK_ASK_MAX);
			return 1;
		}
		wait = tj->valuedouble > TASK_ASK_MAX ? TASK_ASK_MAX :
		    tj->valuedouble;
	}
	if ((id = task_make(cv, args, TASK_ASK, "question", out, len)) == 0)
		return 1;
	/* Ended already (its turn could not start): answered now. */
	if ((t = task_find(id)) == NULL) {
		store_task_get(history_store(), id, task_row_result, &r);
		return r.err;
	}
	if ((t->call = mcp_defer()) == 0) {
		snprintf(out, len, "asked %s as task_%lld; call task_status "
		    "with it for the answer", t->to_agent, (long long)id);
		return 0;
	}
	t->wait = (int)wait;
	tv.tv_sec = t->wait;
	if ((t->late = evtimer_new(ircd.base, task_ask_late, t)) != NULL)
		evtimer_add(t->late, &tv);
	return MCP_DEFERRED;
}

int
task_tool_delegate(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	struct task_row r = { out, len, 0 };
	struct task *t;
	int64_t id;

	if ((id = task_make(cv, args, TASK_DELEGATE, "task", out, len)) == 0)
		return 1;
	if ((t = task_find(id)) == NULL) {
		store_task_get(history_store(), id, task_row_result, &r);
		return r.err;
	}
	snprintf(out, len, "delegated to %s as task_%lld; its result will be "
	    "posted here when it has answered, and task_status "
	    "{\"id\": \"task_%lld\"} returns it", t->to_agent, (long long)id,
	    (long long)id);
	return 0;
}

/* ---- task_status ---- */

struct task_show {
	const struct conv	*cv;
	char			*out;
	size_t			 len;
	int			 n;
	int			 whole;		/* one task: with its result */
};

/* One task's line; with its result too, when whole and it has one. */
static void
task_show_cb(const struct store_task *st, void *arg)
{
	struct task_show *sh = arg;
	struct task *t = task_find(st->id);
	const char *state = t != NULL ? t->state : st->state;
	char age[16], line[600];
	size_t have;

	/* SEC-3: a conversation reads the tasks made in it or aimed at it. */
	if (strcmp(st->from_conv, sh->cv->key) != 0 &&
	    strcmp(st->conv, sh->cv->key) != 0)
		return;
	task_age(st->ended != 0 ? st->ended : st->created, age, sizeof(age));
	snprintf(line, sizeof(line), "%stask_%lld (%s, %s -> %s in %s): %s%s, "
	    "%s %s ago", sh->n > 0 ? "\n" : "", (long long)st->id, st->kind,
	    st->from_agent, st->to_agent, st->conv_name,
	    strcmp(state, "pending") == 0 ? "pending consent" : state,
	    strcmp(state, "interrupted") == 0 ? " (the server restarted "
	    "before it ended)" : "", st->ended != 0 ? "ended" : "made", age);
	strlcat(sh->out, line, sh->len);
	sh->n++;
	if (!sh->whole || st->result == NULL)
		return;
	strlcat(sh->out, strcmp(state, "done") == 0 ? "\nresult:\n" :
	    "\nwhy: ", sh->len);
	have = strlen(sh->out);
	if (have + 1 < sh->len) {
		size_t n = message_utf8_trunc(st->result, strlen(st->result),
		    sh->len - have - 4);

		snprintf(sh->out + have, sh->len - have, "%.*s%s", (int)n,
		    st->result, n < strlen(st->result) ? "\xe2\x80\xa6" : "");
	}
}

int
task_tool_status(struct conv *cv, const cJSON *args, char *out, size_t len)
{
	const char *id = cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(args, "id"));
	struct task_show sh = { cv, out, len, 0, 0 };
	char *end;
	long long n;

	out[0] = '\0';
	if (id == NULL || id[0] == '\0') {
		store_task_list(history_store(), cv->key, TASK_LIST_MAX,
		    task_show_cb, &sh);
		if (sh.n == 0)
			snprintf(out, len, "no task was made in this "
			    "conversation");
		return 0;
	}
	if (strncmp(id, "task_", 5) == 0)
		id += 5;
	n = strtoll(id, &end, 10);
	sh.whole = 1;
	if (*id != '\0' && *end == '\0' && n > 0)
		store_task_get(history_store(), n, task_show_cb, &sh);
	if (sh.n == 0) {
		snprintf(out, len, "no task %s made in or aimed at this "
		    "conversation", cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(args, "id")));
		return 1;
	}
	return 0;
}

/* ---- the turns of tasks ---- */

void
task_turn_started(struct turn *turn)
{
	struct task *t = task_find(turn->task);

	if (t != NULL)
		task_set_state(t, "running");
}

void
task_turn_end(struct turn *turn, const char *state, const char *why)
{
	struct task *t = task_find(turn->task);
	const char *said, *msgid;
	int64_t first, last;

	if (t == NULL)
		return;
	if (state != NULL) {
		task_end(t, state, why != NULL ? why : state);
		return;
	}
	said = stream_said(turn, &msgid, &first, &last);
	task_end(t, "done", said != NULL ? said : "(its answer was too long "
	    "to keep: read it in the conversation)");
}

void
task_turn_gone(struct turn *turn)
{
	struct task *t = task_find(turn->task);

	if (t != NULL)
		task_end(t, "cancelled", "its turn was dropped before it "
		    "answered (stopped, or the agent left the conversation)");
}

/* ---- !status ---- */

void
task_here(const char *key, void (*fn)(const char *, void *), void *arg)
{
	struct task *t;
	char line[IRC_LINELEN], age[16];
	int n = 0, more = 0;

	TAILQ_FOREACH_REVERSE(t, &tasks, task_list_head, entry) {
		if (strcmp(t->from_key, key) != 0 && strcmp(t->to_key, key) != 0)
			continue;
		if (n++ >= TASK_LIST_MAX) {
			more++;
			continue;
		}
		task_age(t->created, age, sizeof(age));
		snprintf(line, sizeof(line), "task_%lld %s: %s -> %s%s%s, %s, "
		    "%s", (long long)t->id, task_tools[t->kind], t->from_agent,
		    t->to_agent, strcmp(t->to_key, key) != 0 ? " in " : "",
		    strcmp(t->to_key, key) != 0 ? t->to_name : "",
		    strcmp(t->state, "pending") == 0 ? "pending consent" :
		    t->state, age);
		fn(line, arg);
	}
	if (more > 0) {
		snprintf(line, sizeof(line), "and %d more tasks", more);
		fn(line, arg);
	}
}

int
task_init(void)
{
	int n = store_task_interrupt(history_store(), task_now());

	if (n > 0)
		log_info("%d tasks were in flight when the server stopped: "
		    "now interrupted", n);
	return 0;
}

void
task_shutdown(void)
{
	struct task *t;

	while ((t = TAILQ_FIRST(&tasks)) != NULL)
		task_free(t);
}

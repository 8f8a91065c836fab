/*
 * acp-driver.c: integration tests of acp/ against the Node test agent
 * (tests/agents/echo-agent.mjs, on the official ACP SDK): a libevent loop
 * runs each scenario and checks what the callbacks saw. Prints TAP.
 */
#include "compat.h"

#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "acp/acp.h"
#include "tests/unit/tap.h"

struct rec {
	char		 text[4096];	/* agent text, live */
	size_t		 textlen;	/* all of it, even past the buffer */
	char		 replay[1024];	/* replayed text, user and agent */
	int		 thoughts, ncommands, nplan, tools_done, opens;
	enum acp_open_how how;
	char		 open_err[512];
	char		 mode[32];
	int		 turn_ends;
	struct acp_turn_end te;
	char		 te_err[512];
	char		 te_reason[32];
	uint64_t	 perm_id;
	int		 perms, perm_kinds, perms_gone;
	int		 cancel_on_text;	/* cancel at the first chunk */
	struct acp_agent *hold_on_text;	/* hold it at the next chunk */
	int		 ntexts;		/* agent text chunks */
	const char	*permit;	/* answer permissions at once */
	char		 plan[256];	/* content/priority/status|... */
	char		 title[64];
	char		 config[512];	/* the last on_config JSON */
	int		 nconfig;
};

struct arec {
	int		 exits, ready;
	struct acp_exit	 ex;
	char		 reason[512];
	int		 max_running;
};

static struct event_base *base;
static struct acp_pool *pool;
static char agent_cmd[1024], state_dir[256];
static int done_flag;

static void
rec_text(struct acp_session *s, const struct acp_text *t, void *arg)
{
	struct rec *r = arg;

	if (t->kind == ACP_TEXT_THOUGHT) {
		r->thoughts++;
		return;
	}
	if (t->replay) {
		strlcat(r->replay, t->text, sizeof(r->replay));
		strlcat(r->replay, "|", sizeof(r->replay));
		return;
	}
	if (t->kind != ACP_TEXT_AGENT)
		return;
	r->ntexts++;
	if (r->hold_on_text != NULL) {
		acp_agent_hold(r->hold_on_text, 1);
		r->hold_on_text = NULL;
	}
	r->textlen += t->len;
	if (t->len < sizeof(r->text))
		strlcat(r->text, t->text, sizeof(r->text));
	if (r->cancel_on_text) {
		r->cancel_on_text = 0;
		acp_session_cancel(s);
	}
}

static void
rec_tool(struct acp_session *s, const struct acp_tool *t, void *arg)
{
	struct rec *r = arg;

	(void)s;
	if (strcmp(t->status, "completed") == 0 ||
	    strcmp(t->status, "failed") == 0)
		r->tools_done++;
}

static void
rec_plan(struct acp_session *s, const struct acp_plan_entry *e, size_t n,
    void *arg)
{
	struct rec *r = arg;
	size_t i;

	(void)s;
	r->nplan = (int)n;
	r->plan[0] = '\0';
	for (i = 0; i < n; i++) {
		strlcat(r->plan, e[i].content, sizeof(r->plan));
		strlcat(r->plan, "/", sizeof(r->plan));
		strlcat(r->plan, e[i].priority, sizeof(r->plan));
		strlcat(r->plan, "/", sizeof(r->plan));
		strlcat(r->plan, e[i].status, sizeof(r->plan));
		strlcat(r->plan, "|", sizeof(r->plan));
	}
}

static void
rec_commands(struct acp_session *s, const struct acp_command *c, size_t n,
    void *arg)
{
	struct rec *r = arg;

	(void)s;
	if (n == 2 && strcmp(c[0].name, "perm") == 0 && c[0].hint != NULL)
		r->ncommands = (int)n;
	else
		r->ncommands = -1;
}

static void
rec_mode(struct acp_session *s, const char *m, void *arg)
{
	struct rec *r = arg;

	(void)s;
	strlcpy(r->mode, m, sizeof(r->mode));
}

static void
rec_config(struct acp_session *s, const char *json, void *arg)
{
	struct rec *r = arg;

	(void)s;
	r->nconfig++;
	strlcpy(r->config, json, sizeof(r->config));
}

static void
rec_title(struct acp_session *s, const char *title, void *arg)
{
	struct rec *r = arg;

	(void)s;
	strlcpy(r->title, title, sizeof(r->title));
}

static void
rec_open(struct acp_session *s, enum acp_open_how how, const char *err,
    void *arg)
{
	struct rec *r = arg;

	(void)s;
	r->opens++;
	r->how = how;
	strlcpy(r->open_err, err != NULL ? err : "", sizeof(r->open_err));
	if (how == ACP_OPEN_FAILED)
		done_flag = 1;
}

static void
rec_perm(struct acp_session *s, const struct acp_permission *p, void *arg)
{
	struct rec *r = arg;
	size_t i;

	r->perms++;
	r->perm_id = p->id;
	r->perm_kinds = 0;
	for (i = 0; i < p->noptions; i++)
		r->perm_kinds |= 1 << p->options[i].kind;
	if (r->permit != NULL)
		acp_session_permit(s, p->id, r->permit);
	else
		done_flag = 1;	/* the test decides */
}

static void
rec_perm_gone(struct acp_session *s, uint64_t id, void *arg)
{
	struct rec *r = arg;

	(void)s;
	if (id == r->perm_id)
		r->perms_gone++;
}

static void
rec_turn_end(struct acp_session *s, const struct acp_turn_end *te,
    void *arg)
{
	struct rec *r = arg;

	(void)s;
	r->turn_ends++;
	r->te = *te;
	strlcpy(r->te_err, te->error ? te->error : "", sizeof(r->te_err));
	strlcpy(r->te_reason, te->stop_reason ? te->stop_reason : "",
	    sizeof(r->te_reason));
	r->te.error = r->te_err;
	done_flag = 1;
}

static void
rec_exit(struct acp_agent *a, const struct acp_exit *ex, void *arg)
{
	struct arec *ar = arg;

	(void)a;
	ar->exits++;
	ar->ex = *ex;
	strlcpy(ar->reason, ex->reason, sizeof(ar->reason));
	ar->ex.reason = ar->reason;
}

static void
rec_ready(struct acp_agent *a, void *arg)
{
	struct arec *ar = arg;

	(void)a;
	ar->ready++;
	if (pool != NULL && acp_pool_running(pool) > ar->max_running)
		ar->max_running = acp_pool_running(pool);
}

static const struct acp_callbacks cbs = {
	.on_ready = rec_ready,
	.on_open = rec_open,
	.on_text = rec_text,
	.on_tool = rec_tool,
	.on_plan = rec_plan,
	.on_commands = rec_commands,
	.on_mode = rec_mode,
	.on_config = rec_config,
	.on_title = rec_title,
	.on_permission = rec_perm,
	.on_permission_gone = rec_perm_gone,
	.on_turn_end = rec_turn_end,
	.on_agent_exit = rec_exit,
};

static void
loop_timeout(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	*(int *)arg = 1;
	event_base_loopbreak(base);
}

static void
loop_check(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	if (done_flag)
		event_base_loopbreak(base);
}

/* Run the loop until a callback sets done_flag, or ms pass. 0: timed out. */
static int
run(int ms)
{
	struct event *to, *chk;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct timeval tick = { 0, 10000 };
	int timed_out = 0;

	done_flag = 0;
	to = evtimer_new(base, loop_timeout, &timed_out);
	chk = event_new(base, -1, EV_PERSIST, loop_check, NULL);
	evtimer_add(to, &tv);
	evtimer_add(chk, &tick);
	event_base_dispatch(base);
	event_free(to);
	event_free(chk);
	return !timed_out;
}

/* Run until cond() or ms pass. */
static int
run_until(int (*cond)(void *), void *arg, int ms)
{
	int waited;

	for (waited = 0; waited < ms; waited += 20) {
		if (cond(arg))
			return 1;
		run(20);
	}
	return cond(arg);
}

static int
opened(void *arg)
{
	return ((struct rec *)arg)->opens > 0;
}

static int
configured(void *arg)
{
	return ((struct rec *)arg)->nconfig >= 2;
}

static int
exited(void *arg)
{
	return ((struct arec *)arg)->exits > 0;
}

static struct acp_agent *
agent(const char *name, const char **env, struct arec *ar,
    struct acp_agent_config *over)
{
	struct acp_agent_config c;

	if (over != NULL)
		c = *over;
	else
		memset(&c, 0, sizeof(c));
	c.name = name;
	c.command = agent_cmd;
	c.env = env;
	c.grace_ms = c.grace_ms ? c.grace_ms : 300;
	c.backoff_ms = c.backoff_ms ? c.backoff_ms : 50;
	return acp_agent_new(pool, &c, &cbs, ar);
}

/* A fresh agent and one session, the records cleared, the open asked for. */
static struct acp_agent *
agent_opening(const char *name, const char **env, struct arec *ar,
    struct rec *r, struct acp_session **sp)
{
	struct acp_agent *a;

	memset(ar, 0, sizeof(*ar));
	memset(r, 0, sizeof(*r));
	a = agent(name, env, ar, NULL);
	*sp = acp_session_new(a, NULL, r);
	acp_session_open(*sp);
	return a;
}

static int
prompt(struct acp_session *s, const char *text)
{
	struct acp_prompt *p = acp_prompt_new();

	acp_prompt_text(p, text);
	return acp_session_prompt(s, p);
}

static void
turn(struct acp_session *s, struct rec *r, const char *text, int ms)
{
	r->text[0] = '\0';
	r->textlen = 0;
	if (prompt(s, text) == -1) {
		r->te.stop = ACP_STOP_ERROR;
		strlcpy(r->te_err, "prompt refused", sizeof(r->te_err));
		return;
	}
	run(ms);
}

static void
test_lifecycle(void)
{
	static const char *env[] = { NULL, NULL };
	char envbuf[300];
	struct arec ar = { 0 };
	struct rec r = { 0 };
	struct acp_agent *a;
	struct acp_session *s;
	struct acp_prompt *p;
	const struct acp_mode *m;

	snprintf(envbuf, sizeof(envbuf), "ECHO_AGENT_STATE=%s", state_dir);
	env[0] = envbuf;
	a = agent("echo", env, &ar, NULL);
	ok(a != NULL, "lifecycle: agent created");
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "hello world", 20000);
	is_int(r.opens, 1, "lifecycle: session opened once");
	is_int(r.how, ACP_OPEN_NEW, "lifecycle: as a new session");
	ok(acp_session_id(s) != NULL &&
	    strncmp(acp_session_id(s), "sess_", 5) == 0,
	    "lifecycle: got the agent's session id");
	is_int(ar.ready, 1, "lifecycle: initialized before anything else");
	is_int(r.te.stop, ACP_STOP_END_TURN, "lifecycle: end_turn");
	is_str(r.te_reason, "end_turn", "lifecycle: stop reason as sent");
	is_str(r.text, "echo: hello world", "lifecycle: chunks word by word");
	is_int(r.thoughts, 1, "lifecycle: thought chunk told apart");
	is_int(r.ncommands, 2, "lifecycle: commands announced with hints");
	is_int(acp_session_modes(s, &m), 2, "lifecycle: two modes");
	is_str(acp_session_mode(s), "ask", "lifecycle: current mode");
	turn(s, &r, "/plan", 10000);
	is_int(r.nplan, 2, "lifecycle: plan with two entries");
	is_str(r.text, "plan sent", "lifecycle: text after the plan");
	acp_session_set_mode(s, "code");
	run(500);
	is_str(r.mode, "code", "lifecycle: set_mode then current_mode_update");
	p = acp_prompt_new();
	acp_prompt_text(p, "see");
	acp_prompt_link(p, "file:///tmp/x.txt", "x.txt");
	r.text[0] = '\0';
	is_int(acp_session_prompt(s, p), 0, "lifecycle: prompt with a link");
	is_int(prompt(s, "second"), -1, "lifecycle: one turn at a time");
	run(10000);
	is_str(r.text, "echo: see [link file:///tmp/x.txt]",
	    "lifecycle: resource_link block delivered");
	acp_agent_stop(a);
	run_until(exited, &ar, 5000);
	is_int(ar.exits, 1, "lifecycle: stopped");
	ok(ar.ex.requested && WIFEXITED(ar.ex.status) &&
	    WEXITSTATUS(ar.ex.status) == 0, "lifecycle: exits 0 at EOF");
	acp_session_free(s);
	acp_agent_free(a);
}

static void
test_permission(void)
{
	static const char *env[] = { "ECHO_AGENT_DELAY_MS=30", NULL };
	struct arec ar = { 0 };
	struct rec r = { 0 };
	struct acp_agent *a = agent("perm", env, &ar, NULL);
	struct acp_session *s = acp_session_new(a, NULL, &r);

	r.permit = "allow-once";
	turn(s, &r, "/perm delete the build dir", 20000);
	is_int(r.perms, 1, "permission: asked");
	is_int(r.perm_kinds, 0xf, "permission: the four option kinds");
	is_str(r.text, "permission granted (allow-once)",
	    "permission: allowed");
	is_int(r.tools_done, 1, "permission: tool call completed");
	r.permit = "reject-once";
	turn(s, &r, "/perm rm -rf /", 10000);
	is_str(r.text, "permission denied (reject-once)",
	    "permission: rejected");

	/* Cancel while the card is pending (TN-6, cancellation duties). */
	r.permit = NULL;
	r.turn_ends = 0;
	prompt(s, "/perm format the disk");
	run(10000);
	is_int(r.perms, 3, "cancel: permission pending");
	is_int(acp_session_cancel(s), 0, "cancel: sent");
	is_int(r.perms_gone, 1, "cancel: the pending card is gone");
	is_int(acp_session_permit(s, r.perm_id, "allow-once"), -1,
	    "cancel: a late answer is refused");
	run(10000);
	is_int(r.turn_ends, 1, "cancel: the turn ended");
	is_int(r.te.stop, ACP_STOP_CANCELLED, "cancel: stopReason cancelled");
	ok(r.te.cancelled, "cancel: flagged as cancelled by us");

	/* Cancel a slow echo in the middle. */
	r.cancel_on_text = 1;
	turn(s, &r, "one two three four five six seven eight nine ten "
	    "eleven twelve thirteen fourteen fifteen sixteen", 10000);
	is_int(r.te.stop, ACP_STOP_CANCELLED, "cancel: mid-stream");
	turn(s, &r, "still here", 10000);
	is_str(r.text, "echo: still here", "cancel: next turn works");
	acp_session_free(s);
	acp_agent_free(a);
}

static void
test_crash_restart(void)
{
	static const char *env[] = { NULL, NULL };
	char envbuf[300];
	struct arec ar = { 0 };
	struct rec r = { 0 };
	struct acp_agent *a;
	struct acp_session *s;
	char *id;

	snprintf(envbuf, sizeof(envbuf), "ECHO_AGENT_STATE=%s", state_dir);
	env[0] = envbuf;
	a = agent("crashy", env, &ar, NULL);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "remember me", 20000);
	acp_session_set_mode(s, "code");
	run(300);
	id = strdup(acp_session_id(s));
	turn(s, &r, "/crash", 10000);
	is_int(r.te.stop, ACP_STOP_ERROR, "crash: the turn ends in error");
	ok(strstr(r.te_err, "exited with status 3") != NULL,
	    "crash: the error tells the exit status");
	run_until(exited, &ar, 3000);
	is_int(ar.exits, 1, "crash: agent exit reported");
	ok(!ar.ex.requested && !ar.ex.broken, "crash: not requested, not "
	    "broken");
	ok(!acp_agent_running(a), "crash: no process");
	r.replay[0] = '\0';
	turn(s, &r, "/mode", 20000);
	is_int(r.how, ACP_OPEN_LOADED, "crash: restarted, session/load");
	is_str(acp_session_id(s), id, "crash: same session id");
	ok(strstr(r.replay, "remember me|echo: remember me|") == r.replay,
	    "crash: history replayed, flagged as replay");
	is_str(r.text, "mode code", "crash: mode re-applied after load");
	is_int(r.te.stop, ACP_STOP_END_TURN, "crash: turn after restart ok");
	acp_session_free(s);

	/* A stored id the agent does not know: a new session instead. */
	s = acp_session_new(a, "sess_unknown", &r);
	turn(s, &r, "fresh", 10000);
	is_int(r.how, ACP_OPEN_NEW, "load fails: falls back to session/new");
	is_str(r.text, "echo: fresh", "load fails: prompt still answered");
	acp_session_free(s);
	acp_agent_free(a);
	free(id);
}

static void
test_eviction(void)
{
	struct arec ar[3];
	struct rec r[3];
	struct acp_agent *a[3];
	struct acp_session *s[3];
	static const char *env[] = { NULL, NULL };
	char name[16], envbuf[300];
	int i;

	snprintf(envbuf, sizeof(envbuf), "ECHO_AGENT_STATE=%s", state_dir);
	env[0] = envbuf;

	memset(ar, 0, sizeof(ar));
	memset(r, 0, sizeof(r));
	pool = acp_pool_new(2);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "ev%d", i);
		a[i] = agent(name, env, &ar[i], NULL);
		s[i] = acp_session_new(a[i], NULL, &r[i]);
	}
	turn(s[0], &r[0], "a", 20000);
	turn(s[1], &r[1], "b", 20000);
	is_int(acp_pool_running(pool), 2, "evict: two running");
	turn(s[2], &r[2], "c", 20000);
	is_str(r[2].text, "echo: c", "evict: the third agent answers");
	run_until(exited, &ar[0], 3000);
	ok(ar[0].exits == 1 && ar[0].ex.evicted,
	    "evict: the least recently used idle agent was evicted");
	is_int(ar[1].exits, 0, "evict: the other one kept");
	ok(ar[2].max_running <= 2, "evict: never more than two processes");

	/* Both running agents busy (cards pending): the newcomer waits. */
	r[1].permit = r[2].permit = NULL;
	r[0].text[0] = r[1].text[0] = '\0';
	prompt(s[1], "/perm x");
	run(10000);
	prompt(s[2], "/perm y");
	run(10000);
	r[0].turn_ends = 0;
	prompt(s[0], "back");
	run(1500);
	is_int(r[0].turn_ends, 0, "evict: agents in a turn are never evicted");
	ok(!acp_agent_running(a[0]), "evict: the newcomer waits");
	acp_session_permit(s[1], r[1].perm_id, "allow-once");
	run(10000);
	is_str(r[1].text, "permission granted (allow-once)",
	    "evict: the busy agent finished its turn");
	run_until(exited, &ar[1], 5000);
	ok(ar[1].ex.evicted, "evict: then it was evicted for the newcomer");
	if (r[0].turn_ends == 0)
		run(20000);
	is_str(r[0].text, "echo: back", "evict: the newcomer answered");
	is_int(r[0].how, ACP_OPEN_LOADED, "evict: its session was loaded");
	ok(ar[0].max_running <= 2 && acp_pool_running(pool) <= 2,
	    "evict: still at most two");
	acp_session_permit(s[2], r[2].perm_id, NULL);
	run(5000);
	for (i = 0; i < 3; i++) {
		acp_session_free(s[i]);
		acp_agent_free(a[i]);
	}
	acp_pool_free(pool);
	pool = NULL;
}

static void
test_watchdog(void)
{
	struct acp_agent_config c;
	struct arec ar = { 0 };
	struct rec r = { 0 };
	struct acp_agent *a;
	struct acp_session *s;

	memset(&c, 0, sizeof(c));
	c.turn_timeout_ms = 800;
	c.cancel_timeout_ms = 500;
	a = agent("hung", NULL, &ar, &c);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "/hang", 20000);
	is_int(r.te.stop, ACP_STOP_CANCELLED, "watchdog: hung turn cancelled");
	ok(r.te.timed_out, "watchdog: flagged as timed out");
	ok(strstr(r.te_err, "session/cancel") != NULL,
	    "watchdog: no answer to the cancel: killed");
	run_until(exited, &ar, 3000);
	ok(ar.exits == 1 && WIFSIGNALED(ar.ex.status),
	    "watchdog: the process was killed");
	turn(s, &r, "alive?", 20000);
	is_str(r.text, "echo: alive?", "watchdog: restarted, answers again");
	acp_session_free(s);
	acp_agent_free(a);
}

static void
test_misbehaving(void)
{
	static const char *hang[] = { "ECHO_AGENT_MODE=hang-init", NULL };
	static const char *crash[] = { "ECHO_AGENT_MODE=crash-init", NULL };
	static const char *banner[] = { "ECHO_AGENT_MODE=banner", NULL };
	static const char *flood[] = { "ECHO_AGENT_MODE=flood", NULL };
	static const char *pipe[] = { "ECHO_AGENT_MODE=pipeline", NULL };
	static const char *many[] = { "ECHO_AGENT_MODE=early-many", NULL };
	static const char *big[] = { "ECHO_AGENT_MODE=early-big", NULL };
	static const char *auth[] = { "ECHO_AGENT_MODE=auth",
	    "TEST_API_KEY=x", NULL };
	static const char *noauth[] = { "ECHO_AGENT_MODE=auth", NULL };
	static const char *stub[] = { "ECHO_AGENT_MODE=stubborn", NULL };
	struct acp_agent_config c;
	struct arec ar;
	struct rec r;
	struct acp_agent *a;
	struct acp_session *s;

	/* Never answers initialize. */
	memset(&c, 0, sizeof(c));
	memset(&ar, 0, sizeof(ar));
	memset(&r, 0, sizeof(r));
	c.init_timeout_ms = 500;
	a = agent("noinit", hang, &ar, &c);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "x", 10000);
	is_int(r.te.stop, ACP_STOP_ERROR, "hang-init: the turn fails");
	ok(strstr(r.open_err, "initialize") != NULL,
	    "hang-init: says initialize failed");
	acp_session_free(s);
	acp_agent_free(a);

	/* Crashes at start: back-off, then broken. */
	memset(&c, 0, sizeof(c));
	memset(&ar, 0, sizeof(ar));
	c.max_failures = 2;
	a = agent("crashinit", crash, &ar, &c);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "x", 10000);
	is_int(r.te.stop, ACP_STOP_ERROR, "crash-init: first turn fails");
	turn(s, &r, "x", 10000);
	ok(acp_agent_broken(a), "crash-init: broken after max failures");
	ok(ar.ex.broken, "crash-init: the exit says broken");
	is_int(prompt(s, "x"), -1, "crash-init: a broken agent takes no "
	    "prompt");
	acp_agent_reset(a);
	ok(!acp_agent_broken(a), "crash-init: reset clears broken");
	acp_session_free(s);
	acp_agent_free(a);

	/* Banner lines on stdout, garbage mid-turn, huge frames. */
	memset(&c, 0, sizeof(c));
	memset(&ar, 0, sizeof(ar));
	memset(&r, 0, sizeof(r));
	c.max_frame = 1024 * 1024;
	a = agent("banner", banner, &ar, &c);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "hi", 20000);
	is_str(r.text, "echo: hi", "garbage: banner lines skipped");
	turn(s, &r, "/garbage 20", 10000);
	is_str(r.text, "after garbage", "garbage: lines mid-turn skipped");
	turn(s, &r, "/hugegarbage 3000000", 10000);
	is_str(r.text, "after huge garbage",
	    "garbage: a line over the frame cap skipped");
	turn(s, &r, "/huge 900000", 10000);
	is_int(r.textlen, 900000, "huge: a frame near the cap delivered");
	is_int(ar.exits, 0, "garbage: the agent was kept");
	acp_session_free(s);
	acp_agent_free(a);

	/* Floods stdout with garbage: dropped. */
	a = agent_opening("flood", flood, &ar, &r, &s);
	run_until(exited, &ar, 10000);
	ok(ar.exits == 1 && strstr(ar.reason, "not JSON-RPC") != NULL,
	    "flood: dropped after too many bad lines");
	acp_session_free(s);
	acp_agent_free(a);

	/* Updates before the session/new answer. */
	a = agent_opening("pipeline", pipe, &ar, &r, &s);
	run_until(opened, &r, 10000);
	is_int(r.ncommands, 2, "pipeline: early commands kept for the "
	    "session");
	is_str(r.text, "early bird ", "pipeline: early text kept too");
	acp_session_free(s);
	acp_agent_free(a);

	/* Early updates are kept up to a count (1024) and a size (16 MiB). */
	a = agent_opening("early-many", many, &ar, &r, &s);
	run_until(opened, &r, 20000);
	is_int(r.ntexts, 1024, "early, 1100 updates: the first 1024 kept");
	is_int((int)r.textlen, 1024 * 6, "early, 1100 updates: whole");
	ok(strncmp(r.text, "e0000 e0001 ", 12) == 0, "early, 1100 updates: "
	    "in order from the first");
	acp_session_free(s);
	acp_agent_free(a);
	a = agent_opening("early-big", big, &ar, &r, &s);
	run_until(opened, &r, 30000);
	is_int(r.ntexts, 15, "early, 20 MiB: the first 15 MiB kept");
	is_int((int)r.textlen, 15 << 20, "early, 20 MiB: whole chunks");
	ok(acp_agent_running(a) && ar.exits == 0, "early, 20 MiB: the agent "
	    "stays");
	acp_session_free(s);
	acp_agent_free(a);

	/*
	 * Sends requests with 1 MiB ids and does not read the answers (SEC-4):
	 * past 64 MiB waiting on its stdin it is killed (SIGKILL), as a crash.
	 */
	a = agent_opening("deaf", NULL, &ar, &r, &s);
	turn(s, &r, "/deaf 100", 60000);
	ok(ar.exits == 1 && WIFSIGNALED(ar.ex.status) &&
	    WTERMSIG(ar.ex.status) == SIGKILL,
	    "deaf: killed once 64 MiB wait on its stdin");
	is_int(r.te.stop, ACP_STOP_ERROR, "deaf: the turn fails");
	ok(strstr(r.text, "heard nothing") == NULL, "deaf: it never got to "
	    "finish");
	acp_session_free(s);
	acp_agent_free(a);

	/* Authentication: with a key, authenticate; without, a message. */
	memset(&ar, 0, sizeof(ar));
	memset(&r, 0, sizeof(r));
	a = agent("auth", auth, &ar, NULL);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "secret", 20000);
	is_str(r.text, "echo: secret", "auth: authenticated with the key");
	acp_session_free(s);
	acp_agent_free(a);
	memset(&r, 0, sizeof(r));
	a = agent("noauth", noauth, &ar, NULL);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "secret", 20000);
	is_int(r.how, ACP_OPEN_FAILED, "auth: no key, the open fails");
	ok(strstr(r.te_err, "needs a login") != NULL &&
	    strstr(r.te_err, "Browser login") != NULL,
	    "auth: the user is told what to do");
	acp_session_free(s);
	acp_agent_free(a);

	/* Ignores EOF and SIGTERM: SIGKILL after the grace periods. */
	memset(&ar, 0, sizeof(ar));
	memset(&r, 0, sizeof(r));
	a = agent("stubborn", stub, &ar, NULL);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "x", 20000);
	acp_agent_stop(a);
	run_until(exited, &ar, 5000);
	ok(ar.exits == 1 && WIFSIGNALED(ar.ex.status) &&
	    WTERMSIG(ar.ex.status) == SIGKILL,
	    "stop: EOF, SIGTERM, then SIGKILL");
	acp_session_free(s);
	acp_agent_free(a);
}

/*
 * The session/update kinds the daemon does not use yet (plan entries,
 * title, config options) reach their callbacks; a config option set with
 * acp_session_set_config() is answered with the new options, and is set
 * again when the session comes back in a new process (SS-4).
 */
static void
test_updates(void)
{
	static const char *env[] = { NULL, NULL };
	char envbuf[300];
	struct arec ar = { 0 };
	struct rec r = { 0 };
	struct acp_agent *a;
	struct acp_session *s;

	snprintf(envbuf, sizeof(envbuf), "ECHO_AGENT_STATE=%s", state_dir);
	env[0] = envbuf;
	a = agent("updates", env, &ar, NULL);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "/plan", 20000);
	is_str(r.plan, "Read the prompt/high/completed|"
	    "Echo it back/medium/in_progress|", "updates: plan entries");
	turn(s, &r, "/title A title for us", 10000);
	is_str(r.title, "A title for us", "updates: session title");
	is_str(r.text, "title sent", "updates: text after the title");
	turn(s, &r, "/config", 10000);
	is_int(r.nconfig, 1, "updates: config_option_update");
	ok(strstr(r.config, "\"id\":\"verbose\"") != NULL &&
	    strstr(r.config, "\"currentValue\":false") != NULL,
	    "updates: the options as JSON");
	is_int(acp_session_set_config(s, "verbose", "true"), 0,
	    "updates: set_config sent");
	run_until(configured, &r, 10000);
	ok(r.nconfig == 2 && strstr(r.config, "\"currentValue\":true") != NULL,
	    "updates: set_config answered with the new options");
	turn(s, &r, "/config", 10000);
	is_str(r.text, "verbose true", "updates: the agent has it");
	acp_agent_stop(a);
	run_until(exited, &ar, 5000);
	is_int(ar.exits, 1, "updates: agent stopped");
	turn(s, &r, "/config", 20000);
	is_int(r.how, ACP_OPEN_LOADED, "updates: session loaded again");
	is_str(r.text, "verbose true", "updates: option set again after load");
	acp_session_free(s);
	acp_agent_free(a);
}

/*
 * acp_agent_hold(): held from a chunk on, nothing more comes (no text, no
 * turn end, no exit) and nothing is blamed on the agent (watchdog, cancel
 * timeout, EOF wait); released, everything comes, in order.
 */
static void
test_hold(void)
{
	struct acp_agent_config c;
	struct arec ar = { 0 };
	struct rec r = { 0 };
	struct acp_agent *a;
	struct acp_session *s;
	long pid;
	static const char *env[] = { "ECHO_AGENT_DELAY_MS=50", NULL };

	memset(&c, 0, sizeof(c));
	c.turn_timeout_ms = 300;
	c.cancel_timeout_ms = 300;
	/* 50 ms between words: a cancel comes while it still streams. */
	a = agent("holdy", env, &ar, &c);
	s = acp_session_new(a, NULL, &r);
	turn(s, &r, "warm", 20000);
	is_str(r.text, "echo: warm", "hold: a turn before");
	pid = acp_agent_pid(a);

	r.turn_ends = r.ntexts = 0;
	r.hold_on_text = a;
	turn(s, &r, "one two three four", 1500);
	is_int(r.ntexts, 1, "hold: nothing after the chunk that held");
	is_int(r.turn_ends, 0, "hold: no turn end while held");
	acp_agent_hold(a, 0);
	run(5000);
	is_str(r.text, "echo: one two three four", "hold: released, the rest in order");
	is_int(r.turn_ends, 1, "hold: then the turn end");
	is_int(r.te.stop, ACP_STOP_END_TURN, "hold: held 1.5 s, not cancelled by "
	    "the 300 ms watchdog");
	ok(!r.te.timed_out && !r.te.cancelled, "hold: no cancel was sent");
	ok(acp_agent_pid(a) == pid && ar.exits == 0, "hold: not restarted");

	/* A cancel sent just before the hold: its timeout waits too. */
	r.turn_ends = 0;
	r.cancel_on_text = 1;
	r.hold_on_text = a;
	turn(s, &r, "five six seven eight", 1500);
	is_int(r.turn_ends, 0, "hold, cancel: no turn end while held, past the "
	    "300 ms cancel timeout");
	acp_agent_hold(a, 0);
	run(5000);
	is_int(r.te.stop, ACP_STOP_CANCELLED, "hold, cancel: released, the "
	    "agent's answer to the cancel");
	ok(acp_agent_pid(a) == pid && ar.exits == 0, "hold, cancel: not restarted");

	r.turn_ends = r.ntexts = 0;
	r.hold_on_text = a;
	turn(s, &r, "/burst-exit a b c", 2500);
	is_int(r.ntexts, 1, "hold, exit: nothing after the chunk that held");
	ok(r.turn_ends == 0 && ar.exits == 0, "hold, exit: its end waits, past "
	    "the 1 s wait for EOF");
	acp_agent_hold(a, 0);
	run(5000);
	is_str(r.text, "a b c ", "hold, exit: all it said before it exited");
	is_int(r.te.stop, ACP_STOP_ERROR, "hold, exit: then the turn ends in error");
	ok(strstr(r.te_err, "status 3") != NULL, "hold, exit: with its status");
	run_until(exited, &ar, 3000);
	is_int(ar.exits, 1, "hold, exit: and its exit");
	acp_session_free(s);
	acp_agent_free(a);
}

static void
quiet(enum acp_log_level l, const char *msg, void *arg)
{
	(void)arg;
	if (getenv("ACP_DRIVER_VERBOSE") != NULL || l >= ACP_LOG_ERROR)
		fprintf(stderr, "# %s\n", msg);
}

int
main(int argc, char *argv[])
{
	const char *src = getenv("SRCDIR");
	const char *only = argc > 1 ? argv[1] : NULL;
	char script[900];

	snprintf(script, sizeof(script), "%s/tests/agents/echo-agent.mjs",
	    src != NULL ? src : ".");
	if (access(script, R_OK) == -1) {
		printf("1..0 # SKIP no %s\n", script);
		return 0;
	}
	snprintf(agent_cmd, sizeof(agent_cmd), "node '%s'", script);
	snprintf(state_dir, sizeof(state_dir), "/tmp/acp-driver.XXXXXX");
	if (mkdtemp(state_dir) == NULL)
		return 1;
	acp_log_set(quiet, NULL, ACP_LOG_DEBUG);
	base = event_base_new();
	acp_init(base);
	if (only == NULL || strcmp(only, "lifecycle") == 0)
		test_lifecycle();
	if (only == NULL || strcmp(only, "permission") == 0)
		test_permission();
	if (only == NULL || strcmp(only, "crash") == 0)
		test_crash_restart();
	if (only == NULL || strcmp(only, "eviction") == 0)
		test_eviction();
	if (only == NULL || strcmp(only, "watchdog") == 0)
		test_watchdog();
	if (only == NULL || strcmp(only, "misbehaving") == 0)
		test_misbehaving();
	if (only == NULL || strcmp(only, "hold") == 0)
		test_hold();
	if (only == NULL || strcmp(only, "updates") == 0)
		test_updates();
	acp_shutdown();
	event_base_free(base);
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state_dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", state_dir);
	}
	return tap_done();
}

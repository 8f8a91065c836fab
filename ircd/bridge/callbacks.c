/*
 * callbacks.c: what an agent's ACP sessions say, back into IRC: a session
 * opened, the answer streaming (stream.c), tool calls, permission
 * requests (card.c, or the policy), the commands it announces, the end
 * of a turn, and the agent's process ready or gone.
 */
#include "compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp/acp.h"
#include "ircd/bridge/agent.h"
#include "ircd/bridge/ask.h"
#include "ircd/bridge/authority.h"
#include "ircd/bridge/callbacks.h"
#include "ircd/bridge/handoff.h"
#include "ircd/bridge/card.h"
#include "ircd/bridge/policy.h"
#include "ircd/bridge/stream.h"
#include "ircd/bridge/task.h"
#include "ircd/bridge/turn.h"
#include "ircd/client.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/log.h"
#include "store/store.h"

/* A session mode's id (PM-5): the agents' are words, "code", "ask". */
#define CALLBACKS_MODE_LEN	64

static void
callbacks_open(struct acp_session *s, enum acp_open_how how, const char *error,
    void *arg)
{
	struct conv *cv = arg;
	struct agent *a = cv->agent;
	struct turn *t = cv->turn;

	(void)s;
	cv->opening = 0;
	if (how == ACP_OPEN_FAILED) {
		if (t != NULL) {
			conv_notice(cv, "%s could not open a session: %s",
			    a->client->nick,
			    error != NULL ? error : "unknown error");
			turn_done(t);
		}
		return;
	}
	/* A new session where the conversation has a past: give it the past. */
	if (how == ACP_OPEN_NEW && cv->seen_id > 0)
		cv->carry = 1;
	/*
	 * SS-4, PM-5, AU-3: the mode chosen here (by !mode, even while the
	 * session was closed) is set again, if the config still allows it.
	 * A new session starts in the agent's initial mode, always allowed.
	 */
	{
		char mode[CALLBACKS_MODE_LEN];
		const char *cur = acp_session_mode(cv->session);

		if (how == ACP_OPEN_NEW && cur != NULL)
			strlcpy(a->mode_initial, cur, sizeof(a->mode_initial));
		if (authority_mode_load(cv, a->mode_initial[0] != '\0' ?
		    a->mode_initial : cur, mode, sizeof(mode)) == 0) {
			if (cur == NULL || strcmp(cur, mode) != 0)
				acp_session_set_mode(cv->session, mode);
		} else if (cur != NULL && a->mode_initial[0] != '\0' &&
		    !authority_mode_allowed(a, cur, a->mode_initial))
			/* A session resumed in a mode no longer allowed. */
			acp_session_set_mode(cv->session, a->mode_initial);
	}
	store_session_set(history_store(), a->client->nick, cv->key,
	    acp_session_id(cv->session), -1);
	/*
	 * A prompt given while the process was stopping (a reload's new
	 * command, SS-5's eviction) is acp/'s already: it goes out once
	 * this returns, and a second one would be refused.
	 */
	if (t != NULL && !acp_session_in_turn(cv->session))
		ask_send(t);
}

static void
callbacks_text(struct acp_session *s, const struct acp_text *txt, void *arg)
{
	struct conv *cv = arg;
	struct turn *t = cv->turn;

	(void)s;
	/* SS-4: a load's replay is old; TN-5: thoughts are not shown. */
	if (txt->replay || txt->kind != ACP_TEXT_AGENT || t == NULL ||
	    t->cancelled)
		return;
	stream_text(t, txt->text, txt->len, txt->message_id);
}

static void
callbacks_tool(struct acp_session *s, const struct acp_tool *tool, void *arg)
{
	struct conv *cv = arg;
	struct turn *t = cv->turn;

	(void)s;
	if (tool->replay || t == NULL || tool->status == NULL || t->cancelled)
		return;
	stream_tool(t, tool);
}

static void
callbacks_plan(struct acp_session *s, const struct acp_plan_entry *e, size_t n,
    void *arg)
{
	struct conv *cv = arg;

	(void)s;
	if (cv->turn != NULL && !cv->turn->cancelled)
		stream_plan(cv->turn, e, n);
}

static void
callbacks_permission(struct acp_session *s, const struct acp_permission *p,
    void *arg)
{
	struct conv *cv = arg;
	enum policy policy = conv_policy(cv);
	enum acp_perm_kind want;
	size_t i;

	/* PM-4: the policy answers what it can; a person answers the rest. */
	switch (policy_judge(policy, p->tool != NULL ? p->tool->kind : NULL)) {
	case POLICY_GRANT:
		want = ACP_PERM_ALLOW_ONCE;
		break;
	case POLICY_REFUSE:
		want = ACP_PERM_REJECT_ONCE;
		break;
	case POLICY_CARD:
	default:
		card_open(cv, cv->turn, p);
		return;
	}
	for (i = 0; i < p->noptions; i++)
		if (p->options[i].kind == want)
			break;
	card_auto(cv, p, policy, i < p->noptions ? &p->options[i] : NULL);
	/* TN-5: the tool call's line will say the policy refused it. */
	if (want == ACP_PERM_REJECT_ONCE && cv->turn != NULL &&
	    p->tool != NULL) {
		char why[64];

		snprintf(why, sizeof(why), "refused by the policy %s",
		    policy_name(policy));
		stream_refused(cv->turn, p->tool->id, why);
	}
	acp_session_permit(s, p->id, i < p->noptions ? p->options[i].id : NULL);
}

static void
callbacks_permission_gone(struct acp_session *s, uint64_t id, void *arg)
{
	(void)s;
	card_gone(arg, id);
}

static void
callbacks_commands(struct acp_session *s, const struct acp_command *cmds,
    size_t n, void *arg)
{
	struct conv *cv = arg;

	(void)s;
	agent_set_cmds(cv->agent, cmds, n);
}

/* MN-7: how t, a task's turn, ended, for the task (task.c). */
static void
callbacks_task_end(struct turn *t, const struct acp_turn_end *e)
{
	char why[300];

	if (e->timed_out)
		snprintf(why, sizeof(why), "it took too long and was stopped");
	else if (e->cancelled || t->cancelled || e->stop == ACP_STOP_CANCELLED) {
		task_turn_end(t, "cancelled", "it was stopped");
		return;
	} else if (e->stop == ACP_STOP_ERROR)
		snprintf(why, sizeof(why), "it failed: %s", e->error != NULL ?
		    e->error : "unknown error");
	else if (e->stop == ACP_STOP_MAX_TOKENS)
		snprintf(why, sizeof(why), "it reached its token limit");
	else if (e->stop == ACP_STOP_MAX_TURN_REQUESTS)
		snprintf(why, sizeof(why), "too many requests in one turn");
	else if (e->stop == ACP_STOP_REFUSAL)
		snprintf(why, sizeof(why), "it refused to answer");
	else {
		task_turn_end(t, NULL, NULL);	/* answered */
		return;
	}
	task_turn_end(t, "failed", why);
}

static void
callbacks_turn_end(struct acp_session *s, const struct acp_turn_end *e,
    void *arg)
{
	struct conv *cv = arg;
	struct turn *t = cv->turn;
	const char *nick = cv->agent->client->nick;

	(void)s;
	if (t == NULL)
		return;
	/*
	 * TN-6: after !stop, nothing more than what was already streamed.
	 * (While the agent is held no turn ends: acp_agent_hold().)
	 */
	stream_end(t, (e->stop != ACP_STOP_CANCELLED && !e->cancelled) ||
	    e->timed_out);
	/* MN-7: a tool's task learns how its turn went. */
	if (t->task != 0)
		callbacks_task_end(t, e);
	switch (e->stop) {
	case ACP_STOP_END_TURN:
		/* MN-2: a clean end only; a failed or stopped turn wakes nobody. */
		if (!e->cancelled && !t->cancelled)
			handoff_answered(t);
		break;
	case ACP_STOP_CANCELLED:
	case ACP_STOP_ERROR:
		/* TN-8: cancelled by the watchdog, not by a person. */
		if (e->timed_out)
			conv_notice(cv, "%s took too long and was stopped%s%s",
			    nick, e->error ? ": " : "",
			    e->error ? e->error : "");
		else if (e->stop == ACP_STOP_ERROR && !e->cancelled)
			conv_notice(cv, "%s failed: %s", nick,
			    e->error != NULL ? e->error : "unknown error");
		break;
	case ACP_STOP_MAX_TOKENS:
		conv_notice(cv, "%s stopped: it reached its token limit", nick);
		break;
	case ACP_STOP_MAX_TURN_REQUESTS:
		conv_notice(cv, "%s stopped: too many requests in one turn",
		    nick);
		break;
	case ACP_STOP_REFUSAL:
		conv_notice(cv, "%s refused to answer", nick);
		break;
	}
	turn_done(t);
	/* A conversation closed (KICK) while it answered goes now. */
	if (cv->closing)
		conv_free(cv);
	/* One that could not be closed while it answered may go now. */
	conv_trim_soon();
}

/* AG-1: the realname becomes the agent's own title once it is known. */
static void
callbacks_ready(struct acp_agent *acp, void *arg)
{
	struct agent *a = arg;
	const char *title = acp_agent_title(acp);

	if (title != NULL && title[0] != '\0')
		client_set_realname(a->client, title, strlen(title));
}

static void
callbacks_exit(struct acp_agent *acp, const struct acp_exit *e, void *arg)
{
	struct agent *a = arg;

	(void)acp;
	log_info("agent %s: process ended (%s)%s", a->client->nick,
	    e->reason != NULL ? e->reason : "?",
	    e->broken ? "; marked broken" : "");
	if (e->broken && a->active != NULL)
		conv_notice(a->active, "%s is broken (%s); INVITE it again "
		    "to retry", a->client->nick,
		    e->reason != NULL ? e->reason : "?");
}

const struct acp_callbacks callbacks_acp = {
	.on_ready = callbacks_ready,
	.on_open = callbacks_open,
	.on_text = callbacks_text,
	.on_tool = callbacks_tool,
	.on_plan = callbacks_plan,
	.on_permission = callbacks_permission,
	.on_permission_gone = callbacks_permission_gone,
	.on_commands = callbacks_commands,
	.on_turn_end = callbacks_turn_end,
	.on_agent_exit = callbacks_exit,
};

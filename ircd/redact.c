/*
 * redact.c: IRCv3 draft/message-redaction. REDACT <target> <msgid>
 * [:reason] deletes a stored message: one's own, any in a channel one
 * operates, any at all for a server operator. The message leaves the
 * history (and every copy of it the store keeps), so CHATHISTORY, the
 * JOIN replay and an agent's transcript no longer have it; the REDACT
 * goes to the target's readers that negotiated the cap, and to nobody
 * else (the spec leaves a fallback to the server: there is none, it
 * would repeat whose message went where).
 */
#include "compat.h"

#include <stdio.h>
#include <string.h>

#include "ircd/cap.h"
#include "ircd/casemap.h"
#include "ircd/channel.h"
#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/conf.h"
#include "ircd/convkey.h"
#include "ircd/history.h"
#include "ircd/message.h"
#include "ircd/reply.h"
#include "store/store.h"

/* What of the stored message decides who may redact it. */
struct redacted {
	int	found;
	char	conv[CONVKEY_LEN];
	char	prefix[NICKLEN + USERLEN + HOSTLEN + 3];
	char	account[NICKLEN + 1];
	int	has_account;
	int64_t	time;
};

static void
redact_found(const struct store_msg *sm, void *arg)
{
	struct redacted *r = arg;

	r->found = 1;
	strlcpy(r->conv, sm->conv != NULL ? sm->conv : "", sizeof(r->conv));
	strlcpy(r->prefix, sm->prefix != NULL ? sm->prefix : "",
	    sizeof(r->prefix));
	r->has_account = sm->account != NULL;
	strlcpy(r->account, sm->account != NULL ? sm->account : "",
	    sizeof(r->account));
	r->time = sm->time;
}

/*
 * Did c send it? By account when both have one; without, the same
 * nick!user@host since c connected: a connection is its own principal,
 * and one that came later under the same name is not the sender.
 */
static int
redact_own(const struct client *c, const struct redacted *r)
{
	if (r->has_account)
		return c->account != NULL &&
		    casemap_cmp(c->account, r->account) == 0;
	return strcmp(c->prefix, r->prefix) == 0 &&
	    r->time >= (int64_t)c->signon * 1000;
}

static void
redact_relay(struct client *c, struct channel *ch, struct client *to,
    const char *target, const char *msgid, const char *reason)
{
	struct member_filter f;
	struct outmsg om;
	char line[IRC_LINELEN];
	int n;

	if (reason != NULL && reason[0] != '\0')
		n = snprintf(line, sizeof(line), ":%s REDACT %s %s :%s",
		    c->prefix, target, msgid, reason);
	else
		n = snprintf(line, sizeof(line), ":%s REDACT %s %s", c->prefix,
		    target, msgid);
	if (n < 0)
		return;
	outmsg_from_line(&om, line, (size_t)n < sizeof(line) ? (size_t)n :
	    sizeof(line) - 1);
	memset(&f, 0, sizeof(f));
	f.caps = CAP_REDACTION;
	if (ch != NULL) {
		channel_relay(ch, &f, &om);
		/* An operator may act on a channel without being in it. */
		if (channel_member(ch, c) == NULL && (c->caps & CAP_REDACTION))
			c->ops->deliver(c, &om);
		return;
	}
	if (to != NULL && to != c && (to->caps & CAP_REDACTION) &&
	    !(to->flags & CLIENT_CLOSING))
		to->ops->deliver(to, &om);
	if (c->caps & CAP_REDACTION)
		c->ops->deliver(c, &om);
}

void
cmd_redact(struct client *c, struct message *m)
{
	const char *target = m->params[0], *msgid = m->params[1];
	const char *reason = m->nparams > 2 ? m->params[2] : NULL;
	struct redacted r;
	struct convkey conv;
	struct channel *ch = NULL;
	struct member *mb = NULL;
	int rc;

	if (casemap_is_channel(target)) {
		ch = channel_find(target);
		if (ch != NULL)
			mb = channel_member(ch, c);
		if (ch == NULL || (mb == NULL && !client_is_oper(c))) {
			reply_fail(c, "REDACT", "INVALID_TARGET", target,
			    "You cannot delete messages from that target");
			return;
		}
		history_channel_conv(ch, &conv);
		target = ch->name;
	} else if (!casemap_valid_nick(target, NICKLEN) ||
	    history_conv_for(c, target, &conv) == -1) {
		reply_fail(c, "REDACT", "INVALID_TARGET", target,
		    "You cannot delete messages from that target");
		return;
	}
	memset(&r, 0, sizeof(r));
	if (history_store() == NULL || msgid[0] == '\0' ||
	    strchr(msgid, ' ') != NULL || (rc = store_history_get(
	    history_store(), msgid, redact_found, &r)) == -1)
		rc = 0;
	/*
	 * A message of another conversation is unknown here, whether or
	 * not it exists: the answer must not tell.
	 */
	if (rc == 0 || !r.found || strcmp(r.conv, conv.s) != 0) {
		client_send(c, ":%s FAIL REDACT UNKNOWN_MSGID %s %s :This "
		    "message does not exist or is too old", ircd.conf->name,
		    target, msgid);
		return;
	}
	if (!redact_own(c, &r) && !client_is_oper(c) &&
	    (mb == NULL || !(mb->modes & MEMBER_OP))) {
		client_send(c, ":%s FAIL REDACT REDACT_FORBIDDEN %s %s :You are "
		    "not authorised to delete this message", ircd.conf->name,
		    target, msgid);
		return;
	}
	if (store_history_redact(history_store(), msgid) == -1) {
		reply_fail(c, "REDACT", "MESSAGE_ERROR", target,
		    "The message could not be deleted; try again");
		return;
	}
	redact_relay(c, ch, ch == NULL ? client_find(target) : NULL, target,
	    msgid, reason);
}

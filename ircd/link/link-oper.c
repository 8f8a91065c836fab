/*
 * link-oper.c: operators' CONNECT and SQUIT (LK-1), for cmd-oper.c. The
 * core checks operator status and the parameters; here the server name
 * is looked up among the links and the operator told what came of it,
 * in the words of InspIRCd's own notices where it has them.
 */
#include "compat.h"

#include "ircd/client.h"
#include "ircd/command.h"
#include "ircd/ircd.h"
#include "ircd/link/link.h"
#include "ircd/log.h"
#include "ircd/numeric.h"
#include "ircd/reply.h"

static void
link_cmd_connect(struct client *c, const char *server)
{
	const char *via = NULL;
	struct link *l;

	switch (link_oper_connect(server, &via)) {
	case LINK_OPER_DONE:
		l = link_find(server);
		log_info("link %s: CONNECT by %s", l->name, c->prefix);
		reply_notice(c, "*** CONNECT: Connecting to server: %s "
		    "(%s:%s)", l->name, l->host, l->port);
		break;
	case LINK_OPER_UP:
		reply_notice(c, "*** CONNECT: Server %s is linked already",
		    link_find(server)->name);
		break;
	case LINK_OPER_CONNECTING:
		reply_notice(c, "*** CONNECT: Server %s is being connected "
		    "already", link_find(server)->name);
		break;
	case LINK_OPER_BEHIND:
		reply_notice(c, "*** CONNECT: Server %s already exists on the "
		    "network and is connected via %s", server, via);
		break;
	case LINK_OPER_FAILED:
		reply_notice(c, "*** CONNECT: Cannot connect to %s; see the "
		    "log", link_find(server)->name);
		break;
	default:
		reply(c, ERR_NOSUCHSERVER, server);
		break;
	}
}

static void
link_cmd_squit(struct client *c, const char *server, const char *reason)
{
	const char *real = server;

	switch (link_oper_squit(server, reason, c, &real)) {
	case LINK_OPER_DONE:
		reply_notice(c, "*** SQUIT: Server %s removed from the "
		    "network (%s)", real, reason);
		break;
	case LINK_OPER_SENT:
		reply_notice(c, "*** SQUIT: RSQUIT sent for %s; the server "
		    "it is linked to removes it", real);
		break;
	default:
		reply(c, ERR_NOSUCHSERVER, server);
		break;
	}
}

static const struct oper_link_ops link_oper_ops = {
	.connect = link_cmd_connect,
	.squit = link_cmd_squit,
};

void
link_oper_register(void)
{
	oper_set_link_ops(&link_oper_ops);
}

void
link_oper_unregister(void)
{
	oper_set_link_ops(NULL);
}

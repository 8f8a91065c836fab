# ircd/bridge/local.mk: the agent bridge (agents as IRC users), included by
# the top-level Makefile.am. It depends on the IRC core, acp/ and store/;
# nothing of the core depends on it.

noinst_LIBRARIES += libbridge.a
libbridge_a_SOURCES = \
	ircd/bridge/bridge.c ircd/bridge/bridge.h \
	ircd/bridge/agent.c ircd/bridge/agent.h \
	ircd/bridge/reload.c ircd/bridge/reload.h \
	ircd/bridge/conv.c ircd/bridge/conv.h \
	ircd/bridge/stream.c ircd/bridge/stream.h \
	ircd/bridge/ask.c ircd/bridge/ask.h \
	ircd/bridge/callbacks.c ircd/bridge/callbacks.h \
	ircd/bridge/dispatch.c ircd/bridge/dispatch.h \
	ircd/bridge/offline.c ircd/bridge/offline.h \
	ircd/bridge/bang.c ircd/bridge/bang.h \
	ircd/bridge/card.c ircd/bridge/card.h \
	ircd/bridge/mcp.c ircd/bridge/mcp.h ircd/bridge/mcp-bridge.c \
	ircd/bridge/mcp-proto.c ircd/bridge/mcp-proto.h \
	ircd/bridge/schedule.c ircd/bridge/schedule.h \
	ircd/bridge/aim.c ircd/bridge/aim.h \
	ircd/bridge/task.c ircd/bridge/task.h \
	ircd/bridge/sched-args.c ircd/bridge/sched-args.h \
	ircd/bridge/turn.c ircd/bridge/turn.h \
	ircd/bridge/prompt.c ircd/bridge/prompt.h \
	ircd/bridge/plan.c ircd/bridge/plan.h \
	ircd/bridge/phrase.c ircd/bridge/phrase.h \
	ircd/bridge/ircfmt.c ircd/bridge/ircfmt.h \
	ircd/bridge/route.c ircd/bridge/route.h \
	ircd/bridge/pairrate.c ircd/bridge/pairrate.h \
	ircd/bridge/handoff.c ircd/bridge/handoff.h \
	ircd/bridge/mention.c ircd/bridge/mention.h \
	ircd/bridge/policy.c ircd/bridge/policy.h \
	ircd/bridge/authority.c ircd/bridge/authority.h

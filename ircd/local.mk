# ircd/local.mk: the IRC core, included by the top-level Makefile.am (still
# one non-recursive make). libircd.a is everything of the server but main()
# and the agent bridge, so unit tests can link the pure parts.

noinst_LIBRARIES += libircd.a
libircd_a_SOURCES = \
	ircd/ircd.h \
	ircd/log.c ircd/log.h ircd/sysexits.h \
	ircd/xmalloc.c ircd/xmalloc.h \
	ircd/dict.c ircd/dict.h \
	ircd/casemap.c ircd/casemap.h \
	ircd/convkey.c ircd/convkey.h \
	ircd/clock.c ircd/clock.h \
	ircd/message.c ircd/message.h \
	ircd/mode.c ircd/mode.h \
	ircd/banmask.c ircd/banmask.h \
	ircd/conf.c ircd/conf.h \
	ircd/passwd.c ircd/passwd.h \
	ircd/mkcert.c ircd/mkcert.h \
	ircd/trust.c ircd/trust.h \
	ircd/preflight.c ircd/preflight.h \
	ircd/numeric.c ircd/numeric.h \
	ircd/reply.c ircd/reply.h \
	ircd/conn.c ircd/conn.h \
	ircd/wbuf.c ircd/wbuf.h \
	ircd/listen.c ircd/listen.h \
	ircd/client.c ircd/client.h \
	ircd/monitor.c ircd/monitor.h \
	ircd/channel.c ircd/channel.h \
	ircd/chanlife.c ircd/chanlife.h \
	ircd/whowas.c ircd/whowas.h \
	ircd/isupport.c ircd/isupport.h \
	ircd/command.c ircd/command.h \
	ircd/cap.h ircd/cmd-cap.c \
	ircd/account.c ircd/account.h \
	ircd/addrblock.c ircd/addrblock.h \
	ircd/sasl.c ircd/sasl.h \
	ircd/verify.c ircd/verify.h \
	ircd/history.c ircd/history.h \
	ircd/hook.c ircd/hook.h \
	ircd/multiline.c ircd/multiline.h \
	ircd/cmd-history.c \
	ircd/readmarker.c ircd/readmarker.h \
	ircd/redact.c \
	ircd/cmd-register.c \
	ircd/cmd-message.c \
	ircd/cmd-channel.c \
	ircd/cmd-mode.c \
	ircd/cmd-query.c \
	ircd/cmd-oper.c \
	ircd/server.c

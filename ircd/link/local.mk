# ircd/link/local.mk: server links (LK), included by the top-level
# Makefile.am. Like the bridge, it builds on the IRC core's seams (hook.h,
# client_ops); nothing of the core depends on it.

noinst_LIBRARIES += liblink.a
liblink_a_SOURCES = \
	ircd/link/link.c ircd/link/link.h \
	ircd/link/link-addr.c \
	ircd/link/link-burst.c \
	ircd/link/link-user.c \
	ircd/link/link-hub.c \
	ircd/link/link-replay.c \
	ircd/link/link-chan.c \
	ircd/link/link-oper.c \
	ircd/link/link-proto.c ircd/link/link-proto.h

# The protocol's lines, without sockets.
check_PROGRAMS += tests/unit/test_link_proto
TESTS += tests/unit/test_link_proto
tests_unit_test_link_proto_SOURCES = tests/unit/test_link_proto.c \
	tests/unit/tap.h
tests_unit_test_link_proto_LDADD = liblink.a $(UNIT_LDADD)

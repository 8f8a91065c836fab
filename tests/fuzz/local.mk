# tests/fuzz/local.mk: fuzz targets of the pure parsers, included by the
# top-level Makefile.am. make check builds each target with replay.c and
# replays its seeds (tests/fuzz/seeds/<target>/, the target named by the
# program); scripts/fuzz builds the same targets with clang's libFuzzer
# and searches for new inputs.

FUZZ_TARGETS = tests/fuzz/fuzz_message tests/fuzz/fuzz_route \
	tests/fuzz/fuzz_conf tests/fuzz/fuzz_jsonrpc tests/fuzz/fuzz_mention \
	tests/fuzz/fuzz_plain tests/fuzz/fuzz_sasl tests/fuzz/fuzz_mcp \
	tests/fuzz/fuzz_ircfmt tests/fuzz/fuzz_link
check_PROGRAMS += $(FUZZ_TARGETS)
TESTS += $(FUZZ_TARGETS)
tests_fuzz_fuzz_message_SOURCES = tests/fuzz/fuzz_message.c tests/fuzz/replay.c
tests_fuzz_fuzz_message_LDADD = $(UNIT_LDADD)
tests_fuzz_fuzz_route_SOURCES = tests/fuzz/fuzz_route.c tests/fuzz/replay.c
tests_fuzz_fuzz_route_LDADD = $(BRIDGE_LDADD)
tests_fuzz_fuzz_mention_SOURCES = tests/fuzz/fuzz_mention.c tests/fuzz/replay.c
tests_fuzz_fuzz_mention_LDADD = $(BRIDGE_LDADD)
tests_fuzz_fuzz_conf_SOURCES = tests/fuzz/fuzz_conf.c tests/fuzz/replay.c
tests_fuzz_fuzz_conf_LDADD = $(UNIT_LDADD)
tests_fuzz_fuzz_jsonrpc_SOURCES = tests/fuzz/fuzz_jsonrpc.c tests/fuzz/replay.c
tests_fuzz_fuzz_jsonrpc_LDADD = $(UNIT_LDADD)
tests_fuzz_fuzz_plain_SOURCES = tests/fuzz/fuzz_plain.c tests/fuzz/replay.c
tests_fuzz_fuzz_plain_LDADD = $(UNIT_LDADD)
tests_fuzz_fuzz_sasl_SOURCES = tests/fuzz/fuzz_sasl.c tests/fuzz/replay.c
tests_fuzz_fuzz_sasl_LDADD = $(UNIT_LDADD)
tests_fuzz_fuzz_mcp_SOURCES = tests/fuzz/fuzz_mcp.c tests/fuzz/replay.c
tests_fuzz_fuzz_mcp_LDADD = $(BRIDGE_LDADD)
tests_fuzz_fuzz_ircfmt_SOURCES = tests/fuzz/fuzz_ircfmt.c tests/fuzz/replay.c
tests_fuzz_fuzz_ircfmt_LDADD = $(BRIDGE_LDADD)
tests_fuzz_fuzz_link_SOURCES = tests/fuzz/fuzz_link.c tests/fuzz/replay.c
tests_fuzz_fuzz_link_LDADD = liblink.a $(UNIT_LDADD)
EXTRA_DIST += tests/fuzz/seeds scripts/fuzz

# acp/local.mk: the ACP client library and its tests, included by the
# top-level Makefile.am (still one non-recursive make).

noinst_LIBRARIES += libacp.a
libacp_a_SOURCES = \
	acp/acp.h \
	acp/internal.h \
	acp/log.c acp/log.h \
	acp/json.c \
	acp/jsonrpc.c acp/jsonrpc.h \
	acp/proc.c acp/proc.h \
	acp/util.c \
	acp/lifecycle.c acp/session.c acp/update.c acp/permission.c \
	acp/pool.c acp/pool.h \
	acp/plain.c acp/plain.h

ACP_LDADD = libacp.a libcompat.a $(DEPLIBS)
ACP_UNIT_TESTS = tests/acp/test_jsonrpc tests/acp/test_argv
check_PROGRAMS += $(ACP_UNIT_TESTS) tests/acp/acp-driver
tests_acp_test_jsonrpc_SOURCES = tests/acp/test_jsonrpc.c tests/unit/tap.h
tests_acp_test_jsonrpc_LDADD = $(ACP_LDADD)
tests_acp_test_argv_SOURCES = tests/acp/test_argv.c tests/unit/tap.h
tests_acp_test_argv_LDADD = $(ACP_LDADD)
# The integration driver: a libevent loop running scenarios against the
# Node test agents of tests/agents/ (needs npm ci --prefix tests/agents).
tests_acp_acp_driver_SOURCES = tests/acp/acp-driver.c tests/unit/tap.h
tests_acp_acp_driver_LDADD = $(ACP_LDADD)

ACP_INTEGRATION_TESTS = tests/acp/test_acp.sh
TESTS += $(ACP_UNIT_TESTS) $(ACP_INTEGRATION_TESTS)
EXTRA_DIST += tests/acp/test_acp.sh \
	tests/agents/package.json tests/agents/package-lock.json \
	tests/agents/echo-agent.mjs tests/agents/demo-agent.mjs tests/agents/mcp-agent.mjs

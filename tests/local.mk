# tests/local.mk: checks of the tree itself rather than of the daemon,
# included by the top-level Makefile.am.
#
# tests/layers.sh: the layers of docs/architecture.md hold (includes, and
# the core's library asks nothing of the bridge's).
TESTS += tests/layers.sh
EXTRA_DIST += tests/layers.sh

# The core's hook table, linked without the bridge like every core test.
check_PROGRAMS += tests/unit/test_hook
TESTS += tests/unit/test_hook
tests_unit_test_hook_SOURCES = tests/unit/test_hook.c tests/unit/tap.h
tests_unit_test_hook_LDADD = $(UNIT_LDADD)

# tests/rules.sh: docs/rules.md has an entry for every rule id cited in
# the code and tests, and every path it names exists.
TESTS += tests/rules.sh
EXTRA_DIST += tests/rules.sh docs/rules.md

# clock.c's server-time parser (CHATHISTORY selectors, MARKREAD).
check_PROGRAMS += tests/unit/test_clock
TESTS += tests/unit/test_clock
tests_unit_test_clock_SOURCES = tests/unit/test_clock.c tests/unit/tap.h
tests_unit_test_clock_LDADD = $(UNIT_LDADD)

# store/local.mk: the SQLite store and its unit tests, included by the
# top-level Makefile.am (still one non-recursive make).

noinst_LIBRARIES += libstore.a
libstore_a_SOURCES = \
	store/store.h \
	store/store-int.h \
	store/store.c \
	store/checkpoint.c \
	store/migrate.c \
	store/history.c \
	store/channels.c \
	store/members.c \
	store/agents.c store/schedules.c store/tasks.c \
	store/kv.c store/markers.c

check_PROGRAMS += tests/unit/test_store
TESTS += tests/unit/test_store
tests_unit_test_store_SOURCES = tests/unit/test_store.c tests/unit/tap.h
tests_unit_test_store_LDADD = libstore.a libcompat.a $(DEPLIBS)

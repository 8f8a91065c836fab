# bench/local.mk: the load generator and its smoke test, included by the
# top-level Makefile.am (still one non-recursive make).
#
# The load generator is a check program, so "make check" builds it and
# runs it once at tiny scale (and checks its two hard rules: loopback
# only, and it always stops); benchmarks proper are bench/run-compare,
# never part of make check (nothing here asserts a time).
check_PROGRAMS += bench/loadgen
bench_loadgen_SOURCES = bench/loadgen.c
bench_loadgen_LDADD = libcompat.a $(LIBEVENT_OPENSSL_LIBS) $(LIBEVENT_LIBS) \
	$(OPENSSL_LIBS)
# The floor of the latency scenarios (bench/README.md): not an IRC server.
check_PROGRAMS += bench/floor
bench_floor_SOURCES = bench/floor.c
bench_floor_LDADD = libcompat.a

TESTS += bench/smoke.sh bench/limits.sh
EXTRA_DIST += bench/lib.sh bench/run-compare bench/link-compare bench/README.md \
	bench/history-bench
EXTRA_DIST += bench/bridge-bench bench/agents/ts-agent.mjs bench/soak

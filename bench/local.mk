# bench/local.mk: the load generator and its smoke test, included by the
# top-level Makefile.am (still one non-recursive make).

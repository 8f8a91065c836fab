# store/local.mk: the SQLite store and its unit tests, included by the
# top-level Makefile.am (still one non-recursive make).

# acp/local.mk: the ACP client library and its tests, included by the
# top-level Makefile.am (still one non-recursive make).

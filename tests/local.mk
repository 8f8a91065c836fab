# tests/local.mk: checks of the tree itself rather than of the daemon,
# included by the top-level Makefile.am.
#
# tests/layers.sh: the layers of docs/architecture.md hold (includes, and
# the core's library asks nothing of the bridge's).
TESTS += tests/layers.sh
EXTRA_DIST += tests/layers.sh

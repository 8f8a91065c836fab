#!/bin/sh
# test_acp.sh: acp/ against the Node ACP test agents (tests/agents/). Skips
# when Node or the SDK (npm ci --prefix tests/agents) is missing.
srcdir=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # SKIP node not installed"; exit 0
fi
if [ ! -d "$srcdir/tests/agents/node_modules/@agentclientprotocol/sdk" ]; then
	echo "1..0 # SKIP run: npm ci --prefix tests/agents"; exit 0
fi
SRCDIR=$srcdir exec ./tests/acp/acp-driver "$@"

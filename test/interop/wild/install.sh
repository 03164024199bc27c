#!/usr/bin/env bash
# Installs the wild-agent fixture project (VoltAgent's A2A server and what it pulls, about 320 MB) into
# test/interop/wild/node_modules, from its own package-lock.json. Kept out of the repo's devDependencies: the
# interop test that needs it skips, saying so, when it is not installed. Takes about 25 seconds on a warm npm cache.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts

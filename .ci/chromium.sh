#!/usr/bin/env bash
# Debian's Chromium for the browser tests (the dev UI, the client in a browser).
#
#   .ci/chromium.sh            # installs it with apt-get when absent and we are root; prints its path
#
# Tests find it through A2A_CHROMIUM (or /usr/bin/chromium) and skip with one line when it is missing;
# CI runs this script first, so there they run. playwright-core drives it (no browser download).
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

find_chromium() {
  local candidate
  for candidate in "${A2A_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}

if find_chromium; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  log "Chromium is not installed; install it (apt-get install -y chromium) or run as root"
  exit 1
fi
log "installing Chromium with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium >&2
find_chromium

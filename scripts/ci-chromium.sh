#!/usr/bin/env bash
# Installs Debian's `chromium` for the browser tests (test/browser) when it is missing. CI runs as root
# on a clean Debian machine with apt; elsewhere it says what to run instead of failing the set-up.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  echo "chromium: $(chromium --version 2>/dev/null | head -1)"
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium is missing: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH; test/browser will skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "chromium: $(chromium --version 2>/dev/null | head -1)"

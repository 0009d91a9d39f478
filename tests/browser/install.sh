#!/usr/bin/env bash
# Installs what the browser tests (tests/integration/web_browser.rs) need: Debian's
# chromium (apt-get, when /usr/bin/chromium is missing; nodejs and npm too if absent) and the pinned playwright-core
# (npm ci, into tests/browser/node_modules). playwright-core drives the system chromium;
# it downloads no browser of its own. A no-op once installed.
set -euo pipefail
cd "$(dirname "$0")"
packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium fonts-dejavu-core)
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
if [ ${#packages[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${packages[@]}" >/dev/null
fi
pinned=$(node -p "require('./package.json').dependencies['playwright-core']")
installed=$(node -p "try { require('./node_modules/playwright-core/package.json').version } catch (e) { '' }")
if [ "$installed" != "$pinned" ]; then
    npm ci --no-audit --no-fund --silent
fi

#!/usr/bin/env bash
# Prepare the real-browser test: Debian's chromium + chromium-driver (apt, root) if missing, and a virtual
# environment with Selenium from PyPI. Idempotent. Prints the venv's python.
#   XID_INTEROP_VENV   where the venv goes (default: <repo>/.build/interop-venv, a cache)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${XID_INTEROP_VENV:-$repo/.build/interop-venv}"
say() { echo "[interop/setup-browser] $*" >&2; }

apt_install() {
  [[ $(id -u) == 0 ]] || { say "ERROR: need root to apt-get install $*"; exit 1; }
  say "apt-get install $*"
  local cmd=(apt-get install -y -q -o DPkg::Lock::Timeout=120 "$@")
  DEBIAN_FRONTEND=noninteractive "${cmd[@]}" >/dev/null || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive "${cmd[@]}" >/dev/null; }
}

[[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]] || apt_install chromium chromium-driver

if ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
  # Debian's own python3 needs python3-venv for `-m venv` (ensurepip); other pythons bring it.
  python3 -m venv --clear "$venv" 2>/dev/null || { apt_install python3-venv && python3 -m venv --clear "$venv"; }
  say "pip install selenium into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'selenium>=4.20,<5'
fi
echo "$venv/bin/python"

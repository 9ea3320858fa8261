#!/usr/bin/env bash
# Run one command against a freshly started provider, and stop it afterwards whatever happens (the command
# fails, start.sh fails half-way, Ctrl-C): start.sh, the command with the env file's XID_IDP_* variables
# exported, then stop.sh --purge. Exit status: the command's (or start.sh's).
#   scripts/interop/with-provider.sh scripts/interop/check.py --browser
#   scripts/interop/with-provider.sh swift test --filter Interop
# It stops a provider that was already running on the same XID_IDP_DATA_DIR too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
trap '"$here/stop.sh" --purge' EXIT
trap 'exit 130' INT TERM  # so that the EXIT trap runs on signals as well
"$here/start.sh"
set -a && . "${XID_IDP_DATA_DIR:-/dev/shm/xid-glewlwyd}/env" && set +a
"$@"

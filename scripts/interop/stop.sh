#!/usr/bin/env bash
# Stop the glewlwyd that start.sh started: only the pid in its pid file, and only if that process still
# runs with our config file. `stop.sh --purge` also deletes XID_IDP_DATA_DIR (next start is a clean one).
set -euo pipefail
data="${XID_IDP_DATA_DIR:-/dev/shm/xid-glewlwyd}"
pidfile="$data/glewlwyd.pid"
say() { echo "[interop/stop] $*" >&2; }

if pid="$(cat "$pidfile" 2>/dev/null)"; then
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config-file=$data/glewlwyd.conf"; then
    kill -TERM "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done  # 5 s, then KILL
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    say "stopped glewlwyd pid $pid"
  else
    say "pid $pid is not our glewlwyd any more (stale pid file)"
  fi
  rm -f "$pidfile"
else
  say "not running (no $pidfile)"
fi

if [[ "${1:-}" == --purge ]]; then
  [[ -n "$data" && "$data" != / ]] && rm -rf -- "$data" && say "deleted $data"
fi

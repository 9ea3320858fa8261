#!/usr/bin/env bash
# Start a real OpenID provider for Xid's interop tests: glewlwyd 2.7 from Debian's packages, plain HTTP
# on 127.0.0.1, SQLite on tmpfs. Idempotent: installs what is missing, creates missing state, starts the
# server unless it already runs, then (re)provisions keys, clients and the user through the admin API
# and writes $XID_IDP_DATA_DIR/env (shell) and env.json for the tests. Stop it with stop.sh.
#
# Env (all optional):
#   XID_IDP_PORT=4593                       TCP port on 127.0.0.1
#   XID_IDP_DATA_DIR=/dev/shm/xid-glewlwyd  DB, keys, config, log, pid file, env files
#   XID_IDP_EXTRA_REDIRECT_URIS="..."       more redirect URIs (space separated, matched exactly)
#   XID_IDP_EXTRA_POST_LOGOUT_URIS="..."    more post-logout redirect URIs
#   XID_IDP_LOG_LEVEL=WARNING               NONE|ERROR|WARNING|INFO|DEBUG
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
port="${XID_IDP_PORT:-4593}"
data="${XID_IDP_DATA_DIR:-/dev/shm/xid-glewlwyd}"
base="http://127.0.0.1:${port}"
conf="$data/glewlwyd.conf" pidfile="$data/glewlwyd.pid"
say() { echo "[interop/start] $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# --- 1. packages ---------------------------------------------------------------------------------
need=()
command -v glewlwyd >/dev/null || need+=(glewlwyd dbconfig-no-thanks)
command -v openssl >/dev/null || need+=(openssl)
command -v python3 >/dev/null || need+=(python3)
if ((${#need[@]})); then
  [[ $(id -u) == 0 ]] || die "need root to apt-get install ${need[*]}"
  say "apt-get install ${need[*]}"
  # dbconfig-no-thanks stands in for the database-client dependency (no MariaDB/PostgreSQL pulled in).
  # With it the postinst fails unless debconf says "No configuration" (else: sed on a missing db conf).
  echo "glewlwyd glewlwyd/config_type select No configuration" | debconf-set-selections
  apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 "$@" >/dev/null; }
  apt_install "${need[@]}" || { apt-get update -q >/dev/null && apt_install "${need[@]}"; }
  # Where systemd runs, the package's own service would take port 4593 with /etc/glewlwyd's config.
  if [[ -d /run/systemd/system ]]; then systemctl disable --now glewlwyd >/dev/null 2>&1 || true; fi
fi

running() {  # our pid file names a live process started with our config file
  local pid; pid="$(cat "$pidfile" 2>/dev/null)" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config-file=$conf"
}
up() { python3 -c 'import sys,urllib.request as u; u.urlopen(sys.argv[1], timeout=1)' "$base/config/" 2>/dev/null; }

if running; then
  grep -qx "port=$port" "$conf" || die "already running on another port ($conf); run stop.sh first"
  say "already running, pid $(cat "$pidfile")"
else
  mkdir -p "$data"
  rm -f "$pidfile"
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && die "port $port is already in use on 127.0.0.1"

  # --- 2. state: DB, keys, web app, config (each created only if missing) -----------------------
  if [[ ! -s "$data/glewlwyd.db" ]]; then
    # The schema script also creates admin/password, scopes g_admin, g_profile, openid and the database
    # user/client backends. One transaction: ~0.3 s instead of ~2.4 s of per-statement commits.
    rm -f "$data/glewlwyd.db.new"
    python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.executescript("BEGIN;\n"+open(sys.argv[2]).read()+"\nCOMMIT;")' \
      "$data/glewlwyd.db.new" /usr/share/dbconfig-common/data/glewlwyd/install/sqlite3
    mv "$data/glewlwyd.db.new" "$data/glewlwyd.db"
  fi
  # Signing keys; provision.py turns the PEM files into the plugin's private JWKS (kid es256-1, rs256-1).
  (umask 077
   [[ -s "$data/es256.pem" ]] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$data/es256.pem"
   [[ -s "$data/rs256.pem" ]] || openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$data/rs256.pem" 2>/dev/null)
  # The login page (login.html) is served from a copy of Debian's web app with every symlink dereferenced:
  # the links are relative (../../../nodejs/...), and config.json links to a *directory*
  # (/etc/glewlwyd/config-2.7.json/) that holds the real file, which must take the directory's place.
  if [[ ! -f "$data/webapp/config.json" ]]; then
    rm -rf "$data/webapp" && cp -rL /usr/share/glewlwyd/webapp "$data/webapp"
    rm -rf "$data/webapp/config.json" && cp /usr/share/glewlwyd/webapp/config.json/config.json "$data/webapp/"
  fi
  # Never write use_secure_connection (even =false makes glewlwyd demand certificate files);
  # external_url has no trailing '/' (it prefixes every endpoint and the DPoP htu compared byte for byte).
  cat >"$conf" <<EOF
port=$port
bind_address="127.0.0.1"
external_url="$base"
login_url="login.html"
api_prefix="api"
static_files_path="$data/webapp/"
static_files_mime_types = (
  { extension = ".html" mime_type = "text/html" compress = 1 },
  { extension = ".js" mime_type = "application/javascript" compress = 1 },
  { extension = ".json" mime_type = "application/json" compress = 1 },
  { extension = ".css" mime_type = "text/css" compress = 1 },
  { extension = ".png" mime_type = "image/png" compress = 0 },
  { extension = ".ico" mime_type = "image/x-icon" compress = 0 },
  { extension = ".svg" mime_type = "image/svg+xml" compress = 1 },
  { extension = ".woff2" mime_type = "font/woff2" compress = 0 },
  { extension = ".woff" mime_type = "font/woff" compress = 0 },
  { extension = ".ttf" mime_type = "font/ttf" compress = 0 }
)
log_mode="file"
log_file="$data/glewlwyd.log"
log_level="${XID_IDP_LOG_LEVEL:-WARNING}"
cookie_secure=0
session_key="GLEWLWYD2_SESSION_ID"
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
hash_algorithm="SHA512"
database = { type = "sqlite3" path = "$data/glewlwyd.db" };
EOF

  # --- 3. start detached (own session, no terminal) and wait, bounded ---------------------------
  say "starting glewlwyd $(glewlwyd --version 2>/dev/null | tail -1) on $base"
  setsid glewlwyd --config-file="$conf" >"$data/glewlwyd.out" 2>&1 </dev/null &
  echo $! >"$pidfile"
  for _ in $(seq 100); do  # 10 s at most
    up && break
    running || { cat "$data/glewlwyd.out" "$data/glewlwyd.log" >&2 2>/dev/null; die "glewlwyd exited"; }
    sleep 0.1
  done
  up || die "glewlwyd did not answer on $base within 10 s (see $data/glewlwyd.log)"
fi

# --- 4. provision through the admin API (idempotent) and write the env files ----------------------
XID_IDP_BASE="$base" XID_IDP_DATA_DIR="$data" python3 "$here/provision.py"
say "ready: issuer $base/api/oidc, pid $(cat "$pidfile"); env: $data/env and $data/env.json"

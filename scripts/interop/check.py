#!/usr/bin/env python3
"""Smoke test of the interop provider (start.sh first): the harness checking itself, not Xid's tests.

usage: check.py [--browser]

Discovery and JWKS; code + PKCE for both clients through glewlwyd's login API (POST /api/auth/, then the
authorization URL with &g_continue); token exchange; one refresh (rotation: the old refresh token is then
refused); the device grant; the DPoP instance (its discovery, its client refused without a proof). --browser adds a sign-in and an end_session sign-out on the real login page
in headless Chromium (browser-login.py, after setup-browser.sh), with a loopback listener on the fixed port.
Reads $XID_IDP_DATA_DIR/env.json (default /dev/shm/xid-glewlwyd). Python standard library only.
Prints PASS/FAIL lines and "N passed, N failed"; exit status 1 if anything failed.
"""
import base64
import hashlib
import http.client
import http.server
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ENV = json.load(open(os.path.join(os.environ.get("XID_IDP_DATA_DIR", "/dev/shm/xid-glewlwyd"), "env.json")))
ISSUER, BASE = ENV["XID_IDP_ISSUER"], ENV["XID_IDP_BASE_URL"]
SCOPE = "openid profile email offline_access"
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  ({detail})" if detail and not ok else ""))
    return ok


def request(method, url, form=None, body=None, cookie=None):
    """One HTTP exchange, redirects not followed. Returns (status, headers (lower-case names), parsed body)."""
    u = urllib.parse.urlsplit(url)
    headers = {"Cookie": cookie} if cookie else {}
    if form is not None:
        body, headers["Content-Type"] = urllib.parse.urlencode(form), "application/x-www-form-urlencoded"
    elif body is not None:
        body, headers["Content-Type"] = json.dumps(body), "application/json"
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        conn.request(method, u.path + ("?" + u.query if u.query else ""), body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode(errors="replace")
        return r.status, {k.lower(): v for k, v in r.getheaders()}, parsed
    finally:
        conn.close()


def jwt_part(token, i):
    seg = token.split(".")[i]
    return json.loads(base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4)))


def auth_request(client_id, redirect_uri, discovery=None):
    """A fresh authorization request: (URL, state, nonce, code_verifier). glewlwyd wants a nonce with openid."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state, nonce = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": SCOPE,
        "state": state, "nonce": nonce, "code_challenge": challenge, "code_challenge_method": "S256"})
    return f"{(discovery or DISC)['authorization_endpoint']}?{query}", state, nonce, verifier


def exchange(client_id, redirect_uri, params, state, nonce, verifier, alg):
    """Check the authorization response, redeem its code and check the ID token's header and claims."""
    check(f"{client_id}: authorization response has code, our state and iss = issuer",
          params.get("code") and params.get("state") == state and params.get("iss") == ISSUER, params)
    status, _, tok = request("POST", DISC["token_endpoint"], form={
        "grant_type": "authorization_code", "code": params.get("code", ""), "redirect_uri": redirect_uri,
        "client_id": client_id, "code_verifier": verifier})
    tok = tok if isinstance(tok, dict) else {}
    if not check(f"{client_id}: token exchange with code_verifier -> access, ID and refresh token",
                 status == 200 and {"access_token", "id_token", "refresh_token"} <= tok.keys(), f"HTTP {status} {tok}"):
        return {}
    header, claims = jwt_part(tok["id_token"], 0), jwt_part(tok["id_token"], 1)
    check(f"{client_id}: ID token signed {alg}, iss/aud/nonce as sent",
          header.get("alg") == alg and claims.get("iss") == ISSUER and claims.get("nonce") == nonce
          and client_id in ([claims.get("aud")] if isinstance(claims.get("aud"), str) else claims.get("aud", [])),
          f"header {header}, claims {claims}")
    return tok


# --- discovery ---------------------------------------------------------------------------------------
status, _, DISC = request("GET", ISSUER + "/.well-known/openid-configuration")
DISC = DISC if isinstance(DISC, dict) else {}
check("discovery: issuer matches, endpoints present, PKCE S256",
      status == 200 and DISC.get("issuer") == ISSUER and "S256" in DISC.get("code_challenge_methods_supported", [])
      and all(DISC.get(k) for k in ("authorization_endpoint", "token_endpoint", "jwks_uri", "end_session_endpoint",
                                    "device_authorization_endpoint")), f"HTTP {status}")
status, _, jwks = request("GET", DISC.get("jwks_uri", ISSUER + "/jwks"))
keys = {(k.get("kid"), k.get("alg")) for k in (jwks or {}).get("keys", [])}
check("jwks: es256-1 (ES256) and rs256-1 (RS256), public parts only",
      {("es256-1", "ES256"), ("rs256-1", "RS256")} <= keys and not any("d" in k for k in jwks["keys"]), keys)

# --- code + PKCE through the login API (what login.html does) -----------------------------------------
status, headers, _ = request("POST", BASE + "/api/auth/", body={"username": ENV["XID_IDP_USERNAME"],
                                                                "password": ENV["XID_IDP_PASSWORD"]})
cookie = headers.get("set-cookie", "").split(";")[0]
check("login API: POST /api/auth/ -> session cookie", status == 200 and cookie.startswith("GLEWLWYD2_SESSION_ID="))
tokens = {}
for client_id, alg in ((ENV["XID_IDP_CLIENT_ID_ES256"], "ES256"), (ENV["XID_IDP_CLIENT_ID_RS256"], "RS256")):
    redirect_uri = ENV["XID_IDP_REDIRECT_URI"]
    url, state, nonce, verifier = auth_request(client_id, redirect_uri)
    status, headers, _ = request("GET", url + "&g_continue", cookie=cookie)
    location = headers.get("location", "")
    check(f"{client_id}: authorization with &g_continue -> 302 to the redirect URI",
          status == 302 and location.startswith(redirect_uri + "?"), f"HTTP {status} {location[:120]}")
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    tokens[client_id] = exchange(client_id, redirect_uri, params, state, nonce, verifier, alg)

# --- refresh with rotation ---------------------------------------------------------------------------
client_id = ENV["XID_IDP_CLIENT_ID_ES256"]
old = tokens[client_id].get("refresh_token", "")
status, _, new = request("POST", DISC["token_endpoint"], form={"grant_type": "refresh_token", "refresh_token": old,
                                                               "client_id": client_id})
new = new if isinstance(new, dict) else {}
check("refresh: 200 with a new access token and a new (rotated) refresh token",
      status == 200 and new.get("access_token") and new.get("refresh_token") not in (None, old), f"HTTP {status} {new}")
status, _, body = request("POST", DISC["token_endpoint"], form={"grant_type": "refresh_token", "refresh_token": old,
                                                                "client_id": client_id})
check("refresh: the rotated-out refresh token is refused", 400 <= status < 500, f"HTTP {status} {body!r}")
print(f"      (glewlwyd answers that with HTTP {status}, body {body or 'empty'})")

# --- device grant (RFC 8628) ----------------------------------------------------------------------------
status, _, dev = request("POST", DISC["device_authorization_endpoint"], form={"client_id": client_id, "scope": SCOPE})
dev = dev if isinstance(dev, dict) else {}
check("device: authorization -> device_code, user_code, verification_uri",
      status == 200 and dev.get("device_code") and dev.get("user_code") and dev.get("verification_uri"), dev)
poll = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": dev.get("device_code", ""),
        "client_id": client_id}
status, _, body = request("POST", DISC["token_endpoint"], form=poll)
check("device: poll before approval -> authorization_pending",
      isinstance(body, dict) and body.get("error") == "authorization_pending", f"HTTP {status} {body!r}")
polled = time.monotonic()
status, headers, _ = request("GET", f"{ISSUER}/device/?code={urllib.parse.quote(dev.get('user_code', ''))}&g_continue",
                             cookie=cookie)
check("device: user approves (GET /device/?code=USER_CODE&g_continue with the session)",
      status == 302 and "prompt=deviceComplete" in headers.get("location", ""), headers.get("location"))
time.sleep(max(0.0, dev.get("interval", 5) - (time.monotonic() - polled)))  # polling faster is refused
status, _, body = request("POST", DISC["token_endpoint"], form=poll)
check("device: poll after approval -> access and ID token",
      status == 200 and isinstance(body, dict) and body.get("access_token") and body.get("id_token"),
      f"HTTP {status} {body!r}")

# --- the DPoP instance: set up as Xid's DPoP tests need (proofs themselves need ES256, not in the stdlib) -----
status, _, dpop_disc = request("GET", ENV["XID_IDP_DPOP_ISSUER"] + "/.well-known/openid-configuration")
dpop_disc = dpop_disc if isinstance(dpop_disc, dict) else {}
check("dpop: oidc-dpop's discovery lists ES256 in dpop_signing_alg_values_supported",
      status == 200 and dpop_disc.get("issuer") == ENV["XID_IDP_DPOP_ISSUER"]
      and "ES256" in dpop_disc.get("dpop_signing_alg_values_supported", []), f"HTTP {status}")
dpop_client = ENV["XID_IDP_CLIENT_ID_DPOP"]
url, state, nonce, verifier = auth_request(dpop_client, ENV["XID_IDP_REDIRECT_URI"], dpop_disc or DISC)
status, headers, _ = request("GET", url + "&g_continue", cookie=cookie)
code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers.get("location", "")).query)).get("code", "")
status, _, body = request("POST", (dpop_disc or DISC)["token_endpoint"], form={
    "grant_type": "authorization_code", "code": code, "redirect_uri": ENV["XID_IDP_REDIRECT_URI"],
    "client_id": dpop_client, "code_verifier": verifier})
check(f"dpop: {dpop_client}'s code exchange without a DPoP proof -> 403 invalid_dpop_proof",
      code and status == 403 and isinstance(body, dict) and body.get("error") == "invalid_dpop_proof",
      f"HTTP {status} {body!r}")

# --- real browser: login.html in headless Chromium, loopback listener on the fixed port ------------------
def browser(*args):
    """Run browser-login.py; (exit status, seconds)."""
    started = time.monotonic()
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser-login.py")
    status = subprocess.run([sys.executable, script, *args, "--profile", profile, "--timeout", "60"]).returncode
    return status, time.monotonic() - started


if "--browser" in sys.argv[1:]:
    redirect_uri, logout_uri = ENV["XID_IDP_BROWSER_REDIRECT_URI"], ENV["XID_IDP_POST_LOGOUT_REDIRECT_URI"]
    received = {}  # path -> query parameters

    class Listener(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # answers every path: Chromium also asks for /favicon.ico after the callback
            u = urllib.parse.urlsplit(self.path)
            received[u.path] = dict(urllib.parse.parse_qsl(u.query))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"You can close this window.")

        def log_message(self, *args):
            pass

    u = urllib.parse.urlsplit(redirect_uri)
    server = http.server.HTTPServer((u.hostname, u.port), Listener)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="xid-chromium-")
    try:
        url, state, nonce, verifier = auth_request(client_id, redirect_uri)
        status, seconds = browser(url)
        params = received.get(u.path, {})
        tok = {}
        if check(f"browser: sign-in on login.html -> listener got the callback ({seconds:.1f} s)",
                 status == 0 and params.get("code"), f"exit {status}, callback {params}"):
            tok = exchange(client_id, redirect_uri, params, state, nonce, verifier, "ES256")
        if tok:
            query = urllib.parse.urlencode({"id_token_hint": tok["id_token"], "post_logout_redirect_uri": logout_uri,
                                            "state": "bye"})
            status, seconds = browser("--logout", f"{DISC['end_session_endpoint']}?{query}")
            params = received.get(urllib.parse.urlsplit(logout_uri).path)
            check(f"browser: end_session, Logout -> listener got post_logout_redirect_uri?state ({seconds:.1f} s)",
                  status == 0 and params == {"state": "bye"}, f"exit {status}, got {params}")
            status, _, body = request("POST", DISC["token_endpoint"], form={
                "grant_type": "refresh_token", "refresh_token": tok["refresh_token"], "client_id": client_id})
            check("browser: the session's refresh token is refused after the logout", status == 400, f"HTTP {status}")
    finally:
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)

failed = results.count(False)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
